/* Joint roles (offline/roles.h): every shared skeleton against a hand-checked table (each
 * table was written from the file's hierarchy: joint names, parents and rest offsets),
 * skeletons of other conventions built here, the role map (overrides, errors with
 * line:col), missing-role messages and the left/right pairs for mirroring. */
#include <errno.h>
#include <unistd.h>

#include "mblend/mblend.h"
#include "test_util.h"

/* One expected role: the joint's name and how it must have been found ('n' name,
 * 't' topology, 'm' map, 0 either). Joints of the skeleton not listed must have none. */
typedef struct expect {
    const char *role, *joint;
    char how;
} expect;

#define END_ {NULL, NULL, 0}

/* CMU (cgspeed MotionBuilder-friendly), also the Xia / deep-motion-editing rest skeleton:
 * LHipJoint and RHipJoint are the zero-length hip bones above the thighs, Neck1 the
 * upper neck (one joint per role: the lower one is the neck), the fingers have no role. */
static const expect cmu_[] = {
    {"hips", "Hips", 'n'},          {"upper_leg_l", "LeftUpLeg", 'n'},
    {"lower_leg_l", "LeftLeg", 'n'}, {"foot_l", "LeftFoot", 'n'},
    {"toes_l", "LeftToeBase", 'n'}, {"upper_leg_r", "RightUpLeg", 'n'},
    {"lower_leg_r", "RightLeg", 'n'}, {"foot_r", "RightFoot", 'n'},
    {"toes_r", "RightToeBase", 'n'}, {"spine", "LowerBack", 'n'},
    {"spine", "Spine", 'n'},        {"chest", "Spine1", 'n'},
    {"neck", "Neck", 'n'},          {"head", "Head", 'n'},
    {"shoulder_l", "LeftShoulder", 'n'}, {"upper_arm_l", "LeftArm", 'n'},
    {"forearm_l", "LeftForeArm", 'n'}, {"hand_l", "LeftHand", 'n'},
    {"shoulder_r", "RightShoulder", 'n'}, {"upper_arm_r", "RightArm", 'n'},
    {"forearm_r", "RightForeArm", 'n'}, {"hand_r", "RightHand", 'n'},
    END_};

/* CMU 131 (cgspeed 3dsMax-friendly): "LeftHip" is the thigh, "LeftShoulder" the upper arm
 * below "LeftCollar", "lowerneck" the neck below "Neck"; Chest2 is where the neck and the
 * collars hang. */
static const expect cmu131_[] = {
    {"hips", "Hips", 'n'},           {"upper_leg_l", "LeftHip", 'n'},
    {"lower_leg_l", "LeftKnee", 'n'}, {"foot_l", "LeftAnkle", 'n'},
    {"toes_l", "LeftToe", 'n'},      {"upper_leg_r", "RightHip", 'n'},
    {"lower_leg_r", "RightKnee", 'n'}, {"foot_r", "RightAnkle", 'n'},
    {"toes_r", "RightToe", 'n'},     {"spine", "lowerback", 'n'},
    {"spine", "Chest", 'n'},         {"chest", "Chest2", 'n'},
    {"neck", "lowerneck", 'n'},      {"head", "Head", 'n'},
    {"shoulder_l", "LeftCollar", 'n'}, {"upper_arm_l", "LeftShoulder", 'n'},
    {"forearm_l", "LeftElbow", 'n'}, {"hand_l", "LeftWrist", 'n'},
    {"shoulder_r", "RightCollar", 'n'}, {"upper_arm_r", "RightShoulder", 'n'},
    {"forearm_r", "RightElbow", 'n'}, {"hand_r", "RightWrist", 'n'},
    END_};

/* Bandai-Namco datasets 1 and 2: joint_Root is a static dummy above Hips. */
static const expect bandai_[] = {
    {"hips", "Hips", 'n'},             {"spine", "Spine", 'n'},
    {"chest", "Chest", 'n'},           {"neck", "Neck", 'n'},
    {"head", "Head", 'n'},             {"shoulder_l", "Shoulder_L", 'n'},
    {"upper_arm_l", "UpperArm_L", 'n'}, {"forearm_l", "LowerArm_L", 'n'},
    {"hand_l", "Hand_L", 'n'},         {"shoulder_r", "Shoulder_R", 'n'},
    {"upper_arm_r", "UpperArm_R", 'n'}, {"forearm_r", "LowerArm_R", 'n'},
    {"hand_r", "Hand_R", 'n'},         {"upper_leg_l", "UpperLeg_L", 'n'},
    {"lower_leg_l", "LowerLeg_L", 'n'}, {"foot_l", "Foot_L", 'n'},
    {"toes_l", "Toes_L", 'n'},         {"upper_leg_r", "UpperLeg_R", 'n'},
    {"lower_leg_r", "LowerLeg_R", 'n'}, {"foot_r", "Foot_R", 'n'},
    {"toes_r", "Toes_R", 'n'},         END_};

/* AnimatedDrawings fair1 (Mixamo-like names, Z up): Spine3 holds the neck and shoulders;
 * the *HandEnd and thumb joints have no role. */
static const expect animdraw_[] = {
    {"hips", "Hips", 'n'},          {"spine", "Spine", 'n'},
    {"spine", "Spine1", 'n'},       {"spine", "Spine2", 'n'},
    {"chest", "Spine3", 'n'},       {"neck", "Neck", 'n'},
    {"head", "Head", 'n'},          {"shoulder_r", "RightShoulder", 'n'},
    {"upper_arm_r", "RightArm", 'n'}, {"forearm_r", "RightForeArm", 'n'},
    {"hand_r", "RightHand", 'n'},   {"shoulder_l", "LeftShoulder", 'n'},
    {"upper_arm_l", "LeftArm", 'n'}, {"forearm_l", "LeftForeArm", 'n'},
    {"hand_l", "LeftHand", 'n'},    {"upper_leg_r", "RightUpLeg", 'n'},
    {"lower_leg_r", "RightLeg", 'n'}, {"foot_r", "RightFoot", 'n'},
    {"toes_r", "RightToeBase", 'n'}, {"upper_leg_l", "LeftUpLeg", 'n'},
    {"lower_leg_l", "LeftLeg", 'n'}, {"foot_l", "LeftFoot", 'n'},
    {"toes_l", "LeftToeBase", 'n'}, END_};

