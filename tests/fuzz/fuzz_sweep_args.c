/* fuzz_sweep_args.c -- libFuzzer harness for `bloomlab sweep`'s argument
 * parser: cmd_sweep on a fuzzed argv (the input split at NUL bytes).
 *
 * sweep_run is replaced here by a stub that checks the parsed experiment
 * and returns, so that no grid ever runs (the harness does not link
 * sweep.c).  Contract checked: the status is 0 (parsed), or 2 (bad input);
 * a parsed grid's cells can all be built. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "harness/experiment.h"
#include "fuzz_common.h"
#include "harness/sweep.h"

#define ARGS_MAX 64

int sweep_run(const experiment *e, const sweep_options *opt)
{
    FUZZ_ASSERT(opt->threads >= 1 && opt->threads <= 1024, "threads %d", opt->threads);
    FUZZ_ASSERT(opt->shard_index >= 1 && opt->shard_index <= opt->shard_count, "shard %u/%u",
                opt->shard_index, opt->shard_count);
    FUZZ_ASSERT(e->count >= 1, "no cells");
    for (size_t i = 0; i < e->count; i++) {
        const cell *c = &e->cells[i];
        FUZZ_ASSERT(c->m >= 1 && c->k >= 1 && c->k <= 64, "cell %zu: m %llu k %u", i,
                    (unsigned long long)c->m, c->k);
        FUZZ_ASSERT(c->trials >= 1 && c->queries >= 1 && c->deletes <= c->n, "cell %zu", i);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192 || fuzz_input_skipped((const char *)data, size))
        return 0;
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[ARGS_MAX + 2];
    int argc = 0;
    argv[argc++] = "sweep";
    for (size_t at = 0; at <= size && argc <= ARGS_MAX; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;
    int status = cmd_sweep(argc, argv);
    FUZZ_ASSERT(status == 0 || status == 2, "status %d", status);
    free(text);
    return 0;
}
