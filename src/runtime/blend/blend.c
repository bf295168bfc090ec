/* The N-way blend job: validate, then one pass over joints.
 *
 * The default path (logexp with the fast solver, no eigen_gap diagnostics) runs the SIMD
 * kernel (blend_kernel.inc: single precision, W joints per vector, a certified reference
 * (closed form for one or two inputs, power iteration otherwise), polynomial log/exp;
 * AVX-512 or AVX2+FMA chosen at run time where the CPU has it, else SSE2, else portable C:
 * the scheme of src/base/cpu_internal.h). MB_BLEND_NLERP without diagnostics runs the
 * nlerp kernel of the same file on the same machinery (staging, validation, rejected
 * lanes). The kernels validate the values they read, so the first STAGE_JOINTS joints are
 * blended into a stack buffer and copied to the output only once the whole job is known to
 * be valid (see run_kernel). Joints a kernel cannot certify, Karcher, nlerp with
 * diagnostics, the exact solver and the gap diagnostics take the scalar double-precision
 * path below, whose reference comes from a certified double power iteration or, where the
 * bound says the relative gap may be below the threshold, from LAPACKE. Nothing
 * allocates; the SIMD path uses about 25 KB of stack (16 KB kernel scratch, the 7 KB
 * stage, the kernel's copy of the layer table). A prepared job (mb_blend_job_init) is the
 * desc validated once; its runs check the weights and go straight to run_valid. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "runtime/blend/blend_internal.h"
#include "mblend/runtime/blend.h"
#include "mblend/math.h"
#include "math/quat_internal.h"
#include "math/reference_internal.h"

/* The SIMD kernel certifies a lane only when its relative-gap bound is at least this (or
 * the user's threshold, if larger), where single precision gives the reference to about
 * 1e-6 rad; below it the double path decides. */
#define KERNEL_MIN_GAP 0.25f
#define KERNEL_TOL 2e-6f
/* Two inputs (closed form): the kernel keeps a lane whose gap is at least twice the user's
 * threshold and at least this, where float computes the gap to 5% (blend_kernel.inc, B). */
#define KERNEL_MIN_GAP2 2e-3f
/* Joints the SIMD path blends into a stack buffer while it validates them (7 KB). */
#define STAGE_JOINTS 256

/* The kernels read the translations of a group as 7 * W consecutive floats. */
_Static_assert(sizeof(mb_xform) == 7 * sizeof(float), "mb_xform must be 7 packed floats");

static const char *const method_names[] = {"logexp", "nlerp", "karcher"};

const char *mb_blend_method_name(mb_blend_method m)
{
    return (unsigned)m < 3u ? method_names[m] : NULL;
}

mb_status mb_blend_method_parse(const char *name, mb_blend_method *out)
{
    if (!name || !out)
        return MB_INVALID_ARG;
    for (int m = 0; m < 3; ++m)
        if (strcmp(name, method_names[m]) == 0) {
            *out = (mb_blend_method)m;
            return MB_OK;
        }
    return MB_INVALID_ARG;
}


/* ---------- the reference quaternion ---------- */

/* Certified power iteration in double on M (positive semi-definite). For a unit x with
 * Rayleigh quotient rho <= lambda_1, the other eigenvalues are >= 0 with sum
 * T <= tr M - rho and sum of squares S <= |M|_F^2 - rho^2, so
 *   lambda_2 <= B = (T + sqrt(2 (3 S - T^2))) / 3      (valid for rho >= tr M / 4),
 * the relative gap is >= (rho - B) / rho, and the angle between x and the top eigenvector
 * is <= |M x - rho x| / (rho - B). Returns 0 (the caller then uses LAPACKE) when the gap
 * bound stays below thr or the angle bound above 1e-9 rad. The iteration runs on M, M^2,
 * M^4, ... (squared between rounds), so small gaps still converge in a few rounds. */
