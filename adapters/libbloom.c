/* libbloom.c -- libbloom (Jyri J. Virkki's C library, Debian's libbloom-dev
 * 1.6) as a bloomlab filter plugin: build/adapters/libbloom.so.
 *
 * libbloom is asked for an expected number of entries and an error rate p
 * (bloom_init(&b, entries, p)); from them it takes its own
 *     bpe = -ln p / (ln 2)^2,  bits = (int)(entries * bpe),
 *     hashes = ceil(ln 2 * bpe)
 * (bloom.h, "computations from the wikipedia entry") and sets positions by
 * (a + i b) mod bits, a and b 32-bit MurmurHash2 of the key.
 *
 * The ABI's create gets (m, k, expected_n, seed), so the adapter maps them:
 *   - p is the rate whose libbloom size is m at expected_n:
 *     p = exp(-((m + 1/2) / expected_n) (ln 2)^2), so that libbloom's own
 *     (int)(entries bpe) is m again (the half bit keeps rounding off it);
 *     `bits` reports the bits libbloom built, from its public `bits` field;
 *   - k must be libbloom's own `hashes` for that p: create refuses (NULL,
 *     and bloomlab stops with one line) when the k asked is another, so a
 *     row's k column is always the k libbloom hashes with;
 *   - seed: libbloom hashes with a fixed MurmurHash2 seed and takes none, so
 *     the seed is ignored (each trial still draws its own keys);
 *   - entries = expected_n (the experiment's expected_n, not the load).
 * `choose(n, p)` is libbloom's own sizing: bloom_init(n, p) and its bits and
 * hashes fields, so an experiment can state the m and k libbloom picks for
 * a p (experiments/peer_libraries.ini; tests/test_adapters.c checks them).
 * `fpr` is the classic (1 - e^{-kn/m})^k: the formula libbloom's sizing
 * assumes (its header promises p "as long as entries are not exceeded"). */
#include <bloom.h>
#include <bloomlab/filter.h>
#include <math.h>
#include <stdlib.h>

#define LN2_SQUARED 0.480453013918201424667102526326649717 /* (ln 2)^2 */

static void *create(uint64_t m, unsigned k, uint64_t expected_n, uint64_t seed)
{
    (void)seed; /* libbloom has no seed */
    if (m == 0 || k == 0 || expected_n < 1000 || expected_n > 0x7fffffff || m > 0x7fffffff)
        return NULL; /* bloom_init wants entries >= 1000 and an int of bits */
    struct bloom *b = calloc(1, sizeof *b);
    if (b == NULL)
        return NULL;
    /* bits = (int)(entries * bpe) is m when bpe = (m + 1/2) / entries */
    double p = exp(-(((double)m + 0.5) / (double)expected_n) * LN2_SQUARED);
    if (!(p > 0 && p < 1) || bloom_init(b, (int)expected_n, p) != 0) {
        free(b);
        return NULL;
    }
    if (b->hashes != (int)k) { /* not libbloom's own k for this m: refused, never relabelled */
        bloom_free(b);
        free(b);
        return NULL;
    }
    return b;
}

static void destroy(void *filter)
{
    bloom_free(filter);
    free(filter);
}

static void add(void *filter, const void *key, size_t len) { bloom_add(filter, key, (int)len); }

/* bloom_check takes a non-const pointer but only reads the filter. */
static int contains(const void *filter, const void *key, size_t len)
{
    return bloom_check((struct bloom *)filter, key, (int)len) == 1;
}

static uint64_t size_bytes(const void *filter)
{
    const struct bloom *b = filter;
    return (uint64_t)b->bytes + sizeof *b;
}

static uint64_t bits(const void *filter) { return (uint64_t)((const struct bloom *)filter)->bits; }

/* Bits set among libbloom's `bits` (bf and bytes: the bit field itself). */
static uint64_t bits_set(const void *filter)
{
    const struct bloom *b = filter;
    uint64_t set = 0;
    for (int i = 0; i < b->bytes; i++)
        set += (uint64_t)__builtin_popcount(b->bf[i]);
    return set;
}

static double fpr(uint64_t m, uint64_t n, unsigned k)
{
    return pow(1 - exp(-(double)k * (double)n / (double)m), k);
}

static int choose(uint64_t n, double p, uint64_t *m, unsigned *k)
{
    struct bloom b = {0};
    if (n < 1000 || n > 0x7fffffff || !(p > 0 && p < 1) || bloom_init(&b, (int)n, p) != 0)
        return -1;
    *m = (uint64_t)b.bits;
    *k = (unsigned)b.hashes;
    bloom_free(&b);
    return 0;
}

const bloomlab_filter_api bloomlab_filter_plugin = {
    .abi = BLOOMLAB_FILTER_ABI, .name = "libbloom", .create = create, .destroy = destroy, .add = add,
    .contains = contains, .size_bytes = size_bytes, .bits = bits, .bits_set = bits_set, .fpr = fpr,
    .choose = choose,
};
