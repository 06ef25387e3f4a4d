/* test_hashes.c -- every registered hash against known answers.
 * tests/vectors/hashes.csv holds FNV-1a and xxHash from the reference
 * implementations; MurmurHash3 and CRC-32 are checked against their
 * published check values. */
#include <criterion/criterion.h>
#include <inttypes.h>

#include "base/hashes.h"
#include "helpers.h"

static const hasher *get(const char *name)
{
    static hasher slots[16];
    static int used = 0;
    char err[256];
    hasher *h = &slots[used++ % 16];
    cr_assert_eq(hasher_resolve(name, h, err, sizeof err), 0, "%s", err);
    return h;
}

static size_t unhex(const char *hex, unsigned char *out)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
    return n;
}

static void check(const char *name, const unsigned char *key, size_t len, uint64_t seed, const char *field,
                  int high, int line)
{
    if (*field == '\0')
        return; /* FNV has values in seed-0 rows only */
    uint64_t want = strtoull(field, NULL, 10);
    hash128_t h = hasher_hash(get(name), key, len, seed);
    uint64_t got = high ? h.hi : h.lo;
    cr_assert_eq(got, want, "%s line %d: got %" PRIu64 ", want %" PRIu64, name, line, got, want);
}

Test(hashes, match_reference_vectors)
{
    FILE *f = fopen(VECTORS_DIR "hashes.csv", "r");
    cr_assert_not_null(f);
    char line[8192];
    cr_assert_not_null(fgets(line, sizeof line, f));
    int rows = 0, lineno = 1;
    static unsigned char key[4096];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *field[9];
        char *p = line;
        for (int i = 0; i < 9; i++) {
            field[i] = p;
            char *c = strchr(p, ',');
            if (c) {
                *c = '\0';
                p = c + 1;
            } else {
                p += strlen(p);
            }
        }
        size_t len = unhex(field[0], key);
        uint64_t seed = strtoull(field[1], NULL, 10);
        if (seed == 0) {
            check("fnv1a32", key, len, 0, field[2], 0, lineno);
            check("fnv1a64", key, len, 0, field[3], 0, lineno);
        }
        check("xxh32", key, len, seed, field[4], 0, lineno);
        check("xxh64", key, len, seed, field[5], 0, lineno);
        check("xxh3_64", key, len, seed, field[6], 0, lineno);
        check("xxh3_128", key, len, seed, field[7], 0, lineno);
        check("xxh3_128", key, len, seed, field[8], 1, lineno);
        rows++;
    }
    fclose(f);
    cr_assert_geq(rows, 50, "only %d vector rows", rows);
}

Test(hashes, murmur3_published_values)
{
    const hasher *m32 = get("murmur3_32");
    cr_assert_eq(hasher_hash(m32, "", 0, 0).lo, 0u);
    cr_assert_eq(hasher_hash(m32, "", 0, 1).lo, 0x514E28B7u);
    cr_assert_eq(hasher_hash(m32, "", 0, 0xffffffffu).lo, 0x81F16F39u);
    cr_assert_eq(hasher_hash(m32, "test", 4, 0).lo, 0xba6bd213u);
    cr_assert_eq(hasher_hash(m32, "Hello, world!", 13, 1234).lo, 0xfaf6cdb3u);
    const char *fox = "The quick brown fox jumps over the lazy dog";
    cr_assert_eq(hasher_hash(m32, fox, strlen(fox), 0).lo, 0x2e4ff723u);
    const hasher *m128 = get("murmur3_128");
    hash128_t z = hasher_hash(m128, "", 0, 0);
    cr_assert(z.lo == 0 && z.hi == 0);
    hash128_t h = hasher_hash(m128, fox, strlen(fox), 0);
    cr_assert_eq(h.lo, 0xe34bbc7bbc071b6cULL, "%" PRIx64, h.lo);
    cr_assert_eq(h.hi, 0x7a433ca9c49a9347ULL, "%" PRIx64, h.hi);
}

Test(hashes, crc32_check_value)
{
    cr_assert_eq(hasher_hash(get("crc32"), "123456789", 9, 0).lo, 0xCBF43926u);
}

Test(hashes, course_page_fnv_value)
{
    cr_assert_eq(fnv1a32("filter", 6), 3353438327u);
    /* A seed keys FNV by prefixing its 8 bytes. */
    unsigned char buf[14] = {5, 0, 0, 0, 0, 0, 0, 0, 'f', 'i', 'l', 't', 'e', 'r'};
    cr_assert_eq(hasher_hash(get("fnv1a32"), "filter", 6, 5).lo, fnv1a32(buf, 14));
}

/* mulx64 (hashes.h): fold(x ^ seed C) for an 8-byte key x, fold(XXH3_64)
 * for other lengths, fold(a) = hi(a C) ^ lo(a C).  The values come from
 * Python's integers (a * C, then (p >> 64) ^ (p & (2^64 - 1))), the other
 * lengths' from the xxh3_64 column of tests/vectors/hashes.csv. */
