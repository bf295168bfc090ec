/* The blend job and the rotation maps: oracle numbers, invariants, validation. */
#include <math.h>
#include <stdint.h>

#include "mblend/mblend.h"
#include "test_util.h"

#define PI 3.14159265358979323846

/* ---------- small independent helpers (double precision, written for the tests) ---------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { return mb_test_unit(&rng_state); } /* [0, 1) */

static void random_quat(float q[4])
{
    /* Uniform on S^3 (Shoemake). */
    double u1 = urand(), u2 = urand() * 2 * PI, u3 = urand() * 2 * PI;
    double a = sqrt(1 - u1), b = sqrt(u1);
    q[0] = (float)(a * sin(u2));
    q[1] = (float)(a * cos(u2));
    q[2] = (float)(b * sin(u3));
    q[3] = (float)(b * cos(u3));
}

static void axis_angle(double ax, double ay, double az, double angle, float q[4])
{
    double n = sqrt(ax * ax + ay * ay + az * az);
    double s = sin(angle / 2) / n;
    q[0] = (float)(ax * s);
    q[1] = (float)(ay * s);
    q[2] = (float)(az * s);
    q[3] = (float)cos(angle / 2);
}

static double qangle(const float a[4], const float b[4]) { return mb_quat_angle_between(a, b); }

/* slerp in double, short arc, by the textbook formula. */
static void slerp_ref(const float a[4], const float b_in[4], double t, float out[4])
{
    double b[4], d = 0;
    for (int k = 0; k < 4; ++k)
        d += (double)a[k] * b_in[k];
    double s = d < 0 ? -1 : 1;
    for (int k = 0; k < 4; ++k)
        b[k] = s * b_in[k];
    d = fabs(d);
    if (d > 1)
        d = 1;
    double th = acos(d);
    double wa, wb;
    if (th < 1e-9) {
        wa = 1 - t;
        wb = t;
    } else {
        wa = sin((1 - t) * th) / sin(th);
        wb = sin(t * th) / sin(th);
    }
    for (int k = 0; k < 4; ++k)
        out[k] = (float)(wa * a[k] + wb * b[k]);
}

/* ---------- log / exp ---------- */

Test(logexp, exp_of_log_is_identity_up_to_sign)
{
    for (int i = 0; i < 20000; ++i) {
        float q[4], v[3], r[4];
        if (i % 4 == 0) {
            /* tiny angles, where naive acos-based formulas lose everything */
            axis_angle(urand() - .5, urand() - .5, urand() - .5, pow(10, -9 + 8 * urand()), q);
        } else if (i % 4 == 1) {
            axis_angle(urand() - .5, urand() - .5, urand() - .5, PI - pow(10, -6 + 5 * urand()), q);
        } else {
            random_quat(q);
        }
        mb_quat_log(q, v);
        double ang = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        cr_assert(ang <= PI + 1e-6, "log angle %g > pi", ang);
        mb_quat_exp(v, r);
        cr_assert(qangle(q, r) < 2e-6, "exp(log q) off by %g rad", qangle(q, r));
    }
}

Test(logexp, small_angle_accuracy)
{
    /* rotation by 1e-7 rad about x: log must give (1e-7, 0, 0) to float precision */
    float q[4], v[3];
    axis_angle(1, 0, 0, 1e-7, q);
    mb_quat_log(q, v);
    cr_assert_float_eq(v[0], 1e-7f, 1e-13f);
    cr_assert_float_eq(v[1], 0.0f, 1e-20f);
    float e[4], vv[3] = {0, 0, 3e-8f};
    mb_quat_exp(vv, e);
    cr_assert_float_eq(e[2], 1.5e-8f, 1e-14f);
    cr_assert_float_eq(e[3], 1.0f, 1e-7f);
}

Test(logexp, log_picks_short_arc)
{
    float q[4], v[3];
    axis_angle(0, 1, 0, 1.0, q);
    for (int k = 0; k < 4; ++k)
        q[k] = -q[k];
    mb_quat_log(q, v);
    cr_assert_float_eq(v[1], 1.0f, 1e-6f);
}

/* ---------- reference quaternion ---------- */

Test(reference, single_and_sign_invariant)
{
    for (int i = 0; i < 1000; ++i) {
        float q[3][4], w[3] = {0.2f, 0.5f, 0.3f}, r1[4], r2[4], g;
        for (int k = 0; k < 3; ++k)
            random_quat(q[k]);
        cr_assert_eq(mb_quat_reference((const float(*)[4])q, w, 1, r1, &g), MB_OK);
        cr_assert(qangle(q[0], r1) < 1e-6);
        cr_assert_float_eq(g, 1.0f, 1e-5f);
        cr_assert_eq(mb_quat_reference((const float(*)[4])q, w, 3, r1, NULL), MB_OK);
        for (int k = 0; k < 4; ++k)
            q[1][k] = -q[1][k];
        cr_assert_eq(mb_quat_reference((const float(*)[4])q, w, 3, r2, NULL), MB_OK);
        cr_assert(qangle(r1, r2) < 1e-6);
        cr_assert(r2[3] >= 0.0f);
    }
}

