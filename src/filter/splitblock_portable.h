/* splitblock_portable.h -- the portable one-pass loops for split block with
 * double hashing and xxh3_64 (or mulx64) on 8-byte keys: what a CPU without AVX2 runs
 * (BLOOMLAB_ISA=portable, and every machine that is not x86-64), the
 * portable twin of avx2.h's avx2_splitblock_*_keys8.
 *
 * Each key is hashed in the loop (batch_hash.h's keys8_hash_one), its block placed
 * and prefetched, and its bits set or tested two batches of keys later, so
 * that the block's line has arrived when it is worked (Boost.Bloom's bulk
 * path has this shape), with no call and no hasher's output array between.
 *
 * The bits are the one-key reference's (batch.c, cursor_start and
 * cursor_position for LAYOUT_SPLITBLOCK), bit for bit: h1 = xxh3_64(key,
 * seed); block ((h1 >> 32) blocks) >> 32 (mod 2^64, as there), and in its
 * 32-bit word i the bit (uint32(h1) SPLITBLOCK_SALT[i] mod 2^32) >> 27
 * (tests/test_splitblock_portable.c).
 */
#ifndef BLOOMLAB_SPLITBLOCK_PORTABLE_H
#define BLOOMLAB_SPLITBLOCK_PORTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "filter/batch_hash.h"
#include "filter/filters.h"
#include "filter/key_batch.h"

/* Batches [0, count), every key 8 bytes long and the registry's hash the
 * one `hash` names (the caller checks both: keys8_hash_of): insert sets the
 * keys' bits; query returns how many keys found all eight set and, when
 * answer is not NULL, writes answer[t] for the t-th key of all the batches
 * (0 or 1). */
void splitblock_portable_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                      size_t count);
size_t splitblock_portable_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                       size_t count, unsigned char *answer);

/* One 8-byte key, for each hash (filters.h's filter_key8_calls; keyed =
 * keys8_constant(hash, seed)): its bits set, or 1 when all eight are set. */
extern const filter_key8_calls splitblock_portable_key8[2];

/* For tests: a key's mask, as the four 64-bit words of its block, for the
 * low 32 bits h32 of its hash, made as the loops make it (generic 0: on x86
 * from 16-bit products) or by the generic vectors' way every other target
 * takes (generic 1). */
void splitblock_portable_mask(uint32_t h32, int generic, uint64_t block_words[4]);

#endif
