/* The skinning kernels for AVX2 + FMA, one vertex at a time. Compiled for AVX2 whatever the
 * build flags (a target pragma) and only called after a run-time CPU check (skin.c).
 *
 * LBS: a palette matrix is two 8-float halves (columns 0|1 and 2|3), so each influence is
 * two loads and two FMAs; the vertex is then (c0 x + c1 y) + (c2 z + c3) folded from the
 * two halves. The weight sum is applied once to the result (1 / sum), not per weight.
 * (Blocking LBS by 8 vertices like DQS below, with the blended matrices transposed, measured
 * no faster: the 16 blended halves spill.)
 * DQS: 8 vertices at a time in structure-of-arrays form: the 8 dual quaternions of each
 * influence are transposed into 8 registers (x, y, z, w of the real and dual parts, one
 * vertex per lane), sign-fixed against the first influence with a lane-wise dot product
 * and accumulated with FMAs; positions and normals are transposed in and out the same way;
 * the tail (fewer than 8 vertices) runs one vertex at a time. The blend b is applied
 * without normalising it: for |b.real|^2 = s2,
 *   p' = p + (2 / s2) (rv x (rv x p + rw p) + rw ev - ew rv + rv x ev),
 * which needs one division and no square root. */
#include "runtime/skin/skin_internal.h"

#ifdef MB_SKIN_HAVE_AVX2_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

INLINE const float *at(const float *base, int stride, int v)
{
    return (const float *)((const char *)base + (size_t)v * (size_t)stride);
}
INLINE float *at_mut(float *base, int stride, int v)
{
    return (float *)((char *)base + (size_t)v * (size_t)stride);
}

/* (x, y, z, 0) without touching the bytes after z (the next vertex may belong to another
 * thread, or the buffer may end there). */
INLINE __m128 load3(const float *p)
{
    __m128 xy = _mm_castsi128_ps(_mm_loadu_si64(p)); /* 8 bytes, any alignment */
    return _mm_movelh_ps(xy, _mm_load_ss(p + 2));
}

INLINE void store3(float *p, __m128 v)
{
    _mm_storeu_si64(p, _mm_castps_si128(v));
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}

/* Indices and raw weights of vertex v, n influences; returns their scale. Four unorm16
 * weights are widened in one step; everything else is the shared loader. */
INLINE float load_inf(const mb_skin_desc *d, int v, int n, int u8, int idx[4], float w[4])
{
    if (!u8 || n != 4)
        return mb_skin_load_raw_(d, v, n, u8, idx, w);
    const uint8_t *ji = (const uint8_t *)d->joint_indices + (size_t)v * 4u;
    const uint16_t *jw = (const uint16_t *)d->joint_weights + (size_t)v * 4u;
    __m128i wi = _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(const void *)jw));
    _mm_storeu_ps(w, _mm_cvtepi32_ps(wi));
    float sum = 0.0f;
    for (int k = 0; k < 4; ++k) {
        idx[k] = ji[k];
        sum += w[k];
    }
    return mb_skin_weight_scale_(w, 4, sum);
}

INLINE __m128 fold(__m256 t) { return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1)); }

INLINE __m256 bcast2(const float *a, const float *b)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_broadcast_ss(a)), _mm_broadcast_ss(b), 1);
}

