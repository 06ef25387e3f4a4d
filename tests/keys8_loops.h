/* keys8_loops.h -- what the tests of the one-pass loops for 8-byte keys
 * (test_splitblock_portable.c, test_standard_portable.c) share: runs of 1
 * to 9 batches of uneven sizes from random64, some keys of other lengths in
 * allocations of their own, inserted by the loops under test and by the
 * one-key reference (filter_insert_one), the words and answers compared. */
#ifndef BLOOMLAB_TEST_KEYS8_LOOPS_H
#define BLOOMLAB_TEST_KEYS8_LOOPS_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashes.h"
#include "filter/batch_hash.h"
#include "filter/filters.h"
#include "filter/schemes.h"
#include "harness/keys.h"

/* The loops under test, over a run of nb batches; query writes answer[t]
 * for the t-th key of the run when answer is not NULL. */
typedef struct {
    const char *name;
    layout_kind layout;
    unsigned k;
    void (*insert)(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb);
    size_t (*query)(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                    unsigned char *answer);
} loops;

/* A run through a layout's ops: a run of one batch by ops.insert and
 * ops.query (the one-batch entries), longer ones by insert_many and
 * query_many (its answers too). */
static inline void ops_run_insert(filter_ops ops, filter *f, const scheme_ctx *ctx, const key_batch *batches,
                                  size_t nb)
{
    if (nb == 1)
        ops.insert(f, ctx, batches);
    else
        ops.insert_many(f, ctx, batches, nb);
}

static inline size_t ops_run_query(filter_ops ops, const filter *f, const scheme_ctx *ctx, const key_batch *batches,
                                   size_t nb, unsigned char *answer)
{
    return nb == 1 ? ops.query(f, ctx, batches, answer) : ops.query_many(f, ctx, batches, nb, answer);
}

/* Through the portable dispatch of f's layout with double hashing. */
static void ops_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    ops_run_insert(filter_ops_portable(f->layout, SCHEME_DOUBLE), f, ctx, batches, nb);
}

static size_t ops_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                        unsigned char *answer)
{
    return ops_run_query(filter_ops_portable(f->layout, SCHEME_DOUBLE), f, ctx, batches, nb, answer);
}

/* The keys8 name of the run's hash (xxh3_64 or mulx64). */
static inline keys8_hash keys8_of(const scheme_ctx *ctx)
{
    keys8_hash hash;
    cr_assert(keys8_hash_of(ctx->hash, &hash), "%s is not a keys8 hash", ctx->hash->name);
    return hash;
}

/* One key a call through the one-key functions filter_key8_for chooses for
 * the filter (what a library user's bloomlab_add / bloomlab_contains call). */
static inline filter_key8 key8_chosen(const filter *f, const scheme_ctx *ctx)
{
    const filter_key8 k8 = filter_key8_for(f, ctx, SCHEME_DOUBLE);
    cr_assert(k8.calls.insert != NULL && k8.calls.query != NULL, "no one-key calls for %s", ctx->hash->name);
    cr_assert_eq(k8.hash, keys8_of(ctx));
    cr_assert_eq(k8.keyed, keys8_constant(k8.hash, ctx->seed));
    return k8;
}

/* A run key by key through one-key calls k8, inserted (f) or asked (q,
 * answer[t] for the run's t-th key when answer is not NULL): an 8-byte key
 * by its 8-byte entry, any other by its hash entry with the hasher's 64
 * bits, as bloomlab_add and bloomlab_contains hash such a key. */
static inline size_t key8_calls_run(filter_key8 k8, filter *f, const filter *q, const scheme_ctx *ctx,
                                    const key_batch *batches, size_t nb, unsigned char *answer)
{
    size_t yes = 0, t = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t j = 0; j < batches[b].count; j++, t++) {
            const unsigned char *key = batches[b].ptr[j];
            const size_t len = batches[b].len[j];
            const uint64_t h = len == 8 ? 0 : hasher_hash(ctx->hash, key, len, ctx->seed).lo;
            if (f != NULL) {
                cr_assert_eq(len == 8 ? k8.calls.insert(f, key, k8.keyed) : k8.calls.insert_hash(f, h), 0);
                continue;
            }
            const int all = len == 8 ? k8.calls.query(q, key, k8.keyed) : k8.calls.query_hash(q, h);
            yes += (size_t)all;
            if (answer != NULL)
                answer[t] = (unsigned char)all;
        }
    return yes;
}

static inline void key8_chosen_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    key8_calls_run(key8_chosen(f, ctx), f, NULL, ctx, batches, nb, NULL);
}

static inline size_t key8_chosen_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                                       unsigned char *answer)
{
    return key8_calls_run(key8_chosen(f, ctx), NULL, f, ctx, batches, nb, answer);
}

