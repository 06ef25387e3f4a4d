/* split_ymm.h -- what the split block's AVX2 loop (avx2.c) and AVX-512
 * loop (avx512.c, whose 512-bit registers hash eight keys at once) share:
 * one key's work in a 256-bit register (a block is one AVX2 register, so
 * both set and test it the same way), a block's prefetch and the fetch
 * shapes' parts.  Both files are built with AVX2; nothing else includes
 * this but scripts/onekey.c (built so too), which times a one-key call
 * against the same work inlined.
 *
 * A key of hash h has eight bits, one in each 32-bit word i of its block:
 * bit (uint32(h) SPLITBLOCK_SALT[i] mod 2^32) >> 27 (Parquet's split block
 * filter; filters.h says it once). */
#ifndef BLOOMLAB_SPLIT_YMM_H
#define BLOOMLAB_SPLIT_YMM_H

#include <immintrin.h>
#include <stdint.h>

#include "filter/batch_hash.h" /* keys8_hash_one */
#include "filter/filters.h"    /* SPLITBLOCK_SALT */

#define SPLIT_YMM static inline __attribute__((always_inline))

/* The split block's salt as eight 32-bit lanes. */
SPLIT_YMM __m256i split_salt(void) { return _mm256_loadu_si256((const __m256i *)(const void *)SPLITBLOCK_SALT); }

/* 1 in every lane, broadcast from memory by an asm: one instruction, and a
 * value gcc can neither rebuild nor fold.  From _mm256_set1_epi32(1) gcc
 * made three (a move, a vmovd, a vpbroadcastd), folded a load of a
 * constant it could see back into them, and in a loop rebuilt it every
 * group; a loop keeps this one in a register, and a one-key call, whose
 * every instruction costs it time beyond L2 (scripts/onekey.c: the core
 * overlaps the misses of as many keys as its window holds), spends one. */
SPLIT_YMM __m256i split_one(void)
{
    static const uint32_t one32 = 1;
    __m256i one;
    __asm__("vpbroadcastd %1, %0" : "=x"(one) : "m"(one32));
    return one;
}

/* The key's eight bits: a broadcast, a product, two shifts; one is 1 in
 * every lane (split_one). */
SPLIT_YMM __m256i splitblock_mask_of(uint64_t h, __m256i salt, __m256i one)
{
    const __m256i h32 = _mm256_set1_epi32((int)(uint32_t)h);
    return _mm256_sllv_epi32(one, _mm256_srli_epi32(_mm256_mullo_epi32(h32, salt), 27));
}

/* A key of hash h in its block: its mask ORed in, or tested there
 * (returns 1 when all eight bits are set; insert returns 0). */
SPLIT_YMM unsigned split_key_work(__m256i salt, __m256i one, uint64_t h, void *block_bytes, int insert)
{
    __m256i *block = (__m256i *)block_bytes;
    const __m256i mask = splitblock_mask_of(h, salt, one);
    if (insert) {
        _mm256_store_si256(block, _mm256_or_si256(_mm256_load_si256(block), mask));
        return 0;
    }
    return (unsigned)_mm256_testc_si256(_mm256_load_si256(block), mask); /* mask & ~block == 0 */
}

/* The first word of the key's block: ((h >> 32) blocks) >> 32 blocks of
 * four words (blocks < 2^32: one 32 x 32-bit product). */
SPLIT_YMM uint64_t splitblock_word(uint64_t h, uint64_t blocks) { return (((h >> 32) * blocks) >> 32) << 2; }

/* One key by its hash h, its block's mask set or tested at once.  Returns
 * 1 when all eight bits are set (insert: 0). */
SPLIT_YMM unsigned split_hashed_key(uint64_t *words, uint64_t blocks, __m256i salt, uint64_t h, int insert)
{
    return split_key_work(salt, split_one(), h, &words[splitblock_word(h, blocks)], insert);
}

/* One 8-byte key worked at once, unstaged (a call of fewer than four keys,
 * a library user's one key: avx2.c's one-key calls; scripts/onekey.c takes
 * that call apart): hashed in scalar (the same integers as the loops'). */
SPLIT_YMM unsigned split_lone_key(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, __m256i salt,
                                  const unsigned char *key, int insert)
{
    return split_hashed_key(words, blocks, salt, keys8_hash_one(hash, key, keyed), insert);
}

/* Where a ring slot says a key's block is, from p = (h >> 32) blocks (one
 * vpmuludq a lane, blocks < 2^32), in the loop stamped for each operation:
 *   - a query's slot holds the block's first word, 4 (p >> 32) =
 *     (p >> 30) & ~3, which its load scales by 8 in its address (a byte
 *     address made in vector took a shift more: docs/PERFORMANCE.md,
 *     session 18);
 *   - an insert's holds the block's address, words + 32 (p >> 32) =
 *     words + ((p >> 27) & ~31): one vector add more a register of lanes.
 *     The load and the store then share that one register, where from a
 *     word index gcc made the address in a register first, one lea a key
 *     (AVX2 inserts 19.39 -> 18.65 instructions a key under callgrind).  A
 *     query's load took no lea, and by address it ran slower (the timings:
 *     docs/PERFORMANCE.md, 2026-12-07, session 39).
 * SPLIT_BY_ADDRESS_SHIFT and _ALIGNED are the insert's shift and mask,
 * SPLIT_BY_WORD_ the query's. */
enum { SPLIT_BY_ADDRESS_SHIFT = 27, SPLIT_BY_WORD_SHIFT = 30 };
#define SPLIT_BY_ADDRESS_ALIGNED (~31LL)
#define SPLIT_BY_WORD_ALIGNED (~3LL)
SPLIT_YMM void *split_block_of(uint64_t *words, uint64_t where, int by_address)
{
    return by_address ? (void *)(uintptr_t)where : (void *)&words[where];
}

