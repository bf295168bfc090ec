/* The runtime controller: validity, in-place poses with root motion that rebuild the clip,
 * looping and blend spaces, cross-fades with phase sync, inertialization, requests during
 * transitions without pops, determinism and threads. Real CMU clips from ../shared. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <unistd.h>

#include "mblend/mblend.h"
#include "runtime/controller/rootmotion_internal.h"
#include "test_clip_file.h"
#include "test_util.h"

/* walk (0), run (1), and a blend space "locomotion" (2) of both on speed, all looping;
 * a played-once walk (3). The CMU 02 clips share one header. */
typedef struct fixture {
    mb_test_clip walk, run;
    mb_state_set *set;
    int nj;
} fixture;

static fixture make_fixture(void)
{
    fixture fx;
    fx.walk = mb_test_clip_load("cmu_02_01_walk.bvh");
    fx.run = mb_test_clip_load("cmu_02_03_run.bvh");
    fx.nj = mb_skeleton_joint_count(fx.walk.s);
    static mb_state_clip walk_c, run_c, loco_c[2], once_c;
    memset(&walk_c, 0, sizeof walk_c);
    memset(&run_c, 0, sizeof run_c);
    memset(loco_c, 0, sizeof loco_c);
    memset(&once_c, 0, sizeof once_c);
    walk_c.clip = fx.walk.c;
    run_c.clip = fx.run.c;
    loco_c[0] = walk_c;
    loco_c[0].param = fx.walk.info.speed;
    loco_c[1] = run_c;
    loco_c[1].param = fx.run.info.speed;
    once_c.clip = fx.walk.c;
    static mb_state_desc sd[4];
    memset(sd, 0, sizeof sd);
    sd[0] = (mb_state_desc){"walk", &walk_c, 1, 1, 0.0f};
    sd[1] = (mb_state_desc){"run", &run_c, 1, 1, 0.0f};
    sd[2] = (mb_state_desc){"locomotion", loco_c, 2, 1, fx.walk.info.speed};
    sd[3] = (mb_state_desc){"walk_once", &once_c, 1, 0, 0.0f};
    mb_state_set_desc d = {0};
    d.skeleton = fx.walk.s;
    d.states = sd;
    d.state_count = 4;
    mb_error e;
    cr_assert_eq(mb_state_set_create(&d, &fx.set, &e), MB_OK, "%s: %s", e.source, e.text);
    return fx;
}

static void free_fixture(fixture *fx)
{
    mb_state_set_destroy(fx->set);
    mb_test_clip_unload(&fx->walk);
    mb_test_clip_unload(&fx->run);
}

static mb_controller *make_ctl(const fixture *fx, int state, int max_tracks)
{
    mb_controller_desc cd = {0};
    cd.states = fx->set;
    cd.initial_state = state;
    cd.max_tracks = max_tracks;
    mb_controller *c = NULL;
    cr_assert_eq(mb_controller_create(&cd, &c, NULL), MB_OK);
    return c;
}

/* Largest joint rotation change (radians) between two local poses. */
static double pose_angle(const mb_xform *a, const mb_xform *b, int n)
{
    double m = 0.0;
    for (int j = 0; j < n; ++j) {
        double x = mb_quat_angle_between(a[j].rot, b[j].rot);
        m = x > m ? x : m;
    }
    return m;
}

/* ---------------------------------------------------------------- validity */

