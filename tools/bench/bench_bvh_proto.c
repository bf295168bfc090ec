/* bench_bvh_proto: standalone experiments on the BVH reader's motion loop.
 *
 * Nothing here is used by the library. It replicates the reader's per-value loop
 * (src/io/bvh_read.c: skip_space with line counting, mb_parse_float_, store_frame with
 * double sin/cos through mb_quat_from_euler) on the same generated text, splits its time
 * into lexing, number parsing and Euler->quaternion conversion, and measures candidate
 * replacements:
 *   - mb_parse_float_ inlined into the loop (what LTO or a static inline header gives),
 *   - a table whitespace skip without per-byte line counting (lines recounted on error),
 *   - a SWAR number parser (8 digits per step, float Clinger fast path),
 *   - a float sin/cos polynomial over all joints of a frame (vectorised, SoA).
 * The fast variants are checked: parser within 1 ulp of strtof on every motion value;
 * quaternions and translations against the reader's clip. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "bench_util.h"
#include "bvh_gen.h"
#include "mblend/bvh.h"

/* The library's number parser compiled into this file under another name, so the loop
 * below can inline it (the reader calls it across translation units). */
#define mb_parse_float_ inl_parse_float_
#define mb_parse_double_ inl_parse_double_
#include "io/number.c"
#undef mb_parse_float_
#undef mb_parse_double_
/* ... and the library's own, called through the archive as the reader does. */
mb_num_result mb_parse_float_(const char *p, const char *end, float *out, const char **next);

#define DEG2RAD 0.017453292519943295
#define MAX_NODES 4096

/* ---------- joint maps (as the reader's build_maps, from the public API) ---------- */

typedef struct jmap {
    int rot_idx[3]; /* row index of the angle of each axis of the order, -1: zero */
    int pos_idx[3]; /* row index of x, y, z position, -1: offset */
    int rotating;   /* has rotation channels */
    mb_euler_order order;
    float offset[3];
} jmap;

static int build_maps(const mb_skeleton *s, jmap *maps)
{
    int nj = mb_skeleton_joint_count(s), start = 0;
    for (int i = 0; i < nj; ++i) {
        jmap *m = &maps[i];
        const mb_channel *ch;
        int n = mb_skeleton_channels(s, i, &ch);
        int axis_idx[3] = {-1, -1, -1};
        m->order = mb_skeleton_rot_order(s, i);
        m->rotating = 0;
        for (int k = 0; k < 3; ++k)
            m->pos_idx[k] = -1;
        for (int k = 0; k < n; ++k) {
            if (ch[k] <= MB_CH_ZPOS)
                m->pos_idx[ch[k]] = start + k;
            else {
                axis_idx[ch[k] - MB_CH_XROT] = start + k;
                m->rotating = 1;
            }
        }
        for (int k = 0; k < 3; ++k)
            m->rot_idx[k] = axis_idx[mb_euler_order_axis(m->order, k)];
        memcpy(m->offset, mb_skeleton_offset(s, i), sizeof m->offset);
        start += n;
    }
    return start;
}

/* ---------- Euler -> quaternion, the reader's way (double, libm) ---------- */

static void store_frame_double(const jmap *maps, int nj, const float *row, float *rot,
                               float *trans, const float *prev)
{
    for (int i = 0; i < nj; ++i) {
        const jmap *m = &maps[i];
        double a[3], q[4];
        for (int k = 0; k < 3; ++k)
            a[k] = m->rot_idx[k] >= 0 ? (double)row[m->rot_idx[k]] * DEG2RAD : 0.0;
        mb_quat_from_euler(m->order, a, q);
        float *o = rot + 4 * i;
        double d = prev ? q[0] * prev[4 * i] + q[1] * prev[4 * i + 1] + q[2] * prev[4 * i + 2] +
                              q[3] * prev[4 * i + 3]
                        : q[3];
        double sg = d < 0.0 ? -1.0 : 1.0;
        for (int k = 0; k < 4; ++k)
            o[k] = (float)(sg * q[k]);
        if (trans) {
            float *t = trans + 3 * i;
            for (int k = 0; k < 3; ++k)
                t[k] = m->pos_idx[k] >= 0 ? row[m->pos_idx[k]] : m->offset[k];
        }
    }
}

/* ---------- Euler -> quaternion, float polynomial over all joints (SoA) ---------- */

