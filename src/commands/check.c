/* check.c -- `bloomlab check FILTER`: a conformance battery for any filter,
 * a built-in layout or a plugin (plugin:PATH.so, bloomlab/filter.h).
 *
 * Properties, one row each:
 *   no_false_negatives  every present key answers "probably" at every load
 *                       n/4, n/2, n, 2n, 4n (one filter filled step by step);
 *   fpr_design          the rate at n against the filter's own formula (a
 *                       plugin's fpr, a layout's exact formula) or else the
 *                       classic one at its m and k: |z| <= 5, z against the
 *                       model's standard error under the null (binomial
 *                       query noise plus Var F where the model gives it);
 *   past_capacity_2n/4n the same at 2n and 4n: reported (info), a failure
 *                       only beyond 5 SE of its own formula;
 *   key_lengths         keys of 0..1024 bytes are kept, and 1024-byte keys
 *                       that differ only in their last bytes are told apart;
 *   binary_keys         every byte value, embedded NULs: kept, and keys that
 *                       differ only after a NUL are told apart;
 *   duplicate_keys      adding keys again keeps them and (when the filter
 *                       counts its bits) sets no bit;
 *   determinism         two filters of one seed give the same answers;
 *   speed_*             ns per insert, absent and present query beside
 *                       bloomlab's own layout of the same m and k (the same
 *                       layout for a built-in, standard for a plugin),
 *                       interleaved, the least of 3 rounds: info only.
 * Exit status: 0 all pass, 1 a property failed (named on stderr), 2 bad
 * input (one line, nothing written). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "commands/commands.h"
#include "filter/filter_plugin.h"
#include "filter/filters.h"
#include "base/guard.h"
#include "base/hashes.h"
#include "harness/keys.h"
#include "model/model.h"
#include "base/numbers.h"
#include "harness/output.h"
#include "base/pcg.h"
#include "harness/speed.h"
#include "model/stats.h"
#include "harness/table.h"
#include "model/theory.h"

#define CMD "check"
#define CHECK_HASH "xxh3_64"
#define Z_LIMIT 5.0
#define LOADS 5
#define CHUNK_BATCHES 64
#define SPEED_ROUNDS 3
#define LONG_KEY 1024

static const char USAGE[] =
    "usage: bloomlab check FILTER [--n ITEMS] [--p RATE | --m BITS] [--k HASHES] [--seed S]\n"
    "                      [--queries Q] [--quick] [--format text|csv|json] [-o FILE]\n"
    "\n"
    "A conformance battery for a filter: a built-in layout (standard, counting,\n"
    "partitioned, blocked512, register64, splitblock) or a plugin, plugin:PATH.so.\n"
    "One row per property:\n"
    "  no_false_negatives  every present key found at loads n/4, n/2, n, 2n, 4n\n"
    "  fpr_design          the rate at n within 5 SE of the filter's own formula (a\n"
    "                      plugin's fpr, a layout's exact formula; else the classic\n"
    "                      one at its m and k); SE under the null: binomial query\n"
    "                      noise plus the filter-to-filter variance of the model\n"
    "  past_capacity_2n/4n the same at 2n and 4n: info, a failure only beyond 5 SE\n"
    "  key_lengths         keys of 0..1024 bytes kept; long keys told apart\n"
    "  binary_keys         every byte value and embedded NULs kept and told apart\n"
    "  duplicate_keys      adding a key again keeps it and sets no bit\n"
    "  determinism         two filters of one seed give the same answers\n"
    "  speed_insert, speed_query_absent, speed_query_present\n"
    "                      ns per key beside bloomlab's own layout of the same m\n"
    "                      and k (the same layout; standard for a plugin),\n"
    "                      interleaved, least of 3 rounds: info, never a failure\n"
    "Options:\n"
    "  --n ITEMS    design load (default 1e5)\n"
    "  --p RATE     size for this rate at n (default 0.01): the layout's sizing, or\n"
    "               the plugin's choose (else the classic m = n (-ln p) / (ln 2)^2)\n"
    "  --m BITS     the size instead of --p; --k HASHES (1..64) the positions\n"
    "               (default: the best k for the layout, the classic one for a plugin)\n"
    "  --seed S     the seed of keys and filters (default 1): a run is repeatable\n"
    "  --queries Q  absent keys asked at each load, a trial (default 1e5; 2e4 quick)\n"
    "  --quick      one trial instead of 3, fewer queries: a quick look\n"
    "  --format F   text (default), csv or json, on stdout\n"
    "  -o FILE      also write the CSV to FILE (atomic; - is stdout, instead of the table)\n"
    "Columns: property, result (pass, fail, info), value (the measurement: false\n"
    "negatives, a rate, ns), reference (what it is held to: 0, the formula, the\n"
    "reference layout's ns), z, detail.  Built-in layouts hash with xxh3_64 and\n"
    "their default scheme.\n"
    "Exit status: 0 every property passes, 1 one failed (named on stderr),\n"
    "2 bad input (an unknown filter, a plugin that cannot load, a bad option).\n"
    "Example: bloomlab check plugin:./myfilter.so --n 1e5 --p 0.01\n";

/* ---- the filter under test: a layout or a plugin ---------------------- */

typedef struct {
    const char *name;            /* as given */
    const filter_plugin *plugin; /* NULL: a built-in layout */
    layout_kind layout;          /* the layout, or the reference's (standard) */
    scheme_kind scheme;
    hasher hash;
    uint64_t n, m;
    unsigned k;
    uint64_t m_refused; /* non-zero: the plugin refused (m_refused, k_refused) and took its own choice */
    unsigned k_refused;
} subject;

typedef struct {
    const subject *s;
    int builtin;
    filter f;
    void *handle;
    filter_ops ops;
    scheme_ctx ctx;
} inst;

/* An empty filter, the subject's (speed.c times it beside bloomlab's own):
 * 0; -1 no memory; -2 a plugin's create gave NULL. */
static int inst_open(inst *x, const subject *s, uint64_t seed)
{
    memset(x, 0, sizeof *x);
    x->s = s;
    x->builtin = s->plugin == NULL;
    if (!x->builtin) {
        x->handle = s->plugin->api->create(s->m, s->k, s->n, seed);
        return x->handle != NULL ? 0 : -2;
    }
    layout_kind layout = s->layout;
    scheme_kind scheme = s->scheme;
    uint64_t m = layout_fit_m(layout, s->m);
    if (filter_init(&x->f, layout, m, s->k) != 0)
        return -1;
    x->ops = filter_ops_for(layout, scheme);
    x->ctx.hash = &s->hash;
    x->ctx.seed = seed;
    x->ctx.log2_m = log2_floor(m);
    return 0;
}

static void inst_close(inst *x)
{
    if (x->builtin)
        filter_free(&x->f);
    else if (x->handle != NULL)
        x->s->plugin->api->destroy(x->handle);
    x->handle = NULL;
}

static scheme_kind inst_scheme(const inst *x) { return x->s->plugin ? SCHEME_DOUBLE : x->s->scheme; }

static void inst_add_batches(inst *x, const key_batch *b, size_t count)
{
    if (x->builtin)
        x->ops.insert_many(&x->f, &x->ctx, b, count);
    else
        for (size_t i = 0; i < count; i++)
            filter_plugin_add(x->s->plugin, x->handle, &b[i]);
}

/* Inserts done: a built-in filter sets its staged bits. */
static void inst_ready(inst *x)
{
    if (x->builtin)
        filter_flush(&x->f);
}

static uint64_t inst_query_batches(const inst *x, const key_batch *b, size_t count)
{
    return x->builtin ? x->ops.query_many(&x->f, &x->ctx, b, count, NULL) : filter_plugin_query(x->s->plugin, x->handle, b, count);
}

/* answer[i] for each key of one batch. */
static void inst_answers(const inst *x, const key_batch *b, unsigned char *answer)
{
    if (x->builtin) {
        x->ops.query(&x->f, &x->ctx, b, answer);
        return;
    }
    const bloomlab_filter_api *api = x->s->plugin->api;
    for (size_t i = 0; i < b->count; i++)
        answer[i] = api->contains(x->handle, b->ptr[i], b->len[i]) != 0;
}

static void inst_add_one(inst *x, const void *key, size_t len)
{
    if (x->builtin)
        filter_insert_one(&x->f, inst_scheme(x), &x->ctx, key, len, 0);
    else
        x->s->plugin->api->add(x->handle, key, len);
}

static int inst_contains_one(const inst *x, const void *key, size_t len)
{
    if (x->builtin)
        return filter_query_one(&x->f, inst_scheme(x), &x->ctx, key, len, 0);
    return x->s->plugin->api->contains(x->handle, key, len) != 0;
}

/* Bits set: 0, or -1 when the plugin does not say. */
static int inst_bits_set(const inst *x, uint64_t *out)
{
    if (x->builtin) {
        *out = filter_bits_set(&x->f);
        return 0;
    }
    if (x->s->plugin->api->bits_set == NULL)
        return -1;
    *out = x->s->plugin->api->bits_set(x->handle);
    return 0;
}

static uint64_t inst_m(const inst *x)
{
    if (x->builtin)
        return x->f.m;
    return x->s->plugin->api->bits ? x->s->plugin->api->bits(x->handle) : x->s->m;
}

/* ---- rows ---------------------------------------------------------------- */

/* The text table shows the first TEXT_COLS (detail last); the CSV and JSON
 * add, for the rate at each load, the load and the 95% interval (the
 * figure's columns: plots/check.gp reads them by name). */
static const table_column COLUMNS[] = {{"property", COLUMN_TEXT}, {"result", COLUMN_TEXT},  {"value", COLUMN_NUMBER},
                                       {"reference", COLUMN_NUMBER}, {"z", COLUMN_NUMBER}, {"detail", COLUMN_TEXT},
                                       {"load", COLUMN_NUMBER},      {"fpr_lo", COLUMN_NUMBER}, {"fpr_hi", COLUMN_NUMBER}};
#define NCOL (sizeof COLUMNS / sizeof COLUMNS[0])
#define TEXT_COLS 6

/* A rate's load and interval, for its row's last columns. */
typedef struct {
    uint64_t load;
    interval ci;
} at_load;

typedef struct {
    table t;
    int failed;
    char first_failure[1200];
    const at_load *at; /* the next row's load columns; NULL: empty */
} report;

