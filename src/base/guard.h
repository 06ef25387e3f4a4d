/* guard.h -- one line, and no stale lock, when a run dies in code it does
 * not control.
 *
 * A hash plugin runs inside this process.  A segfault or an abort in it, an
 * exit() from it, or a call that never returns would end a run with no word
 * at all (or with exit status 0, or never).  The runner keeps a short note
 * of what is running -- "cell 3 (standard, hash plugin:x.so:f)" -- and the
 * guard, on
 *   a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT): writes one
 *     line naming the signal and the note, removes the lock, and dies of
 *     the same signal (exit status 128 + signal);
 *   exit() while the note is set: writes one line and exits with status 1;
 *   an interrupt not honoured within half a second (guard_deadline, called
 *     by the SIGINT/SIGTERM handler): writes one line and exits with 130.
 * Every finished cell is already in the journal (each is flushed to disk
 * before the next starts), so the line can promise it.  The handlers only
 * write(2), unlink(2) and _exit(2): everything they print is formatted in
 * guard_set, outside any signal. */
#ifndef BLOOMLAB_GUARD_H
#define BLOOMLAB_GUARD_H

/* Install the handlers (once per process; later calls do nothing).  The
 * hash registry does when it loads a plugin: without one, a crash is
 * bloomlab's own and goes to the default action (or the sanitizers). */
void guard_install(void);

/* What is running, e.g. "cell 3 (standard, hash plugin:x.so:f)"; the
 * lock to remove (NULL: none); and what is kept, e.g. "2 finished cells
 * are kept in .out.csv.partial" (NULL: nothing to say). */
void guard_set(const char *doing, const char *lock_path, const char *kept);

/* How a fatal signal ends the run from now on: 0, dying of the same signal
 * (the default: a crash is reported as one); or exit with this status after
 * the line (a filter plugin's crash is bad input, status 2). */
void guard_crash_status(int status);

/* Nothing is running any more: the handlers stand down, an armed
 * deadline is cancelled. */
void guard_clear(void);

/* Async-signal-safe: give the running code half a second to stop (when
 * the guard is installed and set). */
void guard_deadline(void);

#endif
