/* bench_skin: speed of the skinning job (mb_skin_run) against the memory floor, in one
 * process on the same inputs.
 *
 * For 100k and 1M vertices, 4 influences per vertex, a palette of 64 bones, two vertex
 * formats (uint16 indices + float weights; uint8 indices + unorm16 weights), positions only
 * and positions + normals, it reports ns per vertex for:
 *   floor   a loop that reads exactly the bytes the job reads (positions, normals, indices,
 *           weights) and writes the bytes it writes, doing almost no arithmetic: what
 *           streaming the data costs on this machine (from DRAM at 1M vertices, from the
 *           last-level cache at 100k);
 *   LBS     mb_skin_run, linear blend, the kernel picked for this CPU (AVX-512 or AVX2 + FMA
 *           when it has them), indices trusted (as for an mb_mesh) and checked (the default
 *           pre-pass); "LBS avx2": the AVX2 kernel forced (trusted indices), where it runs;
 *   DQS     mb_skin_run, dual quaternions (mb_skin_dq_palette once per frame included);
 *   generic the portable kernel (mb_skin_run_isa_ with MB_ISA_GENERIC_: what a CPU
 *           without AVX2 runs);
 *   ozz-sse2 ozz-animation's SkinningJob algorithm in SSE2 (its default build), written out
 *           here (uint16 indices and float weights: the same bytes as the u16+float rows,
 *           timed on both rows as the baseline);
 * with the ratios LBS / floor, LBS / ozz-sse2 and DQS / LBS.
 * Speed is printed, never asserted; the exit status is non-zero only if a job fails.
 *
 * Options: --runs N (timed repetitions, default 15; median and best are printed),
 *          --quick (3 repetitions, 100k vertices only: a smoke run),
 *          --vertices N (one mesh size only),
 *          --palette-offset BYTES (the palette that many bytes, a multiple of 4 below 64, past a
 *          64-byte boundary; default 0). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_OZZ_SSE2_ 1
#endif

#include "bench_util.h"
#include "mblend/runtime/skin.h"
#include "runtime/skin/skin_internal.h"

#define BONES 64
#define INF 4

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void) { return bench_urand(&rng); }

typedef struct data {
    int n;
    float *pos, *nrm, *outp, *outn;
    uint16_t *idx16, *w16;
    uint8_t *idx8;
    float *wf;
} data;

static void *xalloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "bench_skin: out of memory\n");
        exit(1);
    }
    memset(p, 0, bytes); /* fault the pages in before timing */
    return p;
}

static void make_data(data *d, int n)
{
    d->n = n;
    size_t v = (size_t)n;
    d->pos = xalloc(v * 12);
    d->nrm = xalloc(v * 12);
    d->outp = xalloc(v * 12);
    d->outn = xalloc(v * 12);
    d->idx16 = xalloc(v * INF * 2);
    d->w16 = xalloc(v * INF * 2);
    d->idx8 = xalloc(v * INF);
    d->wf = xalloc(v * INF * 4);
    for (size_t i = 0; i < v; ++i) {
        double nn[3], len = 0;
        for (int c = 0; c < 3; ++c) {
            d->pos[3 * i + (size_t)c] = (float)(urand() * 2 - 1);
            nn[c] = urand() * 2 - 1;
            len += nn[c] * nn[c];
        }
        for (int c = 0; c < 3; ++c)
            d->nrm[3 * i + (size_t)c] = (float)(nn[c] / sqrt(len));
        /* a vertex's bones are near each other in a real mesh; random here (the palette is
         * 4 KiB, in L1 either way) */
        int left = 65535;
        for (int k = 0; k < INF; ++k) {
            int w = k + 1 == INF ? left : (int)(urand() * left * 0.7);
            left -= w;
            int b = (int)(urand() * BONES);
            d->idx16[INF * i + (size_t)k] = (uint16_t)b;
            d->idx8[INF * i + (size_t)k] = (uint8_t)b;
            d->w16[INF * i + (size_t)k] = (uint16_t)w;
            d->wf[INF * i + (size_t)k] = (float)w / 65535.0f;
        }
    }
}

static void free_data(data *d)
{
    free(d->pos);
    free(d->nrm);
    free(d->outp);
    free(d->outn);
    free(d->idx16);
    free(d->w16);
    free(d->idx8);
    free(d->wf);
}

