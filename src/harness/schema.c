/* schema.c -- the CSV columns of the sweep and of the bench, each defined
 * once with its documentation; see schema.h.
 *
 * Each list below is the one definition of a CSV's columns: the header
 * line, the column count, the kinds the JSON writer needs and the text
 * `bloomlab list columns` prints are all expanded from it, so the
 * documentation cannot drift from what is written.  An entry is
 *   X(name, kind, unit, meaning, filled)
 * kind N (a number) or T (text); unit "" for names and words; filled says
 * which rows carry a value (the others leave the field empty).  The first
 * entry goes through F instead of X, so that the header can be one string
 * literal (no comma before the first name).  The sweep's header must stay
 * byte for byte what the committed results/NAME.csv hold (shard.c and merge
 * compare it); a new bench column goes last, as ns_update, fraction_insert
 * and system did, so the columns before it keep their places. */
#include "harness/schema.h"

#include <string.h>

#define EVERY_ROW "every row"
#define DELETE_ROWS "rows of measure = delete (0 otherwise)"

#define SWEEP_COLUMN_LIST(F, X)                                                                                         \
    F(experiment, T, "", "the experiment's name: its name key, else the file's stem (sweep for bloomlab sweep)",     \
      EVERY_ROW)                                                                                                      \
    X(filter, T, "", "the filter layout (bloomlab list filters)", EVERY_ROW)                                           \
    X(hash, T, "", "the hash function (bloomlab list hashes); ideal with the ideal scheme", EVERY_ROW)                 \
    X(scheme, T, "", "how the k positions are made from the hash (bloomlab list schemes)", EVERY_ROW)                  \
    X(keys, T, "", "the key set (bloomlab list keys)", EVERY_ROW)                                                      \
    X(m, N, "bits", "the filter's size (4-bit counters for the counting layout)", EVERY_ROW)                           \
    X(n, N, "items", "keys inserted into each trial's filter", EVERY_ROW)                                              \
    X(k, N, "positions", "positions set and tested per key (hash functions)", EVERY_ROW)                               \
    X(bits_per_item, N, "bits/item", "m / n", "rows with n > 0")                                                       \
    X(trials, N, "filters", "filters built, each from its trial's seed", EVERY_ROW)                                    \
    X(queries, N, "keys", "absent keys asked per trial", EVERY_ROW)                                                    \
    X(false_positives, N, "keys", "absent keys answered \"probably\", summed over the trials", EVERY_ROW)              \
    X(fpr, N, "rate", "false_positives / (queries x trials): the false-positive rate pooled over trials", EVERY_ROW)  \
    X(fpr_lo, N, "rate", "lower end of the 95% Wilson interval of fpr, with the design effect", EVERY_ROW)            \
    X(fpr_hi, N, "rate", "upper end of the same interval", EVERY_ROW)                                                  \
    X(fpr_se, N, "rate", "standard error of fpr under the model (query noise and Var F), valid at any trial count",  \
      EVERY_ROW)                                                                                                      \
    X(fpr_classic, N, "rate", "the classic formula (1 - e^(-kn/m))^k", EVERY_ROW)                                     \
    X(fpr_exact, N, "rate", "the layout's own exact formula (src/model/model.h); a filter plugin's own, else the standard's", \
      "rows whose layout has one (not deletes on a layout that cannot delete)")                                        \
    X(fill, N, "fraction", "mean fraction of bits (counters) set after the inserts",                                 \
      "every row but a filter plugin's without bits_set")                                                             \
    X(fill_sd, N, "fraction", "standard deviation of fill over the trials", EVERY_ROW)                                \
    X(fill_expected, N, "fraction", "the model's expected fill", EVERY_ROW)                                            \
    X(z, N, "standard errors", "(fpr - fpr_exact) / fpr_se", "rows with fpr_exact")                                  \
    X(ns_insert, N, "ns", "wall time per insert, making the key included (differs on every run)", EVERY_ROW)          \
    X(ns_query, N, "ns", "wall time per absent query, making the key included (differs on every run)", EVERY_ROW)     \
    X(fpr_finite, N, "rate", "the standard filter's exact finite-m formula", EVERY_ROW)                               \
    X(fpr_approx, N, "rate", "the layout's published approximation (the classic formula where none)", EVERY_ROW)      \
    X(fill_sd_expected, N, "fraction", "the model's standard deviation of fill", "standard and counting rows")       \
    X(k_opt, N, "positions", "the classic optimum (m/n) ln 2, not rounded", "rows with n > 0")                        \
    X(memory_bytes, N, "bytes", "the filter's memory", EVERY_ROW)                                                      \
    X(measure, T, "", "what was measured: fpr, or delete (false negatives after deletes)", EVERY_ROW)                 \
    X(deletes, N, "keys", "inserted keys deleted again per trial", DELETE_ROWS)                                        \
    X(present_queries, N, "keys", "inserted (and not deleted) keys asked back, summed over the trials", EVERY_ROW)    \
    X(false_negatives, N, "keys", "present keys answered \"absent\", summed over the trials", EVERY_ROW)              \
    X(saturations, N, "increments", "counter increments lost at 15, summed over the trials", "counting rows (0 otherwise)") \
    X(bad_deletes, N, "deletes", "deletes that found a counter at 0, summed over the trials", DELETE_ROWS)             \
    X(sizing, T, "", "the sizing rule that gave m (bloomlab list sizing)", "rows sized by a rule")                    \
    X(p_target, N, "rate", "the false-positive rate the sizing rule was asked for", "rows sized by a rule")           \
    X(fpr_filter_var, N, "rate^2", "Var F: the variance of one built filter's false-positive rate", "rows with fpr_exact") \
    X(k_best, N, "positions", "the layout's best integer k for this m and n (what k = opt takes)", EVERY_ROW)        \
    X(fpr_se_trials, N, "rate", "standard error of fpr from the spread of the trials' rates", "rows of 2 or more trials") \
    X(fpr_se_trials_df, N, "degrees of freedom", "trials - 1, the degrees of freedom of fpr_se_trials", EVERY_ROW)    \
    X(dispersion, N, "ratio", "the trials' variance of fpr over the model's", "rows of 2 or more trials")              \
    X(dispersion_p_over, N, "probability", "chi-square chance of at least this dispersion under the model",          \
      "rows of 2 or more trials")                                                                                      \
    X(dispersion_flag, T, "", "over when dispersion_p_over < 1e-3: variance the model lacks", "flagged rows")        \
    X(fpr_conditional, N, "rate", "mean F of the filters built, from their bits", "rows of the ideal scheme")         \
    X(z_query, N, "standard errors", "(fpr - fpr_conditional) / its binomial standard error: the queries' noise",    \
      "rows of the ideal scheme")                                                                                      \
    X(z_filter, N, "standard errors", "(fpr_conditional - fpr_exact) / sqrt(Var F / trials): the filters' noise",    \
      "rows of the ideal scheme")                                                                                      \
    X(seeds, T, "", "the design of the randomness: paired (common keys) or independent", EVERY_ROW)                   \
    X(seed, N, "", "the experiment's seed", EVERY_ROW)                                                                 \
    X(cell, N, "index", "the cell's index in the experiment, from 0 (always last: the journal and merge rely on it)", \
      EVERY_ROW)

