/* avx2.c -- the loops of avx2.h.  The Makefile compiles this file, and only
 * this one, for AVX2 with BMI2 and FMA (its ISA_FLAGS_avx2), whatever the
 * build's flags: nothing here may run unless avx2_usable() (cpu.h's
 * run-time choice) says the CPU has it.  Off x86 the file is empty and
 * nothing calls it.
 *
 * Lanes.  Four keys' values u_i ride in the four 64-bit lanes of a ymm
 * register; two such groups (keys j .. j+3 and j+4 .. j+7) make one vector
 * of eight 32-bit positions, fetched by one vpgatherdd.  A group's missing
 * keys (a run's tail) are loaded as zero: their u is 0 at every step, so
 * their positions are position 0 (or a slice's first bit), inside the
 * filter; they are read, never written, and their answers dropped.
 *
 * The reduction.  pos = floor(u m / 2^64) for m < 2^32 is the high half of
 * uh m + hi32(ul m), two vpmuludq whose sum cannot overflow (avx512.c's top
 * comment).  The block layouts' bit offsets want the top bits of
 * u blocks mod 2^64 instead: with blocks < 2^32 that is
 * ul blocks + (uh blocks) 2^32 mod 2^64, two vpmuludq again.
 */
#include "filter/avx2.h"
#include "base/hashes.h"
#include "base/pcg.h" /* mix64 */
#include "filter/fetch_tune.h"
#include "filter/filters.h"
#include "filter/live_keys.h"
#include "filter/standard_portable.h" /* standard_bit_at: the prefilter's scalar rest */

#include <string.h>

#include "filter/batch_hash.h" /* XXH3 inlined, and its 8-byte key's constant (xxh3_8_bitflip) */

#if BLOOMLAB_X86
#if !defined(__AVX2__) || !defined(__BMI2__)
#error "avx2.c is compiled with -mavx2 -mbmi2 -mfma (the Makefile's ISA_FLAGS_avx2)"
#endif
#include <immintrin.h>

#include "filter/split_ymm.h"

#define LOOP static inline __attribute__((always_inline))

/* Lanes 0 .. count-1 of four (count may exceed 4), as a maskload mask. */
LOOP __m256i lanes4(size_t count)
{
    const __m256i index = _mm256_setr_epi64x(0, 1, 2, 3);
    const long long n = count >= 4 ? 4 : (long long)count;
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), index);
}

/* Keys j .. j+3 of v (count keys in all), zero past the last. */
LOOP __m256i load4(const uint64_t *v, size_t j, size_t count)
{
    if (j >= count)
        return _mm256_setzero_si256();
    if (count - j >= 4)
        return _mm256_loadu_si256((const __m256i *)(const void *)(v + j));
    return _mm256_maskload_epi64((const long long *)(const void *)(v + j), lanes4(count - j));
}

/* floor(u r / 2^64), r < 2^32, in every lane (the top comment). */
LOOP __m256i reduce4(__m256i u, __m256i r)
{
    const __m256i low = _mm256_mul_epu32(u, r);
    const __m256i high = _mm256_mul_epu32(_mm256_srli_epi64(u, 32), r);
    return _mm256_srli_epi64(_mm256_add_epi64(high, _mm256_srli_epi64(low, 32)), 32);
}

/* u r mod 2^64, r < 2^32. */
LOOP __m256i mullo4(__m256i u, __m256i r)
{
    const __m256i low = _mm256_mul_epu32(u, r);
    const __m256i high = _mm256_mul_epu32(_mm256_srli_epi64(u, 32), r);
    return _mm256_add_epi64(low, _mm256_slli_epi64(high, 32));
}

/* How four keys' streams of positions come (batch.c's cursor_position),
 * every position below 2^32:
 *   POS_STANDARD     position i = reduce(u_i, m);
 *   POS_COUNTING     the same over 4-bit counters;
 *   POS_PARTITIONED  slice[i] + reduce(u_i, slice[i+1] - slice[i]);
 *   POS_BLOCKED      the block reduce(u_0, blocks), then position i = its
 *                    first bit + the top 9 bits of u_{i+1} blocks mod 2^64;
 *   POS_MULTIPLY     the same block, then its first bit + the top 9 bits
 *                    of the 32-bit g_i (the multiply scheme, schemes.h):
 *                    g rides in the low half of each lane, g_0 = h2 >> 32
 *                    and g_{i+1} = g_i MULTIPLY_STEP mod 2^32 (one vpmuludq
 *                    and a mask).
 * The kind is a constant at every call, so each loop is stamped per kind. */
enum { POS_STANDARD, POS_COUNTING, POS_PARTITIONED, POS_BLOCKED, POS_MULTIPLY };

/* g MULTIPLY_STEP mod 2^32 in the low half of each lane (the high half 0). */
LOOP __m256i multiply_step4(__m256i g)
{
    return _mm256_and_si256(_mm256_mul_epu32(g, _mm256_set1_epi64x(MULTIPLY_STEP)),
                            _mm256_set1_epi64x(0xFFFFFFFFLL));
}

typedef struct {
    __m256i u, step, range, base;
    const uint64_t *slice;
    unsigned i;
} lanes4_t;

LOOP lanes4_t lanes_begin(int kind, __m256i h1, __m256i h2, __m256i range, const uint64_t *slice)
{
    lanes4_t p = {h1, h2, range, _mm256_setzero_si256(), slice, 0};
    if (kind == POS_BLOCKED || kind == POS_MULTIPLY) {
        p.base = _mm256_slli_epi64(reduce4(h1, range), 9);
        p.u = kind == POS_BLOCKED ? _mm256_add_epi64(h1, h2) : _mm256_srli_epi64(h2, 32);
    }
    return p;
}

/* The next position of each lane. */
LOOP __m256i lanes_next(int kind, lanes4_t *p)
{
    __m256i pos;
    if (kind == POS_PARTITIONED) {
        const uint64_t lo = p->slice[p->i], hi = p->slice[p->i + 1];
        pos = _mm256_add_epi64(reduce4(p->u, _mm256_set1_epi64x((long long)(hi - lo))),
                               _mm256_set1_epi64x((long long)lo));
        p->i++;
    } else if (kind == POS_BLOCKED)
        pos = _mm256_add_epi64(p->base, _mm256_srli_epi64(mullo4(p->u, p->range), 55));
    else if (kind == POS_MULTIPLY) {
        pos = _mm256_add_epi64(p->base, _mm256_srli_epi64(p->u, 23));
        p->u = multiply_step4(p->u);
        return pos;
    } else
        pos = reduce4(p->u, p->range);
    p->u = _mm256_add_epi64(p->u, p->step);
    return pos;
}

/* Eight positions below 2^32 as 32-bit lanes, in the order a0 a1 b0 b1
 * a2 a3 b2 b3 (one vshufps; key_order puts a result back in key order). */
LOOP __m256i pack8(__m256i a, __m256i b)
{
    return _mm256_castps_si256(
        _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), _MM_SHUFFLE(2, 0, 2, 0)));
}

LOOP __m256i key_order(__m256i v) { return _mm256_permute4x64_epi64(v, _MM_SHUFFLE(3, 1, 2, 0)); }

/* ---- inserts: positions in vector, bits set by scalar ORs ------------------- */

/* Set one position: OR its bit in, or add 1 to its counter unless that is
 * saturated (returns 1 then: the increment is lost, as in batch.c). */
LOOP unsigned set_position(int kind, uint64_t *words, uint64_t word, uint64_t bit)
{
    if (kind != POS_COUNTING) {
        words[word] |= bit;
        return 0;
    }
    const uint64_t w = words[word], shift = bit; /* counting: bit holds the counter's shift */
    const unsigned saturated = ((w >> shift) & 15u) == COUNTER_MAX;
    words[word] = w + ((uint64_t)!saturated << shift);
    return saturated;
}

/* Keys are this far ahead when a blocked512 key's line is prefetched. */
#define BLOCK_AHEAD 32

LOOP void prefetch_block_lines(const uint64_t *words, __m256i range, const uint64_t *h1, size_t j, size_t count,
                               int rw)
{
    if (j >= count)
        return;
    uint64_t first_bit[4];
    _mm256_storeu_si256((__m256i *)(void *)first_bit, _mm256_slli_epi64(reduce4(load4(h1, j, count), range), 9));
    for (size_t l = 0; l < 4 && j + l < count; l++) {
        if (rw)
            __builtin_prefetch(&words[first_bit[l] >> 6], 1, 3);
        else
            __builtin_prefetch(&words[first_bit[l] >> 6], 0, 3);
    }
}

/* Keys whose positions are made (and, beyond L2, prefetched for writing)
 * one group ahead of the group whose bits are set. */
#define INSERT_GROUP 16

typedef struct {
    uint64_t word[INSERT_GROUP * FILTER_K_MAX], bit[INSERT_GROUP * FILTER_K_MAX]; /* [(4 v + i) 4 + l]: see below */
} insert_group;

/* The positions of keys j .. j+15 (those there are): position i of the
 * key in lane l of vector v at [4 (k v + i) + l]; prefetched when asked. */
