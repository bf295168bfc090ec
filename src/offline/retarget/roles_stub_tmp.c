/* TEMPORARY (deleted when h/roles is merged): the parts of roles.h that retarget.c and its
 * tests call, so the branch builds before the roles implementation lands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error_internal.h"
#include "mblend/offline/roles.h"

static const char *names[MB_ROLE_COUNT] = {
    NULL, "hips", "spine", "chest", "neck", "head", "shoulder_l", "shoulder_r",
    "upper_arm_l", "upper_arm_r", "forearm_l", "forearm_r", "hand_l", "hand_r",
    "upper_leg_l", "upper_leg_r", "lower_leg_l", "lower_leg_r", "foot_l", "foot_r",
    "toes_l", "toes_r"};

const char *mb_role_name(mb_role role)
{
    return (unsigned)role < MB_ROLE_COUNT ? names[role] : NULL;
}

mb_role mb_role_from_name(const char *name)
{
    for (int r = 1; name && r < MB_ROLE_COUNT; ++r)
        if (strcasecmp(name, names[r]) == 0)
            return (mb_role)r;
    return MB_ROLE_NONE;
}

mb_role mb_role_mirror(mb_role role)
{
    if (role >= MB_ROLE_SHOULDER_L && role < MB_ROLE_COUNT)
        return (mb_role)((role - MB_ROLE_SHOULDER_L) % 2 ? role - 1 : role + 1);
    return role;
}

void mb_roles_free(mb_roles *roles)
{
    if (!roles)
        return;
    free(roles->of_joint);
    free(roles->how);
    memset(roles, 0, sizeof *roles);
}

mb_status mb_roles_require(const mb_roles *roles, const mb_role *need, int n, const char *what,
                           mb_error *err)
{
    mb_error_clear_(err);
    char msg[512] = "";
    size_t used = 0;
    int missing = 0;
    for (int i = 0; i < n; ++i)
        if (roles->joint[need[i]] < 0) {
            int k = snprintf(msg + used, sizeof msg - used, "%s%s", missing ? ", " : "",
                             names[need[i]]);
            if (k > 0 && used + (size_t)k < sizeof msg)
                used += (size_t)k;
            ++missing;
        }
    if (!missing)
        return MB_OK;
    return mb_error_set_(err, MB_INVALID_ARG, what, "no joint for the role%s %s",
                         missing == 1 ? "" : "s", msg);
}

mb_status mb_role_map_read(const char *path, mb_role_map **out, mb_error *err)
{
    mb_error_clear_(err);
    *out = NULL;
    return mb_error_set_(err, MB_IO, path, "role maps are not implemented in this build");
}

void mb_role_map_destroy(mb_role_map *map) { (void)map; }

/* Exact names of CMU, Bandai and CesiumMan only. */
mb_status mb_roles_find(const mb_skeleton *skel, const mb_role_map *map, mb_roles *out,
                        mb_error *err)
{
    static const struct { const char *name; mb_role r; } table[] = {
        {"Hips", MB_ROLE_HIPS}, {"LowerBack", MB_ROLE_SPINE}, {"Spine", MB_ROLE_SPINE},
        {"Spine1", MB_ROLE_CHEST}, {"Chest", MB_ROLE_CHEST}, {"Neck", MB_ROLE_NECK},
        {"Head", MB_ROLE_HEAD}, {"LeftShoulder", MB_ROLE_SHOULDER_L},
        {"RightShoulder", MB_ROLE_SHOULDER_R}, {"LeftArm", MB_ROLE_UPPER_ARM_L},
        {"RightArm", MB_ROLE_UPPER_ARM_R}, {"LeftForeArm", MB_ROLE_FOREARM_L},
        {"RightForeArm", MB_ROLE_FOREARM_R}, {"LeftHand", MB_ROLE_HAND_L},
        {"RightHand", MB_ROLE_HAND_R}, {"LeftUpLeg", MB_ROLE_UPPER_LEG_L},
        {"RightUpLeg", MB_ROLE_UPPER_LEG_R}, {"LeftLeg", MB_ROLE_LOWER_LEG_L},
        {"RightLeg", MB_ROLE_LOWER_LEG_R}, {"LeftFoot", MB_ROLE_FOOT_L},
        {"RightFoot", MB_ROLE_FOOT_R}, {"LeftToeBase", MB_ROLE_TOES_L},
        {"RightToeBase", MB_ROLE_TOES_R}, {"Shoulder_L", MB_ROLE_SHOULDER_L},
        {"Shoulder_R", MB_ROLE_SHOULDER_R}, {"UpperArm_L", MB_ROLE_UPPER_ARM_L},
        {"UpperArm_R", MB_ROLE_UPPER_ARM_R}, {"LowerArm_L", MB_ROLE_FOREARM_L},
        {"LowerArm_R", MB_ROLE_FOREARM_R}, {"Hand_L", MB_ROLE_HAND_L},
        {"Hand_R", MB_ROLE_HAND_R}, {"UpperLeg_L", MB_ROLE_UPPER_LEG_L},
        {"UpperLeg_R", MB_ROLE_UPPER_LEG_R}, {"LowerLeg_L", MB_ROLE_LOWER_LEG_L},
        {"LowerLeg_R", MB_ROLE_LOWER_LEG_R}, {"Foot_L", MB_ROLE_FOOT_L},
        {"Foot_R", MB_ROLE_FOOT_R}, {"Toes_L", MB_ROLE_TOES_L}, {"Toes_R", MB_ROLE_TOES_R},
        {"Skeleton_torso_joint_1", MB_ROLE_HIPS}, {"Skeleton_torso_joint_2", MB_ROLE_SPINE},
        {"torso_joint_3", MB_ROLE_CHEST}, {"Skeleton_neck_joint_1", MB_ROLE_NECK},
        {"Skeleton_neck_joint_2", MB_ROLE_HEAD},
        {"Skeleton_arm_joint_L__4_", MB_ROLE_UPPER_ARM_L},
        {"Skeleton_arm_joint_L__3_", MB_ROLE_FOREARM_L},
        {"Skeleton_arm_joint_L__2_", MB_ROLE_HAND_L},
        {"Skeleton_arm_joint_R", MB_ROLE_UPPER_ARM_R},
        {"Skeleton_arm_joint_R__2_", MB_ROLE_FOREARM_R},
        {"Skeleton_arm_joint_R__3_", MB_ROLE_HAND_R}, {"leg_joint_L_1", MB_ROLE_UPPER_LEG_L},
        {"leg_joint_L_2", MB_ROLE_LOWER_LEG_L}, {"leg_joint_L_3", MB_ROLE_FOOT_L},
        {"leg_joint_L_5", MB_ROLE_TOES_L}, {"leg_joint_R_1", MB_ROLE_UPPER_LEG_R},
        {"leg_joint_R_2", MB_ROLE_LOWER_LEG_R}, {"leg_joint_R_3", MB_ROLE_FOOT_R},
        {"leg_joint_R_5", MB_ROLE_TOES_R}};
    (void)map;
    mb_error_clear_(err);
    memset(out, 0, sizeof *out);
    int nj = mb_skeleton_joint_count(skel);
    out->joint_count = nj;
    out->of_joint = calloc((size_t)nj, 1);
    out->how = calloc((size_t)nj, 1);
    if (!out->of_joint || !out->how) {
        mb_roles_free(out);
        return mb_error_set_(err, MB_NOMEM, "roles", "out of memory");
    }
    for (int r = 0; r < MB_ROLE_COUNT; ++r)
        out->joint[r] = -1;
    for (int j = 0; j < nj; ++j)
        for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k)
            if (strcmp(mb_skeleton_name(skel, j), table[k].name) == 0) {
                out->of_joint[j] = (unsigned char)table[k].r;
                if (out->joint[table[k].r] < 0)
                    out->joint[table[k].r] = j;
            }
    return MB_OK;
}
