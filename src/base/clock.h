/* clock.h -- the one clock bloomlab times itself with. */
#ifndef BLOOMLAB_CLOCK_H
#define BLOOMLAB_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock (unaffected by changes of the wall clock). */
static inline double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
