/* avx512.c -- the loops of avx512.h.  The Makefile compiles this file, and
 * only this one, for AVX-512 (its ISA_FLAGS_avx512), whatever the build's
 * flags, so any instruction in it may be AVX-512: nothing here may run
 * unless avx512_usable() (cpu.h's run-time choice) says the CPU has it.
 * Off x86 the file is empty and nothing calls it.
 *
 * Lanes.  A zmm register holds eight 64-bit lanes, one key each.  A group
 * of fewer than eight keys (a batch's tail) runs with the missing lanes
 * masked: masked gathers load nothing for them and nothing is written for
 * them, so no key outside the batch is read or set.
 *
 * The reduction.  pos = floor(u m / 2^64) needs the high half of a 64 x 64
 * product, which AVX-512 has no instruction for.  With u = uh 2^32 + ul and
 * m = mh 2^32 + ml,
 *     u m = uh mh 2^64 + (uh ml + ul mh) 2^32 + ul ml,
 * and for m < 2^32 (mh = 0: every filter below 2^32 bits, and the block
 * count of every blocked512 filter below 2^41 bits) the high half is
 *     (uh ml + hi32(ul ml)) >> 32,
 * two vpmuludq products whose sum cannot overflow: uh ml + hi32(ul ml) < 2^64.
 * A standard filter of 2^32 bits or more takes all four products
 * (reduce_lanes_wide), and its positions, like a blocked512 filter's past
 * 2^32 bits, are fetched by 64-bit gathers of eight lanes instead of 32-bit
 * gathers of sixteen.
 */
#include "filter/avx512.h"
#include "filter/fetch_tune.h"
#include "filter/filters.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashes.h"
#include "filter/batch_hash.h" /* XXH3 inlined, keys8_constant */

#if BLOOMLAB_X86
#if !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__) || !defined(__BMI2__)
#error "avx512.c is compiled with -mavx512f -mavx512dq -mavx512vl -mavx2 -mbmi2 (the Makefile's ISA_FLAGS_avx512)"
#endif
#include <immintrin.h>

#include "filter/live_keys.h"
#include "filter/split_ymm.h"

#define LOOP static inline __attribute__((always_inline))

/* Lanes 0 .. count-1 of a group (count <= 8). */
LOOP __mmask8 lanes_of(size_t count) { return (__mmask8)(count >= 8 ? 0xFF : (1u << count) - 1); }
LOOP __mmask16 lanes_of16(size_t count) { return (__mmask16)(count >= 16 ? 0xFFFF : (1u << count) - 1); }

/* ---- hashing --------------------------------------------------------------- */

/* XXH3_len_4to8_64b for len = 8 (xxhash.h, XXH3 specification 0.8): the two
 * 32-bit halves swapped, xored with the seeded secret, then rrmxmx. */
LOOP __m512i xxh3_8_lanes(__m512i key, __m512i bitflip)
{
    const __m512i prime_mx2 = _mm512_set1_epi64((long long)0x9FB21C651E98DF25ULL);
    __m512i h = _mm512_xor_si512(_mm512_rol_epi64(key, 32), bitflip);
    h = _mm512_ternarylogic_epi64(h, _mm512_rol_epi64(h, 49), _mm512_rol_epi64(h, 24), 0x96); /* 3-way xor */
    h = _mm512_mullo_epi64(h, prime_mx2);
    h = _mm512_xor_si512(h, _mm512_add_epi64(_mm512_srli_epi64(h, 35), _mm512_set1_epi64(8)));
    h = _mm512_mullo_epi64(h, prime_mx2);
    return _mm512_xor_si512(h, _mm512_srli_epi64(h, 28));
}

/* mix64 of pcg.h (SplitMix64's finaliser). */
LOOP __m512i mix64_lanes(__m512i x)
{
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 30));
    x = _mm512_mullo_epi64(x, _mm512_set1_epi64((long long)MIX64_MUL1));
    x = _mm512_xor_si512(x, _mm512_srli_epi64(x, 27));
    x = _mm512_mullo_epi64(x, _mm512_set1_epi64((long long)MIX64_MUL2));
    return _mm512_xor_si512(x, _mm512_srli_epi64(x, 31));
}

/* mulx64 (hashes.h) of eight keys x, salt = mulx64_salt(seed) in every
 * lane: fold(a) = hi(a C) ^ lo(a C) for a = x ^ salt.  lo is one vpmullq
 * (AVX-512DQ); hi, which no instruction gives, is avx2.c's mulx64_x4 sum
 * of the four 32 x 32-bit products a1 c1 + (t >> 32) + (u >> 32), with
 * t = a1 c0 + (a0 c0 >> 32) and u = a0 c1 + lo32(t) (the carries' bounds
 * are there). */
LOOP __m512i mulx64_lanes(__m512i x, __m512i salt)
{
    const __m512i c = _mm512_set1_epi64((long long)MULX64_C);
    const __m512i c0 = _mm512_set1_epi64((long long)(MULX64_C & 0xFFFFFFFFu)), c1 = _mm512_srli_epi64(c, 32);
    const __m512i a = _mm512_xor_si512(x, salt), a1 = _mm512_srli_epi64(a, 32);
    const __m512i t = _mm512_add_epi64(_mm512_mul_epu32(a1, c0), _mm512_srli_epi64(_mm512_mul_epu32(a, c0), 32));
    const __m512i u = _mm512_add_epi64(_mm512_mul_epu32(a, c1), _mm512_maskz_mov_epi32(0x5555, t)); /* + lo32(t) */
    const __m512i high = _mm512_add_epi64(_mm512_srli_epi64(t, 32), _mm512_srli_epi64(u, 32));
    return _mm512_xor_si512(_mm512_mullo_epi64(a, c), _mm512_add_epi64(_mm512_mul_epu32(a1, c1), high));
}

/* Keys j .. j+7 of a batch of 8-byte keys (those there are; zero in the
 * other lanes): of a batch marked packed8, one load of its packed keys;
 * else the eight key pointers, then the eight keys through them. */
LOOP __m512i batch_keys8_lanes(const key_batch *keys, size_t j)
{
    const __m512i side_by_side = _mm512_setr_epi64(0, 8, 16, 24, 32, 40, 48, 56);
    const __mmask8 lanes = lanes_of(keys->count - j);
    if (keys->packed8)
        return _mm512_maskz_loadu_epi64(lanes, keys->packed[j]);
    const __m512i ptr = _mm512_maskz_loadu_epi64(lanes, keys->ptr + j);
    if (lanes == 0xFF && _mm512_cmpneq_epi64_mask(ptr, _mm512_add_epi64(_mm512_set1_epi64((long long)(intptr_t)keys->ptr[j]), side_by_side)) == 0)
        return _mm512_loadu_si512(keys->ptr[j]); /* packed keys (keys.h): one load */
    return _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, ptr, (const void *)0, 1);
}

long avx512_keys8(const key_batch *batches, size_t count, uint64_t *key)
{
    size_t at = 0;
    for (size_t b = 0; b < count; b++) {
        const key_batch *keys = &batches[b];
        if (!batch_all_8_bytes(keys))
            return -1;
        for (size_t j = 0; j < keys->count; j += 8)
            _mm512_mask_storeu_epi64(key + at + j, lanes_of(keys->count - j), batch_keys8_lanes(keys, j));
        at += keys->count;
    }
    return (long)at;
}

int avx512_keys8_split(keys8_hash hash, uint64_t seed, const key_batch *keys, uint64_t *h1, uint64_t *h2)
{
    if (!batch_all_8_bytes(keys))
        return -1;
    const __m512i keyed = _mm512_set1_epi64((long long)keys8_constant(hash, seed));
    for (size_t j = 0; j < keys->count; j += 8) {
        const __mmask8 lanes = lanes_of(keys->count - j);
        const __m512i x = batch_keys8_lanes(keys, j);
        const __m512i h = hash == KEYS8_MULX64 ? mulx64_lanes(x, keyed) : xxh3_8_lanes(x, keyed);
        _mm512_mask_storeu_epi64(h1 + j, lanes, h);
        _mm512_mask_storeu_epi64(h2 + j, lanes, mix64_lanes(h));
    }
    return 0;
}

