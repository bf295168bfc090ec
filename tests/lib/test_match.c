/* Transition-point search: the BLAS all-pairs costs against a brute-force search over the
 * rotation angle computed here, the reported alignment carrying B onto A, a rotated and
 * moved copy found at zero cost, sgemm against dgemm, errors (the CLI: tests/cli). */
#include <errno.h>
#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mblend/mblend.h"
#include "test_clip_file.h"
#include "test_util.h"

#undef M_PI
#define M_PI 3.14159265358979323846


/* World position of joint j at time t by FK of the two nearest frames, lerped. */
static void pos_at(const mb_skeleton *s, const mb_clip *c, int j, double t, double out[3])
{
    int n = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    double x = t / mb_clip_frame_time(c);
    int f = (int)floor(x);
    f = f < 0 ? 0 : (f > nf - 1 ? nf - 1 : f);
    double a = x - f;
    mb_xform *p = malloc(sizeof *p * n);
    float(*w)[16] = malloc(sizeof *w * n);
    double q[2][3];
    for (int k = 0; k < 2; ++k) {
        mb_pose pp = {p, n};
        int g = f + k < nf ? f + k : nf - 1;
        cr_assert_eq(mb_clip_frame_pose(s, c, g, pp), MB_OK);
        mb_fk(s, &pp, w, n);
        for (int i = 0; i < 3; ++i)
            q[k][i] = w[j][12 + i];
    }
    for (int i = 0; i < 3; ++i)
        out[i] = q[0][i] + a * (q[1][i] - q[0][i]);
    free(p);
    free(w);
}

/* A window cloud: S poses over `window` seconds from frame f, joints of the root's subtree. */
typedef struct cloud {
    int n;
    double (*p)[3];
} cloud;

static cloud make_cloud(const mb_test_clip *cf, int f, int S, double window)
{
    const mb_skeleton *s = cf->s;
    int nj = mb_skeleton_joint_count(s), root = cf->info.root;
    const int *par = mb_skeleton_parents(s);
    int *in = calloc((size_t)nj, sizeof *in), J = 0;
    in[root] = 1;
    for (int j = root + 1; j < nj; ++j)
        in[j] = par[j] >= 0 && in[par[j]];
    for (int j = 0; j < nj; ++j)
        J += in[j];
    cloud c;
    c.n = S * J;
    c.p = malloc(sizeof *c.p * (size_t)c.n);
    int k = 0;
    double ft = mb_clip_frame_time(cf->c);
    for (int i = 0; i < S; ++i)
        for (int j = 0; j < nj; ++j)
            if (in[j])
                pos_at(s, cf->c, j, f * ft + (S > 1 ? i * window / (S - 1) : 0.0), c.p[k++]);
    free(in);
    return c;
}

/* Mean squared distance after moving B by (theta about +Y, then translation t). */
static double aligned_msd(const cloud *a, const cloud *b, double th, double tx, double tz)
{
    double s = 0.0, c = cos(th), n = sin(th);
    for (int k = 0; k < a->n; ++k) {
        /* rotation about +Y: x' = c x + n z, z' = -n x + c z */
        double x = c * b->p[k][0] + n * b->p[k][2] + tx, z = -n * b->p[k][0] + c * b->p[k][2] + tz;
        double dx = a->p[k][0] - x, dy = a->p[k][1] - b->p[k][1], dz = a->p[k][2] - z;
        s += dx * dx + dy * dy + dz * dz;
    }
    return s / a->n;
}

/* Brute force: the best rotation on a 0.5 degree grid refined by golden-section search;
 * the translation for a rotation is the difference of the means (least squares). The
 * vertical offset is left alone (the search does not move B up or down), but heights are
 * measured from each clip's lowest foot point. */
