/* mblend/offline/blend_rotations.h: the blend job's method on many independent rotation sets
 * (offline, research): numpy arrays from the Python package, datasets. */
#ifndef MBLEND_OFFLINE_BLEND_ROTATIONS_H
#define MBLEND_OFFLINE_BLEND_ROTATIONS_H

#include "../runtime/blend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same method on plain arrays: count independent sets of layer_count unit quaternions,
 * for callers whose data is not poses (numpy arrays from the Python package, datasets). */
typedef struct mb_blend_rotations_desc {
    const float *rotations;   /* [layer_count][count][4], x, y, z, w; finite, |q| > 0 */
    /* layer_count weights, or with per_set_weights [layer_count][count]; finite, >= 0, and
     * every set's total > 0 */
    const float *weights;
    int per_set_weights;
    int layer_count;          /* 1..MB_BLEND_MAX_LAYERS */
    int count;                /* sets, >= 0 */
    mb_blend_method method;
    mb_eigen_solver solver;
    float gap_threshold;      /* as in mb_blend_desc */
    float *out;               /* [count][4]; may be exactly rotations (layer 0's block) */
    float *eigen_gap;         /* optional [count] (exact, from LAPACKE: slower) */
    float *max_angle;         /* optional [count] radians */
    int low_gap_sets;         /* out: sets whose gap was below the threshold */
} mb_blend_rotations_desc;

/* Blends every set as mb_blend_run blends a joint (bit for bit the same result). Everything
 * is checked before anything is written: MB_INVALID_ARG for NULL arrays, counts out of
 * range, a negative, NaN or infinite weight or a set whose weights sum to 0; MB_NUMERIC for a
 * non-finite or zero quaternion; err (nullable, cleared first) names the layer and set.
 * MB_NOMEM: it stages sets in blocks of 256 (one allocation per call). Thread-safe for
 * distinct outputs. */
MB_API mb_status mb_blend_rotations_run(mb_blend_rotations_desc *d, mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