Test(controller, rejects_bad_arguments)
{
    fixture fx = make_fixture();
    mb_state_set *s = NULL;
    mb_error e;
    cr_assert_eq(mb_state_set_create(NULL, &s, &e), MB_INVALID_ARG);
    mb_state_set_desc d = {0};
    d.skeleton = fx.walk.s;
    cr_assert_eq(mb_state_set_create(&d, &s, &e), MB_INVALID_ARG);
    /* unsorted blend-space params */
    mb_state_clip bad[2] = {{fx.walk.c, {0, 0}, {0, 0}, 5.0f, NULL}, {fx.run.c, {0, 0}, {0, 0}, 1.0f, NULL}};
    mb_state_desc sd = {"x", bad, 2, 1, 0.0f};
    d.states = &sd;
    d.state_count = 1;
    cr_assert_eq(mb_state_set_create(&d, &s, &e), MB_INVALID_ARG);
    /* a blend space that does not loop */
    bad[1].param = 10.0f;
    sd.loop = 0;
    cr_assert_eq(mb_state_set_create(&d, &s, &e), MB_INVALID_ARG);
    /* a range outside the clip */
    mb_state_clip one = {fx.walk.c, {10, 100000}, {0, 0}, 0.0f, NULL};
    sd = (mb_state_desc){"x", &one, 1, 0, 0.0f};
    cr_assert_eq(mb_state_set_create(&d, &s, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "range"), "%s", e.text);
    cr_assert_null(s);
    /* a cached analysis whose root is not a joint of this skeleton */
    mb_motion_info stale = fx.walk.info;
    stale.root = 5000;
    one = (mb_state_clip){fx.walk.c, {0, 0}, {0, 0}, 0.0f, &stale};
    cr_assert_eq(mb_state_set_create(&d, &s, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "does not fit"), "%s", e.text);
    cr_assert_null(s);
    mb_state_set_destroy(NULL);

    mb_controller *c = NULL;
    mb_controller_desc cd = {0};
    cr_assert_eq(mb_controller_create(&cd, &c, &e), MB_INVALID_ARG);
    cr_assert_str_eq(e.text, "no state set given");
    cd.states = fx.set;
    cd.initial_state = 4;
    cr_assert_eq(mb_controller_create(&cd, &c, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "initial state 4 outside"), "%s", e.text);
    cd.initial_state = 0;
    cd.max_tracks = 1;
    cr_assert_eq(mb_controller_create(&cd, &c, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "max_tracks 1 outside"), "%s", e.text);
    cd.max_tracks = MB_CONTROLLER_MAX_TRACKS + 1;
    cr_assert_eq(mb_controller_create(&cd, &c, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "max_tracks"), "%s", e.text);
    mb_controller_destroy(NULL);

    c = make_ctl(&fx, 0, 0);
    int n = fx.nj;
    mb_xform *x = calloc((size_t)n, sizeof *x);
    mb_pose p = {x, n}, shortp = {x, n - 1}, nullp = {NULL, n};
    cr_assert_eq(mb_controller_update(c, 0.01f, shortp, NULL), MB_TOO_SMALL);
    cr_assert_eq(mb_controller_update(c, 0.01f, nullp, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_update(c, -0.01f, p, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_update(c, NAN, p, NULL), MB_INVALID_ARG);
    /* a step past MB_CONTROLLER_MAX_DT would only give root motion float cannot hold */
    cr_assert_eq(mb_controller_update(c, FLT_MAX, p, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_update(c, (float)MB_CONTROLLER_MAX_DT * 1.01f, p, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_update(NULL, 0.01f, p, NULL), MB_INVALID_ARG);
    mb_transition_desc t = {0};
    cr_assert_eq(mb_controller_request(c, 7, &t), MB_INVALID_ARG);
    t.duration = -1.0f;
    cr_assert_eq(mb_controller_request(c, 1, &t), MB_INVALID_ARG);
    t.duration = 0.2f;
    t.start_phase = 1.5f;
    cr_assert_eq(mb_controller_request(c, 1, &t), MB_INVALID_ARG);
    t.start_phase = 0.0f;
    t.mode = (mb_transition_mode)9;
    cr_assert_eq(mb_controller_request(c, 1, &t), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_set_param(c, 2, INFINITY), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_set_param(c, -1, 1.0f), MB_INVALID_ARG);
    float w[3];
    cr_assert_eq(mb_controller_state_weights(c, w, 3), MB_TOO_SMALL);
    cr_assert_eq(mb_controller_reset(c, 0, 2.0f), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_update(c, 0.01f, p, NULL), MB_OK);
    free(x);
    mb_controller_destroy(c);
    free_fixture(&fx);
}

Test(controller, set_queries)
{
    fixture fx = make_fixture();
    cr_assert_eq(mb_state_set_count(fx.set), 4);
    cr_assert_eq(mb_state_set_find(fx.set, "run"), 1);
    cr_assert_eq(mb_state_set_find(fx.set, "nope"), -1);
    cr_assert_eq(mb_state_set_up_axis(fx.set), MB_AXIS_Y);
    cr_assert_str_eq(mb_skeleton_name(fx.walk.s, mb_state_set_root(fx.set)), "Hips");
    /* a blend space's cycle lasts the weighted mean of its clips' cycles */
    double tw = mb_state_set_cycle_duration(fx.set, 0, 0.0f), tr = mb_state_set_cycle_duration(fx.set, 1, 0.0f);
    float mid = 0.5f * (fx.walk.info.speed + fx.run.info.speed);
    cr_assert(tw > 0.8 && tw < 1.5 && tr > 0.4 && tr < 1.0, "walk %g run %g", tw, tr);
    cr_assert_float_eq(mb_state_set_cycle_duration(fx.set, 2, mid), 0.5 * (tw + tr), 1e-9);
    cr_assert_float_eq(mb_state_set_cycle_duration(fx.set, 2, -100.0f), tw, 1e-12);
    cr_assert_float_eq(mb_state_set_cycle_duration(fx.set, 2, 1e6f), tr, 1e-12);
    cr_assert_lt(mb_state_set_cycle_duration(fx.set, 9, 0.0f), 0.0);
    free_fixture(&fx);
}

/* ---------------------------------------------------------------- in place + root motion */

/* Playing a clip once and integrating the root motion onto the in-place pose rebuilds the
 * clip's world positions (all joints, all frames). */
Test(controller, root_motion_rebuilds_the_clip)
{
    fixture fx = make_fixture();
    const mb_skeleton *s = fx.walk.s;
    int n = fx.nj, up = mb_axis_index(fx.walk.info.up_axis), root = fx.walk.info.root;
    const int *par = mb_skeleton_parents(s);
    mb_controller *c = make_ctl(&fx, 3, 0);
    mb_xform *x = malloc(sizeof *x * n), *o = malloc(sizeof *o * n);
    float(*w)[16] = malloc(sizeof *w * n), (*w2)[16] = malloc(sizeof *w2 * n);
    double ft = mb_clip_frame_time(fx.walk.c), P[3] = {0, 0, 0}, psi = 0.0, worst = 0.0;
    int f0 = fx.walk.info.first_frame, nf = mb_clip_frame_count(fx.walk.c);
    for (int f = f0; f < nf; ++f) {
        mb_pose p = {x, n}, po = {o, n};
        mb_root_motion rm;
        cr_assert_eq(mb_controller_update(c, f == f0 ? 0.0f : (float)ft, p, &rm), MB_OK);
        cr_assert_eq(rm.translation[up], 0.0f);
        cr_assert_eq(mb_clip_frame_pose(s, fx.walk.c, f, po), MB_OK);
        double q[4], pos[3];
        mb_rm_chain_world(par, &p, root, q, pos);
        /* in place: at the origin horizontally */
        cr_assert(fabs(pos[0]) < 1e-4 && fabs(pos[2]) < 1e-4, "root not in place: %g %g", pos[0], pos[2]);
        if (f == f0) {
            double oq[4], op[3], qi[4] = {-q[0], -q[1], -q[2], q[3]}, dq[4];
            mb_rm_chain_world(par, &po, root, oq, op);
            mb_qmul_d_(oq, qi, dq); /* the original is the in-place pose turned about up */
            cr_assert_lt(fabs(dq[0]) + fabs(dq[2]), 1e-6, "not a turn about up");
            psi = mb_rm_yaw_of(up, dq);
            P[0] = op[0];
            P[2] = op[2];
        } else {
            double st[3] = {rm.translation[0], rm.translation[1], rm.translation[2]};
            mb_rm_integrate(up, P, &psi, st, rm.heading);
        }
        double yq[4], wq[4], wp[3];
        mb_rm_yaw_quat(up, psi, yq);
        mb_qmul_d_(yq, q, wq);
        mb_qrotate_d_(yq, pos, wp);
        wp[0] += P[0];
        wp[2] += P[2];
        double pq[4] = {0, 0, 0, 1}, pp[3] = {0, 0, 0};
        mb_rm_world_to_local(pq, pp, wq, wp, x[root].rot, x[root].pos);
        cr_assert_eq(mb_fk(s, &p, w, n), MB_OK);
        cr_assert_eq(mb_fk(s, &po, w2, n), MB_OK);
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < 3; ++k) {
                double d = fabs((double)w[j][12 + k] - w2[j][12 + k]);
                worst = d > worst ? d : worst;
            }
    }
    cr_assert_lt(worst, 1e-3 * fx.walk.info.height, "rebuilt positions off by %g", worst);
    mb_controller_status st;
    cr_assert_eq(mb_controller_get_status(c, &st), MB_OK);
    cr_assert(st.finished && !st.transitioning && st.state == 3);
    free(x);
    free(o);
    free(w);
    free(w2);
    mb_controller_destroy(c);
    free_fixture(&fx);
}

/* A looping state travels at its clip's speed, cycle after cycle, in small or large steps. */
Test(controller, loop_travels_at_clip_speed)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    mb_xform *x = malloc(sizeof *x * n);
    double T = mb_state_set_cycle_duration(fx.set, 1, 0.0f);
    double dist[3], psis[3], Ps[3][3];
    for (int pass = 0; pass < 3; ++pass) {
        mb_controller *c = make_ctl(&fx, 1, 0);
        double P[3] = {0, 0, 0}, psi = 0.0;
        /* three cycles in 1/100 or 3/7 cycle steps; 30 cycles in one step of 10 and one of 20 */
        int steps = pass == 0 ? 300 : (pass == 1 ? 7 : 2);
        double dt = 3.0 * T / steps;
        if (pass == 2) {
            mb_pose p = {x, n};
            mb_root_motion rm;
            cr_assert_eq(mb_controller_update(c, (float)(10.0 * T), p, &rm), MB_OK);
            double st[3] = {rm.translation[0], rm.translation[1], rm.translation[2]};
            mb_rm_integrate(1, P, &psi, st, rm.heading);
            dt = 20.0 * T;
            steps = 1;
        }
        for (int k = 0; k < steps; ++k) {
            mb_pose p = {x, n};
            mb_root_motion rm;
            cr_assert_eq(mb_controller_update(c, (float)dt, p, &rm), MB_OK);
            double st[3] = {rm.translation[0], rm.translation[1], rm.translation[2]};
            mb_rm_integrate(1, P, &psi, st, rm.heading);
        }
        dist[pass] = sqrt(P[0] * P[0] + P[2] * P[2]);
        psis[pass] = psi;
        memcpy(Ps[pass], P, sizeof P);
        mb_controller_status s;
        mb_controller_get_status(c, &s);
        cr_assert(s.phase < 1e-3 || s.phase > 1 - 1e-3, "three whole cycles end at phase 0: %g", s.phase);
        mb_controller_destroy(c);
    }
    /* speed of the run's cycle: its analysed mean speed, roughly (the cycle is one part) */
    double speed = dist[0] / (3.0 * T);
    cr_assert(speed > 0.7 * fx.run.info.speed && speed < 1.3 * fx.run.info.speed, "speed %g vs %g", speed,
              (double)fx.run.info.speed);
    cr_assert_float_eq(dist[0], dist[1], 1e-3 * dist[0], "step size changes the path: %g vs %g", dist[0], dist[1]);
    /* ten times the cycles in two long steps (closed-form sums): the path of 3 cycles
     * repeated, turning by the cycles' heading drift, ends where 30 short cycles would */
    double P[3] = {0, 0, 0}, psi = 0.0;
    for (int k = 0; k < 10; ++k) {
        /* Ps[0] is in the start frame: integrate turns it by the heading reached so far */
        mb_rm_integrate(1, P, &psi, Ps[0], psis[0]);
    }
    cr_assert_float_eq(Ps[2][0], P[0], 2e-3 * dist[2], "x %g vs %g", Ps[2][0], P[0]);
    cr_assert_float_eq(Ps[2][2], P[2], 2e-3 * dist[2], "z %g vs %g", Ps[2][2], P[2]);
    cr_assert_float_eq(psis[2], psi, 1e-6 + 1e-3 * fabs(psi));
    free(x);
    free_fixture(&fx);
}

/* ---------------------------------------------------------------- blend space */

Test(controller, blend_space_ends_are_the_clips_and_middle_is_between)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    mb_xform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
    /* at the walk's param the blend space is the walk state, bit for bit */
    mb_controller *c1 = make_ctl(&fx, 0, 0), *c2 = make_ctl(&fx, 2, 0);
    cr_assert_eq(mb_controller_set_param(c2, 2, fx.walk.info.speed - 1.0f), MB_OK);
    for (int k = 0; k < 50; ++k) {
        mb_pose pa = {a, n}, pb = {b, n};
        mb_root_motion ra, rb;
        cr_assert_eq(mb_controller_update(c1, 1.0f / 60, pa, &ra), MB_OK);
        cr_assert_eq(mb_controller_update(c2, 1.0f / 60, pb, &rb), MB_OK);
        cr_assert(memcmp(a, b, sizeof *a * n) == 0, "frame %d differs", k);
        cr_assert(memcmp(&ra, &rb, sizeof ra) == 0);
    }
    /* in the middle: speed between the clips', cycle duration interpolated */
    float mid = 0.5f * (fx.walk.info.speed + fx.run.info.speed);
    cr_assert_eq(mb_controller_set_param(c2, 2, mid), MB_OK);
    double T = mb_state_set_cycle_duration(fx.set, 2, mid), P[3] = {0, 0, 0}, psi = 0.0;
    mb_controller_status s0, s1;
    mb_pose pb = {b, n};
    cr_assert_eq(mb_controller_update(c2, 0.0f, pb, NULL), MB_OK);
    mb_controller_get_status(c2, &s0);
    int steps = 200;
    for (int k = 0; k < steps; ++k) {
        mb_root_motion rb;
        cr_assert_eq(mb_controller_update(c2, (float)(T / steps), pb, &rb), MB_OK);
        double st[3] = {rb.translation[0], rb.translation[1], rb.translation[2]};
        mb_rm_integrate(1, P, &psi, st, rb.heading);
    }
    mb_controller_get_status(c2, &s1);
    cr_assert(fabs(s1.phase - s0.phase) < 1e-4 || fabs(fabs(s1.phase - s0.phase) - 1) < 1e-4,
              "one interpolated cycle duration is one phase turn: %g -> %g", s0.phase, s1.phase);
    double v = sqrt(P[0] * P[0] + P[2] * P[2]) / T;
    cr_assert(v > 0.9 * fx.walk.info.speed && v < 1.1 * fx.run.info.speed, "blended speed %g", v);
    free(a);
    free(b);
    mb_controller_destroy(c1);
    mb_controller_destroy(c2);
    free_fixture(&fx);
}

/* ---------------------------------------------------------------- cross-fades */

Test(controller, crossfade_weights_status_and_sync)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    mb_xform *x = malloc(sizeof *x * n);
    mb_pose p = {x, n};
    mb_controller *c = make_ctl(&fx, 0, 0);
    for (int k = 0; k < 37; ++k)
        cr_assert_eq(mb_controller_update(c, 1.0f / 60, p, NULL), MB_OK);
    mb_controller_status s;
    mb_controller_get_status(c, &s);
    double walk_phase = s.phase;
    mb_transition_desc t = {0};
    t.duration = 0.5f;
    t.sync = 1;
    t.curve = MB_CURVE_LINEAR;
    cr_assert_eq(mb_controller_request(c, 1, &t), MB_OK);
    mb_controller_get_status(c, &s);
    cr_assert_eq(s.state, 1);
    cr_assert(s.transitioning);
    cr_assert_float_eq(s.phase, walk_phase, 1e-12, "sync starts the run at the walk's phase");
    /* requesting the target again changes nothing */
    cr_assert_eq(mb_controller_request(c, 1, &t), MB_OK);
    float w[4];
    for (int k = 1; k <= 30; ++k) {
        cr_assert_eq(mb_controller_update(c, 1.0f / 60, p, NULL), MB_OK);
        cr_assert_eq(mb_controller_state_weights(c, w, 4), MB_OK);
        double expect = k / 30.0 > 1.0 ? 1.0 : k / 30.0;
        cr_assert_float_eq(w[1], expect, 1e-5, "linear ramp at %d: %g", k, w[1]);
        cr_assert_float_eq(w[0] + w[1], 1.0, 1e-6);
        mb_controller_get_status(c, &s);
        if (k < 30) {
            cr_assert(s.transitioning && s.tracks == 2);
            cr_assert_float_eq(s.progress, k / 30.0, 1e-5);
        }
    }
    mb_controller_get_status(c, &s);
    cr_assert(!s.transitioning && s.tracks == 1 && s.state == 1 && s.progress == 1.0f);
    free(x);
    mb_controller_destroy(c);
    free_fixture(&fx);
}

