/* merge.c -- `bloomlab merge`: join the CSVs of shards into the unsharded CSV.
 *
 * Every row ends with its cell index (the `cell` column), and every shard
 * file says how many cells the whole experiment has (# cells: N).  Merging
 * puts the rows back in cell order and refuses a duplicate, a missing cell,
 * or files of different experiments; the result equals the unsharded run's
 * rows byte for byte (ns_* aside). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "output.h"
#include "sweep.h"

static const char MERGE_USAGE[] =
    "usage: bloomlab merge [-o FILE] SHARD.csv...\n"
    "\n"
    "Joins the CSV files of `bloomlab run --shard I/N` runs into one file in\n"
    "cell order, identical to an unsharded run's rows (ns_* columns aside).\n"
    "Refuses duplicated or missing cells and mixed experiments.\n";

typedef struct {
    char **rows;      /* by cell index */
    size_t cells;
    char *metadata;   /* the first file's, without shard and wall time */
    size_t metadata_len;
} merge_state;

static size_t row_cell(const char *row)
{
    const char *comma = strrchr(row, ',');
    return comma ? strtoull(comma + 1, NULL, 10) : (size_t)-1;
}

static int read_shard(const char *path, merge_state *st, int first)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        cli_error("merge", "%s: cannot open", path);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int header_seen = 0, rc = 0;
    size_t cells = 0, lineno = 0;
    while ((len = getline(&line, &cap, f)) > 0 && rc == 0) {
        lineno++;
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (line[0] == '#') {
            sscanf(line, "# cells: %zu", &cells);
            if (first && strncmp(line, "# shard:", 8) != 0 && strncmp(line, "# wall_time_s:", 14) != 0) {
                st->metadata = realloc(st->metadata, st->metadata_len + (size_t)len + 2);
                memcpy(st->metadata + st->metadata_len, line, (size_t)len);
                st->metadata_len += (size_t)len;
                st->metadata[st->metadata_len++] = '\n';
            }
            continue;
        }
        if (!header_seen) {
            if (strcmp(line, SWEEP_HEADER) != 0) {
                cli_error("merge", "%s:%zu: not a bloomlab sweep header", path, lineno);
                rc = -1;
            }
            header_seen = 1;
            if (cells == 0) {
                cli_error("merge", "%s: no '# cells:' line (not a bloomlab run output?)", path);
                rc = -1;
            } else if (st->rows == NULL) {
                st->cells = cells;
                st->rows = calloc(cells, sizeof *st->rows);
            } else if (cells != st->cells) {
                cli_error("merge", "%s: %zu cells, but the first file has %zu: not the same experiment", path,
                          cells, st->cells);
                rc = -1;
            }
            continue;
        }
        size_t index = row_cell(line);
        if (index >= st->cells) {
            cli_error("merge", "%s:%zu: cell index out of range", path, lineno);
            rc = -1;
        } else if (st->rows[index] != NULL) {
            cli_error("merge", "%s:%zu: cell %zu appears twice", path, lineno, index);
            rc = -1;
        } else {
            st->rows[index] = strdup(line);
        }
    }
    if (rc == 0 && !header_seen) {
        cli_error("merge", "%s: no CSV header", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    const char *output = NULL;
    int first_file = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(MERGE_USAGE, stdout);
            return 0;
        }
        if (strcmp(argv[i], "-o") == 0 || strncmp(argv[i], "-o=", 3) == 0) {
            if ((output = cli_flag_value(argc, argv, &i, "merge", "-o")) == NULL)
                return 2;
            continue;
        }
        if (argv[i][0] == '-') {
            cli_error("merge", "unknown option '%s' (bloomlab merge --help)", argv[i]);
            return 2;
        }
        if (first_file == 0)
            first_file = i;
    }
    if (first_file == 0) {
        cli_error("merge", "no shard files given");
        return 2;
    }
    merge_state st = {NULL, 0, NULL, 0};
    int rc = 0;
    for (int i = first_file; i < argc && rc == 0; i++) {
        if (strcmp(argv[i], "-o") == 0) {
            i++;
            continue;
        }
        if (argv[i][0] == '-')
            continue;
        if (read_shard(argv[i], &st, i == first_file) != 0)
            rc = 2;
    }
    size_t missing = 0;
    for (size_t c = 0; c < st.cells && rc == 0; c++)
        missing += st.rows[c] == NULL;
    if (rc == 0 && missing > 0) {
        cli_error("merge", "%zu of %zu cells are missing: give every shard", missing, st.cells);
        rc = 2;
    }
    if (rc == 0) {
        size_t total = st.metadata_len + strlen(SWEEP_HEADER) + 64;
        for (size_t c = 0; c < st.cells; c++)
            total += strlen(st.rows[c]) + 1;
        char *text = malloc(total);
        size_t used = 0;
        memcpy(text, st.metadata, st.metadata_len);
        used += st.metadata_len;
        used += (size_t)sprintf(text + used, "# shard: merged\n%s\n", SWEEP_HEADER);
        for (size_t c = 0; c < st.cells; c++)
            used += (size_t)sprintf(text + used, "%s\n", st.rows[c]);
        rc = output_write_atomic(output, text, used, "merge") == 0 ? 0 : 1;
        free(text);
    }
    for (size_t c = 0; c < st.cells; c++)
        free(st.rows[c]);
    free(st.rows);
    free(st.metadata);
    return rc;
}
