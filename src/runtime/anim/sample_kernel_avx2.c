/* The sampling rotation kernel for AVX2 + FMA, compiled with a target pragma whatever the
 * build flags and called only after the run-time check (sample.c). The AVX-512 kernel
 * (sample_kernel_avx512.c) with half the lanes: 8 joints at a time, two per register (one
 * per 128-bit lane), transposed in-lane into x, y, z, w registers; the series slerp on 8
 * lanes, the wide slerp of sample_internal.h on all 8 when some lane needs it (its weights
 * replace the series' there); the last n % 8 joints run as a block padded with
 * identities. */
#include <string.h>

#include "runtime/anim/sample_internal.h"

#ifdef MB_SAMPLE_HAVE_AVX2_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

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

/* Rows of 8 joints (joints 2g, 2g + 1 in register g) as x, y, z, w. */
INLINE void load8(const float *r, __m256 q[4])
{
    transpose(_mm256_loadu_ps(r), _mm256_loadu_ps(r + 8), _mm256_loadu_ps(r + 16),
              _mm256_loadu_ps(r + 24), q);
}

INLINE __m256 dot4(const __m256 a[4], const __m256 b[4])
{
    return _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a[0], b[0]), _mm256_mul_ps(a[1], b[1])),
                                       _mm256_mul_ps(a[2], b[2])),
                         _mm256_mul_ps(a[3], b[3]));
}

/* c[0] + y (c[1] + y (...)), Horner as in sample.c */
INLINE __m256 horner(const float *c, int n, __m256 y)
{
    __m256 p = _mm256_set1_ps(c[n - 1]);
    for (int i = n - 2; i >= 0; --i)
        p = _mm256_add_ps(_mm256_set1_ps(c[i]), _mm256_mul_ps(y, p));
    return p;
}

/* The wide slerp's weights (sample_internal.h) on 8 lanes: *wa and *wb (sign included). */
INLINE void wide_weights(const __m256 a[4], const __m256 b[4], __m256 sg, const mb_series_w_ *w,
                         __m256 *wa, __m256 *wb)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 m = _mm256_setzero_ps(), p = _mm256_setzero_ps();
    for (int k = 0; k < 4; ++k) {
        __m256 sb = _mm256_mul_ps(sg, b[k]);
        __m256 dm = _mm256_sub_ps(sb, a[k]), dp = _mm256_add_ps(sb, a[k]);
        m = _mm256_add_ps(m, _mm256_mul_ps(dm, dm));
        p = _mm256_add_ps(p, _mm256_mul_ps(dp, dp));
    }
    __m256 z = _mm256_sqrt_ps(_mm256_div_ps(m, p));
    __m256 u = _mm256_div_ps(z, _mm256_add_ps(one, _mm256_sqrt_ps(_mm256_add_ps(one, _mm256_mul_ps(z, z)))));
    __m256 at = horner(MB_SLERP_ATAN_C_, MB_SLERP_ATAN_N_, _mm256_mul_ps(u, u));
    __m256 th = _mm256_mul_ps(_mm256_set1_ps(4.0f), _mm256_mul_ps(u, at));
    __m256 xa = _mm256_mul_ps(_mm256_set1_ps(w->ka), th), xb = _mm256_mul_ps(_mm256_set1_ps(w->kb), th);
    __m256 sa = horner(MB_SLERP_SINC_C_, MB_SLERP_SINC_N_, _mm256_mul_ps(xa, xa));
    __m256 sb = horner(MB_SLERP_SINC_C_, MB_SLERP_SINC_N_, _mm256_mul_ps(xb, xb));
    *wa = _mm256_mul_ps(_mm256_set1_ps(w->ka), sa);
    *wb = _mm256_mul_ps(_mm256_mul_ps(sg, _mm256_set1_ps(w->kb)), sb);
}

