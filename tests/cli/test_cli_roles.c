/* mblend roles and mblend mirror: output, --map, errors (nothing written on bad input). */
#include <math.h>
#include <sys/stat.h>

#include "test_cli_util.h"

/* The line of joint name in `mblend roles` output ("index  name  role  how"), or NULL. */
static const char *joint_line(const char *out, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = out; (p = strstr(p, name)); p += n)
        if (p[-1] == ' ' && p[n] == ' ')
            return p;
    return NULL;
}

/* The role and how printed for a joint must be want_role / want_how ("" for none). */
static void expect_line(const char *out, const char *name, const char *want_role,
                        const char *want_how)
{
    const char *p = joint_line(out, name);
    cr_assert_not_null(p, "no line for %s in:\n%s", name, out);
    char role[32] = "", how[32] = "", joint[160];
    int got = sscanf(p, "%159s %31s %31s", joint, role, how);
    cr_assert_geq(got, 2);
    cr_assert_str_eq(role, want_role, "%s: role %s", name, role);
    if (got == 3 && strcmp(role, "-") != 0)
        cr_assert_str_eq(how, want_how, "%s: found by %s", name, how);
}

Test(cli_roles, cmu_names_and_nothing_missing)
{
    need_cli();
    mb_test_run r = mb_test_run_cli((const char *const[]){
        "roles", mb_shared_path("bvh/cmu_02_01_walk.bvh"), NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    expect_line(r.out, "Hips", "hips", "name");
    expect_line(r.out, "LowerBack", "spine", "name");
    expect_line(r.out, "Spine1", "chest", "name");
    expect_line(r.out, "LeftForeArm", "forearm_l", "name");
    expect_line(r.out, "RightToeBase", "toes_r", "name");
    expect_line(r.out, "LHipJoint", "-", "");
    expect_line(r.out, "Neck1", "-", "");
    cr_assert_null(strstr(r.out, "Head_End"), "End Sites are not listed");
    cr_assert(strstr(r.out, "31 joints (and 7 End Sites)"), "%s", r.out);
    cr_assert(strstr(r.out, "missing roles: none\n"), "%s", r.out);
    mb_test_run_free(&r);
}

Test(cli_roles, gltf_topology_and_missing)
{
    need_cli();
    mb_test_need_assimp();
    mb_test_run r = mb_test_run_cli((const char *const[]){
        "roles", mb_shared_path("mesh/CesiumMan.glb"), NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    expect_line(r.out, "Skeleton_torso_joint_1", "hips", "topology");
    expect_line(r.out, "leg_joint_L_3", "foot_l", "topology");
    expect_line(r.out, "Skeleton_arm_joint_R__3_", "hand_r", "topology");
    cr_assert(strstr(r.out, "missing roles: shoulder_l, shoulder_r\n"), "%s", r.out);
    mb_test_run_free(&r);
}

Test(cli_roles, map_overrides_and_errors)
{
    need_cli();
    const char *dir = mb_test_scratch("roles");
    char map[256], bad[256], unknown[256];
    snprintf(map, sizeof map, "%s/cmu.map", dir);
    snprintf(bad, sizeof bad, "%s/bad.map", dir);
    snprintf(unknown, sizeof unknown, "%s/unknown.map", dir);
    write_text(map, "# upper neck\nneck Neck1\nnone Neck\n");
    write_text(bad, "hips Hips\n  elbow_l LeftForeArm\n");
    write_text(unknown, "hips Hips\nhead Kopf\n");
    const char *cmu = mb_shared_path("bvh/cmu_02_01_walk.bvh");
    mb_test_run r = mb_test_run_cli((const char *const[]){"roles", "--map", map, cmu, NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    expect_line(r.out, "Neck1", "neck", "map");
    expect_line(r.out, "Neck", "-", "");
    mb_test_run_free(&r);

    r = mb_test_run_cli((const char *const[]){"roles", cmu, "--map", bad, NULL});
    cr_assert_eq(r.code, 2);
    char want[320];
    snprintf(want, sizeof want, "%s:2:3: unknown role \"elbow_l\"", bad);
    cr_assert(strstr(r.err, want), "%s", r.err);
    cr_assert_str_eq(r.out, "");
    mb_test_run_free(&r);

    r = mb_test_run_cli((const char *const[]){"roles", cmu, "--map", unknown, NULL});
    cr_assert_eq(r.code, 2);
    snprintf(want, sizeof want, "%s:2:6: the skeleton has no joint \"Kopf\"", unknown);
    cr_assert(strstr(r.err, want), "%s", r.err);
    mb_test_run_free(&r);

    /* usage errors: no file, two files, --map twice, a missing map file */
    cr_assert_eq(RUN_TO(NULL, "roles"), 1);
    cr_assert_eq(RUN_TO(NULL, "roles", cmu, cmu), 1);
    cr_assert_eq(RUN_TO(NULL, "roles", "--map", map, "--map", map, cmu), 1);
    cr_assert_eq(RUN_TO(NULL, "roles", "--map", "/nonexistent/m.map", cmu), 2);
    cr_assert_eq(RUN_TO(NULL, "roles", "/nonexistent/x.bvh"), 2);
    r = mb_test_run_cli((const char *const[]){"roles", "--help", NULL});
    cr_assert_eq(r.code, 0);
    cr_assert(strncmp(r.out, "usage: mblend roles", 19) == 0);
    mb_test_run_free(&r);
    mb_test_remove_dir(dir);
}

/* ---------- mblend mirror ---------- */

/* World positions of every joint of every frame of a BVH file ([f][j][3], doubles). */
static double *bvh_world(const char *path, int *joints, int *frames, double *height)
{
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(path, NULL, &s, &c, &e), MB_OK, "%s: %s", path, e.text);
    mb_motion_info info;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, path, &info, &e), MB_OK);
    int n = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    double *out = malloc(sizeof *out * 3 * (size_t)n * (size_t)nf);
    mb_xform *x = malloc(sizeof *x * (size_t)n);
    float(*w)[16] = malloc(sizeof *w * (size_t)n);
    mb_pose p = {x, n};
    for (int f = 0; f < nf; ++f) {
        cr_assert_eq(mb_clip_frame_pose(s, c, f, p), MB_OK);
        cr_assert_eq(mb_fk(s, &p, w, n), MB_OK);
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < 3; ++k)
                out[((size_t)f * n + j) * 3 + k] = w[j][12 + k];
    }
    *joints = n, *frames = nf, *height = info.height;
    free(x);
    free(w);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    return out;
}

/* Mirrored twice through the CLI (BVH text in between), the walk comes back: every joint
 * within 1e-4 x height of where it was; once, it does not. */
Test(cli_mirror, twice_gives_the_walk_back)
{
    need_cli();
    const char *dir = mb_test_scratch("mirror");
    char once[256], twice[256];
    snprintf(once, sizeof once, "%s/once.bvh", dir);
    snprintf(twice, sizeof twice, "%s/twice.bvh", dir);
    char in[4200];
    snprintf(in, sizeof in, "%s", mb_shared_path("bvh/cmu_02_01_walk.bvh"));
    mb_test_run r = mb_test_run_cli((const char *const[]){"mirror", in, "-o", once, NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.out, "relative to the rest pose; 15 joint pairs swapped"), "%s", r.out);
    mb_test_run_free(&r);
    cr_assert_eq(RUN_TO(NULL, "mirror", once, "-o", twice), 0);
    int n, nf, n2, nf2;
    double h, h2;
    double *a = bvh_world(in, &n, &nf, &h), *b = bvh_world(twice, &n2, &nf2, &h2);
    double *m = bvh_world(once, &n2, &nf2, &h2);
    cr_assert_eq(n2, n);
    cr_assert_eq(nf2, nf);
    double worst = 0, moved = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)nf * 3; i += 3) {
        double d = 0, e = 0;
        for (int k = 0; k < 3; ++k)
            d += (a[i + k] - b[i + k]) * (a[i + k] - b[i + k]),
            e += (a[i + k] - m[i + k]) * (a[i + k] - m[i + k]);
        worst = fmax(worst, sqrt(d));
        moved = fmax(moved, sqrt(e));
    }
    cr_assert_lt(worst, 1e-4 * h, "twice: a joint is %g off (height %g)", worst, h);
    cr_assert_gt(moved, 0.1 * h, "once: the walk is mirrored, not copied");
    free(a);
    free(b);
    free(m);
    mb_test_remove_dir(dir);
}

