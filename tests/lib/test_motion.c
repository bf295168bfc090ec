/* Sampling, motion analysis, gait cycles and the phase-aligned clip blend on real clips. */
#include <float.h>
#include <math.h>

#include "mblend/mblend.h"
#include "runtime/anim/sample_internal.h"
#include "test_clip_file.h"
#include "test_util.h"


/* World position of joint j at one frame of a clip. */
static void world_pos(const mb_skeleton *s, const mb_clip *c, int frame, int j, double out[3])
{
    int n = mb_skeleton_joint_count(s);
    mb_xform *x = malloc(sizeof *x * (size_t)n);
    float(*w)[16] = malloc(sizeof *w * (size_t)n);
    mb_pose p = {x, n};
    cr_assert_eq(mb_clip_frame_pose(s, c, frame, p), MB_OK);
    cr_assert_eq(mb_fk(s, &p, w, n), MB_OK);
    for (int k = 0; k < 3; ++k)
        out[k] = w[j][12 + k];
    free(x);
    free(w);
}

/* ---------- sampling ---------- */

Test(sample, frames_interpolation_and_wrap)
{
    mb_test_clip f = mb_test_clip_load("cmu_02_03_run.bvh");
    int n = mb_skeleton_joint_count(f.s), nf = mb_clip_frame_count(f.c);
    double ft = mb_clip_frame_time(f.c);
    mb_xform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n), *m = malloc(sizeof *m * n);
    mb_pose pa = {a, n}, pb = {b, n}, pm = {m, n};
    /* exact frame times give the frames */
    cr_assert_eq(mb_clip_frame_pose(f.s, f.c, 10, pa), MB_OK);
    cr_assert_eq(mb_clip_sample(f.s, f.c, 10 * ft, MB_WRAP_CLAMP, pm), MB_OK);
    for (int j = 0; j < n; ++j)
        cr_assert(mb_quat_angle_between(a[j].rot, m[j].rot) < 1e-6);
    /* halfway: the midpoint of the two frames' rotations (equal angle to both) */
    cr_assert_eq(mb_clip_frame_pose(f.s, f.c, 11, pb), MB_OK);
    cr_assert_eq(mb_clip_sample(f.s, f.c, 10.5 * ft, MB_WRAP_CLAMP, pm), MB_OK);
    for (int j = 0; j < n; ++j) {
        double da = mb_quat_angle_between(a[j].rot, m[j].rot);
        double db = mb_quat_angle_between(b[j].rot, m[j].rot);
        double ab = mb_quat_angle_between(a[j].rot, b[j].rot);
        cr_assert(fabs(da - db) < 1e-5 && fabs(da + db - ab) < 1e-5, "joint %d", j);
        for (int k = 0; k < 3; ++k)
            cr_assert_float_eq(m[j].pos[k], 0.5f * (a[j].pos[k] + b[j].pos[k]), 1e-4f);
    }
    /* clamp past the end gives the last frame; loop wraps by the clip length */
    cr_assert_eq(mb_clip_frame_pose(f.s, f.c, nf - 1, pa), MB_OK);
    cr_assert_eq(mb_clip_sample(f.s, f.c, 1e6, MB_WRAP_CLAMP, pm), MB_OK);
    cr_assert(memcmp(a, m, sizeof *a * n) == 0);
    cr_assert_eq(mb_clip_frame_pose(f.s, f.c, 3, pa), MB_OK);
    cr_assert_eq(mb_clip_sample(f.s, f.c, (3 + 2 * nf) * ft, MB_WRAP_LOOP, pm), MB_OK);
    for (int j = 0; j < n; ++j)
        cr_assert(mb_quat_angle_between(a[j].rot, m[j].rot) < 1e-5);
    cr_assert_eq(mb_clip_sample(f.s, f.c, NAN, MB_WRAP_CLAMP, pm), MB_INVALID_ARG);
    mb_pose short_pose = {m, n - 1};
    cr_assert_eq(mb_clip_sample(f.s, f.c, 0.0, MB_WRAP_CLAMP, short_pose), MB_TOO_SMALL);
    free(a);
    free(b);
    free(m);
    mb_test_clip_unload(&f);
}

/* ---------- analysis ---------- */

Test(analyze, real_files)
{
    mb_test_clip cmu = mb_test_clip_load("cmu_02_01_walk.bvh");
    cr_assert_eq(cmu.info.up_axis, MB_AXIS_Y);
    cr_assert_eq(cmu.info.first_frame, 1, "cgspeed T-pose frame 0 not detected");
    cr_assert_str_eq(mb_skeleton_name(cmu.s, cmu.info.left_foot), "LeftFoot");
    cr_assert_str_eq(mb_skeleton_name(cmu.s, cmu.info.right_foot), "RightFoot");
    mb_test_clip_unload(&cmu);

    mb_test_clip bandai = mb_test_clip_load("bandai2_walk_normal_001.bvh");
    cr_assert_eq(bandai.info.up_axis, MB_AXIS_Y);
    cr_assert_str_eq(mb_skeleton_name(bandai.s, bandai.info.root), "Hips",
                     "the static joint_Root dummy is not the moving root");
    cr_assert_eq(bandai.info.first_frame, 0);
    cr_assert_str_eq(mb_skeleton_name(bandai.s, bandai.info.left_foot), "Foot_L");
    /* a person of about 1.4 to 1.8 m, in cm */
    cr_assert(bandai.info.height > 120 && bandai.info.height < 185, "height %g", bandai.info.height);
    mb_test_clip_unload(&bandai);

    mb_test_clip zup = mb_test_clip_load("animdraw_fair1_dab_zup.bvh");
    cr_assert_eq(zup.info.up_axis, MB_AXIS_Z);
    mb_test_clip_unload(&zup);

    mb_test_clip pymo = mb_test_clip_load("pymo_walk_rootoffset_xyz.bvh");
    cr_assert_eq(pymo.info.first_frame, 0);
    cr_assert(fabs(pymo.info.ground) < 5.0, "feet land on y~0 (REPLACE semantics), got %g",
              pymo.info.ground);
    mb_test_clip_unload(&pymo);
}

