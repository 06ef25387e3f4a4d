/* sweep.c -- the runner: cells to trials to rows; see sweep.h. */
#define _GNU_SOURCE
#include "base/clock.h"
#include "harness/sweep.h"

#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "harness/cli.h"
#include "harness/fingerprint.h"
#include "base/guard.h"
#include "harness/output.h"
#include "model/stats.h"
#include "base/text.h"
#include "model/theory.h"
#include "base/version.h"

/* Present keys asked back in an fpr cell, to prove there is no false negative. */
#define PRESENT_CHECK 10000
#define ROW_MAX 2048


static volatile sig_atomic_t interrupted = 0;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
    guard_deadline(); /* a plugin call that hangs never looks at `interrupted` */
}

typedef struct {
    uint64_t false_positives;
    uint64_t bits_set;
    uint64_t present_queries;
    uint64_t false_negatives;
    uint64_t saturations;
    uint64_t bad_deletes;
    uint64_t m_built;       /* the filter's m as built (a plugin may round) */
    uint64_t memory_bytes;  /* a plugin's size_bytes */
    double fpr_conditional; /* F of this trial's filter (ideal scheme), else NaN */
    double seconds_insert;
    double seconds_query;
    int aborted;
    int create_failed;      /* a plugin's create returned NULL */
} trial_result;

/* One thread's filter for a cell's trials, through which a trial inserts
 * and asks: a built-in layout's (made once, cleared for each trial) or a
 * plugin's (made for each trial: its create takes the trial's seed). */
typedef struct {
    filter f;
    void *handle;
} cell_filter;

typedef struct {
    const experiment *e;
    const cell *c;
    const filter_plugin *plugin; /* NULL: the built-in layout, through ops */
    filter_ops ops;
    scheme_ctx ctx;
    const keyset *ks;
    uint64_t seed;
} trial_setup;

/* A text's bytes folded into h. */
static uint64_t mix_text(uint64_t h, const char *text)
{
    for (const char *s = text; *s; s++)
        h = mix64(h ^ (unsigned char)*s);
    return h;
}

/* The seed trials of cell c derive from: the experiment's (paired), or
 * that mixed with every parameter of the cell (independent) -- not its
 * index, so that adding cells leaves the others' keys as they were, but
 * its trials and queries too, so that a cell of 3 trials does not repeat
 * the first 3 of a cell of 10. */
static uint64_t cell_seed(const experiment *e, const cell *c)
{
    if (e->seeds == SEEDS_PAIRED)
        return e->seed;
    uint64_t parts[] = {c->layout, c->scheme, c->m, c->n, c->k, c->trials, c->queries, c->measure, c->deletes};
    uint64_t h = mix64(e->seed ^ 0x63656c6c73656564ULL);
    for (size_t j = 0; j < sizeof parts / sizeof parts[0]; j++)
        h = mix64(h ^ parts[j]);
    if (c->plugin) /* its own cells, apart from the standard layout's */
        h = mix_text(h, cell_filter_name(e, c));
    if (c->plugin && c->expected_n) /* given: part of the cell (absent, the seed is as before) */
        h = mix64(h ^ c->expected_n);
    return mix_text(mix_text(h, cell_hash_name(e, c)), cell_keys_name(e, c));
}

static void setup_trial(const experiment *e, const cell *c, uint64_t trial, trial_setup *t)
{
    t->e = e;
    t->c = c;
    t->plugin = cell_plugin(e, c);
    t->ops = filter_ops_for(c->layout, c->scheme);
    t->seed = seed_derive(cell_seed(e, c), trial);
    t->ctx.hash = c->scheme == SCHEME_IDEAL ? NULL : &e->hashes[c->hash];
    t->ctx.seed = t->seed;
    t->ctx.log2_m = log2_floor(c->m);
    t->ks = e->keysets[c->keys];
}

static uint64_t batch_size(uint64_t first, uint64_t end)
{
    return end - first < KEY_BATCH ? end - first : KEY_BATCH;
}

/* Insert present keys [first, end); 0, or -1 when interrupted. */
static int insert_range(const trial_setup *t, cell_filter *cf, uint64_t first, uint64_t end)
{
    key_batch batch;
    for (uint64_t i = first, round = 0; i < end; i += KEY_BATCH, round++) {
        if ((round & 1023) == 0 && interrupted)
            return -1;
        keyset_fill(t->ks, t->seed, t->c->n, KEY_PRESENT, i, (size_t)batch_size(i, end), &batch);
        if (t->plugin)
            filter_plugin_add(t->plugin, cf->handle, &batch);
        else
            t->ops.insert(&cf->f, &t->ctx, &batch);
    }
    if (!t->plugin)
        filter_flush(&cf->f);
    return 0;
}

static void remove_range(const trial_setup *t, filter *f, uint64_t first, uint64_t end)
{
    key_batch batch;
    for (uint64_t i = first; i < end; i += KEY_BATCH) {
        keyset_fill(t->ks, t->seed, t->c->n, KEY_PRESENT, i, (size_t)batch_size(i, end), &batch);
        t->ops.remove(f, &t->ctx, &batch);
    }
}

uint64_t sweep_query_chunk(const filter *f, const filter_ops *ops, const scheme_ctx *ctx, const keyset *ks,
                           uint64_t seed, uint64_t n, key_side side, uint64_t first, uint64_t end)
{
    key_batch batch[SWEEP_QUERY_BATCHES];
    size_t made;
    keyset_fill_chunk(ks, seed, n, side, first, end, batch, SWEEP_QUERY_BATCHES, &made);
    return ops->query_many(f, ctx, batch, made, NULL);
}

