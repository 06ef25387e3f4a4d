/* test_batch.c -- the batched loops of batch.c and dispatch.c against the one-key
 * reference (filter_insert_one / filter_query_one): the same bits, the same
 * counters, the same answers, for every (layout, scheme) pair, several k
 * (k > 16 included), m not a power of two, and m > 2^32 (checked sparsely:
 * only the words that were set are compared).  Also the exact uniformity of
 * the ideal scheme's bounded draw. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "filter/avx512.h"
#include "base/cache.h"
#include "base/cpu.h"
#include "filter/fetch_tune.h"
#include "filter/filters.h"
#include "base/hashes.h"
#include "harness/keys.h"
#include "base/pcg.h"
#include "filter/stage.h"
#include "helpers.h"

typedef struct {
    layout_kind layout;
    scheme_kind scheme;
    const char *hash; /* ignored for ideal */
    const char *keys;
    uint64_t m;
    unsigned k;
    uint64_t n, queries;
    int portable; /* set by check_pair: the portable loops, not this CPU's fastest */
} pair_case;

typedef struct {
    hasher h;
    scheme_ctx ctx;
    keyset *ks;
    filter_ops ops;
    uint64_t seed;
} setup;

static void setup_open(const pair_case *c, uint64_t seed, setup *s)
{
    char err[512];
    if (c->scheme != SCHEME_IDEAL)
        cr_assert_eq(hasher_resolve(c->hash, &s->h, err, sizeof err), 0, "%s", err);
    s->ks = keyset_open(c->keys, err, sizeof err);
    cr_assert_not_null(s->ks, "%s", err);
    s->seed = seed;
    s->ctx = (scheme_ctx){c->scheme == SCHEME_IDEAL ? NULL : &s->h, seed, log2_floor(c->m)};
    s->ops = c->portable ? filter_ops_portable(c->layout, c->scheme) : filter_ops_for(c->layout, c->scheme);
}

/* Batches of varying size (1 .. KEY_BATCH), so that partial batches are covered. */
static size_t batch_count(uint64_t i, uint64_t end)
{
    size_t want = (size_t)(1 + (i * 7) % KEY_BATCH);
    return end - i < want ? (size_t)(end - i) : want;
}

static void insert_both(const pair_case *c, const setup *s, filter *batched, filter *one)
{
    key_batch b;
    for (uint64_t i = 0; i < c->n;) {
        size_t count = batch_count(i, c->n);
        keyset_fill(s->ks, s->seed, c->n, KEY_PRESENT, i, count, &b);
        s->ops.insert(batched, &s->ctx, &b);
        for (size_t j = 0; j < b.count; j++)
            filter_insert_one(one, c->scheme, &s->ctx, b.ptr[j], b.len[j], b.id[j]);
        i += count;
    }
    filter_flush(batched);
}

/* Every answer of both paths, present and absent keys; returns the absent "yes" count. */
static uint64_t compare_queries(const pair_case *c, const setup *s, const filter *f)
{
    key_batch b;
    uint64_t yes_absent = 0;
    for (int side = 0; side < 2; side++) {
        uint64_t total = side == KEY_PRESENT ? c->n : c->queries;
        for (uint64_t i = 0; i < total;) {
            size_t count = batch_count(i, total);
            keyset_fill(s->ks, s->seed, c->n, (key_side)side, i, count, &b);
            unsigned char answer[KEY_BATCH];
            memset(answer, 0xAA, sizeof answer);
            size_t yes = s->ops.query(f, &s->ctx, &b, answer);
            size_t counted = 0;
            for (size_t j = 0; j < count; j++) {
                int ref = filter_query_one(f, c->scheme, &s->ctx, b.ptr[j], b.len[j], b.id[j]);
                cr_assert_eq(answer[j], ref, "%s/%s m=%llu k=%u side %d key %llu: batched %d, one %d",
                             layout_name(c->layout), scheme_name(c->scheme), (unsigned long long)c->m, c->k, side,
                             (unsigned long long)(i + j), answer[j], ref);
                counted += answer[j];
                if (side == KEY_PRESENT)
                    cr_assert_eq(ref, 1, "false negative");
            }
            cr_assert_eq(yes, counted);
            cr_assert_eq(s->ops.query(f, &s->ctx, &b, NULL), yes, "the count without answers");
            if (side == KEY_ABSENT)
                yes_absent += yes;
            i += count;
        }
    }
    return yes_absent;
}

enum { MANY_CHUNK = 7 };

/* One side's keys asked by query_many, MANY_CHUNK batches a call; each
 * call's answers must be those of query a batch at a time, and its count
 * the same with and without answers.  Returns the "yes" count. */
static uint64_t many_query_side(const pair_case *c, const setup *s, const filter *f, key_side side, uint64_t total,
                                key_batch *chunk)
{
    unsigned char many_answers[MANY_CHUNK * KEY_BATCH], batch_answers[MANY_CHUNK * KEY_BATCH];
    uint64_t yes = 0;
    for (uint64_t i = 0; i < total;) {
        size_t nb = 0, keys = 0;
        for (; nb < MANY_CHUNK && i < total; nb++) {
            size_t count = batch_count(i, total);
            keyset_fill(s->ks, s->seed, c->n, side, i, count, &chunk[nb]);
            s->ops.query(f, &s->ctx, &chunk[nb], batch_answers + keys);
            keys += count;
            i += count;
        }
        memset(many_answers, 0xAA, sizeof many_answers);
        const size_t found = s->ops.query_many(f, &s->ctx, chunk, nb, many_answers);
        cr_assert_eq(memcmp(many_answers, batch_answers, keys), 0, "%s/%s side %d: query_many's answers differ",
                     layout_name(c->layout), scheme_name(c->scheme), side);
        cr_assert_eq(s->ops.query_many(f, &s->ctx, chunk, nb, NULL), found, "the count without answers");
        yes += found;
    }
    return yes;
}

/* insert_many / query_many (pipelined over many batches) against the
 * batch-at-a-time filter: the same bits, the same answers. */
static void check_many(const pair_case *c, const setup *s, const filter *reference, uint64_t absent_yes)
{
    key_batch *chunk = malloc(MANY_CHUNK * sizeof *chunk);
    filter f;
    cr_assert_eq(filter_init(&f, reference->layout, reference->m, reference->k), 0);
    for (uint64_t i = 0; i < c->n;) {
        size_t nb = 0;
        for (; nb < MANY_CHUNK && i < c->n; nb++) {
            size_t count = batch_count(i, c->n);
            keyset_fill(s->ks, s->seed, c->n, KEY_PRESENT, i, count, &chunk[nb]);
            i += count;
        }
        s->ops.insert_many(&f, &s->ctx, chunk, nb);
    }
    filter_flush(&f);
    cr_assert_eq(memcmp(f.words, reference->words, f.word_count * 8), 0, "%s/%s: insert_many differs",
                 layout_name(c->layout), scheme_name(c->scheme));
    cr_assert_eq(f.saturations, reference->saturations);
    const uint64_t yes = many_query_side(c, s, &f, KEY_ABSENT, c->queries, chunk);
    cr_assert_eq(yes, absent_yes, "%s/%s: query_many counts %llu, query %llu", layout_name(c->layout),
                 scheme_name(c->scheme), (unsigned long long)yes, (unsigned long long)absent_yes);
    cr_assert_eq(many_query_side(c, s, &f, KEY_PRESENT, c->n, chunk), c->n, "a false negative from query_many");
    cr_assert_eq(s->ops.query_many(&f, &s->ctx, chunk, 0, NULL), 0);
    filter_free(&f);
    free(chunk);
}

static void check_pair_ops(const pair_case *c);

/* Both sets of loops where they differ (the AVX-512 ones of avx512.h on a
 * CPU that has it): each against the reference. */
