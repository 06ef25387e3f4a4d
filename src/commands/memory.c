/* memory.c -- `bloomlab memory`: what an exact set of URLs really costs,
 * against a Bloom filter of the same URLs.
 *
 * The lecture's first figure charges an exact set 64 bytes a URL ("a kind
 * estimate") and a Bloom filter 10 bits.  This command measures both on
 * this machine: for each n it builds
 *
 *   bloom       bloomlab's own filter (filters.h, standard layout, m = n *
 *               bits_per_item, xxh3_64 with double hashing) holding the n
 *               URLs, and
 *   ghashtable  a GLib GHashTable set of the same n URLs, each a g_strndup
 *               copy (g_str_hash, g_str_equal): the exact set a C program
 *               would reach for, its strings, buckets and malloc overhead
 *               all counted,
 *
 * and reports the growth of the anonymous resident set size (RSS less
 * file-backed pages, /proc/self/statm) from just before the structure is
 * built to just after.  Each row is measured in a freshly forked child,
 * so that memory freed by an earlier row and kept by malloc cannot hide
 * the cost of a later one; the child exits without freeing.  RSS counts whole pages, so a row is exact to a
 * page (4 KiB; 2 MiB where the kernel backs a big filter with a huge page).
 *
 * Output: CSV with '# key: value' metadata lines, then
 *   n,structure,bytes,bytes_per_item,ns_insert
 * (ns_insert: wall time to build, per item, key generation included).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glib.h>
#include <xxhash.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/strbuf.h"
#include "harness/cli.h"
#include "commands/commands.h"
#include "filter/filters.h"
#include "base/hashes.h"
#include "harness/keys.h"
#include "base/numbers.h"
#include "harness/output.h"
#include "filter/schemes.h"
#include "base/version.h"

#define MEMORY_DEFAULT_N "1e5, 3e5, 1e6, 3e6, 1e7"
#define MEMORY_N_MAX 1000000000000ULL
#define MEMORY_CHECK_KEYS 10000
#define MEMORY_SAMPLE_KEYS 100000
#define MEMORY_WARMUP_KEYS 256
/* A pessimistic guess of a GHashTable's cost per URL, used only to refuse
 * a run that cannot fit before it starts (measured: about 110-130 B). */
#define GHASH_GUESS_BYTES_PER_ITEM 256.0

typedef enum { STRUCT_BLOOM, STRUCT_GHASHTABLE, STRUCT_COUNT } structure_kind;

static const char *const STRUCTURE_NAMES[STRUCT_COUNT] = {"bloom", "ghashtable"};

typedef struct {
    number_list n;
    double bits_per_item;
    unsigned k;
    uint64_t seed;
    const char *keys_spec;
    const char *output;
    int inputs_only; /* --inputs: print the line, measure nothing */
    char command[1024];
} memory_options;

/* What a child sends back through its pipe. */
typedef struct {
    int ok;
    uint64_t rss_growth_bytes;
    double seconds;
    char error[160];
} memory_sample;

static const char MEMORY_USAGE[] =
    "usage: bloomlab memory [--n LIST] [--bits-per-item B] [--k K] [--keys SPEC]\n"
    "                       [--seed S] [-o FILE] [--inputs]\n"
    "\n"
    "Measures the memory of an exact set of keys -- a GLib GHashTable of\n"
    "g_strndup'd copies -- against bloomlab's own Bloom filter of the same\n"
    "keys, as the growth of the resident set size (/proc/self/statm) while\n"
    "each structure is built in a fresh child process.  CSV on stdout (or\n"
    "-o FILE): n,structure,bytes,bytes_per_item,ns_insert.\n"
    "\n"
    "  --n LIST            item counts (default " MEMORY_DEFAULT_N ")\n"
    "  --bits-per-item B   the filter's m/n (default 10, the lecture's)\n"
    "  --k K               hash functions of the filter, 1..64 (default 7)\n"
    "  --keys SPEC         key set (default urls; see bloomlab list)\n"
    "  --seed S            the key set's seed (default 1)\n"
    "  -o FILE             write the CSV to FILE (atomically); -o - is stdout; a file\n"
    "                      whose '# inputs:' line matches this run's is left untouched\n"
    "  --inputs            print the '# inputs:' line this run would write; measure\n"
    "                      nothing (make decides from it whether to measure again)\n";

