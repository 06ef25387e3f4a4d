/* test_splitblock_portable.c -- the portable one-pass split block loops
 * (splitblock_portable.h) against the one-key reference (filter_insert_one
 * / filter_query_one): the same bits and the same answers, present and
 * absent keys, called directly and through the portable dispatch
 * (filter_ops_portable), over runs of 1 to 9 batches of uneven sizes and
 * filters from 7 blocks to past 2^32 bits, each hash the loops compute
 * (xxh3_64, mulx64).  Through the dispatch, a run
 * with a key that is not 8 bytes long, or a hash other than those, must
 * take the loops that hash through the registry: those keys are each in an
 * allocation of their own length, so that a loop reading 8 bytes of them
 * is a heap overflow under the sanitizers' pass.  Runs in the portable pass
 * (PORTABLE_SUITES) and at every level: these loops do not depend on one. */
#include "filter/splitblock_portable.h"
#include "base/pcg.h"
#include "keys8_loops.h"

static void direct_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    splitblock_portable_insert_keys8(f, keys8_of(ctx), ctx->seed, batches, nb);
}

static size_t direct_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                           unsigned char *answer)
{
    return splitblock_portable_query_keys8(f, keys8_of(ctx), ctx->seed, batches, nb, answer);
}

/* One key a call: the portable one-key functions, and the ones
 * filter_key8_for chooses for the filter (keys8_loops.h's key8_chosen_*:
 * the AVX2 ones where this CPU and BLOOMLAB_ISA reach). */
static void one_key_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    for (size_t b = 0; b < nb; b++)
        for (size_t j = 0; j < batches[b].count; j++)
            splitblock_portable_key8[keys8_of(ctx)].insert(f, batches[b].ptr[j], keys8_constant(keys8_of(ctx), ctx->seed));
}

static size_t one_key_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                            unsigned char *answer)
{
    size_t yes = 0, t = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t j = 0; j < batches[b].count; j++, t++) {
            const int all =
                splitblock_portable_key8[keys8_of(ctx)].query(f, batches[b].ptr[j], keys8_constant(keys8_of(ctx), ctx->seed));
            yes += (size_t)all;
            if (answer != NULL)
                answer[t] = (unsigned char)all;
        }
    return yes;
}

static const loops ONE_KEY = {"one key", LAYOUT_SPLITBLOCK, 8, one_key_insert, one_key_query};
static const loops CHOSEN = {"filter_key8_for", LAYOUT_SPLITBLOCK, 8, key8_chosen_insert, key8_chosen_query};
static const loops DIRECT = {"direct", LAYOUT_SPLITBLOCK, 8, direct_insert, direct_query};
static const loops DISPATCH = {"dispatch", LAYOUT_SPLITBLOCK, 8, ops_insert, ops_query};

/* 7 blocks (crowded: most answers yes), 40 (the tests' 3000 keys leave
 * about half the absent keys answering yes, so an answer out of place
 * shows), 4099, the 1e6 keys at 10.67 bits of the counts in
 * docs/PERFORMANCE.md, and 2^31 bits. */
static const uint64_t SIZES[] = {256 * 7, 256 * 40, 256 * 4099, 10670080, (1ULL << 31) + 256 * 3};

/* Every size, each keys8 hash; and two with the keys moved out of their
 * batches' packed slots (keys8_loops.h's KEYS8_MOVED). */
Test(splitblock_portable, keys8_direct)
{
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        check_size(&DIRECT, "xxh3_64", 0, SIZES[i], 3000);
        check_size(&DIRECT, "mulx64", 0, SIZES[i], 3000);
    }
    check_size(&DIRECT, "xxh3_64", KEYS8_MOVED, 256 * 40, 3000);
    check_size(&DIRECT, "mulx64", KEYS8_MOVED, 10670080, 3000);
}

Test(splitblock_portable, keys8_dispatch)
{
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        check_size(&DISPATCH, "xxh3_64", 0, SIZES[i], 3000);
        check_size(&DISPATCH, "mulx64", 0, SIZES[i], 3000);
    }
}

Test(splitblock_portable, one_key_calls)
{
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        check_size(&ONE_KEY, "xxh3_64", 0, SIZES[i], 3000);
        check_size(&ONE_KEY, "mulx64", 0, SIZES[i], 3000);
        check_size(&CHOSEN, "xxh3_64", 0, SIZES[i], 3000);
        check_size(&CHOSEN, "mulx64", 0, SIZES[i], 3000);
    }
}

/* filter_key8_for gives one-key calls to the split block and the standard
 * layout with double hashing and a keys8 hash only: another layout, scheme
 * or hash gets none (its keys then take the layout's ops, which hash
 * through the registry). */
