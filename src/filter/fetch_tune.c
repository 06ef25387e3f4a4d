/* fetch_tune.c -- how a filter's vector loops fetch beyond L2, found by
 * timing the candidates on the filter's own calls: the split block's fetch
 * shape (filters.h's fetch_shape), the standard layout's fetch plan
 * (filters.h's fetch_plan: one pass or prefetched batches, and whether
 * phased queries prefetch).
 *
 * WHY TIME THEM.  Beyond L2 a key's lines come from the last-level cache
 * (a miss the out-of-order window can overlap, where an early prefetch
 * only costs instructions) or from DRAM (a miss to start a ring of keys
 * ahead, into L2 first), and a loop's speed is how well its prefetches
 * fit which.  The plan by core (filter_fetch_plan) guesses both from the
 * CPU family and the cache sizes the machine reports, and both guesses
 * failed on the machines measured: the best shape changed with each core
 * (Zen 3, Zen 4, Zen 5, an Intel Xeon), and a guest on a Zen 4 whose L3
 * reads 32 MB (sysfs, CPUID) held only 4-5 MB of it, so a 13 MB filter
 * came from DRAM under the shape chosen for the last-level cache, and a
 * 1.3 MB standard filter ran its queries twice as slow under the core's
 * plan as under the other (docs/PERFORMANCE.md, sessions 25 and 26).
 * What the host lends a process is not written anywhere it can read; the
 * time of its own calls is.
 *
 * HOW.  A filter keeps, per loop and per kind of call (inserts; queries,
 * or, for the standard layout, queries of mostly absent and of mostly
 * present keys apart, each call's kind guessed from the loop's last query
 * and checked by its answers), the least time a key each candidate took.
 * Once it is warm (tune_warm), its calls of at least FETCH_TUNE_MIN_KEYS
 * keys take the candidates in turn (call j the candidate j mod C of C),
 * each call timed, until FETCH_TUNE_ROUNDS rounds of all C are timed; from
 * then on every call of that kind runs the candidate of least time (made
 * again, once, when the filter has settled, where it was made before).
 * Round-robin puts the candidates side by side through the same stretch of
 * the host's load (the rule the benchmarks follow: interleaved, the least
 * of each); the least of five drops a call that a preemption or a
 * neighbour's burst slowed.  The 5 C timed calls of a tuning (C = 5 split
 * block shapes and calls of 2048 keys: 51 200 keys), once or twice a slot,
 * are the whole cost: a worse candidate's extra time on them.  A shape or
 * plan changes how a loop
 * fetches, never which bits it sets: the tuning changes speed, never a
 * result.
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
    atomic_int chosen;    /* the chosen value + 1; 0 while tuning */
    atomic_int early;     /* 1: chosen before the filter settled (tune_settle) */
    atomic_uint_least64_t least_ps[FETCH_TUNE_CHOICES_MAX]; /* least picoseconds a key per candidate; 0: none */
};

struct fetch_tune {
    struct fetch_tune_slot slot[TUNE_LOOPS][TUNE_KINDS];
    atomic_int last_present[TUNE_LOOPS]; /* 1: a loop's last query call had mostly present keys */
    atomic_uint_least64_t keys_seen;     /* keys of the filter's calls that went by (tune_warm) */
};

struct fetch_tune *fetch_tune_new(void) { return calloc(1, sizeof(struct fetch_tune)); }

void fetch_tune_free(struct fetch_tune *t) { free(t); }

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static const char *const SHAPE_NAMES[] = {
    [SHAPE_NONE] = "none",
    [SHAPE_AT_HASH] = "at-hash",
    [SHAPE_FROM_RING] = "from-ring",
    [SHAPE_FAR_ONE_STEP] = "far-one-step",
    [SHAPE_FAR_TWO_STEPS] = "far-two-steps",
    [SHAPE_FAR_L2] = "far-l2",
    [SHAPE_LATE_L2] = "late-l2",
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
    size_t at =
        (size_t)snprintf(err, err_size, "environment: BLOOMLAB_FETCH_SHAPE='%.40s' is not a fetch shape (", value);
    for (unsigned s = 0; s < SHAPE_COUNT && at < err_size; s++)
        at += (size_t)snprintf(err + at, err_size - at, "%s%s", s > 0 ? ", " : "", SHAPE_NAMES[s]);
    if (at < err_size)
        snprintf(err + at, err_size - at, ")");
    return -1;
}

