/* test_conventions.c -- the command-line conventions every command shares
 * (issue 19, section 2): `-` for stdin and stdout, --format text|csv|json
 * through one writer (table.h: CSV quoting, JSON escaping), and
 * `bloomlab list columns` naming exactly the columns the CSVs have. */
#include <criterion/criterion.h>

#include "csv.h"
#include "helpers.h"
#include "harness/schema.h"
#include "harness/table.h"
#include "base/text.h"

static const char PIPED_INI[] = "[experiment]\nname = piped\nm = 1000\nn = 100\nk = 3\ntrials = 2\nqueries = 1000\n";
static const char NAMELESS_INI[] = "[experiment]\nm = 1000\nn = 100\nk = 3\ntrials = 1\nqueries = 500\n";

/* run_cli with standard input from a file (run_cli's own is /dev/null),
 * in a directory (NULL: here). */
static cli_result run_cli_in(const char *dir, const char *args, const char *stdin_path)
{
    char out_path[] = "/tmp/bloomlab-test-out-XXXXXX", err_path[] = "/tmp/bloomlab-test-err-XXXXXX";
    close(mkstemp(out_path));
    close(mkstemp(err_path));
    char bin[1024];
    if (dir != NULL && bloomlab_path()[0] != '/')
        cr_assert_not_null(realpath(bloomlab_path(), bin));
    else
        snprintf(bin, sizeof bin, "%s", bloomlab_path());
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s %s >%s 2>%s <%s", dir ? dir : ".", bin, args, out_path, err_path,
             stdin_path);
    int raw = system(cmd);
    cli_result r = {WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw), slurp(out_path), slurp(err_path)};
    unlink(out_path);
    unlink(err_path);
    return r;
}

/* Every line of out that is not `#` metadata has the header's field count:
 * nothing but the CSV reached stdout (no progress, no table). */
static void expect_only_csv(const char *what, const char *out)
{
    csv_table t = csv_read(out);
    cr_assert_not_null(t.header, "%s: no header in: %s", what, out);
    long fields = csv_field_count(t.header);
    cr_expect(t.count > 0, "%s: no rows", what);
    for (int i = 0; i < t.count; i++)
        cr_expect_eq(csv_field_count(t.rows[i]), fields, "%s: row %d: %s", what, i, t.rows[i]);
    csv_free(&t);
}

static int starts_with(const char *text, const char *prefix) { return strncmp(text, prefix, strlen(prefix)) == 0; }

/* Is text one valid JSON document?  (python3 is a build dependency.) */
static int valid_json(const char *text)
{
    char path[] = "/tmp/bloomlab-test-json-XXXXXX";
    close(mkstemp(path));
    write_text(path, text);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s 2>/dev/null", path);
    int ok = system(cmd) == 0;
    unlink(path);
    return ok;
}

/* ---- `-`: stdin and stdout ------------------------------------------------ */

Test(conventions, run_reads_the_experiment_from_stdin_and_writes_stdout)
{
    char *dir = temp_dir(), ini[600];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    write_text(ini, PIPED_INI);
    cli_result r = run_cli_in(dir, "run - -o - --quiet", ini);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.err, "");
    cr_expect(strstr(r.out, "# experiment: piped\n") && strstr(r.out, "# source: stdin\n"), "%s", r.out);
    cr_expect(strstr(r.out, "\npiped,standard,xxh3_64,double,random64,1000,100,3,") != NULL, "%s", r.out);
    expect_only_csv("run - -o -", r.out);
    cli_free(&r);
    /* stdout is never "up to date": a second run runs again */
    r = run_cli_in(dir, "run - -o - --quiet", ini);
    cr_expect(r.status == 0 && strstr(r.out, "\npiped,") != NULL, "%s", r.err);
    cli_free(&r);
    /* nothing was written beside it: no results/, journal or lock */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -v -x e.ini | wc -l | grep -qx 0", dir);
    cr_expect_eq(system(cmd), 0, "files left in %s", dir);
    remove_tree(dir);
}

