/* The N-way blend job: validate, then one pass over joints. */
#include <math.h>
#include <string.h>

#include "mblend/blend.h"
#include "mblend/math.h"
#include "math/reference_internal.h"

#define DEFAULT_GAP_THRESHOLD 1e-3f

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

/* ---------- double-precision quaternion helpers (x, y, z, w) ---------- */

static void qmul(const double p[4], const double q[4], double r[4])
{
    r[0] = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
    r[1] = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
    r[2] = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
    r[3] = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
}

/* conj(p) * q */
static void qconjmul(const double p[4], const double q[4], double r[4])
{
    const double pc[4] = {-p[0], -p[1], -p[2], p[3]};
    qmul(pc, q, r);
}

static double dot4(const double a[4], const double b[4])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

/* log of a unit quaternion with w >= 0 assumed done by the caller; rotation vector. */
static void qlog(const double q[4], double v[3])
{
    double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    double w = q[3];
    double k;
    if (s < 1e-4) {
        double r = s / w;
        k = (2.0 / w) * (1.0 - r * r / 3.0);
    } else {
        k = 2.0 * atan2(s, w) / s;
    }
    v[0] = q[0] * k;
    v[1] = q[1] * k;
    v[2] = q[2] * k;
}

static void qexp(const double v[3], double q[4])
{
    double t = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    double k = t < 1e-4 ? 0.5 - t * t / 48.0 : sin(0.5 * t) / t;
    q[0] = v[0] * k;
    q[1] = v[1] * k;
    q[2] = v[2] * k;
    q[3] = cos(0.5 * t);
}

/* ---------- the reference quaternion ---------- */

/* Power iteration on M (trace 1, positive semi-definite) from start x. Since the
 * eigenvalues are >= 0 and sum to 1, lambda_2 <= 1 - lambda_1, so the Rayleigh quotient
 * bounds the convergence ratio; where that bound is weak (or the relative gap may be
 * below the threshold) the caller falls back to LAPACKE. Returns 0 on fallback. */
static int reference_fast(const double m[16], const double start[4], double thr, double out[4])
{
    double x[4] = {start[0], start[1], start[2], start[3]};
    double y[4];
    for (int it = 0; it < 48; ++it) {
        for (int r = 0; r < 4; ++r)
            y[r] = m[r] * x[0] + m[4 + r] * x[1] + m[8 + r] * x[2] + m[12 + r] * x[3];
        double lam = dot4(x, y); /* Rayleigh quotient, x is unit */
        double ratio = lam > 0.0 ? (1.0 - lam) / lam : 1.0;
        /* (lambda1 - lambda2) / lambda1 >= 1 - ratio: insist on a comfortable margin. */
        if (ratio > 0.7 || 1.0 - ratio < thr)
            return 0;
        double n = sqrt(dot4(y, y));
        double change = 0.0;
        for (int k = 0; k < 4; ++k) {
            y[k] /= n;
            change += (y[k] - x[k]) * (y[k] - x[k]);
            x[k] = y[k];
        }
        /* The remaining error is below change * ratio / (1 - ratio) <= 2.4 change. */
        if (change < 1e-22)
            break;
    }
    memcpy(out, x, sizeof x);
    mb_quat_canonical_sign_(out);
    return 1;
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
        double s = dot4(acc, in[i].q) < 0.0 ? -in[i].w : in[i].w;
        for (int k = 0; k < 4; ++k)
            acc[k] += s * in[i].q[k];
    }
    double nn = sqrt(dot4(acc, acc));
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
        qconjmul(base, in[i].q, d);
        if (d[3] < 0.0)
            for (int k = 0; k < 4; ++k)
                d[k] = -d[k];
        qlog(d, vi);
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
                             int want_gap, double thr, joint_result *res)
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
        tangent_mean(in, n, res->q, v, &res->max_angle);
        return MB_OK;
    }
    tangent_mean(in, n, ref, v, &res->max_angle);
    qexp(v, e);
    qmul(ref, e, res->q);
    if (method == MB_BLEND_KARCHER) {
        /* Gauss-Newton on the geodesic mean: move the base until the tangent mean is 0. */
        for (int it = 0; it < 32; ++it) {
            double base[4];
            memcpy(base, res->q, sizeof base);
            tangent_mean(in, n, base, v, NULL);
            if (sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) < 1e-7)
                break;
            qexp(v, e);
            qmul(base, e, res->q);
        }
    }
    return MB_OK;
}

/* ---------- validation and the job ---------- */

static mb_status validate(const mb_blend_desc *d)
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
    double total = 0.0;
    for (int i = 0; i < d->layer_count; ++i) {
        const mb_blend_layer *l = &d->layers[i];
        if (!l->pose || !l->pose->joints || l->pose->count != n)
            return MB_INVALID_ARG;
        if (!isfinite(l->weight) || l->weight < 0.0f)
            return MB_INVALID_ARG;
        total += l->weight;
        if (l->joint_weights)
            for (int j = 0; j < n; ++j)
                if (!isfinite(l->joint_weights[j]) || l->joint_weights[j] < 0.0f)
                    return MB_INVALID_ARG;
        /* One reduction catches any NaN or Inf in the pose (finite values this large
         * cannot occur in unit quaternions or sane translations). */
        float sum = 0.0f;
        int zero_quat = 0;
        for (int j = 0; j < n; ++j) {
            const mb_xform *x = &l->pose->joints[j];
            sum += x->rot[0] + x->rot[1] + x->rot[2] + x->rot[3] + x->pos[0] + x->pos[1] +
                   x->pos[2];
            zero_quat |= x->rot[0] * x->rot[0] + x->rot[1] * x->rot[1] + x->rot[2] * x->rot[2] +
                             x->rot[3] * x->rot[3] == 0.0f;
        }
        if (!isfinite(sum) || zero_quat)
            return MB_NUMERIC;
    }
    if (!(total > 0.0))
        return MB_INVALID_ARG;
    if (d->diag && (d->diag->eigen_gap || d->diag->max_angle) && d->diag->count < n)
        return MB_TOO_SMALL;
    return MB_OK;
}

mb_status mb_blend_run(const mb_blend_desc *d)
{
    mb_status st = validate(d);
    if (st != MB_OK)
        return st;
    int n = d->out.count, L = d->layer_count;
    double thr = d->gap_threshold > 0.0f ? d->gap_threshold : DEFAULT_GAP_THRESHOLD;
    int exact = d->solver == MB_EIGEN_LAPACKE;
    mb_blend_diag *diag = d->diag;
    int want_gap = diag && diag->eigen_gap;
    if (diag)
        diag->low_gap_joints = 0;
    joint_in in[MB_BLEND_MAX_LAYERS];
    for (int j = 0; j < n; ++j) {
        double total = 0.0;
        int m = 0;
        for (int i = 0; i < L; ++i) {
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
            if (want_gap)
                diag->eigen_gap[j] = 1.0f;
            if (diag && diag->max_angle)
                diag->max_angle[j] = 0.0f;
            continue;
        }
        /* Translations first: they read the inputs, which out may alias. */
        double p[3] = {0, 0, 0};
        for (int i = 0; i < L; ++i) {
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
        st = blend_joint(in, m, d->method, exact, want_gap, thr, &r);
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
    }
    return MB_OK;
}
