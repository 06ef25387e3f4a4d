/* theory.c -- `bloomlab theory`: the formulas over the grid flags of sweep,
 * each layout's own beside the standard filter's. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "commands/engine_flags.h"
#include "harness/cli.h"
#include "harness/experiment.h"
#include "harness/output.h"
#include "harness/table.h"
#include "model/model.h"
#include "model/theory.h"

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
    engine_default_flags(&f);
    const char *output = NULL;
    table_format format = FORMAT_CSV;
    char **kept = calloc((size_t)argc + 1, sizeof *kept);
    int kept_count = theory_flags(argc, argv, kept, &output, &format);
    setting *settings = calloc((size_t)argc + 2, sizeof *settings);
    int count = kept_count < 0 ? -1 : engine_grid_settings("theory", kept_count, kept, settings, &f, 0);
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
