/* uniformity.c -- the chi-square test of bit positions; see uniformity.h. */
#define _POSIX_C_SOURCE 200809L
#include "commands/uniformity.h"
#include "base/strbuf.h"
#include "base/clock.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/cli.h"
#include "commands/commands.h"
#include "filter/filters.h"
#include "base/numbers.h"
#include "harness/output.h"
#include "model/stats.h"
#include "base/version.h"

#define CMD "uniformity"
#define ERR_MAX 1024
#define NAMES_MAX 64
#define M_MAX (1ULL << 26)  /* 512 MB of counters: far past any useful m */
#define N_MAX 1e10
#define EXPECTED_MIN 5.0    /* Pearson's chi-square needs about 5 per bucket */
/* Keys are made in chunks of this many batches, outside the clock, so that
 * ns_per_key times hashing and positions only; a chunk stays in L2. */
#define CHUNK_BATCHES 64

double uniformity_alpha(void) { return erfc(5.0 / sqrt(2.0)); }

const char *uniformity_flag(double p_value)
{
    double alpha = uniformity_alpha();
    if (p_value < alpha)
        return "nonuniform";
    if (p_value > 1.0 - alpha)
        return "too_uniform";
    return "ok";
}

/* Count the k positions of every key of one batch. */
static void count_batch(scheme_kind scheme, const scheme_ctx *ctx, const key_batch *batch, uint64_t m,
                        unsigned k, uint64_t *counts)
{
    for (size_t j = 0; j < batch->count; j++) {
        probe p;
        probe_start(scheme, ctx, &p, batch->ptr[j], batch->len[j], batch->id[j]);
        for (unsigned i = 0; i < k; i++)
            counts[probe_position(scheme, ctx, &p, m)]++;
    }
}

int uniformity_measure(const hasher *hash, scheme_kind scheme, const keyset *keys, uint64_t m,
                       uint64_t n, unsigned k, uint64_t seed, uniformity_result *out)
{
    uint64_t *counts = calloc(m, sizeof *counts);
    key_batch *chunk = malloc(CHUNK_BATCHES * sizeof *chunk);
    if (counts == NULL || chunk == NULL) {
        free(counts);
        free(chunk);
        return -1;
    }
    uint64_t trial_seed = seed_derive(seed, 0); /* a sweep's first trial */
    scheme_ctx ctx = {scheme == SCHEME_IDEAL ? NULL : hash, trial_seed, log2_floor(m)};
    double seconds = 0;
    for (uint64_t first = 0; first < n;) {
        size_t batches = 0;
        for (; batches < CHUNK_BATCHES && first < n; batches++) {
            size_t count = n - first < KEY_BATCH ? (size_t)(n - first) : KEY_BATCH;
            keyset_fill(keys, trial_seed, n, KEY_PRESENT, first, count, &chunk[batches]);
            first += count;
        }
        double t0 = now_seconds();
        for (size_t b = 0; b < batches; b++)
            count_batch(scheme, &ctx, &chunk[b], m, k, counts);
        seconds += now_seconds() - t0;
    }
    double expected = (double)n * k / (double)m, chi2 = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint64_t j = 0; j < m; j++) {
        double d = (double)counts[j] - expected;
        chi2 += d * d / expected;
        lo = counts[j] < lo ? counts[j] : lo;
        hi = counts[j] > hi ? counts[j] : hi;
    }
    out->chi2 = chi2;
    out->dof = (double)(m - 1);
    out->p_value = stats_chi2_sf(chi2, out->dof);
    out->count_min = lo;
    out->count_max = hi;
    out->ns_per_key = 1e9 * seconds / (double)n;
    free(counts);
    free(chunk);
    return 0;
}

/* ---- the command -------------------------------------------------------- */