static void add_row(report *r, const char *property, const char *result, double value, double reference, double z,
                    const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void add_row(report *r, const char *property, const char *result, double value, double reference, double z,
                    const char *fmt, ...)
{
    char v[40], ref[40], zs[40], detail[1024], load[40] = "", lo[40] = "", hi[40] = "";
    table_real(v, sizeof v, value, 6);
    table_real(ref, sizeof ref, reference, 6);
    table_real(zs, sizeof zs, z, 3);
    if (r->at != NULL) {
        snprintf(load, sizeof load, "%llu", (unsigned long long)r->at->load);
        table_real(lo, sizeof lo, r->at->ci.lo, 6);
        table_real(hi, sizeof hi, r->at->ci.hi, 6);
        r->at = NULL;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    const char *fields[NCOL] = {property, result, v, ref, zs, detail, load, lo, hi};
    table_add_row(&r->t, fields);
    if (strcmp(result, "fail") == 0) {
        if (r->failed++ == 0)
            snprintf(r->first_failure, sizeof r->first_failure, "%s (%s)", property, detail);
        else if (strlen(r->first_failure) + strlen(property) + 3 < sizeof r->first_failure)
            strcat(strcat(r->first_failure, ", "), property);
    }
}

/* The table for reading: the short columns aligned (names left, numbers
 * right), the detail last and left as it is. */
static void write_text(FILE *out, const table *t)
{
    size_t width[TEXT_COLS - 1];
    for (size_t c = 0; c + 1 < TEXT_COLS; c++) {
        width[c] = strlen(t->columns[c].name);
        for (size_t row = 0; row < t->rows; row++) {
            size_t len = strlen(t->fields[row * NCOL + c]);
            width[c] = len > width[c] ? len : width[c];
        }
    }
    for (size_t row = 0; row <= t->rows; row++) {
        for (size_t c = 0; c < TEXT_COLS; c++) {
            const char *v = row == 0 ? t->columns[c].name : t->fields[(row - 1) * NCOL + c];
            if (c + 1 == TEXT_COLS)
                fprintf(out, "%s\n", v);
            else if (t->columns[c].kind == COLUMN_TEXT)
                fprintf(out, "%-*s  ", (int)width[c], v);
            else
                fprintf(out, "%*s  ", (int)width[c], *v ? v : "-");
        }
    }
}

/* ---- 1-3: loads n/4 .. 4n ------------------------------------------------ */

typedef struct {
    uint64_t load;
    uint64_t present, false_negatives, queries, false_positives;
    uint64_t m; /* the filter's m as built at this load (LevelDB's grows with its keys) */
} load_result;

static void insert_range(inst *x, const keyset *ks, uint64_t seed, uint64_t n, uint64_t first, uint64_t end, key_batch *b)
{
    size_t made;
    while (first < end) {
        first = keyset_fill_chunk(ks, seed, n, KEY_PRESENT, first, end, b, CHUNK_BATCHES, &made);
        inst_add_batches(x, b, made);
    }
    inst_ready(x);
}

static uint64_t query_range(const inst *x, const keyset *ks, uint64_t seed, uint64_t n, key_side side, uint64_t first,
                            uint64_t end, key_batch *b)
{
    uint64_t yes = 0;
    size_t made;
    while (first < end) {
        first = keyset_fill_chunk(ks, seed, n, side, first, end, b, CHUNK_BATCHES, &made);
        yes += inst_query_batches(x, b, made);
    }
    return yes;
}

typedef struct {
    double mean, var_filter;
    const char *name;
} formula;

static formula formula_at(const subject *s, uint64_t m, uint64_t load)
{
    formula f;
    if (s->plugin == NULL) {
        layout_model lm = model_for(s->layout, m, load, s->k);
        f.mean = lm.exact;
        f.var_filter = lm.variance;
        f.name = "the layout's exact formula";
        if (!isfinite(f.mean)) {
            f.mean = theory_fpr_classic(m, load, s->k);
            f.name = "the classic formula";
        }
    } else {
        layout_model lm = model_for(LAYOUT_STANDARD, m, load, s->k);
        double own = s->plugin->api->fpr ? s->plugin->api->fpr(m, load, s->k) : NAN;
        f.var_filter = lm.variance;
        if (own >= 0 && own <= 1) {
            f.mean = own;
            f.name = "the plugin's own formula";
        } else {
            f.mean = theory_fpr_classic(m, load, s->k);
            f.name = "the classic formula";
        }
    }
    if (!isfinite(f.var_filter) || f.var_filter < 0)
        f.var_filter = 0;
    return f;
}

/* 0, or the inst_open failure. */
static int run_loads(const subject *s, const keyset *ks, uint64_t seed, unsigned trials, uint64_t queries,
                     load_result *res)
{
    const uint64_t n = s->n;
    const uint64_t loads[LOADS] = {n / 4 ? n / 4 : 1, n / 2 ? n / 2 : 1, n, 2 * n, 4 * n};
    key_batch *b = malloc(CHUNK_BATCHES * sizeof *b);
    if (b == NULL)
        return -1;
    memset(res, 0, LOADS * sizeof *res);
    for (unsigned t = 0; t < trials; t++) {
        uint64_t ts = seed_derive(seed, t);
        inst x;
        int rc = inst_open(&x, s, ts);
        if (rc != 0) {
            free(b);
            return rc;
        }
        uint64_t inserted = 0;
        for (int l = 0; l < LOADS; l++) {
            if (loads[l] > inserted) {
                insert_range(&x, ks, ts, 4 * n, inserted, loads[l], b);
                inserted = loads[l];
            }
            res[l].load = loads[l];
            uint64_t yes = query_range(&x, ks, ts, 4 * n, KEY_PRESENT, 0, inserted, b);
            res[l].present += inserted;
            res[l].false_negatives += inserted - yes;
            res[l].queries += queries;
            res[l].false_positives += query_range(&x, ks, ts, 4 * n, KEY_ABSENT, 0, queries, b);
            res[l].m = inst_m(&x);
        }
        inst_close(&x);
    }
    free(b);
    return 0;
}

static void report_loads(report *r, const subject *s, const load_result *res, unsigned trials, uint64_t queries)
{
    uint64_t fn = 0, present = 0;
    char where[256] = "";
    for (int l = 0; l < LOADS; l++) {
        fn += res[l].false_negatives;
        present += res[l].present;
        if (res[l].false_negatives > 0 && strlen(where) < 200)
            snprintf(where + strlen(where), sizeof where - strlen(where), "%s%llu at load %llu", *where ? ", " : "",
                     (unsigned long long)res[l].false_negatives, (unsigned long long)res[l].load);
    }
    if (fn == 0)
        add_row(r, "no_false_negatives", "pass", 0, 0, NAN, "no false negatives: %llu present queries at loads n/4..4n, %u trial%s",
                (unsigned long long)present, trials, trials > 1 ? "s" : "");
    else
        add_row(r, "no_false_negatives", "fail", (double)fn, 0, NAN, "%llu false negatives among %llu present queries (%s)",
                (unsigned long long)fn, (unsigned long long)present, where);
    /* below n the rate is shown (info, the figure's first points); at n
     * it is held to the formula; past capacity, losses fail it too */
    static const char *const NAMES[LOADS] = {"fpr_quarter_n", "fpr_half_n", "fpr_design", "past_capacity_2n",
                                             "past_capacity_4n"};
    for (int i = 0; i < LOADS; i++) {
        const load_result *lr = &res[i];
        formula f = formula_at(s, lr->m, lr->load);
        rate_model model = {f.mean, f.var_filter, (double)queries, (double)trials};
        double se = stats_se_model(&model);
        double rate = (double)lr->false_positives / (double)lr->queries;
        double z = se > 0 ? (rate - f.mean) / se : rate == f.mean ? 0 : INFINITY;
        int ok = i < 2 || (fabs(z) <= Z_LIMIT && (i == 2 || lr->false_negatives == 0));
        const char *result = ok ? (i == 2 ? "pass" : "info") : "fail";
        const at_load at = {lr->load, stats_wilson_model(lr->false_positives, &model, WILSON_Z95)};
        r->at = &at;
        add_row(r, NAMES[i], result, rate, f.mean, z,
                "rate at n = %llu against %s: %llu of %llu absent, se %.3g%s%s", (unsigned long long)lr->load, f.name,
                (unsigned long long)lr->false_positives, (unsigned long long)lr->queries, se,
                fabs(z) > Z_LIMIT ? ", beyond 5 SE" : "", i > 2 && lr->false_negatives ? ", and false negatives" : "");
    }
}

/* ---- 4: keys of every length and byte, duplicates ------------------------ */

static void random_bytes(unsigned char *out, size_t len, uint64_t seed)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = mix64(seed + i);
        for (size_t j = 0; j < 8 && i + j < len; j++)
            out[i + j] = (unsigned char)(v >> (8 * j));
    }
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int j = 0; j < 8; j++)
        p[j] = (unsigned char)(v >> (8 * j));
}

