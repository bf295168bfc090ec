/* mblend/offline/transition_build.h: transitions built into clips, offline.
 *
 * - The builder (mb_transition_build): one continuous clip that plays A up to the
 *   transition, the transition (run as runtime/transition.h's mb_transition_desc says),
 *   then the rest of B, with B rotated about the up axis and translated so its root
 *   continues A's position and heading.
 * - Choosing the transition points (mb_transition_plan_find): given, or found by pose
 *   matching (offline/match.h).
 * - Measurements (mb_transition_measure): root steps, joint angular speeds and foot skate
 *   of a built transition against its inputs.
 *
 * Everything here works on whole clips and allocates. Times are seconds, angles radians,
 * lengths file units. */
#ifndef MBLEND_OFFLINE_TRANSITION_BUILD_H
#define MBLEND_OFFLINE_TRANSITION_BUILD_H

#include "../runtime/transition.h"
#include "motion.h"
#include "prepare.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One output frame, for mb_transition_build_desc.report. */
typedef struct mb_transition_frame {
    int frame;               /* output frame index */
    float weight_b;          /* weight of B in the blend (inertialization: 0 before, 1 after) */
    double time_a, time_b;   /* seconds into A and B (file time, frame 0 = 0 s); B: -1 before */
    float offset_angle;      /* largest remaining inertialization offset (radians), else 0 */
} mb_transition_frame;

typedef struct mb_transition_build_desc {
    const mb_skeleton *skeleton; /* the output skeleton; clips a and b must be for it or for
                                    skeletons of the same topology and channels */
    const mb_clip *a, *b;
    const char *source_a, *source_b;        /* names in messages (nullable) */
    const mb_motion_info *info_a, *info_b;  /* from mb_motion_analyze; NULL: analysed here */
    double at;               /* seconds into A (file time) of the last pure-A frame; it is
                                rounded to A's nearest frame and must lie after A's first
                                motion frame (info.first_frame skips the cgspeed T-pose) and
                                before its last */
    double b_start;          /* seconds into B (file time) where B starts */
    mb_transition_desc transition;
    /* Gait cycles for sync, in each clip's frames; end == 0: detected (left-foot
     * touchdowns, else right) when transition.sync is set. */
    mb_frame_range cycle_a, cycle_b;
    mb_axis up_axis;         /* MB_AXIS_DETECT: from A's analysis */
    mb_allocator allocator;  /* for the output clip */
    /* Optional, called once per output frame in order. A non-OK return stops the build
     * with that status. */
    mb_status (*report)(void *user, const mb_transition_frame *f);
    void *report_user;
    /* Prepared A and B (mblend/offline/prepare.h; nullable): when given, the prepared clip's
     * clip, analysis and source name stand for that side's fields above. */
    const mb_prepared_clip *prepared_a, *prepared_b;
} mb_transition_build_desc;

typedef struct mb_transition_result {
    int frames;              /* output frames */
    int transition_start;    /* output frame of the last pure-A frame */
    int transition_end;      /* first output frame after the transition */
    double b_start;          /* seconds into B where B started (sync may move it) */
    double frame_time;       /* the output's: A's frame time (B is sampled at that rate) */
} mb_transition_result;

/* Builds A up to `at`, the transition, then the rest of B as one clip on d->skeleton, at
 * A's frame time (B is resampled: clips of different rates can be joined). The output
 * starts at A's first motion frame; before the transition it reproduces A exactly. B is
 * rotated about the up axis and translated so its root continues A's position and heading
 * (the heading is the way the hips face, averaged over a gait cycle so the sway of the
 * hips does not tilt the path; see runtime/controller.h). On success *out is a new clip and res (nullable) is
 * filled. MB_INVALID_ARG for missing clips or times outside the clips, MB_MISMATCH for
 * clips of another topology or, with sync, clips without a detectable gait cycle (err
 * says which), MB_NOMEM. */
MB_API mb_status mb_transition_build(const mb_transition_build_desc *d, mb_clip **out,
                                     mb_transition_result *res, mb_error *err);

/* ---------- choosing the transition points ---------- */

/* Where a transition from A to B starts in each clip: given in seconds, or found by pose
 * matching (mb_match_find). The rule `mblend transition` and the Python package share. */
