/* test_standard_portable.c -- the portable loops for the standard layout
 * and 8-byte keys (standard_portable.h) against the one-key reference
 * (filter_insert_one, filter_query_one): the same bits, and the same
 * answers (the query's groups of 64 keys, in rounds or all k at once,
 * runs of 1 to 9 batches of 1 to 32 keys crossing the groups' edges, and
 * runs of present and absent groups in turn; the one-key calls' two
 * tables, early exit and all k, and which one a filter takes), called directly and
 * through the portable dispatch (filter_ops_portable; batch.c's hook) and
 * the AVX2 level's (filter_ops_for), for each keys8 hash (xxh3_64, mulx64),
 * for m a multiple of 64 and not, near 2^32 bits and past it, k stamped and
 * not, the inserts' one pass and prefetched loop each, with the keys in
 * their batches' packed slots and moved out of them.  Through the dispatch, a run with a key that is
 * not 8 bytes long, another hash, or a staging filter must take the
 * stamped loops (keys8_loops.h: the odd keys in allocations of their own
 * length).  Runs in the portable pass (PORTABLE_SUITES) and at every level. */
#include "filter/standard_portable.h"
#include "base/cache.h"
#include "base/cpu.h"
#include "helpers.h"
#include "keys8_loops.h"

static void direct_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    standard_portable_insert_keys8(f, keys8_of(ctx), ctx->seed, batches, nb);
}

static size_t direct_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                           unsigned char *answer)
{
    return standard_portable_query_keys8(f, keys8_of(ctx), ctx->seed, batches, nb, answer);
}

/* Through filter_ops_for, the ops of the level in force (the AVX2 level's
 * inserts of 8-byte keys are standard_portable's: dispatch.c). */
static void level_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    ops_run_insert(filter_ops_for(f->layout, SCHEME_DOUBLE), f, ctx, batches, nb);
}

static size_t level_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                          unsigned char *answer)
{
    return ops_run_query(filter_ops_for(f->layout, SCHEME_DOUBLE), f, ctx, batches, nb, answer);
}

/* Queries of any key and hasher (standard_portable_query_hashed), called
 * directly; filled through the portable dispatch. */
static size_t hashed_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                           unsigned char *answer)
{
    return standard_portable_query_hashed(f, ctx, batches, nb, answer);
}

/* A table of one-key calls (standard_portable.h: the early exit's or all
 * k's) for the run's hash, as filter_key8_for would hand it out. */
static filter_key8 table_key8(const filter_key8_calls *table, const scheme_ctx *ctx)
{
    const keys8_hash hash = keys8_of(ctx);
    return (filter_key8){table[hash], hash, keys8_constant(hash, ctx->seed)};
}

static void early_exit_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    key8_calls_run(table_key8(standard_portable_key8, ctx), f, NULL, ctx, batches, nb, NULL);
}

static size_t early_exit_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                               unsigned char *answer)
{
    return key8_calls_run(table_key8(standard_portable_key8, ctx), NULL, f, ctx, batches, nb, answer);
}

static void all_k_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb)
{
    key8_calls_run(table_key8(standard_portable_key8_all_k, ctx), f, NULL, ctx, batches, nb, NULL);
}

static size_t all_k_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t nb,
                          unsigned char *answer)
{
    return key8_calls_run(table_key8(standard_portable_key8_all_k, ctx), NULL, f, ctx, batches, nb, answer);
}

static const loops DIRECT = {"direct", LAYOUT_STANDARD, 7, direct_insert, direct_query};
static const loops EARLY_EXIT = {"one key, early exit", LAYOUT_STANDARD, 7, early_exit_insert, early_exit_query};
static const loops EARLY_EXIT_K24 = {"one key, early exit, k=24", LAYOUT_STANDARD, 24, early_exit_insert,
                                     early_exit_query};
