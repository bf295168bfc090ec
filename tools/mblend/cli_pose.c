/* Poses shared by the commands: world matrices of a frame, prepared clips and their feet. */
#include "cli_pose.h"

#include <string.h>

mb_status cli_frame_world(const mb_skeleton *s, const mb_clip *c, int frame, mb_xform *pose,
                          float (*world)[16])
{
    int n = mb_skeleton_joint_count(s);
    mb_pose p = {pose, n};
    mb_status st = frame < 0 ? mb_skeleton_rest_pose(s, p) : mb_clip_frame_pose(s, c, frame, p);
    if (st != MB_OK)
        return st;
    return mb_fk(s, &p, world, n);
}

/* n clips prepared as mb_clips_prepare (together) or one by one; all NULL on failure. */
static mb_status prepare_all(const mb_prepare_desc *d, int n, int together,
                             mb_prepared_clip **out, mb_error *e)
{
    if (together)
        return mb_clips_prepare(d, n, out, e);
    mb_status st = MB_OK;
    for (int i = 0; i < n; ++i)
        out[i] = NULL;
    for (int i = 0; i < n && st == MB_OK; ++i)
        st = mb_clip_prepare(&d[i], &out[i], e);
    for (int i = 0; i < n && st != MB_OK; ++i) {
        mb_prepared_clip_destroy(out[i]);
        out[i] = NULL;
    }
    return st;
}

/* Whether the analysis of a clip found its feet by name: the analysis's name rule never
 * picks an End Site, its fallback only picks End Sites (the two lowest). */
static int feet_by_name(const mb_prepared_info *pi)
{
    const mb_motion_info *m = &pi->motion;
    return m->left_foot >= 0 && m->right_foot >= 0 &&
           !mb_skeleton_is_end_site(pi->skeleton, m->left_foot) &&
           !mb_skeleton_is_end_site(pi->skeleton, m->right_foot);
}

/* Sets d's feet to the joints with the roles foot_l and foot_r when the skeleton has both;
 * returns whether it did. Roles that cannot be found (no hips, ...) leave d as it is. */
static int feet_from_roles(mb_prepare_desc *d)
{
    mb_roles r;
    if (mb_roles_find(d->skeleton, NULL, &r, NULL) != MB_OK)
        return 0;
    int l = r.joint[MB_ROLE_FOOT_L], rr = r.joint[MB_ROLE_FOOT_R];
    mb_roles_free(&r);
    if (l < 0 || rr < 0)
        return 0;
    d->left_foot = mb_skeleton_name(d->skeleton, l);
    d->right_foot = mb_skeleton_name(d->skeleton, rr);
    return 1;
}

mb_status cli_prepare_clips(mb_prepare_desc *d, int n, int together, mb_prepared_clip **out,
                            mb_error *e)
{
    mb_status st = prepare_all(d, n, together, out, e);
    if (st != MB_OK)
        return st;
    /* names first (the analysis's own rule, as every command used before roles existed),
     * the roles where names give nothing: one more preparation, for those skeletons only */
    int again = 0;
    for (int i = 0; i < n; ++i)
        if (!d[i].left_foot && !d[i].right_foot && !feet_by_name(mb_prepared_clip_info(out[i])))
            again |= feet_from_roles(&d[i]);
    if (!again)
        return MB_OK;
    for (int i = 0; i < n; ++i) {
        mb_prepared_clip_destroy(out[i]);
        out[i] = NULL;
    }
    return prepare_all(d, n, together, out, e);
}

int cli_prepare_pair(const char *const paths[2], cli_clip src[2], mb_axis up,
                     mb_motion_info info[2], mb_error *e)
{
    mb_prepare_desc d[2];
    memset(d, 0, sizeof d);
    for (int i = 0; i < 2; ++i) {
        d[i].skeleton = src[i].s;
        d[i].clip = src[i].c;
        d[i].source = paths[i];
    }
    d[0].up_axis = up != MB_AXIS_DETECT ? up : src[0].up_axis;
    mb_prepared_clip *p[2];
    if (cli_prepare_clips(d, 2, 1, p, e) != MB_OK) {
        cli_print_error(e);
        return CLI_EXIT_INPUT;
    }
    for (int i = 0; i < 2; ++i) {
        info[i] = mb_prepared_clip_info(p[i])->motion;
        src[i].prep = p[i];
    }
    return CLI_EXIT_OK;
}
