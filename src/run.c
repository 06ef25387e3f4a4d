/* run.c -- the commands around the sweep engine: run, sweep, theory, merge. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "experiment.h"
#include "numbers.h"
#include "sweep.h"
#include "theory.h"

#define ERR_MAX 1024
#define PATH_MAX_LEN 1024

/* The flags every engine command shares. */
typedef struct {
    const char *output;
    const char *scale;
    int threads;
    unsigned shard_index, shard_count;
    int quiet;
    int fresh;
} run_flags;

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

/* One of the shared flags at argv[*i]?  1 taken, 0 not ours, -1 bad. */
static int shared_flag(const char *cmd, int argc, char **argv, int *i, run_flags *f)
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
    } else {
        return 0;
    }
#undef FLAG
    return 1;
}

static void join_command(int argc, char **argv, char *out, size_t size)
{
    size_t used = (size_t)snprintf(out, size, "bloomlab");
    for (int i = 0; i < argc && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, " %s", argv[i]);
}

static int run_experiment(const char *cmd, const experiment *e, const run_flags *f, int argc, char **argv)
{
    char command[2048];
    join_command(argc, argv, command, sizeof command);
    sweep_options opt = {f->output, command, f->threads, f->shard_index, f->shard_count, f->quiet, !f->fresh};
    (void)cmd;
    return sweep_run(e, &opt);
}

static void default_flags(run_flags *f)
{
    memset(f, 0, sizeof *f);
    f->scale = "quick";
    f->threads = omp_get_num_procs();
    f->shard_index = f->shard_count = 1;
}

static const char RUN_USAGE[] =
    "usage: bloomlab run EXPERIMENT.ini [-o FILE] [--threads T] [--scale quick|full]\n"
    "                    [--shard I/N] [--quiet] [--fresh]\n"
    "\n"
    "Runs every cell of an experiment file and writes tidy CSV (default\n"
    "results/NAME.csv, NAME the file's stem).  An interrupted run keeps its\n"
    "finished cells and the next run resumes from them (--fresh starts over).\n"
    "\n"
    "  -o FILE          where the CSV goes\n"
    "  --threads T      OpenMP threads (default: all cores)\n"
    "  --scale S        quick (default) or full: picks KEY.quick / KEY.full values\n"
    "  --shard I/N      run only cells i with i mod N = I-1; bloomlab merge joins shards\n"
    "  --quiet          no progress line on stderr\n";

int cmd_run(int argc, char **argv)
{
    run_flags f;
    default_flags(&f);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(RUN_USAGE, stdout);
            return 0;
        }
        int taken = shared_flag("run", argc, argv, &i, &f);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        if (argv[i][0] == '-') {
            cli_error("run", "unknown option '%s' (bloomlab run --help)", argv[i]);
            return 2;
        }
        if (path != NULL) {
            cli_error("run", "one experiment file at a time ('%s' and '%s')", path, argv[i]);
            return 2;
        }
        path = argv[i];
    }
    if (path == NULL) {
        cli_error("run", "no experiment file (bloomlab run --help)");
        return 2;
    }
    char err[ERR_MAX];
    experiment e;
    if (experiment_load(path, f.scale, &e, err, sizeof err) != 0) {
        fprintf(stderr, "bloomlab run: %s\n", err);
        return 2;
    }
    char output[PATH_MAX_LEN];
    if (f.output == NULL) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        const char *dot = strrchr(base, '.');
        snprintf(output, sizeof output, "results/%.*s.csv", (int)(dot ? dot - base : (long)strlen(base)), base);
        f.output = output;
    }
    int rc = run_experiment("run", &e, &f, argc, argv);
    experiment_free(&e);
    return rc;
}

/* ---- sweep and theory: the grid from flags ------------------------------ */

typedef struct {
    const char *flag;
    const char *key;
} flag_key;

static const flag_key GRID_FLAGS[] = {
    {"--filter", "filter"}, {"--hash", "hash"},       {"--scheme", "scheme"}, {"--keys", "keys"},
    {"--m", "m"},           {"--bits-per-item", "bits_per_item"},             {"--n", "n"},
    {"--k", "k"},           {"--trials", "trials"},   {"--queries", "queries"}, {"--seed", "seed"},
    {"--measure", "measure"}, {"--deletes", "deletes"}};
#define GRID_FLAG_COUNT (sizeof GRID_FLAGS / sizeof GRID_FLAGS[0])

