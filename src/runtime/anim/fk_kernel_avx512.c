/* The forward-kinematics kernel for AVX-512 (F + VL + DQ + BW), compiled with a target
 * pragma whatever the build flags and called only after the run-time check (fk.c).
 *
 * Unlike the portable and AVX2 kernels, the two passes of fk_internal.h are fused per block
 * of 16 joints, and the local matrices never go through memory:
 *   locals: the quaternions of four joints per register (one per 128-bit lane) are
 *     transposed in-lane into x, y, z, w registers, the nine rotation entries are computed
 *     on 16 lanes, the inverse transpose gives each joint's columns, and a 128-bit-lane
 *     transpose gathers one joint's three columns and translation (a masked load, nothing
 *     past the pose touched) into one register;
 *   parents, in order within the block: W = P L with P's columns broadcast to the four
 *     128-bit lanes and L's rows spread in-lane (vpermilps), three FMAs; L's last row is
 *     (0 0 0 1), so P's last column only enters lane 3 (a masked broadcast); a root stores L.
 * Out-of-order execution overlaps the next block's locals with this block's chain of
 * parent products. The last n % 16 joints: the same block with masked loads (a scalar
 * tail, writing a local matrix with scalar stores and reading it back with one 512-bit
 * load, stalled on the store queue: 38-joint CMU skeleton 3.9-4.3 ns per joint, against
 * 3.4 now and 3.6-3.7 for the two-pass kernel). */
#include "runtime/anim/fk_internal.h"

#ifdef MB_FK_HAVE_AVX512_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#endif

#include <immintrin.h>
#include <stdint.h>

#define INLINE static inline __attribute__((always_inline))

/* The rotation of joint x[k] when k < count, else 0 (nothing read; a zero quaternion gives
 * the identity). */
INLINE __m128 load_quat(const mb_xform *x, int k, int count)
{
    if (count >= 16)
        return _mm_loadu_ps(x[k].rot);
    return _mm_maskz_loadu_ps(k < count ? 0xF : 0, x[k].rot);
}

/* Joints x[4g .. 4g+3] as the four 128-bit lanes of one register (lane l: joint 4g + l);
 * count: joints in the block (16, or the tail's n % 16). */
INLINE __m512 load_quats(const mb_xform *x, int g, int count)
{
    __m512 v = _mm512_castps128_ps512(load_quat(x, 4 * g, count));
    v = _mm512_insertf32x4(v, load_quat(x, 4 * g + 1, count), 1);
    v = _mm512_insertf32x4(v, load_quat(x, 4 * g + 2, count), 2);
    return _mm512_insertf32x4(v, load_quat(x, 4 * g + 3, count), 3);
}

/* In-lane 4x4 transpose of a, b, c, d: with a..d holding rows of four lanes each, element
 * 4l + m of out[k] is component k of row m of lane l (and the inverse of itself). */
INLINE void transpose(__m512 a, __m512 b, __m512 c, __m512 d, __m512 out[4])
{
    __m512 t0 = _mm512_unpacklo_ps(a, b), t1 = _mm512_unpackhi_ps(a, b);
    __m512 t2 = _mm512_unpacklo_ps(c, d), t3 = _mm512_unpackhi_ps(c, d);
    out[0] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* (x, y, z, 1) from a translation, reading its 12 bytes only. */
INLINE __m128 load_pos1(const float *p)
{
    return _mm_mask_loadu_ps(_mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f), 0x7, p);
}

/* W = P L for one joint, both column-major in one register (L's columns per 128-bit lane):
 * P's columns broadcast to the four lanes, L's rows spread in-lane (vpermilps), three FMAs;
 * L's last row is (0 0 0 1), so P's last column only enters lane 3 (a masked broadcast). */
INLINE __m512 parent_mul(const float *p, __m512 l)
{
    __m512 p0 = _mm512_broadcast_f32x4(_mm_loadu_ps(p));
    __m512 p1 = _mm512_broadcast_f32x4(_mm_loadu_ps(p + 4));
    __m512 p2 = _mm512_broadcast_f32x4(_mm_loadu_ps(p + 8));
    __m512 p3 = _mm512_maskz_broadcast_f32x4(0xF000, _mm_loadu_ps(p + 12));
    __m512 r = _mm512_fmadd_ps(p2, _mm512_permute_ps(l, 0xAA), p3);
    r = _mm512_fmadd_ps(p1, _mm512_permute_ps(l, 0x55), r);
    return _mm512_fmadd_ps(p0, _mm512_permute_ps(l, 0x00), r);
}

/* How a matrix is stored, by the output's address modulo 64 (the same for every joint:
 * matrices are 64 bytes). At 16 or 48 bytes past a cache line a 512-bit store is split
 * in two line-crossing halves on the AMD EPYC guest of README_fk.md (512-bit stores
 * executed as two 256-bit halves), and the children's 128-bit loads of the parent's columns are not
 * forwarded from it: the kernel took 1.5x as long at 64 joints. There, a 128 + 256 + 128-bit
 * store that crosses no line; at 0 or 32 past a line, one 512-bit store (two 256-bit stores
 * measured 8% slower at 256 joints). */
enum { ST_512_, ST_128_256_128_ };

INLINE void store_matrix(float *o, __m512 w, int st)
{
    if (st == ST_128_256_128_) {
        _mm_storeu_ps(o, _mm512_castps512_ps128(w));
        _mm256_storeu_ps(o + 4, _mm512_castps512_ps256(_mm512_shuffle_f32x4(w, w, 0x39)));
        _mm_storeu_ps(o + 12, _mm512_extractf32x4_ps(w, 3));
    } else {
        _mm512_storeu_ps(o, w);
    }
}

