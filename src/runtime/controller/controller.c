/* The runtime controller: reading immutable state sets (shared; built offline by
 * src/offline/motion/state_set.c) and per-character controllers.
 *
 * A state set holds, for every clip, the frames it plays and its root path sampled at
 * every frame: the root's world position and its heading averaged over a gait cycle.
 * Sampling a clip "in place" removes that heading and the horizontal position from the
 * root, so poses of different clips blend around one character frame, and the step of
 * the root path between two times, seen from the heading at the first, is the clip's
 * root motion (rootmotion_internal.h). Blending those steps with the pose weights and
 * integrating them is what keeps the feet planted while the mix changes.
 *
 * A controller plays up to max_tracks states ("tracks") at once. A cross-fade ramps the
 * target track's weight up while the others keep their proportions; an inertialization
 * replaces all tracks by the target and decays the offset from the last output pose
 * (inertialize_internal.h). Everything the update needs is allocated at creation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/axis_internal.h"
#include "base/error_internal.h"
#include "base/alloc_internal.h"
#include "mblend/runtime/blend.h"
#include "mblend/runtime/controller.h"
#include "runtime/controller/controller_internal.h"
#include "runtime/controller/inertialize_internal.h"
#include "runtime/controller/rootmotion_internal.h"
#include "runtime/controller/state_set_internal.h"

/* ======================================================================= state sets */

void mb_state_set_destroy(mb_state_set *s)
{
    if (!s)
        return;
    mb_allocator a = s->alloc;
    if (s->clips)
        for (int i = 0; i < s->nclips; ++i)
            mb_free_(&a, s->clips[i].track);
    mb_free_(&a, s->clips);
    mb_free_(&a, s->states);
    mb_free_(&a, s);
}

int mb_state_set_count(const mb_state_set *s) { return s ? s->nstates : 0; }
mb_axis mb_state_set_up_axis(const mb_state_set *s) { return s ? s->axis : MB_AXIS_Y; }
int mb_state_set_root(const mb_state_set *s) { return s ? s->root : 0; }

int mb_state_set_find(const mb_state_set *s, const char *name)
{
    if (!s || !name)
        return -1;
    for (int i = 0; i < s->nstates; ++i)
        if (strcmp(s->states[i].name, name) == 0)
            return i;
    return -1;
}

/* The (at most two) clips a state blends at a parameter, with their weights. */
static int state_clip_weights(const mb_state_set *s, int state, float param, int ci[2], double cw[2])
{
    const set_state *st = &s->states[state];
    const set_clip *c = &s->clips[st->first];
    int n = st->count;
    ci[1] = -1;
    cw[1] = 0.0;
    if (n == 1 || !(param > c[0].param)) {
        ci[0] = st->first;
        cw[0] = 1.0;
        return 1;
    }
    if (!(param < c[n - 1].param)) {
        ci[0] = st->first + n - 1;
        cw[0] = 1.0;
        return 1;
    }
    int i = 0;
    while (i + 2 < n && !(param < c[i + 1].param))
        ++i;
    double a = ((double)param - c[i].param) / ((double)c[i + 1].param - c[i].param);
    ci[0] = st->first + i;
    cw[0] = 1.0 - a;
    ci[1] = st->first + i + 1;
    cw[1] = a;
    return 2;
}

/* Seconds one pass of the state's span takes at these clip weights (a cycle for loops). */
static double span_duration(const mb_state_set *s, int nc, const int ci[2], const double cw[2])
{
    double d = 0.0;
    for (int m = 0; m < nc; ++m)
        d += cw[m] * s->clips[ci[m]].dur;
    return d;
}

double mb_state_set_cycle_duration(const mb_state_set *s, int state, float param)
{
    if (!s || state < 0 || state >= s->nstates || !isfinite(param))
        return -1.0;
    int ci[2];
    double cw[2];
    int nc = state_clip_weights(s, state, param, ci, cw);
    return span_duration(s, nc, ci, cw);
}