/* Largest per-frame joint change while playing a state alone (the "no pop" yardstick). */
static double normal_step(const fixture *fx, int state, float dt, int frames)
{
    int n = fx->nj;
    mb_xform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
    mb_controller *c = make_ctl(fx, state, 0);
    mb_pose pa = {a, n}, pb = {b, n};
    mb_controller_update(c, 0.0f, pa, NULL);
    double m = 0.0;
    for (int k = 0; k < frames; ++k) {
        mb_controller_update(c, dt, pb, NULL);
        double d = pose_angle(a, b, n);
        m = d > m ? d : m;
        memcpy(a, b, sizeof *a * n);
    }
    free(a);
    free(b);
    mb_controller_destroy(c);
    return m;
}

/* Requests during a running transition (back to the source, to a third state, beyond
 * the track capacity, inertializations mid cross-fade) never make a frame jump further
 * than the motion itself does. */
Test(controller, requests_during_transitions_do_not_pop)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    float dt = 1.0f / 120;
    double yard = fmax(normal_step(&fx, 0, dt, 240), normal_step(&fx, 1, dt, 240));
    for (int cap = 2; cap <= 4; cap += 2) {
        mb_controller *c = make_ctl(&fx, 0, cap);
        mb_xform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
        mb_pose pa = {a, n}, pb = {b, n};
        mb_controller_update(c, 0.0f, pa, NULL);
        mb_transition_desc cf = {0}, in = {0};
        cf.duration = 0.4f;
        cf.sync = 1;
        in.duration = 0.3f;
        in.mode = MB_TRANSITION_INERTIALIZE;
        /* (frame, state, desc): fades interrupted, reversed, stacked past capacity */
        struct { int frame, state; const mb_transition_desc *t; } plan[] = {
            {20, 1, &cf}, {40, 0, &cf}, {50, 2, &cf}, {55, 1, &cf}, {57, 3, &cf}, {60, 0, &cf},
            {100, 1, &in}, {120, 0, &cf}, {130, 1, &in}, {200, 2, &cf}, {205, 0, &in}};
        int next = 0, max_tracks = 0;
        double worst = 0.0;
        for (int k = 1; k < 400; ++k) {
            if (next < (int)(sizeof plan / sizeof plan[0]) && plan[next].frame == k) {
                cr_assert_eq(mb_controller_request(c, plan[next].state, plan[next].t), MB_OK);
                ++next;
            }
            if (k % 17 == 0)
                mb_controller_set_param(c, 2, k % 2 ? fx.run.info.speed : fx.walk.info.speed);
            cr_assert_eq(mb_controller_update(c, dt, pb, NULL), MB_OK);
            mb_controller_status s;
            mb_controller_get_status(c, &s);
            max_tracks = s.tracks > max_tracks ? s.tracks : max_tracks;
            cr_assert_leq(s.tracks, cap);
            double d = pose_angle(a, pb.joints, n);
            worst = d > worst ? d : worst;
            memcpy(a, b, sizeof *a * n);
        }
        cr_assert_eq(max_tracks, cap, "the plan fills the %d tracks", cap);
        cr_assert_lt(worst, 1.5 * yard, "capacity %d: a frame jumped %g rad, the clips' own largest step is %g", cap,
                     worst, yard);
        free(a);
        free(b);
        mb_controller_destroy(c);
    }
    free_fixture(&fx);
}

