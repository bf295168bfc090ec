/* Private: the controller's double-precision entry points, for the offline builder. */
#ifndef MB_CONTROLLER_INTERNAL_H
#define MB_CONTROLLER_INTERNAL_H

#include "mblend/runtime/controller.h"

/* mb_controller_update with a double dt and the root motion in double:
 * out_delta = {x, y, z, heading change} in the character's frame (nullable);
 * out_offset_angle (nullable) = the largest inertialization rotation offset left. */
mb_status mb_controller_update_ex_(mb_controller *c, double dt, mb_pose out, double out_delta[4],
                                   double *out_offset_angle);

/* mb_controller_request with the target's start position in double: u_given in [0, 1]
 * replaces t->start_phase; a negative u_given keeps t->start_phase. */
mb_status mb_controller_request_ex_(mb_controller *c, int state, const mb_transition_desc *t, double u_given);

/* Seconds into the state's clip (file time, frame 0 = 0 s) where a played-once state's
 * track stands; -1 when the state is not playing or loops. */
double mb_controller_clip_time_(const mb_controller *c, int state);

#endif