/* Root path sample at tau seconds from the clip's first played frame (clamped). */
static void track_at(const set_clip *sc, double tau, double out[4])
{
    int n = sc->f1 - sc->f0;
    double x = tau / sc->ft;
    if (!(x > 0.0)) {
        memcpy(out, sc->track, 4 * sizeof(double));
    } else if (x >= n) {
        memcpy(out, &sc->track[4 * n], 4 * sizeof(double));
    } else {
        int i = (int)x;
        double a = x - i;
        const double *p = &sc->track[4 * i], *q = p + 4;
        for (int k = 0; k < 4; ++k)
            out[k] = p[k] + a * (q[k] - p[k]);
    }
}

/* The clip's pose at tau with the root in place: heading removed, horizontally at 0. */
static mb_status sample_in_place(const mb_state_set *s, const set_clip *sc, double tau, mb_xform *buf)
{
    mb_pose p = {buf, s->nj};
    mb_status st = mb_clip_sample(s->skel, sc->clip, sc->f0 * sc->ft + tau, sc->wrap, p);
    if (st != MB_OK)
        return st;
    double tr[4];
    track_at(sc, tau, tr);
    double pq[4] = {0, 0, 0, 1}, pp[3] = {0, 0, 0};
    if (s->root_parent >= 0)
        mb_rm_chain_world(s->parents, &p, s->root_parent, pq, pp);
    mb_xform *x = &buf[s->root];
    double lq[4] = {x->rot[0], x->rot[1], x->rot[2], x->rot[3]}, lp[3] = {x->pos[0], x->pos[1], x->pos[2]};
    double wq[4], wp[3], yq[4], rel[4];
    mb_qmul_d_(pq, lq, wq);
    mb_qrotate_d_(pq, lp, wp);
    mb_rm_yaw_quat(s->up, -tr[3], yq);
    mb_qmul_d_(yq, wq, rel);
    double ip[3] = {0, 0, 0};
    ip[s->up] = wp[s->up] + pp[s->up];
    mb_rm_world_to_local(pq, pp, rel, ip, x->rot, x->pos);
    /* other ROOTs by the same map */
    const double world[3] = {wp[0] + pp[0], wp[1] + pp[1], wp[2] + pp[2]}, zero[3] = {0, 0, 0};
    mb_rm_map_other_roots(s->skel, s->root, buf, s->up, yq, world, zero);
    return MB_OK;
}

/* Adds step st (in the frame turned by *psi from the start frame) to out; *psi += dp. */
static void compose_step(int up, double out[3], double *psi, const double st[3], double dp)
{
    double r[3];
    if (*psi != 0.0) {
        double yq[4];
        mb_rm_yaw_quat(up, *psi, yq);
        mb_qrotate_d_(yq, st, r);
    } else {
        memcpy(r, st, sizeof r);
    }
    for (int c = 0; c < 3; ++c)
        out[c] += r[c];
    *psi += dp;
}

/* Root motion of a clip from tau_a over span seconds (looping clips wrap, any number of
 * times; played-once clips stop at their end), in the heading frame at tau_a. Whole
 * cycles are summed in closed form, so a long step costs no more than a short one. */
