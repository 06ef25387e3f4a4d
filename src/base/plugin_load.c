/* plugin_load.c -- see plugin_load.h. */
#define _GNU_SOURCE /* dladdr1 */
#include "base/plugin_load.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "base/guard.h"

int plugin_file_arg(const char *path, size_t path_len, char *out, size_t size)
{
    int bare = memchr(path, '/', path_len) == NULL;
    if (path_len + 3 > size)
        return -1;
    snprintf(out, size, "%s%.*s", bare ? "./" : "", (int)path_len, path);
    return 0;
}

void *plugin_open(const char *file_arg, const char *shown, const char *kind, char *why, size_t why_size)
{
    /* its constructors run inside dlopen: a crash or exit() there is named */
    char doing[4200];
    snprintf(doing, sizeof doing, "the constructor of the %s %s", kind, shown);
    guard_install();
    guard_set(doing, NULL, NULL);
    void *lib = dlopen(file_arg, RTLD_NOW | RTLD_LOCAL);
    guard_clear();
    if (lib == NULL) {
        const char *reason = dlerror();
        snprintf(why, why_size, "%s", reason ? reason : "unknown error");
    }
    return lib;
}

plugin_symbol_kind plugin_symbol_kind_of(void *sym)
{
    const ElfW(Sym) *entry = NULL;
    Dl_info info;
    if (dladdr1(sym, &info, (void **)&entry, RTLD_DL_SYMENT) == 0 || entry == NULL)
        return PLUGIN_SYMBOL_UNKNOWN;
    int type = ELF64_ST_TYPE(entry->st_info);
    if (type == STT_FUNC || type == STT_GNU_IFUNC)
        return PLUGIN_SYMBOL_FUNCTION;
    return PLUGIN_SYMBOL_DATA;
}
