/* The forward-kinematics kernel for AVX2 + FMA, compiled with a target pragma whatever the
 * build flags and called only after the run-time check (fk.c). The AVX-512 kernel
 * (fk_kernel_avx512.c) with half the lanes:
 * pass 1, 8 joints at a time: the quaternions of two joints per register (one per 128-bit
 * lane) are transposed in-lane into x, y, z, w registers, the nine rotation entries are
 * computed on 8 lanes, and the inverse transpose gives each joint's columns;
 * pass 2, one joint at a time: columns 0|1 and 2|3 of W = P L as two registers, P's columns
 * broadcast to both lanes and L's rows spread in-lane (vpermilps), FMAs; L's last row is
 * (0 0 0 1), so P's last column only enters column 3. */
#include "runtime/anim/fk_internal.h"

#ifdef MB_FK_HAVE_AVX2_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

/* Joints x[0], x[1] as the two 128-bit lanes of one register. */
INLINE __m256 load_quats(const mb_xform *x)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(x[0].rot)),
                                _mm_loadu_ps(x[1].rot), 1);
}

/* In-lane 4x4 transpose (its own inverse): element 4l + m of out[k] is component k of row
 * m of lane l. */
INLINE void transpose(__m256 a, __m256 b, __m256 c, __m256 d, __m256 out[4])
{
    __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
    __m256 t2 = _mm256_unpacklo_ps(c, d), t3 = _mm256_unpackhi_ps(c, d);
    out[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* (x, y, z, 1) from a translation, reading its 12 bytes only. */
INLINE __m128 load_pos1(const float *p)
{
    __m128 xy = _mm_castsi128_ps(_mm_loadu_si64(p));
    return _mm_movelh_ps(xy, _mm_insert_ps(_mm_load_ss(p + 2), _mm_set_ss(1.0f), 0x10));
}

/* Pass 1 for joints x[0..7] (lanes: element 4l + m is joint l + 2m). */
INLINE void locals8(const mb_xform *x, float (*out)[16])
{
    __m256 q[4];
    transpose(load_quats(x), load_quats(x + 2), load_quats(x + 4), load_quats(x + 6), q);
    __m256 qx = q[0], qy = q[1], qz = q[2], qw = q[3];
    __m256 d = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(qx, qx), _mm256_mul_ps(qy, qy)),
                                           _mm256_mul_ps(qz, qz)),
                             _mm256_mul_ps(qw, qw));
    __m256 nz = _mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_GT_OQ);
    __m256 s = _mm256_and_ps(nz, _mm256_div_ps(_mm256_set1_ps(2.0f), d));
    __m256 xs = _mm256_mul_ps(qx, s), ys = _mm256_mul_ps(qy, s), zs = _mm256_mul_ps(qz, s);
    __m256 xx = _mm256_mul_ps(qx, xs), yy = _mm256_mul_ps(qy, ys), zz = _mm256_mul_ps(qz, zs);
    __m256 xy = _mm256_mul_ps(qx, ys), xz = _mm256_mul_ps(qx, zs), yz = _mm256_mul_ps(qy, zs);
    __m256 wx = _mm256_mul_ps(qw, xs), wy = _mm256_mul_ps(qw, ys), wz = _mm256_mul_ps(qw, zs);
    const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    __m256 c0[4], c1[4], c2[4];
    transpose(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), _mm256_add_ps(xy, wz),
              _mm256_sub_ps(xz, wy), zero, c0);
    transpose(_mm256_sub_ps(xy, wz), _mm256_sub_ps(one, _mm256_add_ps(xx, zz)),
              _mm256_add_ps(yz, wx), zero, c1);
    transpose(_mm256_add_ps(xz, wy), _mm256_sub_ps(yz, wx),
              _mm256_sub_ps(one, _mm256_add_ps(xx, yy)), zero, c2);
    /* after the inverse transpose, register g holds joints 2g and 2g + 1 */
    for (int g = 0; g < 4; ++g) {
        float *o0 = out[2 * g], *o1 = out[2 * g + 1];
        _mm256_storeu_ps(o0, _mm256_permute2f128_ps(c0[g], c1[g], 0x20));
        _mm256_storeu_ps(o1, _mm256_permute2f128_ps(c0[g], c1[g], 0x31));
        _mm256_storeu_ps(o0 + 8, _mm256_insertf128_ps(c2[g], load_pos1(x[2 * g].pos), 1));
        _mm256_storeu_ps(o1 + 8, _mm256_permute2f128_ps(c2[g], _mm256_castps128_ps256(load_pos1(x[2 * g + 1].pos)), 0x21));
    }
}

/* Pass 2 for one joint: w = p * w. */
INLINE void parent_mul(const float *p, float *w)
{
    __m256 l01 = _mm256_loadu_ps(w), l23 = _mm256_loadu_ps(w + 8);
    __m256 p0 = _mm256_broadcast_ps((const __m128 *)(const void *)p);
    __m256 p1 = _mm256_broadcast_ps((const __m128 *)(const void *)(p + 4));
    __m256 p2 = _mm256_broadcast_ps((const __m128 *)(const void *)(p + 8));
    __m256 p3 = _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_loadu_ps(p + 12), 1);
    __m256 r01 = _mm256_mul_ps(p2, _mm256_permute_ps(l01, 0xAA));
    __m256 r23 = _mm256_fmadd_ps(p2, _mm256_permute_ps(l23, 0xAA), p3);
    r01 = _mm256_fmadd_ps(p1, _mm256_permute_ps(l01, 0x55), r01);
    r23 = _mm256_fmadd_ps(p1, _mm256_permute_ps(l23, 0x55), r23);
    r01 = _mm256_fmadd_ps(p0, _mm256_permute_ps(l01, 0x00), r01);
    r23 = _mm256_fmadd_ps(p0, _mm256_permute_ps(l23, 0x00), r23);
    _mm256_storeu_ps(w, r01);
    _mm256_storeu_ps(w + 8, r23);
}

void mb_fk_kernel_avx2_(const int *parents, const mb_xform *local, int n, float (*out)[16])
{
    for (int b = 0; b < n; b += MB_FK_CHUNK_) {
        int e = n - b < MB_FK_CHUNK_ ? n : b + MB_FK_CHUNK_;
        int i = b;
        for (; i + 8 <= e; i += 8)
            locals8(local + i, out + i);
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
/* No AVX2 kernel on this target (ISO C wants a declaration in every file). */
typedef int mb_fk_kernel_avx2_unused_;
#endif
