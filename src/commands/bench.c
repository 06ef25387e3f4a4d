/* bench.c -- `bloomlab bench`; see bench.h for what is timed and how the
 * fraction of the machine's ceiling is computed. */
#define _GNU_SOURCE
#include "base/clock.h"
#include "base/strbuf.h"
#include "commands/bench.h"
#include "base/cache.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli.h"
#include "harness/counters.h"
#include "commands/commands.h"
#include "base/hashes.h"
#include "harness/keys.h"
#include "base/numbers.h"
#include "harness/output.h"
#include "base/pcg.h"
#include "harness/schema.h"
#include "model/stats.h"
#include "harness/sweep.h"
#include "harness/table.h"
#include "base/cpu.h"
#include "filter/filter_plugin.h"
#include "base/guard.h"
#include "harness/speed.h"
#include "model/theory.h"
#include "base/version.h"
#include "bloomlab/bloomlab.h"

#define CMD "bench"
#define WARM_UP_QUERIES 200000 /* asked untimed between the fill and the timed queries */
#define CHUNK 64               /* batches made per untimed key-generation step */
#define PASSES 5               /* each figure is the median of this many timed passes (bench.h) */
#define LINE_BYTES 64
#define READ_BATCH 32
#define GIVEN_CHUNK 2048 /* addresses given to the ceiling at a time: 16 KiB, off the clock */
#define BITS_PER_KEY 10.0
#define K_STANDARD 7u
#define DEFAULT_MIN_BYTES (16ULL << 10)
#define DEFAULT_MAX_BYTES (256ULL << 20)
#define DEFAULT_OPS 1000000ULL
#define PLUGIN_ROUNDS 3 /* a plugin and bloomlab's standard layout: the least of this many interleaved rounds (speed.h) */
#define MAX_PLUGINS 8

/* ---- lines per query (bench.h) ------------------------------------------- */

double bench_lines_absent(layout_kind layout, unsigned k, double fill, double lines)
{
    if (layout_block_bits(layout) > 1)
        return 1.0;
    double fresh = lines > 1 ? 1.0 - 1.0 / lines : 0.0, sum = 0, reach = 1;
    for (unsigned i = 0; i < k; i++) {
        sum += reach * pow(fresh, (double)i);
        reach *= fill;
    }
    return sum;
}

double bench_lines_present(layout_kind layout, unsigned k, double lines)
{
    if (layout_block_bits(layout) > 1)
        return 1.0;
    /* 1 - (1 - 1/lines)^k without the cancellation of 1 - pow(...) */
    return -lines * expm1((double)k * log1p(-1.0 / lines));
}

int bench_parse_bytes(const char *text, uint64_t *out)
{
    static const struct {
        const char *suffix;
        unsigned shift;
    } SUFFIXES[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"Ki", 10}, {"Mi", 20},
                    {"Gi", 30},  {"K", 10},   {"M", 20},   {"G", 30}};
    char number[64];
    size_t len = strlen(text);
    unsigned shift = 0;
    for (size_t i = 0; i < sizeof SUFFIXES / sizeof SUFFIXES[0]; i++) {
        size_t sl = strlen(SUFFIXES[i].suffix);
        if (len > sl && strcmp(text + len - sl, SUFFIXES[i].suffix) == 0) {
            shift = SUFFIXES[i].shift;
            len -= sl;
            break;
        }
    }
    if (len == 0 || len >= sizeof number)
        return -1;
    memcpy(number, text, len);
    number[len] = '\0';
    double v;
    if (number_parse(number, &v) != 0 || v < 1 || v * (double)(1ULL << shift) > 1e15)
        return -1;
    v *= (double)(1ULL << shift);
    if (v != floor(v))
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* ---- clocks and memory ---------------------------------------------------- */

static uint64_t peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)ru.ru_maxrss * 1024u;
}

/* ---- the ceiling ---------------------------------------------------------- */

typedef struct {
    double ns_dependent;   /* per read */
    double ns_independent; /* per read, the fastest of independent_touches' ways */
    double ns_update;      /* per random bit set, the same way */
} ceiling;

static uint64_t *line_buffer(uint64_t bytes)
{
    void *mem = NULL;
    size_t align = bytes >= (4u << 20) ? (2u << 20) : 64;
    if (posix_memalign(&mem, align, bytes) != 0)
        return NULL;
    if (align > 64)
        madvise(mem, bytes, MADV_HUGEPAGE);
    return mem;
}

/* One random cycle through all lines: line i's first word holds the next. */
static void sattolo_cycle(uint64_t *buf, uint64_t lines, uint64_t seed)
{
    for (uint64_t i = 0; i < lines; i++)
        buf[i * 8] = i;
    pcg32_t rng;
    pcg32_seed(&rng, seed, 7);
    for (uint64_t i = lines - 1; i > 0; i--) {
        uint64_t j = pcg32_bounded64(&rng, i); /* j < i: a single cycle */
        uint64_t t = buf[i * 8];
        buf[i * 8] = buf[j * 8];
        buf[j * 8] = t;
    }
}

static inline uint64_t random_line(uint64_t i, uint64_t lines)
{
    return (uint64_t)(((pcg_u128)mix64(i) * lines) >> 64);
}

/* ns per read of a pointer chase through buf's cycle. */
static double dependent_reads(const uint64_t *buf, uint64_t lines, uint64_t reads)
{
    uint64_t at = 0;
    for (uint64_t i = 0; i < lines && i < reads; i++) /* warm: TLB and caches as a filter's */
        at = buf[at * 8];
    double t0 = now_seconds();
    for (uint64_t i = 0; i < reads; i++)
        at = buf[at * 8];
    double t1 = now_seconds();
    __asm__ volatile("" : : "r"(at)); /* the reads' results are used: they stay */
    return 1e9 * (t1 - t0) / (double)reads;
}

/* Word w of random line i (bench.h): a read reads word 0, an update ORs
 * bit i mod 64 into word i mod 8. */
static inline uint64_t random_word(uint64_t i, uint64_t lines, int update)
{
    return random_line(i, lines) * 8 + (update ? i % 8 : 0);
}

/* Read word w of buf, or set bit w mod 64 of it: the touch a ceiling times. */
static inline __attribute__((always_inline)) void touch(uint64_t *buf, uint64_t w, int update, uint64_t *sink)
{
    if (update)
        buf[w] |= 1ULL << (w % 64);
    else
        *sink += buf[w];
}

/* Prefetch word w's line for a touch: into L1 (for writing when an update
 * comes), or into L2 only. */
enum { PREFETCH_NONE, PREFETCH_L1, PREFETCH_L2 };

static inline __attribute__((always_inline)) void prefetch_touch(const uint64_t *buf, uint64_t w, int update, int where)
{
    if (where == PREFETCH_L2)
        __builtin_prefetch(&buf[w], 0, 2); /* prefetcht1 */
    else if (update)
        __builtin_prefetch(&buf[w], 1, 3);
    else
        __builtin_prefetch(&buf[w], 0, 3);
}

/* ns per touch with the addresses given: GIVEN_CHUNK of them computed
 * off the clock, then touched on it (plainly, prefetching READ_BATCH ahead
 * into L1, or 4 READ_BATCH ahead into L2), chunk after chunk -- the memory
 * system's rate with no address arithmetic at all (bench.h). */
static inline __attribute__((always_inline)) double given_touches(uint64_t *buf, uint64_t lines, uint64_t count,
                                                                    uint64_t seed, int update, int prefetch)
{
    const uint64_t ahead = prefetch == PREFETCH_L2 ? 4 * READ_BATCH : READ_BATCH;
    uint64_t sink = 0, where[GIVEN_CHUNK];
    double seconds = 0;
    for (uint64_t done = 0; done < count; done += GIVEN_CHUNK) {
        const uint64_t chunk = count - done < GIVEN_CHUNK ? count - done : GIVEN_CHUNK;
        for (uint64_t j = 0; j < chunk; j++)
            where[j] = random_word(done + j + seed, lines, update);
        const double t0 = now_seconds();
        for (uint64_t j = 0; j < chunk; j++) {
            if (prefetch != PREFETCH_NONE && j + ahead < chunk)
                prefetch_touch(buf, where[j + ahead], update, prefetch);
            touch(buf, where[j], update, &sink);
        }
        seconds += now_seconds() - t0;
    }
    __asm__ volatile("" : : "r"(sink));
    return 1e9 * seconds / (double)count;
}

