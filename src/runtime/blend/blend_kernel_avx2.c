/* The group kernel for AVX2 + FMA, 8 joints at a time. Compiled for AVX2 whatever the
 * build flags (a target pragma), and only called after a runtime CPU check, so the default
 * build runs it on the machines that have it (blend.c, mb_blend_kernel_). */
#include "runtime/blend/blend_internal.h"

#ifdef MB_BLEND_HAVE_AVX2_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include <immintrin.h>

#define KW 8
#define KERNEL_NAME mb_blend_kernel_avx2_
#define NLERP_NAME mb_blend_nlerp_avx2_
#define KERNEL_SPECIALISE 1
#define CHECK_NAME mb_blend_check_avx2_
typedef __m256 V;
typedef __m256 VM;

static inline V v_set(float a) { return _mm256_set1_ps(a); }
static inline V v_ld(const float *p) { return _mm256_loadu_ps(p); }
static inline void v_st(float *p, V a) { _mm256_storeu_ps(p, a); }
static inline V v_add(V a, V b) { return _mm256_add_ps(a, b); }
static inline V v_sub(V a, V b) { return _mm256_sub_ps(a, b); }
static inline V v_mul(V a, V b) { return _mm256_mul_ps(a, b); }
static inline V v_div(V a, V b) { return _mm256_div_ps(a, b); }
static inline V v_sqrt(V a) { return _mm256_sqrt_ps(a); }
static inline V v_max(V a, V b) { return _mm256_max_ps(a, b); }
static inline V v_min(V a, V b) { return _mm256_min_ps(a, b); }
static inline V v_abs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static inline V v_fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
static inline V v_fnma(V a, V b, V c) { return _mm256_fnmadd_ps(a, b, c); }
static inline VM v_lt(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline VM v_le(V a, V b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static inline VM m_and(VM a, VM b) { return _mm256_and_ps(a, b); }
static inline VM m_or(VM a, VM b) { return _mm256_or_ps(a, b); }
static inline VM m_not(VM a) { return _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
static inline unsigned m_bits(VM a) { return (unsigned)_mm256_movemask_ps(a); }
static inline V v_sel(VM m, V a, V b) { return _mm256_blendv_ps(b, a, m); }

static inline __m256 load2(const mb_xform *lo, const mb_xform *hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo->rot)),
                                _mm_loadu_ps(hi->rot), 1);
}

static inline V v_sgn(V a) { return _mm256_and_ps(a, _mm256_set1_ps(-0.0f)); }
static inline V v_xor(V a, V b) { return _mm256_xor_ps(a, b); }

/* 8 joints: two 4x4 transposes, one per 128-bit half (joints 0-3 low, 4-7 high). */
static inline void gather_rot(const mb_xform *x, V q[4])
{
    __m256 r04 = load2(&x[0], &x[4]), r15 = load2(&x[1], &x[5]);
    __m256 r26 = load2(&x[2], &x[6]), r37 = load2(&x[3], &x[7]);
    __m256 t0 = _mm256_unpacklo_ps(r04, r15), t1 = _mm256_unpackhi_ps(r04, r15);
    __m256 t2 = _mm256_unpacklo_ps(r26, r37), t3 = _mm256_unpackhi_ps(r26, r37);
    q[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    q[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    q[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    q[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

static inline void store2(mb_xform *lo, mb_xform *hi, __m256 a)
{
    _mm_storeu_ps(lo->rot, _mm256_castps256_ps128(a));
    _mm_storeu_ps(hi->rot, _mm256_extractf128_ps(a, 1));
}

static inline void scatter_rot(mb_xform *x, const V q[4])
{
    __m256 t0 = _mm256_unpacklo_ps(q[0], q[1]), t1 = _mm256_unpackhi_ps(q[0], q[1]);
    __m256 t2 = _mm256_unpacklo_ps(q[2], q[3]), t3 = _mm256_unpackhi_ps(q[2], q[3]);
    store2(&x[0], &x[4], _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    store2(&x[1], &x[5], _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    store2(&x[2], &x[6], _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
    store2(&x[3], &x[7], _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)));
}

#include "blend_kernel.inc"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int mb_blend_kernel_avx2_unused_; /* ISO C forbids an empty translation unit */
#endif
