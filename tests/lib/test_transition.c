/* Transitions on real data (run to walk: CMU 02, CMU 09, Bandai): the quality metrics of
 * the issue computed here, independently, from forward kinematics of the built clip and
 * its inputs; same-clip transitions that change nothing; root alignment; clips at
 * different frame rates; the inertialization curve; errors (the CLI: tests/cli). */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mblend/mblend.h"
#include "runtime/controller/inertialize_internal.h"
#include "runtime/controller/rootmotion_internal.h"
#include "test_clip_file.h"
#include "test_actors.h"
#include "test_util.h"

/* Angle between two unit quaternions, sign-invariant: of r = conj(a) b, 2 atan2(|r.xyz|,
 * |r.w|), which stays accurate for nearly equal rotations (acos of the dot product would
 * turn float rounding of the norms into 1e-4 rad). */
static double qangle(const float *a, const float *b)
{
    double p[4] = {-a[0], -a[1], -a[2], a[3]}, q[4] = {b[0], b[1], b[2], b[3]};
    double x = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
    double y = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
    double z = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
    double w = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
    return 2.0 * atan2(sqrt(x * x + y * y + z * z), fabs(w));
}

/* ---------------------------------------------------------------- the metrics */

typedef struct metrics {
    double root_ratio, ang_ratio, skate_ratio, skate_out, skate_in;
    int ang_joint;
} metrics;

typedef struct built {
    mb_test_clip a, b;
    mb_clip *out;
    mb_transition_result res;
    double at, dur;
} built;

/* Contact threshold of a clip: 6% of the body height above its lowest foot height. */
static double contact_height(const float *pos, int n, int f0, int nf, const mb_motion_info *in)
{
    double lo = 1e300;
    for (int f = f0; f < nf; ++f)
        for (int s = 0; s < 2; ++s) {
            double h = P3(pos, n, f, s ? in->right_foot : in->left_foot)[mb_axis_index(in->up_axis)];
            lo = h < lo ? h : lo;
        }
    return lo + 0.06 * in->height;
}

static void skate(const float *pos, int n, int f0, int f1, const mb_motion_info *in, double thr, double ft,
                  double *sum, int *cnt)
{
    int up = mb_axis_index(in->up_axis);
    for (int f = f0; f + 1 < f1; ++f)
        for (int s = 0; s < 2; ++s) {
            int j = s ? in->right_foot : in->left_foot;
            const float *p = P3(pos, n, f, j), *q = P3(pos, n, f + 1, j);
            if (p[up] <= thr && q[up] <= thr) {
                *sum += dist(p, q, up) / ft;
                ++*cnt;
            }
        }
}

static double max_ang(const mb_clip *c, int n, int j, int f0, int f1)
{
    const float *r = mb_clip_rotations(c);
    double m = 0.0;
    for (int f = f0; f + 1 < f1; ++f) {
        double a = qangle(r + 4 * ((size_t)f * n + j), r + 4 * ((size_t)(f + 1) * n + j));
        m = a > m ? a : m;
    }
    return m / mb_clip_frame_time(c);
}

static int clampi(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }

static metrics measure(const built *t)
{
    metrics m;
    memset(&m, 0, sizeof m);
    const mb_skeleton *s = t->a.s;
    int n = mb_skeleton_joint_count(s);
    const mb_motion_info *ia = &t->a.info, *ib = &t->b.info;
    int nfa = mb_clip_frame_count(t->a.c), nfb = mb_clip_frame_count(t->b.c), nfo = mb_clip_frame_count(t->out);
    double fta = mb_clip_frame_time(t->a.c), ftb = mb_clip_frame_time(t->b.c), fto = mb_clip_frame_time(t->out);
    float *pa = positions(s, t->a.c), *pb = positions(t->b.s, t->b.c), *po = positions(s, t->out);
    int root = ia->root;
    /* 1. root path: largest step of the output against the largest inside the inputs */
    double so = 0.0, si = 0.0;
    for (int f = 0; f + 1 < nfo; ++f)
        so = fmax(so, dist(P3(po, n, f, root), P3(po, n, f + 1, root), -1));
    for (int f = ia->first_frame; f + 1 < nfa; ++f)
        si = fmax(si, dist(P3(pa, n, f, root), P3(pa, n, f + 1, root), -1));
    for (int f = ib->first_frame; f + 1 < nfb; ++f)
        si = fmax(si, dist(P3(pb, n, f, root), P3(pb, n, f + 1, root), -1) * fto / ftb);
    m.root_ratio = so / si;
    /* Windows: the transition in the output; 0.5 s around each transition point. */
    int ka = (int)lround(t->at / fta), kb = (int)lround(t->res.b_start / ftb);
    int a0 = clampi(ka - (int)ceil(0.5 / fta), ia->first_frame, nfa), a1 = clampi(ka + (int)ceil((t->dur + 0.5) / fta) + 1, 0, nfa);
    int b0 = clampi(kb - (int)ceil(0.5 / ftb), ib->first_frame, nfb), b1 = clampi(kb + (int)ceil((t->dur + 0.5) / ftb) + 1, 0, nfb);
    int t0 = t->res.transition_start, t1 = t->res.transition_end + 1;
    /* 2. angular speed per joint (static joints: 0.05 rad/s floor) */
    m.ang_joint = -1;
    for (int j = 0; j < n; ++j) {
        if (mb_skeleton_is_end_site(s, j))
            continue;
        double wo = max_ang(t->out, n, j, t0, t1);
        double wi = fmax(max_ang(t->a.c, n, j, a0, a1), max_ang(t->b.c, n, j, b0, b1));
        double r = wo / fmax(wi, 0.05);
        if (r > m.ang_ratio) {
            m.ang_ratio = r;
            m.ang_joint = j;
        }
    }
    /* 3. foot skate: mean horizontal foot speed in contact */
    double tha = contact_height(pa, n, ia->first_frame, nfa, ia), thb = contact_height(pb, n, ib->first_frame, nfb, ib);
    double sum_o = 0.0, sum_i = 0.0;
    int cnt_o = 0, cnt_i = 0;
    skate(po, n, t0, t1, ia, fmax(tha, thb), fto, &sum_o, &cnt_o);
    skate(pa, n, a0, a1, ia, tha, fta, &sum_i, &cnt_i);
    skate(pb, n, b0, b1, ib, thb, ftb, &sum_i, &cnt_i);
    cr_assert(cnt_o > 0 && cnt_i > 0, "no contact frames to measure skate on");
    m.skate_out = sum_o / cnt_o;
    m.skate_in = sum_i / cnt_i;
    m.skate_ratio = m.skate_out / m.skate_in;
    free(pa);
    free(pb);
    free(po);
    return m;
}

/* Builds run -> walk at the best matched pair in the search span used by the CLI (a third
 * into A up to the last frame leaving room for the transition). */
static built build(const char *fa, const char *fb, double dur, mb_transition_mode mode, int sync)
{
    built t;
    t.a = mb_test_clip_load(fa);
    t.b = mb_test_clip_load(fb);
    t.dur = dur;
    double fta = mb_clip_frame_time(t.a.c), ftb = mb_clip_frame_time(t.b.c);
    int nfa = mb_clip_frame_count(t.a.c);
    mb_match_desc md = {0};
    md.skeleton_a = t.a.s;
    md.skeleton_b = t.b.s;
    md.a = t.a.c;
    md.b = t.b.c;
    md.info_a = &t.a.info;
    md.info_b = &t.b.info;
    md.window = dur;
    double lo = t.a.info.first_frame * fta, hi = (nfa - 1) * fta;
    md.a_from = lo + (hi - lo) / 3.0;
    md.a_to = hi - (sync ? 1.5 : 1.0) * dur;
    if (md.a_to < md.a_from)
        md.a_from = lo;
    mb_match_pair best;
    int found = 0;
    mb_error e;
    cr_assert_eq(mb_match_find(&md, &best, 1, &found, NULL, &e), MB_OK, "%s", e.text);
    cr_assert_eq(found, 1);
    mb_transition_build_desc d = {0};
    d.skeleton = t.a.s;
    d.a = t.a.c;
    d.b = t.b.c;
    d.info_a = &t.a.info;
    d.info_b = &t.b.info;
    d.at = best.a * fta;
    d.b_start = best.b * ftb;
    d.transition.duration = (float)dur;
    d.transition.mode = mode;
    d.transition.sync = sync;
    d.transition.sync_keep_start = 1;
    t.at = d.at;
    cr_assert_eq(mb_transition_build(&d, &t.out, &t.res, &e), MB_OK, "%s: %s", e.source, e.text);
    return t;
}

