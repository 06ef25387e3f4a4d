/* names.h -- the one lookup of a name in a table of names, and the one way
 * such a table is listed in a message ("a, b, c").  Layouts, schemes, sizing
 * rules, vector levels and table formats each keep their names in an array
 * indexed by their enum; these two functions are all that reads them. */
#ifndef BLOOMLAB_NAMES_H
#define BLOOMLAB_NAMES_H

#include <stddef.h>

/* The index of name among names[first .. count), or -1.  (first skips an
 * entry that names nothing, such as an enum's "none".) */
int name_index(const char *const *names, size_t first, size_t count, const char *name);

/* names[first .. count) joined by ", " into out (truncated to size, always
 * terminated); returns out. */
const char *names_join(const char *const *names, size_t first, size_t count, char *out, size_t size);

#endif
