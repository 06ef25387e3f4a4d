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

/* Add a batch of keys; count a batch's "probably" answers (count batches). */
void filter_plugin_add(const filter_plugin *p, void *handle, const key_batch *batch);
uint64_t filter_plugin_query(const filter_plugin *p, const void *handle, const key_batch *batches, size_t count);

#endif
