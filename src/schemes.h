/* schemes.h -- index schemes: how the k positions of a key come from hashing.
 *
 * A scheme turns a key into a stream of k 64-bit values u_0, u_1, ...; a
 * layout (filters.h) turns each u into a position by the multiply-shift
 * reduction  pos = floor(u * range / 2^64),  which needs no division and has
 * no modulo bias worth the name: every position receives floor(2^64/range)
 * or one more of the 2^64 values of u, a relative deviation below
 * range/2^64 (6e-8 at range = 2^40).  The schemes:
 *
 *   independent  u_i = H(key, seed_i): k hashes with k different seeds.
 *   double       u_i = h1 + i*h2 (Kirsch and Mitzenmacher 2006).
 *   enhanced     u_0 = h1; u_{i+1} = u_i + h2 + (0 + 1 + ... + i): the
 *                enhanced double hashing of Dillinger and Manolios 2004,
 *                whose cubic term breaks the arithmetic progression.
 *   course       the course page: a = h mod m, b = (h / m mod m) | 1,
 *                positions (a + i*b) mod m for m a power of two.  u carries
 *                the position in its top bits so that the reduction gives it
 *                back exactly.
 *   ideal        no hash at all: u_i drawn by PCG32 seeded by the item's
 *                identity and the trial seed, uniform and independent: the
 *                assumption the theory makes.  Rows say hash = ideal.
 *
 * All arithmetic is mod 2^64.  h1 and h2 come from ONE hash of the key:
 * a 128-bit hash gives h1 = low, h2 = high; a 64-bit hash gives h1 = H and
 * h2 = H rotated by 32; a 32-bit hash gives the same in the top 32 bits
 * (h1 = H << 32, h2 = rot16(H) << 32).  So a 32-bit hash has only 2^32
 * distinct values of u: it cannot address more than 2^32 positions, and its
 * k positions are a function of 32 bits.  hash_limits measures the cost.
 */
#ifndef BLOOMLAB_SCHEMES_H
#define BLOOMLAB_SCHEMES_H

#include <stddef.h>
#include <stdint.h>

#include "hashes.h"
#include "pcg.h"

typedef enum {
    SCHEME_INDEPENDENT,
    SCHEME_DOUBLE,
    SCHEME_ENHANCED,
    SCHEME_COURSE,
    SCHEME_IDEAL,
    SCHEME_COUNT
} scheme_kind;

const char *scheme_name(scheme_kind scheme);
int scheme_from_name(const char *name, scheme_kind *out); /* 0 or -1 */

/* What a scheme needs to know, fixed for a trial. */
typedef struct {
    const hasher *hash;
    uint64_t seed;    /* the trial's seed: hash seed, and ideal's stream */
    unsigned log2_m;  /* course only */
} scheme_ctx;

/* The state of one key's stream of values. */
typedef struct {
    uint64_t x, y;    /* double, enhanced: current value and step */
    uint64_t step;    /* enhanced: the growing increment; independent: index */
    pcg32_t rng;      /* ideal */
    const void *key;  /* independent */
    size_t len;
} probe;

static inline uint64_t rotl64(uint64_t v, unsigned r) { return (v << r) | (v >> ((64 - r) & 63)); }

/* A hash value made 64 bits wide, its bits at the top. */
static inline uint64_t hash_widen(hash128_t h, unsigned bits)
{
    return bits == 32 ? h.lo << 32 : h.lo;
}

/* h1 and h2 from one hash, as the top comment says. */
static inline void hash_split(hash128_t h, unsigned bits, uint64_t *h1, uint64_t *h2)
{
    if (bits == 128) {
        *h1 = h.lo;
        *h2 = h.hi;
    } else if (bits == 64) {
        *h1 = h.lo;
        *h2 = rotl64(h.lo, 32);
    } else {
        uint32_t v = (uint32_t)h.lo;
        *h1 = (uint64_t)v << 32;
        *h2 = (uint64_t)((v << 16) | (v >> 16)) << 32;
    }
}

/* The course page's position i for hash value h in a filter of 2^log2_m bits. */
static inline uint64_t course_position(uint64_t h, unsigned i, unsigned log2_m)
{
    uint64_t mask = log2_m >= 64 ? ~0ULL : (1ULL << log2_m) - 1;
    uint64_t a = h & mask;
    uint64_t b = (log2_m >= 64 ? 0 : (h >> log2_m) & mask) | 1u;
    return (a + (uint64_t)i * b) & mask;
}

/* The PCG stream of the ideal oracle for item `id` in a trial. */
static inline void ideal_seed(pcg32_t *rng, uint64_t trial_seed, uint64_t id)
{
    pcg32_seed(rng, mix64(id ^ mix64(trial_seed)), trial_seed);
}

/* Begin the stream of a key.  `scheme` is a constant at every call site, so
 * the switch folds away in the stamped loops of filters.c. */
static inline void probe_start(scheme_kind scheme, const scheme_ctx *ctx, probe *p,
                               const void *key, size_t len, uint64_t id)
{
    switch (scheme) {
    case SCHEME_IDEAL:
        ideal_seed(&p->rng, ctx->seed, id);
        break;
    case SCHEME_INDEPENDENT:
        p->key = key;
        p->len = len;
        p->step = 0;
        break;
    case SCHEME_COURSE:
        p->x = hash_widen(hasher_hash(ctx->hash, key, len, ctx->seed), 64);
        p->step = 0;
        break;
    default: /* double, enhanced */
        hash_split(hasher_hash(ctx->hash, key, len, ctx->seed), ctx->hash->bits, &p->x, &p->y);
        p->step = 0;
        break;
    }
}

/* The next value u of the stream. */
static inline uint64_t probe_next(scheme_kind scheme, const scheme_ctx *ctx, probe *p)
{
    uint64_t u;
    switch (scheme) {
    case SCHEME_IDEAL:
        return pcg32_next64(&p->rng);
    case SCHEME_INDEPENDENT: {
        hash128_t h = hasher_hash(ctx->hash, p->key, p->len, seed_derive(ctx->seed, p->step++));
        return hash_widen(h, ctx->hash->bits);
    }
    case SCHEME_COURSE:
        u = course_position(p->x, (unsigned)p->step++, ctx->log2_m);
        return ctx->log2_m == 0 ? 0 : u << (64 - ctx->log2_m);
    case SCHEME_ENHANCED:
        u = p->x;
        p->x += p->y;
        p->y += p->step++;
        return u;
    default: /* double */
        u = p->x;
        p->x += p->y;
        return u;
    }
}

#endif
