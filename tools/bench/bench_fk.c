/* bench_fk: speed of forward kinematics (mb_fk) against two baselines in one process, on
 * the same skeletons and poses.
 *
 * Skeletons: random trees of 64 and 256 joints (each joint's parent is the previous joint
 * with probability 0.7, else any earlier joint: chains like limbs and spines, plus
 * branching), and optionally a BVH file's skeleton (--bvh FILE). Poses: random unit
 * quaternions and translations. It reports ns per joint for:
 *   before   the previous mb_fk (one quaternion at a time through cglm, copies into aligned
 *            temporaries), kept here as the in-process baseline;
 *   ozz-sse2 ozz-animation's LocalToModelJob algorithm written out with SSE2 (what its
 *            default build runs): locals as SoA of 4 joints (scale included, as ozz
 *            composes it), a 4x4 transpose per group, then parent * local with splats, one
 *            multiply and one add per term (no FMA in that build);
 *   generic, avx2, avx512  mb_fk's kernels (mb_fk_isa_), where the CPU runs them;
 *   mb_fk    the public function (the kernel picked for this CPU);
 * and mb_fk / ozz-sse2, mb_fk / before. It checks every kernel against a double-precision
 * FK first (the exit status is non-zero only if a kernel is off by more than 1e-4).
 * Then sampling (mb_clip_sample, sequential 60 Hz playback of a 10 s clip keyed at 30 Hz
 * on the same skeletons): the portable and AVX-512 rotation kernels and the public
 * function, ns per joint.
 * Times are the thread's CPU time; medians (and best) of --runs runs (default 15).
 *
 * Options: --runs N, --quick (3 runs), --bvh FILE (also time that skeleton, rest pose
 * rotations replaced by random ones), --loop KERNEL N (no table: run one kernel N calls on
 * the 256-joint tree, for callgrind; KERNEL is before, ozz, generic, avx2, avx512). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>
#include <emmintrin.h>

#include "bench_util.h"
#include "mblend/offline/bvh.h"
#include "mblend/offline/clip_build.h"
#include "runtime/anim/fk_internal.h"
#include "runtime/anim/sample_internal.h"

static uint64_t rng = 0x853C49E6748FEA9Bull;
static double urand(void) { return bench_urand(&rng); }

/* ---------- the previous mb_fk (the in-process "before") ---------- */

__attribute__((noinline)) static void fk_before(const int *parents, const mb_xform *local, int n,
                                               float (*out)[16])
{
    for (int i = 0; i < n; ++i) {
        const mb_xform *x = &local[i];
        versor q = {x->rot[0], x->rot[1], x->rot[2], x->rot[3]};
        mat4 m;
        glm_quat_mat4(q, m);
        m[3][0] = x->pos[0];
        m[3][1] = x->pos[1];
        m[3][2] = x->pos[2];
        int p = parents[i];
        if (p >= 0) {
            mat4 pw, w;
            memcpy(pw, out[p], sizeof pw);
            glm_mul(pw, m, w);
            memcpy(out[i], w, sizeof w);
        } else {
            memcpy(out[i], m, sizeof m);
        }
    }
}

/* ---------- ozz's LocalToModelJob, SSE2 ---------- */

typedef struct soa_xform { /* ozz's SoaTransform: 4 joints, one per lane */
    __m128 tx, ty, tz, qx, qy, qz, qw, sx, sy, sz;
} soa_xform;

#define SPLAT_(v, i) _mm_shuffle_ps(v, v, _MM_SHUFFLE(i, i, i, i))

/* 4 columns of a * b, columns as registers (ozz's Float4x4 operator*) */
static inline void mul44(const __m128 a[4], const __m128 b[4], __m128 r[4])
{
    for (int c = 0; c < 4; ++c) {
        __m128 t = _mm_mul_ps(a[0], SPLAT_(b[c], 0));
        t = _mm_add_ps(t, _mm_mul_ps(a[1], SPLAT_(b[c], 1)));
        t = _mm_add_ps(t, _mm_mul_ps(a[2], SPLAT_(b[c], 2)));
        r[c] = _mm_add_ps(t, _mm_mul_ps(a[3], SPLAT_(b[c], 3)));
    }
}

