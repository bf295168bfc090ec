/* bench_blend: speed of the N-way pose blend (mb_blend_run) against the nlerp running-sum
 * blend engines ship (ozz-animation's BlendingJob), in one process on the same inputs.
 *
 * For K = 2, 4, 8 input poses of 64 and 256 joints, and two input distributions:
 *   clustered: per joint, every input within 30 degrees of a per-joint centre (so pairs
 *              are at most 60 degrees apart), as when blending locomotion clips;
 *   spread:    within 90 degrees of the centre (pairs up to 180 degrees apart);
 * with random signs (q or -q) and random positive weights, it reports ns per joint for:
 *   baseline   nlerp running sum as ozz does it: SoA blocks of 4 joints, one pass per layer
 *              (acc += w * sign(acc . q) * q, translations too), then one normalisation pass;
 *              SSE2, and an 8-wide AVX2 variant when the CPU has it;
 *   logexp     mb_blend_run, default method and solver, steady state (the same job run over
 *              and over on a cycle of frames): the SIMD kernel picked for this CPU, and the
 *              4-wide SSE2 kernel forced (what a CPU without AVX2 runs);
 *   log/exp    the kernel with the references given (gather, log map, tangent mean, exp,
 *              store: everything but the solver), references from LAPACKE;
 *   check      the value pre-check mb_blend_run runs before writing on the joints past the
 *              first 256 and on layers of weight 0 (the kernel validates the rest as it
 *              reads it), on every input: not part of logexp at these sizes;
 *   lapacke    mb_blend_run with MB_EIGEN_LAPACKE (the exact path, scalar, double);
 * and the ratios to the SSE2 baseline, the share of joints the kernel handed to the scalar
 * path, and the largest angle between the default path and the LAPACKE path.
 * Times are the thread's CPU time (so the time the thread is descheduled on a shared
 * machine does not count). Speed is printed, never asserted; the exit status is non-zero
 * only if a blend fails.
 *
 * Options: --runs N (timed repetitions, default 15; best and median are printed),
 *          --quick (fewer repetitions and frames, for CI smoke runs),
 *          --only clustered|spread, --k N, --joints N (one slice of the table),
 *          --loop COLUMN N (no table: run one column N times on each selected slice, for
 *          perf and callgrind; COLUMN is base, logexp, logexp-sse2, step, check, lapacke). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "bench_util.h"
#include "runtime/blend/blend_internal.h"
#include "mblend/runtime/blend.h"
#include "mblend/math.h"

#define PI 3.14159265358979323846
#define MAXK 8
#define FRAMES 8

/* ---------- inputs ---------- */

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void) { return bench_urand(&rng); }

static void qmul_d(const double p[4], const double q[4], double r[4])
{
    r[0] = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
    r[1] = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
    r[2] = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
    r[3] = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
}

static void random_unit(double q[4])
{
    double u1 = urand(), u2 = urand() * 2 * PI, u3 = urand() * 2 * PI;
    double a = sqrt(1 - u1), b = sqrt(u1);
    q[0] = a * sin(u2);
    q[1] = a * cos(u2);
    q[2] = b * sin(u3);
    q[3] = b * cos(u3);
}

/* A rotation by an angle uniform in [0, max_angle] about a uniform random axis. */
static void random_within(double max_angle, double q[4])
{
    double ax[3], n;
    do {
        for (int k = 0; k < 3; ++k)
            ax[k] = 2 * urand() - 1;
        n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    } while (n < 1e-3 || n > 1);
    double h = 0.5 * max_angle * urand(), s = sin(h) / n;
    q[0] = ax[0] * s;
    q[1] = ax[1] * s;
    q[2] = ax[2] * s;
    q[3] = cos(h);
}

typedef struct soa4 { /* ozz's SoaTransform, rotation and translation only */
    float qx[4], qy[4], qz[4], qw[4], tx[4], ty[4], tz[4];
} soa4;

typedef struct set {
    int k, nj;
    mb_xform *aos[FRAMES][MAXK]; /* nj joints each */
    mb_pose pose[FRAMES][MAXK];
    soa4 *soa[FRAMES][MAXK];     /* nj / 4 blocks each */
    float w[FRAMES][MAXK];       /* sums to 1 */
    float *ref[FRAMES];          /* LAPACKE references, component-major per kernel group */
} set;

static void *xalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 0, n);
    return p;
}