/* Absent keys that share all but their last 8 bytes with present ones: how
 * many answer "probably", against the formula at this load. */
typedef struct {
    uint64_t asked, yes;
    double expected, limit;
} told_apart;

/* Fill x with `count` present keys prefix + u64(2i) (prefix_len bytes of
 * prefix) and ask count absent ones prefix + u64(2i+1); lost counts present
 * keys not found. */
static told_apart tell_apart(inst *x, const subject *s, unsigned char *buf, size_t prefix_len,
                             uint64_t count, uint64_t already, uint64_t *lost)
{
    for (uint64_t i = 0; i < count; i++) {
        put_u64(buf + prefix_len, 2 * i);
        inst_add_one(x, buf, prefix_len + 8);
    }
    inst_ready(x);
    told_apart t = {count, 0, 0, 0};
    for (uint64_t i = 0; i < count; i++) {
        put_u64(buf + prefix_len, 2 * i);
        *lost += !inst_contains_one(x, buf, prefix_len + 8);
        put_u64(buf + prefix_len, 2 * i + 1);
        t.yes += inst_contains_one(x, buf, prefix_len + 8);
    }
    t.expected = formula_at(s, inst_m(x), already + count).mean;
    /* 5 binomial SE above the formula, and one key of slack */
    t.limit = t.expected * (double)count + Z_LIMIT * sqrt(t.expected * (1 - t.expected) * (double)count) + 1;
    return t;
}