__attribute__((noinline)) static void fk_ozz(const int *parents, const soa_xform *local, int n,
                                            __m128 (*out)[4])
{
    const __m128 one = _mm_set1_ps(1.0f), zero = _mm_setzero_ps();
    for (int g = 0; g * 4 < n; ++g) {
        const soa_xform *s = &local[g];
        /* SoaFloat4x4::FromAffine(translation, rotation, scale) */
        __m128 xx = _mm_mul_ps(s->qx, s->qx), xy = _mm_mul_ps(s->qx, s->qy), xz = _mm_mul_ps(s->qx, s->qz),
               xw = _mm_mul_ps(s->qx, s->qw), yy = _mm_mul_ps(s->qy, s->qy), yz = _mm_mul_ps(s->qy, s->qz),
               yw = _mm_mul_ps(s->qy, s->qw), zz = _mm_mul_ps(s->qz, s->qz), zw = _mm_mul_ps(s->qz, s->qw);
        __m128 two = _mm_set1_ps(2.0f);
        __m128 m[4][4];
        m[0][0] = _mm_mul_ps(s->sx, _mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(yy, zz))));
        m[0][1] = _mm_mul_ps(s->sx, _mm_mul_ps(two, _mm_add_ps(xy, zw)));
        m[0][2] = _mm_mul_ps(s->sx, _mm_mul_ps(two, _mm_sub_ps(xz, yw)));
        m[1][0] = _mm_mul_ps(s->sy, _mm_mul_ps(two, _mm_sub_ps(xy, zw)));
        m[1][1] = _mm_mul_ps(s->sy, _mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, zz))));
        m[1][2] = _mm_mul_ps(s->sy, _mm_mul_ps(two, _mm_add_ps(yz, xw)));
        m[2][0] = _mm_mul_ps(s->sz, _mm_mul_ps(two, _mm_add_ps(xz, yw)));
        m[2][1] = _mm_mul_ps(s->sz, _mm_mul_ps(two, _mm_sub_ps(yz, xw)));
        m[2][2] = _mm_mul_ps(s->sz, _mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, yy))));
        m[0][3] = m[1][3] = m[2][3] = zero;
        m[3][0] = s->tx;
        m[3][1] = s->ty;
        m[3][2] = s->tz;
        m[3][3] = one;
        /* Transpose4x4 per column: aos[j][c] is column c of joint 4g + j */
        __m128 aos[4][4];
        for (int c = 0; c < 4; ++c) {
            __m128 a = m[c][0], b = m[c][1], cc = m[c][2], d = m[c][3];
            _MM_TRANSPOSE4_PS(a, b, cc, d);
            aos[0][c] = a;
            aos[1][c] = b;
            aos[2][c] = cc;
            aos[3][c] = d;
        }
        for (int j = 0; j < 4 && 4 * g + j < n; ++j) {
            int i = 4 * g + j, p = parents[i];
            if (p < 0)
                memcpy(out[i], aos[j], sizeof aos[j]);
            else
                mul44(out[p], aos[j], out[i]);
        }
    }
}

/* ---------- inputs ---------- */

typedef struct fixture {
    const char *name;
    mb_skeleton *s;
    int n;
    const int *parents;
    mb_xform *pose;
    soa_xform *soa;
    float (*out)[16];
    __m128 (*out_ozz)[4];
} fixture;

static mb_skeleton *random_tree(int n)
{
    mb_joint_desc *j = calloc((size_t)n, sizeof *j);
    char (*names)[16] = calloc((size_t)n, sizeof *names);
    if (!j || !names)
        exit(1);
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        j[i].name = names[i];
        j[i].parent = i == 0 ? -1 : (urand() < 0.7 ? i - 1 : (int)(urand() * i));
        for (int k = 0; k < 3; ++k)
            j[i].offset[k] = (float)(urand() * 2 - 1);
    }
    mb_skeleton_desc d = {j, n, {0}};
    mb_skeleton *s = NULL;
    if (mb_skeleton_create(&d, &s, NULL) != MB_OK)
        exit(1);
    free(j);
    free(names);
    return s;
}

