/* cpu.c -- the run-time choice of vector loops (cpu.h says why). */
#include "base/cpu.h"
#include "base/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if BLOOMLAB_X86
#include <cpuid.h>
#endif

static const char *const ISA_NAMES[ISA_COUNT] = {"portable", "avx2", "avx512"};

const char *isa_name(isa_level level) { return level < ISA_COUNT ? ISA_NAMES[level] : "?"; }

int isa_from_name(const char *name, isa_level *out)
{
    int l = name_index(ISA_NAMES, 0, ISA_COUNT, name);
    if (l >= 0)
        *out = (isa_level)l;
    return l >= 0 ? 0 : -1;
}

/* AVX2 with BMI2 is Haswell (2013) and Zen 1 on; the AVX-512 loops also use
 * DQ (64-bit lane products) and VL (masked 256-bit forms). */
static isa_level probe_cpu(void)
{
#if BLOOMLAB_X86
    __builtin_cpu_init();
    const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    const int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                       __builtin_cpu_supports("avx512vl");
    return avx512 ? ISA_AVX512 : avx2 ? ISA_AVX2 : ISA_PORTABLE;
#else
    return ISA_PORTABLE;
#endif
}

isa_level cpu_isa_supported(void)
{
    /* Racing threads store the same value: the probe has no side effects. */
    static volatile int probed = -1;
    if (probed < 0)
        probed = (int)probe_cpu();
    return (isa_level)probed;
}

/* The environment's cap, or ISA_COUNT when there is none (or it is not a
 * level: main refuses that before any work through cpu_isa_env_check). */
static isa_level env_cap(void)
{
    const char *value = getenv("BLOOMLAB_ISA");
    isa_level cap;
    if (value == NULL || *value == '\0' || isa_from_name(value, &cap) != 0)
        return ISA_COUNT;
    return cap;
}

isa_level cpu_isa(void)
{
    const isa_level cpu = cpu_isa_supported(), cap = env_cap();
    return cap < cpu ? cap : cpu;
}

int cpu_isa_env_check(char *err, size_t err_size)
{
    const char *value = getenv("BLOOMLAB_ISA");
    isa_level unused;
    if (value == NULL || *value == '\0' || isa_from_name(value, &unused) == 0)
        return 0;
    snprintf(err, err_size, "environment: BLOOMLAB_ISA='%.40s' is not a level (portable, avx2, avx512)", value);
    return -1;
}

const char *cpu_isa_describe(char *text, size_t text_size)
{
    const isa_level cpu = cpu_isa_supported(), cap = env_cap(), used = cpu_isa();
    if (cap == ISA_COUNT)
        snprintf(text, text_size, "%s (this CPU: %s)", isa_name(used), isa_name(cpu));
    else
        snprintf(text, text_size, "%s (BLOOMLAB_ISA=%s; this CPU: %s)", isa_name(used), isa_name(cap),
                 isa_name(cpu));
    return text;
}

cpu_vendor cpu_x86_vendor(void)
{
#if BLOOMLAB_X86
    unsigned top, ebx, ecx, edx;
    if (__get_cpuid(0, &top, &ebx, &ecx, &edx) == 0)
        return CPU_VENDOR_OTHER;
    char name[13];
    memcpy(name, &ebx, 4); /* the vendor string is ebx, edx, ecx */
    memcpy(name + 4, &edx, 4);
    memcpy(name + 8, &ecx, 4);
    name[12] = '\0';
    return strcmp(name, "AuthenticAMD") == 0   ? CPU_VENDOR_AMD
           : strcmp(name, "GenuineIntel") == 0 ? CPU_VENDOR_INTEL
                                               : CPU_VENDOR_OTHER;
#else
    return CPU_VENDOR_OTHER;
#endif
}

unsigned cpu_x86_family(void)
{
#if BLOOMLAB_X86
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0)
        return 0;
    const unsigned base = (eax >> 8) & 0xF, extended = (eax >> 20) & 0xFF;
    return base == 15 ? base + extended : base;
#else
    return 0;
#endif
}
