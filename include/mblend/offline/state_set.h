/* mblend/offline/state_set.h: building the controller's state set (runtime/controller.h)
 * from clips: analyses every clip (or takes its mb_motion_info), selects cycles by the rule
 * of offline/prepare.h and precomputes the root paths the per-frame controller samples.
 * Allocates; run it at load time. */
#ifndef MBLEND_OFFLINE_STATE_SET_H
#define MBLEND_OFFLINE_STATE_SET_H

#include "../runtime/controller.h"
#include "motion.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One clip of a state. */
typedef struct mb_state_clip {
    const mb_clip *clip;     /* borrowed: must outlive the state set; for the set's
                                skeleton or one of the same topology and channels */
    /* Frames played. Looping states: one cycle, frame end continues frame start (and must
     * exist); end == 0: detected by the rule of mb_prepared_select_cycles over the state's
     * clips (left-foot touchdowns for all, else right-foot for all, else each whole
     * in-place loop; a loop whose last frame runs on into frame 0 then plays frames 0 to
     * frame_count, frame_count being frame 0), as `mblend blend` selects them. Played
     * once: [start, end); end == 0: the whole clip from its first motion frame. */
    mb_frame_range range;
    /* Played once only: a gait cycle inside the clip for phase sync (end == 0: none, the
     * phase is then the normalised time; end may be the frame count for a clip whose last
     * frame runs on into its first). Ignored for looping states. */
    mb_frame_range cycle;
    float param;             /* position on the blend-space axis (ignored for one clip) */
    const mb_motion_info *info; /* the clip's analysis (nullable: analysed when the set is
                                   built; the first clip's gives the up axis and root) */
} mb_state_clip;

typedef struct mb_state_desc {
    const char *name;        /* optional (up to 63 bytes), for mb_state_set_find */
    const mb_state_clip *clips;
    int clip_count;          /* 1: a clip; 2..MB_STATE_MAX_CLIPS: a 1D blend space, clips
                                in strictly increasing param order, all looping */
    int loop;                /* non-zero: play the cycle(s) in a loop; zero: play once and
                                hold the last frame (one clip only) */
    float param;             /* initial parameter of the state */
} mb_state_desc;

typedef struct mb_state_set_desc {
    const mb_skeleton *skeleton; /* borrowed: must outlive the set */
    const mb_state_desc *states;
    int state_count;             /* 1..MB_STATE_MAX_STATES */
    mb_axis up_axis;             /* MB_AXIS_DETECT: detected from the first clip */
    const char *root;            /* root joint name; NULL: the first clip's moving root */
    mb_allocator allocator;
} mb_state_set_desc;

/* Builds a state set (analyses every clip, detects cycles where asked, precomputes root
 * paths; allocates). err (nullable) says which state and clip failed: MB_INVALID_ARG for
 * a bad desc (NULL clips, ranges outside a clip, unsorted params, blend spaces that do
 * not loop), MB_MISMATCH for a clip of another joint count or a cycle that cannot be
 * detected, MB_NOMEM. */
MB_API mb_status mb_state_set_create(const mb_state_set_desc *d, mb_state_set **out,
                                     mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
