/* filters.c -- the layouts of filters.h and their stamped batch loops. */
#define _GNU_SOURCE
#include "filters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static const char *const LAYOUT_NAMES[LAYOUT_COUNT] = {
    "standard", "counting", "partitioned", "blocked512", "register64", "splitblock"};

/* Parquet's salts (parquet-format BloomFilter.md). */
static const uint32_t SPLITBLOCK_SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                            0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

const char *layout_name(layout_kind layout) { return LAYOUT_NAMES[layout]; }

int layout_from_name(const char *name, layout_kind *out)
{
    for (int i = 0; i < LAYOUT_COUNT; i++) {
        if (strcmp(name, LAYOUT_NAMES[i]) == 0) {
            *out = (layout_kind)i;
            return 0;
        }
    }
    return -1;
}

unsigned layout_block_bits(layout_kind layout)
{
    switch (layout) {
    case LAYOUT_BLOCKED512:
        return 512;
    case LAYOUT_REGISTER64:
        return 64;
    case LAYOUT_SPLITBLOCK:
        return 256;
    default:
        return 1;
    }
}

uint64_t layout_fit_m(layout_kind layout, uint64_t m)
{
    uint64_t b = layout_block_bits(layout);
    return m == 0 ? b : (m + b - 1) / b * b;
}

static uint64_t word_count_for(layout_kind layout, uint64_t m)
{
    uint64_t bits = layout == LAYOUT_COUNTING ? 4 * m : m;
    return (bits + 511) / 512 * 8; /* whole cache lines */
}

uint64_t layout_bytes(layout_kind layout, uint64_t m) { return 8 * word_count_for(layout, m); }

static int is_power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

int layout_check(layout_kind layout, scheme_kind scheme, uint64_t m, unsigned k, char *err,
                 size_t err_size)
{
    if (layout == LAYOUT_SPLITBLOCK && k != 8) {
        snprintf(err, err_size, "filter splitblock sets one bit in each of its 8 words: k must be 8, not %u", k);
        return -1;
    }
    if (layout == LAYOUT_PARTITIONED && m < k) {
        snprintf(err, err_size, "filter partitioned needs m >= k (m = %llu, k = %u)",
                 (unsigned long long)m, k);
        return -1;
    }
    if (scheme == SCHEME_COURSE && !is_power_of_two(m)) {
        snprintf(err, err_size, "scheme course needs m a power of two, not %llu", (unsigned long long)m);
        return -1;
    }
    if (scheme == SCHEME_COURSE && layout != LAYOUT_STANDARD && layout != LAYOUT_COUNTING) {
        snprintf(err, err_size, "scheme course gives positions in [0, m): it needs filter standard or counting");
        return -1;
    }
    return 0;
}

int filter_init(filter *f, layout_kind layout, uint64_t m, unsigned k)
{
    memset(f, 0, sizeof *f);
    f->layout = layout;
    f->m = m;
    f->k = k;
    f->word_count = word_count_for(layout, m);
    f->blocks = m / layout_block_bits(layout);
    size_t bytes = (size_t)f->word_count * 8;
    void *mem = NULL;
    size_t align = bytes >= (4u << 20) ? (2u << 20) : 64; /* huge pages for big filters */
    if (posix_memalign(&mem, align, bytes) != 0)
        return -1;
    if (align > 64)
        madvise(mem, bytes, MADV_HUGEPAGE);
    f->words = mem;
    for (unsigned i = 0; i <= k && i <= FILTER_K_MAX; i++)
        f->slice_start[i] = (uint64_t)(((pcg_u128)m * i) / k);
    filter_clear(f);
    return 0;
}

void filter_clear(filter *f)
{
    memset(f->words, 0, (size_t)f->word_count * 8);
    f->saturations = 0;
    f->bad_deletes = 0;
}

void filter_free(filter *f)
{
    free(f->words);
    f->words = NULL;
}

