/* test_library.c -- libbloomlab's API (include/bloomlab/bloomlab.h): sized
 * as `bloomlab calc` sizes, no false negatives, the false-positive rate of
 * the layout's exact formula, batches answering as single keys, the very
 * bits the measured loops (filter_ops_for) set, a byte-exact round trip,
 * every damaged or short buffer refused without a read past its end (the
 * sanitizer pass runs this file too), bad arguments refused with a
 * message, and a shared library exporting the API alone. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <xxhash.h>

#include "bloomlab/bloomlab.h"
#include "commands/calc.h"
#include "filter/filters.h"
#include "base/hashes.h"
#include "helpers.h"
#include "model/model.h"
#include "base/pcg.h"

static const char *const LAYOUTS[] = {"standard", "counting", "partitioned", "blocked512", "register64", "splitblock"};
#define LAYOUT_TOTAL (sizeof LAYOUTS / sizeof LAYOUTS[0])

/* ---- keys ----------------------------------------------------------------- */

/* count keys: present ones (side 0) and absent ones (side 1) never equal. */
typedef struct {
    size_t count;
    const void **ptr;
    size_t *len;
    unsigned char *bytes; /* count slots of KEY_SLOT bytes */
} key_list;

#define KEY_SLOT 320

/* 8-byte keys mix64(2i + side): a bijection, so the two sides are disjoint. */
static key_list keys_8_bytes(size_t count, unsigned side)
{
    key_list k = {count, malloc(count * sizeof(void *)), malloc(count * sizeof(size_t)), malloc(count * 8)};
    cr_assert(k.ptr && k.len && k.bytes);
    for (size_t i = 0; i < count; i++) {
        const uint64_t v = mix64(2 * (uint64_t)i + side);
        for (int b = 0; b < 8; b++)
            k.bytes[8 * i + b] = (unsigned char)(v >> (8 * b));
        k.ptr[i] = k.bytes + 8 * i;
        k.len[i] = 8;
    }
    return k;
}

/* Keys of lengths 0 .. KEY_SLOT - 1 (8 among them): byte 0 says the side,
 * the rest come from the index, so the sides are disjoint.  The empty key
 * is given as NULL (allowed at length 0). */
static key_list keys_varied(size_t count, unsigned side)
{
    key_list k = {count, malloc(count * sizeof(void *)), malloc(count * sizeof(size_t)), malloc(count * KEY_SLOT)};
    cr_assert(k.ptr && k.len && k.bytes);
    for (size_t i = 0; i < count; i++) {
        unsigned char *slot = k.bytes + KEY_SLOT * i;
        const uint64_t r = mix64(i * 4 + side + 1);
        size_t len = i % 5 == 0 ? 8 : 1 + (size_t)(r % (KEY_SLOT - 1));
        slot[0] = (unsigned char)side;
        for (size_t b = 1; b < len; b++)
            slot[b] = (unsigned char)(mix64(r + b) >> 56);
        k.ptr[i] = slot;
        k.len[i] = len;
    }
    if (side == 0 && count > 3) { /* one empty key, present side only */
        k.ptr[3] = NULL;
        k.len[3] = 0;
    }
    return k;
}

static void keys_free(key_list *k)
{
    free(k->ptr);
    free(k->len);
    free(k->bytes);
}

static bloomlab_filter *made(const char *layout, uint64_t n, double p)
{
    char err[256] = "";
    bloomlab_filter *f = bloomlab_create(layout, n, p, err, sizeof err);
    cr_assert_not_null(f, "%s n=%llu p=%g: %s", layout, (unsigned long long)n, p, err);
    return f;
}

static void add_all(bloomlab_filter *f, const key_list *k)
{
    cr_assert_eq(bloomlab_add_batch(f, k->ptr, k->len, k->count), 0);
}

