/* sizing.h -- the rules that size a split-block filter from (n, p).
 *
 * A writer of Parquet files is told how many distinct values a column
 * chunk holds (n) and the false-positive rate it may have (p), and picks
 * the filter's size.  The rules bloomlab measures (sizing.c gives the
 * constants and where each was read):
 *
 *   parquet-classic         m = -8n / ln(1 - p^(1/8)) bits, the classic
 *                           formula at k = 8, then up to a power of two,
 *                           clamped to 32 B .. 128 MiB (Arrow C++, the
 *                           Parquet spec's advice, parquet-mr, arrow-rs
 *                           to this day);
 *   arrow-rs                the formula's bits per key c mapped through a
 *                           compensation table (Putze, Sanders and
 *                           Singler's Table I for 512-bit blocks), then
 *                           the same power of two and clamp;
 *   bloomlab                the fewest whole 256-bit blocks whose exact
 *                           split-block FPR (theory_fpr_splitblock, the
 *                           binomial mixture over block loads) is <= p.
 *
 * and each without its rounding: parquet-classic-nopow2 and
 * arrow-rs-nopow2 take the formula's bits up to whole blocks only, and
 * bloomlab-pow2 is the fewest power-of-two bytes whose exact FPR is <= p
 * (the power of two at or above bloomlab's blocks, since the FPR falls as
 * blocks are added).  Every rule returns m in bits, a multiple of 256.
 */
#ifndef BLOOMLAB_SIZING_H
#define BLOOMLAB_SIZING_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SIZING_NONE, /* the cell gives m or bits_per_item */
    SIZING_PARQUET_CLASSIC,
    SIZING_PARQUET_CLASSIC_NOPOW2,
    SIZING_ARROW_RS,
    SIZING_ARROW_RS_NOPOW2,
    SIZING_BLOOMLAB,
    SIZING_BLOOMLAB_POW2,
    SIZING_COUNT
} sizing_rule;

/* The bounds the Parquet writers clamp to (32 B is one block). */
#define SIZING_MIN_BYTES 32ULL
#define SIZING_MAX_BYTES (128ULL * 1024 * 1024)

/* "" for SIZING_NONE. */
const char *sizing_name(sizing_rule rule);
const char *sizing_about(sizing_rule rule); /* one line, for bloomlab list */
int sizing_from_name(const char *name, sizing_rule *out); /* 0 or -1 */
/* The names, comma separated, for messages. */
const char *sizing_names(void);

/* The filter size in bits the rule gives for n >= 1 items at target rate
 * 0 < p < 1: a multiple of 256, at least 256.  0 when the size would pass
 * max_bits (the bloomlab rules, whose size has no clamp; the others stop
 * at 128 MiB). */
uint64_t sizing_bits(sizing_rule rule, uint64_t n, double p, uint64_t max_bits);

/* The classic formula's bits per key at k = 8, -8 / ln(1 - p^(1/8)). */
double sizing_classic_bits_per_key(double p);
/* arrow-rs's compensated bits per key for the classic c (its table with
 * linear interpolation; 2.65 c from c = 34 up). */
double sizing_arrow_rs_compensated(double c);
/* The fewest 256-bit blocks whose exact split-block FPR at n items is
 * <= p; 0 when more than max_blocks would be needed. */
uint64_t sizing_splitblock_min_blocks(uint64_t n, double p, uint64_t max_blocks);

#endif