/* The kind of a call about to run: an insert, or a query of the kind of
 * the loop's last one (by_answers). */
static tune_kind kind_ahead(const struct fetch_tune *t, tune_loop loop, int insert, int by_answers)
{
    if (insert)
        return TUNE_INSERT;
    return by_answers && atomic_load_explicit(&t->last_present[loop], memory_order_relaxed) ? TUNE_QUERY_PRESENT
                                                                                              : TUNE_QUERY;
}

/* When a filter's calls are timed.  Once keys FETCH_TUNE_WARM_LINES
 * times its lines have gone through them (random keys touch 1 - e^-2, 86%,
 * of the lines in twice as many keys as lines): before, its lines come back
 * from wherever the process's other work pushed them.  And once more when
 * FETCH_TUNE_SETTLED_LINES times its lines have, for a choice made before:
 * a filter's early calls can rank the candidates otherwise than the rest
 * of its life.  A bench's first split block filter of 1e6 keys (20 833
 * lines), from-ring forced, ran its inserts at 2.1-3.9 ns a key over its
 * first 100 000 keys and 1.1-1.7 over the rest; timed from then, its
 * tuning chose a far shape in 2 of 8 processes, and from-ring (1.0-1.2)
 * in every later filter (docs/PERFORMANCE.md, session 26). */
static int tune_warm(uint_least64_t seen, uint_least64_t lines) { return seen >= FETCH_TUNE_WARM_LINES * lines; }
static int tune_settled(uint_least64_t seen, uint_least64_t lines) { return seen >= FETCH_TUNE_SETTLED_LINES * lines; }

/* A slot's early choice set aside, to be made again, once its filter has
 * settled: by the one thread whose swap of `early` from 1 finds it. */
static int tune_settle(struct fetch_tune_slot *slot, uint_least64_t seen, uint_least64_t lines)
{
    int was_early = 1;
    if (!tune_settled(seen, lines) || !atomic_compare_exchange_strong_explicit(&slot->early, &was_early, 0,
                                                                               memory_order_relaxed,
                                                                               memory_order_relaxed))
        return 0;
    for (unsigned c = 0; c < FETCH_TUNE_CHOICES_MAX; c++)
        atomic_store_explicit(&slot->least_ps[c], 0, memory_order_relaxed);
    atomic_store_explicit(&slot->started, 0, memory_order_relaxed);
    atomic_store_explicit(&slot->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&slot->chosen, 0, memory_order_relaxed);
    return 1;
}

fetch_trial fetch_tune_begin(const filter *f, tune_loop loop, int insert, int by_answers, tune_choices choices,
                             int fallback, size_t keys)
{
    fetch_trial trial = {.choice = fallback, .candidate = -1, .kind = insert ? TUNE_INSERT : TUNE_QUERY,
                         .choices = choices, .loop = loop, .by_answers = by_answers, .keys = keys};
    if (f->tune == NULL || filter_fetch_plan_forced() || !filter_beyond_l2(f) || choices.count == 0)
        return trial; /* untuned: nothing for fetch_tune_end to keep */
    trial.tune = f->tune;
    trial.kind = kind_ahead(f->tune, loop, insert, by_answers);
    struct fetch_tune_slot *slot = &f->tune->slot[loop][trial.kind];
    const int chosen = atomic_load_explicit(&slot->chosen, memory_order_relaxed);
    trial.choice = chosen - 1;
    if (chosen != 0 && !atomic_load_explicit(&slot->early, memory_order_relaxed))
        return trial; /* made once the filter settled: no key to count again */
    const uint_least64_t lines = f->word_count / 8,
                         seen = atomic_fetch_add_explicit(&f->tune->keys_seen, keys, memory_order_relaxed) + keys;
    if (chosen != 0 && !tune_settle(slot, seen, lines))
        return trial;
    trial.choice = fallback;
    if (keys < FETCH_TUNE_MIN_KEYS || !tune_warm(seen, lines))
        return trial;
    trial.settled = tune_settled(seen, lines);
    const unsigned call = atomic_fetch_add_explicit(&slot->started, 1, memory_order_relaxed);
    if (call >= FETCH_TUNE_ROUNDS * choices.count) /* the last timed calls run elsewhere */
        return trial;
    trial.candidate = (int)(call % choices.count);
    trial.choice = choices.values[trial.candidate];
    trial.started_ns = now_ns();
    return trial;
}

