/* report.c -- `bloomlab report`: a page for any CSV the sweep writes, as
 * Markdown and as one self-contained HTML file (figures inlined as SVG).
 *
 * The page is made by scripts/experiment_page.py (tables, verdicts, the
 * reasons report_hashes.py gives, gnuplot figures from plots/generic.gp):
 * Python is where the project's report already lives, so the page reuses
 * its readers and explanations rather than repeating them in C.  This
 * command finds the script -- in the source tree above the binary, or
 * where `make install` puts it ($(datadir)/bloomlab) -- and hands over to
 * Debian's Python, which checks the input and writes the pages. */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli.h"
#include "commands/commands.h"

#ifndef BLOOMLAB_DATADIR
#define BLOOMLAB_DATADIR "/usr/local/share/bloomlab"
#endif

/* Debian's interpreter, which has numpy (report.py needs it); the first
 * python3 on PATH may be another.  BLOOMLAB_PYTHON overrides. */
#define REPORT_PYTHON "/usr/bin/python3"
#define REPORT_SCRIPT "experiment_page.py"

static const char REPORT_USAGE[] =
    "usage: bloomlab report CSV [-o DIR]\n"
    "       bloomlab report --index DIR\n"
    "\n"
    "Writes DIR/NAME.md and DIR/NAME.html for CSV (results/NAME.csv, or any\n"
    "CSV that bloomlab run or bloomlab sweep -o wrote; default DIR: the CSV's\n"
    "own): the metadata; for each filter, hash, scheme, keys and n a table\n"
    "of the measured FPR and fill with their 95% intervals beside every\n"
    "formula column the CSV has and a verdict from its z column (flagged\n"
    "when |z| > 5); each flagged cell with its z and the reasons bloomlab\n"
    "can give; the best k per layout and bits per item where the grid has\n"
    "several k; and figures of FPR against whichever of k, bits per item,\n"
    "m or n varies, drawn by gnuplot and inlined as SVG: the HTML is one\n"
    "file with no links to other files.  Columns are read by name.\n"
    "\n"
    "  -o DIR        where the pages go (an existing directory)\n"
    "  --index DIR   write DIR/index.html, a link to every page in DIR\n"
    "\n"
    "Needs python3 (" REPORT_PYTHON ", or $BLOOMLAB_PYTHON) with numpy, and\n"
    "gnuplot.  Bad input (no such file, not a sweep CSV, a missing column)\n"
    "is one line on stderr, exit status 2, and nothing written.\n";

/* Whether dir/experiment_page.py exists; its path in out. */
static int script_in(const char *dir, char *out, size_t size)
{
    int len = snprintf(out, size, "%s/%s", dir, REPORT_SCRIPT);
    return len > 0 && (size_t)len < size && access(out, R_OK) == 0;
}

/* The script: in the source tree (bin/bloomlab, or build/asan/bloomlab,
 * below scripts/), beside an installed binary (BINDIR/../share/bloomlab,
 * which also holds in a DESTDIR staging tree), or at the configured
 * datadir.  0, or -1 when none has it. */
static int find_script(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *bindir = dirname(exe);
        static const char *const RELATIVE[] = {"/../scripts", "/../../scripts", "/../share/bloomlab"};
        for (size_t i = 0; i < sizeof RELATIVE / sizeof RELATIVE[0]; i++) {
            char dir[PATH_MAX + 32];
            snprintf(dir, sizeof dir, "%s%s", bindir, RELATIVE[i]);
            if (script_in(dir, out, size))
                return 0;
        }
    }
    return script_in(BLOOMLAB_DATADIR, out, size) ? 0 : -1;
}

int cmd_report(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(REPORT_USAGE, stdout);
            return 0;
        }
    char script[PATH_MAX + 64];
    if (find_script(script, sizeof script) != 0) {
        cli_error("report", "cannot find %s (in the source tree's scripts/ or in %s): reinstall bloomlab",
                  REPORT_SCRIPT, BLOOMLAB_DATADIR);
        return 1;
    }
    const char *python = getenv("BLOOMLAB_PYTHON");
    if (python == NULL || *python == '\0')
        python = REPORT_PYTHON;
    /* python, the script, the command's own arguments, NULL */
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (args == NULL) {
        cli_error("report", "out of memory");
        return 1;
    }
    args[0] = (char *)python;
    args[1] = script;
    for (int i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    if (fflush(stdout) != 0) {
        cli_error("report", "cannot write standard output: %s", strerror(errno));
        free(args);
        return 1;
    }
    execv(python, args);
    cli_error("report", "cannot run %s: %s (set BLOOMLAB_PYTHON to a python3 with numpy)", python, strerror(errno));
    free(args);
    return 1;
}
