/* sweep.c -- the runner: cells to trials to rows; see sweep.h. */
#define _GNU_SOURCE
#include "clock.h"
#include "sweep.h"

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

#include "model.h"
#include "output.h"
#include "stats.h"
#include "theory.h"
#include "version.h"

/* Present keys asked back in an fpr cell, to prove there is no false negative. */
#define PRESENT_CHECK 10000
#define ROW_MAX 2048

const char SWEEP_HEADER[] =
    "experiment,filter,hash,scheme,keys,m,n,k,bits_per_item,trials,queries,"
    "false_positives,fpr,fpr_lo,fpr_hi,fpr_se,fpr_classic,fpr_exact,"
    "fill,fill_sd,fill_expected,z,ns_insert,ns_query,"
    "fpr_finite,fpr_approx,fill_sd_expected,k_opt,memory_bytes,measure,deletes,"
    "present_queries,false_negatives,saturations,bad_deletes,sizing,p_target,fpr_filter_var,"
    "k_best,fpr_se_trials,fpr_se_trials_df,dispersion,dispersion_p_over,dispersion_flag,"
    "fpr_conditional,z_query,z_filter,seeds,seed,cell";

static volatile sig_atomic_t interrupted = 0;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

typedef struct {
    uint64_t false_positives;
    uint64_t bits_set;
    uint64_t present_queries;
    uint64_t false_negatives;
    uint64_t saturations;
    uint64_t bad_deletes;
    double fpr_conditional; /* F of this trial's filter (ideal scheme), else NaN */
    double seconds_insert;
    double seconds_query;
    int aborted;
} trial_result;

typedef struct {
    const experiment *e;
    const cell *c;
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
    return mix_text(mix_text(h, cell_hash_name(e, c)), cell_keys_name(e, c));
}

