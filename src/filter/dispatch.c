/* dispatch.c -- which loops run: filter_ops_for takes a layout's loops
 * from the layout table at the highest level this CPU runs (cpu_isa()),
 * and the vector ops here choose, per call, the loop of avx2.h or
 * avx512.h that fits the filter (its size against L2 and the last-level
 * cache, m and the blocks below 2^32), else the portable one (batch.c).
 * The answers and the bits are the one-key reference's either way
 * (tests/test_batch.c, tests/test_avx2.c).
 */
#include "filter/filters.h"

#include <stdio.h>

#include "base/cpu.h"
#include "filter/avx2.h"
#include "filter/avx512.h"
#include "filter/batch_hash.h"
#include "filter/fetch_tune.h"
#include "filter/layout.h"
#include "filter/loops.h"
#include "filter/splitblock_portable.h"
#include "filter/stage.h"
#include "filter/standard_portable.h"

/* ---- the standard layout's batch calls under their filter's plan --------- */

/* The fetch plans a standard filter's batch calls are timed under
 * (fetch_tune.c) where the plan decides how they fetch: past L2 and up to
 * the last-level cache (beyond it every plan prefetches, and the inserts
 * are staged).  Elsewhere, and once or where untuned, the core's plan.
 * At every level: the vector ones' below, the portable one's (batch.c's
 * loops) in filter_ops_for. */
static const int STANDARD_PLANS[] = {FETCH_AHEAD, FETCH_WINDOW};

/* A layout and scheme's batch calls (filter_ops' insert_many, query_many). */
typedef void insert_many_fn(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count);
typedef size_t query_many_fn(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                             unsigned char *answer);

static fetch_trial standard_call_begin(const filter *f, tune_loop loop, int insert, const key_batch *b, size_t n)
{
    if (filter_beyond_llc(f))
        return (fetch_trial){.choice = FETCH_PLAN_CPU, .candidate = -1};
    const tune_choices plans = {STANDARD_PLANS, sizeof STANDARD_PLANS / sizeof *STANDARD_PLANS};
    return fetch_tune_begin(f, loop, insert, 1, plans, FETCH_PLAN_CPU, key_batches_keys(b, n));
}

static void standard_insert_planned(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n, tune_loop loop,
                                    insert_many_fn *insert_many)
{
    const fetch_trial trial = standard_call_begin(f, loop, 1, b, n);
    const fetch_plan was = filter_call_plan_set((fetch_plan)trial.choice);
    insert_many(f, ctx, b, n);
    filter_call_plan_set(was);
    fetch_tune_end(&trial, 0);
}

static size_t standard_query_planned(const filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n,
                                     unsigned char *answers, tune_loop loop, query_many_fn *query_many)
{
    const fetch_trial trial = standard_call_begin(f, loop, 0, b, n);
    const fetch_plan was = filter_call_plan_set((fetch_plan)trial.choice);
    const size_t yes = query_many(f, ctx, b, n, answers);
    filter_call_plan_set(was);
    fetch_tune_end(&trial, yes);
    return yes;
}

#if BLOOMLAB_X86
/* ---- eight keys at a time (avx512.h) --------------------------------------- */

/* Unblocked filters up to the staging threshold (the last-level cache,
 * filter_stage_min_bytes) insert through the vector loops, which do not
 * prefetch (in cache the core overlaps the misses itself); beyond it
 * standard and partitioned filters stage, and a counting filter takes the
 * portable loop, whose prefetch of all k lines wins once each is a trip to
 * DRAM (the timing: docs/PERFORMANCE.md).  The vector loops take m < 2^32
 * (avx512_standard_*), which a cache larger than 512 MiB would not bound.
 * Queries go by L2 instead: all k positions while the filter fits, early
 * exit in phases beyond (avx512.c). */

/* Up to this many batches are hashed into one run of the AVX-512 loops:
 * a loop over 256 keys keeps its gathers in flight, one over 32 drains
 * between calls. */
#define AVX512_RUN_BATCHES 8

_Static_assert(AVX512_RUN_BATCHES * KEY_BATCH <= AVX512_MAX_KEYS, "a run fits every loop of avx512.h");

typedef struct {
    uint64_t h1[AVX512_RUN_BATCHES * KEY_BATCH];
    uint64_t h2[AVX512_RUN_BATCHES * KEY_BATCH];
    uint64_t key[AVX512_RUN_BATCHES * KEY_BATCH + 8]; /* the 8-byte keys, for the loops that hash them */
} hash_run;

/* The (h1, h2) of batches [0, count), count <= AVX512_RUN_BATCHES, side by
 * side: xxh3_64 or mulx64 of 8-byte keys in eight lanes at the avx512
 * level, in four at the avx2 level (but for h1_only), else the batch
 * hasher's values unzipped; h1 alone (run->h2 left as it was) when h1_only
 * and the hash is xxh3_64, whose h1 is its value (the split block loops
 * read nothing else).  Returns the number of keys. */
