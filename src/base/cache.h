/* cache.h -- the sizes of this machine's L2 and last-level cache, as the C
 * library reports them.  The filter layer's loops (filter/dispatch.c,
 * filter/stage.c) and the bench's harness row size themselves by them: a
 * filter that fits is bound by arithmetic, one that does not by memory. */
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

/* Where the C library does not know the last-level cache (sysconf says 0,
 * as it does off x86 and in some virtual machines): a common server LLC. */
#define CACHE_LLC_FALLBACK_BYTES (32u << 20)

/* The last-level cache in bytes: L3, as sysconf reports it (glibc reads it
 * once from cpuid, like the L2). */
static inline uint64_t cache_llc_bytes(void)
{
    long bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return bytes > 0 ? (uint64_t)bytes : CACHE_LLC_FALLBACK_BYTES;
}

#endif
