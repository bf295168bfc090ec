/* mb_blend_rotations_run: the blend job over plain quaternion arrays (mblend/runtime/blend.h).
 * Sets are staged as poses in blocks and handed to mb_blend_run, so the result is the job's
 * own, bit for bit; the staging copy is small next to the blend itself (see
 * tools/bench/bench_python.py). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "mblend/offline/blend_rotations.h"

enum { BLOCK = 256 }; /* sets per staged block: (layers + 1) * 7 KB, within L2 */

static const char src_name[] = "blend_rotations";

static mb_status check_shape(const mb_blend_rotations_desc *d, mb_error *err)
{
    if (!d || !d->rotations || !d->weights || (!d->out && d->count > 0))
        return mb_error_set_(err, MB_INVALID_ARG, src_name, "NULL desc, rotations, weights or "
                             "out");
    if (d->layer_count < 1 || d->layer_count > MB_BLEND_MAX_LAYERS)
        return mb_error_set_(err, MB_INVALID_ARG, src_name, "%d inputs per set: 1 to %d are "
                             "blended", d->layer_count, MB_BLEND_MAX_LAYERS);
    if (d->count < 0)
        return mb_error_set_(err, MB_INVALID_ARG, src_name, "negative set count %d", d->count);
    if (!mb_blend_method_name(d->method))
        return mb_error_set_(err, MB_INVALID_ARG, src_name, "unknown blend method %d",
                             (int)d->method);
    return MB_OK;
}

/* Every weight finite and >= 0, every set's total > 0. */
static mb_status check_weights(const mb_blend_rotations_desc *d, mb_error *err)
{
    int k = d->layer_count, per = d->per_set_weights ? d->count : 1;
    for (int l = 0; l < k; ++l)
        for (int i = 0; i < per; ++i) {
            float w = d->weights[(size_t)l * (size_t)per + (size_t)i];
            if (!(w >= 0.0f) || isinf(w))
                return mb_error_set_(err, MB_INVALID_ARG, src_name, "weight of input %d (set "
                                     "%d) is %g: weights are finite and >= 0", l,
                                     d->per_set_weights ? i : 0, (double)w);
        }
    for (int i = 0; i < per && d->count > 0; ++i) {
        double total = 0.0;
        for (int l = 0; l < k; ++l)
            total += d->weights[(size_t)l * (size_t)per + (size_t)i];
        if (!(total > 0.0))
            return mb_error_set_(err, MB_INVALID_ARG, src_name, "the weights of set %d sum to "
                                 "0", i);
    }
    return MB_OK;
}

/* Names the first quaternion that is not finite and non-zero. */
static mb_status report_bad_rotation(const mb_blend_rotations_desc *d, size_t n, mb_error *err)
{
    for (size_t i = 0; i < n; ++i) {
        const float *q = d->rotations + 4 * i;
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]) || !isfinite(q[3]) ||
            (q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 0.0f))
            return mb_error_set_(err, MB_NUMERIC, src_name, "input %zu of set %zu is (%g, %g, "
                                 "%g, %g): quaternions are finite and not zero",
                                 i / (size_t)d->count, i % (size_t)d->count, (double)q[0],
                                 (double)q[1], (double)q[2], (double)q[3]);
    }
    return MB_OK;
}

/* Every quaternion finite and non-zero, tested as one branch-free pass the compiler
 * vectorises (|q|^2 is NaN for a NaN component, infinite for an infinite one; a finite q
 * whose |q|^2 overflows float is refused too, as mb_blend_run refuses it); the slow scan
 * that names the culprit runs only when the pass fails. */
static mb_status check_rotations(const mb_blend_rotations_desc *d, mb_error *err)
{
    size_t n = (size_t)d->layer_count * (size_t)d->count;
    const float *q = d->rotations;
    int bad = 0;
    for (size_t i = 0; i < n; ++i) {
        float n2 = q[4 * i] * q[4 * i] + q[4 * i + 1] * q[4 * i + 1] +
                   q[4 * i + 2] * q[4 * i + 2] + q[4 * i + 3] * q[4 * i + 3];
        bad |= !(n2 > 0.0f) | !(n2 <= FLT_MAX);
    }
    if (!bad)
        return MB_OK;
    mb_status st = report_bad_rotation(d, n, err);
    return st != MB_OK ? st : mb_error_set_(err, MB_NUMERIC, src_name, "a quaternion's squared "
                                            "norm overflows float");
}

