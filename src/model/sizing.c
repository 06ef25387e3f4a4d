/* sizing.c -- the split-block sizing rules of sizing.h.
 *
 * Why the classic formula misleads.  (1 - e^(-kn/m))^k is the rate of a
 * standard filter, whose n k bits spread over all m.  A split-block filter
 * sends each key to one of m/256 blocks; a block's load L is
 * Binomial(n, 256/m), nearly Poisson with mean 256 n / m, and given L each
 * of its eight 32-bit words holds L random bits, so the rate is
 *
 *     FPR = E_L[ (1 - (31/32)^L)^8 ]                                    (1)
 *
 * (theory.c computes (1) exactly).  The function inside is convex where it
 * matters, so by Jensen the spread of L raises FPR above its value at the
 * mean load, which is what the formula assumes; the lower p, the more the
 * heavily loaded blocks dominate: at the formula's own size (n = 1e6) the
 * exact FPR is 1.13 p at p = 0.1, 1.46 p at 1%, 3.2 p at 1e-4 and 5.5 p at
 * 1e-5 (tests/test_sizing.c holds two of these).
 *
 * The rules' constants, and where each was read (the code is ours):
 *
 *  - parquet-classic: apache/arrow, cpp/src/parquet/bloom_filter.h, commit
 *    515410b2a14ac766258e00b07eab9e5ee2692a62 (2026-08-21),
 *    BlockSplitBloomFilter::OptimalNumOfBits/OptimalNumOfBytes: bits =
 *    -8 ndv / log(1 - pow(fpp, 1/8)) truncated to a whole number; below
 *    kMinimumBloomFilterBytes = 32 bytes it is raised to 32; then the next
 *    power of two; then capped at kMaximumBloomFilterBytes = 128 MiB.
 *    apache/arrow-rs's main branch does the same in
 *    parquet/src/bloom_filter/mod.rs, commit
 *    cd7c6b83abd6605a83014b3d043930a592542510 (2026-08-22),
 *    num_of_bits_from_ndv_fpp and optimal_num_of_bytes (BITSET_MIN_LENGTH
 *    32, BITSET_MAX_LENGTH 128 MiB), except that it truncates bits / 8 to
 *    bytes before the power of two (the two differ by one power of two only
 *    when the formula's bits land in (2^j, 2^j + 8) for some j: on
 *    experiments/parquet_sizing.ini's grids once, n = 1122 at p = 1e-3 of
 *    the full scale, where Arrow C++ gives 4 KiB and arrow-rs 2 KiB;
 *    bloomlab follows Arrow C++).
 *
 *  - arrow-rs (compensated): apache/arrow-rs pull request #9206, "adjust
 *    sbbf sizing for better cache efficiency", parquet/src/bloom_filter/
 *    mod.rs at its head d7c1e85507dbab7d4d745ba62bb0610cb28e56fe (first
 *    commit 3b0353bd3ad57bccd8f04a0031105d71fd7de8a4, 2026-01-17),
 *    COMPENSATION_TABLE and num_of_bits_from_ndv_fpp: c = -8 / ln(1 -
 *    p^(1/8)); c' from the table below (c <= 5: 6; c >= 34: 2.65 c; else
 *    linear between the two entries around c); bits = ceil(n c'); then
 *    bytes = bits / 8 (truncated) and optimal_num_of_bytes as above.  The
 *    table is Putze, Sanders and Singler's Table I (JEA 2009), which they
 *    derived for blocked filters of B = 512 bits with k bits in a block --
 *    not for split blocks' 256 bits and one bit per 32-bit word.  As read,
 *    the pull request was not merged: main at cd7c6b83 still has the
 *    classic formula.
 *
 *  - bloomlab: the exact (1), solved for the fewest blocks (no constant).
 */
#include "model/sizing.h"
#include "base/names.h"

#include <math.h>
#include <string.h>

#include "model/theory.h"

#define SPLIT_BLOCK_BITS 256ULL

static const char *const SIZING_NAMES[SIZING_COUNT] = {
    "", "parquet-classic", "parquet-classic-nopow2", "arrow-rs", "arrow-rs-nopow2", "bloomlab", "bloomlab-pow2"};

