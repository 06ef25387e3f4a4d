/* plugin_load.h -- what loading any plugin library shares (the hash
 * plugins of hash_plugin.c, the filter plugins of filter_plugin.c): the
 * file named as a file, its constructors run under the crash guard, and
 * the kind of a symbol read from the ELF symbol table. */
#ifndef BLOOMLAB_PLUGIN_LOAD_H
#define BLOOMLAB_PLUGIN_LOAD_H

#include <stddef.h>

/* The file dlopen is given for PATH: a bare name is made ./NAME (dlopen
 * would search the library path; a plugin is a file).  0, or -1 when it
 * does not fit in `size`. */
int plugin_file_arg(const char *path, size_t path_len, char *out, size_t size);

/* dlopen(file_arg) with its constructors under the crash guard (a crash or
 * exit() there is named "the constructor of the KIND FILE"); `shown` is the
 * file as the user wrote it.  The handle, or NULL with dlerror()'s reason
 * in why. */
void *plugin_open(const char *file_arg, const char *shown, const char *kind, char *why, size_t why_size);

typedef enum { PLUGIN_SYMBOL_FUNCTION, PLUGIN_SYMBOL_DATA, PLUGIN_SYMBOL_UNKNOWN } plugin_symbol_kind;

/* What the symbol table says sym (from dlsym) is: a function, anything
 * else (an object, TLS, no type), or unknown (no entry found). */
plugin_symbol_kind plugin_symbol_kind_of(void *sym);

#endif