Test(analyze, given_feet_and_errors)
{
    mb_test_clip f = mb_test_clip_load("cmu_02_03_run.bvh");
    mb_analyze_desc d = {0};
    d.left_foot = "LeftToeBase";
    d.right_foot = "RightToeBase";
    mb_motion_info mi;
    mb_error e;
    cr_assert_eq(mb_motion_analyze(f.s, f.c, &d, "run", &mi, &e), MB_OK);
    cr_assert_str_eq(mb_skeleton_name(f.s, mi.left_foot), "LeftToeBase");
    d.left_foot = "NoSuchJoint";
    /* a failed analysis leaves the output as it was (the name is looked up late) */
    mb_motion_info keep = mi;
    cr_assert_eq(mb_motion_analyze(f.s, f.c, &d, "run", &mi, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "NoSuchJoint"), "%s", e.text);
    cr_assert(memcmp(&keep, &mi, sizeof mi) == 0, "the output changed on failure");
    d.left_foot = NULL;
    d.up_axis = MB_AXIS_Z;
    cr_assert_eq(mb_motion_analyze(f.s, f.c, &d, "run", &mi, &e), MB_OK);
    cr_assert_eq(mi.up_axis, MB_AXIS_Z);
    /* one joint for both feet is refused, not replaced by detected ones */
    d.left_foot = d.right_foot = "LeftToeBase";
    keep = mi;
    cr_assert_eq(mb_motion_analyze(f.s, f.c, &d, "run", &mi, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "same joint 'LeftToeBase'"), "%s", e.text);
    cr_assert(memcmp(&keep, &mi, sizeof mi) == 0, "the output changed on failure");
    mb_test_clip_unload(&f);
}

/* A cgspeed take resampled to 30 fps keeps its glued T-pose frame 0, but its frame-to-frame
 * step grows to a tenth of the jump to it: frame 0 must still be found (it is far from
 * every motion frame), or the step out of it reads as a foot in the air and the gait
 * cycle starts at a false touchdown (half a cycle, 2:19, for the right foot). */
Test(analyze, tpose_frame_found_at_30_fps)
{
    mb_test_clip f = mb_test_clip_load("cmu_02_01_walk.bvh");
    int nj = mb_skeleton_joint_count(f.s), nf = mb_clip_frame_count(f.c);
    int n = 1 + (nf - 1) / 4; /* frames 0, 4, 8, ... */
    float *rot = malloc(sizeof *rot * 4 * (size_t)n * nj), *tr = malloc(sizeof *tr * 3 * (size_t)n * nj);
    cr_assert(rot && tr);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < nj; ++j) {
            memcpy(&rot[4 * ((size_t)i * nj + j)], mb_clip_rotations(f.c) + 4 * ((size_t)4 * i * nj + j),
                   4 * sizeof *rot);
            memcpy(&tr[3 * ((size_t)i * nj + j)], mb_clip_joint_translation(f.s, f.c, 4 * i, j),
                   3 * sizeof *tr);
        }
    mb_clip *c30;
    cr_assert_eq(mb_test_clip_full(f.s, n, 4 * mb_clip_frame_time(f.c), rot, tr, &c30), MB_OK);
    mb_motion_info mi;
    mb_error e;
    cr_assert_eq(mb_motion_analyze(f.s, c30, NULL, "walk30", &mi, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mi.first_frame, 1);
    for (int foot = 0; foot < 2; ++foot) {
        mb_frame_range r;
        cr_assert_eq(mb_motion_find_cycle(f.s, c30, &mi, foot, "walk30", &r, &e), MB_OK, "%s", e.text);
        double len = (r.end - r.start) * mb_clip_frame_time(c30);
        cr_assert(fabs(len - 1.1) < 0.1, "foot %d: cycle %d:%d (%.3f s), the 120 fps take's is 1.1 s",
                  foot, r.start, r.end, len);
    }
    /* and the real first frames of the other takes are not taken for T-poses */
    static const char *const plain[] = {"bandai2_run_normal_002.bvh", "bandai2_walk_normal_002.bvh",
                                        "cmu_131_01_mixedorder_mixedeol.bvh", "pymo_walk_rootoffset_xyz.bvh"};
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; ++k) {
        mb_test_clip g = mb_test_clip_load(plain[k]);
        cr_assert_eq(g.info.first_frame, 0, "%s", plain[k]);
        mb_test_clip_unload(&g);
    }
    mb_clip_destroy(c30);
    free(rot);
    free(tr);
    mb_test_clip_unload(&f);
}

/* Feet found as the lowest End Sites must lie below the root: a figure whose only End Sites
 * are a leg's and the head's has no pair of feet (the head was once taken for one). */
Test(analyze, end_site_feet_lie_below_the_root)
{
    static const char text[] =
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 100 0\n CHANNELS 6 Xposition Yposition Zposition "
        "Zrotation Xrotation Yrotation\n JOINT Leg\n {\n  OFFSET 10 0 0\n  CHANNELS 3 Zrotation "
        "Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 -90 0\n  }\n }\n JOINT Neck\n {\n"
        "  OFFSET 0 50 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n   "
        "OFFSET 0 20 0\n  }\n }\n}\nMOTION\nFrames: 3\nFrame Time: 0.033333\n"
        "0 100 0 0 0 0 0 0 0 0 0 0\n5 100 0 0 0 0 10 0 0 0 0 0\n10 100 0 0 0 0 0 0 0 0 0 0\n";
    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    cr_assert_eq(mb_bvh_read_mem(text, sizeof text - 1, "two_ends", NULL, &s, &c, NULL), MB_OK);
    mb_motion_info mi;
    mb_error e;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "two_ends", &mi, &e), MB_OK, "%s", e.text);
    cr_assert(mi.left_foot < 0 && mi.right_foot < 0, "feet %d %d", mi.left_foot, mi.right_foot);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

/* ---------- cycles ---------- */

/* Expected cycle durations: walks about 1 s, runs about 0.7 s. */
typedef struct cycle_case { /* the name in the case: Criterion copies the cases */
    char file[40];
    double lo, hi;
} cycle_case;