Test(reference, bad_arguments)
{
    float q[2][4] = {{0, 0, 0, 1}, {0, 0, 0, 1}}, r[4];
    float bad_w[2] = {-1, 2}, zero_w[2] = {0, 0}, nan_w[2] = {NAN, 1};
    cr_assert_eq(mb_quat_reference((const float(*)[4])q, bad_w, 2, r, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_quat_reference((const float(*)[4])q, zero_w, 2, r, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_quat_reference((const float(*)[4])q, nan_w, 2, r, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_quat_reference(NULL, zero_w, 2, r, NULL), MB_INVALID_ARG);
    float w[2] = {1, 1};
    q[1][0] = INFINITY;
    cr_assert_eq(mb_quat_reference((const float(*)[4])q, w, 2, r, NULL), MB_NUMERIC);
}

/* ---------- the blend job: helpers ---------- */

#define MAXJ 64

typedef struct pose_buf {
    mb_xform x[MAXJ];
    mb_pose p;
} pose_buf;

static void pose_init(pose_buf *b, int n)
{
    b->p.joints = b->x;
    b->p.count = n;
}

static mb_status run_blend(const pose_buf *in, const float *w, int L, mb_blend_method m,
                           mb_eigen_solver solver, pose_buf *out, mb_blend_diag *diag)
{
    mb_blend_layer layers[MB_BLEND_MAX_LAYERS];
    for (int i = 0; i < L; ++i) {
        layers[i].pose = &in[i].p;
        layers[i].weight = w[i];
        layers[i].joint_weights = NULL;
    }
    mb_blend_desc d = {0};
    d.layers = layers;
    d.layer_count = L;
    d.method = m;
    d.solver = solver;
    d.out = out->p;
    d.diag = diag;
    return mb_blend_run(&d);
}

static void random_pose(pose_buf *b, int n, const float *center, double spread)
{
    pose_init(b, n);
    for (int j = 0; j < n; ++j) {
        float d[4];
        axis_angle(urand() - .5, urand() - .5, urand() - .5, spread * urand(), d);
        /* q = center_j * d, computed by hand (x, y, z, w) */
        const float *c = center ? center + 4 * j : (const float[4]){0, 0, 0, 1};
        float *q = b->x[j].rot;
        q[0] = c[3] * d[0] + c[0] * d[3] + c[1] * d[2] - c[2] * d[1];
        q[1] = c[3] * d[1] - c[0] * d[2] + c[1] * d[3] + c[2] * d[0];
        q[2] = c[3] * d[2] + c[0] * d[1] - c[1] * d[0] + c[2] * d[3];
        q[3] = c[3] * d[3] - c[0] * d[0] - c[1] * d[1] - c[2] * d[2];
        for (int k = 0; k < 3; ++k)
            b->x[j].pos[k] = (float)(urand() * 10 - 5);
    }
}

/* ---------- invariants ---------- */

Test(blend, one_input_returns_it)
{
    pose_buf in, out;
    random_pose(&in, 20, NULL, PI);
    pose_init(&out, 20);
    float w = 0.7f;
    for (int m = 0; m < 3; ++m) {
        cr_assert_eq(run_blend(&in, &w, 1, (mb_blend_method)m, MB_EIGEN_AUTO, &out, NULL), MB_OK);
        for (int j = 0; j < 20; ++j) {
            cr_assert(qangle(in.x[j].rot, out.x[j].rot) < 1e-6, "method %d joint %d", m, j);
            for (int k = 0; k < 3; ++k)
                cr_assert_float_eq(in.x[j].pos[k], out.x[j].pos[k], 1e-6f);
        }
    }
}

Test(blend, two_inputs_give_slerp)
{
    for (int trial = 0; trial < 200; ++trial) {
        pose_buf in[2], out;
        random_pose(&in[0], 16, NULL, PI);
        float centers[16 * 4];
        for (int j = 0; j < 16; ++j)
            memcpy(&centers[4 * j], in[0].x[j].rot, 16);
        random_pose(&in[1], 16, centers, 2.5); /* up to 143 degrees apart */
        pose_init(&out, 16);
        double t = urand();
        float w[2] = {(float)(1 - t), (float)t};
        cr_assert_eq(run_blend(in, w, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_OK);
        for (int j = 0; j < 16; ++j) {
            float s[4];
            slerp_ref(in[0].x[j].rot, in[1].x[j].rot, (double)w[1] / (w[0] + w[1]), s);
            double e = qangle(s, out.x[j].rot);
            cr_assert(e < 2e-6, "trial %d joint %d: logexp vs slerp %g rad", trial, j, e);
        }
    }
}

Test(blend, order_sign_and_scale_invariant)
{
    for (int trial = 0; trial < 100; ++trial) {
        int L = 2 + (int)(urand() * 7); /* 2..8 */
        pose_buf in[8], perm[8], out1, out2;
        random_pose(&in[0], 12, NULL, PI);
        float centers[12 * 4];
        for (int j = 0; j < 12; ++j)
            memcpy(&centers[4 * j], in[0].x[j].rot, 16);
        float w[8], wp[8];
        for (int i = 0; i < L; ++i) {
            random_pose(&in[i], 12, centers, 1.2);
            w[i] = (float)(0.05 + urand());
        }
        /* reversed order, every other input negated, weights scaled by 3.5 */
        for (int i = 0; i < L; ++i) {
            perm[i] = in[L - 1 - i];
            pose_init(&perm[i], 12);
            wp[i] = w[L - 1 - i] * 3.5f;
            if (i % 2)
                for (int j = 0; j < 12; ++j)
                    for (int k = 0; k < 4; ++k)
                        perm[i].x[j].rot[k] = -perm[i].x[j].rot[k];
        }
        for (int m = 0; m < 3; m += 2) { /* logexp and karcher; nlerp is order-dependent */
            pose_init(&out1, 12);
            pose_init(&out2, 12);
            cr_assert_eq(run_blend(in, w, L, (mb_blend_method)m, MB_EIGEN_AUTO, &out1, NULL), MB_OK);
            cr_assert_eq(run_blend(perm, wp, L, (mb_blend_method)m, MB_EIGEN_AUTO, &out2, NULL), MB_OK);
            for (int j = 0; j < 12; ++j) {
                double e = qangle(out1.x[j].rot, out2.x[j].rot);
                cr_assert(e < 1e-6, "method %d trial %d joint %d: %g rad", m, trial, j, e);
                for (int k = 0; k < 3; ++k)
                    cr_assert_float_eq(out1.x[j].pos[k], out2.x[j].pos[k], 1e-5f);
            }
        }
    }
}

Test(blend, karcher_mean_has_zero_tangent_mean)
{
    pose_buf in[4], out;
    random_pose(&in[0], 8, NULL, PI);
    float centers[8 * 4];
    for (int j = 0; j < 8; ++j)
        memcpy(&centers[4 * j], in[0].x[j].rot, 16);
    float w[4] = {0.1f, 0.4f, 0.3f, 0.2f};
    for (int i = 1; i < 4; ++i)
        random_pose(&in[i], 8, centers, 2.0);
    pose_init(&out, 8);
    cr_assert_eq(run_blend(in, w, 4, MB_BLEND_KARCHER, MB_EIGEN_AUTO, &out, NULL), MB_OK);
    for (int j = 0; j < 8; ++j) {
        /* sum w_i log(m^-1 q_i) ~ 0, computed with the public maps */
        double s[3] = {0, 0, 0};
        for (int i = 0; i < 4; ++i) {
            const float *m = out.x[j].rot, *q = in[i].x[j].rot;
            float c[4] = {-m[0], -m[1], -m[2], m[3]}, d[4], v[3];
            d[0] = c[3] * q[0] + c[0] * q[3] + c[1] * q[2] - c[2] * q[1];
            d[1] = c[3] * q[1] - c[0] * q[2] + c[1] * q[3] + c[2] * q[0];
            d[2] = c[3] * q[2] + c[0] * q[1] - c[1] * q[0] + c[2] * q[3];
            d[3] = c[3] * q[3] - c[0] * q[0] - c[1] * q[1] - c[2] * q[2];
            mb_quat_log(d, v);
            for (int k = 0; k < 3; ++k)
                s[k] += w[i] * v[k];
        }
        cr_assert(sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) < 1e-5);
    }
}

Test(blend, low_gap_is_deterministic_and_reported)
{
    /* Two rotations 180 degrees apart with equal weights: every unit quaternion in their
     * span is a maximiser, so the gap is 0 and the reference is a convention. */
    pose_buf in[2], out1, out2;
    pose_init(&in[0], 1);
    pose_init(&in[1], 1);
    axis_angle(0, 1, 0, 0.3, in[0].x[0].rot);
    float d[4];
    axis_angle(0, 1, 0, 0.3 + PI, d);
    memcpy(in[1].x[0].rot, d, 16);
    memset(in[0].x[0].pos, 0, 12);
    memset(in[1].x[0].pos, 0, 12);
    float w[2] = {0.5f, 0.5f}, gap[1] = {-1}, ang[1];
    mb_blend_diag diag = {gap, ang, 1, 0};
    pose_init(&out1, 1);
    pose_init(&out2, 1);
    cr_assert_eq(run_blend(in, w, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out1, &diag), MB_OK);
    cr_assert(gap[0] < 1e-3f, "gap %g", gap[0]);
    cr_assert_eq(diag.low_gap_joints, 1);
    cr_assert_eq(run_blend(in, w, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out2, NULL), MB_OK);
    cr_assert(memcmp(out1.x[0].rot, out2.x[0].rot, 16) == 0, "not bit-identical");
    double nn = 0;
    for (int k = 0; k < 4; ++k)
        nn += (double)out1.x[0].rot[k] * out1.x[0].rot[k];
    cr_assert_float_eq(nn, 1.0, 1e-6);
}

Test(blend, output_may_alias_an_input)
{
    pose_buf in[3], copy[3], out;
    float w[3] = {0.2f, 0.3f, 0.5f};
    random_pose(&in[0], 10, NULL, PI);
    float centers[10 * 4];
    for (int j = 0; j < 10; ++j)
        memcpy(&centers[4 * j], in[0].x[j].rot, 16);
    random_pose(&in[1], 10, centers, 1.0);
    random_pose(&in[2], 10, centers, 1.0);
    memcpy(copy, in, sizeof in);
    for (int i = 0; i < 3; ++i)
        pose_init(&copy[i], 10);
    pose_init(&out, 10);
    cr_assert_eq(run_blend(copy, w, 3, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_OK);
    /* now write into input 1's own memory */
    cr_assert_eq(run_blend(in, w, 3, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &in[1], NULL), MB_OK);
    cr_assert(memcmp(in[1].x, out.x, 10 * sizeof(mb_xform)) == 0);
}

Test(blend, joint_masks)
{
    pose_buf in[2], out;
    random_pose(&in[0], 4, NULL, PI);
    random_pose(&in[1], 4, NULL, PI);
    pose_init(&out, 4);
    float m0[4] = {1, 1, 0, 0}, m1[4] = {0, 1, 1, 0};
    mb_blend_layer layers[2] = {{&in[0].p, 1.0f, m0}, {&in[1].p, 1.0f, m1}};
    mb_blend_desc d = {0};
    d.layers = layers;
    d.layer_count = 2;
    d.out = out.p;
    cr_assert_eq(mb_blend_run(&d), MB_OK);
    cr_assert(qangle(out.x[0].rot, in[0].x[0].rot) < 1e-6); /* only layer 0 */
    cr_assert(qangle(out.x[2].rot, in[1].x[2].rot) < 1e-6); /* only layer 1 */
    cr_assert(memcmp(&out.x[3], &in[0].x[3], sizeof(mb_xform)) == 0); /* fully masked */
    float s[4];
    slerp_ref(in[0].x[1].rot, in[1].x[1].rot, 0.5, s);
    cr_assert(qangle(out.x[1].rot, s) < 2e-6);
}

/* Weights and masks near float's limits: their products and per-joint totals once
 * overflowed in the kernel (two layers of weight 2e38 with masks of 1 gave translations of
 * 0); the answer is the same as with small weights in the same ratio. */
Test(blend, masked_weights_near_float_limits)
{
    pose_buf in[2], out, ref;
    random_pose(&in[0], 24, NULL, 1.0);
    random_pose(&in[1], 24, NULL, 1.0);
    pose_init(&out, 24);
    pose_init(&ref, 24);
    float m_one[24], m_big[24], m_tiny[24];
    for (int j = 0; j < 24; ++j) {
        m_one[j] = 1.0f;
        m_big[j] = 3e38f;
        m_tiny[j] = 1e-38f;
    }
    const float w_small[2] = {1.0f, 3.0f};
    cr_assert_eq(run_blend(in, w_small, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &ref, NULL), MB_OK);
    struct {
        float w0, w1;
        const float *m0, *m1;
    } cases[] = {{1e38f, 3e38f, m_one, m_one},   /* products fine, float total overflows */
                 {1.0f, 3.0f, m_big, m_big},     /* the products overflow */
                 {1e-10f, 3e-10f, m_tiny, m_tiny}}; /* the products underflow to 0 */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        mb_blend_layer layers[2] = {{&in[0].p, cases[c].w0, cases[c].m0},
                                    {&in[1].p, cases[c].w1, cases[c].m1}};
        mb_blend_desc d = {0};
        d.layers = layers;
        d.layer_count = 2;
        d.out = out.p;
        cr_assert_eq(mb_blend_run(&d), MB_OK, "case %zu", c);
        for (int j = 0; j < 24; ++j) {
            cr_assert(qangle(out.x[j].rot, ref.x[j].rot) < 2e-6, "case %zu joint %d: %g rad", c, j,
                      qangle(out.x[j].rot, ref.x[j].rot));
            for (int k = 0; k < 3; ++k)
                cr_assert(fabsf(out.x[j].pos[k] - ref.x[j].pos[k]) < 1e-5f, "case %zu joint %d: %g vs %g",
                          c, j, out.x[j].pos[k], ref.x[j].pos[k]);
        }
    }
}

Test(blend, validation_rejects_and_leaves_output_alone)
{
    pose_buf in[2], out, short_pose;
    random_pose(&in[0], 5, NULL, PI);
    random_pose(&in[1], 5, NULL, PI);
    pose_init(&out, 5);
    memset(out.x, 0x5a, sizeof out.x);
    mb_xform before[MAXJ];
    memcpy(before, out.x, sizeof before);
    float w_ok[2] = {1, 1};
    const float bad[][2] = {{-0.1f, 1}, {NAN, 1}, {INFINITY, 1}, {0, 0}};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b)
        cr_assert_eq(run_blend(in, bad[b], 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL),
                     MB_INVALID_ARG, "weights case %zu", b);
    cr_assert_eq(run_blend(in, w_ok, 0, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_INVALID_ARG);
    cr_assert_eq(run_blend(in, w_ok, 2, (mb_blend_method)7, MB_EIGEN_AUTO, &out, NULL), MB_INVALID_ARG);
    random_pose(&short_pose, 4, NULL, PI);
    pose_buf mixed[2] = {in[0], short_pose};
    pose_init(&mixed[0], 5);
    pose_init(&mixed[1], 4);
    cr_assert_eq(run_blend(mixed, w_ok, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_INVALID_ARG);
    float gap[3];
    mb_blend_diag diag = {gap, NULL, 3, 0};
    cr_assert_eq(run_blend(in, w_ok, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, &diag), MB_TOO_SMALL);
    in[1].x[2].rot[1] = NAN;
    cr_assert_eq(run_blend(in, w_ok, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_NUMERIC);
    in[1].x[2].rot[1] = 0;
    memset(in[1].x[3].rot, 0, 16);
    cr_assert_eq(run_blend(in, w_ok, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_NUMERIC);
    float mask[5] = {1, 1, -1, 1, 1};
    mb_blend_layer layers[2] = {{&in[0].p, 1.0f, mask}, {&in[1].p, 1.0f, NULL}};
    mb_blend_desc d = {0};
    d.layers = layers;
    d.layer_count = 2;
    d.out = out.p;
    cr_assert_eq(mb_blend_run(&d), MB_INVALID_ARG);
    cr_assert_eq(mb_blend_run(NULL), MB_INVALID_ARG);
    cr_assert(memcmp(before, out.x, sizeof before) == 0, "output changed on error");
}

/* ---------- fast solver vs LAPACKE ---------- */

Test(blend, fast_solver_agrees_with_lapacke)
{
    /* Clustered, spread and random-sign inputs; where the gap is comfortable the fast
     * path must agree with the exact one. */
    int cases = 0;
    double worst = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        int L = 2 + trial % 7;
        pose_buf in[8], a, b;
        random_pose(&in[0], 4, NULL, PI);
        float centers[4 * 4];
        for (int j = 0; j < 4; ++j)
            memcpy(&centers[4 * j], in[0].x[j].rot, 16);
        float w[8];
        double spread = (trial % 3 == 0) ? 0.2 : (trial % 3 == 1 ? 1.5 : 3.0);
        for (int i = 0; i < L; ++i) {
            random_pose(&in[i], 4, centers, spread);
            w[i] = (float)urand();
            if (urand() < 0.5)
                for (int j = 0; j < 4; ++j)
                    for (int k = 0; k < 4; ++k)
                        in[i].x[j].rot[k] = -in[i].x[j].rot[k];
        }
        w[0] += 0.01f;
        pose_init(&a, 4);
        pose_init(&b, 4);
        cr_assert_eq(run_blend(in, w, L, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &a, NULL), MB_OK);
        cr_assert_eq(run_blend(in, w, L, MB_BLEND_LOGEXP, MB_EIGEN_LAPACKE, &b, NULL), MB_OK);
        for (int j = 0; j < 4; ++j) {
            double e = qangle(a.x[j].rot, b.x[j].rot);
            if (e > worst)
                worst = e;
            ++cases;
        }
    }
    cr_assert(worst < 1e-5, "worst fast/exact disagreement %g rad over %d joints", worst, cases);
}

/* ---------- the independent scipy oracle on real clip frames ---------- */

typedef struct loaded {
    char name[256];
    mb_skeleton *s;
    mb_clip *c;
} loaded;

static loaded cache[16];
static int cache_n;

static loaded *load(const char *file)
{
    for (int i = 0; i < cache_n; ++i)
        if (strcmp(cache[i].name, file) == 0)
            return &cache[i];
    cr_assert_lt(cache_n, 16);
    char rel[300];
    snprintf(rel, sizeof rel, "bvh/%s", file);
    loaded *l = &cache[cache_n++];
    snprintf(l->name, sizeof l->name, "%s", file);
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(mb_shared_path(rel), NULL, &l->s, &l->c, &e), MB_OK, "%s", e.text);
    return l;
}

Test(oracle, blend_cases_csv)
{
    FILE *f = fopen(mb_shared_path("oracle/blend_cases.csv"), "r");
    cr_assert(f);
    char line[4096];
    int rows = 0, cur_case = -1;
    pose_buf in[8], out;
    float w[8];
    int L = 0;
    double worst_mean = 0, worst_blend = 0;
    float gaps[MAXJ];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || strncmp(line, "case,", 5) == 0)
            continue;
        int cs, ji;
        char inputs[2048], jname[128];
        float mq[4], bq[4];
        int got = sscanf(line, "%d,%2047[^,],%d,%127[^,],%f,%f,%f,%f,%f,%f,%f,%f", &cs, inputs,
                         &ji, jname, &mq[0], &mq[1], &mq[2], &mq[3], &bq[0], &bq[1], &bq[2], &bq[3]);
        cr_assert_eq(got, 12, "bad oracle row: %s", line);
        if (cs != cur_case) {
            /* parse "file@frame:weight;..." and blend every joint of the case */
            cur_case = cs;
            L = 0;
            char *save = NULL;
            for (char *it = strtok_r(inputs, ";", &save); it; it = strtok_r(NULL, ";", &save)) {
                char file[256];
                int frame;
                float wt;
                cr_assert_eq(sscanf(it, "%255[^@]@%d:%f", file, &frame, &wt), 3, "item %s", it);
                loaded *l = load(file);
                int n = mb_skeleton_joint_count(l->s);
                cr_assert_leq(n, MAXJ);
                pose_init(&in[L], n);
                cr_assert_eq(mb_clip_frame_pose(l->s, l->c, frame, in[L].p), MB_OK);
                w[L++] = wt;
            }
            pose_init(&out, in[0].p.count);
            mb_blend_diag diag = {gaps, NULL, MAXJ, 0};
            cr_assert_eq(run_blend(in, w, L, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_OK);
            (void)diag;
        }
        /* mean: the reference quaternion from the same frames */
        float qs[8][4];
        for (int i = 0; i < L; ++i)
            memcpy(qs[i], in[i].x[ji].rot, 16);
        float ref[4];
        cr_assert_eq(mb_quat_reference((const float(*)[4])qs, w, L, ref, NULL), MB_OK);
        double em = qangle(ref, mq), eb = qangle(out.x[ji].rot, bq);
        if (em > worst_mean)
            worst_mean = em;
        if (eb > worst_blend)
            worst_blend = eb;
        cr_assert(em < 1e-5, "case %d joint %d %s: mean off by %g rad", cs, ji, jname, em);
        cr_assert(eb < 1e-5, "case %d joint %d %s: blend off by %g rad", cs, ji, jname, eb);
        ++rows;
    }
    fclose(f);
    cr_assert_gt(rows, 150, "only %d oracle rows checked", rows);
    cr_log_info("blend oracle: %d rows, worst mean %.3g rad, worst blend %.3g rad", rows,
                worst_mean, worst_blend);
}

/* ---------- the SIMD kernels (blend_kernel.inc) against the exact path ---------- */

#include "runtime/blend/blend_internal.h"

static void qmul_dd(const double p[4], const double q[4], double r[4])
{
    r[0] = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
    r[1] = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
    r[2] = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
    r[3] = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
}

static void unit_d(double q[4])
{
    double u1 = urand(), u2 = urand() * 2 * PI, u3 = urand() * 2 * PI;
    double a = sqrt(1 - u1), b = sqrt(u1);
    q[0] = a * sin(u2);
    q[1] = a * cos(u2);
    q[2] = b * sin(u3);
    q[3] = b * cos(u3);
}

/* c * (rotation by an angle uniform in [0, max_angle] about a random axis) */
static void near_d(const double c[4], double max_angle, double out[4])
{
    double ax[3], n;
    do {
        for (int k = 0; k < 3; ++k)
            ax[k] = 2 * urand() - 1;
        n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    } while (n < 1e-3 || n > 1);
    double h = 0.5 * max_angle * urand(), s = sin(h) / n;
    double d[4] = {ax[0] * s, ax[1] * s, ax[2] * s, cos(h)};
    qmul_dd(c, d, out);
}

enum { CASE_CLUSTERED, CASE_WIDE, CASE_RANDOM, CASE_ANTIPODAL, CASE_EQUAL_TOP, CASE_KINDS };

/* One joint's inputs of a given kind: L unit quaternions (random signs) and weights. */
static void make_case(int kind, int L, float (*q)[4], float *w)
{
    double c[4], c2[4], t[4];
    unit_d(c);
    for (int i = 0; i < L; ++i)
        w[i] = (float)(0.05 + urand());
    /* a second centre 180 degrees of rotation away (orthogonal in quaternion space) */
    double ax[3] = {urand() - .5, urand() - .5, urand() - .5};
    double an = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]) + 1e-12;
    double flip[4] = {ax[0] / an, ax[1] / an, ax[2] / an, 0.0};
    qmul_dd(c, flip, c2);
    for (int i = 0; i < L; ++i) {
        switch (kind) {
        case CASE_CLUSTERED:
            near_d(c, 60.0 * PI / 180.0, t);
            break;
        case CASE_WIDE:
            near_d(c, 150.0 * PI / 180.0, t);
            break;
        case CASE_RANDOM:
            unit_d(t);
            break;
        case CASE_ANTIPODAL: /* a near-antipodal pair (rotations ~180 degrees apart), others near */
            near_d(i == 1 ? c2 : c, i < 2 ? 0.05 : 0.6, t);
            break;
        default: /* two orthogonal clusters with nearly equal total weight */
            near_d(i % 2 ? c2 : c, 0.2, t);
            break;
        }
        double s = urand() < 0.5 ? -1.0 : 1.0;
        for (int k = 0; k < 4; ++k)
            q[i][k] = (float)(s * t[k]);
    }
    if (kind == CASE_ANTIPODAL) {
        w[1] = w[0] * (float)(1.0 + 0.02 * (urand() - 0.5));
    } else if (kind == CASE_EQUAL_TOP) {
        double a = 0, b = 0;
        for (int i = 0; i < L; ++i)
            *(i % 2 ? &b : &a) += w[i];
        double target = 1.0 + 0.01 * (urand() - 0.5); /* ratio of the two totals */
        for (int i = 1; i < L; i += 2)
            w[i] = (float)(w[i] * a * target / b);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define ACC_J 8        /* joints per blend call */
#define ACC_CALLS 12500 /* 100,000 cases */

Test(blend, fast_path_accuracy_100k, .timeout = 120)
{
    static float q[ACC_J][8][4], w[ACC_J][8];
    static double diffs[ACC_J * ACC_CALLS];
    static const char *const kind_name[CASE_KINDS] = {"clustered", "wide", "random",
                                                      "antipodal", "equal-top"};
    double kind_max[CASE_KINDS] = {0}, kind_sum[CASE_KINDS] = {0};
    int kind_n[CASE_KINDS] = {0}, kind_low[CASE_KINDS] = {0};
    pose_buf in[8], fast, exact;
    int nd = 0, cases = 0, low_gap = 0;
    long exact_joints = 0, scalar_joints = 0;
    double worst_low = 0;
    mb_blend_kstats_ stats = {0};
    for (int call = 0; call < ACC_CALLS; ++call) {
        int L = 2 + call % 7;
        /* each joint its own case (kind, weights); the job's layer weight is 1 and the
         * per-joint weights go through the masks (so the masked kernel path is covered) */
        float masks[8][ACC_J];
        for (int j = 0; j < ACC_J; ++j) {
            make_case((call * ACC_J + j) % CASE_KINDS, L, q[j], w[j]);
            for (int i = 0; i < L; ++i)
                masks[i][j] = w[j][i];
        }
        int use_mask = call % 2;
        float lw[8];
        for (int i = 0; i < L; ++i) {
            pose_init(&in[i], ACC_J);
            for (int j = 0; j < ACC_J; ++j) {
                memcpy(in[i].x[j].rot, q[j][i], 16);
                for (int k = 0; k < 3; ++k)
                    in[i].x[j].pos[k] = (float)(urand() - 0.5);
            }
            lw[i] = use_mask ? 1.0f : w[0][i];
        }
        if (!use_mask) /* one weight set for the whole call */
            for (int j = 1; j < ACC_J; ++j)
                memcpy(w[j], w[0], sizeof w[0]);
        mb_blend_layer layers[8];
        for (int i = 0; i < L; ++i)
            layers[i] = (mb_blend_layer){&in[i].p, lw[i], use_mask ? masks[i] : NULL};
        pose_init(&fast, ACC_J);
        pose_init(&exact, ACC_J);
        mb_blend_desc d = {0};
        d.layers = layers;
        d.layer_count = L;
        d.out = fast.p;
        long before = stats.exact_joints;
        cr_assert_eq(mb_blend_run_isa_(&d, MB_ISA_AUTO_, &stats), MB_OK);
        exact_joints += stats.exact_joints - before;
        float gap[ACC_J];
        mb_blend_diag diag = {gap, NULL, ACC_J, 0};
        d.out = exact.p;
        d.solver = MB_EIGEN_LAPACKE;
        d.diag = &diag;
        cr_assert_eq(mb_blend_run(&d), MB_OK);
        for (int j = 0; j < ACC_J; ++j) {
            double e = qangle(fast.x[j].rot, exact.x[j].rot) * 180.0 / PI;
            int kind = (call * ACC_J + j) % CASE_KINDS;
            ++cases;
            if (gap[j] > 1e-3f) {
                diffs[nd++] = e;
                kind_n[kind] += 1;
                kind_sum[kind] += e;
                if (e > kind_max[kind])
                    kind_max[kind] = e;
            } else {
                kind_low[kind] += 1;
                ++low_gap;
                if (e > worst_low)
                    worst_low = e;
            }
        }
    }
    scalar_joints = stats.rejected_lanes;
    qsort(diffs, (size_t)nd, sizeof *diffs, cmp_double);
    double p50 = diffs[nd / 2], p99 = diffs[(int)(0.99 * (nd - 1))], mx = diffs[nd - 1];
    cr_log_info("fast vs LAPACKE over %d cases (%d with relative gap > 1e-3): angle p50 %.3g, "
                "p99 %.3g, max %.3g degrees; %.2f%% of joints took the scalar path, %.2f%% fell "
                "back to LAPACKE; gap <= 1e-3: %d cases, worst %.3g degrees",
                cases, nd, p50, p99, mx, 100.0 * scalar_joints / cases,
                100.0 * exact_joints / cases, low_gap, worst_low);
    fprintf(stderr,
            "fast vs LAPACKE over %d cases (%d with relative gap > 1e-3): angle p50 %.3g, p99 "
            "%.3g, max %.3g degrees; %.2f%% scalar path, %.2f%% LAPACKE fallback\n",
            cases, nd, p50, p99, mx, 100.0 * scalar_joints / cases, 100.0 * exact_joints / cases);
    for (int kd = 0; kd < CASE_KINDS; ++kd) {
        cr_log_info("  %-9s: %d cases with gap > 1e-3 (mean %.3g, max %.3g degrees), %d at or "
                    "below",
                    kind_name[kd], kind_n[kd], kind_n[kd] ? kind_sum[kd] / kind_n[kd] : 0.0,
                    kind_max[kd], kind_low[kd]);
        fprintf(stderr, "  %-9s: %d cases with gap > 1e-3 (mean %.3g, max %.3g degrees), %d at "
                        "or below\n",
                kind_name[kd], kind_n[kd], kind_n[kd] ? kind_sum[kd] / kind_n[kd] : 0.0,
                kind_max[kd], kind_low[kd]);
    }
    cr_assert_geq(cases, 100000);
    cr_assert(p99 <= 0.01, "p99 %g degrees", p99);
    cr_assert(mx <= 0.1, "max %g degrees", mx);
}

/* Every kernel built here (generic, SSE2, AVX2 when the CPU has it) against LAPACKE, on
 * joint counts that leave partial groups, with masks (some joints fully masked),
 * unnormalised and tiny quaternions, diagnostics, and the output aliasing an input. */
Test(blend, every_kernel_agrees_with_lapacke)
{
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_kernel_((mb_isa_)isa, NULL))
            continue;
        for (int trial = 0; trial < 300; ++trial) {
            int n = 1 + trial % 37, L = 1 + trial % 5;
            pose_buf in[5], copy[5], fast, exact;
            float w[5], masks[5][MAXJ];
            random_pose(&in[0], n, NULL, PI);
            float centers[MAXJ * 4];
            for (int j = 0; j < n; ++j)
                memcpy(&centers[4 * j], in[0].x[j].rot, 16);
            for (int i = 0; i < L; ++i) {
                random_pose(&in[i], n, centers, 1.0);
                w[i] = (float)(0.1 + urand());
                for (int j = 0; j < n; ++j)
                    masks[i][j] = urand() < 0.15 ? 0.0f : (float)urand();
            }
            if (trial % 4 == 1) /* unnormalised inputs: the exact normalisation path */
                for (int k = 0; k < 4; ++k)
                    in[0].x[n / 2].rot[k] *= 3.0f;
            if (trial % 4 == 3) /* so small that |q|^2 underflows in float */
                for (int k = 0; k < 4; ++k)
                    in[L - 1].x[0].rot[k] *= 1e-22f;
            int masked = trial % 3 == 0;
            mb_blend_layer layers[5];
            for (int i = 0; i < L; ++i)
                layers[i] = (mb_blend_layer){&in[i].p, w[i], masked ? masks[i] : NULL};
            pose_init(&fast, n);
            pose_init(&exact, n);
            float ang_f[MAXJ], ang_e[MAXJ], gap[MAXJ];
            mb_blend_diag df = {NULL, ang_f, n, 0}, de = {gap, ang_e, n, 0};
            mb_blend_desc d = {0};
            d.layers = layers;
            d.layer_count = L;
            d.out = fast.p;
            d.diag = &df;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            d.out = exact.p;
            d.diag = &de;
            d.solver = MB_EIGEN_LAPACKE;
            cr_assert_eq(mb_blend_run(&d), MB_OK);
            for (int j = 0; j < n; ++j) {
                double e = qangle(fast.x[j].rot, exact.x[j].rot);
                cr_assert(e < 1e-5, "%s trial %d joint %d: %g rad", mb_isa_name_(isa),
                          trial, j, e);
                for (int k = 0; k < 3; ++k)
                    cr_assert_float_eq(fast.x[j].pos[k], exact.x[j].pos[k], 1e-5f);
                cr_assert_float_eq(ang_f[j], ang_e[j], 1e-5f, "%s max_angle joint %d",
                                   mb_isa_name_(isa), j);
            }
            /* the same job written over one of its inputs */
            memcpy(copy, in, sizeof in);
            for (int i = 0; i < L; ++i)
                pose_init(&copy[i], n);
            for (int i = 0; i < L; ++i)
                layers[i].pose = &copy[i].p;
            d.out = copy[L / 2].p;
            d.diag = NULL;
            d.solver = MB_EIGEN_AUTO;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            cr_assert(memcmp(copy[L / 2].x, fast.x, (size_t)n * sizeof(mb_xform)) == 0,
                      "%s trial %d: aliased output differs", mb_isa_name_(isa), trial);
        }
    }
}

/* Mask values far apart (1e38 and 1e-40 on one joint) or a joint whose whole weight is
 * subnormal: every kernel must give what the exact path gives (the scalar path in double).
 * Found by review: an input whose weight the kernel's per-joint division took to 0 dropped
 * out of max_angle (0 instead of 2.09 rad), and a subnormal total made the weights
 * infinite (a NaN rotation and an infinite translation, with MB_OK). */
Test(blend, masked_weights_far_apart_and_subnormal_totals)
{
    static const mb_xform a[2] = {{{0, 0, 0, 1}, {1, 2, 3}}, {{0, 0, 0, 1}, {0, 0, 0}}};
    static const mb_xform b[2] = {{{0.866025404f, 0, 0, 0.5f}, {4, 5, 6}},
                                  {{0, 0.342020143f, 0, 0.939692621f}, {1, 1, 1}}};
    static const mb_xform c[1] = {{{0.6f, 0, 0, 0.8f}, {1, 2, 3}}};
    mb_xform ia[2], ib[2], ic[1];
    memcpy(ia, a, sizeof a);
    memcpy(ib, b, sizeof b);
    memcpy(ic, c, sizeof c);
    mb_pose pa = {ia, 2}, pb = {ib, 2}, pc = {ic, 1};
    float ma[2] = {1e38f, 1.0f}, mb[2] = {1e-40f, 1.0f}, mc[1] = {1e-40f};
    mb_blend_layer two[2] = {{&pa, 1.0f, ma}, {&pb, 1.0f, mb}}, one[1] = {{&pc, 1.0f, mc}};
    struct {
        mb_blend_layer *layers;
        int k, n;
    } cases[2] = {{two, 2, 2}, {one, 1, 1}};
    for (int cs = 0; cs < 2; ++cs) {
        mb_xform want[2], got[2];
        float want_angle[2], got_angle[2];
        mb_blend_diag dg = {0};
        dg.count = 2;
        mb_blend_desc d = {0};
        d.layers = cases[cs].layers;
        d.layer_count = cases[cs].k;
        d.out.count = cases[cs].n;
        d.diag = &dg;
        d.solver = MB_EIGEN_LAPACKE; /* the scalar path, in double */
        d.out.joints = want;
        dg.max_angle = want_angle;
        cr_assert_eq(mb_blend_run(&d), MB_OK);
        d.solver = MB_EIGEN_AUTO;
        for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
            if (!mb_blend_kernel_((mb_isa_)isa, NULL))
                continue;
            d.out.joints = got;
            dg.max_angle = got_angle;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            for (int j = 0; j < cases[cs].n; ++j) {
                cr_assert(qangle(got[j].rot, want[j].rot) < 1e-6, "%s case %d joint %d: %g rad",
                          mb_isa_name_(isa), cs, j, qangle(got[j].rot, want[j].rot));
                for (int e = 0; e < 3; ++e)
                    cr_assert(fabsf(got[j].pos[e] - want[j].pos[e]) < 1e-5f,
                              "%s case %d joint %d: position %g vs %g", mb_isa_name_(isa),
                              cs, j, got[j].pos[e], want[j].pos[e]);
                cr_assert(fabsf(got_angle[j] - want_angle[j]) < 1e-5f,
                          "%s case %d joint %d: max_angle %g vs %g", mb_isa_name_(isa), cs,
                          j, got_angle[j], want_angle[j]);
            }
        }
    }
}

