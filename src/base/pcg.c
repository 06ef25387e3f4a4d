/* pcg.c -- seeding and bounded draws for PCG; see pcg.h. */
#include "base/pcg.h"

void pcg32_seed(pcg32_t *rng, uint64_t initstate, uint64_t initseq)
{
    rng->state = 0u;
    rng->inc = (initseq << 1u) | 1u;
    pcg32_next(rng);
    rng->state += initstate;
    pcg32_next(rng);
}

uint32_t pcg32_bounded(pcg32_t *rng, uint32_t bound)
{
    /* 2^32 mod bound: the outputs below it would make small results likelier. */
    uint32_t threshold = -bound % bound;
    for (;;) {
        uint32_t r = pcg32_next(rng);
        if (r >= threshold)
            return r % bound;
    }
}

uint64_t pcg32_bounded64(pcg32_t *rng, uint64_t bound)
{
    uint64_t x = pcg32_next64(rng);
    pcg_u128 product = (pcg_u128)x * bound;
    uint64_t low = (uint64_t)product;
    if (low < bound) {
        uint64_t threshold = -bound % bound;
        while (low < threshold) {
            x = pcg32_next64(rng);
            product = (pcg_u128)x * bound;
            low = (uint64_t)product;
        }
    }
    return (uint64_t)(product >> 64);
}

static const pcg_u128 PCG64_MULT =
    ((pcg_u128)2549297995355413924ULL << 64) + 4865540595714422341ULL;

static void pcg64_step(pcg64_t *rng)
{
    rng->state = rng->state * PCG64_MULT + rng->inc;
}

void pcg64_seed(pcg64_t *rng, pcg_u128 initstate, pcg_u128 initseq)
{
    rng->state = 0u;
    rng->inc = (initseq << 1u) | 1u;
    pcg64_step(rng);
    rng->state += initstate;
    pcg64_step(rng);
}

uint64_t pcg64_next(pcg64_t *rng)
{
    pcg64_step(rng);
    uint64_t folded = (uint64_t)(rng->state >> 64u) ^ (uint64_t)rng->state;
    unsigned rot = (unsigned)(rng->state >> 122u);
    return (folded >> rot) | (folded << ((-rot) & 63u));
}

uint64_t pcg64_bounded(pcg64_t *rng, uint64_t bound)
{
    uint64_t threshold = -bound % bound;
    for (;;) {
        uint64_t r = pcg64_next(rng);
        if (r >= threshold)
            return r % bound;
    }
}
