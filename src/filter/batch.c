/* batch.c -- the portable loops, stamped for every (layout, scheme) pair.
 *
 * Speed.  Every (layout, scheme) pair gets its own loops (STAMP below, for
 * the pairs of loops.h's STAMPED_PAIRS), so neither choice is a branch
 * inside them: the layout's shape (layout.h, LAYOUT_SHAPES) and its
 * position rule (cursor_position) fold at compile time.  A batch is
 * worked in passes:
 *
 *   hash     one indirect call hashes the whole batch (batch_hash.h);
 *   insert   all k positions of every key are computed and their lines
 *            prefetched for writing, then the bits are set: up to 32 k
 *            misses in flight (bulk insert); beyond the cache a standard or
 *            partitioned filter stages them instead (stage.c);
 *   query    every key's first position is computed and its line
 *            prefetched (a blocked key's only line).  A blocked key then
 *            tests its k bits without branches; other layouts go in phases
 *            of 1, 2, 4 ... positions over the keys still alive (early exit
 *            without a mispredicted branch per key; flight_step), several
 *            batches in flight at once in query_many.
 *
 * (splitblock, double) and (standard, double) on 8-byte keys hashed by
 * xxh3_64 or mulx64, the benchmarks' case, take one-pass loops of their
 * own instead (splitblock_portable.h, standard_portable.h: the keys hashed
 * in the loop, no hasher's array, no cursor).
 *
 * On AVX-512 and AVX2 CPUs filter_ops_for swaps in vector loops where the
 * layout table has them (dispatch.c).  The answers and the bits are those
 * of filter_insert_one/filter_query_one, the one-key reference stamped
 * here too, bit for bit (tests/test_batch.c).
 */
#include "filter/filters.h"

#include <string.h>

#include "filter/batch_hash.h"
#include "filter/layout.h"
#include "filter/loops.h"
#include "filter/splitblock_portable.h"
#include "filter/stage.h"
#include "filter/standard_portable.h"

/* The stamps' view of the layout table's shape, folded at compile time. */
ALWAYS_INLINE unsigned shape_block_bits(layout_kind L) { return LAYOUT_SHAPES[L].block_bits; }
ALWAYS_INLINE int shape_counters(layout_kind L) { return LAYOUT_SHAPES[L].cell_bits == 4; }
ALWAYS_INLINE int layout_may_stage(layout_kind L) { return LAYOUT_SHAPES[L].stages; }

/* ---- one key's positions -------------------------------------------------- */

/* What stays fixed for a batch, copied out of the filter and the context so
 * that stores into the bit array cannot make the compiler reload it. */
typedef struct {
    uint64_t m;
    uint64_t blocks;
    unsigned k;
    unsigned hash_bits;
    uint64_t seed_mix;      /* ideal: mix64(trial seed) */
    const uint64_t *slice;  /* partitioned: slice_start */
    int far;                /* queries beyond the last-level cache: their prefetches into L2 (query_env_init) */
    scheme_ctx ctx;
} batch_env;

ALWAYS_INLINE void env_init(batch_env *e, scheme_kind S, const filter *f, const scheme_ctx *ctx)
{
    e->m = f->m;
    e->blocks = f->blocks;
    e->k = f->k;
    e->slice = f->slice_start;
    e->far = 0;
    e->ctx = *ctx;
    e->hash_bits = S == SCHEME_IDEAL || S == SCHEME_PARQUET ? 64 : ctx->hash->bits;
    e->seed_mix = S == SCHEME_IDEAL ? mix64(ctx->seed) : 0;
}

/* A query's environment: env_init's, and where its prefetches put the
 * lines (filters.h's filter_query_prefetch).  Asked here, once a query
 * call, not in env_init, which every one-key call runs. */
ALWAYS_INLINE void query_env_init(batch_env *e, scheme_kind S, const filter *f, const scheme_ctx *ctx)
{
    env_init(e, S, f, ctx);
    e->far = filter_beyond_llc(f);
}

static int scheme_is_hashed(scheme_kind S)
{
    return S == SCHEME_DOUBLE || S == SCHEME_ENHANCED || S == SCHEME_COURSE || S == SCHEME_MULTIPLY;
}

/* One key's walk through its k positions. */
typedef struct {
    probe p;
    uint64_t base;  /* blocked layouts: the block's first bit */
    uint32_t h32;   /* splitblock: uint32(u_0); multiply: g_i */
} cursor;

