/* test_counters.c -- counters.h's pair of events: read as a group, closed
 * cleanly, and the hardware's either counting or saying why not.  The
 * kernel's software clocks stand in for the hardware's where a guest has no
 * PMU: they go through the same open, group read and scaling. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <linux/perf_event.h>
#include <math.h>
#include <string.h>

#include "base/clock.h"
#include "harness/counters.h"

/* n additions the compiler must keep (an empty asm reads each sum): at
 * least one instruction each. */
static void add_up(uint64_t n)
{
    uint64_t sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += i;
        __asm__ volatile("" : "+r"(sum));
    }
}

/* Busy for at least `seconds` of wall time. */
static void spin(double seconds)
{
    const double t0 = now_seconds();
    while (now_seconds() - t0 < seconds)
        add_up(10000);
}

/* Both of the kernel's clocks for this task count the same stretch (one
 * group): each what the thread ran, never more than the wall time between
 * the reads, and the two within a scheduler tick of each other (10 ms at
 * the lowest HZ, 100). */
Test(counters, software_pair_counts_one_stretch)
{
    counter_pair p;
    char why[200] = "";
    if (counter_pair_open(&p, COUNTER_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CPU_CLOCK, why, sizeof why) !=
        0) {
        /* a kernel that lets this user open no event at all (Debian's
         * kernel.perf_event_paranoid = 3 for a user without CAP_PERFMON):
         * then the refusal is all there is to check */
        cr_log_info("no perf events for this user: %s", why);
        cr_assert(strstr(why, "perf_event_open of software event ") == why && strstr(why, ": not permitted") != NULL,
                  "%s", why);
        cr_assert_eq(p.leader_fd, -1);
        return;
    }
    counter_counts before, after;
    const double t0 = now_seconds();
    cr_assert_eq(counter_pair_read(&p, &before), 0);
    spin(0.02);
    cr_assert_eq(counter_pair_read(&p, &after), 0);
    const double wall_ns = 1e9 * (now_seconds() - t0);
    const double task_ns = after.first - before.first, cpu_ns = after.second - before.second;
    cr_assert(task_ns > 0 && task_ns <= wall_ns, "task clock %.0f ns over %.0f ns of wall time", task_ns, wall_ns);
    cr_assert(cpu_ns > 0 && cpu_ns <= wall_ns, "cpu clock %.0f ns over %.0f ns of wall time", cpu_ns, wall_ns);
    cr_assert(fabs(task_ns - cpu_ns) <= 1e7, "the group's two clocks apart: %.0f and %.0f ns", task_ns, cpu_ns);
    counter_pair_close(&p);
    cr_assert_eq(p.leader_fd, -1);
    cr_assert_eq(p.member_fd, -1);
    cr_assert_eq(counter_pair_read(&p, &after), -1, "a closed pair reads nothing");
}

/* The hardware's cycles and instructions: where the machine has them, a
 * loop of N additions retires at least N instructions in at least one
 * cycle; where it has none, the open fails with both fds closed and a
 * reason naming perf_event_open and the counter (what bench prints). */
Test(counters, hardware_pair_counts_or_says_why)
{
    counter_pair p;
    char why[200] = "";
    if (counter_pair_open_cycles_instructions(&p, why, sizeof why) != 0) {
        cr_log_info("no hardware counters here: %s", why);
        cr_assert(strstr(why, "perf_event_open of the cycles counter") == why, "%s", why);
        cr_assert_eq(p.leader_fd, -1);
        cr_assert_eq(p.member_fd, -1);
        return;
    }
    const uint64_t additions = 1000000;
    counter_counts before, after;
    cr_assert_eq(counter_pair_read(&p, &before), 0);
    add_up(additions);
    cr_assert_eq(counter_pair_read(&p, &after), 0);
    cr_assert(after.second - before.second >= (double)additions, "%.0f instructions for %llu additions",
              after.second - before.second, (unsigned long long)additions);
    cr_assert(after.first - before.first >= 1, "%.0f cycles", after.first - before.first);
    counter_pair_close(&p);
}
