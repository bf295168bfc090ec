/* Euler angles <-> quaternions for the six Tait-Bryan orders, intrinsic.
 * Written by hand: cglm 0.8 has no Euler-to-quaternion and its Euler matrix helpers use a
 * different (extrinsic) reading and float only; the writer needs double precision to keep
 * the round trip within 1e-5 rad. */
#include <math.h>
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "mblend/math.h"
#include "math/euler_internal.h"
#include "math/quat_internal.h"

static const char *const order_names[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
static const unsigned char order_axes[6][3] = {
    {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
/* +1 for the even permutations of XYZ (XYZ, YZX, ZXY), -1 for the odd ones: a table, not
 * a per-rotation test, because mixed orders made that test a mispredicted branch. */
static const double order_parity[6] = {1.0, -1.0, -1.0, 1.0, 1.0, -1.0};

const char *mb_euler_order_name(mb_euler_order o)
{
    if ((unsigned)o >= 6u)
        return NULL;
    return order_names[o];
}

mb_status mb_euler_order_parse(const char *name, mb_euler_order *out)
{
    if (!name || !out)
        return MB_INVALID_ARG;
    for (int o = 0; o < 6; ++o) {
        int k = 0;
        while (k < 3 && name[k] && toupper((unsigned char)name[k]) == order_names[o][k])
            ++k;
        if (k == 3 && name[3] == '\0') {
            *out = (mb_euler_order)o;
            return MB_OK;
        }
    }
    return MB_INVALID_ARG;
}

int mb_euler_order_axis(mb_euler_order o, int k)
{
    if ((unsigned)o >= 6u || k < 0 || k > 2)
        return -1;
    return order_axes[o][k];
}

mb_euler_order mb_euler_order_from_axes_(int a0, int a1, int a2)
{
    for (int o = 0; o < 6; ++o)
        if (order_axes[o][0] == a0 && order_axes[o][1] == a1 && order_axes[o][2] == a2)
            return (mb_euler_order)o;
    return MB_ORDER_XYZ;
}


void mb_quat_from_euler(mb_euler_order o, const double a[3], double out[4])
{
    /* Intrinsic listed order: R = R_a0 * R_a1 * R_a2, so q = q0 * q1 * q2. */
    double q[3][4];
    for (int k = 0; k < 3; ++k) {
        double h = 0.5 * a[k];
        q[k][0] = q[k][1] = q[k][2] = 0.0;
        q[k][order_axes[o][k]] = sin(h);
        q[k][3] = cos(h);
    }
    double t[4];
    mb_qmul_d_(q[0], q[1], t);
    mb_qmul_d_(t, q[2], out);
}

/* The sin/cos kernel, compiled here for the build's baseline and in euler_avx2.c for AVX2
 * (picked at run time, same results: no FMA, so every lane rounds as the scalar code). */
#define MB_EULER_SINCOS_NAME_ sincos_half_deg_generic
#define MB_EULER_COMPOSE_NAME_ compose_generic
#include "math/euler_sincos.inc"

/* The kernels by ISA (cpu_internal.h's scheme); no SSE2 one: AUTO falls to the portable
 * kernel there. */
static const mb_euler_sincos_fn_ sincos_kernels[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = sincos_half_deg_generic,
#ifdef MB_EULER_HAVE_AVX2_
    [MB_ISA_AVX2_] = mb_euler_sincos_half_deg_avx2_,
#endif
#ifdef MB_EULER_HAVE_AVX512_
    [MB_ISA_AVX512_] = mb_euler_sincos_half_deg_avx512_,
#endif
};
/* Their composition step, chosen with the same rule (so always the same ISA). */
typedef void (*compose_fn)(int m, int n, const double *restrict e, const double *restrict sn,
                           const double *restrict cs, double *restrict abcw);
static const compose_fn compose_kernels[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = compose_generic,
#ifdef MB_EULER_HAVE_AVX2_
    [MB_ISA_AVX2_] = mb_euler_compose_avx2_,
#endif
#ifdef MB_EULER_HAVE_AVX512_
    [MB_ISA_AVX512_] = mb_euler_compose_avx512_,
#endif
};
#define BUILT_ MB_ISA_BUILT_(sincos_kernels) /* compose_kernels has the same entries */

mb_euler_sincos_fn_ mb_euler_sincos_kernel_(mb_isa_ isa)
{
    return sincos_kernels[mb_isa_select_(isa, BUILT_)];
}

mb_status mb_quat_from_euler_deg_n_isa_(int n, const unsigned char *order, const double *deg,
                                        double *work, mb_isa_ isa, double (*out)[4])
{
    mb_euler_sincos_fn_ sincos_half_deg = mb_euler_sincos_kernel_(isa);
    if (!sincos_half_deg)
        return MB_INVALID_ARG;
    compose_fn compose = compose_kernels[mb_isa_select_(isa, BUILT_)];
    double *restrict sn = work, *restrict cs = work + 3 * n;
    const double *restrict a = deg;
    if (sincos_half_deg(3 * n, a, sn, cs))
        for (int t = 0; t < 3 * n; ++t)
            if (fabs(a[t]) >= MB_EULER_LIBM_DEG_) { /* beyond exact reduction: libm */
                sn[t] = sin(0.5 * a[t] * MB_D2R_);
                cs[t] = cos(0.5 * a[t] * MB_D2R_);
            }
    if (compose == compose_generic) {
        /* The portable build: one fused scalar loop, the expressions of compose_generic
         * straight onto x, y, z (at two lanes, its vector loop, the scatter and the copy
         * below cost more than they save). */
        for (int t = 0; t < n; ++t) {
            int o6 = order[t] < 6 ? order[t] : 0;
            const unsigned char *ax = order_axes[o6];
            double s0 = sn[t], s1 = sn[n + t], s2 = sn[2 * n + t];
            double c0 = cs[t], c1 = cs[n + t], c2 = cs[2 * n + t];
            double e = order_parity[o6];
            double *o = out[t];
            o[ax[0]] = s0 * c1 * c2 + e * c0 * s1 * s2;
            o[ax[1]] = c0 * s1 * c2 - e * s0 * c1 * s2;
            o[ax[2]] = c0 * c1 * s2 + e * s0 * s1 * c2;
            o[3] = c0 * c1 * c2 - e * s0 * s1 * s2;
        }
        return MB_OK;
    }
    /* q = q0 q1 q2 about axes (i, j, k) into out as four runs of n, then onto x, y, z
     * through work (free by then: 4 n of its 6 n doubles) and back */
    double *abcw = &out[0][0];
    for (int t0 = 0; t0 < n; t0 += 64) {
        double e[64];
        int m = n - t0 < 64 ? n - t0 : 64;
        for (int t = 0; t < m; ++t)
            e[t] = order_parity[order[t0 + t] < 6 ? order[t0 + t] : 0];
        compose(m, n, e, sn + t0, cs + t0, abcw + t0);
    }
    for (int t = 0; t < n; ++t) {
        const unsigned char *ax = order_axes[order[t] < 6 ? order[t] : 0];
        double *o = work + 4 * t;
        o[ax[0]] = abcw[t];
        o[ax[1]] = abcw[n + t];
        o[ax[2]] = abcw[2 * n + t];
        o[3] = abcw[3 * n + t];
    }
    memcpy(out, work, (size_t)n * sizeof out[0]);
    return MB_OK;
}

void mb_quat_from_euler_deg_n_(int n, const unsigned char *order, const double *deg,
                               double *work, double (*out)[4])
{
    (void)mb_quat_from_euler_deg_n_isa_(n, order, deg, work, MB_ISA_AUTO_, out);
}

void mb_quat_to_euler(mb_euler_order o, const double q_in[4], double out[3])
{
    double n = sqrt(q_in[0] * q_in[0] + q_in[1] * q_in[1] + q_in[2] * q_in[2] +
                    q_in[3] * q_in[3]);
    double q[4] = {0, 0, 0, 1};
    if (n > 0 && isfinite(n))
        for (int k = 0; k < 4; ++k)
            q[k] = q_in[k] / n;
    double m[3][3];
    mb_quat_to_mat3_d_(q, m);
    int i = order_axes[o][0], j = order_axes[o][1], k = order_axes[o][2];
    /* Even permutations of XYZ (XYZ, YZX, ZXY) have parity +1. For R = Ri(a) Rj(b) Rk(c):
     * R[i][k] = s sin b, R[j][k] = -s sin a cos b, R[k][k] = cos a cos b,
     * R[i][j] = -s cos b sin c, R[i][i] = cos b cos c. */
    double s = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0;
    double cb = hypot(m[i][i], m[i][j]);
    out[1] = atan2(s * m[i][k], cb);
    if (cb > 1e-12) {
        out[0] = atan2(-s * m[j][k], m[k][k]);
        /* c from what is left once a is removed: Ri(a)^T R = Rj(b) Rk(c), whose row j is
         * row j of Rk(c): (s sin c, cos c) at columns (i, j). Near the lock a is
         * ill-conditioned (both its atan2 arguments are ~cos b); taking c from the
         * remainder absorbs a's error, so the triple still reproduces R to rounding,
         * which an independent atan2 for c does not (1e-9 rad off at 1e-5 deg from it). */
        double ca = cos(out[0]), sa = sin(out[0]);
        out[2] = atan2(s * ca * m[j][i] + sa * m[k][i], ca * m[j][j] + s * sa * m[k][j]);
    } else {
        /* Gimbal lock: only a +- c is defined. Put it all in a (c = 0); then
         * R = Ri(a) Rj(b) and R[k][j] = s sin a, R[j][j] = cos a. */
        out[0] = atan2(s * m[k][j], m[j][j]);
        out[2] = 0.0;
    }
    /* atan2(-0, x < 0) is -pi; the documented range is (-pi, pi]. */
    for (int t = 0; t < 3; t += 2)
        if (out[t] <= -3.1415926535897931)
            out[t] = -out[t];
}

double mb_quat_angle_between(const float a[4], const float b[4])
{
    /* The 4D chord |a - b| = 2 sin(theta / 4) keeps precision at tiny angles, where
     * 2 acos(|a . b|) does not. b is flipped onto a's hemisphere first. */
    double d = 0.0;
    for (int k = 0; k < 4; ++k)
        d += (double)a[k] * (double)b[k];
    double sgn = d < 0.0 ? -1.0 : 1.0;
    double e = 0.0;
    for (int k = 0; k < 4; ++k) {
        double t = (double)a[k] - sgn * (double)b[k];
        e += t * t;
    }
    double half_chord = 0.5 * sqrt(e);
    if (half_chord > 1.0)
        half_chord = 1.0;
    return 4.0 * asin(half_chord);
}