static void clip_step(const set_clip *sc, int loop, int up, double tau_a, double span, double out[3],
                      double *out_dpsi)
{
    out[0] = out[1] = out[2] = 0.0;
    *out_dpsi = 0.0;
    if (!(span > 0.0) || !(sc->dur > 0.0))
        return;
    double a[4], b[4], st[3], dp, psi = 0.0;
    double end = tau_a + span;
    if (!loop || end <= sc->dur) {
        track_at(sc, tau_a, a);
        track_at(sc, end > sc->dur ? sc->dur : end, b);
        mb_rm_local_step(up, a, b, st, &dp);
        compose_step(up, out, &psi, st, dp);
        *out_dpsi = psi;
        return;
    }
    /* to the end of this cycle */
    track_at(sc, tau_a, a);
    track_at(sc, sc->dur, b);
    mb_rm_local_step(up, a, b, st, &dp);
    compose_step(up, out, &psi, st, dp);
    double rest = span - (sc->dur - tau_a);
    double k = floor(rest / sc->dur);
    if (k >= 1.0) {
        /* k whole cycles: sum_{i<k} yaw(i dpsi) S = S (1 - e^{i k dpsi}) / (1 - e^{i dpsi})
         * in the horizontal plane (u, v, up cyclic; a yaw turns u towards v). */
        double c0[4], c1[4], S[3], D;
        track_at(sc, 0.0, c0);
        track_at(sc, sc->dur, c1);
        mb_rm_local_step(up, c0, c1, S, &D);
        int u = (up + 1) % 3, v = (up + 2) % 3;
        double su = S[u], sv = S[v], tu, tv;
        if (fabs(D) < 1e-9) {
            tu = k * su;
            tv = k * sv;
        } else {
            double nr = 1.0 - cos(k * D), ni = -sin(k * D), dr = 1.0 - cos(D), di = -sin(D);
            double den = dr * dr + di * di, qr = (nr * dr + ni * di) / den, qi = (ni * dr - nr * di) / den;
            tu = su * qr - sv * qi;
            tv = su * qi + sv * qr;
        }
        double sum[3] = {0, 0, 0};
        sum[u] = tu;
        sum[v] = tv;
        compose_step(up, out, &psi, sum, k * D);
        rest -= k * sc->dur;
    }
    if (rest > 1e-12) {
        track_at(sc, 0.0, a);
        track_at(sc, rest < sc->dur ? rest : sc->dur, b);
        mb_rm_local_step(up, a, b, st, &dp);
        compose_step(up, out, &psi, st, dp);
    }
    *out_dpsi = psi;
}

/* ======================================================================= controllers */

typedef struct track {
    int state;
    double u;            /* position over the state's span: loops [0, 1), once [0, 1] */
    double du;           /* increment of the last step (unwrapped) */
    double u_prev;       /* u before the last step */
    double w0, w;        /* weight at the fade's start, current weight */
    int nc;
    int ci[2];
    double cw[2];
} track;

struct mb_controller {
    mb_allocator alloc;
    const mb_state_set *set;
    int nj, max_tracks;
    float *params;
    track tr[MB_CONTROLLER_MAX_TRACKS];
    int n, tgt;
    /* cross-fade */
    int fading, fade_sync;
    mb_fade_curve curve;
    double fade_t, fade_dur;
    /* inertialization */
    int inert_pending, inert_active;
    double inert_t, inert_dur, offset_angle;
    mb_inert_joint_ *inert;
    /* history: the last two outputs */
    mb_xform *last, *prev, *scratch, *poses;
    int have_last, have_prev;
    double dt_last;
};

static void refresh_clips(const mb_controller *c, track *t)
{
    t->nc = state_clip_weights(c->set, t->state, c->params[t->state], t->ci, t->cw);
}

/* Gait phase of a track and the seconds of its gait cycle. */
static double track_phase(const mb_controller *c, const track *t, double *out_cycle)
{
    const mb_state_set *s = c->set;
    const set_state *st = &s->states[t->state];
    if (st->loop) {
        if (out_cycle)
            *out_cycle = span_duration(s, t->nc, t->ci, t->cw);
        return t->u;
    }
    const set_clip *sc = &s->clips[t->ci[0]];
    if (sc->cyclen > 0.0) {
        if (out_cycle)
            *out_cycle = sc->cyclen;
        double g = (t->u * sc->dur - sc->cyc0) / sc->cyclen;
        return g - floor(g);
    }
    if (out_cycle)
        *out_cycle = sc->dur;
    return t->u;
}

