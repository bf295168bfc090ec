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

/* A kernel writes out[j].rot = slerp(r0[j], r1[j], a) for joints [0, n), a in (0, 1)
 * (rows of 4 floats, unit quaternions): the series slerp where two frames are under about
 * 11 degrees apart, the textbook one in double elsewhere (sample.c). */
typedef void (*mb_sample_rot_fn_)(const float *r0, const float *r1, int n, double a,
                                  mb_xform *out);

void mb_sample_rot_generic_(const float *r0, const float *r1, int n, double a, mb_xform *out);
#ifdef MB_CPU_BUILD_AVX512_
/* 16 joints at a time (the last n % 16 padded); far pairs through the portable kernel. */
#define MB_SAMPLE_HAVE_AVX512_ 1
void mb_sample_rot_avx512_(const float *r0, const float *r1, int n, double a, mb_xform *out);
#endif

/* The kernel for an ISA: the portable one, the AVX-512 one where the CPU has it, NULL for
 * the others; MB_ISA_AUTO_: the best the CPU runs. */
mb_sample_rot_fn_ mb_sample_rot_kernel_(mb_isa_ isa);

/* mb_clip_sample with the rotation kernel of isa (one without a kernel: MB_INVALID_ARG).
 * For tests and benchmarks. */
mb_status mb_clip_sample_isa_(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap,
                              mb_pose out, mb_isa_ isa);

#endif
