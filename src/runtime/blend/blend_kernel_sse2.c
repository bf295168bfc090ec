/* The group kernel for SSE2 (every x86-64), 4 joints at a time, no FMA. */
#include "runtime/blend/blend_internal.h"

#ifdef MB_BLEND_HAVE_SSE2_

#include <emmintrin.h>

#define KW 4
#define KERNEL_NAME mb_blend_kernel_sse2_
#define NLERP_NAME mb_blend_nlerp_sse2_
#define KERNEL_SPECIALISE 1
#define CHECK_NAME mb_blend_check_sse2_
typedef __m128 V;
typedef __m128 VM;

static inline V v_set(float a) { return _mm_set1_ps(a); }
static inline V v_ld(const float *p) { return _mm_loadu_ps(p); }
static inline void v_st(float *p, V a) { _mm_storeu_ps(p, a); }
static inline V v_add(V a, V b) { return _mm_add_ps(a, b); }
static inline V v_sub(V a, V b) { return _mm_sub_ps(a, b); }
static inline V v_mul(V a, V b) { return _mm_mul_ps(a, b); }
static inline V v_div(V a, V b) { return _mm_div_ps(a, b); }
static inline V v_sqrt(V a) { return _mm_sqrt_ps(a); }
static inline V v_max(V a, V b) { return _mm_max_ps(a, b); }
static inline V v_min(V a, V b) { return _mm_min_ps(a, b); }
static inline V v_abs(V a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
static inline V v_fma(V a, V b, V c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
static inline V v_fnma(V a, V b, V c) { return _mm_sub_ps(c, _mm_mul_ps(a, b)); }
static inline VM v_lt(V a, V b) { return _mm_cmplt_ps(a, b); }
static inline VM v_le(V a, V b) { return _mm_cmple_ps(a, b); }
static inline VM m_and(VM a, VM b) { return _mm_and_ps(a, b); }
static inline VM m_or(VM a, VM b) { return _mm_or_ps(a, b); }
static inline VM m_not(VM a) { return _mm_xor_ps(a, _mm_castsi128_ps(_mm_set1_epi32(-1))); }
static inline unsigned m_bits(VM a) { return (unsigned)_mm_movemask_ps(a); }
static inline V v_sel(VM m, V a, V b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }

static inline V v_sgn(V a) { return _mm_and_ps(a, _mm_set1_ps(-0.0f)); }
static inline V v_xor(V a, V b) { return _mm_xor_ps(a, b); }

static inline void gather_rot(const mb_xform *x, V q[4])
{
    __m128 a = _mm_loadu_ps(x[0].rot), b = _mm_loadu_ps(x[1].rot);
    __m128 c = _mm_loadu_ps(x[2].rot), d = _mm_loadu_ps(x[3].rot);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    q[0] = a;
    q[1] = b;
    q[2] = c;
    q[3] = d;
}

static inline void scatter_rot(mb_xform *x, const V q[4])
{
    __m128 a = q[0], b = q[1], c = q[2], d = q[3];
    _MM_TRANSPOSE4_PS(a, b, c, d);
    _mm_storeu_ps(x[0].rot, a);
    _mm_storeu_ps(x[1].rot, b);
    _mm_storeu_ps(x[2].rot, c);
    _mm_storeu_ps(x[3].rot, d);
}

#include "blend_kernel.inc"

#else
typedef int mb_blend_kernel_sse2_unused_; /* ISO C forbids an empty translation unit */
#endif
