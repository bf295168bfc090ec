/* mblend/runtime/anim.h: skeleton, clip, per-frame poses, forward kinematics.
 *
 * A skeleton is a list of nodes stored parents-first (parent[i] < i, root -1). BVH End
 * Sites are nodes too (flagged, no channels, named "<parent>_End") because FK and export
 * need their offsets. Both skeleton and clip are built by offline/clip_build.h (or a reader),
 * are immutable after creation and live in one
 * allocation each. */
#ifndef MBLEND_RUNTIME_ANIM_H
#define MBLEND_RUNTIME_ANIM_H

#include <stdint.h>
#include "../base.h"
#include "../math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Documented limits; loaders check them before allocating. */
#define MB_MAX_JOINTS 4096           /* nodes, End Sites included */
#define MB_MAX_NAME 127              /* bytes in a joint name, excluding NUL */
#define MB_MAX_FRAMES 50000000       /* frames in one clip */
#define MB_MAX_TRACK_BYTES (4096ull * 1024ull * 1024ull) /* rotation + translation tracks */

/* A BVH channel. Values are fixed (the writer prints them by name). */
typedef enum mb_channel {
    MB_CH_XPOS,
    MB_CH_YPOS,
    MB_CH_ZPOS,
    MB_CH_XROT,
    MB_CH_YROT,
    MB_CH_ZROT
} mb_channel;

/* "Xposition", ..., "Zrotation". */
MB_API const char *mb_channel_name(mb_channel c);

typedef struct mb_skeleton mb_skeleton;
typedef struct mb_clip mb_clip;

MB_API void mb_skeleton_destroy(mb_skeleton *s); /* NULL is a no-op */

MB_API int mb_skeleton_joint_count(const mb_skeleton *s);      /* nodes, End Sites included */
MB_API int mb_skeleton_channel_count(const mb_skeleton *s);    /* sum over joints */
MB_API const int *mb_skeleton_parents(const mb_skeleton *s);   /* joint_count entries */
MB_API const char *mb_skeleton_name(const mb_skeleton *s, int joint);
MB_API const float *mb_skeleton_offset(const mb_skeleton *s, int joint); /* float[3] */
MB_API int mb_skeleton_is_end_site(const mb_skeleton *s, int joint);
/* Non-zero for node 0 when it only groups the ROOTs of a multi-ROOT BVH (mb_joint_desc). */
MB_API int mb_skeleton_is_roots_group(const mb_skeleton *s, int joint);
/* Channel list of a joint as written; returns the count (0..6) and sets *out. */
MB_API int mb_skeleton_channels(const mb_skeleton *s, int joint, const mb_channel **out);
/* Euler order of a joint's rotation channels: the listed rotation axes, completed with
 * the missing ones in XYZ order when fewer than three are listed. */
MB_API mb_euler_order mb_skeleton_rot_order(const mb_skeleton *s, int joint);
/* Non-zero when the joint has at least one position channel. */
MB_API int mb_skeleton_has_translation(const mb_skeleton *s, int joint);
/* The joints with at least one position channel, ascending: the translation joints a clip
 * of this skeleton tracks (pass them to mb_clip_alloc or mb_clip_desc). Sets *out_count
 * (nullable) to their number; returns NULL when there are none (or s is NULL). The array
 * lives as long as the skeleton. */
MB_API const int *mb_skeleton_translation_joints(const mb_skeleton *s, int *out_count);
/* Index of the joint (End Sites included) with that exact name, or -1. */
MB_API int mb_skeleton_find(const mb_skeleton *s, const char *name);
/* Whether two skeletons have the same names and parents (offsets, channels and the roots
 * group flag may differ: a glTF written from a multi-ROOT BVH reads back with the group as
 * an ordinary node).
 * On a difference, returns 0 and, when first_diff is not NULL, the first differing joint
 * index (or the smaller joint count). */
MB_API int mb_skeleton_same_topology(const mb_skeleton *a, const mb_skeleton *b, int *first_diff);

/* A clip: frame_count frames of frame_time seconds, for a skeleton's joint count.
 *
 * Rotations: frame-major, [frame][joint][4] unit quaternions for every joint (End Sites:
 * identity); consecutive frames of a joint have a non-negative dot product
 * (sign-continuous).
 *
 * Translations are compact: a clip tracks translation_count (T, 0..joint_count) joints,
 * listed in ascending order (mb_clip_translation_joints), and stores [frame][T][3] local
 * translations, the values of tracked joint k (the k-th in that list, its "slot") at
 * translations[(frame * T + k) * 3]. Only joints whose translation moves need a track (a
 * BVH clip tracks exactly the joints with position channels, mb_skeleton_translation_joints);
 * an untracked joint's translation is its skeleton offset. T == 0: no translation array.
 *
 * Which translation a joint has in a frame (mb_clip_joint_translation, mb_clip_sample,
 * mb_clip_frame_pose, the BVH writer): the tracked value when the clip tracks the joint
 * and the skeleton gives it position channels (they replace the offset); the skeleton
 * offset otherwise. A tracked joint without position channels thus keeps its offset: a
 * BVH file could not hold its track, and playback agrees with export. */