static void check_pair(const pair_case *c)
{
    pair_case fastest = *c, portable = *c;
    fastest.portable = 0;
    portable.portable = 1;
    check_pair_ops(&fastest);
    if (filter_ops_for(c->layout, c->scheme).query != filter_ops_portable(c->layout, c->scheme).query)
        check_pair_ops(&portable);
}

static void check_pair_ops(const pair_case *c)
{
    char err[512];
    if (layout_check(c->layout, c->scheme, c->m, c->k, err, sizeof err) != 0)
        return;
    setup s;
    setup_open(c, 0x5eed0000 + c->m + c->k, &s);
    filter batched, one;
    uint64_t m = layout_fit_m(c->layout, c->m);
    cr_assert_eq(filter_init(&batched, c->layout, m, c->k), 0);
    cr_assert_eq(filter_init(&one, c->layout, m, c->k), 0);
    insert_both(c, &s, &batched, &one);
    cr_assert_eq(memcmp(batched.words, one.words, batched.word_count * 8), 0, "%s/%s/%s m=%llu k=%u%s: bits differ",
                 layout_name(c->layout), scheme_name(c->scheme), c->hash, (unsigned long long)m, c->k,
                 c->portable ? " (portable loops)" : "");
    cr_assert_eq(batched.saturations, one.saturations);
    uint64_t absent_yes = compare_queries(c, &s, &batched);
    check_many(c, &s, &batched, absent_yes);
    /* remove: the batched loop against one-key removal through a batch of one */
    key_batch b;
    for (uint64_t i = 0; i < c->n / 2;) {
        size_t count = batch_count(i, c->n / 2);
        keyset_fill(s.ks, s.seed, c->n, KEY_PRESENT, i, count, &b);
        s.ops.remove(&batched, &s.ctx, &b);
        for (size_t j = 0; j < count; j++) {
            key_batch single;
            keyset_fill(s.ks, s.seed, c->n, KEY_PRESENT, i + j, 1, &single);
            s.ops.remove(&one, &s.ctx, &single);
        }
        i += count;
    }
    cr_assert_eq(memcmp(batched.words, one.words, batched.word_count * 8), 0, "after remove: bits differ");
    cr_assert_eq(batched.bad_deletes, one.bad_deletes);
    filter_free(&batched);
    filter_free(&one);
    keyset_close(s.ks);
}

static const char *const HASHES[] = {"xxh3_64", "xxh3_128", "murmur3_128", "fnv1a32"};

Test(batch, every_pair_small_m)
{
    static const uint64_t MS[] = {1000003, 65536, 4099};
    static const unsigned KS[] = {1, 2, 7, 8, 17};
    for (int l = 0; l < LAYOUT_COUNT; l++)
        for (int s = 0; s < SCHEME_COUNT; s++)
            for (size_t mi = 0; mi < 3; mi++)
                for (size_t ki = 0; ki < 5; ki++) {
                    uint64_t m = MS[mi];
                    unsigned k = KS[ki];
                    /* about half full, so that queries exit early and late */
                    uint64_t n = (uint64_t)(0.69 * (double)m / k) + 1;
                    if (n > 3000)
                        n = 3000;
                    pair_case c = {(layout_kind)l, (scheme_kind)s, HASHES[(mi + ki) % 4], "random64", m, k, n, 2000, 0};
                    check_pair(&c);
                }
}

Test(batch, urls_and_big_k)
{
    static const unsigned KS[] = {7, 33, 64};
    for (int l = 0; l < LAYOUT_COUNT; l++)
        for (int s = 0; s < SCHEME_COUNT; s++)
            for (size_t ki = 0; ki < 3; ki++)
                for (size_t h = 0; h < 2; h++) {
                    uint64_t m = 200003;
                    pair_case c = {(layout_kind)l, (scheme_kind)s, HASHES[h], "urls", m, KS[ki], 1500, 1500, 0};
                    check_pair(&c);
                }
}

Test(batch, seq64_and_course_scheme)
{
    for (int l = 0; l < LAYOUT_COUNT; l++)
        for (int s = 0; s < SCHEME_COUNT; s++) {
            pair_case c = {(layout_kind)l, (scheme_kind)s, "xxh3_64", "seq64", 1 << 18, 8, 20000, 5000, 0};
            check_pair(&c);
        }
}

/* mulx64 (Boost's integer mix) through every layout's ops at this level:
 * at avx2 the split block hashes its 8-byte keys in the loop (avx2.c's
 * mulx64 stamping), elsewhere the generic batch hasher; urls' keys are
 * not 8 bytes long (fold(XXH3_64)). */
Test(batch, mulx64_every_pair)
{
    static const char *const KEYS[] = {"random64", "seq64", "urls"};
    for (int l = 0; l < LAYOUT_COUNT; l++)
        for (int s = 0; s < SCHEME_COUNT; s++)
            for (size_t i = 0; i < 3; i++) {
                pair_case c = {(layout_kind)l, (scheme_kind)s, "mulx64", KEYS[i], 1 << 18, 8, 3000, 2000, 0};
                check_pair(&c);
            }
}

/* Counters driven far past 15 (24 increments a counter on average): the
 * vector and portable loops lose the same increments as the reference. */
Test(batch, counting_saturates_alike)
{
    static const uint64_t MS[] = {1000, 4099};
    for (size_t mi = 0; mi < 2; mi++) {
        pair_case c = {LAYOUT_COUNTING, SCHEME_DOUBLE, "xxh3_64", "random64", MS[mi], 8, 3 * MS[mi], 2000, 0};
        check_pair(&c);
    }
}

/* The (index, value) pairs of the nonzero words. */
static size_t nonzero_words(const filter *f, uint64_t *index, uint64_t *value, size_t max)
{
    size_t got = 0;
    for (uint64_t i = 0; i < f->word_count; i++)
        if (f->words[i] != 0) {
            cr_assert_lt(got, max);
            index[got] = i;
            value[got++] = f->words[i];
        }
    return got;
}

/* m > 2^32: one filter, filled batched then refilled one key at a time; the
 * set words must be the same, and so must the answers. */
Test(batch, m_above_2_32_sparse, .timeout = 120)
{
    static const layout_kind LAYOUTS[] = {LAYOUT_STANDARD, LAYOUT_PARTITIONED, LAYOUT_BLOCKED512};
    static const scheme_kind SCHEMES[] = {SCHEME_DOUBLE, SCHEME_IDEAL, SCHEME_ENHANCED};
    const uint64_t m = (1ULL << 32) / 4 * 5 + 1000001; /* a fifth of the positions above 2^32 */
    enum { N = 2000, MAXW = N * 8 + 64 };
    uint64_t *idx_a = malloc(MAXW * 8), *val_a = malloc(MAXW * 8), *idx_b = malloc(MAXW * 8), *val_b = malloc(MAXW * 8);
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, m, 1), 0);
    for (size_t l = 0; l < 3; l++)
        for (size_t s = 0; s < 3; s++) {
            unsigned k = LAYOUTS[l] == LAYOUT_PARTITIONED ? 1 : 5; /* k = 1: one slice of m > 2^32 */
            uint64_t fit = layout_fit_m(LAYOUTS[l], m);
            filter_free(&f);
            cr_assert_eq(filter_init(&f, LAYOUTS[l], fit, k), 0);
            pair_case c = {LAYOUTS[l], SCHEMES[s], "xxh3_128", "random64", fit, k, N, 1000, 0};
            setup st;
            setup_open(&c, 77 + l * 3 + s, &st);
            key_batch b;
            for (uint64_t i = 0; i < N; i += KEY_BATCH) {
                keyset_fill(st.ks, st.seed, N, KEY_PRESENT, i, KEY_BATCH, &b);
                st.ops.insert(&f, &st.ctx, &b);
            }
            filter_flush(&f);
            size_t na = nonzero_words(&f, idx_a, val_a, MAXW);
            uint64_t high = 0; /* some position must lie above 2^32 */
            for (size_t i = 0; i < na; i++)
                high += idx_a[i] * 64 >= (1ULL << 32);
            cr_assert_gt(high, 0, "%s/%s: no bit above 2^32", layout_name(c.layout), scheme_name(c.scheme));
            compare_queries(&c, &st, &f);
            filter_clear(&f);
            for (uint64_t i = 0; i < N; i += KEY_BATCH) {
                keyset_fill(st.ks, st.seed, N, KEY_PRESENT, i, KEY_BATCH, &b);
                for (size_t j = 0; j < b.count; j++)
                    filter_insert_one(&f, c.scheme, &st.ctx, b.ptr[j], b.len[j], b.id[j]);
            }
            size_t nb = nonzero_words(&f, idx_b, val_b, MAXW);
            cr_assert_eq(na, nb);
            cr_assert_eq(memcmp(idx_a, idx_b, na * 8), 0);
            cr_assert_eq(memcmp(val_a, val_b, na * 8), 0);
            keyset_close(st.ks);
        }
    filter_free(&f);
    free(idx_a);
    free(val_a);
    free(idx_b);
    free(val_b);
}

