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

#include "base/axis_internal.h"
#include "base/error_internal.h"
#include "base/alloc_internal.h"
#include "mblend/runtime/controller.h"
#include "mblend/offline/clip_build.h"
#include "mblend/offline/prepare.h"
#include "mblend/offline/state_set.h"
#include "mblend/offline/transition_build.h"
#include "runtime/controller/controller_internal.h"
#include "offline/motion/motion_internal.h"
#include "runtime/controller/rootmotion_internal.h"

/* A given gait cycle must lie in its clip, frame END included. */
static mb_status check_cycle(mb_frame_range r, const mb_clip *c, const char *source, mb_error *err)
{
    int nf = mb_clip_frame_count(c);
    if (r.start < 0 || r.end <= r.start || r.end >= nf)
        return mb_error_set_(err, MB_INVALID_ARG, mb_name_(source, "<transition>"), "cycle %d:%d does not fit %d frames", r.start, r.end, nf);
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
        /* selected cycles are valid by construction; one of a clip whose last frame runs
         * on into its first ends at the frame count (the state set accepts that for phase) */
        out[k] = mb_prepared_clip_info(p[k])->range;
    }
    mb_prepared_clip_destroy(p[0]);
    mb_prepared_clip_destroy(p[1]);
    if (rc != MB_OK) /* a reason set below is kept: the first error wins */
        mb_error_set_(err, rc, "<transition>", "no gait cycle found for --sync");
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

/* One build as it runs. */
typedef struct build {
    const mb_transition_build_desc *d;
    mb_error *err;
    const char *sa, *sb;                 /* source names */
    int nj, nfa, nfb, up, ka;           /* up: the index of axis */
    mb_axis axis;                        /* the up axis */
    double fta, ftb;
    mb_motion_info ia, ib;
    mb_frame_range cyc_a, cyc_b;         /* gait cycles for sync ({0, 0}: none) */
    double rate_a, rate_b;               /* sync's playback rates during the transition */
    mb_state_set *set;
    mb_controller *ctl;
    mb_xform *pose, *orig;
    int root, rpar, nt;
    const int *parents, *tracked;
    double P[3], psi;                    /* the world path: position and heading */
    frame_buf fb;
} build;

static mb_status check_build_desc(const mb_transition_build_desc *d, mb_error *err)
{
    if (!d->skeleton || !d->a || !d->b)
        return mb_error_set_(err, MB_INVALID_ARG, "<transition>", "transition needs a skeleton and two clips");
    const char *sa = d->source_a ? d->source_a : "A", *sb = d->source_b ? d->source_b : "B";
    int nj = mb_skeleton_joint_count(d->skeleton);
    if (mb_clip_joint_count(d->a) != nj)
        return mb_error_set_(err, MB_MISMATCH, mb_name_(sa, "<transition>"), "clip has %d joints, the skeleton %d", mb_clip_joint_count(d->a), nj);
    if (mb_clip_joint_count(d->b) != nj)
        return mb_error_set_(err, MB_MISMATCH, mb_name_(sb, "<transition>"), "clip has %d joints, the skeleton %d", mb_clip_joint_count(d->b), nj);
    const mb_transition_desc *td = &d->transition;
    if (!isfinite(td->duration) || td->duration < 0.0f || (unsigned)td->mode > MB_TRANSITION_INERTIALIZE ||
        (unsigned)td->curve > MB_CURVE_LINEAR)
        return mb_error_set_(err, MB_INVALID_ARG, "<transition>", "bad transition (duration must be finite and >= 0)");
    if (!mb_axis_valid_(d->up_axis) || !isfinite(d->at) || !isfinite(d->b_start))
        return mb_error_set_(err, MB_INVALID_ARG, "<transition>", "bad up axis or transition times");
    int nfa = mb_clip_frame_count(d->a), nfb = mb_clip_frame_count(d->b);
    if (nfa < 2 || nfb < 2)
        return mb_error_set_(err, MB_INVALID_ARG, mb_name_(nfa < 2 ? sa : sb, "<transition>"), "a transition needs clips of 2 frames or more");
    return MB_OK;
}