Test(hashes, mulx64_known_answers)
{
    static const struct {
        uint64_t x, seed, want;
    } EIGHT[] = {
        {0, 0, 0}, /* seed 0 is Boost's mulx64(x): 0 and 2^64 - 1 are its fixed points */
        {1, 0, 0x9e3779b97f4a7c15ULL},
        {0x0123456789abcdefULL, 0, 0x0c27a443d5ff218eULL},
        {UINT64_MAX, 0, UINT64_MAX},
        {0, 1, 0xbe8cab644efdda51ULL},
        {1, 1, 0x20c4352fce485e4cULL},
        {2, 1, 0x7a7ba6d34c68d209ULL},
        {3, 1, 0x1cb3209acd275627ULL},
        {0x0123456789abcdefULL, 42, 0x19fd43dc94d61095ULL},
        {UINT64_MAX, 0xdeadbeefcafef00dULL, 0xea73a8b45ca1e4b3ULL},
    };
    const hasher *h = get("mulx64");
    cr_assert_eq(h->bits, 64);
    for (size_t i = 0; i < sizeof EIGHT / sizeof EIGHT[0]; i++) {
        unsigned char key[8];
        for (int b = 0; b < 8; b++)
            key[b] = (unsigned char)(EIGHT[i].x >> (8 * b)); /* little-endian */
        const hash128_t v = hasher_hash(h, key, 8, EIGHT[i].seed);
        cr_assert_eq(v.lo, EIGHT[i].want, "x %" PRIx64 " seed %" PRIx64 ": got %" PRIx64, EIGHT[i].x, EIGHT[i].seed,
                     v.lo);
        cr_assert_eq(v.hi, 0u);
        cr_assert_eq(mulx64_8(EIGHT[i].x, mulx64_salt(EIGHT[i].seed)), EIGHT[i].want);
    }
    cr_assert_eq(hasher_hash(h, "", 0, 0).lo, 0x2ff15aca0fb731f7ULL);
    cr_assert_eq(hasher_hash(h, "", 0, 12345).lo, 0xba7c4a0b3451e5eaULL);
    cr_assert_eq(hasher_hash(h, "ink", 3, 0).lo, 0x3bf94108ece50b31ULL);
    cr_assert_eq(hasher_hash(h, "ink", 3, 12345).lo, 0x08375e7eaae69647ULL);
    const unsigned char sixteen[16] = {0x5a, 0xa3, 0x00, 0x16, 0x5a, 0x67, 0x03, 0x6f,
                                       0x9b, 0x54, 0x0d, 0x6b, 0x8f, 0x0b, 0xe2, 0x11};
    cr_assert_eq(hasher_hash(h, sixteen, 16, 0).lo, 0x38531f417776542fULL);
}

Test(hashes, widths_and_registry)
{
    cr_assert_eq(get("fnv1a32")->bits, 32);
    cr_assert_eq(get("xxh3_64")->bits, 64);
    cr_assert_eq(get("xxh3_128")->bits, 128);
    cr_assert_eq(get("murmur3_128")->bits, 128);
    for (size_t i = 0; i < hash_registry_count(); i++) {
        const hasher *h = hash_registry_at(i);
        hash128_t v = hasher_hash(h, "abc", 3, 0);
        if (h->bits <= 64)
            cr_assert_eq(v.hi, 0u, "%s", h->name);
        if (h->bits == 32)
            cr_assert_eq(v.lo >> 32, 0u, "%s", h->name);
    }
    hasher h;
    char err[256];
    cr_assert_eq(hasher_resolve("md5", &h, err, sizeof err), -1);
    cr_assert(strstr(err, "unknown hash 'md5'") != NULL, "%s", err);
}

Test(hashes, plugin_errors_are_clear)
{
    hasher h;
    char err[512];
    cr_assert_eq(hasher_resolve("plugin:/nonexistent/x.so:f", &h, err, sizeof err), -1);
    cr_assert(strstr(err, "cannot load /nonexistent/x.so") != NULL, "%s", err);
    cr_assert_eq(hasher_resolve("plugin:Makefile:f", &h, err, sizeof err), -1);
    cr_assert(strstr(err, "cannot load Makefile") != NULL, "%s", err);
    cr_assert_eq(hasher_resolve("plugin:build/plugin_example.so:no_such_symbol", &h, err, sizeof err), -1);
    cr_assert(strstr(err, "has no symbol 'no_such_symbol'") != NULL, "%s", err);
    cr_assert_eq(hasher_resolve("plugin:nocolon", &h, err, sizeof err), -1);
}

Test(hashes, plugin_loads_and_hashes)
{
    hasher h;
    char err[512];
    cr_assert_eq(hasher_resolve("plugin:build/plugin_example.so:example_hash", &h, err, sizeof err), 0, "%s", err);
    cr_assert_eq(h.bits, 64);
    hash128_t a = hasher_hash(&h, "abc", 3, 1), b = hasher_hash(&h, "abd", 3, 1);
    cr_assert_neq(a.lo, b.lo);
}
