/* The SIMD dispatch scheme (src/base/cpu_internal.h): CPU detection against the compiler's
 * own probe, that every job has a kernel for every ISA this machine runs (so the kernel
 * tests, which skip an ISA without one, run each kernel wherever the CPU has it), what
 * MB_ISA_AUTO_ picks with and without the MB_ISA variable, and the Euler kernels (the
 * BVH reader's batched conversion) against each other and an independent libm path.
 * Criterion runs each test in its own process, so each sees its own first detection. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "base/cpu_internal.h"
#include "runtime/blend/blend_internal.h"
#include "math/euler_internal.h"
#include "runtime/skin/skin_internal.h"
#include "runtime/anim/fk_internal.h"
#include "runtime/anim/sample_internal.h"
#include "test_util.h"

/* What the CPU runs, asked of the compiler's probe directly (independent of cpu.c). */
static int probe(mb_isa_ isa)
{
    if (isa == MB_ISA_GENERIC_)
        return 1;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    if (isa == MB_ISA_SSE2_)
        return __builtin_cpu_supports("sse2") != 0;
    if (isa == MB_ISA_AVX2_)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (isa == MB_ISA_AVX512_)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
               __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw");
#endif
    return 0;
}

Test(cpu, detection_matches_the_compiler_probe)
{
    for (int i = MB_ISA_GENERIC_; i < MB_ISA_COUNT_; ++i) {
        cr_log_info("%s: %s", mb_isa_name_((mb_isa_)i), probe((mb_isa_)i) ? "yes" : "no");
        cr_assert_eq(mb_cpu_has_((mb_isa_)i), probe((mb_isa_)i), "%s", mb_isa_name_((mb_isa_)i));
    }
    cr_assert_eq(mb_cpu_has_(MB_ISA_AUTO_), 1);
    cr_assert_eq(mb_cpu_has_(MB_ISA_COUNT_), 0);
    cr_assert_str_eq(mb_isa_name_(MB_ISA_AVX2_), "avx2");
    cr_assert_str_eq(mb_isa_name_(MB_ISA_AVX512_), "avx512");
    cr_assert_null(mb_isa_name_(MB_ISA_COUNT_));
}

/* Every ISA the CPU runs and the build targets has its kernel in every job: the kernel
 * tests (test_blend, test_skin, below) skip an ISA only where this says it is absent. */
Test(cpu, every_job_has_a_kernel_for_what_the_cpu_runs)
{
    cr_assert_not_null(mb_blend_kernel_(MB_ISA_GENERIC_, NULL));
    cr_assert_not_null(mb_skin_kernel_(MB_ISA_GENERIC_));
    cr_assert_not_null(mb_euler_sincos_kernel_(MB_ISA_GENERIC_));
#ifdef MB_CPU_BUILD_SSE2_
    if (probe(MB_ISA_SSE2_))
        cr_assert_not_null(mb_blend_kernel_(MB_ISA_SSE2_, NULL));
#endif
    cr_assert_null(mb_skin_kernel_(MB_ISA_SSE2_)); /* none: not the portable one renamed */
    cr_assert_null(mb_euler_sincos_kernel_(MB_ISA_SSE2_));
#ifdef MB_CPU_BUILD_AVX2_
    int avx2 = probe(MB_ISA_AVX2_);
    int lanes = 0;
    cr_assert_eq(mb_blend_kernel_(MB_ISA_AVX2_, &lanes) != NULL, avx2);
    cr_assert_eq(mb_skin_kernel_(MB_ISA_AVX2_) != NULL, avx2);
    cr_assert_eq(mb_euler_sincos_kernel_(MB_ISA_AVX2_) != NULL, avx2);
    if (avx2) {
        cr_assert_eq(lanes, 8);
        cr_assert(mb_blend_kernel_(MB_ISA_AVX2_, NULL) != mb_blend_kernel_(MB_ISA_GENERIC_, NULL));
        cr_assert(mb_skin_kernel_(MB_ISA_AVX2_) != mb_skin_kernel_(MB_ISA_GENERIC_));
        cr_assert(mb_euler_sincos_kernel_(MB_ISA_AVX2_) !=
                  mb_euler_sincos_kernel_(MB_ISA_GENERIC_));
    }
#endif
#ifdef MB_CPU_BUILD_AVX512_
    /* the blend job has an AVX-512 kernel of 16 lanes wherever the CPU runs AVX-512 */
    int avx512 = probe(MB_ISA_AVX512_);
    int lanes512 = 0;
    cr_assert_eq(mb_blend_kernel_(MB_ISA_AVX512_, &lanes512) != NULL, avx512);
    if (avx512) {
        cr_assert_eq(lanes512, 16);
        cr_assert(mb_blend_kernel_(MB_ISA_AVX512_, NULL) != mb_blend_kernel_(MB_ISA_AVX2_, NULL));
        cr_assert_not_null(mb_blend_checker_(MB_ISA_AVX512_));
    }
    /* the Euler conversion has its own AVX-512 kernel, not the AVX2 one renamed */
    cr_assert_eq(mb_euler_sincos_kernel_(MB_ISA_AVX512_) != NULL, probe(MB_ISA_AVX512_));
    if (probe(MB_ISA_AVX512_))
        cr_assert(mb_euler_sincos_kernel_(MB_ISA_AVX512_) !=
                  mb_euler_sincos_kernel_(MB_ISA_AVX2_));
#endif
    /* an ISA out of range is nobody's */
    cr_assert_null(mb_blend_kernel_(MB_ISA_COUNT_, NULL));
    cr_assert_null(mb_skin_kernel_(MB_ISA_COUNT_));
    cr_assert_null(mb_euler_sincos_kernel_(MB_ISA_COUNT_));
}