static const loops ALL_K = {"one key, all k", LAYOUT_STANDARD, 7, all_k_insert, all_k_query};
static const loops ALL_K_K24 = {"one key, all k, k=24", LAYOUT_STANDARD, 24, all_k_insert, all_k_query};
static const loops HASHED = {"hashed", LAYOUT_STANDARD, 7, ops_insert, hashed_query};
static const loops DIRECT_K24 = {"direct k=24", LAYOUT_STANDARD, 24, direct_insert, direct_query};
static const loops DISPATCH_K24 = {"dispatch k=24", LAYOUT_STANDARD, 24, ops_insert, ops_query};
static const loops CHOSEN_K24 = {"filter_key8_for k=24", LAYOUT_STANDARD, 24, key8_chosen_insert, key8_chosen_query};
static const loops LEVEL = {"filter_ops_for", LAYOUT_STANDARD, 7, level_insert, level_query};
static const loops LEVEL_K24 = {"filter_ops_for k=24", LAYOUT_STANDARD, 24, level_insert, level_query};
static const loops LEVEL_K1 = {"filter_ops_for k=1", LAYOUT_STANDARD, 1, level_insert, level_query};
static const loops LEVEL_K13 = {"filter_ops_for k=13", LAYOUT_STANDARD, 13, level_insert, level_query};
static const loops DIRECT_K1 = {"direct k=1", LAYOUT_STANDARD, 1, direct_insert, direct_query};
static const loops DIRECT_K13 = {"direct k=13", LAYOUT_STANDARD, 13, direct_insert, direct_query};
static const loops DISPATCH = {"dispatch", LAYOUT_STANDARD, 7, ops_insert, ops_query};
static const loops DISPATCH_K1 = {"dispatch k=1", LAYOUT_STANDARD, 1, ops_insert, ops_query};
static const loops DISPATCH_K13 = {"dispatch k=13", LAYOUT_STANDARD, 13, ops_insert, ops_query};
static const loops CHOSEN = {"filter_key8_for", LAYOUT_STANDARD, 7, key8_chosen_insert, key8_chosen_query};
static const loops CHOSEN_K1 = {"filter_key8_for k=1", LAYOUT_STANDARD, 1, key8_chosen_insert, key8_chosen_query};
static const loops CHOSEN_K13 = {"filter_key8_for k=13", LAYOUT_STANDARD, 13, key8_chosen_insert, key8_chosen_query};

/* 61 bits (crowded: most answers yes; not a multiple of 64), 30011 bits
 * (the tests' 3000 keys at k = 7 leave it about half full, where an
 * absent key's answer turns on any of its k bits: about 2^-7 of them on
 * the last alone), 4099 words less 3 bits, the 1e6 keys at 10 bits of the
 * counts in docs/PERFORMANCE.md, and 2^31 + 5 bits. */
static const uint64_t SIZES[] = {61, 30011, 64 * 4099 - 3, 10000000, (1ULL << 31) + 5};

/* Every size by the loops directly and through the dispatch, each keys8
 * hash, and two of them with the keys moved out of their batches' packed
 * slots (keys8_loops.h's KEYS8_MOVED: the loops read each through its
 * pointer); k = 1 (one round, no next position), 13 (the position loop's
 * other lengths) and 24 (past the inserts' stamped k: the loop over k)
 * both ways. */
Test(standard_portable, keys8)
{
    static const loops *const LOOPS[] = {&DIRECT, &DISPATCH};
    static const char *const HASHES[] = {"xxh3_64", "mulx64"};
    for (size_t l = 0; l < sizeof LOOPS / sizeof LOOPS[0]; l++)
        for (size_t h = 0; h < sizeof HASHES / sizeof HASHES[0]; h++) {
            for (size_t i = 0; i < sizeof SIZES / sizeof SIZES[0]; i++)
                check_size(LOOPS[l], HASHES[h], 0, SIZES[i], 3000);
            check_size(LOOPS[l], HASHES[h], KEYS8_MOVED, 30011, 3000);
            check_size(LOOPS[l], HASHES[h], KEYS8_MOVED, 10000000, 3000);
        }
    static const loops *const OTHER_K[] = {&DIRECT_K1, &DIRECT_K13, &DIRECT_K24,
                                           &DISPATCH_K1, &DISPATCH_K13, &DISPATCH_K24};
    for (size_t l = 0; l < sizeof OTHER_K / sizeof OTHER_K[0]; l++) {
        check_size(OTHER_K[l], "xxh3_64", 0, 61, 3000);
        check_size(OTHER_K[l], "xxh3_64", 0, 30011, 3000);
        check_size(OTHER_K[l], "mulx64", 0, 64 * 4099 - 3, 3000);
    }
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
    check_size(&CHOSEN_K24, "xxh3_64", 0, 30011, 3000); /* fill 0.9: a tenth of the absent keys reach the last bit */
}

/* The one-key calls' two tables, each on its own: the early exit's and all
 * k's, each hash, keys of other lengths by the hash entries, at 61 and
 * 30011 bits (crowded and half full) and k = 24 at fill 0.9 (a tenth of
 * the absent keys reach the last bit); and which one filter_key8_for
 * takes: all k where filter_standard_one_pass holds (in L2), the early
 * exit where it does not (past L2 under FETCH_AHEAD). */
