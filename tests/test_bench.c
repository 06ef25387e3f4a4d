/* test_bench.c -- the bench's arithmetic and its CLI; never its speed. */
#include <criterion/criterion.h>
#include <math.h>

#include "commands/bench.h"
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
    cr_assert(strstr(r.out, "--filter LIST") != NULL && strstr(r.out, "plugin:PATH.so") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "--anchors") == NULL, "%s", r.out);
    cli_free(&r);
    const char *bad[] = {"bench --bogus", "bench --max-bytes 12Q", "bench --max-bytes", "bench --hash mulx64"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        r = run_cli(bad[i]);
        cr_assert_eq(r.status, 2, "%s", bad[i]);
        cr_assert_eq(count_lines(r.err), 1, "%s: %s", bad[i], r.err);
        cli_free(&r);
    }
    r = run_cli("bench --peers 1000 --hash md5 --quiet");
    cr_assert_eq(r.status, 1);
    cr_assert(strstr(r.err, "--hash: unknown hash 'md5'") != NULL && count_lines(r.err) == 1, "%s", r.err);
    cli_free(&r);
}

/* The value of text column `name` in a CSV line (no quoted fields), into out. */
static void csv_text(const char *header, const char *line, const char *name, char *out, size_t size)
{
    int want = -1, col = 0;
    for (const char *h = header; *h && *h != '\n'; col++) {
        size_t len = strcspn(h, ",\n");
        if (len == strlen(name) && strncmp(h, name, len) == 0)
            want = col;
        h += len + (h[len] == ',');
    }
    cr_assert(want >= 0, "no column %s", name);
    const char *p = line;
    for (int c = 0; c < want; c++)
        p = strchr(p, ',') + 1;
    size_t len = strcspn(p, ",\n");
    snprintf(out, size, "%.*s", (int)(len < size ? len : size - 1), p);
}

/* The value of column `name` in a CSV line, given the header (NAN if blank). */
static double csv_field(const char *header, const char *line, const char *name)
{
    char text[64];
    csv_text(header, line, name, text, sizeof text);
    return text[0] == '\0' ? NAN : strtod(text, NULL);
}

/* One small size: the ceiling row has all three ceilings, and the filter
 * row's fractions are the lines times the ceiling over the time, as
 * bench.h defines them (arithmetic, not speed). */
/* The CSV of `bloomlab bench OPTIONS -o FILE` (the run must succeed). */
static char *bench_csv(const char *options)
{
    char path[] = "/tmp/bloomlab-bench-XXXXXX";
    close(mkstemp(path));
    char args[256];
    snprintf(args, sizeof args, "bench %s -o %s", options, path);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s: %s", args, r.err);
    cli_free(&r);
    char *csv = slurp(path);
    unlink(path);
    return csv;
}

Test(bench, csv_fractions_follow_their_definition, .timeout = 60)
{
    char *csv = bench_csv("--min-bytes 16K --max-bytes 16K --filter standard --keys random64 --ops 1e5 --quiet");
    const char *header = strstr(csv, "section,");
    cr_assert_not_null(header);
    const char *ceiling = strstr(header, "\nceiling,"), *row = strstr(header, "\nfilter,standard,");
    cr_assert(ceiling != NULL && row != NULL, "%s", csv);
    ceiling++;
    row++;
    const double update = csv_field(header, ceiling, "ns_update");
    cr_assert(update > 0 && csv_field(header, ceiling, "ns_independent") > 0 && csv_field(header, ceiling, "ns_dependent") > 0);
    cr_assert_float_eq(csv_field(header, row, "ns_update"), update, 1e-9 * update);
    const double lines = csv_field(header, row, "lines_present");
    cr_assert_float_eq(csv_field(header, row, "fraction_insert"), lines * update / csv_field(header, row, "ns_insert"),
                       1e-4 * csv_field(header, row, "fraction_insert"));
    cr_assert_float_eq(csv_field(header, row, "fraction_present"),
                       lines * csv_field(header, row, "ns_independent") / csv_field(header, row, "ns_present"),
                       1e-4 * csv_field(header, row, "fraction_present"));
    free(csv);
}

/* The counts' six columns follow system, and the `# counters:` line says
 * whether the machine gave them: blank on every row where it did not; a
 * filter row's all positive where it did (at least one instruction an
 * operation), the ceiling's blank either way (nothing counted there). */