/* ideal_draw is exactly uniform: chi-square over small ranges (where a
 * biased reduction would show) within 5 sigma of its mean. */
Test(batch, ideal_draw_uniform)
{
    static const uint64_t RANGES[] = {3, 7, 1000, (1ULL << 31) + 1};
    for (size_t r = 0; r < 4; r++) {
        uint64_t range = RANGES[r];
        uint64_t buckets = range < 1000 ? range : 1000;
        uint64_t *count = calloc(buckets, sizeof *count);
        pcg32_t rng;
        pcg32_seed(&rng, 42 + r, 54);
        const uint64_t draws = 2000000;
        for (uint64_t i = 0; i < draws; i++) {
            uint64_t v = ideal_draw(&rng, range);
            cr_assert_lt(v, range);
            /* equal-width buckets of the range (exact for range <= 1000) */
            count[(uint64_t)(((pcg_u128)v * buckets) / range)]++;
        }
        double chi = 0;
        for (uint64_t b = 0; b < buckets; b++) {
            double lo = ceil((double)b * (double)range / (double)buckets);
            double hi = ceil((double)(b + 1) * (double)range / (double)buckets);
            double expect = (double)draws * (hi - lo) / (double)range;
            chi += ((double)count[b] - expect) * ((double)count[b] - expect) / expect;
        }
        double dof = (double)buckets - 1;
        cr_assert_lt(fabs(chi - dof), 5 * sqrt(2 * dof) + 5, "range %llu: chi-square %g on %g dof",
                     (unsigned long long)range, chi, dof);
        free(count);
    }
    /* range 2^32: the draw is the output itself */
    pcg32_t a, b;
    pcg32_seed(&a, 9, 9);
    pcg32_seed(&b, 9, 9);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(ideal_draw(&a, 1ULL << 32), pcg32_next(&b));
    /* the inlined seeding equals pcg32_seed */
    pcg32_t inl, ref;
    ideal_seed(&inl, 123, 456);
    pcg32_seed(&ref, mix64(456 ^ mix64(123)), 123);
    cr_assert_eq(inl.state, ref.state);
    cr_assert_eq(inl.inc, ref.inc);
}

/* The batch hashers of batch_hash.h that inline a hash (xxh3_64's XXH3,
 * mulx64's product) give the registry's values: a filter built through the
 * batch path equals one built through a hasher that calls the same
 * function under another name (batch_hash_generic, a call a key), and the
 * two answer every query alike: 8-byte keys (the inline loops) and URLs
 * (other lengths), split into (h1, h2) or raw (the course scheme), over
 * layouts whose loops take the batch hashers at every level. */
Test(batch, inline_hashers_equal_library)
{
    static const char *const HASHES[] = {"xxh3_64", "mulx64"};
    static const char *const KEYSETS[] = {"random64", "urls"};
    static const struct {
        layout_kind layout;
        scheme_kind scheme;
    } CASES[] = {{LAYOUT_STANDARD, SCHEME_DOUBLE}, {LAYOUT_STANDARD, SCHEME_COURSE}, {LAYOUT_COUNTING, SCHEME_DOUBLE},
                 {LAYOUT_BLOCKED512, SCHEME_DOUBLE}, {LAYOUT_PARTITIONED, SCHEME_DOUBLE}};
    char err[256];
    for (size_t hi = 0; hi < 2; hi++)
        for (size_t ki = 0; ki < 2; ki++)
            for (size_t ci = 0; ci < sizeof CASES / sizeof CASES[0]; ci++) {
                hasher lib;
                cr_assert_eq(hasher_resolve(HASHES[hi], &lib, err, sizeof err), 0, "%s", err);
                hasher renamed = lib;
                snprintf(renamed.name, sizeof renamed.name, "%s-via-pointer", HASHES[hi]);
                keyset *ks = keyset_open(KEYSETS[ki], err, sizeof err);
                cr_assert_not_null(ks, "%s", err);
                const layout_kind layout = CASES[ci].layout;
                const uint64_t m = layout_fit_m(layout, 1ULL << 17);
                filter a, b;
                cr_assert_eq(filter_init(&a, layout, m, 7), 0);
                cr_assert_eq(filter_init(&b, layout, m, 7), 0);
                scheme_ctx ca = {&lib, 99, log2_floor(m)}, cb = {&renamed, 99, log2_floor(m)};
                filter_ops ops = filter_ops_for(layout, CASES[ci].scheme);
                key_batch kb[4];
                for (uint64_t i = 0; i < 8000; i += 4 * KEY_BATCH) {
                    for (size_t t = 0; t < 4; t++)
                        keyset_fill(ks, 99, 8000, KEY_PRESENT, i + t * KEY_BATCH, KEY_BATCH, &kb[t]);
                    ops.insert_many(&a, &ca, kb, 4);
                    ops.insert_many(&b, &cb, kb, 4);
                }
                filter_flush(&a);
                filter_flush(&b);
                cr_assert_eq(memcmp(a.words, b.words, a.word_count * 8), 0, "%s, %s keys, %s/%s: bits differ",
                             HASHES[hi], KEYSETS[ki], layout_name(layout), scheme_name(CASES[ci].scheme));
                for (int side = 0; side < 2; side++) {
                    unsigned char ya[4 * KEY_BATCH], yb[4 * KEY_BATCH];
                    for (size_t t = 0; t < 4; t++)
                        keyset_fill(ks, 99, 8000, (key_side)side, 100 + t * KEY_BATCH, KEY_BATCH, &kb[t]);
                    const size_t found = ops.query_many(&a, &ca, kb, 4, ya);
                    cr_assert_eq(ops.query_many(&b, &cb, kb, 4, yb), found);
                    cr_assert_eq(memcmp(ya, yb, sizeof ya), 0, "%s, %s keys, %s: answers differ", HASHES[hi],
                                 KEYSETS[ki], layout_name(layout));
                    if (side == KEY_PRESENT)
                        cr_assert_eq(found, 4 * KEY_BATCH, "no false negatives");
                }
                filter_free(&a);
                filter_free(&b);
                keyset_close(ks);
            }
}

/* Filters of 4 MiB and more take the phased query loops (batch.c; the
 * AVX-512 one for standard/double past L2): the same answers as the
 * one-key reference there too.  The present keys pass every phase; at this
 * fill (about 2%) some absent keys fail in phase 1. */
