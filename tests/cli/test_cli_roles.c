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
