/* experiment.c -- experiment files and sweep flags into a grid of cells.
 *
 * Reading happens in two steps.  First every (section, key, value, line) is
 * collected into specs: one spec of defaults from [experiment], one per grid
 * section.  Then each grid is expanded: its value lists are parsed, their
 * product is enumerated, and every cell is checked (names exist, numbers are
 * in range, the layout can be built, the key set is large enough).  The
 * first problem stops the load with FILE:LINE and nothing has run.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness/experiment.h"

#include <ctype.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <sys/stat.h>

#include "base/names.h"
#include "model/model.h"
#include "base/numbers.h"
#include "harness/output.h"
#include "model/sizing.h"
#include "base/text.h"
#include "model/theory.h"

enum {
    G_FILTER,
    G_HASH,
    G_SCHEME,
    G_KEYS,
    G_M,
    G_BITS_PER_ITEM,
    G_N,
    G_K,
    G_TRIALS,
    G_QUERIES,
    G_MEASURE,
    G_DELETES,
    G_SIZING,
    G_P,
    G_EXPECTED_N,
    G_COUNT
};

static const char *const GRID_KEYS[G_COUNT] = {"filter", "hash",   "scheme",  "keys",    "m",       "bits_per_item",
                                               "n",      "k",      "trials",  "queries", "measure", "deletes",
                                               "sizing", "p",      "expected_n"};
static const char *const GRID_DEFAULTS[G_COUNT] = {"standard", "xxh3_64", "default", "random64", NULL, NULL,
                                                   NULL,       "opt",     "10",     "100000",   "fpr", "0",
                                                   NULL,       NULL,     NULL};

#define VALUE_MAX 4096
#define MAX_GRIDS 64
#define LIMIT_K 64
#define LIMIT_COUNT 1e12     /* n, queries, deletes */
#define LIMIT_TRIALS 1e9
#define LIMIT_M 1e15         /* far above any RAM: the memory check refuses first */
#define LIMIT_CELLS EXPERIMENT_CELLS_MAX
/* What libinih (Debian: INI_MAX_LINE 200, MAX_SECTION 50) reads whole: a
 * line of 198 characters and its newline, a section name of 49. */
#define INIH_LINE_MAX 198
#define INIH_SECTION_MAX 49
#define LIMIT_WORK 1e13      /* queries x trials, n x trials of one cell: below this */

typedef struct {
    char value[G_COUNT][VALUE_MAX];
    char where[G_COUNT][WHERE_MAX];
    int set[G_COUNT];
    int scaled[G_COUNT]; /* set by KEY.SCALE: wins over KEY */
    char where_section[WHERE_MAX];
} grid_spec;

typedef struct {
    const char *path;
    const char *scale;
    int line;
    FILE *file;
    char *buf;       /* the line being read, whole (getline) */
    size_t buf_cap;
    int read_error;  /* errno of a failed read, 0 at the end of the file */
    grid_spec defaults;
    grid_spec *grids;
    size_t grid_count;
    int in_experiment;
    char current_section[INIH_SECTION_MAX + 1];
    char name[EXPERIMENT_NAME_MAX + 1];
    char seed[VALUE_MAX];
    char seed_where[WHERE_MAX];
    char seeds[VALUE_MAX];
    char seeds_where[WHERE_MAX];
    char *err;
    size_t err_size;
    int failed;
} parse_state;

static int grid_key_index(const char *key) { return name_index(GRID_KEYS, 0, G_COUNT, key); }

/* Record the first problem as "FILE:LINE: reason", control bytes shown as
 * \xNN (a message is one line); returns 0, inih's "stop". */
static int parse_fail(parse_state *st, const char *fmt, const char *a, const char *b)
{
    if (!st->failed) {
        char msg[600], where[WHERE_MAX + 640];
        snprintf(msg, sizeof msg, fmt, a, b);
        snprintf(where, sizeof where, "%s:%d: %s", st->path, st->line, msg);
        text_printable(where, st->err, st->err_size);
    }
    st->failed = 1;
    return 0;
}

/* The length of a section name on a "[name]" line, or 0 for other lines. */
static size_t section_name_length(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != '[')
        return 0;
    const char *end = strchr(line, ']');
    return end ? (size_t)(end - line - 1) : 0;
}

/* inih's reader: the next line, whole, or NULL (after parse_fail) for a
 * line inih would not read whole.  Lines are counted here, so every
 * message has the line's real number. */
static char *line_reader(char *str, int num, void *stream)
{
    parse_state *st = stream;
    errno = 0;
    ssize_t len = getline(&st->buf, &st->buf_cap, st->file);
    if (len < 0) {
        st->read_error = ferror(st->file) ? (errno ? errno : EIO) : 0;
        return NULL;
    }
    st->line++;
    size_t text_len = (size_t)len - (st->buf[len - 1] == '\n');
    if (memchr(st->buf, '\0', (size_t)len) != NULL) {
        parse_fail(st, "a NUL byte in the line (not a text file?)%s%s", "", "");
        return NULL;
    }
    if ((size_t)len > (size_t)num - 1 || text_len > INIH_LINE_MAX) {
        char count[32];
        snprintf(count, sizeof count, "%zu", text_len);
        parse_fail(st, "the line is %s characters long; lines are read up to %s (split a long list over keys of its own sections)",
                   count, "198");
        return NULL;
    }
    size_t section = section_name_length(st->buf);
    if (section > INIH_SECTION_MAX) {
        char count[32];
        snprintf(count, sizeof count, "%zu", section);
        parse_fail(st, "a section name of %s characters; the limit is %s", count, "49");
        return NULL;
    }
    memcpy(str, st->buf, (size_t)len + 1);
    return str;
}

