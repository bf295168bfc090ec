/* mblend/offline/retarget.h: the motion of one skeleton played by another (retargeting).
 *
 * The two skeletons may differ in joint names, proportions, rest pose (a T-pose source
 * drives an A-pose target) and bone axes (Bandai-Namco's bones lie along X, CMU's along
 * their offsets, a glTF character's along whatever its exporter chose). What connects them
 * is their joint roles (offline/roles.h). The method (docs/retarget.md, "Retargeting"):
 *
 * 1. Each side's reference pose (a T-pose or A-pose, a mesh's bind pose; by default the
 *    skeleton's rest pose) gives every role's rest bone direction in world space: the
 *    direction from the joint to the joint of its child role (hips to chest, upper arm to
 *    forearm, ...). The hips and the chest have a frame (up and left) instead.
 * 2. World axes: M is the rotation that turns the source's up axis into the target's.
 * 3. Rest alignment per role, from the hips outward: A(hips) and A(chest) turn the target's
 *    rest frame onto the source's (mapped by M); every other role's A is the parent role's
 *    A followed by the shortest arc that turns the target's rest direction onto the
 *    source's. A role without a direction on either side (a hand without fingers, an End
 *    Site of length 0) keeps its parent role's A.
 * 4. Per frame, a mapped target joint's world rotation is
 *        W_t(f) = M W_s(f) W_s(ref)^-1 M^-1 A W_t(ref),
 *    so its bone points where the source's bone points (mapped by M), and the source's
 *    twist about the bone since its reference pose is carried over. Spine joints map one to
 *    one when both spines have as many joints; otherwise each target spine joint takes a
 *    slerp between the source's hips and chest body frames (by its place in the chain).
 * 5. Joints without a role (or whose role the source lacks) keep the target's reference
 *    local transform; every joint but the root keeps its reference translation, so every
 *    bone has the target's length.
 * 6. The hips' world position is the source's, mapped by M and scaled by the ratio of leg
 *    lengths (upper leg + lower leg, the mean of both sides) around the world origin (the
 *    ground plane through the origin stays the ground). The joint that carries it is the
 *    hips if they have position channels, else their nearest ancestor that has them.
 * 7. Feet (MB_RETARGET_FEET_IK, the default): each ankle is put at the source's reach from
 *    its hip socket, mapped by M and scaled by that side's leg ratio, the knee bent by a
 *    two-bone IK in the plane step 4 gave it.
 *
 * Errors follow one contract: every fallible function takes a nullable mb_error *, clears it
 * on entry, and the first error set is the one reported. */
#ifndef MBLEND_OFFLINE_RETARGET_H
#define MBLEND_OFFLINE_RETARGET_H

#include "../runtime/anim.h"
#include "roles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The roles both skeletons need: hips, chest, both legs (upper, lower, foot) and both arms
 * (upper arm, forearm). */
#define MB_RETARGET_REQUIRED_COUNT 12
MB_API const mb_role *mb_retarget_required_roles(void); /* MB_RETARGET_REQUIRED_COUNT */

/* One side of a retarget. */
typedef struct mb_retarget_side {
    const mb_skeleton *skeleton;
    const mb_roles *roles;       /* from mb_roles_find (or filled by hand) */
    /* The local pose the rest bone directions are read from (joint_count entries): a T- or
     * A-pose, a mesh's bind pose (mb_mesh_bind_pose). NULL: the skeleton's rest pose
     * (identity rotations, offsets). Joints without a role keep it on the target side. */
    const mb_xform *reference;
    /* The world up axis. MB_AXIS_DETECT: the source's is analysed from the clip
     * (mb_motion_analyze); the target's from to_clip (required then). */
    mb_axis up_axis;
    const char *source;          /* names the side in messages (NULL: "source"/"target") */
} mb_retarget_side;

