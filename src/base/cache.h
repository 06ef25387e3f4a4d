/* cache.h -- the size of this machine's L2, as the C library reports it.
 * The loops of filters.c and the bench's harness row size themselves by it:
 * a filter that fits is bound by arithmetic, one that does not by memory. */
#ifndef BLOOMLAB_CACHE_H
#define BLOOMLAB_CACHE_H

#include <stdint.h>
#include <unistd.h>

#define CACHE_L2_FALLBACK_BYTES (1u << 20) /* where the C library does not know */

/* One core's L2 in bytes (glibc reads it once from cpuid: a call is cheap). */
static inline uint64_t cache_l2_bytes(void)
{
    long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return bytes > 0 ? (uint64_t)bytes : CACHE_L2_FALLBACK_BYTES;
}

#endif
