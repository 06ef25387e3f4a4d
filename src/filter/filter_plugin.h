/* filter_plugin.h -- a user's whole filter loaded from a shared library
 * (the ABI: include/bloomlab/filter.h), and what the sweep asks of it.
 *
 * `plugin:PATH.so` names one wherever a filter name goes in `run` and
 * `sweep`.  Loading checks everything that can be checked before a cell
 * runs -- the file loads, it exports BLOOMLAB_FILTER_SYMBOL as data, the
 * ABI version matches, the required functions are there -- and refuses a
 * plugin with one line naming it and the fault. */
#ifndef BLOOMLAB_FILTER_PLUGIN_H
#define BLOOMLAB_FILTER_PLUGIN_H

#include <bloomlab/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "filter/key_batch.h"

/* "plugin:PATH", a CSV field and a message's name: longer ones are refused. */
#define FILTER_PLUGIN_SPEC_MAX 512

typedef struct {
    char spec[FILTER_PLUGIN_SPEC_MAX];     /* as given: the rows' filter column */
    char file[FILTER_PLUGIN_SPEC_MAX + 2]; /* what dlopen was given (./NAME for a bare name) */
    const bloomlab_filter_api *api;
} filter_plugin;

/* Is name a filter plugin's ("plugin:...")? */
int filter_plugin_named(const char *name);

/* Load and check the plugin `spec` names: 0, or -1 with "filter 'SPEC': ..."
 * in err.  The library stays loaded for the life of the process. */
int filter_plugin_resolve(const char *spec, filter_plugin *out, char *err, size_t err_size);

/* How filter_plugin_fit settled the (m, k) a filter is made with. */
typedef enum {
    PLUGIN_FIT_ASKED,  /* create took the m and k asked */
    PLUGIN_FIT_CHOSEN, /* create refused them; the plugin's own choice at that size */
    PLUGIN_FIT_REFUSED /* create refused them and choose gave nothing it takes */
} plugin_fit;

/* The largest m the plugin's choose picks for n keys that is not above
 * `budget` bits, and its k: the plugin's own choice at that size (choose's
 * m falls as p rises, so p is bisected, in log p).  0, or -1 when it has
 * no choose or none fits. */
int filter_plugin_choice_at(const filter_plugin *p, uint64_t n, uint64_t budget, uint64_t *m, unsigned *k);

/* The (m, k) to make the plugin's filters with for n keys: *m and *k as
 * asked when a create (of this seed, destroyed at once) takes them, else
 * the plugin's choice at that size, which a create must take too. */
plugin_fit filter_plugin_fit(const filter_plugin *p, uint64_t n, uint64_t seed, uint64_t *m, unsigned *k);

/* Add a batch of keys; count a batch's "probably" answers (count batches). */
void filter_plugin_add(const filter_plugin *p, void *handle, const key_batch *batch);
uint64_t filter_plugin_query(const filter_plugin *p, const void *handle, const key_batch *batches, size_t count);

#endif
