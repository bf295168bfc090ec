/* The skin layer: palette, dual quaternions, the LBS / DQS job, meshes and generated skins.
 *
 * Tolerances are relative to the mesh size (bounding-box diagonal of the bind pose):
 * 1e-5 * size for poses that must reproduce positions exactly up to float rounding. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "runtime/skin/skin_internal.h"
#include "test_skin_pose.h"
#include "test_util.h"

#define PI 3.14159265358979323846

/* ---------- small helpers ---------- */

static uint64_t rng_state = 0x1234567887654321ull;
static double rnd(void) { return mb_test_unit(&rng_state); } /* [0, 1) */
static double rnd_range(double a, double b) { return a + (b - a) * rnd(); }

static void rnd_quat(float q[4])
{
    double v[4], n = 0;
    for (int k = 0; k < 4; ++k) {
        v[k] = rnd_range(-1, 1);
        n += v[k] * v[k];
    }
    n = sqrt(n);
    for (int k = 0; k < 4; ++k)
        q[k] = (float)(v[k] / n);
}

/* column-major rigid matrix from a quaternion (x, y, z, w) and a translation */
static void rigid(const float q[4], const float t[3], float m[16])
{
    double r[3][3], qd[4] = {q[0], q[1], q[2], q[3]};
    mb_test_quat_rot3(qd, r);
    memset(m, 0, 16 * sizeof *m);
    for (int rr = 0; rr < 3; ++rr)
        for (int c = 0; c < 3; ++c)
            m[c * 4 + rr] = (float)r[rr][c];
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1.0f;
}

static void apply(const float m[16], const float p[3], double w, double out[3])
{
    for (int r = 0; r < 3; ++r)
        out[r] = (double)m[r] * p[0] + (double)m[4 + r] * p[1] + (double)m[8 + r] * p[2] +
                 w * m[12 + r];
}

static double dist3(const double a[3], const float b[3])
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

/* A random vertex set: nv vertices, 1..4 influences, palette of np entries. */
typedef struct vset {
    int nv, np, inf;
    float *pos, *nrm, *outp, *outn;
    uint16_t *idx;
    float *w;
    uint8_t *idx8;
    uint16_t *w16;
} vset;

static void vset_make(vset *s, int nv, int np, int inf)
{
    s->nv = nv;
    s->np = np;
    s->inf = inf;
    s->pos = malloc((size_t)nv * 3 * sizeof(float));
    s->nrm = malloc((size_t)nv * 3 * sizeof(float));
    s->outp = malloc((size_t)nv * 3 * sizeof(float));
    s->outn = malloc((size_t)nv * 3 * sizeof(float));
    s->idx = malloc((size_t)nv * (size_t)inf * sizeof(uint16_t));
    s->w = malloc((size_t)nv * (size_t)inf * sizeof(float));
    s->idx8 = malloc((size_t)nv * (size_t)inf);
    s->w16 = malloc((size_t)nv * (size_t)inf * sizeof(uint16_t));
    cr_assert(s->pos && s->nrm && s->outp && s->outn && s->idx && s->w && s->idx8 && s->w16);
    for (int v = 0; v < nv; ++v) {
        double n[3], len = 0;
        for (int c = 0; c < 3; ++c) {
            s->pos[3 * v + c] = (float)rnd_range(-1, 1);
            n[c] = rnd_range(-1, 1);
            len += n[c] * n[c];
        }
        for (int c = 0; c < 3; ++c)
            s->nrm[3 * v + c] = (float)(n[c] / sqrt(len));
        /* unorm16 weights summing to exactly 65535; float weights the same values */
        int left = 65535;
        for (int k = 0; k < inf; ++k) {
            int wk = k + 1 == inf ? left : (int)(rnd() * left);
            left -= wk;
            s->w16[v * inf + k] = (uint16_t)wk;
            s->w[v * inf + k] = (float)wk / 65535.0f;
            int j = (int)(rnd() * np);
            s->idx[v * inf + k] = (uint16_t)j;
            s->idx8[v * inf + k] = (uint8_t)j;
        }
    }
}

static void vset_free(vset *s)
{
    free(s->pos);
    free(s->nrm);
    free(s->outp);
    free(s->outn);
    free(s->idx);
    free(s->w);
    free(s->idx8);
    free(s->w16);
}

static void desc_for(const vset *s, mb_skin_desc *d, mb_skin_method m, const float (*pal)[16],
                     const float (*dq)[8])
{
    memset(d, 0, sizeof *d);
    d->method = m;
    d->palette = pal;
    d->dq_palette = dq;
    d->palette_count = s->np;
    d->vertex_count = s->nv;
    d->influences = s->inf;
    d->joint_indices = s->idx;
    d->joint_weights = s->w;
    d->positions = s->pos;
    d->normals = s->nrm;
    d->out_positions = s->outp;
    d->out_normals = s->outn;
}

/* Reference LBS / DQS in double for one vertex (from the palette matrices). */
static void ref_lbs(const float (*pal)[16], const int *idx, const double *w, int n,
                    const float p[3], const float nrm[3], double op[3], double on[3])
{
    op[0] = op[1] = op[2] = on[0] = on[1] = on[2] = 0;
    for (int k = 0; k < n; ++k) {
        double a[3], b[3];
        apply(pal[idx[k]], p, 1, a);
        apply(pal[idx[k]], nrm, 0, b);
        for (int c = 0; c < 3; ++c) {
            op[c] += w[k] * a[c];
            on[c] += w[k] * b[c];
        }
    }
}

/* ---------- palette and dual quaternions ---------- */

Test(skin, palette_is_world_times_inverse_bind)
{
    float world[3][16], ib[2][16], out[2][16];
    for (int j = 0; j < 3; ++j) {
        float q[4], t[3] = {(float)rnd(), (float)rnd(), (float)rnd()};
        rnd_quat(q);
        rigid(q, t, world[j]);
    }
    for (int i = 0; i < 2; ++i) {
        float q[4], t[3] = {(float)rnd(), (float)rnd(), (float)rnd()};
        rnd_quat(q);
        rigid(q, t, ib[i]);
    }
    int joints[2] = {2, 0};
    mb_skin_palette_desc d = {(const float(*)[16])world, 3, (const float(*)[16])ib, joints, 2,
                              out, 2};
    cr_assert_eq(mb_skin_palette_run(&d), MB_OK);
    for (int i = 0; i < 2; ++i)
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) {
                double s = 0;
                for (int k = 0; k < 4; ++k)
                    s += (double)world[joints[i]][k * 4 + r] * ib[i][c * 4 + k];
                cr_assert_float_eq(out[i][c * 4 + r], s, 1e-5);
            }
    /* validity */
    mb_skin_palette_desc bad = d;
    bad.out_count = 1;
    cr_assert_eq(mb_skin_palette_run(&bad), MB_TOO_SMALL);
    bad = d;
    joints[0] = 3;
    cr_assert_eq(mb_skin_palette_run(&bad), MB_INVALID_ARG);
    joints[0] = 2;
    bad.world = NULL;
    cr_assert_eq(mb_skin_palette_run(&bad), MB_INVALID_ARG);
    bad = d;
    bad.joints = NULL;
    bad.world_count = 1; /* entry 1 would need world[1] */
    cr_assert_eq(mb_skin_palette_run(&bad), MB_INVALID_ARG);
    bad = d;
    bad.count = 0;
    cr_assert_eq(mb_skin_palette_run(&bad), MB_INVALID_ARG);
    cr_assert_eq(mb_skin_palette_run(NULL), MB_INVALID_ARG);
}

Test(skin, dq_palette_reproduces_rigid_matrices)
{
    for (int trial = 0; trial < 200; ++trial) {
        float q[4], t[3] = {(float)rnd_range(-5, 5), (float)rnd_range(-5, 5), (float)rnd_range(-5, 5)};
        rnd_quat(q);
        float m[1][16], dq[1][8];
        rigid(q, t, m[0]);
        /* a uniform scale must drop out of the rotation */
        if (trial % 3 == 0)
            for (int k = 0; k < 12; ++k)
                m[0][k] *= 2.5f;
        cr_assert_eq(mb_skin_dq_palette((const float(*)[16])m, 1, dq), MB_OK);
        double dot = 0;
        for (int k = 0; k < 4; ++k)
            dot += (double)dq[0][k] * q[k];
        cr_assert(fabs(fabs(dot) - 1.0) < 1e-6, "rotation part %g", dot);
        /* skinning one point with the DQ (one influence) equals the rigid matrix */
        float p[3] = {0.3f, -0.7f, 1.1f}, outp[3];
        uint16_t idx = 0;
        float w = 1;
        mb_skin_desc d;
        memset(&d, 0, sizeof d);
        d.method = MB_SKIN_DQS;
        d.dq_palette = (const float(*)[8])dq;
        d.palette_count = 1;
        d.vertex_count = 1;
        d.influences = 1;
        d.joint_indices = &idx;
        d.joint_weights = &w;
        d.positions = p;
        d.out_positions = outp;
        cr_assert_eq(mb_skin_run(&d), MB_OK);
        float mr[16];
        rigid(q, t, mr);
        double ref[3];
        apply(mr, p, 1, ref);
        cr_assert(dist3(ref, outp) < 1e-5, "trial %d: %g", trial, dist3(ref, outp));
    }
    float nan_m[1][16] = {{NAN}}, dq[1][8];
    cr_assert_eq(mb_skin_dq_palette((const float(*)[16])nan_m, 1, dq), MB_INVALID_ARG);
    cr_assert_eq(mb_skin_dq_palette(NULL, 1, dq), MB_INVALID_ARG);
    cr_assert_eq(mb_skin_dq_palette((const float(*)[16])nan_m, 0, dq), MB_INVALID_ARG);
}

