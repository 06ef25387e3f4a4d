/* splitblock_portable.c -- the loops of splitblock_portable.h: C11 and the
 * generic vectors GCC and Clang give every target (vector_size), compiled
 * with the build's flags alone (no -m option), so that they run on any CPU
 * the rest of the build runs on.
 */
#include "filter/splitblock_portable.h"
#include "filter/batch_hash.h"

#include <float.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define LOOP static inline __attribute__((always_inline))

/* The first 64-bit word of the key's block: ((h1 >> 32) blocks) >> 32
 * blocks of four words, computed mod 2^64 as the reference does. */
LOOP uint64_t block_word(uint64_t h1, uint64_t blocks) { return (((h1 >> 32) * blocks) >> 32) * 4; }

/* A key's mask, four 32-bit words at a time, in the compiler's generic
 * vectors (GCC and Clang's vector_size: SSE2 on any x86-64, NEON on
 * AArch64, scalar code elsewhere), so that the eight products and shifts
 * run on the vector pipes, not one after another on the scalar multiplier
 * (eight imuls a key had bound the scalar loop: docs/PERFORMANCE.md,
 * session 29).
 *
 * Word i of a block holds bit x_i = (h32 SALT[i] mod 2^32) >> 27.  1 << x
 * has no SSE2 instruction (a shift by a per-lane count is AVX2's), so it
 * is made by the float whose exponent is x: the bits (x << 23) + 0xBF800000
 * are those of -2^x (sign 1, biased exponent 127 + x, mantissa 0), which
 * converts exactly to the int32 -2^x for every x in [0, 32) (-2^31 is
 * INT32_MIN; +2^31 would be out of range for C's conversion), and
 * 0 - (-2^x) mod 2^32 is 1 << x.  (x << 23) is (product >> 4) masked to
 * bits 23..27.  On x86 the products and the conversion take another way,
 * with SSE2's own instructions (split_masks).
 *
 * Lane j of half q is 32-bit word 4q + j of the block as the machine
 * stores it; on a big-endian machine the reference's word i (bits 32 (i &
 * 1) .. of 64-bit word i >> 1) is stored at word i ^ 1, hence the salts'
 * order (split_salts). */
_Static_assert(sizeof(float) == 4 && FLT_RADIX == 2 && FLT_MANT_DIG == 24 && FLT_MAX_EXP == 128,
               "lane_bits builds IEEE-754 binary32 floats");
typedef uint32_t u32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));
typedef float f32x4 __attribute__((vector_size(16)));

typedef struct {
    u32x4 low, high;                 /* the salts of words 0-3 and 4-7, as stored */
    u32x4 low_swapped, high_swapped; /* the same with each salt's 16-bit halves swapped (split_masks) */
} split_salts;

