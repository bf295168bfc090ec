/* mblend/runtime/controller.h: the runtime controller for game AI state machines.
 *
 * Two objects:
 * - mb_state_set: immutable, built once (offline/state_set.h: mb_state_set_create) from a
 *   skeleton and a list of states; read and destroyed here. A state is
 *   a clip (looping over one cycle, or played once) or a 1D blend space: looping clips
 *   placed on a parameter axis (e.g. speed: walk at 140 cm/s, run at 350 cm/s), blended
 *   in phase with weights from the parameter. Building it analyses the clips and
 *   precomputes their root paths; it can be shared by any number of controllers on any
 *   number of threads.
 * - mb_controller: the per-character playback state. mb_controller_update(dt) advances
 *   it and returns the local pose "in place" plus the root motion of the step, so the AI
 *   moves the character. Requests switch states by cross-fade (optionally in phase) or by
 *   inertialization; a request during a transition starts from wherever the character
 *   is, without a pop.
 *
 * In place: the root joint (mb_state_set_root) is put at the origin horizontally with
 * its heading removed. The heading is the way the hips face: perpendicular to the line
 * from the right to the left hip joint, on the ground (the root's twist about up when
 * the feet are unknown), averaged over a gait cycle (for clips played once without a
 * cycle: over 1 s), so the sway of the hips stays in the pose and the path stays smooth.
 * Heading 0 faces the axis after up: +Z for Y-up files (+X for Z up, +Y for X up). The
 * root's height and the other joints are unchanged. To place the character in the world,
 * apply its world transform (position on the ground plane, heading about up) to the root.
 *
 * Threads and determinism: mb_controller_update never allocates, uses no globals and
 * touches only its controller (the shared state set is read only), so controllers may run
 * on separate threads. The same calls give bit-identical poses. To update many characters in
 * one call, on the caller's threads or on a pool, see "many characters" below. */
#ifndef MBLEND_RUNTIME_CONTROLLER_H
#define MBLEND_RUNTIME_CONTROLLER_H

#include "anim.h"
#include "transition.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MB_STATE_MAX_CLIPS 16        /* clips in one blend space */
#define MB_STATE_MAX_STATES 1024     /* states in one set */
#define MB_CONTROLLER_MAX_TRACKS 16  /* states playing at once during cross-fades */

typedef struct mb_state_set mb_state_set;

MB_API void mb_state_set_destroy(mb_state_set *s); /* NULL is a no-op */

MB_API int mb_state_set_count(const mb_state_set *s);
/* Index of the state with that name, or -1. */
MB_API int mb_state_set_find(const mb_state_set *s, const char *name);
/* The set's up axis (MB_AXIS_X, _Y or _Z; MB_AXIS_Y for NULL) and root joint. */
MB_API mb_axis mb_state_set_up_axis(const mb_state_set *s);
MB_API int mb_state_set_root(const mb_state_set *s);
/* Seconds of one cycle of a state at a parameter value (played-once states: their
 * duration); a negative value for a bad state index. */
MB_API double mb_state_set_cycle_duration(const mb_state_set *s, int state, float param);

/* Root motion of one update, in the character's frame at the start of the step (its
 * heading-0 axes, see above): the horizontal translation (the up component is 0) and the
 * heading change about the up axis (radians, right-handed: for Y up, a positive turn
 * takes +Z towards +X). To move the character: position += rotate(heading, translation);
 * heading += heading_delta. */
typedef struct mb_root_motion {
    float translation[3];
    float heading;
} mb_root_motion;

typedef struct mb_controller_desc {
    const mb_state_set *states;  /* borrowed: must outlive the controller */
    int initial_state;
    float initial_phase;         /* normalised start position in the initial state, [0, 1] */
    /* States playing at once (a cross-fade requested during a cross-fade adds one). When
     * a request needs more, the lightest is dropped and its share is carried over by an
     * inertialization, so nothing pops. 0: 4; 2..MB_CONTROLLER_MAX_TRACKS. */
    int max_tracks;
    mb_allocator allocator;
} mb_controller_desc;