Test(blend, validation_value_rules)
{
    /* the SIMD pre-check must keep the exact rules: huge finite quaternions are fine,
     * a NaN or infinite translation is not, whatever the joint's position in a group */
    for (int n = 1; n <= 20; n += 3) {
        pose_buf in[2], out;
        random_pose(&in[0], n, NULL, PI);
        random_pose(&in[1], n, NULL, PI);
        pose_init(&out, n);
        float w[2] = {0.5f, 0.5f};
        int j = n - 1;
        for (int k = 0; k < 4; ++k)
            in[1].x[j].rot[k] *= 1e20f;
        cr_assert_eq(run_blend(in, w, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_OK);
        for (int k = 0; k < 4; ++k)
            in[1].x[j].rot[k] *= 1e-20f;
        in[0].x[j].pos[2] = INFINITY;
        cr_assert_eq(run_blend(in, w, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_NUMERIC);
        in[0].x[j].pos[2] = NAN;
        cr_assert_eq(run_blend(in, w, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_NUMERIC);
        in[0].x[j].pos[2] = 1.0f;
        in[1].x[0].rot[3] = -INFINITY;
        cr_assert_eq(run_blend(in, w, 2, MB_BLEND_LOGEXP, MB_EIGEN_AUTO, &out, NULL), MB_NUMERIC);
    }
}

/* Inputs a little off unit length, in each band of the kernel's normalisation: within
 * UNIT_TOL_ (used as they are), within 1e-4 (first-order series) and beyond (square root).
 * Each band must give the blend of the unit inputs within 1e-6 rad (measured: 2.5e-7); the
 * same job using a 4.5e-5-off input as it is is 1e-5 rad off, so the test sees a wrong band. */
Test(blend, near_unit_inputs_blend_as_unit)
{
    static const double scales[] = {1 + 1e-7, 1 - 1e-7, 1 + 4.5e-5, 1 - 4.5e-5, 1.25, 0.5};
    const int n = 40, L = 4;
    pose_buf unit[4], scaled[4], ref, out;
    float centers[MAXJ * 4], w[4] = {0.4f, 0.3f, 0.2f, 0.1f};
    random_pose(&ref, n, NULL, PI);
    for (int j = 0; j < n; ++j)
        memcpy(&centers[4 * j], ref.x[j].rot, 16);
    for (int i = 0; i < L; ++i) {
        random_pose(&unit[i], n, centers, 1.0);
        for (int j = 0; j < n; ++j) { /* unit to float rounding */
            double s2 = 0;
            for (int k = 0; k < 4; ++k)
                s2 += (double)unit[i].x[j].rot[k] * unit[i].x[j].rot[k];
            for (int k = 0; k < 4; ++k)
                unit[i].x[j].rot[k] = (float)(unit[i].x[j].rot[k] / sqrt(s2));
        }
    }
    pose_init(&ref, n);
    cr_assert_eq(run_blend(unit, w, L, MB_BLEND_LOGEXP, MB_EIGEN_LAPACKE, &ref, NULL), MB_OK);
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_kernel_((mb_isa_)isa, NULL))
            continue;
        for (size_t sc = 0; sc < sizeof scales / sizeof scales[0]; ++sc) {
            mb_blend_layer layers[4];
            for (int i = 0; i < L; ++i) {
                scaled[i] = unit[i];
                pose_init(&scaled[i], n);
                /* one input off and the others unit: a common scale would cancel out */
                for (int j = 0; i == 0 && j < n; ++j)
                    for (int k = 0; k < 4; ++k)
                        scaled[i].x[j].rot[k] = (float)(unit[i].x[j].rot[k] * scales[sc]);
                layers[i] = (mb_blend_layer){&scaled[i].p, w[i], NULL};
            }
            pose_init(&out, n);
            mb_blend_desc d = {0};
            d.layers = layers;
            d.layer_count = L;
            d.out = out.p;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            double worst = 0;
            for (int j = 0; j < n; ++j) {
                double e = qangle(out.x[j].rot, ref.x[j].rot);
                worst = e > worst ? e : worst;
            }
            cr_log_info("%s, input 0 scaled by 1%+g: worst %.2g rad", mb_isa_name_(isa),
                        scales[sc] - 1, worst);
            cr_assert(worst < 1e-6, "%s scale 1%+g: %g rad", mb_isa_name_(isa),
                      scales[sc] - 1, worst);
        }
    }
}

/* One kernel's result against the exact path: the largest angle (rad) to the LAPACKE blend
 * and the lanes the kernel left to the double path. */
typedef struct kernel_result {
    const char *name;
    double worst;
    long rejected;
} kernel_result;

/* The blend of L layers over n joints through LAPACKE, then through every kernel built on
 * this machine; returns how many results went to res. */
static int kernels_vs_lapacke(const mb_blend_layer *layers, int L, int n, kernel_result *res)
{
    static pose_buf exact, out;
    mb_blend_desc d = {0};
    d.layers = layers;
    d.layer_count = L;
    d.solver = MB_EIGEN_LAPACKE;
    pose_init(&exact, n);
    d.out = exact.p;
    cr_assert_eq(mb_blend_run(&d), MB_OK);
    d.solver = MB_EIGEN_AUTO;
    int nr = 0;
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_kernel_((mb_isa_)isa, NULL))
            continue;
        pose_init(&out, n);
        d.out = out.p;
        mb_blend_kstats_ st = {0};
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, &st), MB_OK);
        kernel_result *r = &res[nr++];
        r->name = mb_isa_name_((mb_isa_)isa);
        r->worst = 0;
        for (int j = 0; j < n; ++j) {
            double e = qangle(out.x[j].rot, exact.x[j].rot);
            r->worst = e > r->worst ? e : r->worst;
        }
        r->rejected = st.rejected_lanes;
    }
    return nr;
}

