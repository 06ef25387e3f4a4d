/* keys.h -- key sets: the items a filter holds and the items it is asked about.
 *
 * A key set gives, for a trial seed, the index-th PRESENT key (inserted) and
 * the index-th ABSENT key (only ever queried).  The two sides are disjoint by
 * construction, never by luck:
 *
 *   random64  8 bytes, present i -> B(2i), absent j -> B(2j+1), where
 *             B(x) = mix64(x + mix64(seed)) is a bijection of 64-bit words:
 *             distinct keys at any n, fresh for each trial.
 *   seq64     8 little-endian bytes: present 0, 1, 2, ...; absent 2^63 + j.
 *             The same keys in every trial (only the hash seed changes).
 *   urls      synthetic crawler URLs, from a bijection of the same indexes:
 *             a few popular hosts and many rare ones, shared path prefixes,
 *             lengths from about 40 to 80 bytes; each URL ends in a token
 *             that encodes its index, so no two are equal.
 *   words     one word per line of a file (`words` alone is
 *             /usr/share/dict/words), duplicates dropped; each trial takes a
 *             seeded permutation of the list: present = its first n words,
 *             absent = the words after them.
 *   course    the course page's 20 present and 20 absent words, in order.
 *
 * Every key also has an identity (2i present, 2j+1 absent), which is what
 * the ideal scheme is keyed by.
 */
#ifndef BLOOMLAB_KEYS_H
#define BLOOMLAB_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "filter/key_batch.h"

typedef struct keyset keyset;

typedef enum { KEY_PRESENT = 0, KEY_ABSENT = 1 } key_side;

/* Open a key set by spec: random64, seq64, urls, words, words:FILE, course.
 * Returns NULL with a one-line reason in err. */
keyset *keyset_open(const char *spec, char *err, size_t err_size);
void keyset_close(keyset *ks);
const char *keyset_spec(const keyset *ks);
/* The file a words set was read from (/usr/share/dict/words for `words`);
 * NULL for the generated sets.  Its bytes are part of a run's inputs. */
const char *keyset_file(const keyset *ks);
/* A words key set's XXH3-128 digest of its file's bytes as they were read
 * (low, high): 0, or -1 for the other key sets.  The inputs fingerprint
 * takes it, so a file is not read twice (and stdin, words:-, cannot be). */
int keyset_digest(const keyset *ks, uint64_t digest[2]);

/* How many distinct keys exist in all (UINT64_MAX for generated sets).  A
 * cell needs n present and `queries` absent keys: n + queries <= size for
 * words, n <= 20 and queries <= 20 for course. */
uint64_t keyset_size(const keyset *ks);
/* 0 when a cell's n and queries fit, else -1 with a reason. */
int keyset_check(const keyset *ks, uint64_t n, uint64_t queries, char *err, size_t err_size);

/* Fill a batch with keys first .. first+count-1 of one side (count <=
 * KEY_BATCH) of a trial that inserts n keys. */
void keyset_fill(const keyset *ks, uint64_t trial_seed, uint64_t n, key_side side,
                 uint64_t first, size_t count, key_batch *out);
/* Keys [first, end) of one side into up to max_batches batches of
 * KEY_BATCH (b[0 .. *made)); returns the index after the last key filled. */
uint64_t keyset_fill_chunk(const keyset *ks, uint64_t trial_seed, uint64_t n, key_side side, uint64_t first,
                           uint64_t end, key_batch *b, size_t max_batches, size_t *made);

/* The course page's words. */
extern const char *const COURSE_PRESENT[20];
extern const char *const COURSE_ABSENT[20];

#endif
