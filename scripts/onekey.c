/* onekey.c -- a library user's one-key call on the split block, taken
 * apart: where bloomlab_add and bloomlab_contains spend their time against
 * Boost.Bloom's per-key insert and may_contain, which a C++ caller's
 * compiler inlines into its loop (docs/PERFORMANCE.md).
 *
 *   make onekey [N=1e6] [ROUNDS=5]      (scripts/onekey.sh: pinned rounds,
 *                                       Boost's per-key calls between them)
 *
 * One round, n keys (argv[1]): each way below sets n random 8-byte keys, one
 * call a key, into a fresh split block filter of 256/24 bits a key (bench
 * --peers' 10.67), then asks QUERIES absent and QUERIES present keys:
 *
 *   library         bloomlab_add / bloomlab_contains: xxh3_64, the
 *                   library's hash; the call's checks and its jump to the
 *                   filter's one-key function (avx2.c's at the avx2 and
 *                   avx512 levels; BLOOMLAB_ISA=portable gives the
 *                   portable one here, the other ways staying AVX2's)
 *   call-xxh3_64    the function the library jumps to at the avx2 level
 *                   (avx2.c's avx2_splitblock_key8), called a key through
 *                   the table's pointer, as the library's jump goes: no
 *                   checks
 *   call-mulx64     the same with mulx64, Boost.Bloom's mix of an integer
 *   inline-xxh3_64  split_lone_key inlined in the caller's loop, as a header
 *                   library's call is
 *   inline-mulx64   the same with mulx64: Boost's per-key call, in our code
 *   inline-mulx64+32nop  the same with PAD_NOPS nops a key: the time of an
 *                   instruction that does nothing but take a place in the
 *                   core's window
 *
 * So library - call is what the API's checks and dispatch cost, call -
 * inline what a call boundary costs a key, and xxh3_64 - mulx64 what the
 * longer hash costs.
 *
 * WHY INSTRUCTIONS COST TIME HERE.  A key's block is a miss beyond L2, and
 * a one-key loop has no prefetch: the core overlaps the misses of as many
 * keys as its reorder window holds, since a key's instructions leave the
 * window only when its block has come.  With the window's W places, I
 * instructions a key and a miss of L ns, about W / I keys are in flight,
 * and a key takes about L I / W ns: every instruction of the call costs
 * L / W ns, whatever it does.  The nop way measures that cost: (its time -
 * inline-mulx64's) / PAD_NOPS, which onekey.sh prints.  An instruction that
 * also writes a register costs more (it holds a physical register as
 * well), so the nop's cost is the least one.  Where the blocks come from L2
 * or L3 the misses are short and the nops nearly free; and a key of several
 * lines (the standard layout's k) meets the misses the core can hold before
 * its window fills (docs/PERFORMANCE.md, session 41).
 *
 * Prints one line a way, "way insert absent present" in ns a key.  The
 * ways must agree (every present key found; the ways of one hash the same
 * count of absent keys answered yes, the library's filter hashed as the
 * xxh3_64 ways at BLOOMLAB_SEED), else it says so and exits 1.  Off x86 or
 * without AVX2 it says so and exits 0: the loops it times are AVX2's. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (base/clock.h) */
#include <stdio.h>
#include <stdlib.h>

#include "base/cpu.h"

#if BLOOMLAB_X86 && defined(__AVX2__) && defined(__BMI2__)
#include <string.h>

#include "base/clock.h"
#include "base/pcg.h"
#include "bloomlab/bloomlab.h"
#include "filter/avx2.h" /* avx2_splitblock_key8 */
#include "filter/split_ymm.h"

enum { QUERIES = 1000000, WAYS = 6 };
static const double BITS_PER_KEY = 256.0 / 24; /* bench --peers' split block at 10.67 */

/* What a way works on: the library's filter, or one of filter_init's (the
 * same allocation, huge pages for a large one) with its hash's constant. */
typedef struct {
    bloomlab_filter *library;
    filter f;
    uint64_t keyed;
} subject;

/* A way's loop over n keys, set or asked one at a time: returns how many
 * were answered yes (inserts: 0). */
typedef uint64_t run_fn(subject *s, const uint64_t *keys, size_t n);

static uint64_t library_adds(subject *s, const uint64_t *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bloomlab_add(s->library, &keys[i], 8);
    return 0;
}

static uint64_t library_asks(subject *s, const uint64_t *keys, size_t n)
{
    uint64_t yes = 0;
    for (size_t i = 0; i < n; i++)
        yes += (uint64_t)bloomlab_contains(s->library, &keys[i], 8);
    return yes;
}

/* The call ways: the library's own one-key functions at the avx2 level,
 * one call a key through avx2_splitblock_key8's pointers (a table of
 * another file, so the call stays indirect, as bloomlab_add's jump is). */