/* The log map's two polynomials (blend_kernel.inc): a group whose inputs all have
 * |r . q| >= 0.7 takes the short one, the others the long one, which the short one would
 * miss by 1.7e-5 rad at 0.6. Joints with input 0 at a centre c and the others at a
 * half-angle alpha from it, cos(alpha) swept up to 0.76 (from 0.5; from 0.2 for two
 * inputs, whose reference lies between them), toward random directions
 * of one half-space (so that the tangent terms do not cancel) with random weights:
 * every kernel, the specialisations for two and four inputs and each solver (closed form,
 * Gram, M) against the LAPACKE path. The test checks that both polynomials ran (joints on
 * each side of the switch by their exact references) and that no lane left the kernel. */
Test(blend, log_polynomials_agree_across_their_switch)
{
    const int n = MAXJ;
    for (int L = 2; L <= 6; ++L) {
        pose_buf in[6];
        float w[6];
        mb_blend_layer layers[6];
        for (int i = 0; i < L; ++i) {
            /* input 0 heavy for three or more inputs: the reference stays near c */
            w[i] = i == 0 ? (L == 2 ? 0.25f : 3.0f) : (float)(0.5 + 0.5 * urand());
            pose_init(&in[i], n);
            layers[i] = (mb_blend_layer){&in[i].p, w[i], NULL};
        }
        int near = 0, far = 0;
        for (int j = 0; j < n; ++j) {
            /* two inputs: the reference sits about 3/4 of the way to input 1 */
            const double lo = L == 2 ? 0.2 : 0.5;
            double c[4], e1[4], alpha = acos(lo + (0.76 - lo) * j / (n - 1));
            unit_d(c);
            unit_d(e1); /* the half-space: tangent directions with a positive e1 component */
            for (int i = 0; i < L; ++i) {
                double q[4], d[4] = {0, 0, 0, 1};
                if (i > 0) {
                    double u[4], nu, dot;
                    do {
                        unit_d(u);
                        nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
                        dot = u[0] * e1[0] + u[1] * e1[1] + u[2] * e1[2];
                    } while (nu < 0.1 || dot < 0);
                    for (int k = 0; k < 3; ++k)
                        d[k] = sin(alpha) * u[k] / nu;
                    d[3] = cos(alpha);
                }
                qmul_dd(c, d, q);
                for (int k = 0; k < 4; ++k)
                    in[i].x[j].rot[k] = (float)q[k];
                for (int k = 0; k < 3; ++k)
                    in[i].x[j].pos[k] = 0.0f;
            }
            /* which polynomial the kernel should take for this joint */
            float qs[6][4], r[4];
            for (int i = 0; i < L; ++i)
                memcpy(qs[i], in[i].x[j].rot, sizeof qs[i]);
            cr_assert_eq(mb_quat_reference((const float(*)[4])qs, w, L, r, NULL), MB_OK);
            double tmin = 1;
            for (int i = 0; i < L; ++i) {
                double t = fabs((double)r[0] * qs[i][0] + (double)r[1] * qs[i][1] +
                                (double)r[2] * qs[i][2] + (double)r[3] * qs[i][3]);
                tmin = t < tmin ? t : tmin;
            }
            near += tmin > 0.71;
            far += tmin < 0.69;
        }
        cr_assert(near >= 8 && far >= 8, "L=%d: %d joints near, %d far", L, near, far);
        kernel_result res[MB_ISA_COUNT_];
        for (int r = 0, nr = kernels_vs_lapacke(layers, L, n, res); r < nr; ++r) {
            cr_assert_eq(res[r].rejected, 0, "%s L=%d: %ld lanes left the kernel", res[r].name,
                         L, res[r].rejected);
            cr_log_info("%s, %d inputs (%d joints near, %d far): worst %.2g rad", res[r].name, L,
                        near, far, res[r].worst);
            /* 2.8e-7 at worst here; a coefficient of log_near_c_ off by 2e-5 gives 7e-7 */
            cr_assert(res[r].worst < 6e-7, "%s L=%d: %g rad", res[r].name, L, res[r].worst);
        }
    }
}