/* Where a layout loop's keys come from: their (h1, h2), or the 8-byte keys
 * themselves, hashed in the loop (xxh3_64 + double, as
 * avx512_keys8_split).  The loops take each group's (h1, h2) one group
 * ahead of its probes (source_group), so that a key's hashing runs while
 * the previous group's lines come in: in L2, where the gathers wait on
 * misses and the hashing on the multiplier, the two overlap (hashing a
 * group ahead beat hashing first and hashing in the loop but not ahead:
 * docs/PERFORMANCE.md, "Moved from comments").  Beyond L2 the misses dwarf the hashing,
 * and the phased loops and every insert take hashed keys (the comment
 * above standard_query says why for inserts). */
typedef struct {
    const uint64_t *h1, *h2; /* the keys' hashes, or NULL: */
    const uint64_t *key;     /* the 8-byte keys, hashed here */
    __m512i bitflip;
} key_source;

LOOP key_source hashed_source(const uint64_t *h1, const uint64_t *h2)
{
    key_source s = {h1, h2, NULL, _mm512_setzero_si512()};
    return s;
}

LOOP key_source key8_source(uint64_t seed, const uint64_t *key)
{
    key_source s = {NULL, NULL, key, _mm512_set1_epi64((long long)xxh3_8_bitflip(seed))};
    return s;
}

/* The (h1, h2) of keys j .. j+7 in the lanes `lanes`; what the other
 * lanes hold is never used (the loops mask their gathers and answers). */
LOOP void source_group(const key_source *s, size_t j, __mmask8 lanes, __m512i *h1, __m512i *h2)
{
    if (s->key != NULL) {
        *h1 = xxh3_8_lanes(_mm512_maskz_loadu_epi64(lanes, s->key + j), s->bitflip);
        *h2 = mix64_lanes(*h1);
    } else {
        *h1 = _mm512_maskz_loadu_epi64(lanes, s->h1 + j);
        *h2 = _mm512_maskz_loadu_epi64(lanes, s->h2 + j);
    }
}

/* ---- the bit and counter layouts: positions, inserts, all-k queries -------- */

/* floor(u r / 2^64) in every lane, for r < 2^32 (the top comment): the
 * high 32 bits of uh r + hi32(ul r), which reduce_lanes_high leaves in
 * place (its low 32 bits are left over from the sum). */
LOOP __m512i reduce_lanes_high(__m512i u, __m512i r)
{
    const __m512i low = _mm512_mul_epu32(u, r);                         /* ul r */
    const __m512i high = _mm512_mul_epu32(_mm512_srli_epi64(u, 32), r); /* uh r */
    return _mm512_add_epi64(high, _mm512_srli_epi64(low, 32));
}

LOOP __m512i reduce_lanes(__m512i u, __m512i r) { return _mm512_srli_epi64(reduce_lanes_high(u, r), 32); }

/* The same for any r: all four products of the top comment.  The carry out
 * of the middle terms is that of hi32(ul rl) + lo32(ul rh) + lo32(uh rl),
 * three values below 2^32, so their sum cannot overflow. */
LOOP __m512i reduce_lanes_wide(__m512i u, __m512i r)
{
    const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFFLL);
    const __m512i uh = _mm512_srli_epi64(u, 32), rh = _mm512_srli_epi64(r, 32);
    const __m512i ll = _mm512_mul_epu32(u, r), lh = _mm512_mul_epu32(u, rh);
    const __m512i hl = _mm512_mul_epu32(uh, r), hh = _mm512_mul_epu32(uh, rh);
    const __m512i mid = _mm512_add_epi64(_mm512_add_epi64(_mm512_srli_epi64(ll, 32), _mm512_and_si512(lh, low32)),
                                         _mm512_and_si512(hl, low32));
    return _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(lh, 32)),
                            _mm512_add_epi64(_mm512_srli_epi64(hl, 32), _mm512_srli_epi64(mid, 32)));
}

/* How eight keys' streams of positions come (batch.c's cursor_position):
 *   POS_STANDARD       position i = reduce(u_i, m), m < 2^32;
 *   POS_STANDARD_WIDE  the same for any m;
 *   POS_COUNTING       the standard positions of m < 2^32 4-bit counters
 *                      (counter p: bits 4 (p mod 16) of word p / 16);
 *   POS_PARTITIONED    position i = slice[i] + reduce(u_i, slice[i+1] - slice[i]),
 *                      m < 2^32: every key of a group is at the same i;
 *   POS_BLOCKED        u_0 picks the block, reduce(u_0, blocks) with
 *                      blocks < 2^32; position i is the block's first bit +
 *                      the top 9 bits of u_{i+1} blocks mod 2^64.
 * The kind is a constant at every call, so each loop is stamped per kind. */
enum { POS_STANDARD, POS_STANDARD_WIDE, POS_COUNTING, POS_PARTITIONED, POS_BLOCKED };

typedef struct {
    __m512i u, step;
    __m512i range;         /* m, or blocks */
    __m512i base;          /* blocked512: the block's first bit */
    const uint64_t *slice; /* partitioned: the slices' first bits */
    unsigned i;            /* partitioned: the next position's index */
} lanes8;

LOOP lanes8 lanes_begin(int kind, __m512i h1, __m512i h2, __m512i range, const uint64_t *slice)
{
    lanes8 p = {h1, h2, range, _mm512_setzero_si512(), slice, 0};
    if (kind == POS_BLOCKED) {
        p.base = _mm512_slli_epi64(reduce_lanes(h1, range), 9);
        p.u = _mm512_add_epi64(h1, h2);
    }
    return p;
}

/* The next position of the kinds below 2^32 (standard, counting,
 * partitioned) in the high half of each lane, the low half whatever
 * reduce_lanes_high left there.  Exact: a slice's first bit times 2^32
 * added cannot carry out, every position being below 2^32. */
LOOP __m512i lanes_next_narrow_high(int kind, lanes8 *p)
{
    __m512i high;
    if (kind == POS_PARTITIONED) {
        const uint64_t lo = p->slice[p->i], hi = p->slice[p->i + 1];
        high = _mm512_add_epi64(reduce_lanes_high(p->u, _mm512_set1_epi64((long long)(hi - lo))),
                                _mm512_set1_epi64((long long)(lo << 32)));
        p->i++;
    } else
        high = reduce_lanes_high(p->u, p->range);
    p->u = _mm512_add_epi64(p->u, p->step);
    return high;
}

LOOP __m512i lanes_next(int kind, lanes8 *p)
{
    if (kind != POS_BLOCKED && kind != POS_STANDARD_WIDE)
        return _mm512_srli_epi64(lanes_next_narrow_high(kind, p), 32);
    __m512i pos;
    if (kind == POS_BLOCKED)
        pos = _mm512_add_epi64(p->base, _mm512_srli_epi64(_mm512_mullo_epi64(p->u, p->range), 55));
    else
        pos = reduce_lanes_wide(p->u, p->range);
    p->u = _mm512_add_epi64(p->u, p->step);
    return pos;
}

/* The next position, below 2^32 (test16's kinds), in the high half of
 * each lane, so that sixteen keys' positions come together by one permute of their high halves
 * (high_halves) instead of two shifts and two narrowings: fewer
 * instructions a position (docs/PERFORMANCE.md, "Moved from comments"). */
LOOP __m512i lanes_next_high(int kind, lanes8 *p)
{
    if (kind == POS_BLOCKED)
        return _mm512_slli_epi64(lanes_next(kind, p), 32);
    return lanes_next_narrow_high(kind, p);
}

/* The high 32-bit halves of a's eight lanes, then b's, as sixteen lanes. */
LOOP __m512i high_halves(__m512i a, __m512i b)
{
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    return _mm512_permutex2var_epi32(a, odd, b);
}

/* Keys are this far ahead when a blocked512 key's line is prefetched. */
#define BLOCK_AHEAD 32