/* PyMO walk: one "Spine" joint holds the head and both shoulders, so it is the chest;
 * there is no spine between it and the hips, and no neck. */
static const expect pymo_[] = {
    {"hips", "Hips", 'n'},          {"chest", "Spine", 'n'},
    {"head", "Head", 'n'},          {"shoulder_l", "LeftShoulder", 'n'},
    {"upper_arm_l", "LeftArm", 'n'}, {"forearm_l", "LeftForeArm", 'n'},
    {"hand_l", "LeftHand", 'n'},    {"shoulder_r", "RightShoulder", 'n'},
    {"upper_arm_r", "RightArm", 'n'}, {"forearm_r", "RightForeArm", 'n'},
    {"hand_r", "RightHand", 'n'},   {"upper_leg_l", "LeftUpLeg", 'n'},
    {"lower_leg_l", "LeftLeg", 'n'}, {"foot_l", "LeftFoot", 'n'},
    {"toes_l", "LeftToeBase", 'n'}, {"upper_leg_r", "RightUpLeg", 'n'},
    {"lower_leg_r", "RightLeg", 'n'}, {"foot_r", "RightFoot", 'n'},
    {"toes_r", "RightToeBase", 'n'}, END_};

/* No humanoid: a 4-joint chain and a 3-joint arm without sides. */
static const expect nothing_[] = {END_};

/* CesiumMan: names say only torso / neck / arm / leg and the side; the tree says the rest.
 * Checked against the rest positions (mblend positions --frame 0): torso_joint_1 at hip
 * height holds both legs and the spine; the arm chains start at the shoulder (0.09 from
 * the chest's axis) and end at the wrist; leg_joint_*_3 is the ankle, *_5 the toe. */
static const expect cesium_[] = {
    {"hips", "Skeleton_torso_joint_1", 't'},  {"spine", "Skeleton_torso_joint_2", 'n'},
    {"chest", "torso_joint_3", 'n'},          {"neck", "Skeleton_neck_joint_1", 'n'},
    {"head", "Skeleton_neck_joint_2", 't'},   {"upper_arm_l", "Skeleton_arm_joint_L__4_", 'n'},
    {"forearm_l", "Skeleton_arm_joint_L__3_", 't'}, {"hand_l", "Skeleton_arm_joint_L__2_", 't'},
    {"upper_arm_r", "Skeleton_arm_joint_R", 'n'}, {"forearm_r", "Skeleton_arm_joint_R__2_", 't'},
    {"hand_r", "Skeleton_arm_joint_R__3_", 't'}, {"upper_leg_l", "leg_joint_L_1", 't'},
    {"lower_leg_l", "leg_joint_L_2", 'n'},    {"foot_l", "leg_joint_L_3", 't'},
    {"toes_l", "leg_joint_L_5", 't'},         {"upper_leg_r", "leg_joint_R_1", 't'},
    {"lower_leg_r", "leg_joint_R_2", 'n'},    {"foot_r", "leg_joint_R_3", 't'},
    {"toes_r", "leg_joint_R_5", 't'},         END_};

/* Fox: "b_" prefixes; Leg01/Leg02 and Foot01/Foot02 chains take the leg's roles in order;
 * the front legs are named arms; the tail has no role. */
static const expect fox_[] = {
    {"hips", "b_Hip_01", 'n'},               {"spine", "b_Spine01_02", 'n'},
    {"chest", "b_Spine02_03", 'n'},          {"neck", "b_Neck_04", 'n'},
    {"head", "b_Head_05", 'n'},              {"upper_arm_r", "b_RightUpperArm_06", 'n'},
    {"forearm_r", "b_RightForeArm_07", 'n'}, {"hand_r", "b_RightHand_08", 'n'},
    {"upper_arm_l", "b_LeftUpperArm_09", 'n'}, {"forearm_l", "b_LeftForeArm_010", 'n'},
    {"hand_l", "b_LeftHand_011", 'n'},       {"upper_leg_l", "b_LeftLeg01_015", 't'},
    {"lower_leg_l", "b_LeftLeg02_016", 'n'}, {"foot_l", "b_LeftFoot01_017", 'n'},
    {"toes_l", "b_LeftFoot02_018", 't'},     {"upper_leg_r", "b_RightLeg01_019", 't'},
    {"lower_leg_r", "b_RightLeg02_020", 'n'}, {"foot_r", "b_RightFoot01_021", 'n'},
    {"toes_r", "b_RightFoot02_022", 't'},    END_};

/* BCN_Epileptic.X ("B_" prefix, side words last): no joint is named hips; the pelvis
 * joint both thighs and the spine hang from is (B_LowerPelvis holds only the thighs), and
 * B_Root_Pelvis_T between it and B_Spine1 is spine. The root-level "Head" node is not below
 * the hips: no head. */
static const expect epileptic_[] = {
    {"hips", "B_Root_Pelvis_L", 't'},     {"upper_leg_l", "B_Hip_Left", 'n'},
    {"lower_leg_l", "B_Knee_Left", 'n'},  {"foot_l", "B_Ankle_Left", 'n'},
    {"toes_l", "B_Toe_Left", 'n'},        {"upper_leg_r", "B_Hip_Right", 'n'},
    {"lower_leg_r", "B_Knee_Right", 'n'}, {"foot_r", "B_Ankle_Right", 'n'},
    {"toes_r", "B_Toe_Right", 'n'},       {"spine", "B_Root_Pelvis_T", 't'},
    {"spine", "B_Spine1", 'n'},           {"spine", "B_Spine2", 'n'},
    {"spine", "B_Spine3", 'n'},           {"chest", "B_Spine4", 'n'},
    {"shoulder_l", "B_Clavicle_Left", 'n'}, {"upper_arm_l", "B_UpperArm_Left", 'n'},
    {"forearm_l", "B_ForeArm_Left", 'n'}, {"hand_l", "B_Hand_Left", 'n'},
    {"shoulder_r", "B_Clavicle_Right", 'n'}, {"upper_arm_r", "B_UpperArm_Right", 'n'},
    {"forearm_r", "B_ForeArm_Right", 'n'}, {"hand_r", "B_Hand_Right", 'n'},
    {"neck", "B_Neck", 'n'},              END_};

