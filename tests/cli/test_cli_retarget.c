/* mblend retarget, and --to of mblend blend and mblend transition, run as a separate process:
 * the files written (bone lengths, the target's mesh kept), the printed mapping, a CMU run
 * and a Bandai walk blended into one looping, travelling cycle, and errors that write
 * nothing (the method itself: tests/lib/test_retarget.c). */
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mblend/mblend.h"
#include "test_cli_util.h"
#include "test_util.h"

#define RUN(...) mb_test_run_cli((const char *const[]){__VA_ARGS__, NULL})

static char cmu_walk[4096], cmu_run[4096], bandai_walk[4096], cesium[4096];

static void paths(void)
{
    need_cli();
    snprintf(cmu_walk, sizeof cmu_walk, "%s", mb_shared_path("bvh/cmu_02_01_walk.bvh"));
    snprintf(cmu_run, sizeof cmu_run, "%s", mb_shared_path("bvh/cmu_09_01_run.bvh"));
    snprintf(bandai_walk, sizeof bandai_walk, "%s", mb_shared_path("bvh/bandai2_walk_normal_001.bvh"));
    snprintf(cesium, sizeof cesium, "%s", mb_shared_path("mesh/CesiumMan.glb"));
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

Test(cli_retarget, cmu_walk_onto_bandai_bvh)
{
    paths();
    const char *dir = mb_test_scratch("retarget");
    char out[512];
    snprintf(out, sizeof out, "%s/walk_bandai.bvh", dir);
    mb_test_run r = RUN("retarget", cmu_walk, "--to", bandai_walk, "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    /* the mapping on stdout, one line per role */
    cr_expect(strstr(r.out, "upper_arm_l  LeftArm -> UpperArm_L: direction"), "%s", r.out);
    cr_expect(strstr(r.out, "hips         Hips -> Hips: frame"), "%s", r.out);
    cr_expect(strstr(r.out, "root motion on Hips"), "%s", r.out);
    mb_test_run_free(&r);
    mb_skeleton *s, *t;
    mb_clip *c, *tc;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(bandai_walk, NULL, &t, &tc, &e), MB_OK, "%s", e.text);
    cr_assert(mb_skeleton_same_topology(s, t, NULL));
    cr_assert_eq(mb_clip_frame_count(c), 344); /* the CMU walk's frames */
    /* every joint below the hips keeps Bandai's bone (its position channels hold the offset) */
    int hips = mb_skeleton_find(s, "Hips");
    for (int f = 0; f < mb_clip_frame_count(c); f += 17)
        for (int j = hips + 1; j < mb_skeleton_joint_count(s); ++j) {
            const float *p = mb_clip_joint_translation(s, c, f, j), *o = mb_skeleton_offset(t, j);
            for (int k = 0; k < 3; ++k)
                cr_assert(fabsf(p[k] - o[k]) < 1e-3f, "joint %d frame %d", j, f);
        }
    /* the root travels as far as the CMU walk's, scaled by the legs (about 5.39) */
    mb_motion_info mi;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "out", &mi, &e), MB_OK, "%s", e.text);
    cr_expect(mi.up_axis == MB_AXIS_Y && mi.speed > 100.0 && mi.speed < 130.0, "speed %g",
              mi.speed);
    mb_clip_destroy(c);
    mb_clip_destroy(tc);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(t);
    remove(out);
    rmdir(dir);
}