/* ---------- job validity ---------- */

Test(skin, job_rejects_bad_descs)
{
    vset s;
    vset_make(&s, 10, 3, 4);
    float pal[3][16], dq[3][8];
    for (int j = 0; j < 3; ++j) {
        float q[4], t[3] = {0, 1, 2};
        rnd_quat(q);
        rigid(q, t, pal[j]);
    }
    cr_assert_eq(mb_skin_dq_palette((const float(*)[16])pal, 3, dq), MB_OK);
    mb_skin_desc ok;
    desc_for(&s, &ok, MB_SKIN_LBS, (const float(*)[16])pal, (const float(*)[8])dq);
    cr_assert_eq(mb_skin_run(&ok), MB_OK);
    ok.method = MB_SKIN_DQS;
    cr_assert_eq(mb_skin_run(&ok), MB_OK);
    ok.method = MB_SKIN_LBS;
    cr_assert_eq(mb_skin_run(NULL), MB_INVALID_ARG);
    mb_skin_desc d;
#define BAD(stmt, code)                                                                    \
    do {                                                                                   \
        d = ok;                                                                            \
        stmt;                                                                              \
        cr_assert_eq(mb_skin_run(&d), code, "%s", #stmt);                                  \
    } while (0)
    BAD(d.palette = NULL, MB_INVALID_ARG);
    BAD((d.method = MB_SKIN_DQS, d.dq_palette = NULL), MB_INVALID_ARG);
    BAD(d.method = (mb_skin_method)7, MB_INVALID_ARG);
    BAD(d.format = (mb_skin_format)7, MB_INVALID_ARG);
    BAD(d.influences = 0, MB_INVALID_ARG);
    BAD(d.influences = 5, MB_INVALID_ARG);
    BAD(d.palette_count = 0, MB_INVALID_ARG);
    BAD(d.palette_count = MB_SKIN_MAX_PALETTE + 1, MB_INVALID_ARG);
    BAD(d.vertex_count = -1, MB_INVALID_ARG);
    BAD(d.joint_indices = NULL, MB_INVALID_ARG);
    BAD(d.joint_weights = NULL, MB_INVALID_ARG);
    BAD(d.positions = NULL, MB_INVALID_ARG);
    BAD(d.out_positions = NULL, MB_INVALID_ARG);
    BAD(d.out_normals = NULL, MB_INVALID_ARG);
    BAD(d.normals = NULL, MB_INVALID_ARG); /* out_normals without normals */
    BAD(d.positions_stride = 8, MB_INVALID_ARG);
    BAD(d.out_positions_stride = 14, MB_INVALID_ARG);
    BAD(d.normals_stride = 4, MB_INVALID_ARG);
    BAD(d.out_normals_stride = -12, MB_INVALID_ARG);
    /* an index past the palette is caught before anything is written */
    memset(s.outp, 0, (size_t)s.nv * 3 * sizeof(float));
    s.idx[4 * 9 + 3] = 3;
    BAD((void)0, MB_INVALID_ARG);
    for (int i = 0; i < 3 * s.nv; ++i)
        cr_assert_eq(s.outp[i], 0.0f, "output written before validation failed");
    /* ... unless the caller says the indices are trusted (here they are made valid) */
    s.idx[4 * 9 + 3] = 2;
    BAD(d.trusted_indices = 1, MB_OK);
    /* u8 format: the check uses the 8-bit indices */
    s.idx8[7] = 3;
    BAD((d.format = MB_SKIN_U8_UNORM16, d.joint_indices = s.idx8, d.joint_weights = s.w16),
        MB_INVALID_ARG);
    s.idx8[7] = 1;
    BAD((d.format = MB_SKIN_U8_UNORM16, d.joint_indices = s.idx8, d.joint_weights = s.w16),
        MB_OK);
    /* zero vertices is a valid no-op */
    BAD(d.vertex_count = 0, MB_OK);
#undef BAD
    vset_free(&s);
}

/* ---------- the kernels against a double reference ---------- */

static void check_against_reference(mb_isa_ isa)
{
    if (!mb_skin_kernel_(isa)) { /* test_cpu asserts that a CPU with AVX2 gets here */
        cr_log_info("no %s skinning kernel on this machine", mb_isa_name_(isa));
        return;
    }
    for (int inf = 1; inf <= 4; ++inf) {
        vset s;
        vset_make(&s, 300, 20, inf);
        float pal[20][16], dq[20][8];
        for (int j = 0; j < 20; ++j) {
            float q[4], t[3] = {(float)rnd_range(-3, 3), (float)rnd_range(-3, 3), (float)rnd_range(-3, 3)};
            rnd_quat(q);
            rigid(q, t, pal[j]);
        }
        cr_assert_eq(mb_skin_dq_palette((const float(*)[16])pal, 20, dq), MB_OK);
        /* the palette at a 64-byte boundary and 16 bytes past one (the AVX-512 kernel loads
         * matrices differently) */
        _Alignas(64) float palbuf[20 * 16 + 4];
        for (int fmt = 0; fmt < 4; ++fmt)
            for (int withn = 0; withn < 2; ++withn) {
                float(*pp)[16] = (float(*)[16])(palbuf + (fmt >= 2 ? 4 : 0));
                memcpy(pp, pal, sizeof pal);
                mb_skin_desc d;
                desc_for(&s, &d, MB_SKIN_LBS, (const float(*)[16])pp, (const float(*)[8])dq);
                if (fmt % 2) {
                    d.format = MB_SKIN_U8_UNORM16;
                    d.joint_indices = s.idx8;
                    d.joint_weights = s.w16;
                }
                if (!withn)
                    d.normals = d.out_normals = NULL;
                cr_assert_eq(mb_skin_run_isa_(&d, isa), MB_OK);
                for (int v = 0; v < s.nv; ++v) {
                    int idx[4];
                    double w[4];
                    for (int k = 0; k < inf; ++k) {
                        idx[k] = s.idx[v * inf + k];
                        w[k] = s.w16[v * inf + k] / 65535.0;
                    }
                    double op[3], on[3];
                    ref_lbs((const float(*)[16])pal, idx, w, inf, &s.pos[3 * v], &s.nrm[3 * v], op, on);
                    cr_assert(dist3(op, &s.outp[3 * v]) < 2e-5, "lbs inf %d fmt %d v %d: %g", inf, fmt,
                              v, dist3(op, &s.outp[3 * v]));
                    if (withn)
                        cr_assert(dist3(on, &s.outn[3 * v]) < 2e-5);
                }
                /* DQS: compare with a double DQ blend done here */
                d.method = MB_SKIN_DQS;
                cr_assert_eq(mb_skin_run_isa_(&d, isa), MB_OK);
                for (int v = 0; v < s.nv; ++v) {
                    double b[8] = {0};
                    const float *q0 = dq[s.idx[v * inf]];
                    for (int k = 0; k < inf; ++k) {
                        const float *q = dq[s.idx[v * inf + k]];
                        double w = s.w16[v * inf + k] / 65535.0;
                        double dot = 0;
                        for (int c = 0; c < 4; ++c)
                            dot += (double)q0[c] * q[c];
                        if (dot < 0)
                            w = -w;
                        for (int c = 0; c < 8; ++c)
                            b[c] += w * q[c];
                    }
                    double n = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3]);
                    for (int c = 0; c < 8; ++c)
                        b[c] /= n;
                    /* to a matrix: rotation of b.real, translation 2 dual conj(real) */
                    float qr[4] = {(float)b[0], (float)b[1], (float)b[2], (float)b[3]};
                    double x = b[0], y = b[1], z = b[2], ww = b[3], ex = b[4], ey = b[5],
                           ez = b[6], ew = b[7];
                    float t[3] = {(float)(2 * (ww * ex - ew * x + (y * ez - z * ey))),
                                  (float)(2 * (ww * ey - ew * y + (z * ex - x * ez))),
                                  (float)(2 * (ww * ez - ew * z + (x * ey - y * ex)))};
                    float m[16];
                    rigid(qr, t, m);
                    double op[3], on[3];
                    apply(m, &s.pos[3 * v], 1, op);
                    apply(m, &s.nrm[3 * v], 0, on);
                    cr_assert(dist3(op, &s.outp[3 * v]) < 2e-5, "dqs inf %d fmt %d v %d: %g", inf,
                              fmt, v, dist3(op, &s.outp[3 * v]));
                    if (withn)
                        cr_assert(dist3(on, &s.outn[3 * v]) < 2e-5);
                }
            }
        vset_free(&s);
    }
}

