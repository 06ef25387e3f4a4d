/* stage.h -- staged inserts, for the filter layer's loops (batch.c,
 * dispatch.c); stage.c says why and how. */
#ifndef BLOOMLAB_STAGE_H
#define BLOOMLAB_STAGE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "filter/filters.h"

#ifndef ALWAYS_INLINE
#define ALWAYS_INLINE static inline __attribute__((always_inline))
#endif

#define STAGE_REGION_LOG2_BITS 21
#define STAGE_REGION_WORDS (1u << (STAGE_REGION_LOG2_BITS - 6))
#define STAGE_PER_LINE 8u
#define STAGE_CAPACITY (STAGE_PER_LINE * (STAGE_REGION_WORDS / 8)) /* offsets a bucket */
#define STAGE_LINE 16u /* offsets in a cache line */

struct filter_stage {
    uint64_t regions;
    uint64_t words;     /* the filter's */
    int dirty;          /* positions staged since the last flush */
    uint32_t *used;     /* per region: offsets staged, the last used % STAGE_LINE of them pending */
    uint32_t *pending;  /* regions x STAGE_LINE, 64-byte aligned: the line being filled */
    uint32_t *offset;   /* regions x STAGE_CAPACITY, 64-byte aligned: bit offsets inside the region */
};

/* Whether a new filter of this layout, m and bytes stages its inserts:
 * a layout that stages (the table's `stages`), beyond the last-level
 * cache, and room for the buckets. */
int filter_stages(layout_kind layout, uint64_t m, uint64_t bytes);
struct filter_stage *stage_new(uint64_t m);
void stage_free(struct filter_stage *st);
void stage_apply(uint64_t *words, struct filter_stage *st, uint64_t r);

/* A full pending line to its bucket, past the cache. */
ALWAYS_INLINE void stage_line_out(uint32_t *to, const uint32_t *line)
{
#ifdef __SSE2__
    for (unsigned q = 0; q < STAGE_LINE; q += 4)
        _mm_stream_si128((__m128i *)(void *)(to + q), _mm_load_si128((const __m128i *)(const void *)(line + q)));
#else
    memcpy(to, line, STAGE_LINE * sizeof *line);
#endif
}

ALWAYS_INLINE void stage_add(uint64_t *words, struct filter_stage *st, uint64_t pos)
{
    const uint64_t r = pos >> STAGE_REGION_LOG2_BITS;
    uint32_t *line = st->pending + r * STAGE_LINE;
    const uint32_t used = st->used[r] + 1;
    line[(used - 1) % STAGE_LINE] = (uint32_t)(pos & ((1u << STAGE_REGION_LOG2_BITS) - 1));
    st->used[r] = used;
    if (used % STAGE_LINE != 0)
        return;
    stage_line_out(st->offset + r * STAGE_CAPACITY + used - STAGE_LINE, line);
    if (used == STAGE_CAPACITY)
        stage_apply(words, st, r);
}

/* Queries must see every insert: staged ones are a caller's bug. */
static inline void require_flushed(const filter *f)
{
    if (f->stage != NULL && f->stage->dirty) {
        fprintf(stderr, "bloomlab: internal error: a filter with staged inserts was read before filter_flush\n");
        abort();
    }
}

#endif
