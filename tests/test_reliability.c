/* test_reliability.c -- what happens when a run is interrupted, raced,
 * starved of disk or handed extreme values; the counting filter at its
 * limits; and the inputs the fuzzers found (tests/fuzz/).
 *
 * Tests run as root, so a read-only directory does not stop a write: the
 * unwritable cases use a regular file where a directory is expected, a
 * path under /proc, and `ulimit -f` for a full disk. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "filter/filters.h"
#include "base/hashes.h"
#include "csv.h"
#include "helpers.h"


/* 30 cells of some 25 ms each (optimised; a few times that under ASan). */
static const char SLOW_INI[] = "[experiment]\nname = slow\nseed = 3\nm = 1e6\nn = 100000..129000:1000\nk = 7\n"
                               "trials = 2\nqueries = 500000\n";
#define SLOW_CELLS 30

typedef struct {
    char *dir;
    char ini[600];
    char out[700];     /* DIR/slow.csv */
    char journal[700]; /* DIR/.slow.csv.partial */
    char lock[700];
} workdir;

static workdir workdir_new(void)
{
    workdir w;
    w.dir = temp_dir();
    snprintf(w.ini, sizeof w.ini, "%s/slow.ini", w.dir);
    snprintf(w.out, sizeof w.out, "%s/slow.csv", w.dir);
    snprintf(w.journal, sizeof w.journal, "%s/.slow.csv.partial", w.dir);
    snprintf(w.lock, sizeof w.lock, "%s/slow.csv.lock", w.dir);
    write_text(w.ini, SLOW_INI);
    return w;
}

static void workdir_free(workdir *w) { remove_tree(w->dir); }

/* How many files in dir match a shell glob (0 when none). */
static int count_glob(const char *dir, const char *glob)
{
    char cmd[900];
    snprintf(cmd, sizeof cmd, "cd '%s' && ls -A | grep -c -e '%s' || true", dir, glob);
    FILE *p = popen(cmd, "r");
    int n = 0;
    if (fscanf(p, "%d", &n) != 1)
        n = 0;
    pclose(p);
    return n;
}

/* The uninterrupted run's rows, into DIR/reference.csv. */
static char *reference_rows(const workdir *w)
{
    char args[1600], ref[800];
    snprintf(ref, sizeof ref, "%s/reference.csv", w->dir);
    snprintf(args, sizeof args, "run %s -o %s --threads 1 --quiet", w->ini, ref);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    char *rows = file_rows(ref);
    unlink(ref);
    cr_assert_eq(count_lines(rows), SLOW_CELLS);
    return rows;
}

