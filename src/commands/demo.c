/* demo.c -- the course page's program (seeds/001): m = 64 bits in one
 * uint64_t, K = 3, one FNV-1a 32 hash per word, positions a, a + b, a + 2b
 * (mod 64) with a = h & 63 and b = ((h >> 6) & 63) | 1.  The positions are
 * schemes.h's course_position() with log2 m = 6, the same code the sweep
 * runs for scheme = course. */
#include "commands/demo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli.h"
#include "base/hashes.h"
#include "harness/keys.h"
#include "filter/schemes.h"

#define DEMO_K 3
#define DEMO_LOG2_M 6
#define DEMO_WORDS 20

static unsigned demo_position(uint32_t h, int i) { return (unsigned)course_position(h, (unsigned)i, DEMO_LOG2_M); }

static uint32_t demo_hash(const char *word) { return fnv1a32(word, strlen(word)); }

static void demo_add(uint64_t *bits, const char *word)
{
    uint32_t h = demo_hash(word);
    for (int i = 0; i < DEMO_K; i++)
        *bits |= (uint64_t)1 << demo_position(h, i);
}

static int demo_might_contain(uint64_t bits, const char *word)
{
    uint32_t h = demo_hash(word);
    for (int i = 0; i < DEMO_K; i++)
        if ((bits & ((uint64_t)1 << demo_position(h, i))) == 0)
            return 0;
    return 1;
}

demo_run demo_compute(int words)
{
    demo_run r = {0, words, 0, 0, 0};
    for (int i = 0; i < words; i++)
        demo_add(&r.bits, COURSE_PRESENT[i]);
    r.bits_set = __builtin_popcountll(r.bits);
    for (int i = 0; i < words; i++)
        r.missed += !demo_might_contain(r.bits, COURSE_PRESENT[i]);
    for (int i = 0; i < DEMO_WORDS; i++)
        r.maybe += demo_might_contain(r.bits, COURSE_ABSENT[i]);
    return r;
}

static void print_line(const demo_run *r)
{
    printf("%d words, %d of 64 bits set, %d missed, %d of 20 absent words say maybe\n", r->words,
           r->bits_set, r->missed, r->maybe);
}

static void print_trace(int words)
{
    uint64_t bits = 0;
    for (int i = 0; i < words; i++) {
        const char *w = COURSE_PRESENT[i];
        uint32_t h = demo_hash(w);
        demo_add(&bits, w);
        printf("add  %-8s fnv1a %10u  a = %2u  b = %2u  positions %2u %2u %2u\n", w, h, h & 63u,
               ((h >> 6) & 63u) | 1u, demo_position(h, 0), demo_position(h, 1), demo_position(h, 2));
    }
    printf("bits set (%d of 64):", __builtin_popcountll(bits));
    for (int b = 0; b < 64; b++)
        if ((bits >> b) & 1u)
            printf(" %d", b);
    printf("\n");
    for (int i = 0; i < DEMO_WORDS; i++) {
        const char *w = COURSE_ABSENT[i];
        uint32_t h = demo_hash(w);
        printf("test %-8s positions %2u %2u %2u  lit:", w, demo_position(h, 0), demo_position(h, 1),
               demo_position(h, 2));
        for (int j = 0; j < DEMO_K; j++)
            if ((bits >> demo_position(h, j)) & 1u)
                printf(" %u", demo_position(h, j));
        printf("  -> %s\n", demo_might_contain(bits, w) ? "probably" : "certainly not");
    }
}

static void print_table(void)
{
    printf("# command: bloomlab demo --table\n");
    printf("# source: the course page's 64-bit filter, K = 3, FNV-1a 32, positions a + i*b mod 64\n");
    printf("words,bits_set,missed,maybe,bits_set_expected,maybe_expected\n");
    for (int n = 1; n <= DEMO_WORDS; n++) {
        demo_run r = demo_compute(n);
        double fill = -expm1(-(double)DEMO_K * n / 64.0); /* 1 - e^(-kn/m) */
        printf("%d,%d,%d,%d,%.6f,%.6f\n", n, r.bits_set, r.missed, r.maybe, 64.0 * fill,
               20.0 * pow(fill, DEMO_K));
    }
}

static const char DEMO_USAGE[] =
    "usage: bloomlab demo [--words N] [--trace] [--table]\n"
    "\n"
    "The course page's Bloom filter: 64 bits in one uint64_t, K = 3, FNV-1a 32,\n"
    "positions a, a+b, a+2b mod 64.  Adds the first N of its 20 present words\n"
    "(default 8), tests them, then tests its 20 absent words.\n"
    "\n"
    "  --words N   add the first N present words, 1..20 (default 8)\n"
    "  --trace     show every word's hash, a, b and positions, and each test\n"
    "  --table     CSV for N = 1..20 with the formula's expectations beside\n";

int cmd_demo(int argc, char **argv)
{
    uint64_t words = 8;
    int trace = 0, table = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(DEMO_USAGE, stdout);
            return 0;
        } else if (strcmp(a, "--trace") == 0) {
            trace = 1;
        } else if (strcmp(a, "--table") == 0) {
            table = 1;
        } else if (strcmp(a, "--words") == 0 || strncmp(a, "--words=", 8) == 0) {
            const char *v = cli_flag_value(argc, argv, &i, "demo", "--words");
            if (v == NULL || cli_u64(v, 1, DEMO_WORDS, "demo", "--words", &words) != 0)
                return 2;
        } else {
            cli_error("demo", "unknown option '%s' (bloomlab demo --help)", a);
            return 2;
        }
    }
    if (table) {
        print_table();
        return 0;
    }
    if (trace)
        print_trace((int)words);
    demo_run r = demo_compute((int)words);
    print_line(&r);
    return 0;
}
