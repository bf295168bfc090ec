/* Mirroring (offline/mirror.h) on the shared clips and on built skeletons, against
 * invariants computed here in double: mirroring twice is the identity; the mirrored left
 * foot is the input's right foot reflected across the plane; every bone of the mirrored
 * pose points where its pair's bone points, reflected; a left turn becomes a right turn
 * of the same angle; bad skeletons are refused naming the missing roles. */
#include <math.h>
#include <unistd.h>

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
    if (strncmp(rel, "mesh/", 5) == 0)
        mb_test_need_assimp();
    if (hash) {
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

/* ---------- turns ---------- */

/* The heading (radians about +up, counter-clockwise seen from above: a left turn
 * increases it) of the hips' world rotation applied to the horizontal vector v (the
 * plane's normal, which the reflection only negates, so that a heading change reflects
 * exactly into its negative whatever the body's tilt), per frame, unwrapped. */
static double *headings(const mb_skeleton *s, const mb_clip *c, int hips, mb_axis up,
                        const double v[3])
{
    int n = mb_skeleton_joint_count(s), frames = mb_clip_frame_count(c), ui = mb_axis_index(up);
    int a = (ui + 1) % 3, b = (ui + 2) % 3; /* (a, b, up) is right-handed */
    double *h = malloc(sizeof *h * (size_t)frames);
    mb_xform *x = malloc(sizeof *x * (size_t)n);
    float(*w)[16] = malloc(sizeof *w * (size_t)n);
    mb_pose p = {x, n};
    for (int f = 0; f < frames; ++f) {
        cr_assert_eq(mb_clip_frame_pose(s, c, f, p), MB_OK);
        cr_assert_eq(mb_fk(s, &p, w, n), MB_OK);
        double img[3] = {0, 0, 0}; /* W v, W column-major */
        for (int r = 0; r < 3; ++r)
            for (int k = 0; k < 3; ++k)
                img[r] += w[hips][k * 4 + r] * v[k];
        h[f] = atan2(img[b], img[a]);
        if (f > 0)
            h[f] = h[f - 1] + remainder(h[f] - h[f - 1], 2 * M_PI);
    }
    free(x);
    free(w);
    return h;
}

/* CMU 09_12 walks a long way round: from frame 241 to frame 721 it turns left by more
 * than 180 degrees. Mirrored, it turns right by the same angle, frame by frame. */
Test(mirror, left_turn_becomes_right_turn)
{
    subject u = open_subject("bvh/cmu_09_12_walk_navigate_long.bvh");
    mb_mirror_plane pl;
    mb_clip *m = mirror_of(u.s, u.c, u.info.up_axis, &pl);
    int hips = u.roles.joint[MB_ROLE_HIPS], frames = mb_clip_frame_count(u.c);
    double *a = headings(u.s, u.c, hips, u.info.up_axis, pl.normal);
    double *b = headings(u.s, m, hips, u.info.up_axis, pl.normal);
    double turn = a[721] - a[241];
    cr_assert_gt(turn, M_PI, "the input turns left by %g deg", turn * 180 / M_PI);
    cr_assert_lt(fabs((b[721] - b[241]) + turn), 1e-4, "mirrored: %g deg",
                 (b[721] - b[241]) * 180 / M_PI);
    double worst = 0;
    for (int f = 1; f < frames; ++f)
        worst = fmax(worst, fabs((b[f] - b[0]) + (a[f] - a[0])));
    cr_assert_lt(worst, 1e-4, "a frame's heading change is %g rad off the mirror of the input's",
                 worst);
    free(a);
    free(b);
    mb_clip_destroy(m);
    close_subject(&u);
}

/* ---------- a built skeleton whose sides are not mirrors ---------- */

/* A T-pose skeleton (Y up) whose right side differs from the left in every offset, and a
 * clip of it that turns left by 90 degrees while walking a quarter circle, every joint
 * swinging (sinusoids of different amplitudes and phases). */
static void asymmetric_clip(mb_skeleton **out_s, mb_clip **out_c)
{
    static const struct {
        const char *name;
        int parent;
        float off[3];
    } j[] = {
        {"Hips", -1, {0, 0, 0}},           {"Spine", 0, {0, 10, 0}},
        {"Chest", 1, {0, 10, 0}},          {"Neck", 2, {0, 8, 0}},
        {"Head", 3, {0, 5, 0}},            {"LeftShoulder", 2, {2, 6, 0.3f}},
        {"LeftArm", 5, {5, 0, 0}},         {"LeftForeArm", 6, {10, 0, 0}},
        {"LeftHand", 7, {8, 0, 0}},        {"LeftHand_End", 8, {3, 0, 0}},
        {"RightShoulder", 2, {-2.4f, 5.5f, -0.2f}}, {"RightArm", 10, {-5.5f, 0.4f, 0.3f}},
        {"RightForeArm", 11, {-9, -0.5f, 0.6f}},   {"RightHand", 12, {-8.5f, 0.2f, 0}},
        {"RightHand_End", 13, {-2.5f, 0.3f, 0}},   {"LeftUpLeg", 0, {4, -2, 0}},
        {"LeftLeg", 15, {0, -18, 0.5f}},   {"LeftFoot", 16, {0, -17, 0}},
        {"LeftToeBase", 17, {0, -2, 5}},   {"RightUpLeg", 0, {-3.6f, -2.2f, 0.1f}},
        {"RightLeg", 19, {0.3f, -18.5f, 0}}, {"RightFoot", 20, {0, -16.5f, -0.4f}},
        {"RightToeBase", 21, {0.2f, -2, 5.4f}},
    };
    enum { N = sizeof j / sizeof *j, F = 60 };
    mb_joint_desc jd[N];
    memset(jd, 0, sizeof jd);
    for (int i = 0; i < N; ++i) {
        jd[i].name = j[i].name;
        jd[i].parent = j[i].parent;
        memcpy(jd[i].offset, j[i].off, sizeof jd[i].offset);
        jd[i].end_site = strstr(j[i].name, "_End") != NULL;
        if (!jd[i].end_site) {
            int k = 0;
            if (i == 0)
                jd[i].channels[k++] = MB_CH_XPOS, jd[i].channels[k++] = MB_CH_YPOS,
                jd[i].channels[k++] = MB_CH_ZPOS;
            jd[i].channels[k++] = MB_CH_ZROT, jd[i].channels[k++] = MB_CH_XROT,
            jd[i].channels[k++] = MB_CH_YROT;
            jd[i].channel_count = k;
        }
    }
    mb_skeleton_desc sd = {jd, N, {0}};
    cr_assert_eq(mb_skeleton_create(&sd, out_s, NULL), MB_OK);
    static float rot[F][N][4], tr[F][N][3];
    for (int f = 0; f < F; ++f)
        for (int i = 0; i < N; ++i) {
            double v[3];
            for (int k = 0; k < 3; ++k)
                v[k] = jd[i].end_site ? 0 : (i ? 0.4 : 0.05) * sin(0.15 * f * (k + 1) + 0.7 * i + k);
            double yaw = i == 0 ? 0.5 * M_PI * f / (F - 1) : 0; /* the hips turn left */
            double half = 0.5 * sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            double sc = half > 0 ? sin(half) / (2 * half) : 0.5;
            double q[4] = {v[0] * sc, v[1] * sc, v[2] * sc, cos(half)}, y[4] = {0, sin(yaw / 2), 0, cos(yaw / 2)};
            double r[4] = {y[3] * q[0] + y[1] * q[2], y[3] * q[1] + y[1] * q[3],
                           y[3] * q[2] - y[1] * q[0], y[3] * q[3] - y[1] * q[1]};
            for (int k = 0; k < 4; ++k)
                rot[f][i][k] = (float)r[k];
            memcpy(tr[f][i], j[i].off, sizeof tr[f][i]);
        }
    for (int f = 0; f < F; ++f) { /* a quarter circle of radius 100 */
        double t = 0.5 * M_PI * f / (F - 1);
        tr[f][0][0] = (float)(100 * (1 - cos(t)) + 3);
        tr[f][0][1] = (float)(38 + sin(0.3 * f));
        tr[f][0][2] = (float)(100 * sin(t) - 7);
    }
    cr_assert_eq(mb_test_clip_full(*out_s, F, 1.0 / 30, &rot[0][0][0], &tr[0][0][0], out_c), MB_OK);
}

Test(mirror, asymmetric_rest_bones_mirror_and_turn)
{
    mb_skeleton *s;
    mb_clip *c;
    asymmetric_clip(&s, &c);
    mb_mirror_plane pl;
    mb_clip *m = mirror_of(s, c, MB_AXIS_Y, &pl);
    mb_clip *mm = mirror_of(s, m, MB_AXIS_Y, NULL);
    cr_assert_eq(pl.reference_from_clip, 0, "the T-pose stands: it is the reference");
    cr_assert_eq(pl.from_clip, 0);
    subject u = {0};
    u.s = s;
    u.c = c;
    cr_assert_eq(mb_roles_find(s, NULL, &u.roles, NULL), MB_OK);
    int n = mb_skeleton_joint_count(s), frames = mb_clip_frame_count(c);
    int *other = malloc(sizeof *other * (size_t)n);
    cr_assert_eq(mb_roles_mirror_joints(s, &u.roles, other, NULL), MB_OK);
    double *pin = world_positions(s, c), *pout = world_positions(s, m);
    /* every bone of a chain joint exactly; the chest's three bones (neck and both
     * shoulders, whose offsets are not mirrors: the shoulders lean out 18.4 and 23.6
     * degrees from up) within that 5.2 degree difference and a little */
    double chain = worst_bone_angle(&u, other, pin, pout, &pl, 1);
    double all = worst_bone_angle(&u, other, pin, pout, &pl, 0);
    cr_assert_lt(chain, 1e-4, "a chain bone is %g rad off", chain);
    cr_assert_lt(all, 6 * M_PI / 180, "a bone is %g deg off", all * 180 / M_PI);
    double worst = 0;
    const float *a = mb_clip_rotations(c), *b = mb_clip_rotations(mm);
    for (size_t i = 0; i < (size_t)n * (size_t)frames; ++i)
        worst = fmax(worst, mb_quat_angle_between(a + 4 * i, b + 4 * i));
    cr_assert_lt(worst, 1e-5, "twice: %g rad", worst);
    double *h = headings(s, c, 0, MB_AXIS_Y, pl.normal), *hm = headings(s, m, 0, MB_AXIS_Y, pl.normal);
    cr_assert_lt(fabs(h[frames - 1] - h[0] - 0.5 * M_PI), 0.2, "the input turns left about 90 deg");
    /* within 1e-3 rad: the hips' rest correction (their three bones are not mirrors)
     * turns the measured axis a little, which the hips' wobble then tilts */
    for (int f = 0; f < frames; ++f)
        cr_assert_lt(fabs((hm[f] - hm[0]) + (h[f] - h[0])), 1e-3, "frame %d: %g vs %g", f,
                     hm[f] - hm[0], h[f] - h[0]);
    /* the root path curves the other way: reflected across the plane, exactly */
    for (int f = 0; f < frames; ++f) {
        double want[3];
        reflect_point(&pl, pin + (size_t)f * n * 3, want);
        cr_assert_lt(dist3(pout + (size_t)f * n * 3, want), 1e-4, "frame %d", f);
    }
    free(h);
    free(hm);
    free(pin);
    free(pout);
    free(other);
    mb_roles_free(&u.roles);
    mb_clip_destroy(mm);
    mb_clip_destroy(m);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

/* ---------- a reference pose ---------- */

/* Fox.glb's bind pose stands, its sides mirror each other (to 0.02 units): given as the
 * reference, it is used (not the first frame); mirroring twice still gives the clip back,
 * and the bind pose itself, mirrored, is itself (a symmetric pose is its own mirror). */
Test(mirror, gltf_bind_pose_reference)
{
    subject u = open_subject("mesh/Fox.glb#Walk");
    const mb_mesh *mesh = mb_scene_mesh(mb_source_scene(u.src));
    cr_assert_not_null(mesh);
    int n = mb_skeleton_joint_count(u.s);
    cr_assert_eq(mb_mesh_skeleton_joint_count(mesh), n);
    const mb_xform *bind = mb_mesh_bind_pose(mesh);
    mb_mirror_desc d = {0};
    d.skeleton = u.s;
    d.clip = u.c;
    d.up_axis = MB_AXIS_Y;
    d.reference = bind;
    mb_mirror_plane pl;
    mb_clip *once = NULL, *twice = NULL, *still = NULL, *still_m = NULL;
    mb_error e;
    cr_assert_eq(mb_clip_mirror(&d, &once, &pl, &e), MB_OK, "%s", e.text);
    cr_assert_eq(pl.reference_from_clip, 0);
    cr_assert_gt(fabs(pl.normal[0]), 0.9999, "the Fox's left-right axis is X");
    d.clip = once;
    cr_assert_eq(mb_clip_mirror(&d, &twice, NULL, &e), MB_OK, "%s", e.text);
    int frames = mb_clip_frame_count(u.c);
    double worst = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)frames; ++i)
        worst = fmax(worst, mb_quat_angle_between(mb_clip_rotations(u.c) + 4 * i,
                                                  mb_clip_rotations(twice) + 4 * i));
    cr_assert_lt(worst, 1e-5, "twice: %g rad", worst);

    /* the bind pose as a one-frame clip, every joint's translation tracked */
    float *rot = malloc(sizeof *rot * 4 * (size_t)n), *tr = malloc(sizeof *tr * 3 * (size_t)n);
    for (int j = 0; j < n; ++j) {
        memcpy(rot + 4 * j, bind[j].rot, 4 * sizeof *rot);
        memcpy(tr + 3 * j, bind[j].pos, 3 * sizeof *tr);
    }
    cr_assert_eq(mb_test_clip_full(u.s, 1, 1.0 / 24, rot, tr, &still), MB_OK);
    d.clip = still;
    cr_assert_eq(mb_clip_mirror(&d, &still_m, NULL, &e), MB_OK, "%s", e.text);
    double *pa = world_positions(u.s, still), *pb = world_positions(u.s, still_m);
    double wr = 0, wp = 0;
    for (int j = 0; j < n; ++j) {
        wr = fmax(wr, mb_quat_angle_between(mb_clip_rotations(still) + 4 * j,
                                            mb_clip_rotations(still_m) + 4 * j));
        wp = fmax(wp, dist3(pa + 3 * j, pb + 3 * j));
    }
    cr_assert_lt(wr, 0.01, "the bind pose mirrored: a rotation moved %g rad", wr);
    cr_assert_lt(wp, 0.05, "the bind pose mirrored: a joint moved %g", wp);
    free(pa);
    free(pb);
    free(rot);
    free(tr);
    mb_clip_destroy(still);
    mb_clip_destroy(still_m);
    mb_clip_destroy(once);
    mb_clip_destroy(twice);
    close_subject(&u);
}