#define ALL_BENCH "every section"
#define TIMED "sections filter, harness, peers and plugin"
#define MEASURED "sections filter, peers and plugin"
#define FILLED "sections filter and peers"
#define AGAINST_CEILING "sections ceiling, filter and peers"
#define COUNTED FILLED ", where the machine exposes counters"

#define BENCH_COLUMN_LIST(F, X)                                                                                         \
    F(section, T, "", "what the row is: ceiling (the machine's random-access rates), filter (a layout at a size), "   \
      "harness (what a sweep pays per query), peers (the peers kit's configurations) or plugin (a filter plugin and "   \
      "bloomlab's standard layout of one size, timed interleaved: the least of 3 rounds)", ALL_BENCH)       \
    X(filter, T, "", "the filter layout, or plugin:PATH.so", TIMED)                                                                       \
    X(hash, T, "", "the hash function (ideal for the ideal scheme; own for a plugin)", TIMED)                                            \
    X(scheme, T, "", "the index scheme (own for a plugin)", TIMED)                                                                        \
    X(keys, T, "", "the key set", TIMED)                                                                               \
    X(bytes, N, "bytes", "the filter's memory, or the ceiling's buffer", ALL_BENCH)                                    \
    X(m, N, "bits", "the filter's size (counters for counting)", ALL_BENCH " (0 for ceiling)")                        \
    X(n, N, "items", "keys inserted", ALL_BENCH " (0 for ceiling)")                                                    \
    X(k, N, "positions", "positions per key", ALL_BENCH " (0 for ceiling)")                                            \
    X(bits_per_item, N, "bits/item", "m / n", TIMED)                                                                   \
    X(fill, N, "fraction", "fraction of bits (counters) set after the inserts", MEASURED " (a plugin's with bits_set)")                               \
    X(fpr, N, "rate", "share of the timed absent queries answered \"probably\"", MEASURED)                             \
    X(ns_insert, N, "ns", "median time per insert over whole fills (section plugin: the least of 3 rounds)", MEASURED)                                          \
    X(ns_absent, N, "ns", "median time per absent query (section plugin: the least of 3 rounds)", TIMED)                                                      \
    X(ns_present, N, "ns", "median time per present query (section plugin: the least of 3 rounds)", MEASURED)                                                    \
    X(ns_absent_sweep, N, "ns", "absent queries asked in a sweep's batches", FILLED)                                  \
    X(mops_insert, N, "million/s", "1000 / ns_insert", MEASURED)                                                         \
    X(mops_absent, N, "million/s", "1000 / ns_absent", TIMED)                                                          \
    X(mops_present, N, "million/s", "1000 / ns_present", MEASURED)                                                       \
    X(ns_dependent, N, "ns", "a random cache-line read when each address is the previous read's value (latency)",    \
      AGAINST_CEILING)                                                                                                 \
    X(ns_independent, N, "ns", "a random cache-line read with reads overlapped: the fastest way (the ceiling)",      \
      AGAINST_CEILING)                                                                                                 \
    X(lines_absent, N, "lines", "expected distinct cache lines an absent query touches (src/commands/bench.h)", FILLED)       \
    X(lines_present, N, "lines", "expected distinct cache lines a present query (or insert) touches", FILLED)        \
    X(fraction_absent, N, "fraction", "lines_absent x ns_independent / ns_absent: the share of the ceiling reached", \
      FILLED)                                                                                                          \
    X(fraction_present, N, "fraction", "lines_present x ns_independent / ns_present", FILLED)                         \
    X(peak_rss_bytes, N, "bytes", "the process's peak resident memory when the row was written", ALL_BENCH)         \
    X(ns_update, N, "ns", "a random bit set in a random cache line, the fastest way (an insert's ceiling)",          \
      AGAINST_CEILING)                                                                                                 \
    X(fraction_insert, N, "fraction", "lines_present x ns_update / ns_insert", FILLED)                          \
    X(system, T, "", "whose filter the row times: bloomlab, or a filter plugin's name (bloomlab/filter.h)",  \
      ALL_BENCH)                                                                                                       \
    X(cycles_insert, N, "cycles", "CPU cycles an insert, user space, the mean over the timed fills "                  \
      "(perf_event_open; blank where the machine exposes no counters: the '# counters:' line says why)", COUNTED)     \
    X(cycles_absent, N, "cycles", "CPU cycles an absent query, the mean over the timed passes", COUNTED)            \
    X(cycles_present, N, "cycles", "CPU cycles a present query, the mean over the timed passes", COUNTED)           \
    X(instructions_insert, N, "instructions", "instructions retired an insert, user space, the mean over the fills", \
      COUNTED)                                                                                                         \
    X(instructions_absent, N, "instructions", "instructions retired an absent query, the mean over the passes",     \
      COUNTED)                                                                                                         \
    X(instructions_present, N, "instructions", "instructions retired a present query, the mean over the passes",    \
      COUNTED)

