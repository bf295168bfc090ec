/* The offline preparation stage: a clip's analysis, its loop kind, and the one rule that
 * selects the frames of every clip of a set (mblend blend, transitions, state sets). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/axis_internal.h"
#include "base/error_internal.h"
#include "mblend/offline/prepare.h"
#include "offline/motion/motion_internal.h"

struct mb_prepared_clip {
    mb_prepared_info info;
    mb_frame_range given; /* the desc's range ({0, 0}: none) */
    char source[256];
    unsigned char *contacts; /* [2][frame_count], or NULL: info.contacts point into it */
};

/* The clip's foot contacts into p (none when the analysis found no feet). */
static mb_status prepare_contacts(mb_prepared_clip *p, mb_error *err)
{
    mb_prepared_info *i = &p->info;
    if (i->motion.left_foot < 0 || i->motion.right_foot < 0)
        return MB_OK;
    size_t nf = (size_t)i->frame_count;
    p->contacts = malloc(2 * nf);
    if (!p->contacts)
        return mb_error_set_(err, MB_NOMEM, p->source, "out of memory");
    mb_status st = mb_motion_contacts(i->skeleton, i->clip, &i->motion, p->contacts,
                                      p->contacts + nf, err);
    if (st == MB_OK) {
        i->contacts[0] = p->contacts;
        i->contacts[1] = p->contacts + nf;
    }
    return st;
}

/* ---------- loop detection ---------- */

/* Largest per-joint step (angle, distance) between consecutive frames a and b (local
 * poses), folded into step; or, when last, whether the step from the last frame (a) to
 * frame 0 (b) keeps the clip repeating or running on. */
static void loop_compare(const mb_xform *a, const mb_xform *b, int nj, int last, double h,
                         double *step, int *repeats, int *runs_on)
{
    for (int j = 0; j < nj; ++j) {
        double dot = 0, d2 = 0;
        for (int k = 0; k < 4; ++k)
            dot += (double)a[j].rot[k] * b[j].rot[k];
        for (int k = 0; k < 3; ++k)
            d2 += ((double)a[j].pos[k] - b[j].pos[k]) * ((double)a[j].pos[k] - b[j].pos[k]);
        double ang = 2.0 * acos(fmin(1.0, fabs(dot))), dist = sqrt(d2);
        if (!last) {
            step[2 * j] = fmax(step[2 * j], ang);
            step[2 * j + 1] = fmax(step[2 * j + 1], dist);
            continue;
        }
        *repeats &= ang <= MB_LOOP_REPEAT_ANGLE && dist <= MB_LOOP_REPEAT_DISTANCE * h;
        *runs_on &= ang <= MB_LOOP_RUN_ON_FACTOR * step[2 * j] + MB_LOOP_RUN_ON_ANGLE_SLACK &&
                    dist <= MB_LOOP_RUN_ON_FACTOR * step[2 * j + 1] + MB_LOOP_RUN_ON_DISTANCE_SLACK * h;
    }
}

/* How a clip loops in place (see MB_LOOP_* in prepare.h); MB_NOMEM when scratch fails. */
static mb_status detect_loop(const mb_skeleton *s, const mb_clip *c, const mb_motion_info *info,
                             mb_loop_kind *out)
{
    *out = MB_LOOP_NONE;
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    if (nf < 3)
        return MB_OK;
    mb_xform *p = malloc(2 * (size_t)nj * sizeof *p);
    double *step = calloc(2 * (size_t)nj, sizeof *step); /* largest step: angle, distance */
    if (!p || !step) {
        free(p);
        free(step);
        return MB_NOMEM;
    }
    double h = info->height > 0 ? info->height : 1.0;
    int ok = mb_clip_frame_pose(s, c, 0, (mb_pose){p, nj}) == MB_OK;
    int repeats = 1, runs_on = 1;
    /* frames f - 1 (in p + nj) and f (in p), for f = 1 .. nf, frame nf being frame 0 again */
    for (int f = 1; ok && f <= nf; ++f) {
        memcpy(p + nj, p, (size_t)nj * sizeof *p);
        ok = mb_clip_frame_pose(s, c, f % nf, (mb_pose){p, nj}) == MB_OK;
        if (ok)
            loop_compare(p + nj, p, nj, f == nf, h, step, &repeats, &runs_on);
    }
    free(p);
    free(step);
    *out = !ok ? MB_LOOP_NONE : repeats ? MB_LOOP_REPEATS : runs_on ? MB_LOOP_RUNS_ON : MB_LOOP_NONE;
    return MB_OK;
}

