/* shard.c -- reading and checking one shard's CSV; see shard.h. */
#define _GNU_SOURCE
#include "harness/shard.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/experiment.h"
#include "harness/schema.h"
#include "base/text.h"

const char *const SHARD_IDENTITY_KEYS[SHARD_IDENTITY_COUNT] = {"experiment", "seed", "scale", "results_version",
                                                               "inputs"};

typedef struct {
    shard *s;
    char *err;
    size_t err_size;
    size_t line;
    int header_seen;
    int cells_seen;
    int shard_seen;
    unsigned char *seen; /* by cell: its row came already */
} reader;

static int fail(reader *r, int with_line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(reader *r, int with_line, const char *fmt, ...)
{
    char msg[1024], full[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (with_line)
        snprintf(full, sizeof full, "%s:%zu: %s", r->s->path, r->line, msg);
    else
        snprintf(full, sizeof full, "%s: %s", r->s->path, msg);
    text_printable(full, r->err, r->err_size);
    return -1;
}

/* A whole number in [min, max], digits only: "-1" and "1e14" are not. */
static int parse_count(const char *text, unsigned long long min, unsigned long long max, unsigned long long *out)
{
    if (*text < '0' || *text > '9' || strspn(text, "0123456789") != strlen(text) || strlen(text) > 19)
        return -1;
    errno = 0;
    *out = strtoull(text, NULL, 10);
    return errno == 0 && *out >= min && *out <= max ? 0 : -1;
}

static int append(char **buf, const char *line)
{
    size_t have = *buf ? strlen(*buf) : 0, len = strlen(line);
    char *grown = realloc(*buf, have + len + 2);
    if (grown == NULL)
        return -1;
    memcpy(grown + have, line, len);
    grown[have + len] = '\n';
    grown[have + len + 1] = '\0';
    *buf = grown;
    return 0;
}

static int read_shard_field(reader *r, const char *value)
{
    unsigned long long i, n;
    char extra;
    char a[24], b[24];
    if (sscanf(value, "%23[0-9]/%23[0-9]%c", a, b, &extra) != 2 || parse_count(a, 1, 4294967295ULL, &i) != 0 ||
        parse_count(b, 1, 4294967295ULL, &n) != 0 || i > n)
        return fail(r, 1, "shard = '%s' is not I/N with 1 <= I <= N", value);
    r->s->index = (unsigned long)i;
    r->s->count = (unsigned long)n;
    r->shard_seen = 1;
    return 0;
}

static int read_metadata(reader *r, const char *line)
{
    if (r->header_seen)
        return fail(r, 1, "a '#' line after the header");
    const char *colon = strstr(line, ": ");
    if (strncmp(line, "# ", 2) != 0 || colon == NULL)
        return append(&r->s->metadata, line) == 0 ? 0 : fail(r, 1, "out of memory");
    size_t key_len = (size_t)(colon - line - 2);
    const char *key = line + 2, *value = colon + 2;
    for (int i = 0; i < SHARD_IDENTITY_COUNT; i++)
        if (strlen(SHARD_IDENTITY_KEYS[i]) == key_len && strncmp(key, SHARD_IDENTITY_KEYS[i], key_len) == 0) {
            if (r->s->identity[i] != NULL)
                return fail(r, 1, "'# %s:' is given twice", SHARD_IDENTITY_KEYS[i]);
            r->s->identity[i] = strdup(value);
            return append(&r->s->metadata, line) == 0 ? 0 : fail(r, 1, "out of memory");
        }
    if (key_len == 5 && strncmp(key, "cells", 5) == 0) {
        unsigned long long cells;
        if (r->cells_seen)
            return fail(r, 1, "'# cells:' is given twice");
        if (parse_count(value, 1, EXPERIMENT_CELLS_MAX, &cells) != 0)
            return fail(r, 1, "cells = '%s' is not a cell count from 1 to %d", value, EXPERIMENT_CELLS_MAX);
        r->s->cells = (size_t)cells;
        r->cells_seen = 1;
        return append(&r->s->metadata, line) == 0 ? 0 : fail(r, 1, "out of memory");
    }
    if (key_len == 5 && strncmp(key, "shard", 5) == 0)
        return r->shard_seen ? fail(r, 1, "'# shard:' is given twice") : read_shard_field(r, value);
    if (key_len == 10 && strncmp(key, "degenerate", 10) == 0)
        return append(&r->s->degenerate, line) == 0 ? 0 : fail(r, 1, "out of memory");
    if (key_len == 11 && strncmp(key, "wall_time_s", 11) == 0)
        return 0; /* each shard's own */
    return append(&r->s->metadata, line) == 0 ? 0 : fail(r, 1, "out of memory");
}

/* After the metadata: every field a merge compares is there. */
static int read_header(reader *r, const char *line)
{
    if (strcmp(line, SWEEP_HEADER) != 0)
        return fail(r, 1, "not a bloomlab sweep header");
    for (int i = 0; i < SHARD_IDENTITY_COUNT; i++)
        if (r->s->identity[i] == NULL)
            return fail(r, 0, "no '# %s:' line (not the output of this bloomlab's run --shard?)",
                        SHARD_IDENTITY_KEYS[i]);
    if (!r->cells_seen)
        return fail(r, 0, "no '# cells:' line (not the output of bloomlab run?)");
    if (!r->shard_seen)
        return fail(r, 0, "no '# shard:' line (not the output of bloomlab run?)");
    r->seen = calloc(r->s->cells, 1);
    if (r->seen == NULL)
        return fail(r, 0, "out of memory");
    r->header_seen = 1;
    return 0;
}

/* A row: the header's field count, this experiment and seed, a cell of
 * this shard not seen before. */
static int read_row(reader *r, const char *line)
{
    shard *s = r->s;
    long fields = csv_field_count(line);
    if (fields != SWEEP_COLUMNS)
        return fields < 0 ? fail(r, 1, "broken quoting in the row")
                          : fail(r, 1, "the row has %ld fields, the header %d", fields, SWEEP_COLUMNS);
    char name[2 * EXPERIMENT_NAME_MAX + 4];
    size_t name_len = csv_field(s->identity[SHARD_EXPERIMENT], name, sizeof name);
    if (name_len >= sizeof name || strncmp(line, name, name_len) != 0 || line[name_len] != ',')
        return fail(r, 1, "the row's experiment is not '%s' of the metadata", s->identity[SHARD_EXPERIMENT]);
    const char *seed = row_field_from_end(line, COLUMN_FROM_END_SEED);
    size_t seed_len = strlen(s->identity[SHARD_SEED]);
    if (strncmp(seed, s->identity[SHARD_SEED], seed_len) != 0 || seed[seed_len] != ',')
        return fail(r, 1, "the row's seed is not %s of the metadata", s->identity[SHARD_SEED]);
    unsigned long long cell;
    const char *cell_text = row_field_from_end(line, COLUMN_FROM_END_CELL);
    if (parse_count(cell_text, 0, s->cells - 1, &cell) != 0)
        return fail(r, 1, "cell = '%s' is not a cell index from 0 to %zu", cell_text, s->cells - 1);
    if (cell % s->count != s->index - 1)
        return fail(r, 1, "cell %llu is not in shard %lu/%lu", cell, s->index, s->count);
    if (r->seen[cell])
        return fail(r, 1, "cell %llu appears twice", cell);
    r->seen[cell] = 1;
    shard_row *grown = realloc(s->rows, (s->row_count + 1) * sizeof *grown);
    char *text = strdup(line);
    if (grown == NULL || text == NULL) {
        free(text);
        if (grown)
            s->rows = grown;
        return fail(r, 1, "out of memory");
    }
    s->rows = grown;
    s->rows[s->row_count++] = (shard_row){(size_t)cell, r->line, text};
    return 0;
}

static int read_line(reader *r, char *line, size_t len)
{
    if (strlen(line) != len)
        return fail(r, 1, "a NUL byte in the line (not a CSV file?)");
    if (line[0] == '#')
        return read_metadata(r, line);
    return r->header_seen ? read_row(r, line) : read_header(r, line);
}

int shard_read(const char *path, shard *out, char *err, size_t err_size)
{
    memset(out, 0, sizeof *out);
    out->path = path;
    reader r = {out, err, err_size, 0, 0, 0, 0, NULL};
    const int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin)
        out->path = "stdin";
    FILE *f = from_stdin ? stdin : fopen(path, "r");
    if (f == NULL) {
        int saved = errno;
        return fail(&r, 0, "cannot open: %s", strerror(saved));
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0, whole = 1;
    while (rc == 0 && (len = getline(&line, &cap, f)) > 0) {
        r.line++;
        whole = line[len - 1] == '\n';
        if (!whole) /* a cut row can still have the right field count */
            break;
        line[--len] = '\0';
        rc = read_line(&r, line, (size_t)len);
    }
    if (rc == 0 && ferror(f))
        rc = fail(&r, 0, "cannot read: %s", strerror(errno));
    else if (rc == 0 && !whole)
        rc = fail(&r, 1, "the file ends inside this line: truncated");
    else if (rc == 0 && !r.header_seen)
        rc = fail(&r, 0, r.line == 0 ? "empty file" : "ends before its CSV header: truncated, or not a bloomlab CSV");
    else if (rc == 0 && out->row_count < shard_cell_count(out->cells, out->index, out->count))
        rc = fail(&r, 0, "%zu of the %zu cells of shard %lu/%lu are missing: truncated?",
                  shard_cell_count(out->cells, out->index, out->count) - out->row_count,
                  shard_cell_count(out->cells, out->index, out->count), out->index, out->count);
    free(line);
    free(r.seen);
    if (!from_stdin)
        fclose(f);
    return rc;
}

void shard_free(shard *s)
{
    for (int i = 0; i < SHARD_IDENTITY_COUNT; i++)
        free(s->identity[i]);
    for (size_t i = 0; i < s->row_count; i++)
        free(s->rows[i].text);
    free(s->rows);
    free(s->metadata);
    free(s->degenerate);
    memset(s, 0, sizeof *s);
}

size_t shard_cell_count(size_t cells, unsigned long index, unsigned long count)
{
    return cells >= index ? (cells - index) / count + 1 : 0;
}