/* ---- measuring ---------------------------------------------------------- */

/* Anonymous resident memory in bytes (resident minus file-backed pages,
 * so that code pages faulted in on first use do not count), or -1. */
static int64_t rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return -1;
    unsigned long long size_pages = 0, resident_pages = 0, shared_pages = 0;
    int got = fscanf(f, "%llu %llu %llu", &size_pages, &resident_pages, &shared_pages);
    fclose(f);
    if (got != 3 || shared_pages > resident_pages)
        return -1;
    return (int64_t)(resident_pages - shared_pages) * (int64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t filter_bits_for(uint64_t n, double bits_per_item)
{
    double m = ceil((double)n * bits_per_item);
    return m < 1 ? 1 : (uint64_t)m;
}

static void sample_fail(memory_sample *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sample_fail(memory_sample *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    s->ok = 0;
}

/* Insert n keys into a fresh filter; check the first few answer "present". */
static void build_bloom(const memory_options *o, const keyset *ks, uint64_t n, memory_sample *s)
{
    hasher hash;
    char err[256];
    if (hasher_resolve("xxh3_64", &hash, err, sizeof err) != 0) {
        sample_fail(s, "%s", err);
        return;
    }
    filter f;
    uint64_t m = filter_bits_for(n, o->bits_per_item);
    if (filter_init(&f, LAYOUT_STANDARD, m, o->k) != 0) {
        sample_fail(s, "cannot allocate a filter of %llu bits", (unsigned long long)m);
        return;
    }
    filter_ops ops = filter_ops_for(LAYOUT_STANDARD, SCHEME_DOUBLE);
    scheme_ctx ctx = {&hash, o->seed, 0};
    key_batch batch;
    for (uint64_t i = 0; i < n; i += KEY_BATCH) {
        size_t count = n - i < KEY_BATCH ? (size_t)(n - i) : KEY_BATCH;
        keyset_fill(ks, o->seed, n, KEY_PRESENT, i, count, &batch);
        ops.insert(&f, &ctx, &batch);
    }
    filter_unstage(&f); /* the RSS measured is the filter's, not its insert buffer's */
    uint64_t check = n < MEMORY_CHECK_KEYS ? n : MEMORY_CHECK_KEYS, yes = 0;
    for (uint64_t i = 0; i < check; i += KEY_BATCH) {
        size_t count = check - i < KEY_BATCH ? (size_t)(check - i) : KEY_BATCH;
        keyset_fill(ks, o->seed, n, KEY_PRESENT, i, count, &batch);
        yes += ops.query(&f, &ctx, &batch, NULL);
    }
    if (yes != check)
        sample_fail(s, "the filter lost %llu of %llu inserted keys", (unsigned long long)(check - yes),
                    (unsigned long long)check);
    /* not freed: the child exits, and the RSS was read before this returns */
}

static void build_ghashtable(const memory_options *o, const keyset *ks, uint64_t n, memory_sample *s)
{
    GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    key_batch batch;
    for (uint64_t i = 0; i < n; i += KEY_BATCH) {
        size_t count = n - i < KEY_BATCH ? (size_t)(n - i) : KEY_BATCH;
        keyset_fill(ks, o->seed, n, KEY_PRESENT, i, count, &batch);
        for (size_t j = 0; j < batch.count; j++)
            g_hash_table_add(set, g_strndup((const char *)batch.ptr[j], batch.len[j]));
    }
    if ((uint64_t)g_hash_table_size(set) != n)
        sample_fail(s, "the hash table holds %u keys, not %llu (duplicate keys?)", g_hash_table_size(set),
                    (unsigned long long)n);
}

static void build(const memory_options *o, const keyset *ks, uint64_t n, structure_kind kind, memory_sample *s)
{
    if (kind == STRUCT_BLOOM)
        build_bloom(o, ks, n, s);
    else
        build_ghashtable(o, ks, n, s);
}

/* In the child: build one structure and measure it.  A small warm-up
 * build first touches the stack, the key generator's tables and malloc's
 * first arena, so that the measured growth is the structure's own. */
static memory_sample measure_here(const memory_options *o, const keyset *ks, uint64_t n, structure_kind kind)
{
    memory_sample s;
    memset(&s, 0, sizeof s);
    s.ok = 1;
    build(o, ks, MEMORY_WARMUP_KEYS, kind, &s);
    if (!s.ok)
        return s;
    int64_t before = rss_bytes();
    if (before < 0) {
        sample_fail(&s, "cannot read /proc/self/statm");
        return s;
    }
    double t0 = now_seconds();
    build(o, ks, n, kind, &s);
    s.seconds = now_seconds() - t0;
    int64_t after = rss_bytes();
    if (s.ok && after < 0)
        sample_fail(&s, "cannot read /proc/self/statm");
    s.rss_growth_bytes = after > before ? (uint64_t)(after - before) : 0;
    return s;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *data, size_t len)
{
    char *p = data;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* Fork, measure in the child, collect its sample. */
static memory_sample measure_in_child(const memory_options *o, const keyset *ks, uint64_t n, structure_kind kind)
{
    memory_sample s;
    memset(&s, 0, sizeof s);
    int fds[2];
    if (pipe(fds) != 0) {
        sample_fail(&s, "pipe: %s", strerror(errno));
        return s;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        sample_fail(&s, "fork: %s", strerror(errno));
        return s;
    }
    if (pid == 0) {
        close(fds[0]);
        memory_sample mine = measure_here(o, ks, n, kind);
        _exit(write_all(fds[1], &mine, sizeof mine) == 0 ? 0 : 1);
    }
    close(fds[1]);
    int got = read_all(fds[0], &s, sizeof s);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got != 0) {
        memset(&s, 0, sizeof s);
        if (WIFSIGNALED(status))
            sample_fail(&s, "the measuring process died of signal %d (out of memory?)", WTERMSIG(status));
        else
            sample_fail(&s, "the measuring process sent no result");
    }
    return s;
}

/* ---- options ------------------------------------------------------------ */

static double physical_memory_bytes(void)
{
    return (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
}

/* Refuse n that cannot fit, before anything is built. */
static int check_fits(const memory_options *o)
{
    double ram = physical_memory_bytes();
    for (size_t i = 0; i < o->n.count; i++) {
        double n = o->n.values[i];
        double need = n * GHASH_GUESS_BYTES_PER_ITEM;
        double bloom = n * o->bits_per_item / 8;
        if (bloom > need)
            need = bloom;
        if (need > 0.8 * ram) {
            cli_error("memory", "--n: %.6g items need about %.3g GB for the hash table, more than 80%% of this machine's %.3g GB",
                      n, need / 1e9, ram / 1e9);
            return -1;
        }
    }
    return 0;
}

static int parse_options(int argc, char **argv, memory_options *o, int *help)
{
    const char *n_text = MEMORY_DEFAULT_N;
    const char *bits_text = "10";
    uint64_t k = 7, seed = 1;
    o->keys_spec = "urls";
    o->output = NULL;
    *help = 0;
    strbuf line = strbuf_on(o->command, sizeof o->command);
    strbuf_argv(&line, "bloomlab memory", argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1;
            return 0;
        } else if (strncmp(a, "--n", 3) == 0 && (a[3] == '\0' || a[3] == '=')) {
            if ((v = cli_flag_value(argc, argv, &i, "memory", "--n")) == NULL)
                return -1;
            n_text = v;
        } else if (strncmp(a, "--bits-per-item", 15) == 0 && (a[15] == '\0' || a[15] == '=')) {
            if ((v = cli_flag_value(argc, argv, &i, "memory", "--bits-per-item")) == NULL)
                return -1;
            bits_text = v;
        } else if (strncmp(a, "--k", 3) == 0 && (a[3] == '\0' || a[3] == '=')) {
            if ((v = cli_flag_value(argc, argv, &i, "memory", "--k")) == NULL ||
                cli_u64(v, 1, FILTER_K_MAX, "memory", "--k", &k) != 0)
                return -1;
        } else if (strncmp(a, "--seed", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
            if ((v = cli_flag_value(argc, argv, &i, "memory", "--seed")) == NULL ||
                cli_u64(v, 0, UINT64_MAX, "memory", "--seed", &seed) != 0)
                return -1;
        } else if (strncmp(a, "--keys", 6) == 0 && (a[6] == '\0' || a[6] == '=')) {
            if ((v = cli_flag_value(argc, argv, &i, "memory", "--keys")) == NULL)
                return -1;
            o->keys_spec = v;
        } else if (strcmp(a, "-o") == 0 || strncmp(a, "--output", 8) == 0) {
            if ((v = cli_flag_value(argc, argv, &i, "memory", strcmp(a, "-o") == 0 ? "-o" : "--output")) == NULL)
                return -1;
            o->output = v;
        } else if (strcmp(a, "--inputs") == 0) {
            o->inputs_only = 1;
        } else {
            cli_error("memory", "unknown option '%s' (bloomlab memory --help)", a);
            return -1;
        }
    }
    o->k = (unsigned)k;
    o->seed = seed;
    if (number_parse(bits_text, &o->bits_per_item) != 0 || !(o->bits_per_item > 0) || o->bits_per_item > 1e6) {
        cli_error("memory", "--bits-per-item: '%s' is not a number above 0 and at most 1e6", bits_text);
        return -1;
    }
    char err[256];
    if (number_list_parse(n_text, 1, &o->n, err, sizeof err) != 0) {
        cli_error("memory", "--n: %s", err);
        return -1;
    }
    for (size_t i = 0; i < o->n.count; i++)
        if (o->n.values[i] < 1 || o->n.values[i] > (double)MEMORY_N_MAX) {
            cli_error("memory", "--n: %.6g is not an item count from 1 to 1e12", o->n.values[i]);
            number_list_free(&o->n);
            return -1;
        }
    return 0;
}

/* ---- output ------------------------------------------------------------- */

/* Mean key length over the first keys: what the strings alone weigh. */
static double mean_key_bytes(const keyset *ks, uint64_t seed, uint64_t n)
{
    uint64_t sample = n < MEMORY_SAMPLE_KEYS ? n : MEMORY_SAMPLE_KEYS;
    double total = 0;
    key_batch batch;
    for (uint64_t i = 0; i < sample; i += KEY_BATCH) {
        size_t count = sample - i < KEY_BATCH ? (size_t)(sample - i) : KEY_BATCH;
        keyset_fill(ks, seed, n, KEY_PRESENT, i, count, &batch);
        for (size_t j = 0; j < batch.count; j++)
            total += batch.len[j];
    }
    return sample > 0 ? total / (double)sample : 0;
}

/* The `# inputs:` line: a digest of everything that decides the rows except
 * the measurement itself (which no rerun repeats exactly: a committed
 * memory.csv is made again only when this changes). */
static void inputs_line(const memory_options *o, const keyset *ks, char *out, size_t size)
{
    XXH64_state_t *st = XXH64_createState();
    XXH64_reset(st, 0);
    char part[160];
    for (size_t i = 0; i < o->n.count; i++) {
        snprintf(part, sizeof part, "n=%.17g;", o->n.values[i]);
        XXH64_update(st, part, strlen(part));
    }
    snprintf(part, sizeof part, "bpi=%.17g;k=%u;seed=%llu;glib=%u.%u.%u;keys=", o->bits_per_item, o->k,
             (unsigned long long)o->seed, glib_major_version, glib_minor_version, glib_micro_version);
    XXH64_update(st, part, strlen(part));
    XXH64_update(st, keyset_spec(ks), strlen(keyset_spec(ks)));
    snprintf(out, size, "# inputs: %016llx results-version %d", (unsigned long long)XXH64_digest(st),
             BLOOMLAB_RESULTS_VERSION);
    XXH64_freeState(st);
}

static void format_metadata(const memory_options *o, const keyset *ks, strbuf *b)
{
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    double largest = o->n.values[o->n.count - 1];
    strbuf_printf(b, "# experiment: memory\n# command: %s\n# version: bloomlab %s (%s)\n", o->command,
              BLOOMLAB_VERSION, bloomlab_git_rev);
    strbuf_printf(b, "# keys: %s\n# seed: %llu\n# bits_per_item: %g\n# k: %u\n", keyset_spec(ks),
              (unsigned long long)o->seed, o->bits_per_item, o->k);
    strbuf_printf(b, "# mean_key_bytes: %.2f (first %llu keys)\n", mean_key_bytes(ks, o->seed, (uint64_t)largest),
              (unsigned long long)(largest < MEMORY_SAMPLE_KEYS ? largest : MEMORY_SAMPLE_KEYS));
    strbuf_printf(b, "# method: growth of the anonymous resident set (/proc/self/statm resident - shared) while one structure is built in a fresh child; page %ld bytes\n",
              sysconf(_SC_PAGESIZE));
    strbuf_printf(b, "# bloom: bloomlab filter, standard layout, m = ceil(n * bits_per_item), xxh3_64 + double hashing\n");
    strbuf_printf(b, "# ghashtable: GLib %u.%u.%u GHashTable of g_strndup'd keys (g_str_hash, g_str_equal)\n",
              glib_major_version, glib_minor_version, glib_micro_version);
    char inputs[128];
    inputs_line(o, ks, inputs, sizeof inputs);
    strbuf_printf(b, "%s\n# date: %s\n", inputs, date);
    strbuf_printf(b, "n,structure,bytes,bytes_per_item,ns_insert\n");
}

int cmd_memory(int argc, char **argv)
{
    memory_options o;
    int help = 0;
    memset(&o, 0, sizeof o);
    if (parse_options(argc, argv, &o, &help) != 0)
        return 2;
    if (help) {
        fputs(MEMORY_USAGE, stdout);
        return 0;
    }
    char err[256];
    keyset *ks = keyset_open(o.keys_spec, err, sizeof err);
    if (ks == NULL) {
        cli_error("memory", "--keys: %s", err);
        number_list_free(&o.n);
        return 2;
    }
    int status = 0;
    for (size_t i = 0; i < o.n.count && status == 0; i++)
        if (keyset_check(ks, (uint64_t)o.n.values[i], 0, err, sizeof err) != 0) {
            cli_error("memory", "--n: %s", err);
            status = 2;
        }
    if (status == 0 && check_fits(&o) != 0)
        status = 2;
    char inputs[128];
    inputs_line(&o, ks, inputs, sizeof inputs);
    if (status == 0 && o.inputs_only) {
        puts(inputs);
        keyset_close(ks);
        number_list_free(&o.n);
        return 0;
    }
    if (status == 0 && o.output != NULL && output_has_metadata(o.output, inputs)) {
        fprintf(stderr, "bloomlab memory: %s is up to date (its inputs are unchanged; delete it to measure again)\n",
                o.output);
        keyset_close(ks);
        number_list_free(&o.n);
        return 0;
    }
    strbuf out = strbuf_heap();
    if (status == 0)
        format_metadata(&o, ks, &out);
    for (size_t i = 0; i < o.n.count && status == 0; i++) {
        uint64_t n = (uint64_t)o.n.values[i];
        for (int kind = 0; kind < STRUCT_COUNT && status == 0; kind++) {
            memory_sample s = measure_in_child(&o, ks, n, (structure_kind)kind);
            if (!s.ok) {
                cli_error("memory", "n = %llu, %s: %s", (unsigned long long)n, STRUCTURE_NAMES[kind], s.error);
                status = 1;
                break;
            }
            strbuf_printf(&out, "%llu,%s,%llu,%.6g,%.3f\n", (unsigned long long)n, STRUCTURE_NAMES[kind],
                      (unsigned long long)s.rss_growth_bytes, (double)s.rss_growth_bytes / (double)n,
                      1e9 * s.seconds / (double)n);
        }
    }
    if (status == 0 && out.cut) { /* never a CSV with rows missing */
        cli_error("memory", "out of memory for the output");
        status = 1;
    }
    if (status == 0 && output_write_atomic(o.output, out.text, out.len, "memory") != 0)
        status = 1;
    strbuf_free(&out);
    keyset_close(ks);
    number_list_free(&o.n);
    return status;
}
