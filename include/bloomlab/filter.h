/* bloomlab/filter.h -- the ABI of a user's whole filter for bloomlab.
 *
 * A filter plugin is a shared library exporting one object,
 *
 *     const bloomlab_filter_api bloomlab_filter_plugin = {BLOOMLAB_FILTER_ABI, "name", ...};
 *
 * named by BLOOMLAB_FILTER_SYMBOL.  bloomlab measures it like one of its
 * own layouts: `filter = plugin:PATH.so` in an experiment file, or
 * `bloomlab sweep --filter plugin:PATH.so`.  Each trial creates a filter,
 * adds n present keys, asks present keys back (every "absent" answer is a
 * false negative, counted and flagged) and asks absent keys (the
 * false-positive rate, with its interval), then destroys it.  The plugin
 * hashes the keys itself: the hash and scheme settings do not apply (its
 * rows say `own` for both).  examples/plugin_filter.c is one, built
 * against this header alone:
 *
 *     cc -O2 -shared -fPIC $(pkg-config --cflags bloomlab) -o myfilter.so myfilter.c
 *
 * Threads.  Trials run on several threads at once, each with a filter of
 * its own; the queries of one filter may also be asked from several
 * threads at once.  So create, add and destroy may run concurrently on
 * different filters, and contains (and contains_batch) concurrently on one
 * filter: they must only read it.
 */
#ifndef BLOOMLAB_FILTER_H
#define BLOOMLAB_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* The version of this ABI: any change to the struct below changes it, and
 * bloomlab refuses a plugin built against another one. */
#define BLOOMLAB_FILTER_ABI 1

/* The name of the one symbol bloomlab looks up. */
#define BLOOMLAB_FILTER_SYMBOL "bloomlab_filter_plugin"

typedef struct bloomlab_filter_api {
    /* BLOOMLAB_FILTER_ABI, as this header says it. */
    uint32_t abi;
    /* A short name of the design (bloomlab's messages use it). */
    const char *name;

    /* ---- required ---- */
    /* A filter of about m bits taking k positions per key, for `expected_n`
     * keys; seed changes its hashing (each trial has its own).  NULL: it
     * cannot be made (bloomlab stops with one line saying so). */
    void *(*create)(uint64_t m, unsigned k, uint64_t expected_n, uint64_t seed);
    void (*destroy)(void *filter);
    void (*add)(void *filter, const void *key, size_t len);
    /* Non-zero for "probably present". */
    int (*contains)(const void *filter, const void *key, size_t len);
    /* The filter's memory in bytes (the memory_bytes column). */
    uint64_t (*size_bytes)(const void *filter);

    /* ---- optional: NULL when the plugin has none ---- */
    /* count keys at once; bloomlab calls these instead of add / contains
     * when given.  contains_batch sets answer[i] (0 or 1) and returns the
     * number of 1s. */
    void (*add_batch)(void *filter, const void *const *keys, const size_t *lens, size_t count);
    size_t (*contains_batch)(const void *filter, const void *const *keys, const size_t *lens, size_t count,
                             unsigned char *answer);
    /* The filter's m as built, when it is not the m asked for (a filter
     * rounding to whole blocks): the formulas and fill use it. */
    uint64_t (*bits)(const void *filter);
    /* Bits set: the fill column is bits_set / m.  NULL: fill is left empty. */
    uint64_t (*bits_set)(const void *filter);
    /* Its own false-positive rate for m bits, n keys, k positions: the
     * fpr_exact column (and z) of its rows; NULL: the standard filter's. */
    double (*fpr)(uint64_t m, uint64_t n, unsigned k);
    /* Its own parameters for n keys at a target rate p: 0 with *m and *k
     * set, or -1 when it cannot meet p. */
    int (*choose)(uint64_t n, double p, uint64_t *m, unsigned *k);
} bloomlab_filter_api;

#endif