typedef struct mb_controller mb_controller;

/* Creates a controller playing initial_state (allocates all it will ever need, so the
 * per-frame calls below return a status only). Fails (err says why, source "controller")
 * with MB_INVALID_ARG for a bad desc, MB_NOMEM. */
MB_API mb_status mb_controller_create(const mb_controller_desc *d, mb_controller **out,
                                      mb_error *err);
MB_API void mb_controller_destroy(mb_controller *c); /* NULL is a no-op */

/* Requests a transition to state (t NULL: a cut). Taking effect at the next update:
 * - cross-fade: the state's weight ramps to 1 over t->duration while all others fade
 *   out in proportion to their current weights (a request during a cross-fade starts
 *   from the current mix; requesting a state that is still fading out ramps it back up
 *   from its weight, in its own phase);
 * - inertialization: the state plays at once and the difference between the last
 *   output pose (with its velocity) and the state decays to zero within t->duration.
 * Requesting the state already playing alone, or the target of the running cross-fade,
 * changes nothing. MB_INVALID_ARG for a bad state or desc. */
MB_API mb_status mb_controller_request(mb_controller *c, int state, const mb_transition_desc *t);

/* Sets a state's blend-space parameter (the weights follow at the next update; the phase
 * is kept, so the blend stays in step). Values outside the clips' params clamp to the
 * nearest end. MB_INVALID_ARG for a bad state or a non-finite value. */
MB_API mb_status mb_controller_set_param(mb_controller *c, int state, float value);

/* The longest step mb_controller_update takes, seconds: longer ones are an error rather
 * than root motion that overflows float (an hour is far beyond any frame or pause). */
#define MB_CONTROLLER_MAX_DT 3600.0

/* Advances by dt seconds (0 <= dt <= MB_CONTROLLER_MAX_DT; 0 re-evaluates the current pose
 * without moving)
 * and writes the local pose (out.count at least the skeleton's joint count; entries past it
 * are left as they are) and the root
 * motion of this step (nullable). Never allocates. MB_INVALID_ARG for a bad dt or pose,
 * MB_TOO_SMALL for a short pose, MB_NUMERIC if a blend fails (non-finite data). */
MB_API mb_status mb_controller_update(mb_controller *c, float dt, mb_pose out,
                                      mb_root_motion *out_delta);

/* Restarts in one state at a normalised position, with no transition and no history. */
MB_API mb_status mb_controller_reset(mb_controller *c, int state, float phase);

typedef struct mb_controller_status {
    int state;               /* the current state (the target of a running transition) */
    int transitioning;       /* non-zero while a cross-fade or inertialization runs */
    float progress;          /* share of the running cross-fade's duration elapsed, in
                                [0, 1] (inertialization: of its duration); 1 when none */
    double phase;            /* gait phase of the current state, [0, 1); a played-once
                                state without a gait cycle reports its normalised time
                                instead, which reaches 1 when it has finished */
    double time;             /* seconds into the current state's range (looping: phase x
                                cycle duration at the current parameter) */
    int finished;            /* a played-once current state has reached its end */
    int tracks;              /* states playing */
} mb_controller_status;

/* The state of the controller after the last update (or request). */
MB_API mb_status mb_controller_get_status(const mb_controller *c, mb_controller_status *out);

/* Blend weight of every state (the state set's count entries; states not playing get 0;
 * they sum to 1). MB_TOO_SMALL when count is below the state count. */
MB_API mb_status mb_controller_state_weights(const mb_controller *c, float *out, int count);