Test(splitblock_portable, one_key_calls_only_where_they_apply)
{
    static const char *const HASHES[] = {"xxh3_64", "mulx64", "xxh3_128", "murmur3_128"};
    for (size_t h = 0; h < sizeof HASHES / sizeof HASHES[0]; h++) {
        hasher hs;
        char err[256];
        cr_assert_eq(hasher_resolve(HASHES[h], &hs, err, sizeof err), 0, "%s", err);
        const scheme_ctx ctx = {&hs, 0, 0};
        for (int l = 0; l < LAYOUT_COUNT; l++) {
            filter f;
            cr_assert_eq(filter_init(&f, (layout_kind)l, layout_fit_m((layout_kind)l, 256 * 64), 8), 0);
            for (int sc = 0; sc < SCHEME_COUNT; sc++) {
                const filter_key8 k8 = filter_key8_for(&f, &ctx, (scheme_kind)sc);
                const int expected = (l == LAYOUT_SPLITBLOCK || l == LAYOUT_STANDARD) && sc == SCHEME_DOUBLE && h < 2;
                cr_assert_eq(k8.calls.insert != NULL, expected, "%s layout %d scheme %d", HASHES[h], l, sc);
                cr_assert_eq(k8.calls.query != NULL, expected, "%s layout %d scheme %d", HASHES[h], l, sc);
                cr_assert_eq(k8.calls.insert_hash != NULL, expected, "%s layout %d scheme %d", HASHES[h], l, sc);
                cr_assert_eq(k8.calls.query_hash != NULL, expected, "%s layout %d scheme %d", HASHES[h], l, sc);
            }
            filter_free(&f);
        }
    }
}

/* Mixed lengths (a key of 1 to 7 or 16 bytes among 8-byte ones, in some
 * runs only), and 8-byte keys with another hash: the registry's loops. */
Test(splitblock_portable, fallbacks)
{
    static const unsigned ODD[] = {37, 200, 1000};
    for (size_t i = 0; i < sizeof ODD / sizeof ODD[0]; i++)
        check_size(&DISPATCH, i % 2 ? "mulx64" : "xxh3_64", ODD[i], 256 * 4099, 3000);
    check_size(&DISPATCH, "xxh3_128", 0, 256 * 4099, 3000);
    check_size(&DISPATCH, "murmur3_128", 0, 256 * 7, 1000);
}

/* Past 2^32 bits (2^24 blocks): the block's first word, ((h1 >> 32)
 * blocks) >> 32 times 4, beyond 2^26.  */
Test(splitblock_portable, above_2_32_bits, .timeout = 120)
{
    static const loops *const LOOPS[] = {&DIRECT, &DISPATCH};
    check_sparse(LOOPS, 2, (1ULL << 32) / 4 * 5 + 1000001);
}

/* A key's mask both ways the loops make it (splitblock_portable_mask: from
 * 16-bit products on x86, where the generic way is every other target's)
 * against the definition, as the reference lays it on the block's 64-bit
 * words: word i's bit (h32 SPLITBLOCK_SALT[i] mod 2^32) >> 27, in bits 32 (i
 * & 1) .. of 64-bit word i >> 1.  For h32 whose product with each salt is
 * each bit's first and last value (x 2^27 and x 2^27 + 2^27 - 1, from the
 * salt's inverse mod 2^32: the salts are odd), then 2^20 random ones. */
static void check_mask(uint32_t h32)
{
    uint64_t expected[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < 8; i++)
        expected[i >> 1] |= 1ULL << (32 * (i & 1) + ((uint32_t)(h32 * SPLITBLOCK_SALT[i]) >> 27));
    for (int generic = 0; generic <= 1; generic++) {
        uint64_t words[4];
        splitblock_portable_mask(h32, generic, words);
        for (unsigned w = 0; w < 4; w++)
            cr_assert_eq(words[w], expected[w], "h32 %#x, 64-bit word %u, %s way: %#llx, expected %#llx", h32, w,
                         generic ? "generic" : "the loops'", (unsigned long long)words[w],
                         (unsigned long long)expected[w]);
    }
}

static uint32_t inverse_mod_2_32(uint32_t odd)
{
    uint32_t inverse = odd; /* right to 3 bits; each step doubles them */
    for (int i = 0; i < 5; i++)
        inverse *= 2u - odd * inverse;
    return inverse;
}

Test(splitblock_portable, masks_both_ways)
{
    for (unsigned i = 0; i < 8; i++) {
        const uint32_t inverse = inverse_mod_2_32(SPLITBLOCK_SALT[i]);
        cr_assert_eq(inverse * SPLITBLOCK_SALT[i], 1u);
        for (uint32_t x = 0; x < 32; x++) {
            check_mask((x << 27) * inverse);
            check_mask(((x << 27) + (1u << 27) - 1) * inverse);
        }
    }
    pcg32_t rng;
    pcg32_seed(&rng, 36, 1);
    for (int t = 0; t < 1 << 20; t++)
        check_mask(pcg32_next(&rng));
}
