/* counters.c -- counters.h's pair of events, by perf_event_open(2). */
#define _GNU_SOURCE /* syscall */
#include "harness/counters.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

/* One event of the group: this thread, any core, user space only, closed
 * on exec; the leader opened disabled and enabled once its member has
 * joined, so that both count the same stretch. */
static int open_event(uint32_t type, uint64_t config, int leader_fd)
{
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.disabled = leader_fd == -1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, leader_fd, (unsigned long)PERF_FLAG_FD_CLOEXEC);
}

/* Why an event was refused, in words: the event by name where it is one
 * of the hardware's two, and what errno means here. */
static void refusal(counter_type type, uint64_t config, int error, char *why, size_t why_size)
{
    char event[48];
    if (type == COUNTER_HARDWARE && (config == PERF_COUNT_HW_CPU_CYCLES || config == PERF_COUNT_HW_INSTRUCTIONS))
        snprintf(event, sizeof event, "the %s counter", config == PERF_COUNT_HW_CPU_CYCLES ? "cycles" : "instructions");
    else
        snprintf(event, sizeof event, "%s event %llu", type == COUNTER_HARDWARE ? "hardware" : "software",
                 (unsigned long long)config);
    const char *hint = error == ENOENT || error == EOPNOTSUPP ? ": this machine exposes no such counter (a guest without a PMU?)"
                       : error == EACCES || error == EPERM  ? ": not permitted (kernel.perf_event_paranoid)"
                                                            : "";
    snprintf(why, why_size, "perf_event_open of %s: %s%s", event, strerror(error), hint);
}

int counter_pair_open(counter_pair *p, counter_type type, uint64_t first, uint64_t second, char *why,
                      size_t why_size)
{
    const uint32_t kind = type == COUNTER_HARDWARE ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
    p->member_fd = -1;
    p->leader_fd = open_event(kind, first, -1);
    if (p->leader_fd == -1) {
        refusal(type, first, errno, why, why_size);
        return -1;
    }
    p->member_fd = open_event(kind, second, p->leader_fd);
    if (p->member_fd == -1) {
        refusal(type, second, errno, why, why_size);
        counter_pair_close(p);
        return -1;
    }
    if (ioctl(p->leader_fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) == -1) {
        snprintf(why, why_size, "perf_event_open: enabling the group: %s", strerror(errno));
        counter_pair_close(p);
        return -1;
    }
    return 0;
}

int counter_pair_open_cycles_instructions(counter_pair *p, char *why, size_t why_size)
{
    return counter_pair_open(p, COUNTER_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS, why, why_size);
}

int counter_pair_read(const counter_pair *p, counter_counts *out)
{
    struct {
        uint64_t events, time_enabled, time_running, value[2];
    } group;
    if (p->leader_fd == -1 || read(p->leader_fd, &group, sizeof group) != (ssize_t)sizeof group || group.events != 2 ||
        group.time_running == 0)
        return -1;
    /* multiplexed: counted a share time_running / time_enabled of the time */
    const double scale = (double)group.time_enabled / (double)group.time_running;
    out->first = (double)group.value[0] * scale;
    out->second = (double)group.value[1] * scale;
    return 0;
}

void counter_pair_close(counter_pair *p)
{
    if (p->member_fd != -1)
        close(p->member_fd);
    if (p->leader_fd != -1)
        close(p->leader_fd);
    p->leader_fd = p->member_fd = -1;
}

#else /* no perf_event_open */

int counter_pair_open(counter_pair *p, counter_type type, uint64_t first, uint64_t second, char *why,
                      size_t why_size)
{
    (void)type;
    (void)first;
    (void)second;
    p->leader_fd = p->member_fd = -1;
    snprintf(why, why_size, "perf_event_open: Linux only");
    return -1;
}

int counter_pair_open_cycles_instructions(counter_pair *p, char *why, size_t why_size)
{
    return counter_pair_open(p, COUNTER_HARDWARE, 0, 1, why, why_size);
}

int counter_pair_read(const counter_pair *p, counter_counts *out)
{
    (void)p;
    (void)out;
    return -1;
}

void counter_pair_close(counter_pair *p) { p->leader_fd = p->member_fd = -1; }

#endif
