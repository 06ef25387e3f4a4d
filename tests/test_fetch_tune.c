/* test_fetch_tune.c -- the split block loops' fetch tuning (fetch_tune.c)
 * by its rules, with the calls' times given (fetch_tune_end_after) rather
 * than measured: no call timed before the filter is warm; the candidates
 * taken in turn, a call too short left out; the least time a key per
 * candidate kept over the rounds; the choice made after FETCH_TUNE_ROUNDS
 * rounds and kept (made again, once, when the filter has settled, where it
 * was made before); inserts and queries and the loops tuned apart, and
 * queries of mostly absent and mostly present keys where a loop asks; no
 * tuning in L2 or under a forced plan or shape; and the standard layout's
 * batch calls under their tuned plan against the reference.  The split
 * block loops run under the tuning against the reference in test_avx2.c
 * (splitblock_keys8_tuned). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdlib.h>
#include <string.h>

#include "base/cache.h"
#include "base/cpu.h"
#include "base/hashes.h"
#include "filter/fetch_tune.h"
#include "filter/filters.h"
#include "harness/keys.h"
#include "helpers.h"

static const int SHAPES[] = {SHAPE_AT_HASH, SHAPE_FROM_RING, SHAPE_FAR_L2};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])
static const tune_choices CANDIDATES = {SHAPES, NSHAPES};

/* A filter's lines, its warming's keys and its settling's (fetch_tune.c). */
static uint64_t lines_of(const filter *f) { return f->word_count / 8; }
static uint64_t warm_keys(const filter *f) { return FETCH_TUNE_WARM_LINES * lines_of(f); }
static uint64_t settled_keys(const filter *f) { return FETCH_TUNE_SETTLED_LINES * lines_of(f); }

/* Keys one short of the filter's warming gone by, in one call: not timed. */
static void warm_up(const filter *f)
{
    const int NONE[] = {SHAPE_NONE};
    const fetch_trial t =
        fetch_tune_begin(f, TUNE_LOOP_AVX2, 1, 0, (tune_choices){NONE, 1}, SHAPE_NONE, warm_keys(f) - 1);
    cr_assert_eq(t.candidate, -1, "a call before the filter is warm is not timed");
    fetch_tune_end_after(&t, 0, 1.0);
}

/* A split block filter of four times L2, warm but for one key (and no
 * shape forced by the environment, which the tuning reads once). */
static void beyond_l2(filter *f)
{
    unsetenv("BLOOMLAB_FETCH_SHAPE");
    cr_assert_eq(filter_init(f, LAYOUT_SPLITBLOCK, 256 * (4 * cache_l2_bytes() / 32), 8), 0);
    cr_assert(filter_beyond_l2(f));
    warm_up(f);
}

/* A timed call of `keys` keys that took ns_per_key a key; returns its trial. */
static fetch_trial timed_call(const filter *f, tune_loop loop, int insert, size_t keys, double ns_per_key)
{
    const fetch_trial trial = fetch_tune_shape_begin(f, loop, insert, CANDIDATES, SHAPE_FAR_TWO_STEPS, keys);
    fetch_tune_end_after(&trial, 0, ns_per_key * (double)keys);
    return trial;
}

/* Round-robin, the least of each candidate's rounds, and the choice: the
 * from-ring candidate is slowest in round 0 (a spike) and fastest in every
 * other, the far-l2 one fastest in its mean; from-ring's least wins. */