/* Prefetch the lines of keys j .. j+7 of a blocked512 filter (those there are). */
LOOP void prefetch_blocks(const uint64_t *words, __m512i range, const uint64_t *h1, size_t j, size_t count, int rw)
{
    if (j >= count)
        return;
    const size_t lanes = count - j < 8 ? count - j : 8;
    uint64_t first_bit[8];
    _mm512_storeu_si512(first_bit, _mm512_slli_epi64(reduce_lanes(_mm512_maskz_loadu_epi64(lanes_of(lanes), h1 + j), range), 9));
    for (size_t l = 0; l < lanes; l++) {
        if (rw)
            __builtin_prefetch(&words[first_bit[l] >> 6], 1, 3);
        else
            __builtin_prefetch(&words[first_bit[l] >> 6], 0, 3);
    }
}

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

/* Set the bits (count the counters; returns the increments lost to
 * saturation).  The positions come eight at a time from the vector unit;
 * the update of memory stays scalar, since two lanes may name the same
 * word and a scatter would lose one of them. */
LOOP uint64_t probe_insert(int kind, uint64_t *words, uint64_t range, const uint64_t *slice, unsigned k,
                           const uint64_t *h1, const uint64_t *h2, size_t count, int k_stamped)
{
    const int blocked = kind == POS_BLOCKED, counting = kind == POS_COUNTING;
    const __m512i r = _mm512_set1_epi64((long long)range);
    const __m512i one = _mm512_set1_epi64(1), low6 = _mm512_set1_epi64(63), low4 = _mm512_set1_epi64(15);
    uint64_t word[8 * 64], bit[8 * 64]; /* position i of lane l at [8 i + l] */
    uint64_t saturated = 0;
    if (blocked)
        for (size_t j = 0; j < BLOCK_AHEAD; j += 8)
            prefetch_blocks(words, r, h1, j, count, 1);
    for (size_t j = 0; j < count; j += 8) {
        if (blocked)
            prefetch_blocks(words, r, h1, j + BLOCK_AHEAD, count, 1);
        const size_t lanes = count - j < 8 ? count - j : 8;
        lanes8 p = lanes_begin(kind, _mm512_maskz_loadu_epi64(lanes_of(lanes), h1 + j),
                               _mm512_maskz_loadu_epi64(lanes_of(lanes), h2 + j), r, slice);
        for (unsigned i = 0; i < k; i++) {
            __m512i pos = lanes_next(kind, &p);
            if (counting) {
                _mm512_storeu_si512(word + 8 * i, _mm512_srli_epi64(pos, 4));
                _mm512_storeu_si512(bit + 8 * i, _mm512_slli_epi64(_mm512_and_si512(pos, low4), 2));
            } else {
                _mm512_storeu_si512(word + 8 * i, _mm512_srli_epi64(pos, 6));
                _mm512_storeu_si512(bit + 8 * i, _mm512_sllv_epi64(one, _mm512_and_si512(pos, low6)));
            }
        }
        if (lanes == 8 && k_stamped) { /* k a constant: the 8 k updates written out (FILTER_STAMPED_K) */
#pragma GCC unroll 128
            for (size_t t = 0; t < 8 * (size_t)k; t++)
                saturated += set_position(kind, words, word[t], bit[t]);
        } else if (lanes == 8) {
            for (size_t t = 0; t < 8 * (size_t)k; t++)
                saturated += set_position(kind, words, word[t], bit[t]);
        } else {
            for (unsigned i = 0; i < k; i++)
                for (size_t l = 0; l < lanes; l++)
                    saturated += set_position(kind, words, word[8 * i + l], bit[8 * i + l]);
        }
    }
    return saturated;
}

/* The next `width` positions of sixteen keys (pa's lanes, then pb's),
 * tested without a branch; returns the keys that found them all set.  A
 * position below 2^32 is fetched by one gather of sixteen 32-bit words
 * (word p >> 5, bit p & 31 of the same little-endian array), which costs
 * less than two gathers of eight 64-bit words (one gather's latency
 * instead of two: docs/PERFORMANCE.md, "Moved from comments"). */
LOOP void test_position16(int kind, const void *words32, __m512i pos, __mmask16 lanes, __m512i *all, __mmask16 *counted)
{
    const __m512i one = _mm512_set1_epi32(1), low5 = _mm512_set1_epi32(31);
    const __m512i nibble = _mm512_set1_epi32(15), low3 = _mm512_set1_epi32(7);
    if (kind == POS_COUNTING) { /* counter p: 32-bit word p >> 3, bits 4 (p & 7) */
        __m512i w = _mm512_mask_i32gather_epi32(nibble, lanes, _mm512_srli_epi32(pos, 3), words32, 4);
        __m512i shift = _mm512_slli_epi32(_mm512_and_si512(pos, low3), 2);
        *counted = _mm512_mask_test_epi32_mask(*counted, _mm512_srlv_epi32(w, shift), nibble);
        return;
    }
    __m512i w = _mm512_mask_i32gather_epi32(one, lanes, _mm512_srli_epi32(pos, 5), words32, 4);
    *all = _mm512_and_si512(*all, _mm512_srlv_epi32(w, _mm512_and_si512(pos, low5)));
}

LOOP __mmask16 test_answer16(int kind, __m512i all, __mmask16 counted, __mmask16 lanes)
{
    return kind == POS_COUNTING ? counted : _mm512_mask_test_epi32_mask(lanes, all, _mm512_set1_epi32(1));
}

LOOP __mmask16 test16(int kind, const void *words32, lanes8 *pa, lanes8 *pb, unsigned width, __mmask16 lanes)
{
    __m512i all = _mm512_set1_epi32(1);
    __mmask16 counted = lanes; /* counting: the keys whose counters are all nonzero so far */
    for (unsigned i = 0; i < width; i++)
        test_position16(kind, words32, high_halves(lanes_next_high(kind, pa), lanes_next_high(kind, pb)), lanes, &all,
                        &counted);
    return test_answer16(kind, all, counted, lanes);
}

/* The same for positions made before (width vectors of sixteen at pos). */
LOOP __mmask16 test16_stored(int kind, const void *words32, const uint32_t *pos, unsigned width, __mmask16 lanes)
{
    __m512i all = _mm512_set1_epi32(1);
    __mmask16 counted = lanes;
    for (unsigned i = 0; i < width; i++)
        test_position16(kind, words32, _mm512_loadu_si512(pos + 16 * i), lanes, &all, &counted);
    return test_answer16(kind, all, counted, lanes);
}

/* The same for eight keys whose positions may pass 2^32: 64-bit gathers. */
LOOP __mmask8 test8(int kind, const uint64_t *words, lanes8 *p, unsigned width, __mmask8 lanes)
{
    const __m512i one = _mm512_set1_epi64(1), low6 = _mm512_set1_epi64(63);
    __m512i all = one;
    for (unsigned i = 0; i < width; i++) {
        __m512i pos = lanes_next(kind, p);
        __m512i w = _mm512_mask_i64gather_epi64(one, lanes, _mm512_srli_epi64(pos, 6), (const void *)words, 8);
        all = _mm512_and_si512(all, _mm512_srlv_epi64(w, _mm512_and_si512(pos, low6)));
    }
    return _mm512_mask_test_epi64_mask(lanes, all, one);
}

/* All k bits, no early exit (in cache the gathers cost less than the
 * branches an exit would take; a blocked key's bits share a line anyway):
 * sixteen keys a step with 32-bit gathers, or eight with 64-bit ones when
 * `wide` (positions past 2^32). */