/* A bit inside a block of 2^log2_bits: the top bits of the next value. */
ALWAYS_INLINE uint64_t block_offset(scheme_kind S, batch_env *e, cursor *c, unsigned log2_bits)
{
    if (S == SCHEME_IDEAL)
        return pcg32_next(&c->p.rng) >> (32 - log2_bits);
    if (S == SCHEME_MULTIPLY) {
        const uint32_t g = c->h32;
        c->h32 = g * MULTIPLY_STEP;
        return g >> (32 - log2_bits);
    }
    /* Not the top bits of u itself: with double hashing the top bits of h1
     * chose the block, so every key of a block would start at the same
     * offset.  The bits just below the block choice are independent of it. */
    return (probe_next(S, &e->ctx, &c->p) * e->blocks) >> (64 - log2_bits);
}

/* Position i of the key (positions come in order 0, 1, ..., k-1). */
ALWAYS_INLINE uint64_t cursor_position(layout_kind L, scheme_kind S, batch_env *e, cursor *c, unsigned i)
{
    switch (LAYOUT_SHAPES[L].position) { /* a constant in every stamp: no branch is left */
    case POSITION_SLICED: {
        uint64_t lo = e->slice[i], range = e->slice[i + 1] - lo;
        return lo + probe_position(S, &e->ctx, &c->p, range);
    }
    case POSITION_IN_BLOCK:
        return c->base + block_offset(S, e, c, (unsigned)__builtin_ctz(shape_block_bits(L)));
    case POSITION_SALTED:
        return c->base + 32u * i + ((c->h32 * SPLITBLOCK_SALT[i]) >> 27);
    default: /* POSITION_ANYWHERE */
        return probe_position(S, &e->ctx, &c->p, e->m);
    }
}

/* Begin a key: its stream (from its hash h for the hashed schemes) and, for
 * the blocked layouts, its block. */
ALWAYS_INLINE void cursor_start(layout_kind L, scheme_kind S, batch_env *e, cursor *c, const void *key,
                                size_t len, uint64_t id, hash128_t h)
{
    if (S == SCHEME_IDEAL) {
        ideal_seed_mixed(&c->p.rng, e->ctx.seed, e->seed_mix, id);
    } else if (S == SCHEME_COURSE) {
        probe_start_hashed(S, &c->p, h, e->hash_bits);
    } else if (scheme_is_hashed(S)) { /* h is (h1, h2) already: batch_hash split it */
        c->p.x = h.lo;
        c->p.y = h.hi;
        c->p.step = 0;
    } else
        probe_start(S, &e->ctx, &c->p, key, len, id);
    if (L == LAYOUT_SPLITBLOCK) {
        uint64_t u = probe_next(S, &e->ctx, &c->p);
        c->base = (((u >> 32) * e->blocks) >> 32) * 256;
        c->h32 = (uint32_t)u;
    } else if (L == LAYOUT_BLOCKED512 || L == LAYOUT_REGISTER64) {
        uint64_t block = S == SCHEME_IDEAL ? ideal_draw(&c->p.rng, e->blocks)
                                           : reduce_range(probe_next(S, &e->ctx, &c->p), e->blocks);
        c->base = block * shape_block_bits(L);
        if (S == SCHEME_MULTIPLY)
            c->h32 = multiply_start(h.hi);
    }
}

ALWAYS_INLINE int layout_is_blocked(layout_kind L) { return shape_block_bits(L) > 1; }

/* The word holding position pos (a bit, or a 4-bit counter). */
ALWAYS_INLINE uint64_t word_of(layout_kind L, uint64_t pos) { return shape_counters(L) ? pos >> 4 : pos >> 6; }

static inline unsigned counter_get(const uint64_t *words, uint64_t i)
{
    return (unsigned)(words[i >> 4] >> ((i & 15) * 4)) & 15u;
}

static inline void counter_add(uint64_t *words, uint64_t i, int delta)
{
    words[i >> 4] += (uint64_t)(int64_t)delta << ((i & 15) * 4);
}

ALWAYS_INLINE int position_set(layout_kind L, const uint64_t *words, uint64_t pos)
{
    if (shape_counters(L))
        return counter_get(words, pos) != 0;
    return (int)((words[pos >> 6] >> (pos & 63)) & 1u);
}

/* Set (or count) one position; returns 1 when a counter was saturated. */
ALWAYS_INLINE unsigned position_add(layout_kind L, uint64_t *words, uint64_t pos)
{
    if (!shape_counters(L)) {
        words[pos >> 6] |= 1ULL << (pos & 63);
        return 0;
    }
    if (counter_get(words, pos) == COUNTER_MAX)
        return 1;
    counter_add(words, pos, 1);
    return 0;
}

