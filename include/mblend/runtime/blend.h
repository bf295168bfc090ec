/* mblend/runtime/blend.h: the N-way pose blend job.
 *
 * For each joint, with inputs q_i and normalised weights w_i (DESIGN.md, "The method"):
 *   1. q_ref = top eigenvector of M = sum w_i q_i q_i^T (sign-invariant, order-independent);
 *   2. v_i = log(q_ref^-1 q_i), taking -q_i where q_ref . q_i < 0 (short arc);
 *   3. v = sum w_i v_i;   4. q = q_ref exp(v).
 * Translations are the weighted sum. Nothing allocates; the job owns nothing (but see
 * mb_blend_prepare: the exact solver's first use in a process lets OpenBLAS map its
 * buffers).
 * The result jumps (by 2 w_i pi) where an input is half a turn from q_ref (q_ref . q_i = 0):
 * the fast solver hands such joints to the exact path, so both modes agree there.
 *
 * Threads: mb_blend_run, mb_blend_job_run and mb_blend_rotations_run
 * (offline/blend_rotations.h) keep no state between calls and touch only their desc's
 * buffers, so any number of threads may run them at once on distinct outputs (inputs may
 * be shared read-only). The SIMD kernel is chosen once per process
 * (src/base/cpu.c) and the exact path's LAPACKE calls are reentrant; call mb_blend_prepare
 * once before starting threads so OpenBLAS's one-time set-up does not happen inside a
 * frame. */
#ifndef MBLEND_RUNTIME_BLEND_H
#define MBLEND_RUNTIME_BLEND_H

#include "../base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MB_BLEND_MAX_LAYERS 64
/* The default relative eigen-gap ((lambda_1 - lambda_2) / lambda_1 of M) below which a
 * joint's reference quaternion counts as ill-defined (mb_blend_desc.gap_threshold). */
#define MB_BLEND_GAP_THRESHOLD 1e-3f

typedef enum mb_blend_method {
    MB_BLEND_LOGEXP = 0, /* the method above (default) */
    MB_BLEND_NLERP,      /* running weighted sum, each input's sign fixed against the
                            accumulator, then normalised: what most engines ship; depends
                            on input order and sign when inputs are far apart. Runs on the
                            SIMD kernels (no reference, no log/exp) unless a diagnostic is
                            asked for: diag->max_angle (the tangent angles) and
                            diag->eigen_gap take the scalar double path */
    MB_BLEND_KARCHER     /* iterated geodesic (Karcher) mean: logexp repeated from its own
                            result until the tangent mean vanishes (< 1e-7 rad, <= 32 steps) */
} mb_blend_method;

typedef enum mb_eigen_solver {
    MB_EIGEN_AUTO = 0,   /* fast solver, LAPACKE where the gap is small */
    MB_EIGEN_LAPACKE,    /* always LAPACK dsyev (exact mode, about 1 us per joint) */
    MB_EIGEN_FAST        /* same as AUTO (the fallback is part of the fast solver) */
} mb_eigen_solver;

/* One input: a pose and its weight, optionally scaled per joint by a mask. */
typedef struct mb_blend_layer {
    const mb_pose *pose;         /* count must equal out.count */
    float weight;                /* finite, >= 0 */
    const float *joint_weights;  /* optional mask, pose->count values, finite, >= 0 */
} mb_blend_layer;

/* Optional per-joint diagnostics (caller-owned arrays of count >= out.count; any may
 * be NULL). Filling eigen_gap makes every joint's reference come from LAPACKE so the
 * reported gap is exact. */
typedef struct mb_blend_diag {
    float *eigen_gap;   /* (lambda_1 - lambda_2) / lambda_1 of M, in [0, 1] */
    float *max_angle;   /* largest |v_i| (radians): how far the inputs spread */
    int count;
    int low_gap_joints; /* out: joints whose gap was below the threshold */
} mb_blend_diag;

typedef struct mb_blend_desc {
    const mb_blend_layer *layers;
    int layer_count;             /* 1..MB_BLEND_MAX_LAYERS */
    mb_blend_method method;
    mb_eigen_solver solver;
    /* Relative eigen-gap below which the reference is considered ill-defined: the joint
     * then uses the exact LAPACKE path and is counted in diag->low_gap_joints.
     * 0 means the default, MB_BLEND_GAP_THRESHOLD. */
    float gap_threshold;
    mb_pose out;                 /* may be exactly the memory of any input pose */
    mb_blend_diag *diag;         /* optional */
} mb_blend_desc;

