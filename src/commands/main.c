/* main.c -- bloomlab's entry point: find the subcommand and hand over. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands/commands.h"
#include "base/cpu.h"
#include "commands/demo.h"
#include "filter/fetch_tune.h"
#include "filter/filters.h"
#include "base/version.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command COMMANDS[] = {
    {"run", cmd_run, "run an experiment file into results/NAME.csv"},
    {"sweep", cmd_sweep, "the same from flags, CSV to stdout"},
    {"theory", cmd_theory, "the formulas over a grid, as CSV"},
    {"merge", cmd_merge, "join the CSVs of shards"},
    {"bench", cmd_bench, "speed against filter size, beside the machine's ceiling"},
    {"calc", cmd_calc, "sizing: any two of n, p, m give the rest"},
    {"demo", cmd_demo, "the course page's 64-bit filter, bit for bit"},
    {"list", cmd_list, "hashes, schemes, filters and key sets"},
    {"memory", cmd_memory, "RSS of an exact set (GHashTable) against a Bloom filter"},
    {"uniformity", cmd_uniformity, "chi-square test of bit-position uniformity per hash"},
    {"report", cmd_report, "a Markdown and a self-contained HTML page for a sweep CSV"},
    {"check", cmd_check, "a conformance battery for a filter, built-in or plugin"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: bloomlab COMMAND [OPTIONS]   (bloomlab COMMAND --help for each)\n\n"
                 "bloomlab measures Bloom filters against their theory.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
}

/* A command's status, made 1 when what it printed did not all reach
 * standard output (a full disk, /dev/full): stdout is buffered, so the last
 * of it is written only here, and a failed write must not pass for success. */
static int finish_stdout(const char *command, int status)
{
    if ((fflush(stdout) == 0 && !ferror(stdout)) || status != 0) /* a failed command has said why */
        return status;
    fprintf(stderr, "bloomlab %s: cannot write standard output: %s\n", command, strerror(errno));
    return 1;
}

/* The version, the git revision it was built from, and which loops run here. */
static int print_version(void)
{
    char level[160];
    printf("bloomlab %s (git %s)\nresults version %d\nvector level: %s\nloops: %s\n", BLOOMLAB_VERSION,
           bloomlab_git_rev, BLOOMLAB_RESULTS_VERSION, cpu_isa_describe(level, sizeof level), filter_ops_description());
    return finish_stdout("--version", 0);
}

int main(int argc, char **argv)
{
    /* A file-size limit (ulimit -f, a full quota) makes a write fail with
     * EFBIG, which every write reports with its path; it must not kill the
     * process first.  Set before anything else runs: LLVM's OpenMP runtime
     * writes a registration file in /dev/shm as it starts. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return finish_stdout("--help", 0);
    }
    char env_err[200]; /* the environment's settings checked before any work */
    if (cpu_isa_env_check(env_err, sizeof env_err) != 0 || fetch_tune_env_check(env_err, sizeof env_err) != 0) {
        fprintf(stderr, "bloomlab: %s\n", env_err);
        return 2;
    }
    if (strcmp(argv[1], "--version") == 0)
        return print_version();
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0)
            return finish_stdout(COMMANDS[i].name, COMMANDS[i].run(argc - 1, argv + 1));
    fprintf(stderr, "bloomlab: unknown command '%s' (bloomlab --help lists them)\n", argv[1]);
    return 2;
}
