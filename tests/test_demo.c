/* test_demo.c -- the course page's traced facts, through the CLI. */
#include <criterion/criterion.h>

#include "commands/demo.h"
#include "helpers.h"

Test(demo, prints_the_page_line)
{
    cli_result r = run_cli("demo");
    cr_assert_eq(r.status, 0);
    cr_assert_str_eq(r.out, "8 words, 22 of 64 bits set, 0 missed, 0 of 20 absent words say maybe\n");
    cli_free(&r);
}

Test(demo, twenty_words)
{
    cli_result r = run_cli("demo --words 20");
    cr_assert_eq(r.status, 0);
    cr_assert_str_eq(r.out, "20 words, 34 of 64 bits set, 0 missed, 3 of 20 absent words say maybe\n");
    cli_free(&r);
}

Test(demo, filter_hash_and_positions)
{
    cli_result r = run_cli("demo --trace");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "add  filter   fnv1a 3353438327  a = 55  b = 33  positions 55 24 57\n") != NULL, "%s", r.out);
    cli_free(&r);
}

Test(demo, tiger_at_sixteen_words)
{
    cli_result r = run_cli("demo --words 16 --trace");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "test tiger    positions 56 59 62  lit: 56 59 62  -> probably\n") != NULL, "%s", r.out);
    cli_free(&r);
}

Test(demo, never_a_false_negative)
{
    for (int n = 1; n <= 20; n++)
        cr_assert_eq(demo_compute(n).missed, 0, "n = %d", n);
}

Test(demo, table_columns_and_rows)
{
    cli_result r = run_cli("demo --table");
    cr_assert_eq(r.status, 0);
    cr_assert(strstr(r.out, "\nwords,bits_set,missed,maybe,bits_set_expected,maybe_expected\n") != NULL);
    cr_assert(strstr(r.out, "\n8,22,0,0,20.013") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "\n20,34,0,3,") != NULL, "%s", r.out);
    cli_free(&r);
}

Test(demo, bad_words_is_one_line_and_status_2)
{
    const char *bad[] = {"--words 0", "--words 21", "--words x", "--words", "--words -3", "--frobnicate"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[64];
        snprintf(args, sizeof args, "demo %s", bad[i]);
        cli_result r = run_cli(args);
        cr_assert_eq(r.status, 2, "%s", args);
        cr_assert_eq(count_lines(r.err), 1, "%s: %s", args, r.err);
        cr_assert_str_empty(r.out);
        cli_free(&r);
    }
}
