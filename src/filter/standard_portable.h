/* standard_portable.h -- the portable loops for the standard layout with
 * double hashing and 8-byte keys hashed by xxh3_64 or mulx64: what a CPU
 * without AVX2 runs (BLOOMLAB_ISA=portable, and every machine that is not
 * x86-64), and what the AVX2 level falls back to where it has no loop of
 * its own (dispatch.c: queries beyond L2, in rounds on keys it hashed;
 * inserts of 8-byte keys where the one pass gives way to the prefetched
 * loop: dispatch.c's insert_many_standard_avx2).
 *
 * Insert (a filter that does not stage: stage.c begins past the last-level
 * cache), with no call, no hasher's output array and no cursor between:
 * in one pass, each key hashed and its k bits set at once, the loop
 * stamped for each k up to 16 so that a key's positions are straight-line
 * code; or, where filters.h's filter_standard_one_pass says (past
 * L2 under FETCH_AHEAD, from half the last-level cache under
 * FETCH_WINDOW), a batch's positions computed and their lines prefetched
 * for writing, and its bits set a batch of keys later, when the lines have
 * arrived.
 *
 * Query: in rounds over a group of 64 keys, as Boost.Bloom's bulk
 * may_contain does.  Round i tests position i of every key still alive,
 * whose line was prefetched in round i - 1 (into L1, or into L2 alone
 * beyond the last-level cache: filters.h's filter_query_prefetch), and
 * computes and prefetches position i + 1; a key whose bit is clear leaves
 * the group's mask.  An absent key at fill 1/2 leaves after 2 rounds on
 * average, having fetched about 3 lines (the one it failed on and the
 * next, prefetched), where a test of all k fetches k; a present key stays
 * for all k rounds.  No branch depends on a bit's value, so none is
 * mispredicted per key, and every round's misses overlap (the timings:
 * docs/PERFORMANCE.md).
 *
 * Or, for the next group, all k bits of each key at once, no branch on a
 * bit (the inserts' one pass with loads for stores, stamped for k), where
 * the inserts take that pass (filters.h's filter_standard_one_pass) and
 * more than half the last group's keys were present.  A round costs a
 * key's stream and position stored, a prefetch and a mask step per bit
 * tested, so a group of present fraction p costs about a + b (p k + (1 - p)
 * 2) in rounds against c k all at once, with b > c: the two meet at a p
 * below 1, lower in L1 than beyond L2, and 1/2 lies between the break-even
 * points measured (docs/PERFORMANCE.md, session 20), so a call of present
 * keys costs less after its first group and one of absent keys the same.
 * Beyond the one pass's sizes a present key's k lines are misses that only
 * the rounds' prefetches overlap: rounds alone there.  The answers are the
 * same either way.
 *
 * The bits and answers are the one-key reference's (batch.c, cursor_start
 * and cursor_position for LAYOUT_STANDARD), bit for bit: h1 = the hash of
 * the key at the seed, h2 = mix64(h1) (schemes.h, hash_split), position
 * i = floor((h1 + i h2 mod 2^64) m / 2^64) (schemes.h, probe_position),
 * bit pos & 63 of word pos >> 6 (tests/test_standard_portable.c).
 */
#ifndef BLOOMLAB_STANDARD_PORTABLE_H
#define BLOOMLAB_STANDARD_PORTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "filter/filters.h"
#include "filter/key_batch.h"

/* Bit q of the filter: bit q & 63 of word q >> 6 (0 or 1); also avx2.c's
 * prefilter's scalar rest. */
static inline __attribute__((always_inline)) uint64_t standard_bit_at(const uint64_t *words, uint64_t q)
{
    return (words[q >> 6] >> (q & 63)) & 1;
}

/* Batches [0, count) into a standard filter that is not staging, every key
 * 8 bytes long (the caller checks both). */
void standard_portable_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches, size_t count);

/* One 8-byte key of a standard filter (filters.h's filter_key8; the hash
 * xxh3_64 or mulx64, keyed = keys8_constant(hash, seed)): its k bits set
 * at once (a staging filter too: the bits commute with the staged ones), or
 * tested (1 when all are set): by standard_portable_key8's calls with an
 * early exit at the first clear pair, by standard_portable_key8_all_k's all
 * k with no branch on a bit.  An absent key's early exit is a mispredicted
 * branch; all k fetch k lines, whose misses overlap in the core's window
 * where the inserts' one pass does (filter_standard_one_pass), and beyond
 * it cost more than the branch: filter_key8_for takes all k there, the
 * early exit beyond (docs/PERFORMANCE.md, session 20). */
extern const filter_key8_calls standard_portable_key8[2]; /* filters.h's filter_key8_calls, for each hash */
extern const filter_key8_calls standard_portable_key8_all_k[2];

/* The keys of batches [0, count) tested (every key 8 bytes long: the
 * caller checks): returns how many found all k bits
 * set, and answer[t] for the run's t-th key when answer is not NULL. */
size_t standard_portable_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                     size_t count, unsigned char *answer);
/* The rounds over keys hashed before the call: key t's stream from (h1[t],
 * h2[t]) as schemes.h's hash_split gives them (the AVX2 level hashes 8-byte
 * keys four a step: avx2_keys8_split), answers and count as above; no
 * group tested all k at once (the AVX2 level's runs judge that). */
size_t standard_portable_query_split(const filter *f, const uint64_t *h1, const uint64_t *h2, size_t count,
                                     unsigned char *answer);
/* The same rounds for any keys and hasher: each key's stream started as
 * the reference starts it (schemes.h's probe_start with ctx, double
 * hashing), so the same positions. */
size_t standard_portable_query_hashed(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                                      unsigned char *answer);

#endif