INLINE void lbs(const mb_skin_desc *d, int begin, int end, int n, int u8, int normals)
{
    const float *pal = &d->palette[0][0];
    const __m256 hi_one = _mm256_setr_ps(0, 0, 0, 0, 1, 1, 1, 1);
    for (int v = begin; v < end; ++v) {
        int idx[4];
        float w[4];
        float inv = load_inf(d, v, n, u8, idx, w);
        const float *p0 = pal + (size_t)idx[0] * 16;
        __m256 w0 = _mm256_set1_ps(w[0]);
        __m256 a01 = _mm256_mul_ps(_mm256_loadu_ps(p0), w0);
        __m256 a23 = _mm256_mul_ps(_mm256_loadu_ps(p0 + 8), w0);
        for (int k = 1; k < n; ++k) {
            const float *pk = pal + (size_t)idx[k] * 16;
            __m256 wk = _mm256_set1_ps(w[k]);
            a01 = _mm256_fmadd_ps(_mm256_loadu_ps(pk), wk, a01);
            a23 = _mm256_fmadd_ps(_mm256_loadu_ps(pk + 8), wk, a23);
        }
        __m128 vinv = _mm_set1_ps(inv);
        const float *pi = at(d->positions, d->positions_stride, v);
        __m256 xy = bcast2(pi, pi + 1);
        __m256 z1 = _mm256_blend_ps(_mm256_broadcast_ss(pi + 2), hi_one, 0xF0);
        __m256 tp = _mm256_fmadd_ps(a23, z1, _mm256_mul_ps(a01, xy));
        if (normals) {
            const float *ni = at(d->normals, d->normals_stride, v);
            __m256 nxy = bcast2(ni, ni + 1);
            __m256 nz0 = _mm256_blend_ps(_mm256_broadcast_ss(ni + 2), _mm256_setzero_ps(), 0xF0);
            __m256 tn = _mm256_fmadd_ps(a23, nz0, _mm256_mul_ps(a01, nxy));
            store3(at_mut(d->out_normals, d->out_normals_stride, v), _mm_mul_ps(fold(tn), vinv));
        }
        store3(at_mut(d->out_positions, d->out_positions_stride, v), _mm_mul_ps(fold(tp), vinv));
    }
}

/* a x b for the xyz lanes (w lane: 0 when both w lanes are finite). */
INLINE __m128 cross(__m128 a_yzx, __m128 a, __m128 b)
{
    __m128 b_yzx = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
    __m128 c = _mm_fmsub_ps(a, b_yzx, _mm_mul_ps(a_yzx, b));
    return _mm_shuffle_ps(c, c, _MM_SHUFFLE(3, 0, 2, 1));
}

INLINE void dqs1(const mb_skin_desc *d, int begin, int end, int n, int u8, int normals)
{
    const float *dq = &d->dq_palette[0][0];
    const __m128 sign = _mm_set1_ps(-0.0f);
    for (int v = begin; v < end; ++v) {
        int idx[4];
        float w[4];
        (void)load_inf(d, v, n, u8, idx, w); /* the scale drops out below */
        __m256 q0 = _mm256_loadu_ps(dq + (size_t)idx[0] * 8);
        __m128 r0 = _mm256_castps256_ps128(q0);
        __m256 b = _mm256_mul_ps(q0, _mm256_set1_ps(w[0]));
        for (int k = 1; k < n; ++k) {
            __m256 qk = _mm256_loadu_ps(dq + (size_t)idx[k] * 8);
            /* flip the weight's sign where r0 . rk < 0 (antipodal fix) */
            __m128 dot = _mm_dp_ps(r0, _mm256_castps256_ps128(qk), 0xF1);
            __m128 wk = _mm_xor_ps(_mm_set_ss(w[k]), _mm_and_ps(dot, sign));
            b = _mm256_fmadd_ps(qk, _mm256_broadcastss_ps(wk), b);
        }
        __m128 r = _mm256_castps256_ps128(b), e = _mm256_extractf128_ps(b, 1);
        __m128 s2 = _mm_dp_ps(r, r, 0xFF);
        __m128 k2 = _mm_div_ps(_mm_set1_ps(2.0f), s2);
        __m128 rw = _mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 3, 3, 3));
        __m128 ew = _mm_shuffle_ps(e, e, _MM_SHUFFLE(3, 3, 3, 3));
        __m128 r_yzx = _mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 0, 2, 1));
        /* translation part: rw ev - ew rv + rv x ev */
        __m128 tr = _mm_add_ps(_mm_fmsub_ps(rw, e, _mm_mul_ps(ew, r)), cross(r_yzx, r, e));
        const float *pi = at(d->positions, d->positions_stride, v);
        __m128 p = load3(pi);
        __m128 u = _mm_fmadd_ps(rw, p, cross(r_yzx, r, p));
        __m128 out = _mm_fmadd_ps(k2, _mm_add_ps(cross(r_yzx, r, u), tr), p);
        if (normals) {
            const float *ni = at(d->normals, d->normals_stride, v);
            __m128 nv = load3(ni);
            __m128 un = _mm_fmadd_ps(rw, nv, cross(r_yzx, r, nv));
            store3(at_mut(d->out_normals, d->out_normals_stride, v),
                   _mm_fmadd_ps(k2, cross(r_yzx, r, un), nv));
        }
        store3(at_mut(d->out_positions, d->out_positions_stride, v), out);
    }
}