static char how_letter(int how)
{
    return how == MB_ROLE_FROM_MAP ? 'm' : how == MB_ROLE_FROM_TOPOLOGY ? 't' : 'n';
}

/* Checks roles of skeleton s (named what) against table: every joint's role and how, and
 * the joint[] index (SPINE: the spine joint nearest the hips). */
static void check_roles(const char *what, const mb_skeleton *s, const mb_roles *r,
                        const expect *table)
{
    int n = mb_skeleton_joint_count(s);
    cr_assert_eq(r->joint_count, n, "%s", what);
    int want_joint[MB_ROLE_COUNT];
    for (int k = 0; k < MB_ROLE_COUNT; ++k)
        want_joint[k] = -1;
    for (int j = 0; j < n; ++j) {
        const char *name = mb_skeleton_name(s, j);
        const expect *e = NULL;
        for (const expect *t = table; t->role; ++t)
            if (strcmp(t->joint, name) == 0)
                e = t;
        int want = e ? (int)mb_role_from_name(e->role) : MB_ROLE_NONE;
        cr_assert(!e || want != MB_ROLE_NONE, "%s: bad table role %s", what, e ? e->role : "");
        cr_assert_eq(r->of_joint[j], want, "%s: joint %s has role %s, expected %s", what, name,
                     mb_role_name((mb_role)r->of_joint[j]), mb_role_name((mb_role)want));
        if (e && e->how)
            cr_assert_eq(how_letter(r->how[j]), e->how, "%s: %s found by '%c', expected '%c'",
                         what, name, how_letter(r->how[j]), e->how);
        if (want && want_joint[want] < 0)
            want_joint[want] = j; /* parents first: the first spine is the one nearest the hips */
    }
    for (const expect *t = table; t->role; ++t)
        cr_assert_geq(mb_skeleton_find(s, t->joint), 0, "%s: table joint %s missing", what,
                      t->joint);
    for (int k = 0; k < MB_ROLE_COUNT; ++k)
        cr_assert_eq(r->joint[k], want_joint[k], "%s: joint[%s] = %d, expected %d", what,
                     mb_role_name((mb_role)k), r->joint[k], want_joint[k]);
}

static mb_skeleton *read_skeleton(const char *rel)
{
    mb_skeleton *s = NULL;
    mb_error err;
    mb_bvh_read_desc d = {.lenient = 1};
    char path[256];
    snprintf(path, sizeof path, "bvh/%s", rel);
    cr_assert_eq(mb_bvh_read_file(mb_shared_path(path), &d, &s, NULL, &err), MB_OK, "%s: %s",
                 rel, err.text);
    return s;
}

static void check_bvh(const char *rel, const expect *table)
{
    mb_skeleton *s = read_skeleton(rel);
    mb_roles r;
    mb_error err;
    cr_assert_eq(mb_roles_find(s, NULL, &r, &err), MB_OK, "%s: %s", rel, err.text);
    check_roles(rel, s, &r, table);
    mb_roles_free(&r);
    mb_skeleton_destroy(s);
}

/* Every BVH file under ../shared/data/bvh, by its skeleton. */
Test(roles, every_shared_bvh)
{
    static const char *const cmu_files[] = {
        "cmu_02_01_walk.bvh", "cmu_02_02_walk.bvh", "cmu_02_03_run.bvh", "cmu_08_01_walk.bvh",
        "cmu_09_01_run.bvh", "cmu_09_02_run.bvh", "cmu_09_12_walk_navigate_long.bvh",
        "crlf_cmu_08_01_walk.bvh", "cmu_like_rest_1frame.bvh",
        "derived/frames_header_173_data_174_cmu_02_03.bvh",
        "derived/frames_header_174_data_100_cmu_02_03.bvh",
        "derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh",
        "derived/order_XYZ_cmu_02_03_first40.bvh", "derived/order_XZY_cmu_02_03_first40.bvh",
        "derived/order_YXZ_cmu_02_03_first40.bvh", "derived/order_YZX_cmu_02_03_first40.bvh",
        "derived/order_ZXY_cmu_02_03_first40.bvh", "derived/order_ZYX_cmu_02_03_first40.bvh",
        "derived/zero_frames_cmu02.bvh"};
    static const char *const bandai_files[] = {
        "bandai1_run_normal_001_sci.bvh", "bandai2_run_normal_001.bvh",
        "bandai2_run_normal_002.bvh", "bandai2_walk_normal_001.bvh",
        "bandai2_walk_normal_002.bvh", "derived/bom_crlf_bandai1_run.bvh",
        "derived/wrapped_values_bandai1_run.bvh"};
    for (size_t i = 0; i < sizeof cmu_files / sizeof *cmu_files; ++i)
        check_bvh(cmu_files[i], cmu_);
    for (size_t i = 0; i < sizeof bandai_files / sizeof *bandai_files; ++i)
        check_bvh(bandai_files[i], bandai_);
    check_bvh("cmu_131_01_mixedorder_mixedeol.bvh", cmu131_);
    check_bvh("animdraw_fair1_dab_zup.bvh", animdraw_);
    check_bvh("pymo_walk_rootoffset_xyz.bvh", pymo_);
    check_bvh("fairmotion_sinusoidal_xyz_noendsite.bvh", nothing_);
    check_bvh("derived/tiny_arm_handcheck.bvh", nothing_);
}

static void check_scene(const char *rel, const expect *table)
{
    mb_test_need_assimp();
    mb_scene *sc = NULL;
    mb_error err;
    cr_assert_eq(mb_scene_read_file(mb_shared_path(rel), NULL, &sc, &err), MB_OK, "%s: %s", rel,
                 err.text);
    mb_roles r;
    cr_assert_eq(mb_roles_find(mb_scene_skeleton(sc), NULL, &r, &err), MB_OK, "%s", err.text);
    check_roles(rel, mb_scene_skeleton(sc), &r, table);
    mb_roles_free(&r);
    mb_scene_destroy(sc);
}

Test(roles, cesium_man) { check_scene("mesh/CesiumMan.glb", cesium_); }
Test(roles, fox) { check_scene("mesh/Fox.glb", fox_); }
Test(roles, directx_epileptic) { check_scene("mesh/BCN_Epileptic.X", epileptic_); }