/* Store KEY (or KEY.SCALE) = VALUE into a spec. */
static int spec_put(parse_state *st, grid_spec *spec, const char *key, const char *value)
{
    char base[64];
    const char *dot = strchr(key, '.');
    int scaled = 0;
    if (dot != NULL) {
        const char *suffix = dot + 1;
        if (strcmp(suffix, "quick") != 0 && strcmp(suffix, "full") != 0)
            return parse_fail(st, "unknown scale in key '%s' (use KEY.quick or KEY.full)%s", key, "");
        if (strcmp(suffix, st->scale) != 0)
            return 1; /* another scale's value: ignored */
        scaled = 1;
        snprintf(base, sizeof base, "%.*s", (int)(dot - key), key);
    } else {
        snprintf(base, sizeof base, "%s", key);
    }
    int g = grid_key_index(base);
    if (g < 0 && !st->in_experiment &&
        (strcmp(key, "seed") == 0 || strcmp(key, "seeds") == 0 || strcmp(key, "name") == 0 ||
         strcmp(key, "description") == 0))
        return parse_fail(st, "'%s' belongs in [experiment], not in a grid section%s", key, "");
    if (g < 0)
        return parse_fail(st, "unknown key '%s' (keys: filter, hash, scheme, keys, m, bits_per_item, n, k, trials, queries, measure, deletes, sizing, p, expected_n%s)",
                          key, st->in_experiment ? "; and name, seed, seeds, description in [experiment]" : "");
    if (strlen(value) >= VALUE_MAX)
        return parse_fail(st, "the value of '%s' is longer than %s characters", key, "4095");
    if (spec->set[g] && spec->scaled[g] == scaled)
        return parse_fail(st, "'%s' is given twice in this section%s", key, "");
    if (spec->set[g] && spec->scaled[g] && !scaled)
        return 1; /* KEY.SCALE already won */
    snprintf(spec->value[g], VALUE_MAX, "%s", value);
    snprintf(spec->where[g], WHERE_MAX, "%s:%d", st->path, st->line);
    spec->set[g] = 1;
    spec->scaled[g] = scaled;
    return 1;
}

static int on_ini_entry(void *user, const char *section, const char *key, const char *value)
{
    parse_state *st = user;
    if (st->failed)
        return 0;
    if (key == NULL) /* a section line with no keys yet: inih does not call for it */
        return 1;
    if (strcmp(section, st->current_section) != 0 || (st->grid_count == 0 && !st->in_experiment)) {
        snprintf(st->current_section, sizeof st->current_section, "%s", section);
        st->in_experiment = strcmp(section, "experiment") == 0 || section[0] == '\0';
        if (!st->in_experiment) {
            if (st->grid_count == MAX_GRIDS)
                return parse_fail(st, "more than %s grid sections%s", "64", "");
            grid_spec *g = &st->grids[st->grid_count++];
            memset(g, 0, sizeof *g);
            snprintf(g->where_section, WHERE_MAX, "%s:%d", st->path, st->line);
        }
    }
    if (st->in_experiment) {
        if (strcmp(key, "name") == 0) {
            if (strlen(value) > EXPERIMENT_NAME_MAX)
                return parse_fail(st, "name = '%.40s...' is longer than %s characters", value, "127");
            snprintf(st->name, sizeof st->name, "%s", value);
            return 1;
        }
        if (strcmp(key, "description") == 0 || strcmp(key, "title") == 0)
            return 1;
        if (strcmp(key, "seed") == 0) {
            snprintf(st->seed, sizeof st->seed, "%s", value);
            snprintf(st->seed_where, sizeof st->seed_where, "%s:%d", st->path, st->line);
            return 1;
        }
        if (strcmp(key, "seeds") == 0) {
            snprintf(st->seeds, sizeof st->seeds, "%s", value);
            snprintf(st->seeds_where, sizeof st->seeds_where, "%s:%d", st->path, st->line);
            return 1;
        }
        return spec_put(st, &st->defaults, key, value);
    }
    return spec_put(st, &st->grids[st->grid_count - 1], key, value);
}

/* ---- expansion ---------------------------------------------------------- */

typedef struct {
    experiment *e;
    char *err;
    size_t err_size;
    size_t cap;
} builder;

