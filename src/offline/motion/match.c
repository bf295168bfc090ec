/* Transition-point search (Kovar and Gleicher, "Motion Graphs", 2002), all pairs through BLAS.
 *
 * Each candidate frame f of a clip gives a point cloud: the joints of the root's subtree
 * at window_samples times from f to f + window. Two clouds are compared after the best
 * rotation about the up axis and horizontal translation of the second onto the first;
 * with weights w = 1/n, horizontal coordinates centred per cloud (p~, q~) and heights y:
 *
 *   D = sum w (y_p - y_q)^2 + sum w |p~|^2 + sum w |q~|^2 - 2 sqrt(Sc^2 + Ss^2)
 *   Sc = sum w (p~u q~u + p~v q~v),  Ss = sum w (p~v q~u - p~u q~v),  theta = atan2(Ss, Sc)
 *
 * (u, v, up cyclic, so a positive theta turns u towards v). Every pair's cross terms are
 * dot products of per-frame feature rows, so one block of A's rows against all of B is
 * three matrix products: Y_A Y_B^T, H_A H_B^T and H_A H'_B^T with H' = [-q~v | q~u].
 * Reported pairs are local minima of D in (a, b), kept in a heap, recomputed in double
 * and thinned to min_separation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cblas.h>

#include "base/error_internal.h"
#include "mblend/offline/match.h"
#include "offline/motion/motion_internal.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One clip's data for the search. */
typedef struct mclip {
    const mb_clip *c;
    mb_motion_info info;
    float *pos;            /* [frame][joint][3] world positions */
    int nf, nj;
    double ft;
    int f0, f1;            /* candidate frames [f0, f1) */
    double ground;
} mclip;

/* World position of joint j at time t (seconds) by linear interpolation of frames. */
static void pos_at(const mclip *m, int j, double t, double out[3])
{
    double x = t / m->ft;
    int i = (int)floor(x);
    if (i < 0) {
        i = 0;
        x = 0.0;
    }
    if (i >= m->nf - 1) {
        i = m->nf - 1;
        x = i;
    }
    double a = x - i;
    const float *p = &m->pos[3 * ((size_t)i * m->nj + j)];
    const float *q = i + 1 < m->nf ? p + 3 * m->nj : p;
    for (int k = 0; k < 3; ++k)
        out[k] = p[k] + a * (q[k] - p[k]);
}

typedef struct mparams {
    int up, u, v;          /* up axis and the horizontal axes (u, v, up cyclic) */
    int S;                 /* samples per window */
    double dt;             /* seconds between samples */
    int *joints;           /* the root's subtree */
    int J;
} mparams;

/* The cloud of frame f: n = S * J points in (u, v, y), horizontal centred, y - ground. */
static void cloud(const mclip *m, const mparams *mp, int f, double *pu, double *pv, double *py)
{
    int n = mp->S * mp->J, k = 0;
    double mu = 0.0, mv = 0.0;
    for (int s = 0; s < mp->S; ++s) {
        double t = f * m->ft + s * mp->dt;
        for (int jj = 0; jj < mp->J; ++jj, ++k) {
            double p[3];
            pos_at(m, mp->joints[jj], t, p);
            pu[k] = p[mp->u];
            pv[k] = p[mp->v];
            py[k] = p[mp->up] - m->ground;
            mu += pu[k];
            mv += pv[k];
        }
    }
    mu /= n;
    mv /= n;
    for (k = 0; k < n; ++k) {
        pu[k] -= mu;
        pv[k] -= mv;
    }
}

