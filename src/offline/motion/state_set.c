/* The offline build of the controller's state set (mblend/offline/state_set.h): analyses
 * or takes each clip's mb_motion_info, selects the looping states' cycles by the
 * preparation stage's rule (mb_prepared_select_cycles) and precomputes every clip's root
 * path, which the per-frame controller (src/runtime/controller/controller.c) samples. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/axis_internal.h"
#include "base/error_internal.h"
#include "base/alloc_internal.h"
#include "mblend/offline/prepare.h"
#include "mblend/offline/state_set.h"
#include "offline/motion/motion_internal.h"
#include "runtime/controller/rootmotion_internal.h"
#include "runtime/controller/state_set_internal.h"

/* Root path of one clip over its frames, heading averaged over a cycle (looping: the exact
 * cycle mean plus the cycle's turn spread evenly, so it is linear in time; played once:
 * a centred moving average over `window` frames, shrunk at the clip's ends). */
static mb_status build_track(const mb_state_set *s, set_clip *sc, int loop, int window,
                             mb_xform *scratch)
{
    int n = sc->f1 - sc->f0;
    mb_pose p = {scratch, s->nj};
    double prev = 0.0, unwrap = 0.0;
    for (int k = 0; k <= n; ++k) {
        mb_status st = mb_clip_frame_pose(s->skel, sc->clip, (sc->f0 + k) % mb_clip_frame_count(sc->clip), p);
        if (st != MB_OK)
            return st;
        double q[4], pos[3];
        mb_rm_chain_world(s->parents, &p, s->root, q, pos);
        double h = mb_rm_pose_heading(s->up, s->parents, &p, s->hip, q);
        unwrap = k > 0 ? unwrap + mb_rm_wrap(h - prev) : h;
        prev = h;
        double *t = &sc->track[4 * k];
        t[0] = pos[0];
        t[1] = pos[1];
        t[2] = pos[2];
        t[3] = unwrap;
    }
    if (loop) {
        double drift = sc->track[4 * n + 3] - sc->track[3], mean = 0.0;
        for (int k = 0; k < n; ++k)
            mean += sc->track[4 * k + 3] - drift * k / n;
        mean /= n;
        for (int k = 0; k <= n; ++k)
            sc->track[4 * k + 3] = mean + drift * k / n;
        return MB_OK;
    }
    double *pre = mb_alloc_(&s->alloc, (size_t)(n + 2) * sizeof *pre);
    if (!pre)
        return MB_NOMEM;
    pre[0] = 0.0;
    for (int k = 0; k <= n; ++k)
        pre[k + 1] = pre[k] + sc->track[4 * k + 3];
    int half = window / 2;
    for (int k = 0; k <= n; ++k) {
        int lo = k - half < 0 ? 0 : k - half, hi = k + half > n ? n : k + half;
        sc->track[4 * k + 3] = (pre[hi + 1] - pre[lo]) / (hi - lo + 1);
    }
    mb_free_(&s->alloc, pre);
    return MB_OK;
}

static mb_status validate_set_desc(const mb_state_set_desc *d, int *nclips, mb_error *err)
{
    if (!d->skeleton || !d->states)
        return mb_error_set_(err, MB_INVALID_ARG, "state set", "state set needs a skeleton and states");
    if (d->state_count < 1 || d->state_count > MB_STATE_MAX_STATES)
        return mb_error_set_(err, MB_INVALID_ARG, "state set", "state count %d outside 1..%d", d->state_count,
                        MB_STATE_MAX_STATES);
    if (!mb_axis_valid_(d->up_axis))
        return mb_error_set_(err, MB_INVALID_ARG, "state set", "up axis %d outside 0..3", (int)d->up_axis);
    int nj = mb_skeleton_joint_count(d->skeleton);
    *nclips = 0;
    for (int i = 0; i < d->state_count; ++i) {
        const mb_state_desc *sd = &d->states[i];
        if (!sd->clips || sd->clip_count < 1 || sd->clip_count > MB_STATE_MAX_CLIPS)
            return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d: needs 1..%d clips", i, MB_STATE_MAX_CLIPS);
        if (sd->clip_count > 1 && !sd->loop)
            return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d: a blend space must loop", i);
        if (!isfinite(sd->param))
            return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d: parameter is not finite", i);
        if (sd->name && strlen(sd->name) > 63)
            return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d: name longer than 63 bytes", i);
        for (int m = 0; m < sd->clip_count; ++m) {
            const mb_state_clip *c = &sd->clips[m];
            if (!c->clip)
                return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d clip %d: no clip", i, m);
            if (mb_clip_joint_count(c->clip) != nj)
                return mb_error_set_(err, MB_MISMATCH, "state set", "state %d clip %d: %d joints, the skeleton has %d", i,
                                m, mb_clip_joint_count(c->clip), nj);
            if (mb_clip_frame_count(c->clip) < 2)
                return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d clip %d: needs at least 2 frames", i, m);
            if (!isfinite(c->param) || (m > 0 && !(c->param > sd->clips[m - 1].param)))
                return mb_error_set_(err, MB_INVALID_ARG, "state set",
                                "state %d clip %d: params must be finite and strictly increasing", i, m);
        }
        *nclips += sd->clip_count;
    }
    return MB_OK;
}