Test(fetch_tune, rounds_least_and_choice)
{
    filter f;
    beyond_l2(&f);
    const double NS[FETCH_TUNE_ROUNDS][NSHAPES] = {
        {1.50, 9.00, 1.30}, {1.55, 1.10, 1.30}, {1.60, 1.40, 1.30}, {1.50, 1.45, 1.30}, {1.70, 1.42, 1.31}};
    for (unsigned r = 0; r < FETCH_TUNE_ROUNDS; r++)
        for (unsigned c = 0; c < NSHAPES; c++) {
            cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_INSERT), -1,
                         "nothing chosen before the last round ends");
            /* a call too short to time, between them: the planned shape, untimed, the turn unmoved */
            const fetch_trial short_call = timed_call(&f, TUNE_LOOP_AVX2, 1, FETCH_TUNE_MIN_KEYS - 1, 100.0);
            cr_assert_eq(short_call.candidate, -1);
            cr_assert_eq(short_call.choice, SHAPE_FAR_TWO_STEPS);
            const fetch_trial trial = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, NS[r][c]);
            cr_assert_eq(trial.candidate, (int)c, "round %u: candidate %d, not %u", r, trial.candidate, c);
            cr_assert_eq(trial.choice, SHAPES[c]);
        }
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_INSERT), SHAPE_FROM_RING);
    /* kept: later calls, long or short, run it untimed */
    for (size_t keys = 1; keys < 100000; keys *= 7) {
        const fetch_trial after = timed_call(&f, TUNE_LOOP_AVX2, 1, keys, 0.01);
        cr_assert_eq(after.candidate, -1);
        cr_assert_eq(after.choice, SHAPE_FROM_RING);
    }
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_INSERT), SHAPE_FROM_RING);
    /* the queries and the other loop tuned apart */
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_QUERY), -1);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX512, TUNE_INSERT), -1);
    cr_assert_eq(timed_call(&f, TUNE_LOOP_AVX2, 0, 2048, 1.0).candidate, 0, "the queries' first round begins");
    cr_assert_eq(timed_call(&f, TUNE_LOOP_AVX512, 1, 2048, 1.0).candidate, 0, "the other loop's begins");
    filter_free(&f);
}

/* A choice made before the filter settled is made again, once, when keys
 * FETCH_TUNE_SETTLED_LINES times its lines have gone by: candidate 0 is
 * fastest early, candidate 2 after; a choice made after settling stands. */
Test(fetch_tune, chosen_again_once_settled)
{
    filter f;
    beyond_l2(&f);
    uint64_t seen = warm_keys(&f) - 1;
    for (unsigned i = 0; i < FETCH_TUNE_ROUNDS * NSHAPES; i++, seen += 2048)
        timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, i % NSHAPES == 0 ? 1.0 : 2.0);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_INSERT), SHAPES[0]);
    /* untimed calls up to one key short of settling: the choice holds */
    const fetch_trial before = timed_call(&f, TUNE_LOOP_AVX2, 1, settled_keys(&f) - seen - 1, 5.0);
    cr_assert(before.candidate == -1 && before.choice == SHAPES[0]);
    seen = settled_keys(&f) - 1;
    for (unsigned i = 0; i < FETCH_TUNE_ROUNDS * NSHAPES; i++) {
        const fetch_trial t = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, i % NSHAPES == 2 ? 1.0 : 2.0);
        cr_assert_eq(t.candidate, (int)(i % NSHAPES), "settled: the rounds again, from the first candidate");
    }
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_INSERT), SHAPES[2]);
    for (unsigned i = 0; i < 4 * FETCH_TUNE_ROUNDS * NSHAPES; i++) {
        const fetch_trial t = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, 1.0);
        cr_assert(t.candidate == -1 && t.choice == SHAPES[2], "made once settled: it stands");
    }
    /* the queries, first tuned after settling, are not tuned again */
    for (unsigned i = 0; i < FETCH_TUNE_ROUNDS * NSHAPES; i++)
        timed_call(&f, TUNE_LOOP_AVX2, 0, 2048, i % NSHAPES == 1 ? 1.0 : 2.0);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_QUERY), SHAPES[1]);
    cr_assert_eq(timed_call(&f, TUNE_LOOP_AVX2, 0, 2048, 1.0).candidate, -1);
    filter_free(&f);
}

/* The time a key, not a call's: the far-l2 candidate's calls are twice as
 * long and take more time each, but less a key. */