static void make_set(set *s, int k, int nj, double max_angle, int lanes)
{
    s->k = k;
    s->nj = nj;
    double *centre = xalloc(sizeof(double) * 4 * (size_t)nj);
    for (int j = 0; j < nj; ++j)
        random_unit(centre + 4 * j);
    for (int f = 0; f < FRAMES; ++f) {
        double wsum = 0;
        for (int i = 0; i < k; ++i) {
            s->w[f][i] = (float)(0.2 + urand());
            wsum += s->w[f][i];
        }
        for (int i = 0; i < k; ++i)
            s->w[f][i] = (float)(s->w[f][i] / wsum);
        for (int i = 0; i < k; ++i) {
            s->aos[f][i] = xalloc(sizeof(mb_xform) * (size_t)nj);
            s->soa[f][i] = xalloc(sizeof(soa4) * (size_t)(nj / 4));
            s->pose[f][i].joints = s->aos[f][i];
            s->pose[f][i].count = nj;
            for (int j = 0; j < nj; ++j) {
                double d[4], q[4];
                random_within(max_angle, d);
                qmul_d(centre + 4 * j, d, q);
                double sg = urand() < 0.5 ? -1.0 : 1.0;
                mb_xform *x = &s->aos[f][i][j];
                for (int c = 0; c < 4; ++c)
                    x->rot[c] = (float)(sg * q[c]);
                for (int c = 0; c < 3; ++c)
                    x->pos[c] = (float)(20 * urand() - 10);
                soa4 *b = &s->soa[f][i][j / 4];
                int l = j % 4;
                b->qx[l] = x->rot[0];
                b->qy[l] = x->rot[1];
                b->qz[l] = x->rot[2];
                b->qw[l] = x->rot[3];
                b->tx[l] = x->pos[0];
                b->ty[l] = x->pos[1];
                b->tz[l] = x->pos[2];
            }
        }
        /* references for the log/exp-alone timing, in the kernel's group layout */
        s->ref[f] = xalloc(sizeof(float) * 4 * (size_t)(nj + lanes));
        for (int j = 0; j < nj; ++j) {
            float qs[MAXK][4], r[4];
            for (int i = 0; i < k; ++i)
                memcpy(qs[i], s->aos[f][i][j].rot, sizeof qs[i]);
            if (mb_quat_reference((const float(*)[4])qs, s->w[f], k, r, NULL) != MB_OK) {
                fprintf(stderr, "reference failed\n");
                exit(1);
            }
            for (int c = 0; c < 4; ++c)
                s->ref[f][(j / lanes) * 4 * lanes + c * lanes + j % lanes] = r[c];
        }
    }
    free(centre);
}

static void free_set(set *s)
{
    for (int f = 0; f < FRAMES; ++f) {
        for (int i = 0; i < s->k; ++i) {
            free(s->aos[f][i]);
            free(s->soa[f][i]);
        }
        free(s->ref[f]);
    }
}

/* ---------- the baseline: ozz-animation's blending, SoA, layer by layer ---------- */

