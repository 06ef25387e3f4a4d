/* run.c -- `bloomlab run EXPERIMENT.ini`: every cell of an experiment file. */
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "commands/engine_flags.h"
#include "harness/cli.h"
#include "harness/experiment.h"
#include "harness/output.h"

#define PATH_MAX_LEN 1024

/* results/STEM.csv for an experiment file (its stem, not its name key:
 * the Makefile's rules expect experiments/X.ini to make results/X.csv), or
 * for one read from stdin, its name. */
static void default_output(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    snprintf(out, size, "results/%.*s.csv", (int)(dot ? dot - base : (long)strlen(base)), base);
}

/* An experiment read from stdin has no file name: its name key names it,
 * else the stem of -o FILE; with neither it is refused (exit 2), since its
 * rows and its default output both need a name.  0, or -1 after one line. */
static int name_stdin_experiment(experiment *e, const char *output)
{
    if (e->name[0] != '\0')
        return 0;
    if (output_is_stdout(output)) {
        cli_error("run", "stdin: the experiment has no name: give name = NAME in its [experiment] section, "
                         "or -o FILE (its stem names it)");
        return -1;
    }
    char err[ERR_MAX];
    if (experiment_name_from_path(e, output, err, sizeof err) != 0) {
        cli_error("run", "-o: %s", err);
        return -1;
    }
    return 0;
}

static const char RUN_USAGE[] =
    "usage: bloomlab run EXPERIMENT.ini|- [-o FILE|-] [--threads T] [--scale quick|full]\n"
    "                    [--shard I/N] [--quiet] [--fresh] [--inputs]\n"
    "\n"
    "Runs every cell of an experiment file and writes tidy CSV (default\n"
    "results/NAME.csv, NAME the file's stem).  An interrupted run keeps its\n"
    "finished cells and the next run resumes from them (--fresh starts over).\n"
    "An output whose '# inputs:' line matches this run's (the experiment's\n"
    "cells, seed, scale, shard and the code's results version) is current:\n"
    "it is left untouched (--fresh remakes it).\n"
    "The file - is standard input: the experiment is named by its name key\n"
    "(results/NAME.csv), else by the stem of -o FILE.\n"
    "\n"
    "  -o FILE          where the CSV goes; -o - is standard output (always run:\n"
    "                   there is no file to compare; progress stays on stderr)\n"
    "  --threads T      OpenMP threads (default: all cores)\n"
    "  --scale S        quick (default) or full: picks KEY.quick / KEY.full values\n"
    "  --shard I/N      run only cells i with i mod N = I-1; bloomlab merge joins shards\n"
    "  --quiet          no progress line on stderr\n"
    "  --fresh          ignore the journal and a current output: run every cell\n"
    "  --inputs         print the '# inputs:' line this run would write; run nothing\n";

int cmd_run(int argc, char **argv)
{
    run_flags f;
    engine_default_flags(&f);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(RUN_USAGE, stdout);
            return 0;
        }
        int taken = engine_shared_flag("run", argc, argv, &i, &f);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        if (argv[i][0] == '-' && argv[i][1] != '\0') { /* "-" alone is stdin */
            cli_error("run", "unknown option '%s' (bloomlab run --help)", argv[i]);
            return 2;
        }
        if (path != NULL) {
            cli_error("run", "one experiment file at a time ('%s' and '%s')", path, argv[i]);
            return 2;
        }
        path = argv[i];
    }
    if (path == NULL) {
        cli_error("run", "no experiment file (bloomlab run --help)");
        return 2;
    }
    char err[ERR_MAX];
    experiment e;
    if (experiment_load(path, f.scale, &e, err, sizeof err) != 0) {
        fprintf(stderr, "bloomlab run: %s\n", err);
        return 2;
    }
    char output[PATH_MAX_LEN];
    if (name_stdin_experiment(&e, f.output) != 0) {
        experiment_free(&e);
        return 2;
    }
    if (f.output == NULL) {
        default_output(strcmp(path, "-") == 0 ? e.name : path, output, sizeof output);
        f.output = output;
    }
    int rc = engine_run(&e, &f, argc, argv);
    experiment_free(&e);
    return rc;
}
