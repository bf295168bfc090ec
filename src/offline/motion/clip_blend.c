/* Whole-clip blending in normalised time, with root motion blended in heading frames. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/axis_internal.h"
#include "base/error_internal.h"
#include "mblend/offline/motion.h"
#include "mblend/offline/clip_build.h"
#include "mblend/offline/prepare.h"
#include "offline/motion/motion_internal.h"
#include "runtime/controller/rootmotion_internal.h"

/* ---------- the job ---------- */

typedef struct input_state {
    int start, end;     /* frames */
    double t0, len;     /* seconds: first sample time and span */
    double w;           /* normalised weight */
    mb_motion_info info;
    mb_xform *pose;     /* sampled pose of the current frame */
    double *root;       /* per output sample k = 0..frames: x, y, z, heading */
} input_state;

/* One blend as it runs: the inputs (prepared clips resolved), their state, the output. */
typedef struct job {
    const mb_clip_blend_desc *d;
    mb_error *err;
    mb_clip_input in[MB_BLEND_MAX_LAYERS];
    input_state *st;
    int L, nj, cyclic, up, root, frames, ntr;
    mb_wrap wrap;
    double wsum, total_len, ft;
    double P[3], psi;   /* the output root path: position and heading */
    const int *tracked;
    mb_xform *outpose;
    float *gaps, *angles;
    mb_clip *clip;
} job;

/* An input with what its prepared clip gives filled in. */
static mb_clip_input resolve_input(const mb_clip_input *in, const mb_prepared_clip *prepared)
{
    mb_clip_input r = *in;
    const mb_prepared_info *pi = mb_prepared_clip_info(prepared);
    if (!pi)
        return r;
    r.skeleton = pi->skeleton;
    r.clip = pi->clip;
    r.source = pi->source;
    r.info = &pi->motion;
    if (r.range.end == 0 && pi->selection != MB_SELECT_PENDING)
        r.range = pi->range;
    return r;
}

static mb_status topology_error(const mb_clip_input *in0, const mb_clip_input *in, int diff,
                                mb_error *err)
{
    const mb_skeleton *s0 = in0->skeleton;
    const char *first = in0->source ? in0->source : "the first input";
    int na = mb_skeleton_joint_count(s0), nb = mb_skeleton_joint_count(in->skeleton);
    if (diff >= na || diff >= nb)
        return mb_error_set_(err, MB_MISMATCH, mb_name_(in->source, "<clip>"), "skeleton has %d joints and End Sites, %s has %d",
                    nb, first, na);
    return mb_error_set_(err, MB_MISMATCH, mb_name_(in->source, "<clip>"),
                "skeletons differ at joint %d: '%s' (parent %d) here, '%s' (parent %d) in %s", diff,
                mb_skeleton_name(in->skeleton, diff), mb_skeleton_parents(in->skeleton)[diff],
                mb_skeleton_name(s0, diff), mb_skeleton_parents(s0)[diff], first);
}

/* Checks the desc and resolves its inputs into j->in; sums the weights. */
static mb_status validate_desc(job *j)
{
    const mb_clip_blend_desc *d = j->d;
    mb_error *err = j->err;
    if (!d->inputs || d->input_count < 1 || d->input_count > MB_BLEND_MAX_LAYERS)
        return mb_error_set_(err, MB_INVALID_ARG, "<clip>", "clip blend needs 1 to %d inputs", MB_BLEND_MAX_LAYERS);
    if (!(d->frame_time >= 0.0) || !isfinite(d->frame_time) || !mb_axis_valid_(d->up_axis) ||
        (unsigned)d->method > (unsigned)MB_BLEND_KARCHER)
        return mb_error_set_(err, MB_INVALID_ARG, "<clip>", "bad frame time (%g), up axis (%d) or method (%d)",
                    d->frame_time, (int)d->up_axis, (int)d->method);
    j->L = d->input_count;
    for (int i = 0; i < j->L; ++i)
        j->in[i] = resolve_input(&d->inputs[i], d->prepared ? d->prepared[i] : NULL);
    const mb_clip_input *in0 = &j->in[0];
    if (!in0->skeleton || !in0->clip)
        return mb_error_set_(err, MB_INVALID_ARG, mb_name_(in0->source, "<clip>"), "input without skeleton or clip");
    j->wsum = 0.0;
    for (int i = 0; i < j->L; ++i) {
        const mb_clip_input *in = &j->in[i];
        if (!in->skeleton || !in->clip || mb_clip_joint_count(in->clip) != mb_skeleton_joint_count(in->skeleton))
            return mb_error_set_(err, MB_INVALID_ARG, mb_name_(in->source, "<clip>"), "input without a matching skeleton and clip");
        if (!isfinite(in->weight) || in->weight < 0.0f)
            return mb_error_set_(err, MB_INVALID_ARG, mb_name_(in->source, "<clip>"), "weight must be finite and >= 0, got %g",
                        (double)in->weight);
        j->wsum += in->weight;
        int diff;
        if (!mb_skeleton_same_topology(in0->skeleton, in->skeleton, &diff))
            return topology_error(in0, in, diff, err);
    }
    if (!(j->wsum > 0.0))
        return mb_error_set_(err, MB_INVALID_ARG, "<clip>", "the weights sum to zero");
    return MB_OK;
}