Test(batch, phased_queries_on_large_filters, .timeout = 120)
{
    static const layout_kind LAYOUTS[] = {LAYOUT_STANDARD, LAYOUT_COUNTING, LAYOUT_PARTITIONED};
    for (size_t l = 0; l < 3; l++)
        for (int s = 0; s < SCHEME_COUNT; s++) {
            pair_case c = {LAYOUTS[l], (scheme_kind)s, "xxh3_64", "random64", 1ULL << 25, 7, 100000, 5000, 0};
            check_pair(&c);
        }
    pair_case big_k = {LAYOUT_STANDARD, SCHEME_DOUBLE, "xxh3_128", "urls", (1ULL << 25) + 12345, 33, 20000, 5000, 0};
    check_pair(&big_k);
}

/* Half-full standard and partitioned filters twice the size of this
 * machine's L2, which filter_ops_for answers with the phased AVX-512 loops:
 * absent keys leave in every phase, and the answers are still the
 * reference's. */
Test(batch, past_l2_half_full, .timeout = 300)
{
    const uint64_t m = 16 * cache_l2_bytes() + 12345;
    for (int l = 0; l < 2; l++) {
        pair_case c = {l ? LAYOUT_PARTITIONED : LAYOUT_STANDARD, SCHEME_DOUBLE, "xxh3_64", "random64", m, 7,
                       (uint64_t)(0.69 * (double)m / 7), 20000, 0};
        check_pair(&c);
    }
}

/* A filter about half full (n = 0.69 m / k + 1 keys), built by the one-key
 * reference with xxh3_64 + double; returns n. */
static uint64_t half_full_reference(filter *f, layout_kind layout, uint64_t m, unsigned k, const scheme_ctx *ctx,
                                    const keyset *ks)
{
    const uint64_t n = (uint64_t)(0.69 * (double)m / k) + 1;
    cr_assert_eq(filter_init(f, layout, m, k), 0);
    key_batch b;
    for (uint64_t i = 0; i < n; i++) {
        keyset_fill(ks, ctx->seed, n, KEY_PRESENT, i, 1, &b);
        filter_insert_one(f, SCHEME_DOUBLE, ctx, b.ptr[0], b.len[0], b.id[0]);
    }
    return n;
}

/* The (h1, h2) of count keys of one side, present ones cycling through the n inserted. */
static void split_keys(const keyset *ks, uint64_t seed, uint64_t n, key_side side, size_t count, uint64_t *h1,
                       uint64_t *h2)
{
    key_batch b;
    for (size_t t = 0; t < count; t++) {
        keyset_fill(ks, seed, n, side, side == KEY_PRESENT ? t % n : t, 1, &b);
        cr_assert_eq(avx512_keys8_split(KEYS8_XXH3_64, seed, &b, h1 + t, h2 + t), 0);
    }
}

/* The all-k AVX-512 query and the phased one of a standard or partitioned
 * filter (through the layout's own functions). */
static size_t all_k_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    return (f->layout == LAYOUT_PARTITIONED ? avx512_partitioned_query : avx512_standard_query)(f, h1, h2, count, answer);
}

static size_t phased_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    return (f->layout == LAYOUT_PARTITIONED ? avx512_partitioned_query_phased : avx512_standard_query_phased)(
        f, h1, h2, count, answer);
}

/* The phased AVX-512 queries (standard, partitioned), and the standard
 * one's 64-bit twin for filters of 2^32 bits and more, against the all-k
 * ones, called directly on the same (h1, h2),
 * so that they are tested whatever the L2 of the machine: a filter about
 * half full, k from 1 to 64, runs of every length class (1, under one
 * group of 16, exactly 16, past it, a full run). */
Test(batch, avx512_phased_equals_all_k)
{
    if (!avx512_usable())
        return;
    static const uint64_t MS[] = {4099, 65536, 1000003};
    static const unsigned KS[] = {1, 2, 3, 7, 8, 17, 64};
    static const size_t COUNTS[] = {1, 15, 16, 17, 200, AVX512_MAX_KEYS};
    static uint64_t h1[AVX512_MAX_KEYS], h2[AVX512_MAX_KEYS];
    for (size_t mi = 0; mi < 3 * 7 * 2; mi++) {
        const uint64_t m = MS[mi % 3];
        const unsigned k = KS[mi / 3 % 7];
        const layout_kind layout = mi < 21 ? LAYOUT_STANDARD : LAYOUT_PARTITIONED;
        const pair_case c = {layout, SCHEME_DOUBLE, "xxh3_64", "random64", m, k, 0, 0, 0};
        setup st;
        setup_open(&c, 31 * m + k, &st);
        const uint64_t seed = st.seed;
        keyset *ks = st.ks;
        filter f;
        const uint64_t n = half_full_reference(&f, layout, m, k, &st.ctx, ks);
        for (size_t ci = 0; ci < 6; ci++)
            for (int side = 0; side < 2; side++) {
                const size_t count = COUNTS[ci];
                split_keys(ks, seed, n, (key_side)side, count, h1, h2);
                unsigned char all_k[AVX512_MAX_KEYS], phased[AVX512_MAX_KEYS], wide[AVX512_MAX_KEYS];
                memset(phased, 0xAA, sizeof phased);
                memset(wide, 0xAA, sizeof wide);
                size_t yes = all_k_query(&f, h1, h2, count, all_k);
                cr_assert_eq(phased_query(&f, h1, h2, count, phased), yes);
                cr_assert_eq(memcmp(all_k, phased, count), 0, "%s m=%llu k=%u count=%zu side %d",
                             layout_name(layout), (unsigned long long)m, k, count, side);
                cr_assert_eq(phased_query(&f, h1, h2, count, NULL), yes);
                if (layout == LAYOUT_STANDARD) {
                    cr_assert_eq(avx512_standard_query_phased_wide(&f, h1, h2, count, wide), yes);
                    cr_assert_eq(memcmp(all_k, wide, count), 0, "wide: m=%llu k=%u count=%zu side %d",
                                 (unsigned long long)m, k, count, side);
                }
                if (side == KEY_PRESENT)
                    cr_assert_eq(yes, count, "no false negatives");
                else if (count >= 200) /* all passing: chance (1/2)^200 at most */
                    cr_assert(yes < count, "m=%llu k=%u: some absent key must fail", (unsigned long long)m, k);
            }
        filter_free(&f);
        keyset_close(ks);
    }
}

/* The queries that hash 8-byte keys in their loop (avx512_*_query_keys8)
 * against the same loops on the keys' (h1, h2) from avx512_keys8_split:
 * the same answers and counts for standard, counting, partitioned and
 * blocked512 filters about half full, k from 1 to 64, runs of every length class,
 * with the keys gathered by avx512_keys8 from batches of uneven sizes. */
