/* cli.h -- the small pieces every command's option parsing shares. */
#ifndef BLOOMLAB_CLI_H
#define BLOOMLAB_CLI_H

#include <stddef.h>
#include <stdint.h>

/* One line on stderr: "bloomlab CMD: message". */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of a flag given as "--flag VALUE" or "--flag=VALUE"; advances *i
 * past a separate value.  NULL (after reporting) when the value is missing. */
const char *cli_flag_value(int argc, char **argv, int *i, const char *cmd, const char *flag);

/* A flag whose value is kept as text: its name and where it goes in the
 * command's struct of values (offsetof). */
typedef struct {
    const char *flag;
    size_t offset;
} cli_text_flag;

/* argv[*i] against the table (FLAG VALUE or FLAG=VALUE): 1 when it is one
 * of them, its value stored at (char *)values + offset; 0 when it is none
 * (argv[*i] untouched); -1 after one line when its value is missing. */
int cli_text_flag_take(int argc, char **argv, int *i, const char *cmd, const cli_text_flag *table, size_t count,
                       void *values);

/* A whole number in [min, max]; -1 after reporting "--flag: 'x' is not ...". */
int cli_u64(const char *text, uint64_t min, uint64_t max, const char *cmd, const char *flag,
            uint64_t *out);

#endif
