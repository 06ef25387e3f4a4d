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
 *                assumption the theory makes.  Rows say hash = ideal.  The
 *                filters do not reduce its u: they draw each position with
 *                ideal_draw (exactly uniform, one PCG32 step when the range
 *                is at most 2^32) and a bit inside a block from the top
 *                bits of one 32-bit output.
 *   parquet      the Parquet format's split-block filter hash: one value
 *                u_0 = XXH64(key bytes, seed 0), whatever the trial seed
 *                (the format fixes it; the trials still differ, because
 *                each trial samples its own keys).  The splitblock layout
 *                takes its block from the top half and its eight bits from
 *                the bottom half of u_0, exactly as the spec says, so a
 *                filter built so is bit for bit the one a Parquet writer
 *                stores (sbbf.h reads and writes that form).  The scheme
 *                defines one value only: later values repeat u_0, and
 *                layout_check accepts it for filter splitblock only.
 *                Rows say hash = xxh64.
 *   multiply     for the blocked layouts (blocked512, register64) only:
 *                u_0 = h1 picks the block as with double; the bits inside
 *                it come from one 32-bit value g_0 = h2 >> 32 (the top
 *                half of the remixed h2, so a 32-bit hash's fmix32 value),
 *                offset i = g_i >> (32 - log2 block bits) and
 *                g_{i+1} = g_i * MULTIPLY_STEP mod 2^32: RocksDB's
 *                FastLocalBloom probe sequence (Boost.Bloom's
 *                fast_multiblock32 multiplies one value by a salt per word
 *                instead).  Why not double inside a block: a + i b mod 512
 *                is an arithmetic progression, and a step b of small order
 *                folds a key's k bits onto few (b = 0 mod 64 puts a
 *                register64 key on one bit), which costs x1.6 at 16 bits per
 *                item on blocked512; the powers of an odd multiplier have
 *                no such short period in their top bits, and the number of
 *                distinct bits a key sets matches k independent draws.
 *                layout_default_scheme (filters.h) makes it the blocked
 *                layouts' default; double stays selectable.
 *
 * All arithmetic is mod 2^64.  h1 and h2 come from ONE hash of the key:
 * a 128-bit hash gives h1 = low, h2 = high; a 64-bit hash gives h1 = H and
 * h2 = mix64(H), a bijective remix (not a rotation: H + rot32(H) is
 * (A + B)(2^32 + 1) and would leave u_1 only 33 bits of freedom); a 32-bit
 * hash gives the same in the top 32 bits (h1 = H << 32, h2 = fmix32(H) << 32).
 * So a 32-bit hash has only 2^32 distinct values of u: it cannot address
 * more than 2^32 positions, and its k positions are a function of 32 bits.
 * hash_limits measures the cost.
 *
 * The enhanced scheme's growing increment is i * ENHANCED_STEP rather than
 * i: positions are read from the top bits of u, where an increment of a few
 * units would never move a position.  ENHANCED_STEP is odd and close to
 * 2^64 / golden ratio, so the cubic term spreads over the whole range, as
 * the i(i^2 - 1)/6 term does modulo m in the original.
 */
#ifndef BLOOMLAB_SCHEMES_H
#define BLOOMLAB_SCHEMES_H

#include <stddef.h>
#include <stdint.h>

#include "base/hashes.h"
#include "base/pcg.h"

typedef enum {
    SCHEME_INDEPENDENT,
    SCHEME_DOUBLE,
    SCHEME_ENHANCED,
    SCHEME_COURSE,
    SCHEME_IDEAL,
    SCHEME_PARQUET,
    SCHEME_MULTIPLY,
    SCHEME_COUNT
} scheme_kind;

/* The multiply scheme's step: odd, 2^32 / golden ratio (RocksDB's). */
#define MULTIPLY_STEP 0x9e3779b9u

/* The multiply scheme's first in-block value from the key's h2. */
static inline uint32_t multiply_start(uint64_t h2) { return (uint32_t)(h2 >> 32); }

const char *scheme_name(scheme_kind scheme);
const char *scheme_about(scheme_kind scheme); /* one line, for bloomlab list */
/* The Parquet spec's hash of a value's (plain-encoded) bytes: XXH64, seed 0. */
uint64_t parquet_hash(const void *key, size_t len);
int scheme_from_name(const char *name, scheme_kind *out); /* 0 or -1 */
/* "independent, double, ...": every scheme's name, for messages. */
const char *scheme_names_text(void);

/* What a scheme needs to know, fixed for a trial. */
typedef struct {
    const hasher *hash;
    uint64_t seed;    /* the trial's seed: hash seed, and ideal's stream */
    unsigned log2_m;  /* course only */
} scheme_ctx;

/* The state of one key's stream of values. */
typedef struct {
    uint64_t x, y;    /* double, enhanced: current value and step; parquet: x = u_0 */
    uint64_t step;    /* enhanced: the growing increment; independent: index */
    pcg32_t rng;      /* ideal */
    const void *key;  /* independent */
    size_t len;
} probe;


/* A hash value made 64 bits wide, its bits at the top. */
static inline uint64_t hash_widen(hash128_t h, unsigned bits)
{
    return bits == 32 ? h.lo << 32 : h.lo;
}