/* ---------- preparation ---------- */

static mb_status check_desc(const mb_prepare_desc *d, const char *src, mb_error *err)
{
    if (!d || !d->skeleton || !d->clip)
        return mb_error_set_(err, MB_INVALID_ARG, src, "preparing a clip needs a skeleton and a clip");
    int nj = mb_skeleton_joint_count(d->skeleton), nf = mb_clip_frame_count(d->clip);
    if (mb_clip_joint_count(d->clip) != nj)
        return mb_error_set_(err, MB_INVALID_ARG, src, "clip has %d joints, the skeleton %d",
                             mb_clip_joint_count(d->clip), nj);
    if (nf < 2)
        return mb_error_set_(err, MB_INVALID_ARG, src, "%d frame%s: a clip to prepare needs 2 or more",
                             nf, nf == 1 ? "" : "s");
    if (!mb_axis_valid_(d->up_axis))
        return mb_error_set_(err, MB_INVALID_ARG, src, "up axis %d outside 0..3", (int)d->up_axis);
    const mb_frame_range r = d->range;
    if (r.end != 0 && (r.start < 0 || r.end <= r.start || r.end > nf))
        return mb_error_set_(err, MB_INVALID_ARG, src, "range %d:%d does not fit %d frames", r.start,
                             r.end, nf);
    return MB_OK;
}

mb_status mb_clip_prepare(const mb_prepare_desc *d, mb_prepared_clip **out, mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    const char *src = d && d->source ? d->source : "<clip>";
    if (!out)
        return mb_error_set_(err, MB_INVALID_ARG, src, "no place for the prepared clip");
    mb_status rc = check_desc(d, src, err);
    if (rc != MB_OK)
        return rc;
    mb_prepared_clip *p = calloc(1, sizeof *p);
    if (!p)
        return mb_error_set_(err, MB_NOMEM, src, "out of memory");
    snprintf(p->source, sizeof p->source, "%s", src);
    mb_prepared_info *i = &p->info;
    i->source = p->source;
    i->skeleton = d->skeleton;
    i->clip = d->clip;
    i->frame_count = mb_clip_frame_count(d->clip);
    i->frame_time = mb_clip_frame_time(d->clip);
    i->has_range = d->range.end != 0;
    p->given = d->range;
    if (d->info) {
        rc = mb_motion_info_check_(d->info, d->skeleton, d->clip, src, err);
        i->motion = *d->info;
    } else {
        mb_analyze_desc ad = {d->up_axis, d->left_foot, d->right_foot};
        rc = mb_motion_analyze(d->skeleton, d->clip, &ad, src, &i->motion, err);
    }
    if (rc == MB_OK && (rc = detect_loop(d->skeleton, d->clip, &i->motion, &i->loop)) != MB_OK)
        mb_error_set_(err, rc, src, "out of memory");
    if (rc == MB_OK)
        rc = prepare_contacts(p, err);
    if (rc != MB_OK) {
        mb_prepared_clip_destroy(p);
        return rc;
    }
    *out = p;
    return MB_OK;
}

void mb_prepared_clip_destroy(mb_prepared_clip *p)
{
    if (p)
        free(p->contacts);
    free(p);
}

