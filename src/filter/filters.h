/* filters.h -- filter layouts: where a key's k values land in memory.
 *
 *   standard     one array of m bits; position i = reduce(u_i, m).
 *   counting     the same positions over m 4-bit counters (4x the memory):
 *                +1 on insert, -1 on delete, saturating at 15; a saturated
 *                counter is never decremented (it may hold more than 15).
 *   partitioned  k slices, slice i = bits [floor(i m/k), floor((i+1) m/k));
 *                position i falls in slice i.
 *   blocked512   m/512 blocks of one 64-byte cache line; u_0 picks the
 *                block, u_1..u_k give k bits inside it (their top 9 bits;
 *                with the multiply scheme, the top 9 bits of g_0..g_{k-1},
 *                schemes.h), after Putze, Sanders and Singler 2007.
 *   register64   the same with 64-bit blocks: the course page's one-word
 *                filter, repeated m/64 times.
 *   splitblock   Apache Parquet's split block filter: m/256 blocks of eight
 *                32-bit words; with h = u_0, block = ((h >> 32) * blocks) >> 32
 *                and word i gets bit (uint32(h) * SALT[i]) >> 27: k = 8.
 *
 * reduce(u, r) = floor(u r / 2^64); see schemes.h.  The blocked layouts take
 * m rounded up to whole blocks (layout_fit_m); the row reports the m used.
 *
 * Insert and query work on batches of keys: the first pass hashes every key
 * of the batch and prefetches (insert: all k lines; query: the first), the
 * second sets or probes, so that the memory latency of one key hides behind
 * the hashing of the next; insert_many overlaps one batch's first pass
 * with the previous batch's second, and query_many keeps four batches in
 * flight through the unblocked layouts' query phases.  filter_ops_for()
 * picks the loops stamped for one (layout, scheme) pair, so the hot loop
 * pays for neither choice (batch.c says more; layout.c holds the table of
 * each layout's loops).
 *
 * A standard or partitioned filter larger than the last-level cache stages
 * its inserts: positions are sorted into buckets by 256 KiB region and a
 * region's bucket is applied when full, so that its bits are set while the
 * region is in cache (stage.c says more); filter_flush() applies the rest.
 *
 * On a CPU with AVX2 (every x86-64 CPU since 2013-2017), filter_ops_for()
 * gives vector loops for double hashing on every layout: the AVX2 ones of
 * avx2.h, or on a CPU with AVX-512 the eight-key ones of avx512.h, the
 * level chosen at run time (cpu.h).  The rest of this paragraph is the
 * AVX-512 level's; avx2.h says what its loops do.  In cache a filter's cost is
 * arithmetic and these do it eight keys an instruction.  An unblocked
 * filter tests all k positions of a key while it fits in L2 and exits
 * early in phases beyond, where a position costs a memory trip; a standard one from the last-level
 * cache's size to 2^32 bits takes its staged inserts' positions from the vector unit.  The vector loops set the same bits and give the same
 * answers; filter_ops_portable() keeps the portable ones reachable for the
 * tests.
 */
#ifndef BLOOMLAB_FILTERS_H
#define BLOOMLAB_FILTERS_H

#include <stddef.h>
#include <stdint.h>

#include "filter/key_batch.h"
#include "filter/schemes.h"

typedef enum {
    LAYOUT_STANDARD,
    LAYOUT_COUNTING,
    LAYOUT_PARTITIONED,
    LAYOUT_BLOCKED512,
    LAYOUT_REGISTER64,
    LAYOUT_SPLITBLOCK,
    LAYOUT_COUNT
} layout_kind;

#define COUNTER_MAX 15u

/* Parquet's salts (parquet-format BloomFilter.md): splitblock word i gets
 * bit (uint32(h) * SPLITBLOCK_SALT[i]) >> 27.  Defined here, not in one
 * file, so that every loop sees the values and multiplies by immediates
 * (an extern array costs a load before each of the eight products). */
