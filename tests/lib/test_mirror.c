/* Mirroring (offline/mirror.h) on the shared clips and on built skeletons, against
 * invariants computed here in double: mirroring twice is the identity; the mirrored left
 * foot is the input's right foot reflected across the plane; every bone of the mirrored
 * pose points where its pair's bone points, reflected; a left turn becomes a right turn
 * of the same angle; bad skeletons are refused naming the missing roles. */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "mblend/mblend.h"
#include "test_util.h"

typedef struct subject {
    mb_source *src;
    const mb_skeleton *s;
    const mb_clip *c;
    mb_motion_info info;
    mb_roles roles;
} subject;

/* Opens a shared clip ("bvh/x.bvh", "mesh/Fox.glb#Walk") with its analysis and roles. */
static subject open_subject(const char *rel)
{
    subject u;
    mb_error e;
    char path[4400];
    const char *hash = strchr(rel, '#');
    if (hash) {
        mb_test_need_assimp();
        char file[256];
        snprintf(file, sizeof file, "%.*s", (int)(hash - rel), rel);
        snprintf(path, sizeof path, "%s%s", mb_shared_path(file), hash);
    } else {
        snprintf(path, sizeof path, "%s", mb_shared_path(rel));
    }
    cr_assert_eq(mb_source_open(path, NULL, &u.src, &e), MB_OK, "%s: %s", rel, e.text);
    u.s = mb_source_skeleton(u.src);
    u.c = mb_source_clip(u.src);
    mb_analyze_desc ad = {mb_source_up_axis(u.src), NULL, NULL};
    cr_assert_eq(mb_motion_analyze(u.s, u.c, &ad, rel, &u.info, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_roles_find(u.s, NULL, &u.roles, &e), MB_OK, "%s", e.text);
    return u;
}

static void close_subject(subject *u)
{
    mb_roles_free(&u->roles);
    mb_source_destroy(u->src);
}

static mb_clip *mirror_of(const mb_skeleton *s, const mb_clip *c, mb_axis up, mb_mirror_plane *plane)
{
    mb_mirror_desc d = {0};
    d.skeleton = s;
    d.clip = c;
    d.up_axis = up;
    d.source = "test";
    mb_clip *out = NULL;
    mb_error e;
    cr_assert_eq(mb_clip_mirror(&d, &out, plane, &e), MB_OK, "%s", e.text);
    cr_assert_not_null(out);
    return out;
}

/* World positions (double from float FK) of every joint of every frame: [f][j][3]. */
static double *world_positions(const mb_skeleton *s, const mb_clip *c)
{
    int n = mb_skeleton_joint_count(s), frames = mb_clip_frame_count(c);
    double *out = malloc(sizeof *out * 3 * (size_t)n * (size_t)frames);
    mb_xform *x = malloc(sizeof *x * (size_t)n);
    float(*w)[16] = malloc(sizeof *w * (size_t)n);
    mb_pose p = {x, n};
    for (int f = 0; f < frames; ++f) {
        cr_assert_eq(mb_clip_frame_pose(s, c, f, p), MB_OK);
        cr_assert_eq(mb_fk(s, &p, w, n), MB_OK);
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < 3; ++k)
                out[((size_t)f * n + j) * 3 + k] = w[j][12 + k];
    }
    free(x);
    free(w);
    return out;
}

/* o + M (p - o), M the reflection across the plane: computed here, not by the library. */
static void reflect_point(const mb_mirror_plane *pl, const double p[3], double out[3])
{
    double d = 0;
    for (int k = 0; k < 3; ++k)
        d += (p[k] - pl->point[k]) * pl->normal[k];
    for (int k = 0; k < 3; ++k)
        out[k] = p[k] - 2 * d * pl->normal[k];
}

