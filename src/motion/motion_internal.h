/* Private helpers of the motion layer. */
#ifndef MB_MOTION_INTERNAL_H
#define MB_MOTION_INTERNAL_H

#include "mblend/motion.h"

/* World positions of every joint at every frame: out[frame][joint][3]. */
mb_status mb_motion_positions_(const mb_skeleton *s, const mb_clip *c, float *out);

/* 1 when an analysis the caller gives (a cached mb_motion_info) fits the skeleton and clip:
 * axis, root, feet and first frame in range, finite sizes. Every function that takes one
 * checks it, since its indices address arrays. */
int mb_motion_info_fits_(const mb_motion_info *i, const mb_skeleton *s, const mb_clip *c);

#endif
