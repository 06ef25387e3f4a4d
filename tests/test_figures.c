/* test_figures.c -- the report over the committed results, and its figures.
 *
 * scripts/report.py turns the CSVs of results/ into results/REPORT.md; these tests
 * run it (with Debian's /usr/bin/python3, which has numpy) on the committed
 * quick-scale results and on an empty directory, and check what a reader
 * relies on: a summary line, no row that says "differs" without saying
 * why, every inline figure present as PNG and SVG, and a missing CSV shown
 * as "not measured" rather than a crash. */
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

Test(figures, a_bad_directory_is_refused, .timeout = 60)
{
    char *md = NULL;
    cr_assert_eq(run_report("/nonexistent/bloomlab-results", &md), 2);
    free(md);
}