static inline uint64_t call_adds(keys8_hash hash, subject *s, const uint64_t *keys, size_t n)
{
    const filter_key8_calls *calls = &avx2_splitblock_key8[hash];
    for (size_t i = 0; i < n; i++)
        calls->insert(&s->f, (const unsigned char *)&keys[i], s->keyed);
    return 0;
}

static inline uint64_t call_asks(keys8_hash hash, subject *s, const uint64_t *keys, size_t n)
{
    const filter_key8_calls *calls = &avx2_splitblock_key8[hash];
    uint64_t yes = 0;
    for (size_t i = 0; i < n; i++)
        yes += (uint64_t)calls->query(&s->f, (const unsigned char *)&keys[i], s->keyed);
    return yes;
}

#define ONEKEY_CALLS(NAME, HASH)                                                                             \
    static uint64_t call_insert_##NAME(subject *s, const uint64_t *keys, size_t n)                           \
    {                                                                                                        \
        return call_adds(HASH, s, keys, n);                                                                  \
    }                                                                                                        \
    static uint64_t call_query_##NAME(subject *s, const uint64_t *keys, size_t n)                            \
    {                                                                                                        \
        return call_asks(HASH, s, keys, n);                                                                  \
    }
ONEKEY_CALLS(xxh3, KEYS8_XXH3_64)
ONEKEY_CALLS(mulx, KEYS8_MULX64)

/* The inline ways: the key's work in the loop, stamped per hash and
 * operation, PAD a statement before each key's work (NO_PAD: none). */
#define ONEKEY_INLINE(NAME, HASH, INSERT, PAD)                                                               \
    static __attribute__((noinline)) uint64_t NAME(subject *s, const uint64_t *keys, size_t n)              \
    {                                                                                                        \
        const __m256i salt = split_salt();                                                                   \
        uint64_t yes = 0;                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                                     \
            PAD;                                                                                             \
            yes += split_lone_key(HASH, s->f.words, s->f.blocks, s->keyed, salt,                             \
                                  (const unsigned char *)&keys[i], INSERT);                                  \
        }                                                                                                    \
        return yes;                                                                                          \
    }
#define NO_PAD ((void)0)
/* The nop way's nops a key: enough that, where the blocks are misses,
 * their time stands well above the rounds' spread (docs/PERFORMANCE.md). */
#define PAD_NOPS 32
#define PAD_STRING(x) #x
#define PAD_REPT(x) PAD_STRING(x)
#define NOP_PAD __asm__ volatile(".rept " PAD_REPT(PAD_NOPS) "\n\tnop\n\t.endr")
ONEKEY_INLINE(inline_insert_xxh3, KEYS8_XXH3_64, 1, NO_PAD)
ONEKEY_INLINE(inline_query_xxh3, KEYS8_XXH3_64, 0, NO_PAD)
ONEKEY_INLINE(inline_insert_mulx, KEYS8_MULX64, 1, NO_PAD)
ONEKEY_INLINE(inline_query_mulx, KEYS8_MULX64, 0, NO_PAD)
ONEKEY_INLINE(inline_insert_mulx_nops, KEYS8_MULX64, 1, NOP_PAD)
ONEKEY_INLINE(inline_query_mulx_nops, KEYS8_MULX64, 0, NOP_PAD)

typedef struct {
    const char *name;
    keys8_hash hash;
    int library; /* on the library's filter (else filter_init's) */
    run_fn *insert, *query;
} way;

static const way WAYS_TIMED[WAYS] = {
    {"library", KEYS8_XXH3_64, 1, library_adds, library_asks},
    {"call-xxh3_64", KEYS8_XXH3_64, 0, call_insert_xxh3, call_query_xxh3},
    {"call-mulx64", KEYS8_MULX64, 0, call_insert_mulx, call_query_mulx},
    {"inline-xxh3_64", KEYS8_XXH3_64, 0, inline_insert_xxh3, inline_query_xxh3},
    {"inline-mulx64", KEYS8_MULX64, 0, inline_insert_mulx, inline_query_mulx},
    {"inline-mulx64+" PAD_REPT(PAD_NOPS) "nop", KEYS8_MULX64, 0, inline_insert_mulx_nops, inline_query_mulx_nops},
};

typedef struct {
    double ns[3];    /* insert, absent, present: ns a key */
    uint64_t yes[2]; /* absent, present answered yes */
} way_result;