LOOP void group_positions(int kind, const uint64_t *words, __m256i r, const uint64_t *slice, unsigned k,
                          const uint64_t *h1, const uint64_t *h2, size_t j, size_t count, insert_group *g, int prefetch)
{
    const __m256i one = _mm256_set1_epi64x(1), low6 = _mm256_set1_epi64x(63), low4 = _mm256_set1_epi64x(15);
    for (size_t v = 0; v < INSERT_GROUP / 4 && j + 4 * v < count; v++) {
        lanes4_t p = lanes_begin(kind, load4(h1, j + 4 * v, count), load4(h2, j + 4 * v, count), r, slice);
        uint64_t *word = g->word + 4 * k * v, *bit = g->bit + 4 * k * v;
        for (unsigned i = 0; i < k; i++) {
            const __m256i pos = lanes_next(kind, &p);
            if (kind == POS_COUNTING) {
                _mm256_storeu_si256((__m256i *)(void *)(word + 4 * i), _mm256_srli_epi64(pos, 4));
                _mm256_storeu_si256((__m256i *)(void *)(bit + 4 * i),
                                    _mm256_slli_epi64(_mm256_and_si256(pos, low4), 2));
            } else {
                _mm256_storeu_si256((__m256i *)(void *)(word + 4 * i), _mm256_srli_epi64(pos, 6));
                _mm256_storeu_si256((__m256i *)(void *)(bit + 4 * i),
                                    _mm256_sllv_epi64(one, _mm256_and_si256(pos, low6)));
            }
        }
        if (prefetch) {
            const size_t lanes = count - j - 4 * v < 4 ? count - j - 4 * v : 4;
            for (unsigned i = 0; i < k; i++)
                for (size_t l = 0; l < lanes; l++)
                    __builtin_prefetch(&words[word[4 * i + l]], 1, 3);
        }
    }
}

/* Set the group's bits (count its counters; returns the increments lost).
 * Where k is a constant (k_stamped: filters.h's FILTER_STAMPED_K) a full
 * vector's 4 k updates are written out, as avx512.c's probe_insert does. */
LOOP uint64_t group_set(int kind, uint64_t *words, unsigned k, size_t j, size_t count, const insert_group *g,
                        int k_stamped)
{
    uint64_t saturated = 0;
    for (size_t v = 0; v < INSERT_GROUP / 4 && j + 4 * v < count; v++) {
        const uint64_t *word = g->word + 4 * k * v, *bit = g->bit + 4 * k * v;
        const size_t lanes = count - j - 4 * v < 4 ? count - j - 4 * v : 4;
        if (lanes == 4 && k_stamped) {
#pragma GCC unroll 64
            for (size_t t = 0; t < 4 * (size_t)k; t++)
                saturated += set_position(kind, words, word[t], bit[t]);
        } else if (lanes == 4) {
            for (size_t t = 0; t < 4 * (size_t)k; t++)
                saturated += set_position(kind, words, word[t], bit[t]);
        } else {
            for (unsigned i = 0; i < k; i++)
                for (size_t l = 0; l < lanes; l++)
                    saturated += set_position(kind, words, word[4 * i + l], bit[4 * i + l]);
        }
    }
    return saturated;
}

/* Set the bits (count the counters; returns the increments lost).  An
 * unblocked filter beyond L2 (prefetch) has each group's lines requested
 * while the group before is set; a blocked512 key's one line is
 * prefetched BLOCK_AHEAD keys ahead. */
LOOP uint64_t probe_insert(int kind, uint64_t *words, uint64_t range, const uint64_t *slice, unsigned k,
                           const uint64_t *h1, const uint64_t *h2, size_t count, int prefetch, int k_stamped)
{
    const int blocked = kind == POS_BLOCKED || kind == POS_MULTIPLY;
    const __m256i r = _mm256_set1_epi64x((long long)range);
    insert_group g[2];
    uint64_t saturated = 0;
    if (blocked) {
        prefetch = 0;
        for (size_t j = 0; j < BLOCK_AHEAD; j += 4)
            prefetch_block_lines(words, r, h1, j, count, 1);
    }
    if (count == 0)
        return 0;
    group_positions(kind, words, r, slice, k, h1, h2, 0, count, &g[0], prefetch);
    for (size_t j = 0, n = 0; j < count; j += INSERT_GROUP, n++) {
        if (blocked)
            for (size_t a = 0; a < INSERT_GROUP; a += 4)
                prefetch_block_lines(words, r, h1, j + BLOCK_AHEAD + a, count, 1);
        if (j + INSERT_GROUP < count)
            group_positions(kind, words, r, slice, k, h1, h2, j + INSERT_GROUP, count, &g[(n + 1) & 1], prefetch);
        saturated += group_set(kind, words, k, j, count, &g[n & 1], k_stamped);
    }
    return saturated;
}

/* The standard layout's inserts, stamped for each k of FILTER_STAMPED_K;
 * past L2 its lines prefetched a group ahead where filter_phase_prefetch
 * says (under FETCH_WINDOW inside the last-level cache the window overlaps
 * the misses: the prefetches cost a tenth at 1e6 keys on a Zen 5,
 * docs/PERFORMANCE.md, session 21). */
void avx2_standard_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    const int prefetch = filter_beyond_l2(f) && filter_phase_prefetch(f);
#define FILTER_K_DO(K, STAMPED)                                                                              \
    probe_insert(POS_STANDARD, f->words, f->m, NULL, K, h1, h2, count, prefetch, STAMPED);                   \
    return
    FILTER_K_SWITCH(f->k)
#undef FILTER_K_DO
}

void avx2_counting_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    f->saturations += probe_insert(POS_COUNTING, f->words, f->m, NULL, f->k, h1, h2, count, filter_beyond_l2(f), 0);
}

void avx2_partitioned_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    probe_insert(POS_PARTITIONED, f->words, 0, f->slice_start, f->k, h1, h2, count, filter_beyond_l2(f), 0);
}

void avx2_blocked512_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    probe_insert(POS_BLOCKED, f->words, f->blocks, NULL, f->k, h1, h2, count, 0, 0);
}

void avx2_blocked512_multiply_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    probe_insert(POS_MULTIPLY, f->words, f->blocks, NULL, f->k, h1, h2, count, 0, 0);
}

/* ---- queries: eight keys a step, one gather a position ---------------------- */

/* Bit p & 31 of 32-bit word p >> 5 in bit 0 of each lane (bits above it
 * are the word's next ones). */
LOOP __m256i bits_at8(const int *words32, __m256i pos)
{
    const __m256i w = _mm256_i32gather_epi32(words32, _mm256_srli_epi32(pos, 5), 4);
    return _mm256_srlv_epi32(w, _mm256_and_si256(pos, _mm256_set1_epi32(31)));
}

/* The key-ordered mask of the lanes (pack8's order) whose bit 0 is set. */
LOOP unsigned lanes_found8(__m256i all)
{
    return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(key_order(_mm256_slli_epi32(all, 31))));
}

/* All k positions of eight keys (a's lanes, then b's), tested without a
 * branch: the key-ordered mask of those that found them all set.  A
 * position p is bit p & 31 of 32-bit word p >> 5 of the same little-endian
 * array (counter p: bits 4 (p & 7) of 32-bit word p >> 3). */
LOOP unsigned test8(int kind, const uint64_t *words, lanes4_t *pa, lanes4_t *pb, unsigned k)
{
    const int *words32 = (const int *)(const void *)words;
    const __m256i low3 = _mm256_set1_epi32(7), nibble = _mm256_set1_epi32(15);
    __m256i all = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
    for (unsigned i = 0; i < k; i++) {
        const __m256i pos = pack8(lanes_next(kind, pa), lanes_next(kind, pb));
        if (kind == POS_COUNTING) {
            const __m256i w = _mm256_i32gather_epi32(words32, _mm256_srli_epi32(pos, 3), 4);
            const __m256i c = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_slli_epi32(_mm256_and_si256(pos, low3), 2)),
                                               nibble);
            zero = _mm256_or_si256(zero, _mm256_cmpeq_epi32(c, _mm256_setzero_si256()));
        } else
            all = _mm256_and_si256(all, bits_at8(words32, pos));
    }
    if (kind == POS_COUNTING)
        return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(key_order(zero))) ^ 0xFFu;
    return lanes_found8(all);
}

/* All k bits, no early exit: in cache the gathers cost less than the
 * branches an exit would mispredict (batch.c keeps the phased portable
 * loops for unblocked filters beyond L2). */
LOOP size_t probe_query(int kind, const uint64_t *words, uint64_t range, const uint64_t *slice, unsigned k,
                        const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    const int blocked = kind == POS_BLOCKED || kind == POS_MULTIPLY;
    const __m256i r = _mm256_set1_epi64x((long long)range);
    size_t yes = 0;
    if (blocked)
        for (size_t j = 0; j < BLOCK_AHEAD; j += 4)
            prefetch_block_lines(words, r, h1, j, count, 0);
    for (size_t j = 0; j < count; j += 8) {
        if (blocked) {
            prefetch_block_lines(words, r, h1, j + BLOCK_AHEAD, count, 0);
            prefetch_block_lines(words, r, h1, j + BLOCK_AHEAD + 4, count, 0);
        }
        lanes4_t pa = lanes_begin(kind, load4(h1, j, count), load4(h2, j, count), r, slice);
        lanes4_t pb = lanes_begin(kind, load4(h1, j + 4, count), load4(h2, j + 4, count), r, slice);
        unsigned found = test8(kind, words, &pa, &pb, k);
        const size_t lanes = count - j < 8 ? count - j : 8;
        found &= (1u << lanes) - 1;
        yes += (size_t)__builtin_popcount(found);
        if (answer != NULL)
            for (size_t l = 0; l < lanes; l++)
                answer[j + l] = (unsigned char)((found >> l) & 1u);
    }
    return yes;
}