Test(conventions, run_from_stdin_names_results_by_the_name_key_and_stays_fresh)
{
    char *dir = temp_dir(), ini[600], csv[600];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    snprintf(csv, sizeof csv, "%s/results/piped.csv", dir);
    write_text(ini, PIPED_INI);
    char mk[700];
    snprintf(mk, sizeof mk, "mkdir '%s/results'", dir);
    cr_assert_eq(system(mk), 0);
    cli_result r = run_cli_in(dir, "run - --quiet", ini);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect_str_eq(r.out, "");
    cli_free(&r);
    char *first = slurp(csv);
    cr_assert_not_null(first, "no %s", csv);
    /* the same bytes on stdin again: the output records their fingerprint */
    r = run_cli_in(dir, "run -", ini);
    cr_expect(r.status == 0 && strstr(r.err, "is up to date") != NULL, "%s", r.err);
    cli_free(&r);
    char *second = slurp(csv);
    cr_expect_str_eq(first, second, "a current result was rewritten");
    free(first);
    free(second);
    remove_tree(dir);
}

/* words:- takes the key words from stdin: the same rows and the same
 * inputs fingerprint as words:FILE with those bytes; with `run -` (stdin
 * holds the experiment) it is refused, exit 2, one line. */
Test(conventions, words_from_stdin)
{
    char *dir = temp_dir(), words[600], ini[600];
    snprintf(words, sizeof words, "%s/w.txt", dir);
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    write_text(words, "apple\nbanana\ncherry\ndate\nelder\nfig\ngrape\nhazel\niris\njuniper\nkiwi\nlime\n");
    char args[900];
    snprintf(args, sizeof args, "sweep --keys words:%s --n 4 --m 64 --k 2 --trials 3 --queries 6 --quiet", words);
    cli_result from_file = run_cli(args);
    cr_assert_eq(from_file.status, 0, "%s", from_file.err);
    cli_result from_stdin = run_cli_in(dir, "sweep --keys words:- --n 4 --m 64 --k 2 --trials 3 --queries 6 --quiet", words);
    cr_assert_eq(from_stdin.status, 0, "%s", from_stdin.err);
    csv_table a = csv_read(from_file.out), b = csv_read(from_stdin.out);
    cr_assert_eq(a.count, 1);
    cr_assert_eq(b.count, 1);
    const char *keep[] = {"fpr", "fill", "false_positives", "fpr_exact"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        cr_expect_eq(csv_num(&a, a.rows[0], keep[i]), csv_num(&b, b.rows[0], keep[i]), "%s", keep[i]);
    csv_free(&a);
    csv_free(&b);
    cli_free(&from_file);
    cli_free(&from_stdin);
    write_text(ini, "[experiment]\nname = w\nkeys = words:-\nm = 64\nn = 4\nk = 2\ntrials = 1\nqueries = 4\n");
    cli_result r = run_cli_in(dir, "run - -o - --quiet", ini);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, "standard input is read once") != NULL && strstr(r.err, "\n") == strrchr(r.err, '\n'),
              "%s", r.err);
    cr_expect_str_eq(r.out, "");
    cli_free(&r);
    remove_tree(dir);
}

Test(conventions, run_from_stdin_without_a_name)
{
    char *dir = temp_dir(), ini[600], out[600];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    write_text(ini, NAMELESS_INI);
    static const char *const NO_FILE[] = {"run - -o - --quiet", "run - --quiet"};
    for (size_t i = 0; i < 2; i++) {
        cli_result r = run_cli_in(dir, NO_FILE[i], ini);
        cr_expect_eq(r.status, 2, "%s", NO_FILE[i]);
        cr_expect_eq(count_lines(r.err), 1, "%s: %s", NO_FILE[i], r.err);
        cr_expect(strstr(r.err, "bloomlab run: stdin: the experiment has no name") && strstr(r.err, "name = NAME") &&
                      strstr(r.err, "-o FILE"),
                  "%s", r.err);
        cr_expect_str_eq(r.out, "");
        cli_free(&r);
    }
    /* -o FILE names it, as a file's stem does */
    cli_result r = run_cli_in(dir, "run - -o given.csv --quiet", ini);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    snprintf(out, sizeof out, "%s/given.csv", dir);
    char *csv = slurp(out);
    cr_assert_not_null(csv);
    cr_expect(strstr(csv, "# experiment: given\n") && strstr(csv, "\ngiven,standard,"), "%s", csv);
    free(csv);
    remove_tree(dir);
}

