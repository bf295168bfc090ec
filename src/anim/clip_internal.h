/* The clip's layout, shared by the anim, io and motion layers (the layout is described in
 * mblend/anim.h). */
#ifndef MB_CLIP_INTERNAL_H
#define MB_CLIP_INTERNAL_H

#include <stddef.h>

#include "anim/skeleton_internal.h"

struct mb_clip {
    mb_allocator allocator;
    int joint_count;
    int frame_count;
    double frame_time;
    int translation_count;   /* T, tracked joints */
    const int *slot;         /* [joint]: slot in a translation row, or -1 */
    const int *tracked;      /* [T]: joint of each slot, ascending; NULL when T == 0 */
    float *rotations;        /* [frame][joint][4] */
    float *translations;     /* [frame][T][3]; NULL when T == 0 */
};

/* The one place that decides a joint's translation in a frame (the rule documented at
 * mb_clip_desc): the track where the clip tracks the joint and the skeleton has position
 * channels for it, else the offset. Sampling, frame poses, the writer and the analysis
 * all go through it, so they cannot disagree. No checks: callers have validated s, c
 * (same joint count), frame and joint. */
static inline const float *mb_clip_pos_(const mb_skeleton *s, const mb_clip *c, int frame,
                                        int joint)
{
    int k = c->slot[joint];
    if (k >= 0 && s->info[joint].has_translation)
        return c->translations + 3 * ((size_t)frame * (size_t)c->translation_count + (size_t)k);
    return &s->offsets[3 * joint];
}

/* Flips quaternions so consecutive frames of each joint have a non-negative dot product. */
void mb_clip_make_continuous_(float *rot, int joint_count, int frame_count);
/* Shrinks a loader's clip to its first frame_count frames (the memory stays allocated). */
void mb_clip_truncate_(mb_clip *c, int frame_count);
#endif
