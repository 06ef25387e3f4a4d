/* stage.c -- staged inserts: a standard or partitioned filter beyond the
 * last-level cache sorts its positions into buckets by region and sets a
 * region's bits while the region is in cache (filters.h). */
#define _GNU_SOURCE
#include "filter/stage.h"

#include <stdatomic.h>
#include <unistd.h>

#include "base/cache.h"
#include "filter/layout.h"

/* Beyond the last-level cache every position an insert sets is a trip to
 * DRAM: the line read, and later written back, k of them a key at the
 * memory's random-access rate, and no order of one key's work beats it.
 * Many keys' work does, by making the accesses sequential:
 *
 *   sort     each position goes into the bucket of its region of the
 *            filter (2^21 bits = 256 KiB, a quarter of L2), as a 32-bit
 *            offset.  A bucket is written a cache line at a time: offsets
 *            gather in the region's `pending` line (a few hundred lines, in
 *            L1) and a full line goes out with non-temporal stores, which
 *            write it without first reading it from DRAM (software
 *            write-combining, as in radix partitioning);
 *   apply    when a bucket holds STAGE_PER_LINE offsets per line of its
 *            region, the region is read in line order -- a stream the
 *            memory system runs at its bandwidth -- and the bucket's bits
 *            are set while the region sits in L2.
 *
 * Each region line then crosses the memory bus twice per STAGE_PER_LINE
 * positions instead of twice per position, and each position costs 8
 * bytes of sequential bucket traffic: sequential traffic runs at the
 * memory's bandwidth, several times its random-access rate, so staging
 * wins once the filter's lines come from DRAM (the timings, and the other
 * line counts and region sizes tried: docs/PERFORMANCE.md).
 * The buckets take 4 bytes a position: STAGE_PER_LINE / 16 of the filter,
 * which is why a filter stages only while filter and buckets fit in half
 * of the machine's memory.
 *
 * OR is commutative, so the bits are those of any other order; what
 * changes is when: a staged position is set when its bucket fills or at
 * filter_flush().  Only the plain one-bit layouts stage: standard and
 * partitioned (counting is not a fast path, and a blocked key's bits share
 * one line already).
 *
 * The threshold.  A filter stages when it is larger than the last-level
 * cache (filter_stage_min_bytes: the kernel's, else the C library's figure, asked at run time,
 * cache.h): while the filter fits in the LLC a position's line is a cache
 * hit or an on-chip miss, and the direct insert, which touches each line
 * once, beats writing every position twice (bucket, then region); beyond
 * it each position is a DRAM trip, which is what staging saves.  The
 * threshold decides which loop sets the bits, never which bits: OR
 * commutes, so a staged filter's bits are the direct loops' and the one-key
 * reference's (tests/test_batch.c). */

static uint64_t stage_regions(uint64_t m) { return (m >> STAGE_REGION_LOG2_BITS) + 1; }

static uint64_t stage_bytes(uint64_t m)
{
    return stage_regions(m) * (STAGE_CAPACITY + STAGE_LINE + 1) * sizeof(uint32_t);
}

/* The threshold, asked once (0: not yet): the vector loops ask it every
 * call (dispatch.c's inserts_direct), so it costs a load, not a sysconf.
 * Atomic: filters are built and filled on several threads at once. */
static _Atomic uint64_t stage_min_bytes;

uint64_t filter_stage_min_bytes(void)
{
    uint64_t bytes = atomic_load_explicit(&stage_min_bytes, memory_order_relaxed);
    if (bytes == 0) {
        bytes = cache_llc_bytes();
        atomic_store_explicit(&stage_min_bytes, bytes, memory_order_relaxed);
    }
    return bytes;
}

void filter_stage_min_bytes_set(uint64_t bytes) { atomic_store_explicit(&stage_min_bytes, bytes, memory_order_relaxed); }

int filter_stages(layout_kind layout, uint64_t m, uint64_t bytes)
{
    if (!LAYOUT_TABLE[layout].shape.stages || bytes <= filter_stage_min_bytes())
        return 0;
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    return (double)(bytes + stage_bytes(m)) <= 0.5 * ram;
}

