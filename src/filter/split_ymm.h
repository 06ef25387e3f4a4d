/* split_ymm.h -- one key's work on a split block in a 256-bit register:
 * the block is one AVX2 register, so the AVX2 loop (avx2.c) and the
 * AVX-512 loop (avx512.c, whose 512-bit registers hash eight keys at once)
 * set and test it the same way.  Both files are built with AVX2; nothing
 * else includes this.
 *
 * A key of hash h has eight bits, one in each 32-bit word i of its block:
 * bit (uint32(h) SPLITBLOCK_SALT[i] mod 2^32) >> 27 (Parquet's split block
 * filter; filters.h says it once). */
#ifndef BLOOMLAB_SPLIT_YMM_H
#define BLOOMLAB_SPLIT_YMM_H

#include <immintrin.h>
#include <stdint.h>

#include "filter/filters.h" /* SPLITBLOCK_SALT */

#define SPLIT_YMM static inline __attribute__((always_inline))

/* The split block's salt as eight 32-bit lanes. */
SPLIT_YMM __m256i split_salt(void) { return _mm256_loadu_si256((const __m256i *)(const void *)SPLITBLOCK_SALT); }

/* The key's eight bits: a broadcast, a product, two shifts; one is 1 in
 * every lane (a loop keeps it in a register: gcc rebuilt it from a general
 * register every group otherwise). */
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

#endif /* BLOOMLAB_SPLIT_YMM_H */
