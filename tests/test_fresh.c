/* test_fresh.c -- the committed results are the ones this code makes.
 *
 * `make` remakes a result only when its `# inputs:` line (the fingerprint of
 * the experiment's cells, seed, scale, shard and BLOOMLAB_RESULTS_VERSION)
 * differs from the one the code computes now, so a fresh clone's `make`
 * leaves git clean.  That holds only if two things do: every committed
 * result records the line the code computes (someone who bumped the results
 * version also remade the results), and a result that claims to be current
 * has the rows a run makes now (someone who changed what the code writes
 * also bumped the version).  The first is checked for every experiment, the
 * second by rerunning the cheap ones.  And a fresh machine's first `make`
 * builds what its packages allow: deps.sh runs before the Makefile reads
 * them.
 */
#include <criterion/criterion.h>
#include <dirent.h>

#include "csv.h"
#include "helpers.h"

/* `make ARGS` outside the enclosing make's jobserver (its settings
 * unset), stdout and stderr together in *out (free it); its status. */
static int make_output(const char *args, char **out)
{
    char out_path[] = "/tmp/bloomlab-make-XXXXXX";
    close(mkstemp(out_path));
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory %s > %s 2>&1", args,
             out_path);
    const int status = system(cmd);
    *out = slurp(out_path);
    unlink(out_path);
    cr_assert_not_null(*out, "%s", cmd);
    return status;
}

/* The `# inputs:` line of a result file, or NULL. */
static char *inputs_line_of(const char *text)
{
    for (const char *line = text; line != NULL && *line == '#'; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "# inputs: ", 10) == 0) {
            const char *end = strchr(line, '\n');
            return strndup(line, end ? (size_t)(end - line) : strlen(line));
        }
    }
    return NULL;
}

static char *committed_inputs(const char *result_path)
{
    char *text = slurp(result_path);
    cr_assert_not_null(text, "%s is missing", result_path);
    char *line = inputs_line_of(text);
    free(text);
    cr_assert_not_null(line, "%s has no '# inputs:' line: remake it with make", result_path);
    return line;
}

Test(fresh, every_committed_result_records_the_inputs_of_this_code)
{
    DIR *d = opendir("experiments");
    cr_assert_not_null(d);
    struct dirent *ent;
    int checked = 0;
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len < 5 || strcmp(ent->d_name + len - 4, ".ini") != 0)
            continue;
        char args[600], result[600];
        snprintf(args, sizeof args, "run experiments/%s --inputs", ent->d_name);
        snprintf(result, sizeof result, "results/%.*s.csv", (int)(len - 4), ent->d_name);
        cli_result r = run_cli(args);
        cr_assert_eq(r.status, 0, "bloomlab %s: %s", args, r.err);
        char *now = strndup(r.out, strcspn(r.out, "\n"));
        char *then = committed_inputs(result);
        cr_assert_str_eq(then, now,
                         "%s is stale: it records '%s', this code computes '%s' (make remakes it; commit the result)",
                         result, then, now);
        free(now);
        free(then);
        cli_free(&r);
        checked++;
    }
    closedir(d);
    cr_assert_gt(checked, 10, "only %d experiments found", checked);
}

/* An experiment rerun into a temporary file has the committed rows, ns_*
 * aside: else the code's output changed and BLOOMLAB_RESULTS_VERSION was
 * not bumped. */
static void expect_rerun_matches(const char *name)
{
    char *dir = temp_dir();
    char out[600], args[1400], result[600];
    snprintf(out, sizeof out, "%s/%s.csv", dir, name);
    snprintf(result, sizeof result, "results/%s.csv", name);
    snprintf(args, sizeof args, "run experiments/%s.ini -o %s --quiet", name, out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "bloomlab %s: %s", args, r.err);
    cli_free(&r);
    char *now = file_rows(out), *then = file_rows(result);
    cr_assert_str_eq(now, then,
                     "%s: a run now writes other rows than the committed ones: bump BLOOMLAB_RESULTS_VERSION "
                     "(src/base/version.h) and remake the results",
                     name);
    free(now);
    free(then);
    remove_tree(dir);
}

Test(fresh, a_rerun_of_a_current_result_writes_its_rows, .timeout = 300)
{
    expect_rerun_matches("million_at_1pct");
    expect_rerun_matches("deletion");
}

Test(fresh, the_course_page_table_is_current)
{
    cli_result r = run_cli("demo --table");
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *committed = slurp("results/seed64.csv");
    cr_assert_not_null(committed);
    cr_assert_str_eq(r.out, committed, "results/seed64.csv is not what demo --table prints");
    free(committed);
    cli_free(&r);
}

/* A current output is left alone: not rewritten, not even touched. */
Test(fresh, a_current_output_is_not_rewritten)
{
    char *dir = temp_dir();
    char out[600], args[1400];
    snprintf(out, sizeof out, "%s/m.csv", dir);
    snprintf(args, sizeof args, "run experiments/million_at_1pct.ini -o %s --quiet", out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    struct stat before, after;
    cr_assert_eq(stat(out, &before), 0);
    char *first = slurp(out);
    snprintf(args, sizeof args, "run experiments/million_at_1pct.ini -o %s", out);
    r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.err, "up to date") != NULL, "no word that the output is current: %s", r.err);
    cli_free(&r);
    cr_assert_eq(stat(out, &after), 0);
    char *second = slurp(out);
    cr_assert_str_eq(first, second);
    cr_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec,
              "the current output was touched");
    /* --fresh remakes it */
    snprintf(args, sizeof args, "run experiments/million_at_1pct.ini -o %s --fresh --quiet", out);
    r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    struct stat remade;
    cr_assert_eq(stat(out, &remade), 0);
    cr_assert_neq(remade.st_ino, before.st_ino, "--fresh did not write a new file");
    free(first);
    free(second);
    remove_tree(dir);
}