/* ---------- DQS, 8 vertices at a time (structure of arrays) ----------
 * Lane l of every register is vertex v + l. Rows of 4 floats (vertex j in the low half,
 * vertex j + 4 in the high half) are turned into columns by one 4x4 transpose per half. */

INLINE __m256 pair(const float *lo, const float *hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}
INLINE __m256 pair128(__m128 lo, __m128 hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* rows a, b, c, e (each: vertex j | vertex j + 4) to the columns x, y, z, w */
INLINE void transpose4(__m256 a, __m256 b, __m256 c, __m256 e, __m256 out[4])
{
    __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
    __m256 t2 = _mm256_unpacklo_ps(c, e), t3 = _mm256_unpackhi_ps(c, e);
    out[0] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    out[1] = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    out[2] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    out[3] = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* 8 vec3 at p (stride bytes apart) as columns x, y, z. */
INLINE void load8x3(const float *p, int stride, __m256 out[3])
{
    /* 16-byte loads: the 4th float belongs to the next vertex of the block (whatever the
     * stride and offset); the block's last vertex reads only its own 12 bytes. */
    __m128 r[8];
    for (int j = 0; j < 7; ++j)
        r[j] = _mm_loadu_ps(at(p, stride, j));
    r[7] = load3(at(p, stride, 7));
    __m256 c[4];
    transpose4(pair128(r[0], r[4]), pair128(r[1], r[5]), pair128(r[2], r[6]), pair128(r[3], r[7]), c);
    out[0] = c[0];
    out[1] = c[1];
    out[2] = c[2];
}

/* columns x, y, z to 8 vec3 at p (stride bytes apart); only 12 bytes per vertex are written */
INLINE void store8x3(float *p, int stride, __m256 x, __m256 y, __m256 z)
{
    __m256 t0 = _mm256_unpacklo_ps(x, y), t1 = _mm256_unpackhi_ps(x, y);
    __m256 t2 = _mm256_unpacklo_ps(z, z), t3 = _mm256_unpackhi_ps(z, z);
    __m256 r0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)); /* v0 | v4 */
    __m256 r1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2)); /* v1 | v5 */
    __m256 r2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)); /* v2 | v6 */
    __m256 r3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2)); /* v3 | v7 */
    __m128 v[8] = {_mm256_castps256_ps128(r0), _mm256_castps256_ps128(r1),
                   _mm256_castps256_ps128(r2), _mm256_castps256_ps128(r3),
                   _mm256_extractf128_ps(r0, 1), _mm256_extractf128_ps(r1, 1),
                   _mm256_extractf128_ps(r2, 1), _mm256_extractf128_ps(r3, 1)};
    if (stride == 12) {
        /* in order, each 16-byte store's 4th float is overwritten by the next vertex */
        for (int j = 0; j < 7; ++j)
            _mm_storeu_ps(at_mut(p, stride, j), v[j]);
        store3(at_mut(p, stride, 7), v[7]);
    } else {
        for (int j = 0; j < 8; ++j)
            store3(at_mut(p, stride, j), v[j]);
    }
}