static const uint32_t SPLITBLOCK_SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                            0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
#define FILTER_K_MAX 64u

/* The k the standard layout's insert loops and one-key calls are stamped
 * for, k a constant in each (standard_portable.c, avx512.c): 1 to
 * FILTER_K_STAMPED, the k of false-positive rates down to about 1e-5
 * ((1/2)^k at the best k); a larger k takes the loop over k.  With k a
 * constant a key's positions are written out: straight-line code, a fifth
 * faster beyond L2 in the portable loop and 4-7% in the AVX-512 one
 * (docs/PERFORMANCE.md, 2026-12-06, session 19). */
#define FILTER_K_STAMPED 16
#define FILTER_STAMPED_K(X)                                                                                  \
    X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
/* The stamps' switch over k: FILTER_K_DO(K, STAMPED), which its user
 * defines as a statement that leaves the function (it ends in a return),
 * with K a constant and STAMPED 1 for each k of FILTER_STAMPED_K, and with
 * k itself and STAMPED 0 past them. */
#define FILTER_K_CASE(K)                                                                                     \
    case K:                                                                                                  \
        FILTER_K_DO(K, 1);
#define FILTER_K_SWITCH(k)                                                                                   \
    switch (k) {                                                                                             \
        FILTER_STAMPED_K(FILTER_K_CASE)                                                                      \
    default:                                                                                                 \
        FILTER_K_DO(k, 0);                                                                                   \
    }

typedef struct {
    layout_kind layout;
    uint64_t m;            /* bits, or counters for counting */
    unsigned k;
    uint64_t *words;       /* 64-byte aligned */
    uint64_t word_count;
    uint64_t blocks;       /* blocked layouts: m / block bits */
    uint64_t slice_start[FILTER_K_MAX + 1]; /* partitioned */
    uint64_t saturations;  /* counting: increments lost at 15 */
    uint64_t bad_deletes;  /* counting: deletes that found a zero counter */
    struct filter_stage *stage; /* staged inserts (stage.c), or NULL */
    struct fetch_tune *tune;    /* split block, standard: how its loops fetch, timed (fetch_tune.c); or NULL */
} filter;

/* What a layout is, read from its entry of the layout table (layout.h,
 * layout.c): the one place that knows each layout's facts. */
const char *layout_name(layout_kind layout);
const char *layout_about(layout_kind layout); /* one line, for bloomlab list */
int layout_from_name(const char *name, layout_kind *out); /* 0 or -1 */
unsigned layout_block_bits(layout_kind layout);            /* 1 for unblocked */
uint64_t layout_fit_m(layout_kind layout, uint64_t m);     /* m rounded up to whole blocks */
/* Memory bits a position takes: 1, or 4 for counting's counters. */
unsigned layout_cell_bits(layout_kind layout);
uint64_t layout_memory_bits(layout_kind layout, uint64_t m); /* m cells of layout_cell_bits */
uint64_t layout_bytes(layout_kind layout, uint64_t m);       /* whole cache lines */
/* The k a layout is built for (splitblock: 8, one bit in each word), or 0
 * when it takes any k. */
unsigned layout_fixed_k(layout_kind layout);
/* 1 when k may not exceed m (partitioned: a slice a position). */
int layout_k_at_most_m(layout_kind layout);
/* 1 when a delete takes a key out exactly (counting's counters; saturation
 * aside), 0 when it clears bits other keys share. */
int layout_deletes_exactly(layout_kind layout);
/* The scheme a layout takes when none is named: multiply for blocked512 and
 * register64 (its in-block bits follow their formula; double's fold, see
 * schemes.h), double for the others. */
scheme_kind layout_default_scheme(layout_kind layout);
/* 0 when (layout, scheme, m, k) can be built, else -1 with a reason. */
int layout_check(layout_kind layout, scheme_kind scheme, uint64_t m, unsigned k, char *err,
                 size_t err_size);

