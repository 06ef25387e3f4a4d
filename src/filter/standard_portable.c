/* standard_portable.c -- the loop of standard_portable.h: plain C11,
 * compiled with the build's flags alone (no -m option), so that it runs on
 * any CPU the rest of the build runs on.
 */
#include "filter/standard_portable.h"
#include "filter/batch_hash.h"
#include "filter/schemes.h"

#define LOOP static inline __attribute__((always_inline))

/* Bit q of the filter set (standard_bit_at tests it). */
LOOP void bit_set(uint64_t *words, uint64_t q) { words[q >> 6] |= 1ULL << (q & 63); }

/* A key's stream of positions from its 64-bit hash h, split as schemes.h's
 * hash_split does. */
LOOP probe hash_probe(uint64_t h)
{
    probe p = {0}; /* whole: the loops pass it by value, and the double scheme sets x and y alone */
    probe_start_hashed(SCHEME_DOUBLE, &p, (hash128_t){h, 0}, 64);
    return p;
}

/* An 8-byte key's: the hash xxh3_64 or mulx64, keyed = keys8_constant(hash, seed). */
LOOP probe key8_probe(keys8_hash hash, uint64_t keyed, const unsigned char *key)
{
    return hash_probe(keys8_hash_one(hash, key, keyed));
}

/* One key's k bits set from its stream p, at once.  Where k is a
 * constant (filters.h's FILTER_STAMPED_K) its k positions are written out:
 * each key's work is then straight-line code, its k lines' misses in flight
 * together with the next keys'. */
LOOP void set_bits(uint64_t *words, uint64_t m, unsigned k, probe p)
{
#pragma GCC unroll 16 /* FILTER_K_STAMPED; clang reads the same pragma */
    for (unsigned i = 0; i < k; i++) /* ctx is read by the other schemes only: SCHEME_DOUBLE folds it away */
        bit_set(words, probe_position(SCHEME_DOUBLE, NULL, &p, m));
}

/* How a run's keys are hashed: 8-byte keys by a keys8 hash inline (ctx
 * NULL; keyed = keys8_constant(hash, seed)), or any key as the reference
 * starts its stream (schemes.h's probe_start, by ctx's hasher).  A
 * constant at each stamp of the loop. */
typedef struct {
    keys8_hash hash;
    uint64_t keyed;
    const scheme_ctx *ctx;
} key_hashing;

LOOP probe key_probe(key_hashing kh, const key_batch *keys, size_t j)
{
    if (kh.ctx == NULL) /* a packed8 batch's key read from its slot: one load, not two (key_batch.h) */
        return key8_probe(kh.hash, kh.keyed, keys->packed8 ? keys->packed[j] : keys->ptr[j]);
    probe p;
    probe_start(SCHEME_DOUBLE, kh.ctx, &p, keys->ptr[j], keys->len[j], keys->id[j]);
    return p;
}

/* The streams of keys first .. first + count - 1 of a batch, into x[0 ..]
 * and y[0 ..] (schemes.h's double stream: h1 and h2 = mix64(h1)). */
LOOP void key_streams(key_hashing kh, const key_batch *keys, size_t first, size_t count, uint64_t *x, uint64_t *y)
{
    for (size_t j = 0; j < count; j++) {
        const probe p = key_probe(kh, keys, first + j);
        x[j] = p.x;
        y[j] = p.y;
    }
}

/* The batches' keys in one pass, without a prefetch
 * (filter_standard_one_pass says where): a batch's streams first, then
 * its keys' bits.  A key's stream is a chain of dependent steps (the
 * hash's product, mix64's two), and its k positions wait on it; hashed and
 * set key by key, the chains of the few keys the out-of-order window
 * holds among their k read-modify-writes each are what it waits on.  The
 * 32 streams alone are independent arithmetic that runs ahead, and the
 * positions then start from two loads: 9-19% faster in L1 and L2, 5-11%
 * at 1e6 keys on a Zen 5 (docs/PERFORMANCE.md, session 37). */
