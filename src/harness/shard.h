/* shard.h -- reading one CSV that `bloomlab run --shard I/N` wrote, for merge.
 *
 * A shard proves what it is part of through its metadata: the experiment's
 * name, the inputs fingerprint (fingerprint.h), the seed, the scale, the
 * results version, the cell count and its I/N.  shard_read checks the file
 * against itself -- every row has the header's field count, names the
 * experiment and seed of the metadata, holds a cell index in range and in
 * its shard, once; the file ends with a whole line -- and merge then checks
 * the shards against each other.  Every problem is one line naming the file
 * (and line) and the field. */
#ifndef BLOOMLAB_SHARD_H
#define BLOOMLAB_SHARD_H

#include <stddef.h>

typedef struct {
    size_t cell;
    size_t line;
    char *text; /* without its newline */
} shard_row;

/* The metadata a shard must carry, in the order merge compares them: the
 * plainest explanation of a mismatch first, the fingerprint (which covers
 * them all, and the files' contents) last. */
enum { SHARD_EXPERIMENT, SHARD_SEED, SHARD_SCALE, SHARD_RESULTS_VERSION, SHARD_INPUTS, SHARD_IDENTITY_COUNT };
extern const char *const SHARD_IDENTITY_KEYS[SHARD_IDENTITY_COUNT];

typedef struct {
    const char *path;
    char *identity[SHARD_IDENTITY_COUNT];
    size_t cells;
    unsigned long index, count; /* I/N */
    char *metadata;   /* the other '#' lines, for the merged file */
    char *degenerate; /* its '# degenerate:' lines */
    shard_row *rows;
    size_t row_count;
} shard;

/* Read and check one shard.  0, or -1 with "PATH[:LINE]: reason" in err;
 * either way shard_free releases it. */
int shard_read(const char *path, shard *out, char *err, size_t err_size);
void shard_free(shard *s);

/* How many cells of `cells` fall in shard I/N (cell c when c mod N = I-1). */
size_t shard_cell_count(size_t cells, unsigned long index, unsigned long count);

#endif