/* A standard or partitioned filter larger than this stages its inserts
 * (stage.c), and the AVX2 split block prefetches its blocks in two steps
 * (avx2.c, beyond_llc): the machine's last-level cache, asked at run
 * time (cache_llc_bytes).  It decides which loop sets the bits, never which
 * bits.  filter_stage_min_bytes_set(bytes) puts another threshold in its
 * place for this process (the tests, to stage small filters); 0 goes back
 * to the cache's size. */
uint64_t filter_stage_min_bytes(void);
void filter_stage_min_bytes_set(uint64_t bytes);
/* Where a filter's words lie against this machine's caches (cache.h), for
 * the loops that prefetch by it: beyond L2, and beyond the last-level
 * cache (filter_stage_min_bytes). */
int filter_beyond_l2(const filter *f);
int filter_beyond_llc(const filter *f);

/* A query's prefetch of a line it tests in a later round, phase or batch
 * (the standard rounds, batch.c's phases and its blocked batches): into
 * L2 alone (prefetcht1) when the filter is beyond the last-level cache
 * (far: filter_beyond_llc, a constant in each stamp of a loop that can
 * make it one), else into L1.  A line bound for L1 holds one of the core's
 * few L1 miss buffers until it arrives, one bound for L2 less long, so more
 * of a round's lines are in flight from DRAM, and the round after finds
 * them in L2.  Beyond the last-level cache that more than halved a present
 * key of the standard layout's rounds; within it, where a line comes from
 * L3 and the buffers are not what limits, the two were alike or the load
 * from L2 cost up to 8% more (docs/PERFORMANCE.md, session 27).  The
 * AVX-512 level's phases found the same (avx512.c, PHASE_AHEAD). */
static inline __attribute__((always_inline)) void filter_query_prefetch(const void *line, int far)
{
    if (far)
        __builtin_prefetch(line, 0, 2);
    else
        __builtin_prefetch(line, 0, 3);
}

/* How the AVX2 split block loop brings a key's block near before its bits
 * are set or tested, by what each core was measured to do best
 * (docs/PERFORMANCE.md); the standard layout's loops follow it too.  The
 * split block loops now time the shapes on each filter's calls instead,
 * and a standard filter's batch calls the two plans (fetch_tune.c: the
 * best plan changed with every core measured, and a guest's cache was
 * smaller than its reported one); the core's plan rules where one is not
 * timed (a call of one batch, a filter not yet warm or untuned, the
 * counting and partitioned layouts, the one-key path).
 * FETCH_AHEAD: a prefetch into L1 as the key is
 * hashed once the filter is beyond L2, and beyond the last-level cache two
 * steps (into L2 128 keys ahead, into L1 32 keys ahead); the faster way on
 * Zen 3 and the Intel Xeon of earlier sessions, whose windows did not
 * cover a last-level-cache miss.  FETCH_WINDOW: no prefetch as a key is
 * hashed up to the last-level cache, where the out-of-order window
 * overlaps the misses and those prefetches (each a reload of the block's
 * index just stored) only cost; instead one from the key's ring slot 32
 * keys ahead, a scalar load and a prefetch (beyond L2: an insert's from
 * twice L2 until session 24), and one prefetch into L1 128 keys ahead
 * beyond the last-level cache; the faster way on Zen 5 (AMD family 26).
 * AMD family 26 and later take FETCH_WINDOW, every other core FETCH_AHEAD;
 * filter_fetch_plan_set forces one (the tests run the loop under both),
 * FETCH_PLAN_CPU goes back to the core's.  The AVX-512 loop fetches by
 * FETCH_WINDOW on every core up to the last-level cache, and by the core's
 * plan beyond it.  A plan decides how a loop fetches, never
 * which bits it sets. */
