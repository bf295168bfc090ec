/* mblend/offline/match.h: transition-point search (mb_match_find): the frame pairs (a, b)
 * whose windows of joint positions are closest after the 2D alignment of Kovar and
 * Gleicher ("Motion Graphs", SIGGRAPH 2002), all pairs at once through BLAS (sgemm or
 * dgemm). Works on whole clips and allocates. Times are seconds, lengths file units. */
#ifndef MBLEND_OFFLINE_MATCH_H
#define MBLEND_OFFLINE_MATCH_H

#include "motion.h"
#include "prepare.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mb_match_desc {
    const mb_skeleton *skeleton_a, *skeleton_b;
    const mb_clip *a, *b;
    const mb_motion_info *info_a, *info_b; /* NULL: analysed here (root, up axis, first frame) */
    /* The compared window: `window` seconds of motion from each frame (0: 0.25 s), seen
     * as window_samples poses (0: 8; 1 compares single poses). Pairs (a, b) are scored
     * over A[a, a + window] against B[b, b + window], so a transition that starts at
     * A's frame a and B's frame b blends poses that match. */
    double window;
    int window_samples;
    /* Time ranges in seconds (file time) in which a and b may lie; to == 0 means to the
     * end. Frames before info.first_frame are always skipped. */
    double a_from, a_to, b_from, b_to;
    int use_double;          /* non-zero: dgemm (default sgemm) */
    /* Reported pairs are local minima of the cost over (a, b) and lie at least this many
     * frames apart in a or in b (0: 0.1 s worth of A's frames). */
    int min_separation;
    /* Prepared A and B (mblend/offline/prepare.h; nullable): when given, the prepared clip's
     * skeleton, clip and analysis stand for that side's fields above. */
    const mb_prepared_clip *prepared_a, *prepared_b;
} mb_match_desc;

typedef struct mb_match_pair {
    int a, b;                /* frames of A and B */
    float cost;              /* root-mean-square distance of the aligned joint positions,
                                file units */
    /* The 2D alignment that carries B's window onto A's: rotate B by theta about the up
     * axis (right-handed), then translate horizontally by (dx, dz) in the two horizontal
     * axes (in axis order: for Y up, X then Z). */
    float theta, dx, dz;
} mb_match_pair;

typedef struct mb_match_stats {
    double total_seconds;    /* wall time of mb_match_find */
    double blas_seconds;     /* of which inside sgemm / dgemm */
    double pairs;            /* (a, b) pairs scored */
    int points;              /* joints x window samples per window */
} mb_match_stats;

/* Finds the best transition points from A to B: up to capacity pairs, best first, in
 * out; *out_count receives how many were found. Joints outside the root's subtree (a
 * static dummy above the root) are ignored. Costs are computed for all pairs with BLAS
 * in blocks (memory stays bounded) and the reported pairs are recomputed in double.
 * stats (nullable) receives timings. MB_INVALID_ARG for bad arguments or ranges without
 * room for a window, MB_MISMATCH for skeletons of different topology, MB_NOMEM. */
MB_API mb_status mb_match_find(const mb_match_desc *d, mb_match_pair *out, int capacity,
                               int *out_count, mb_match_stats *stats, mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