Test(bench, counters_columns_blank_or_counted, .timeout = 60)
{
    char *csv = bench_csv("--min-bytes 16K --max-bytes 16K --filter standard --keys random64 --ops 1e4 --quiet");
    const char *line = strstr(csv, "# counters: ");
    cr_assert_not_null(line, "%s", csv);
    const int counted = strncmp(line, "# counters: none, ", 18) != 0;
    if (!counted)
        cr_assert(strstr(line, "(perf_event_open of the cycles counter: ") != NULL, "%.200s", line);
    const char *header = strstr(csv, "section,");
    cr_assert_not_null(header);
    cr_assert(strstr(header, ",system,cycles_insert,cycles_absent,cycles_present,instructions_insert,"
                             "instructions_absent,instructions_present\n") != NULL,
              "%.600s", header);
    static const char *const COUNTS[] = {"cycles_insert",       "cycles_absent",       "cycles_present",
                                         "instructions_insert", "instructions_absent", "instructions_present"};
    const char *ceiling = strstr(header, "\nceiling,"), *row = strstr(header, "\nfilter,standard,");
    cr_assert(ceiling != NULL && row != NULL, "%s", csv);
    for (size_t i = 0; i < 6; i++) {
        cr_assert(isnan(csv_field(header, ceiling + 1, COUNTS[i])), "ceiling %s", COUNTS[i]);
        const double v = csv_field(header, row + 1, COUNTS[i]);
        if (counted)
            cr_assert(v >= 1, "%s = %g", COUNTS[i], v);
        else
            cr_assert(isnan(v), "%s = %g with no counters", COUNTS[i], v);
    }
    char system[32];
    csv_text(header, row + 1, "system", system, sizeof system);
    cr_assert_str_eq(system, "bloomlab");
    free(csv);
}

/* --peers: each configuration through the batch loops (system bloomlab)
 * and, with xxh3_64 (the library's hash), through the library's one-key
 * calls (system bloomlab-one-key), the same filter sizes; another hash has
 * no library to call, so no one-key rows. */
static size_t peers_rows(const char *hash, char systems[8][32], char layouts[8][16], double *m)
{
    char options[64];
    snprintf(options, sizeof options, "--peers 2000 --hash %s --ops 2e4 --quiet", hash);
    char *csv = bench_csv(options);
    const char *header = strstr(csv, "section,");
    cr_assert_not_null(header);
    size_t rows = 0;
    for (const char *line = strstr(header, "\npeers,"); line != NULL; line = strstr(line, "\npeers,")) {
        line++;
        cr_assert_lt(rows, 8);
        csv_text(header, line, "system", systems[rows], 32);
        csv_text(header, line, "filter", layouts[rows], 16);
        m[rows] = csv_field(header, line, "m");
        cr_assert(csv_field(header, line, "ns_insert") > 0 && csv_field(header, line, "ns_absent") > 0 &&
                  csv_field(header, line, "ns_present") > 0, "%s", line);
        rows++;
    }
    free(csv);
    return rows;
}

Test(bench, peers_rows_with_the_one_key_path, .timeout = 120)
{
    char systems[8][32], layouts[8][16];
    double m[8];
    cr_assert_eq(peers_rows("xxh3_64", systems, layouts, m), 6);
    for (size_t i = 0; i < 6; i += 2) {
        cr_assert_str_eq(systems[i], "bloomlab");
        cr_assert_str_eq(systems[i + 1], "bloomlab-one-key");
        cr_assert_str_eq(layouts[i], layouts[i + 1]);
        cr_assert_eq(m[i], m[i + 1], "the same filter size both ways");
    }
    cr_assert_eq(peers_rows("mulx64", systems, layouts, m), 3);
    for (size_t i = 0; i < 3; i++)
        cr_assert_str_eq(systems[i], "bloomlab");
}

/* A tiny bench with filter plugins: at each size, the plugin's row (system =
 * its name) beside a bloomlab row of the same n, both section plugin, and the
 * layouts' own rows (system = bloomlab) at the same sizes. */
