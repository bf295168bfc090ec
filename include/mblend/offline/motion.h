/* mblend/offline/motion.h: motion analysis (up axis, root, feet, contacts, gait cycles) and
 * phase-aligned blending of whole clips with root motion.
 *
 * These functions work on whole clips and allocate (they create clips or scratch
 * buffers); they are offline tools, not the per-frame path. */
#ifndef MBLEND_OFFLINE_MOTION_H
#define MBLEND_OFFLINE_MOTION_H

#include "../runtime/anim.h"
#include "../runtime/blend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What mb_motion_analyze finds out about a clip. */
typedef struct mb_motion_info {
    mb_axis up_axis;   /* MB_AXIS_X, _Y or _Z (its positive direction is up) */
    int root;          /* first joint whose translation moves over the clip (Bandai files
                          have a static dummy above Hips); 0 when nothing moves */
    int left_foot;     /* joint indices; -1 when not found */
    int right_foot;
    int first_frame;   /* 1 when frame 0 is an added T-pose (cgspeed CMU files): a pose far
                          from frame 1 compared with the motion's own frame-to-frame change */
    float height;      /* typical extent of the body along the up axis, file units */
    float ground;      /* lowest foot height seen along the up axis */
    float speed;       /* mean horizontal root speed, file units per second */
} mb_motion_info;

typedef struct mb_analyze_desc {
    mb_axis up_axis;         /* MB_AXIS_DETECT, or the axis given */
    const char *left_foot;   /* joint names; NULL: by name, else lowest End Sites */
    const char *right_foot;
} mb_analyze_desc;

/* Analyses a clip (frame_count >= 1; speed is 0 for one frame). d may be NULL. The up
 * axis is the dominant direction from the feet to the root when feet are named like
 * feet (robust even for a T-pose), else the axis of largest mean body extent. Feet that
 * cannot be found are -1 (contacts and cycles then fail with MB_MISMATCH). Fills err
 * (nullable, source = source) and returns MB_INVALID_ARG for an unknown given foot name,
 * MB_NOMEM. */
MB_API mb_status mb_motion_analyze(const mb_skeleton *s, const mb_clip *c,
                                   const mb_analyze_desc *d, const char *source,
                                   mb_motion_info *out, mb_error *err);

/* A foot is near the ground within this share of the body height (mb_motion_info.height)
 * above the lowest height it reaches: contacts, cycles and the foot-skate measure use it. */
#define MB_CONTACT_HEIGHT 0.06
/* A touchdown: a contact held for MB_TOUCHDOWN_HOLD seconds after at least
 * MB_TOUCHDOWN_AIR seconds in the air (flickers at the contact height are not steps). */
#define MB_TOUCHDOWN_HOLD 0.05
#define MB_TOUCHDOWN_AIR 0.08

/* Per-frame foot contacts: out_left/out_right (frame_count bytes each, nullable) are 1
 * where that foot is planted: near the ground (MB_CONTACT_HEIGHT) and moving slowly
 * horizontally. Fails (err
 * says why, source "contacts") with MB_INVALID_ARG for NULLs, an info that does not fit
 * the clip or fewer than 2 frames, MB_MISMATCH for unknown feet, MB_NOMEM. */
MB_API mb_status mb_motion_contacts(const mb_skeleton *s, const mb_clip *c,
                                    const mb_motion_info *info, unsigned char *out_left,
                                    unsigned char *out_right, mb_error *err);

/* A range of frames [start, end): for a gait cycle, frame end continues frame start. */
typedef struct mb_frame_range {
    int start, end;
} mb_frame_range;

/* One full gait cycle starting at a touchdown of the given foot (0 left, 1 right): of
 * the complete cycles, the one nearest the middle of the clip. A touchdown is a contact
 * held for MB_TOUCHDOWN_HOLD after at least MB_TOUCHDOWN_AIR in the air. MB_MISMATCH with a
 * message when the clip has fewer than two such touchdowns after info->first_frame (short takes hold
 * less than two cycles: try the other foot for every input, or give the ranges). */
MB_API mb_status mb_motion_find_cycle(const mb_skeleton *s, const mb_clip *c,
                                      const mb_motion_info *info, int foot, const char *source,
                                      mb_frame_range *out, mb_error *err);

/* One input of a clip blend. */
typedef struct mb_clip_input {
    const mb_skeleton *skeleton;
    const mb_clip *clip;
    const char *source;        /* name used in messages */
    mb_frame_range range;      /* frames used; end == 0 means the whole clip */
    float weight;              /* finite, >= 0 */
    const mb_motion_info *info;/* from mb_motion_analyze; NULL: analysed here */
} mb_clip_input;

typedef struct mb_clip_blend_desc {
    const mb_clip_input *inputs;
    int input_count;           /* 1..MB_BLEND_MAX_LAYERS */
    /* Non-zero: every range is one cycle (its end continues its start); the output is
     * one loopable cycle of sum w_i T_i seconds whose frame k samples every input at
     * phase k / frames. A cyclic range may end at frame_count: the clip is then a loop
     * whose period is its frame count (its last frame continues into frame 0, as glTF
     * loops without a repeated end key do), sampled with MB_WRAP_LOOP.
     * Zero: ranges are stretched onto each other, both ends included. */
    int cyclic;
    mb_blend_method method;
    mb_eigen_solver solver;
    double frame_time;         /* 0: the first input's */
    mb_axis up_axis;           /* MB_AXIS_DETECT: from the first input's analysis */
    mb_allocator allocator;    /* for the output clip */
    /* Optional per-frame report, called after each output frame is blended with the
     * layers actually blended (each input sampled at this phase, its root rotation with
     * its own heading removed), the blended pose (before the root is put back on the
     * integrated path) and per-joint diagnostics (exact eigen-gaps). A non-OK return
     * stops the blend with that status. */
    mb_status (*report)(void *user, int frame, double phase, const mb_blend_layer *layers,
                        int layer_count, const mb_pose *blended, const mb_blend_diag *diag);
    void *report_user;
    /* Prepared clips, one per input (prepare.h; nullable, and each entry may be NULL).
     * Input i's prepared clip gives its skeleton, clip, source and analysis (the input's
     * fields are ignored) and, once mb_prepared_select_cycles has run and the input's
     * range.end == 0, its range: the frames the selection chose. The weights stay in
     * inputs. This is how `mblend blend` calls it. */
    const struct mb_prepared_clip *const *prepared;
} mb_clip_blend_desc;

/* Blends whole clips in normalised time with root motion: each input's per-frame root
 * displacement and heading change, expressed in its own heading frame, are blended and
 * integrated, so the output travels at the blended speed and faces the blended way; the
 * root height is the weighted sum. The output clip is on inputs[0].skeleton (offsets
 * from the first input). Inputs must share topology: MB_MISMATCH names the first
 * differing joint. On success *out is a new clip; err (nullable) explains failures. */
MB_API mb_status mb_clip_blend(const mb_clip_blend_desc *d, mb_clip **out, mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
