/* test_parquet.c -- Parquet's split-block filter bit for bit (sbbf.h, the
 * parquet scheme): the format's golden file is rebuilt byte for byte and
 * read back, header included, and its answers are an independent reading
 * of the spec's; malformed headers are refused with the byte they stop at;
 * and a filter built by the sweep's batch loops measures the exact
 * split-block rate within 5 standard errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "filter/filters.h"
#include "helpers.h"
#include "harness/keys.h"
#include "filter/sbbf.h"
#include "model/theory.h"

#define GOLDEN VECTORS_DIR "parquet_sbbf_xxhash.bin"
#define GOLDEN_BYTES 1040
#define GOLDEN_HEADER 16

static const char *const GOLDEN_VALUES[] = {"hello", "parquet", "bloom", "filter"};

static size_t read_golden(uint8_t *buf, size_t room)
{
    FILE *f = fopen(GOLDEN, "rb");
    cr_assert(f != NULL, "cannot open %s", GOLDEN);
    size_t len = fread(buf, 1, room, f);
    fclose(f);
    cr_assert_eq(len, GOLDEN_BYTES, "%s has %zu bytes, not %d", GOLDEN, len, GOLDEN_BYTES);
    return len;
}

/* The spec's check, read straight off the file's bytes with libxxhash's
 * XXH64: the answer bloomlab's loops must give. */
static int spec_check(const uint8_t *bitset, uint64_t bytes, const void *value, size_t len)
{
    static const uint32_t SALT[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                                     0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};
    uint64_t h = XXH64(value, len, 0), blocks = bytes / 32;
    uint64_t block = ((h >> 32) * blocks) >> 32;
    for (unsigned i = 0; i < 8; i++) {
        const uint8_t *w = bitset + 32 * block + 4 * i;
        uint32_t word = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
        uint32_t bit = ((uint32_t)h * SALT[i]) >> 27;
        if (!((word >> bit) & 1u))
            return 0;
    }
    return 1;
}

Test(parquet, builds_the_golden_file_byte_for_byte)
{
    uint8_t golden[2 * GOLDEN_BYTES], built[2 * GOLDEN_BYTES];
    size_t len = read_golden(golden, sizeof golden);
    filter f;
    char err[256];
    cr_assert_eq(sbbf_init(&f, 1024, err, sizeof err), 0, "%s", err);
    for (size_t i = 0; i < 4; i++)
        sbbf_insert(&f, GOLDEN_VALUES[i], strlen(GOLDEN_VALUES[i]));
    cr_assert_eq(filter_bits_set(&f), 32, "4 values x 8 words, no two on one bit");
    cr_assert_eq(sbbf_serialised_size(&f), len);
    size_t written = sbbf_serialise(&f, built, sizeof built);
    cr_assert_eq(written, len);
    for (size_t i = 0; i < len; i++)
        cr_assert_eq(built[i], golden[i], "byte %zu: built 0x%02x, the file 0x%02x", i, built[i], golden[i]);
    cr_assert_eq(sbbf_serialise(&f, built, len - 1), 0, "no room: nothing written");
    filter_free(&f);
}

Test(parquet, header_is_the_files_sixteen_bytes)
{
    uint8_t golden[2 * GOLDEN_BYTES], header[SBBF_HEADER_MAX];
    read_golden(golden, sizeof golden);
    cr_assert_eq(sbbf_header_write(1024, header), GOLDEN_HEADER);
    cr_assert_eq(memcmp(header, golden, GOLDEN_HEADER), 0);
}

Test(parquet, reads_the_golden_file_and_answers_as_it_does)
{
    uint8_t golden[2 * GOLDEN_BYTES];
    size_t len = read_golden(golden, sizeof golden);
    filter f;
    char err[256];
    size_t used = 0;
    cr_assert_eq(sbbf_load(&f, golden, len, &used, err, sizeof err), 0, "%s", err);
    cr_assert_eq(used, len);
    cr_assert_eq(sbbf_bitset_bytes(&f), 1024);
    cr_assert_eq(filter_bits_set(&f), 32);
    for (size_t i = 0; i < 4; i++)
        cr_assert(sbbf_contains(&f, GOLDEN_VALUES[i], strlen(GOLDEN_VALUES[i])), "%s", GOLDEN_VALUES[i]);
    /* 20000 other values, strings and 8-byte integers: the same answer as
     * the spec's check on the file's own bytes, and (the file being 1/128
     * full per word, 4 keys in 32 blocks) almost all absent. */
    int agreed_yes = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        char text[32];
        int n = snprintf(text, sizeof text, "value-%llu", (unsigned long long)i);
        int want = spec_check(golden + GOLDEN_HEADER, 1024, text, (size_t)n);
        cr_assert_eq(sbbf_contains(&f, text, (size_t)n), want, "'%s'", text);
        uint8_t le[8];
        for (int b = 0; b < 8; b++)
            le[b] = (uint8_t)(i >> (8 * b));
        want = spec_check(golden + GOLDEN_HEADER, 1024, le, 8);
        cr_assert_eq(sbbf_contains(&f, le, 8), want, "int64 %llu", (unsigned long long)i);
        agreed_yes += want;
    }
    cr_assert_lt(agreed_yes, 10, "a 32-block filter holding 4 values says yes to %d of 10000", agreed_yes);
    filter_free(&f);
}

/* Serialise then load: the same bits, at sizes whose numBytes varint takes
 * 2, 3 and 4 bytes, with a filter a tenth full. */
Test(parquet, round_trips_every_size)
{
    static const uint64_t SIZES[] = {32, 1024, 65536, 1u << 20, 3u << 20};
    for (size_t s = 0; s < sizeof SIZES / sizeof SIZES[0]; s++) {
        filter a, b;
        char err[256];
        cr_assert_eq(sbbf_init(&a, SIZES[s], err, sizeof err), 0, "%s", err);
        for (uint64_t i = 0; i < SIZES[s] / 32 * 3; i++)
            sbbf_insert(&a, &i, sizeof i);
        size_t size = sbbf_serialised_size(&a);
        uint8_t *buf = malloc(size + 7);
        cr_assert_eq(sbbf_serialise(&a, buf, size + 7), size);
        memcpy(buf + size, "trailer", 7); /* what follows in a file is not read */
        size_t used = 0;
        cr_assert_eq(sbbf_load(&b, buf, size + 7, &used, err, sizeof err), 0, "%s", err);
        cr_assert_eq(used, size);
        cr_assert_eq(b.m, a.m);
        cr_assert_eq(memcmp(a.words, b.words, (size_t)(a.m / 8)), 0, "%llu bytes", (unsigned long long)SIZES[s]);
        free(buf);
        filter_free(&a);
        filter_free(&b);
    }
}

/* A header bloomlab refuses: -1, and one line naming what and where. */
static void expect_refused(const uint8_t *data, size_t len, const char *needle)
{
    filter f;
    char err[256] = "";
    cr_assert_eq(sbbf_load(&f, data, len, NULL, err, sizeof err), -1, "accepted (want '%s')", needle);
    cr_assert(strstr(err, needle) != NULL, "'%s' not in: %s", needle, err);
    cr_assert(strchr(err, '\n') == NULL);
}

