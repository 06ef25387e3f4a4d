/* sweep.h -- run the cells of an experiment and write tidy CSV.
 *
 * Determinism.  Trial t of a cell uses the seed seed_derive(S, t): the
 * hash seed, the key sample and the ideal scheme's streams all come from
 * it.  S is the experiment's seed when seeds = paired (the default: every
 * cell sees the same keys, common random numbers), or that seed mixed with
 * all the cell's parameters (filter, scheme, hash, keys, m, n, k, trials,
 * queries, measure, deletes) when seeds = independent (experiment.h).  Either way a cell's
 * numbers depend on its parameters and the seed only -- not on the thread
 * that ran it, the order of cells, or the shard.  Trials
 * are combined in trial order.  Only the ns_* columns and the metadata lines
 * (# threads, # date, # wall_time_s) vary between runs.
 *
 * Crash safety.  Each finished cell is appended to a hidden journal beside
 * the output (.NAME.csv.partial) and flushed to disk; an interrupted run
 * leaves the journal, and the next run with the same experiment resumes
 * from it.  The output itself is written to a temporary file and renamed,
 * so it is either the previous complete file or the new complete one.  A
 * lock (NAME.csv.lock, flock) keeps two runs off the same output.
 */
#ifndef BLOOMLAB_SWEEP_H
#define BLOOMLAB_SWEEP_H

#include <stdio.h>

#include "harness/experiment.h"
#include "harness/schema.h" /* SWEEP_HEADER */

typedef struct {
    const char *output;   /* NULL or "-": stdout (no journal, no lock, always run) */
    const char *command;  /* for the metadata */
    int threads;
    unsigned shard_index; /* 1-based */
    unsigned shard_count;
    int quiet;
    int resume;           /* use the journal and keep a current output (default on) */
    int inputs_only;      /* print the `# inputs:` line to stdout and run nothing */
} sweep_options;

/* Returns 0, 1 (a failure: message printed), 2 (bad input), 130 (interrupted). */
int sweep_run(const experiment *e, const sweep_options *opt);

/* Batches a sweep makes and asks at once (query_many keeps several in
 * flight, which beyond the cache hides each one's memory latency). */
#define SWEEP_QUERY_BATCHES 8

/* How a sweep asks keys [first, end) of one side of a trial that inserted
 * n (end - first <= SWEEP_QUERY_BATCHES x KEY_BATCH): made into batches by
 * keyset_fill, asked through one query_many.  Returns the "probably" count.
 * The bench's harness rows time this very call. */
uint64_t sweep_query_chunk(const filter *f, const filter_ops *ops, const scheme_ctx *ctx, const keyset *ks,
                           uint64_t seed, uint64_t n, key_side side, uint64_t first, uint64_t end);


#endif