/* What the legs follow. */
typedef enum mb_retarget_feet {
    /* The ankles go where the source's are, mapped by M and scaled as the hips are, the
     * knees bent to reach them (two-bone IK in the plane the knee bends in): the feet plant
     * and lift on the source's frames and slide no more than its feet do, whatever the
     * proportions of the two legs. Leg directions then differ from the source's by what
     * the proportions need (a few degrees). */
    MB_RETARGET_FEET_IK = 0,
    /* Leg bones follow the source's directions like every other bone (no IK). */
    MB_RETARGET_FEET_FK = 1
} mb_retarget_feet;

typedef struct mb_retarget_desc {
    mb_retarget_side from;
    const mb_clip *clip;         /* the motion, on from.skeleton; at least 1 frame */
    mb_retarget_side to;
    /* Nullable: a clip of to.skeleton, only to detect the target's up axis. */
    const mb_clip *to_clip;
    mb_retarget_feet feet;       /* 0: MB_RETARGET_FEET_IK */
    mb_allocator allocator;      /* for the output clip */
} mb_retarget_desc;

/* How a target joint was driven. */
typedef enum mb_retarget_how {
    MB_RETARGET_UNMAPPED = 0,  /* no role, or the source lacks it: reference pose kept */
    MB_RETARGET_FRAME,         /* hips, chest: rest frames (up, left) aligned */
    MB_RETARGET_DIRECTION,     /* rest bone directions aligned; twist from the source */
    MB_RETARGET_FOLLOW,        /* no bone direction on one side: the parent role's alignment */
    MB_RETARGET_SPINE_BLEND    /* spines of different lengths: between the hips and the chest */
} mb_retarget_how;

/* What mb_retarget did, per role of the target. */
typedef struct mb_retarget_role_report {
    int target_joint;          /* -1 when the target lacks the role */
    int source_joint;          /* -1 when the source lacks it */
    mb_retarget_how how;
    /* Degrees between the two rest directions (after the parent's alignment): how far the
     * reference poses differ at that bone (T-pose against A-pose: about 45 at the upper
     * arms). 0 for FRAME, FOLLOW and UNMAPPED. */
    double rest_angle;
} mb_retarget_role_report;

typedef struct mb_retarget_report {
    mb_retarget_role_report role[MB_ROLE_COUNT]; /* SPINE: the joint nearest the hips */
    int target_spines, source_spines;  /* joints with the SPINE role on each side */
    int mapped_joints;                 /* target joints driven by the source */
    int unmapped_joints;               /* target joints (End Sites excluded) that keep
                                          their reference pose */
    double scale;                      /* target leg length / source leg length */
    double source_leg, target_leg;     /* upper + lower leg, file units */
    mb_axis source_up, target_up;
    int root_joint;                    /* the target joint carrying the root motion, -1
                                          when no joint above the hips has position
                                          channels (root motion dropped) */
} mb_retarget_report;

/* Retargets d->clip from d->from onto d->to. *out is a new clip on to.skeleton (same frame
 * count and frame time; it tracks the translations of the target's joints with position
 * channels), NULL on failure. report (nullable) says which joints were mapped and how.
 * Failures (err filled): MB_INVALID_ARG for NULL fields, roles or reference poses that do
 * not fit their skeleton, an up axis out of range or a target axis left to detect without
 * to_clip, a clip of another joint count or without frames; MB_INVALID_ARG naming every
 * missing role (source: the side's name) when a side lacks a required role
 * (mb_retarget_required_roles); MB_MISMATCH when a leg has no length in a reference pose or
 * the hips or the chest have no rest frame (up and left parallel); the analysis's errors
 * when an up axis is detected; MB_NOMEM. The inputs are only read. */
MB_API mb_status mb_retarget(const mb_retarget_desc *d, mb_clip **out,
                             mb_retarget_report *report, mb_error *err);

/* The report as text, one line per target role ("upper_arm_l  LeftArm -> UpperArm_L
 * direction, rest 44.8 deg") and a summary line, for tools; names from both skeletons.
 * Writes at most size bytes (NUL included) and returns the length it needed (snprintf). */
MB_API int mb_retarget_report_format(const mb_retarget_report *r, const mb_skeleton *from,
                                     const mb_skeleton *to, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
