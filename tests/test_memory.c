/* test_memory.c -- `bloomlab memory`: its CSV, its measurements, its errors.
 *
 * The measurements are RSS growth, so the bounds are structural, not
 * tuned: a filter of m bits must cost at least m/8 bytes and, at 1e5
 * items, not much more (page rounding, and the sanitizer's shadow memory
 * of 1/8 under ASan); a hash set of strings must cost more than the
 * strings themselves. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

typedef struct {
    double n, bytes, bytes_per_item;
    char structure[32];
} memory_row;

/* Parse the CSV rows (after the header) into rows; returns how many. */
static int parse_rows(const char *csv, memory_row *rows, int max)
{
    const char *p = strstr(csv, "n,structure,bytes,bytes_per_item,ns_insert\n");
    cr_assert_not_null(p, "no header in:\n%s", csv);
    p = strchr(p, '\n') + 1;
    int count = 0;
    while (*p && count < max) {
        memory_row r;
        double ns;
        int got = sscanf(p, "%lf,%31[^,],%lf,%lf,%lf", &r.n, r.structure, &r.bytes, &r.bytes_per_item, &ns);
        cr_assert_eq(got, 5, "bad row: %.80s", p);
        rows[count++] = r;
        p = strchr(p, '\n');
        if (p == NULL)
            break;
        p++;
    }
    return count;
}

static double meta_number(const char *csv, const char *key)
{
    const char *p = strstr(csv, key);
    cr_assert_not_null(p, "no '%s' metadata", key);
    return strtod(p + strlen(key), NULL);
}

Test(memory, help_exits_zero)
{
    cli_result r = run_cli("memory --help");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "usage: bloomlab memory") != NULL);
    cli_free(&r);
}

Test(memory, measures_a_filter_and_a_hash_table)
{
    cli_result r = run_cli("memory --n 1e5");
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    memory_row rows[4];
    cr_assert_eq(parse_rows(r.out, rows, 4), 2);
    cr_assert_str_eq(rows[0].structure, "bloom");
    cr_assert_str_eq(rows[1].structure, "ghashtable");
    /* 1e5 items at 10 bits: m/8 = 125000 bytes, the floor; a few pages and
     * ASan's 1/8 shadow above it at most */
    cr_assert_geq(rows[0].bytes, 125000 - 4096, "bloom %.0f B", rows[0].bytes);
    cr_assert_leq(rows[0].bytes, 125000 * 1.25 + 65536, "bloom %.0f B", rows[0].bytes);
    cr_assert_float_eq(rows[0].bytes_per_item, rows[0].bytes / 1e5, 1e-3);
    /* the exact set holds every string, plus its buckets */
    double key_bytes = meta_number(r.out, "# mean_key_bytes: ");
    cr_assert_gt(key_bytes, 20);
    cr_assert_gt(rows[1].bytes_per_item, key_bytes, "%.1f B/URL against %.1f B strings", rows[1].bytes_per_item,
                 key_bytes);
    cr_assert(strstr(r.out, "# command: bloomlab memory --n 1e5") != NULL);
    cli_free(&r);
}

Test(memory, bits_per_item_and_list_of_n)
{
    cli_result r = run_cli("memory --n 2e4,4e4 --bits-per-item 20 --k 3");
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    memory_row rows[8];
    cr_assert_eq(parse_rows(r.out, rows, 8), 4);
    cr_assert_eq(rows[2].n, 4e4);
    /* 20 bits an item: m/8 = 2.5 bytes an item at least */
    cr_assert_geq(rows[2].bytes, 4e4 * 2.5 - 4096);
    cr_assert(strstr(r.out, "# bits_per_item: 20\n") != NULL);
    cli_free(&r);
}

Test(memory, writes_the_file_atomically)
{
    char *dir = temp_dir();
    char args[512], path[400];
    snprintf(path, sizeof path, "%s/memory.csv", dir);
    snprintf(args, sizeof args, "memory --n 1e3 -o %s", path);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "stderr: %s", r.err);
    cr_assert_eq(strlen(r.out), 0);
    char *text = slurp(path);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "1000,ghashtable,") != NULL);
    free(text);
    cli_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}

/* One line on stderr naming the value, exit 2, the output file untouched. */
static void expect_bad(const char *flags, const char *needle)
{
    char *dir = temp_dir();
    char path[400], args[800];
    snprintf(path, sizeof path, "%s/keep.csv", dir);
    FILE *f = fopen(path, "w");
    fputs("old\n", f);
    fclose(f);
    snprintf(args, sizeof args, "memory -o %s %s", path, flags);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 2, "%s: status %d, stderr %s", flags, r.status, r.err);
    cr_assert_eq(count_lines(r.err), 1, "%s: stderr %s", flags, r.err);
    cr_assert(strstr(r.err, needle) != NULL, "%s: stderr %s", flags, r.err);
    char *text = slurp(path);
    cr_assert_str_eq(text, "old\n");
    free(text);
    cli_free(&r);
    unlink(path);
    rmdir(dir);
    free(dir);
}

Test(memory, bad_input)
{
    expect_bad("--n abc", "--n");
    expect_bad("--n 0", "--n");
    expect_bad("--n 1e11", "--n");
    expect_bad("--k 0", "--k");
    expect_bad("--k 65", "--k");
    expect_bad("--bits-per-item -3", "--bits-per-item");
    expect_bad("--keys nosuch", "--keys");
    expect_bad("--frobnicate", "--frobnicate");
    expect_bad("--n", "--n");
}