Test(standard_portable, one_key_tables)
{
    static const loops *const TABLES[] = {&EARLY_EXIT, &ALL_K};
    static const loops *const TABLES_K24[] = {&EARLY_EXIT_K24, &ALL_K_K24};
    for (size_t t = 0; t < 2; t++) {
        check_size(TABLES[t], "xxh3_64", 37, 61, 3000);
        check_size(TABLES[t], "mulx64", 37, 30011, 3000);
        check_size(TABLES_K24[t], "xxh3_64", 0, 30011, 3000);
    }
    for (int k8 = 0; k8 < 2; k8++) { /* the two tables' queries their own functions (their answers are the same) */
        cr_assert_neq(standard_portable_key8_all_k[k8].query, standard_portable_key8[k8].query);
        cr_assert_neq(standard_portable_key8_all_k[k8].query_hash, standard_portable_key8[k8].query_hash);
    }
    hasher h;
    char err[256];
    cr_assert_eq(hasher_resolve("mulx64", &h, err, sizeof err), 0, "%s", err);
    const scheme_ctx ctx = {&h, 1, 0};
    const uint64_t past_l2_bits = 8 * (cache_l2_bytes() + 4096) + 3;
    static const struct {
        fetch_plan plan;
        int past_l2;
        const filter_key8_calls *table;
    } CASES[] = {{FETCH_AHEAD, 0, standard_portable_key8_all_k}, {FETCH_AHEAD, 1, standard_portable_key8}};
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        filter_fetch_plan_set(CASES[c].plan);
        filter f;
        cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, CASES[c].past_l2 ? past_l2_bits : 30011, 7), 0);
        cr_assert_eq(filter_key8_for(&f, &ctx, SCHEME_DOUBLE).calls.query, CASES[c].table[KEYS8_MULX64].query,
                     "case %zu", c);
        cr_assert_eq(filter_key8_for(&f, &ctx, SCHEME_DOUBLE).calls.query_hash,
                     CASES[c].table[KEYS8_MULX64].query_hash, "case %zu", c);
        filter_free(&f);
    }
    filter_fetch_plan_set(FETCH_PLAN_CPU);
}

/* The inserts' two loops (filter_standard_one_pass): a filter just past
 * this machine's L2 takes the prefetched loop under FETCH_AHEAD and under
 * FETCH_WINDOW from half the last-level cache on (the threshold lowered),
 * the one pass under FETCH_WINDOW below it; each sets the reference's
 * bits, at k = 7 (stamped) and 24 (the loop over k), each hash. */
Test(standard_portable, both_insert_loops)
{
    const uint64_t past_l2_bits = 8 * (cache_l2_bytes() + 4096) + 3, llc_was = filter_stage_min_bytes();
    static const struct {
        fetch_plan plan;
        int half_llc_below; /* the threshold above twice the filter */
        int one_pass;
    } CASES[] = {{FETCH_AHEAD, 1, 0}, {FETCH_WINDOW, 1, 1}, {FETCH_WINDOW, 0, 0}};
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        filter_fetch_plan_set(CASES[c].plan);
        filter_stage_min_bytes_set(CASES[c].half_llc_below ? UINT64_MAX : past_l2_bits / 8 + 64);
        filter f;
        cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, layout_fit_m(LAYOUT_STANDARD, past_l2_bits), 7), 0);
        cr_assert_eq(filter_standard_one_pass(&f, CASES[c].plan), CASES[c].one_pass, "case %zu", c);
        filter_free(&f);
        check_size(&DIRECT, "mulx64", 0, past_l2_bits, 3000);
        check_size(&DIRECT_K24, "xxh3_64", 0, past_l2_bits, 3000);
    }
    filter_fetch_plan_set(FETCH_PLAN_CPU);
    filter_stage_min_bytes_set(llc_was);
}

/* At the AVX2 level (where this CPU has it) filter_ops_for's inserts of
 * 8-byte keys by a keys8 hash: avx2.c's loop where the portable one pass
 * would apply (in L2; under FETCH_WINDOW past it too), these loops
 * elsewhere (FETCH_AHEAD past L2); any other keys (odd: a few not 8 bytes
 * long) avx2.c's in L2, the portable loops beyond; in L2 and past it, k = 1,
 * 7 and 13 (avx2.c's inserts stamped for k) and 24 (its loop over k). */
