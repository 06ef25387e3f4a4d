/* list.c -- `bloomlab list`: every name an experiment may use, and every
 * CSV column, as text (the default), CSV or JSON (table.h).
 *
 * Each section is a table filled from the registries themselves (hashes,
 * schemes, layouts, sizing rules; the key sets here; the columns from
 * schema.c), so the three formats say the same.  The text keeps the layout
 * bash completion reads: a heading line at the margin, then one "  NAME ..."
 * line a name. */
#include <stdio.h>
#include <string.h>

#include "harness/cli.h"
#include "commands/commands.h"
#include "filter/filters.h"
#include "base/hashes.h"
#include "harness/schema.h"
#include "filter/schemes.h"
#include "model/sizing.h"
#include "harness/table.h"

#define CMD "list"

static const table_column NAME_ABOUT[] = {{"name", COLUMN_TEXT}, {"about", COLUMN_TEXT}};
static const table_column HASH_COLUMNS[] = {{"name", COLUMN_TEXT}, {"bits", COLUMN_NUMBER}, {"about", COLUMN_TEXT}};
static const table_column COLUMN_COLUMNS[] = {{"csv", COLUMN_TEXT},     {"name", COLUMN_TEXT},
                                              {"kind", COLUMN_TEXT},    {"unit", COLUMN_TEXT},
                                              {"meaning", COLUMN_TEXT}, {"filled", COLUMN_TEXT}};
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const KEY_SETS[][2] = {
    {"random64", "random 8-byte keys, distinct at any n, fresh each trial"},
    {"seq64", "the integers 0, 1, 2, ... as 8 little-endian bytes, the same each trial"},
    {"urls", "synthetic crawler URLs, about 40 to 80 bytes, shared hosts and prefixes"},
    {"words", "the words of /usr/share/dict/words (wamerican), shuffled each trial"},
    {"words:FILE", "the lines of FILE"},
    {"course", "the course page's 20 present and 20 absent words"}};

static int add_name_about(table *t, const char *name, const char *about)
{
    const char *fields[2] = {name, about};
    return table_add_row(t, fields);
}

static int fill_hashes(table *t)
{
    int rc = 0;
    char bits[16];
    for (size_t i = 0; i < hash_registry_count() && rc == 0; i++) {
        const hasher *h = hash_registry_at(i);
        snprintf(bits, sizeof bits, "%u", h->bits);
        const char *fields[3] = {h->name, bits, h->about};
        rc = table_add_row(t, fields);
    }
    const char *plugin[3] = {"plugin:PATH.so:SYMBOL", "64", "your own uint64_t SYMBOL(const void *, size_t, uint64_t)"};
    return rc != 0 ? rc : table_add_row(t, plugin);
}

static int fill_schemes(table *t)
{
    int rc = 0;
    for (int i = 0; i < SCHEME_COUNT && rc == 0; i++)
        rc = add_name_about(t, scheme_name((scheme_kind)i), scheme_about((scheme_kind)i));
    return rc;
}

static int fill_filters(table *t)
{
    int rc = 0;
    for (int i = 0; i < LAYOUT_COUNT && rc == 0; i++)
        rc = add_name_about(t, layout_name((layout_kind)i), layout_about((layout_kind)i));
    return rc;
}

static int fill_sizing(table *t)
{
    int rc = 0;
    for (int i = 1; i < SIZING_COUNT && rc == 0; i++) /* 0 is SIZING_NONE */
        rc = add_name_about(t, sizing_name((sizing_rule)i), sizing_about((sizing_rule)i));
    return rc;
}

static int fill_keys(table *t)
{
    int rc = 0;
    for (size_t i = 0; i < COUNT_OF(KEY_SETS) && rc == 0; i++)
        rc = add_name_about(t, KEY_SETS[i][0], KEY_SETS[i][1]);
    return rc;
}

static int add_column_docs(table *t, const char *csv, const column_doc *docs, size_t count)
{
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const char *fields[6] = {csv, docs[i].name, docs[i].kind == COLUMN_NUMBER ? "number" : "text",
                                 docs[i].unit, docs[i].meaning, docs[i].filled};
        rc = table_add_row(t, fields);
    }
    return rc;
}

/* The sweep's columns (csv = sweep) in header order, then the bench's
 * (csv = bench). */
static int fill_columns(table *t)
{
    int rc = add_column_docs(t, "sweep", SWEEP_COLUMN_DOCS, SWEEP_COLUMNS);
    return rc != 0 ? rc : add_column_docs(t, "bench", BENCH_COLUMN_DOCS, BENCH_COLUMNS);
}

typedef struct {
    const char *name;    /* `bloomlab list NAME`, the JSON key, the CSV's section */
    const char *heading; /* the text's heading line */
    int name_width;      /* the text's name column */
    const table_column *columns;
    size_t column_count;
    int (*fill)(table *t);
    int in_all;          /* part of a plain `bloomlab list` */
} list_section;

static const list_section SECTIONS[] = {
    {"hashes", "hashes (name, output bits):", 12, HASH_COLUMNS, COUNT_OF(HASH_COLUMNS), fill_hashes, 1},
    {"schemes", "schemes (scheme = default: each layout's own):", 12, NAME_ABOUT, 2, fill_schemes, 1},
    {"filters", "filters:", 12, NAME_ABOUT, 2, fill_filters, 1},
    {"sizing", "sizing rules (sizing = RULE with p = RATE, filter splitblock):", 23, NAME_ABOUT, 2, fill_sizing, 1},
    {"keys", "keys:", 12, NAME_ABOUT, 2, fill_keys, 1},
    {"columns", "columns (CSV, name, unit, meaning, which rows fill it):", 18, COLUMN_COLUMNS,
     COUNT_OF(COLUMN_COLUMNS), fill_columns, 0},
};