const char *sizing_name(sizing_rule rule) { return SIZING_NAMES[rule]; }

/* One line each for `bloomlab list`; the top comment says where each was read. */
static const char *const SIZING_ABOUT[SIZING_COUNT] = {
    "",
    "m = -8n / ln(1 - p^(1/8)), next power of two, 32 B..128 MiB (Arrow C++, parquet-mr)",
    "the same formula without the power of two",
    "the formula times arrow-rs's compensation table, next power of two",
    "the compensated formula without the power of two",
    "the fewest bits whose exact split-block rate meets p (bloomlab calc)",
    "bloomlab's, then the next power of two",
};

const char *sizing_about(sizing_rule rule) { return SIZING_ABOUT[rule]; }

const char *sizing_names(void)
{
    static char text[128];
    if (text[0] == '\0')
        names_join(SIZING_NAMES, 1, SIZING_COUNT, text, sizeof text); /* [0] is "no rule" */
    return text;
}

int sizing_from_name(const char *name, sizing_rule *out)
{
    int i = name_index(SIZING_NAMES, 1, SIZING_COUNT, name);
    if (i >= 0)
        *out = (sizing_rule)i;
    return i >= 0 ? 0 : -1;
}

double sizing_classic_bits_per_key(double p)
{
    /* The writers' own expression, log(1 - pow(p, 1/8)), so that a size
     * truncated at a whole bit is truncated where theirs is. */
    return -8.0 / log(1.0 - pow(p, 1.0 / 8.0));
}

/* Table I of Putze, Sanders and Singler as arrow-rs PR #9206 carries it:
 * a standard filter's bits per key c (index 0 is c = 5, then c = 6 ...
 * 34) against the bits per key c' a 512-bit blocked filter needs for the
 * same rate. */
#define COMPENSATION_FIRST_C 5
static const double COMPENSATED_C[] = {6,  7,  8,  9,  10, 11, 12, 13, 14, 16, 17, 18, 20, 21, 23,
                                       25, 26, 28, 30, 32, 35, 38, 40, 44, 48, 51, 58, 64, 74, 90};
#define COMPENSATION_ENTRIES (sizeof COMPENSATED_C / sizeof COMPENSATED_C[0])
#define COMPENSATION_BEYOND 2.65 /* c' = 2.65 c from the table's last c up */

double sizing_arrow_rs_compensated(double c)
{
    const double first = COMPENSATION_FIRST_C, last = COMPENSATION_FIRST_C + (double)COMPENSATION_ENTRIES - 1;
    if (c <= first)
        return COMPENSATED_C[0];
    if (c >= last)
        return COMPENSATION_BEYOND * c;
    /* Entries sit at whole c: interpolate between floor(c) and the next
     * (at a whole c the weight of the next is 0, the entry itself). */
    size_t low = (size_t)floor(c) - COMPENSATION_FIRST_C;
    double weight = c - floor(c);
    return COMPENSATED_C[low] + weight * (COMPENSATED_C[low + 1] - COMPENSATED_C[low]);
}