/* `bloomlab ARGS` in the background, stderr to DIR/err.txt; its pid. */
static pid_t spawn(const workdir *w, const char *args)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "exec %s %s >/dev/null 2>%s/err.txt </dev/null", bloomlab_path(), args, w->dir);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int lines_in(const char *path)
{
    char *text = slurp(path);
    if (text == NULL)
        return 0;
    int n = count_lines(text);
    free(text);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait (at most a minute) until the journal holds `cells` finished cells. */
static void wait_for_cells(const workdir *w, pid_t pid, int cells)
{
    for (int i = 0; i < 12000; i++) {
        if (lines_in(w->journal) >= 1 + cells)
            return;
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the run ended before %d cells", cells);
        sleep_ms(5);
    }
    cr_assert_fail("no %d cells in a minute", cells);
}

static int wait_status(pid_t pid)
{
    int raw;
    cr_assert_eq(waitpid(pid, &raw, 0), pid);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

/* Interrupt a run of the slow experiment with sig after `cells` cells. */
static void interrupt_run(const workdir *w, int sig, int cells, int expect_status)
{
    char args[1600];
    snprintf(args, sizeof args, "run %s -o %s --threads 1", w->ini, w->out);
    pid_t pid = spawn(w, args);
    wait_for_cells(w, pid, cells);
    cr_assert_eq(kill(pid, sig), 0);
    int status = wait_status(pid);
    cr_assert_eq(status, expect_status, "signal %d: status %d", sig, status);
    cr_assert(lines_in(w->journal) < 1 + SLOW_CELLS, "the run had finished: no interruption tested");
    cr_assert_eq(count_glob(w->dir, "\\.tmp\\."), 0, "a temporary file was left");
}

/* Rerun: it must say it resumes, and finish with the reference's rows. */
static void resume_and_compare(const workdir *w, const char *reference)
{
    char args[1600];
    snprintf(args, sizeof args, "run %s -o %s --threads 1", w->ini, w->out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "rerun: %s", r.err);
    cr_assert(strstr(r.err, "resuming: ") != NULL, "the rerun did not resume: %s", r.err);
    cli_free(&r);
    char *rows = file_rows(w->out);
    cr_assert_str_eq(rows, reference, "the resumed rows differ from an uninterrupted run");
    free(rows);
    cr_assert(!file_exists(w->journal), "the journal outlived a complete run");
    cr_assert(!file_exists(w->lock), "the lock outlived a complete run");
    cr_assert_eq(count_glob(w->dir, "\\.tmp\\."), 0);
}

Test(reliability, sigint_keeps_cells_and_resumes, .timeout = 240)
{
    workdir w = workdir_new();
    char *reference = reference_rows(&w);
    interrupt_run(&w, SIGINT, 3, 130);
    cr_assert(!file_exists(w.out), "an interrupted first run must not leave a CSV");
    char *err = slurp(strcat(strcpy(malloc(800), w.dir), "/err.txt"));
    cr_assert(strstr(err, "interrupted: ") != NULL && strstr(err, "kept in ") != NULL, "%s", err);
    free(err);
    resume_and_compare(&w, reference);
    free(reference);
    workdir_free(&w);
}

Test(reliability, sigterm_leaves_the_previous_csv_whole, .timeout = 240)
{
    workdir w = workdir_new();
    char *reference = reference_rows(&w);
    /* a previous complete result of another seed is the file to keep */
    write_text(w.ini, "[experiment]\nname = slow\nseed = 4\nm = 1e6\nn = 100000..129000:1000\nk = 7\n"
                      "trials = 2\nqueries = 500000\n");
    char args[1600];
    snprintf(args, sizeof args, "run %s -o %s --threads 2 --quiet", w.ini, w.out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    char *previous = slurp(w.out);
    write_text(w.ini, SLOW_INI);
    interrupt_run(&w, SIGTERM, 4, 130);
    char *now = slurp(w.out);
    cr_assert_str_eq(now, previous, "SIGTERM changed the previous complete CSV");
    free(now);
    free(previous);
    resume_and_compare(&w, reference);
    free(reference);
    workdir_free(&w);
}

/* SIGKILL: no handler runs.  The lock file stays (its flock died with the
 * process) and the journal may end in a torn line: here one is made on
 * purpose, then the rerun is itself interrupted so that the journal it
 * appended to is read back once more. */
Test(reliability, sigkill_torn_journal_and_stale_lock, .timeout = 240)
{
    workdir w = workdir_new();
    char *reference = reference_rows(&w);
    interrupt_run(&w, SIGKILL, 2, 128 + SIGKILL);
    cr_assert(file_exists(w.lock), "a SIGKILLed run leaves its lock file");
    cr_assert(!file_exists(w.out));
    FILE *j = fopen(w.journal, "a");
    fputs("2\tslow,standard,xxh3_64,double,random64,1000000,102000,7,9.8", j); /* torn: no newline */
    fclose(j);
    interrupt_run(&w, SIGINT, 5, 130); /* resumes past the stale lock and torn line */
    interrupt_run(&w, SIGKILL, 20, 128 + SIGKILL);
    resume_and_compare(&w, reference);
    free(reference);
    workdir_free(&w);
}

Test(reliability, a_journal_of_another_experiment_is_not_used, .timeout = 240)
{
    workdir w = workdir_new();
    char *reference = reference_rows(&w);
    write_text(w.journal, "# fingerprint: 0123456789abcdef\n0\tgarbage,0\n");
    char args[1600];
    snprintf(args, sizeof args, "run %s -o %s --threads 1 --quiet", w.ini, w.out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    char *rows = file_rows(w.out);
    cr_assert_str_eq(rows, reference);
    free(rows);
    /* --fresh ignores even a matching journal (the finished output goes
     * first: a run over a current output has nothing to do) */
    unlink(w.out);
    interrupt_run(&w, SIGINT, 3, 130);
    snprintf(args, sizeof args, "run %s -o %s --threads 1 --fresh", w.ini, w.out);
    r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.err, "resuming") == NULL, "%s", r.err);
    cli_free(&r);
    rows = file_rows(w.out);
    cr_assert_str_eq(rows, reference);
    free(rows);
    free(reference);
    workdir_free(&w);
}

Test(reliability, two_runs_on_one_output, .timeout = 240)
{
    workdir w = workdir_new();
    char *reference = reference_rows(&w);
    char args[1600];
    snprintf(args, sizeof args, "run %s -o %s --threads 1 --quiet", w.ini, w.out);
    pid_t first = spawn(&w, args);
    wait_for_cells(&w, first, 1);
    cli_result second = run_cli(args);
    cr_assert_neq(second.status, 0);
    cr_assert_eq(count_lines(second.err), 1, "%s", second.err);
    cr_assert(strstr(second.err, w.out) != NULL && strstr(second.err, "being written by another run") != NULL, "%s",
              second.err);
    cli_free(&second);
    cr_assert_eq(wait_status(first), 0, "the first run failed");
    char *rows = file_rows(w.out);
    cr_assert_str_eq(rows, reference, "the first run's rows are not the reference");
    free(rows);
    cr_assert(!file_exists(w.lock) && !file_exists(w.journal));
    free(reference);
    workdir_free(&w);
}

/* ---- nowhere to write -------------------------------------------------- */

/* An output path that cannot be written is found before the first cell
 * runs, and is bad input: exit status 2. */
static void expect_write_failure(const char *args, const char *needle)
{
    cli_result r = run_cli(args);
    cr_assert(r.status == 2, "bloomlab %s: status %d (a path checked before the work is 2)", args, r.status);
    cr_assert_eq(count_lines(r.err), 1, "bloomlab %s: not one line:\n%s", args, r.err);
    cr_assert(strstr(r.err, needle) != NULL, "bloomlab %s: no '%s' in %s", args, needle, r.err);
    cli_free(&r);
}

Test(reliability, a_file_where_a_directory_should_be)
{
    workdir w = workdir_new();
    char args[2000];
    snprintf(args, sizeof args, "sweep --n 10 --m 100 --trials 1 --queries 10 --quiet -o %s/slow.ini/out.csv", w.dir);
    expect_write_failure(args, "Not a directory");
    snprintf(args, sizeof args, "sweep --n 10 --m 100 --trials 1 --queries 10 --quiet -o %s/none/out.csv", w.dir);
    expect_write_failure(args, "No such file or directory");
    expect_write_failure("sweep --n 10 --m 100 --trials 1 --queries 10 --quiet -o /proc/bloomlab-test.csv",
                         "/proc/bloomlab-test.csv");
    cr_assert_eq(count_glob(w.dir, "."), 1, "only slow.ini");
    workdir_free(&w);
}

/* `ulimit -f` stands in for a full disk (writes fail with EFBIG; SIGXFSZ is
 * ignored).  One cell: the journal fits and the CSV does not, so the
 * output's own write fails; 30 cells: the journal fails first. */
Test(reliability, full_disk, .timeout = 240)
{
    workdir w = workdir_new();
    const char old[] = "# the previous result\nexperiment\nkeep me\n";
    char one[700], cmd[2400];
    snprintf(one, sizeof one, "%s/one.ini", w.dir);
    write_text(one, "[experiment]\nname = slow\nm = 1000\nn = 100\nk = 3\ntrials = 1\nqueries = 100\n");
    write_text(w.out, old);
    /* one thread: no OpenMP runtime, whose LLVM start writes a file in
     * /dev/shm and dies under the limit (sweep.c's query_range) */
    snprintf(cmd, sizeof cmd, "sh -c 'ulimit -f 1; exec %s run %s -o %s --quiet --threads 1' 2>&1", bloomlab_path(),
             one, w.out);
    FILE *p = popen(cmd, "r");
    char message[2000] = "";
    size_t got = fread(message, 1, sizeof message - 1, p);
    message[got] = '\0';
    int raw = pclose(p);
    cr_assert(WIFEXITED(raw) && WEXITSTATUS(raw) == 1, "status %d: %s", raw, message);
    cr_assert_eq(count_lines(message), 1, "%s", message);
    cr_assert(strstr(message, w.out) != NULL && strstr(message, "File too large") != NULL, "%s", message);
    char *now = slurp(w.out);
    cr_assert_str_eq(now, old, "the previous result was touched");
    free(now);
    cr_assert_eq(count_glob(w.dir, "\\.tmp\\."), 0, "a temporary file was left");
    /* the finished cell waits in the journal; with room again, the run resumes */
    char args[2000];
    snprintf(args, sizeof args, "run %s -o %s", one, w.out);
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.err, "resuming: 1 finished cells") != NULL, "%s", r.err);
    cli_free(&r);

    /* 30 cells: the journal runs out of room mid-line */
    char *reference = reference_rows(&w);
    write_text(w.out, old);
    snprintf(cmd, sizeof cmd, "sh -c 'ulimit -f 2; exec %s run %s -o %s --quiet --threads 1' 2>&1", bloomlab_path(),
             w.ini, w.out);
    p = popen(cmd, "r");
    got = fread(message, 1, sizeof message - 1, p);
    message[got] = '\0';
    raw = pclose(p);
    cr_assert(WIFEXITED(raw) && WEXITSTATUS(raw) == 1, "status %d: %s", raw, message);
    cr_assert_eq(count_lines(message), 1, "%s", message);
    cr_assert(strstr(message, "cannot write the journal") != NULL, "%s", message);
    now = slurp(w.out);
    cr_assert_str_eq(now, old);
    free(now);
    resume_and_compare(&w, reference);
    free(reference);
    workdir_free(&w);
}