Test(skin, generic_kernel_matches_double_reference) { check_against_reference(MB_ISA_GENERIC_); }
Test(skin, fast_kernel_matches_double_reference) { check_against_reference(MB_ISA_AVX2_); }
Test(skin, avx512_kernel_matches_double_reference) { check_against_reference(MB_ISA_AVX512_); }

/* The AVX-512 kernel's non-temporal path (packed outputs of large meshes; forced here with
 * mb_skin_stream_min_bytes_ = 0) at every 4-byte offset from a cache line, on whole meshes
 * and on ranges through the kernel itself: the outputs equal the normal stores'
 * bit for bit and the double reference, and nothing outside the range's bytes is written
 * (the first and last partial lines are masked). */
Test(skin, avx512_streams_at_every_output_alignment)
{
    mb_skin_kernel_fn_ kernel = mb_skin_kernel_(MB_ISA_AVX512_);
    if (!kernel) {
        cr_log_info("no AVX-512 skinning kernel on this machine");
        return;
    }
    enum { NV = 200, NP = 20, PAD = 32 }; /* PAD floats of guard on each side */
    vset s;
    vset_make(&s, NV, NP, 4);
    _Alignas(64) float pal[NP][16];
    for (int j = 0; j < NP; ++j) {
        float q[4], t[3] = {(float)rnd_range(-3, 3), (float)rnd_range(-3, 3), (float)rnd_range(-3, 3)};
        rnd_quat(q);
        rigid(q, t, pal[j]);
    }
    size_t bytes = (NV * 3 + 2 * PAD) * sizeof(float);
    size_t alloc = (bytes + 63) / 64 * 64; /* aligned_alloc: a multiple of the alignment */
    float *bp = aligned_alloc(64, alloc), *bn = aligned_alloc(64, alloc);
    float *rp = malloc(NV * 3 * sizeof(float)), *rn = malloc(NV * 3 * sizeof(float));
    cr_assert(bp && bn && rp && rn);
    for (int off = 0; off < 16; ++off)
        for (int range = 0; range < 3; ++range) {
            /* whole (a tail of 8 for the AVX2 kernel), 12 blocks exactly, a tail of 11 */
            static const int ranges[3][2] = {{0, NV}, {5, 197}, {3, 190}};
            int begin = ranges[range][0], end = ranges[range][1];
            mb_skin_desc d;
            desc_for(&s, &d, MB_SKIN_LBS, (const float(*)[16])pal, NULL);
            d.positions_stride = d.normals_stride = d.out_positions_stride = d.out_normals_stride = 12;
            /* normal stores into rp, rn, same range (its tail runs the AVX2 kernel) */
            d.out_positions = rp;
            d.out_normals = rn;
            mb_skin_stream_min_bytes_ = (size_t)-1;
            kernel(&d, begin, end);
            memset(bp, 0xFF, bytes);
            memset(bn, 0xFF, bytes);
            d.out_positions = bp + PAD + off;
            d.out_normals = bn + PAD + off;
            mb_skin_stream_min_bytes_ = 0;
            kernel(&d, begin, end);
            mb_skin_stream_min_bytes_ = MB_SKIN_STREAM_MIN_BYTES_;
            for (int i = 0; i < NV * 3 + 2 * PAD - off; ++i) {
                int inside = i >= PAD + 3 * begin && i < PAD + 3 * end;
                const float *o[2] = {bp + off, bn + off}, *r[2] = {rp, rn};
                for (int a = 0; a < 2; ++a) {
                    uint32_t bits;
                    memcpy(&bits, &o[a][i], sizeof bits);
                    if (inside)
                        cr_assert(memcmp(&o[a][i], &r[a][i - PAD], sizeof(float)) == 0,
                                  "offset %d range %d %s float %d: %g, normal stores %g", off, range,
                                  a ? "normal" : "position", i - PAD, o[a][i], r[a][i - PAD]);
                    else
                        cr_assert_eq(bits, 0xFFFFFFFFu, "offset %d range %d: float %d written",
                                     off, range, i - PAD);
                }
            }
        }
    for (int v = 3; v < 190; ++v) { /* the normal stores against the double reference */
        int idx[4];
        double w[4], op[3], on[3];
        for (int k = 0; k < 4; ++k) {
            idx[k] = s.idx[v * 4 + k];
            w[k] = s.w[v * 4 + k];
        }
        ref_lbs((const float(*)[16])pal, idx, w, 4, &s.pos[3 * v], &s.nrm[3 * v], op, on);
        cr_assert(dist3(op, &rp[3 * v]) < 2e-5 && dist3(on, &rn[3 * v]) < 2e-5, "v %d", v);
    }
    free(bp);
    free(bn);
    free(rp);
    free(rn);
    vset_free(&s);
}

Test(skin, strides_and_in_place)
{
    static const mb_isa_ isas[3] = {MB_ISA_GENERIC_, MB_ISA_AVX2_, MB_ISA_AVX512_};
    for (int ki = 0; ki < 3; ++ki) {
        const mb_isa_ isa = isas[ki];
        if (!mb_skin_kernel_(isa))
            continue; /* test_cpu asserts that a CPU with AVX2 gets here */
        vset s;
        vset_make(&s, 64, 8, 3);
        float pal[8][16], dq[8][8];
        for (int j = 0; j < 8; ++j) {
            float q[4], t[3] = {1, 2, 3};
            rnd_quat(q);
            rigid(q, t, pal[j]);
        }
        mb_skin_dq_palette((const float(*)[16])pal, 8, dq);
        for (int m = 0; m < 2; ++m) {
            mb_skin_desc d;
            desc_for(&s, &d, (mb_skin_method)m, (const float(*)[16])pal, (const float(*)[8])dq);
            cr_assert_eq(mb_skin_run_isa_(&d, isa), MB_OK);
            /* interleaved: [pos | nrm] per vertex, 24-byte stride, skinned in place */
            float *il = malloc((size_t)s.nv * 6 * sizeof(float));
            for (int v = 0; v < s.nv; ++v)
                for (int c = 0; c < 3; ++c) {
                    il[6 * v + c] = s.pos[3 * v + c];
                    il[6 * v + 3 + c] = s.nrm[3 * v + c];
                }
            mb_skin_desc e = d;
            e.positions = il;
            e.normals = il + 3;
            e.out_positions = il;
            e.out_normals = il + 3;
            e.positions_stride = e.normals_stride = e.out_positions_stride = e.out_normals_stride = 24;
            cr_assert_eq(mb_skin_run_isa_(&e, isa), MB_OK);
            for (int v = 0; v < s.nv; ++v)
                for (int c = 0; c < 3; ++c) {
                    cr_assert_float_eq(il[6 * v + c], s.outp[3 * v + c], 1e-6);
                    cr_assert_float_eq(il[6 * v + 3 + c], s.outn[3 * v + c], 1e-6);
                }
            free(il);
        }
        vset_free(&s);
    }
}

Test(skin, zero_weights_follow_the_first_index)
{
    float pal[2][16], dq[2][8], q[4] = {0, 0, 0.6f, 0.8f}, t[3] = {1, 2, 3}, t2[3] = {-5, 0, 0};
    rigid(q, t, pal[0]);
    rigid(q, t2, pal[1]);
    mb_skin_dq_palette((const float(*)[16])pal, 2, dq);
    uint16_t idx[2] = {1, 0};
    float w[2] = {0, 0}, p[3] = {1, 1, 1}, out[3];
    static const mb_isa_ isas[3] = {MB_ISA_GENERIC_, MB_ISA_AVX2_, MB_ISA_AVX512_};
    for (int ki = 0; ki < 3; ++ki)
        for (int m = 0; m < 2 && mb_skin_kernel_(isas[ki]); ++m) {
            mb_skin_desc d;
            memset(&d, 0, sizeof d);
            d.method = (mb_skin_method)m;
            d.palette = (const float(*)[16])pal;
            d.dq_palette = (const float(*)[8])dq;
            d.palette_count = 2;
            d.vertex_count = 1;
            d.influences = 2;
            d.joint_indices = idx;
            d.joint_weights = w;
            d.positions = p;
            d.out_positions = out;
            cr_assert_eq(mb_skin_run_isa_(&d, isas[ki]), MB_OK);
            double ref[3];
            apply(pal[1], p, 1, ref);
            cr_assert(dist3(ref, out) < 1e-5);
        }
}

/* The same inside the vector kernels' blocks (the single vertex above runs their scalar
 * tails): 40 vertices of 1..4 influences, every third with all weights 0 (it follows its
 * first index rigidly), the rest normalised; both formats, LBS and DQS, with normals. */
Test(skin, zero_weights_inside_vector_blocks)
{
    static const mb_isa_ isas[3] = {MB_ISA_GENERIC_, MB_ISA_AVX2_, MB_ISA_AVX512_};
    for (int inf = 1; inf <= 4; ++inf) {
        vset s;
        vset_make(&s, 40, 10, inf);
        for (int v = 0; v < s.nv; v += 3)
            for (int k = 0; k < inf; ++k) {
                s.w[v * inf + k] = 0.0f;
                s.w16[v * inf + k] = 0;
            }
        float pal[10][16], dq[10][8];
        for (int j = 0; j < 10; ++j) {
            float q[4], t[3] = {(float)rnd_range(-3, 3), (float)rnd_range(-3, 3), (float)rnd_range(-3, 3)};
            rnd_quat(q);
            rigid(q, t, pal[j]);
        }
        cr_assert_eq(mb_skin_dq_palette((const float(*)[16])pal, 10, dq), MB_OK);
        for (int ki = 0; ki < 3; ++ki)
            for (int fmt = 0; fmt < 2 && mb_skin_kernel_(isas[ki]); ++fmt)
                for (int m = 0; m < 2; ++m) {
                    mb_skin_desc d;
                    desc_for(&s, &d, (mb_skin_method)m, (const float(*)[16])pal, (const float(*)[8])dq);
                    if (fmt) {
                        d.format = MB_SKIN_U8_UNORM16;
                        d.joint_indices = s.idx8;
                        d.joint_weights = s.w16;
                    }
                    cr_assert_eq(mb_skin_run_isa_(&d, isas[ki]), MB_OK);
                    for (int v = 0; v < s.nv; ++v) {
                        int idx[4];
                        double w[4], op[3], on[3];
                        for (int k = 0; k < inf; ++k) {
                            idx[k] = s.idx[v * inf + k];
                            w[k] = v % 3 == 0 ? (k == 0) : s.w16[v * inf + k] / 65535.0;
                        }
                        if (m == MB_SKIN_DQS && v % 3 != 0)
                            continue; /* blends: check_against_reference covers them */
                        ref_lbs((const float(*)[16])pal, idx, w, inf, &s.pos[3 * v], &s.nrm[3 * v], op, on);
                        cr_assert(dist3(op, &s.outp[3 * v]) < 2e-5 && dist3(on, &s.outn[3 * v]) < 2e-5,
                                  "%s %s fmt %d inf %d v %d: %g", mb_isa_name_(isas[ki]), m ? "dqs" : "lbs",
                                  fmt, inf, v, dist3(op, &s.outp[3 * v]));
                    }
                }
        vset_free(&s);
    }
}

/* ---------- the invariants on meshes ---------- */

/* A random skeleton of n joints (parents-first) with random rest rotations. */
typedef struct rig {
    mb_skeleton *s;
    int n;
    mb_xform *bind;
    float (*world)[16];
} rig;

static void rig_make(rig *r, int n)
{
    mb_joint_desc *j = calloc((size_t)n, sizeof *j);
    char (*names)[16] = calloc((size_t)n, sizeof *names);
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        j[i].name = names[i];
        j[i].parent = i == 0 ? -1 : (int)(rnd() * i);
        for (int c = 0; c < 3; ++c)
            j[i].offset[c] = i == 0 ? 0.0f : (float)rnd_range(-1, 1);
        j[i].channel_count = 3;
        j[i].channels[0] = MB_CH_ZROT;
        j[i].channels[1] = MB_CH_XROT;
        j[i].channels[2] = MB_CH_YROT;
    }
    mb_skeleton_desc sd = {j, n, {0}};
    cr_assert_eq(mb_skeleton_create(&sd, &r->s, NULL), MB_OK);
    r->n = n;
    r->bind = malloc((size_t)n * sizeof *r->bind);
    r->world = malloc((size_t)n * sizeof *r->world);
    for (int i = 0; i < n; ++i) {
        rnd_quat(r->bind[i].rot);
        memcpy(r->bind[i].pos, j[i].offset, sizeof j[i].offset);
    }
    free(j);
    free(names);
}

static void rig_free(rig *r)
{
    mb_skeleton_destroy(r->s);
    free(r->bind);
    free(r->world);
}

/* A random mesh skinned to a rig in its bind pose: inverse binds from the bind world. */
static mb_mesh *random_mesh(const rig *r, int nv, int inf, float spread)
{
    mb_pose bp = {r->bind, r->n};
    cr_assert_eq(mb_fk(r->s, &bp, r->world, r->n), MB_OK);
    float *pos = malloc((size_t)nv * 3 * sizeof(float));
    float *nrm = malloc((size_t)nv * 3 * sizeof(float));
    int *jt = malloc((size_t)nv * (size_t)inf * sizeof(int));
    float *w = malloc((size_t)nv * (size_t)inf * sizeof(float));
    int *sj = malloc((size_t)r->n * sizeof(int));
    float(*ib)[16] = malloc((size_t)r->n * sizeof *ib);
    for (int v = 0; v < nv; ++v) {
        int j = (int)(rnd() * r->n);
        for (int c = 0; c < 3; ++c) {
            pos[3 * v + c] = r->world[j][12 + c] + (float)rnd_range(-spread, spread);
            nrm[3 * v + c] = (float)rnd_range(-1, 1); /* normalised by mb_mesh_create */
        }
        for (int k = 0; k < inf; ++k) {
            jt[v * inf + k] = k == 0 ? j : (int)(rnd() * r->n);
            w[v * inf + k] = (float)rnd_range(0.05, 1);
        }
    }
    for (int j = 0; j < r->n; ++j) {
        sj[j] = j;
        /* rigid inverse: transpose rotation, -R^T t */
        const float *m = r->world[j];
        float *o = ib[j];
        memset(o, 0, 16 * sizeof *o);
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                o[b * 4 + a] = m[a * 4 + b];
        for (int a = 0; a < 3; ++a)
            o[12 + a] = -(o[a] * m[12] + o[4 + a] * m[13] + o[8 + a] * m[14]);
        o[15] = 1;
    }
    mb_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertex_count = nv;
    md.positions = pos;
    md.normals = nrm;
    md.influences = inf;
    md.joints = jt;
    md.weights = w;
    md.skin_joint_count = r->n;
    md.skin_joints = sj;
    md.inverse_bind = (const float(*)[16])ib;
    md.skeleton_joint_count = r->n;
    md.bind_pose = r->bind;
    mb_mesh *m = NULL;
    cr_assert_eq(mb_mesh_create(&md, &m, NULL), MB_OK);
    free(pos);
    free(nrm);
    free(jt);
    free(w);
    free(sj);
    free(ib);
    return m;
}

Test(skin, bind_pose_reproduces_the_mesh)
{
    rig r;
    rig_make(&r, 30);
    mb_mesh *m = random_mesh(&r, 2000, 4, 0.5f);
    int nv = mb_mesh_vertex_count(m);
    float *op = malloc((size_t)nv * 3 * sizeof(float)), *on = malloc((size_t)nv * 3 * sizeof(float));
    double size = mb_mesh_get_info(m).size, worst[2] = {0, 0}, worstn[2] = {0, 0};
    for (int meth = 0; meth < 2; ++meth) {
        mb_test_skin_pose(r.s, m, mb_mesh_bind_pose(m), (mb_skin_method)meth, op, on);
        for (int v = 0; v < nv; ++v) {
            double p[3], n[3];
            for (int c = 0; c < 3; ++c) {
                p[c] = mb_mesh_positions(m)[3 * v + c];
                n[c] = mb_mesh_normals(m)[3 * v + c];
            }
            worst[meth] = fmax(worst[meth], dist3(p, &op[3 * v]));
            worstn[meth] = fmax(worstn[meth], dist3(n, &on[3 * v]));
        }
        cr_assert(worst[meth] <= 1e-5 * size, "%s: %g > 1e-5 * %g", meth ? "dqs" : "lbs",
                  worst[meth], size);
        cr_assert(worstn[meth] <= 1e-5);
    }
    cr_log_info("bind pose: worst |error| lbs %.3g dqs %.3g (size %.3g)", worst[0], worst[1], size);
    free(op);
    free(on);
    mb_mesh_destroy(m);
    rig_free(&r);
}

