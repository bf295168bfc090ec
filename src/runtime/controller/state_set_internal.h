/* Private: the state set's layout, shared by its offline build (src/offline/motion/
 * state_set.c, mb_state_set_create) and the per-frame controller that reads it
 * (controller.c). */
#ifndef MB_STATE_SET_INTERNAL_H
#define MB_STATE_SET_INTERNAL_H

#include "mblend/runtime/controller.h"

typedef struct set_clip {
    const mb_clip *clip;
    int f0, f1;          /* frames played, inclusive; looping: f1 continues f0 */
    double ft, dur;      /* frame time; dur = (f1 - f0) * ft */
    double cyc0, cyclen; /* played once: gait cycle, seconds from f0; cyclen 0: none */
    float param;
    double *track;       /* (f1 - f0 + 1) x {x, y, z, averaged heading} */
    mb_wrap wrap;        /* MB_WRAP_LOOP when f1 is the frame count: a loop whose last frame
                            runs on into frame 0 (MB_LOOP_RUNS_ON), frame f1 being frame 0 */
} set_clip;

typedef struct set_state {
    char name[64];
    int loop;
    int first, count;    /* clips */
    float param;
} set_state;

struct mb_state_set {
    mb_allocator alloc;
    const mb_skeleton *skel;
    const int *parents;
    int nj, up, root, root_parent; /* up: the index of axis */
    mb_axis axis;                  /* the up axis */
    int hip[2];          /* left and right hip joints for the facing; -1: root twist */
    int nstates, nclips;
    set_state *states;
    set_clip *clips;
};

#endif