LOOP void insert_run(keys8_hash hash, uint64_t *words, uint64_t m, unsigned k, uint64_t keyed,
                     const key_batch *batches, size_t count)
{
    uint64_t x[KEY_BATCH], y[KEY_BATCH];
    for (size_t t = 0; t < count; t++) {
        const key_batch *keys = &batches[t];
        key_streams((key_hashing){hash, keyed, NULL}, keys, 0, keys->count, x, y);
        for (size_t j = 0; j < keys->count; j++)
            set_bits(words, m, k, (probe){.x = x[j], .y = y[j]});
    }
}

/* A batch's keys hashed (xxh3_64 or mulx64 on 8 bytes), their k
 * positions computed by schemes.h's double hashing stream and reduction
 * (the reference's arithmetic, not a copy of it) into pos[j k + i], and
 * each position's line prefetched for writing: the prefetched loop's first
 * pass. */
LOOP void standard_hash(keys8_hash hash, const uint64_t *words, uint64_t m, unsigned k, uint64_t keyed,
                        const key_batch *keys, uint64_t *pos)
{
    for (size_t j = 0; j < keys->count; j++) {
        probe p = key8_probe(hash, keyed, keys->ptr[j]);
        /* two positions a loop step halve the step's count, compare and
         * branch, and leave one test for an odd k (a wider unroll's
         * remainder jumps cost more a key than they save: make loopcount) */
#pragma GCC unroll 2
        for (unsigned i = 0; i < k; i++) {
            const uint64_t q = probe_position(SCHEME_DOUBLE, NULL, &p, m);
            *pos++ = q;
            __builtin_prefetch(&words[q >> 6], 1, 3);
        }
    }
}

/* The second pass: the bits of n positions set, in key order; n is the
 * batch's count times k, so eight a loop step leave the step's overhead an
 * eighth. */
LOOP void standard_set(uint64_t *words, const uint64_t *pos, size_t n)
{
#pragma GCC unroll 8
    for (size_t t = 0; t < n; t++)
        bit_set(words, pos[t]);
}

/* The prefetched loop (filter_standard_one_pass says when): batch b hashed
 * and prefetched, then batch b - 1's bits set, so that a line is fetched
 * while the up to KEY_BATCH keys before its key are worked, the positions
 * waiting in two arrays of one batch. */
LOOP void insert_prefetched(keys8_hash hash, filter *f, uint64_t keyed, const key_batch *batches, size_t count)
{
    uint64_t pos[2][KEY_BATCH * FILTER_K_MAX];
    for (size_t b = 0; b <= count; b++) {
        if (b < count)
            standard_hash(hash, f->words, f->m, f->k, keyed, &batches[b], pos[b & 1]);
        if (b > 0)
            standard_set(f->words, pos[(b - 1) & 1], batches[b - 1].count * f->k);
    }
}

/* The one pass where filter_standard_one_pass takes it (insert_run
 * stamped for each k of FILTER_STAMPED_K, the loop past them), else the
 * prefetched loop. */
LOOP void insert_keys8(keys8_hash hash, filter *f, uint64_t seed, const key_batch *batches, size_t count)
{
    uint64_t *const words = f->words;
    const uint64_t m = f->m, keyed = keys8_constant(hash, seed);
    if (!filter_standard_one_pass(f, filter_fetch_plan())) {
        insert_prefetched(hash, f, keyed, batches, count);
        return;
    }
#define FILTER_K_DO(K, STAMPED)                                                                              \
    insert_run(hash, words, m, K, keyed, batches, count);                                                    \
    return
    FILTER_K_SWITCH(f->k)
#undef FILTER_K_DO
}

void standard_portable_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count)
{
    if (hash == KEYS8_MULX64)
        insert_keys8(KEYS8_MULX64, f, seed, batches, count);
    else
        insert_keys8(KEYS8_XXH3_64, f, seed, batches, count);
}

/* One key's k bits set from its stream p, set_bits stamped as the batches'
 * loop is.  words and m in locals: a store through f->words could alias
 * *f, and the compiler would load them again after each bit set. */
LOOP void insert_probe(filter *f, probe p)
{
    uint64_t *const words = f->words;
    const uint64_t m = f->m;
#define FILTER_K_DO(K, STAMPED)                                                                              \
    set_bits(words, m, K, p);                                                                                \
    return
    FILTER_K_SWITCH(f->k)
#undef FILTER_K_DO
}