static const char USAGE[] =
    "usage: bloomlab uniformity [--hash LIST] [--scheme LIST] [--keys LIST]\n"
    "                           [--m LIST] [--n LIST] [--k LIST] [--seed S] [-o FILE]\n"
    "\n"
    "A chi-square test of bit-position uniformity: hash n keys through a scheme,\n"
    "reduce each of the k positions of every key into m buckets as a standard\n"
    "filter of m bits would, and test the n*k counts against uniform\n"
    "(dof = m - 1).  The keys are those of a sweep's first trial.  One CSV row\n"
    "per combination (to stdout, or -o FILE; -o - is stdout):\n"
    "  hash,scheme,keys,m,n,k,chi2,dof,p_value,flag,count_min,count_max,ns_per_key\n"
    "flag: nonuniform when p < 5.73e-7 = erfc(5/sqrt 2), the two-sided 5-sigma\n"
    "tail; too_uniform when p > 1 - 5.73e-7 (a counter, not a hash); else ok.\n"
    "ns_per_key times hashing and positions only (keys are made outside the\n"
    "clock); it is the only column that varies between runs.  Exit status 1\n"
    "when any row is flagged (after writing them all).\n"
    "\n"
    "  --hash    names from bloomlab list, or plugin:PATH.so:SYMBOL (default xxh3_64)\n"
    "  --scheme  independent|double|enhanced|course|ideal (default double);\n"
    "            ideal ignores --hash and gives one row with hash = ideal\n"
    "  --keys    random64|seq64|urls|words|words:FILE|course (default random64)\n"
    "  --m       buckets, 2..2^26 (default 1024; a power of two for course)\n"
    "  --n       keys (default 100000); n*k/m must be at least 5\n"
    "  --k       positions per key, 1..64 (default 7)\n"
    "  --seed    the trial seed's base, as in experiment files (default 1)\n";

typedef struct {
    const char *hash, *scheme, *keys, *m, *n, *k, *seed, *output;
} uniformity_flags;

typedef struct {
    hasher *hashes;
    size_t hash_count;
    scheme_kind schemes[SCHEME_COUNT];
    size_t scheme_count;
    keyset *keysets[NAMES_MAX];
    size_t keyset_count;
    number_list m, n, k;
    uint64_t seed;
} uniformity_grid;

static void grid_free(uniformity_grid *g)
{
    free(g->hashes);
    for (size_t i = 0; i < g->keyset_count; i++)
        keyset_close(g->keysets[i]);
    number_list_free(&g->m);
    number_list_free(&g->n);
    number_list_free(&g->k);
}

/* Split a comma list in place, trimming blanks; the count, or -1 for an empty item. */
static int split_names(char *text, char **out, size_t max)
{
    int count = 0;
    char *p = text;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma != NULL)
            *comma = '\0';
        while (isspace((unsigned char)*p))
            p++;
        char *end = p + strlen(p);
        while (end > p && isspace((unsigned char)end[-1]))
            *--end = '\0';
        if (*p == '\0' || (size_t)count == max)
            return -1;
        out[count++] = p;
        if (comma == NULL)
            return count;
        p = comma + 1;
    }
}

static int names_of(const char *flag, const char *value, char *copy, size_t size, char **items)
{
    snprintf(copy, size, "%s", value);
    int count = split_names(copy, items, NAMES_MAX);
    if (count < 0)
        cli_error(CMD, "%s: '%s' is not a comma list of at most %d names", flag, value, NAMES_MAX);
    return count;
}

static int numbers_of(const char *flag, const char *value, double min, double max, number_list *out)
{
    char why[400];
    if (number_list_parse(value, 1, out, why, sizeof why) != 0) {
        cli_error(CMD, "%s: '%s': %s", flag, value, why);
        return -1;
    }
    for (size_t i = 0; i < out->count; i++) {
        if (!(out->values[i] >= min && out->values[i] <= max)) {
            cli_error(CMD, "%s: %.17g is outside %.17g..%.17g", flag, out->values[i], min, max);
            return -1;
        }
    }
    return 0;
}

