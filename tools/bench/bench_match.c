/* Transition-point search between two clips of 10,000 frames (reported, not asserted).
 *
 *   bench_match [--frames N] [--window S] [--samples N] [--threads N] [--double] [--reps N]
 *               [--shared DIR]
 *
 * Data: two clips of N frames (default 10000) on the CMU 31-joint skeleton (38 nodes with
 * End Sites), made by repeating real takes from ../shared/data/bvh: A from the walks
 * 02_01 + 02_02 + the long 09_12, B from the runs 02_03 + 09_01 + 09_02 and the walk 09_12
 * backwards in take order (the content only matters for the local-minimum step; the
 * BLAS work depends only on the sizes). Reports the wall time of mb_match_find, the
 * share spent inside sgemm (or dgemm), pairs per second and the achieved GFLOP/s of the
 * products. OpenBLAS threads: --threads (default 1, i.e. one core). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "bench_util.h"
#include "mblend/mblend.h"

#ifndef MB_BENCH_SHARED_DIR
#define MB_BENCH_SHARED_DIR "../shared"
#endif

typedef struct take {
    mb_skeleton *s;
    mb_clip *c;
    int first;
} take;

static int load(const char *dir, const char *name, take *t)
{
    char path[1024];
    mb_error e;
    snprintf(path, sizeof path, "%s/data/bvh/%s", dir, name);
    if (mb_bvh_read_file(path, NULL, &t->s, &t->c, &e) != MB_OK) {
        char buf[700];
        fprintf(stderr, "%s\n", mb_error_format(&e, buf, sizeof buf));
        return 0;
    }
    mb_motion_info info;
    t->first = mb_motion_analyze(t->s, t->c, NULL, name, &info, NULL) == MB_OK ? info.first_frame : 0;
    return 1;
}

/* N frames cycling through the takes' motion frames (root positions carried on so the
 * path continues across the joins). */
static mb_clip *tile(take *takes, int nt, int frames)
{
    /* The takes share one skeleton, so one tracked set (ns joints); the root (joint 0)
     * carries the path when it is tracked (slot rs). */
    int nj = mb_clip_joint_count(takes[0].c), ns = mb_clip_translation_count(takes[0].c);
    int rs = mb_clip_translation_slot(takes[0].c, 0);
    for (int i = 1; i < nt; ++i)
        if (mb_clip_translation_count(takes[i].c) != ns)
            return NULL;
    float *rot = malloc(sizeof(float) * 4 * (size_t)nj * frames), *tr = malloc(sizeof(float) * (3 * (size_t)ns * frames + 1));
    if (!rot || !tr)
        return NULL;
    int ti = 0, f = takes[0].first;
    float shift[3] = {0, 0, 0};
    for (int k = 0; k < frames; ++k) {
        const take *t = &takes[ti];
        float *row = tr + 3 * (size_t)k * ns;
        memcpy(rot + 4 * (size_t)k * nj, mb_clip_rotations(t->c) + 4 * (size_t)f * nj, sizeof(float) * 4 * nj);
        if (ns > 0)
            memcpy(row, mb_clip_translations(t->c) + 3 * (size_t)f * ns, sizeof(float) * 3 * ns);
        for (int a = 0; rs >= 0 && a < 3; a += 2)
            row[3 * rs + a] += shift[a];
        if (++f >= mb_clip_frame_count(t->c)) {
            ti = (ti + 1) % nt;
            f = takes[ti].first;
            if (rs >= 0) {
                const float *last = row + 3 * rs;
                const float *start = mb_clip_translations(takes[ti].c) + 3 * ((size_t)f * ns + rs);
                for (int a = 0; a < 3; a += 2)
                    shift[a] = last[a] - start[a];
            }
        }
    }
    mb_clip_desc d = {0};
    d.joint_count = nj;
    d.frame_count = frames;
    d.frame_time = mb_clip_frame_time(takes[0].c);
    d.rotations = rot;
    d.translation_joints = mb_clip_translation_joints(takes[0].c);
    d.translation_count = ns;
    d.translations = ns > 0 ? tr : NULL;
    mb_clip *c = NULL;
    mb_clip_create(&d, &c, NULL);
    free(rot);
    free(tr);
    return c;
}