static const char SWEEP_USAGE[] =
    "usage: bloomlab sweep --n LIST (--m LIST | --bits-per-item LIST) [grid flags]\n"
    "                      [-o FILE] [--threads T] [--shard I/N] [--quiet]\n"
    "\n"
    "The keys of an experiment file as flags; CSV to stdout (or -o FILE).\n"
    "Each value may be a list (a,b), a range (1..20, 8..24:2) or a geometric\n"
    "range (1e3..1e9*10); the grid is their product.\n"
    "\n"
    "  --filter  standard|counting|partitioned|blocked512|register64|splitblock\n"
    "  --hash    a name from bloomlab list, or plugin:PATH.so:SYMBOL (default xxh3_64)\n"
    "  --scheme  independent|double|enhanced|course|ideal (default double)\n"
    "  --keys    random64|seq64|urls|words|words:FILE|course (default random64)\n"
    "  --m BITS, --bits-per-item B, --n ITEMS, --k K|opt (default opt)\n"
    "  --trials T (default 10), --queries Q per trial (default 100000)\n"
    "  --seed S (default 1), --measure fpr|delete, --deletes D\n";

static const char THEORY_USAGE[] =
    "usage: bloomlab theory --n LIST (--m LIST | --bits-per-item LIST) [--k LIST]\n"
    "\n"
    "The formulas for a standard filter over the same grid flags as sweep, as\n"
    "CSV: m,n,k,bits_per_item,fpr_classic,fpr_finite,fpr_exact,fill_expected,\n"
    "fill_sd_expected,k_opt,k_opt_int,fpr_optimal.\n";

/* Collect grid settings from argv; returns the count, -1 on a bad flag, -2 for --help. */
static int grid_settings(const char *cmd, int argc, char **argv, setting *out, run_flags *f, int allow_run_flags)
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
            int taken = shared_flag(cmd, argc, argv, &i, f);
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

int cmd_sweep(int argc, char **argv)
{
    run_flags f;
    default_flags(&f);
    setting *settings = calloc((size_t)argc + 1, sizeof *settings);
    int count = grid_settings("sweep", argc, argv, settings, &f, 1);
    if (count == -2) {
        fputs(SWEEP_USAGE, stdout);
        free(settings);
        return 0;
    }
    if (count < 0) {
        free(settings);
        return 2;
    }
    char err[ERR_MAX];
    experiment e;
    if (experiment_from_settings(settings, (size_t)count, "sweep", &e, err, sizeof err) != 0) {
        fprintf(stderr, "bloomlab sweep: %s\n", err);
        free(settings);
        return 2;
    }
    free(settings);
    int rc = run_experiment("sweep", &e, &f, argc, argv);
    experiment_free(&e);
    return rc;
}

int cmd_theory(int argc, char **argv)
{
    run_flags f;
    default_flags(&f);
    setting *settings = calloc((size_t)argc + 2, sizeof *settings);
    int count = grid_settings("theory", argc, argv, settings, &f, 0);
    if (count == -2) {
        fputs(THEORY_USAGE, stdout);
        free(settings);
        return 0;
    }
    char err[ERR_MAX];
    experiment e;
    /* theory runs no trials and asks no queries: one each, so that neither
     * the key sets nor the limit on a cell's work refuse a grid for them */
    if (count >= 0) {
        settings[count++] = (setting){"queries", "1", "theory"};
        settings[count++] = (setting){"trials", "1", "theory"};
    }
    if (count < 0 || experiment_from_settings(settings, (size_t)count, "theory", &e, err, sizeof err) != 0) {
        if (count >= 0)
            fprintf(stderr, "bloomlab theory: %s\n", err);
        free(settings);
        return 2;
    }
    free(settings);
    printf("m,n,k,bits_per_item,fpr_classic,fpr_finite,fpr_exact,fill_expected,fill_sd_expected,k_opt,k_opt_int,fpr_optimal\n");
    for (size_t i = 0; i < e.count; i++) {
        const cell *c = &e.cells[i];
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = e.cells[j].m == c->m && e.cells[j].n == c->n && e.cells[j].k == c->k;
        if (seen)
            continue;
        double bpi = c->n ? (double)c->m / (double)c->n : 0;
        printf("%llu,%llu,%u,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,", (unsigned long long)c->m,
               (unsigned long long)c->n, c->k, bpi, theory_fpr_classic(c->m, c->n, c->k),
               theory_fpr_finite(c->m, c->n, c->k), theory_fpr_exact(c->m, c->n, c->k),
               theory_fill_expected(c->m, c->n, c->k), theory_fill_sd(c->m, c->n, c->k));
        if (c->n)
            printf("%.10g,%u,%.10g\n", theory_k_opt(bpi), theory_k_opt_int(c->m, c->n), theory_fpr_optimal(bpi));
        else
            printf(",%u,\n", theory_k_opt_int(c->m, c->n));
    }
    experiment_free(&e);
    return fflush(stdout) == 0 ? 0 : 1;
}
