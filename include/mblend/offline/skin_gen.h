/* mblend/offline/skin_gen.h: generated skin meshes (capsules around the bones) for
 * skeletons that come without one (BVH). */
#ifndef MBLEND_OFFLINE_SKIN_GEN_H
#define MBLEND_OFFLINE_SKIN_GEN_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mb_skin_gen_desc {
    /* Tube radius as a fraction of the bone length; 0: 0.16. A bone is made at least
     * max_radius * sqrt(share) thick, share being the fraction of the skeleton's joints at
     * or below its end (so the spine is thicker than a finger); then the radius is clamped
     * to [min_radius, max_radius]. */
    float radius;
    float min_radius;          /* skeleton units; 0: 1.5% of the skeleton's extent */
    float max_radius;          /* skeleton units; 0: 6% of the skeleton's extent */
    int sides;                 /* vertices around a tube, 3..64; 0: 12 */
    int rings;                 /* rings along a bone between the caps, 2..64; 0: 8 */
    /* Fraction of a bone's length, at each end, over which its weights blend into the
     * neighbouring joint (0.5 at the joint itself), 0 < blend <= 0.5; 0: 0.3. */
    float blend;
    const mb_pose *bind;       /* pose the mesh is built around; NULL: the rest pose */
    /* The clip the skin will play (optional, on this skeleton). A bone whose length
     * changes over it (mb_skin_rigid_bones) gets no capsule and hands no weight across:
     * a capsule is rigid, so one from a static root (Bandai-Namco's joint_Root, a glTF
     * Armature node) to the moving hips would stretch over the whole walk. NULL: every
     * bone keeps its length. */
    const mb_clip *clip;
    mb_allocator allocator;    /* for the mesh */
} mb_skin_gen_desc;

/* A bone stretches when its length over a clip varies by more than this fraction of its
 * longest (1%: mocap noise and rounding stay far below; a root's travel far above). */
#define MB_SKIN_GEN_STRETCH 0.01

/* Which bones keep their length: out[j] (mb_skeleton_joint_count bytes) is 1 when the
 * bone from j's parent to j keeps it, within MB_SKIN_GEN_STRETCH, over the pose bind
 * (NULL: the rest pose) and every frame of c (NULL: the bind pose only, so every bone);
 * 0 for a bone that stretches and for a joint without a parent. A bone is as long as its
 * child's local translation (transforms carry no scale). Fails (err says why, source
 * "rigid bones") with MB_INVALID_ARG for NULL s or out, a clip or bind pose of another
 * joint count, non-finite translations. */
MB_API mb_status mb_skin_rigid_bones(const mb_skeleton *s, const mb_clip *c, const mb_pose *bind,
                                     unsigned char *out, mb_error *err);

/* Builds a skin for a skeleton: a capsule (a tube with round caps) around every bone, a
 * bone being the segment from a joint to each of its children (End Sites included), sized
 * from the bone length. A bone moves with its start joint; near either end its weights
 * blend smoothly into the joint that drives the neighbouring bone, so the surface bends
 * instead of tearing at joints. Zero-length bones are skipped, and so are bones that
 * stretch over d->clip (see there). The extent is the bind pose's bounding-box diagonal
 * over the joints a kept bone holds (a static root whose one bone stretches is left out). The mesh's skin joints are
 * the skeleton joints that drive a bone, its inverse binds the inverted bind world
 * matrices, its bind pose d->bind (or the rest pose). d may be NULL (defaults). Fails
 * (err says why, source "generated skin", or the step's own: "rigid bones", "mesh") with
 * MB_INVALID_ARG for a bad desc (a clip or bind pose of another joint count included) or
 * a skeleton without any bone to skin, MB_LIMIT past the mesh limits, MB_NOMEM. */
MB_API mb_status mb_skin_generate(const mb_skeleton *s, const mb_skin_gen_desc *d, mb_mesh **out,
                                  mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