typedef enum { FETCH_PLAN_CPU, FETCH_AHEAD, FETCH_WINDOW } fetch_plan;
fetch_plan filter_fetch_plan(void);
void filter_fetch_plan_set(fetch_plan plan);
int filter_fetch_plan_forced(void); /* 1 while filter_fetch_plan_set forces a plan */
/* The plan filter_fetch_plan gives this thread (unless one is forced)
 * until set back: a standard filter's batch call under the plan its
 * tuning chose or is timing (dispatch.c, fetch_tune.c); FETCH_PLAN_CPU,
 * the core's.  Returns the plan it replaces. */
fetch_plan filter_call_plan_set(fetch_plan plan);
const char *fetch_plan_name(fetch_plan plan);

/* How a split block loop brings a key's block near before its work, by a
 * plan and the filter's size, for an insert as for a query
 * (filter_fetch_shape; avx2.c's loop under the core's plan, avx512.c's
 * under FETCH_WINDOW up to the last-level cache and the core's plan beyond):
 *   SHAPE_NONE           no prefetch (in L2);
 *   SHAPE_AT_HASH        (FETCH_AHEAD, L2 to the last-level cache) prefetched
 *                        into L1 16 keys after its key is hashed, a ring
 *                        ahead (split_ymm.h's split_late);
 *   SHAPE_FROM_RING      (FETCH_WINDOW, L2 to the last-level cache)
 *                        prefetched from its ring slot 32 keys ahead: a load
 *                        and a prefetch a key, no vector work;
 *   SHAPE_FAR_ONE_STEP   (FETCH_WINDOW, beyond the last-level cache) into L1
 *                        as its key is hashed, 128 keys ahead;
 *   SHAPE_FAR_TWO_STEPS  (FETCH_AHEAD, beyond it) into L2 as its key is
 *                        hashed, 128 keys ahead, then into L1 from its slot
 *                        32 keys ahead;
 *   SHAPE_FAR_L2         (no plan's) into L2 as its key is hashed, 128 keys
 *                        ahead, and no more: its load finds it there;
 *   SHAPE_LATE_L2        (no plan's) into L2 16 keys after its key is
 *                        hashed (split_ymm.h's split_late), 256 keys ahead.
 * Beyond L2 the loops time the shapes on each filter's calls and keep the
 * fastest (fetch_tune.c), unless a shape or a plan is forced. */
typedef enum {
    SHAPE_NONE,
    SHAPE_AT_HASH,
    SHAPE_FROM_RING,
    SHAPE_FAR_ONE_STEP,
    SHAPE_FAR_TWO_STEPS,
    SHAPE_FAR_L2,
    SHAPE_LATE_L2
} fetch_shape;
fetch_shape filter_fetch_shape(const filter *f, fetch_plan plan);

/* Whether a standard filter's loops past L2 that the out-of-order window
 * could cover prefetch their lines (avx512.c's phased queries, avx2.c's
 * inserts): beyond the last-level cache on every core, within it where the
 * core's plan is FETCH_AHEAD; under FETCH_WINDOW the window covers a line
 * from the last-level cache, and the prefetches cost more than they hide
 * (measured on a Zen 5 at 1e6 and 1e7 keys: docs/PERFORMANCE.md, sessions
 * 16, 20 and 21). */
static inline int filter_phase_prefetch(const filter *f)
{
    return filter_beyond_llc(f) || filter_fetch_plan() != FETCH_WINDOW;
}

/* Whether the standard layout's 8-byte keys go into a filter in one pass
 * (standard_portable.c: each key hashed and its k bits set at once, no
 * prefetch) or a batch's positions are computed and their lines
 * prefetched a batch ahead of setting them.  One pass in L2 on every core
 * (no miss to hide, fewer instructions), and under FETCH_WINDOW below half
 * the last-level cache, where the out-of-order window overlaps a few keys'
 * misses (measured on a Zen 5: a fifth faster there, twice as slow from
 * half the last-level cache on: docs/PERFORMANCE.md, session 19). */
int filter_standard_one_pass(const filter *f, fetch_plan plan);