typedef struct stage {
    mb_xform *poses;  /* [layers + 1][BLOCK]: the inputs, then the output */
    float *masks;     /* [layers][BLOCK] with per-set weights */
    mb_pose pose[MB_BLEND_MAX_LAYERS + 1];
    mb_blend_layer layer[MB_BLEND_MAX_LAYERS];
} stage;

/* Blends sets [first, first + n) through the staged poses. */
static mb_status run_block(const mb_blend_rotations_desc *d, stage *s, int first, int n,
                           int *low_gap)
{
    int k = d->layer_count;
    for (int l = 0; l <= k; ++l)
        s->pose[l].count = n;
    for (int l = 0; l < k; ++l) {
        const float *q = d->rotations + 4 * ((size_t)l * (size_t)d->count + (size_t)first);
        mb_xform *x = s->poses + (size_t)l * BLOCK;
        for (int i = 0; i < n; ++i)
            memcpy(x[i].rot, q + 4 * i, sizeof x[i].rot);
        if (d->per_set_weights)
            memcpy(s->masks + (size_t)l * BLOCK,
                   d->weights + (size_t)l * (size_t)d->count + (size_t)first,
                   (size_t)n * sizeof(float));
    }
    mb_blend_diag diag = {d->eigen_gap ? d->eigen_gap + first : NULL,
                          d->max_angle ? d->max_angle + first : NULL, n, 0};
    mb_blend_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.layers = s->layer;
    bd.layer_count = k;
    bd.method = d->method;
    bd.solver = d->solver;
    bd.gap_threshold = d->gap_threshold;
    bd.out = s->pose[k];
    bd.diag = d->eigen_gap || d->max_angle ? &diag : NULL;
    mb_status st = mb_blend_run(&bd);
    const mb_xform *o = s->poses + (size_t)k * BLOCK;
    for (int i = 0; st == MB_OK && i < n; ++i)
        memcpy(d->out + 4 * ((size_t)first + (size_t)i), o[i].rot, sizeof o[i].rot);
    *low_gap += diag.low_gap_joints;
    return st;
}

static void stage_init(const mb_blend_rotations_desc *d, stage *s)
{
    int k = d->layer_count;
    memset(s->poses, 0, (size_t)(k + 1) * BLOCK * sizeof *s->poses); /* translations 0 */
    for (int l = 0; l <= k; ++l)
        s->pose[l].joints = s->poses + (size_t)l * BLOCK;
    for (int l = 0; l < k; ++l) {
        s->layer[l].pose = &s->pose[l];
        s->layer[l].weight = d->per_set_weights ? 1.0f : d->weights[l];
        s->layer[l].joint_weights = d->per_set_weights ? s->masks + (size_t)l * BLOCK : NULL;
    }
}

mb_status mb_blend_rotations_run(mb_blend_rotations_desc *d, mb_error *err)
{
    mb_error_clear_(err);
    mb_status st = check_shape(d, err);
    if (st == MB_OK)
        st = check_weights(d, err);
    if (st == MB_OK)
        st = check_rotations(d, err);
    if (st != MB_OK)
        return st;
    d->low_gap_sets = 0;
    if (d->count == 0)
        return MB_OK;
    stage s;
    size_t k = (size_t)d->layer_count;
    s.poses = malloc((k + 1) * BLOCK * sizeof *s.poses);
    s.masks = d->per_set_weights ? malloc(k * BLOCK * sizeof *s.masks) : NULL;
    if (!s.poses || (d->per_set_weights && !s.masks)) {
        free(s.poses);
        free(s.masks);
        return mb_error_set_(err, MB_NOMEM, src_name, "out of memory for the staging block");
    }
    stage_init(d, &s);
    int low = 0;
    for (int first = 0; st == MB_OK && first < d->count; first += BLOCK)
        st = run_block(d, &s, first, d->count - first < BLOCK ? d->count - first : BLOCK, &low);
    free(s.poses);
    free(s.masks);
    d->low_gap_sets = low;
    if (st != MB_OK)
        return mb_error_set_(err, st, src_name, "the blend job failed: %s", mb_status_str(st));
    return MB_OK;
}
