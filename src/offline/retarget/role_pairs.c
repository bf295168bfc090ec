/* Left/right pairs of joints for mirroring (offline/roles.h, mb_roles_mirror_joints). */
#include <string.h>

#include "base/error_internal.h"
#include "offline/retarget/roles_internal.h"

/* The only End Site child of joint p, or -1. */
static int only_end_site(const mb_skeleton *skel, int p)
{
    const int *parent = mb_skeleton_parents(skel);
    int found = -1;
    for (int k = p + 1; k < mb_skeleton_joint_count(skel); ++k)
        if (parent[k] == p && mb_skeleton_is_end_site(skel, k)) {
            if (found >= 0)
                return -1;
            found = k;
        }
    return found;
}

static int pair_of(const mb_skeleton *skel, const mb_roles *roles, const int *other, int j)
{
    int r = roles->of_joint[j];
    if (r) {
        int k = roles->joint[mb_role_mirror((mb_role)r)];
        return k >= 0 ? k : j;
    }
    int p = mb_skeleton_parents(skel)[j];
    if (mb_skeleton_is_end_site(skel, j) && p >= 0 && other[p] != p) {
        int e = only_end_site(skel, other[p]);
        if (e >= 0 && only_end_site(skel, p) == j)
            return e;
    }
    int k = mb_name_mirror_joint_(skel, mb_skeleton_name(skel, j));
    return k >= 0 && !roles->of_joint[k] ? k : j;
}

mb_status mb_roles_mirror_joints(const mb_skeleton *skel, const mb_roles *roles, int *out_other,
                                 mb_error *err)
{
    mb_error_clear_(err);
    if (!skel || !roles || !out_other || !roles->of_joint)
        return mb_error_set_(err, MB_INVALID_ARG, "mirror", "no %s given",
                             !skel ? "skeleton" : !out_other ? "output" : "roles");
    int n = mb_skeleton_joint_count(skel);
    if (roles->joint_count != n)
        return mb_error_set_(err, MB_INVALID_ARG, "mirror", "roles of %d joints for a skeleton "
                             "of %d", roles->joint_count, n);
    for (int j = 0; j < n; ++j) /* parents first: an End Site sees its parent's pair */
        out_other[j] = pair_of(skel, roles, out_other, j);
    for (int changed = 1; changed;) { /* an unreturned pairing is no pairing */
        changed = 0;
        for (int j = 0; j < n; ++j)
            if (out_other[out_other[j]] != j) {
                out_other[j] = j;
                changed = 1;
            }
    }
    return MB_OK;
}