Test(batch, avx512_keys8_queries_equal_hashed)
{
    if (!avx512_usable())
        return;
    static const layout_kind LAYOUTS[] = {LAYOUT_STANDARD, LAYOUT_COUNTING, LAYOUT_PARTITIONED, LAYOUT_BLOCKED512};
    static avx512_query_fn *const HASHED[] = {avx512_standard_query, avx512_counting_query, avx512_partitioned_query,
                                              avx512_blocked512_query};
    static avx512_query_keys8_fn *const KEYS8[] = {avx512_standard_query_keys8, avx512_counting_query_keys8,
                                                   avx512_partitioned_query_keys8, avx512_blocked512_query_keys8};
    static const unsigned KS[] = {1, 2, 7, 17, 64};
    static const size_t COUNTS[] = {1, 15, 16, 17, 200, AVX512_MAX_KEYS};
    static uint64_t h1[AVX512_MAX_KEYS], h2[AVX512_MAX_KEYS], key[AVX512_MAX_KEYS + 8];
    static key_batch batches[AVX512_MAX_KEYS];
    for (size_t l = 0; l < 4; l++)
        for (size_t ki = 0; ki < 5; ki++) {
            const uint64_t m = layout_fit_m(LAYOUTS[l], 65536 + 4099 * ki);
            const pair_case c = {LAYOUTS[l], SCHEME_DOUBLE, "xxh3_64", "random64", m, KS[ki], 0, 0, 0};
            setup st;
            setup_open(&c, 77 * m + l, &st);
            filter f;
            const uint64_t n = half_full_reference(&f, c.layout, m, c.k, &st.ctx, st.ks);
            for (size_t ci = 0; ci < 6; ci++)
                for (int side = 0; side < 2; side++) {
                    const size_t count = COUNTS[ci];
                    size_t nb = 0;
                    for (size_t t = 0; t < count; nb++) { /* batches of 1 .. KEY_BATCH keys */
                        const size_t want = batch_count(t + ci, count + ci);
                        keyset_fill(st.ks, st.seed, n, (key_side)side, side == KEY_PRESENT ? t % n : t, want, &batches[nb]);
                        cr_assert_eq(avx512_keys8_split(KEYS8_XXH3_64, st.seed, &batches[nb], h1 + t, h2 + t), 0);
                        t += want;
                    }
                    cr_assert_eq(avx512_keys8(batches, nb, key), (long)count);
                    unsigned char hashed[AVX512_MAX_KEYS], keyed[AVX512_MAX_KEYS];
                    memset(keyed, 0xAA, sizeof keyed);
                    const size_t yes = HASHED[l](&f, h1, h2, count, hashed);
                    cr_assert_eq(KEYS8[l](&f, st.seed, key, count, keyed), yes, "%s k=%u count=%zu side %d",
                                 layout_name(c.layout), c.k, count, side);
                    cr_assert_eq(memcmp(hashed, keyed, count), 0, "%s k=%u count=%zu side %d", layout_name(c.layout),
                                 c.k, count, side);
                    cr_assert_eq(KEYS8[l](&f, st.seed, key, count, NULL), yes);
                    if (side == KEY_PRESENT)
                        cr_assert_eq(yes, count, "no false negatives");
                    else if (count >= 200)
                        cr_assert(yes < count, "some absent key must fail");
                }
            filter_free(&f);
            keyset_close(st.ks);
        }
}

/* The vector reductions are floor(u m / 2^64) exactly: against 128-bit
 * arithmetic for an m below 2^32 (two products) and for m past 2^32 up to
 * 2^64 - 1 (four), with values u whose high bits make every carry. */
Test(batch, avx512_wide_positions_exact)
{
    if (!avx512_usable())
        return;
    static const uint64_t MS[] = {(1ULL << 32) + 1, 10000000000ULL, (1ULL << 41) - 1, 0xFFFFFFFFFFFFFFFFULL, 1000003};
    enum { COUNT = 61, K = 9 };
    uint64_t h1[COUNT], h2[COUNT], pos[COUNT * K + 8];
    for (size_t j = 0; j < COUNT; j++) {
        h1[j] = j < 4 ? ~0ULL - j : mix64(j); /* the largest values first: every carry */
        h2[j] = j % 5 == 0 ? 0xFFFFFFFF00000000ULL : mix64(h1[j]);
    }
    for (size_t mi = 0; mi < 5; mi++) {
        const uint64_t m = MS[mi];
        avx512_standard_positions(m, K, h1, h2, COUNT, pos); /* the four-product reduction from 2^32 on */
        /* eight keys at a time, position-major: key 8 g + l, position i at 8 g K + i lanes + l */
        for (size_t g = 0; g < COUNT; g += 8) {
            const size_t lanes = COUNT - g < 8 ? COUNT - g : 8;
            for (unsigned i = 0; i < K; i++)
                for (size_t l = 0; l < lanes; l++) {
                    uint64_t u = h1[g + l] + i * h2[g + l];
                    uint64_t want = (uint64_t)(((pcg_u128)u * m) >> 64);
                    cr_assert_eq(pos[g * K + i * lanes + l], want, "m=%llu key %zu position %u",
                                 (unsigned long long)m, g + l, i);
                }
        }
    }
}

/* The blocked512 query with 64-bit gathers, which filters past 2^32 bits
 * take, against the 32-bit one on half-full filters below it. */
Test(batch, avx512_blocked512_wide_equals_narrow)
{
    if (!avx512_usable())
        return;
    static const uint64_t BLOCKS[] = {1, 9, 2000};
    static const unsigned KS[] = {1, 7, 16};
    static uint64_t h1[AVX512_MAX_KEYS], h2[AVX512_MAX_KEYS];
    for (size_t bi = 0; bi < 3; bi++)
        for (size_t ki = 0; ki < 3; ki++) {
            const uint64_t m = 512 * BLOCKS[bi];
            const unsigned k = KS[ki];
            const pair_case c = {LAYOUT_BLOCKED512, SCHEME_DOUBLE, "xxh3_64", "random64", m, k, 0, 0, 0};
            setup st;
            setup_open(&c, 5 + m, &st);
            filter f;
            const uint64_t n = half_full_reference(&f, LAYOUT_BLOCKED512, m, k, &st.ctx, st.ks);
            enum { HALF = AVX512_MAX_KEYS / 2 }; /* present keys, then absent ones */
            split_keys(st.ks, st.seed, n, KEY_PRESENT, HALF, h1, h2);
            split_keys(st.ks, st.seed, n, KEY_ABSENT, HALF, h1 + HALF, h2 + HALF);
            unsigned char narrow[AVX512_MAX_KEYS], wide[AVX512_MAX_KEYS];
            for (size_t count = 1; count <= AVX512_MAX_KEYS; count += 51) {
                size_t yes = avx512_blocked512_query(&f, h1, h2, count, narrow);
                cr_assert_eq(avx512_blocked512_query_wide(&f, h1, h2, count, wide), yes);
                cr_assert_eq(memcmp(narrow, wide, count), 0, "blocks=%llu k=%u count=%zu",
                             (unsigned long long)f.blocks, k, count);
                for (size_t t = 0; t < count && t < HALF; t++)
                    cr_assert_eq(wide[t], 1, "present key %zu answered absent", t);
            }
            filter_free(&f);
            keyset_close(st.ks);
        }
}

/* Vector loops are what filter_ops_for gives for every layout with double
 * hashing exactly when cpu_isa() reaches avx2: the AVX-512 ones at avx512,
 * the AVX2 ones at avx2 (so the tests above ran them here; the tests of a
 * level the CPU lacks return early: information, printed, never a
 * failure); BLOOMLAB_ISA=portable turns them off, and =avx2 on an AVX-512
 * CPU gives the AVX2 loops, not the AVX-512 ones. */
