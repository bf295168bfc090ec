/* Retargeting (mb_retarget) against measured invariants on the shared clips and against
 * hand-checked cases: bone lengths, limb directions relative to the heading, foot contacts,
 * foot skate, round trips, a T-pose driving an A-pose, missing roles. Every measure here is
 * recomputed independently of retarget.c (the library's float FK, positions only). */
#include <math.h>
#include <string.h>

#include "mblend/mblend.h"
#include "test_util.h"

#define DEG 57.29577951308232

/* ---------- roles by name (independent of mb_roles_find) ---------- */

static const struct {
    const char *name;
    mb_role role;
} role_names[] = {
    /* CMU (cgspeed) */
    {"Hips", MB_ROLE_HIPS}, {"LowerBack", MB_ROLE_SPINE}, {"Spine", MB_ROLE_SPINE},
    {"Spine1", MB_ROLE_CHEST}, {"Neck", MB_ROLE_NECK}, {"Head", MB_ROLE_HEAD},
    {"LeftShoulder", MB_ROLE_SHOULDER_L}, {"RightShoulder", MB_ROLE_SHOULDER_R},
    {"LeftArm", MB_ROLE_UPPER_ARM_L}, {"RightArm", MB_ROLE_UPPER_ARM_R},
    {"LeftForeArm", MB_ROLE_FOREARM_L}, {"RightForeArm", MB_ROLE_FOREARM_R},
    {"LeftHand", MB_ROLE_HAND_L}, {"RightHand", MB_ROLE_HAND_R},
    {"LeftUpLeg", MB_ROLE_UPPER_LEG_L}, {"RightUpLeg", MB_ROLE_UPPER_LEG_R},
    {"LeftLeg", MB_ROLE_LOWER_LEG_L}, {"RightLeg", MB_ROLE_LOWER_LEG_R},
    {"LeftFoot", MB_ROLE_FOOT_L}, {"RightFoot", MB_ROLE_FOOT_R},
    {"LeftToeBase", MB_ROLE_TOES_L}, {"RightToeBase", MB_ROLE_TOES_R},
    /* Bandai-Namco (Spine is also CMU's: a spine either way) */
    {"Chest", MB_ROLE_CHEST}, {"Shoulder_L", MB_ROLE_SHOULDER_L},
    {"Shoulder_R", MB_ROLE_SHOULDER_R}, {"UpperArm_L", MB_ROLE_UPPER_ARM_L},
    {"UpperArm_R", MB_ROLE_UPPER_ARM_R}, {"LowerArm_L", MB_ROLE_FOREARM_L},
    {"LowerArm_R", MB_ROLE_FOREARM_R}, {"Hand_L", MB_ROLE_HAND_L}, {"Hand_R", MB_ROLE_HAND_R},
    {"UpperLeg_L", MB_ROLE_UPPER_LEG_L}, {"UpperLeg_R", MB_ROLE_UPPER_LEG_R},
    {"LowerLeg_L", MB_ROLE_LOWER_LEG_L}, {"LowerLeg_R", MB_ROLE_LOWER_LEG_R},
    {"Foot_L", MB_ROLE_FOOT_L}, {"Foot_R", MB_ROLE_FOOT_R}, {"Toes_L", MB_ROLE_TOES_L},
    {"Toes_R", MB_ROLE_TOES_R},
    /* CesiumMan */
    {"Skeleton_torso_joint_1", MB_ROLE_HIPS}, {"Skeleton_torso_joint_2", MB_ROLE_SPINE},
    {"torso_joint_3", MB_ROLE_CHEST}, {"Skeleton_neck_joint_1", MB_ROLE_NECK},
    {"Skeleton_neck_joint_2", MB_ROLE_HEAD}, {"Skeleton_arm_joint_L__4_", MB_ROLE_UPPER_ARM_L},
    {"Skeleton_arm_joint_L__3_", MB_ROLE_FOREARM_L}, {"Skeleton_arm_joint_L__2_", MB_ROLE_HAND_L},
    {"Skeleton_arm_joint_R", MB_ROLE_UPPER_ARM_R}, {"Skeleton_arm_joint_R__2_", MB_ROLE_FOREARM_R},
    {"Skeleton_arm_joint_R__3_", MB_ROLE_HAND_R}, {"leg_joint_L_1", MB_ROLE_UPPER_LEG_L},
    {"leg_joint_L_2", MB_ROLE_LOWER_LEG_L}, {"leg_joint_L_3", MB_ROLE_FOOT_L},
    {"leg_joint_L_5", MB_ROLE_TOES_L}, {"leg_joint_R_1", MB_ROLE_UPPER_LEG_R},
    {"leg_joint_R_2", MB_ROLE_LOWER_LEG_R}, {"leg_joint_R_3", MB_ROLE_FOOT_R},
    {"leg_joint_R_5", MB_ROLE_TOES_R},
    /* the synthetic figure below */
    {"hips", MB_ROLE_HIPS}, {"chest", MB_ROLE_CHEST}, {"arm_l", MB_ROLE_UPPER_ARM_L},
    {"arm_r", MB_ROLE_UPPER_ARM_R}, {"fore_l", MB_ROLE_FOREARM_L}, {"fore_r", MB_ROLE_FOREARM_R},
    {"thigh_l", MB_ROLE_UPPER_LEG_L}, {"thigh_r", MB_ROLE_UPPER_LEG_R},
    {"shin_l", MB_ROLE_LOWER_LEG_L}, {"shin_r", MB_ROLE_LOWER_LEG_R}, {"foot_l", MB_ROLE_FOOT_L},
    {"foot_r", MB_ROLE_FOOT_R}};

