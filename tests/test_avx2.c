/* test_avx2.c -- every loop of avx2.h called directly against the one-key
 * reference (filter_insert_one / filter_query_one), whatever level
 * filter_ops_for picks on this machine (an AVX-512 CPU runs the AVX2 loops
 * only here), and the split block's loops of avx512.h that hash 8-byte
 * keys beside their AVX2 twins where the CPU has AVX-512: the same bits,
 * the same counters and saturations, the same answers, over sizes, k, and
 * calls of every length class (tails of 1 to 7 keys past a group of four
 * or eight); the standard layout's three query loops (all k, the
 * prefilter for runs of absent keys, whose calls of present keys take its
 * vector rest and of absent keys its scalar one, and the phased one, whose
 * calls of present keys keep every key, of absent keys drop most after
 * the first phase, and of both in turn move the kept ones down).  A CPU
 * without AVX2, or BLOOMLAB_ISA=portable, returns early with an
 * information line. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "filter/avx2.h"
#include "filter/avx512.h"
#include "filter/fetch_tune.h"
#include "filter/filters.h"
#include "base/cache.h"
#include "base/hashes.h"
#include "harness/keys.h"
#include "filter/schemes.h"
#include "base/pcg.h"

static int skip(void)
{
    if (avx2_usable())
        return 0;
    char level[160];
    cr_log_info("AVX2 loops not run: vector level %s", cpu_isa_describe(level, sizeof level));
    return 1;
}

typedef struct {
    avx2_insert_fn *insert;
    avx2_query_fn *query;
    avx2_query_fn *query_absent; /* a second query loop (for runs of mostly absent keys), or NULL */
    avx2_query_fn *query_phased; /* a third (beyond L2), or NULL */
} avx2_loops;

static avx2_loops loops_of(layout_kind layout, scheme_kind scheme)
{
    if (scheme == SCHEME_MULTIPLY)
        return layout == LAYOUT_BLOCKED512
                   ? (avx2_loops){.insert = avx2_blocked512_multiply_insert, .query = avx2_blocked512_multiply_query}
                   : (avx2_loops){.insert = avx2_register64_multiply_insert, .query = avx2_register64_multiply_query};
    switch (layout) {
    case LAYOUT_STANDARD:
        return (avx2_loops){.insert = avx2_standard_insert,
                            .query = avx2_standard_query,
                            .query_absent = avx2_standard_query_prefilter,
                            .query_phased = avx2_standard_query_phased};
    case LAYOUT_COUNTING:
        return (avx2_loops){.insert = avx2_counting_insert, .query = avx2_counting_query};
    case LAYOUT_PARTITIONED:
        return (avx2_loops){.insert = avx2_partitioned_insert, .query = avx2_partitioned_query};
    case LAYOUT_BLOCKED512:
        return (avx2_loops){.insert = avx2_blocked512_insert, .query = avx2_blocked512_query};
    case LAYOUT_REGISTER64:
        return (avx2_loops){.insert = avx2_register64_insert, .query = avx2_register64_query};
    default:
        return (avx2_loops){.insert = avx2_splitblock_insert, .query = avx2_splitblock_query};
    }
}

/* Call lengths cycling through the classes: 1, a group's tail, a group,
 * two groups and a tail, a full run. */
static const size_t CALLS[] = {1, 3, 4, 5, 7, 8, 9, 17, 31, AVX2_MAX_KEYS, 200};
#define NCALLS (sizeof CALLS / sizeof CALLS[0])

typedef struct {
    hasher h;
    scheme_ctx ctx;
    keyset *ks;
} env;

static void env_open(env *e, const char *hash, uint64_t seed)
{
    char err[512];
    cr_assert_eq(hasher_resolve(hash, &e->h, err, sizeof err), 0, "%s", err);
    e->ks = keyset_open("random64", err, sizeof err);
    cr_assert_not_null(e->ks, "%s", err);
    e->ctx = (scheme_ctx){&e->h, seed, 0};
}

/* Key i of a side, its (h1, h2) as schemes.h's hash_split gives them. */
static void key_hashes(const env *e, uint64_t n, key_side side, uint64_t i, key_batch *b, uint64_t *h1, uint64_t *h2)
{
    keyset_fill(e->ks, e->ctx.seed, n, side, i, 1, b);
    hash_split(hasher_hash(&e->h, b->ptr[0], b->len[0], e->ctx.seed), e->h.bits, h1, h2);
}

/* A call's keys present and absent in turn: half of them pass the standard
 * prefilter's first positions (its vector rest), and of the absent ones
 * among those a few fail at the last position only. */
enum { MIXED = 2 };