static int subject_make(const way *w, uint64_t m, subject *s)
{
    char err[256];
    s->keyed = keys8_constant(w->hash, BLOOMLAB_SEED);
    if (w->library) {
        s->library = bloomlab_create_mk("splitblock", m, 8, err, sizeof err);
        if (s->library == NULL)
            fprintf(stderr, "onekey: %s\n", err);
        return s->library != NULL ? 0 : -1;
    }
    if (filter_init(&s->f, LAYOUT_SPLITBLOCK, m, 8) == 0)
        return 0;
    fprintf(stderr, "onekey: no memory for a filter of %llu bits\n", (unsigned long long)m);
    return -1;
}

static void subject_free(const way *w, subject *s)
{
    if (w->library)
        bloomlab_free(s->library);
    else
        filter_free(&s->f);
}

/* One way on a fresh filter: n keys set, QUERIES absent and up to QUERIES
 * present keys asked, each timed. */
static int time_way(const way *w, uint64_t m, const uint64_t *keys, size_t n, const uint64_t *absent,
                    way_result *out)
{
    const size_t present_n = n < QUERIES ? n : QUERIES;
    subject s;
    if (subject_make(w, m, &s) != 0)
        return -1;
    double t[4];
    t[0] = now_seconds();
    w->insert(&s, keys, n);
    t[1] = now_seconds();
    out->yes[0] = w->query(&s, absent, QUERIES);
    t[2] = now_seconds();
    out->yes[1] = w->query(&s, keys, present_n);
    t[3] = now_seconds();
    subject_free(w, &s);
    out->ns[0] = (t[1] - t[0]) * 1e9 / (double)n;
    out->ns[1] = (t[2] - t[1]) * 1e9 / QUERIES;
    out->ns[2] = (t[3] - t[2]) * 1e9 / (double)present_n;
    return 0;
}

/* Every present key found, and each hash's ways the same absent count. */
static int ways_agree(const way_result *r, size_t present_n)
{
    int ok = 1;
    for (int i = 0; i < WAYS; i++) {
        if (r[i].yes[1] != present_n) {
            fprintf(stderr, "onekey: %s found %llu of %zu present keys\n", WAYS_TIMED[i].name,
                    (unsigned long long)r[i].yes[1], present_n);
            ok = 0;
        }
        for (int j = 0; j < i; j++)
            if (WAYS_TIMED[j].hash == WAYS_TIMED[i].hash && r[j].yes[0] != r[i].yes[0]) {
                fprintf(stderr, "onekey: %s and %s answered %llu and %llu absent keys yes\n", WAYS_TIMED[j].name,
                        WAYS_TIMED[i].name, (unsigned long long)r[j].yes[0], (unsigned long long)r[i].yes[0]);
                ok = 0;
            }
    }
    return ok;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    const double n_asked = argc == 2 ? strtod(argv[1], &end) : 0;
    if (argc != 2 || end == argv[1] || *end != '\0' || !(n_asked >= 1 && n_asked <= 1e9)) {
        fprintf(stderr, "usage: onekey N   (keys, 1 to 1e9: one round of the one-key ways; scripts/onekey.sh)\n");
        return 2;
    }
    if (cpu_isa_supported() < ISA_AVX2) {
        printf("onekey: this CPU has no AVX2, whose one-key loops it times: skipped\n");
        return 0;
    }
    const size_t n = (size_t)n_asked;
    const uint64_t m = layout_fit_m(LAYOUT_SPLITBLOCK, (uint64_t)(n_asked * BITS_PER_KEY + 0.5));
    uint64_t *keys = malloc(n * sizeof *keys), *absent = malloc(QUERIES * sizeof *absent);
    if (keys == NULL || absent == NULL) {
        fprintf(stderr, "onekey: no memory for %zu keys\n", n);
        return 1;
    }
    pcg32_t rng;
    pcg32_seed(&rng, 1, 1);
    for (size_t i = 0; i < n; i++)
        keys[i] = pcg32_next64(&rng);
    pcg32_seed(&rng, 1, 2);
    for (size_t i = 0; i < QUERIES; i++)
        absent[i] = pcg32_next64(&rng);
    way_result r[WAYS];
    for (int i = 0; i < WAYS; i++)
        if (time_way(&WAYS_TIMED[i], m, keys, n, absent, &r[i]) != 0)
            return 1;
    for (int i = 0; i < WAYS; i++)
        printf("%s %.3f %.3f %.3f\n", WAYS_TIMED[i].name, r[i].ns[0], r[i].ns[1], r[i].ns[2]);
    free(keys);
    free(absent);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("onekey: stdout");
        return 1;
    }
    return ways_agree(r, n < QUERIES ? n : QUERIES) ? 0 : 1;
}

#else

int main(void)
{
    printf("onekey: times the AVX2 one-key loops, which this build has not (x86 with -mavx2 -mbmi2): skipped\n");
    return 0;
}

#endif
