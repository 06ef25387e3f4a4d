/* cache.c -- the last-level cache's size; see cache.h. */
#include "base/cache.h"

#include <stdio.h>

#define CACHE_INDEX_MAX 8

/* One of cpu0's cache descriptions: its level, and its size in bytes (0
 * when the kernel does not list it). */
static unsigned cache_index(unsigned index, uint64_t *bytes)
{
    char path[96];
    unsigned level = 0, size = 0;
    char unit = 0;
    *bytes = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/level", index);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int ok = fscanf(f, "%u", &level) == 1;
    fclose(f);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/size", index);
    if (!ok || (f = fopen(path, "r")) == NULL)
        return 0;
    int got = fscanf(f, "%u%c", &size, &unit); /* "32768K" */
    fclose(f);
    if (got < 1)
        return 0;
    *bytes = (uint64_t)size << (got == 2 && unit == 'K' ? 10 : got == 2 && unit == 'M' ? 20 : 0);
    return level;
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