Test(bench, filter_plugins_beside_bloomlab, .timeout = 120)
{
    const int libbloom = access("build/adapters/libbloom.so", R_OK) == 0;
    char path[] = "/tmp/bloomlab-bench-XXXXXX";
    close(mkstemp(path));
    char args[512];
    snprintf(args, sizeof args,
             "bench --min-bytes 16K --max-bytes 64K --filter standard --filter plugin:build/plugin_filter.so%s "
             "--keys random64 --ops 1e4 --quiet -o %s",
             libbloom ? " --filter plugin:build/adapters/libbloom.so" : "", path);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    char *csv = slurp(path);
    unlink(path);
    cr_assert_not_null(csv);
    cr_assert(strstr(csv, "# plugin: plugin:build/plugin_filter.so ('example standard')") != NULL, "%s", csv);
    const char *header = strstr(csv, "section,");
    cr_assert_not_null(header);
    const char *names[2] = {"example standard", "libbloom"};
    for (int which = 0; which < 1 + libbloom; which++) {
        int sizes = 0;
        for (const char *line = strchr(header, '\n'); line != NULL && line[1]; line = strchr(line + 1, '\n')) {
            char system[64], section[32], mine[64];
            csv_text(header, line + 1, "system", system, sizeof system);
            if (strcmp(system, names[which]) != 0)
                continue;
            csv_text(header, line + 1, "section", section, sizeof section);
            cr_expect_str_eq(section, "plugin");
            const double n = csv_field(header, line + 1, "n");
            cr_expect(csv_field(header, line + 1, "ns_insert") > 0 && csv_field(header, line + 1, "ns_absent") > 0 &&
                          csv_field(header, line + 1, "ns_present") > 0,
                      "%.300s", line + 1);
            /* bloomlab's row of the same interleaving is the one before it */
            const char *before = line;
            do
                before--;
            while (before > header && before[-1] != '\n');
            csv_text(header, before, "system", mine, sizeof mine);
            cr_expect_str_eq(mine, "bloomlab");
            csv_text(header, before, "filter", mine, sizeof mine);
            cr_expect_str_eq(mine, "standard");
            cr_expect_float_eq(csv_field(header, before, "n"), n, 0.5);
            /* and the layout's own row at the same size and n */
            char want[64];
            snprintf(want, sizeof want, "\nfilter,standard,xxh3_64,double,random64,%.0f,", csv_field(header, before, "bytes"));
            const char *own = strstr(header, want);
            cr_expect(own != NULL && csv_field(header, own + 1, "n") == n, "%s: no filter row of n = %.0f", want, n);
            sizes++;
        }
        cr_expect_eq(sizes, 2, "%s: %d sizes", names[which], sizes);
    }
    free(csv);
}

/* A plugin that cannot be loaded: one line, status 2, nothing written. */
Test(bench, bad_plugin_is_refused_before_anything_runs)
{
    char dir[] = "/tmp/bloomlab-bench-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char args[512];
    snprintf(args, sizeof args, "bench --filter plugin:/nonexistent/nope.so --max-bytes 16K --ops 1e4 -o %s/b.csv", dir);
    cli_result r = run_cli(args);
    cr_expect_eq(r.status, 2);
    cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
    cr_expect(strstr(r.err, "nope.so") != NULL, "%s", r.err);
    cr_expect_str_eq(r.out, "");
    cli_free(&r);
    snprintf(args, sizeof args, "%s/b.csv", dir);
    cr_expect(access(args, F_OK) != 0, "a file was written");
    rmdir(dir);
}

/* scripts/peers.py (make bench-peers' results/peers.csv) on three made-up
 * rounds: a figure's ns is the least round's, and its cycles and
 * instructions that round's own (bloomlab's counts), blank for the peers'
 * driver, which counts nothing; the `# counters:` line passed through. */