size_t avx2_standard_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    return probe_query(POS_STANDARD, f->words, f->m, NULL, f->k, h1, h2, count, answer);
}

/* ---- queries of mostly absent keys: a few positions first ------------------ */

/* A standard filter's run of mostly absent keys: the first PREFILTER_PROBES
 * positions of every key tested eight keys a step (test8), then the rest
 * of the k for the keys that found those set.  At the design load half the
 * bits are set, so an absent key passes the first j positions with
 * probability 2^-j: the test of all k asks 7 positions of each absent key
 * (k = 7) where this asks 3 + 4/8 on average.  Counted in positions, with
 * a scalar position about three vector ones, 2 first positions cost
 * 2 + 3 (5/4) = 5.75, 3 cost 3 + 3 (4/8) = 4.5, 4 cost 4 + 3 (3/16) = 4.56;
 * measured through the dispatch (absent keys, mulx64, ns a key, 1e4 / 1e6
 * / 1e7 keys, Zen 5): 2 first 2.99 / 3.67 / 4.07, 3 2.75 / 3.34-3.40 /
 * 3.64-3.73, 4 2.77 / 3.55 / 3.93, against 3.10 / 3.89 / 4.03 for all k in
 * L2 and the rounds beyond (docs/PERFORMANCE.md, session 22). */
#define PREFILTER_PROBES 3u

/* The keys still in: their indexes in the run, and for the vector rest
 * their streams moved on past the first positions (u) with their steps. */
typedef struct {
    uint32_t index[AVX2_MAX_KEYS];
    uint64_t u[AVX2_MAX_KEYS], step[AVX2_MAX_KEYS];
} prefilter_left;

/* Keys j .. j+7's first `first` positions tested; those that found them set
 * go to the list after the `listed` there (without a branch a key: each of
 * the eight indexes is written, the length moves past it only for a key
 * that passed, a lane past the run's last key never; j + 7 <
 * AVX2_MAX_KEYS), their answers 0 meanwhile.  A full group whose eight
 * keys all passed (a run of present keys, as a call's first run can be
 * before its keys are judged) has the rest of its k tested at once
 * instead, its lanes moved on already: *yes counts those found.  Returns
 * the list's new length. */
LOOP size_t prefilter8(const filter *f, __m256i r, unsigned first, const uint64_t *h1, const uint64_t *h2, size_t j,
                       size_t count, uint32_t *index, size_t listed, unsigned char *answer, size_t *yes)
{
    lanes4_t pa = lanes_begin(POS_STANDARD, load4(h1, j, count), load4(h2, j, count), r, NULL);
    lanes4_t pb = lanes_begin(POS_STANDARD, load4(h1, j + 4, count), load4(h2, j + 4, count), r, NULL);
    const size_t lanes = count - j < 8 ? count - j : 8;
    const unsigned passed = test8(POS_STANDARD, f->words, &pa, &pb, first) & ((1u << lanes) - 1);
    if (passed == 0xFFu) {
        const unsigned found = test8(POS_STANDARD, f->words, &pa, &pb, f->k - first);
        *yes += (size_t)__builtin_popcount(found);
        if (answer != NULL)
            for (unsigned l = 0; l < 8; l++)
                answer[j + l] = (unsigned char)((found >> l) & 1u);
        return listed;
    }
    if (answer != NULL)
        memset(answer + j, 0, lanes);
#pragma GCC unroll 8
    for (unsigned l = 0; l < 8; l++) {
        index[listed] = (uint32_t)(j + l);
        listed += (passed >> l) & 1u;
    }
    return listed;
}

/* The rest of the k for the n keys listed, few: one at a time in scalar,
 * each key's stream (schemes.h) started past its first positions, without
 * a branch on a bit (standard_portable.h's standard_bit_at). */
LOOP size_t prefilter_rest_scalar(const filter *f, unsigned first, const uint64_t *h1, const uint64_t *h2,
                                  const prefilter_left *left, size_t n, unsigned char *answer)
{
    size_t yes = 0;
    for (size_t s = 0; s < n; s++) {
        const uint32_t i = left->index[s];
        probe p = {.x = h1[i] + first * h2[i], .y = h2[i]};
        uint64_t all = 1;
        for (unsigned t = first; t < f->k; t++)
            all &= standard_bit_at(f->words, probe_position(SCHEME_DOUBLE, NULL, &p, f->m));
        yes += all;
        if (answer != NULL)
            answer[i] = (unsigned char)all;
    }
    return yes;
}

/* The rest for many (a run with as many present keys as absent): their
 * streams gathered into lists, then eight a step in vector (test8). */
LOOP size_t prefilter_rest_vector(const filter *f, __m256i r, unsigned first, const uint64_t *h1, const uint64_t *h2,
                                  prefilter_left *left, size_t n, unsigned char *answer)
{
    for (size_t s = 0; s < n; s++) {
        const uint32_t i = left->index[s];
        left->u[s] = h1[i] + first * h2[i];
        left->step[s] = h2[i];
    }
    size_t yes = 0;
    for (size_t s = 0; s < n; s += 8) {
        lanes4_t pa = lanes_begin(POS_STANDARD, load4(left->u, s, n), load4(left->step, s, n), r, NULL);
        lanes4_t pb = lanes_begin(POS_STANDARD, load4(left->u, s + 4, n), load4(left->step, s + 4, n), r, NULL);
        const size_t lanes = n - s < 8 ? n - s : 8;
        const unsigned found = test8(POS_STANDARD, f->words, &pa, &pb, f->k - first) & ((1u << lanes) - 1);
        yes += (size_t)__builtin_popcount(found);
        if (answer != NULL)
            for (size_t l = 0; l < lanes; l++)
                answer[left->index[s + l]] = (unsigned char)((found >> l) & 1u);
    }
    return yes;
}

/* The prefilter with `first` positions first (a constant where k allows
 * PREFILTER_PROBES: its loop of positions written out). */
LOOP size_t prefilter_run(const filter *f, unsigned first, const uint64_t *h1, const uint64_t *h2, size_t count,
                          unsigned char *answer)
{
    const __m256i r = _mm256_set1_epi64x((long long)f->m);
    prefilter_left left;
    size_t listed = 0, yes = 0;
    for (size_t j = 0; j < count; j += 8)
        listed = prefilter8(f, r, first, h1, h2, j, count, left.index, listed, answer, &yes);
    /* a quarter: the scalar rest measured faster for absent keys (1e7: 2.77
     * against 3.31 ns a key), the vector one for half present (1e6: 3.46
     * against 4.22) */
    if (4 * listed <= count)
        return yes + prefilter_rest_scalar(f, first, h1, h2, &left, listed, answer);
    return yes + prefilter_rest_vector(f, r, first, h1, h2, &left, listed, answer);
}

size_t avx2_standard_query_prefilter(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                                     unsigned char *answer)
{
    if (f->k >= PREFILTER_PROBES)
        return answer != NULL ? prefilter_run(f, PREFILTER_PROBES, h1, h2, count, answer)
                              : prefilter_run(f, PREFILTER_PROBES, h1, h2, count, NULL);
    return prefilter_run(f, f->k, h1, h2, count, answer);
}

/* ---- the standard layout beyond the one pass: phases, live keys together -- */

/* avx512.c's query_phased on AVX2: the keys go through the phases of
 * batch.c's flight_step -- positions [0, 1), [1, 3), [3, 7), ... -- and
 * after each phase those that found all their bits set move to the front
 * of the list, so that a phase's gathers are eight live keys wide and an
 * absent key fetches about 2.5 of its k lines, not the 3 of the prefilter
 * or the k of probe_query (avx512.c says why).  AVX2 has no compress: the
 * lanes kept move down by a vpermd whose indexes pext picks out of
 * 0, 1, .., 7 (BMI2, which this file is built with).  dispatch.c takes
 * it where the standard layout's one pass does not apply, in place of the
 * portable rounds, which it beat there but for present keys beyond the
 * last-level cache (docs/PERFORMANCE.md, 2026-12-07, session 31). */

/* The keys still alive (live_keys.h).  Eight entries of slack: a group of
 * eight is loaded whole and stored whole. */
typedef struct {
    uint64_t u[AVX2_MAX_KEYS + 8], step[AVX2_MAX_KEYS + 8];
    uint32_t idx[AVX2_MAX_KEYS + 8];
} live_keys;

/* The 32-bit lanes of v whose bits are set in keep (bit l: lane l) moved
 * down to the first lanes, in order; the lanes above are lane 0's. */
LOOP __m256i compress8x32(__m256i v, unsigned keep)
{
    const uint64_t kept_bytes = _pdep_u64(keep, 0x0101010101010101ULL) * 0xFF; /* bit l -> byte l all ones */
    const uint64_t order = _pext_u64(0x0706050403020100ULL, kept_bytes);
    return _mm256_permutevar8x32_epi32(v, _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)order)));
}

/* The same for four 64-bit lanes (bit l: lane l, its two 32-bit halves). */
LOOP __m256i compress4x64(__m256i v, unsigned keep) { return compress8x32(v, (unsigned)_pdep_u32(keep, 0x55) * 3u); }

/* Groups of eight live keys whose lines are prefetched (into L2:
 * avx512.c's PHASE_AHEAD says why) ahead of the group being tested: 64
 * keys, as there (4 and 16 groups measured no faster: docs/PERFORMANCE.md). */
#define LIVE_AHEAD 8

