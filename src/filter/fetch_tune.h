/* fetch_tune.h -- the fetch shape a split block filter's vector loops use,
 * found by timing the shapes on the filter's own calls (fetch_tune.c says
 * why and how).  A shape decides how a loop prefetches, never which bits
 * it sets: the tuning changes a call's speed, never its result. */
#ifndef BLOOMLAB_FETCH_TUNE_H
#define BLOOMLAB_FETCH_TUNE_H

#include <stddef.h>

#include "filter/filters.h"

/* The loops tuned apart: each has its own shapes (avx2.c's, avx512.c's). */
typedef enum { TUNE_LOOP_AVX2, TUNE_LOOP_AVX512, TUNE_LOOPS } tune_loop;

/* Rounds of the candidates timed before the choice, and the fewest keys a
 * timed call may have (fetch_tune.c). */
#define FETCH_TUNE_ROUNDS 5
#define FETCH_TUNE_MIN_KEYS 512
#define FETCH_TUNE_SHAPES_MAX 6

/* A loop's candidate shapes. */
typedef struct {
    const fetch_shape *shapes;
    unsigned count;
} fetch_candidates;

/* One call's trial: the shape it runs, and, where the call is timed, the
 * candidate it stands for, its keys and its start. */
typedef struct {
    fetch_shape shape;
    int candidate; /* -1: not timed */
    size_t keys;
    double started_ns;
    fetch_candidates candidates;
    struct fetch_tune_slot *slot;
} fetch_trial;

/* The tuning state of a filter (filter_init makes it for a split block
 * filter; NULL elsewhere, and then the loops fetch by the plan). */
struct fetch_tune *fetch_tune_new(void);
void fetch_tune_free(struct fetch_tune *t);

/* The shape a call of `keys` keys runs: a forced shape (fetch_tune_forced);
 * `planned` (filter_fetch_shape by the plan) where the plan is forced (filter_fetch_plan_set), the filter
 * lies in L2 or has no tuning state, or the call is too short to time;
 * else the next candidate to time, round-robin, until FETCH_TUNE_ROUNDS
 * rounds are timed, and then the one of least time a key.  Each timed
 * call ends in fetch_tune_end. */
fetch_trial fetch_tune_begin(const filter *f, tune_loop loop, int insert, fetch_candidates candidates,
                             fetch_shape planned, size_t keys);
void fetch_tune_end(const fetch_trial *trial);
/* A shape's name ("none", "at-hash", "from-ring", "far-one-step",
 * "far-two-steps", "far-l2"), as BLOOMLAB_FETCH_SHAPE takes it. */
const char *fetch_shape_name(fetch_shape shape);
/* The shape every split block loop runs whatever the filter's size and
 * tuning, or -1: fetch_tune_force's (the tests'), else
 * BLOOMLAB_FETCH_SHAPE's (to time one shape). */
int fetch_tune_forced(void);
void fetch_tune_force(int shape); /* -1: none */
/* 0, or -1 with why in err: BLOOMLAB_FETCH_SHAPE names no shape. */
int fetch_tune_env_check(char *err, size_t err_size);
/* fetch_tune_end with the call's time given (the tests'). */
void fetch_tune_end_after(const fetch_trial *trial, double elapsed_ns);
/* The shape chosen for a loop's inserts (insert 1) or queries, or -1 while
 * it is being tuned (or never will be). */
int fetch_tune_chosen(const filter *f, tune_loop loop, int insert);

#endif /* BLOOMLAB_FETCH_TUNE_H */
