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
 * chunk of batches stays small in cache), longer ones each in a `store` slot. */
typedef struct {
    size_t count;
    const unsigned char *ptr[KEY_BATCH];
    uint32_t len[KEY_BATCH];
    uint64_t id[KEY_BATCH];
    unsigned char packed[KEY_BATCH][8];
    unsigned char store[KEY_BATCH][KEY_MAX];
} key_batch;

#endif