/* The plane from the first motion frame (the rest pose stays the reference): still the
 * identity twice, still a turn reflected. */
Test(mirror, plane_from_clip)
{
    subject u = open_subject("bvh/cmu_09_12_walk_navigate_long.bvh");
    mb_mirror_desc d = {0};
    d.skeleton = u.s;
    d.clip = u.c;
    d.plane_from_clip = 1;
    mb_mirror_plane pl, rest_pl;
    mb_clip *once = NULL, *twice = NULL;
    mb_error e;
    cr_assert_eq(mb_clip_mirror(&d, &once, &pl, &e), MB_OK, "%s", e.text);
    cr_assert_eq(pl.from_clip, 1);
    cr_assert_eq(pl.reference_from_clip, 0);
    mb_clip_destroy(mirror_of(u.s, u.c, u.info.up_axis, &rest_pl));
    double c = 0;
    for (int k = 0; k < 3; ++k)
        c += pl.normal[k] * rest_pl.normal[k];
    cr_assert_lt(fabs(c), 0.9, "frame 1 faces another way than the rest pose (cos %g)", c);
    d.clip = once;
    cr_assert_eq(mb_clip_mirror(&d, &twice, NULL, &e), MB_OK, "%s", e.text);
    int n = mb_skeleton_joint_count(u.s), frames = mb_clip_frame_count(u.c);
    double worst = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)frames; ++i)
        worst = fmax(worst, mb_quat_angle_between(mb_clip_rotations(u.c) + 4 * i,
                                                  mb_clip_rotations(twice) + 4 * i));
    cr_assert_lt(worst, 1e-5, "twice: %g rad", worst);
    int hips = u.roles.joint[MB_ROLE_HIPS];
    double *a = headings(u.s, u.c, hips, u.info.up_axis, pl.normal);
    double *b = headings(u.s, once, hips, u.info.up_axis, pl.normal);
    /* within 1e-3 rad: the reference's mirror is turned onto this plane about up, so the
     * measured axis differs by that turn, which the body's tilt couples in */
    cr_assert_lt(fabs((b[721] - b[241]) + (a[721] - a[241])), 1e-3, "%g vs %g",
                 b[721] - b[241], a[721] - a[241]);
    free(a);
    free(b);
    mb_clip_destroy(once);
    mb_clip_destroy(twice);
    close_subject(&u);
}