static void free_built(built *t)
{
    mb_clip_destroy(t->out);
    mb_test_clip_unload(&t->a);
    mb_test_clip_unload(&t->b);
}

/* The three criteria, checked here; the library's own measurement must agree. */
static void check_quality(const char *fa, const char *fb, double dur, mb_transition_mode mode, int sync)
{
    built t = build(fa, fb, dur, mode, sync);
    metrics m = measure(&t);
    const char *mname = mode == MB_TRANSITION_INERTIALIZE ? "inertialize" : "crossfade";
    cr_log_info("%s -> %s, %s%s %.2f s: root step ratio %.3f, angular speed ratio %.3f (%s), foot skate ratio %.3f "
                "(%.3g vs %.3g)",
                fa, fb, mname, sync ? " sync" : "", dur, m.root_ratio, m.ang_ratio,
                mb_skeleton_name(t.a.s, m.ang_joint), m.skate_ratio, m.skate_out, m.skate_in);
    cr_expect_leq(m.root_ratio, 1.5, "root step %.3f x the inputs' largest", m.root_ratio);
    cr_expect_leq(m.ang_ratio, 1.5, "joint %s turns %.3f x faster than in the inputs",
                  mb_skeleton_name(t.a.s, m.ang_joint), m.ang_ratio);
    cr_expect_leq(m.skate_ratio, 2.0, "foot skate %.3f x the inputs'", m.skate_ratio);
    mb_transition_measure_desc qd = {0};
    qd.skeleton = t.a.s;
    qd.a = t.a.c;
    qd.b = t.b.c;
    qd.out = t.out;
    qd.info_a = &t.a.info;
    qd.info_b = &t.b.info;
    qd.result = &t.res;
    qd.at = t.at;
    qd.duration = dur;
    mb_transition_quality q;
    mb_error qe;
    cr_assert_eq(mb_transition_measure(&qd, &q, &qe), MB_OK, "%s", qe.text);
    /* a time far outside A (a unit mistake) is refused and writes nothing; it once
     * overflowed an int conversion */
    mb_transition_quality keep = q;
    qd.at = 3e7;
    cr_assert_eq(mb_transition_measure(&qd, &q, &qe), MB_INVALID_ARG);
    cr_assert(strstr(qe.text, "at 3e+07 s or B's start") && strstr(qe.text, "outside its clip"), "%s",
              qe.text);
    qd.at = -1e300;
    cr_assert_eq(mb_transition_measure(&qd, &q, &qe), MB_INVALID_ARG);
    cr_assert(strstr(qe.text, "outside its clip"), "%s", qe.text);
    qd.at = INFINITY;
    cr_assert_eq(mb_transition_measure(&qd, &q, &qe), MB_INVALID_ARG);
    cr_assert(strstr(qe.text, "finite"), "%s", qe.text);
    cr_assert_eq(mb_transition_measure(NULL, &q, &qe), MB_INVALID_ARG);
    cr_assert_str_eq(qe.source, "transition quality");
    cr_assert(memcmp(&keep, &q, sizeof q) == 0, "the output changed on failure");
    qd.at = t.at;
    cr_expect_float_eq(q.root_step_ratio, m.root_ratio, 1e-4 * m.root_ratio);
    cr_expect_float_eq(q.angular_ratio, m.ang_ratio, 1e-4 * m.ang_ratio);
    cr_expect_float_eq(q.skate_ratio, m.skate_ratio, 1e-4 * m.skate_ratio);
    free_built(&t);
}