/* One (layout, scheme, m, k, n): the loops against the reference. */
static void check_scheme_loops(layout_kind layout, scheme_kind scheme, uint64_t m, unsigned k, uint64_t n,
                               const char *hash)
{
    const avx2_loops loops = loops_of(layout, scheme);
    env e;
    env_open(&e, hash, 0xa2a2 + m + k);
    filter vec, one;
    m = layout_fit_m(layout, m);
    cr_assert_eq(filter_init(&vec, layout, m, k), 0);
    cr_assert_eq(filter_init(&one, layout, m, k), 0);
    static uint64_t h1[AVX2_MAX_KEYS], h2[AVX2_MAX_KEYS];
    key_batch b;
    size_t call = 0;
    for (uint64_t i = 0; i < n; call++) {
        size_t count = CALLS[call % NCALLS];
        if (count > n - i)
            count = (size_t)(n - i);
        for (size_t t = 0; t < count; t++) {
            key_hashes(&e, n, KEY_PRESENT, i + t, &b, &h1[t], &h2[t]);
            filter_insert_one(&one, scheme, &e.ctx, b.ptr[0], b.len[0], b.id[0]);
        }
        loops.insert(&vec, h1, h2, count);
        i += count;
    }
    cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s m=%llu k=%u n=%llu: bits differ",
                 layout_name(layout), (unsigned long long)m, k, (unsigned long long)n);
    cr_assert_eq(vec.saturations, one.saturations, "%s: saturations", layout_name(layout));
    unsigned char answer[AVX2_MAX_KEYS];
    for (int side = 0; side < 3; side++) { /* present, absent, then both in turn (MIXED) */
        const uint64_t total = side == KEY_PRESENT ? n : 2000;
        call = side;
        for (uint64_t i = 0; i < total; call++) {
            size_t count = CALLS[call % NCALLS];
            if (count > total - i)
                count = (size_t)(total - i);
            int ref[AVX2_MAX_KEYS];
            size_t ref_yes = 0;
            for (size_t t = 0; t < count; t++) {
                const key_side of = side == MIXED ? (key_side)((i + t) & 1) : (key_side)side;
                key_hashes(&e, n, of, of == KEY_PRESENT ? (i + t) % n : i + t, &b, &h1[t], &h2[t]);
                ref[t] = filter_query_one(&one, scheme, &e.ctx, b.ptr[0], b.len[0], b.id[0]);
                ref_yes += (size_t)ref[t];
            }
            avx2_query_fn *const queries[3] = {loops.query, loops.query_absent, loops.query_phased};
            for (int q = 0; q < 3 && queries[q] != NULL; q++) {
                memset(answer, 0xAA, sizeof answer);
                const size_t yes = queries[q](&vec, h1, h2, count, answer);
                for (size_t t = 0; t < count; t++)
                    cr_assert_eq(answer[t], ref[t], "%s m=%llu k=%u side %d key %llu loop %d: avx2 %d, one %d",
                                 layout_name(layout), (unsigned long long)m, k, side, (unsigned long long)(i + t), q,
                                 answer[t], ref[t]);
                if (count < AVX2_MAX_KEYS)
                    cr_assert_eq(answer[count], 0xAA, "nothing written past the last answer");
                cr_assert_eq(yes, ref_yes);
                cr_assert_eq(queries[q](&vec, h1, h2, count, NULL), yes, "the count without answers");
            }
            i += count;
        }
    }
    filter_free(&vec);
    filter_free(&one);
    keyset_close(e.ks);
}

static void check_loops(layout_kind layout, uint64_t m, unsigned k, uint64_t n, const char *hash)
{
    check_scheme_loops(layout, SCHEME_DOUBLE, m, k, n, hash);
}

Test(avx2, every_layout_against_reference, .timeout = 120)
{
    if (skip())
        return;
    static const uint64_t MS[] = {4099, 65536, 1000003};
    static const unsigned KS[] = {1, 2, 7, 8, 17, 64};
    static const char *const HASHES[] = {"xxh3_64", "xxh3_128", "fnv1a32"};
    for (int l = 0; l < LAYOUT_COUNT; l++)
        for (size_t mi = 0; mi < 3; mi++)
            for (size_t ki = 0; ki < 6; ki++) {
                const unsigned k = KS[ki];
                if ((layout_kind)l == LAYOUT_SPLITBLOCK && k != 8)
                    continue;
                if ((layout_kind)l == LAYOUT_PARTITIONED && MS[mi] < k)
                    continue;
                uint64_t n = (uint64_t)(0.69 * (double)MS[mi] / k) + 1; /* about half full */
                if (n > 3000)
                    n = 3000;
                check_loops((layout_kind)l, MS[mi], k, n, HASHES[(mi + ki) % 3]);
            }
}

/* The blocked layouts' default scheme, multiply: its loops against the
 * reference over sizes, k and hash widths (a 32-bit hash's g_0 is its
 * fmix32 value), and past 2^31 bits. */
Test(avx2, multiply_against_reference, .timeout = 120)
{
    if (skip())
        return;
    static const uint64_t MS[] = {4099, 65536, 1000003};
    static const unsigned KS[] = {1, 2, 7, 8, 17, 64};
    static const char *const HASHES[] = {"xxh3_64", "xxh3_128", "fnv1a32"};
    static const layout_kind LAYOUTS[] = {LAYOUT_BLOCKED512, LAYOUT_REGISTER64};
    for (size_t l = 0; l < 2; l++)
        for (size_t mi = 0; mi < 3; mi++)
            for (size_t ki = 0; ki < 6; ki++) {
                uint64_t n = (uint64_t)(0.69 * (double)MS[mi] / KS[ki]) + 1;
                check_scheme_loops(LAYOUTS[l], SCHEME_MULTIPLY, MS[mi], KS[ki], n > 3000 ? 3000 : n, HASHES[(mi + ki) % 3]);
            }
    check_scheme_loops(LAYOUT_REGISTER64, SCHEME_MULTIPLY, (1ULL << 31) + 64 * 777, 7, 4000, "xxh3_64");
    check_scheme_loops(LAYOUT_BLOCKED512, SCHEME_MULTIPLY, (1ULL << 31) + 512 * 99, 7, 4000, "xxh3_64");
}

/* Counters driven far past 15: the same increments lost as the reference. */
Test(avx2, counting_saturates_alike)
{
    if (skip())
        return;
    check_loops(LAYOUT_COUNTING, 1000, 8, 3000, "xxh3_64");
    check_loops(LAYOUT_COUNTING, 4099, 3, 12000, "xxh3_64");
}