static double brute_cost(const cloud *a, const cloud *b, double ga, double gb)
{
    cloud bb;
    bb.n = b->n;
    bb.p = malloc(sizeof *bb.p * (size_t)b->n);
    cloud aa;
    aa.n = a->n;
    aa.p = malloc(sizeof *aa.p * (size_t)a->n);
    double ma[3] = {0, 0, 0}, mb[3] = {0, 0, 0};
    for (int k = 0; k < a->n; ++k)
        for (int i = 0; i < 3; ++i) {
            aa.p[k][i] = a->p[k][i] - (i == 1 ? ga : 0.0);
            bb.p[k][i] = b->p[k][i] - (i == 1 ? gb : 0.0);
            ma[i] += aa.p[k][i] / a->n;
            mb[i] += bb.p[k][i] / b->n;
        }
    double best = 1e300, bt = 0.0;
    for (int g = 0; g < 720; ++g) {
        double th = g * M_PI / 360.0, c = cos(th), s = sin(th);
        double v = aligned_msd(&aa, &bb, th, ma[0] - (c * mb[0] + s * mb[2]), ma[2] - (-s * mb[0] + c * mb[2]));
        if (v < best) {
            best = v;
            bt = th;
        }
    }
    double lo = bt - M_PI / 360.0, hi = bt + M_PI / 360.0;
    for (int it = 0; it < 60; ++it) {
        double m1 = lo + (hi - lo) * 0.381966, m2 = hi - (hi - lo) * 0.381966;
        double v1 = aligned_msd(&aa, &bb, m1, ma[0] - (cos(m1) * mb[0] + sin(m1) * mb[2]),
                                ma[2] - (-sin(m1) * mb[0] + cos(m1) * mb[2]));
        double v2 = aligned_msd(&aa, &bb, m2, ma[0] - (cos(m2) * mb[0] + sin(m2) * mb[2]),
                                ma[2] - (-sin(m2) * mb[0] + cos(m2) * mb[2]));
        if (v1 < v2)
            hi = m2;
        else
            lo = m1;
    }
    double th = 0.5 * (lo + hi);
    best = fmin(best, aligned_msd(&aa, &bb, th, ma[0] - (cos(th) * mb[0] + sin(th) * mb[2]),
                                  ma[2] - (-sin(th) * mb[0] + cos(th) * mb[2])));
    free(aa.p);
    free(bb.p);
    return best;
}

static mb_match_desc base_desc(const mb_test_clip *a, const mb_test_clip *b)
{
    mb_match_desc d = {0};
    d.skeleton_a = a->s;
    d.skeleton_b = b->s;
    d.a = a->c;
    d.b = b->c;
    d.info_a = &a->info;
    d.info_b = &b->info;
    return d;
}

Test(match, agrees_with_brute_force_over_the_rotation)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_03_run.bvh"), b = mb_test_clip_load("cmu_02_01_walk.bvh");
    double fa = mb_clip_frame_time(a.c), fb = mb_clip_frame_time(b.c);
    int S = 4;
    double W = 0.1;
    int a0 = 60, b0 = 150; /* 12 x 32 pairs: a0..a0+11, b0..b0+31 */
    mb_match_desc d = base_desc(&a, &b);
    d.window = W;
    d.window_samples = S;
    d.a_from = a0 * fa;
    d.a_to = (a0 + 11) * fa;
    d.b_from = b0 * fb;
    d.b_to = (b0 + 31) * fb;
    d.min_separation = 1;
    mb_match_pair best[8];
    int found = 0;
    mb_match_stats st;
    mb_error e;
    cr_assert_eq(mb_match_find(&d, best, 8, &found, &st, &e), MB_OK, "%s", e.text);
    cr_assert_geq(found, 1);
    cr_assert_float_eq(st.pairs, 12.0 * 32.0, 0.0);
    cr_assert_leq(st.blas_seconds, st.total_seconds);
    /* brute force over all pairs */
    cloud ca[12], cb[32];
    for (int i = 0; i < 12; ++i)
        ca[i] = make_cloud(&a, a0 + i, S, W);
    for (int j = 0; j < 32; ++j)
        cb[j] = make_cloud(&b, b0 + j, S, W);
    double bmin = 1e300;
    int ba = -1, bb = -1;
    static double cost[12][32];
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 32; ++j) {
            cost[i][j] = brute_cost(&ca[i], &cb[j], a.info.ground, b.info.ground);
            if (cost[i][j] < bmin) {
                bmin = cost[i][j];
                ba = a0 + i;
                bb = b0 + j;
            }
        }
    cr_log_info("best pair %d,%d cost %g (brute force %d,%d cost %g)", best[0].a, best[0].b, best[0].cost, ba, bb,
                sqrt(bmin));
    cr_assert_eq(best[0].a, ba);
    cr_assert_eq(best[0].b, bb);
    cr_assert_float_eq(best[0].cost, sqrt(bmin), 1e-4 * sqrt(bmin));
    /* every reported pair carries the brute-force cost of its frames */
    for (int k = 0; k < found; ++k) {
        double c = sqrt(cost[best[k].a - a0][best[k].b - b0]);
        cr_assert_float_eq(best[k].cost, c, 1e-4 * c + 1e-6, "pair %d", k);
        if (k > 0)
            cr_assert_geq(best[k].cost, best[k - 1].cost);
    }
    for (int i = 0; i < 12; ++i)
        free(ca[i].p);
    for (int j = 0; j < 32; ++j)
        free(cb[j].p);
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
}