/* Input i's frames, span, weight and analysis. */
static mb_status setup_input(job *j, int i)
{
    const mb_clip_input *in = &j->in[i];
    input_state *is = &j->st[i];
    int nf = mb_clip_frame_count(in->clip), cyclic = j->cyclic;
    double ft = mb_clip_frame_time(in->clip);
    is->start = in->range.start;
    is->end = in->range.end == 0 ? (cyclic ? nf - 1 : nf) : in->range.end;
    /* Cyclic ranges sample frame `end` (it continues `start`), so it must exist, or be
     * frame_count for a clip that loops back to frame 0 (sampled with MB_WRAP_LOOP). */
    int last = cyclic ? (is->end == nf ? nf - 1 : is->end) : is->end - 1;
    if (is->start < 0 || is->end <= is->start || last >= nf || (!cyclic && is->end - is->start < 1))
        return mb_error_set_(j->err, MB_INVALID_ARG, mb_name_(in->source, "<clip>"),
                    "frame range %d:%d does not fit a clip of %d frames%s", in->range.start, is->end,
                    nf, cyclic ? " (a cycle needs frame END to exist too)" : "");
    is->w = in->weight / j->wsum;
    is->t0 = is->start * ft;
    is->len = (cyclic ? is->end - is->start : is->end - 1 - is->start) * ft;
    j->total_len += is->w * is->len;
    if (in->info) {
        mb_status rc = mb_motion_info_check_(in->info, in->skeleton, in->clip, in->source, j->err);
        if (rc == MB_OK)
            is->info = *in->info;
        return rc;
    }
    if (nf >= 2) {
        mb_analyze_desc ad = {0};
        ad.up_axis = j->d->up_axis;
        return mb_motion_analyze(in->skeleton, in->clip, &ad, in->source, &is->info, j->err);
    }
    memset(&is->info, 0, sizeof is->info);
    is->info.up_axis = j->d->up_axis != MB_AXIS_DETECT ? j->d->up_axis : MB_AXIS_Y;
    return MB_OK;
}

/* The output's axis, root, frame time and frame count; scratch buffers. */
static mb_status setup_output(job *j)
{
    const mb_clip_blend_desc *d = j->d;
    j->up = mb_axis_index(d->up_axis != MB_AXIS_DETECT ? d->up_axis : j->st[0].info.up_axis);
    j->root = j->st[0].info.root;
    double ft = d->frame_time > 0.0 ? d->frame_time : mb_clip_frame_time(j->in[0].clip);
    if (!isfinite(ft) || !(ft > 0.0))
        return mb_error_set_(j->err, MB_INVALID_ARG, "<clip>", "frame time must be positive");
    double nfr = j->cyclic ? floor(j->total_len / ft + 0.5) : floor(j->total_len / ft + 0.5) + 1.0;
    if (nfr < 1.0)
        nfr = 1.0;
    if (nfr > MB_MAX_FRAMES)
        return mb_error_set_(j->err, MB_LIMIT, "<clip>", "the blend would have %.4g frames of %.4g s (limit %d)",
                    nfr, ft, MB_MAX_FRAMES);
    j->ft = ft;
    j->frames = (int)nfr;
    int nj = j->nj;
    for (int i = 0; i < j->L; ++i) {
        j->st[i].pose = malloc((size_t)nj * sizeof(mb_xform));
        j->st[i].root = malloc(4 * ((size_t)j->frames + 1) * sizeof(double));
        if (!j->st[i].pose || !j->st[i].root)
            return mb_error_set_(j->err, MB_NOMEM, "<clip>", "out of memory");
    }
    j->outpose = malloc((size_t)nj * sizeof *j->outpose);
    j->gaps = malloc((size_t)nj * sizeof *j->gaps);
    j->angles = malloc((size_t)nj * sizeof *j->angles);
    if (!j->outpose || !j->gaps || !j->angles)
        return mb_error_set_(j->err, MB_NOMEM, "<clip>", "out of memory");
    return MB_OK;
}

