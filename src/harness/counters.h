/* counters.h -- the CPU's own count of this thread's cycles and retired
 * instructions, by perf_event_open(2), where the kernel and the machine
 * expose them.
 *
 * WHY.  A timing on a shared host moves with its neighbours (the same
 * loop's time, an hour apart: docs/PERFORMANCE.md).  The instructions a
 * loop retires do not move with
 * them, and the cycles this thread ran are its own, not the host's; beside
 * a time they say whether a change saved work or only met a quieter
 * minute.  Many guests expose no performance monitoring unit at all (every
 * machine this project was measured on so far): there opening says why,
 * and a caller leaves its counts blank (NAN), which is information, not a
 * failure.
 *
 * HOW.  Two events in one group, so that the kernel schedules them
 * together and one read(2) returns both, counting user space only (what
 * the loops do, not the kernel's page faults), from open to close.  A
 * caller reads the pair before and after its region and takes the
 * difference.  Where the kernel had to share the counters with other users
 * (multiplexing), each count is scaled by the time enabled over the time
 * it ran, as perf stat does.  The counters follow the thread that opened
 * them, on whichever core it runs. */
#ifndef BLOOMLAB_COUNTERS_H
#define BLOOMLAB_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int leader_fd, member_fd; /* -1 when closed */
} counter_pair;

typedef struct {
    double first, second; /* events counted since the pair was opened */
} counter_counts;

/* The kinds of event perf_event_open takes that a pair may name: the
 * hardware's (PERF_TYPE_HARDWARE) or the kernel's own software clocks
 * (PERF_TYPE_SOFTWARE, which every Linux has: the tests open those to check
 * the reading where the hardware's are missing). */
typedef enum { COUNTER_HARDWARE, COUNTER_SOFTWARE } counter_type;

/* Opens events `first` and `second` (perf_event_attr's config) of a type
 * for this thread, counting now.  0, or -1 with why[] saying what refused
 * them (errno's text, naming perf_event_open and the event). */
int counter_pair_open(counter_pair *p, counter_type type, uint64_t first, uint64_t second, char *why,
                      size_t why_size);

/* The CPU's cycles (first) and retired instructions (second). */
int counter_pair_open_cycles_instructions(counter_pair *p, char *why, size_t why_size);

/* Both counts since the open.  0, or -1 (a read refused, or a group the
 * kernel never scheduled). */
int counter_pair_read(const counter_pair *p, counter_counts *out);

void counter_pair_close(counter_pair *p);

#endif