/* ns per independent random read (update: bit set), `count` of them: in
 * batches of READ_BATCH all prefetched first, a stream prefetching
 * READ_BATCH ahead, or with the addresses given, plainly and prefetched
 * into L1 or L2; the fastest.  Inlined, so that
 * each caller's constant `update` leaves no branch in the timed loops. */
static inline __attribute__((always_inline)) double independent_touches(uint64_t *buf, uint64_t lines, uint64_t count,
                                                                          uint64_t seed, int update)
{
    uint64_t sink = 0, batches = (count + READ_BATCH - 1) / READ_BATCH;
    double t0 = now_seconds();
    for (uint64_t b = 0; b < batches; b++) {
        uint64_t where[READ_BATCH];
        for (unsigned j = 0; j < READ_BATCH; j++) {
            where[j] = random_word(b * READ_BATCH + j + seed, lines, update);
            prefetch_touch(buf, where[j], update, PREFETCH_L1);
        }
        for (unsigned j = 0; j < READ_BATCH; j++)
            touch(buf, where[j], update, &sink);
    }
    double t1 = now_seconds();
    double best = 1e9 * (t1 - t0) / (double)(batches * READ_BATCH);
    uint64_t ring[READ_BATCH]; /* the stream's next READ_BATCH words, each computed once */
    for (unsigned j = 0; j < READ_BATCH; j++)
        ring[j] = random_word(j + seed, lines, update);
    t0 = now_seconds();
    for (uint64_t i = 0; i < count; i++) {
        const uint64_t w = ring[i % READ_BATCH], ahead = random_word(i + READ_BATCH + seed, lines, update);
        ring[i % READ_BATCH] = ahead;
        prefetch_touch(buf, ahead, update, PREFETCH_L1);
        touch(buf, w, update, &sink);
    }
    t1 = now_seconds();
    double streamed = 1e9 * (t1 - t0) / (double)count;
    best = streamed < best ? streamed : best;
    for (int prefetch = PREFETCH_NONE; prefetch <= PREFETCH_L2; prefetch++) {
        double given = given_touches(buf, lines, count, seed, update, prefetch);
        best = given < best ? given : best;
    }
    __asm__ volatile("" : : "r"(sink));
    return best;
}

static int measure_ceiling(uint64_t bytes, uint64_t reads, uint64_t seed, ceiling *out)
{
    uint64_t lines = bytes / LINE_BYTES;
    uint64_t *buf = line_buffer(lines * LINE_BYTES);
    if (buf == NULL)
        return -1;
    memset(buf, 0, lines * LINE_BYTES);
    sattolo_cycle(buf, lines, seed);
    double dependent[PASSES], independent[PASSES], update[PASSES];
    for (unsigned p = 0; p < PASSES; p++)
        dependent[p] = dependent_reads(buf, lines, reads);
    for (unsigned p = 0; p < PASSES; p++)
        independent[p] = independent_touches(buf, lines, reads, seed, 0);
    for (unsigned p = 0; p < PASSES; p++) /* last: updates spoil the cycle */
        update[p] = independent_touches(buf, lines, reads, seed, 1);
    out->ns_dependent = stats_median(dependent, PASSES);
    out->ns_independent = stats_median(independent, PASSES);
    out->ns_update = stats_median(update, PASSES);
    free(buf);
    return 0;
}

/* ---- timing a filter ------------------------------------------------------ */

typedef struct {
    layout_kind layout;
    scheme_kind scheme;
    const hasher *hash; /* NULL for ideal */
    const keyset *keys;
    uint64_t m, n;
    unsigned k;
    uint64_t ops;
    uint64_t seed;
    const counter_pair *counters; /* the run's cycles and instructions, or NULL (none: the figures NAN) */
} bench_cell;

/* An operation a figure times. */
enum { OP_INSERT, OP_ABSENT, OP_PRESENT, OP_COUNT };

/* Cycles and instructions an operation, the mean over the timed passes
 * (counters.h); NAN where the run has no counters. */
typedef struct {
    double cycles, instructions;
} op_counts;

typedef struct {
    double ns_insert, ns_absent, ns_present, fill;
    op_counts counted[OP_COUNT];
    double ns_absent_sweep; /* query_many over SWEEP_QUERY_BATCHES batches at a time, as sweep.c calls it */
    double absent_yes; /* fraction of absent keys answered "present": the FPR */
    int present_missing;
} bench_timing;

/* Make the batches for keys [first, first + want) of one side (want <= CHUNK * KEY_BATCH). */
static size_t make_chunk(const bench_cell *c, key_side side, uint64_t first, uint64_t want, key_batch *chunk)
{
    size_t b = 0;
    for (uint64_t done = 0; done < want; b++) {
        size_t count = want - done < KEY_BATCH ? (size_t)(want - done) : KEY_BATCH;
        keyset_fill(c->keys, c->seed, c->n, side, first + done, count, &chunk[b]);
        done += count;
    }
    return b;
}

/* The calls a timing makes: bloomlab's batch loops over a chunk of
 * batches (the layout's insert_many / query_many, as the experiments call
 * them), or the library's one-key calls (bloomlab_add, bloomlab_contains:
 * a key a call, the path a library user takes), each a pair of functions
 * over the same filter. */
typedef struct timed timed;
struct timed {
    int (*clear)(timed *t); /* the filter empty again: 0, or -1 (no memory) */
    void (*insert)(timed *t, const key_batch *chunk, size_t batches, int last); /* last: the fill's last chunk */
    uint64_t (*query)(const timed *t, const key_batch *chunk, size_t batches, int as_sweep); /* "present" answers */
    /* the batch loops' */
    filter f;
    filter_ops ops;
    scheme_ctx ctx;
    /* the library's */
    bloomlab_filter *library;
    const char *layout;
    uint64_t m;
    unsigned k;
};

static int loops_clear(timed *t)
{
    filter_clear(&t->f);
    return 0;
}

static void loops_insert(timed *t, const key_batch *chunk, size_t batches, int last)
{
    t->ops.insert_many(&t->f, &t->ctx, chunk, batches);
    if (last)
        filter_flush(&t->f); /* staged inserts (filters.h) count in the time */
}

static uint64_t loops_query(const timed *t, const key_batch *chunk, size_t batches, int as_sweep)
{
    if (!as_sweep)
        return t->ops.query_many(&t->f, &t->ctx, chunk, batches, NULL);
    uint64_t yes = 0;
    for (size_t b = 0; b < batches; b += SWEEP_QUERY_BATCHES)
        yes += t->ops.query_many(&t->f, &t->ctx, &chunk[b], batches - b < SWEEP_QUERY_BATCHES ? batches - b : SWEEP_QUERY_BATCHES, NULL);
    return yes;
}

/* The library has no clear: a fresh filter (off the clock). */
static int library_clear(timed *t)
{
    bloomlab_free(t->library);
    t->library = bloomlab_create_mk(t->layout, t->m, t->k, NULL, 0);
    return t->library != NULL ? 0 : -1;
}

static void library_insert(timed *t, const key_batch *chunk, size_t batches, int last)
{
    (void)last; /* every bloomlab_add leaves its filter ready to be asked */
    for (size_t b = 0; b < batches; b++)
        for (size_t j = 0; j < chunk[b].count; j++)
            bloomlab_add(t->library, chunk[b].ptr[j], chunk[b].len[j]);
}

static uint64_t library_query(const timed *t, const key_batch *chunk, size_t batches, int as_sweep)
{
    (void)as_sweep;
    uint64_t yes = 0;
    for (size_t b = 0; b < batches; b++)
        for (size_t j = 0; j < chunk[b].count; j++)
            yes += (uint64_t)bloomlab_contains(t->library, chunk[b].ptr[j], chunk[b].len[j]);
    return yes;
}

/* What timed regions cost together: wall time, and the counters' cycles
 * and instructions (NAN once a region had none: no counters, or a read
 * refused). */
typedef struct {
    double seconds, cycles, instructions;
} cost;

