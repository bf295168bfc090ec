/* Private interface of the blend job: the SIMD kernel that runs the default path (logexp,
 * fast solver), shared by blend.c, the tests and tools/bench/bench_blend.c.
 *
 * The kernel works in single precision across joints (structure of arrays, W lanes per
 * vector) on a batch of consecutive joints, phase by phase over the batch's groups of W
 * so that independent groups overlap in the CPU (the power iteration and the polynomials
 * are chains of dependent operations). A joint whose reference quaternion it cannot
 * certify (gap bound below min_gap, power iteration not converged, a fully masked joint,
 * a quaternion whose norm float cannot handle) is not written: its bit is set in rej[]
 * and the caller runs the double-precision scalar path for it, which falls back to
 * LAPACKE where the gap may be below the user's threshold. The kernel also validates the
 * values it reads (doubt), so that the caller need not pass over the inputs beforehand. */
#ifndef MB_BLEND_INTERNAL_H
#define MB_BLEND_INTERNAL_H

#include "base/cpu_internal.h"
#include "mblend/runtime/blend.h"

#define MB_BLEND_BATCH_MAX_GROUPS 16

/* A run of consecutive joints. Pointers point at the job's joint 0; the kernel handles
 * joints j0 .. j0 + count - 1, or fewer (it returns how many), never reading or writing
 * outside that range. */
typedef struct mb_blend_batch_ {
    int k;                       /* inputs, 1..MB_BLEND_MAX_LAYERS (zero-weight layers dropped);
                                    input 0 must have the largest layer weight (the power
                                    iteration starts from it) */
    int j0, count;
    const mb_xform *const *src;  /* k inputs */
    const float *const *mask;    /* NULL, or k entries each NULL (no mask) or the mask values */
    const float *weight;         /* k layer weights; they sum to 1 when mask is NULL */
    mb_xform *dst;               /* may be exactly the memory of one input */
    float *max_angle;            /* optional diagnostics */
    /* Given references (bench only: times the log/exp step alone), in groups of W joints,
     * each 4 * W floats component-major (x of all lanes, then y, z, w), from joint 0.
     * NULL: solve for them. */
    const float *ref;
    float min_gap; /* accept a lane only if its relative-gap bound is >= this */
    /* two inputs: accept a lane whose exact relative gap (closed form) is >= this (<= min_gap:
     * any reference on the great circle of the two inputs gives the same blend, so only the
     * user's threshold, with a margin for float, matters there) */
    float min_gap2;
    float tol;     /* and its eigenvector's angle bound |r| / (rho - lambda2 bound) <= this */
    /* out: bit l of rej[g] = joint j0 + g * W + l was not written; rej_any = the OR of them */
    unsigned rej[MB_BLEND_BATCH_MAX_GROUPS];
    unsigned rej_any;
    /* out: 0 when every value the kernel read (all inputs of all handled joints, written
     * or not) passes the job's value rules: every rotation has 1e-30 < |q|^2 < 3e38 and
     * every weighted sum of translations is finite; 1 means "re-check exactly" */
    int doubt;
} mb_blend_batch_;

/* Counters a kernel may add to (tests and bench). */
typedef struct mb_blend_kstats_ {
    long groups;
    long iterations;     /* matrix-vector products of the power iteration, summed over
                            groups (not lanes); 0 for the closed forms (one or two inputs) */
    long renormalised;   /* groups whose inputs needed the exact normalisation */
    long rejected_lanes; /* lanes handed back to the scalar path */
    long exact_joints;   /* joints whose reference came from LAPACKE (counted by blend.c) */
} mb_blend_kstats_;

/* Runs a batch; returns the number of joints handled (>= 1); stats may be NULL. */
typedef int (*mb_blend_kernel_fn_)(mb_blend_batch_ *b, mb_blend_kstats_ *stats);

/* A fast pre-check of pose values: 1 when every float of x[0..n) is finite and every
 * rotation has 1e-30 < |q|^2 < 3e38 in float; 0 means "re-check exactly". */
typedef int (*mb_blend_check_fn_)(const mb_xform *x, int n);

/* The kernel for an ISA and its lane count; NULL when the ISA is not built in or the CPU
 * lacks it (MB_ISA_AUTO_ never gives NULL). The dispatch scheme is cpu_internal.h's. */
mb_blend_kernel_fn_ mb_blend_kernel_(mb_isa_ isa, int *out_lanes);
/* The nlerp kernel (MB_BLEND_NLERP) for an ISA, the same batch interface and lanes as
 * mb_blend_kernel_(isa) (the batch's ref, min_gap, tol and max_angle are not read; the
 * inputs keep their layer order, which the nlerp's result depends on); NULL likewise. */
mb_blend_kernel_fn_ mb_blend_nlerp_kernel_(mb_isa_ isa);
/* The pre-check that goes with mb_blend_kernel_(isa) (NULL when that is NULL). */
mb_blend_check_fn_ mb_blend_checker_(mb_isa_ isa);

/* mb_blend_run with a chosen kernel ISA (MB_ISA_AUTO_ = what mb_blend_run uses; an ISA
 * without a kernel here gives MB_INVALID_ARG on the kernel path); stats may be NULL. */
mb_status mb_blend_run_isa_(const mb_blend_desc *d, mb_isa_ isa, mb_blend_kstats_ *stats);

/* The instantiations (blend_kernel_*.c). */
int mb_blend_kernel_generic_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_nlerp_generic_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_check_generic_(const mb_xform *x, int n);
#ifdef MB_CPU_BUILD_SSE2_
#define MB_BLEND_HAVE_SSE2_ 1
int mb_blend_kernel_sse2_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_nlerp_sse2_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_check_sse2_(const mb_xform *x, int n);
#endif
#ifdef MB_CPU_BUILD_AVX2_
#define MB_BLEND_HAVE_AVX2_ 1
int mb_blend_kernel_avx2_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_nlerp_avx2_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_check_avx2_(const mb_xform *x, int n);
#endif
#ifdef MB_CPU_BUILD_AVX512_
#define MB_BLEND_HAVE_AVX512_ 1
int mb_blend_kernel_avx512_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_nlerp_avx512_(mb_blend_batch_ *b, mb_blend_kstats_ *stats);
int mb_blend_check_avx512_(const mb_xform *x, int n);
#endif

#endif
