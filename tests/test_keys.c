/* test_keys.c -- key sets (keys.h): present and absent keys are distinct and
 * disjoint at 1e5 of each, URLs look like URLs, course is the page's words. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/keys.h"

#define SIDE_COUNT 100000

typedef struct {
    unsigned char bytes[KEY_MAX];
    uint32_t len;
    int side;
} stored_key;

static int compare_keys(const void *pa, const void *pb)
{
    const stored_key *a = pa, *b = pb;
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->bytes, b->bytes, n);
    return c != 0 ? c : (a->len > b->len) - (a->len < b->len);
}

static keyset *open_ok(const char *spec)
{
    char err[600];
    keyset *ks = keyset_open(spec, err, sizeof err);
    cr_assert_not_null(ks, "%s: %s", spec, err);
    return ks;
}

/* 1 when every key of the batch is 8 bytes in its packed slot: what
 * packed8 promises the loops (key_batch.h). */
static int packed_8_bytes(const key_batch *b)
{
    for (size_t j = 0; j < b->count; j++)
        if (b->len[j] != 8 || b->ptr[j] != b->packed[j])
            return 0;
    return 1;
}

/* count keys of one side, from index 0, into out[at..]; each batch marked
 * packed8 exactly when its keys are 8 bytes in their packed slots. */
static void collect(const keyset *ks, uint64_t seed, uint64_t n, key_side side, uint64_t count, stored_key *out)
{
    key_batch batch;
    for (uint64_t i = 0; i < count; i += KEY_BATCH) {
        size_t take = count - i < KEY_BATCH ? (size_t)(count - i) : KEY_BATCH;
        batch.packed8 = (int)(i / KEY_BATCH % 2); /* a stale mark, either way: the fill sets its own */
        keyset_fill(ks, seed, n, side, i, take, &batch);
        cr_assert_eq(batch.count, take);
        cr_assert_eq(batch.packed8, packed_8_bytes(&batch), "packed8 %d, keys at %llu", batch.packed8,
                     (unsigned long long)i);
        for (size_t j = 0; j < take; j++) {
            cr_assert(batch.len[j] >= 1 && batch.len[j] <= KEY_MAX);
            memcpy(out[i + j].bytes, batch.ptr[j], batch.len[j]);
            out[i + j].len = batch.len[j];
            out[i + j].side = side;
        }
    }
}

/* n present and `absent` absent keys: no two equal, on either side or across. */
static void expect_distinct(const char *spec, uint64_t seed, uint64_t n, uint64_t absent)
{
    keyset *ks = open_ok(spec);
    stored_key *keys = malloc((n + absent) * sizeof *keys);
    collect(ks, seed, n, KEY_PRESENT, n, keys);
    collect(ks, seed, n, KEY_ABSENT, absent, keys + n);
    qsort(keys, n + absent, sizeof *keys, compare_keys);
    for (uint64_t i = 1; i < n + absent; i++)
        cr_assert(compare_keys(&keys[i - 1], &keys[i]) != 0, "%s: a %s key equals a %s key ('%.*s')", spec,
                  keys[i - 1].side ? "absent" : "present", keys[i].side ? "absent" : "present",
                  (int)keys[i].len, (const char *)keys[i].bytes);
    free(keys);
    keyset_close(ks);
}

Test(keys, random64_distinct_and_disjoint) { expect_distinct("random64", 12345, SIDE_COUNT, SIDE_COUNT); }
Test(keys, seq64_distinct_and_disjoint) { expect_distinct("seq64", 1, SIDE_COUNT, SIDE_COUNT); }
Test(keys, urls_distinct_and_disjoint) { expect_distinct("urls", 99, SIDE_COUNT, SIDE_COUNT); }

Test(keys, words_distinct_and_disjoint)
{
    keyset *ks = open_ok("words");
    uint64_t size = keyset_size(ks);
    keyset_close(ks);
    cr_assert(size >= 2 * SIDE_COUNT / 2, "the dictionary has only %llu words", (unsigned long long)size);
    /* the whole list, split between the sides: n + queries = size */
    uint64_t n = size / 2;
    expect_distinct("words", 7, n, size - n);
}

Test(keys, trials_get_fresh_random_keys)
{
    keyset *ks = open_ok("random64");
    key_batch a, b;
    keyset_fill(ks, 1, 10, KEY_PRESENT, 0, KEY_BATCH, &a);
    keyset_fill(ks, 2, 10, KEY_PRESENT, 0, KEY_BATCH, &b);
    int same = 0;
    for (size_t i = 0; i < KEY_BATCH; i++)
        same += memcmp(a.ptr[i], b.ptr[i], 8) == 0;
    cr_assert_eq(same, 0, "another trial seed must give other keys");
    /* and the same seed the same keys: a batch at any offset equals the keys one by one */
    keyset_fill(ks, 1, 10, KEY_PRESENT, 5, 3, &b);
    for (size_t i = 0; i < 3; i++)
        cr_assert(memcmp(a.ptr[5 + i], b.ptr[i], 8) == 0);
    keyset_close(ks);
}