Test(bench, peers_csv_counts_from_the_least_round, .timeout = 60)
{
    char *dir = temp_dir();
    cr_assert_not_null(dir);
    char header[600], raw[600], out[600], cmd[3000];
    snprintf(header, sizeof header, "%s/header.csv", dir);
    snprintf(raw, sizeof raw, "%s/raw.csv", dir);
    snprintf(out, sizeof out, "%s/peers.csv", dir);
    write_text(header, "section,filter,hash,n,bits_per_item,ns_insert,ns_absent,ns_present,lines_absent,lines_present,"
                       "ns_independent,ns_update,system,cycles_insert,cycles_absent,cycles_present,instructions_insert,"
                       "instructions_absent,instructions_present\n");
    /* inserts: 5 ns in 18 cycles, 4 ns in 15 (the least, neither first nor last), 6 ns in 20; the driver 9, 8, 9 */
    write_text(raw, "1,bloomlab,avx2,peers,standard,xxh3_64,1000,10,5,3,6,2,7,1,1.5,bloomlab,18,11,22,90,50,95\n"
                    "1,peers,native,fastfilter,standard,1000,10,7,0.01,9,6,9\n"
                    "2,bloomlab,avx2,peers,standard,xxh3_64,1000,10,4,3.5,6.5,2,7,1,1.5,bloomlab,15,12,23,91,51,96\n"
                    "2,peers,native,fastfilter,standard,1000,10,7,0.01,8,6,9\n"
                    "3,bloomlab,avx2,peers,standard,xxh3_64,1000,10,6,3.5,6.5,2,7,1,1.5,bloomlab,20,12,23,92,51,96\n"
                    "3,peers,native,fastfilter,standard,1000,10,7,0.01,9,6,9\n");
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 scripts/peers.py %s %s 'made-up cpu' avx2 3 1 'bloomlab 0' kit 'taskset -c 1' native "
             "'cycles and instructions (made up)' > %s",
             raw, header, out);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *csv = slurp(out);
    cr_assert_not_null(csv);
    cr_assert(strstr(csv, "\n# counters: cycles and instructions (made up)\n") != NULL, "%s", csv);
    const char *head = strstr(csv, "system,isa,");
    cr_assert_not_null(head, "%s", csv);
    const char *mine = strstr(head, "\nbloomlab,avx2,standard,10.00,1000,insert,"),
               *theirs = strstr(head, "\nfastfilter,native,standard,10.00,1000,insert,");
    cr_assert(mine != NULL && theirs != NULL, "%s", csv);
    cr_assert_float_eq(csv_field(head, mine + 1, "ns"), 4.0, 1e-9);
    cr_assert_float_eq(csv_field(head, mine + 1, "cycles"), 15.0, 1e-9, "%.120s", mine + 1);
    cr_assert_float_eq(csv_field(head, mine + 1, "instructions"), 91.0, 1e-9, "%.120s", mine + 1);
    cr_assert_float_eq(csv_field(head, theirs + 1, "ns"), 8.0, 1e-9);
    cr_assert(isnan(csv_field(head, theirs + 1, "cycles")) && isnan(csv_field(head, theirs + 1, "instructions")),
              "%.120s", theirs + 1);
    free(csv);
    remove_tree(dir);
}

/* scripts/peers_targets.py's rounds: beside the ratio of the minima, in how
 * many rounds a figure met the target its own round's peers and floor set.
 * Made up: Boost's bulk insert 3.0, 3.3, 3.0 ns (targets 2.0, 2.2, 2.0; the
 * floor 0.9 / 0.9 = 1.0 below them), bloomlab's AVX2 2.1, 1.9, 1.95: the
 * minima meet it (1.9 / 2.0 = 0.95) but round 1 did not (2.1 / 2.0), so
 * [2/3]; the portable 4.0, 4.4, 4.1 against Boost's x86-64 build's 4.2,
 * 4.2, 4.0: 4.0 / 4.0 = 1.00 met, in round 1 alone.  The done-when's
 * section comes first, the AVX2 figure against Boost's bulk path alone
 * (met: 1 of 1), and is not counted again in the tally of every peer. */