/* Phase of output sample k (k = frames is one past the end, for the last delta). */
static double phase_of(const job *j, int k)
{
    if (j->cyclic)
        return (double)k / j->frames;
    return j->frames > 1 ? (double)k / (j->frames - 1) : 0.0;
}

/* Pass 1: input i's root path (world position and unwrapped heading) at every phase. The
 * heading is the facing from the hips where the first input's feet are known (the
 * inputs share its topology), as in the controller: the root's twist would depend on
 * how the root's axes are set up (a Z-up copy of a take blended 0.04 degrees off). */
static mb_status root_path(job *j, int i, const int hips[2])
{
    const mb_clip_input *in = &j->in[i];
    const int *parents = mb_skeleton_parents(in->skeleton);
    mb_pose p = {j->st[i].pose, j->nj};
    double unwrap = 0.0, prev = 0.0;
    for (int k = 0; k <= j->frames; ++k) {
        double ph = phase_of(j, k);
        if (!j->cyclic && ph > 1.0)
            ph = 1.0;
        mb_status rc = mb_clip_sample(in->skeleton, in->clip, j->st[i].t0 + ph * j->st[i].len,
                                      j->wrap, p);
        if (rc != MB_OK)
            return mb_error_set_(j->err, rc, mb_name_(in->source, "<clip>"), "sampling failed");
        double q[4], pos[3];
        mb_rm_chain_world(parents, &p, j->root, q, pos);
        double h = mb_rm_pose_heading(j->up, parents, &p, hips, q);
        if (k > 0) /* unwrap so deltas never jump by 2 pi */
            unwrap += mb_rm_wrap(h - prev);
        else
            unwrap = h;
        prev = h;
        double *r = &j->st[i].root[4 * k];
        r[0] = pos[0];
        r[1] = pos[1];
        r[2] = pos[2];
        r[3] = unwrap;
    }
    return MB_OK;
}

/* The output root path starts at the weighted mean of the start positions and headings. */
static void start_path(job *j)
{
    double sn = 0.0, cs = 0.0;
    j->P[0] = j->P[1] = j->P[2] = 0.0;
    for (int i = 0; i < j->L; ++i) {
        for (int k = 0; k < 3; ++k)
            j->P[k] += j->st[i].w * j->st[i].root[k];
        sn += j->st[i].w * sin(j->st[i].root[3]);
        cs += j->st[i].w * cos(j->st[i].root[3]);
    }
    j->psi = atan2(sn, cs);
}

/* Integrates the blended step into frame k, each input's step seen from its own heading. */
static void step_path(job *j, int k)
{
    double step[3] = {0, 0, 0}, dpsi = 0.0;
    for (int i = 0; i < j->L; ++i) {
        double lv[3], dp;
        mb_rm_local_step(j->up, &j->st[i].root[4 * (k - 1)], &j->st[i].root[4 * k], lv, &dp);
        for (int c = 0; c < 3; ++c)
            step[c] += j->st[i].w * lv[c];
        dpsi += j->st[i].w * dp;
    }
    mb_rm_integrate(j->up, j->P, &j->psi, step, dpsi);
}

/* Samples every input at output frame k with its root rotation relative to its own
 * heading, into layers; *height is the blended root height. */