/* The reduction of the top comment: floor(u range / 2^64). */
static inline uint64_t reduce_range(uint64_t u, uint64_t range)
{
    return (uint64_t)(((pcg_u128)u * range) >> 64);
}

/* floor(log2 v) for v >= 1 (0 for v = 0). */
static inline unsigned log2_floor(uint64_t v)
{
    unsigned r = 0;
    while (v >>= 1)
        r++;
    return r;
}

/* MurmurHash3's 32-bit finaliser: a bijection with full avalanche. */
static inline uint32_t fmix32(uint32_t v)
{
    v ^= v >> 16;
    v *= 0x85ebca6bu;
    v ^= v >> 13;
    v *= 0xc2b2ae35u;
    return v ^ (v >> 16);
}

#define ENHANCED_STEP 0x9e3779b97f4a7c15ULL

/* h1 and h2 from one hash, as the top comment says. */
static inline void hash_split(hash128_t h, unsigned bits, uint64_t *h1, uint64_t *h2)
{
    if (bits == 128) {
        *h1 = h.lo;
        *h2 = h.hi;
    } else if (bits == 64) {
        *h1 = h.lo;
        *h2 = mix64(h.lo);
    } else {
        uint32_t v = (uint32_t)h.lo;
        *h1 = (uint64_t)v << 32;
        *h2 = (uint64_t)fmix32(v) << 32;
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

/* The PCG stream of the ideal oracle for item `id` in a trial: pcg32_seed's
 * two steps written out (state 0, step, add initstate, step), so that the
 * seeding inlines.  seed_mix = mix64(trial_seed), hoisted by the caller. */
static inline void ideal_seed_mixed(pcg32_t *rng, uint64_t trial_seed, uint64_t seed_mix, uint64_t id)
{
    rng->inc = (trial_seed << 1u) | 1u;
    rng->state = (rng->inc + mix64(id ^ seed_mix)) * PCG32_MULT + rng->inc;
}

static inline void ideal_seed(pcg32_t *rng, uint64_t trial_seed, uint64_t id)
{
    ideal_seed_mixed(rng, trial_seed, mix64(trial_seed), id);
}

/* The ideal oracle's position in [0, range): Lemire's multiply-shift with
 * rejection, exactly uniform.  x * range / 2^w lands on each result from
 * floor(2^w / range) or one more values of x; rejecting the 2^w mod range
 * values whose low product part falls below that threshold leaves exactly
 * floor(2^w / range) for each.  w = 32 (one PCG32 step per position) when
 * range <= 2^32, else w = 64 (two steps).  The threshold's division runs
 * only on the rare draws with low < range. */
static inline uint64_t ideal_draw(pcg32_t *rng, uint64_t range)
{
    if (range > (1ULL << 32))
        return pcg32_bounded64(rng, range);
    uint64_t product = (uint64_t)pcg32_next(rng) * range;
    if ((uint32_t)product < range) {
        uint32_t threshold = (uint32_t)(((1ULL << 32) - range) % range); /* 2^32 mod range */
        while ((uint32_t)product < threshold)
            product = (uint64_t)pcg32_next(rng) * range;
    }
    return product >> 32;
}

/* Begin a hashed scheme's stream (double, enhanced, course) from the key's
 * one hash value h of width `bits`. */
static inline void probe_start_hashed(scheme_kind scheme, probe *p, hash128_t h, unsigned bits)
{
    if (scheme == SCHEME_COURSE)
        p->x = hash_widen(h, 64);
    else
        hash_split(h, bits, &p->x, &p->y);
    p->step = 0;
}

/* Begin the stream of a key.  `scheme` is a constant at every call site, so
 * the switch folds away in the stamped loops of batch.c. */
static inline void probe_start(scheme_kind scheme, const scheme_ctx *ctx, probe *p,
                               const void *key, size_t len, uint64_t id)
{
    *p = (probe){0}; /* every field defined, whatever the scheme reads */
    switch (scheme) {
    case SCHEME_IDEAL:
        ideal_seed(&p->rng, ctx->seed, id);
        break;
    case SCHEME_INDEPENDENT:
        p->key = key;
        p->len = len;
        p->step = 0;
        break;
    case SCHEME_PARQUET:
        p->x = parquet_hash(key, len);
        break;
    default: /* double, enhanced, course */
        probe_start_hashed(scheme, p, hasher_hash(ctx->hash, key, len, ctx->seed), ctx->hash->bits);
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
    case SCHEME_PARQUET:
        return p->x;
    case SCHEME_COURSE:
        u = course_position(p->x, (unsigned)p->step++, ctx->log2_m);
        return ctx->log2_m == 0 ? 0 : u << (64 - ctx->log2_m);
    case SCHEME_ENHANCED:
        u = p->x;
        p->x += p->y;
        p->y += (p->step++) * ENHANCED_STEP;
        return u;
    default: /* double */
        u = p->x;
        p->x += p->y;
        return u;
    }
}

/* The next position in [0, range) of a key's stream, as the unblocked
 * layouts take it: the ideal scheme draws it exactly, the others reduce u. */
static inline uint64_t probe_position(scheme_kind scheme, const scheme_ctx *ctx, probe *p, uint64_t range)
{
    return scheme == SCHEME_IDEAL ? ideal_draw(&p->rng, range) : reduce_range(probe_next(scheme, ctx, p), range);
}

#endif
