/* Euler <-> quaternion conversions and the rotation distance, checked against numbers the
 * test builds itself: rotation matrices written out element by element (never through the
 * library), closed-form angles, and round trips over many random angles. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mblend/math.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define DEG (M_PI / 180.0)

/* ---------- independent helpers (no library code) ---------- */

/* Row-major 3x3 elementary rotations, right-handed: R_x(t) rotates y towards z. */
static void rot_axis(int axis, double t, double m[3][3])
{
    double c = cos(t), s = sin(t);
    memset(m, 0, 9 * sizeof(double));
    switch (axis) {
    case 0:
        m[0][0] = 1;
        m[1][1] = c; m[1][2] = -s;
        m[2][1] = s; m[2][2] = c;
        break;
    case 1:
        m[1][1] = 1;
        m[0][0] = c; m[0][2] = s;
        m[2][0] = -s; m[2][2] = c;
        break;
    default:
        m[2][2] = 1;
        m[0][0] = c; m[0][1] = -s;
        m[1][0] = s; m[1][1] = c;
        break;
    }
}

static void mat_mul(double a[3][3], double b[3][3], double r[3][3])
{
    double t[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            t[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
    memcpy(r, t, sizeof t);
}

/* The axes of each order, spelled out here rather than asked from the library. */
static const int test_axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
static const char *const test_names[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};

/* Intrinsic, listed order: R = R_a0(a[0]) R_a1(a[1]) R_a2(a[2]). */
static void euler_matrix(int order, const double a[3], double r[3][3])
{
    double m0[3][3], m1[3][3], m2[3][3];
    rot_axis(test_axes[order][0], a[0], m0);
    rot_axis(test_axes[order][1], a[1], m1);
    rot_axis(test_axes[order][2], a[2], m2);
    mat_mul(m0, m1, r);
    mat_mul(r, m2, r);
}

/* Rotation matrix of a unit quaternion (x, y, z, w), the textbook formula. */
static void quat_matrix(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = w * w + x * x - y * y - z * z;
    m[0][1] = 2 * (x * y - w * z);
    m[0][2] = 2 * (x * z + w * y);
    m[1][0] = 2 * (x * y + w * z);
    m[1][1] = w * w - x * x + y * y - z * z;
    m[1][2] = 2 * (y * z - w * x);
    m[2][0] = 2 * (x * z - w * y);
    m[2][1] = 2 * (y * z + w * x);
    m[2][2] = w * w - x * x - y * y + z * z;
}

/* Rotation angle between two double quaternions, accurate at tiny angles (chord form),
 * so the 1e-9 rad round-trip bound is meaningful. */
static double angle_between_d(const double a[4], const double b[4])
{
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double sg = dot < 0 ? -1.0 : 1.0, e = 0;
    for (int k = 0; k < 4; ++k) {
        double t = a[k] - sg * b[k];
        e += t * t;
    }
    double h = 0.5 * sqrt(e);
    return 4.0 * asin(h > 1.0 ? 1.0 : h);
}

/* Small deterministic generator (xorshift64*), so failures are reproducible. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rnd_unit(void) /* [0, 1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}
static double rnd_range(double lo, double hi) { return lo + (hi - lo) * rnd_unit(); }

/* ---------- mb_quat_from_euler ---------- */

Test(euler, from_euler_matches_matrix_products_all_orders)
{
    for (int o = 0; o < 6; ++o) {
        for (int n = 0; n < 2000; ++n) {
            /* Any angles, also beyond the canonical ranges: from_euler takes all. */
            double a[3] = {rnd_range(-4, 4), rnd_range(-4, 4), rnd_range(-4, 4)};
            double q[4], mq[3][3], me[3][3];
            mb_quat_from_euler((mb_euler_order)o, a, q);
            double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            cr_assert(fabs(norm - 1.0) < 1e-14, "%s: |q| = %.17g", test_names[o], norm);
            quat_matrix(q, mq);
            euler_matrix(o, a, me);
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j)
                    cr_assert(fabs(mq[i][j] - me[i][j]) < 1e-14,
                              "%s angles (%g %g %g): element [%d][%d] %.17g vs matrix product "
                              "%.17g",
                              test_names[o], a[0], a[1], a[2], i, j, mq[i][j], me[i][j]);
        }
    }
}

Test(euler, from_euler_known_values)
{
    /* 90 degrees about the first axis only: q = (sin 45 deg on that axis, cos 45 deg). */
    double s = sqrt(0.5);
    for (int o = 0; o < 6; ++o)
        for (int k = 0; k < 3; ++k) {
            double a[3] = {0, 0, 0}, q[4];
            a[k] = 90 * DEG;
            mb_quat_from_euler((mb_euler_order)o, a, q);
            double want[4] = {0, 0, 0, s};
            want[test_axes[o][k]] = s;
            for (int c = 0; c < 4; ++c)
                cr_assert(fabs(q[c] - want[c]) < 1e-15, "%s angle %d: q[%d] = %.17g, want %.17g",
                          test_names[o], k, c, q[c], want[c]);
        }
    /* Intrinsic order matters: ZYX (Z 90, Y 90, X 0) maps x to the -z... check via the
     * hand-built matrix: R e_x = Rz(90) Ry(90) e_x = Rz(90) (-e_z) = -e_z. */
    double a[3] = {90 * DEG, 90 * DEG, 0}, q[4], m[3][3];
    mb_quat_from_euler(MB_ORDER_ZYX, a, q);
    quat_matrix(q, m);
    cr_assert(fabs(m[0][0]) < 1e-15 && fabs(m[1][0]) < 1e-15 && fabs(m[2][0] + 1) < 1e-15,
              "ZYX(90,90,0) e_x -> (%g %g %g), want (0 0 -1)", m[0][0], m[1][0], m[2][0]);
}

/* ---------- mb_quat_to_euler ---------- */

static void check_round_trip(int o, const double a[3], double tol, int expect_same_angles)
{
    double q[4], e[3], q2[4];
    mb_quat_from_euler((mb_euler_order)o, a, q);
    mb_quat_to_euler((mb_euler_order)o, q, e);
    /* Documented ranges: middle in [-pi/2, pi/2], outer ones in (-pi, pi]. */
    cr_assert(e[1] >= -M_PI / 2 && e[1] <= M_PI / 2, "%s: middle angle %.17g out of range",
              test_names[o], e[1]);
    cr_assert(e[0] > -M_PI && e[0] <= M_PI && e[2] > -M_PI && e[2] <= M_PI,
              "%s: outer angles %.17g %.17g out of range", test_names[o], e[0], e[2]);
    mb_quat_from_euler((mb_euler_order)o, e, q2);
    double err = angle_between_d(q, q2);
    cr_assert(err < tol,
              "%s: (%.17g %.17g %.17g) -> (%.17g %.17g %.17g) reproduces the rotation only "
              "within %.3g rad",
              test_names[o], a[0], a[1], a[2], e[0], e[1], e[2], err);
    /* Independent check of the reconstruction: the hand-built matrices agree too. */
    double m1[3][3], m2[3][3];
    euler_matrix(o, a, m1);
    euler_matrix(o, e, m2);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            cr_assert(fabs(m1[i][j] - m2[i][j]) < 1e-9, "%s: matrix [%d][%d] %.17g vs %.17g",
                      test_names[o], i, j, m1[i][j], m2[i][j]);
    if (expect_same_angles)
        for (int k = 0; k < 3; ++k)
            cr_assert(fabs(e[k] - a[k]) < 1e-9, "%s: angle %d %.17g, want %.17g",
                      test_names[o], k, e[k], a[k]);
}

Test(euler, to_euler_round_trip_random)
{
    for (int o = 0; o < 6; ++o)
        for (int n = 0; n < 10000; ++n) {
            /* Canonical ranges, kept off the gimbal lock so the angles themselves must come
             * back, not only the rotation. */
            double a[3] = {rnd_range(-M_PI, M_PI), rnd_range(-1.5, 1.5), rnd_range(-M_PI, M_PI)};
            check_round_trip(o, a, 1e-9, 1);
        }
}

Test(euler, to_euler_round_trip_any_angles)
{
    /* Angles outside the canonical ranges come back as another triple of the same rotation. */
    for (int o = 0; o < 6; ++o)
        for (int n = 0; n < 10000; ++n) {
            double a[3] = {rnd_range(-7, 7), rnd_range(-7, 7), rnd_range(-7, 7)};
            check_round_trip(o, a, 1e-9, 0);
        }
}

Test(euler, to_euler_exact_gimbal_lock)
{
    const double outer[] = {0.0, 0.3, -2.0, 3.0, M_PI, -M_PI / 2};
    for (int o = 0; o < 6; ++o)
        for (int sgn = -1; sgn <= 1; sgn += 2)
            for (size_t i = 0; i < sizeof outer / sizeof outer[0]; ++i)
                for (size_t k = 0; k < sizeof outer / sizeof outer[0]; ++k) {
                    double a[3] = {outer[i], sgn * M_PI / 2, outer[k]}, q[4], e[3];
                    check_round_trip(o, a, 1e-9, 0);
                    /* Documented: at the lock the third angle is 0, the first carries all. */
                    mb_quat_from_euler((mb_euler_order)o, a, q);
                    mb_quat_to_euler((mb_euler_order)o, q, e);
                    cr_assert(e[2] == 0.0, "%s at %+d*90 deg: third angle %.17g, want 0",
                              test_names[o], sgn, e[2]);
                    cr_assert(fabs(e[1] - sgn * M_PI / 2) < 1e-7, "%s: middle %.17g",
                              test_names[o], e[1]);
                }
}

Test(euler, to_euler_near_gimbal_lock)
{
    const double eps_deg[] = {1e-4, 1e-5, 1e-6, 1e-7, 3e-8};
    for (int o = 0; o < 6; ++o)
        for (size_t i = 0; i < sizeof eps_deg / sizeof eps_deg[0]; ++i)
            for (int sgn = -1; sgn <= 1; sgn += 2)
                for (int n = 0; n < 200; ++n) {
                    double a[3] = {rnd_range(-M_PI, M_PI), sgn * (90.0 - eps_deg[i]) * DEG,
                                   rnd_range(-M_PI, M_PI)};
                    check_round_trip(o, a, 1e-9, 0);
                }
}

/* ---------- order names ---------- */

Test(euler, order_names_and_parse)
{
    for (int o = 0; o < 6; ++o) {
        const char *name = mb_euler_order_name((mb_euler_order)o);
        cr_assert_not_null(name);
        cr_assert_str_eq(name, test_names[o]);
        mb_euler_order got = (mb_euler_order)-1;
        cr_assert_eq(mb_euler_order_parse(test_names[o], &got), MB_OK);
        cr_assert_eq((int)got, o);
        char lower[4];
        for (int k = 0; k < 3; ++k)
            lower[k] = (char)(test_names[o][k] + ('a' - 'A'));
        lower[3] = '\0';
        got = (mb_euler_order)-1;
        cr_assert_eq(mb_euler_order_parse(lower, &got), MB_OK, "parse '%s'", lower);
        cr_assert_eq((int)got, o);
        char mixed[4] = {lower[0], test_names[o][1], lower[2], '\0'};
        cr_assert_eq(mb_euler_order_parse(mixed, &got), MB_OK, "parse '%s'", mixed);
        cr_assert_eq((int)got, o);
        for (int k = 0; k < 3; ++k)
            cr_assert_eq(mb_euler_order_axis((mb_euler_order)o, k), test_axes[o][k]);
    }
    cr_assert_null(mb_euler_order_name((mb_euler_order)6));
    cr_assert_null(mb_euler_order_name((mb_euler_order)-1));
    cr_assert_eq(mb_euler_order_axis((mb_euler_order)0, 3), -1);
    cr_assert_eq(mb_euler_order_axis((mb_euler_order)7, 0), -1);
    const char *bad[] = {"", "X", "XY", "XYZW", "XXY", "XYX", "ZZZ", "xyz ", " xyz", "ABC", "XY\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        mb_euler_order got = MB_ORDER_ZYX;
        cr_assert_eq(mb_euler_order_parse(bad[i], &got), MB_INVALID_ARG, "'%s' must not parse",
                     bad[i]);
    }
    mb_euler_order got;
    cr_assert_eq(mb_euler_order_parse(NULL, &got), MB_INVALID_ARG);
    cr_assert_eq(mb_euler_order_parse("XYZ", NULL), MB_INVALID_ARG);
}

/* ---------- mb_quat_angle_between ---------- */

static void axis_quat_f(int axis, double t, float q[4])
{
    q[0] = q[1] = q[2] = 0.0f;
    q[axis] = (float)sin(0.5 * t);
    q[3] = (float)cos(0.5 * t);
}

Test(angle, known_angles_from_identity)
{
    const float id[4] = {0, 0, 0, 1};
    const double angles[] = {1e-7, 1e-6, 3e-6, 1e-4, 1e-2, 0.5, 1.0, M_PI / 2, 2.5, 3.1, M_PI};
    for (int axis = 0; axis < 3; ++axis)
        for (size_t i = 0; i < sizeof angles / sizeof angles[0]; ++i) {
            float q[4];
            axis_quat_f(axis, angles[i], q);
            double got = mb_quat_angle_between(id, q);
            /* Relative accuracy even at 1e-6 rad: 2*acos(dot) in float would give 0 there. */
            cr_assert(fabs(got - angles[i]) <= 1e-6 * angles[i] + 1e-12,
                      "axis %d angle %.17g: got %.17g", axis, angles[i], got);
            cr_assert(fabs(mb_quat_angle_between(q, id) - got) < 1e-15, "not symmetric");
        }
}

Test(angle, sign_invariant_and_range)
{
    float q[4], nq[4], p[4];
    axis_quat_f(1, 2.0, q);
    for (int k = 0; k < 4; ++k)
        nq[k] = -q[k];
    cr_assert(mb_quat_angle_between(q, nq) < 1e-7, "q and -q are the same rotation");
    cr_assert(mb_quat_angle_between(q, q) == 0.0);
    axis_quat_f(1, -2.0, p); /* 4 rad apart the long way = 2 pi - 4 the short way */
    double got = mb_quat_angle_between(q, p);
    cr_assert(fabs(got - (2 * M_PI - 4.0)) < 1e-6, "got %.17g, want %.17g", got, 2 * M_PI - 4.0);
    for (int k = 0; k < 4; ++k)
        p[k] = -p[k];
    cr_assert(fabs(mb_quat_angle_between(q, p) - got) < 1e-7, "sign of the second input");
    /* Exactly opposite rotations about one axis: pi. */
    axis_quat_f(2, M_PI / 2, q);
    axis_quat_f(2, -M_PI / 2, p);
    got = mb_quat_angle_between(q, p);
    cr_assert(fabs(got - M_PI) < 1e-6 && got <= M_PI, "got %.17g, want pi", got);
}

Test(angle, between_general_rotations)
{
    /* b = a * R_axis(t): the relative rotation has angle |t| whatever a is. */
    for (int n = 0; n < 500; ++n) {
        double e[3] = {rnd_range(-3, 3), rnd_range(-1.5, 1.5), rnd_range(-3, 3)};
        double qa[4], r[4], qb[4];
        mb_quat_from_euler(MB_ORDER_ZXY, e, qa);
        double t = rnd_range(1e-3, 3.0);
        double ax[3] = {rnd_range(-1, 1), rnd_range(-1, 1), rnd_range(-1, 1)};
        double ln = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
        for (int k = 0; k < 3; ++k)
            r[k] = ax[k] / ln * sin(0.5 * t);
        r[3] = cos(0.5 * t);
        /* Hamilton product qb = qa * r, written out. */
        qb[0] = qa[3] * r[0] + qa[0] * r[3] + qa[1] * r[2] - qa[2] * r[1];
        qb[1] = qa[3] * r[1] - qa[0] * r[2] + qa[1] * r[3] + qa[2] * r[0];
        qb[2] = qa[3] * r[2] + qa[0] * r[1] - qa[1] * r[0] + qa[2] * r[3];
        qb[3] = qa[3] * r[3] - qa[0] * r[0] - qa[1] * r[1] - qa[2] * r[2];
        float fa[4], fb[4];
        for (int k = 0; k < 4; ++k) {
            fa[k] = (float)qa[k];
            fb[k] = (float)qb[k];
        }
        double got = mb_quat_angle_between(fa, fb);
        cr_assert(fabs(got - t) < 1e-6, "angle %.17g, want %.17g", got, t);
    }
}