/* Exact cost (mean squared distance) and alignment of one pair, in double. */
static double pair_cost(const mclip *A, const mclip *B, const mparams *mp, int a, int b, double *scratch,
                        double *theta, double *dx, double *dz)
{
    int n = mp->S * mp->J;
    double *au = scratch, *av = au + n, *ay = av + n, *bu = ay + n, *bv = bu + n, *by = bv + n;
    cloud(A, mp, a, au, av, ay);
    cloud(B, mp, b, bu, bv, by);
    double yy = 0.0, hh = 0.0, sc = 0.0, ss = 0.0;
    for (int k = 0; k < n; ++k) {
        yy += (ay[k] - by[k]) * (ay[k] - by[k]);
        hh += au[k] * au[k] + av[k] * av[k] + bu[k] * bu[k] + bv[k] * bv[k];
        sc += au[k] * bu[k] + av[k] * bv[k];
        ss += av[k] * bu[k] - au[k] * bv[k];
    }
    double D = (yy + hh - 2.0 * sqrt(sc * sc + ss * ss)) / n;
    if (theta) {
        /* Means (uncentred) for the translation: t = mean_A - R mean_B. */
        double ma[2] = {0, 0}, mb[2] = {0, 0};
        for (int s = 0; s < mp->S; ++s)
            for (int jj = 0; jj < mp->J; ++jj) {
                double p[3], q[3];
                pos_at(A, mp->joints[jj], a * A->ft + s * mp->dt, p);
                pos_at(B, mp->joints[jj], b * B->ft + s * mp->dt, q);
                ma[0] += p[mp->u];
                ma[1] += p[mp->v];
                mb[0] += q[mp->u];
                mb[1] += q[mp->v];
            }
        for (int k = 0; k < 2; ++k) {
            ma[k] /= n;
            mb[k] /= n;
        }
        double th = atan2(ss, sc), c = cos(th), s = sin(th);
        double tu = ma[0] - (c * mb[0] - s * mb[1]), tv = ma[1] - (s * mb[0] + c * mb[1]);
        *theta = th;
        /* Report in axis order (the smaller axis index first). */
        if (mp->u < mp->v) {
            *dx = tu;
            *dz = tv;
        } else {
            *dx = tv;
            *dz = tu;
        }
    }
    return D < 0.0 ? 0.0 : D;
}

/* ---- a max-heap of the best candidates (largest cost on top) ---- */
typedef struct cand {
    float cost;
    int a, b;
} cand;

static void heap_push(cand *h, int *n, int cap, cand c)
{
    if (*n == cap) {
        if (!(c.cost < h[0].cost))
            return;
        /* replace the top and sift down */
        int i = 0;
        h[0] = c;
        for (;;) {
            int l = 2 * i + 1, r = l + 1, m = i;
            if (l < *n && h[l].cost > h[m].cost)
                m = l;
            if (r < *n && h[r].cost > h[m].cost)
                m = r;
            if (m == i)
                break;
            cand t = h[i];
            h[i] = h[m];
            h[m] = t;
            i = m;
        }
        return;
    }
    int i = (*n)++;
    h[i] = c;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!(h[p].cost < h[i].cost))
            break;
        cand t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

