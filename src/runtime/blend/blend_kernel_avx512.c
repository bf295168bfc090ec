/* The group kernel for AVX-512 (F, VL, DQ, BW; with AVX2 + FMA), 16 joints at a time.
 * Compiled for AVX-512 whatever the build flags (a target pragma), and only called after a
 * runtime CPU check (blend.c, mb_blend_kernel_), like the AVX2 kernel. Masks are the
 * k-registers of AVX-512 (__mmask16), not vectors. */
#include "runtime/blend/blend_internal.h"

#ifdef MB_BLEND_HAVE_AVX512_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#endif

#include <immintrin.h>

#define KW 16
#define KERNEL_NAME mb_blend_kernel_avx512_
#define NLERP_NAME mb_blend_nlerp_avx512_
#define KERNEL_SPECIALISE 1
#define CHECK_NAME mb_blend_check_avx512_
/* 16 KB of scratch, as the other kernels: half as many groups per batch as AVX2's (K = 4:
 * 6 groups, 96 joints), and faster than 32 KB (the batch of AVX2's joint count: K = 4
 * clustered 1.64-1.67x against 1.57-1.62x of the SSE2 baseline, K = 8 1.40-1.43x against
 * 1.26-1.29x, alternated runs) or 8 KB (1.62-1.68x, 1.35-1.44x) */
#define KSCRATCH_BYTES 16384
typedef __m512 V;
typedef __mmask16 VM;

static inline V v_set(float a) { return _mm512_set1_ps(a); }
static inline V v_ld(const float *p) { return _mm512_loadu_ps(p); }
static inline void v_st(float *p, V a) { _mm512_storeu_ps(p, a); }
static inline V v_add(V a, V b) { return _mm512_add_ps(a, b); }
static inline V v_sub(V a, V b) { return _mm512_sub_ps(a, b); }
static inline V v_mul(V a, V b) { return _mm512_mul_ps(a, b); }
static inline V v_div(V a, V b) { return _mm512_div_ps(a, b); }
static inline V v_sqrt(V a) { return _mm512_sqrt_ps(a); }
static inline V v_max(V a, V b) { return _mm512_max_ps(a, b); }
static inline V v_min(V a, V b) { return _mm512_min_ps(a, b); }
static inline V v_abs(V a) { return _mm512_andnot_ps(_mm512_set1_ps(-0.0f), a); }
static inline V v_fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
static inline V v_fnma(V a, V b, V c) { return _mm512_fnmadd_ps(a, b, c); }
static inline VM v_lt(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
static inline VM v_le(V a, V b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static inline VM m_and(VM a, VM b) { return (VM)(a & b); }
static inline VM m_or(VM a, VM b) { return (VM)(a | b); }
static inline VM m_not(VM a) { return (VM)~a; }
static inline unsigned m_bits(VM a) { return (unsigned)a; }
static inline V v_sel(VM m, V a, V b) { return _mm512_mask_blend_ps(m, b, a); }

static inline V v_sgn(V a) { return _mm512_and_ps(a, _mm512_set1_ps(-0.0f)); }
static inline V v_xor(V a, V b) { return _mm512_xor_ps(a, b); }

/* The rotations of joints a, a + 4, a + 8, a + 12 (one per 128-bit lane). */
static inline __m512 load4(const mb_xform *x)
{
    __m512 v = _mm512_castps128_ps512(_mm_loadu_ps(x[0].rot));
    v = _mm512_insertf32x4(v, _mm_loadu_ps(x[4].rot), 1);
    v = _mm512_insertf32x4(v, _mm_loadu_ps(x[8].rot), 2);
    return _mm512_insertf32x4(v, _mm_loadu_ps(x[12].rot), 3);
}

/* 16 joints: four 4x4 transposes, one per 128-bit lane (joints 0-3, 4-7, 8-11, 12-15). */
static inline void gather_rot(const mb_xform *x, V q[4])
{
    __m512 r0 = load4(x), r1 = load4(x + 1), r2 = load4(x + 2), r3 = load4(x + 3);
    __m512 t0 = _mm512_unpacklo_ps(r0, r1), t1 = _mm512_unpackhi_ps(r0, r1);
    __m512 t2 = _mm512_unpacklo_ps(r2, r3), t3 = _mm512_unpackhi_ps(r2, r3);
    q[0] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    q[1] = _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    q[2] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    q[3] = _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

static inline void store4(mb_xform *x, __m512 a)
{
    _mm_storeu_ps(x[0].rot, _mm512_castps512_ps128(a));
    _mm_storeu_ps(x[4].rot, _mm512_extractf32x4_ps(a, 1));
    _mm_storeu_ps(x[8].rot, _mm512_extractf32x4_ps(a, 2));
    _mm_storeu_ps(x[12].rot, _mm512_extractf32x4_ps(a, 3));
}

static inline void scatter_rot(mb_xform *x, const V q[4])
{
    __m512 t0 = _mm512_unpacklo_ps(q[0], q[1]), t1 = _mm512_unpackhi_ps(q[0], q[1]);
    __m512 t2 = _mm512_unpacklo_ps(q[2], q[3]), t3 = _mm512_unpackhi_ps(q[2], q[3]);
    store4(x, _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)));
    store4(x + 1, _mm512_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)));
    store4(x + 2, _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)));
    store4(x + 3, _mm512_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)));
}

#include "blend_kernel.inc"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int mb_blend_kernel_avx512_unused_; /* ISO C forbids an empty translation unit */
#endif
