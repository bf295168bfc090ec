/* mblend/offline/roles.h: humanoid joint roles. A role says what a joint is in a human body
 * (hips, spine, upper arm, ...), whatever the file calls it, so that clips of different
 * skeletons (CMU, Bandai-Namco, Mixamo, Rokoko, glTF characters) can be retargeted onto each
 * other and mirrored left to right.
 *
 * Roles are found from joint names (case-insensitive, namespace prefixes such as
 * "mixamorig:" ignored) and checked against the topology (a forearm is a child of its upper
 * arm, the legs hang from the hips, ...); a role map file (mb_role_map_read, format in
 * docs/retarget.md) overrides or completes what names give.
 *
 * Errors follow one contract: every fallible function takes a nullable mb_error *, clears it
 * on entry, and the first error set is the one reported. */
#ifndef MBLEND_OFFLINE_ROLES_H
#define MBLEND_OFFLINE_ROLES_H

#include "../runtime/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Left before right in every pair, so that mb_role_mirror is one table. MB_ROLE_SPINE may be
 * held by several joints (the chain from the hips to the chest, in order); every other role
 * by at most one. */
typedef enum mb_role {
    MB_ROLE_NONE = 0,
    MB_ROLE_HIPS,
    MB_ROLE_SPINE, /* the joints between the hips and the chest */
    MB_ROLE_CHEST, /* the spine joint the neck and the shoulders hang from */
    MB_ROLE_NECK,
    MB_ROLE_HEAD,
    MB_ROLE_SHOULDER_L, /* the clavicle */
    MB_ROLE_SHOULDER_R,
    MB_ROLE_UPPER_ARM_L,
    MB_ROLE_UPPER_ARM_R,
    MB_ROLE_FOREARM_L,
    MB_ROLE_FOREARM_R,
    MB_ROLE_HAND_L,
    MB_ROLE_HAND_R,
    MB_ROLE_UPPER_LEG_L,
    MB_ROLE_UPPER_LEG_R,
    MB_ROLE_LOWER_LEG_L,
    MB_ROLE_LOWER_LEG_R,
    MB_ROLE_FOOT_L,
    MB_ROLE_FOOT_R,
    MB_ROLE_TOES_L,
    MB_ROLE_TOES_R,
    MB_ROLE_COUNT
} mb_role;

/* "hips", "spine", ..., "upper_arm_l", ...; "none" for MB_ROLE_NONE; NULL out of range.
 * The names of the map file. */
MB_API const char *mb_role_name(mb_role role);
/* The role of that name (as mb_role_name gives it, case-insensitive); MB_ROLE_NONE if none. */
MB_API mb_role mb_role_from_name(const char *name);
/* The other side's role (UPPER_ARM_L <-> UPPER_ARM_R); a role without sides is its own. */
MB_API mb_role mb_role_mirror(mb_role role);

/* How each role was decided. */
typedef enum mb_role_how {
    MB_ROLE_FROM_NAME = 0, /* the joint's name */
    MB_ROLE_FROM_TOPOLOGY, /* the skeleton's shape (a name gave nothing, the tree did) */
    MB_ROLE_FROM_MAP       /* the user's role map */
} mb_role_how;

/* The roles of one skeleton's joints. */
typedef struct mb_roles {
    int joint_count;
    unsigned char *of_joint;        /* joint_count entries, mb_role values (NONE: no role) */
    unsigned char *how;             /* joint_count entries, mb_role_how (for reports) */
    int joint[MB_ROLE_COUNT];       /* the joint of each role, -1 without; SPINE: the one
                                       nearest the hips; NONE: -1 */
} mb_roles;

typedef struct mb_role_map mb_role_map; /* opaque: a parsed map file */

/* Reads a role map file (format: docs/retarget.md). Errors carry the file, line and column.
 * *out is NULL on failure. */
MB_API mb_status mb_role_map_read(const char *path, mb_role_map **out, mb_error *err);
MB_API void mb_role_map_destroy(mb_role_map *map); /* NULL is a no-op */

/* Finds the roles of skel's joints: names first, then the map (nullable), then the topology
 * check (a name match that contradicts the tree is dropped) and what the tree gives where
 * names gave nothing (the hips where the legs and the upper body meet, the chest where the
 * neck and both arms meet, the spine between them, gaps in a limb); the map's entries are
 * never changed. The rules, step by step: docs/retarget.md. Allocates out's arrays (free
 * with mb_roles_free); on failure out holds nothing to free. A map naming a joint the
 * skeleton lacks (or an End Site) is an error (MB_INVALID_ARG) naming it, at the map
 * file's line and column. */
MB_API mb_status mb_roles_find(const mb_skeleton *skel, const mb_role_map *map, mb_roles *out,
                               mb_error *err);
MB_API void mb_roles_free(mb_roles *roles); /* zeroes it; a zeroed struct is a no-op */

/* MB_OK when every role in need (n entries) has a joint; else MB_INVALID_ARG with a message
 * naming every missing role (source: what). */
MB_API mb_status mb_roles_require(const mb_roles *roles, const mb_role *need, int n,
                                  const char *what, mb_error *err);

/* The other side's joint of every joint, for mirroring (out_other: joint_count entries). A
 * joint with a sided role pairs with the joint of the mirrored role (when the skeleton has
 * it); a joint without a role with the joint whose name has left and right swapped
 * ("LeftHandIndex1" / "RightHandIndex1", "Hand_L" / "Hand_R", "LThumb" / "RThumb",
 * "lhand" / "rhand") when that one has no role either; an End Site with the only End Site
 * of its parent's pair. Every other joint (the middle of the body, an unpaired one) is its
 * own. Pairs are symmetric: out_other[out_other[j]] == j. roles must come from skel.
 * MB_INVALID_ARG for NULLs or roles of another joint count. */
MB_API mb_status mb_roles_mirror_joints(const mb_skeleton *skel, const mb_roles *roles,
                                        int *out_other, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif
