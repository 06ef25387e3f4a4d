/* plugin_filter.c -- an example of a user's own filter for bloomlab.
 *
 * Build:  cc -O2 -shared -fPIC -Iinclude -o myfilter.so examples/plugin_filter.c -lm
 *         (installed: cc -O2 -shared -fPIC $(pkg-config --cflags bloomlab) ...)
 * Use:    bloomlab sweep --filter plugin:./myfilter.so --n 1e5 --bits-per-item 10 --k 7
 *
 * A standard Bloom filter of its own, written against bloomlab/filter.h
 * alone: m bits, k positions by double hashing (Kirsch and Mitzenmacher)
 * of one 128-bit FNV-1a-and-finaliser hash, its own classic formula, and
 * its own sizing (m = -n ln p / (ln 2)^2, k = round((m/n) ln 2)).
 */
#include <bloomlab/filter.h>
#include <math.h>
#include <stdlib.h>

__extension__ typedef unsigned __int128 u128; /* gcc and clang: the high half of a 64x64 product */

typedef struct {
    uint64_t m;
    unsigned k;
    uint64_t seed;
    uint64_t *words;
} example_filter;

static uint64_t finalise(uint64_t h)
{
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    return h ^ (h >> 31);
}

/* FNV-1a 64 over the key, seeded; two finalised words from it. */
static void hash2(const example_filter *f, const void *key, size_t len, uint64_t *h1, uint64_t *h2)
{
    const unsigned char *p = key;
    uint64_t h = 14695981039346656037ULL ^ f->seed;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    *h1 = finalise(h);
    *h2 = finalise(h ^ 0x9e3779b97f4a7c15ULL) | 1; /* odd: k distinct steps */
}

/* Position i of a key: floor(g_i m / 2^64), g_i = h1 + i h2 (mod 2^64). */
static uint64_t position(const example_filter *f, uint64_t h1, uint64_t h2, unsigned i)
{
    return (uint64_t)(((u128)(h1 + i * h2) * f->m) >> 64);
}

static void *create(uint64_t m, unsigned k, uint64_t expected_n, uint64_t seed)
{
    (void)expected_n;
    if (m == 0 || k == 0)
        return NULL;
    example_filter *f = malloc(sizeof *f);
    if (f == NULL)
        return NULL;
    f->m = m;
    f->k = k;
    f->seed = finalise(seed);
    f->words = calloc((m + 63) / 64, sizeof *f->words);
    if (f->words == NULL) {
        free(f);
        return NULL;
    }
    return f;
}

static void destroy(void *filter)
{
    example_filter *f = filter;
    free(f->words);
    free(f);
}

static void add(void *filter, const void *key, size_t len)
{
    example_filter *f = filter;
    uint64_t h1, h2;
    hash2(f, key, len, &h1, &h2);
    for (unsigned i = 0; i < f->k; i++) {
        uint64_t bit = position(f, h1, h2, i);
        f->words[bit / 64] |= 1ULL << (bit % 64);
    }
}

static int contains(const void *filter, const void *key, size_t len)
{
    const example_filter *f = filter;
    uint64_t h1, h2;
    hash2(f, key, len, &h1, &h2);
    for (unsigned i = 0; i < f->k; i++) {
        uint64_t bit = position(f, h1, h2, i);
        if (!(f->words[bit / 64] >> (bit % 64) & 1))
            return 0;
    }
    return 1;
}

static uint64_t size_bytes(const void *filter)
{
    const example_filter *f = filter;
    return (f->m + 63) / 64 * 8 + sizeof *f;
}

static uint64_t bits_set(const void *filter)
{
    const example_filter *f = filter;
    uint64_t set = 0;
    for (uint64_t w = 0; w < (f->m + 63) / 64; w++)
        set += (uint64_t)__builtin_popcountll(f->words[w]);
    return set;
}

/* The classic (1 - e^(-kn/m))^k. */
static double fpr(uint64_t m, uint64_t n, unsigned k)
{
    return pow(1 - exp(-(double)k * (double)n / (double)m), k);
}

static int choose(uint64_t n, double p, uint64_t *m, unsigned *k)
{
    if (n == 0 || !(p > 0 && p < 1))
        return -1;
    double bits = ceil(-(double)n * log(p) / (log(2) * log(2)));
    long best = lround(bits / (double)n * log(2));
    *m = (uint64_t)bits;
    *k = best < 1 ? 1 : best > 64 ? 64 : (unsigned)best;
    return 0;
}

const bloomlab_filter_api bloomlab_filter_plugin = {
    .abi = BLOOMLAB_FILTER_ABI,
    .name = "example standard",
    .create = create,
    .destroy = destroy,
    .add = add,
    .contains = contains,
    .size_bytes = size_bytes,
    .bits_set = bits_set,
    .fpr = fpr,
    .choose = choose,
};