Test(quality, cmu02_run_to_walk_crossfade_sync) { check_quality("cmu_02_03_run.bvh", "cmu_02_01_walk.bvh", 0.5, MB_TRANSITION_CROSSFADE, 1); }
Test(quality, cmu02_run_to_walk_inertialize) { check_quality("cmu_02_03_run.bvh", "cmu_02_01_walk.bvh", 0.5, MB_TRANSITION_INERTIALIZE, 0); }
Test(quality, cmu09_run_to_walk_crossfade) { check_quality("cmu_09_01_run.bvh", "cmu_09_12_walk_navigate_long.bvh", 0.7, MB_TRANSITION_CROSSFADE, 0); }
Test(quality, cmu09_run_to_walk_crossfade_sync) { check_quality("cmu_09_01_run.bvh", "cmu_09_12_walk_navigate_long.bvh", 0.7, MB_TRANSITION_CROSSFADE, 1); }
Test(quality, cmu09_run_to_walk_inertialize) { check_quality("cmu_09_01_run.bvh", "cmu_09_12_walk_navigate_long.bvh", 0.7, MB_TRANSITION_INERTIALIZE, 0); }
Test(quality, bandai_run_to_walk_crossfade_sync) { check_quality("bandai2_run_normal_001.bvh", "bandai2_walk_normal_001.bvh", 0.5, MB_TRANSITION_CROSSFADE, 1); }
Test(quality, bandai_run_to_walk_inertialize) { check_quality("bandai2_run_normal_001.bvh", "bandai2_walk_normal_001.bvh", 0.5, MB_TRANSITION_INERTIALIZE, 0); }

/* ---------------------------------------------------------------- structure */

/* A transition from a clip to itself at the same phase changes nothing. */
static void same_clip(mb_transition_mode mode, int sync)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_03_run.bvh");
    double ft = mb_clip_frame_time(a.c);
    int n = mb_skeleton_joint_count(a.s), nf = mb_clip_frame_count(a.c), f0 = a.info.first_frame;
    mb_transition_build_desc d = {0};
    d.skeleton = a.s;
    d.a = d.b = a.c;
    d.at = d.b_start = 60 * ft;
    d.transition.duration = 0.3f;
    d.transition.mode = mode;
    d.transition.sync = sync;
    mb_clip *out;
    mb_transition_result res;
    mb_error e;
    cr_assert_eq(mb_transition_build(&d, &out, &res, &e), MB_OK, "%s", e.text);
    cr_assert_eq(res.frames, nf - f0, "the output is the clip's motion frames");
    cr_assert_float_eq(res.b_start, d.b_start, 1e-9);
    mb_xform *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * n);
    float(*w)[16] = malloc(sizeof *w * n), (*v)[16] = malloc(sizeof *v * n);
    double worst = 0.0, worst_pos = 0.0;
    for (int k = 0; k < res.frames; ++k) {
        mb_pose px = {x, n}, py = {y, n};
        cr_assert_eq(mb_clip_frame_pose(a.s, out, k, px), MB_OK);
        cr_assert_eq(mb_clip_frame_pose(a.s, a.c, f0 + k, py), MB_OK);
        for (int j = 0; j < n; ++j)
            worst = fmax(worst, qangle(x[j].rot, y[j].rot));
        mb_fk(a.s, &px, w, n);
        mb_fk(a.s, &py, v, n);
        for (int j = 0; j < n; ++j)
            worst_pos = fmax(worst_pos, dist(&w[j][12], &v[j][12], -1));
    }
    cr_assert_lt(worst, 1e-5, "a joint turned by %g rad", worst);
    cr_assert_lt(worst_pos, 1e-4 * a.info.height, "a joint moved by %g", worst_pos);
    free(x);
    free(y);
    free(w);
    free(v);
    mb_clip_destroy(out);
    mb_test_clip_unload(&a);
}

Test(transition, same_clip_same_phase_changes_nothing_crossfade) { same_clip(MB_TRANSITION_CROSSFADE, 0); }
Test(transition, same_clip_same_phase_changes_nothing_crossfade_sync) { same_clip(MB_TRANSITION_CROSSFADE, 1); }
Test(transition, same_clip_same_phase_changes_nothing_inertialize) { same_clip(MB_TRANSITION_INERTIALIZE, 0); }

/* Before the transition the output is A; after it, B moved rigidly (a rotation about up
 * and a horizontal translation), continuing A's path without a jump or a turn. */
