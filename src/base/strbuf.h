/* strbuf.h -- the one string builder: text appended into a caller's buffer
 * of fixed size.  What does not fit is cut (the buffer stays terminated)
 * and remembered, so a caller that must not lose text can ask. */
#ifndef BLOOMLAB_STRBUF_H
#define BLOOMLAB_STRBUF_H

#include <stddef.h>

typedef struct {
    char *text;
    size_t len; /* bytes written, not counting the terminator */
    size_t cap; /* the buffer's size */
    int cut;    /* something did not fit */
} strbuf;

/* A builder over buf[size] (size >= 1), emptied. */
strbuf strbuf_on(char *buf, size_t size);

void strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* argv[0 .. argc) after prefix, each word preceded by a space: a command
 * line as the metadata of a result records it. */
void strbuf_argv(strbuf *sb, const char *prefix, int argc, char **argv);

#endif