/* The reported (theta, dx, dz) carries B's window onto A's with the reported cost. */
Test(match, reported_alignment_carries_b_onto_a)
{
    mb_test_clip a = mb_test_clip_load("cmu_09_01_run.bvh"), b = mb_test_clip_load("cmu_09_12_walk_navigate_long.bvh");
    mb_match_desc d = base_desc(&a, &b);
    d.window = 0.2;
    d.window_samples = 5;
    mb_match_pair p[3];
    int found = 0;
    mb_error e;
    cr_assert_eq(mb_match_find(&d, p, 3, &found, NULL, &e), MB_OK, "%s", e.text);
    cr_assert_eq(found, 3);
    for (int k = 0; k < found; ++k) {
        cloud ca = make_cloud(&a, p[k].a, 5, 0.2), cb = make_cloud(&b, p[k].b, 5, 0.2);
        /* heights from each clip's ground, as the search measures them */
        for (int i = 0; i < ca.n; ++i) {
            ca.p[i][1] -= a.info.ground;
            cb.p[i][1] -= b.info.ground;
        }
        /* theta turns u (Z for Y up) towards v (X): about +Y that is x' = c x + s z */
        double msd = aligned_msd(&ca, &cb, p[k].theta, p[k].dx, p[k].dz);
        cr_assert_float_eq(sqrt(msd), p[k].cost, 1e-3 * p[k].cost + 1e-4, "pair %d: %g vs %g", k, sqrt(msd), p[k].cost);
        free(ca.p);
        free(cb.p);
        /* pairs keep their distance */
        for (int q = 0; q < k; ++q)
            cr_assert(abs(p[q].a - p[k].a) >= 12 || abs(p[q].b - p[k].b) >= 12);
    }
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
}

/* B = A turned by 90 degrees about up and moved: every frame finds itself at zero cost. */
Test(match, finds_a_turned_and_moved_copy)
{
    mb_test_clip a = mb_test_clip_load("bandai2_walk_normal_001.bvh");
    int n = mb_skeleton_joint_count(a.s), nf = mb_clip_frame_count(a.c), root = a.info.root;
    cr_assert_eq(mb_skeleton_parents(a.s)[root], 0, "Bandai: the root sits under a static dummy");
    /* turn and move the dummy (joint 0), so the whole body turns about the origin */
    int nt = mb_clip_translation_count(a.c), slot0 = mb_clip_translation_slot(a.c, 0);
    cr_assert_geq(slot0, 0, "Bandai: the dummy has position channels");
    float *rot = malloc(sizeof(float) * 4 * (size_t)n * nf), *tr = malloc(sizeof(float) * 3 * (size_t)nt * nf);
    memcpy(rot, mb_clip_rotations(a.c), sizeof(float) * 4 * (size_t)n * nf);
    memcpy(tr, mb_clip_translations(a.c), sizeof(float) * 3 * (size_t)nt * nf);
    double h = 0.5 * (M_PI / 2);
    float yq[4] = {0.0f, (float)sin(h), 0.0f, (float)cos(h)};
    for (int f = 0; f < nf; ++f) {
        float *q = rot + 4 * (size_t)f * n, *t = tr + 3 * ((size_t)f * nt + slot0);
        float r[4] = {yq[3] * q[0] + yq[0] * q[3] + yq[1] * q[2] - yq[2] * q[1],
                      yq[3] * q[1] - yq[0] * q[2] + yq[1] * q[3] + yq[2] * q[0],
                      yq[3] * q[2] + yq[0] * q[1] - yq[1] * q[0] + yq[2] * q[3],
                      yq[3] * q[3] - yq[0] * q[0] - yq[1] * q[1] - yq[2] * q[2]};
        memcpy(q, r, sizeof r);
        t[0] += 300.0f;
        t[2] -= 200.0f;
    }
    mb_clip_desc cd = {0};
    cd.joint_count = n;
    cd.frame_count = nf;
    cd.frame_time = mb_clip_frame_time(a.c);
    cd.rotations = rot;
    cd.translation_joints = mb_clip_translation_joints(a.c);
    cd.translation_count = nt;
    cd.translations = tr;
    mb_test_clip b = {a.s, NULL, a.info};
    cr_assert_eq(mb_clip_create(&cd, &b.c, NULL), MB_OK);
    mb_match_desc d = base_desc(&a, &b);
    d.info_b = NULL; /* analysed: same ground */
    mb_match_pair p[4];
    int found = 0;
    mb_error e;
    cr_assert_eq(mb_match_find(&d, p, 4, &found, NULL, &e), MB_OK, "%s", e.text);
    cr_assert_eq(found, 4);
    for (int k = 0; k < found; ++k) {
        cr_assert_eq(p[k].a, p[k].b, "pair %d: %d vs %d", k, p[k].a, p[k].b);
        cr_assert_lt(p[k].cost, 1e-2, "pair %d cost %g", k, p[k].cost);
        /* B was turned by +90 degrees: carrying it back is -90 degrees */
        cr_assert_float_eq(p[k].theta, -M_PI / 2, 1e-3, "theta %g", p[k].theta);
    }
    mb_clip_destroy(b.c);
    free(rot);
    free(tr);
    mb_test_clip_unload(&a);
}