static int cmp_pair(const void *x, const void *y)
{
    const mb_match_pair *a = x, *b = y;
    if (a->cost != b->cost)
        return a->cost < b->cost ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static mb_status mclip_init(const mb_skeleton *s, const mb_clip *c, const mb_motion_info *info, mb_axis up_given,
                            mclip *m, mb_error *err, const char *name)
{
    memset(m, 0, sizeof *m);
    m->c = c;
    m->nf = mb_clip_frame_count(c);
    m->nj = mb_clip_joint_count(c);
    m->ft = mb_clip_frame_time(c);
    if (m->nf < 2)
        return mb_error_set_(err, MB_INVALID_ARG, "match", "clip %s has fewer than 2 frames", name);
    if (info) {
        mb_status st = mb_motion_info_check_(info, s, c, name, err);
        if (st != MB_OK)
            return st;
        m->info = *info;
    } else {
        mb_analyze_desc ad = {0};
        ad.up_axis = up_given;
        mb_status st = mb_motion_analyze(s, c, &ad, name, &m->info, err);
        if (st != MB_OK)
            return st;
    }
    m->pos = malloc((size_t)m->nf * m->nj * 3 * sizeof *m->pos);
    if (!m->pos)
        return mb_error_set_(err, MB_NOMEM, "match", "out of memory");
    mb_status st = mb_motion_positions_(s, c, m->pos);
    if (st != MB_OK)
        return mb_error_set_(err, st, "match", "forward kinematics of %s failed", name);
    m->ground = m->info.ground;
    if (!isfinite(m->ground))
        m->ground = 0.0;
    return MB_OK;
}

/* Candidate frames in [from, to] seconds with room for the window. */
static int frame_span(mclip *m, double from, double to, double window)
{
    double last_t = (m->nf - 1) * m->ft - window;
    int lo = mb_frame_int_(ceil(from / m->ft - 1e-9));
    int hi = mb_frame_int_(floor((to > 0.0 ? to : last_t) / m->ft + 1e-9));
    int hmax = mb_frame_int_(floor(last_t / m->ft + 1e-9));
    if (lo < m->info.first_frame)
        lo = m->info.first_frame;
    if (hi > hmax)
        hi = hmax;
    m->f0 = lo;
    m->f1 = hi + 1;
    return m->f1 > m->f0;
}

/* The search's working state, built step by step by mb_match_find (zeroed first; every
 * array is owned and freed by match_work_free). */
typedef struct match_work {
    const mb_match_desc *d;
    mclip A, B;
    mparams mp;
    double window;
    int n, K3;  /* points per cloud, A's feature row length (3 n) */
    int NA, NB; /* candidate frames of A and B */
    int dbl;    /* features and products in double (d->use_double) */
    /* feature rows of A and B, B's rotated copy, in float or double (see build_features) */
    float *FA, *FB, *FS;
    double *DA, *DB, *DS;
    double *na, *nb;  /* the rows' squared norms */
    double *scratch;  /* 6 n doubles */
    /* cost blocks: the three products (C or DC) and the costs of rows c0 .. c1 */
    long R; /* rows of A per block */
    float *C, *cost;
    double *DC;
    cand *heap; /* the candidates: local minima of the cost */
    int hn, hcap;
    double t_blas; /* seconds in the products */
} match_work;

static void match_work_free(match_work *w)
{
    free(w->A.pos);
    free(w->B.pos);
    free(w->mp.joints);
    free(w->FA);
    free(w->FB);
    free(w->FS);
    free(w->C);
    free(w->DA);
    free(w->DB);
    free(w->DS);
    free(w->DC);
    free(w->scratch);
    free(w->na);
    free(w->nb);
    free(w->cost);
    free(w->heap);
}

/* The desc's arguments; *window and *samples receive the window (seconds, 0 for one
 * sample) and the samples per window, defaults applied. */
static mb_status check_match_desc(const mb_match_desc *d, mb_match_pair *out, int capacity,
                                  int *out_count, double *window, int *samples, mb_error *err)
{
    if (!d || !out || !out_count || capacity < 1 || !d->a || !d->b || !d->skeleton_a)
        return mb_error_set_(err, MB_INVALID_ARG, "match", "match needs two clips, a skeleton and an output array");
    const mb_skeleton *sa = d->skeleton_a, *sb = d->skeleton_b ? d->skeleton_b : d->skeleton_a;
    int diff;
    if (!mb_skeleton_same_topology(sa, sb, &diff))
        return mb_error_set_(err, MB_MISMATCH, "match", "the skeletons differ at joint %d", diff);
    if (mb_clip_joint_count(d->a) != mb_skeleton_joint_count(sa) ||
        mb_clip_joint_count(d->b) != mb_skeleton_joint_count(sb))
        return mb_error_set_(err, MB_MISMATCH, "match", "a clip does not fit its skeleton");
    /* 0 picks the default; anything else must be valid (NaN and negatives are errors, not
     * defaults) */
    if (!(d->window >= 0.0) || d->window_samples < 0)
        return mb_error_set_(err, MB_INVALID_ARG, "match", "bad window (%g s) or window samples (%d)", d->window,
                     d->window_samples);
    double win = d->window > 0.0 ? d->window : 0.25;
    int S = d->window_samples > 0 ? d->window_samples : 8;
    if (!isfinite(win) || S > 256 || !isfinite(d->a_from) || !isfinite(d->a_to) || !isfinite(d->b_from) ||
        !isfinite(d->b_to) || d->a_from < 0 || d->a_to < 0 || d->b_from < 0 || d->b_to < 0 || d->min_separation < 0)
        return mb_error_set_(err, MB_INVALID_ARG, "match", "bad window, samples, ranges or separation");
    *window = S == 1 ? 0.0 : win;
    *samples = S;
    return MB_OK;
}

/* Both clips' positions and analysis (B's up axis taken from A's), their candidate frames,
 * and the cloud parameters: the axes, the samples and the joints of the root's subtree (a
 * static dummy above it would anchor the cloud). */
static mb_status prepare_clips(match_work *w, int S, mb_error *err)
{
    const mb_match_desc *d = w->d;
    const mb_skeleton *sa = d->skeleton_a, *sb = d->skeleton_b ? d->skeleton_b : d->skeleton_a;
    mb_status rc = mclip_init(sa, d->a, d->info_a, MB_AXIS_DETECT, &w->A, err, "A");
    if (rc == MB_OK)
        rc = mclip_init(sb, d->b, d->info_b, w->A.info.up_axis, &w->B, err, "B");
    if (rc != MB_OK)
        return rc;
    for (int side = 0; side < 2; ++side) {
        mclip *m = side ? &w->B : &w->A;
        if (!frame_span(m, side ? d->b_from : d->a_from, side ? d->b_to : d->a_to, w->window))
            return mb_error_set_(err, MB_INVALID_ARG, "match", "no candidate frames in %s: its %.3g s of motion and "
                         "the time range leave no room for a %.3g s window", side ? "B" : "A",
                         (m->nf - 1 - m->info.first_frame) * m->ft, w->window);
    }
    mparams *mp = &w->mp;
    mp->up = mb_axis_index(w->A.info.up_axis);
    mp->u = (mp->up + 1) % 3;
    mp->v = (mp->up + 2) % 3;
    mp->S = S;
    mp->dt = S > 1 ? w->window / (S - 1) : 0.0;
    int nj = w->A.nj, root = w->A.info.root;
    const int *parents = mb_skeleton_parents(sa);
    mp->joints = malloc((size_t)nj * sizeof *mp->joints);
    unsigned char *in = calloc((size_t)nj, 1);
    if (!mp->joints || !in) {
        free(in);
        return mb_error_set_(err, MB_NOMEM, "match", "out of memory");
    }
    in[root] = 1;
    for (int j = 0; j < nj; ++j) {
        if (j > root && parents[j] >= 0 && in[parents[j]])
            in[j] = 1;
        if (in[j])
            mp->joints[mp->J++] = j;
    }
    free(in);
    w->n = S * mp->J;
    w->K3 = 3 * w->n;
    w->NA = w->A.f1 - w->A.f0;
    w->NB = w->B.f1 - w->B.f0;
    return MB_OK;
}

/* Row r of one side's features from its cloud (cu, cv, cy); returns the row's squared
 * norm. */
static double feature_row(match_work *w, int side, int r, const double *cu, const double *cv,
                          const double *cy)
{
    const int n = w->n;
    double sw = sqrt(1.0 / n), nrm = 0.0;
    size_t o = (size_t)r * w->K3, os = (size_t)r * 2 * n;
    for (int k = 0; k < n; ++k) {
        double y = sw * cy[k], u = sw * cu[k], v = sw * cv[k];
        nrm += y * y + u * u + v * v;
        if (w->dbl) {
            double *F = side ? w->DB : w->DA;
            F[o + k] = y;
            F[o + n + k] = u;
            F[o + 2 * n + k] = v;
            if (side) {
                w->DS[os + k] = -v;
                w->DS[os + n + k] = u;
            }
        } else {
            float *F = side ? w->FB : w->FA;
            F[o + k] = (float)y;
            F[o + n + k] = (float)u;
            F[o + 2 * n + k] = (float)v;
            if (side) {
                w->FS[os + k] = (float)-v;
                w->FS[os + n + k] = (float)u;
            }
        }
    }
    return nrm;
}

/* Feature rows: [sqrt(w) y | sqrt(w) u~ | sqrt(w) v~], B's rotated copy [-v~ | u~]; the
 * squared norms na / nb hold sum w y^2 + sum w |h~|^2 of each row. */
static mb_status build_features(match_work *w, mb_error *err)
{
    const int n = w->n, NA = w->NA, NB = w->NB;
    size_t fa_elems = (size_t)NA * w->K3, fb_elems = (size_t)NB * w->K3, fs_elems = (size_t)NB * 2 * n;
    w->scratch = malloc((size_t)6 * n * sizeof *w->scratch);
    w->na = malloc((size_t)NA * sizeof *w->na);
    w->nb = malloc((size_t)NB * sizeof *w->nb);
    if (w->dbl) {
        w->DA = malloc(fa_elems * sizeof *w->DA);
        w->DB = malloc(fb_elems * sizeof *w->DB);
        w->DS = malloc(fs_elems * sizeof *w->DS);
    } else {
        w->FA = malloc(fa_elems * sizeof *w->FA);
        w->FB = malloc(fb_elems * sizeof *w->FB);
        w->FS = malloc(fs_elems * sizeof *w->FS);
    }
    if (!w->scratch || !w->na || !w->nb ||
        (w->dbl ? (!w->DA || !w->DB || !w->DS) : (!w->FA || !w->FB || !w->FS)))
        return mb_error_set_(err, MB_NOMEM, "match", "out of memory for %d x %d feature rows", NA, NB);
    double *cu = w->scratch, *cv = cu + n, *cy = cv + n;
    for (int side = 0; side < 2; ++side) {
        const mclip *m = side ? &w->B : &w->A;
        int N = side ? NB : NA;
        for (int r = 0; r < N; ++r) {
            cloud(m, &w->mp, m->f0 + r, cu, cv, cy);
            (side ? w->nb : w->na)[r] = feature_row(w, side, r, cu, cv, cy);
        }
    }
    return MB_OK;
}

/* The cost blocks' buffers: R rows of A per block (plus one row each side for the
 * local-minimum test), and the candidate heap. */
static mb_status alloc_cost_blocks(match_work *w, int capacity, mb_error *err)
{
    const int NA = w->NA, NB = w->NB;
    long R = (long)(6000000L / (3L * (NB > 0 ? NB : 1))); /* about 24 MB of products */
    if (R < 8)
        R = 8;
    if (R > NA)
        R = NA;
    w->R = R;
    size_t cbuf = (size_t)(R + 2) * NB * 3;
    if (w->dbl)
        w->DC = malloc(cbuf * sizeof *w->DC);
    else
        w->C = malloc(cbuf * sizeof *w->C);
    w->cost = malloc((size_t)(R + 2) * NB * sizeof *w->cost);
    w->hcap = capacity * 16 > 256 ? capacity * 16 : 256;
    w->heap = malloc((size_t)w->hcap * sizeof *w->heap);
    if ((w->dbl ? !w->DC : !w->C) || !w->cost || !w->heap)
        return mb_error_set_(err, MB_NOMEM, "match", "out of memory for the cost blocks");
    return MB_OK;
}

/* The costs of A's rows c0 .. c0 + M - 1 against all of B: three matrix products (the
 * heights, the horizontal dot products, the rotated ones), then D per pair into w->cost. */
static void cost_block(match_work *w, long c0, long M)
{
    const int n = w->n, K3 = w->K3, NB = w->NB;
    size_t plane = (size_t)M * NB;
    double tb = now_s();
    if (w->dbl) {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, NB, n, 1.0, w->DA + (size_t)c0 * K3, K3, w->DB,
                    K3, 0.0, w->DC, NB);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, NB, 2 * n, 1.0, w->DA + (size_t)c0 * K3 + n,
                    K3, w->DB + n, K3, 0.0, w->DC + plane, NB);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, NB, 2 * n, 1.0, w->DA + (size_t)c0 * K3 + n,
                    K3, w->DS, 2 * n, 0.0, w->DC + 2 * plane, NB);
    } else {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, NB, n, 1.0f, w->FA + (size_t)c0 * K3, K3, w->FB,
                    K3, 0.0f, w->C, NB);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, NB, 2 * n, 1.0f, w->FA + (size_t)c0 * K3 + n,
                    K3, w->FB + n, K3, 0.0f, w->C + plane, NB);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)M, NB, 2 * n, 1.0f, w->FA + (size_t)c0 * K3 + n,
                    K3, w->FS, 2 * n, 0.0f, w->C + 2 * plane, NB);
    }
    w->t_blas += now_s() - tb;
    for (long i = 0; i < M; ++i) {
        double ra = w->na[c0 + i];
        const double *nb = w->nb;
        float *crow = w->cost + (size_t)i * NB;
        if (w->dbl) {
            const double *cy_ = w->DC + (size_t)i * NB, *cc = cy_ + plane, *cs = cc + plane;
            for (int j = 0; j < NB; ++j)
                crow[j] = (float)(ra + nb[j] - 2.0 * cy_[j] - 2.0 * sqrt(cc[j] * cc[j] + cs[j] * cs[j]));
        } else {
            const float *cy_ = w->C + (size_t)i * NB, *cc = cy_ + plane, *cs = cc + plane;
            for (int j = 0; j < NB; ++j) {
                double sc = cc[j], ss = cs[j];
                crow[j] = (float)(ra + nb[j] - 2.0 * cy_[j] - 2.0 * sqrt(sc * sc + ss * ss));
            }
        }
    }
}