static int resolve_grid(const uniformity_flags *f, uniformity_grid *g)
{
    char copy[4096], err[ERR_MAX];
    char *items[NAMES_MAX];
    int count = names_of("--hash", f->hash, copy, sizeof copy, items);
    if (count < 0)
        return -1;
    g->hashes = calloc((size_t)count, sizeof *g->hashes);
    for (int i = 0; i < count; i++, g->hash_count++) {
        if (hasher_resolve(items[i], &g->hashes[i], err, sizeof err) != 0) {
            cli_error(CMD, "--hash: %s", err);
            return -1;
        }
    }
    if ((count = names_of("--scheme", f->scheme, copy, sizeof copy, items)) < 0)
        return -1;
    for (int i = 0; i < count; i++) {
        scheme_kind s;
        if (scheme_from_name(items[i], &s) != 0) {
            cli_error(CMD, "--scheme: unknown scheme '%s' (independent, double, enhanced, course, ideal)", items[i]);
            return -1;
        }
        if (s == SCHEME_PARQUET) {
            cli_error(CMD, "--scheme: scheme parquet gives one value a key (the split-block filter's), not k positions: "
                           "test xxh64 with another scheme");
            return -1;
        }
        int seen = 0;
        for (size_t j = 0; j < g->scheme_count; j++)
            seen |= g->schemes[j] == s;
        if (!seen)
            g->schemes[g->scheme_count++] = s;
    }
    if ((count = names_of("--keys", f->keys, copy, sizeof copy, items)) < 0)
        return -1;
    for (int i = 0; i < count; i++, g->keyset_count++) {
        if ((g->keysets[i] = keyset_open(items[i], err, sizeof err)) == NULL) {
            cli_error(CMD, "--keys: %s", err);
            return -1;
        }
    }
    if (numbers_of("--m", f->m, 2, (double)M_MAX, &g->m) != 0 || numbers_of("--n", f->n, 1, N_MAX, &g->n) != 0 ||
        numbers_of("--k", f->k, 1, FILTER_K_MAX, &g->k) != 0)
        return -1;
    if (number_parse_u64(f->seed, 0, UINT64_MAX, &g->seed) != 0) {
        cli_error(CMD, "--seed: '%s' is not a whole number from 0 to 2^64-1", f->seed);
        return -1;
    }
    return 0;
}

/* Refuse any combination the test cannot run, before anything runs. */
static int check_grid(const uniformity_grid *g)
{
    char why[ERR_MAX];
    for (size_t s = 0; s < g->scheme_count; s++)
        for (size_t mi = 0; mi < g->m.count; mi++)
            for (size_t ki = 0; ki < g->k.count; ki++) {
                uint64_t m = (uint64_t)g->m.values[mi];
                if (layout_check(LAYOUT_STANDARD, g->schemes[s], m, (unsigned)g->k.values[ki], why, sizeof why) != 0) {
                    cli_error(CMD, "--m %llu with --scheme %s: %s", (unsigned long long)m, scheme_name(g->schemes[s]), why);
                    return -1;
                }
            }
    for (size_t mi = 0; mi < g->m.count; mi++)
        for (size_t ni = 0; ni < g->n.count; ni++)
            for (size_t ki = 0; ki < g->k.count; ki++) {
                double expected = g->n.values[ni] * g->k.values[ki] / g->m.values[mi];
                if (expected < EXPECTED_MIN) {
                    cli_error(CMD, "--n %.17g --k %.17g --m %.17g: %.3g keys' positions per bucket; the chi-square needs at least %g",
                              g->n.values[ni], g->k.values[ki], g->m.values[mi], expected, EXPECTED_MIN);
                    return -1;
                }
            }
    for (size_t i = 0; i < g->keyset_count; i++)
        for (size_t ni = 0; ni < g->n.count; ni++)
            if (keyset_check(g->keysets[i], (uint64_t)g->n.values[ni], 0, why, sizeof why) != 0) {
                cli_error(CMD, "--keys: %s", why);
                return -1;
            }
    return 0;
}

/* One row per (hash, scheme, keys, m, n, k); ideal once, whatever the
 * hashes.  *rejected counts the rows flagged, *first names the first. */
static int run_grid(const uniformity_grid *g, strbuf *sb, size_t *rejected, char *first, size_t first_size)
{
    for (size_t s = 0; s < g->scheme_count; s++) {
        scheme_kind scheme = g->schemes[s];
        size_t hashes = scheme == SCHEME_IDEAL ? 1 : g->hash_count;
        for (size_t h = 0; h < hashes; h++)
            for (size_t ks = 0; ks < g->keyset_count; ks++)
                for (size_t mi = 0; mi < g->m.count; mi++)
                    for (size_t ni = 0; ni < g->n.count; ni++)
                        for (size_t ki = 0; ki < g->k.count; ki++) {
                            uint64_t m = (uint64_t)g->m.values[mi], n = (uint64_t)g->n.values[ni];
                            unsigned k = (unsigned)g->k.values[ki];
                            uniformity_result r;
                            if (uniformity_measure(&g->hashes[h], scheme, g->keysets[ks], m, n, k, g->seed, &r) != 0) {
                                cli_error(CMD, "cannot allocate %llu counters", (unsigned long long)m);
                                return -1;
                            }
                            strbuf_printf(sb, "%s,%s,%s,%llu,%llu,%u,%.10g,%.0f,%.6g,%s,%llu,%llu,%.2f\n",
                                      scheme == SCHEME_IDEAL ? "ideal" : g->hashes[h].name, scheme_name(scheme),
                                      keyset_spec(g->keysets[ks]), (unsigned long long)m, (unsigned long long)n, k,
                                      r.chi2, r.dof, r.p_value, uniformity_flag(r.p_value),
                                      (unsigned long long)r.count_min, (unsigned long long)r.count_max, r.ns_per_key);
                            if (strcmp(uniformity_flag(r.p_value), "ok") != 0 && (*rejected)++ == 0)
                                snprintf(first, first_size, "%s, %s, keys %s, m = %llu, n = %llu, k = %u: %s, p = %.3g",
                                         scheme == SCHEME_IDEAL ? "ideal" : g->hashes[h].name, scheme_name(scheme),
                                         keyset_spec(g->keysets[ks]), (unsigned long long)m, (unsigned long long)n, k,
                                         uniformity_flag(r.p_value), r.p_value);
                        }
    }
    return 0;
}