static int certify(const double m[16], double tr, double fro, const double x[4], double thr,
                   double *angle_bound, double *residual)
{
    double y[4], xx = mb_qdot_d_(x, x);
    for (int r = 0; r < 4; ++r)
        y[r] = m[r] * x[0] + m[4 + r] * x[1] + m[8 + r] * x[2] + m[12 + r] * x[3];
    double rho = mb_qdot_d_(x, y) / xx, rr = 0.0;
    for (int k = 0; k < 4; ++k)
        rr += (y[k] - rho * x[k]) * (y[k] - rho * x[k]);
    double T = tr - rho, S = fro - rho * rho;
    double inner = 2.0 * (3.0 * S - T * T);
    double B = (T + sqrt(inner > 0.0 ? inner : 0.0)) / 3.0;
    double sep = rho - B;
    *residual = sqrt(rr / xx);
    *angle_bound = sep > 0.0 ? *residual / sep : INFINITY;
    return rho > 0.3 * tr && sep >= thr * rho;
}

static int reference_fast(const double m[16], const double start[4], double thr, double out[4])
{
    double tr = m[0] + m[5] + m[10] + m[15], fro = 0.0;
    for (int i = 0; i < 16; ++i)
        fro += m[i] * m[i];
    double a[16], x[4] = {start[0], start[1], start[2], start[3]};
    memcpy(a, m, sizeof a);
    for (int round = 0; round < 6; ++round) {
        for (int it = 0; it < 4; ++it) {
            double y[4];
            for (int r = 0; r < 4; ++r)
                y[r] = a[r] * x[0] + a[4 + r] * x[1] + a[8 + r] * x[2] + a[12 + r] * x[3];
            double n = sqrt(mb_qdot_d_(y, y));
            if (!(n > 0.0) || !isfinite(n))
                return 0;
            for (int k = 0; k < 4; ++k)
                x[k] = y[k] / n;
        }
        double bound, res;
        int gap_ok = certify(m, tr, fro, x, thr, &bound, &res);
        if (gap_ok && bound <= 1e-9) {
            memcpy(out, x, sizeof x);
            mb_quat_canonical_sign_(out);
            return 1;
        }
        if (!gap_ok && res < 1e-12 * tr)
            return 0; /* converged, and the bound still cannot clear the threshold */
        /* a = a^2 / tr(a^2): the same eigenvectors, ratios squared, no underflow */
        double b[16], t = 0.0;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) {
                double s = 0.0;
                for (int k = 0; k < 4; ++k)
                    s += a[k * 4 + r] * a[c * 4 + k];
                b[c * 4 + r] = s;
            }
        t = b[0] + b[5] + b[10] + b[15];
        if (!(t > 0.0) || !isfinite(t))
            return 0;
        for (int i = 0; i < 16; ++i)
            a[i] = b[i] / t;
    }
    return 0;
}

/* ---------- per joint ---------- */

typedef struct joint_in {
    double q[4];
    double w;
} joint_in;

static void blend_nlerp(const joint_in *in, int n, double out[4])
{
    double acc[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; ++i) {
        double s = mb_qdot_d_(acc, in[i].q) < 0.0 ? -in[i].w : in[i].w;
        for (int k = 0; k < 4; ++k)
            acc[k] += s * in[i].q[k];
    }
    double nn = sqrt(mb_qdot_d_(acc, acc));
    if (!(nn > 0.0)) { /* exact cancellation: fall back to the heaviest input */
        int best = 0;
        for (int i = 1; i < n; ++i)
            if (in[i].w > in[best].w)
                best = i;
        memcpy(out, in[best].q, sizeof in[best].q);
        return;
    }
    for (int k = 0; k < 4; ++k)
        out[k] = acc[k] / nn;
}

/* Tangent mean around base: v = sum w_i log(base^-1 q_i) (short arc); max |v_i|. */
static void tangent_mean(const joint_in *in, int n, const double base[4], double v[3],
                         double *max_angle)
{
    v[0] = v[1] = v[2] = 0.0;
    double mx = 0.0;
    for (int i = 0; i < n; ++i) {
        double d[4], vi[3];
        mb_qconjmul_d_(base, in[i].q, d);
        if (d[3] < 0.0)
            for (int k = 0; k < 4; ++k)
                d[k] = -d[k];
        mb_quat_log_d_(d, vi);
        double a2 = vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2];
        if (a2 > mx)
            mx = a2;
        for (int k = 0; k < 3; ++k)
            v[k] += in[i].w * vi[k];
    }
    if (max_angle)
        *max_angle = sqrt(mx);
}

typedef struct joint_result {
    double q[4];
    double gap;        /* < 0 when not computed */
    double max_angle;
    int low_gap;
} joint_result;