/* The standard prefilter's groups of eight that all pass its first positions
 * (a run of present keys, or as here of absent keys whose first three
 * positions were set on purpose): the rest of their k tested at once, the
 * answers as schemes.h's positions say, a key failing at its last position
 * included. */
Test(avx2, prefilter_groups_that_pass)
{
    if (skip())
        return;
    const uint64_t m = 65536;
    const unsigned k = 7;
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, m, k), 0);
    static uint64_t h1[AVX2_MAX_KEYS], h2[AVX2_MAX_KEYS];
    for (uint64_t i = 0; i < 6000; i += AVX2_MAX_KEYS) { /* about half full */
        for (size_t t = 0; t < AVX2_MAX_KEYS; t++) {
            h1[t] = mix64(1 + i + t);
            h2[t] = mix64(h1[t]);
        }
        avx2_standard_insert(&f, h1, h2, AVX2_MAX_KEYS);
    }
    for (size_t t = 0; t < AVX2_MAX_KEYS; t++) { /* absent keys, their first three positions set */
        h1[t] = mix64(0xabc000 + t);
        h2[t] = mix64(h1[t]);
        for (uint64_t i = 0, u = h1[t]; i < 3; i++, u += h2[t]) {
            const uint64_t q = reduce_range(u, m);
            f.words[q >> 6] |= 1ULL << (q & 63);
        }
    }
    unsigned char answer[AVX2_MAX_KEYS], all_k[AVX2_MAX_KEYS];
    size_t expected = 0, last_only = 0;
    for (size_t t = 0; t < AVX2_MAX_KEYS; t++) {
        uint64_t u = h1[t], found = 1, misses = 0, last = 0;
        for (unsigned i = 0; i < k; i++, u += h2[t]) {
            const uint64_t q = reduce_range(u, m), bit = (f.words[q >> 6] >> (q & 63)) & 1;
            found &= bit;
            misses += !bit;
            last = !bit && i == k - 1;
        }
        expected += found;
        last_only += misses == 1 && last;
        all_k[t] = (unsigned char)found;
    }
    cr_assert_gt(last_only, 0, "some key fails at its last position alone (%zu found)", expected);
    const size_t yes = avx2_standard_query_prefilter(&f, h1, h2, AVX2_MAX_KEYS, answer);
    cr_assert_eq(yes, expected);
    cr_assert_eq(memcmp(answer, all_k, sizeof answer), 0, "the prefilter's answers against the positions'");
    cr_assert_eq(avx2_standard_query(&f, h1, h2, AVX2_MAX_KEYS, NULL), expected);
    filter_free(&f);
}

/* Filters of 2^31 bits and more (the split block filter's and register64's
 * block choice, blocked512's positions near 2^32): sparse, a few thousand
 * keys into 256 MiB. */
Test(avx2, large_filters, .timeout = 120)
{
    if (skip())
        return;
    check_loops(LAYOUT_SPLITBLOCK, (1ULL << 31) + 256 * 12345, 8, 4000, "xxh3_64");
    check_loops(LAYOUT_REGISTER64, (1ULL << 31) + 64 * 777, 7, 4000, "xxh3_64");
    check_loops(LAYOUT_BLOCKED512, (1ULL << 31) + 512 * 99, 7, 4000, "xxh3_64");
    check_loops(LAYOUT_STANDARD, (1ULL << 31) + 12345, 7, 4000, "xxh3_128");
}

/* Every third batch's keys moved out of its `packed` slots (as a library
 * user's batch points at the user's keys): the loops' other way of
 * loading them; and of the others, every third left packed but not marked
 * packed8 (key_batch.h): the loops find it out from the pointers. */
static unsigned char moved[9][KEY_BATCH][8];
static void maybe_move(key_batch *b, size_t index)
{
    if (index % 3 == 0)
        return;
    b->packed8 = 0;
    if (index % 3 == 2)
        return;
    for (size_t j = 0; j < b->count; j++) {
        memcpy(moved[index % 9][j], b->ptr[j], 8);
        b->ptr[j] = moved[index % 9][j];
    }
}

/* The hashes the split block loops compute in their loop, each stamping
 * against the reference hashing the keys with the registry's hash. */
static const struct {
    const char *name;
    keys8_hash hash;
} KEYS8_HASHES[] = {{"xxh3_64", KEYS8_XXH3_64}, {"mulx64", KEYS8_MULX64}};
#define NKEYS8 (sizeof KEYS8_HASHES / sizeof KEYS8_HASHES[0])

/* The split block loops that hash 8-byte keys in their loop, at each
 * vector level that has them: avx2.c's, four keys a step, and avx512.c's,
 * eight a step (hashed in 512-bit registers), each run where this CPU
 * runs it (an information line where it does not); each under each fetch
 * plan (filters.h's filter_fetch_plan, whatever this core's: the shape it
 * gives for the filter's size) and under each fetch shape forced, whatever
 * the size (fetch_tune.h; the AVX-512 loop, which has no SHAPE_AT_HASH,
 * runs SHAPE_NONE for it).  The tuning that picks a shape is
 * check_keys8_tuned's. */
typedef struct {
    const char *name;
    int (*usable)(void);
    void (*insert)(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count);
    size_t (*query)(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count,
                    unsigned char *answer);
    tune_loop loop; /* its tuning's slot (fetch_tune.h) */
} split_level;

static const split_level SPLIT_LEVELS[] = {
    {"avx2", avx2_usable, avx2_splitblock_insert_keys8, avx2_splitblock_query_keys8, TUNE_LOOP_AVX2},
    {"avx512", avx512_usable, avx512_splitblock_insert_keys8, avx512_splitblock_query_keys8, TUNE_LOOP_AVX512},
};
#define NSPLIT_LEVELS (sizeof SPLIT_LEVELS / sizeof SPLIT_LEVELS[0])