static int check_keys(report *r, const subject *s, uint64_t seed)
{
    unsigned char *buf = malloc(2 * LONG_KEY + 16);
    if (buf == NULL)
        return -1;
    inst x;
    int rc;
    /* key_lengths */
    if ((rc = inst_open(&x, s, seed_derive(seed, 1000))) != 0) {
        free(buf);
        return rc;
    }
    uint64_t lost = 0;
    for (size_t len = 0; len <= LONG_KEY; len++) {
        random_bytes(buf, len, seed ^ mix64(len));
        inst_add_one(&x, buf, len);
    }
    inst_ready(&x);
    for (size_t len = 0; len <= LONG_KEY; len++) {
        random_bytes(buf, len, seed ^ mix64(len));
        lost += !inst_contains_one(&x, buf, len);
    }
    random_bytes(buf, LONG_KEY - 8, seed ^ 0x6c6f6e67ULL);
    told_apart t = tell_apart(&x, s, buf, LONG_KEY - 8, 500, LONG_KEY + 1, &lost);
    inst_close(&x);
    int ok = lost == 0 && (double)t.yes <= t.limit;
    add_row(r, "key_lengths", ok ? "pass" : "fail", (double)lost, 0, NAN,
            "%llu of %d keys lost (one of each length 0..%d bytes, 500 of 1024 bytes); 1024-byte absent keys differing "
            "in the last 8 bytes: %llu of %llu answered present (formula %.3g each)%s",
            (unsigned long long)lost, LONG_KEY + 501, LONG_KEY, (unsigned long long)t.yes, (unsigned long long)t.asked,
            t.expected, (double)t.yes > t.limit ? ": the bytes past a prefix are not hashed" : "");

    /* binary_keys: every byte value alone, every byte value in a run of
     * NULs, one key of all 256 values; then keys that differ only past a NUL */
    if ((rc = inst_open(&x, s, seed_derive(seed, 1001))) != 0) {
        free(buf);
        return rc;
    }
    lost = 0;
    uint64_t keys = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int v = 0; v < 256; v++) {
            unsigned char one = (unsigned char)v, run[16] = {0};
            run[v % 16] = (unsigned char)v;
            run[15] = (unsigned char)(v / 16 + 1); /* distinct from the other runs */
            if (pass == 0) {
                inst_add_one(&x, &one, 1);
                inst_add_one(&x, run, sizeof run);
            } else {
                lost += !inst_contains_one(&x, &one, 1) + !inst_contains_one(&x, run, sizeof run);
                keys += 2;
            }
        }
        for (int v = 0; v < 256; v++)
            buf[v] = (unsigned char)v;
        if (pass == 0) {
            inst_add_one(&x, buf, 256);
            inst_ready(&x);
        } else {
            lost += !inst_contains_one(&x, buf, 256);
            keys++;
        }
    }
    memcpy(buf, "key\0", 4);
    memset(buf + 4, 0, 4);
    t = tell_apart(&x, s, buf, 8, 500, 513, &lost);
    keys += 500;
    inst_close(&x);
    ok = lost == 0 && (double)t.yes <= t.limit;
    add_row(r, "binary_keys", ok ? "pass" : "fail", (double)lost, 0, NAN,
            "%llu of %llu keys of every byte value and embedded NULs lost; absent keys differing only past a NUL: %llu of %llu "
            "answered present (formula %.3g each)%s",
            (unsigned long long)lost, (unsigned long long)keys, (unsigned long long)t.yes, (unsigned long long)t.asked,
            t.expected, (double)t.yes > t.limit ? ": the bytes past a NUL are not hashed" : "");

    /* duplicate_keys */
    if ((rc = inst_open(&x, s, seed_derive(seed, 1002))) != 0) {
        free(buf);
        return rc;
    }
    const uint64_t count = 2000;
    for (uint64_t i = 0; i < count; i++) {
        random_bytes(buf, 8 + i % 64, seed ^ mix64(i + 77));
        inst_add_one(&x, buf, 8 + i % 64);
    }
    inst_ready(&x);
    uint64_t before = 0, after = 0;
    int has_bits = inst_bits_set(&x, &before) == 0;
    for (int again = 0; again < 3; again++)
        for (uint64_t i = 0; i < count; i++) {
            random_bytes(buf, 8 + i % 64, seed ^ mix64(i + 77));
            inst_add_one(&x, buf, 8 + i % 64);
        }
    inst_ready(&x);
    if (has_bits)
        inst_bits_set(&x, &after);
    lost = 0;
    for (uint64_t i = 0; i < count; i++) {
        random_bytes(buf, 8 + i % 64, seed ^ mix64(i + 77));
        lost += !inst_contains_one(&x, buf, 8 + i % 64);
    }
    inst_close(&x);
    int64_t changed = has_bits ? (int64_t)(after - before) : 0;
    ok = lost == 0 && changed == 0;
    if (has_bits)
        add_row(r, "duplicate_keys", ok ? "pass" : "fail", (double)changed, 0, NAN,
                "%llu keys added 4 times: %llu lost; bits set %llu after the first, %llu after the rest",
                (unsigned long long)count, (unsigned long long)lost, (unsigned long long)before, (unsigned long long)after);
    else
        add_row(r, "duplicate_keys", ok ? "pass" : "fail", NAN, 0, NAN,
                "%llu keys added 4 times: %llu lost (the plugin has no bits_set: bits not compared)",
                (unsigned long long)count, (unsigned long long)lost);
    free(buf);
    return 0;
}