static int heaviest(const mb_controller *c)
{
    int best = c->tgt;
    for (int k = 0; k < c->n; ++k)
        if (c->tr[k].w > c->tr[best].w)
            best = k;
    return best;
}

/* Where a new track of `state` starts (u_given >= 0 replaces td->start_phase). */
static double start_u(mb_controller *c, int state, const mb_transition_desc *td, double u_given)
{
    const mb_state_set *s = c->set;
    const set_state *st = &s->states[state];
    double u = u_given >= 0.0 ? u_given : td->start_phase;
    if (td->sync && !td->sync_keep_start && c->n > 0) {
        double g = track_phase(c, &c->tr[heaviest(c)], NULL);
        if (st->loop)
            return g;
        const set_clip *sc = &s->clips[st->first];
        if (!(sc->cyclen > 0.0))
            return g;
        double want = u * sc->dur;
        double m = floor((want - sc->cyc0) / sc->cyclen - g + 0.5);
        double tau = sc->cyc0 + (g + m) * sc->cyclen;
        while (tau > sc->dur && tau - sc->cyclen >= 0.0)
            tau -= sc->cyclen;
        while (tau < 0.0 && tau + sc->cyclen <= sc->dur)
            tau += sc->cyclen;
        tau = tau < 0.0 ? 0.0 : (tau > sc->dur ? sc->dur : tau);
        return tau / sc->dur;
    }
    if (st->loop)
        u -= floor(u);
    return u;
}

static void init_track(mb_controller *c, track *t, int state, double u)
{
    memset(t, 0, sizeof *t);
    t->state = state;
    t->u = t->u_prev = u;
    refresh_clips(c, t);
}

mb_status mb_controller_reset(mb_controller *c, int state, float phase)
{
    if (!c || state < 0 || state >= c->set->nstates || !isfinite(phase) || phase < 0.0f || phase > 1.0f)
        return MB_INVALID_ARG;
    double u = phase;
    if (c->set->states[state].loop)
        u -= floor(u);
    init_track(c, &c->tr[0], state, u);
    c->tr[0].w = c->tr[0].w0 = 1.0;
    c->n = 1;
    c->tgt = 0;
    c->fading = c->fade_sync = 0;
    c->fade_t = c->fade_dur = 0.0;
    c->inert_pending = c->inert_active = 0;
    c->inert_t = c->inert_dur = c->offset_angle = 0.0;
    c->have_last = c->have_prev = 0;
    c->dt_last = 0.0;
    return MB_OK;
}

static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

