/* strbuf.c -- see strbuf.h. */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>

strbuf strbuf_on(char *buf, size_t size)
{
    buf[0] = '\0';
    return (strbuf){buf, 0, size, 0};
}

void strbuf_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(sb->text + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    if (need < 0)
        return;
    if ((size_t)need >= sb->cap - sb->len) {
        sb->len = sb->cap - 1;
        sb->cut = 1;
    } else {
        sb->len += (size_t)need;
    }
}

void strbuf_argv(strbuf *sb, const char *prefix, int argc, char **argv)
{
    strbuf_printf(sb, "%s", prefix);
    for (int i = 0; i < argc; i++)
        strbuf_printf(sb, " %s", argv[i]);
}
