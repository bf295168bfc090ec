/* The offline transition builder: A, the transition, the rest of B as one clip.
 *
 * It drives a controller over two played-once states (A and B) at A's frame time, so the
 * offline result and the runtime controller are the same code: the controller gives the
 * pose in place and the root motion of each step, which are integrated here into the
 * world path. Starting that path where A's root starts makes the output reproduce A up to
 * the transition; after it, B's steps continue from wherever A left the character, which
 * is the root alignment (rotation about up plus a horizontal translation). */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "base/alloc_internal.h"
#include "mblend/controller.h"
#include "mblend/prepare.h"
#include "mblend/transition.h"
#include "motion/controller_internal.h"
#include "motion/motion_internal.h"
#include "motion/rootmotion_internal.h"


#define tfail(err, code, source, ...) \
    mb_error_set_((err), (code), (source) ? (source) : "<transition>", __VA_ARGS__)

/* A given gait cycle must lie in its clip, frame END included. */
static mb_status check_cycle(mb_frame_range r, const mb_clip *c, const char *source, mb_error *err)
{
    int nf = mb_clip_frame_count(c);
    if (r.start < 0 || r.end <= r.start || r.end >= nf)
        return tfail(err, MB_INVALID_ARG, source, "cycle %d:%d does not fit %d frames", r.start, r.end, nf);
    return MB_OK;
}

/* Gait cycles of A and B for sync: the ones given, the others from the library's one
 * selection rule (prepare.h: left-foot touchdowns, else right-foot, else the whole
 * in-place loop), applied to each clip on its own. Selecting over both clips at once
 * would make both cycles start at the same foot; it changes transitions the quality tests
 * measure (cmu_09_01_run to cmu_09_12_walk in phase: a forearm then turns 1.507x faster
 * than in the inputs, over the 1.5x bound), so it is left for a measured change. */
static mb_status sync_cycles(const mb_transition_build_desc *d, const mb_motion_info *info[2],
                             const char *src[2], mb_frame_range out[2], mb_error *err)
{
    const mb_clip *clips[2] = {d->a, d->b};
    const mb_frame_range given[2] = {d->cycle_a, d->cycle_b};
    mb_prepared_clip *p[2] = {NULL, NULL};
    mb_status rc = MB_OK;
    for (int k = 0; k < 2 && rc == MB_OK; ++k)
        if (given[k].end != 0)
            rc = check_cycle(given[k], clips[k], src[k], err);
    for (int k = 0; k < 2 && rc == MB_OK; ++k) {
        mb_prepare_desc pd = {0};
        pd.skeleton = d->skeleton;
        pd.clip = clips[k];
        pd.source = src[k];
        pd.range = given[k];
        pd.info = info[k];
        rc = mb_clip_prepare(&pd, &p[k], err);
    }
    for (int k = 0; k < 2 && rc == MB_OK; ++k) {
        rc = mb_prepared_select_cycles(&p[k], 1, MB_CYCLE_AUTO, err);
        if (rc != MB_OK)
            break;
        out[k] = mb_prepared_clip_info(p[k])->range;
        rc = check_cycle(out[k], clips[k], src[k], err);
    }
    mb_prepared_clip_destroy(p[0]);
    mb_prepared_clip_destroy(p[1]);
    if (rc != MB_OK && err && err->code == MB_OK)
        tfail(err, rc, NULL, "no gait cycle found for --sync");
    return rc;
}

/* The output frames as they are made: rotations of every joint, translations of the nt
 * tracked joints (the output skeleton's joints with position channels). */
typedef struct frame_buf {
    float *rot, *pos;
    int frames, cap, nj, nt;
} frame_buf;

static int frame_buf_grow(frame_buf *b)
{
    int cap = b->cap ? 2 * b->cap : 256;
    float *r = realloc(b->rot, (size_t)cap * b->nj * 4 * sizeof(float));
    if (!r)
        return 0;
    b->rot = r;
    /* One spare float so that nt == 0 never asks realloc for 0 bytes. */
    float *p = realloc(b->pos, ((size_t)cap * b->nt * 3 + 1) * sizeof(float));
    if (!p)
        return 0;
    b->pos = p;
    b->cap = cap;
    return 1;
}

/* 1 when a span of dur seconds from start runs past end, beyond the rounding of the float
 * duration it was given as (2.9 is 2.9000001: an exact fit must not be refused). */
