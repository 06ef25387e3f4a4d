/* helpers_cases.h -- the red-team corpus's shape (issue 24): every case is
 * an input, the exit status, a pattern its one line of stderr holds, and
 * the check that no file in its directory was created, changed or removed. */
#ifndef BLOOMLAB_TEST_HELPERS_CASES_H
#define BLOOMLAB_TEST_HELPERS_CASES_H

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>

#include "helpers.h"

/* Every entry of dir (dot files too) with its size, mtime and inode, one
 * line each, sorted: two listings are equal when nothing was touched. */
static inline char *dir_snapshot(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cd '%s' && find . -mindepth 1 -printf '%%p %%s %%T@ %%i %%y\\n' | sort", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, used = 0, got;
    char *out = malloc(cap);
    while ((got = fread(out + used, 1, cap - used - 1, p)) > 0)
        if ((used += got) == cap - 1)
            out = realloc(out, cap *= 2);
    out[used] = '\0';
    pclose(p);
    return out;
}

/* Run `bloomlab ARGS` (run_cli: from the repository root) and check the
 * case: status, one line of stderr holding `pattern`, dir untouched. */
static inline void expect_case(const char *dir, const char *args, int status, const char *pattern)
{
    char *before = dir_snapshot(dir);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, status, "bloomlab %s: status %d, want %d: %s", args, r.status, status, r.err);
    cr_assert_eq(count_lines(r.err), 1, "bloomlab %s: not one line:\n%s", args, r.err);
    cr_assert(strstr(r.err, pattern) != NULL, "bloomlab %s: no '%s' in: %s", args, pattern, r.err);
    char *after = dir_snapshot(dir);
    cr_assert_str_eq(after, before, "bloomlab %s touched files in %s", args, dir);
    free(before);
    free(after);
    cli_free(&r);
}

/* Run a shell command line in dir; its exit status. */
static inline int shell_in(const char *dir, const char *command)
{
    size_t len = strlen(dir) + strlen(command) + 32;
    char *line = malloc(len);
    snprintf(line, len, "cd '%s' && %s", dir, command);
    int raw = system(line);
    free(line);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

/* The binary as an absolute path, for commands run from another directory. */
static inline const char *bloomlab_abs(void)
{
    static char path[4096];
    if (path[0] == '\0') {
        const char *p = bloomlab_path();
        if (p[0] == '/')
            snprintf(path, sizeof path, "%s", p);
        else {
            char cwd[3000];
            cr_assert_not_null(getcwd(cwd, sizeof cwd));
            snprintf(path, sizeof path, "%s/%s", cwd, p);
        }
    }
    return path;
}

/* The value of the metadata line `# key: value` of a CSV text (malloc'd,
 * "" when absent). */
static inline char *meta_value(const char *csv, const char *key)
{
    char want[128];
    snprintf(want, sizeof want, "# %s: ", key);
    for (const char *line = csv; line && *line == '#'; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, want, strlen(want)) == 0) {
            const char *v = line + strlen(want);
            return strndup(v, strcspn(v, "\n"));
        }
    return strdup("");
}

#endif