/* ---- 5: determinism -------------------------------------------------------- */

typedef struct {
    unsigned char *answers;
    uint64_t bits;
    int has_bits;
} run_answers;

static int answers_once(const subject *s, const keyset *ks, uint64_t seed, uint64_t present, uint64_t absent,
                        key_batch *b, run_answers *out)
{
    inst x;
    int rc = inst_open(&x, s, seed);
    if (rc != 0)
        return rc;
    insert_range(&x, ks, seed, s->n, 0, s->n, b);
    out->answers = malloc(present + absent);
    if (out->answers == NULL) {
        inst_close(&x);
        return -1;
    }
    uint64_t at = 0;
    for (int side = 0; side < 2; side++) {
        uint64_t end = side == 0 ? present : absent;
        for (uint64_t i = 0; i < end; i += KEY_BATCH) {
            keyset_fill(ks, seed, s->n, side == 0 ? KEY_PRESENT : KEY_ABSENT, i,
                        (size_t)(end - i < KEY_BATCH ? end - i : KEY_BATCH), b);
            inst_answers(&x, b, out->answers + at);
            at += b->count;
        }
    }
    out->has_bits = inst_bits_set(&x, &out->bits) == 0;
    inst_close(&x);
    return 0;
}

static int check_determinism(report *r, const subject *s, const keyset *ks, uint64_t seed, uint64_t queries)
{
    key_batch *b = malloc(CHUNK_BATCHES * sizeof *b);
    if (b == NULL)
        return -1;
    uint64_t present = s->n < 20000 ? s->n : 20000, absent = queries < 50000 ? queries : 50000;
    run_answers a[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++)
        rc = answers_once(s, ks, seed_derive(seed, 2000), present, absent, b, &a[i]);
    if (rc == 0) {
        uint64_t differ = 0;
        for (uint64_t i = 0; i < present + absent; i++)
            differ += a[0].answers[i] != a[1].answers[i];
        int bits_differ = a[0].has_bits && a[0].bits != a[1].bits;
        add_row(r, "determinism", differ == 0 && !bits_differ ? "pass" : "fail", (double)differ, 0, NAN,
                "two filters of one seed, %llu keys each: %llu of %llu answers differ%s",
                (unsigned long long)s->n, (unsigned long long)differ, (unsigned long long)(present + absent),
                bits_differ ? ", and their bits set" : "");
    }
    free(a[0].answers);
    free(a[1].answers);
    free(b);
    return rc;
}

/* ---- 6: speed ------------------------------------------------------------- */

/* The filter beside bloomlab's own layout of the same m and k (the same
 * layout for a built-in, standard for a plugin), interleaved (speed.h). */
static int check_speed(report *r, const subject *s, const keyset *ks, uint64_t seed, uint64_t queries)
{
    layout_kind ref = s->plugin ? LAYOUT_STANDARD : s->layout;
    scheme_kind scheme = s->plugin ? SCHEME_DOUBLE : s->scheme;
    const speed_filter f[2] = {{s->plugin, s->layout, s->scheme, &s->hash, s->m, s->k},
                               {NULL, ref, scheme, &s->hash, s->m, s->k}};
    speed_result best[2];
    int rc = speed_interleaved(f, s->n, queries, ks, seed_derive(seed, 3000), SPEED_ROUNDS, best);
    if (rc != 0)
        return rc;
    char about[200];
    snprintf(about, sizeof about, "beside bloomlab's %s (%s, %s) of m = %llu, k = %u; least of %d interleaved rounds",
             layout_name(ref), CHECK_HASH, scheme_name(scheme), (unsigned long long)layout_fit_m(ref, s->m), s->k,
             SPEED_ROUNDS);
    add_row(r, "speed_insert", "info", best[0].insert, best[1].insert, NAN, "ns per insert of %llu keys %s",
            (unsigned long long)s->n, about);
    add_row(r, "speed_query_absent", "info", best[0].absent, best[1].absent, NAN, "ns per absent query of %llu keys %s",
            (unsigned long long)queries, about);
    add_row(r, "speed_query_present", "info", best[0].present, best[1].present, NAN,
            "ns per present query of %llu keys %s", (unsigned long long)s->n, about);
    return 0;
}

/* ---- options ------------------------------------------------------------- */

typedef struct {
    const char *filter, *n, *p, *m, *k, *seed, *queries, *format, *output;
    int quick;
} check_flags;