/* ---- extremes ---------------------------------------------------------- */

/* One field of a one-row sweep, by column name. */
static char *sweep_field(const char *csv, const char *name)
{
    const char *header = csv;
    while (*header == '#')
        header = strchr(header, '\n') + 1;
    const char *row = strchr(header, '\n') + 1;
    size_t column = 0;
    for (const char *p = header;; column++) {
        size_t len = strcspn(p, ",\n");
        if (len == strlen(name) && strncmp(p, name, len) == 0)
            break;
        cr_assert(p[len] == ',', "no column %s", name);
        p += len + 1;
    }
    for (size_t c = 0; c < column; c++)
        row = strchr(row, ',') + 1;
    size_t len = strcspn(row, ",\n");
    char *out = malloc(len + 1);
    memcpy(out, row, len);
    out[len] = '\0';
    return out;
}

static void expect_field(const char *args, const char *name, const char *want)
{
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 0, "bloomlab %s: %s", args, r.err);
    char *got = sweep_field(r.out, name);
    cr_assert_str_eq(got, want, "bloomlab %s: %s = %s, want %s", args, name, got, want);
    free(got);
    cli_free(&r);
}

static void expect_refusal(const char *args, const char *needle1, const char *needle2)
{
    cli_result r = run_cli(args);
    cr_assert_eq(r.status, 2, "bloomlab %s: status %d", args, r.status);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strstr(r.err, needle1) != NULL && (needle2 == NULL || strstr(r.err, needle2) != NULL), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    cli_free(&r);
}

Test(reliability, m_near_2_to_the_40_is_refused_with_the_figure)
{
    /* 2^40 bits is 137 GB a filter: more than the machine, at any thread count */
    expect_refusal("sweep --n 10 --m 2^40 --k 3 --trials 1 --threads 1", "137 GB of filter memory", "--m");
    expect_refusal("sweep --n 10 --m 1e15 --k 3 --trials 1", "GB of filter memory", "a run may use 90% of this machine's");
    expect_refusal("sweep --n 10 --m 1e16 --k 3", "--m", "above 2^53");
    expect_refusal("sweep --n 10 --m 2^52 --k 3", "--m", "outside 1..1e+15");
}

Test(reliability, n_zero_k_64_and_bits_per_item_extremes)
{
    expect_field("sweep --n 0 --m 1000 --k 3 --trials 2 --queries 1000 --quiet", "fpr", "0");
    expect_field("sweep --n 0 --m 1000 --trials 2 --queries 1000 --quiet", "false_positives", "0");
    expect_field("sweep --n 100 --m 10000 --k 64 --trials 2 --queries 1000 --quiet", "k", "64");
    expect_field("sweep --n 100 --m 10000 --k 64 --trials 2 --queries 1000 --quiet", "false_negatives", "0");
    expect_field("sweep --n 100 --bits-per-item 0.01 --k 1 --trials 2 --queries 100 --quiet", "m", "1");
    expect_field("sweep --n 100 --bits-per-item 0.01 --k 1 --trials 2 --queries 100 --quiet", "fpr", "1");
    expect_field("sweep --n 1000 --bits-per-item 1000 --trials 2 --queries 1000 --quiet", "m", "1000000");
    expect_field("sweep --n 1000 --bits-per-item 1000 --trials 2 --queries 1000 --quiet", "fpr", "0");
    expect_refusal("sweep --n 1000 --bits-per-item 0 --quiet", "--bits-per-item", "0");
    expect_refusal("sweep --n 1000 --bits-per-item 1e10 --quiet", "--bits-per-item", "1e+10");
}

