/* experiment.h -- an experiment: a grid of cells, from an INI file or flags.
 *
 * File format (INI, read with libinih):
 *
 *   [experiment]            name, seed, description; any grid key here is a
 *   seed = 1                default for every grid section below
 *   [any name]              one grid: the product of its value lists
 *   filter = standard, blocked512
 *   hash = xxh3_64, fnv1a32
 *   scheme = double
 *   keys = random64
 *   bits_per_item = 1..24   (or m = 1e6; not both)
 *   n = 1e5
 *   n.full = 1e6            a value used only with --scale full (or .quick)
 *   k = 1..20, opt          opt: the integer k with the least exact FPR of the
 *                           cell's own layout (model.h), ties to the smaller
 *   trials = 20
 *   queries = 1e5
 *   measure = fpr           fpr, or delete (then deletes = COUNT, ...)
 *   sizing = parquet-classic, bloomlab   instead of m / bits_per_item (filter
 *   p = 0.01, 1e-4          splitblock): each rule of sizing.h sizes the filter
 *                           for n items at each target rate p
 *   expected_n = 1e5        filter plugins only: the expected_n their create
 *                           is told (one value; default: the cell's n), so
 *                           that a filter made for 1e5 keys can be loaded
 *                           with n = 2.5e4..4e5 (m and k are as given)
 *
 * With no grid section, [experiment] itself is the one grid.  Lists, ranges
 * and numbers are numbers.h's.  Every problem -- an unknown key, a bad
 * number, an impossible value -- is reported as "FILE:LINE: ..." before
 * anything runs.  A line is read whole or refused: libinih as Debian builds
 * it reads lines of up to 198 characters (and keeps 49 of a section name)
 * and would cut a longer one into pieces that parse as other lines, so the
 * reader hands it only lines that fit and refuses the others.
 */
#ifndef BLOOMLAB_EXPERIMENT_H
#define BLOOMLAB_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

#include "filter/filter_plugin.h"
#include "filter/filters.h"
#include "base/hashes.h"
#include "harness/keys.h"
#include "filter/schemes.h"
#include "model/sizing.h"

#define WHERE_MAX 300
/* An experiment's name, a CSV field: longer ones are refused, never cut. */
#define EXPERIMENT_NAME_MAX 127
/* The most cells one experiment may have (merge bounds `# cells:` by it). */
#define EXPERIMENT_CELLS_MAX 1000000

typedef enum { MEASURE_FPR, MEASURE_DELETE } measure_kind;

/* How trials draw their randomness (sweep.h says what each seeds).
 * paired: trial t of every cell takes seed_derive(seed, t), so cells see
 * the same keys (and the ideal scheme the same streams): common random
 * numbers, the sharper design for comparing hashes, schemes or k, at the
 * price of dependent cells.  independent: each cell also mixes in its own
 * parameters, so cells are independent and counts of cells beyond a
 * threshold are binomial. */
typedef enum { SEEDS_PAIRED, SEEDS_INDEPENDENT } seeds_design;
const char *seeds_name(seeds_design seeds); /* "paired", "independent" */

/* A cell's filter is a built-in layout, or a plugin (plugin != 0), which
 * hashes keys itself: its cells take layout standard, whose formulas its
 * rows are set beside, and one (ignored) scheme and hash. */
typedef struct {
    layout_kind layout;
    size_t plugin;    /* 0: the built-in layout; else 1 + index into experiment.plugins */
    scheme_kind scheme;
    size_t hash;      /* index into experiment.hashes (unused for ideal) */
    size_t keys;      /* index into experiment.keysets */
    uint64_t m, n;
    unsigned k;
    uint64_t trials, queries, deletes;
    measure_kind measure;
    sizing_rule sizing; /* SIZING_NONE, or the rule that gave m from (n, p_target) */
    double p_target;    /* the rate the sizing rule was asked for */
    uint64_t expected_n; /* a plugin's create is told this n; 0: the cell's n */
    char where[WHERE_MAX]; /* the file:line (or flag) that set this cell's m */
} cell;

typedef struct {
    char name[EXPERIMENT_NAME_MAX + 1];
    char source[WHERE_MAX];   /* the file, or "flags" */
    char *path;               /* the experiment file as given; NULL for flags and stdin */
    char *text;               /* the bytes read from stdin (path "-"), kept for the
                               * inputs fingerprint: stdin cannot be read twice */
    size_t text_len;
    char scale[8];
    uint64_t seed;
    seeds_design seeds;
    cell *cells;
    size_t count;
    hasher *hashes;
    size_t hash_count;
    keyset **keysets;
    size_t keyset_count;
    filter_plugin *plugins;   /* the filter plugins the cells name */
    size_t plugin_count;
} experiment;

/* Load an experiment file at a scale ("quick" or "full").  Returns 0, or -1
 * with "FILE:LINE: reason" in err.  Path "-" reads standard input (messages
 * say "stdin:LINE"); having no file name, it is named by its `name` key
 * alone, and without one its name is left empty ("") for the caller to
 * give (experiment_name_from_path) or to refuse. */
int experiment_load(const char *path, const char *scale, experiment *out, char *err, size_t err_size);

/* Name the experiment after a path's stem (results/x.csv: x), as a file's
 * stem names it: 0, or -1 with the reason in err (too long, a control
 * character). */
int experiment_name_from_path(experiment *e, const char *path, char *err, size_t err_size);

/* The same from `bloomlab sweep` flags: pairs of (key, value) like
 * ("k", "1..20"); where = the flag, e.g. "--k". */
typedef struct {
    const char *key;
    const char *value;
    const char *where;
} setting;
int experiment_from_settings(const setting *settings, size_t count, const char *name, experiment *out,
                             char *err, size_t err_size);

void experiment_free(experiment *e);

const char *cell_hash_name(const experiment *e, const cell *c); /* "ideal" for the ideal scheme, "own" for a plugin */
const char *cell_scheme_name(const cell *c);                    /* "own" for a plugin */
const char *cell_filter_name(const experiment *e, const cell *c); /* the layout, or "plugin:PATH" */
const filter_plugin *cell_plugin(const experiment *e, const cell *c); /* NULL for a built-in layout */
const char *cell_keys_name(const experiment *e, const cell *c);
const char *measure_name(measure_kind m);

#endif