static void make_fixture(fixture *f, const char *name, mb_skeleton *s)
{
    memset(f, 0, sizeof *f);
    f->name = name;
    f->s = s;
    f->n = mb_skeleton_joint_count(s);
    f->parents = mb_skeleton_parents(s);
    int groups = (f->n + 3) / 4;
    f->pose = calloc((size_t)f->n, sizeof *f->pose);
    f->soa = aligned_alloc(64, (size_t)groups * sizeof *f->soa);
    f->out = aligned_alloc(64, (size_t)f->n * sizeof *f->out);
    f->out_ozz = aligned_alloc(64, (size_t)groups * 4 * sizeof *f->out_ozz);
    if (!f->pose || !f->soa || !f->out || !f->out_ozz)
        exit(1);
    float soa[10][4 * 4096 + 4];
    memset(soa, 0, sizeof soa);
    for (int i = 0; i < f->n; ++i) {
        double q[4], len = 0;
        for (int k = 0; k < 4; ++k) {
            q[k] = urand() * 2 - 1;
            len += q[k] * q[k];
        }
        for (int k = 0; k < 4; ++k)
            f->pose[i].rot[k] = (float)(q[k] / sqrt(len));
        memcpy(f->pose[i].pos, mb_skeleton_offset(s, i), sizeof f->pose[i].pos);
        float v[10] = {f->pose[i].pos[0], f->pose[i].pos[1], f->pose[i].pos[2], f->pose[i].rot[0],
                       f->pose[i].rot[1], f->pose[i].rot[2], f->pose[i].rot[3], 1, 1, 1};
        for (int c = 0; c < 10; ++c)
            soa[c][i] = v[c];
    }
    for (int g = 0; g < groups; ++g) {
        __m128 *r = &f->soa[g].tx;
        for (int c = 0; c < 10; ++c)
            r[c] = _mm_loadu_ps(&soa[c][4 * g]);
    }
}

/* World positions in double from the pose, to check every kernel. */
static double check(const fixture *f, const float (*w)[16])
{
    double (*m)[12] = malloc((size_t)f->n * sizeof *m), worst = 0;
    for (int i = 0; i < f->n; ++i) {
        const float *q = f->pose[i].rot;
        double x = q[0], y = q[1], z = q[2], s = q[3], l[12] = {
            1 - 2 * (y * y + z * z), 2 * (x * y + z * s), 2 * (x * z - y * s),
            2 * (x * y - z * s), 1 - 2 * (x * x + z * z), 2 * (y * z + x * s),
            2 * (x * z + y * s), 2 * (y * z - x * s), 1 - 2 * (x * x + y * y),
            f->pose[i].pos[0], f->pose[i].pos[1], f->pose[i].pos[2]};
        int p = f->parents[i];
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r)
                m[i][3 * c + r] = p < 0 ? l[3 * c + r]
                                        : m[p][r] * l[3 * c] + m[p][3 + r] * l[3 * c + 1] +
                                              m[p][6 + r] * l[3 * c + 2] + (c == 3 ? m[p][9 + r] : 0);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r)
                worst = fmax(worst, fabs(m[i][3 * c + r] - w[i][4 * c + r]));
    }
    free(m);
    return worst;
}

enum { K_BEFORE, K_OZZ, K_GENERIC, K_AVX2, K_AVX512, K_AUTO, K_COUNT };
static const char *const kname[K_COUNT] = {"before", "ozz-sse2", "generic", "avx2", "avx512", "mb_fk"};
static const mb_isa_ kisa[K_COUNT] = {0, 0, MB_ISA_GENERIC_, MB_ISA_AVX2_, MB_ISA_AVX512_, MB_ISA_AUTO_};

static int available(int k) { return k < K_GENERIC || mb_fk_kernel_(kisa[k]) != NULL; }

static void run_kernel(fixture *f, int k, int calls)
{
    mb_pose p = {f->pose, f->n};
    for (int c = 0; c < calls; ++c) {
        if (k == K_BEFORE)
            fk_before(f->parents, f->pose, f->n, f->out);
        else if (k == K_OZZ)
            fk_ozz(f->parents, f->soa, f->n, f->out_ozz);
        else if (mb_fk_isa_(f->s, &p, f->out, f->n, kisa[k]) != MB_OK)
            exit(1);
    }
}