Test(batch, isa_dispatch)
{
    static const layout_kind FAST[] = {LAYOUT_STANDARD,   LAYOUT_COUNTING,   LAYOUT_PARTITIONED,
                                       LAYOUT_BLOCKED512, LAYOUT_REGISTER64, LAYOUT_SPLITBLOCK};
    const size_t nfast = sizeof FAST / sizeof FAST[0];
    char level[160];
    cr_log_info("vector loops: %s", cpu_isa_describe(level, sizeof level));
    const int vector = cpu_isa() >= ISA_AVX2;
    cr_assert_eq(avx512_usable(), cpu_isa() >= ISA_AVX512);
    cr_assert(strncmp(filter_ops_description(), isa_name(cpu_isa()), strlen(isa_name(cpu_isa()))) == 0,
              "the description names the level whose loops run: %s", filter_ops_description());
    for (size_t l = 0; l < nfast; l++) {
        int differs = filter_ops_for(FAST[l], SCHEME_DOUBLE).query != filter_ops_portable(FAST[l], SCHEME_DOUBLE).query;
        cr_assert_eq(differs, vector, "%s/double", layout_name(FAST[l]));
    }
    for (int l = 0; l < LAYOUT_COUNT; l++)
        cr_assert(filter_ops_for((layout_kind)l, SCHEME_IDEAL).query == filter_ops_portable((layout_kind)l, SCHEME_IDEAL).query);
    char *saved = isa_env_set("portable");
    filter_ops at[ISA_COUNT][6];
    static const char *const LEVELS[] = {"portable", "avx2", "avx512"};
    for (int i = 0; i < ISA_COUNT; i++) {
        setenv("BLOOMLAB_ISA", LEVELS[i], 1);
        cr_assert_eq(avx512_usable(), i >= ISA_AVX512 && cpu_isa_supported() >= ISA_AVX512, "BLOOMLAB_ISA=%s", LEVELS[i]);
        cr_assert_eq(cpu_isa(), (isa_level)i < cpu_isa_supported() ? (isa_level)i : cpu_isa_supported());
        cr_assert(strncmp(filter_ops_description(), isa_name(cpu_isa()), strlen(isa_name(cpu_isa()))) == 0);
        for (size_t l = 0; l < nfast; l++)
            at[i][l] = filter_ops_for(FAST[l], SCHEME_DOUBLE);
    }
    for (size_t l = 0; l < nfast; l++) {
        const filter_ops portable = filter_ops_portable(FAST[l], SCHEME_DOUBLE);
        cr_assert(at[ISA_PORTABLE][l].query == portable.query && at[ISA_PORTABLE][l].insert == portable.insert);
        const int avx2 = cpu_isa_supported() >= ISA_AVX2, avx512 = cpu_isa_supported() >= ISA_AVX512;
        cr_assert_eq(at[ISA_AVX2][l].query != portable.query, avx2, "%s: the AVX2 loops at avx2", layout_name(FAST[l]));
        cr_assert_eq(at[ISA_AVX512][l].query != at[ISA_AVX2][l].query, avx512, "%s: the AVX-512 loops at avx512",
                     layout_name(FAST[l]));
    }
    setenv("BLOOMLAB_ISA", "portable", 1);
    cr_assert_eq(cpu_isa(), ISA_PORTABLE);
    /* a level above the CPU's is capped at the CPU's */
    setenv("BLOOMLAB_ISA", "avx512", 1);
    cr_assert_eq(cpu_isa(), cpu_isa_supported());
    char err[160];
    cr_assert_eq(cpu_isa_env_check(err, sizeof err), 0);
    setenv("BLOOMLAB_ISA", "sse9", 1);
    cr_assert_eq(cpu_isa_env_check(err, sizeof err), -1);
    cr_assert(strstr(err, "sse9") != NULL, "%s", err);
    cr_assert_eq(cpu_isa(), cpu_isa_supported(), "an unknown level caps nothing (main refuses it first)");
    isa_env_restore(saved);
}

/* The core's vendor and family as the kernel reads them (/proc/cpuinfo's
 * vendor_id and cpu family, where there is one), and the fetch plan the
 * split block follows from them (filters.h): AMD family 26 on the
 * window, every other core ahead; a plan set holds until the core's is
 * asked for again. */
Test(batch, core_family_and_fetch_plan)
{
    const cpu_vendor vendor = cpu_x86_vendor();
    const unsigned family = cpu_x86_family();
    FILE *info = fopen("/proc/cpuinfo", "r");
    if (info != NULL && BLOOMLAB_X86) {
        char line[256], name[64] = "";
        unsigned kernel_family = 0;
        int have_family = 0;
        while (fgets(line, sizeof line, info) != NULL && !have_family) { /* the first core's lines */
            sscanf(line, "vendor_id : %63s", name); /* a blank in the format takes the tab too */
            have_family = sscanf(line, "cpu family : %u", &kernel_family) == 1;
        }
        fclose(info);
        cr_assert(have_family, "no cpu family line in /proc/cpuinfo");
        cr_assert_eq(family, kernel_family, "family %u, the kernel's %u", family, kernel_family);
        cr_assert_eq(vendor,
                     strcmp(name, "AuthenticAMD") == 0   ? CPU_VENDOR_AMD
                     : strcmp(name, "GenuineIntel") == 0 ? CPU_VENDOR_INTEL
                                                         : CPU_VENDOR_OTHER,
                     "vendor %d, the kernel's %s", (int)vendor, name);
    } else if (info != NULL) {
        fclose(info);
    }
    filter_fetch_plan_set(FETCH_PLAN_CPU);
    cr_assert_eq(filter_fetch_plan(), vendor == CPU_VENDOR_AMD && family >= 26 ? FETCH_WINDOW : FETCH_AHEAD);
    filter_fetch_plan_set(FETCH_WINDOW);
    cr_assert_eq(filter_fetch_plan(), FETCH_WINDOW);
    filter_fetch_plan_set(FETCH_AHEAD);
    cr_assert_eq(filter_fetch_plan(), FETCH_AHEAD);
    filter_fetch_plan_set(FETCH_PLAN_CPU);
    cr_assert_eq(filter_fetch_plan(), vendor == CPU_VENDOR_AMD && family >= 26 ? FETCH_WINDOW : FETCH_AHEAD);
    cr_log_info("this core: vendor %d, family %u: the split block's blocks fetched %s", (int)vendor, family,
                fetch_plan_name(filter_fetch_plan()));
    if (cpu_isa_supported() < ISA_AVX2)
        return;
    /* the loops line names how the split block fetches: timed on each
     * filter's calls (fetch_tune.c), a shape forced, or a plan forced (at
     * the avx2 level the split block's, at the avx512 level the one its
     * loop follows beyond the last-level cache) */
    static const struct {
        const char *level, *where;
    } AT[] = {{"avx2", ""}, {"avx512", " beyond the last-level cache"}};
    const fetch_plan plans[] = {FETCH_AHEAD, FETCH_WINDOW};
    const size_t levels = cpu_isa_supported() >= ISA_AVX512 ? 2 : 1; /* avx2, and avx512 where it runs */
    for (size_t v = 0; v < levels; v++) {
        char *saved = isa_env_set(AT[v].level);
        for (size_t p = 0; p < 2; p++) {
            filter_fetch_plan_set(plans[p]);
            char want[96];
            snprintf(want, sizeof want, "; split block fetch plan%s: %s", AT[v].where, fetch_plan_name(plans[p]));
            cr_assert(strstr(filter_ops_description(), want) != NULL, "%s", filter_ops_description());
        }
        filter_fetch_plan_set(FETCH_PLAN_CPU);
        static const char TIMED[] =
            "; split block fetch shape and standard fetch plan: the fastest timed on each filter's calls";
        cr_assert(strstr(filter_ops_description(), TIMED) != NULL, "%s", filter_ops_description());
        fetch_tune_force(SHAPE_FAR_L2);
        cr_assert(strstr(filter_ops_description(), "; split block fetch shape: far-l2 (forced)") != NULL, "%s",
                  filter_ops_description());
        fetch_tune_force(-1);
        isa_env_restore(saved);
    }
}

/* filter_fetch_shape's rule, by the filter's size against L2 and the
 * last-level cache (set here at four times L2) and the plan: no prefetch
 * in L2; between the two the ahead plan's prefetch at hashing, the window
 * plan's from the ring; beyond the last-level cache two steps ahead, one
 * by the window plan. */
