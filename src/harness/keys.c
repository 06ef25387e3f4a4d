/* keys.c -- key sets; see keys.h for what each one is and why the present
 * and absent sides can never meet. */
#include "harness/keys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "harness/output.h"
#include "base/pcg.h"

#define DEFAULT_WORDS "/usr/share/dict/words"

const char *const COURSE_PRESENT[20] = {
    "filter", "sample", "window", "phase", "gain",  "delay",  "noise", "pulse",  "chirp", "tone",
    "echo",   "carrier", "band",  "notch", "ripple", "decay", "spike", "drift", "bias",  "clock"};
const char *const COURSE_ABSENT[20] = {
    "apple", "river", "stone", "cloud", "tiger", "piano", "lemon", "bread", "chair", "glass",
    "plant", "rope",  "sand",  "wheel", "coin",  "hill",  "mask",  "nest",  "ink",   "fog"};

typedef enum { KS_RANDOM64, KS_SEQ64, KS_URLS, KS_WORDS, KS_COURSE } keyset_kind;

struct keyset {
    keyset_kind kind;
    char spec[512];
    char *text;            /* words: the file's bytes, lines NUL-terminated */
    XXH128_hash_t digest;  /* words: XXH3-128 of the bytes as read */
    const char **words;    /* words: distinct, sorted */
    uint32_t *word_len;
    uint64_t word_count;
};

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The words file's bytes; "-" is standard input (read once: refused when
 * the experiment itself came from stdin). */
static char *read_file(const char *path, size_t *size, char *err, size_t err_size)
{
    const int from_stdin = strcmp(path, "-") == 0;
    if (from_stdin && !stdin_take_once()) {
        snprintf(err, err_size, "keys 'words:-': standard input is read once and the experiment came from it "
                                "(run -): give the words as a file");
        return NULL;
    }
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "keys 'words:%s': cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20, used = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf != NULL && (got = fread(buf + used, 1, cap - used, f)) > 0) {
        used += got;
        if (used == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    if (!from_stdin)
        fclose(f);
    if (buf == NULL || failed) {
        free(buf);
        snprintf(err, err_size, "keys 'words:%s': cannot read the file", path);
        return NULL;
    }
    buf[used] = '\0';
    *size = used;
    return buf;
}

static int load_words(keyset *ks, const char *path, char *err, size_t err_size)
{
    size_t size;
    ks->text = read_file(path, &size, err, err_size);
    if (ks->text == NULL)
        return -1;
    ks->digest = XXH3_128bits(ks->text, size); /* before the lines are cut */
    if (memchr(ks->text, '\0', size) != NULL) {
        snprintf(err, err_size, "keys 'words:%s': not a text file (it has NUL bytes)", path);
        return -1;
    }
    uint64_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += ks->text[i] == '\n';
    ks->words = malloc(lines * sizeof *ks->words);
    ks->word_len = malloc(lines * sizeof *ks->word_len);
    if (ks->words == NULL || ks->word_len == NULL) {
        snprintf(err, err_size, "keys 'words:%s': out of memory", path);
        return -1;
    }
    uint64_t count = 0, line = 0;
    for (char *p = ks->text; *p != '\0' || p == ks->text;) {
        line++;
        char *end = strchr(p, '\n');
        char *next = end ? end + 1 : p + strlen(p);
        if (end == NULL)
            end = p + strlen(p);
        if (end > p && end[-1] == '\r')
            end--;
        *end = '\0';
        size_t len = (size_t)(end - p);
        if (len >= KEY_MAX) {
            snprintf(err, err_size, "keys 'words:%s': line %llu is longer than %d bytes", path,
                     (unsigned long long)line, KEY_MAX - 1);
            return -1;
        }
        if (len > 0)
            ks->words[count++] = p;
        if (*next == '\0')
            break;
        p = next;
    }
    qsort(ks->words, count, sizeof *ks->words, compare_strings);
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < count; i++)
        if (distinct == 0 || strcmp(ks->words[distinct - 1], ks->words[i]) != 0)
            ks->words[distinct++] = ks->words[i];
    for (uint64_t i = 0; i < distinct; i++)
        ks->word_len[i] = (uint32_t)strlen(ks->words[i]);
    ks->word_count = distinct;
    if (distinct < 2) {
        snprintf(err, err_size, "keys 'words:%s': needs at least 2 distinct words, has %llu", path,
                 (unsigned long long)distinct);
        return -1;
    }
    return 0;
}