#define QUERY_CHUNK_KEYS ((uint64_t)SWEEP_QUERY_BATCHES * KEY_BATCH)

/* The "probably" answers of chunk c of keys [first, end). */
static uint64_t query_chunk_at(const trial_setup *t, const cell_filter *cf, key_side side, uint64_t first,
                               uint64_t end, uint64_t c)
{
    const uint64_t from = first + c * QUERY_CHUNK_KEYS;
    const uint64_t to = end - from < QUERY_CHUNK_KEYS ? end : from + QUERY_CHUNK_KEYS;
    if (t->plugin) {
        key_batch batch[SWEEP_QUERY_BATCHES];
        size_t made;
        keyset_fill_chunk(t->ks, t->seed, t->c->n, side, from, to, batch, SWEEP_QUERY_BATCHES, &made);
        return filter_plugin_query(t->plugin, cf->handle, batch, made);
    }
    return sweep_query_chunk(&cf->f, &t->ops, &t->ctx, t->ks, t->seed, t->c->n, side, from, to);
}

/* query_range's chunks on the threads of the enclosing omp_set_num_threads
 * (out of line: trials_across says why). */
static __attribute__((noinline)) uint64_t query_range_parallel(const trial_setup *t, const cell_filter *f, key_side side,
                                                               uint64_t first, uint64_t end, uint64_t chunks)
{
    uint64_t yes = 0;
#pragma omp parallel for schedule(static, 32) reduction(+ : yes)
    for (uint64_t c = 0; c < chunks; c++)
        if (!interrupted) /* an OpenMP loop cannot break: skip the rest */
            yes += query_chunk_at(t, f, side, first, end, c);
    return yes;
}

/* Count "probably" answers over keys [first, end) of one side; parallel when asked. */
static uint64_t query_range(const trial_setup *t, const cell_filter *f, key_side side, uint64_t first,
                            uint64_t end, int parallel)
{
    uint64_t yes = 0;
    const uint64_t chunks = (end - first + QUERY_CHUNK_KEYS - 1) / QUERY_CHUNK_KEYS;
    if (parallel)
        return query_range_parallel(t, f, side, first, end, chunks);
    /* No OpenMP call at all on one thread: the runtime starts on its first
     * use, and LLVM's writes a file in /dev/shm as it does (under a
     * file-size limit that start is fatal, before any write of ours). */
    for (uint64_t c = 0; c < chunks && !interrupted; c++)
        yes += query_chunk_at(t, f, side, first, end, c);
    return yes;
}

/* ---- a cell's filter: a built-in layout or a plugin -------------------- */

static int cell_filter_open(const trial_setup *t, cell_filter *cf)
{
    memset(cf, 0, sizeof *cf);
    return t->plugin ? 0 : filter_init(&cf->f, t->c->layout, t->c->m, t->c->k);
}

static void cell_filter_close(const trial_setup *t, cell_filter *cf)
{
    if (!t->plugin)
        filter_free(&cf->f);
    else if (cf->handle != NULL)
        t->plugin->api->destroy(cf->handle);
    cf->handle = NULL;
}

/* An empty filter for the trial: 0, or -1 when a plugin's create gave NULL. */
static int cell_filter_begin(const trial_setup *t, cell_filter *cf)
{
    if (!t->plugin) {
        filter_clear(&cf->f);
        return 0;
    }
    cell_filter_close(t, cf);
    const uint64_t expected_n = t->c->expected_n ? t->c->expected_n : t->c->n; /* experiment.h */
    cf->handle = t->plugin->api->create(t->c->m, t->c->k, expected_n, t->seed);
    return cf->handle != NULL ? 0 : -1;
}

/* What the filter says of itself once filled: m, bits set, memory. */
static void cell_filter_measure(const trial_setup *t, const cell_filter *cf, trial_result *r)
{
    if (!t->plugin) {
        r->m_built = t->c->m;
        r->bits_set = filter_bits_set(&cf->f);
        r->memory_bytes = layout_bytes(t->c->layout, t->c->m);
        r->saturations = cf->f.saturations;
        r->bad_deletes = cf->f.bad_deletes;
        return;
    }
    const bloomlab_filter_api *api = t->plugin->api;
    r->m_built = api->bits ? api->bits(cf->handle) : t->c->m;
    r->bits_set = api->bits_set ? api->bits_set(cf->handle) : 0;
    r->memory_bytes = api->size_bytes(cf->handle);
}

static void run_trial(const experiment *e, const cell *c, uint64_t trial, cell_filter *f, int parallel,
                      trial_result *r)
{
    trial_setup t;
    setup_trial(e, c, trial, &t);
    memset(r, 0, sizeof *r);
    if (cell_filter_begin(&t, f) != 0) {
        r->create_failed = r->aborted = 1;
        return;
    }
    double t0 = now_seconds();
    if (insert_range(&t, f, 0, c->n) != 0) {
        r->aborted = 1;
        return;
    }
    double t1 = now_seconds();
    r->seconds_insert = t1 - t0;
    cell_filter_measure(&t, f, r);
    uint64_t check_from = 0, check_to = c->n < PRESENT_CHECK ? c->n : PRESENT_CHECK;
    if (c->measure == MEASURE_DELETE) { /* built-in layouts only: a plugin cannot delete (experiment.c) */
        remove_range(&t, &f->f, 0, c->deletes);
        check_from = c->deletes;
        check_to = c->n;
    }
    r->fpr_conditional = c->scheme == SCHEME_IDEAL ? filter_fpr_conditional(&f->f) : NAN;
    r->present_queries = check_to - check_from;
    r->false_negatives = r->present_queries - query_range(&t, f, KEY_PRESENT, check_from, check_to, parallel);
    double t2 = now_seconds();
    r->false_positives = query_range(&t, f, KEY_ABSENT, 0, c->queries, parallel);
    r->seconds_query = now_seconds() - t2;
    if (!t.plugin) { /* counted by the deletes, after the fill was measured */
        r->saturations = f->f.saturations;
        r->bad_deletes = f->f.bad_deletes;
    }
    r->aborted = interrupted != 0;
}