static int runs_past_(double start, double dur, double end)
{
    return start + dur > end + 1e-9 + 4.0 * FLT_EPSILON * (dur + end);
}

mb_status mb_transition_build(const mb_transition_build_desc *d, mb_clip **out,
                              mb_transition_result *res, mb_error *err)
{
    if (out)
        *out = NULL;
    if (!d || !out || !d->skeleton || !d->a || !d->b)
        return tfail(err, MB_INVALID_ARG, NULL, "transition needs a skeleton and two clips");
    const char *sa = d->source_a ? d->source_a : "A", *sb = d->source_b ? d->source_b : "B";
    const mb_skeleton *s = d->skeleton;
    int nj = mb_skeleton_joint_count(s);
    if (mb_clip_joint_count(d->a) != nj)
        return tfail(err, MB_MISMATCH, sa, "clip has %d joints, the skeleton %d", mb_clip_joint_count(d->a), nj);
    if (mb_clip_joint_count(d->b) != nj)
        return tfail(err, MB_MISMATCH, sb, "clip has %d joints, the skeleton %d", mb_clip_joint_count(d->b), nj);
    const mb_transition_desc *td = &d->transition;
    if (!isfinite(td->duration) || td->duration < 0.0f || (unsigned)td->mode > MB_TRANSITION_INERTIALIZE ||
        (unsigned)td->curve > MB_CURVE_LINEAR)
        return tfail(err, MB_INVALID_ARG, NULL, "bad transition (duration must be finite and >= 0)");
    if (d->up_axis < 0 || d->up_axis > 3 || !isfinite(d->at) || !isfinite(d->b_start))
        return tfail(err, MB_INVALID_ARG, NULL, "bad up axis or transition times");
    int nfa = mb_clip_frame_count(d->a), nfb = mb_clip_frame_count(d->b);
    if (nfa < 2 || nfb < 2)
        return tfail(err, MB_INVALID_ARG, nfa < 2 ? sa : sb, "a transition needs clips of 2 frames or more");

    mb_motion_info ia, ib;
    mb_status rc;
    mb_analyze_desc ad = {0};
    ad.up_axis = d->up_axis;
    if ((d->info_a && (rc = mb_motion_info_check_(d->info_a, s, d->a, sa, err)) != MB_OK) ||
        (d->info_b && (rc = mb_motion_info_check_(d->info_b, s, d->b, sb, err)) != MB_OK))
        return rc;
    if (d->info_a)
        ia = *d->info_a;
    else if ((rc = mb_motion_analyze(s, d->a, &ad, sa, &ia, err)) != MB_OK)
        return rc;
    ad.up_axis = d->up_axis ? d->up_axis : ia.up_axis + 1;
    if (d->info_b)
        ib = *d->info_b;
    else if ((rc = mb_motion_analyze(s, d->b, &ad, sb, &ib, err)) != MB_OK)
        return rc;
    int up = d->up_axis ? d->up_axis - 1 : ia.up_axis;
    double fta = mb_clip_frame_time(d->a), ftb = mb_clip_frame_time(d->b);
    int ka = mb_frame_int_(floor(d->at / fta + 0.5));
    if (ka < ia.first_frame || ka >= nfa - 1)
        return tfail(err, MB_INVALID_ARG, sa, "transition time %.4g s is outside the motion (%.4g s to %.4g s)",
                     d->at, ia.first_frame * fta, (nfa - 2) * fta);
    double b0 = ib.first_frame * ftb, b1 = (nfb - 1) * ftb;
    if (d->b_start < b0 || d->b_start >= b1)
        return tfail(err, MB_INVALID_ARG, sb, "B start %.4g s is outside the motion (%.4g s to %.4g s)",
                     d->b_start, b0, b1);

    mb_frame_range cyc_a = {0, 0}, cyc_b = {0, 0};
    if (td->sync) {
        const mb_motion_info *infos[2] = {&ia, &ib};
        const char *srcs[2] = {sa, sb};
        mb_frame_range cyc[2];
        if ((rc = sync_cycles(d, infos, srcs, cyc, err)) != MB_OK)
            return rc;
        cyc_a = cyc[0];
        cyc_b = cyc[1];
    }
    /* Both clips must keep playing through the transition (a held last frame slides). */
    double rate_a = 1.0, rate_b = 1.0;
    if (td->sync) {
        double ca = (cyc_a.end - cyc_a.start) * fta, cb = (cyc_b.end - cyc_b.start) * ftb;
        rate_a = ca > cb ? ca / cb : 1.0;
        rate_b = cb > ca ? cb / ca : 1.0;
    }
    if (runs_past_(ka * fta, td->duration * rate_a, (nfa - 1) * fta))
        return tfail(err, MB_INVALID_ARG, sa, "A ends %.3g s after the transition starts; the transition needs %.3g s",
                     (nfa - 1 - ka) * fta, td->duration * rate_a);

    mb_state_clip clips[2];
    memset(clips, 0, sizeof clips);
    clips[0].clip = d->a;
    clips[0].range.start = ia.first_frame;
    clips[0].range.end = nfa;
    clips[0].cycle = cyc_a;
    clips[0].info = &ia;
    clips[1].clip = d->b;
    clips[1].range.start = ib.first_frame;
    clips[1].range.end = nfb;
    clips[1].cycle = cyc_b;
    clips[1].info = &ib;
    mb_state_desc states[2];
    memset(states, 0, sizeof states);
    states[0].name = "A";
    states[0].clips = &clips[0];
    states[0].clip_count = 1;
    states[1].name = "B";
    states[1].clips = &clips[1];
    states[1].clip_count = 1;
    mb_state_set_desc sd = {0};
    sd.skeleton = s;
    sd.states = states;
    sd.state_count = 2;
    sd.up_axis = up + 1;
    mb_state_set *set = NULL;
    mb_controller *ctl = NULL;
    mb_xform *pose = NULL, *orig = NULL;
    int nt;
    const int *tracked = mb_skeleton_translation_joints(s, &nt);
    frame_buf fb = {NULL, NULL, 0, 0, nj, nt};
    mb_clip *clip = NULL;
    if ((rc = mb_state_set_create(&sd, &set, err)) != MB_OK)
        goto done;
    mb_controller_desc cd = {0};
    cd.states = set;
    if ((rc = mb_controller_create(&cd, &ctl)) != MB_OK) {
        tfail(err, rc, NULL, "cannot create the controller");
        goto done;
    }
    pose = malloc((size_t)nj * sizeof *pose);
    orig = malloc((size_t)nj * sizeof *orig);
    if (!pose || !orig) {
        rc = tfail(err, MB_NOMEM, NULL, "out of memory");
        goto done;
    }
    const int *parents = mb_skeleton_parents(s);
    int root = mb_state_set_root(set), rpar = parents[root];
    double bdur = (nfb - 1 - ib.first_frame) * ftb;
    mb_transition_desc req = *td;
    double b_u = (d->b_start - b0) / bdur;
    b_u = b_u > 1.0 ? 1.0 : b_u;
    req.start_phase = (float)b_u;
    if (td->duration > 0.0f && runs_past_(d->b_start - b0, td->duration * rate_b, bdur)) {
        rc = tfail(err, MB_INVALID_ARG, sb, "B ends %.3g s after its start; the transition needs %.3g s",
                   bdur - (d->b_start - b0), td->duration * rate_b);
        goto done;
    }

    /* The world path starts where A's root is, facing A's averaged heading. */
    double P[3] = {0, 0, 0}, psi = 0.0;
    int requested = 0, trans_end = -1, k_a = ka - ia.first_frame;
    long limit = (long)k_a + 4 + (long)ceil((td->duration * 2.0 + (nfb + 2) * ftb * 2.0) / fta);
    double b_started = d->b_start;
    for (int k = 0;; ++k) {
        if (k > limit || k >= MB_MAX_FRAMES) {
            rc = tfail(err, MB_LIMIT, NULL, "the transition does not end (%d frames)", k);
            goto done;
        }
        if (k == k_a + 1) {
            if ((rc = mb_controller_request_ex_(ctl, 1, &req, b_u)) != MB_OK) {
                tfail(err, rc, NULL, "transition request failed");
                goto done;
            }
            requested = 1;
            b_started = mb_controller_clip_time_(ctl, 1);
        }
        mb_pose p = {pose, nj};
        double delta[4], off = 0.0;
        rc = mb_controller_update_ex_(ctl, k == 0 ? 0.0 : fta, p, delta, &off);
        if (rc != MB_OK) {
            tfail(err, rc, NULL, "frame %d: %s", k, mb_status_str(rc));
            goto done;
        }
        /* Root in place -> world. */
        double pq[4] = {0, 0, 0, 1}, pp[3] = {0, 0, 0};
        if (rpar >= 0)
            mb_rm_chain_world(parents, &p, rpar, pq, pp);
        double q[4], pos[3];
        mb_rm_chain_world(parents, &p, root, q, pos);
        if (k == 0) {
            mb_pose po = {orig, nj};
            if ((rc = mb_clip_frame_pose(s, d->a, ia.first_frame, po)) != MB_OK)
                goto done;
            double oq[4], op[3], qi[4] = {-q[0], -q[1], -q[2], q[3]}, dq[4];
            mb_rm_chain_world(parents, &po, root, oq, op);
            mb_qmul_d_(oq, qi, dq); /* original = yaw(psi) * in place */
            psi = mb_rm_yaw_of(up, dq);
            for (int c = 0; c < 3; ++c)
                P[c] = c == up ? 0.0 : op[c];
        } else {
            double st[3] = {delta[0], delta[1], delta[2]};
            mb_rm_integrate(up, P, &psi, st, delta[3]);
        }
        double yq[4], wq[4], wp[3];
        mb_rm_yaw_quat(up, psi, yq);
        mb_qmul_d_(yq, q, wq);
        mb_qrotate_d_(yq, pos, wp);
        for (int c = 0; c < 3; ++c)
            if (c != up)
                wp[c] += P[c];
        mb_rm_world_to_local(pq, pp, wq, wp, pose[root].rot, pose[root].pos);
        const double zero[3] = {0, 0, 0};
        mb_rm_map_other_roots(s, root, pose, up, yq, zero, P); /* other ROOTs along */

        if (fb.frames == fb.cap && !frame_buf_grow(&fb)) {
            rc = tfail(err, MB_NOMEM, NULL, "out of memory");
            goto done;
        }
        float *fr = fb.rot + (size_t)fb.frames * nj * 4, *fp = fb.pos + (size_t)fb.frames * nt * 3;
        for (int t = 0; t < nt; ++t)
            memcpy(fp + 3 * t, pose[tracked[t]].pos, 3 * sizeof(float));
        for (int j = 0; j < nj; ++j) {
            float *r = fr + 4 * j;
            memcpy(r, pose[j].rot, 4 * sizeof(float));
            if (fb.frames > 0) {
                const float *pr = r - 4 * nj;
                if (r[0] * pr[0] + r[1] * pr[1] + r[2] * pr[2] + r[3] * pr[3] < 0.0f)
                    for (int c = 0; c < 4; ++c)
                        r[c] = -r[c];
            }
        }
        ++fb.frames;

        mb_controller_status cs;
        mb_controller_get_status(ctl, &cs);
        float wts[2];
        mb_controller_state_weights(ctl, wts, 2);
        if (d->report) {
            mb_transition_frame tf;
            tf.frame = k;
            tf.weight_b = wts[1];
            tf.time_a = mb_controller_clip_time_(ctl, 0);
            tf.time_b = mb_controller_clip_time_(ctl, 1);
            tf.offset_angle = (float)off;
            if ((rc = d->report(d->report_user, &tf)) != MB_OK) {
                tfail(err, rc, NULL, "the report callback stopped the build at frame %d", k);
                goto done;
            }
        }
        if (requested && trans_end < 0 && !cs.transitioning)
            trans_end = k;
        if (requested && trans_end >= 0 && cs.finished)
            break;
    }

    rc = mb_clip_alloc(nj, fb.frames, fta, tracked, nt, &d->allocator, &clip);
    if (rc != MB_OK) {
        tfail(err, rc, NULL, "cannot allocate the output clip (%d frames)", fb.frames);
        goto done;
    }
    memcpy(mb_clip_rotations_mut(clip), fb.rot, (size_t)fb.frames * nj * 4 * sizeof(float));
    if (nt > 0)
        memcpy(mb_clip_translations_mut(clip), fb.pos, (size_t)fb.frames * nt * 3 * sizeof(float));
    if (res) {
        res->frames = fb.frames;
        res->transition_start = k_a;
        res->transition_end = trans_end;
        res->b_start = b_started;
        res->frame_time = fta;
    }

done:
    free(fb.rot);
    free(fb.pos);
    free(pose);
    free(orig);
    mb_controller_destroy(ctl);
    mb_state_set_destroy(set);
    if (rc != MB_OK) {
        mb_clip_destroy(clip);
        return rc;
    }
    *out = clip;
    return MB_OK;
}
