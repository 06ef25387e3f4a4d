/* test_pcg.c -- PCG32 and PCG64 against the reference vectors, value for value. */
#include <criterion/criterion.h>
#include <inttypes.h>

#include "helpers.h"
#include "base/pcg.h"

typedef struct {
    uint64_t initstate, initseq, index, bound, value;
    char call[16];
} vector_row;

static int read_rows(const char *path, vector_row *rows, int max)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char line[256];
    int n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f) && n < max) {
        vector_row *r = &rows[n];
        char bound[32] = "";
        /* initstate,initseq,call,index,bound,value with bound possibly empty */
        char *fields[6];
        char *p = line;
        for (int i = 0; i < 6; i++) {
            fields[i] = p;
            p = strchr(p, ',');
            if (p)
                *p++ = '\0';
            else
                break;
        }
        r->initstate = strtoull(fields[0], NULL, 10);
        r->initseq = strtoull(fields[1], NULL, 10);
        snprintf(r->call, sizeof r->call, "%s", fields[2]);
        r->index = strtoull(fields[3], NULL, 10);
        snprintf(bound, sizeof bound, "%s", fields[4]);
        r->bound = strtoull(bound, NULL, 10);
        r->value = strtoull(fields[5], NULL, 10);
        n++;
    }
    fclose(f);
    return n;
}

Test(pcg32, matches_reference_vectors)
{
    vector_row rows[512];
    int n = read_rows(VECTORS_DIR "pcg32.csv", rows, 512);
    cr_assert_geq(n, 90);
    for (int i = 0; i < n; i++) {
        pcg32_t rng;
        pcg32_seed(&rng, rows[i].initstate, rows[i].initseq);
        uint64_t got = 0;
        for (uint64_t j = 0; j <= rows[i].index; j++)
            got = strcmp(rows[i].call, "random") == 0 ? pcg32_next(&rng)
                                                      : pcg32_bounded(&rng, (uint32_t)rows[i].bound);
        cr_assert_eq(got, rows[i].value, "row %d (%s index %" PRIu64 "): got %" PRIu64 ", want %" PRIu64,
                     i + 2, rows[i].call, rows[i].index, got, rows[i].value);
    }
}

Test(pcg64, matches_reference_vectors)
{
    vector_row rows[512];
    int n = read_rows(VECTORS_DIR "pcg64.csv", rows, 512);
    cr_assert_geq(n, 100);
    for (int i = 0; i < n; i++) {
        pcg64_t rng;
        pcg64_seed(&rng, rows[i].initstate, rows[i].initseq);
        uint64_t got = 0;
        for (uint64_t j = 0; j <= rows[i].index; j++)
            got = strcmp(rows[i].call, "random") == 0 ? pcg64_next(&rng) : pcg64_bounded(&rng, rows[i].bound);
        cr_assert_eq(got, rows[i].value, "row %d: got %" PRIu64 ", want %" PRIu64, i + 2, got, rows[i].value);
    }
}

/* Lemire's bounded draw is exact: with bound 3 * 2^62 the three quarters of
 * the range must come out equally often (a plain multiply-shift would too,
 * but a modulo would not); chi-square with 2 degrees of freedom, 5 sigma. */
Test(pcg32, bounded64_is_uniform)
{
    pcg32_t rng;
    pcg32_seed(&rng, 7, 11);
    const uint64_t bound = 3ULL << 62;
    double count[3] = {0, 0, 0};
    const int draws = 300000;
    for (int i = 0; i < draws; i++) {
        uint64_t v = pcg32_bounded64(&rng, bound);
        cr_assert_lt(v, bound);
        count[v / (1ULL << 62)] += 1;
    }
    double chi2 = 0, expect = draws / 3.0;
    for (int i = 0; i < 3; i++)
        chi2 += (count[i] - expect) * (count[i] - expect) / expect;
    /* chi2(2) has mean 2, sd 2: 5 sigma is 12. */
    cr_assert_lt(chi2, 12.0, "chi2 = %f", chi2);
    cr_assert_eq(pcg32_bounded64(&rng, 1), 0);
}