ParameterizedTestParameters(cycle, found_on_walks_and_runs)
{
    static cycle_case cases[] = {{"cmu_02_01_walk.bvh", 0.9, 1.3},   {"cmu_02_03_run.bvh", 0.6, 0.9},
                                 {"bandai2_walk_normal_001.bvh", 0.9, 1.3}, {"bandai2_run_normal_001.bvh", 0.6, 0.9},
                                 {"bandai2_run_normal_002.bvh", 0.6, 0.9},  {"pymo_walk_rootoffset_xyz.bvh", 0.8, 1.3}};
    return cr_make_param_array(cycle_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(cycle_case *cc, cycle, found_on_walks_and_runs)
{
    mb_test_clip f = mb_test_clip_load(cc->file);
    mb_frame_range r;
    mb_error e;
    cr_assert_eq(mb_motion_find_cycle(f.s, f.c, &f.info, 0, cc->file, &r, &e), MB_OK, "%s: %s",
                 cc->file, e.text);
    double T = (r.end - r.start) * mb_clip_frame_time(f.c);
    cr_assert(T > cc->lo && T < cc->hi, "%s: cycle %d:%d lasts %g s", cc->file, r.start, r.end, T);
    /* it starts at a left touchdown: the left foot is planted there, and the left
     * foot is at about the same place relative to the root one cycle later */
    unsigned char *lc = malloc((size_t)mb_clip_frame_count(f.c));
    cr_assert_eq(mb_motion_contacts(f.s, f.c, &f.info, lc, NULL, NULL), MB_OK);
    cr_assert(lc[r.start] && !lc[r.start - 1], "%s: no touchdown at %d", cc->file, r.start);
    free(lc);
    mb_test_clip_unload(&f);
}

Test(cycle, short_take_reports_clearly)
{
    mb_test_clip f = mb_test_clip_load("cmu_09_01_run.bvh"); /* 1.2 s: less than two left touchdowns */
    mb_frame_range r;
    mb_error e;
    mb_status st = mb_motion_find_cycle(f.s, f.c, &f.info, 0, "cmu_09_01_run.bvh", &r, &e);
    cr_assert_eq(st, MB_MISMATCH);
    cr_assert(strstr(e.text, "LeftFoot") && strstr(e.text, "touches down 1 time") && strstr(e.text, "cycle's frames"), "%s", e.text);
    /* the right foot has a full cycle */
    cr_assert_eq(mb_motion_find_cycle(f.s, f.c, &f.info, 1, "cmu_09_01_run.bvh", &r, &e), MB_OK, "%s", e.text);
    mb_test_clip_unload(&f);
}

/* ---------- the clip blend ---------- */

typedef struct blend_setup {
    mb_test_clip a, b;
    mb_frame_range ra, rb;
} blend_setup;

static blend_setup setup_pair(const char *fa, const char *fb)
{
    blend_setup s;
    mb_error e;
    s.a = mb_test_clip_load(fa);
    s.b = mb_test_clip_load(fb);
    cr_assert_eq(mb_motion_find_cycle(s.a.s, s.a.c, &s.a.info, 0, fa, &s.ra, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_motion_find_cycle(s.b.s, s.b.c, &s.b.info, 0, fb, &s.rb, &e), MB_OK, "%s", e.text);
    return s;
}

static mb_clip *blend_pair(blend_setup *s, float wa, float wb)
{
    mb_clip_input in[2] = {{s->a.s, s->a.c, "a", s->ra, wa, &s->a.info},
                           {s->b.s, s->b.c, "b", s->rb, wb, &s->b.info}};
    mb_clip_blend_desc d = {0};
    d.inputs = in;
    d.input_count = 2;
    d.cyclic = 1;
    mb_clip *out = NULL;
    mb_error e;
    cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_OK, "%s", e.text);
    return out;
}

/* Horizontal distance the root travels over a clip's frames [f0, f1]. */
static double root_travel(const mb_skeleton *s, const mb_clip *c, int root, int up, int f0, int f1)
{
    double a[3], b[3];
    world_pos(s, c, f0, root, a);
    world_pos(s, c, f1, root, b);
    double d2 = 0;
    for (int k = 0; k < 3; ++k)
        if (k != up)
            d2 += (b[k] - a[k]) * (b[k] - a[k]);
    return sqrt(d2);
}

Test(clip_blend, weight_one_reproduces_the_input_cycle)
{
    blend_setup s = setup_pair("cmu_02_01_walk.bvh", "cmu_02_03_run.bvh");
    mb_clip *out = blend_pair(&s, 1.0f, 0.0f);
    int len = s.ra.end - s.ra.start;
    cr_assert_eq(mb_clip_frame_count(out), len);
    int n = mb_skeleton_joint_count(s.a.s), root = s.a.info.root;
    const float *ro = mb_clip_rotations(out), *ri = mb_clip_rotations(s.a.c);
    double worst = 0;
    for (int k = 0; k < len; ++k)
        for (int j = 0; j < n; ++j) {
            if (j == root)
                continue;
            double e = mb_quat_angle_between(ro + 4 * ((size_t)k * n + j),
                                             ri + 4 * ((size_t)(s.ra.start + k) * n + j));
            worst = e > worst ? e : worst;
        }
    cr_assert(worst < 1e-5, "non-root joints differ by %g rad", worst);
    /* the root travels the same distance over the cycle */
    double din = root_travel(s.a.s, s.a.c, root, 1, s.ra.start, s.ra.end - 1);
    double dout = root_travel(s.a.s, out, root, 1, 0, len - 1);
    cr_assert(fabs(din - dout) < 1e-3 * din + 1e-3, "travel %g vs %g", din, dout);
    mb_clip_destroy(out);
    mb_test_clip_unload(&s.a);
    mb_test_clip_unload(&s.b);
}

Test(clip_blend, half_and_half_is_between_in_speed_and_length)
{
    const char *sets[][2] = {{"cmu_02_01_walk.bvh", "cmu_02_03_run.bvh"},
                             {"bandai2_walk_normal_001.bvh", "bandai2_run_normal_001.bvh"}};
    for (int si = 0; si < 2; ++si) {
        blend_setup s = setup_pair(sets[si][0], sets[si][1]);
        double fta = mb_clip_frame_time(s.a.c), ftb = mb_clip_frame_time(s.b.c);
        double Ta = (s.ra.end - s.ra.start) * fta, Tb = (s.rb.end - s.rb.start) * ftb;
        mb_clip *out = blend_pair(&s, 0.5f, 0.5f);
        double T = mb_clip_frame_count(out) * mb_clip_frame_time(out);
        cr_assert(fabs(T - 0.5 * (Ta + Tb)) <= mb_clip_frame_time(out), "%s: cycle %g s, inputs %g and %g",
                  sets[si][0], T, Ta, Tb);
        int root = s.a.info.root, up = mb_axis_index(s.a.info.up_axis);
        double va = root_travel(s.a.s, s.a.c, root, up, s.ra.start, s.ra.end) / Ta;
        double vb = root_travel(s.b.s, s.b.c, root, up, s.rb.start, s.rb.end) / Tb;
        int nf = mb_clip_frame_count(out);
        double v = root_travel(s.a.s, out, root, up, 0, nf - 1) / ((nf - 1) * mb_clip_frame_time(out));
        /* blended distance per blended cycle time: (d_a + d_b) / (T_a + T_b) */
        double expect = (va * Ta + vb * Tb) / (Ta + Tb);
        cr_assert(v > fmin(va, vb) && v < fmax(va, vb), "%s: speed %g not between %g and %g",
                  sets[si][0], v, va, vb);
        cr_assert(fabs(v - expect) < 0.05 * expect, "%s: speed %g, expected about %g", sets[si][0], v, expect);
        mb_clip_destroy(out);
        mb_test_clip_unload(&s.a);
        mb_test_clip_unload(&s.b);
    }
}

/* The same takes turned to Z-up (the root's rotation and path turned 90 degrees about X, as
 * a Z-up exporter writes them) blend to the same motion, turned: the heading comes from the
 * hips, not from the root's twist about the up axis, which depends on how the root's axes
 * sit (it left the blend 0.02 units and 0.04 degrees off). */
static mb_clip *turned_to_z_up(const mb_test_clip *f)
{
    int nj = mb_skeleton_joint_count(f->s), nf = mb_clip_frame_count(f->c), root = f->info.root;
    const double qx[4] = {sqrt(0.5), 0, 0, sqrt(0.5)};
    float *rot = malloc(sizeof *rot * 4 * (size_t)nf * nj), *tr = malloc(sizeof *tr * 3 * (size_t)nf * nj);
    cr_assert(rot && tr);
    memcpy(rot, mb_clip_rotations(f->c), sizeof *rot * 4 * (size_t)nf * nj);
    for (int k = 0; k < nf; ++k)
        for (int j = 0; j < nj; ++j)
            memcpy(&tr[3 * ((size_t)k * nj + j)], mb_clip_joint_translation(f->s, f->c, k, j), 3 * sizeof *tr);
    for (int k = 0; k < nf; ++k) {
        float *q = &rot[4 * ((size_t)k * nj + root)], *t = &tr[3 * ((size_t)k * nj + root)];
        double r[4] = {qx[3] * q[0] + qx[0] * q[3], qx[3] * q[1] - qx[0] * q[2],
                       qx[3] * q[2] + qx[0] * q[1], qx[3] * q[3] - qx[0] * q[0]}; /* qx * q */
        double y = t[1], z = t[2];
        for (int c = 0; c < 4; ++c)
            q[c] = (float)r[c];
        t[1] = (float)-z; /* (x, y, z) -> (x, -z, y) */
        t[2] = (float)y;
    }
    mb_clip *out;
    cr_assert_eq(mb_test_clip_full(f->s, nf, mb_clip_frame_time(f->c), rot, tr, &out), MB_OK);
    free(rot);
    free(tr);
    return out;
}

Test(clip_blend, z_up_copy_blends_to_the_same_motion)
{
    blend_setup s = setup_pair("cmu_02_01_walk.bvh", "cmu_02_03_run.bvh");
    mb_clip *za = turned_to_z_up(&s.a), *zb = turned_to_z_up(&s.b);
    mb_motion_info ia, ib;
    mb_error e;
    cr_assert_eq(mb_motion_analyze(s.a.s, za, NULL, "za", &ia, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_motion_analyze(s.b.s, zb, NULL, "zb", &ib, &e), MB_OK, "%s", e.text);
    cr_assert_eq(ia.up_axis, MB_AXIS_Z);
    mb_clip *y = blend_pair(&s, 0.4f, 0.6f);
    mb_clip_input in[2] = {{s.a.s, za, "za", s.ra, 0.4f, &ia}, {s.b.s, zb, "zb", s.rb, 0.6f, &ib}};
    mb_clip_blend_desc d = {0};
    d.inputs = in;
    d.input_count = 2;
    d.cyclic = 1;
    mb_clip *z = NULL;
    cr_assert_eq(mb_clip_blend(&d, &z, &e), MB_OK, "%s", e.text);
    int nj = mb_skeleton_joint_count(s.a.s), nf = mb_clip_frame_count(y);
    cr_assert_eq(mb_clip_frame_count(z), nf);
    double worst = 0;
    for (int k = 0; k < nf; ++k)
        for (int j = 0; j < nj; ++j) {
            double a[3], b[3];
            world_pos(s.a.s, y, k, j, a);
            world_pos(s.a.s, z, k, j, b);
            double dx = a[0] - b[0], dy = -a[2] - b[1], dz = a[1] - b[2];
            double dd = sqrt(dx * dx + dy * dy + dz * dz);
            worst = dd > worst ? dd : worst;
        }
    cr_assert(worst < 1e-3, "the Z-up blend is %g units from the turned Y-up one", worst);
    mb_clip_destroy(y);
    mb_clip_destroy(z);
    mb_clip_destroy(za);
    mb_clip_destroy(zb);
    mb_test_clip_unload(&s.a);
    mb_test_clip_unload(&s.b);
}

Test(clip_blend, topology_mismatch_names_the_joint)
{
    mb_test_clip a = mb_test_clip_load("cmu_02_01_walk.bvh"), b = mb_test_clip_load("bandai2_run_normal_001.bvh");
    mb_clip_input in[2] = {{a.s, a.c, "walk.bvh", {1, 100}, 0.5f, &a.info},
                           {b.s, b.c, "run.bvh", {1, 20}, 0.5f, &b.info}};
    mb_clip_blend_desc d = {0};
    d.inputs = in;
    d.input_count = 2;
    d.cyclic = 1;
    mb_clip *out = (mb_clip *)1;
    mb_error e;
    cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_MISMATCH);
    cr_assert_null(out);
    cr_assert(strstr(e.text, "joint 0") && strstr(e.text, "Hips") && strstr(e.text, "joint_Root"), "%s", e.text);
    in[1] = (mb_clip_input){a.s, a.c, "walk.bvh", {300, 400}, 0.5f, &a.info};
    cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "300:400"), "%s", e.text);
    in[1].range = (mb_frame_range){1, 50};
    in[1].weight = -1.0f;
    cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_INVALID_ARG);
    in[1].weight = 0.5f;
    /* a frame time, up axis or analysis that does not fit is an error, not a default */
    const double bad_ft[] = {-1.0, NAN, INFINITY};
    for (int i = 0; i < 3; ++i) {
        d.frame_time = bad_ft[i];
        cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_INVALID_ARG, "frame time %g", bad_ft[i]);
    }
    d.frame_time = 0.0;
    d.up_axis = (mb_axis)7;
    cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_INVALID_ARG);
    d.up_axis = MB_AXIS_DETECT;
    mb_motion_info stale = a.info;
    stale.right_foot = mb_skeleton_joint_count(a.s);
    in[1].info = &stale;
    cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "does not fit"), "%s", e.text);
    cr_assert_null(out);
    mb_test_clip_unload(&a);
    mb_test_clip_unload(&b);
}