/* 0; 1 for --help; -1 after one line. */
static int parse_flags(int argc, char **argv, check_flags *f)
{
    static const cli_text_flag FLAGS[] = {{"--n", offsetof(check_flags, n)},           {"--p", offsetof(check_flags, p)},
                 {"--m", offsetof(check_flags, m)},           {"--k", offsetof(check_flags, k)},
                 {"--seed", offsetof(check_flags, seed)},     {"--queries", offsetof(check_flags, queries)},
                 {"--format", offsetof(check_flags, format)}, {"--output", offsetof(check_flags, output)},
                 {"-o", offsetof(check_flags, output)}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
            return 1;
        if (strcmp(a, "--quick") == 0) {
            f->quick = 1;
            continue;
        }
        if (a[0] != '-' || a[1] == '\0') {
            if (f->filter != NULL) {
                cli_error(CMD, "one filter at a time ('%s' and '%s')", f->filter, a);
                return -1;
            }
            f->filter = a;
            continue;
        }
        const int taken = cli_text_flag_take(argc, argv, &i, CMD, FLAGS, sizeof FLAGS / sizeof FLAGS[0], f);
        if (taken < 0)
            return -1;
        if (taken == 0) {
            cli_error(CMD, "unknown option '%s' (bloomlab check --help)", a);
            return -1;
        }
    }
    if (f->filter == NULL) {
        cli_error(CMD, "which filter? (bloomlab check FILTER; bloomlab check --help)");
        return -1;
    }
    return 0;
}

