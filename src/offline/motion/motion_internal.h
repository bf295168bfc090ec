/* Private helpers of the motion layer. */
#ifndef MB_MOTION_INTERNAL_H
#define MB_MOTION_INTERNAL_H

#include "mblend/offline/motion.h"
#include "mblend/offline/prepare.h"

/* World positions of every joint at every frame: out[frame][joint][3]. */
mb_status mb_motion_positions_(const mb_skeleton *s, const mb_clip *c, float *out);

/* MB_OK when an analysis the caller gives (a cached mb_motion_info) fits the skeleton and
 * clip: axis, root, feet and first frame in range, finite sizes; else MB_INVALID_ARG with
 * err (nullable) saying so under source. Every function that takes one checks it, since
 * its indices address arrays. */
mb_status mb_motion_info_check_(const mb_motion_info *i, const mb_skeleton *s, const mb_clip *c,
                                const char *source, mb_error *err);

/* The hip joints that give the facing (mb_rm_facing): of each leg, the first joint on the
 * chain from root down to the foot that sits away from the root (CMU files put a
 * zero-length LHipJoint first); both -1 when a foot is unknown, not under root, or the two
 * are one joint (the root's twist is the heading then). */
void mb_motion_hips_(const mb_skeleton *s, int root, const mb_motion_info *info, int hip[2]);

/* A frame count or index computed from a caller's time, as an int saturated to +-2^29
 * (NaN: the low end): times far outside any clip (1e10 s, a unit mistake) then compare as
 * outside instead of overflowing the conversion, which C leaves undefined; sums of three
 * such values still fit an int. */
static inline int mb_frame_int_(double x)
{
    if (!(x > -536870912.0))
        return -536870912;
    if (x > 536870912.0)
        return 536870912;
    return (int)x;
}

/* A prepared clip standing for one side of an offline desc: when p is not NULL, its skeleton,
 * clip, analysis and source name replace *skeleton, *clip, *info and *source (each pointer
 * nullable: a desc without that field). */
void mb_prepared_fill_(const mb_prepared_clip *p, const mb_skeleton **skeleton,
                       const mb_clip **clip, const mb_motion_info **info, const char **source);

/* mb_motion_find_cycle's search on contacts already computed (contact: frame_count bytes
 * of the given foot, as mb_motion_contacts gives them; s, c and info checked by the caller).
 * Errors name src. */
mb_status mb_cycle_from_contacts_(const mb_skeleton *s, const mb_clip *c,
                                  const mb_motion_info *info, int foot,
                                  const unsigned char *contact, const char *src,
                                  mb_frame_range *out, mb_error *err);

#endif