static void build_m(const joint_in *in, int n, double m[16])
{
    memset(m, 0, 16 * sizeof *m);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < 4; ++c) {
            double s = in[i].w * in[i].q[c];
            for (int r = 0; r < 4; ++r)
                m[c * 4 + r] += s * in[i].q[r];
        }
}

static mb_status blend_joint(const joint_in *in, int n, mb_blend_method method, int exact,
                             int want_gap, int want_angle, double thr, joint_result *res)
{
    res->gap = -1.0;
    res->low_gap = 0;
    res->max_angle = 0.0;
    double m[16], ref[4];
    int have_ref = 0;
    if (method == MB_BLEND_NLERP) {
        blend_nlerp(in, n, res->q);
    } else if (!exact && !want_gap) {
        double start[4];
        build_m(in, n, m);
        blend_nlerp(in, n, start);
        have_ref = reference_fast(m, start, thr, ref);
        /* an input within 1e-8 of half a turn from the reference (10 times the certified
         * error): the short-arc sign, so the blend, flips there; LAPACKE decides */
        for (int i = 0; have_ref && i < n; ++i)
            if (fabs(mb_qdot_d_(ref, in[i].q)) < 1e-8)
                have_ref = 0;
    }
    if (!have_ref && (method != MB_BLEND_NLERP || want_gap)) {
        /* The exact path: LAPACKE, which also measures the gap. */
        double gap;
        build_m(in, n, m);
        mb_status st = mb_quat_reference_d_(m, ref, &gap);
        if (st != MB_OK)
            return st;
        res->gap = gap;
        res->low_gap = gap < thr;
    }
    double v[3], e[4];
    if (method == MB_BLEND_NLERP) {
        /* the tangent angles only for the max_angle diagnostic: nlerp needs none */
        if (want_angle)
            tangent_mean(in, n, res->q, v, &res->max_angle);
        return MB_OK;
    }
    tangent_mean(in, n, ref, v, &res->max_angle);
    mb_quat_exp_d_(v, e);
    mb_qmul_d_(ref, e, res->q);
    if (method == MB_BLEND_KARCHER) {
        /* Gauss-Newton on the geodesic mean: move the base until the tangent mean is 0. */
        for (int it = 0; it < 32; ++it) {
            double base[4];
            memcpy(base, res->q, sizeof base);
            tangent_mean(in, n, base, v, NULL);
            if (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 1e-7)
                break;
            mb_quat_exp_d_(v, e);
            mb_qmul_d_(base, e, res->q);
        }
    }
    return MB_OK;
}

/* ---------- validation and the job ---------- */

/* The exact value rules: every float finite, no rotation with |q|^2 == 0 in float. */
static int pose_values_exact_ok(const mb_xform *x, int n)
{
    for (int j = 0; j < n; ++j) {
        const float *r = x[j].rot;
        if (r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3] == 0.0f)
            return 0;
        for (int c = 0; c < 4; ++c)
            if (!isfinite(r[c]))
                return 0;
        for (int c = 0; c < 3; ++c)
            if (!isfinite(x[j].pos[c]))
                return 0;
    }
    return 1;
}

/* The pose values of joints [j, j + n) of x: check is the SIMD pre-check (NULL: exact rules
 * only); it passes the usual poses quickly, and anything it doubts is re-checked exactly. */
static int values_ok(const mb_xform *x, int n, mb_blend_check_fn_ check)
{
    return n <= 0 || (check && check(x, n)) || pose_values_exact_ok(x, n);
}

/* The weights' part of validation: every layer weight finite and >= 0, their total (in
 * double, to *total_out) > 0. */
static mb_status validate_weights(const mb_blend_layer *layers, int k, double *total_out)
{
    double total = 0.0;
    for (int i = 0; i < k; ++i) {
        if (!isfinite(layers[i].weight) || layers[i].weight < 0.0f)
            return MB_INVALID_ARG;
        total += layers[i].weight;
    }
    if (!(total > 0.0))
        return MB_INVALID_ARG;
    *total_out = total;
    return MB_OK;
}

/* Everything but the pose values (the SIMD path checks those as it reads them); *total
 * receives the sum of the layer weights, in double. The order of the checks is the
 * contract's: argument errors (weights included) before MB_TOO_SMALL for the diag. */
