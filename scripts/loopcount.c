/* loopcount.c -- one filter's inserts and queries, nothing else, for
 * instruction counts under valgrind --tool=callgrind (a noise-free
 * cross-check of a loop change on a shared host; docs/PERFORMANCE.md).
 *
 *   make build/loopcount
 *   BLOOMLAB_ISA=avx2 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
 *       --toggle-collect='insert_many_*' build/loopcount splitblock 1e6 10.67 8 1e6
 *
 * Arguments: layout, n, bits per key, k, queries (absent then present),
 * and optionally the hash (xxh3_64 when left out, as bloomlab bench).
 * LOOPCOUNT_L2_BYTES and LOOPCOUNT_PLAN (window or ahead), when set, stand
 * for the L2 size and the fetch plan the loops are chosen by: valgrind's
 * CPU reports its own (a 256 KiB L2, another family), and loopcount.sh
 * passes this machine's, so that the loops counted are the ones it runs;
 * double hashing on random64 keys (8 bytes), the
 * keys made in chunks of 8 batches outside the loops (--toggle-collect
 * names the loops: insert_many_*, query_many_*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filters.h"
#include "base/cache.h"
#include "base/hashes.h"
#include "harness/keys.h"

enum { CHUNK = 8 };

static void fill(const keyset *ks, uint64_t seed, uint64_t n, key_side side, uint64_t first, uint64_t total,
                 key_batch *chunk, size_t *nb)
{
    *nb = 0;
    for (uint64_t i = first; i < total && *nb < CHUNK; i += KEY_BATCH)
        keyset_fill(ks, seed, n, side, i, total - i < KEY_BATCH ? (size_t)(total - i) : KEY_BATCH, &chunk[(*nb)++]);
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: loopcount LAYOUT N BITS_PER_KEY K QUERIES [HASH]\n");
        return 2;
    }
    layout_kind layout;
    if (layout_from_name(argv[1], &layout) != 0)
        return 2;
    const char *l2 = getenv("LOOPCOUNT_L2_BYTES"), *plan = getenv("LOOPCOUNT_PLAN");
    if (l2 != NULL && *l2 != '\0') {
        char *end;
        const unsigned long long bytes = strtoull(l2, &end, 10);
        if (*end != '\0' || bytes == 0) {
            fprintf(stderr, "loopcount: LOOPCOUNT_L2_BYTES=%s: not a byte count\n", l2);
            return 2;
        }
        cache_l2_bytes_set(bytes);
    }
    if (plan != NULL && *plan != '\0') {
        if (strcmp(plan, "window") != 0 && strcmp(plan, "ahead") != 0) {
            fprintf(stderr, "loopcount: LOOPCOUNT_PLAN=%s: not window or ahead\n", plan);
            return 2;
        }
        filter_fetch_plan_set(strcmp(plan, "window") == 0 ? FETCH_WINDOW : FETCH_AHEAD);
    }
    const uint64_t n = (uint64_t)atof(argv[2]), queries = (uint64_t)atof(argv[5]);
    const unsigned k = (unsigned)atoi(argv[4]);
    const uint64_t m = layout_fit_m(layout, (uint64_t)(atof(argv[3]) * (double)n + 0.5));
    char err[256];
    hasher h;
    keyset *ks = keyset_open("random64", err, sizeof err);
    filter f;
    key_batch *chunk = malloc(CHUNK * sizeof *chunk);
    if (ks == NULL || chunk == NULL || hasher_resolve(argc == 7 ? argv[6] : "xxh3_64", &h, err, sizeof err) != 0 ||
        filter_init(&f, layout, m, k) != 0) {
        fprintf(stderr, "loopcount: %s\n", err);
        return 1;
    }
    const scheme_ctx ctx = {&h, 1, log2_floor(m)};
    const filter_ops ops = filter_ops_for(layout, SCHEME_DOUBLE);
    size_t nb;
    for (uint64_t i = 0; i < n; i += CHUNK * KEY_BATCH) {
        fill(ks, 1, n, KEY_PRESENT, i, n, chunk, &nb);
        ops.insert_many(&f, &ctx, chunk, nb);
    }
    filter_flush(&f);
    uint64_t yes[2] = {0, 0};
    for (int side = KEY_ABSENT; side >= KEY_PRESENT; side--)
        for (uint64_t i = 0; i < queries; i += CHUNK * KEY_BATCH) {
            fill(ks, 1, n, (key_side)side, i, queries, chunk, &nb);
            yes[side] += ops.query_many(&f, &ctx, chunk, nb, NULL);
        }
    printf("%s %s m=%llu k=%u: %s\nabsent yes %llu, present yes %llu of %llu\nL2 %llu bytes, fetch plan %s\n", argv[1],
           h.name, (unsigned long long)m, k, filter_ops_description(), (unsigned long long)yes[KEY_ABSENT],
           (unsigned long long)yes[KEY_PRESENT], (unsigned long long)queries, (unsigned long long)cache_l2_bytes(),
           fetch_plan_name(filter_fetch_plan()));
    filter_free(&f);
    keyset_close(ks);
    free(chunk);
    return 0;
}
