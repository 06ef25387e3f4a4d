/* helpers.h -- what several test files share: running the CLI, reading files. */
#ifndef BLOOMLAB_TEST_HELPERS_H
#define BLOOMLAB_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The known-answer vectors, inside the repository (tests/vectors/README.md
 * says where each came from); the tests run from the repository root. */
#define VECTORS_DIR "tests/vectors/"

/* The binary under test: $BLOOMLAB (the sanitizer build sets it) or bin/bloomlab. */
static inline const char *bloomlab_path(void)
{
    const char *p = getenv("BLOOMLAB");
    return p && *p ? p : "bin/bloomlab";
}

static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

typedef struct {
    int status; /* exit status, or 128 + signal */
    char *out;
    char *err;
} cli_result;

/* Run `bloomlab ARGS` through the shell (ARGS may redirect, set env ...). */
static inline cli_result run_cli(const char *args)
{
    char out_path[] = "/tmp/bloomlab-test-out-XXXXXX";
    char err_path[] = "/tmp/bloomlab-test-err-XXXXXX";
    int fo = mkstemp(out_path), fe = mkstemp(err_path);
    close(fo);
    close(fe);
    size_t len = strlen(args) + strlen(bloomlab_path()) + 2 * sizeof out_path + 32;
    char *cmd = malloc(len);
    snprintf(cmd, len, "%s %s >%s 2>%s </dev/null", bloomlab_path(), args, out_path, err_path);
    int raw = system(cmd);
    free(cmd);
    cli_result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    return r;
}

static inline void cli_free(cli_result *r)
{
    free(r->out);
    free(r->err);
}

static inline int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static inline int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* A fresh empty directory under /tmp; the caller removes it. */
static inline char *temp_dir(void)
{
    char *d = strdup("/tmp/bloomlab-test-dir-XXXXXX");
    return mkdtemp(d);
}

/* Write text to path, failing the test when it cannot. */
static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* Copy the CSV src to dst with its columns in reverse order, its '#' lines
 * as they are: whatever reads the columns by name reads dst as it reads
 * src, and whatever reads them by position does not.  For CSVs without a
 * quoted comma (awk splits on every comma), as the committed results are. */
static inline void reverse_columns(const char *src, const char *dst)
{
    char cmd[1600];
    snprintf(cmd, sizeof cmd,
             "awk -F, '/^#/ { print; next } { for (i = NF; i > 1; i--) printf \"%%s,\", $i; print $1 }' '%s' > '%s'", src,
             dst);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Remove a directory made by temp_dir(), and free its name. */
static inline void remove_tree(char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(dir);
}

/* Compile C source into a shared library at so_path (C11, the installed
 * headers of include/ on the path); fails the test when the compiler does. */
static inline void build_plugin(const char *so_path, const char *source)
{
    char c_path[800], cmd[1800];
    snprintf(c_path, sizeof c_path, "%s.c", so_path);
    write_text(c_path, source);
    snprintf(cmd, sizeof cmd, "cc -std=c11 -shared -fPIC -O1 -Iinclude -o '%s' '%s'", so_path, c_path);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    unlink(c_path);
}

/* BLOOMLAB_ISA set to level for a while (the vector level a test forces):
 * returns what it was, for isa_env_restore to put back (or unset). */
static inline char *isa_env_set(const char *level)
{
    const char *before = getenv("BLOOMLAB_ISA");
    char *saved = before != NULL ? strdup(before) : NULL;
    setenv("BLOOMLAB_ISA", level, 1);
    return saved;
}

static inline void isa_env_restore(char *saved)
{
    if (saved != NULL)
        setenv("BLOOMLAB_ISA", saved, 1);
    else
        unsetenv("BLOOMLAB_ISA");
    free(saved);
}

#endif