/* Hash the batch (hashed schemes only). */
ALWAYS_INLINE void batch_hash(scheme_kind S, const scheme_ctx *ctx, const key_batch *keys, hash128_t *hv)
{
    if (scheme_is_hashed(S))
        batch_hasher_for(ctx->hash)(ctx->hash, ctx->seed, keys, hv, S != SCHEME_COURSE);
}

/* ---- split block with double hashing: its own portable loops -------------- */

/* A split block key's eight bits come from u_0 = h1 alone (cursor_start):
 * the block ((h1 >> 32) blocks) >> 32, and 32-bit word i of it gets bit
 * (uint32(h1) SALT[i]) >> 27, so 64-bit word t gets words 2t and 2t + 1's
 * bits, a mask of two.  The stamped loops walk those eight positions
 * through the generic cursor, a step and a branch a position (their
 * instruction counts: docs/PERFORMANCE.md); these build the four masks
 * without a branch, set them with four ORs or test them with four ANDs, and
 * prefetch a batch's blocks before the previous batch is worked.
 * batch_insert and its kin below take them for (splitblock, double). */
typedef struct {
    size_t count;
    uint64_t word[KEY_BATCH]; /* the block's first 64-bit word */
    uint32_t h32[KEY_BATCH];
} split_pass;

ALWAYS_INLINE uint64_t split_mask(uint32_t h32, unsigned t)
{
    return (1ULL << ((h32 * SPLITBLOCK_SALT[2 * t]) >> 27)) |
           (1ULL << (32 + ((h32 * SPLITBLOCK_SALT[2 * t + 1]) >> 27)));
}

/* Hash the batch, place every key's block and prefetch it. */
ALWAYS_INLINE void split_start(const filter *f, const scheme_ctx *ctx, const key_batch *keys, split_pass *ps, int rw)
{
    hash128_t hv[KEY_BATCH];
    batch_hasher_for(ctx->hash)(ctx->hash, ctx->seed, keys, hv, 0);
    const unsigned bits = ctx->hash->bits;
    const uint64_t blocks = f->blocks;
    ps->count = keys->count;
    for (size_t j = 0; j < keys->count; j++) {
        const uint64_t h1 = hash_widen(hv[j], bits); /* hash_split's h1 */
        ps->word[j] = (((h1 >> 32) * blocks) >> 32) * 4;
        ps->h32[j] = (uint32_t)h1;
        if (rw)
            __builtin_prefetch(&f->words[ps->word[j]], 1, 3);
        else
            __builtin_prefetch(&f->words[ps->word[j]], 0, 3);
    }
}

ALWAYS_INLINE void split_finish_insert(uint64_t *words, const split_pass *ps)
{
    for (size_t j = 0; j < ps->count; j++) {
        uint64_t *w = &words[ps->word[j]];
        for (unsigned t = 0; t < 4; t++)
            w[t] |= split_mask(ps->h32[j], t);
    }
}

ALWAYS_INLINE size_t split_finish_query(const uint64_t *words, const split_pass *ps, unsigned char *answer)
{
    size_t yes = 0;
    for (size_t j = 0; j < ps->count; j++) {
        const uint64_t *w = &words[ps->word[j]];
        uint64_t missing = 0;
        for (unsigned t = 0; t < 4; t++) {
            const uint64_t m = split_mask(ps->h32[j], t);
            missing |= m & ~w[t];
        }
        const int all = missing == 0;
        yes += (size_t)all;
        if (answer != NULL)
            answer[j] = (unsigned char)all;
    }
    return yes;
}

/* 1 when every key of the batches is 8 bytes long. */
static int keys8(const key_batch *batches, size_t count)
{
    for (size_t b = 0; b < count; b++)
        if (!batch_all_8_bytes(&batches[b]))
            return 0;
    return 1;
}

/* 1 (and the hash) when the hash is xxh3_64 or mulx64 and every key of the
 * batches 8 bytes long: then the one-pass loops of splitblock_portable.h
 * and standard_portable.h run, which hash the keys themselves (the calls
 * below); else the stamped loops. */
static int keys8_hashed(const scheme_ctx *ctx, const key_batch *batches, size_t count, keys8_hash *hash)
{
    return keys8_hash_of(ctx->hash, hash) && keys8(batches, count);
}

ALWAYS_INLINE size_t split_query(const filter *f, const scheme_ctx *ctx, const key_batch *keys, unsigned char *answer)
{
    keys8_hash hash;
    if (keys8_hashed(ctx, keys, 1, &hash))
        return splitblock_portable_query_keys8(f, hash, ctx->seed, keys, 1, answer);
    split_pass ps;
    split_start(f, ctx, keys, &ps, 0);
    return split_finish_query(f->words, &ps, answer);
}

