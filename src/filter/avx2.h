/* avx2.h -- the AVX2 loops: what every x86-64 CPU since Haswell and Zen 1
 * runs, AVX-512 or not.
 *
 * A ymm register holds four 64-bit lanes or eight 32-bit ones.  AVX2 has no
 * 64 x 64-bit product, so the loops take the keys' (h1, h2) from the
 * scalar hashers (one imul a step, as fast as four lanes of emulated
 * products) and do in vector what needs only 32 x 32-bit products:
 *
 *   splitblock + double     a 256-bit block is one register: the eight
 *                           salted bits of a key are one vpmulld, one shift
 *                           and one vpsllvd from uint32(h1), the block one
 *                           load and one vptest (query) or vpor (insert);
 *                           blocks prefetched a run of keys ahead;
 *                           8-byte keys' xxh3_64 four keys a step;
 *   standard + double       u_i = h1 + i h2 in four 64-bit lanes, pos =
 *                           floor(u_i m / 2^64) by two vpmuludq (m < 2^32);
 *                           queries fetch eight keys' position i by one
 *                           32-bit gather, all k tested without a branch;
 *                           inserts set the bits with scalar ORs, k
 *                           stamped (a filter that stages its inserts, or
 *                           is past where the portable one pass applies,
 *                           takes the portable loop: vector positions
 *                           were not faster there, docs/PERFORMANCE.md);
 *   counting, partitioned   the same positions over 4-bit counters, or
 *                           with slice i's offset and length;
 *   blocked512              the block from u_0, bit i from the top 9 bits
 *                           of u_{i+1} blocks mod 2^64 (two vpmuludq);
 *   register64              the word from u_0, a mask of k bits from
 *                           u_1 .. u_k, one load or store a key;
 *   blocked512, register64  with the multiply scheme (their default):
 *   + multiply              the same block, the in-block bits from the
 *                           32-bit g_i of schemes.h, g riding in the low
 *                           half of a 64-bit lane (one vpmuludq a step).
 *                           On an AVX-512 CPU these AVX2 loops run too:
 *                           avx512.c has no multiply loops.
 *
 * Every value is the same integer arithmetic as schemes.h and batch.c,
 * so the bits set and the answers are those of the portable loops and of
 * the one-key reference, bit for bit (tests/test_avx2.c).  The Makefile
 * compiles avx2.c alone with -mavx2 -mbmi2 -mfma (ISA_FLAGS_avx2);
 * nothing in it may run unless avx2_usable().
 */
#ifndef BLOOMLAB_AVX2_H
#define BLOOMLAB_AVX2_H

#include <stddef.h>
#include <stdint.h>

#include "base/cpu.h"
#include "filter/filters.h"
#include "filter/batch_hash.h"
#include "filter/key_batch.h"

/* 1 when these loops may run: the CPU has AVX2 and BMI2, and BLOOMLAB_ISA
 * does not cap the level below avx2 (cpu.h). */
static inline int avx2_usable(void) { return cpu_isa() >= ISA_AVX2; }

/* The most keys one call takes (per-key state lives on the stack). */
#define AVX2_MAX_KEYS 256

/* The same shapes as avx512.h's: the count keys given by their (h1, h2);
 * insert sets their positions, query returns how many found all k set and
 * writes answer[j] (when answer is not NULL).  A split block key's bits
 * come from h1 alone: its loops never read h2 (which may be NULL). */
typedef void avx2_insert_fn(filter *f, const uint64_t *h1, const uint64_t *h2, size_t count);
typedef size_t avx2_query_fn(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                             unsigned char *answer);

/* standard, counting and partitioned with m < 2^32 (bits or counters);
 * the queries test all k positions (the loops for a filter in cache) */
avx2_insert_fn avx2_standard_insert, avx2_counting_insert, avx2_partitioned_insert;
avx2_query_fn avx2_standard_query, avx2_counting_query, avx2_partitioned_query;
/* standard (m < 2^32), for runs of mostly absent keys: the first three
 * positions of every key tested first, the rest of the k for the keys
 * that found those set; the same answers */
avx2_query_fn avx2_standard_query_prefilter;
/* standard (m < 2^32), beyond L2: the keys in phases of 1, 2, 4, ...
 * positions, those still in kept together between phases; the same
 * answers */
avx2_query_fn avx2_standard_query_phased;
/* blocked512 with fewer than 2^23 blocks (positions below 2^32);
 * register64 and splitblock with fewer than 2^32 blocks */
avx2_insert_fn avx2_blocked512_insert, avx2_register64_insert, avx2_splitblock_insert;
avx2_query_fn avx2_blocked512_query, avx2_register64_query, avx2_splitblock_query;
/* the same with the multiply scheme (schemes.h) */
avx2_insert_fn avx2_blocked512_multiply_insert, avx2_register64_multiply_insert;
avx2_query_fn avx2_blocked512_multiply_query, avx2_register64_multiply_query;

/* The split block loops below compute batch_hash.h's keys8 hashes
 * themselves, four keys a step in vector (a call of fewer than four keys in
 * scalar). */

/* The split block loops for xxh3_64 or mulx64 on 8-byte keys, hashing
 * them in the loop: batches [0, count), every key 8 bytes long (the caller
 * checks: avx2_batches_keys8), fewer than 2^32 blocks; the same bits and
 * answers as the loops above on the keys' h1 (the hash's value).
 * answer[t] for the t-th key of all the batches. */
void avx2_splitblock_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count);
size_t avx2_splitblock_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                   size_t count, unsigned char *answer);
/* One 8-byte key (a library user's one-key call, a batch of one; keyed =
 * keys8_constant(hash, seed)), for each hash (filters.h's
 * filter_key8_calls): set, or tested (1 when all eight of its bits are
 * set), the same bits and answers as the keys8 loops above. */
extern const filter_key8_calls avx2_splitblock_key8[2];
/* 1 when every key of the batches [0, count) is 8 bytes long. */
int avx2_batches_keys8(const key_batch *batches, size_t count);
/* The keys' (h1, h2) of schemes.h's hash_split, h1 = xxh3_64 or mulx64 of
 * each 8-byte key, four keys a step in vector (avx512_keys8_split's twin):
 * 0, or -1 (nothing written) when a key of the batch is not 8 bytes long. */
int avx2_keys8_split(keys8_hash hash, uint64_t seed, const key_batch *keys, uint64_t *h1, uint64_t *h2);

#endif
