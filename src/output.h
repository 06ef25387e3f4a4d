/* output.h -- writing a result file so that it is always whole. */
#ifndef BLOOMLAB_OUTPUT_H
#define BLOOMLAB_OUTPUT_H

#include <stddef.h>

/* Write data to path through a temporary sibling (path.tmp.PID), fsync,
 * then rename over path: a reader sees the old file or the new one, never a
 * part.  path NULL writes to stdout.  Returns 0, or -1 after one line on
 * stderr ("bloomlab CMD: cannot write PATH: reason"); the old file stays. */
int output_write_atomic(const char *path, const char *data, size_t len, const char *cmd);

/* 1 when path is a regular file whose leading `#` metadata lines include
 * the line `line` (without its newline): a result that records the
 * fingerprint of its inputs this way is current, and is not made again. */
int output_has_metadata(const char *path, const char *line);

/* dir/PREFIX + basename + SUFFIX, beside path. */
void output_sibling(const char *path, const char *prefix, const char *suffix, char *out, size_t size);

#endif