uint64_t filter_bits_set(const filter *f)
{
    uint64_t set = 0;
    if (f->layout != LAYOUT_COUNTING) {
        for (uint64_t i = 0; i < f->word_count; i++)
            set += (uint64_t)__builtin_popcountll(f->words[i]);
        return set;
    }
    for (uint64_t i = 0; i < f->word_count; i++) {
        uint64_t w = f->words[i];
        /* one bit per nonzero nibble */
        uint64_t any = (w | (w >> 1) | (w >> 2) | (w >> 3)) & 0x1111111111111111ULL;
        set += (uint64_t)__builtin_popcountll(any);
    }
    return set;
}

static inline uint64_t reduce(uint64_t u, uint64_t range)
{
    return (uint64_t)(((pcg_u128)u * range) >> 64);
}

/* Positions computed (and prefetched) in a batch's first pass; beyond them
 * a key's positions are computed as they are needed. */
#define EARLY_POSITIONS 2

/* One key's walk through its k positions. */
typedef struct {
    probe p;
    uint64_t base;     /* blocked layouts: the block's first bit */
    uint32_t h32;      /* splitblock */
    uint64_t early[EARLY_POSITIONS];
} cursor;

ALWAYS_INLINE uint64_t cursor_position(layout_kind L, scheme_kind S, const filter *f,
                                       const scheme_ctx *ctx, cursor *c, unsigned i)
{
    switch (L) {
    case LAYOUT_PARTITIONED: {
        uint64_t lo = f->slice_start[i];
        return lo + reduce(probe_next(S, ctx, &c->p), f->slice_start[i + 1] - lo);
    }
    case LAYOUT_BLOCKED512:
        return c->base + (probe_next(S, ctx, &c->p) >> 55);
    case LAYOUT_REGISTER64:
        return c->base + (probe_next(S, ctx, &c->p) >> 58);
    case LAYOUT_SPLITBLOCK:
        return c->base + 32u * i + ((c->h32 * SPLITBLOCK_SALT[i]) >> 27);
    default: /* standard, counting */
        return reduce(probe_next(S, ctx, &c->p), f->m);
    }
}

ALWAYS_INLINE void cursor_start(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                                cursor *c, const void *key, size_t len, uint64_t id)
{
    probe_start(S, ctx, &c->p, key, len, id);
    if (L == LAYOUT_SPLITBLOCK) {
        uint64_t h = probe_next(S, ctx, &c->p);
        c->base = (((h >> 32) * f->blocks) >> 32) * 256;
        c->h32 = (uint32_t)h;
    } else if (L == LAYOUT_BLOCKED512 || L == LAYOUT_REGISTER64) {
        c->base = reduce(probe_next(S, ctx, &c->p), f->blocks) * layout_block_bits(L);
    }
    unsigned early = f->k < EARLY_POSITIONS ? f->k : EARLY_POSITIONS;
    for (unsigned i = 0; i < early; i++)
        c->early[i] = cursor_position(L, S, f, ctx, c, i);
}

ALWAYS_INLINE uint64_t cursor_at(layout_kind L, scheme_kind S, const filter *f,
                                 const scheme_ctx *ctx, cursor *c, unsigned i)
{
    return i < EARLY_POSITIONS ? c->early[i] : cursor_position(L, S, f, ctx, c, i);
}

ALWAYS_INLINE void prefetch_position(layout_kind L, const filter *f, uint64_t pos, int write)
{
    uint64_t bit = L == LAYOUT_COUNTING ? 4 * pos : pos;
    if (write)
        __builtin_prefetch(&f->words[bit >> 6], 1, 3);
    else
        __builtin_prefetch(&f->words[bit >> 6], 0, 3);
}

static inline unsigned counter_get(const filter *f, uint64_t i)
{
    return (unsigned)(f->words[i >> 4] >> ((i & 15) * 4)) & 15u;
}

