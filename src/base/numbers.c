/* numbers.c -- numbers, lists and ranges; see numbers.h. */
#include "base/numbers.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest whole number a double holds exactly: lists above it are refused. */
#define EXACT_LIMIT 9007199254740992.0

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

/* Parse a number from the front of [s, end); returns the end of what was read or NULL. */
static const char *scan_number(const char *s, const char *end, double *out)
{
    char buf[128];
    size_t len = (size_t)(end - s);
    if (len == 0 || len >= sizeof buf)
        return NULL;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *stop;
    if (!(isdigit((unsigned char)buf[0]) || buf[0] == '.' || buf[0] == '-' || buf[0] == '+'))
        return NULL;
    if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X'))
        return NULL; /* no hex: 0x10 would silently be 16 */
    errno = 0;
    double v = strtod(buf, &stop);
    if (stop == buf || errno == ERANGE)
        return NULL;
    if (*stop == '^') { /* a power: 2^20 */
        char *stop2;
        double e = strtod(stop + 1, &stop2);
        if (stop2 == stop + 1)
            return NULL;
        v = pow(v, e);
        stop = stop2;
    }
    if (!isfinite(v))
        return NULL;
    *out = v;
    return s + (stop - buf);
}

static int parse_whole_text(const char *text, double *out)
{
    const char *s = skip_space(text);
    const char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    const char *stop = scan_number(s, end, out);
    return stop == end ? 0 : -1;
}

int number_parse(const char *text, double *out) { return parse_whole_text(text, out); }

int number_parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    /* Plain digits are read exactly, so seeds keep all 64 bits. */
    const char *s = skip_space(text);
    size_t digits = strspn(s, "0123456789");
    if (digits > 0 && *skip_space(s + digits) == '\0') {
        errno = 0;
        char *stop;
        unsigned long long v = strtoull(s, &stop, 10);
        if (errno == ERANGE || v < min || v > max)
            return -1;
        *out = v;
        return 0;
    }
    double v;
    if (parse_whole_text(text, &v) != 0 || v != floor(v) || v < 0 || v >= 18446744073709551616.0)
        return -1;
    uint64_t u = (uint64_t)v;
    if (u < min || u > max)
        return -1;
    *out = u;
    return 0;
}

static int list_push(number_list *list, size_t *cap, double v)
{
    if (list->count == NUMBER_LIST_MAX)
        return -1;
    if (list->count == *cap) {
        size_t bigger = *cap ? 2 * *cap : 8;
        double *grown = realloc(list->values, bigger * sizeof *grown);
        if (grown == NULL)
            return -1;
        list->values = grown;
        *cap = bigger;
    }
    list->values[list->count++] = v;
    return 0;
}

/* The item as it may appear in a one-line message: control bytes (a
 * newline in a shell-quoted flag) become \xNN. */
static void printable_item(const char *item, char *out, size_t size)
{
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)item; *p && used + 5 < size; p++) {
        if (*p < 0x20 || *p == 0x7f)
            used += (size_t)snprintf(out + used, size - used, "\\x%02x", *p);
        else
            out[used++] = (char)*p;
    }
    out[used] = '\0';
}

static int fail(number_list *list, char *err, size_t err_size, const char *fmt, const char *item)
{
    char shown[4 * 256 + 8];
    printable_item(item, shown, sizeof shown);
    snprintf(err, err_size, fmt, shown);
    number_list_free(list);
    return -1;
}

/* One item: a number or a range, written into list. */
static int parse_item(const char *item, int integral, number_list *list, size_t *cap, char *err,
                      size_t err_size)
{
    const char *end = item + strlen(item);
    const char *dots = strstr(item, "..");
    double a, b, step = 1;
    int geometric = 0;
    if (dots == NULL) {
        if (scan_number(item, end, &a) != end)
            return fail(list, err, err_size, "'%s' is not a number", item);
        if (integral && fabs(a) > EXACT_LIMIT)
            return fail(list, err, err_size, "'%s' is above 2^53, where whole numbers stop being exact", item);
        if (integral && a != floor(a))
            return fail(list, err, err_size, "'%s' is not a whole number", item);
        if (list_push(list, cap, a) != 0)
            return fail(list, err, err_size, "'%s': too many values", item);
        return 0;
    }
    if (scan_number(item, dots, &a) != dots)
        return fail(list, err, err_size, "range '%s' does not start with a number", item);
    const char *rest = dots + 2;
    const char *sep = strpbrk(rest, ":*");
    const char *b_end = sep ? sep : end;
    if (scan_number(rest, b_end, &b) != b_end)
        return fail(list, err, err_size, "range '%s' does not end with a number", item);
    if (sep != NULL) {
        geometric = *sep == '*';
        if (scan_number(sep + 1, end, &step) != end)
            return fail(list, err, err_size, "range '%s' has a bad step or factor", item);
    }
    if (b < a)
        return fail(list, err, err_size, "range '%s' runs backwards", item);
    if (geometric ? !(step > 1) || !(a > 0) : !(step > 0))
        return fail(list, err, err_size,
                    geometric ? "range '%s' needs a start above 0 and a factor above 1"
                              : "range '%s' needs a step above 0",
                    item);
    double limit = b + fabs(b) * 1e-9;
    for (size_t i = 0;; i++) {
        double v = geometric ? a * pow(step, (double)i) : a + step * (double)i;
        if (v > limit)
            break;
        if (integral) {
            double r = round(v);
            if (fabs(r) > EXACT_LIMIT)
                return fail(list, err, err_size, "range '%s' goes above 2^53, where whole numbers stop being exact", item);
            if (fabs(v - r) > 1e-9 * fmax(1, fabs(v)))
                return fail(list, err, err_size, "range '%s' gives a value that is not whole", item);
            v = r;
        }
        if (list_push(list, cap, v) != 0)
            return fail(list, err, err_size, "range '%s' gives too many values (the limit is 100000)", item);
    }
    return 0;
}

int number_list_parse(const char *text, int integral, number_list *out, char *err, size_t err_size)
{
    out->values = NULL;
    out->count = 0;
    size_t cap = 0;
    char item[256];
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *stop = comma ? comma : p + strlen(p);
        const char *s = skip_space(p);
        const char *e = stop;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        size_t len = (size_t)(e - s);
        if (len == 0)
            return fail(out, err, err_size, "%s", "an empty item in a list");
        if (len >= sizeof item)
            return fail(out, err, err_size, "%s", "a list item longer than 255 characters");
        memcpy(item, s, len);
        item[len] = '\0';
        if (parse_item(item, integral, out, &cap, err, err_size) != 0)
            return -1;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    return 0;
}

void number_list_free(number_list *list)
{
    free(list->values);
    list->values = NULL;
    list->count = 0;
}