/* ---------------------------------------------------------------- inertialization */

Test(controller, inertialization_starts_at_the_source_and_ends_on_the_target)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    float dt = 1.0f / 120;
    mb_xform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n), *r = malloc(sizeof *r * n);
    mb_pose pa = {a, n}, pb = {b, n}, pr = {r, n};
    mb_controller *c = make_ctl(&fx, 0, 0), *ref = make_ctl(&fx, 1, 0);
    for (int k = 0; k < 50; ++k)
        mb_controller_update(c, dt, pa, NULL);
    double walk_step = normal_step(&fx, 0, dt, 240), run_step = normal_step(&fx, 1, dt, 240);
    mb_transition_desc t = {0};
    t.duration = 0.3f;
    t.mode = MB_TRANSITION_INERTIALIZE;
    t.start_phase = 0.25f;
    cr_assert_eq(mb_controller_request(c, 1, &t), MB_OK);
    cr_assert_eq(mb_controller_reset(ref, 1, 0.25f), MB_OK);
    mb_controller_update(ref, 0.0f, pr, NULL);
    /* the run starts far from the walk's pose; the first frame stays near the walk */
    double gap = pose_angle(a, r, n);
    cr_assert_eq(mb_controller_update(c, dt, pb, NULL), MB_OK);
    cr_assert_gt(gap, 4.0 * fmax(walk_step, run_step), "test needs distinct poses (gap %g)", gap);
    cr_assert_lt(pose_angle(a, b, n), 1.5 * fmax(walk_step, run_step), "inertialization popped");
    mb_controller_update(ref, dt, pr, NULL);
    int frames = (int)ceil(0.3 / dt);
    mb_controller_status s;
    for (int k = 2; k <= frames + 5; ++k) {
        memcpy(a, b, sizeof *a * n);
        cr_assert_eq(mb_controller_update(c, dt, pb, NULL), MB_OK);
        mb_controller_update(ref, dt, pr, NULL);
        cr_assert_lt(pose_angle(a, b, n), 1.5 * fmax(walk_step, run_step) + 0.05, "frame %d", k);
        mb_controller_get_status(c, &s);
        if (k > frames + 1) {
            cr_assert(!s.transitioning);
            /* the offset is gone: exactly the target state played alone */
            cr_assert(memcmp(b, r, sizeof *b * n) == 0, "frame %d: not the target (%g rad)", k, pose_angle(b, r, n));
        }
    }
    free(a);
    free(b);
    free(r);
    mb_controller_destroy(c);
    mb_controller_destroy(ref);
    free_fixture(&fx);
}

/* ---------------------------------------------------------------- determinism, threads */

typedef struct run_job {
    const fixture *fx;
    int seed;
    int frames;
    mb_xform *poses;    /* frames x nj */
    mb_root_motion *rm; /* frames */
    mb_controller_status *status; /* frames, nullable: the status after each update */
    float *loco_param;  /* frames, nullable: the blend space's parameter at each update */
} run_job;

static void *run_script(void *arg)
{
    run_job *j = arg;
    int n = j->fx->nj;
    mb_controller *c = NULL;
    mb_controller_desc cd = {0};
    cd.states = j->fx->set;
    cd.initial_state = j->seed % 3;
    if (mb_controller_create(&cd, &c, NULL) != MB_OK)
        return NULL;
    unsigned r = (unsigned)j->seed * 2654435761u + 1u;
    float loco = j->fx->walk.info.speed; /* the state's initial parameter */
    for (int k = 0; k < j->frames; ++k) {
        r = r * 1103515245u + 12345u;
        if ((r >> 16) % 23 == 0) {
            mb_transition_desc t = {0};
            t.duration = 0.1f + (float)((r >> 8) % 40) / 100.0f;
            t.mode = (r >> 4) % 3 == 0 ? MB_TRANSITION_INERTIALIZE : MB_TRANSITION_CROSSFADE;
            t.sync = (r >> 6) & 1;
            mb_controller_request(c, (int)((r >> 20) % 3), &t);
        }
        if ((r >> 12) % 11 == 0) {
            loco = 10.0f + (float)((r >> 3) % 400) / 10.0f;
            mb_controller_set_param(c, 2, loco);
        }
        mb_pose p = {j->poses + (size_t)k * n, n};
        float dt = (float)(1.0 / 60 + ((r >> 9) % 5) * 0.002);
        if (mb_controller_update(c, dt, p, &j->rm[k]) != MB_OK)
            break;
        if (j->status)
            mb_controller_get_status(c, &j->status[k]);
        if (j->loco_param)
            j->loco_param[k] = loco;
    }
    mb_controller_destroy(c);
    return j;
}