static size_t split_hashes(const scheme_ctx *ctx, const key_batch *batches, size_t count, hash_run *run,
                           isa_level level, int h1_only)
{
    const batch_hash_fn hash = batch_hasher_for(ctx->hash);
    const int xxh3_64 = hash == batch_hash_xxh3_64;
    keys8_hash keys8 = KEYS8_XXH3_64;
    const int in_lanes = keys8_hash_of(ctx->hash, &keys8);
    const int lanes8 = in_lanes && level >= ISA_AVX512, lanes4 = in_lanes && level == ISA_AVX2 && !h1_only;
    size_t at = 0;
    for (size_t b = 0; b < count; b++) {
        const key_batch *keys = &batches[b];
        if (lanes8 && avx512_keys8_split(keys8, ctx->seed, keys, run->h1 + at, run->h2 + at) == 0) {
            /* eight lanes at once */
        } else if (lanes4 && avx2_keys8_split(keys8, ctx->seed, keys, run->h1 + at, run->h2 + at) == 0) {
            /* four */
        } else if (xxh3_64 && h1_only) {
            const uint64_t bitflip = xxh3_8_bitflip(ctx->seed);
            if (batch_all_8_bytes(keys))
                for (size_t j = 0; j < keys->count; j++)
                    run->h1[at + j] = xxh3_8(keys->ptr[j], bitflip);
            else
                for (size_t j = 0; j < keys->count; j++)
                    run->h1[at + j] = xxh3_64_key(keys->ptr[j], keys->len[j], ctx->seed, bitflip);
        } else {
            hash128_t hv[KEY_BATCH];
            hash(ctx->hash, ctx->seed, keys, hv, 1);
            for (size_t j = 0; j < keys->count; j++) {
                run->h1[at + j] = hv[j].lo;
                run->h2[at + j] = hv[j].hi;
            }
        }
        at += keys->count;
    }
    return at;
}

static size_t run_length(size_t count, size_t b) { return count - b < AVX512_RUN_BATCHES ? count - b : AVX512_RUN_BATCHES; }

/* What one run of keys does to a filter, per layout: a loop of avx512.h
 * taking the keys hashed or, for xxh3_64 on 8-byte keys where the layout
 * has one, the loop that hashes them itself. */
typedef avx512_insert_fn *run_insert_fn;
typedef struct {
    avx512_query_fn *hashed; /* NULL: the portable loops */
    avx512_query_keys8_fn *keys8;
    /* A run's loop after a run with more than half its keys present, or
     * NULL: an unblocked layout's test of all k, where the phased loop or
     * the portable rounds serve a run of absent keys better, or the
     * portable rounds where the AVX2 phased loop serves those better
     * (runs_query). */
    avx512_query_fn *present;
    avx512_query_keys8_fn *present_keys8;
} query_run;

/* How a level's loops want their keys hashed (split_hashes). */
typedef struct {
    isa_level level;
    int h1_only;
} run_hashing;

_Static_assert(AVX512_RUN_BATCHES * KEY_BATCH <= AVX2_MAX_KEYS, "a run fits every loop of avx2.h");

static void runs_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count, run_insert_fn insert,
                        run_hashing hashing)
{
    hash_run run;
    for (size_t b = 0; b < count; b += AVX512_RUN_BATCHES)
        insert(f, run.h1, run.h2,
               split_hashes(ctx, batches + b, run_length(count, b), &run, hashing.level, hashing.h1_only));
}

/* The run's 8-byte keys, when a loop hashing them applies: returns how
 * many, or -1 (then split_hashes). */
static long run_keys8(const scheme_ctx *ctx, const key_batch *batches, size_t count, int have_loop, hash_run *run)
{
    if (!have_loop || batch_hasher_for(ctx->hash) != batch_hash_xxh3_64)
        return -1;
    return avx512_keys8(batches, count, run->key);
}

/* The batches of a query's run from batch b of count: where the next run's
 * loop depends on this one's answers (judging: query_run's present), the
 * call's first run 2 batches, 64 keys to judge by; past it the portable
 * loops take the rest of the call at once (they judge their own groups:
 * standard_portable.h; a call of theirs has a cost of its own, measured
 * on absent keys: docs/PERFORMANCE.md, session 20), a vector loop
 * AVX512_RUN_BATCHES. */
static size_t query_run_batches(size_t count, size_t b, int judging, int portable)
{
    const size_t most = judging && b == 0 ? 2 : portable ? count - b : AVX512_RUN_BATCHES;
    return count - b < most ? count - b : most;
}

/* The batches a run at a time: each run by the level's loop (query.hashed,
 * or query.keys8 where it takes the run's keys), or by query.present's
 * after a run with more than half its keys present; a run whose loop is
 * NULL by the portable loops. */
