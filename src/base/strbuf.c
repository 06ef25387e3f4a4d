/* strbuf.c -- see strbuf.h. */
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define STRBUF_HEAP_START 4096

strbuf strbuf_on(char *buf, size_t size)
{
    buf[0] = '\0';
    return (strbuf){buf, 0, size, 0, 0};
}

strbuf strbuf_heap(void)
{
    strbuf sb = {malloc(STRBUF_HEAP_START), 0, STRBUF_HEAP_START, 0, 1};
    if (sb.text == NULL) { /* nothing can be appended: every printf is cut */
        static char empty[1];
        sb = (strbuf){empty, 0, 1, 1, 0};
    }
    sb.text[0] = '\0';
    return sb;
}

void strbuf_free(strbuf *sb)
{
    if (sb->grows)
        free(sb->text);
    sb->text = NULL;
    sb->len = sb->cap = 0;
}

/* Room for `need` more bytes and the terminator: 0, or -1 when the buffer
 * is fixed or the heap refuses. */
static int strbuf_room(strbuf *sb, size_t need)
{
    if (need < sb->cap - sb->len)
        return 0;
    if (!sb->grows)
        return -1;
    size_t cap = (sb->len + need + 1) * 2;
    char *bigger = realloc(sb->text, cap);
    if (bigger == NULL)
        return -1;
    sb->text = bigger;
    sb->cap = cap;
    return 0;
}

void strbuf_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(sb->text + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    if (need < 0)
        return;
    if ((size_t)need < sb->cap - sb->len) {
        sb->len += (size_t)need;
        return;
    }
    if (strbuf_room(sb, (size_t)need) != 0) {
        sb->text[sb->len] = '\0'; /* what fitted of it is dropped: cut at the last whole piece */
        sb->cut = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(sb->text + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    sb->len += (size_t)need;
}

void strbuf_argv(strbuf *sb, const char *prefix, int argc, char **argv)
{
    strbuf_printf(sb, "%s", prefix);
    for (int i = 0; i < argc; i++)
        strbuf_printf(sb, " %s", argv[i]);
}