/* Live keys s .. s+3 as lanes at their next position. */
LOOP lanes4_t live_lanes(const live_keys *lk, size_t s, __m256i r)
{
    return lanes_begin(POS_STANDARD, _mm256_loadu_si256((const __m256i *)(const void *)(lk->u + s)),
                       _mm256_loadu_si256((const __m256i *)(const void *)(lk->step + s)), r, NULL);
}

/* Group s's next `width` positions (eight 32-bit lanes a position, in
 * pack8's order) into pos, their lines prefetched when asked (all eight
 * lanes: one past the live keys holds a position below m too, of a key
 * dropped or of the zero slack, and a prefetch never faults); its values
 * in lk advance past them. */
LOOP void live_prefetch(const uint64_t *words, __m256i r, unsigned width, live_keys *lk, size_t s, uint32_t *pos,
                        int prefetch)
{
    lanes4_t pa = live_lanes(lk, s, r), pb = live_lanes(lk, s + 4, r);
    const uint32_t *words32 = (const uint32_t *)(const void *)words;
    for (unsigned i = 0; i < width; i++) {
        _mm256_storeu_si256((__m256i *)(void *)(pos + 8 * i),
                            pack8(lanes_next(POS_STANDARD, &pa), lanes_next(POS_STANDARD, &pb)));
        for (unsigned l = 0; prefetch && l < 8; l++)
            __builtin_prefetch(words32 + (pos[8 * i + l] >> 5), 0, 2); /* prefetcht1 */
    }
    _mm256_storeu_si256((__m256i *)(void *)(lk->u + s), pa.u);
    _mm256_storeu_si256((__m256i *)(void *)(lk->u + s + 4), pb.u);
}

/* The `width` positions of a group stored at pos tested: the key-ordered
 * mask of its keys that found them all set. */
LOOP unsigned live_test(const uint64_t *words, const uint32_t *pos, unsigned width)
{
    const int *words32 = (const int *)(const void *)words;
    __m256i all = _mm256_set1_epi32(1);
    for (unsigned i = 0; i < width; i++) {
        const __m256i p = _mm256_loadu_si256((const __m256i *)(const void *)(pos + 8 * i));
        all = _mm256_and_si256(all, bits_at8(words32, p));
    }
    return lanes_found8(all);
}

/* Live keys s .. s+3's values and steps, those kept, to the list at out. */
LOOP size_t keep4(live_keys *lk, size_t out, size_t s, unsigned keep)
{
    const __m256i u = _mm256_loadu_si256((const __m256i *)(const void *)(lk->u + s));
    const __m256i step = _mm256_loadu_si256((const __m256i *)(const void *)(lk->step + s));
    _mm256_storeu_si256((__m256i *)(void *)(lk->u + out), compress4x64(u, keep));
    _mm256_storeu_si256((__m256i *)(void *)(lk->step + out), compress4x64(step, keep));
    return out + (size_t)__builtin_popcount(keep);
}

/* The next `width` positions of every live key; the keys that found them
 * all set move to the front (a group all kept and already there stays
 * put: a run of present keys moves nothing).  Returns how many.  In place:
 * group s is read before anything is stored at out <= s, and the stores
 * reach at most entry s + 7, behind the group LIVE_AHEAD on, whose
 * positions are made and prefetched while group s is tested. */
LOOP size_t live_phase(const uint64_t *words, __m256i r, unsigned width, live_keys *lk, size_t live, int prefetch)
{
    uint32_t pos[LIVE_AHEAD + 1][8 * FILTER_K_MAX / 2]; /* a width is a power of 2 below k */
    size_t out = 0;
    for (size_t g = 0; g < LIVE_AHEAD && 8 * g < live; g++)
        live_prefetch(words, r, width, lk, 8 * g, pos[g], prefetch);
    for (size_t s = 0, g = 0; s < live; s += 8, g++) {
        if (s + 8 * LIVE_AHEAD < live)
            live_prefetch(words, r, width, lk, s + 8 * LIVE_AHEAD, pos[(g + LIVE_AHEAD) % (LIVE_AHEAD + 1)], prefetch);
        const unsigned keys = live - s < 8 ? (unsigned)(live - s) : 8;
        const unsigned found = live_test(words, pos[g % (LIVE_AHEAD + 1)], width) & ((1u << keys) - 1);
        if (found == 0xFFu && out == s) {
            out += 8;
            continue;
        }
        const __m256i idx = _mm256_loadu_si256((const __m256i *)(const void *)(lk->idx + s));
        _mm256_storeu_si256((__m256i *)(void *)(lk->idx + out), compress8x32(idx, found));
        out = keep4(lk, out, s, found & 15u);
        out = keep4(lk, out, s + 4, found >> 4);
    }
    return out;
}

LOOP size_t standard_phased(const uint64_t *words, uint64_t m, unsigned k, const uint64_t *h1, const uint64_t *h2,
                            size_t count, unsigned char *answer, int prefetch)
{
    live_keys lk;
    live_keys_start(lk.u, lk.step, lk.idx, h1, h2, count, 8);
    const __m256i r = _mm256_set1_epi64x((long long)m);
    size_t live = count;
    for (unsigned done = 0, width = 1; done < k && live > 0; done += width, width *= 2)
        live = live_phase(words, r, width < k - done ? width : k - done, &lk, live, prefetch);
    return live_keys_answers(lk.idx, live, count, answer);
}

size_t avx2_standard_query_phased(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                                  unsigned char *answer)
{
    if (filter_phase_prefetch(f))
        return standard_phased(f->words, f->m, f->k, h1, h2, count, answer, 1);
    return standard_phased(f->words, f->m, f->k, h1, h2, count, answer, 0);
}

size_t avx2_counting_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    return probe_query(POS_COUNTING, f->words, f->m, NULL, f->k, h1, h2, count, answer);
}

size_t avx2_partitioned_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                              unsigned char *answer)
{
    return probe_query(POS_PARTITIONED, f->words, 0, f->slice_start, f->k, h1, h2, count, answer);
}

size_t avx2_blocked512_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                             unsigned char *answer)
{
    return probe_query(POS_BLOCKED, f->words, f->blocks, NULL, f->k, h1, h2, count, answer);
}

size_t avx2_blocked512_multiply_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                                      unsigned char *answer)
{
    return probe_query(POS_MULTIPLY, f->words, f->blocks, NULL, f->k, h1, h2, count, answer);
}

/* ---- register64: one word a key ------------------------------------------- */

/* Every key's word, reduce(u_0, blocks), and its mask of k bits, bit i
 * the top 6 bits of u_{i+1} blocks mod 2^64 (batch.c's cursor_position),
 * or with the multiply scheme the top 6 bits of the 32-bit g_i; the words
 * prefetched. */
LOOP void register_masks(int multiply, const uint64_t *words, uint64_t blocks, unsigned k, const uint64_t *h1,
                         const uint64_t *h2, size_t count, uint64_t *word, uint64_t *mask, int rw)
{
    const __m256i b = _mm256_set1_epi64x((long long)blocks), one = _mm256_set1_epi64x(1);
    for (size_t j = 0; j < count; j += 4) {
        const __m256i u0 = load4(h1, j, count), step = load4(h2, j, count);
        __m256i bits = _mm256_setzero_si256();
        if (multiply) {
            __m256i g = _mm256_srli_epi64(step, 32);
            for (unsigned i = 0; i < k; i++, g = multiply_step4(g))
                bits = _mm256_or_si256(bits, _mm256_sllv_epi64(one, _mm256_srli_epi64(g, 26)));
        } else {
            __m256i u = _mm256_add_epi64(u0, step);
            for (unsigned i = 0; i < k; i++, u = _mm256_add_epi64(u, step))
                bits = _mm256_or_si256(bits, _mm256_sllv_epi64(one, _mm256_srli_epi64(mullo4(u, b), 58)));
        }
        _mm256_storeu_si256((__m256i *)(void *)(word + j), reduce4(u0, b));
        _mm256_storeu_si256((__m256i *)(void *)(mask + j), bits);
    }
    for (size_t j = 0; j < count; j++) {
        if (rw)
            __builtin_prefetch(&words[word[j]], 1, 3);
        else
            __builtin_prefetch(&words[word[j]], 0, 3);
    }
}

LOOP void register_insert(int multiply, filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    uint64_t *words = f->words;
    uint64_t word[AVX2_MAX_KEYS + 4], mask[AVX2_MAX_KEYS + 4];
    register_masks(multiply, words, f->blocks, f->k, h1, h2, count, word, mask, 1);
    for (size_t j = 0; j < count; j++)
        words[word[j]] |= mask[j];
}

LOOP size_t register_query(int multiply, const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                           unsigned char *answer)
{
    const uint64_t *words = f->words;
    uint64_t word[AVX2_MAX_KEYS + 4], mask[AVX2_MAX_KEYS + 4];
    register_masks(multiply, words, f->blocks, f->k, h1, h2, count, word, mask, 0);
    size_t yes = 0;
    for (size_t j = 0; j < count; j++) {
        const int all = (words[word[j]] & mask[j]) == mask[j];
        yes += (size_t)all;
        if (answer != NULL)
            answer[j] = (unsigned char)all;
    }
    return yes;
}

void avx2_register64_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    register_insert(0, f, h1, h2, count);
}

void avx2_register64_multiply_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    register_insert(1, f, h1, h2, count);
}

size_t avx2_register64_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                             unsigned char *answer)
{
    return register_query(0, f, h1, h2, count, answer);
}