/* ---------- other conventions, built here ---------- */

/* A skeleton from names and parents (offsets: one unit along +Y; roles ignore them). */
static mb_skeleton *make_skeleton(const char *const *names, const int *parents, int n)
{
    mb_joint_desc *j = calloc((size_t)n, sizeof *j);
    cr_assert_not_null(j);
    for (int i = 0; i < n; ++i) {
        j[i].name = names[i];
        j[i].parent = parents[i];
        j[i].offset[1] = i ? 1.0f : 0.0f;
        j[i].channel_count = 3;
        j[i].channels[0] = MB_CH_ZROT, j[i].channels[1] = MB_CH_XROT, j[i].channels[2] = MB_CH_YROT;
    }
    mb_skeleton_desc d = {j, n, {0}};
    mb_skeleton *s = NULL;
    mb_error err;
    cr_assert_eq(mb_skeleton_create(&d, &s, &err), MB_OK, "%s", err.text);
    free(j);
    return s;
}

static void check_made(const char *what, const char *const *names, const int *parents, int n,
                       const expect *table)
{
    mb_skeleton *s = make_skeleton(names, parents, n);
    mb_roles r;
    cr_assert_eq(mb_roles_find(s, NULL, &r, NULL), MB_OK);
    check_roles(what, s, &r, table);
    mb_roles_free(&r);
    mb_skeleton_destroy(s);
}

/* Mixamo (namespace "mixamorig:", *_End leaf joints), LAFAN1 (the same names without the
 * namespace, "LeftToe") and Rokoko. */
Test(roles, mixamo_lafan_rokoko)
{
    static const char *const mixamo[] = {
        "mixamorig:Hips", "mixamorig:Spine", "mixamorig:Spine1", "mixamorig:Spine2",
        "mixamorig:Neck", "mixamorig:Head", "mixamorig:HeadTop_End", "mixamorig:LeftShoulder",
        "mixamorig:LeftArm", "mixamorig:LeftForeArm", "mixamorig:LeftHand",
        "mixamorig:LeftHandIndex1", "mixamorig:RightShoulder", "mixamorig:RightArm",
        "mixamorig:RightForeArm", "mixamorig:RightHand", "mixamorig:RightHandIndex1",
        "mixamorig:LeftUpLeg", "mixamorig:LeftLeg", "mixamorig:LeftFoot",
        "mixamorig:LeftToeBase", "mixamorig:LeftToe_End", "mixamorig:RightUpLeg",
        "mixamorig:RightLeg", "mixamorig:RightFoot", "mixamorig:RightToeBase",
        "mixamorig:RightToe_End"};
    static const int parents[] = {-1, 0, 1, 2, 3, 4, 5, 3, 7, 8, 9, 10, 3, 12, 13, 14, 15,
                                  0, 17, 18, 19, 20, 0, 22, 23, 24, 25};
    static const expect want[] = {
        {"hips", "mixamorig:Hips", 'n'},     {"spine", "mixamorig:Spine", 'n'},
        {"spine", "mixamorig:Spine1", 'n'},  {"chest", "mixamorig:Spine2", 'n'},
        {"neck", "mixamorig:Neck", 'n'},     {"head", "mixamorig:Head", 'n'},
        {"shoulder_l", "mixamorig:LeftShoulder", 'n'}, {"upper_arm_l", "mixamorig:LeftArm", 'n'},
        {"forearm_l", "mixamorig:LeftForeArm", 'n'}, {"hand_l", "mixamorig:LeftHand", 'n'},
        {"shoulder_r", "mixamorig:RightShoulder", 'n'}, {"upper_arm_r", "mixamorig:RightArm", 'n'},
        {"forearm_r", "mixamorig:RightForeArm", 'n'}, {"hand_r", "mixamorig:RightHand", 'n'},
        {"upper_leg_l", "mixamorig:LeftUpLeg", 'n'}, {"lower_leg_l", "mixamorig:LeftLeg", 'n'},
        {"foot_l", "mixamorig:LeftFoot", 'n'}, {"toes_l", "mixamorig:LeftToeBase", 'n'},
        {"upper_leg_r", "mixamorig:RightUpLeg", 'n'}, {"lower_leg_r", "mixamorig:RightLeg", 'n'},
        {"foot_r", "mixamorig:RightFoot", 'n'}, {"toes_r", "mixamorig:RightToeBase", 'n'},
        END_};
    check_made("mixamo", mixamo, parents, 27, want);

    static const char *const lafan[] = {
        "Hips", "LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToe", "RightUpLeg", "RightLeg",
        "RightFoot", "RightToe", "Spine", "Spine1", "Spine2", "Neck", "Head", "LeftShoulder",
        "LeftArm", "LeftForeArm", "LeftHand", "RightShoulder", "RightArm", "RightForeArm",
        "RightHand"};
    static const int lp[] = {-1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 12, 11, 14, 15, 16,
                             11, 18, 19, 20};
    static const expect lw[] = {
        {"hips", "Hips", 'n'},          {"upper_leg_l", "LeftUpLeg", 'n'},
        {"lower_leg_l", "LeftLeg", 'n'}, {"foot_l", "LeftFoot", 'n'},
        {"toes_l", "LeftToe", 'n'},     {"upper_leg_r", "RightUpLeg", 'n'},
        {"lower_leg_r", "RightLeg", 'n'}, {"foot_r", "RightFoot", 'n'},
        {"toes_r", "RightToe", 'n'},    {"spine", "Spine", 'n'},
        {"spine", "Spine1", 'n'},       {"chest", "Spine2", 'n'},
        {"neck", "Neck", 'n'},          {"head", "Head", 'n'},
        {"shoulder_l", "LeftShoulder", 'n'}, {"upper_arm_l", "LeftArm", 'n'},
        {"forearm_l", "LeftForeArm", 'n'}, {"hand_l", "LeftHand", 'n'},
        {"shoulder_r", "RightShoulder", 'n'}, {"upper_arm_r", "RightArm", 'n'},
        {"forearm_r", "RightForeArm", 'n'}, {"hand_r", "RightHand", 'n'},
        END_};
    check_made("lafan", lafan, lp, 22, lw);

    /* Rokoko Studio (as AnimatedDrawings' Rokoko retarget config lists it): Spine1..Spine4,
     * LeftThigh / LeftShin, an *_end leaf. */
    static const char *const rokoko[] = {
        "Hips", "Spine1", "Spine2", "Spine3", "Spine4", "Neck", "Head", "Head_end",
        "LeftShoulder", "LeftArm", "LeftForeArm", "LeftHand", "RightShoulder", "RightArm",
        "RightForeArm", "RightHand", "LeftThigh", "LeftShin", "LeftFoot", "LeftToe",
        "LeftToe_end", "RightThigh", "RightShin", "RightFoot", "RightToe", "RightToe_end"};
    static const int rp[] = {-1, 0, 1, 2, 3, 4, 5, 6, 4, 8, 9, 10, 4, 12, 13, 14,
                             0, 16, 17, 18, 19, 0, 21, 22, 23, 24};
    static const expect rw[] = {
        {"hips", "Hips", 'n'},          {"spine", "Spine1", 'n'},
        {"spine", "Spine2", 'n'},       {"spine", "Spine3", 'n'},
        {"chest", "Spine4", 'n'},       {"neck", "Neck", 'n'},
        {"head", "Head", 'n'},          {"shoulder_l", "LeftShoulder", 'n'},
        {"upper_arm_l", "LeftArm", 'n'}, {"forearm_l", "LeftForeArm", 'n'},
        {"hand_l", "LeftHand", 'n'},    {"shoulder_r", "RightShoulder", 'n'},
        {"upper_arm_r", "RightArm", 'n'}, {"forearm_r", "RightForeArm", 'n'},
        {"hand_r", "RightHand", 'n'},   {"upper_leg_l", "LeftThigh", 'n'},
        {"lower_leg_l", "LeftShin", 'n'}, {"foot_l", "LeftFoot", 'n'},
        {"toes_l", "LeftToe", 'n'},     {"upper_leg_r", "RightThigh", 'n'},
        {"lower_leg_r", "RightShin", 'n'}, {"foot_r", "RightFoot", 'n'},
        {"toes_r", "RightToe", 'n'},    END_};
    check_made("rokoko", rokoko, rp, 26, rw);
}