/* The serialised bytes of f (malloc'd), their count in *size. */
static unsigned char *serialised(const bloomlab_filter *f, size_t *size)
{
    *size = bloomlab_serialised_size(f);
    unsigned char *buf = malloc(*size);
    cr_assert_not_null(buf);
    cr_assert_eq(bloomlab_serialise(f, buf, *size), *size);
    return buf;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* After an edit to the header, a checksum that fits again: the load must
 * then refuse the edit itself. */
static void reseal(unsigned char *buf, size_t size)
{
    put_le64(buf + size - 8, XXH3_64bits(buf, size - 8));
}

/* ---- sizing --------------------------------------------------------------- */

Test(library, sizes_are_the_ones_calc_prints)
{
    static const struct {
        uint64_t n;
        double p;
    } CASES[] = {{1000, 0.1}, {100000, 0.01}, {12345, 1e-4}, {1000000, 0.001}, {7, 0.5}};
    for (size_t l = 0; l < LAYOUT_TOTAL; l++) {
        for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
            struct calc_input in = {.have_n = 1, .have_p = 1, .n = CASES[c].n, .p = CASES[c].p};
            struct calc_result want;
            char err[256];
            cr_assert_eq(layout_from_name(LAYOUTS[l], &in.layout), 0);
            cr_assert_eq(calc_solve(&in, &want, err, sizeof err), 0, "%s", err);
            bloomlab_filter *f = made(LAYOUTS[l], CASES[c].n, CASES[c].p);
            cr_expect_eq(bloomlab_size_bits(f), want.m, "%s n=%llu p=%g: m %llu, calc %llu", LAYOUTS[l],
                         (unsigned long long)CASES[c].n, CASES[c].p, (unsigned long long)bloomlab_size_bits(f),
                         (unsigned long long)want.m);
            cr_expect_eq(bloomlab_k(f), want.k, "%s n=%llu p=%g: k %u, calc %u", LAYOUTS[l],
                         (unsigned long long)CASES[c].n, CASES[c].p, bloomlab_k(f), want.k);
            cr_expect_eq(bloomlab_size_bytes(f), want.bytes, "%s: bytes", LAYOUTS[l]);
            cr_expect_str_eq(bloomlab_layout(f), LAYOUTS[l]);
            cr_expect_float_eq(bloomlab_expected_fpr(f, CASES[c].n), want.p_exact, 1e-12 * want.p_exact);
            bloomlab_free(f);
        }
    }
}