Test(standard_portable, avx2_level)
{
    if (cpu_isa_supported() < ISA_AVX2) {
        cr_log_info("no AVX2 on this CPU: the AVX2 level's dispatch not run");
        return;
    }
    char *saved = isa_env_set("avx2");
    static const fetch_plan PLANS[] = {FETCH_WINDOW, FETCH_AHEAD};
    static const uint64_t AT[] = {30011, 64 * 4099 - 3, 10000000};
    for (size_t p = 0; p < sizeof PLANS / sizeof PLANS[0]; p++) {
        filter_fetch_plan_set(PLANS[p]);
        for (size_t i = 0; i < sizeof AT / sizeof AT[0]; i++) {
            check_size(&LEVEL, "mulx64", 0, AT[i], 3000);
            check_size(&LEVEL, "xxh3_64", 37, AT[i], 3000);
            check_size(&LEVEL_K24, "xxh3_64", 0, AT[i], 3000);
        }
        check_size(&LEVEL_K1, "xxh3_64", 0, 10000000, 3000);
        check_size(&LEVEL_K13, "mulx64", 0, 10000000, 3000);
    }
    filter_fetch_plan_set(FETCH_PLAN_CPU);
    isa_env_restore(saved);
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

/* Runs whose groups of keys are present and absent in turn, so that the
 * query changes its way as it goes (standard_portable.h: a group of 64 all
 * k at once after a group with more than half its keys present, in rounds
 * after one with fewer; dispatch.c's runs_query: a vector level's run of 8
 * batches by its test of all k after such a run): batches of 32 keys (each
 * group one side) and of 21 (groups across batches' edges, a third or two
 * thirds present), runs of 9 batches and of 44 (a vector level's runs of
 * present and absent keys in turn).  N keys inserted by the reference into
 * a filter of m bits; each answer the reference's, on the same filter. */
static void check_modes(const loops *l, const char *hash, unsigned odd, uint64_t m)
{
    enum { N = 6000 };
    static const struct {
        size_t keys;
        const char *sides;
    } RUNS[] = {{32, "PPAAPPAAP"},
                {21, "PPAPAAPPP"},
                {32, "AAPPPPAAA"},
                {32, "PPPPPPPPPPAAAAAAAAPPPPPPPPAAAAAAAAPPPPPPPPAA"},
                {32, "PPAAAAAAAAPPPPPPPPAAAAAAAAPPPPPPPPPPPPPPPPPP"}};
    key_batch *batches = malloc(RUN_MOST_BATCHES * sizeof *batches);
    cr_assert_not_null(batches);
    source s;
    source_open(&s, hash, 0x70de + m, odd);
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, layout_fit_m(LAYOUT_STANDARD, m), l->k), 0);
    insert_keys(NULL, &s, &f, N / 2, batches);
    for (size_t r = 0; r < sizeof RUNS / sizeof RUNS[0]; r++) {
        const size_t nb = strlen(RUNS[r].sides);
        cr_assert_leq(nb, RUN_MOST_BATCHES);
        key_side sides[RUN_MOST_BATCHES];
        for (size_t b = 0; b < nb; b++)
            sides[b] = RUNS[r].sides[b] == 'P' ? KEY_PRESENT : KEY_ABSENT;
        uint64_t next[2] = {0, 0}; /* the next key of each side */
        while (next[KEY_PRESENT] + nb * RUNS[r].keys <= N / 2 && next[KEY_ABSENT] + nb * RUNS[r].keys <= N) {
            for (size_t b = 0; b < nb; b++) {
                source_fill(&s, N / 2, sides[b], next[sides[b]], RUNS[r].keys, &batches[b]);
                next[sides[b]] += RUNS[r].keys;
            }
            check_run_answers(l, &s, &f, &f, batches, nb, sides);
            source_release(&s);
        }
    }
    filter_free(&f);
    keyset_close(s.ks);
    free(batches);
}

/* The query's two ways in one call, each hash, k stamped (7, 1) and not
 * (24), the hashed entry with keys of other lengths: at 30011 bits (about
 * half full: an absent key's answer turns on each of its k bits) and 4099
 * words, where both ways are taken; and past L2 under FETCH_AHEAD, where
 * filter_standard_one_pass says no and every group goes in rounds. */
Test(standard_portable, query_modes)
{
    static const uint64_t AT[] = {30011, 64 * 4099 - 3};
    for (size_t i = 0; i < sizeof AT / sizeof AT[0]; i++) {
        check_modes(&DIRECT, "xxh3_64", 0, AT[i]);
        check_modes(&DIRECT, "mulx64", 0, AT[i]);
        check_modes(&DIRECT_K1, "mulx64", 0, AT[i]);
        check_modes(&DIRECT_K24, "xxh3_64", 0, AT[i]);
        check_modes(&HASHED, "xxh3_128", 37, AT[i]);
        check_modes(&DISPATCH, "murmur3_128", 0, AT[i]);
    }
    filter_fetch_plan_set(FETCH_AHEAD);
    const uint64_t past_l2_bits = 8 * (cache_l2_bytes() + 4096) + 3;
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, layout_fit_m(LAYOUT_STANDARD, past_l2_bits), 7), 0);
    cr_assert_eq(filter_standard_one_pass(&f, FETCH_AHEAD), 0);
    filter_free(&f);
    check_modes(&DIRECT, "mulx64", 0, past_l2_bits);
    filter_fetch_plan_set(FETCH_PLAN_CPU);
}