static const unsigned char order_axes[6][3] = {
    {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};

typedef struct soa_plan {
    int nr;                 /* rotating joints */
    int nj;
    int *joint;             /* [nr] node index */
    int *src;               /* [3 * nr] row index per angle slot (angle k of joint n at k*nr+n), -1: 0 */
    float *eps;             /* [nr] +1 even order (XYZ, YZX, ZXY), -1 odd */
    unsigned char *ax;      /* [3 * nr] axis of each factor */
    float *ang, *sn, *cs;   /* [3 * nr] scratch */
    float *vi, *vj, *vk, *w;/* [nr] scratch */
    int *still;             /* [nj - nr] nodes without rotation channels */
} soa_plan;

static int plan_init(soa_plan *p, const jmap *maps, int nj)
{
    memset(p, 0, sizeof *p);
    int nr = 0;
    for (int i = 0; i < nj; ++i)
        nr += maps[i].rotating;
    p->nr = nr;
    p->nj = nj;
    size_t n3 = (size_t)(3 * nr + 8);
    p->joint = malloc((size_t)(nr + 1) * sizeof(int));
    p->src = malloc(n3 * sizeof(int));
    p->eps = malloc((size_t)(nr + 8) * sizeof(float));
    p->ax = malloc(n3);
    p->ang = malloc(n3 * sizeof(float));
    p->sn = malloc(n3 * sizeof(float));
    p->cs = malloc(n3 * sizeof(float));
    p->vi = malloc((size_t)(nr + 8) * sizeof(float));
    p->vj = malloc((size_t)(nr + 8) * sizeof(float));
    p->vk = malloc((size_t)(nr + 8) * sizeof(float));
    p->w = malloc((size_t)(nr + 8) * sizeof(float));
    p->still = malloc((size_t)(nj - nr + 1) * sizeof(int));
    if (!p->joint || !p->src || !p->eps || !p->ax || !p->ang || !p->sn || !p->cs || !p->vi ||
        !p->vj || !p->vk || !p->w || !p->still)
        return -1;
    int n = 0, s = 0;
    for (int i = 0; i < nj; ++i) {
        const jmap *m = &maps[i];
        if (!m->rotating) {
            p->still[s++] = i;
            continue;
        }
        p->joint[n] = i;
        int o = (int)m->order;
        for (int k = 0; k < 3; ++k) {
            p->src[k * nr + n] = m->rot_idx[k];
            p->ax[k * nr + n] = order_axes[o][k];
        }
        int a0 = order_axes[o][0], a1 = order_axes[o][1];
        p->eps[n] = ((a1 - a0 + 3) % 3 == 1) ? 1.0f : -1.0f;
        ++n;
    }
    return 0;
}

static void plan_free(soa_plan *p)
{
    free(p->joint);
    free(p->src);
    free(p->eps);
    free(p->ax);
    free(p->ang);
    free(p->sn);
    free(p->cs);
    free(p->vi);
    free(p->vj);
    free(p->vk);
    free(p->w);
    free(p->still);
}

/* Taylor coefficients of sin and cos of an angle in degrees (pi/180 folded in). */
static float S1_, S3_, S5_, S7_, S9_, C2_, C4_, C6_, C8_, C10_;

static void poly_init(void)
{
    double d = DEG2RAD, d2 = d * d;
    S1_ = (float)d;
    S3_ = (float)(-d * d2 / 6.0);
    S5_ = (float)(d * d2 * d2 / 120.0);
    S7_ = (float)(-d * d2 * d2 * d2 / 5040.0);
    S9_ = (float)(d * d2 * d2 * d2 * d2 / 362880.0);
    C2_ = (float)(-d2 / 2.0);
    C4_ = (float)(d2 * d2 / 24.0);
    C6_ = (float)(-d2 * d2 * d2 / 720.0);
    C8_ = (float)(d2 * d2 * d2 * d2 / 40320.0);
    C10_ = (float)(-d2 * d2 * d2 * d2 * d2 / 3628800.0);
}

/* sin and cos of half of each angle (degrees). Reduction by quarter turns is exact in
 * float (x - 90k with |result| <= 45 is representable); Taylor to degree 9/10 on
 * [-45, 45] degrees leaves < 2e-9 truncation, so the error is float rounding (~1e-7).
 * Written branch-free so GCC vectorises it (SSE2: 4 lanes). */
static void sincos_half_deg(const float *restrict a, float *restrict s, float *restrict c, int n)
{
    for (int i = 0; i < n; ++i) {
        float x = 0.5f * a[i];
        float k = (x * (1.0f / 90.0f) + 12582912.0f) - 12582912.0f; /* round to nearest */
        float r = x - k * 90.0f;
        int q = (int)k;
        float r2 = r * r;
        float sp = r * (S1_ + r2 * (S3_ + r2 * (S5_ + r2 * (S7_ + r2 * S9_))));
        float cp = 1.0f + r2 * (C2_ + r2 * (C4_ + r2 * (C6_ + r2 * (C8_ + r2 * C10_))));
        float odd = (float)(q & 1);
        float ss = odd * cp + (1.0f - odd) * sp;
        float cc = odd * sp + (1.0f - odd) * cp;
        float sgs = 1.0f - (float)(q & 2);        /* q = 2, 3: sin negative */
        float sgc = 1.0f - (float)((q + 1) & 2);  /* q = 1, 2: cos negative */
        s[i] = sgs * ss;
        c[i] = sgc * cc;
    }
}

static void store_frame_poly(soa_plan *p, const jmap *maps, const float *row, float *rot,
                             float *trans, const float *prev)
{
    int nr = p->nr, n3 = 3 * nr;
    for (int t = 0; t < n3; ++t) {
        int si = p->src[t];
        p->ang[t] = si >= 0 ? row[si] : 0.0f;
    }
    sincos_half_deg(p->ang, p->sn, p->cs, n3);
    {
        const float *restrict s0 = p->sn, *restrict s1 = p->sn + nr, *restrict s2 = p->sn + 2 * nr;
        const float *restrict c0 = p->cs, *restrict c1 = p->cs + nr, *restrict c2 = p->cs + 2 * nr;
        const float *restrict eps = p->eps;
        float *restrict vi = p->vi, *restrict vj = p->vj, *restrict vk = p->vk, *restrict w = p->w;
        /* q = q0 q1 q2 for axes (i, j, k) of parity eps (closed form). */
        for (int n = 0; n < nr; ++n) {
            float e = eps[n];
            float c1c2 = c1[n] * c2[n], s1s2 = s1[n] * s2[n];
            float s1c2 = s1[n] * c2[n], c1s2 = c1[n] * s2[n];
            vi[n] = s0[n] * c1c2 + e * c0[n] * s1s2;
            vj[n] = c0[n] * s1c2 - e * s0[n] * c1s2;
            vk[n] = c0[n] * c1s2 + e * s0[n] * s1c2;
            w[n] = c0[n] * c1c2 - e * s0[n] * s1s2;
        }
    }
    for (int n = 0; n < nr; ++n) {
        int j = p->joint[n];
        float q[4];
        q[p->ax[n]] = p->vi[n];
        q[p->ax[nr + n]] = p->vj[n];
        q[p->ax[2 * nr + n]] = p->vk[n];
        q[3] = p->w[n];
        float d = prev ? q[0] * prev[4 * j] + q[1] * prev[4 * j + 1] + q[2] * prev[4 * j + 2] +
                             q[3] * prev[4 * j + 3]
                       : q[3];
        float sg = d < 0.0f ? -1.0f : 1.0f;
        float *o = rot + 4 * j;
        for (int k = 0; k < 4; ++k)
            o[k] = sg * q[k];
    }
    for (int t = 0; t < p->nj - nr; ++t) {
        float *o = rot + 4 * p->still[t];
        o[0] = o[1] = o[2] = 0.0f;
        o[3] = 1.0f;
    }
    if (trans)
        for (int i = 0; i < p->nj; ++i) {
            const jmap *m = &maps[i];
            float *t = trans + 3 * i;
            for (int k = 0; k < 3; ++k)
                t[k] = m->pos_idx[k] >= 0 ? row[m->pos_idx[k]] : m->offset[k];
        }
}

/* The same in double: sin/cos polynomial to ~1e-11 (degree 11/12), product in double,
 * one rounding to float at the end, so the result matches the reader's libm path to
 * float rounding. SSE2 vectorises it two lanes wide (AVX2 would give four). */
static double D1_, D3_, D5_, D7_, D9_, D11_, E2_, E4_, E6_, E8_, E10_, E12_;

static void polyd_init(void)
{
    double d = DEG2RAD, d2 = d * d;
    D1_ = d;
    D3_ = -D1_ * d2 / 6.0;
    D5_ = -D3_ * d2 / 20.0;
    D7_ = -D5_ * d2 / 42.0;
    D9_ = -D7_ * d2 / 72.0;
    D11_ = -D9_ * d2 / 110.0;
    E2_ = -d2 / 2.0;
    E4_ = -E2_ * d2 / 12.0;
    E6_ = -E4_ * d2 / 30.0;
    E8_ = -E6_ * d2 / 56.0;
    E10_ = -E8_ * d2 / 90.0;
    E12_ = -E10_ * d2 / 132.0;
}

static void sincos_half_deg_d(const double *restrict a, double *restrict s, double *restrict c, int n)
{
    for (int i = 0; i < n; ++i) {
        double x = 0.5 * a[i];
        double k = (x * (1.0 / 90.0) + 6755399441055744.0) - 6755399441055744.0;
        double r = x - k * 90.0;
        int q = (int)k;
        double r2 = r * r;
        double sp = r * (D1_ + r2 * (D3_ + r2 * (D5_ + r2 * (D7_ + r2 * (D9_ + r2 * D11_)))));
        double cp = 1.0 + r2 * (E2_ + r2 * (E4_ + r2 * (E6_ + r2 * (E8_ + r2 * (E10_ + r2 * E12_)))));
        double odd = (double)(q & 1);
        double ss = odd * cp + (1.0 - odd) * sp;
        double cc = odd * sp + (1.0 - odd) * cp;
        s[i] = (1.0 - (double)(q & 2)) * ss;
        c[i] = (1.0 - (double)((q + 1) & 2)) * cc;
    }
}

typedef struct soa_d {
    double *ang, *sn, *cs, *vi, *vj, *vk, *w;
} soa_d;

static int soad_init(soa_d *d, int nr)
{
    size_t n3 = (size_t)(3 * nr + 8), n1 = (size_t)(nr + 8);
    d->ang = malloc(n3 * sizeof(double));
    d->sn = malloc(n3 * sizeof(double));
    d->cs = malloc(n3 * sizeof(double));
    d->vi = malloc(n1 * sizeof(double));
    d->vj = malloc(n1 * sizeof(double));
    d->vk = malloc(n1 * sizeof(double));
    d->w = malloc(n1 * sizeof(double));
    return d->ang && d->sn && d->cs && d->vi && d->vj && d->vk && d->w ? 0 : -1;
}

static void soad_free(soa_d *d)
{
    free(d->ang);
    free(d->sn);
    free(d->cs);
    free(d->vi);
    free(d->vj);
    free(d->vk);
    free(d->w);
}

static soa_d g_soad;

static void store_frame_polyd(soa_plan *p, const jmap *maps, const float *row, float *rot,
                              float *trans, const float *prev)
{
    soa_d *D = &g_soad;
    int nr = p->nr, n3 = 3 * nr;
    for (int t = 0; t < n3; ++t) {
        int si = p->src[t];
        D->ang[t] = si >= 0 ? (double)row[si] : 0.0;
    }
    sincos_half_deg_d(D->ang, D->sn, D->cs, n3);
    {
        const double *restrict s0 = D->sn, *restrict s1 = D->sn + nr, *restrict s2 = D->sn + 2 * nr;
        const double *restrict c0 = D->cs, *restrict c1 = D->cs + nr, *restrict c2 = D->cs + 2 * nr;
        const float *restrict eps = p->eps;
        double *restrict vi = D->vi, *restrict vj = D->vj, *restrict vk = D->vk, *restrict w = D->w;
        for (int n = 0; n < nr; ++n) {
            double e = (double)eps[n];
            double c1c2 = c1[n] * c2[n], s1s2 = s1[n] * s2[n];
            double s1c2 = s1[n] * c2[n], c1s2 = c1[n] * s2[n];
            vi[n] = s0[n] * c1c2 + e * c0[n] * s1s2;
            vj[n] = c0[n] * s1c2 - e * s0[n] * c1s2;
            vk[n] = c0[n] * c1s2 + e * s0[n] * s1c2;
            w[n] = c0[n] * c1c2 - e * s0[n] * s1s2;
        }
    }
    for (int n = 0; n < nr; ++n) {
        int j = p->joint[n];
        double q[4];
        q[p->ax[n]] = D->vi[n];
        q[p->ax[nr + n]] = D->vj[n];
        q[p->ax[2 * nr + n]] = D->vk[n];
        q[3] = D->w[n];
        double d = prev ? q[0] * prev[4 * j] + q[1] * prev[4 * j + 1] + q[2] * prev[4 * j + 2] +
                              q[3] * prev[4 * j + 3]
                        : q[3];
        double sg = d < 0.0 ? -1.0 : 1.0;
        float *o = rot + 4 * j;
        for (int k = 0; k < 4; ++k)
            o[k] = (float)(sg * q[k]);
    }
    for (int t = 0; t < p->nj - nr; ++t) {
        float *o = rot + 4 * p->still[t];
        o[0] = o[1] = o[2] = 0.0f;
        o[3] = 1.0f;
    }
    if (trans)
        for (int i = 0; i < p->nj; ++i) {
            const jmap *m = &maps[i];
            float *t = trans + 3 * i;
            for (int k = 0; k < 3; ++k)
                t[k] = m->pos_idx[k] >= 0 ? row[m->pos_idx[k]] : m->offset[k];
        }
}

/* ---------- lexing: the reader's way ---------- */

typedef struct lexer {
    const char *p, *end, *line_start;
    int line;
} lexer;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void skip_space(lexer *ps)
{
    const char *p = ps->p, *end = ps->end;
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t') {
            ++p;
        } else if (c == '\n') {
            ++p;
            ++ps->line;
            ps->line_start = p;
        } else if (c == '\r') {
            ++p;
            if (p < end && *p == '\n')
                ++p;
            ++ps->line;
            ps->line_start = p;
        } else if (c == '\v' || c == '\f') {
            ++p;
        } else {
            break;
        }
    }
    ps->p = p;
}