static mb_status validate_desc(const mb_blend_desc *d, double *total_out)
{
    if (!d || !d->layers || !d->out.joints)
        return MB_INVALID_ARG;
    if (d->layer_count < 1 || d->layer_count > MB_BLEND_MAX_LAYERS)
        return MB_INVALID_ARG;
    if ((unsigned)d->method > (unsigned)MB_BLEND_KARCHER ||
        (unsigned)d->solver > (unsigned)MB_EIGEN_FAST)
        return MB_INVALID_ARG;
    if (!(d->gap_threshold >= 0.0f) || !(d->gap_threshold < 1.0f))
        return MB_INVALID_ARG;
    int n = d->out.count;
    if (n < 1)
        return MB_INVALID_ARG;
    for (int i = 0; i < d->layer_count; ++i) {
        const mb_blend_layer *l = &d->layers[i];
        if (!l->pose || !l->pose->joints || l->pose->count != n)
            return MB_INVALID_ARG;
        if (l->joint_weights) {
            int bad = 0; /* a branch-free reduction the compiler vectorises */
            for (int j = 0; j < n; ++j)
                bad |= !(l->joint_weights[j] >= 0.0f && l->joint_weights[j] <= FLT_MAX);
            if (bad)
                return MB_INVALID_ARG;
        }
    }
    mb_status st = validate_weights(d->layers, d->layer_count, total_out);
    if (st != MB_OK)
        return st;
    if (d->diag && (d->diag->eigen_gap || d->diag->max_angle) && d->diag->count < n)
        return MB_TOO_SMALL;
    return MB_OK;
}

/* ---------- the scalar path, one joint ---------- */

typedef struct run_ctx {
    const mb_blend_desc *d;
    double thr;
    double wsum; /* the layer weights' total (validate_desc) */
    int exact, want_gap;
    int nlerp; /* MB_BLEND_NLERP: the inputs keep their order (the sum depends on it) */
    mb_blend_kstats_ *stats;
} run_ctx;

static mb_status scalar_joint(const run_ctx *c, int j)
{
    const mb_blend_desc *d = c->d;
    mb_blend_diag *diag = d->diag;
    joint_in in[MB_BLEND_MAX_LAYERS];
    double total = 0.0;
    int m = 0;
    for (int i = 0; i < d->layer_count; ++i) {
        const mb_blend_layer *l = &d->layers[i];
        double w = (double)l->weight * (l->joint_weights ? l->joint_weights[j] : 1.0f);
        total += w;
        if (w <= 0.0)
            continue; /* a zero weight contributes nothing, not even a sign */
        const float *q = l->pose->joints[j].rot;
        double nn = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                         (double)q[3] * q[3]);
        if (!(nn > 0.0))
            return MB_NUMERIC;
        for (int k = 0; k < 4; ++k)
            in[m].q[k] = q[k] / nn;
        in[m].w = w;
        ++m;
    }
    mb_xform *o = &d->out.joints[j];
    if (!(total > 0.0)) {
        /* Fully masked joint: keep layer 0 (copy only when out is another buffer). */
        if (o != &d->layers[0].pose->joints[j])
            *o = d->layers[0].pose->joints[j];
        if (c->want_gap)
            diag->eigen_gap[j] = 1.0f;
        if (diag && diag->max_angle)
            diag->max_angle[j] = 0.0f;
        return MB_OK;
    }
    /* Translations first: they read the inputs, which out may alias. */
    double p[3] = {0, 0, 0};
    for (int i = 0; i < d->layer_count; ++i) {
        const mb_blend_layer *l = &d->layers[i];
        double w = (double)l->weight * (l->joint_weights ? l->joint_weights[j] : 1.0f);
        if (w <= 0.0)
            continue;
        for (int k = 0; k < 3; ++k)
            p[k] += (w / total) * l->pose->joints[j].pos[k];
    }
    for (int i = 0; i < m; ++i)
        in[i].w /= total;
    joint_result r;
    mb_status st = blend_joint(in, m, d->method, c->exact, c->want_gap,
                               diag && diag->max_angle, c->thr, &r);
    if (st != MB_OK)
        return st;
    for (int k = 0; k < 4; ++k)
        o->rot[k] = (float)r.q[k];
    for (int k = 0; k < 3; ++k)
        o->pos[k] = (float)p[k];
    if (diag) {
        if (diag->eigen_gap)
            diag->eigen_gap[j] = (float)(r.gap < 0.0 ? 1.0 : r.gap);
        if (diag->max_angle)
            diag->max_angle[j] = (float)r.max_angle;
        diag->low_gap_joints += r.low_gap;
    }
    if (c->stats && r.gap >= 0.0)
        c->stats->exact_joints += 1;
    return MB_OK;
}