Test(bench, peers_targets_count_the_rounds_met, .timeout = 60)
{
    char *dir = temp_dir();
    cr_assert_not_null(dir);
    enum { CSV, ROUNDS_CSV, OUT, FILES };
    static const char *const NAMES[FILES] = {"peers.csv", "rounds.csv", "targets.md"};
    char path[FILES][600], cmd[3000];
    for (int i = 0; i < FILES; i++)
        snprintf(path[i], sizeof path[i], "%s/%s", dir, NAMES[i]);
    write_text(path[CSV], "# date: made up\n"
                    "system,isa,layout,bits_per_key,n,operation,ns,ns_max,spread,rounds,panel,series,cycles,instructions\n"
                    "boost,native,fast_multiblock32_8@10.67-bulk,10.67,1000000,insert,3.0,3.3,0.1,3,,,,\n"
                    "boost,x86-64,fast_multiblock32_8@10.67-bulk,10.67,1000000,insert,4.0,4.2,0.05,3,,,,\n"
                    "floor,-,splitblock,10.67,1000000,insert,0.9,0.9,0,3,,,,\n"
                    "bloomlab,avx2,splitblock,10.67,1000000,insert,1.9,2.1,0.105,3,,,,\n"
                    "bloomlab,portable,splitblock,10.67,1000000,insert,4.0,4.4,0.1,3,,,,\n");
    static const struct {
        const char *system, *isa, *layout;
        double ns[3];
    } ROUNDS[] = {{"boost", "native", "fast_multiblock32_8@10.67-bulk", {3.0, 3.3, 3.0}},
                  {"boost", "x86-64", "fast_multiblock32_8@10.67-bulk", {4.2, 4.2, 4.0}},
                  {"floor", "-", "splitblock", {0.9, 0.9, 0.9}},
                  {"bloomlab", "avx2", "splitblock", {2.1, 1.9, 1.95}},
                  {"bloomlab", "portable", "splitblock", {4.0, 4.4, 4.1}}};
    FILE *f = fopen(path[ROUNDS_CSV], "w");
    cr_assert_not_null(f);
    fprintf(f, "system,isa,layout,bits_per_key,n,operation,round,ns\n");
    for (size_t i = 0; i < sizeof ROUNDS / sizeof ROUNDS[0]; i++)
        for (int r = 0; r < 3; r++)
            fprintf(f, "%s,%s,%s,10.67,1000000,insert,%d,%.3f\n", ROUNDS[i].system, ROUNDS[i].isa, ROUNDS[i].layout,
                    r + 1, ROUNDS[i].ns[r]);
    cr_assert_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 scripts/peers_targets.py %s results/peers.csv %s > %s", path[CSV],
             path[ROUNDS_CSV], path[OUT]);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *md = slurp(path[OUT]);
    cr_assert_not_null(md);
    cr_expect(strstr(md, "1.90 (10%), **0.95** [2/3]") != NULL, "%s", md);
    cr_expect(strstr(md, "4.00 (10%), **1.00** [1/3]") != NULL, "%s", md);
    cr_expect(strstr(md, "0 figures met in every round, 2 in some, 0 in none") != NULL, "%s", md);
    const char *done = strstr(md, "## The done-when"), *every = strstr(md, "## splitblock at 10.67 bits per key\n");
    cr_expect(done != NULL && every != NULL && done < every, "%s", md);
    cr_expect(strstr(md, "by system and vector level: bloomlab avx2 1 of 1.") != NULL, "%s", md);
    cr_expect(strstr(md, "2 of 2 figures meet their target") != NULL, "%s", md);
    free(md);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 scripts/peers_targets.py %s > %s", path[CSV], path[OUT]); /* no rounds */
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    md = slurp(path[OUT]);
    cr_assert_not_null(md);
    cr_expect(strstr(md, "**0.95** |") != NULL && strstr(md, "[2/3]") == NULL && strstr(md, "Round by round") == NULL,
              "%s", md);
    free(md);
    remove_tree(dir);
}

/* make bench-peers' settings (scripts/bench-peers.sh's environment): one
 * that cannot be read is one line on stderr naming it and its value, exit
 * 2, before anything is built or written (PEERS_OUT never made); the kit
 * absent (a user's clone) is said on stdout, exit 0, nothing written. */
