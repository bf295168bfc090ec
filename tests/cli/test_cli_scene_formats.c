/* DirectX .X and FBX scenes through the CLI (the library side: tests/lib/test_scene_formats.c):
 * `info` prints the files' counts, `skin` writes OBJ frames equal to the library's
 * skinning and a .glb that reads back, `render` draws the body in every cell, and two of
 * Wuson's clips blend (`blend Testwuson.X#Wuson_Run Testwuson.X#Wuson_Walk`). With
 * MB_WITH_ASSIMP=ON the tests fail rather than skip when the scene reader is missing;
 * without it `info` must say the build lacks assimp. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "test_cli_util.h"
#include "test_scene_cases.h"
#include "test_skin_pose.h"
#include "test_util.h"


/* `mblend CMD ...` with stdout to out_path, stderr kept for the message; returns the code. */
static int run_cmd(const char *const *args, const char *out_path, char *err, size_t err_len)
{
    char errf[] = "/tmp/mb_test_formats_err_XXXXXX";
    int fd = mkstemp(errf);
    cr_assert_geq(fd, 0);
    close(fd);
    int code = mb_test_exec_cli(args, out_path, errf);
    char *e = mb_test_slurp(errf, NULL);
    snprintf(err, err_len, "%s", e);
    free(e);
    unlink(errf);
    return code;
}
#define CMD(out, ...) run_cmd((const char *const[]){__VA_ARGS__, NULL}, out, err, sizeof err)

Test(scene_formats_cli, info_prints_the_counts)
{
    need_assimp();
    need_cli();
    const char *d = mb_test_scratch("formats");
    char out[128], err[4096], want[160];
    snprintf(out, sizeof out, "%s/info.txt", d);
    for (int i = 0; i < N_CASES; ++i) {
        const format_case *fc = &k_cases[i];
        cr_assert_eq(CMD(out, "info", mb_shared_path(fc->rel)), 0, "%s: %s", fc->rel, err);
        char *t = mb_test_slurp(out, NULL);
        snprintf(want, sizeof want, "mesh:           %d vertices, %d triangles (%d meshes merged, %d "
                 "skinned), %d skin joints, up to %d influences", fc->vertices, fc->triangles,
                 fc->meshes, fc->meshes, fc->skin_joints, fc->max_influences);
        cr_assert(strstr(t, want), "%s: no '%s' in\n%s", fc->rel, want, t);
        for (int c = 0; c < fc->clips; ++c) {
            const char *at = strstr(t, fc->clip_names[c]);
            cr_assert_not_null(at, "%s: no clip %s in\n%s", fc->rel, fc->clip_names[c], t);
            cr_assert_eq(atoi(at + strlen(fc->clip_names[c])), fc->clip_frames[c], "%s#%s", fc->rel,
                         fc->clip_names[c]);
        }
        free(t);
    }
    mb_test_remove_dir(d);
}

/* `skin` writes OBJ frames whose vertices are the library's LBS skinning of those frames
 * (to the OBJ's 7 significant digits), and a .glb that reads back with the skeleton, the
 * triangles and the frames. */
