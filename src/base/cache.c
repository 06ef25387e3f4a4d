/* cache.c -- the sizes of L2 and of the last-level cache; see cache.h. */
#define _GNU_SOURCE
#include "base/cache.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CACHE_INDEX_MAX 8

/* 0 until asked.  Atomic: filters are built and filled on several threads
 * at once (racing threads store the same value). */
static _Atomic uint64_t l2_bytes;

uint64_t cache_l2_bytes(void)
{
    uint64_t bytes = atomic_load_explicit(&l2_bytes, memory_order_relaxed);
    if (bytes == 0) {
        const long asked = sysconf(_SC_LEVEL2_CACHE_SIZE);
        bytes = asked > 0 ? (uint64_t)asked : CACHE_L2_FALLBACK_BYTES;
        atomic_store_explicit(&l2_bytes, bytes, memory_order_relaxed);
    }
    return bytes;
}

void cache_l2_bytes_set(uint64_t bytes) { atomic_store_explicit(&l2_bytes, bytes, memory_order_relaxed); }

/* A small sysfs file's text, read with open/read into buf (no stdio: a
 * FILE's heap buffer, freed, would be reused by the next allocation, and
 * `bloomlab memory` would count a filter's first pages as already
 * resident).  0, or -1. */
static int read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, buf, size - 1);
    close(fd);
    if (got <= 0)
        return -1;
    buf[got] = '\0';
    return 0;
}

/* One of cpu0's cache descriptions: its level, and its size in bytes (0
 * when the kernel does not list it). */
static unsigned cache_index(unsigned index, uint64_t *bytes)
{
    char path[96], text[32], *end;
    *bytes = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/level", index);
    if (read_small(path, text, sizeof text) != 0)
        return 0;
    const unsigned long level = strtoul(text, NULL, 10);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/size", index);
    if (read_small(path, text, sizeof text) != 0)
        return 0;
    const unsigned long long size = strtoull(text, &end, 10); /* "32768K" */
    *bytes = (uint64_t)size << (*end == 'K' ? 10 : *end == 'M' ? 20 : 0);
    return (unsigned)level;
}

uint64_t cache_llc_bytes(void)
{
    unsigned top = 0;
    uint64_t llc = 0;
    for (unsigned i = 0; i < CACHE_INDEX_MAX; i++) {
        uint64_t bytes;
        unsigned level = cache_index(i, &bytes);
        if (level > top && bytes > 0) {
            top = level;
            llc = bytes;
        }
    }
    if (top >= 2) /* an L2 alone is a last level too (some Arm parts) */
        return llc;
    long bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return bytes > 0 ? (uint64_t)bytes : CACHE_LLC_FALLBACK_BYTES;
}