static int build_fail(builder *b, const char *where, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int build_fail(builder *b, const char *where, const char *fmt, ...)
{
    char msg[700], shown[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    text_printable(msg, shown, sizeof shown);
    snprintf(b->err, b->err_size, "%s: %s", where, shown);
    return -1;
}

/* Split a list of names on commas, trimming blanks; returns the count. */
static size_t split_names(char *text, char **out, size_t max)
{
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(text, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        char *end = tok + strlen(tok);
        while (end > tok && isspace((unsigned char)end[-1]))
            *--end = '\0';
        out[n++] = tok;
    }
    return n;
}

#define NAMES_MAX 64

typedef struct {
    const char *value;
    const char *where;
} resolved;

static resolved spec_get(const grid_spec *grid, const grid_spec *defaults, int g)
{
    if (grid->set[g])
        return (resolved){grid->value[g], grid->where[g]};
    if (defaults->set[g])
        return (resolved){defaults->value[g], defaults->where[g]};
    return (resolved){GRID_DEFAULTS[g], NULL};
}

static size_t find_or_add_hash(builder *b, const char *name, const char *where, int *fail)
{
    experiment *e = b->e;
    for (size_t i = 0; i < e->hash_count; i++)
        if (strcmp(e->hashes[i].name, name) == 0)
            return i;
    if (text_has_control(name)) {
        *fail = build_fail(b, where, "hash '%s' has a control character (names go into the CSV)", name);
        return 0;
    }
    hasher h;
    char why[700];
    if (hasher_resolve(name, &h, why, sizeof why) != 0) {
        *fail = build_fail(b, where, "%s", why);
        return 0;
    }
    hasher *grown = realloc(e->hashes, (e->hash_count + 1) * sizeof *grown);
    if (grown == NULL) {
        *fail = build_fail(b, where, "out of memory");
        return 0;
    }
    e->hashes = grown;
    e->hashes[e->hash_count] = h;
    return e->hash_count++;
}

/* The filter plugin `spec` names, loaded once per experiment: 1 + its index. */
static size_t find_or_add_plugin(builder *b, const char *spec, const char *where, int *fail)
{
    experiment *e = b->e;
    for (size_t i = 0; i < e->plugin_count; i++)
        if (strcmp(e->plugins[i].spec, spec) == 0)
            return i + 1;
    if (text_has_control(spec)) {
        *fail = build_fail(b, where, "filter '%s' has a control character (names go into the CSV)", spec);
        return 0;
    }
    filter_plugin p;
    char why[1400];
    if (filter_plugin_resolve(spec, &p, why, sizeof why) != 0) {
        *fail = build_fail(b, where, "%s", why);
        return 0;
    }
    filter_plugin *grown = realloc(e->plugins, (e->plugin_count + 1) * sizeof *grown);
    if (grown == NULL) {
        *fail = build_fail(b, where, "out of memory");
        return 0;
    }
    e->plugins = grown;
    e->plugins[e->plugin_count++] = p;
    return e->plugin_count;
}

/* A filter name: a plugin (its index into *plugin, the layout standard,
 * whose formulas its rows stand beside) or a built-in layout (*plugin 0). */
static int filter_of(builder *b, const char *name, const char *where, layout_kind *layout, size_t *plugin)
{
    int fail = 0;
    *plugin = 0;
    if (filter_plugin_named(name)) {
        *layout = LAYOUT_STANDARD;
        *plugin = find_or_add_plugin(b, name, where, &fail);
        return fail;
    }
    if (layout_from_name(name, layout) != 0)
        return build_fail(b, where, "unknown filter '%s' (standard, counting, partitioned, blocked512, register64, splitblock, or plugin:PATH.so)", name);
    return 0;
}

static size_t find_or_add_keys(builder *b, const char *spec, const char *where, int *fail)
{
    experiment *e = b->e;
    for (size_t i = 0; i < e->keyset_count; i++)
        if (strcmp(keyset_spec(e->keysets[i]), spec) == 0)
            return i;
    if (text_has_control(spec)) {
        *fail = build_fail(b, where, "keys '%s' has a control character (names go into the CSV)", spec);
        return 0;
    }
    char why[700];
    keyset *ks = keyset_open(spec, why, sizeof why);
    if (ks == NULL) {
        *fail = build_fail(b, where, "%s", why);
        return 0;
    }
    keyset **grown = realloc(e->keysets, (e->keyset_count + 1) * sizeof *grown);
    if (grown == NULL) {
        keyset_close(ks);
        *fail = build_fail(b, where, "out of memory");
        return 0;
    }
    e->keysets = grown;
    e->keysets[e->keyset_count] = ks;
    return e->keyset_count++;
}

/* A numeric list with range checks: "KEY = VALUE is ..." on failure. */
static int numbers_of(builder *b, resolved r, const char *key, int integral, double min, double max,
                      number_list *out)
{
    char why[400];
    if (number_list_parse(r.value, integral, out, why, sizeof why) != 0)
        return build_fail(b, r.where ? r.where : "default", "%s = %s: %s", key, r.value, why);
    for (size_t i = 0; i < out->count; i++) {
        double v = out->values[i];
        if (!(v >= min && v <= max)) {
            number_list_free(out);
            return build_fail(b, r.where, "%s = %g is outside %g..%g", key, v, min, max);
        }
    }
    return 0;
}

/* k values: numbers 1..64, or "opt" (stored as 0). */
static int k_values(builder *b, resolved r, number_list *out)
{
    char text[VALUE_MAX];
    snprintf(text, sizeof text, "%s", r.value);
    char *items[NAMES_MAX];
    size_t n = split_names(text, items, NAMES_MAX);
    out->values = NULL;
    out->count = 0;
    for (size_t i = 0; i < n; i++) {
        number_list part;
        if (strcmp(items[i], "opt") == 0) {
            part.values = malloc(sizeof(double));
            part.values[0] = 0;
            part.count = 1;
        } else if (numbers_of(b, (resolved){items[i], r.where}, "k", 1, 1, LIMIT_K, &part) != 0) {
            number_list_free(out);
            return -1;
        }
        double *grown = realloc(out->values, (out->count + part.count) * sizeof *grown);
        memcpy(grown + out->count, part.values, part.count * sizeof *grown);
        out->values = grown;
        out->count += part.count;
        number_list_free(&part);
    }
    if (out->count == 0)
        return build_fail(b, r.where, "k is empty");
    return 0;
}

static int push_cell(builder *b, const cell *c)
{
    experiment *e = b->e;
    if (e->count == LIMIT_CELLS)
        return build_fail(b, c->where, "the grid has more than %d cells", LIMIT_CELLS);
    if (e->count == b->cap) {
        size_t bigger = b->cap ? 2 * b->cap : 64;
        cell *grown = realloc(e->cells, bigger * sizeof *grown);
        if (grown == NULL)
            return build_fail(b, c->where, "out of memory");
        e->cells = grown;
        b->cap = bigger;
    }
    e->cells[e->count++] = *c;
    return 0;
}

/* Check one cell completely; fill its m and k from the grid values. */
static int finish_cell(builder *b, cell *c, double bits_per_item, int by_bits, unsigned k_given,
                       const resolved *r)
{
    const int by_sizing = c->sizing != SIZING_NONE;
    const char *wm = r[by_sizing ? G_SIZING : by_bits ? G_BITS_PER_ITEM : G_M].where;
    if (c->plugin && c->measure == MEASURE_DELETE)
        return build_fail(b, r[G_MEASURE].where ? r[G_MEASURE].where : wm, "measure = delete: the filter %s cannot delete (the plugin ABI has no delete)",
                          cell_filter_name(b->e, c));
    if (c->expected_n && !c->plugin)
        return build_fail(b, r[G_EXPECTED_N].where, "expected_n is the n a filter plugin's create is told to expect; the layout %s takes none",
                          layout_name(c->layout));
    if (c->plugin && by_sizing)
        return build_fail(b, r[G_SIZING].where ? r[G_SIZING].where : wm, "sizing = %s sizes split-block filters, not the plugin %s",
                          sizing_name(c->sizing), cell_filter_name(b->e, c));
    if (by_sizing) {
        if (c->layout != LAYOUT_SPLITBLOCK)
            return build_fail(b, r[G_FILTER].where ? r[G_FILTER].where : wm,
                              "sizing = %s sizes split-block filters: it needs filter splitblock, not %s",
                              sizing_name(c->sizing), layout_name(c->layout));
        if (c->n == 0)
            return build_fail(b, r[G_N].where ? r[G_N].where : wm, "sizing = %s needs n >= 1 (a rule sizes for n items)",
                              sizing_name(c->sizing));
        c->m = sizing_bits(c->sizing, c->n, c->p_target, (uint64_t)LIMIT_M);
        if (c->m == 0)
            return build_fail(b, wm, "sizing = %s at n = %llu, p = %g needs more than %.0e bits",
                              sizing_name(c->sizing), (unsigned long long)c->n, c->p_target, LIMIT_M);
    } else if (by_bits) {
        if (c->n == 0)
            return build_fail(b, wm, "bits_per_item needs n >= 1 (use m with n = 0)");
        double m = round(bits_per_item * (double)c->n);
        if (m < 1)
            m = 1;
        if (m > LIMIT_M)
            return build_fail(b, wm, "bits_per_item = %g at n = %llu gives m = %.3g bits, beyond %.0e",
                              bits_per_item, (unsigned long long)c->n, m, LIMIT_M);
        c->m = (uint64_t)m;
    }
    c->m = layout_fit_m(c->layout, c->m);
    c->k = k_given ? k_given : model_k_best(c->layout, c->m, c->n, NULL, NULL); /* the layout's own best */
    snprintf(c->where, sizeof c->where, "%s", wm ? wm : "default");
    char why[400];
    if (layout_check(c->layout, c->scheme, c->m, c->k, why, sizeof why) != 0)
        return build_fail(b, r[G_FILTER].where ? r[G_FILTER].where : wm, "%s", why);
    if (keyset_check(b->e->keysets[c->keys], c->n, c->queries, why, sizeof why) != 0)
        return build_fail(b, r[G_KEYS].where ? r[G_KEYS].where : wm, "%s", why);
    /* The work of one cell, in keys hashed: at LIMIT_WORK it would run for
     * a day or more (at ~10 ns a key); far above, the pooled counts would
     * pass 2^64. */
    double queries_total = (double)c->queries * (double)c->trials, inserts_total = (double)c->n * (double)c->trials;
    if (queries_total >= LIMIT_WORK)
        return build_fail(b, r[G_QUERIES].where ? r[G_QUERIES].where : wm,
                          "queries = %llu times trials = %llu makes %.3g queries in one cell; the limit is under %.0e (that is about %.0f hours at 10 ns a query)",
                          (unsigned long long)c->queries, (unsigned long long)c->trials, queries_total, LIMIT_WORK,
                          queries_total * 10e-9 / 3600);
    if (inserts_total >= LIMIT_WORK)
        return build_fail(b, r[G_N].where ? r[G_N].where : wm,
                          "n = %llu times trials = %llu makes %.3g inserts in one cell; the limit is under %.0e (that is about %.0f hours at 10 ns an insert)",
                          (unsigned long long)c->n, (unsigned long long)c->trials, inserts_total, LIMIT_WORK,
                          inserts_total * 10e-9 / 3600);
    if (c->deletes > c->n)
        return build_fail(b, r[G_DELETES].where, "deletes = %llu is more than n = %llu",
                          (unsigned long long)c->deletes, (unsigned long long)c->n);
    if (c->measure == MEASURE_DELETE && c->deletes == 0)
        return build_fail(b, r[G_MEASURE].where, "measure = delete needs deletes >= 1");
    return push_cell(b, c);
}

static int expand_grid(builder *b, const grid_spec *grid, const grid_spec *defaults)
{
    resolved r[G_COUNT];
    for (int g = 0; g < G_COUNT; g++)
        r[g] = spec_get(grid, defaults, g);
    const char *section = grid->where_section[0] ? grid->where_section : b->e->source;
    if (r[G_N].value == NULL)
        return build_fail(b, section, "no n given (the number of items to insert)");
    const int by_sizing = r[G_SIZING].value != NULL;
    if (by_sizing && (r[G_M].value != NULL || r[G_BITS_PER_ITEM].value != NULL)) {
        const int g = r[G_M].value != NULL ? G_M : G_BITS_PER_ITEM;
        return build_fail(b, r[G_SIZING].where ? r[G_SIZING].where : section,
                          "give m, bits_per_item or sizing, not two of them (%s at %s)", GRID_KEYS[g],
                          r[g].where ? r[g].where : "default");
    }
    if (!by_sizing && r[G_P].value != NULL)
        return build_fail(b, r[G_P].where ? r[G_P].where : section,
                          "p is the false-positive rate a sizing rule is asked for: give it with sizing = RULE (%s)",
                          sizing_names());
    if (by_sizing && r[G_P].value == NULL)
        return build_fail(b, r[G_SIZING].where ? r[G_SIZING].where : section,
                          "sizing = %s needs p, the false-positive rate the rule is asked for", r[G_SIZING].value);
    if (!by_sizing && r[G_M].value == NULL && r[G_BITS_PER_ITEM].value == NULL)
        return build_fail(b, section, "neither m nor bits_per_item given");
    if (r[G_M].value != NULL && r[G_BITS_PER_ITEM].value != NULL)
        return build_fail(b, r[G_M].where, "give m or bits_per_item, not both (bits_per_item at %s)",
                          r[G_BITS_PER_ITEM].where ? r[G_BITS_PER_ITEM].where : "default");
    int by_bits = r[G_BITS_PER_ITEM].value != NULL;

    char filters_text[VALUE_MAX], hashes_text[VALUE_MAX], schemes_text[VALUE_MAX], keys_text[VALUE_MAX],
        measure_text[VALUE_MAX];
    snprintf(filters_text, sizeof filters_text, "%s", r[G_FILTER].value);
    snprintf(hashes_text, sizeof hashes_text, "%s", r[G_HASH].value);
    snprintf(schemes_text, sizeof schemes_text, "%s", r[G_SCHEME].value);
    snprintf(keys_text, sizeof keys_text, "%s", r[G_KEYS].value);
    snprintf(measure_text, sizeof measure_text, "%s", r[G_MEASURE].value);
    char *filters[NAMES_MAX], *hashes[NAMES_MAX], *schemes[NAMES_MAX], *keys[NAMES_MAX];
    size_t nf = split_names(filters_text, filters, NAMES_MAX), nh = split_names(hashes_text, hashes, NAMES_MAX),
           ns = split_names(schemes_text, schemes, NAMES_MAX), nk = split_names(keys_text, keys, NAMES_MAX);
    const char *wf = r[G_FILTER].where ? r[G_FILTER].where : section;
    if (nf == 0 || nh == 0 || ns == 0 || nk == 0)
        return build_fail(b, section, "an empty filter, hash, scheme or keys list");

    layout_kind layouts[NAMES_MAX];
    size_t plugins[NAMES_MAX];
    scheme_kind scheme_list[NAMES_MAX];
    size_t hash_index[NAMES_MAX], keys_index[NAMES_MAX];
    int fail = 0;
    for (size_t i = 0; i < nf; i++)
        if (filter_of(b, filters[i], wf, &layouts[i], &plugins[i]) != 0)
            return -1;
    for (size_t i = 0; i < ns; i++)
        if (strcmp(schemes[i], "default") == 0)
            scheme_list[i] = SCHEME_COUNT; /* each layout's own: layout_default_scheme */
        else if (scheme_from_name(schemes[i], &scheme_list[i]) != 0)
            return build_fail(b, r[G_SCHEME].where ? r[G_SCHEME].where : section, "unknown scheme '%s' (%s, default)",
                              schemes[i], scheme_names_text());
    for (size_t i = 0; i < nh && !fail; i++)
        hash_index[i] = find_or_add_hash(b, hashes[i], r[G_HASH].where ? r[G_HASH].where : section, &fail);
    for (size_t i = 0; i < nk && !fail; i++)
        keys_index[i] = find_or_add_keys(b, keys[i], r[G_KEYS].where ? r[G_KEYS].where : section, &fail);
    if (fail)
        return -1;
    measure_kind measure;
    if (strcmp(measure_text, "fpr") == 0)
        measure = MEASURE_FPR;
    else if (strcmp(measure_text, "delete") == 0)
        measure = MEASURE_DELETE;
    else
        return build_fail(b, r[G_MEASURE].where, "unknown measure '%s' (fpr, delete)", measure_text);

    /* With sizing, each (rule, p) pair stands where a value of m would. */
    sizing_rule rules[NAMES_MAX];
    size_t nr = 0;
    char sizing_text[VALUE_MAX];
    if (by_sizing) {
        char *names[NAMES_MAX];
        snprintf(sizing_text, sizeof sizing_text, "%s", r[G_SIZING].value);
        nr = split_names(sizing_text, names, NAMES_MAX);
        if (nr == 0)
            return build_fail(b, r[G_SIZING].where, "sizing is empty (%s)", sizing_names());
        for (size_t i = 0; i < nr; i++)
            if (sizing_from_name(names[i], &rules[i]) != 0)
                return build_fail(b, r[G_SIZING].where, "unknown sizing rule '%s' (%s)", names[i], sizing_names());
    }
    number_list ms = {0}, ps = {0}, ns_ = {0}, ks = {0}, trials = {0}, queries = {0}, deletes = {0}, expected = {0};
    int rc = -1;
    if (by_sizing) {
        if (numbers_of(b, r[G_P], "p", 0, -1e300, 1e300, &ps) != 0)
            goto done;
        for (size_t i = 0; i < ps.count; i++)
            if (!(ps.values[i] > 0 && ps.values[i] < 1)) {
                build_fail(b, r[G_P].where, "p = %g is not a rate in (0, 1)", ps.values[i]);
                goto done;
            }
    } else if (numbers_of(b, r[by_bits ? G_BITS_PER_ITEM : G_M], by_bits ? "bits_per_item" : "m", !by_bits,
                          by_bits ? 1e-6 : 1, by_bits ? 1e9 : LIMIT_M, &ms) != 0)
        goto done;
    const size_t size_count = by_sizing ? nr * ps.count : ms.count;
    if (by_bits)
        for (size_t i = 0; i < ms.count; i++)
            if (!(ms.values[i] > 0)) {
                build_fail(b, r[G_BITS_PER_ITEM].where, "bits_per_item = %g must be above 0", ms.values[i]);
                goto done;
            }
    if (numbers_of(b, r[G_N], "n", 1, 0, LIMIT_COUNT, &ns_) != 0 || k_values(b, r[G_K], &ks) != 0 ||
        numbers_of(b, r[G_TRIALS], "trials", 1, 1, LIMIT_TRIALS, &trials) != 0 ||
        numbers_of(b, r[G_QUERIES], "queries", 1, 1, LIMIT_COUNT, &queries) != 0 ||
        numbers_of(b, r[G_DELETES], "deletes", 1, 0, LIMIT_COUNT, &deletes) != 0)
        goto done;
    if (r[G_EXPECTED_N].value != NULL) {
        if (numbers_of(b, r[G_EXPECTED_N], "expected_n", 1, 1, LIMIT_COUNT, &expected) != 0)
            goto done;
        if (expected.count != 1) {
            build_fail(b, r[G_EXPECTED_N].where, "expected_n takes one value, not a list (%zu given)", expected.count);
            goto done;
        }
    }

    for (size_t fi = 0; fi < nf; fi++)
        for (size_t hi = 0; hi < nh; hi++)
            for (size_t si = 0; si < ns; si++) {
                const scheme_kind scheme =
                    scheme_list[si] == SCHEME_COUNT ? layout_default_scheme(layouts[fi]) : scheme_list[si];
                /* the ideal scheme uses no hash: one set of its cells, not one per hash;
                 * a plugin uses neither: one set, not one per hash and scheme */
                if ((scheme == SCHEME_IDEAL || scheme == SCHEME_PARQUET || plugins[fi]) && hi > 0)
                    continue;
                if (plugins[fi] && si > 0)
                    continue;
                for (size_t ki = 0; ki < nk; ki++)
                    for (size_t mi = 0; mi < size_count; mi++)
                        for (size_t ni = 0; ni < ns_.count; ni++)
                            for (size_t kk = 0; kk < ks.count; kk++)
                                for (size_t ti = 0; ti < trials.count; ti++)
                                    for (size_t qi = 0; qi < queries.count; qi++)
                                        for (size_t di = 0; di < deletes.count; di++) {
                                            cell c;
                                            memset(&c, 0, sizeof c);
                                            c.layout = layouts[fi];
                                            c.plugin = plugins[fi];
                                            /* a plugin's cell: a fixed scheme, never ideal (sweep.c asks) */
                                            c.scheme = plugins[fi] ? SCHEME_DOUBLE : scheme;
                                            c.hash = hash_index[hi];
                                            c.keys = keys_index[ki];
                                            c.m = by_bits || by_sizing ? 0 : (uint64_t)ms.values[mi];
                                            if (by_sizing) {
                                                c.sizing = rules[mi / ps.count];
                                                c.p_target = ps.values[mi % ps.count];
                                            }
                                            c.n = (uint64_t)ns_.values[ni];
                                            c.trials = (uint64_t)trials.values[ti];
                                            c.queries = (uint64_t)queries.values[qi];
                                            c.deletes = (uint64_t)deletes.values[di];
                                            c.measure = measure;
                                            c.expected_n = expected.count ? (uint64_t)expected.values[0] : 0;
                                            if (finish_cell(b, &c, by_sizing ? 0 : ms.values[mi], by_bits,
                                                            (unsigned)ks.values[kk], r) != 0)
                                                goto done;
                                        }
            }
    rc = 0;
done:
    number_list_free(&ms);
    number_list_free(&ps);
    number_list_free(&ns_);
    number_list_free(&ks);
    number_list_free(&trials);
    number_list_free(&queries);
    number_list_free(&deletes);
    number_list_free(&expected);
    return rc;
}

static int load_fail(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int set_seed(experiment *e, const char *text, const char *where, char *err, size_t err_size)
{
    if (text == NULL || *text == '\0') {
        e->seed = 1;
        return 0;
    }
    if (number_parse_u64(text, 0, UINT64_MAX, &e->seed) != 0) {
        load_fail(err, err_size, "%s: seed = %s is not a whole number from 0 to 2^64-1", where, text);
        return -1;
    }
    return 0;
}

static int set_seeds(experiment *e, const char *text, const char *where, char *err, size_t err_size)
{
    if (text == NULL || *text == '\0' || strcmp(text, "paired") == 0) {
        e->seeds = SEEDS_PAIRED;
        return 0;
    }
    if (strcmp(text, "independent") == 0) {
        e->seeds = SEEDS_INDEPENDENT;
        return 0;
    }
    char shown[VALUE_MAX];
    text_printable(text, shown, sizeof shown);
    snprintf(err, err_size, "%s: seeds = %s is not paired or independent", where, shown);
    return -1;
}

const char *seeds_name(seeds_design seeds) { return seeds == SEEDS_INDEPENDENT ? "independent" : "paired"; }

/* A message into err, control bytes shown as \xNN (paths may hold any). */
static int load_fail(char *err, size_t err_size, const char *fmt, ...)
{
    char msg[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    text_printable(msg, err, err_size);
    return -1;
}

/* The experiment's name: the `name` key, else the file's stem.  It is a
 * CSV field and a metadata line: a control byte or more than 127
 * characters is refused, never cut. */
static int set_name(experiment *e, const char *given, const char *path, char *err, size_t err_size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    if (given[0] != '\0') {
        base = given;
        len = strlen(given);
    }
    if (len > EXPERIMENT_NAME_MAX)
        return load_fail(err, err_size, "%s: the experiment's name ('%.40s...', %s) is %zu characters; the limit is %d",
                         path, base, given[0] ? "its name key" : "the file's name", len, EXPERIMENT_NAME_MAX);
    snprintf(e->name, sizeof e->name, "%.*s", (int)len, base);
    if (text_has_control(e->name))
        return load_fail(err, err_size, "%s: the experiment's name '%s' has a control character", path, e->name);
    return 0;
}

int experiment_name_from_path(experiment *e, const char *path, char *err, size_t err_size)
{
    return set_name(e, "", path, err, err_size);
}

/* Standard input's bytes, kept in e->text (the fingerprint hashes them:
 * stdin cannot be read again), as a stream the parser reads like a file. */
static FILE *open_stdin(experiment *e, char *err, size_t err_size)
{
    if (!stdin_take_once()) {
        load_fail(err, err_size, "stdin: standard input was read already (it can be read once)");
        return NULL;
    }
    size_t cap = 1 << 12;
    e->text = malloc(cap);
    size_t got;
    while (e->text != NULL && (got = fread(e->text + e->text_len, 1, cap - e->text_len, stdin)) > 0) {
        e->text_len += got;
        if (e->text_len == cap) {
            char *bigger = realloc(e->text, cap *= 2);
            if (bigger == NULL)
                free(e->text);
            e->text = bigger;
        }
    }
    if (e->text == NULL || ferror(stdin)) {
        load_fail(err, err_size, "stdin: cannot read the experiment from standard input: %s",
                  e->text == NULL ? strerror(ENOMEM) : strerror(errno));
        return NULL;
    }
    /* fmemopen refuses a size of 0: an empty input reads as the empty file */
    FILE *f = e->text_len > 0 ? fmemopen(e->text, e->text_len, "r") : fopen("/dev/null", "r");
    if (f == NULL)
        load_fail(err, err_size, "stdin: cannot read the experiment from standard input: %s", strerror(errno));
    return f;
}

/* Open the experiment file, refusing what is not one (a directory reads
 * as an empty file on Linux, which would be "no n given"). */
static FILE *open_experiment(const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        load_fail(err, err_size, "%s: cannot open the experiment file: %s", path, strerror(errno));
        return NULL;
    }
    struct stat info;
    if (fstat(fileno(f), &info) == 0 && S_ISDIR(info.st_mode)) {
        load_fail(err, err_size, "%s: is a directory, not an experiment file", path);
        fclose(f);
        return NULL;
    }
    return f;
}

int experiment_load(const char *path, const char *scale, experiment *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    const int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin)
        path = "stdin"; /* what messages and the `# source:` line call it */
    snprintf(out->source, sizeof out->source, "%s", path);
    snprintf(out->scale, sizeof out->scale, "%s", scale);
    out->path = from_stdin ? NULL : strdup(path);
    parse_state *st = calloc(1, sizeof *st);
    st->grids = calloc(MAX_GRIDS, sizeof *st->grids);
    st->path = path;
    st->scale = scale;
    st->err = err;
    st->err_size = err_size;
    st->file = from_stdin ? open_stdin(out, err, err_size) : open_experiment(path, err, err_size);
    int rc = -1;
    if (st->file == NULL)
        goto done;
    int ini = ini_parse_stream(line_reader, st, on_ini_entry, st);
    fclose(st->file);
    if (st->failed)
        goto done;
    if (st->read_error != 0) {
        load_fail(err, err_size, "%s:%d: cannot read the experiment file: %s", path, st->line + 1,
                  strerror(st->read_error));
        goto done;
    }
    if (ini != 0) {
        load_fail(err, err_size, "%s:%d: not a valid INI line", path, ini > 0 ? ini : st->line);
        goto done;
    }
    if ((!from_stdin || st->name[0] != '\0') && set_name(out, st->name, path, err, err_size) != 0)
        goto done;
    if (set_seed(out, st->seed, st->seed_where, err, err_size) != 0 ||
        set_seeds(out, st->seeds, st->seeds_where, err, err_size) != 0)
        goto done;
    builder b = {out, err, err_size, 0};
    if (st->grid_count == 0) {
        grid_spec empty;
        memset(&empty, 0, sizeof empty);
        snprintf(empty.where_section, WHERE_MAX, "%s", path);
        if (expand_grid(&b, &empty, &st->defaults) != 0)
            goto done;
    }
    for (size_t i = 0; i < st->grid_count; i++)
        if (expand_grid(&b, &st->grids[i], &st->defaults) != 0)
            goto done;
    if (out->count == 0) {
        load_fail(err, err_size, "%s: the experiment has no cells", path);
        goto done;
    }
    rc = 0;
done:
    free(st->buf);
    free(st->grids);
    free(st);
    if (rc != 0)
        experiment_free(out);
    return rc;
}

int experiment_from_settings(const setting *settings, size_t count, const char *name, experiment *out,
                             char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    snprintf(out->source, sizeof out->source, "flags");
    snprintf(out->scale, sizeof out->scale, "quick");
    snprintf(out->name, sizeof out->name, "%s", name);
    grid_spec *spec = calloc(1, sizeof *spec), *none = calloc(1, sizeof *none);
    snprintf(spec->where_section, WHERE_MAX, "flags");
    int rc = -1;
    const char *seed = NULL, *seed_where = NULL, *seeds = NULL, *seeds_where = NULL;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(settings[i].key, "seed") == 0) {
            seed = settings[i].value;
            seed_where = settings[i].where;
            continue;
        }
        if (strcmp(settings[i].key, "seeds") == 0) {
            seeds = settings[i].value;
            seeds_where = settings[i].where;
            continue;
        }
        int g = grid_key_index(settings[i].key);
        if (g < 0 || strlen(settings[i].value) >= VALUE_MAX) {
            snprintf(err, err_size, "%s: not a grid setting", settings[i].where);
            goto done;
        }
        snprintf(spec->value[g], VALUE_MAX, "%s", settings[i].value);
        snprintf(spec->where[g], WHERE_MAX, "%s", settings[i].where);
        spec->set[g] = 1;
    }
    if (set_seed(out, seed, seed_where, err, err_size) != 0 ||
        set_seeds(out, seeds, seeds_where, err, err_size) != 0)
        goto done;
    builder b = {out, err, err_size, 0};
    rc = expand_grid(&b, spec, none);
done:
    free(spec);
    free(none);
    if (rc != 0)
        experiment_free(out);
    return rc;
}