/* The memory figure's result records the line `memory --inputs` computes,
 * the line the Makefile asks about before it measures again. */
Test(fresh, the_memory_result_records_the_inputs_of_this_code)
{
    cli_result r = run_cli("memory --inputs");
    cr_assert_eq(r.status, 0, "%s", r.err);
    char *now = strndup(r.out, strcspn(r.out, "\n"));
    char *then = committed_inputs("results/memory.csv");
    cr_assert_str_eq(then, now, "results/memory.csv is stale: it records '%s', this code computes '%s'", then, now);
    free(now);
    free(then);
    cli_free(&r);
}

/* `make -n plots` with `-W bin/bloomlab` (as if the binary had just been
 * rebuilt) lists no experiment whose committed result is current: results
 * depend on what decides their bytes (scripts/stale.sh), not on the
 * binary's timestamp.  build/flags and build/git_rev are taken as they are
 * (-o), so this make neither rewrites them nor relinks anything. */
Test(fresh, a_newer_binary_reruns_no_current_result, .timeout = 120)
{
    char *plan;
    cr_assert_eq(make_output("-n -o build/flags -o build/git_rev -W bin/bloomlab plots", &plan), 0, "%s", plan);
    DIR *d = opendir("experiments");
    cr_assert_not_null(d);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        size_t len = strlen(ent->d_name);
        if (len < 5 || strcmp(ent->d_name + len - 4, ".ini") != 0 || strcmp(ent->d_name, "bench.ini") == 0)
            continue;
        char args[600], result[600], rerun[1400];
        snprintf(args, sizeof args, "run experiments/%s --inputs", ent->d_name);
        snprintf(result, sizeof result, "results/%.*s.csv", (int)(len - 4), ent->d_name);
        snprintf(rerun, sizeof rerun, "run experiments/%s -o %s", ent->d_name, result);
        cli_result r = run_cli(args);
        cr_assert_eq(r.status, 0, "bloomlab %s: %s", args, r.err);
        char *text = slurp(result);
        int current = text != NULL && strstr(text, r.out) != NULL; /* r.out: the line and its newline */
        if (current)
            cr_assert(strstr(plan, rerun) == NULL, "make -n would rerun the current %s:\n%s", result, plan);
        free(text);
        cli_free(&r);
    }
    closedir(d);
    cr_assert(strstr(plan, "memory -o results/memory.csv") == NULL, "make -n would measure memory again");
    cr_assert(strstr(plan, "demo --table > results/seed64.csv") == NULL, "make -n would remake seed64.csv");
    free(plan);
}

/* On a fresh machine the packages scripts/deps.sh installs decide what the
 * Makefile builds (the adapters, from their headers), so deps.sh runs
 * before the Makefile reads them (Makefile: deps).  Here a stand-in deps
 * script (DEPS_SH, its stamp DEPS_STAMP) makes both adapters' headers in a
 * directory that starts empty (ADAPTER_INCLUDE): the adapters must then be
 * wanted, not skipped as their headers absent.  The adapters themselves
 * are taken as they are (-o): nothing is built. */
Test(fresh, deps_run_before_the_makefile_reads_the_packages, .timeout = 120)
{
    char dir[] = "/tmp/bloomlab-deps-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char script[600], args[1600], cmd[700];
    snprintf(script, sizeof script, "%s/deps.sh", dir);
    FILE *f = fopen(script, "w");
    cr_assert_not_null(f);
    fprintf(f, "mkdir -p %s/include/leveldb && touch %s/include/bloom.h %s/include/leveldb/filter_policy.h\n", dir,
            dir, dir);
    cr_assert_eq(fclose(f), 0);
    snprintf(args, sizeof args,
             "-s -o build/adapters/libbloom.so -o build/adapters/leveldb.so ADAPTER_INCLUDE=%s/include DEPS_SH=%s "
             "DEPS_STAMP=%s/deps.mk adapters",
             dir, script, dir);
    char *out;
    cr_assert_eq(make_output(args, &out), 0, "make %s:\n%s", args, out);
    cr_expect(strstr(out, "skipped") == NULL, "the adapters were skipped though deps.sh made their headers:\n%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "test -f %s/deps.mk && rm -r %s", dir, dir);
    cr_assert_eq(system(cmd), 0, "no stamp %s/deps.mk", dir);
}

/* The adapters' bytes are part of results/peer_libraries.csv's inputs, so
 * they are built the same whatever CC, CFLAGS and CXX say (Makefile:
 * ADAPTER_CC): a `make CC=clang` had built the libbloom adapter with clang,
 * its other bytes had made the committed result stale, and `make CC=clang
 * test` failed here (every_committed_result_records_the_inputs_of_this_code).
 * `make -n -B` prints the adapters' commands under other settings;
 * build/flags is taken as it is (-o), so nothing is rewritten. */
Test(fresh, the_adapters_are_built_alike_whatever_cc_and_cflags, .timeout = 120)
{
    const char *args = "-n -B -o build/flags CC=clang CXX=clang++ CFLAGS=-O3 build/adapters/libbloom.so "
                       "build/adapters/leveldb.so";
    char *plan;
    cr_assert_eq(make_output(args, &plan), 0, "make %s:\n%s", args, plan);
    cr_assert(strstr(plan, "-o build/adapters/libbloom.so") != NULL && strstr(plan, "-o build/adapters/leveldb.so"),
              "no adapter command in:\n%s", plan);
    cr_expect(strstr(plan, "clang") == NULL, "an adapter is built with CC or CXX:\n%s", plan);
    cr_expect(strstr(plan, "-O3") == NULL, "an adapter is built with CFLAGS:\n%s", plan);
    free(plan);
}
