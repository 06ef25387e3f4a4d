/* key_batch.h -- a batch of keys, the unit every filter loop takes.
 *
 * The filter layer's own type: the key sets of the harness (harness/keys.h)
 * fill batches, the filters (filters.h, the vector loops, plugins) read
 * them, and so the filter library depends on nothing above it. */
#ifndef BLOOMLAB_KEY_BATCH_H
#define BLOOMLAB_KEY_BATCH_H

#include <stddef.h>
#include <stdint.h>

#define KEY_BATCH 32
#define KEY_MAX 192

/* A batch of keys: key j is len[j] bytes at ptr[j].  8-byte keys are made
 * side by side in `packed` (a batch's keys share four cache lines, and a
 * chunk of batches stays small in cache), longer ones each in a `store` slot.
 *
 * packed8 is 1 only when every key is 8 bytes and key j is packed[j]
 * (ptr[j] == packed[j], len[j] == 8), as keyset_fill and the library make
 * 8-byte keys: the loops that hash 8-byte keys then read packed alone,
 * where finding it out from ptr and len touched six more cache lines a
 * batch (lines the filter's own traffic had often pushed out of L1 and L2:
 * docs/PERFORMANCE.md, 2026-12-06).  0 promises nothing (the loops look at
 * ptr and len); whoever builds a batch by hand, or changes a ptr or len of
 * a filled one, sets it to 0. */
typedef struct {
    size_t count;
    int packed8;
    const unsigned char *ptr[KEY_BATCH];
    uint32_t len[KEY_BATCH];
    uint64_t id[KEY_BATCH];
    unsigned char packed[KEY_BATCH][8];
    unsigned char store[KEY_BATCH][KEY_MAX];
} key_batch;

/* The keys of batches [0, count). */
static inline size_t key_batches_keys(const key_batch *batches, size_t count)
{
    size_t keys = 0;
    for (size_t b = 0; b < count; b++)
        keys += batches[b].count;
    return keys;
}

#endif
