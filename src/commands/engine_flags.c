/* engine_flags.c -- see engine_flags.h. */
#define _GNU_SOURCE
#include "commands/engine_flags.h"
#include "base/strbuf.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/numbers.h"
#include "harness/cli.h"
#include "harness/output.h"
#include "harness/sweep.h"

/* I/N, both whole numbers that fit an unsigned: sscanf's %u would take
 * 4294967297 as 1 and run the wrong shard. */
static int parse_shard(const char *cmd, const char *text, run_flags *f)
{
    const char *slash = strchr(text, '/');
    uint64_t i = 0, n = 0;
    char first[32];
    int ok = slash != NULL && (size_t)(slash - text) < sizeof first;
    if (ok) {
        snprintf(first, sizeof first, "%.*s", (int)(slash - text), text);
        ok = strspn(first, "0123456789") == strlen(first) && strspn(slash + 1, "0123456789") == strlen(slash + 1) &&
             number_parse_u64(first, 1, UINT_MAX, &i) == 0 && number_parse_u64(slash + 1, 1, UINT_MAX, &n) == 0 &&
             i <= n;
    }
    if (!ok) {
        cli_error(cmd, "--shard: '%s' is not I/N with 1 <= I <= N <= %u", text, UINT_MAX);
        return -1;
    }
    f->shard_index = (unsigned)i;
    f->shard_count = (unsigned)n;
    return 0;
}

int engine_shared_flag(const char *cmd, int argc, char **argv, int *i, run_flags *f)
{
    const char *a = argv[*i];
    const char *v;
#define FLAG(name) (strcmp(a, name) == 0 || (strncmp(a, name "=", strlen(name) + 1) == 0))
    if (FLAG("-o") || FLAG("--output")) {
        if ((v = cli_flag_value(argc, argv, i, cmd, a[1] == 'o' ? "-o" : "--output")) == NULL)
            return -1;
        if (v[0] == '\0') {
            cli_error(cmd, "%s: the output file name is empty", a[1] == 'o' ? "-o" : "--output");
            return -1;
        }
        f->output = v;
    } else if (FLAG("--threads")) {
        uint64_t t;
        if ((v = cli_flag_value(argc, argv, i, cmd, "--threads")) == NULL || cli_u64(v, 1, 1024, cmd, "--threads", &t) != 0)
            return -1;
        f->threads = (int)t;
    } else if (FLAG("--scale")) {
        if ((v = cli_flag_value(argc, argv, i, cmd, "--scale")) == NULL)
            return -1;
        if (strcmp(v, "quick") != 0 && strcmp(v, "full") != 0) {
            cli_error(cmd, "--scale: '%s' is not quick or full", v);
            return -1;
        }
        f->scale = v;
    } else if (FLAG("--shard")) {
        if ((v = cli_flag_value(argc, argv, i, cmd, "--shard")) == NULL || parse_shard(cmd, v, f) != 0)
            return -1;
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
        f->quiet = 1;
    } else if (strcmp(a, "--fresh") == 0) {
        f->fresh = 1;
    } else if (strcmp(a, "--inputs") == 0) {
        f->inputs_only = 1;
    } else {
        return 0;
    }
#undef FLAG
    return 1;
}

int engine_run(const experiment *e, const run_flags *f, int argc, char **argv)
{
    char command[2048];
    strbuf line = strbuf_on(command, sizeof command);
    strbuf_argv(&line, "bloomlab", argc, argv);
    sweep_options opt = {output_is_stdout(f->output) ? NULL : f->output, command, f->threads, f->shard_index, f->shard_count, f->quiet, !f->fresh,
                         f->inputs_only};
    return sweep_run(e, &opt);
}

/* The cores this process may run on (taskset and cgroups respected), asked
 * without starting the OpenMP runtime (sweep.c's query_range says why). */
static int usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

void engine_default_flags(run_flags *f)
{
    memset(f, 0, sizeof *f);
    f->scale = "quick";
    f->threads = usable_cores();
    f->shard_index = f->shard_count = 1;
}

typedef struct {
    const char *flag;
    const char *key;
} flag_key;

static const flag_key GRID_FLAGS[] = {
    {"--filter", "filter"}, {"--hash", "hash"},       {"--scheme", "scheme"}, {"--keys", "keys"},
    {"--m", "m"},           {"--bits-per-item", "bits_per_item"},             {"--n", "n"},
    {"--k", "k"},           {"--trials", "trials"},   {"--queries", "queries"}, {"--seed", "seed"},
    {"--seeds", "seeds"},
    {"--measure", "measure"}, {"--deletes", "deletes"}, {"--sizing", "sizing"}, {"--p", "p"},
    {"--expected-n", "expected_n"}};
#define GRID_FLAG_COUNT (sizeof GRID_FLAGS / sizeof GRID_FLAGS[0])

/* Collect grid settings from argv; returns the count, -1 on a bad flag, -2 for --help. */
int engine_grid_settings(const char *cmd, int argc, char **argv, setting *out, run_flags *f, int allow_run_flags)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return -2;
        int matched = 0;
        for (size_t g = 0; g < GRID_FLAG_COUNT && !matched; g++) {
            size_t len = strlen(GRID_FLAGS[g].flag);
            if (strncmp(a, GRID_FLAGS[g].flag, len) == 0 && (a[len] == '\0' || a[len] == '=')) {
                const char *v = cli_flag_value(argc, argv, &i, cmd, GRID_FLAGS[g].flag);
                if (v == NULL)
                    return -1;
                out[count++] = (setting){GRID_FLAGS[g].key, v, GRID_FLAGS[g].flag};
                matched = 1;
            }
        }
        if (matched)
            continue;
        if (allow_run_flags) {
            int taken = engine_shared_flag(cmd, argc, argv, &i, f);
            if (taken < 0)
                return -1;
            if (taken)
                continue;
        }
        cli_error(cmd, "unknown option '%s' (bloomlab %s --help)", a, cmd);
        return -1;
    }
    return count;
}

