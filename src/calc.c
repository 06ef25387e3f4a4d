/* calc.c -- `bloomlab calc`, the sizing calculator (see calc.h). */
#include "calc.h"
#include "numbers.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"
#include "theory.h"

#define CALC_MAX_COUNT 9.2e18 /* n and m stay below 2^63 */
#define LN2_SQUARED 0.480453013918201424667102526326649717

static const char usage[] =
    "usage: bloomlab calc [--n ITEMS] [--p RATE] [--m BITS] [--k HASHES] [--filter LAYOUT]\n"
    "\n"
    "Size a Bloom filter: give any two of\n"
    "  --n ITEMS   items to insert (a whole number >= 1)\n"
    "  --p RATE    target false-positive rate, in (0, 1)\n"
    "  --m BITS    filter size in bits (a whole number >= 1)\n"
    "and optionally\n"
    "  --k HASHES  hash count, 1..64 (default: the integer k with the least exact rate)\n"
    "  --filter    standard (default) or splitblock: Parquet's split-block filter,\n"
    "              k = 8, m in whole 256-bit blocks, sized by its own exact rate\n"
    "Numbers may be written 1e6 or 2^20; --flag=VALUE works too.\n"
    "Prints n, the target p, m in bits and bytes (MB = 1e6 bytes, MiB = 2^20),\n"
    "k, bits per item and the achieved rate, exact and by the classic formula.\n"
    "Example: bloomlab calc --n 1e6 --p 0.01\n";

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

int calc_parse(int argc, char **argv, struct calc_input *in, char *err, size_t err_size)
{
    memset(in, 0, sizeof *in);
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
        if (strcmp(flag, "--n") && strcmp(flag, "--p") && strcmp(flag, "--m") &&
            strcmp(flag, "--k") && strcmp(flag, "--filter")) {
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
        if (strcmp(flag, "--filter") == 0) {
            if (strcmp(value, "splitblock") != 0 && strcmp(value, "standard") != 0) {
                set_error(err, err_size, "%s: '%s' is not a filter calc sizes (standard, splitblock)", flag, value);
                return -1;
            }
            in->splitblock = strcmp(value, "splitblock") == 0;
            continue;
        }
        switch (flag[2]) {
        case 'n':
            if (parse_count(flag, value, &in->n, err, err_size) != 0)
                return -1;
            in->have_n = 1;
            break;
        case 'm':
            if (parse_count(flag, value, &in->m, err, err_size) != 0)
                return -1;
            in->have_m = 1;
            break;
        case 'p': {
            double p;
            if (calc_number(value, &p) != 0) {
                set_error(err, err_size, "%s: %s is not a number", flag, value);
                return -1;
            }
            if (!(p > 0 && p < 1)) {
                set_error(err, err_size, "%s: %s is not a probability in (0, 1)", flag, value);
                return -1;
            }
            in->p = p;
            in->have_p = 1;
            break;
        }
        default: { /* 'k' */
            double k;
            if (calc_number(value, &k) != 0) {
                set_error(err, err_size, "%s: %s is not a number", flag, value);
                return -1;
            }
            if (k < 1 || k > 64 || k != floor(k)) {
                set_error(err, err_size, "%s: %s is not a whole number in 1..64", flag, value);
                return -1;
            }
            in->k = (unsigned)k;
            in->have_k = 1;
            break;
        }
        }
    }
    return 0;
}

/* ln(1 - p^(1/k)): the log of the fraction of bits left clear when k
 * hashes give the classic rate p. */
static double log_clear_fraction(double p, unsigned k)
{
    return log1p(-exp(log(p) / k));
}

#define SPLIT_BLOCK_BITS 256ULL

static uint64_t whole_blocks_bits(uint64_t m)
{
    return m <= SPLIT_BLOCK_BITS ? SPLIT_BLOCK_BITS : (m + SPLIT_BLOCK_BITS - 1) / SPLIT_BLOCK_BITS * SPLIT_BLOCK_BITS;
}

/* The most items m bits (whole blocks) hold at an exact rate <= p; 0 when
 * not even one.  The rate rises with every item: double, then bisect. */
static uint64_t splitblock_max_items(uint64_t m, double p)
{
    if (theory_fpr_splitblock(m, 1, 1) > p)
        return 0;
    uint64_t meet = 1, fail = 2;
    while (theory_fpr_splitblock(m, fail, 1) <= p) {
        meet = fail;
        if (fail > (uint64_t)(CALC_MAX_COUNT / 2))
            return meet;
        fail *= 2;
    }
    while (fail - meet > 1) {
        uint64_t mid = meet + (fail - meet) / 2;
        if (theory_fpr_splitblock(m, mid, 1) <= p)
            meet = mid;
        else
            fail = mid;
    }
    return meet;
}

