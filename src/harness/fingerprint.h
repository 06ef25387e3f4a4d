/* fingerprint.h -- one digest of everything a run's rows depend on.
 *
 * The rows of a run (ns_* aside) are a pure function of: the experiment
 * file's bytes (or, for `bloomlab sweep`, the grid its flags made), the
 * bytes of every file a key set reads (words:FILE), the bytes of every hash
 * plugin and filter plugin library, the seed, the scale and BLOOMLAB_RESULTS_VERSION (version.h).
 * inputs_fingerprint hashes all of them, each part tagged and
 * length-prefixed so that no two different inputs give the same stream,
 * with XXH3-128.  It goes into the CSV as `# inputs: <hex>`: merge refuses
 * shards whose fingerprints differ, a run resumes only from a journal of the
 * same fingerprint, and a build can skip a run whose output already holds
 * the current one. */
#ifndef BLOOMLAB_FINGERPRINT_H
#define BLOOMLAB_FINGERPRINT_H

#include <stddef.h>

#include "harness/experiment.h"

/* 32 hex digits and the terminating NUL. */
#define INPUTS_FINGERPRINT_SIZE 33

/* The fingerprint of e's inputs as lowercase hex into hex.  Returns 0, or
 * -1 with "FILE: cannot read ...: reason" in err when an input file cannot
 * be read (it changed or vanished since the experiment was loaded). */
int inputs_fingerprint(const experiment *e, char hex[INPUTS_FINGERPRINT_SIZE], char *err, size_t err_size);

#endif
