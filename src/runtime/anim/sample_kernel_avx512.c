/* The sampling rotation kernel for AVX-512 (F + VL + DQ + BW), compiled with a target
 * pragma whatever the build flags and called only after the run-time check (sample.c).
 * 16 joints at a time: the rows of both frames are transposed in-lane into x, y, z, w
 * registers (as in fk_kernel_avx512.c), the series slerp of sample.c runs on 16 lanes in
 * the same order of operations, and the inverse transpose gives each joint's quaternion.
 * Lanes whose frames are too far apart for the series (or not finite) are redone one by
 * one by the portable kernel; the last n % 16 joints run as a block padded with
 * identities. */
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

/* Joints j .. j+15; returns the mask of lanes (element 4l + m) the series does not cover. */
INLINE __mmask16 slerp16(const float *r0, const float *r1, const mb_series_w_ *w, mb_xform *out)
{
    __m512 a[4], b[4];
    load16(r0, a);
    load16(r1, b);
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 d = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(a[0], b[0]), _mm512_mul_ps(a[1], b[1])),
                                           _mm512_mul_ps(a[2], b[2])),
                             _mm512_mul_ps(a[3], b[3]));
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
    __m512 r[4];
    for (int k = 0; k < 4; ++k)
        r[k] = _mm512_add_ps(_mm512_mul_ps(wa, a[k]), _mm512_mul_ps(wb, b[k]));
    __m512 n = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(r[0], r[0]), _mm512_mul_ps(r[1], r[1])),
                                           _mm512_mul_ps(r[2], r[2])),
                             _mm512_mul_ps(r[3], r[3]));
    __m512 inv = _mm512_div_ps(one, _mm512_sqrt_ps(n));
    __m512 o[4];
    transpose(_mm512_mul_ps(r[0], inv), _mm512_mul_ps(r[1], inv), _mm512_mul_ps(r[2], inv),
              _mm512_mul_ps(r[3], inv), o);
    for (int g = 0; g < 4; ++g) {
        _mm_storeu_ps(out[4 * g].rot, _mm512_castps512_ps128(o[g]));
        _mm_storeu_ps(out[4 * g + 1].rot, _mm512_extractf32x4_ps(o[g], 1));
        _mm_storeu_ps(out[4 * g + 2].rot, _mm512_extractf32x4_ps(o[g], 2));
        _mm_storeu_ps(out[4 * g + 3].rot, _mm512_extractf32x4_ps(o[g], 3));
    }
    return (__mmask16)~near;
}

void mb_sample_rot_avx512_(const float *r0, const float *r1, int n, double a, mb_xform *out)
{
    mb_series_w_ w = mb_series_weights_(a);
    int j = 0;
    for (; j + 16 <= n; j += 16) {
        unsigned far = slerp16(r0 + 4 * j, r1 + 4 * j, &w, out + j);
        while (far) {
            int e = __builtin_ctz(far), i = j + (e >> 2) + 4 * (e & 3); /* element 4l + m */
            mb_sample_rot_generic_(r0 + 4 * i, r1 + 4 * i, 1, a, out + i);
            far &= far - 1;
        }
    }
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
    unsigned far = slerp16(p0, p1, &w, o);
    for (int i = 0; i < k; ++i)
        memcpy(out[j + i].rot, o[i].rot, sizeof o[i].rot);
    while (far) {
        int e = __builtin_ctz(far), i = (e >> 2) + 4 * (e & 3);
        if (i < k)
            mb_sample_rot_generic_(r0 + 4 * (j + i), r1 + 4 * (j + i), 1, a, out + j + i);
        far &= far - 1;
    }
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