static inline void counter_add(filter *f, uint64_t i, int delta)
{
    f->words[i >> 4] += (uint64_t)(int64_t)delta << ((i & 15) * 4);
}

/* The k-loops below read the bit array through a local pointer and k from
 * a local: stores into the array could alias the filter's fields, and the
 * compiler would reload them after every store. */
ALWAYS_INLINE void key_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx, cursor *c)
{
    uint64_t *words = f->words;
    const unsigned k = f->k;
    for (unsigned i = 0; i < k; i++) {
        uint64_t pos = cursor_at(L, S, f, ctx, c, i);
        if (L == LAYOUT_COUNTING) {
            if (counter_get(f, pos) == COUNTER_MAX)
                f->saturations++;
            else
                counter_add(f, pos, 1);
        } else {
            words[pos >> 6] |= 1ULL << (pos & 63);
        }
    }
}

ALWAYS_INLINE int key_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx, cursor *c)
{
    const uint64_t *words = f->words;
    const unsigned k = f->k;
    for (unsigned i = 0; i < k; i++) {
        uint64_t pos = cursor_at(L, S, f, ctx, c, i);
        int set = L == LAYOUT_COUNTING ? counter_get(f, pos) != 0 : (int)((words[pos >> 6] >> (pos & 63)) & 1u);
        if (!set)
            return 0;
    }
    return 1;
}

ALWAYS_INLINE void key_remove(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx, cursor *c)
{
    const unsigned k = f->k;
    for (unsigned i = 0; i < k; i++) {
        uint64_t pos = cursor_at(L, S, f, ctx, c, i);
        if (L != LAYOUT_COUNTING) {
            f->words[pos >> 6] &= ~(1ULL << (pos & 63));
            continue;
        }
        unsigned v = counter_get(f, pos);
        if (v == 0)
            f->bad_deletes++;
        else if (v != COUNTER_MAX)
            counter_add(f, pos, -1);
    }
}

/* The first pass of a batch: hash every key, prefetch its first line. */
ALWAYS_INLINE void batch_start(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                               const key_batch *keys, cursor *c, int write)
{
    int one_line = layout_block_bits(L) > 1; /* a blocked key touches one line */
    unsigned early = f->k < EARLY_POSITIONS ? f->k : EARLY_POSITIONS;
    for (size_t j = 0; j < keys->count; j++) {
        cursor_start(L, S, f, ctx, &c[j], keys->ptr[j], keys->len[j], keys->id[j]);
        for (unsigned i = 0; i < (one_line ? 1u : early < 2 ? early : 2u); i++)
            prefetch_position(L, f, c[j].early[i], write);
    }
}

#define STAMP(L, S, tag)                                                                          \
    static void insert_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys)             \
    {                                                                                             \
        cursor c[KEY_BATCH];                                                                      \
        batch_start(L, S, f, ctx, keys, c, 1);                                                    \
        for (size_t j = 0; j < keys->count; j++)                                                  \
            key_insert(L, S, f, ctx, &c[j]);                                                      \
    }                                                                                             \
    static size_t query_##tag(const filter *f, const scheme_ctx *ctx, const key_batch *keys,      \
                              unsigned char *answer)                                              \
    {                                                                                             \
        cursor c[KEY_BATCH];                                                                      \
        size_t yes = 0;                                                                           \
        batch_start(L, S, f, ctx, keys, c, 0);                                                    \
        for (size_t j = 0; j < keys->count; j++) {                                                \
            int a = key_query(L, S, f, ctx, &c[j]);                                               \
            yes += (size_t)a;                                                                     \
            if (answer != NULL)                                                                   \
                answer[j] = (unsigned char)a;                                                     \
        }                                                                                         \
        return yes;                                                                               \
    }                                                                                             \
    static void remove_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys)             \
    {                                                                                             \
        cursor c[KEY_BATCH];                                                                      \
        batch_start(L, S, f, ctx, keys, c, 1);                                                    \
        for (size_t j = 0; j < keys->count; j++)                                                  \
            key_remove(L, S, f, ctx, &c[j]);                                                      \
    }                                                                                             \
    static void insert1_##tag(filter *f, const scheme_ctx *ctx, const void *key, size_t len,      \
                              uint64_t id)                                                        \
    {                                                                                             \
        cursor c;                                                                                 \
        cursor_start(L, S, f, ctx, &c, key, len, id);                                             \
        key_insert(L, S, f, ctx, &c);                                                             \
    }                                                                                             \
    static int query1_##tag(const filter *f, const scheme_ctx *ctx, const void *key, size_t len,  \
                            uint64_t id)                                                          \
    {                                                                                             \
        cursor c;                                                                                 \
        cursor_start(L, S, f, ctx, &c, key, len, id);                                             \
        return key_query(L, S, f, ctx, &c);                                                       \
    }