Test(cli_mirror, gltf_out)
{
    need_cli();
    mb_test_need_assimp();
    const char *dir = mb_test_scratch("mirror_glb");
    char out[256], in[4200];
    snprintf(out, sizeof out, "%s/fox.glb", dir);
    snprintf(in, sizeof in, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    mb_test_run r = mb_test_run_cli((const char *const[]){"mirror", in, "-o", out, NULL});
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.out, "relative to the bind pose"), "%s", r.out);
    mb_test_run_free(&r);
    mb_scene *sc = NULL;
    mb_error e;
    cr_assert_eq(mb_scene_read_file(out, NULL, &sc, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_scene_clip_count(sc), 1);
    cr_assert_not_null(mb_scene_mesh(sc));
    mb_scene_destroy(sc);
    mb_test_remove_dir(dir);
}

/* Bad input: exit 2 with a message naming the missing roles, nothing written and an
 * existing output left alone; command-line mistakes exit 1. */
Test(cli_mirror, bad_input_writes_nothing)
{
    need_cli();
    const char *dir = mb_test_scratch("mirror_bad");
    char out[256], fresh[256], map[256], in[4200], cmu[4200];
    snprintf(out, sizeof out, "%s/keep.bvh", dir);
    snprintf(fresh, sizeof fresh, "%s/fresh.bvh", dir);
    snprintf(map, sizeof map, "%s/bad.map", dir);
    snprintf(in, sizeof in, "%s", mb_shared_path("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh"));
    snprintf(cmu, sizeof cmu, "%s", mb_shared_path("bvh/cmu_02_01_walk.bvh"));
    write_text(out, "keep me\n");
    mb_test_run r = mb_test_run_cli((const char *const[]){"mirror", in, "-o", out, NULL});
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "no joint for the roles hips, upper_leg_l, upper_leg_r"), "%s", r.err);
    mb_test_run_free(&r);
    char *kept = mb_test_slurp(out, NULL);
    cr_assert_str_eq(kept, "keep me\n");
    free(kept);
    cr_assert_eq(RUN_TO(NULL, "mirror", in, "-o", fresh), 2);
    struct stat st;
    cr_assert_neq(stat(fresh, &st), 0, "nothing written");
    write_text(map, "hips Hips\nhand_q LeftHand\n");
    r = mb_test_run_cli((const char *const[]){"mirror", cmu, "--map", map, "-o", fresh, NULL});
    cr_assert_eq(r.code, 2);
    char want[300];
    snprintf(want, sizeof want, "%s:2:1: unknown role", map);
    cr_assert(strstr(r.err, want), "%s", r.err);
    mb_test_run_free(&r);
    cr_assert_neq(stat(fresh, &st), 0, "nothing written");
    write_text(map, "# the right hand is no hand\nnone RightHand\n"); /* --map is applied */
    r = mb_test_run_cli((const char *const[]){"mirror", cmu, "--map", map, "-o", fresh, NULL});
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "no joint for the role hand_r "), "%s", r.err);
    mb_test_run_free(&r);
    cr_assert_neq(stat(fresh, &st), 0, "nothing written");
    cr_assert_eq(RUN_TO(NULL, "mirror", cmu), 1);                 /* no -o */
    cr_assert_eq(RUN_TO(NULL, "mirror", "-o", fresh), 1);         /* no input */
    cr_assert_eq(RUN_TO(NULL, "mirror", cmu, "-o", cmu), 1);      /* over its input */
    cr_assert_eq(RUN_TO(NULL, "mirror", cmu, cmu, "-o", fresh), 1);
    cr_assert_eq(RUN_TO(NULL, "mirror", cmu, "--up", "w", "-o", fresh), 1);
    cr_assert_eq(RUN_TO(NULL, "mirror", "/nonexistent/x.bvh", "-o", fresh), 2);
    cr_assert_neq(stat(fresh, &st), 0, "nothing written");
    r = mb_test_run_cli((const char *const[]){"mirror", "--help", NULL});
    cr_assert_eq(r.code, 0);
    cr_assert(strncmp(r.out, "usage: mblend mirror", 20) == 0);
    mb_test_run_free(&r);
    mb_test_remove_dir(dir);
}

