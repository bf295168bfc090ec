/* Whole-clip blending in normalised time, with root motion blended in heading frames. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "mblend/motion.h"
#include "motion/motion_internal.h"
#include "motion/rootmotion_internal.h"

/* ---------- errors ---------- */

#define fail(err, code, source, ...) mb_error_set_((err), (code), (source) ? (source) : "<clip>", __VA_ARGS__)


/* ---------- the job ---------- */

typedef struct input_state {
    int start, end;     /* frames */
    double t0, len;     /* seconds: first sample time and span */
    double w;           /* normalised weight */
    mb_motion_info info;
    mb_xform *pose;     /* sampled pose of the current frame */
    double *root;       /* per output sample k = 0..frames: x, y, z, heading */
} input_state;

mb_status mb_clip_blend(const mb_clip_blend_desc *d, mb_clip **out, mb_error *err)
{
    if (out)
        *out = NULL;
    if (!d || !out || !d->inputs || d->input_count < 1 || d->input_count > MB_BLEND_MAX_LAYERS)
        return fail(err, MB_INVALID_ARG, NULL, "clip blend needs 1 to %d inputs", MB_BLEND_MAX_LAYERS);
    if (!(d->frame_time >= 0.0) || !isfinite(d->frame_time) || d->up_axis < 0 || d->up_axis > 3 ||
        (unsigned)d->method > (unsigned)MB_BLEND_KARCHER)
        return fail(err, MB_INVALID_ARG, NULL, "bad frame time (%g), up axis (%d) or method (%d)",
                    d->frame_time, d->up_axis, (int)d->method);
    int L = d->input_count;
    const mb_clip_input *in0 = &d->inputs[0];
    if (!in0->skeleton || !in0->clip)
        return fail(err, MB_INVALID_ARG, in0->source, "input without skeleton or clip");
    const mb_skeleton *s0 = in0->skeleton;
    int nj = mb_skeleton_joint_count(s0);
    double wsum = 0.0;
    for (int i = 0; i < L; ++i) {
        const mb_clip_input *in = &d->inputs[i];
        if (!in->skeleton || !in->clip || mb_clip_joint_count(in->clip) != mb_skeleton_joint_count(in->skeleton))
            return fail(err, MB_INVALID_ARG, in->source, "input without a matching skeleton and clip");
        if (!isfinite(in->weight) || in->weight < 0.0f)
            return fail(err, MB_INVALID_ARG, in->source, "weight must be finite and >= 0, got %g",
                        (double)in->weight);
        wsum += in->weight;
        int diff;
        if (!mb_skeleton_same_topology(s0, in->skeleton, &diff)) {
            int na = mb_skeleton_joint_count(s0), nb = mb_skeleton_joint_count(in->skeleton);
            if (diff >= na || diff >= nb)
                return fail(err, MB_MISMATCH, in->source,
                            "skeleton has %d joints and End Sites, %s has %d", nb,
                            in0->source ? in0->source : "the first input", na);
            return fail(err, MB_MISMATCH, in->source,
                        "skeletons differ at joint %d: '%s' (parent %d) here, '%s' (parent %d) in %s",
                        diff, mb_skeleton_name(in->skeleton, diff), mb_skeleton_parents(in->skeleton)[diff],
                        mb_skeleton_name(s0, diff), mb_skeleton_parents(s0)[diff],
                        in0->source ? in0->source : "the first input");
        }
    }
    if (!(wsum > 0.0))
        return fail(err, MB_INVALID_ARG, NULL, "the weights sum to zero");

    input_state *st = calloc((size_t)L, sizeof *st);
    if (!st)
        return fail(err, MB_NOMEM, NULL, "out of memory");
    mb_status rc = MB_OK;
    mb_clip *clip = NULL;
    mb_xform *outpose = NULL;
    float *gaps = NULL, *angles = NULL;
    int cyclic = d->cyclic != 0;
    /* Loop wrap is the clamp inside a range; it differs only for a range ending at
     * frame_count, whose end continues into frame 0. */
    const mb_wrap wrap = cyclic ? MB_WRAP_LOOP : MB_WRAP_CLAMP;

    /* Ranges, durations and analysis. */
    double total_len = 0.0;
    for (int i = 0; i < L && rc == MB_OK; ++i) {
        const mb_clip_input *in = &d->inputs[i];
        input_state *is = &st[i];
        int nf = mb_clip_frame_count(in->clip);
        double ft = mb_clip_frame_time(in->clip);
        is->start = in->range.start;
        is->end = in->range.end == 0 ? (cyclic ? nf - 1 : nf) : in->range.end;
        /* Cyclic ranges sample frame `end` (it continues `start`), so it must exist, or be
         * frame_count for a clip that loops back to frame 0 (sampled with MB_WRAP_LOOP). */
        int last = cyclic ? (is->end == nf ? nf - 1 : is->end) : is->end - 1;
        if (is->start < 0 || is->end <= is->start || last >= nf || (!cyclic && is->end - is->start < 1)) {
            rc = fail(err, MB_INVALID_ARG, in->source,
                      "frame range %d:%d does not fit a clip of %d frames%s", in->range.start,
                      is->end, nf, cyclic ? " (a cycle needs frame END to exist too)" : "");
            break;
        }
        is->w = in->weight / wsum;
        is->t0 = is->start * ft;
        is->len = (cyclic ? is->end - is->start : is->end - 1 - is->start) * ft;
        total_len += is->w * is->len;
        if (in->info) {
            if ((rc = mb_motion_info_check_(in->info, in->skeleton, in->clip, in->source, err)) !=
                MB_OK)
                break;
            is->info = *in->info;
        } else if (nf >= 2) {
            mb_analyze_desc ad = {0};
            ad.up_axis = d->up_axis;
            rc = mb_motion_analyze(in->skeleton, in->clip, &ad, in->source, &is->info, err);
        } else {
            memset(&is->info, 0, sizeof is->info);
            is->info.up_axis = d->up_axis >= 1 && d->up_axis <= 3 ? d->up_axis - 1 : 1;
        }
    }
    if (rc != MB_OK)
        goto done;
    int up = d->up_axis >= 1 && d->up_axis <= 3 ? d->up_axis - 1 : st[0].info.up_axis;
    int root = st[0].info.root;
    double ft = d->frame_time > 0.0 ? d->frame_time : mb_clip_frame_time(in0->clip);
    if (!isfinite(ft) || !(ft > 0.0)) {
        rc = fail(err, MB_INVALID_ARG, NULL, "frame time must be positive");
        goto done;
    }
    double nfr = cyclic ? floor(total_len / ft + 0.5) : floor(total_len / ft + 0.5) + 1.0;
    if (nfr < 1.0)
        nfr = 1.0;
    if (nfr > MB_MAX_FRAMES) {
        rc = fail(err, MB_LIMIT, NULL, "the blend would have %.4g frames of %.4g s (limit %d)", nfr,
                  ft, MB_MAX_FRAMES);
        goto done;
    }
    int frames = (int)nfr;
    /* Phase of output sample k (k = frames is one past the end, for the last delta). */
#define PHASE(k) (cyclic ? (double)(k) / frames : (frames > 1 ? (double)(k) / (frames - 1) : 0.0))

    const int *parents = mb_skeleton_parents(s0);
    for (int i = 0; i < L; ++i) {
        st[i].pose = malloc((size_t)nj * sizeof(mb_xform));
        st[i].root = malloc(4 * ((size_t)frames + 1) * sizeof(double));
        if (!st[i].pose || !st[i].root) {
            rc = fail(err, MB_NOMEM, NULL, "out of memory");
            goto done;
        }
    }
    outpose = malloc((size_t)nj * sizeof *outpose);
    gaps = malloc((size_t)nj * sizeof *gaps);
    angles = malloc((size_t)nj * sizeof *angles);
    if (!outpose || !gaps || !angles) {
        rc = fail(err, MB_NOMEM, NULL, "out of memory");
        goto done;
    }

    /* Pass 1: each input's root path (world position and heading) at every phase. The
     * heading is the facing from the hips where the first input's feet are known (the
     * inputs share its topology), as in the controller: the root's twist would depend on
     * how the root's axes are set up (a Z-up copy of a take blended 0.04 degrees off). */
    int hips[2];
    mb_motion_hips_(s0, root, &st[0].info, hips);
    for (int i = 0; i < L; ++i) {
        const mb_clip_input *in = &d->inputs[i];
        mb_pose p = {st[i].pose, nj};
        double unwrap = 0.0, prev = 0.0;
        for (int k = 0; k <= frames; ++k) {
            double ph = PHASE(k);
            if (!cyclic && ph > 1.0)
                ph = 1.0;
            rc = mb_clip_sample(in->skeleton, in->clip, st[i].t0 + ph * st[i].len, wrap, p);
            if (rc != MB_OK) {
                fail(err, rc, in->source, "sampling failed");
                goto done;
            }
            double q[4], pos[3];
            mb_rm_chain_world(mb_skeleton_parents(in->skeleton), &p, root, q, pos);
            double h = mb_rm_pose_heading(up, mb_skeleton_parents(in->skeleton), &p, hips, q);
            if (k > 0) /* unwrap so deltas never jump by 2 pi */
                unwrap += mb_rm_wrap(h - prev);
            else
                unwrap = h;
            prev = h;
            double *r = &st[i].root[4 * k];
            r[0] = pos[0];
            r[1] = pos[1];
            r[2] = pos[2];
            r[3] = unwrap;
        }
    }

    /* The output is on the first input's skeleton, so it tracks that skeleton's joints with
     * position channels: the only ones whose translation it can carry (and the BVH writer
     * write). Inputs whose clips track other sets still blend correctly, since sampling
     * gives an untracked joint its offset. */
    int ntr;
    const int *tracked = mb_skeleton_translation_joints(s0, &ntr);
    rc = mb_clip_alloc(nj, frames, ft, tracked, ntr, &d->allocator, &clip);
    if (rc != MB_OK) {
        fail(err, rc, NULL, "cannot allocate the output clip");
        goto done;
    }
    float *orot = mb_clip_rotations_mut(clip), *otr = mb_clip_translations_mut(clip);

    /* Output root path: start at the weighted mean of the start positions and headings. */
    double P[3] = {0, 0, 0}, psi, sn = 0.0, cs = 0.0;
    for (int i = 0; i < L; ++i) {
        for (int k = 0; k < 3; ++k)
            P[k] += st[i].w * st[i].root[k];
        sn += st[i].w * sin(st[i].root[3]);
        cs += st[i].w * cos(st[i].root[3]);
    }
    psi = atan2(sn, cs);

    mb_blend_layer layers[MB_BLEND_MAX_LAYERS];
    mb_pose poses[MB_BLEND_MAX_LAYERS];
    for (int k = 0; k < frames; ++k) {
        if (k > 0) {
            /* Integrate the blended step, each input's step seen from its own heading. */
            double step[3] = {0, 0, 0}, dpsi = 0.0;
            for (int i = 0; i < L; ++i) {
                double lv[3], dp;
                mb_rm_local_step(up, &st[i].root[4 * (k - 1)], &st[i].root[4 * k], lv, &dp);
                for (int c = 0; c < 3; ++c)
                    step[c] += st[i].w * lv[c];
                dpsi += st[i].w * dp;
            }
            mb_rm_integrate(up, P, &psi, step, dpsi);
        }
        double height = 0.0;
        double ph = PHASE(k);
        for (int i = 0; i < L; ++i) {
            const mb_clip_input *in = &d->inputs[i];
            poses[i].joints = st[i].pose;
            poses[i].count = nj;
            rc = mb_clip_sample(in->skeleton, in->clip, st[i].t0 + ph * st[i].len, wrap, poses[i]);
            if (rc != MB_OK)
                goto done;
            height += st[i].w * st[i].root[4 * k + up];
            /* Root rotation relative to its own heading, in world axes. */
            double q[4], pos[3], yq[4], rel[4];
            mb_rm_chain_world(mb_skeleton_parents(in->skeleton), &poses[i], root, q, pos);
            mb_rm_yaw_quat(up, -st[i].root[4 * k + 3], yq);
            mb_qmul_d_(yq, q, rel);
            for (int c = 0; c < 4; ++c)
                st[i].pose[root].rot[c] = (float)rel[c];
            /* other ROOTs into the root's heading frame, from its horizontal position */
            const double zero[3] = {0, 0, 0};
            mb_rm_map_other_roots(in->skeleton, root, st[i].pose, up, yq, pos, zero);
            layers[i].pose = &poses[i];
            layers[i].weight = (float)st[i].w;
            layers[i].joint_weights = NULL;
        }
        mb_blend_diag diag = {gaps, angles, nj, 0};
        mb_blend_desc bd = {0};
        bd.layers = layers;
        bd.layer_count = L;
        bd.method = d->method;
        bd.solver = d->solver;
        bd.out.joints = outpose;
        bd.out.count = nj;
        bd.diag = d->report ? &diag : NULL;
        rc = mb_blend_run(&bd);
        if (rc != MB_OK) {
            fail(err, rc, NULL, "blending frame %d failed: %s", k, mb_status_str(rc));
            goto done;
        }
        if (d->report) {
            mb_pose bp = {outpose, nj};
            rc = d->report(d->report_user, k, ph, layers, L, &bp, &diag);
            if (rc != MB_OK) {
                fail(err, rc, NULL, "the report callback stopped the blend at frame %d", k);
                goto done;
            }
        }
        /* Put the root back on the integrated path, under the first input's (static)
         * ancestors: local = parent_world^-1 * world. */
        {
            double yq[4], rel[4] = {outpose[root].rot[0], outpose[root].rot[1], outpose[root].rot[2],
                                    outpose[root].rot[3]};
            double wq[4], wp[3] = {P[0], P[1], P[2]};
            wp[up] = height;
            mb_rm_yaw_quat(up, psi, yq);
            mb_qmul_d_(yq, rel, wq);
            double pq[4] = {0, 0, 0, 1}, pp[3] = {0, 0, 0};
            if (parents[root] >= 0) {
                mb_pose p0 = {st[0].pose, nj};
                mb_rm_chain_world(parents, &p0, parents[root], pq, pp);
            }
            mb_rm_world_to_local(pq, pp, wq, wp, outpose[root].rot, outpose[root].pos);
            const double zero[3] = {0, 0, 0};
            mb_rm_map_other_roots(d->inputs[0].skeleton, root, outpose, up, yq, zero, P);
        }
        float *fr = orot + 4 * (size_t)k * nj;
        for (int j = 0; j < nj; ++j) {
            float *q = fr + 4 * j;
            memcpy(q, outpose[j].rot, sizeof outpose[j].rot);
            if (k > 0) { /* keep the track sign-continuous */
                const float *pq = q - 4 * nj;
                if (q[0] * pq[0] + q[1] * pq[1] + q[2] * pq[2] + q[3] * pq[3] < 0.0f)
                    for (int c = 0; c < 4; ++c)
                        q[c] = -q[c];
            }
        }
        for (int t = 0; t < ntr; ++t)
            memcpy(otr + 3 * ((size_t)k * ntr + t), outpose[tracked[t]].pos, sizeof outpose[0].pos);
    }
#undef PHASE

done:
    for (int i = 0; i < L; ++i) {
        free(st[i].pose);
        free(st[i].root);
    }
    free(st);
    free(outpose);
    free(gaps);
    free(angles);
    if (rc != MB_OK) {
        mb_clip_destroy(clip);
        return rc;
    }
    *out = clip;
    return MB_OK;
}