static void setup_trial(const experiment *e, const cell *c, uint64_t trial, trial_setup *t)
{
    t->e = e;
    t->c = c;
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
static int insert_range(const trial_setup *t, filter *f, uint64_t first, uint64_t end)
{
    key_batch batch;
    for (uint64_t i = first, round = 0; i < end; i += KEY_BATCH, round++) {
        if ((round & 1023) == 0 && interrupted)
            return -1;
        keyset_fill(t->ks, t->seed, t->c->n, KEY_PRESENT, i, (size_t)batch_size(i, end), &batch);
        t->ops.insert(f, &t->ctx, &batch);
    }
    filter_flush(f);
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
    size_t made = 0;
    for (uint64_t i = first; made < SWEEP_QUERY_BATCHES && i < end; i += KEY_BATCH, made++)
        keyset_fill(ks, seed, n, side, i, (size_t)batch_size(i, end), &batch[made]);
    return ops->query_many(f, ctx, batch, made);
}

#define QUERY_CHUNK_KEYS ((uint64_t)SWEEP_QUERY_BATCHES * KEY_BATCH)

/* The "probably" answers of chunk c of keys [first, end). */
static uint64_t query_chunk_at(const trial_setup *t, const filter *f, key_side side, uint64_t first, uint64_t end,
                               uint64_t c)
{
    const uint64_t from = first + c * QUERY_CHUNK_KEYS;
    return sweep_query_chunk(f, &t->ops, &t->ctx, t->ks, t->seed, t->c->n, side, from,
                             end - from < QUERY_CHUNK_KEYS ? end : from + QUERY_CHUNK_KEYS);
}

/* query_range's chunks on the threads of the enclosing omp_set_num_threads
 * (out of line: trials_across says why). */
static __attribute__((noinline)) uint64_t query_range_parallel(const trial_setup *t, const filter *f, key_side side,
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
static uint64_t query_range(const trial_setup *t, const filter *f, key_side side, uint64_t first,
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

static void run_trial(const experiment *e, const cell *c, uint64_t trial, filter *f, int parallel,
                      trial_result *r)
{
    trial_setup t;
    setup_trial(e, c, trial, &t);
    memset(r, 0, sizeof *r);
    filter_clear(f);
    double t0 = now_seconds();
    if (insert_range(&t, f, 0, c->n) != 0) {
        r->aborted = 1;
        return;
    }
    double t1 = now_seconds();
    r->seconds_insert = t1 - t0;
    r->bits_set = filter_bits_set(f);
    uint64_t check_from = 0, check_to = c->n < PRESENT_CHECK ? c->n : PRESENT_CHECK;
    if (c->measure == MEASURE_DELETE) {
        remove_range(&t, f, 0, c->deletes);
        check_from = c->deletes;
        check_to = c->n;
    }
    r->fpr_conditional = c->scheme == SCHEME_IDEAL ? filter_fpr_conditional(f) : NAN;
    r->present_queries = check_to - check_from;
    r->false_negatives = r->present_queries - query_range(&t, f, KEY_PRESENT, check_from, check_to, parallel);
    double t2 = now_seconds();
    r->false_positives = query_range(&t, f, KEY_ABSENT, 0, c->queries, parallel);
    r->seconds_query = now_seconds() - t2;
    r->saturations = f->saturations;
    r->bad_deletes = f->bad_deletes;
    r->aborted = interrupted != 0;
}

/* ---- one cell's row ----------------------------------------------------- */

typedef struct {
    double classic, finite;
    layout_model layout; /* exact NaN where no formula exists */
} cell_theory;

static cell_theory theory_for(const cell *c)
{
    uint64_t m = c->m, n = c->n;
    unsigned k = c->k;
    cell_theory t = {theory_fpr_classic(m, n, k), theory_fpr_finite(m, n, k), {NAN, NAN, NAN, NAN, NAN}};
    if (c->measure == MEASURE_DELETE) {
        if (c->layout != LAYOUT_COUNTING)
            return t; /* cleared bits: no formula */
        n -= c->deletes; /* a counting filter forgets exactly (saturation aside) */
        t.classic = theory_fpr_classic(m, n, k);
        t.finite = theory_fpr_finite(m, n, k);
    }
    t.layout = model_for(c->layout, m, n, k);
    return t;
}

typedef struct {
    char *text;
    size_t len;
    size_t cap;
} strbuf;

static void sb_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(sb->text + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    if (need > 0)
        sb->len += (size_t)need < sb->cap - sb->len ? (size_t)need : sb->cap - sb->len - 1;
}

/* A number, or nothing for a value that does not exist. */
static void sb_real(strbuf *sb, double v)
{
    if (isfinite(v))
        sb_printf(sb, ",%.10g", v);
    else
        sb_printf(sb, ",");
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
    for (uint64_t t = 0; t < c->trials; t++) {
        fp += r[t].false_positives;
        fn += r[t].false_negatives;
        present += r[t].present_queries;
        saturations += r[t].saturations;
        bad += r[t].bad_deletes;
        seconds_insert += r[t].seconds_insert;
        seconds_query += r[t].seconds_query;
        running_add(&rate, (double)r[t].false_positives / (double)c->queries);
        running_add(&fill, (double)r[t].bits_set / (double)c->m);
    }
    uint64_t asked = c->queries * c->trials;
    double fpr = (double)fp / (double)asked;
    cell_theory th = theory_for(c);
    model_columns mc = model_columns_for(c, &th, fp, fpr);
    double se_trials = c->trials >= 2 ? running_se(&rate) : NAN;
    dispersion spread = stats_dispersion(running_sd(&rate) * running_sd(&rate), stats_trial_variance(&mc.model),
                                         c->trials);
    double conditional = NAN, z_query = NAN, z_filter = NAN;
    if (c->scheme == SCHEME_IDEAL && isfinite(th.layout.exact))
        conditional_z(c, r, fpr, &th, &conditional, &z_query, &z_filter);
    double bits_per_item = c->n > 0 ? (double)c->m / (double)c->n : NAN;
    double inserts = (double)c->n * (double)c->trials;

    strbuf sb = {out, 0, size};
    sb_printf(&sb, "%s,%s,%s,%s,%s,%llu,%llu,%u", e->name, layout_name(c->layout), cell_hash_name(e, c),
              scheme_name(c->scheme), cell_keys_name(e, c), (unsigned long long)c->m,
              (unsigned long long)c->n, c->k);
    sb_real(&sb, bits_per_item);
    sb_printf(&sb, ",%llu,%llu,%llu", (unsigned long long)c->trials, (unsigned long long)c->queries,
              (unsigned long long)fp);
    sb_real(&sb, fpr);
    sb_real(&sb, mc.ci.lo);
    sb_real(&sb, mc.ci.hi);
    sb_real(&sb, mc.se);
    sb_real(&sb, th.classic);
    sb_real(&sb, th.layout.exact);
    sb_real(&sb, fill.mean);
    sb_real(&sb, running_sd(&fill));
    sb_real(&sb, th.layout.fill_expected);
    sb_real(&sb, mc.z);
    sb_printf(&sb, ",%.3f,%.3f", inserts > 0 ? 1e9 * seconds_insert / inserts : 0.0,
              1e9 * seconds_query / (double)asked);
    sb_real(&sb, th.finite);
    sb_real(&sb, th.layout.approx);
    sb_real(&sb, th.layout.fill_sd_expected);
    sb_real(&sb, c->n > 0 ? theory_k_opt(bits_per_item) : NAN);
    sb_printf(&sb, ",%llu,%s,%llu,%llu,%llu,%llu,%llu,%s", (unsigned long long)layout_bytes(c->layout, c->m),
              measure_name(c->measure), (unsigned long long)c->deletes, (unsigned long long)present,
              (unsigned long long)fn, (unsigned long long)saturations, (unsigned long long)bad, sizing_name(c->sizing));
    sb_real(&sb, c->sizing != SIZING_NONE ? c->p_target : NAN);
    sb_real(&sb, th.layout.variance);
    sb_printf(&sb, ",%u", model_k_best(c->layout, c->m, c->n, NULL, NULL));
    sb_real(&sb, se_trials);
    sb_printf(&sb, ",%llu", (unsigned long long)(c->trials - 1));
    sb_real(&sb, spread.ratio);
    sb_real(&sb, spread.p_over);
    sb_printf(&sb, ",%s", spread.flag);
    sb_real(&sb, conditional);
    sb_real(&sb, z_query);
    sb_real(&sb, z_filter);
    sb_printf(&sb, ",%s,%llu,%zu", seeds_name(e->seeds), (unsigned long long)e->seed, index);
}

/* ---- journal, lock, output ---------------------------------------------- */

static uint64_t fingerprint(const experiment *e)
{
    uint64_t h = mix64(e->seed ^ 0x626c6f6f6d6c6162ULL);
    for (size_t i = 0; i < e->count; i++) {
        const cell *c = &e->cells[i];
        uint64_t parts[] = {c->layout, c->scheme, c->m, c->n, c->k, c->trials, c->queries, c->deletes, c->measure};
        for (size_t j = 0; j < sizeof parts / sizeof parts[0]; j++)
            h = mix64(h ^ parts[j]);
        h = mix_text(mix_text(h, cell_hash_name(e, c)), cell_keys_name(e, c));
        if (c->sizing != SIZING_NONE) { /* the rule's name is in the row: a renamed rule is another cell */
            uint64_t p_bits;
            memcpy(&p_bits, &c->p_target, sizeof p_bits);
            h = mix_text(mix64(h ^ p_bits), sizing_name(c->sizing));
        }
    }
    h = mix_text(mix_text(mix_text(mix_text(h, e->name), BLOOMLAB_VERSION), seeds_name(e->seeds)), e->scale);
    return mix64(h ^ BLOOMLAB_RESULTS_VERSION);
}

/* The `# inputs:` metadata line: the fingerprint of everything that decides
 * the output's bytes (ns_* and metadata aside), with the shard; a result
 * that already holds it is current (sweep_run leaves it alone). */
static void inputs_line(const experiment *e, const sweep_options *opt, char *out, size_t size)
{
    snprintf(out, size, "# inputs: %016llx shard %u/%u results-version %d", (unsigned long long)fingerprint(e),
             opt->shard_index, opt->shard_count, BLOOMLAB_RESULTS_VERSION);
}

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
static size_t journal_load(const char *path, uint64_t print, char **rows, size_t count, long *whole_bytes)
{
    *whole_bytes = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char line[ROW_MAX + 64];
    size_t loaded = 0;
    unsigned long long got;
    if (fgets(line, sizeof line, f) == NULL || sscanf(line, "# fingerprint: %llx", &got) != 1 || got != print ||
        line[strlen(line) - 1] != '\n') {
        fclose(f);
        return 0; /* another experiment's journal: start afresh */
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

static void format_metadata(const experiment *e, const sweep_options *opt, double wall, strbuf *sb)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sb_printf(sb, "# experiment: %s\n# source: %s\n# command: %s\n# version: bloomlab %s (%s)\n",
              e->name, e->source, opt->command ? opt->command : "", BLOOMLAB_VERSION, bloomlab_git_rev);
    sb_printf(sb, "# seed: %llu\n# seeds: %s\n# scale: %s\n# threads: %d\n# shard: %u/%u\n# cells: %zu\n",
              (unsigned long long)e->seed, seeds_name(e->seeds), e->scale, opt->threads, opt->shard_index,
              opt->shard_count, e->count);
    char inputs[128];
    inputs_line(e, opt, inputs, sizeof inputs);
    sb_printf(sb, "%s\n# date: %s\n# wall_time_s: %.3f\n", inputs, date, wall);
}

static int in_shard(size_t index, const sweep_options *opt)
{
    return index % opt->shard_count == opt->shard_index - 1;
}

static int write_output(const experiment *e, const sweep_options *opt, char **rows, double wall)
{
    size_t cap = 4096 + strlen(SWEEP_HEADER);
    for (size_t i = 0; i < e->count; i++)
        if (rows[i])
            cap += strlen(rows[i]) + 1;
    strbuf sb = {malloc(cap), 0, cap};
    format_metadata(e, opt, wall, &sb);
    sb_printf(&sb, "%s\n", SWEEP_HEADER);
    for (size_t i = 0; i < e->count; i++)
        if (rows[i] && in_shard(i, opt))
            sb_printf(&sb, "%s\n", rows[i]);
    int rc = output_write_atomic(opt->output, sb.text, sb.len, "run");
    free(sb.text);
    return rc;
}

/* ---- progress ----------------------------------------------------------- */

static void progress(const sweep_options *opt, size_t done, size_t total, double queries, double started)
{
    if (opt->quiet || !isatty(STDERR_FILENO))
        return;
    double elapsed = now_seconds() - started;
    double eta = done > 0 ? elapsed * (double)(total - done) / (double)done : 0;
    fprintf(stderr, "\rbloomlab: %zu/%zu cells, %.3g queries/s, ETA %02d:%02d:%02d   ", done, total,
            elapsed > 0 ? queries / elapsed : 0.0, (int)(eta / 3600), (int)(eta / 60) % 60, (int)eta % 60);
    if (done == total)
        fputc('\n', stderr);
}

/* ---- the run ------------------------------------------------------------ */

static double physical_memory_bytes(void)
{
    return (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

static int check_memory(const experiment *e, const sweep_options *opt)
{
    double ram = physical_memory_bytes();
    for (size_t i = 0; i < e->count; i++) {
        const cell *c = &e->cells[i];
        if (!in_shard(i, opt))
            continue;
        double filters = c->trials >= (uint64_t)opt->threads ? opt->threads : 1;
        double need = (double)layout_bytes(c->layout, c->m) * filters;
        if (need > 0.9 * ram) {
            fprintf(stderr,
                    "bloomlab: %s: m = %llu bits needs %.3g GB of filter memory (%g filter%s at once), more than this machine's %.3g GB\n",
                    c->where, (unsigned long long)c->m, need / 1e9, filters, filters > 1 ? "s" : "", ram / 1e9);
            return -1;
        }
    }
    return 0;
}

static int lock_output(const char *output, int *fd_out, char *lock_path, size_t size, int retries)
{
    output_sibling(output, "", ".lock", lock_path, size);
    int fd = open(lock_path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) {
        fprintf(stderr, "bloomlab run: cannot create the lock %s: %s\n", lock_path, strerror(errno));
        return 1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "bloomlab run: %s is being written by another run (lock %s held); wait for it or use -o\n",
                output, lock_path);
        close(fd);
        return 2;
    }
    /* A run that finishes unlinks its lock; one that opened the old file
     * just before then holds a lock nobody else can see: take the new one. */
    struct stat held, named;
    if (fstat(fd, &held) != 0 || stat(lock_path, &named) != 0 || held.st_ino != named.st_ino ||
        held.st_dev != named.st_dev) {
        close(fd);
        if (retries > 0)
            return lock_output(output, fd_out, lock_path, size, retries - 1);
        fprintf(stderr, "bloomlab run: cannot take the lock %s: it keeps being replaced\n", lock_path);
        return 1;
    }
    *fd_out = fd;
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
#pragma omp parallel num_threads(threads)
    {
        filter f;
        int ok = filter_init(&f, c->layout, c->m, c->k) == 0;
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
            filter_free(&f);
    }
    return failed;
}

static __attribute__((noinline)) void use_threads(int threads) { omp_set_num_threads(threads); }

/* Run one cell's trials into r; parallel across trials, or inside each. */
static int run_cell(const experiment *e, const cell *c, int threads, trial_result *r)
{
    int across = c->trials >= (uint64_t)threads && threads > 1;
    int failed = 0;
    if (across) {
        failed = trials_across(e, c, threads, r);
    } else {
        filter f;
        if (filter_init(&f, c->layout, c->m, c->k) != 0)
            return -1;
        if (threads > 1) /* one thread makes no OpenMP call (query_range says why) */
            use_threads(threads);
        for (uint64_t t = 0; t < c->trials && !interrupted; t++)
            run_trial(e, c, t, &f, threads > 1, &r[t]);
        filter_free(&f);
    }
    if (failed)
        return -1;
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

int sweep_run(const experiment *e, const sweep_options *opt)
{
    char inputs[128];
    inputs_line(e, opt, inputs, sizeof inputs);
    if (opt->inputs_only)
        return printf("%s\n", inputs) < 0 || fflush(stdout) != 0 ? (perror("bloomlab run: stdout"), 1) : 0;
    if (opt->resume && output_has_metadata(opt->output, inputs)) {
        if (!opt->quiet)
            fprintf(stderr, "bloomlab run: %s is up to date (its inputs are unchanged; --fresh remakes it)\n",
                    opt->output);
        return 0;
    }
    if (check_memory(e, opt) != 0)
        return 2;
    char lock_path[WHERE_MAX + 16], journal_path[WHERE_MAX + 16];
    int lock_fd = -1;
    /* -o /dev/null, a FIFO ...: written straight through, with no journal
     * or lock beside it (that would put files into /dev). */
    struct stat target;
    int keeps_journal = opt->output != NULL && (stat(opt->output, &target) != 0 || S_ISREG(target.st_mode));
    if (keeps_journal) {
        int rc = lock_output(opt->output, &lock_fd, lock_path, sizeof lock_path, 8);
        if (rc != 0)
            return rc;
        output_sibling(opt->output, ".", ".partial", journal_path, sizeof journal_path);
    }
    install_signals();
    char **rows = calloc(e->count, sizeof *rows);
    uint64_t print = fingerprint(e);
    long whole_bytes = 0;
    size_t resumed = keeps_journal && opt->resume ? journal_load(journal_path, print, rows, e->count, &whole_bytes) : 0;
    FILE *journal = NULL;
    int status = 0;
    if (keeps_journal) {
        if (resumed && truncate(journal_path, whole_bytes) != 0)
            resumed = 0; /* cannot cut a torn line off: start afresh */
        journal = fopen(journal_path, resumed ? "a" : "w");
        if (journal == NULL) {
            fprintf(stderr, "bloomlab run: cannot write the journal %s: %s\n", journal_path, strerror(errno));
            status = 1;
            goto done;
        }
        if (!resumed)
            fprintf(journal, "# fingerprint: %016llx\n", (unsigned long long)print);
        if (resumed && !opt->quiet)
            fprintf(stderr, "bloomlab run: resuming: %zu finished cells kept from %s\n", resumed, journal_path);
    }
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
        trial_result *r = calloc(c->trials, sizeof *r);
        int rc = r ? run_cell(e, c, opt->threads, r) : -1;
        if (rc < 0) {
            fprintf(stderr, "bloomlab: %s: cannot allocate a filter of %llu bytes\n", c->where,
                    (unsigned long long)layout_bytes(c->layout, c->m));
            status = 1;
        } else if (rc > 0) {
            status = 130;
        } else {
            char row[ROW_MAX];
            format_row(e, c, i, r, row, sizeof row);
            rows[i] = strdup(row);
            if (journal != NULL) {
                fprintf(journal, "%zu\t%s\n", i, row);
                if (fflush(journal) != 0 || fsync(fileno(journal)) != 0) {
                    fprintf(stderr, "bloomlab run: cannot write the journal %s: %s\n", journal_path, strerror(errno));
                    status = 1;
                }
            }
            done_cells++;
            queries_done += (double)c->queries * (double)c->trials;
            progress(opt, done_cells, mine, queries_done, started);
        }
        free(r);
    }
    if (status == 130) {
        if (!opt->quiet && isatty(STDERR_FILENO))
            fputc('\n', stderr);
        fprintf(stderr, "bloomlab: interrupted: %zu of %zu cells finished%s%s\n", done_cells, mine,
                journal ? " and kept in " : "", journal ? journal_path : "");
    }
    if (journal != NULL && fclose(journal) != 0 && status == 0) {
        fprintf(stderr, "bloomlab run: cannot write the journal %s: %s\n", journal_path, strerror(errno));
        status = 1;
    }
    journal = NULL;
    if (status == 0) {
        if (write_output(e, opt, rows, now_seconds() - started) != 0)
            status = 1;
        else if (keeps_journal)
            unlink(journal_path);
    }
done:
    if (journal != NULL)
        fclose(journal);
    for (size_t i = 0; i < e->count; i++)
        free(rows[i]);
    free(rows);
    if (lock_fd >= 0) {
        unlink(lock_path);
        close(lock_fd);
    }
    return status;
}