/* Looping time far past the clip: t / frame_time overflowed to infinity for a finite t
 * (then fmod gave NaN and the frame index read outside the clip); the time is wrapped
 * instead, so the pose is the one at t mod the loop's length. */
Test(sample, loop_time_far_past_the_clip)
{
    mb_test_clip f = mb_test_clip_load("cmu_02_03_run.bvh");
    int n = mb_skeleton_joint_count(f.s), nf = mb_clip_frame_count(f.c);
    double period = nf * mb_clip_frame_time(f.c);
    mb_xform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
    mb_pose pa = {a, n}, pb = {b, n};
    const double ts[] = {1.7e308, -1.7e308, 1e300, DBL_MAX};
    for (int i = 0; i < 4; ++i) {
        cr_assert_eq(mb_clip_sample(f.s, f.c, ts[i], MB_WRAP_LOOP, pa), MB_OK, "t %g", ts[i]);
        double u = fmod(ts[i], period);
        if (u < 0.0)
            u += period;
        cr_assert_eq(mb_clip_sample(f.s, f.c, u, MB_WRAP_LOOP, pb), MB_OK);
        for (int j = 0; j < n; ++j)
            cr_assert(mb_quat_angle_between(a[j].rot, b[j].rot) < 1e-5, "t %g joint %d", ts[i], j);
        cr_assert_eq(mb_clip_sample(f.s, f.c, ts[i], MB_WRAP_CLAMP, pa), MB_OK);
        cr_assert_eq(mb_clip_frame_pose(f.s, f.c, ts[i] > 0 ? nf - 1 : 0, pb), MB_OK);
        for (int j = 0; j < n; ++j)
            cr_assert(mb_quat_angle_between(a[j].rot, b[j].rot) < 1e-6, "clamp t %g joint %d", ts[i], j);
    }
    free(a);
    free(b);
    mb_test_clip_unload(&f);
}