static size_t runs_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                         unsigned char *answer, query_run query, run_hashing hashing, query_many_fn *portable)
{
    require_flushed(f);
    hash_run run;
    size_t yes = 0, last_yes = 0, last_keys = 0, length;
    for (size_t b = 0; b < count; b += length) {
        const int present = query.present != NULL && filter_mostly_present(last_yes, last_keys);
        avx512_query_fn *const loop = present ? query.present : query.hashed;
        avx512_query_keys8_fn *const loop_keys8 = present ? query.present_keys8 : query.keys8;
        size_t keys, found;
        length = query_run_batches(count, b, query.present != NULL, loop == NULL);
        if (loop == NULL) {
            keys = key_batches_keys(batches + b, length);
            found = portable(f, ctx, batches + b, length, answer);
        } else {
            const long keys8 = run_keys8(ctx, batches + b, length, loop_keys8 != NULL, &run);
            if (keys8 >= 0) {
                keys = (size_t)keys8;
                found = loop_keys8(f, ctx->seed, run.key, keys, answer);
            } else {
                keys = split_hashes(ctx, batches + b, length, &run, hashing.level, hashing.h1_only);
                found = loop(f, run.h1, run.h2, keys, answer);
            }
        }
        yes += found;
        last_yes = found;
        last_keys = keys;
        if (answer != NULL)
            answer += keys;
    }
    return yes;
}

/* standard beyond the cache, staging (m < 2^32): positions from the vector
 * unit, sorted into their buckets. */
static void run_insert_staged_avx512(filter *f, const uint64_t *h1, const uint64_t *h2, size_t keys)
{
    uint64_t pos[KEY_BATCH * FILTER_K_MAX + 8];
    for (size_t j = 0; j < keys; j += KEY_BATCH) {
        const size_t group = keys - j < KEY_BATCH ? keys - j : KEY_BATCH;
        avx512_standard_positions(f->m, f->k, h1 + j, h2 + j, group, pos);
        for (size_t t = 0; t < group * f->k; t++)
            stage_add(f->words, f->stage, pos[t]);
    }
    f->stage->dirty = 1;
}

/* Which run loop fits a filter, or NULL for the portable loops: unblocked
 * inserts up to the last-level cache, and a standard filter's staged
 * inserts below 2^32 bits (past it the four-product positions gained
 * nothing on the portable ones: docs/PERFORMANCE.md); unblocked
 * queries all k in L2 (xxh3_64's 8-byte keys hashed inside the loop),
 * phased beyond (counting and partitioned below 2^32 positions);
 * blocked512 and register64 with fewer than 2^32 blocks (the block choice
 * is reduce_lanes), and so splitblock (one 32 x 32-bit product). */
static int inserts_direct(const filter *f) { return !filter_beyond_llc(f) && f->m < (1ULL << 32); }
static int fits_in_l2(const filter *f) { return !filter_beyond_l2(f); }

static run_insert_fn standard_insert_run_avx512(const filter *f)
{
    if (inserts_direct(f))
        return avx512_standard_insert;
    return f->stage != NULL && f->m < (1ULL << 32) ? run_insert_staged_avx512 : NULL;
}

/* Whether a standard filter takes the test of all k for a run after one
 * of mostly present keys (query_run's present), its other runs phased
 * (AVX-512, beyond L2) or prefiltered (AVX2): where the inserts' one pass
 * does (filter_standard_one_pass), a present key's k lines' misses
 * overlapping in the core's window.  There the phased loop and the
 * portable rounds cost about twice as much for a present key as for an
 * absent one (k lines and more work a line against about two), the test
 * of all k the same for both: docs/PERFORMANCE.md, session 20. */
static int present_runs_all_k(const filter *f)
{
    return f->layout == LAYOUT_STANDARD && filter_standard_one_pass(f, filter_fetch_plan());
}

/* An unblocked layout's queries: all k in L2 (8-byte keys hashed in the
 * loop), phased beyond (all k after a run of mostly present keys, where
 * present_runs_all_k); the portable loops from max_m bits on.  (Phased in
 * L2 too took a tenth off absent keys in calls of 2048, but added 13% to
 * absent and 56% to present keys in calls of 64: docs/PERFORMANCE.md,
 * session 22.) */
static query_run unblocked_query_run(const filter *f, uint64_t max_m, avx512_query_fn *all_k,
                                     avx512_query_keys8_fn *all_k_keys8, avx512_query_fn *phased)
{
    if (f->m >= max_m)
        return (query_run){0};
    if (fits_in_l2(f))
        return (query_run){.hashed = all_k, .keys8 = all_k_keys8};
    if (present_runs_all_k(f))
        return (query_run){.hashed = phased, .present = all_k, .present_keys8 = all_k_keys8};
    return (query_run){.hashed = phased};
}

static query_run standard_query_run_avx512(const filter *f)
{
    return unblocked_query_run(f, UINT64_MAX, avx512_standard_query, avx512_standard_query_keys8,
                               avx512_standard_query_phased);
}