LOOP size_t probe_query(int kind, int wide, const uint64_t *words, uint64_t range, const uint64_t *slice, unsigned k,
                        const key_source *src, size_t count, unsigned char *answer)
{
    const int blocked = kind == POS_BLOCKED && src->h1 != NULL; /* prefetching: hashed keys only */
    const size_t step = wide ? 8 : 16;
    const __m512i r = _mm512_set1_epi64((long long)range);
    size_t yes = 0;
    if (blocked)
        for (size_t j = 0; j < BLOCK_AHEAD; j += 8)
            prefetch_blocks(words, r, src->h1, j, count, 0);
    __m512i h1a, h2a, h1b = _mm512_setzero_si512(), h2b = h1b;
    source_group(src, 0, lanes_of(count), &h1a, &h2a);
    if (!wide)
        source_group(src, 8, lanes_of(count < 8 ? 0 : count - 8), &h1b, &h2b);
    for (size_t j = 0; j < count; j += step) {
        for (size_t ahead = 0; blocked && ahead < step; ahead += 8)
            prefetch_blocks(words, r, src->h1, j + BLOCK_AHEAD + ahead, count, 0);
        const __mmask8 lanes_a = lanes_of(count - j), lanes_b = lanes_of(count - j < 8 ? 0 : count - j - 8);
        lanes8 pa = lanes_begin(kind, h1a, h2a, r, slice), pb = lanes_begin(kind, h1b, h2b, r, slice);
        if (j + step < count) {
            const size_t next = j + step;
            source_group(src, next, lanes_of(count - next), &h1a, &h2a);
            if (!wide)
                source_group(src, next + 8, lanes_of(count - next < 8 ? 0 : count - next - 8), &h1b, &h2b);
        }
        unsigned found;
        if (wide)
            found = test8(kind, words, &pa, k, lanes_a);
        else
            found = test16(kind, words, &pa, &pb, k, (__mmask16)(lanes_a | (lanes_b << 8)));
        yes += (size_t)__builtin_popcount(found);
        if (answer != NULL)
            for (size_t l = 0; l < step && j + l < count; l++)
                answer[j + l] = (unsigned char)((found >> l) & 1u);
    }
    return yes;
}

/* Stamped for each k of FILTER_STAMPED_K. */
void avx512_standard_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
#define FILTER_K_DO(K, STAMPED)                                                                              \
    probe_insert(POS_STANDARD, f->words, f->m, NULL, K, h1, h2, count, STAMPED);                             \
    return
    FILTER_K_SWITCH(f->k)
#undef FILTER_K_DO
}

void avx512_counting_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    f->saturations += probe_insert(POS_COUNTING, f->words, f->m, NULL, f->k, h1, h2, count, 0);
}

void avx512_partitioned_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    probe_insert(POS_PARTITIONED, f->words, 0, f->slice_start, f->k, h1, h2, count, 0);
}

/* The all-k queries of the unblocked layouts, from either key source (the
 * inserts take hashed keys only: hashing in probe_insert's loop made it
 * slower, since there the scalar stores, not misses, bound the loop:
 * docs/PERFORMANCE.md, "Moved from comments"). */
LOOP size_t standard_query(const filter *f, const key_source *s, size_t count, unsigned char *answer)
{
    return probe_query(POS_STANDARD, 0, f->words, f->m, NULL, f->k, s, count, answer);
}

LOOP size_t counting_query(const filter *f, const key_source *s, size_t count, unsigned char *answer)
{
    return probe_query(POS_COUNTING, 0, f->words, f->m, NULL, f->k, s, count, answer);
}

LOOP size_t partitioned_query(const filter *f, const key_source *s, size_t count, unsigned char *answer)
{
    return probe_query(POS_PARTITIONED, 0, f->words, 0, f->slice_start, f->k, s, count, answer);
}

#define BOTH_SOURCES(layout)                                                                                 \
    size_t avx512_##layout##_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,    \
                                   unsigned char *answer)                                                    \
    {                                                                                                        \
        const key_source s = hashed_source(h1, h2);                                                          \
        return layout##_query(f, &s, count, answer);                                                         \
    }                                                                                                        \
    size_t avx512_##layout##_query_keys8(const filter *f, uint64_t seed, const uint64_t *key, size_t count,  \
                                         unsigned char *answer)                                              \
    {                                                                                                        \
        const key_source s = key8_source(seed, key);                                                         \
        return layout##_query(f, &s, count, answer);                                                         \
    }

BOTH_SOURCES(standard)
BOTH_SOURCES(counting)
BOTH_SOURCES(partitioned)

/* ---- unblocked layouts beyond L2: early exit, lanes kept full -------------- */

/* Beyond L2 a position of a standard, counting or partitioned filter costs
 * a line from L3 or DRAM, and an absent key needs only sum_{i<k} f^i of its
 * k lines (1.98 at fill 1/2, k = 7): the rest follow its first zero.  probe_query fetches all k.  Here the keys
 * go through the phases of batch.c's flight_step -- positions [0, 1),
 * [1, 3), [3, 7), ... -- and after each phase the keys that found all
 * their bits set are compressed to the front of the list (vpcompress), so
 * that the next phase's gathers are sixteen (or eight) live keys wide: an
 * absent key fetches 1 + 2 f + 4 f^3 lines (2.5 at f = 1/2), a present one
 * all k.  The gathers of a phase are independent of each other, so one
 * phase keeps as many misses in flight as the core allows: beyond L2 it
 * more than halved an absent query and left a present one as it was.  In
 * L2 the compaction costs more than the gathers it saves on present keys,
 * so batch.c keeps probe_query there (the timings: docs/PERFORMANCE.md,
 * "Moved from comments"). */

/* The keys still alive (live_keys.h).  Sixteen entries of slack: a group
 * is loaded whole and stored whole. */
typedef struct {
    uint64_t u[AVX512_MAX_KEYS + 16], step[AVX512_MAX_KEYS + 16];
    uint32_t idx[AVX512_MAX_KEYS + 16];
} live_keys;

/* Eight lanes' values and steps, those that `found`, to the list at out. */
LOOP size_t keep_lanes(live_keys *lk, size_t out, const lanes8 *p, __mmask8 found)
{
    _mm512_storeu_si512(lk->u + out, _mm512_maskz_compress_epi64(found, p->u));
    _mm512_storeu_si512(lk->step + out, _mm512_maskz_compress_epi64(found, p->step));
    return out + (size_t)__builtin_popcount(found);
}

/* Live keys s .. s+7 as lanes, their next position's index `done`. */
LOOP lanes8 live_lanes(const live_keys *lk, size_t s, __m512i r, const uint64_t *slice, unsigned done)
{
    lanes8 p = {_mm512_loadu_si512(lk->u + s), _mm512_loadu_si512(lk->step + s), r, _mm512_setzero_si512(), slice, done};
    return p;
}

/* Groups of sixteen live keys whose lines are prefetched ahead of the
 * group being tested, into L2 (prefetcht1).  Measured at n = 1e7 and 1e8
 * (12.5 and 125 MB, then bench --anchors, now --peers, three runs each), present
 * keys, ns a key: no prefetch (the gathers alone) 20.9-21.0 and 56-59;
 * 2 groups ahead into L1 19.5-20.3 and 45-50; into L2, 2 groups ahead
 * 18.3-19.4 and 40-43, 4 ahead 19.1-19.7 and 37.5-40.7 (prefetcht2 the
 * same as t1).  The likely reason: a line bound for L1 holds one of the
 * core's few L1 miss buffers until it arrives, one bound for L2 less long,
 * so more lines are on their way at once; the gather then finds them in
 * L2.  (The same hint in blocked512's and splitblock's prefetches beyond L2
 * made no difference beyond this machine's noise, 16-256 MiB.) */
#define PHASE_AHEAD 4

/* Group s's next `width` positions (sixteen 32-bit lanes each) into pos,
 * their lines prefetched; its values in lk advance past them, ready for
 * keep_lanes when the group is tested. */
LOOP void phase_prefetch(int kind, const uint64_t *words, __m512i r, const uint64_t *slice, unsigned done,
                         unsigned width, live_keys *lk, size_t s, size_t live, uint32_t *pos, int prefetch)
{
    lanes8 pa = live_lanes(lk, s, r, slice, done), pb = live_lanes(lk, s + 8, r, slice, done);
    const unsigned shift = kind == POS_COUNTING ? 3 : 5, lanes = live - s < 16 ? (unsigned)(live - s) : 16;
    const uint32_t *words32 = (const uint32_t *)(const void *)words;
    for (unsigned i = 0; i < width; i++) {
        _mm512_storeu_si512(pos + 16 * i, high_halves(lanes_next_high(kind, &pa), lanes_next_high(kind, &pb)));
        for (unsigned l = 0; prefetch && l < lanes; l++)
            __builtin_prefetch(words32 + (pos[16 * i + l] >> shift), 0, 2); /* prefetcht1 */
    }
    _mm512_storeu_si512(lk->u + s, pa.u);
    _mm512_storeu_si512(lk->u + s + 8, pb.u);
}

