/* The sampling rotation kernel for AVX-512 (F + VL + DQ + BW), compiled with a target
 * pragma whatever the build flags and called only after the run-time check (sample.c).
 * 16 joints at a time: the rows of both frames are transposed in-lane into x, y, z, w
 * registers (as in fk_kernel_avx512.c), the series slerp of sample.c runs on 16 lanes in
 * the same order of operations, and the inverse transpose gives each joint's quaternion.
 * When some lanes' frames are too far apart for the series, the wide slerp of
 * sample_internal.h runs on all 16 lanes (same order of operations as sample.c's
 * slerp_wide) and its weights replace the series' in those lanes; the last n % 16 joints
 * run as a block padded with identities. */
#include <string.h>

#include "runtime/anim/sample_internal.h"

#ifdef MB_SAMPLE_HAVE_AVX512_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#endif

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

/* In-lane 4x4 transpose (its own inverse): element 4l + m of out[k] is component k of row
 * m of lane l. */
INLINE void transpose(__m512 a, __m512 b, __m512 c, __m512 d, __m512 out[4])
{
    __m512 t0 = _mm512_unpacklo_ps(a, b), t1 = _mm512_unpackhi_ps(a, b);
    __m512 t2 = _mm512_unpacklo_ps(c, d), t3 = _mm512_unpackhi_ps(c, d);
    out[0] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* Rows of 16 joints (joint 4g + l in lane l of register g) as x, y, z, w (element 4l + m:
 * joint l + 4m). */
INLINE void load16(const float *r, __m512 q[4])
{
    transpose(_mm512_loadu_ps(r), _mm512_loadu_ps(r + 16), _mm512_loadu_ps(r + 32),
              _mm512_loadu_ps(r + 48), q);
}

INLINE __m512 dot4(const __m512 a[4], const __m512 b[4])
{
    return _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(a[0], b[0]), _mm512_mul_ps(a[1], b[1])),
                                       _mm512_mul_ps(a[2], b[2])),
                         _mm512_mul_ps(a[3], b[3]));
}

/* c[0] + y (c[1] + y (...)), Horner as in sample.c */
INLINE __m512 horner(const float *c, int n, __m512 y)
{
    __m512 p = _mm512_set1_ps(c[n - 1]);
    for (int i = n - 2; i >= 0; --i)
        p = _mm512_add_ps(_mm512_set1_ps(c[i]), _mm512_mul_ps(y, p));
    return p;
}

/* The wide slerp's weights (sample_internal.h) on 16 lanes: *wa and *wb (sign included). */
INLINE void wide_weights(const __m512 a[4], const __m512 b[4], __m512 sg, const mb_series_w_ *w,
                         __m512 *wa, __m512 *wb)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 m = _mm512_setzero_ps(), p = _mm512_setzero_ps();
    for (int k = 0; k < 4; ++k) {
        __m512 sb = _mm512_mul_ps(sg, b[k]);
        __m512 dm = _mm512_sub_ps(sb, a[k]), dp = _mm512_add_ps(sb, a[k]);
        m = _mm512_add_ps(m, _mm512_mul_ps(dm, dm));
        p = _mm512_add_ps(p, _mm512_mul_ps(dp, dp));
    }
    __m512 z = _mm512_sqrt_ps(_mm512_div_ps(m, p));
    __m512 u = _mm512_div_ps(z, _mm512_add_ps(one, _mm512_sqrt_ps(_mm512_add_ps(one, _mm512_mul_ps(z, z)))));
    __m512 at = horner(MB_SLERP_ATAN_C_, MB_SLERP_ATAN_N_, _mm512_mul_ps(u, u));
    __m512 th = _mm512_mul_ps(_mm512_set1_ps(4.0f), _mm512_mul_ps(u, at));
    __m512 xa = _mm512_mul_ps(_mm512_set1_ps(w->ka), th), xb = _mm512_mul_ps(_mm512_set1_ps(w->kb), th);
    __m512 sa = horner(MB_SLERP_SINC_C_, MB_SLERP_SINC_N_, _mm512_mul_ps(xa, xa));
    __m512 sb = horner(MB_SLERP_SINC_C_, MB_SLERP_SINC_N_, _mm512_mul_ps(xb, xb));
    *wa = _mm512_mul_ps(_mm512_set1_ps(w->ka), sa);
    *wb = _mm512_mul_ps(_mm512_mul_ps(sg, _mm512_set1_ps(w->kb)), sb);
}