static run_insert_fn counting_insert_run_avx512(const filter *f) { return inserts_direct(f) ? avx512_counting_insert : NULL; }

static query_run counting_query_run_avx512(const filter *f)
{
    return unblocked_query_run(f, 1ULL << 32, avx512_counting_query, avx512_counting_query_keys8,
                               avx512_counting_query_phased);
}

static run_insert_fn partitioned_insert_run_avx512(const filter *f) { return inserts_direct(f) ? avx512_partitioned_insert : NULL; }

static query_run partitioned_query_run_avx512(const filter *f)
{
    return unblocked_query_run(f, 1ULL << 32, avx512_partitioned_query, avx512_partitioned_query_keys8,
                               avx512_partitioned_query_phased);
}

/* The block layouts: fewer than 2^32 blocks; blocked512 queries in L2 also
 * take 8-byte keys unhashed (beyond, its loop prefetches from the hashes). */
static int few_blocks(const filter *f) { return f->blocks < (1ULL << 32); }
static run_insert_fn blocked512_insert_run_avx512(const filter *f) { return few_blocks(f) ? avx512_blocked512_insert : NULL; }
static query_run blocked512_query_run_avx512(const filter *f)
{
    return (query_run){.hashed = few_blocks(f) ? avx512_blocked512_query : NULL,
                       .keys8 = fits_in_l2(f) ? avx512_blocked512_query_keys8 : NULL};
}
static run_insert_fn register64_insert_run_avx512(const filter *f) { return few_blocks(f) ? avx512_register64_insert : NULL; }
static query_run register64_query_run_avx512(const filter *f)
{
    return (query_run){.hashed = few_blocks(f) ? avx512_register64_query : NULL};
}
static run_insert_fn splitblock_insert_run_avx512(const filter *f) { return few_blocks(f) ? avx512_splitblock_insert : NULL; }
static query_run splitblock_query_run_avx512(const filter *f)
{
    return (query_run){.hashed = few_blocks(f) ? avx512_splitblock_query : NULL};
}

/* ---- AVX2 (avx2.h): the same runs, 8-byte keys hashed four a step -------- */

/* Counting and partitioned filters: inserts up to the last-level cache
 * (m < 2^32; a staging filter beyond takes the portable loop, which was
 * faster there than positions from avx2.c: docs/PERFORMANCE.md); queries
 * test all k while the filter fits in L2, and beyond it batch.c's portable
 * phases exit early (an AVX2 loop testing all k fetched every line: slower
 * there for absent keys).  The standard layout's queries have their own
 * runs below. */
static query_run unblocked_query_run_avx2(const filter *f, avx512_query_fn *all_k)
{
    return (query_run){.hashed = f->m < (1ULL << 32) && fits_in_l2(f) ? all_k : NULL};
}
/* The standard layout's inserts of keys standard_portable.c does not take
 * (not 8 bytes long, or another hasher: the AVX2 level's wrapper below):
 * the AVX2 loop in L2 only.  Beyond it the portable loops (batch.c's
 * stamped ones) took fewer instructions and less time (docs/PERFORMANCE.md,
 * 2026-12-05). */
static run_insert_fn standard_insert_run_avx2(const filter *f)
{
    return inserts_direct(f) && fits_in_l2(f) ? avx2_standard_insert : NULL;
}
/* The standard layout's queries where its one pass applies
 * (present_runs_all_k: in L2, and under FETCH_WINDOW below half the
 * last-level cache): a run by the prefilter (its first three positions,
 * then the rest for the keys that found them; avx2.c has its measurements),
 * a run after one of mostly present keys by the test of all k.  Beyond
 * half the cache (3e7 keys) the rounds' prefetches beat the prefilter,
 * 13.5-13.8 ns an absent key on given hashes in runs of 256 against
 * 17.9-18.3 (docs/PERFORMANCE.md, session 22), and the phased loop
 * (avx2.c's standard_phased, with the same prefetches) beat the rounds
 * but for a run after one of mostly present keys beyond the last-level
 * cache, which the rounds keep (session 31): standard_portable.h's rounds
 * on the keys' (h1, h2), which split_hashes makes four keys a step (a
 * tenth of an absent key less than the rounds' scalar hashing at 1e6 and
 * 1e7 keys on a Zen 5: session 21). */
static query_run standard_query_run_avx2(const filter *f)
{
    if (f->m >= (1ULL << 32))
        return (query_run){0};
    if (present_runs_all_k(f))
        return (query_run){.hashed = avx2_standard_query_prefilter, .present = avx2_standard_query};
    return (query_run){.hashed = avx2_standard_query_phased,
                       .present = filter_beyond_llc(f) ? standard_portable_query_split : NULL};
}
static run_insert_fn counting_insert_run_avx2(const filter *f) { return inserts_direct(f) ? avx2_counting_insert : NULL; }
static query_run counting_query_run_avx2(const filter *f)
{
    return unblocked_query_run_avx2(f, avx2_counting_query);
}
static run_insert_fn partitioned_insert_run_avx2(const filter *f)
{
    return inserts_direct(f) ? avx2_partitioned_insert : NULL;
}
static query_run partitioned_query_run_avx2(const filter *f)
{
    return unblocked_query_run_avx2(f, avx2_partitioned_query);
}
/* blocked512 with positions below 2^32; register64 and splitblock with
 * fewer than 2^32 blocks. */
