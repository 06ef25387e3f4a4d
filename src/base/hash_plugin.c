/* hash_plugin.c -- a user's hash loaded from a shared library, and the
 * resolution of any hash name (built-in or plugin); see hashes.h.  Apart
 * from the registry (hashes.c) because it needs dlopen and the crash guard,
 * which the command-line tool has and the library (bloomlab.h) does not. */
#include "base/hashes.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "base/plugin_load.h"

static hash128_t h_plugin(const hasher *self, const void *key, size_t len, uint64_t seed)
{
    return (hash128_t){self->user(key, len, seed), 0};
}

/* Split "plugin:PATH:SYMBOL" into the file dlopen is given (a bare name
 * made ./NAME: dlopen would search the library path, a plugin is a file)
 * and the symbol.  0, or -1 with the reason in err. */
static int plugin_split(const char *spec, char *file, size_t file_size, const char **symbol, char *err,
                        size_t err_size)
{
    const char *path = spec + strlen("plugin:");
    const char *colon = strrchr(path, ':');
    if (colon == NULL || colon == path || colon[1] == '\0') {
        snprintf(err, err_size, "hash '%s': a plugin is plugin:PATH.so:SYMBOL", spec);
        return -1;
    }
    size_t path_len = (size_t)(colon - path);
    if (strlen(spec) >= HASH_NAME_MAX || plugin_file_arg(path, path_len, file, file_size) != 0) {
        snprintf(err, err_size, "hash '%.60s...': plugin spec too long", spec);
        return -1;
    }
    *symbol = colon + 1;
    return 0;
}

int hasher_plugin_file(const hasher *h, char *out, size_t size)
{
    const char *symbol;
    char err[16];
    if (h->user == NULL || strncmp(h->name, "plugin:", 7) != 0)
        return -1;
    return plugin_split(h->name, out, size, &symbol, err, sizeof err);
}

static int plugin_resolve(const char *spec, hasher *out, char *err, size_t err_size)
{
    char file_arg[HASH_NAME_MAX + 2];
    const char *symbol;
    if (plugin_split(spec, file_arg, sizeof file_arg, &symbol, err, err_size) != 0)
        return -1;
    /* the messages name the file as the user gave it */
    const char *file = strncmp(file_arg, "./", 2) == 0 && strncmp(spec + 7, "./", 2) != 0 ? file_arg + 2 : file_arg;
    char why[1024];
    void *lib = plugin_open(file_arg, file, "hash plugin", why, sizeof why);
    if (lib == NULL) {
        snprintf(err, err_size, "hash '%s': cannot load %s: %s", spec, file, why);
        return -1;
    }
    dlerror();
    void *sym = dlsym(lib, symbol);
    if (sym == NULL) {
        snprintf(err, err_size, "hash '%s': %s has no symbol '%s'", spec, file, symbol);
        dlclose(lib);
        return -1;
    }
    /* Calling a data symbol jumps into data: a crash with no message.  The
     * symbol table says what the symbol is. */
    if (plugin_symbol_kind_of(sym) == PLUGIN_SYMBOL_DATA) {
        snprintf(err, err_size, "hash '%s': '%s' in %s is not a function (a data symbol?)", spec, symbol, file);
        dlclose(lib);
        return -1;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", spec);
    out->bits = 64;
    out->about = "user plugin";
    out->fn = h_plugin;
    memcpy(&out->user, &sym, sizeof out->user); /* POSIX: dlsym's object pointer is the function */
    return 0; /* the library stays loaded for the life of the process */
}

int hasher_resolve(const char *name, hasher *out, char *err, size_t err_size)
{
    if (strncmp(name, "plugin:", 7) == 0)
        return plugin_resolve(name, out, err, err_size);
    if (hasher_builtin(name, out) == 0)
        return 0;
    snprintf(err, err_size, "unknown hash '%s' (bloomlab list shows the hashes)", name);
    return -1;
}