#if defined(__SSE2__)
__attribute__((noinline)) static void ozz_blend_sse2(const soa4 *const *in, const float *w, int k,
                                                     int nb, soa4 *out)
{
    const __m128 sign = _mm_set1_ps(-0.0f);
    __m128 w0 = _mm_set1_ps(w[0]);
    for (int b = 0; b < nb; ++b) {
        const soa4 *a = &in[0][b];
        soa4 *o = &out[b];
        _mm_store_ps(o->qx, _mm_mul_ps(_mm_load_ps(a->qx), w0));
        _mm_store_ps(o->qy, _mm_mul_ps(_mm_load_ps(a->qy), w0));
        _mm_store_ps(o->qz, _mm_mul_ps(_mm_load_ps(a->qz), w0));
        _mm_store_ps(o->qw, _mm_mul_ps(_mm_load_ps(a->qw), w0));
        _mm_store_ps(o->tx, _mm_mul_ps(_mm_load_ps(a->tx), w0));
        _mm_store_ps(o->ty, _mm_mul_ps(_mm_load_ps(a->ty), w0));
        _mm_store_ps(o->tz, _mm_mul_ps(_mm_load_ps(a->tz), w0));
    }
    for (int i = 1; i < k; ++i) {
        __m128 wi = _mm_set1_ps(w[i]);
        for (int b = 0; b < nb; ++b) {
            const soa4 *a = &in[i][b];
            soa4 *o = &out[b];
            __m128 ax = _mm_load_ps(a->qx), ay = _mm_load_ps(a->qy), az = _mm_load_ps(a->qz),
                   aw = _mm_load_ps(a->qw);
            __m128 ox = _mm_load_ps(o->qx), oy = _mm_load_ps(o->qy), oz = _mm_load_ps(o->qz),
                   ow = _mm_load_ps(o->qw);
            __m128 d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ox, ax), _mm_mul_ps(oy, ay)),
                                  _mm_add_ps(_mm_mul_ps(oz, az), _mm_mul_ps(ow, aw)));
            __m128 s = _mm_xor_ps(wi, _mm_and_ps(d, sign)); /* w * sign(acc . q) */
            _mm_store_ps(o->qx, _mm_add_ps(ox, _mm_mul_ps(ax, s)));
            _mm_store_ps(o->qy, _mm_add_ps(oy, _mm_mul_ps(ay, s)));
            _mm_store_ps(o->qz, _mm_add_ps(oz, _mm_mul_ps(az, s)));
            _mm_store_ps(o->qw, _mm_add_ps(ow, _mm_mul_ps(aw, s)));
            _mm_store_ps(o->tx, _mm_add_ps(_mm_load_ps(o->tx), _mm_mul_ps(_mm_load_ps(a->tx), wi)));
            _mm_store_ps(o->ty, _mm_add_ps(_mm_load_ps(o->ty), _mm_mul_ps(_mm_load_ps(a->ty), wi)));
            _mm_store_ps(o->tz, _mm_add_ps(_mm_load_ps(o->tz), _mm_mul_ps(_mm_load_ps(a->tz), wi)));
        }
    }
    for (int b = 0; b < nb; ++b) {
        soa4 *o = &out[b];
        __m128 ox = _mm_load_ps(o->qx), oy = _mm_load_ps(o->qy), oz = _mm_load_ps(o->qz),
               ow = _mm_load_ps(o->qw);
        __m128 n = _mm_add_ps(_mm_add_ps(_mm_mul_ps(ox, ox), _mm_mul_ps(oy, oy)),
                              _mm_add_ps(_mm_mul_ps(oz, oz), _mm_mul_ps(ow, ow)));
        __m128 r = _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(n));
        _mm_store_ps(o->qx, _mm_mul_ps(ox, r));
        _mm_store_ps(o->qy, _mm_mul_ps(oy, r));
        _mm_store_ps(o->qz, _mm_mul_ps(oz, r));
        _mm_store_ps(o->qw, _mm_mul_ps(ow, r));
    }
}
#endif

/* The same loop in plain C (for machines without SSE2; also the AVX2 variant below). */
#define OZZ_BLEND_C_BODY                                                                    \
    for (int b = 0; b < nb; ++b) {                                                          \
        const soa4 *a = &in[0][b];                                                          \
        soa4 *o = &out[b];                                                                  \
        for (int l = 0; l < 4; ++l) {                                                       \
            o->qx[l] = a->qx[l] * w[0];                                                     \
            o->qy[l] = a->qy[l] * w[0];                                                     \
            o->qz[l] = a->qz[l] * w[0];                                                     \
            o->qw[l] = a->qw[l] * w[0];                                                     \
            o->tx[l] = a->tx[l] * w[0];                                                     \
            o->ty[l] = a->ty[l] * w[0];                                                     \
            o->tz[l] = a->tz[l] * w[0];                                                     \
        }                                                                                   \
    }                                                                                       \
    for (int i = 1; i < k; ++i)                                                             \
        for (int b = 0; b < nb; ++b) {                                                      \
            const soa4 *a = &in[i][b];                                                      \
            soa4 *o = &out[b];                                                              \
            for (int l = 0; l < 4; ++l) {                                                   \
                float d = o->qx[l] * a->qx[l] + o->qy[l] * a->qy[l] + o->qz[l] * a->qz[l] + \
                          o->qw[l] * a->qw[l];                                              \
                float s = d < 0.0f ? -w[i] : w[i];                                          \
                o->qx[l] += a->qx[l] * s;                                                   \
                o->qy[l] += a->qy[l] * s;                                                   \
                o->qz[l] += a->qz[l] * s;                                                   \
                o->qw[l] += a->qw[l] * s;                                                   \
                o->tx[l] += a->tx[l] * w[i];                                                \
                o->ty[l] += a->ty[l] * w[i];                                                \
                o->tz[l] += a->tz[l] * w[i];                                                \
            }                                                                               \
        }                                                                                   \
    for (int b = 0; b < nb; ++b) {                                                          \
        soa4 *o = &out[b];                                                                  \
        for (int l = 0; l < 4; ++l) {                                                       \
            float n = o->qx[l] * o->qx[l] + o->qy[l] * o->qy[l] + o->qz[l] * o->qz[l] +     \
                      o->qw[l] * o->qw[l];                                                  \
            float r = 1.0f / sqrtf(n);                                                      \
            o->qx[l] *= r;                                                                  \
            o->qy[l] *= r;                                                                  \
            o->qz[l] *= r;                                                                  \
            o->qw[l] *= r;                                                                  \
        }                                                                                   \
    }