static double dist3(const double a[3], const double b[3])
{
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---------- mirroring twice ---------- */

static void check_twice(const char *rel)
{
    subject u = open_subject(rel);
    mb_mirror_plane p1, p2;
    mb_clip *once = mirror_of(u.s, u.c, u.info.up_axis, &p1);
    mb_clip *twice = mirror_of(u.s, once, u.info.up_axis, &p2);
    int n = mb_skeleton_joint_count(u.s), frames = mb_clip_frame_count(u.c);
    cr_assert_eq(mb_clip_frame_count(twice), frames);
    cr_assert_eq(mb_clip_translation_count(twice), mb_clip_translation_count(u.c));
    double worst = 0, worst_pos = 0;
    const float *a = mb_clip_rotations(u.c), *b = mb_clip_rotations(twice);
    for (size_t i = 0; i < (size_t)n * (size_t)frames; ++i)
        worst = fmax(worst, mb_quat_angle_between(a + 4 * i, b + 4 * i));
    double *pa = world_positions(u.s, u.c), *pb = world_positions(u.s, twice);
    for (size_t i = 0; i < (size_t)n * (size_t)frames; ++i)
        worst_pos = fmax(worst_pos, dist3(pa + 3 * i, pb + 3 * i));
    cr_assert_lt(worst, 1e-5, "%s: mirrored twice, a rotation is %g rad off", rel, worst);
    cr_assert_lt(worst_pos, 1e-4 * u.info.height, "%s: mirrored twice, a joint is %g off "
                 "(height %g)", rel, worst_pos, u.info.height);
    /* the same plane both times: the normal up to its sign, the hips on it */
    double dn = 0;
    for (int k = 0; k < 3; ++k)
        dn += p1.normal[k] * p2.normal[k];
    cr_assert_gt(fabs(dn), 1 - 1e-9, "%s", rel);
    /* and the mirror is not the identity: some rotation moved */
    double moved = 0;
    const float *m = mb_clip_rotations(once);
    for (size_t i = 0; i < (size_t)n * (size_t)frames; ++i)
        moved = fmax(moved, mb_quat_angle_between(a + 4 * i, m + 4 * i));
    cr_assert_gt(moved, 0.1, "%s", rel);
    free(pa);
    free(pb);
    mb_clip_destroy(once);
    mb_clip_destroy(twice);
    close_subject(&u);
}

Test(mirror, twice_is_identity_bvh)
{
    check_twice("bvh/cmu_02_01_walk.bvh");
    check_twice("bvh/bandai2_walk_normal_001.bvh");
    check_twice("bvh/cmu_131_01_mixedorder_mixedeol.bvh");
    check_twice("bvh/animdraw_fair1_dab_zup.bvh");
    check_twice("bvh/pymo_walk_rootoffset_xyz.bvh");
}

Test(mirror, twice_is_identity_gltf)
{
    check_twice("mesh/CesiumMan.glb");
    check_twice("mesh/Fox.glb#Walk");
}

/* ---------- the feet follow, reflected; bones point where their pairs point ---------- */

/* Sum over the joints from the hips down to joint j of the difference between their
 * offset length and their pair's: how far a mirrored joint may land from the reflected
 * pair when the skeleton's sides differ and the offsets are not tracked. */
static double side_asymmetry(const subject *u, const int *other, int j)
{
    double sum = 0;
    for (; j >= 0 && j != u->roles.joint[MB_ROLE_HIPS]; j = mb_skeleton_parents(u->s)[j]) {
        const float *a = mb_skeleton_offset(u->s, j), *b = mb_skeleton_offset(u->s, other[j]);
        sum += fabs(sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) -
                    sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]));
    }
    return sum;
}

/* Angle between vectors a and b, 0 when either is (nearly) zero. */
static double angle3(const double a[3], const double b[3])
{
    double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (la < 1e-6 || lb < 1e-6)
        return 0;
    double c = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb);
    return acos(fmax(-1.0, fmin(1.0, c)));
}

/* Whether joint p has exactly one child with a non-zero offset (a chain joint: its bone
 * is aligned exactly, not by the best of several). */
static int one_bone(const mb_skeleton *s, int p)
{
    int count = 0;
    for (int c = p + 1; c < mb_skeleton_joint_count(s); ++c) {
        const float *o = mb_skeleton_offset(s, c);
        count += mb_skeleton_parents(s)[c] == p && (o[0] != 0 || o[1] != 0 || o[2] != 0);
    }
    return count == 1;
}

/* The worst angle over the frames between a mirrored bone (parent -> k) and its pair's
 * bone reflected, for the bones below the hips (the scene nodes above them keep their
 * place); chain_only: only bones of chain joints. */
