/* layout.h -- the layout table: one entry per layout (filters.h says what
 * each layout is), holding every decision the filter layer makes by
 * layout: its name and one line about it, its block and cell sizes (the
 * size rule), the k it is built for, the schemes it takes (its checks),
 * its default scheme, how an unbiased absent key's rate is read from its
 * bits, and its loops at each instruction-set level side by side.
 * filter_ops_for, filter_ops_description, layout_check and the layout_*
 * facts of filters.h all read it; nothing in the filter layer switches on
 * the layout outside the stamped loops of batch.c, whose layout is a
 * compile-time constant folded into each stamp.
 *
 * The model's formulas (exact rate, approximation, variance, fill, best k)
 * are a second table indexed by the same layout_kind, in model/model.c:
 * the filter library builds without the model (layers point down,
 * scripts/layers.sh), so this table cannot point at them.
 */
#ifndef BLOOMLAB_LAYOUT_H
#define BLOOMLAB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/cpu.h"
#include "filter/filters.h"

/* One key at a time, no batching: the reference (filter_insert_one). */
typedef struct {
    void (*insert)(filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id);
    int (*query)(const filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id);
} filter_one_ops;

/* Where a key's position i lands (batch.c's cursor_position):
 *   ANYWHERE  a value of the scheme's stream reduced to [0, m);
 *   SLICED    the same reduced to slice i of k (partitioned);
 *   IN_BLOCK  the key's block, then an offset below block_bits from the
 *             scheme (blocked512, register64);
 *   SALTED    word i of the key's block, bit (h32 SALT[i]) >> 27 (Parquet's
 *             split block). */
typedef enum { POSITION_ANYWHERE, POSITION_SLICED, POSITION_IN_BLOCK, POSITION_SALTED } position_rule;

/* A layout's shape: the facts its stamped loops (batch.c) fold at compile
 * time.  The size rule: m is rounded up to whole blocks of block_bits (1:
 * unblocked), each position takes cell_bits of memory (4: counting's
 * counters), and the array is whole 64-byte cache lines of that.  stages:
 * its filters may stage their inserts (stage.c).  position: the rule above. */
struct layout_shape {
    unsigned block_bits;
    unsigned cell_bits;
    int stages;
    position_rule position;
};

/* Each written once: the table's entries (layout.c) and LAYOUT_SHAPES below
 * take them from here. */
#define LAYOUT_SHAPE_STANDARD {.block_bits = 1, .cell_bits = 1, .stages = 1, .position = POSITION_ANYWHERE}
#define LAYOUT_SHAPE_COUNTING {.block_bits = 1, .cell_bits = 4, .stages = 0, .position = POSITION_ANYWHERE}
#define LAYOUT_SHAPE_PARTITIONED {.block_bits = 1, .cell_bits = 1, .stages = 1, .position = POSITION_SLICED}
#define LAYOUT_SHAPE_BLOCKED512 {.block_bits = 512, .cell_bits = 1, .stages = 0, .position = POSITION_IN_BLOCK}
#define LAYOUT_SHAPE_REGISTER64 {.block_bits = 64, .cell_bits = 1, .stages = 0, .position = POSITION_IN_BLOCK}
#define LAYOUT_SHAPE_SPLITBLOCK {.block_bits = 256, .cell_bits = 1, .stages = 0, .position = POSITION_SALTED}

/* The shapes where a stamped loop reads them: a static const array whose
 * reads at a constant layout the compiler folds, so the stamps branch on
 * none of them. */
static const struct layout_shape LAYOUT_SHAPES[LAYOUT_COUNT] = {
    [LAYOUT_STANDARD] = LAYOUT_SHAPE_STANDARD,     [LAYOUT_COUNTING] = LAYOUT_SHAPE_COUNTING,
    [LAYOUT_PARTITIONED] = LAYOUT_SHAPE_PARTITIONED, [LAYOUT_BLOCKED512] = LAYOUT_SHAPE_BLOCKED512,
    [LAYOUT_REGISTER64] = LAYOUT_SHAPE_REGISTER64, [LAYOUT_SPLITBLOCK] = LAYOUT_SHAPE_SPLITBLOCK,
};

struct layout {
    const char *name;
    const char *about;          /* one line, for bloomlab list */
    struct layout_shape shape;  /* block and cell bits, staging */
    /* Checks (layout_check), in this order: k must be fixed_k when it is
     * not 0 (fixed_k_why says why); m >= k when k_at_most_m; the scheme
     * must be in schemes (bit s for scheme_kind s). */
    unsigned fixed_k;
    const char *fixed_k_why;
    int k_at_most_m;
    unsigned schemes;
    scheme_kind default_scheme;
    int deletes_exactly;        /* a delete decrements a counter (layout_deletes_exactly) */
    /* filter_fpr_conditional: the rate of an absent key with ideal
     * positions, read from this filter's bits (filter.c). */
    double (*fpr_conditional)(const filter *f);
    /* The loops, indexed by scheme: the portable ones (batch.c) for every
     * scheme, and where a level has vector loops for a scheme (dispatch.c:
     * each runs a loop of avx2.h or avx512.h when its run-selection
     * function finds one that fits the filter, else the portable one),
     * theirs; NULL where the level has none.  The vector ops leave remove
     * to the portable loops. */
    const filter_ops *portable[SCHEME_COUNT];
    const filter_ops *avx2[SCHEME_COUNT];
    const filter_ops *avx512[SCHEME_COUNT];
    /* What the vector loops do, and where: one phrase each, for
     * filter_ops_description ("" where none). */
    const char *avx2_about;
    const char *avx512_about;
    const filter_one_ops *one[SCHEME_COUNT]; /* the one-key reference */
};

extern const struct layout LAYOUT_TABLE[LAYOUT_COUNT];

/* The rates of filter.c that the table names. */
double filter_fpr_unblocked(const filter *f);   /* standard, counting: (X/m)^k */
double filter_fpr_partitioned(const filter *f); /* the product of the slices' fills */
double filter_fpr_blocked(const filter *f);     /* the mean over blocks of (X_b/B)^k */
double filter_fpr_splitblock(const filter *f);  /* the mean over blocks of the words' product */

#endif