/* Weights of 8 vertices as columns W[0..n-1] (raw, not normalised). */
INLINE void load_weights8(const mb_skin_desc *d, int v, int n, int u8, __m256 W[4])
{
    __m128 r[8];
    if (n == 4) {
        if (u8) {
            const uint16_t *jw = (const uint16_t *)d->joint_weights + (size_t)v * 4;
            for (int j = 0; j < 8; ++j)
                r[j] = _mm_cvtepi32_ps(_mm_cvtepu16_epi32(_mm_loadu_si64(jw + 4 * j)));
        } else {
            const float *jw = (const float *)d->joint_weights + (size_t)v * 4;
            for (int j = 0; j < 8; ++j)
                r[j] = _mm_loadu_ps(jw + 4 * j);
        }
    } else {
        for (int j = 0; j < 8; ++j) {
            float w[4] = {0, 0, 0, 0};
            for (int k = 0; k < n; ++k)
                w[k] = u8 ? (float)((const uint16_t *)d->joint_weights)[(size_t)(v + j) * (size_t)n + (size_t)k]
                          : ((const float *)d->joint_weights)[(size_t)(v + j) * (size_t)n + (size_t)k];
            r[j] = _mm_loadu_ps(w);
        }
    }
    transpose4(pair128(r[0], r[4]), pair128(r[1], r[5]), pair128(r[2], r[6]), pair128(r[3], r[7]), W);
}

INLINE int index_of(const mb_skin_desc *d, int v, int n, int k, int u8)
{
    size_t i = (size_t)v * (size_t)n + (size_t)k;
    return u8 ? ((const uint8_t *)d->joint_indices)[i] : ((const uint16_t *)d->joint_indices)[i];
}

/* cross products, one component each: (a x b)_x = ay bz - az by, ... */
#define CROSS(ax, ay, az, bx, by, bz, ox, oy, oz)                                           \
    do {                                                                                   \
        ox = _mm256_fmsub_ps(ay, bz, _mm256_mul_ps(az, by));                               \
        oy = _mm256_fmsub_ps(az, bx, _mm256_mul_ps(ax, bz));                               \
        oz = _mm256_fmsub_ps(ax, by, _mm256_mul_ps(ay, bx));                               \
    } while (0)