#if !defined(__SSE2__)
__attribute__((noinline)) static void ozz_blend_c(const soa4 *const *restrict in,
                                                  const float *restrict w, int k, int nb,
                                                  soa4 *restrict out)
{
    OZZ_BLEND_C_BODY
}
#endif

/* 8 joints per step with AVX2: the plain loop over pairs of 4-blocks, compiled for AVX2. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_OZZ_AVX2 1
__attribute__((noinline, target("avx2,fma"))) static void
ozz_blend_avx2(const soa4 *const *restrict in, const float *restrict w, int k, int nb,
               soa4 *restrict out)
{
    OZZ_BLEND_C_BODY
}
#endif

/* A plain scalar float nlerp over the AoS poses mb_blend_run reads (7 floats a joint),
 * joint by joint: the loop a game without a blend library writes, the same arithmetic as
 * the baseline above (running sum with the sign fixed against it, 1 / sqrt). A stand-in for
 * ozz-animation's BlendingJob where ozz is not built (ozz's also blends scales and runs
 * its SoA passes per layer). */
__attribute__((noinline)) static void nlerp_scalar(const mb_xform *const *restrict in,
                                                   const float *restrict w, int k, int nj,
                                                   mb_xform *restrict out)
{
    for (int j = 0; j < nj; ++j) {
        const mb_xform *a = &in[0][j];
        float q0 = a->rot[0] * w[0], q1 = a->rot[1] * w[0], q2 = a->rot[2] * w[0],
              q3 = a->rot[3] * w[0];
        float p0 = a->pos[0] * w[0], p1 = a->pos[1] * w[0], p2 = a->pos[2] * w[0];
        for (int i = 1; i < k; ++i) {
            const mb_xform *b = &in[i][j];
            float d = q0 * b->rot[0] + q1 * b->rot[1] + q2 * b->rot[2] + q3 * b->rot[3];
            float s = d < 0.0f ? -w[i] : w[i];
            q0 += s * b->rot[0];
            q1 += s * b->rot[1];
            q2 += s * b->rot[2];
            q3 += s * b->rot[3];
            p0 += w[i] * b->pos[0];
            p1 += w[i] * b->pos[1];
            p2 += w[i] * b->pos[2];
        }
        float r = 1.0f / sqrtf(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3);
        mb_xform *o = &out[j];
        o->rot[0] = q0 * r;
        o->rot[1] = q1 * r;
        o->rot[2] = q2 * r;
        o->rot[3] = q3 * r;
        o->pos[0] = p0;
        o->pos[1] = p1;
        o->pos[2] = p2;
    }
}

/* ---------- timing ---------- */

typedef struct timing {
    double best, median; /* ns per joint */
} timing;

enum {
    T_BASE,
    T_BASE_AVX2,
    T_SCALAR,
    T_NLERP,
    T_NLERP_JOB,
    T_LOGEXP,
    T_LOGEXP_JOB,
    T_LOGEXP_AVX2,
    T_LOGEXP_SSE2,
    T_LOGEXP_STEP,
    T_CHECK,
    T_LAPACKE,
    T_COUNT
};

typedef struct bench_ctx {
    set *s;
    soa4 *soa_out;
    mb_xform *out;
    mb_blend_kernel_fn_ kernel;
    mb_blend_check_fn_ check;
    int lanes;
    int ok;
    mb_blend_job *job[2]; /* prepared jobs per frame: [0] logexp, [1] nlerp */
} bench_ctx;