/* The next `width` positions of every live key; the keys that found them
 * all set move to the front.  Returns how many.  In place: group s is read
 * before anything is stored at out <= s, and the stores reach at most
 * entry s + 15, behind the group PHASE_AHEAD on, whose positions are made
 * and prefetched while group s is tested. */
LOOP size_t phase_step(int kind, int wide, const uint64_t *words, __m512i r, const uint64_t *slice, unsigned done,
                       unsigned width, live_keys *lk, size_t live, int prefetch)
{
    size_t out = 0;
    if (wide) {
        for (size_t s = 0; s < live; s += 8) {
            const __mmask8 lanes = lanes_of(live - s);
            lanes8 pa = live_lanes(lk, s, r, slice, done);
            const __m256i idx = _mm256_loadu_si256((const __m256i *)(const void *)(lk->idx + s));
            const __mmask8 found = test8(kind, words, &pa, width, lanes);
            _mm256_storeu_si256((__m256i *)(void *)(lk->idx + out), _mm256_maskz_compress_epi32(found, idx));
            out = keep_lanes(lk, out, &pa, found);
        }
        return out;
    }
    uint32_t pos[PHASE_AHEAD + 1][16 * FILTER_K_MAX / 2]; /* a width is a power of 2 below k */
    for (size_t g = 0; g < PHASE_AHEAD && 16 * g < live; g++)
        phase_prefetch(kind, words, r, slice, done, width, lk, 16 * g, live, pos[g], prefetch);
    for (size_t s = 0, g = 0; s < live; s += 16, g++) {
        if (s + 16 * PHASE_AHEAD < live)
            phase_prefetch(kind, words, r, slice, done, width, lk, s + 16 * PHASE_AHEAD, live,
                           pos[(g + PHASE_AHEAD) % (PHASE_AHEAD + 1)], prefetch);
        const __mmask16 found = test16_stored(kind, words, pos[g % (PHASE_AHEAD + 1)], width, lanes_of16(live - s));
        const lanes8 pa = live_lanes(lk, s, r, slice, done), pb = live_lanes(lk, s + 8, r, slice, done); /* advanced */
        const __m512i idx = _mm512_loadu_si512(lk->idx + s);
        _mm512_storeu_si512(lk->idx + out, _mm512_maskz_compress_epi32(found, idx));
        out = keep_lanes(lk, out, &pa, (__mmask8)found);
        out = keep_lanes(lk, out, &pb, (__mmask8)(found >> 8));
    }
    return out;
}

LOOP size_t query_phased(int kind, int wide, const uint64_t *words, uint64_t m, const uint64_t *slice, unsigned k,
                         const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer, int prefetch)
{
    live_keys lk;
    live_keys_start(lk.u, lk.step, lk.idx, h1, h2, count, 16);
    const __m512i r = _mm512_set1_epi64((long long)m);
    size_t live = count;
    for (unsigned done = 0, width = 1; done < k && live > 0; done += width, width *= 2)
        live = phase_step(kind, wide, words, r, slice, done, width < k - done ? width : k - done, &lk, live,
                          prefetch);
    return live_keys_answers(lk.idx, live, count, answer);
}

size_t avx512_standard_query_phased(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    if (f->m < (1ULL << 32)) {
        if (filter_phase_prefetch(f))
            return query_phased(POS_STANDARD, 0, f->words, f->m, NULL, f->k, h1, h2, count, answer, 1);
        return query_phased(POS_STANDARD, 0, f->words, f->m, NULL, f->k, h1, h2, count, answer, 0);
    }
    return avx512_standard_query_phased_wide(f, h1, h2, count, answer);
}

size_t avx512_standard_query_phased_wide(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    return query_phased(POS_STANDARD_WIDE, 1, f->words, f->m, NULL, f->k, h1, h2, count, answer, 0);
}

void avx512_blocked512_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    probe_insert(POS_BLOCKED, f->words, f->blocks, NULL, f->k, h1, h2, count, 0);
}

size_t avx512_blocked512_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    const key_source hashed = hashed_source(h1, h2);
    if (f->blocks < (1ULL << 23)) /* m = 512 blocks < 2^32: positions fit 32 bits */
        return probe_query(POS_BLOCKED, 0, f->words, f->blocks, NULL, f->k, &hashed, count, answer);
    return avx512_blocked512_query_wide(f, h1, h2, count, answer);
}

size_t avx512_blocked512_query_wide(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    const key_source hashed = hashed_source(h1, h2);
    return probe_query(POS_BLOCKED, 1, f->words, f->blocks, NULL, f->k, &hashed, count, answer);
}

size_t avx512_blocked512_query_keys8(const filter *f, uint64_t seed, const uint64_t *key, size_t count, unsigned char *answer)
{
    const key_source keys = key8_source(seed, key);
    return probe_query(POS_BLOCKED, 0, f->words, f->blocks, NULL, f->k, &keys, count, answer);
}

size_t avx512_partitioned_query_phased(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    return query_phased(POS_PARTITIONED, 0, f->words, 0, f->slice_start, f->k, h1, h2, count, answer, 1);
}

size_t avx512_counting_query_phased(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    return query_phased(POS_COUNTING, 0, f->words, f->m, NULL, f->k, h1, h2, count, answer, 1);
}

/* The count k positions of the keys, eight keys at a time, position-major. */
LOOP void positions(int kind, uint64_t m, unsigned k, const uint64_t *h1, const uint64_t *h2, size_t count,
                    uint64_t *pos)
{
    const __m512i range = _mm512_set1_epi64((long long)m);
    for (size_t j = 0; j < count; j += 8) {
        const size_t lanes = count - j < 8 ? count - j : 8;
        const __mmask8 mask = lanes_of(lanes);
        lanes8 p = lanes_begin(kind, _mm512_maskz_loadu_epi64(mask, h1 + j), _mm512_maskz_loadu_epi64(mask, h2 + j), range,
                               NULL);
        for (unsigned i = 0; i < k; i++, pos += lanes) {
            __m512i q = lanes_next(kind, &p);
            _mm512_storeu_si512(pos, lanes == 8 ? q : _mm512_maskz_compress_epi64(mask, q)); /* may write 8 */
        }
    }
}

void avx512_standard_positions(uint64_t m, unsigned k, const uint64_t *h1, const uint64_t *h2, size_t count,
                               uint64_t *pos)
{
    if (m < (1ULL << 32))
        positions(POS_STANDARD, m, k, h1, h2, count, pos);
    else
        positions(POS_STANDARD_WIDE, m, k, h1, h2, count, pos);
}

/* ---- register64 layout: one word a key --------------------------------- */

/* A key's k bits share one 64-bit word: the word is reduce(u_0, blocks) and
 * bit i the top 6 bits of u_{i+1} blocks mod 2^64 (batch.c's
 * cursor_position), so the lanes build each key's mask of k bits and the
 * word is tested or set once, not once a position.  Both passes run over a
 * whole call: the first computes every key's word and mask and prefetches
 * the word, the second reads or writes them. */
LOOP void register_masks(const uint64_t *words, uint64_t blocks, unsigned k, const uint64_t *h1, const uint64_t *h2,
                         size_t count, uint64_t *word, uint64_t *mask, int rw)
{
    const __m512i b = _mm512_set1_epi64((long long)blocks), one = _mm512_set1_epi64(1);
    for (size_t j = 0; j < count; j += 8) {
        const __mmask8 lanes = lanes_of(count - j);
        const __m512i step = _mm512_maskz_loadu_epi64(lanes, h2 + j);
        const __m512i u0 = _mm512_maskz_loadu_epi64(lanes, h1 + j);
        __m512i u = _mm512_add_epi64(u0, step), bits = _mm512_setzero_si512();
        for (unsigned i = 0; i < k; i++, u = _mm512_add_epi64(u, step))
            bits = _mm512_or_si512(bits, _mm512_sllv_epi64(one, _mm512_srli_epi64(_mm512_mullo_epi64(u, b), 58)));
        _mm512_storeu_si512(word + j, reduce_lanes(u0, b));
        _mm512_storeu_si512(mask + j, bits);
    }
    for (size_t j = 0; j < count; j++) {
        if (rw)
            __builtin_prefetch(&words[word[j]], 1, 3);
        else
            __builtin_prefetch(&words[word[j]], 0, 3);
    }
}

void avx512_register64_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    uint64_t *words = f->words;
    uint64_t word[AVX512_MAX_KEYS + 8], mask[AVX512_MAX_KEYS + 8];
    register_masks(words, f->blocks, f->k, h1, h2, count, word, mask, 1);
    for (size_t j = 0; j < count; j++)
        words[word[j]] |= mask[j];
}

size_t avx512_register64_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    const uint64_t *words = f->words;
    uint64_t word[AVX512_MAX_KEYS + 8], mask[AVX512_MAX_KEYS + 8];
    register_masks(words, f->blocks, f->k, h1, h2, count, word, mask, 0);
    size_t yes = 0;
    for (size_t j = 0; j < count; j += 8) {
        const __mmask8 lanes = lanes_of(count - j);
        const __m512i m = _mm512_loadu_si512(mask + j);
        const __m512i w = _mm512_mask_i64gather_epi64(m, lanes, _mm512_loadu_si512(word + j), (const void *)words, 8);
        const __mmask8 found = _mm512_mask_cmpeq_epi64_mask(lanes, _mm512_and_si512(w, m), m);
        yes += (size_t)__builtin_popcount(found);
        if (answer != NULL)
            for (size_t l = 0; l < 8 && j + l < count; l++)
                answer[j + l] = (unsigned char)((found >> l) & 1u);
    }
    return yes;
}

/* ---- split block layout ---------------------------------------------------- */

/* The first word of each key's block: ((u >> 32) blocks) >> 32 blocks of
 * four words (blocks < 2^32, so the product is one vpmuludq). */
LOOP void splitblock_words(uint64_t blocks, const uint64_t *h1, size_t count, uint64_t *first)
{
    const __m512i b = _mm512_set1_epi64((long long)blocks);
    for (size_t j = 0; j < count; j += 8) {
        const __mmask8 lanes = lanes_of(count - j);
        __m512i u = _mm512_maskz_loadu_epi64(lanes, h1 + j);
        __m512i block = _mm512_srli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(u, 32), b), 32);
        _mm512_mask_storeu_epi64(first + j, lanes, _mm512_slli_epi64(block, 2));
    }
}

/* The key's eight bits: 32-bit word i gets bit (h32 SALT[i]) >> 27. */
LOOP __m256i splitblock_mask(uint64_t u)
{
    __m256i h = _mm256_set1_epi32((int)(uint32_t)u);
    const __m256i salt = _mm256_loadu_si256((const __m256i *)(const void *)SPLITBLOCK_SALT);
    __m256i shift = _mm256_srli_epi32(_mm256_mullo_epi32(h, salt), 27);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), shift);
}

/* Lines are prefetched this many keys ahead of the one being set or
 * tested: beyond the cache, about a memory latency of work. */
#define SPLITBLOCK_AHEAD 16

void avx512_splitblock_insert(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count)
{
    (void)h2; /* a split block key's bits come from h1 alone */
    uint64_t *words = f->words;
    uint64_t first[AVX512_MAX_KEYS];
    splitblock_words(f->blocks, h1, count, first);
    for (size_t j = 0; j < count && j < SPLITBLOCK_AHEAD; j++)
        __builtin_prefetch(&words[first[j]], 1, 3);
    for (size_t j = 0; j < count; j++) {
        if (j + SPLITBLOCK_AHEAD < count)
            __builtin_prefetch(&words[first[j + SPLITBLOCK_AHEAD]], 1, 3);
        __m256i *block = (__m256i *)(void *)&words[first[j]];
        _mm256_store_si256(block, _mm256_or_si256(_mm256_load_si256(block), splitblock_mask(h1[j])));
    }
}

size_t avx512_splitblock_query(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count, unsigned char *answer)
{
    (void)h2;
    const uint64_t *words = f->words;
    uint64_t first[AVX512_MAX_KEYS];
    splitblock_words(f->blocks, h1, count, first);
    for (size_t j = 0; j < count && j < SPLITBLOCK_AHEAD; j++)
        __builtin_prefetch(&words[first[j]], 0, 3);
    size_t yes = 0;
    for (size_t j = 0; j < count; j++) {
        if (j + SPLITBLOCK_AHEAD < count)
            __builtin_prefetch(&words[first[j + SPLITBLOCK_AHEAD]], 0, 3);
        const __m256i block = _mm256_load_si256((const __m256i *)(const void *)&words[first[j]]);
        int all = _mm256_testc_si256(block, splitblock_mask(h1[j])); /* mask & ~block == 0 */
        yes += (size_t)all;
        if (answer != NULL)
            answer[j] = (unsigned char)all;
    }
    return yes;
}

/* ---- split block, 8-byte keys hashed in the loop --------------------------- */

/* Steps of eight keys between a step's hashing (its blocks found) and its
 * blocks' sets or tests: SB_RING (64 keys, as avx2.c's
 * SPLIT_RING), and beyond the last-level cache, where each block is
 * prefetched as its key is hashed (split_ymm.h's split_ring_keys),
 * SB_FAR_RING (128 keys: about a memory latency of the loop's work; 192
 * and 256 measured alike), and SB_LATE_RING (256 keys, SHAPE_LATE_L2's). */
#define SB_RING (SPLIT_RING_KEYS / 8)
#define SB_FAR_RING (SPLIT_FAR_RING_KEYS / 8)
#define SB_LATE_RING (SPLIT_LATE_RING_KEYS / 8)
/* The prefetch from a block's slot (split_from_slot: SHAPE_FROM_RING's
 * and SHAPE_FAR_TWO_STEPS's second), SB_NEAR steps (32 keys) before its
 * work: scalar loads of word indexes stored steps ago. */
#define SB_NEAR (SB_RING / 2)

/* A shape's ring slots (split_ymm.h's split_ring_keys). */
LOOP size_t sb_ring_slots(fetch_shape shape) { return split_ring_keys(shape) / 8; }

/* The steps in flight: slot s holds a step's keys' hashes (their low
 * halves make the masks as each key is worked, as in the AVX2 loop:
 * split_ymm.h), where each key's block is (sb_place8), where its
 * answers go and how many of its eight lanes are keys (eight but in a short
 * batch's last step); SB_RING, SB_FAR_RING or SB_LATE_RING slots used.  Until session 18
 * the masks were made as the keys were hashed, two a zmm register, and kept
 * here: slower in L1 and beyond L2 (docs/PERFORMANCE.md, 2026-12-06,
 * session 18). */
typedef struct {
    uint64_t h[SB_LATE_RING][8];
    uint64_t where[SB_LATE_RING][8];
    size_t out[SB_LATE_RING];
    unsigned live[SB_LATE_RING];
} sb_ring;

/* What every step uses: in every lane the filter's block count, the
 * hash's per-call constant (batch_hash.h's keys8_constant), and the
 * filter's address and the mask that sb_place8's where takes (split_ymm.h's
 * split_block_of); the split block's salts and 1 for the masks (split_ymm.h's
 * split_one); the filter's words; and whether the slots hold addresses (an
 * insert's loop: a constant at each call). */
typedef struct {
    __m512i blocks, keyed, base, aligned;
    __m256i salt, one;
    uint64_t *words;
    int by_address;
} sb_lanes;

LOOP sb_lanes sb_lanes_of(uint64_t *words, uint64_t blocks, uint64_t keyed, int insert)
{
    return (sb_lanes){_mm512_set1_epi64((long long)blocks),
                      _mm512_set1_epi64((long long)keyed),
                      _mm512_set1_epi64((long long)(uintptr_t)words),
                      _mm512_set1_epi64(insert ? SPLIT_BY_ADDRESS_ALIGNED : SPLIT_BY_WORD_ALIGNED),
                      split_salt(),
                      split_one(),
                      words,
                      insert};
}