typedef struct {
    double t0;
    counter_counts at;
    int counted;
} span;

/* The counters read, then the clock: each read's own work stays outside
 * the time. */
static span span_begin(const bench_cell *c)
{
    span s = {0, {0, 0}, 0};
    s.counted = c->counters != NULL && counter_pair_read(c->counters, &s.at) == 0;
    s.t0 = now_seconds();
    return s;
}

static void span_end(const bench_cell *c, const span *s, cost *total)
{
    total->seconds += now_seconds() - s->t0;
    counter_counts now;
    if (!s->counted || counter_pair_read(c->counters, &now) != 0) {
        total->cycles = total->instructions = NAN;
        return;
    }
    total->cycles += now.first - s->at.first;
    total->instructions += now.second - s->at.second;
}

static void cost_add(cost *total, const cost *part)
{
    total->seconds += part->seconds;
    total->cycles += part->cycles;
    total->instructions += part->instructions;
}

/* A cost's counts per operation. */
static op_counts per_op(const cost *total, double ops)
{
    return (op_counts){total->cycles / ops, total->instructions / ops};
}

/* ns per insert: the median over fills of the empty filter with its n
 * keys -- as many fills as --ops inserts take, and PASSES at least when a
 * fill is no more than --ops keys.  NAN when a fresh filter cannot be made. */
static double time_inserts(const bench_cell *c, timed *t, key_batch *chunk, op_counts *counted)
{
    uint64_t fills = c->n >= c->ops ? 1 : (c->ops + c->n - 1) / c->n;
    if (c->n <= c->ops && fills < PASSES)
        fills = PASSES;
    double *ns = malloc(fills * sizeof *ns);
    if (ns == NULL)
        return NAN;
    cost all = {0, 0, 0};
    for (uint64_t r = 0; r < fills; r++) {
        cost fill = {0, 0, 0};
        if (t->clear(t) != 0) {
            free(ns);
            return NAN;
        }
        for (uint64_t first = 0; first < c->n;) {
            uint64_t want = c->n - first < CHUNK * KEY_BATCH ? c->n - first : CHUNK * KEY_BATCH;
            size_t batches = make_chunk(c, KEY_PRESENT, first, want, chunk);
            const span s = span_begin(c);
            t->insert(t, chunk, batches, first + want == c->n);
            span_end(c, &s, &fill);
            first += want;
        }
        ns[r] = 1e9 * fill.seconds / (double)c->n;
        cost_add(&all, &fill);
    }
    *counted = per_op(&all, (double)fills * (double)c->n);
    double median = stats_median(ns, fills);
    free(ns);
    return median;
}

/* ns per query over c->ops keys of one side (present keys cycle through the
 * n inserted), over a whole chunk at a time, or as the sweep calls the
 * batch loops (as_sweep: SWEEP_QUERY_BATCHES batches at a time). */
static double time_query_pass(const bench_cell *c, const timed *t, key_side side, key_batch *chunk, int as_sweep,
                              uint64_t *yes_out, cost *total)
{
    cost pass = {0, 0, 0};
    uint64_t yes = 0, asked = 0;
    while (asked < c->ops) {
        uint64_t first = side == KEY_PRESENT ? asked % c->n : asked;
        uint64_t room = side == KEY_PRESENT ? c->n - first : UINT64_MAX;
        uint64_t want = c->ops - asked;
        if (want > CHUNK * KEY_BATCH)
            want = CHUNK * KEY_BATCH;
        if (want > room)
            want = room;
        size_t batches = make_chunk(c, side, first, want, chunk);
        const span s = span_begin(c);
        yes += t->query(t, chunk, batches, as_sweep);
        span_end(c, &s, &pass);
        asked += want;
    }
    *yes_out = yes;
    cost_add(total, &pass);
    return 1e9 * pass.seconds / (double)asked;
}

/* The median of `passes` passes of time_query_pass; *yes_out is the
 * "present" count of one pass (every pass asks the same keys), *counted
 * the passes' mean counts a query (each pass asks c->ops keys). */
static double time_queries(const bench_cell *c, const timed *t, key_side side, key_batch *chunk, int as_sweep,
                           unsigned passes, uint64_t *yes_out, op_counts *counted)
{
    double ns[PASSES];
    cost all = {0, 0, 0};
    for (unsigned p = 0; p < passes; p++)
        ns[p] = time_query_pass(c, t, side, chunk, as_sweep, yes_out, &all);
    *counted = per_op(&all, (double)passes * (double)c->ops);
    return stats_median(ns, passes);
}

/* A filter's n keys inserted, then absent and present keys asked (after
 * an untimed warm-up: bench.h); as the sweep calls them too where `sweep`.
 * 0, or -1 out of memory. */
static int time_calls(const bench_cell *c, timed *t, int sweep, bench_timing *out)
{
    key_batch *chunk = malloc(CHUNK * sizeof *chunk);
    if (chunk == NULL)
        return -1;
    out->ns_insert = time_inserts(c, t, chunk, &out->counted[OP_INSERT]);
    uint64_t yes;
    op_counts unused;
    bench_cell warm = *c; /* untimed: see bench.h */
    warm.ops = c->ops < WARM_UP_QUERIES ? c->ops : WARM_UP_QUERIES;
    time_queries(&warm, t, KEY_ABSENT, chunk, 0, 1, &yes, &unused);
    out->ns_absent = time_queries(c, t, KEY_ABSENT, chunk, 0, PASSES, &yes, &out->counted[OP_ABSENT]);
    out->absent_yes = (double)yes / (double)c->ops;
    out->ns_absent_sweep = sweep ? time_queries(c, t, KEY_ABSENT, chunk, 1, PASSES, &yes, &unused) : NAN;
    out->ns_present = time_queries(c, t, KEY_PRESENT, chunk, 0, PASSES, &yes, &out->counted[OP_PRESENT]);
    out->present_missing = yes != c->ops;
    free(chunk);
    return isnan(out->ns_insert) ? -1 : 0;
}

static int time_filter(const bench_cell *c, bench_timing *out)
{
    timed t = {.clear = loops_clear, .insert = loops_insert, .query = loops_query};
    if (filter_init(&t.f, c->layout, c->m, c->k) != 0)
        return -1;
    t.ops = filter_ops_for(c->layout, c->scheme);
    t.ctx = (scheme_ctx){c->hash, c->seed, log2_floor(c->m)};
    int rc = time_calls(c, &t, 1, out);
    out->fill = (double)filter_bits_set(&t.f) / (double)c->m;
    filter_free(&t.f);
    return rc;
}

/* The same through the library's one-key calls: a filter of c's layout,
 * m and k made by bloomlab_create_mk, which hashes with xxh3_64 and the
 * layout's default scheme (the caller's cell says so). */
static int time_library_one_key(const bench_cell *c, bench_timing *out)
{
    timed t = {.clear = library_clear, .insert = library_insert, .query = library_query,
               .layout = layout_name(c->layout), .m = c->m, .k = c->k};
    int rc = time_calls(c, &t, 0, out);
    out->fill = NAN;
    bloomlab_free(t.library);
    return rc;
}

/* What a sweep pays per absent query: keyset_fill inside the clock. */
static double time_harness_queries(const bench_cell *c, const filter *f, const filter_ops *ops,
                                   const scheme_ctx *ctx)
{
    const uint64_t chunk_keys = SWEEP_QUERY_BATCHES * KEY_BATCH;
    uint64_t yes = 0;
    double ns[PASSES];
    for (unsigned p = 0; p < PASSES; p++) {
        double t0 = now_seconds();
        for (uint64_t i = 0; i < c->ops; i += chunk_keys)
            yes += sweep_query_chunk(f, ops, ctx, c->keys, c->seed, c->n, KEY_ABSENT, i,
                                     c->ops - i < chunk_keys ? c->ops : i + chunk_keys);
        ns[p] = 1e9 * (now_seconds() - t0) / (double)c->ops;
    }
    __asm__ volatile("" : : "r"(yes));
    return stats_median(ns, PASSES);
}

/* ---- options -------------------------------------------------------------- */

