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

/* Taylor coefficients of sin(x deg) and cos(x deg) with pi/180 folded in; on
 * |x| <= 45 degrees (pi/4) degree 11 and 12 leave < 1e-11. */
#define MB_D2R_ 0.017453292519943295
#define MB_S1_ MB_D2R_
#define MB_S3_ (-MB_S1_ * MB_D2R_ * MB_D2R_ / 6.0)
#define MB_S5_ (-MB_S3_ * MB_D2R_ * MB_D2R_ / 20.0)
#define MB_S7_ (-MB_S5_ * MB_D2R_ * MB_D2R_ / 42.0)
#define MB_S9_ (-MB_S7_ * MB_D2R_ * MB_D2R_ / 72.0)
#define MB_S11_ (-MB_S9_ * MB_D2R_ * MB_D2R_ / 110.0)
#define MB_C2_ (-MB_D2R_ * MB_D2R_ / 2.0)
#define MB_C4_ (-MB_C2_ * MB_D2R_ * MB_D2R_ / 12.0)
#define MB_C6_ (-MB_C4_ * MB_D2R_ * MB_D2R_ / 30.0)
#define MB_C8_ (-MB_C6_ * MB_D2R_ * MB_D2R_ / 56.0)
#define MB_C10_ (-MB_C8_ * MB_D2R_ * MB_D2R_ / 90.0)
#define MB_C12_ (-MB_C10_ * MB_D2R_ * MB_D2R_ / 132.0)

void mb_quat_from_euler_deg_n_(int n, const unsigned char *order, const double *deg,
                               double *work, double (*out)[4])
{
    double *restrict sn = work, *restrict cs = work + 3 * n;
    const double *restrict a = deg;
    /* sin and cos of the half angles, branch-free (bit selects) so it vectorises. */
    for (int t = 0; t < 3 * n; ++t) {
        double x = 0.5 * a[t];
        /* k = rint(x / 90) by the 1.5 * 2^52 trick; the low bits of tk are k mod 4. */
        double tk = x * (1.0 / 90.0) + 6755399441055744.0;
        double k = tk - 6755399441055744.0;
        double r = x - k * 90.0; /* exact for |x| < 5e7: |r| <= 45 needs fewer bits than x */
        double r2 = r * r;
        double sp = r * (MB_S1_ + r2 * (MB_S3_ + r2 * (MB_S5_ + r2 * (MB_S7_ + r2 * (MB_S9_ + r2 * MB_S11_)))));
        double cp = 1.0 + r2 * (MB_C2_ + r2 * (MB_C4_ + r2 * (MB_C6_ + r2 * (MB_C8_ + r2 * (MB_C10_ + r2 * MB_C12_)))));
        uint64_t q, sb, cb;
        memcpy(&q, &tk, 8);
        memcpy(&sb, &sp, 8);
        memcpy(&cb, &cp, 8);
        /* sin(r + q 90deg): odd q swaps sin and cos; q = 2, 3 negate sin; q = 1, 2 cos. */
        uint64_t odd = 0 - (q & 1u);
        uint64_t so = ((cb & odd) | (sb & ~odd)) ^ ((q & 2u) << 62);
        uint64_t co = ((sb & odd) | (cb & ~odd)) ^ (((q + 1u) & 2u) << 62);
        memcpy(&sn[t], &so, 8);
        memcpy(&cs[t], &co, 8);
    }
    for (int t = 0; t < 3 * n; ++t)
        if (fabs(a[t]) > 1e8) { /* beyond exact reduction (and the 2^51 trick): libm */
            sn[t] = sin(0.5 * a[t] * MB_D2R_);
            cs[t] = cos(0.5 * a[t] * MB_D2R_);
        }
    /* q = q0 q1 q2 about axes (i, j, k); e = +1 for the even orders XYZ, YZX, ZXY. */
    for (int t = 0; t < n; ++t) {
        const unsigned char *ax = order_axes[order[t] < 6 ? order[t] : 0];
        double s0 = sn[t], s1 = sn[n + t], s2 = sn[2 * n + t];
        double c0 = cs[t], c1 = cs[n + t], c2 = cs[2 * n + t];
        double e = ((ax[1] - ax[0] + 3) % 3 == 1) ? 1.0 : -1.0;
        double *o = out[t];
        o[ax[0]] = s0 * c1 * c2 + e * c0 * s1 * s2;
        o[ax[1]] = c0 * s1 * c2 - e * s0 * c1 * s2;
        o[ax[2]] = c0 * c1 * s2 + e * s0 * s1 * c2;
        o[3] = c0 * c1 * c2 - e * s0 * s1 * s2;
    }
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
