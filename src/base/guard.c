/* guard.c -- see guard.h. */
#define _POSIX_C_SOURCE 200809L
#include "base/guard.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The state the handlers read: written by guard_set before the work, read
 * in a handler.  `active` is written last (and cleared first), so a handler
 * never sees a half-written note as active. */
static char doing_text[1024];
static char kept_text[1024];
static char lock_text[4200];
static volatile sig_atomic_t active = 0;
static volatile sig_atomic_t installed = 0;
static volatile sig_atomic_t crash_status = 0; /* 0: die of the signal */
static timer_t deadline_timer; /* timer_settime, unlike setitimer, is async-signal-safe */

static void say(const char *text) { (void)!write(STDERR_FILENO, text, strlen(text)); }

/* "bloomlab: BEFORE DOING AFTER; KEPT\n" with write(2) only. */
static void report(const char *before, const char *after)
{
    say("bloomlab: ");
    say(before);
    say(" ");
    say(doing_text);
    say(after);
    if (kept_text[0]) {
        say("; ");
        say(kept_text);
    }
    say("\n");
    if (lock_text[0])
        unlink(lock_text);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "crashed (SIGSEGV, a bad memory access) in";
    case SIGBUS:
        return "crashed (SIGBUS) in";
    case SIGILL:
        return "crashed (SIGILL, an illegal instruction) in";
    case SIGFPE:
        return "crashed (SIGFPE, an arithmetic fault) in";
    case SIGABRT:
        return "aborted (SIGABRT) in";
    default:
        return "died of a signal in";
    }
}

/* Set by the first thread to take a fault: the work may run on several
 * threads and more than one can fault at once (a plugin's add on every
 * thread).  The others wait for the first one's end (its _exit, or its
 * death by the signal) instead of printing a second line or dying first.
 * atomic_flag is the one type C11 promises lock-free, so safe here. */
static atomic_flag reporting = ATOMIC_FLAG_INIT;

static void on_fatal(int sig)
{
    if (atomic_flag_test_and_set(&reporting))
        for (;;)
            pause();
    if (active) {
        active = 0;
        report(signal_name(sig), "");
        if (crash_status != 0)
            _exit(crash_status);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_alarm(int sig)
{
    (void)sig;
    if (!active)
        return;
    active = 0;
    report("interrupted, but", " did not stop within half a second");
    _exit(130);
}

static void on_exit_call(void)
{
    if (!active)
        return;
    active = 0;
    report("exit() was called in", "");
    _exit(1);
}

void guard_install(void)
{
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_fatal;
    sa.sa_flags = 0; /* not SA_RESETHAND: a second thread's fault would take the default action first */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaction(fatal[i], &sa, NULL);
    sa.sa_handler = on_alarm;
    sa.sa_flags = 0;
    sigaction(SIGALRM, &sa, NULL);
    if (timer_create(CLOCK_MONOTONIC, NULL, &deadline_timer) != 0) /* NULL: SIGALRM on expiry */
        return;
    atexit(on_exit_call);
    installed = 1;
}

void guard_set(const char *doing, const char *lock_path, const char *kept)
{
    active = 0;
    snprintf(doing_text, sizeof doing_text, "%s", doing);
    snprintf(lock_text, sizeof lock_text, "%s", lock_path ? lock_path : "");
    snprintf(kept_text, sizeof kept_text, "%s", kept ? kept : "");
    active = 1;
}

static void arm(long nanoseconds)
{
    struct itimerspec when;
    memset(&when, 0, sizeof when);
    when.it_value.tv_nsec = nanoseconds;
    timer_settime(deadline_timer, 0, &when, NULL);
}

void guard_crash_status(int status) { crash_status = status; }

void guard_clear(void)
{
    active = 0;
    if (installed)
        arm(0);
}

void guard_deadline(void)
{
    if (installed && active) /* else SIGALRM's default would kill a run stopping cleanly */
        arm(500000000L);
}
