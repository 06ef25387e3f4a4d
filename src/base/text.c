/* text.c -- messages and CSV fields; see text.h. */
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

void text_printable(const char *text, char *out, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        size_t need = is_control(*p) ? 4 : 1;
        if (used + need >= size)
            break;
        if (need == 4)
            snprintf(out + used, size - used, "\\x%02x", *p);
        else
            out[used] = (char)*p;
        used += need;
    }
    out[used] = '\0';
}

void text_fputs_printable(const char *text, FILE *f)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (is_control(*p))
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

int text_has_control(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (is_control(*p))
            return 1;
    return 0;
}

/* RFC 4180: a field with a comma, a quote or a line break is quoted. */
static int csv_needs_quotes(const char *text) { return strpbrk(text, ",\"\r\n") != NULL; }

size_t csv_field(const char *text, char *out, size_t size)
{
    int quote = csv_needs_quotes(text);
    size_t need = strlen(text) + 1;
    if (quote) {
        need += 2;
        for (const char *p = text; *p; p++)
            need += *p == '"';
    }
    if (need > size)
        return need - 1;
    size_t used = 0;
    if (quote)
        out[used++] = '"';
    for (const char *p = text; *p; p++) {
        if (quote && *p == '"')
            out[used++] = '"';
        out[used++] = *p;
    }
    if (quote)
        out[used++] = '"';
    out[used] = '\0';
    return used;
}

void csv_fputs_field(const char *text, FILE *f)
{
    char small[256];
    size_t need = csv_field(text, small, sizeof small) + 1; /* the one escaper */
    if (need <= sizeof small) {
        fputs(small, f);
        return;
    }
    char *big = malloc(need);
    if (big == NULL) { /* a field written unescaped would be a wrong row: stop */
        fputs("bloomlab: out of memory escaping a CSV field\n", stderr);
        abort();
    }
    csv_field(text, big, need);
    fputs(big, f);
    free(big);
}

long csv_field_count(const char *line)
{
    long fields = 1;
    const char *p = line;
    for (;;) {
        if (*p == '"') {
            for (p++;; p++) {
                if (*p == '\0')
                    return -1; /* unclosed */
                if (*p == '"') {
                    if (p[1] != '"')
                        break;
                    p++;
                }
            }
            p++;
            if (*p != ',' && *p != '\0')
                return -1; /* text after the closing quote */
        } else {
            size_t len = strcspn(p, ",\"");
            p += len;
            if (*p == '"')
                return -1; /* a quote inside an unquoted field */
        }
        if (*p == '\0')
            return fields;
        fields++;
        p++; /* the comma */
    }
}
