/* mblend/offline/mirror.h: mirroring a clip left to right.
 *
 * The mirrored clip is the input seen in a mirror standing in the character's sagittal
 * plane: every joint takes the motion of its other-side joint (roles.h,
 * mb_roles_mirror_joints: by role, or by Left/Right names for joints without one),
 * reflected across that plane. Root motion is reflected too, so a left turn becomes a right
 * turn of the same angle and a clip walking along the plane keeps walking that way.
 *
 * Rotations are mirrored relative to a reference pose whose left and right mirror each
 * other (a T-pose or a bind pose): each joint's rotation away from its reference is the
 * reflection of its pair's, and a fixed correction per joint makes its bones (its child
 * joints' reference translations) point where the pair's reflected bones point, also when
 * the reference's left and right offsets are not exact mirrors (exact for a joint's longest
 * bone, and in the plane of the bone most across it). Mirroring twice gives the input back
 * (up to float rounding). Joints whose translation the clip tracks (the root; every joint
 * of Bandai and glTF clips) get the reflected world position of their pair exactly; the
 * others keep their skeleton offsets, so on a skeleton whose left and right bone lengths
 * differ the mirrored joints are where the reflected bone directions with this side's
 * lengths put them.
 */
#ifndef MBLEND_OFFLINE_MIRROR_H
#define MBLEND_OFFLINE_MIRROR_H

#include "../runtime/anim.h"
#include "roles.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mb_mirror_desc {
    const mb_skeleton *skeleton;
    const mb_clip *clip;          /* on skeleton; at least one frame */
    const mb_roles *roles;        /* of skeleton; NULL: mb_roles_find(skeleton, no map) */
    mb_axis up_axis;              /* MB_AXIS_DETECT: mb_motion_analyze's */
    /* The reference pose (local, joint_count entries): a pose whose left and right mirror
     * each other, such as a glTF skin's bind pose (mb_mesh_bind_pose). NULL: the rest
     * pose (identity rotations, the offsets). It is used when it stands upright in the
     * clip's up axis (each leg's lowest role below its upper leg by at least half their
     * distance along up, the limb roots' left-right axis mostly horizontal: BVH T-poses
     * and the Fox's bind pose do; the identity-rotation rest of a glTF skeleton, Bandai's
     * rotated joint frames or a Z-up bind pose under a Y-up clip need not); otherwise
     * the first motion frame (mb_motion_info.first_frame) is the reference, and an
     * asymmetry of that frame (a twisted spine) stays in the mirrored clip. */
    const mb_xform *reference;
    /* The plane's normal is the reference's left-right axis: the sum over the limb roots
     * (shoulders, upper arms, upper legs) of left minus right world position, made
     * perpendicular to up. Non-zero: the first motion frame's, so that a clip starting
     * in another heading than its reference keeps walking its way: the reference's axis
     * turned by the hips' rotation from the reference to that frame (with a reference
     * taken from the clip: that frame's limb roots, as above). */
    int plane_from_clip;
    const char *source;           /* names the clip in messages (NULL: "clip") */
    mb_allocator allocator;       /* for the output clip */
} mb_mirror_desc;

/* The plane a clip was mirrored across. */
typedef struct mb_mirror_plane {
    double normal[3];  /* unit, perpendicular to the up axis: the character's left-right axis */
    double point[3];   /* on the plane: the root's world position at the first motion frame */
    int from_clip;     /* 1: the normal came from the first motion frame */
    int reference_from_clip; /* 1: the reference pose was the first motion frame */
    int first_frame;   /* that frame (mb_motion_info.first_frame) */
    mb_axis up_axis;
} mb_mirror_plane;

/* Mirrors d->clip (see above) into a new clip on the same skeleton, with the same frames,
 * frame time and tracked joints. out_plane (nullable) receives the plane. Needs the hips and
 * both upper legs, and for every sided role present its other side: MB_INVALID_ARG naming
 * every missing role (source: d->source). MB_INVALID_ARG for NULLs or a clip of another
 * skeleton, MB_MISMATCH when no left-right axis can be found, MB_NOMEM. *out is NULL on
 * failure. */
MB_API mb_status mb_clip_mirror(const mb_mirror_desc *d, mb_clip **out,
                                mb_mirror_plane *out_plane, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif
