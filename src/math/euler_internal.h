/* Private helpers of the Euler code. */
#ifndef MB_EULER_INTERNAL_H
#define MB_EULER_INTERNAL_H

#include "base/cpu_internal.h"
#include "mblend/math.h"

/* The order whose axes are (a0, a1, a2), each 0..2 and distinct; XYZ otherwise. */
mb_euler_order mb_euler_order_from_axes_(int a0, int a1, int a2);

/* mb_quat_from_euler for n rotations at once, angles in degrees (BVH units), for the
 * BVH reader: deg[k * n + i] is angle k (in the order's axis sequence) of rotation i,
 * order[i] its mb_euler_order; work holds 6 * n doubles; out[i] receives x, y, z, w.
 * sin/cos are a polynomial after an exact quarter-turn reduction, in double, vectorised
 * across the batch; within 1e-11 of the libm path (angles of 2^26 degrees, about 6.7e7,
 * or more, where the reduction is no longer exact, use libm). out may not alias deg or
 * work. */
void mb_quat_from_euler_deg_n_(int n, const unsigned char *order, const double *deg,
                               double *work, double (*out)[4]);

/* The sin/cos kernel: m angles a[] in degrees -> sn[], cs[] of half of each; returns 1
 * when some |a| >= MB_EULER_LIBM_DEG_ (the caller redoes those with libm). */
typedef int (*mb_euler_sincos_fn_)(int m, const double *restrict a, double *restrict sn,
                                   double *restrict cs);

/* The sin/cos kernel for an ISA (cpu_internal.h's scheme): the portable one for
 * MB_ISA_GENERIC_, the AVX2 one for MB_ISA_AVX2_ and the AVX-512 one for MB_ISA_AVX512_
 * where built and the CPU has it, NULL otherwise (there is no SSE2 kernel); MB_ISA_AUTO_:
 * the best the CPU runs, never NULL.
 * Every kernel gives bit-identical results (no FMA). */
mb_euler_sincos_fn_ mb_euler_sincos_kernel_(mb_isa_ isa);

/* mb_quat_from_euler_deg_n_ with the kernel of isa (MB_ISA_AUTO_ = what the reader uses);
 * MB_INVALID_ARG, nothing written, for an ISA without a kernel here. For tests. */
mb_status mb_quat_from_euler_deg_n_isa_(int n, const unsigned char *order, const double *deg,
                                        double *work, mb_isa_ isa, double (*out)[4]);

#ifdef MB_CPU_BUILD_AVX2_
/* The sin/cos kernel of mb_quat_from_euler_deg_n_ for AVX2 (euler_avx2.c): call only when
 * the CPU has it (mb_euler_sincos_kernel_). See euler_sincos.inc. */
#define MB_EULER_HAVE_AVX2_ 1
int mb_euler_sincos_half_deg_avx2_(int m, const double *restrict a, double *restrict sn,
                                   double *restrict cs);
void mb_euler_compose_avx2_(int m, int n, const double *restrict e, const double *restrict sn,
                          const double *restrict cs, double *restrict abcw);
#endif

#ifdef MB_CPU_BUILD_AVX512_
/* The same for AVX-512 (euler_avx512.c), eight lanes. */
#define MB_EULER_HAVE_AVX512_ 1
int mb_euler_sincos_half_deg_avx512_(int m, const double *restrict a, double *restrict sn,
                                     double *restrict cs);
void mb_euler_compose_avx512_(int m, int n, const double *restrict e, const double *restrict sn,
                          const double *restrict cs, double *restrict abcw);
#endif

#endif
