/* splitblock_portable.c -- the loops of splitblock_portable.h: plain C11,
 * compiled with the build's flags alone (no -m option), so that they run on
 * any CPU the rest of the build runs on.
 */
#include "filter/splitblock_portable.h"
#include "filter/batch_hash.h"

#define LOOP static inline __attribute__((always_inline))

/* The first 64-bit word of the key's block: ((h1 >> 32) blocks) >> 32
 * blocks of four words, computed mod 2^64 as the reference does. */
LOOP uint64_t block_word(uint64_t h1, uint64_t blocks) { return (((h1 >> 32) * blocks) >> 32) * 4; }

/* 1 << i and its complement for i in [0, 64): a load from a table in L1
 * instead of a shift by a register's count, which x86-64 without BMI2
 * writes as three instructions (the count moved into cl, a 1 made, the
 * shift). */
#define B4(op, i) op(1ULL << (i)), op(1ULL << ((i) + 1)), op(1ULL << ((i) + 2)), op(1ULL << ((i) + 3))
#define B16(op, i) B4(op, i), B4(op, (i) + 4), B4(op, (i) + 8), B4(op, (i) + 12)
#define B64(op) B16(op, 0), B16(op, 16), B16(op, 32), B16(op, 48)
#define AS_IS(x) (x)
#define FLIPPED(x) (~(x))
static const uint64_t BIT[64] = {B64(AS_IS)};
static const uint64_t NOT_BIT[64] = {B64(FLIPPED)};
#undef FLIPPED
#undef AS_IS
#undef B64
#undef B16
#undef B4

/* 64-bit word t of the key's mask (hole = 0) or of its complement (hole =
 * 1, table NOT_BIT).  32-bit word 2t + s of the block is bits 32 s .. 32 s
 * + 31 of 64-bit word t (the reference's position 32 i + x lies in word
 * (32 i + x) >> 6 at bit (32 i + x) & 63), so mask t holds bit x_{2t} and
 * bit 32 + x_{2t+1}, x_i = (h32 SALT[i] mod 2^32) >> 27: two 32-bit
 * words' bits a 64-bit operation, and ~mask t is the AND of the two holes.
 * Built as 64-bit words, not as eight 32-bit ones stored over the block,
 * so that the bytes are right on either endianness.
 *
 * An insert ORs mask t into word t.  A query uses ~mask: word t has the
 * key's bits iff (~mask_t | word_t) is all ones, so it ANDs the four and
 * compares with ~0, one OR a word against a NOT, an AND and an OR for
 * mask_t AND NOT word_t. */
LOOP uint64_t split_word(const uint64_t *table, int hole, uint32_t h32, unsigned t)
{
    const uint64_t *high = table + 32; /* a pointer of its own: gcc then folds the 32 into the loads */
    const uint64_t a = table[(h32 * SPLITBLOCK_SALT[2 * t]) >> 27];
    const uint64_t b = high[(h32 * SPLITBLOCK_SALT[2 * t + 1]) >> 27];
    return hole ? a & b : a | b;
}

LOOP uint64_t split_mask_word(uint32_t h32, unsigned t) { return split_word(BIT, 0, h32, t); }
LOOP uint64_t split_hole_word(uint32_t h32, unsigned t) { return split_word(NOT_BIT, 1, h32, t); }

/* A batch's keys hashed (xxh3_64 on 8 bytes), their blocks placed and
 * prefetched (for writing when insert): the first pass. */
LOOP void split_hash(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, const key_batch *keys,
                     uint64_t **block, uint32_t *h32, int insert)
{
    for (size_t j = 0; j < keys->count; j++) {
        const uint64_t h = keys8_hash_one(hash, keys->ptr[j], keyed);
        block[j] = &words[block_word(h, blocks)];
        h32[j] = (uint32_t)h;
        if (insert)
            __builtin_prefetch(block[j], 1, 3);
        else
            __builtin_prefetch(block[j], 0, 3);
    }
}

/* The second pass over n keys: their bits set (insert), or tested without a
 * branch (split_hole_word); returns how many found all eight, and writes
 * answer[j] when answer is not NULL (a constant at each call, so the test
 * is compiled away). */
LOOP size_t split_work(uint64_t *const *block, const uint32_t *h32, size_t n, unsigned char *answer, int insert)
{
    size_t yes = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t *w = block[j];
        const uint32_t h = h32[j];
        if (insert) {
            w[0] |= split_mask_word(h, 0);
            w[1] |= split_mask_word(h, 1);
            w[2] |= split_mask_word(h, 2);
            w[3] |= split_mask_word(h, 3);
        } else {
            const uint64_t have = (split_hole_word(h, 0) | w[0]) & (split_hole_word(h, 1) | w[1]) &
                                  (split_hole_word(h, 2) | w[2]) & (split_hole_word(h, 3) | w[3]);
            const int all = have == ~0ULL;
            yes += (size_t)all;
            if (answer != NULL)
                answer[j] = (unsigned char)all;
        }
    }
    return yes;
}

