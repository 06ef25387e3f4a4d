/* test_numbers.c -- the number and list syntax of numbers.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "base/numbers.h"

static number_list parse_ok(const char *text, int integral)
{
    number_list list;
    char err[400] = "";
    int rc = number_list_parse(text, integral, &list, err, sizeof err);
    cr_assert_eq(rc, 0, "'%s' refused: %s", text, err);
    return list;
}

static void expect_values(const char *text, int integral, const double *want, size_t count)
{
    number_list list = parse_ok(text, integral);
    cr_assert_eq(list.count, count, "'%s' gave %zu values, want %zu", text, list.count, count);
    for (size_t i = 0; i < count; i++)
        cr_assert_float_eq(list.values[i], want[i], 1e-9 * fmax(1, fabs(want[i])), "'%s'[%zu] = %.17g, want %.17g",
                           text, i, list.values[i], want[i]);
    number_list_free(&list);
}

/* A refusal, whose reason quotes what it refused. */
static void expect_refused(const char *text, int integral, const char *quoted)
{
    number_list list;
    char err[400] = "";
    cr_assert_eq(number_list_parse(text, integral, &list, err, sizeof err), -1, "'%s' was accepted", text);
    cr_assert_eq(list.count, 0);
    cr_assert_null(list.values);
    cr_assert(strstr(err, quoted) != NULL, "reason for '%s' does not quote '%s': %s", text, quoted, err);
    cr_assert(strchr(err, '\n') == NULL, "a reason of more than one line: %s", err);
}

Test(numbers, single_numbers)
{
    double v;
    cr_assert_eq(number_parse("10", &v), 0);
    cr_assert_eq(v, 10);
    cr_assert_eq(number_parse("1e6", &v), 0);
    cr_assert_eq(v, 1e6);
    cr_assert_eq(number_parse("2^20", &v), 0);
    cr_assert_eq(v, 1048576);
    cr_assert_eq(number_parse(" 2.5e-3 ", &v), 0);
    cr_assert_eq(v, 2.5e-3);
    cr_assert_eq(number_parse("-4", &v), 0);
    cr_assert_eq(v, -4);
}

Test(numbers, bad_single_numbers)
{
    double v;
    const char *bad[] = {"", "  ", "abc", "1x", "0x10", "1e400", "2^", "2^1e4", "1..2", "1,2", "nan", "inf", "e5", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(number_parse(bad[i], &v), -1, "'%s' accepted as %g", bad[i], v);
}

Test(numbers, whole_numbers_u64)
{
    uint64_t u;
    cr_assert_eq(number_parse_u64("18446744073709551615", 0, UINT64_MAX, &u), 0);
    cr_assert_eq(u, UINT64_MAX, "plain digits keep all 64 bits");
    cr_assert_eq(number_parse_u64("2^40", 0, UINT64_MAX, &u), 0);
    cr_assert_eq(u, 1ULL << 40);
    cr_assert_eq(number_parse_u64("1e12", 0, UINT64_MAX, &u), 0);
    cr_assert_eq(u, 1000000000000ULL);
    cr_assert_eq(number_parse_u64("64", 1, 64, &u), 0);
    cr_assert_eq(number_parse_u64("65", 1, 64, &u), -1);
    cr_assert_eq(number_parse_u64("0", 1, 64, &u), -1);
    cr_assert_eq(number_parse_u64("18446744073709551616", 0, UINT64_MAX, &u), -1, "2^64 overflows");
    cr_assert_eq(number_parse_u64("2^64", 0, UINT64_MAX, &u), -1);
    cr_assert_eq(number_parse_u64("1.5", 0, 100, &u), -1);
    cr_assert_eq(number_parse_u64("-1", 0, 100, &u), -1);
    cr_assert_eq(number_parse_u64("", 0, 100, &u), -1);
}

Test(numbers, lists)
{
    expect_values("1, 2, 3", 1, (double[]){1, 2, 3}, 3);
    expect_values("7", 1, (double[]){7}, 1);
    expect_values(" 1e3 ,2^4", 1, (double[]){1000, 16}, 2);
    expect_values("0.5, 1.25", 0, (double[]){0.5, 1.25}, 2);
    expect_values("5, 3, 5", 1, (double[]){5, 3, 5}, 3); /* order and repeats kept */
}

Test(numbers, ranges)
{
    expect_values("1..5", 1, (double[]){1, 2, 3, 4, 5}, 5);
    expect_values("3..3", 1, (double[]){3}, 1);
    expect_values("8..24:4", 1, (double[]){8, 12, 16, 20, 24}, 5);
    expect_values("8..23:4", 1, (double[]){8, 12, 16, 20}, 4); /* b not landed on: not included */
    expect_values("1e3..1e6*10", 1, (double[]){1e3, 1e4, 1e5, 1e6}, 4);
    expect_values("2^10..2^13*2", 1, (double[]){1024, 2048, 4096, 8192}, 4);
    expect_values("0.1..0.5:0.1", 0, (double[]){0.1, 0.2, 0.3, 0.4, 0.5}, 5); /* 0.5 despite rounding */
    expect_values("1..2, 10..30:10", 1, (double[]){1, 2, 10, 20, 30}, 5);
    expect_values("-2..2", 1, (double[]){-2, -1, 0, 1, 2}, 5);
}

Test(numbers, long_range_at_the_limit)
{
    number_list list = parse_ok("1..100000", 1);
    cr_assert_eq(list.count, NUMBER_LIST_MAX);
    cr_assert_eq(list.values[NUMBER_LIST_MAX - 1], 100000);
    number_list_free(&list);
    expect_refused("1..100001", 1, "1..100001");
}

Test(numbers, bad_items)
{
    expect_refused("abc", 0, "abc");
    expect_refused("1,,2", 1, "empty item");
    expect_refused("1,", 1, "empty item");
    expect_refused("", 1, "empty item");
    expect_refused("1.5", 1, "1.5");
    expect_refused("5..1", 1, "backwards");
    expect_refused("1..x", 1, "1..x");
    expect_refused("x..5", 1, "x..5");
    expect_refused("1..5:0", 1, "step above 0");
    expect_refused("1..5:-1", 1, "1..5:-1");
    expect_refused("1..5:q", 1, "bad step");
    expect_refused("1..100*1", 1, "factor above 1");
    expect_refused("0..100*2", 1, "start above 0");
    expect_refused("1..2:0.5", 1, "not whole");
    expect_refused("0x10", 1, "0x10");
    expect_refused("1e400", 0, "1e400");
    expect_refused("1e17", 1, "above 2^53"); /* not exact in a double */
    expect_refused("1..1e17*10", 1, "above 2^53");
}

Test(numbers, a_newline_in_a_value_stays_on_one_line)
{
    /* found by fuzz_numbers: the reason quoted the raw item */
    expect_refused("0..:.025.\n25", 1, "\\x0a");
}