MB_API void mb_clip_destroy(mb_clip *c); /* NULL is a no-op */

MB_API int mb_clip_joint_count(const mb_clip *c);
MB_API int mb_clip_frame_count(const mb_clip *c);
MB_API double mb_clip_frame_time(const mb_clip *c);
/* frame_count * frame_time, seconds (0 for an empty clip). */
MB_API double mb_clip_duration(const mb_clip *c);
MB_API const float *mb_clip_rotations(const mb_clip *c);    /* [frame][joint][4] */
/* Number of tracked joints T (0..joint_count). */
MB_API int mb_clip_translation_count(const mb_clip *c);
/* The T tracked joint indices, ascending; NULL when T == 0. */
MB_API const int *mb_clip_translation_joints(const mb_clip *c);
/* The slot of a joint in the translation rows (0..T-1), or -1 when the joint is not
 * tracked or out of range. O(1): the clip keeps a joint -> slot map. */
MB_API int mb_clip_translation_slot(const mb_clip *c, int joint);
/* [frame][T][3], or NULL when T == 0. */
MB_API const float *mb_clip_translations(const mb_clip *c);
/* The local translation of a joint in a frame (float[3]) by the rule above: the tracked
 * value when the clip tracks the joint and the skeleton gives it position channels, else
 * the skeleton offset. Points into c or s (valid while they live). NULL for a NULL
 * argument, a skeleton/clip joint count mismatch, or a joint or frame out of range. */
MB_API const float *mb_clip_joint_translation(const mb_skeleton *s, const mb_clip *c,
                                              int frame, int joint);

/* The local pose of one frame: rotations from the clip; translations by the rule of
 * mb_clip_joint_translation (tracked joints with position channels: the track; every
 * other joint: the skeleton offset).
 * out.count must be at least the joint count (entries past it are left as they are).
 * MB_INVALID_ARG for a bad frame or mismatched
 * skeleton/clip, MB_TOO_SMALL for a short pose. */
MB_API mb_status mb_clip_frame_pose(const mb_skeleton *s, const mb_clip *c, int frame,
                                    mb_pose out);

/* How sampling treats times outside the clip. */
typedef enum mb_wrap {
    MB_WRAP_CLAMP = 0, /* t < 0 gives frame 0, t past the last frame gives the last frame;
                          the clip spans (frame_count - 1) * frame_time seconds */
    MB_WRAP_LOOP       /* t wraps modulo frame_count * frame_time; between the last frame
                          and frame 0 the pose interpolates back to frame 0 (a cycle) */
} mb_wrap;

/* The local pose at time t (seconds): rotations slerped between the two nearest frames
 * (short arc), translations of tracked joints lerped; the other joints take their offset
 * (the rule of mb_clip_joint_translation).
 * O(1) per joint for any t (frames are evenly spaced), so sequential playback and random
 * seek cost the same. MB_INVALID_ARG for a non-finite t, an empty clip or a skeleton/clip
 * mismatch; MB_TOO_SMALL for a short pose. */
MB_API mb_status mb_clip_sample(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap,
                                mb_pose out);

/* The rest pose: identity rotations, offsets as translations. */
MB_API mb_status mb_skeleton_rest_pose(const mb_skeleton *s, mb_pose out);

/* Forward kinematics: local pose -> world matrices (column-major float[16]), one per joint:
 * world(i) = world(parent) * T(pos) * R(rot), parents first. out_count must be at least the
 * joint count; out_world may not overlap the pose. The world position of joint i is
 * out_world[i][12..14]. Each rotation is used as q / |q| (exactly unit input need not be
 * renormalised; a zero quaternion gives no rotation). Never allocates; SIMD kernels (AVX2,
 * AVX-512) where the CPU has them. MB_INVALID_ARG / MB_TOO_SMALL on bad views, before
 * anything is written. */
MB_API mb_status mb_fk(const mb_skeleton *s, const mb_pose *local, float (*out_world)[16],
                       int out_count);

#ifdef __cplusplus
}
#endif
#endif