/* An input half a turn from the reference: the short-arc rule picks the sign of r . q,
 * so the blend jumps where that dot product crosses zero (by 2 w pi, here 90 degrees). The
 * kernel's reference and dot products are exact to about 2e-6, so a joint whose |r . q| is
 * below that cannot tell the sign in single precision and must go to the double path,
 * which agrees with the exact one. Input 0 at a centre c, inputs 2 and 3 symmetric about
 * it (so c stays the top eigenvector) and input 1 half a turn from c less eps, eps from
 * 1e-9 to 3e-5 either side of 0, and two joints exactly half a turn from the identity:
 * every kernel against LAPACKE. */
Test(blend, input_half_a_turn_away_agrees_with_exact)
{
    static const double mag[] = {0, 1e-9, 1e-8, 3e-8, 1e-7, 3e-7, 1e-6, 3e-6, 1e-5, 3e-5};
    const int nm = (int)(sizeof mag / sizeof mag[0]), n = 2 * nm * 3 + 2, L = 4;
    const float w[4] = {0.45f, 0.25f, 0.15f, 0.15f};
    pose_buf in[4];
    for (int j = 0; j < n; ++j) {
        double c[4], ax[4], u[4], eps = (j % 2 ? -1 : 1) * mag[(j / 2) % nm];
        unit_d(c);
        unit_d(ax);
        unit_d(u);
        if (j >= n - 2) { /* exactly half a turn, exactly representable: r . q_1 = 0 */
            c[0] = c[1] = c[2] = 0, c[3] = 1;
            ax[0] = ax[1] = ax[2] = ax[3] = u[0] = u[1] = u[2] = u[3] = 0;
            ax[j % 3] = 1;
            u[(j + 1) % 3] = 1;
            eps = 0;
        }
        double na = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
        double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int i = 0; i < L; ++i) {
            double q[4], d[4] = {0, 0, 0, 1};
            if (i == 1) { /* half a turn about ax, less eps */
                for (int k = 0; k < 3; ++k)
                    d[k] = cos(eps) * ax[k] / na;
                d[3] = sin(eps);
            } else if (i > 1) { /* 20 degrees about u, either way */
                for (int k = 0; k < 3; ++k)
                    d[k] = (i == 2 ? 1 : -1) * sin(10 * PI / 180) * u[k] / nu;
                d[3] = cos(10 * PI / 180);
            }
            qmul_dd(c, d, q);
            pose_init(&in[i], n);
            for (int k = 0; k < 4; ++k)
                in[i].x[j].rot[k] = (float)q[k];
            for (int k = 0; k < 3; ++k)
                in[i].x[j].pos[k] = 0.0f;
        }
    }
    /* how many joints have |r . q_1| clearly below and at all below the kernel's guard
     * (5e-6), by the exact reference */
    int below = 0, near = 0;
    for (int j = 0; j < n; ++j) {
        float qs[4][4], r[4];
        for (int i = 0; i < L; ++i)
            memcpy(qs[i], in[i].x[j].rot, sizeof qs[i]);
        cr_assert_eq(mb_quat_reference((const float(*)[4])qs, w, L, r, NULL), MB_OK);
        double t = fabs((double)r[0] * qs[1][0] + (double)r[1] * qs[1][1] +
                        (double)r[2] * qs[1][2] + (double)r[3] * qs[1][3]);
        below += t < 4e-6;
        near += t < 6e-6;
    }
    mb_blend_layer layers[4];
    for (int i = 0; i < L; ++i)
        layers[i] = (mb_blend_layer){&in[i].p, w[i], NULL};
    kernel_result res[MB_ISA_COUNT_];
    for (int r = 0, nr = kernels_vs_lapacke(layers, L, n, res); r < nr; ++r) {
        cr_log_info("%s: worst %.2g rad, %ld of %d joints to the double path (%d to %d expected)",
                    res[r].name, res[r].worst, res[r].rejected, n, below, near);
        cr_assert(res[r].worst < 1e-6, "%s: %g rad", res[r].name, res[r].worst);
        /* the guard takes the joints it must and leaves the others in the kernel */
        cr_assert(res[r].rejected >= below && res[r].rejected <= near,
                  "%s: %ld joints to the double path, %d to %d expected", res[r].name,
                  res[r].rejected, below, near);
    }
    /* the half-turn input masked to weight 0 on every joint adds nothing: no joint leaves
     * the kernel for it */
    float zero_mask[MAXJ] = {0};
    layers[1].joint_weights = zero_mask;
    for (int r = 0, nr = kernels_vs_lapacke(layers, L, n, res); r < nr; ++r) {
        cr_assert(res[r].worst < 1e-6, "%s, input 1 masked: %g rad", res[r].name, res[r].worst);
        cr_assert_eq(res[r].rejected, 0, "%s, input 1 masked: %ld joints to the double path",
                     res[r].name, res[r].rejected);
    }
}

/* The SIMD path validates the values it reads and writes the first 256 joints through a
 * stack buffer: a bad value anywhere (staged part, the joints after it, a layer of weight 0)
 * must fail before anything is written, whatever the kernel, and a long job written over
 * one of its inputs must equal the same job into another buffer. */
#define LONG_J 300
Test(blend, long_jobs_validate_before_writing)
{
    static mb_xform in[3][LONG_J], copy[3][LONG_J], out[LONG_J], ref[LONG_J], before[LONG_J];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < LONG_J; ++j) {
            float d[4];
            axis_angle(urand() - .5, urand() - .5, urand() - .5, 0.8 * urand(), d);
            memcpy(in[i][j].rot, d, sizeof d);
            for (int c = 0; c < 3; ++c)
                in[i][j].pos[c] = (float)(urand() - 0.5);
        }
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_kernel_((mb_isa_)isa, NULL))
            continue;
        mb_pose poses[3];
        mb_blend_layer layers[3];
        for (int i = 0; i < 3; ++i) {
            poses[i] = (mb_pose){in[i], LONG_J};
            layers[i] = (mb_blend_layer){&poses[i], (float)(0.2 + 0.3 * i), NULL};
        }
        mb_blend_desc d = {0};
        d.layers = layers;
        d.layer_count = 3;
        d.out = (mb_pose){ref, LONG_J};
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
        /* a bad value in the staged joints, after them, in a rotation or a translation */
        const int where[4] = {3, 255, 256, LONG_J - 1};
        for (int t = 0; t < 8; ++t) {
            int j = where[t % 4], i = t % 3;
            float *f = t < 4 ? &in[i][j].pos[t % 3] : &in[i][j].rot[t % 4];
            float keep = *f;
            *f = t % 2 ? NAN : INFINITY;
            memset(out, 0x5a, sizeof out);
            memcpy(before, out, sizeof out);
            d.out = (mb_pose){out, LONG_J};
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_NUMERIC,
                         "%s case %d", mb_isa_name_((mb_isa_)isa), t);
            cr_assert(memcmp(out, before, sizeof out) == 0, "%s case %d: output written",
                      mb_isa_name_((mb_isa_)isa), t);
            *f = keep;
        }
        /* a zero rotation in the staged part; a layer of weight 0 with a bad value */
        float keep[4];
        memcpy(keep, in[1][100].rot, sizeof keep);
        memset(in[1][100].rot, 0, sizeof keep);
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_NUMERIC);
        memcpy(in[1][100].rot, keep, sizeof keep);
        float w2 = layers[2].weight, p2 = in[2][7].pos[1];
        layers[2].weight = 0.0f;
        in[2][7].pos[1] = NAN;
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_NUMERIC);
        in[2][7].pos[1] = p2;
        layers[2].weight = w2;
        cr_assert(memcmp(out, before, sizeof out) == 0);
        /* written over input 1: the same as into another buffer */
        memcpy(copy, in, sizeof in);
        for (int i = 0; i < 3; ++i)
            poses[i].joints = copy[i];
        d.out = (mb_pose){copy[1], LONG_J};
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
        cr_assert(memcmp(copy[1], ref, sizeof ref) == 0, "%s: aliased long job differs",
                  mb_isa_name_((mb_isa_)isa));
        /* and against LAPACKE */
        for (int i = 0; i < 3; ++i)
            poses[i].joints = in[i];
        d.out = (mb_pose){out, LONG_J};
        d.solver = MB_EIGEN_LAPACKE;
        cr_assert_eq(mb_blend_run(&d), MB_OK);
        for (int j = 0; j < LONG_J; ++j)
            cr_assert(qangle(out[j].rot, ref[j].rot) < 1e-5, "%s joint %d",
                      mb_isa_name_((mb_isa_)isa), j);
    }
}

/* ---------- nlerp by value ---------- */

/* nlerp as blend.h states it, in double, written here: each input normalised, a running
 * sum of w_i q_i in layer order with q_i negated when it points away from the sum so far
 * (a zero weight contributes nothing), then normalised. `flip` 0 drops the sign fix: the
 * naive sum, to show the inputs below really need it. */
static void nlerp_ref(const float (*q)[4], const double *w, int n, int flip, double out[4])
{
    double acc[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) {
        if (!(w[i] > 0.0))
            continue;
        double u[4], len = 0.0, dot = 0.0;
        for (int k = 0; k < 4; ++k)
            len += (double)q[i][k] * q[i][k];
        for (int k = 0; k < 4; ++k) {
            u[k] = q[i][k] / sqrt(len);
            dot += acc[k] * u[k];
        }
        double s = flip && dot < 0.0 ? -w[i] : w[i];
        for (int k = 0; k < 4; ++k)
            acc[k] += s * u[k];
    }
    double len = sqrt(acc[0] * acc[0] + acc[1] * acc[1] + acc[2] * acc[2] + acc[3] * acc[3]);
    for (int k = 0; k < 4; ++k)
        out[k] = acc[k] / len;
}

/* Hamilton product a b (x, y, z, w), in double, rounded to float. */
static void qmul_ref(const float a[4], const float b[4], float out[4])
{
    double ax = a[0], ay = a[1], az = a[2], aw = a[3], bx = b[0], by = b[1], bz = b[2], bw = b[3];
    out[0] = (float)(aw * bx + ax * bw + ay * bz - az * by);
    out[1] = (float)(aw * by - ax * bz + ay * bw + az * bx);
    out[2] = (float)(aw * bz + ax * by - ay * bx + az * bw);
    out[3] = (float)(aw * bw - ax * bx - ay * by - az * bz);
}

/* Largest component difference of q and r, up to the sign of r (the same rotation). */
static double qdiff_up_to_sign(const float q[4], const double r[4])
{
    double dp = 0.0, dm = 0.0;
    for (int k = 0; k < 4; ++k) {
        dp = fmax(dp, fabs(q[k] - r[k]));
        dm = fmax(dm, fabs(q[k] + r[k]));
    }
    return fmin(dp, dm);
}

