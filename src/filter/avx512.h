/* avx512.h -- eight keys at a time: the AVX-512 loops for the hot pairs.
 *
 * In cache, a Bloom filter's cost is arithmetic, not memory: for k = 7 a
 * key is one hash, seven multiply-shift reductions and seven bit tests.
 * These loops do that for eight keys in each instruction, and fetch a
 * position of all eight with one gather.  They exist for every layout with
 * double hashing, the scheme sweeps and the bench use most:
 *
 *   xxh3_64 on 8-byte keys  the 4-to-8-byte path of XXH3 and the double
 *                           hashing split h2 = mix64(h1), eight lanes;
 *   standard + double       u_i = h1 + i h2, pos = floor(u_i m / 2^64) by a
 *                           64 x 64 -> high-64 product made of four 32-bit
 *                           products (two when m < 2^32), then gather (of
 *                           64-bit words, eight keys wide, past 2^32 bits);
 *                           all k in cache, in phases with early exit beyond;
 *   counting + double       the same positions over 4-bit counters;
 *   partitioned + double    the same with slice i's offset and length;
 *   blocked512 + double     the block from u_0, bits from u_1 .. u_k, each
 *                           position then tested like a standard one;
 *   register64 + double     the word from u_0, a mask of k bits from
 *                           u_1 .. u_k, one load or store a key;
 *   splitblock + double     the block from u_0's top half, the eight salted
 *                           bits from its low half: one 256-bit load a key.
 *
 * Every value is the same integer arithmetic as schemes.h and batch.c,
 * so the bits set and the answers are those of the portable loops and of
 * the one-key reference, bit for bit (tests/test_batch.c runs both paths).
 * avx512_usable() says whether this CPU runs them; dispatch.c asks once per
 * filter_ops_for and keeps the portable loops otherwise.
 */
#ifndef BLOOMLAB_AVX512_H
#define BLOOMLAB_AVX512_H

#include <stddef.h>
#include <stdint.h>

#include "base/cpu.h"
#include "filter/filters.h"
#include "filter/key_batch.h"

/* 1 when these loops may run: the CPU has AVX-512 F, DQ, VL and BMI2, and
 * BLOOMLAB_ISA does not cap the level below avx512 (cpu.h). */
static inline int avx512_usable(void) { return cpu_isa() >= ISA_AVX512; }

/* The most keys one call of the layout loops below takes (they keep
 * per-key state on the stack). */
#define AVX512_MAX_KEYS 256

/* h1 = the hash of each key of the batch (xxh3_64: XXH3_64bits_withSeed(key,
 * 8, seed); mulx64: hashes.h's), h2 = mix64(h1), as schemes.h's hash_split
 * makes them of a 64-bit hash; returns -1 (and writes nothing) unless every
 * key is 8 bytes. */
int avx512_keys8_split(keys8_hash hash, uint64_t seed, const key_batch *keys, uint64_t *h1, uint64_t *h2);

/* The loops of every layout, double scheme (k <= 64), all of one shape:
 * the count keys given by their (h1, h2) (count <= AVX512_MAX_KEYS, and
 * the limits below); insert sets their positions, query returns how many
 * found all k set and writes answer[j] (when answer is not NULL).  The
 * bits and answers are batch.c's. */
typedef void avx512_insert_fn(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count);
typedef size_t avx512_query_fn(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                               unsigned char *answer);

/* The same loops taking the keys themselves, for xxh3_64 + double on 8-byte
 * keys: key[j] is key j's 8 bytes read as a little-endian word
 * (avx512_keys8), hashed with the seed inside the loop, a group of keys
 * ahead of the probes (avx512.c says why).  The bits and answers are the
 * same as the loops' above on avx512_keys8_split's (h1, h2). */
typedef size_t avx512_query_keys8_fn(const filter *f, uint64_t seed, const uint64_t *key, size_t count,
                                     unsigned char *answer);

/* The 8-byte keys of batches [0, count) side by side, as little-endian
 * words, into key (room for AVX512_MAX_KEYS + 8: a vector store may run
 * past the last); returns how many, or -1 if some key is not 8 bytes long. */
long avx512_keys8(const key_batch *batches, size_t count, uint64_t *key);

/* standard, m < 2^32 (all k positions: the loop for filters in L2) */
avx512_insert_fn avx512_standard_insert;
avx512_query_fn avx512_standard_query;
/* standard, any m: the same answers with early exit, for filters beyond L2
 * (avx512.c says why) */
avx512_query_fn avx512_standard_query_phased;
avx512_query_keys8_fn avx512_standard_query_keys8, avx512_counting_query_keys8, avx512_partitioned_query_keys8;
/* blocked512 with fewer than 2^23 blocks (positions below 2^32: a filter
 * in L2), without the prefetch of the hashed loop */
avx512_query_keys8_fn avx512_blocked512_query_keys8;
/* counting, m < 2^32 counters: insert adds 1 to each counter below 15 and
 * counts the increments lost at 15 in f->saturations */
avx512_insert_fn avx512_counting_insert;
avx512_query_fn avx512_counting_query, avx512_counting_query_phased;
/* partitioned, m < 2^32: position i = slice_start[i] + reduce(u_i, slice i's length) */
avx512_insert_fn avx512_partitioned_insert;
avx512_query_fn avx512_partitioned_query, avx512_partitioned_query_phased;
/* blocked512, register64 and splitblock: fewer than 2^32 blocks; a split
 * block key's bits come from u_0 = h1 alone (k = 8) */
avx512_insert_fn avx512_blocked512_insert, avx512_register64_insert, avx512_splitblock_insert;
avx512_query_fn avx512_blocked512_query, avx512_register64_query, avx512_splitblock_query;

/* The loops avx512_standard_query_phased and avx512_blocked512_query take
 * from 2^32 bits on (64-bit products and gathers), callable at any size so
 * that the tests can hold them to the narrow ones on small filters. */
avx512_query_fn avx512_standard_query_phased_wide, avx512_blocked512_query_wide;

/* The positions themselves, any m (the tests check the 64 x 64 reduction
 * with it), for the staged inserts of stage.c: the count k positions of
 * the keys, in no particular order, into pos, which needs room for
 * count k + 8 (a vector store may run past the last). */
void avx512_standard_positions(uint64_t m, unsigned k, const uint64_t *h1, const uint64_t *h2, size_t count,
                               uint64_t *pos);

/* The split block for xxh3_64 or mulx64 on 8-byte keys, hashing them in
 * the loop, eight a step: avx2.h's avx2_splitblock_*_keys8, the same
 * arguments (every key 8 bytes long, fewer than 2^32 blocks), bits and
 * answers. */
void avx512_splitblock_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count);
size_t avx512_splitblock_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                     size_t count, unsigned char *answer);

#endif
