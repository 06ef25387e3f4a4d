/* strbuf.h -- the one string builder: text appended either into a caller's
 * buffer of fixed size (strbuf_on) or into one that grows on the heap
 * (strbuf_heap).  What does not fit -- a fixed buffer full, or no memory to
 * grow -- is cut (the text stays terminated) and remembered in `cut`, so a
 * caller that must not write a partial result can refuse to. */
#ifndef BLOOMLAB_STRBUF_H
#define BLOOMLAB_STRBUF_H

#include <stddef.h>

typedef struct {
    char *text;
    size_t len; /* bytes written, not counting the terminator */
    size_t cap; /* the buffer's size */
    int cut;    /* something did not fit */
    int grows;  /* text is the builder's own (heap): it grows, strbuf_free frees it */
} strbuf;

/* A builder over buf[size] (size >= 1), emptied. */
strbuf strbuf_on(char *buf, size_t size);

/* An empty builder that grows on the heap; strbuf_free releases it. */
strbuf strbuf_heap(void);
void strbuf_free(strbuf *sb);

void strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* argv[0 .. argc) after prefix, each word preceded by a space: a command
 * line as the metadata of a result records it. */
void strbuf_argv(strbuf *sb, const char *prefix, int argc, char **argv);

#endif