/* ======================================================================= many characters
 *
 * A game updates every character each frame. mb_controller_update_range updates a range of
 * a batch of controllers on the calling thread, so a game's own job system splits a batch
 * into ranges and runs them on its workers; mb_controller_pool_update does the same on a
 * small pool of threads the library owns.
 *
 * Determinism: a character's pose, root motion and status depend only on its own calls
 * (its controller, dt and state set), never on the thread count, on how the batch was split
 * or on the other characters: both entry points give bit-identical results to calling
 * mb_controller_update on each character in turn (tests/lib/test_crowd.c checks this
 * bitwise). The pool's threads run in the floating-point environment (rounding mode, and
 * MXCSR's flush-to-zero bits on x86) of the thread calling mb_controller_pool_update.
 *
 * A batch must not name one controller twice, and the output poses must not overlap
 * (distinct characters write distinct memory: that is what makes the split free). */
typedef struct mb_controller_batch {
    mb_controller *const *controllers; /* count characters (a NULL entry is that
                                          character's MB_INVALID_ARG) */
    const mb_pose *poses;              /* count outputs, one per character */
    mb_root_motion *deltas;            /* nullable, else count root motions */
    mb_status *statuses;               /* nullable, else count per-character statuses */
    int count;
    float dt;                          /* the step for all, as in mb_controller_update */
} mb_controller_batch;

/* Updates characters [first, first + count) of b by b->dt, in order, on the calling thread
 * (ranges that do not overlap may run on different threads at once). Never allocates.
 * MB_INVALID_ARG, with nothing updated, for a NULL batch, controllers or poses, a
 * range outside [0, b->count) or a bad dt. Otherwise every character in the range is
 * updated even when one fails, and the result is MB_OK, or the status of the first
 * failing character (lowest index; b->statuses, when given, has each one's). */
MB_API mb_status mb_controller_update_range(const mb_controller_batch *b, int first, int count);

/* A pool of threads for mb_controller_pool_update: created once (it starts threads - 1
 * threads that sleep between frames; the calling thread is the last one), destroyed at
 * shutdown. A frame allocates nothing: the pool hands out chunks of
 * MB_CONTROLLER_POOL_CHUNK characters to whichever thread asks next (the caller included),
 * so a thread that the OS delays costs at most the chunk it holds. */
#define MB_CONTROLLER_POOL_MAX_THREADS 64
#define MB_CONTROLLER_POOL_CHUNK 16

typedef struct mb_controller_pool_desc {
    int threads;             /* threads working on a batch, the caller's included:
                                1..MB_CONTROLLER_POOL_MAX_THREADS (1: no thread is started) */
    mb_allocator allocator;
} mb_controller_pool_desc;

typedef struct mb_controller_pool mb_controller_pool;

/* Fails (err says why, source "controller pool") with MB_INVALID_ARG for a bad desc,
 * MB_NOMEM, or MB_IO when a thread cannot be started. */
MB_API mb_status mb_controller_pool_create(const mb_controller_pool_desc *d, mb_controller_pool **out,
                                           mb_error *err);
/* Stops and joins the threads. Not during an mb_controller_pool_update. NULL is a no-op. */
MB_API void mb_controller_pool_destroy(mb_controller_pool *p);
/* Threads working on a batch (the desc's threads); 0 for NULL. */
MB_API int mb_controller_pool_threads(const mb_controller_pool *p);

/* Updates all b->count characters of b on the pool's threads and returns when all are
 * done; the result is what mb_controller_update_range(b, 0, b->count) would return, and
 * the poses, root motions and statuses are the same bits. Batches of at most
 * MB_CONTROLLER_POOL_CHUNK characters run on the caller alone. One call at a time per pool:
 * a call made while another is sharing out its batch returns MB_INVALID_ARG and updates
 * nothing. Never allocates. When its own chunks are done, the caller spins for up to about
 * 100 us on the others' last chunks before it sleeps. */
MB_API mb_status mb_controller_pool_update(mb_controller_pool *p, const mb_controller_batch *b);

#ifdef __cplusplus
}
#endif
#endif
