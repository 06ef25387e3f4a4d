/* filters.c -- the layouts of filters.h and their stamped batch loops.
 *
 * Speed.  Every (layout, scheme) pair gets its own loops (STAMP below), so
 * neither choice is a branch inside them.  A batch is worked in passes:
 *
 *   hash     one indirect call hashes the whole batch (batch_hasher_for):
 *            xxh3_64 and xxh3_128 are compiled in here with XXH_INLINE_ALL,
 *            so XXH3 inlines into that loop; any other hash goes through its
 *            function pointer, once per key.
 *   insert   all k positions of every key are computed and their lines
 *            prefetched for writing, then the bits are set: up to 32 k
 *            misses in flight (bulk insert); beyond the cache a standard or
 *            partitioned filter stages them instead (staged inserts below).
 *   query    every key's first position is computed and its line
 *            prefetched (a blocked key's only line).  A blocked key then
 *            tests its k bits without branches; other layouts go in phases
 *            of 1, 2, 4 ... positions over the keys still alive (early exit
 *            without a mispredicted branch per key; flight_step), several
 *            batches in flight at once in query_many.
 *
 * On AVX-512 CPUs filter_ops_for swaps in avx512.c's loops for every
 * layout's double-hashing pair, on AVX2 ones avx2.c's (the end of this
 * file; cpu_isa() decides, once per call).  The answers and the bits
 * are those of filter_insert_one/filter_query_one, the one-key reference,
 * bit for bit (tests/test_batch.c).
 */
#define _GNU_SOURCE
#include "filters.h"

#include "avx2.h"
#include "avx512.h"
#include "cache.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* XXH3 compiled into this file: private copies, so the hot loops inline them. */
#define XXH_INLINE_ALL
#include <xxhash.h>

#define ALWAYS_INLINE static inline __attribute__((always_inline))

static const char *const LAYOUT_NAMES[LAYOUT_COUNT] = {
    "standard", "counting", "partitioned", "blocked512", "register64", "splitblock"};

/* Parquet's salts (parquet-format BloomFilter.md). */
const uint32_t SPLITBLOCK_SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
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

/* One line each for `bloomlab list`; filters.h explains them in full. */
static const char *const LAYOUT_ABOUT[LAYOUT_COUNT] = {
    "one array of m bits, k positions anywhere",
    "m 4-bit counters at the standard positions: deletes (4x the memory)",
    "k slices of m/k bits, position i in slice i",
    "512-bit blocks (a cache line): one block a key, k bits inside it",
    "64-bit blocks (one word): one word a key, k bits inside it",
    "Parquet's split block: 256-bit blocks of eight 32-bit words, one bit each (k = 8)",
};

const char *layout_about(layout_kind layout) { return LAYOUT_ABOUT[layout]; }

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

