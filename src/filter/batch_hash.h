/* batch_hash.h -- hashing a batch of keys, for the filter layer's loops
 * (batch.c, dispatch.c): one indirect call hashes the whole batch
 * (batch_hasher_for).  xxh3_64 and xxh3_128 are compiled in with
 * XXH_INLINE_ALL, so XXH3 inlines into that loop and into the loops that
 * include this header, and mulx64's 8-byte keys are one product inline;
 * any other hash goes through its function pointer, once per key. */
#ifndef BLOOMLAB_BATCH_HASH_H
#define BLOOMLAB_BATCH_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "filter/filters.h"

/* XXH3 compiled into each file that includes this: private copies, so the
 * hot loops inline them. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#ifndef ALWAYS_INLINE
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#endif

/* out[j] = the key's (h1, h2) of schemes.h (hash_split) when split, else
 * its raw hash value (the course scheme wants that). */
typedef void (*batch_hash_fn)(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split);

void batch_hash_generic(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split);
void batch_hash_xxh3_64(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split);
void batch_hash_xxh3_128(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split);
void batch_hash_mulx64(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split);

/* The same values as the registry's libxxhash calls: XXH3's output is fixed
 * by its specification since 0.8.0 (tests/test_batch.c compares them).  An
 * 8-byte key takes XXH3_len_4to8_64b written out for len = 8: its two
 * 32-bit halves swapped, xored with the seeded constant, then rrmxmx; the
 * constant (xxh3_8_bitflip) is computed once a batch, not once a key
 * (the compiler did not hoist it out of the library's routine; the
 * instruction counts: docs/PERFORMANCE.md). */
static inline uint64_t xxh3_8_bitflip(uint64_t seed)
{
    seed ^= (uint64_t)XXH_swap32((uint32_t)seed) << 32;
    return (XXH_readLE64(XXH3_kSecret + 8) ^ XXH_readLE64(XXH3_kSecret + 16)) - seed;
}

ALWAYS_INLINE uint64_t xxh3_64_key(const unsigned char *p, size_t len, uint64_t seed, uint64_t bitflip)
{
    if (len == 8) {
        const uint64_t x = XXH_readLE64(p);
        return XXH3_rrmxmx(((x << 32) | (x >> 32)) ^ bitflip, 8);
    }
    return XXH3_64bits_withSeed(p, len, seed);
}

/* 1 when every key of the batch is 8 bytes long: then the loops below run
 * without a call in them, their constants kept in registers.  Two lengths
 * a 64-bit XOR (8 in both halves reads the same on either endianness):
 * half the loads and loop steps of one a key. */
static inline int batch_all_8_bytes(const key_batch *keys)
{
    if (keys->packed8)
        return 1;
    uint64_t other = 0;
    size_t j = 0;
    for (; j + 2 <= keys->count; j += 2) {
        uint64_t two;
        memcpy(&two, &keys->len[j], sizeof two);
        other |= two ^ 0x0000000800000008ULL;
    }
    if (j < keys->count)
        other |= keys->len[j] ^ 8u;
    return other == 0;
}

ALWAYS_INLINE uint64_t xxh3_8(const unsigned char *p, uint64_t bitflip)
{
    const uint64_t x = XXH_readLE64(p);
    return XXH3_rrmxmx(((x << 32) | (x >> 32)) ^ bitflip, 8);
}

/* A registry hash known here by its name (a plugin's name starts "plugin:"). */
batch_hash_fn batch_hasher_for(const hasher *h);

/* Which of the keys8 hashes (filters.h) the registry's hash h is: 1 (and
 * *out), or 0. */
int keys8_hash_of(const hasher *h, keys8_hash *out);

/* The per-call constant of the hash at seed: XXH3's bitflip, mulx64's salt. */
static inline uint64_t keys8_constant(keys8_hash hash, uint64_t seed)
{
    return hash == KEYS8_MULX64 ? mulx64_salt(seed) : xxh3_8_bitflip(seed);
}

/* The hash of one 8-byte key, keyed = keys8_constant(hash, seed). */
ALWAYS_INLINE uint64_t keys8_hash_one(keys8_hash hash, const unsigned char *key, uint64_t keyed)
{
    return hash == KEYS8_MULX64 ? mulx64_8(XXH_readLE64(key), keyed) : xxh3_8(key, keyed);
}

#endif