/* Both clips' analyses (given or made; B on A's up axis), the up axis and A's frame. */
static mb_status analyse_pair(build *b)
{
    const mb_transition_build_desc *d = b->d;
    const mb_skeleton *s = d->skeleton;
    mb_status rc;
    mb_analyze_desc ad = {0};
    ad.up_axis = d->up_axis;
    if ((d->info_a && (rc = mb_motion_info_check_(d->info_a, s, d->a, b->sa, b->err)) != MB_OK) ||
        (d->info_b && (rc = mb_motion_info_check_(d->info_b, s, d->b, b->sb, b->err)) != MB_OK))
        return rc;
    if (d->info_a)
        b->ia = *d->info_a;
    else if ((rc = mb_motion_analyze(s, d->a, &ad, b->sa, &b->ia, b->err)) != MB_OK)
        return rc;
    ad.up_axis = d->up_axis != MB_AXIS_DETECT ? d->up_axis : b->ia.up_axis;
    if (d->info_b)
        b->ib = *d->info_b;
    else if ((rc = mb_motion_analyze(s, d->b, &ad, b->sb, &b->ib, b->err)) != MB_OK)
        return rc;
    b->axis = ad.up_axis;
    b->up = mb_axis_index(b->axis);
    b->ka = mb_frame_int_(floor(d->at / b->fta + 0.5));
    if (b->ka < b->ia.first_frame || b->ka >= b->nfa - 1)
        return mb_error_set_(b->err, MB_INVALID_ARG, mb_name_(b->sa, "<transition>"),
                     "transition time %.4g s is outside the motion (%.4g s to %.4g s)", d->at,
                     b->ia.first_frame * b->fta, (b->nfa - 2) * b->fta);
    double b0 = b->ib.first_frame * b->ftb, b1 = (b->nfb - 1) * b->ftb;
    if (d->b_start < b0 || d->b_start >= b1)
        return mb_error_set_(b->err, MB_INVALID_ARG, mb_name_(b->sb, "<transition>"), "B start %.4g s is outside the motion (%.4g s to %.4g s)",
                     d->b_start, b0, b1);
    return MB_OK;
}

/* Sync's cycles and playback rates; A must keep playing through the transition (a held
 * last frame slides). */
static mb_status plan_sync(build *b)
{
    const mb_transition_desc *td = &b->d->transition;
    b->rate_a = b->rate_b = 1.0;
    if (td->sync) {
        const mb_motion_info *infos[2] = {&b->ia, &b->ib};
        const char *srcs[2] = {b->sa, b->sb};
        mb_frame_range cyc[2];
        mb_status rc = sync_cycles(b->d, infos, srcs, cyc, b->err);
        if (rc != MB_OK)
            return rc;
        b->cyc_a = cyc[0];
        b->cyc_b = cyc[1];
        double ca = (cyc[0].end - cyc[0].start) * b->fta, cb = (cyc[1].end - cyc[1].start) * b->ftb;
        b->rate_a = ca > cb ? ca / cb : 1.0;
        b->rate_b = cb > ca ? cb / ca : 1.0;
    }
    if (runs_past_(b->ka * b->fta, td->duration * b->rate_a, (b->nfa - 1) * b->fta))
        return mb_error_set_(b->err, MB_INVALID_ARG, mb_name_(b->sa, "<transition>"),
                     "A ends %.3g s after the transition starts; the transition needs %.3g s",
                     (b->nfa - 1 - b->ka) * b->fta, td->duration * b->rate_a);
    return MB_OK;
}

/* A state set of A and B, each played once from its first motion frame, and a controller
 * on it; pose buffers. */