/* The analysis of clip m of state i (k-th of the set): given, or analysed on the set's up
 * axis. The first clip of the set fixes the set's up axis, root and hips. */
static mb_status clip_info(mb_state_set *s, const mb_state_set_desc *d, int i, int m, int k,
                           mb_motion_info *info, mb_error *err)
{
    const mb_state_desc *sd = &d->states[i];
    const mb_state_clip *c = &sd->clips[m];
    mb_status rc;
    if (c->info) {
        if ((rc = mb_motion_info_check_(c->info, d->skeleton, c->clip, sd->name, err)) != MB_OK)
            return rc;
        *info = *c->info;
    } else {
        mb_analyze_desc ad = {0};
        ad.up_axis = k == 0 ? d->up_axis : s->axis;
        if ((rc = mb_motion_analyze(d->skeleton, c->clip, &ad, sd->name, info, err)) != MB_OK)
            return rc;
    }
    if (k != 0)
        return MB_OK;
    s->axis = d->up_axis != MB_AXIS_DETECT ? d->up_axis : info->up_axis;
    s->up = mb_axis_index(s->axis);
    s->root = info->root;
    if (d->root) {
        s->root = mb_skeleton_find(d->skeleton, d->root);
        if (s->root < 0)
            return mb_error_set_(err, MB_INVALID_ARG, "state set", "no joint named '%.100s' for the root", d->root);
    }
    s->root_parent = s->parents[s->root];
    mb_motion_hips_(d->skeleton, s->root, info, s->hip);
    return MB_OK;
}

/* The cycles of a looping state's clips: given ones as they are (frame END must exist),
 * the others from the library's one selection rule over the state's clips (prepare.h), so
 * a blend space gets the cycles `mblend blend` would give the same clips. A whole loop
 * whose last frame runs on into frame 0 ends at the frame count. */
static mb_status loop_cycles(const mb_state_set_desc *d, int i, const mb_motion_info *infos,
                             mb_frame_range *out, mb_error *err)
{
    const mb_state_desc *sd = &d->states[i];
    mb_prepared_clip *p[MB_STATE_MAX_CLIPS] = {NULL};
    mb_status rc = MB_OK;
    for (int m = 0; m < sd->clip_count && rc == MB_OK; ++m) {
        const mb_state_clip *c = &sd->clips[m];
        int nf = mb_clip_frame_count(c->clip);
        mb_frame_range r = c->range;
        if (r.end != 0 && (r.start < 0 || r.end <= r.start || r.end >= nf))
            return mb_error_set_(err, MB_INVALID_ARG, "state set",
                            "state %d clip %d: cycle %d:%d does not fit %d frames (frame END must exist)",
                            i, m, r.start, r.end, nf);
    }
    for (int m = 0; m < sd->clip_count && rc == MB_OK; ++m) {
        char source[64];
        snprintf(source, sizeof source, "state %d clip %d", i, m);
        mb_prepare_desc pd = {0};
        pd.skeleton = d->skeleton;
        pd.clip = sd->clips[m].clip;
        pd.source = source;
        pd.range = sd->clips[m].range;
        pd.info = &infos[m];
        rc = mb_clip_prepare(&pd, &p[m], err);
    }
    if (rc == MB_OK)
        rc = mb_prepared_select_cycles(p, sd->clip_count, MB_CYCLE_AUTO, err);
    for (int m = 0; m < sd->clip_count; ++m) {
        if (rc == MB_OK) {
            const mb_prepared_info *pi = mb_prepared_clip_info(p[m]);
            out[m] = pi->range;
        }
        mb_prepared_clip_destroy(p[m]);
    }
    return rc;
}

/* The frames a played-once clip plays and its optional gait cycle for phase sync. */
static mb_status once_frames(int i, int m, const mb_state_clip *c, const mb_motion_info *info,
                             set_clip *sc, mb_error *err)
{
    int nf = mb_clip_frame_count(c->clip);
    mb_frame_range r = c->range;
    if (r.end == 0) {
        r.start = info->first_frame;
        r.end = nf;
    }
    if (r.start < 0 || r.end > nf || r.end - r.start < 2)
        return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d clip %d: range %d:%d does not fit %d frames",
                        i, m, r.start, r.end, nf);
    sc->f0 = r.start;
    sc->f1 = r.end - 1;
    if (c->cycle.end != 0) {
        /* the cycle only times the phase here, so it may end at the frame count: the cycle
         * of a clip whose last frame runs on into its first (mb_loop_kind MB_LOOP_RUNS_ON) */
        if (c->cycle.start < 0 || c->cycle.end <= c->cycle.start || c->cycle.end > nf)
            return mb_error_set_(err, MB_INVALID_ARG, "state set", "state %d clip %d: cycle %d:%d does not fit %d frames",
                            i, m, c->cycle.start, c->cycle.end, nf);
        sc->cyc0 = (c->cycle.start - sc->f0) * sc->ft;
        sc->cyclen = (c->cycle.end - c->cycle.start) * sc->ft;
    }
    return MB_OK;
}