Test(scene_formats_cli, skin_obj_frames_are_the_library_skinning_and_glb_reads_back)
{
    need_assimp();
    need_cli();
    const char *d = mb_test_scratch("formats");
    char out[160], name[192], err[4096], spec[4200];
    for (int i = 0; i < N_CASES; ++i) {
        const format_case *fc = &k_cases[i];
        mb_scene *s = load(fc->rel);
        const mb_skeleton *sk = mb_scene_skeleton(s);
        const mb_mesh *m = mb_scene_mesh(s);
        int nj = mb_skeleton_joint_count(sk), nv = mb_mesh_vertex_count(m);
        int ci = fc->clips - 1 > 1 ? 1 : 0; /* Wuson_Walk for Wuson */
        const mb_clip *clip = mb_scene_clip(s, ci);
        int frames = mb_clip_frame_count(clip), step = frames / 4 > 1 ? frames / 4 : 1;
        snprintf(spec, sizeof spec, "%s#%s", mb_shared_path(fc->rel), fc->clip_names[ci]);
        snprintf(out, sizeof out, "%s/f%d.obj", d, i);
        char range[32];
        snprintf(range, sizeof range, "0::%d", step);
        cr_assert_eq(CMD(NULL, "skin", spec, "--frames", range, "-o", out), 0, "%s: %s", spec, err);
        float *op = malloc((size_t)nv * 3 * sizeof(float));
        mb_xform *pose = malloc((size_t)nj * sizeof *pose);
        double worst = 0, reach = 0;
        for (int f = 0; f < frames; f += step) {
            cr_assert_eq(mb_clip_frame_pose(sk, clip, f, (mb_pose){pose, nj}), MB_OK);
            mb_test_skin_pose(sk, m, pose, MB_SKIN_LBS, op, NULL);
            if (frames == 1)
                snprintf(name, sizeof name, "%s", out);
            else
                snprintf(name, sizeof name, "%s/f%d_%04d.obj", d, i, f);
            char *t = mb_test_slurp(name, NULL), *p = t;
            int v = 0;
            while ((p = strstr(p, "\nv ")) != NULL) {
                double q[3];
                cr_assert_eq(sscanf(p + 3, "%lf %lf %lf", &q[0], &q[1], &q[2]), 3);
                cr_assert_lt(v, nv);
                worst = fmax(worst, dist3d(&op[3 * v], q));
                for (int k = 0; k < 3; ++k)
                    reach = fmax(reach, fabs(q[k]));
                ++v;
                ++p;
            }
            cr_assert_eq(v, nv, "%s frame %d: %d vertices", spec, f, v);
            free(t);
        }
        cr_log_info("%s: OBJ frames off the library by %.3g (coordinates up to %.4g)", spec, worst, reach);
        cr_assert(worst <= 2e-6 * reach, "%s: OBJ frames off the library by %g", spec, worst);
        /* the .glb: skeleton, triangles and frames read back */
        snprintf(out, sizeof out, "%s/f%d.glb", d, i);
        cr_assert_eq(CMD(NULL, "skin", spec, "-o", out), 0, "%s: %s", spec, err);
        mb_scene *g = NULL;
        mb_error e;
        cr_assert_eq(mb_scene_read_file(out, NULL, &g, &e), MB_OK, "%s", e.text);
        cr_assert_eq(mb_mesh_triangle_count(mb_scene_mesh(g)), fc->triangles, "%s", spec);
        cr_assert_eq(mb_scene_clip_count(g), 1);
        cr_assert_eq(mb_clip_frame_count(mb_scene_clip(g, 0)), frames, "%s", spec);
        for (int j = 0; j < nj; ++j)
            cr_assert_geq(mb_skeleton_find(mb_scene_skeleton(g), mb_skeleton_name(sk, j)), 0,
                          "%s: no node %s in the glb", spec, mb_skeleton_name(sk, j));
        mb_scene_destroy(g);
        free(op);
        free(pose);
        mb_scene_destroy(s);
    }
    mb_test_remove_dir(d);
}

/* A binary PPM's pixels (w * h * 3). */
static unsigned char *read_ppm(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s not written", path);
    int maxv = 0;
    cr_assert_eq(fscanf(f, "P6 %d %d %d", w, h, &maxv), 3);
    cr_assert_eq(maxv, 255);
    fgetc(f);
    size_t n = (size_t)*w * (size_t)*h * 3;
    unsigned char *px = malloc(n);
    cr_assert_not_null(px);
    cr_assert_eq(fread(px, 1, n, f), n);
    fclose(f);
    return px;
}

/* Shaded body pixels: the warm mesh colour or the cooler left side (render.h). */
static int is_shaded(const unsigned char *p)
{
    return (p[0] > p[1] + 20 && p[1] > p[2] + 10) || (p[2] > p[0] + 40 && p[2] > 100);
}

/* `render` draws each file's mesh in every cell: a figure of many pixels that fills a
 * good part of the cell's height. */
