/* mblend/math.h: rotation conversions on plain floats/doubles.
 * Quaternions are x, y, z, w. Angles in radians. */
#ifndef MBLEND_MATH_H
#define MBLEND_MATH_H

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The six Tait-Bryan orders. The letters name the axes in the order a BVH CHANNELS line
 * lists them; rotations are intrinsic, so MB_ORDER_ZXY means R = Rz(a0) * Rx(a1) * Ry(a2). */
typedef enum mb_euler_order {
    MB_ORDER_XYZ,
    MB_ORDER_XZY,
    MB_ORDER_YXZ,
    MB_ORDER_YZX,
    MB_ORDER_ZXY,
    MB_ORDER_ZYX
} mb_euler_order;

/* "XYZ" etc. for an order; NULL for values outside the enum. */
MB_API const char *mb_euler_order_name(mb_euler_order o);
/* Parses "XYZ", "zxy", ... into *out. Returns MB_INVALID_ARG for anything else. */
MB_API mb_status mb_euler_order_parse(const char *name, mb_euler_order *out);

/* Axis index (0 = X, 1 = Y, 2 = Z) of the k-th rotation of an order, k in 0..2. */
MB_API int mb_euler_order_axis(mb_euler_order o, int k);

/* Intrinsic Euler angles (a[k] about axis k of the order, radians) to a unit quaternion.
 * Computed in double. out may not alias a. */
MB_API void mb_quat_from_euler(mb_euler_order o, const double a[3], double out[4]);

/* Unit quaternion to intrinsic Euler angles of the given order (radians). The middle angle
 * is in [-pi/2, pi/2]; the outer ones in (-pi, pi]. At gimbal lock (middle angle +-pi/2)
 * the third angle is set to 0 and the first carries the whole twist, so the result still
 * reproduces q exactly. q need not be normalised (it is normalised internally). */
MB_API void mb_quat_to_euler(mb_euler_order o, const double q[4], double out[3]);

/* Angle in radians (in [0, pi]) of the rotation between two unit quaternions, sign-invariant. */
MB_API double mb_quat_angle_between(const float a[4], const float b[4]);

/* Log map of a unit quaternion: the rotation vector (axis * angle, radians, angle in
 * [0, pi]) of q or -q, whichever has w >= 0 (the short arc). Accurate at small angles
 * and near pi. out may not alias q. */
MB_API void mb_quat_log(const float q[4], float out[3]);

/* Exp map: the unit quaternion (w >= 0 for angles <= pi) rotating by |v| radians about v. */
MB_API void mb_quat_exp(const float v[3], float out[4]);

/* Reference quaternion of n weighted unit quaternions: the eigenvector of the largest
 * eigenvalue of M = sum w_i q_i q_i^T (Markley's average; minimises
 * sum w_i (1 - (q_i . q)^2)), through LAPACK's dsyev in double precision. Sign-invariant
 * in every input and independent of their order; returned with w >= 0 (x >= 0 ... when
 * w == 0) so equal inputs give bit-equal outputs. Weights need not sum to 1 (only their
 * ratios matter) but must be finite, >= 0, with a positive sum.
 * out_gap (nullable) receives (lambda_1 - lambda_2) / lambda_1 in [0, 1]: near 0 means
 * the reference is ill-defined (e.g. two inputs 180 degrees apart with equal weights).
 * MB_INVALID_ARG for n < 1, NULL arrays or bad weights; MB_NUMERIC for non-finite
 * input or a LAPACK failure. */
MB_API mb_status mb_quat_reference(const float (*q)[4], const float *w, int n, float out[4],
                                   float *out_gap);

#ifdef __cplusplus
}
#endif
#endif