mb_status mb_clips_prepare(const mb_prepare_desc *descs, int n, mb_prepared_clip **out,
                           mb_error *err)
{
    mb_error_clear_(err);
    if (!descs || !out || n < 1)
        return mb_error_set_(err, MB_INVALID_ARG, "<clips>", "preparing clips needs 1 or more descs");
    for (int k = 0; k < n; ++k)
        out[k] = NULL;
    mb_status rc = MB_OK;
    for (int k = 0; k < n && rc == MB_OK; ++k) {
        mb_prepare_desc d = descs[k];
        if (k > 0 && d.up_axis == MB_AXIS_DETECT && !d.info)
            d.up_axis = out[0]->info.motion.up_axis;
        rc = mb_clip_prepare(&d, &out[k], err);
    }
    if (rc != MB_OK)
        for (int k = 0; k < n; ++k) {
            mb_prepared_clip_destroy(out[k]);
            out[k] = NULL;
        }
    return rc;
}

const mb_prepared_info *mb_prepared_clip_info(const mb_prepared_clip *p)
{
    return p ? &p->info : NULL;
}

/* ---------- selection ---------- */

/* A selection being made: nothing is written to the clips until it is complete. */
typedef struct pick {
    mb_frame_range range;
    mb_selection how;
    int clamped;
} pick;