Test(library, m_and_k_are_taken_as_given_in_whole_blocks)
{
    char err[256];
    bloomlab_filter *f = bloomlab_create_mk("blocked512", 1000, 5, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    cr_expect_eq(bloomlab_size_bits(f), 1024); /* two 512-bit blocks */
    cr_expect_eq(bloomlab_k(f), 5);
    cr_expect_eq(bloomlab_size_bytes(f), 128);
    bloomlab_free(f);
    f = bloomlab_create_mk("counting", 1000, 3, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    cr_expect_eq(bloomlab_size_bits(f), 1000);
    cr_expect_eq(bloomlab_size_bytes(f), 500, "1000 4-bit counters"); /* 4000 bits */
    bloomlab_free(f);
}

/* ---- answers -------------------------------------------------------------- */

#define FPR_ITEMS 100000u
#define FPR_QUERIES 1000000u

/* One filter per layout at n = 1e5, p = 1%, its keys fixed (so the test
 * is deterministic): every added key is found, and the rate on 1e6 absent
 * keys is within 5 standard errors of the layout's exact formula E[F].
 * The error counts both noises of one measurement: the queries' binomial
 * E(1-E)/Q and the spread of one built filter's own rate, Var F
 * (model_for: the filter is one draw, not the mean of all filters). */
Test(library, no_false_negatives_and_the_formulas_rate, .timeout = 120)
{
    key_list present = keys_8_bytes(FPR_ITEMS, 0), absent = keys_8_bytes(FPR_QUERIES, 1);
    for (size_t l = 0; l < LAYOUT_TOTAL; l++) {
        bloomlab_filter *f = made(LAYOUTS[l], FPR_ITEMS, 0.01);
        add_all(f, &present);
        cr_expect_eq(bloomlab_contains_batch(f, present.ptr, present.len, present.count, NULL), FPR_ITEMS,
                     "%s: a false negative", LAYOUTS[l]);
        const size_t yes = bloomlab_contains_batch(f, absent.ptr, absent.len, absent.count, NULL);
        layout_kind layout;
        cr_assert_eq(layout_from_name(LAYOUTS[l], &layout), 0);
        const layout_model model = model_for(layout, bloomlab_size_bits(f), FPR_ITEMS, bloomlab_k(f));
        const double expected = model.exact, var_filter = isnan(model.variance) ? 0 : model.variance;
        const double se = sqrt(expected * (1 - expected) / FPR_QUERIES + var_filter);
        const double fpr = (double)yes / FPR_QUERIES, z = (fpr - expected) / se;
        cr_expect_float_eq(expected, bloomlab_expected_fpr(f, FPR_ITEMS), 1e-15);
        cr_expect(fabs(z) < 5, "%s: fpr %.6f, formula %.6f, se %.2e (binomial %.2e): z = %.2f", LAYOUTS[l], fpr,
                  expected, se, sqrt(expected * (1 - expected) / FPR_QUERIES), z);
        bloomlab_free(f);
    }
    keys_free(&present);
    keys_free(&absent);
}

/* Asking may run on many threads at once (bloomlab.h): a batch call's
 * batches are its own.  Four threads ask the same 6000 keys of one filter
 * (every other one added), 40 calls each, with and without answers; every
 * answer and count must be the one-key calls' (a work area shared between
 * the calls mixes their keys and fails this). */
Test(library, asks_on_many_threads_at_once, .timeout = 120)
{
    enum { KEYS = 6000, CALLS = 40 };
    static const char *const SHARED[] = {"splitblock", "standard"};
    key_list keys = keys_8_bytes(KEYS, 0);
    for (size_t l = 0; l < 2; l++) {
        bloomlab_filter *f = made(SHARED[l], KEYS / 2, 0.01);
        for (size_t i = 0; i < KEYS; i += 2)
            cr_assert_eq(bloomlab_add(f, keys.ptr[i], keys.len[i]), 0);
        unsigned char expected[KEYS];
        size_t expected_yes = 0;
        for (size_t i = 0; i < KEYS; i++)
            expected_yes += expected[i] = (unsigned char)bloomlab_contains(f, keys.ptr[i], keys.len[i]);
        unsigned long differ = 0;
#pragma omp parallel num_threads(4) reduction(+ : differ)
        {
            unsigned char *answers = malloc(KEYS);
            for (int c = 0; c < CALLS && answers != NULL; c++) {
                memset(answers, 2, KEYS);
                differ += bloomlab_contains_batch(f, keys.ptr, keys.len, KEYS, answers) != expected_yes;
                differ += memcmp(answers, expected, KEYS) != 0;
                differ += bloomlab_contains_batch(f, keys.ptr, keys.len, KEYS, NULL) != expected_yes;
            }
            differ += answers == NULL;
            free(answers);
        }
        cr_expect_eq(differ, 0, "%s: %lu calls on 4 threads differ from the one-key answers", SHARED[l], differ);
        bloomlab_free(f);
    }
    keys_free(&keys);
}

/* contains_batch's answers, and its count, are contains's one key at a
 * time; adds by batch and one by one build the same filter. */
Test(library, batches_answer_as_single_keys)
{
    key_list present = keys_varied(3000, 0), absent = keys_varied(5000, 1);
    unsigned char *answers = malloc(absent.count + present.count);
    cr_assert_not_null(answers);
    for (size_t l = 0; l < LAYOUT_TOTAL; l++) {
        bloomlab_filter *by_batch = made(LAYOUTS[l], 3000, 0.05), *by_key = made(LAYOUTS[l], 3000, 0.05);
        add_all(by_batch, &present);
        for (size_t i = 0; i < present.count; i++)
            cr_assert_eq(bloomlab_add(by_key, present.ptr[i], present.len[i]), 0);
        size_t size_a, size_b;
        unsigned char *a = serialised(by_batch, &size_a), *b = serialised(by_key, &size_b);
        cr_expect(size_a == size_b && memcmp(a, b, size_a) == 0, "%s: batch and single adds differ", LAYOUTS[l]);
        free(a);
        free(b);
        const key_list *sides[2] = {&present, &absent};
        for (int s = 0; s < 2; s++) {
            const key_list *k = sides[s];
            memset(answers, 7, k->count);
            const size_t found = bloomlab_contains_batch(by_batch, k->ptr, k->len, k->count, answers);
            size_t one_by_one = 0;
            for (size_t i = 0; i < k->count; i++) {
                const int yes = bloomlab_contains(by_batch, k->ptr[i], k->len[i]);
                cr_assert(yes == 0 || yes == 1);
                cr_assert_eq(answers[i], yes, "%s key %zu (%zu bytes): batch %d, single %d", LAYOUTS[l], i,
                             k->len[i], answers[i], yes);
                one_by_one += (size_t)yes;
            }
            cr_expect_eq(found, one_by_one, "%s: the batch's count", LAYOUTS[l]);
            cr_expect_eq(bloomlab_contains_batch(by_batch, k->ptr, k->len, k->count, NULL), found);
            if (s == 0)
                cr_expect_eq(found, present.count, "%s: a false negative", LAYOUTS[l]);
        }
        bloomlab_free(by_batch);
        bloomlab_free(by_key);
    }
    free(answers);
    keys_free(&present);
    keys_free(&absent);
}

/* A key longer than a batch's 32-bit length field (2^32 + 1 zero bytes,
 * mapped, never written) goes one key at a time, inside a batch call of
 * short keys too: the batch calls find it in their argument pass and
 * answer for it as bloomlab_contains does. */
Test(library, a_key_too_long_for_a_batch_is_added_and_asked_alone, .timeout = 120)
{
    const size_t huge = (size_t)UINT32_MAX + 2;
    void *zeros = mmap(NULL, huge, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    cr_assert_neq(zeros, MAP_FAILED);
    bloomlab_filter *f = made("standard", 100, 0.001), *empty = made("standard", 100, 0.001);
    const void *keys[3] = {"left", zeros, "right"};
    const size_t lens[3] = {4, huge, 5};
    cr_assert_eq(bloomlab_add_batch(f, keys, lens, 3), 0);
    unsigned char answers[3] = {7, 7, 7};
    cr_expect_eq(bloomlab_contains_batch(f, keys, lens, 3, answers), 3);
    cr_expect(answers[0] == 1 && answers[1] == 1 && answers[2] == 1, "%d %d %d", answers[0], answers[1], answers[2]);
    cr_expect_eq(bloomlab_contains(f, zeros, huge), 1);
    cr_expect_eq(bloomlab_contains(empty, zeros, huge), 0, "an empty filter has nothing");
    bloomlab_free(f);
    bloomlab_free(empty);
    munmap(zeros, huge);
}

/* ---- the measured loops --------------------------------------------------- */

/* The keys inserted into a bare filter by filter_ops_for(layout, default
 * scheme) -- the loops bloomlab's experiments run -- with xxh3_64 at
 * BLOOMLAB_SEED, in batches of KEY_BATCH. */
static void reference_insert(filter *ref, const key_list *k)
{
    hasher h;
    cr_assert_eq(hasher_builtin("xxh3_64", &h), 0);
    const scheme_kind scheme = layout_default_scheme(ref->layout);
    const scheme_ctx ctx = {&h, BLOOMLAB_SEED, log2_floor(ref->m)};
    const filter_ops ops = filter_ops_for(ref->layout, scheme);
    static const unsigned char empty[1];
    key_batch b;
    for (size_t i = 0; i < k->count; i += KEY_BATCH) {
        b.count = k->count - i < KEY_BATCH ? k->count - i : KEY_BATCH;
        b.packed8 = 0;
        for (size_t j = 0; j < b.count; j++) {
            b.ptr[j] = k->ptr[i + j] ? k->ptr[i + j] : empty;
            b.len[j] = (uint32_t)k->len[i + j];
            b.id[j] = i + j;
        }
        ops.insert(ref, &ctx, &b);
    }
    filter_flush(ref);
}

/* The library's bits (read from its serialised form) against the
 * reference filter's words; the words past the serialised ones are zero. */
static void expect_same_bits(const char *what, const bloomlab_filter *f, const filter *ref)
{
    size_t size;
    unsigned char *buf = serialised(f, &size);
    const uint64_t words = le64(buf + 80) / 8;
    cr_assert_eq(size, BLOOMLAB_HEADER_BYTES + 8 * words + BLOOMLAB_CHECKSUM_BYTES);
    cr_assert_leq(words, ref->word_count);
    uint64_t differ = 0;
    for (uint64_t w = 0; w < words; w++)
        differ += le64(buf + BLOOMLAB_HEADER_BYTES + 8 * w) != ref->words[w];
    for (uint64_t w = words; w < ref->word_count; w++)
        differ += ref->words[w] != 0;
    cr_expect_eq(differ, 0, "%s: %llu words differ from filter_ops_for's", what, (unsigned long long)differ);
    free(buf);
}

Test(library, sets_the_bits_the_measured_loops_set, .timeout = 120)
{
    key_list mixed = keys_varied(4000, 0), eight = keys_8_bytes(4000, 0);
    const key_list *sets[2] = {&mixed, &eight};
    for (size_t l = 0; l < LAYOUT_TOTAL; l++) {
        for (int s = 0; s < 2; s++) {
            bloomlab_filter *f = made(LAYOUTS[l], 4000, 0.01);
            add_all(f, sets[s]);
            filter ref;
            layout_kind layout;
            cr_assert_eq(layout_from_name(LAYOUTS[l], &layout), 0);
            cr_assert_eq(filter_init(&ref, layout, bloomlab_size_bits(f), bloomlab_k(f)), 0);
            reference_insert(&ref, sets[s]);
            expect_same_bits(LAYOUTS[l], f, &ref);
            filter_free(&ref);
            bloomlab_free(f);
        }
    }
    keys_free(&mixed);
    keys_free(&eight);
}

/* A standard filter past 32 MiB (the threshold set here) stages its inserts (filters.h): the
 * library sets them before returning, so it answers at once, and they are
 * the bits the staged loops set.  A call of 100000 keys is staged (700000
 * positions, more than the 586000 lines of the filter); one of 20000 after
 * it is not (filter_stage_hold): both give the reference's bits. */
Test(library, a_staged_filter_sets_its_bits_before_returning, .timeout = 120)
{
    filter_stage_min_bytes_set(32u << 20); /* stage past 32 MiB, whatever this machine's LLC */
    const uint64_t m = 300000000; /* 37.5 MB */
    char err[256];
    bloomlab_filter *f = bloomlab_create_mk("standard", m, 7, err, sizeof err);
    cr_assert_not_null(f, "%s", err);
    key_list keys = keys_8_bytes(120000, 0);
    cr_assert_eq(bloomlab_add_batch(f, keys.ptr, keys.len, 100000), 0);
    cr_expect_eq(bloomlab_contains_batch(f, keys.ptr, keys.len, 100000, NULL), 100000);
    cr_assert_eq(bloomlab_add_batch(f, keys.ptr + 100000, keys.len + 100000, 20000), 0);
    cr_expect_eq(bloomlab_contains_batch(f, keys.ptr, keys.len, keys.count, NULL), keys.count);
    filter ref;
    cr_assert_eq(filter_init(&ref, LAYOUT_STANDARD, m, 7), 0);
    reference_insert(&ref, &keys);
    expect_same_bits("standard, staged", f, &ref);
    filter_free(&ref);
    bloomlab_free(f);
    keys_free(&keys);
}

/* ---- the serialised form -------------------------------------------------- */

Test(library, a_round_trip_is_byte_identical_and_answers_alike)
{
    key_list present = keys_varied(2000, 0), absent = keys_varied(20000, 1);
    unsigned char *before = malloc(absent.count), *after = malloc(absent.count);
    cr_assert(before && after);
    for (size_t l = 0; l < LAYOUT_TOTAL; l++) {
        bloomlab_filter *f = made(LAYOUTS[l], 2000, 0.02);
        add_all(f, &present);
        size_t size, size_again;
        unsigned char *buf = serialised(f, &size);
        cr_expect_eq(memcmp(buf, "BLOOMLAB", 8), 0);
        char err[256] = "";
        bloomlab_filter *g = bloomlab_load(buf, size, err, sizeof err);
        cr_assert_not_null(g, "%s: %s", LAYOUTS[l], err);
        unsigned char *again = serialised(g, &size_again);
        cr_expect(size == size_again && memcmp(buf, again, size) == 0, "%s: not byte-identical", LAYOUTS[l]);
        cr_expect_eq(bloomlab_size_bits(g), bloomlab_size_bits(f));
        cr_expect_eq(bloomlab_k(g), bloomlab_k(f));
        cr_expect_str_eq(bloomlab_layout(g), LAYOUTS[l]);
        cr_expect_eq(bloomlab_contains_batch(g, present.ptr, present.len, present.count, NULL), present.count);
        const size_t yes_f = bloomlab_contains_batch(f, absent.ptr, absent.len, absent.count, before);
        const size_t yes_g = bloomlab_contains_batch(g, absent.ptr, absent.len, absent.count, after);
        cr_expect(yes_f == yes_g && memcmp(before, after, absent.count) == 0, "%s: answers differ", LAYOUTS[l]);
        /* the loaded filter takes adds like any other */
        cr_expect_eq(bloomlab_add(g, "one more", 8), 0);
        cr_expect_eq(bloomlab_contains(g, "one more", 8), 1);
        free(again);
        free(buf);
        bloomlab_free(f);
        bloomlab_free(g);
    }
    free(before);
    free(after);
    keys_free(&present);
    keys_free(&absent);
}

/* Load len bytes copied into a buffer of exactly len bytes (the sanitizer
 * pass sees any read past it); expects a refusal whose message holds want
 * (NULL: any message). */
static void expect_refused(const unsigned char *bytes, size_t len, const char *want, const char *what)
{
    unsigned char *exact = malloc(len ? len : 1);
    cr_assert_not_null(exact);
    memcpy(exact, bytes, len);
    char err[256] = "";
    bloomlab_filter *f = bloomlab_load(exact, len, err, sizeof err);
    cr_expect_null(f, "%s: loaded", what);
    bloomlab_free(f);
    cr_expect(err[0] != '\0', "%s: no message", what);
    if (want != NULL)
        cr_expect(strstr(err, want) != NULL, "%s: '%s' does not say '%s'", what, err, want);
    free(exact);
}

/* A small filter with some bits set, serialised. */
static unsigned char *small_serialised(const char *layout, size_t *size)
{
    key_list keys = keys_varied(50, 0);
    bloomlab_filter *f = made(layout, 50, 0.01);
    add_all(f, &keys);
    unsigned char *buf = serialised(f, size);
    bloomlab_free(f);
    keys_free(&keys);
    return buf;
}

Test(library, every_flipped_byte_is_refused)
{
    for (size_t l = 0; l < LAYOUT_TOTAL; l++) {
        size_t size;
        unsigned char *buf = small_serialised(LAYOUTS[l], &size);
        for (size_t at = 0; at < size; at++) {
            for (unsigned flip = 1; flip < 256; flip <<= 3) { /* bits 0, 3, 6 */
                buf[at] ^= (unsigned char)flip;
                char what[64];
                snprintf(what, sizeof what, "%s: byte %zu ^ 0x%02x", LAYOUTS[l], at, flip);
                expect_refused(buf, size, NULL, what);
                buf[at] ^= (unsigned char)flip;
            }
        }
        free(buf);
    }
}

Test(library, a_short_or_long_buffer_is_refused_without_reading_past_it)
{
    for (size_t l = 0; l < LAYOUT_TOTAL; l++) {
        size_t size;
        unsigned char *buf = small_serialised(LAYOUTS[l], &size);
        for (size_t len = 0; len < size; len++) {
            char what[64];
            snprintf(what, sizeof what, "%s: the first %zu of %zu bytes", LAYOUTS[l], len, size);
            expect_refused(buf, len, "truncated", what);
        }
        unsigned char *longer = calloc(size + 8, 1);
        cr_assert_not_null(longer);
        memcpy(longer, buf, size);
        expect_refused(longer, size + 8, "follow the checksum", "8 bytes more");
        free(longer);
        free(buf);
    }
}

Test(library, a_wrong_magic_version_name_or_size_is_refused)
{
    size_t size;
    unsigned char *good = small_serialised("standard", &size), *buf = malloc(size);
    cr_assert_not_null(buf);
#define EDIT_AND_EXPECT(edit, want)                                                                     \
    do {                                                                                                \
        memcpy(buf, good, size);                                                                        \
        edit;                                                                                           \
        reseal(buf, size);                                                                              \
        expect_refused(buf, size, want, #edit);                                                         \
    } while (0)
    EDIT_AND_EXPECT(memcpy(buf, "BLOOMLAX", 8), "magic");
    EDIT_AND_EXPECT(buf[8] = 2, "format version 2");
    EDIT_AND_EXPECT(buf[8] = 0, "format version 0");
    EDIT_AND_EXPECT(memcpy(buf + 16, "cuckoo", 7), "unknown layout 'cuckoo'");
    EDIT_AND_EXPECT(memset(buf + 16, 'x', 16), "not NUL-terminated");
    EDIT_AND_EXPECT(memcpy(buf + 32, "ideal\0\0", 7), "scheme 'ideal'");
    EDIT_AND_EXPECT(memcpy(buf + 48, "xxh64\0\0", 7), "hash 'xxh64'");
    EDIT_AND_EXPECT(buf[12] = 0, "k = 0");
    EDIT_AND_EXPECT(buf[12] = 65, "k = 65");
    EDIT_AND_EXPECT(put_le64(buf + 72, le64(buf + 72) + 64), "sizes disagree");
    EDIT_AND_EXPECT(put_le64(buf + 72, 0), "m = 0");
    EDIT_AND_EXPECT(buf[size - 9] |= 0x80, "past bit"); /* the last word's top bit, past m */
    /* a bit array that promises more than the buffer holds, sealed */
    EDIT_AND_EXPECT(put_le64(buf + 80, le64(buf + 80) + 8), "truncated");
    EDIT_AND_EXPECT(put_le64(buf + 80, UINT64_MAX), "truncated");
    /* a split block filter's m must be whole 256-bit blocks */
    free(good);
    good = small_serialised("splitblock", &size);
    EDIT_AND_EXPECT(put_le64(buf + 72, le64(buf + 72) - 1), "whole 256-bit blocks");
    /* a blocked512 filter's scheme is multiply, not double */
    free(good);
    good = small_serialised("blocked512", &size);
    EDIT_AND_EXPECT(memcpy(buf + 32, "double\0\0\0", 9), "use multiply");
#undef EDIT_AND_EXPECT
    char err[64] = "";
    cr_expect_null(bloomlab_load(NULL, 100, err, sizeof err));
    cr_expect(err[0] != '\0');
    cr_expect_null(bloomlab_load(good, size - 1, NULL, 0), "no err buffer: still refused");
    free(good);
    free(buf);
}

/* ---- bad arguments -------------------------------------------------------- */

static void expect_not_created(bloomlab_filter *f, const char *err, const char *want, const char *what)
{
    cr_expect_null(f, "%s: created", what);
    bloomlab_free(f);
    cr_expect(strstr(err, want) != NULL, "%s: '%s' does not say '%s'", what, err, want);
}

Test(library, bad_arguments_get_null_or_minus_one_and_a_message)
{
    char err[256];
#define NOT_CREATED(call, want)                                                                         \
    do {                                                                                                \
        err[0] = '\0';                                                                                  \
        expect_not_created(call, err, want, #call);                                                     \
    } while (0)
    NOT_CREATED(bloomlab_create("cuckoo", 100, 0.01, err, sizeof err), "unknown layout 'cuckoo'");
    NOT_CREATED(bloomlab_create(NULL, 100, 0.01, err, sizeof err), "unknown layout");
    NOT_CREATED(bloomlab_create("standard", 0, 0.01, err, sizeof err), "n = 0");
    NOT_CREATED(bloomlab_create("standard", 100, 0, err, sizeof err), "p = 0");
    NOT_CREATED(bloomlab_create("standard", 100, 1, err, sizeof err), "p = 1");
    NOT_CREATED(bloomlab_create("standard", 100, NAN, err, sizeof err), "(0, 1)");
    NOT_CREATED(bloomlab_create("standard", 1000000000000ULL, 1e-300, err, sizeof err), "need more than");
    NOT_CREATED(bloomlab_create_mk("standard", 0, 3, err, sizeof err), "m = 0");
    NOT_CREATED(bloomlab_create_mk("standard", 2000000000000000ULL, 3, err, sizeof err), "outside");
    NOT_CREATED(bloomlab_create_mk("standard", UINT64_MAX, 3, err, sizeof err), "outside");
    NOT_CREATED(bloomlab_create_mk("standard", 1000, 0, err, sizeof err), "k = 0");
    NOT_CREATED(bloomlab_create_mk("standard", 1000, 65, err, sizeof err), "k = 65");
    NOT_CREATED(bloomlab_create_mk("splitblock", 1024, 7, err, sizeof err), "k must be 8");
    NOT_CREATED(bloomlab_create_mk("partitioned", 5, 7, err, sizeof err), "m >= k");
#undef NOT_CREATED
    cr_expect_null(bloomlab_create("cuckoo", 100, 0.01, NULL, 0), "no err buffer");
    err[0] = 'x';
    cr_expect_null(bloomlab_create("cuckoo", 100, 0.01, err, 1));
    cr_expect_eq(err[0], '\0', "a one-byte err buffer gets the terminator");

    bloomlab_filter *f = made("standard", 100, 0.01);
    const void *keys[2] = {"a", NULL};
    const size_t lens[2] = {1, 4};
    unsigned char answers[2] = {9, 9};
    cr_expect_eq(bloomlab_add(NULL, "a", 1), -1);
    cr_expect_eq(bloomlab_add(f, NULL, 1), -1);
    cr_expect_eq(bloomlab_contains(NULL, "a", 1), -1);
    cr_expect_eq(bloomlab_contains(f, NULL, 1), -1);
    /* 8 bytes: the one-key functions' own path (filter_key8_for), and its own checks */
    cr_expect_eq(bloomlab_add(NULL, "abcdefgh", 8), -1);
    cr_expect_eq(bloomlab_add(f, NULL, 8), -1);
    cr_expect_eq(bloomlab_contains(NULL, "abcdefgh", 8), -1);
    cr_expect_eq(bloomlab_contains(f, NULL, 8), -1);
    bloomlab_filter *split = made("splitblock", 100, 0.01);
    cr_expect_eq(bloomlab_add(split, NULL, 8), -1);
    cr_expect_eq(bloomlab_contains(split, NULL, 8), -1);
    cr_expect_eq(bloomlab_contains(split, "", 0), 0, "the empty key, not added");
    bloomlab_free(split);
    cr_expect_eq(bloomlab_add_batch(f, keys, lens, 2), -1, "a NULL key of 4 bytes");
    cr_expect_eq(bloomlab_contains(f, "a", 1), 0, "nothing of a refused batch is added");
    cr_expect_eq(bloomlab_add_batch(f, NULL, lens, 2), -1);
    cr_expect_eq(bloomlab_add_batch(f, keys, NULL, 2), -1);
    cr_expect_eq(bloomlab_add_batch(f, NULL, NULL, 0), 0, "no keys: nothing to do");
    cr_expect_eq(bloomlab_contains_batch(f, keys, lens, 2, answers), BLOOMLAB_ERROR);
    cr_expect(answers[0] == 9 && answers[1] == 9, "answers untouched");
    cr_expect_eq(bloomlab_contains_batch(NULL, keys, lens, 1, answers), BLOOMLAB_ERROR);
    cr_expect_eq(bloomlab_contains_batch(f, NULL, NULL, 0, NULL), 0);
    cr_expect_eq(bloomlab_add(f, NULL, 0), 0, "the empty key may be NULL");
    cr_expect_eq(bloomlab_contains(f, "", 0), 1);

    unsigned char small[16];
    cr_expect_eq(bloomlab_serialise(f, small, sizeof small), 0, "a buffer too small");
    cr_expect_eq(bloomlab_serialise(f, NULL, 1 << 20), 0);
    cr_expect_eq(bloomlab_serialise(NULL, small, sizeof small), 0);
    cr_expect_eq(bloomlab_serialised_size(NULL), 0);
    cr_expect_eq(bloomlab_size_bits(NULL), 0);
    cr_expect_eq(bloomlab_size_bytes(NULL), 0);
    cr_expect_eq(bloomlab_k(NULL), 0);
    cr_expect_null(bloomlab_layout(NULL));
    cr_expect(isnan(bloomlab_expected_fpr(NULL, 10)));
    bloomlab_free(NULL);
    bloomlab_free(f);
    cr_expect_str_eq(bloomlab_version(), "0.1.0" /* src/base/version.h */);
}

/* ---- the shared library --------------------------------------------------- */

#define SHARED_LIBRARY "lib/libbloomlab.so.0"

/* Every symbol the shared library defines for others is a bloomlab_
 * function that bloomlab.h declares, and its soname is libbloomlab.so.0. */
Test(library, the_shared_library_exports_the_api_alone)
{
    cr_assert_eq(access(SHARED_LIBRARY, R_OK), 0, "%s is missing: make lib", SHARED_LIBRARY);
    char *header = slurp("include/bloomlab/bloomlab.h");
    cr_assert_not_null(header);
    char out[] = "/tmp/bloomlab-test-nm-XXXXXX";
    close(mkstemp(out));
    char cmd[256];
    snprintf(cmd, sizeof cmd, "nm -D --defined-only %s | awk '{print $NF}' > %s", SHARED_LIBRARY, out);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char *names = slurp(out);
    int exported = 0;
    for (char *name = strtok(names, "\n"); name != NULL; name = strtok(NULL, "\n"), exported++) {
        char declared[128];
        snprintf(declared, sizeof declared, "%s(", name);
        cr_expect(strncmp(name, "bloomlab_", 9) == 0 && strstr(header, declared) != NULL,
                  "%s exports '%s', which bloomlab.h does not declare", SHARED_LIBRARY, name);
    }
    cr_expect_geq(exported, 20, "only %d symbols exported", exported);
    free(names);
    snprintf(cmd, sizeof cmd, "objdump -p %s | grep -q 'SONAME *libbloomlab.so.0$'", SHARED_LIBRARY);
    cr_expect_eq(system(cmd), 0, "the soname is not libbloomlab.so.0");
    unlink(out);
    free(header);
}

/* Apache Parquet's form: the format's golden filter (tests/vectors) read,
 * answering for its four values; rebuilt from them bit for bit; carried
 * through bloomlab's own form; refused when cut short. */
Test(library, parquet_filters_read_and_write_the_format_bit_for_bit)
{
    static const char *const VALUES[] = {"hello", "parquet", "bloom", "filter"};
    FILE *file = fopen(VECTORS_DIR "parquet_sbbf_xxhash.bin", "rb");
    cr_assert_not_null(file);
    unsigned char golden[2048];
    const size_t golden_len = fread(golden, 1, sizeof golden, file);
    fclose(file);
    cr_assert_eq(golden_len, 1040);
    char err[256];
    size_t used = 0;
    bloomlab_filter *read = bloomlab_load_parquet(golden, golden_len, &used, err, sizeof err);
    cr_assert_not_null(read, "%s", err);
    cr_expect_eq(used, golden_len);
    cr_expect_eq(bloomlab_size_bytes(read), 1024);
    cr_expect_eq(bloomlab_k(read), 8);
    bloomlab_filter *made = bloomlab_create_parquet(1024, err, sizeof err);
    cr_assert_not_null(made, "%s", err);
    for (size_t i = 0; i < 4; i++) {
        cr_expect_eq(bloomlab_contains(read, VALUES[i], strlen(VALUES[i])), 1, "%s", VALUES[i]);
        cr_assert_eq(bloomlab_add(made, VALUES[i], strlen(VALUES[i])), 0);
    }
    unsigned char out[2048];
    cr_assert_eq(bloomlab_serialised_size_parquet(made), golden_len);
    cr_assert_eq(bloomlab_serialise_parquet(made, out, sizeof out), golden_len);
    cr_expect_eq(memcmp(out, golden, golden_len), 0, "the rebuilt filter differs from the golden file");
    /* bloomlab's own form keeps it a Parquet filter */
    size_t size;
    unsigned char *own = serialised(read, &size);
    bloomlab_filter *again = bloomlab_load(own, size, err, sizeof err);
    cr_assert_not_null(again, "%s", err);
    cr_expect_eq(bloomlab_serialise_parquet(again, out, sizeof out), golden_len);
    cr_expect_eq(memcmp(out, golden, golden_len), 0);
    cr_expect_eq(bloomlab_contains(again, "absent-value", 12), bloomlab_contains(read, "absent-value", 12));
    /* refusals */
    cr_expect_null(bloomlab_load_parquet(golden, golden_len - 1, NULL, err, sizeof err));
    cr_expect(strlen(err) > 0);
    cr_expect_null(bloomlab_create_parquet(1000, NULL, 0), "1000 bytes is not whole 32-byte blocks");
    bloomlab_filter *plain = bloomlab_create("splitblock", 100, 0.01, err, sizeof err);
    cr_expect_eq(bloomlab_serialise_parquet(plain, out, sizeof out), 0, "a filter of another scheme in Parquet's form");
    cr_expect_eq(bloomlab_serialise_parquet(made, out, 100), 0, "a buffer too small");
    bloomlab_free(plain);
    free(own);
    bloomlab_free(again);
    bloomlab_free(made);
    bloomlab_free(read);
}

/* The header is C++ too (extern "C"). */
Test(library, the_header_compiles_as_cpp)
{
    if (system("command -v c++ >/dev/null 2>&1") != 0)
        cr_skip_test("no C++ compiler");
    cr_expect_eq(system("printf '#include <bloomlab/bloomlab.h>\\nint main() { return bloomlab_k(nullptr); }\\n' | "
                        "c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -fsyntax-only -x c++ -"),
                 0);
}