static int narrow_blocks(const filter *f) { return f->blocks < (1ULL << 23); }
static run_insert_fn blocked512_insert_run_avx2(const filter *f) { return narrow_blocks(f) ? avx2_blocked512_insert : NULL; }
static query_run blocked512_query_run_avx2(const filter *f)
{
    return (query_run){.hashed = narrow_blocks(f) ? avx2_blocked512_query : NULL};
}
static run_insert_fn register64_insert_run_avx2(const filter *f) { return few_blocks(f) ? avx2_register64_insert : NULL; }
static query_run register64_query_run_avx2(const filter *f)
{
    return (query_run){.hashed = few_blocks(f) ? avx2_register64_query : NULL};
}
static run_insert_fn splitblock_insert_run_avx2(const filter *f) { return few_blocks(f) ? avx2_splitblock_insert : NULL; }
static query_run splitblock_query_run_avx2(const filter *f)
{
    return (query_run){.hashed = few_blocks(f) ? avx2_splitblock_query : NULL};
}
/* The multiply scheme on the blocked layouts: the AVX2 loops at both
 * levels (avx512.c has none; at the avx512 level its eight-lane XXH3 still
 * hashes the keys). */
static run_insert_fn blocked512_multiply_insert_run_avx2(const filter *f)
{
    return narrow_blocks(f) ? avx2_blocked512_multiply_insert : NULL;
}
static query_run blocked512_multiply_query_run_avx2(const filter *f)
{
    return (query_run){.hashed = narrow_blocks(f) ? avx2_blocked512_multiply_query : NULL};
}
static run_insert_fn register64_multiply_insert_run_avx2(const filter *f)
{
    return few_blocks(f) ? avx2_register64_multiply_insert : NULL;
}
static query_run register64_multiply_query_run_avx2(const filter *f)
{
    return (query_run){.hashed = few_blocks(f) ? avx2_register64_multiply_query : NULL};
}
#define blocked512_multiply_insert_run_avx512 blocked512_multiply_insert_run_avx2
#define blocked512_multiply_query_run_avx512 blocked512_multiply_query_run_avx2
#define register64_multiply_insert_run_avx512 register64_multiply_insert_run_avx2
#define register64_multiply_query_run_avx512 register64_multiply_query_run_avx2

/* The four ops of a vector pair at one level: the run loop that fits, else
 * the portable loops stamped in batch.c.  H1_ONLY: the loops read h1 alone.
 * Each makes insert_TAG_ISA, query_TAG_ISA, insert_many_TAG_ISA,
 * query_many_TAG_ISA and the object loops_TAG_ISA that the layout table
 * names (loops.h's VECTOR_PAIRS). */