LOOP int little_endian(void)
{
    const uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

LOOP split_salts split_salts_of(void)
{
    const unsigned swap = little_endian() ? 0 : 1;
    split_salts s;
    for (unsigned j = 0; j < 4; j++) {
        s.low[j] = SPLITBLOCK_SALT[j ^ swap];
        s.high[j] = SPLITBLOCK_SALT[(4 + j) ^ swap];
    }
    s.low_swapped = (s.low << 16) | (s.low >> 16);
    s.high_swapped = (s.high << 16) | (s.high >> 16);
    return s;
}

/* 1 << (product >> 27) in each lane, by -2^x's float (above). */
LOOP u32x4 lane_bits(u32x4 product)
{
    const u32x4 negative_power = ((product >> 4) & 0x0F800000u) + 0xBF800000u;
    f32x4 as_float;
    memcpy(&as_float, &negative_power, sizeof as_float);
    return (u32x4){0, 0, 0, 0} - (u32x4)__builtin_convertvector(as_float, i32x4);
}

/* A key's mask in the generic vectors: eight products, eight lane_bits. */
LOOP void split_masks_generic(const split_salts *salt, uint32_t h32, u32x4 *low, u32x4 *high)
{
    const u32x4 h = (u32x4){0, 0, 0, 0} + h32;
    *low = lane_bits(h * salt->low);
    *high = lane_bits(h * salt->high);
}

#if defined(__SSE2__)
/* On x86-64 without SSE4.1 (the portable build: x86-64's baseline is
 * SSE2), a 32-bit product has no instruction either: gcc makes four from
 * two pmuludq and three shuffles, and the loop ran on the shuffle pipes.
 * Only the product's top five bits are wanted, and the top sixteen come
 * from 16-bit products.  With h = hH 2^16 + hL and s = sH 2^16 + sL,
 *
 *   h s mod 2^32 = hL sL + 2^16 (hL sH + hH sL)  (mod 2^32), so
 *   top16(h s)   = hi16(hL sL) + hL sH + hH sL    (mod 2^16).
 *
 * With h's halves in each lane's two 16-bit words and the salt's halves
 * swapped, pmaddwd makes hL sH + hH sL in each 32-bit lane (products of
 * signed words, but alike mod 2^16) and pmulhuw hi16(hL sL) in its low
 * word: their sum's low 16 bits are top16(h s), and (sum << 12) masked
 * puts its top five bits, x, at the float's exponent, bits 23..27.  1 << x
 * is then +2^x's float converted, without lane_bits' negation: cvttps2dq
 * answers the out-of-range +2^31 with 0x80000000 (Intel's "integer
 * indefinite"), which is 1 << 31.  Eight lanes take 14 instructions, two
 * of them shifts, where gcc's code for the generic way took 21, nine of
 * them shifts and shuffles (docs/PERFORMANCE.md, session 36). */
LOOP u32x4 lane_bits_sse2(__m128i h, u32x4 salt, u32x4 salt_swapped)
{
    const __m128i top16 = _mm_add_epi32(_mm_madd_epi16(h, (__m128i)salt_swapped), _mm_mulhi_epu16(h, (__m128i)salt));
    const __m128i exponent = _mm_and_si128(_mm_slli_epi32(top16, 12), _mm_set1_epi32(0x0F800000));
    return (u32x4)_mm_cvttps_epi32(_mm_castsi128_ps(_mm_add_epi32(exponent, _mm_set1_epi32(0x3F800000))));
}
#endif

/* A key's mask, words 0-3 and 4-7 as stored: lane_bits_sse2's way where
 * the build has SSE2, else the generic one. */
LOOP void split_masks(const split_salts *salt, uint32_t h32, u32x4 *low, u32x4 *high)
{
#if defined(__SSE2__)
    const __m128i h = _mm_set1_epi32((int)h32);
    *low = lane_bits_sse2(h, salt->low, salt->low_swapped);
    *high = lane_bits_sse2(h, salt->high, salt->high_swapped);
#else
    split_masks_generic(salt, h32, low, high);
#endif
}

/* One key's bits set in its block (insert), or tested without a branch (a
 * key is in when mask & ~block is zero): returns 1 when all eight are set
 * (an insert returns 0). */
LOOP int split_work_key(const split_salts *salt, uint64_t *block, uint32_t h32, int insert)
{
    u32x4 mask_low, mask_high;
    split_masks(salt, h32, &mask_low, &mask_high);
    u32x4 low, high;
    memcpy(&low, block, sizeof low);
    memcpy(&high, block + 2, sizeof high);
    if (insert) {
        low |= mask_low;
        high |= mask_high;
        memcpy(block, &low, sizeof low);
        memcpy(block + 2, &high, sizeof high);
        return 0;
    }
    const u32x4 missing = (mask_low & ~low) | (mask_high & ~high);
#if defined(__SSE2__) /* a compare and a byte mask, where the halves took three moves: queries 3-5% faster (session 36) */
    return _mm_movemask_epi8(_mm_cmpeq_epi32((__m128i)missing, _mm_setzero_si128())) == 0xFFFF;
#else
    uint64_t halves[2];
    memcpy(halves, &missing, sizeof halves);
    return (halves[0] | halves[1]) == 0;
#endif
}

/* A hashed key waiting for its work: its block and the low half of its
 * hash (the mask's).  One array of these a batch, in place of two arrays
 * (the blocks', the halves'): queries 1-3% faster at 1e5 and 1e6 keys,
 * inserts alike (docs/PERFORMANCE.md, session 38). */
typedef struct {
    uint64_t *block;
    uint32_t h32;
} split_slot;

/* split_work_key for key j of a batch's slots; its answer to answer[j]
 * when answer is not NULL (a constant at each call, so the test is
 * compiled away). */
LOOP size_t split_work_slot(const split_salts *salt, const split_slot *slot, size_t j,
                            unsigned char *answer, int insert)
{
    const int all = split_work_key(salt, slot[j].block, slot[j].h32, insert);
    if (answer != NULL)
        answer[j] = (unsigned char)all;
    return (size_t)all;
}

/* A key's block fetched ahead of its work: for writing when insert, and
 * into L2 alone beyond the last-level cache (far), where a line bound for
 * L1 holds one of the core's few L1 miss buffers for its whole trip from
 * DRAM (filters.h's filter_query_prefetch).  Into L1 at 1e8 keys this loop
 * had run at the rate of those buffers, more than twice its time with the
 * hint (docs/PERFORMANCE.md, session 29). */
LOOP void split_block_prefetch(const uint64_t *block, int insert, int far)
{
    if (!insert)
        filter_query_prefetch(block, far);
    else if (far)
        __builtin_prefetch(block, 1, 2);
    else
        __builtin_prefetch(block, 1, 3);
}

/* Key j of a batch hashed (xxh3_64 or mulx64 on 8 bytes) into its slots:
 * its block placed and prefetched, the low half of its hash kept for the
 * mask. */
LOOP void split_hash_slot(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, const key_batch *keys,
                          size_t j, split_slot *slot, int insert, int far)
{
    const uint64_t h = keys8_hash_one(hash, keys->ptr[j], keyed);
    uint64_t *const block = &words[block_word(h, blocks)];
    slot[j].block = block;
    slot[j].h32 = (uint32_t)h;
    split_block_prefetch(block, insert, far);
}

/* One key by its hash h, worked at once (returns 1 when its eight bits
 * are all set; an insert returns 0). */
LOOP int split_one_hash(uint64_t *words, uint64_t blocks, uint64_t h, int insert)
{
    const split_salts salt = split_salts_of();
    return split_work_key(&salt, &words[block_word(h, blocks)], (uint32_t)h, insert);
}

/* One 8-byte key hashed and worked at once. */
LOOP int split_one_key(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, const unsigned char *key,
                       int insert)
{
    return split_one_hash(words, blocks, keys8_hash_one(hash, key, keyed), insert);
}

/* Batches a key's hashing runs ahead of its work: batch b is hashed and
 * its blocks prefetched while batch b - AHEAD_BATCHES is worked, key j of
 * the one beside key j of the other, so that the hashing's scalar
 * arithmetic runs beside the masks' vector arithmetic (the two as passes
 * of their own took their sum), and a block is fetched while the 64 keys
 * before it are worked: at 1e8 keys 5.6-5.8 ns a key against 6.7 with one
 * batch ahead, alike at 1e7 (docs/PERFORMANCE.md, session 29).  The
 * hashed keys wait in AHEAD_BATCHES + 1 batches of slots. */
enum { AHEAD_BATCHES = 2, SLOT_BATCHES = AHEAD_BATCHES + 1 };

LOOP size_t split_keys8(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t seed, const key_batch *batches,
                        size_t count, unsigned char *answer, int insert, int far)
{
    const uint64_t keyed = keys8_constant(hash, seed);
    if (count == 1 && batches[0].count == 1) { /* one key: nothing to overlap */
        const int all = split_one_key(hash, words, blocks, keyed, batches[0].ptr[0], insert);
        if (answer != NULL)
            answer[0] = (unsigned char)all;
        return (size_t)all;
    }
    const split_salts salt = split_salts_of();
    split_slot slot[SLOT_BATCHES][KEY_BATCH];
    size_t yes = 0, done = 0; /* done: keys of the batches before the one worked */
    for (size_t b = 0; b < count + AHEAD_BATCHES; b++) {
        const key_batch *next = b < count ? &batches[b] : NULL;
        const size_t hashed = next != NULL ? next->count : 0;
        const size_t worked = b >= AHEAD_BATCHES ? batches[b - AHEAD_BATCHES].count : 0;
        split_slot *next_slot = slot[b % SLOT_BATCHES];
        const split_slot *work_slot = slot[(b + 1) % SLOT_BATCHES]; /* batch b - AHEAD_BATCHES's */
        unsigned char *out = answer != NULL ? answer + done : NULL;
        const size_t both = hashed < worked ? hashed : worked;
        size_t j = 0;
        for (; j < both; j++) {
            split_hash_slot(hash, words, blocks, keyed, next, j, next_slot, insert, far);
            yes += split_work_slot(&salt, work_slot, j, out, insert);
        }
        for (size_t h = j; h < hashed; h++)
            split_hash_slot(hash, words, blocks, keyed, next, h, next_slot, insert, far);
        for (size_t w = j; w < worked; w++)
            yes += split_work_slot(&salt, work_slot, w, out, insert);
        done += worked;
    }
    return yes;
}

/* One hash's insert, stamped for the two prefetch hints (far: the filter
 * beyond the last-level cache). */
LOOP void split_insert_keys8(keys8_hash hash, filter *f, uint64_t seed, const key_batch *batches, size_t count)
{
    if (filter_beyond_llc(f))
        split_keys8(hash, f->words, f->blocks, seed, batches, count, NULL, 1, 1);
    else
        split_keys8(hash, f->words, f->blocks, seed, batches, count, NULL, 1, 0);
}

void splitblock_portable_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                      size_t count)
{
    if (hash == KEYS8_MULX64)
        split_insert_keys8(KEYS8_MULX64, f, seed, batches, count);
    else
        split_insert_keys8(KEYS8_XXH3_64, f, seed, batches, count);
}

