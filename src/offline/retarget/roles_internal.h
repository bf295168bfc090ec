/* Private pieces of the role finder shared by roles.c, role_names.c and role_map.c. */
#ifndef MB_ROLES_INTERNAL_H
#define MB_ROLES_INTERNAL_H

#include <stdio.h>

#include "mblend/offline/roles.h"

/* What a joint's name says, before the topology decides (role_names.c). */
typedef enum mb_name_kind_ {
    MB_KIND_NONE_ = 0,
    MB_KIND_HIPS_,     /* hips, pelvis; "hip" without a side */
    MB_KIND_TORSO_,    /* spine, chest, back, torso, abdomen: SPINE or CHEST by position */
    MB_KIND_NECK_,
    MB_KIND_HEAD_,
    MB_KIND_COLLAR_,   /* clavicle, collar: always the shoulder */
    MB_KIND_SHOULDER_, /* the shoulder, or the upper arm below a collar (CMU 131) */
    MB_KIND_ARM_,      /* "arm": the upper arm; a chain of "arm" joints: upper arm, forearm, hand */
    MB_KIND_UPPER_ARM_,
    MB_KIND_FOREARM_,
    MB_KIND_HAND_,
    MB_KIND_UPPER_LEG_, /* also "hip" with a side */
    MB_KIND_LEG_,      /* "leg": the lower leg; a chain of them: upper leg, lower leg, foot, toes */
    MB_KIND_LOWER_LEG_,
    MB_KIND_FOOT_,     /* a chain of two "foot" joints: foot, toes */
    MB_KIND_TOES_,
    MB_KIND_COUNT_
} mb_name_kind_;

/* What one name says: kind, side (0 none, 1 left, 2 right) and the core words (lower case,
 * no separators, side, digits and rig prefixes removed: "mixamorig:LeftUpLeg" -> "upleg"),
 * so that joints of one chain named alike ("leg01", "leg02") can be grouped. */
typedef struct mb_name_info_ {
    mb_name_kind_ kind;
    int side;
    char core[64];
} mb_name_info_;

void mb_name_classify_(const char *name, mb_name_info_ *out);

/* The joint of skel whose name is name with left and right swapped ("LeftHandIndex1" ->
 * "RightHandIndex1", "Hand_L" -> "Hand_R", "LThumb" -> "RThumb", "lhand" -> "rhand"), or
 * -1 when no such other joint exists. */
int mb_name_mirror_joint_(const mb_skeleton *skel, const char *name);

/* One line of a role map. */
typedef struct mb_role_map_entry_ {
    int role;        /* mb_role; MB_ROLE_NONE: "none" (the joint has no role) */
    char *joint;
    int line, column; /* of the joint name, for messages */
} mb_role_map_entry_;

struct mb_role_map {
    char *path;
    mb_role_map_entry_ *entries;
    int count;
};

/* mb_role_map_read on an open stream (f is read, not closed); path names it in messages. */
mb_status mb_role_map_read_stream_(FILE *f, const char *path, mb_role_map **out, mb_error *err);

#endif
