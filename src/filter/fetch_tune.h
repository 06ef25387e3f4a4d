/* fetch_tune.h -- how a filter's vector loops fetch beyond L2 (the split
 * block's fetch shape, the standard layout's fetch plan), found by timing
 * the candidates on the filter's own calls (fetch_tune.c says why and
 * how).  It decides how a loop prefetches, never which bits it sets: the
 * tuning changes a call's speed, never its result. */
#ifndef BLOOMLAB_FETCH_TUNE_H
#define BLOOMLAB_FETCH_TUNE_H

#include <stddef.h>

#include "filter/filters.h"

/* The loops tuned apart: the split block's (avx2.c's, avx512.c's), each
 * over its fetch shapes, and the standard layout's at each level
 * (dispatch.c's), over the fetch plans. */
typedef enum {
    TUNE_LOOP_AVX2,
    TUNE_LOOP_AVX512,
    TUNE_STANDARD_PORTABLE,
    TUNE_STANDARD_AVX2,
    TUNE_STANDARD_AVX512,
    TUNE_LOOPS
} tune_loop;

/* The calls tuned apart within a loop: inserts, and queries, which a loop
 * that asks (by_answers) splits by whether most of a call's keys were
 * present (filters.h's filter_mostly_present: the standard layout's
 * absent keys stop at their first clear bit, its present ones read all k
 * lines, and the plans rank the two apart). */
typedef enum { TUNE_QUERY, TUNE_INSERT, TUNE_QUERY_PRESENT, TUNE_KINDS } tune_kind;

/* Rounds of the candidates timed before the choice, and the fewest keys a
 * timed call may have (fetch_tune.c). */
#define FETCH_TUNE_ROUNDS 5
#define FETCH_TUNE_MIN_KEYS 512
/* A filter's calls are timed once keys twice its lines have gone by, and
 * a choice made before keys 16 times its lines have is made again then
 * (fetch_tune.c's tune_warm, tune_settle). */
#define FETCH_TUNE_WARM_LINES 2
#define FETCH_TUNE_SETTLED_LINES 16
#define FETCH_TUNE_CHOICES_MAX 6

/* A loop's candidates: fetch shapes (the split block's) or plans. */
typedef struct {
    const int *values;
    unsigned count;
} tune_choices;

/* One call's trial: the choice it runs, and, where the call is timed, the
 * candidate it stands for, its kind, keys and start. */
typedef struct {
    int choice;
    int candidate; /* -1: not timed */
    tune_kind kind;
    size_t keys;
    double started_ns;
    tune_choices choices;
    struct fetch_tune *tune;
    tune_loop loop;
    int by_answers;
    int settled; /* timed after the filter settled (fetch_tune.c) */
} fetch_trial;

/* The tuning state of a filter (filter_init makes it for a split block or
 * standard filter; NULL elsewhere, and then the loops fetch by the plan). */
struct fetch_tune *fetch_tune_new(void);
void fetch_tune_free(struct fetch_tune *t);

/* The choice a call of `keys` keys runs: `fallback` where the filter has
 * no tuning state, lies in L2, a plan is forced (filter_fetch_plan_set),
 * the call is too short to time or the filter not yet warm (keys
 * FETCH_TUNE_WARM_LINES times its lines gone by, this call's counted);
 * else the next candidate to time, round-robin, until FETCH_TUNE_ROUNDS
 * rounds are timed, and then the one of least time a key (tuned again,
 * once, when keys FETCH_TUNE_SETTLED_LINES times the filter's lines have
 * gone by, where it was chosen before).  A query is of the kind the
 * loop's last query was (by_answers; else TUNE_QUERY).  Each call ends in
 * fetch_tune_end, with its "present" answers (a query's; 0 for an insert). */
fetch_trial fetch_tune_begin(const filter *f, tune_loop loop, int insert, int by_answers, tune_choices choices,
                             int fallback, size_t keys);
void fetch_tune_end(const fetch_trial *trial, size_t yes);
/* The split block's: fetch_tune_begin over its loop's shapes, unless a
 * shape is forced (fetch_tune_forced), which it then runs. */
fetch_trial fetch_tune_shape_begin(const filter *f, tune_loop loop, int insert, tune_choices shapes,
                                   fetch_shape planned, size_t keys);
/* A shape's name ("none", "at-hash", "from-ring", "far-one-step",
 * "far-two-steps", "far-l2", "late-l2"), as BLOOMLAB_FETCH_SHAPE takes it. */
const char *fetch_shape_name(fetch_shape shape);
/* The shape every split block loop runs whatever the filter's size and
 * tuning, or -1: fetch_tune_force's (the tests'), else
 * BLOOMLAB_FETCH_SHAPE's (to time one shape). */
int fetch_tune_forced(void);
void fetch_tune_force(int shape); /* -1: none */
/* 0, or -1 with why in err: BLOOMLAB_FETCH_SHAPE names no shape. */
int fetch_tune_env_check(char *err, size_t err_size);
/* fetch_tune_end with the call's time given (the tests'). */
void fetch_tune_end_after(const fetch_trial *trial, size_t yes, double elapsed_ns);
/* The choice made for a loop's calls of a kind, or -1 while they are
 * being tuned (or never will be). */
int fetch_tune_chosen(const filter *f, tune_loop loop, tune_kind kind);

#endif /* BLOOMLAB_FETCH_TUNE_H */