keyset *keyset_open(const char *spec, char *err, size_t err_size)
{
    keyset *ks = calloc(1, sizeof *ks);
    if (ks == NULL) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    if (strlen(spec) >= sizeof ks->spec) {
        /* cut, the spec would name another file than the one read */
        snprintf(err, err_size, "keys '%.60s...' is longer than %zu characters", spec, sizeof ks->spec - 1);
        keyset_close(ks);
        return NULL;
    }
    snprintf(ks->spec, sizeof ks->spec, "%s", spec);
    if (strcmp(spec, "random64") == 0)
        ks->kind = KS_RANDOM64;
    else if (strcmp(spec, "seq64") == 0)
        ks->kind = KS_SEQ64;
    else if (strcmp(spec, "urls") == 0)
        ks->kind = KS_URLS;
    else if (strcmp(spec, "course") == 0)
        ks->kind = KS_COURSE;
    else if (strcmp(spec, "words") == 0 || strncmp(spec, "words:", 6) == 0) {
        ks->kind = KS_WORDS;
        const char *path = spec[5] == ':' ? spec + 6 : DEFAULT_WORDS;
        if (*path == '\0') {
            snprintf(err, err_size, "keys '%s': words:FILE needs a file name", spec);
            keyset_close(ks);
            return NULL;
        }
        if (load_words(ks, path, err, err_size) != 0) {
            keyset_close(ks);
            return NULL;
        }
    } else {
        snprintf(err, err_size,
                 "unknown keys '%s' (random64, seq64, urls, words, words:FILE, course)", spec);
        keyset_close(ks);
        return NULL;
    }
    return ks;
}

void keyset_close(keyset *ks)
{
    if (ks == NULL)
        return;
    free(ks->text);
    free(ks->words);
    free(ks->word_len);
    free(ks);
}

const char *keyset_spec(const keyset *ks) { return ks->spec; }

const char *keyset_file(const keyset *ks)
{
    if (ks->kind != KS_WORDS)
        return NULL;
    return ks->spec[5] == ':' ? ks->spec + 6 : DEFAULT_WORDS;
}

int keyset_digest(const keyset *ks, uint64_t digest[2])
{
    if (ks->kind != KS_WORDS)
        return -1;
    digest[0] = ks->digest.low64;
    digest[1] = ks->digest.high64;
    return 0;
}

uint64_t keyset_size(const keyset *ks)
{
    switch (ks->kind) {
    case KS_WORDS:
        return ks->word_count;
    case KS_COURSE:
        return 40;
    default:
        return UINT64_MAX;
    }
}

int keyset_check(const keyset *ks, uint64_t n, uint64_t queries, char *err, size_t err_size)
{
    if (ks->kind == KS_COURSE && (n > 20 || queries > 20)) {
        snprintf(err, err_size, "keys 'course' has 20 present and 20 absent words: n = %llu, queries = %llu",
                 (unsigned long long)n, (unsigned long long)queries);
        return -1;
    }
    if (ks->kind == KS_WORDS && (n > ks->word_count || queries > ks->word_count - n)) {
        snprintf(err, err_size, "keys '%s' has %llu words: n = %llu plus queries = %llu do not fit",
                 ks->spec, (unsigned long long)ks->word_count, (unsigned long long)n,
                 (unsigned long long)queries);
        return -1;
    }
    if (ks->kind == KS_SEQ64 && (n > (1ULL << 63) || queries > (1ULL << 63))) {
        snprintf(err, err_size, "keys 'seq64': n and queries must be at most 2^63");
        return -1;
    }
    return 0;
}

/* A seeded permutation of [0, domain) by cycle-walking a 4-round Feistel
 * network on the smallest even number of bits that covers the domain. */
static uint64_t permute_index(uint64_t x, uint64_t domain, uint64_t key)
{
    unsigned half = 1;
    while (half < 32 && (1ULL << (2 * half)) < domain)
        half++;
    uint64_t mask = (1ULL << half) - 1;
    do {
        uint64_t left = x >> half, right = x & mask;
        for (uint64_t round = 0; round < 4; round++) {
            uint64_t f = mix64(right ^ seed_derive(key, round)) & mask;
            uint64_t next = left ^ f;
            left = right;
            right = next;
        }
        x = (left << half) | right;
    } while (x >= domain);
    return x;
}

/* v as 8 little-endian bytes: one store (a byte loop here cost 24
 * instructions a key, more than the rest of keyset_fill). */
static inline void put_le64(unsigned char *out, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(out, &v, 8);
}

static const char *const URL_HOSTS[] = {
    "www.wikipedia.org", "news.example.com", "www.github.com",    "shop.example.net",
    "blog.example.org",  "www.reddit.com",   "docs.python.org",   "www.bbc.co.uk",
    "forum.example.de",  "www.nytimes.com",  "maps.example.com",  "cdn.example.net",
    "www.amazon.com",    "m.example.org",    "api.example.io",    "www.youtube.com"};
static const char *const URL_SYLLABLES[] = {"ka", "lo", "mi", "ne", "ru", "sa", "te", "vo",
                                            "bri", "dan", "fel", "gor", "hal", "jun", "kor", "lin"};
static const char *const URL_TLDS[] = {".com", ".org", ".net", ".de", ".io", ".co.uk", ".fr", ".info"};
static const char *const URL_SEGMENTS[] = {
    "news",  "article", "2023",   "2024",   "product", "category", "blog",  "wiki",
    "user",  "tags",    "search", "images", "video",   "docs",     "en",    "static",
    "world", "sport",   "tech",   "items",  "page",    "archive",  "help",  "forum",
    "topic", "post",    "review", "story",  "detail",  "catalog",  "media", "events"};