/* A cached analysis is checked before its indices address anything; a clip too short for
 * a cycle says so (it used to be MB_INVALID_ARG with no message). */
Test(cycle, stale_analysis_and_one_frame_clip)
{
    mb_test_clip f = mb_test_clip_load("cmu_02_01_walk.bvh");
    mb_motion_info stale = f.info;
    stale.left_foot = 100000;
    unsigned char contact[4096];
    mb_frame_range r;
    mb_error e;
    cr_assert_eq(mb_motion_contacts(f.s, f.c, &stale, contact, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "does not fit"), "%s", e.text);
    cr_assert_str_eq(e.source, "contacts");
    cr_assert_eq(mb_motion_find_cycle(f.s, f.c, &stale, 0, "walk", &r, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "does not fit"), "%s", e.text);
    stale = f.info;
    stale.up_axis = MB_AXIS_DETECT; /* never an output */
    cr_assert_eq(mb_motion_contacts(f.s, f.c, &stale, contact, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "does not fit"), "%s", e.text);
    mb_test_clip_unload(&f);

    mb_test_clip one = mb_test_clip_load("cmu_like_rest_1frame.bvh");
    cr_assert_eq(mb_motion_find_cycle(one.s, one.c, &one.info, 0, "rest", &r, &e), MB_MISMATCH);
    cr_assert(strstr(e.text, "1 frame") && strstr(e.text, "two touchdowns"), "%s", e.text);
    mb_test_clip_unload(&one);
}

/* Sampling agrees with a textbook double-precision slerp for frames close together (the
 * libm-free series path) and far apart, on both sides of the switch between them. */
Test(sample, slerp_near_and_far)
{
    const double angles[] = {1e-6, 1e-3, 0.05, 0.19, 0.2, 0.21, 0.5, 2.0, 3.1};
    const int n = (int)(sizeof angles / sizeof angles[0]);
    mb_joint_desc jd = {0};
    jd.name = "j";
    jd.parent = -1;
    mb_skeleton_desc sd = {0};
    sd.joints = &jd;
    sd.joint_count = 1;
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
    for (int i = 0; i < n; ++i) {
        /* frame 0: a fixed tilt; frame 1: that tilt turned by angles[i] about an oblique axis */
        double ax[3] = {0.3, -0.8, 0.52}, len = sqrt(0.09 + 0.64 + 0.2704);
        float rot[8] = {0.1f, 0.2f, -0.3f, 0.927362f, 0, 0, 0, 0};
        double h = angles[i] / 2, d[4] = {sin(h) * ax[0] / len, sin(h) * ax[1] / len, sin(h) * ax[2] / len, cos(h)};
        double q0[4] = {rot[0], rot[1], rot[2], rot[3]}, q1[4];
        q1[0] = q0[3] * d[0] + q0[0] * d[3] + q0[1] * d[2] - q0[2] * d[1];
        q1[1] = q0[3] * d[1] - q0[0] * d[2] + q0[1] * d[3] + q0[2] * d[0];
        q1[2] = q0[3] * d[2] + q0[0] * d[1] - q0[1] * d[0] + q0[2] * d[3];
        q1[3] = q0[3] * d[3] - q0[0] * d[0] - q0[1] * d[1] - q0[2] * d[2];
        for (int k = 0; k < 4; ++k)
            rot[4 + k] = (float)q1[k];
        mb_clip_desc cd = {0};
        cd.joint_count = 1;
        cd.frame_count = 2;
        cd.frame_time = 0.1;
        cd.rotations = rot;
        mb_clip *c;
        cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
        const float *r = mb_clip_rotations(c); /* normalised as stored */
        for (int tk = 1; tk < 10; ++tk) {
            double t = tk / 10.0, dot = 0;
            for (int k = 0; k < 4; ++k)
                dot += (double)r[k] * r[4 + k];
            double sg = dot < 0 ? -1 : 1, th = acos(fmin(1.0, fabs(dot))), wa, wb;
            wa = th < 1e-9 ? 1 - t : sin((1 - t) * th) / sin(th);
            wb = th < 1e-9 ? t : sin(t * th) / sin(th);
            float expect[4];
            for (int k = 0; k < 4; ++k)
                expect[k] = (float)(wa * r[k] + sg * wb * r[4 + k]);
            mb_xform x;
            mb_pose p = {&x, 1};
            cr_assert_eq(mb_clip_sample(s, c, t * 0.1, MB_WRAP_CLAMP, p), MB_OK);
            double e = mb_quat_angle_between(x.rot, expect);
            cr_assert(e < 2e-6, "angle %g, t %g: %g rad from slerp", angles[i], t, e);
        }
        mb_clip_destroy(c);
    }
    mb_skeleton_destroy(s);
}