Test(reliability, work_beyond_a_day_is_refused_with_the_figure)
{
    /* 1e12 queries at the default 10 trials: 1e13 hashed keys, about 28 hours */
    expect_refusal("sweep --n 10 --m 100 --queries 1e12", "--queries", "1e+13 queries in one cell");
    expect_refusal("sweep --n 10 --m 100 --queries 1e12", "28 hours", NULL);
    expect_refusal("sweep --n 1e12 --m 1e6 --trials 10 --queries 1", "--n", "1e+13 inserts in one cell");
    expect_refusal("sweep --n 10 --m 100 --queries 1e12 --trials 1e9", "--queries", "1e+21");
    expect_refusal("sweep --n 10 --m 100 --queries 1e13", "--queries", "1e+13");
}

/* ---- the counting filter at its limits ---------------------------------- */

Test(reliability, counting_saturation_through_the_cli)
{
    /* one counter, one position per key: 20 inserts, 15 counted, 5 lost */
    const char *base = "sweep --filter counting --m 1 --k 1 --n 20 --trials 1 --queries 10 --quiet";
    expect_field(base, "saturations", "5");
    expect_field(base, "fill", "1");
    /* deleting all 20: the saturated counter is never decremented, so
     * nothing is forgotten and no delete finds a zero */
    char args[400];
    snprintf(args, sizeof args, "%s --measure delete --deletes 20", base);
    expect_field(args, "saturations", "5");
    expect_field(args, "bad_deletes", "0");
    expect_field(args, "false_positives", "10");
    /* below saturation deletes are exact: 10 in, 10 out, the counter is 0 */
    expect_field("sweep --filter counting --m 1 --k 1 --n 10 --trials 1 --queries 10 --measure delete --deletes 10 "
                 "--quiet",
                 "false_positives", "0");
    expect_field("sweep --filter counting --m 1 --k 1 --n 10 --trials 1 --queries 10 --measure delete --deletes 10 "
                 "--quiet",
                 "saturations", "0");
    expect_refusal("sweep --filter counting --m 1 --k 1 --n 10 --measure delete --deletes 11", "--deletes", "11");
}

static void one_key(key_batch *b, const char *text, uint64_t id)
{
    b->count = 1;
    b->packed8 = 0;
    b->ptr[0] = (const unsigned char *)text;
    b->len[0] = (uint32_t)strlen(text);
    b->id[0] = id;
}

