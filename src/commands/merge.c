/* merge.c -- `bloomlab merge`: join the CSVs of shards into the unsharded CSV.
 *
 * Every row ends with its cell index (the `cell` column), and every shard
 * file says what run it is part of (shard.h).  Merging checks each shard,
 * then that they all belong to one run and none is missing or given twice,
 * and puts the rows back in cell order; the result equals the unsharded
 * run's rows byte for byte (ns_* aside). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli.h"
#include "commands/commands.h"
#include "harness/output.h"
#include "harness/schema.h"
#include "harness/shard.h"

static const char MERGE_USAGE[] =
    "usage: bloomlab merge [-o FILE] SHARD.csv...\n"
    "\n"
    "Joins the CSV files of `bloomlab run --shard I/N` runs into one file in\n"
    "cell order, identical to an unsharded run's rows (ns_* columns aside).\n"
    "Refuses duplicated or missing cells, truncated files, and shards of\n"
    "another experiment, inputs, seed, scale or results version.  Without -o\n"
    "(or with -o -) the merged CSV goes to stdout.  A SHARD.csv of - is read\n"
    "from stdin (one at most).\n";

/* Shards of one run agree on every identity field, on the cell count and
 * on N, and no two are the same I. */
static int check_together(const shard *first, const shard *s, const shard *all, size_t before)
{
    for (int i = 0; i < SHARD_IDENTITY_COUNT; i++)
        if (strcmp(first->identity[i], s->identity[i]) != 0) {
            cli_error("merge", "%s: %s is '%s', but %s has '%s': not shards of one run", s->path,
                      SHARD_IDENTITY_KEYS[i], s->identity[i], first->path, first->identity[i]);
            return -1;
        }
    if (s->cells != first->cells || s->count != first->count) {
        cli_error("merge", "%s: %s is %zu cells in %lu shards, but %s is %zu in %lu: not shards of one run", s->path,
                  s->cells != first->cells ? "cells" : "shard", s->cells, s->count, first->path, first->cells,
                  first->count);
        return -1;
    }
    for (size_t j = 0; j < before; j++)
        if (all[j].index == s->index) {
            cli_error("merge", "%s: shard %lu/%lu is given twice (also %s)", s->path, s->index, s->count,
                      all[j].path);
            return -1;
        }
    return 0;
}

/* The merged file: the first shard's metadata (shard and wall time
 * aside), every shard's degenerate notes, the header, the rows by cell. */
static int write_merged(const char *output, const shard *shards, size_t count, char **rows, size_t cells)
{
    size_t total = strlen(shards[0].metadata) + strlen(SWEEP_HEADER) + 64;
    for (size_t i = 0; i < count; i++)
        total += shards[i].degenerate ? strlen(shards[i].degenerate) : 0;
    for (size_t c = 0; c < cells; c++)
        total += strlen(rows[c]) + 1;
    char *text = malloc(total);
    if (text == NULL) {
        cli_error("merge", "out of memory");
        return 1;
    }
    size_t used = (size_t)sprintf(text, "%s", shards[0].metadata);
    for (size_t i = 0; i < count; i++)
        if (shards[i].degenerate)
            used += (size_t)sprintf(text + used, "%s", shards[i].degenerate);
    used += (size_t)sprintf(text + used, "# shard: merged\n%s\n", SWEEP_HEADER);
    for (size_t c = 0; c < cells; c++)
        used += (size_t)sprintf(text + used, "%s\n", rows[c]);
    int rc = output_write_atomic(output, text, used, "merge") == 0 ? 0 : 1;
    free(text);
    return rc;
}

/* Read every shard, check them against each other, then gather the rows
 * by cell: 0, or the exit status after one line. */
static int merge_files(const char *output, char **paths, size_t count)
{
    shard *shards = calloc(count, sizeof *shards);
    char **rows = NULL;
    int rc = shards == NULL ? 1 : 0;
    char err[1400];
    for (size_t i = 0; i < count && rc == 0; i++) {
        if (shard_read(paths[i], &shards[i], err, sizeof err) != 0) {
            cli_error("merge", "%s", err);
            rc = 2;
        } else if (i > 0 && check_together(&shards[0], &shards[i], shards, i) != 0) {
            rc = 2;
        }
    }
    size_t cells = rc == 0 ? shards[0].cells : 0;
    if (rc == 0 && (rows = calloc(cells, sizeof *rows)) == NULL)
        rc = 1;
    for (size_t i = 0; i < count && rc == 0; i++)
        for (size_t j = 0; j < shards[i].row_count; j++)
            rows[shards[i].rows[j].cell] = shards[i].rows[j].text;
    for (size_t c = 0; c < cells && rc == 0; c++)
        if (rows[c] == NULL) {
            /* every shard given is whole: a shard is missing */
            cli_error("merge", "cell %zu is missing: shard %zu/%lu was not given (%zu of %lu shards were)", c,
                      c % shards[0].count + 1, shards[0].count, count, shards[0].count);
            rc = 2;
        }
    if (rc == 0)
        rc = write_merged(output, shards, count, rows, cells);
    free(rows);
    for (size_t i = 0; shards && i < count; i++)
        shard_free(&shards[i]);
    free(shards);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    const char *output = NULL;
    int first_file = 0, stdin_shards = 0;
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
        if (strcmp(argv[i], "-") == 0 && stdin_shards++ > 0) {
            cli_error("merge", "- (stdin) given twice: stdin holds one shard");
            return 2;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
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
    if (output != NULL) {
        char why[8192];
        if (output_check(output, why, sizeof why) != 0) {
            cli_error("merge", "-o: %s", why);
            return 2;
        }
    }
    char **paths = calloc((size_t)argc, sizeof *paths);
    size_t count = 0;
    for (int i = first_file; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0) {
            i++;
            continue;
        }
        if (argv[i][0] != '-' || argv[i][1] == '\0')
            paths[count++] = argv[i];
    }
    int rc = paths ? merge_files(output, paths, count) : 1;
    free(paths);
    return rc;
}
