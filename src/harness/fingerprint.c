/* fingerprint.c -- the inputs fingerprint; see fingerprint.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness/fingerprint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "model/sizing.h"
#include "base/version.h"

/* A part: its tag, its length, its bytes -- "ab"+"c" and "a"+"bc" differ. */
static void add_part(XXH3_state_t *st, char tag, const void *bytes, size_t len)
{
    uint64_t len64 = len;
    XXH3_128bits_update(st, &tag, 1);
    XXH3_128bits_update(st, &len64, sizeof len64);
    XXH3_128bits_update(st, bytes, len);
}

static void add_text(XXH3_state_t *st, char tag, const char *text) { add_part(st, tag, text, strlen(text)); }

static void add_u64(XXH3_state_t *st, char tag, uint64_t v) { add_part(st, tag, &v, sizeof v); }

/* An input by its name and the digest of its bytes: a file (add_file)
 * and bytes read from stdin (which cannot be read again) alike. */
static void add_digest(XXH3_state_t *st, char tag, const char *name, XXH128_hash_t digest)
{
    add_text(st, 'p', name);
    add_part(st, tag, &digest, sizeof digest);
}

/* A file's bytes as one part (its own digest, so the length need not be
 * known before reading). */
static int add_file(XXH3_state_t *st, char tag, const char *path, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "%s: cannot read it for the inputs fingerprint: %s", path, strerror(errno));
        return -1;
    }
    XXH3_state_t *file_state = XXH3_createState();
    XXH3_128bits_reset(file_state);
    unsigned char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        XXH3_128bits_update(file_state, buf, got);
    int failed = ferror(f);
    fclose(f);
    XXH128_hash_t digest = XXH3_128bits_digest(file_state);
    XXH3_freeState(file_state);
    if (failed) {
        snprintf(err, err_size, "%s: cannot read it for the inputs fingerprint", path);
        return -1;
    }
    add_digest(st, tag, path, digest);
    return 0;
}

/* The grid as the loader made it: what flags give `sweep`, and what the
 * file gives at this scale. */
static void add_cells(XXH3_state_t *st, const experiment *e)
{
    for (size_t i = 0; i < e->count; i++) {
        const cell *c = &e->cells[i];
        uint64_t parts[] = {c->layout, c->scheme, c->m, c->n, c->k, c->trials, c->queries, c->deletes, c->measure};
        add_part(st, 'c', parts, sizeof parts);
        add_text(st, 'h', cell_hash_name(e, c));
        add_text(st, 'k', cell_keys_name(e, c));
        if (c->plugin) /* a plugin's cell is layout standard: its name tells them apart */
            add_text(st, 'f', cell_filter_name(e, c));
        if (c->sizing != SIZING_NONE) { /* m came from a rule: the rule and p are in the row */
            add_text(st, 'r', sizing_name(c->sizing));
            add_part(st, 'p', &c->p_target, sizeof c->p_target);
        }
    }
    add_text(st, 'd', seeds_name(e->seeds));
}

int inputs_fingerprint(const experiment *e, char hex[INPUTS_FINGERPRINT_SIZE], char *err, size_t err_size)
{
    XXH3_state_t *st = XXH3_createState();
    XXH3_128bits_reset(st);
    add_u64(st, 'v', BLOOMLAB_RESULTS_VERSION);
    add_text(st, 'n', e->name);
    add_u64(st, 's', e->seed);
    add_text(st, 'q', e->scale);
    int rc = 0;
    if (e->path != NULL)
        rc = add_file(st, 'e', e->path, err, err_size);
    else if (e->text != NULL)
        add_digest(st, 'e', "-", XXH3_128bits(e->text, e->text_len));
    add_cells(st, e);
    for (size_t i = 0; i < e->keyset_count; i++) {
        uint64_t d[2];
        if (keyset_digest(e->keysets[i], d) == 0)
            add_digest(st, 'w', keyset_file(e->keysets[i]), (XXH128_hash_t){d[0], d[1]});
    }
    for (size_t i = 0; i < e->hash_count && rc == 0; i++) {
        char file[HASH_NAME_MAX + 2];
        if (hasher_plugin_file(&e->hashes[i], file, sizeof file) == 0)
            rc = add_file(st, 'l', file, err, err_size);
    }
    for (size_t i = 0; i < e->plugin_count && rc == 0; i++)
        rc = add_file(st, 'F', e->plugins[i].file, err, err_size);
    XXH128_hash_t d = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    snprintf(hex, INPUTS_FINGERPRINT_SIZE, "%016" PRIx64 "%016" PRIx64, (uint64_t)d.high64, (uint64_t)d.low64);
    return rc;
}