/* One key's k bits tested from its stream p, with an early exit. */
LOOP int test_bits(const uint64_t *words, uint64_t m, unsigned k, probe p)
{
    unsigned i = 0;
#pragma GCC unroll 8
    for (; i + 2 <= k; i += 2) { /* two positions a test: their loads overlap, half the branches */
        const uint64_t q0 = probe_position(SCHEME_DOUBLE, NULL, &p, m), q1 = probe_position(SCHEME_DOUBLE, NULL, &p, m);
        if (!(standard_bit_at(words, q0) & standard_bit_at(words, q1)))
            return 0;
    }
    return i < k ? (int)standard_bit_at(words, probe_position(SCHEME_DOUBLE, NULL, &p, m)) : 1;
}

/* One key's k bits tested without a branch on any: 1 when all are set. */
LOOP unsigned test_all_bits(const uint64_t *words, uint64_t m, unsigned k, probe p)
{
    uint64_t all = 1;
#pragma GCC unroll 16 /* FILTER_K_STAMPED */
    for (unsigned i = 0; i < k; i++)
        all &= standard_bit_at(words, probe_position(SCHEME_DOUBLE, NULL, &p, m));
    return (unsigned)all;
}

/* test_bits, or test_all_bits when all_k, stamped for each k of
 * FILTER_STAMPED_K, as insert_probe is (a library user's bloomlab_contains
 * of a present key 2-6% faster, docs/PERFORMANCE.md, session 19). */
LOOP int query_probe(const filter *f, probe p, int all_k)
{
    const uint64_t *const words = f->words;
    const uint64_t m = f->m;
#define FILTER_K_DO(K, STAMPED) return all_k ? (int)test_all_bits(words, m, K, p) : test_bits(words, m, K, p)
    FILTER_K_SWITCH(f->k)
#undef FILTER_K_DO
}

LOOP void insert_key8(keys8_hash hash, filter *f, uint64_t keyed, const unsigned char *key)
{
    insert_probe(f, key8_probe(hash, keyed, key));
}

LOOP int query_key8(keys8_hash hash, const filter *f, uint64_t keyed, const unsigned char *key)
{
    return query_probe(f, key8_probe(hash, keyed, key), 0);
}

LOOP int query_key8_all_k(keys8_hash hash, const filter *f, uint64_t keyed, const unsigned char *key)
{
    return query_probe(f, key8_probe(hash, keyed, key), 1);
}

/* A key of any length by its hash h (filters.h's filter_key8). */
static int insert_hash(filter *f, uint64_t h)
{
    insert_probe(f, hash_probe(h));
    return 0;
}

static int query_hash(const filter *f, uint64_t h) { return query_probe(f, hash_probe(h), 0); }
static int query_hash_all_k(const filter *f, uint64_t h) { return query_probe(f, hash_probe(h), 1); }

FILTER_KEY8_CALLS(standard_portable_key8, insert_key8, query_key8, insert_hash, query_hash)
FILTER_KEY8_CALLS(standard_portable_key8_all_k, insert_key8, query_key8_all_k, insert_hash, query_hash_all_k)

/* ---- queries: a group of keys in rounds or all k at once (standard_portable.h) */

/* Keys a group: a round's prefetches are issued a group's work ahead of
 * their tests (Boost.Bloom's bulk may_contain keeps 64), and the keys
 * alive fit one 64-bit mask. */
#define QUERY_GROUP 64

/* Key t of the group: its double hashing stream (schemes.h's probe: x the
 * value after the one pos came from, y the step) and the position its
 * next round tests. */
typedef struct {
    uint64_t x[QUERY_GROUP], y[QUERY_GROUP], pos[QUERY_GROUP];
    unsigned count;
} query_group;

/* Where the run's next key is: batch b, key j. */
typedef struct {
    size_t b, j;
} run_cursor;

/* Key t of the group from its stream p: position 0 computed and its line
 * prefetched (filters.h's filter_query_prefetch), the stream kept where it
 * then stands. */
LOOP void group_put(const uint64_t *words, uint64_t m, int far, query_group *g, unsigned t, probe p)
{
    const uint64_t q = probe_position(SCHEME_DOUBLE, NULL, &p, m);
    g->x[t] = p.x;
    g->y[t] = p.y;
    g->pos[t] = q;
    filter_query_prefetch(&words[q >> 6], far);
}

