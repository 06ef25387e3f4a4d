#ifndef BLOOMLAB_VERSION_H
#define BLOOMLAB_VERSION_H
#define BLOOMLAB_VERSION "0.1.0"
/* The meaning of a result file's numbers.  Raise it when a change makes the
 * same experiment file and seed give other rows (a new column, another
 * estimator, other keys): the inputs fingerprint (fingerprint.h) includes
 * it, so merge refuses to join shards of two versions and a run never
 * resumes from a journal of another one. */
#define RESULTS_VERSION 1
#ifndef BLOOMLAB_GIT
#define BLOOMLAB_GIT "unknown"
#endif
#endif