typedef struct {
    uint64_t min_bytes, max_bytes, ops, seed;
    int layouts[LAYOUT_COUNT];
    const char *keys[4];
    size_t key_count;
    int layouts_given; /* a --filter named a layout: the others are off */
    filter_plugin plugins[MAX_PLUGINS]; /* --filter plugin:PATH.so, in order */
    size_t plugin_count;
    uint64_t peers_n; /* --peers N: the peers kit's configurations at n = N; 0: not asked */
    const char *peers_hash; /* --hash: the peers' configurations' hash (default xxh3_64) */
    int quiet;
    const char *output;   /* -o: NULL or "-" is stdout */
    table_format format;  /* text: the table only; csv, json: the rows, to -o or stdout */
} bench_options;

static const char USAGE[] =
    "usage: bloomlab bench [--max-bytes B] [--min-bytes B] [--filter LIST]... [--keys LIST]\n"
    "                      [--ops N] [--seed S] [--peers N [--hash H]] [-o FILE|-]\n"
    "                      [--format text|csv|json] [--quiet]\n"
    "\n"
    "Speed of every filter layout against its size (xxh3_64 + the layout's default\n"
    "scheme, 10 bits per key, k = 7; splitblock k = 8), beside the machine's own ceiling measured\n"
    "at the same sizes: dependent (pointer-chasing) and independent (overlapped)\n"
    "random cache-line reads and random bit sets.  Keys are made outside the\n"
    "clock; each figure is the median of 5 timed passes (src/commands/bench.h).  Prints a\n"
    "table; -o writes the same as CSV.  Single-threaded: rates are per core.\n"
    "\n"
    "  --min-bytes B   smallest filter (default 16K); sizes go up by 4x\n"
    "  --max-bytes B   largest filter (default 256M; 2G for the full range)\n"
    "  --filter LIST   layouts (default all: standard,counting,partitioned,\n"
    "                  blocked512,register64,splitblock) and filter plugins\n"
    "                  (plugin:PATH.so, bloomlab/filter.h); repeatable, the\n"
    "                  lists add up (layouts stay all when none is named).\n"
    "                  At each size and key set a plugin is timed beside\n"
    "                  bloomlab's standard layout of that size, interleaved,\n"
    "                  the least of 3 rounds, both at the standard's m and\n"
    "                  k, or, when the plugin's create refuses them, both\n"
    "                  at the plugin's own choice (its choose) at that size\n"
    "                  (the table says which, the rows' m and k); rows of\n"
    "                  section plugin, the plugin's name in column system.\n"
    "                  Not pinned: taskset -c N bloomlab bench ... pins it\n"
    "  --keys LIST     random64 and/or urls (default both)\n"
    "  --ops N         timed operations per pass (default 1e6)\n"
    "  --seed S        (default 1)\n"
    "  --peers N       the peers kit's configurations (../shared/peers: make\n"
    "                  bench-peers) at n = N keys: standard at 10 bits per key,\n"
    "                  k = 7; splitblock at 10.67 and 10 bits per key, k = 8;\n"
    "                  each beside the floor (lines touched x ceiling); with\n"
    "                  xxh3_64 each also through the library's one-key calls\n"
    "                  (bloomlab_add, bloomlab_contains: system bloomlab-one-key)\n"
    "  --hash H        with --peers: the configurations' hash (default xxh3_64;\n"
    "                  mulx64 is Boost.Bloom's own mix of a 64-bit key, for a\n"
    "                  comparison hash for hash)\n"
    "  -o FILE         CSV output (the table still goes to stdout); -o - puts the\n"
    "                  CSV on stdout and the table on stderr\n"
    "  --format F      text (the table, the default without -o), csv (the default\n"
    "                  with -o) or json (README.md \"Formats\"): csv and json go to\n"
    "                  -o FILE or stdout, the table then to stderr\n"
    "  --quiet         no table, no progress\n"
    "bloomlab list columns says what each CSV column holds.\n"
    "\n"
    "Byte counts take K, M, G (binary) suffixes: 16K, 256M, 2G.\n"
    "\n"
    "On a CPU with AVX2 every layout runs the vector loops of src/filter/avx2.c\n"
    "with double hashing (counting and partitioned queries in cache only,\n"
    "standard ones in phases beyond the one pass as well); with AVX-512\n"
    "the eight-lane loops of src/filter/avx512.c (standard, counting and partitioned\n"
    "queries in phases once the filter outgrows L2);\n"
    "BLOOMLAB_ISA=portable (or avx2, avx512) in the environment caps the\n"
    "vector level, e.g. to time the portable loops on the same machine.\n"
    "Past L2 each filter's first calls time the split block's fetch shapes\n"
    "(and a standard filter's fetch plans) and keep the fastest;\n"
    "BLOOMLAB_FETCH_SHAPE=none|at-hash|from-ring|far-one-step|far-two-steps|far-l2|late-l2\n"
    "forces one split block shape, to time it alone.\n"
    "The CSV's '# loops:' line and the table's first line say which ran.\n"
    "Where the machine exposes them (perf_event_open), each filter and peers\n"
    "figure also has the CPU's cycles and instructions an operation, user space,\n"
    "the mean over its timed passes (columns cycles_*, instructions_*); the\n"
    "'# counters:' line says so, or why they are blank (many guests have no PMU).\n";

/* One --filter's list: its layouts join those of earlier ones (the first
 * turns the default, all, off), its plugins are loaded and checked now. */
static int parse_filters(const char *text, bench_options *o)
{
    char buf[4096];
    if (strlen(text) >= sizeof buf) {
        cli_error(CMD, "--filter: the list is longer than %zu bytes", sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", text);
    int any = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        if (filter_plugin_named(tok)) {
            char err[1200];
            if (o->plugin_count == MAX_PLUGINS) {
                cli_error(CMD, "--filter: at most %d plugins", MAX_PLUGINS);
                return -1;
            }
            if (filter_plugin_resolve(tok, &o->plugins[o->plugin_count], err, sizeof err) != 0) {
                cli_error(CMD, "--filter: %s", err);
                return -1;
            }
            o->plugin_count++;
            any = 1;
            continue;
        }
        layout_kind l;
        if (layout_from_name(tok, &l) != 0) {
            cli_error(CMD, "--filter: unknown filter '%s' (standard, counting, partitioned, blocked512, register64, splitblock, plugin:PATH.so)", tok);
            return -1;
        }
        if (!o->layouts_given)
            memset(o->layouts, 0, sizeof o->layouts);
        o->layouts_given = 1;
        o->layouts[l] = 1;
        any = 1;
    }
    if (!any) {
        cli_error(CMD, "--filter: '%s' names no filter", text);
        return -1;
    }
    return 0;
}

static int parse_keys(char *text, bench_options *o)
{
    o->key_count = 0;
    for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "random64") != 0 && strcmp(tok, "urls") != 0) {
            cli_error(CMD, "--keys: '%s' is not random64 or urls", tok);
            return -1;
        }
        if (o->key_count == 2) {
            cli_error(CMD, "--keys: at most random64 and urls");
            return -1;
        }
        o->keys[o->key_count++] = tok;
    }
    if (o->key_count == 0) {
        cli_error(CMD, "--keys: '%s' names no key set", text);
        return -1;
    }
    return 0;
}

static int parse_bytes_flag(const char *flag, const char *v, uint64_t *out)
{
    if (bench_parse_bytes(v, out) != 0 || *out < 4096) {
        cli_error(CMD, "%s: '%s' is not a byte count of at least 4K (e.g. 16K, 256M, 2G)", flag, v);
        return -1;
    }
    return 0;
}

/* The rows go to -o (csv unless --format says json) or, with --format csv
 * or json, to stdout; the table (text) goes to stdout alone.  Checked
 * before anything is timed: a bad -o is refused, never found at the end. */
static int check_output(bench_options *o, int format_given)
{
    if (!format_given)
        o->format = o->output != NULL ? FORMAT_CSV : FORMAT_TEXT;
    if (o->format == FORMAT_TEXT && o->output != NULL) {
        cli_error(CMD, "--format text is the table printed as bench runs: -o takes csv or json");
        return -1;
    }
    char why[1024];
    if (o->output != NULL && output_check(o->output, why, sizeof why) != 0) {
        cli_error(CMD, "-o: %s", why);
        return -1;
    }
    return 0;
}

