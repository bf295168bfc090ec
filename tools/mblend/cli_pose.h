/* Poses the commands share: world matrices of a frame, prepared clips and their feet. */
#ifndef CLI_POSE_H
#define CLI_POSE_H

#include "cli_load.h"

/* World matrices of one frame (frame < 0: the rest pose) into world (joint_count entries),
 * using pose (joint_count entries) as scratch. Returns the library status. */
mb_status cli_frame_world(const mb_skeleton *s, const mb_clip *c, int frame, mb_xform *pose,
                          float (*world)[16]);
/* The library's preparation (mb_prepare_desc) of n clips with the CLI's one foot policy:
 * the feet d[i] names (--feet) when given; else the analysis's, found by joint name
 * ("LeftFoot", "Foot_L", "l_ankle"); where names give nothing (the analysis found no feet,
 * or fell back on the lowest End Sites, which are toe tips) the joints with the roles
 * foot_l and foot_r (mb_roles_find: CesiumMan's leg_joint_L_3), when the skeleton has
 * both; else the analysis's fallback stands. together: as mb_clips_prepare (clips that
 * play on one character: the later ones on clip 0's up axis); else one by one
 * (mb_clip_prepare). out[0..n-1] are new prepared clips on MB_OK, all NULL otherwise (e
 * filled, not printed). d[i].left_foot/right_foot may be set to skeleton names. */
mb_status cli_prepare_clips(mb_prepare_desc *d, int n, int together, mb_prepared_clip **out,
                            mb_error *e);
/* A and B of a transition or match search, prepared by the library into src[i].prep (B on
 * A's up axis; up given by --up, else the loader's; feet as cli_prepare_clips finds them),
 * their analyses copied into info.
 * Errors are printed: CLI_EXIT_OK or CLI_EXIT_INPUT. */
int cli_prepare_pair(const char *const paths[2], cli_clip src[2], mb_axis up,
                     mb_motion_info info[2], mb_error *e);

#endif