Test(fetch_tune, judged_by_time_a_key)
{
    filter f;
    beyond_l2(&f);
    for (unsigned r = 0; r < FETCH_TUNE_ROUNDS; r++)
        for (unsigned c = 0; c < NSHAPES; c++) {
            const size_t keys = SHAPES[c] == SHAPE_FAR_L2 ? 4096 : 2048;
            timed_call(&f, TUNE_LOOP_AVX512, 0, keys, SHAPES[c] == SHAPE_FAR_L2 ? 1.2 : 1.5 + 0.1 * c);
        }
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX512, TUNE_QUERY), SHAPE_FAR_L2);
    filter_free(&f);
}

/* No tuning where there is nothing to choose: a filter in L2 (no prefetch),
 * a plan forced, a shape forced (which every call then runs), a filter
 * with no tuning state (any layout but split block and standard). */
Test(fetch_tune, off_where_nothing_to_choose)
{
    filter small;
    cr_assert_eq(filter_init(&small, LAYOUT_SPLITBLOCK, 256 * 64, 8), 0);
    cr_assert(!filter_beyond_l2(&small));
    filter f;
    beyond_l2(&f);
    for (unsigned i = 0; i < 2 * FETCH_TUNE_ROUNDS * NSHAPES; i++) {
        const fetch_trial in_l2 = timed_call(&small, TUNE_LOOP_AVX2, 1, 2048, 1.0);
        cr_assert(in_l2.candidate == -1 && in_l2.choice == SHAPE_FAR_TWO_STEPS, "in L2: the planned shape");
        filter_fetch_plan_set(FETCH_WINDOW);
        const fetch_trial planned = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, 1.0);
        cr_assert(planned.candidate == -1 && planned.choice == SHAPE_FAR_TWO_STEPS, "a plan forced: its shape");
        filter_fetch_plan_set(FETCH_PLAN_CPU);
        fetch_tune_force(SHAPE_FAR_ONE_STEP);
        const fetch_trial forced = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, 1.0);
        cr_assert(forced.candidate == -1 && forced.choice == SHAPE_FAR_ONE_STEP, "a shape forced: it");
        fetch_tune_force(-1);
    }
    cr_assert_eq(fetch_tune_chosen(&small, TUNE_LOOP_AVX2, TUNE_INSERT), -1);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, TUNE_INSERT), -1);
    filter plain;
    cr_assert_eq(filter_init(&plain, LAYOUT_BLOCKED512, 8 * 4 * cache_l2_bytes(), 7), 0);
    cr_assert_null(plain.tune);
    cr_assert_eq(timed_call(&plain, TUNE_LOOP_AVX2, 1, 2048, 1.0).candidate, -1);
    cr_assert_eq(fetch_tune_chosen(&plain, TUNE_LOOP_AVX2, TUNE_INSERT), -1);
    filter_free(&small);
    filter_free(&f);
    filter_free(&plain);
}

/* Each shape's name, and BLOOMLAB_FETCH_SHAPE checked: a shape, or refused
 * naming the value and the shapes. */
Test(fetch_tune, shape_names_and_environment)
{
    static const char *const NAMES[] = {"none", "at-hash", "from-ring", "far-one-step", "far-two-steps", "far-l2",
                                         "late-l2"};
    for (int s = SHAPE_NONE; s <= SHAPE_LATE_L2; s++)
        cr_assert_str_eq(fetch_shape_name((fetch_shape)s), NAMES[s]);
    char err[200];
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        setenv("BLOOMLAB_FETCH_SHAPE", NAMES[i], 1);
        cr_assert_eq(fetch_tune_env_check(err, sizeof err), 0, "%s", NAMES[i]);
    }
    setenv("BLOOMLAB_FETCH_SHAPE", "", 1);
    cr_assert_eq(fetch_tune_env_check(err, sizeof err), 0, "empty: nothing forced");
    setenv("BLOOMLAB_FETCH_SHAPE", "far-l3", 1);
    cr_assert_eq(fetch_tune_env_check(err, sizeof err), -1);
    cr_assert(strstr(err, "BLOOMLAB_FETCH_SHAPE='far-l3'") != NULL && strstr(err, "far-two-steps") != NULL, "%s", err);
    unsetenv("BLOOMLAB_FETCH_SHAPE");
}