struct filter_stage *stage_new(uint64_t m)
{
    struct filter_stage *st = calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->regions = stage_regions(m);
    st->words = (m + 63) / 64;
    st->used = calloc(st->regions, sizeof *st->used);
    void *pending = NULL, *offset = NULL;
    if (posix_memalign(&pending, 64, st->regions * STAGE_LINE * sizeof(uint32_t)) == 0)
        st->pending = pending;
    if (posix_memalign(&offset, 64, st->regions * STAGE_CAPACITY * sizeof(uint32_t)) == 0)
        st->offset = offset;
    if (st->used == NULL || st->pending == NULL || st->offset == NULL) {
        stage_free(st);
        return NULL;
    }
    return st;
}

void stage_free(struct filter_stage *st)
{
    if (st == NULL)
        return;
    free(st->used);
    free(st->pending);
    free(st->offset);
    free(st);
}

/* Set the bits of `count` offsets into one region. */
static void stage_set(uint64_t *region, const uint32_t *off, uint32_t count)
{
    for (uint32_t j = 0; j < count; j++)
        region[off[j] >> 6] |= 1ULL << (off[j] & 63);
}

/* The region read in line order, a word a line, before its bucket's bits
 * are set: a stream of demand loads, which the core's hardware prefetcher
 * runs ahead of at the memory's bandwidth into L2, where the bucket's
 * random sets then find the lines.  Software prefetches of the lines in
 * the same order (for writing, or into L2) left the sets waiting on lines
 * not yet there: 90% of stage_apply's samples fell on its OR into the
 * region, and an insert at 1e8 keys (k = 7) took 35.3 ns against 26.6 with
 * this pass, 37.2 with neither (docs/PERFORMANCE.md, session 27).  The sum
 * goes to an empty asm, so that the loads stay. */
static void region_stream(const uint64_t *region, uint64_t region_words)
{
    uint64_t sum = 0;
    for (uint64_t w = 0; w < region_words; w += 8)
        sum += region[w];
    __asm__ volatile("" : : "r"(sum));
}

/* Set the bits of region r's bucket and pending line, and empty both. */
void stage_apply(uint64_t *words, struct filter_stage *st, uint64_t r)
{
    uint64_t *region = words + r * STAGE_REGION_WORDS;
    const uint32_t used = st->used[r], pending = used % STAGE_LINE;
    const uint64_t words_left = st->words - r * STAGE_REGION_WORDS; /* the last region may be short */
    const uint64_t region_words = words_left < STAGE_REGION_WORDS ? words_left : STAGE_REGION_WORDS;
    region_stream(region, region_words);
    stage_set(region, st->offset + r * STAGE_CAPACITY, used - pending);
    stage_set(region, st->pending + r * STAGE_LINE, pending);
    st->used[r] = 0;
}

void filter_flush(filter *f)
{
    struct filter_stage *st = f->stage;
    if (st == NULL || !st->dirty)
        return;
#ifdef __SSE2__
    _mm_sfence(); /* the streamed lines before they are read back */
#endif
    for (uint64_t r = 0; r < st->regions; r++)
        if (st->used[r] != 0)
            stage_apply(f->words, st, r);
    st->dirty = 0;
}

/* Staging pays by applying a region's bucket while the region streams in
 * (the top comment): a bucket holding fewer offsets than its region has
 * lines streams lines it never sets, after every position was written
 * twice.  A run of inserts with fewer positions than the filter has lines,
 * flushed at its end, fills the average bucket less than that, and the
 * direct loops set it faster (a library user's batch calls, measured at
 * several call sizes: docs/PERFORMANCE.md, 2026-12-05, session 15). */
struct filter_stage *filter_stage_hold(filter *f, uint64_t positions)
{
    struct filter_stage *st = f->stage;
    if (st == NULL || positions >= st->words / 8)
        return NULL;
    filter_flush(f);
    f->stage = NULL;
    return st;
}

void filter_stage_restore(filter *f, struct filter_stage *held)
{
    if (held != NULL)
        f->stage = held;
}

void filter_unstage(filter *f)
{
    filter_flush(f);
    stage_free(f->stage);
    f->stage = NULL;
}
