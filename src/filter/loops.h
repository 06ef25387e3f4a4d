/* loops.h -- the names of the filter layer's loops, one list, for the
 * layout table (layout.c) to name them.
 *
 * Portable loops.  batch.c stamps (token-pastes) one set of loops for each
 * (layout, scheme) pair of STAMPED_PAIRS below: for the pair TAG (say
 * standard_double) the batched insert_TAG, query_TAG, remove_TAG,
 * insert_many_TAG and query_many_TAG, the one-key reference insert1_TAG and
 * query1_TAG, and the objects loops_TAG (filter_ops) and one_TAG
 * (filter_one_ops) that the table points at.  Every layout gets every
 * scheme but multiply, a blocked layouts' scheme (layout_check refuses the
 * pairs the table's schemes mask leaves out; their loops are never run).
 *
 * Vector loops (x86).  dispatch.c makes, for each pair of VECTOR_PAIRS at
 * each level ISA (avx2, avx512), insert_TAG_ISA, query_TAG_ISA,
 * insert_many_TAG_ISA and query_many_TAG_ISA, which run a loop of avx2.h or
 * avx512.h when one fits the filter (its run-selection functions,
 * TAG_insert_run_ISA and TAG_query_run_ISA) and else the stamped ones, and
 * the object loops_TAG_ISA.  A TAG without a scheme is the double-hashing
 * pair of that layout.
 */
#ifndef BLOOMLAB_LOOPS_H
#define BLOOMLAB_LOOPS_H

#include "filter/layout.h"

/* X(LAYOUT, SCHEME, TAG) for every stamped pair. */
#define STAMPED_PAIRS(X)                                                  \
    X(LAYOUT_STANDARD, SCHEME_INDEPENDENT, standard_independent)          \
    X(LAYOUT_STANDARD, SCHEME_DOUBLE, standard_double)                    \
    X(LAYOUT_STANDARD, SCHEME_ENHANCED, standard_enhanced)                \
    X(LAYOUT_STANDARD, SCHEME_COURSE, standard_course)                    \
    X(LAYOUT_STANDARD, SCHEME_IDEAL, standard_ideal)                      \
    X(LAYOUT_STANDARD, SCHEME_PARQUET, standard_parquet)                  \
    X(LAYOUT_COUNTING, SCHEME_INDEPENDENT, counting_independent)          \
    X(LAYOUT_COUNTING, SCHEME_DOUBLE, counting_double)                    \
    X(LAYOUT_COUNTING, SCHEME_ENHANCED, counting_enhanced)                \
    X(LAYOUT_COUNTING, SCHEME_COURSE, counting_course)                    \
    X(LAYOUT_COUNTING, SCHEME_IDEAL, counting_ideal)                      \
    X(LAYOUT_COUNTING, SCHEME_PARQUET, counting_parquet)                  \
    X(LAYOUT_PARTITIONED, SCHEME_INDEPENDENT, partitioned_independent)    \
    X(LAYOUT_PARTITIONED, SCHEME_DOUBLE, partitioned_double)              \
    X(LAYOUT_PARTITIONED, SCHEME_ENHANCED, partitioned_enhanced)          \
    X(LAYOUT_PARTITIONED, SCHEME_COURSE, partitioned_course)              \
    X(LAYOUT_PARTITIONED, SCHEME_IDEAL, partitioned_ideal)                \
    X(LAYOUT_PARTITIONED, SCHEME_PARQUET, partitioned_parquet)            \
    X(LAYOUT_BLOCKED512, SCHEME_INDEPENDENT, blocked512_independent)      \
    X(LAYOUT_BLOCKED512, SCHEME_DOUBLE, blocked512_double)                \
    X(LAYOUT_BLOCKED512, SCHEME_ENHANCED, blocked512_enhanced)            \
    X(LAYOUT_BLOCKED512, SCHEME_COURSE, blocked512_course)                \
    X(LAYOUT_BLOCKED512, SCHEME_IDEAL, blocked512_ideal)                  \
    X(LAYOUT_BLOCKED512, SCHEME_PARQUET, blocked512_parquet)              \
    X(LAYOUT_BLOCKED512, SCHEME_MULTIPLY, blocked512_multiply)            \
    X(LAYOUT_REGISTER64, SCHEME_INDEPENDENT, register64_independent)      \
    X(LAYOUT_REGISTER64, SCHEME_DOUBLE, register64_double)                \
    X(LAYOUT_REGISTER64, SCHEME_ENHANCED, register64_enhanced)            \
    X(LAYOUT_REGISTER64, SCHEME_COURSE, register64_course)                \
    X(LAYOUT_REGISTER64, SCHEME_IDEAL, register64_ideal)                  \
    X(LAYOUT_REGISTER64, SCHEME_PARQUET, register64_parquet)              \
    X(LAYOUT_REGISTER64, SCHEME_MULTIPLY, register64_multiply)            \
    X(LAYOUT_SPLITBLOCK, SCHEME_INDEPENDENT, splitblock_independent)      \
    X(LAYOUT_SPLITBLOCK, SCHEME_DOUBLE, splitblock_double)                \
    X(LAYOUT_SPLITBLOCK, SCHEME_ENHANCED, splitblock_enhanced)            \
    X(LAYOUT_SPLITBLOCK, SCHEME_COURSE, splitblock_course)                \
    X(LAYOUT_SPLITBLOCK, SCHEME_IDEAL, splitblock_ideal)                  \
    X(LAYOUT_SPLITBLOCK, SCHEME_PARQUET, splitblock_parquet)

/* X(TAG) for every pair with vector loops, at both levels. */
#define VECTOR_PAIRS(X)                                                   \
    X(standard) X(counting) X(partitioned) X(blocked512) X(register64) X(splitblock) \
    X(blocked512_multiply) X(register64_multiply)

#define LOOPS_DECLARE_STAMPED(L, S, tag)                                                          \
    void insert_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys);                   \
    size_t query_##tag(const filter *f, const scheme_ctx *ctx, const key_batch *keys,             \
                       unsigned char *answer);                                                    \
    void remove_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys);                   \
    void insert_many_##tag(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count); \
    size_t query_many_##tag(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count, \
                            unsigned char *answers);                                      \
    void insert1_##tag(filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id); \
    int query1_##tag(const filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id); \
    extern const filter_ops loops_##tag;                                                          \
    extern const filter_one_ops one_##tag;
STAMPED_PAIRS(LOOPS_DECLARE_STAMPED)

#if BLOOMLAB_X86
#define LOOPS_DECLARE_VECTOR(tag)                                                                 \
    extern const filter_ops loops_##tag##_avx2;                                                   \
    extern const filter_ops loops_##tag##_avx512;
VECTOR_PAIRS(LOOPS_DECLARE_VECTOR)
#endif

#endif