/* The cycle of a looping state's clip as the state set detects it (left foot, else right). */
static mb_frame_range script_cycle(const mb_test_clip *c)
{
    mb_frame_range r;
    if (mb_motion_find_cycle(c->s, c->c, &c->info, 0, "test", &r, NULL) != MB_OK)
        cr_assert_eq(mb_motion_find_cycle(c->s, c->c, &c->info, 1, "test", &r, NULL), MB_OK);
    return r;
}

/* A clip's local pose at phase g of its cycle r, sampled directly (mb_clip_sample). */
static void script_sample(const mb_test_clip *c, mb_frame_range r, double g, mb_xform *out, int n)
{
    double ft = mb_clip_frame_time(c->c);
    mb_pose p = {out, n};
    cr_assert_eq(mb_clip_sample(c->s, c->c, (r.start + g * (r.end - r.start)) * ft, MB_WRAP_CLAMP, p), MB_OK);
}

/* Values of a script's frames, against an independent computation: wherever the status
 * says one state plays alone (no transition), every joint below the root (the in-place
 * step changes only the root) is that state's clip sampled at the reported phase of its
 * detected cycle, or for the blend space, mb_blend_run of both clips at that phase with
 * weights linear in the parameter between the clips' speeds (clamped). */
static void check_script_values(const fixture *fx, const run_job *j)
{
    int n = fx->nj, root = mb_state_set_root(fx->set), seen[3] = {0, 0, 0};
    const int *parents = mb_skeleton_parents(fx->walk.s);
    mb_frame_range rw = script_cycle(&fx->walk), rr = script_cycle(&fx->run);
    mb_xform *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n), *want = malloc(sizeof *want * n);
    for (int k = 0; k < j->frames; ++k) {
        const mb_controller_status *s = &j->status[k];
        if (s->transitioning || s->tracks != 1)
            continue;
        cr_assert(s->state >= 0 && s->state <= 2, "the script plays states 0..2");
        if (s->state != 1)
            script_sample(&fx->walk, rw, s->phase, a, n);
        if (s->state != 0)
            script_sample(&fx->run, rr, s->phase, b, n);
        double x = s->state; /* the run's share */
        if (s->state == 2) {
            double pw = fx->walk.info.speed, pr = fx->run.info.speed;
            x = ((double)j->loco_param[k] - pw) / (pr - pw);
            x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
        }
        if (x <= 0.0 || x >= 1.0) {
            memcpy(want, x <= 0.0 ? a : b, sizeof *a * n);
        } else {
            mb_pose pa = {a, n}, pb = {b, n};
            mb_blend_layer l[2] = {{&pa, (float)(1.0 - x), NULL}, {&pb, (float)x, NULL}};
            mb_blend_desc bd = {0};
            bd.layers = l;
            bd.layer_count = 2;
            bd.out.joints = want;
            bd.out.count = n;
            cr_assert_eq(mb_blend_run(&bd), MB_OK);
        }
        const mb_xform *got = j->poses + (size_t)k * n;
        for (int q = 0; q < n; ++q) {
            int below = 0;
            for (int p = parents[q]; p >= 0 && !below; p = parents[p])
                below = p == root;
            if (!below)
                continue;
            double e = mb_quat_angle_between(got[q].rot, want[q].rot);
            cr_assert_lt(e, 2e-5, "script %d frame %d state %d phase %.6f joint %d: %g rad from the sampled clips",
                         j->seed, k, s->state, s->phase, q, e);
        }
        ++seen[s->state];
    }
    cr_log_info("script %d: %d, %d, %d frames of walk, run, blend space checked", j->seed, seen[0], seen[1], seen[2]);
    cr_assert_gt(seen[0] + seen[1] + seen[2], 100, "script %d: too few frames checked", j->seed);
    free(a);
    free(b);
    free(want);
}

Test(controller, deterministic_and_thread_independent)
{
    fixture fx = make_fixture();
    int n = fx.nj, frames = 600;
    run_job jobs[4];
    for (int i = 0; i < 4; ++i) {
        jobs[i].fx = &fx;
        jobs[i].seed = 1 + (i % 2); /* jobs 0/2 and 1/3 repeat the same calls */
        jobs[i].frames = frames;
        jobs[i].poses = calloc((size_t)frames * n, sizeof(mb_xform));
        jobs[i].rm = calloc((size_t)frames, sizeof(mb_root_motion));
        jobs[i].status = i < 2 ? calloc((size_t)frames, sizeof(mb_controller_status)) : NULL;
        jobs[i].loco_param = i < 2 ? calloc((size_t)frames, sizeof(float)) : NULL;
    }
    /* 0 and 1 sequentially, 2 and 3 on two threads at once */
    cr_assert_not_null(run_script(&jobs[0]));
    cr_assert_not_null(run_script(&jobs[1]));
    pthread_t th[2];
    for (int i = 0; i < 2; ++i)
        cr_assert_eq(pthread_create(&th[i], NULL, run_script, &jobs[2 + i]), 0);
    for (int i = 0; i < 2; ++i) {
        void *res;
        pthread_join(th[i], &res);
        cr_assert_not_null(res);
    }
    for (int i = 0; i < 2; ++i) {
        cr_assert(memcmp(jobs[i].poses, jobs[i + 2].poses, sizeof(mb_xform) * (size_t)frames * n) == 0,
                  "script %d: poses differ between runs", i + 1);
        cr_assert(memcmp(jobs[i].rm, jobs[i + 2].rm, sizeof(mb_root_motion) * (size_t)frames) == 0);
    }
    cr_assert(memcmp(jobs[0].poses, jobs[1].poses, sizeof(mb_xform) * (size_t)n * 10) != 0,
              "the two scripts should differ");
    /* and the same values are the right ones */
    for (int i = 0; i < 2; ++i)
        check_script_values(&fx, &jobs[i]);
    for (int i = 0; i < 4; ++i) {
        free(jobs[i].poses);
        free(jobs[i].rm);
        free(jobs[i].status);
        free(jobs[i].loco_param);
    }
    free_fixture(&fx);
}

/* Allocation goes through the hooks, once per object, and never during updates. */
static int alloc_calls;
static void *count_alloc(size_t n, void *user)
{
    (void)user;
    ++alloc_calls;
    return malloc(n);
}
static void count_free(void *p, void *user)
{
    (void)user;
    free(p);
}