/* Hostile inputs (QA of issue 21): every one a clear message, exit 2 (input) or 1 (usage),
 * nothing written; a map given to mirror is never the output (it would be replaced). */
Test(cli_roles, hostile_inputs_write_nothing)
{
    need_cli();
    const char *dir = mb_test_scratch("roles_hostile");
    char empty[256], junk[256], one[256], map[256], fresh[256];
    snprintf(empty, sizeof empty, "%s/empty.bvh", dir);
    snprintf(junk, sizeof junk, "%s/junk.bvh", dir);
    snprintf(one, sizeof one, "%s/one.bvh", dir);
    snprintf(map, sizeof map, "%s/keep.bvh", dir); /* a map file that -o could name */
    snprintf(fresh, sizeof fresh, "%s/fresh.bvh", dir);
    const char *cmu = mb_shared_path("bvh/cmu_02_01_walk.bvh");
    write_text(empty, "");
    write_text(junk, "\x7f" "ELF\x01\x02\x03 binary junk\n");
    write_text(one, "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition "
                    "Zposition Zrotation Xrotation Yrotation\n End Site\n {\n OFFSET 0 1 0\n }\n"
                    "}\nMOTION\nFrames: 2\nFrame Time: 0.03\n0 0 0 0 0 0\n1 0 0 0 0 0\n");
    write_text(map, "neck Neck1\n");
    struct { const char *file, *want; } bad[] = {
        {empty, "empty file"}, {junk, "binary data"}, {dir, "it is a directory"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        mb_test_run r = mb_test_run_cli((const char *const[]){"roles", bad[i].file, NULL});
        cr_expect_eq(r.code, 2, "%s", bad[i].file);
        cr_expect(strstr(r.err, bad[i].want), "%s", r.err);
        mb_test_run_free(&r);
        r = mb_test_run_cli((const char *const[]){"mirror", bad[i].file, "-o", fresh, NULL});
        cr_expect_eq(r.code, 2, "%s", bad[i].file);
        cr_expect(strstr(r.err, bad[i].want), "%s", r.err);
        mb_test_run_free(&r);
    }
    mb_test_run r = mb_test_run_cli((const char *const[]){"mirror", one, "-o", fresh, NULL});
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "no joint for the roles upper_leg_l, upper_leg_r"), "%s", r.err);
    mb_test_run_free(&r);
    /* a directory as the map: the reason, not a bare "read error" */
    r = mb_test_run_cli((const char *const[]){"roles", "--map", dir, cmu, NULL});
    cr_expect_eq(r.code, 2);
    cr_expect(strstr(r.err, "Is a directory"), "%s", r.err);
    mb_test_run_free(&r);
    /* -o naming the map: refused before anything is read or written, the map kept */
    r = mb_test_run_cli((const char *const[]){"mirror", cmu, "--map", map, "-o", map, NULL});
    cr_expect_eq(r.code, 1, "%s", r.err);
    cr_expect(strstr(r.err, "would replace it"), "%s", r.err);
    mb_test_run_free(&r);
    char *kept = mb_test_slurp(map, NULL);
    cr_expect_str_eq(kept, "neck Neck1\n");
    free(kept);
    struct stat st;
    cr_expect_neq(stat(fresh, &st), 0, "nothing written");
}

