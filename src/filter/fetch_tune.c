/* fetch_tune.c -- which fetch shape (filters.h's fetch_shape) a split block
 * filter's vector loops use, found by timing the shapes on the filter's
 * own calls.
 *
 * WHY TIME THEM.  A split block key costs one random 32-byte block, so
 * beyond L2 a loop's speed is how well its prefetches hide where that
 * block comes from: the last-level cache (a miss the out-of-order window
 * can overlap, where an early prefetch only costs instructions) or DRAM (a
 * miss to start a ring of keys ahead, into L2 first).  The plan by core
 * (filter_fetch_plan) guesses both from the CPU family and the cache sizes
 * the machine reports, and both guesses failed on the machines measured:
 * the best shape changed with each core (Zen 3, Zen 4, Zen 5, an Intel
 * Xeon), and a guest on a Zen 4 whose L3 reads 32 MB (sysfs, CPUID) held
 * only 4-5 MB of it, so a 13 MB filter came from DRAM under the shape
 * chosen for the last-level cache (docs/PERFORMANCE.md, session 25).  What
 * the host lends a process is not written anywhere it can read; the time
 * of its own calls is.
 *
 * HOW.  A filter keeps, per loop (avx2.c's, avx512.c's) and per operation
 * (inserts, queries), the least time a key each candidate shape took.  Its
 * calls of at least FETCH_TUNE_MIN_KEYS keys take the candidates in turn
 * (call j the candidate j mod C of C), each call timed, until
 * FETCH_TUNE_ROUNDS rounds of all C are timed; from then on every call
 * runs the candidate of least time.  Round-robin puts the candidates side
 * by side through the same stretch of the host's load (the rule the
 * benchmarks follow: interleaved, the least of each); the least of five
 * drops a call that a preemption or a neighbour's burst slowed.  The first
 * 5 C timed calls (with C = 4 and calls of 2048 keys, 40 960 keys) are
 * the whole cost: a worse candidate's extra time on them.
 *
 * Threads may share a filter (queries take it const): the state is
 * atomic, relaxed, and a race costs at most a timing (two calls timing
 * one candidate, or a least kept a little high), never a result.
 *
 * A shape forced (BLOOMLAB_FETCH_SHAPE, or fetch_tune_force: the tests run
 * each shape that way) or a plan forced (filter_fetch_plan_set) turns the
 * tuning off. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "filter/fetch_tune.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fetch_tune_slot {
    atomic_uint started;  /* timed calls begun */
    atomic_uint finished; /* timed calls ended */
    atomic_int chosen;    /* the chosen shape + 1; 0 while tuning */
    atomic_uint_least64_t least_ps[FETCH_TUNE_SHAPES_MAX]; /* least picoseconds a key per candidate; 0: none */
};

struct fetch_tune {
    struct fetch_tune_slot slot[TUNE_LOOPS][2]; /* [loop][insert] */
};

struct fetch_tune *fetch_tune_new(void) { return calloc(1, sizeof(struct fetch_tune)); }

void fetch_tune_free(struct fetch_tune *t) { free(t); }

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static struct fetch_tune_slot *tune_slot(const filter *f, tune_loop loop, int insert)
{
    return &f->tune->slot[loop][insert != 0];
}

static const char *const SHAPE_NAMES[] = {
    [SHAPE_NONE] = "none",
    [SHAPE_AT_HASH] = "at-hash",
    [SHAPE_FROM_RING] = "from-ring",
    [SHAPE_FAR_ONE_STEP] = "far-one-step",
    [SHAPE_FAR_TWO_STEPS] = "far-two-steps",
    [SHAPE_FAR_L2] = "far-l2",
};
#define SHAPE_COUNT (sizeof SHAPE_NAMES / sizeof SHAPE_NAMES[0])

const char *fetch_shape_name(fetch_shape shape) { return (unsigned)shape < SHAPE_COUNT ? SHAPE_NAMES[shape] : "?"; }

/* The shape named, or -1. */
static int shape_of_name(const char *name)
{
    for (unsigned s = 0; s < SHAPE_COUNT; s++)
        if (strcmp(name, SHAPE_NAMES[s]) == 0)
            return (int)s;
    return -1;
}

static int forced_shape = -1; /* fetch_tune_force's */

void fetch_tune_force(int shape) { forced_shape = shape; }

/* BLOOMLAB_FETCH_SHAPE's shape, or -1: read once (main refused a bad name
 * through fetch_tune_env_check before any work; unset, empty or unknown
 * forces nothing). */
