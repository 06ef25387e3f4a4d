/* output.c -- atomic result files; see output.h. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void output_sibling(const char *path, const char *prefix, const char *suffix, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path + 1) : 0;
    snprintf(out, size, "%.*s%s%s%s", (int)dir_len, path, prefix, path + dir_len, suffix);
}

int output_has_metadata(const char *path, const char *line)
{
    struct stat st;
    if (path == NULL || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
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

int output_write_atomic(const char *path, const char *data, size_t len, const char *cmd)
{
    if (path == NULL) {
        if (fwrite(data, 1, len, stdout) == len && fflush(stdout) == 0)
            return 0;
        fprintf(stderr, "bloomlab %s: cannot write to standard output: %s\n", cmd, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return write_through(path, data, len, cmd); /* /dev/null, a FIFO: never renamed over */
    char tmp[4200], suffix[32];
    snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
    output_sibling(path, "", suffix, tmp, sizeof tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write_all(fd, data, len) == 0 && fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        if (fd >= 0)
            unlink(tmp);
        fprintf(stderr, "bloomlab %s: cannot write %s: %s\n", cmd, path, strerror(saved));
        return -1;
    }
    return 0;
}