/* Inputs within 100 degrees of a joint's base rotation, a random half of them (and at
 * least one after the first) given as -q: MB_BLEND_NLERP equals the independent nlerp
 * above, layer order and all. */
Test(blend, nlerp_matches_an_independent_nlerp_on_antipodal_inputs)
{
    enum { NJ = 7, CASES = 400 };
    int naive_differs = 0, compared = 0;
    for (int c = 0; c < CASES; ++c) {
        int n = 2 + c % 5;
        mb_xform x[6][NJ], out[NJ];
        mb_pose p[6];
        mb_blend_layer l[6];
        double w[6];
        for (int i = 0; i < n; ++i) {
            w[i] = i > 0 && c % 7 == 3 && i == n - 1 ? 0.0 : 0.05 + urand(); /* sometimes a zero weight */
            p[i].joints = x[i];
            p[i].count = NJ;
            l[i].pose = &p[i];
            l[i].weight = (float)w[i];
            l[i].joint_weights = NULL;
            w[i] = l[i].weight; /* the float the job sees */
        }
        for (int j = 0; j < NJ; ++j) {
            float base[4];
            random_quat(base);
            for (int i = 0; i < n; ++i) {
                float d[4];
                axis_angle(urand() - .5, urand() - .5, urand() - .5, urand() * 100.0 * PI / 180.0, d);
                qmul_ref(base, d, x[i][j].rot);
                int negate = urand() < 0.5 || i == 1 + j % (n - 1);
                for (int k = 0; k < 4; ++k)
                    x[i][j].rot[k] = negate ? -x[i][j].rot[k] : x[i][j].rot[k];
                for (int k = 0; k < 3; ++k)
                    x[i][j].pos[k] = (float)(urand() - 0.5);
            }
        }
        mb_blend_desc bd = {0};
        bd.layers = l;
        bd.layer_count = n;
        bd.method = MB_BLEND_NLERP;
        bd.out.joints = out;
        bd.out.count = NJ;
        cr_assert_eq(mb_blend_run(&bd), MB_OK);
        for (int j = 0; j < NJ; ++j) {
            float qs[6][4];
            for (int i = 0; i < n; ++i)
                memcpy(qs[i], x[i][j].rot, sizeof qs[i]);
            double ref[4], naive[4];
            nlerp_ref((const float(*)[4])qs, w, n, 1, ref);
            nlerp_ref((const float(*)[4])qs, w, n, 0, naive);
            double e = qdiff_up_to_sign(out[j].rot, ref);
            cr_assert_lt(e, 2e-6, "case %d joint %d (%d inputs): nlerp off the independent one by %g", c, j, n, e);
            naive_differs += qdiff_up_to_sign(out[j].rot, naive) > 1e-2;
            ++compared;
        }
    }
    cr_assert_gt(naive_differs, compared / 2, "the inputs must need the sign fix (%d of %d)", naive_differs,
                 compared);
}

/* ---------- the nlerp kernels ---------- */

#define NL_MAXJ 300 /* more than one batch of every kernel (16 groups of 16 lanes: 256) */

typedef struct nlerp_case {
    int n, L;
    mb_xform x[5][NL_MAXJ];
    float w[5];
    float mask[5][NL_MAXJ];
    int masked;
} nlerp_case;

/* A random nlerp case: inputs within 100 degrees of a per-joint base, random signs, random
 * positions; kind 1: some inputs off unit length (a few beyond float's normalisation);
 * kind 2: near-ties, input 1 orthogonal to input 0 in double (rounded to float, so acc . q
 * is a few 1e-8 of either sign and float cannot tell the sign the double path takes). */
static void nlerp_case_make(nlerp_case *c, int n, int L, int kind, int masked)
{
    c->n = n;
    c->L = L;
    c->masked = masked;
    for (int i = 0; i < L; ++i) {
        c->w[i] = i == L - 1 && L > 2 && n % 3 == 0 ? 0.0f : (float)(0.05 + urand());
        for (int j = 0; j < n; ++j)
            c->mask[i][j] = urand() < 0.2 ? 0.0f : (float)urand();
    }
    for (int j = 0; j < n; ++j) {
        float base[4];
        random_quat(base);
        for (int i = 0; i < L; ++i) {
            float d[4];
            axis_angle(urand() - .5, urand() - .5, urand() - .5, urand() * 100.0 * PI / 180.0, d);
            qmul_ref(base, d, c->x[i][j].rot);
            float sg = urand() < 0.5 ? -1.0f : 1.0f;
            for (int k = 0; k < 4; ++k)
                c->x[i][j].rot[k] *= sg;
            for (int k = 0; k < 3; ++k)
                c->x[i][j].pos[k] = (float)(urand() * 10 - 5);
        }
        if (kind == 1 && j % 5 == 2)
            for (int k = 0; k < 4; ++k)
                c->x[j % L][j].rot[k] *= j % 2 ? 3.0f : (j % 3 ? 1.0f + 3e-5f : 1e-17f);
        if (kind == 2 && L >= 2) { /* q1 = q0 rotated by 180 degrees about a random axis */
            const float *q0 = c->x[0][j].rot;
            float ax[4] = {0, 0, 0, 0};
            axis_angle(urand() - .5, urand() - .5, urand() - .5, PI, ax);
            qmul_ref(q0, ax, c->x[1][j].rot);
        }
    }
}

static void nlerp_case_desc(nlerp_case *c, mb_pose *p, mb_blend_layer *l, mb_blend_desc *d,
                            mb_xform *out)
{
    for (int i = 0; i < c->L; ++i) {
        p[i].joints = c->x[i];
        p[i].count = c->n;
        l[i] = (mb_blend_layer){&p[i], c->w[i], c->masked ? c->mask[i] : NULL};
    }
    memset(d, 0, sizeof *d);
    d->layers = l;
    d->layer_count = c->L;
    d->method = MB_BLEND_NLERP;
    d->out.joints = out;
    d->out.count = c->n;
}

/* Every nlerp kernel built here against the independent double nlerp (nlerp_ref: layer
 * order, sign against the running sum) and against the job's scalar double path (which the
 * max_angle diagnostic selects), component by component, not up to sign; positions against
 * the weighted mean in double. Tolerances: 1e-6 per rotation component (float rounding of
 * a sum of up to five unit terms and a normalisation: 3e-7 measured), 2e-5 per position
 * (values up to 5). Near-ties (kind 2) must be handed to the double path (the kernels'
 * rejected lanes), which then agrees; the output is bit-identical run to run and when it
 * aliases an input; the kernels agree with each other within the same 1e-6. */
Test(blend, nlerp_every_kernel_agrees_with_double)
{
    static nlerp_case c;
    static mb_xform got[NL_MAXJ], want[NL_MAXJ], again[NL_MAXJ], first[NL_MAXJ];
    static float angle[NL_MAXJ];
    static const int sizes[] = {1, 3, 7, 16, 17, 33, 64, 255, 257, 300};
    long tie_rejected = 0;
    for (int trial = 0; trial < 60; ++trial) {
        int n = sizes[trial % 10], L = 1 + trial % 5, kind = trial % 3, masked = trial % 4 == 1;
        nlerp_case_make(&c, n, L, kind, masked);
        mb_pose p[5];
        mb_blend_layer l[5];
        mb_blend_desc d;
        nlerp_case_desc(&c, p, l, &d, want);
        mb_blend_diag dg = {NULL, angle, n, 0}; /* selects the scalar double path */
        d.diag = &dg;
        cr_assert_eq(mb_blend_run(&d), MB_OK);
        d.diag = NULL;
        int nk = 0;
        for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
            if (!mb_blend_nlerp_kernel_((mb_isa_)isa))
                continue;
            mb_blend_kstats_ st = {0};
            d.out.joints = got;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, &st), MB_OK);
            cr_assert_gt(st.groups, 0, "%s: the nlerp kernel ran", mb_isa_name_((mb_isa_)isa));
            if (kind == 2 && L >= 2)
                tie_rejected += st.rejected_lanes;
            for (int j = 0; j < n; ++j) {
                float qs[5][4];
                double wj[5], ref[4], pos[3] = {0, 0, 0}, tw = 0;
                for (int i = 0; i < L; ++i) {
                    memcpy(qs[i], c.x[i][j].rot, sizeof qs[i]);
                    wj[i] = (double)c.w[i] * (masked ? c.mask[i][j] : 1.0);
                    tw += wj[i];
                    for (int k = 0; k < 3; ++k)
                        pos[k] += wj[i] * c.x[i][j].pos[k];
                }
                if (!(tw > 0)) { /* fully masked: layer 0 unchanged */
                    cr_assert(memcmp(&got[j], &c.x[0][j], sizeof got[j]) == 0);
                    continue;
                }
                nlerp_ref((const float(*)[4])qs, wj, L, 1, ref);
                for (int k = 0; k < 4; ++k) {
                    cr_assert(fabs(got[j].rot[k] - ref[k]) < 1e-6,
                              "%s trial %d joint %d: rot[%d] %.9g, independent %.9g",
                              mb_isa_name_((mb_isa_)isa), trial, j, k, got[j].rot[k], ref[k]);
                    cr_assert(fabsf(got[j].rot[k] - want[j].rot[k]) < 1e-6f,
                              "%s trial %d joint %d: rot[%d] %.9g, double path %.9g",
                              mb_isa_name_((mb_isa_)isa), trial, j, k, got[j].rot[k],
                              want[j].rot[k]);
                }
                for (int k = 0; k < 3; ++k)
                    cr_assert(fabs(got[j].pos[k] - pos[k] / tw) < 2e-5,
                              "%s trial %d joint %d: pos[%d]", mb_isa_name_((mb_isa_)isa), trial,
                              j, k);
            }
            /* run to run: bit-identical */
            d.out.joints = again;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            cr_assert(memcmp(got, again, (size_t)n * sizeof *got) == 0);
            /* kernels against each other: within the tolerance above */
            if (nk++ == 0)
                memcpy(first, got, (size_t)n * sizeof *got);
            for (int j = 0; j < n; ++j)
                for (int k = 0; k < 4; ++k)
                    cr_assert(fabsf(got[j].rot[k] - first[j].rot[k]) < 1e-6f);
            /* written over its last input: the same bits */
            static mb_xform alias[NL_MAXJ];
            memcpy(alias, c.x[L - 1], (size_t)n * sizeof *alias);
            p[L - 1].joints = alias;
            d.out.joints = alias;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            cr_assert(memcmp(alias, got, (size_t)n * sizeof *got) == 0,
                      "%s trial %d: aliased output differs", mb_isa_name_((mb_isa_)isa), trial);
            p[L - 1].joints = c.x[L - 1];
        }
        cr_assert_gt(nk, 0);
    }
    /* the near-ties reached the double path (a kernel that kept them would fail above) */
    cr_assert_gt(tie_rejected, 100, "near-tie lanes handed back: %ld", tie_rejected);
}

/* A first layer masked to 0 on a joint: the running sum starts at 0 there, so the next
 * input's sign must be + (as in the scalar path), not the sign of a -0.0 dot product:
 * inputs with every component <= 0 make that dot -0.0. Compared component by component. */
Test(blend, nlerp_masked_first_layer_keeps_the_sign)
{
    static const mb_xform a = {{-0.0f, -0.6f, -0.0f, -0.8f}, {1, 2, 3}};
    static const mb_xform b = {{-0.28f, -0.0f, -0.96f, -0.0f}, {4, 5, 6}};
    mb_xform xa[20], xb[20], got[20], want[20];
    float ma[20], mbv[20], angle[20];
    for (int j = 0; j < 20; ++j) {
        xa[j] = a;
        xb[j] = b;
        ma[j] = j % 2 ? 0.0f : 0.5f;
        mbv[j] = 1.0f;
    }
    mb_pose pa = {xa, 20}, pb = {xb, 20};
    mb_blend_layer l[2] = {{&pa, 1.0f, ma}, {&pb, 1.0f, mbv}};
    mb_blend_desc d = {0};
    d.layers = l;
    d.layer_count = 2;
    d.method = MB_BLEND_NLERP;
    d.out.joints = want;
    d.out.count = 20;
    mb_blend_diag dg = {NULL, angle, 20, 0};
    d.diag = &dg;
    cr_assert_eq(mb_blend_run(&d), MB_OK);
    d.diag = NULL;
    d.out.joints = got;
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_nlerp_kernel_((mb_isa_)isa))
            continue;
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
        for (int j = 0; j < 20; ++j)
            for (int k = 0; k < 4; ++k)
                cr_assert(fabsf(got[j].rot[k] - want[j].rot[k]) < 1e-6f,
                          "%s joint %d rot[%d]: %g, double path %g", mb_isa_name_((mb_isa_)isa),
                          j, k, got[j].rot[k], want[j].rot[k]);
        cr_assert(got[1].rot[2] < -0.95f, "%s: input b alone, its sign kept", /* not -b */
                  mb_isa_name_((mb_isa_)isa));
    }
}