/* ---------- the SIMD path ---------- */

/* The kernels built in, by ISA (cpu_internal.h's scheme); a gap is an ISA not built. */
typedef struct blend_impl {
    mb_blend_kernel_fn_ kernel;
    mb_blend_check_fn_ check;
    int lanes;
    mb_blend_kernel_fn_ nlerp;
} blend_impl;

static const blend_impl impls[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = {mb_blend_kernel_generic_, mb_blend_check_generic_, 4,
                         mb_blend_nlerp_generic_},
#ifdef MB_BLEND_HAVE_SSE2_
    [MB_ISA_SSE2_] = {mb_blend_kernel_sse2_, mb_blend_check_sse2_, 4, mb_blend_nlerp_sse2_},
#endif
#ifdef MB_BLEND_HAVE_AVX2_
    [MB_ISA_AVX2_] = {mb_blend_kernel_avx2_, mb_blend_check_avx2_, 8, mb_blend_nlerp_avx2_},
#endif
#ifdef MB_BLEND_HAVE_AVX512_
    [MB_ISA_AVX512_] = {mb_blend_kernel_avx512_, mb_blend_check_avx512_, 16,
                        mb_blend_nlerp_avx512_},
#endif
};

#define BUILT_                                                                           \
    (MB_ISA_BIT_(MB_ISA_GENERIC_) | BUILT_SSE2_ | BUILT_AVX2_ | BUILT_AVX512_)
#ifdef MB_BLEND_HAVE_SSE2_
#define BUILT_SSE2_ MB_ISA_BIT_(MB_ISA_SSE2_)
#else
#define BUILT_SSE2_ 0u
#endif
#ifdef MB_BLEND_HAVE_AVX2_
#define BUILT_AVX2_ MB_ISA_BIT_(MB_ISA_AVX2_)
#else
#define BUILT_AVX2_ 0u
#endif
#ifdef MB_BLEND_HAVE_AVX512_
#define BUILT_AVX512_ MB_ISA_BIT_(MB_ISA_AVX512_)
#else
#define BUILT_AVX512_ 0u
#endif

/* The kernel for isa, NULL when there is none here; AUTO: never NULL. */
static const blend_impl *impl_for(mb_isa_ isa)
{
    const blend_impl *k = &impls[mb_isa_select_(isa, BUILT_)];
    return k->kernel ? k : NULL;
}

mb_blend_kernel_fn_ mb_blend_kernel_(mb_isa_ isa, int *out_lanes)
{
    const blend_impl *k = impl_for(isa);
    if (out_lanes)
        *out_lanes = k ? k->lanes : 4;
    return k ? k->kernel : NULL;
}

mb_blend_kernel_fn_ mb_blend_nlerp_kernel_(mb_isa_ isa)
{
    const blend_impl *k = impl_for(isa);
    return k ? k->nlerp : NULL;
}

mb_blend_check_fn_ mb_blend_checker_(mb_isa_ isa)
{
    const blend_impl *k = impl_for(isa);
    return k ? k->check : NULL;
}

/* Trailing zero bits of a non-zero word. */
static int mb_ctz32_(uint32_t x)
{
#if defined(__GNUC__)
    return __builtin_ctz(x);
#else
    int n = 0;
    while (!(x & 1u)) {
        x >>= 1;
        ++n;
    }
    return n;
#endif
}

/* The scalar path for the joints a kernel call handed back (bits of b->rej). */
static mb_status run_rejected(const run_ctx *c, const mb_blend_batch_ *b, int done, int lanes)
{
    if (!b->rej_any)
        return MB_OK;
    for (int g = 0; g * lanes < done; ++g)
        for (unsigned rej = b->rej[g]; rej; rej &= rej - 1) {
            mb_status st = scalar_joint(c, b->j0 + g * lanes + mb_ctz32_(rej));
            if (st != MB_OK)
                return st;
        }
    return MB_OK;
}