void experiment_free(experiment *e)
{
    free(e->path);
    e->path = NULL;
    free(e->text);
    e->text = NULL;
    e->text_len = 0;
    free(e->cells);
    free(e->hashes);
    for (size_t i = 0; i < e->keyset_count; i++)
        keyset_close(e->keysets[i]);
    free(e->keysets);
    free(e->plugins);
    e->plugins = NULL;
    e->plugin_count = 0;
    e->cells = NULL;
    e->hashes = NULL;
    e->keysets = NULL;
    e->count = e->hash_count = e->keyset_count = 0;
}

const filter_plugin *cell_plugin(const experiment *e, const cell *c)
{
    return c->plugin ? &e->plugins[c->plugin - 1] : NULL;
}

const char *cell_filter_name(const experiment *e, const cell *c)
{
    return c->plugin ? e->plugins[c->plugin - 1].spec : layout_name(c->layout);
}

/* A plugin hashes the keys its own way: no hash or scheme of ours applies. */
const char *cell_scheme_name(const cell *c) { return c->plugin ? "own" : scheme_name(c->scheme); }

const char *cell_hash_name(const experiment *e, const cell *c)
{
    if (c->plugin)
        return "own";
    if (c->scheme == SCHEME_PARQUET)
        return "xxh64"; /* seed 0, whatever the hash list says */
    return c->scheme == SCHEME_IDEAL ? "ideal" : e->hashes[c->hash].name;
}

const char *cell_keys_name(const experiment *e, const cell *c) { return keyset_spec(e->keysets[c->keys]); }

const char *measure_name(measure_kind m) { return m == MEASURE_DELETE ? "delete" : "fpr"; }
