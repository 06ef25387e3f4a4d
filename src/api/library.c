/* library.c -- libbloomlab's API (include/bloomlab/bloomlab.h) over the
 * filter layer: a bloomlab_filter is a `filter` (filters.h) with the loops
 * filter_ops_for gives its layout and default scheme, and the registry's
 * xxh3_64 at BLOOMLAB_SEED; sizing is model_smallest_m, calc's own search.
 *
 * Keys go to the loops in batches of KEY_BATCH, as `bloomlab sweep`
 * inserts them; a batch points at the caller's bytes (nothing is copied).
 * A key longer than a batch's 32-bit length takes the one-key reference
 * path (filter_insert_one), which sets the same bits (tests/test_batch.c). */
#include "bloomlab/bloomlab.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "filter/filters.h"
#include "base/hashes.h"
#include "model/model.h"
#include "filter/sbbf.h"
#include "filter/schemes.h"
#include "base/version.h"

/* The largest m taken, as `bloomlab run` takes it: far above any memory. */
#define LIBRARY_M_MAX 1000000000000000ULL
/* The hash every filter of this library uses (the registry's name). */
#define LIBRARY_HASH "xxh3_64"
/* What a Parquet filter hashes with (the format fixes it: XXH64, seed 0). */
#define PARQUET_HASH "xxh64"

#define MAGIC "BLOOMLAB"
#define NAME_FIELD 16 /* bytes of a name in the header, NUL-padded */

/* Offsets of the serialised form's header fields (bloomlab.h). */
enum {
    AT_MAGIC = 0,
    AT_VERSION = 8,
    AT_K = 12,
    AT_LAYOUT = 16,
    AT_SCHEME = 32,
    AT_HASH = 48,
    AT_SEED = 64,
    AT_M = 72,
    AT_BITSET_BYTES = 80,
    AT_BITSET = BLOOMLAB_HEADER_BYTES
};

struct bloomlab_filter {
    filter f;
    scheme_kind scheme;
    hasher hash;
    scheme_ctx ctx; /* ctx.hash points at hash above */
    filter_ops ops;
    filter_key8 key8; /* an 8-byte key's calls (key8_of) */
    key_batch *add_batches; /* bloomlab_add_batch's CALL_BATCHES batches, made at its first call of more
                               keys than one batch holds (NULL before, or when they could not be) */
};

/* Batches the batch calls hand the layout's insert_many or query_many at
 * once: a loop that prefetches a batch ahead (avx2.c's rings, the portable
 * one-pass loops, batch.c's flights) overlaps its memory across them,
 * where one batch a call leaves each batch's misses to itself
 * (docs/PERFORMANCE.md, 2026-12-05, sessions 14 and 15). */
#define CALL_BATCHES 8

static void set_error(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_error(char *err, size_t size, const char *fmt, ...)
{
    if (err == NULL || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

const char *bloomlab_version(void) { return BLOOMLAB_VERSION; }

/* ---- making a filter ------------------------------------------------------ */

static int layout_named(const char *name, layout_kind *layout, char *err, size_t err_size)
{
    if (name != NULL && layout_from_name(name, layout) == 0)
        return 0;
    set_error(err, err_size, "unknown layout '%s' (standard, counting, partitioned, blocked512, register64, splitblock)",
              name ? name : "(null)");
    return -1;
}

/* 0 when (layout, m, k) can be built with the layout's default scheme; m
 * is already whole blocks. */
static int check_size(layout_kind layout, uint64_t m, unsigned k, char *err, size_t err_size)
{
    if (m < 1 || m > LIBRARY_M_MAX) {
        set_error(err, err_size, "m = %llu bits is outside 1..%llu", (unsigned long long)m,
                  (unsigned long long)LIBRARY_M_MAX);
        return -1;
    }
    if (k < 1 || k > FILTER_K_MAX) {
        set_error(err, err_size, "k = %u is outside 1..%u", k, FILTER_K_MAX);
        return -1;
    }
    return layout_check(layout, layout_default_scheme(layout), m, k, err, err_size);
}

static filter_key8 key8_of(const filter *f, const scheme_ctx *ctx, scheme_kind scheme);

/* A bloomlab_filter around a built filter f (taken over: freed on failure
 * too), hashing by scheme at seed; NULL with why. */
static bloomlab_filter *filter_wrap(filter *f, scheme_kind scheme, uint64_t seed, char *err, size_t err_size)
{
    bloomlab_filter *bf = calloc(1, sizeof *bf);
    if (bf == NULL) {
        filter_free(f);
        set_error(err, err_size, "no memory");
        return NULL;
    }
    bf->f = *f;
    if (hasher_builtin(LIBRARY_HASH, &bf->hash) != 0) { /* the registry always has it */
        bloomlab_free(bf);
        set_error(err, err_size, "internal error: no hash %s", LIBRARY_HASH);
        return NULL;
    }
    bf->scheme = scheme;
    bf->ctx = (scheme_ctx){.hash = &bf->hash, .seed = seed, .log2_m = log2_floor(bf->f.m)};
    bf->ops = filter_ops_for(bf->f.layout, scheme);
    bf->key8 = key8_of(&bf->f, &bf->ctx, scheme);
    return bf;
}

/* An empty filter of a checked (layout, m, k) hashing at seed; NULL when
 * there is no memory. */
static bloomlab_filter *filter_new(layout_kind layout, scheme_kind scheme, uint64_t m, unsigned k, uint64_t seed,
                                   char *err, size_t err_size)
{
    filter f;
    if (filter_init(&f, layout, m, k) != 0) {
        set_error(err, err_size, "no memory for a %s filter of %llu bits", layout_name(layout),
                  (unsigned long long)m);
        return NULL;
    }
    return filter_wrap(&f, scheme, seed, err, err_size);
}

bloomlab_filter *bloomlab_create_mk(const char *layout_text, uint64_t m_bits, unsigned k, char *err, size_t err_size)
{
    layout_kind layout;
    if (layout_named(layout_text, &layout, err, err_size) != 0)
        return NULL;
    /* whole blocks; an m out of range is refused as it is, not rounded */
    const uint64_t m = m_bits >= 1 && m_bits <= LIBRARY_M_MAX ? layout_fit_m(layout, m_bits) : m_bits;
    if (check_size(layout, m, k, err, err_size) != 0)
        return NULL;
    return filter_new(layout, layout_default_scheme(layout), m, k, BLOOMLAB_SEED, err, err_size);
}

bloomlab_filter *bloomlab_create(const char *layout_text, uint64_t n, double p, char *err, size_t err_size)
{
    layout_kind layout;
    if (layout_named(layout_text, &layout, err, err_size) != 0)
        return NULL;
    if (n < 1 || (double)n > MODEL_COUNT_MAX) {
        set_error(err, err_size, "n = %llu items is outside 1..%.3g", (unsigned long long)n, MODEL_COUNT_MAX);
        return NULL;
    }
    if (!(p > 0 && p < 1)) {
        set_error(err, err_size, "p = %g is not a false-positive rate in (0, 1)", p);
        return NULL;
    }
    unsigned k;
    uint64_t m = model_smallest_m(layout, n, p, 0, &k);
    if (m == 0 || m > LIBRARY_M_MAX) {
        set_error(err, err_size, "n = %llu items at p = %g need more than %llu bits", (unsigned long long)n, p,
                  (unsigned long long)LIBRARY_M_MAX);
        return NULL;
    }
    if (check_size(layout, m, k, err, err_size) != 0)
        return NULL;
    return filter_new(layout, layout_default_scheme(layout), m, k, BLOOMLAB_SEED, err, err_size);
}

void bloomlab_free(bloomlab_filter *f)
{
    if (f == NULL)
        return;
    filter_free(&f->f);
    free(f->add_batches);
    free(f);
}

/* ---- adding and asking ---------------------------------------------------- */

/* A zero-length key may come as NULL: the loops get a valid pointer. */
static const unsigned char EMPTY_KEY[1];

static int key_ok(const void *key, size_t len) { return key != NULL || len == 0; }

static const unsigned char *key_bytes(const void *key) { return key != NULL ? key : EMPTY_KEY; }

/* Whether a key's length fits a batch's 32-bit field. */
static int batchable(size_t len) { return len <= UINT32_MAX; }

/* What a batch call's keys are, found by batch_args_ok's one pass: how
 * many are too long for a batch (the calls' second pass, one key at a
 * time, runs only when there are some), and whether every key is 8 bytes
 * long (then batch_fill_8 fills the batches). */
typedef struct {
    size_t unbatched;
    int all_8;
} call_keys;

/* 1 when the keys can be taken (*shape then says what they are); 0 when
 * one cannot.  A first pass asks only whether every key is 8 bytes long
 * and not NULL, an OR a key and no branch (the usual call, and then all
 * is known); a call with other keys takes a second.  Counts in locals: a
 * store through *shape could alias lens[] and be read again each key. */
static int batch_args_ok(const void *const *keys, const size_t *lens, size_t count, call_keys *shape)
{
    if (count > 0 && (keys == NULL || lens == NULL))
        return 0;
    size_t other = 0;
    for (size_t i = 0; i < count; i++)
        other |= (lens[i] ^ 8) | (size_t)(keys[i] == NULL);
    *shape = (call_keys){0, 1};
    if (other == 0)
        return 1;
    size_t unbatched = 0;
    for (size_t i = 0; i < count; i++) {
        if (!key_ok(keys[i], lens[i]))
            return 0;
        unbatched += !batchable(lens[i]);
    }
    *shape = (call_keys){unbatched, 0};
    return 1;
}

/* An 8-byte key, key `at` of the call, as slot n of a batch: copied into
 * its packed slot (key_batch.h). */
static void batch_put8(key_batch *b, size_t n, const void *key, size_t at)
{
    memcpy(b->packed[n], key, 8);
    b->ptr[n] = b->packed[n];
    b->len[n] = 8;
    b->id[n] = at;
}

/* Put keys[at ..] into a batch (up to KEY_BATCH of them, the batchable
 * ones); *next gets the index after the last key looked at.  A batch's
 * id is the key's index (only the ideal scheme reads ids).  An 8-byte key
 * is copied into the batch's packed slots, as the harness makes its keys:
 * a full batch of them then takes the loops for packed keys (avx2.c's
 * split_ring_full: four keys a load).  The count is kept in a local: a
 * store to b->ptr could alias b->count, which would be read again each key. */
static void batch_fill(key_batch *b, const void *const *keys, const size_t *lens, size_t at, size_t count,
                       size_t *next)
{
    size_t n = 0;
    int packed8 = 1;
    for (; at < count && n < KEY_BATCH; at++) {
        const size_t len = lens[at];
        if (!batchable(len))
            continue;
        if (len == 8) {
            batch_put8(b, n, keys[at], at);
        } else {
            b->ptr[n] = key_bytes(keys[at]);
            b->len[n] = (uint32_t)len;
            b->id[n] = at;
            packed8 = 0;
        }
        n++;
    }
    b->count = n;
    b->packed8 = packed8;
    *next = at;
}

/* batch_fill for a call whose keys are all 8 bytes long: the same batch,
 * without a test a key. */
static void batch_fill_8(key_batch *b, const void *const *keys, size_t at, size_t count, size_t *next)
{
    const size_t n = count - at < KEY_BATCH ? count - at : KEY_BATCH;
    for (size_t j = 0; j < n; j++)
        batch_put8(b, j, keys[at + j], at + j);
    b->count = n;
    b->packed8 = 1;
    *next = at + n;
}

/* Up to `most` batches filled from keys[*at ..] (batch_fill's way, or
 * batch_fill_8's for a call of 8-byte keys: shape); returns how many hold
 * keys, *at moved past the keys looked at. */
static size_t batches_fill(key_batch *batches, size_t most, const void *const *keys, const size_t *lens, size_t count,
                           call_keys shape, size_t *at)
{
    size_t filled = 0;
    while (filled < most && *at < count) {
        if (shape.all_8)
            batch_fill_8(&batches[filled], keys, *at, count, at);
        else
            batch_fill(&batches[filled], keys, lens, *at, count, at);
        filled += batches[filled].count > 0;
    }
    return filled;
}

/* The batchable keys of keys[0, count) inserted, up to CALL_BATCHES
 * batches a call of the layout's insert_many (one batch, on the stack,
 * where the filter's batches could not be made). */
static void add_batchable(bloomlab_filter *f, const void *const *keys, const size_t *lens, size_t count,
                          call_keys shape)
{
    if (count > KEY_BATCH && f->add_batches == NULL)
        f->add_batches = malloc(CALL_BATCHES * sizeof *f->add_batches);
    key_batch one;
    key_batch *const batches = f->add_batches != NULL ? f->add_batches : &one;
    const size_t most = f->add_batches != NULL ? CALL_BATCHES : 1;
    for (size_t at = 0; at < count;) {
        const size_t filled = batches_fill(batches, most, keys, lens, count, shape, &at);
        if (filled > 0)
            f->ops.insert_many(&f->f, &f->ctx, batches, filled);
    }
}

int bloomlab_add_batch(bloomlab_filter *f, const void *const *keys, const size_t *lens, size_t count)
{
    call_keys shape;
    if (f == NULL || !batch_args_ok(keys, lens, count, &shape))
        return -1;
    size_t unbatched = shape.unbatched;
    /* A large standard or partitioned filter stages its inserts (filters.h),
     * and the call ends in a flush, so that it leaves a filter ready to be
     * asked: a call of too few keys for staging to pay sets them at once. */
    struct filter_stage *const held = filter_stage_hold(&f->f, (uint64_t)count * f->f.k);
    add_batchable(f, keys, lens, count, shape);
    for (size_t i = 0; i < count && unbatched > 0; i++)
        if (!batchable(lens[i])) {
            filter_insert_one(&f->f, f->scheme, &f->ctx, keys[i], lens[i], i);
            unbatched--;
        }
    filter_flush(&f->f);
    filter_stage_restore(&f->f, held);
    return 0;
}

/* A batch of the one key (the one-key calls below): only the fields a
 * batch of one reads are set, not the batch's 32 slots. */
static void batch_of_one(key_batch *b, const void *key, size_t len)
{
    b->count = 1;
    b->packed8 = 0;
    b->ptr[0] = key_bytes(key);
    b->len[0] = (uint32_t)len;
    b->id[0] = 0;
}

/* A key's 64-bit hash by the filter's hasher, as the reference takes it
 * (the filters with one-key calls hash with a 64-bit one: filters.h). */
static uint64_t key_hash(const bloomlab_filter *f, const void *key, size_t len)
{
    return hasher_hash(&f->hash, key_bytes(key), len, f->ctx.seed).lo;
}

/* Any key of bloomlab_add but an 8-byte one with one-key functions: of a
 * filter with them, hashed here and handed to their hash entry; else to
 * the layout's one-batch op, which takes a batch of one key its own way
 * (batch.c's lone_key_insert).  A function of its own, so that its batch
 * (a key_batch, 7 KB) stays out of the 8-byte path's frame: that path is a
 * few tests and a tail call, and more calls fit the core's window at once. */
static __attribute__((noinline)) int add_as_batch(bloomlab_filter *f, const void *key, size_t len)
{
    if (f == NULL || !key_ok(key, len))
        return -1;
    if (f->key8.calls.insert_hash != NULL)
        return f->key8.calls.insert_hash(&f->f, key_hash(f, key, len));
    if (!batchable(len)) {
        const void *keys[1] = {key};
        return bloomlab_add_batch(f, keys, &len, 1);
    }
    key_batch one;
    batch_of_one(&one, key, len);
    f->ops.insert(&f->f, &f->ctx, &one);
    filter_flush(&f->f); /* a staged insert set now, as bloomlab_add_batch does */
    return 0;
}

/* One key: bloomlab_add_batch's work without its loops.  An 8-byte key
 * goes straight to the filter's calls for it (key8_of, chosen when the
 * filter was made): for the split block and the standard layout with the
 * library's hash, one-key functions of their own (filter_key8_for), without
 * a batch or the ops' dispatch, else add8_as_batch.  Three tests and a
 * jump, eight instructions: beyond L2 each instruction of a one-key call
 * costs it time (the core overlaps the misses of as many calls as its
 * window holds: scripts/onekey.c).  The tests are three statements since
 * gcc made one test of f and key by two setne and a third test.  Its bits
 * are set at once, and no call of the library leaves a staged insert behind
 * it (both paths flush), so no flush is owed. */
int bloomlab_add(bloomlab_filter *f, const void *key, size_t len)
{
    if (f == NULL)
        return add_as_batch(f, key, len);
    if (key == NULL)
        return add_as_batch(f, key, len);
    if (len != 8)
        return add_as_batch(f, key, len);
    return f->key8.calls.insert(&f->f, key, f->key8.keyed);
}

/* The batchable keys of keys[0, count) asked, up to CALL_BATCHES batches a
 * call of the layout's query_many.  Asking may run on many threads at
 * once (bloomlab.h), so the batches are the call's own, not the filter's
 * work area: as many as the keys fill, made here and freed before the
 * return (one, on the stack, for a call of one batch's keys or where they
 * cannot be made).  The answers go straight to answers[] when every key is
 * batchable (a call's batches then hold keys at, at + 1, ... in turn),
 * else through one buffer by each key's index (its id in the batch). */
static size_t contains_batchable(const bloomlab_filter *f, const void *const *keys, const size_t *lens, size_t count,
                                 call_keys shape, unsigned char *answers)
{
    const size_t needed = count / KEY_BATCH + (count % KEY_BATCH != 0);
    const size_t wanted = needed < CALL_BATCHES ? needed : CALL_BATCHES;
    key_batch one;
    key_batch *const made = wanted > 1 ? malloc(wanted * sizeof *made) : NULL;
    key_batch *const batches = made != NULL ? made : &one;
    const size_t most = made != NULL ? wanted : 1;
    unsigned char by_batch[CALL_BATCHES * KEY_BATCH];
    size_t found = 0;
    for (size_t at = 0; at < count;) {
        const size_t first = at, filled = batches_fill(batches, most, keys, lens, count, shape, &at);
        if (filled == 0)
            continue;
        if (answers == NULL || shape.unbatched == 0) {
            found += f->ops.query_many(&f->f, &f->ctx, batches, filled, answers != NULL ? answers + first : NULL);
            continue;
        }
        found += f->ops.query_many(&f->f, &f->ctx, batches, filled, by_batch);
        const unsigned char *answer = by_batch;
        for (size_t b = 0; b < filled; b++)
            for (size_t j = 0; j < batches[b].count; j++)
                answers[batches[b].id[j]] = *answer++;
    }
    free(made);
    return found;
}

size_t bloomlab_contains_batch(const bloomlab_filter *f, const void *const *keys, const size_t *lens, size_t count,
                               unsigned char *answers)
{
    call_keys shape;
    if (f == NULL || !batch_args_ok(keys, lens, count, &shape))
        return BLOOMLAB_ERROR;
    size_t unbatched = shape.unbatched, found = contains_batchable(f, keys, lens, count, shape, answers);
    for (size_t i = 0; i < count && unbatched > 0; i++) {
        if (batchable(lens[i]))
            continue;
        const int yes = filter_query_one(&f->f, f->scheme, &f->ctx, keys[i], lens[i], i);
        found += (size_t)yes;
        if (answers != NULL)
            answers[i] = (unsigned char)yes;
        unbatched--;
    }
    return found;
}

/* bloomlab_contains' other keys, as add_as_batch is bloomlab_add's. */
static __attribute__((noinline)) int contains_as_batch(const bloomlab_filter *f, const void *key, size_t len)
{
    if (f == NULL || !key_ok(key, len))
        return -1;
    if (f->key8.calls.query_hash != NULL)
        return f->key8.calls.query_hash(&f->f, key_hash(f, key, len));
    if (!batchable(len)) {
        const void *keys[1] = {key};
        return (int)bloomlab_contains_batch(f, keys, &len, 1, NULL);
    }
    key_batch one;
    unsigned char answer;
    batch_of_one(&one, key, len);
    return (int)f->ops.query(&f->f, &f->ctx, &one, &answer);
}

/* The library filter whose filter is f (its first member); const as f
 * is, so an insert's caller casts the const away from a filter it owns. */
static const bloomlab_filter *library_of(const filter *f)
{
    return (const bloomlab_filter *)(const void *)((const char *)f - offsetof(bloomlab_filter, f));
}

/* An 8-byte key's calls for a filter without one-key functions of its own:
 * the paths any other key takes, so that bloomlab_add and bloomlab_contains
 * need not test for a function. */
static int add8_as_batch(filter *f, const unsigned char *key, uint64_t keyed)
{
    (void)keyed;
    return add_as_batch((bloomlab_filter *)library_of(f), key, 8);
}

static int contains8_as_batch(const filter *f, const unsigned char *key, uint64_t keyed)
{
    (void)keyed;
    return contains_as_batch(library_of(f), key, 8);
}

/* filter_key8_for's calls, with add8_as_batch and contains8_as_batch where
 * it has none. */
static filter_key8 key8_of(const filter *f, const scheme_ctx *ctx, scheme_kind scheme)
{
    filter_key8 k8 = filter_key8_for(f, ctx, scheme);
    if (k8.calls.insert == NULL || k8.calls.query == NULL) {
        k8.calls.insert = add8_as_batch;
        k8.calls.query = contains8_as_batch;
    }
    return k8;
}

/* As bloomlab_add. */
int bloomlab_contains(const bloomlab_filter *f, const void *key, size_t len)
{
    if (f == NULL)
        return contains_as_batch(f, key, len);
    if (key == NULL)
        return contains_as_batch(f, key, len);
    if (len != 8)
        return contains_as_batch(f, key, len);
    return f->key8.calls.query(&f->f, key, f->key8.keyed);
}

/* ---- what a filter is ----------------------------------------------------- */

/* The bits its array holds: m, or 4 m for counting. */
static uint64_t memory_bits(const filter *f) { return layout_memory_bits(f->layout, f->m); }

uint64_t bloomlab_size_bits(const bloomlab_filter *f) { return f ? f->f.m : 0; }

uint64_t bloomlab_size_bytes(const bloomlab_filter *f) { return f ? (memory_bits(&f->f) + 7) / 8 : 0; }

unsigned bloomlab_k(const bloomlab_filter *f) { return f ? f->f.k : 0; }

const char *bloomlab_layout(const bloomlab_filter *f) { return f ? layout_name(f->f.layout) : NULL; }

double bloomlab_expected_fpr(const bloomlab_filter *f, uint64_t n)
{
    return f ? model_fpr_exact(f->f.layout, f->f.m, n, f->f.k) : NAN;
}

/* ---- the serialised form -------------------------------------------------- */

/* The words of the array that hold its bits (the rest of the last cache
 * line is padding, always zero). */
static uint64_t bitset_words(layout_kind layout, uint64_t m)
{
    const uint64_t bits = layout_memory_bits(layout, m);
    return (bits + 63) / 64;
}

static void put_le(unsigned char *out, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        out[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)in[i] << (8 * i);
    return v;
}

static void put_name(unsigned char *out, const char *name)
{
    const size_t len = strlen(name); /* names are ours: "blocked512" is the longest */
    memset(out, 0, NAME_FIELD);
    memcpy(out, name, len < NAME_FIELD ? len : NAME_FIELD - 1);
}

size_t bloomlab_serialised_size(const bloomlab_filter *f)
{
    if (f == NULL)
        return 0;
    return BLOOMLAB_HEADER_BYTES + 8 * (size_t)bitset_words(f->f.layout, f->f.m) + BLOOMLAB_CHECKSUM_BYTES;
}

size_t bloomlab_serialise(const bloomlab_filter *f, void *buf, size_t buf_size)
{
    const size_t size = bloomlab_serialised_size(f);
    if (f == NULL || buf == NULL || buf_size < size)
        return 0;
    unsigned char *out = buf;
    const uint64_t words = bitset_words(f->f.layout, f->f.m);
    memcpy(out + AT_MAGIC, MAGIC, 8);
    put_le(out + AT_VERSION, BLOOMLAB_FORMAT_VERSION, 4);
    put_le(out + AT_K, f->f.k, 4);
    put_name(out + AT_LAYOUT, layout_name(f->f.layout));
    put_name(out + AT_SCHEME, scheme_name(f->scheme));
    put_name(out + AT_HASH, f->scheme == SCHEME_PARQUET ? PARQUET_HASH : f->hash.name);
    put_le(out + AT_SEED, f->ctx.seed, 8);
    put_le(out + AT_M, f->f.m, 8);
    put_le(out + AT_BITSET_BYTES, 8 * words, 8);
    for (uint64_t w = 0; w < words; w++)
        put_le(out + AT_BITSET + 8 * w, f->f.words[w], 8);
    const size_t body = size - BLOOMLAB_CHECKSUM_BYTES;
    put_le(out + body, XXH3_64bits(out, body), 8);
    return size;
}

/* A header name field as a string: 0, or -1 when it has no NUL. */
static int get_name(const unsigned char *in, char out[NAME_FIELD])
{
    if (memchr(in, 0, NAME_FIELD) == NULL)
        return -1;
    memcpy(out, in, NAME_FIELD);
    return 0;
}

/* The framing: magic, version, length and checksum.  0, or -1 with why;
 * *bitset_bytes gets B. */
static int check_frame(const unsigned char *in, size_t len, uint64_t *bitset_bytes, char *err, size_t err_size)
{
    const size_t magic_seen = len < 8 ? len : 8;
    if (memcmp(in, MAGIC, magic_seen) != 0) {
        set_error(err, err_size, "not a bloomlab filter: the magic is not \"%s\"", MAGIC);
        return -1;
    }
    if (len < BLOOMLAB_HEADER_BYTES + BLOOMLAB_CHECKSUM_BYTES) {
        set_error(err, err_size, "truncated: %zu bytes, less than the %u of a header and checksum", len,
                  BLOOMLAB_HEADER_BYTES + BLOOMLAB_CHECKSUM_BYTES);
        return -1;
    }
    const uint64_t version = get_le(in + AT_VERSION, 4);
    if (version != BLOOMLAB_FORMAT_VERSION) {
        set_error(err, err_size, "format version %llu: this library reads version %u", (unsigned long long)version,
                  BLOOMLAB_FORMAT_VERSION);
        return -1;
    }
    *bitset_bytes = get_le(in + AT_BITSET_BYTES, 8);
    const size_t room = len - BLOOMLAB_HEADER_BYTES - BLOOMLAB_CHECKSUM_BYTES;
    if (*bitset_bytes > room) {
        set_error(err, err_size, "truncated: the header promises a %llu-byte bit array, %zu bytes are there",
                  (unsigned long long)*bitset_bytes, room);
        return -1;
    }
    if (*bitset_bytes < room) {
        set_error(err, err_size, "%zu bytes follow the checksum: not one whole filter", room - (size_t)*bitset_bytes);
        return -1;
    }
    const size_t body = len - BLOOMLAB_CHECKSUM_BYTES;
    if (XXH3_64bits(in, body) != get_le(in + body, 8)) {
        set_error(err, err_size, "bad checksum: the bytes were changed or damaged");
        return -1;
    }
    return 0;
}

typedef struct {
    layout_kind layout;
    scheme_kind scheme;
    uint64_t m, seed;
    unsigned k;
} header_fields;

/* The names and sizes of a framed header.  0, or -1 with why. */
static int read_fields(const unsigned char *in, uint64_t bitset_bytes, header_fields *h, char *err, size_t err_size)
{
    char layout[NAME_FIELD], scheme[NAME_FIELD], hash[NAME_FIELD];
    if (get_name(in + AT_LAYOUT, layout) != 0 || get_name(in + AT_SCHEME, scheme) != 0 ||
        get_name(in + AT_HASH, hash) != 0) {
        set_error(err, err_size, "a name in the header is not NUL-terminated");
        return -1;
    }
    if (layout_named(layout, &h->layout, err, err_size) != 0)
        return -1;
    /* a Parquet filter (splitblock, the format's own hash) or the layout's default */
    const int parquet = h->layout == LAYOUT_SPLITBLOCK && strcmp(scheme, scheme_name(SCHEME_PARQUET)) == 0;
    h->scheme = parquet ? SCHEME_PARQUET : layout_default_scheme(h->layout);
    if (strcmp(scheme, scheme_name(h->scheme)) != 0) {
        set_error(err, err_size, "scheme '%.15s': this library's %s filters use %s", scheme, layout,
                  scheme_name(h->scheme));
        return -1;
    }
    const char *hash_used = parquet ? PARQUET_HASH : LIBRARY_HASH;
    if (strcmp(hash, hash_used) != 0) {
        set_error(err, err_size, "hash '%.15s': this library's %s %s filters hash with %s", hash, layout, scheme,
                  hash_used);
        return -1;
    }
    h->seed = get_le(in + AT_SEED, 8);
    h->m = get_le(in + AT_M, 8);
    const uint64_t k = get_le(in + AT_K, 4);
    if (k < 1 || k > FILTER_K_MAX) {
        set_error(err, err_size, "k = %llu is outside 1..%u", (unsigned long long)k, FILTER_K_MAX);
        return -1;
    }
    h->k = (unsigned)k;
    if (check_size(h->layout, h->m, h->k, err, err_size) != 0)
        return -1;
    if (layout_fit_m(h->layout, h->m) != h->m) {
        set_error(err, err_size, "m = %llu is not whole %u-bit blocks of a %s filter", (unsigned long long)h->m,
                  layout_block_bits(h->layout), layout);
        return -1;
    }
    if (bitset_bytes != 8 * bitset_words(h->layout, h->m)) {
        set_error(err, err_size, "sizes disagree: a %s filter of m = %llu has a %llu-byte bit array, not %llu", layout,
                  (unsigned long long)h->m, (unsigned long long)(8 * bitset_words(h->layout, h->m)),
                  (unsigned long long)bitset_bytes);
        return -1;
    }
    return 0;
}

/* The bits above the array's last one must be clear: the loops never set
 * them, so a set one means the sizes and the bits disagree. */
static int check_padding(const unsigned char *bitset, uint64_t words, uint64_t bits, char *err, size_t err_size)
{
    const unsigned used = (unsigned)(bits % 64);
    if (used == 0 || words == 0)
        return 0;
    if (get_le(bitset + 8 * (words - 1), 8) >> used != 0) {
        set_error(err, err_size, "sizes disagree: bits are set past bit %llu, the end of the array",
                  (unsigned long long)bits);
        return -1;
    }
    return 0;
}

bloomlab_filter *bloomlab_load(const void *buf, size_t len, char *err, size_t err_size)
{
    if (buf == NULL) {
        set_error(err, err_size, "no buffer (NULL)");
        return NULL;
    }
    const unsigned char *in = buf;
    uint64_t bitset_bytes;
    header_fields h;
    if (check_frame(in, len, &bitset_bytes, err, err_size) != 0 || read_fields(in, bitset_bytes, &h, err, err_size) != 0)
        return NULL;
    const uint64_t words = bitset_bytes / 8;
    const uint64_t bits = layout_memory_bits(h.layout, h.m);
    if (check_padding(in + AT_BITSET, words, bits, err, err_size) != 0)
        return NULL;
    bloomlab_filter *f = filter_new(h.layout, h.scheme, h.m, h.k, h.seed, err, err_size);
    if (f == NULL)
        return NULL;
    for (uint64_t w = 0; w < words; w++)
        f->f.words[w] = get_le(in + AT_BITSET + 8 * w, 8);
    return f;
}

/* ---- Apache Parquet's form (sbbf.h) --------------------------------------- */

/* sbbf.c writes its reasons into a buffer of its own: err may be NULL here. */
#define SBBF_WHY 400

bloomlab_filter *bloomlab_create_parquet(uint64_t bitset_bytes, char *err, size_t err_size)
{
    char why[SBBF_WHY];
    if (sbbf_bytes_ok(bitset_bytes, why, sizeof why) != 0) {
        set_error(err, err_size, "%s", why);
        return NULL;
    }
    return filter_new(LAYOUT_SPLITBLOCK, SCHEME_PARQUET, 8 * bitset_bytes, 8, 0, err, err_size);
}

bloomlab_filter *bloomlab_load_parquet(const void *buf, size_t len, size_t *used, char *err, size_t err_size)
{
    if (buf == NULL) {
        set_error(err, err_size, "no buffer (NULL)");
        return NULL;
    }
    filter loaded;
    char why[SBBF_WHY];
    if (sbbf_load(&loaded, buf, len, used, why, sizeof why) != 0) {
        set_error(err, err_size, "%s", why);
        return NULL;
    }
    return filter_wrap(&loaded, SCHEME_PARQUET, 0, err, err_size);
}

static int is_parquet(const bloomlab_filter *f) { return f != NULL && f->scheme == SCHEME_PARQUET; }

size_t bloomlab_serialised_size_parquet(const bloomlab_filter *f)
{
    return is_parquet(f) ? sbbf_serialised_size(&f->f) : 0;
}

size_t bloomlab_serialise_parquet(const bloomlab_filter *f, void *buf, size_t buf_size)
{
    const size_t size = bloomlab_serialised_size_parquet(f);
    if (size == 0 || buf == NULL || buf_size < size)
        return 0;
    return sbbf_serialise(&f->f, buf, buf_size);
}