/* ---------- lexing: table, no line counting (lines are recounted on an error) ---------- */

static unsigned char ws_table[256];

static void ws_init(void)
{
    const char *w = " \t\n\r\v\f";
    for (; *w; ++w)
        ws_table[(unsigned char)*w] = 1;
}

#define IS_WS(c) (ws_table[(unsigned char)(c)])

/* ---------- SWAR number parser ---------- */

static const float pow10f_[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
static const double pow10d_[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline uint64_t load8(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v; /* little-endian: p[0] in the low byte */
}

/* Number of leading ASCII digits among 8 bytes (8 when all are digits), and their value
 * bytes (0..9) in *dv. Lower bytes are exact; junk above the first non-digit is ignored. */
static inline int digit_run(uint64_t v, uint64_t *dv)
{
    uint64_t x = v - 0x3030303030303030ull;
    uint64_t nd = (x | (x + 0x7676767676767676ull)) & 0x8080808080808080ull;
    *dv = x;
    return nd ? __builtin_ctzll(nd) >> 3 : 8;
}

/* Value of the first n (1..8) digit bytes of x (0..9 per byte, first digit lowest). */
static inline uint32_t digits_value(uint64_t x, int n)
{
    x <<= 8 * (8 - n); /* the dropped tail becomes leading zero digits */
    x = (x * 10u + (x >> 8)) & 0x00ff00ff00ff00ffull;
    x = (x * 100u + (x >> 16)) & 0x0000ffff0000ffffull;
    x = (x * 10000u + (x >> 32)) & 0x00000000ffffffffull;
    return (uint32_t)x;
}

/* [+-]digits[.digits][e[+-]digits], at most 8 digits on each side of the point: the
 * mocap case. Needs 24 readable bytes at p (the caller checks). Anything else, and
 * results outside the exact fast paths, go to the general parser. */
static const double negpow10d_[23] = {1e-0,  1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,
                                      1e-8,  1e-9,  1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15,
                                      1e-16, 1e-17, 1e-18, 1e-19, 1e-20, 1e-21, 1e-22};

/* mul = 0: Clinger float division (correctly rounded); mul = 1: one double multiply by
 * an inexact 10^-k (no divider latency; still within 1 ulp of strtof after rounding to
 * float, since the double error is ~2^-52 relative). */
static inline __attribute__((always_inline)) mb_num_result
swar_core(const char *p, const char *end, float *out, const char **next, int mul)
{
    const char *s = p;
    int neg = *s == '-';
    s += (*s == '-' || *s == '+');
    uint64_t x;
    int n1 = digit_run(load8(s), &x);
    if (n1 == 8)
        return inl_parse_float_(p, end, out, next);
    uint64_t m = n1 ? digits_value(x, n1) : 0;
    s += n1;
    int n2 = 0;
    if (*s == '.') {
        ++s;
        n2 = digit_run(load8(s), &x);
        if (n2 == 8)
            return inl_parse_float_(p, end, out, next);
        if (n2) {
            m = m * (uint64_t)pow10d_[n2] + digits_value(x, n2);
            s += n2;
        }
    }
    if (n1 + n2 == 0)
        return inl_parse_float_(p, end, out, next);
    int e10 = -n2;
    if ((*s | 0x20) == 'e') {
        const char *e = s + 1;
        int eneg = *e == '-';
        e += (*e == '-' || *e == '+');
        int ne = digit_run(load8(e), &x);
        if (ne == 0) /* "1e" : the number ends before the 'e' */
            goto done;
        if (ne > 3)
            return inl_parse_float_(p, end, out, next);
        int ev = (int)digits_value(x, ne);
        e10 += eneg ? -ev : ev;
        s = e + ne;
    }
done:
    *next = s;
    if (m == 0) {
        *out = neg ? -0.0f : 0.0f;
        return MB_NUM_OK;
    }
    float f;
    if (mul && e10 >= -22 && e10 <= 0) {
        f = (float)((double)m * negpow10d_[-e10]); /* m < 10^16: exact in double */
    } else if (m <= (1u << 24) && e10 >= -10 && e10 <= 10) {
        /* Clinger: both operands exact in float, one correctly rounded operation. */
        float fm = (float)m;
        f = e10 < 0 ? fm / pow10f_[-e10] : fm * pow10f_[e10];
    } else if (e10 >= -22 && e10 <= 22) {
        double d = (double)m; /* m < 10^16 < 2^53: exact */
        d = e10 < 0 ? d / pow10d_[-e10] : d * pow10d_[e10];
        f = (float)d;
        if (isinf(f))
            return inl_parse_float_(p, end, out, next);
    } else {
        return inl_parse_float_(p, end, out, next);
    }
    *out = neg ? -f : f;
    return MB_NUM_OK;
}

static inline mb_num_result swar_parse(const char *p, const char *end, float *out,
                                       const char **next)
{
    return swar_core(p, end, out, next, 0);
}

static inline mb_num_result swar_parse_mul(const char *p, const char *end, float *out,
                                           const char **next)
{
    return swar_core(p, end, out, next, 1);
}

/* ---------- motion loops ---------- */

enum { LEX_READER, LEX_TABLE };
enum { NUM_NONE, NUM_LIB, NUM_INLINE, NUM_SWAR, NUM_SWAR_MUL };
enum { EUL_NONE, EUL_DOUBLE, EUL_POLY, EUL_POLYD };

typedef struct job {
    const bench_text *bt;
    const jmap *maps;
    soa_plan *plan;
    int nj, nch;
    float *rot, *trans; /* NULL: parse only */
    float *all;         /* non-NULL: keep every parsed value here */
} job;

/* One motion loop; lex/num/eul are constants at each call site, so the compiler builds a
 * specialised copy per combination. Returns the number of values read (or -1). */
static inline __attribute__((always_inline)) long long
motion_loop(const job *jb, int lex, int num, int eul)
{
    const bench_text *bt = jb->bt;
    lexer ps = {bt->text + bt->motion_off, bt->text + bt->len, bt->text + bt->motion_off, 1};
    const char *end = ps.end;
    const char *safe_end = end - 32; /* SWAR needs 24 readable bytes past a number start */
    float row[1024];
    long long nvals = 0;
    double sink = 0.0;
    for (int f = 0; f < bt->frames; ++f) {
        for (int c = 0; c < jb->nch; ++c) {
            const char *p;
            if (lex == LEX_READER) {
                skip_space(&ps);
                p = ps.p;
            } else {
                p = ps.p;
                while (p < end && IS_WS(*p))
                    ++p;
            }
            if (p == end)
                return -1;
            const char *q;
            mb_num_result r = MB_NUM_OK;
            if (num == NUM_NONE) {
                q = p;
                while (q < end && !is_space(*q))
                    ++q;
                row[c] = (float)(q - p);
            } else if (num == NUM_LIB) {
                r = mb_parse_float_(p, end, &row[c], &q);
            } else if (num == NUM_INLINE) {
                r = inl_parse_float_(p, end, &row[c], &q);
            } else if (num == NUM_SWAR) {
                r = p < safe_end ? swar_parse(p, end, &row[c], &q)
                                 : inl_parse_float_(p, end, &row[c], &q);
            } else {
                r = p < safe_end ? swar_parse_mul(p, end, &row[c], &q)
                                 : inl_parse_float_(p, end, &row[c], &q);
            }
            if (r != MB_NUM_OK)
                return -1;
            if (lex == LEX_READER) {
                if (q < end && !is_space(*q))
                    return -1;
            } else if (q < end && !IS_WS(*q)) {
                return -1;
            }
            ps.p = q;
        }
        nvals += jb->nch;
        if (jb->all)
            memcpy(jb->all + (size_t)f * (size_t)jb->nch, row, (size_t)jb->nch * sizeof(float));
        size_t off = (size_t)f * (size_t)jb->nj;
        if (eul == EUL_DOUBLE)
            store_frame_double(jb->maps, jb->nj, row, jb->rot + 4 * off,
                               jb->trans ? jb->trans + 3 * off : NULL,
                               f > 0 ? jb->rot + 4 * (off - (size_t)jb->nj) : NULL);
        else if (eul == EUL_POLY)
            store_frame_poly(jb->plan, jb->maps, row, jb->rot + 4 * off,
                             jb->trans ? jb->trans + 3 * off : NULL,
                             f > 0 ? jb->rot + 4 * (off - (size_t)jb->nj) : NULL);
        else if (eul == EUL_POLYD)
            store_frame_polyd(jb->plan, jb->maps, row, jb->rot + 4 * off,
                              jb->trans ? jb->trans + 3 * off : NULL,
                              f > 0 ? jb->rot + 4 * (off - (size_t)jb->nj) : NULL);
        else
            sink += row[0];
    }
    return nvals + (sink < -1e300);
}

/* Euler conversion alone, from rows parsed beforehand. */
static void euler_only(const job *jb, int eul)
{
    for (int f = 0; f < jb->bt->frames; ++f) {
        const float *row = jb->all + (size_t)f * (size_t)jb->nch;
        size_t off = (size_t)f * (size_t)jb->nj;
        const float *prev = f > 0 ? jb->rot + 4 * (off - (size_t)jb->nj) : NULL;
        float *tr = jb->trans ? jb->trans + 3 * off : NULL;
        if (eul == EUL_DOUBLE)
            store_frame_double(jb->maps, jb->nj, row, jb->rot + 4 * off, tr, prev);
        else if (eul == EUL_POLYD)
            store_frame_polyd(jb->plan, jb->maps, row, jb->rot + 4 * off, tr, prev);
        else
            store_frame_poly(jb->plan, jb->maps, row, jb->rot + 4 * off, tr, prev);
    }
}

/* ---------- two-stage: SIMD token index, then independent number parses ---------- */

/* Stage 1 finds where every token starts, 64 bytes per step with SSE2 compares and a
 * bit mask (no per-byte branches, no dependency between values). Stage 2 parses each
 * token from its known start, so consecutive parses no longer wait for each other's end
 * pointer and the core overlaps them. Lines are not counted here: a parse error
 * recounts them from the motion start (memchr), which only error paths pay. */
#define CHUNK (1u << 16)

#if defined(__SSE2__)
#include <emmintrin.h>
static uint64_t ws_mask64(const char *p)
{
    const __m128i sp = _mm_set1_epi8(' '), nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4);
    uint64_t ws = 0;
    for (int j = 0; j < 4; ++j) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * j));
        __m128i t = _mm_sub_epi8(v, nine); /* \t \n \v \f \r are 9..13 */
        __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(_mm_min_epu8(t, four), t));
        ws |= (uint64_t)(uint32_t)_mm_movemask_epi8(m) << (16 * j);
    }
    return ws;
}
#else
static uint64_t ws_mask64(const char *p)
{
    uint64_t ws = 0;
    for (int j = 0; j < 64; ++j)
        ws |= (uint64_t)IS_WS(p[j]) << j;
    return ws;
}
#endif