/* q * (rotation by ang about axis ax), in double. */
static void turn(const double q[4], const double ax[3], double ang, double out[4])
{
    double al = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]), h = ang / 2;
    double d[4] = {sin(h) * ax[0] / al, sin(h) * ax[1] / al, sin(h) * ax[2] / al, cos(h)};
    out[0] = q[3] * d[0] + q[0] * d[3] + q[1] * d[2] - q[2] * d[1];
    out[1] = q[3] * d[1] - q[0] * d[2] + q[1] * d[3] + q[2] * d[0];
    out[2] = q[3] * d[2] + q[0] * d[1] - q[1] * d[0] + q[2] * d[3];
    out[3] = q[3] * d[3] - q[0] * d[0] - q[1] * d[1] - q[2] * d[2];
}

enum { SLERP_NJ = 53 };

/* Samples (frame f0 -> f1 of c, at fractions 0.1 .. 0.9, at times t0 + fraction * 0.1)
 * through every kernel and compares each joint with a textbook double slerp (short arc). */
static void check_kernels_slerp(const mb_skeleton *s, const mb_clip *c, int f0, int f1, double t0,
                                mb_wrap wrap)
{
    const float *r = mb_clip_rotations(c);
    int ran = 0;
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        mb_xform x[SLERP_NJ];
        mb_pose p = {x, SLERP_NJ};
        if (!mb_sample_rot_kernel_((mb_isa_)isa)) {
            cr_assert_eq(mb_clip_sample_isa_(s, c, t0 + 0.05, wrap, p, (mb_isa_)isa), MB_INVALID_ARG);
            continue;
        }
        ++ran;
        double worst = 0;
        for (int tk = 1; tk < 10; ++tk) {
            double t = tk / 10.0;
            cr_assert_eq(mb_clip_sample_isa_(s, c, t0 + t * 0.1, wrap, p, (mb_isa_)isa), MB_OK);
            for (int j = 0; j < SLERP_NJ; ++j) {
                const float *a = r + 4 * (f0 * SLERP_NJ + j), *b = r + 4 * (f1 * SLERP_NJ + j);
                double dot = 0;
                for (int k = 0; k < 4; ++k)
                    dot += (double)a[k] * b[k];
                double sg = dot < 0 ? -1 : 1, th = acos(fmin(1.0, fabs(dot))), wa, wb;
                wa = th < 1e-9 ? 1 - t : sin((1 - t) * th) / sin(th);
                wb = th < 1e-9 ? t : sin(t * th) / sin(th);
                float expect[4];
                for (int k = 0; k < 4; ++k)
                    expect[k] = (float)(wa * a[k] + sg * wb * b[k]);
                double e = mb_quat_angle_between(x[j].rot, expect);
                worst = e > worst ? e : worst;
                /* the same sign as the slerp: the short arc, no lane flipped */
                double same = 0;
                for (int k = 0; k < 4; ++k)
                    same += x[j].rot[k] * (double)expect[k];
                cr_assert(e < 2e-6 && same > 0, "%s joint %d frames %d->%d t %g: %g rad from slerp (dot %g)",
                          mb_isa_name_((mb_isa_)isa), j, f0, f1, t, e, same);
            }
        }
        cr_log_info("%s, frames %d->%d: worst %.3g rad", mb_isa_name_((mb_isa_)isa), f0, f1, worst);
    }
    cr_assert_geq(ran, 1);
}

/* Rotation angles (radians) of frames 1 and 2 from frame 0 for joint j in case cs of
 * every_kernel_matches_double_slerp. */
static void slerp_case_angles(int cs, int j, uint64_t *rng, double *a1, double *a2)
{
    const double deg = 3.14159265358979323846 / 180;
    double u = mb_test_unit(rng);
    *a2 = 352 * deg;
    switch (cs) {
    case 0: /* 1e-6 rad to 3 rad, most under the series' limit */
        *a1 = j % 7 == 3 ? 0.3 + 2.7 * u : pow(10.0, -6 + 5 * u);
        break;
    case 1: /* loop: 175 then 352 degrees, the wrap (8 degrees) needs the sign flip */
        *a1 = 175 * deg;
        break;
    case 2: /* 10 to 170 degrees: the wide slerp */
        *a1 = (10 + 160 * u) * deg;
        break;
    case 3: /* near a half turn: 170 to 179.9 degrees */
        *a1 = (170 + 9.9 * u) * deg;
        break;
    case 4: /* exactly equal keys on every other joint, 30 to 150 degrees on the others */
        *a1 = j % 2 ? 0.0 : (30 + 120 * u) * deg;
        break;
    case 5: /* loop: 100 degrees, then 181 to 200 (the wrap: 160 to 179 degrees, sign flip) */
        *a1 = 100 * deg;
        *a2 = (181 + 19 * u) * deg;
        break;
    default: /* cases 6 to 9: a sweep of 0 to 180.5 degrees over 212 joints */
        *a1 = ((cs - 6) * SLERP_NJ + j) * (180.5 / (4 * SLERP_NJ - 1)) * deg;
        break;
    }
}

/* Every sampling kernel (the AVX-512 one works on 16 joints at a time, the series and the
 * wide slerp side by side) against a textbook double slerp on 53 joints (three blocks and
 * a tail), in the cases of slerp_case_angles: frames 0 -> 1 (some with frame 1 negated:
 * clip creation makes frames sign-continuous, so the dot stays positive) and looping clips
 * whose last step (frame 2 -> frame 0) has a negative dot product, so the short arc needs
 * the sign flip. Measured worst, every kernel: 4e-7 rad (the float rounding of the output
 * and of the expected quaternion; 2e-6 is the limit). */