/* A block's prefetch: none, for reading or for writing into L1, or
 * (FETCH_L2, prefetcht1) into L2 only, the first of two steps
 * (SHAPE_FAR_TWO_STEPS); split_l1_fetch is the one into L1 for an
 * operation.  This build emits prefetcht0 for writing too: gcc needs
 * -mprfchw, not among the Makefile's flags, for prefetchw, which, built
 * in for a trial, made the AVX2 inserts no faster (docs/PERFORMANCE.md,
 * session 24). */
enum { FETCH_NONE, FETCH_READ, FETCH_WRITE, FETCH_L2 };

SPLIT_YMM void split_prefetch(const void *p, int fetch)
{
    if (fetch == FETCH_WRITE)
        __builtin_prefetch(p, 1, 3);
    else if (fetch == FETCH_READ)
        __builtin_prefetch(p, 0, 3);
    else if (fetch == FETCH_L2)
        __builtin_prefetch(p, 0, 2);
}

SPLIT_YMM int split_l1_fetch(int insert) { return insert ? FETCH_WRITE : FETCH_READ; }

/* A fetch shape's parts (filters.h's fetch_shape), for both loops: its
 * ring, the keys between a key's hashing and its work (avx2.c's
 * SPLIT_RING and SPLIT_FAR_RING say why 64 and, in the far shapes, 128;
 * SHAPE_LATE_L2's is 256: with its prefetch late, split_late, the longer
 * ring ran 1e7 keys 7% faster on a Zen 4, where the far shapes, prefetching
 * at once, had measured no faster on 256 keys than on 128, and at 1e8 ran
 * 5% slower on 256: docs/PERFORMANCE.md, sessions 28 and 30); the prefetch
 * as a key is hashed (into L1 for SHAPE_AT_HASH and SHAPE_FAR_ONE_STEP,
 * into L2 for SHAPE_FAR_TWO_STEPS, SHAPE_FAR_L2 and SHAPE_LATE_L2); and
 * whether its blocks are prefetched into L1 again from their ring slots 32
 * keys before their work. */
enum { SPLIT_RING_KEYS = 64, SPLIT_FAR_RING_KEYS = 128, SPLIT_LATE_RING_KEYS = 256 };
SPLIT_YMM size_t split_ring_keys(fetch_shape shape)
{
    if (shape == SHAPE_LATE_L2)
        return SPLIT_LATE_RING_KEYS;
    return shape == SHAPE_FAR_ONE_STEP || shape == SHAPE_FAR_TWO_STEPS || shape == SHAPE_FAR_L2 ? SPLIT_FAR_RING_KEYS
                                                                                                : SPLIT_RING_KEYS;
}
SPLIT_YMM int split_place_fetch(fetch_shape shape, int insert)
{
    if (shape == SHAPE_AT_HASH || shape == SHAPE_FAR_ONE_STEP)
        return split_l1_fetch(insert);
    return shape == SHAPE_FAR_TWO_STEPS || shape == SHAPE_FAR_L2 || shape == SHAPE_LATE_L2 ? FETCH_L2 : FETCH_NONE;
}
SPLIT_YMM int split_from_slot(fetch_shape shape) { return shape == SHAPE_FROM_RING || shape == SHAPE_FAR_TWO_STEPS; }

/* Whether full batch t of a loop whose ring holds ring_batches batches
 * prefetches the next batch's slots into L1 (the from-slot shapes): the
 * groups there are worked in batch t + 1, so every batch from the last one
 * before the first worked (t + 1 == ring_batches) does.  `work` (t >=
 * ring_batches) is a constant at each call, so in the worked batches' loop
 * the test is the shape's alone (t's test there was two instructions a
 * step). */
SPLIT_YMM int split_near_due(fetch_shape shape, int work, size_t t, size_t ring_batches)
{
    return split_from_slot(shape) && (work || t + 1 == ring_batches);
}

/* Whether a shape's prefetch as its key is hashed comes late: SPLIT_LATE_KEYS
 * keys after the hashing, its blocks' words read back from their ring slot
 * (SHAPE_AT_HASH's and SHAPE_LATE_L2's).  At once, the four or eight words
 * come out of the vector they were made in (vmovq, vpextrq, vextracti128):
 * work on the vector pipes, which the loop's hashing and masks keep busy.
 * From a slot written a few steps before, they are plain loads, on ports
 * the loop leaves idle.  On a Zen 4 (docs/PERFORMANCE.md, 2026-12-07,
 * session 30) the AVX2 loop with the filter in L1 took 0.1 ns a key less,
 * at 1e7 keys 10% less (SHAPE_LATE_L2 against SHAPE_FAR_L2), at 1e6
 * SHAPE_AT_HASH 17% less; but at 1e8 keys, where the memory is the time,
 * 5-10% more, so SHAPE_FAR_L2 stays beside SHAPE_LATE_L2 and the tuning
 * (fetch_tune.c) picks.  16 keys late measured faster than 4, 8 or 32. */
#define SPLIT_LATE_KEYS 16
SPLIT_YMM int split_late(fetch_shape shape) { return shape == SHAPE_AT_HASH || shape == SHAPE_LATE_L2; }

/* The prefetch as a key is hashed: a late shape's comes after (split_late). */
SPLIT_YMM int split_hash_fetch(fetch_shape shape, int insert)
{
    return split_late(shape) ? FETCH_NONE : split_place_fetch(shape, insert);
}

#endif /* BLOOMLAB_SPLIT_YMM_H */
