/* The clip's layout, shared by the anim, io and motion layers (the layout is described in
 * mblend/runtime/anim.h). */
#ifndef MB_CLIP_INTERNAL_H
#define MB_CLIP_INTERNAL_H

#include <stddef.h>

#include "runtime/anim/skeleton_internal.h"

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

/* Whether translation t is its rest offset off to float noise: within 1e-6 of the offset's
 * size (plus 1e-6) on every axis. Blending and resampling leave a still joint's
 * translation a few float ulps off its offset (5e-7 on a 30-unit offset); the glTF/FBX
 * loader and the BVH writer's drop_still_positions use this one test. */
static inline int mb_translation_at_rest_(const float t[3], const float off[3])
{
    float a0 = off[0] < 0 ? -off[0] : off[0], a1 = off[1] < 0 ? -off[1] : off[1];
    float a2 = off[2] < 0 ? -off[2] : off[2];
    float size = a0 > a1 ? (a0 > a2 ? a0 : a2) : (a1 > a2 ? a1 : a2);
    float tol = 1e-6f * (1.0f + size);
    for (int k = 0; k < 3; ++k) {
        float d = t[k] - off[k];
        if (!(d <= tol && d >= -tol))
            return 0;
    }
    return 1;
}

#endif