/* Each vector level the CPU has (filter_ops_for), a filter past L2 (L2
 * taken as 1 KiB) and inside the last-level cache: under FETCH_WINDOW
 * runs_query's runs by the level's loop (AVX-512's phased one without its
 * prefetches, AVX2's portable loops) and, after runs of mostly present
 * keys, by its test of all k; under FETCH_AHEAD by the level's loop alone
 * (the phased one prefetching).  Each hash (xxh3_64 the AVX-512 loop's own
 * hashing of 8-byte keys), k = 7 and 24, keys of other lengths. */
Test(standard_portable, level_query_runs)
{
    static const struct {
        const char *name;
        isa_level level;
    } LEVELS[] = {{"avx2", ISA_AVX2}, {"avx512", ISA_AVX512}};
    static const fetch_plan PLANS[] = {FETCH_WINDOW, FETCH_AHEAD};
    const uint64_t llc_was = filter_stage_min_bytes();
    filter_stage_min_bytes_set(UINT64_MAX);
    cache_l2_bytes_set(1024);
    for (size_t v = 0; v < sizeof LEVELS / sizeof LEVELS[0]; v++) {
        if (cpu_isa_supported() < LEVELS[v].level) {
            cr_log_info("no %s on this CPU: its queries' runs not run", LEVELS[v].name);
            continue;
        }
        char *saved = isa_env_set(LEVELS[v].name);
        for (size_t p = 0; p < sizeof PLANS / sizeof PLANS[0]; p++) {
            filter_fetch_plan_set(PLANS[p]);
            filter f;
            cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, layout_fit_m(LAYOUT_STANDARD, 30011), 7), 0);
            cr_assert(filter_beyond_l2(&f) && !filter_beyond_llc(&f));
            cr_assert_eq(filter_standard_one_pass(&f, PLANS[p]), PLANS[p] == FETCH_WINDOW);
            filter_free(&f);
            check_modes(&LEVEL, "mulx64", 0, 30011);
            check_modes(&LEVEL, "xxh3_64", 0, 30011);
            check_modes(&LEVEL_K24, "xxh3_64", 0, 30011);
            check_modes(&LEVEL, "xxh3_64", 37, 30011);
        }
        isa_env_restore(saved);
    }
    cache_l2_bytes_set(0);
    filter_fetch_plan_set(FETCH_PLAN_CPU);
    filter_stage_min_bytes_set(llc_was);
}

/* A filter beyond the last-level cache (the threshold and L2 taken as a
 * few KiB): the rounds' stamps that prefetch into L2 alone
 * (filters.h's filter_query_prefetch), the query's run (each hash, k =
 * 7, 1 and 24, the hashed entry with keys of other lengths) and, at the
 * AVX2 level where the CPU has it, standard_portable_query_split on the
 * level's hashes: each answer the reference's. */
Test(standard_portable, rounds_beyond_llc)
{
    const uint64_t llc_was = filter_stage_min_bytes();
    filter_stage_min_bytes_set(2048);
    cache_l2_bytes_set(1024);
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_STANDARD, layout_fit_m(LAYOUT_STANDARD, 30011), 7), 0);
    cr_assert(filter_beyond_llc(&f));
    filter_free(&f);
    check_modes(&DIRECT, "xxh3_64", 0, 30011);
    check_modes(&DIRECT, "mulx64", 0, 30011);
    check_modes(&DIRECT_K1, "mulx64", 0, 30011);
    check_modes(&DIRECT_K24, "xxh3_64", 0, 30011);
    check_modes(&HASHED, "xxh3_128", 37, 30011);
    if (cpu_isa_supported() >= ISA_AVX2) {
        char *saved = isa_env_set("avx2");
        check_modes(&LEVEL, "mulx64", 0, 30011);
        check_modes(&LEVEL, "xxh3_64", 37, 30011);
        isa_env_restore(saved);
    } else {
        cr_log_info("no AVX2 on this CPU: its rounds beyond the last-level cache not run");
    }
    cache_l2_bytes_set(0);
    filter_stage_min_bytes_set(llc_was);
}