/* Batch b + 1 hashed and prefetched before batch b is worked. */
ALWAYS_INLINE void split_insert_many(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count)
{
    keys8_hash hash;
    if (keys8_hashed(ctx, batches, count, &hash)) {
        splitblock_portable_insert_keys8(f, hash, ctx->seed, batches, count);
        return;
    }
    split_pass ps[2];
    if (count == 0)
        return;
    split_start(f, ctx, &batches[0], &ps[0], 1);
    for (size_t b = 0; b < count; b++) {
        if (b + 1 < count)
            split_start(f, ctx, &batches[b + 1], &ps[(b + 1) & 1], 1);
        split_finish_insert(f->words, &ps[b & 1]);
    }
}

ALWAYS_INLINE size_t split_query_many(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                                      unsigned char *answers)
{
    keys8_hash hash;
    if (keys8_hashed(ctx, batches, count, &hash))
        return splitblock_portable_query_keys8(f, hash, ctx->seed, batches, count, answers);
    split_pass ps[2];
    size_t yes = 0, done = 0; /* done: keys of the batches before the one probed */
    if (count == 0)
        return 0;
    split_start(f, ctx, &batches[0], &ps[0], 0);
    for (size_t b = 0; b < count; b++) {
        if (b + 1 < count)
            split_start(f, ctx, &batches[b + 1], &ps[(b + 1) & 1], 0);
        yes += split_finish_query(f->words, &ps[b & 1], answers != NULL ? answers + done : NULL);
        done += batches[b].count;
    }
    return yes;
}

/* ---- the batch loops ------------------------------------------------------ */

/* A batch between its two passes: what the first computed for the second. */
typedef struct {
    cursor c[KEY_BATCH];
    uint64_t pos[KEY_BATCH * FILTER_K_MAX]; /* insert: all k a key; query: the first */
} pass_state;

