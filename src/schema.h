/* schema.h -- the sweep CSV's columns (DESIGN.md, README.md "The CSV"),
 * shared by the writer (sweep.c) and the readers (shard.c, merge). */
#ifndef BLOOMLAB_SCHEMA_H
#define BLOOMLAB_SCHEMA_H

/* The header line, without its newline. */
extern const char SWEEP_HEADER[];

/* Its number of columns. */
#define SWEEP_COLUMNS 50

/* Columns counted from the end (0: the last, `cell`): the names at the
 * front of a row may be quoted and hold commas, the columns from m on are
 * numbers and fixed words, never quoted. */
#define COLUMN_FROM_END_CELL 0
#define COLUMN_FROM_END_SEED 1
#define COLUMN_FROM_END_FPR (SWEEP_COLUMNS - 13)    /* fpr, column 13 */

/* The start of the field `from_end` places before a row's last. */
const char *row_field_from_end(const char *row, int from_end);

#endif
