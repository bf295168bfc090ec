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

#ifdef __cplusplus
}
#endif
#endif