Test(conventions, bad_input_on_stdin_is_one_line_naming_stdin)
{
    char *dir = temp_dir(), ini[600], out[600];
    snprintf(ini, sizeof ini, "%s/e.ini", dir);
    snprintf(out, sizeof out, "%s/out.csv", dir);
    write_text(ini, "[experiment]\nname = bad\nm = 1000\nn = 1e3x\n");
    write_text(out, "old\n");
    cli_result r = run_cli_in(dir, "run - -o out.csv", ini);
    cr_expect_eq(r.status, 2);
    cr_expect_str_eq(r.err, "bloomlab run: stdin:4: n = 1e3x: '1e3x' is not a number\n");
    cli_free(&r);
    char *kept = slurp(out);
    cr_expect_str_eq(kept, "old\n", "the output was touched");
    free(kept);
    r = run_cli_in(dir, "run - -o -", ini);
    cr_expect(r.status == 2 && count_lines(r.err) == 1 && r.out[0] == '\0', "%s", r.err);
    cli_free(&r);
    remove_tree(dir);
}

/* `-o -` puts each command's CSV on stdout, and only the CSV. */
Test(conventions, dash_o_dash_is_stdout_for_every_command, .timeout = 120)
{
    static const char *const ARGS[] = {
        "sweep --n 100 --m 1000 --k 3 --trials 1 --queries 200 -o -",
        "theory --m 64 --n 1..3 --k 3 -o -",
        "memory --n 1e3 -o -",
        "uniformity --hash xxh3_64 --scheme double --keys random64 --m 256 --n 1e3 --k 3 -o -",
        "bench --min-bytes 16K --max-bytes 16K --filter standard --keys random64 --ops 1e4 -o -",
        "check standard --n 2000 --quick -o -",
    };
    for (size_t i = 0; i < sizeof ARGS / sizeof ARGS[0]; i++) {
        cli_result r = run_cli(ARGS[i]);
        cr_expect(r.status == 0, "%s: status %d: %s", ARGS[i], r.status, r.err);
        expect_only_csv(ARGS[i], r.out);
        cr_expect(!file_exists("-"), "%s wrote a file named -", ARGS[i]);
        cli_free(&r);
    }
    /* bench's table, which -o FILE leaves on stdout, moves to stderr */
    cli_result r = run_cli(ARGS[4]);
    cr_expect(strstr(r.err, "ceiling") != NULL && strstr(r.out, "ceiling      dependent") == NULL, "%s", r.err);
    cli_free(&r);
}