/* 1 when level v's loops run on this CPU, else an information line. */
static int split_level_runs(size_t v)
{
    if (SPLIT_LEVELS[v].usable())
        return 1;
    char level[160];
    cr_log_info("%s split block loops not run: vector level %s", SPLIT_LEVELS[v].name,
                cpu_isa_describe(level, sizeof level));
    return 0;
}

/* The ways a loop is made to fetch: a plan, or a shape (-1: none forced). */
static const struct {
    fetch_plan plan;
    int shape;
} FETCH_MODES[] = {
    {FETCH_AHEAD, -1},
    {FETCH_WINDOW, -1},
    {FETCH_PLAN_CPU, SHAPE_NONE},
    {FETCH_PLAN_CPU, SHAPE_AT_HASH},
    {FETCH_PLAN_CPU, SHAPE_FROM_RING},
    {FETCH_PLAN_CPU, SHAPE_FAR_ONE_STEP},
    {FETCH_PLAN_CPU, SHAPE_FAR_TWO_STEPS},
    {FETCH_PLAN_CPU, SHAPE_FAR_L2},
    {FETCH_PLAN_CPU, SHAPE_LATE_L2},
};

/* check at every level this CPU runs, under each fetch mode (its name in
 * the messages saying which). */
static void at_each_split_level(void (*check)(const split_level *v))
{
    for (size_t v = 0; v < NSPLIT_LEVELS; v++) {
        if (!split_level_runs(v))
            continue;
        for (size_t p = 0; p < sizeof FETCH_MODES / sizeof FETCH_MODES[0]; p++) {
            char name[64];
            if (FETCH_MODES[p].shape >= 0)
                snprintf(name, sizeof name, "%s, shape %s", SPLIT_LEVELS[v].name,
                         fetch_shape_name((fetch_shape)FETCH_MODES[p].shape));
            else
                snprintf(name, sizeof name, "%s, fetched %s", SPLIT_LEVELS[v].name,
                         fetch_plan_name(FETCH_MODES[p].plan));
            split_level at = SPLIT_LEVELS[v];
            at.name = name;
            filter_fetch_plan_set(FETCH_MODES[p].plan);
            fetch_tune_force(FETCH_MODES[p].shape);
            check(&at);
        }
    }
    filter_fetch_plan_set(FETCH_PLAN_CPU);
    fetch_tune_force(-1);
}

/* The split block loops that hash 8-byte keys in their loop (each level,
 * each hash), over runs of 1 to 9 batches, shorter and longer than the
 * keys in flight between hashing and setting (avx2.c's SPLIT_RING groups,
 * avx512.c's SB_RING and SB_FAR_RING steps): batches of
 * uneven sizes (full groups of four keys and tails) with packed keys and
 * moved ones, and full batches of packed keys (the loop that keeps no
 * per-group counts), against the reference. */
static void check_keys8_against_reference(const split_level *v)
{
    /* in L2 (crowded: every answer yes), in L2 (40 blocks: about half the
     * absent keys answer yes, so answers out of place show), in L2, past L2
     * in the last-level cache (8 MB), past it (256 MB): each prefetch, and
     * past the cache the full batches' ring of 4 batches (avx2.c,
     * split_ring_full), the cache put at 64 MB whatever this machine's */
    static const uint64_t MS[] = {256 * 7, 256 * 40, 256 * 4099, 256 * 250007, (1ULL << 31) + 256 * 3};
    filter_stage_min_bytes_set(64u << 20);
    enum { NB = 9 };
    key_batch *batches = malloc(NB * sizeof *batches);
    cr_assert_not_null(batches);
    for (size_t c = 0; c < 2 * NKEYS8 * (sizeof MS / sizeof MS[0]); c++) {
        const size_t mi = c % (sizeof MS / sizeof MS[0]);
        const int full = c >= NKEYS8 * (sizeof MS / sizeof MS[0]); /* full batches of packed keys */
        const size_t hi = c / (sizeof MS / sizeof MS[0]) % NKEYS8;
        const keys8_hash hash = KEYS8_HASHES[hi].hash;
        env e;
        env_open(&e, KEYS8_HASHES[hi].name, 0x5b5b + mi);
        filter vec, one;
        cr_assert_eq(filter_init(&vec, LAYOUT_SPLITBLOCK, MS[mi], 8), 0);
        cr_assert_eq(filter_init(&one, LAYOUT_SPLITBLOCK, MS[mi], 8), 0);
        const uint64_t n = 3000;
        size_t run = 0;
        for (uint64_t i = 0; i < n; run++) {
            size_t nb = 0;
            for (; nb < 1 + run % NB && i < n; nb++) {
                size_t count = full ? KEY_BATCH : 1 + (size_t)((i * 13) % KEY_BATCH);
                if (count > n - i)
                    count = (size_t)(n - i);
                keyset_fill(e.ks, e.ctx.seed, n, KEY_PRESENT, i, count, &batches[nb]);
                if (!full)
                    maybe_move(&batches[nb], nb + run);
                for (size_t j = 0; j < count; j++)
                    filter_insert_one(&one, SCHEME_DOUBLE, &e.ctx, batches[nb].ptr[j], batches[nb].len[j],
                                      batches[nb].id[j]);
                i += count;
            }
            v->insert(&vec, hash, e.ctx.seed, batches, nb);
        }
        cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s %s m=%llu full %d: bits differ", v->name, e.h.name,
                     (unsigned long long)MS[mi], full);
        for (int side = 0; side < 2; side++) {
            run = 0;
            for (uint64_t i = 0; i < n; run++) {
                unsigned char answer[NB * KEY_BATCH + 1];
                int ref[NB * KEY_BATCH];
                size_t nb = 0, keys = 0, ref_yes = 0;
                for (; nb < 1 + run % NB && i < n; nb++) {
                    size_t count = full ? KEY_BATCH : 1 + (size_t)((i * 5) % KEY_BATCH);
                    if (count > n - i)
                        count = (size_t)(n - i);
                    keyset_fill(e.ks, e.ctx.seed, n, (key_side)side, i, count, &batches[nb]);
                    if (!full)
                        maybe_move(&batches[nb], nb + run + (size_t)side);
                    for (size_t j = 0; j < count; j++, keys++) {
                        ref[keys] = filter_query_one(&one, SCHEME_DOUBLE, &e.ctx, batches[nb].ptr[j],
                                                     batches[nb].len[j], batches[nb].id[j]);
                        ref_yes += (size_t)ref[keys];
                    }
                    i += count;
                }
                memset(answer, 0xAA, sizeof answer);
                const size_t yes = v->query(&vec, hash, e.ctx.seed, batches, nb, answer);
                for (size_t t = 0; t < keys; t++)
                    cr_assert_eq(answer[t], ref[t], "%s %s m=%llu side %d key %zu", v->name, e.h.name, (unsigned long long)MS[mi],
                                 side, t);
                cr_assert_eq(answer[keys], 0xAA, "nothing written past the last answer");
                cr_assert_eq(yes, ref_yes);
                cr_assert_eq(v->query(&vec, hash, e.ctx.seed, batches, nb, NULL), yes);
            }
        }
        filter_free(&vec);
        filter_free(&one);
        keyset_close(e.ks);
    }
    free(batches);
    filter_stage_min_bytes_set(0); /* ask the cache again */
}

