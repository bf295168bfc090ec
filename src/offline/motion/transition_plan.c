/* mb_transition_plan_find: where a transition starts in A and in B (mblend/offline/transition_build.h). */
#include <math.h>
#include <string.h>

#include "base/error_internal.h"
#include "mblend/offline/match.h"
#include "mblend/offline/transition_build.h"
#include "offline/motion/motion_internal.h"

/* Clip facts the checks need, in seconds. */
typedef struct span {
    double ft, start, end; /* frame time; first motion frame and last frame, as times */
    int frames;
} span;

static span span_of(const mb_clip *c, const mb_motion_info *info)
{
    span s;
    s.ft = mb_clip_frame_time(c);
    s.frames = mb_clip_frame_count(c);
    s.start = info->first_frame * s.ft;
    s.end = (s.frames - 1) * s.ft;
    return s;
}

static const char *name_or(const char *s, const char *dflt) { return s ? s : dflt; }

/* The given points lie in their clips' motion, A goes on for the duration after `at`, and
 * B's motion lasts the duration (half a frame of slack for times rounded to frames). */
static mb_status check_points(const mb_transition_plan_desc *d, const span *a, const span *b,
                              mb_error *err)
{
    const char *na = name_or(d->source_a, "A"), *nb = name_or(d->source_b, "B");
    double tol = 1e-9 + 1e-6 * d->duration;
    if (!d->at_auto && (d->at > a->end + 0.5 * a->ft || d->at < a->start - 0.5 * a->ft))
        return mb_error_set_(err, MB_INVALID_ARG, na, "the transition point %g s is outside "
                             "the motion (%.4g s to %.4g s%s)", d->at, a->start, a->end,
                             a->start > 0.0 ? "; frame 0 is a T-pose" : "");
    double left_a = a->end - floor(d->at / a->ft + 0.5) * a->ft;
    if (!d->at_auto && d->duration > left_a + tol)
        return mb_error_set_(err, MB_INVALID_ARG, na, "ends %.3g s after the transition point "
                             "%g s; the %.3g s transition needs it to go on", left_a, d->at,
                             d->duration);
    if (!d->b_auto && (d->b_start > b->end + 0.5 * b->ft || d->b_start < b->start - 0.5 * b->ft))
        return mb_error_set_(err, MB_INVALID_ARG, nb, "the start %g s is outside the motion "
                             "(%.4g s to %.4g s%s)", d->b_start, b->start, b->end,
                             b->start > 0.0 ? "; frame 0 is a T-pose" : "");
    if (b->end - b->start + tol < d->duration)
        return mb_error_set_(err, MB_INVALID_ARG, nb, "has %.3g s of motion: too short for a "
                             "%.3g s transition", b->end - b->start, d->duration);
    return MB_OK;
}

/* The search range in A: given, or from a third into A's motion to the last time that
 * leaves room for the transition. */
static mb_status search_a(const mb_transition_plan_desc *d, const span *a, mb_match_desc *md,
                          mb_error *err)
{
    if (d->search_from != 0.0 || d->search_to != 0.0) {
        md->a_from = d->search_from;
        md->a_to = d->search_to;
        return MB_OK;
    }
    double hi = a->end - (d->sync ? 1.5 : 1.0) * d->duration;
    double lo = a->start + (a->end - a->start) / 3.0;
    if (hi < lo)
        lo = a->start;
    if (hi < lo)
        return mb_error_set_(err, MB_INVALID_ARG, name_or(d->source_a, "A"), "lasts %.3g s: too "
                             "short for a %.3g s transition", a->end - a->start, d->duration);
    md->a_from = lo;
    md->a_to = hi;
    return MB_OK;
}

/* The match search for the automatic points: ranges around given points so the search
 * only scores them. */
static mb_status match_points(const mb_transition_plan_desc *d, const span *a, const span *b,
                              mb_transition_plan *p, mb_error *err)
{
    mb_match_desc md;
    memset(&md, 0, sizeof md);
    md.skeleton_a = d->skeleton_a;
    md.skeleton_b = d->skeleton_b;
    md.a = d->a;
    md.b = d->b;
    md.info_a = d->info_a;
    md.info_b = d->info_b;
    md.window = d->window > 0.0 ? d->window : (d->duration > 0.1 ? d->duration : 0.1);
    double left_a = a->end - p->a_frame * a->ft;
    if (!d->at_auto && d->window <= 0.0 && md.window > left_a)
        md.window = d->duration;
    mb_status st;
    if (d->at_auto) {
        if ((st = search_a(d, a, &md, err)) != MB_OK)
            return st;
    } else {
        md.a_from = p->a_frame * a->ft - 0.25 * a->ft;
        md.a_to = p->a_frame * a->ft + 0.25 * a->ft;
        if (md.a_from < 0.0)
            md.a_from = 0.0;
    }
    if (!d->b_auto) {
        md.b_from = d->b_start > 0.25 * b->ft ? d->b_start - 0.25 * b->ft : 0.0;
        md.b_to = d->b_start + 0.25 * b->ft;
    }
    mb_match_pair best;
    int found = 0;
    if ((st = mb_match_find(&md, &best, 1, &found, NULL, err)) != MB_OK)
        return st;
    if (!found)
        return mb_error_set_(err, MB_MISMATCH, name_or(d->source_a, "A"), "no transition "
                             "point found");
    if (d->at_auto)
        p->a_frame = best.a;
    if (d->b_auto) {
        p->b_frame = best.b;
        p->b_start = best.b * b->ft;
    }
    p->cost = best.cost;
    return MB_OK;
}

mb_status mb_transition_plan_find(const mb_transition_plan_desc *d, mb_transition_plan *out,
                                  mb_error *err)
{
    mb_error_clear_(err);
    mb_transition_plan_desc local;
    if (d && (d->prepared_a || d->prepared_b)) {
        local = *d;
        mb_prepared_fill_(d->prepared_a, &local.skeleton_a, &local.a, &local.info_a, &local.source_a);
        mb_prepared_fill_(d->prepared_b, &local.skeleton_b, &local.b, &local.info_b, &local.source_b);
        d = &local;
    }
    if (!d || !out || !d->skeleton_a || !d->skeleton_b || !d->a || !d->b || !d->info_a ||
        !d->info_b)
        return mb_error_set_(err, MB_INVALID_ARG, "transition plan", "NULL desc, output, "
                             "skeleton, clip or analysis");
    if (!(d->duration >= 0.0) || !isfinite(d->duration) || !isfinite(d->at) ||
        !isfinite(d->b_start) || mb_clip_frame_count(d->a) < 2 || mb_clip_frame_count(d->b) < 2)
        return mb_error_set_(err, MB_INVALID_ARG, "transition plan", "times must be finite, "
                             "the duration >= 0 and both clips at least 2 frames long");
    span a = span_of(d->a, d->info_a), b = span_of(d->b, d->info_b);
    mb_status st = check_points(d, &a, &b, err);
    if (st != MB_OK)
        return st;
    mb_transition_plan p;
    p.a_frame = (int)floor(d->at / a.ft + 0.5);
    p.b_frame = -1;
    p.b_start = d->b_start;
    p.cost = -1.0;
    if ((d->at_auto || d->b_auto) && (st = match_points(d, &a, &b, &p, err)) != MB_OK)
        return st;
    if (p.b_frame < 0)
        p.b_frame = (int)floor(p.b_start / b.ft + 0.5);
    p.at = p.a_frame * a.ft;
    *out = p;
    return MB_OK;
}
