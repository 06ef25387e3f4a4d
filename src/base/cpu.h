/* cpu.h -- which vector loops this process runs, chosen at run time.
 *
 * bloomlab is compiled for the architecture's baseline (x86-64 without any
 * vector extension beyond SSE2, or any other architecture), so one binary
 * runs on every machine of its kind.  The vector loops live in files of
 * their own compiled for their instruction set (avx512.c: AVX-512 F, DQ, VL
 * with BMI2), and are called only when cpu_isa() says the CPU runs them;
 * every other machine runs the portable loops, which the same tests hold to
 * the same one-key reference.
 *
 * The level is the highest this CPU supports, capped by the environment:
 * BLOOMLAB_ISA=portable|avx2|avx512 (the tests force `portable` for a
 * second pass; a level above the CPU's is capped at the CPU's, and said so
 * by cpu_isa_description).
 */
#ifndef BLOOMLAB_CPU_H
#define BLOOMLAB_CPU_H

#include <stddef.h>

#if defined(__x86_64__) || defined(__i386__)
#define BLOOMLAB_X86 1
#else
#define BLOOMLAB_X86 0
#endif

typedef enum { ISA_PORTABLE, ISA_AVX2, ISA_AVX512, ISA_COUNT } isa_level;

const char *isa_name(isa_level level);
int isa_from_name(const char *name, isa_level *out); /* 0, or -1: not a level */

/* The highest level this CPU runs (asked once: cpuid is not free). */
isa_level cpu_isa_supported(void);
/* The level the loops use: cpu_isa_supported() capped by BLOOMLAB_ISA. */
isa_level cpu_isa(void);
/* 0 when BLOOMLAB_ISA is unset or names a level; else -1 and one line in err. */
int cpu_isa_env_check(char *err, size_t err_size);
/* Writes "avx2 (this CPU: avx2)" or "portable (BLOOMLAB_ISA=portable; this
 * CPU: avx512)" into text; returns text. */
const char *cpu_isa_describe(char *text, size_t text_size);

/* The core's x86 vendor and family (cpuid leaves 0 and 1; the family as
 * AMD and Intel number it: the base family, plus the extended family where
 * the base is 15, so that AMD's Zen 3 and 4 are 25 and Zen 5 26), for the
 * few loop choices measured to differ between cores (filters.h's
 * filter_fetch_plan); CPU_VENDOR_OTHER and family 0 off x86. */
typedef enum { CPU_VENDOR_OTHER, CPU_VENDOR_AMD, CPU_VENDOR_INTEL } cpu_vendor;
cpu_vendor cpu_x86_vendor(void);
unsigned cpu_x86_family(void);

#endif
