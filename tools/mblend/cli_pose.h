/* Poses the commands share: world matrices of a frame, a prepared pair of clips. */
#ifndef CLI_POSE_H
#define CLI_POSE_H

#include "cli_load.h"

/* World matrices of one frame (frame < 0: the rest pose) into world (joint_count entries),
 * using pose (joint_count entries) as scratch. Returns the library status. */
mb_status cli_frame_world(const mb_skeleton *s, const mb_clip *c, int frame, mb_xform *pose,
                          float (*world)[16]);
/* A and B of a transition or match search, prepared by the library into src[i].prep (B on
 * A's up axis; up given by --up, else the loader's), their analyses copied into info.
 * Errors are printed: CLI_EXIT_OK or CLI_EXIT_INPUT. */
int cli_prepare_pair(const char *const paths[2], cli_clip src[2], mb_axis up,
                     mb_motion_info info[2], mb_error *e);

#endif