fetch_trial fetch_tune_shape_begin(const filter *f, tune_loop loop, int insert, tune_choices shapes,
                                   fetch_shape planned, size_t keys)
{
    const int forced = fetch_tune_forced();
    if (forced >= 0)
        return (fetch_trial){.choice = forced, .candidate = -1};
    return fetch_tune_begin(f, loop, insert, 0, shapes, (int)planned, keys);
}

/* The candidate of least time a key (the first of equals). */
static int least_choice(struct fetch_tune_slot *slot, tune_choices choices)
{
    unsigned best = 0;
    uint_least64_t best_ps = UINT64_MAX;
    for (unsigned c = 0; c < choices.count; c++) {
        const uint_least64_t ps = atomic_load_explicit(&slot->least_ps[c], memory_order_relaxed);
        if (ps != 0 && ps < best_ps) {
            best_ps = ps;
            best = c;
        }
    }
    return choices.values[best];
}

/* A timed call's time a key kept where it is the candidate's least. */
static void keep_least(atomic_uint_least64_t *least, double elapsed_ns, size_t keys)
{
    const double ps = 1000.0 * elapsed_ns / (double)keys;
    const uint_least64_t took = ps < 1.0 ? 1 : ps > 1e18 ? (uint_least64_t)1e18 : (uint_least64_t)ps;
    uint_least64_t was = atomic_load_explicit(least, memory_order_relaxed);
    while ((was == 0 || took < was) &&
           !atomic_compare_exchange_weak_explicit(least, &was, took, memory_order_relaxed, memory_order_relaxed))
        ;
}

void fetch_tune_end_after(const fetch_trial *trial, size_t yes, double elapsed_ns)
{
    if (trial->tune == NULL)
        return;
    int keep = trial->candidate >= 0;
    if (trial->by_answers && trial->kind != TUNE_INSERT) { /* the kind its answers give, for the next query */
        const int present = filter_mostly_present(yes, trial->keys);
        atomic_store_explicit(&trial->tune->last_present[trial->loop], present, memory_order_relaxed);
        /* a call taken for the other kind: its turn spent, its time not kept */
        keep = keep && (present ? TUNE_QUERY_PRESENT : TUNE_QUERY) == trial->kind;
    }
    if (trial->candidate < 0)
        return;
    struct fetch_tune_slot *slot = &trial->tune->slot[trial->loop][trial->kind];
    if (keep)
        keep_least(&slot->least_ps[trial->candidate], elapsed_ns, trial->keys);
    const unsigned done = atomic_fetch_add_explicit(&slot->finished, 1, memory_order_relaxed) + 1;
    if (done == FETCH_TUNE_ROUNDS * trial->choices.count) {
        atomic_store_explicit(&slot->early, !trial->settled, memory_order_relaxed);
        atomic_store_explicit(&slot->chosen, least_choice(slot, trial->choices) + 1, memory_order_relaxed);
    }
}

void fetch_tune_end(const fetch_trial *trial, size_t yes)
{
    fetch_tune_end_after(trial, yes, trial->candidate >= 0 ? now_ns() - trial->started_ns : 0);
}

int fetch_tune_chosen(const filter *f, tune_loop loop, tune_kind kind)
{
    if (f->tune == NULL)
        return -1;
    return atomic_load_explicit(&f->tune->slot[loop][kind].chosen, memory_order_relaxed) - 1;
}
