/* hashes.c -- the registry of hash functions; see hashes.h.
 *
 * FNV-1a is ours (it is four lines); xxHash, MurmurHash3 and CRC32 come from
 * the Debian libraries libxxhash, libmurmurhash and zlib.  A user's hash
 * (a plugin) is loaded by hash_plugin.c, kept apart so that the library
 * (bloomlab.h), which hashes with the registry's xxh3_64 alone, links no
 * dlopen and no crash guard.
 */
#include "base/hashes.h"

#include <murmurhash.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

#define FNV32_OFFSET 2166136261u
#define FNV32_PRIME 16777619u
#define FNV64_OFFSET 14695981039346656037ULL
#define FNV64_PRIME 1099511628211ULL

static uint32_t fnv1a32_continue(uint32_t h, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * FNV32_PRIME;
    return h;
}

static uint64_t fnv1a64_continue(uint64_t h, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * FNV64_PRIME;
    return h;
}

uint32_t fnv1a32(const void *key, size_t len) { return fnv1a32_continue(FNV32_OFFSET, key, len); }
uint64_t fnv1a64(const void *key, size_t len) { return fnv1a64_continue(FNV64_OFFSET, key, len); }

static void seed_bytes(uint64_t seed, unsigned char out[8])
{
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(seed >> (8 * i));
}

static hash128_t h_fnv1a32(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    uint32_t h = FNV32_OFFSET;
    if (seed != 0) {
        unsigned char s[8];
        seed_bytes(seed, s);
        h = fnv1a32_continue(h, s, 8);
    }
    return (hash128_t){fnv1a32_continue(h, key, len), 0};
}

static hash128_t h_fnv1a64(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    uint64_t h = FNV64_OFFSET;
    if (seed != 0) {
        unsigned char s[8];
        seed_bytes(seed, s);
        h = fnv1a64_continue(h, s, 8);
    }
    return (hash128_t){fnv1a64_continue(h, key, len), 0};
}

static hash128_t h_xxh32(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    return (hash128_t){XXH32(key, len, (XXH32_hash_t)seed), 0};
}

static hash128_t h_xxh64(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    return (hash128_t){XXH64(key, len, seed), 0};
}

static hash128_t h_xxh3_64(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    return (hash128_t){XXH3_64bits_withSeed(key, len, seed), 0};
}

static hash128_t h_xxh3_128(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    XXH128_hash_t r = XXH3_128bits_withSeed(key, len, seed);
    return (hash128_t){r.low64, r.high64};
}

static hash128_t h_murmur3_32(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    uint32_t out[1];
    lmmh_x86_32(key, (unsigned)len, (uint32_t)seed, out);
    return (hash128_t){out[0], 0};
}

static hash128_t h_murmur3_128(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    uint64_t out[2];
    lmmh_x64_128(key, (unsigned)len, (uint32_t)seed, out);
    return (hash128_t){out[0], out[1]};
}

static hash128_t h_crc32(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    return (hash128_t){crc32((uLong)(uint32_t)seed, key, (uInt)len), 0};
}

/* Boost.Bloom's integer mix (hashes.h): fold(x ^ seed C) for 8-byte keys. */
static hash128_t h_mulx64(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    if (len == 8) {
        const unsigned char *p = key; /* little-endian, written out: one load (gcc did not merge a loop's) */
        const uint64_t x = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
                           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
        return (hash128_t){mulx64_8(x, mulx64_salt(seed)), 0};
    }
    return (hash128_t){mulx64_fold(XXH3_64bits_withSeed(key, len, seed)), 0};
}

/* Weak on purpose: the first 8 bytes as a little-endian integer. */
static hash128_t h_first8(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    (void)seed;
    const unsigned char *p = key;
    uint64_t v = 0;
    for (size_t i = 0; i < len && i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return (hash128_t){v, 0};
}

/* Weak on purpose: the sum of the bytes. */
static hash128_t h_bytesum(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    (void)self;
    (void)seed;
    const unsigned char *p = key;
    uint32_t s = 0;
    for (size_t i = 0; i < len; i++)
        s += p[i];
    return (hash128_t){s, 0};
}

static const hasher REGISTRY[] = {
    {"fnv1a32", 32, "FNV-1a, 32-bit (ours; the course page's hash)", h_fnv1a32, NULL},
    {"fnv1a64", 64, "FNV-1a, 64-bit (ours)", h_fnv1a64, NULL},
    {"xxh32", 32, "xxHash XXH32 (libxxhash)", h_xxh32, NULL},
    {"xxh64", 64, "xxHash XXH64 (libxxhash)", h_xxh64, NULL},
    {"xxh3_64", 64, "xxHash XXH3, 64-bit (libxxhash)", h_xxh3_64, NULL},
    {"xxh3_128", 128, "xxHash XXH3, 128-bit (libxxhash)", h_xxh3_128, NULL},
    {"mulx64", 64, "Boost.Bloom's mix for integer keys: hi ^ lo of (x ^ seed C) C (8-byte keys; not a general hash)",
     h_mulx64, NULL},
    {"murmur3_32", 32, "MurmurHash3 x86_32 (libmurmurhash)", h_murmur3_32, NULL},
    {"murmur3_128", 128, "MurmurHash3 x64_128 (libmurmurhash)", h_murmur3_128, NULL},
    {"crc32", 32, "CRC-32 (zlib): a checksum, often misused as a hash", h_crc32, NULL},
    {"first8", 64, "weak on purpose: the first 8 bytes as an integer", h_first8, NULL},
    {"bytesum", 32, "weak on purpose: the sum of the bytes", h_bytesum, NULL},
};

#define REGISTRY_COUNT (sizeof REGISTRY / sizeof REGISTRY[0])

size_t hash_registry_count(void) { return REGISTRY_COUNT; }

const hasher *hash_registry_at(size_t index)
{
    return index < REGISTRY_COUNT ? &REGISTRY[index] : NULL;
}

int hasher_builtin(const char *name, hasher *out)
{
    for (size_t i = 0; i < REGISTRY_COUNT; i++) {
        if (strcmp(REGISTRY[i].name, name) == 0) {
            *out = REGISTRY[i];
            return 0;
        }
    }
    return -1;
}