/* A loop that asks (by_answers: the standard layout's) tunes queries of
 * mostly absent and of mostly present keys apart: a query is taken for
 * the kind of the loop's last one, and one whose answers say the other
 * kind spends its turn without its time kept.  Here candidate 1's absent
 * calls are slow, and one call taken for absent keys finds them present
 * and fast (0.1 ns a key): were its time kept, candidate 1 would win. */
Test(fetch_tune, queries_by_their_answers)
{
    filter f;
    beyond_l2(&f);
    const int PLANS[] = {FETCH_AHEAD, FETCH_WINDOW};
    const tune_choices plans = {PLANS, 2};
    enum { KEYS = 1024 };
    unsigned absent_calls = 0;
    while (fetch_tune_chosen(&f, TUNE_STANDARD_AVX2, TUNE_QUERY) < 0) {
        cr_assert(absent_calls < 4 * FETCH_TUNE_ROUNDS, "the absent keys' tuning ends");
        const fetch_trial t = fetch_tune_begin(&f, TUNE_STANDARD_AVX2, 0, 1, plans, FETCH_PLAN_CPU, KEYS);
        cr_assert_eq(t.kind, TUNE_QUERY, "after absent keys, a call for absent keys");
        cr_assert_geq(t.candidate, 0);
        if (absent_calls == 3) { /* candidate 1's turn: its keys turn out present */
            cr_assert_eq(t.candidate, 1);
            fetch_tune_end_after(&t, KEYS, 0.1 * KEYS);
            const fetch_trial p = fetch_tune_begin(&f, TUNE_STANDARD_AVX2, 0, 1, plans, FETCH_PLAN_CPU, KEYS);
            cr_assert_eq(p.kind, TUNE_QUERY_PRESENT, "after present keys, a call for present keys");
            cr_assert_eq(p.candidate, 0, "the present keys' own turns");
            fetch_tune_end_after(&p, 0, 3.0 * KEYS); /* absent again: not kept for present keys */
        } else {
            fetch_tune_end_after(&t, 0, (t.candidate == 0 ? 1.0 : 2.0) * KEYS);
        }
        absent_calls++;
    }
    cr_assert_eq(absent_calls, FETCH_TUNE_ROUNDS * 2);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_STANDARD_AVX2, TUNE_QUERY), FETCH_AHEAD);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_STANDARD_AVX2, TUNE_QUERY_PRESENT), -1);
    /* the split block's loops do not ask: every query is of one kind */
    const fetch_trial q = fetch_tune_begin(&f, TUNE_LOOP_AVX2, 0, 0, plans, FETCH_PLAN_CPU, KEYS);
    fetch_tune_end_after(&q, KEYS, 1.0 * KEYS);
    cr_assert_eq(fetch_tune_begin(&f, TUNE_LOOP_AVX2, 0, 0, plans, FETCH_PLAN_CPU, KEYS).kind, TUNE_QUERY);
    filter_free(&f);
}

/* The standard layout's batch calls at a level, nothing forced, on a
 * filter past L2 and within the last-level cache (put at 64 MB), in calls
 * of 1024 keys, more than the filter's warming and the tuning's rounds
 * take: the bits and the answers against the one-key reference, and a
 * plan chosen for the inserts, the absent keys' queries and the present
 * keys'.  At every level this CPU runs (standard_batch_calls_tuned). */