static double worst_bone_angle(const subject *u, const int *other, const double *pin,
                               const double *pout, const mb_mirror_plane *pl, int chain_only)
{
    int n = mb_skeleton_joint_count(u->s), frames = mb_clip_frame_count(u->c);
    const int *par = mb_skeleton_parents(u->s);
    double worst = 0, zero[3] = {0, 0, 0}, o[3];
    reflect_point(pl, zero, o);
    for (int k = 0; k < n; ++k) {
        int p = par[k], j = other[k];
        int below = 0;
        for (int a = p; a >= 0 && !below; a = par[a])
            below = a == u->roles.joint[MB_ROLE_HIPS];
        if (!below || par[j] != other[p] || (chain_only && !one_bone(u->s, p)))
            continue;
        for (int f = 0; f < frames; ++f) {
            const double *ck = pout + ((size_t)f * n + k) * 3, *cp = pout + ((size_t)f * n + p) * 3;
            const double *ij = pin + ((size_t)f * n + j) * 3, *ip = pin + ((size_t)f * n + par[j]) * 3;
            double got[3], want[3], a[3], b[3];
            for (int i = 0; i < 3; ++i)
                got[i] = ck[i] - cp[i];
            reflect_point(pl, ij, a);
            reflect_point(pl, ip, b);
            for (int i = 0; i < 3; ++i)
                want[i] = a[i] - b[i];
            worst = fmax(worst, angle3(got, want));
        }
    }
    return worst;
}

/* The mirrored left foot follows the input's right foot reflected (and right follows
 * left) within 1e-3 x height plus the skeleton's own left/right length difference; every
 * chain bone points where its pair's reflected bone points within 1e-4 rad, every bone
 * within max_deg. */
static void check_follow(const char *rel, double max_deg)
{
    subject u = open_subject(rel);
    mb_mirror_plane pl;
    mb_clip *m = mirror_of(u.s, u.c, u.info.up_axis, &pl);
    int n = mb_skeleton_joint_count(u.s), frames = mb_clip_frame_count(u.c);
    int *other = malloc(sizeof *other * (size_t)n);
    cr_assert_eq(mb_roles_mirror_joints(u.s, &u.roles, other, NULL), MB_OK);
    double *pin = world_positions(u.s, u.c), *pout = world_positions(u.s, m);
    for (int side = 0; side < 2; ++side) {
        int foot = u.roles.joint[MB_ROLE_FOOT_L + side], pair = u.roles.joint[MB_ROLE_FOOT_R - side];
        cr_assert(foot >= 0 && pair >= 0 && other[foot] == pair, "%s", rel);
        double tol = 1e-3 * u.info.height + side_asymmetry(&u, other, foot), worst = 0;
        for (int f = 0; f < frames; ++f) {
            double want[3];
            reflect_point(&pl, pin + ((size_t)f * n + pair) * 3, want);
            worst = fmax(worst, dist3(pout + ((size_t)f * n + foot) * 3, want));
        }
        cr_assert_leq(worst, tol, "%s: foot %d is %g from its pair reflected (allowed %g)", rel,
                      side, worst, tol);
    }
    double chain = worst_bone_angle(&u, other, pin, pout, &pl, 1);
    double all = worst_bone_angle(&u, other, pin, pout, &pl, 0);
    cr_assert_lt(chain, 1e-4, "%s: a chain bone is %g rad off its pair reflected", rel, chain);
    cr_assert_lt(all, max_deg * M_PI / 180, "%s: a bone is %g deg off", rel, all * 180 / M_PI);
    free(pin);
    free(pout);
    free(other);
    mb_clip_destroy(m);
    close_subject(&u);
}

Test(mirror, left_foot_follows_right_reflected)
{
    check_follow("bvh/bandai2_walk_normal_001.bvh", 1.0);
    check_follow("bvh/cmu_02_01_walk.bvh", 3.0);
    check_follow("bvh/cmu_09_12_walk_navigate_long.bvh", 3.0);
    check_follow("bvh/pymo_walk_rootoffset_xyz.bvh", 1.0);
    check_follow("mesh/Fox.glb#Walk", 1.0);
}
