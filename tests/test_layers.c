/* test_layers.c -- the source tree's layers (scripts/layers.sh): every
 * include of the tree points down, and the check fails when one does not;
 * and every file the tree's text names exists (scripts/paths.sh). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "helpers.h"

/* Run scripts/SCRIPT on DIR; its exit status, and its output in out. */
static int script_on(const char *script, const char *dir, char *out, size_t size)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sh scripts/%s '%s' 2>&1", script, dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t len = fread(out, 1, size - 1, p);
    out[len] = '\0';
    int raw = pclose(p);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128;
}

static int layers_on(const char *dir, char *out, size_t size) { return script_on("layers.sh", dir, out, size); }

/* A tree of LAYER/NAME files, each with the given text. */
static char *tree_of(const char *const *paths, const char *const *texts, size_t count)
{
    char *dir = temp_dir();
    for (size_t i = 0; i < count; i++) {
        char path[512], cmd[600];
        snprintf(path, sizeof path, "%s/%s", dir, paths[i]);
        snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
        cr_assert_eq(system(cmd), 0);
        write_text(path, texts[i]);
    }
    return dir;
}

Test(layers, the_tree_points_down)
{
    char out[8192];
    int rc = layers_on("src", out, sizeof out);
    cr_expect_eq(rc, 0, "scripts/layers.sh src: %s", out);
    cr_expect_str_empty(out);
}

Test(layers, an_upward_include_fails_and_is_named)
{
    const char *paths[] = {"filter/f.c", "harness/keys.h", "base/b.h"};
    const char *texts[] = {"#include \"base/b.h\"\n#include \"harness/keys.h\"\n", "", ""};
    char *dir = tree_of(paths, texts, 3);
    char out[8192];
    cr_expect_eq(layers_on(dir, out, sizeof out), 1);
    cr_expect_not_null(strstr(out, "filter/f.c (filter) includes \"harness/keys.h\""), "%s", out);
    cr_expect_eq(count_lines(out), 1, "%s", out); /* base/b.h is allowed */
    remove_tree(dir);
}

Test(layers, the_library_may_not_reach_the_harness)
{
    const char *paths[] = {"api/library.c"};
    const char *texts[] = {"#include \"model/model.h\"\n#include \"harness/output.h\"\n"};
    char *dir = tree_of(paths, texts, 1);
    char out[8192];
    cr_expect_eq(layers_on(dir, out, sizeof out), 1);
    cr_expect_not_null(strstr(out, "api/library.c (api) includes \"harness/output.h\""), "%s", out);
    remove_tree(dir);
}

Test(layers, bare_names_and_stray_files_fail)
{
    const char *paths[] = {"model/m.c", "loose.c", "misc/x.c"};
    const char *texts[] = {"#include \"theory.h\"\n", "", ""};
    char *dir = tree_of(paths, texts, 3);
    char out[8192];
    cr_expect_eq(layers_on(dir, out, sizeof out), 1);
    cr_expect_not_null(strstr(out, "includes \"theory.h\": name its layer"), "%s", out);
    cr_expect_not_null(strstr(out, "loose.c is outside every layer"), "%s", out);
    cr_expect_not_null(strstr(out, "misc/ is not a layer"), "%s", out);
    remove_tree(dir);
}

Test(paths, every_file_the_tree_names_exists)
{
    char out[8192];
    int rc = script_on("paths.sh", ".", out, sizeof out);
    cr_expect_eq(rc, 0, "scripts/paths.sh: %s", out);
    cr_expect_str_empty(out);
}

/* A moved header named in a comment and an experiment file is named, once
 * a file; placeholders in capitals, a URL's path and the dated log are not.
 * (The fixture's paths are split literals, "src" "/x.h", so that this
 * file's own text names none of them.) */
Test(paths, a_missing_file_is_named)
{
    const char *paths[] = {"src" "/filter/a.c", "experiments" "/e.ini", "README.md", "docs/PERFORMANCE.md",
                           "src" "/filter/b.h"};
    const char *texts[] = {"/* see src" "/filter/b.h and src" "/gone.h, src" "/gone.h again */\n",
                           "; sized by src" "/sizing.h\n",
                           "run experiments" "/NAME.ini; arrow's cpp/src" "/parquet/bloom_filter.h\n",
                           "in src" "/avx2.c that day\n", ""};
    char *dir = tree_of(paths, texts, 5);
    char out[8192];
    cr_expect_eq(script_on("paths.sh", dir, out, sizeof out), 1);
    cr_expect_not_null(strstr(out, "src" "/filter/a.c names src" "/gone.h, which does not exist"), "%s", out);
    cr_expect_not_null(strstr(out, "experiments" "/e.ini names src" "/sizing.h, which does not exist"), "%s", out);
    cr_expect_eq(count_lines(out), 2, "%s", out);
    remove_tree(dir);
}
