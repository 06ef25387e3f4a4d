/* filter.c -- a filter's life (init, clear, free), its bits set, its rate
 * read from its bits, and the one-key reference's entry points. */
#define _GNU_SOURCE
#include "filter/filters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/cache.h"
#include "base/cpu.h"
#include "filter/fetch_tune.h"
#include "filter/layout.h"
#include "filter/stage.h"

int filter_init(filter *f, layout_kind layout, uint64_t m, unsigned k)
{
    memset(f, 0, sizeof *f);
    f->layout = layout;
    f->m = m;
    f->k = k;
    f->word_count = layout_bytes(layout, m) / 8;
    f->blocks = m / layout_block_bits(layout);
    size_t bytes = (size_t)f->word_count * 8;
    void *mem = NULL;
    size_t align = bytes >= (4u << 20) ? (2u << 20) : 64; /* huge pages for big filters */
    if (posix_memalign(&mem, align, bytes) != 0)
        return -1;
    if (align > 64)
        madvise(mem, bytes, MADV_HUGEPAGE);
    f->words = mem;
    f->stage = filter_stages(layout, m, bytes) ? stage_new(m) : NULL; /* none: inserts go straight */
    /* the layouts whose loops time their fetching (fetch_tune.c); the others fetch by the plan */
    f->tune = layout == LAYOUT_SPLITBLOCK || layout == LAYOUT_STANDARD ? fetch_tune_new() : NULL;
    for (unsigned i = 0; i <= k && i <= FILTER_K_MAX; i++)
        f->slice_start[i] = (uint64_t)(((pcg_u128)m * i) / k);
    filter_clear(f);
    return 0;
}

void filter_clear(filter *f)
{
    memset(f->words, 0, (size_t)f->word_count * 8);
    if (f->stage != NULL) {
        memset(f->stage->used, 0, f->stage->regions * sizeof *f->stage->used);
        f->stage->dirty = 0;
    }
    f->saturations = 0;
    f->bad_deletes = 0;
}

void filter_free(filter *f)
{
    free(f->words);
    f->words = NULL;
    stage_free(f->stage);
    f->stage = NULL;
    fetch_tune_free(f->tune);
    f->tune = NULL;
}

uint64_t filter_bits_set(const filter *f)
{
    require_flushed(f);
    uint64_t set = 0;
    if (layout_cell_bits(f->layout) == 1) {
        for (uint64_t i = 0; i < f->word_count; i++)
            set += (uint64_t)__builtin_popcountll(f->words[i]);
        return set;
    }
    for (uint64_t i = 0; i < f->word_count; i++) {
        uint64_t w = f->words[i];
        /* 4-bit counters: one bit per nonzero nibble */
        uint64_t any = (w | (w >> 1) | (w >> 2) | (w >> 3)) & 0x1111111111111111ULL;
        set += (uint64_t)__builtin_popcountll(any);
    }
    return set;
}


/* Bits set in [first, end) of a bit array. */
static uint64_t bits_set_between(const uint64_t *words, uint64_t first, uint64_t end)
{
    uint64_t set = 0;
    for (uint64_t pos = first; pos < end;) {
        uint64_t word = words[pos >> 6] >> (pos & 63);
        uint64_t take = 64 - (pos & 63) < end - pos ? 64 - (pos & 63) : end - pos;
        if (take < 64)
            word &= (1ULL << take) - 1;
        set += (uint64_t)__builtin_popcountll(word);
        pos += take;
    }
    return set;
}

/* Mean over blocks of prod over the block's parts of (bits set / part
 * bits): part_bits = 512 or 64 with one part raised to the k-th power
 * (blocked), or 32 with eight parts (split block). */
static double block_mean_rate(const filter *f, unsigned block_bits, unsigned part_bits)
{
    long double power[513]; /* (c / part_bits)^k, or c / part_bits */
    unsigned exponent = block_bits == part_bits ? f->k : 1;
    for (unsigned c = 0; c <= part_bits; c++)
        power[c] = powl((long double)c / part_bits, exponent);
    long double sum = 0;
    for (uint64_t b = 0; b < f->blocks; b++) {
        long double rate = 1;
        for (uint64_t part = b * block_bits; part < (b + 1) * block_bits; part += part_bits)
            rate *= power[bits_set_between(f->words, part, part + part_bits)];
        sum += rate;
    }
    return (double)(sum / (long double)f->blocks);
}