size_t avx2_register64_multiply_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                                      unsigned char *answer)
{
    return register_query(1, f, h1, h2, count, answer);
}

/* ---- split block: one register a block ------------------------------------ */

/* split_ymm.h: split_salt, split_one, splitblock_mask_of, split_key_work,
 * splitblock_word, split_hashed_key, split_lone_key, split_prefetch and the
 * fetch shapes' parts. */
LOOP __m256i splitblock_mask(uint64_t u, __m256i salt) { return splitblock_mask_of(u, salt, _mm256_set1_epi32(1)); }

/* Keys are this far ahead when their blocks are prefetched: about a memory
 * latency of the loop's work (Boost.Bloom's bulk path keeps 64 lines in
 * flight for a one-line block; a run here is at most 256 keys). */
#define SPLITBLOCK_AHEAD 32

/* Every key's block (its first word) into first[], and the first
 * SPLITBLOCK_AHEAD blocks prefetched (for writing when rw). */
LOOP void splitblock_firsts(const uint64_t *words, uint64_t blocks, const uint64_t *h1, size_t count, uint64_t *first,
                            int rw)
{
    for (size_t j = 0; j < count; j++)
        first[j] = splitblock_word(h1[j], blocks);
    for (size_t j = 0; j < count && j < SPLITBLOCK_AHEAD; j++) {
        if (rw)
            __builtin_prefetch(&words[first[j]], 1, 3);
        else
            __builtin_prefetch(&words[first[j]], 0, 3);
    }
}

void avx2_splitblock_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    (void)h2; /* a split block key's bits come from h1 alone */
    uint64_t *words = f->words;
    const __m256i salt = split_salt();
    uint64_t first[AVX2_MAX_KEYS];
    splitblock_firsts(words, f->blocks, h1, count, first, 1);
    for (size_t j = 0; j < count; j++) {
        if (j + SPLITBLOCK_AHEAD < count)
            __builtin_prefetch(&words[first[j + SPLITBLOCK_AHEAD]], 1, 3);
        __m256i *block = (__m256i *)(void *)&words[first[j]];
        _mm256_store_si256(block, _mm256_or_si256(_mm256_load_si256(block), splitblock_mask(h1[j], salt)));
    }
}

size_t avx2_splitblock_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                             unsigned char *answer)
{
    (void)h2;
    const uint64_t *words = f->words;
    const __m256i salt = split_salt();
    uint64_t first[AVX2_MAX_KEYS];
    splitblock_firsts(words, f->blocks, h1, count, first, 0);
    size_t yes = 0;
    for (size_t j = 0; j < count; j++) {
        if (j + SPLITBLOCK_AHEAD < count)
            __builtin_prefetch(&words[first[j + SPLITBLOCK_AHEAD]], 0, 3);
        const __m256i block = _mm256_load_si256((const __m256i *)(const void *)&words[first[j]]);
        const int all = _mm256_testc_si256(block, splitblock_mask(h1[j], salt)); /* mask & ~block == 0 */
        yes += (size_t)all;
        if (answer != NULL)
            answer[j] = (unsigned char)all;
    }
    return yes;
}

/* ---- split block, 8-byte keys hashed in the loop (xxh3_64, mulx64) ---------- */

/* a c mod 2^64 in every lane: a_lo c_lo + ((a_hi c_lo + a_lo c_hi) << 32),
 * of which the cross terms count only mod 2^32: one vpmulld of a by c's
 * halves swapped gives lo32(a_lo c_hi) and lo32(a_hi c_lo) in each lane's
 * two dwords, a vpshufd and a vpaddd their sum in both, the low one masked
 * off; with a_lo c_lo (vpmuludq) six operations, two of them products and
 * none a shift, where the three vpmuludq form took seven, three and two. */
LOOP __m256i mul64_by(__m256i a, uint64_t c)
{
    const __m256i swapped = _mm256_set1_epi64x((long long)((c << 32) | (c >> 32)));
    const __m256i cross = _mm256_mullo_epi32(a, swapped);
    const __m256i sum = _mm256_add_epi32(cross, _mm256_shuffle_epi32(cross, _MM_SHUFFLE(2, 3, 0, 1)));
    const __m256i high = _mm256_blend_epi32(sum, _mm256_setzero_si256(), 0x55); /* the sum in the high dword */
    return _mm256_add_epi64(_mm256_mul_epu32(a, _mm256_set1_epi64x((long long)(uint32_t)c)), high);
}

/* Each lane's high 32 bits in its low half (the high half repeated), for a
 * vpmuludq, which reads only the low halves: a vpshufd, which any vector
 * pipe runs, where a shift takes one of the two the split block's masks
 * keep busy. */
LOOP __m256i high_halves_down(__m256i a) { return _mm256_shuffle_epi32(a, _MM_SHUFFLE(3, 3, 1, 1)); }

LOOP __m256i rotl64(__m256i a, int r)
{
    return _mm256_or_si256(_mm256_slli_epi64(a, r), _mm256_srli_epi64(a, 64 - r));
}

/* A rotation by 24 bits moves whole bytes: one vpshufb (byte i of the
 * result is byte (i - 3) mod 8 of its lane). */
LOOP __m256i rotl64_24(__m256i a)
{
    const __m256i order = _mm256_setr_epi8(5, 6, 7, 0, 1, 2, 3, 4, 13, 14, 15, 8, 9, 10, 11, 12, 5, 6, 7, 0, 1, 2,
                                           3, 4, 13, 14, 15, 8, 9, 10, 11, 12);
    return _mm256_shuffle_epi8(a, order);
}

/* XXH3_64bits_withSeed of four 8-byte keys x (little-endian words), the
 * same integers as libxxhash: for len = 8 it is XXH3_len_4to8_64b, i.e.
 * rrmxmx(((x << 32) | (x >> 32)) ^ bitflip, 8) with bitflip from the seed
 * (xxh3_8_bitflip).  The halves' swap is one vpshufd; the two 64-bit
 * products by the rrmxmx constant are mul64_by. */
#define RRMXMX_PRIME 0x9FB21C651E98DF25ULL
LOOP __m256i xxh3_8_x4(__m256i x, __m256i bitflip)
{
    __m256i h = _mm256_xor_si256(_mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)), bitflip);
    h = _mm256_xor_si256(h, _mm256_xor_si256(rotl64(h, 49), rotl64_24(h)));
    h = mul64_by(h, RRMXMX_PRIME);
    h = _mm256_xor_si256(h, _mm256_add_epi64(_mm256_srli_epi64(h, 35), _mm256_set1_epi64x(8)));
    h = mul64_by(h, RRMXMX_PRIME);
    return _mm256_xor_si256(h, _mm256_srli_epi64(h, 28));
}

/* 1 when key j of the batch is the j-th 8-byte slot of its `packed` array
 * for every j (what keyset_fill makes): then four keys are one load.  A
 * batch marked packed8 says so at once; else four pointers a compare, a
 * full batch (the usual one) without lane masks, a short one with those
 * past the count loaded and expected as zero. */
static int batch_packed(const key_batch *keys)
{
    if (keys->packed8)
        return 1;
    const __m256i four_slots = _mm256_set1_epi64x(32);
    __m256i want = _mm256_add_epi64(_mm256_set1_epi64x((long long)(uintptr_t)keys->packed[0]),
                                    _mm256_setr_epi64x(0, 8, 16, 24));
    __m256i differ = _mm256_setzero_si256();
    if (keys->count == KEY_BATCH) { /* unrolled: a load, a xor and an or a step */
#pragma GCC unroll 8
        for (size_t j = 0; j < KEY_BATCH; j += 4, want = _mm256_add_epi64(want, four_slots))
            differ = _mm256_or_si256(
                differ, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)&keys->ptr[j]), want));
        return _mm256_testz_si256(differ, differ);
    }
    for (size_t j = 0; j < keys->count; j += 4, want = _mm256_add_epi64(want, four_slots)) {
        const __m256i live = lanes4(keys->count - j);
        const __m256i ptr = _mm256_maskload_epi64((const long long *)(const void *)&keys->ptr[j], live);
        differ = _mm256_or_si256(differ, _mm256_xor_si256(ptr, _mm256_and_si256(live, want)));
    }
    return _mm256_testz_si256(differ, differ);
}

/* Keys j .. j+3 of the batch as little-endian words, zero past the last
 * (a zero lane hashes to some block inside the filter: prefetched, never
 * set or tested). */
LOOP __m256i batch_keys4(const key_batch *keys, size_t j, int packed)
{
    const size_t left = keys->count - j;
    if (packed && left >= 4)
        return _mm256_loadu_si256((const __m256i *)(const void *)keys->packed[j]);
    if (packed)
        return _mm256_maskload_epi64((const long long *)(const void *)keys->packed[j], lanes4(left));
    if (left >= 4) /* four loads into lanes: four stores and a wide load would stall its forwarding */
        return _mm256_setr_epi64x((long long)XXH_readLE64(keys->ptr[j]), (long long)XXH_readLE64(keys->ptr[j + 1]),
                                  (long long)XXH_readLE64(keys->ptr[j + 2]), (long long)XXH_readLE64(keys->ptr[j + 3]));
    uint64_t x[4] = {0, 0, 0, 0};
    for (size_t l = 0; l < 4 && l < left; l++)
        x[l] = XXH_readLE64(keys->ptr[j + l]);
    return _mm256_loadu_si256((const __m256i *)(const void *)x);
}