static void root_alignment(const char *fa, const char *fb, double dur)
{
    built t = build(fa, fb, dur, MB_TRANSITION_CROSSFADE, 0);
    const mb_skeleton *s = t.a.s;
    int n = mb_skeleton_joint_count(s), root = t.a.info.root, up = mb_axis_index(t.a.info.up_axis);
    double ft = mb_clip_frame_time(t.out);
    float *pa = positions(s, t.a.c), *pb = positions(t.b.s, t.b.c), *po = positions(s, t.out);
    int f0 = t.a.info.first_frame;
    for (int k = 0; k <= t.res.transition_start; ++k)
        cr_assert_lt(dist(P3(po, n, k, root), P3(pa, n, f0 + k, root), -1), 1e-3, "frame %d is not A", k);
    /* B part: output frame k plays B's frame kb + (k - transition_start) */
    int kb = (int)lround(t.res.b_start / ft), k0 = t.res.transition_end, k1 = t.res.frames - 1;
    int nfb = mb_clip_frame_count(t.b.c);
    if (kb + (k1 - t.res.transition_start) >= nfb)
        k1 = nfb - 1 - kb + t.res.transition_start;
    cr_assert_gt(k1 - k0, 20);
    /* the 2D rigid map from B's horizontal root path onto the output's, from two points */
    const float *b0 = P3(pb, n, kb + k0 - t.res.transition_start, root), *b1 = P3(pb, n, kb + k1 - t.res.transition_start, root);
    const float *o0 = P3(po, n, k0, root), *o1 = P3(po, n, k1, root);
    int u = (up + 1) % 3, v = (up + 2) % 3;
    double ab = atan2(b1[v] - b0[v], b1[u] - b0[u]), ao = atan2(o1[v] - o0[v], o1[u] - o0[u]), th = ao - ab;
    double worst = 0.0;
    for (int k = k0; k <= k1; ++k) {
        const float *pbk = P3(pb, n, kb + k - t.res.transition_start, root), *pok = P3(po, n, k, root);
        double du = pbk[u] - b0[u], dv = pbk[v] - b0[v];
        double eu = o0[u] + cos(th) * du - sin(th) * dv, ev = o0[v] + sin(th) * du + cos(th) * dv;
        worst = fmax(worst, hypot(eu - pok[u], ev - pok[v]));
        worst = fmax(worst, fabs((double)pbk[up] - pok[up]));
    }
    cr_assert_lt(worst, 1e-3 * t.a.info.height, "B is not moved rigidly (off by %g)", worst);
    /* no turn: travel direction over 0.25 s before the transition and after it */
    int w = (int)lround(0.3 / ft), ts = t.res.transition_start;
    const float *x0 = P3(po, n, ts - w, root), *x1 = P3(po, n, ts, root);
    const float *y0 = P3(po, n, t.res.transition_end, root), *y1 = P3(po, n, t.res.transition_end + w, root);
    double d1 = atan2(x1[v] - x0[v], x1[u] - x0[u]), d2 = atan2(y1[v] - y0[v], y1[u] - y0[u]);
    double turn = fabs(mb_rm_wrap(d2 - d1));
    cr_log_info("%s -> %s: travel direction change across the transition: %.1f degrees", fa, fb, turn * 57.2958);
    cr_assert_lt(turn, 15.0 / 57.2958, "the path turns by %g degrees", turn * 57.2958);
    free(pa);
    free(pb);
    free(po);
    free_built(&t);
}

Test(transition, root_alignment_cmu02) { root_alignment("cmu_02_03_run.bvh", "cmu_02_01_walk.bvh", 0.4); }
Test(transition, root_alignment_cmu09) { root_alignment("cmu_09_01_run.bvh", "cmu_09_12_walk_navigate_long.bvh", 0.5); }
Test(transition, root_alignment_bandai) { root_alignment("bandai2_run_normal_001.bvh", "bandai2_walk_normal_001.bvh", 0.5); }