/* The rates of filter_fpr_conditional, one a kind of layout (the table
 * names each layout's). */
double filter_fpr_partitioned(const filter *f)
{
    long double log_rate = 0;
    for (unsigned i = 0; i < f->k; i++) {
        uint64_t first = f->slice_start[i], end = f->slice_start[i + 1];
        uint64_t set = bits_set_between(f->words, first, end);
        if (set == 0)
            return 0;
        log_rate += logl((long double)set / (long double)(end - first));
    }
    return (double)expl(log_rate);
}

double filter_fpr_blocked(const filter *f)
{
    return block_mean_rate(f, layout_block_bits(f->layout), layout_block_bits(f->layout));
}

double filter_fpr_splitblock(const filter *f) { return block_mean_rate(f, 256, 32); }

double filter_fpr_unblocked(const filter *f)
{
    return (double)powl((long double)filter_bits_set(f) / (long double)f->m, f->k);
}

double filter_fpr_conditional(const filter *f)
{
    require_flushed(f);
    return LAYOUT_TABLE[f->layout].fpr_conditional(f);
}

/* ---- one key at a time: the reference (batch.c stamps its loops) --------- */

void filter_insert_one(filter *f, scheme_kind scheme, const scheme_ctx *ctx, const void *key,
                       size_t len, uint64_t id)
{
    LAYOUT_TABLE[f->layout].one[scheme]->insert(f, ctx, key, len, id);
}

int filter_query_one(const filter *f, scheme_kind scheme, const scheme_ctx *ctx, const void *key,
                     size_t len, uint64_t id)
{
    return LAYOUT_TABLE[f->layout].one[scheme]->query(f, ctx, key, len, id);
}

int filter_beyond_l2(const filter *f) { return f->word_count * 8 > cache_l2_bytes(); }
int filter_beyond_llc(const filter *f) { return f->word_count * 8 > filter_stage_min_bytes(); }

fetch_shape filter_fetch_shape(const filter *f, fetch_plan plan)
{
    if (filter_beyond_llc(f))
        return plan == FETCH_AHEAD ? SHAPE_FAR_TWO_STEPS : SHAPE_FAR_ONE_STEP;
    if (!filter_beyond_l2(f))
        return SHAPE_NONE;
    return plan == FETCH_AHEAD ? SHAPE_AT_HASH : SHAPE_FROM_RING;
}

int filter_standard_one_pass(const filter *f, fetch_plan plan)
{
    return !filter_beyond_l2(f) || (plan == FETCH_WINDOW && 2 * f->word_count * 8 < filter_stage_min_bytes());
}

static fetch_plan forced_plan = FETCH_PLAN_CPU;
/* The plan of the call this thread runs, where its filter's tuning gave
 * one (filter_call_plan_set). */
static _Thread_local fetch_plan call_plan = FETCH_PLAN_CPU;

fetch_plan filter_call_plan_set(fetch_plan plan)
{
    const fetch_plan was = call_plan;
    call_plan = plan;
    return was;
}

fetch_plan filter_fetch_plan(void)
{
    if (forced_plan != FETCH_PLAN_CPU)
        return forced_plan;
    if (call_plan != FETCH_PLAN_CPU)
        return call_plan;
    /* Racing threads store the same value: cpuid has no side effects. */
    static volatile int core_plan = FETCH_PLAN_CPU;
    if (core_plan == FETCH_PLAN_CPU)
        core_plan = cpu_x86_vendor() == CPU_VENDOR_AMD && cpu_x86_family() >= 26 ? FETCH_WINDOW : FETCH_AHEAD;
    return (fetch_plan)core_plan;
}

void filter_fetch_plan_set(fetch_plan plan) { forced_plan = plan; }
int filter_fetch_plan_forced(void) { return forced_plan != FETCH_PLAN_CPU; }

const char *fetch_plan_name(fetch_plan plan)
{
    return plan == FETCH_AHEAD ? "ahead" : plan == FETCH_WINDOW ? "window" : "the core's";
}
