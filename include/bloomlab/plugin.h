/* bloomlab/plugin.h -- the ABI of a user's hash for bloomlab.
 *
 * A hash plugin is a shared library exporting one function of this type:
 *
 *     uint64_t SYMBOL(const void *key, size_t len, uint64_t seed);
 *
 * bloomlab calls it for every key (from several threads at once: it must
 * not keep state), treats the result as a 64-bit hash, and derives a key's
 * k positions from it by the scheme in use.  Use it wherever a hash name
 * goes: `--hash plugin:PATH.so:SYMBOL`, or `hash = plugin:PATH.so:SYMBOL`
 * in an experiment file.  examples/plugin_hash.c is one, built against this
 * header alone:
 *
 *     cc -O2 -shared -fPIC $(pkg-config --cflags bloomlab) -o myhash.so myhash.c
 */
#ifndef BLOOMLAB_PLUGIN_H
#define BLOOMLAB_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

/* The version of this ABI; a change to the function's type changes it. */
#define BLOOMLAB_PLUGIN_ABI 1

typedef uint64_t bloomlab_hash_fn(const void *key, size_t len, uint64_t seed);

#endif
