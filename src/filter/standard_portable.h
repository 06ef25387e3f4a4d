/* standard_portable.h -- the portable one-pass insert for the standard
 * layout with double hashing and xxh3_64 on 8-byte keys, when the filter
 * does not stage (stage.c: staging begins past the last-level cache): what
 * a CPU without AVX2 runs (BLOOMLAB_ISA=portable, and every machine that is
 * not x86-64), and what the AVX2 level falls back to where it has no
 * insert of its own (dispatch.c, standard_insert_run_avx2).
 *
 * Each key is hashed in the loop (batch_hash.h's xxh3_8), its k positions
 * computed and their lines prefetched for writing, and its bits set a
 * batch of keys later, so that the lines have arrived when they are
 * written, with no call, no hasher's output array and no cursor between
 * (splitblock_portable.h has the same shape for split block).
 *
 * The bits are the one-key reference's (batch.c, cursor_start and
 * cursor_position for LAYOUT_STANDARD), bit for bit: h1 = xxh3_64(key,
 * seed), h2 = mix64(h1) (schemes.h, hash_split), position i =
 * floor((h1 + i h2 mod 2^64) m / 2^64) (schemes.h, probe_position), bit
 * pos & 63 of word pos >> 6 (tests/test_standard_portable.c).
 */
#ifndef BLOOMLAB_STANDARD_PORTABLE_H
#define BLOOMLAB_STANDARD_PORTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "filter/filters.h"
#include "filter/key_batch.h"

/* Batches [0, count) into a standard filter that is not staging, every key
 * 8 bytes long and the hash xxh3_64 (the caller checks all three). */
void standard_portable_insert_keys8(filter *f, uint64_t seed, const key_batch *batches, size_t count);

/* One 8-byte key of a standard filter (filters.h's filter_key8; the hash
 * xxh3_64 or mulx64, keyed = keys8_constant(hash, seed)): its k bits set
 * at once (a staging filter too: the bits commute with the staged ones), or
 * tested with an early exit at the first clear one (1 when all are set). */
void standard_portable_insert_key8(filter *f, keys8_hash hash, uint64_t keyed, const unsigned char *key);
int standard_portable_query_key8(const filter *f, keys8_hash hash, uint64_t keyed, const unsigned char *key);

#endif