/* B at half A's frame rate: the output keeps A's frame time and B's motion, sampled. */
Test(transition, clips_at_different_frame_rates)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_03_run.bvh"), b = mb_test_clip_load("cmu_02_01_walk.bvh");
    int n = mb_skeleton_joint_count(b.s), nfb = mb_clip_frame_count(b.c), half = (nfb + 1) / 2;
    int nt = mb_clip_translation_count(b.c);
    cr_assert_gt(nt, 0);
    float *rot = malloc(sizeof(float) * 4 * (size_t)n * half), *tr = malloc(sizeof(float) * 3 * (size_t)nt * half);
    for (int f = 0; f < half; ++f) {
        memcpy(rot + 4 * (size_t)f * n, mb_clip_rotations(b.c) + 4 * (size_t)(2 * f) * n, sizeof(float) * 4 * n);
        memcpy(tr + 3 * (size_t)f * nt, mb_clip_translations(b.c) + 3 * (size_t)(2 * f) * nt, sizeof(float) * 3 * nt);
    }
    mb_clip_desc cd = {0};
    cd.joint_count = n;
    cd.frame_count = half;
    cd.frame_time = 2.0 * mb_clip_frame_time(b.c);
    cd.rotations = rot;
    cd.translation_joints = mb_clip_translation_joints(b.c);
    cd.translation_count = nt;
    cd.translations = tr;
    mb_clip *b60;
    cr_assert_eq(mb_clip_create(&cd, &b60, NULL), MB_OK);
    double ft = mb_clip_frame_time(a.c);
    mb_transition_build_desc d = {0};
    d.skeleton = a.s;
    d.a = a.c;
    d.b = b60;
    d.info_a = &a.info;
    d.at = 80 * ft;
    d.b_start = 144 * mb_clip_frame_time(b.c); /* an even 120 fps frame: one of the 60 fps ones */
    d.transition.duration = 0.3f;
    mb_clip *out;
    mb_transition_result res;
    mb_error e;
    cr_assert_eq(mb_transition_build(&d, &out, &res, &e), MB_OK, "%s", e.text);
    cr_assert_float_eq(mb_clip_frame_time(out), ft, 1e-12);
    cr_assert_float_eq(res.frame_time, ft, 1e-12);
    /* after the transition, output frame k shows B at b_start + (k - start) * ft: at B's
     * own (even) frames exactly, between them within the original's change there */
    mb_xform *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * n), *y0 = malloc(sizeof *y0 * n),
             *y1 = malloc(sizeof *y1 * n);
    double worst_even = 0.0;
    int checked = 0, bad_odd = 0;
    for (int k = res.transition_end; k < res.frames; ++k) {
        double tb = res.b_start + (k - res.transition_start) * ft;
        int fb = (int)lround(tb / mb_clip_frame_time(b.c));
        cr_assert_lt(fabs(fb * mb_clip_frame_time(b.c) - tb), 1e-6, "B time %g is not on a 120 fps frame", tb);
        if (fb < 1 || fb >= nfb - 1)
            continue;
        mb_pose px = {x, n}, py = {y, n}, p0 = {y0, n}, p1 = {y1, n};
        mb_clip_frame_pose(a.s, out, k, px);
        mb_clip_frame_pose(b.s, b.c, fb, py); /* the 120 fps original */
        mb_clip_frame_pose(b.s, b.c, fb - 1, p0);
        mb_clip_frame_pose(b.s, b.c, fb + 1, p1);
        for (int j = 0; j < n; ++j) {
            if (j == a.info.root)
                continue;
            double err = qangle(x[j].rot, y[j].rot);
            if (fb % 2 == 0)
                worst_even = fmax(worst_even, err);
            else if (err > fmax(qangle(y0[j].rot, y[j].rot), qangle(y[j].rot, y1[j].rot)) + 1e-4)
                ++bad_odd;
        }
        ++checked;
    }
    cr_assert_gt(checked, 100);
    cr_assert_lt(worst_even, 1e-5, "at B's own frames the output strays %g rad", worst_even);
    cr_assert_eq(bad_odd, 0, "%d joints between B's frames are not between the original's", bad_odd);
    free(y0);
    free(y1);
    free(x);
    free(y);
    free(rot);
    free(tr);
    mb_clip_destroy(out);
    mb_clip_destroy(b60);
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
}

