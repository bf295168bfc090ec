/* mblend/offline/prepare.h: the offline preparation stage. A prepared clip holds everything
 * decided about a clip before it is blended, joined or played: its analysis (up axis,
 * moving root, feet, the cgspeed T-pose frame, height, speed), whether it loops in place,
 * the frames it contributes (a gait cycle, a whole loop, a given range or the whole
 * motion) and the warnings those decisions raised.
 *
 * One rule selects cycles for every user of the library (mblend blend, the transition
 * builder, state sets): mb_prepared_select_cycles, over the set of clips that play
 * together, so the CLI and the library cannot disagree.
 *
 * Typical use (what `mblend blend` does):
 *   mb_clip_prepare(&desc_i, &p[i], err)            for every input
 *   mb_prepared_select_cycles(p, n, MB_CYCLE_AUTO, err)
 *   mb_clip_blend(&blend_desc, &out, err)           with blend_desc.prepared = p (and
 *                                                   inputs[i].weight the weights)
 *
 * Errors follow one contract: every fallible function takes a nullable mb_error *,
 * clears it on entry, and the first error set is the one reported (with the clip's source
 * name). Preparation allocates; a prepared clip is immutable except through
 * mb_prepared_select_cycles, and may then be read from any number of threads. It borrows
 * its skeleton and clip, which must outlive it. */
#ifndef MBLEND_OFFLINE_PREPARE_H
#define MBLEND_OFFLINE_PREPARE_H

#include "motion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* In-place loop detection (mb_prepared_info.loop): the last frame repeats the first when
 * every joint's rotation is within MB_LOOP_REPEAT_ANGLE radians of it and every joint's
 * local position within MB_LOOP_REPEAT_DISTANCE x the body height; it runs on into the
 * first when, for every joint, the step from the last frame to the first is at most
 * MB_LOOP_RUN_ON_FACTOR x that joint's largest frame-to-frame step (plus
 * MB_LOOP_RUN_ON_ANGLE_SLACK radians and MB_LOOP_RUN_ON_DISTANCE_SLACK x the height). */
#define MB_LOOP_REPEAT_ANGLE (3.14159265358979 / 180.0)
#define MB_LOOP_REPEAT_DISTANCE 0.01
#define MB_LOOP_RUN_ON_FACTOR 1.5
#define MB_LOOP_RUN_ON_ANGLE_SLACK 2e-3
#define MB_LOOP_RUN_ON_DISTANCE_SLACK 1e-3

typedef enum mb_loop_kind {
    MB_LOOP_NONE = 0,    /* the clip does not loop (or has fewer than 3 frames) */
    MB_LOOP_REPEATS = 1, /* its last frame repeats its first: frames 0..nf-1 are one cycle */
    MB_LOOP_RUNS_ON = 2  /* its last frame runs on into its first (glTF loops without a
                            repeated end key): frames 0..nf, frame nf being frame 0 */
} mb_loop_kind;

/* How mb_prepared_select_cycles chose a clip's frames. */
typedef enum mb_selection {
    MB_SELECT_PENDING = 0, /* not selected yet */
    MB_SELECT_GIVEN,       /* the caller's range (mb_prepare_desc.range) */
    MB_SELECT_LEFT_FOOT,   /* one cycle between two left-foot touchdowns */
    MB_SELECT_RIGHT_FOOT,  /* one cycle between two right-foot touchdowns */
    MB_SELECT_WHOLE_LOOP,  /* an in-place loop without touchdowns: the whole clip */
    MB_SELECT_MOTION       /* MB_CYCLE_NONE: the whole motion (after a T-pose frame 0) */
} mb_selection;

typedef enum mb_cycle_mode {
    MB_CYCLE_AUTO = 0, /* one cycle per clip, frame END continuing frame START */
    MB_CYCLE_NONE = 1  /* no cycle: ranges to stretch, both ends included */
} mb_cycle_mode;

typedef struct mb_prepare_desc {
    const mb_skeleton *skeleton; /* borrowed: must outlive the prepared clip */
    const mb_clip *clip;         /* borrowed; at least 2 frames */
    const char *source;          /* names the clip in messages (copied; NULL: "<clip>") */
    mb_axis up_axis;             /* MB_AXIS_DETECT, or the axis given */
    const char *left_foot;       /* joint names; NULL: by name, else lowest End Sites */
    const char *right_foot;
    /* The caller's frames, [start, end) (end == 0: none, the selection decides). With
     * MB_CYCLE_AUTO a given range is a cycle (frame END continues START); one that ends
     * past the last frame ends on it. */
    mb_frame_range range;
    /* A cached analysis of this skeleton and clip (nullable: analysed here, with up_axis
     * and the feet above); checked against the clip. */
    const mb_motion_info *info;
} mb_prepare_desc;

