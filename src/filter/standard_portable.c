/* standard_portable.c -- the loop of standard_portable.h: plain C11,
 * compiled with the build's flags alone (no -m option), so that it runs on
 * any CPU the rest of the build runs on.
 */
#include "filter/standard_portable.h"
#include "filter/batch_hash.h"
#include "filter/schemes.h"

#define LOOP static inline __attribute__((always_inline))

/* An 8-byte key's stream of positions: the hash (xxh3_64 or mulx64,
 * keyed = keys8_constant(hash, seed)) split as schemes.h's hash_split does. */
LOOP probe key8_probe(keys8_hash hash, uint64_t keyed, const unsigned char *key)
{
    probe p;
    probe_start_hashed(SCHEME_DOUBLE, &p, (hash128_t){keys8_hash_one(hash, key, keyed), 0}, 64);
    return p;
}

/* A batch's keys hashed (xxh3_64 on 8 bytes), their k positions computed
 * by schemes.h's double hashing stream and reduction (the reference's
 * arithmetic, not a copy of it) into pos[j k + i], and each position's
 * line prefetched for writing: the first pass. */
LOOP void standard_hash(const uint64_t *words, uint64_t m, unsigned k, uint64_t bitflip, const key_batch *keys,
                        uint64_t *pos)
{
    for (size_t j = 0; j < keys->count; j++) {
        probe p = key8_probe(KEYS8_XXH3_64, bitflip, keys->ptr[j]);
        /* k is known only at run time: two positions a loop step halve the
         * step's count, compare and branch, and leave one test for an odd k
         * (a wider unroll's remainder jumps cost more a key than they save:
         * make loopcount).  clang reads the same pragma. */
#pragma GCC unroll 2
        for (unsigned i = 0; i < k; i++) {
            /* ctx is read by the other schemes only: SCHEME_DOUBLE folds it away */
            const uint64_t q = probe_position(SCHEME_DOUBLE, NULL, &p, m);
            *pos++ = q;
            __builtin_prefetch(&words[q >> 6], 1, 3);
        }
    }
}

/* The second pass: the bits of n positions set, in key order; n is the
 * batch's count times k, so eight a loop step leave the step's overhead an
 * eighth. */
LOOP void standard_set(uint64_t *words, const uint64_t *pos, size_t n)
{
#pragma GCC unroll 8
    for (size_t t = 0; t < n; t++)
        words[pos[t] >> 6] |= 1ULL << (pos[t] & 63);
}

/* Batch b hashed and prefetched, then batch b - 1's bits set: a line is
 * fetched while the up to KEY_BATCH keys before its key are worked, as in
 * splitblock_portable.c, the positions waiting in two arrays of one batch. */
void standard_portable_insert_keys8(filter *f, uint64_t seed, const key_batch *batches, size_t count)
{
    uint64_t *const words = f->words;
    const uint64_t m = f->m;
    const unsigned k = f->k;
    const uint64_t bitflip = xxh3_8_bitflip(seed);
    uint64_t pos[2][KEY_BATCH * FILTER_K_MAX];
    for (size_t b = 0; b <= count; b++) {
        if (b < count)
            standard_hash(words, m, k, bitflip, &batches[b], pos[b & 1]);
        if (b > 0)
            standard_set(words, pos[(b - 1) & 1], batches[b - 1].count * k);
    }
}

/* words, m and k in locals: a store through f->words could alias *f, and
 * the compiler would load them again after each bit set. */
LOOP void insert_key8(keys8_hash hash, filter *f, uint64_t keyed, const unsigned char *key)
{
    uint64_t *const words = f->words;
    const uint64_t m = f->m;
    const unsigned k = f->k;
    probe p = key8_probe(hash, keyed, key);
    for (unsigned i = 0; i < k; i++) {
        const uint64_t q = probe_position(SCHEME_DOUBLE, NULL, &p, m);
        words[q >> 6] |= 1ULL << (q & 63);
    }
}

LOOP int query_key8(keys8_hash hash, const filter *f, uint64_t keyed, const unsigned char *key)
{
    const uint64_t *const words = f->words;
    const uint64_t m = f->m;
    const unsigned k = f->k;
    probe p = key8_probe(hash, keyed, key);
    unsigned i = 0;
    for (; i + 2 <= k; i += 2) { /* two positions a test: their loads overlap, half the branches */
        const uint64_t q0 = probe_position(SCHEME_DOUBLE, NULL, &p, m), q1 = probe_position(SCHEME_DOUBLE, NULL, &p, m);
        if (!((words[q0 >> 6] >> (q0 & 63)) & (words[q1 >> 6] >> (q1 & 63)) & 1))
            return 0;
    }
    if (i < k) {
        const uint64_t q = probe_position(SCHEME_DOUBLE, NULL, &p, m);
        return (int)((words[q >> 6] >> (q & 63)) & 1);
    }
    return 1;
}

void standard_portable_insert_key8(filter *f, keys8_hash hash, uint64_t keyed, const unsigned char *key)
{
    if (hash == KEYS8_MULX64)
        insert_key8(KEYS8_MULX64, f, keyed, key);
    else
        insert_key8(KEYS8_XXH3_64, f, keyed, key);
}

int standard_portable_query_key8(const filter *f, keys8_hash hash, uint64_t keyed, const unsigned char *key)
{
    return hash == KEYS8_MULX64 ? query_key8(KEYS8_MULX64, f, keyed, key) : query_key8(KEYS8_XXH3_64, f, keyed, key);
}
