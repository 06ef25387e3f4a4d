/* schema.h -- the CSV columns of the sweep (results/NAME.csv, written by
 * sweep.c, read by shard.c and merge) and of the bench (bench.csv), each
 * column with its unit and meaning (README.md "The CSV", `bloomlab list
 * columns`).  schema.c defines each list once; the headers are made from
 * it. */
#ifndef BLOOMLAB_SCHEMA_H
#define BLOOMLAB_SCHEMA_H

#include "harness/table.h"

/* One column: what `bloomlab list columns` says of it. */
typedef struct {
    const char *name;
    column_kind kind;    /* a number or text: JSON writes numbers as numbers */
    const char *unit;    /* "" for names and words */
    const char *meaning;
    const char *filled;  /* which rows carry a value; the others leave it empty */
} column_doc;

/* The sweep's header line, without its newline, and its columns. */
extern const char SWEEP_HEADER[];
#define SWEEP_COLUMNS 50
extern const column_doc SWEEP_COLUMN_DOCS[SWEEP_COLUMNS];

/* The bench's header line and its columns (as docs and for table.h). */
extern const char BENCH_HEADER[];
#define BENCH_COLUMNS 35
extern const column_doc BENCH_COLUMN_DOCS[BENCH_COLUMNS];
extern const table_column BENCH_TABLE_COLUMNS[BENCH_COLUMNS];

/* Columns counted from the end (0: the last, `cell`): the names at the
 * front of a row may be quoted and hold commas, the columns from m on are
 * numbers and fixed words, never quoted. */
#define COLUMN_FROM_END_CELL 0
#define COLUMN_FROM_END_SEED 1
#define COLUMN_FROM_END_FPR (SWEEP_COLUMNS - 13)    /* fpr, column 13 */
#define COLUMN_FROM_END_MEASURE (SWEEP_COLUMNS - 30) /* measure, column 30 */
#define COLUMN_FROM_END_FALSE_NEGATIVES (SWEEP_COLUMNS - 33) /* false_negatives, column 33 (present_queries before it) */

/* The start of the field `from_end` places before a row's last. */
const char *row_field_from_end(const char *row, int from_end);

#endif
