/* test_standard_portable.c -- the portable one-pass insert for the standard
 * layout (standard_portable.h) against the one-key reference
 * (filter_insert_one): the same bits, and the portable queries' answers on
 * them the reference's, called directly and through the portable dispatch
 * (filter_ops_portable; batch.c's hook), over runs of 1 to 9 batches of 1
 * to 32 keys, for m a multiple of 64 and not, near 2^32 bits and past it.
 * Through the dispatch, a run with a key that is not 8 bytes long, another
 * hash, or a staging filter must take the stamped loops (keys8_loops.h:
 * the odd keys in allocations of their own length).  Runs in the portable
 * pass (PORTABLE_SUITES) and at every level. */
#include "filter/standard_portable.h"
#include "keys8_loops.h"

static void direct_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    standard_portable_insert_keys8(f, ctx->seed, batches, nb);
}

static const loops DIRECT = {"direct", LAYOUT_STANDARD, 7, direct_insert, ops_query};
static const loops DISPATCH = {"dispatch", LAYOUT_STANDARD, 7, ops_insert, ops_query};
static const loops DISPATCH_K1 = {"dispatch k=1", LAYOUT_STANDARD, 1, ops_insert, ops_query};
static const loops DISPATCH_K13 = {"dispatch k=13", LAYOUT_STANDARD, 13, ops_insert, ops_query};
static const loops CHOSEN = {"filter_key8_for", LAYOUT_STANDARD, 7, key8_chosen_insert, key8_chosen_query};
static const loops CHOSEN_K1 = {"filter_key8_for k=1", LAYOUT_STANDARD, 1, key8_chosen_insert, key8_chosen_query};
static const loops CHOSEN_K13 = {"filter_key8_for k=13", LAYOUT_STANDARD, 13, key8_chosen_insert, key8_chosen_query};

/* 61 bits (crowded: most answers yes; not a multiple of 64), 4099 words
 * less 3 bits, the 1e6 keys at 10 bits of the counts in
 * docs/PERFORMANCE.md, and 2^31 + 5 bits. */
static const uint64_t SIZES[] = {61, 64 * 4099 - 3, 10000000, (1ULL << 31) + 5};

/* Every size by the loop directly and through the dispatch; k = 1 and 13
 * (the position loop's other lengths) through the dispatch. */
Test(standard_portable, keys8)
{
    static const loops *const LOOPS[] = {&DIRECT, &DISPATCH};
    for (size_t l = 0; l < sizeof LOOPS / sizeof LOOPS[0]; l++)
        for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++)
            check_size(LOOPS[l], "xxh3_64", 0, SIZES[i], 3000);
    check_size(&DISPATCH_K1, "xxh3_64", 0, 64 * 4099 - 3, 3000);
    check_size(&DISPATCH_K13, "xxh3_64", 0, 64 * 4099 - 3, 3000);
}

/* One key a call (a library user's bloomlab_add / bloomlab_contains): the
 * functions filter_key8_for chooses, each keys8 hash, k = 7, 1 and 13. */
Test(standard_portable, one_key_calls)
{
    for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++) {
        check_size(&CHOSEN, "xxh3_64", 0, SIZES[i], 3000);
        check_size(&CHOSEN, "mulx64", 0, SIZES[i], 3000);
    }
    check_size(&CHOSEN_K1, "xxh3_64", 0, 64 * 4099 - 3, 3000);
    check_size(&CHOSEN_K13, "mulx64", 0, 64 * 4099 - 3, 3000);
}

/* Mixed lengths (a key of 1 to 7 or 16 bytes among 8-byte ones, in some
 * runs only), 8-byte keys with another hash, and a staging filter (the
 * threshold lowered so that a small one stages): the stamped loops. */
Test(standard_portable, fallbacks)
{
    static const unsigned ODD[] = {37, 200, 1000};
    for (size_t i = 0; i < sizeof ODD / sizeof ODD[0]; i++)
        check_size(&DISPATCH, "xxh3_64", ODD[i], 64 * 4099 - 3, 3000);
    check_size(&DISPATCH, "xxh3_128", 0, 64 * 4099 - 3, 3000);
    check_size(&DISPATCH, "murmur3_128", 0, 61, 1000);
    filter_stage_min_bytes_set(4096);
    check_size(&DISPATCH, "xxh3_64", 0, 64 * 4099 - 3, 3000);
    filter_stage_min_bytes_set(0);
}

/* Just below 2^32 bits and past it (positions beyond 2^32, words beyond
 * 2^26): sparse (keys8_loops.h's check_sparse), one filter at a time.  The
 * staging threshold raised so that the dispatch takes the one-pass loop
 * there too (such a filter stages by default: the staged path is
 * fallbacks' case). */
Test(standard_portable, near_and_above_2_32_bits, .timeout = 180)
{
    static const loops *const LOOPS[] = {&DIRECT, &DISPATCH};
    filter_stage_min_bytes_set(UINT64_MAX);
    check_sparse(LOOPS, 2, (1ULL << 32) - 37);
    check_sparse(LOOPS, 2, (1ULL << 32) / 4 * 5 + 1000001);
    filter_stage_min_bytes_set(0);
}