#define HEADER_FIRST(name, kind, unit, meaning, filled) #name
#define HEADER_NEXT(name, kind, unit, meaning, filled) "," #name
#define DOC(name, kind, unit, meaning, filled) {#name, COLUMN_##kind, unit, meaning, filled},
#define COLUMN_T COLUMN_TEXT
#define COLUMN_N COLUMN_NUMBER
#define TABLE_COLUMN(name, kind, unit, meaning, filled) {#name, COLUMN_##kind},

const char SWEEP_HEADER[] = SWEEP_COLUMN_LIST(HEADER_FIRST, HEADER_NEXT);
const column_doc SWEEP_COLUMN_DOCS[] = {SWEEP_COLUMN_LIST(DOC, DOC)};
_Static_assert(sizeof SWEEP_COLUMN_DOCS / sizeof SWEEP_COLUMN_DOCS[0] == SWEEP_COLUMNS, "SWEEP_COLUMNS counts the list");

const char BENCH_HEADER[] = BENCH_COLUMN_LIST(HEADER_FIRST, HEADER_NEXT);
const column_doc BENCH_COLUMN_DOCS[] = {BENCH_COLUMN_LIST(DOC, DOC)};
const table_column BENCH_TABLE_COLUMNS[] = {BENCH_COLUMN_LIST(TABLE_COLUMN, TABLE_COLUMN)};
_Static_assert(sizeof BENCH_COLUMN_DOCS / sizeof BENCH_COLUMN_DOCS[0] == BENCH_COLUMNS, "BENCH_COLUMNS counts the list");

const char *row_field_from_end(const char *row, int from_end)
{
    const char *p = row + strlen(row);
    for (int commas = 0; p > row; p--)
        if (p[-1] == ',' && commas++ == from_end)
            return p;
    return row;
}