/* The next (up to) QUERY_GROUP keys of the run hashed into the group
 * (group_put); g->count = 0 when the run is done. */
LOOP void group_start(key_hashing kh, const uint64_t *words, uint64_t m, int far, const key_batch *batches,
                      size_t count, run_cursor *at, query_group *g)
{
    unsigned n = 0;
    while (n < QUERY_GROUP && at->b < count) {
        const key_batch *keys = &batches[at->b];
        if (at->j >= keys->count) {
            at->b++;
            at->j = 0;
            continue;
        }
        group_put(words, m, far, g, n++, key_probe(kh, keys, at->j++));
    }
    g->count = n;
}

/* The group's rounds (standard_portable.h); returns the keys that found
 * all k bits set (bit t: key t of the group).  The last round computes no
 * next position. */
LOOP uint64_t group_rounds(const uint64_t *words, uint64_t m, unsigned k, int far, query_group *g)
{
    uint64_t live = g->count == QUERY_GROUP ? ~0ULL : (1ULL << g->count) - 1;
    for (unsigned i = 0; i + 1 < k && live != 0; i++) {
        uint64_t found = 0;
        for (uint64_t rest = live; rest != 0; rest &= rest - 1) {
            const unsigned t = (unsigned)__builtin_ctzll(rest);
            found |= standard_bit_at(words, g->pos[t]) << t;
            probe p = {.x = g->x[t], .y = g->y[t]}; /* the key's stream where it stood (schemes.h) */
            const uint64_t q = probe_position(SCHEME_DOUBLE, NULL, &p, m);
            g->x[t] = p.x;
            g->pos[t] = q;
            filter_query_prefetch(&words[q >> 6], far);
        }
        live = found;
    }
    uint64_t found = 0;
    for (uint64_t rest = live; rest != 0; rest &= rest - 1) {
        const unsigned t = (unsigned)__builtin_ctzll(rest);
        found |= standard_bit_at(words, g->pos[t]) << t;
    }
    return found;
}

/* The next (up to) QUERY_GROUP keys of the run, each batch's streams
 * first (as insert_run's, for the same reason), then each key's k bits
 * tested at once; returns the keys that found all k (bit t: key t of the
 * group), *n their number (0 when the run is done). */
LOOP uint64_t group_all_k_run(key_hashing kh, const uint64_t *words, uint64_t m, unsigned k,
                              const key_batch *batches, size_t count, run_cursor *at, unsigned *n)
{
    uint64_t found = 0, x[QUERY_GROUP], y[QUERY_GROUP];
    unsigned t = 0;
    while (t < QUERY_GROUP && at->b < count) {
        const key_batch *keys = &batches[at->b];
        const size_t left = keys->count - at->j, room = QUERY_GROUP - t, take = left < room ? left : room;
        key_streams(kh, keys, at->j, take, x, y);
        for (size_t j = 0; j < take; j++, t++)
            found |= (uint64_t)test_all_bits(words, m, k, (probe){.x = x[j], .y = y[j]}) << t;
        at->j += take;
        if (at->j == keys->count) {
            at->b++;
            at->j = 0;
        }
    }
    *n = t;
    return found;
}

/* group_all_k_run stamped for each k of FILTER_STAMPED_K (a key's k
 * positions straight-line code, as in the inserts' one pass). */
LOOP uint64_t group_all_k(key_hashing kh, const filter *f, const key_batch *batches, size_t count, run_cursor *at,
                          unsigned *n)
{
    const uint64_t *const words = f->words;
    const uint64_t m = f->m;
#define FILTER_K_DO(K, STAMPED) return group_all_k_run(kh, words, m, K, batches, count, at, n)
    FILTER_K_SWITCH(f->k)
#undef FILTER_K_DO
}

/* group_all_k stamped for each way of hashing (the hash a constant in each
 * copy), in a function of its own: in line, its stamps would be copied into
 * each of the query's (with and without answers). */
static __attribute__((noinline)) uint64_t group_all_k_of(key_hashing kh, const filter *f, const key_batch *batches,
                                                         size_t count, run_cursor *at, unsigned *n)
{
    if (kh.ctx != NULL)
        return group_all_k((key_hashing){KEYS8_XXH3_64, 0, kh.ctx}, f, batches, count, at, n);
    if (kh.hash == KEYS8_MULX64)
        return group_all_k((key_hashing){KEYS8_MULX64, kh.keyed, NULL}, f, batches, count, at, n);
    return group_all_k((key_hashing){KEYS8_XXH3_64, kh.keyed, NULL}, f, batches, count, at, n);
}

