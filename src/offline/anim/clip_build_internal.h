/* Private helpers of the clip builders for the loaders (src/offline/io). */
#ifndef MB_CLIP_BUILD_INTERNAL_H
#define MB_CLIP_BUILD_INTERNAL_H

#include "mblend/offline/clip_build.h"
#include "runtime/anim/clip_internal.h"

/* Flips quaternions so consecutive frames of each joint have a non-negative dot product. */
void mb_clip_make_continuous_(float *rot, int joint_count, int frame_count);
/* Shrinks a loader's clip to its first frame_count frames (the memory stays allocated). */
void mb_clip_truncate_(mb_clip *c, int frame_count);

#endif