Test(controller, allocates_only_at_creation)
{
    fixture fx = make_fixture();
    mb_controller_desc cd = {0};
    cd.states = fx.set;
    cd.allocator.alloc = count_alloc;
    cd.allocator.free = count_free;
    mb_controller *c = NULL;
    alloc_calls = 0;
    cr_assert_eq(mb_controller_create(&cd, &c, NULL), MB_OK);
    cr_assert_eq(alloc_calls, 1);
    int n = fx.nj;
    mb_xform *x = malloc(sizeof *x * n);
    mb_pose p = {x, n};
    mb_transition_desc t = {0};
    t.duration = 0.2f;
    for (int k = 0; k < 200; ++k) {
        if (k % 25 == 0) {
            t.mode = (k / 25) % 2 ? MB_TRANSITION_INERTIALIZE : MB_TRANSITION_CROSSFADE;
            mb_controller_request(c, (k / 25) % 3, &t);
        }
        cr_assert_eq(mb_controller_update(c, 1.0f / 60, p, NULL), MB_OK);
    }
    cr_assert_eq(alloc_calls, 1);
    free(x);
    mb_controller_destroy(c);
    free_fixture(&fx);
}

/* ================================================================ values, not shapes
 * Tests that check numbers against independent computations (issue 17): the default fade
 * curve, phase sync during a fade, and the mid-fade pose as a blend of the states' poses. */

/* The in-place pose of `state` alone at `phase`: a fresh controller reset there and
 * evaluated without advancing (no fade, no sync, no history involved). */
static void state_pose_at(const fixture *fx, int state, double phase, mb_xform *out)
{
    mb_controller *r = make_ctl(fx, state, 0);
    cr_assert_eq(mb_controller_reset(r, state, (float)phase), MB_OK);
    mb_pose p = {out, fx->nj};
    cr_assert_eq(mb_controller_update(r, 0.0f, p, NULL), MB_OK);
    mb_controller_destroy(r);
}

/* Circular distance of two phases in [0, 1). */
static double phase_gap(double a, double b)
{
    double d = fabs(a - b);
    return d > 0.5 ? 1.0 - d : d;
}

#define FADE_DT (1.0f / 60)
#define FADE_START_FRAMES 37

/* One probe of a walk -> run fade: walk FADE_START_FRAMES frames, request run with t, then
 * k updates of FADE_DT. Gives the walk's phase at the request, the last pose and state
 * weights, and both states' phases: the run's from the status, the walk's by turning the
 * fade back to it (a request for a state still fading out keeps its phase, and the status
 * then reports it). */
typedef struct fade_probe {
    double walk_phase0, walk_phase, run_phase;
    float w[4];
} fade_probe;

static fade_probe probe_fade(const fixture *fx, const mb_transition_desc *t, int k, mb_xform *pose)
{
    fade_probe r;
    mb_controller *c = make_ctl(fx, 0, 0);
    mb_pose p = {pose, fx->nj};
    for (int i = 0; i < FADE_START_FRAMES; ++i)
        cr_assert_eq(mb_controller_update(c, FADE_DT, p, NULL), MB_OK);
    mb_controller_status s;
    mb_controller_get_status(c, &s);
    r.walk_phase0 = s.phase;
    cr_assert_eq(mb_controller_request(c, 1, t), MB_OK);
    for (int i = 0; i < k; ++i)
        cr_assert_eq(mb_controller_update(c, FADE_DT, p, NULL), MB_OK);
    cr_assert_eq(mb_controller_state_weights(c, r.w, 4), MB_OK);
    mb_controller_get_status(c, &s);
    cr_assert(s.state == 1 && s.transitioning && s.tracks == 2, "frame %d: still fading", k);
    r.run_phase = s.phase;
    cr_assert_eq(mb_controller_request(c, 0, t), MB_OK);
    mb_controller_get_status(c, &s);
    cr_assert_eq(s.state, 0);
    r.walk_phase = s.phase;
    mb_controller_destroy(c);
    return r;
}

static double smoothstep(double s) { return s * s * (3.0 - 2.0 * s); }

/* A zeroed desc's curve (the default) is smoothstep: w = 3 s^2 - 2 s^3 of the elapsed share
 * s, for the target; the source gets the rest. */
Test(controller_values, default_crossfade_curve_is_smoothstep)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    mb_xform *x = malloc(sizeof *x * n);
    mb_pose p = {x, n};
    mb_controller *c = make_ctl(&fx, 0, 0);
    for (int k = 0; k < 10; ++k)
        cr_assert_eq(mb_controller_update(c, FADE_DT, p, NULL), MB_OK);
    mb_transition_desc t = {0}; /* curve: the default */
    t.duration = 0.5f;          /* 30 updates */
    cr_assert_eq(mb_controller_request(c, 1, &t), MB_OK);
    int checked = 0;
    for (int k = 1; k < 30; ++k) {
        cr_assert_eq(mb_controller_update(c, FADE_DT, p, NULL), MB_OK);
        float w[4];
        cr_assert_eq(mb_controller_state_weights(c, w, 4), MB_OK);
        double s = k * (double)FADE_DT / 0.5, want = 3 * s * s - 2 * s * s * s;
        cr_assert_float_eq(w[1], want, 1e-6, "s = %g: run weight %.7f, 3s^2 - 2s^3 = %.7f", s, w[1], want);
        cr_assert_float_eq(w[0], 1.0 - want, 1e-6, "s = %g: walk weight %.7f", s, w[0]);
        checked += fabs(want - s) > 0.05; /* where smoothstep and linear are told apart */
    }
    cr_assert_gt(checked, 10);
    free(x);
    mb_controller_destroy(c);
    free_fixture(&fx);
}

/* With sync, both clips of a fade advance by one phase step, dt over the cycle duration
 * interpolated with the weights the step starts from, so their phases stay equal and
 * follow that sum; without sync each runs at its own cycle's pace (the contrast that
 * shows the clips' cycles differ enough for the test to see it). */
Test(controller_values, synced_crossfade_keeps_the_phases_equal)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    mb_xform *x = malloc(sizeof *x * n);
    double Tw = mb_state_set_cycle_duration(fx.set, 0, 0.0f), Tr = mb_state_set_cycle_duration(fx.set, 1, 0.0f);
    const double dt = FADE_DT;
    int ks[] = {1, 4, 11, 20, 29};
    for (int sync = 1; sync >= 0; --sync) {
        mb_transition_desc t = {0};
        t.duration = 0.5f;
        t.sync = sync;
        t.start_phase = 0.6f;
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
            int k = ks[i];
            fade_probe r = probe_fade(&fx, &t, k, x);
            double want_walk = r.walk_phase0, want_run = sync ? r.walk_phase0 : (double)t.start_phase;
            for (int u = 1; u <= k; ++u) {
                /* the weights this step starts from: the previous update's */
                double wr = smoothstep((u - 1) * dt / 0.5);
                if (sync) {
                    double step = dt / ((1.0 - wr) * Tw + wr * Tr);
                    want_walk += step;
                    want_run += step;
                } else {
                    want_walk += dt / Tw;
                    want_run += dt / Tr;
                }
            }
            want_walk -= floor(want_walk);
            want_run -= floor(want_run);
            cr_assert_lt(phase_gap(r.walk_phase, want_walk), 1e-7, "sync %d frame %d: walk phase %.9f, expected %.9f",
                         sync, k, r.walk_phase, want_walk);
            cr_assert_lt(phase_gap(r.run_phase, want_run), 1e-7, "sync %d frame %d: run phase %.9f, expected %.9f",
                         sync, k, r.run_phase, want_run);
            if (sync)
                cr_assert_lt(phase_gap(r.walk_phase, r.run_phase), 1e-9, "frame %d: walk %.9f, run %.9f", k,
                             r.walk_phase, r.run_phase);
        }
    }
    /* unsynced, one update already moves the phases apart by far more than the tolerance */
    cr_assert_gt(fabs(dt / Tw - dt / Tr), 1e-3, "walk %g s and run %g s cycles", Tw, Tr);
    free(x);
    free_fixture(&fx);
}

