/* test_shards.c -- an experiment run as 4 shards through GNU parallel
 * (scripts/sweep-parallel.sh) and merged gives the unsharded CSV: the same
 * header and data rows, byte for byte, once the ns_insert and ns_query
 * columns (timings) are removed.  Also the Slurm driver's dry run. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static const char EXPERIMENT[] =
    "[experiment]\n"
    "seed = 11\n"
    "[plain]\n"
    "filter = standard, partitioned, blocked512, counting\n"
    "scheme = double, ideal\n"
    "hash = xxh3_64, fnv1a32\n"
    "keys = random64, urls\n"
    "bits_per_item = 6, 10\n"
    "n = 3000\n"
    "k = 3, opt\n"
    "trials = 3\n"
    "queries = 4000\n"
    "[split]\n"
    "filter = splitblock\n"
    "keys = random64\n"
    "bits_per_item = 8..16:4\n"
    "n = 2000\n"
    "k = 8\n"
    "trials = 2\n"
    "queries = 3000\n";

static int run_shell(const char *cmd)
{
    int raw = system(cmd);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

/* The header and data rows of a CSV with the columns named ns_insert and
 * ns_query removed (the # metadata lines dropped). */
static char *data_without_timings(const char *path)
{
    char *text = slurp(path);
    cr_assert_not_null(text, "cannot read %s", path);
    size_t cap = strlen(text) + 1, used = 0;
    char *out = malloc(cap);
    int drop[2] = {-1, -1};
    int header_seen = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        int col = 0;
        char *field = line;
        for (;;) {
            char *comma = strchr(field, ',');
            size_t len = comma ? (size_t)(comma - field) : strlen(field);
            if (!header_seen) {
                if (len == 9 && strncmp(field, "ns_insert", 9) == 0)
                    drop[0] = col;
                if (len == 8 && strncmp(field, "ns_query", 8) == 0)
                    drop[1] = col;
            }
            if (col != drop[0] && col != drop[1]) {
                memcpy(out + used, field, len);
                used += len;
                out[used++] = ',';
            }
            if (!comma)
                break;
            field = comma + 1;
            col++;
        }
        out[used - 1] = '\n';
        if (!header_seen) {
            cr_assert(drop[0] >= 0 && drop[1] >= 0, "%s: no ns_insert/ns_query columns", path);
            header_seen = 1;
        }
    }
    out[used] = '\0';
    free(text);
    return out;
}

Test(shards, parallel_four_shards_equal_unsharded, .timeout = 60)
{
    char *dir = temp_dir();
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/shardtest.ini", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(EXPERIMENT, f);
    fclose(f);

    snprintf(cmd, sizeof cmd, "%s run %s -o %s/whole.csv --quiet --threads 2", bloomlab_path(), path, dir);
    cr_assert_eq(run_shell(cmd), 0, "the unsharded run failed");
    snprintf(cmd, sizeof cmd, "sh scripts/sweep-parallel.sh -n 4 -j 2 --bloomlab %s %s %s/merged.csv >%s/log 2>&1",
             bloomlab_path(), path, dir, dir);
    int rc = run_shell(cmd);
    snprintf(path, sizeof path, "%s/log", dir);
    char *log = slurp(path);
    cr_assert_eq(rc, 0, "sweep-parallel.sh failed: %s", log ? log : "");
    free(log);

    char whole[512], merged[512];
    snprintf(whole, sizeof whole, "%s/whole.csv", dir);
    snprintf(merged, sizeof merged, "%s/merged.csv", dir);
    char *a = data_without_timings(whole), *b = data_without_timings(merged);
    cr_assert_gt(count_lines(a), 40, "the experiment has many cells");
    cr_assert_str_eq(a, b, "merged shards differ from the unsharded run");
    char *merged_text = slurp(merged);
    cr_assert_not_null(strstr(merged_text, "# shard: merged"));
    free(merged_text);
    free(a);
    free(b);

    /* the shard files were temporary: only our files remain */
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s | grep -v -e '^whole.csv$' -e '^merged.csv$' -e '^log$' -e '^shardtest.ini$')\"", dir);
    cr_assert_eq(run_shell(cmd), 0, "sweep-parallel.sh left files behind");
    remove_tree(dir);
}