/* One key by its hash h, worked at once (returns 1 when its eight bits
 * are all set; an insert returns 0). */
LOOP int split_one_hash(uint64_t *words, uint64_t blocks, uint64_t h, int insert)
{
    uint64_t *one = &words[block_word(h, blocks)];
    const uint32_t h32 = (uint32_t)h;
    return (int)split_work(&one, &h32, 1, NULL, insert);
}

/* One 8-byte key hashed and worked at once. */
LOOP int split_one_key(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t keyed, const unsigned char *key,
                       int insert)
{
    return split_one_hash(words, blocks, keys8_hash_one(hash, key, keyed), insert);
}

/* Batch b hashed and prefetched, then batch b - 1 worked: a key's block is
 * fetched while the up to KEY_BATCH keys before it are worked (about a
 * memory latency of this loop's work, as avx2.c's SPLIT_RING), and the
 * hashes wait in two arrays of one batch, a loop each, with no test a key
 * of whether the ring is full. */
LOOP size_t split_keys8(keys8_hash hash, uint64_t *words, uint64_t blocks, uint64_t seed, const key_batch *batches,
                        size_t count, unsigned char *answer, int insert)
{
    const uint64_t keyed = keys8_constant(hash, seed);
    if (count == 1 && batches[0].count == 1) { /* one key: nothing to overlap */
        const int all = split_one_key(hash, words, blocks, keyed, batches[0].ptr[0], insert);
        if (answer != NULL)
            answer[0] = (unsigned char)all;
        return (size_t)all;
    }
    uint64_t *block[2][KEY_BATCH];
    uint32_t h32[2][KEY_BATCH];
    size_t yes = 0, done = 0; /* done: keys of the batches before the one worked */
    for (size_t b = 0; b <= count; b++) {
        if (b < count)
            split_hash(hash, words, blocks, keyed, &batches[b], block[b & 1], h32[b & 1], insert);
        if (b > 0) {
            const size_t n = batches[b - 1].count;
            yes += split_work(block[(b - 1) & 1], h32[(b - 1) & 1], n, answer != NULL ? answer + done : NULL, insert);
            done += n;
        }
    }
    return yes;
}

void splitblock_portable_insert_keys8(filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                      size_t count)
{
    if (hash == KEYS8_MULX64)
        split_keys8(KEYS8_MULX64, f->words, f->blocks, seed, batches, count, NULL, 1);
    else
        split_keys8(KEYS8_XXH3_64, f->words, f->blocks, seed, batches, count, NULL, 1);
}

/* One hash's query, stamped with and without the answers' stores. */
LOOP size_t split_query_keys8(keys8_hash hash, const filter *f, uint64_t seed, const key_batch *batches, size_t count,
                              unsigned char *answer)
{
    if (answer == NULL)
        return split_keys8(hash, f->words, f->blocks, seed, batches, count, NULL, 0);
    return split_keys8(hash, f->words, f->blocks, seed, batches, count, answer, 0);
}

size_t splitblock_portable_query_keys8(const filter *f, keys8_hash hash, uint64_t seed, const key_batch *batches,
                                       size_t count, unsigned char *answer)
{
    return hash == KEYS8_MULX64 ? split_query_keys8(KEYS8_MULX64, f, seed, batches, count, answer)
                                : split_query_keys8(KEYS8_XXH3_64, f, seed, batches, count, answer);
}

/* One key, stamped per hash. */
LOOP void split_insert_key8(keys8_hash hash, filter *f, uint64_t keyed, const unsigned char *key)
{
    split_one_key(hash, f->words, f->blocks, keyed, key, 1);
}

LOOP int split_query_key8(keys8_hash hash, const filter *f, uint64_t keyed, const unsigned char *key)
{
    return split_one_key(hash, f->words, f->blocks, keyed, key, 0);
}

/* A key of any length by its hash h (filters.h's filter_key8). */
static int split_insert_hash(filter *f, uint64_t h) { return split_one_hash(f->words, f->blocks, h, 1); }
static int split_query_hash(const filter *f, uint64_t h) { return split_one_hash(f->words, f->blocks, h, 0); }

FILTER_KEY8_CALLS(splitblock_portable_key8, split_insert_key8, split_query_key8, split_insert_hash, split_query_hash)