/* Runs the blend. Validates everything before writing: MB_INVALID_ARG for NULL views,
 * layer_count out of range, mismatched counts, a negative, NaN or infinite weight or
 * mask value, a zero weight total, an unknown method; MB_TOO_SMALL for short diag
 * arrays; MB_NUMERIC for non-finite pose values or a rotation with |q|^2 == 0 in float
 * (every layer's values are checked, weight 0 or not). These argument errors are reported
 * before any value error. On a validation error nothing is written (out and diag are left
 * as they were). Weights are normalised per joint; a
 * joint whose masked weights are all zero takes layer 0's transform unchanged.
 * Deterministic: the same inputs in the same order give bit-identical output on one
 * machine (the SIMD kernel is picked at run time, so AVX-512, AVX2 and SSE2 machines may
 * differ in the last float bits: within 1e-6 per component for nlerp, 1e-5 rad for logexp
 * as the tests check). Output quaternions are unit to about 3e-7. */
MB_API mb_status mb_blend_run(const mb_blend_desc *d);

/* A blend job validated once and run per frame without the per-call checks of mb_blend_run
 * (counts, pointers, method, solver, threshold, mask values, diag sizes) nor its kernel
 * choice: for a game that blends the same layer set every frame. Plain data the caller owns
 * (no allocation, nothing to destroy; copies are independent jobs); the fields are private.
 * It keeps the desc's pointers: the layers' poses and masks, out and diag must outlive it.
 * Between runs the caller may change the values in the poses (sampled each frame) and pass
 * new layer weights; anything else (which poses, the mask values, out, diag, method) needs
 * a new mb_blend_job_init. The layer table itself is copied: desc->layers need not outlive
 * the job. */
typedef struct mb_blend_job {
    mb_blend_layer layers_[MB_BLEND_MAX_LAYERS]; /* private: the desc's layers */
    mb_blend_desc desc_;                         /* private: the desc (layers set per run) */
    int isa_;                                    /* private: the kernel chosen at init */
} mb_blend_job;

/* Validates desc as mb_blend_run does everything but the pose values, and fills *out: the
 * same statuses as mb_blend_run for the same argument errors (a zero weight total too:
 * the weights at init must be valid, and are the job's weights where a run passes none).
 * Nothing is written to out on error. Calls mb_blend_prepare for the jobs that may reach
 * the exact solver (every method but MB_BLEND_NLERP, and diag->eigen_gap), since init runs
 * at load time. */
MB_API mb_status mb_blend_job_init(const mb_blend_desc *desc, mb_blend_job *out);

/* Runs the job: exactly mb_blend_run on the job's desc with the layer weights replaced by
 * weights[0 .. layer_count) (NULL: the weights given at init), bit for bit. Validates the
 * weights (MB_INVALID_ARG for a negative, NaN or infinite weight or a zero total) and the
 * pose values (MB_NUMERIC) before writing, as mb_blend_run; MB_INVALID_ARG for a job that
 * was never initialised (zeroed). Threads: as mb_blend_run (the job is read only). */
MB_API mb_status mb_blend_job_run(const mb_blend_job *job, const float *weights);

/* Lets the exact solver's library set up now what it sets up on first use: OpenBLAS, under
 * LAPACKE, maps its work buffers (128 MB of address space per thread that has run it, once
 * per process) inside the first call that reaches LAPACKE: MB_EIGEN_LAPACKE, diag->eigen_gap,
 * or a joint the fast solver hands to the exact path (a gap below the threshold, an input
 * half a turn away), any of which can occur mid-game. Call it once at load time if you
 * call mb_blend_run in a frame loop; mb_controller_create calls it. Idempotent, owns
 * nothing; after the first call on a thread it returns at once (a thread-local flag).
 * (Debian's OpenBLAS, openblas-pthread, also starts a worker thread per further core when
 * it loads, and perf shows it polling with sched_yield for a while; the exact path's 4x4
 * solves never use it, so a game process may set OPENBLAS_NUM_THREADS=1 to keep that core
 * to itself.) */
MB_API void mb_blend_prepare(void);

/* Name of a method ("logexp", "nlerp", "karcher"); NULL for unknown values. */
MB_API const char *mb_blend_method_name(mb_blend_method m);
/* Parses a method name; MB_INVALID_ARG when unknown. */
MB_API mb_status mb_blend_method_parse(const char *name, mb_blend_method *out);

#ifdef __cplusplus
}
#endif
#endif
