/* cache.h -- the sizes of this machine's L2 and last-level cache, as the C
 * library reports them.  The filter layer's loops (filter/dispatch.c,
 * filter/stage.c) and the bench's harness row size themselves by them: a
 * filter that fits is bound by arithmetic, one that does not by memory. */
#ifndef BLOOMLAB_CACHE_H
#define BLOOMLAB_CACHE_H

#include <stdint.h>

#define CACHE_L2_FALLBACK_BYTES (1u << 20) /* where the C library does not know */

/* One core's L2 in bytes, as sysconf gives it, asked once a process: the
 * vector loops ask at every call, and sysconf is a call into the C library
 * of about 130 instructions (callgrind), a load once kept. */
uint64_t cache_l2_bytes(void);

/* For tests: the size cache_l2_bytes reports from now on (0: the C
 * library's again), so that a small filter is sized as one past L2. */
void cache_l2_bytes_set(uint64_t bytes);

/* Where neither the kernel nor the C library knows the last-level cache
 * (off Linux, or a virtual machine that hides it): a common server LLC. */
#define CACHE_LLC_FALLBACK_BYTES (32u << 20)

/* The last-level cache one core reaches, in bytes: the size of the
 * highest-level cache instance cpu0 belongs to, as the kernel lists it
 * (/sys/devices/system/cpu/cpu0/cache/indexN/size), else sysconf's L3,
 * else the fallback.  The kernel comes first because glibc's L3 figure is
 * the whole package's on AMD parts with several core complexes (256 MiB on
 * an 8-CCD EPYC whose cores each reach 32 MiB), and a threshold set there
 * would treat a filter eight times too big as cached.  Read from files:
 * call it once (filter/stage.c keeps the answer). */
uint64_t cache_llc_bytes(void);

#endif