scheme_kind layout_default_scheme(layout_kind layout)
{
    return layout == LAYOUT_BLOCKED512 || layout == LAYOUT_REGISTER64 ? SCHEME_MULTIPLY : SCHEME_DOUBLE;
}

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
    if (scheme == SCHEME_PARQUET && layout != LAYOUT_SPLITBLOCK) {
        snprintf(err, err_size, "scheme parquet is the Parquet format's split-block hash: it needs filter splitblock, not %s",
                 layout_name(layout));
        return -1;
    }
    if (scheme == SCHEME_MULTIPLY && layout != LAYOUT_BLOCKED512 && layout != LAYOUT_REGISTER64) {
        snprintf(err, err_size, "scheme multiply gives the bits inside a block: it needs filter blocked512 or register64, not %s",
                 layout_name(layout));
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

/* ---- staged inserts ------------------------------------------------------ */

/* Beyond the last-level cache every position an insert sets is a trip to
 * DRAM: the line read, and later written back.  At k = 7 and ~8 ns a line
 * of random-access throughput that is ~60 ns a key, and no order of one
 * key's work beats it.  Many keys' work does, by making the accesses
 * sequential:
 *
 *   sort     each position goes into the bucket of its region of the
 *            filter (2^21 bits = 256 KiB, a quarter of L2), as a 32-bit
 *            offset.  A bucket is written a cache line at a time: offsets
 *            gather in the region's `pending` line (a few hundred lines, in
 *            L1) and a full line goes out with non-temporal stores, which
 *            write it without first reading it from DRAM (software
 *            write-combining, as in radix partitioning);
 *   apply    when a bucket holds STAGE_PER_LINE offsets per line of its
 *            region, the region is prefetched in line order -- a stream the
 *            memory system runs at its bandwidth -- and the bucket's bits
 *            are set while the region sits in L2.
 *
 * Each region line then crosses the memory bus twice per STAGE_PER_LINE
 * positions instead of twice per position, and each position costs 8
 * bytes of sequential bucket traffic.  Measured at n = 1e8, 10 bits a key,
 * k = 7 (then bench --anchors; now bench --peers 1e8): 60 ns a key
 * inserted directly, 27 ns staged; 4 and 16 per line, and 128 or 512 KiB
 * regions, were slower.
 * The buckets take 4 bytes a position: STAGE_PER_LINE / 16 of the filter,
 * which is why a filter stages only while filter and buckets fit in half
 * of the machine's memory.
 *
 * OR is commutative, so the bits are those of any other order; what
 * changes is when: a staged position is set when its bucket fills or at
 * filter_flush().  Only the plain one-bit layouts stage: standard and
 * partitioned (counting is not a fast path, and a blocked key's bits share
 * one line already). */
#define STAGE_MIN_BYTES (32u << 20) /* beyond the last-level cache (about 32 MiB here) */
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

static uint64_t stage_regions(uint64_t m) { return (m >> STAGE_REGION_LOG2_BITS) + 1; }

static uint64_t stage_bytes(uint64_t m)
{
    return stage_regions(m) * (STAGE_CAPACITY + STAGE_LINE + 1) * sizeof(uint32_t);
}

/* The plain one-bit layouts, whose filters may stage inserts. */
static int layout_may_stage(layout_kind L) { return L == LAYOUT_STANDARD || L == LAYOUT_PARTITIONED; }

/* Whether a new filter stages: beyond the cache, and room for the buckets. */
static int layout_stages(layout_kind layout, uint64_t m, uint64_t bytes)
{
    if (!layout_may_stage(layout) || bytes <= STAGE_MIN_BYTES)
        return 0;
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    return (double)(bytes + stage_bytes(m)) <= 0.5 * ram;
}

static void stage_free(struct filter_stage *st);

static struct filter_stage *stage_new(uint64_t m)
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

static void stage_free(struct filter_stage *st)
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

/* Set the bits of region r's bucket and pending line, and empty both. */
static void stage_apply(uint64_t *words, struct filter_stage *st, uint64_t r)
{
    uint64_t *region = words + r * STAGE_REGION_WORDS;
    const uint32_t used = st->used[r], pending = used % STAGE_LINE;
    const uint64_t words_left = st->words - r * STAGE_REGION_WORDS; /* the last region may be short */
    const uint64_t region_words = words_left < STAGE_REGION_WORDS ? words_left : STAGE_REGION_WORDS;
    for (uint64_t w = 0; w < region_words; w += 8) /* the region in line order first */
        __builtin_prefetch(&region[w], 1, 3);
    stage_set(region, st->offset + r * STAGE_CAPACITY, used - pending);
    stage_set(region, st->pending + r * STAGE_LINE, pending);
    st->used[r] = 0;
}

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

void filter_unstage(filter *f)
{
    filter_flush(f);
    stage_free(f->stage);
    f->stage = NULL;
}

/* Queries must see every insert: staged ones are a caller's bug. */
static void require_flushed(const filter *f)
{
    if (f->stage != NULL && f->stage->dirty) {
        fprintf(stderr, "bloomlab: internal error: a filter with staged inserts was read before filter_flush\n");
        abort();
    }
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
    f->stage = layout_stages(layout, m, bytes) ? stage_new(m) : NULL; /* none: inserts go straight */
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
}

uint64_t filter_bits_set(const filter *f)
{
    require_flushed(f);
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

double filter_fpr_conditional(const filter *f)
{
    require_flushed(f);
    switch (f->layout) {
    case LAYOUT_PARTITIONED: {
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
    case LAYOUT_BLOCKED512:
    case LAYOUT_REGISTER64:
        return block_mean_rate(f, layout_block_bits(f->layout), layout_block_bits(f->layout));
    case LAYOUT_SPLITBLOCK:
        return block_mean_rate(f, 256, 32);
    default: /* standard, counting */
        return (double)powl((long double)filter_bits_set(f) / (long double)f->m, f->k);
    }
}

/* ---- hashing a batch ------------------------------------------------------ */

/* out[j] = the key's (h1, h2) of schemes.h (hash_split) when split, else
 * its raw hash value (the course scheme wants that). */
typedef void (*batch_hash_fn)(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split);

static void batch_hash_generic(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split)
{
    const unsigned bits = h->bits;
    for (size_t j = 0; j < keys->count; j++) {
        out[j] = hasher_hash(h, keys->ptr[j], keys->len[j], seed);
        if (split)
            hash_split(out[j], bits, &out[j].lo, &out[j].hi);
    }
}

/* The same values as the registry's libxxhash calls: XXH3's output is fixed
 * by its specification since 0.8.0 (tests/test_batch.c compares them).  An
 * 8-byte key takes XXH3_len_4to8_64b written out for len = 8: its two
 * 32-bit halves swapped, xored with the seeded constant, then rrmxmx; the
 * constant (xxh3_8_bitflip) is computed once a batch, not once a key
 * (the compiler did not hoist it out of the library's routine: 27
 * instructions a key in the hash alone, callgrind, before; 13 after). */
static inline uint64_t xxh3_8_bitflip(uint64_t seed)
{
    seed ^= (uint64_t)XXH_swap32((uint32_t)seed) << 32;
    return (XXH_readLE64(XXH3_kSecret + 8) ^ XXH_readLE64(XXH3_kSecret + 16)) - seed;
}

ALWAYS_INLINE uint64_t xxh3_64_key(const unsigned char *p, size_t len, uint64_t seed, uint64_t bitflip)
{
    if (len == 8) {
        const uint64_t x = XXH_readLE64(p);
        return XXH3_rrmxmx(((x << 32) | (x >> 32)) ^ bitflip, 8);
    }
    return XXH3_64bits_withSeed(p, len, seed);
}

/* 1 when every key of the batch is 8 bytes long: then the loops below run
 * without a call in them, their constants kept in registers. */
static int batch_all_8_bytes(const key_batch *keys)
{
    uint32_t other = 0;
    for (size_t j = 0; j < keys->count; j++)
        other |= keys->len[j] ^ 8u;
    return other == 0;
}

ALWAYS_INLINE uint64_t xxh3_8(const unsigned char *p, uint64_t bitflip)
{
    const uint64_t x = XXH_readLE64(p);
    return XXH3_rrmxmx(((x << 32) | (x >> 32)) ^ bitflip, 8);
}

static void batch_hash_xxh3_64(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split)
{
    (void)h;
    const size_t count = keys->count;
    const uint64_t bitflip = xxh3_8_bitflip(seed);
    if (batch_all_8_bytes(keys)) {
        for (size_t j = 0; j < count; j++) {
            const uint64_t v = xxh3_8(keys->ptr[j], bitflip);
            out[j] = (hash128_t){v, split ? mix64(v) : 0};
        }
        return;
    }
    if (split) {
        for (size_t j = 0; j < count; j++) {
            out[j] = (hash128_t){xxh3_64_key(keys->ptr[j], keys->len[j], seed, bitflip), 0};
            hash_split(out[j], 64, &out[j].lo, &out[j].hi);
        }
    } else {
        for (size_t j = 0; j < count; j++)
            out[j] = (hash128_t){xxh3_64_key(keys->ptr[j], keys->len[j], seed, bitflip), 0};
    }
}

static void batch_hash_xxh3_128(const hasher *h, uint64_t seed, const key_batch *keys, hash128_t *out, int split)
{
    (void)h;
    (void)split; /* a 128-bit hash splits into its own halves */
    for (size_t j = 0; j < keys->count; j++) {
        XXH128_hash_t r = keys->len[j] == 8 ? XXH3_len_4to8_128b(keys->ptr[j], 8, XXH3_kSecret, seed)
                                            : XXH3_128bits_withSeed(keys->ptr[j], keys->len[j], seed);
        out[j] = (hash128_t){r.low64, r.high64};
    }
}

/* A registry hash known here by its name (a plugin's name starts "plugin:"). */
static batch_hash_fn batch_hasher_for(const hasher *h)
{
    if (h->user == NULL && h->bits == 64 && memcmp(h->name, "xxh3_64", 8) == 0)
        return batch_hash_xxh3_64;
    if (h->user == NULL && h->bits == 128 && memcmp(h->name, "xxh3_128", 9) == 0)
        return batch_hash_xxh3_128;
    return batch_hash_generic;
}

/* ---- one key's positions -------------------------------------------------- */

/* What stays fixed for a batch, copied out of the filter and the context so
 * that stores into the bit array cannot make the compiler reload it. */
typedef struct {
    uint64_t m;
    uint64_t blocks;
    unsigned k;
    unsigned hash_bits;
    uint64_t seed_mix;      /* ideal: mix64(trial seed) */
    const uint64_t *slice;  /* partitioned: slice_start */
    scheme_ctx ctx;
} batch_env;

ALWAYS_INLINE void env_init(batch_env *e, scheme_kind S, const filter *f, const scheme_ctx *ctx)
{
    e->m = f->m;
    e->blocks = f->blocks;
    e->k = f->k;
    e->slice = f->slice_start;
    e->ctx = *ctx;
    e->hash_bits = S == SCHEME_IDEAL || S == SCHEME_PARQUET ? 64 : ctx->hash->bits;
    e->seed_mix = S == SCHEME_IDEAL ? mix64(ctx->seed) : 0;
}

static int scheme_is_hashed(scheme_kind S)
{
    return S == SCHEME_DOUBLE || S == SCHEME_ENHANCED || S == SCHEME_COURSE || S == SCHEME_MULTIPLY;
}

/* One key's walk through its k positions. */
typedef struct {
    probe p;
    uint64_t base;  /* blocked layouts: the block's first bit */
    uint32_t h32;   /* splitblock: uint32(u_0); multiply: g_i */
} cursor;

/* A bit inside a block of 2^log2_bits: the top bits of the next value. */
ALWAYS_INLINE uint64_t block_offset(scheme_kind S, batch_env *e, cursor *c, unsigned log2_bits)
{
    if (S == SCHEME_IDEAL)
        return pcg32_next(&c->p.rng) >> (32 - log2_bits);
    if (S == SCHEME_MULTIPLY) {
        const uint32_t g = c->h32;
        c->h32 = g * MULTIPLY_STEP;
        return g >> (32 - log2_bits);
    }
    /* Not the top bits of u itself: with double hashing the top bits of h1
     * chose the block, so every key of a block would start at the same
     * offset.  The bits just below the block choice are independent of it. */
    return (probe_next(S, &e->ctx, &c->p) * e->blocks) >> (64 - log2_bits);
}

/* Position i of the key (positions come in order 0, 1, ..., k-1). */
ALWAYS_INLINE uint64_t cursor_position(layout_kind L, scheme_kind S, batch_env *e, cursor *c, unsigned i)
{
    switch (L) {
    case LAYOUT_PARTITIONED: {
        uint64_t lo = e->slice[i], range = e->slice[i + 1] - lo;
        return lo + probe_position(S, &e->ctx, &c->p, range);
    }
    case LAYOUT_BLOCKED512:
        return c->base + block_offset(S, e, c, 9);
    case LAYOUT_REGISTER64:
        return c->base + block_offset(S, e, c, 6);
    case LAYOUT_SPLITBLOCK:
        return c->base + 32u * i + ((c->h32 * SPLITBLOCK_SALT[i]) >> 27);
    default: /* standard, counting */
        return probe_position(S, &e->ctx, &c->p, e->m);
    }
}

/* Begin a key: its stream (from its hash h for the hashed schemes) and, for
 * the blocked layouts, its block. */
ALWAYS_INLINE void cursor_start(layout_kind L, scheme_kind S, batch_env *e, cursor *c, const void *key,
                                size_t len, uint64_t id, hash128_t h)
{
    if (S == SCHEME_IDEAL) {
        ideal_seed_mixed(&c->p.rng, e->ctx.seed, e->seed_mix, id);
    } else if (S == SCHEME_COURSE) {
        probe_start_hashed(S, &c->p, h, e->hash_bits);
    } else if (scheme_is_hashed(S)) { /* h is (h1, h2) already: batch_hash split it */
        c->p.x = h.lo;
        c->p.y = h.hi;
        c->p.step = 0;
    } else
        probe_start(S, &e->ctx, &c->p, key, len, id);
    if (L == LAYOUT_SPLITBLOCK) {
        uint64_t u = probe_next(S, &e->ctx, &c->p);
        c->base = (((u >> 32) * e->blocks) >> 32) * 256;
        c->h32 = (uint32_t)u;
    } else if (L == LAYOUT_BLOCKED512 || L == LAYOUT_REGISTER64) {
        uint64_t block = S == SCHEME_IDEAL ? ideal_draw(&c->p.rng, e->blocks)
                                           : reduce_range(probe_next(S, &e->ctx, &c->p), e->blocks);
        c->base = block * layout_block_bits(L);
        if (S == SCHEME_MULTIPLY)
            c->h32 = multiply_start(h.hi);
    }
}

static int layout_is_blocked(layout_kind L) { return layout_block_bits(L) > 1; }

/* The word holding position pos (a bit, or a 4-bit counter). */
ALWAYS_INLINE uint64_t word_of(layout_kind L, uint64_t pos) { return L == LAYOUT_COUNTING ? pos >> 4 : pos >> 6; }

static inline unsigned counter_get(const uint64_t *words, uint64_t i)
{
    return (unsigned)(words[i >> 4] >> ((i & 15) * 4)) & 15u;
}

static inline void counter_add(uint64_t *words, uint64_t i, int delta)
{
    words[i >> 4] += (uint64_t)(int64_t)delta << ((i & 15) * 4);
}

ALWAYS_INLINE int position_set(layout_kind L, const uint64_t *words, uint64_t pos)
{
    if (L == LAYOUT_COUNTING)
        return counter_get(words, pos) != 0;
    return (int)((words[pos >> 6] >> (pos & 63)) & 1u);
}

/* Set (or count) one position; returns 1 when a counter was saturated. */
ALWAYS_INLINE unsigned position_add(layout_kind L, uint64_t *words, uint64_t pos)
{
    if (L != LAYOUT_COUNTING) {
        words[pos >> 6] |= 1ULL << (pos & 63);
        return 0;
    }
    if (counter_get(words, pos) == COUNTER_MAX)
        return 1;
    counter_add(words, pos, 1);
    return 0;
}

/* Hash the batch (hashed schemes only). */
ALWAYS_INLINE void batch_hash(scheme_kind S, const scheme_ctx *ctx, const key_batch *keys, hash128_t *hv)
{
    if (scheme_is_hashed(S))
        batch_hasher_for(ctx->hash)(ctx->hash, ctx->seed, keys, hv, S != SCHEME_COURSE);
}

/* ---- split block with double hashing: its own portable loops -------------- */

/* A split block key's eight bits come from u_0 = h1 alone (cursor_start):
 * the block ((h1 >> 32) blocks) >> 32, and 32-bit word i of it gets bit
 * (uint32(h1) SALT[i]) >> 27, so 64-bit word t gets words 2t and 2t + 1's
 * bits, a mask of two.  The stamped loops above walk those eight
 * positions through the generic cursor (132 instructions a query, 164 an
 * insert, callgrind, n = 1e6); these build the four masks without a
 * branch, set them with four ORs or test them with four ANDs, and
 * prefetch a batch's blocks before the previous batch is worked.
 * batch_insert and its kin below take them for (splitblock, double). */
typedef struct {
    size_t count;
    uint64_t word[KEY_BATCH]; /* the block's first 64-bit word */
    uint32_t h32[KEY_BATCH];
} split_pass;

ALWAYS_INLINE uint64_t split_mask(uint32_t h32, unsigned t)
{
    return (1ULL << ((h32 * SPLITBLOCK_SALT[2 * t]) >> 27)) |
           (1ULL << (32 + ((h32 * SPLITBLOCK_SALT[2 * t + 1]) >> 27)));
}

/* Hash the batch, place every key's block and prefetch it. */
ALWAYS_INLINE void split_start(const filter *f, const scheme_ctx *ctx, const key_batch *keys, split_pass *ps, int rw)
{
    hash128_t hv[KEY_BATCH];
    batch_hasher_for(ctx->hash)(ctx->hash, ctx->seed, keys, hv, 0);
    const unsigned bits = ctx->hash->bits;
    const uint64_t blocks = f->blocks;
    ps->count = keys->count;
    for (size_t j = 0; j < keys->count; j++) {
        const uint64_t h1 = hash_widen(hv[j], bits); /* hash_split's h1 */
        ps->word[j] = (((h1 >> 32) * blocks) >> 32) * 4;
        ps->h32[j] = (uint32_t)h1;
        if (rw)
            __builtin_prefetch(&f->words[ps->word[j]], 1, 3);
        else
            __builtin_prefetch(&f->words[ps->word[j]], 0, 3);
    }
}

ALWAYS_INLINE void split_finish_insert(uint64_t *words, const split_pass *ps)
{
    for (size_t j = 0; j < ps->count; j++) {
        uint64_t *w = &words[ps->word[j]];
        for (unsigned t = 0; t < 4; t++)
            w[t] |= split_mask(ps->h32[j], t);
    }
}

ALWAYS_INLINE size_t split_finish_query(const uint64_t *words, const split_pass *ps, unsigned char *answer)
{
    size_t yes = 0;
    for (size_t j = 0; j < ps->count; j++) {
        const uint64_t *w = &words[ps->word[j]];
        uint64_t missing = 0;
        for (unsigned t = 0; t < 4; t++) {
            const uint64_t m = split_mask(ps->h32[j], t);
            missing |= m & ~w[t];
        }
        const int all = missing == 0;
        yes += (size_t)all;
        if (answer != NULL)
            answer[j] = (unsigned char)all;
    }
    return yes;
}

ALWAYS_INLINE void split_insert(filter *f, const scheme_ctx *ctx, const key_batch *keys)
{
    split_pass ps;
    split_start(f, ctx, keys, &ps, 1);
    split_finish_insert(f->words, &ps);
}

ALWAYS_INLINE size_t split_query(const filter *f, const scheme_ctx *ctx, const key_batch *keys, unsigned char *answer)
{
    split_pass ps;
    split_start(f, ctx, keys, &ps, 0);
    return split_finish_query(f->words, &ps, answer);
}

/* Batch b + 1 hashed and prefetched before batch b is worked. */
ALWAYS_INLINE void split_insert_many(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count)
{
    split_pass ps[2];
    if (count == 0)
        return;
    split_start(f, ctx, &batches[0], &ps[0], 1);
    for (size_t b = 0; b < count; b++) {
        if (b + 1 < count)
            split_start(f, ctx, &batches[b + 1], &ps[(b + 1) & 1], 1);
        split_finish_insert(f->words, &ps[b & 1]);
    }
}

ALWAYS_INLINE size_t split_query_many(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count)
{
    split_pass ps[2];
    size_t yes = 0;
    if (count == 0)
        return 0;
    split_start(f, ctx, &batches[0], &ps[0], 0);
    for (size_t b = 0; b < count; b++) {
        if (b + 1 < count)
            split_start(f, ctx, &batches[b + 1], &ps[(b + 1) & 1], 0);
        yes += split_finish_query(f->words, &ps[b & 1], NULL);
    }
    return yes;
}

/* ---- the batch loops ------------------------------------------------------ */

/* A batch between its two passes: what the first computed for the second. */
typedef struct {
    cursor c[KEY_BATCH];
    uint64_t pos[KEY_BATCH * FILTER_K_MAX]; /* insert: all k a key; query: the first */
} pass_state;

/* Insert, first pass: hash, all k positions, their lines prefetched for writing. */
ALWAYS_INLINE void insert_start(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                                const uint64_t *words, const key_batch *keys, pass_state *st)
{
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    const unsigned k = e->k;
    for (size_t j = 0; j < keys->count; j++) {
        cursor *c = &st->c[j];
        cursor_start(L, S, e, c, keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        if (layout_is_blocked(L))
            __builtin_prefetch(&words[c->base >> 6], 1, 3);
        for (unsigned i = 0; i < k; i++) {
            uint64_t p = cursor_position(L, S, e, c, i);
            st->pos[j * k + i] = p;
            if (!layout_is_blocked(L))
                __builtin_prefetch(&words[word_of(L, p)], 1, 3);
        }
    }
}

/* Insert into a staging filter: every position of every key into its
 * region's bucket (no prefetch: the bucket, not the filter, is written). */
ALWAYS_INLINE void insert_staged(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx, filter *f,
                                 const key_batch *keys)
{
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    struct filter_stage *st = f->stage;
    for (size_t j = 0; j < keys->count; j++) {
        cursor c;
        cursor_start(L, S, e, &c, keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        for (unsigned i = 0; i < e->k; i++)
            stage_add(f->words, st, cursor_position(L, S, e, &c, i));
    }
    st->dirty = 1;
}

/* Insert, second pass: set the bits (count the counters) in key order. */
ALWAYS_INLINE void insert_finish(layout_kind L, filter *f, uint64_t *words, unsigned k, size_t count,
                                 const pass_state *st)
{
    uint64_t saturated = 0;
    for (size_t t = 0; t < count * k; t++)
        saturated += position_add(L, words, st->pos[t]);
    if (L == LAYOUT_COUNTING)
        f->saturations += saturated;
}

/* Query, first pass: hash, position 0 of every key, its line prefetched. */
ALWAYS_INLINE void query_start(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                               const uint64_t *words, const key_batch *keys, pass_state *st)
{
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    for (size_t j = 0; j < keys->count; j++) {
        cursor_start(L, S, e, &st->c[j], keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        st->pos[j] = cursor_position(L, S, e, &st->c[j], 0);
        __builtin_prefetch(&words[word_of(L, st->pos[j])], 0, 3);
    }
}

/* Query, second pass for an unblocked filter: in phases.  Phase 0 tests
 * position 0 (prefetched by query_start); phase p >= 1 computes and
 * prefetches the next 2^p positions (2, 4, ...) of every key still alive,
 * then tests them without a branch per bit and keeps, without a branch, the
 * keys that found them all set.  Against a loop that takes one key at a
 * time with early exit, this was twice as fast in cache (no mispredicted
 * exit per key) and beyond it (a key that passes its first test no longer
 * waits out a full memory latency for each later position: the misses of
 * all live keys of a phase overlap).  The price: an absent key may fetch
 * lines past its first zero (2.5 at fill 1/2, k = 7, against the
 * sum_{i<k} f^i = 1.98 it needs).
 *
 * A batch between phases is a `flight`: flight_step tests the positions
 * its last step prefetched and prefetches the next window.  One batch
 * alone steps again at once and so waits out a memory latency per phase;
 * many_query keeps several flights in the air and steps each in turn, so
 * that a phase's prefetches land while the other flights work. */
typedef struct {
    pass_state st;                            /* cursors; position 0 of key j at st.pos[j] */
    uint64_t later[KEY_BATCH * FILTER_K_MAX]; /* position i >= 1 of key j at [j k + i] */
    unsigned char alive[KEY_BATCH];
    size_t count, live;
    unsigned done, end; /* positions [done, end) of the live keys prefetched, not yet tested */
} flight;

ALWAYS_INLINE void flight_start(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                                const uint64_t *words, const key_batch *keys, flight *fl)
{
    query_start(L, S, e, ctx, words, keys, &fl->st);
    fl->count = fl->live = keys->count;
    for (size_t j = 0; j < keys->count; j++)
        fl->alive[j] = (unsigned char)j;
    fl->done = 0;
    fl->end = 1;
}

/* One phase; returns 1 when the flight has landed: its live keys are the
 * batch's "probably present" ones. */
ALWAYS_INLINE int flight_step(layout_kind L, scheme_kind S, batch_env *e, const uint64_t *words, flight *fl)
{
    const unsigned k = e->k;
    size_t next = 0;
    for (size_t s = 0; s < fl->live; s++) {
        const unsigned j = fl->alive[s];
        int all = 1;
        for (unsigned i = fl->done; i < fl->end; i++)
            all &= position_set(L, words, i == 0 ? fl->st.pos[j] : fl->later[j * k + i]);
        fl->alive[next] = (unsigned char)j;
        next += (size_t)all;
    }
    fl->live = next;
    const unsigned window = 2 * (fl->end - fl->done);
    fl->done = fl->end;
    if (fl->done == k || fl->live == 0)
        return 1;
    fl->end = k - fl->done < window ? k : fl->done + window;
    for (size_t s = 0; s < fl->live; s++) {
        const unsigned j = fl->alive[s];
        for (unsigned i = fl->done; i < fl->end; i++) {
            uint64_t p = cursor_position(L, S, e, &fl->st.c[j], i);
            fl->later[j * k + i] = p;
            __builtin_prefetch(&words[word_of(L, p)], 0, 3);
        }
    }
    return 0;
}

ALWAYS_INLINE size_t flight_answers(const flight *fl, unsigned char *answer)
{
    if (answer != NULL) {
        memset(answer, 0, fl->count);
        for (size_t s = 0; s < fl->live; s++)
            answer[fl->alive[s]] = 1;
    }
    return fl->live;
}

/* Flights in the air at once in many_query. */
#define FLIGHTS 4

/* Many batches of an unblocked filter through the phases, FLIGHTS at a
 * time: each round steps every flight once (oldest prefetches first), then
 * launches the next batch. */
ALWAYS_INLINE size_t many_query_phases(layout_kind L, scheme_kind S, batch_env *e, const scheme_ctx *ctx,
                                       const uint64_t *words, const key_batch *batches, size_t count)
{
    flight fl[FLIGHTS];
    int busy[FLIGHTS] = {0};
    size_t yes = 0, launched = 0, in_air = 0;
    while (launched < count || in_air > 0) {
        for (int q = 0; q < FLIGHTS; q++)
            if (busy[q] && flight_step(L, S, e, words, &fl[q])) {
                yes += fl[q].live;
                busy[q] = 0;
                in_air--;
            }
        for (int q = 0; q < FLIGHTS && launched < count; q++)
            if (!busy[q]) {
                flight_start(L, S, e, ctx, words, &batches[launched++], &fl[q]);
                busy[q] = 1;
                in_air++;
                break;
            }
    }
    return yes;
}

/* Query, second pass for a blocked filter: all k bits of the key's one
 * line tested, no branch per bit.  Early exit saves no memory here (the
 * line is fetched anyway) and its branch is mispredicted about once a key:
 * measured, the branch-free test is 1.5x faster in cache, the same beyond. */
ALWAYS_INLINE size_t query_finish_block(layout_kind L, scheme_kind S, batch_env *e, const uint64_t *words,
                                        size_t count, pass_state *st, unsigned char *answer)
{
    const unsigned k = e->k;
    size_t yes = 0;
    for (size_t j = 0; j < count; j++) {
        int all = position_set(L, words, st->pos[j]);
        for (unsigned i = 1; i < k; i++)
            all &= position_set(L, words, cursor_position(L, S, e, &st->c[j], i));
        yes += (size_t)all;
        if (answer != NULL)
            answer[j] = (unsigned char)all;
    }
    return yes;
}

/* (splitblock, double) takes the loops of its own above. */
static int split_double(layout_kind L, scheme_kind S) { return L == LAYOUT_SPLITBLOCK && S == SCHEME_DOUBLE; }

ALWAYS_INLINE void batch_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx,
                                const key_batch *keys)
{
    if (split_double(L, S)) {
        split_insert(f, ctx, keys);
        return;
    }
    batch_env e;
    env_init(&e, S, f, ctx);
    if (layout_may_stage(L) && f->stage != NULL) {
        insert_staged(L, S, &e, ctx, f, keys);
        return;
    }
    pass_state st;
    insert_start(L, S, &e, ctx, f->words, keys, &st);
    insert_finish(L, f, f->words, e.k, keys->count, &st);
}

ALWAYS_INLINE size_t batch_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                                 const key_batch *keys, unsigned char *answer)
{
    if (split_double(L, S))
        return split_query(f, ctx, keys, answer);
    if (layout_may_stage(L))
        require_flushed(f);
    batch_env e;
    env_init(&e, S, f, ctx);
    if (!layout_is_blocked(L)) {
        flight fl;
        flight_start(L, S, &e, ctx, f->words, keys, &fl);
        while (!flight_step(L, S, &e, f->words, &fl))
            ;
        return flight_answers(&fl, answer);
    }
    pass_state st;
    query_start(L, S, &e, ctx, f->words, keys, &st);
    return query_finish_block(L, S, &e, f->words, keys->count, &st, answer);
}

/* Many batches, software-pipelined (inserts, and blocked queries; the
 * unblocked queries fly, above): batch b + 1's first pass (hashing and
 * prefetches) runs before batch b's second, so that the memory system is
 * never idle between batches.  A batch of 32 keys alone ends by waiting out
 * one full memory latency; beyond the last-level cache that wait is most of
 * its time. */
/* Batches whose first pass runs ahead of the second. */
#define MANY_AHEAD 2

ALWAYS_INLINE void many_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx,
                               const key_batch *batches, size_t count)
{
    if (split_double(L, S)) {
        split_insert_many(f, ctx, batches, count);
        return;
    }
    if (count == 0)
        return;
    batch_env e;
    env_init(&e, S, f, ctx);
    if (layout_may_stage(L) && f->stage != NULL) {
        for (size_t b = 0; b < count; b++)
            insert_staged(L, S, &e, ctx, f, &batches[b]);
        return;
    }
    pass_state st[2];
    insert_start(L, S, &e, ctx, f->words, &batches[0], &st[0]);
    for (size_t b = 0; b < count; b++) {
        if (b + 1 < count)
            insert_start(L, S, &e, ctx, f->words, &batches[b + 1], &st[(b + 1) & 1]);
        insert_finish(L, f, f->words, e.k, batches[b].count, &st[b & 1]);
    }
}

ALWAYS_INLINE size_t many_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx,
                                const key_batch *batches, size_t count)
{
    if (split_double(L, S))
        return split_query_many(f, ctx, batches, count);
    if (count == 0)
        return 0;
    if (layout_may_stage(L))
        require_flushed(f);
    batch_env e;
    env_init(&e, S, f, ctx);
    if (!layout_is_blocked(L))
        return many_query_phases(L, S, &e, ctx, f->words, batches, count);
    pass_state st[MANY_AHEAD + 1];
    size_t yes = 0;
    for (size_t b = 0; b < MANY_AHEAD && b < count; b++)
        query_start(L, S, &e, ctx, f->words, &batches[b], &st[b]);
    for (size_t b = 0; b < count; b++) {
        if (b + MANY_AHEAD < count)
            query_start(L, S, &e, ctx, f->words, &batches[b + MANY_AHEAD], &st[(b + MANY_AHEAD) % (MANY_AHEAD + 1)]);
        yes += query_finish_block(L, S, &e, f->words, batches[b].count, &st[b % (MANY_AHEAD + 1)], NULL);
    }
    return yes;
}

/* Clear (plain layouts) or decrement (counting); not a hot path. */
ALWAYS_INLINE void batch_remove(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx,
                                const key_batch *keys)
{
    filter_flush(f);
    batch_env e;
    env_init(&e, S, f, ctx);
    hash128_t hv[KEY_BATCH];
    batch_hash(S, ctx, keys, hv);
    uint64_t *words = f->words;
    for (size_t j = 0; j < keys->count; j++) {
        cursor c;
        cursor_start(L, S, &e, &c, keys->ptr[j], keys->len[j], keys->id[j], hv[j]);
        for (unsigned i = 0; i < e.k; i++) {
            uint64_t pos = cursor_position(L, S, &e, &c, i);
            if (L != LAYOUT_COUNTING) {
                words[pos >> 6] &= ~(1ULL << (pos & 63));
                continue;
            }
            unsigned v = counter_get(words, pos);
            if (v == 0)
                f->bad_deletes++;
            else if (v != COUNTER_MAX)
                counter_add(words, pos, -1);
        }
    }
}

/* ---- one key at a time: the reference ------------------------------------ */

/* The key's hash through the registry's function pointer, split as
 * cursor_start expects. */
ALWAYS_INLINE hash128_t one_hash(scheme_kind S, const scheme_ctx *ctx, const void *key, size_t len)
{
    hash128_t h = {0, 0};
    if (scheme_is_hashed(S)) {
        h = hasher_hash(ctx->hash, key, len, ctx->seed);
        if (S != SCHEME_COURSE)
            hash_split(h, ctx->hash->bits, &h.lo, &h.hi);
    }
    return h;
}

/* One key, unbatched: its environment and its cursor at position 0. */
ALWAYS_INLINE void one_start(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx, const void *key,
                             size_t len, uint64_t id, batch_env *e, cursor *c)
{
    env_init(e, S, f, ctx);
    cursor_start(L, S, e, c, key, len, id, one_hash(S, ctx, key, len));
}

ALWAYS_INLINE void one_insert(layout_kind L, scheme_kind S, filter *f, const scheme_ctx *ctx, const void *key,
                              size_t len, uint64_t id)
{
    batch_env e;
    cursor c;
    one_start(L, S, f, ctx, key, len, id, &e, &c);
    for (unsigned i = 0; i < e.k; i++)
        f->saturations += position_add(L, f->words, cursor_position(L, S, &e, &c, i));
}

ALWAYS_INLINE int one_query(layout_kind L, scheme_kind S, const filter *f, const scheme_ctx *ctx, const void *key,
                            size_t len, uint64_t id)
{
    batch_env e;
    cursor c;
    one_start(L, S, f, ctx, key, len, id, &e, &c);
    for (unsigned i = 0; i < e.k; i++)
        if (!position_set(L, f->words, cursor_position(L, S, &e, &c, i)))
            return 0;
    return 1;
}

#define STAMP(L, S, tag)                                                                          \
    static void insert_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys)             \
    {                                                                                             \
        batch_insert(L, S, f, ctx, keys);                                                         \
    }                                                                                             \
    static size_t query_##tag(const filter *f, const scheme_ctx *ctx, const key_batch *keys,      \
                              unsigned char *answer)                                              \
    {                                                                                             \
        return batch_query(L, S, f, ctx, keys, answer);                                           \
    }                                                                                             \
    static void remove_##tag(filter *f, const scheme_ctx *ctx, const key_batch *keys)             \
    {                                                                                             \
        batch_remove(L, S, f, ctx, keys);                                                         \
    }                                                                                             \
    static void insert_many_##tag(filter *f, const scheme_ctx *ctx, const key_batch *batches,     \
                                  size_t count)                                                   \
    {                                                                                             \
        many_insert(L, S, f, ctx, batches, count);                                                \
    }                                                                                             \
    static size_t query_many_##tag(const filter *f, const scheme_ctx *ctx,                        \
                                   const key_batch *batches, size_t count)                        \
    {                                                                                             \
        return many_query(L, S, f, ctx, batches, count);                                          \
    }                                                                                             \
    static void insert1_##tag(filter *f, const scheme_ctx *ctx, const void *key, size_t len,      \
                              uint64_t id)                                                        \
    {                                                                                             \
        one_insert(L, S, f, ctx, key, len, id);                                                   \
    }                                                                                             \
    static int query1_##tag(const filter *f, const scheme_ctx *ctx, const void *key, size_t len,  \
                            uint64_t id)                                                          \
    {                                                                                             \
        return one_query(L, S, f, ctx, key, len, id);                                             \
    }

