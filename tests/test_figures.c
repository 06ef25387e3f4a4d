/* test_figures.c -- the report over the committed results, and its figures.
 *
 * scripts/report.py turns the CSVs of results/ into results/REPORT.md; these tests
 * run it (with Debian's /usr/bin/python3, which has numpy) on the committed
 * quick-scale results and on an empty directory, and check what a reader
 * relies on: a summary line, no row that says "differs" without saying
 * why, every inline figure present as PNG and SVG, and a missing CSV shown
 * as "not measured" rather than a crash.  And a figure script reads its
 * CSV's columns by name: the same figure from the columns reversed. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define PYTHON "/usr/bin/python3"

/* Run the report on DIR; stdout into *out, the exit status returned. */
static int run_report(const char *dir, char **out)
{
    char out_path[] = "/tmp/bloomlab-report-XXXXXX";
    int fd = mkstemp(out_path);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, PYTHON " scripts/report.py %s > %s 2>/dev/null", dir, out_path);
    int raw = system(cmd);
    *out = slurp(out_path);
    unlink(out_path);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

/* The last cell of a Markdown table row ("| a | b | note |"). */
static void last_cell(const char *line, size_t len, char *out, size_t size)
{
    size_t end = len;
    while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '|'))
        end--;
    size_t start = end;
    while (start > 0 && !(line[start - 1] == '|' && (start < 2 || line[start - 2] != '\\')))
        start--;
    while (start < end && line[start] == ' ')
        start++;
    size_t n = end - start < size - 1 ? end - start : size - 1;
    memcpy(out, line + start, n);
    out[n] = '\0';
}

Test(figures, report_on_the_committed_results, .timeout = 60)
{
    if (!file_exists("results/fpr_vs_k.csv"))
        cr_skip_test("results/ has not been generated (run make)");
    char *md = NULL;
    cr_assert_eq(run_report("results", &md), 0);
    cr_assert(strstr(md, "# REPORT") != NULL);
    cr_assert(strstr(md, "**Summary:**") != NULL);
    cr_assert(strstr(md, "report error") == NULL, "a section raised an exception");
    /* every "differs" row carries its explanation in the note column */
    int differs = 0;
    for (const char *line = md; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > 2 && line[0] == '|' && memmem(line, len, "**differs", 9) != NULL) {
            char note[2048];
            last_cell(line, len, note, sizeof note);
            cr_assert_gt(strlen(note), 10, "a differs row without a reason: %.*s", (int)len, line);
            differs++;
        }
        line = end ? end + 1 : line + len;
    }
    cr_log_info("%d explained 'differs' rows", differs);
    free(md);
}

Test(figures, every_inline_figure_exists, .timeout = 60)
{
    if (!file_exists("results/fpr_vs_k.csv"))
        cr_skip_test("results/ has not been generated (run make)");
    char *md = NULL;
    cr_assert_eq(run_report("results", &md), 0);
    int figures = 0;
    for (const char *p = md; (p = strstr(p, "](../plots/")) != NULL; p++) {
        const char *name = p + strlen("](../plots/");
        const char *dot = strstr(name, ".png)");
        cr_assert_not_null(dot);
        char png[300], svg[300];
        snprintf(png, sizeof png, "plots/%.*s.png", (int)(dot - name), name);
        snprintf(svg, sizeof svg, "plots/%.*s.svg", (int)(dot - name), name);
        cr_assert(file_exists(png), "%s is referenced but missing", png);
        cr_assert(file_exists(svg), "%s is missing beside its PNG", svg);
        figures++;
    }
    cr_assert_geq(figures, 10);
    free(md);
}

Test(figures, missing_results_are_not_a_crash, .timeout = 60)
{
    char *dir = temp_dir();
    char *md = NULL;
    cr_assert_eq(run_report(dir, &md), 0);
    cr_assert(strstr(md, "not measured") != NULL);
    /* the deterministic facts need no CSV */
    cr_assert(strstr(md, "3353438327") != NULL);
    free(md);
    rmdir(dir);
    free(dir);
}

/* A figure reads its CSV's columns by name (plots/columns.gpi): layouts.gp
 * drawn from results/layouts.csv and from a copy with the columns in
 * reverse order gives the same PNG and SVG bytes, and gnuplot says nothing
 * (an unknown column, or a series left without points, would be a message). */
Test(figures, a_figure_reads_the_columns_by_name, .timeout = 60)
{
    if (!file_exists("results/layouts.csv"))
        cr_skip_test("results/ has not been generated (run make)");
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        cr_skip_test("gnuplot absent");
    char *dir = temp_dir();
    char cmd[2000], path[700];
    /* two trees as the script expects them: plots/ beside results/ */
    snprintf(cmd, sizeof cmd,
             "for t in as_is reversed; do mkdir -p %s/$t/plots %s/$t/results && "
             "cp plots/layouts.gp plots/columns.gpi %s/$t/plots/ || exit 1; done && "
             "cp results/layouts.csv %s/as_is/results/",
             dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/reversed/results/layouts.csv", dir);
    reverse_columns("results/layouts.csv", path);
    snprintf(cmd, sizeof cmd, "for t in as_is reversed; do (cd %s/$t/plots && gnuplot layouts.gp) || exit 1; done 2> %s/said",
             dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(path, sizeof path, "%s/said", dir);
    char *said = slurp(path);
    cr_assert(said != NULL && said[0] == '\0', "gnuplot said: %s", said ? said : "(nothing written)");
    free(said);
    for (int i = 0; i < 2; i++) {
        const char *ext = i == 0 ? "png" : "svg";
        snprintf(cmd, sizeof cmd, "cmp -s %s/as_is/plots/layouts.%s %s/reversed/plots/layouts.%s", dir, ext, dir, ext);
        cr_assert_eq(system(cmd), 0, "layouts.%s changed with the column order", ext);
    }
    remove_tree(dir);
}

Test(figures, a_bad_directory_is_refused, .timeout = 60)
{
    char *md = NULL;
    cr_assert_eq(run_report("/nonexistent/bloomlab-results", &md), 2);
    free(md);
}
