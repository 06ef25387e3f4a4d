/* test_install.c -- `make install` and `make uninstall`, GNU style, into a
 * temporary DESTDIR: exactly the listed files, a manual in step with every
 * command's --help, the plugin headers (hash, filter) and the library usable through
 * pkg-config (examples/embed.c built against the installed library, shared
 * and static, and run), and nothing left after uninstall. */
#include <criterion/criterion.h>

#include "helpers.h"

/* make TARGET with DESTDIR and PREFIX=/usr, outside the enclosing make's
 * jobserver; its status.  The binary under test is taken as it is (-o): a
 * make of other flags than the tests' would rebuild and relink it while the
 * other tests run it. */
static int make_in(const char *target, const char *destdir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -o bin/bloomlab -o build/flags "
             "%s DESTDIR=%s PREFIX=/usr >/dev/null 2>&1",
             target, destdir);
    return system(cmd);
}

/* The files and symbolic links under dir, sorted, one per line, relative
 * to dir. */
static char *files_under(const char *dir)
{
    char cmd[800], out[700];
    snprintf(out, sizeof out, "%s.list", dir);
    snprintf(cmd, sizeof cmd, "cd %s && find . ! -type d | LC_ALL=C sort > %s", dir, out);
    cr_assert_eq(system(cmd), 0);
    char *text = slurp(out);
    unlink(out);
    return text;
}

/* Run cmd through the shell; its status, and its standard output in *out. */
static int run_capturing(const char *cmd, char **out)
{
    char out_path[] = "/tmp/bloomlab-test-embed-XXXXXX";
    close(mkstemp(out_path));
    size_t len = strlen(cmd) + sizeof out_path + 8;
    char *full = malloc(len);
    cr_assert_not_null(full);
    snprintf(full, len, "%s > %s", cmd, out_path);
    int status = system(full);
    free(full);
    *out = slurp(out_path);
    unlink(out_path);
    return status;
}

/* examples/embed.c built as a user would, with nothing but the installed
 * tree and pkg-config: shared (run with the installed directory on the
 * library path) and static (--static: libbloomlab.a and Libs.private). */
static void check_installed_library(const char *dir)
{
    char link[800], target[64] = "";
    snprintf(link, sizeof link, "%s/usr/lib/libbloomlab.so", dir);
    cr_expect_gt(readlink(link, target, sizeof target - 1), 0, "libbloomlab.so is not a symbolic link");
    cr_expect_str_eq(target, "libbloomlab.so.0");
    static const struct {
        const char *name, *pkg_flags, *cc_flags;
        int shared;
    } BUILDS[] = {{"shared", "", "", 1}, {"static", "--static", "-static", 0}};
    for (size_t b = 0; b < 2; b++) {
        char pkg[1000], cmd[3000], *out;
        snprintf(pkg, sizeof pkg, "PKG_CONFIG_SYSROOT_DIR=%s PKG_CONFIG_PATH=%s/usr/lib/pkgconfig pkg-config %s", dir,
                 dir, BUILDS[b].pkg_flags);
        snprintf(cmd, sizeof cmd,
                 "cc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror %s $(%s --cflags bloomlab) -o %s/embed "
                 "examples/embed.c $(%s --libs bloomlab) 2>&1",
                 BUILDS[b].cc_flags, pkg, dir, pkg);
        cr_assert_eq(run_capturing(cmd, &out), 0, "%s build: %s\n%s", BUILDS[b].name, cmd, out);
        free(out);
        snprintf(cmd, sizeof cmd, "%s%s%s %s/embed", BUILDS[b].shared ? "LD_LIBRARY_PATH=" : "",
                 BUILDS[b].shared ? dir : "", BUILDS[b].shared ? "/usr/lib" : "", dir);
        cr_assert_eq(run_capturing(cmd, &out), 0, "%s: %s failed: %s", BUILDS[b].name, cmd, out);
        cr_expect_eq(count_lines(out), 1, "%s: %s", BUILDS[b].name, out);
        cr_expect(strncmp(out, "embed: standard n=100000 p=0.01: m=959298 bits", 46) == 0 &&
                      strstr(out, "0 false negatives") && strstr(out, "identical answers"),
                  "%s: %s", BUILDS[b].name, out);
        free(out);
        snprintf(cmd, sizeof cmd, "%s/embed", dir);
        unlink(cmd);
    }
}

