/* names.c -- see names.h. */
#include "base/names.h"

#include <string.h>

#include "base/strbuf.h"

int name_index(const char *const *names, size_t first, size_t count, const char *name)
{
    for (size_t i = first; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return (int)i;
    return -1;
}

const char *names_join(const char *const *names, size_t first, size_t count, char *out, size_t size)
{
    strbuf sb = strbuf_on(out, size);
    for (size_t i = first; i < count; i++)
        strbuf_printf(&sb, "%s%s", i > first ? ", " : "", names[i]);
    return out;
}