int main(int argc, char **argv)
{
    int frames = 10000, samples = 8, threads = 1, dbl = 0, reps = 3;
    double window = 0.25;
    const char *shared = MB_BENCH_SHARED_DIR;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--double") == 0)
            dbl = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--frames") == 0)
            frames = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--window") == 0)
            window = atof(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--samples") == 0)
            samples = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--shared") == 0)
            shared = argv[++i];
        else {
            fprintf(stderr, "usage: bench_match [--frames N] [--window S] [--samples N] [--threads N] [--double] "
                            "[--reps N] [--shared DIR]\n");
            return 1;
        }
    }
    if (frames < 100 || samples < 1 || threads < 1 || reps < 1 || reps > 64) {
        fprintf(stderr, "bad arguments\n");
        return 1;
    }
    openblas_set_num_threads(threads);
    const char *na[] = {"cmu_02_01_walk.bvh", "cmu_02_02_walk.bvh", "cmu_09_12_walk_navigate_long.bvh"};
    const char *nb[] = {"cmu_02_03_run.bvh", "cmu_09_01_run.bvh", "cmu_09_02_run.bvh", "cmu_09_12_walk_navigate_long.bvh"};
    take ta[3], tb[4];
    for (int i = 0; i < 3; ++i)
        if (!load(shared, na[i], &ta[i]))
            return 1;
    for (int i = 0; i < 4; ++i)
        if (!load(shared, nb[i], &tb[i]))
            return 1;
    mb_clip *a = tile(ta, 3, frames), *b = tile(tb, 4, frames);
    if (!a || !b) {
        fprintf(stderr, "cannot build the clips\n");
        return 1;
    }
    mb_match_desc d = {0};
    d.skeleton_a = ta[0].s;
    d.skeleton_b = tb[0].s;
    d.a = a;
    d.b = b;
    d.window = window;
    d.window_samples = samples;
    d.use_double = dbl;
    char load_s[128];
    bench_loadavg(load_s, sizeof load_s);
    printf("bench_match: %d x %d frames, CMU skeleton (%d nodes), window %.3g s x %d samples, %s, %d OpenBLAS "
           "thread%s; load %s\n",
           frames, frames, mb_clip_joint_count(a), window, samples, dbl ? "dgemm" : "sgemm", threads,
           threads == 1 ? "" : "s", load_s);
    double tot[64], blas[64];
    mb_match_stats st;
    mb_match_pair best[5];
    int found = 0;
    for (int r = 0; r < reps; ++r) {
        mb_error e;
        if (mb_match_find(&d, best, 5, &found, &st, &e) != MB_OK) {
            fprintf(stderr, "match: %s\n", e.text);
            return 1;
        }
        tot[r] = st.total_seconds;
        blas[r] = st.blas_seconds;
    }
    double t = bench_median(tot, reps), tb_ = bench_median(blas, reps);
    /* the products: y (n) + horizontal (2n) + rotated horizontal (2n) per pair */
    double flops = 2.0 * st.pairs * 5.0 * st.points;
    printf("time %.3f s (median of %d), of which BLAS %.3f s = %.1f%%; %.3g pairs of %d points, %.1f Mpairs/s, "
           "products at %.1f GFLOP/s\n",
           t, reps, tb_, 100.0 * tb_ / t, st.pairs, st.points, st.pairs / t * 1e-6, flops / tb_ * 1e-9);
    for (int k = 0; k < found; ++k)
        printf("  pair %d: a %d b %d cost %.4g\n", k + 1, best[k].a, best[k].b, best[k].cost);
    mb_clip_destroy(a);
    mb_clip_destroy(b);
    for (int i = 0; i < 3; ++i) {
        mb_clip_destroy(ta[i].c);
        mb_skeleton_destroy(ta[i].s);
    }
    for (int i = 0; i < 4; ++i) {
        mb_clip_destroy(tb[i].c);
        mb_skeleton_destroy(tb[i].s);
    }
    return 0;
}
