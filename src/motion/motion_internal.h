/* Private helpers of the motion layer. */
#ifndef MB_MOTION_INTERNAL_H
#define MB_MOTION_INTERNAL_H

#include "mblend/motion.h"

/* World positions of every joint at every frame: out[frame][joint][3]. */
mb_status mb_motion_positions_(const mb_skeleton *s, const mb_clip *c, float *out);

#endif