/* Offsets in [0, n) of bytes that start a token; n a multiple of 64. *prev_ws says
 * whether the byte before p is whitespace (carried from chunk to chunk). */
static size_t token_starts(const char *p, size_t n, uint32_t *out, uint64_t *prev_ws)
{
    size_t k = 0;
    uint64_t carry = *prev_ws;
    for (size_t i = 0; i < n; i += 64) {
        uint64_t ws = ws_mask64(p + i);
        uint64_t st = ~ws & ((ws << 1) | carry);
        carry = ws >> 63;
        while (st) {
            out[k++] = (uint32_t)(i + (size_t)__builtin_ctzll(st));
            st &= st - 1;
        }
    }
    *prev_ws = carry;
    return k;
}

static uint32_t g_starts[CHUNK];
static char g_tail[CHUNK + 64];

static inline __attribute__((always_inline)) long long stage1_loop(const job *jb, int num, int eul)
{
    const bench_text *bt = jb->bt;
    const char *m0 = bt->text + bt->motion_off, *end = bt->text + bt->len;
    const char *safe_end = end - 32;
    float row[1024];
    int c = 0, f = 0, nch = jb->nch, nj = jb->nj;
    uint64_t prev_ws = 1; /* the motion starts after a line break */
    double sink = 0.0;
    for (const char *cs = m0; cs < end; cs += CHUNK) {
        size_t n = (size_t)(end - cs) < CHUNK ? (size_t)(end - cs) : CHUNK, k;
        if (n == CHUNK) {
            k = token_starts(cs, n, g_starts, &prev_ws);
        } else { /* the tail, padded with spaces to a multiple of 64 */
            size_t n64 = (n + 63u) & ~(size_t)63u;
            memcpy(g_tail, cs, n);
            memset(g_tail + n, ' ', n64 - n);
            k = token_starts(g_tail, n64, g_starts, &prev_ws);
        }
        for (size_t t = 0; t < k; ++t) {
            const char *p = cs + g_starts[t], *q;
            mb_num_result r;
            if (num == NUM_SWAR)
                r = p < safe_end ? swar_parse(p, end, &row[c], &q) : inl_parse_float_(p, end, &row[c], &q);
            else
                r = mb_parse_float_(p, end, &row[c], &q);
            if (r != MB_NUM_OK || (q < end && !IS_WS(*q)))
                return -1; /* the real reader would recount lines up to p here */
            if (++c < nch)
                continue;
            c = 0;
            if (f == bt->frames)
                return -1; /* data after the declared frames */
            size_t off = (size_t)f * (size_t)nj;
            const float *prev = f > 0 ? jb->rot + 4 * (off - (size_t)nj) : NULL;
            float *tr = jb->trans ? jb->trans + 3 * off : NULL;
            if (eul == EUL_DOUBLE)
                store_frame_double(jb->maps, nj, row, jb->rot + 4 * off, tr, prev);
            else if (eul == EUL_POLY)
                store_frame_poly(jb->plan, jb->maps, row, jb->rot + 4 * off, tr, prev);
            else if (eul == EUL_POLYD)
                store_frame_polyd(jb->plan, jb->maps, row, jb->rot + 4 * off, tr, prev);
            else
                sink += row[0];
            ++f;
        }
    }
    if (c != 0 || f != bt->frames)
        return -1;
    return (long long)f * nch + (sink < -1e300);
}

