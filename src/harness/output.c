/* output.c -- atomic result files; see output.h. */
#define _GNU_SOURCE
#include "harness/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* Room kept of a basename cut to fit NAME_MAX; the digest tells them apart. */
#define SIBLING_KEEP 64

char *output_sibling(const char *path, const char *prefix, const char *suffix)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    const char *base = path + dir_len;
    size_t base_len = strlen(base), size = strlen(path) + strlen(prefix) + strlen(suffix) + 32;
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    if (strlen(prefix) + base_len + strlen(suffix) <= NAME_MAX)
        snprintf(out, size, "%.*s%s%s%s", (int)dir_len, path, prefix, base, suffix);
    else
        snprintf(out, size, "%.*s%s%.*s~%016llx%s", (int)dir_len, path, prefix, SIBLING_KEEP, base,
                 (unsigned long long)XXH3_64bits(base, base_len), suffix);
    return out;
}

char *output_resolve(const char *path)
{
    char *current = strdup(path);
    for (int depth = 0; current != NULL && depth < 40; depth++) {
        struct stat st;
        if (lstat(current, &st) != 0 || !S_ISLNK(st.st_mode))
            return current;
        char target[PATH_MAX];
        ssize_t len = readlink(current, target, sizeof target - 1);
        if (len < 0)
            return current;
        target[len] = '\0';
        const char *slash = strrchr(current, '/');
        size_t dir_len = target[0] == '/' || slash == NULL ? 0 : (size_t)(slash - current + 1);
        char *next = malloc(dir_len + (size_t)len + 1);
        if (next != NULL)
            snprintf(next, dir_len + (size_t)len + 1, "%.*s%s", (int)dir_len, current, target);
        free(current);
        current = next;
    }
    return current; /* a loop of links: open() will say so */
}

int stdin_take_once(void)
{
    static int taken;
    if (taken)
        return 0;
    taken = 1;
    return 1;
}

int output_is_stdout(const char *path) { return path == NULL || strcmp(path, "-") == 0; }

int output_check(const char *path, char *why, size_t why_size)
{
    if (output_is_stdout(path))
        return 0;
    if (path[0] == '\0') {
        snprintf(why, why_size, "the output file name is empty");
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "%s is a directory", path);
        return -1;
    }
    const char *slash = strrchr(path, '/');
    char *dir = slash == NULL ? strdup(".") : strndup(path, slash == path ? 1 : (size_t)(slash - path));
    int ok = dir != NULL;
    int found = ok && stat(dir, &st) == 0, err = errno;
    if (ok && (!found || !S_ISDIR(st.st_mode))) {
        snprintf(why, why_size, "cannot write %s: %s: %s", path, dir, strerror(found ? ENOTDIR : err));
        ok = 0;
    } else if (ok && access(dir, W_OK) != 0) {
        snprintf(why, why_size, "cannot write %s: %s", path, strerror(errno));
        ok = 0;
    }
    free(dir);
    return ok ? 0 : -1;
}

int output_has_metadata(const char *path, const char *line)
{
    struct stat st;
    if (output_is_stdout(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* stdout holds no earlier result to compare: a run to it always runs */
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    const size_t want = strlen(line);
    char buf[4096];
    int found = 0;
    /* The metadata is the file's first lines, each starting with '#'. */
    while (!found && fgets(buf, sizeof buf, f) != NULL && buf[0] == '#') {
        size_t len = strlen(buf);
        if (len > 0 && buf[len - 1] == '\n')
            buf[--len] = '\0';
        found = len == want && memcmp(buf, line, want) == 0;
    }
    fclose(f);
    return found;
}

static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, text, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        text += w;
        len -= (size_t)w;
    }
    return 0;
}

static int write_through(const char *path, const char *data, size_t len, const char *cmd)
{
    int fd = open(path, O_WRONLY);
    int ok = fd >= 0 && write_all(fd, data, len) == 0;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok)
        fprintf(stderr, "bloomlab %s: cannot write %s: %s\n", cmd, path, strerror(saved));
    return ok ? 0 : -1;
}

/* The rename itself, on the file a link names (see output_resolve). */
static int replace_file(const char *path, const char *data, size_t len, int *saved)
{
    char suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    char *tmp = output_sibling(path, "", suffix);
    if (tmp == NULL) {
        *saved = ENOMEM;
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write_all(fd, data, len) == 0 && fsync(fd) == 0;
    *saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        *saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        *saved = errno;
    }
    if (!ok && fd >= 0)
        unlink(tmp);
    free(tmp);
    return ok ? 0 : -1;
}

int output_write_atomic(const char *path, const char *data, size_t len, const char *cmd)
{
    if (output_is_stdout(path)) {
        if (fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0)
            return 0;
        fprintf(stderr, "bloomlab %s: cannot write to standard output: %s\n", cmd, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return write_through(path, data, len, cmd); /* /dev/null, a FIFO: never renamed over */
    char *real = output_resolve(path);
    int saved = ENOMEM;
    int rc = real != NULL ? replace_file(real, data, len, &saved) : -1;
    free(real);
    if (rc != 0)
        fprintf(stderr, "bloomlab %s: cannot write %s: %s\n", cmd, path, strerror(saved));
    return rc;
}