Test(avx2, splitblock_keys8_against_reference)
{
    if (skip())
        return;
    at_each_split_level(check_keys8_against_reference);
}

/* A full batch whose key j alone points away from its `packed` slot, at
 * other bytes (a library user's key): the loops must hash the key it
 * points at.  Were one lane's pointer missed when a full batch is checked
 * at once, the loops would hash the slot's old key, and the bits and the
 * answers would differ from the reference's. */
static void check_keys8_one_key_moved(const split_level *v)
{
    enum { NB = 3 };
    key_batch *batches = malloc(NB * sizeof *batches);
    cr_assert_not_null(batches);
    static unsigned char other[8];
    for (size_t h = 0; h < NKEYS8; h++)
        for (size_t j = 0; j < KEY_BATCH; j++) {
            env e;
            env_open(&e, KEYS8_HASHES[h].name, 0x30b + j);
            filter vec, one;
            cr_assert_eq(filter_init(&vec, LAYOUT_SPLITBLOCK, 256 * 4099, 8), 0);
            cr_assert_eq(filter_init(&one, LAYOUT_SPLITBLOCK, 256 * 4099, 8), 0);
            for (size_t b = 0; b < NB; b++)
                keyset_fill(e.ks, e.ctx.seed, NB * KEY_BATCH, KEY_PRESENT, b * KEY_BATCH, KEY_BATCH, &batches[b]);
            for (size_t c = 0; c < 8; c++)
                other[c] = (unsigned char)(batches[1].packed[j][c] ^ 0x5a);
            batches[1].ptr[j] = other;
            batches[1].packed8 = 0;
            for (size_t b = 0; b < NB; b++)
                for (size_t t = 0; t < KEY_BATCH; t++)
                    filter_insert_one(&one, SCHEME_DOUBLE, &e.ctx, batches[b].ptr[t], 8, batches[b].id[t]);
            v->insert(&vec, KEYS8_HASHES[h].hash, e.ctx.seed, batches, NB);
            cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s %s key %zu moved: bits differ",
                         v->name, e.h.name, j);
            /* asked of an empty filter, the moved key alone is found where its bits are set */
            filter_clear(&vec);
            filter_insert_one(&vec, SCHEME_DOUBLE, &e.ctx, other, 8, 0);
            unsigned char answer[NB * KEY_BATCH];
            const size_t yes = v->query(&vec, KEYS8_HASHES[h].hash, e.ctx.seed, batches, NB, answer);
            cr_assert_geq(yes, 1);
            cr_assert_eq(answer[KEY_BATCH + j], 1, "%s %s key %zu moved: not found", v->name, e.h.name, j);
            filter_free(&vec);
            filter_free(&one);
            keyset_close(e.ks);
        }
    free(batches);
}

Test(avx2, splitblock_keys8_one_key_moved)
{
    if (skip())
        return;
    at_each_split_level(check_keys8_one_key_moved);
}

/* mulx64's 64 x 64-bit product built from four 32 x 32-bit ones (avx2.c's
 * mulx64_x4), where its carries are largest: a = x ^ salt with each
 * 32-bit half 0, 1, 2^31 - 1, 2^31, 2^32 - 2 or 2^32 - 1 (36 pairs, the
 * rest of two full batches of packed keys from a counter), set in an empty
 * filter and asked, against the reference's scalar 128-bit product. */
