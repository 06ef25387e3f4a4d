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
 * mulx64 is Boost.Bloom's mix for integer keys, not a general-purpose hash.
 * boost::hash<uint64_t> is the identity, and boost::bloom::filter mixes a
 * hash not marked avalanching with mulx64: the 128-bit product x C folded
 * as hi ^ lo, C = 0x9E3779B97F4A7C15 (2^64 / golden ratio).  Here, with
 *     fold(a) = hi(a C) ^ lo(a C)   (one 64 x 64 -> 128-bit multiply),
 *     s = seed C mod 2^64           (computed once a filter or a batch),
 * an 8-byte key x (little-endian) hashes to fold(x ^ s), and a key of any
 * other length to fold(XXH3_64(key, len, seed)) (the library's XXH3 makes
 * the bytes one integer; fold keeps the hash defined, it adds nothing).
 * Seed 0 gives s = 0: Boost's mulx64(x) exactly.  s = seed C rather than
 * the seed itself: C is odd, so distinct seeds still give distinct s, and
 * a small seed reaches the key's high bits; x ^ 1 would only swap keys
 * 2i and 2i + 1, the same filter for sequential keys under seeds 0 and 1.
 * fold is not a bijection and does not avalanche like XXH3 (fold(0) = 0
 * and fold(2^64 - 1) = 2^64 - 1 at seed 0); the split block's FPR with it
 * is measured in tests/test_layouts.c.
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

/* mulx64's pieces (above), shared by the registry and the loops that hash
 * 8-byte keys themselves (filter/avx2.c).  unsigned __int128 compiles to
 * one mul (mulx with BMI2) on x86-64 and mul + umulh on AArch64; without
 * it, the product from four 32 x 32-bit ones. */
#define MULX64_C 0x9E3779B97F4A7C15ULL

static inline uint64_t mulx64_fold(uint64_t a)
{
#ifdef __SIZEOF_INT128__
    __extension__ typedef unsigned __int128 u128;
    const u128 p = (u128)a * MULX64_C;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
#else
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, c0 = (uint32_t)MULX64_C, c1 = MULX64_C >> 32;
    const uint64_t p00 = a0 * c0, p01 = a0 * c1, p10 = a1 * c0, p11 = a1 * c1;
    const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    const uint64_t lo = (mid << 32) | (uint32_t)p00, hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}

static inline uint64_t mulx64_salt(uint64_t seed) { return seed * MULX64_C; }

/* mulx64 of an 8-byte key whose little-endian value is x, s = mulx64_salt(seed). */
static inline uint64_t mulx64_8(uint64_t x, uint64_t s) { return mulx64_fold(x ^ s); }

uint32_t fnv1a32(const void *key, size_t len);
uint64_t fnv1a64(const void *key, size_t len);

#endif
