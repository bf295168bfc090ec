/* Private: inertialization offsets (Bollo, GDC 2018), shared by the controller.
 *
 * At the switch, each joint's offset from the target to the source pose is split into a
 * direction (rotation axis, or translation direction) and a magnitude x0 >= 0; the
 * magnitude's velocity v0 comes from the source's previous pose. The magnitude then
 * follows the quintic x(t) with x(0) = x0, x'(0) = v0, x''(0) = a0 and x = x' = x'' = 0
 * at t1 <= duration, so the offset reaches zero exactly, smoothly, without overshoot
 * (v0 is clamped to <= 0: a source moving away from the target does not carry that on,
 * and t1 is shortened to -5 x0 / v0 when the source approaches quickly). The output is
 * the target pose with the offset applied: rotation exp(axis x(t)) * target (in the
 * parent's space), translation target + dir x(t). */
#ifndef MB_INERTIALIZE_INTERNAL_H
#define MB_INERTIALIZE_INTERNAL_H

#include "mblend/base.h"

/* One decaying magnitude: x(s) = c[5] s^5 + c[4] s^4 + c[3] s^3 + c[2] s^2 + c[1] s + c[0]
 * for s < t1, else 0. */
typedef struct mb_inert_curve_ {
    double c[6];
    double t1;
} mb_inert_curve_;

/* One joint's offset: rotation (axis, curve) and translation (direction, curve). */
typedef struct mb_inert_joint_ {
    double axis[3];
    double dir[3];
    mb_inert_curve_ rot, pos;
} mb_inert_joint_;

/* Fits Bollo's quintic (x0 >= 0; v0 is clamped to <= 0; t1 > 0 is the duration). */
void mb_inert_fit_(double x0, double v0, double t1, mb_inert_curve_ *out);
/* Value of the curve at s >= 0. */
double mb_inert_eval_(const mb_inert_curve_ *k, double s);

/* Starts offsets for count joints: src is the last output pose, src_prev the one before
 * (dt_prev seconds earlier; NULL or dt_prev <= 0: zero velocity), target the pose the
 * offsets are relative to. duration > 0. */
void mb_inert_start_(mb_inert_joint_ *joints, int count, const mb_xform *src,
                     const mb_xform *src_prev, double dt_prev, const mb_xform *target,
                     double duration);

/* Applies the offsets at s seconds after the start to pose (in place). Returns the
 * largest remaining rotation offset (radians). */
double mb_inert_apply_(const mb_inert_joint_ *joints, int count, double s, mb_xform *pose);

#endif
