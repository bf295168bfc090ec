/* Quaternion log and exp maps (cglm 0.8 has neither). Rotation-vector convention, like
 * scipy's as_rotvec/from_rotvec, so the tangent space is in radians of rotation. */
#include <math.h>

#include "mblend/math.h"

void mb_quat_log(const float q[4], float out[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    if (w < 0.0) { /* short arc: q and -q are the same rotation */
        x = -x;
        y = -y;
        z = -z;
        w = -w;
    }
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
    out[0] = (float)(x * k);
    out[1] = (float)(y * k);
    out[2] = (float)(z * k);
}

void mb_quat_exp(const float v[3], float out[4])
{
    double x = v[0], y = v[1], z = v[2];
    double t = sqrt(x * x + y * y + z * z);
    double h = 0.5 * t;
    /* sin(t/2)/t -> 1/2 - t^2/48 for small t (error below 1e-17 for t < 1e-4). */
    double k = t < 1e-4 ? 0.5 - t * t / 48.0 : sin(h) / t;
    out[0] = (float)(x * k);
    out[1] = (float)(y * k);
    out[2] = (float)(z * k);
    out[3] = (float)cos(h);
}