/* Number of warnings a prepared clip keeps; further ones are dropped. */
#define MB_PREPARE_MAX_WARNINGS 4

/* What preparation and selection decided (read only; valid while the clip lives). */
typedef struct mb_prepared_info {
    const char *source;         /* as given ("<clip>" when none) */
    const mb_skeleton *skeleton;
    const mb_clip *clip;
    mb_motion_info motion;      /* up axis, moving root, feet, first frame, height,
                                   ground, speed (file units per second) */
    mb_loop_kind loop;
    int has_range;              /* the desc gave a range */
    /* The frames selected: with MB_CYCLE_AUTO one cycle (end continues start; end may be
     * frame_count for an MB_LOOP_RUNS_ON clip), else [start, end). {0, 0} while
     * selection is MB_SELECT_PENDING. */
    mb_frame_range range;
    mb_selection selection;
    int range_clamped;          /* a given cycle ran past the last frame and ends on it */
    int frame_count;
    double frame_time;          /* seconds */
    double range_seconds;       /* (range.end - range.start) x frame_time */
    /* Warnings of the selection, plain sentences without the source name (e.g. "frame 0
     * is a T-pose, not motion: frames 1:120 are blended"). */
    int warning_count;
    char warnings[MB_PREPARE_MAX_WARNINGS][160];
    /* Foot contacts per frame (frame_count bytes each, mb_motion_contacts): 1 where the left
     * ([0]) or right ([1]) foot is planted. NULL when the analysis found no feet. */
    const unsigned char *contacts[2];
} mb_prepared_info;

typedef struct mb_prepared_clip mb_prepared_clip;

/* Prepares a clip: analyses it (mb_motion_analyze, unless d->info is given) and detects
 * whether it loops in place. Selection is left to mb_prepared_select_cycles. *out is a new
 * prepared clip on success, NULL on failure. Failures (err filled, source = d->source):
 * MB_INVALID_ARG for a NULL desc, skeleton or clip, a clip of another joint count, fewer
 * than 2 frames, an up axis that is not an mb_axis, a given range outside the clip or a bad
 * cached analysis; MB_INVALID_ARG for an unknown foot name (from the analysis); MB_NOMEM. */
MB_API mb_status mb_clip_prepare(const mb_prepare_desc *d, mb_prepared_clip **out,
                                 mb_error *err);
MB_API void mb_prepared_clip_destroy(mb_prepared_clip *p); /* NULL is a no-op */

/* Prepares n clips that play one after the other or together on one character (the two
 * clips of a transition or a match search): clip 0 as mb_clip_prepare does, and every
 * later clip whose desc has up_axis MB_AXIS_DETECT and no cached analysis on clip 0's up
 * axis (a detected axis is then the same for all). out[0..n-1] are new prepared clips on success,
 * all NULL on failure (err says which clip failed, as mb_clip_prepare). MB_INVALID_ARG
 * for NULL descs or out, or n < 1. */
MB_API mb_status mb_clips_prepare(const mb_prepare_desc *descs, int n, mb_prepared_clip **out,
                                  mb_error *err);

/* The decisions about p (NULL for NULL). */
MB_API const mb_prepared_info *mb_prepared_clip_info(const mb_prepared_clip *p);

/* Selects the frames of a set of clips that play together (the inputs of one blend, the
 * clips of one blend space, the two clips of a synced transition), with one rule:
 * - a given range is kept (MB_CYCLE_AUTO: one ending past the last frame ends on it);
 * - MB_CYCLE_NONE: the others play their whole motion, from the first frame after a
 *   cgspeed T-pose (a warning says so);
 * - MB_CYCLE_AUTO: the others get one gait cycle from the same foot: left-foot
 *   touchdowns for all (mb_motion_find_cycle), else right-foot for all; when neither foot
 *   gives every clip a cycle and every one of them loops in place, each whole loop is its
 *   cycle (a warning says so).
 * Selecting again replaces an earlier selection. Not thread safe for the clips passed.
 * Failures: MB_INVALID_ARG for NULL clips, n < 1 or a bad mode, or a given cycle that
 * leaves no frame after clamping; MB_MISMATCH when no rule gives every clip a cycle (err
 * holds the left foot's reason for the first clip that has no cycle); MB_NOMEM. On
 * failure no clip's selection is changed. */
MB_API mb_status mb_prepared_select_cycles(mb_prepared_clip *const *clips, int n,
                                           mb_cycle_mode mode, mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