INLINE void dqs8(const mb_skin_desc *d, int v, int n, int u8, int normals)
{
    const float *dq = &d->dq_palette[0][0];
    const __m256 sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
    __m256 W[4];
    load_weights8(d, v, n, u8, W);
    /* a vertex whose weights sum to 0 follows its first index */
    __m256 sum = W[0];
    for (int k = 1; k < n; ++k)
        sum = _mm256_add_ps(sum, W[k]);
    W[0] = _mm256_blendv_ps(W[0], _mm256_set1_ps(1.0f), _mm256_cmp_ps(sum, zero, _CMP_LE_OQ));

    __m256 b[8], r0[4];
    for (int k = 0; k < n; ++k) {
        const float *q[8];
        for (int j = 0; j < 8; ++j)
            q[j] = dq + (size_t)index_of(d, v + j, n, k, u8) * 8;
        __m256 re[4], du[4];
        transpose4(pair(q[0], q[4]), pair(q[1], q[5]), pair(q[2], q[6]), pair(q[3], q[7]), re);
        transpose4(pair(q[0] + 4, q[4] + 4), pair(q[1] + 4, q[5] + 4), pair(q[2] + 4, q[6] + 4),
                   pair(q[3] + 4, q[7] + 4), du);
        __m256 w = W[k];
        if (k == 0) {
            for (int c = 0; c < 4; ++c) {
                r0[c] = re[c];
                b[c] = _mm256_mul_ps(w, re[c]);
                b[4 + c] = _mm256_mul_ps(w, du[c]);
            }
            continue;
        }
        /* antipodal fix: the weight's sign flips where r0 . rk < 0 */
        __m256 dot = _mm256_mul_ps(r0[0], re[0]);
        dot = _mm256_fmadd_ps(r0[1], re[1], dot);
        dot = _mm256_fmadd_ps(r0[2], re[2], dot);
        dot = _mm256_fmadd_ps(r0[3], re[3], dot);
        w = _mm256_xor_ps(w, _mm256_and_ps(dot, sign));
        for (int c = 0; c < 4; ++c) {
            b[c] = _mm256_fmadd_ps(w, re[c], b[c]);
            b[4 + c] = _mm256_fmadd_ps(w, du[c], b[4 + c]);
        }
    }
    __m256 rx = b[0], ry = b[1], rz = b[2], rw = b[3], ex = b[4], ey = b[5], ez = b[6], ew = b[7];
    __m256 s2 = _mm256_fmadd_ps(rx, rx, _mm256_fmadd_ps(ry, ry, _mm256_fmadd_ps(rz, rz, _mm256_mul_ps(rw, rw))));
    __m256 k2 = _mm256_div_ps(_mm256_set1_ps(2.0f), s2);
    /* translation part: rw e - ew r + r x e */
    __m256 cx, cy, cz;
    CROSS(rx, ry, rz, ex, ey, ez, cx, cy, cz);
    __m256 tx = _mm256_add_ps(_mm256_fmsub_ps(rw, ex, _mm256_mul_ps(ew, rx)), cx);
    __m256 ty = _mm256_add_ps(_mm256_fmsub_ps(rw, ey, _mm256_mul_ps(ew, ry)), cy);
    __m256 tz = _mm256_add_ps(_mm256_fmsub_ps(rw, ez, _mm256_mul_ps(ew, rz)), cz);
    __m256 P[3], N[3];
    load8x3(at(d->positions, d->positions_stride, v), d->positions_stride, P);
    if (normals)
        load8x3(at(d->normals, d->normals_stride, v), d->normals_stride, N);
    /* p' = p + k2 (r x (r x p + rw p) + t) */
    __m256 ux, uy, uz, wx, wy, wz;
    CROSS(rx, ry, rz, P[0], P[1], P[2], ux, uy, uz);
    ux = _mm256_fmadd_ps(rw, P[0], ux);
    uy = _mm256_fmadd_ps(rw, P[1], uy);
    uz = _mm256_fmadd_ps(rw, P[2], uz);
    CROSS(rx, ry, rz, ux, uy, uz, wx, wy, wz);
    __m256 ox = _mm256_fmadd_ps(k2, _mm256_add_ps(wx, tx), P[0]);
    __m256 oy = _mm256_fmadd_ps(k2, _mm256_add_ps(wy, ty), P[1]);
    __m256 oz = _mm256_fmadd_ps(k2, _mm256_add_ps(wz, tz), P[2]);
    if (normals) {
        CROSS(rx, ry, rz, N[0], N[1], N[2], ux, uy, uz);
        ux = _mm256_fmadd_ps(rw, N[0], ux);
        uy = _mm256_fmadd_ps(rw, N[1], uy);
        uz = _mm256_fmadd_ps(rw, N[2], uz);
        CROSS(rx, ry, rz, ux, uy, uz, wx, wy, wz);
        store8x3(at_mut(d->out_normals, d->out_normals_stride, v), d->out_normals_stride,
                 _mm256_fmadd_ps(k2, wx, N[0]), _mm256_fmadd_ps(k2, wy, N[1]),
                 _mm256_fmadd_ps(k2, wz, N[2]));
    }
    store8x3(at_mut(d->out_positions, d->out_positions_stride, v), d->out_positions_stride, ox, oy, oz);
}

INLINE void dqs(const mb_skin_desc *d, int begin, int end, int n, int u8, int normals)
{
    int v = begin;
    for (; v + 8 <= end; v += 8)
        dqs8(d, v, n, u8, normals);
    dqs1(d, v, end, n, u8, normals);
}


MB_SKIN_DEFINE_ENTRY_(mb_skin_kernel_avx2_, lbs, dqs)

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
/* No AVX2 kernel on this target (ISO C wants a declaration in every file). */
typedef int mb_skin_kernel_avx2_unused_;
#endif