/* The local minima of the cost among rows r0 .. r1 - 1 of A (the block holds rows from c0,
 * with the neighbours above and below) pushed on the candidate heap. */
static void push_local_minima(match_work *w, long r0, long r1, long c0)
{
    const int NA = w->NA, NB = w->NB;
    for (long a = r0; a < r1; ++a) {
        long i = a - c0;
        const float *row = w->cost + (size_t)i * NB;
        const float *up_row = a > 0 ? row - NB : NULL, *dn_row = a + 1 < NA ? row + NB : NULL;
        for (int j = 0; j < NB; ++j) {
            float v = row[j];
            if ((j > 0 && row[j - 1] < v) || (j + 1 < NB && row[j + 1] < v))
                continue;
            int ok = 1;
            for (int q = -1; q <= 1 && ok; ++q) {
                if (j + q < 0 || j + q >= NB)
                    continue;
                if ((up_row && up_row[j + q] < v) || (dn_row && dn_row[j + q] < v))
                    ok = 0;
            }
            if (ok) {
                cand cd = {v, (int)a + w->A.f0, j + w->B.f0};
                heap_push(w->heap, &w->hn, w->hcap, cd);
            }
        }
    }
}

/* Exact costs for the candidates, then the best that keep their distance, into out. */
static mb_status select_pairs(match_work *w, mb_match_pair *out, int capacity, int *out_count,
                              mb_error *err)
{
    const int hn = w->hn;
    mb_match_pair *pairs = malloc((size_t)(hn > 0 ? hn : 1) * sizeof *pairs);
    free(w->scratch);
    w->scratch = malloc((size_t)6 * w->n * sizeof *w->scratch);
    if (!pairs || !w->scratch) {
        free(pairs);
        return mb_error_set_(err, MB_NOMEM, "match", "out of memory");
    }
    for (int i = 0; i < hn; ++i) {
        const cand *h = &w->heap[i];
        double th, dx, dz, D = pair_cost(&w->A, &w->B, &w->mp, h->a, h->b, w->scratch, &th, &dx, &dz);
        pairs[i].a = h->a;
        pairs[i].b = h->b;
        pairs[i].cost = (float)sqrt(D);
        pairs[i].theta = (float)th;
        pairs[i].dx = (float)dx;
        pairs[i].dz = (float)dz;
    }
    qsort(pairs, (size_t)hn, sizeof *pairs, cmp_pair);
    int sep = w->d->min_separation > 0 ? w->d->min_separation : (int)ceil(0.1 / w->A.ft);
    int cnt = 0;
    for (int i = 0; i < hn && cnt < capacity; ++i) {
        int ok = 1;
        for (int k = 0; k < cnt && ok; ++k)
            if (abs(out[k].a - pairs[i].a) < sep && abs(out[k].b - pairs[i].b) < sep)
                ok = 0;
        if (ok)
            out[cnt++] = pairs[i];
    }
    *out_count = cnt;
    free(pairs);
    return MB_OK;
}