#define VECTOR_OPS(tag, isa, LEVEL, H1_ONLY) VECTOR_OPS_OVER(tag, tag##_double, isa, LEVEL, H1_ONLY)
/* The same, falling back to the loops stamped for the pair `stamped`. */
#define VECTOR_OPS_OVER(tag, stamped, isa, LEVEL, H1_ONLY)                                                   \
    static void insert_many_##tag##_##isa(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)    \
    {                                                                                                        \
        run_insert_fn run = tag##_insert_run_##isa(f);                                                       \
        if (run != NULL)                                                                                     \
            runs_insert(f, ctx, b, n, run, (run_hashing){LEVEL, H1_ONLY});                                   \
        else                                                                                                 \
            insert_many_##stamped(f, ctx, b, n);                                                        \
    }                                                                                                        \
    static void insert_##tag##_##isa(filter *f, const scheme_ctx *ctx, const key_batch *b)                   \
    {                                                                                                        \
        if (b->count == 1) /* one key: nothing to vectorise (batch.c's lone_key_insert) */                   \
            insert_##stamped(f, ctx, b);                                                                     \
        else                                                                                                 \
            insert_many_##tag##_##isa(f, ctx, b, 1);                                                         \
    }                                                                                                        \
    static size_t query_many_##tag##_##isa(const filter *f, const scheme_ctx *ctx, const key_batch *b,       \
                                           size_t n, unsigned char *answers)                                 \
    {                                                                                                        \
        query_run run = tag##_query_run_##isa(f);                                                            \
        if (run.hashed == NULL && run.present == NULL)                                                       \
            return query_many_##stamped(f, ctx, b, n, answers);                                              \
        return runs_query(f, ctx, b, n, answers, run, (run_hashing){LEVEL, H1_ONLY}, query_many_##stamped);  \
    }                                                                                                        \
    static size_t query_##tag##_##isa(const filter *f, const scheme_ctx *ctx, const key_batch *b,            \
                                      unsigned char *answer)                                                 \
    {                                                                                                        \
        if (b->count == 1) /* one key: batch.c's lone_key_query */                                           \
            return query_##stamped(f, ctx, b, answer);                                                       \
        query_run run = tag##_query_run_##isa(f);                                                            \
        if (run.hashed == NULL) /* one batch: one run, by the level's loop (runs_query) */                   \
            return query_##stamped(f, ctx, b, answer);                                                       \
        return runs_query(f, ctx, b, 1, answer, run, (run_hashing){LEVEL, H1_ONLY}, query_many_##stamped);   \
    }                                                                                                        \
    const filter_ops loops_##tag##_##isa = {insert_##tag##_##isa, query_##tag##_##isa, NULL,                  \
                                            insert_many_##tag##_##isa, query_many_##tag##_##isa};

#define VECTOR_LEVEL(isa, LEVEL)                                                                             \
    VECTOR_OPS(counting, isa, LEVEL, 0)                                                                      \
    VECTOR_OPS(partitioned, isa, LEVEL, 0)                                                                   \
    VECTOR_OPS(blocked512, isa, LEVEL, 0)                                                                    \
    VECTOR_OPS(register64, isa, LEVEL, 0)

static run_insert_fn standard_insert_run_avx512_planned(const filter *f) { return standard_insert_run_avx512(f); }
static query_run standard_query_run_avx512_planned(const filter *f) { return standard_query_run_avx512(f); }
VECTOR_OPS(standard, avx512_planned, ISA_AVX512, 0)
VECTOR_LEVEL(avx512, ISA_AVX512)
VECTOR_LEVEL(avx2, ISA_AVX2)
VECTOR_OPS_OVER(blocked512_multiply, blocked512_multiply, avx512, ISA_AVX512, 0)
VECTOR_OPS_OVER(register64_multiply, register64_multiply, avx512, ISA_AVX512, 0)
VECTOR_OPS_OVER(blocked512_multiply, blocked512_multiply, avx2, ISA_AVX2, 0)
VECTOR_OPS_OVER(register64_multiply, register64_multiply, avx2, ISA_AVX2, 0)
static run_insert_fn splitblock_insert_run_avx2_hashed(const filter *f) { return splitblock_insert_run_avx2(f); }
static query_run splitblock_query_run_avx2_hashed(const filter *f) { return splitblock_query_run_avx2(f); }
VECTOR_OPS(splitblock, avx2_hashed, ISA_AVX2, 1)
static run_insert_fn splitblock_insert_run_avx512_hashed(const filter *f) { return splitblock_insert_run_avx512(f); }
static query_run splitblock_query_run_avx512_hashed(const filter *f) { return splitblock_query_run_avx512(f); }
VECTOR_OPS(splitblock, avx512_hashed, ISA_AVX512, 1)

/* 1 (and the hash) when the loops that hash 8-byte keys themselves take
 * the batches: the hash xxh3_64 or mulx64 and every key 8 bytes long (one
 * batch, a library user's key: the scalar check, which costs less than
 * the vector one's setup). */
static int keys8_batches(const scheme_ctx *ctx, const key_batch *batches, size_t count, keys8_hash *hash)
{
    return keys8_hash_of(ctx->hash, hash) &&
           (count == 1 ? batch_all_8_bytes(batches) : avx2_batches_keys8(batches, count));
}

/* The standard layout at the AVX2 level: 8-byte keys' inserts by a keys8
 * hash, where the portable loop takes its one pass (filters.h's
 * filter_standard_one_pass: in L2, and under FETCH_WINDOW below half the
 * last-level cache), by avx2.c's loop, k stamped, on keys hashed four a
 * step (split_hashes): a sixth to a quarter faster in L2 and at 1e6 keys on
 * a Zen 5, a tenth at 1e7; beyond, where the one pass gives way to the
 * prefetched loop, avx2.c's was slower (docs/PERFORMANCE.md, session 21),
 * so there standard_portable.c's; other keys and hashers, and every query,
 * as the runs above. */
static run_insert_fn standard_insert_run_avx2_hashed(const filter *f) { return standard_insert_run_avx2(f); }
static query_run standard_query_run_avx2_hashed(const filter *f) { return standard_query_run_avx2(f); }
VECTOR_OPS(standard, avx2_hashed, ISA_AVX2, 0)
static void insert_many_standard_avx2(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)
{
    keys8_hash hash;
    if (f->stage != NULL || !keys8_batches(ctx, b, n, &hash))
        insert_many_standard_avx2_hashed(f, ctx, b, n);
    else if (inserts_direct(f) && filter_standard_one_pass(f, filter_fetch_plan()))
        runs_insert(f, ctx, b, n, avx2_standard_insert, (run_hashing){ISA_AVX2, 0});
    else
        standard_portable_insert_keys8(f, hash, ctx->seed, b, n);
}
static void insert_standard_avx2(filter *f, const scheme_ctx *ctx, const key_batch *b)
{
    if (b->count == 1) /* one key: batch.c's lone_key_insert */
        insert_standard_avx2_hashed(f, ctx, b);
    else
        insert_many_standard_avx2(f, ctx, b, 1);
}

static void insert_many_standard_avx2_tuned(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)
{
    standard_insert_planned(f, ctx, b, n, TUNE_STANDARD_AVX2, insert_many_standard_avx2);
}
static size_t query_many_standard_avx2_tuned(const filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n,
                                             unsigned char *answers)
{
    return standard_query_planned(f, ctx, b, n, answers, TUNE_STANDARD_AVX2, query_many_standard_avx2_hashed);
}
static void insert_many_standard_avx512_tuned(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)
{
    standard_insert_planned(f, ctx, b, n, TUNE_STANDARD_AVX512, insert_many_standard_avx512_planned);
}
static size_t query_many_standard_avx512_tuned(const filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n,
                                               unsigned char *answers)
{
    return standard_query_planned(f, ctx, b, n, answers, TUNE_STANDARD_AVX512, query_many_standard_avx512_planned);
}

const filter_ops loops_standard_avx2 = {insert_standard_avx2, query_standard_avx2_hashed, NULL,
                                        insert_many_standard_avx2_tuned, query_many_standard_avx2_tuned};
const filter_ops loops_standard_avx512 = {insert_standard_avx512_planned, query_standard_avx512_planned, NULL,
                                          insert_many_standard_avx512_tuned, query_many_standard_avx512_tuned};

/* The split block at each level: xxh3_64 or mulx64 on 8-byte keys hashed
 * in the loop, one pass (avx2.h's four keys a step, avx512.h's eight); any
 * other key or hash through the runs above. */
/* 1 (and the hash) when the split block loop hashing 8-byte keys applies. */
static int split_8_byte_keys(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                             keys8_hash *hash)
{
    return few_blocks(f) && keys8_batches(ctx, batches, count, hash);
}
#define SPLIT_KEYS8_OPS(isa)                                                                                   \
    static void insert_many_splitblock_##isa(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n) \
    {                                                                                                        \
        keys8_hash hash;                                                                                     \
        if (split_8_byte_keys(f, ctx, b, n, &hash))                                                          \
            isa##_splitblock_insert_keys8(f, hash, ctx->seed, b, n);                                         \
        else                                                                                                 \
            insert_many_splitblock_##isa##_hashed(f, ctx, b, n);                                             \
    }                                                                                                        \
    static void insert_splitblock_##isa(filter *f, const scheme_ctx *ctx, const key_batch *b)                \
    {                                                                                                        \
        keys8_hash hash;                                                                                     \
        if (split_8_byte_keys(f, ctx, b, 1, &hash))                                                          \
            isa##_splitblock_insert_keys8(f, hash, ctx->seed, b, 1);                                         \
        else                                                                                                 \
            insert_splitblock_##isa##_hashed(f, ctx, b);                                                     \
    }                                                                                                        \
    static size_t query_many_splitblock_##isa(const filter *f, const scheme_ctx *ctx, const key_batch *b,    \
                                              size_t n, unsigned char *answers)                              \
    {                                                                                                        \
        keys8_hash hash;                                                                                     \
        if (split_8_byte_keys(f, ctx, b, n, &hash))                                                          \
            return isa##_splitblock_query_keys8(f, hash, ctx->seed, b, n, answers);                          \
        return query_many_splitblock_##isa##_hashed(f, ctx, b, n, answers);                                  \
    }                                                                                                        \
    static size_t query_splitblock_##isa(const filter *f, const scheme_ctx *ctx, const key_batch *b,         \
                                         unsigned char *answer)                                              \
    {                                                                                                        \
        keys8_hash hash;                                                                                     \
        if (split_8_byte_keys(f, ctx, b, 1, &hash))                                                          \
            return isa##_splitblock_query_keys8(f, hash, ctx->seed, b, 1, answer);                           \
        return query_splitblock_##isa##_hashed(f, ctx, b, answer);                                           \
    }                                                                                                        \
    const filter_ops loops_splitblock_##isa = {insert_splitblock_##isa, query_splitblock_##isa, NULL,        \
                                               insert_many_splitblock_##isa, query_many_splitblock_##isa};