Test(shards, parallel_bad_input_exits_2)
{
    cr_assert_eq(run_shell("sh scripts/sweep-parallel.sh -n 0 x.ini out.csv 2>/dev/null"), 2);
    cr_assert_eq(run_shell("sh scripts/sweep-parallel.sh /nonexistent.ini out.csv 2>/dev/null"), 2);
    cr_assert_eq(run_shell("sh scripts/sweep-parallel.sh --bogus 2>/dev/null"), 2);
}

Test(shards, slurm_dry_run_prints_the_array_and_the_merge)
{
    char *dir = temp_dir();
    char path[512], cmd[1024];
    snprintf(path, sizeof path, "%s/e.ini", dir);
    FILE *f = fopen(path, "w");
    fputs(EXPERIMENT, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "sh scripts/sweep-slurm.sh --dry-run -n 8 --time 01:00:00 %s %s/out.csv > %s/plan 2>&1",
             path, dir, dir);
    cr_assert_eq(run_shell(cmd), 0);
    snprintf(path, sizeof path, "%s/plan", dir);
    char *plan = slurp(path);
    cr_assert_not_null(strstr(plan, "sbatch"), "%s", plan);
    cr_assert_not_null(strstr(plan, "--array=1-8"), "%s", plan);
    cr_assert_not_null(strstr(plan, "--shard ${SLURM_ARRAY_TASK_ID}/8"), "%s", plan);
    cr_assert_not_null(strstr(plan, "--dependency=afterok:"), "%s", plan);
    cr_assert_not_null(strstr(plan, "merge"), "%s", plan);
    free(plan);
    remove_tree(dir);
}

/* The Slurm plan carried out by a stand-in sbatch that runs each array task
 * in turn (SLURM_ARRAY_TASK_ID set) and then the merge: the same rows. */
static const char FAKE_SBATCH[] =
    "#!/bin/sh\n"
    "array=''; wrap=''\n"
    "for a in \"$@\"; do case \"$a\" in --array=*) array=${a#--array=};; --wrap=*) wrap=${a#--wrap=};; esac; done\n"
    "if [ -n \"$array\" ]; then\n"
    "  i=${array%-*}; while [ $i -le ${array#*-} ]; do SLURM_ARRAY_TASK_ID=$i sh -c \"$wrap\" || exit 1; i=$((i+1)); done\n"
    "  echo 4242\n"
    "else sh -c \"$wrap\" >&2 && echo 4243; fi\n";

Test(shards, slurm_plan_run_by_a_stand_in_sbatch, .timeout = 60)
{
    char *dir = temp_dir();
    char path[512], cmd[2048];
    snprintf(path, sizeof path, "%s/sbatch", dir);
    FILE *f = fopen(path, "w");
    fputs(FAKE_SBATCH, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/e.ini", dir);
    f = fopen(path, "w");
    fputs(EXPERIMENT, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s run %s -o %s/whole.csv --quiet --threads 2", bloomlab_path(), path, dir);
    cr_assert_eq(run_shell(cmd), 0);
    snprintf(cmd, sizeof cmd, "chmod +x %s/sbatch && SBATCH=%s/sbatch sh scripts/sweep-slurm.sh -n 3 --bloomlab %s %s %s/merged.csv >%s/log 2>&1",
             dir, dir, bloomlab_path(), path, dir, dir);
    cr_assert_eq(run_shell(cmd), 0);
    char whole[512], merged[512];
    snprintf(whole, sizeof whole, "%s/whole.csv", dir);
    snprintf(merged, sizeof merged, "%s/merged.csv", dir);
    char *a = data_without_timings(whole), *b = data_without_timings(merged);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    remove_tree(dir);
}
