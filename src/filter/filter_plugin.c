/* filter_plugin.c -- see filter_plugin.h.  The library is loaded by
 * plugin_load.c, as the hash plugins are (the same file rules, the same
 * crash guard around its constructors). */
#include "filter/filter_plugin.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/plugin_load.h"

int filter_plugin_named(const char *name) { return strncmp(name, "plugin:", 7) == 0; }

/* The first required function the plugin left NULL, or NULL when none. */
static const char *missing_function(const bloomlab_filter_api *api)
{
    if (api->create == NULL)
        return "create";
    if (api->destroy == NULL)
        return "destroy";
    if (api->add == NULL)
        return "add";
    if (api->contains == NULL)
        return "contains";
    if (api->size_bytes == NULL)
        return "size_bytes";
    return NULL;
}

/* The exported object checked: 0, or -1 with the fault in err. */
static int check_api(const filter_plugin *p, void *sym, const char *file, char *err, size_t err_size)
{
    const bloomlab_filter_api *api = sym;
    if (plugin_symbol_kind_of(sym) == PLUGIN_SYMBOL_FUNCTION) {
        snprintf(err, err_size, "filter '%s': '%s' in %s is a function; it must be a const bloomlab_filter_api (bloomlab/filter.h)",
                 p->spec, BLOOMLAB_FILTER_SYMBOL, file);
        return -1;
    }
    /* abi is the first field: readable whatever version made the rest */
    if (api->abi != BLOOMLAB_FILTER_ABI) {
        snprintf(err, err_size, "filter '%s': %s was built for filter ABI version %u; this bloomlab takes version %d (rebuild it against bloomlab/filter.h)",
                 p->spec, file, (unsigned)api->abi, BLOOMLAB_FILTER_ABI);
        return -1;
    }
    const char *missing = missing_function(api);
    if (missing != NULL) {
        snprintf(err, err_size, "filter '%s': %s leaves the required function '%s' NULL", p->spec, file, missing);
        return -1;
    }
    if (api->name == NULL) {
        snprintf(err, err_size, "filter '%s': %s gives no name (the name field is NULL)", p->spec, file);
        return -1;
    }
    return 0;
}

int filter_plugin_resolve(const char *spec, filter_plugin *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    const char *path = spec + strlen("plugin:");
    if (*path == '\0') {
        snprintf(err, err_size, "filter '%s': a filter plugin is plugin:PATH.so", spec);
        return -1;
    }
    if (strlen(spec) >= sizeof out->spec || plugin_file_arg(path, strlen(path), out->file, sizeof out->file) != 0) {
        snprintf(err, err_size, "filter '%.60s...': plugin spec too long", spec);
        return -1;
    }
    snprintf(out->spec, sizeof out->spec, "%s", spec);
    const char *file = strncmp(out->file, "./", 2) == 0 && strncmp(path, "./", 2) != 0 ? out->file + 2 : out->file;
    char why[1024];
    void *lib = plugin_open(out->file, file, "filter plugin", why, sizeof why);
    if (lib == NULL) {
        snprintf(err, err_size, "filter '%s': cannot load %s: %s", spec, file, why);
        return -1;
    }
    dlerror();
    void *sym = dlsym(lib, BLOOMLAB_FILTER_SYMBOL);
    if (sym == NULL) {
        snprintf(err, err_size, "filter '%s': %s has no symbol '%s' (bloomlab/filter.h)", spec, file, BLOOMLAB_FILTER_SYMBOL);
        dlclose(lib);
        return -1;
    }
    if (check_api(out, sym, file, err, err_size) != 0) {
        dlclose(lib);
        return -1;
    }
    out->api = sym;
    return 0; /* the library stays loaded for the life of the process */
}

/* A batch's keys as the ABI's arrays. */
static void batch_arrays(const key_batch *batch, const void **keys, size_t *lens)
{
    for (size_t i = 0; i < batch->count; i++) {
        keys[i] = batch->ptr[i];
        lens[i] = batch->len[i];
    }
}