Test(conventions, merge_writes_stdout_with_dash_o_dash)
{
    char *dir = temp_dir(), args[1400];
    snprintf(args, sizeof args,
             "sweep --n 100 --m 1000,2000 --k 3 --trials 1 --queries 200 --quiet --shard 1/2 -o %s/s1.csv && %s sweep "
             "--n 100 --m 1000,2000 --k 3 --trials 1 --queries 200 --quiet --shard 2/2 -o %s/s2.csv && %s merge -o - "
             "%s/s1.csv %s/s2.csv",
             dir, bloomlab_path(), dir, bloomlab_path(), dir, dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    expect_only_csv("merge -o -", r.out);
    cr_expect(strstr(r.out, "# shard: merged\n") != NULL, "%s", r.out);
    cli_free(&r);
    remove_tree(dir);
}

/* A shard read from stdin (-), once: the same merge as from its file. */
Test(conventions, merge_reads_a_shard_from_stdin)
{
    char *dir = temp_dir(), args[1600];
    snprintf(args, sizeof args,
             "sweep --n 100 --m 1000,2000 --k 3 --trials 1 --queries 200 --quiet --shard 1/2 -o %s/s1.csv && %s sweep "
             "--n 100 --m 1000,2000 --k 3 --trials 1 --queries 200 --quiet --shard 2/2 -o %s/s2.csv && %s merge "
             "%s/s1.csv %s/s2.csv > %s/files.csv && %s merge %s/s1.csv - < %s/s2.csv > %s/stdin.csv && "
             "cmp %s/files.csv %s/stdin.csv",
             dir, bloomlab_path(), dir, bloomlab_path(), dir, dir, dir, bloomlab_path(), dir, dir, dir, dir, dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    snprintf(args, sizeof args, "merge - - < %s/s1.csv", dir);
    r = run_cli(args);
    cr_expect_eq(r.status, 2);
    cr_expect(strstr(r.err, "stdin holds one shard") != NULL, "%s", r.err);
    cli_free(&r);
    remove_tree(dir);
}

/* ---- --format ---------------------------------------------------------------- */

static const table_column TRICKY[] = {{"name", COLUMN_TEXT}, {"value", COLUMN_NUMBER}};

Test(conventions, csv_quotes_and_json_escapes)
{
    table t;
    table_init(&t, TRICKY, 2);
    const char *rows[][2] = {{"a,b", "1.5e-07"}, {"say \"hi\"", ""}, {"back\\slash\ttab\nline\x01", "-2"},
                             {"plain", "nan?"}};
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(table_add_row(&t, rows[i]), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    table_write(out, &t, FORMAT_CSV);
    fclose(out);
    cr_expect_str_eq(text, "name,value\n\"a,b\",1.5e-07\n\"say \"\"hi\"\"\",\n\"back\\slash\ttab\nline\x01\",-2\n"
                           "plain,nan?\n");
    free(text);
    out = open_memstream(&text, &len);
    table_write(out, &t, FORMAT_JSON);
    fclose(out);
    cr_expect_str_eq(text, "[\n {\"name\": \"a,b\", \"value\": 1.5e-07},\n {\"name\": \"say \\\"hi\\\"\", \"value\": null},"
                           "\n {\"name\": \"back\\\\slash\\ttab\\nline\\u0001\", \"value\": -2},"
                           "\n {\"name\": \"plain\", \"value\": \"nan?\"}\n]\n");
    cr_expect(valid_json(text), "%s", text);
    free(text);
    table_free(&t);
}

Test(conventions, list_and_bench_take_format, .timeout = 60)
{
    cli_result r = run_cli("list --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(valid_json(r.out), "%s", r.out);
    cr_expect(starts_with(r.out, "{\"hashes\": [\n {\"name\": \""), "%s", r.out);
    cr_expect(strstr(r.out, "\"keys\": [") && strstr(r.out, "\"filters\": [") && strstr(r.out, "\"sizing\": [") &&
                  strstr(r.out, "{\"name\": \"xxh3_64\", \"bits\": 64, \"about\": "),
              "%.300s", r.out);
    cli_free(&r);
    r = run_cli("list --format csv");
    cr_assert_eq(r.status, 0);
    cr_expect(starts_with(r.out, "section,name,bits,about\nhashes,"), "%.200s", r.out);
    expect_only_csv("list --format csv", r.out);
    cli_free(&r);
    r = run_cli("list schemes --format json");
    cr_expect(r.status == 0 && valid_json(r.out) && starts_with(r.out, "[\n {\"name\": \"independent\", \"about\": "),
              "%s", r.out);
    cli_free(&r);
    /* the text stays what bash completion reads */
    r = run_cli("list");
    cr_expect(strstr(r.out, "filters:\n  standard ") != NULL, "%s", r.out);
    cli_free(&r);

    r = run_cli("bench --min-bytes 16K --max-bytes 16K --filter standard --keys random64 --ops 1e4 --format json");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_expect(valid_json(r.out), "%s", r.out);
    cr_expect(strstr(r.out, "{\"section\": \"harness\", \"filter\": \"standard\"") && strstr(r.out, "\"system\": \"bloomlab\", \"cycles_insert\": "),
              "%.400s", r.out);
    cr_expect(strstr(r.err, "vector level:") != NULL, "the table goes to stderr: %s", r.err);
    cli_free(&r);
}

Test(conventions, one_format_option_one_message)
{
    static const char *const ARGS[] = {"calc --n 10 --p 0.1 --format xml", "theory --n 10 --m 100 --format xml",
                                       "list --format xml", "bench --format xml",
                                       "check standard --format xml"};
    for (size_t i = 0; i < sizeof ARGS / sizeof ARGS[0]; i++) {
        cli_result r = run_cli(ARGS[i]);
        cr_expect_eq(r.status, 2, "%s", ARGS[i]);
        cr_expect(count_lines(r.err) == 1 && strstr(r.err, "--format: unknown format 'xml' (text, csv, json)"), "%s: %s",
                  ARGS[i], r.err);
        cli_free(&r);
    }
    cli_result r = run_cli("bench --format text -o /tmp/never.csv");
    cr_expect(r.status == 2 && count_lines(r.err) == 1 && !file_exists("/tmp/never.csv"), "%s", r.err);
    cli_free(&r);
}

Test(conventions, json_to_a_full_stdout_is_an_error)
{
    static const char *const ARGS[] = {"list --format json", "list columns", "theory --m 64 --n 1 --k 3 --format json",
                                       "calc --n 10 --p 0.1 --format json"};
    for (size_t i = 0; i < sizeof ARGS / sizeof ARGS[0]; i++) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "%s %s >/dev/full 2>/dev/null </dev/null", bloomlab_path(), ARGS[i]);
        int raw = system(cmd);
        cr_expect(WIFEXITED(raw) && WEXITSTATUS(raw) == 1, "bloomlab %s >/dev/full: status %d", ARGS[i], raw);
    }
}

/* ---- list columns -------------------------------------------------------------- */

/* The names `list columns --format csv` gives for one CSV, joined by commas. */
static char *listed_columns(const char *which)
{
    cli_result r = run_cli("list columns --format csv");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(starts_with(r.out, "csv,name,kind,unit,meaning,filled\n"), "%.100s", r.out);
    size_t cap = strlen(r.out) + 1, used = 0;
    char *names = calloc(1, cap), prefix[32];
    snprintf(prefix, sizeof prefix, "%s,", which);
    for (char *line = strchr(r.out, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        char one[2048];
        snprintf(one, sizeof one, "%.*s", (int)strcspn(line, "\n"), line);
        cr_assert_eq(csv_field_count(one), 6, "%s", one);
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            size_t len = strcspn(line + strlen(prefix), ",");
            used += (size_t)snprintf(names + used, cap - used, "%s%.*s", used ? "," : "", (int)len, line + strlen(prefix));
        }
    }
    cli_free(&r);
    return names;
}

/* The header line (after the `#` lines) of a command's CSV on stdout. */
static char *header_of(const char *args)
{
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    csv_table t = csv_read(r.out);
    cr_assert_not_null(t.header, "%s", args);
    char *header = strdup(t.header);
    csv_free(&t);
    cli_free(&r);
    return header;
}

Test(conventions, list_columns_names_exactly_the_csv_headers, .timeout = 60)
{
    char *sweep = header_of("sweep --n 100 --m 1000 --k 3 --trials 1 --queries 200 --quiet");
    char *listed = listed_columns("sweep");
    cr_expect_str_eq(listed, sweep);
    cr_expect_str_eq(sweep, SWEEP_HEADER);
    free(listed);
    free(sweep);
    char *bench = header_of("bench --min-bytes 16K --max-bytes 16K --filter standard --keys random64 --ops 1e4 -o -");
    listed = listed_columns("bench");
    cr_expect_str_eq(listed, bench);
    free(listed);
    free(bench);
    /* every column has a meaning and says which rows fill it */
    for (int i = 0; i < SWEEP_COLUMNS; i++)
        cr_expect(SWEEP_COLUMN_DOCS[i].meaning[0] && SWEEP_COLUMN_DOCS[i].filled[0], "%s", SWEEP_COLUMN_DOCS[i].name);
    for (int i = 0; i < BENCH_COLUMNS; i++)
        cr_expect(BENCH_COLUMN_DOCS[i].meaning[0] && BENCH_COLUMN_DOCS[i].filled[0], "%s", BENCH_COLUMN_DOCS[i].name);
    cli_result r = run_cli("list columns --format json");
    cr_expect(r.status == 0 && valid_json(r.out), "%.200s", r.out);
    cr_expect(strstr(r.out, "{\"csv\": \"sweep\", \"name\": \"m\", \"kind\": \"number\", \"unit\": \"bits\", ") != NULL,
              "%.300s", r.out);
    cli_free(&r);
    r = run_cli("list columns");
    cr_expect(r.status == 0 && strstr(r.out, "\n  fpr_se ") && strstr(r.out, "\n  fraction_insert "), "%.300s", r.out);
    /* aligned: the csv field starts at one offset on every line, the longest name's included */
    const char *longest = strstr(r.out, "\n  instructions_present "), *short_name = strstr(r.out, "\n  fpr_se ");
    cr_assert(longest != NULL && short_name != NULL, "%.300s", r.out);
    cr_expect_eq(strstr(longest, " bench ") - longest, strstr(short_name, " sweep ") - short_name, "%.200s", longest);
    cli_free(&r);
}
