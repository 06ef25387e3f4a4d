/* cli.c -- option parsing helpers; see cli.h. */
#include "harness/cli.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/numbers.h"
#include "base/text.h"

void cli_error(const char *cmd, const char *fmt, ...)
{
    char message[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    /* a value with a newline in it must not break the one-line promise */
    fprintf(stderr, "bloomlab %s: ", cmd);
    text_fputs_printable(message, stderr);
    fputc('\n', stderr);
}

const char *cli_flag_value(int argc, char **argv, int *i, const char *cmd, const char *flag)
{
    const char *a = argv[*i];
    size_t len = strlen(flag);
    if (strncmp(a, flag, len) == 0 && a[len] == '=')
        return a + len + 1;
    /* "--n -o FILE": -o is the next option, not the value of --n */
    const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (next == NULL || (next[0] == '-' && (isalpha((unsigned char)next[1]) || next[1] == '-'))) {
        cli_error(cmd, "%s needs a value", flag);
        return NULL;
    }
    ++*i;
    return next;
}

int cli_u64(const char *text, uint64_t min, uint64_t max, const char *cmd, const char *flag,
            uint64_t *out)
{
    if (number_parse_u64(text, min, max, out) == 0)
        return 0;
    cli_error(cmd, "%s: '%s' is not a whole number from %llu to %llu", flag, text,
              (unsigned long long)min, (unsigned long long)max);
    return -1;
}

int cli_text_flag_take(int argc, char **argv, int *i, const char *cmd, const cli_text_flag *table, size_t count,
                       void *values)
{
    const char *a = argv[*i];
    for (size_t g = 0; g < count; g++) {
        const size_t len = strlen(table[g].flag);
        if (strncmp(a, table[g].flag, len) != 0 || (a[len] != '\0' && a[len] != '='))
            continue;
        const char *v = cli_flag_value(argc, argv, i, cmd, table[g].flag);
        if (v == NULL)
            return -1;
        *(const char **)(void *)((char *)values + table[g].offset) = v;
        return 1;
    }
    return 0;
}