Test(batch, fetch_shape_by_size_and_plan)
{
    const uint64_t l2 = cache_l2_bytes(), llc_was = filter_stage_min_bytes();
    filter_stage_min_bytes_set(4 * l2);
    /* L2 full, past it, past twice L2, the LLC full, past it */
    const uint64_t bytes_of[] = {l2, l2 + 8, 2 * l2 + 8, 4 * l2, 4 * l2 + 8};
    static const struct {
        unsigned size; /* into bytes_of */
        fetch_plan plan;
        fetch_shape shape;
    } CASES[] = {
        {0, FETCH_AHEAD, SHAPE_NONE},          {0, FETCH_WINDOW, SHAPE_NONE},
        {1, FETCH_AHEAD, SHAPE_AT_HASH},       {1, FETCH_WINDOW, SHAPE_FROM_RING},
        {2, FETCH_AHEAD, SHAPE_AT_HASH},       {2, FETCH_WINDOW, SHAPE_FROM_RING},
        {3, FETCH_AHEAD, SHAPE_AT_HASH},       {3, FETCH_WINDOW, SHAPE_FROM_RING},
        {4, FETCH_AHEAD, SHAPE_FAR_TWO_STEPS}, {4, FETCH_WINDOW, SHAPE_FAR_ONE_STEP},
    };
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        filter f;
        memset(&f, 0, sizeof f);
        f.word_count = bytes_of[CASES[c].size] / 8;
        cr_assert_eq(filter_fetch_shape(&f, CASES[c].plan), CASES[c].shape, "case %zu", c);
    }
    filter_stage_min_bytes_set(llc_was);
}

/* Keys that do not lie side by side (words, urls of 8 bytes are rare) take
 * the gather through their pointers: a batch of 8-byte keys in scattered
 * slots hashes to the same values as the library's XXH3, and with mulx64
 * to the registry's scalar mulx64 (its 128-bit product). */
Test(batch, avx512_xxh3_scattered_keys)
{
    if (!avx512_usable())
        return;
    key_batch b;
    b.count = 21;
    b.packed8 = 0;
    for (size_t j = 0; j < b.count; j++) {
        for (int i = 0; i < 8; i++)
            b.store[j][i] = (unsigned char)(j * 31 + (size_t)i * 7 + 1);
        b.ptr[j] = b.store[(j * 5) % b.count]; /* out of order, 192 bytes apart */
        b.len[j] = 8;
    }
    uint64_t h1[KEY_BATCH], h2[KEY_BATCH];
    cr_assert_eq(avx512_keys8_split(KEYS8_XXH3_64, 77, &b, h1, h2), 0);
    for (size_t j = 0; j < b.count; j++) {
        cr_assert_eq(h1[j], XXH3_64bits_withSeed(b.ptr[j], 8, 77), "key %zu", j);
        cr_assert_eq(h2[j], mix64(h1[j]));
    }
    hasher mulx64;
    cr_assert_eq(hasher_builtin("mulx64", &mulx64), 0);
    cr_assert_eq(avx512_keys8_split(KEYS8_MULX64, 77, &b, h1, h2), 0);
    for (size_t j = 0; j < b.count; j++) { /* the registry's scalar 128-bit product, split as schemes.h does */
        uint64_t ref1, ref2;
        hash_split(hasher_hash(&mulx64, b.ptr[j], 8, 77), 64, &ref1, &ref2);
        cr_assert_eq(h1[j], ref1, "mulx64 key %zu", j);
        cr_assert_eq(h2[j], ref2, "mulx64 key %zu", j);
    }
    uint64_t key[KEY_BATCH + 8];
    cr_assert_eq(avx512_keys8(&b, 1, key), (long)b.count);
    for (size_t j = 0; j < b.count; j++) {
        uint64_t expect;
        memcpy(&expect, b.ptr[j], 8);
        cr_assert_eq(key[j], expect, "key %zu", j);
    }
    b.len[20] = 7;
    cr_assert_eq(avx512_keys8_split(KEYS8_XXH3_64, 77, &b, h1, h2), -1, "a 7-byte key is refused");
    cr_assert_eq(avx512_keys8_split(KEYS8_MULX64, 77, &b, h1, h2), -1, "a 7-byte key is refused");
    cr_assert_eq(avx512_keys8(&b, 1, key), -1);
}

/* A standard or partitioned filter beyond the staging threshold (the
 * last-level cache; here set to 32 MiB, whatever this machine's LLC) stages
 * its inserts (stage.c): enough keys that buckets fill and are applied mid-stream,
 * then the rest at filter_flush -- the same bits and answers as the
 * one-key reference, with every scheme. */
Test(batch, staged_inserts, .timeout = 300)
{
    filter_stage_min_bytes_set(32u << 20); /* stage past 32 MiB, whatever this machine's LLC */
    static const layout_kind LAYOUTS[] = {LAYOUT_STANDARD, LAYOUT_PARTITIONED};
    static const scheme_kind SCHEMES[] = {SCHEME_DOUBLE, SCHEME_IDEAL}; /* vector and portable positions */
    const uint64_t m = (1ULL << 28) + 4099; /* 32 MiB and a little: 129 regions, the last one short */
    for (size_t l = 0; l < 2; l++)
        for (size_t s = 0; s < 2; s++) {
            filter f;
            cr_assert_eq(filter_init(&f, LAYOUTS[l], m, 7), 0);
            cr_assert_not_null(f.stage, "%s of %llu bits stages", layout_name(LAYOUTS[l]), (unsigned long long)m);
            filter_free(&f);
            /* 700000 keys x 7 = 4.9 million positions: ~38000 a region, past a bucket's 32768 */
            pair_case c = {LAYOUTS[l], SCHEMES[s], "xxh3_64", "random64", m, 7, 700000, 20000, 0};
            check_pair(&c);
        }
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_COUNTING, m, 7), 0);
    cr_assert_null(f.stage, "counting filters insert straight");
    filter_free(&f);
    cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, 1u << 20, 7), 0);
    cr_assert_null(f.stage, "a filter in cache inserts straight");
    filter_free(&f);
}

/* filter_clear drops staged inserts along with the bits: a second fill
 * after a clear equals a fill of a fresh filter. */
Test(batch, clear_drops_staged_inserts)
{
    filter_stage_min_bytes_set(32u << 20); /* stage past 32 MiB, whatever this machine's LLC */
    const uint64_t m = (1ULL << 28) + 64;
    pair_case c = {LAYOUT_STANDARD, SCHEME_DOUBLE, "xxh3_64", "random64", m, 7, 5000, 0, 0};
    setup s;
    setup_open(&c, 4242, &s);
    filter a, b;
    cr_assert_eq(filter_init(&a, LAYOUT_STANDARD, m, 7), 0);
    cr_assert_eq(filter_init(&b, LAYOUT_STANDARD, m, 7), 0);
    key_batch kb;
    for (uint64_t i = 0; i < 5000; i += KEY_BATCH) {
        keyset_fill(s.ks, 4242, 5000, KEY_ABSENT, i, KEY_BATCH, &kb); /* staged, never flushed */
        s.ops.insert(&a, &s.ctx, &kb);
    }
    filter_clear(&a);
    for (uint64_t i = 0; i < 5000; i += KEY_BATCH) {
        keyset_fill(s.ks, 4242, 5000, KEY_PRESENT, i, KEY_BATCH, &kb);
        s.ops.insert(&a, &s.ctx, &kb);
        s.ops.insert(&b, &s.ctx, &kb);
    }
    filter_flush(&a);
    filter_flush(&b);
    cr_assert_eq(memcmp(a.words, b.words, a.word_count * 8), 0);
    cr_assert_eq(filter_bits_set(&a), filter_bits_set(&b));
    filter_free(&a);
    filter_free(&b);
    keyset_close(s.ks);
}

/* filter_stage_hold: a run of fewer positions than the filter has lines
 * sets its bits at once (the stage set aside, then put back, the same
 * stage), a run of as many is staged; the bits are the reference's. */
