/* test_bench.c -- the bench's arithmetic and its CLI; never its speed. */
#include <criterion/criterion.h>
#include <math.h>

#include "bench.h"
#include "helpers.h"

Test(bench, lines_of_a_blocked_query_is_one)
{
    cr_assert_float_eq(bench_lines_absent(LAYOUT_BLOCKED512, 7, 0.5, 1e6), 1.0, 1e-12);
    cr_assert_float_eq(bench_lines_present(LAYOUT_BLOCKED512, 7, 1e6), 1.0, 1e-12);
}

Test(bench, lines_of_a_standard_query)
{
    /* far larger than k lines: absent ~ sum_{i<k} f^i, present ~ k */
    double absent = bench_lines_absent(LAYOUT_STANDARD, 7, 0.5, 1e12);
    cr_assert_float_eq(absent, (1 - pow(0.5, 7)) / 0.5, 1e-6);
    cr_assert_float_eq(bench_lines_present(LAYOUT_STANDARD, 7, 1e12), 7.0, 1e-6);
    /* one line: every position is on it */
    cr_assert_float_eq(bench_lines_present(LAYOUT_STANDARD, 7, 1), 1.0, 1e-12);
}

Test(bench, byte_counts)
{
    uint64_t v;
    cr_assert_eq(bench_parse_bytes("16K", &v), 0);
    cr_assert_eq(v, 16384u);
    cr_assert_eq(bench_parse_bytes("2G", &v), 0);
    cr_assert_eq(v, 2ULL << 30);
    cr_assert_eq(bench_parse_bytes("256MiB", &v), 0);
    cr_assert_eq(v, 256ULL << 20);
    cr_assert_eq(bench_parse_bytes("12Q", &v), -1);
}

Test(bench, help_and_bad_flags)
{
    cli_result r = run_cli("bench --help");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "usage: bloomlab bench") != NULL, "%s", r.out);
    cli_free(&r);
    const char *bad[] = {"bench --bogus", "bench --max-bytes 12Q", "bench --max-bytes"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_cli(bad[i]);
        cr_assert_eq(r.status, 2, "%s", bad[i]);
        cr_assert_eq(count_lines(r.err), 1, "%s: %s", bad[i], r.err);
        cli_free(&r);
    }
}
