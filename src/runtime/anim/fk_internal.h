/* Private pieces of forward kinematics: the kernels behind mb_fk (cpu_internal.h's scheme).
 *
 * The portable and AVX2 kernels work in two passes over chunks of joints, so they need no
 * memory beyond the output (the AVX-512 kernel fuses them per 16 joints, fk_kernel_avx512.c):
 *   1. local matrices: each rotation quaternion becomes the 3x3 of its local matrix, many
 *      joints at once in structure-of-arrays form (SIMD kernels: 8 or 16 lanes), and the
 *      local matrix L = T(pos) R(rot) is written where that joint's world matrix goes;
 *   2. parents in order: out[i] = out[parent] * out[i] (an affine product), parents first,
 *      so a parent's world matrix is final when its children read it.
 * A rotation q is used as q / |q| (the 3x3 uses 2 / |q|^2); a zero quaternion gives the
 * identity. */
#ifndef MB_FK_INTERNAL_H
#define MB_FK_INTERNAL_H

#include "base/cpu_internal.h"
#include "mblend/runtime/anim.h"

/* Joints per chunk: pass 1 over a chunk, then pass 2 over it, so the local matrices are
 * read back from L1 (256 * 64 bytes = 16 KiB). A multiple of every kernel's lane count. */
#define MB_FK_CHUNK_ 256

/* A kernel computes the world matrices of joints [0, n) (parents[i] < i, -1 for roots). */
typedef void (*mb_fk_kernel_fn_)(const int *parents, const mb_xform *local, int n,
                                 float (*out)[16]);

void mb_fk_kernel_generic_(const int *parents, const mb_xform *local, int n, float (*out)[16]);
#ifdef MB_CPU_BUILD_AVX2_
#define MB_FK_HAVE_AVX2_ 1
void mb_fk_kernel_avx2_(const int *parents, const mb_xform *local, int n, float (*out)[16]);
#endif
#ifdef MB_CPU_BUILD_AVX512_
#define MB_FK_HAVE_AVX512_ 1
void mb_fk_kernel_avx512_(const int *parents, const mb_xform *local, int n, float (*out)[16]);
#endif

/* The kernel for an ISA, NULL when there is none for it here (no SSE2 one); MB_ISA_AUTO_:
 * the best the CPU runs, never NULL. */
mb_fk_kernel_fn_ mb_fk_kernel_(mb_isa_ isa);

/* mb_fk with the kernel of isa (an ISA without a kernel here: MB_INVALID_ARG). For tests
 * and benchmarks. */
mb_status mb_fk_isa_(const mb_skeleton *s, const mb_pose *local, float (*out_world)[16],
                     int out_count, mb_isa_ isa);

/* The local matrix of one joint (column-major), in the operation order the SIMD lanes use
 * (no fused multiply-add), so a kernel's scalar tail gives what its lanes would. */
static inline void mb_fk_local_(const mb_xform *x, float m[16])
{
    float qx = x->rot[0], qy = x->rot[1], qz = x->rot[2], qw = x->rot[3];
    float d = ((qx * qx + qy * qy) + qz * qz) + qw * qw;
    float s = d > 0.0f ? 2.0f / d : 0.0f;
    float xs = qx * s, ys = qy * s, zs = qz * s;
    float xx = qx * xs, yy = qy * ys, zz = qz * zs;
    float xy = qx * ys, xz = qx * zs, yz = qy * zs;
    float wx = qw * xs, wy = qw * ys, wz = qw * zs;
    m[0] = 1.0f - (yy + zz);
    m[1] = xy + wz;
    m[2] = xz - wy;
    m[3] = 0.0f;
    m[4] = xy - wz;
    m[5] = 1.0f - (xx + zz);
    m[6] = yz + wx;
    m[7] = 0.0f;
    m[8] = xz + wy;
    m[9] = yz - wx;
    m[10] = 1.0f - (xx + yy);
    m[11] = 0.0f;
    m[12] = x->pos[0];
    m[13] = x->pos[1];
    m[14] = x->pos[2];
    m[15] = 1.0f;
}

#endif