/* ---------- bad input ---------- */

Test(mirror, refuses_naming_missing_roles)
{
    mb_error e;
    mb_clip *out = (mb_clip *)&e; /* must come back NULL */
    mb_mirror_desc d = {0};
    /* nothing humanoid */
    subject u = open_subject("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh");
    d.skeleton = u.s;
    d.clip = u.c;
    d.source = "sinusoidal.bvh";
    cr_assert_eq(mb_clip_mirror(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert_null(out);
    cr_assert_str_eq(e.source, "sinusoidal.bvh");
    cr_assert(strstr(e.text, "hips, upper_leg_l, upper_leg_r"), "%s", e.text);
    close_subject(&u);

    /* a right hand taken away by a map: the left hand has no pair */
    u = open_subject("bvh/cmu_02_01_walk.bvh");
    char dir[] = "/tmp/mb_mirror_XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/map", dir);
    write_text(path, "none RightHand\nnone RightForeArm\n");
    mb_role_map *map = NULL;
    mb_roles r;
    cr_assert_eq(mb_role_map_read(path, &map, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_roles_find(u.s, map, &r, &e), MB_OK, "%s", e.text);
    remove(path);
    rmdir(dir);
    d.skeleton = u.s;
    d.clip = u.c;
    d.roles = &r;
    d.source = "cmu";
    cr_assert_eq(mb_clip_mirror(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert_null(out);
    cr_assert(strstr(e.text, "roles forearm_r, hand_r "), "%s", e.text);
    mb_roles_free(&r);
    mb_role_map_destroy(map);

    /* a reference that is no pose; roles of another skeleton; NULLs */
    d.roles = NULL;
    int n = mb_skeleton_joint_count(u.s);
    mb_xform *ref = calloc((size_t)n, sizeof *ref);
    d.reference = ref;
    cr_assert_eq(mb_clip_mirror(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "reference pose of joint 0"), "%s", e.text);
    d.reference = NULL;
    free(ref);
    mb_roles small = {0};
    small.joint_count = 3;
    d.roles = &small;
    cr_assert_eq(mb_clip_mirror(&d, &out, NULL, &e), MB_INVALID_ARG);
    d.roles = NULL;
    cr_assert_eq(mb_clip_mirror(NULL, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert_eq(mb_clip_mirror(&d, NULL, NULL, &e), MB_INVALID_ARG);
    close_subject(&u);

    /* a clip without frames */
    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    mb_bvh_read_desc rd = {.lenient = 1};
    cr_assert_eq(mb_bvh_read_file(mb_shared_path("bvh/derived/zero_frames_cmu02.bvh"), &rd, &s,
                                  &c, &e), MB_OK, "%s", e.text);
    d.skeleton = s;
    d.clip = c;
    cr_assert_eq(mb_clip_mirror(&d, &out, NULL, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "no frames"), "%s", e.text);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}
