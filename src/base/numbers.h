/* numbers.h -- the number syntax shared by the CLI and experiment files.
 *
 * A number: decimal or scientific (10, 1e6, 2.5e-3), or a power of two
 * (2^20).  A value list: items separated by commas, each a number or a
 * range:  a..b (step 1), a..b:s (step s), a..b*f (geometric, factor f > 1).
 * Ranges include b when they land on it (to 1e-9 relative).
 */
#ifndef BLOOMLAB_NUMBERS_H
#define BLOOMLAB_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

#define NUMBER_LIST_MAX 100000 /* values one list may expand to */

/* 0, or -1 when text is not a finite number. */
int number_parse(const char *text, double *out);
/* 0, or -1 when text is not a whole number in [min, max]. */
int number_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

typedef struct {
    double *values;
    size_t count;
} number_list;

/* Parse a value list.  integral: every value must be a whole number.
 * Returns 0, or -1 with a reason in err (the list is then empty). */
int number_list_parse(const char *text, int integral, number_list *out, char *err, size_t err_size);
void number_list_free(number_list *list);

#endif
