/* speed.c -- two filters timed interleaved; see speed.h. */
#define _POSIX_C_SOURCE 200809L
#include "harness/speed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/pcg.h"

typedef struct {
    const speed_filter *f;
    filter layout; /* f->plugin == NULL */
    void *handle;  /* a plugin's */
    filter_ops ops;
    scheme_ctx ctx;
} speed_inst;

/* 0; -1 no memory; -2 a plugin's create gave NULL. */
static int inst_open(speed_inst *x, const speed_filter *f, uint64_t n, uint64_t seed)
{
    memset(x, 0, sizeof *x);
    x->f = f;
    if (f->plugin != NULL) {
        x->handle = f->plugin->api->create(f->m, f->k, n, seed);
        return x->handle != NULL ? 0 : -2;
    }
    uint64_t m = layout_fit_m(f->layout, f->m);
    if (filter_init(&x->layout, f->layout, m, f->k) != 0)
        return -1;
    x->ops = filter_ops_for(f->layout, f->scheme);
    x->ctx.hash = f->hash;
    x->ctx.seed = seed;
    x->ctx.log2_m = log2_floor(m);
    return 0;
}

static void inst_close(speed_inst *x)
{
    if (x->f->plugin == NULL)
        filter_free(&x->layout);
    else if (x->handle != NULL)
        x->f->plugin->api->destroy(x->handle);
    x->handle = NULL;
}

static void inst_add(speed_inst *x, const key_batch *b, size_t count)
{
    if (x->f->plugin == NULL)
        x->ops.insert_many(&x->layout, &x->ctx, b, count);
    else
        for (size_t i = 0; i < count; i++)
            filter_plugin_add(x->f->plugin, x->handle, &b[i]);
}

static uint64_t inst_query(const speed_inst *x, const key_batch *b, size_t count)
{
    return x->f->plugin == NULL ? x->ops.query_many(&x->layout, &x->ctx, b, count, NULL)
                                : filter_plugin_query(x->f->plugin, x->handle, b, count);
}

/* Inserts done, inside the insert clock: a layout sets its staged bits; a
 * plugin is asked its bits() (a plugin that builds lazily, LevelDB's,
 * builds there, so its build is timed as inserting, not as its first
 * query). */
static void inst_ready(speed_inst *x)
{
    if (x->f->plugin == NULL)
        filter_flush(&x->layout);
    else if (x->f->plugin->api->bits != NULL)
        (void)x->f->plugin->api->bits(x->handle);
}

/* One filter once: its times into *t, its answers and size into the rest. */
static int time_once(const speed_filter *f, uint64_t n, uint64_t absent, const keyset *ks, uint64_t seed,
                     key_batch *b, double t[3], speed_result *out)
{
    speed_inst x;
    int rc = inst_open(&x, f, n, seed);
    if (rc != 0)
        return rc;
    double spent = 0;
    size_t made;
    for (uint64_t i = 0; i < n;) {
        i = keyset_fill_chunk(ks, seed, n, KEY_PRESENT, i, n, b, SPEED_CHUNK_BATCHES, &made);
        double t0 = now_seconds();
        inst_add(&x, b, made);
        spent += now_seconds() - t0;
    }
    double t0 = now_seconds();
    inst_ready(&x);
    spent += now_seconds() - t0;
    t[0] = spent * 1e9 / (double)n;
    uint64_t yes[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        uint64_t end = side == 0 ? absent : n;
        spent = 0;
        for (uint64_t i = 0; i < end;) {
            i = keyset_fill_chunk(ks, seed, n, side == 0 ? KEY_ABSENT : KEY_PRESENT, i, end, b, SPEED_CHUNK_BATCHES, &made);
            double t1 = now_seconds();
            yes[side] += inst_query(&x, b, made);
            spent += now_seconds() - t1;
        }
        t[1 + side] = spent * 1e9 / (double)end;
    }
    out->fpr = (double)yes[0] / (double)absent;
    out->present_missing += n - yes[1];
    if (f->plugin == NULL) {
        out->m = x.layout.m;
        out->bytes = layout_bytes(f->layout, x.layout.m);
        out->fill = (double)filter_bits_set(&x.layout) / (double)x.layout.m;
    } else {
        const bloomlab_filter_api *api = f->plugin->api;
        out->m = api->bits != NULL ? api->bits(x.handle) : f->m;
        out->bytes = api->size_bytes(x.handle);
        out->fill = api->bits_set != NULL && out->m > 0 ? (double)api->bits_set(x.handle) / (double)out->m : NAN;
    }
    inst_close(&x);
    return 0;
}

int speed_interleaved(const speed_filter f[2], uint64_t n, uint64_t absent, const keyset *ks, uint64_t seed,
                      int rounds, speed_result out[2])
{
    key_batch *b = malloc(SPEED_CHUNK_BATCHES * sizeof *b);
    if (b == NULL)
        return -1;
    for (int j = 0; j < 2; j++) {
        memset(&out[j], 0, sizeof out[j]);
        out[j].insert = out[j].absent = out[j].present = INFINITY;
    }
    for (int round = 0; round < rounds; round++)
        for (int j = 0; j < 2; j++) {
            int who = (round + j) % 2; /* alternate which goes first */
            double t[3];
            int rc = time_once(&f[who], n, absent, ks, seed_derive(seed, (uint64_t)round), b, t, &out[who]);
            if (rc != 0) {
                free(b);
                return rc;
            }
            out[who].insert = fmin(out[who].insert, t[0]);
            out[who].absent = fmin(out[who].absent, t[1]);
            out[who].present = fmin(out[who].present, t[2]);
        }
    free(b);
    return 0;
}