Test(transition, rejects_bad_requests)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_03_run.bvh"), b = mb_test_clip_load("cmu_02_01_walk.bvh"), z = mb_test_clip_load("bandai2_walk_normal_001.bvh");
    double ft = mb_clip_frame_time(a.c);
    mb_transition_build_desc d = {0};
    mb_clip *out = (mb_clip *)&d;
    mb_error e;
    cr_assert_eq(mb_transition_build(NULL, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert_null(out);
    d.skeleton = a.s;
    d.a = a.c;
    d.b = b.c;
    d.at = 80 * ft;
    d.b_start = 1.0;
    d.transition.duration = 0.3f;
    cr_assert_eq(mb_transition_build(&d, &out, NULL, &e), MB_OK);
    mb_clip_destroy(out);
    d.at = 0.0; /* the T-pose frame */
    cr_assert_eq(mb_transition_build(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "outside"), "%s", e.text);
    d.at = 170 * ft; /* A ends before the transition does */
    cr_assert_eq(mb_transition_build(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "A ends"), "%s", e.text);
    d.at = 80 * ft;
    d.b_start = 100.0;
    cr_assert_eq(mb_transition_build(&d, &out, NULL, &e), MB_INVALID_ARG);
    d.b_start = 1.0;
    d.transition.duration = -1.0f;
    cr_assert_eq(mb_transition_build(&d, &out, NULL, &e), MB_INVALID_ARG);
    d.transition.duration = 0.3f;
    d.b = z.c; /* another skeleton */
    cr_assert_eq(mb_transition_build(&d, &out, NULL, &e), MB_MISMATCH);
    /* sync on a clip without two touchdowns of either foot */
    d.b = b.c;
    d.transition.sync = 1;
    d.cycle_a.start = 10;
    d.cycle_a.end = 100000;
    cr_assert_eq(mb_transition_build(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "cycle"), "%s", e.text);
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
    mb_test_clip_unload(&z);
}

/* ---------------------------------------------------------------- inertialization curve */

Test(inertialize, quintic_reaches_zero_smoothly_without_overshoot)
{
    double x0s[] = {0.5, 1.0, 2.0}, v0s[] = {0.0, -1.0, -20.0, 3.0};
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 4; ++k) {
            mb_inert_curve_ c;
            mb_inert_fit_(x0s[i], v0s[k], 0.4, &c);
            cr_assert_leq(c.t1, 0.4 + 1e-12);
            cr_assert_float_eq(mb_inert_eval_(&c, 0.0), x0s[i], 1e-12);
            double h = 1e-6, v0 = v0s[k] > 0 ? 0.0 : v0s[k];
            cr_assert_float_eq((mb_inert_eval_(&c, h) - x0s[i]) / h, v0, 1e-3 * (1 + fabs(v0)), "v0");
            /* zero value, slope and curvature at t1; never below zero before it */
            double t1 = c.t1, e = 1e-4;
            cr_assert_float_eq(mb_inert_eval_(&c, t1 - 1e-9), 0.0, 1e-6);
            cr_assert_float_eq(mb_inert_eval_(&c, t1), 0.0, 0.0);
            cr_assert_lt(fabs(mb_inert_eval_(&c, t1 - e)) / e, 1e-3 * x0s[i] / t1 + 1e-6);
            for (int s = 0; s <= 1000; ++s)
                cr_assert_geq(mb_inert_eval_(&c, t1 * s / 1000.0), -1e-9 * x0s[i], "overshoot at %d", s);
        }
    mb_inert_curve_ none;
    mb_inert_fit_(0.0, -1.0, 0.4, &none);
    cr_assert_eq(mb_inert_eval_(&none, 0.0), 0.0);
}

/* With the first actor standing still, the analysed root is the second actor's, and so are
 * the feet (they were found by name anywhere: the still actor's). */
Test(transition, analysis_keeps_to_the_moving_actor)
{
    char *src = mb_test_slurp(mb_shared_path("bvh/cmu_02_01_walk.bvh"), NULL);
    size_t n;
    char *text = two_actor_text(src, 0.0, 1, &n);
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_mem(text, n, "two.bvh", NULL, &s, &c, &e), MB_OK, "%s", e.text);
    mb_motion_info info;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "two.bvh", &info, &e), MB_OK, "%s", e.text);
    cr_expect_str_eq(mb_skeleton_name(s, info.root), "B_Hips");
    cr_assert(info.left_foot >= 0 && info.right_foot >= 0);
    cr_expect_str_eq(mb_skeleton_name(s, info.left_foot), "B_LeftFoot");
    cr_expect_str_eq(mb_skeleton_name(s, info.right_foot), "B_RightFoot");
    cr_expect_eq(info.up_axis, MB_AXIS_Y);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    free(text);
    free(src);
}

