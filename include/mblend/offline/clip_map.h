/* mblend/offline/clip_map.h: mapping a clip onto another skeleton by joint name. */
#ifndef MBLEND_OFFLINE_CLIP_MAP_H
#define MBLEND_OFFLINE_CLIP_MAP_H

#include "../runtime/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mb_clip_map_desc {
    const mb_skeleton *from;
    const mb_clip *clip;             /* on from */
    const mb_skeleton *to;
    const mb_xform *to_bind;         /* to's local bind pose; NULL: to's rest pose */
    /* Zero: matched joints keep their offset (the target's proportions: its nodes' rest
     * translations), except the top matched joints (root motion) and joints whose
     * translation the clip animates (a track), which take the clip's translation.
     * Non-zero: every matched joint takes the clip's translation. Unmatched joints keep
     * their bind pose. */
    int all_translations;
    mb_allocator allocator;          /* for the new clip */
} mb_clip_map_desc;

/* A new clip on `to` (same frames and frame time): each joint of `to` whose name exists in
 * `from` takes that joint's local rotation track as is (the two rigs must share rest
 * orientations for the result to look right, as clips of one character do); an unmatched
 * joint keeps its bind pose. The new clip tracks the translations of the joints of `to`
 * that have position channels and whose translation can differ from their offset.
 * out_from (nullable, joint count of `to` entries) receives the source joint of each
 * target joint or -1; *out_unmatched (nullable) the number of unmatched joints (End
 * Sites excluded). Fails (err says why, source "clip map") with MB_INVALID_ARG for NULLs
 * or a clip not on `from`, MB_MISMATCH when no joint matches, MB_NOMEM. */
MB_API mb_status mb_clip_map(const mb_clip_map_desc *d, mb_clip **out, int *out_from,
                             int *out_unmatched, mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