static void time_kernel(fixture *f, int k, int runs, double *med, double *best)
{
    int calls = 200000 / f->n + 1;
    double t[64];
    run_kernel(f, k, calls);
    for (int r = 0; r < runs; ++r) {
        double t0 = bench_cpu_now();
        run_kernel(f, k, calls);
        t[r] = (bench_cpu_now() - t0) * 1e9 / ((double)calls * f->n);
    }
    *med = bench_median(t, runs);
    *best = bench_min(t, runs);
}

static int bench_fixture(fixture *f, int runs)
{
    int bad = 0;
    double med[K_COUNT] = {0}, best[K_COUNT] = {0};
    for (int k = 0; k < K_COUNT; ++k) {
        if (!available(k))
            continue;
        run_kernel(f, k, 1);
        double err = k == K_OZZ ? check(f, (const float(*)[16])(const void *)f->out_ozz)
                                : check(f, (const float(*)[16])f->out);
        if (err > 1e-4) {
            fprintf(stderr, "bench_fk: %s off by %g on %s\n", kname[k], err, f->name);
            bad = 1;
        }
        time_kernel(f, k, runs, &med[k], &best[k]);
    }
    printf("%-16s %6d", f->name, f->n);
    for (int k = 0; k < K_COUNT; ++k) {
        char c[32] = "-";
        if (available(k))
            snprintf(c, sizeof c, "%.2f (%.2f)", med[k], best[k]);
        printf(" %14s", c);
    }
    printf(" %7.2fx %7.2fx\n", med[K_AUTO] / med[K_OZZ], med[K_AUTO] / med[K_BEFORE]);
    fflush(stdout);
    return bad;
}

static void free_fixture(fixture *f)
{
    mb_skeleton_destroy(f->s);
    free(f->pose);
    free(f->soa);
    free(f->out);
    free(f->out_ozz);
}

/* ---------- sampling ---------- */

/* A 10 s clip keyed at 30 Hz for f's skeleton: each joint turns about its own axis at up
 * to 90 degrees per second (3 degrees a frame, so consecutive frames are near: the series
 * path), the root's translation tracked. */
static mb_clip *smooth_clip(const fixture *f)
{
    const int frames = 301;
    float *rot = malloc((size_t)frames * (size_t)f->n * 4 * sizeof *rot);
    float *tr = malloc((size_t)frames * 3 * sizeof *tr);
    if (!rot || !tr)
        exit(1);
    for (int j = 0; j < f->n; ++j) {
        double ax[3], al = 0, speed = (urand() * 2 - 1) * 1.5708; /* rad/s */
        for (int k = 0; k < 3; ++k) {
            ax[k] = urand() * 2 - 1;
            al += ax[k] * ax[k];
        }
        for (int fr = 0; fr < frames; ++fr) {
            double h = 0.5 * speed * fr / 30.0, sn = sin(h) / sqrt(al);
            float *q = rot + 4 * ((size_t)fr * (size_t)f->n + (size_t)j);
            q[0] = (float)(sn * ax[0]);
            q[1] = (float)(sn * ax[1]);
            q[2] = (float)(sn * ax[2]);
            q[3] = (float)cos(h);
        }
    }
    for (int fr = 0; fr < frames; ++fr)
        for (int k = 0; k < 3; ++k)
            tr[3 * fr + k] = (float)(0.01 * fr * (k + 1));
    int root = 0;
    mb_clip_desc cd = {f->n, frames, 1.0 / 30.0, rot, &root, 1, tr, {0}};
    mb_clip *c = NULL;
    if (mb_clip_create(&cd, &c, NULL) != MB_OK)
        exit(1);
    free(rot);
    free(tr);
    return c;
}

/* ns per joint of 600 samples at 60 Hz through the clip (sequential playback). */
static void time_sampling(const fixture *f, const mb_clip *c, mb_isa_ isa, int runs, double *med,
                          double *best)
{
    mb_pose p = {f->pose, f->n};
    double t[64];
    for (int r = -1; r < runs; ++r) {
        double t0 = bench_cpu_now();
        for (int i = 0; i < 600; ++i)
            if (mb_clip_sample_isa_(f->s, c, i / 60.0, MB_WRAP_LOOP, p, isa) != MB_OK)
                exit(1);
        if (r >= 0)
            t[r] = (bench_cpu_now() - t0) * 1e9 / (600.0 * f->n);
    }
    *med = bench_median(t, runs);
    *best = bench_min(t, runs);
}