static int parse_flags(int argc, char **argv, uniformity_flags *f)
{
    static const cli_text_flag FLAGS[] = {{"--hash", offsetof(uniformity_flags, hash)}, {"--scheme", offsetof(uniformity_flags, scheme)},
                 {"--keys", offsetof(uniformity_flags, keys)}, {"--m", offsetof(uniformity_flags, m)},
                 {"--n", offsetof(uniformity_flags, n)},       {"--k", offsetof(uniformity_flags, k)},
                 {"--seed", offsetof(uniformity_flags, seed)}, {"--output", offsetof(uniformity_flags, output)},
                 {"-o", offsetof(uniformity_flags, output)}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        const int taken = cli_text_flag_take(argc, argv, &i, CMD, FLAGS, sizeof FLAGS / sizeof FLAGS[0], f);
        if (taken < 0)
            return -1;
        if (taken == 0) {
            cli_error(CMD, "unknown option '%s' (bloomlab uniformity --help)", a);
            return -1;
        }
    }
    return 0;
}

int cmd_uniformity(int argc, char **argv)
{
    uniformity_flags f = {"xxh3_64", "double", "random64", "1024", "1e5", "7", "1", NULL};
    int parsed = parse_flags(argc, argv, &f);
    if (parsed != 0) {
        if (parsed > 0)
            fputs(USAGE, stdout);
        return parsed > 0 ? 0 : 2;
    }
    char why[8192];
    if (f.output != NULL && output_check(f.output, why, sizeof why) != 0) {
        cli_error(CMD, "-o: %s", why);
        return 2;
    }
    uniformity_grid g;
    memset(&g, 0, sizeof g);
    if (resolve_grid(&f, &g) != 0 || check_grid(&g) != 0) {
        grid_free(&g);
        return 2;
    }
    strbuf sb = strbuf_heap();
    strbuf_argv(&sb, "# command: bloomlab", argc, argv);
    strbuf_printf(&sb, "\n");
    strbuf_printf(&sb, "# version: bloomlab %s (%s)\n# seed: %llu\n# alpha: %.6g (erfc(5/sqrt 2), two-sided 5 sigma)\n",
              BLOOMLAB_VERSION, bloomlab_git_rev, (unsigned long long)g.seed, uniformity_alpha());
    strbuf_printf(&sb, "hash,scheme,keys,m,n,k,chi2,dof,p_value,flag,count_min,count_max,ns_per_key\n");
    size_t rejected = 0;
    char first[HASH_NAME_MAX + 256] = "";
    int rc = run_grid(&g, &sb, &rejected, first, sizeof first);
    if (rc == 0 && sb.cut) { /* never a CSV with rows missing */
        cli_error(CMD, "out of memory for the output");
        rc = 1;
    }
    if (rc == 0)
        rc = output_write_atomic(f.output, sb.text, sb.len, CMD);
    strbuf_free(&sb);
    grid_free(&g);
    /* A rejection is the answer the command exists to give: the rows are
     * written, and the exit status says so to a script or make. */
    if (rc == 0 && rejected > 0)
        cli_error(CMD, "%zu row%s rejected (first: %s)", rejected, rejected > 1 ? "s" : "", first);
    return rc == 0 && rejected == 0 ? 0 : 1;
}