static void check_mulx64_carries(const split_level *v)
{
    static const uint32_t HALVES[] = {0, 1, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    enum { NH = sizeof HALVES / sizeof HALVES[0], NB = 2 };
    key_batch *batches = malloc(NB * sizeof *batches);
    cr_assert_not_null(batches);
    env e;
    env_open(&e, "mulx64", 0x6d75);
    const uint64_t salt = mulx64_salt(e.ctx.seed);
    for (size_t t = 0; t < NB * KEY_BATCH; t++) {
        key_batch *b = &batches[t / KEY_BATCH];
        const size_t j = t % KEY_BATCH;
        const uint64_t a = t < NH * NH ? (uint64_t)HALVES[t / NH] << 32 | HALVES[t % NH] : 0x9E3779B97F4A7C15ULL * t;
        const uint64_t x = a ^ salt;
        for (unsigned c = 0; c < 8; c++)
            b->packed[j][c] = (unsigned char)(x >> (8 * c));
        b->ptr[j] = b->packed[j];
        b->len[j] = 8;
        b->id[j] = t;
        b->count = j + 1;
        b->packed8 = (int)(t / KEY_BATCH); /* the first batch found packed from its pointers, the second marked */
    }
    filter vec, one;
    cr_assert_eq(filter_init(&vec, LAYOUT_SPLITBLOCK, 256 * 4099, 8), 0);
    cr_assert_eq(filter_init(&one, LAYOUT_SPLITBLOCK, 256 * 4099, 8), 0);
    v->insert(&vec, KEYS8_MULX64, e.ctx.seed, batches, NB);
    for (size_t t = 0; t < NB * KEY_BATCH; t++)
        filter_insert_one(&one, SCHEME_DOUBLE, &e.ctx, batches[t / KEY_BATCH].ptr[t % KEY_BATCH], 8, t);
    cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s: bits differ", v->name);
    filter_clear(&vec);
    for (size_t t = 0; t < NB * KEY_BATCH; t++) { /* one key set alone, then all asked: that key among them */
        filter_insert_one(&vec, SCHEME_DOUBLE, &e.ctx, batches[t / KEY_BATCH].ptr[t % KEY_BATCH], 8, t);
        unsigned char answer[NB * KEY_BATCH];
        v->query(&vec, KEYS8_MULX64, e.ctx.seed, batches, NB, answer);
        cr_assert_eq(answer[t], 1, "%s: key %zu not found", v->name, t);
        filter_clear(&vec);
    }
    filter_free(&vec);
    filter_free(&one);
    keyset_close(e.ks);
    free(batches);
}

Test(avx2, splitblock_mulx64_carries)
{
    if (skip())
        return;
    at_each_split_level(check_mulx64_carries);
}

/* The tuning (fetch_tune.c), nothing forced, at each level this CPU runs:
 * a filter past L2 filled and asked in calls of 512 keys, more calls than
 * its warming and FETCH_TUNE_ROUNDS rounds of any loop's candidates take
 * (and its queries fewer than its settling), so that each
 * candidate shape runs (the rounds take them in turn) and then the one
 * chosen; the bits and the answers against the reference, and a shape
 * chosen for the inserts and for the queries (none before). */
static void check_keys8_tuned(const split_level *v)
{
    enum { CALL_BATCHES = FETCH_TUNE_MIN_KEYS / KEY_BATCH, CALL_KEYS = CALL_BATCHES * KEY_BATCH };
    unsetenv("BLOOMLAB_FETCH_SHAPE"); /* nothing forced (read once, at the first call) */
    _Static_assert(CALL_KEYS >= FETCH_TUNE_MIN_KEYS, "each call long enough to be timed");
    const uint64_t l2 = cache_l2_bytes(), m = 256 * ((l2 > (1u << 20) ? l2 : 1u << 20) / 32 + 7); /* past L2 */
    /* the calls that warm the filter (fetch_tune.c), then the rounds and some; all three passes short of its
     * settling, which would tune the queries again */
    const uint64_t calls =
        FETCH_TUNE_WARM_LINES * (m / 512) / CALL_KEYS + FETCH_TUNE_ROUNDS * FETCH_TUNE_CHOICES_MAX + 10;
    const uint64_t n = calls * CALL_KEYS;
    cr_assert_lt(3 * n, FETCH_TUNE_SETTLED_LINES * (m / 512), "the three passes short of settling");
    key_batch *batches = malloc(CALL_BATCHES * sizeof *batches);
    unsigned char *answer = malloc(CALL_BATCHES * KEY_BATCH);
    cr_assert(batches != NULL && answer != NULL);
    env e;
    env_open(&e, "mulx64", 0x7e7e);
    filter vec, one;
    cr_assert_eq(filter_init(&vec, LAYOUT_SPLITBLOCK, m, 8), 0);
    cr_assert_eq(filter_init(&one, LAYOUT_SPLITBLOCK, m, 8), 0);
    cr_assert(filter_beyond_l2(&vec));
    cr_assert_eq(fetch_tune_chosen(&vec, v->loop, TUNE_INSERT), -1, "%s: nothing chosen before a call", v->name);
    for (uint64_t i = 0; i < n; i += CALL_KEYS) {
        for (size_t b = 0; b < CALL_BATCHES; b++) {
            keyset_fill(e.ks, e.ctx.seed, n, KEY_PRESENT, i + b * KEY_BATCH, KEY_BATCH, &batches[b]);
            for (size_t j = 0; j < KEY_BATCH; j++)
                filter_insert_one(&one, SCHEME_DOUBLE, &e.ctx, batches[b].ptr[j], 8, batches[b].id[j]);
        }
        v->insert(&vec, KEYS8_MULX64, e.ctx.seed, batches, CALL_BATCHES);
    }
    cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s: bits differ", v->name);
    cr_assert_geq(fetch_tune_chosen(&vec, v->loop, TUNE_INSERT), 0, "%s: no shape chosen for the inserts", v->name);
    cr_assert_eq(fetch_tune_chosen(&vec, v->loop, TUNE_QUERY), -1, "%s: the queries tuned apart", v->name);
    for (int side = 0; side < 2; side++)
        for (uint64_t i = 0; i < n; i += CALL_KEYS) {
            size_t ref_yes = 0;
            for (size_t b = 0; b < CALL_BATCHES; b++)
                keyset_fill(e.ks, e.ctx.seed, n, (key_side)side, i + b * KEY_BATCH, KEY_BATCH, &batches[b]);
            const size_t yes = v->query(&vec, KEYS8_MULX64, e.ctx.seed, batches, CALL_BATCHES, answer);
            for (size_t t = 0; t < CALL_BATCHES * KEY_BATCH; t++) {
                const key_batch *b = &batches[t / KEY_BATCH];
                const int ref = filter_query_one(&one, SCHEME_DOUBLE, &e.ctx, b->ptr[t % KEY_BATCH], 8,
                                                 b->id[t % KEY_BATCH]);
                ref_yes += (size_t)ref;
                cr_assert_eq(answer[t], ref, "%s side %d key %llu", v->name, side, (unsigned long long)(i + t));
            }
            cr_assert_eq(yes, ref_yes);
        }
    cr_assert_geq(fetch_tune_chosen(&vec, v->loop, TUNE_QUERY), 0, "%s: no shape chosen for the queries", v->name);
    filter_free(&vec);
    filter_free(&one);
    keyset_close(e.ks);
    free(batches);
    free(answer);
}

Test(avx2, splitblock_keys8_tuned)
{
    if (skip())
        return;
    for (size_t v = 0; v < NSPLIT_LEVELS; v++)
        if (split_level_runs(v))
            check_keys8_tuned(&SPLIT_LEVELS[v]);
}

/* avx2_keys8_split's (h1, h2) against the registry's scalar hash split as
 * schemes.h does, for both hashes: batches of every length up to a full
 * one (a group of four and its tails), their keys packed (marked, or found
 * from the pointers) or scattered out of order; keys whose 64-bit halves
 * carry through every 32-bit product (mulx64's vpmuludq sums, mix64's);
 * nothing written past the count, and a batch with a key of another length
 * refused with nothing written. */
Test(avx2, keys8_split_equals_scalar)
{
    if (skip())
        return;
    static const uint32_t HALVES[] = {0, 1, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (size_t hi = 0; hi < NKEYS8; hi++) {
        hasher ref;
        cr_assert_eq(hasher_builtin(KEYS8_HASHES[hi].name, &ref), 0);
        for (size_t count = 1; count <= KEY_BATCH; count++)
            for (int way = 0; way < 3; way++) { /* packed8, packed found from ptr, scattered */
                key_batch b;
                b.count = count;
                b.packed8 = way == 0;
                for (size_t j = 0; j < count; j++) {
                    const size_t t = count * 7 + j;
                    const uint64_t x =
                        j < 36 ? (uint64_t)HALVES[j / 6] << 32 | HALVES[j % 6] : 0x9E3779B97F4A7C15ULL * t;
                    unsigned char *slot = way == 2 ? b.store[(j * 5 + 3) % KEY_BATCH] : b.packed[j];
                    for (unsigned c = 0; c < 8; c++)
                        slot[c] = (unsigned char)(x >> (8 * c));
                    b.ptr[j] = slot;
                    b.len[j] = 8;
                    b.id[j] = t;
                }
                uint64_t h1[KEY_BATCH + 4], h2[KEY_BATCH + 4];
                memset(h1, 0xAB, sizeof h1);
                memset(h2, 0xAB, sizeof h2);
                cr_assert_eq(avx2_keys8_split(KEYS8_HASHES[hi].hash, 0x5eed, &b, h1, h2), 0);
                for (size_t j = 0; j < count; j++) {
                    uint64_t r1, r2;
                    hash_split(hasher_hash(&ref, b.ptr[j], 8, 0x5eed), 64, &r1, &r2);
                    cr_assert_eq(h1[j], r1, "%s count %zu way %d key %zu: h1", KEYS8_HASHES[hi].name, count, way, j);
                    cr_assert_eq(h2[j], r2, "%s count %zu way %d key %zu: h2", KEYS8_HASHES[hi].name, count, way, j);
                }
                for (size_t j = count; j < KEY_BATCH + 4; j++)
                    cr_assert(h1[j] == 0xABABABABABABABABULL && h2[j] == 0xABABABABABABABABULL,
                              "nothing written past key %zu", count);
                if (count < 5)
                    continue;
                b.len[count - 1] = 7;
                b.packed8 = 0;
                memset(h1, 0xAB, sizeof h1);
                cr_assert_eq(avx2_keys8_split(KEYS8_HASHES[hi].hash, 0x5eed, &b, h1, h2), -1, "a 7-byte key refused");
                cr_assert_eq(h1[0], 0xABABABABABABABABULL, "nothing written");
            }
    }
}

/* The one-key calls (a library user's key, a batch of one): each key set
 * alone, then every present and absent key asked alone, against the
 * reference's bits and answers, each hash. */
Test(avx2, splitblock_key8_against_reference)
{
    if (skip())
        return;
    enum { N = 3000 };
    for (size_t h = 0; h < NKEYS8; h++) {
        env e;
        env_open(&e, KEYS8_HASHES[h].name, 0x1e7 + h);
        filter vec, one;
        cr_assert_eq(filter_init(&vec, LAYOUT_SPLITBLOCK, 256 * 4099, 8), 0);
        cr_assert_eq(filter_init(&one, LAYOUT_SPLITBLOCK, 256 * 4099, 8), 0);
        key_batch b;
        for (uint64_t i = 0; i < N; i++) {
            keyset_fill(e.ks, e.ctx.seed, N, KEY_PRESENT, i, 1, &b);
            avx2_splitblock_key8[KEYS8_HASHES[h].hash].insert(&vec, b.ptr[0],
                                                              keys8_constant(KEYS8_HASHES[h].hash, e.ctx.seed));
            filter_insert_one(&one, SCHEME_DOUBLE, &e.ctx, b.ptr[0], 8, b.id[0]);
        }
        cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s: bits differ", e.h.name);
        uint64_t absent_yes = 0;
        for (int side = 0; side < 2; side++)
            for (uint64_t i = 0; i < N; i++) {
                keyset_fill(e.ks, e.ctx.seed, N, (key_side)side, i, 1, &b);
                const int yes = avx2_splitblock_key8[KEYS8_HASHES[h].hash].query(
                    &vec, b.ptr[0], keys8_constant(KEYS8_HASHES[h].hash, e.ctx.seed));
                cr_assert_eq(yes, filter_query_one(&one, SCHEME_DOUBLE, &e.ctx, b.ptr[0], 8, b.id[0]),
                             "%s side %d key %llu", e.h.name, side, (unsigned long long)i);
                absent_yes += side == KEY_ABSENT ? (uint64_t)yes : 0;
            }
        cr_assert_lt(absent_yes, N / 2, "%s: not every absent key answered present", e.h.name);
        filter_free(&vec);
        filter_free(&one);
        keyset_close(e.ks);
    }
}

/* avx2_batches_keys8: 1 for batches of 8-byte keys whatever their
 * lengths' slots past the count hold, 0 when any key of any batch is not
 * 8 bytes (at each place in a batch). */
Test(avx2, batches_keys8)
{
    if (skip())
        return;
    enum { NB = 3 };
    key_batch *b = malloc(NB * sizeof *b);
    cr_assert_not_null(b);
    for (size_t count = 0; count <= KEY_BATCH; count++) {
        for (size_t t = 0; t < NB; t++) {
            b[t].count = t == 1 ? count : KEY_BATCH;
            b[t].packed8 = 0;
            for (size_t j = 0; j < KEY_BATCH; j++)
                b[t].len[j] = j < b[t].count ? 8 : (uint32_t)(j + 1);
        }
        cr_assert_eq(avx2_batches_keys8(b, NB), 1, "count %zu", count);
        cr_assert_eq(avx2_batches_keys8(b, 0), 1);
        for (size_t j = 0; j < count; j++) {
            b[1].len[j] = j % 2 ? 7 : 16;
            cr_assert_eq(avx2_batches_keys8(b, NB), 0, "count %zu, key %zu", count, j);
            b[1].len[j] = 8;
        }
    }
    free(b);
}

/* One batch of each size from 1 to KEY_BATCH keys (fewer than four take
 * the loops' scalar pass), packed and moved, against the reference. */
static void check_keys8_one_batch(const split_level *v, const char *name, keys8_hash hash)
{
    key_batch *b = malloc(sizeof *b);
    cr_assert_not_null(b);
    env e;
    env_open(&e, name, 0x1b1b);
    filter vec, one;
    cr_assert_eq(filter_init(&vec, LAYOUT_SPLITBLOCK, 256 * 1001, 8), 0);
    cr_assert_eq(filter_init(&one, LAYOUT_SPLITBLOCK, 256 * 1001, 8), 0);
    uint64_t first = 0;
    for (size_t count = 1; count <= KEY_BATCH; count++, first += count) {
        keyset_fill(e.ks, e.ctx.seed, 1000, KEY_PRESENT, first, count, b);
        maybe_move(b, count);
        for (size_t j = 0; j < count; j++)
            filter_insert_one(&one, SCHEME_DOUBLE, &e.ctx, b->ptr[j], 8, b->id[j]);
        v->insert(&vec, hash, e.ctx.seed, b, 1);
        cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s %s, %zu keys: bits differ", v->name, name, count);
        for (int side = 0; side < 2; side++) {
            keyset_fill(e.ks, e.ctx.seed, 1000, (key_side)side, side ? first : 0, count, b);
            maybe_move(b, count + (size_t)side);
            unsigned char answer[KEY_BATCH + 1];
            memset(answer, 0xAA, sizeof answer);
            size_t ref_yes = 0;
            const size_t yes = v->query(&vec, hash, e.ctx.seed, b, 1, answer);
            for (size_t j = 0; j < count; j++) {
                const int ref = filter_query_one(&one, SCHEME_DOUBLE, &e.ctx, b->ptr[j], 8, b->id[j]);
                cr_assert_eq(answer[j], ref, "%s %s, %zu keys, side %d, key %zu", v->name, name, count, side, j);
                ref_yes += (size_t)ref;
            }
            cr_assert_eq(answer[count], 0xAA, "nothing written past the last answer");
            cr_assert_eq(yes, ref_yes);
        }
    }
    filter_free(&vec);
    filter_free(&one);
    keyset_close(e.ks);
    free(b);
}

Test(avx2, splitblock_keys8_one_batch)
{
    if (skip())
        return;
    for (size_t v = 0; v < NSPLIT_LEVELS; v++)
        for (size_t i = 0; split_level_runs(v) && i < NKEYS8; i++)
            check_keys8_one_batch(&SPLIT_LEVELS[v], KEYS8_HASHES[i].name, KEYS8_HASHES[i].hash);
}