Test(sample, every_kernel_matches_double_slerp)
{
    uint64_t rng = 0xABCDEF12ull;
    mb_joint_desc jd[SLERP_NJ];
    char names[SLERP_NJ][8];
    memset(jd, 0, sizeof jd);
    for (int j = 0; j < SLERP_NJ; ++j) {
        snprintf(names[j], sizeof names[j], "j%d", j);
        jd[j].name = names[j];
        jd[j].parent = j - 1;
    }
    mb_skeleton_desc sd = {jd, SLERP_NJ, {0}};
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
    float rot[3 * SLERP_NJ * 4];
    for (int cs = 0; cs < 10; ++cs) {
        int loop = cs == 1 || cs == 5;
        for (int j = 0; j < SLERP_NJ; ++j) {
            double q[4], len = 0, ax[3], q1[4], q2[4], a1, a2;
            for (int k = 0; k < 4; ++k) {
                q[k] = mb_test_unit(&rng) * 2 - 1;
                len += q[k] * q[k];
            }
            for (int k = 0; k < 4; ++k)
                q[k] /= sqrt(len);
            for (int k = 0; k < 3; ++k)
                ax[k] = mb_test_unit(&rng) * 2 - 1;
            slerp_case_angles(cs, j, &rng, &a1, &a2);
            turn(q, ax, a1, q1);
            turn(q, ax, a2, q2);
            for (int k = 0; k < 4; ++k) {
                rot[4 * j + k] = (float)q[k];
                rot[4 * (SLERP_NJ + j) + k] = (float)(!loop && j % 5 == 2 ? -q1[k] : q1[k]);
                rot[4 * (2 * SLERP_NJ + j) + k] = (float)q2[k];
            }
            if (a1 == 0.0) /* the same key, bit for bit */
                memcpy(rot + 4 * (SLERP_NJ + j), rot + 4 * j, 4 * sizeof *rot);
        }
        mb_clip_desc cd = {0};
        cd.joint_count = SLERP_NJ;
        cd.frame_count = loop ? 3 : 2;
        cd.frame_time = 0.1;
        cd.rotations = rot;
        mb_clip *c;
        cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK); /* makes frames sign-continuous */
        if (loop)
            check_kernels_slerp(s, c, 2, 0, 0.2, MB_WRAP_LOOP);
        else
            check_kernels_slerp(s, c, 0, 1, 0.0, MB_WRAP_CLAMP);
        mb_clip_destroy(c);
    }
    mb_skeleton_destroy(s);
}

/* ---------- the preparation stage: one cycle rule for the CLI and the library ---------- */

static mb_prepared_clip *prepare_test_clip(const mb_test_clip *f, const char *src, mb_frame_range r)
{
    mb_prepare_desc pd = {0};
    pd.skeleton = f->s;
    pd.clip = f->c;
    pd.source = src;
    pd.range = r;
    mb_prepared_clip *p = NULL;
    mb_error e;
    cr_assert_eq(mb_clip_prepare(&pd, &p, &e), MB_OK, "%s: %s", e.source, e.text);
    return p;
}

/* The frames `mblend blend` printed for these inputs before the rule moved into the library
 * (run by hand): cmu_02_01_walk + cmu_02_03_run with --cycle auto "cycle frames 137:270
 * (1.108 s)" and "52:146 (0.783 s)" (left-foot touchdowns); with --cycle none "frame 0 is
 * a T-pose, not motion: frames 1:344 are blended" and "1:174". A given cycle ending at the
 * frame count ends on the last frame; one that then leaves nothing fails, and on failure
 * no selection changes. */
Test(prepare, selection_matches_what_mblend_blend_printed)
{
    mb_test_clip w = mb_test_clip_load("cmu_02_01_walk.bvh"), r = mb_test_clip_load("cmu_02_03_run.bvh");
    mb_prepared_clip *p[2] = {prepare_test_clip(&w, "walk", (mb_frame_range){0, 0}),
                              prepare_test_clip(&r, "run", (mb_frame_range){0, 0})};
    mb_error e;
    cr_assert_eq(mb_prepared_select_cycles(p, 2, MB_CYCLE_AUTO, &e), MB_OK, "%s", e.text);
    const mb_prepared_info *a = mb_prepared_clip_info(p[0]), *b = mb_prepared_clip_info(p[1]);
    cr_assert(a->range.start == 137 && a->range.end == 270, "%d:%d", a->range.start, a->range.end);
    cr_assert(b->range.start == 52 && b->range.end == 146, "%d:%d", b->range.start, b->range.end);
    cr_assert(a->selection == MB_SELECT_LEFT_FOOT && b->selection == MB_SELECT_LEFT_FOOT);
    cr_assert_eq(a->warning_count, 0);
    cr_assert_eq(a->loop, MB_LOOP_NONE);
    cr_assert_float_eq(a->range_seconds, 133 * mb_clip_frame_time(w.c), 1e-9);

    cr_assert_eq(mb_prepared_select_cycles(p, 2, MB_CYCLE_NONE, &e), MB_OK, "%s", e.text);
    cr_assert(a->range.start == 1 && a->range.end == 344, "%d:%d", a->range.start, a->range.end);
    cr_assert(b->range.start == 1 && b->range.end == 174, "%d:%d", b->range.start, b->range.end);
    cr_assert_eq(a->selection, MB_SELECT_MOTION);
    cr_assert_eq(a->warning_count, 1);
    cr_assert_str_eq(a->warnings[0], "frame 0 is a T-pose, not motion: frames 1:344 are blended");

    /* given cycles: 0:344 (the frame count) ends on frame 343; 343:344 leaves none */
    mb_prepared_clip *g[2] = {prepare_test_clip(&w, "walk", (mb_frame_range){0, 344}), p[1]};
    cr_assert_eq(mb_prepared_select_cycles(g, 2, MB_CYCLE_AUTO, &e), MB_OK, "%s", e.text);
    const mb_prepared_info *gi = mb_prepared_clip_info(g[0]);
    cr_assert(gi->range.start == 0 && gi->range.end == 343 && gi->range_clamped && gi->selection == MB_SELECT_GIVEN);
    cr_assert_eq(b->selection, MB_SELECT_LEFT_FOOT);
    mb_prepared_clip *bad[2] = {prepare_test_clip(&w, "walk", (mb_frame_range){343, 344}), p[1]};
    cr_assert_eq(mb_prepared_select_cycles(bad, 2, MB_CYCLE_NONE, &e), MB_OK);
    cr_assert_eq(mb_prepared_select_cycles(bad, 2, MB_CYCLE_AUTO, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "range 343:344 leaves no cycle") && strcmp(e.source, "walk") == 0, "%s: %s",
              e.source, e.text);
    const mb_prepared_info *bi = mb_prepared_clip_info(bad[0]);
    cr_assert(bi->selection == MB_SELECT_GIVEN && bi->range.start == 343 && bi->range.end == 344,
              "a failed selection changed nothing");
    cr_assert_eq(b->selection, MB_SELECT_MOTION); /* from the NONE selection before the failed one */
    for (int k = 0; k < 2; ++k)
        mb_prepared_clip_destroy(p[k]);
    mb_prepared_clip_destroy(g[0]);
    mb_prepared_clip_destroy(bad[0]);
    mb_test_clip_unload(&w);
    mb_test_clip_unload(&r);
}