/* "file.glb#Anim" -o file.glb: the output would replace the glTF with all its animations;
 * the check must see the file behind the '#' (it compared the whole argument, which names
 * no file, and Fox.glb was overwritten). */
Test(cli_mirror, output_over_its_gltf_named_with_an_animation)
{
    need_cli();
    mb_test_need_assimp();
    const char *dir = mb_test_scratch("mirror_glb_in");
    char fox[256], arg[300];
    snprintf(fox, sizeof fox, "%s/fox.glb", dir);
    snprintf(arg, sizeof arg, "%s#Walk", fox);
    size_t n = 0;
    char *bytes = mb_test_slurp(mb_shared_path("mesh/Fox.glb"), &n);
    FILE *f = fopen(fox, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
    mb_test_run r = mb_test_run_cli((const char *const[]){"mirror", arg, "-o", fox, NULL});
    cr_expect_eq(r.code, 1, "%s", r.err);
    cr_expect(strstr(r.err, "would replace it (a glTF file with all its animations)"), "%s", r.err);
    mb_test_run_free(&r);
    size_t m = 0;
    char *kept = mb_test_slurp(fox, &m);
    cr_expect(m == n && memcmp(kept, bytes, n) == 0, "the input is unchanged");
    free(kept);
    free(bytes);
    remove(fox);
}
