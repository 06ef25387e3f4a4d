/* embed.c -- libbloomlab in a program of one's own: a filter for 100000
 * keys at a 1% false-positive rate, filled, asked, saved and loaded back.
 *
 *     cc -O2 embed.c $(pkg-config --cflags --libs bloomlab) -o embed
 *     ./embed [LAYOUT]            (standard unless named: bloomlab list)
 *
 * It checks what a Bloom filter promises -- no key that was added is ever
 * reported absent -- and that a filter saved and loaded back answers as the
 * original did, measures the false-positive rate on keys never added, and
 * prints one line.  Exit status 1 on any failure (and a line on stderr
 * saying which). */
#include <bloomlab/bloomlab.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEMS 100000u
#define RATE 0.01
#define ABSENT_KEYS 1000000u
#define KEY_STRIDE 24 /* bytes a key may take in the arrays below */

/* Keys "present-I" and "absent-I": different prefixes, so never equal. */
static char *make_keys(const char *prefix, unsigned count, const void **ptrs, size_t *lens)
{
    char *text = malloc((size_t)count * KEY_STRIDE);
    if (text == NULL)
        return NULL;
    for (unsigned i = 0; i < count; i++) {
        char *key = text + (size_t)i * KEY_STRIDE;
        lens[i] = (size_t)snprintf(key, KEY_STRIDE, "%s-%u", prefix, i);
        ptrs[i] = key;
    }
    return text;
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "embed: %s: %s\n", what, why);
    return 1;
}

/* The filter saved and loaded back answers every key as f does. */
static int round_trip(const bloomlab_filter *f, const void **keys, const size_t *lens, unsigned count,
                      const unsigned char *answers, size_t *saved_bytes)
{
    char err[256];
    const size_t size = bloomlab_serialised_size(f);
    unsigned char *buf = malloc(size);
    unsigned char *again = malloc(count);
    if (buf == NULL || again == NULL) {
        free(buf);
        free(again);
        return fail("round trip", "out of memory");
    }
    int status = 0;
    bloomlab_filter *loaded = NULL;
    if (bloomlab_serialise(f, buf, size) != size)
        status = fail("serialise", "wrote the wrong number of bytes");
    else if ((loaded = bloomlab_load(buf, size, err, sizeof err)) == NULL)
        status = fail("load", err);
    else if (bloomlab_contains_batch(loaded, keys, lens, count, again) == BLOOMLAB_ERROR ||
             memcmp(again, answers, count) != 0)
        status = fail("load", "the loaded filter answers differently");
    *saved_bytes = size;
    bloomlab_free(loaded);
    free(buf);
    free(again);
    return status;
}

/* Add the present keys one at a time, ask for each again: 0 false negatives. */
static int fill_and_check(bloomlab_filter *f, const void **keys, const size_t *lens)
{
    for (unsigned i = 0; i < ITEMS; i++)
        if (bloomlab_add(f, keys[i], lens[i]) != 0)
            return fail("add", "refused a key");
    for (unsigned i = 0; i < ITEMS; i++)
        if (bloomlab_contains(f, keys[i], lens[i]) != 1)
            return fail("contains", "a key that was added is reported absent");
    return 0;
}

int main(int argc, char **argv)
{
    const char *layout = argc > 1 ? argv[1] : "standard";
    char err[256];
    bloomlab_filter *f = bloomlab_create(layout, ITEMS, RATE, err, sizeof err);
    if (f == NULL)
        return fail("create", err);
    const void **present = malloc(ITEMS * sizeof *present), **absent = malloc(ABSENT_KEYS * sizeof *absent);
    size_t *present_lens = malloc(ITEMS * sizeof *present_lens), *absent_lens = malloc(ABSENT_KEYS * sizeof *absent_lens);
    unsigned char *answers = malloc(ABSENT_KEYS);
    char *present_text = NULL, *absent_text = NULL;
    int status = 1;
    size_t saved = 0;
    if (!present || !absent || !present_lens || !absent_lens || !answers ||
        !(present_text = make_keys("present", ITEMS, present, present_lens)) ||
        !(absent_text = make_keys("absent", ABSENT_KEYS, absent, absent_lens))) {
        fail("keys", "out of memory");
        goto done;
    }
    if (fill_and_check(f, present, present_lens) != 0)
        goto done;
    const size_t false_positives = bloomlab_contains_batch(f, absent, absent_lens, ABSENT_KEYS, answers);
    if (false_positives == BLOOMLAB_ERROR) {
        fail("contains_batch", "refused the keys");
        goto done;
    }
    if (round_trip(f, absent, absent_lens, ABSENT_KEYS, answers, &saved) != 0)
        goto done;
    const double fpr = (double)false_positives / ABSENT_KEYS;
    printf("embed: %s n=%u p=%g: m=%llu bits (%llu bytes), k=%u; 0 false negatives; false-positive rate %.5f on %u "
           "absent keys (formula %.5f); saved in %zu bytes and loaded back: identical answers\n",
           bloomlab_layout(f), ITEMS, RATE, (unsigned long long)bloomlab_size_bits(f),
           (unsigned long long)bloomlab_size_bytes(f), bloomlab_k(f), fpr, ABSENT_KEYS,
           bloomlab_expected_fpr(f, ITEMS), saved);
    status = fflush(stdout) == 0 && !ferror(stdout) ? 0 : fail("stdout", "cannot write");
done:
    free(present_text);
    free(absent_text);
    free(answers);
    free(present);
    free(absent);
    free(present_lens);
    free(absent_lens);
    bloomlab_free(f);
    return status;
}
