/* mblend/runtime/transition.h: how a transition runs (mb_transition_desc): a cross-fade
 * (the log/exp blend with a weight ramp, optionally in phase) or an inertialization (the
 * target plays at once and the offset to the source pose decays to zero within the
 * duration: Bollo, "Inertialization: High-Performance Animation Transitions in Gears of
 * War", GDC 2018; the quintic decay there, with the source's velocity carried into the
 * offset). Used by the runtime controller (runtime/controller.h) and by the offline
 * builder (offline/transition_build.h). Plain data: nothing here allocates or fails.
 * Times are seconds. */
#ifndef MBLEND_RUNTIME_TRANSITION_H
#define MBLEND_RUNTIME_TRANSITION_H

#include "../base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mb_transition_mode {
    MB_TRANSITION_CROSSFADE = 0, /* blend source and target with a weight ramp (default) */
    MB_TRANSITION_INERTIALIZE    /* target at once; the offset to the source decays */
} mb_transition_mode;

typedef enum mb_fade_curve {
    MB_CURVE_SMOOTHSTEP = 0, /* w = 3 s^2 - 2 s^3 of the elapsed share s (default) */
    MB_CURVE_LINEAR          /* w = s */
} mb_fade_curve;

/* How to go to a new state or clip. A zeroed struct is a cut (duration 0). */
typedef struct mb_transition_desc {
    float duration;          /* seconds, finite, >= 0; 0 switches at once */
    mb_transition_mode mode;
    mb_fade_curve curve;     /* cross-fades only */
    /* Non-zero: the target starts at the gait phase the source is at, and during a
     * cross-fade all playing clips advance by the same phase step, the cycle duration
     * interpolated with the weights (Kovar and Gleicher's registration, reduced to a
     * linear time warp per cycle). Cycles come from looping states or from the cycle
     * given for a one-shot clip; without one, the phase is the normalised time. */
    int sync;
    /* Where the target starts: normalised position in [0, 1] over its range (a looping
     * state: the phase in its cycle). With sync (unless sync_keep_start) the target
     * starts at the source's gait phase instead; for a played-once target with a cycle,
     * at the time with that phase nearest to start_phase. */
    float start_phase;
    /* With sync: start at start_phase anyway and only advance in phase. For a start
     * chosen by pose matching (mb_match_find), which already lines the gaits up and
     * keeps the feet better than touchdown-based phases when the gaits' stance shares
     * differ (a run's stance is about a third of its cycle, a walk's about 60%). */
    int sync_keep_start;
} mb_transition_desc;

#ifdef __cplusplus
}
#endif
#endif