/* Insert, first pass: hash, all k positions, their lines prefetched for writing. */
ALWAYS_INLINE void insert_start(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                                const uint64_t *words, const key_batch *keys, pass_state *st)
{
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    const unsigned k = e->k;
    for (size_t j = 0; j < keys->count; j++) {
        cursor *c = &st->c[j];
        cursor_start(L, S, e, c, keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        if (layout_is_blocked(L))
            __builtin_prefetch(&words[c->base >> 6], 1, 3);
        for (unsigned i = 0; i < k; i++) {
            uint64_t p = cursor_position(L, S, e, c, i);
            st->pos[j * k + i] = p;
            if (!layout_is_blocked(L))
                __builtin_prefetch(&words[word_of(L, p)], 1, 3);
        }
    }
}

/* Insert into a staging filter: every position of every key into its
 * region's bucket (no prefetch: the bucket, not the filter, is written). */
ALWAYS_INLINE void insert_staged(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx, filter *f,
                                 const key_batch *keys)
{
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    struct filter_stage *st = f->stage;
    for (size_t j = 0; j < keys->count; j++) {
        cursor c;
        cursor_start(L, S, e, &c, keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        for (unsigned i = 0; i < e->k; i++)
            stage_add(f->words, st, cursor_position(L, S, e, &c, i));
    }
    st->dirty = 1;
}

/* Insert, second pass: set the bits (count the counters) in key order. */
ALWAYS_INLINE void insert_finish(layout_kind L, filter *f, uint64_t *words, unsigned k, size_t count,
                                 const pass_state *st)
{
    uint64_t saturated = 0;
    for (size_t t = 0; t < count * k; t++)
        saturated += position_add(L, words, st->pos[t]);
    if (shape_counters(L))
        f->saturations += saturated;
}

/* Query, first pass: hash, position 0 of every key, its line prefetched. */
ALWAYS_INLINE void query_start(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                               const uint64_t *words, const key_batch *keys, pass_state *st)
{
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    for (size_t j = 0; j < keys->count; j++) {
        cursor_start(L, S, e, &st->c[j], keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        st->pos[j] = cursor_position(L, S, e, &st->c[j], 0);
        filter_query_prefetch(&words[word_of(L, st->pos[j])], e->far);
    }
}

/* Query, second pass for an unblocked filter: in phases.  Phase 0 tests
 * position 0 (prefetched by query_start); phase p >= 1 computes and
 * prefetches the next 2^p positions (2, 4, ...) of every key still alive,
 * then tests them without a branch per bit and keeps, without a branch, the
 * keys that found them all set.  Against a loop that takes one key at a
 * time with early exit, this is faster in cache (no mispredicted exit per
 * key) and beyond it (a key that passes its first test no longer waits out
 * a full memory latency for each later position: the misses of all live
 * keys of a phase overlap; the timings: docs/PERFORMANCE.md).  The price: an absent key may fetch
 * lines past its first zero (2.5 at fill 1/2, k = 7, against the
 * sum_{i<k} f^i = 1.98 it needs).
 *
 * A batch between phases is a `flight`: flight_step tests the positions
 * its last step prefetched and prefetches the next window.  One batch
 * alone steps again at once and so waits out a memory latency per phase;
 * many_query keeps several flights in the air and steps each in turn, so
 * that a phase's prefetches land while the other flights work. */
typedef struct {
    pass_state st;                            /* cursors; position 0 of key j at st.pos[j] */
    uint64_t later[KEY_BATCH * FILTER_K_MAX]; /* position i >= 1 of key j at [j k + i] */
    unsigned char alive[KEY_BATCH];
    size_t count, live;
    size_t out; /* where the batch's answers go: the keys of the batches launched before it */
    unsigned done, end; /* positions [done, end) of the live keys prefetched, not yet tested */
} flight;

ALWAYS_INLINE void flight_start(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                                const uint64_t *words, const key_batch *keys, size_t out, flight *fl)
{
    query_start(L, S, e, ctx, words, keys, &fl->st);
    fl->count = fl->live = keys->count;
    fl->out = out;
    for (size_t j = 0; j < keys->count; j++)
        fl->alive[j] = (unsigned char)j;
    fl->done = 0;
    fl->end = 1;
}

/* One phase; returns 1 when the flight has landed: its live keys are the
 * batch's "probably present" ones. */
ALWAYS_INLINE int flight_step(layout_kind L, scheme_kind S, batch_env *e, const uint64_t *words, flight *fl)
{
    const unsigned k = e->k;
    size_t next = 0;
    for (size_t s = 0; s < fl->live; s++) {
        const unsigned j = fl->alive[s];
        int all = 1;
        for (unsigned i = fl->done; i < fl->end; i++)
            all &= position_set(L, words, i == 0 ? fl->st.pos[j] : fl->later[j * k + i]);
        fl->alive[next] = (unsigned char)j;
        next += (size_t)all;
    }
    fl->live = next;
    const unsigned window = 2 * (fl->end - fl->done);
    fl->done = fl->end;
    if (fl->done == k || fl->live == 0)
        return 1;
    fl->end = k - fl->done < window ? k : fl->done + window;
    for (size_t s = 0; s < fl->live; s++) {
        const unsigned j = fl->alive[s];
        for (unsigned i = fl->done; i < fl->end; i++) {
            uint64_t p = cursor_position(L, S, e, &fl->st.c[j], i);
            fl->later[j * k + i] = p;
            filter_query_prefetch(&words[word_of(L, p)], e->far);
        }
    }
    return 0;
}

ALWAYS_INLINE size_t flight_answers(const flight *fl, unsigned char *answer)
{
    if (answer != NULL) {
        memset(answer, 0, fl->count);
        for (size_t s = 0; s < fl->live; s++)
            answer[fl->alive[s]] = 1;
    }
    return fl->live;
}

/* Flights in the air at once in many_query. */
#define FLIGHTS 4

/* Many batches of an unblocked filter through the phases, FLIGHTS at a
 * time: each round steps every flight once (oldest prefetches first), then
 * launches the next batch. */
ALWAYS_INLINE size_t many_query_phases(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                                       const uint64_t *words, const key_batch *batches, size_t count,
                                       unsigned char *answers)
{
    flight fl[FLIGHTS];
    int busy[FLIGHTS] = {0};
    size_t yes = 0, launched = 0, in_air = 0, launched_keys = 0;
    while (launched < count || in_air > 0) {
        for (int q = 0; q < FLIGHTS; q++)
            if (busy[q] && flight_step(L, S, e, words, &fl[q])) {
                yes += flight_answers(&fl[q], answers != NULL ? answers + fl[q].out : NULL);
                busy[q] = 0;
                in_air--;
            }
        for (int q = 0; q < FLIGHTS && launched < count; q++)
            if (!busy[q]) {
                flight_start(L, S, e, ctx, words, &batches[launched], launched_keys, &fl[q]);
                launched_keys += batches[launched++].count;
                busy[q] = 1;
                in_air++;
                break;
            }
    }
    return yes;
}

/* Query, second pass for a blocked filter: all k bits of the key's one
 * line tested, no branch per bit.  Early exit saves no memory here (the
 * line is fetched anyway) and its branch is mispredicted about once a key
 * (the branch-free test's gain: docs/PERFORMANCE.md). */
ALWAYS_INLINE size_t query_finish_block(layout_kind L, scheme_kind S, batch_env *e, const uint64_t *words,
                                        size_t count, pass_state *st, unsigned char *answer)
{
    const unsigned k = e->k;
    size_t yes = 0;
    for (size_t j = 0; j < count; j++) {
        int all = position_set(L, words, st->pos[j]);
        for (unsigned i = 1; i < k; i++)
            all &= position_set(L, words, cursor_position(L, S, e, &st->c[j], i));
        yes += (size_t)all;
        if (answer != NULL)
            answer[j] = (unsigned char)all;
    }
    return yes;
}

/* (splitblock, double) takes the loops of its own above. */
static int split_double(layout_kind L, scheme_kind S) { return L == LAYOUT_SPLITBLOCK && S == SCHEME_DOUBLE; }

/* 1 (and the hash) when (standard, double)'s inserts take
 * standard_portable.h's loops: every key 8 bytes long and the hash xxh3_64
 * or mulx64 (and a filter that is not staging: many_insert). */
ALWAYS_INLINE int standard_double_keys8(layout_kind L, scheme_kind S, const scheme_ctx *ctx,
                                        const key_batch *batches, size_t count, keys8_hash *hash)
{
    return L == LAYOUT_STANDARD && S == SCHEME_DOUBLE && keys8_hashed(ctx, batches, count, hash);
}

/* (standard, double)'s queries: standard_portable.h's (in rounds, or all k
 * at once after a group of mostly present keys), 8-byte keys
 * with xxh3_64 or mulx64 hashed in the loop, any other keys or hasher as
 * the reference hashes them. */
ALWAYS_INLINE size_t standard_double_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches,
                                           size_t count, unsigned char *answers)
{
    keys8_hash hash;
    if (keys8_hashed(ctx, batches, count, &hash))
        return standard_portable_query_keys8(f, hash, ctx->seed, batches, count, answers);
    return standard_portable_query_hashed(f, ctx, batches, count, answers);
}

/* A batch of one key (a library user's bloomlab_add or bloomlab_contains)
 * has no pipeline to fill: the one-key loop, the key hashed as the batch
 * loops hash it (batch_hash: XXH3 inlined for an 8-byte key), its k
 * positions set or tested (early exit) in turn.  The same positions as the
 * reference, which hashes through the registry instead. */
ALWAYS_INLINE void lone_key_start(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                                  const key_batch *keys, batch_env *e, cursor *c)
{
    hash128_t hv[KEY_BATCH];
    env_init(e, S, f, ctx);
    batch_hash(S, ctx, keys, hv);
    cursor_start(L, S, e, c, keys->ptr[0], keys->len[0], keys->id[0], hv[0]);
}

/* A key's k positions from its cursor: set (counters: added to; returns
 * the increments lost to saturation), or tested with early exit (1 when
 * all are set).  The one-key reference and the lone key's loop both. */
ALWAYS_INLINE uint64_t cursor_insert(layout_kind L, scheme_kind S, uint64_t *words, batch_env *e, cursor *c)
{
    uint64_t saturated = 0;
    for (unsigned i = 0; i < e->k; i++)
        saturated += position_add(L, words, cursor_position(L, S, e, c, i));
    return saturated;
}

ALWAYS_INLINE int cursor_query(layout_kind L, scheme_kind S, const uint64_t *words, batch_env *e, cursor *c)
{
    for (unsigned i = 0; i < e->k; i++)
        if (!position_set(L, words, cursor_position(L, S, e, c, i)))
            return 0;
    return 1;
}

ALWAYS_INLINE void lone_key_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx,
                                   const key_batch *keys)
{
    batch_env e;
    cursor c;
    lone_key_start(L, S, f, ctx, keys, &e, &c);
    f->saturations += cursor_insert(L, S, f->words, &e, &c);
}

ALWAYS_INLINE size_t lone_key_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                                    const key_batch *keys, unsigned char *answer)
{
    batch_env e;
    cursor c;
    lone_key_start(L, S, f, ctx, keys, &e, &c);
    const int all = cursor_query(L, S, f->words, &e, &c);
    if (answer != NULL)
        answer[0] = (unsigned char)all;
    return (size_t)all;
}