/* The floor: every input byte read, every output byte written, next to no arithmetic. */
static void floor_u16f(const data *d, int normals)
{
    const float *p = d->pos, *nm = d->nrm, *w = d->wf;
    const uint16_t *ix = d->idx16;
    float *op = d->outp, *on = d->outn;
    for (int v = 0; v < d->n; ++v) {
        float s = w[4 * v] + w[4 * v + 1] + w[4 * v + 2] + w[4 * v + 3];
        float t = (float)(ix[4 * v] | ix[4 * v + 1] | ix[4 * v + 2] | ix[4 * v + 3]);
        op[3 * v] = p[3 * v] + s;
        op[3 * v + 1] = p[3 * v + 1] + t;
        op[3 * v + 2] = p[3 * v + 2];
        if (normals) {
            on[3 * v] = nm[3 * v] + s;
            on[3 * v + 1] = nm[3 * v + 1];
            on[3 * v + 2] = nm[3 * v + 2];
        }
    }
}

static void floor_u8(const data *d, int normals)
{
    const float *p = d->pos, *nm = d->nrm;
    const uint16_t *w = d->w16;
    const uint8_t *ix = d->idx8;
    float *op = d->outp, *on = d->outn;
    for (int v = 0; v < d->n; ++v) {
        float s = (float)(w[4 * v] + w[4 * v + 1] + w[4 * v + 2] + w[4 * v + 3]);
        float t = (float)(ix[4 * v] | ix[4 * v + 1] | ix[4 * v + 2] | ix[4 * v + 3]);
        op[3 * v] = p[3 * v] + s;
        op[3 * v + 1] = p[3 * v + 1] + t;
        op[3 * v + 2] = p[3 * v + 2];
        if (normals) {
            on[3 * v] = nm[3 * v] + s;
            on[3 * v + 1] = nm[3 * v + 1];
            on[3 * v + 2] = nm[3 * v + 2];
        }
    }
}

#ifdef HAVE_OZZ_SSE2_
/* ozz-animation's SkinningJob algorithm, 4 influences, as its default (SSE2) build runs it,
 * written out here: per vertex the four palette matrices as columns, the last weight
 * 1 - (w0 + w1 + w2) (ozz stores influences - 1 weights; the bench's float weights sum to
 * 1, so the result is the same), the blended matrix applied to the position and normal,
 * three floats loaded and stored per attribute. */
static inline __m128 ozz_load3(const float *p)
{
    return _mm_movelh_ps(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p)),
                         _mm_load_ss(p + 2));
}
static inline void ozz_store3(float *p, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)p, v);
    _mm_store_ss(p + 2, _mm_movehl_ps(v, v));
}
#define SPLAT_(v, i) _mm_shuffle_ps(v, v, _MM_SHUFFLE(i, i, i, i))
__attribute__((noinline)) static void ozz_lbs_sse2(const data *d, const float (*pal)[16], int normals)
{
    const uint16_t *ix = d->idx16;
    const float *w = d->wf;
    const __m128 one = _mm_set1_ps(1.0f);
    for (int v = 0; v < d->n; ++v) {
        __m128 w0 = _mm_set1_ps(w[4 * v]), w1 = _mm_set1_ps(w[4 * v + 1]), w2 = _mm_set1_ps(w[4 * v + 2]);
        __m128 w3 = _mm_sub_ps(_mm_sub_ps(_mm_sub_ps(one, w0), w1), w2);
        const float *m0 = pal[ix[4 * v]], *m1 = pal[ix[4 * v + 1]], *m2 = pal[ix[4 * v + 2]],
                    *m3 = pal[ix[4 * v + 3]];
        __m128 c[4];
        for (int k = 0; k < 4; ++k)
            c[k] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m0 + 4 * k), w0),
                                         _mm_mul_ps(_mm_loadu_ps(m1 + 4 * k), w1)),
                              _mm_add_ps(_mm_mul_ps(_mm_loadu_ps(m2 + 4 * k), w2),
                                         _mm_mul_ps(_mm_loadu_ps(m3 + 4 * k), w3)));
        __m128 p = ozz_load3(d->pos + 3 * v);
        __m128 o = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c[0], SPLAT_(p, 0)), _mm_mul_ps(c[1], SPLAT_(p, 1))),
                              _mm_add_ps(_mm_mul_ps(c[2], SPLAT_(p, 2)), c[3]));
        ozz_store3(d->outp + 3 * v, o);
        if (normals) {
            __m128 q = ozz_load3(d->nrm + 3 * v);
            __m128 on = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c[0], SPLAT_(q, 0)), _mm_mul_ps(c[1], SPLAT_(q, 1))),
                                   _mm_mul_ps(c[2], SPLAT_(q, 2)));
            ozz_store3(d->outn + 3 * v, on);
        }
    }
}
#endif