/* ---- one cell's row ----------------------------------------------------- */

typedef struct {
    double classic, finite;
    layout_model layout; /* exact NaN where no formula exists */
} cell_theory;

/* A plugin's own rate, when it gives one and it is a rate. */
static double plugin_fpr(const filter_plugin *p, uint64_t m, uint64_t n, unsigned k)
{
    double v = p->api->fpr ? p->api->fpr(m, n, k) : NAN;
    return v >= 0 && v <= 1 ? v : NAN;
}

/* The formulas at m, the filter's m as built.  A plugin's cell is set
 * beside the standard filter's (classic, finite, exact, Var F, fill); its
 * own formula, when it gives one, stands for the exact (fpr_exact, z). */
static cell_theory theory_for(const experiment *e, const cell *c, uint64_t m)
{
    uint64_t n = c->n;
    unsigned k = c->k;
    const filter_plugin *plugin = cell_plugin(e, c);
    if (plugin != NULL) {
        cell_theory t = {theory_fpr_classic(m, n, k), theory_fpr_finite(m, n, k), model_for(LAYOUT_STANDARD, m, n, k)};
        if (plugin->api->fpr != NULL)
            t.layout.exact = plugin_fpr(plugin, m, n, k);
        return t;
    }
    cell_theory t = {theory_fpr_classic(m, n, k), theory_fpr_finite(m, n, k), {NAN, NAN, NAN, NAN, NAN}};
    if (c->measure == MEASURE_DELETE) {
        if (!layout_deletes_exactly(c->layout))
            return t; /* cleared bits: no formula */
        n -= c->deletes; /* a counting filter forgets exactly (saturation aside) */
        t.classic = theory_fpr_classic(m, n, k);
        t.finite = theory_fpr_finite(m, n, k);
    }
    t.layout = model_for(c->layout, m, n, k);
    return t;
}

/* A number, or nothing for a value that does not exist. */
static void sb_real(strbuf *sb, double v)
{
    if (isfinite(v))
        strbuf_printf(sb, ",%.10g", v);
    else
        strbuf_printf(sb, ",");
}

/* The model's columns: E[F] = the exact formula, Var F (theory.c). */
typedef struct {
    double se, z;
    interval ci;
    rate_model model;
} model_columns;

static model_columns model_columns_for(const cell *c, const cell_theory *th, uint64_t fp, double fpr)
{
    model_columns out;
    out.model = (rate_model){th->layout.exact, th->layout.variance, (double)c->queries, (double)c->trials};
    out.se = stats_se_model(&out.model);
    out.z = out.se > 0 ? (fpr - th->layout.exact) / out.se : NAN;
    out.ci = isfinite(out.se) ? stats_wilson_model(fp, &out.model, WILSON_Z95)
                              : stats_wilson(fp, c->queries * c->trials, WILSON_Z95);
    return out;
}

/* Query noise and filter noise apart (ideal scheme): the pooled rate
 * against the mean F of the filters built, whose binomial variance is known
 * exactly, and that mean against E[F], whose variance is Var F / T. */
static void conditional_z(const cell *c, const trial_result *r, double fpr, const cell_theory *th,
                          double *mean_out, double *z_query, double *z_filter)
{
    double sum = 0, binomial = 0, trials = (double)c->trials;
    for (uint64_t t = 0; t < c->trials; t++) {
        sum += r[t].fpr_conditional;
        binomial += r[t].fpr_conditional * (1 - r[t].fpr_conditional);
    }
    double mean = sum / trials;
    double se_query = sqrt(binomial / (double)c->queries) / trials;
    double se_filter = sqrt(th->layout.variance / trials);
    *mean_out = mean;
    *z_query = se_query > 0 ? (fpr - mean) / se_query : NAN;
    *z_filter = se_filter > 0 ? (mean - th->layout.exact) / se_filter : NAN;
}

