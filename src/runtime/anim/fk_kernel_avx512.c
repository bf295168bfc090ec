/* The forward-kinematics kernel for AVX-512 (F + VL + DQ + BW), compiled with a target
 * pragma whatever the build flags and called only after the run-time check (fk.c).
 *
 * Pass 1, 16 joints at a time: the quaternions of four joints per register (one per 128-bit
 * lane) are transposed in-lane into x, y, z, w registers, the nine rotation entries are computed on 16 lanes, and the inverse transpose
 * gives each joint's columns, stored with 128-bit stores (column 3 is the translation,
 * read with a masked load so nothing past the pose is touched).
 * Pass 2, one joint at a time: W = P L with P's columns broadcast to the four 128-bit lanes
 * and L's rows spread in-lane (vpermilps), three FMAs; L's last row is (0 0 0 1), so P's
 * last column only enters lane 3 (a masked broadcast). */
#include "runtime/anim/fk_internal.h"

#ifdef MB_FK_HAVE_AVX512_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#endif

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

/* Joints x[4g .. 4g+3] as the four 128-bit lanes of one register (lane l: joint 4g + l). */
INLINE __m512 load_quats(const mb_xform *x)
{
    __m512 v = _mm512_castps128_ps512(_mm_loadu_ps(x[0].rot));
    v = _mm512_insertf32x4(v, _mm_loadu_ps(x[1].rot), 1);
    v = _mm512_insertf32x4(v, _mm_loadu_ps(x[2].rot), 2);
    return _mm512_insertf32x4(v, _mm_loadu_ps(x[3].rot), 3);
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

/* Stores lane l of col[0..2] as columns 0..2 of joint 4g + l's matrix, for the four joints
 * of group g, and their translations as column 3. */
INLINE void store_group(const mb_xform *x, float (*out)[16], const __m512 col[3])
{
    const __m128 one = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
#define STORE_LANE_(l)                                                                     \
    do {                                                                                   \
        _mm_storeu_ps(out[l], _mm512_extractf32x4_ps(col[0], l));                          \
        _mm_storeu_ps(out[l] + 4, _mm512_extractf32x4_ps(col[1], l));                      \
        _mm_storeu_ps(out[l] + 8, _mm512_extractf32x4_ps(col[2], l));                      \
        _mm_storeu_ps(out[l] + 12, _mm_mask_loadu_ps(one, 0x7, x[l].pos));                 \
    } while (0)
    STORE_LANE_(0);
    STORE_LANE_(1);
    STORE_LANE_(2);
    STORE_LANE_(3);
#undef STORE_LANE_
}

/* Pass 1 for joints x[0..15] (lanes: element 4l + m is joint l + 4m). */
INLINE void locals16(const mb_xform *x, float (*out)[16])
{
    __m512 q[4];
    transpose(load_quats(x), load_quats(x + 4), load_quats(x + 8), load_quats(x + 12), q);
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
    /* after the inverse transpose, register g holds joints 4g .. 4g+3, one per lane */
    for (int g = 0; g < 4; ++g) {
        const __m512 col[3] = {c0[g], c1[g], c2[g]};
        store_group(x + 4 * g, out + 4 * g, col);
    }
}

/* Pass 2 for one joint: w = p * w. */
INLINE void parent_mul(const float *p, float *w)
{
    __m512 l = _mm512_loadu_ps(w);
    __m512 p0 = _mm512_broadcast_f32x4(_mm_loadu_ps(p));
    __m512 p1 = _mm512_broadcast_f32x4(_mm_loadu_ps(p + 4));
    __m512 p2 = _mm512_broadcast_f32x4(_mm_loadu_ps(p + 8));
    __m512 p3 = _mm512_maskz_broadcast_f32x4(0xF000, _mm_loadu_ps(p + 12));
    __m512 r = _mm512_fmadd_ps(p2, _mm512_permute_ps(l, 0xAA), p3);
    r = _mm512_fmadd_ps(p1, _mm512_permute_ps(l, 0x55), r);
    r = _mm512_fmadd_ps(p0, _mm512_permute_ps(l, 0x00), r);
    _mm512_storeu_ps(w, r);
}

void mb_fk_kernel_avx512_(const int *parents, const mb_xform *local, int n, float (*out)[16])
{
    for (int b = 0; b < n; b += MB_FK_CHUNK_) {
        int e = n - b < MB_FK_CHUNK_ ? n : b + MB_FK_CHUNK_;
        int i = b;
        for (; i + 16 <= e; i += 16)
            locals16(local + i, out + i);
        for (; i < e; ++i)
            mb_fk_local_(&local[i], out[i]);
        for (i = b; i < e; ++i)
            if (parents[i] >= 0)
                parent_mul(out[parents[i]], out[i]);
    }
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
