/* The clip's compact translation layout: tracked joints, slots, the translation rule
 * (tracked value or offset) in frame poses, samples and the BVH reader and writer, and
 * the validation of the tracked joint list. */
#include <math.h>

#include "mblend/mblend.h"
#include "test_util.h"

/* ---------- a skeleton and a clip tracking joints {0, 5} ---------- */

/* 0 Root (positions + rotations), 1 Spine, 2 Chest, 3 Arm, 4 Hand (rotations only), 5 Prop
 * (positions + rotations, under Hand), 6 Prop_End. Joint 2 has a position channel list
 * too, but the clip below does not track it. */
enum { NJ = 7, NF = 4 };

static mb_skeleton *make_skeleton(void)
{
    static const char *names[NJ] = {"Root", "Spine", "Chest", "Arm", "Hand", "Prop", "Prop_End"};
    static const int parents[NJ] = {-1, 0, 1, 2, 3, 4, 5};
    mb_joint_desc jd[NJ];
    memset(jd, 0, sizeof jd);
    const mb_channel pr[6] = {MB_CH_XPOS, MB_CH_YPOS, MB_CH_ZPOS, MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
    for (int j = 0; j < NJ; ++j) {
        jd[j].name = names[j];
        jd[j].parent = parents[j];
        for (int k = 0; k < 3; ++k)
            jd[j].offset[k] = (float)(j + 1) * (k == 1 ? 2.5f : -0.75f);
        if (j == NJ - 1) {
            jd[j].end_site = 1;
        } else if (j == 0 || j == 2 || j == 5) {
            jd[j].channel_count = 6;
            memcpy(jd[j].channels, pr, sizeof pr);
        } else {
            jd[j].channel_count = 3;
            memcpy(jd[j].channels, pr + 3, 3 * sizeof *pr);
        }
    }
    jd[3].offset[2] = -0.0f; /* an untracked offset must come back bit for bit */
    mb_skeleton_desc sd = {jd, NJ, {0}};
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
    return s;
}

/* Translation k of tracked slot t in frame f. */
static float track_value(int f, int t, int k) { return (float)(100 * t + 10 * f + k) + 0.5f; }

static mb_clip *make_clip(const int *tracked, int nt)
{
    float rot[NF * NJ * 4], tr[NF * 2 * 3];
    for (int f = 0; f < NF; ++f)
        for (int j = 0; j < NJ; ++j) {
            double h = 0.05 * (f + 1) * (j + 1);
            float *q = &rot[4 * (f * NJ + j)];
            q[0] = (float)sin(h);
            q[1] = q[2] = 0.0f;
            q[3] = (float)cos(h);
        }
    for (int f = 0; f < NF; ++f)
        for (int t = 0; t < nt; ++t)
            for (int k = 0; k < 3; ++k)
                tr[3 * (f * nt + t) + k] = track_value(f, t, k);
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = NJ;
    cd.frame_count = NF;
    cd.frame_time = 0.1;
    cd.rotations = rot;
    cd.translation_joints = tracked;
    cd.translation_count = nt;
    cd.translations = nt > 0 ? tr : NULL;
    mb_clip *c;
    cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
    return c;
}

static int bits_equal(const float *a, const float *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

Test(clip, tracked_joints_and_slots)
{
    const int tracked[2] = {0, 5};
    mb_clip *c = make_clip(tracked, 2);
    cr_assert_eq(mb_clip_translation_count(c), 2);
    const int *tj = mb_clip_translation_joints(c);
    cr_assert(tj && tj[0] == 0 && tj[1] == 5);
    cr_assert_eq(mb_clip_translation_slot(c, 0), 0);
    cr_assert_eq(mb_clip_translation_slot(c, 5), 1);
    for (int j = 1; j < NJ; ++j)
        if (j != 5)
            cr_assert_eq(mb_clip_translation_slot(c, j), -1, "joint %d", j);
    cr_assert_eq(mb_clip_translation_slot(c, -1), -1);
    cr_assert_eq(mb_clip_translation_slot(c, NJ), -1);
    cr_assert_eq(mb_clip_translation_slot(NULL, 0), -1);
    /* [frame][T][3] */
    const float *t = mb_clip_translations(c);
    for (int f = 0; f < NF; ++f)
        for (int s = 0; s < 2; ++s)
            for (int k = 0; k < 3; ++k)
                cr_assert_eq(t[3 * (f * 2 + s) + k], track_value(f, s, k));
    mb_clip_destroy(c);
    /* No tracked joint: no array. */
    c = make_clip(NULL, 0);
    cr_assert_eq(mb_clip_translation_count(c), 0);
    cr_assert_null(mb_clip_translation_joints(c));
    cr_assert_null(mb_clip_translations(c));
    cr_assert_eq(mb_clip_translation_slot(c, 0), -1);
    mb_clip_destroy(c);
}

Test(clip, frame_poses_and_samples_of_tracked_and_untracked_joints)
{
    mb_skeleton *s = make_skeleton();
    const int tracked[2] = {0, 5};
    mb_clip *c = make_clip(tracked, 2);
    mb_xform x[NJ], y[NJ];
    mb_pose p = {x, NJ}, q = {y, NJ};
    for (int f = 0; f < NF; ++f) {
        cr_assert_eq(mb_clip_frame_pose(s, c, f, p), MB_OK);
        for (int j = 0; j < NJ; ++j) {
            const float *want = mb_skeleton_offset(s, j);
            float tv[3];
            if (j == 0 || j == 5) {
                for (int k = 0; k < 3; ++k)
                    tv[k] = track_value(f, j == 5, k);
                want = tv;
            }
            /* Joint 2 has position channels but no track: its offset. */
            cr_assert(bits_equal(x[j].pos, want, 3), "frame %d joint %d: %g %g %g", f, j,
                      x[j].pos[0], x[j].pos[1], x[j].pos[2]);
            cr_assert(bits_equal(mb_clip_joint_translation(s, c, f, j), want, 3),
                      "frame %d joint %d", f, j);
            cr_assert(bits_equal(x[j].rot, mb_clip_rotations(c) + 4 * (f * NJ + j), 4));
        }
    }
    cr_assert(signbit(x[3].pos[2]), "the -0 offset keeps its sign");
    /* Sampled a quarter of the way from frame 1 to 2: tracked joints lerp, the others sit
     * exactly at their offsets. */
    cr_assert_eq(mb_clip_sample(s, c, 1.25 * 0.1, MB_WRAP_CLAMP, p), MB_OK);
    for (int j = 0; j < NJ; ++j) {
        if (j == 0 || j == 5)
            for (int k = 0; k < 3; ++k) {
                float a = track_value(1, j == 5, k), b = track_value(2, j == 5, k);
                cr_assert_float_eq(x[j].pos[k], a + 0.25f * (b - a), 1e-4f, "joint %d", j);
            }
        else
            cr_assert(bits_equal(x[j].pos, mb_skeleton_offset(s, j), 3), "joint %d", j);
    }
    /* Looping between the last frame and frame 0. */
    cr_assert_eq(mb_clip_sample(s, c, (NF - 0.5) * 0.1, MB_WRAP_LOOP, p), MB_OK);
    for (int k = 0; k < 3; ++k) {
        float a = track_value(NF - 1, 1, k), b = track_value(0, 1, k);
        cr_assert_float_eq(x[5].pos[k], 0.5f * (a + b), 1e-4f);
    }
    cr_assert(bits_equal(x[4].pos, mb_skeleton_offset(s, 4), 3));
    /* Exact frame times agree with the frame poses. */
    cr_assert_eq(mb_clip_sample(s, c, 2 * 0.1, MB_WRAP_CLAMP, p), MB_OK);
    cr_assert_eq(mb_clip_frame_pose(s, c, 2, q), MB_OK);
    for (int j = 0; j < NJ; ++j)
        cr_assert(bits_equal(x[j].pos, y[j].pos, 3), "joint %d", j);
    /* A longer view is accepted (anim.h: at least the joint count) and its extra entries are
     * left as they were. */
    mb_xform big[NJ + 3];
    memset(big, 0x5a, sizeof big);
    mb_xform sentinel = big[NJ];
    mb_pose bp = {big, NJ + 3};
    cr_assert_eq(mb_clip_sample(s, c, 2 * 0.1, MB_WRAP_CLAMP, bp), MB_OK);
    cr_assert_eq(mb_clip_frame_pose(s, c, 2, bp), MB_OK);
    for (int j = 0; j < NJ; ++j)
        cr_assert(bits_equal(big[j].pos, y[j].pos, 3), "joint %d", j);
    for (int j = NJ; j < NJ + 3; ++j)
        cr_assert(memcmp(&big[j], &sentinel, sizeof sentinel) == 0, "entry %d written", j);
    /* The accessor's argument checks. */
    cr_assert_null(mb_clip_joint_translation(s, c, NF, 0));
    cr_assert_null(mb_clip_joint_translation(s, c, -1, 0));
    cr_assert_null(mb_clip_joint_translation(s, c, 0, NJ));
    cr_assert_null(mb_clip_joint_translation(NULL, c, 0, 0));
    mb_joint_desc one = {"One", -1, {0, 0, 0}, 0, 0, {0}, 0};
    mb_skeleton_desc od = {&one, 1, {0}};
    mb_skeleton *other;
    cr_assert_eq(mb_skeleton_create(&od, &other, NULL), MB_OK);
    cr_assert_null(mb_clip_joint_translation(other, c, 0, 0));
    mb_skeleton_destroy(other);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

/* A tracked joint without position channels keeps its offset: the skeleton decides what a
 * BVH file can hold, and playback agrees with export. */
Test(clip, tracked_joint_without_position_channels_keeps_its_offset)
{
    mb_skeleton *s = make_skeleton();
    const int tracked[2] = {0, 4}; /* 4: Hand, rotations only */
    mb_clip *c = make_clip(tracked, 2);
    mb_xform x[NJ];
    cr_assert_eq(mb_clip_frame_pose(s, c, 1, (mb_pose){x, NJ}), MB_OK);
    cr_assert(bits_equal(x[4].pos, mb_skeleton_offset(s, 4), 3));
    cr_assert_eq(x[0].pos[1], track_value(1, 0, 1));
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

Test(clip, skeleton_lists_its_translation_joints)
{
    mb_skeleton *s = make_skeleton();
    int n = -1;
    const int *tj = mb_skeleton_translation_joints(s, &n);
    cr_assert_eq(n, 3);
    cr_assert(tj[0] == 0 && tj[1] == 2 && tj[2] == 5);
    cr_assert_eq(mb_skeleton_translation_joints(s, NULL), tj);
    cr_assert_null(mb_skeleton_translation_joints(NULL, &n));
    cr_assert_eq(n, 0);
    mb_joint_desc one = {"One", -1, {0, 0, 0}, 0, 0, {0}, 0};
    mb_skeleton_desc od = {&one, 1, {0}};
    mb_skeleton *rot_only;
    cr_assert_eq(mb_skeleton_create(&od, &rot_only, NULL), MB_OK);
    n = -1;
    cr_assert_null(mb_skeleton_translation_joints(rot_only, &n));
    cr_assert_eq(n, 0);
    mb_skeleton_destroy(rot_only);
    mb_skeleton_destroy(s);
}

/* ---------- validation ---------- */

typedef struct counter {
    long allocs;
} counter;

static void *count_alloc(size_t n, void *user)
{
    ((counter *)user)->allocs++;
    return malloc(n);
}

static void count_free(void *p, void *user)
{
    (void)user;
    free(p);
}

Test(clip, desc_validation)
{
    float rot[NF * NJ * 4] = {0}, tr[NF * NJ * 3] = {0};
    for (int i = 0; i < NF * NJ; ++i)
        rot[4 * i + 3] = 1.0f;
    counter k = {0};
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = NJ;
    cd.frame_count = NF;
    cd.frame_time = 0.1;
    cd.rotations = rot;
    cd.translations = tr;
    cd.allocator.alloc = count_alloc;
    cd.allocator.free = count_free;
    cd.allocator.user = &k;
    mb_clip *c = (mb_clip *)1;
    static const struct {
        const char *what;
        int joints[3];
        int count;
    } bad[] = {
        {"unsorted", {5, 0, 0}, 2},
        {"duplicate", {0, 3, 3}, 3},
        {"out of range (high)", {0, NJ, 0}, 2},
        {"out of range (negative)", {-1, 2, 0}, 2},
        {"negative count", {0, 0, 0}, -1},
    };
    mb_error e;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        cd.translation_joints = bad[i].joints;
        cd.translation_count = bad[i].count;
        cr_assert_eq(mb_clip_create(&cd, &c, &e), MB_INVALID_ARG, "%s", bad[i].what);
        cr_assert(strstr(e.text, "translation joint"), "%s: %s", bad[i].what, e.text);
        cr_assert_null(c);
        int count = bad[i].count;
        cr_assert_eq(mb_clip_alloc(NJ, NF, 0.1, bad[i].joints, count, &cd.allocator, &c, &e),
                     MB_INVALID_ARG, "alloc: %s", bad[i].what);
        cr_assert(strstr(e.text, "translation joint"), "alloc: %s: %s", bad[i].what, e.text);
        cr_assert_null(c);
    }
    /* More tracked joints than joints (each valid on its own would need NJ + 1 entries). */
    int all[NJ + 1];
    for (int j = 0; j <= NJ; ++j)
        all[j] = j;
    cd.translation_joints = all;
    cd.translation_count = NJ + 1;
    cr_assert_eq(mb_clip_create(&cd, &c, &e), MB_INVALID_ARG, "count past the joint count");
    cr_assert(strstr(e.text, "translation joints (0.."), "%s", e.text);
    cr_assert_eq(mb_clip_alloc(NJ, NF, 0.1, all, NJ + 1, NULL, &c, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "translation joints (0.."), "%s", e.text);
    /* A count without the joint array, a count without the translations, translations
     * without a count (a leftover full-skeleton array). */
    cd.translation_joints = NULL;
    cd.translation_count = 2;
    cr_assert_eq(mb_clip_create(&cd, &c, &e), MB_INVALID_ARG, "count without joints");
    cr_assert(strstr(e.text, "without their list"), "%s", e.text);
    cr_assert_eq(mb_clip_alloc(NJ, NF, 0.1, NULL, 2, NULL, &c, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "without their list"), "%s", e.text);
    const int ok[2] = {0, 5};
    cd.translation_joints = ok;
    cd.translations = NULL;
    cr_assert_eq(mb_clip_create(&cd, &c, &e), MB_INVALID_ARG, "count without translations");
    cr_assert_str_eq(e.text, "translation_count without the translations");
    cd.translation_count = 0;
    cd.translations = tr;
    cr_assert_eq(mb_clip_create(&cd, &c, &e), MB_INVALID_ARG, "translations without a count");
    cr_assert_str_eq(e.text, "translations given without translation_count");
    /* A non-finite tracked value; a non-finite value past the tracked rows is not read. */
    cd.translation_count = 2;
    tr[3 * 2 * NF - 1] = NAN;
    cr_assert_eq(mb_clip_create(&cd, &c, &e), MB_INVALID_ARG, "NaN in the last tracked value");
    cr_assert(strstr(e.text, "frame 3: a translation is not finite"), "%s", e.text); /* frame NF - 1 */
    tr[3 * 2 * NF - 1] = 0.0f;
    tr[3 * 2 * NF] = NAN;
    cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
    mb_clip_destroy(c);
    /* None of the failures allocated. */
    cr_assert_eq(k.allocs, 1, "%ld allocations", k.allocs);
    /* Zero frames: the translation array may be absent. */
    cd.frame_count = 0;
    cd.translations = NULL;
    cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
    cr_assert_eq(mb_clip_translation_count(c), 2);
    mb_clip_destroy(c);
    /* The track limit counts the translations, before allocating: 16 B per joint and 12
     * per tracked joint and frame. 4096 joints x 50,000 frames of rotations fit in 4 GiB,
     * with every joint tracked they do not. */
    static int every[MB_MAX_JOINTS];
    for (int j = 0; j < MB_MAX_JOINTS; ++j)
        every[j] = j;
    k.allocs = 0;
    cr_assert_eq(mb_clip_alloc(MB_MAX_JOINTS, 50000, 0.1, every, MB_MAX_JOINTS, &cd.allocator, &c, &e),
                 MB_LIMIT);
    cr_assert(strstr(e.text, "bytes of tracks (limit"), "%s", e.text);
    cr_assert_null(c);
    cr_assert_eq(k.allocs, 0);
}

/* ---------- BVH: position channels on joints other than the root ---------- */

/* Root: 6 channels; Spine: rotations; Arm: positions first, then rotations; Hand: one
 * position axis (Y) among rotations, so X and Z keep the offset; Hand_End. */
static const char *mixed_bvh =
    "HIERARCHY\n"
    "ROOT Hips\n{\n  OFFSET 0 90 0\n"
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "  JOINT Spine\n  {\n    OFFSET 0 10 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "    JOINT Arm\n    {\n      OFFSET 15 5 -0\n"
    "      CHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation\n"
    "      JOINT Hand\n      {\n        OFFSET 20 0.5 1.25\n"
    "        CHANNELS 3 Zrotation Yposition Xrotation\n"
    "        End Site\n        {\n          OFFSET 5 0 0\n        }\n"
    "      }\n    }\n  }\n}\n"
    "MOTION\nFrames: 3\nFrame Time: 0.0333333\n"
    "1 90.5 2 10 20 30 1 2 3 15.25 5.5 -0.125 4 5 6 7 2.75 8\n"
    "2 91 3 11 21 31 2 3 4 15.5 5.25 -0.25 5 6 7 8 3 9\n"
    "3 91.5 4 12 22 32 3 4 5 15.75 5 -0.5 6 7 8 9 3.25 10\n";

/* Any finite, non-zero quaternion is a rotation: lengths 1e-7 and 1e20 (whose float
 * square underflows or overflows) were refused; they are normalised in double. Zero and
 * non-finite ones are still errors. */
Test(clip, rotations_of_any_finite_nonzero_length)
{
    const float in[4][4] = {{0, 0, 0, 1e-7f}, {0, 0, 1e20f, 1e20f}, {3e-30f, 0, 0, 4e-30f},
                            {0.6f, 0, 0, 0.8f}};
    const float want[4][4] = {{0, 0, 0, 1}, {0, 0, 0.70710678f, 0.70710678f}, {0.6f, 0, 0, 0.8f},
                              {0.6f, 0, 0, 0.8f}};
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = 4;
    cd.frame_count = 1;
    cd.frame_time = 0.1;
    cd.rotations = &in[0][0];
    mb_clip *c = NULL;
    cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
    const float *r = mb_clip_rotations(c);
    for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k)
            cr_assert(fabsf(r[4 * j + k] - want[j][k]) < 1e-6f, "joint %d component %d: %g", j, k,
                      r[4 * j + k]);
    mb_clip_destroy(c);
    const float zero[4][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}};
    cd.rotations = &zero[0][0];
    mb_error e;
    cr_assert_eq(mb_clip_create(&cd, &c, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "frame 0, joint 0: the rotation is zero"), "%s", e.text);
    cr_assert_null(c);
}

Test(clip, bvh_tracks_exactly_the_joints_with_position_channels)
{
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_mem(mixed_bvh, strlen(mixed_bvh), "mixed.bvh", NULL, &s, &c, &e),
                 MB_OK, "%s", e.text);
    int hips = mb_skeleton_find(s, "Hips"), arm = mb_skeleton_find(s, "Arm"),
        hand = mb_skeleton_find(s, "Hand"), spine = mb_skeleton_find(s, "Spine");
    cr_assert_eq(mb_clip_translation_count(c), 3);
    const int *tj = mb_clip_translation_joints(c);
    cr_assert(tj[0] == hips && tj[1] == arm && tj[2] == hand);
    cr_assert_eq(mb_clip_translation_slot(c, spine), -1);
    cr_assert_eq(mb_clip_translation_slot(c, mb_skeleton_find(s, "Hand_End")), -1);
    /* Frame 1: Arm positions from the data; Hand's Y from the data, X and Z the offset. */
    const float *ta = mb_clip_joint_translation(s, c, 1, arm);
    cr_assert(ta[0] == 15.5f && ta[1] == 5.25f && ta[2] == -0.25f);
    const float *th = mb_clip_translations(c) + 3 * (1 * 3 + 2);
    cr_assert(th[0] == 20.0f && th[1] == 3.0f && th[2] == 1.25f, "%g %g %g", th[0], th[1], th[2]);
    cr_assert(bits_equal(mb_clip_joint_translation(s, c, 1, spine), mb_skeleton_offset(s, spine), 3));
    mb_xform x[8];
    int nj = mb_skeleton_joint_count(s);
    cr_assert_eq(mb_clip_frame_pose(s, c, 2, (mb_pose){x, nj}), MB_OK);
    cr_assert(x[hips].pos[0] == 3.0f && x[hips].pos[1] == 91.5f && x[hips].pos[2] == 4.0f);
    cr_assert(x[hand].pos[1] == 3.25f);
    cr_assert(bits_equal(x[spine].pos, mb_skeleton_offset(s, spine), 3));

    /* Round trip through the writer: the same tracked joints, bit-identical translations
     * (written as shortest round-trip floats), rotations within float noise. */
    char *text;
    size_t len;
    cr_assert_eq(mb_bvh_write_mem(s, c, NULL, &text, &len, &e), MB_OK, "%s", e.text);
    mb_skeleton *s2;
    mb_clip *c2;
    cr_assert_eq(mb_bvh_read_mem(text, len, "back.bvh", NULL, &s2, &c2, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_clip_translation_count(c2), 3);
    cr_assert(memcmp(mb_clip_translation_joints(c2), tj, 3 * sizeof(int)) == 0);
    cr_assert(bits_equal(mb_clip_translations(c2), mb_clip_translations(c), 3 * 3 * 3));
    for (int f = 0; f < 3; ++f)
        for (int j = 0; j < nj; ++j)
            cr_assert(mb_quat_angle_between(mb_clip_rotations(c) + 4 * (f * nj + j),
                                            mb_clip_rotations(c2) + 4 * (f * nj + j)) < 1e-6,
                      "frame %d joint %d", f, j);
    /* The positions in the text are the tracked values, offsets where a channel is absent. */
    cr_assert_not_null(strstr(text, "\n1 90.5 2 "), "%s", text);
    free(text);
    mb_clip_destroy(c2);
    mb_skeleton_destroy(s2);

    /* A clip that tracks only the root writes the other position channels as offsets. */
    int nfr = mb_clip_frame_count(c);
    const int root_only[1] = {0};
    float *tr = malloc(sizeof(float) * 3 * (size_t)nfr);
    for (int f = 0; f < nfr; ++f)
        memcpy(tr + 3 * f, mb_clip_joint_translation(s, c, f, hips), 3 * sizeof(float));
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = nj;
    cd.frame_count = nfr;
    cd.frame_time = mb_clip_frame_time(c);
    cd.rotations = mb_clip_rotations(c);
    cd.translation_joints = root_only;
    cd.translation_count = 1;
    cd.translations = tr;
    mb_clip *rc;
    cr_assert_eq(mb_clip_create(&cd, &rc, NULL), MB_OK);
    cr_assert_eq(mb_bvh_write_mem(s, rc, NULL, &text, &len, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_mem(text, len, "root.bvh", NULL, &s2, &c2, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_clip_translation_count(c2), 3);
    for (int f = 0; f < nfr; ++f) {
        /* Values, not bits: the writer prints a -0 offset as 0. */
        for (int k = 0; k < 3; ++k) {
            cr_assert(mb_clip_joint_translation(s2, c2, f, arm)[k] == mb_skeleton_offset(s, arm)[k]);
            cr_assert(mb_clip_joint_translation(s2, c2, f, hand)[k] == mb_skeleton_offset(s, hand)[k]);
        }
        cr_assert(bits_equal(mb_clip_joint_translation(s2, c2, f, hips), tr + 3 * f, 3));
    }
    free(text);
    free(tr);
    mb_clip_destroy(c2);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(rc);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

/* Bandai files give every joint position channels: every joint but the End Sites is
 * tracked, and a truncated (lenient) read keeps the compact rows intact. */
Test(clip, bvh_every_joint_with_positions_and_truncation)
{
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(mb_shared_path("bvh/bandai2_run_normal_001.bvh"), NULL, &s, &c, &e),
                 MB_OK, "%s", e.text);
    int nj = mb_skeleton_joint_count(s), nt = mb_clip_translation_count(c), ends = 0;
    for (int j = 0; j < nj; ++j) {
        ends += mb_skeleton_is_end_site(s, j);
        cr_assert_eq(mb_clip_translation_slot(c, j) >= 0, !mb_skeleton_is_end_site(s, j), "joint %d", j);
    }
    cr_assert_eq(nt, nj - ends);
    cr_assert_eq(nt, 22);
    /* Lenient read of a file whose Frames line promises more than it holds: the clip is
     * truncated after reading, and its translations must be moved with it. */
    size_t len;
    char *text = NULL;
    {
        FILE *f = fopen(mb_shared_path("bvh/derived/frames_header_174_data_100_cmu_02_03.bvh"), "rb");
        cr_assert_not_null(f);
        fseek(f, 0, SEEK_END);
        len = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        text = malloc(len);
        cr_assert_eq(fread(text, 1, len, f), len);
        fclose(f);
    }
    mb_skeleton *ts;
    mb_clip *tc;
    mb_error w;
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = 1;
    d.warning = &w;
    cr_assert_eq(mb_bvh_read_mem(text, len, "trunc.bvh", &d, &ts, &tc, &e), MB_OK, "%s", e.text);
    cr_assert_eq(w.code, MB_MISMATCH);
    int tf = mb_clip_frame_count(tc);
    cr_assert_eq(tf, 100);
    cr_assert_eq(mb_clip_translation_count(tc), 1);
    /* The same rows as a strict read of the file's first 100 frames. */
    mb_skeleton *fs;
    mb_clip *fc;
    cr_assert_eq(mb_bvh_read_file(mb_shared_path("bvh/cmu_02_03_run.bvh"), NULL, &fs, &fc, &e), MB_OK);
    cr_assert(bits_equal(mb_clip_translations(tc), mb_clip_translations(fc), 3 * tf));
    cr_assert(bits_equal(mb_clip_rotations(tc), mb_clip_rotations(fc), 4 * tf * mb_clip_joint_count(tc)));
    free(text);
    mb_clip_destroy(fc);
    mb_skeleton_destroy(fs);
    mb_clip_destroy(tc);
    mb_skeleton_destroy(ts);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
}

/* ---------- blending clips whose tracked sets differ ---------- */

/* Input A tracks {0, 5}, input B tracks {0, 2} (the skeleton gives 0, 2 and 5 position
 * channels). The output, on the same skeleton, tracks {0, 2, 5}; away from the root
 * (re-integrated by the root motion), an input that does not track a joint contributes
 * that joint's offset: 50/50 gives the midpoint of track and offset. */
Test(clip, blend_of_clips_with_different_tracked_sets)
{
    mb_skeleton *s = make_skeleton();
    const int ta[2] = {0, 5}, tb[2] = {0, 2};
    mb_clip *a = make_clip(ta, 2), *b = make_clip(tb, 2);
    mb_motion_info info;
    memset(&info, 0, sizeof info);
    info.up_axis = MB_AXIS_Y;
    info.left_foot = info.right_foot = -1;
    mb_clip_input in[2] = {{s, a, "a", {0, 0}, 0.5f, &info}, {s, b, "b", {0, 0}, 0.5f, &info}};
    mb_clip_blend_desc d;
    memset(&d, 0, sizeof d);
    d.inputs = in;
    d.input_count = 2;
    mb_clip *out = NULL;
    mb_error e;
    cr_assert_eq(mb_clip_blend(&d, &out, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_clip_frame_count(out), NF);
    cr_assert_eq(mb_clip_translation_count(out), 3);
    const int *tj = mb_clip_translation_joints(out);
    cr_assert(tj[0] == 0 && tj[1] == 2 && tj[2] == 5);
    for (int f = 0; f < NF; ++f)
        for (int k = 0; k < 3; ++k) {
            float o2 = mb_skeleton_offset(s, 2)[k], o5 = mb_skeleton_offset(s, 5)[k];
            cr_assert_float_eq(mb_clip_joint_translation(s, out, f, 2)[k],
                               0.5f * (o2 + track_value(f, 1, k)), 1e-4f, "frame %d joint 2", f);
            cr_assert_float_eq(mb_clip_joint_translation(s, out, f, 5)[k],
                               0.5f * (track_value(f, 1, k) + o5), 1e-4f, "frame %d joint 5", f);
            /* Joint 3 (no position channels) is at its offset. */
            cr_assert(mb_clip_joint_translation(s, out, f, 3)[k] == mb_skeleton_offset(s, 3)[k]);
        }
    mb_clip_destroy(out);
    mb_clip_destroy(a);
    mb_clip_destroy(b);
    mb_skeleton_destroy(s);
}