/* Where keys come from: random64 (8 bytes each), with every `odd`-th key
 * (odd > 0) replaced by one of 1 to 7 or 16 bytes in its own allocation;
 * or, odd = KEYS8_MOVED, every key kept at 8 bytes but moved out of its
 * batch's `packed` slots into an allocation of its own (packed8 0, as a
 * library user's batch points at the user's keys), the slot left holding
 * other bytes: the loops' other way of reading a key. */
#define KEYS8_MOVED 0xFFFFFFFFu
typedef struct {
    hasher h;
    scheme_ctx ctx;
    keyset *ks;
    unsigned odd;
    unsigned char *own[KEY_BATCH * 9]; /* the allocations of the run's odd (or moved) keys */
    size_t owned;
} source;

static void source_open(source *s, const char *hash, uint64_t seed, unsigned odd)
{
    char err[512];
    cr_assert_eq(hasher_resolve(hash, &s->h, err, sizeof err), 0, "%s", err);
    s->ks = keyset_open("random64", err, sizeof err);
    cr_assert_not_null(s->ks, "%s", err);
    s->ctx = (scheme_ctx){&s->h, seed, 0};
    s->odd = odd;
    s->owned = 0;
}

static void source_release(source *s)
{
    for (size_t i = 0; i < s->owned; i++)
        free(s->own[i]);
    s->owned = 0;
}

/* Slot j of b pointed at a new allocation of len bytes that the source
 * owns (source_release frees it), returned for the caller to fill. */
static unsigned char *source_own_key(source *s, key_batch *b, size_t j, size_t len)
{
    unsigned char *key = malloc(len);
    cr_assert_not_null(key);
    cr_assert_lt(s->owned, sizeof s->own / sizeof s->own[0]);
    s->own[s->owned++] = key;
    b->ptr[j] = key;
    b->len[j] = (uint32_t)len;
    b->packed8 = 0; /* a key changed after the fill (key_batch.h) */
    return key;
}

/* Keys [first, first + count) of a side into b. */
static void source_fill(source *s, uint64_t n, key_side side, uint64_t first, size_t count, key_batch *b)
{
    keyset_fill(s->ks, s->ctx.seed, n, side, first, count, b);
    if (s->odd == KEYS8_MOVED) {
        for (size_t j = 0; j < count; j++) {
            unsigned char *key = source_own_key(s, b, j, 8);
            memcpy(key, b->packed[j], 8);
            for (size_t c = 0; c < 8; c++) /* the slot no longer the key: a loop reading it is caught */
                b->packed[j][c] = (unsigned char)~key[c];
        }
        return;
    }
    for (size_t j = 0; s->odd > 0 && j < count; j++) {
        const uint64_t i = first + j;
        if (i % s->odd != s->odd / 2)
            continue;
        const size_t len = i % 8 == 0 ? 16 : (size_t)(i % 8);
        unsigned char *key = source_own_key(s, b, j, len);
        for (size_t c = 0; c < len; c++)
            key[c] = b->packed[j][c % 8] ^ (unsigned char)(c / 8);
    }
}

/* A run of 1 + run % 9 batches of uneven sizes from key `*i` on. */
static size_t fill_run(source *s, uint64_t n, key_side side, uint64_t *i, size_t run, unsigned stride,
                       key_batch *batches)
{
    size_t nb = 0;
    for (; nb < 1 + run % 9 && *i < n; nb++) {
        size_t count = 1 + (size_t)((*i * stride) % KEY_BATCH);
        if (count > n - *i)
            count = (size_t)(n - *i);
        source_fill(s, n, side, *i, count, &batches[nb]);
        *i += count;
    }
    return nb;
}

/* n keys inserted into f, by the loops when l is not NULL, else by the reference. */
static void insert_keys(const loops *l, source *s, filter *f, uint64_t n, key_batch *batches)
{
    uint64_t i = 0;
    for (size_t run = 0; i < n; run++) {
        const size_t nb = fill_run(s, n, KEY_PRESENT, &i, run, 13, batches);
        if (l != NULL)
            l->insert(f, &s->ctx, batches, nb);
        else
            for (size_t b = 0; b < nb; b++)
                for (size_t j = 0; j < batches[b].count; j++)
                    filter_insert_one(f, SCHEME_DOUBLE, &s->ctx, batches[b].ptr[j], batches[b].len[j],
                                      batches[b].id[j]);
        source_release(s);
    }
}

/* The most batches a run of these tests has. */
#define RUN_MOST_BATCHES 48

/* One run's answers from the loops on f against the reference's on ref (a
 * filter with the same bits, or f itself): each key's, nothing written past
 * the last, the count, and the count without answers; sides[b] is the side
 * batch b's keys came from (a present key answered present). */