static void check_standard_tuned(const char *level, tune_loop loop)
{
    char *saved = isa_env_set(level);
    unsetenv("BLOOMLAB_FETCH_SHAPE");
    filter_stage_min_bytes_set(64u << 20);
    enum { CALL_BATCHES = 32 };
    const uint64_t m = 8 * 2 * cache_l2_bytes() + 77; /* twice L2 */
    /* warming the filter (fetch_tune.c), then the rounds of each kind and some */
    const uint64_t call_keys = CALL_BATCHES * KEY_BATCH,
                   n = (FETCH_TUNE_WARM_LINES * (m / 512) / call_keys + 4 * FETCH_TUNE_ROUNDS + 4) * call_keys;
    cr_assert_lt(3 * n, FETCH_TUNE_SETTLED_LINES * (m / 512), "the three passes short of settling");
    char err[256];
    hasher h;
    cr_assert_eq(hasher_resolve("mulx64", &h, err, sizeof err), 0, "%s", err);
    keyset *ks = keyset_open("random64", err, sizeof err);
    cr_assert_not_null(ks, "%s", err);
    const scheme_ctx ctx = {&h, 0x51a9, 0};
    const filter_ops ops = filter_ops_for(LAYOUT_STANDARD, SCHEME_DOUBLE);
    key_batch *batches = malloc(CALL_BATCHES * sizeof *batches);
    unsigned char *answer = malloc(call_keys);
    cr_assert(batches != NULL && answer != NULL);
    filter vec, one;
    cr_assert_eq(filter_init(&vec, LAYOUT_STANDARD, m, 7), 0);
    cr_assert_eq(filter_init(&one, LAYOUT_STANDARD, m, 7), 0);
    cr_assert(filter_beyond_l2(&vec) && !filter_beyond_llc(&vec) && vec.stage == NULL);
    for (uint64_t i = 0; i < n; i += call_keys) {
        for (size_t b = 0; b < CALL_BATCHES; b++) {
            keyset_fill(ks, ctx.seed, n, KEY_PRESENT, i + b * KEY_BATCH, KEY_BATCH, &batches[b]);
            for (size_t j = 0; j < KEY_BATCH; j++)
                filter_insert_one(&one, SCHEME_DOUBLE, &ctx, batches[b].ptr[j], 8, batches[b].id[j]);
        }
        ops.insert_many(&vec, &ctx, batches, CALL_BATCHES);
    }
    filter_flush(&vec);
    cr_assert_eq(memcmp(vec.words, one.words, vec.word_count * 8), 0, "%s: bits differ", level);
    cr_assert_geq(fetch_tune_chosen(&vec, loop, TUNE_INSERT), FETCH_AHEAD, "%s: a plan chosen for the inserts", level);
    for (int side = 0; side < 2; side++)
        for (uint64_t i = 0; i < n; i += call_keys) {
            size_t ref_yes = 0;
            for (size_t b = 0; b < CALL_BATCHES; b++)
                keyset_fill(ks, ctx.seed, n, (key_side)side, i + b * KEY_BATCH, KEY_BATCH, &batches[b]);
            const size_t yes = ops.query_many(&vec, &ctx, batches, CALL_BATCHES, answer);
            for (size_t t = 0; t < call_keys; t++) {
                const key_batch *b = &batches[t / KEY_BATCH];
                const int ref = filter_query_one(&one, SCHEME_DOUBLE, &ctx, b->ptr[t % KEY_BATCH], 8,
                                                 b->id[t % KEY_BATCH]);
                ref_yes += (size_t)ref;
                cr_assert_eq(answer[t], ref, "%s side %d key %llu", level, side, (unsigned long long)(i + t));
            }
            cr_assert_eq(yes, ref_yes);
        }
    cr_assert_geq(fetch_tune_chosen(&vec, loop, TUNE_QUERY), FETCH_AHEAD, "%s: a plan chosen for absent keys", level);
    cr_assert_geq(fetch_tune_chosen(&vec, loop, TUNE_QUERY_PRESENT), FETCH_AHEAD, "%s: and for present keys", level);
    cr_assert_eq(filter_call_plan_set(FETCH_PLAN_CPU), FETCH_PLAN_CPU, "the thread's plan set back after each call");
    filter_free(&vec);
    filter_free(&one);
    keyset_close(ks);
    free(batches);
    free(answer);
    filter_stage_min_bytes_set(0);
    isa_env_restore(saved);
}

Test(fetch_tune, standard_batch_calls_tuned)
{
    check_standard_tuned("portable", TUNE_STANDARD_PORTABLE);
    if (cpu_isa_supported() >= ISA_AVX2)
        check_standard_tuned("avx2", TUNE_STANDARD_AVX2);
    if (cpu_isa_supported() >= ISA_AVX512)
        check_standard_tuned("avx512", TUNE_STANDARD_AVX512);
    else
        cr_log_info("the avx512 level not run: this CPU has no AVX-512");
}