/* Where filter_standard_one_pass holds, the standard layout's queries test
 * the next keys all k at once, no early exit, after keys more than half of
 * which were present (yes of keys): standard_portable.h's groups of 64,
 * dispatch.c's runs at the vector levels.  The rule, once for both. */
static inline int filter_mostly_present(size_t yes, size_t keys) { return 2 * yes > keys; }

int filter_init(filter *f, layout_kind layout, uint64_t m, unsigned k); /* 0, or -1: no memory */
/* Set the bits of every insert still staged (a standard or partitioned
 * filter beyond the cache stages its inserts: stage.c).  Call it after
 * inserting and before querying, counting bits or removing; a query of a
 * filter with staged inserts is a bug and aborts. */
void filter_flush(filter *f);
/* filter_flush, then give the staging memory back: later inserts go straight. */
void filter_unstage(filter *f);
/* Before inserts of `positions` positions that end in a filter_flush (a
 * library batch call): when they are fewer than the filter has cache
 * lines, staging them costs more than it saves (stage.c), so the stage is
 * flushed and set aside (f->stage NULL: the loops set the bits at once)
 * and returned for filter_stage_restore after them; else NULL, nothing
 * changed.  The bits are the same either way. */
struct filter_stage *filter_stage_hold(filter *f, uint64_t positions);
void filter_stage_restore(filter *f, struct filter_stage *held);
void filter_clear(filter *f);
void filter_free(filter *f);
uint64_t filter_bits_set(const filter *f); /* bits set, or counters above zero */
/* F: the chance that an absent key with ideal positions (uniform and
 * independent: the ideal scheme's queries) answers "probably" in this
 * filter, from its bits: (X/m)^k (standard; counting with X the counters
 * above zero), prod of the slices' fills (partitioned), the mean over
 * blocks of (X_b/B)^k (blocked) or of the product of the eight words' fills
 * (split block, its words' bits taken as independent, as theory.c takes
 * them).  theory.c: ONE FILTER'S RATE. */
double filter_fpr_conditional(const filter *f);

typedef struct {
    void (*insert)(filter *f, const scheme_ctx *ctx, const key_batch *keys);
    /* answer[i] = 1 for "probably present" (answer may be NULL); returns the count of 1s */
    size_t (*query)(const filter *f, const scheme_ctx *ctx, const key_batch *keys,
                    unsigned char *answer);
    /* Clear (plain layouts) or decrement (counting) the key's positions. */
    void (*remove)(filter *f, const scheme_ctx *ctx, const key_batch *keys);
    /* The same as insert / query over count batches in order, software-
     * pipelined across them (batch b+1 hashed and prefetched before batch b
     * is probed): the fast path beyond the last-level cache.  query_many's
     * answers (NULL, or room for every key of the batches) come in the
     * batches' order, one after the other: key j of batch b at
     * answers[batches[0].count + ... + batches[b - 1].count + j]. */
    void (*insert_many)(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count);
    size_t (*query_many)(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                         unsigned char *answers);
} filter_ops;

/* The fastest loops this CPU runs for the pair: the AVX-512 ones of
 * avx512.h or the AVX2 ones of avx2.h where they exist and cpu_isa()
 * reaches their level, else the portable ones. */
filter_ops filter_ops_for(layout_kind layout, scheme_kind scheme);
/* The portable loops always (the tests hold both to the reference). */
filter_ops filter_ops_portable(layout_kind layout, scheme_kind scheme);
/* One line saying which loops filter_ops_for gives on this CPU. */
const char *filter_ops_description(void);

/* The hashes the split block and standard loops compute themselves on
 * 8-byte keys (batch_hash.h's keys8_hash_one, splitblock_portable.h,
 * standard_portable.h, avx2.h): xxh3_64, bloomlab's own, and mulx64,
 * Boost.Bloom's mix of an integer key. */
typedef enum { KEYS8_XXH3_64, KEYS8_MULX64 } keys8_hash;