/* 3ds Max Biped (names with spaces, clavicles below the neck, thighs below the spine) and
 * Unreal's mannequin (lower case, side suffixes, "ball" toes). */
Test(roles, biped_and_unreal)
{
    static const char *const biped[] = {
        "Bip01", "Bip01 Pelvis", "Bip01 Spine", "Bip01 Spine1", "Bip01 Neck", "Bip01 Head",
        "Bip01 L Clavicle", "Bip01 L UpperArm", "Bip01 L Forearm", "Bip01 L Hand",
        "Bip01 R Clavicle", "Bip01 R UpperArm", "Bip01 R Forearm", "Bip01 R Hand",
        "Bip01 L Thigh", "Bip01 L Calf", "Bip01 L Foot", "Bip01 L Toe0", "Bip01 L Toe0Nub",
        "Bip01 R Thigh", "Bip01 R Calf", "Bip01 R Foot", "Bip01 R Toe0"};
    static const int bp[] = {-1, 0, 1, 2, 3, 4, 4, 6, 7, 8, 4, 10, 11, 12, 2, 14, 15, 16, 17,
                             2, 19, 20, 21};
    static const expect bw[] = {
        {"hips", "Bip01 Pelvis", 'n'},   {"spine", "Bip01 Spine", 'n'},
        {"chest", "Bip01 Spine1", 'n'},  {"neck", "Bip01 Neck", 'n'},
        {"head", "Bip01 Head", 'n'},     {"shoulder_l", "Bip01 L Clavicle", 'n'},
        {"upper_arm_l", "Bip01 L UpperArm", 'n'}, {"forearm_l", "Bip01 L Forearm", 'n'},
        {"hand_l", "Bip01 L Hand", 'n'}, {"shoulder_r", "Bip01 R Clavicle", 'n'},
        {"upper_arm_r", "Bip01 R UpperArm", 'n'}, {"forearm_r", "Bip01 R Forearm", 'n'},
        {"hand_r", "Bip01 R Hand", 'n'}, {"upper_leg_l", "Bip01 L Thigh", 'n'},
        {"lower_leg_l", "Bip01 L Calf", 'n'}, {"foot_l", "Bip01 L Foot", 'n'},
        {"toes_l", "Bip01 L Toe0", 'n'}, {"upper_leg_r", "Bip01 R Thigh", 'n'},
        {"lower_leg_r", "Bip01 R Calf", 'n'}, {"foot_r", "Bip01 R Foot", 'n'},
        {"toes_r", "Bip01 R Toe0", 'n'}, END_};
    check_made("biped", biped, bp, 23, bw);

    static const char *const ue[] = {
        "root", "pelvis", "spine_01", "spine_02", "spine_03", "neck_01", "head",
        "clavicle_l", "upperarm_l", "lowerarm_l", "hand_l", "clavicle_r", "upperarm_r",
        "lowerarm_r", "hand_r", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
        "foot_r", "ball_r"};
    static const int up[] = {-1, 0, 1, 2, 3, 4, 5, 4, 7, 8, 9, 4, 11, 12, 13, 1, 15, 16, 17,
                             1, 19, 20, 21};
    static const expect uw[] = {
        {"hips", "pelvis", 'n'},        {"spine", "spine_01", 'n'},
        {"spine", "spine_02", 'n'},     {"chest", "spine_03", 'n'},
        {"neck", "neck_01", 'n'},       {"head", "head", 'n'},
        {"shoulder_l", "clavicle_l", 'n'}, {"upper_arm_l", "upperarm_l", 'n'},
        {"forearm_l", "lowerarm_l", 'n'}, {"hand_l", "hand_l", 'n'},
        {"shoulder_r", "clavicle_r", 'n'}, {"upper_arm_r", "upperarm_r", 'n'},
        {"forearm_r", "lowerarm_r", 'n'}, {"hand_r", "hand_r", 'n'},
        {"upper_leg_l", "thigh_l", 'n'}, {"lower_leg_l", "calf_l", 'n'},
        {"foot_l", "foot_l", 'n'},      {"toes_l", "ball_l", 'n'},
        {"upper_leg_r", "thigh_r", 'n'}, {"lower_leg_r", "calf_r", 'n'},
        {"foot_r", "foot_r", 'n'},      {"toes_r", "ball_r", 'n'},
        END_};
    check_made("unreal", ue, up, 23, uw);
}

