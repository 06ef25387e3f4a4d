/* version.h -- what a result says about the code that made it. */
#ifndef BLOOMLAB_VERSION_H
#define BLOOMLAB_VERSION_H

#define BLOOMLAB_VERSION "0.1.0"

/* The results version: bump it in the same commit as any change to the code
 * that alters a byte of a committed result (a results CSV, ns_* columns and
 * metadata aside).  A result records it in its `# inputs:` fingerprint, so
 * `bloomlab run` (and so `make`) remakes exactly the results that an older
 * version wrote; tests/test_fresh.c fails when a committed result claims to
 * be current and is not. */
#define BLOOMLAB_RESULTS_VERSION 3

/* The git revision the binary was built from ("unknown" outside git); set
 * in version.c alone, so that a new commit recompiles one file. */
extern const char bloomlab_git_rev[];

#endif