/* Bad values anywhere in a long nlerp job (before, inside and after the staged joints):
 * MB_NUMERIC from every kernel, the output untouched. */
Test(blend, nlerp_validates_before_writing)
{
    static nlerp_case c;
    static mb_xform out[NL_MAXJ], before[NL_MAXJ];
    const int bad_at[3] = {5, 255, 290};
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_nlerp_kernel_((mb_isa_)isa))
            continue;
        for (int t = 0; t < 6; ++t) {
            nlerp_case_make(&c, NL_MAXJ, 3, 0, t % 2);
            c.w[2] = 0.5f;
            float *v = t < 3 ? &c.x[t % 3][bad_at[t]].rot[t % 4] : &c.x[1][bad_at[t - 3]].pos[1];
            *v = t % 2 ? INFINITY : NAN;
            mb_pose p[5];
            mb_blend_layer l[5];
            mb_blend_desc d;
            nlerp_case_desc(&c, p, l, &d, out);
            for (int j = 0; j < NL_MAXJ; ++j)
                for (int k = 0; k < 4; ++k)
                    out[j].rot[k] = (float)j;
            memcpy(before, out, sizeof out);
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_NUMERIC, "%s case %d",
                         mb_isa_name_((mb_isa_)isa), t);
            cr_assert(memcmp(before, out, sizeof out) == 0, "%s case %d: output written",
                      mb_isa_name_((mb_isa_)isa), t);
        }
    }
}

/* ---------- the prepared job (mb_blend_job_init, mb_blend_job_run) ---------- */

/* A prepared job gives mb_blend_run's output bit for bit, frame after frame: every method,
 * masks or not, diagnostics or not, weights from init (NULL) or new each frame (a
 * cross-fade sweep, one layer's weight 0 at the ends), pose values changed between runs,
 * and the caller's layer table changed after init (the job keeps its own copy). */
Test(blend, job_run_equals_blend_run_bitwise)
{
    static nlerp_case c;
    static mb_xform got[NL_MAXJ], want[NL_MAXJ];
    static float ang_g[NL_MAXJ], ang_w[NL_MAXJ], gap_g[NL_MAXJ], gap_w[NL_MAXJ];
    static const int sizes[] = {1, 9, 64, 257};
    for (int trial = 0; trial < 24; ++trial) {
        int n = sizes[trial % 4], L = 2 + trial % 3, masked = trial % 5 == 1;
        mb_blend_method m = trial % 3 == 0 ? MB_BLEND_NLERP : MB_BLEND_LOGEXP;
        if (trial == 7)
            m = MB_BLEND_KARCHER;
        nlerp_case_make(&c, n, L, 0, masked);
        mb_pose p[5];
        mb_blend_layer l[5];
        mb_blend_desc d;
        nlerp_case_desc(&c, p, l, &d, got);
        d.method = m;
        mb_blend_diag dg = {trial % 6 == 4 ? gap_g : NULL, ang_g, n, 0};
        mb_blend_diag dw = {dg.eigen_gap ? gap_w : NULL, ang_w, n, 0};
        int with_diag = trial % 4 == 2 || trial % 6 == 4;
        d.diag = with_diag ? &dg : NULL;
        mb_blend_job job;
        cr_assert_eq(mb_blend_job_init(&d, &job), MB_OK);
        float w0[5];
        memcpy(w0, c.w, sizeof w0);
        for (int i = 0; i < L; ++i) /* the caller's table changes: the job has its copy */
            l[i].weight = 123.0f;
        for (int frame = 0; frame < 4; ++frame) {
            float fw[5];
            const float *wp = frame == 0 ? NULL : fw;
            for (int i = 0; i < L; ++i)
                fw[i] = i == 0 ? 1.0f - frame / 3.0f : (float)(frame / 3.0) * w0[i];
            cr_assert_eq(mb_blend_job_run(&job, wp), MB_OK, "trial %d frame %d", trial, frame);
            for (int i = 0; i < L; ++i)
                l[i].weight = wp ? wp[i] : w0[i];
            d.out.joints = want;
            d.diag = with_diag ? &dw : NULL;
            cr_assert_eq(mb_blend_run(&d), MB_OK);
            d.out.joints = got;
            d.diag = with_diag ? &dg : NULL;
            cr_assert(memcmp(got, want, (size_t)n * sizeof *got) == 0,
                      "trial %d frame %d (%s, %d joints): job and mb_blend_run differ", trial,
                      frame, mb_blend_method_name(m), n);
            if (with_diag) {
                cr_assert(memcmp(ang_g, ang_w, (size_t)n * sizeof *ang_g) == 0);
                cr_assert_eq(dg.low_gap_joints, dw.low_gap_joints);
                if (dg.eigen_gap)
                    cr_assert(memcmp(gap_g, gap_w, (size_t)n * sizeof *gap_g) == 0);
            }
            for (int i = 0; i < L; ++i) /* next frame: new pose values in the same buffers */
                for (int j = 0; j < n; ++j)
                    c.x[i][j].pos[j % 3] += 0.25f;
            for (int i = 0; i < L; ++i)
                l[i].weight = 123.0f;
        }
    }
}

/* Invalid layer sets are refused at init with mb_blend_run's status, and nothing is
 * written (the job, out); invalid per-run weights and pose values are refused at run with
 * the output untouched; a zeroed job is refused. */
Test(blend, job_init_rejects_invalid_layer_sets)
{
    static nlerp_case c;
    static mb_xform out[NL_MAXJ], before[NL_MAXJ];
    float short_angle[4];
    nlerp_case_make(&c, 40, 3, 0, 1);
    for (int cs = 0; cs < 13; ++cs) {
        mb_pose p[5];
        mb_blend_layer l[5];
        mb_blend_desc d;
        nlerp_case_desc(&c, p, l, &d, out);
        d.method = MB_BLEND_LOGEXP;
        mb_pose short_pose = {c.x[1], 39};
        float nan_mask[40];
        memcpy(nan_mask, c.mask[2], sizeof nan_mask);
        nan_mask[39] = NAN;
        mb_blend_diag short_diag = {NULL, short_angle, 4, 0};
        mb_blend_desc *dp = &d;
        mb_status expect = MB_INVALID_ARG;
        switch (cs) {
        case 0: dp = NULL; break;
        case 1: d.layer_count = 0; break;
        case 2: d.layer_count = MB_BLEND_MAX_LAYERS + 1; break;
        case 3: l[1].pose = &short_pose; break;
        case 4: l[2].pose = NULL; break;
        case 5: l[0].weight = -1.0f; break;
        case 6: l[1].weight = NAN; break;
        case 7: l[0].weight = l[1].weight = l[2].weight = 0.0f; break;
        case 8: l[2].joint_weights = nan_mask; break;
        case 9: d.method = (mb_blend_method)7; break;
        case 10: d.solver = (mb_eigen_solver)9; break;
        case 11: d.gap_threshold = 1.0f; break;
        default: d.diag = &short_diag; expect = MB_TOO_SMALL; break;
        }
        mb_blend_job job, job_before;
        memset(&job, 0xA5, sizeof job);
        memcpy(&job_before, &job, sizeof job);
        memcpy(before, out, sizeof out);
        cr_assert_eq(mb_blend_job_init(dp, &job), expect, "case %d", cs);
        if (dp)
            cr_assert_eq(mb_blend_run(dp), expect, "case %d: the same as mb_blend_run", cs);
        cr_assert(memcmp(&job, &job_before, sizeof job) == 0, "case %d: job written", cs);
        cr_assert(memcmp(out, before, sizeof out) == 0, "case %d: output written", cs);
    }
    /* a valid job: bad weights or values at run time */
    mb_pose p[5];
    mb_blend_layer l[5];
    mb_blend_desc d;
    nlerp_case_desc(&c, p, l, &d, out);
    mb_blend_job job;
    cr_assert_eq(mb_blend_job_init(&d, &job), MB_OK);
    cr_assert_eq(mb_blend_job_init(&d, NULL), MB_INVALID_ARG);
    memcpy(before, out, sizeof out);
    const float bad_w[4][3] = {{-1, 1, 1}, {NAN, 1, 1}, {INFINITY, 1, 1}, {0, 0, 0}};
    for (int t = 0; t < 4; ++t) {
        cr_assert_eq(mb_blend_job_run(&job, bad_w[t]), MB_INVALID_ARG, "weights %d", t);
        cr_assert(memcmp(out, before, sizeof out) == 0);
    }
    float keep = c.x[2][33].rot[1];
    c.x[2][33].rot[1] = NAN;
    cr_assert_eq(mb_blend_job_run(&job, NULL), MB_NUMERIC);
    cr_assert(memcmp(out, before, sizeof out) == 0);
    c.x[2][33].rot[1] = keep;
    cr_assert_eq(mb_blend_job_run(&job, NULL), MB_OK);
    mb_blend_job zero;
    memset(&zero, 0, sizeof zero);
    cr_assert_eq(mb_blend_job_run(&zero, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_blend_job_run(NULL, NULL), MB_INVALID_ARG);
}

/* Two inputs nearly a half turn apart (|q1 . q2| from 1e-6 to 0.05) with weights close to
 * each other (relative gaps from 2e-3 to 0.3): the closed form keeps every lane whose gap is at least
 * twice the threshold (2e-3), where its reference must stay on the arc between the two
 * (float's D by the cancelling form 1 - 4 w1 w2 (1 - c^2) and sqrt(D) - |w1 - w2| by a
 * subtraction put it past the end, and the blend 3.1 rad off; either of the kernel's two
 * forms alone keeps it on the arc). Every kernel against LAPACKE (1e-5 rad, as the other kernel
 * tests), and the kernels keep the lanes (fewer than a tenth go to the double path). */
Test(blend, two_inputs_near_a_half_turn_with_close_weights)
{
    enum { N = 640 };
    static mb_xform a[N], b[N], got[N], want[N];
    static float mask_a[N], mask_b[N];
    for (int j = 0; j < N; ++j) {
        random_quat(a[j].rot);
        float d[4];
        /* cos of half the rotation between them, log-uniform in [1e-6, 0.05], either sign */
        double c = (urand() < 0.5 ? -1 : 1) * 1e-6 * pow(5e4, urand());
        axis_angle(urand() - .5, urand() - .5, urand() - .5, 2.0 * acos(c), d);
        qmul_ref(a[j].rot, d, b[j].rot);
        for (int k = 0; k < 3; ++k) {
            a[j].pos[k] = (float)urand();
            b[j].pos[k] = (float)urand();
        }
        double w = 0.5 + 0.5 * 1e-3 * pow(200.0, urand()); /* w1 - w2 log-uniform, 1e-3..0.2 */
        mask_a[j] = (float)w;
        mask_b[j] = (float)(1.0 - w);
    }
    mb_pose pa = {a, N}, pb = {b, N};
    mb_blend_layer l[2] = {{&pa, 1.0f, mask_a}, {&pb, 1.0f, mask_b}};
    mb_blend_desc d = {0};
    d.layers = l;
    d.layer_count = 2;
    d.out.count = N;
    d.out.joints = want;
    d.solver = MB_EIGEN_LAPACKE;
    cr_assert_eq(mb_blend_run(&d), MB_OK);
    d.solver = MB_EIGEN_AUTO;
    d.out.joints = got;
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_kernel_((mb_isa_)isa, NULL))
            continue;
        mb_blend_kstats_ st = {0};
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, &st), MB_OK);
        double worst = 0;
        for (int j = 0; j < N; ++j) {
            double e = qangle(got[j].rot, want[j].rot);
            worst = e > worst ? e : worst;
        }
        cr_log_info("%s: worst %.2g rad, %ld of %d joints to the double path",
                    mb_isa_name_((mb_isa_)isa), worst, st.rejected_lanes, N);
        cr_assert(worst < 1e-5, "%s: %g rad", mb_isa_name_((mb_isa_)isa), worst);
        cr_assert_lt(st.rejected_lanes, N / 10, "%s: %ld lanes rejected",
                     mb_isa_name_((mb_isa_)isa), st.rejected_lanes);
    }
}