static void format_row(const experiment *e, const cell *c, size_t index, const trial_result *r, char *out,
                       size_t size)
{
    uint64_t fp = 0, fn = 0, present = 0, saturations = 0, bad = 0;
    double seconds_insert = 0, seconds_query = 0;
    running rate = {0, 0, 0}, fill = {0, 0, 0};
    const filter_plugin *plugin = cell_plugin(e, c);
    const uint64_t m = r[0].m_built;
    const int has_fill = plugin == NULL || plugin->api->bits_set != NULL;
    for (uint64_t t = 0; t < c->trials; t++) {
        fp += r[t].false_positives;
        fn += r[t].false_negatives;
        present += r[t].present_queries;
        saturations += r[t].saturations;
        bad += r[t].bad_deletes;
        seconds_insert += r[t].seconds_insert;
        seconds_query += r[t].seconds_query;
        running_add(&rate, (double)r[t].false_positives / (double)c->queries);
        running_add(&fill, (double)r[t].bits_set / (double)m);
    }
    uint64_t asked = c->queries * c->trials;
    double fpr = (double)fp / (double)asked;
    cell_theory th = theory_for(e, c, m);
    model_columns mc = model_columns_for(c, &th, fp, fpr);
    double se_trials = c->trials >= 2 ? running_se(&rate) : NAN;
    dispersion spread = stats_dispersion(running_sd(&rate) * running_sd(&rate), stats_trial_variance(&mc.model),
                                         c->trials);
    double conditional = NAN, z_query = NAN, z_filter = NAN;
    if (c->scheme == SCHEME_IDEAL && isfinite(th.layout.exact))
        conditional_z(c, r, fpr, &th, &conditional, &z_query, &z_filter);
    double bits_per_item = c->n > 0 ? (double)m / (double)c->n : NAN;
    double inserts = (double)c->n * (double)c->trials;

    char name[2 * EXPERIMENT_NAME_MAX + 3], hash[2 * HASH_NAME_MAX + 3], keys[2 * 512 + 3],
        filter_name[2 * FILTER_PLUGIN_SPEC_MAX + 3];
    csv_field(e->name, name, sizeof name);
    csv_field(cell_filter_name(e, c), filter_name, sizeof filter_name);
    csv_field(cell_hash_name(e, c), hash, sizeof hash);
    csv_field(cell_keys_name(e, c), keys, sizeof keys);
    strbuf sb = strbuf_on(out, size);
    strbuf_printf(&sb, "%s,%s,%s,%s,%s,%llu,%llu,%u", name, filter_name, hash,
              cell_scheme_name(c), keys, (unsigned long long)m,
              (unsigned long long)c->n, c->k);
    sb_real(&sb, bits_per_item);
    strbuf_printf(&sb, ",%llu,%llu,%llu", (unsigned long long)c->trials, (unsigned long long)c->queries,
              (unsigned long long)fp);
    sb_real(&sb, fpr);
    sb_real(&sb, mc.ci.lo);
    sb_real(&sb, mc.ci.hi);
    sb_real(&sb, mc.se);
    sb_real(&sb, th.classic);
    sb_real(&sb, th.layout.exact);
    sb_real(&sb, has_fill ? fill.mean : NAN);
    sb_real(&sb, has_fill ? running_sd(&fill) : NAN);
    sb_real(&sb, th.layout.fill_expected);
    sb_real(&sb, mc.z);
    strbuf_printf(&sb, ",%.3f,%.3f", inserts > 0 ? 1e9 * seconds_insert / inserts : 0.0,
              1e9 * seconds_query / (double)asked);
    sb_real(&sb, th.finite);
    sb_real(&sb, th.layout.approx);
    sb_real(&sb, th.layout.fill_sd_expected);
    sb_real(&sb, c->n > 0 ? theory_k_opt(bits_per_item) : NAN);
    strbuf_printf(&sb, ",%llu,%s,%llu,%llu,%llu,%llu,%llu,%s", (unsigned long long)r[0].memory_bytes,
              measure_name(c->measure), (unsigned long long)c->deletes, (unsigned long long)present,
              (unsigned long long)fn, (unsigned long long)saturations, (unsigned long long)bad, sizing_name(c->sizing));
    sb_real(&sb, c->sizing != SIZING_NONE ? c->p_target : NAN);
    sb_real(&sb, th.layout.variance);
    strbuf_printf(&sb, ",%u", model_k_best(c->layout, m, c->n, NULL, NULL));
    sb_real(&sb, se_trials);
    strbuf_printf(&sb, ",%llu", (unsigned long long)(c->trials - 1));
    sb_real(&sb, spread.ratio);
    sb_real(&sb, spread.p_over);
    strbuf_printf(&sb, ",%s", spread.flag);
    sb_real(&sb, conditional);
    sb_real(&sb, z_query);
    sb_real(&sb, z_filter);
    strbuf_printf(&sb, ",%s,%llu,%zu", seeds_name(e->seeds), (unsigned long long)e->seed, index);
}

/* A cell whose every absent query said "probably" (fpr = 1 in every
 * trial): the filter told nothing (a constant hash, or a filter full to the
 * brim), and no z against a formula means anything.  Flagged on stderr and
 * in the CSV's metadata. */
static int row_is_degenerate(const char *row)
{
    return strtod(row_field_from_end(row, COLUMN_FROM_END_FPR), NULL) == 1.0;
}

static void degenerate_note(const experiment *e, size_t index, char *out, size_t size)
{
    const cell *c = &e->cells[index];
    char hash[HASH_NAME_MAX];
    text_printable(cell_hash_name(e, c), hash, sizeof hash);
    snprintf(out, size, "cell %zu (%s, hash %s, m = %llu, n = %llu, k = %u): every query answered \"probably\" (fpr = 1): the filter told nothing",
             index, cell_filter_name(e, c), hash, (unsigned long long)c->m, (unsigned long long)c->n, c->k);
}

/* A row of measure = fpr with a false negative: present keys answered
 * "absent", which no Bloom filter may do (a plugin's bug, or a hash that is
 * not a function of the key).  Flagged on stderr and in the metadata. */
static int row_has_false_negatives(const char *row)
{
    return strncmp(row_field_from_end(row, COLUMN_FROM_END_MEASURE), "fpr,", 4) == 0 &&
           strtoull(row_field_from_end(row, COLUMN_FROM_END_FALSE_NEGATIVES), NULL, 10) > 0;
}

static void false_negatives_note(const experiment *e, size_t index, const char *row, char *out, size_t size)
{
    const cell *c = &e->cells[index];
    char filter_name[FILTER_PLUGIN_SPEC_MAX];
    text_printable(cell_filter_name(e, c), filter_name, sizeof filter_name);
    snprintf(out, size, "cell %zu (%s, m = %llu, n = %llu, k = %u): %llu of %llu present keys answered \"absent\": false negatives, which a Bloom filter never gives",
             index, filter_name, (unsigned long long)c->m, (unsigned long long)c->n, c->k,
             strtoull(row_field_from_end(row, COLUMN_FROM_END_FALSE_NEGATIVES), NULL, 10),
             strtoull(row_field_from_end(row, COLUMN_FROM_END_FALSE_NEGATIVES + 1), NULL, 10));
}

