/* text.h -- text that leaves bloomlab: one-line messages and CSV fields.
 *
 * A message is one line, so a value that holds a newline or another
 * control byte is shown as \xNN.  A CSV field follows RFC 4180: one that
 * holds a comma or a double quote is quoted and its quotes doubled, so
 * that every reader (Python's csv, pandas, R, gnuplot's "csv" mode) sees
 * the same number of fields on every row.  Names with control bytes never
 * reach a field: the experiment loader refuses them. */
#ifndef BLOOMLAB_TEXT_H
#define BLOOMLAB_TEXT_H

#include <stdio.h>
#include <stddef.h>

/* Copy text into out (size bytes, always terminated) with every control
 * byte (< 0x20, 0x7f) as \xNN; cut at a whole character when out is full. */
void text_printable(const char *text, char *out, size_t size);

/* Write text to f with control bytes as \xNN. */
void text_fputs_printable(const char *text, FILE *f);

/* Does text hold a control byte? */
int text_has_control(const char *text);

/* text as one CSV field (quoted only when it must be) into out; returns
 * the length written, or the length needed when out is too small. */
size_t csv_field(const char *text, char *out, size_t size);

/* The same field written to f (no room to size first). */
void csv_fputs_field(const char *text, FILE *f);

/* The number of fields of one CSV line (no line break in it), or -1 when
 * its quoting is broken (a quote inside an unquoted field, an unclosed
 * quote, text after a closing quote). */
long csv_field_count(const char *line);

#endif