static mb_status make_player(build *b)
{
    const mb_transition_build_desc *d = b->d;
    mb_state_clip clips[2];
    memset(clips, 0, sizeof clips);
    clips[0].clip = d->a;
    clips[0].range = (mb_frame_range){b->ia.first_frame, b->nfa};
    clips[0].cycle = b->cyc_a;
    clips[0].info = &b->ia;
    clips[1].clip = d->b;
    clips[1].range = (mb_frame_range){b->ib.first_frame, b->nfb};
    clips[1].cycle = b->cyc_b;
    clips[1].info = &b->ib;
    mb_state_desc states[2];
    memset(states, 0, sizeof states);
    states[0] = (mb_state_desc){"A", &clips[0], 1, 0, 0.0f};
    states[1] = (mb_state_desc){"B", &clips[1], 1, 0, 0.0f};
    mb_state_set_desc sd = {0};
    sd.skeleton = d->skeleton;
    sd.states = states;
    sd.state_count = 2;
    sd.up_axis = b->axis;
    mb_status rc = mb_state_set_create(&sd, &b->set, b->err);
    if (rc != MB_OK)
        return rc;
    mb_controller_desc cd = {0};
    cd.states = b->set;
    if ((rc = mb_controller_create(&cd, &b->ctl, NULL)) != MB_OK)
        return mb_error_set_(b->err, rc, "<transition>", "cannot create the controller");
    b->pose = malloc((size_t)b->nj * sizeof *b->pose);
    b->orig = malloc((size_t)b->nj * sizeof *b->orig);
    if (!b->pose || !b->orig)
        return mb_error_set_(b->err, MB_NOMEM, "<transition>", "out of memory");
    b->parents = mb_skeleton_parents(d->skeleton);
    b->root = mb_state_set_root(b->set);
    b->rpar = b->parents[b->root];
    return MB_OK;
}

/* Frame k's in-place pose (b->pose) onto the world path: frame 0 starts the path where A's
 * root is, facing A's heading; later frames integrate the controller's root motion. */
static mb_status place_on_path(build *b, int k, const double delta[4])
{
    const mb_transition_build_desc *d = b->d;
    mb_pose p = {b->pose, b->nj};
    int up = b->up, root = b->root;
    double pq[4] = {0, 0, 0, 1}, pp[3] = {0, 0, 0};
    if (b->rpar >= 0)
        mb_rm_chain_world(b->parents, &p, b->rpar, pq, pp);
    double q[4], pos[3];
    mb_rm_chain_world(b->parents, &p, root, q, pos);
    if (k == 0) {
        mb_pose po = {b->orig, b->nj};
        mb_status rc = mb_clip_frame_pose(d->skeleton, d->a, b->ia.first_frame, po);
        if (rc != MB_OK)
            return mb_error_set_(b->err, rc, mb_name_(b->sa, "<transition>"), "cannot read frame %d", b->ia.first_frame);
        double oq[4], op[3], qi[4] = {-q[0], -q[1], -q[2], q[3]}, dq[4];
        mb_rm_chain_world(b->parents, &po, root, oq, op);
        mb_qmul_d_(oq, qi, dq); /* original = yaw(psi) * in place */
        b->psi = mb_rm_yaw_of(up, dq);
        for (int c = 0; c < 3; ++c)
            b->P[c] = c == up ? 0.0 : op[c];
    } else {
        double st[3] = {delta[0], delta[1], delta[2]};
        mb_rm_integrate(up, b->P, &b->psi, st, delta[3]);
    }
    double yq[4], wq[4], wp[3];
    mb_rm_yaw_quat(up, b->psi, yq);
    mb_qmul_d_(yq, q, wq);
    mb_qrotate_d_(yq, pos, wp);
    for (int c = 0; c < 3; ++c)
        if (c != up)
            wp[c] += b->P[c];
    mb_rm_world_to_local(pq, pp, wq, wp, b->pose[root].rot, b->pose[root].pos);
    const double zero[3] = {0, 0, 0};
    mb_rm_map_other_roots(d->skeleton, root, b->pose, up, yq, zero, b->P); /* other ROOTs along */
    return MB_OK;
}