/* Names the tree contradicts are dropped: a "LeftHand" below the right forearm, a
 * "RightFoot" below the left leg, a "Neck" below a foot. Gaps are filled from the tree:
 * an unnamed joint between the thigh and the foot is the lower leg, the only child of a
 * foot the toes. */
Test(roles, tree_checks_and_fills)
{
    static const char *const names[] = {
        "Hips", "Spine", "Chest", "Head", "LeftArm", "LeftForeArm", "RightArm",
        "RightForeArm", "LeftHand", "LeftUpLeg", "knee_thing", "LeftFoot", "Neck", "tip_L",
        "RightUpLeg", "RightLeg", "RightFoot", "RightToe"};
    static const int parents[] = {-1, 0, 1, 2, 2, 4, 2, 6, 7, 0, 9, 10, 11, 11, 0, 14, 15,
                                  16};
    static const expect want[] = {
        {"hips", "Hips", 'n'},            {"spine", "Spine", 'n'},
        {"chest", "Chest", 'n'},          {"head", "Head", 'n'},
        {"upper_arm_l", "LeftArm", 'n'},  {"forearm_l", "LeftForeArm", 'n'},
        {"upper_arm_r", "RightArm", 'n'}, {"forearm_r", "RightForeArm", 'n'},
        {"upper_leg_l", "LeftUpLeg", 'n'}, {"lower_leg_l", "knee_thing", 't'},
        {"foot_l", "LeftFoot", 'n'},      {"upper_leg_r", "RightUpLeg", 'n'},
        {"lower_leg_r", "RightLeg", 'n'}, {"foot_r", "RightFoot", 'n'},
        {"toes_r", "RightToe", 'n'},      END_};
    /* LeftHand (below the right forearm) and Neck (below the left foot) lose their roles;
     * the left foot has two children, so no toes are guessed. */
    check_made("contradictions", names, parents, 18, want);
}

/* ---------- role names ---------- */

Test(roles, names_and_mirror)
{
    cr_assert_str_eq(mb_role_name(MB_ROLE_HIPS), "hips");
    cr_assert_str_eq(mb_role_name(MB_ROLE_UPPER_ARM_L), "upper_arm_l");
    cr_assert_str_eq(mb_role_name(MB_ROLE_TOES_R), "toes_r");
    cr_assert_null(mb_role_name(MB_ROLE_COUNT));
    cr_assert_null(mb_role_name((mb_role)-1));
    for (int r = 1; r < MB_ROLE_COUNT; ++r) {
        cr_assert_eq(mb_role_from_name(mb_role_name((mb_role)r)), r);
        mb_role m = mb_role_mirror((mb_role)r);
        cr_assert_eq(mb_role_mirror(m), r, "mirror is an involution");
        const char *a = mb_role_name((mb_role)r), *b = mb_role_name(m);
        size_t n = strlen(a);
        if (a[n - 2] == '_' && (a[n - 1] == 'l' || a[n - 1] == 'r')) {
            cr_assert_neq(m, r);
            cr_assert(strncmp(a, b, n - 1) == 0 && b[n - 1] == (a[n - 1] == 'l' ? 'r' : 'l'),
                      "%s mirrors to %s", a, b);
        } else {
            cr_assert_eq(m, r, "%s has no sides", a);
        }
    }
    cr_assert_eq(mb_role_from_name("Upper_Arm_L"), MB_ROLE_UPPER_ARM_L);
    cr_assert_eq(mb_role_from_name("none"), MB_ROLE_NONE);
    cr_assert_eq(mb_role_from_name("elbow"), MB_ROLE_NONE);
    cr_assert_eq(mb_role_from_name(NULL), MB_ROLE_NONE);
}

/* ---------- the role map ---------- */

static char tmp_dir_[64];

/* A map file holding text in a fresh temporary folder; returns its path (static). */
static const char *map_file(const char *text)
{
    static char path[128];
    if (!tmp_dir_[0]) {
        snprintf(tmp_dir_, sizeof tmp_dir_, "/tmp/mb_roles_XXXXXX");
        cr_assert_not_null(mkdtemp(tmp_dir_), "mkdtemp: %s", strerror(errno));
    }
    snprintf(path, sizeof path, "%s/map.txt", tmp_dir_);
    write_text(path, text);
    return path;
}

/* The path map_file writes. */
static const char *map_file_path(void)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/map.txt", tmp_dir_);
    return path;
}

static void remove_map(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/map.txt", tmp_dir_);
    unlink(path);
    rmdir(tmp_dir_);
    tmp_dir_[0] = '\0';
}

/* The map overrides names (neck moves to Neck1, Neck loses its role), names a spine alone
 * (the names' spine joints give way), and survives comments, blank lines, CRLF, tabs and a
 * byte order mark. */
Test(roles_map, overrides_names)
{
    mb_skeleton *s = read_skeleton("cmu_02_01_walk.bvh");
    const char *path = map_file("\xEF\xBB\xBF# CMU with the upper neck as the neck\r\n"
                                "\n"
                                "neck\tNeck1  \r\n"
                                "  none Neck\n"
                                "spine Spine\n"
                                "hand_l LeftHand\n");
    mb_role_map *m = NULL;
    mb_error err;
    cr_assert_eq(mb_role_map_read(path, &m, &err), MB_OK, "%s", err.text);
    mb_roles r;
    cr_assert_eq(mb_roles_find(s, m, &r, &err), MB_OK, "%s", err.text);
    expect want[sizeof cmu_ / sizeof *cmu_];
    int k = 0;
    for (const expect *t = cmu_; t->role; ++t)
        if (strcmp(t->joint, "Neck") && strcmp(t->joint, "LowerBack") && strcmp(t->joint, "Spine") &&
            strcmp(t->joint, "LeftHand"))
            want[k++] = *t;
    want[k++] = (expect){"neck", "Neck1", 'm'};
    want[k++] = (expect){"spine", "Spine", 'm'};
    want[k++] = (expect){"hand_l", "LeftHand", 'm'};
    want[k] = (expect)END_;
    check_roles("cmu + map", s, &r, want);
    mb_roles_free(&r);
    mb_role_map_destroy(m);
    remove_map();
    mb_skeleton_destroy(s);
}

