/* test_report.c -- `bloomlab report` on a user's own experiment: a tiny
 * sweep written by the test into a temporary directory (not one shipped
 * with bloomlab), then its page: the Markdown and the HTML are there, the
 * HTML needs no other file, it holds one <svg> per figure, and every
 * verdict follows the CSV's z column.  Bad input: one line, exit 2,
 * nothing written.  (The pages in a real browser: make report-check.) */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>

#include "csv.h"
#include "helpers.h"

#define FLAGGED "flagged (\\|z\\| > 5)" /* in a Markdown cell, | is escaped */
#define WITHIN "within 5 se"

/* A tiny sweep into DIR/mine.csv: two layouts, two schemes, k = 2..4. */
static void tiny_sweep(const char *dir)
{
    char args[1200];
    snprintf(args, sizeof args,
             "sweep --n 500 --bits-per-item 8 --k 2..4 --filter standard,register64 --scheme double,ideal "
             "--trials 3 --queries 4000 --quiet -o %s/mine.csv",
             dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "bloomlab %s: %s", args, r.err);
    cli_free(&r);
}

/* The first cell's z made 7.5, so that the page has a flagged cell
 * whatever the sweep measured (columns found by name in the header). */
static void flag_first_cell(const char *dir)
{
    char cmd[1600];
    snprintf(cmd, sizeof cmd,
             "awk -F, -v OFS=, '/^#/ { print; next } !h { for (i = 1; i <= NF; i++) if ($i == \"z\") zc = i; h = 1; "
             "print; next } !done { $zc = 7.5; done = 1 } { print }' %s/mine.csv > %s/t && mv %s/t %s/mine.csv",
             dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0);
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* Every src= and href= in the HTML is an anchor inside it (#...). */
static void expect_self_contained(const char *html)
{
    static const char *const ATTRS[] = {"src=", "href="};
    for (size_t a = 0; a < 2; a++)
        for (const char *p = html; (p = strstr(p, ATTRS[a])) != NULL; p += strlen(ATTRS[a])) {
            const char *v = p + strlen(ATTRS[a]);
            v += *v == '"' || *v == '\'';
            cr_assert_eq(*v, '#', "the page links a file: %.60s", p);
        }
    cr_assert_null(strstr(html, "<img"), "an <img> needs another file");
    cr_assert_null(strstr(html, "<link"), "a <link> needs another file");
}

/* Verdicts counted in the page against |z| of the CSV's rows. */
static void expect_verdicts_follow_z(const char *csv_path, const char *md, const char *html)
{
    char *text = slurp(csv_path);
    csv_table t = csv_read(text);
    int flagged = 0, within = 0;
    for (int i = 0; i < t.count; i++) {
        double z = csv_num(&t, t.rows[i], "z");
        if (isfinite(z))
            *(fabs(z) > 5 ? &flagged : &within) += 1;
    }
    cr_assert_geq(flagged, 1);
    cr_assert_geq(within, 1);
    cr_assert_eq(count_of(md, "| " FLAGGED " |"), flagged, "Markdown: flagged verdicts != cells with |z| > 5");
    cr_assert_eq(count_of(md, "| " WITHIN " |"), within, "Markdown: 'within' verdicts != cells with |z| <= 5");
    cr_assert_eq(count_of(html, "<td class=\"flagged\">flagged (|z| &gt; 5)</td>"), flagged,
                 "HTML: flagged verdicts != cells with |z| > 5");
    cr_assert(strstr(md, "z = +7.5") != NULL, "the flagged cell's z is not given");
    csv_free(&t);
    free(text);
}

Test(report, a_users_own_sweep_gets_its_pages, .timeout = 120)
{
    char *dir = temp_dir();
    tiny_sweep(dir);
    flag_first_cell(dir);
    char args[1400], md_path[700], html_path[700], csv_path[700];
    snprintf(csv_path, sizeof csv_path, "%s/mine.csv", dir);
    snprintf(args, sizeof args, "report %s", csv_path);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "bloomlab %s: %s", args, r.err);
    cli_free(&r);
    snprintf(md_path, sizeof md_path, "%s/mine.md", dir);
    snprintf(html_path, sizeof html_path, "%s/mine.html", dir);
    char *md = slurp(md_path), *html = slurp(html_path);
    cr_assert_not_null(md, "no %s", md_path);
    cr_assert_not_null(html, "no %s", html_path);
    expect_self_contained(html);
    int figures = count_of(html, "<figure");
    cr_assert_geq(figures, 1, "no figure: k varies, so FPR against k is drawn");
    cr_assert_eq(count_of(html, "<svg"), figures, "not one inline <svg> per figure");
    cr_assert_eq(count_of(html, "</svg>"), figures);
    cr_assert(strstr(html, "fpr_exact") != NULL, "no formula column");
    cr_assert(strstr(md, "## Best k") != NULL, "k = 2..4 but no best k");
    expect_verdicts_follow_z(csv_path, md, html);
    free(md);
    free(html);
    remove_tree(dir);
}

/* The page reads the CSV's columns by name: the same sweep with its
 * columns in reverse order gives the same Markdown and HTML, figures and
 * all (plots/generic.gp reads them by name too). */
Test(report, a_page_reads_the_columns_by_name, .timeout = 120)
{
    char *dir = temp_dir();
    tiny_sweep(dir);
    char csv_path[700], reversed[700], args[800], md_path[700], html_path[700];
    snprintf(csv_path, sizeof csv_path, "%s/mine.csv", dir);
    snprintf(reversed, sizeof reversed, "%s/reversed.csv", dir);
    snprintf(md_path, sizeof md_path, "%s/mine.md", dir);
    snprintf(html_path, sizeof html_path, "%s/mine.html", dir);
    snprintf(args, sizeof args, "report %s", csv_path);
    char *md[2], *html[2];
    for (int pass = 0; pass < 2; pass++) {
        /* the second pass: the same path (the page names it), columns reversed */
        if (pass == 1) {
            reverse_columns(csv_path, reversed);
            cr_assert_eq(rename(reversed, csv_path), 0);
        }
        cli_result r = run_cli(args);
        cr_assert_eq(r.status, 0, "bloomlab %s: %s", args, r.err);
        cli_free(&r);
        md[pass] = slurp(md_path);
        html[pass] = slurp(html_path);
        cr_assert(md[pass] != NULL && html[pass] != NULL, "pass %d wrote no page", pass);
    }
    cr_assert_str_eq(md[1], md[0], "the Markdown changed with the column order");
    cr_assert_str_eq(html[1], html[0], "the HTML changed with the column order");
    for (int pass = 0; pass < 2; pass++) {
        free(md[pass]);
        free(html[pass]);
    }
    remove_tree(dir);
}

/* The number of entries in dir besides . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void expect_refused(const char *args, const char *words, const char *out_dir)
{
    int before = entries(out_dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 2, "bloomlab %s: status %d", args, r.status);
    cr_assert_eq(count_lines(r.err), 1, "bloomlab %s: not one line: %s", args, r.err);
    cr_assert(strstr(r.err, words) != NULL, "bloomlab %s: '%s' not in: %s", args, words, r.err);
    cr_assert_eq(entries(out_dir), before, "bloomlab %s wrote something", args);
    cli_free(&r);
}

Test(report, bad_input_is_one_line_exit_2_and_nothing_written, .timeout = 60)
{
    char *dir = temp_dir();
    char path[700], args[1600];
    snprintf(args, sizeof args, "report %s/absent.csv -o %s", dir, dir);
    expect_refused(args, "no such file", dir);

    snprintf(path, sizeof path, "%s/other.csv", dir);
    write_text(path, "# experiment: memory\nn,structure,bytes\n1,bloom,8\n");
    snprintf(args, sizeof args, "report %s", path);
    expect_refused(args, "not a sweep CSV", dir);

    snprintf(path, sizeof path, "%s/short.csv", dir);
    write_text(path, "experiment,filter,hash,scheme,keys,m,n,k,bits_per_item,trials,queries,fpr,fpr_lo,fpr_hi\n"
                     "x,standard,xxh3_64,double,random64,80,10,3,8,1,100,0.1,0.05,0.2\n");
    snprintf(args, sizeof args, "report %s", path);
    expect_refused(args, "missing columns fill, z", dir);

    snprintf(args, sizeof args, "report results/fpr_vs_k.csv -o %s/no/such/dir", dir);
    expect_refused(args, "no such directory", dir);
    remove_tree(dir);
}
