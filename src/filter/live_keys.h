/* live_keys.h -- the list of a phased query's keys still alive, as
 * avx512.c's query_phased and avx2.c's standard_phased keep it: key idx[s]
 * with its next value u[s] and its step step[s] side by side, the keys
 * that found a phase's bits set moved to the front after it.  What both
 * do before the first phase and after the last, in plain C; each file
 * sizes its arrays (its most keys a call and a vector's slack). */
#ifndef BLOOMLAB_LIVE_KEYS_H
#define BLOOMLAB_LIVE_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The count keys (h1, h2) as the list, all alive, and `slack` entries past
 * them zero: a vector's group is loaded whole, its lanes past the list
 * masked and never kept. */
static inline void live_keys_start(uint64_t *u, uint64_t *step, uint32_t *idx, const uint64_t *h1, const uint64_t *h2,
                                   size_t count, size_t slack)
{
    memcpy(u, h1, count * sizeof *h1);
    memcpy(step, h2, count * sizeof *h2);
    for (size_t j = 0; j < count; j++)
        idx[j] = (uint32_t)j;
    for (size_t j = count; j < count + slack; j++)
        u[j] = step[j] = idx[j] = 0;
}

/* The `live` keys left after the last phase are the call's "probably
 * present" ones: answer[j] is 1 for those, 0 for the other count keys
 * (when answer is not NULL).  Returns live. */
static inline size_t live_keys_answers(const uint32_t *idx, size_t live, size_t count, unsigned char *answer)
{
    if (answer != NULL) {
        memset(answer, 0, count);
        for (size_t s = 0; s < live; s++)
            answer[idx[s]] = 1;
    }
    return live;
}

#endif /* BLOOMLAB_LIVE_KEYS_H */
