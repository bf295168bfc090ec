/* Forward kinematics: one parents-first pass, world(i) = world(parent) * T(pos) * R(rot). */
#include <string.h>

#include <cglm/cglm.h>

#include "runtime/anim/skeleton_internal.h"

mb_status mb_fk(const mb_skeleton *s, const mb_pose *local, float (*out_world)[16],
                int out_count)
{
    if (!s || !local || !local->joints || !out_world)
        return MB_INVALID_ARG;
    int n = s->joint_count;
    if (local->count < n || out_count < n)
        return MB_TOO_SMALL;
    for (int i = 0; i < n; ++i) {
        const mb_xform *x = &local->joints[i];
        /* cglm wants aligned types; public buffers are plain floats, so copy in and out. */
        versor q = {x->rot[0], x->rot[1], x->rot[2], x->rot[3]};
        mat4 m;
        glm_quat_mat4(q, m);
        m[3][0] = x->pos[0];
        m[3][1] = x->pos[1];
        m[3][2] = x->pos[2];
        int p = s->parents[i];
        if (p >= 0) {
            mat4 pw, w;
            memcpy(pw, out_world[p], sizeof pw);
            glm_mul(pw, m, w);
            memcpy(out_world[i], w, sizeof w);
        } else {
            memcpy(out_world[i], m, sizeof m);
        }
    }
    return MB_OK;
}