typedef struct run_ctx {
    const data *d;
    int u8, normals, floor, ozz;
    mb_isa_ isa; /* MB_ISA_AUTO_: the public mb_skin_run */
    mb_skin_desc desc;
    const float (*pal)[16];
    float (*dq)[8];
} run_ctx;

static void one_run(run_ctx *r)
{
    if (r->floor) {
        (r->u8 ? floor_u8 : floor_u16f)(r->d, r->normals);
        return;
    }
#ifdef HAVE_OZZ_SSE2_
    if (r->ozz) {
        ozz_lbs_sse2(r->d, r->pal, r->normals);
        return;
    }
#endif
    if (r->desc.method == MB_SKIN_DQS && mb_skin_dq_palette(r->pal, BONES, r->dq) != MB_OK)
        exit(1);
    if ((r->isa == MB_ISA_AUTO_ ? mb_skin_run(&r->desc) : mb_skin_run_isa_(&r->desc, r->isa)) !=
        MB_OK) {
        fprintf(stderr, "bench_skin: mb_skin_run failed\n");
        exit(1);
    }
}

/* Median and best ns per vertex over runs repetitions (two warm-up runs first), in thread
 * CPU time: steadier than wall time when other processes share the cores. */
static void time_it(run_ctx *r, int runs, double *med, double *best)
{
    double t[64];
    one_run(r);
    one_run(r);
    for (int i = 0; i < runs; ++i) {
        double t0 = bench_cpu_now();
        one_run(r);
        t[i] = (bench_cpu_now() - t0) * 1e9 / r->d->n;
    }
    *med = bench_median(t, runs);
    *best = bench_min(t, runs);
}

