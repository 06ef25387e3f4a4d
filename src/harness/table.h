/* table.h -- rows of named columns written as text, CSV or JSON: the one
 * implementation of --format (calc, theory, list, bench) and of the CSV
 * and JSON writers.
 *
 * A table holds every field as text, formatted by the command that owns
 * the numbers (each keeps its own precision, so its CSV bytes do not
 * change); "" is a value that does not exist.  The writers differ only in
 * how they frame the fields:
 *   csv   a header of the column names, then one line a row; a field that
 *         holds a comma, a quote or a line break is quoted as RFC 4180 says
 *         (text.h's csv_field); a missing value is an empty field.
 *   json  an array of objects, one a row, keys = the column names in
 *         order; a number column's fields are JSON numbers, a text
 *         column's JSON strings (escaped: quote, backslash, control bytes);
 *         a missing value is null.  A number field that is not a JSON
 *         number (none is made so today) is written as a string rather
 *         than as broken JSON.
 *   text  the columns aligned for reading, right-justified, "-" for a
 *         missing value.  Commands with a layout of their own (calc, list,
 *         bench's table) keep it and use the csv and json writers only. */
#ifndef BLOOMLAB_TABLE_H
#define BLOOMLAB_TABLE_H

#include <stddef.h>
#include <stdio.h>

typedef enum { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON } table_format;

/* The names --format takes, for messages and --help. */
#define TABLE_FORMAT_NAMES "text, csv, json"

/* The format a --format value names: 0, or -1 (and nothing set) for an
 * unknown one. */
int table_format_from_name(const char *name, table_format *out);

/* The same for a command's flag: -1 after one line on stderr,
 * "bloomlab CMD: --format: unknown format 'xml' (text, csv, json)". */
int table_format_flag(const char *cmd, const char *value, table_format *out);

typedef enum { COLUMN_TEXT, COLUMN_NUMBER } column_kind;

typedef struct {
    const char *name;
    column_kind kind;
} table_column;

typedef struct {
    const table_column *columns;
    size_t column_count;
    char **fields; /* rows x column_count, each its own copy */
    size_t rows, cap;
} table;

void table_init(table *t, const table_column *columns, size_t column_count);

/* Append a row of column_count fields (NULL is "" too); copied.  0, or -1
 * when memory ran out (the table keeps the rows it had). */
int table_add_row(table *t, const char *const *fields);

void table_free(table *t);

/* A real number as a field with printf's %.*g: "" when it is not finite. */
void table_real(char *out, size_t size, double value, int digits);

/* Write the whole table in a format (text, csv or json, above). */
void table_write(FILE *out, const table *t, table_format format);

/* Pieces for writers that frame tables themselves (list, calc): the CSV
 * header line, one row as a JSON object (no newline), a JSON string. */
void table_write_csv_header(FILE *out, const table *t);
void table_write_json_object(FILE *out, const table *t, size_t row);
void table_write_json_array(FILE *out, const table *t);
void json_write_string(FILE *out, const char *text);

#endif