#define STAMP_LAYOUT(L, l)                                                                        \
    STAMP(L, SCHEME_INDEPENDENT, l##_independent)                                                 \
    STAMP(L, SCHEME_DOUBLE, l##_double)                                                           \
    STAMP(L, SCHEME_ENHANCED, l##_enhanced)                                                       \
    STAMP(L, SCHEME_COURSE, l##_course)                                                           \
    STAMP(L, SCHEME_IDEAL, l##_ideal)                                                             \
    STAMP(L, SCHEME_PARQUET, l##_parquet)

STAMP_LAYOUT(LAYOUT_STANDARD, standard)
STAMP_LAYOUT(LAYOUT_COUNTING, counting)
STAMP_LAYOUT(LAYOUT_PARTITIONED, partitioned)
STAMP_LAYOUT(LAYOUT_BLOCKED512, blocked512)
STAMP_LAYOUT(LAYOUT_REGISTER64, register64)
STAMP_LAYOUT(LAYOUT_SPLITBLOCK, splitblock)
/* multiply is a blocked layouts' scheme (layout_check refuses it elsewhere) */
STAMP(LAYOUT_BLOCKED512, SCHEME_MULTIPLY, blocked512_multiply)
STAMP(LAYOUT_REGISTER64, SCHEME_MULTIPLY, register64_multiply)

#if BLOOMLAB_X86
/* ---- eight keys at a time (avx512.h) --------------------------------------- */

/* Unblocked filters up to this size insert through the AVX-512 loops, which
 * do not prefetch (in cache the core overlaps the misses itself); beyond it
 * standard and partitioned filters stage, and a counting filter takes the
 * portable loop, whose prefetch of all k lines wins once each is a trip to
 * DRAM (256 MiB, bloomlab bench: 74 ns against 107).  Queries go by L2
 * instead: all k positions while the filter fits, early exit in phases
 * beyond (avx512.c). */
#define AVX512_INSERT_MAX_BYTES STAGE_MIN_BYTES
_Static_assert(AVX512_INSERT_MAX_BYTES * 8ULL < (1ULL << 32), "avx512_standard_* take m < 2^32");

/* Up to this many batches are hashed into one run of the AVX-512 loops:
 * a loop over 256 keys keeps its gathers in flight, one over 32 drains
 * between calls. */
#define AVX512_RUN_BATCHES 8

_Static_assert(AVX512_RUN_BATCHES * KEY_BATCH <= AVX512_MAX_KEYS, "a run fits every loop of avx512.h");

typedef struct {
    uint64_t h1[AVX512_RUN_BATCHES * KEY_BATCH];
    uint64_t h2[AVX512_RUN_BATCHES * KEY_BATCH];
    uint64_t key[AVX512_RUN_BATCHES * KEY_BATCH + 8]; /* the 8-byte keys, for the loops that hash them */
} hash_run;

/* The (h1, h2) of batches [0, count), count <= AVX512_RUN_BATCHES, side by
 * side: at the avx512 level XXH3 in eight lanes for 8-byte keys, else the
 * batch hasher's values unzipped; h1 alone (run->h2 left as it was) when
 * h1_only and the hash is xxh3_64, whose h1 is its value (the split block
 * loops read nothing else).  Returns the number of keys. */
static size_t split_hashes(const scheme_ctx *ctx, const key_batch *batches, size_t count, hash_run *run,
                           isa_level level, int h1_only)
{
    const batch_hash_fn hash = batch_hasher_for(ctx->hash);
    size_t at = 0;
    for (size_t b = 0; b < count; b++) {
        const key_batch *keys = &batches[b];
        const int xxh3_64 = hash == batch_hash_xxh3_64;
        if (xxh3_64 && level >= ISA_AVX512 && avx512_xxh3_64_split(ctx->seed, keys, run->h1 + at, run->h2 + at) == 0)
        {
            /* eight lanes at once */
        } else if (xxh3_64 && h1_only) {
            const uint64_t bitflip = xxh3_8_bitflip(ctx->seed);
            if (batch_all_8_bytes(keys))
                for (size_t j = 0; j < keys->count; j++)
                    run->h1[at + j] = xxh3_8(keys->ptr[j], bitflip);
            else
                for (size_t j = 0; j < keys->count; j++)
                    run->h1[at + j] = xxh3_64_key(keys->ptr[j], keys->len[j], ctx->seed, bitflip);
        } else {
            hash128_t hv[KEY_BATCH];
            hash(ctx->hash, ctx->seed, keys, hv, 1);
            for (size_t j = 0; j < keys->count; j++) {
                run->h1[at + j] = hv[j].lo;
                run->h2[at + j] = hv[j].hi;
            }
        }
        at += keys->count;
    }
    return at;
}

static size_t run_length(size_t count, size_t b) { return count - b < AVX512_RUN_BATCHES ? count - b : AVX512_RUN_BATCHES; }

/* What one run of keys does to a filter, per layout: a loop of avx512.h
 * taking the keys hashed or, for xxh3_64 on 8-byte keys where the layout
 * has one, the loop that hashes them itself. */
typedef avx512_insert_fn *run_insert_fn;
typedef struct {
    avx512_query_fn *hashed; /* NULL: the portable loops */
    avx512_query_keys8_fn *keys8;
} query_run;

/* How a level's loops want their keys hashed (split_hashes). */
typedef struct {
    isa_level level;
    int h1_only;
} run_hashing;

_Static_assert(AVX512_RUN_BATCHES * KEY_BATCH <= AVX2_MAX_KEYS, "a run fits every loop of avx2.h");

static void runs_insert(filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count, run_insert_fn insert,
                        run_hashing hashing)
{
    hash_run run;
    for (size_t b = 0; b < count; b += AVX512_RUN_BATCHES)
        insert(f, run.h1, run.h2,
               split_hashes(ctx, batches + b, run_length(count, b), &run, hashing.level, hashing.h1_only));
}

/* The run's 8-byte keys, when a loop hashing them applies: returns how
 * many, or -1 (then split_hashes). */
static long run_keys8(const scheme_ctx *ctx, const key_batch *batches, size_t count, int have_loop, hash_run *run)
{
    if (!have_loop || batch_hasher_for(ctx->hash) != batch_hash_xxh3_64)
        return -1;
    return avx512_keys8(batches, count, run->key);
}

static size_t runs_query(const filter *f, const scheme_ctx *ctx, const key_batch *batches, size_t count,
                         unsigned char *answer, query_run query, run_hashing hashing)
{
    require_flushed(f);
    hash_run run;
    size_t yes = 0;
    for (size_t b = 0; b < count; b += AVX512_RUN_BATCHES) {
        const size_t length = run_length(count, b);
        const long keys8 = run_keys8(ctx, batches + b, length, query.keys8 != NULL, &run);
        size_t keys;
        if (keys8 >= 0) {
            keys = (size_t)keys8;
            yes += query.keys8(f, ctx->seed, run.key, keys, answer);
        } else {
            keys = split_hashes(ctx, batches + b, length, &run, hashing.level, hashing.h1_only);
            yes += query.hashed(f, run.h1, run.h2, keys, answer);
        }
        if (answer != NULL)
            answer += keys;
    }
    return yes;
}

/* standard beyond the cache, staging (m < 2^32): positions from the vector
 * unit, sorted into their buckets. */
static void run_insert_staged_avx512(filter *f, const uint64_t *h1, const uint64_t *h2, size_t keys)
{
    uint64_t pos[KEY_BATCH * FILTER_K_MAX + 8];
    for (size_t j = 0; j < keys; j += KEY_BATCH) {
        const size_t group = keys - j < KEY_BATCH ? keys - j : KEY_BATCH;
        avx512_standard_positions(f->m, f->k, h1 + j, h2 + j, group, pos);
        for (size_t t = 0; t < group * f->k; t++)
            stage_add(f->words, f->stage, pos[t]);
    }
    f->stage->dirty = 1;
}

/* Which run loop fits a filter, or NULL for the portable loops: unblocked
 * inserts up to 32 MiB, and a standard filter's staged inserts below 2^32
 * bits (past it the four-product positions gained nothing on the portable
 * ones: the full crawler's URL inserts took 118 against 108 ns); unblocked
 * queries all k in L2 (xxh3_64's 8-byte keys hashed inside the loop),
 * phased beyond (counting and partitioned below 2^32 positions);
 * blocked512 and register64 with fewer than 2^32 blocks (the block choice
 * is reduce_lanes), and so splitblock (one 32 x 32-bit product). */
static int inserts_direct(const filter *f) { return f->word_count * 8 <= AVX512_INSERT_MAX_BYTES; }
static int fits_in_l2(const filter *f) { return f->word_count * 8 <= cache_l2_bytes(); }

static run_insert_fn standard_insert_run_avx512(const filter *f)
{
    if (inserts_direct(f))
        return avx512_standard_insert;
    return f->stage != NULL && f->m < (1ULL << 32) ? run_insert_staged_avx512 : NULL;
}

/* An unblocked layout's queries: all k in L2 (8-byte keys hashed in the
 * loop), phased beyond; the portable loops from max_m bits on. */
static query_run unblocked_query_run(const filter *f, uint64_t max_m, avx512_query_fn *all_k,
                                     avx512_query_keys8_fn *all_k_keys8, avx512_query_fn *phased)
{
    if (f->m >= max_m)
        return (query_run){NULL, NULL};
    if (fits_in_l2(f))
        return (query_run){all_k, all_k_keys8};
    return (query_run){phased, NULL};
}

static query_run standard_query_run_avx512(const filter *f)
{
    return unblocked_query_run(f, UINT64_MAX, avx512_standard_query, avx512_standard_query_keys8,
                               avx512_standard_query_phased);
}

static run_insert_fn counting_insert_run_avx512(const filter *f) { return inserts_direct(f) ? avx512_counting_insert : NULL; }

static query_run counting_query_run_avx512(const filter *f)
{
    return unblocked_query_run(f, 1ULL << 32, avx512_counting_query, avx512_counting_query_keys8,
                               avx512_counting_query_phased);
}

static run_insert_fn partitioned_insert_run_avx512(const filter *f) { return inserts_direct(f) ? avx512_partitioned_insert : NULL; }

static query_run partitioned_query_run_avx512(const filter *f)
{
    return unblocked_query_run(f, 1ULL << 32, avx512_partitioned_query, avx512_partitioned_query_keys8,
                               avx512_partitioned_query_phased);
}

/* The block layouts: fewer than 2^32 blocks; blocked512 queries in L2 also
 * take 8-byte keys unhashed (beyond, its loop prefetches from the hashes). */
static int few_blocks(const filter *f) { return f->blocks < (1ULL << 32); }
static run_insert_fn blocked512_insert_run_avx512(const filter *f) { return few_blocks(f) ? avx512_blocked512_insert : NULL; }
static query_run blocked512_query_run_avx512(const filter *f)
{
    return (query_run){few_blocks(f) ? avx512_blocked512_query : NULL, fits_in_l2(f) ? avx512_blocked512_query_keys8 : NULL};
}
static run_insert_fn register64_insert_run_avx512(const filter *f) { return few_blocks(f) ? avx512_register64_insert : NULL; }
static query_run register64_query_run_avx512(const filter *f) { return (query_run){few_blocks(f) ? avx512_register64_query : NULL, NULL}; }
static run_insert_fn splitblock_insert_run_avx512(const filter *f) { return few_blocks(f) ? avx512_splitblock_insert : NULL; }
static query_run splitblock_query_run_avx512(const filter *f) { return (query_run){few_blocks(f) ? avx512_splitblock_query : NULL, NULL}; }

/* ---- AVX2 (avx2.h): the same runs, hashed by the scalar hashers --------- */

/* Unblocked layouts: inserts up to 32 MiB (m < 2^32; a staging filter
 * beyond takes the portable loop, which was faster there: 64 against 82 ns
 * at n = 1e8 with the positions from avx2.c, docs/PERFORMANCE.md); queries
 * test all k while the filter fits in L2, and beyond it take the portable
 * loops' phases with early exit (an AVX2 loop testing all k fetched every
 * line: slower there). */
static query_run unblocked_query_run_avx2(const filter *f, avx512_query_fn *all_k)
{
    return (query_run){f->m < (1ULL << 32) && fits_in_l2(f) ? all_k : NULL, NULL};
}
static run_insert_fn standard_insert_run_avx2(const filter *f)
{
    return inserts_direct(f) ? avx2_standard_insert : NULL;
}
static query_run standard_query_run_avx2(const filter *f) { return unblocked_query_run_avx2(f, avx2_standard_query); }
static run_insert_fn counting_insert_run_avx2(const filter *f) { return inserts_direct(f) ? avx2_counting_insert : NULL; }
static query_run counting_query_run_avx2(const filter *f) { return unblocked_query_run_avx2(f, avx2_counting_query); }
static run_insert_fn partitioned_insert_run_avx2(const filter *f)
{
    return inserts_direct(f) ? avx2_partitioned_insert : NULL;
}
static query_run partitioned_query_run_avx2(const filter *f)
{
    return unblocked_query_run_avx2(f, avx2_partitioned_query);
}
/* blocked512 with positions below 2^32; register64 and splitblock with
 * fewer than 2^32 blocks. */
static int narrow_blocks(const filter *f) { return f->blocks < (1ULL << 23); }
static run_insert_fn blocked512_insert_run_avx2(const filter *f) { return narrow_blocks(f) ? avx2_blocked512_insert : NULL; }
static query_run blocked512_query_run_avx2(const filter *f)
{
    return (query_run){narrow_blocks(f) ? avx2_blocked512_query : NULL, NULL};
}
static run_insert_fn register64_insert_run_avx2(const filter *f) { return few_blocks(f) ? avx2_register64_insert : NULL; }
static query_run register64_query_run_avx2(const filter *f)
{
    return (query_run){few_blocks(f) ? avx2_register64_query : NULL, NULL};
}
static run_insert_fn splitblock_insert_run_avx2(const filter *f) { return few_blocks(f) ? avx2_splitblock_insert : NULL; }
static query_run splitblock_query_run_avx2(const filter *f)
{
    return (query_run){few_blocks(f) ? avx2_splitblock_query : NULL, NULL};
}
/* The multiply scheme on the blocked layouts: the AVX2 loops at both
 * levels (avx512.c has none; at the avx512 level its eight-lane XXH3 still
 * hashes the keys). */
static run_insert_fn blocked512_multiply_insert_run_avx2(const filter *f)
{
    return narrow_blocks(f) ? avx2_blocked512_multiply_insert : NULL;
}
static query_run blocked512_multiply_query_run_avx2(const filter *f)
{
    return (query_run){narrow_blocks(f) ? avx2_blocked512_multiply_query : NULL, NULL};
}
static run_insert_fn register64_multiply_insert_run_avx2(const filter *f)
{
    return few_blocks(f) ? avx2_register64_multiply_insert : NULL;
}
static query_run register64_multiply_query_run_avx2(const filter *f)
{
    return (query_run){few_blocks(f) ? avx2_register64_multiply_query : NULL, NULL};
}
#define blocked512_multiply_insert_run_avx512 blocked512_multiply_insert_run_avx2
#define blocked512_multiply_query_run_avx512 blocked512_multiply_query_run_avx2
#define register64_multiply_insert_run_avx512 register64_multiply_insert_run_avx2
#define register64_multiply_query_run_avx512 register64_multiply_query_run_avx2

/* The four ops of a vector pair at one level: the run loop that fits, else
 * the portable loops stamped above.  H1_ONLY: the loops read h1 alone. */
#define VECTOR_OPS(tag, isa, LEVEL, H1_ONLY) VECTOR_OPS_OVER(tag, tag##_double, isa, LEVEL, H1_ONLY)
/* The four ops of a vector pair at one level: the run loop that fits, else
 * the portable loops stamped for the same (layout, scheme): stamped. */
#define VECTOR_OPS_OVER(tag, stamped, isa, LEVEL, H1_ONLY)                                                   \
    static void insert_many_##tag##_##isa(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)    \
    {                                                                                                        \
        run_insert_fn run = tag##_insert_run_##isa(f);                                                       \
        if (run != NULL)                                                                                     \
            runs_insert(f, ctx, b, n, run, (run_hashing){LEVEL, H1_ONLY});                                   \
        else                                                                                                 \
            insert_many_##stamped(f, ctx, b, n);                                                        \
    }                                                                                                        \
    static void insert_##tag##_##isa(filter *f, const scheme_ctx *ctx, const key_batch *b)                   \
    {                                                                                                        \
        insert_many_##tag##_##isa(f, ctx, b, 1);                                                             \
    }                                                                                                        \
    static size_t query_many_##tag##_##isa(const filter *f, const scheme_ctx *ctx, const key_batch *b,       \
                                           size_t n)                                                         \
    {                                                                                                        \
        query_run run = tag##_query_run_##isa(f);                                                            \
        return run.hashed != NULL ? runs_query(f, ctx, b, n, NULL, run, (run_hashing){LEVEL, H1_ONLY})       \
                                  : query_many_##stamped(f, ctx, b, n);                                 \
    }                                                                                                        \
    static size_t query_##tag##_##isa(const filter *f, const scheme_ctx *ctx, const key_batch *b,            \
                                      unsigned char *answer)                                                 \
    {                                                                                                        \
        query_run run = tag##_query_run_##isa(f);                                                            \
        return run.hashed != NULL ? runs_query(f, ctx, b, 1, answer, run, (run_hashing){LEVEL, H1_ONLY})     \
                                  : query_##stamped(f, ctx, b, answer);                                 \
    }

#define VECTOR_LEVEL(isa, LEVEL)                                                                             \
    VECTOR_OPS(standard, isa, LEVEL, 0)                                                                      \
    VECTOR_OPS(counting, isa, LEVEL, 0)                                                                      \
    VECTOR_OPS(partitioned, isa, LEVEL, 0)                                                                   \
    VECTOR_OPS(blocked512, isa, LEVEL, 0)                                                                    \
    VECTOR_OPS(register64, isa, LEVEL, 0)

VECTOR_LEVEL(avx512, ISA_AVX512)
VECTOR_OPS(splitblock, avx512, ISA_AVX512, 0)
VECTOR_LEVEL(avx2, ISA_AVX2)
VECTOR_OPS_OVER(blocked512_multiply, blocked512_multiply, avx512, ISA_AVX512, 0)
VECTOR_OPS_OVER(register64_multiply, register64_multiply, avx512, ISA_AVX512, 0)
VECTOR_OPS_OVER(blocked512_multiply, blocked512_multiply, avx2, ISA_AVX2, 0)
VECTOR_OPS_OVER(register64_multiply, register64_multiply, avx2, ISA_AVX2, 0)
static run_insert_fn splitblock_insert_run_avx2_hashed(const filter *f) { return splitblock_insert_run_avx2(f); }
static query_run splitblock_query_run_avx2_hashed(const filter *f) { return splitblock_query_run_avx2(f); }
VECTOR_OPS(splitblock, avx2_hashed, ISA_AVX2, 1)

/* AVX2 split block: xxh3_64 on 8-byte keys hashed in the loop, one pass
 * (avx2.h); any other key or hash through the runs above. */
static int xxh3_8_byte_keys(const scheme_ctx *ctx, const key_batch *batches, size_t count)
{
    /* one batch (a library user's key): the scalar check costs less than the vector one's setup */
    return batch_hasher_for(ctx->hash) == batch_hash_xxh3_64 &&
           (count == 1 ? batch_all_8_bytes(batches) : avx2_batches_keys8(batches, count));
}
static void insert_many_splitblock_avx2(filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)
{
    if (few_blocks(f) && xxh3_8_byte_keys(ctx, b, n))
        avx2_splitblock_insert_keys8(f, ctx->seed, b, n);
    else
        insert_many_splitblock_avx2_hashed(f, ctx, b, n);
}
static void insert_splitblock_avx2(filter *f, const scheme_ctx *ctx, const key_batch *b)
{
    if (few_blocks(f) && xxh3_8_byte_keys(ctx, b, 1))
        avx2_splitblock_insert_keys8(f, ctx->seed, b, 1);
    else
        insert_splitblock_avx2_hashed(f, ctx, b);
}
static size_t query_many_splitblock_avx2(const filter *f, const scheme_ctx *ctx, const key_batch *b, size_t n)
{
    if (few_blocks(f) && xxh3_8_byte_keys(ctx, b, n))
        return avx2_splitblock_query_keys8(f, ctx->seed, b, n, NULL);
    return query_many_splitblock_avx2_hashed(f, ctx, b, n);
}
static size_t query_splitblock_avx2(const filter *f, const scheme_ctx *ctx, const key_batch *b, unsigned char *answer)
{
    if (few_blocks(f) && xxh3_8_byte_keys(ctx, b, 1))
        return avx2_splitblock_query_keys8(f, ctx->seed, b, 1, answer);
    return query_splitblock_avx2_hashed(f, ctx, b, answer);
}
#endif /* BLOOMLAB_X86 */

#define OPS(tag) {insert_##tag, query_##tag, remove_##tag, insert_many_##tag, query_many_##tag}
/* mul: the multiply slot's loops (an unblocked layout's is never reached:
 * layout_check refuses the pair, and double's loops stand there). */
#define OPS_LAYOUT(l, mul)                                                                                   \
    {OPS(l##_independent), OPS(l##_double), OPS(l##_enhanced), OPS(l##_course), OPS(l##_ideal), OPS(l##_parquet), \
     OPS(l##_##mul)}

static const filter_ops OPS_TABLE[LAYOUT_COUNT][SCHEME_COUNT] = {
    OPS_LAYOUT(standard, double),     OPS_LAYOUT(counting, double),     OPS_LAYOUT(partitioned, double),
    OPS_LAYOUT(blocked512, multiply), OPS_LAYOUT(register64, multiply), OPS_LAYOUT(splitblock, double)};

filter_ops filter_ops_portable(layout_kind layout, scheme_kind scheme) { return OPS_TABLE[layout][scheme]; }

const char *filter_ops_description(void)
{
    const isa_level level = cpu_isa();
    if (level >= ISA_AVX512)
        return "avx512 for double hashing on standard (queries: all k in L2, 8-byte keys' xxh3_64 in "
               "the loop; phased beyond; "
               "inserts: up to 32 MiB, staged-insert positions below 2^32 bits), counting and partitioned "
               "below 2^32 positions (inserts: up to 32 MiB), blocked512 (in L2 with 8-byte keys' "
               "xxh3_64 in the loop), register64 and splitblock; avx2 for multiply on blocked512 (below 2^32 "
               "bits) and register64; portable for the other schemes";
    if (level >= ISA_AVX2)
        return "avx2 for double hashing on standard, counting and partitioned below 2^32 positions (queries: "
               "all k in L2, portable phases beyond; inserts: up to 32 MiB), blocked512 below 2^32 bits, "
               "register64 and splitblock (8-byte keys' xxh3_64 in the loop), and for multiply on blocked512 "
               "below 2^32 bits and register64; portable for the other schemes";
    return "portable";
}

filter_ops filter_ops_for(layout_kind layout, scheme_kind scheme)
{
    filter_ops ops = OPS_TABLE[layout][scheme];
#if BLOOMLAB_X86
    const isa_level level = cpu_isa();
#define USE_VECTOR_OPS(tag, isa)                                                                             \
    do {                                                                                                     \
        ops.insert = insert_##tag##_##isa;                                                                   \
        ops.query = query_##tag##_##isa;                                                                     \
        ops.insert_many = insert_many_##tag##_##isa;                                                         \
        ops.query_many = query_many_##tag##_##isa;                                                           \
    } while (0)
    if (scheme == SCHEME_MULTIPLY && level >= ISA_AVX2) {
        if (layout == LAYOUT_BLOCKED512 && level >= ISA_AVX512)
            USE_VECTOR_OPS(blocked512_multiply, avx512);
        else if (layout == LAYOUT_BLOCKED512)
            USE_VECTOR_OPS(blocked512_multiply, avx2);
        else if (layout == LAYOUT_REGISTER64 && level >= ISA_AVX512)
            USE_VECTOR_OPS(register64_multiply, avx512);
        else if (layout == LAYOUT_REGISTER64)
            USE_VECTOR_OPS(register64_multiply, avx2);
        return ops;
    }
    if (scheme != SCHEME_DOUBLE || level < ISA_AVX2)
        return ops;
#define USE_LEVEL(isa)                                                                                       \
    do {                                                                                                     \
        if (layout == LAYOUT_STANDARD)                                                                       \
            USE_VECTOR_OPS(standard, isa);                                                                   \
        else if (layout == LAYOUT_COUNTING)                                                                  \
            USE_VECTOR_OPS(counting, isa);                                                                   \
        else if (layout == LAYOUT_PARTITIONED)                                                               \
            USE_VECTOR_OPS(partitioned, isa);                                                                \
        else if (layout == LAYOUT_BLOCKED512)                                                                \
            USE_VECTOR_OPS(blocked512, isa);                                                                 \
        else if (layout == LAYOUT_REGISTER64)                                                                \
            USE_VECTOR_OPS(register64, isa);                                                                 \
        else if (layout == LAYOUT_SPLITBLOCK)                                                                \
            USE_VECTOR_OPS(splitblock, isa);                                                                 \
    } while (0)
    if (level >= ISA_AVX512)
        USE_LEVEL(avx512);
    else
        USE_LEVEL(avx2);
#undef USE_LEVEL
#undef USE_VECTOR_OPS
#else
    (void)scheme;
#endif
    return ops;
}

typedef struct {
    void (*insert)(filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id);
    int (*query)(const filter *f, const scheme_ctx *ctx, const void *key, size_t len, uint64_t id);
} scalar_ops;

#define SCALAR(tag) {insert1_##tag, query1_##tag}
#define SCALAR_LAYOUT(l, mul)                                                                     \
    {SCALAR(l##_independent), SCALAR(l##_double), SCALAR(l##_enhanced), SCALAR(l##_course),       \
     SCALAR(l##_ideal), SCALAR(l##_parquet), SCALAR(l##_##mul)}

static const scalar_ops SCALAR_TABLE[LAYOUT_COUNT][SCHEME_COUNT] = {
    SCALAR_LAYOUT(standard, double),     SCALAR_LAYOUT(counting, double),
    SCALAR_LAYOUT(partitioned, double),  SCALAR_LAYOUT(blocked512, multiply),
    SCALAR_LAYOUT(register64, multiply), SCALAR_LAYOUT(splitblock, double)};


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