/* Prepared clips stand for A and B of the transition plan, the builder and the measure: given
 * only the prepared clips (no clip or analysis fields), each gives exactly what the same call
 * with those fields by hand gives (the same points, the same clip bit for bit, the same
 * quality). Without them the plan refuses (nothing to plan on). */
Test(transition, prepared_clips_stand_for_a_and_b)
{
    mb_test_clip a = mb_test_clip_load("cmu_09_01_run.bvh"), b = mb_test_clip_load("cmu_02_01_walk.bvh");
    mb_prepared_clip *p[2];
    mb_test_prepare_pair(&a, "run", &b, "walk", p);
    mb_error e;
    const mb_motion_info *ia = &mb_prepared_clip_info(p[0])->motion, *ib = &mb_prepared_clip_info(p[1])->motion;
    mb_transition_plan_desc hand = {0}, prep = {0};
    hand.skeleton_a = a.s;
    hand.skeleton_b = b.s;
    hand.a = a.c;
    hand.b = b.c;
    hand.info_a = ia;
    hand.info_b = ib;
    hand.at_auto = prep.at_auto = 1;
    hand.b_auto = prep.b_auto = 1;
    hand.duration = prep.duration = 0.5;
    prep.prepared_a = p[0];
    prep.prepared_b = p[1];
    mb_transition_plan ph, pp;
    cr_assert_eq(mb_transition_plan_find(&hand, &ph, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_transition_plan_find(&prep, &pp, &e), MB_OK, "%s", e.text);
    cr_assert(ph.a_frame == pp.a_frame && ph.b_frame == pp.b_frame && ph.cost == pp.cost);
    mb_transition_plan_desc none = prep;
    none.prepared_a = NULL;
    cr_assert_eq(mb_transition_plan_find(&none, &pp, &e), MB_INVALID_ARG);

    mb_transition_build_desc bh = {0};
    bh.skeleton = a.s;
    bh.a = a.c;
    bh.b = b.c;
    bh.info_a = ia;
    bh.info_b = ib;
    bh.at = ph.at;
    bh.b_start = ph.b_start;
    bh.transition.duration = 0.5f;
    mb_transition_build_desc bp = bh;
    bp.a = bp.b = NULL;
    bp.info_a = bp.info_b = NULL;
    bp.prepared_a = p[0];
    bp.prepared_b = p[1];
    mb_clip *oh, *op;
    mb_transition_result rh, rp;
    cr_assert_eq(mb_transition_build(&bh, &oh, &rh, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_transition_build(&bp, &op, &rp, &e), MB_OK, "%s", e.text);
    int nf = mb_clip_frame_count(oh), nj = mb_clip_joint_count(oh);
    cr_assert_eq(nf, mb_clip_frame_count(op));
    cr_assert(memcmp(mb_clip_rotations(oh), mb_clip_rotations(op), (size_t)nf * nj * 16) == 0);

    mb_transition_measure_desc mh = {0};
    mh.skeleton = a.s;
    mh.a = a.c;
    mh.b = b.c;
    mh.out = oh;
    mh.info_a = ia;
    mh.info_b = ib;
    mh.result = &rh;
    mh.at = ph.at;
    mh.duration = 0.5;
    mb_transition_measure_desc mp = mh;
    mp.a = mp.b = NULL;
    mp.info_a = mp.info_b = NULL;
    mp.prepared_a = p[0];
    mp.prepared_b = p[1];
    mb_transition_quality qh, qp;
    cr_assert_eq(mb_transition_measure(&mh, &qh, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_transition_measure(&mp, &qp, &e), MB_OK, "%s", e.text);
    cr_assert(qh.root_step_ratio == qp.root_step_ratio && qh.angular_ratio == qp.angular_ratio &&
              qh.skate_ratio == qp.skate_ratio);
    mb_clip_destroy(oh);
    mb_clip_destroy(op);
    mb_prepared_clip_destroy(p[0]);
    mb_prepared_clip_destroy(p[1]);
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
}
