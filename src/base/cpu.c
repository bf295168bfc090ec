/* CPU feature detection, once, for every SIMD job (see cpu_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "base/cpu_internal.h"

atomic_uint mb_cpu_state_;

static const char *const isa_names[MB_ISA_COUNT_] = {"auto", "generic", "sse2", "avx2", "avx512"};

const char *mb_isa_name_(mb_isa_ isa)
{
    return (unsigned)isa < (unsigned)MB_ISA_COUNT_ ? isa_names[isa] : NULL;
}

static unsigned detect_features(void)
{
    unsigned f = MB_CPU_DETECTED_;
#if defined(__SSE2__)
    f |= MB_CPU_SSE2_;
#endif
#if defined(__AVX2__) && defined(__FMA__)
    f |= MB_CPU_AVX2_FMA_;
#endif
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init(); /* idempotent; needed if we run before libgcc's constructor */
    if (__builtin_cpu_supports("sse2"))
        f |= MB_CPU_SSE2_;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        f |= MB_CPU_AVX2_FMA_;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
        f |= MB_CPU_AVX512_;
#endif
    return f;
}

/* The best ISA the features allow, capped by the environment variable MB_ISA (an unknown
 * value or "auto" caps nothing: the benchmarks print the kernel they got). */
static mb_isa_ auto_isa(unsigned f)
{
    mb_isa_ best = MB_ISA_GENERIC_;
#ifdef MB_CPU_BUILD_SSE2_
    if (f & MB_CPU_SSE2_)
        best = MB_ISA_SSE2_;
#endif
#ifdef MB_CPU_BUILD_AVX2_
    if ((f & MB_CPU_SSE2_) && (f & MB_CPU_AVX2_FMA_))
        best = MB_ISA_AVX2_;
#endif
#ifdef MB_CPU_BUILD_AVX512_
    if (best == MB_ISA_AVX2_ && (f & MB_CPU_AVX512_))
        best = MB_ISA_AVX512_;
#endif
    const char *env = getenv("MB_ISA");
    if (env)
        for (int i = MB_ISA_GENERIC_; i < MB_ISA_COUNT_; ++i)
            if (strcmp(env, isa_names[i]) == 0 && (mb_isa_)i < best)
                best = (mb_isa_)i;
    return best;
}

unsigned mb_cpu_detect_(void)
{
    unsigned f = detect_features();
    unsigned s = f | ((unsigned)auto_isa(f) << MB_CPU_AUTO_SHIFT_);
    atomic_store_explicit(&mb_cpu_state_, s, memory_order_relaxed);
    return s;
}