static mb_status sample_layers(job *j, int k, mb_pose *poses, mb_blend_layer *layers,
                               double *height)
{
    double ph = phase_of(j, k);
    int nj = j->nj, root = j->root, up = j->up;
    *height = 0.0;
    for (int i = 0; i < j->L; ++i) {
        const mb_clip_input *in = &j->in[i];
        poses[i].joints = j->st[i].pose;
        poses[i].count = nj;
        mb_status rc = mb_clip_sample(in->skeleton, in->clip, j->st[i].t0 + ph * j->st[i].len,
                                      j->wrap, poses[i]);
        if (rc != MB_OK)
            return rc;
        *height += j->st[i].w * j->st[i].root[4 * k + up];
        /* Root rotation relative to its own heading, in world axes. */
        double q[4], pos[3], yq[4], rel[4];
        mb_rm_chain_world(mb_skeleton_parents(in->skeleton), &poses[i], root, q, pos);
        mb_rm_yaw_quat(up, -j->st[i].root[4 * k + 3], yq);
        mb_qmul_d_(yq, q, rel);
        for (int c = 0; c < 4; ++c)
            j->st[i].pose[root].rot[c] = (float)rel[c];
        /* other ROOTs into the root's heading frame, from its horizontal position */
        const double zero[3] = {0, 0, 0};
        mb_rm_map_other_roots(in->skeleton, root, j->st[i].pose, up, yq, pos, zero);
        layers[i].pose = &poses[i];
        layers[i].weight = (float)j->st[i].w;
        layers[i].joint_weights = NULL;
    }
    return MB_OK;
}

/* Blends the layers of frame k into j->outpose and reports it. */
static mb_status blend_layers(job *j, int k, const mb_blend_layer *layers)
{
    const mb_clip_blend_desc *d = j->d;
    mb_blend_diag diag = {j->gaps, j->angles, j->nj, 0};
    mb_blend_desc bd = {0};
    bd.layers = layers;
    bd.layer_count = j->L;
    bd.method = d->method;
    bd.solver = d->solver;
    bd.out.joints = j->outpose;
    bd.out.count = j->nj;
    bd.diag = d->report ? &diag : NULL;
    mb_status rc = mb_blend_run(&bd);
    if (rc != MB_OK)
        return mb_error_set_(j->err, rc, "<clip>", "blending frame %d failed: %s", k, mb_status_str(rc));
    if (d->report) {
        mb_pose bp = {j->outpose, j->nj};
        rc = d->report(d->report_user, k, phase_of(j, k), layers, j->L, &bp, &diag);
        if (rc != MB_OK)
            return mb_error_set_(j->err, rc, "<clip>", "the report callback stopped the blend at frame %d", k);
    }
    return MB_OK;
}

/* Puts the blended root back on the integrated path, under the first input's (static)
 * ancestors: local = parent_world^-1 * world. */
static void place_root(job *j, double height)
{
    const int *parents = mb_skeleton_parents(j->in[0].skeleton);
    int root = j->root, up = j->up;
    mb_xform *outpose = j->outpose;
    double yq[4], rel[4] = {outpose[root].rot[0], outpose[root].rot[1], outpose[root].rot[2],
                            outpose[root].rot[3]};
    double wq[4], wp[3] = {j->P[0], j->P[1], j->P[2]};
    wp[up] = height;
    mb_rm_yaw_quat(up, j->psi, yq);
    mb_qmul_d_(yq, rel, wq);
    double pq[4] = {0, 0, 0, 1}, pp[3] = {0, 0, 0};
    if (parents[root] >= 0) {
        mb_pose p0 = {j->st[0].pose, j->nj};
        mb_rm_chain_world(parents, &p0, parents[root], pq, pp);
    }
    mb_rm_world_to_local(pq, pp, wq, wp, outpose[root].rot, outpose[root].pos);
    const double zero[3] = {0, 0, 0};
    mb_rm_map_other_roots(j->in[0].skeleton, root, outpose, up, yq, zero, j->P);
}