/* Joints j .. j+7 */
INLINE void slerp8(const float *r0, const float *r1, const mb_series_w_ *w, mb_xform *out)
{
    __m256 a[4], b[4];
    load8(r0, a);
    load8(r1, b);
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 d = dot4(a, b);
    __m256 neg = _mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_LT_OQ);
    __m256 sg = _mm256_blendv_ps(one, _mm256_set1_ps(-1.0f), neg);
    __m256 x = _mm256_sub_ps(one, _mm256_mul_ps(sg, d));
    __m256 far = _mm256_cmp_ps(x, _mm256_set1_ps(0.005f), _CMP_NLT_UQ); /* not near, NaN too */
    __m256 th2 = _mm256_mul_ps(x, _mm256_add_ps(_mm256_set1_ps(2.0f),
                                                _mm256_mul_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f / 3.0f),
                                                                               _mm256_mul_ps(x, _mm256_set1_ps(8.0f / 45.0f))))));
    __m256 pa = _mm256_add_ps(one, _mm256_mul_ps(th2, _mm256_add_ps(_mm256_set1_ps(w->a1),
                                                                    _mm256_mul_ps(th2, _mm256_set1_ps(w->a2)))));
    __m256 pb = _mm256_add_ps(one, _mm256_mul_ps(th2, _mm256_add_ps(_mm256_set1_ps(w->b1),
                                                                    _mm256_mul_ps(th2, _mm256_set1_ps(w->b2)))));
    __m256 wa = _mm256_mul_ps(_mm256_set1_ps(w->ka), pa);
    __m256 wb = _mm256_mul_ps(_mm256_mul_ps(sg, _mm256_set1_ps(w->kb)), pb);
    if (_mm256_movemask_ps(far)) {
        __m256 va, vb;
        wide_weights(a, b, sg, w, &va, &vb);
        wa = _mm256_blendv_ps(wa, va, far);
        wb = _mm256_blendv_ps(wb, vb, far);
    }
    __m256 r[4];
    for (int k = 0; k < 4; ++k)
        r[k] = _mm256_add_ps(_mm256_mul_ps(wa, a[k]), _mm256_mul_ps(wb, b[k]));
    __m256 inv = _mm256_div_ps(one, _mm256_sqrt_ps(dot4(r, r)));
    __m256 o[4];
    transpose(_mm256_mul_ps(r[0], inv), _mm256_mul_ps(r[1], inv), _mm256_mul_ps(r[2], inv),
              _mm256_mul_ps(r[3], inv), o);
    for (int g = 0; g < 4; ++g) {
        _mm_storeu_ps(out[2 * g].rot, _mm256_castps256_ps128(o[g]));
        _mm_storeu_ps(out[2 * g + 1].rot, _mm256_extractf128_ps(o[g], 1));
    }
}

void mb_sample_rot_avx2_(const float *r0, const float *r1, int n, double a, mb_xform *out)
{
    mb_series_w_ w = mb_series_weights_(a);
    int j = 0;
    for (; j + 8 <= n; j += 8)
        slerp8(r0 + 4 * j, r1 + 4 * j, &w, out + j);
    if (j == n)
        return;
    /* the last n % 8 joints: padded with identities into a block of 8 on the stack */
    float p0[32], p1[32];
    mb_xform o[8];
    int k = n - j;
    for (int e = 0; e < 32; ++e)
        p0[e] = p1[e] = e % 4 == 3 ? 1.0f : 0.0f;
    memcpy(p0, r0 + 4 * j, (size_t)k * 4 * sizeof *p0);
    memcpy(p1, r1 + 4 * j, (size_t)k * 4 * sizeof *p1);
    slerp8(p0, p1, &w, o);
    for (int i = 0; i < k; ++i)
        memcpy(out[j + i].rot, o[i].rot, sizeof o[i].rot);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
/* No AVX2 kernel on this target (ISO C wants a declaration in every file). */
typedef int mb_sample_rot_avx2_unused_;
#endif