/* The stage's copy goes through libc's memcpy: inlined, GCC makes it `rep movsq`, which
 * takes a third longer for the 1.8 KB of a 64-joint job (98 against 73 cycles measured
 * here; the same for 7 KB). The pointer is volatile so that the call stays a call. */
static void *(*volatile stage_copy_)(void *, const void *, size_t) = memcpy;

/* The kernel's inputs from the layers of positive weight (weights normalised, the heaviest
 * moved to input 0, where the kernel starts its power iteration); the values of the others,
 * and of every layer's joints from ns on (which the kernel reads only after the output is
 * being written), checked. *k: the inputs; *any_mask: some input has a mask. */
static inline mb_status take_layers(const run_ctx *c, mb_blend_check_fn_ check, int ns,
                                    const mb_xform **src, const float **msrc, float *wt, int *k_out,
                                    int *any_mask_out)
{
    const mb_blend_desc *d = c->d;
    int n = d->out.count;
    int k = 0, any_mask = 0, heaviest = 0;
    float wmax = 0.0f; /* in a register: compared through wt[], the loop waited on its stores */
    /* the total is known (validate_desc), so each weight is normalised as it is taken
     * (normalised in a pass of their own, the weights were read back as pairs just after
     * their single stores, which cannot forward) */
    const double wsum = c->wsum;
    for (int i = 0; i < d->layer_count; ++i) {
        const mb_blend_layer *l = &d->layers[i];
        if (!(l->weight > 0.0f)) {
            /* contributes nothing, not even a sign; its values are still checked */
            if (!values_ok(l->pose->joints, n, check))
                return MB_NUMERIC;
            continue;
        }
        if (n > ns && !values_ok(l->pose->joints + ns, n - ns, check))
            return MB_NUMERIC;
        src[k] = l->pose->joints;
        msrc[k] = l->joint_weights;
        any_mask |= l->joint_weights != NULL;
        /* unmasked: normalised here, in double; masked: the kernel normalises per joint,
         * so the layer weights are only scaled (in double) to sum to 1, which keeps their
         * products with the mask values from overflowing float (2e38 twice did: the
         * translations came out 0) */
        wt[k] = (float)(l->weight / wsum);
        if (l->weight > wmax) {
            wmax = l->weight;
            heaviest = k;
        }
        ++k;
    }
    if (heaviest != 0 && !c->nlerp) { /* the kernel starts its power iteration from input 0 */
        const mb_xform *ts = src[0];
        const float *tm = msrc[0];
        float tw = wt[0];
        src[0] = src[heaviest], msrc[0] = msrc[heaviest], wt[0] = wt[heaviest];
        src[heaviest] = ts, msrc[heaviest] = tm, wt[heaviest] = tw;
    }
    *k_out = k;
    *any_mask_out = any_mask;
    return MB_OK;
}

/* Once the job is known valid: the ns staged joints into the output, runs of accepted ones
 * copied, each rejected one (bit set in rejected[], valid when any_rejected) on the scalar
 * path. */
static inline mb_status commit_staged(const run_ctx *c, const mb_xform *stage,
                                      const uint32_t *rejected, int any_rejected, int ns)
{
    const mb_blend_desc *d = c->d;
    /* valid: commit the staged joints (runs of accepted ones), then the rejected ones */
    if (!any_rejected && ns > 0)
        stage_copy_(d->out.joints, stage, (size_t)ns * sizeof *stage);
    for (int j = 0; any_rejected && j < ns;) {
        /* the run of accepted joints from j: up to the next set bit at or after j */
        int e = j;
        for (;;) {
            uint32_t word = rejected[e / 32] >> (e % 32);
            if (word) {
                e += mb_ctz32_(word);
                break;
            }
            e = (e / 32 + 1) * 32;
            if (e >= ns)
                break;
        }
        if (e > ns)
            e = ns;
        if (e > j)
            memcpy(&d->out.joints[j], &stage[j], (size_t)(e - j) * sizeof *stage);
        if (e >= ns)
            break;
        mb_status st = scalar_joint(c, e); /* a rejected joint */
        if (st != MB_OK)
            return st;
        j = e + 1;
    }

    return MB_OK;
}

