/* sweep.c -- `bloomlab sweep`: the keys of an experiment file as flags. */
#include <stdio.h>
#include <stdlib.h>

#include "commands/commands.h"
#include "commands/engine_flags.h"
#include "harness/experiment.h"

static const char SWEEP_USAGE[] =
    "usage: bloomlab sweep --n LIST (--m LIST | --bits-per-item LIST | --sizing LIST --p LIST)\n"
    "                      [grid flags]\n"
    "                      [-o FILE] [--threads T] [--shard I/N] [--quiet]\n"
    "\n"
    "The keys of an experiment file as flags; CSV to stdout (or -o FILE; -o -\n"
    "is stdout too).\n"
    "Each value may be a list (a,b), a range (1..20, 8..24:2) or a geometric\n"
    "range (1e3..1e9*10); the grid is their product.\n"
    "\n"
    "  --filter  standard|counting|partitioned|blocked512|register64|splitblock, or\n"
    "            plugin:PATH.so, a filter of your own (bloomlab/filter.h; it hashes\n"
    "            keys itself: its rows say hash own, scheme own)\n"
    "  --hash    a name from bloomlab list, or plugin:PATH.so:SYMBOL (default xxh3_64)\n"
    "  --scheme  independent|double|enhanced|course|ideal|parquet|multiply|default\n"
    "            (default: each layout's own, multiply on blocked512 and register64,\n"
    "            double on the others)\n"
    "  --keys    random64|seq64|urls|words|words:FILE|words:-|course (default random64;\n"
    "            words:- reads the words from stdin)\n"
    "  --m BITS, --bits-per-item B, --n ITEMS, --k K|opt (default opt)\n"
    "  --trials T (default 10), --queries Q per trial (default 100000)\n"
    "  --seed S (default 1), --seeds paired|independent (default paired: every cell\n"
    "            sees the same keys; independent: each cell its own), --measure fpr|delete,\n"
    "  --deletes D\n"
    "  --sizing  parquet-classic|parquet-classic-nopow2|arrow-rs|arrow-rs-nopow2|\n"
    "            bloomlab|bloomlab-pow2: a split-block filter sized by the rule\n"
    "            for n items at each --p RATE (instead of --m)\n"
    "  --expected-n N  a plugin filter's create is told to expect N items (default:\n"
    "            the cell's n), so a filter made for N can be loaded with other n\n";

int cmd_sweep(int argc, char **argv)
{
    run_flags f;
    engine_default_flags(&f);
    setting *settings = calloc((size_t)argc + 1, sizeof *settings);
    int count = engine_grid_settings("sweep", argc, argv, settings, &f, 1);
    if (count == -2) {
        fputs(SWEEP_USAGE, stdout);
        free(settings);
        return 0;
    }
    if (count < 0) {
        free(settings);
        return 2;
    }
    char err[ERR_MAX];
    experiment e;
    if (experiment_from_settings(settings, (size_t)count, "sweep", &e, err, sizeof err) != 0) {
        fprintf(stderr, "bloomlab sweep: %s\n", err);
        free(settings);
        return 2;
    }
    free(settings);
    int rc = engine_run(&e, &f, argc, argv);
    experiment_free(&e);
    return rc;
}