/* The logexp kernels: bit-identical run to run (the same inputs, the same bits), and within
 * 1e-6 rad of each other (each is within about 3e-7 rad of the exact blend for a given
 * reference and its reference within the 2e-6 certified tol; measured: 3.4e-7 at most here),
 * on clustered and spread inputs of 2 to 8 layers over partial groups. (Against LAPACKE:
 * every_kernel_agrees_with_lapacke, 1e-5 rad.) */
Test(blend, logexp_kernels_deterministic_and_within_1e_6_of_each_other)
{
    static nlerp_case c;
    static mb_xform first[NL_MAXJ], got[NL_MAXJ], again[NL_MAXJ];
    double worst = 0;
    for (int trial = 0; trial < 20; ++trial) {
        int n = trial % 2 ? 300 : 37, L = 2 + trial % 5;
        nlerp_case_make(&c, n, L > 5 ? 5 : L, 0, trial % 3 == 2);
        mb_pose p[5];
        mb_blend_layer l[5];
        mb_blend_desc d;
        nlerp_case_desc(&c, p, l, &d, got);
        d.method = MB_BLEND_LOGEXP;
        int nk = 0;
        for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
            if (!mb_blend_kernel_((mb_isa_)isa, NULL))
                continue;
            d.out.joints = got;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            d.out.joints = again;
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, NULL), MB_OK);
            cr_assert(memcmp(got, again, (size_t)n * sizeof *got) == 0, "%s trial %d",
                      mb_isa_name_((mb_isa_)isa), trial);
            if (nk++ == 0) {
                memcpy(first, got, (size_t)n * sizeof *got);
                continue;
            }
            for (int j = 0; j < n; ++j) {
                double e = qangle(got[j].rot, first[j].rot);
                worst = e > worst ? e : worst;
                cr_assert(e < 1e-6, "%s trial %d joint %d: %g rad from the generic kernel",
                          mb_isa_name_((mb_isa_)isa), trial, j, e);
            }
        }
    }
    cr_log_info("logexp kernels: at most %.2g rad apart", worst);
}

/* Two inputs take the kernel's closed form (slerp_group in blend_kernel.inc: the slerp that
 * the log/exp blend reduces to around the closed-form reference, no power iteration). Pairs
 * of five kinds, 1000 joints (partial last groups): uniform random, near-antipodal
 * (|q1 . q2| log-uniform in [1e-9, 1e-2], either sign, unequal weights: the exact path's
 * side is sign(q1 . q2), which float loses below about 1e-7), equal weights, nearly equal
 * inputs (1e-4 to 0.1 rad apart), extreme weights (the light one 1e-6 to 1e-3); per-joint
 * weights (masks, with the max_angle diagnostic) and layer weights. Every kernel against
 * LAPACKE: 1e-5 rad (as the other kernel tests), the same sign as the exact path (the
 * reference's, w >= 0) wherever the exact result's w is clear of 0, unit within 1e-6,
 * max_angle within 1e-5, no power iteration, and at most an eighth of the joints handed to
 * the double path. */
Test(blend, two_inputs_closed_form_agrees_with_lapacke)
{
    enum { N = 1000 };
    static mb_xform a[N], b[N], got[N], want[N];
    static float mask_a[N], mask_b[N], ang_g[N], ang_w[N];
    for (int j = 0; j < N; ++j) {
        int kind = j % 5;
        double w = 0.05 + 0.9 * urand();
        random_quat(a[j].rot);
        if (kind == 1 || kind == 3) {
            double c = kind == 1 ? (urand() < 0.5 ? -1 : 1) * pow(10.0, -9.0 + 7.0 * urand())
                                 : cos(0.5 * 1e-4 * pow(1e3, urand()));
            float d[4];
            axis_angle(urand() - .5, urand() - .5, urand() - .5, 2.0 * acos(c), d);
            qmul_ref(a[j].rot, d, b[j].rot);
            if (kind == 1) /* the weights 0.01 to 0.5 apart */
                w = 0.5 + (urand() < 0.5 ? -0.5 : 0.5) * (0.01 + 0.99 * urand()) * 0.5;
        } else {
            random_quat(b[j].rot);
        }
        if (kind == 2)
            w = 0.5;
        if (kind == 4)
            w = 1.0 - 1e-6 * pow(1e3, urand());
        if (urand() < 0.5) /* either input the light one, either sign */
            w = 1.0 - w;
        if (urand() < 0.5)
            for (int k = 0; k < 4; ++k)
                b[j].rot[k] = -b[j].rot[k];
        for (int k = 0; k < 3; ++k) {
            a[j].pos[k] = (float)urand();
            b[j].pos[k] = (float)urand();
        }
        mask_a[j] = (float)w;
        mask_b[j] = (float)(1.0 - w);
    }
    mb_pose pa = {a, N}, pb = {b, N};
    for (int masked = 0; masked < 2; ++masked) {
        mb_blend_layer l[2] = {{&pa, masked ? 1.0f : 0.3f, masked ? mask_a : NULL},
                               {&pb, masked ? 1.0f : 0.7f, masked ? mask_b : NULL}};
        mb_blend_diag dg = {NULL, ang_w, N, 0};
        mb_blend_desc d = {0};
        d.layers = l;
        d.layer_count = 2;
        d.out.count = N;
        d.out.joints = want;
        d.diag = masked ? &dg : NULL;
        d.solver = MB_EIGEN_LAPACKE;
        cr_assert_eq(mb_blend_run(&d), MB_OK);
        d.solver = MB_EIGEN_AUTO;
        d.out.joints = got;
        dg.max_angle = ang_g;
        for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
            if (!mb_blend_kernel_((mb_isa_)isa, NULL))
                continue;
            const char *name = mb_isa_name_((mb_isa_)isa);
            mb_blend_kstats_ st = {0};
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, &st), MB_OK);
            double worst = 0, worst_norm = 0;
            for (int j = 0; j < N; ++j) {
                double e = qangle(got[j].rot, want[j].rot);
                worst = e > worst ? e : worst;
                cr_assert(e < 1e-5, "%s masked %d joint %d (kind %d): %g rad", name, masked, j,
                          j % 5, e);
                const float *q = got[j].rot;
                double nn = fabs(sqrt((double)q[0] * q[0] + (double)q[1] * q[1] +
                                      (double)q[2] * q[2] + (double)q[3] * q[3]) - 1.0);
                worst_norm = nn > worst_norm ? nn : worst_norm;
                if (fabsf(want[j].rot[3]) > 1e-4f)
                    cr_assert((got[j].rot[3] < 0) == (want[j].rot[3] < 0),
                              "%s masked %d joint %d (kind %d): sign %g against %g", name,
                              masked, j, j % 5, got[j].rot[3], want[j].rot[3]);
                if (masked)
                    cr_assert(fabsf(ang_g[j] - ang_w[j]) < 1e-5f,
                              "%s joint %d: max_angle %g against %g", name, j, ang_g[j],
                              ang_w[j]);
            }
            cr_log_info("%s masked %d: worst %.2g rad, |q| - 1 up to %.2g, %ld of %d joints to "
                        "the double path", name, masked, worst, worst_norm, st.rejected_lanes, N);
            /* the slerp is unit in exact arithmetic; the polynomials leave about 3e-7 */
            cr_assert(worst_norm < 1e-6, "%s: |q| - 1 up to %g", name, worst_norm);
            cr_assert_eq(st.iterations, 0, "%s: %ld products", name, st.iterations);
            cr_assert_lt(st.rejected_lanes, N / 8, "%s: %ld lanes rejected", name,
                         st.rejected_lanes);
        }
    }
}

/* Spread inputs (three and four layers, each within 100 degrees of a per-joint centre, so
 * pairs up to 180 apart), masked and not: a group with a lane whose first Rayleigh quotient
 * says the power iteration would be slow starts from the closed form instead
 * (blend_kernel.inc, cf_poly / cf_newton / cf_finish: M's characteristic polynomial, its
 * largest root by Newton from the Wolkowicz-Styan bound, q(M) M q_0). That start is
 * certified as every iterate is, so it can cost time, never accuracy. Every kernel: within
 * 1e-5 rad of LAPACKE, few lanes to the double path, and a start good enough that almost
 * every group passes its first check: at most 5.3 products per group (the closed form
 * counts 4, its check 1; from q_0 the groups of these sets need more, and a broken start,
 * e.g. a wrong Newton step or filter coefficient, needs more checks). */
Test(blend, spread_inputs_closed_form_start_certified_and_cheap)
{
    static nlerp_case c;
    static mb_xform want[NL_MAXJ], got[NL_MAXJ];
    for (int trial = 0; trial < 6; ++trial) {
        int n = 299, L = 3 + trial % 2;
        nlerp_case_make(&c, n, L, 0, trial >= 4);
        mb_pose p[5];
        mb_blend_layer l[5];
        mb_blend_desc d;
        nlerp_case_desc(&c, p, l, &d, want);
        d.method = MB_BLEND_LOGEXP;
        d.solver = MB_EIGEN_LAPACKE;
        cr_assert_eq(mb_blend_run(&d), MB_OK);
        d.solver = MB_EIGEN_AUTO;
        d.out.joints = got;
        for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
            if (!mb_blend_kernel_((mb_isa_)isa, NULL))
                continue;
            mb_blend_kstats_ st = {0};
            cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, &st), MB_OK);
            double worst = 0;
            for (int j = 0; j < n; ++j) {
                double e = qangle(got[j].rot, want[j].rot);
                worst = e > worst ? e : worst;
            }
            double per_group = (double)st.iterations / (double)st.groups;
            cr_log_info("%s L=%d masked=%d: worst %.2g rad, %ld lanes to the double path, "
                        "%.2f products per group",
                        mb_isa_name_((mb_isa_)isa), L, c.masked, worst, st.rejected_lanes,
                        per_group);
            cr_assert(worst < 1e-5, "%s: %g rad", mb_isa_name_((mb_isa_)isa), worst);
            cr_assert_lt(st.rejected_lanes, n / 20, "%s", mb_isa_name_((mb_isa_)isa));
            cr_assert(per_group <= 5.3, "%s: %.2f products per group",
                      mb_isa_name_((mb_isa_)isa), per_group);
        }
    }
    /* a spread group whose top eigenvalue is double: three inputs 60 degrees apart in one
     * plane (rotations 120 degrees apart, equal weights: M is a multiple of the identity
     * there) and a light fourth, M = diag(.45, .45, .1, 0); Newton meets the double root and
     * q(M) M q_0 vanishes. No certificate is possible, so every joint goes to the exact path
     * and agrees with the LAPACKE solver; 37 joints, a partial group on every kernel */
    const float h = 0.8660254f;
    const float e4[4][4] = {{1, 0, 0, 0}, {0.5f, h, 0, 0}, {-0.5f, h, 0, 0}, {0, 0, 1, 0}};
    const float wd[4] = {0.3f, 0.3f, 0.3f, 0.1f};
    int n = 37;
    mb_pose p[4];
    mb_blend_layer l[4];
    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < n; ++j) {
            memcpy(c.x[i][j].rot, e4[i], sizeof e4[i]);
            for (int q = 0; q < 3; ++q)
                c.x[i][j].pos[q] = (float)j;
        }
        p[i] = (mb_pose){c.x[i], n};
        l[i] = (mb_blend_layer){&p[i], wd[i], NULL};
    }
    mb_blend_desc d;
    memset(&d, 0, sizeof d);
    d.layers = l;
    d.layer_count = 4;
    d.method = MB_BLEND_LOGEXP;
    d.solver = MB_EIGEN_LAPACKE;
    d.out.joints = want;
    d.out.count = n;
    cr_assert_eq(mb_blend_run(&d), MB_OK);
    d.solver = MB_EIGEN_AUTO;
    d.out.joints = got;
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        if (!mb_blend_kernel_((mb_isa_)isa, NULL))
            continue;
        mb_blend_kstats_ st = {0};
        cr_assert_eq(mb_blend_run_isa_(&d, (mb_isa_)isa, &st), MB_OK);
        for (int j = 0; j < n; ++j)
            cr_assert(qangle(got[j].rot, want[j].rot) < 1e-5, "%s joint %d",
                      mb_isa_name_((mb_isa_)isa), j);
        cr_log_info("%s double root: %ld products in %ld groups", mb_isa_name_((mb_isa_)isa),
                    st.iterations, st.groups);
        cr_assert_eq(st.rejected_lanes, n, "%s", mb_isa_name_((mb_isa_)isa));
    }
}