Test(skin, single_influence_vertices_are_rigid_and_lbs_equals_dqs)
{
    rig r;
    rig_make(&r, 20);
    mb_mesh *m = random_mesh(&r, 1000, 1, 0.5f);
    int nv = mb_mesh_vertex_count(m);
    mb_xform *pose = malloc((size_t)r.n * sizeof *pose);
    for (int j = 0; j < r.n; ++j) {
        rnd_quat(pose[j].rot);
        for (int c = 0; c < 3; ++c)
            pose[j].pos[c] = r.bind[j].pos[c] * (float)rnd_range(0.8, 1.2);
    }
    float *lp = malloc((size_t)nv * 3 * sizeof(float)), *dp = malloc((size_t)nv * 3 * sizeof(float));
    float *ln = malloc((size_t)nv * 3 * sizeof(float)), *dn = malloc((size_t)nv * 3 * sizeof(float));
    mb_test_skin_pose(r.s, m, pose, MB_SKIN_LBS, lp, ln);
    mb_test_skin_pose(r.s, m, pose, MB_SKIN_DQS, dp, dn);
    double size = mb_mesh_get_info(m).size, worst = 0, worst_rigid = 0;
    const float *bp = mb_mesh_positions(m);
    const uint16_t *ji = mb_mesh_joint_indices(m);
    for (int v = 0; v < nv; ++v) {
        double l[3] = {lp[3 * v], lp[3 * v + 1], lp[3 * v + 2]};
        worst = fmax(worst, dist3(l, &dp[3 * v]));
        double ln3[3] = {ln[3 * v], ln[3 * v + 1], ln[3 * v + 2]};
        cr_assert(dist3(ln3, &dn[3 * v]) < 1e-5);
    }
    /* rigid: distances between vertices on the same joint are kept */
    for (int a = 0; a < nv; a += 7)
        for (int b = a + 1; b < nv; b += 13) {
            if (ji[4 * a] != ji[4 * b])
                continue;
            double d0 = 0, d1 = 0;
            for (int c = 0; c < 3; ++c) {
                d0 += (bp[3 * a + c] - bp[3 * b + c]) * (double)(bp[3 * a + c] - bp[3 * b + c]);
                d1 += (lp[3 * a + c] - lp[3 * b + c]) * (double)(lp[3 * a + c] - lp[3 * b + c]);
            }
            worst_rigid = fmax(worst_rigid, fabs(sqrt(d0) - sqrt(d1)));
        }
    cr_log_info("one influence: |lbs - dqs| <= %.3g, distance change <= %.3g (size %.3g)", worst,
                worst_rigid, size);
    cr_assert(worst <= 1e-5 * size);
    cr_assert(worst_rigid <= 1e-5 * size);
    free(lp);
    free(dp);
    free(ln);
    free(dn);
    free(pose);
    mb_mesh_destroy(m);
    rig_free(&r);
}

Test(skin, whole_skeleton_rigid_motion_moves_every_vertex_rigidly)
{
    rig r;
    rig_make(&r, 25);
    mb_mesh *m = random_mesh(&r, 2000, 4, 0.7f);
    int nv = mb_mesh_vertex_count(m);
    /* the bind pose with the root moved by a rigid G: every world matrix becomes G * world */
    mb_xform *pose = malloc((size_t)r.n * sizeof *pose);
    memcpy(pose, r.bind, (size_t)r.n * sizeof *pose);
    float g[4], gt[3] = {3.0f, -1.5f, 2.0f}, G[16];
    rnd_quat(g);
    rigid(g, gt, G);
    /* root: G * T(pos) R(rot) = T(g pos + gt) R(g rot) */
    double gp[3];
    apply(G, pose[0].pos, 1, gp);
    float q[4];
    const float *a = g, *b = r.bind[0].rot;
    q[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    q[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    q[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    q[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    memcpy(pose[0].rot, q, sizeof q);
    for (int c = 0; c < 3; ++c)
        pose[0].pos[c] = (float)gp[c];
    float *op = malloc((size_t)nv * 3 * sizeof(float)), *on = malloc((size_t)nv * 3 * sizeof(float));
    double size = mb_mesh_get_info(m).size;
    for (int meth = 0; meth < 2; ++meth) {
        mb_test_skin_pose(r.s, m, pose, (mb_skin_method)meth, op, on);
        double worst = 0, worstn = 0;
        for (int v = 0; v < nv; ++v) {
            double ref[3], refn[3];
            apply(G, &mb_mesh_positions(m)[3 * v], 1, ref);
            apply(G, &mb_mesh_normals(m)[3 * v], 0, refn);
            worst = fmax(worst, dist3(ref, &op[3 * v]));
            worstn = fmax(worstn, dist3(refn, &on[3 * v]));
        }
        cr_log_info("rigid motion %s: worst %.3g (size %.3g), normals %.3g", meth ? "dqs" : "lbs",
                    worst, size, worstn);
        cr_assert(worst <= 1e-5 * size, "%g", worst);
        cr_assert(worstn <= 1e-5);
    }
    free(op);
    free(on);
    free(pose);
    mb_mesh_destroy(m);
    rig_free(&r);
}

/* ---------- candy wrapper ---------- */

/* A cylinder along +z like RiggedSimple.glb: radius 1, length 8, two joints (root at z = 0,
 * the second at z = 4), weights ramping smoothly from the first to the second over
 * z in [2.5, 5.5]. The second joint is twisted about the axis; the area of each ring's
 * cross-section is measured (vector area of the ring polygon). */
#define CW_SIDES 32
#define CW_RINGS 33

static double ring_area(const float *p, int ring)
{
    double ax = 0, ay = 0, az = 0;
    for (int m = 0; m < CW_SIDES; ++m) {
        const float *a = &p[3 * (ring * CW_SIDES + m)];
        const float *b = &p[3 * (ring * CW_SIDES + (m + 1) % CW_SIDES)];
        ax += (double)a[1] * b[2] - (double)a[2] * b[1];
        ay += (double)a[2] * b[0] - (double)a[0] * b[2];
        az += (double)a[0] * b[1] - (double)a[1] * b[0];
    }
    return 0.5 * sqrt(ax * ax + ay * ay + az * az);
}

Test(skin, candy_wrapper_lbs_collapses_dqs_keeps_area)
{
    mb_joint_desc j[3] = {{"root", -1, {0, 0, 0}, 0, 3, {MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT}, 0},
                          {"twist", 0, {0, 0, 4}, 0, 3, {MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT}, 0},
                          {"twist_End", 1, {0, 0, 4}, 1, 0, {0}, 0}};
    mb_skeleton_desc sd = {j, 3, {0}};
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
    int nv = CW_SIDES * CW_RINGS;
    float *pos = malloc((size_t)nv * 3 * sizeof(float));
    int *jt = malloc((size_t)nv * 2 * sizeof(int));
    float *w = malloc((size_t)nv * 2 * sizeof(float));
    for (int r = 0; r < CW_RINGS; ++r) {
        double z = 8.0 * r / (CW_RINGS - 1), x = (z - 2.5) / 3.0;
        x = x < 0 ? 0 : (x > 1 ? 1 : x);
        double w1 = x * x * (3 - 2 * x);
        for (int m = 0; m < CW_SIDES; ++m) {
            int v = r * CW_SIDES + m;
            double phi = 2 * PI * m / CW_SIDES;
            pos[3 * v] = (float)cos(phi);
            pos[3 * v + 1] = (float)sin(phi);
            pos[3 * v + 2] = (float)z;
            jt[2 * v] = 0;
            jt[2 * v + 1] = 1;
            w[2 * v] = (float)(1 - w1);
            w[2 * v + 1] = (float)w1;
            if (w[2 * v] == 0.0f)
                w[2 * v] = 0.0f;
        }
    }
    int sj[2] = {0, 1};
    float ib[2][16] = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
                       {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -4, 1}};
    mb_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertex_count = nv;
    md.positions = pos;
    md.influences = 2;
    md.joints = jt;
    md.weights = w;
    md.skin_joint_count = 2;
    md.skin_joints = sj;
    md.inverse_bind = (const float(*)[16])ib;
    md.skeleton_joint_count = 3;
    mb_mesh *m;
    cr_assert_eq(mb_mesh_create(&md, &m, NULL), MB_OK);
    mb_xform pose[3] = {{{0, 0, 0, 1}, {0, 0, 0}}, {{0, 0, 0, 1}, {0, 0, 4}}, {{0, 0, 0, 1}, {0, 0, 4}}};
    double rest = ring_area(pos, CW_RINGS / 2);
    float *lp = malloc((size_t)nv * 3 * sizeof(float)), *dp = malloc((size_t)nv * 3 * sizeof(float));
    double angle = 150.0 * PI / 180.0;
    pose[1].rot[2] = (float)sin(angle / 2);
    pose[1].rot[3] = (float)cos(angle / 2);
    mb_test_skin_pose(s, m, pose, MB_SKIN_LBS, lp, NULL);
    mb_test_skin_pose(s, m, pose, MB_SKIN_DQS, dp, NULL);
    double lbs_min = INFINITY, dqs_min = INFINITY, dqs_max = 0;
    for (int r = 0; r < CW_RINGS; ++r) {
        lbs_min = fmin(lbs_min, ring_area(lp, r) / ring_area(pos, r));
        dqs_min = fmin(dqs_min, ring_area(dp, r) / ring_area(pos, r));
        dqs_max = fmax(dqs_max, ring_area(dp, r) / ring_area(pos, r));
    }
    double lbs_mid = ring_area(lp, CW_RINGS / 2) / rest, dqs_mid = ring_area(dp, CW_RINGS / 2) / rest;
    cr_log_info("candy wrapper, 150 degree twist: mid-joint cross-section area / rest: LBS %.4f, "
                "DQS %.4f; over all rings LBS min %.4f, DQS min %.4f max %.4f",
                lbs_mid, dqs_mid, lbs_min, dqs_min, dqs_max);
    printf("candy wrapper (150 deg): area ratio at the joint LBS %.4f DQS %.4f; all rings LBS "
           "min %.4f, DQS %.4f..%.4f\n",
           lbs_mid, dqs_mid, lbs_min, dqs_min, dqs_max);
    /* LBS at weights 0.5 / 0.5: radius cos(75 deg) -> area cos^2(75 deg) = 0.067 */
    cr_assert(lbs_mid < 0.10, "LBS should collapse: %g", lbs_mid);
    cr_assert(fabs(lbs_mid - pow(cos(75.0 * PI / 180.0), 2)) < 0.01);
    cr_assert(dqs_min > 0.95 && dqs_max < 1.05, "DQS keeps the area within 5%%: %g..%g", dqs_min,
              dqs_max);
    free(lp);
    free(dp);
    free(pos);
    free(jt);
    free(w);
    mb_mesh_destroy(m);
    mb_skeleton_destroy(s);
}

/* ---------- meshes ---------- */

Test(mesh, keeps_the_four_largest_influences)
{
    float pos[6] = {0, 0, 0, 1, 0, 0};
    int jt[12] = {0, 1, 2, 3, 4, 5, 2, 2, 0, 0, 0, 0};
    float w[12] = {0.05f, 0.3f, 0.1f, 0.2f, 0.25f, 0.1f, /* vertex 1: joint 2 twice */ 0.5f, 0.5f, 0, 0, 0, 0};
    int sj[6] = {0, 1, 2, 3, 4, 5};
    float ib[6][16];
    for (int i = 0; i < 6; ++i) {
        memset(ib[i], 0, sizeof ib[i]);
        ib[i][0] = ib[i][5] = ib[i][10] = ib[i][15] = 1;
    }
    mb_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertex_count = 2;
    md.positions = pos;
    md.influences = 6;
    md.joints = jt;
    md.weights = w;
    md.skin_joint_count = 6;
    md.skin_joints = sj;
    md.inverse_bind = (const float(*)[16])ib;
    md.skeleton_joint_count = 6;
    mb_mesh *m;
    cr_assert_eq(mb_mesh_create(&md, &m, NULL), MB_OK);
    mb_mesh_info info = mb_mesh_get_info(m);
    cr_assert_eq(info.cut_vertices, 1);
    cr_assert_eq(info.max_influences, 6);
    const uint16_t *ji = mb_mesh_joint_indices(m);
    const float *jw = mb_mesh_joint_weights(m);
    /* 0.3 (1), 0.25 (4), 0.2 (3), then 0.1 (2) before 0.1 (5): input order breaks ties */
    int want[4] = {1, 4, 3, 2};
    double sum = 0.3 + 0.25 + 0.2 + 0.1;
    float wantw[4] = {(float)(0.3 / sum), (float)(0.25 / sum), (float)(0.2 / sum), (float)(0.1 / sum)};
    for (int k = 0; k < 4; ++k) {
        cr_assert_eq(ji[k], want[k]);
        cr_assert_float_eq(jw[k], wantw[k], 1e-6);
    }
    cr_assert_eq(ji[4], 2);
    cr_assert_float_eq(jw[4], 1.0f, 1e-7);
    cr_assert_eq(jw[5], 0.0f);
    mb_mesh_destroy(m);

    /* invalid descs */
    mb_mesh_desc bad = md;
    mb_error e;
    jt[0] = 6;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "vertex 0: skin joint 6 outside"), "%s", e.text);
    jt[0] = 0;
    w[0] = -0.1f;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "vertex 0: weight -0.1"), "%s", e.text);
    w[0] = 0.05f;
    w[6] = w[7] = 0;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG); /* zero sum */
    cr_assert(strstr(e.text, "weights sum to 0"), "%s", e.text);
    w[6] = w[7] = 0.5f;
    ib[3][0] = 0;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG); /* singular inverse bind */
    cr_assert(strstr(e.text, "skin joint 3: the inverse bind matrix is singular"), "%s", e.text);
    ib[3][0] = 1;
    sj[5] = 6;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "skin joint 5 is skeleton joint 6"), "%s", e.text);
    sj[5] = 5;
    pos[4] = NAN;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "vertex 1: a non-finite position"), "%s", e.text);
    pos[4] = 0;
    uint32_t tri[3] = {0, 1, 2};
    bad.triangle_count = 1;
    bad.triangles = tri;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "triangle 0: vertex 2 outside"), "%s", e.text);
    bad.triangles = NULL;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "without their indices"), "%s", e.text);
    bad = md;
    bad.influences = MB_MESH_MAX_INPUT_INFLUENCES + 1;
    cr_assert_eq(mb_mesh_create(&bad, &m, &e), MB_LIMIT);
    cr_assert(strstr(e.text, "past the limits"), "%s", e.text);
    cr_assert_eq(mb_mesh_create(NULL, &m, &e), MB_INVALID_ARG);
    cr_assert_str_eq(e.text, "no desc given");
    cr_assert_eq(mb_mesh_create(&md, NULL, &e), MB_INVALID_ARG);
    cr_assert_str_eq(e.source, "mesh");
    mb_mesh_destroy(NULL);
}