static int parse_u64(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    double v;
    if (number_parse(text, &v) != 0 || v != floor(v) || v < (double)min || v > (double)max) {
        cli_error(CMD, "%s: '%s' is not a whole number in %llu..%.0f", flag, text, (unsigned long long)min, (double)max);
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

/* A plugin's create asked for the subject's (m, k) once: kept when it
 * takes them, else its own choice at that size (filter_plugin_fit).  0, or
 * -1 after one line. */
static int fit_plugin(subject *s, uint64_t seed)
{
    uint64_t m = s->m;
    unsigned k = s->k;
    plugin_fit fit = filter_plugin_fit(s->plugin, s->n, seed_derive(seed, 0), &m, &k);
    if (fit == PLUGIN_FIT_REFUSED) {
        cli_error(CMD, "filter '%s' ('%s'): create(m = %llu, k = %u, n = %llu) returned NULL%s", s->name,
                  s->plugin->api->name, (unsigned long long)s->m, s->k, (unsigned long long)s->n,
                  s->plugin->api->choose ? ", and so did its own choice at that size" : ", and it has no choose to pick its own");
        return -1;
    }
    if (fit == PLUGIN_FIT_CHOSEN) {
        s->m_refused = s->m;
        s->k_refused = s->k;
        s->m = m;
        s->k = k;
    }
    return 0;
}

/* The subject sized: 0, or -1 after one line. */
static int resolve(const check_flags *f, uint64_t seed, subject *s, filter_plugin *plugin)
{
    memset(s, 0, sizeof *s);
    s->name = f->filter;
    char err[2048];
    if (filter_plugin_named(f->filter)) {
        if (filter_plugin_resolve(f->filter, plugin, err, sizeof err) != 0) {
            cli_error(CMD, "%s", err);
            return -1;
        }
        s->plugin = plugin;
        s->layout = LAYOUT_STANDARD;
        s->scheme = SCHEME_DOUBLE;
    } else if (layout_from_name(f->filter, &s->layout) == 0) {
        s->scheme = layout_default_scheme(s->layout);
    } else {
        cli_error(CMD, "unknown filter '%s' (standard, counting, partitioned, blocked512, register64, splitblock, or plugin:PATH.so)",
                  f->filter);
        return -1;
    }
    if (hasher_builtin(CHECK_HASH, &s->hash) != 0) {
        cli_error(CMD, "no hash %s", CHECK_HASH);
        return -1;
    }
    uint64_t k = 0;
    if (parse_u64("--n", f->n, 1, 1e9, &s->n) != 0 || (f->k && parse_u64("--k", f->k, 1, 64, &k) != 0))
        return -1;
    if (f->m != NULL && f->p != NULL) {
        cli_error(CMD, "give --p or --m, not both");
        return -1;
    }
    if (f->m != NULL) {
        if (parse_u64("--m", f->m, 1, 1ULL << 36, &s->m) != 0)
            return -1;
        if (!s->plugin)
            s->m = layout_fit_m(s->layout, s->m);
        if (k == 0)
            k = s->plugin ? theory_k_opt_int(s->m, s->n) : model_k_best(s->layout, s->m, s->n, NULL, NULL);
    } else {
        double p = 0.01;
        if (f->p != NULL && (number_parse(f->p, &p) != 0 || !(p > 0 && p < 1))) {
            cli_error(CMD, "--p: '%s' is not a probability in (0, 1)", f->p);
            return -1;
        }
        if (s->plugin == NULL) {
            unsigned used = 0;
            s->m = model_smallest_m(s->layout, s->n, p, (unsigned)k, &used);
            k = used;
        } else if (s->plugin->api->choose != NULL && k == 0) {
            unsigned used = 0;
            if (s->plugin->api->choose(s->n, p, &s->m, &used) != 0 || s->m == 0 || used < 1 || used > 64) {
                cli_error(CMD, "filter '%s': its choose cannot meet p = %g at n = %llu", f->filter, p, (unsigned long long)s->n);
                return -1;
            }
            k = used;
        } else {
            s->m = (uint64_t)ceil((double)s->n * theory_bits_per_item(p));
            if (k == 0)
                k = theory_k_opt_int(s->m, s->n);
        }
        if (s->m == 0 || s->m > (1ULL << 36)) {
            cli_error(CMD, "p = %g at n = %llu needs more than 2^36 bits", p, (unsigned long long)s->n);
            return -1;
        }
    }
    s->k = (unsigned)k;
    if (s->plugin != NULL)
        return fit_plugin(s, seed);
    if (layout_check(s->layout, s->scheme, s->m, s->k, err, sizeof err) != 0) {
        cli_error(CMD, "%s", err);
        return -1;
    }
    return 0;
}

/* The line for an inst_open failure. */
static int open_failed(const subject *s, int rc)
{
    if (rc == -2)
        cli_error(CMD, "filter '%s' ('%s'): create(m = %llu, k = %u, n = %llu) returned NULL", s->name,
                  s->plugin->api->name, (unsigned long long)s->m, s->k, (unsigned long long)s->n);
    else
        cli_error(CMD, "no memory for a filter of %llu bits", (unsigned long long)s->m);
    return rc == -2 ? 2 : 1;
}

int cmd_check(int argc, char **argv)
{
    check_flags f = {NULL, "1e5", NULL, NULL, NULL, "1", NULL, "text", NULL, 0};
    int parsed = parse_flags(argc, argv, &f);
    if (parsed != 0) {
        if (parsed > 0)
            fputs(USAGE, stdout);
        return parsed > 0 ? 0 : 2;
    }
    table_format format;
    if (table_format_flag(CMD, f.format, &format) != 0)
        return 2;
    char why[4096];
    if (f.output != NULL && output_check(f.output, why, sizeof why) != 0) {
        cli_error(CMD, "-o: %s", why);
        return 2;
    }
    uint64_t seed, queries;
    if (parse_u64("--seed", f.seed, 0, 9e15, &seed) != 0)
        return 2;
    if (parse_u64("--queries", f.queries ? f.queries : f.quick ? "2e4" : "1e5", 1, 1e9, &queries) != 0)
        return 2;
    subject s;
    filter_plugin plugin;
    if (resolve(&f, seed, &s, &plugin) != 0)
        return 2;
    keyset *ks = keyset_open("random64", why, sizeof why);
    if (ks == NULL) {
        cli_error(CMD, "%s", why);
        return 1;
    }
    if (s.plugin != NULL) { /* a crash in the plugin is bad input: one line, status 2 */
        char doing[FILTER_PLUGIN_SPEC_MAX + 200];
        snprintf(doing, sizeof doing, "check (the filter plugin %s, '%s')", s.plugin->spec, s.plugin->api->name);
        guard_install();
        guard_crash_status(2);
        guard_set(doing, NULL, NULL);
    }
    const unsigned trials = f.quick ? 1 : 3;
    report r;
    memset(&r, 0, sizeof r);
    table_init(&r.t, COLUMNS, NCOL);
    load_result loads[LOADS];
    int rc = run_loads(&s, ks, seed, trials, queries, loads);
    char params[600], refused[200] = "";
    if (rc == 0) {
        const uint64_t m_built = loads[2].m; /* at n */
        if (s.m_refused != 0)
            snprintf(refused, sizeof refused, "; its own choice at that size: its create refused m = %llu, k = %u",
                     (unsigned long long)s.m_refused, s.k_refused);
        snprintf(params, sizeof params, "%s%s%s: n = %llu, m = %llu, k = %u (%.2f bits per item)%s, seed %llu, %u trial%s x %llu absent queries a load",
                 s.name, s.plugin ? "" : " with ", s.plugin ? "" : scheme_name(s.scheme), (unsigned long long)s.n,
                 (unsigned long long)m_built, s.k, (double)m_built / (double)s.n, refused, (unsigned long long)seed,
                 trials, trials > 1 ? "s" : "", (unsigned long long)queries);
        add_row(&r, "parameters", "info", (double)m_built, s.k, NAN, "%s", params);
        report_loads(&r, &s, loads, trials, queries);
        rc = check_keys(&r, &s, seed);
    }
    if (rc == 0)
        rc = check_determinism(&r, &s, ks, seed, queries);
    if (rc == 0)
        rc = check_speed(&r, &s, ks, seed, f.quick && queries > 20000 ? 20000 : queries);
    if (s.plugin != NULL)
        guard_clear();
    keyset_close(ks);
    if (rc != 0) {
        table_free(&r.t);
        return open_failed(&s, rc);
    }
    int status = 0;
    if (!output_is_stdout(f.output) || f.output == NULL) {
        if (format == FORMAT_TEXT)
            write_text(stdout, &r.t);
        else
            table_write(stdout, &r.t, format);
    }
    if (f.output != NULL) {
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (mem == NULL) {
            status = 1;
        } else {
            table_write(mem, &r.t, FORMAT_CSV);
            fclose(mem);
            if (output_write_atomic(f.output, text, len, CMD) != 0)
                status = 1;
            free(text);
        }
    }
    if (r.failed)
        cli_error(CMD, "%s fails %d propert%s: %s", s.name, r.failed, r.failed > 1 ? "ies" : "y", r.first_failure);
    table_free(&r.t);
    return status != 0 ? status : r.failed ? 1 : 0;
}
