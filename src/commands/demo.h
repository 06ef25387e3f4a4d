/* demo.h -- `bloomlab demo`: the course page's 64-bit filter, bit for bit. */
#ifndef BLOOMLAB_DEMO_H
#define BLOOMLAB_DEMO_H

#include <stdint.h>

/* The page's filter after adding its first `words` present words. */
typedef struct {
    uint64_t bits;
    int words;
    int bits_set;
    int missed; /* present words answering "certainly not": always 0 */
    int maybe;  /* absent words answering "probably" */
} demo_run;

demo_run demo_compute(int words);
int cmd_demo(int argc, char **argv);

#endif
