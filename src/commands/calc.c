/* calc.c -- `bloomlab calc`, the sizing calculator (see calc.h). */
#include "commands/calc.h"
#include "filter/layout.h"
#include "base/numbers.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter_plugin.h"
#include "model/model.h"
#include "model/theory.h"

#define CALC_MAX_COUNT MODEL_COUNT_MAX

static const char usage[] =
    "usage: bloomlab calc [--n ITEMS] [--p RATE] [--m BITS] [--k HASHES] [--filter LAYOUT|plugin:PATH.so]\n"
    "                     [--format text|csv|json]\n"
    "\n"
    "Size a Bloom filter under its layout's own exact formula: give any two of\n"
    "  --n ITEMS   items to insert (a whole number >= 1)\n"
    "  --p RATE    target false-positive rate in (0, 1): 0.01, 1% or \"1 in 100\" (or 1/100)\n"
    "  --m BITS    filter size in bits (counters for counting; rounded up to whole blocks)\n"
    "and optionally\n"
    "  --k HASHES  hash count, 1..64 (default: the layout's best integer k, ties to the smaller)\n"
    "  --filter L  standard (default), counting, partitioned, blocked512, register64, splitblock,\n"
    "              or a filter plugin plugin:PATH.so (bloomlab/filter.h) with --n and --p: its\n"
    "              choose gives its m and k, shown with its own formula's rate (its fpr)\n"
    "              beside each of bloomlab's layouts sized for the same n and p (one row each)\n"
    "  --format F  text (default), csv (a header and one row) or json (one object)\n"
    "n and p give the smallest m whose rate at its best k is at most p; m and p the\n"
    "largest n; m and n the rate and the best k.  Numbers may be written 1e6 or 2^20;\n"
    "--flag=VALUE works too.  k is \"capped\" when the rate still falls at k = 64.\n"
    "Example: bloomlab calc --n 1e6 --p 0.01 --filter blocked512\n";