#define STAMP_LAYOUT(L, l)                                                                        \
    STAMP(L, SCHEME_INDEPENDENT, l##_independent)                                                 \
    STAMP(L, SCHEME_DOUBLE, l##_double)                                                           \
    STAMP(L, SCHEME_ENHANCED, l##_enhanced)                                                       \
    STAMP(L, SCHEME_COURSE, l##_course)                                                           \
    STAMP(L, SCHEME_IDEAL, l##_ideal)

STAMP_LAYOUT(LAYOUT_STANDARD, standard)
STAMP_LAYOUT(LAYOUT_COUNTING, counting)
STAMP_LAYOUT(LAYOUT_PARTITIONED, partitioned)
STAMP_LAYOUT(LAYOUT_BLOCKED512, blocked512)
STAMP_LAYOUT(LAYOUT_REGISTER64, register64)
STAMP_LAYOUT(LAYOUT_SPLITBLOCK, splitblock)

#define OPS(tag) {insert_##tag, query_##tag, remove_##tag}
#define OPS_LAYOUT(l) {OPS(l##_independent), OPS(l##_double), OPS(l##_enhanced), OPS(l##_course), OPS(l##_ideal)}

static const filter_ops OPS_TABLE[LAYOUT_COUNT][SCHEME_COUNT] = {
    OPS_LAYOUT(standard),   OPS_LAYOUT(counting),   OPS_LAYOUT(partitioned),
    OPS_LAYOUT(blocked512), OPS_LAYOUT(register64), OPS_LAYOUT(splitblock)};

filter_ops filter_ops_for(layout_kind layout, scheme_kind scheme) { return OPS_TABLE[layout][scheme]; }

typedef struct {
    void (*insert)(filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id);
    int (*query)(const filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id);
} scalar_ops;

#define SCALAR(tag) {insert1_##tag, query1_##tag}
#define SCALAR_LAYOUT(l)                                                                          \
    {SCALAR(l##_independent), SCALAR(l##_double), SCALAR(l##_enhanced), SCALAR(l##_course),       \
     SCALAR(l##_ideal)}

static const scalar_ops SCALAR_TABLE[LAYOUT_COUNT][SCHEME_COUNT] = {
    SCALAR_LAYOUT(standard),   SCALAR_LAYOUT(counting),   SCALAR_LAYOUT(partitioned),
    SCALAR_LAYOUT(blocked512), SCALAR_LAYOUT(register64), SCALAR_LAYOUT(splitblock)};


void filter_insert_one(filter *f, scheme_kind scheme, const scheme_ctx *ctx, const void *key,
                       size_t len, uint64_t id)
{
    SCALAR_TABLE[f->layout][scheme].insert(f, ctx, key, len, id);
}

int filter_query_one(const filter *f, scheme_kind scheme, const scheme_ctx *ctx, const void *key,
                     size_t len, uint64_t id)
{
    return SCALAR_TABLE[f->layout][scheme].query(f, ctx, key, len, id);
}
