/* Quality of a built transition against its inputs: root steps, joint angular speeds,
 * foot skate (see mb_transition_quality). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "mblend/math.h"
#include "mblend/offline/transition_build.h"
#include "offline/motion/motion_internal.h"

#define MIN_ANGULAR_SPEED 0.05 /* rad/s: below this a joint counts as static */

typedef struct clip_view {
    const mb_clip *c;
    mb_motion_info info;
    float *pos; /* [frame][joint][3] */
    int nf, nj;
    double ft;
    float contact_max; /* foot heights up to this count as contact */
} clip_view;

#define MEASURE_SRC "transition quality"

/* Clip c (named name in messages) with its analysis (given, analysed here, or fallback's
 * with no T-pose frame), positions and contact height. */
static mb_status view_init(const mb_skeleton *s, const mb_clip *c, const mb_motion_info *given,
                           const mb_motion_info *fallback, const char *name, clip_view *v,
                           mb_error *err)
{
    memset(v, 0, sizeof *v);
    v->c = c;
    v->nf = mb_clip_frame_count(c);
    v->nj = mb_clip_joint_count(c);
    v->ft = mb_clip_frame_time(c);
    if (given) {
        v->info = *given;
    } else if (fallback) {
        v->info = *fallback;
        v->info.first_frame = 0;
    } else {
        mb_status st = mb_motion_analyze(s, c, NULL, name, &v->info, err);
        if (st != MB_OK)
            return st;
    }
    v->pos = malloc((size_t)v->nf * v->nj * 3 * sizeof *v->pos);
    if (!v->pos)
        return mb_error_set_(err, MB_NOMEM, MEASURE_SRC, "out of memory for %s's positions", name);
    mb_status st = mb_motion_positions_(s, c, v->pos);
    if (st != MB_OK)
        return mb_error_set_(err, st, MEASURE_SRC, "cannot pose %s: %s", name, mb_status_str(st));
    if (v->info.left_foot < 0 || v->info.right_foot < 0)
        return mb_error_set_(err, MB_MISMATCH, MEASURE_SRC, "%s: the feet are unknown (foot skate "
                             "needs them)", name);
    /* Contact: within MB_CONTACT_HEIGHT (6%) of the body height above the lowest foot height of the clip. */
    float lo = INFINITY;
    for (int f = v->info.first_frame; f < v->nf; ++f)
        for (int side = 0; side < 2; ++side) {
            int j = side ? v->info.right_foot : v->info.left_foot;
            float h = v->pos[3 * ((size_t)f * v->nj + j) + mb_axis_index(v->info.up_axis)];
            lo = h < lo ? h : lo;
        }
    v->contact_max = lo + (float)MB_CONTACT_HEIGHT * v->info.height;
    return MB_OK;
}

static const float *vpos(const clip_view *v, int f, int j) { return &v->pos[3 * ((size_t)f * v->nj + j)]; }

static double hdist(const float *a, const float *b, int up)
{
    double s = 0.0;
    for (int k = 0; k < 3; ++k)
        if (k != up)
            s += (double)(b[k] - a[k]) * (b[k] - a[k]);
    return sqrt(s);
}

static double dist3(const float *a, const float *b)
{
    double s = 0.0;
    for (int k = 0; k < 3; ++k)
        s += (double)(b[k] - a[k]) * (b[k] - a[k]);
    return sqrt(s);
}

/* Largest root step over frames [f0, f1). */
static double max_root_step(const clip_view *v, int root, int f0, int f1)
{
    double m = 0.0;
    for (int f = f0; f + 1 < f1; ++f) {
        double d = dist3(vpos(v, f, root), vpos(v, f + 1, root));
        m = d > m ? d : m;
    }
    return m;
}

/* Largest angular speed (rad/s) of joint j over consecutive frames in [f0, f1). */
static double max_ang_speed(const clip_view *v, int j, int f0, int f1)
{
    const float *r = mb_clip_rotations(v->c);
    double m = 0.0;
    for (int f = f0; f + 1 < f1; ++f) {
        double a = mb_quat_angle_between(r + 4 * ((size_t)f * v->nj + j), r + 4 * ((size_t)(f + 1) * v->nj + j));
        m = a > m ? a : m;
    }
    return m / v->ft;
}

/* Sum and count of contact foot speeds over consecutive frames in [f0, f1). */
static void skate_sum(const clip_view *v, int f0, int f1, double *sum, int *count)
{
    int up = mb_axis_index(v->info.up_axis);
    for (int f = f0; f + 1 < f1; ++f)
        for (int side = 0; side < 2; ++side) {
            int j = side ? v->info.right_foot : v->info.left_foot;
            const float *a = vpos(v, f, j), *b = vpos(v, f + 1, j);
            if (a[up] <= v->contact_max && b[up] <= v->contact_max) {
                *sum += hdist(a, b, up) / v->ft;
                ++*count;
            }
        }
}

static int clampi(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }

mb_status mb_transition_measure(const mb_transition_measure_desc *d, mb_transition_quality *out,
                                mb_error *err)
{
    mb_error_clear_(err);
    mb_transition_measure_desc local;
    if (d && (d->prepared_a || d->prepared_b)) {
        local = *d;
        mb_prepared_fill_(d->prepared_a, NULL, &local.a, &local.info_a, NULL);
        mb_prepared_fill_(d->prepared_b, NULL, &local.b, &local.info_b, NULL);
        d = &local;
    }
    if (!d || !out || !d->skeleton || !d->a || !d->b || !d->out || !d->result)
        return mb_error_set_(err, MB_INVALID_ARG, MEASURE_SRC, "a desc with a skeleton, A, B, the "
                             "output and its result, and an output, are needed");
    if (!isfinite(d->at) || !isfinite(d->duration) || d->duration < 0.0 || !isfinite(d->around) ||
        d->around < 0.0)
        return mb_error_set_(err, MB_INVALID_ARG, MEASURE_SRC, "at %g s, duration %g s, around %g s: "
                             "finite, duration and around >= 0", d->at, d->duration, d->around);
    const mb_transition_result *r = d->result;
    int nj = mb_skeleton_joint_count(d->skeleton);
    if (mb_clip_joint_count(d->a) != nj || mb_clip_joint_count(d->b) != nj || mb_clip_joint_count(d->out) != nj)
        return mb_error_set_(err, MB_INVALID_ARG, MEASURE_SRC, "A, B and the output need the "
                             "skeleton's %d joints", nj);
    if (r->transition_start < 0 || r->transition_end < r->transition_start ||
        r->transition_end >= mb_clip_frame_count(d->out))
        return mb_error_set_(err, MB_INVALID_ARG, MEASURE_SRC, "the result's transition frames "
                             "%d..%d are not in the output's %d frames", r->transition_start,
                             r->transition_end, mb_clip_frame_count(d->out));
    clip_view va, vb, vo;
    memset(&va, 0, sizeof va);
    memset(&vb, 0, sizeof vb);
    memset(&vo, 0, sizeof vo);
    mb_status st = view_init(d->skeleton, d->a, d->info_a, NULL, "A", &va, err);
    if (st == MB_OK)
        st = view_init(d->skeleton, d->b, d->info_b, NULL, "B", &vb, err);
    if (st == MB_OK)
        st = view_init(d->skeleton, d->out, NULL, &va.info, "the output", &vo, err);
    if (st != MB_OK)
        goto done;
    /* The output's contact height: the higher of the inputs' (B may stand on another floor). */
    vo.contact_max = va.contact_max > vb.contact_max ? va.contact_max : vb.contact_max;
    int root = va.info.root;
    double around = d->around > 0.0 ? d->around : 0.5;
    int ka = mb_frame_int_(floor(d->at / va.ft + 0.5)), kb = mb_frame_int_(floor(r->b_start / vb.ft + 0.5));
    if (ka < 0 || ka >= va.nf || kb < 0 || kb >= vb.nf) { /* not this transition's points */
        st = mb_error_set_(err, MB_INVALID_ARG, MEASURE_SRC, "at %g s or B's start %g s is "
                           "outside its clip", d->at, r->b_start);
        goto done;
    }
    memset(out, 0, sizeof *out);
    int a0 = clampi(ka - mb_frame_int_(ceil(around / va.ft)), va.info.first_frame, va.nf);
    int a1 = clampi(ka + mb_frame_int_(ceil((d->duration + around) / va.ft)) + 1, va.info.first_frame, va.nf);
    int b0 = clampi(kb - mb_frame_int_(ceil(around / vb.ft)), vb.info.first_frame, vb.nf);
    int b1 = clampi(kb + mb_frame_int_(ceil((d->duration + around) / vb.ft)) + 1, vb.info.first_frame, vb.nf);
    int t0 = r->transition_start, t1 = r->transition_end + 1;

    /* Root path over the whole output against the inputs' own steps. */
    out->root_step_out = max_root_step(&vo, root, 0, vo.nf);
    double sa = max_root_step(&va, root, va.info.first_frame, va.nf);
    double sb = max_root_step(&vb, root, vb.info.first_frame, vb.nf) * vo.ft / vb.ft;
    out->root_step_in = sa > sb ? sa : sb;
    out->root_step_ratio = out->root_step_in > 0.0 ? out->root_step_out / out->root_step_in : 0.0;

    /* Angular speeds during the transition against the inputs around its two points. */
    out->angular_joint = -1;
    for (int j = 0; j < nj; ++j) {
        if (mb_skeleton_is_end_site(d->skeleton, j))
            continue;
        double wo = max_ang_speed(&vo, j, t0, t1);
        double wa = max_ang_speed(&va, j, a0, a1), wb = max_ang_speed(&vb, j, b0, b1);
        double wi = wa > wb ? wa : wb;
        double ratio = wo / (wi > MIN_ANGULAR_SPEED ? wi : MIN_ANGULAR_SPEED);
        if (out->angular_joint < 0 || ratio > out->angular_ratio) {
            out->angular_ratio = ratio;
            out->angular_out = wo;
            out->angular_in = wi;
            out->angular_joint = j;
        }
    }

    /* Foot skate. */
    double so = 0.0, si = 0.0;
    int no = 0, ni = 0;
    skate_sum(&vo, t0, t1, &so, &no);
    skate_sum(&va, a0, a1, &si, &ni);
    skate_sum(&vb, b0, b1, &si, &ni);
    out->skate_out = no ? so / no : 0.0;
    out->skate_in = ni ? si / ni : 0.0;
    out->skate_frames_out = no;
    out->skate_frames_in = ni;
    out->skate_ratio = out->skate_in > 0.0 ? out->skate_out / out->skate_in : 0.0;

done:
    free(va.pos);
    free(vb.pos);
    free(vo.pos);
    return st;
}