/* One hash's query, stamped with and without the answers' stores and for
 * the two prefetch hints. */
LOOP size_t split_query_keys8(keys8_hash hash, const filter *f, uint64_t seed, const key_batch *batches, size_t count,
                              unsigned char *answer)
{
    if (filter_beyond_llc(f))
        return answer == NULL ? split_keys8(hash, f->words, f->blocks, seed, batches, count, NULL, 0, 1)
                              : split_keys8(hash, f->words, f->blocks, seed, batches, count, answer, 0, 1);
    return answer == NULL ? split_keys8(hash, f->words, f->blocks, seed, batches, count, NULL, 0, 0)
                          : split_keys8(hash, f->words, f->blocks, seed, batches, count, answer, 0, 0);
}

size_t splitblock_portable_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                       size_t count, unsigned char *answer)
{
    return hash == KEYS8_MULX64 ? split_query_keys8(KEYS8_MULX64, f, seed, batches, count, answer)
                                : split_query_keys8(KEYS8_XXH3_64, f, seed, batches, count, answer);
}

/* One key, stamped per hash. */
LOOP void split_insert_key8(keys8_hash hash, filter *f, uint64_t keyed, const unsigned char *key)
{
    split_one_key(hash, f->words, f->blocks, keyed, key, 1);
}

LOOP int split_query_key8(keys8_hash hash, const filter *f, uint64_t keyed, const unsigned char *key)
{
    return split_one_key(hash, f->words, f->blocks, keyed, key, 0);
}

/* A key of any length by its hash h (filters.h's filter_key8). */
static int split_insert_hash(filter *f, uint64_t h) { return split_one_hash(f->words, f->blocks, h, 1); }
static int split_query_hash(const filter *f, uint64_t h) { return split_one_hash(f->words, f->blocks, h, 0); }

FILTER_KEY8_CALLS(splitblock_portable_key8, split_insert_key8, split_query_key8, split_insert_hash, split_query_hash)

void splitblock_portable_mask(uint32_t h32, int generic, uint64_t block_words[4])
{
    const split_salts salt = split_salts_of();
    u32x4 low, high;
    if (generic)
        split_masks_generic(&salt, h32, &low, &high);
    else
        split_masks(&salt, h32, &low, &high);
    memcpy(block_words, &low, sizeof low); /* as split_work_key lays them on the block */
    memcpy(block_words + 2, &high, sizeof high);
}