static int env_shape(void)
{
    /* Racing threads store the same value. */
    static volatile int read = -2;
    if (read == -2) {
        const char *value = getenv("BLOOMLAB_FETCH_SHAPE");
        read = value != NULL && *value != '\0' ? shape_of_name(value) : -1;
    }
    return read;
}

int fetch_tune_forced(void) { return forced_shape >= 0 ? forced_shape : env_shape(); }

int fetch_tune_env_check(char *err, size_t err_size)
{
    const char *value = getenv("BLOOMLAB_FETCH_SHAPE");
    if (value == NULL || *value == '\0' || shape_of_name(value) >= 0)
        return 0;
    size_t at = (size_t)snprintf(err, err_size, "environment: BLOOMLAB_FETCH_SHAPE='%.40s' is not a fetch shape (", value);
    for (unsigned s = 0; s < SHAPE_COUNT && at < err_size; s++)
        at += (size_t)snprintf(err + at, err_size - at, "%s%s", s > 0 ? ", " : "", SHAPE_NAMES[s]);
    if (at < err_size)
        snprintf(err + at, err_size - at, ")");
    return -1;
}

fetch_trial fetch_tune_begin(const filter *f, tune_loop loop, int insert, fetch_candidates candidates,
                             fetch_shape planned, size_t keys)
{
    fetch_trial trial = {.shape = planned, .candidate = -1, .candidates = candidates};
    const int forced = fetch_tune_forced();
    if (forced >= 0) {
        trial.shape = (fetch_shape)forced;
        return trial;
    }
    if (f->tune == NULL || filter_fetch_plan_forced() || !filter_beyond_l2(f) || candidates.count == 0)
        return trial;
    struct fetch_tune_slot *slot = tune_slot(f, loop, insert);
    const int chosen = atomic_load_explicit(&slot->chosen, memory_order_relaxed);
    if (chosen != 0) {
        trial.shape = (fetch_shape)(chosen - 1);
        return trial;
    }
    if (keys < FETCH_TUNE_MIN_KEYS)
        return trial;
    const unsigned call = atomic_fetch_add_explicit(&slot->started, 1, memory_order_relaxed);
    if (call >= FETCH_TUNE_ROUNDS * candidates.count) /* the last timed calls run elsewhere */
        return trial;
    trial.candidate = (int)(call % candidates.count);
    trial.shape = candidates.shapes[trial.candidate];
    trial.keys = keys;
    trial.slot = slot;
    trial.started_ns = now_ns();
    return trial;
}

/* The candidate of least time a key (the first of equals). */
static fetch_shape least_shape(struct fetch_tune_slot *slot, fetch_candidates candidates)
{
    unsigned best = 0;
    uint_least64_t best_ps = UINT64_MAX;
    for (unsigned c = 0; c < candidates.count; c++) {
        const uint_least64_t ps = atomic_load_explicit(&slot->least_ps[c], memory_order_relaxed);
        if (ps != 0 && ps < best_ps) {
            best_ps = ps;
            best = c;
        }
    }
    return candidates.shapes[best];
}

void fetch_tune_end_after(const fetch_trial *trial, double elapsed_ns)
{
    if (trial->candidate < 0)
        return;
    struct fetch_tune_slot *slot = trial->slot;
    double ps = 1000.0 * elapsed_ns / (double)trial->keys;
    const uint_least64_t took = ps < 1.0 ? 1 : ps > 1e18 ? (uint_least64_t)1e18 : (uint_least64_t)ps;
    atomic_uint_least64_t *least = &slot->least_ps[trial->candidate];
    uint_least64_t was = atomic_load_explicit(least, memory_order_relaxed);
    while ((was == 0 || took < was) &&
           !atomic_compare_exchange_weak_explicit(least, &was, took, memory_order_relaxed, memory_order_relaxed))
        ;
    const unsigned done = atomic_fetch_add_explicit(&slot->finished, 1, memory_order_relaxed) + 1;
    if (done == FETCH_TUNE_ROUNDS * trial->candidates.count)
        atomic_store_explicit(&slot->chosen, (int)least_shape(slot, trial->candidates) + 1, memory_order_relaxed);
}

void fetch_tune_end(const fetch_trial *trial)
{
    if (trial->candidate >= 0)
        fetch_tune_end_after(trial, now_ns() - trial->started_ns);
}

int fetch_tune_chosen(const filter *f, tune_loop loop, int insert)
{
    if (f->tune == NULL)
        return -1;
    const int chosen = atomic_load_explicit(&tune_slot(f, loop, insert)->chosen, memory_order_relaxed);
    return chosen - 1;
}