/* ---------- the experiment table ---------- */

/* One specialised, non-inlined copy of the loop per configuration. */
#define DEF_LOOP(name, LEX, NUM, EUL)                                                       \
    static __attribute__((noinline)) long long name(const job *jb)                          \
    {                                                                                       \
        return motion_loop(jb, LEX, NUM, EUL);                                              \
    }
DEF_LOOP(loop_replica, LEX_READER, NUM_LIB, EUL_DOUBLE)
DEF_LOOP(loop_poly, LEX_READER, NUM_LIB, EUL_POLY)
DEF_LOOP(loop_table, LEX_TABLE, NUM_LIB, EUL_DOUBLE)
DEF_LOOP(loop_swar, LEX_READER, NUM_SWAR, EUL_DOUBLE)
DEF_LOOP(loop_table_swar, LEX_TABLE, NUM_SWAR, EUL_DOUBLE)
DEF_LOOP(loop_fast, LEX_TABLE, NUM_SWAR, EUL_POLY)
DEF_LOOP(loop_p_lex, LEX_READER, NUM_NONE, EUL_NONE)
DEF_LOOP(loop_p_lib, LEX_READER, NUM_LIB, EUL_NONE)
DEF_LOOP(loop_p_table_lib, LEX_TABLE, NUM_LIB, EUL_NONE)
DEF_LOOP(loop_p_table_inl, LEX_TABLE, NUM_INLINE, EUL_NONE)
DEF_LOOP(loop_p_table_swar, LEX_TABLE, NUM_SWAR, EUL_NONE)
DEF_LOOP(loop_polyd, LEX_READER, NUM_LIB, EUL_POLYD)
DEF_LOOP(loop_p_table_swarmul, LEX_TABLE, NUM_SWAR_MUL, EUL_NONE)
DEF_LOOP(loop_fastmul, LEX_TABLE, NUM_SWAR_MUL, EUL_POLYD)
DEF_LOOP(loop_fastd, LEX_TABLE, NUM_SWAR, EUL_POLYD)
#define DEF_STAGE1(name, NUM, EUL)                                                          \
    static __attribute__((noinline)) long long name(const job *jb)                          \
    {                                                                                       \
        return stage1_loop(jb, NUM, EUL);                                                   \
    }