/* Appends b->pose to the output frames, keeping every track sign-continuous. */
static mb_status append_frame(build *b)
{
    frame_buf *fb = &b->fb;
    int nj = b->nj, nt = b->nt;
    if (fb->frames == fb->cap && !frame_buf_grow(fb))
        return mb_error_set_(b->err, MB_NOMEM, "<transition>", "out of memory");
    float *fr = fb->rot + (size_t)fb->frames * nj * 4, *fp = fb->pos + (size_t)fb->frames * nt * 3;
    for (int t = 0; t < nt; ++t)
        memcpy(fp + 3 * t, b->pose[b->tracked[t]].pos, 3 * sizeof(float));
    for (int j = 0; j < nj; ++j) {
        float *r = fr + 4 * j;
        memcpy(r, b->pose[j].rot, 4 * sizeof(float));
        if (fb->frames > 0) {
            const float *pr = r - 4 * nj;
            if (r[0] * pr[0] + r[1] * pr[1] + r[2] * pr[2] + r[3] * pr[3] < 0.0f)
                for (int c = 0; c < 4; ++c)
                    r[c] = -r[c];
        }
    }
    ++fb->frames;
    return MB_OK;
}

static mb_status report_step(build *b, int k, double off)
{
    const mb_transition_build_desc *d = b->d;
    if (!d->report)
        return MB_OK;
    float wts[2];
    mb_controller_state_weights(b->ctl, wts, 2);
    mb_transition_frame tf;
    tf.frame = k;
    tf.weight_b = wts[1];
    tf.time_a = mb_controller_clip_time_(b->ctl, 0);
    tf.time_b = mb_controller_clip_time_(b->ctl, 1);
    tf.offset_angle = (float)off;
    mb_status rc = d->report(d->report_user, &tf);
    if (rc != MB_OK)
        return mb_error_set_(b->err, rc, "<transition>", "the report callback stopped the build at frame %d", k);
    return MB_OK;
}

/* Plays A, requests B after A's frame ka, and records frames until B has finished;
 * res gets the transition's frames and B's start. */
static mb_status play(build *b, mb_transition_result *res)
{
    const mb_transition_build_desc *d = b->d;
    const mb_transition_desc *td = &d->transition;
    double b0 = b->ib.first_frame * b->ftb, bdur = (b->nfb - 1 - b->ib.first_frame) * b->ftb;
    mb_transition_desc req = *td;
    double b_u = (d->b_start - b0) / bdur;
    b_u = b_u > 1.0 ? 1.0 : b_u;
    req.start_phase = (float)b_u;
    if (td->duration > 0.0f && runs_past_(d->b_start - b0, td->duration * b->rate_b, bdur))
        return mb_error_set_(b->err, MB_INVALID_ARG, mb_name_(b->sb, "<transition>"), "B ends %.3g s after its start; the transition needs %.3g s",
                     bdur - (d->b_start - b0), td->duration * b->rate_b);
    int requested = 0, trans_end = -1, k_a = b->ka - b->ia.first_frame;
    long limit = (long)k_a + 4 + (long)ceil((td->duration * 2.0 + (b->nfb + 2) * b->ftb * 2.0) / b->fta);
    double b_started = d->b_start;
    mb_status rc;
    for (int k = 0;; ++k) {
        if (k > limit || k >= MB_MAX_FRAMES)
            return mb_error_set_(b->err, MB_LIMIT, "<transition>", "the transition does not end (%d frames)", k);
        if (k == k_a + 1) {
            if ((rc = mb_controller_request_ex_(b->ctl, 1, &req, b_u)) != MB_OK)
                return mb_error_set_(b->err, rc, "<transition>", "transition request failed");
            requested = 1;
            b_started = mb_controller_clip_time_(b->ctl, 1);
        }
        double delta[4], off = 0.0;
        rc = mb_controller_update_ex_(b->ctl, k == 0 ? 0.0 : b->fta, (mb_pose){b->pose, b->nj}, delta, &off);
        if (rc != MB_OK)
            return mb_error_set_(b->err, rc, "<transition>", "frame %d: %s", k, mb_status_str(rc));
        if ((rc = place_on_path(b, k, delta)) != MB_OK || (rc = append_frame(b)) != MB_OK ||
            (rc = report_step(b, k, off)) != MB_OK)
            return rc;
        mb_controller_status cs;
        mb_controller_get_status(b->ctl, &cs);
        if (requested && trans_end < 0 && !cs.transitioning)
            trans_end = k;
        if (requested && trans_end >= 0 && cs.finished)
            break;
    }
    res->frames = b->fb.frames;
    res->transition_start = k_a;
    res->transition_end = trans_end;
    res->b_start = b_started;
    res->frame_time = b->fta;
    return MB_OK;
}

