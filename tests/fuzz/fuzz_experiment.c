/* fuzz_experiment.c -- libFuzzer harness for experiment_load: arbitrary
 * bytes as an experiment file, at the quick or the full scale (the size's
 * parity picks).
 *
 * Contract checked: a load either fails with one line that starts with the
 * file's path, or gives cells that can all be built (m >= 1, k in 1..64,
 * trials and queries >= 1, deletes <= n).  Nothing runs. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/experiment.h"
#include "fuzz_common.h"

static void check_experiment(const experiment *e)
{
    FUZZ_ASSERT(e->count >= 1, "no cells");
    for (size_t i = 0; i < e->count; i++) {
        const cell *c = &e->cells[i];
        FUZZ_ASSERT(c->m >= 1, "cell %zu: m = 0", i);
        FUZZ_ASSERT(c->k >= 1 && c->k <= 64, "cell %zu: k = %u", i, c->k);
        FUZZ_ASSERT(c->trials >= 1 && c->queries >= 1, "cell %zu: trials or queries 0", i);
        FUZZ_ASSERT(c->deletes <= c->n, "cell %zu: deletes > n", i);
        FUZZ_ASSERT(c->keys < e->keyset_count, "cell %zu: keys index", i);
        FUZZ_ASSERT(c->scheme == SCHEME_IDEAL || c->hash < e->hash_count, "cell %zu: hash index", i);
        FUZZ_ASSERT(cell_hash_name(e, c)[0] != '\0', "cell %zu: no hash name", i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 16384 || fuzz_input_skipped((const char *)data, size))
        return 0;
    const char *path = fuzz_input_file(data, size, "ini");
    if (path == NULL)
        return 0;
    /* the scale from the size's parity: the seeds stay plain files */
    const char *scale = size & 1 ? "full" : "quick";
    experiment e;
    char err[1024] = "";
    if (experiment_load(path, scale, &e, err, sizeof err) == 0) {
        check_experiment(&e);
        experiment_free(&e);
    } else {
        FUZZ_ASSERT(strncmp(err, path, strlen(path)) == 0, "error does not name the file: '%s'", err);
        FUZZ_ASSERT(strchr(err, '\n') == NULL, "error of more than one line: '%s'", err);
        FUZZ_ASSERT(e.cells == NULL && e.count == 0, "a failed load kept %zu cells", e.count);
    }
    return 0;
}