/* The SIMD path. Validation: the kernel checks the values it reads (batch.doubt), so the
 * first STAGE_JOINTS joints are blended into a stack buffer and copied out only once the
 * whole job is known to be valid; the joints after them, and layers of weight 0 (which
 * the kernel does not read), are checked before anything is written. Where the kernel
 * doubts, the exact rules decide. The output is written only after all of it. */
static mb_status run_kernel(const run_ctx *c, mb_blend_kernel_fn_ kernel, int lanes,
                            mb_blend_check_fn_ check)
{
    const mb_blend_desc *d = c->d;
    int n = d->out.count;
    const mb_xform *src[MB_BLEND_MAX_LAYERS];
    const float *msrc[MB_BLEND_MAX_LAYERS];
    float wt[MB_BLEND_MAX_LAYERS];
    int k = 0, any_mask = 0;
    /* max_angle is an output the kernel writes directly: no stage then */
    const int ns = d->diag && d->diag->max_angle ? 0 : (n < STAGE_JOINTS ? n : STAGE_JOINTS);
    mb_status vst = take_layers(c, check, ns, src, msrc, wt, &k, &any_mask);
    if (vst != MB_OK)
        return vst;
    /* every field the kernel reads, set one by one: an initialiser would also clear the
     * 64-byte rej array, which the kernel writes (for the groups it returns) */
    mb_blend_batch_ b;
    b.k = k;
    b.src = src;
    b.mask = any_mask ? msrc : NULL;
    b.weight = wt;
    b.max_angle = d->diag ? d->diag->max_angle : NULL;
    b.ref = NULL;
    b.min_gap = (float)c->thr > KERNEL_MIN_GAP ? (float)c->thr : KERNEL_MIN_GAP;
    b.min_gap2 = 2.0f * (float)c->thr > KERNEL_MIN_GAP2 ? 2.0f * (float)c->thr : KERNEL_MIN_GAP2;
    if (b.min_gap2 > b.min_gap)
        b.min_gap2 = b.min_gap;
    b.tol = KERNEL_TOL;

    /* the staged joints */
    mb_xform stage[STAGE_JOINTS];
    uint32_t rejected[STAGE_JOINTS / 32]; /* valid once any_rejected is set */
    int doubt = 0, any_rejected = 0;
    b.dst = stage;
    for (int j0 = 0; j0 < ns;) {
        b.j0 = j0;
        b.count = ns - j0;
        int done = kernel(&b, c->stats);
        doubt |= b.doubt;
        if (b.rej_any) {
            if (!any_rejected)
                memset(rejected, 0, sizeof rejected);
            any_rejected = 1;
            for (int g = 0; g * lanes < done; ++g)
                rejected[(j0 + g * lanes) / 32] |= (uint32_t)b.rej[g] << ((j0 + g * lanes) % 32);
        }
        j0 += done;
    }
    if (doubt)
        for (int i = 0; i < k; ++i)
            if (!pose_values_exact_ok(src[i], ns))
                return MB_NUMERIC;
    if (d->diag) /* valid: from here on the job writes */
        d->diag->low_gap_joints = 0;
    vst = commit_staged(c, stage, rejected, any_rejected, ns);
    if (vst != MB_OK)
        return vst;

    /* the rest, validated above, straight into the output */
    b.dst = d->out.joints;
    for (int j0 = ns; j0 < n;) {
        b.j0 = j0;
        b.count = n - j0;
        int done = kernel(&b, c->stats);
        mb_status st = run_rejected(c, &b, done, lanes);
        if (st != MB_OK)
            return st;
        j0 += done;
    }
    return MB_OK;
}

/* The job once its desc is known valid (wsum: the layer weights' total) with the kernels of
 * impl (NULL: that ISA has no kernel here). */