ALWAYS_INLINE size_t batch_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                                 const key_batch *keys, unsigned char *answer)
{
    if (keys->count == 1 && !split_double(L, S)) {
        if (layout_may_stage(L))
            require_flushed(f);
        return lone_key_query(L, S, f, ctx, keys, answer);
    }
    if (split_double(L, S))
        return split_query(f, ctx, keys, answer);
    if (layout_may_stage(L))
        require_flushed(f);
    if (L == LAYOUT_STANDARD && S == SCHEME_DOUBLE)
        return standard_double_query(f, ctx, keys, 1, answer);
    batch_env e;
    query_env_init(&e, S, f, ctx);
    if (!layout_is_blocked(L)) {
        flight fl;
        flight_start(L, S, &e, ctx, f->words, keys, 0, &fl);
        while (!flight_step(L, S, &e, f->words, &fl))
            ;
        return flight_answers(&fl, answer);
    }
    pass_state st;
    query_start(L, S, &e, ctx, f->words, keys, &st);
    return query_finish_block(L, S, &e, f->words, keys->count, &st, answer);
}

/* Many batches, software-pipelined (inserts, and blocked queries; the
 * unblocked queries fly, above): batch b + 1's first pass (hashing and
 * prefetches) runs before batch b's second, so that the memory system is
 * never idle between batches.  A batch of 32 keys alone ends by waiting out
 * one full memory latency; beyond the last-level cache that wait is most of
 * its time. */