mb_status mb_controller_create(const mb_controller_desc *d, mb_controller **out, mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    if (!d || !out || !d->states)
        return mb_error_set_(err, MB_INVALID_ARG, "controller", "no %s given",
                             !d ? "desc" : !out ? "output" : "state set");
    const mb_state_set *s = d->states;
    int K = d->max_tracks == 0 ? 4 : d->max_tracks;
    if (K < 2 || K > MB_CONTROLLER_MAX_TRACKS)
        return mb_error_set_(err, MB_INVALID_ARG, "controller", "max_tracks %d outside 2..%d (0: 4)",
                             d->max_tracks, MB_CONTROLLER_MAX_TRACKS);
    if (d->initial_state < 0 || d->initial_state >= s->nstates)
        return mb_error_set_(err, MB_INVALID_ARG, "controller", "initial state %d outside 0..%d",
                             d->initial_state, s->nstates - 1);
    if (!isfinite(d->initial_phase) || d->initial_phase < 0.0f || d->initial_phase > 1.0f)
        return mb_error_set_(err, MB_INVALID_ARG, "controller", "initial phase %g outside [0, 1]",
                             (double)d->initial_phase);
    int nj = s->nj;
    mb_blend_prepare(); /* so that no update is the first exact solve (blend.h) */
    size_t pose_bytes = align16((size_t)nj * sizeof(mb_xform));
    size_t o_params = align16(sizeof(mb_controller));
    size_t o_inert = o_params + align16((size_t)s->nstates * sizeof(float));
    size_t o_poses = o_inert + align16((size_t)nj * sizeof(mb_inert_joint_));
    size_t total = o_poses + pose_bytes * (size_t)(2 * K + 3);
    char *mem = mb_alloc_(&d->allocator, total);
    if (!mem)
        return mb_error_set_(err, MB_NOMEM, "controller", "out of memory for %d tracks of %d joints",
                             K, nj);
    mb_controller *c = (mb_controller *)mem;
    memset(c, 0, sizeof *c);
    c->alloc = d->allocator;
    c->set = s;
    c->nj = nj;
    c->max_tracks = K;
    c->params = (float *)(mem + o_params);
    c->inert = (mb_inert_joint_ *)(mem + o_inert);
    memset(c->inert, 0, (size_t)nj * sizeof(mb_inert_joint_));
    c->last = (mb_xform *)(mem + o_poses);
    c->prev = (mb_xform *)(mem + o_poses + pose_bytes);
    c->scratch = (mb_xform *)(mem + o_poses + 2 * pose_bytes);
    c->poses = (mb_xform *)(mem + o_poses + 3 * pose_bytes);
    for (int i = 0; i < s->nstates; ++i)
        c->params[i] = s->states[i].param;
    mb_controller_reset(c, d->initial_state, d->initial_phase);
    *out = c;
    return MB_OK;
}

void mb_controller_destroy(mb_controller *c)
{
    if (!c)
        return;
    mb_allocator a = c->alloc;
    mb_free_(&a, c);
}

mb_status mb_controller_set_param(mb_controller *c, int state, float value)
{
    if (!c || state < 0 || state >= c->set->nstates || !isfinite(value))
        return MB_INVALID_ARG;
    c->params[state] = value;
    return MB_OK;
}

static void drop_track(mb_controller *c, int k)
{
    for (int i = k; i + 1 < c->n; ++i)
        c->tr[i] = c->tr[i + 1];
    --c->n;
    if (c->tgt > k)
        --c->tgt;
}

mb_status mb_controller_request(mb_controller *c, int state, const mb_transition_desc *t)
{
    return mb_controller_request_ex_(c, state, t, -1.0);
}

mb_status mb_controller_request_ex_(mb_controller *c, int state, const mb_transition_desc *t, double u_given)
{
    if (!c || state < 0 || state >= c->set->nstates || !(u_given <= 1.0))
        return MB_INVALID_ARG;
    mb_transition_desc td;
    memset(&td, 0, sizeof td);
    if (t)
        td = *t;
    if (!isfinite(td.duration) || td.duration < 0.0f || (unsigned)td.mode > (unsigned)MB_TRANSITION_INERTIALIZE ||
        (unsigned)td.curve > (unsigned)MB_CURVE_LINEAR || !isfinite(td.start_phase) || td.start_phase < 0.0f ||
        td.start_phase > 1.0f)
        return MB_INVALID_ARG;
    int existing = -1;
    for (int k = 0; k < c->n; ++k)
        if (c->tr[k].state == state)
            existing = k;
    if (existing == c->tgt)
        return MB_OK; /* already there or on the way */

    if (td.mode == MB_TRANSITION_INERTIALIZE || td.duration == 0.0f) {
        track keep;
        if (existing >= 0)
            keep = c->tr[existing];
        else
            init_track(c, &keep, state, start_u(c, state, &td, u_given));
        keep.w = keep.w0 = 1.0;
        c->tr[0] = keep;
        c->n = 1;
        c->tgt = 0;
        c->fading = 0;
        if (td.mode == MB_TRANSITION_INERTIALIZE && td.duration > 0.0f && c->have_last) {
            c->inert_pending = 1;
            c->inert_dur = td.duration;
        } else {
            c->inert_pending = c->inert_active = 0; /* a cut is a cut */
            c->offset_angle = 0.0;
        }
        return MB_OK;
    }

    /* Cross-fade from the current mix. */
    for (int k = 0; k < c->n; ++k)
        c->tr[k].w0 = c->tr[k].w;
    if (existing >= 0) {
        c->tgt = existing;
    } else {
        double u = start_u(c, state, &td, u_given);
        if (c->n == c->max_tracks) {
            /* Full: drop the lightest; an inertialization carries its share away. */
            int light = 0;
            for (int k = 1; k < c->n; ++k)
                if (c->tr[k].w0 < c->tr[light].w0)
                    light = k;
            drop_track(c, light);
            double sum = 0.0;
            for (int k = 0; k < c->n; ++k)
                sum += c->tr[k].w0;
            for (int k = 0; k < c->n; ++k)
                c->tr[k].w0 = sum > 0.0 ? c->tr[k].w0 / sum : 1.0 / c->n;
            if (c->have_last) {
                c->inert_pending = 1;
                c->inert_dur = td.duration;
            }
        }
        track *nt = &c->tr[c->n];
        init_track(c, nt, state, u);
        c->tgt = c->n++;
    }
    for (int k = 0; k < c->n; ++k)
        c->tr[k].w = c->tr[k].w0;
    c->fading = 1;
    c->fade_sync = td.sync != 0;
    c->curve = td.curve;
    c->fade_t = 0.0;
    c->fade_dur = td.duration;
    return MB_OK;
}