/* A map completes what names cannot give: the sinusoidal chain "base, child1..3" becomes
 * hips, spine, chest, head, all from the map. */
Test(roles_map, completes)
{
    mb_skeleton *s = read_skeleton("fairmotion_sinusoidal_xyz_noendsite.bvh");
    mb_role_map *m = NULL;
    mb_error err;
    cr_assert_eq(mb_role_map_read(map_file("hips base\nspine child1\nchest child2\nhead child3\n"),
                                  &m, &err), MB_OK, "%s", err.text);
    mb_roles r;
    cr_assert_eq(mb_roles_find(s, m, &r, &err), MB_OK, "%s", err.text);
    static const expect want[] = {{"hips", "base", 'm'}, {"spine", "child1", 'm'},
                                  {"chest", "child2", 'm'}, {"head", "child3", 'm'}, END_};
    check_roles("sinusoidal + map", s, &r, want);
    mb_roles_free(&r);
    mb_role_map_destroy(m);
    remove_map();
    mb_skeleton_destroy(s);
}

/* Each bad map is refused with its line and column (1-based, bytes). */
Test(roles_map, errors_with_position)
{
    static const struct {
        const char *text;
        mb_status code;
        int line, column;
        const char *says;
    } cases[] = {
        {"hips Hips\nupper_arm_x Foo\n", MB_PARSE, 2, 1, "unknown role \"upper_arm_x\""},
        {"# c\n  hips\n", MB_PARSE, 2, 7, "role hips without a joint name"},
        {"hips Hips\n\thips Spine\n", MB_PARSE, 2, 2, "role hips already given (line 1)"},
        {"hips Hips\nchest   Hips\n", MB_PARSE, 2, 9, "joint \"Hips\" already has a role (line 1)"},
        {"spine A\nspine B\nhead a\x01\n", MB_PARSE, 3, 7, "control character 0x01"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        const char *path = map_file(cases[i].text);
        mb_role_map *m = (mb_role_map *)&m; /* must come back NULL */
        mb_error err;
        cr_assert_eq(mb_role_map_read(path, &m, &err), cases[i].code, "case %zu", i);
        cr_assert_null(m);
        cr_assert_eq(err.code, cases[i].code);
        cr_assert_str_eq(err.source, path);
        cr_assert_eq(err.line, cases[i].line, "case %zu: line %d", i, err.line);
        cr_assert_eq(err.column, cases[i].column, "case %zu: column %d", i, err.column);
        cr_assert(strstr(err.text, cases[i].says), "case %zu: %s", i, err.text);
    }
    /* An over-long line. */
    char *big = malloc(6000);
    memset(big, 'x', 5999);
    big[5999] = '\0';
    memcpy(big, "hips ", 5);
    mb_role_map *m = NULL;
    mb_error err;
    cr_assert_eq(mb_role_map_read(map_file(big), &m, &err), MB_LIMIT);
    cr_assert_eq(err.line, 1);
    free(big);
    /* A NUL byte, in a last line without a newline too (fgets + strlen cut the line there and
     * read "hips Hi" as a map); a line of exactly 4096 bytes ended by CR LF is not over-long. */
    static const char nul_last[] = "spine Spine\nhips Hi\0ps";
    FILE *f = fopen(map_file(""), "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(nul_last, 1, sizeof nul_last - 1, f), sizeof nul_last - 1);
    fclose(f);
    m = (mb_role_map *)&m;
    cr_assert_eq(mb_role_map_read(map_file_path(), &m, &err), MB_PARSE);
    cr_assert_null(m);
    cr_assert_eq(err.line, 2);
    cr_assert_eq(err.column, 8);
    cr_assert(strstr(err.text, "NUL byte"), "%s", err.text);
    char *full = malloc(4096 + 4);
    memset(full, ' ', 4096);
    memcpy(full, "hips Hips", 9);
    memcpy(full + 4096, "\r\n", 3);
    cr_assert_eq(mb_role_map_read(map_file(full), &m, &err), MB_OK, "%s", err.text);
    mb_role_map_destroy(m);
    full[4095] = 'x'; /* 4097 bytes before the CR: over-long */
    memcpy(full + 4096, "x\r\n", 4);
    cr_assert_eq(mb_role_map_read(map_file(full), &m, &err), MB_LIMIT);
    free(full);
    /* More entries than a skeleton has joints: MB_LIMIT at the first one too many (QA of
     * issue 21: unbounded, 100k lines took 10 s in the pairwise repeat check). 4096 read. */
    size_t cap = (size_t)(MB_MAX_JOINTS + 1) * 16;
    char *many = malloc(cap), *p = many;
    for (int i = 0; i <= MB_MAX_JOINTS; ++i)
        p += snprintf(p, cap - (size_t)(p - many), "none j%d\n", i);
    cr_assert_eq(mb_role_map_read(map_file(many), &m, &err), MB_LIMIT, "%s", err.text);
    cr_assert_null(m);
    cr_assert_eq(err.line, MB_MAX_JOINTS + 1);
    cr_assert(strstr(err.text, "more than 4096 entries"), "%s", err.text);
    *strstr(many, "none j4096\n") = '\0';
    cr_assert_eq(mb_role_map_read(map_file(many), &m, &err), MB_OK, "%s", err.text);
    mb_role_map_destroy(m);
    free(many);
    /* A joint the skeleton lacks: found when the map meets the skeleton, at its place. */
    cr_assert_eq(mb_role_map_read(map_file("# mine\nhips Hips\nhead  NoSuchJoint\n"), &m, &err),
                 MB_OK);
    mb_skeleton *s = read_skeleton("cmu_02_01_walk.bvh");
    mb_roles r;
    memset(&r, 0x5a, sizeof r);
    cr_assert_eq(mb_roles_find(s, m, &r, &err), MB_INVALID_ARG);
    cr_assert_null(r.of_joint, "nothing to free on failure");
    cr_assert_eq(err.line, 3);
    cr_assert_eq(err.column, 7);
    cr_assert(strstr(err.text, "no joint \"NoSuchJoint\""), "%s", err.text);
    char buf[512];
    mb_error_format(&err, buf, sizeof buf);
    cr_assert(strstr(buf, "map.txt:3:7: "), "%s", buf);
    mb_role_map_destroy(m);
    /* An End Site is no joint to give a role. */
    cr_assert_eq(mb_role_map_read(map_file("head Head_End\n"), &m, &err), MB_OK);
    cr_assert_eq(mb_roles_find(s, m, &r, &err), MB_INVALID_ARG);
    cr_assert(strstr(err.text, "End Site"), "%s", err.text);
    mb_role_map_destroy(m);
    mb_skeleton_destroy(s);
    remove_map();
    /* A file that cannot be opened. */
    cr_assert_eq(mb_role_map_read("/nonexistent/map.txt", &m, &err), MB_IO);
    cr_assert_null(m);
    cr_assert_eq(err.line, 0);
    cr_assert_eq(mb_role_map_read(NULL, &m, &err), MB_INVALID_ARG);
    mb_role_map_destroy(NULL);
}

/* ---------- required roles ---------- */

Test(roles, require_names_every_missing_role)
{
    mb_skeleton *s = read_skeleton("pymo_walk_rootoffset_xyz.bvh");
    mb_roles r;
    cr_assert_eq(mb_roles_find(s, NULL, &r, NULL), MB_OK);
    const mb_role need[] = {MB_ROLE_HIPS, MB_ROLE_SPINE, MB_ROLE_HEAD, MB_ROLE_NECK,
                            MB_ROLE_FOOT_L};
    mb_error err;
    cr_assert_eq(mb_roles_require(&r, need, 5, "pymo.bvh", &err), MB_INVALID_ARG);
    cr_assert_str_eq(err.source, "pymo.bvh");
    cr_assert(strstr(err.text, "roles spine, neck "), "%s", err.text);
    cr_assert_null(strstr(err.text, "hips"), "%s", err.text);
    cr_assert_eq(mb_roles_require(&r, need + 2, 1, "pymo.bvh", &err), MB_OK);
    cr_assert_eq(err.code, MB_OK);
    cr_assert_eq(mb_roles_require(&r, need + 3, 1, NULL, &err), MB_INVALID_ARG);
    cr_assert(strstr(err.text, "the role neck "), "%s", err.text);
    mb_roles_free(&r);
    mb_roles_free(&r); /* zeroed: a no-op */
    mb_skeleton_destroy(s);

    /* Nothing humanoid: every role is named, within the message. */
    s = read_skeleton("fairmotion_sinusoidal_xyz_noendsite.bvh");
    cr_assert_eq(mb_roles_find(s, NULL, &r, NULL), MB_OK);
    mb_role all[MB_ROLE_COUNT - 1];
    for (int k = 1; k < MB_ROLE_COUNT; ++k)
        all[k - 1] = (mb_role)k;
    cr_assert_eq(mb_roles_require(&r, all, MB_ROLE_COUNT - 1, "sin", &err), MB_INVALID_ARG);
    cr_assert(strstr(err.text, "hips, spine, chest"), "%s", err.text);
    cr_assert(strstr(err.text, "toes_r"), "%s", err.text);
    mb_roles_free(&r);
    mb_skeleton_destroy(s);
}

/* ---------- left/right pairs ---------- */

/* The name with Left/Right, L/R and l/r swapped as the pairs of these files have them. */
static int pair_name_ok(const char *a, const char *b)
{
    char want[160];
    const char *swaps[][2] = {{"Left", "Right"}, {"Right", "Left"}, {"LThumb", "RThumb"},
                              {"RThumb", "LThumb"}, {"LHip", "RHip"}, {"RHip", "LHip"},
                              {"LFingers", "RFingers"}, {"RFingers", "LFingers"},
                              {"lhand", "rhand"}, {"rhand", "lhand"}};
    for (size_t i = 0; i < sizeof swaps / sizeof *swaps; ++i) {
        size_t n = strlen(swaps[i][0]);
        if (strncmp(a, swaps[i][0], n) == 0) {
            snprintf(want, sizeof want, "%s%s", swaps[i][1], a + n);
            return strcmp(want, b) == 0;
        }
    }
    return 0;
}

static void check_pairs(const char *rel, const char *const *middle, int expect_paired)
{
    mb_skeleton *s = read_skeleton(rel);
    mb_roles r;
    cr_assert_eq(mb_roles_find(s, NULL, &r, NULL), MB_OK);
    int n = mb_skeleton_joint_count(s), *other = malloc(sizeof *other * (size_t)n), paired = 0;
    cr_assert_eq(mb_roles_mirror_joints(s, &r, other, NULL), MB_OK);
    for (int j = 0; j < n; ++j) {
        const char *a = mb_skeleton_name(s, j), *b = mb_skeleton_name(s, other[j]);
        cr_assert_eq(other[other[j]], j, "%s: pairs are symmetric", rel);
        if (other[j] == j) {
            int listed = 0;
            for (const char *const *m = middle; *m; ++m)
                listed |= strcmp(*m, a) == 0;
            cr_assert(listed, "%s: %s has no pair", rel, a);
            continue;
        }
        cr_assert(pair_name_ok(a, b), "%s: %s pairs with %s", rel, a, b);
        ++paired;
    }
    cr_assert_eq(paired, expect_paired, "%s: %d paired joints", rel, paired);
    free(other);
    mb_roles_free(&r);
    mb_skeleton_destroy(s);
}

/* Every sided joint of CMU (fingers, thumbs, hip joints and End Sites included) and CMU
 * 131 ("lhand", "LFingers") pairs with its namesake; only the middle ones listed pair
 * with themselves. */
Test(roles, mirror_pairs)
{
    static const char *const cmu_middle[] = {"Hips", "LowerBack", "Spine", "Spine1", "Neck",
                                             "Neck1", "Head", "Head_End", NULL};
    /* 31 joints + 7 End Sites: 12 joints and 3 End Sites on each side. */
    check_pairs("cmu_02_01_walk.bvh", cmu_middle, 2 * (12 + 3));
    static const char *const cmu131_middle[] = {"Hips", "lowerback", "Chest", "Chest2",
                                                "lowerneck", "Neck", "Head", "Head_End", NULL};
    check_pairs("cmu_131_01_mixedorder_mixedeol.bvh", cmu131_middle, 2 * (12 + 3));
}