/* mulx64 (hashes.h) of four 8-byte keys x (little-endian words), salt4
 * = mulx64_salt(seed) in every lane: fold(a) = hi(a C) ^ lo(a C) for
 * a = x ^ salt.  AVX2 has no 64 x 64 -> 128-bit product, so it is built
 * from the four 32 x 32-bit ones of a = a1 2^32 + a0, C = c1 2^32 + c0
 * (four vpmuludq for four keys, against one scalar mulx a key), the
 * carries gathered in two sums that cannot overflow 64 bits
 * (each product <= 2^64 - 2^33 + 1, each added part < 2^32):
 *   t  = a1 c0 + (a0 c0 >> 32)
 *   u  = a0 c1 + lo32(t)
 *   lo = (u << 32) | lo32(a0 c0)
 *   hi = a1 c1 + (t >> 32) + (u >> 32).
 * Ten operations past the products where summing the three middle terms
 * at once took thirteen.  mulx64_x4_parts stops at p00 = a0 c0, u and hi,
 * of which mulx64_x4 makes lo ^ hi, and split_hash_halves the two halves
 * a split block key uses; a1 by high_halves_down. */
typedef struct {
    __m256i p00, u, hi;
} mulx64_parts;

LOOP mulx64_parts mulx64_x4_parts(__m256i x, __m256i salt4)
{
    const __m256i c0 = _mm256_set1_epi64x((long long)(MULX64_C & 0xFFFFFFFFu));
    const __m256i c1 = _mm256_set1_epi64x((long long)(MULX64_C >> 32));
    const __m256i a = _mm256_xor_si256(x, salt4), a1 = high_halves_down(a);
    const __m256i p00 = _mm256_mul_epu32(a, c0), p01 = _mm256_mul_epu32(a, c1);
    const __m256i p10 = _mm256_mul_epu32(a1, c0), p11 = _mm256_mul_epu32(a1, c1);
    const __m256i t = _mm256_add_epi64(p10, _mm256_srli_epi64(p00, 32));
    const __m256i u = _mm256_add_epi64(p01, _mm256_blend_epi32(t, _mm256_setzero_si256(), 0xAA)); /* + lo32(t) */
    const __m256i hi = _mm256_add_epi64(p11, _mm256_add_epi64(_mm256_srli_epi64(t, 32), _mm256_srli_epi64(u, 32)));
    return (mulx64_parts){p00, u, hi};
}

LOOP __m256i mulx64_x4(__m256i x, __m256i salt4)
{
    const mulx64_parts p = mulx64_x4_parts(x, salt4);
    const __m256i lo = _mm256_blend_epi32(p.p00, _mm256_slli_epi64(p.u, 32), 0xAA); /* odd dwords from u << 32 */
    return _mm256_xor_si256(lo, p.hi);
}

/* The hash of four keys x, as the loops are stamped for it (keyed4:
 * XXH3's bitflip or mulx64's salt in every lane, computed once a call:
 * keys8_constant). */
LOOP __m256i keys8_hash_x4(keys8_hash hash, __m256i x, __m256i keyed4)
{
    return hash == KEYS8_MULX64 ? mulx64_x4(x, keyed4) : xxh3_8_x4(x, keyed4);
}

/* Keys between a key's hashing (with its block's prefetch) and its set or
 * test, in groups of four: SPLIT_RING groups, 64 keys, about a memory
 * latency of the loop's work (Boost.Bloom's bulk path keeps 64 one-line
 * blocks in flight; 32 and 64 keys measured alike in the last-level
 * cache, 64 faster beyond it: docs/PERFORMANCE.md). */
#define SPLIT_RING (SPLIT_RING_KEYS / 4)

/* A block's fetch shape (filters.h's fetch_shape: the core's plan and the
 * filter's size pick it): beyond the last-level cache a ring of
 * SPLIT_FAR_RING groups (128 keys), the second prefetch (from the slot)
 * SPLIT_NEAR groups (32 keys) before the work.  Beyond the last-level cache
 * the two steps were faster on a Zen 3 than one prefetch into L1 64 or 128
 * keys ahead (the loops and a synthetic one: docs/PERFORMANCE.md,
 * 2026-12-05, session 14; 128 keys rather than 96 on a Zen 5, session 16),
 * the one step faster on a Zen 5 (session 17), as the AVX-512 loop's had
 * been; within it, SHAPE_AT_HASH's prefetches paid on the Zen 3, and on the
 * Zen 5 only SHAPE_FROM_RING's (session 17): a query's beyond L2 since
 * the loop's blocks are word indexes and its prefetches written out
 * (session 18), an insert's too (session 24; before, from twice L2).  The
 * bits are the same whichever. */
#define SPLIT_FAR_RING (SPLIT_FAR_RING_KEYS / 4)
#define SPLIT_NEAR 8
/* SHAPE_LATE_L2's ring (split_ymm.h's split_ring_keys). */
#define SPLIT_LATE_RING (SPLIT_LATE_RING_KEYS / 4)

/* The groups in flight: slot g holds words whose low 32 bits are a group's
 * hashes' (the masks': split_hash_halves) and where its blocks are
 * (split_place4: split_lanes's by_address says how), one 64-byte line a
 * group that one register addresses
 * (the two in arrays of their own took a second base, a lea a group);
 * the ring beside them where its answers go and how many of its four
 * lanes are keys (four but in a short batch's last group); SPLIT_RING,
 * SPLIT_FAR_RING or SPLIT_LATE_RING slots used. */
typedef struct {
    _Alignas(64) uint64_t h[4];
    uint64_t where[4];
} split_slot;

typedef struct {
    split_slot slot[SPLIT_LATE_RING];
    size_t out[SPLIT_LATE_RING];
    unsigned live[SPLIT_LATE_RING];
} split_ring;

/* A shape's ring slots (split_ymm.h's split_ring_keys). */
LOOP size_t split_ring_slots(fetch_shape shape) { return split_ring_keys(shape) / 4; }

/* What a ring loop's every step uses: in every lane the filter's block
 * count, the hash's per-call constant (keys8_constant), the split block's
 * salts, 1 (the masks' bit: split_one), and the filter's address and the
 * mask that split_place4's where takes (split_ymm.h's split_block_of); the
 * filter's words; and whether the slots hold addresses (an insert's loop:
 * a constant at each call). */
typedef struct {
    __m256i blocks, keyed, salt, one, base, aligned;
    uint64_t *words;
    int by_address;
} split_lanes;

LOOP split_lanes split_lanes_of(uint64_t *words, uint64_t blocks, uint64_t keyed, int insert)
{
    return (split_lanes){_mm256_set1_epi64x((long long)blocks),
                         _mm256_set1_epi64x((long long)keyed),
                         split_salt(),
                         split_one(),
                         _mm256_set1_epi64x((long long)(uintptr_t)words),
                         _mm256_set1_epi64x(insert ? SPLIT_BY_ADDRESS_ALIGNED : SPLIT_BY_WORD_ALIGNED),
                         words,
                         insert};
}

/* Key l's block, from where a slot says it is. */
LOOP void *split_block_at(const split_lanes *c, const uint64_t *where, unsigned l)
{
    return split_block_of(c->words, where[l], c->by_address);
}

/* A group's four blocks prefetched, written out: gcc kept a loop of four
 * here, 24 instructions a group where these are 8 (session 18). */
LOOP void split_prefetch4(const split_lanes *c, const uint64_t *where, int fetch)
{
    split_prefetch(split_block_at(c, where, 0), fetch);
    split_prefetch(split_block_at(c, where, 1), fetch);
    split_prefetch(split_block_at(c, where, 2), fetch);
    split_prefetch(split_block_at(c, where, 3), fetch);
}

/* The blocks of the group worked SPLIT_NEAR steps from now (slot g of the
 * ring) into L1 (split_from_slot's shapes). */
LOOP void split_near(const split_lanes *c, const split_ring *r, size_t g, int fetch)
{
    split_prefetch4(c, r->slot[g].where, fetch);
}

/* In a loop's drain (the ring's last groups worked, none placed), group
 * i + SPLIT_NEAR's blocks prefetched from its slot as the loop's steps do:
 * the groups worked past the drain's first SPLIT_NEAR steps have no loop
 * step that far before them, and went to their work unfetched (32 keys a
 * call in the ring of SPLIT_RING), their misses (an insert's stores held
 * in the store queue) all at the call's end. */
LOOP void split_drain_near(const split_lanes *c, const split_ring *r, size_t i, size_t groups, size_t slots,
                           fetch_shape shape, int insert)
{
    if (split_from_slot(shape) && i + SPLIT_NEAR < groups)
        split_near(c, r, (i + SPLIT_NEAR) % slots, split_l1_fetch(insert));
}

/* A late shape's prefetch (split_ymm.h's split_late) of the group placed
 * SPLIT_LATE groups before group `placed`, from its slot. */
#define SPLIT_LATE (SPLIT_LATE_KEYS / 4)
LOOP void split_late4(const split_lanes *c, const split_ring *r, size_t placed, size_t slots, fetch_shape shape,
                      int insert)
{
    if (split_late(shape) && placed >= SPLIT_LATE)
        split_prefetch4(c, r->slot[(placed - SPLIT_LATE) % slots].where, split_place_fetch(shape, insert));
}

/* At a loop's end, the late prefetches of its last SPLIT_LATE groups,
 * before the drain works them. */