Test(bench, peers_script_refuses_bad_settings, .timeout = 60)
{
    char *dir = temp_dir();
    cr_assert_not_null(dir);
    char file[600];
    snprintf(file, sizeof file, "%s/a-file", dir);
    write_text(file, "not a directory\n");
    static const struct {
        const char *setting, *value;
    } BAD[] = {{"PEERS_ROUNDS", "0"},          {"PEERS_ROUNDS", "three"},
               {"PEERS_CPU", "99999"},         {"PEERS_N", "1e6 100"},
               {"PEERS_N", "1e6x"},            {"PEERS_OPS", "lots"},
               {"PEERS_LEVELS", "avx2 sse4"},  {"PEERS_HASHES", "xxh3_64 nohash"},
               {"PEERS_ONLY", "boost+bost"},   {"PEERS_OUT", NULL}}; /* NULL: a file, not a directory */
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        const char *value = BAD[i].value != NULL ? BAD[i].value : file;
        char cmd[3000], out[700], err[700], made[700];
        snprintf(out, sizeof out, "%s/out", dir);
        snprintf(err, sizeof err, "%s/err", dir);
        snprintf(made, sizeof made, "%s/peers", dir); /* PEERS_OUT, where nothing may be made */
        snprintf(cmd, sizeof cmd,
                 "BLOOMLAB=%s PEERS_KIT=%s/no-kit PEERS_OUT='%s' %s='%s' sh scripts/bench-peers.sh >%s 2>%s </dev/null",
                 bloomlab_path(), dir, made, BAD[i].setting, value, out, err); /* the bad setting last: it wins */
        const int raw = system(cmd);
        cr_expect(WIFEXITED(raw) && WEXITSTATUS(raw) == 2, "%s=%s: status %d", BAD[i].setting, value, raw);
        char *said = slurp(err), *printed = slurp(out);
        cr_assert(said != NULL && printed != NULL);
        cr_expect_eq(count_lines(said), 1, "%s=%s: %s", BAD[i].setting, value, said);
        cr_expect(strstr(said, BAD[i].setting) != NULL && strstr(said, value) != NULL, "%s", said);
        cr_expect_str_eq(printed, "", "%s=%s", BAD[i].setting, value);
        cr_expect(!file_exists(made), "%s=%s: PEERS_OUT made", BAD[i].setting, value);
        free(said);
        free(printed);
    }
    char cmd[3000], out[700], made[700];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(made, sizeof made, "%s/peers", dir);
    snprintf(cmd, sizeof cmd,
             "BLOOMLAB=%s PEERS_KIT=%s/no-kit PEERS_OUT=%s sh scripts/bench-peers.sh >%s 2>&1 </dev/null",
             bloomlab_path(), dir, made, out);
    cr_expect_eq(system(cmd), 0, "%s", cmd);
    char *said = slurp(out);
    cr_assert_not_null(said);
    cr_expect(strstr(said, "no peers kit at") != NULL && strstr(said, "skipped") != NULL, "%s", said);
    cr_expect(!file_exists(made), "PEERS_OUT made without the kit");
    free(said);
    remove_tree(dir);
}

/* bench_compare.py's counts: where both sides' CSVs carry cycles and
 * instructions, each ratio is new / old of the medians over the rounds
 * (instructions 80 / 100, cycles 330 / 300 below); where neither has them,
 * blank, and the table says why. */
Test(bench, compare_counts_by_their_medians, .timeout = 60)
{
    static const double old_cycles[3] = {300, 310, 290}, new_cycles[3] = {330, 330, 400};
    static const double old_instructions[3] = {100, 100, 102}, new_instructions[3] = {80, 81, 80};
    for (int with_counts = 1; with_counts >= 0; with_counts--) {
        char *dir = temp_dir();
        cr_assert_not_null(dir);
        for (int r = 0; r < 3; r++)
            for (int side = 0; side < 2; side++) {
                char path[600], text[1024], cycles[32] = "", instructions[32] = "";
                if (with_counts) {
                    snprintf(cycles, sizeof cycles, "%g", side == 0 ? old_cycles[r] : new_cycles[r]);
                    snprintf(instructions, sizeof instructions, "%g", side == 0 ? old_instructions[r] : new_instructions[r]);
                }
                snprintf(path, sizeof path, "%s/%s.%d.csv", dir, side == 0 ? "old" : "new", r + 1);
                snprintf(text, sizeof text,
                         "# made up\n"
                         "section,filter,hash,scheme,keys,bytes,ns_insert,ns_absent,ns_present,system,cycles_insert,"
                         "instructions_insert\n"
                         "filter,splitblock,xxh3_64,double,random64,65536,2,1,1,bloomlab,%s,%s\n",
                         cycles, instructions);
                write_text(path, text);
            }
        char cmd[1400], out_path[700];
        snprintf(out_path, sizeof out_path, "%s/table.csv", dir);
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 scripts/bench_compare.py %s 3 %s > %s/table.txt", dir, out_path,
                 dir);
        cr_assert_eq(system(cmd), 0, "%s", cmd);
        char *csv = slurp(out_path);
        cr_assert_not_null(csv);
        char *save = NULL, *header = strtok_r(csv, "\n", &save);
        int inserts = 0;
        for (char *line = strtok_r(NULL, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
            char op[32];
            csv_text(header, line, "op", op, sizeof op);
            const double cycles = csv_field(header, line, "cycles_ratio"),
                         instructions = csv_field(header, line, "instructions_ratio");
            if (with_counts && strcmp(op, "ns_insert") == 0) {
                inserts++;
                cr_assert(fabs(instructions - 0.8) < 1e-9 && fabs(cycles - 1.1) < 1e-9, "%s", line);
            } else
                cr_assert(isnan(cycles) && isnan(instructions), "%s: no counts", line);
        }
        cr_assert_eq(inserts, with_counts);
        free(csv);
        snprintf(out_path, sizeof out_path, "%s/table.txt", dir);
        char *table = slurp(out_path);
        cr_assert_not_null(table);
        cr_assert_eq(strstr(table, "(no cycles or instructions: ") == NULL, with_counts, "%s", table);
        free(table);
        remove_tree(dir);
    }
}

