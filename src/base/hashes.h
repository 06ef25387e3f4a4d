/* hashes.h -- the hash registry: name -> function over bytes with a 64-bit seed.
 *
 * Every hash returns up to 128 bits in a hash128_t; a hash of width 32 or 64
 * leaves the bits above its width zero.  `bits` is that width; schemes.h
 * decides how a width turns into positions.
 *
 * Seeds: xxHash takes the 64-bit seed as it is; MurmurHash3 and CRC32 take
 * its low 32 bits.  FNV-1a has no seed: seed 0 is the standard FNV-1a, any
 * other seed is FNV-1a over the seed's 8 little-endian bytes followed by
 * the key (the usual way to key an unseeded hash).  The two weak hashes
 * ignore the seed, which is part of what makes them weak.
 *
 * A user's hash: "plugin:PATH.so:SYMBOL" names a function
 *     uint64_t SYMBOL(const void *key, size_t len, uint64_t seed);
 * loaded with dlopen (hash_plugin.c); it counts as a 64-bit hash.
 */
#ifndef BLOOMLAB_HASHES_H
#define BLOOMLAB_HASHES_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t lo;
    uint64_t hi;
} hash128_t;

typedef struct hasher hasher;
typedef hash128_t (*hash_fn)(const hasher *self, const void *key, size_t len, uint64_t seed);
typedef uint64_t (*user_hash_fn)(const void *key, size_t len, uint64_t seed);

#define HASH_NAME_MAX 512

struct hasher {
    char name[HASH_NAME_MAX];
    unsigned bits;     /* output width: 32, 64 or 128 */
    const char *about; /* one line for `bloomlab list` */
    hash_fn fn;
    user_hash_fn user; /* plugins only */
};

static inline hash128_t hasher_hash(const hasher *h, const void *key, size_t len, uint64_t seed)
{
    return h->fn(h, key, len, seed);
}

size_t hash_registry_count(void);
const hasher *hash_registry_at(size_t index);

/* Fill *out for a registered (built-in) name; 0, or -1 for another name. */
int hasher_builtin(const char *name, hasher *out);

/* Fill *out for a registered name or a plugin spec.  Returns 0, or -1 with
 * a one-line reason in err (no trailing newline).  This and
 * hasher_plugin_file are hash_plugin.c's (dlopen). */
int hasher_resolve(const char *name, hasher *out, char *err, size_t err_size);

/* The library file of a plugin hash, as dlopen was given it, into out;
 * 0, or -1 for a built-in hash.  Its bytes are part of a run's inputs. */
int hasher_plugin_file(const hasher *h, char *out, size_t size);

uint32_t fnv1a32(const void *key, size_t len);
uint64_t fnv1a64(const void *key, size_t len);

#endif