LOOP void split_late_rest(const split_lanes *c, const split_ring *r, size_t groups, size_t slots, fetch_shape shape,
                          int insert)
{
    if (split_late(shape))
        for (size_t i = groups > SPLIT_LATE ? groups - SPLIT_LATE : 0; i < groups; i++)
            split_prefetch4(c, r->slot[i % slots].where, split_place_fetch(shape, insert));
}

/* The two halves of four keys' hashes h that a split block key uses, each
 * in the low 32 bits of its 64-bit lane: *low's lo32(h) (the mask's) and
 * *high's hi32(h) (the block's; vpmuludq reads only the low halves).  For
 * mulx64, h = lo ^ hi with lo = (lo32(u) << 32) | lo32(p00), so
 * lo32(h) = lo32(p00 ^ hi) and hi32(h) = lo32(u ^ (hi >> 32)): three
 * operations where h and its high half brought down took four. */
LOOP void split_hash_halves(keys8_hash hash, __m256i x, __m256i keyed4, __m256i *low, __m256i *high)
{
    if (hash == KEYS8_MULX64) {
        const mulx64_parts p = mulx64_x4_parts(x, keyed4);
        *low = _mm256_xor_si256(p.p00, p.hi);
        *high = _mm256_xor_si256(p.u, high_halves_down(p.hi));
    } else {
        *low = xxh3_8_x4(x, keyed4);
        *high = high_halves_down(*low);
    }
}

/* Four keys x hashed into a slot: the words whose low halves are their
 * hashes' (split_hash_halves: the masks'), and where each key's block is
 * (split_ymm.h's split_block_of); their blocks prefetched. */
LOOP void split_place4(keys8_hash hash, const split_lanes *c, __m256i x, split_slot *out, int fetch)
{
    __m256i low, high;
    split_hash_halves(hash, x, c->keyed, &low, &high);
    const __m256i product = _mm256_mul_epu32(high, c->blocks);
    const __m256i where =
        c->by_address
            ? _mm256_add_epi64(_mm256_and_si256(_mm256_srli_epi64(product, SPLIT_BY_ADDRESS_SHIFT), c->aligned), c->base)
            : _mm256_and_si256(_mm256_srli_epi64(product, SPLIT_BY_WORD_SHIFT), c->aligned);
    _mm256_storeu_si256((__m256i *)(void *)out->h, low);
    _mm256_storeu_si256((__m256i *)(void *)out->where, where);
    split_prefetch4(c, out->where, fetch);
}

/* A group set or tested from its slot (h, whose low halves are its hashes',
 * and where its blocks are): its first `live` keys, their answers to
 * answer[0 ..] when answer is not NULL. */
LOOP unsigned split_work4(const split_lanes *c, const split_slot *s, unsigned live, unsigned char *answer, int insert)
{
    const uint64_t *const h = s->h, *const where = s->where;
    unsigned yes = 0;
#define SPLIT_ONE(l)                                                                                         \
    do {                                                                                                     \
        const unsigned all = split_key_work(c->salt, c->one, h[l], split_block_at(c, where, l), insert);     \
        yes += all;                                                                                          \
        if (answer != NULL)                                                                                  \
            answer[l] = (unsigned char)all;                                                                  \
    } while (0)
    if (live == 4) {
        SPLIT_ONE(0);
        SPLIT_ONE(1);
        SPLIT_ONE(2);
        SPLIT_ONE(3);
    } else {
        for (unsigned l = 0; l < live; l++)
            SPLIT_ONE(l);
    }
#undef SPLIT_ONE
    return yes;
}

/* Group i of a run (counted from the call's first) set or tested from its
 * slot, the ring (of `slots`) keeping its key count and the place of its
 * answers. */
LOOP unsigned split_work_group(const split_lanes *c, const split_ring *r, size_t i, size_t slots, unsigned char *answer,
                               int insert)
{
    const size_t g = i % slots;
    return split_work4(c, &r->slot[g], r->live[g], answer != NULL ? answer + r->out[g] : NULL, insert);
}

/* 1 when every batch is full and its keys packed (what keyset_fill makes
 * for a bench or a run): then split_ring_full. */
static int batches_full_packed(const key_batch *batches, size_t count)
{
    for (size_t t = 0; t < count; t++)
        if (batches[t].count != KEY_BATCH || !batch_packed(&batches[t]))
            return 0;
    return 1;
}

/* One loop over the keys, four a step: the group hashed SPLIT_RING steps
 * ago is set or tested, then the next group is hashed (and its blocks
 * prefetched, or a late shape's the blocks of the group SPLIT_LATE before
 * it) into its slot.  Each step mixes the hash's arithmetic with
 * the blocks' loads and stores, and issues its prefetches one a key among
 * them (a burst of a batch's prefetches, then its work, measured slower:
 * docs/PERFORMANCE.md).  The hash and the fetch shape are constants at
 * each call: one loop stamped per choice. */
LOOP size_t split_ring_run(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed,
                           const key_batch *batches, size_t count, unsigned char *answer, int insert,
                           fetch_shape shape)
{
    const split_lanes c = split_lanes_of(words, blocks, keyed, insert);
    const size_t slots = split_ring_slots(shape);
    split_ring ring;
    size_t yes = 0, done = 0, groups = 0;
    for (size_t t = 0; t < count; t++) {
        const key_batch *keys = &batches[t];
        const size_t n = keys->count;
        const int packed = batch_packed(keys);
        for (size_t j = 0; j < n; j += 4, groups++) {
            const size_t g = groups % slots;
            if (groups >= slots)
                yes += split_work_group(&c, &ring, groups - slots, slots, answer, insert);
            if (split_from_slot(shape) && groups + SPLIT_NEAR >= slots)
                split_near(&c, &ring, (groups + SPLIT_NEAR) % slots, split_l1_fetch(insert));
            split_place4(hash, &c, batch_keys4(keys, j, packed), &ring.slot[g],
                         split_hash_fetch(shape, insert));
            split_late4(&c, &ring, groups, slots, shape, insert);
            ring.out[g] = done + j;
            ring.live[g] = n - j >= 4 ? 4 : (unsigned)(n - j);
        }
        done += n;
    }
    split_late_rest(&c, &ring, groups, slots, shape, insert);
    for (size_t i = groups > slots ? groups - slots : 0; i < groups; i++) {
        split_drain_near(&c, &ring, i, groups, slots, shape, insert);
        yes += split_work_group(&c, &ring, i, slots, answer, insert);
    }
    return yes;
}

/* split_ring_run for full batches of packed keys (batches_full_packed):
 * a batch is 8 groups, and the ring 2 batches (4 in the far shapes, 8 in
 * SHAPE_LATE_L2: split_ring_keys), so batch t's groups take slots 8 (t mod batches) + 0 .. 7,
 * and the 8 steps of a batch, unrolled, address them from the batch's base
 * (no key counts or answer places kept); step j of batch t works the group
 * hashed a ring earlier into the same slot before it places its own. */
_Static_assert(SPLIT_RING == 2 * KEY_BATCH / 4 && SPLIT_FAR_RING == 4 * KEY_BATCH / 4 &&
                   SPLIT_LATE_RING == 8 * KEY_BATCH / 4 && SPLIT_NEAR == KEY_BATCH / 4,
               "the rings are 2, 4 and 8 full batches of groups, the near prefetch one batch ahead");
/* Batch t of split_ring_full: its 8 groups placed into their slots, each
 * after the group placed a ring earlier in the same slot is worked, when
 * `work`: a constant at each call, since the first ring_batches batches
 * have none (a test of t in every unrolled step was two instructions a
 * group); the next batch's groups are prefetched from their slots where
 * split_near_due says.  The empty asm keeps one running count: without it
 * gcc summed the 8 groups' counts at the batch's end and spilled them to
 * the stack. */
LOOP size_t split_full_batch(keys8_hash hash, const split_lanes *c, split_ring *ring, size_t slots,
                             size_t ring_batches, const key_batch *batch, size_t t, unsigned char *out, int insert,
                             fetch_shape shape, int work)
{
    split_slot *const slot = ring->slot + (t % ring_batches) * (KEY_BATCH / 4);
    const size_t next = ((t + 1) % ring_batches) * (KEY_BATCH / 4);
    const unsigned char(*key)[8] = batch->packed;
    size_t yes = 0;
#pragma GCC unroll 8
    for (size_t j = 0; j < KEY_BATCH / 4; j++) {
        if (work) {
            yes += split_work4(c, &slot[j], 4, out != NULL ? out + 4 * j : NULL, insert);
            __asm__("" : "+r"(yes));
        }
        if (split_near_due(shape, work, t, ring_batches)) /* the group worked next batch: into L1 */
            split_near(c, ring, next + j, split_l1_fetch(insert));
        split_place4(hash, c, _mm256_loadu_si256((const __m256i *)(const void *)key[4 * j]), &slot[j],
                     split_hash_fetch(shape, insert));
        split_late4(c, ring, t * (KEY_BATCH / 4) + j, slots, shape, insert);
    }
    return yes;
}