static uint64_t next_power_of_two(uint64_t v)
{
    uint64_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

/* Whole bytes b to bits, as Parquet's writers finish: raised to 32 B, up
 * to a power of two, capped at 128 MiB. */
static uint64_t writer_bytes_to_bits(uint64_t bytes)
{
    if (bytes < SIZING_MIN_BYTES)
        bytes = SIZING_MIN_BYTES;
    bytes = next_power_of_two(bytes);
    return 8 * (bytes > SIZING_MAX_BYTES ? SIZING_MAX_BYTES : bytes);
}

/* A formula's bits, rounded up to whole blocks only, within the same clamp. */
static uint64_t bits_to_whole_blocks(double bits)
{
    const double max_bits = 8.0 * (double)SIZING_MAX_BYTES;
    if (!(bits < max_bits))
        return (uint64_t)max_bits;
    uint64_t whole = (uint64_t)ceil(bits);
    whole = (whole + SPLIT_BLOCK_BITS - 1) / SPLIT_BLOCK_BITS * SPLIT_BLOCK_BITS;
    return whole < SPLIT_BLOCK_BITS ? SPLIT_BLOCK_BITS : whole;
}

/* Arrow C++'s OptimalNumOfBits: truncate, raise to 256 bits, next power
 * of two, cap (a size past the cap is the cap). */
static uint64_t parquet_classic_bits(uint64_t n, double p)
{
    const double max_bits = 8.0 * (double)SIZING_MAX_BYTES;
    double bits = (double)n * sizing_classic_bits_per_key(p);
    if (!(bits <= max_bits))
        return (uint64_t)max_bits;
    uint64_t whole = (uint64_t)bits;
    if (whole < 8 * SIZING_MIN_BYTES)
        whole = 8 * SIZING_MIN_BYTES;
    whole = next_power_of_two(whole);
    return whole > (uint64_t)max_bits ? (uint64_t)max_bits : whole;
}

/* arrow-rs PR #9206: ceil(n c') bits, truncated to bytes, then the writer's finish. */
static double arrow_rs_bits(uint64_t n, double p)
{
    return ceil((double)n * sizing_arrow_rs_compensated(sizing_classic_bits_per_key(p)));
}

static int splitblock_meets(uint64_t blocks, uint64_t n, double p)
{
    return theory_fpr_splitblock(blocks * SPLIT_BLOCK_BITS, n, 1) <= p;
}

uint64_t sizing_splitblock_min_blocks(uint64_t n, double p, uint64_t max_blocks)
{
    if (max_blocks == 0)
        return 0;
    /* Bracket the answer: `fail` blocks are too few (0 always is), `meet`
     * enough.  Start from the classic formula's size, doubling while it
     * falls short (at n = 1e6 it does for every p from 0.5 down), then
     * bisect: the FPR falls as blocks are added (a block more spreads the
     * same keys thinner), so the answer is the one boundary between fail
     * and meet. */
    double guess = ceil((double)n * sizing_classic_bits_per_key(p) / (double)SPLIT_BLOCK_BITS);
    uint64_t fail = 0, meet = guess < 1 ? 1 : guess > (double)max_blocks ? max_blocks : (uint64_t)guess;
    while (!splitblock_meets(meet, n, p)) {
        if (meet == max_blocks)
            return 0;
        fail = meet;
        meet = meet > max_blocks / 2 ? max_blocks : 2 * meet;
    }
    while (meet - fail > 1) {
        uint64_t mid = fail + (meet - fail) / 2;
        if (splitblock_meets(mid, n, p))
            meet = mid;
        else
            fail = mid;
    }
    return meet;
}

uint64_t sizing_bits(sizing_rule rule, uint64_t n, double p, uint64_t max_bits)
{
    uint64_t bits = 0, blocks;
    switch (rule) {
    case SIZING_PARQUET_CLASSIC:
        bits = parquet_classic_bits(n, p);
        break;
    case SIZING_PARQUET_CLASSIC_NOPOW2:
        bits = bits_to_whole_blocks((double)n * sizing_classic_bits_per_key(p));
        break;
    case SIZING_ARROW_RS: {
        double raw = arrow_rs_bits(n, p), max_bits_writer = 8.0 * (double)SIZING_MAX_BYTES;
        bits = raw >= max_bits_writer ? (uint64_t)max_bits_writer : writer_bytes_to_bits((uint64_t)raw / 8);
        break;
    }
    case SIZING_ARROW_RS_NOPOW2:
        bits = bits_to_whole_blocks(arrow_rs_bits(n, p));
        break;
    case SIZING_BLOOMLAB:
    case SIZING_BLOOMLAB_POW2:
        blocks = sizing_splitblock_min_blocks(n, p, max_bits / SPLIT_BLOCK_BITS);
        if (blocks == 0)
            return 0;
        if (rule == SIZING_BLOOMLAB_POW2)
            blocks = next_power_of_two(blocks);
        bits = blocks * SPLIT_BLOCK_BITS;
        break;
    default:
        return 0;
    }
    return bits > max_bits ? 0 : bits;
}