/* The recorded frames as a clip on the skeleton. */
static mb_status make_clip(build *b, mb_clip **out)
{
    mb_status rc = mb_clip_alloc(b->nj, b->fb.frames, b->fta, b->tracked, b->nt, &b->d->allocator, out, NULL);
    if (rc != MB_OK)
        return mb_error_set_(b->err, rc, "<transition>", "cannot allocate the output clip (%d frames)", b->fb.frames);
    memcpy(mb_clip_rotations_mut(*out), b->fb.rot, (size_t)b->fb.frames * b->nj * 4 * sizeof(float));
    if (b->nt > 0)
        memcpy(mb_clip_translations_mut(*out), b->fb.pos, (size_t)b->fb.frames * b->nt * 3 * sizeof(float));
    return MB_OK;
}

mb_status mb_transition_build(const mb_transition_build_desc *d, mb_clip **out,
                              mb_transition_result *res, mb_error *err)
{
    mb_error_clear_(err);
    mb_transition_build_desc local;
    if (d && (d->prepared_a || d->prepared_b)) {
        local = *d;
        mb_prepared_fill_(d->prepared_a, NULL, &local.a, &local.info_a, &local.source_a);
        mb_prepared_fill_(d->prepared_b, NULL, &local.b, &local.info_b, &local.source_b);
        d = &local;
    }
    if (out)
        *out = NULL;
    if (!d || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "<transition>", "transition needs a skeleton and two clips");
    mb_status rc = check_build_desc(d, err);
    if (rc != MB_OK)
        return rc;
    build *b = calloc(1, sizeof *b);
    if (!b)
        return mb_error_set_(err, MB_NOMEM, "<transition>", "out of memory");
    b->d = d;
    b->err = err;
    b->sa = d->source_a ? d->source_a : "A";
    b->sb = d->source_b ? d->source_b : "B";
    b->nj = mb_skeleton_joint_count(d->skeleton);
    b->nfa = mb_clip_frame_count(d->a);
    b->nfb = mb_clip_frame_count(d->b);
    b->fta = mb_clip_frame_time(d->a);
    b->ftb = mb_clip_frame_time(d->b);
    b->tracked = mb_skeleton_translation_joints(d->skeleton, &b->nt);
    b->fb = (frame_buf){NULL, NULL, 0, 0, b->nj, b->nt};
    mb_transition_result r;
    mb_clip *clip = NULL;
    if ((rc = analyse_pair(b)) == MB_OK && (rc = plan_sync(b)) == MB_OK &&
        (rc = make_player(b)) == MB_OK && (rc = play(b, &r)) == MB_OK)
        rc = make_clip(b, &clip);
    free(b->fb.rot);
    free(b->fb.pos);
    free(b->pose);
    free(b->orig);
    mb_controller_destroy(b->ctl);
    mb_state_set_destroy(b->set);
    free(b);
    if (rc != MB_OK)
        return rc;
    if (res)
        *res = r;
    *out = clip;
    return MB_OK;
}
