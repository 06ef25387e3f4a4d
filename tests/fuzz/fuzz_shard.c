/* fuzz_shard.c -- libFuzzer harness for merge's shard reader (shard_read):
 * arbitrary bytes as a shard's CSV.
 *
 * Contract checked: a read either fails with one line that starts with the
 * file's path, or gives exactly the rows of its shard, each a cell index in
 * range and in the shard, each once, each with the header's field count. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "harness/schema.h"
#include "harness/shard.h"
#include "base/text.h"

static void check_shard(const shard *s)
{
    FUZZ_ASSERT(s->cells >= 1 && s->index >= 1 && s->index <= s->count, "cells %zu, shard %lu/%lu", s->cells,
                s->index, s->count);
    FUZZ_ASSERT(s->row_count == shard_cell_count(s->cells, s->index, s->count), "%zu rows", s->row_count);
    unsigned char *seen = calloc(s->cells, 1);
    for (size_t i = 0; i < s->row_count; i++) {
        size_t c = s->rows[i].cell;
        FUZZ_ASSERT(c < s->cells && c % s->count == s->index - 1 && !seen[c], "cell %zu", c);
        FUZZ_ASSERT(csv_field_count(s->rows[i].text) == SWEEP_COLUMNS, "row %zu", i);
        seen[c] = 1;
    }
    free(seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    const char *path = fuzz_input_file(data, size, "csv");
    if (path == NULL)
        return 0;
    shard s;
    char err[1400] = "";
    if (shard_read(path, &s, err, sizeof err) == 0) {
        check_shard(&s);
    } else {
        FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0, "error does not name the file: '%s'", err);
        FUZZ_ASSERT(strchr(err, '\n') == NULL, "error of more than one line: '%s'", err);
    }
    shard_free(&s);
    return 0;
}