/* Advances every track by dt: in phase during a synced cross-fade (one phase step for all,
 * the cycle duration interpolated with the weights), else each at its own pace. */
static void advance(mb_controller *c, double dt)
{
    const mb_state_set *s = c->set;
    double dg = 0.0;
    int synced = c->fading && c->fade_sync;
    if (synced) {
        double den = 0.0, wsum = 0.0;
        for (int k = 0; k < c->n; ++k) {
            double g;
            track_phase(c, &c->tr[k], &g);
            den += c->tr[k].w * g;
            wsum += c->tr[k].w;
        }
        if (den > 0.0 && wsum > 0.0)
            dg = dt * wsum / den;
        else
            synced = 0;
    }
    for (int k = 0; k < c->n; ++k) {
        track *t = &c->tr[k];
        const set_state *st = &s->states[t->state];
        double span = span_duration(s, t->nc, t->ci, t->cw);
        double du;
        if (synced) {
            double g;
            track_phase(c, t, &g);
            du = span > 0.0 ? dg * g / span : 0.0;
        } else {
            du = span > 0.0 ? dt / span : 0.0;
        }
        t->u_prev = t->u;
        if (st->loop) {
            t->du = du;
            double u = t->u + du;
            t->u = u - floor(u);
            if (t->u >= 1.0) /* rounding just below an integer */
                t->u = 0.0;
        } else {
            double u = t->u + du;
            t->u = u > 1.0 ? 1.0 : u;
            t->du = t->u - t->u_prev;
        }
    }
}

static void fade_weights(mb_controller *c)
{
    if (!c->fading) {
        for (int k = 0; k < c->n; ++k)
            c->tr[k].w = k == c->tgt ? 1.0 : 0.0;
        return;
    }
    double x = c->fade_dur > 0.0 ? c->fade_t / c->fade_dur : 1.0;
    x = x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
    double r = c->curve == MB_CURVE_LINEAR ? x : x * x * (3.0 - 2.0 * x);
    for (int k = 0; k < c->n; ++k) {
        track *t = &c->tr[k];
        t->w = k == c->tgt ? t->w0 + (1.0 - t->w0) * r : t->w0 * (1.0 - r);
    }
    if (x >= 1.0) {
        /* Done: only the target remains (its step this update stays valid). */
        track keep = c->tr[c->tgt];
        keep.w = keep.w0 = 1.0;
        c->tr[0] = keep;
        c->n = 1;
        c->tgt = 0;
        c->fading = 0;
    }
}