static void check_run_answers(const loops *l, const source *s, const filter *f, const filter *ref,
                              const key_batch *batches, size_t nb, const key_side *sides)
{
    unsigned char answer[RUN_MOST_BATCHES * KEY_BATCH + 1];
    cr_assert_leq(nb, RUN_MOST_BATCHES);
    memset(answer, 0xAA, sizeof answer);
    const size_t yes = l->query(f, &s->ctx, batches, nb, answer);
    size_t t = 0, ref_yes = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t j = 0; j < batches[b].count; j++, t++) {
            const int one = filter_query_one(ref, SCHEME_DOUBLE, &s->ctx, batches[b].ptr[j], batches[b].len[j],
                                             batches[b].id[j]);
            cr_assert_eq(answer[t], one, "%s %s m=%llu batch %zu (side %d) key %zu", l->name, s->h.name,
                         (unsigned long long)f->m, b, (int)sides[b], j);
            cr_assert(sides[b] == KEY_ABSENT || one == 1, "false negative");
            ref_yes += (size_t)one;
        }
    cr_assert_eq(answer[t], 0xAA, "nothing written past the last answer");
    cr_assert_eq(yes, ref_yes);
    cr_assert_eq(l->query(f, &s->ctx, batches, nb, NULL), yes, "the count without answers");
}

/* Every present and absent key's answer from the loops on f against the
 * reference's on ref (a filter with the same bits, or f itself). */
static void compare_answers(const loops *l, source *s, const filter *f, const filter *ref, uint64_t n,
                            key_batch *batches)
{
    for (int side = 0; side < 2; side++) {
        const key_side sides[9] = {(key_side)side, (key_side)side, (key_side)side, (key_side)side, (key_side)side,
                                   (key_side)side, (key_side)side, (key_side)side, (key_side)side};
        uint64_t i = 0;
        for (size_t run = 0; i < n; run++) {
            const size_t nb = fill_run(s, n, (key_side)side, &i, run, 5, batches);
            check_run_answers(l, s, f, ref, batches, nb, sides);
            source_release(s);
        }
    }
}

/* One filter of m bits (l->layout, l->k), filled by the loops and by the
 * reference from scratch. */
static void check_size(const loops *l, const char *hash, unsigned odd, uint64_t m, uint64_t n)
{
    key_batch *batches = malloc(9 * sizeof *batches);
    cr_assert_not_null(batches);
    source s;
    source_open(&s, hash, 0x5917 + m + odd, odd);
    filter f, one;
    m = layout_fit_m(l->layout, m);
    cr_assert_eq(filter_init(&f, l->layout, m, l->k), 0);
    cr_assert_eq(filter_init(&one, l->layout, m, l->k), 0);
    insert_keys(l, &s, &f, n, batches);
    filter_flush(&f); /* a staging filter's inserts (stage.c) */
    insert_keys(NULL, &s, &one, n, batches);
    cr_assert_eq(memcmp(f.words, one.words, f.word_count * 8), 0, "%s %s odd %u m=%llu: bits differ", l->name, hash,
                 odd, (unsigned long long)m);
    compare_answers(l, &s, &f, &one, n, batches);
    filter_free(&f);
    filter_free(&one);
    keyset_close(s.ks);
    free(batches);
}

/* A large filter of m bits (list[0]'s layout and k; > 2^32 bits: the
 * words past 2^26 reached), checked sparsely.  One filter filled by each
 * of the nl loops in turn, then cleared and filled by the reference: the
 * same words set (a second filter of this size would double the test's
 * memory), and the loops' answers on it the reference's. */
static void check_sparse(const loops *const *list, size_t nl, uint64_t m)
{
    enum { N = 2000 };
    const size_t MAXW = (size_t)N * list[0]->k;
    m = layout_fit_m(list[0]->layout, m);
    key_batch *batches = malloc(9 * sizeof *batches);
    uint64_t *index = malloc(MAXW * 8), *value = malloc(MAXW * 8);
    cr_assert(batches != NULL && index != NULL && value != NULL);
    filter f;
    cr_assert_eq(filter_init(&f, list[0]->layout, m, list[0]->k), 0);
    for (size_t l = 0; l < nl; l++) {
        source s;
        source_open(&s, "xxh3_64", 0xb16 + l, 0);
        filter_clear(&f);
        insert_keys(list[l], &s, &f, N, batches);
        filter_flush(&f);
        size_t set = 0, high = 0;
        for (uint64_t w = 0; w < f.word_count; w++)
            if (f.words[w] != 0) {
                cr_assert_lt(set, MAXW);
                index[set] = w;
                value[set++] = f.words[w];
                high += w * 64 >= (1ULL << 32);
            }
        cr_assert(high > 0 || m <= (1ULL << 32), "no bit above 2^32");
        filter_clear(&f);
        insert_keys(NULL, &s, &f, N, batches);
        size_t again = 0;
        for (uint64_t w = 0; w < f.word_count; w++)
            if (f.words[w] != 0) {
                cr_assert(again < set && index[again] == w && value[again] == f.words[w], "%s: word %llu differs",
                          list[l]->name, (unsigned long long)w);
                again++;
            }
        cr_assert_eq(again, set);
        compare_answers(list[l], &s, &f, &f, N, batches);
        keyset_close(s.ks);
    }
    filter_free(&f);
    free(batches);
    free(index);
    free(value);
}

#endif
