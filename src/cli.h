/* cli.h -- the small pieces every command's option parsing shares. */
#ifndef BLOOMLAB_CLI_H
#define BLOOMLAB_CLI_H

#include <stdint.h>

/* One line on stderr: "bloomlab CMD: message". */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of a flag given as "--flag VALUE" or "--flag=VALUE"; advances *i
 * past a separate value.  NULL (after reporting) when the value is missing. */
const char *cli_flag_value(int argc, char **argv, int *i, const char *cmd, const char *flag);

/* A whole number in [min, max]; -1 after reporting "--flag: 'x' is not ...". */
int cli_u64(const char *text, uint64_t min, uint64_t max, const char *cmd, const char *flag,
            uint64_t *out);

#endif