/* scripts/bench_compare.py (scripts/bench-compare.sh's table) on three made-up
 * rounds of two binaries, one filter row and two peers rows a round: the
 * least-of-each ratio is min(new) / min(old), the paired one the median of
 * the rounds' own new / old; the peers section's batch loops and one-key
 * calls are two figures, not one. */
Test(bench, compare_least_and_paired_ratios, .timeout = 60)
{
    static const double old_ns[3] = {1.0, 1.5, 1.5}, new_ns[3] = {1.45, 1.6, 1.6};
    char *dir = temp_dir();
    cr_assert_not_null(dir);
    for (int r = 0; r < 3; r++) {
        for (int side = 0; side < 2; side++) {
            const double ns = side == 0 ? old_ns[r] : new_ns[r];
            char path[600], text[1024];
            snprintf(path, sizeof path, "%s/%s.%d.csv", dir, side == 0 ? "old" : "new", r + 1);
            snprintf(text, sizeof text,
                     "# made up\n"
                     "section,filter,hash,scheme,keys,bytes,ns_insert,ns_absent,ns_present,system\n"
                     "filter,splitblock,xxh3_64,double,random64,65536,%g,%g,%g,bloomlab\n"
                     "peers,standard,xxh3_64,double,random64,125056,%g,2,2,bloomlab\n"
                     "peers,standard,xxh3_64,double,random64,125056,%g,3,3,bloomlab-one-key\n",
                     ns, ns, ns, 4 * ns, side == 0 ? 8.0 : 10.0);
            write_text(path, text);
        }
    }
    char cmd[1400], out_path[700];
    snprintf(out_path, sizeof out_path, "%s/table.csv", dir);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 scripts/bench_compare.py %s 3 %s > %s/table.txt", dir, out_path, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *csv = slurp(out_path);
    cr_assert_not_null(csv);
    char *save = NULL, *header = strtok_r(csv, "\n", &save);
    int figures = 0, one_key = 0;
    for (char *line = strtok_r(NULL, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save), figures++) {
        char text[64];
        csv_text(header, line, "system", text, sizeof text);
        const double least = csv_field(header, line, "ratio"), paired = csv_field(header, line, "paired_ratio");
        if (strcmp(text, "bloomlab-one-key") == 0) { /* 8 -> 10 every round */
            one_key++;
            csv_text(header, line, "op", text, sizeof text);
            if (strcmp(text, "ns_insert") == 0)
                cr_assert(fabs(least - 1.25) < 1e-9 && fabs(paired - 1.25) < 1e-9, "%s", line);
            continue;
        }
        csv_text(header, line, "op", text, sizeof text);
        if (strcmp(text, "ns_insert") != 0)
            continue;
        /* 1.45 / 1.0 of the least, the median of 1.45, 1.6 / 1.5, 1.6 / 1.5 paired */
        cr_assert(fabs(least - 1.45) < 1e-9, "%s", line);
        cr_assert(fabs(paired - 1.6 / 1.5) < 1e-9, "%s", line);
    }
    cr_assert_eq(figures, 9, "three ops of the filter row and of each peers row");
    cr_assert_eq(one_key, 3);
    free(csv);
    remove_tree(dir);
}
