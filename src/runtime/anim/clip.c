/* The immutable clip: frame-major rotation tracks and compact translation tracks (only the
 * tracked joints) in one allocation, with the joint -> slot map that makes a tracked
 * joint's row O(1) to find (built by src/offline/anim/clip_build.c): its read accessors and
 * destroy. */
#include <math.h>
#include <string.h>

#include "runtime/anim/clip_internal.h"
#include "base/alloc_internal.h"

void mb_clip_destroy(mb_clip *c)
{
    if (!c)
        return;
    mb_allocator a = c->allocator;
    mb_free_(&a, c);
}

int mb_clip_joint_count(const mb_clip *c) { return c ? c->joint_count : 0; }
int mb_clip_frame_count(const mb_clip *c) { return c ? c->frame_count : 0; }
double mb_clip_frame_time(const mb_clip *c) { return c ? c->frame_time : 0.0; }
double mb_clip_duration(const mb_clip *c) { return c ? c->frame_count * c->frame_time : 0.0; }
const float *mb_clip_rotations(const mb_clip *c) { return c ? c->rotations : NULL; }
int mb_clip_translation_count(const mb_clip *c) { return c ? c->translation_count : 0; }
const int *mb_clip_translation_joints(const mb_clip *c) { return c ? c->tracked : NULL; }
const float *mb_clip_translations(const mb_clip *c) { return c ? c->translations : NULL; }

int mb_clip_translation_slot(const mb_clip *c, int joint)
{
    return c && joint >= 0 && joint < c->joint_count ? c->slot[joint] : -1;
}

const float *mb_clip_joint_translation(const mb_skeleton *s, const mb_clip *c, int frame,
                                       int joint)
{
    if (!s || !c || s->joint_count != c->joint_count || joint < 0 || joint >= c->joint_count ||
        frame < 0 || frame >= c->frame_count)
        return NULL;
    return mb_clip_pos_(s, c, frame, joint);
}