/* A step's eight blocks prefetched (split_ymm.h's FETCH_ kinds). */
LOOP void sb_prefetch8(const sb_lanes *c, const uint64_t *where, int fetch)
{
#pragma GCC unroll 8
    for (unsigned l = 0; l < 8; l++)
        split_prefetch(split_block_of(c->words, where[l], c->by_address), fetch);
}

/* Eight keys x hashed into a slot: their hashes, and where each key's
 * block is (split_ymm.h's split_block_of), prefetched by fetch
 * (split_ymm.h's split_place_fetch). */
LOOP void sb_place8(keys8_hash hash, const sb_lanes *c, __m512i x, uint64_t *h_out, uint64_t *where_out, int fetch)
{
    const __m512i h = hash == KEYS8_MULX64 ? mulx64_lanes(x, c->keyed) : xxh3_8_lanes(x, c->keyed);
    const __m512i product = _mm512_mul_epu32(_mm512_shuffle_epi32(h, _MM_PERM_DDBB), c->blocks);
    const __m512i where =
        c->by_address
            ? _mm512_add_epi64(_mm512_and_si512(_mm512_srli_epi64(product, SPLIT_BY_ADDRESS_SHIFT), c->aligned), c->base)
            : _mm512_and_si512(_mm512_srli_epi64(product, SPLIT_BY_WORD_SHIFT), c->aligned);
    _mm512_storeu_si512(h_out, h);
    _mm512_storeu_si512(where_out, where);
    sb_prefetch8(c, where_out, fetch);
}

/* One key of hash h set or tested in its block (split_ymm.h; returns 1
 * when all eight bits are set, its answer to *answer when answer is not
 * NULL). */
LOOP unsigned sb_work_key(const sb_lanes *c, uint64_t h, uint64_t where, unsigned char *answer, int insert)
{
    const unsigned all = split_key_work(c->salt, c->one, h, split_block_of(c->words, where, c->by_address), insert);
    if (answer != NULL)
        *answer = (unsigned char)all;
    return all;
}

/* A slot's first `live` keys set or tested, their answers to answer[0 ..]
 * when answer is not NULL; returns how many found all eight bits set. */
LOOP unsigned sb_work8(const sb_lanes *c, const uint64_t *h, const uint64_t *where, unsigned live,
                       unsigned char *answer, int insert)
{
    unsigned yes = 0;
    if (live == 8) { /* a full step (all but a batch's tail): unrolled */
#pragma GCC unroll 8
        for (unsigned l = 0; l < 8; l++)
            yes += sb_work_key(c, h[l], where[l], answer != NULL ? answer + l : NULL, insert);
        return yes;
    }
    for (unsigned l = 0; l < live; l++)
        yes += sb_work_key(c, h[l], where[l], answer != NULL ? answer + l : NULL, insert);
    return yes;
}

/* Step i of a run (counted from the call's first) set or tested from its
 * slot, the ring (of `slots`) keeping its key count and the place of its
 * answers. */
LOOP unsigned sb_work_step(const sb_lanes *c, const sb_ring *r, size_t i, size_t slots, unsigned char *answer,
                           int insert)
{
    const size_t s = i % slots;
    return sb_work8(c, r->h[s], r->where[s], r->live[s], answer != NULL ? answer + r->out[s] : NULL, insert);
}

/* A late shape's prefetch (split_ymm.h's split_late) of the step placed
 * SB_LATE steps before step `placed`, from its slot. */
#define SB_LATE (SPLIT_LATE_KEYS / 8)
LOOP void sb_late8(const sb_lanes *c, const sb_ring *r, size_t placed, size_t slots, fetch_shape shape, int insert)
{
    if (split_late(shape) && placed >= SB_LATE)
        sb_prefetch8(c, r->where[(placed - SB_LATE) % slots], split_place_fetch(shape, insert));
}

/* At a loop's end, the late prefetches of its last SB_LATE steps, before
 * the drain works them. */
LOOP void sb_late_rest(const sb_lanes *c, const sb_ring *r, size_t steps, size_t slots, fetch_shape shape, int insert)
{
    if (split_late(shape))
        for (size_t i = steps > SB_LATE ? steps - SB_LATE : 0; i < steps; i++)
            sb_prefetch8(c, r->where[i % slots], split_place_fetch(shape, insert));
}

/* In a loop's drain (the ring's last steps worked, none placed), the
 * blocks of step i + SB_NEAR prefetched from its slot as the loop's steps
 * do (avx2.c's split_drain_near says why). */
LOOP void sb_drain_near(const sb_lanes *c, const sb_ring *r, size_t i, size_t steps, size_t slots,
                        fetch_shape shape, int insert)
{
    if (split_from_slot(shape) && i + SB_NEAR < steps)
        sb_prefetch8(c, r->where[(i + SB_NEAR) % slots], split_l1_fetch(insert));
}

/* One loop over the keys, eight a step: the step hashed `slots` steps ago
 * is set or tested, the blocks of the step due SB_NEAR steps from now
 * prefetched from its slot (split_from_slot), then the next eight keys are
 * hashed into its slot (their blocks prefetched, or a late shape's the
 * blocks of the step SB_LATE before it; the ring SB_FAR_RING steps long
 * in the far shapes).  The hash and the
 * shape are constants at each call: one loop stamped per choice. */
LOOP size_t sb_ring_run(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, const key_batch *batches,
                        size_t count, unsigned char *answer, int insert, fetch_shape shape)
{
    const sb_lanes c = sb_lanes_of(words, blocks, keyed, insert);
    const size_t slots = sb_ring_slots(shape);
    sb_ring ring;
    size_t yes = 0, done = 0, steps = 0;
    for (size_t t = 0; t < count; t++) {
        const key_batch *keys = &batches[t];
        const size_t n = keys->count;
        for (size_t j = 0; j < n; j += 8, steps++) {
            const size_t s = steps % slots;
            if (steps >= slots)
                yes += sb_work_step(&c, &ring, steps - slots, slots, answer, insert);
            /* in line (__builtin_expect): all but a call's first steps */
            if (split_from_slot(shape) && __builtin_expect(steps + SB_NEAR >= slots, 1))
                sb_prefetch8(&c, ring.where[(steps + SB_NEAR) % slots], split_l1_fetch(insert));
            sb_place8(hash, &c, batch_keys8_lanes(keys, j), ring.h[s], ring.where[s], split_hash_fetch(shape, insert));
            sb_late8(&c, &ring, steps, slots, shape, insert);
            ring.out[s] = done + j;
            ring.live[s] = n - j >= 8 ? 8 : (unsigned)(n - j);
        }
        done += n;
    }
    sb_late_rest(&c, &ring, steps, slots, shape, insert);
    for (size_t i = steps > slots ? steps - slots : 0; i < steps; i++) {
        sb_drain_near(&c, &ring, i, steps, slots, shape, insert);
        yes += sb_work_step(&c, &ring, i, slots, answer, insert);
    }
    return yes;
}

/* sb_ring_run for full batches marked packed (sb_batches_full_packed): a
 * batch is 4 steps, the ring 2 batches (4 in the far shapes, 8 in
 * SHAPE_LATE_L2), so
 * batch t's steps take slots 4 (t mod batches) + 0 .. 3, and a batch's
 * steps, unrolled, address them from the batch's base, with no key counts
 * or answer places kept (as avx2.c's split_ring_full; faster than
 * sb_ring_run in L1 and beyond L2: docs/PERFORMANCE.md, session 24).
 * Step j of batch t works the step hashed a ring earlier into the same
 * slot, then places its own. */
_Static_assert(SB_RING == 2 * KEY_BATCH / 8 && SB_FAR_RING == 4 * KEY_BATCH / 8 && SB_LATE_RING == 8 * KEY_BATCH / 8 &&
                   SB_NEAR == KEY_BATCH / 8,
               "the rings are 2, 4 and 8 full batches of steps, the near prefetch one batch ahead");
