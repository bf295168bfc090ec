/* The one SIMD dispatch scheme of the library: the instruction sets a kernel can be built
 * for, what this CPU runs, and which of them the automatic choice takes.
 *
 * Each SIMD job (blend, skin, the BVH reader's Euler conversion) has the same shape:
 *   a table of its kernels indexed by mb_isa_ (entry 0 NULL, gaps where it has none) and
 *   the mask of the ISAs it has, from which mb_isa_select_ picks;
 *   mb_<job>_kernel_(mb_isa_ isa, ...) -> that job's kernel for isa, or NULL when the job
 *       has no kernel for it, it is not built in, or the CPU lacks it; MB_ISA_AUTO_ never
 *       gives NULL;
 *   mb_<job>_..._isa_(..., mb_isa_ isa, ...) -> the job run with that kernel (an ISA the
 *       job cannot run here is an error); the public entry point passes MB_ISA_AUTO_.
 * Tests and benchmarks choose kernels only through those parameters: there is no global
 * override a test could leave set. The one knob is the environment variable MB_ISA
 * (generic | sse2 | avx2 | avx512), read once, here, which lowers what MB_ISA_AUTO_ picks (for
 * benchmarks and for checking a portable path on a big machine); explicit ISAs ignore it.
 *
 * Thread safety: detection runs at most once per thread that races to it and always
 * stores the same value (a relaxed atomic), so any thread may call these at any time. */
#ifndef MB_CPU_INTERNAL_H
#define MB_CPU_INTERNAL_H

#include <stdatomic.h>

/* Ordered: a CPU that runs one runs every one before it. */
typedef enum mb_isa_ {
    MB_ISA_AUTO_ = 0, /* the best this CPU runs (lowered by MB_ISA) */
    MB_ISA_GENERIC_,  /* portable C, the build's baseline flags */
    MB_ISA_SSE2_,     /* x86 SSE2 */
    MB_ISA_AVX2_,     /* x86 AVX2 + FMA (x86-64-v3's vector part) */
    MB_ISA_AVX512_,   /* x86 AVX-512 F + VL + DQ + BW (x86-64-v4's vector part), with AVX2 + FMA */
    MB_ISA_COUNT_
} mb_isa_;

/* Kernels for x86 extensions beyond the build flags are compiled with target pragmas
 * (GCC and Clang) and called after the run-time check below. */
#if defined(__x86_64__) || defined(_M_X64) || (defined(__i386__) && defined(__SSE2__))
#define MB_CPU_BUILD_SSE2_ 1
#endif
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define MB_CPU_BUILD_AVX2_ 1
#define MB_CPU_BUILD_AVX512_ 1
#endif

/* Detected features, one bit each (MB_CPU_DETECTED_ marks a filled cache). */
enum {
    MB_CPU_DETECTED_ = 1u << 0,
    MB_CPU_SSE2_ = 1u << 1,
    MB_CPU_AVX2_FMA_ = 1u << 2, /* AVX2 and FMA both */
    MB_CPU_AVX512_ = 1u << 3,   /* AVX-512 F, VL, DQ and BW together */
    MB_CPU_AUTO_SHIFT_ = 8      /* bits 8..11: the ISA MB_ISA_AUTO_ means */
};

/* The cache (0 = not detected yet) and its filler (cpu.c). */
extern atomic_uint mb_cpu_state_;
unsigned mb_cpu_detect_(void);

/* Feature bits and the automatic ISA, detected on first use. */
static inline unsigned mb_cpu_state_get_(void)
{
    unsigned s = atomic_load_explicit(&mb_cpu_state_, memory_order_relaxed);
    return s ? s : mb_cpu_detect_();
}

/* 1 when this CPU runs code built for isa (GENERIC and AUTO: always). Ignores MB_ISA. */
static inline int mb_cpu_has_(mb_isa_ isa)
{
    switch (isa) {
    case MB_ISA_AUTO_:
    case MB_ISA_GENERIC_:
        return 1;
    case MB_ISA_SSE2_:
#if defined(__SSE2__)
        return 1;
#else
        return (mb_cpu_state_get_() & MB_CPU_SSE2_) != 0;
#endif
    case MB_ISA_AVX2_:
#if defined(__AVX2__) && defined(__FMA__)
        return 1;
#else
        return (mb_cpu_state_get_() & MB_CPU_AVX2_FMA_) != 0;
#endif
    case MB_ISA_AVX512_:
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512DQ__) && \
    defined(__AVX512BW__) && defined(__AVX2__) && defined(__FMA__)
        return 1;
#else
        return (mb_cpu_state_get_() & MB_CPU_AVX512_) != 0 &&
               (mb_cpu_state_get_() & MB_CPU_AVX2_FMA_) != 0;
#endif
    default:
        return 0;
    }
}

/* What MB_ISA_AUTO_ stands for: the best ISA the CPU runs, lowered by MB_ISA; never AUTO. */
static inline mb_isa_ mb_cpu_auto_isa_(void)
{
    return (mb_isa_)((mb_cpu_state_get_() >> MB_CPU_AUTO_SHIFT_) & 0xfu);
}

/* The one selection rule of every job. built: bit i set when the job has a kernel for ISA
 * i (MB_ISA_BIT_(MB_ISA_GENERIC_) always). Returns the ISA whose kernel runs for isa: isa
 * itself when the job has it and the CPU runs it; for MB_ISA_AUTO_ the best the job has at
 * or below mb_cpu_auto_isa_(); MB_ISA_AUTO_ (0) when there is none, so that a job's table
 * of kernels indexed by ISA, with a NULL entry 0, gives NULL. */
#define MB_ISA_BIT_(isa) (1u << (unsigned)(isa))
/* The built mask of a job whose kernels are a table of function pointers indexed by
 * mb_isa_ (gaps NULL): one bit per entry that is set. */
#define MB_ISA_BUILT_(table)                                                               \
    (((table)[MB_ISA_GENERIC_] ? MB_ISA_BIT_(MB_ISA_GENERIC_) : 0u) |                      \
     ((table)[MB_ISA_SSE2_] ? MB_ISA_BIT_(MB_ISA_SSE2_) : 0u) |                            \
     ((table)[MB_ISA_AVX2_] ? MB_ISA_BIT_(MB_ISA_AVX2_) : 0u) |                            \
     ((table)[MB_ISA_AVX512_] ? MB_ISA_BIT_(MB_ISA_AVX512_) : 0u))
static inline mb_isa_ mb_isa_select_(mb_isa_ isa, unsigned built)
{
    if (isa == MB_ISA_AUTO_) {
        unsigned i = (unsigned)mb_cpu_auto_isa_();
        while (i > (unsigned)MB_ISA_GENERIC_ && !(built & MB_ISA_BIT_(i)))
            --i;
        return (mb_isa_)i;
    }
    if ((unsigned)isa >= (unsigned)MB_ISA_COUNT_ || !(built & MB_ISA_BIT_(isa)) ||
        !mb_cpu_has_(isa))
        return MB_ISA_AUTO_;
    return isa;
}

/* "auto", "generic", "sse2", "avx2", "avx512"; NULL out of range. */
const char *mb_isa_name_(mb_isa_ isa);

#endif