DEF_STAGE1(loop_s1_lib, NUM_LIB, EUL_NONE)
DEF_STAGE1(loop_s1_swar, NUM_SWAR, EUL_NONE)
DEF_STAGE1(loop_s1_fast, NUM_SWAR, EUL_POLY)
DEF_STAGE1(loop_s1_fastd, NUM_SWAR, EUL_POLYD)

enum { K_READER, K_LOOP, K_EULER_DOUBLE, K_EULER_POLY, K_EULER_POLYD, K_TOUCH, K_TOUCH_HUGE };

typedef struct experiment {
    const char *name;
    int kind;
    long long (*loop)(const job *);
    int tracks; /* 1: fresh malloc'd tracks per run (page faults included, as the reader) */
} experiment;

static const experiment experiments[] = {
    {"mb_bvh_read_mem (library)", K_READER, NULL, 0},
    {"replica: reader lex + lib parse + double Euler", K_LOOP, loop_replica, 1},
    {"  replica, Euler -> float poly SoA", K_LOOP, loop_poly, 1},
    {"  replica, Euler -> double poly SoA", K_LOOP, loop_polyd, 1},
    {"  replica, ws -> table, no line count", K_LOOP, loop_table, 1},
    {"  replica, parse -> SWAR", K_LOOP, loop_swar, 1},
    {"  replica, ws table + SWAR", K_LOOP, loop_table_swar, 1},
    {"  all three (ws table + SWAR + float poly)", K_LOOP, loop_fast, 1},
    {"  all three, double poly", K_LOOP, loop_fastd, 1},
    {"  all three, double poly, SWAR with multiply", K_LOOP, loop_fastmul, 1},
    {"two-stage SIMD index + SWAR + float poly", K_LOOP, loop_s1_fast, 1},
    {"two-stage SIMD index + SWAR + double poly", K_LOOP, loop_s1_fastd, 1},
    {"part: reader lex + token end only", K_LOOP, loop_p_lex, 0},
    {"part: reader lex + lib parse", K_LOOP, loop_p_lib, 0},
    {"part: table ws + lib parse", K_LOOP, loop_p_table_lib, 0},
    {"part: table ws + same-TU mb_parse_float_ copy", K_LOOP, loop_p_table_inl, 0},
    {"part: table ws + SWAR parse", K_LOOP, loop_p_table_swar, 0},
    {"part: table ws + SWAR parse, multiply", K_LOOP, loop_p_table_swarmul, 0},
    {"part: two-stage index + lib parse", K_LOOP, loop_s1_lib, 0},
    {"part: two-stage index + SWAR parse", K_LOOP, loop_s1_swar, 0},
    {"part: Euler only, double libm (warm tracks)", K_EULER_DOUBLE, NULL, 0},
    {"part: Euler only, float poly SoA (warm tracks)", K_EULER_POLY, NULL, 0},
    {"part: Euler only, double poly SoA (warm tracks)", K_EULER_POLYD, NULL, 0},
    {"part: malloc + first touch of the tracks", K_TOUCH, NULL, 0},
    {"part: mmap + MADV_HUGEPAGE + first touch", K_TOUCH_HUGE, NULL, 0},
};
#define NEXP ((int)(sizeof experiments / sizeof experiments[0]))

