/* pcg.h -- the PCG family of random number generators (O'Neill 2014).
 *
 * A PCG generator is a linear congruential generator (state = state * a + c
 * mod 2^w) whose output is not the state but a permutation of it: the top
 * bits choose a rotation or shift applied to a xor-folded state.  The LCG
 * gives full period and a stream per odd increment c; the permutation hides
 * the weak low bits every LCG has.
 *
 * pcg32: 64-bit state, XSH-RR output (xorshift high, random rotate), 32 bits.
 * pcg64: 128-bit state, XSL-RR output (xor low with high, random rotate), 64 bits.
 * Both follow the reference C implementations bit for bit, including the
 * seeding (srandom) and the bounded draw (reject below 2^w mod bound, then
 * take the remainder), which tests/test_pcg.c checks against
 * tests/vectors/.  The hot paths are static inline.
 */
#ifndef BLOOMLAB_PCG_H
#define BLOOMLAB_PCG_H

#include <stdint.h>

#define PCG32_MULT 6364136223846793005ULL

typedef struct {
    uint64_t state;
    uint64_t inc; /* always odd: selects the stream */
} pcg32_t;

static inline uint32_t pcg32_output(uint64_t state)
{
    uint32_t xorshifted = (uint32_t)(((state >> 18u) ^ state) >> 27u);
    uint32_t rot = (uint32_t)(state >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

static inline uint32_t pcg32_next(pcg32_t *rng)
{
    uint64_t old = rng->state;
    rng->state = old * PCG32_MULT + rng->inc;
    return pcg32_output(old);
}

/* Two consecutive outputs, the first in the high half. */
static inline uint64_t pcg32_next64(pcg32_t *rng)
{
    uint64_t hi = pcg32_next(rng);
    return (hi << 32) | pcg32_next(rng);
}

void pcg32_seed(pcg32_t *rng, uint64_t initstate, uint64_t initseq);
/* Uniform in [0, bound), bound >= 1: the reference's rejection method. */
uint32_t pcg32_bounded(pcg32_t *rng, uint32_t bound);
/* Uniform in [0, bound), bound >= 1, by Lemire's multiply-shift with
 * rejection: exact, and one multiply in the common case. */
uint64_t pcg32_bounded64(pcg32_t *rng, uint64_t bound);

__extension__ typedef unsigned __int128 pcg_u128;

typedef struct {
    pcg_u128 state;
    pcg_u128 inc;
} pcg64_t;

void pcg64_seed(pcg64_t *rng, pcg_u128 initstate, pcg_u128 initseq);
uint64_t pcg64_next(pcg64_t *rng);
uint64_t pcg64_bounded(pcg64_t *rng, uint64_t bound);

/* SplitMix64's finaliser: a bijection of 64-bit words with full avalanche.
 * Used to derive independent seeds from (seed, index) pairs. */
#define MIX64_MUL1 0xbf58476d1ce4e5b9ULL
#define MIX64_MUL2 0x94d049bb133111ebULL

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= MIX64_MUL1;
    x ^= x >> 27;
    x *= MIX64_MUL2;
    x ^= x >> 31;
    return x;
}

/* The seed of the index-th member of a family seeded by base. */
static inline uint64_t seed_derive(uint64_t base, uint64_t index)
{
    return mix64(base ^ mix64(index + 0x9e3779b97f4a7c15ULL));
}

#endif