Test(reliability, counting_saturation_through_the_api)
{
    hasher h;
    char err[300];
    cr_assert_eq(hasher_resolve("xxh3_64", &h, err, sizeof err), 0, "%s", err);
    scheme_ctx ctx = {&h, 1, 0};
    filter f;
    cr_assert_eq(filter_init(&f, LAYOUT_COUNTING, 1, 1), 0);
    filter_ops ops = filter_ops_for(LAYOUT_COUNTING, SCHEME_DOUBLE);
    key_batch b;
    char name[32];
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "key%d", i);
        one_key(&b, name, 2 * (uint64_t)i);
        ops.insert(&f, &ctx, &b);
    }
    cr_assert_eq(f.saturations, 5);
    cr_assert_eq(filter_bits_set(&f), 1);
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "key%d", i);
        one_key(&b, name, 2 * (uint64_t)i);
        ops.remove(&f, &ctx, &b);
    }
    cr_assert_eq(filter_bits_set(&f), 1, "a saturated counter is never decremented");
    cr_assert_eq(f.bad_deletes, 0);
    one_key(&b, "key0", 0);
    cr_assert_eq(ops.query(&f, &ctx, &b, NULL), 1, "still 'probably' after the deletes");
    filter_free(&f);

    /* a delete of a key never inserted, at a zero counter */
    cr_assert_eq(filter_init(&f, LAYOUT_COUNTING, 1, 1), 0);
    one_key(&b, "never", 1);
    ops.remove(&f, &ctx, &b);
    cr_assert_eq(f.bad_deletes, 1);
    cr_assert_eq(filter_bits_set(&f), 0, "the zero counter stays zero (no wrap to 15)");
    one_key(&b, "once", 2);
    ops.insert(&f, &ctx, &b);
    ops.remove(&f, &ctx, &b);
    ops.remove(&f, &ctx, &b);
    cr_assert_eq(f.bad_deletes, 2, "the second delete of one insert found a zero");
    cr_assert_eq(filter_bits_set(&f), 0);
    filter_free(&f);

    /* k = 3 over many counters: an exact delete returns the filter to empty */
    cr_assert_eq(filter_init(&f, LAYOUT_COUNTING, 4096, 3), 0);
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "item%d", i);
        one_key(&b, name, 2 * (uint64_t)i);
        ops.insert(&f, &ctx, &b);
    }
    cr_assert(filter_bits_set(&f) > 0);
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "item%d", i);
        one_key(&b, name, 2 * (uint64_t)i);
        ops.remove(&f, &ctx, &b);
    }
    cr_assert_eq(filter_bits_set(&f), 0);
    cr_assert_eq(f.bad_deletes, 0);
    cr_assert_eq(f.saturations, 0);
    filter_free(&f);
}

/* ---- what the fuzzers found -------------------------------------------- */

/* fuzz_numbers: a value holding a newline made a two-line error. */
Test(reliability, fuzz_numbers_newline_in_a_flag_value)
{
    cli_result r = run_cli("sweep --m 100 --n \"$(printf '0..:.025.\\n25')\" --quiet");
    cr_assert_eq(r.status, 2);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cr_assert(strstr(r.err, "--n") != NULL && strstr(r.err, "\\x0a") != NULL, "%s", r.err);
    cli_free(&r);
    r = run_cli("sweep --m 100 --n 1 --filter \"$(printf 'standard\\nx')\" --quiet");
    cr_assert_eq(r.status, 2);
    cr_assert_eq(count_lines(r.err), 1, "%s", r.err);
    cli_free(&r);
}

/* A run to /dev/null writes through it: never renamed over, no journal in /dev. */
Test(reliability, output_to_dev_null)
{
    cli_result r = run_cli("sweep --n 10 --m 100 --trials 1 --queries 10 --quiet -o /dev/null");
    cr_assert_eq(r.status, 0, "%s", r.err);
    cli_free(&r);
    struct stat st;
    cr_assert_eq(stat("/dev/null", &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "/dev/null is no longer a device");
    cr_assert(!file_exists("/dev/.null.partial") && !file_exists("/dev/null.lock"));
}