/* The prepared jobs of a set, one per frame (each frame's poses are other buffers). */
static void make_jobs(bench_ctx *c)
{
    set *s = c->s;
    for (int m = 0; m < 2; ++m) {
        c->job[m] = xalloc(sizeof(mb_blend_job) * FRAMES);
        for (int f = 0; f < FRAMES; ++f) {
            mb_blend_layer layers[MAXK];
            for (int i = 0; i < s->k; ++i)
                layers[i] = (mb_blend_layer){&s->pose[f][i], s->w[f][i], NULL};
            mb_blend_desc d = {0};
            d.layers = layers;
            d.layer_count = s->k;
            d.method = m ? MB_BLEND_NLERP : MB_BLEND_LOGEXP;
            d.out.joints = c->out;
            d.out.count = s->nj;
            if (mb_blend_job_init(&d, &c->job[m][f]) != MB_OK)
                c->ok = 0;
        }
    }
}

static void run_blend(bench_ctx *c, int f, mb_eigen_solver solver, mb_isa_ isa,
                      mb_blend_kstats_ *stats, mb_blend_method method, mb_blend_diag *diag)
{
    set *s = c->s;
    mb_blend_layer layers[MAXK];
    for (int i = 0; i < s->k; ++i)
        layers[i] = (mb_blend_layer){&s->pose[f][i], s->w[f][i], NULL};
    mb_blend_desc d = {0};
    d.layers = layers;
    d.layer_count = s->k;
    d.solver = solver;
    d.method = method;
    d.diag = diag;
    d.out.joints = c->out;
    d.out.count = s->nj;
    if (mb_blend_run_isa_(&d, isa, stats) != MB_OK)
        c->ok = 0;
}

/* The kernel with given references: what the job costs without its solver. */
static void run_step(bench_ctx *c, int f)
{
    set *s = c->s;
    const mb_xform *src[MAXK];
    mb_blend_batch_ b;
    memset(&b, 0, sizeof b);
    b.k = s->k;
    b.src = src;
    b.weight = s->w[f];
    b.dst = c->out;
    b.ref = s->ref[f];
    b.min_gap = 0.25f;
    b.min_gap2 = 0.25f;
    b.tol = 2e-6f;
    for (int i = 0; i < s->k; ++i)
        src[i] = s->aos[f][i];
    for (int j0 = 0; j0 < s->nj;) {
        b.j0 = j0;
        b.count = s->nj - j0;
        j0 += c->kernel(&b, NULL);
    }
}

static void run_one(bench_ctx *c, int what, int f)
{
    set *s = c->s;
    const soa4 *in[MAXK];
    for (int i = 0; i < s->k; ++i)
        in[i] = s->soa[f][i];
    switch (what) {
    case T_BASE:
#if defined(__SSE2__)
        ozz_blend_sse2(in, s->w[f], s->k, s->nj / 4, c->soa_out);
#else
        ozz_blend_c(in, s->w[f], s->k, s->nj / 4, c->soa_out);
#endif
        break;
    case T_BASE_AVX2:
#ifdef HAVE_OZZ_AVX2
        ozz_blend_avx2(in, s->w[f], s->k, s->nj / 4, c->soa_out);
#endif
        break;
    case T_SCALAR: {
        const mb_xform *src[MAXK];
        for (int i = 0; i < s->k; ++i)
            src[i] = s->aos[f][i];
        nlerp_scalar(src, s->w[f], s->k, s->nj, c->out);
        break;
    }
    case T_NLERP:
        run_blend(c, f, MB_EIGEN_AUTO, MB_ISA_AUTO_, NULL, MB_BLEND_NLERP, NULL);
        break;
    case T_NLERP_JOB: /* the weights passed per run, as a game does */
    case T_LOGEXP_JOB:
        if (mb_blend_job_run(&c->job[what == T_NLERP_JOB][f], s->w[f]) != MB_OK)
            c->ok = 0;
        break;
    case T_LOGEXP:
        run_blend(c, f, MB_EIGEN_AUTO, MB_ISA_AUTO_, NULL, MB_BLEND_LOGEXP, NULL);
        break;
    case T_LOGEXP_AVX2:
        run_blend(c, f, MB_EIGEN_AUTO, MB_ISA_AVX2_, NULL, MB_BLEND_LOGEXP, NULL);
        break;
    case T_LOGEXP_SSE2:
        run_blend(c, f, MB_EIGEN_AUTO, MB_ISA_SSE2_, NULL, MB_BLEND_LOGEXP, NULL);
        break;
    case T_LOGEXP_STEP:
        run_step(c, f);
        break;
    case T_CHECK: /* the value pre-check validation runs on every input */
        for (int i = 0; i < s->k; ++i)
            if (!c->check(s->aos[f][i], s->nj))
                c->ok = 0;
        break;
    case T_LAPACKE:
        run_blend(c, f, MB_EIGEN_LAPACKE, MB_ISA_AUTO_, NULL, MB_BLEND_LOGEXP, NULL);
        break;
    default:
        break;
    }
    __asm__ volatile("" : : "r"(c->out), "r"(c->soa_out) : "memory");
}