/* calc_solve for --filter splitblock (k = 8, the exact split-block rate). */
static int solve_splitblock(const struct calc_input *in, struct calc_result *out, char *err, size_t err_size)
{
    if (in->have_k && in->k != 8) {
        set_error(err, err_size, "--k: filter splitblock sets one bit in each of its 8 words: k must be 8, not %u", in->k);
        return -1;
    }
    if (in->have_n && in->have_p) {
        out->n = in->n;
        out->m = sizing_bits(SIZING_BLOOMLAB, in->n, in->p, (uint64_t)CALC_MAX_COUNT);
        if (out->m == 0) {
            set_error(err, err_size, "--n: %llu items at p %g need more than 2^63 bits", (unsigned long long)in->n, in->p);
            return -1;
        }
    } else if (in->have_m && in->have_p) {
        out->m = whole_blocks_bits(in->m);
        out->n = splitblock_max_items(out->m, in->p);
        if (out->n == 0) {
            set_error(err, err_size, "--m: %llu bits hold no item at p %g", (unsigned long long)in->m, in->p);
            return -1;
        }
    } else {
        out->n = in->n;
        out->m = whole_blocks_bits(in->m);
    }
    out->k = 8;
    out->bytes = out->m / 8;
    out->bits_per_item = (double)out->m / (double)out->n;
    out->p_exact = theory_fpr_splitblock(out->m, out->n, 1);
    out->p_classic = theory_fpr_classic(out->m, out->n, 8);
    return 0;
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
    out->k_given = in->have_k;
    out->have_p_target = in->have_p;
    out->p_target = in->p;
    out->splitblock = in->splitblock;
    if (in->splitblock)
        return solve_splitblock(in, out, err, err_size);
    if (in->have_n && in->have_p) {
        double bits = in->have_k ? -(double)in->k * (double)in->n / log_clear_fraction(in->p, in->k)
                                 : (double)in->n * -log(in->p) / LN2_SQUARED;
        bits = ceil(bits * (1 - 1e-15)); /* no extra bit from rounding noise */
        if (!(bits <= CALC_MAX_COUNT)) {
            set_error(err, err_size, "--n: %llu items at p %g need more than 2^63 bits",
                      (unsigned long long)in->n, in->p);
            return -1;
        }
        out->n = in->n;
        out->m = bits < 1 ? 1 : (uint64_t)bits;
    } else if (in->have_m && in->have_p) {
        double items = in->have_k ? -(double)in->m * log_clear_fraction(in->p, in->k) / in->k
                                  : (double)in->m * LN2_SQUARED / -log(in->p);
        items = floor(items * (1 + 1e-15));
        if (items < 1) {
            set_error(err, err_size, "--m: %llu bits hold no item at p %g",
                      (unsigned long long)in->m, in->p);
            return -1;
        }
        out->m = in->m;
        out->n = (uint64_t)items;
    } else {
        out->n = in->n;
        out->m = in->m;
    }
    out->k = in->have_k ? in->k : theory_k_opt_int(out->m, out->n);
    out->bytes = out->m / 8 + (out->m % 8 != 0);
    out->bits_per_item = (double)out->m / (double)out->n;
    out->p_exact = theory_fpr_exact(out->m, out->n, out->k);
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

static void calc_print(FILE *out, const struct calc_result *r)
{
    char decimal[32], binary[32];
    calc_human_bytes((double)r->bytes, 0, decimal, sizeof decimal);
    calc_human_bytes((double)r->bytes, 1, binary, sizeof binary);
    if (r->splitblock)
        fprintf(out, "%-22s %s\n", "filter", "splitblock (k = 8, whole 256-bit blocks)");
    fprintf(out, "%-22s %llu\n", "n (items)", (unsigned long long)r->n);
    if (r->have_p_target)
        fprintf(out, "%-22s %.6g\n", "p target", r->p_target);
    else
        fprintf(out, "%-22s %s\n", "p target", "-");
    fprintf(out, "%-22s %llu\n", "m (bits)", (unsigned long long)r->m);
    fprintf(out, "%-22s %llu (%s, %s)\n", "m (bytes)", (unsigned long long)r->bytes, decimal,
            binary);
    fprintf(out, "%-22s %u (%s)\n", "k (hashes)", r->k, r->splitblock ? "the layout's" : r->k_given ? "given" : "optimal");
    fprintf(out, "%-22s %.2f\n", "bits per item", r->bits_per_item);
    fprintf(out, "%-22s %.6g\n", "p achieved (exact)", r->p_exact);
    fprintf(out, "%-22s %.6g\n", "p achieved (classic)", r->p_classic);
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
    if (rc != 0 || calc_solve(&in, &result, err, sizeof err) != 0) {
        fprintf(stderr, "bloomlab calc: %s\n", err);
        return 2;
    }
    calc_print(stdout, &result);
    return 0;
}