/* Writes j->outpose as output frame k, keeping every track sign-continuous. */
static void store_frame(job *j, int k)
{
    int nj = j->nj;
    float *fr = mb_clip_rotations_mut(j->clip) + 4 * (size_t)k * nj;
    float *otr = mb_clip_translations_mut(j->clip);
    for (int jt = 0; jt < nj; ++jt) {
        float *q = fr + 4 * jt;
        memcpy(q, j->outpose[jt].rot, sizeof j->outpose[jt].rot);
        if (k > 0) {
            const float *pq = q - 4 * nj;
            if (q[0] * pq[0] + q[1] * pq[1] + q[2] * pq[2] + q[3] * pq[3] < 0.0f)
                for (int c = 0; c < 4; ++c)
                    q[c] = -q[c];
        }
    }
    for (int t = 0; t < j->ntr; ++t)
        memcpy(otr + 3 * ((size_t)k * j->ntr + t), j->outpose[j->tracked[t]].pos,
               sizeof j->outpose[0].pos);
}

/* Every output frame: the path step, the layers, the blend, the root, the store. */
static mb_status blend_frames(job *j)
{
    mb_blend_layer layers[MB_BLEND_MAX_LAYERS];
    mb_pose poses[MB_BLEND_MAX_LAYERS];
    start_path(j);
    for (int k = 0; k < j->frames; ++k) {
        if (k > 0)
            step_path(j, k);
        double height;
        mb_status rc = sample_layers(j, k, poses, layers, &height);
        if (rc == MB_OK)
            rc = blend_layers(j, k, layers);
        if (rc != MB_OK)
            return rc;
        place_root(j, height);
        store_frame(j, k);
    }
    return MB_OK;
}

/* Everything after validation; the caller frees the job. */
static mb_status run_job(job *j)
{
    mb_status rc = MB_OK;
    for (int i = 0; i < j->L && rc == MB_OK; ++i)
        rc = setup_input(j, i);
    if (rc == MB_OK)
        rc = setup_output(j);
    if (rc != MB_OK)
        return rc;
    int hips[2];
    mb_motion_hips_(j->in[0].skeleton, j->root, &j->st[0].info, hips);
    for (int i = 0; i < j->L && rc == MB_OK; ++i)
        rc = root_path(j, i, hips);
    if (rc != MB_OK)
        return rc;
    /* The output is on the first input's skeleton, so it tracks that skeleton's joints with
     * position channels: the only ones whose translation it can carry (and the BVH writer
     * write). Inputs whose clips track other sets still blend correctly, since sampling
     * gives an untracked joint its offset. */
    j->tracked = mb_skeleton_translation_joints(j->in[0].skeleton, &j->ntr);
    rc = mb_clip_alloc(j->nj, j->frames, j->ft, j->tracked, j->ntr, &j->d->allocator, &j->clip, NULL);
    if (rc != MB_OK)
        return mb_error_set_(j->err, rc, "<clip>", "cannot allocate the output clip");
    return blend_frames(j);
}

mb_status mb_clip_blend(const mb_clip_blend_desc *d, mb_clip **out, mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    if (!d || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "<clip>", "clip blend needs 1 to %d inputs", MB_BLEND_MAX_LAYERS);
    job *j = calloc(1, sizeof *j);
    if (!j)
        return mb_error_set_(err, MB_NOMEM, "<clip>", "out of memory");
    j->d = d;
    j->err = err;
    mb_status rc = validate_desc(j);
    if (rc == MB_OK) {
        j->nj = mb_skeleton_joint_count(j->in[0].skeleton);
        j->cyclic = d->cyclic != 0;
        /* Loop wrap is the clamp inside a range; it differs only for a range ending at
         * frame_count, whose end continues into frame 0. */
        j->wrap = j->cyclic ? MB_WRAP_LOOP : MB_WRAP_CLAMP;
        j->st = calloc((size_t)j->L, sizeof *j->st);
        rc = j->st ? run_job(j) : mb_error_set_(err, MB_NOMEM, "<clip>", "out of memory");
    }
    for (int i = 0; j->st && i < j->L; ++i) {
        free(j->st[i].pose);
        free(j->st[i].root);
    }
    free(j->st);
    free(j->outpose);
    free(j->gaps);
    free(j->angles);
    if (rc == MB_OK)
        *out = j->clip;
    else
        mb_clip_destroy(j->clip);
    free(j);
    return rc;
}