/* Batches whose first pass runs ahead of the second. */
#define MANY_AHEAD 2

ALWAYS_INLINE void many_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx,
                               const key_batch *batches, size_t count)
{
    if (split_double(L, S)) {
        split_insert_many(f, ctx, batches, count);
        return;
    }
    keys8_hash hash;
    if (f->stage == NULL && standard_double_keys8(L, S, ctx, batches, count, &hash)) {
        standard_portable_insert_keys8(f, hash, ctx->seed, batches, count);
        return;
    }
    if (count == 0)
        return;
    batch_env e;
    env_init(&e, S, f, ctx);
    if (layout_may_stage(L) && f->stage != NULL) {
        for (size_t b = 0; b < count; b++)
            insert_staged(L, S, &e, ctx, f, &batches[b]);
        return;
    }
    pass_state st[2];
    insert_start(L, S, &e, ctx, f->words, &batches[0], &st[0]);
    for (size_t b = 0; b < count; b++) {
        if (b + 1 < count)
            insert_start(L, S, &e, ctx, f->words, &batches[b + 1], &st[(b + 1) & 1]);
        insert_finish(L, f, f->words, e.k, batches[b].count, &st[b & 1]);
    }
}

/* One batch: the many-batch loop with one (its pipeline then does what a
 * lone batch's two passes would, and every special case lives in one place);
 * one key by itself, set at once even where the filter stages (setting a
 * bit, or adding to a saturating counter, commutes with the staged ones;
 * staging one key would leave a library's bloomlab_add a flush over all of
 * the stage's regions each call). */
ALWAYS_INLINE void batch_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx,
                                const key_batch *keys)
{
    if (keys->count == 1 && !split_double(L, S))
        lone_key_insert(L, S, f, ctx, keys);
    else
        many_insert(L, S, f, ctx, keys, 1);
}

ALWAYS_INLINE size_t many_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                                const key_batch *batches, size_t count, unsigned char *answers)
{
    if (split_double(L, S))
        return split_query_many(f, ctx, batches, count, answers);
    if (count == 0)
        return 0;
    if (layout_may_stage(L))
        require_flushed(f);
    if (L == LAYOUT_STANDARD && S == SCHEME_DOUBLE)
        return standard_double_query(f, ctx, batches, count, answers);
    batch_env e;
    query_env_init(&e, S, f, ctx);
    if (!layout_is_blocked(L))
        return many_query_phases(L, S, &e, ctx, f->words, batches, count, answers);
    pass_state st[MANY_AHEAD + 1];
    size_t yes = 0, done = 0; /* done: keys of the batches before the one probed */
    for (size_t b = 0; b < MANY_AHEAD && b < count; b++)
        query_start(L, S, &e, ctx, f->words, &batches[b], &st[b]);
    for (size_t b = 0; b < count; b++) {
        if (b + MANY_AHEAD < count)
            query_start(L, S, &e, ctx, f->words, &batches[b + MANY_AHEAD], &st[(b + MANY_AHEAD) % (MANY_AHEAD + 1)]);
        yes += query_finish_block(L, S, &e, f->words, batches[b].count, &st[b % (MANY_AHEAD + 1)],
                                  answers != NULL ? answers + done : NULL);
        done += batches[b].count;
    }
    return yes;
}