/* A group's n answers from its mask of keys that found all k (bit t: key
 * t) to answer[0 ..] when answer is not NULL; returns how many found them. */
LOOP size_t group_answers(uint64_t live, unsigned n, unsigned char *answer)
{
    if (answer != NULL)
        for (unsigned t = 0; t < n; t++)
            answer[t] = (unsigned char)((live >> t) & 1);
    return (size_t)__builtin_popcountll(live);
}

/* The run a group at a time, in rounds or, after a group of mostly present
 * keys where the one pass applies, all k at once (filters.h's
 * filter_mostly_present; standard_portable.h), then the group's answers. */
LOOP size_t query_run(key_hashing kh, const filter *f, const key_batch *batches, size_t count, unsigned char *answer,
                      int far)
{
    const uint64_t *const words = f->words;
    const uint64_t m = f->m;
    const unsigned k = f->k;
    const int one_pass = filter_standard_one_pass(f, filter_fetch_plan());
    run_cursor at = {0, 0};
    query_group g;
    size_t yes = 0;
    int all_k = 0; /* the first group in rounds */
    for (;;) {
        uint64_t live;
        if (all_k) {
            live = group_all_k_of(kh, f, batches, count, &at, &g.count);
        } else {
            group_start(kh, words, m, far, batches, count, &at, &g);
            live = group_rounds(words, m, k, far, &g); /* 0 for an empty group */
        }
        if (g.count == 0)
            return yes;
        const size_t found = group_answers(live, g.count, answer);
        all_k = one_pass && filter_mostly_present(found, g.count);
        yes += found;
        if (answer != NULL)
            answer += g.count;
    }
}

/* The rounds alone on given hashes, a group of QUERY_GROUP keys at a time. */
LOOP size_t split_rounds(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer,
                         int far)
{
    query_group g;
    size_t yes = 0;
    for (size_t at = 0; at < count; at += QUERY_GROUP) {
        g.count = count - at < QUERY_GROUP ? (unsigned)(count - at) : QUERY_GROUP;
        for (unsigned t = 0; t < g.count; t++) /* schemes.h's double stream: x = h1, y = h2 */
            group_put(f->words, f->m, far, &g, t, (probe){.x = h1[at + t], .y = h2[at + t]});
        const uint64_t live = group_rounds(f->words, f->m, f->k, far, &g);
        yes += group_answers(live, g.count, answer != NULL ? answer + at : NULL);
    }
    return yes;
}

/* split_rounds stamped for filter_query_prefetch's two hints: the caller
 * (dispatch.c's runs at the AVX2 level) judges which runs take them. */
size_t standard_portable_query_split(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                                     unsigned char *answer)
{
    if (filter_beyond_llc(f))
        return split_rounds(f, h1, h2, count, answer, 1);
    return split_rounds(f, h1, h2, count, answer, 0);
}

/* One way of hashing, stamped with and without the answers' stores and
 * for filter_query_prefetch's two hints. */
LOOP size_t query_stamp(key_hashing kh, const filter *f, const key_batch *batches, size_t count, unsigned char *answer)
{
    if (filter_beyond_llc(f))
        return answer == NULL ? query_run(kh, f, batches, count, NULL, 1) : query_run(kh, f, batches, count, answer, 1);
    return answer == NULL ? query_run(kh, f, batches, count, NULL, 0) : query_run(kh, f, batches, count, answer, 0);
}

size_t standard_portable_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                     size_t count, unsigned char *answer)
{
    const uint64_t keyed = keys8_constant(hash, seed);
    if (hash == KEYS8_MULX64)
        return query_stamp((key_hashing){KEYS8_MULX64, keyed, NULL}, f, batches, count, answer);
    return query_stamp((key_hashing){KEYS8_XXH3_64, keyed, NULL}, f, batches, count, answer);
}

size_t standard_portable_query_hashed(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                                      unsigned char *answer)
{
    return query_stamp((key_hashing){KEYS8_XXH3_64, 0, ctx}, f, batches, count, answer);
}