void filter_plugin_add(const filter_plugin *p, void *handle, const key_batch *batch)
{
    if (p->api->add_batch != NULL) {
        const void *keys[KEY_BATCH];
        size_t lens[KEY_BATCH];
        batch_arrays(batch, keys, lens);
        p->api->add_batch(handle, keys, lens, batch->count);
        return;
    }
    for (size_t i = 0; i < batch->count; i++)
        p->api->add(handle, batch->ptr[i], batch->len[i]);
}

static uint64_t query_one_batch(const filter_plugin *p, const void *handle, const key_batch *batch)
{
    uint64_t yes = 0;
    if (p->api->contains_batch != NULL) {
        const void *keys[KEY_BATCH];
        size_t lens[KEY_BATCH];
        unsigned char answer[KEY_BATCH];
        batch_arrays(batch, keys, lens);
        p->api->contains_batch(handle, keys, lens, batch->count, answer);
        /* count the answers, not the return: a plugin's sum cannot skew the rate */
        for (size_t i = 0; i < batch->count; i++)
            yes += answer[i] != 0;
        return yes;
    }
    for (size_t i = 0; i < batch->count; i++)
        yes += p->api->contains(handle, batch->ptr[i], batch->len[i]) != 0;
    return yes;
}

uint64_t filter_plugin_query(const filter_plugin *p, const void *handle, const key_batch *batches, size_t count)
{
    uint64_t yes = 0;
    for (size_t b = 0; b < count; b++)
        yes += query_one_batch(p, handle, &batches[b]);
    return yes;
}

/* choose at p: 0 with a usable (m, k), else -1. */
static int choose_at(const filter_plugin *p, uint64_t n, double rate, uint64_t *m, unsigned *k)
{
    uint64_t mm = 0;
    unsigned kk = 0;
    if (p->api->choose(n, rate, &mm, &kk) != 0 || mm == 0 || kk < 1 || kk > 64)
        return -1;
    *m = mm;
    *k = kk;
    return 0;
}

int filter_plugin_choice_at(const filter_plugin *p, uint64_t n, uint64_t budget, uint64_t *m, unsigned *k)
{
    if (p->api->choose == NULL || n == 0)
        return -1;
    /* lo: a rate whose m is above budget (or unmet); hi: one that fits */
    double lo = log(1e-300), hi = log(0.5); /* a filter past p = 1/2 tells little */
    uint64_t best_m = 0;
    unsigned best_k = 0;
    if (choose_at(p, n, exp(hi), &best_m, &best_k) != 0 || best_m > budget)
        return -1;
    for (int i = 0; i < 100 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2;
        uint64_t mm;
        unsigned kk;
        if (choose_at(p, n, exp(mid), &mm, &kk) == 0 && mm <= budget) {
            hi = mid;
            best_m = mm;
            best_k = kk;
        } else {
            lo = mid;
        }
    }
    *m = best_m;
    *k = best_k;
    return 0;
}

/* Does a create take (m, k) for n keys? */
static int takes(const filter_plugin *p, uint64_t n, uint64_t seed, uint64_t m, unsigned k)
{
    void *f = p->api->create(m, k, n, seed);
    if (f == NULL)
        return 0;
    p->api->destroy(f);
    return 1;
}

plugin_fit filter_plugin_fit(const filter_plugin *p, uint64_t n, uint64_t seed, uint64_t *m, unsigned *k)
{
    if (takes(p, n, seed, *m, *k))
        return PLUGIN_FIT_ASKED;
    uint64_t mm;
    unsigned kk;
    if (filter_plugin_choice_at(p, n, *m, &mm, &kk) != 0 || !takes(p, n, seed, mm, kk))
        return PLUGIN_FIT_REFUSED;
    *m = mm;
    *k = kk;
    return PLUGIN_FIT_CHOSEN;
}