/* One key's calls: insert and query take an 8-byte key's bytes and the
 * hash's constant at the filter's seed (`keyed`: batch_hash.h's
 * keys8_constant), the key second, where bloomlab_add's caller put it;
 * insert_hash and query_hash do the same work from a key's 64-bit hash,
 * for a key of any other length (the caller hashes it with the filter's
 * hasher, as the reference does).  A module has a table of them,
 * one per keys8_hash: each call has its hash built in, and an insert
 * returns 0, so that a library user's call is a few tests and a jump to it
 * (the fewer instructions a call, the more calls the core overlaps:
 * docs/PERFORMANCE.md). */
typedef struct {
    int (*insert)(filter *f, const unsigned char *key, uint64_t keyed); /* returns 0 */
    int (*query)(const filter *f, const unsigned char *key, uint64_t keyed);
    int (*insert_hash)(filter *f, uint64_t h); /* returns 0 */
    int (*query_hash)(const filter *f, uint64_t h);
} filter_key8_calls;

/* A filter's one-key calls, chosen once for the filter (filter_key8_for)
 * so that a library user's call goes straight to them: where the layout,
 * its size and the hash have one-key loops (the split block at the level
 * cpu_isa() reaches, and the standard layout, with double hashing and a
 * keys8 hash; their bits set at once, never staged), the module's calls
 * for `hash` and its constant `keyed`, computed here once, not once a
 * call; else the calls are NULL and the layout's ops serve.  The bits and
 * answers are the one-key reference's. */
typedef struct {
    filter_key8_calls calls;
    keys8_hash hash;
    uint64_t keyed;
} filter_key8;
filter_key8 filter_key8_for(const filter *f, const scheme_ctx *ctx, scheme_kind scheme);

/* The table `table` of a module's one-key calls, from its inline loops
 * INSERT(hash, f, keyed, key) and QUERY(hash, f, keyed, key) (an int, 1
 * when all the key's bits are set), each stamped with its hash, and its
 * functions INSERT_HASH(f, h) and QUERY_HASH(f, h) for every hash. */
#define FILTER_KEY8_CALLS(table, INSERT, QUERY, INSERT_HASH, QUERY_HASH)                                      \
    static int table##_insert_xxh3_64(filter *f, const unsigned char *key, uint64_t keyed)                    \
    {                                                                                                         \
        INSERT(KEYS8_XXH3_64, f, keyed, key);                                                                 \
        return 0;                                                                                             \
    }                                                                                                         \
    static int table##_insert_mulx64(filter *f, const unsigned char *key, uint64_t keyed)                     \
    {                                                                                                         \
        INSERT(KEYS8_MULX64, f, keyed, key);                                                                  \
        return 0;                                                                                             \
    }                                                                                                         \
    static int table##_query_xxh3_64(const filter *f, const unsigned char *key, uint64_t keyed)               \
    {                                                                                                         \
        return QUERY(KEYS8_XXH3_64, f, keyed, key);                                                           \
    }                                                                                                         \
    static int table##_query_mulx64(const filter *f, const unsigned char *key, uint64_t keyed)                \
    {                                                                                                         \
        return QUERY(KEYS8_MULX64, f, keyed, key);                                                            \
    }                                                                                                         \
    const filter_key8_calls table[2] = {                                                                      \
        [KEYS8_XXH3_64] = {table##_insert_xxh3_64, table##_query_xxh3_64, INSERT_HASH, QUERY_HASH},           \
        [KEYS8_MULX64] = {table##_insert_mulx64, table##_query_mulx64, INSERT_HASH, QUERY_HASH}};

/* One key at a time, no batching: the reference the batched loops are tested against. */
void filter_insert_one(filter *f, scheme_kind scheme, const scheme_ctx *ctx, const void *key,
                       size_t len, uint64_t id);
int filter_query_one(const filter *f, scheme_kind scheme, const scheme_ctx *ctx, const void *key,
                     size_t len, uint64_t id);

#endif