Test(install, installs_exactly_its_files_and_uninstall_removes_them, .timeout = 300)
{
    char *dir = temp_dir();
    cr_assert_eq(make_in("install", dir), 0, "make install failed");
    char *files = files_under(dir);
    cr_assert_str_eq(files,
                     "./usr/bin/bloomlab\n"
                     "./usr/include/bloomlab/bloomlab.h\n"
                     "./usr/include/bloomlab/filter.h\n"
                     "./usr/include/bloomlab/plugin.h\n"
                     "./usr/lib/libbloomlab.a\n"
                     "./usr/lib/libbloomlab.so\n"
                     "./usr/lib/libbloomlab.so.0\n"
                     "./usr/lib/pkgconfig/bloomlab.pc\n"
                     "./usr/share/bash-completion/completions/bloomlab\n"
                     "./usr/share/bloomlab/check.gp\n"
                     "./usr/share/bloomlab/experiment_page.py\n"
                     "./usr/share/bloomlab/generic.gp\n"
                     "./usr/share/bloomlab/report.py\n"
                     "./usr/share/bloomlab/report_hashes.py\n"
                     "./usr/share/man/man1/bloomlab.1\n");
    free(files);

    /* the installed binary finds the installed report scripts (out of the
     * source tree: a copy of a CSV in DESTDIR, its page beside it) */
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "cp results/fpr_vs_k.csv %s/mine.csv && cd / && %s/usr/bin/bloomlab report %s/mine.csv "
                              ">/dev/null && test -s %s/mine.html && test -s %s/mine.md && rm %s/mine.*",
             dir, dir, dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "the installed bloomlab report: %s", cmd);

    /* the example plugin builds against the installed header alone */
    snprintf(cmd, sizeof cmd,
             "PKG_CONFIG_SYSROOT_DIR=%s PKG_CONFIG_PATH=%s/usr/lib/pkgconfig cc -std=c11 -Wall -Werror -shared -fPIC "
             "$(PKG_CONFIG_SYSROOT_DIR=%s PKG_CONFIG_PATH=%s/usr/lib/pkgconfig pkg-config --cflags bloomlab) "
             "-o %s/example.so examples/plugin_hash.c",
             dir, dir, dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "--version >/dev/null && %s/usr/bin/bloomlab sweep --n 100 --m 1000 --k 3 --trials 1 "
                              "--queries 100 --quiet --hash plugin:%s/example.so:example_hash",
             dir, dir);
    cli_result r = run_cli(cmd);
    cr_assert_eq(r.status, 0, "the installed binary with the plugin: %s", r.err);
    cli_free(&r);
    snprintf(cmd, sizeof cmd, "%s/example.so", dir);
    unlink(cmd);
    /* and so does the example filter plugin, against bloomlab/filter.h */
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -Wall -Werror -shared -fPIC "
             "$(PKG_CONFIG_SYSROOT_DIR=%s PKG_CONFIG_PATH=%s/usr/lib/pkgconfig pkg-config --cflags bloomlab) "
             "-o %s/filter.so examples/plugin_filter.c -lm",
             dir, dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "--version >/dev/null && %s/usr/bin/bloomlab sweep --n 100 --m 1000 --k 3 --trials 1 "
                              "--queries 100 --quiet --filter plugin:%s/filter.so",
             dir, dir);
    r = run_cli(cmd);
    cr_assert_eq(r.status, 0, "the installed binary with the filter plugin: %s", r.err);
    cli_free(&r);
    snprintf(cmd, sizeof cmd, "%s/filter.so", dir);
    unlink(cmd);
    check_installed_library(dir);

    cr_assert_eq(make_in("uninstall", dir), 0, "make uninstall failed");
    files = files_under(dir);
    cr_assert_str_eq(files, "", "left behind by uninstall:\n%s", files);
    free(files);
    remove_tree(dir);
}

/* Every command, and every flag each command's --help names, is in the
 * manual. */
Test(install, the_manual_follows_every_help_text, .timeout = 120)
{
    char *dir = temp_dir();
    char man[700], cmd[1400];
    snprintf(man, sizeof man, "%s/bloomlab.1", dir);
    snprintf(cmd, sizeof cmd, "sh scripts/manpage.sh %s > %s", bloomlab_path(), man);
    cr_assert_eq(system(cmd), 0);
    char *text = slurp(man);
    cr_assert_not_null(text);
    static const char *const COMMANDS[] = {"run", "sweep", "theory", "merge", "bench", "calc",
                                           "demo", "list", "memory", "uniformity", "report", "check"};
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++) {
        char section[64];
        snprintf(section, sizeof section, ".SS %s\n", COMMANDS[i]);
        cr_assert(strstr(text, section) != NULL, "no section for %s", COMMANDS[i]);
        char args[64];
        snprintf(args, sizeof args, "%s --help", COMMANDS[i]);
        cli_result r = run_cli(args);
        cr_assert_eq(r.status, 0);
        for (char *p = r.out; (p = strstr(p, "--")) != NULL; p += 2) {
            size_t len = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
            if (len < 4)
                continue;
            char flag[64];
            snprintf(flag, sizeof flag, "%.*s", (int)len, p);
            cr_assert(strstr(text, flag) != NULL, "%s: %s is not in the manual", COMMANDS[i], flag);
        }
        cli_free(&r);
    }
    free(text);
    unlink(man);
    remove_tree(dir);
}

/* A full standard output is an error with a message, for every command
 * that prints (stdout is flushed, and checked, as the command ends). */
Test(install, a_full_stdout_is_an_error)
{
    static const char *const ARGS[] = {"calc --n 1e6 --p 0.01", "list", "demo", "theory --m 64 --n 1..3 --k 3",
                                       "--version", "--help", "bench --help", "uniformity --help"};
    char err_path[] = "/tmp/bloomlab-test-full-XXXXXX";
    close(mkstemp(err_path));
    for (size_t i = 0; i < sizeof ARGS / sizeof ARGS[0]; i++) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "%s %s >/dev/full 2>%s </dev/null", bloomlab_path(), ARGS[i], err_path);
        int raw = system(cmd);
        char *err = slurp(err_path);
        cr_assert(WIFEXITED(raw) && WEXITSTATUS(raw) == 1, "bloomlab %s >/dev/full: status %d", ARGS[i], raw);
        cr_assert_eq(count_lines(err), 1, "bloomlab %s: %s", ARGS[i], err);
        cr_assert(strstr(err, "No space left on device") != NULL, "bloomlab %s: %s", ARGS[i], err);
        free(err);
    }
    unlink(err_path);
}