/* The roles of s from the table above (FROM_MAP: given by hand). Free with free_roles. */
static mb_roles roles_by_name(const mb_skeleton *s)
{
    mb_roles r;
    memset(&r, 0, sizeof r);
    int nj = mb_skeleton_joint_count(s);
    r.joint_count = nj;
    r.of_joint = calloc((size_t)nj, 1);
    r.how = calloc((size_t)nj, 1);
    cr_assert(r.of_joint && r.how);
    for (int k = 0; k < MB_ROLE_COUNT; ++k)
        r.joint[k] = -1;
    for (int j = 0; j < nj; ++j)
        for (size_t k = 0; k < sizeof role_names / sizeof role_names[0]; ++k)
            if (strcmp(mb_skeleton_name(s, j), role_names[k].name) == 0) {
                r.of_joint[j] = (unsigned char)role_names[k].role;
                r.how[j] = MB_ROLE_FROM_MAP;
                if (r.joint[role_names[k].role] < 0)
                    r.joint[role_names[k].role] = j;
            }
    return r;
}

static void free_roles(mb_roles *r)
{
    free(r->of_joint);
    free(r->how);
    memset(r, 0, sizeof *r);
}

/* ---------- one character: skeleton, clip, roles, reference pose, up axis ---------- */

typedef struct character {
    mb_skeleton *own_s;
    mb_clip *own_c;
    mb_scene *scene;
    const mb_skeleton *s;
    const mb_clip *c;
    const mb_xform *ref; /* NULL: rest pose */
    mb_roles roles;
    mb_axis up;
    const char *name;
} character;

static character load_bvh(const char *rel, mb_axis up)
{
    character ch;
    memset(&ch, 0, sizeof ch);
    mb_error e;
    char path[256];
    snprintf(path, sizeof path, "bvh/%s", rel);
    cr_assert_eq(mb_bvh_read_file(mb_shared_path(path), NULL, &ch.own_s, &ch.own_c, &e), MB_OK,
                 "%s", e.text);
    ch.s = ch.own_s;
    ch.c = ch.own_c;
    ch.roles = roles_by_name(ch.s);
    ch.up = up;
    ch.name = rel;
    return ch;
}

/* CesiumMan: its bind pose is its reference pose, Y up (glTF). */
static character load_cesium(void)
{
    mb_test_need_assimp();
    character ch;
    memset(&ch, 0, sizeof ch);
    mb_error e;
    cr_assert_eq(mb_scene_read_file(mb_shared_path("mesh/CesiumMan.glb"), NULL, &ch.scene, &e),
                 MB_OK, "%s", e.text);
    ch.s = mb_scene_skeleton(ch.scene);
    ch.c = mb_scene_clip(ch.scene, 0);
    const mb_mesh *m = mb_scene_mesh(ch.scene);
    cr_assert_eq(mb_mesh_skeleton_joint_count(m), mb_skeleton_joint_count(ch.s));
    ch.ref = mb_mesh_bind_pose(m);
    ch.roles = roles_by_name(ch.s);
    ch.up = MB_AXIS_Y;
    ch.name = "CesiumMan.glb";
    return ch;
}

static void unload(character *ch)
{
    free_roles(&ch->roles);
    mb_clip_destroy(ch->own_c);
    mb_skeleton_destroy(ch->own_s);
    mb_scene_destroy(ch->scene);
}

static mb_retarget_side side_of(const character *ch)
{
    mb_retarget_side sd = {ch->s, &ch->roles, ch->ref, ch->up, ch->name};
    return sd;
}

/* src's clip on dst's skeleton; the test fails on an error. */
static mb_clip *retarget(const character *src, const mb_clip *clip, const character *dst,
                         mb_retarget_report *rep)
{
    mb_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.from = side_of(src);
    d.clip = clip;
    d.to = side_of(dst);
    mb_clip *out = NULL;
    mb_error e;
    cr_assert_eq(mb_retarget(&d, &out, rep, &e), MB_OK, "%s: %s", e.source, e.text);
    cr_assert_not_null(out);
    cr_assert_eq(mb_clip_frame_count(out), mb_clip_frame_count(clip));
    cr_assert_eq(mb_clip_frame_time(out), mb_clip_frame_time(clip));
    return out;
}

/* ---------- world positions (the library's float FK) ---------- */

typedef struct track {
    int nf, nj;
    float (*w)[16]; /* [frame][joint] */
} track;