SPLIT_KEYS8_OPS(avx2)
SPLIT_KEYS8_OPS(avx512)
#endif /* BLOOMLAB_X86 */

filter_ops filter_ops_portable(layout_kind layout, scheme_kind scheme) { return *LAYOUT_TABLE[layout].portable[scheme]; }

/* The vector ops of a level, where the table has them (NULL elsewhere). */
static const filter_ops *level_ops(const struct layout *l, isa_level level, scheme_kind scheme)
{
    if (level >= ISA_AVX512)
        return l->avx512[scheme];
    if (level >= ISA_AVX2)
        return l->avx2[scheme];
    return NULL;
}

static void insert_many_standard_portable_tuned(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)
{
    standard_insert_planned(f, ctx, b, n, TUNE_STANDARD_PORTABLE, loops_standard_double.insert_many);
}
static size_t query_many_standard_portable_tuned(const filter *f, const scheme_ctx *ctx, const key_batch *b,
                                                 size_t n, unsigned char *answers)
{
    return standard_query_planned(f, ctx, b, n, answers, TUNE_STANDARD_PORTABLE, loops_standard_double.query_many);
}

filter_ops filter_ops_for(layout_kind layout, scheme_kind scheme)
{
    const struct layout *l = &LAYOUT_TABLE[layout];
    filter_ops ops = *l->portable[scheme];
    const filter_ops *vector = level_ops(l, cpu_isa(), scheme);
    if (vector != NULL) { /* remove stays portable */
        ops.insert = vector->insert;
        ops.query = vector->query;
        ops.insert_many = vector->insert_many;
        ops.query_many = vector->query_many;
    } else if (layout == LAYOUT_STANDARD && scheme == SCHEME_DOUBLE) { /* the portable loops under the filter's plan */
        ops.insert_many = insert_many_standard_portable_tuned;
        ops.query_many = query_many_standard_portable_tuned;
    }
    return ops;
}