LOOP size_t split_ring_full(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed,
                            const key_batch *batches, size_t count, unsigned char *answer, int insert,
                            fetch_shape shape)
{
    const split_lanes c = split_lanes_of(words, blocks, keyed, insert);
    const size_t slots = split_ring_slots(shape), ring_batches = slots / (KEY_BATCH / 4);
    split_ring ring;
    size_t yes = 0, t = 0;
    for (; t < count && t < ring_batches; t++)
        split_full_batch(hash, &c, &ring, slots, ring_batches, &batches[t], t, NULL, insert, shape, 0);
    for (; t < count; t++)
        yes += split_full_batch(hash, &c, &ring, slots, ring_batches, &batches[t], t,
                                answer != NULL ? answer + (t - ring_batches) * KEY_BATCH : NULL, insert, shape, 1);
    const size_t groups = count * (KEY_BATCH / 4);
    split_late_rest(&c, &ring, groups, slots, shape, insert);
    for (size_t i = groups > slots ? groups - slots : 0; i < groups; i++) {
        split_drain_near(&c, &ring, i, groups, slots, shape, insert);
        yes += split_work4(&c, &ring.slot[i % slots], 4,
                           answer != NULL ? answer + 4 * i : NULL, insert);
    }
    return yes;
}

/* The keys of the batches set or tested: a call of a few keys one at a
 * time (nothing to overlap), else split_ring_full or split_ring_run, with
 * the fetch shape its caller chose for the filter's size and the core. */
LOOP size_t splitblock_keys8(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t seed,
                             const key_batch *batches, size_t count, unsigned char *answer, int insert,
                             fetch_shape shape)
{
    const uint64_t keyed = keys8_constant(hash, seed);
    if (count == 1 && batches[0].count < 4) {
        const __m256i salt = split_salt();
        size_t yes = 0;
        for (size_t j = 0; j < batches[0].count; j++) {
            const unsigned all = split_lone_key(hash, words, blocks, keyed, salt, batches[0].ptr[j], insert);
            yes += all;
            if (answer != NULL)
                answer[j] = (unsigned char)all;
        }
        return yes;
    }
    if (batches_full_packed(batches, count))
        return split_ring_full(hash, words, blocks, keyed, batches, count, answer, insert, shape);
    return split_ring_run(hash, words, blocks, keyed, batches, count, answer, insert, shape);
}

LOOP void split_insert_key8(keys8_hash hash, filter *f, uint64_t keyed, const unsigned char *key)
{
    split_lone_key(hash, f->words, f->blocks, keyed, split_salt(), key, 1);
}

LOOP int split_query_key8(keys8_hash hash, const filter *f, uint64_t keyed, const unsigned char *key)
{
    return (int)split_lone_key(hash, f->words, f->blocks, keyed, split_salt(), key, 0);
}

/* A key of any length by its hash h (filters.h's filter_key8). */
static int split_insert_hash(filter *f, uint64_t h)
{
    split_hashed_key(f->words, f->blocks, split_salt(), h, 1);
    return 0;
}

static int split_query_hash(const filter *f, uint64_t h)
{
    return (int)split_hashed_key(f->words, f->blocks, split_salt(), h, 0);
}

FILTER_KEY8_CALLS(avx2_splitblock_key8, split_insert_key8, split_query_key8, split_insert_hash, split_query_hash)

/* The shapes avx2.c's loop is tuned over (fetch_tune.c) beyond L2. */
static const int SPLIT_SHAPES[] = {SHAPE_AT_HASH, SHAPE_FROM_RING, SHAPE_FAR_ONE_STEP, SHAPE_FAR_TWO_STEPS,
                                   SHAPE_FAR_L2, SHAPE_LATE_L2};
_Static_assert(sizeof SPLIT_SHAPES / sizeof *SPLIT_SHAPES <= FETCH_TUNE_CHOICES_MAX, "a tuning slot times them all");

/* One hash's loops, stamped per fetch shape and, for a query, with and
 * without the answers' stores: the shape the filter's tuning gives
 * (fetch_tune.c), or filters.h's filter_fetch_shape by the core's plan
 * where there is none. */
LOOP size_t split_stamp(keys8_hash hash, const filter *f, uint64_t seed, const key_batch *batches, size_t count,
                        unsigned char *answer, int insert)
{
    uint64_t *const w = f->words;
    const uint64_t nb = f->blocks;
    const tune_choices shapes = {SPLIT_SHAPES, sizeof SPLIT_SHAPES / sizeof *SPLIT_SHAPES};
    const fetch_trial trial = fetch_tune_shape_begin(f, TUNE_LOOP_AVX2, insert, shapes,
                                                     filter_fetch_shape(f, filter_fetch_plan()),
                                                     key_batches_keys(batches, count));
    size_t yes;
    switch ((fetch_shape)trial.choice) {
    case SHAPE_AT_HASH:
        yes = splitblock_keys8(hash, w, nb, seed, batches, count, answer, insert, SHAPE_AT_HASH);
        break;
    case SHAPE_FROM_RING:
        yes = splitblock_keys8(hash, w, nb, seed, batches, count, answer, insert, SHAPE_FROM_RING);
        break;
    case SHAPE_FAR_ONE_STEP:
        yes = splitblock_keys8(hash, w, nb, seed, batches, count, answer, insert, SHAPE_FAR_ONE_STEP);
        break;
    case SHAPE_FAR_TWO_STEPS:
        yes = splitblock_keys8(hash, w, nb, seed, batches, count, answer, insert, SHAPE_FAR_TWO_STEPS);
        break;
    case SHAPE_FAR_L2:
        yes = splitblock_keys8(hash, w, nb, seed, batches, count, answer, insert, SHAPE_FAR_L2);
        break;
    case SHAPE_LATE_L2:
        yes = splitblock_keys8(hash, w, nb, seed, batches, count, answer, insert, SHAPE_LATE_L2);
        break;
    default:
        yes = splitblock_keys8(hash, w, nb, seed, batches, count, answer, insert, SHAPE_NONE);
    }
    fetch_tune_end(&trial, yes);
    return yes;
}

void avx2_splitblock_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count)
{
    if (hash == KEYS8_MULX64)
        split_stamp(KEYS8_MULX64, f, seed, batches, count, NULL, 1);
    else
        split_stamp(KEYS8_XXH3_64, f, seed, batches, count, NULL, 1);
}

size_t avx2_splitblock_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                   size_t count, unsigned char *answer)
{
    if (answer == NULL)
        return hash == KEYS8_MULX64 ? split_stamp(KEYS8_MULX64, f, seed, batches, count, NULL, 0)
                                    : split_stamp(KEYS8_XXH3_64, f, seed, batches, count, NULL, 0);
    return hash == KEYS8_MULX64 ? split_stamp(KEYS8_MULX64, f, seed, batches, count, answer, 0)
                                : split_stamp(KEYS8_XXH3_64, f, seed, batches, count, answer, 0);
}

/* mix64 (pcg.h) in every lane, its two products mod 2^64 by mul64_by. */
LOOP __m256i mix64_x4(__m256i x)
{
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 30));
    x = mul64_by(x, MIX64_MUL1);
    x = _mm256_xor_si256(x, _mm256_srli_epi64(x, 27));
    x = mul64_by(x, MIX64_MUL2);
    return _mm256_xor_si256(x, _mm256_srli_epi64(x, 31));
}

/* avx2_keys8_split for one hash (a constant: the loop stamped per hash). */
LOOP void keys8_split(keys8_hash hash, uint64_t seed, const key_batch *keys, uint64_t *h1, uint64_t *h2)
{
    const __m256i keyed = _mm256_set1_epi64x((long long)keys8_constant(hash, seed));
    const int packed = batch_packed(keys);
    for (size_t j = 0; j < keys->count; j += 4) {
        const __m256i h = keys8_hash_x4(hash, batch_keys4(keys, j, packed), keyed), live = lanes4(keys->count - j);
        _mm256_maskstore_epi64((long long *)(void *)(h1 + j), live, h);
        _mm256_maskstore_epi64((long long *)(void *)(h2 + j), live, mix64_x4(h));
    }
}

int avx2_keys8_split(keys8_hash hash, uint64_t seed, const key_batch *keys, uint64_t *h1, uint64_t *h2)
{
    if (!batch_all_8_bytes(keys))
        return -1;
    if (hash == KEYS8_MULX64)
        keys8_split(KEYS8_MULX64, seed, keys, h1, h2);
    else
        keys8_split(KEYS8_XXH3_64, seed, keys, h1, h2);
    return 0;
}

/* 1 when every key of the batches is 8 bytes long: a batch marked packed8
 * at once, else eight lengths a compare, the lanes past a batch's count
 * masked off (the groups past it not read). */
int avx2_batches_keys8(const key_batch *batches, size_t count)
{
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), eight = _mm256_set1_epi32(8);
    __m256i other = _mm256_setzero_si256();
    for (size_t b = 0; b < count; b++) {
        const uint32_t *len = batches[b].len;
        if (batches[b].packed8)
            continue;
        if (batches[b].count == KEY_BATCH) { /* the usual batch: no lane masks */
            for (size_t j = 0; j < KEY_BATCH; j += 8)
                other = _mm256_or_si256(
                    other, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)&len[j]), eight));
            continue;
        }
        const __m256i n = _mm256_set1_epi32((int)batches[b].count);
        for (size_t j = 0; j < batches[b].count; j += 8) {
            const __m256i live = _mm256_cmpgt_epi32(n, _mm256_add_epi32(index, _mm256_set1_epi32((int)j)));
            const __m256i l8 = _mm256_loadu_si256((const __m256i *)(const void *)&len[j]);
            other = _mm256_or_si256(other, _mm256_and_si256(live, _mm256_xor_si256(l8, eight)));
        }
    }
    return _mm256_testz_si256(other, other);
}

#endif /* BLOOMLAB_X86 */