static void bench_sampling(fixture *f, int nf, int runs)
{
    printf("\nsampling, sequential 60 Hz through a 10 s clip keyed at 30 Hz (mb_clip_sample):\n");
    printf("%-16s %6s %14s %14s %14s %8s\n", "skeleton", "joints", "generic", "avx512",
           "mb_clip_sample", "auto/gen");
    for (int i = 0; i < nf; ++i) {
        mb_clip *c = smooth_clip(&f[i]);
        double g[2] = {0, 0}, v[2] = {0, 0}, a[2] = {0, 0};
        char cg[32], cv[32] = "-", ca[32];
        time_sampling(&f[i], c, MB_ISA_GENERIC_, runs, &g[0], &g[1]);
        if (mb_sample_rot_kernel_(MB_ISA_AVX512_)) {
            time_sampling(&f[i], c, MB_ISA_AVX512_, runs, &v[0], &v[1]);
            snprintf(cv, sizeof cv, "%.2f (%.2f)", v[0], v[1]);
        }
        time_sampling(&f[i], c, MB_ISA_AUTO_, runs, &a[0], &a[1]);
        snprintf(cg, sizeof cg, "%.2f (%.2f)", g[0], g[1]);
        snprintf(ca, sizeof ca, "%.2f (%.2f)", a[0], a[1]);
        printf("%-16s %6d %14s %14s %14s %7.2fx\n", f[i].name, f[i].n, cg, cv, ca, a[0] / g[0]);
        fflush(stdout);
        mb_clip_destroy(c);
    }
}

int main(int argc, char **argv)
{
    int runs = 15, loop_n = 0, loop_k = -1;
    const char *bvh = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--quick") == 0)
            runs = 3;
        else if (strcmp(argv[i], "--bvh") == 0 && i + 1 < argc)
            bvh = argv[++i];
        else if (strcmp(argv[i], "--loop") == 0 && i + 2 < argc) {
            const char *k = argv[++i];
            loop_n = atoi(argv[++i]);
            for (int j = 0; j < K_AUTO; ++j)
                if (strcmp(k, kname[j]) == 0 || (j == K_OZZ && strcmp(k, "ozz") == 0))
                    loop_k = j;
        } else {
            fprintf(stderr, "usage: bench_fk [--runs N] [--quick] [--bvh FILE] [--loop KERNEL N]\n");
            return 2;
        }
    }
    runs = runs < 1 ? 1 : (runs > 64 ? 64 : runs);
    fixture f[3];
    make_fixture(&f[0], "random tree", random_tree(64));
    make_fixture(&f[1], "random tree", random_tree(256));
    int nf = 2;
    if (bvh) {
        mb_skeleton *s = NULL;
        if (mb_bvh_read_file(bvh, NULL, &s, NULL, NULL) != MB_OK) {
            fprintf(stderr, "bench_fk: cannot read %s\n", bvh);
            return 2;
        }
        make_fixture(&f[nf++], "bvh skeleton", s);
    }
    if (loop_n > 0) {
        if (loop_k < 0 || !available(loop_k))
            return 2;
        run_kernel(&f[1], loop_k, loop_n);
        return 0;
    }
    char load[128];
    bench_loadavg(load, sizeof load);
    printf("mb_fk kernel for this CPU: %s; %d runs, median (best) ns per joint; load %s\n",
           mb_isa_name_(mb_fk_kernel_(MB_ISA_AUTO_) == mb_fk_kernel_(MB_ISA_AVX512_) ? MB_ISA_AVX512_
                        : mb_fk_kernel_(MB_ISA_AUTO_) == mb_fk_kernel_(MB_ISA_AVX2_) ? MB_ISA_AVX2_
                                                                                     : MB_ISA_GENERIC_),
           runs, load);
    printf("%-16s %6s", "skeleton", "joints");
    for (int k = 0; k < K_COUNT; ++k)
        printf(" %14s", kname[k]);
    printf(" %8s %8s\n", "fk/ozz", "fk/bef");
    int bad = 0;
    for (int i = 0; i < nf; ++i)
        bad |= bench_fixture(&f[i], runs);
    bench_sampling(f, nf, runs);
    for (int i = 0; i < nf; ++i)
        free_fixture(&f[i]);
    return bad;
}
