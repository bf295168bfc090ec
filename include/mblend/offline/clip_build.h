/* mblend/offline/clip_build.h: building skeletons and clips (runtime/anim.h's objects) from
 * descs: everything is checked and copied into one allocation. The readers (offline/bvh.h,
 * offline/scene.h) build theirs this way; a game with its own asset format does the same at
 * load time. */
#ifndef MBLEND_OFFLINE_CLIP_BUILD_H
#define MBLEND_OFFLINE_CLIP_BUILD_H

#include "../runtime/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One node for mb_skeleton_create. */
typedef struct mb_joint_desc {
    const char *name;          /* 1..MB_MAX_NAME bytes, unique among joints; to survive a
                                  BVH round trip: at most 123 bytes (room for "_End"), no
                                  braces, control characters or edge spaces */
    int parent;                /* index < own index; -1 only for node 0 */
    float offset[3];           /* rest translation in the parent's space */
    int end_site;              /* non-zero: a BVH End Site (no channels allowed) */
    int channel_count;         /* 0..6 */
    mb_channel channels[6];    /* as written in the file; each channel at most once */
    int roots_group;           /* non-zero only on node 0 of a BVH with several ROOTs: a node
                                  that holds them (no channels, zero offset, not an End Site;
                                  the BVH writer writes its children as the ROOTs, not it) */
} mb_joint_desc;

typedef struct mb_skeleton_desc {
    const mb_joint_desc *joints;
    int joint_count;           /* 1..MB_MAX_JOINTS */
    mb_allocator allocator;    /* zero: malloc/free */
} mb_skeleton_desc;

/* Builds a skeleton (copies everything). Fails (err says which joint and why, source
 * "skeleton") with MB_INVALID_ARG on a broken desc (bad parent order, duplicate or empty
 * names, repeated channels, channels on an End Site), MB_LIMIT past the limits above,
 * MB_NOMEM. */
MB_API mb_status mb_skeleton_create(const mb_skeleton_desc *d, mb_skeleton **out,
                                    mb_error *err);

typedef struct mb_clip_desc {
    int joint_count;
    int frame_count;           /* 0..MB_MAX_FRAMES */
    double frame_time;         /* seconds, > 0 and finite */
    const float *rotations;    /* joint_count * frame_count * 4; NULL: identity */
    /* Tracked joints: translation_count (0..joint_count) joint indices, strictly ascending
     * (so unique), each in 0..joint_count-1. Ignored when translation_count is 0. */
    const int *translation_joints;
    int translation_count;
    /* [frame][translation_count][3]; required (non-NULL) when translation_count > 0 and
     * frame_count > 0, and must be NULL when translation_count is 0 (a leftover
     * full-skeleton array is refused rather than misread). */
    const float *translations;
    mb_allocator allocator;
} mb_clip_desc;

/* Builds a clip (copies the tracks, normalises rotations and makes them sign-continuous).
 * Fails (err says why, source "clip") with MB_INVALID_ARG for a bad desc (see the fields: an unsorted, repeated or out-of-range
 * tracked joint, a count without its arrays or a translation array without a count) or
 * non-finite values, MB_LIMIT, MB_NOMEM. */
MB_API mb_status mb_clip_create(const mb_clip_desc *d, mb_clip **out, mb_error *err);
/* Allocates an uninitialised clip whose tracks the caller (a loader) fills through
 * mb_clip_rotations_mut / mb_clip_translations_mut before handing it out. The tracked
 * joints (translation_count entries, strictly ascending, in range; NULL when the count is
 * 0) are copied. Fails (err says why, source "clip") with MB_INVALID_ARG for bad arguments, MB_LIMIT past MB_MAX_JOINTS,
 * MB_MAX_FRAMES or MB_MAX_TRACK_BYTES (rotations plus translations; checked before
 * allocating), MB_NOMEM. */
MB_API mb_status mb_clip_alloc(int joint_count, int frame_count, double frame_time,
                               const int *translation_joints, int translation_count,
                               const mb_allocator *a, mb_clip **out, mb_error *err);
/* The tracks of a clip from mb_clip_alloc, for its loader to fill before handing it out. */
MB_API float *mb_clip_rotations_mut(mb_clip *c);
MB_API float *mb_clip_translations_mut(mb_clip *c);

#ifdef __cplusplus
}
#endif
#endif
