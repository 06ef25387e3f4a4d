/* run.c -- the commands around the sweep engine: run, sweep, theory, merge. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli.h"
#include "commands/commands.h"
#include "harness/experiment.h"
#include "model/model.h"
#include "base/numbers.h"
#include "harness/output.h"
#include "harness/sweep.h"
#include "harness/table.h"
#include "model/theory.h"

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
    int inputs_only; /* --inputs: print the `# inputs:` line and run nothing */
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
    } else if (strcmp(a, "--inputs") == 0) {
        f->inputs_only = 1;
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
    sweep_options opt = {output_is_stdout(f->output) ? NULL : f->output, command, f->threads, f->shard_index, f->shard_count, f->quiet, !f->fresh,
                         f->inputs_only};
    (void)cmd;
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

static void default_flags(run_flags *f)
{
    memset(f, 0, sizeof *f);
    f->scale = "quick";
    f->threads = usable_cores();
    f->shard_index = f->shard_count = 1;
}

/* results/STEM.csv for an experiment file (its stem, not its name key:
 * the Makefile's rules expect experiments/X.ini to make results/X.csv), or
 * for one read from stdin, its name. */
static void default_output(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    snprintf(out, size, "results/%.*s.csv", (int)(dot ? dot - base : (long)strlen(base)), base);
}

/* An experiment read from stdin has no file name: its name key names it,
 * else the stem of -o FILE; with neither it is refused (exit 2), since its
 * rows and its default output both need a name.  0, or -1 after one line. */
static int name_stdin_experiment(experiment *e, const char *output)
{
    if (e->name[0] != '\0')
        return 0;
    if (output_is_stdout(output)) {
        cli_error("run", "stdin: the experiment has no name: give name = NAME in its [experiment] section, "
                         "or -o FILE (its stem names it)");
        return -1;
    }
    char err[ERR_MAX];
    if (experiment_name_from_path(e, output, err, sizeof err) != 0) {
        cli_error("run", "-o: %s", err);
        return -1;
    }
    return 0;
}

static const char RUN_USAGE[] =
    "usage: bloomlab run EXPERIMENT.ini|- [-o FILE|-] [--threads T] [--scale quick|full]\n"
    "                    [--shard I/N] [--quiet] [--fresh] [--inputs]\n"
    "\n"
    "Runs every cell of an experiment file and writes tidy CSV (default\n"
    "results/NAME.csv, NAME the file's stem).  An interrupted run keeps its\n"
    "finished cells and the next run resumes from them (--fresh starts over).\n"
    "An output whose '# inputs:' line matches this run's (the experiment's\n"
    "cells, seed, scale, shard and the code's results version) is current:\n"
    "it is left untouched (--fresh remakes it).\n"
    "The file - is standard input: the experiment is named by its name key\n"
    "(results/NAME.csv), else by the stem of -o FILE.\n"
    "\n"
    "  -o FILE          where the CSV goes; -o - is standard output (always run:\n"
    "                   there is no file to compare; progress stays on stderr)\n"
    "  --threads T      OpenMP threads (default: all cores)\n"
    "  --scale S        quick (default) or full: picks KEY.quick / KEY.full values\n"
    "  --shard I/N      run only cells i with i mod N = I-1; bloomlab merge joins shards\n"
    "  --quiet          no progress line on stderr\n"
    "  --fresh          ignore the journal and a current output: run every cell\n"
    "  --inputs         print the '# inputs:' line this run would write; run nothing\n";

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
        if (argv[i][0] == '-' && argv[i][1] != '\0') { /* "-" alone is stdin */
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
    if (name_stdin_experiment(&e, f.output) != 0) {
        experiment_free(&e);
        return 2;
    }
    if (f.output == NULL) {
        default_output(strcmp(path, "-") == 0 ? e.name : path, output, sizeof output);
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
    {"--seeds", "seeds"},
    {"--measure", "measure"}, {"--deletes", "deletes"}, {"--sizing", "sizing"}, {"--p", "p"},
    {"--expected-n", "expected_n"}};
#define GRID_FLAG_COUNT (sizeof GRID_FLAGS / sizeof GRID_FLAGS[0])

static const char SWEEP_USAGE[] =
    "usage: bloomlab sweep --n LIST (--m LIST | --bits-per-item LIST | --sizing LIST --p LIST)\n"
    "                      [grid flags]\n"
    "                      [-o FILE] [--threads T] [--shard I/N] [--quiet]\n"
    "\n"
    "The keys of an experiment file as flags; CSV to stdout (or -o FILE; -o -\n"
    "is stdout too).\n"
    "Each value may be a list (a,b), a range (1..20, 8..24:2) or a geometric\n"
    "range (1e3..1e9*10); the grid is their product.\n"
    "\n"
    "  --filter  standard|counting|partitioned|blocked512|register64|splitblock, or\n"
    "            plugin:PATH.so, a filter of your own (bloomlab/filter.h; it hashes\n"
    "            keys itself: its rows say hash own, scheme own)\n"
    "  --hash    a name from bloomlab list, or plugin:PATH.so:SYMBOL (default xxh3_64)\n"
    "  --scheme  independent|double|enhanced|course|ideal|parquet|multiply|default\n"
    "            (default: each layout's own, multiply on blocked512 and register64,\n"
    "            double on the others)\n"
    "  --keys    random64|seq64|urls|words|words:FILE|words:-|course (default random64;\n"
    "            words:- reads the words from stdin)\n"
    "  --m BITS, --bits-per-item B, --n ITEMS, --k K|opt (default opt)\n"
    "  --trials T (default 10), --queries Q per trial (default 100000)\n"
    "  --seed S (default 1), --seeds paired|independent (default paired: every cell\n"
    "            sees the same keys; independent: each cell its own), --measure fpr|delete,\n"
    "  --deletes D\n"
    "  --sizing  parquet-classic|parquet-classic-nopow2|arrow-rs|arrow-rs-nopow2|\n"
    "            bloomlab|bloomlab-pow2: a split-block filter sized by the rule\n"
    "            for n items at each --p RATE (instead of --m)\n"
    "  --expected-n N  a plugin filter's create is told to expect N items (default:\n"
    "            the cell's n), so a filter made for N can be loaded with other n\n";

static const char THEORY_USAGE[] =
    "usage: bloomlab theory --n LIST (--m LIST | --bits-per-item LIST) [--k LIST]\n"
    "                       [--filter LIST] [-o FILE] [--format csv|text|json]\n"
    "\n"
    "The formulas over the same grid flags as sweep, for each layout of --filter\n"
    "(default standard), one row per (filter, m, n, k): m,n,k,bits_per_item,\n"
    "fpr_classic,fpr_finite (the standard filter's), fpr_exact (the layout's own),\n"
    "fill_expected,fill_sd_expected,k_opt ((m/n) ln 2),k_opt_int (the layout's best\n"
    "integer k: least exact rate, ties to the smaller),fpr_optimal, then filter,\n"
    "k_status (optimal, capped at 64, or fixed), fpr_at_k_best, fpr_var (Var F of one\n"
    "built filter's rate).  --k defaults to each layout's best.  CSV by default;\n"
    "text aligns the columns, json writes an array of objects.  -o FILE writes\n"
    "the file whole (a temporary file renamed), else (or -o -) stdout.\n"
    "README.md \"Formats\" gives the JSON's shape.\n";

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

/* ---- theory ---------------------------------------------------------------- */

#define THEORY_COLUMNS 16
static const table_column THEORY_TABLE[THEORY_COLUMNS] = {
    {"m", COLUMN_NUMBER},           {"n", COLUMN_NUMBER},
    {"k", COLUMN_NUMBER},           {"bits_per_item", COLUMN_NUMBER},
    {"fpr_classic", COLUMN_NUMBER}, {"fpr_finite", COLUMN_NUMBER},
    {"fpr_exact", COLUMN_NUMBER},   {"fill_expected", COLUMN_NUMBER},
    {"fill_sd_expected", COLUMN_NUMBER}, {"k_opt", COLUMN_NUMBER},
    {"k_opt_int", COLUMN_NUMBER},   {"fpr_optimal", COLUMN_NUMBER},
    {"filter", COLUMN_TEXT},        {"k_status", COLUMN_TEXT},
    {"fpr_at_k_best", COLUMN_NUMBER}, {"fpr_var", COLUMN_NUMBER}};

#define THEORY_FIELD 32
#define THEORY_DIGITS 10

/* One row's fields as text ("" for a value that does not exist). */
typedef struct {
    char field[THEORY_COLUMNS][THEORY_FIELD];
} theory_row;

static void field_real(char *out, double v) { table_real(out, THEORY_FIELD, v, THEORY_DIGITS); }

static void theory_row_for(const cell *c, theory_row *row)
{
    double bpi = c->n ? (double)c->m / (double)c->n : NAN;
    layout_model lm = model_for(c->layout, c->m, c->n, c->k);
    k_status status;
    double at_best;
    unsigned best = model_k_best(c->layout, c->m, c->n, &status, &at_best);
    snprintf(row->field[0], THEORY_FIELD, "%llu", (unsigned long long)c->m);
    snprintf(row->field[1], THEORY_FIELD, "%llu", (unsigned long long)c->n);
    snprintf(row->field[2], THEORY_FIELD, "%u", c->k);
    field_real(row->field[3], bpi);
    field_real(row->field[4], theory_fpr_classic(c->m, c->n, c->k));
    field_real(row->field[5], theory_fpr_finite(c->m, c->n, c->k));
    field_real(row->field[6], lm.exact);
    field_real(row->field[7], lm.fill_expected);
    field_real(row->field[8], lm.fill_sd_expected);
    field_real(row->field[9], c->n ? theory_k_opt(bpi) : NAN);
    snprintf(row->field[10], THEORY_FIELD, "%u", best);
    field_real(row->field[11], c->n ? theory_fpr_optimal(bpi) : NAN);
    snprintf(row->field[12], THEORY_FIELD, "%s", layout_name(c->layout));
    snprintf(row->field[13], THEORY_FIELD, "%s", k_status_name(status));
    field_real(row->field[14], at_best);
    field_real(row->field[15], lm.variance);
}

/* theory's own flags (-o, --format) out of argv; the rest stay for the
 * grid.  Returns the count left in kept, or -1 after reporting. */
static int theory_flags(int argc, char **argv, char **kept, const char **output, table_format *format)
{
    int count = 0;
    kept[count++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int is_output = !strcmp(a, "-o") || !strncmp(a, "-o=", 3) || !strcmp(a, "--output") || !strncmp(a, "--output=", 9);
        int is_format = !strcmp(a, "--format") || !strncmp(a, "--format=", 9);
        if (!is_output && !is_format) {
            kept[count++] = argv[i];
            continue;
        }
        const char *flag = is_format ? "--format" : a[1] == 'o' ? "-o" : "--output";
        if ((v = cli_flag_value(argc, argv, &i, "theory", flag)) == NULL)
            return -1;
        if (is_output) {
            *output = v;
            continue;
        }
        if (table_format_flag("theory", v, format) != 0)
            return -1;
    }
    return count;
}

/* Cell i repeats an earlier (filter, m, n, k)? */
static int theory_seen(const experiment *e, size_t i)
{
    const cell *c = &e->cells[i];
    for (size_t j = 0; j < i; j++) {
        const cell *d = &e->cells[j];
        if (d->layout == c->layout && d->m == c->m && d->n == c->n && d->k == c->k)
            return 1;
    }
    return 0;
}

int cmd_theory(int argc, char **argv)
{
    run_flags f;
    default_flags(&f);
    const char *output = NULL;
    table_format format = FORMAT_CSV;
    char **kept = calloc((size_t)argc + 1, sizeof *kept);
    int kept_count = theory_flags(argc, argv, kept, &output, &format);
    setting *settings = calloc((size_t)argc + 2, sizeof *settings);
    int count = kept_count < 0 ? -1 : grid_settings("theory", kept_count, kept, settings, &f, 0);
    free(kept);
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
    if (e.plugin_count > 0) { /* its rows would be the standard layout's under another name */
        cli_error("theory", "--filter %s: theory gives the built-in layouts' formulas; measure a filter plugin with sweep or run",
                  e.plugins[0].spec);
        experiment_free(&e);
        return 2;
    }
    table rows;
    table_init(&rows, THEORY_TABLE, THEORY_COLUMNS);
    int out_of_memory = 0;
    for (size_t i = 0; i < e.count && !out_of_memory; i++)
        if (!theory_seen(&e, i)) {
            theory_row row;
            const char *fields[THEORY_COLUMNS];
            theory_row_for(&e.cells[i], &row);
            for (int col = 0; col < THEORY_COLUMNS; col++)
                fields[col] = row.field[col];
            out_of_memory = table_add_row(&rows, fields) != 0;
        }
    char *text = NULL;
    size_t len = 0;
    FILE *buffer = open_memstream(&text, &len);
    if (buffer != NULL) {
        table_write(buffer, &rows, format);
        out_of_memory |= fclose(buffer) != 0;
    }
    table_free(&rows);
    if (buffer == NULL || out_of_memory) {
        cli_error("theory", "out of memory for the table");
        free(text);
        experiment_free(&e);
        return 1;
    }
    int rc = output_write_atomic(output, text, len, "theory") == 0 ? 0 : 1;
    free(text);
    experiment_free(&e);
    return rc;
}