/* State i and its clips, from the k-th clip of the set on. */
static mb_status build_state(mb_state_set *s, const mb_state_set_desc *d, int i, int k,
                             mb_xform *scratch, mb_error *err)
{
    const mb_state_desc *sd = &d->states[i];
    set_state *st = &s->states[i];
    memset(st, 0, sizeof *st);
    if (sd->name)
        snprintf(st->name, sizeof st->name, "%s", sd->name);
    st->loop = sd->loop != 0;
    st->first = k;
    st->count = sd->clip_count;
    st->param = sd->param;
    mb_motion_info infos[MB_STATE_MAX_CLIPS];
    mb_frame_range cycles[MB_STATE_MAX_CLIPS];
    mb_status rc = MB_OK;
    for (int m = 0; m < sd->clip_count && rc == MB_OK; ++m)
        rc = clip_info(s, d, i, m, k + m, &infos[m], err);
    if (rc == MB_OK && st->loop)
        rc = loop_cycles(d, i, infos, cycles, err);
    for (int m = 0; m < sd->clip_count && rc == MB_OK; ++m) {
        const mb_state_clip *c = &sd->clips[m];
        set_clip *sc = &s->clips[k + m];
        sc->clip = c->clip;
        sc->ft = mb_clip_frame_time(c->clip);
        sc->param = c->param;
        sc->wrap = MB_WRAP_CLAMP;
        if (st->loop) {
            sc->f0 = cycles[m].start;
            sc->f1 = cycles[m].end;
            if (sc->f1 == mb_clip_frame_count(c->clip))
                sc->wrap = MB_WRAP_LOOP;
        } else if ((rc = once_frames(i, m, c, &infos[m], sc, err)) != MB_OK) {
            break;
        }
        sc->dur = (sc->f1 - sc->f0) * sc->ft;
        sc->track = mb_alloc_(&s->alloc, 4 * (size_t)(sc->f1 - sc->f0 + 1) * sizeof(double));
        if (!sc->track)
            return mb_error_set_(err, MB_NOMEM, "state set", "out of memory");
        int window = sc->cyclen > 0.0 ? (int)(sc->cyclen / sc->ft + 0.5) : (int)(1.0 / sc->ft + 0.5);
        rc = build_track(s, sc, st->loop, window < 1 ? 1 : window, scratch);
        if (rc != MB_OK)
            mb_error_set_(err, rc, "state set", "state %d clip %d: cannot sample the clip", i, m);
    }
    return rc;
}

mb_status mb_state_set_create(const mb_state_set_desc *d, mb_state_set **out, mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    if (!d || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "state set", "state set needs a skeleton and states");
    int nclips = 0;
    mb_status rc = validate_set_desc(d, &nclips, err);
    if (rc != MB_OK)
        return rc;
    int nj = mb_skeleton_joint_count(d->skeleton);
    mb_allocator al = d->allocator;
    mb_state_set *s = mb_alloc_(&al, sizeof *s);
    if (!s)
        return mb_error_set_(err, MB_NOMEM, "state set", "out of memory");
    memset(s, 0, sizeof *s);
    s->alloc = al;
    s->skel = d->skeleton;
    s->parents = mb_skeleton_parents(d->skeleton);
    s->nj = nj;
    s->states = mb_alloc_(&al, (size_t)d->state_count * sizeof *s->states);
    s->clips = mb_alloc_(&al, (size_t)nclips * sizeof *s->clips);
    mb_xform *scratch = mb_alloc_(&al, (size_t)nj * sizeof *scratch);
    if (!s->states || !s->clips || !scratch) {
        mb_free_(&al, scratch);
        mb_state_set_destroy(s);
        return mb_error_set_(err, MB_NOMEM, "state set", "out of memory");
    }
    memset(s->clips, 0, (size_t)nclips * sizeof *s->clips);
    s->nstates = d->state_count;
    s->nclips = nclips;
    for (int i = 0, k = 0; i < d->state_count && rc == MB_OK; k += d->states[i].clip_count, ++i)
        rc = build_state(s, d, i, k, scratch, err);
    mb_free_(&al, scratch);
    if (rc != MB_OK) {
        mb_state_set_destroy(s);
        return rc;
    }
    *out = s;
    return MB_OK;
}