Test(cli_retarget, cmu_walk_onto_cesium_man_keeps_its_mesh)
{
    paths();
    mb_test_need_assimp();
    const char *dir = mb_test_scratch("retarget");
    char out[512];
    snprintf(out, sizeof out, "%s/cesium_walk.glb", dir);
    mb_test_run r = RUN("retarget", cmu_walk, "--to", cesium, "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    cr_expect(strstr(r.out, "forearm_l    LeftForeArm -> Skeleton_arm_joint_L__3_"), "%s", r.out);
    mb_test_run_free(&r);
    mb_scene *a, *b;
    mb_error e;
    cr_assert_eq(mb_scene_read_file(out, NULL, &a, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_scene_read_file(cesium, NULL, &b, &e), MB_OK, "%s", e.text);
    cr_expect_eq(mb_scene_clip_count(a), 1);
    cr_expect_eq(mb_clip_frame_count(mb_scene_clip(a, 0)), 344);
    cr_assert_not_null(mb_scene_mesh(a));
    cr_expect_eq(mb_mesh_triangle_count(mb_scene_mesh(a)), mb_mesh_triangle_count(mb_scene_mesh(b)));
    cr_expect_eq(mb_mesh_skin_joint_count(mb_scene_mesh(a)), mb_mesh_skin_joint_count(mb_scene_mesh(b)));
    mb_scene_destroy(a);
    mb_scene_destroy(b);
    remove(out);
    rmdir(dir);
}

Test(cli_retarget, errors_write_nothing)
{
    paths();
    const char *dir = mb_test_scratch("retarget");
    char out[512], noroles[4096];
    snprintf(out, sizeof out, "%s/out.bvh", dir);
    snprintf(noroles, sizeof noroles, "%s", mb_shared_path("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh"));
    mb_test_run r = RUN("retarget", cmu_walk, "-o", out); /* no --to */
    cr_expect_eq(r.code, 1);
    cr_expect(strstr(r.err, "--to"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("retarget", cmu_walk, "--to", bandai_walk, "-o", bandai_walk); /* over an input */
    cr_expect_eq(r.code, 1);
    mb_test_run_free(&r);
    /* a skeleton without humanoid joint names: every missing role named */
    r = RUN("retarget", cmu_walk, "--to", noroles, "-o", out);
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "hips") && strstr(r.err, "upper_leg_l") && strstr(r.err, "forearm_r"),
              "%s", r.err);
    mb_test_run_free(&r);
    cr_expect(!exists(out));
    rmdir(dir);
}

/* Hostile inputs (QA of issue 21): each a clear message, exit 2 (input) or 1 (usage), and
 * nothing written; a role map is never the output. */
Test(cli_retarget, hostile_inputs_write_nothing)
{
    paths();
    const char *dir = mb_test_scratch("retarget_hostile");
    char out[512], trunc[512], one[512], map[512], nodir[512];
    snprintf(out, sizeof out, "%s/out.bvh", dir);
    snprintf(trunc, sizeof trunc, "%s/trunc.bvh", dir);
    snprintf(one, sizeof one, "%s/one.bvh", dir);
    snprintf(map, sizeof map, "%s/map.bvh", dir);
    snprintf(nodir, sizeof nodir, "%s/missing/out.bvh", dir);
    char *walk = mb_test_slurp(cmu_walk, NULL);
    walk[2500] = '\0'; /* inside the hierarchy */
    write_text(trunc, walk);
    free(walk);
    write_text(one, "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition "
                    "Zposition Zrotation Xrotation Yrotation\n End Site\n {\n OFFSET 0 1 0\n }\n"
                    "}\nMOTION\nFrames: 2\nFrame Time: 0.03\n0 0 0 0 0 0\n1 0 0 0 0 0\n");
    write_text(map, "neck Neck1\n");
    mb_test_run r = RUN("retarget", trunc, "--to", bandai_walk, "-o", out);
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "file ends inside joint"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("retarget", cmu_walk, "--to", one, "-o", out); /* one joint: roles missing */
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "no joint for the roles chest, upper_leg_l"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("retarget", cmu_walk, "--to", dir, "-o", out);
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "it is a directory"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("retarget", cmu_walk, "--to", bandai_walk, "-o", nodir);
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "No such file or directory"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("retarget", cmu_walk, "--to", bandai_walk, "-o", out, "--bogus");
    cr_expect_eq(r.code, 1);
    cr_expect(strstr(r.err, "unknown option '--bogus'"), "%s", r.err);
    mb_test_run_free(&r);
    /* -o naming a role map (here one named .bvh): refused, the map kept */
    r = RUN("retarget", cmu_walk, "--to", bandai_walk, "--map-src", map, "-o", map);
    cr_expect_eq(r.code, 1, "%s", r.err);
    cr_expect(strstr(r.err, "would replace it"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("retarget", cmu_walk, "--to", bandai_walk, "--map-to", map, "-o", map);
    cr_expect_eq(r.code, 1, "%s", r.err);
    mb_test_run_free(&r);
    char *kept = mb_test_slurp(map, NULL);
    cr_expect_str_eq(kept, "neck Neck1\n");
    free(kept);
    /* blend and transition --to a skeleton that cannot be a target */
    r = RUN("blend", cmu_walk, cmu_run, "--to", one, "-o", out);
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "no joint for the roles chest"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("transition", cmu_walk, cmu_run, "--at", "auto", "--duration", "0.5", "--to", dir,
              "-o", out);
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "it is a directory"), "%s", r.err);
    mb_test_run_free(&r);
    cr_expect(!exists(out) && !exists(nodir), "nothing written");
}

/* Local rotation angle (radians) between two frames of a joint. */
static double step(const mb_clip *c, int nj, int f, int g, int j)
{
    const float *r = mb_clip_rotations(c);
    return mb_quat_angle_between(r + 4 * ((size_t)f * nj + j), r + 4 * ((size_t)g * nj + j));
}

/* The cycle of input `name` as the blend printed it ("name: cycle frames A:B (T s)"). */
static mb_frame_range printed_cycle(const char *err, const char *name, double *seconds)
{
    char key[4200];
    snprintf(key, sizeof key, "%s: cycle frames ", name);
    const char *p = strstr(err, key);
    cr_assert_not_null(p, "%s", err);
    mb_frame_range r;
    cr_assert_eq(sscanf(p + strlen(key), "%d:%d (%lf s)", &r.start, &r.end, seconds), 3);
    return r;
}

/* The step from a cycle's last frame into its first. */
static double seam(const mb_clip *c, int nj, mb_frame_range r, int j)
{
    return step(c, nj, r.end - 1, r.start, j);
}

/* A CMU run and a Bandai walk, through --to, blend into one cycle on Bandai's skeleton that
 * loops (its last frame runs on into its first as smoothly as the inputs' cycles do: real
 * captures are not periodic, CMU's run turns its forearm 6 times its largest step there)
 * and travels between the walk's speed and the retargeted run's. */
Test(cli_retarget, blend_cmu_run_and_bandai_walk_to_bandai)
{
    paths();
    const char *dir = mb_test_scratch("retarget");
    char out[512], run_b[512];
    snprintf(out, sizeof out, "%s/jog.bvh", dir);
    snprintf(run_b, sizeof run_b, "%s/run_b.bvh", dir);
    mb_test_run r = RUN("blend", cmu_run, bandai_walk, "--to", bandai_walk, "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    cr_expect(strstr(r.err, "cmu_09_01_run.bvh retargeted onto the skeleton of"), "%s", r.err);
    double tr, tw;
    mb_frame_range cyc_r = printed_cycle(r.err, cmu_run, &tr);
    mb_frame_range cyc_w = printed_cycle(r.err, bandai_walk, &tw);
    mb_test_run_free(&r);
    r = RUN("retarget", cmu_run, "--to", bandai_walk, "-o", run_b);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    mb_test_run_free(&r);
    mb_skeleton *s, *sr, *sw;
    mb_clip *c, *cr, *cw;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(run_b, NULL, &sr, &cr, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(bandai_walk, NULL, &sw, &cw, &e), MB_OK, "%s", e.text);
    cr_assert(mb_skeleton_same_topology(s, sw, NULL));
    mb_motion_info mi, mr, mw;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "jog", &mi, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_motion_analyze(sr, cr, NULL, "run", &mr, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_motion_analyze(sw, cw, NULL, "walk", &mw, &e), MB_OK, "%s", e.text);
    cr_expect(mi.speed > 1.2 * mw.speed && mi.speed < 0.9 * mr.speed, "speed %g between %g and %g",
              mi.speed, mw.speed, mr.speed);
    /* the loop: from the last frame to the first no joint turns more than twice its
     * largest step inside the cycle or than it does at the seams of the inputs' cycles
     * (the root aside: its heading is integrated) */
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c), hips = mb_skeleton_find(s, "Hips");
    /* one cycle of the mean cycle length (equal weights), at the first input's frame time */
    double want = 0.5 * (tr + tw) / mb_clip_frame_time(cr);
    cr_expect(fabs(nf - want) <= 1.0, "%d frames for a cycle of %g", nf, want);
    mb_frame_range all = {0, nf};
    double seams = 0.0, steps = 0.0;
    for (int j = hips + 1; j < nj; ++j) {
        double big = 0.0;
        for (int f = 1; f < nf; ++f) {
            big = fmax(big, step(c, nj, f - 1, f, j));
            steps += step(c, nj, f - 1, f, j) / (nf - 1);
        }
        seams += seam(c, nj, all, j);
        double in_seam = fmax(seam(cr, nj, cyc_r, j), seam(cw, nj, cyc_w, j));
        cr_expect(seam(c, nj, all, j) <= fmax(2.0 * big, in_seam) + 1e-3,
                  "%s: seam %g rad, largest step %g, the inputs' seams %g",
                  mb_skeleton_name(s, j), seam(c, nj, all, j), big, in_seam);
    }
    /* and the last frame does not repeat the first (frame END continues START) */
    cr_expect(seams > 0.3 * steps, "seams %g against mean steps %g", seams, steps);
    mb_clip_destroy(c);
    mb_clip_destroy(cr);
    mb_clip_destroy(cw);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(sr);
    mb_skeleton_destroy(sw);
    remove(out);
    remove(run_b);
    rmdir(dir);
}

Test(cli_retarget, transition_to_cmu)
{
    paths();
    const char *dir = mb_test_scratch("retarget");
    char out[512];
    snprintf(out, sizeof out, "%s/t.bvh", dir);
    mb_test_run r = RUN("transition", cmu_run, bandai_walk, "--at", "auto", "--duration", "0.4",
                        "--to", cmu_run, "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    cr_expect(strstr(r.err, "foot skate ratio"), "%s", r.err);
    mb_test_run_free(&r);
    mb_skeleton *s, *t;
    mb_clip *c, *tc;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(cmu_run, NULL, &t, &tc, &e), MB_OK, "%s", e.text);
    cr_expect(mb_skeleton_same_topology(s, t, NULL));
    cr_expect_gt(mb_clip_frame_count(c), 200);
    mb_clip_destroy(c);
    mb_clip_destroy(tc);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(t);
    remove(out);
    rmdir(dir);
}

/* How often needle occurs in text. */
static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        ++n;
    return n;
}

/* Without --to, blend retargets the inputs of other skeletons onto the first input's and
 * says so in one line; the first input decides the skeleton; the blend travels between
 * the run's speed and the retargeted walk's. */
Test(cli_retarget, blend_without_to_takes_the_first_inputs_skeleton)
{
    paths();
    const char *dir = mb_test_scratch("retarget");
    char out[512], out2[512], walk_c[512], line[13000];
    snprintf(out, sizeof out, "%s/jog.bvh", dir);
    snprintf(out2, sizeof out2, "%s/jog_b.bvh", dir);
    snprintf(walk_c, sizeof walk_c, "%s/walk_c.bvh", dir);
    mb_test_run r = RUN("blend", cmu_run, bandai_walk, "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    snprintf(line, sizeof line, "mblend blend: %s retargeted onto the skeleton of %s (the first "
             "input's; --to FILE picks another)\n", bandai_walk, cmu_run);
    cr_expect(strstr(r.err, line), "%s", r.err);
    cr_expect_eq(count(r.err, "retargeted"), 1, "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("retarget", bandai_walk, "--to", cmu_run, "-o", walk_c);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    mb_test_run_free(&r);
    mb_skeleton *s, *sr, *sw;
    mb_clip *c, *cr, *cw;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(cmu_run, NULL, &sr, &cr, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(walk_c, NULL, &sw, &cw, &e), MB_OK, "%s", e.text);
    cr_assert(mb_skeleton_same_topology(s, sr, NULL));
    for (int j = 1; j < mb_skeleton_joint_count(s); ++j) /* CMU's bones */
        for (int k = 0; k < 3; ++k)
            cr_expect(fabsf(mb_skeleton_offset(s, j)[k] - mb_skeleton_offset(sr, j)[k]) < 1e-4f,
                      "joint %d", j);
    mb_motion_info mi, mr, mw;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "jog", &mi, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_motion_analyze(sr, cr, NULL, "run", &mr, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_motion_analyze(sw, cw, NULL, "walk", &mw, &e), MB_OK, "%s", e.text);
    cr_expect(mi.speed > 1.1 * mw.speed && mi.speed < 0.9 * mr.speed, "speed %g between %g and %g",
              mi.speed, mw.speed, mr.speed);
    /* two inputs retargeted: still one line, naming both */
    char bandai_run[4096];
    snprintf(bandai_run, sizeof bandai_run, "%s", mb_shared_path("bvh/bandai2_run_normal_001.bvh"));
    r = RUN("blend", cmu_run, bandai_walk, bandai_run, "-o", out2);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    snprintf(line, sizeof line, "mblend blend: %s, %s retargeted onto the skeleton of %s (the "
             "first input's; --to FILE picks another)\n", bandai_walk, bandai_run, cmu_run);
    cr_expect(strstr(r.err, line), "%s", r.err);
    cr_expect_eq(count(r.err, "retargeted"), 1, "%s", r.err);
    mb_test_run_free(&r);
    /* the other order: Bandai's skeleton */
    r = RUN("blend", bandai_walk, cmu_run, "-o", out2);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    cr_expect(strstr(r.err, "cmu_09_01_run.bvh retargeted onto the skeleton of"), "%s", r.err);
    mb_test_run_free(&r);
    mb_skeleton *s2, *sb;
    mb_clip *c2, *cb;
    cr_assert_eq(mb_bvh_read_file(out2, NULL, &s2, &c2, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(bandai_walk, NULL, &sb, &cb, &e), MB_OK, "%s", e.text);
    cr_expect(mb_skeleton_same_topology(s2, sb, NULL));
    mb_clip_destroy(c);
    mb_clip_destroy(cr);
    mb_clip_destroy(cw);
    mb_clip_destroy(c2);
    mb_clip_destroy(cb);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(sr);
    mb_skeleton_destroy(sw);
    mb_skeleton_destroy(s2);
    mb_skeleton_destroy(sb);
    mb_test_remove_dir(dir);
}

/* Without --to, transition retargets B onto A's skeleton: the same file as --to A; a B
 * without the roles retargeting needs fails naming them and writes nothing. */
Test(cli_retarget, transition_without_to_takes_the_skeleton_of_a)
{
    paths();
    const char *dir = mb_test_scratch("retarget");
    char out[512], out_to[512], noroles[4096], line[9000];
    snprintf(out, sizeof out, "%s/t.bvh", dir);
    snprintf(out_to, sizeof out_to, "%s/t_to.bvh", dir);
    snprintf(noroles, sizeof noroles, "%s", mb_shared_path("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh"));
    mb_test_run r = RUN("transition", cmu_run, bandai_walk, "--at", "auto", "--duration", "0.4",
                        "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    snprintf(line, sizeof line, "mblend transition: %s retargeted onto the skeleton of %s (the "
             "first input's; --to FILE picks another)\n", bandai_walk, cmu_run);
    cr_expect(strstr(r.err, line), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("transition", cmu_run, bandai_walk, "--at", "auto", "--duration", "0.4", "--to",
            cmu_run, "-o", out_to);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    mb_test_run_free(&r);
    size_t na, nb;
    char *a = mb_test_slurp(out, &na), *b = mb_test_slurp(out_to, &nb);
    cr_assert(a && b);
    cr_expect(na == nb && memcmp(a, b, na) == 0, "the default is not --to A");
    free(a);
    free(b);
    remove(out);
    r = RUN("transition", cmu_run, noroles, "--at", "auto", "--duration", "0.4", "-o", out);
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "no joint for the roles hips, chest") && strstr(r.err, "forearm_r") &&
              strstr(r.err, "cannot retarget"), "%s", r.err);
    mb_test_run_free(&r);
    cr_expect(!exists(out));
    mb_test_remove_dir(dir);
}

/* --sync onto CesiumMan, whose feet no name gives (leg_joint_L_3): the transition finds them
 * by their roles and runs in phase; the report's foot heights are those of CesiumMan's
 * ankles (leg_joint_L_3, leg_joint_R_3, by hand from the file), recomputed here from the
 * written clip. */
Test(cli_retarget, transition_to_cesium_man_in_phase)
{
    paths();
    mb_test_need_assimp();
    const char *dir = mb_test_scratch("retarget");
    char out[512], rep[512];
    snprintf(out, sizeof out, "%s/t.bvh", dir);
    snprintf(rep, sizeof rep, "%s/t.csv", dir);
    mb_test_run r = RUN("transition", cmu_walk, cmu_run, "--to", cesium, "--at", "auto",
                        "--duration", "0.4", "--sync", "--report", rep, "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    cr_expect(strstr(r.err, " in phase"), "%s", r.err);
    mb_test_run_free(&r);
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    int feet[2] = {mb_skeleton_find(s, "leg_joint_L_3"), mb_skeleton_find(s, "leg_joint_R_3")};
    cr_assert(feet[0] >= 0 && feet[1] >= 0);
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    float(*w)[16] = malloc((size_t)nj * sizeof *w);
    char *text = mb_test_slurp(rep, NULL);
    cr_assert(pose && w && text);
    int checked = 0;
    for (const char *p = strchr(text, '\n') + 1; *p && *p != '#'; p = strchr(p, '\n') + 1) {
        int k;
        char part[16];
        double v[6], h[2];
        cr_assert_eq(sscanf(p, "%d,%lf,%lf,%lf,%lf,%lf,%15[^,],%lf,%lf,%lf,%lf,%lf,%lf", &k, &v[0],
                            &v[1], &v[2], &v[3], &v[4], part, &v[0], &v[1], &v[2], &v[3], &h[0],
                            &h[1]), 13, "%.80s", p);
        if (k % 10 != 0)
            continue;
        cr_assert_lt(k, nf);
        mb_pose mp = {pose, nj};
        cr_assert_eq(mb_clip_frame_pose(s, c, k, mp), MB_OK);
        cr_assert_eq(mb_fk(s, &mp, w, nj), MB_OK);
        for (int side = 0; side < 2; ++side) /* CesiumMan is Y-up */
            cr_expect(fabs(h[side] - w[feet[side]][13]) < 1e-3, "frame %d side %d: %g vs %g", k,
                      side, h[side], (double)w[feet[side]][13]);
        ++checked;
    }
    cr_expect_gt(checked, 20);
    free(text);
    free(pose);
    free(w);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    mb_test_remove_dir(dir);
}

/* CesiumMan's walk loops by running on into its first frame, so its selected gait cycle ends
 * at the frame count (0:49 of 49 frames); as A of a synced transition that cycle only times
 * the phase, and must be accepted (it was refused: "cycle 0:49 does not fit 49 frames"). */
Test(cli_retarget, transition_from_a_run_on_loop_in_phase)
{
    paths();
    mb_test_need_assimp();
    const char *dir = mb_test_scratch("retarget");
    char out[512];
    snprintf(out, sizeof out, "%s/cesium_to_walk.bvh", dir);
    mb_test_run r = RUN("transition", cesium, cmu_walk, "--at", "auto", "--duration", "0.3",
                        "--sync", "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    cr_expect(strstr(r.err, " in phase"), "%s", r.err);
    cr_expect(strstr(r.err, "retargeted onto the skeleton of"), "%s", r.err);
    mb_test_run_free(&r);
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    cr_expect_geq(mb_skeleton_find(s, "leg_joint_L_3"), 0); /* CesiumMan's skeleton */
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}
