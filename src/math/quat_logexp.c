/* Quaternion log and exp maps (cglm 0.8 has neither). Rotation-vector convention, like
 * scipy's as_rotvec/from_rotvec, so the tangent space is in radians of rotation. The
 * float API wraps the double versions the exact blend paths use. */
#include <math.h>

#include "math/quat_internal.h"
#include "mblend/math.h"

void mb_quat_log_d_(const double q[4], double v[3])
{
    double sg = q[3] < 0.0 ? -1.0 : 1.0; /* short arc: q and -q are the same rotation */
    double x = sg * q[0], y = sg * q[1], z = sg * q[2], w = sg * q[3];
    double s = sqrt(x * x + y * y + z * z);
    /* angle = 2 atan2(s, w) is well conditioned everywhere, unlike 2 acos(w) near 0. */
    double k;
    if (s < 1e-4) {
        /* 2 atan2(s, w) / s = (2 / w) (1 - s^2 / (3 w^2) + ...) for small s (w ~ 1). */
        double r = s / w;
        k = (2.0 / w) * (1.0 - r * r / 3.0);
    } else {
        k = 2.0 * atan2(s, w) / s;
    }
    v[0] = x * k;
    v[1] = y * k;
    v[2] = z * k;
}

void mb_quat_exp_d_(const double v[3], double q[4])
{
    double t = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    /* sin(t/2)/t -> 1/2 - t^2/48 for small t (error below 1e-17 for t < 1e-4). */
    double k = t < 1e-4 ? 0.5 - t * t / 48.0 : sin(0.5 * t) / t;
    q[0] = v[0] * k;
    q[1] = v[1] * k;
    q[2] = v[2] * k;
    q[3] = cos(0.5 * t);
}

void mb_quat_log(const float q[4], float out[3])
{
    const double d[4] = {q[0], q[1], q[2], q[3]};
    double v[3];
    mb_quat_log_d_(d, v);
    for (int k = 0; k < 3; ++k)
        out[k] = (float)v[k];
}

void mb_quat_exp(const float v[3], float out[4])
{
    const double d[3] = {v[0], v[1], v[2]};
    double q[4];
    mb_quat_exp_d_(d, q);
    for (int k = 0; k < 4; ++k)
        out[k] = (float)q[k];
}