/* Field `column` of a row, "" when the section has no such column. */
static const char *field_named(const table *t, size_t row, const char *column)
{
    for (size_t c = 0; c < t->column_count; c++)
        if (strcmp(t->columns[c].name, column) == 0)
            return t->fields[row * t->column_count + c];
    return "";
}

static void write_text(FILE *out, const list_section *s, const table *t)
{
    int width = s->name_width; /* at least: the longest name sets it, so that the columns stay aligned */
    for (size_t r = 0; r < t->rows; r++) {
        const int len = (int)strlen(field_named(t, r, "name"));
        width = len > width ? len : width;
    }
    fprintf(out, "%s\n", s->heading);
    for (size_t r = 0; r < t->rows; r++) {
        fprintf(out, "  %-*s ", width, field_named(t, r, "name"));
        if (s->columns == HASH_COLUMNS)
            fprintf(out, "%3s  ", field_named(t, r, "bits"));
        if (s->columns == COLUMN_COLUMNS) {
            const char *unit = field_named(t, r, "unit");
            fprintf(out, "%-5s %-18s ", field_named(t, r, "csv"), unit[0] ? unit : "-");
            fprintf(out, "%s (%s)\n", field_named(t, r, "meaning"), field_named(t, r, "filled"));
        } else {
            fprintf(out, "%s\n", field_named(t, r, "about"));
        }
    }
}

/* Every section of a plain `bloomlab list` as CSV rows of one shape. */
static const table_column ALL_COLUMNS[] = {
    {"section", COLUMN_TEXT}, {"name", COLUMN_TEXT}, {"bits", COLUMN_NUMBER}, {"about", COLUMN_TEXT}};

static int add_to_all(table *all, const list_section *s, const table *t)
{
    int rc = 0;
    for (size_t r = 0; r < t->rows && rc == 0; r++) {
        const char *fields[4] = {s->name, field_named(t, r, "name"), field_named(t, r, "bits"),
                                 field_named(t, r, "about")};
        rc = table_add_row(all, fields);
    }
    return rc;
}

/* The sections chosen (one, or every in_all one) in a format.  0, or 1
 * when memory ran out (reported). */
static int write_sections(FILE *out, const list_section *only, table_format format)
{
    table all;
    table_init(&all, ALL_COLUMNS, COUNT_OF(ALL_COLUMNS));
    int rc = 0, first = 1;
    if (format == FORMAT_JSON && only == NULL)
        fputc('{', out);
    for (size_t i = 0; i < COUNT_OF(SECTIONS) && rc == 0; i++) {
        const list_section *s = &SECTIONS[i];
        if (only != NULL ? s != only : !s->in_all)
            continue;
        table t;
        table_init(&t, s->columns, s->column_count);
        rc = s->fill(&t);
        if (rc == 0 && format == FORMAT_TEXT)
            write_text(out, s, &t);
        else if (rc == 0 && only != NULL)
            table_write(out, &t, format);
        else if (rc == 0 && format == FORMAT_JSON) {
            fprintf(out, "%s", first ? "" : ",\n ");
            json_write_string(out, s->name);
            fputs(": ", out);
            table_write_json_array(out, &t);
        } else if (rc == 0)
            rc = add_to_all(&all, s, &t);
        first = 0;
        table_free(&t);
    }
    if (rc == 0 && format == FORMAT_JSON && only == NULL)
        fputs("}\n", out);
    if (rc == 0 && format == FORMAT_CSV && only == NULL)
        table_write(out, &all, FORMAT_CSV);
    table_free(&all);
    if (rc != 0)
        cli_error(CMD, "out of memory");
    return rc != 0;
}

static const char USAGE[] =
    "usage: bloomlab list [SECTION] [--format text|csv|json]\n"
    "\n"
    "Prints the hashes (with their output width), index schemes, filter\n"
    "layouts, sizing rules and key sets an experiment may name.  SECTION is\n"
    "one of hashes, schemes, filters, sizing, keys, or columns: every column\n"
    "of the sweep's CSV (results/NAME.csv) and of bench.csv, with its unit,\n"
    "its meaning and which rows fill it (not part of a plain list).\n"
    "\n"
    "  --format F   text (default), csv or json.  One SECTION in csv or json is\n"
    "               its table (json: an array of objects, one a name); all of\n"
    "               them in json is an object of such arrays keyed by section\n"
    "               ({\"hashes\": [{\"name\": ..., \"bits\": ..., \"about\": ...}], ...}),\n"
    "               in csv one table: section,name,bits,about.\n";

int cmd_list(int argc, char **argv)
{
    const list_section *only = NULL;
    table_format format = FORMAT_TEXT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(USAGE, stdout);
            return 0;
        }
        if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            if ((v = cli_flag_value(argc, argv, &i, CMD, "--format")) == NULL || table_format_flag(CMD, v, &format) != 0)
                return 2;
            continue;
        }
        const list_section *named = NULL;
        for (size_t s = 0; s < COUNT_OF(SECTIONS); s++)
            if (strcmp(a, SECTIONS[s].name) == 0)
                named = &SECTIONS[s];
        if (named == NULL || only != NULL) {
            cli_error(CMD, "unexpected argument '%s' (a section: hashes, schemes, filters, sizing, keys, columns)", a);
            return 2;
        }
        only = named;
    }
    return write_sections(stdout, only, format);
}
