/* hashes.c -- the registry of hash functions; see hashes.h.
 *
 * FNV-1a is ours (it is four lines); xxHash, MurmurHash3 and CRC32 come from
 * the Debian libraries libxxhash, libmurmurhash and zlib.
 */
#define _GNU_SOURCE /* dladdr1 */
#include "hashes.h"

#include <dlfcn.h>
#include <link.h>
#include <murmurhash.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>

#include "guard.h"

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

static hash128_t h_plugin(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    return (hash128_t){self->user(key, len, seed), 0};
}

static const hasher REGISTRY[] = {
    {"fnv1a32", 32, "FNV-1a, 32-bit (ours; the course page's hash)", h_fnv1a32, NULL},
    {"fnv1a64", 64, "FNV-1a, 64-bit (ours)", h_fnv1a64, NULL},
    {"xxh32", 32, "xxHash XXH32 (libxxhash)", h_xxh32, NULL},
    {"xxh64", 64, "xxHash XXH64 (libxxhash)", h_xxh64, NULL},
    {"xxh3_64", 64, "xxHash XXH3, 64-bit (libxxhash)", h_xxh3_64, NULL},
    {"xxh3_128", 128, "xxHash XXH3, 128-bit (libxxhash)", h_xxh3_128, NULL},
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

/* Split "plugin:PATH:SYMBOL" into the file dlopen is given (a bare name
 * made ./NAME: dlopen would search the library path, a plugin is a file)
 * and the symbol.  0, or -1 with the reason in err. */
static int plugin_split(const char *spec, char *file, size_t file_size, const char **symbol, char *err,
                        size_t err_size)
{
    const char *path = spec + strlen("plugin:");
    const char *colon = strrchr(path, ':');
    if (colon == NULL || colon == path || colon[1] == '\0') {
        snprintf(err, err_size, "hash '%s': a plugin is plugin:PATH.so:SYMBOL", spec);
        return -1;
    }
    size_t path_len = (size_t)(colon - path);
    int bare = memchr(path, '/', path_len) == NULL;
    if (path_len + 3 > file_size || strlen(spec) >= HASH_NAME_MAX) {
        snprintf(err, err_size, "hash '%.60s...': plugin spec too long", spec);
        return -1;
    }
    snprintf(file, file_size, "%s%.*s", bare ? "./" : "", (int)path_len, path);
    *symbol = colon + 1;
    return 0;
}

int hasher_plugin_file(const hasher *h, char *out, size_t size)
{
    const char *symbol;
    char err[16];
    if (h->user == NULL || strncmp(h->name, "plugin:", 7) != 0)
        return -1;
    return plugin_split(h->name, out, size, &symbol, err, sizeof err);
}

static int plugin_resolve(const char *spec, hasher *out, char *err, size_t err_size)
{
    char file_arg[HASH_NAME_MAX + 2];
    const char *symbol;
    if (plugin_split(spec, file_arg, sizeof file_arg, &symbol, err, err_size) != 0)
        return -1;
    /* the messages name the file as the user gave it */
    const char *file = strncmp(file_arg, "./", 2) == 0 && strncmp(spec + 7, "./", 2) != 0 ? file_arg + 2 : file_arg;
    /* its constructors run inside dlopen: a crash or exit() there is named */
    char doing[HASH_NAME_MAX + 64];
    snprintf(doing, sizeof doing, "the constructor of the hash plugin %s", file);
    guard_install();
    guard_set(doing, NULL, NULL);
    void *lib = dlopen(file_arg, RTLD_NOW | RTLD_LOCAL);
    guard_clear();
    if (lib == NULL) {
        const char *why = dlerror();
        snprintf(err, err_size, "hash '%s': cannot load %s: %s", spec, file, why ? why : "unknown error");
        return -1;
    }
    dlerror();
    void *sym = dlsym(lib, symbol);
    if (sym == NULL) {
        snprintf(err, err_size, "hash '%s': %s has no symbol '%s'", spec, file, symbol);
        dlclose(lib);
        return -1;
    }
    /* Calling a data symbol jumps into data: a crash with no message.  The
     * symbol table says what the symbol is. */
    const ElfW(Sym) *entry = NULL;
    Dl_info info;
    if (dladdr1(sym, &info, (void **)&entry, RTLD_DL_SYMENT) != 0 && entry != NULL &&
        ELF64_ST_TYPE(entry->st_info) != STT_FUNC && ELF64_ST_TYPE(entry->st_info) != STT_GNU_IFUNC) {
        snprintf(err, err_size, "hash '%s': '%s' in %s is not a function (a data symbol?)", spec, symbol, file);
        dlclose(lib);
        return -1;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", spec);
    out->bits = 64;
    out->about = "user plugin";
    out->fn = h_plugin;
    memcpy(&out->user, &sym, sizeof out->user); /* POSIX: dlsym's object pointer is the function */
    return 0; /* the library stays loaded for the life of the process */
}

int hasher_resolve(const char *name, hasher *out, char *err, size_t err_size)
{
    if (strncmp(name, "plugin:", 7) == 0)
        return plugin_resolve(name, out, err, err_size);
    for (size_t i = 0; i < REGISTRY_COUNT; i++) {
        if (strcmp(REGISTRY[i].name, name) == 0) {
            *out = REGISTRY[i];
            return 0;
        }
    }
    snprintf(err, err_size, "unknown hash '%s' (bloomlab list shows the hashes)", name);
    return -1;
}