static track fk_all(const mb_skeleton *s, const mb_clip *c)
{
    track t;
    t.nf = mb_clip_frame_count(c);
    t.nj = mb_skeleton_joint_count(s);
    t.w = malloc(sizeof *t.w * (size_t)t.nf * (size_t)t.nj);
    mb_xform *x = malloc(sizeof *x * (size_t)t.nj);
    cr_assert(t.w && x);
    for (int f = 0; f < t.nf; ++f) {
        mb_pose p = {x, t.nj};
        cr_assert_eq(mb_clip_frame_pose(s, c, f, p), MB_OK);
        cr_assert_eq(mb_fk(s, &p, t.w + (size_t)f * t.nj, t.nj), MB_OK);
    }
    free(x);
    return t;
}

static void pos_of(const track *t, int f, int j, double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = t->w[(size_t)f * t->nj + j][12 + k];
}

/* Direction from joint a to joint b at frame f in the body's heading frame: components
 * along (left, up, forward), left = the hips' left (right upper leg to left) made
 * horizontal, up the world up axis, forward = left x up. */
static void heading_dir(const track *t, const mb_roles *r, mb_axis up, int f, int a, int b,
                        double out[3])
{
    double pa[3], pb[3], ll[3], lr[3], u[3] = {0, 0, 0}, l[3], fw[3], d[3];
    u[mb_axis_index(up)] = 1.0;
    pos_of(t, f, a, pa);
    pos_of(t, f, b, pb);
    pos_of(t, f, r->joint[MB_ROLE_UPPER_LEG_L], ll);
    pos_of(t, f, r->joint[MB_ROLE_UPPER_LEG_R], lr);
    for (int k = 0; k < 3; ++k)
        l[k] = ll[k] - lr[k], d[k] = pb[k] - pa[k];
    double lu = l[0] * u[0] + l[1] * u[1] + l[2] * u[2];
    for (int k = 0; k < 3; ++k)
        l[k] -= lu * u[k];
    double n = sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    cr_assert(n > 0.0);
    for (int k = 0; k < 3; ++k)
        l[k] /= n;
    fw[0] = l[1] * u[2] - l[2] * u[1];
    fw[1] = l[2] * u[0] - l[0] * u[2];
    fw[2] = l[0] * u[1] - l[1] * u[0];
    double dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    cr_assert(dn > 0.0);
    out[0] = (d[0] * l[0] + d[1] * l[1] + d[2] * l[2]) / dn;
    out[1] = (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) / dn;
    out[2] = (d[0] * fw[0] + d[1] * fw[1] + d[2] * fw[2]) / dn;
}

static double angle_deg(const double a[3], const double b[3])
{
    double c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return acos(fmax(-1.0, fmin(1.0, c))) * DEG;
}

/* The limb bones: from the role's joint to the next role's joint. */
static const mb_role limb_from[] = {
    MB_ROLE_UPPER_ARM_L, MB_ROLE_UPPER_ARM_R, MB_ROLE_FOREARM_L,   MB_ROLE_FOREARM_R,
    MB_ROLE_UPPER_LEG_L, MB_ROLE_UPPER_LEG_R, MB_ROLE_LOWER_LEG_L, MB_ROLE_LOWER_LEG_R,
    MB_ROLE_FOOT_L,      MB_ROLE_FOOT_R};
static const mb_role limb_to[] = {
    MB_ROLE_FOREARM_L, MB_ROLE_FOREARM_R, MB_ROLE_HAND_L,   MB_ROLE_HAND_R,   MB_ROLE_LOWER_LEG_L,
    MB_ROLE_LOWER_LEG_R, MB_ROLE_FOOT_L,  MB_ROLE_FOOT_R,   MB_ROLE_TOES_L,   MB_ROLE_TOES_R};
#define LIMB_COUNT ((int)(sizeof limb_from / sizeof limb_from[0]))

/* The largest angle (degrees) over frames and limb bones between the source's and the
 * target's bone directions in their heading frames. */
static double worst_limb_angle(const track *ts, const character *src, const track *tt,
                               const character *dst)
{
    double worst = 0.0;
    for (int b = 0; b < LIMB_COUNT; ++b) {
        const mb_roles *rs = &src->roles, *rt = &dst->roles;
        if (rs->joint[limb_to[b]] < 0 || rt->joint[limb_to[b]] < 0)
            continue;
        for (int f = 0; f < ts->nf; ++f) {
            double ds[3], dt[3];
            heading_dir(ts, rs, src->up, f, rs->joint[limb_from[b]], rs->joint[limb_to[b]], ds);
            heading_dir(tt, rt, dst->up, f, rt->joint[limb_from[b]], rt->joint[limb_to[b]], dt);
            worst = fmax(worst, angle_deg(ds, dt));
        }
    }
    return worst;
}

/* The largest relative difference, over frames and joints, between the distance of a joint
 * to its parent and that bone's length in the reference pose of the target. */
