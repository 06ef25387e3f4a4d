/* test_fetch_tune.c -- the split block loops' fetch tuning (fetch_tune.c)
 * by its rules, with the calls' times given (fetch_tune_end_after) rather
 * than measured: the candidates taken in turn, a call too short left out,
 * the least time a key per candidate kept over the rounds, the choice made
 * after FETCH_TUNE_ROUNDS rounds and kept, inserts and queries and the two
 * loops tuned apart, and no tuning in L2 or under a forced plan or shape.
 * The loops run under the tuning against the reference in test_avx2.c
 * (splitblock_keys8_tuned). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "base/cache.h"
#include "filter/fetch_tune.h"
#include "filter/filters.h"

static const fetch_shape SHAPES[] = {SHAPE_AT_HASH, SHAPE_FROM_RING, SHAPE_FAR_L2};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])
static const fetch_candidates CANDIDATES = {SHAPES, NSHAPES};

/* A split block filter of four times L2 (and no shape forced by the
 * environment, which the tuning reads once). */
static void beyond_l2(filter *f)
{
    unsetenv("BLOOMLAB_FETCH_SHAPE");
    cr_assert_eq(filter_init(f, LAYOUT_SPLITBLOCK, 256 * (4 * cache_l2_bytes() / 32), 8), 0);
    cr_assert(filter_beyond_l2(f));
}

/* A timed call of `keys` keys that took ns_per_key a key; returns its trial. */
static fetch_trial timed_call(const filter *f, tune_loop loop, int insert, size_t keys, double ns_per_key)
{
    const fetch_trial trial = fetch_tune_begin(f, loop, insert, CANDIDATES, SHAPE_FAR_TWO_STEPS, keys);
    fetch_tune_end_after(&trial, ns_per_key * (double)keys);
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
            cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, 1), -1, "nothing chosen before the last round ends");
            /* a call too short to time, between them: the planned shape, untimed, the turn unmoved */
            const fetch_trial short_call = timed_call(&f, TUNE_LOOP_AVX2, 1, FETCH_TUNE_MIN_KEYS - 1, 100.0);
            cr_assert_eq(short_call.candidate, -1);
            cr_assert_eq(short_call.shape, SHAPE_FAR_TWO_STEPS);
            const fetch_trial trial = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, NS[r][c]);
            cr_assert_eq(trial.candidate, (int)c, "round %u: candidate %d, not %u", r, trial.candidate, c);
            cr_assert_eq(trial.shape, SHAPES[c]);
        }
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, 1), SHAPE_FROM_RING);
    /* kept: later calls, long or short, run it untimed */
    for (size_t keys = 1; keys < 100000; keys *= 7) {
        const fetch_trial after = timed_call(&f, TUNE_LOOP_AVX2, 1, keys, 0.01);
        cr_assert_eq(after.candidate, -1);
        cr_assert_eq(after.shape, SHAPE_FROM_RING);
    }
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, 1), SHAPE_FROM_RING);
    /* the queries and the other loop tuned apart */
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, 0), -1);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX512, 1), -1);
    cr_assert_eq(timed_call(&f, TUNE_LOOP_AVX2, 0, 2048, 1.0).candidate, 0, "the queries' first round begins");
    cr_assert_eq(timed_call(&f, TUNE_LOOP_AVX512, 1, 2048, 1.0).candidate, 0, "the other loop's begins");
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
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX512, 0), SHAPE_FAR_L2);
    filter_free(&f);
}

/* No tuning where there is nothing to choose: a filter in L2 (no prefetch),
 * a plan forced, a shape forced (which every call then runs), a filter
 * with no tuning state (any layout but split block). */
Test(fetch_tune, off_where_nothing_to_choose)
{
    filter small;
    cr_assert_eq(filter_init(&small, LAYOUT_SPLITBLOCK, 256 * 64, 8), 0);
    cr_assert(!filter_beyond_l2(&small));
    filter f;
    beyond_l2(&f);
    for (unsigned i = 0; i < 2 * FETCH_TUNE_ROUNDS * NSHAPES; i++) {
        const fetch_trial in_l2 = timed_call(&small, TUNE_LOOP_AVX2, 1, 2048, 1.0);
        cr_assert(in_l2.candidate == -1 && in_l2.shape == SHAPE_FAR_TWO_STEPS, "in L2: the planned shape");
        filter_fetch_plan_set(FETCH_WINDOW);
        const fetch_trial planned = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, 1.0);
        cr_assert(planned.candidate == -1 && planned.shape == SHAPE_FAR_TWO_STEPS, "a plan forced: its shape");
        filter_fetch_plan_set(FETCH_PLAN_CPU);
        fetch_tune_force(SHAPE_FAR_ONE_STEP);
        const fetch_trial forced = timed_call(&f, TUNE_LOOP_AVX2, 1, 2048, 1.0);
        cr_assert(forced.candidate == -1 && forced.shape == SHAPE_FAR_ONE_STEP, "a shape forced: it");
        fetch_tune_force(-1);
    }
    cr_assert_eq(fetch_tune_chosen(&small, TUNE_LOOP_AVX2, 1), -1);
    cr_assert_eq(fetch_tune_chosen(&f, TUNE_LOOP_AVX2, 1), -1);
    filter plain;
    cr_assert_eq(filter_init(&plain, LAYOUT_STANDARD, 8 * 4 * cache_l2_bytes(), 7), 0);
    cr_assert_null(plain.tune);
    cr_assert_eq(timed_call(&plain, TUNE_LOOP_AVX2, 1, 2048, 1.0).candidate, -1);
    cr_assert_eq(fetch_tune_chosen(&plain, TUNE_LOOP_AVX2, 1), -1);
    filter_free(&small);
    filter_free(&f);
    filter_free(&plain);
}

/* Each shape's name, and BLOOMLAB_FETCH_SHAPE checked: a shape, or refused
 * naming the value and the shapes. */
Test(fetch_tune, shape_names_and_environment)
{
    static const char *const NAMES[] = {"none", "at-hash", "from-ring", "far-one-step", "far-two-steps", "far-l2"};
    for (int s = SHAPE_NONE; s <= SHAPE_FAR_L2; s++)
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