static mb_status run_valid(const mb_blend_desc *d, double wsum, const blend_impl *impl,
                           mb_blend_kstats_ *stats)
{
    run_ctx c;
    c.wsum = wsum;
    mb_blend_check_fn_ check = impl ? impl->check : NULL;
    c.d = d;
    c.thr = d->gap_threshold > 0.0f ? d->gap_threshold : MB_BLEND_GAP_THRESHOLD;
    const int exact = d->solver == MB_EIGEN_LAPACKE, want_gap = d->diag && d->diag->eigen_gap;
    c.exact = exact;
    c.want_gap = want_gap;
    c.nlerp = d->method == MB_BLEND_NLERP;
    c.stats = stats;
    /* the locals, not c's fields: GCC tested the two ints with one 8-byte load just after
     * their 4-byte stores, which cannot forward (a stall of about 10 cycles per call) */
    if (d->method == MB_BLEND_LOGEXP && !exact && !want_gap) {
        if (impl)
            return run_kernel(&c, impl->kernel, impl->lanes, check);
        return MB_INVALID_ARG; /* that ISA is not available here */
    }
    /* nlerp on its kernel, unless a diagnostic asks for what only the scalar path gives
     * (the gap, the tangent angles) */
    if (c.nlerp && !want_gap && !(d->diag && d->diag->max_angle)) {
        if (impl)
            return run_kernel(&c, impl->nlerp, impl->lanes, check);
        return MB_INVALID_ARG;
    }
    for (int i = 0; i < d->layer_count; ++i)
        if (!values_ok(d->layers[i].pose->joints, d->out.count, check))
            return MB_NUMERIC;
    if (d->diag)
        d->diag->low_gap_joints = 0;
    for (int j = 0; j < d->out.count; ++j) {
        mb_status st = scalar_joint(&c, j);
        if (st != MB_OK)
            return st;
    }
    return MB_OK;
}

mb_status mb_blend_run_isa_(const mb_blend_desc *d, mb_isa_ isa, mb_blend_kstats_ *stats)
{
    double wsum;
    mb_status st = validate_desc(d, &wsum);
    if (st != MB_OK)
        return st;
    return run_valid(d, wsum, impl_for(isa), stats);
}

/* ---------- the prepared job ---------- */

mb_status mb_blend_job_init(const mb_blend_desc *desc, mb_blend_job *out)
{
    double wsum;
    if (!out)
        return MB_INVALID_ARG;
    mb_status st = validate_desc(desc, &wsum);
    if (st != MB_OK)
        return st;
    memset(out, 0, sizeof *out);
    memcpy(out->layers_, desc->layers, (size_t)desc->layer_count * sizeof *desc->layers);
    out->desc_ = *desc;
    out->desc_.layers = NULL; /* set per run: the job stays a plain copyable value */
    out->isa_ = (int)mb_isa_select_(MB_ISA_AUTO_, BUILT_);
    /* OpenBLAS's set-up now, at load time, for the jobs that may reach LAPACKE */
    if (desc->method != MB_BLEND_NLERP || (desc->diag && desc->diag->eigen_gap))
        mb_blend_prepare();
    return MB_OK;
}

mb_status mb_blend_job_run(const mb_blend_job *job, const float *weights)
{
    if (!job || !job->desc_.out.joints || (unsigned)job->isa_ >= (unsigned)MB_ISA_COUNT_)
        return MB_INVALID_ARG; /* never initialised (or zeroed) */
    const int k = job->desc_.layer_count;
    mb_blend_layer layers[MB_BLEND_MAX_LAYERS];
    const mb_blend_layer *lp = job->layers_;
    if (weights) {
        memcpy(layers, job->layers_, (size_t)k * sizeof *layers);
        for (int i = 0; i < k; ++i)
            layers[i].weight = weights[i];
        lp = layers;
    }
    double wsum;
    mb_status st = validate_weights(lp, k, &wsum);
    if (st != MB_OK)
        return st;
    mb_blend_desc d = job->desc_;
    d.layers = lp;
    return run_valid(&d, wsum, &impls[job->isa_], NULL);
}

void mb_blend_prepare(void)
{
    /* OpenBLAS sets up once per thread: a thread that has prepared skips the solve (5,000
     * controllers created on one thread paid about 33,000 instructions each for it) */
    static _Thread_local int prepared;
    if (prepared)
        return;
    prepared = 1;
    /* one exact solve on a fixed dense matrix (a diagonal one skips the BLAS calls that do
     * the library's setup) */
    static const double m[16] = {0.40, 0.10, 0.05, 0.02, 0.10, 0.30, 0.04, 0.03,
                                 0.05, 0.04, 0.20, 0.01, 0.02, 0.03, 0.01, 0.10};
    double q[4];
    (void)mb_quat_reference_d_(m, q, NULL);
}

mb_status mb_blend_run(const mb_blend_desc *d)
{
    return mb_blend_run_isa_(d, MB_ISA_AUTO_, NULL);
}
