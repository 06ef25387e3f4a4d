/* list.c -- `bloomlab list`: every name an experiment may use. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "filters.h"
#include "hashes.h"
#include "schemes.h"
#include "sizing.h"

int cmd_list(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        puts("usage: bloomlab list\n\nPrints the hashes (with their output width), index schemes,\n"
             "filter layouts, sizing rules and key sets an experiment may name.");
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "bloomlab list: unexpected argument '%s'\n", argv[1]);
        return 2;
    }
    puts("hashes (name, output bits):");
    for (size_t i = 0; i < hash_registry_count(); i++) {
        const hasher *h = hash_registry_at(i);
        printf("  %-12s %3u  %s\n", h->name, h->bits, h->about);
    }
    puts("  plugin:PATH.so:SYMBOL  64  your own uint64_t SYMBOL(const void *, size_t, uint64_t)");
    puts("schemes (scheme = default: each layout's own):");
    for (int i = 0; i < SCHEME_COUNT; i++)
        printf("  %-12s %s\n", scheme_name((scheme_kind)i), scheme_about((scheme_kind)i));
    puts("filters:");
    for (int i = 0; i < LAYOUT_COUNT; i++)
        printf("  %-12s %s\n", layout_name((layout_kind)i), layout_about((layout_kind)i));
    puts("sizing rules (sizing = RULE with p = RATE, filter splitblock):");
    for (int i = 1; i < SIZING_COUNT; i++)
        printf("  %-23s %s\n", sizing_name((sizing_rule)i), sizing_about((sizing_rule)i));
    puts("keys:\n"
         "  random64     random 8-byte keys, distinct at any n, fresh each trial\n"
         "  seq64        the integers 0, 1, 2, ... as 8 little-endian bytes, the same each trial\n"
         "  urls         synthetic crawler URLs, about 40 to 80 bytes, shared hosts and prefixes\n"
         "  words        the words of /usr/share/dict/words (wamerican), shuffled each trial\n"
         "  words:FILE   the lines of FILE\n"
         "  course       the course page's 20 present and 20 absent words");
    return 0;
}
