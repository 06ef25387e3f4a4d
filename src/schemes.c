/* schemes.c -- scheme names; the schemes themselves are static inline in schemes.h. */
#include "schemes.h"

#include <string.h>
#include <xxhash.h>

static const char *const SCHEME_NAMES[SCHEME_COUNT] = {"independent", "double", "enhanced", "course",
                                                       "ideal",       "parquet"};

const char *scheme_name(scheme_kind scheme) { return SCHEME_NAMES[scheme]; }

int scheme_from_name(const char *name, scheme_kind *out)
{
    for (int i = 0; i < SCHEME_COUNT; i++) {
        if (strcmp(name, SCHEME_NAMES[i]) == 0) {
            *out = (scheme_kind)i;
            return 0;
        }
    }
    return -1;
}

uint64_t parquet_hash(const void *key, size_t len) { return XXH64(key, len, 0); }