mb_status mb_match_find(const mb_match_desc *d, mb_match_pair *out, int capacity, int *out_count,
                        mb_match_stats *stats, mb_error *err)
{
    mb_error_clear_(err);
    mb_match_desc local;
    if (d && (d->prepared_a || d->prepared_b)) {
        local = *d;
        mb_prepared_fill_(d->prepared_a, &local.skeleton_a, &local.a, &local.info_a, NULL);
        mb_prepared_fill_(d->prepared_b, &local.skeleton_b, &local.b, &local.info_b, NULL);
        d = &local;
    }
    double t_start = now_s();
    if (out_count)
        *out_count = 0;
    match_work w;
    memset(&w, 0, sizeof w);
    int S = 0;
    mb_status rc = check_match_desc(d, out, capacity, out_count, &w.window, &S, err);
    if (rc != MB_OK)
        return rc;
    w.d = d;
    w.dbl = d->use_double != 0;
    if ((rc = prepare_clips(&w, S, err)) == MB_OK && (rc = build_features(&w, err)) == MB_OK &&
        (rc = alloc_cost_blocks(&w, capacity, err)) == MB_OK) {
        for (long r0 = 0; r0 < w.NA; r0 += w.R) {
            long r1 = r0 + w.R < w.NA ? r0 + w.R : w.NA;
            long c0 = r0 > 0 ? r0 - 1 : 0, c1 = r1 < w.NA ? r1 + 1 : w.NA;
            cost_block(&w, c0, c1 - c0);
            push_local_minima(&w, r0, r1, c0);
        }
        rc = select_pairs(&w, out, capacity, out_count, err);
    }
    if (rc == MB_OK && stats) {
        stats->blas_seconds = w.t_blas;
        stats->pairs = (double)w.NA * w.NB;
        stats->points = w.n;
    }
    match_work_free(&w);
    if (stats)
        stats->total_seconds = now_s() - t_start;
    return rc;
}
