/* csv.h -- reading a sweep's CSV in tests: the header names the columns. */
#ifndef BLOOMLAB_TEST_CSV_H
#define BLOOMLAB_TEST_CSV_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* A sweep's CSV, read just enough: the header names the columns. */
typedef struct {
    char *text;     /* owned copy, cut into lines */
    char *header;
    char **rows;
    int count;
} csv_table;

static inline csv_table csv_read(const char *out)
{
    csv_table t = {strdup(out), NULL, NULL, 0};
    int cap = 0;
    for (char *save = NULL, *line = strtok_r(t.text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        if (t.header == NULL) {
            t.header = line;
            continue;
        }
        if (t.count == cap)
            t.rows = realloc(t.rows, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *t.rows);
        t.rows[t.count++] = line;
    }
    return t;
}

static inline void csv_free(csv_table *t)
{
    free(t->text);
    free(t->rows);
}

/* Field `name` of a line into buf ("" when absent). */
static inline const char *csv_get(const csv_table *t, const char *line, const char *name, char *buf, size_t size)
{
    int want = -1, col = 0;
    for (const char *h = t->header; h && *h; col++) {
        const char *end = strchr(h, ',');
        size_t len = end ? (size_t)(end - h) : strlen(h);
        if (len == strlen(name) && strncmp(h, name, len) == 0) {
            want = col;
            break;
        }
        h = end ? end + 1 : NULL;
    }
    buf[0] = '\0';
    const char *f = line;
    for (col = 0; want >= 0 && f && col < want; col++) {
        f = strchr(f, ',');
        f = f ? f + 1 : NULL;
    }
    if (want >= 0 && f) {
        size_t len = strcspn(f, ",");
        snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), f);
    }
    return buf;
}

static inline double csv_num(const csv_table *t, const char *line, const char *name)
{
    char buf[64];
    csv_get(t, line, name, buf, sizeof buf);
    return buf[0] ? strtod(buf, NULL) : NAN;
}

#define NS_INSERT_COLUMN 23 /* 1-based, as in DESIGN.md's schema */
#define NS_QUERY_COLUMN 24

/* The CSV's data: no '#' lines, no header, columns 23 and 24 (ns_*) removed. */
static inline char *data_rows(const char *csv)
{
    cr_assert_not_null(csv);
    char *out = malloc(strlen(csv) + 1);
    size_t used = 0;
    int header_seen = 0;
    for (const char *line = csv; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (line[0] != '#') {
            if (header_seen) {
                int column = 1;
                for (size_t i = 0; i < len; i++) {
                    int dropped = column == NS_INSERT_COLUMN || column == NS_QUERY_COLUMN;
                    if (line[i] == ',')
                        column++;
                    if (!dropped)
                        out[used++] = line[i];
                }
                out[used++] = '\n';
            }
            header_seen = 1;
        }
        line += len + (end != NULL);
    }
    out[used] = '\0';
    return out;
}

static inline char *file_rows(const char *path)
{
    char *text = slurp(path);
    cr_assert_not_null(text, "%s is missing", path);
    char *rows = data_rows(text);
    free(text);
    return rows;
}

#endif
