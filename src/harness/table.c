/* table.c -- text, CSV and JSON tables; see table.h. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "harness/table.h"
#include "base/names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "base/text.h"

static const char *const FORMAT_NAMES[] = {"text", "csv", "json"};

int table_format_from_name(const char *name, table_format *out)
{
    int i = name_index(FORMAT_NAMES, 0, sizeof FORMAT_NAMES / sizeof FORMAT_NAMES[0], name);
    if (i >= 0)
        *out = (table_format)i;
    return i >= 0 ? 0 : -1;
}

int table_format_flag(const char *cmd, const char *value, table_format *out)
{
    if (table_format_from_name(value, out) == 0)
        return 0;
    cli_error(cmd, "--format: unknown format '%s' (" TABLE_FORMAT_NAMES ")", value);
    return -1;
}

void table_init(table *t, const table_column *columns, size_t column_count)
{
    memset(t, 0, sizeof *t);
    t->columns = columns;
    t->column_count = column_count;
}

int table_add_row(table *t, const char *const *fields)
{
    if (t->rows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        char **bigger = realloc(t->fields, cap * t->column_count * sizeof *bigger);
        if (bigger == NULL)
            return -1;
        t->fields = bigger;
        t->cap = cap;
    }
    char **row = t->fields + t->rows * t->column_count;
    int ok = 1;
    for (size_t c = 0; c < t->column_count; c++) {
        row[c] = strdup(fields[c] != NULL ? fields[c] : "");
        ok &= row[c] != NULL;
    }
    if (!ok) {
        for (size_t c = 0; c < t->column_count; c++)
            free(row[c]);
        return -1;
    }
    t->rows++;
    return 0;
}

void table_free(table *t)
{
    for (size_t i = 0; i < t->rows * t->column_count; i++)
        free(t->fields[i]);
    free(t->fields);
    memset(t, 0, sizeof *t);
}

void table_real(char *out, size_t size, double value, int digits)
{
    if (isfinite(value))
        snprintf(out, size, "%.*g", digits, value);
    else if (size > 0)
        out[0] = '\0';
}

static const char *field(const table *t, size_t row, size_t column)
{
    return t->fields[row * t->column_count + column];
}

/* ---- CSV ------------------------------------------------------------------- */

void table_write_csv_header(FILE *out, const table *t)
{
    for (size_t c = 0; c < t->column_count; c++) {
        if (c)
            fputc(',', out);
        csv_fputs_field(t->columns[c].name, out);
    }
    fputc('\n', out);
}

static void write_csv(FILE *out, const table *t)
{
    table_write_csv_header(out, t);
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t c = 0; c < t->column_count; c++) {
            if (c)
                fputc(',', out);
            csv_fputs_field(field(t, r, c), out);
        }
        fputc('\n', out);
    }
}

/* ---- JSON ------------------------------------------------------------------ */

void json_write_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out); /* UTF-8 passes as it is: JSON text is UTF-8 */
    }
    fputc('"', out);
}

/* Does text follow JSON's number grammar?  -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
static int is_json_number(const char *p)
{
    p += *p == '-';
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        p += strspn(p, "0123456789");
    else
        return 0;
    if (*p == '.') {
        size_t digits = strspn(p + 1, "0123456789");
        if (digits == 0)
            return 0;
        p += 1 + digits;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        size_t digits = strspn(p, "0123456789");
        if (digits == 0)
            return 0;
        p += digits;
    }
    return *p == '\0';
}

void table_write_json_object(FILE *out, const table *t, size_t row)
{
    fputc('{', out);
    for (size_t c = 0; c < t->column_count; c++) {
        const char *v = field(t, row, c);
        if (c)
            fputs(", ", out);
        json_write_string(out, t->columns[c].name);
        fputs(": ", out);
        if (v[0] == '\0')
            fputs("null", out);
        else if (t->columns[c].kind == COLUMN_NUMBER && is_json_number(v))
            fputs(v, out);
        else
            json_write_string(out, v);
    }
    fputc('}', out);
}

void table_write_json_array(FILE *out, const table *t)
{
    fputc('[', out);
    for (size_t r = 0; r < t->rows; r++) {
        fputs(r ? ",\n " : "\n ", out);
        table_write_json_object(out, t, r);
    }
    fputs(t->rows ? "\n]" : "]", out);
}

/* ---- text ------------------------------------------------------------------ */

static int column_width(const table *t, size_t column)
{
    size_t width = strlen(t->columns[column].name);
    for (size_t r = 0; r < t->rows; r++) {
        size_t len = strlen(field(t, r, column));
        if (len > width)
            width = len;
    }
    return (int)width;
}

static void write_text(FILE *out, const table *t)
{
    int *width = calloc(t->column_count ? t->column_count : 1, sizeof *width);
    if (width == NULL) {
        write_csv(out, t); /* no room to align: the same fields, unaligned */
        return;
    }
    for (size_t c = 0; c < t->column_count; c++) {
        width[c] = column_width(t, c);
        fprintf(out, "%s%*s", c ? "  " : "", width[c], t->columns[c].name);
    }
    fputc('\n', out);
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t c = 0; c < t->column_count; c++) {
            const char *v = field(t, r, c);
            fprintf(out, "%s%*s", c ? "  " : "", width[c], v[0] ? v : "-");
        }
        fputc('\n', out);
    }
    free(width);
}

void table_write(FILE *out, const table *t, table_format format)
{
    if (format == FORMAT_CSV) {
        write_csv(out, t);
    } else if (format == FORMAT_JSON) {
        table_write_json_array(out, t);
        fputc('\n', out);
    } else {
        write_text(out, t);
    }
}
