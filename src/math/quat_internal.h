/* Double-precision quaternion helpers (x, y, z, w) shared by every layer above math.
 * cglm covers the float per-frame math; these are for the exact paths (Euler conversion,
 * the scalar blend, root motion, the writer), which cglm 0.8 has no double types for. */
#ifndef MB_QUAT_INTERNAL_H
#define MB_QUAT_INTERNAL_H

/* The rotation of a column-major matrix's 3x3 with its columns normalised (a uniform scale
 * drops out), as a unit quaternion x, y, z, w (quat_matrix.c). */
void mb_quat_from_mat4_d_(const double m[16], double q[4]);

/* r = p * q (Hamilton product); r may not alias p or q. */
static inline void mb_qmul_d_(const double p[4], const double q[4], double r[4])
{
    r[0] = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
    r[1] = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
    r[2] = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
    r[3] = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
}

/* r = conj(p) * q: q seen from p (p unit). */
static inline void mb_qconjmul_d_(const double p[4], const double q[4], double r[4])
{
    const double pc[4] = {-p[0], -p[1], -p[2], p[3]};
    mb_qmul_d_(pc, q, r);
}

static inline double mb_qdot_d_(const double a[4], const double b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* out = q v q^-1 for a unit q: v + 2w (u x v) + 2 u x (u x v), u the vector part. */
static inline void mb_qrotate_d_(const double q[4], const double v[3], double out[3])
{
    double u0 = q[0], u1 = q[1], u2 = q[2], w = q[3];
    double t0 = 2 * (u1 * v[2] - u2 * v[1]), t1 = 2 * (u2 * v[0] - u0 * v[2]),
           t2 = 2 * (u0 * v[1] - u1 * v[0]);
    out[0] = v[0] + w * t0 + (u1 * t2 - u2 * t1);
    out[1] = v[1] + w * t1 + (u2 * t0 - u0 * t2);
    out[2] = v[2] + w * t2 + (u0 * t1 - u1 * t0);
}

/* Row-major 3x3 rotation matrix of a unit quaternion. */
static inline void mb_quat_to_mat3_d_(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z);
    m[0][1] = 2 * (x * y - z * w);
    m[0][2] = 2 * (x * z + y * w);
    m[1][0] = 2 * (x * y + z * w);
    m[1][1] = 1 - 2 * (x * x + z * z);
    m[1][2] = 2 * (y * z - x * w);
    m[2][0] = 2 * (x * z - y * w);
    m[2][1] = 2 * (y * z + x * w);
    m[2][2] = 1 - 2 * (x * x + y * y);
}

/* Log map in double: the rotation vector of q, taking -q when w < 0 (short arc). */
void mb_quat_log_d_(const double q[4], double v[3]);
/* Exp map in double: the unit quaternion rotating by |v| about v. */
void mb_quat_exp_d_(const double v[3], double q[4]);

#endif
