/* Private pieces of clip sampling: the rotation kernels behind mb_clip_sample
 * (cpu_internal.h's scheme). */
#ifndef MB_SAMPLE_INTERNAL_H
#define MB_SAMPLE_INTERNAL_H

#include "base/cpu_internal.h"
#include "mblend/runtime/anim.h"

/* Series slerp weights for one interpolation parameter t, shared by every joint:
 * sin(k th) / sin(th) = k (1 + c1 th^2 + c2 th^4) with c1 = (1 - k^2) / 6 and
 * c2 = (1 - k^2)(7 - 3 k^2) / 360, k = 1 - t for the first frame and t for the second. */
typedef struct mb_series_w_ {
    float ka, a1, a2, kb, b1, b2;
} mb_series_w_;

mb_series_w_ mb_series_weights_(double t);

/* The wide slerp, for frames farther apart than the series covers (any angle), in float:
 * after the short-arc sign flip (b' = sign(a.b) b), theta = the angle between a and b' in
 * [0, pi/2]; tan(theta/2) = |b' - a| / |b' + a| (no cancellation at small angles),
 * u = tan(theta/4) = z / (1 + sqrt(1 + z^2)) in [0, tan(pi/8)], theta = 4 atan(u) from the
 * Taylor series of atan to u^17 (truncation < 2e-8 rad); the weights are
 * k sinc(k theta) (sinc(x) = sin(x)/x, Taylor to x^12, truncation < 5e-10 for x <= pi/2),
 * for k = 1 - t and t, and the sum is normalised (the common 1 / sin(theta) drops out).
 * Equal keys give theta = 0 and the lerp weights. Bound: the test holds every kernel to
 * 2e-6 rad of a double slerp; measured worst about 1e-7 (see the tests). */
enum { MB_SLERP_ATAN_N_ = 9, MB_SLERP_SINC_N_ = 7 };
extern const float MB_SLERP_ATAN_C_[MB_SLERP_ATAN_N_]; /* atan(u) / u in powers of u^2 */
extern const float MB_SLERP_SINC_C_[MB_SLERP_SINC_N_]; /* sinc(x) in powers of x^2 */

/* A kernel writes out[j].rot = slerp(r0[j], r1[j], a) for joints [0, n), a in (0, 1)
 * (rows of 4 floats, unit quaternions): the series slerp where two frames are under about
 * 11 degrees apart, the wide one above elsewhere (sample.c). */
typedef void (*mb_sample_rot_fn_)(const float *r0, const float *r1, int n, double a,
                                  mb_xform *out);

void mb_sample_rot_generic_(const float *r0, const float *r1, int n, double a, mb_xform *out);
#ifdef MB_CPU_BUILD_AVX2_
/* 8 joints at a time (the last n % 8 padded), the same method as the AVX-512 kernel. */
#define MB_SAMPLE_HAVE_AVX2_ 1
void mb_sample_rot_avx2_(const float *r0, const float *r1, int n, double a, mb_xform *out);
#endif
#ifdef MB_CPU_BUILD_AVX512_
/* 16 joints at a time (the last n % 16 padded); far lanes through the wide slerp on 16 lanes. */
#define MB_SAMPLE_HAVE_AVX512_ 1
void mb_sample_rot_avx512_(const float *r0, const float *r1, int n, double a, mb_xform *out);
#endif

/* The kernel for an ISA: the portable one, the AVX2 and AVX-512 ones where the CPU has them, NULL for
 * the others; MB_ISA_AUTO_: the best the CPU runs. */
mb_sample_rot_fn_ mb_sample_rot_kernel_(mb_isa_ isa);

/* mb_clip_sample with the rotation kernel of isa (one without a kernel: MB_INVALID_ARG).
 * For tests and benchmarks. */
mb_status mb_clip_sample_isa_(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap,
                              mb_pose out, mb_isa_ isa);

#endif
