/* engine_flags.h -- what the commands around the sweep engine share (run,
 * sweep, theory): the flags for output, threads, scale, shards and
 * progress, the grid flags of sweep and theory (each a key of an experiment
 * file), and handing an experiment to the sweep. */
#ifndef BLOOMLAB_ENGINE_FLAGS_H
#define BLOOMLAB_ENGINE_FLAGS_H

#include "harness/experiment.h"

#define ERR_MAX 1024

/* The flags every engine command shares. */
typedef struct {
    const char *output;
    const char *scale;
    int threads;
    unsigned shard_index, shard_count;
    int quiet;
    int fresh;
    int inputs_only; /* --inputs: print the `# inputs:` line and run nothing */
} run_flags;

/* The defaults: scale quick, every usable core, the whole grid (shard 1/1). */
void engine_default_flags(run_flags *f);

/* One of the shared flags at argv[*i]?  1 taken, 0 not ours, -1 bad
 * (after one line on stderr). */
int engine_shared_flag(const char *cmd, int argc, char **argv, int *i, run_flags *f);

/* The grid flags (--n, --m, --filter ...) of argv as settings (out has
 * room for argc); the shared flags too when allow_run_flags.  Returns the
 * count, -1 on a bad flag (reported), -2 for --help. */
int engine_grid_settings(const char *cmd, int argc, char **argv, setting *out, run_flags *f, int allow_run_flags);

/* Run the experiment's cells as the flags say; the command line is
 * recorded in the CSV's metadata.  The exit status. */
int engine_run(const experiment *e, const run_flags *f, int argc, char **argv);

#endif
