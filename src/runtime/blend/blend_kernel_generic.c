/* The group kernel in portable C, 4 joints at a time (compilers vectorise the lane loops
 * where they can). The fallback where no SIMD kernel is built, and a cross-check in tests. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/blend/blend_internal.h"

#define KW 4
#define KERNEL_NAME mb_blend_kernel_generic_
#define NLERP_NAME mb_blend_nlerp_generic_
#define KERNEL_SPECIALISE 0
#define CHECK_NAME mb_blend_check_generic_
typedef struct V {
    float f[KW];
} V;
typedef struct VM {
    int b[KW];
} VM;

#define LANES_(expr)                                                                        \
    V r_;                                                                                   \
    for (int l = 0; l < KW; ++l)                                                            \
        r_.f[l] = (expr);                                                                   \
    return r_
#define MASK_(expr)                                                                         \
    VM r_;                                                                                  \
    for (int l = 0; l < KW; ++l)                                                            \
        r_.b[l] = (expr);                                                                   \
    return r_

static inline V v_set(float a) { LANES_(a); }
static inline V v_ld(const float *p) { LANES_(p[l]); }
static inline void v_st(float *p, V a)
{
    for (int l = 0; l < KW; ++l)
        p[l] = a.f[l];
}
static inline V v_add(V a, V b) { LANES_(a.f[l] + b.f[l]); }
static inline V v_sub(V a, V b) { LANES_(a.f[l] - b.f[l]); }
static inline V v_mul(V a, V b) { LANES_(a.f[l] * b.f[l]); }
static inline V v_div(V a, V b) { LANES_(a.f[l] / b.f[l]); }
static inline V v_sqrt(V a) { LANES_(sqrtf(a.f[l])); }
static inline V v_max(V a, V b) { LANES_(b.f[l] > a.f[l] ? b.f[l] : a.f[l]); }
static inline V v_min(V a, V b) { LANES_(b.f[l] < a.f[l] ? b.f[l] : a.f[l]); }
static inline V v_abs(V a) { LANES_(fabsf(a.f[l])); }
static inline V v_fma(V a, V b, V c) { LANES_(a.f[l] * b.f[l] + c.f[l]); }
static inline V v_fnma(V a, V b, V c) { LANES_(c.f[l] - a.f[l] * b.f[l]); }
static inline VM v_lt(V a, V b) { MASK_(a.f[l] < b.f[l]); }
static inline VM v_le(V a, V b) { MASK_(a.f[l] <= b.f[l]); }
static inline VM m_and(VM a, VM b) { MASK_(a.b[l] && b.b[l]); }
static inline VM m_or(VM a, VM b) { MASK_(a.b[l] || b.b[l]); }
static inline VM m_not(VM a) { MASK_(!a.b[l]); }
static inline unsigned m_bits(VM a)
{
    unsigned r = 0;
    for (int l = 0; l < KW; ++l)
        r |= (unsigned)(a.b[l] != 0) << l;
    return r;
}
static inline V v_sel(VM m, V a, V b) { LANES_(m.b[l] ? a.f[l] : b.f[l]); }

/* bit operations on the float representations (memcpy: no aliasing questions) */
static inline float bits_op_(float a, float b, int op)
{
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    x = op ? x ^ y : x & y;
    memcpy(&a, &x, sizeof a);
    return a;
}
static inline V v_sgn(V a) { LANES_(bits_op_(a.f[l], -0.0f, 0)); }
static inline V v_xor(V a, V b) { LANES_(bits_op_(a.f[l], b.f[l], 1)); }

static inline void gather_rot(const mb_xform *x, V q[4])
{
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < KW; ++l)
            q[c].f[l] = x[l].rot[c];
}

static inline void scatter_rot(mb_xform *x, const V q[4])
{
    for (int c = 0; c < 4; ++c)
        for (int l = 0; l < KW; ++l)
            x[l].rot[c] = q[c].f[l];
}

#include "blend_kernel.inc"
