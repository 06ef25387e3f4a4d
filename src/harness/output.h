/* output.h -- writing a result file so that it is always whole. */
#ifndef BLOOMLAB_OUTPUT_H
#define BLOOMLAB_OUTPUT_H

#include <stddef.h>

/* "-" as an output names standard output, as it does for every Unix tool:
 * `-o -` puts a command's CSV on stdout (its progress stays on stderr).
 * 1 for "-" and for NULL (no -o where stdout is the default). */
int output_is_stdout(const char *path);

/* "-" as an input names standard input, which can be read once: the first
 * reader takes it (1), every later one is refused (0) and must say so
 * (`run -` with `keys = words:-` would give the words an empty stream). */
int stdin_take_once(void);

/* Write data to path through a temporary sibling (path.tmp.PID), fsync,
 * then rename over path: a reader sees the old file or the new one, never a
 * part.  path NULL or "-" writes to stdout.  A symbolic link is followed: the file
 * it names is replaced, the link stays.  Returns 0, or -1 after one line on
 * stderr ("bloomlab CMD: cannot write PATH: reason"); the old file stays. */
int output_write_atomic(const char *path, const char *data, size_t len, const char *cmd);

/* 1 when path is a regular file (never stdout, "-") whose leading `#` metadata lines include
 * the line `line` (without its newline): a result that records the
 * fingerprint of its inputs this way is current, and is not made again. */
int output_has_metadata(const char *path, const char *line);

/* dir/PREFIX + basename + SUFFIX, beside path, in new memory.  When that
 * name would pass NAME_MAX, the basename is cut and a digest of the whole
 * basename put in its place: two outputs never share a sibling, and the
 * siblings of one output (its lock, journal, temporary file) never share a
 * name, however long the path. */
char *output_sibling(const char *path, const char *prefix, const char *suffix);

/* The file path names once symbolic links in its last component are
 * followed (also a dangling link: the file it would create), in new
 * memory.  Locks, journals and renames act on this file. */
char *output_resolve(const char *path);

/* Can a run write path?  0 (always for stdout, "-"), or -1 with the reason in why: an empty name, a
 * directory, a missing or unwritable directory. */
int output_check(const char *path, char *why, size_t why_size);

#endif