/* Joints j .. j+15 */
INLINE void slerp16(const float *r0, const float *r1, const mb_series_w_ *w, mb_xform *out)
{
    __m512 a[4], b[4];
    load16(r0, a);
    load16(r1, b);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 d = dot4(a, b);
    __mmask16 neg = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_LT_OQ);
    __m512 sg = _mm512_mask_mov_ps(one, neg, _mm512_set1_ps(-1.0f));
    __m512 x = _mm512_sub_ps(one, _mm512_mul_ps(sg, d));
    __mmask16 near = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0.005f), _CMP_LT_OQ);
    __m512 th2 = _mm512_mul_ps(x, _mm512_add_ps(_mm512_set1_ps(2.0f),
                                                _mm512_mul_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f / 3.0f),
                                                                               _mm512_mul_ps(x, _mm512_set1_ps(8.0f / 45.0f))))));
    __m512 pa = _mm512_add_ps(one, _mm512_mul_ps(th2, _mm512_add_ps(_mm512_set1_ps(w->a1),
                                                                    _mm512_mul_ps(th2, _mm512_set1_ps(w->a2)))));
    __m512 pb = _mm512_add_ps(one, _mm512_mul_ps(th2, _mm512_add_ps(_mm512_set1_ps(w->b1),
                                                                    _mm512_mul_ps(th2, _mm512_set1_ps(w->b2)))));
    __m512 wa = _mm512_mul_ps(_mm512_set1_ps(w->ka), pa);
    __m512 wb = _mm512_mul_ps(_mm512_mul_ps(sg, _mm512_set1_ps(w->kb)), pb);
    __mmask16 far = (__mmask16)~near;
    if (far) {
        __m512 va, vb;
        wide_weights(a, b, sg, w, &va, &vb);
        wa = _mm512_mask_mov_ps(wa, far, va);
        wb = _mm512_mask_mov_ps(wb, far, vb);
    }
    __m512 r[4];
    for (int k = 0; k < 4; ++k)
        r[k] = _mm512_add_ps(_mm512_mul_ps(wa, a[k]), _mm512_mul_ps(wb, b[k]));
    __m512 inv = _mm512_div_ps(one, _mm512_sqrt_ps(dot4(r, r)));
    __m512 o[4];
    transpose(_mm512_mul_ps(r[0], inv), _mm512_mul_ps(r[1], inv), _mm512_mul_ps(r[2], inv),
              _mm512_mul_ps(r[3], inv), o);
    for (int g = 0; g < 4; ++g) {
        _mm_storeu_ps(out[4 * g].rot, _mm512_castps512_ps128(o[g]));
        _mm_storeu_ps(out[4 * g + 1].rot, _mm512_extractf32x4_ps(o[g], 1));
        _mm_storeu_ps(out[4 * g + 2].rot, _mm512_extractf32x4_ps(o[g], 2));
        _mm_storeu_ps(out[4 * g + 3].rot, _mm512_extractf32x4_ps(o[g], 3));
    }
}

void mb_sample_rot_avx512_(const float *r0, const float *r1, int n, double a, mb_xform *out)
{
    mb_series_w_ w = mb_series_weights_(a);
    int j = 0;
    for (; j + 16 <= n; j += 16)
        slerp16(r0 + 4 * j, r1 + 4 * j, &w, out + j);
    if (j == n)
        return;
    /* the last n % 16 joints: padded with identities into a block of 16 on the stack */
    float p0[64], p1[64];
    mb_xform o[16];
    int k = n - j;
    for (int e = 0; e < 64; ++e)
        p0[e] = p1[e] = e % 4 == 3 ? 1.0f : 0.0f;
    memcpy(p0, r0 + 4 * j, (size_t)k * 4 * sizeof *p0);
    memcpy(p1, r1 + 4 * j, (size_t)k * 4 * sizeof *p1);
    slerp16(p0, p1, &w, o);
    for (int i = 0; i < k; ++i)
        memcpy(out[j + i].rot, o[i].rot, sizeof o[i].rot);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
/* No AVX-512 kernel on this target (ISO C wants a declaration in every file). */
typedef int mb_sample_rot_avx512_unused_;
#endif
