/* Inertialization offsets: Bollo's quintic decay per joint (see inertialize_internal.h). */
#include <math.h>
#include <string.h>

#include "math/quat_internal.h"
#include "runtime/controller/inertialize_internal.h"
#include "runtime/controller/rootmotion_internal.h"

/* Below this a joint's offset is treated as none (radians or file units). */
#define INERT_EPS 1e-9

void mb_inert_fit_(double x0, double v0, double t1, mb_inert_curve_ *out)
{
    memset(out, 0, sizeof *out);
    if (!(x0 > INERT_EPS) || !(t1 > 0.0)) {
        out->t1 = 0.0; /* no offset */
        return;
    }
    if (!(v0 < 0.0))
        v0 = 0.0;
    /* Approaching fast: arrive when the current velocity would, without overshoot. */
    if (v0 < 0.0 && -5.0 * x0 / v0 < t1)
        t1 = -5.0 * x0 / v0;
    double t2 = t1 * t1, t3 = t2 * t1, t4 = t3 * t1, t5 = t4 * t1;
    double a0 = (-8.0 * v0 * t1 - 20.0 * x0) / t2;
    if (a0 < 0.0)
        a0 = 0.0;
    out->c[5] = -(a0 * t2 + 6.0 * v0 * t1 + 12.0 * x0) / (2.0 * t5);
    out->c[4] = (3.0 * a0 * t2 + 16.0 * v0 * t1 + 30.0 * x0) / (2.0 * t4);
    out->c[3] = -(3.0 * a0 * t2 + 12.0 * v0 * t1 + 20.0 * x0) / (2.0 * t3);
    out->c[2] = 0.5 * a0;
    out->c[1] = v0;
    out->c[0] = x0;
    out->t1 = t1;
}

double mb_inert_eval_(const mb_inert_curve_ *k, double s)
{
    if (!(s < k->t1))
        return 0.0;
    if (s < 0.0)
        s = 0.0;
    const double *c = k->c;
    return ((((c[5] * s + c[4]) * s + c[3]) * s + c[2]) * s + c[1]) * s + c[0];
}

/* src * target^-1 (the offset that carries target onto src, in the parent's space). */
static void offset_quat(const float src[4], const float tgt[4], double out[4])
{
    double a[4] = {src[0], src[1], src[2], src[3]};
    double bi[4] = {-tgt[0], -tgt[1], -tgt[2], tgt[3]};
    mb_qmul_d_(a, bi, out);
}

void mb_inert_start_(mb_inert_joint_ *joints, int count, const mb_xform *src,
                     const mb_xform *src_prev, double dt_prev, const mb_xform *target,
                     double duration)
{
    int have_prev = src_prev && dt_prev > 0.0;
    for (int j = 0; j < count; ++j) {
        mb_inert_joint_ *ij = &joints[j];
        memset(ij, 0, sizeof *ij);
        /* Rotation. */
        double q[4], v[3];
        offset_quat(src[j].rot, target[j].rot, q);
        mb_quat_log_d_(q, v);
        double x0 = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), v0 = 0.0;
        if (x0 > INERT_EPS) {
            for (int k = 0; k < 3; ++k)
                ij->axis[k] = v[k] / x0;
            if (have_prev) {
                double qp[4], vp[3];
                offset_quat(src_prev[j].rot, target[j].rot, qp);
                mb_quat_log_d_(qp, vp);
                double xm1 = vp[0] * ij->axis[0] + vp[1] * ij->axis[1] + vp[2] * ij->axis[2];
                v0 = (x0 - xm1) / dt_prev;
            }
        }
        mb_inert_fit_(x0, v0, duration, &ij->rot);
        /* Translation. */
        double d[3];
        for (int k = 0; k < 3; ++k)
            d[k] = (double)src[j].pos[k] - target[j].pos[k];
        x0 = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        v0 = 0.0;
        if (x0 > INERT_EPS) {
            for (int k = 0; k < 3; ++k)
                ij->dir[k] = d[k] / x0;
            if (have_prev) {
                double xm1 = 0.0;
                for (int k = 0; k < 3; ++k)
                    xm1 += ((double)src_prev[j].pos[k] - target[j].pos[k]) * ij->dir[k];
                v0 = (x0 - xm1) / dt_prev;
            }
        }
        mb_inert_fit_(x0, v0, duration, &ij->pos);
    }
}

double mb_inert_apply_(const mb_inert_joint_ *joints, int count, double s, mb_xform *pose)
{
    double worst = 0.0;
    for (int j = 0; j < count; ++j) {
        const mb_inert_joint_ *ij = &joints[j];
        double x = mb_inert_eval_(&ij->rot, s);
        if (x != 0.0) {
            double h = 0.5 * x, sn = sin(h);
            double oq[4] = {ij->axis[0] * sn, ij->axis[1] * sn, ij->axis[2] * sn, cos(h)};
            double tq[4] = {pose[j].rot[0], pose[j].rot[1], pose[j].rot[2], pose[j].rot[3]}, r[4];
            mb_qmul_d_(oq, tq, r);
            double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
            for (int k = 0; k < 4; ++k)
                pose[j].rot[k] = (float)(r[k] / n);
            double ax = fabs(x);
            worst = ax > worst ? ax : worst;
        }
        double y = mb_inert_eval_(&ij->pos, s);
        if (y != 0.0)
            for (int k = 0; k < 3; ++k)
                pose[j].pos[k] = (float)(pose[j].pos[k] + ij->dir[k] * y);
    }
    return worst;
}