Test(mesh, computes_normals_from_triangles)
{
    /* a unit square in z = 0, counter-clockwise seen from +z */
    float pos[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
    int jt[4] = {0, 0, 0, 0};
    float w[4] = {1, 1, 1, 1};
    int sj[1] = {0};
    float ib[1][16] = {{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    mb_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertex_count = 4;
    md.positions = pos;
    md.triangle_count = 2;
    md.triangles = tri;
    md.influences = 1;
    md.joints = jt;
    md.weights = w;
    md.skin_joint_count = 1;
    md.skin_joints = sj;
    md.inverse_bind = (const float(*)[16])ib;
    md.skeleton_joint_count = 1;
    mb_mesh *m;
    cr_assert_eq(mb_mesh_create(&md, &m, NULL), MB_OK);
    for (int v = 0; v < 4; ++v) {
        cr_assert_float_eq(mb_mesh_normals(m)[3 * v + 2], 1.0f, 1e-6);
        cr_assert_float_eq(mb_mesh_normals(m)[3 * v], 0.0f, 1e-6);
    }
    cr_assert_float_eq(mb_mesh_get_info(m).size, sqrtf(2.0f), 1e-6);
    mb_mesh_destroy(m);
}

/* ---------- generated skins ---------- */

static void load_bvh(const char *path, mb_skeleton **s, mb_clip **c)
{
    mb_error err;
    char msg[600];
    cr_assert_eq(mb_bvh_read_file(path, NULL, s, c, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
}

Test(generate, capsules_around_every_bone)
{
    mb_skeleton *s;
    mb_clip *c;
    load_bvh(MB_PROJECT_DIR "/data/bvh/walk.bvh", &s, &c);
    mb_mesh *m;
    cr_assert_eq(mb_skin_generate(s, NULL, &m, NULL), MB_OK);
    mb_mesh_info info = mb_mesh_get_info(m);
    int nj = mb_skeleton_joint_count(s);
    cr_log_info("generated skin: %d vertices, %d triangles, %d palette entries for %d joints",
                info.vertex_count, info.triangle_count, info.skin_joint_count, nj);
    cr_assert_gt(info.vertex_count, 100);
    cr_assert_eq(info.cut_vertices, 0);
    /* weights sum to 1, normals point away from their bone: check against the rest pose */
    mb_xform *rest = malloc((size_t)nj * sizeof *rest);
    float(*world)[16] = malloc((size_t)nj * sizeof *world);
    mb_pose rp = {rest, nj};
    cr_assert_eq(mb_skeleton_rest_pose(s, rp), MB_OK);
    cr_assert_eq(mb_fk(s, &rp, world, nj), MB_OK);
    const float *w = mb_mesh_joint_weights(m), *p = mb_mesh_positions(m), *n = mb_mesh_normals(m);
    for (int v = 0; v < info.vertex_count; ++v) {
        cr_assert_float_eq(w[4 * v] + w[4 * v + 1] + w[4 * v + 2] + w[4 * v + 3], 1.0f, 1e-5);
        cr_assert_float_eq(n[3 * v] * n[3 * v] + n[3 * v + 1] * n[3 * v + 1] + n[3 * v + 2] * n[3 * v + 2],
                           1.0f, 1e-5);
    }
    /* outward normals: the mesh encloses volume, so sum over triangles of the signed
     * volume (divergence theorem) is positive and each capsule is closed */
    const uint32_t *t = mb_mesh_triangles(m);
    double vol = 0;
    for (int i = 0; i < info.triangle_count; ++i) {
        const float *a = &p[3 * t[3 * i]], *b = &p[3 * t[3 * i + 1]], *cc = &p[3 * t[3 * i + 2]];
        vol += (a[0] * ((double)b[1] * cc[2] - (double)b[2] * cc[1]) -
                a[1] * ((double)b[0] * cc[2] - (double)b[2] * cc[0]) +
                a[2] * ((double)b[0] * cc[1] - (double)b[1] * cc[0])) / 6.0;
    }
    cr_assert_gt(vol, 0.0);
    /* the rest pose (the default bind) reproduces the mesh */
    float *op = malloc((size_t)info.vertex_count * 3 * sizeof(float));
    for (int meth = 0; meth < 2; ++meth) {
        mb_test_skin_pose(s, m, rest, (mb_skin_method)meth, op, NULL);
        for (int v = 0; v < info.vertex_count; ++v) {
            double q[3] = {p[3 * v], p[3 * v + 1], p[3 * v + 2]};
            cr_assert(dist3(q, &op[3 * v]) <= 1e-5 * info.size);
        }
    }
    /* every frame of the clip skins to finite positions that stay near the skeleton */
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    mb_pose pp = {pose, nj};
    for (int f = 0; f < mb_clip_frame_count(c); f += 17) {
        cr_assert_eq(mb_clip_frame_pose(s, c, f, pp), MB_OK);
        cr_assert_eq(mb_fk(s, &pp, world, nj), MB_OK);
        mb_test_skin_pose(s, m, pose, MB_SKIN_DQS, op, NULL);
        for (int v = 0; v < info.vertex_count; ++v) {
            double best = INFINITY;
            for (int j = 0; j < nj; ++j) {
                double q[3] = {world[j][12], world[j][13], world[j][14]};
                best = fmin(best, dist3(q, &op[3 * v]));
            }
            cr_assert(isfinite(best) && best < 0.25 * info.size, "frame %d vertex %d", f, v);
        }
    }
    free(pose);
    free(op);
    free(rest);
    free(world);
    mb_mesh_destroy(m);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

Test(generate, bind_pose_other_than_rest_and_bad_descs)
{
    mb_skeleton *s;
    mb_clip *c;
    load_bvh(MB_PROJECT_DIR "/data/bvh/run.bvh", &s, &c);
    int nj = mb_skeleton_joint_count(s);
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    mb_pose pp = {pose, nj};
    cr_assert_eq(mb_clip_frame_pose(s, c, 5, pp), MB_OK);
    mb_skin_gen_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.bind = &pp;
    gd.sides = 6;
    gd.rings = 3;
    mb_mesh *m;
    cr_assert_eq(mb_skin_generate(s, &gd, &m, NULL), MB_OK);
    mb_mesh_info info = mb_mesh_get_info(m);
    float *op = malloc((size_t)info.vertex_count * 3 * sizeof(float));
    mb_test_skin_pose(s, m, pose, MB_SKIN_LBS, op, NULL);
    for (int v = 0; v < info.vertex_count; ++v) {
        const float *p = &mb_mesh_positions(m)[3 * v];
        double q[3] = {p[0], p[1], p[2]};
        cr_assert(dist3(q, &op[3 * v]) <= 1e-5 * info.size);
    }
    const mb_xform *bp = mb_mesh_bind_pose(m);
    for (int j = 0; j < nj; ++j)
        cr_assert_float_eq(bp[j].pos[1], pose[j].pos[1], 1e-6);
    free(op);
    mb_mesh_destroy(m);
    mb_skin_gen_desc bad;
    memset(&bad, 0, sizeof bad);
    bad.sides = 2;
    mb_error e;
    cr_assert_eq(mb_skin_generate(s, &bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "bad desc") && strstr(e.text, "sides 2"), "%s", e.text);
    bad.sides = 0;
    bad.blend = 0.6f;
    cr_assert_eq(mb_skin_generate(s, &bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "blend 0.6"), "%s", e.text);
    bad.blend = 0;
    bad.radius = NAN;
    cr_assert_eq(mb_skin_generate(s, &bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "radius nan"), "%s", e.text);
    bad.radius = 0;
    mb_pose short_pose = {pose, nj - 1};
    bad.bind = &short_pose;
    cr_assert_eq(mb_skin_generate(s, &bad, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "bind pose"), "%s", e.text);
    cr_assert_eq(mb_skin_generate(NULL, NULL, &m, &e), MB_INVALID_ARG);
    cr_assert_str_eq(e.text, "no skeleton given");
    cr_assert_eq(mb_skin_generate(s, NULL, NULL, &e), MB_INVALID_ARG);
    cr_assert_str_eq(e.source, "generated skin");
    /* a lone joint has no bone */
    mb_joint_desc one = {"only", -1, {0, 0, 0}, 0, 0, {0}, 0};
    mb_skeleton_desc sd = {&one, 1, {0}};
    mb_skeleton *lone;
    cr_assert_eq(mb_skeleton_create(&sd, &lone, NULL), MB_OK);
    cr_assert_eq(mb_skin_generate(lone, NULL, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "no extent"), "%s", e.text);
    mb_skeleton_destroy(lone);
    free(pose);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

/* ---------- unnormalised weights (values, not shapes) ---------- */

/* skin.h promises the job normalises each vertex's weights (every other test's weights
 * already sum to 1): float weights scaled per vertex by any positive factor, and unorm16
 * weights summing to less than 65535, give exactly what the weights divided by their sum
 * give, for LBS and DQS, with and without normals, on every kernel the tests can select;
 * 37 vertices make whole groups of 8 and a tail. */
static void skin_pair(mb_isa_ isa, const vset *s, const mb_skin_desc *base, const void *w_raw,
                      mb_skin_format fmt, const float *w_unit, float *ref_p, float *ref_n)
{
    mb_skin_desc d = *base;
    d.format = MB_SKIN_U16_FLOAT;
    d.joint_indices = s->idx;
    d.joint_weights = w_unit;
    d.out_positions = ref_p;
    d.out_normals = d.normals ? ref_n : NULL;
    cr_assert_eq(mb_skin_run_isa_(&d, isa), MB_OK);
    d = *base;
    d.format = fmt;
    d.joint_indices = fmt == MB_SKIN_U8_UNORM16 ? (const void *)s->idx8 : (const void *)s->idx;
    d.joint_weights = w_raw;
    cr_assert_eq(mb_skin_run_isa_(&d, isa), MB_OK);
}

Test(skin, unnormalised_weights_give_the_normalised_result)
{
    static const mb_isa_ isas[3] = {MB_ISA_GENERIC_, MB_ISA_AVX2_, MB_ISA_AVX512_};
    for (int kernel = 0; kernel < 3; ++kernel) {
        const mb_isa_ isa = isas[kernel];
        if (!mb_skin_kernel_(isa))
            continue; /* test_cpu asserts that a CPU with AVX2 gets here */
        for (int inf = 1; inf <= 4; ++inf) {
            vset s;
            vset_make(&s, 37, 12, inf);
            int nw = s.nv * inf;
            float pal[12][16], dq[12][8], *wf = malloc(sizeof *wf * nw), *unit_f = malloc(sizeof *unit_f * nw),
                  *unit_16 = malloc(sizeof *unit_16 * nw), *rp = malloc(sizeof *rp * 3 * s.nv),
                  *rn = malloc(sizeof *rn * 3 * s.nv);
            uint16_t *w16 = malloc(sizeof *w16 * nw);
            cr_assert(wf && unit_f && unit_16 && rp && rn && w16);
            for (int j = 0; j < 12; ++j) {
                float q[4], t[3] = {(float)rnd_range(-3, 3), (float)rnd_range(-3, 3), (float)rnd_range(-3, 3)};
                rnd_quat(q);
                rigid(q, t, pal[j]);
            }
            cr_assert_eq(mb_skin_dq_palette((const float(*)[16])pal, 12, dq), MB_OK);
            for (int v = 0; v < s.nv; ++v) {
                double scale = v % 4 == 0 ? rnd_range(0.01, 0.3) : rnd_range(1.5, 40.0), f16 = rnd_range(0.2, 0.9);
                double sf = 0.0, s16 = 0.0;
                for (int k = 0; k < inf; ++k) {
                    int i = v * inf + k;
                    wf[i] = (float)(s.w[i] * scale);
                    w16[i] = (uint16_t)floor(s.w16[i] * f16);
                    sf += wf[i];
                    s16 += w16[i];
                }
                cr_assert(s16 > 0.0 && s16 < 65000.0);
                for (int k = 0; k < inf; ++k) {
                    int i = v * inf + k;
                    unit_f[i] = (float)(wf[i] / sf);
                    unit_16[i] = (float)(w16[i] / s16);
                }
            }
            for (int m = 0; m < 2; ++m)
                for (int withn = 0; withn < 2; ++withn)
                    for (int fmt = 0; fmt < 2; ++fmt) {
                        mb_skin_desc d;
                        desc_for(&s, &d, (mb_skin_method)m, (const float(*)[16])pal, (const float(*)[8])dq);
                        if (!withn)
                            d.normals = d.out_normals = NULL;
                        skin_pair(isa, &s, &d, fmt ? (const void *)w16 : (const void *)wf,
                                  fmt ? MB_SKIN_U8_UNORM16 : MB_SKIN_U16_FLOAT, fmt ? unit_16 : unit_f, rp, rn);
                        for (int v = 0; v < s.nv; ++v) {
                            double ref[3] = {rp[3 * v], rp[3 * v + 1], rp[3 * v + 2]};
                            cr_assert(dist3(ref, &s.outp[3 * v]) < 2e-5,
                                      "kernel %s %s inf %d fmt %d v %d: %g from the normalised weights' result",
                                      mb_isa_name_(isa), m ? "dqs" : "lbs", inf, fmt, v, dist3(ref, &s.outp[3 * v]));
                            if (withn) {
                                double refn[3] = {rn[3 * v], rn[3 * v + 1], rn[3 * v + 2]};
                                cr_assert(dist3(refn, &s.outn[3 * v]) < 2e-5, "normal, v %d", v);
                            }
                        }
                    }
            free(wf);
            free(unit_f);
            free(unit_16);
            free(rp);
            free(rn);
            free(w16);
            vset_free(&s);
        }
    }
}

/* ---------- bones that stretch over the clip (a static root above the hips) ---------- */

/* A chain root -> a -> b -> c whose translations are tracked: a's bone (from the root)
 * changes its length by 2% over the clip (it stretches: over MB_SKIN_GEN_STRETCH), b's by
 * 0.5% (rigid), c's not at all. */
Test(generate, rigid_bones_by_length_change)
{
    mb_joint_desc jd[4] = {{"root", -1, {0, 0, 0}, 0, 0, {0}, 0},
                           {"a", 0, {0, 10, 0}, 0, 0, {0}, 0},
                           {"b", 1, {0, 10, 0}, 0, 0, {0}, 0},
                           {"c", 2, {0, 10, 0}, 0, 0, {0}, 0}};
    static const mb_channel pos[3] = {MB_CH_XPOS, MB_CH_YPOS, MB_CH_ZPOS};
    for (int j = 0; j < 4; ++j) {
        memcpy(jd[j].channels, pos, sizeof pos);
        jd[j].channel_count = 3;
    }
    mb_skeleton_desc sd = {jd, 4, {0}};
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
    float rot[2 * 4 * 4] = {0};
    float tr[2 * 4 * 3] = {0, 0, 0, 0, 10, 0, 0, 10, 0, 0, 10, 0,
                           5, 0, 0, 0, 10.2f, 0, 0, 10.05f, 0, 0, 10, 0};
    for (int i = 0; i < 8; ++i)
        rot[4 * i + 3] = 1;
    mb_clip *c;
    cr_assert_eq(mb_test_clip_full(s, 2, 0.1, rot, tr, &c), MB_OK);
    unsigned char rigid[4];
    cr_assert_eq(mb_skin_rigid_bones(s, c, NULL, rigid, NULL), MB_OK);
    cr_assert(rigid[0] == 0 && rigid[1] == 0 && rigid[2] == 1 && rigid[3] == 1, "%d %d %d %d",
              rigid[0], rigid[1], rigid[2], rigid[3]);
    /* without a clip every bone holds; a bind pose 5% longer makes c's bone stretch */
    cr_assert_eq(mb_skin_rigid_bones(s, NULL, NULL, rigid, NULL), MB_OK);
    cr_assert(rigid[0] == 0 && rigid[1] == 1 && rigid[2] == 1 && rigid[3] == 1);
    mb_xform bind[4];
    mb_pose bp = {bind, 4};
    cr_assert_eq(mb_skeleton_rest_pose(s, bp), MB_OK);
    bind[3].pos[1] = 10.5f;
    cr_assert_eq(mb_skin_rigid_bones(s, c, &bp, rigid, NULL), MB_OK);
    cr_assert(rigid[1] == 0 && rigid[2] == 1 && rigid[3] == 0);
    mb_pose short_pose = {bind, 3};
    mb_error e;
    cr_assert_eq(mb_skin_rigid_bones(s, c, &short_pose, rigid, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "the bind pose does not have"), "%s", e.text);
    cr_assert_eq(mb_skin_rigid_bones(NULL, c, NULL, rigid, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_skin_rigid_bones(s, c, NULL, NULL, NULL), MB_INVALID_ARG);
    /* a clip of another skeleton is refused, by mb_skin_generate too */
    mb_skeleton *other;
    mb_skeleton_desc od = {jd, 3, {0}};
    cr_assert_eq(mb_skeleton_create(&od, &other, NULL), MB_OK);
    cr_assert_eq(mb_skin_rigid_bones(other, c, NULL, rigid, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "the clip does not have"), "%s", e.text);
    mb_skin_gen_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.clip = c;
    mb_mesh *m = NULL;
    cr_assert_eq(mb_skin_generate(other, &gd, &m, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "the clip does not have"), "%s: the rigid bones' reason wins", e.text);
    cr_assert_null(m);
    /* Without the clip, three capsules and the root in the palette. With it, the capsules
     * a -> b and b -> c only: driven by a and b, and no weight handed back to the root
     * across the stretching bone (so the root is in no vertex's palette). */
    cr_assert_eq(mb_skin_generate(s, NULL, &m, NULL), MB_OK);
    int nv_all = mb_mesh_vertex_count(m);
    cr_assert_eq(mb_mesh_skin_joint_count(m), 3);
    cr_assert_eq(mb_mesh_skin_joints(m)[0], 0);
    mb_mesh_destroy(m);
    cr_assert_eq(mb_skin_generate(s, &gd, &m, NULL), MB_OK);
    cr_assert_eq(mb_mesh_vertex_count(m) * 3, nv_all * 2);
    cr_assert_eq(mb_mesh_skin_joint_count(m), 2);
    cr_assert(mb_mesh_skin_joints(m)[0] == 1 && mb_mesh_skin_joints(m)[1] == 2);
    mb_mesh_destroy(m);
    mb_skeleton_destroy(other);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

/* Bandai-Namco's joint_Root stays at the origin while Hips, its child, walks 10 m: the
 * bone between them stretches over the whole walk. The skin generated with the clip has
 * no capsule there and no vertex weighted to joint_Root, so on every frame of the clip
 * the skinned mesh stays the size of the body (a bounding-box diagonal within 1.5 times
 * the body's height; the old skin reached 571 cm for a 133 cm body). */
Test(generate, static_root_above_the_hips_gets_no_capsule)
{
    mb_skeleton *s;
    mb_clip *c;
    load_bvh(mb_shared_path("bvh/bandai2_walk_normal_001.bvh"), &s, &c);
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    mb_motion_info info;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "bandai", &info, NULL), MB_OK);
    cr_assert_str_eq(mb_skeleton_name(s, info.root), "Hips");
    cr_assert_eq(mb_skeleton_parents(s)[info.root], 0);
    unsigned char *rigid = malloc((size_t)nj);
    cr_assert_eq(mb_skin_rigid_bones(s, c, NULL, rigid, NULL), MB_OK);
    for (int j = 1; j < nj; ++j)
        cr_assert_eq(rigid[j], j != info.root, "joint %s", mb_skeleton_name(s, j));
    mb_skin_gen_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.clip = c;
    mb_mesh *m;
    cr_assert_eq(mb_skin_generate(s, &gd, &m, NULL), MB_OK);
    /* no vertex has weight on joint_Root */
    int nv = mb_mesh_vertex_count(m);
    const uint16_t *ji = mb_mesh_joint_indices(m);
    const float *jw = mb_mesh_joint_weights(m);
    const int *sj = mb_mesh_skin_joints(m);
    for (int v = 0; v < nv; ++v)
        for (int k = 0; k < 4; ++k)
            cr_assert(sj[ji[4 * v + k]] != 0 || jw[4 * v + k] == 0.0f, "vertex %d follows joint_Root", v);
    float *op = malloc((size_t)nv * 3 * sizeof(float));
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    mb_pose pp = {pose, nj};
    double worst = 0;
    for (int f = 0; f < nf; ++f) {
        cr_assert_eq(mb_clip_frame_pose(s, c, f, pp), MB_OK);
        mb_test_skin_pose(s, m, pose, MB_SKIN_LBS, op, NULL);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int v = 0; v < nv; ++v)
            for (int k = 0; k < 3; ++k) {
                lo[k] = fmin(lo[k], op[3 * v + k]);
                hi[k] = fmax(hi[k], op[3 * v + k]);
            }
        double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                           (hi[2] - lo[2]) * (hi[2] - lo[2]));
        worst = fmax(worst, diag);
        cr_assert(diag <= 1.5 * info.height, "frame %d: the mesh spans %g, the body is %g high", f,
                  diag, info.height);
    }
    cr_log_info("bandai walk: generated skin spans at most %.4g (body height %.4g) over %d frames",
                worst, info.height, nf);
    free(pose);
    free(op);
    free(rigid);
    mb_mesh_destroy(m);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}
