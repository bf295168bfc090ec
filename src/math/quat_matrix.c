/* Rotation of a matrix as a quaternion: the mesh readers (inverse binds, node transforms)
 * and the DQS palette (runtime/skin) share it, so it lives below both. */
#include <math.h>

#include "math/quat_internal.h"

void mb_quat_from_mat4_d_(const double m[16], double q[4])
{
    /* Columns normalised, so a uniform scale drops out; then Shepperd's method (the
     * largest of w, x, y, z picks the numerically stable formula). c[col][row]. */
    double c[3][3];
    for (int col = 0; col < 3; ++col) {
        double len = sqrt(m[col * 4] * m[col * 4] + m[col * 4 + 1] * m[col * 4 + 1] +
                          m[col * 4 + 2] * m[col * 4 + 2]);
        if (!(len > 1e-30))
            len = 1.0;
        for (int r = 0; r < 3; ++r)
            c[col][r] = m[col * 4 + r] / len;
    }
    double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2], tr = r00 + r11 + r22;
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        q[3] = 0.25 * s;
        q[0] = (c[1][2] - c[2][1]) / s;
        q[1] = (c[2][0] - c[0][2]) / s;
        q[2] = (c[0][1] - c[1][0]) / s;
    } else if (r00 > r11 && r00 > r22) {
        double s = sqrt(1.0 + r00 - r11 - r22) * 2.0;
        q[3] = (c[1][2] - c[2][1]) / s;
        q[0] = 0.25 * s;
        q[1] = (c[1][0] + c[0][1]) / s;
        q[2] = (c[2][0] + c[0][2]) / s;
    } else if (r11 > r22) {
        double s = sqrt(1.0 + r11 - r00 - r22) * 2.0;
        q[3] = (c[2][0] - c[0][2]) / s;
        q[0] = (c[1][0] + c[0][1]) / s;
        q[1] = 0.25 * s;
        q[2] = (c[2][1] + c[1][2]) / s;
    } else {
        double s = sqrt(1.0 + r22 - r00 - r11) * 2.0;
        q[3] = (c[0][1] - c[1][0]) / s;
        q[0] = (c[2][0] + c[0][2]) / s;
        q[1] = (c[2][1] + c[1][2]) / s;
        q[2] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k)
        q[k] /= n;
}