/* Mid-fade, the pose is mb_blend_run of the two states' own poses at their phases, with
 * the weights mb_controller_state_weights reports (synced with the default curve, and
 * unsynced linear from another start phase). */
Test(controller_values, midfade_pose_is_the_blend_of_the_state_poses)
{
    fixture fx = make_fixture();
    int n = fx.nj;
    mb_xform *got = malloc(sizeof *got * n), *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n),
             *want = malloc(sizeof *want * n);
    int ks[] = {6, 10, 15, 22};
    for (int sync = 1; sync >= 0; --sync) {
        mb_transition_desc t = {0};
        t.duration = 0.5f;
        t.sync = sync;
        t.curve = sync ? MB_CURVE_SMOOTHSTEP : MB_CURVE_LINEAR;
        t.start_phase = 0.3f;
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
            fade_probe r = probe_fade(&fx, &t, ks[i], got);
            cr_assert(r.w[0] > 0.05f && r.w[1] > 0.05f, "a real mix: %g %g", r.w[0], r.w[1]);
            state_pose_at(&fx, 0, r.walk_phase, a);
            state_pose_at(&fx, 1, r.run_phase, b);
            mb_pose pa = {a, n}, pb = {b, n};
            mb_blend_layer l[2] = {{&pa, r.w[0], NULL}, {&pb, r.w[1], NULL}};
            mb_blend_desc bd = {0};
            bd.layers = l;
            bd.layer_count = 2;
            bd.out.joints = want;
            bd.out.count = n;
            cr_assert_eq(mb_blend_run(&bd), MB_OK);
            /* the two states really differ here, so a wrong weight or phase shows */
            cr_assert_gt(pose_angle(a, b, n), 0.1);
            double worst = pose_angle(got, want, n), worst_pos = 0.0;
            for (int j = 0; j < n; ++j)
                for (int c = 0; c < 3; ++c)
                    worst_pos = fmax(worst_pos, fabs(got[j].pos[c] - want[j].pos[c]));
            cr_assert_lt(worst, 2e-5, "sync %d frame %d: %g rad from the blend of the state poses", sync, ks[i], worst);
            cr_assert_lt(worst_pos, 2e-3, "sync %d frame %d: translation off by %g", sync, ks[i], worst_pos);
        }
    }
    free(got);
    free(a);
    free(b);
    free(want);
    free_fixture(&fx);
}

/* Issue 17's done-when: the library and `mblend blend` select cycles by one rule. Fox.glb's
 * Walk and Run are in-place loops (no foot is ever planted), so no touchdown cycle exists;
 * `mblend blend Fox.glb#Walk Fox.glb#Run` (run before the change) reports
 *   Fox.glb#Walk: cycle frames 0:17 (0.708 s), the whole loop
 *   Fox.glb#Run: cycle frames 0:139 (1.158 s), the whole loop
 * (18 frames at 24 fps and 140 at 120 fps, each last frame repeating the first). A state
 * set built from the same two clips as a 1D blend space used to fail ("no full gait
 * cycle"); it must now build on exactly those cycles. */
Test(controller, fox_blend_space_uses_the_cycles_mblend_blend_reports)
{
    if (!mb_scene_supported())
        cr_skip_test("mblend was built without assimp (MB_WITH_ASSIMP=OFF)");
    mb_scene *sc = NULL;
    mb_error e;
    cr_assert_eq(mb_scene_read_file(mb_shared_path("mesh/Fox.glb"), NULL, &sc, &e), MB_OK, "%s", e.text);
    const mb_skeleton *s = mb_scene_skeleton(sc);
    int iw = mb_scene_find_clip(sc, "Walk"), ir = mb_scene_find_clip(sc, "Run");
    cr_assert(iw >= 0 && ir >= 0);
    const mb_clip *walk = mb_scene_clip(sc, iw), *run = mb_scene_clip(sc, ir);

    /* The call mblend blend makes (glTF: +Y up, given as the CLI gives it). */
    mb_prepared_clip *p[2] = {NULL, NULL};
    const mb_clip *clips[2] = {walk, run};
    for (int k = 0; k < 2; ++k) {
        mb_prepare_desc pd = {0};
        pd.skeleton = s;
        pd.clip = clips[k];
        pd.source = k ? "Fox.glb#Run" : "Fox.glb#Walk";
        pd.up_axis = MB_AXIS_Y;
        cr_assert_eq(mb_clip_prepare(&pd, &p[k], &e), MB_OK, "%s: %s", e.source, e.text);
    }
    cr_assert_eq(mb_prepared_select_cycles(p, 2, MB_CYCLE_AUTO, &e), MB_OK, "%s: %s", e.source, e.text);
    const mb_prepared_info *wi = mb_prepared_clip_info(p[0]), *ri = mb_prepared_clip_info(p[1]);
    cr_assert_eq(wi->selection, MB_SELECT_WHOLE_LOOP);
    cr_assert_eq(ri->selection, MB_SELECT_WHOLE_LOOP);
    cr_assert_eq(wi->loop, MB_LOOP_REPEATS);
    cr_assert_eq(ri->loop, MB_LOOP_REPEATS);
    cr_assert(wi->range.start == 0 && wi->range.end == 17, "walk %d:%d", wi->range.start, wi->range.end);
    cr_assert(ri->range.start == 0 && ri->range.end == 139, "run %d:%d", ri->range.start, ri->range.end);
    cr_assert_float_eq(wi->range_seconds, 17.0 / 24.0, 1e-6);
    cr_assert_float_eq(ri->range_seconds, 139.0 / 120.0, 1e-6);
    cr_assert_str_eq(wi->warnings[0], "no foot touchdowns, but the clip loops (its last frame "
                                      "repeats its first): the whole clip is the cycle");

    /* The state set: one blend space of Walk (param 0) and Run (param 1), detected cycles. */
    mb_state_clip sc2[2];
    memset(sc2, 0, sizeof sc2);
    sc2[0].clip = walk;
    sc2[0].param = 0.0f;
    sc2[1].clip = run;
    sc2[1].param = 1.0f;
    mb_state_desc sd = {"locomotion", sc2, 2, 1, 0.0f};
    mb_state_set_desc d = {0};
    d.skeleton = s;
    d.states = &sd;
    d.state_count = 1;
    d.up_axis = MB_AXIS_Y;
    mb_state_set *set = NULL;
    cr_assert_eq(mb_state_set_create(&d, &set, &e), MB_OK, "%s: %s", e.source, e.text);
    /* at each end of the axis one clip plays: its cycle's duration is the selected range's */
    cr_assert_float_eq(mb_state_set_cycle_duration(set, 0, 0.0f), 17.0 / 24.0, 1e-6);
    cr_assert_float_eq(mb_state_set_cycle_duration(set, 0, 1.0f), 139.0 / 120.0, 1e-6);
    cr_assert_float_eq(mb_state_set_cycle_duration(set, 0, 0.0f), wi->range_seconds, 1e-9);
    cr_assert_float_eq(mb_state_set_cycle_duration(set, 0, 1.0f), ri->range_seconds, 1e-9);
    /* and it plays: a controller runs over it */
    mb_controller_desc cd = {0};
    cd.states = set;
    mb_controller *ctl = NULL;
    cr_assert_eq(mb_controller_create(&cd, &ctl, NULL), MB_OK);
    int nj = mb_skeleton_joint_count(s);
    mb_xform *pose = calloc((size_t)nj, sizeof *pose);
    cr_assert_not_null(pose);
    for (int k = 0; k < 30; ++k)
        cr_assert_eq(mb_controller_update(ctl, 1.0f / 30.0f, (mb_pose){pose, nj}, NULL), MB_OK);
    free(pose);
    mb_controller_destroy(ctl);
    mb_state_set_destroy(set);
    mb_prepared_clip_destroy(p[0]);
    mb_prepared_clip_destroy(p[1]);
    mb_scene_destroy(sc);
}