/* Batch t of sb_ring_full, as avx2.c's split_full_batch: its steps
 * placed, each after the step placed a ring earlier in the same slot is
 * worked when `work` (a constant at each call), one running count kept. */
LOOP size_t sb_full_batch(keys8_hash hash, const sb_lanes *c, sb_ring *ring, size_t slots, size_t ring_batches,
                          const key_batch *batch, size_t t, unsigned char *out, int insert, fetch_shape shape,
                          int work)
{
    uint64_t(*const h)[8] = ring->h + (t % ring_batches) * (KEY_BATCH / 8);
    uint64_t(*const where)[8] = ring->where + (t % ring_batches) * (KEY_BATCH / 8);
    const size_t next = ((t + 1) % ring_batches) * (KEY_BATCH / 8);
    const unsigned char(*key)[8] = batch->packed;
    size_t yes = 0;
#pragma GCC unroll 4
    for (size_t j = 0; j < KEY_BATCH / 8; j++) {
        if (work) {
            yes += sb_work8(c, h[j], where[j], 8, out != NULL ? out + 8 * j : NULL, insert);
            __asm__("" : "+r"(yes));
        }
        if (split_near_due(shape, work, t, ring_batches)) /* the step worked in the next batch */
            sb_prefetch8(c, ring->where[next + j], split_l1_fetch(insert));
        sb_place8(hash, c, _mm512_loadu_si512(key[8 * j]), h[j], where[j], split_hash_fetch(shape, insert));
        sb_late8(c, ring, t * (KEY_BATCH / 8) + j, slots, shape, insert);
    }
    return yes;
}

LOOP size_t sb_ring_full(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, const key_batch *batches,
                         size_t count, unsigned char *answer, int insert, fetch_shape shape)
{
    const sb_lanes c = sb_lanes_of(words, blocks, keyed, insert);
    const size_t slots = sb_ring_slots(shape), ring_batches = slots / (KEY_BATCH / 8);
    sb_ring ring;
    size_t yes = 0, t = 0;
    for (; t < count && t < ring_batches; t++)
        sb_full_batch(hash, &c, &ring, slots, ring_batches, &batches[t], t, NULL, insert, shape, 0);
    for (; t < count; t++)
        yes += sb_full_batch(hash, &c, &ring, slots, ring_batches, &batches[t], t,
                             answer != NULL ? answer + (t - ring_batches) * KEY_BATCH : NULL, insert, shape, 1);
    const size_t steps = count * (KEY_BATCH / 8);
    sb_late_rest(&c, &ring, steps, slots, shape, insert);
    for (size_t i = steps > slots ? steps - slots : 0; i < steps; i++) {
        sb_drain_near(&c, &ring, i, steps, slots, shape, insert);
        yes += sb_work8(&c, ring.h[i % slots], ring.where[i % slots], 8, answer != NULL ? answer + 8 * i : NULL,
                        insert);
    }
    return yes;
}

/* 1 when every batch is full and marked packed8 (as keyset_fill and the
 * library make 8-byte keys): then sb_ring_full.  A batch not marked takes
 * sb_ring_run, which reads its keys through their pointers as they lie. */
static int sb_batches_full_packed(const key_batch *batches, size_t count)
{
    for (size_t t = 0; t < count; t++)
        if (batches[t].count != KEY_BATCH || !batches[t].packed8)
            return 0;
    return 1;
}

/* The keys of the batches set or tested by sb_ring_full or sb_ring_run. */
LOOP size_t sb_keys8(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, const key_batch *batches,
                     size_t count, unsigned char *answer, int insert, fetch_shape shape)
{
    if (sb_batches_full_packed(batches, count))
        return sb_ring_full(hash, words, blocks, keyed, batches, count, answer, insert, shape);
    return sb_ring_run(hash, words, blocks, keyed, batches, count, answer, insert, shape);
}

/* The shapes the loop is tuned over beyond L2 (fetch_tune.c): it has no
 * SHAPE_AT_HASH, whose prefetch is SHAPE_FAR_ONE_STEP's on a shorter ring,
 * late (split_ymm.h's split_late). */
static const int SB_SHAPES[] = {SHAPE_FROM_RING, SHAPE_FAR_ONE_STEP, SHAPE_FAR_TWO_STEPS, SHAPE_FAR_L2,
                                SHAPE_LATE_L2};
_Static_assert(sizeof SB_SHAPES / sizeof *SB_SHAPES <= FETCH_TUNE_CHOICES_MAX, "a tuning slot times them all");

/* The loop for the filter's size: the shape the filter's tuning gives
 * (fetch_tune.c), or, where there is none, up to the last-level cache the
 * FETCH_WINDOW plan's on every core (filters.h's filter_fetch_shape: no
 * prefetch in L2, where the out-of-order window overlaps the misses and
 * prefetches cost more than they hide; from each block's slot beyond it:
 * the timings, on a Zen 5, docs/PERFORMANCE.md, 2026-12-05, session 16,
 * 2026-12-06, sessions 17, 18 and 24) and beyond it the core's plan's, as
 * the AVX2 loop (SHAPE_FAR_TWO_STEPS under FETCH_AHEAD, the faster on a
 * Zen 4: session 25); a query stamped with and without answers. */
LOOP size_t sb_stamp(keys8_hash hash, const filter *f, uint64_t seed, const key_batch *batches, size_t count,
                     unsigned char *answer, int insert)
{
    const uint64_t keyed = keys8_constant(hash, seed);
    const tune_choices shapes = {SB_SHAPES, sizeof SB_SHAPES / sizeof *SB_SHAPES};
    const fetch_trial trial = fetch_tune_shape_begin(
        f, TUNE_LOOP_AVX512, insert, shapes,
        filter_fetch_shape(f, filter_beyond_llc(f) ? filter_fetch_plan() : FETCH_WINDOW),
        key_batches_keys(batches, count));
    size_t yes;
    switch ((fetch_shape)trial.choice) {
    case SHAPE_FAR_ONE_STEP:
        yes = sb_keys8(hash, f->words, f->blocks, keyed, batches, count, answer, insert, SHAPE_FAR_ONE_STEP);
        break;
    case SHAPE_FAR_TWO_STEPS:
        yes = sb_keys8(hash, f->words, f->blocks, keyed, batches, count, answer, insert, SHAPE_FAR_TWO_STEPS);
        break;
    case SHAPE_FAR_L2:
        yes = sb_keys8(hash, f->words, f->blocks, keyed, batches, count, answer, insert, SHAPE_FAR_L2);
        break;
    case SHAPE_LATE_L2:
        yes = sb_keys8(hash, f->words, f->blocks, keyed, batches, count, answer, insert, SHAPE_LATE_L2);
        break;
    case SHAPE_FROM_RING:
        yes = sb_keys8(hash, f->words, f->blocks, keyed, batches, count, answer, insert, SHAPE_FROM_RING);
        break;
    default: /* SHAPE_NONE: up to the last-level cache the window plan gives no other */
        yes = sb_keys8(hash, f->words, f->blocks, keyed, batches, count, answer, insert, SHAPE_NONE);
    }
    fetch_tune_end(&trial, yes);
    return yes;
}

void avx512_splitblock_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count)
{
    if (hash == KEYS8_MULX64)
        sb_stamp(KEYS8_MULX64, f, seed, batches, count, NULL, 1);
    else
        sb_stamp(KEYS8_XXH3_64, f, seed, batches, count, NULL, 1);
}

size_t avx512_splitblock_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                     size_t count, unsigned char *answer)
{
    if (answer == NULL)
        return hash == KEYS8_MULX64 ? sb_stamp(KEYS8_MULX64, f, seed, batches, count, NULL, 0)
                                    : sb_stamp(KEYS8_XXH3_64, f, seed, batches, count, NULL, 0);
    return hash == KEYS8_MULX64 ? sb_stamp(KEYS8_MULX64, f, seed, batches, count, answer, 0)
                                : sb_stamp(KEYS8_XXH3_64, f, seed, batches, count, answer, 0);
}

#endif /* BLOOMLAB_X86 */
