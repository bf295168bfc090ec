/* Poses shared by the commands: world matrices of a frame, a prepared pair of clips. */
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
    if (mb_clips_prepare(d, 2, p, e) != MB_OK) {
        cli_print_error(e);
        return CLI_EXIT_INPUT;
    }
    for (int i = 0; i < 2; ++i) {
        info[i] = mb_prepared_clip_info(p[i])->motion;
        src[i].prep = p[i];
    }
    return CLI_EXIT_OK;
}
