/* batch_hash.c -- the batch hashers of batch_hash.h. */
#include "filter/batch_hash.h"

/* Each value's two halves kept in their registers (the empty asm): gcc 12
 * otherwise joined the returned pair (rax, rdx) into one 16-byte value by
 * way of the stack, two 8-byte stores read back as one 16-byte load, which
 * the core cannot forward: a stall a key, 9.8 ns a key for mulx64 on Zen 5
 * (docs/PERFORMANCE.md, 2026-12-05, session 16). */
void batch_hash_generic(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split)
{
    const unsigned bits = h->bits;
    for (size_t j = 0; j < keys->count; j++) {
        hash128_t v = hasher_hash(h, keys->ptr[j], keys->len[j], seed);
        __asm__("" : "+r"(v.lo), "+r"(v.hi));
        if (split)
            hash_split(v, bits, &v.lo, &v.hi);
        out[j].lo = v.lo;
        out[j].hi = v.hi;
    }
}

void batch_hash_xxh3_64(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split)
{
    (void)h;
    const size_t count = keys->count;
    const uint64_t bitflip = xxh3_8_bitflip(seed);
    if (batch_all_8_bytes(keys)) {
        for (size_t j = 0; j < count; j++) {
            const uint64_t v = xxh3_8(keys->ptr[j], bitflip);
            out[j] = (hash128_t){v, split ? mix64(v) : 0};
        }
        return;
    }
    if (split) {
        for (size_t j = 0; j < count; j++) {
            out[j] = (hash128_t){xxh3_64_key(keys->ptr[j], keys->len[j], seed, bitflip), 0};
            hash_split(out[j], 64, &out[j].lo, &out[j].hi);
        }
    } else {
        for (size_t j = 0; j < count; j++)
            out[j] = (hash128_t){xxh3_64_key(keys->ptr[j], keys->len[j], seed, bitflip), 0};
    }
}

/* mulx64 (hashes.h) of a batch of 8-byte keys inline, each (h1, h2) one
 * product and mix64's two; any other batch key by key through the
 * registry's function, as batch_hash_generic. */
void batch_hash_mulx64(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split)
{
    if (!batch_all_8_bytes(keys)) {
        batch_hash_generic(h, seed, keys, out, split);
        return;
    }
    const uint64_t salt = mulx64_salt(seed);
    for (size_t j = 0; j < keys->count; j++) {
        const uint64_t v = mulx64_8(XXH_readLE64(keys->ptr[j]), salt);
        out[j] = (hash128_t){v, split ? mix64(v) : 0};
    }
}

void batch_hash_xxh3_128(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split)
{
    (void)h;
    (void)split; /* a 128-bit hash splits into its own halves */
    for (size_t j = 0; j < keys->count; j++) {
        XXH128_hash_t r = keys->len[j] == 8 ? XXH3_len_4to8_128b(keys->ptr[j], 8, XXH3_kSecret, seed)
                                            : XXH3_128bits_withSeed(keys->ptr[j], keys->len[j], seed);
        out[j] = (hash128_t){r.low64, r.high64};
    }
}

/* A registry hash known here by its name (a plugin's name starts "plugin:"). */
batch_hash_fn batch_hasher_for(const hasher *h)
{
    if (h->user == NULL && h->bits == 64 && memcmp(h->name, "xxh3_64", 8) == 0)
        return batch_hash_xxh3_64;
    if (h->user == NULL && h->bits == 128 && memcmp(h->name, "xxh3_128", 9) == 0)
        return batch_hash_xxh3_128;
    if (h->user == NULL && strcmp(h->name, "mulx64") == 0)
        return batch_hash_mulx64;
    return batch_hash_generic;
}

int keys8_hash_of(const hasher *h, keys8_hash *out)
{
    if (batch_hasher_for(h) == batch_hash_xxh3_64)
        *out = KEYS8_XXH3_64;
    else if (batch_hasher_for(h) == batch_hash_mulx64)
        *out = KEYS8_MULX64;
    else
        return 0;
    return 1;
}