/* Samples every playing clip in place and blends them into out. */
static mb_status evaluate(mb_controller *c, mb_xform *out)
{
    const mb_state_set *s = c->set;
    int nj = c->nj, L = 0, single_k = -1, single_m = -1;
    for (int k = 0; k < c->n; ++k)
        for (int m = 0; m < c->tr[k].nc; ++m)
            if (c->tr[k].w * c->tr[k].cw[m] > 0.0) {
                ++L;
                single_k = k;
                single_m = m;
            }
    if (L == 0) { /* cannot happen with normalised weights; keep the target */
        single_k = c->tgt;
        single_m = 0;
        L = 1;
    }
    if (L == 1) {
        const track *t = &c->tr[single_k];
        const set_clip *sc = &s->clips[t->ci[single_m]];
        return sample_in_place(s, sc, t->u * sc->dur, out);
    }
    mb_blend_layer layers[2 * MB_CONTROLLER_MAX_TRACKS];
    mb_pose poses[2 * MB_CONTROLLER_MAX_TRACKS];
    L = 0;
    for (int k = 0; k < c->n; ++k) {
        const track *t = &c->tr[k];
        for (int m = 0; m < t->nc; ++m) {
            double w = t->w * t->cw[m];
            if (!(w > 0.0))
                continue;
            const set_clip *sc = &s->clips[t->ci[m]];
            mb_xform *buf = c->poses + (size_t)(2 * k + m) * nj;
            mb_status st = sample_in_place(s, sc, t->u * sc->dur, buf);
            if (st != MB_OK)
                return st;
            poses[L].joints = buf;
            poses[L].count = nj;
            layers[L].pose = &poses[L];
            layers[L].weight = (float)w;
            layers[L].joint_weights = NULL;
            ++L;
        }
    }
    mb_blend_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.layers = layers;
    bd.layer_count = L;
    bd.out.joints = out;
    bd.out.count = nj;
    mb_status st = mb_blend_run(&bd);
    return st == MB_OK ? MB_OK : MB_NUMERIC;
}

/* The blended root motion of the last step (x, y, z in the character frame, heading). */
static void root_delta(const mb_controller *c, double out[4])
{
    const mb_state_set *s = c->set;
    out[0] = out[1] = out[2] = out[3] = 0.0;
    for (int k = 0; k < c->n; ++k) {
        const track *t = &c->tr[k];
        int loop = s->states[t->state].loop;
        for (int m = 0; m < t->nc; ++m) {
            double w = t->w * t->cw[m];
            if (!(w > 0.0))
                continue;
            const set_clip *sc = &s->clips[t->ci[m]];
            double st[3], dp;
            clip_step(sc, loop, s->up, t->u_prev * sc->dur, t->du * sc->dur, st, &dp);
            for (int q = 0; q < 3; ++q)
                out[q] += w * st[q];
            out[3] += w * dp;
        }
    }
}

