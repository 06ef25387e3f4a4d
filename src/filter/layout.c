/* layout.c -- the layout table (layout.h) and the layout facts of
 * filters.h read from it. */
#include "filter/layout.h"

#include <stdio.h>
#include <string.h>

#include "filter/loops.h"

#define SCHEME_BIT(s) (1u << (s))
#define ALL_SCHEMES ((1u << SCHEME_COUNT) - 1)
/* parquet is the split block's own hash, multiply gives bits inside a
 * block, course gives positions in [0, m): the layouts that take them. */
#define UNBLOCKED_SCHEMES (ALL_SCHEMES & ~SCHEME_BIT(SCHEME_PARQUET) & ~SCHEME_BIT(SCHEME_MULTIPLY))
#define BLOCKED_SCHEMES (ALL_SCHEMES & ~SCHEME_BIT(SCHEME_PARQUET) & ~SCHEME_BIT(SCHEME_COURSE))

/* A layout's portable loops, every scheme; mul: the multiply slot's (an
 * unblocked layout's is never reached: layout_check refuses the pair, and
 * double's loops stand there). */
#define PORTABLE(l, mul)                                                                          \
    {[SCHEME_INDEPENDENT] = &loops_##l##_independent, [SCHEME_DOUBLE] = &loops_##l##_double,      \
     [SCHEME_ENHANCED] = &loops_##l##_enhanced,       [SCHEME_COURSE] = &loops_##l##_course,      \
     [SCHEME_IDEAL] = &loops_##l##_ideal,             [SCHEME_PARQUET] = &loops_##l##_parquet,    \
     [SCHEME_MULTIPLY] = &loops_##l##_##mul}
#define ONE(l, mul)                                                                               \
    {[SCHEME_INDEPENDENT] = &one_##l##_independent, [SCHEME_DOUBLE] = &one_##l##_double,          \
     [SCHEME_ENHANCED] = &one_##l##_enhanced,       [SCHEME_COURSE] = &one_##l##_course,          \
     [SCHEME_IDEAL] = &one_##l##_ideal,             [SCHEME_PARQUET] = &one_##l##_parquet,        \
     [SCHEME_MULTIPLY] = &one_##l##_##mul}
/* A level's vector loops for one pair (dispatch.c), none off x86. */
#if BLOOMLAB_X86
#define VEC(name) (&loops_##name)
#else
#define VEC(name) NULL
#endif

const struct layout LAYOUT_TABLE[LAYOUT_COUNT] = {
    [LAYOUT_STANDARD] = {
        .name = "standard",
        .about = "one array of m bits, k positions anywhere",
        .shape = LAYOUT_SHAPE_STANDARD,
        .schemes = UNBLOCKED_SCHEMES, .default_scheme = SCHEME_DOUBLE,
        .fpr_conditional = filter_fpr_unblocked,
        .portable = PORTABLE(standard, double),
        .avx2 = {[SCHEME_DOUBLE] = VEC(standard_avx2)},
        .avx512 = {[SCHEME_DOUBLE] = VEC(standard_avx512)},
        .avx2_about = "double below 2^32 positions (queries: where the portable one pass would apply the "
                      "first 3 positions first, all k after mostly present keys, beyond phased, the portable rounds "
                      "after mostly present keys beyond the last-level cache; "
                      "inserts: 8-byte keys' xxh3_64 or mulx64 hashed four a step where the portable one pass "
                      "would apply, else by the portable loop; others in L2)",
        .avx512_about = "double (queries: all k in L2, 8-byte keys' xxh3_64 in the loop, phased beyond, all k "
                        "after mostly present keys; inserts: up to the last-level cache, staged-insert positions "
                        "below 2^32 bits)",
        .one = ONE(standard, double),
    },
    [LAYOUT_COUNTING] = {
        .name = "counting",
        .about = "m 4-bit counters at the standard positions: deletes (4x the memory)",
        .shape = LAYOUT_SHAPE_COUNTING,
        .schemes = UNBLOCKED_SCHEMES, .default_scheme = SCHEME_DOUBLE,
        .deletes_exactly = 1,
        .fpr_conditional = filter_fpr_unblocked,
        .portable = PORTABLE(counting, double),
        .avx2 = {[SCHEME_DOUBLE] = VEC(counting_avx2)},
        .avx512 = {[SCHEME_DOUBLE] = VEC(counting_avx512)},
        .avx2_about = "double below 2^32 positions (queries: all k in L2, portable phases beyond; "
                      "inserts: up to the last-level cache)",
        .avx512_about = "double below 2^32 positions (queries: all k in L2, 8-byte keys' xxh3_64 in the loop, "
                        "phased beyond; inserts: up to the last-level cache)",
        .one = ONE(counting, double),
    },
    [LAYOUT_PARTITIONED] = {
        .name = "partitioned",
        .about = "k slices of m/k bits, position i in slice i",
        .shape = LAYOUT_SHAPE_PARTITIONED,
        .k_at_most_m = 1,
        .schemes = UNBLOCKED_SCHEMES & ~SCHEME_BIT(SCHEME_COURSE), .default_scheme = SCHEME_DOUBLE,
        .fpr_conditional = filter_fpr_partitioned,
        .portable = PORTABLE(partitioned, double),
        .avx2 = {[SCHEME_DOUBLE] = VEC(partitioned_avx2)},
        .avx512 = {[SCHEME_DOUBLE] = VEC(partitioned_avx512)},
        .avx2_about = "double below 2^32 positions (queries: all k in L2, portable phases beyond; "
                      "inserts: up to the last-level cache)",
        .avx512_about = "double below 2^32 positions (queries: all k in L2, 8-byte keys' xxh3_64 in the loop, "
                        "phased beyond; inserts: up to the last-level cache)",
        .one = ONE(partitioned, double),
    },
    [LAYOUT_BLOCKED512] = {
        .name = "blocked512",
        .about = "512-bit blocks (a cache line): one block a key, k bits inside it",
        .shape = LAYOUT_SHAPE_BLOCKED512,
        .schemes = BLOCKED_SCHEMES, .default_scheme = SCHEME_MULTIPLY,
        .fpr_conditional = filter_fpr_blocked,
        .portable = PORTABLE(blocked512, multiply),
        .avx2 = {[SCHEME_DOUBLE] = VEC(blocked512_avx2), [SCHEME_MULTIPLY] = VEC(blocked512_multiply_avx2)},
        .avx512 = {[SCHEME_DOUBLE] = VEC(blocked512_avx512), [SCHEME_MULTIPLY] = VEC(blocked512_multiply_avx512)},
        .avx2_about = "double and multiply below 2^32 bits",
        .avx512_about = "double (in L2 with 8-byte keys' xxh3_64 in the loop), multiply by the avx2 loops "
                        "below 2^32 bits",
        .one = ONE(blocked512, multiply),
    },
    [LAYOUT_REGISTER64] = {
        .name = "register64",
        .about = "64-bit blocks (one word): one word a key, k bits inside it",
        .shape = LAYOUT_SHAPE_REGISTER64,
        .schemes = BLOCKED_SCHEMES, .default_scheme = SCHEME_MULTIPLY,
        .fpr_conditional = filter_fpr_blocked,
        .portable = PORTABLE(register64, multiply),
        .avx2 = {[SCHEME_DOUBLE] = VEC(register64_avx2), [SCHEME_MULTIPLY] = VEC(register64_multiply_avx2)},
        .avx512 = {[SCHEME_DOUBLE] = VEC(register64_avx512), [SCHEME_MULTIPLY] = VEC(register64_multiply_avx512)},
        .avx2_about = "double and multiply",
        .avx512_about = "double, multiply by the avx2 loops",
        .one = ONE(register64, multiply),
    },
    [LAYOUT_SPLITBLOCK] = {
        .name = "splitblock",
        .about = "Parquet's split block: 256-bit blocks of eight 32-bit words, one bit each (k = 8)",
        .shape = LAYOUT_SHAPE_SPLITBLOCK,
        .fixed_k = 8, .fixed_k_why = "sets one bit in each of its 8 words",
        .schemes = ALL_SCHEMES & ~SCHEME_BIT(SCHEME_MULTIPLY) & ~SCHEME_BIT(SCHEME_COURSE),
        .default_scheme = SCHEME_DOUBLE,
        .fpr_conditional = filter_fpr_splitblock,
        .portable = PORTABLE(splitblock, double),
        .avx2 = {[SCHEME_DOUBLE] = VEC(splitblock_avx2)},
        .avx512 = {[SCHEME_DOUBLE] = VEC(splitblock_avx512)},
        .avx2_about = "double (8-byte keys' xxh3_64 or mulx64 in the loop)",
        .avx512_about = "double (8-byte keys' xxh3_64 or mulx64 in the loop, eight a step)",
        .one = ONE(splitblock, double),
    },
};

const char *layout_name(layout_kind layout) { return LAYOUT_TABLE[layout].name; }

const char *layout_about(layout_kind layout) { return LAYOUT_TABLE[layout].about; }

int layout_from_name(const char *name, layout_kind *out)
{
    for (int i = 0; i < LAYOUT_COUNT; i++) {
        if (strcmp(name, LAYOUT_TABLE[i].name) == 0) {
            *out = (layout_kind)i;
            return 0;
        }
    }
    return -1;
}

unsigned layout_block_bits(layout_kind layout) { return LAYOUT_TABLE[layout].shape.block_bits; }

uint64_t layout_fit_m(layout_kind layout, uint64_t m)
{
    uint64_t b = layout_block_bits(layout);
    return m == 0 ? b : (m + b - 1) / b * b;
}

unsigned layout_cell_bits(layout_kind layout) { return LAYOUT_TABLE[layout].shape.cell_bits; }

uint64_t layout_memory_bits(layout_kind layout, uint64_t m) { return LAYOUT_TABLE[layout].shape.cell_bits * m; }

uint64_t layout_bytes(layout_kind layout, uint64_t m)
{
    return (layout_memory_bits(layout, m) + 511) / 512 * 64; /* whole cache lines */
}

unsigned layout_fixed_k(layout_kind layout) { return LAYOUT_TABLE[layout].fixed_k; }

int layout_k_at_most_m(layout_kind layout) { return LAYOUT_TABLE[layout].k_at_most_m; }

int layout_deletes_exactly(layout_kind layout) { return LAYOUT_TABLE[layout].deletes_exactly; }

scheme_kind layout_default_scheme(layout_kind layout) { return LAYOUT_TABLE[layout].default_scheme; }

static int is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

/* Why a layout refuses a scheme, by scheme (%s: the layout). */
static const char *const SCHEME_REFUSED[SCHEME_COUNT] = {
    [SCHEME_PARQUET] = "scheme parquet is the Parquet format's split-block hash: it needs filter splitblock, not %s",
    [SCHEME_MULTIPLY] = "scheme multiply gives the bits inside a block: it needs filter blocked512 or register64, not %s",
    [SCHEME_COURSE] = "scheme course gives positions in [0, m): it needs filter standard or counting",
};

static int scheme_refused(const struct layout *l, scheme_kind scheme, char *err, size_t err_size)
{
    if (l->schemes & SCHEME_BIT(scheme))
        return 0;
    snprintf(err, err_size, SCHEME_REFUSED[scheme], l->name);
    return -1;
}

int layout_check(layout_kind layout, scheme_kind scheme, uint64_t m, unsigned k, char *err,
                 size_t err_size)
{
    const struct layout *l = &LAYOUT_TABLE[layout];
    if (l->fixed_k != 0 && k != l->fixed_k) {
        snprintf(err, err_size, "filter %s %s: k must be %u, not %u", l->name, l->fixed_k_why, l->fixed_k, k);
        return -1;
    }
    if (l->k_at_most_m && m < k) {
        snprintf(err, err_size, "filter %s needs m >= k (m = %llu, k = %u)", l->name, (unsigned long long)m, k);
        return -1;
    }
    if (scheme != SCHEME_COURSE && scheme_refused(l, scheme, err, err_size) != 0)
        return -1;
    if (scheme == SCHEME_COURSE && !is_power_of_two(m)) {
        snprintf(err, err_size, "scheme course needs m a power of two, not %llu", (unsigned long long)m);
        return -1;
    }
    return scheme_refused(l, scheme, err, err_size);
}