typedef struct mb_transition_plan_desc {
    const mb_skeleton *skeleton_a, *skeleton_b;
    const mb_clip *a, *b;
    const mb_motion_info *info_a, *info_b;  /* required (mb_clips_prepare gives both, B on
                                               A's up axis) */
    const char *source_a, *source_b;        /* names in messages (nullable) */
    int at_auto;             /* non-zero: find A's frame; else `at` (seconds, file time) */
    double at;
    int b_auto;              /* non-zero: find B's frame; else `b_start` (seconds) */
    double b_start;
    double duration;         /* of the transition, seconds, >= 0 */
    /* Non-zero when the transition will run in phase: A may then play up to 1.5x faster
     * during it, so the default search keeps 1.5x the duration free at A's end. */
    int sync;
    /* Seconds of A searched with at_auto; both 0: from a third into A's motion (so the
     * output shows A) to the last time that leaves room for the transition. */
    double search_from, search_to;
    /* Seconds of motion compared from each frame; 0: the duration (at least 0.1 s), or,
     * when A's point is given, at most what A has left after it. */
    double window;
    /* Prepared A and B (mblend/offline/prepare.h; nullable): when given, the prepared clip's
     * clip, analysis and source name stand for that side's fields above. */
    const mb_prepared_clip *prepared_a, *prepared_b;
} mb_transition_plan_desc;

typedef struct mb_transition_plan {
    int a_frame, b_frame;    /* A's last pure frame, B's first (frames of each clip) */
    double at, b_start;      /* the same in seconds (file time) */
    double cost;             /* the match cost (file units), -1 when both points were given */
} mb_transition_plan;

/* Checks the given points against the clips (each must lie in its clip's motion, after a
 * cgspeed T-pose frame; A must go on for the duration after `at`; B's motion must last the
 * duration) and finds the automatic ones. MB_INVALID_ARG with a message for a point outside
 * its clip or clips too short, MB_MISMATCH when no transition point is found, mb_match_find's
 * failures otherwise; err (nullable) is cleared first. out is written only on success. */
MB_API mb_status mb_transition_plan_find(const mb_transition_plan_desc *d,
                                         mb_transition_plan *out, mb_error *err);

/* ---------- measurements ---------- */

typedef struct mb_transition_measure_desc {
    const mb_skeleton *skeleton;
    const mb_clip *a, *b, *out;                /* the inputs and the built clip */
    const mb_motion_info *info_a, *info_b;     /* NULL: analysed here */
    const mb_transition_result *result;        /* from mb_transition_build */
    double at;                                 /* seconds into A of the transition start */
    double duration;                           /* of the transition, seconds */
    /* Seconds around each transition point in the inputs that count as "the inputs
     * around the transition": A over [at - around, at + duration + around], B over
     * [b_start - around, b_start + duration + around]. 0: 0.5 s. */
    double around;
    /* Prepared A and B (mblend/offline/prepare.h; nullable): when given, the prepared clip's
     * clip, analysis and source name stand for that side's fields above. */
    const mb_prepared_clip *prepared_a, *prepared_b;
} mb_transition_measure_desc;

typedef struct mb_transition_quality {
    /* Root path: the largest step of the root between consecutive output frames, and the
     * largest step inside the inputs (B's scaled to the output frame time). */
    double root_step_out, root_step_in, root_step_ratio;
    /* Angular speed (rad/s) of each joint's local rotation: the largest ratio over joints
     * of its largest speed during the transition to its largest speed in the inputs
     * around the transition points, with that joint and its two speeds. Joints whose
     * input speed is below 0.05 rad/s use 0.05 rad/s (a static joint has no speed to
     * compare with). */
    double angular_ratio, angular_out, angular_in;
    int angular_joint;
    /* Foot skate: mean horizontal speed (units/s) of a foot while it is in contact
     * (height within 6% of the body height above the lowest foot height of the clip),
     * during the transition and in the inputs around the transition points. */
    double skate_out, skate_in, skate_ratio;
    int skate_frames_out, skate_frames_in;
} mb_transition_quality;

/* Measures a built transition (metrics computed from forward kinematics of the three
 * clips). Fails (err says why, source "transition quality" or the clip's analysis) with
 * MB_INVALID_ARG for missing inputs or an `at` (or result->b_start) outside its clip,
 * MB_MISMATCH when the feet are unknown, MB_NOMEM; out is written only on success. */
MB_API mb_status mb_transition_measure(const mb_transition_measure_desc *d,
                                       mb_transition_quality *out, mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