/* The module whose one-key calls fit the filter (its table of them): the
 * split block's are the AVX2 ones at the avx2 and avx512 levels (a 256-bit
 * block is one AVX2 register; AVX-512 adds nothing to one key), under the
 * same size limit as its AVX2 ops; the standard layout's are scalar at
 * every level (k positions, each its own line, one key's worth of work to
 * overlap), their queries all k at once or with an early exit by the
 * filter's size (standard_portable.h). */
static const filter_key8_calls *key8_module(const filter *f)
{
    if (f->layout == LAYOUT_STANDARD)
        return filter_standard_one_pass(f, filter_fetch_plan()) ? standard_portable_key8_all_k : standard_portable_key8;
#if BLOOMLAB_X86
    if (cpu_isa() >= ISA_AVX2 && few_blocks(f))
        return avx2_splitblock_key8;
#endif
    return splitblock_portable_key8;
}

/* filters.h says what. */
filter_key8 filter_key8_for(const filter *f, const scheme_ctx *ctx, scheme_kind scheme)
{
    filter_key8 k8 = {{NULL, NULL, NULL, NULL}, KEYS8_XXH3_64, 0};
    if ((f->layout != LAYOUT_SPLITBLOCK && f->layout != LAYOUT_STANDARD) || scheme != SCHEME_DOUBLE ||
        !keys8_hash_of(ctx->hash, &k8.hash))
        return k8;
    k8.keyed = keys8_constant(k8.hash, ctx->seed);
    k8.calls = key8_module(f)[k8.hash];
    return k8;
}

/* "LEVEL for LAYOUT ABOUT; ...; portable for the other schemes", from the
 * table's phrases; "portable" alone below AVX2. */
const char *filter_ops_description(void)
{
    static char text[2048];
    const isa_level level = cpu_isa();
    if (level < ISA_AVX2)
        return "portable";
    size_t at = (size_t)snprintf(text, sizeof text, "%s for", isa_name(level));
    for (int i = 0; i < LAYOUT_COUNT && at < sizeof text; i++) {
        const struct layout *l = &LAYOUT_TABLE[i];
        const char *about = level >= ISA_AVX512 ? l->avx512_about : l->avx2_about;
        if (about != NULL && about[0] != '\0')
            at += (size_t)snprintf(text + at, sizeof text - at, " %s %s;", l->name, about);
    }
    if (at < sizeof text)
        at += (size_t)snprintf(text + at, sizeof text - at, " portable for the other schemes");
    if (at >= sizeof text)
        return text;
    /* how the split block fetched beyond L2: a shape forced, a plan forced
     * (filters.h: the AVX-512 loop's beyond the LLC alone), else timed */
    if (fetch_tune_forced() >= 0)
        snprintf(text + at, sizeof text - at, "; split block fetch shape: %s (forced)",
                 fetch_shape_name((fetch_shape)fetch_tune_forced()));
    else if (filter_fetch_plan_forced())
        snprintf(text + at, sizeof text - at, "; split block fetch plan%s: %s",
                 level == ISA_AVX2 ? "" : " beyond the last-level cache", fetch_plan_name(filter_fetch_plan()));
    else
        snprintf(text + at, sizeof text - at,
                 "; split block fetch shape and standard fetch plan: the fastest timed on each filter's calls");
    return text;
}