int main(int argc, char **argv)
{
    int runs = 15, quick = 0, only = 0, pal_off = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--vertices") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (strcmp(argv[i], "--palette-offset") == 0 && i + 1 < argc)
            pal_off = atoi(argv[++i]) / 4 % 16 * 4;
        else {
            fprintf(stderr, "usage: bench_skin [--runs N] [--quick] [--vertices N] [--palette-offset BYTES]\n");
            return 2;
        }
    }
    if (quick)
        runs = 3;
    runs = runs < 1 ? 1 : (runs > 64 ? 64 : runs);

    /* 64-byte aligned (as from aligned_alloc(64)), or --palette-offset bytes past it */
    _Alignas(64) float palbuf[BONES * 16 + 16];
    float(*pal)[16] = (float(*)[16])(palbuf + pal_off / 4);
    _Alignas(64) float dq[BONES][8];
    for (int b = 0; b < BONES; ++b) {
        double q[4], n = 0;
        for (int k = 0; k < 4; ++k) {
            q[k] = urand() * 2 - 1;
            n += q[k] * q[k];
        }
        for (int k = 0; k < 4; ++k)
            q[k] /= sqrt(n);
        double x = q[0], y = q[1], z = q[2], w = q[3];
        float m[16] = {(float)(1 - 2 * (y * y + z * z)), (float)(2 * (x * y + z * w)), (float)(2 * (x * z - y * w)), 0,
                       (float)(2 * (x * y - z * w)), (float)(1 - 2 * (x * x + z * z)), (float)(2 * (y * z + x * w)), 0,
                       (float)(2 * (x * z + y * w)), (float)(2 * (y * z - x * w)), (float)(1 - 2 * (x * x + y * y)), 0,
                       (float)urand(), (float)urand(), (float)urand(), 1};
        memcpy(pal[b], m, sizeof m);
    }
    {
        double t0 = bench_now();
        for (int i = 0; i < 1000; ++i)
            mb_skin_dq_palette((const float(*)[16])pal, BONES, dq);
        printf("mb_skin_dq_palette, 64 bones: %.2f us per frame\n", (bench_now() - t0) * 1e3);
    }
    char load[128];
    bench_loadavg(load, sizeof load);
    mb_skin_kernel_fn_ picked = mb_skin_kernel_(MB_ISA_AUTO_);
    const char *kname = picked == mb_skin_kernel_(MB_ISA_AVX512_) ? "AVX-512"
                        : picked == mb_skin_kernel_(MB_ISA_AVX2_) ? "AVX2+FMA"
                                                                  : "generic";
    int have_avx2 = mb_skin_kernel_(MB_ISA_AVX2_) != NULL;
    printf("kernel picked for this CPU: %s; %d runs, median (best) ns per vertex; palette %d "
           "bytes past a 64-byte boundary; load %s\n",
           kname, runs, pal_off, load);
    printf("\n");
    printf("%-9s %-14s %-10s %15s %15s %15s %15s %15s %15s %15s %15s %8s %8s %8s\n", "vertices",
           "format", "attributes", "floor", "ozz-sse2", "LBS trusted", "LBS no-NT", "LBS checked",
           "LBS avx2", "DQS trusted", "generic L/D", "LBS/flr", "LBS/ozz", "DQS/LBS");

    int sizes[2] = {100000, 1000000};
    if (only > 0)
        sizes[0] = only;
    for (int si = 0; si < (quick || only > 0 ? 1 : 2); ++si) {
        data d;
        make_data(&d, sizes[si]);
        for (int u8 = 0; u8 < 2; ++u8)
            for (int normals = 0; normals < 2; ++normals) {
                run_ctx r;
                memset(&r, 0, sizeof r);
                r.d = &d;
                r.u8 = u8;
                r.normals = normals;
                r.pal = (const float(*)[16])pal;
                r.dq = dq;
                mb_skin_desc *k = &r.desc;
                k->palette = (const float(*)[16])pal;
                k->dq_palette = (const float(*)[8])dq;
                k->palette_count = BONES;
                k->vertex_count = d.n;
                k->influences = INF;
                k->format = u8 ? MB_SKIN_U8_UNORM16 : MB_SKIN_U16_FLOAT;
                k->joint_indices = u8 ? (const void *)d.idx8 : (const void *)d.idx16;
                k->joint_weights = u8 ? (const void *)d.w16 : (const void *)d.wf;
                k->positions = d.pos;
                k->out_positions = d.outp;
                if (normals) {
                    k->normals = d.nrm;
                    k->out_normals = d.outn;
                }
                double fl[2], lt[2], lc[2], dt[2], gl[2], gd[2], la[2] = {0, 0}, oz[2] = {0, 0},
                       ln[2];
                r.floor = 1;
                time_it(&r, runs, &fl[0], &fl[1]);
                r.floor = 0;
#ifdef HAVE_OZZ_SSE2_
                r.ozz = 1; /* same bytes in as the u16+float LBS, so timed for both formats */
                time_it(&r, runs, &oz[0], &oz[1]);
                r.ozz = 0;
#endif
                r.isa = MB_ISA_AUTO_;
                k->trusted_indices = 1;
                k->method = MB_SKIN_LBS;
                time_it(&r, runs, &lt[0], &lt[1]);
                mb_skin_stream_min_bytes_ = (size_t)-1; /* normal stores whatever the size */
                time_it(&r, runs, &ln[0], &ln[1]);
                mb_skin_stream_min_bytes_ = MB_SKIN_STREAM_MIN_BYTES_;
                k->trusted_indices = 0;
                time_it(&r, runs, &lc[0], &lc[1]);
                k->trusted_indices = 1;
                k->method = MB_SKIN_DQS;
                time_it(&r, runs, &dt[0], &dt[1]);
                if (have_avx2) {
                    r.isa = MB_ISA_AVX2_;
                    k->method = MB_SKIN_LBS;
                    time_it(&r, runs, &la[0], &la[1]);
                }
                r.isa = MB_ISA_GENERIC_;
                k->method = MB_SKIN_LBS;
                time_it(&r, runs, &gl[0], &gl[1]);
                k->method = MB_SKIN_DQS;
                time_it(&r, runs, &gd[0], &gd[1]);
                char c[9][32];
                double *all[9] = {fl, lt, lc, dt, gl, gd, la, oz, ln};
                for (int i = 0; i < 9; ++i)
                    snprintf(c[i], sizeof c[i], "%.2f (%.2f)", all[i][0], all[i][1]);
                char gen[32];
                snprintf(gen, sizeof gen, "%.2f / %.2f", gl[0], gd[0]);
                printf("%-9d %-14s %-10s %15s %15s %15s %15s %15s %15s %15s %15s %7.2fx %7.2fx %7.2fx\n",
                       d.n, u8 ? "u8+unorm16" : "u16+float", normals ? "pos+nrm" : "pos", c[0],
                       oz[0] > 0 ? c[7] : "-", c[1], c[8], c[2], have_avx2 ? c[6] : "-", c[3], gen,
                       lt[0] / fl[0], oz[0] > 0 ? lt[0] / oz[0] : 0.0, dt[0] / lt[0]);
                fflush(stdout);
            }
        free_data(&d);
    }
    return 0;
}