Test(parquet, malformed_headers_are_refused)
{
    uint8_t golden[2 * GOLDEN_BYTES], bad[2 * GOLDEN_BYTES];
    size_t len = read_golden(golden, sizeof golden);
    expect_refused(golden, 0, "byte 0");
    expect_refused(golden, 9, "ends inside the header");
    expect_refused(golden, len - 1, "numBytes = 1024, but 1023 bytes follow");
    memcpy(bad, golden, len);
    bad[4] = 0x2c; /* algorithm: member 2, not BLOCK */
    expect_refused(bad, len, "algorithm is member 2");
    memcpy(bad, golden, len);
    bad[8] = 0x2c; /* hash: member 2, not XXHASH */
    expect_refused(bad, len, "hash is member 2");
    memcpy(bad, golden, len);
    bad[12] = 0x3c; /* compression: member 3 */
    expect_refused(bad, len, "compression is member 3");
    memcpy(bad, golden, len);
    bad[1] = 0x81; /* zigzag 0x801 = 1025 * 2 + 1 -> numBytes = -1025 */
    expect_refused(bad, len, "negative");
    memcpy(bad, golden, len);
    bad[1] = 0x82; /* numBytes = 1025: not whole blocks */
    expect_refused(bad, len, "numBytes = 1025");
    memcpy(bad, golden, len);
    bad[15] = 0x15; /* no stop: a field 5 (i32) whose value runs into the bitset... */
    bad[16] = 0x02; /* ...= 1, then the bitset's next byte 0x00 ends the struct */
    expect_refused(bad, len, "numBytes = 1024, but 1022 bytes follow");
    /* A header without its hash field. */
    const uint8_t no_hash[] = {0x15, 0x40, 0x1c, 0x1c, 0x00, 0x00, 0x2c, 0x1c, 0x00, 0x00, 0x00};
    expect_refused(no_hash, sizeof no_hash, "required field hash");
}

/* A later format version's extra field (an i64 and a list, field ids 5
 * and 6) is skipped as Thrift readers skip it. */
Test(parquet, unknown_fields_are_skipped)
{
    uint8_t golden[2 * GOLDEN_BYTES], extended[2 * GOLDEN_BYTES + 16];
    size_t len = read_golden(golden, sizeof golden);
    const uint8_t extra[] = {0x16, 0xac, 0x02, 0x19, 0x25, 0x02, 0x04};
    memcpy(extended, golden, GOLDEN_HEADER - 1);
    memcpy(extended + GOLDEN_HEADER - 1, extra, sizeof extra);
    memcpy(extended + GOLDEN_HEADER - 1 + sizeof extra, golden + GOLDEN_HEADER - 1, len - (GOLDEN_HEADER - 1));
    filter f;
    char err[256];
    size_t used;
    cr_assert_eq(sbbf_load(&f, extended, len + sizeof extra, &used, err, sizeof err), 0, "%s", err);
    cr_assert_eq(used, len + sizeof extra);
    cr_assert(sbbf_contains(&f, "parquet", 7));
    filter_free(&f);
}

/* The sweep's batch loops with the parquet scheme set the bits sbbf_insert
 * sets, key for key. */
Test(parquet, batch_loops_are_the_spec)
{
    char err[256];
    keyset *ks = keyset_open("random64", err, sizeof err);
    cr_assert(ks != NULL, "%s", err);
    filter batched, one;
    cr_assert_eq(sbbf_init(&batched, 1u << 16, err, sizeof err), 0);
    cr_assert_eq(sbbf_init(&one, 1u << 16, err, sizeof err), 0);
    const scheme_ctx ctx = {NULL, 7, 0};
    const filter_ops ops = filter_ops_for(LAYOUT_SPLITBLOCK, SCHEME_PARQUET);
    const uint64_t n = 20000;
    key_batch batch;
    for (uint64_t i = 0; i < n; i += KEY_BATCH) {
        keyset_fill(ks, 7, n, KEY_PRESENT, i, KEY_BATCH, &batch);
        ops.insert(&batched, &ctx, &batch);
        for (size_t j = 0; j < batch.count; j++)
            sbbf_insert(&one, batch.ptr[j], batch.len[j]);
    }
    cr_assert_eq(memcmp(batched.words, one.words, (size_t)(batched.m / 8)), 0);
    keyset_close(ks);
    filter_free(&batched);
    filter_free(&one);
}

/* A Parquet filter sized at 10.5 bits a key: the measured rate of absent
 * keys is the exact split-block rate, within 5 SE under that null (the SE
 * counts the built filter's own spread, theory_fpr_var_splitblock). */