static double worst_bone_length(const track *tt, const character *dst)
{
    const int *parent = mb_skeleton_parents(dst->s);
    double worst = 0.0;
    for (int j = 0; j < tt->nj; ++j) {
        if (parent[j] < 0 || j == dst->roles.joint[MB_ROLE_HIPS] ||
            (dst->s == NULL))
            continue;
        const float *o = dst->ref ? dst->ref[j].pos : mb_skeleton_offset(dst->s, j);
        double len = sqrt((double)o[0] * o[0] + (double)o[1] * o[1] + (double)o[2] * o[2]);
        /* the hips' parents carry the root motion: their bones are not the body's */
        int below_hips = 0;
        for (int a = parent[j]; a >= 0; a = parent[a])
            below_hips |= a == dst->roles.joint[MB_ROLE_HIPS];
        if (!below_hips)
            continue;
        for (int f = 0; f < tt->nf; ++f) {
            double pj[3], pp[3];
            pos_of(tt, f, j, pj);
            pos_of(tt, f, parent[j], pp);
            double d = sqrt((pj[0] - pp[0]) * (pj[0] - pp[0]) + (pj[1] - pp[1]) * (pj[1] - pp[1]) +
                            (pj[2] - pp[2]) * (pj[2] - pp[2]));
            worst = fmax(worst, fabs(d - len) / fmax(len, 1e-3));
        }
    }
    return worst;
}

/* ---------- contacts and foot skate ---------- */

/* Contacts by the library's rule. height > 0: the height the thresholds scale with (else
 * the clip's own analysis). */
static void contacts_of(const character *ch, const mb_clip *c, double height, unsigned char *l,
                        unsigned char *r, mb_motion_info *info)
{
    mb_analyze_desc ad = {ch->up, mb_skeleton_name(ch->s, ch->roles.joint[MB_ROLE_FOOT_L]),
                          mb_skeleton_name(ch->s, ch->roles.joint[MB_ROLE_FOOT_R])};
    mb_error e;
    cr_assert_eq(mb_motion_analyze(ch->s, c, &ad, ch->name, info, &e), MB_OK, "%s", e.text);
    if (height > 0.0)
        info->height = (float)height;
    cr_assert_eq(mb_motion_contacts(ch->s, c, info, l, r, &e), MB_OK, "%s", e.text);
}

/* The largest distance (frames) from a frame where a and b disagree to the nearest frame
 * of b that holds a's value (0 when they agree everywhere). */