Test(batch, a_short_run_is_held_from_the_stage, .timeout = 120)
{
    filter_stage_min_bytes_set(32u << 20); /* stage past 32 MiB, whatever this machine's LLC */
    const uint64_t m = (1ULL << 28) + 64, lines = ((m + 63) / 64) / 8;
    pair_case c = {LAYOUT_STANDARD, SCHEME_DOUBLE, "xxh3_64", "random64", m, 7, 200, 0, 0};
    setup s;
    setup_open(&c, 1, &s);
    filter f, one;
    cr_assert_eq(filter_init(&f, c.layout, m, 7), 0);
    cr_assert_eq(filter_init(&one, c.layout, m, 7), 0);
    struct filter_stage *const stage = f.stage;
    cr_assert_not_null(stage);
    cr_assert_null(filter_stage_hold(&f, lines), "a run of a position a line is staged");
    cr_assert_eq(f.stage, stage);
    struct filter_stage *held = filter_stage_hold(&f, lines - 1);
    cr_assert_eq(held, stage, "a shorter run holds the stage");
    cr_assert_null(f.stage);
    key_batch kb;
    keyset_fill(s.ks, 1, 200, KEY_PRESENT, 0, KEY_BATCH, &kb);
    s.ops.insert_many(&f, &s.ctx, &kb, 1);
    for (size_t j = 0; j < KEY_BATCH; j++)
        filter_insert_one(&one, SCHEME_DOUBLE, &s.ctx, kb.ptr[j], kb.len[j], kb.id[j]);
    cr_assert(!stage->dirty, "the held run was not staged");
    filter_stage_restore(&f, held);
    cr_assert_eq(f.stage, stage, "the stage is back");
    keyset_fill(s.ks, 1, 200, KEY_PRESENT, KEY_BATCH, KEY_BATCH, &kb);
    s.ops.insert_many(&f, &s.ctx, &kb, 1);
    for (size_t j = 0; j < KEY_BATCH; j++)
        filter_insert_one(&one, SCHEME_DOUBLE, &s.ctx, kb.ptr[j], kb.len[j], kb.id[j]);
    cr_assert(stage->dirty, "after it, a full batch is staged again");
    filter_flush(&f);
    cr_assert_eq(memcmp(f.words, one.words, f.word_count * 8), 0, "bits differ");
    filter_free(&f);
    filter_free(&one);
    keyset_close(s.ks);
    filter_stage_min_bytes_set(0);
}

/* A batch of one key (a library user's bloomlab_add) into a filter that
 * stages is set at once, beside the staged keys: nothing of it is staged
 * (so that the flush each one-key call ends with has nothing to do), and
 * after the flush the bits are the reference's for all the keys. */
Test(batch, a_lone_key_is_not_staged, .timeout = 120)
{
    filter_stage_min_bytes_set(32u << 20); /* stage past 32 MiB, whatever this machine's LLC */
    const uint64_t m = (1ULL << 28) + 64;
    static const layout_kind LAYOUTS[] = {LAYOUT_STANDARD, LAYOUT_PARTITIONED};
    for (size_t l = 0; l < 2; l++)
        for (int portable = 0; portable < 2; portable++) {
            pair_case c = {LAYOUTS[l], SCHEME_DOUBLE, "xxh3_64", "random64", m, 7, 200, 0, portable};
            setup s;
            setup_open(&c, 1, &s);
            filter f, one;
            cr_assert_eq(filter_init(&f, c.layout, m, 7), 0);
            cr_assert_eq(filter_init(&one, c.layout, m, 7), 0);
            cr_assert_not_null(f.stage);
            key_batch kb;
            keyset_fill(s.ks, 1, 200, KEY_PRESENT, 0, KEY_BATCH, &kb); /* a full batch: staged */
            s.ops.insert(&f, &s.ctx, &kb);
            for (size_t j = 0; j < KEY_BATCH; j++)
                filter_insert_one(&one, SCHEME_DOUBLE, &s.ctx, kb.ptr[j], kb.len[j], kb.id[j]);
            cr_assert(f.stage->dirty, "%s: a full batch is staged", layout_name(c.layout));
            filter_flush(&f);
            for (uint64_t i = KEY_BATCH; i < 200; i++) {
                keyset_fill(s.ks, 1, 200, KEY_PRESENT, i, 1, &kb);
                s.ops.insert(&f, &s.ctx, &kb);
                filter_insert_one(&one, SCHEME_DOUBLE, &s.ctx, kb.ptr[0], kb.len[0], kb.id[0]);
                cr_assert(!f.stage->dirty, "%s%s: key %llu staged", layout_name(c.layout),
                          portable ? " (portable)" : "", (unsigned long long)i);
            }
            cr_assert_eq(memcmp(f.words, one.words, f.word_count * 8), 0, "%s: bits differ", layout_name(c.layout));
            filter_free(&f);
            filter_free(&one);
            keyset_close(s.ks);
        }
    filter_stage_min_bytes_set(0);
}

/* Reading a filter whose inserts are still staged is a bug, and says so. */
Test(batch, query_before_flush_aborts, .signal = SIGABRT)
{
    filter_stage_min_bytes_set(32u << 20); /* stage past 32 MiB, whatever this machine's LLC */
    const uint64_t m = (1ULL << 28) + 64;
    pair_case c = {LAYOUT_STANDARD, SCHEME_DOUBLE, "xxh3_64", "random64", m, 7, 100, 0, 0};
    setup s;
    setup_open(&c, 1, &s);
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, m, 7), 0);
    key_batch kb;
    keyset_fill(s.ks, 1, 100, KEY_PRESENT, 0, KEY_BATCH, &kb);
    s.ops.insert(&f, &s.ctx, &kb);
    s.ops.query(&f, &s.ctx, &kb, NULL);
}

/* The staging threshold is this machine's last-level cache, asked at run
 * time: at least the L2 (the kernel's or the C library's figure, never 0). */
Test(batch, stage_threshold_is_the_llc)
{
    const uint64_t llc = cache_llc_bytes();
    cr_expect_geq(llc, cache_l2_bytes(), "LLC %llu below L2 %llu", (unsigned long long)llc,
                  (unsigned long long)cache_l2_bytes());
    cr_log_info("last-level cache: %llu bytes", (unsigned long long)llc);
    filter_stage_min_bytes_set(0); /* ask again */
    cr_expect_eq(filter_stage_min_bytes(), llc);
}

/* Queries beyond the last-level cache (the threshold taken as 4 KiB): the
 * unblocked layouts' phases and rounds, and the blocked layouts' batches,
 * prefetch into L2 alone there (filters.h's filter_query_prefetch), which
 * decides where a line waits, never an answer.  Each layout with the
 * positions of three schemes, the fastest loops and the portable ones, and
 * the AVX2 level's where the CPU has it, against the reference. */
Test(batch, queries_beyond_llc, .timeout = 120)
{
    const uint64_t llc_was = filter_stage_min_bytes();
    filter_stage_min_bytes_set(4096);
    static const layout_kind LAYOUTS[] = {LAYOUT_STANDARD, LAYOUT_COUNTING, LAYOUT_PARTITIONED, LAYOUT_BLOCKED512,
                                          LAYOUT_REGISTER64};
    static const scheme_kind SCHEMES[] = {SCHEME_DOUBLE, SCHEME_ENHANCED, SCHEME_IDEAL};
    const uint64_t m = 100003; /* 12.5 KB of bits, 50 KB of counters */
    for (size_t l = 0; l < sizeof LAYOUTS / sizeof LAYOUTS[0]; l++) {
        filter f;
        cr_assert_eq(filter_init(&f, LAYOUTS[l], layout_fit_m(LAYOUTS[l], m), 7), 0);
        cr_assert(filter_beyond_llc(&f), "%s of %llu bits lies beyond 4 KiB", layout_name(LAYOUTS[l]),
                  (unsigned long long)m);
        filter_free(&f);
        for (size_t s = 0; s < sizeof SCHEMES / sizeof SCHEMES[0]; s++) {
            pair_case c = {LAYOUTS[l], SCHEMES[s], "xxh3_64", "random64", m, 7, 6000, 6000, 0};
            check_pair(&c);
            if (cpu_isa_supported() >= ISA_AVX2) {
                char *saved = isa_env_set("avx2");
                check_pair(&c);
                isa_env_restore(saved);
            }
        }
    }
    filter_stage_min_bytes_set(llc_was);
}