/* ---- journal, lock, output ---------------------------------------------- */

/* A journal line "INDEX\tROW\n" is whole when INDEX is digits and the row
 * ends with its own cell index (the last column). */
static int journal_line_whole(char *line, size_t *index)
{
    size_t len = strlen(line);
    char *tab = strchr(line, '\t');
    if (len == 0 || line[len - 1] != '\n' || tab == NULL || tab == line || strspn(line, "0123456789") != (size_t)(tab - line))
        return 0;
    line[len - 1] = '\0';
    const char *comma = strrchr(tab + 1, ',');
    *index = strtoull(line, NULL, 10);
    return comma != NULL && strtoull(comma + 1, NULL, 10) == *index && strspn(comma + 1, "0123456789") == strlen(comma + 1);
}

/* Rows already in the journal; returns how many were loaded, and in
 * *whole_bytes the length of its whole lines, where a resumed run goes on
 * writing (a kill can tear the last line: it is cut off, not continued). */
static size_t journal_load(const char *path, const char *print, char **rows, size_t count, long *whole_bytes,
                           int *stale)
{
    *whole_bytes = 0;
    *stale = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char line[ROW_MAX + 64];
    size_t loaded = 0;
    char want[64];
    snprintf(want, sizeof want, "# fingerprint: %s\n", print);
    if (fgets(line, sizeof line, f) == NULL || strcmp(line, want) != 0) {
        fclose(f);
        *stale = 1;
        return 0; /* a journal of other inputs: start afresh */
    }
    *whole_bytes = ftell(f);
    size_t index;
    while (fgets(line, sizeof line, f) && journal_line_whole(line, &index)) {
        if (index < count && rows[index] == NULL) {
            rows[index] = strdup(strchr(line, '\t') + 1);
            loaded++;
        }
        *whole_bytes = ftell(f);
    }
    fclose(f);
    return loaded;
}

/* A metadata line's value, control bytes shown as \xNN: a newline in a
 * path or a flag must not start a line of its own. */
static void sb_meta(strbuf *sb, const char *key, const char *value)
{
    char shown[4 * 2048 + 1];
    text_printable(value, shown, sizeof shown);
    strbuf_printf(sb, "# %s: %s\n", key, shown);
}

static int in_shard(size_t index, const sweep_options *opt);

static void format_metadata(const experiment *e, const sweep_options *opt, const char *inputs, char **rows,
                            double wall, strbuf *sb)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sb_meta(sb, "experiment", e->name);
    sb_meta(sb, "source", e->path ? e->path : e->source);
    sb_meta(sb, "command", opt->command ? opt->command : "");
    strbuf_printf(sb, "# version: bloomlab %s (%s)\n", BLOOMLAB_VERSION, bloomlab_git_rev);
    strbuf_printf(sb, "# seed: %llu\n# seeds: %s\n# scale: %s\n# threads: %d\n# shard: %u/%u\n# cells: %zu\n",
              (unsigned long long)e->seed, seeds_name(e->seeds), e->scale, opt->threads, opt->shard_index,
              opt->shard_count, e->count);
    strbuf_printf(sb, "# results_version: %d\n# inputs: %s\n", BLOOMLAB_RESULTS_VERSION, inputs);
    for (size_t i = 0; i < e->count; i++)
        if (rows[i] && in_shard(i, opt) && row_is_degenerate(rows[i])) {
            char note[HASH_NAME_MAX + 256];
            degenerate_note(e, i, note, sizeof note);
            sb_meta(sb, "degenerate", note);
        }
    for (size_t i = 0; i < e->count; i++)
        if (rows[i] && in_shard(i, opt) && row_has_false_negatives(rows[i])) {
            char note[FILTER_PLUGIN_SPEC_MAX + 256];
            false_negatives_note(e, i, rows[i], note, sizeof note);
            sb_meta(sb, "false_negatives", note);
        }
    strbuf_printf(sb, "# date: %s\n# wall_time_s: %.3f\n", date, wall);
}

static int in_shard(size_t index, const sweep_options *opt)
{
    return index % opt->shard_count == opt->shard_index - 1;
}

static int write_output(const experiment *e, const sweep_options *opt, const char *inputs, char **rows,
                        double wall)
{
    size_t cap = 3 * 8192 + strlen(SWEEP_HEADER);
    for (size_t i = 0; i < e->count; i++)
        if (rows[i])
            cap += 2 * strlen(rows[i]) + 1 + HASH_NAME_MAX + FILTER_PLUGIN_SPEC_MAX + 512; /* the row, perhaps its notes */
    char *text = malloc(cap);
    if (text == NULL) {
        fprintf(stderr, "bloomlab run: out of memory for the output\n");
        return -1;
    }
    strbuf sb = strbuf_on(text, cap);
    format_metadata(e, opt, inputs, rows, wall, &sb);
    strbuf_printf(&sb, "%s\n", SWEEP_HEADER);
    for (size_t i = 0; i < e->count; i++)
        if (rows[i] && in_shard(i, opt))
            strbuf_printf(&sb, "%s\n", rows[i]);
    if (sb.cut) { /* never a file with its end missing */
        fprintf(stderr, "bloomlab run: internal error: the output outgrew its %zu-byte buffer\n", cap);
        free(text);
        return -1;
    }
    int rc = output_write_atomic(opt->output, sb.text, sb.len, "run");
    free(sb.text);
    return rc;
}