Test(parquet, measured_rate_is_the_exact_mixture)
{
    char err[256];
    keyset *ks = keyset_open("random64", err, sizeof err);
    filter f;
    const uint64_t n = 100000, queries = 1000000, bytes = 131072;
    cr_assert_eq(sbbf_init(&f, bytes, err, sizeof err), 0);
    const scheme_ctx ctx = {NULL, 25, 0};
    const filter_ops ops = filter_ops_for(LAYOUT_SPLITBLOCK, SCHEME_PARQUET);
    key_batch batch;
    for (uint64_t i = 0; i < n; i += KEY_BATCH) {
        keyset_fill(ks, 25, n, KEY_PRESENT, i, KEY_BATCH, &batch);
        ops.insert(&f, &ctx, &batch);
    }
    uint64_t yes = 0;
    for (uint64_t i = 0; i < queries; i += KEY_BATCH) {
        keyset_fill(ks, 25, n, KEY_ABSENT, i, KEY_BATCH, &batch);
        yes += ops.query(&f, &ctx, &batch, NULL);
    }
    const double exact = theory_fpr_splitblock(8 * bytes, n, 1), var_f = theory_fpr_var_splitblock(8 * bytes, n);
    const double se = sqrt((exact - exact * exact - var_f) / (double)queries + var_f);
    const double fpr = (double)yes / (double)queries;
    cr_assert_lt(fabs(fpr - exact), 5 * se, "measured %g, exact %g, se %g", fpr, exact, se);
    keyset_close(ks);
    filter_free(&f);
}

/* One built filter's rate F = (1/B) sum over blocks of the product of the
 * block's eight words' fill, from its bits. */
static double built_fpr(const filter *f)
{
    double sum = 0;
    for (uint64_t b = 0; b < f->blocks; b++) {
        double product = 1;
        for (unsigned i = 0; i < 8; i++) {
            uint32_t word = (uint32_t)(f->words[4 * b + i / 2] >> (32 * (i % 2)));
            product *= __builtin_popcount(word) / 32.0;
        }
        sum += product;
    }
    return sum / (double)f->blocks;
}

/* The spread of F over 20000 ideal-scheme filters: its mean is the exact
 * rate and its variance theory_fpr_var_splitblock's, for one block and for
 * eight (whose loads' negative covariance the formula sums: theory.c).
 * Bounds: 5 SE of the sample mean and of the sample variance, the latter
 * from the sample's fourth central moment. */
static void check_spread(uint64_t bytes, uint64_t n)
{
    const int trials = 20000;
    double *F = malloc(trials * sizeof *F), mean = 0;
    char err[256];
    keyset *ks = keyset_open("random64", err, sizeof err);
    filter f;
    cr_assert_eq(sbbf_init(&f, bytes, err, sizeof err), 0);
    const filter_ops ops = filter_ops_portable(LAYOUT_SPLITBLOCK, SCHEME_IDEAL);
    key_batch batch;
    for (int t = 0; t < trials; t++) {
        filter_clear(&f);
        const scheme_ctx ctx = {NULL, 1000 + (uint64_t)t, 0};
        for (uint64_t i = 0; i < n; i += KEY_BATCH) {
            keyset_fill(ks, ctx.seed, n, KEY_PRESENT, i, (size_t)(n - i < KEY_BATCH ? n - i : KEY_BATCH), &batch);
            ops.insert(&f, &ctx, &batch);
        }
        mean += (F[t] = built_fpr(&f));
    }
    mean /= trials;
    double m2 = 0, m4 = 0;
    for (int t = 0; t < trials; t++) {
        double d = F[t] - mean;
        m2 += d * d;
        m4 += d * d * d * d;
    }
    m2 /= trials - 1;
    m4 /= trials;
    const double exact_mean = theory_fpr_splitblock(8 * bytes, n, 1), var = theory_fpr_var_splitblock(8 * bytes, n);
    const double se_mean = sqrt(m2 / trials), se_var = sqrt((m4 - m2 * m2) / trials);
    cr_assert_lt(fabs(mean - exact_mean), 5 * se_mean, "mean F %g, exact %g, se %g", mean, exact_mean, se_mean);
    cr_assert_lt(fabs(m2 - var), 5 * se_var, "var F %g, formula %g, se %g", m2, var, se_var);
    free(F);
    keyset_close(ks);
    filter_free(&f);
}

Test(parquet, built_filter_spread_is_the_formulas)
{
    check_spread(32, 20);   /* one block, 20 keys */
    check_spread(256, 100); /* eight blocks */
}