static void add_warning(mb_prepared_info *i, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_warning(mb_prepared_info *i, const char *fmt, ...)
{
    if (i->warning_count >= MB_PREPARE_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(i->warnings[i->warning_count++], sizeof i->warnings[0], fmt, ap);
    va_end(ap);
}

/* Touchdown cycles from one foot for every clip without a given range; MB_MISMATCH (err
 * nullable: the first clip's reason) when one has none. */
static mb_status touchdown_cycles(mb_prepared_clip *const *clips, int n, int foot, pick *picks,
                                  mb_error *err)
{
    for (int k = 0; k < n; ++k) {
        const mb_prepared_info *i = &clips[k]->info;
        if (i->has_range)
            continue;
        /* the contacts preparation found (feet unknown: find_cycle says so) */
        mb_status st = i->contacts[foot]
                           ? mb_cycle_from_contacts_(i->skeleton, i->clip, &i->motion, foot,
                                                     i->contacts[foot], i->source,
                                                     &picks[k].range, err)
                           : mb_motion_find_cycle(i->skeleton, i->clip, &i->motion, foot,
                                                  i->source, &picks[k].range, err);
        if (st != MB_OK)
            return st;
        picks[k].how = foot == 0 ? MB_SELECT_LEFT_FOOT : MB_SELECT_RIGHT_FOOT;
    }
    return MB_OK;
}

/* MB_CYCLE_AUTO for the clips without a given range: left foot for all, else right foot
 * for all, else whole loops when every one loops in place. */
static mb_status auto_cycles(mb_prepared_clip *const *clips, int n, pick *picks, mb_error *err)
{
    mb_status st = touchdown_cycles(clips, n, 0, picks, err);
    if (st == MB_MISMATCH)
        st = touchdown_cycles(clips, n, 1, picks, NULL);
    if (st != MB_MISMATCH)
        return st;
    for (int k = 0; k < n; ++k)
        if (!clips[k]->info.has_range && clips[k]->info.loop == MB_LOOP_NONE)
            return MB_MISMATCH; /* err holds the left foot's reason */
    for (int k = 0; k < n; ++k) {
        const mb_prepared_info *i = &clips[k]->info;
        if (i->has_range)
            continue;
        /* a repeated last frame closes the cycle; else frame nf is frame 0 */
        int nf = i->frame_count;
        picks[k].range = (mb_frame_range){0, i->loop == MB_LOOP_REPEATS ? nf - 1 : nf};
        picks[k].how = MB_SELECT_WHOLE_LOOP;
    }
    mb_error_clear_(err);
    return MB_OK;
}

/* A given cycle samples frame END (it continues START), so one that ends past the last
 * frame (A:frames, as a half-open range may) ends on it. */
static mb_status given_cycle(const mb_prepared_clip *p, pick *pk, mb_error *err)
{
    int nf = p->info.frame_count;
    pk->range = p->given;
    pk->how = MB_SELECT_GIVEN;
    if (pk->range.end < nf)
        return MB_OK;
    if (nf - 1 <= pk->range.start)
        return mb_error_set_(err, MB_INVALID_ARG, p->source,
                             "has %d frames: range %d:%d leaves no cycle (a cycle A:B plays frames "
                             "A to B, B being A's next phase, so B <= %d)",
                             nf, pk->range.start, pk->range.end, nf - 1);
    pk->range.end = nf - 1;
    pk->clamped = 1;
    return MB_OK;
}

/* MB_CYCLE_NONE: given ranges as they are, the others their whole motion. */
static void motion_ranges(mb_prepared_clip *const *clips, int n, pick *picks)
{
    for (int k = 0; k < n; ++k) {
        const mb_prepared_clip *p = clips[k];
        if (p->info.has_range)
            picks[k] = (pick){p->given, MB_SELECT_GIVEN, 0};
        else
            picks[k] = (pick){{p->info.motion.first_frame, p->info.frame_count}, MB_SELECT_MOTION, 0};
    }
}

static void apply_pick(mb_prepared_clip *p, const pick *pk)
{
    mb_prepared_info *i = &p->info;
    i->range = pk->range;
    i->selection = pk->how;
    i->range_clamped = pk->clamped;
    i->range_seconds = (pk->range.end - pk->range.start) * i->frame_time;
    i->warning_count = 0;
    if (pk->how == MB_SELECT_MOTION && i->motion.first_frame > 0)
        add_warning(i, "frame 0 is a T-pose, not motion: frames %d:%d are blended", pk->range.start,
                    pk->range.end);
    if (pk->how == MB_SELECT_WHOLE_LOOP)
        add_warning(i, "no foot touchdowns, but the clip loops (its last frame %s its first): the "
                       "whole clip is the cycle",
                    i->loop == MB_LOOP_REPEATS ? "repeats" : "runs on into");
}

mb_status mb_prepared_select_cycles(mb_prepared_clip *const *clips, int n, mb_cycle_mode mode,
                                    mb_error *err)
{
    mb_error_clear_(err);
    if (!clips || n < 1 || (mode != MB_CYCLE_AUTO && mode != MB_CYCLE_NONE))
        return mb_error_set_(err, MB_INVALID_ARG, "<clips>",
                             "selecting cycles needs 1 or more clips and a cycle mode");
    for (int k = 0; k < n; ++k)
        if (!clips[k])
            return mb_error_set_(err, MB_INVALID_ARG, "<clips>", "clip %d is NULL", k);
    pick *picks = calloc((size_t)n, sizeof *picks);
    if (!picks)
        return mb_error_set_(err, MB_NOMEM, "<clips>", "out of memory");
    mb_status st = MB_OK;
    if (mode == MB_CYCLE_NONE) {
        motion_ranges(clips, n, picks);
    } else {
        st = auto_cycles(clips, n, picks, err);
        for (int k = 0; k < n && st == MB_OK; ++k)
            if (clips[k]->info.has_range)
                st = given_cycle(clips[k], &picks[k], err);
    }
    if (st == MB_NOMEM) /* a reason set below is kept: the first error wins */
        mb_error_set_(err, st, "<clips>", "out of memory");
    for (int k = 0; k < n && st == MB_OK; ++k)
        apply_pick(clips[k], &picks[k]);
    free(picks);
    return st;
}

void mb_prepared_fill_(const mb_prepared_clip *p, const mb_skeleton **skeleton,
                       const mb_clip **clip, const mb_motion_info **info, const char **source)
{
    const mb_prepared_info *pi = mb_prepared_clip_info(p);
    if (!pi)
        return;
    if (skeleton)
        *skeleton = pi->skeleton;
    if (clip)
        *clip = pi->clip;
    if (info)
        *info = &pi->motion;
    if (source)
        *source = pi->source;
}