/* 0 to run, 1 after --help, -1 on bad input (reported). */
static int parse_options(int argc, char **argv, bench_options *o, char *keys_text, size_t keys_size)
{
    memset(o, 0, sizeof *o);
    o->min_bytes = DEFAULT_MIN_BYTES;
    o->max_bytes = DEFAULT_MAX_BYTES;
    o->ops = DEFAULT_OPS;
    o->seed = 1;
    for (int l = 0; l < LAYOUT_COUNT; l++)
        o->layouts[l] = 1;
    snprintf(keys_text, keys_size, "random64,urls");
    int keys_given = 0, format_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
#define IS(name) (strcmp(a, name) == 0 || (strncmp(a, name "=", strlen(name) + 1) == 0))
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(USAGE, stdout);
            return 1;
        } else if (IS("--max-bytes")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--max-bytes")) == NULL || parse_bytes_flag("--max-bytes", v, &o->max_bytes))
                return -1;
        } else if (IS("--min-bytes")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--min-bytes")) == NULL || parse_bytes_flag("--min-bytes", v, &o->min_bytes))
                return -1;
        } else if (IS("--ops")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--ops")) == NULL || cli_u64(v, 1000, 1ULL << 40, CMD, "--ops", &o->ops))
                return -1;
        } else if (IS("--seed")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--seed")) == NULL || cli_u64(v, 0, UINT64_MAX, CMD, "--seed", &o->seed))
                return -1;
        } else if (IS("--filter")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--filter")) == NULL || parse_filters(v, o))
                return -1;
        } else if (IS("--keys")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--keys")) == NULL)
                return -1;
            snprintf(keys_text, keys_size, "%s", v);
            keys_given = 1;
        } else if (IS("-o") || IS("--output")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, a[1] == 'o' ? "-o" : "--output")) == NULL)
                return -1;
            o->output = v;
        } else if (IS("--format")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--format")) == NULL || table_format_flag(CMD, v, &o->format))
                return -1;
            format_given = 1;
        } else if (IS("--peers")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--peers")) == NULL ||
                cli_u64(v, 1000, 1ULL << 36, CMD, "--peers", &o->peers_n))
                return -1;
        } else if (IS("--hash")) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--hash")) == NULL)
                return -1;
            o->peers_hash = v;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else {
            cli_error(CMD, "unknown option '%s' (bloomlab bench --help)", a);
            return -1;
        }
#undef IS
    }
    (void)keys_given;
    if (parse_keys(keys_text, o) != 0 || check_output(o, format_given) != 0)
        return -1;
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if ((double)o->max_bytes > 0.8 * ram) {
        cli_error(CMD, "--max-bytes: %llu bytes is more than 80%% of this machine's %.3g GB of memory",
                  (unsigned long long)o->max_bytes, ram / 1e9);
        return -1;
    }
    if (o->peers_n != 0 && o->plugin_count != 0) {
        cli_error(CMD, "--peers times the peers kit's configurations alone: a filter plugin is timed at the sizes (without --peers)");
        return -1;
    }
    if (o->peers_hash != NULL && o->peers_n == 0) {
        cli_error(CMD, "--hash goes with --peers (the sizes' rows are xxh3_64's)");
        return -1;
    }
    if (o->min_bytes > o->max_bytes) {
        cli_error(CMD, "--min-bytes (%llu) is larger than --max-bytes (%llu)", (unsigned long long)o->min_bytes,
                  (unsigned long long)o->max_bytes);
        return -1;
    }
    return 0;
}

/* ---- output --------------------------------------------------------------- */

#define BENCH_FIELD 32
#define BENCH_DIGITS 6

typedef struct {
    const char *section, *filter, *hash, *scheme, *keys, *system;
    uint64_t bytes, m, n;
    unsigned k;
    double v[24]; /* bits_per_item .. fraction_present, then ns_update, fraction_insert; after system the
                     counts: cycles_*, instructions_* (V_*) */
} row;

enum {
    V_BPI, V_FILL, V_FPR, V_NS_INSERT, V_NS_ABSENT, V_NS_PRESENT, V_NS_ABSENT_SWEEP, V_MOPS_INSERT, V_MOPS_ABSENT, V_MOPS_PRESENT,
    V_NS_DEP, V_NS_INDEP, V_LINES_ABSENT, V_LINES_PRESENT, V_FRAC_ABSENT, V_FRAC_PRESENT,
    V_NS_UPDATE, V_FRAC_INSERT, V_AFTER_SYSTEM,
    V_CYCLES = V_AFTER_SYSTEM,         /* + OP_*: cycles_insert, cycles_absent, cycles_present */
    V_INSTRUCTIONS = V_CYCLES + OP_COUNT, /* + OP_* */
    V_COUNT = V_INSTRUCTIONS + OP_COUNT
};

_Static_assert(sizeof(((row *)0)->v) / sizeof(double) == V_COUNT, "row values match the header");

static void row_blank(row *r, const char *section)
{
    memset(r, 0, sizeof *r);
    r->section = section;
    r->filter = r->hash = r->scheme = r->keys = "";
    r->system = "bloomlab";
    for (size_t i = 0; i < sizeof r->v / sizeof r->v[0]; i++)
        r->v[i] = NAN;
}

/* The row's fields in BENCH_HEADER's order ("" where a value does not
 * exist), peak_rss_bytes as of now. */
static void row_fields(const row *r, char field[BENCH_COLUMNS][BENCH_FIELD], const char *fields[BENCH_COLUMNS])
{
    const char *text[5] = {r->section, r->filter, r->hash, r->scheme, r->keys};
    const uint64_t size[4] = {r->bytes, r->m, r->n, r->k};
    int c = 0;
    for (int i = 0; i < 5; i++)
        fields[c++] = text[i];
    for (int i = 0; i < 4; i++, c++) {
        field[c][0] = '\0';
        if (r->bytes) /* a row of no size (none today) leaves all four blank */
            snprintf(field[c], BENCH_FIELD, "%llu", (unsigned long long)size[i]);
        fields[c] = field[c];
    }
    for (int i = V_BPI; i < V_COUNT; i++, c++) {
        if (i == V_NS_UPDATE) { /* peak_rss_bytes sits among the values */
            snprintf(field[c], BENCH_FIELD, "%llu", (unsigned long long)peak_rss_bytes());
            fields[c] = field[c];
            c++;
        }
        if (i == V_AFTER_SYSTEM) /* and system before the counts (schema.c) */
            fields[c++] = r->system;
        table_real(field[c], BENCH_FIELD, r->v[i], BENCH_DIGITS);
        fields[c] = field[c];
    }
}

static void human_bytes(uint64_t bytes, char *out, size_t size)
{
    if (bytes >= (1ULL << 30) && bytes % (1ULL << 30) == 0)
        snprintf(out, size, "%lluG", (unsigned long long)(bytes >> 30));
    else if (bytes >= (1ULL << 20) && bytes % (1ULL << 20) == 0)
        snprintf(out, size, "%lluM", (unsigned long long)(bytes >> 20));
    else if (bytes >= (1ULL << 10) && bytes % (1ULL << 10) == 0)
        snprintf(out, size, "%lluK", (unsigned long long)(bytes >> 10));
    else
        snprintf(out, size, "%llu", (unsigned long long)bytes);
}

/* ---- the runs ------------------------------------------------------------- */

typedef struct {
    const bench_options *o;
    const hasher *hash;
    strbuf meta; /* the CSV's leading `#` lines */
    table rows;  /* BENCH_TABLE_COLUMNS */
    FILE *notes; /* the table as it runs: stdout, or stderr when stdout carries the rows */
    int failed;  /* out of memory for a row */
    const counter_pair *counters; /* cycles and instructions (counters.h), or NULL where the machine gave none */
} bench_run;

static void row_add(bench_run *b, const row *r)
{
    char field[BENCH_COLUMNS][BENCH_FIELD];
    const char *fields[BENCH_COLUMNS];
    row_fields(r, field, fields);
    if (table_add_row(&b->rows, fields) != 0)
        b->failed = 1;
}