/* Skinning and sampling have their own AVX-512 kernels wherever the CPU runs them
 * (sampling: those, AVX2 ones and the portable one, no SSE2 one). */
Test(cpu, skin_and_sampling_have_avx512_kernels_where_the_cpu_runs_them)
{
    cr_assert_not_null(mb_sample_rot_kernel_(MB_ISA_GENERIC_));
    cr_assert_null(mb_sample_rot_kernel_(MB_ISA_SSE2_));
#ifdef MB_CPU_BUILD_AVX2_
    cr_assert_eq(mb_sample_rot_kernel_(MB_ISA_AVX2_) != NULL, probe(MB_ISA_AVX2_));
    if (probe(MB_ISA_AVX2_))
        cr_assert(mb_sample_rot_kernel_(MB_ISA_AVX2_) != mb_sample_rot_kernel_(MB_ISA_GENERIC_));
#else
    cr_assert_null(mb_sample_rot_kernel_(MB_ISA_AVX2_));
#endif
#ifdef MB_CPU_BUILD_AVX512_
    cr_assert_eq(mb_skin_kernel_(MB_ISA_AVX512_) != NULL, probe(MB_ISA_AVX512_));
    cr_assert_eq(mb_sample_rot_kernel_(MB_ISA_AVX512_) != NULL, probe(MB_ISA_AVX512_));
    if (probe(MB_ISA_AVX512_)) {
        cr_assert(mb_skin_kernel_(MB_ISA_AVX512_) != mb_skin_kernel_(MB_ISA_AVX2_));
        cr_assert(mb_sample_rot_kernel_(MB_ISA_AVX512_) != mb_sample_rot_kernel_(MB_ISA_GENERIC_));
        cr_assert(mb_sample_rot_kernel_(MB_ISA_AVX512_) != mb_sample_rot_kernel_(MB_ISA_AVX2_));
    }
#else
    cr_assert_null(mb_skin_kernel_(MB_ISA_AVX512_));
    cr_assert_null(mb_sample_rot_kernel_(MB_ISA_AVX512_));
#endif
}

/* Forward kinematics: a portable kernel, AVX2 and AVX-512 ones wherever the CPU runs them
 * (each its own function), none for SSE2. */
Test(cpu, fk_has_a_kernel_for_what_the_cpu_runs)
{
    cr_assert_not_null(mb_fk_kernel_(MB_ISA_GENERIC_));
    cr_assert_null(mb_fk_kernel_(MB_ISA_SSE2_));
    cr_assert_null(mb_fk_kernel_(MB_ISA_COUNT_));
#ifdef MB_CPU_BUILD_AVX2_
    cr_assert_eq(mb_fk_kernel_(MB_ISA_AVX2_) != NULL, probe(MB_ISA_AVX2_));
    cr_assert_eq(mb_fk_kernel_(MB_ISA_AVX512_) != NULL, probe(MB_ISA_AVX512_));
    if (probe(MB_ISA_AVX2_))
        cr_assert(mb_fk_kernel_(MB_ISA_AVX2_) != mb_fk_kernel_(MB_ISA_GENERIC_));
    if (probe(MB_ISA_AVX512_))
        cr_assert(mb_fk_kernel_(MB_ISA_AVX512_) != mb_fk_kernel_(MB_ISA_AVX2_));
#endif
}

