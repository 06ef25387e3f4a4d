/* schemes.c -- scheme names; the schemes themselves are static inline in schemes.h. */
#include "filter/schemes.h"
#include "base/names.h"

#include <string.h>
#include <xxhash.h>

static const char *const SCHEME_NAMES[SCHEME_COUNT] = {"independent", "double", "enhanced", "course",
                                                       "ideal",       "parquet", "multiply"};

const char *scheme_name(scheme_kind scheme) { return SCHEME_NAMES[scheme]; }

/* One line each for `bloomlab list`; schemes.h explains them in full. */
static const char *const SCHEME_ABOUT[SCHEME_COUNT] = {
    "k hashes with k seeds",
    "u_i = h1 + i h2 from one hash (Kirsch-Mitzenmacher); default on the unblocked layouts",
    "double hashing with a cubic term (Dillinger-Manolios)",
    "the course page's a + i b mod m (m a power of two)",
    "no hash: positions drawn uniformly and independently (the theory's oracle)",
    "the Parquet format's split-block hash, XXH64 seed 0 (splitblock only)",
    "in-block bits from a 32-bit value times 0x9e3779b9 per probe (RocksDB); default on blocked512, register64",
};

const char *scheme_about(scheme_kind scheme) { return SCHEME_ABOUT[scheme]; }

const char *scheme_names_text(void)
{
    static char text[128];
    if (text[0] == '\0')
        names_join(SCHEME_NAMES, 0, SCHEME_COUNT, text, sizeof text);
    return text;
}

int scheme_from_name(const char *name, scheme_kind *out)
{
    int i = name_index(SCHEME_NAMES, 0, SCHEME_COUNT, name);
    if (i >= 0)
        *out = (scheme_kind)i;
    return i >= 0 ? 0 : -1;
}

uint64_t parquet_hash(const void *key, size_t len) { return XXH64(key, len, 0); }