Test(keys, identities_are_2i_and_2j_plus_1)
{
    keyset *ks = open_ok("random64");
    key_batch batch;
    keyset_fill(ks, 3, 100, KEY_ABSENT, 40, 4, &batch);
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(batch.id[i], 2 * (40 + i) + 1);
    keyset_fill(ks, 3, 100, KEY_PRESENT, 40, 4, &batch);
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(batch.id[i], 2 * (40 + i));
    keyset_close(ks);
}

static int url_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~:/?#[]@!$&'()*+,;=%", c);
}

Test(keys, urls_look_like_urls)
{
    keyset *ks = open_ok("urls");
    enum { COUNT = 20000 };
    stored_key *keys = malloc(COUNT * sizeof *keys);
    collect(ks, 5, COUNT, KEY_PRESENT, COUNT, keys);
    uint32_t shortest = KEY_MAX, longest = 0;
    int lengths_seen[KEY_MAX + 1] = {0}, distinct_lengths = 0, https = 0;
    for (size_t i = 0; i < COUNT; i++) {
        char url[KEY_MAX + 1];
        memcpy(url, keys[i].bytes, keys[i].len);
        url[keys[i].len] = '\0';
        int is_https = strncmp(url, "https://", 8) == 0;
        cr_assert(is_https || strncmp(url, "http://", 7) == 0, "no scheme: %s", url);
        https += is_https;
        const char *host = url + (is_https ? 8 : 7);
        const char *slash = strchr(host, '/');
        cr_assert(slash != NULL && memchr(host, '.', (size_t)(slash - host)) != NULL, "no host.tld/: %s", url);
        for (const char *p = url; *p; p++)
            cr_assert(url_char((unsigned char)*p), "not a URL character in %s", url);
        shortest = keys[i].len < shortest ? keys[i].len : shortest;
        longest = keys[i].len > longest ? keys[i].len : longest;
        distinct_lengths += lengths_seen[keys[i].len]++ == 0;
    }
    /* keys.h says "about 30 to 120"; the generator gives about 40 to 80 */
    cr_assert(shortest <= 45 && longest >= 75, "lengths %u..%u: not varied", shortest, longest);
    cr_assert(distinct_lengths >= 30, "only %d distinct lengths", distinct_lengths);
    cr_assert(https > COUNT / 2 && https < COUNT, "%d of %d https", https, COUNT);
    free(keys);
    keyset_close(ks);
}

Test(keys, course_is_the_page_words)
{
    /* the course page's arrays, in its order */
    const char *present[20] = {"filter", "sample", "window", "phase", "gain",   "delay", "noise",
                               "pulse",  "chirp",  "tone",   "echo",  "carrier", "band", "notch",
                               "ripple", "decay",  "spike",  "drift", "bias",   "clock"};
    const char *absent[20] = {"apple", "river", "stone", "cloud", "tiger", "piano", "lemon",
                              "bread", "chair", "glass", "plant", "rope",  "sand",  "wheel",
                              "coin",  "hill",  "mask",  "nest",  "ink",   "fog"};
    keyset *ks = open_ok("course");
    cr_assert_eq(keyset_size(ks), 40);
    key_batch p, a;
    keyset_fill(ks, 77, 20, KEY_PRESENT, 0, 20, &p);
    keyset_fill(ks, 77, 20, KEY_ABSENT, 0, 20, &a);
    cr_assert(p.packed8 == 0 && a.packed8 == 0, "words are not packed 8-byte keys");
    for (size_t i = 0; i < 20; i++) {
        cr_assert(p.len[i] == strlen(present[i]) && memcmp(p.ptr[i], present[i], p.len[i]) == 0,
                  "present %zu: %.*s", i, (int)p.len[i], (const char *)p.ptr[i]);
        cr_assert(a.len[i] == strlen(absent[i]) && memcmp(a.ptr[i], absent[i], a.len[i]) == 0,
                  "absent %zu: %.*s", i, (int)a.len[i], (const char *)a.ptr[i]);
    }
    char err[300];
    cr_assert_eq(keyset_check(ks, 20, 20, err, sizeof err), 0);
    cr_assert_eq(keyset_check(ks, 21, 1, err, sizeof err), -1);
    cr_assert_eq(keyset_check(ks, 1, 21, err, sizeof err), -1);
    keyset_close(ks);
}

Test(keys, words_file_checks)
{
    char path[] = "/tmp/bloomlab-words-XXXXXX";
    int fd = mkstemp(path);
    const char text[] = "b\r\na\n\nb\nc"; /* CRLF, a blank line, a duplicate, no final newline */
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    char spec[64], err[600];
    snprintf(spec, sizeof spec, "words:%s", path);
    keyset *ks = keyset_open(spec, err, sizeof err);
    cr_assert_not_null(ks, "%s", err);
    cr_assert_eq(keyset_size(ks), 3, "a, b, c");
    cr_assert_eq(keyset_check(ks, 2, 1, err, sizeof err), 0);
    cr_assert_eq(keyset_check(ks, 2, 2, err, sizeof err), -1);
    cr_assert(strstr(err, "has 3 words") != NULL, "%s", err);
    keyset_close(ks);
    unlink(path);
    cr_assert_null(keyset_open("words:", err, sizeof err));
    cr_assert_null(keyset_open("emails", err, sizeof err));
    cr_assert(strstr(err, "'emails'") != NULL, "%s", err);
}