static void set_error(char *err, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_error(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

int calc_number(const char *text, double *out)
{
    return text != NULL && *text != '\0' ? number_parse(text, out) : -1;
}

/* A whole number in [1, CALC_MAX_COUNT]. */
static int parse_count(const char *flag, const char *text, uint64_t *out, char *err, size_t size)
{
    double value;
    if (calc_number(text, &value) != 0) {
        set_error(err, size, "%s: %s is not a number", flag, text);
        return -1;
    }
    if (value < 1 || value != floor(value) || value > CALC_MAX_COUNT) {
        set_error(err, size, "%s: %s is not a whole number >= 1", flag, text);
        return -1;
    }
    *out = (uint64_t)value;
    return 0;
}

/* "A in B" or "A/B" as A / B; 0, or -1 when text is neither. */
static int parse_ratio(const char *text, double *out)
{
    const char *sep = strstr(text, " in ");
    size_t skip = 4;
    if (sep == NULL) {
        sep = strchr(text, '/');
        skip = 1;
    }
    if (sep == NULL || sep == text || (size_t)(sep - text) >= 64)
        return -1;
    char numerator[64];
    double a, b;
    snprintf(numerator, sizeof numerator, "%.*s", (int)(sep - text), text);
    if (calc_number(numerator, &a) != 0 || calc_number(sep + skip, &b) != 0 || !(b > 0))
        return -1;
    *out = a / b;
    return 0;
}

/* A rate (0.01), a percentage (1%) or a ratio (1 in 100, 1/100). */
static int parse_probability(const char *flag, const char *text, double *out, char *err, size_t size)
{
    size_t len = strlen(text);
    double p;
    int rc;
    if (len > 1 && text[len - 1] == '%' && len < 64) {
        char number[64];
        snprintf(number, sizeof number, "%.*s", (int)(len - 1), text);
        rc = calc_number(number, &p);
        p /= 100;
    } else if (strstr(text, " in ") || strchr(text, '/')) {
        rc = parse_ratio(text, &p);
    } else {
        rc = calc_number(text, &p);
    }
    if (rc != 0) {
        set_error(err, size, "%s: %s is not a number", flag, text);
        return -1;
    }
    if (!(p > 0 && p < 1)) {
        set_error(err, size, "%s: %s is not a probability in (0, 1)", flag, text);
        return -1;
    }
    *out = p;
    return 0;
}

static int parse_hashes(const char *flag, const char *text, unsigned *out, char *err, size_t size)
{
    double k;
    if (calc_number(text, &k) != 0) {
        set_error(err, size, "%s: %s is not a number", flag, text);
        return -1;
    }
    if (k < 1 || k > 64 || k != floor(k)) {
        set_error(err, size, "%s: %s is not a whole number in 1..64", flag, text);
        return -1;
    }
    *out = (unsigned)k;
    return 0;
}

static int parse_format(const char *flag, const char *text, table_format *out, char *err, size_t size)
{
    if (table_format_from_name(text, out) == 0)
        return 0;
    set_error(err, size, "%s: unknown format '%s' (" TABLE_FORMAT_NAMES ")", flag, text);
    return -1;
}

static int parse_layout(const char *flag, const char *text, struct calc_input *in, char *err, size_t size)
{
    in->plugin = NULL;
    if (filter_plugin_named(text)) {
        in->plugin = text;
        return 0;
    }
    if (layout_from_name(text, &in->layout) == 0)
        return 0;
    set_error(err, size, "%s: unknown filter '%s' (standard, counting, partitioned, blocked512, register64, splitblock, plugin:PATH.so)",
              flag, text);
    return -1;
}

static const char *const FLAGS[] = {"--n", "--p", "--m", "--k", "--filter", "--format"};

/* The value of one flag into in; 0 or -1. */
static int parse_flag(const char *flag, const char *value, struct calc_input *in, char *err, size_t size)
{
    if (!strcmp(flag, "--n")) {
        in->have_n = 1;
        return parse_count(flag, value, &in->n, err, size);
    }
    if (!strcmp(flag, "--m")) {
        in->have_m = 1;
        return parse_count(flag, value, &in->m, err, size);
    }
    if (!strcmp(flag, "--p")) {
        in->have_p = 1;
        return parse_probability(flag, value, &in->p, err, size);
    }
    if (!strcmp(flag, "--k")) {
        in->have_k = 1;
        return parse_hashes(flag, value, &in->k, err, size);
    }
    if (!strcmp(flag, "--filter"))
        return parse_layout(flag, value, in, err, size);
    return parse_format(flag, value, &in->format, err, size);
}

int calc_parse(int argc, char **argv, struct calc_input *in, char *err, size_t err_size)
{
    memset(in, 0, sizeof *in);
    in->layout = LAYOUT_STANDARD;
    in->format = FORMAT_TEXT;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char flag[16];
        const char *value;
        const char *eq = strchr(arg, '=');
        size_t flag_len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (strncmp(arg, "--", 2) != 0 || flag_len >= sizeof flag) {
            set_error(err, err_size, "%s: unknown flag (see bloomlab calc --help)", arg);
            return -1;
        }
        memcpy(flag, arg, flag_len);
        flag[flag_len] = 0;
        int known = 0;
        for (size_t f = 0; f < sizeof FLAGS / sizeof FLAGS[0]; f++)
            known |= !strcmp(flag, FLAGS[f]);
        if (!known) {
            set_error(err, err_size, "%s: unknown flag (see bloomlab calc --help)", flag);
            return -1;
        }
        if (eq) {
            value = eq + 1;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            set_error(err, err_size, "%s: missing value", flag);
            return -1;
        }
        if (!*value) {
            set_error(err, err_size, "%s: missing value", flag);
            return -1;
        }
        if (parse_flag(flag, value, in, err, err_size) != 0)
            return -1;
    }
    return 0;
}

/* ---- the searches --------------------------------------------------------- */

/* The largest n whose rate in m bits meets p; 0 when not even one item. */
static uint64_t largest_n(layout_kind layout, uint64_t m, double p, unsigned k)
{
    if (model_rate(layout, m, 1, k, NULL, NULL) > p)
        return 0;
    uint64_t lo = 1, hi = 2; /* lo meets p, hi does not once the doubling stops */
    while (model_rate(layout, m, hi, k, NULL, NULL) <= p) {
        lo = hi;
        if ((double)hi * 2 > CALC_MAX_COUNT)
            return hi;
        hi *= 2;
    }
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (model_rate(layout, m, mid, k, NULL, NULL) <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int calc_solve(const struct calc_input *in, struct calc_result *out, char *err, size_t err_size)
{
    int given = in->have_n + in->have_p + in->have_m;
    memset(out, 0, sizeof *out);
    if (given != 2) {
        set_error(err, err_size, "%s: give exactly two of --n ITEMS, --p RATE, --m BITS",
                  given < 2 ? "missing input" : "too many inputs");
        return -1;
    }
    unsigned k = in->have_k ? in->k : 0;
    const struct layout *l = &LAYOUT_TABLE[in->layout];
    if (l->fixed_k != 0 && k != 0 && k != l->fixed_k) {
        set_error(err, err_size, "--k: %u: filter %s %s: k is %u", k, l->name, l->fixed_k_why, l->fixed_k);
        return -1;
    }
    out->layout = in->layout;
    out->have_p_target = in->have_p;
    out->p_target = in->p;
    if (in->have_n && in->have_p) {
        out->n = in->n;
        out->m = model_smallest_m(in->layout, in->n, in->p, k, NULL);
        if (out->m == 0) {
            set_error(err, err_size, "--n: %llu items at p %g need more than 2^63 bits",
                      (unsigned long long)in->n, in->p);
            return -1;
        }
    } else if (in->have_m && in->have_p) {
        out->m = layout_fit_m(in->layout, in->m);
        out->n = largest_n(in->layout, out->m, in->p, k);
        if (out->n == 0) {
            set_error(err, err_size, "--m: %llu bits hold no item at p %g",
                      (unsigned long long)in->m, in->p);
            return -1;
        }
    } else {
        out->n = in->n;
        out->m = layout_fit_m(in->layout, in->m);
    }
    out->p_exact = model_rate(in->layout, out->m, out->n, k, &out->k, &out->k_status);
    out->memory_bits = layout_memory_bits(in->layout, out->m);
    out->bytes = out->memory_bits / 8 + (out->memory_bits % 8 != 0);
    out->bits_per_item = (double)out->m / (double)out->n;
    out->p_classic = theory_fpr_classic(out->m, out->n, out->k);
    return 0;
}

void calc_human_bytes(double bytes, int binary, char *buf, size_t size)
{
    static const char *const decimal_units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    static const char *const binary_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const char *const *units = binary ? binary_units : decimal_units;
    double base = binary ? 1024 : 1000;
    unsigned unit = 0;
    while (unit < 6 && bytes >= base * (1 - 0.5e-3)) { /* 999.9995 kB prints as 1.00 MB */
        bytes /= base;
        unit++;
    }
    if (unit == 0)
        snprintf(buf, size, "%.0f B", bytes);
    else
        snprintf(buf, size, "%.2f %s", bytes, units[unit]);
}

/* "0.01 (1%, 1 in 100)" */
static void rate_text(double p, char *buf, size_t size)
{
    if (p > 0)
        snprintf(buf, size, "%.6g (%.4g%%, 1 in %.6g)", p, 100 * p, 1 / p);
    else
        snprintf(buf, size, "0");
}

static void write_text(FILE *out, const struct calc_result *r)
{
    char decimal[32], binary[32], rate[96];
    calc_human_bytes((double)r->bytes, 0, decimal, sizeof decimal);
    calc_human_bytes((double)r->bytes, 1, binary, sizeof binary);
    fprintf(out, "%-22s %s\n", "filter", layout_name(r->layout));
    fprintf(out, "%-22s %llu\n", "n (items)", (unsigned long long)r->n);
    rate_text(r->p_target, rate, sizeof rate);
    fprintf(out, "%-22s %s\n", "p target", r->have_p_target ? rate : "-");
    fprintf(out, "%-22s %llu\n", layout_cell_bits(r->layout) == 4 ? "m (4-bit counters)" : "m (bits)",
            (unsigned long long)r->m);
    fprintf(out, "%-22s %llu bits = %llu bytes (%s, %s)\n", "memory", (unsigned long long)r->memory_bits,
            (unsigned long long)r->bytes, decimal, binary);
    fprintf(out, "%-22s %u (%s)\n", "k (hashes)", r->k, r->k_status);
    fprintf(out, "%-22s %.2f\n", "bits per item", r->bits_per_item);
    rate_text(r->p_exact, rate, sizeof rate);
    fprintf(out, "%-22s %s\n", "p achieved (exact)", rate);
    fprintf(out, "%-22s %.6g\n", "p classic formula", r->p_classic);
}

static const table_column CALC_COLUMNS[] = {
    {"filter", COLUMN_TEXT},         {"n", COLUMN_NUMBER},           {"p_target", COLUMN_NUMBER},
    {"m", COLUMN_NUMBER},            {"memory_bits", COLUMN_NUMBER}, {"memory_bytes", COLUMN_NUMBER},
    {"k", COLUMN_NUMBER},            {"k_status", COLUMN_TEXT},      {"bits_per_item", COLUMN_NUMBER},
    {"p", COLUMN_NUMBER},            {"p_percent", COLUMN_NUMBER},   {"p_one_in", COLUMN_NUMBER},
    {"p_classic", COLUMN_NUMBER}};
#define CALC_COLUMN_COUNT (sizeof CALC_COLUMNS / sizeof CALC_COLUMNS[0])
#define CALC_FIELD (FILTER_PLUGIN_SPEC_MAX + 8) /* the filter column holds a plugin's spec */
#define CALC_DIGITS 10

/* The result as one row of CALC_COLUMNS' fields ("" where none exists:
 * no target p, or 1 in 1/0). */
static void result_fields(const struct calc_result *r, char field[][CALC_FIELD])
{
    snprintf(field[0], CALC_FIELD, "%s", r->filter ? r->filter : layout_name(r->layout));
    snprintf(field[1], CALC_FIELD, "%llu", (unsigned long long)r->n);
    table_real(field[2], CALC_FIELD, r->have_p_target ? r->p_target : NAN, CALC_DIGITS);
    snprintf(field[3], CALC_FIELD, "%llu", (unsigned long long)r->m);
    snprintf(field[4], CALC_FIELD, "%llu", (unsigned long long)r->memory_bits);
    snprintf(field[5], CALC_FIELD, "%llu", (unsigned long long)r->bytes);
    snprintf(field[6], CALC_FIELD, "%u", r->k);
    snprintf(field[7], CALC_FIELD, "%s", r->k_status);
    table_real(field[8], CALC_FIELD, r->bits_per_item, CALC_DIGITS);
    table_real(field[9], CALC_FIELD, r->p_exact, CALC_DIGITS);
    table_real(field[10], CALC_FIELD, 100 * r->p_exact, CALC_DIGITS);
    table_real(field[11], CALC_FIELD, 1 / r->p_exact, CALC_DIGITS);
    table_real(field[12], CALC_FIELD, r->p_classic, CALC_DIGITS);
}

/* CSV: the header and one row; JSON: one object (a calculation is one
 * result, not a list). */
/* The results as rows of CALC_COLUMNS: 0, or -1 out of memory (t freed,
 * one line said). */
static int results_table(const struct calc_result *r, size_t count, table *t)
{
    char field[CALC_COLUMN_COUNT][CALC_FIELD];
    const char *fields[CALC_COLUMN_COUNT];
    table_init(t, CALC_COLUMNS, CALC_COLUMN_COUNT);
    for (size_t row = 0; row < count; row++) {
        result_fields(&r[row], field);
        for (size_t i = 0; i < CALC_COLUMN_COUNT; i++)
            fields[i] = field[i];
        if (table_add_row(t, fields) != 0) {
            table_free(t);
            fputs("bloomlab calc: out of memory\n", stderr);
            return -1;
        }
    }
    return 0;
}

static void write_table(FILE *out, const struct calc_result *r, table_format format)
{
    table t;
    if (results_table(r, 1, &t) != 0)
        return;
    if (format == FORMAT_JSON) {
        table_write_json_object(out, &t, 0);
        fputc('\n', out);
    } else {
        table_write(out, &t, FORMAT_CSV);
    }
    table_free(&t);
}

void calc_write(FILE *out, const struct calc_result *r, table_format format)
{
    if (format == FORMAT_TEXT)
        write_text(out, r);
    else
        write_table(out, r, format);
}

/* ---- a filter plugin: its choose beside the layouts ----------------------- */

/* The plugin's row: its choose at n and p, its fpr (NaN without one).  0,
 * or -1 with the message in err. */
static int plugin_result(const struct calc_input *in, struct calc_result *out, char *err, size_t size)
{
    filter_plugin p;
    char why[2048];
    if (filter_plugin_resolve(in->plugin, &p, why, sizeof why) != 0) {
        set_error(err, size, "--filter: %s", why);
        return -1;
    }
    if (!in->have_n || !in->have_p || in->have_m || in->have_k) {
        set_error(err, size, "--filter: %s: a plugin picks its own m and k (its choose) from --n and --p: give those two, "
                  "not --m or --k", in->plugin);
        return -1;
    }
    if (p.api->choose == NULL) {
        set_error(err, size, "--filter: %s ('%s') has no choose: it cannot say the m and k it would take for n and p",
                  in->plugin, p.api->name);
        return -1;
    }
    memset(out, 0, sizeof *out);
    if (p.api->choose(in->n, in->p, &out->m, &out->k) != 0 || out->m == 0 || out->k < 1 || out->k > 64) {
        set_error(err, size, "--filter: %s ('%s'): its choose cannot meet p = %g at n = %llu", in->plugin, p.api->name,
                  in->p, (unsigned long long)in->n);
        return -1;
    }
    out->filter = in->plugin;
    out->n = in->n;
    out->have_p_target = 1;
    out->p_target = in->p;
    out->k_status = "chosen";
    out->memory_bits = out->m;
    out->bytes = out->m / 8 + (out->m % 8 != 0);
    out->bits_per_item = (double)out->m / (double)out->n;
    out->p_exact = p.api->fpr ? p.api->fpr(out->m, out->n, out->k) : NAN;
    out->p_classic = theory_fpr_classic(out->m, out->n, out->k);
    return 0;
}

/* The plugin's row, then each layout's for the same n and p: 0, 2 bad
 * input (one line), 1 out of memory or a failed write. */
static int calc_plugin(const struct calc_input *in)
{
    struct calc_result r[1 + LAYOUT_COUNT];
    char err[2400];
    if (plugin_result(in, &r[0], err, sizeof err) != 0) {
        fprintf(stderr, "bloomlab calc: %s\n", err);
        return 2;
    }
    for (int l = 0; l < LAYOUT_COUNT; l++) {
        struct calc_input layout_in = *in;
        layout_in.plugin = NULL;
        layout_in.layout = (layout_kind)l;
        if (calc_solve(&layout_in, &r[1 + l], err, sizeof err) != 0) {
            fprintf(stderr, "bloomlab calc: %s: %s\n", layout_name((layout_kind)l), err);
            return 2;
        }
    }
    table t;
    if (results_table(r, 1 + LAYOUT_COUNT, &t) != 0)
        return 1;
    table_write(stdout, &t, in->format);
    table_free(&t);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "bloomlab calc: cannot write standard output: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}

int cmd_calc(int argc, char **argv)
{
    struct calc_input in;
    struct calc_result result;
    char err[256];
    int rc = calc_parse(argc, argv, &in, err, sizeof err);
    if (rc == 1) {
        fputs(usage, stdout);
        return 0;
    }
    if (rc == 0 && in.plugin != NULL)
        return calc_plugin(&in);
    if (rc != 0 || calc_solve(&in, &result, err, sizeof err) != 0) {
        fprintf(stderr, "bloomlab calc: %s\n", err);
        return 2;
    }
    calc_write(stdout, &result, in.format);
    return 0;
}