static void note(const bench_run *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const bench_run *b, const char *fmt, ...)
{
    if (b->o->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(b->notes, fmt, ap);
    va_end(ap);
    fflush(b->notes);
}

/* A timed row's counts an operation, on the table, where there are any. */
static void note_counts(const bench_run *b, const bench_timing *t)
{
    if (b->counters == NULL)
        return;
    const op_counts *c = t->counted;
    note(b, "  cycles %.1f/%.1f/%.1f  instructions %.1f/%.1f/%.1f", c[OP_INSERT].cycles, c[OP_ABSENT].cycles,
         c[OP_PRESENT].cycles, c[OP_INSERT].instructions, c[OP_ABSENT].instructions, c[OP_PRESENT].instructions);
}

/* m and n for a filter of about `bytes` bytes at 10 bits (counters) per key. */
static void size_cell(layout_kind layout, uint64_t bytes, uint64_t *m, uint64_t *n, unsigned *k)
{
    uint64_t bits = bytes * 8;
    *m = bits / layout_cell_bits(layout);
    *m = layout_fit_m(layout, *m);
    *n = (uint64_t)((double)*m / BITS_PER_KEY);
    *k = layout_fixed_k(layout) != 0 ? layout_fixed_k(layout) : K_STANDARD;
}

/* The ceiling at one size: --ops reads, at most four a line, at least 1e5. */
static int ceiling_at(const bench_run *b, uint64_t bytes, ceiling *c)
{
    uint64_t reads = b->o->ops < 4 * (bytes / LINE_BYTES) ? b->o->ops : 4 * (bytes / LINE_BYTES);
    if (reads < 100000)
        reads = 100000;
    if (measure_ceiling(bytes, reads, b->o->seed, c) < 0) {
        cli_error(CMD, "cannot allocate a %llu-byte buffer for the ceiling", (unsigned long long)bytes);
        return -1;
    }
    return 0;
}

static int run_ceiling(bench_run *b, uint64_t bytes, ceiling *c)
{
    if (ceiling_at(b, bytes, c) != 0)
        return -1;
    row r;
    row_blank(&r, "ceiling");
    r.bytes = bytes;
    r.v[V_NS_DEP] = c->ns_dependent;
    r.v[V_NS_INDEP] = c->ns_independent;
    r.v[V_NS_UPDATE] = c->ns_update;
    row_add(b, &r);
    char hb[32];
    human_bytes(bytes, hb, sizeof hb);
    note(b, "%-7s ceiling      dependent %7.2f ns (%6.1f M/s)   independent %6.2f ns (%6.1f M/s)   update %6.2f ns\n", hb,
         c->ns_dependent, 1e3 / c->ns_dependent, c->ns_independent, 1e3 / c->ns_independent, c->ns_update);
    return 0;
}

/* The columns every timed filter row has: its size and its timings. */
static void row_timing(row *r, const bench_cell *cell, const bench_timing *t)
{
    r->bytes = layout_bytes(cell->layout, cell->m);
    r->m = cell->m;
    r->n = cell->n;
    r->k = cell->k;
    r->v[V_BPI] = (double)cell->m / (double)cell->n;
    r->v[V_FILL] = t->fill;
    r->v[V_FPR] = t->absent_yes;
    r->v[V_NS_INSERT] = t->ns_insert;
    r->v[V_NS_ABSENT] = t->ns_absent;
    r->v[V_NS_PRESENT] = t->ns_present;
    r->v[V_NS_ABSENT_SWEEP] = t->ns_absent_sweep;
    r->v[V_MOPS_INSERT] = 1e3 / t->ns_insert;
    r->v[V_MOPS_ABSENT] = 1e3 / t->ns_absent;
    r->v[V_MOPS_PRESENT] = 1e3 / t->ns_present;
    for (int op = 0; op < OP_COUNT; op++) {
        r->v[V_CYCLES + op] = t->counted[op].cycles;
        r->v[V_INSTRUCTIONS + op] = t->counted[op].instructions;
    }
}

/* The lines a query touches and, with a ceiling measured at the filter's
 * size, the fraction of it the queries reach (bench.h). */
static void row_ceiling(row *r, const bench_cell *cell, const bench_timing *t, const ceiling *ceil_at)
{
    double lines = (double)layout_bytes(cell->layout, cell->m) / LINE_BYTES;
    r->v[V_LINES_ABSENT] = bench_lines_absent(cell->layout, cell->k, t->fill, lines);
    r->v[V_LINES_PRESENT] = bench_lines_present(cell->layout, cell->k, lines);
    if (ceil_at != NULL) {
        r->v[V_NS_DEP] = ceil_at->ns_dependent;
        r->v[V_NS_INDEP] = ceil_at->ns_independent;
        r->v[V_FRAC_ABSENT] = r->v[V_LINES_ABSENT] * ceil_at->ns_independent / t->ns_absent;
        r->v[V_FRAC_PRESENT] = r->v[V_LINES_PRESENT] * ceil_at->ns_independent / t->ns_present;
        r->v[V_NS_UPDATE] = ceil_at->ns_update;
        r->v[V_FRAC_INSERT] = r->v[V_LINES_PRESENT] * ceil_at->ns_update / t->ns_insert; /* an insert's lines are a present query's */
    }
}

static int run_filter_cell(bench_run *b, bench_cell *cell, const char *keys_name, uint64_t bytes,
                           const ceiling *ceil_at, const char *section, bench_timing *t_out)
{
    bench_timing t;
    if (time_filter(cell, &t) != 0) {
        cli_error(CMD, "cannot allocate a filter of %llu bytes", (unsigned long long)layout_bytes(cell->layout, cell->m));
        return -1;
    }
    if (t.present_missing) {
        cli_error(CMD, "%s: a present key was answered absent (a bug)", layout_name(cell->layout));
        return -1;
    }
    row r;
    row_blank(&r, section);
    r.filter = layout_name(cell->layout);
    r.hash = cell->hash ? cell->hash->name : "ideal";
    r.scheme = scheme_name(cell->scheme);
    r.keys = keys_name;
    row_timing(&r, cell, &t);
    row_ceiling(&r, cell, &t, ceil_at);
    row_add(b, &r);
    char hb[32];
    human_bytes(bytes, hb, sizeof hb);
    note(b, "%-7s %-11s %-8s insert %6.2f ns  absent %6.2f ns (%6.2f as a sweep)  present %6.2f ns  (%5.1f/%5.1f/%5.1f Mops/s)",
         hb, r.filter, keys_name, t.ns_insert, t.ns_absent, t.ns_absent_sweep, t.ns_present, r.v[V_MOPS_INSERT],
         r.v[V_MOPS_ABSENT], r.v[V_MOPS_PRESENT]);
    if (ceil_at != NULL)
        note(b, "  ceiling %3.0f%%/%3.0f%% (%.2f/%.2f lines), insert %3.0f%%", 100 * r.v[V_FRAC_ABSENT],
             100 * r.v[V_FRAC_PRESENT], r.v[V_LINES_ABSENT], r.v[V_LINES_PRESENT], 100 * r.v[V_FRAC_INSERT]);
    note_counts(b, &t);
    note(b, "\n");
    if (t_out != NULL)
        *t_out = t;
    return 0;
}

/* The row of one filter timed by speed_interleaved. */
static void speed_row(bench_run *b, const speed_result *t, uint64_t n, unsigned k, const char *filter_name,
                      const char *hash, const char *scheme, const char *keys_name, const char *system)
{
    row r;
    row_blank(&r, "plugin");
    r.filter = filter_name;
    r.hash = hash;
    r.scheme = scheme;
    r.keys = keys_name;
    r.system = system;
    r.bytes = t->bytes;
    r.m = t->m;
    r.n = n;
    r.k = k;
    r.v[V_BPI] = (double)t->m / (double)n;
    r.v[V_FILL] = t->fill;
    r.v[V_FPR] = t->fpr;
    r.v[V_NS_INSERT] = t->insert;
    r.v[V_NS_ABSENT] = t->absent;
    r.v[V_NS_PRESENT] = t->present;
    r.v[V_MOPS_INSERT] = 1e3 / t->insert;
    r.v[V_MOPS_ABSENT] = 1e3 / t->absent;
    r.v[V_MOPS_PRESENT] = 1e3 / t->present;
    row_add(b, &r);
}

/* A filter plugin beside bloomlab's standard layout of `bytes`: at the
 * standard's m, n and k, or, when its create refuses them, at the plugin's
 * own choice at that size (filter_plugin_fit); the standard then at the
 * plugin's m and k too.  Both timed interleaved (speed.h), a row each.  0,
 * or -1 after one line. */
static int run_plugin_cell(bench_run *b, const filter_plugin *p, const keyset *ks, const char *keys_name,
                           uint64_t bytes)
{
    bench_cell std = {LAYOUT_STANDARD, SCHEME_DOUBLE, b->hash, ks, 0, 0, 0, b->o->ops, b->o->seed, NULL}; /* sizes only */
    size_cell(LAYOUT_STANDARD, bytes, &std.m, &std.n, &std.k);
    uint64_t m = std.m;
    unsigned k = std.k;
    const plugin_fit fit = filter_plugin_fit(p, std.n, b->o->seed, &m, &k);
    if (fit == PLUGIN_FIT_REFUSED) {
        cli_error(CMD, "filter '%s' ('%s'): its create refused m = %llu, k = %u for n = %llu%s", p->spec, p->api->name,
                  (unsigned long long)m, k, (unsigned long long)std.n,
                  p->api->choose ? ", and its own choice at that size" : ", and it has no choose to pick its own");
        return -1;
    }
    const speed_filter f[2] = {{p, LAYOUT_STANDARD, SCHEME_DOUBLE, NULL, m, k},
                               {NULL, LAYOUT_STANDARD, SCHEME_DOUBLE, b->hash, m, k}};
    speed_result t[2];
    int rc = speed_interleaved(f, std.n, b->o->ops, ks, b->o->seed, PLUGIN_ROUNDS, t);
    if (rc == -2) {
        cli_error(CMD, "filter '%s' ('%s'): its create refused m = %llu, k = %u for n = %llu", p->spec, p->api->name,
                  (unsigned long long)m, k, (unsigned long long)std.n);
        return -1;
    }
    if (rc != 0) {
        cli_error(CMD, "cannot allocate a filter of %llu bytes", (unsigned long long)bytes);
        return -1;
    }
    if (t[1].present_missing != 0) {
        cli_error(CMD, "standard: a present key was answered absent (a bug)");
        return -1;
    }
    speed_row(b, &t[1], std.n, k, "standard", b->hash->name, "double", keys_name, "bloomlab");
    speed_row(b, &t[0], std.n, k, p->spec, "own", "own", keys_name, p->api->name);
    char hb[32], how[120] = "bloomlab's";
    human_bytes(bytes, hb, sizeof hb);
    if (fit == PLUGIN_FIT_CHOSEN)
        snprintf(how, sizeof how, "its own choice at this size: it refused bloomlab's k = %u", std.k);
    note(b, "%-7s %-11s %-8s insert %6.2f ns  absent %6.2f ns  present %6.2f ns  (m = %llu, k = %u, %s; fpr %.4g%s)\n", hb,
         p->api->name, keys_name, t[0].insert, t[0].absent, t[0].present, (unsigned long long)t[0].m, k, how, t[0].fpr,
         t[0].present_missing ? "; present keys answered absent" : "");
    note(b, "%-7s %-11s %-8s insert %6.2f ns  absent %6.2f ns  present %6.2f ns  (m = %llu, k = %u beside it: interleaved, least of %d; fpr %.4g)\n",
         "", "standard", keys_name, t[1].insert, t[1].absent, t[1].present, (unsigned long long)t[1].m, k, PLUGIN_ROUNDS,
         t[1].fpr);
    return 0;
}

static int run_sizes(bench_run *b, keyset *const *keysets)
{
    const bench_options *o = b->o;
    note(b, "bloomlab bench: xxh3_64 + each layout's default scheme (multiply on blocked512 and register64, "
            "double on the others), %.0f bits per key, k = %u (splitblock 8), %llu timed ops per figure\n",
         BITS_PER_KEY, K_STANDARD, (unsigned long long)o->ops);
    for (uint64_t bytes = o->min_bytes;; bytes = bytes * 4 > o->max_bytes && bytes < o->max_bytes ? o->max_bytes : bytes * 4) {
        ceiling c;
        if (run_ceiling(b, bytes, &c) != 0)
            return -1;
        for (size_t ki = 0; ki < o->key_count; ki++)
            for (int l = 0; l < LAYOUT_COUNT; l++) {
                if (!o->layouts[l])
                    continue;
                bench_cell cell = {(layout_kind)l, layout_default_scheme((layout_kind)l), b->hash, keysets[ki], 0, 0, 0,
                                   o->ops, o->seed, b->counters};
                size_cell(cell.layout, bytes, &cell.m, &cell.n, &cell.k);
                if (run_filter_cell(b, &cell, o->keys[ki], bytes, &c, "filter", NULL) != 0)
                    return -1;
            }
        for (size_t ki = 0; ki < o->key_count; ki++)
            for (size_t pi = 0; pi < o->plugin_count; pi++)
                if (run_plugin_cell(b, &o->plugins[pi], keysets[ki], o->keys[ki], bytes) != 0)
                    return -1;
        if (bytes >= o->max_bytes)
            break;
    }
    return 0;
}

/* The harness: what a sweep pays per absent query on a filter of half
 * this machine's L2. */
static int run_harness(bench_run *b, keyset *random64)
{
    const uint64_t harness_bytes = cache_l2_bytes() / 2;
    static const scheme_kind SCHEMES[] = {SCHEME_DOUBLE, SCHEME_IDEAL};
    static const layout_kind LAYOUTS[] = {LAYOUT_STANDARD, LAYOUT_BLOCKED512};
    for (size_t s = 0; s < 2; s++)
        for (size_t l = 0; l < 2; l++) {
            bench_cell cell = {LAYOUTS[l], SCHEMES[s], SCHEMES[s] == SCHEME_IDEAL ? NULL : b->hash, random64, 0, 0, 0,
                               b->o->ops, b->o->seed, NULL};
            size_cell(cell.layout, harness_bytes, &cell.m, &cell.n, &cell.k);
            filter f;
            if (filter_init(&f, cell.layout, cell.m, cell.k) != 0)
                return -1;
            filter_ops ops = filter_ops_for(cell.layout, cell.scheme);
            scheme_ctx ctx = {cell.hash, cell.seed, log2_floor(cell.m)};
            key_batch batch;
            for (uint64_t i = 0; i < cell.n; i += KEY_BATCH) {
                size_t count = cell.n - i < KEY_BATCH ? (size_t)(cell.n - i) : KEY_BATCH;
                keyset_fill(random64, cell.seed, cell.n, KEY_PRESENT, i, count, &batch);
                ops.insert(&f, &ctx, &batch);
            }
            filter_flush(&f);
            double ns = time_harness_queries(&cell, &f, &ops, &ctx);
            filter_free(&f);
            row r;
            row_blank(&r, "harness");
            r.filter = layout_name(cell.layout);
            r.hash = cell.hash ? cell.hash->name : "ideal";
            r.scheme = scheme_name(cell.scheme);
            r.keys = "random64";
            r.bytes = layout_bytes(cell.layout, cell.m);
            r.m = cell.m;
            r.n = cell.n;
            r.k = cell.k;
            r.v[V_BPI] = (double)cell.m / (double)cell.n;
            r.v[V_NS_ABSENT] = ns;
            r.v[V_MOPS_ABSENT] = 1e3 / ns;
            row_add(b, &r);
            char hb[32];
            human_bytes(harness_bytes, hb, sizeof hb);
            note(b, "%-7s harness %-11s %-8s %-7s absent query with keyset_fill: %5.2f ns = %6.1f M queries/s\n", hb,
                 r.filter, r.hash, r.scheme, ns, 1e3 / ns);
        }
    return 0;
}

/* One configuration, the run's hash + double on random64 keys at n items and
 * bits_per_key: timed by `timing` (the batch loops, or the library's
 * one-key calls), beside the ceiling at its size, into a row of the
 * section (the peers').  0, or -1 after one line. */
static int time_config(bench_run *b, keyset *random64, layout_kind layout, double n, double bits_per_key, unsigned k,
                       int (*timing)(const bench_cell *, bench_timing *), const char *section, row *r,
                       bench_timing *t, ceiling *c)
{
    bench_cell cell = {layout, SCHEME_DOUBLE, b->hash, random64, 0, (uint64_t)n, k, b->o->ops, b->o->seed, b->counters};
    cell.m = layout_fit_m(layout, (uint64_t)llround(n * bits_per_key));
    if (timing(&cell, t) != 0) {
        cli_error(CMD, "cannot allocate a filter of %llu bytes", (unsigned long long)layout_bytes(cell.layout, cell.m));
        return -1;
    }
    if (t->present_missing) {
        cli_error(CMD, "%s: a present key was answered absent (a bug)", layout_name(layout));
        return -1;
    }
    if (ceiling_at(b, layout_bytes(cell.layout, cell.m), c) != 0)
        return -1;
    row_blank(r, section);
    r->filter = layout_name(layout);
    r->hash = b->hash->name;
    r->scheme = "double";
    r->keys = "random64";
    row_timing(r, &cell, t);
    row_ceiling(r, &cell, t, c);
    return 0;
}

/* The peers kit's configurations at one n (scripts/bench-peers.sh runs
 * them interleaved with the kit's driver): rows of section "peers", each
 * with the floor's lines and ceiling (row_ceiling).  With xxh3_64 (the
 * library's hash; each configuration's scheme, double, is its layout's
 * default) each configuration also through the library's one-key calls,
 * system "bloomlab-one-key": what a library user's bloomlab_add and
 * bloomlab_contains cost, against the peers' per-key calls. */
static int run_peers(bench_run *b, keyset *random64)
{
    static const struct {
        layout_kind layout;
        double bits_per_key;
        unsigned k;
    } CONFIGS[] = {{LAYOUT_STANDARD, 10, 7}, {LAYOUT_SPLITBLOCK, 256.0 / 24, 8}, {LAYOUT_SPLITBLOCK, 10, 8}};
    static const struct {
        int (*timing)(const bench_cell *, bench_timing *);
        const char *system;
    } PATHS[] = {{time_filter, "bloomlab"}, {time_library_one_key, "bloomlab-one-key"}};
    const uint64_t n = b->o->peers_n;
    const size_t paths = strcmp(b->hash->name, "xxh3_64") == 0 ? 2 : 1;
    note(b, "peers' configurations: %s + double on random64 keys (8 bytes), ns per key\n", b->hash->name);
    for (size_t i = 0; i < sizeof CONFIGS / sizeof CONFIGS[0]; i++)
        for (size_t p = 0; p < paths; p++) {
            bench_timing t;
            ceiling c;
            row r;
            if (time_config(b, random64, CONFIGS[i].layout, (double)n, CONFIGS[i].bits_per_key, CONFIGS[i].k,
                            PATHS[p].timing, "peers", &r, &t, &c) != 0)
                return -1;
            r.system = PATHS[p].system;
            row_add(b, &r);
            note(b, "%-11s n=%-5.0e %5.2f b/key k=%u  insert %6.2f  absent %6.2f  present %6.2f ns;  floors %.2f / %.2f / %.2f  (%s)",
                 r.filter, (double)n, r.v[V_BPI], CONFIGS[i].k, t.ns_insert, t.ns_absent, t.ns_present,
                 r.v[V_LINES_PRESENT] * r.v[V_NS_UPDATE], r.v[V_LINES_ABSENT] * r.v[V_NS_INDEP],
                 r.v[V_LINES_PRESENT] * r.v[V_NS_INDEP], PATHS[p].system);
            note_counts(b, &t);
            note(b, "\n");
        }
    return 0;
}

/* Do the rows (csv or json) go to stdout?  Then the table goes to stderr. */
static int rows_to_stdout(const bench_options *o) { return o->format != FORMAT_TEXT && output_is_stdout(o->output); }

/* The rows, whole, to -o or stdout: CSV after its `#` lines, or JSON (which
 * has no place for them).  0, or -1 after one line. */
static int write_rows(const bench_run *b)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int ok = out != NULL;
    if (ok) {
        if (b->o->format == FORMAT_CSV)
            fputs(b->meta.text, out);
        table_write(out, &b->rows, b->o->format);
        ok = fclose(out) == 0;
    }
    int rc = ok ? output_write_atomic(b->o->output, text, len, CMD) : (cli_error(CMD, "out of memory for the output"), -1);
    free(text);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    bench_options o;
    char keys_text[256];
    int rc = parse_options(argc, argv, &o, keys_text, sizeof keys_text);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    char err[1024];
    hasher hash;
    if (hasher_resolve(o.peers_hash != NULL ? o.peers_hash : "xxh3_64", &hash, err, sizeof err) != 0) {
        cli_error(CMD, "--hash: %s", err);
        return 1;
    }
    keyset *keysets[2] = {NULL, NULL};
    keyset *random64 = keyset_open("random64", err, sizeof err);
    for (size_t i = 0; i < o.key_count; i++)
        keysets[i] = keyset_open(o.keys[i], err, sizeof err);
    bench_run b = {&o, &hash, strbuf_heap(), {0}, rows_to_stdout(&o) ? stderr : stdout, 0, NULL};
    counter_pair counters = {-1, -1};
    table_init(&b.rows, BENCH_TABLE_COLUMNS, BENCH_COLUMNS);
    if (b.meta.cut || random64 == NULL || keysets[0] == NULL || (o.key_count > 1 && keysets[1] == NULL)) {
        cli_error(CMD, "out of memory");
        rc = 1;
        goto done;
    }
    strbuf_argv(&b.meta, "# command: bloomlab", argc, argv);
    char level[160];
    cpu_isa_describe(level, sizeof level);
    strbuf_printf(&b.meta, "\n# version: bloomlab %s (%s)\n# seed: %llu\n# ops: %llu\n# vector level: %s\n# loops: %s\n",
           BLOOMLAB_VERSION, bloomlab_git_rev, (unsigned long long)o.seed, (unsigned long long)o.ops, level,
           filter_ops_description());
    char why[160];
    if (counter_pair_open_cycles_instructions(&counters, why, sizeof why) == 0) {
        b.counters = &counters;
        strbuf_printf(&b.meta, "# counters: cycles and instructions (perf_event_open, user space), a filter's "
                               "and a peers' row's mean an operation over the timed passes\n");
    } else
        strbuf_printf(&b.meta, "# counters: none, the cycles_* and instructions_* columns blank (%s)\n", why);
    for (size_t i = 0; i < o.plugin_count; i++)
        strbuf_printf(&b.meta, "# plugin: %s ('%s'), beside bloomlab's standard layout (xxh3_64, double) of each size, "
                        "interleaved, least of %d rounds, both at the standard's m and k, or at the plugin's own "
                        "choice at that size where its create refuses them (the rows' m and k)\n",
               o.plugins[i].spec, o.plugins[i].api->name, PLUGIN_ROUNDS);
    note(&b, "vector level: %s\nloops: %s\ncounters: %s\n", level, filter_ops_description(),
         b.counters != NULL ? "cycles and instructions an operation (perf_event_open)" : why);
    if (o.plugin_count > 0) { /* a crash in a plugin: one line naming it, status 2 */
        guard_install();
        guard_crash_status(2);
        guard_set("bench (a filter plugin)", NULL, NULL);
    }
    if (o.peers_n != 0)
        rc = run_peers(&b, random64);
    else
        rc = run_harness(&b, random64) || run_sizes(&b, keysets);
    if (o.plugin_count > 0)
        guard_clear();
    note(&b, "peak RSS %.1f MB\n", (double)peak_rss_bytes() / 1e6);
    b.failed |= b.meta.cut; /* never a CSV with part of its `#` lines */
    if (rc == 0 && b.failed)
        cli_error(CMD, "out of memory for the rows");
    if (rc != 0 || b.failed) {
        rc = 1;
        goto done;
    }
    if (o.format != FORMAT_TEXT && write_rows(&b) != 0)
        rc = 1;
done:
    counter_pair_close(&counters);
    strbuf_free(&b.meta);
    table_free(&b.rows);
    keyset_close(random64);
    for (size_t i = 0; i < 2; i++)
        keyset_close(keysets[i]);
    return rc;
}