mb_status mb_controller_update_ex_(mb_controller *c, double dt, mb_pose out, double out_delta[4],
                                   double *out_offset_angle)
{
    if (!c || !out.joints || !(dt >= 0.0 && dt <= MB_CONTROLLER_MAX_DT))
        return MB_INVALID_ARG;
    if (out.count < c->nj)
        return MB_TOO_SMALL;
    int nj = c->nj;
    for (int k = 0; k < c->n; ++k)
        refresh_clips(c, &c->tr[k]);
    if (c->inert_pending) {
        c->inert_pending = 0;
        if (c->have_last) {
            /* Offsets relative to what plays now (the target, or the mix left after a
             * track was dropped), at the time of the last output. */
            for (int k = 0; k < c->n; ++k)
                c->tr[k].u_prev = c->tr[k].u;
            mb_status st = evaluate(c, c->scratch);
            if (st != MB_OK)
                return st;
            mb_inert_start_(c->inert, nj, c->last, c->have_prev ? c->prev : NULL, c->dt_last, c->scratch,
                            c->inert_dur);
            c->inert_active = 1;
            c->inert_t = 0.0;
        }
    }
    advance(c, dt);
    if (c->fading) {
        c->fade_t += dt;
        fade_weights(c);
    }
    /* Root motion comes from what plays, also during an inertialization: carrying the
     * source's speed into the offset makes the target's planted feet slide. */
    double d[4];
    root_delta(c, d);
    mb_status st = evaluate(c, out.joints);
    if (st != MB_OK)
        return st;
    c->offset_angle = 0.0;
    if (c->inert_active) {
        c->inert_t += dt;
        c->offset_angle = mb_inert_apply_(c->inert, nj, c->inert_t, out.joints);
        if (c->inert_t >= c->inert_dur)
            c->inert_active = 0;
    }
    if (dt > 0.0) {
        if (c->have_last) {
            mb_xform *tmp = c->prev;
            c->prev = c->last;
            c->last = tmp;
            c->have_prev = 1;
        }
        c->dt_last = dt;
    }
    memcpy(c->last, out.joints, (size_t)nj * sizeof(mb_xform));
    c->have_last = 1;
    if (out_delta)
        memcpy(out_delta, d, sizeof d);
    if (out_offset_angle)
        *out_offset_angle = c->offset_angle;
    return MB_OK;
}

mb_status mb_controller_update(mb_controller *c, float dt, mb_pose out, mb_root_motion *out_delta)
{
    double d[4];
    mb_status st = mb_controller_update_ex_(c, dt, out, d, NULL);
    if (st == MB_OK && out_delta) {
        for (int q = 0; q < 3; ++q)
            out_delta->translation[q] = (float)d[q];
        out_delta->heading = (float)d[3];
    }
    return st;
}

mb_status mb_controller_get_status(const mb_controller *c, mb_controller_status *out)
{
    if (!c || !out)
        return MB_INVALID_ARG;
    const track *t = &c->tr[c->tgt];
    const set_state *st = &c->set->states[t->state];
    memset(out, 0, sizeof *out);
    out->state = t->state;
    out->transitioning = c->fading || c->inert_active || c->inert_pending;
    double p = 1.0;
    if (c->fading)
        p = c->fade_dur > 0.0 ? c->fade_t / c->fade_dur : 1.0;
    else if (c->inert_active)
        p = c->inert_dur > 0.0 ? c->inert_t / c->inert_dur : 1.0;
    else if (c->inert_pending)
        p = 0.0;
    out->progress = (float)(p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p));
    track tmp = *t;
    refresh_clips(c, &tmp);
    out->phase = track_phase(c, &tmp, NULL);
    out->time = t->u * span_duration(c->set, tmp.nc, tmp.ci, tmp.cw);
    out->finished = !st->loop && t->u >= 1.0;
    out->tracks = c->n;
    return MB_OK;
}

mb_status mb_controller_state_weights(const mb_controller *c, float *out, int count)
{
    if (!c || !out)
        return MB_INVALID_ARG;
    if (count < c->set->nstates)
        return MB_TOO_SMALL;
    for (int i = 0; i < c->set->nstates; ++i)
        out[i] = 0.0f;
    for (int k = 0; k < c->n; ++k)
        out[c->tr[k].state] += (float)c->tr[k].w;
    return MB_OK;
}

double mb_controller_clip_time_(const mb_controller *c, int state)
{
    if (!c)
        return -1.0;
    for (int k = 0; k < c->n; ++k) {
        const track *t = &c->tr[k];
        if (t->state != state)
            continue;
        if (c->set->states[state].loop)
            return -1.0;
        const set_clip *sc = &c->set->clips[c->set->states[state].first];
        return sc->f0 * sc->ft + t->u * sc->dur;
    }
    return -1.0;
}