/* Bad arguments fail with a message, and nothing is returned. */
Test(prepare, bad_arguments_say_why)
{
    mb_test_clip w = mb_test_clip_load("cmu_02_01_walk.bvh");
    mb_prepare_desc pd = {0};
    mb_prepared_clip *p = (mb_prepared_clip *)&pd; /* must be reset to NULL */
    mb_error e;
    cr_assert_eq(mb_clip_prepare(&pd, &p, &e), MB_INVALID_ARG);
    cr_assert_null(p);
    cr_assert(e.text[0]);
    pd.skeleton = w.s;
    pd.clip = w.c;
    pd.range = (mb_frame_range){10, 400};
    cr_assert_eq(mb_clip_prepare(&pd, &p, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "range 10:400 does not fit 344 frames"), "%s", e.text);
    pd.range = (mb_frame_range){0, 0};
    pd.left_foot = "NoSuchFoot";
    pd.right_foot = "RightFoot";
    cr_assert_eq(mb_clip_prepare(&pd, &p, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "NoSuchFoot"), "%s", e.text);
    cr_assert_eq(mb_prepared_select_cycles(NULL, 1, MB_CYCLE_AUTO, &e), MB_INVALID_ARG);
    cr_assert(e.text[0]);
    cr_assert_null(mb_prepared_clip_info(NULL));
    mb_prepared_clip_destroy(NULL);
    mb_test_clip_unload(&w);
}

/* A pair prepared together shares clip 0's up axis: with Z given for the (Y-up) walk, the
 * run, whose own detection says Y, is prepared on Z too; an axis given for it is kept. */
Test(prepare, a_pair_shares_the_first_clips_up_axis)
{
    mb_test_clip w = mb_test_clip_load("cmu_02_01_walk.bvh"), r = mb_test_clip_load("cmu_02_03_run.bvh");
    cr_assert_eq(r.info.up_axis, MB_AXIS_Y, "the run alone is Y up");
    mb_prepare_desc d[2];
    memset(d, 0, sizeof d);
    d[0] = (mb_prepare_desc){w.s, w.c, "walk", MB_AXIS_Z, NULL, NULL, {0, 0}, NULL};
    d[1] = (mb_prepare_desc){r.s, r.c, "run", MB_AXIS_DETECT, NULL, NULL, {0, 0}, NULL};
    mb_prepared_clip *p[2];
    mb_error e;
    cr_assert_eq(mb_clips_prepare(d, 2, p, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_prepared_clip_info(p[0])->motion.up_axis, MB_AXIS_Z);
    cr_assert_eq(mb_prepared_clip_info(p[1])->motion.up_axis, MB_AXIS_Z);
    mb_prepared_clip_destroy(p[0]);
    mb_prepared_clip_destroy(p[1]);
    d[1].up_axis = MB_AXIS_Y;
    cr_assert_eq(mb_clips_prepare(d, 2, p, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_prepared_clip_info(p[1])->motion.up_axis, MB_AXIS_Y);
    mb_prepared_clip_destroy(p[0]);
    mb_prepared_clip_destroy(p[1]);
    d[1].left_foot = "NoSuchFoot";
    d[1].right_foot = "RightFoot";
    p[0] = p[1] = (mb_prepared_clip *)d; /* must come back NULL */
    cr_assert_eq(mb_clips_prepare(d, 2, p, &e), MB_INVALID_ARG);
    cr_assert(p[0] == NULL && p[1] == NULL);
    cr_assert_str_eq(e.source, "run");
    mb_test_clip_unload(&w);
    mb_test_clip_unload(&r);
}

/* A prepared clip holds its foot contacts: the same bytes as mb_motion_contacts on its own
 * analysis, with planted and airborne frames for both feet of a walk (touchdowns exist);
 * a skeleton without feet (no End Sites below the root) has none (NULL). */
Test(prepare, holds_the_foot_contacts)
{
    mb_test_clip w = mb_test_clip_load("cmu_02_01_walk.bvh");
    mb_prepare_desc d = {w.s, w.c, "walk", MB_AXIS_DETECT, NULL, NULL, {0, 0}, NULL};
    mb_prepared_clip *p;
    mb_error e;
    cr_assert_eq(mb_clip_prepare(&d, &p, &e), MB_OK, "%s", e.text);
    const mb_prepared_info *pi = mb_prepared_clip_info(p);
    int nf = mb_clip_frame_count(w.c);
    unsigned char *l = malloc((size_t)nf), *r = malloc((size_t)nf);
    cr_assert_eq(mb_motion_contacts(w.s, w.c, &pi->motion, l, r, &e), MB_OK, "%s", e.text);
    cr_assert(pi->contacts[0] && pi->contacts[1]);
    cr_assert(memcmp(pi->contacts[0], l, (size_t)nf) == 0 && memcmp(pi->contacts[1], r, (size_t)nf) == 0);
    int planted[2] = {0, 0};
    for (int f = 0; f < nf; ++f)
        for (int side = 0; side < 2; ++side)
            planted[side] += pi->contacts[side][f];
    cr_assert(planted[0] > nf / 5 && planted[0] < nf && planted[1] > nf / 5 && planted[1] < nf,
              "planted %d and %d of %d frames", planted[0], planted[1], nf);
    free(l);
    free(r);
    mb_prepared_clip_destroy(p);
    mb_test_clip_unload(&w);

    /* a chain without End Sites: the analysis finds no feet, so there are no contacts */
    mb_test_clip ch = mb_test_clip_load("fairmotion_sinusoidal_xyz_noendsite.bvh");
    d = (mb_prepare_desc){ch.s, ch.c, "chain", MB_AXIS_DETECT, NULL, NULL, {0, 0}, NULL};
    cr_assert_eq(mb_clip_prepare(&d, &p, &e), MB_OK, "%s", e.text);
    pi = mb_prepared_clip_info(p);
    cr_assert(pi->motion.left_foot < 0 && pi->contacts[0] == NULL && pi->contacts[1] == NULL);
    mb_prepared_clip_destroy(p);
    mb_test_clip_unload(&ch);
}
