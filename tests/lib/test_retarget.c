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
    for (int j = 0; j < t0.nj; ++j) {
        spines_a += a->roles.of_joint[j] == MB_ROLE_SPINE;
        spines_b += j < b->roles.joint_count && 0;
    }
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
                if (d > *spine && getenv("RT_DEBUG")) fprintf(stderr, "spine j%d f%d %.2f\n", j, f, d);
                *spine = fmax(*spine, d);
            }
            else {
                if (d > worst && getenv("RT_DEBUG")) fprintf(stderr, "joint %s f%d %.2f\n", mb_skeleton_name(a->s, j), f, d);
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
    unload(&a);
    unload(&b);
}