/* Clear (plain layouts) or decrement (counting); not a hot path. */
ALWAYS_INLINE void batch_remove(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx,
                                const key_batch *keys)
{
    filter_flush(f);
    batch_env e;
    env_init(&e, S, f, ctx);
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    uint64_t *words = f->words;
    for (size_t j = 0; j < keys->count; j++) {
        cursor c;
        cursor_start(L, S, &e, &c, keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        for (unsigned i = 0; i < e.k; i++) {
            uint64_t pos = cursor_position(L, S, &e, &c, i);
            if (!shape_counters(L)) {
                words[pos >> 6] &= ~(1ULL << (pos & 63));
                continue;
            }
            unsigned v = counter_get(words, pos);
            if (v == 0)
                f->bad_deletes++;
            else if (v != COUNTER_MAX)
                counter_add(words, pos, -1);
        }
    }
}

/* ---- one key at a time: the reference ------------------------------------ */

/* The key's hash through the registry's function pointer, split as
 * cursor_start expects. */
ALWAYS_INLINE hash128_t one_hash(scheme_kind S, const scheme_ctx *ctx, const void *key, size_t len)
{
    hash128_t h = {0, 0};
    if (scheme_is_hashed(S)) {
        h = hasher_hash(ctx->hash, key, len, ctx->seed);
        if (S != SCHEME_COURSE)
            hash_split(h, ctx->hash->bits, &h.lo, &h.hi);
    }
    return h;
}

/* One key, unbatched: its environment and its cursor at position 0. */
ALWAYS_INLINE void one_start(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx, const void *key,
                             size_t len, uint64_t id, batch_env *e, cursor *c)
{
    env_init(e, S, f, ctx);
    cursor_start(L, S, e, c, key, len, id, one_hash(S, ctx, key, len));
}

ALWAYS_INLINE void one_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx, const void *key,
                              size_t len, uint64_t id)
{
    batch_env e;
    cursor c;
    one_start(L, S, f, ctx, key, len, id, &e, &c);
    f->saturations += cursor_insert(L, S, f->words, &e, &c);
}

ALWAYS_INLINE int one_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx, const void *key,
                            size_t len, uint64_t id)
{
    batch_env e;
    cursor c;
    one_start(L, S, f, ctx, key, len, id, &e, &c);
    return cursor_query(L, S, f->words, &e, &c);
}

/* STAMP(L, S, tag) makes the loops of one (layout, scheme) pair: the
 * batched insert_TAG, query_TAG, remove_TAG, insert_many_TAG and
 * query_many_TAG, the one-key insert1_TAG and query1_TAG, and the objects
 * loops_TAG and one_TAG that the layout table names (loops.h declares
 * them all; grep a pair's TAG, e.g. standard_double, in loops.h). */
#define STAMP(L, S, tag)                                                                          \
    void insert_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys)             \
    {                                                                                             \
        batch_insert(L, S, f, ctx, keys);                                                         \
    }                                                                                             \
    size_t query_##tag(const filter *f, const scheme_ctx *ctx, const key_batch *keys,      \
                              unsigned char *answer)                                              \
    {                                                                                             \
        return batch_query(L, S, f, ctx, keys, answer);                                           \
    }                                                                                             \
    void remove_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys)             \
    {                                                                                             \
        batch_remove(L, S, f, ctx, keys);                                                         \
    }                                                                                             \
    void insert_many_##tag(filter *f, const scheme_ctx *ctx, const key_batch *batches,     \
                                  size_t count)                                                   \
    {                                                                                             \
        many_insert(L, S, f, ctx, batches, count);                                                \
    }                                                                                             \
    size_t query_many_##tag(const filter *f, const scheme_ctx *ctx,                        \
                                   const key_batch *batches, size_t count, unsigned char *answers) \
    {                                                                                             \
        return many_query(L, S, f, ctx, batches, count, answers);                                 \
    }                                                                                             \
    void insert1_##tag(filter *f, const scheme_ctx *ctx, const void *key, size_t len,      \
                              uint64_t id)                                                        \
    {                                                                                             \
        one_insert(L, S, f, ctx, key, len, id);                                                   \
    }                                                                                             \
    int query1_##tag(const filter *f, const scheme_ctx *ctx, const void *key, size_t len,  \
                            uint64_t id)                                                          \
    {                                                                                             \
        return one_query(L, S, f, ctx, key, len, id);                                             \
    }                                                                                             \
    const filter_ops loops_##tag = {insert_##tag, query_##tag, remove_##tag, insert_many_##tag,   \
                                    query_many_##tag};                                            \
    const filter_one_ops one_##tag = {insert1_##tag, query1_##tag};

/* Every pair of loops.h's list, once. */
STAMPED_PAIRS(STAMP)