/* ---- progress ----------------------------------------------------------- */

/* The progress line on a terminal: redrawn in place with \r, so anything
 * else written to stderr must first end it (progress_end). */
typedef struct {
    int enabled;
    int open; /* drawn, and not ended by a newline */
} progress_line;

static void progress_end(progress_line *p)
{
    if (p->open)
        fputc('\n', stderr);
    p->open = 0;
}

static void progress(progress_line *p, size_t done, size_t total, double queries, double started)
{
    if (!p->enabled)
        return;
    double elapsed = now_seconds() - started;
    double eta = done > 0 ? elapsed * (double)(total - done) / (double)done : 0;
    fprintf(stderr, "\rbloomlab: %zu/%zu cells, %.3g queries/s, ETA %02d:%02d:%02d   ", done, total,
            elapsed > 0 ? queries / elapsed : 0.0, (int)(eta / 3600), (int)(eta / 60) % 60, (int)eta % 60);
    p->open = 1;
    if (done == total)
        progress_end(p);
}

/* ---- the checks before the first cell ------------------------------------ */

static double physical_memory_bytes(void)
{
    return (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/* A run may use this share of the machine's memory: the rest is the
 * system's, and swapping would make every timing a lie. */
#define MEMORY_SHARE 0.9

/* What a cell holds at once: its filters (one per thread when trials run
 * in parallel) and one record per trial. */
static int check_memory(const experiment *e, const sweep_options *opt)
{
    double ram = physical_memory_bytes(), limit = MEMORY_SHARE * ram;
    for (size_t i = 0; i < e->count; i++) {
        const cell *c = &e->cells[i];
        if (!in_shard(i, opt))
            continue;
        double filters = c->trials >= (uint64_t)opt->threads ? opt->threads : 1;
        double filter_bytes = (double)layout_bytes(c->layout, c->m) * filters;
        double record_bytes = (double)c->trials * (double)sizeof(trial_result);
        if (filter_bytes + record_bytes <= limit)
            continue;
        char where[4 * WHERE_MAX];
        text_printable(c->where, where, sizeof where);
        if (record_bytes > filter_bytes)
            fprintf(stderr,
                    "bloomlab: the cell of m = %llu at %s: trials = %llu needs %.3g GB of per-trial records (%zu bytes each) besides %.3g GB of filters; a run may use %.0f%% of this machine's %.3g GB, %.3g GB\n",
                    (unsigned long long)c->m, where, (unsigned long long)c->trials, record_bytes / 1e9, sizeof(trial_result),
                    filter_bytes / 1e9, 100 * MEMORY_SHARE, ram / 1e9, limit / 1e9);
        else
            fprintf(stderr,
                    "bloomlab: %s: m = %llu bits needs %.3g GB of filter memory (%g filter%s at once); a run may use %.0f%% of this machine's %.3g GB, %.3g GB\n",
                    where, (unsigned long long)c->m, filter_bytes / 1e9, filters, filters > 1 ? "s" : "",
                    100 * MEMORY_SHARE, ram / 1e9, limit / 1e9);
        return -1;
    }
    return 0;
}

/* The files of a run that writes a regular file: all of them beside the
 * file the output path names once links are followed, so that a link
 * shares the lock of its target and is never replaced by a file. */
typedef struct {
    char *real;    /* the output, links followed */
    char *lock;    /* NAME.csv.lock */
    char *journal; /* .NAME.csv.partial */
    int lock_fd;
} run_files;

static void run_files_free(run_files *f)
{
    if (f->lock_fd >= 0) {
        unlink(f->lock);
        close(f->lock_fd);
    }
    free(f->real);
    free(f->lock);
    free(f->journal);
    memset(f, 0, sizeof *f);
    f->lock_fd = -1;
}

/* Take the lock: 0, or 2 after one line (held by another run, or it cannot
 * be made: nothing could be written there either). */
static int lock_output(const char *output, run_files *f, int retries)
{
    int fd = open(f->lock, O_RDWR | O_CREAT, 0644);
    if (fd < 0) {
        cli_error("run", "cannot create the lock %s: %s", f->lock, strerror(errno));
        return 2;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        cli_error("run", "%s is being written by another run (lock %s held); wait for it or use -o", output, f->lock);
        close(fd);
        return 2;
    }
    /* A run that finishes unlinks its lock; one that opened the old file
     * just before then holds a lock nobody else can see: take the new one. */
    struct stat held, named;
    if (fstat(fd, &held) != 0 || stat(f->lock, &named) != 0 || held.st_ino != named.st_ino ||
        held.st_dev != named.st_dev) {
        close(fd);
        if (retries > 0)
            return lock_output(output, f, retries - 1);
        cli_error("run", "cannot take the lock %s: it keeps being replaced", f->lock);
        return 1;
    }
    f->lock_fd = fd;
    return 0;
}

/* Trials [0, c->trials) on threads threads at once, one filter each;
 * returns 1 when a filter could not be made.  Kept out of line, like
 * query_range_parallel: clang asks the OpenMP runtime for the thread number
 * on entry to any function holding a parallel region, and so starts it
 * (sweep.c's query_range says why a one-thread run must not). */
static __attribute__((noinline)) int trials_across(const experiment *e, const cell *c, int threads, trial_result *r)
{
    int failed = 0;
    trial_setup setup;
    setup_trial(e, c, 0, &setup);
#pragma omp parallel num_threads(threads)
    {
        cell_filter f;
        int ok = cell_filter_open(&setup, &f) == 0;
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (uint64_t t = 0; t < c->trials; t++)
            if (ok && !interrupted)
                run_trial(e, c, t, &f, 0, &r[t]);
            else
                r[t].aborted = 1;
        if (ok)
            cell_filter_close(&setup, &f);
    }
    return failed;
}

static __attribute__((noinline)) void use_threads(int threads) { omp_set_num_threads(threads); }

/* Name the output's siblings and take its lock before any cell runs: 0,
 * or the exit status after one line. */
static int prepare_output(const sweep_options *opt, run_files *f)
{
    f->real = output_resolve(opt->output);
    f->lock = f->real ? output_sibling(f->real, "", ".lock") : NULL;
    f->journal = f->real ? output_sibling(f->real, ".", ".partial") : NULL;
    if (f->lock == NULL || f->journal == NULL) {
        fprintf(stderr, "bloomlab run: out of memory\n");
        return 1;
    }
    return lock_output(opt->output, f, 8);
}

/* Run one cell's trials into r; parallel across trials, or inside each.
 * 0; -1: no memory for a filter; -2: a plugin's create gave NULL; 1:
 * interrupted. */
static int run_cell(const experiment *e, const cell *c, int threads, trial_result *r)
{
    int across = c->trials >= (uint64_t)threads && threads > 1;
    int failed = 0;
    if (across) {
        failed = trials_across(e, c, threads, r);
    } else {
        trial_setup setup;
        setup_trial(e, c, 0, &setup);
        cell_filter f;
        if (cell_filter_open(&setup, &f) != 0)
            return -1;
        if (threads > 1) /* one thread makes no OpenMP call (query_range says why) */
            use_threads(threads);
        for (uint64_t t = 0; t < c->trials && !interrupted && !(t > 0 && r[t - 1].create_failed); t++)
            run_trial(e, c, t, &f, threads > 1, &r[t]);
        cell_filter_close(&setup, &f);
    }
    if (failed)
        return -1;
    for (uint64_t t = 0; t < c->trials; t++)
        if (r[t].create_failed)
            return -2;
    for (uint64_t t = 0; t < c->trials; t++)
        if (r[t].aborted || interrupted)
            return 1;
    return 0;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGXFSZ, SIG_IGN); /* a file-size limit makes write() fail, not kill us */
}

/* The journal, opened for appending after the rows it already holds (when
 * it is of the same inputs), or started afresh.  Returns the number of rows
 * resumed, or -1 after one line when it cannot be written. */
static long open_journal(const run_files *f, const char *inputs, const sweep_options *opt, char **rows,
                         size_t count, FILE **journal)
{
    long whole_bytes = 0;
    int stale = 0;
    size_t resumed = opt->resume ? journal_load(f->journal, inputs, rows, count, &whole_bytes, &stale) : 0;
    if (stale && !opt->quiet)
        cli_error("run", "%s holds cells of other inputs (the experiment file, a key file or a plugin changed): starting afresh",
                  f->journal);
    if (resumed && truncate(f->journal, whole_bytes) != 0) {
        for (size_t i = 0; i < count; i++) { /* cannot cut a torn line off: start afresh */
            free(rows[i]);
            rows[i] = NULL;
        }
        resumed = 0;
    }
    *journal = fopen(f->journal, resumed ? "a" : "w");
    if (*journal == NULL || (!resumed && (fprintf(*journal, "# fingerprint: %s\n", inputs) < 0 || fflush(*journal) != 0))) {
        cli_error("run", "cannot write the journal %s: %s", f->journal, strerror(errno));
        return -1;
    }
    return (long)resumed;
}

/* Append a finished cell to the journal, on disk before the next starts:
 * 0, or the errno of the failure. */
static int journal_append(FILE *journal, size_t index, const char *row)
{
    if (fprintf(journal, "%zu\t%s\n", index, row) < 0 || fflush(journal) != 0 || fsync(fileno(journal)) != 0)
        return errno ? errno : EIO;
    return 0;
}

/* Tell the guard what runs now, for the one line it writes if a plugin
 * takes the process down (guard.h). */
static void guard_cell(const experiment *e, size_t index, const run_files *f, int journalled, size_t done)
{
    const cell *c = &e->cells[index];
    char doing[HASH_NAME_MAX + FILTER_PLUGIN_SPEC_MAX + 128], kept[1100], shown[960];
    const filter_plugin *plugin = cell_plugin(e, c);
    if (plugin != NULL)
        snprintf(doing, sizeof doing, "cell %zu (the filter plugin %s, '%s')", index, plugin->spec, plugin->api->name);
    else
        snprintf(doing, sizeof doing, "cell %zu (%s, hash %s)", index, layout_name(c->layout), cell_hash_name(e, c));
    /* a crash in a plugin filter is bad input, like any other fault of it */
    guard_crash_status(plugin != NULL ? 2 : 0);
    if (journalled) {
        text_printable(f->journal, shown, sizeof shown);
        snprintf(kept, sizeof kept, "%zu finished cells are kept in %s", done, shown);
    } else {
        snprintf(kept, sizeof kept, "%zu cells had finished (no journal: not writing a file)", done);
    }
    guard_set(doing, f->lock_fd >= 0 ? f->lock : NULL, kept);
}

/* A current output records this run's inputs and shard in its metadata:
 * making it again would give the same bytes (ns_* aside). */
static int output_is_current(const sweep_options *opt, const char *inputs)
{
    char inputs_line[INPUTS_FINGERPRINT_SIZE + 16], shard_line[64];
    snprintf(inputs_line, sizeof inputs_line, "# inputs: %s", inputs);
    snprintf(shard_line, sizeof shard_line, "# shard: %u/%u", opt->shard_index, opt->shard_count);
    return output_has_metadata(opt->output, inputs_line) && output_has_metadata(opt->output, shard_line);
}

int sweep_run(const experiment *e, const sweep_options *opt)
{
    char inputs[INPUTS_FINGERPRINT_SIZE], why[8192];
    if (inputs_fingerprint(e, inputs, why, sizeof why) != 0) {
        cli_error("run", "%s", why);
        return 2;
    }
    if (opt->inputs_only)
        return printf("# inputs: %s\n", inputs) < 0 || fflush(stdout) != 0 ? (perror("bloomlab run: stdout"), 1) : 0;
    if (opt->resume && output_is_current(opt, inputs)) {
        if (!opt->quiet)
            fprintf(stderr, "bloomlab run: %s is up to date (its inputs are unchanged; --fresh remakes it)\n",
                    opt->output);
        return 0;
    }
    if (check_memory(e, opt) != 0)
        return 2;
    run_files files = {NULL, NULL, NULL, -1};
    if (output_check(opt->output, why, sizeof why) != 0) {
        cli_error("run", "-o: %s", why);
        return 2;
    }
    /* -o /dev/null, a FIFO ...: written straight through, with no journal
     * or lock beside it (that would put files into /dev). */
    struct stat target;
    int keeps_journal = !output_is_stdout(opt->output) && (stat(opt->output, &target) != 0 || S_ISREG(target.st_mode));
    if (keeps_journal) {
        int rc = prepare_output(opt, &files);
        if (rc != 0) {
            run_files_free(&files);
            return rc;
        }
    }
    install_signals();
    char **rows = calloc(e->count, sizeof *rows);
    FILE *journal = NULL;
    int status = 0;
    progress_line line = {!opt->quiet && isatty(STDERR_FILENO), 0};
    long resumed = keeps_journal ? open_journal(&files, inputs, opt, rows, e->count, &journal) : 0;
    if (resumed < 0) {
        status = 2; /* nothing has run: nothing could be kept */
        goto done;
    }
    if (resumed > 0 && !opt->quiet)
        cli_error("run", "resuming: %ld finished cells kept from %s", resumed, files.journal);
    size_t mine = 0, done_cells = 0;
    for (size_t i = 0; i < e->count; i++)
        if (in_shard(i, opt)) {
            mine++;
            done_cells += rows[i] != NULL;
        }
    double started = now_seconds(), queries_done = 0;
    for (size_t i = 0; i < e->count && status == 0; i++) {
        if (!in_shard(i, opt) || rows[i] != NULL)
            continue;
        const cell *c = &e->cells[i];
        guard_cell(e, i, &files, journal != NULL, done_cells);
        trial_result *r = calloc(c->trials, sizeof *r);
        int rc = r ? run_cell(e, c, opt->threads, r) : -1;
        if (rc == -2) {
            const filter_plugin *p = cell_plugin(e, c);
            progress_end(&line);
            cli_error("run", "%s: the filter plugin %s ('%s'): create(m = %llu, k = %u, n = %llu) returned NULL", c->where,
                      p->spec, p->api->name, (unsigned long long)c->m, c->k, (unsigned long long)c->n);
            status = 2;
        } else if (rc < 0) {
            progress_end(&line);
            cli_error("run", "%s: cannot allocate a filter of %llu bytes and %llu trial records", c->where,
                      (unsigned long long)layout_bytes(c->layout, c->m), (unsigned long long)c->trials);
            status = 1;
        } else if (rc > 0) {
            status = 130;
        } else {
            char row[ROW_MAX];
            format_row(e, c, i, r, row, sizeof row);
            rows[i] = strdup(row);
            int failed = journal != NULL ? journal_append(journal, i, row) : 0;
            if (failed != 0) {
                progress_end(&line);
                cli_error("run", "cannot write the journal %s: %s", files.journal, strerror(failed));
                status = 1;
            }
            if (row_has_false_negatives(row)) {
                char note[FILTER_PLUGIN_SPEC_MAX + 256];
                false_negatives_note(e, i, row, note, sizeof note);
                progress_end(&line);
                cli_error("run", "warning: %s", note);
            }
            if (row_is_degenerate(row)) {
                char note[HASH_NAME_MAX + 256];
                degenerate_note(e, i, note, sizeof note);
                progress_end(&line);
                cli_error("run", "warning: %s", note);
            }
            done_cells++;
            queries_done += (double)c->queries * (double)c->trials;
            if (status == 0)
                progress(&line, done_cells, mine, queries_done, started);
        }
        free(r);
    }
    guard_clear();
    progress_end(&line);
    if (status == 130) {
        fprintf(stderr, "bloomlab: interrupted: %zu of %zu cells finished%s", done_cells, mine,
                journal ? " and kept in " : "");
        text_fputs_printable(journal ? files.journal : "", stderr);
        fputc('\n', stderr);
    }
    if (journal != NULL && fclose(journal) != 0 && status == 0) {
        cli_error("run", "cannot write the journal %s: %s", files.journal, strerror(errno));
        status = 1;
    }
    journal = NULL;
    if (status == 0) {
        if (write_output(e, opt, inputs, rows, now_seconds() - started) != 0)
            status = 1;
        else if (keeps_journal)
            unlink(files.journal);
    }
done:
    if (journal != NULL)
        fclose(journal);
    for (size_t i = 0; i < e->count; i++)
        free(rows[i]);
    free(rows);
    run_files_free(&files);
    return status;
}