static const char *const URL_SUFFIXES[] = {".html", "", "/", ".php"};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static size_t append(unsigned char *out, size_t at, const char *s)
{
    size_t len = strlen(s);
    memcpy(out + at, s, len);
    return at + len;
}

/* A URL for index x.  `token` (a bijection of x) ends the URL, between the
 * last '-' and a non-alphanumeric suffix, so distinct x give distinct URLs. */
static size_t make_url(uint64_t token, unsigned char *out)
{
    uint64_t bits = mix64(token ^ 0x5bd1e9955bd1e995ULL);
    size_t at = append(out, 0, (bits & 3) ? "https://" : "http://");
    bits >>= 2;
    if ((bits & 3) != 0) { /* three in four: a popular host, the first ones likelier */
        bits >>= 2;
        unsigned a = bits & 15, b = (bits >> 4) & 15;
        at = append(out, at, URL_HOSTS[a < b ? a : b]);
        bits >>= 8;
    } else {
        bits >>= 2;
        at = append(out, at, "www.");
        unsigned syllables = 2 + (bits & 3);
        bits >>= 2;
        for (unsigned i = 0; i < syllables; i++, bits >>= 4)
            at = append(out, at, URL_SYLLABLES[bits & 15]);
        at = append(out, at, URL_TLDS[bits & 7]);
        bits >>= 3;
    }
    uint64_t more = mix64(bits ^ token);
    unsigned segments = 1 + (more % 3);
    more /= 3;
    for (unsigned i = 0; i < segments; i++, more >>= 5) {
        out[at++] = '/';
        at = append(out, at, URL_SEGMENTS[more & 31]);
    }
    out[at++] = '/';
    at = append(out, at, URL_SEGMENTS[more & 31]);
    out[at++] = '-';
    char digits[14];
    for (int i = 12; i >= 0; i--, token /= 36)
        digits[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[token % 36];
    digits[13] = '\0';
    at = append(out, at, digits);
    return append(out, at, URL_SUFFIXES[(more >> 5) & 3]);
}

void keyset_fill(const keyset *ks, uint64_t trial_seed, uint64_t n, key_side side,
                 uint64_t first, size_t count, key_batch *out)
{
    uint64_t offset = mix64(trial_seed);
    out->count = count;
    out->packed8 = ks->kind == KS_RANDOM64 || ks->kind == KS_SEQ64;
    if (ks->kind == KS_RANDOM64) { /* the hot one: a single pass */
        for (size_t i = 0; i < count; i++) {
            uint64_t id = 2 * (first + i) + (uint64_t)side;
            out->id[i] = id;
            put_le64(out->packed[i], mix64(id + offset));
            out->ptr[i] = out->packed[i];
            out->len[i] = 8;
        }
        return;
    }
    for (size_t i = 0; i < count; i++)
        out->id[i] = 2 * (first + i) + (uint64_t)side;
    /* one loop per kind: the switch stays out of the per-key work */
    switch (ks->kind) {
    case KS_RANDOM64:
        break;
    case KS_SEQ64:
        for (size_t i = 0; i < count; i++) {
            put_le64(out->packed[i], (side == KEY_PRESENT ? 0 : 1ULL << 63) + first + i);
            out->ptr[i] = out->packed[i];
            out->len[i] = 8;
        }
        break;
    case KS_URLS:
        for (size_t i = 0; i < count; i++) {
            out->len[i] = (uint32_t)make_url(mix64(out->id[i] + offset), out->store[i]);
            out->ptr[i] = out->store[i];
        }
        break;
    case KS_COURSE:
        for (size_t i = 0; i < count; i++) {
            const char *w = side == KEY_PRESENT ? COURSE_PRESENT[first + i] : COURSE_ABSENT[first + i];
            out->ptr[i] = (const unsigned char *)w;
            out->len[i] = (uint32_t)strlen(w);
        }
        break;
    case KS_WORDS:
        /* absent words follow the n present ones in the permuted order */
        for (size_t i = 0; i < count; i++) {
            uint64_t place = (side == KEY_PRESENT ? 0 : n) + first + i;
            uint64_t w = permute_index(place, ks->word_count, trial_seed);
            out->ptr[i] = (const unsigned char *)ks->words[w];
            out->len[i] = ks->word_len[w];
            out->id[i] = w;
        }
        break;
    }
}

uint64_t keyset_fill_chunk(const keyset *ks, uint64_t trial_seed, uint64_t n, key_side side, uint64_t first,
                           uint64_t end, key_batch *b, size_t max_batches, size_t *made)
{
    size_t c = 0;
    uint64_t i = first;
    for (; c < max_batches && i < end; c++, i += KEY_BATCH)
        keyset_fill(ks, trial_seed, n, side, i, (size_t)(end - i < KEY_BATCH ? end - i : KEY_BATCH), &b[c]);
    *made = c;
    return i < end ? i : end;
}