Test(match, sgemm_and_dgemm_agree)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_03_run.bvh"), b = mb_test_clip_load("cmu_02_02_walk.bvh");
    mb_match_desc d = base_desc(&a, &b);
    mb_match_pair ps[5], pd[5];
    int ns = 0, nd = 0;
    mb_error e;
    cr_assert_eq(mb_match_find(&d, ps, 5, &ns, NULL, &e), MB_OK, "%s", e.text);
    d.use_double = 1;
    cr_assert_eq(mb_match_find(&d, pd, 5, &nd, NULL, &e), MB_OK, "%s", e.text);
    cr_assert_eq(ns, nd);
    for (int k = 0; k < ns; ++k) {
        cr_assert_eq(ps[k].a, pd[k].a, "pair %d", k);
        cr_assert_eq(ps[k].b, pd[k].b, "pair %d", k);
        cr_assert_float_eq(ps[k].cost, pd[k].cost, 1e-5 * pd[k].cost);
    }
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
}

Test(match, rejects_bad_arguments)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_03_run.bvh"), b = mb_test_clip_load("cmu_02_01_walk.bvh"), z = mb_test_clip_load("bandai2_walk_normal_001.bvh");
    mb_match_desc d = base_desc(&a, &b);
    mb_match_pair p[2];
    int found = 7;
    mb_error e;
    cr_assert_eq(mb_match_find(NULL, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    cr_assert_eq(found, 0);
    cr_assert_eq(mb_match_find(&d, p, 0, &found, NULL, &e), MB_INVALID_ARG);
    cr_assert_eq(mb_match_find(&d, NULL, 2, &found, NULL, &e), MB_INVALID_ARG);
    d.window = 5.0; /* longer than A */
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "room"), "%s", e.text);
    d.window = 0.0;
    d.a_from = -1.0;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    /* far past the clip's end (more frames than an int holds): no room, not the whole clip */
    d.a_from = 1e10;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    d.a_from = 1e300;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    d.a_from = 0.0;
    d.window_samples = 1000;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    /* NaN and negative values are errors, not requests for the defaults */
    d.window_samples = -3;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    d.window_samples = 0;
    d.window = NAN;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    d.window = -1.0;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    d.window = 0.0;
    /* a cached analysis that does not fit the clip */
    mb_motion_info stale = a.info;
    stale.left_foot = 10000;
    d.info_a = &stale;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "does not fit"), "%s", e.text);
    d.info_a = &a.info;
    d = base_desc(&a, &z);
    d.info_b = NULL;
    cr_assert_eq(mb_match_find(&d, p, 2, &found, NULL, &e), MB_MISMATCH);
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
    mb_test_clip_unload(&z);
}

/* Prepared clips stand for the sides of a match desc: a search given only prepared A and B
 * (no skeleton, clip or analysis fields) finds exactly the pairs of the search given those
 * fields by hand; a prepared A whose clip differs from the desc's wins. */
Test(match, prepared_clips_stand_for_the_sides)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_01_walk.bvh"), b = mb_test_clip_load("cmu_02_02_walk.bvh");
    mb_prepared_clip *p[2];
    mb_test_prepare_pair(&a, "a", &b, "b", p);
    mb_error e;
    mb_match_desc by_hand = base_desc(&a, &b);
    by_hand.info_a = &mb_prepared_clip_info(p[0])->motion;
    by_hand.info_b = &mb_prepared_clip_info(p[1])->motion;
    mb_match_desc prepared = {0};
    prepared.prepared_a = p[0];
    prepared.prepared_b = p[1];
    mb_match_pair want[6], got[6];
    int nw = 0, ng = 0;
    cr_assert_eq(mb_match_find(&by_hand, want, 6, &nw, NULL, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_match_find(&prepared, got, 6, &ng, NULL, &e), MB_OK, "%s", e.text);
    cr_assert(nw > 0 && nw == ng);
    for (int i = 0; i < nw; ++i)
        cr_assert(want[i].a == got[i].a && want[i].b == got[i].b && want[i].cost == got[i].cost &&
                      want[i].theta == got[i].theta,
                  "pair %d: (%d, %d) by hand, (%d, %d) prepared", i, want[i].a, want[i].b, got[i].a,
                  got[i].b);
    /* the prepared side wins over the desc's own fields: A searched against itself */
    prepared.a = b.c;
    prepared.prepared_b = p[0];
    cr_assert_eq(mb_match_find(&prepared, got, 1, &ng, NULL, &e), MB_OK, "%s", e.text);
    cr_assert(ng == 1 && got[0].a == got[0].b && got[0].cost < 1e-3f, "%d %d %g", got[0].a, got[0].b,
              (double)got[0].cost);
    mb_prepared_clip_destroy(p[0]);
    mb_prepared_clip_destroy(p[1]);
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
}
