/* plugin_hash.c -- an example of a user's own hash for bloomlab.
 *
 * Build:  cc -O2 -shared -fPIC -Iinclude -o myhash.so examples/plugin_hash.c
 *         (installed: cc -O2 -shared -fPIC $(pkg-config --cflags bloomlab) ...)
 * Use:    bloomlab sweep --hash plugin:./myhash.so:example_hash ...
 *
 * bloomlab calls  uint64_t SYMBOL(const void *key, size_t len, uint64_t seed)
 * and treats the result as a 64-bit hash.  This one is FNV-1a 64 over the
 * seed's bytes and the key, followed by the SplitMix64 finaliser so that
 * its high bits are as good as its low ones.
 */
#include <bloomlab/plugin.h>

bloomlab_hash_fn example_hash;

uint64_t example_hash(const void *key, size_t len, uint64_t seed)
{
    const unsigned char *p = key;
    uint64_t h = 14695981039346656037ULL;
    for (int i = 0; i < 8; i++)
        h = (h ^ ((seed >> (8 * i)) & 0xff)) * 1099511628211ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}
