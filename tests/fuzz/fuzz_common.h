/* fuzz_common.h -- what the libFuzzer harnesses share: which inputs they
 * skip (those that would touch the machine rather than the parser) and a
 * crash with a message when an invariant of the parsers' contract breaks. */
#ifndef BLOOMLAB_FUZZ_COMMON_H
#define BLOOMLAB_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A plugin hash dlopens a file and a words:FILE key set reads one: the
 * fuzzer must not load /usr/lib/... libraries or read /dev/urandom, so
 * inputs that name either are skipped (their parsing is tested by hand);
 * so is the default word list, whose loading (0.1 s here) would slow the
 * fuzzer tenfold. */
static inline int fuzz_input_skipped(const char *text, size_t len)
{
    static const char *const refused[] = {"plugin", "words", "/dev", "/proc", "/sys"};
    for (size_t r = 0; r < sizeof refused / sizeof refused[0]; r++)
        if (memmem(text, len, refused[r], strlen(refused[r])) != NULL)
            return 1;
    return 0;
}

/* The parsers read files: the input written to one temporary file per
 * fuzzing process (/tmp/bloomlab-fuzz-PID.SUFFIX, removed at exit).  Its
 * path, or NULL when it cannot be written. */
static char fuzz_path[64];
static void fuzz_remove_file(void) { unlink(fuzz_path); }
static inline const char *fuzz_input_file(const void *data, size_t size, const char *suffix)
{
    if (fuzz_path[0] == '\0') {
        snprintf(fuzz_path, sizeof fuzz_path, "/tmp/bloomlab-fuzz-%ld.%s", (long)getpid(), suffix);
        atexit(fuzz_remove_file);
    }
    FILE *f = fopen(fuzz_path, "wb");
    if (f == NULL)
        return NULL;
    fwrite(data, 1, size, f);
    fclose(f);
    return fuzz_path;
}

#define FUZZ_ASSERT(cond, ...)                                                                      \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            fprintf(stderr, "invariant broken: %s: ", #cond);                                      \
            fprintf(stderr, __VA_ARGS__);                                                           \
            fputc('\n', stderr);                                                                    \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

#endif