/* out[j] = out[parents[j]] * l, or l for a root. */
INLINE void finish(const int *parents, int j, __m512 l, float (*out)[16], int st)
{
    int p = parents[j];
    store_matrix(out[j], p >= 0 ? parent_mul(out[p], l) : l, st);
}

/* Joints j0 .. j0+count-1 (count <= 16; x = local + j0), local matrices and parent
 * products fused: the
 * locals never go through memory (the two-pass kernel wrote them with four 128-bit stores
 * and read them back with one 512-bit load, which a store queue cannot forward), one store
 * per joint instead of five, and the next block's locals overlap this block's chain of
 * parent products: 9-11% faster than the two passes at 64 and 256 joints on the AMD guest.
 * Lanes of the SoA part: element 4l + m is joint l + 4m. */
INLINE void block16(const int *parents, const mb_xform *local, int j0, int count,
                     float (*out)[16], int st)
{
    const mb_xform *x = local + j0;
    __m512 q[4];
    transpose(load_quats(x, 0, count), load_quats(x, 1, count), load_quats(x, 2, count),
              load_quats(x, 3, count), q);
    __m512 qx = q[0], qy = q[1], qz = q[2], qw = q[3];
    __m512 d = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(qx, qx), _mm512_mul_ps(qy, qy)),
                                           _mm512_mul_ps(qz, qz)),
                             _mm512_mul_ps(qw, qw));
    __mmask16 nz = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_GT_OQ);
    __m512 s = _mm512_maskz_div_ps(nz, _mm512_set1_ps(2.0f), d);
    __m512 xs = _mm512_mul_ps(qx, s), ys = _mm512_mul_ps(qy, s), zs = _mm512_mul_ps(qz, s);
    __m512 xx = _mm512_mul_ps(qx, xs), yy = _mm512_mul_ps(qy, ys), zz = _mm512_mul_ps(qz, zs);
    __m512 xy = _mm512_mul_ps(qx, ys), xz = _mm512_mul_ps(qx, zs), yz = _mm512_mul_ps(qy, zs);
    __m512 wx = _mm512_mul_ps(qw, xs), wy = _mm512_mul_ps(qw, ys), wz = _mm512_mul_ps(qw, zs);
    const __m512 one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    __m512 c0[4], c1[4], c2[4];
    transpose(_mm512_sub_ps(one, _mm512_add_ps(yy, zz)), _mm512_add_ps(xy, wz),
              _mm512_sub_ps(xz, wy), zero, c0);
    transpose(_mm512_sub_ps(xy, wz), _mm512_sub_ps(one, _mm512_add_ps(xx, zz)),
              _mm512_add_ps(yz, wx), zero, c1);
    transpose(_mm512_add_ps(xz, wy), _mm512_sub_ps(yz, wx),
              _mm512_sub_ps(one, _mm512_add_ps(xx, yy)), zero, c2);
    /* after the inverse transpose, lane l of c0[g], c1[g], c2[g] holds the columns of
     * joint 4g + l; gather each joint's three columns and translation into one register */
    for (int g = 0; g < 4; ++g) {
        int j = j0 + 4 * g;
        __m512 ab01 = _mm512_shuffle_f32x4(c0[g], c1[g], 0x44); /* a0 a1 b0 b1 */
        __m512 ab23 = _mm512_shuffle_f32x4(c0[g], c1[g], 0xEE); /* a2 a3 b2 b3 */
        __m512 l0 = _mm512_shuffle_f32x4(ab01, c2[g], 0x08);    /* a0 b0 c0 c0 */
        __m512 l1 = _mm512_shuffle_f32x4(ab01, c2[g], 0x5D);    /* a1 b1 c1 c1 */
        __m512 l2 = _mm512_shuffle_f32x4(ab23, c2[g], 0xA8);    /* a2 b2 c2 c2 */
        __m512 l3 = _mm512_shuffle_f32x4(ab23, c2[g], 0xFD);    /* a3 b3 c3 c3 */
        if (4 * g < count)
            finish(parents, j, _mm512_insertf32x4(l0, load_pos1(local[j].pos), 3), out, st);
        if (4 * g + 1 < count)
            finish(parents, j + 1, _mm512_insertf32x4(l1, load_pos1(local[j + 1].pos), 3), out, st);
        if (4 * g + 2 < count)
            finish(parents, j + 2, _mm512_insertf32x4(l2, load_pos1(local[j + 2].pos), 3), out, st);
        if (4 * g + 3 < count)
            finish(parents, j + 3, _mm512_insertf32x4(l3, load_pos1(local[j + 3].pos), 3), out, st);
    }
}

INLINE void kernel(const int *parents, const mb_xform *local, int n, float (*out)[16], int st)
{
    int i = 0;
    for (; i + 16 <= n; i += 16)
        block16(parents, local, i, 16, out, st);
    if (i < n) /* the last n % 16 joints: masked loads, their lanes only */
        block16(parents, local, i, n - i, out, st);
}

void mb_fk_kernel_avx512_(const int *parents, const mb_xform *local, int n, float (*out)[16])
{
    uintptr_t a = (uintptr_t)out % 64;
    if (a == 16 || a == 48)
        kernel(parents, local, n, out, ST_128_256_128_);
    else
        kernel(parents, local, n, out, ST_512_);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
/* No AVX-512 kernel on this target (ISO C wants a declaration in every file). */
typedef int mb_fk_kernel_avx512_unused_;
#endif