/* The best ISA the probe allows, capped at what the build targets. */
static mb_isa_ best_isa(void)
{
    mb_isa_ best = MB_ISA_GENERIC_;
#ifdef MB_CPU_BUILD_SSE2_
    if (probe(MB_ISA_SSE2_))
        best = MB_ISA_SSE2_;
#endif
#ifdef MB_CPU_BUILD_AVX2_
    if (best == MB_ISA_SSE2_ && probe(MB_ISA_AVX2_))
        best = MB_ISA_AVX2_;
#endif
#ifdef MB_CPU_BUILD_AVX512_
    if (best == MB_ISA_AVX2_ && probe(MB_ISA_AVX512_))
        best = MB_ISA_AVX512_;
#endif
    return best;
}

/* The ISA whose kernel a job's AUTO should take: the best at or below best it has. */
#define JOB_BEST_FN(name, has_kernel)                                                      \
    static mb_isa_ name(mb_isa_ best)                                                      \
    {                                                                                      \
        int i = (int)best;                                                                 \
        while (i > MB_ISA_GENERIC_ && !(has_kernel))                                       \
            --i;                                                                           \
        return (mb_isa_)i;                                                                 \
    }
JOB_BEST_FN(blend_best, mb_blend_kernel_((mb_isa_)i, NULL))
JOB_BEST_FN(skin_best, mb_skin_kernel_((mb_isa_)i))
JOB_BEST_FN(euler_best, mb_euler_sincos_kernel_((mb_isa_)i))
JOB_BEST_FN(fk_best, mb_fk_kernel_((mb_isa_)i))
JOB_BEST_FN(sample_best, mb_sample_rot_kernel_((mb_isa_)i))

Test(cpu, auto_takes_the_best_kernel)
{
    unsetenv("MB_ISA"); /* before the first detection in this process */
    mb_isa_ best = best_isa();
    cr_assert_eq(mb_cpu_auto_isa_(), best, "auto %s, best %s", mb_isa_name_(mb_cpu_auto_isa_()),
                 mb_isa_name_(best));
    cr_assert_eq(mb_blend_kernel_(MB_ISA_AUTO_, NULL),
                 mb_blend_kernel_(blend_best(best), NULL));
    cr_assert_eq(mb_skin_kernel_(MB_ISA_AUTO_), mb_skin_kernel_(skin_best(best)));
    cr_assert_eq(mb_euler_sincos_kernel_(MB_ISA_AUTO_),
                 mb_euler_sincos_kernel_(euler_best(best)));
    cr_assert_eq(mb_fk_kernel_(MB_ISA_AUTO_), mb_fk_kernel_(fk_best(best)));
    cr_assert_eq(mb_sample_rot_kernel_(MB_ISA_AUTO_), mb_sample_rot_kernel_(sample_best(best)));
}

Test(cpu, mb_isa_lowers_auto_only)
{
    setenv("MB_ISA", "generic", 1); /* before the first detection in this process */
    cr_assert_eq(mb_cpu_auto_isa_(), MB_ISA_GENERIC_);
    cr_assert_eq(mb_blend_kernel_(MB_ISA_AUTO_, NULL), mb_blend_kernel_(MB_ISA_GENERIC_, NULL));
    cr_assert_eq(mb_skin_kernel_(MB_ISA_AUTO_), mb_skin_kernel_(MB_ISA_GENERIC_));
    cr_assert_eq(mb_euler_sincos_kernel_(MB_ISA_AUTO_), mb_euler_sincos_kernel_(MB_ISA_GENERIC_));
    cr_assert_eq(mb_fk_kernel_(MB_ISA_AUTO_), mb_fk_kernel_(MB_ISA_GENERIC_));
    cr_assert_eq(mb_sample_rot_kernel_(MB_ISA_AUTO_), mb_sample_rot_kernel_(MB_ISA_GENERIC_));
    /* explicit ISAs still run what the CPU has: the tests keep every kernel */
    for (int i = MB_ISA_GENERIC_; i < MB_ISA_COUNT_; ++i)
        cr_assert_eq(mb_cpu_has_((mb_isa_)i), probe((mb_isa_)i));
}

