/* speed.h -- two filters timed interleaved, the least of some rounds:
 * what `bloomlab check` reports as speed_* and what `bloomlab bench
 * --filter plugin:PATH.so` writes as a plugin's rows beside bloomlab's.
 *
 * Each round times both filters once, alternating which goes first
 * (round r starts with filter r mod 2), each on a fresh filter of the
 * round's seed (seed_derive(seed, r)): n present keys added (the insert
 * time includes filter_flush, a built-in's staged inserts, and a plugin's
 * bits(), where a plugin that builds lazily builds), then `absent`
 * keys never inserted asked, then the n inserted keys asked back.  Keys are
 * made in chunks of SPEED_CHUNK_BATCHES batches outside the clock; the
 * clock runs over the filter's own calls (insert_many / query_many for a
 * layout, filter_plugin_add / filter_plugin_query, and so add_batch /
 * contains_batch where given, for a plugin).  Each figure is the least over
 * the rounds: the run least disturbed by anything else on the machine.
 * Nothing here pins the thread: a caller that wants one core runs under
 * taskset. */
#ifndef BLOOMLAB_SPEED_H
#define BLOOMLAB_SPEED_H

#include <stdint.h>

#include "filter/filter_plugin.h"
#include "filter/filters.h"
#include "base/hashes.h"
#include "harness/keys.h"

#define SPEED_CHUNK_BATCHES 64

/* One filter to time: a plugin (plugin != NULL; layout, scheme and hash
 * unused), or bloomlab's layout with scheme and hash (m is fitted to the
 * layout's blocks). */
typedef struct {
    const filter_plugin *plugin;
    layout_kind layout;
    scheme_kind scheme;
    const hasher *hash;
    uint64_t m;
    unsigned k;
} speed_filter;

typedef struct {
    double insert, absent, present; /* ns per key, the least over the rounds */
    double fpr;                     /* absent keys answered "probably", a share of those asked (last round) */
    double fill;                    /* bits set / m (last round); NAN for a plugin without bits_set */
    uint64_t m;                     /* as built: a layout's fitted m, a plugin's bits() where given */
    uint64_t bytes;                 /* the filter's memory (a plugin's size_bytes) */
    uint64_t present_missing;       /* inserted keys answered absent, summed over the rounds */
} speed_result;

/* Time f[0] and f[1] interleaved for `rounds` rounds, n keys each, `absent`
 * absent queries, keys from ks: 0; -1 out of memory; -2 a plugin's create
 * returned NULL. */
int speed_interleaved(const speed_filter f[2], uint64_t n, uint64_t absent, const keyset *ks, uint64_t seed,
                      int rounds, speed_result out[2]);

#endif