/* Calls per timed batch so that a batch takes about target seconds. */
static int calibrate(bench_ctx *c, int what, double target)
{
    int calls = 1;
    for (;;) {
        double t0 = bench_cpu_now();
        for (int r = 0; r < calls; ++r)
            run_one(c, what, r % FRAMES);
        double t = bench_cpu_now() - t0;
        if (t > target || calls > (1 << 24))
            return t > 0 ? (int)(calls * target / t) + 1 : calls;
        calls *= 2;
    }
}

/* ---------- main ---------- */

static double angle_between(const float a[4], const float b[4])
{
    return mb_quat_angle_between(a, b);
}

int main(int argc, char **argv)
{
    int runs = 15, quick = 0, only_dist = -1, only_k = 0, only_j = 0, loop_what = -1;
    long loop_n = 0;
    static const char *const loop_names[T_COUNT] = {
        "base", "base-avx2", "base-scalar", "nlerp", "nlerp-job", "logexp", "logexp-job",
        "logexp-avx2", "logexp-sse2",
        "step", "check", "lapacke"};
    for (int a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--runs") == 0 && a + 1 < argc)
            runs = atoi(argv[++a]);
        else if (strcmp(argv[a], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc && strcmp(argv[a + 1], "clustered") == 0)
            only_dist = 0, ++a;
        else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc && strcmp(argv[a + 1], "spread") == 0)
            only_dist = 1, ++a;
        else if (strcmp(argv[a], "--loop") == 0 && a + 2 < argc) {
            for (int w = 0; w < T_COUNT; ++w)
                if (strcmp(argv[a + 1], loop_names[w]) == 0)
                    loop_what = w;
            loop_n = atol(argv[a + 2]);
            a += 2;
            if (loop_what < 0) {
                fprintf(stderr, "unknown column %s\n", argv[a - 1]);
                return 2;
            }
        } else if (strcmp(argv[a], "--k") == 0 && a + 1 < argc)
            only_k = atoi(argv[++a]);
        else if (strcmp(argv[a], "--joints") == 0 && a + 1 < argc)
            only_j = atoi(argv[++a]);
        else {
            fprintf(stderr, "usage: %s [--runs N] [--quick] [--only clustered|spread] [--k N] "
                            "[--joints N] [--loop COLUMN N]\n", argv[0]);
            return 2;
        }
    }
    if (quick)
        runs = 3;
    if (runs < 1)
        runs = 1;
    if (runs > 64)
        runs = 64;
    int lanes = 4;
    mb_blend_kernel_fn_ kernel = mb_blend_kernel_(MB_ISA_AUTO_, &lanes);
    int have_sse2 = mb_blend_kernel_(MB_ISA_SSE2_, NULL) != NULL;
    int have_avx2 = mb_blend_kernel_(MB_ISA_AVX2_, NULL) != NULL;
    char load[128];
    bench_loadavg(load, sizeof load);
    printf("bench_blend: kernel %s (%d lanes); %d timed runs per number; load %s\n",
           mb_isa_name_(mb_cpu_auto_isa_()),
           lanes, runs, load);
    printf("cells: best/median ns per joint, then the ratio to the SSE2 baseline (median over "
           "runs of run time / the same run's baseline time); nlerp also to base-scalar\n\n");
    printf("%-9s K   J | %11s | %17s | %17s | %23s %17s | %17s %17s %17s %17s %17s | %11s | "
           "%21s | %6s %5s %8s %8s\n",
           "inputs", "base", "base-avx2", "base-scalar", "nlerp (x base, x scalar)", "nlerp-job",
           "logexp", "logexp-job", "logexp-avx2", "logexp-sse2", "log/exp step", "check",
           "lapacke", "scalar", "iters", "maxdiff", "nlerpdif");

    int status = 0;
    const int ks[3] = {2, 4, 8}, js[2] = {64, 256};
    for (int dist = 0; dist < 2; ++dist) {
        if (only_dist >= 0 && dist != only_dist)
            continue;
        double max_angle = dist == 0 ? 30.0 * PI / 180.0 : 90.0 * PI / 180.0;
        for (int ki = 0; ki < 3; ++ki)
            for (int ji = 0; ji < 2; ++ji) {
                if ((only_k && ks[ki] != only_k) || (only_j && js[ji] != only_j))
                    continue;
                set s;
                make_set(&s, ks[ki], js[ji], max_angle, lanes);
                bench_ctx c = {&s, xalloc(sizeof(soa4) * (size_t)(s.nj / 4)),
                               xalloc(sizeof(mb_xform) * (size_t)s.nj), kernel,
                               mb_blend_checker_(MB_ISA_AUTO_), lanes, 1, {NULL, NULL}};
                make_jobs(&c);
                if (loop_what >= 0) {
                    for (long n = 0; n < loop_n; ++n)
                        run_one(&c, loop_what, (int)(n % FRAMES));
                    if (!c.ok)
                        status = 1;
                    free(c.soa_out);
                    free(c.out);
                    free(c.job[0]);
                    free(c.job[1]);
                    free_set(&s);
                    continue;
                }
                /* accuracy against the exact path, and the kernel's statistics */
                mb_xform *exact = xalloc(sizeof(mb_xform) * (size_t)s.nj);
                double max_diff = 0, nlerp_diff = 0;
                float *angles = xalloc(sizeof(float) * (size_t)s.nj);
                mb_blend_kstats_ ks_ = {0};
                for (int f = 0; f < FRAMES; ++f) {
                    run_blend(&c, f, MB_EIGEN_AUTO, MB_ISA_AUTO_, &ks_, MB_BLEND_LOGEXP, NULL);
                    memcpy(exact, c.out, sizeof(mb_xform) * (size_t)s.nj);
                    run_blend(&c, f, MB_EIGEN_LAPACKE, MB_ISA_AUTO_, NULL, MB_BLEND_LOGEXP, NULL);
                    for (int j = 0; j < s.nj; ++j) {
                        double e = angle_between(exact[j].rot, c.out[j].rot);
                        if (e > max_diff)
                            max_diff = e;
                    }
                    /* nlerp: the kernel against the scalar double path (which a max_angle
                     * diagnostic selects) */
                    run_blend(&c, f, MB_EIGEN_AUTO, MB_ISA_AUTO_, NULL, MB_BLEND_NLERP, NULL);
                    memcpy(exact, c.out, sizeof(mb_xform) * (size_t)s.nj);
                    mb_blend_diag dg = {0};
                    dg.max_angle = angles;
                    dg.count = s.nj;
                    run_blend(&c, f, MB_EIGEN_AUTO, MB_ISA_AUTO_, NULL, MB_BLEND_NLERP, &dg);
                    for (int j = 0; j < s.nj; ++j) {
                        double e = angle_between(exact[j].rot, c.out[j].rot);
                        if (e > nlerp_diff)
                            nlerp_diff = e;
                    }
                }
                free(exact);
                free(angles);
                double joints_run = (double)FRAMES * s.nj;
                double scalar_share = ks_.rejected_lanes / joints_run;
                double iters = ks_.groups ? (double)ks_.iterations / ks_.groups : 0;

                timing t[T_COUNT];
                int calls[T_COUNT];
                double samples[T_COUNT][64];
                double target = quick ? 0.002 : 0.01;
                for (int w = 0; w < T_COUNT; ++w) {
                    int skip = (w == T_BASE_AVX2 && !have_avx2) ||
                               (w == T_LOGEXP_AVX2 && (!have_avx2 || lanes == 8)) ||
                               (w == T_LOGEXP_SSE2 && !have_sse2);
#ifndef HAVE_OZZ_AVX2
                    skip |= w == T_BASE_AVX2;
#endif
                    calls[w] = skip ? 0 : calibrate(&c, w, w == T_LAPACKE ? target / 2 : target);
                }
                /* interleave the measurements so they share the machine's noise */
                for (int r = 0; r < runs; ++r)
                    for (int w = 0; w < T_COUNT; ++w) {
                        if (!calls[w]) {
                            samples[w][r] = NAN;
                            continue;
                        }
                        double t0 = bench_cpu_now();
                        for (int n = 0; n < calls[w]; ++n)
                            run_one(&c, w, n % FRAMES);
                        samples[w][r] = (bench_cpu_now() - t0) * 1e9 / calls[w] / s.nj;
                    }
                for (int w = 0; w < T_COUNT; ++w) {
                    t[w].best = calls[w] ? bench_min(samples[w], runs) : NAN;
                    t[w].median = calls[w] ? bench_median(samples[w], runs) : NAN;
                }
                /* ratios: the median over runs of each run's time over the same run's
                 * baseline (measured moments apart), which the machine's drift spoils least */
                double ratio[T_COUNT];
                for (int w = 0; w < T_COUNT; ++w) {
                    double rr[64];
                    for (int r = 0; r < runs; ++r)
                        rr[r] = samples[w][r] / samples[T_BASE][r];
                    ratio[w] = calls[w] ? bench_median(rr, runs) : NAN;
                }
                char cell[T_COUNT][48];
                for (int w = 0; w < T_COUNT; ++w) {
                    if (!calls[w])
                        snprintf(cell[w], sizeof cell[w], "-");
                    else if (w == T_BASE || w == T_CHECK)
                        snprintf(cell[w], sizeof cell[w], "%.2f/%.2f", t[w].best, t[w].median);
                    else
                        snprintf(cell[w], sizeof cell[w], "%.2f/%.2f %5.2fx", t[w].best,
                                 t[w].median, ratio[w]);
                }
                if (calls[T_NLERP]) { /* nlerp against the scalar loop too */
                    double rr[64];
                    for (int r = 0; r < runs; ++r)
                        rr[r] = samples[T_NLERP][r] / samples[T_SCALAR][r];
                    snprintf(cell[T_NLERP], sizeof cell[T_NLERP], "%.2f/%.2f %.2fx %.2fx",
                             t[T_NLERP].best, t[T_NLERP].median, ratio[T_NLERP],
                             bench_median(rr, runs));
                }
                printf("%-9s %d %3d | %11s | %17s | %17s | %23s %17s | %17s %17s %17s %17s %17s | "
                       "%11s | %21s | %5.1f%% %5.2f %8.2g %8.2g\n",
                       dist == 0 ? "clustered" : "spread", s.k, s.nj, cell[T_BASE],
                       cell[T_BASE_AVX2], cell[T_SCALAR], cell[T_NLERP], cell[T_NLERP_JOB],
                       cell[T_LOGEXP], cell[T_LOGEXP_JOB], cell[T_LOGEXP_AVX2], cell[T_LOGEXP_SSE2], cell[T_LOGEXP_STEP],
                       cell[T_CHECK], cell[T_LAPACKE], 100 * scalar_share, iters,
                       max_diff * 180 / PI, nlerp_diff * 180 / PI);
                fflush(stdout);
                if (!c.ok)
                    status = 1;
                free(c.soa_out);
                free(c.out);
                free(c.job[0]);
                free(c.job[1]);
                free_set(&s);
            }
    }
    printf("\nbase: ozz-style nlerp, SSE2 (base-avx2: the same loop compiled for AVX2); "
           "base-scalar: a plain scalar float nlerp loop over the AoS poses; nlerp: mb_blend_run "
           "with MB_BLEND_NLERP; nlerp-job, logexp-job: the same through a prepared job "
           "(mb_blend_job_run, weights passed per run); logexp: "
           "mb_blend_run, default method and solver; logexp-avx2, logexp-sse2: the same with "
           "that kernel forced; log/exp step: the kernel with the references given; check: the value "
           "pre-check mb_blend_run runs before writing on joints past the first 256 and on "
           "layers of weight 0, on every input (not in logexp here: the kernel validates what it "
           "reads); lapacke: MB_EIGEN_LAPACKE. scalar: share of joints the kernel handed to the "
           "double-precision path; iters: matrix-vector products of the power iteration per "
           "group of joints (0: closed form); maxdiff: largest angle (degrees) between logexp "
           "and lapacke over these inputs; nlerpdif: largest angle (degrees) between nlerp's kernel "
           "and its scalar double path. Times are thread CPU time.\n");
    if (status)
        fprintf(stderr, "bench_blend: a blend failed\n");
    return status;
}