Test(scene_formats_cli, render_draws_the_mesh_in_every_cell)
{
    need_assimp();
    need_cli();
    const char *d = mb_test_scratch("formats");
    char out[160], err[4096];
    for (int i = 0; i < N_CASES; ++i) {
        const format_case *fc = &k_cases[i];
        snprintf(out, sizeof out, "%s/r%d.ppm", d, i);
        cr_assert_eq(CMD(NULL, "render", mb_shared_path(fc->rel), "--size", "120x160", "-o", out),
                     0, "%s: %s", fc->rel, err);
        int w, h;
        unsigned char *px = read_ppm(out, &w, &h);
        int cells = w / 120;
        cr_assert_eq(h, 160);
        /* by default at most 8 frames, spread evenly from the first */
        int nf = fc->clip_frames[0], step = nf > 8 ? (nf + 7) / 8 : 1;
        cr_assert_eq(cells, (nf + step - 1) / step, "%s", fc->rel);
        for (int c = 0; c < cells; ++c) {
            long body = 0;
            int x0 = w, x1 = -1, y0 = h, y1 = -1;
            for (int y = 0; y < h; ++y)
                for (int x = c * 120; x < (c + 1) * 120; ++x)
                    if (is_shaded(&px[3 * (y * w + x)])) {
                        ++body;
                        x0 = x < x0 ? x : x0;
                        x1 = x > x1 ? x : x1;
                        y0 = y < y0 ? y : y0;
                        y1 = y > y1 ? y : y1;
                    }
            /* (the FBX tube may face the viewer end-on: a disc) */
            int span = x1 - x0 > y1 - y0 ? x1 - x0 : y1 - y0;
            cr_assert_gt(body, 300, "%s cell %d: %ld body pixels", fc->rel, c, body);
            cr_assert_gt(span, 30, "%s cell %d: the mesh spans %d pixels", fc->rel, c, span);
            cr_assert(x0 > c * 120 && x1 < (c + 1) * 120 - 1, "%s cell %d: cut at the edge", fc->rel, c);
        }
        free(px);
    }
    mb_test_remove_dir(d);
}

/* The angle between two rotations (radians), sign-blind: 4 atan2(|a - b|, |a + b|) with b
 * on a's side (acos of the dot product loses small angles to float rounding). */
static double quat_angle(const float a[4], const double b[4])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], s = d < 0 ? -1.0 : 1.0;
    double dm = 0, dp = 0;
    for (int k = 0; k < 4; ++k) {
        dm += (a[k] - s * b[k]) * (a[k] - s * b[k]);
        dp += (a[k] + s * b[k]) * (a[k] + s * b[k]);
    }
    return 4.0 * atan2(sqrt(dm), sqrt(dp));
}

/* Blending two of Wuson's clips (its legs carry no foot names and .X has no End Sites, so
 * the ranges are stretched onto each other, --cycle none): output frame k samples both
 * clips at phase k / (N - 1). With weights 1,0 every joint below the root is Wuson_Run's;
 * with 0.5,0.5 it is the midpoint of the two (for two equal weights the log/exp blend
 * around Markley's mean is the normalised sum, sign-aligned), at the first, middle and
 * last frame. The BVH output is compared joint by joint by name. */