/* A loop whose last frame runs on into frame 0 (glTF loops without a repeated end key):
 * Fox's Walk without its repeated last key (17 frames). mblend blend takes frames 0:17 as
 * its cycle, frame 17 being frame 0; the state set plays the same cycle, so after one
 * cycle (17/24 s) the pose is frame 0's again, and half a frame before it lies between
 * frames 16 and 0. */
Test(controller, a_loop_running_on_into_frame_0_plays_round)
{
    if (!mb_scene_supported())
        cr_skip_test("mblend was built without assimp (MB_WITH_ASSIMP=OFF)");
    mb_scene *sc = NULL;
    mb_error e;
    cr_assert_eq(mb_scene_read_file(mb_shared_path("mesh/Fox.glb"), NULL, &sc, &e), MB_OK, "%s", e.text);
    const mb_skeleton *s = mb_scene_skeleton(sc);
    const mb_clip *walk = mb_scene_clip(sc, mb_scene_find_clip(sc, "Walk"));
    cr_assert_eq(mb_clip_frame_count(walk), 18);
    mb_clip_desc cd = {0};
    cd.joint_count = mb_clip_joint_count(walk);
    cd.frame_count = 17;
    cd.frame_time = mb_clip_frame_time(walk);
    cd.rotations = mb_clip_rotations(walk);
    cd.translation_count = mb_clip_translation_count(walk);
    cd.translation_joints = mb_clip_translation_joints(walk);
    cd.translations = cd.translation_count > 0 ? mb_clip_translations(walk) : NULL;
    mb_clip *cut = NULL;
    cr_assert_eq(mb_clip_create(&cd, &cut, NULL), MB_OK);

    mb_prepare_desc pd = {0};
    pd.skeleton = s;
    pd.clip = cut;
    pd.up_axis = MB_AXIS_Y;
    mb_prepared_clip *p = NULL;
    cr_assert_eq(mb_clip_prepare(&pd, &p, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_prepared_select_cycles(&p, 1, MB_CYCLE_AUTO, &e), MB_OK, "%s", e.text);
    const mb_prepared_info *pi = mb_prepared_clip_info(p);
    cr_assert_eq(pi->loop, MB_LOOP_RUNS_ON);
    cr_assert(pi->range.start == 0 && pi->range.end == 17, "%d:%d", pi->range.start, pi->range.end);

    mb_state_clip c = {0};
    c.clip = cut;
    mb_state_desc sd = {"walk", &c, 1, 1, 0.0f};
    mb_state_set_desc d = {0};
    d.skeleton = s;
    d.states = &sd;
    d.state_count = 1;
    d.up_axis = MB_AXIS_Y;
    mb_state_set *set = NULL;
    cr_assert_eq(mb_state_set_create(&d, &set, &e), MB_OK, "%s: %s", e.source, e.text);
    cr_assert_float_eq(mb_state_set_cycle_duration(set, 0, 0.0f), 17.0 / 24.0, 1e-6);
    mb_controller_desc ctl_d = {0};
    ctl_d.states = set;
    mb_controller *ctl = NULL;
    cr_assert_eq(mb_controller_create(&ctl_d, &ctl, NULL), MB_OK);
    int nj = mb_skeleton_joint_count(s);
    mb_xform *p0 = calloc((size_t)nj, sizeof *p0), *p1 = calloc((size_t)nj, sizeof *p1);
    mb_xform *f16 = calloc((size_t)nj, sizeof *f16), *f0 = calloc((size_t)nj, sizeof *f0);
    cr_assert(p0 && p1 && f16 && f0);
    cr_assert_eq(mb_clip_frame_pose(s, cut, 16, (mb_pose){f16, nj}), MB_OK);
    cr_assert_eq(mb_clip_frame_pose(s, cut, 0, (mb_pose){f0, nj}), MB_OK);
    cr_assert_eq(mb_controller_update(ctl, 0.0f, (mb_pose){p0, nj}, NULL), MB_OK);
    /* half a frame before the end of the cycle: the joints below the root lie halfway
     * between frames 16 and 0 (the root is in place, so it is left out) */
    cr_assert_eq(mb_controller_update(ctl, (float)(16.5 / 24.0), (mb_pose){p1, nj}, NULL), MB_OK);
    int root = mb_state_set_root(set), checked = 0;
    for (int j = 0; j < nj; ++j) {
        if (j == root || mb_skeleton_parents(s)[j] < 0)
            continue;
        double ang16 = mb_quat_angle_between(p1[j].rot, f16[j].rot);
        double ang0 = mb_quat_angle_between(p1[j].rot, f0[j].rot);
        double span = mb_quat_angle_between(f16[j].rot, f0[j].rot);
        if (span < 0.02)
            continue;
        cr_assert(ang0 < 0.75 * span && ang16 < 0.75 * span,
                  "joint %d: %.4f from frame 16, %.4f from frame 0, %.4f apart", j, ang16, ang0, span);
        ++checked;
    }
    cr_assert_gt(checked, 3);
    /* a whole cycle: frame 0 again */
    cr_assert_eq(mb_controller_update(ctl, (float)(0.5 / 24.0), (mb_pose){p1, nj}, NULL), MB_OK);
    for (int j = 0; j < nj; ++j)
        if (j != root && mb_skeleton_parents(s)[j] >= 0)
            cr_assert_lt(mb_quat_angle_between(p1[j].rot, p0[j].rot), 1e-3, "joint %d", j);
    free(p0);
    free(p1);
    free(f16);
    free(f0);
    mb_controller_destroy(ctl);
    mb_state_set_destroy(set);
    mb_prepared_clip_destroy(p);
    mb_clip_destroy(cut);
    mb_scene_destroy(sc);
}