Test(cpu, mb_isa_never_raises_auto)
{
    setenv("MB_ISA", "avx2", 1);
    mb_isa_ best = best_isa();
    /* avx2 caps an AVX-512 CPU at avx2; a CPU without avx2 stays lower */
    cr_assert_eq(mb_cpu_auto_isa_(), best < MB_ISA_AVX2_ ? best : MB_ISA_AVX2_);
}

/* ---------- the Euler kernels ---------- */

/* q0 q1 q2 (Hamilton, x y z w) of the intrinsic rotations about order's axes, libm sin/cos
 * of the half angles in degrees: the test's own path. */
static void euler_ref(int order, const double deg[3], double q[4])
{
    static const int axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    double acc[4] = {0, 0, 0, 1};
    for (int k = 0; k < 3; ++k) {
        double h = 0.5 * deg[k] * (3.14159265358979323846 / 180.0), b[4] = {0, 0, 0, cos(h)};
        b[axes[order][k]] = sin(h);
        double r[4] = {acc[3] * b[0] + acc[0] * b[3] + acc[1] * b[2] - acc[2] * b[1],
                       acc[3] * b[1] - acc[0] * b[2] + acc[1] * b[3] + acc[2] * b[0],
                       acc[3] * b[2] + acc[0] * b[1] - acc[1] * b[0] + acc[2] * b[3],
                       acc[3] * b[3] - acc[0] * b[0] - acc[1] * b[1] - acc[2] * b[2]};
        memcpy(acc, r, sizeof r);
    }
    memcpy(q, acc, sizeof acc);
}

Test(euler_kernels, agree_bitwise_and_with_libm)
{
    enum { N = 1003 }; /* odd: leaves a partial vector */
    static unsigned char order[N];
    static double deg[3 * N], work[6 * N], got[MB_ISA_COUNT_][N][4];
    uint64_t rng = 0x5EED5EEDull;
    for (int t = 0; t < N; ++t) {
        order[t] = (unsigned char)(t % 6);
        for (int k = 0; k < 3; ++k) {
            double u = mb_test_unit(&rng) * 2.0 - 1.0;
            /* mostly BVH-sized angles; some multiples of 90 (the reduction's edges), some
             * huge (the libm fallback) */
            double a = t % 17 == 0 ? 90.0 * (double)(int)(u * 40) : t % 29 == 0 ? u * 1e9 : u * 720.0;
            deg[k * N + t] = a;
        }
    }
    int ran = 0;
    for (int i = MB_ISA_GENERIC_; i < MB_ISA_COUNT_; ++i) {
        mb_status st = mb_quat_from_euler_deg_n_isa_(N, order, deg, work, (mb_isa_)i, got[i]);
        if (!mb_euler_sincos_kernel_((mb_isa_)i)) {
            cr_assert_eq(st, MB_INVALID_ARG, "%s", mb_isa_name_((mb_isa_)i));
            continue;
        }
        cr_assert_eq(st, MB_OK);
        ++ran;
        double worst = 0.0;
        for (int t = 0; t < N; ++t) {
            double a[3] = {deg[t], deg[N + t], deg[2 * N + t]}, want[4];
            euler_ref(order[t], a, want);
            for (int c = 0; c < 4; ++c)
                worst = fmax(worst, fabs(got[i][t][c] - want[c]));
            /* every kernel rounds as the portable one: the reader's output is the same on
             * every machine */
            cr_assert(memcmp(got[i][t], got[MB_ISA_GENERIC_][t], sizeof got[i][t]) == 0,
                      "%s rotation %d differs from generic", mb_isa_name_((mb_isa_)i), t);
        }
        cr_log_info("%s: worst %.3g against libm", mb_isa_name_((mb_isa_)i), worst);
        /* each half-angle sin/cos is within 1e-11 of libm (euler_internal.h), so a product
         * of three rotations within about 3e-11 (2.5e-11 measured) */
        cr_assert(worst < 4e-11, "%s: %g", mb_isa_name_((mb_isa_)i), worst);
    }
    cr_assert_geq(ran, 1 + probe(MB_ISA_AVX2_) + probe(MB_ISA_AVX512_));
    /* the automatic choice is one of them */
    static double autoq[N][4];
    mb_quat_from_euler_deg_n_(N, order, deg, work, autoq);
    cr_assert(memcmp(autoq, got[MB_ISA_GENERIC_], sizeof autoq) == 0);
}