Test(scene_formats_cli, two_wuson_clips_blend)
{
    need_assimp();
    need_cli();
    const char *d = mb_test_scratch("formats");
    char out[160], err[4096], run[4200], walk[4200];
    const char *rel = "mesh/Testwuson.X";
    snprintf(run, sizeof run, "%s#Wuson_Run", mb_shared_path(rel));
    snprintf(walk, sizeof walk, "%s#Wuson_Walk", mb_shared_path(rel));
    mb_scene *s = load(rel);
    const mb_skeleton *sk = mb_scene_skeleton(s);
    const mb_clip *cr = mb_scene_clip(s, 0), *cw = mb_scene_clip(s, 1);
    int nj = mb_skeleton_joint_count(sk), root = mb_skeleton_find(sk, "Root");
    cr_assert_geq(root, 0);
    mb_xform *pa = malloc((size_t)nj * sizeof *pa), *pb = malloc((size_t)nj * sizeof *pb);
    const double w_b[2] = {0.0, 0.5};
    const char *weights[2] = {"1,0", "0.5,0.5"};
    for (int wi = 0; wi < 2; ++wi) {
        snprintf(out, sizeof out, "%s/blend%d.bvh", d, wi);
        cr_assert_eq(CMD(NULL, "blend", run, walk, "--cycle", "none", "-w", weights[wi], "-o", out),
                     0, "%s", err);
        mb_skeleton *bs;
        mb_clip *bc;
        mb_error e;
        cr_assert_eq(mb_bvh_read_file(out, NULL, &bs, &bc, &e), MB_OK, "%s", e.text);
        int n = mb_clip_frame_count(bc), bn = mb_skeleton_joint_count(bs);
        if (wi == 0)
            cr_assert_eq(n, mb_clip_frame_count(cr), "weights 1,0: Wuson_Run's %d frames, got %d",
                         mb_clip_frame_count(cr), n);
        mb_xform *po = malloc((size_t)bn * sizeof *po);
        double worst = 0;
        int checked = 0;
        const int fr[3] = {0, (n - 1) / 2, n - 1};
        for (int q = 0; q < 3; ++q) {
            double phase = n > 1 ? (double)fr[q] / (double)(n - 1) : 0.0;
            double da = (mb_clip_frame_count(cr) - 1) * mb_clip_frame_time(cr);
            double db = (mb_clip_frame_count(cw) - 1) * mb_clip_frame_time(cw);
            cr_assert_eq(mb_clip_sample(sk, cr, phase * da, MB_WRAP_CLAMP, (mb_pose){pa, nj}), MB_OK);
            cr_assert_eq(mb_clip_sample(sk, cw, phase * db, MB_WRAP_CLAMP, (mb_pose){pb, nj}), MB_OK);
            cr_assert_eq(mb_clip_frame_pose(bs, bc, fr[q], (mb_pose){po, bn}), MB_OK);
            for (int j = 0; j < nj; ++j) {
                int below = 0; /* strictly below Root: free of root motion */
                for (int k = mb_skeleton_parents(sk)[j]; k >= 0 && !below; k = mb_skeleton_parents(sk)[k])
                    below = k == root;
                int o = mb_skeleton_find(bs, mb_skeleton_name(sk, j));
                if (!below || o < 0)
                    continue;
                const float *a = pa[j].rot, *b = pb[j].rot;
                double sg = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1.0 : 1.0;
                double want[4], nn = 0;
                for (int k = 0; k < 4; ++k) {
                    want[k] = (1.0 - w_b[wi]) * a[k] + w_b[wi] * sg * b[k];
                    nn += want[k] * want[k];
                }
                for (int k = 0; k < 4; ++k)
                    want[k] /= sqrt(nn);
                worst = fmax(worst, quat_angle(po[o].rot, want));
                ++checked;
            }
        }
        cr_log_info("Wuson blend %s: %d joint rotations, worst %.3g rad off the expected", weights[wi],
                    checked, worst);
        cr_assert_gt(checked, 3 * 30);
        cr_assert(worst < 1e-5, "weights %s: a joint %.3g rad off the expected blend", weights[wi], worst);
        free(po);
        mb_clip_destroy(bc);
        mb_skeleton_destroy(bs);
    }
    free(pa);
    free(pb);
    mb_scene_destroy(s);
    mb_test_remove_dir(d);
}

/* Without assimp the command says so (exit 2, input error) instead of misreading. */
Test(scene_formats_cli, without_assimp_info_says_so)
{
    need_cli();
    char err[4096];
    for (int i = 0; i < N_CASES; ++i) {
        int code = CMD(NULL, "info", mb_shared_path(k_cases[i].rel));
        if (mb_scene_supported()) {
            cr_assert_eq(code, 0, "%s: %s", k_cases[i].rel, err);
        } else {
            cr_assert_eq(code, 2, "%s", k_cases[i].rel);
            cr_assert(strstr(err, "assimp"), "%s: %s", k_cases[i].rel, err);
        }
    }
}