static volatile char g_sink;

static int64_t ordered(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

int main(int argc, char **argv)
{
    double mb = 150.0;
    long runs = 5, frames_opt = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--mb"))
            mb = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--runs"))
            runs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--frames"))
            frames_opt = atol(argv[i + 1]);
        else {
            fprintf(stderr, "usage: bench_bvh_proto [--mb N] [--frames N] [--runs N]\n");
            return 2;
        }
    }
    if (runs < 1)
        runs = 1;
    if (runs > 64)
        runs = 64;
    poly_init();
    polyd_init();
    ws_init();
    char load[128];
    bench_loadavg(load, sizeof load);
    bench_text bt;
    if (bench_gen(0x6d626c656e64ull, (size_t)(mb * 1e6), (int)frames_opt, &bt) != 0)
        return 3;
    double text_mb = (double)bt.len / 1e6;

    mb_skeleton *skel = NULL;
    mb_clip *ref = NULL;
    mb_error err;
    if (mb_bvh_read_mem(bt.text, bt.len, "proto.bvh", NULL, &skel, &ref, &err) != MB_OK) {
        char msg[600];
        fprintf(stderr, "reader failed: %s\n", mb_error_format(&err, msg, sizeof msg));
        return 3;
    }
    int nj = mb_skeleton_joint_count(skel);
    jmap *maps = calloc((size_t)nj, sizeof *maps);
    int nch = maps ? build_maps(skel, maps) : 0;
    soa_plan plan;
    if (!maps || nch != bt.channels || nch > 1024 || plan_init(&plan, maps, nj) != 0 ||
        soad_init(&g_soad, plan.nr) != 0) {
        fprintf(stderr, "setup failed\n");
        return 3;
    }
    size_t nq = (size_t)nj * (size_t)bt.frames;
    size_t track_bytes = nq * 28u;
    float *rot = malloc(nq * 4 * sizeof(float));
    float *trans = malloc(nq * 3 * sizeof(float));
    float *all = malloc((size_t)bt.values * sizeof(float));
    if (!rot || !trans || !all)
        return 3;
    job jb = {&bt, maps, &plan, nj, nch, NULL, NULL, all};
    if (loop_p_lib(&jb) != bt.values) { /* every value, for the Euler-only rows */
        fprintf(stderr, "setup parse failed\n");
        return 3;
    }

    printf("bench_bvh_proto: %.1f MB, %d frames x %d channels (%d nodes), %ld rounds, thread CPU time "
           "(experiments interleaved), best/median\n",
           text_mb, bt.frames, nch, nj, runs);
    printf("  load average before: %s\n", load);

    static double t[NEXP][64];
    for (int r = 0; r < runs; ++r) {
        for (int x = 0; x < NEXP; ++x) {
            const experiment *e = &experiments[x];
            long long got = bt.values;
            float *fr = NULL;
            jb.rot = jb.trans = jb.all = NULL;
            if (e->tracks) {
                fr = malloc(track_bytes);
                jb.rot = fr;
                jb.trans = fr + 4 * nq;
            }
            double a = bench_cpu_now();
            if (e->kind == K_READER) {
                mb_skeleton *s2 = NULL;
                mb_clip *c2 = NULL;
                if (mb_bvh_read_mem(bt.text, bt.len, "proto.bvh", NULL, &s2, &c2, NULL) != MB_OK)
                    got = -1;
                t[x][r] = bench_cpu_now() - a;
                mb_clip_destroy(c2);
                mb_skeleton_destroy(s2);
            } else if (e->kind == K_LOOP) {
                got = e->loop(&jb);
                t[x][r] = bench_cpu_now() - a;
            } else if (e->kind == K_TOUCH_HUGE) {
#if defined(MADV_HUGEPAGE)
                size_t len = (track_bytes + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
                char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (m != MAP_FAILED) {
                    madvise(m, len, MADV_HUGEPAGE);
                    memset(m, 1, track_bytes);
                    g_sink += m[track_bytes / 2];
                }
                t[x][r] = bench_cpu_now() - a;
                if (m != MAP_FAILED)
                    munmap(m, len);
#else
                t[x][r] = 1e9;
#endif
            } else if (e->kind == K_TOUCH) {
                char *m = malloc(track_bytes);
                if (m) {
                    memset(m, 1, track_bytes); /* non-zero: malloc+memset(0) becomes calloc */
                    g_sink += m[track_bytes / 2]; /* keeps the stores */
                }
                t[x][r] = bench_cpu_now() - a;
                free(m);
            } else {
                jb.all = all;
                jb.rot = rot;
                jb.trans = trans;
                a = bench_cpu_now();
                euler_only(&jb, e->kind == K_EULER_DOUBLE ? EUL_DOUBLE
                                : e->kind == K_EULER_POLY ? EUL_POLY
                                                          : EUL_POLYD);
                t[x][r] = bench_cpu_now() - a;
            }
            free(fr);
            if (got != bt.values)
                printf("  !! %s read %lld values, expected %lld\n", e->name, got, bt.values);
        }
    }
    printf("  %-48s %8s %8s %9s %9s %8s\n", "experiment", "best s", "med s", "MB/s", "ns/value",
           "vs repl");
    double best[NEXP];
    for (int x = 0; x < NEXP; ++x)
        best[x] = bench_min(t[x], (int)runs);
    for (int x = 0; x < NEXP; ++x) {
        double med = bench_median(t[x], (int)runs);
        printf("  %-48s %8.3f %8.3f %9.1f %9.2f %7.2fx\n", experiments[x].name, best[x], med,
               text_mb / best[x], 1e9 * best[x] / (double)bt.values, best[1] / best[x]);
    }

    /* Checks of the fast paths against the reader and strtof. */
    const float *rr = mb_clip_rotations(ref), *rt = mb_clip_translations(ref);
    printf("\nchecks against the reader's clip (max over all %zu quaternions)\n", nq);
    static const struct {
        const char *name;
        long long (*loop)(const job *);
    } checks[] = {{"replica (reader's algorithm)", loop_replica},
                  {"table ws + SWAR + float poly", loop_fast},
                  {"table ws + SWAR + double poly", loop_fastd},
                  {"two-stage + SWAR + float poly", loop_s1_fast},
                  {"two-stage + SWAR + double poly", loop_s1_fastd}};
    for (int ci = 0; ci < (int)(sizeof checks / sizeof checks[0]); ++ci) {
        jb.rot = rot;
        jb.trans = trans;
        jb.all = NULL;
        long long got = checks[ci].loop(&jb);
        double maxq = 0.0, maxt = 0.0, maxang = 0.0;
        long long differ = 0;
        for (size_t i = 0; i < nq; ++i) {
            for (int k = 0; k < 4; ++k) {
                double d = fabs((double)rr[4 * i + k] - (double)rot[4 * i + k]);
                differ += d != 0.0;
                if (d > maxq)
                    maxq = d;
            }
            double ang = mb_quat_angle_between(rr + 4 * i, rot + 4 * i);
            if (ang > maxang)
                maxang = ang;
        }
        /* The reader's clip tracks only the joints with position channels ([frame][T][3]);
         * the replicas keep [frame][node][3]. Compare the tracked ones. */
        size_t first_t = (size_t)-1, first_r = 0;
        size_t ntr = (size_t)mb_clip_translation_count(ref);
        const int *tj = mb_clip_translation_joints(ref);
        for (size_t i = 0; rt && i < (nq / (size_t)nj) * ntr * 3; ++i) {
            size_t f = i / 3 / ntr, k = i / 3 % ntr;
            size_t full = (f * (size_t)nj + (size_t)tj[k]) * 3 + i % 3;
            double d = fabs((double)rt[i] - (double)trans[full]);
            if (d > 0 && first_t == (size_t)-1) {
                first_t = full;
                first_r = i;
            }
            if (d > maxt)
                maxt = d;
        }
        if (first_t != (size_t)-1)
            printf("  first translation difference at frame %zu node %zu axis %zu: %g vs %g\n",
                   first_t / 3 / (size_t)nj, first_t / 3 % (size_t)nj, first_t % 3, rt[first_r],
                   trans[first_t]);
        printf("  %-32s values %s; quaternion max |diff| %.3g (%lld of %zu components differ), "
               "max angle %.3g rad; translations max |diff| %.3g\n",
               checks[ci].name, got == bt.values ? "ok" : "WRONG COUNT", maxq, differ, 4 * nq,
               maxang, maxt);
    }
    long long u0 = 0, u1 = 0, ubig = 0, bad = 0;
    {
        const char *p = bt.text + bt.motion_off, *end = bt.text + bt.len;
        char buf[512];
        for (;;) {
            while (p < end && IS_WS(*p))
                ++p;
            if (p == end)
                break;
            const char *q = p;
            while (q < end && !IS_WS(*q))
                ++q;
            size_t n = (size_t)(q - p);
            memcpy(buf, p, n);
            buf[n] = '\0';
            float ref_f = strtof(buf, NULL), got_f = 0.0f;
            const char *nx;
            mb_num_result r = p >= end - 32 ? inl_parse_float_(p, end, &got_f, &nx)
                              : (u0 + u1 + ubig + bad) & 1 ? swar_parse_mul(p, end, &got_f, &nx)
                                                          : swar_parse(p, end, &got_f, &nx);
            if (r != MB_NUM_OK || nx != q) {
                ++bad;
            } else {
                int64_t d = ordered(ref_f) - ordered(got_f);
                d = d < 0 ? -d : d;
                if (d == 0)
                    ++u0;
                else if (d == 1)
                    ++u1;
                else
                    ++ubig;
            }
            p = q;
        }
    }
    long long r0 = 0, r1 = 0, rbig = 0, rbad = 0;
    {
        uint64_t st = 0x9e3779b97f4a7c15ull;
        char buf[160];
        for (int i = 0; i < 2000000; ++i) {
            size_t n = bench_random_decimal(&st, buf);
            memset(buf + n, ' ', 40); /* SWAR reads ahead; the number ends at a space */
            buf[n + 40] = '\0';
            char tmp[100];
            memcpy(tmp, buf, n);
            tmp[n] = '\0';
            float ref_f = strtof(tmp, NULL), got_f = 0.0f;
            const char *nx;
            mb_num_result r = (i & 1) ? swar_parse_mul(buf, buf + n + 40, &got_f, &nx)
                                      : swar_parse(buf, buf + n + 40, &got_f, &nx);
            if (r != MB_NUM_OK) {
                if (isinf(ref_f) && r != MB_NUM_SYNTAX && r != MB_NUM_TOO_LONG)
                    ++r0;
                else
                    ++rbad;
                continue;
            }
            if (nx != buf + n) {
                ++rbad;
                continue;
            }
            int64_t d = ordered(ref_f) - ordered(got_f);
            d = d < 0 ? -d : d;
            r0 += d == 0;
            r1 += d == 1;
            rbig += d > 1;
        }
    }
    bench_loadavg(load, sizeof load);
    printf("  SWAR parsers (div/mul alternating) vs strtof on 2e6 random decimal strings: %lld at 0 ulp (or both "
           "out of range), %lld at 1 ulp, %lld >1 ulp, %lld wrong status\n",
           r0, r1, rbig, rbad);
    printf("  SWAR parsers (div/mul alternating) vs strtof over the motion values: %lld at 0 ulp, %lld at 1 ulp, %lld "
           ">1 ulp, %lld rejected\n",
           u0, u1, ubig, bad);
    printf("  load average after: %s\n", load);
    plan_free(&plan);
    soad_free(&g_soad);
    free(rot);
    free(trans);
    free(all);
    free(maps);
    mb_clip_destroy(ref);
    mb_skeleton_destroy(skel);
    bench_text_free(&bt);
    return ubig || bad || rbig || rbad ? 1 : 0;
}