static int contact_offset(const unsigned char *a, const unsigned char *b, int nf)
{
    int worst = 0;
    for (int f = 0; f < nf; ++f) {
        if (a[f] == b[f])
            continue;
        int d = 1;
        while (d < nf && !((f - d >= 0 && b[f - d] == a[f]) || (f + d < nf && b[f + d] == a[f])))
            ++d;
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* Mean horizontal speed (units/s) of both feet over their contact frames, per leg length. */
static double skate(const track *t, const character *ch, const unsigned char *cl,
                    const unsigned char *cr, double ft, double leg)
{
    int ui = mb_axis_index(ch->up);
    double sum = 0.0;
    int n = 0;
    for (int lr = 0; lr < 2; ++lr) {
        const unsigned char *c = lr ? cr : cl;
        int foot = ch->roles.joint[lr ? MB_ROLE_FOOT_R : MB_ROLE_FOOT_L];
        for (int f = 1; f < t->nf; ++f) {
            if (!c[f] || !c[f - 1])
                continue;
            double a[3], b[3], h = 0.0;
            pos_of(t, f - 1, foot, a);
            pos_of(t, f, foot, b);
            for (int k = 0; k < 3; ++k)
                if (k != ui)
                    h += (b[k] - a[k]) * (b[k] - a[k]);
            sum += sqrt(h) / ft;
            ++n;
        }
    }
    return n ? sum / n / leg : 0.0;
}

/* Upper + lower leg at frame 0, the mean of both sides. */
static double leg_of(const track *t, const mb_roles *r)
{
    double sum = 0.0;
    for (int lr = 0; lr < 2; ++lr) {
        int j[3] = {r->joint[MB_ROLE_UPPER_LEG_L + lr], r->joint[MB_ROLE_LOWER_LEG_L + lr],
                    r->joint[MB_ROLE_FOOT_L + lr]};
        for (int k = 0; k < 2; ++k) {
            double a[3], b[3];
            pos_of(t, 0, j[k], a);
            pos_of(t, 0, j[k + 1], b);
            sum += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                        (a[2] - b[2]) * (a[2] - b[2]));
        }
    }
    return 0.5 * sum;
}

/* The done-when invariants of one retarget: bone lengths, limb directions, contacts, skate. */
static void check_invariants(const character *src, const character *dst)
{
    mb_retarget_report rep;
    mb_clip *out = retarget(src, src->c, dst, &rep);
    track ts = fk_all(src->s, src->c), tt = fk_all(dst->s, out);
    double bone = worst_bone_length(&tt, dst), ang = worst_limb_angle(&ts, src, &tt, dst);
    int nf = ts.nf;
    unsigned char *c = malloc(6 * (size_t)nf);
    mb_motion_info is, it;
    double leg_s = leg_of(&ts, &src->roles), leg_t = leg_of(&tt, &dst->roles);
    /* The contact rule's thresholds scale with the body height; the two bodies' heights
     * are not in the ratio of their legs (Bandai's torso is shorter for its legs than
     * CMU's), so the target's contacts are found with the source's height scaled by the
     * legs, as the motion was: the same rule in leg units. Its own height gives off_own. */
    contacts_of(src, src->c, 0.0, c, c + nf, &is);
    contacts_of(dst, out, is.height * leg_t / leg_s, c + 2 * nf, c + 3 * nf, &it);
    contacts_of(dst, out, 0.0, c + 4 * nf, c + 5 * nf, &it);
    int off = 0, off_own = 0, planted_s = 0, planted_t = 0;
    for (int lr = 0; lr < 2; ++lr)
        for (int k = 0; k < 2; ++k) {
            const unsigned char *a = c + lr * nf, *b = c + (2 + 2 * k + lr) * nf;
            int *o = k ? &off_own : &off;
            int x = contact_offset(a, b, nf), y = contact_offset(b, a, nf);
            *o = x > *o ? x : *o;
            *o = y > *o ? y : *o;
        }
    for (int f = 0; f < 2 * nf; ++f)
        planted_s += c[f], planted_t += c[2 * nf + f];
    double ft = mb_clip_frame_time(src->c);
    double ks = skate(&ts, src, c, c + nf, ft, leg_s);
    double kt = skate(&tt, dst, c + 2 * nf, c + 3 * nf, ft, leg_t);
    cr_log_info("%s -> %s: bone length %.2g, worst limb angle %.3f deg, contact offset %d "
                "(own height: %d; %d / %d planted), skate %.4f -> %.4f legs/s (x%.3f)",
                src->name, dst->name, bone, ang, off, off_own, planted_s, planted_t, ks, kt,
                ks > 0 ? kt / ks : 0.0);
    cr_expect(bone < 1e-4, "bone lengths differ by %g", bone);
    cr_expect(ang < 10.0, "a limb bone is %.2f degrees off", ang);
    cr_expect(off <= 1, "contacts %d frames apart", off);
    cr_expect(planted_s > nf / 4, "the source plants its feet on %d frames only", planted_s);
    cr_expect(ks > 0.0 && kt <= 1.5 * ks, "foot skate %.4f against the source's %.4f", kt, ks);
    free(c);
    free(ts.w);
    free(tt.w);
    mb_clip_destroy(out);
}

Test(retarget, cmu_walk_to_bandai)
{
    character src = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    character dst = load_bvh("bandai2_walk_normal_001.bvh", MB_AXIS_Y);
    check_invariants(&src, &dst);
    unload(&src);
    unload(&dst);
}

Test(retarget, cmu_walk_to_cesium_man)
{
    character src = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    character dst = load_cesium();
    check_invariants(&src, &dst);
    unload(&src);
    unload(&dst);
}

Test(retarget, bandai_walk_to_cmu)
{
    character src = load_bvh("bandai2_walk_normal_001.bvh", MB_AXIS_Y);
    character dst = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    check_invariants(&src, &dst);
    unload(&src);
    unload(&dst);
}

/* ---------- round trips ---------- */

/* Rotation angle (degrees) between the 3x3 parts of two world matrices. */
static double mat_angle(const float *a, const float *b)
{
    double tr = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            tr += (double)a[4 * i + k] * b[4 * i + k];
    return acos(fmax(-1.0, fmin(1.0, 0.5 * (tr - 1.0)))) * DEG;
}

/* A -> B -> A: every joint of A whose role B has (spine joints aside when the spines
 * differ in length) gets its world rotation back within 2 degrees on every frame. Returns
 * the worst angle; *spine the worst over spine joints. */
static double round_trip(const character *a, const character *b, double *spine)
{
    mb_clip *ab = retarget(a, a->c, b, NULL);
    mb_clip *aba = retarget(b, ab, a, NULL);
    track t0 = fk_all(a->s, a->c), t1 = fk_all(a->s, aba);
    double worst = 0.0;
    int spines_a = 0, spines_b = 0, checked = 0;
    for (int j = 0; j < t0.nj; ++j)
        spines_a += a->roles.of_joint[j] == MB_ROLE_SPINE;
    for (int j = 0; j < b->roles.joint_count; ++j)
        spines_b += b->roles.of_joint[j] == MB_ROLE_SPINE;
    *spine = 0.0;
    for (int j = 0; j < t0.nj; ++j) {
        mb_role r = (mb_role)a->roles.of_joint[j];
        if (r == MB_ROLE_NONE || (r != MB_ROLE_SPINE && b->roles.joint[r] < 0))
            continue;
        for (int f = 0; f < t0.nf; ++f) {
            double d = mat_angle(t0.w[(size_t)f * t0.nj + j], t1.w[(size_t)f * t1.nj + j]);
            if (r == MB_ROLE_SPINE && spines_a != spines_b) {
                *spine = fmax(*spine, d);
            }
            else {
                worst = fmax(worst, d);
            }
        }
        checked += r != MB_ROLE_SPINE || spines_a == spines_b;
    }
    cr_assert(checked >= 16, "only %d joints mapped", checked);
    cr_log_info("%s -> %s -> back: worst %.4f deg over %d joints (spine of %d against %d "
                "joints: %.2f deg)", a->name, b->name, worst, checked, spines_a, spines_b,
                *spine);
    free(t0.w);
    free(t1.w);
    mb_clip_destroy(ab);
    mb_clip_destroy(aba);
    return worst;
}

Test(retarget, round_trip_cmu_bandai_cmu)
{
    character a = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    character b = load_bvh("bandai2_walk_normal_001.bvh", MB_AXIS_Y);
    double spine, worst = round_trip(&a, &b, &spine);
    cr_expect(worst < 2.0, "%.3f degrees", worst);
    /* CMU's two spine joints through Bandai's one come back bent alike, not as they were */
    cr_expect(spine < 15.0, "spine %.3f degrees", spine);
    /* Bandai's rest pose is no body pose (every bone along X): its spine's twist about the
     * spine's own axis is not recoverable through two spine joints (measured: 46 degrees) */
    worst = round_trip(&b, &a, &spine);
    cr_expect(worst < 2.0, "%.3f degrees", worst);
    unload(&a);
    unload(&b);
}

Test(retarget, round_trip_cmu_cesium_man_cmu)
{
    character a = load_bvh("cmu_09_01_run.bvh", MB_AXIS_Y);
    character b = load_cesium();
    double spine, worst = round_trip(&a, &b, &spine);
    cr_expect(worst < 2.0, "%.3f degrees", worst);
    cr_expect(spine < 20.0, "spine %.3f degrees", spine);
    unload(&a);
    unload(&b);
}

/* ---------- a T-pose figure driving an A-pose figure (hand-checked) ---------- */

/* A figure facing +Z, Y up, left +X: hips at (0, leg, 0), arms level (T-pose) or 45
 * degrees down (A-pose), legs of `leg` (two bones), arms of `arm` (two bones); with_prop
 * adds an unmapped joint on the chest. */
static mb_skeleton *figure(int a_pose, double leg, double arm, int with_prop)
{
    const double c = a_pose ? sqrt(0.5) : 1.0, s = a_pose ? -sqrt(0.5) : 0.0;
    const float h = (float)(arm / 2 * c), v = (float)(arm / 2 * s), l = (float)(leg / 2);
    mb_joint_desc j[17];
    memset(j, 0, sizeof j);
    const struct {
        const char *name;
        int parent;
        float o[3];
        int end;
    } t[17] = {{"hips", -1, {0, 0, 0}, 0},   {"chest", 0, {0, 5, 0}, 0},
               {"arm_l", 1, {1, 0, 0}, 0},   {"fore_l", 2, {h, v, 0}, 0},
               {"hand_l", 3, {h, v, 0}, 1},  {"arm_r", 1, {-1, 0, 0}, 0},
               {"fore_r", 5, {-h, v, 0}, 0}, {"hand_r", 6, {-h, v, 0}, 1},
               {"thigh_l", 0, {1, 0, 0}, 0}, {"shin_l", 8, {0, -l, 0}, 0},
               {"foot_l", 9, {0, -l, 0}, 0}, {"toe_l", 10, {0, -0.5f, 1}, 1},
               {"thigh_r", 0, {-1, 0, 0}, 0}, {"shin_r", 12, {0, -l, 0}, 0},
               {"foot_r", 13, {0, -l, 0}, 0}, {"toe_r", 14, {0, -0.5f, 1}, 1},
               {"prop", 1, {0, 1, 1}, 0}};
    int n = with_prop ? 17 : 16;
    for (int i = 0; i < n; ++i) {
        j[i].name = t[i].name;
        j[i].parent = t[i].parent;
        memcpy(j[i].offset, t[i].o, sizeof j[i].offset);
        j[i].end_site = t[i].end;
        if (!t[i].end) {
            mb_channel rot[3] = {MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
            j[i].channel_count = i == 0 ? 6 : 3;
            for (int k = 0; k < j[i].channel_count; ++k)
                j[i].channels[k] = i == 0 && k < 3 ? (mb_channel)(MB_CH_XPOS + k) : rot[k - (i == 0) * 3];
        }
    }
    mb_skeleton_desc d = {j, n, {0}};
    mb_skeleton *out = NULL;
    mb_error e;
    cr_assert_eq(mb_skeleton_create(&d, &out, &e), MB_OK, "%s", e.text);
    return out;
}

static void quat_axis_angle(const double axis[3], double deg, float q[4])
{
    double h = deg / DEG / 2;
    for (int k = 0; k < 3; ++k)
        q[k] = (float)(axis[k] * sin(h));
    q[3] = (float)cos(h);
}

Test(retarget, t_pose_drives_a_pose)
{
    character src, dst;
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    src.own_s = figure(0, 10, 6, 0);
    dst.own_s = figure(1, 20, 9, 1);
    src.s = src.own_s, dst.s = dst.own_s;
    src.roles = roles_by_name(src.s);
    dst.roles = roles_by_name(dst.s);
    src.up = dst.up = MB_AXIS_Y;
    src.name = "T", dst.name = "A";
    /* frame 0: the T-pose; 1: the left arm 45 degrees down, the hips 4 forward; 2: as 1 and
     * the left forearm twisted 30 degrees about its bone */
    int nj = mb_skeleton_joint_count(src.s);
    float *rot = calloc((size_t)nj * 3 * 4, sizeof *rot), *tr = calloc((size_t)nj * 3 * 3, sizeof *tr);
    for (int i = 0; i < nj * 3; ++i)
        rot[4 * i + 3] = 1.0f;
    const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
    quat_axis_angle(z, -45, rot + 4 * (1 * nj + 2));
    quat_axis_angle(z, -45, rot + 4 * (2 * nj + 2));
    quat_axis_angle(x, 30, rot + 4 * (2 * nj + 3));
    for (int f = 0; f < 3; ++f)
        tr[3 * (f * nj) + 1] = 10.0f, tr[3 * (f * nj) + 2] = f ? 4.0f : 0.0f;
    cr_assert_eq(mb_test_clip_full(src.s, 3, 1.0 / 30, rot, tr, &src.own_c), MB_OK);
    src.c = src.own_c;
    mb_retarget_report rep;
    mb_clip *out = retarget(&src, src.c, &dst, &rep);
    track tt = fk_all(dst.s, out);
    double d0[3], d1[3];
    pos_of(&tt, 0, 3, d0);
    pos_of(&tt, 0, 2, d1);
    /* frame 0: the A-pose arm level, as the source's */
    cr_expect(fabs(d0[1] - d1[1]) < 1e-4 && d0[0] - d1[0] > 4.4, "arm at (%g, %g)",
              d0[0] - d1[0], d0[1] - d1[1]);
    /* frame 1: the source's arm where the target's rest has it: local rotation identity */
    const float *qa = mb_clip_rotations(out) + 4 * ((size_t)1 * (nj + 1) + 2);
    cr_expect(fabs(fabs(qa[3]) - 1.0) < 1e-5, "arm_l local at frame 1: %g %g %g %g", qa[0],
              qa[1], qa[2], qa[3]);
    /* the hips carried 4 forward, scaled by the legs (20 / 10) */
    double hp[3];
    pos_of(&tt, 1, 0, hp);
    cr_expect(fabs(hp[2] - 8.0) < 1e-4 && fabs(hp[1] - 20.0) < 1e-4, "hips at %g %g %g", hp[0],
              hp[1], hp[2]);
    cr_expect(fabs(rep.scale - 2.0) < 1e-9);
    cr_expect(fabs(rep.role[MB_ROLE_UPPER_ARM_L].rest_angle - 45.0) < 1e-3, "%g",
              rep.role[MB_ROLE_UPPER_ARM_L].rest_angle);
    cr_expect_eq(rep.role[MB_ROLE_HIPS].how, MB_RETARGET_FRAME);
    cr_expect_eq(rep.role[MB_ROLE_FOREARM_L].how, MB_RETARGET_DIRECTION);
    cr_expect_eq(rep.unmapped_joints, 1); /* the prop */
    /* frame 2: the twist carried by the forearm: 30 degrees about its own bone */
    const float *qf = mb_clip_rotations(out) + 4 * ((size_t)2 * (nj + 1) + 3);
    float want[4];
    const double bone[3] = {sqrt(0.5), -sqrt(0.5), 0};
    quat_axis_angle(bone, 30, want);
    cr_expect(mb_quat_angle_between(qf, want) < 1e-4, "forearm %g %g %g %g", qf[0], qf[1],
              qf[2], qf[3]);
    /* the unmapped prop keeps its rest pose on every frame */
    for (int f = 0; f < 3; ++f) {
        const float *qp = mb_clip_rotations(out) + 4 * ((size_t)f * (nj + 1) + 16);
        cr_expect(fabs(fabs(qp[3]) - 1.0) < 1e-6, "prop rotates at frame %d", f);
    }
    free(rot);
    free(tr);
    free(tt.w);
    mb_clip_destroy(out);
    unload(&src);
    unload(&dst);
}

/* ---------- errors ---------- */

Test(retarget, missing_roles_named_nothing_written)
{
    character src = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    character dst = load_bvh("bandai2_walk_normal_001.bvh", MB_AXIS_Y);
    int chest = dst.roles.joint[MB_ROLE_CHEST], foot = dst.roles.joint[MB_ROLE_FOOT_R];
    dst.roles.joint[MB_ROLE_CHEST] = dst.roles.joint[MB_ROLE_FOOT_R] = -1;
    dst.roles.of_joint[chest] = dst.roles.of_joint[foot] = MB_ROLE_NONE;
    mb_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.from = side_of(&src);
    d.clip = src.c;
    d.to = side_of(&dst);
    mb_clip *out = (mb_clip *)&d; /* must be set to NULL */
    mb_error e;
    cr_assert_eq(mb_retarget(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_expect_null(out);
    cr_expect(strstr(e.text, "chest") && strstr(e.text, "foot_r"), "%s", e.text);
    cr_expect_str_eq(e.source, dst.name);
    unload(&src);
    unload(&dst);
}

Test(retarget, bad_descs)
{
    character src = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    character dst = load_bvh("bandai2_walk_normal_001.bvh", MB_AXIS_Y);
    mb_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.from = side_of(&src);
    d.clip = src.c;
    d.to = side_of(&dst);
    mb_clip *out = NULL;
    mb_error e;
    cr_expect_eq(mb_retarget(NULL, &out, NULL, &e), MB_INVALID_ARG);
    cr_expect_eq(mb_retarget(&d, NULL, NULL, &e), MB_INVALID_ARG);
    mb_retarget_desc bad = d;
    bad.to.roles = &src.roles; /* roles of another skeleton */
    cr_expect_eq(mb_retarget(&bad, &out, NULL, &e), MB_INVALID_ARG);
    cr_expect(strstr(e.text, "roles of"), "%s", e.text);
    bad = d;
    bad.to.up_axis = (mb_axis)7;
    cr_expect_eq(mb_retarget(&bad, &out, NULL, &e), MB_INVALID_ARG);
    bad = d;
    bad.clip = dst.c; /* a clip of the other skeleton */
    cr_expect_eq(mb_retarget(&bad, &out, NULL, &e), MB_INVALID_ARG);
    bad = d;
    bad.to.up_axis = MB_AXIS_DETECT; /* nothing to detect it from */
    cr_expect_eq(mb_retarget(&bad, &out, NULL, &e), MB_INVALID_ARG);
    cr_expect(strstr(e.text, "detect"), "%s", e.text);
    cr_expect_null(out);
    /* with the target's clip the axis is found (Y), and the source's from its clip */
    bad.to_clip = dst.c;
    bad.from.up_axis = MB_AXIS_DETECT;
    mb_retarget_report rep;
    cr_assert_eq(mb_retarget(&bad, &out, &rep, &e), MB_OK, "%s", e.text);
    cr_expect_eq(rep.target_up, MB_AXIS_Y);
    cr_expect_eq(rep.source_up, MB_AXIS_Y);
    char text[4096];
    int n = mb_retarget_report_format(&rep, src.s, dst.s, text, sizeof text);
    cr_expect(n > 0 && (size_t)n < sizeof text);
    cr_expect(strstr(text, "upper_arm_l  LeftArm -> UpperArm_L: direction"), "%s", text);
    cr_expect_eq(mb_retarget_report_format(&rep, src.s, dst.s, text, 8), n); /* truncated */
    cr_expect_eq(strlen(text), 7u);
    mb_clip_destroy(out);
    unload(&src);
    unload(&dst);
}

/* The same invariants with the roles mb_roles_find gives (CesiumMan's from its topology). */
static void use_found_roles(character *ch)
{
    free_roles(&ch->roles);
    mb_error e;
    cr_assert_eq(mb_roles_find(ch->s, NULL, &ch->roles, &e), MB_OK, "%s", e.text);
}

Test(retarget, roles_found_by_the_library)
{
    character src = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    character dst = load_cesium();
    character bandai = load_bvh("bandai2_walk_normal_001.bvh", MB_AXIS_Y);
    use_found_roles(&src);
    use_found_roles(&dst);
    use_found_roles(&bandai);
    check_invariants(&src, &dst);
    check_invariants(&src, &bandai);
    mb_roles_free(&src.roles);
    mb_roles_free(&dst.roles);
    mb_roles_free(&bandai.roles);
    unload(&src);
    unload(&dst);
    unload(&bandai);
}

/* Another up axis: a Z-up dance (three spine joints) onto the Y-up CMU skeleton (two): bones
 * keep CMU's lengths and limbs point as the dancer's do, each in its own heading frame. */
Test(retarget, z_up_dance_onto_y_up_cmu)
{
    character src = load_bvh("animdraw_fair1_dab_zup.bvh", MB_AXIS_Z);
    character dst = load_bvh("cmu_02_01_walk.bvh", MB_AXIS_Y);
    use_found_roles(&src);
    use_found_roles(&dst);
    mb_retarget_report rep;
    mb_clip *out = retarget(&src, src.c, &dst, &rep);
    cr_expect_eq(rep.source_up, MB_AXIS_Z);
    cr_expect_eq(rep.target_up, MB_AXIS_Y);
    track ts = fk_all(src.s, src.c), tt = fk_all(dst.s, out);
    double bone = worst_bone_length(&tt, &dst), ang = worst_limb_angle(&ts, &src, &tt, &dst);
    cr_log_info("%s -> %s: bone length %.2g, worst limb angle %.3f deg", src.name, dst.name,
                bone, ang);
    cr_expect(bone < 1e-4, "bone lengths differ by %g", bone);
    cr_expect(ang < 10.0, "a limb bone is %.2f degrees off", ang);
    /* the hips stay as high above the ground, in leg lengths: Z in, Y out */
    double hs[3], ht[3];
    pos_of(&ts, 100, src.roles.joint[MB_ROLE_HIPS], hs);
    pos_of(&tt, 100, dst.roles.joint[MB_ROLE_HIPS], ht);
    cr_expect(fabs(ht[1] / rep.target_leg - hs[2] / rep.source_leg) < 1e-4, "%g against %g",
              ht[1] / rep.target_leg, hs[2] / rep.source_leg);
    free(ts.w);
    free(tt.w);
    mb_clip_destroy(out);
    unload(&src);
    unload(&dst);
}
