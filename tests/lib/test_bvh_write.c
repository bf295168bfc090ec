/* BVH writer: read -> write -> read round trips over every real file in ../shared/data/bvh,
 * order rewriting, gimbal lock, continuity, precision, allocator hooks, and the file
 * version's all-or-nothing replacement. The expectations come from the original file as
 * read (rotations compared as rotations, FK world positions), from hand-written golden
 * text, and from rotations the test builds itself from axis-angle products. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/offline/bvh.h"
#include "test_util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define DEG (M_PI / 180.0)

/* Axes of each order, spelled out here instead of asked from the library. */
static const int test_axes[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
static const char *const order_names[6] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};

/* ---------- helpers ---------- */

static void read_or_die(const char *path, int lenient, mb_skeleton **s, mb_clip **c)
{
    mb_bvh_read_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.lenient = lenient;
    mb_error warn, err;
    rd.warning = &warn;
    mb_status st = mb_bvh_read_file(path, &rd, s, c, &err);
    char msg[600];
    cr_assert_eq(st, MB_OK, "reading %s: %s", path, mb_error_format(&err, msg, sizeof msg));
}

static void read_text_or_die(const char *text, size_t len, const char *what, mb_skeleton **s,
                             mb_clip **c)
{
    mb_error err;
    mb_status st = mb_bvh_read_mem(text, len, what, NULL, s, c, &err);
    char msg[600];
    cr_assert_eq(st, MB_OK, "re-reading the written %s: %s\n--- text starts ---\n%.2000s", what,
                 mb_error_format(&err, msg, sizeof msg), text);
}

static char *write_or_die(const mb_skeleton *s, const mb_clip *c, const mb_bvh_write_desc *d,
                          size_t *len, const char *what)
{
    char *text = NULL;
    size_t n = 0;
    mb_error err;
    mb_status st = mb_bvh_write_mem(s, c, d, &text, &n, &err);
    char msg[600];
    cr_assert_eq(st, MB_OK, "writing %s: %s", what, mb_error_format(&err, msg, sizeof msg));
    cr_assert_not_null(text);
    cr_assert_eq(strlen(text), n, "%s: length %zu but strlen %zu", what, n, strlen(text));
    if (len)
        *len = n;
    return text;
}

/* FK world positions of every joint for one frame, into pos[joint][3]. */
/* Reads shared file rel (lenient for the frames_header_ files), writes it with default
 * settings and reads the text back: s1/c1 the file, text/len what was written, s2/c2 that
 * read back. */
static void read_write_read(const char *rel, mb_skeleton **s1, mb_clip **c1, char **text,
                            size_t *len, mb_skeleton **s2, mb_clip **c2)
{
    const char *base = strrchr(rel, '/') + 1;
    read_or_die(mb_shared_path(rel), strncmp(base, "frames_header_", 14) == 0, s1, c1);
    *text = write_or_die(*s1, *c1, NULL, len, rel);
    read_text_or_die(*text, *len, rel, s2, c2);
}

static void free_read_write_read(mb_skeleton *s1, mb_clip *c1, char *text, mb_skeleton *s2,
                                 mb_clip *c2)
{
    free(text);
    mb_skeleton_destroy(s1);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(c1);
    mb_clip_destroy(c2);
}

static void world_positions(const mb_skeleton *s, const mb_clip *c, int frame, float (*pos)[3])
{
    int n = mb_skeleton_joint_count(s);
    mb_xform *local = malloc((size_t)n * sizeof *local);
    float (*world)[16] = malloc((size_t)n * sizeof *world);
    mb_pose pose = {local, n};
    if (c)
        cr_assert_eq(mb_clip_frame_pose(s, c, frame, pose), MB_OK);
    else
        cr_assert_eq(mb_skeleton_rest_pose(s, pose), MB_OK);
    cr_assert_eq(mb_fk(s, &pose, world, n), MB_OK);
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 3; ++k)
            pos[j][k] = world[j][12 + k];
    free(local);
    free(world);
}

/* Largest extent of the rest pose along any axis (the skeleton's "height" for Y- or Z-up). */
static double skeleton_height(const mb_skeleton *s)
{
    int n = mb_skeleton_joint_count(s);
    float (*p)[3] = malloc((size_t)n * sizeof *p);
    world_positions(s, NULL, 0, p);
    double h = 0;
    for (int k = 0; k < 3; ++k) {
        double lo = p[0][k], hi = p[0][k];
        for (int j = 1; j < n; ++j) {
            lo = fmin(lo, p[j][k]);
            hi = fmax(hi, p[j][k]);
        }
        h = fmax(h, hi - lo);
    }
    free(p);
    return h;
}

/* Tolerances: rotation (rad), translation (relative, floor 1), FK (times the height,
 * plus the same amount absolute). */
typedef struct tols {
    double rot, trans, fk;
} tols;
static const tols default_tols = {1e-5, 1e-4, 1e-4};

typedef struct worst {
    double rot;    /* rad */
    double trans;  /* relative */
    double fk;     /* absolute, file units */
} worst;

/* Everything the writer promises to keep, except the channel lists (compared by the
 * caller, which knows whether they were rewritten). */
static void compare_motion(const char *what, const mb_skeleton *s1, const mb_clip *c1,
                           const mb_skeleton *s2, const mb_clip *c2, tols tol, worst *w)
{
    int n = mb_skeleton_joint_count(s1);
    cr_assert_eq(mb_skeleton_joint_count(s2), n, "%s: joint count", what);
    const int *p1 = mb_skeleton_parents(s1), *p2 = mb_skeleton_parents(s2);
    for (int j = 0; j < n; ++j) {
        cr_assert_str_eq(mb_skeleton_name(s2, j), mb_skeleton_name(s1, j), "%s: name of %d",
                         what, j);
        cr_assert_eq(p2[j], p1[j], "%s: parent of %s", what, mb_skeleton_name(s1, j));
        cr_assert_eq(mb_skeleton_is_end_site(s2, j), mb_skeleton_is_end_site(s1, j),
                     "%s: End Site flag of %s", what, mb_skeleton_name(s1, j));
        const float *o1 = mb_skeleton_offset(s1, j), *o2 = mb_skeleton_offset(s2, j);
        for (int k = 0; k < 3; ++k)
            cr_assert(o1[k] == o2[k], "%s: offset %d of %s: %.9g became %.9g", what, k,
                      mb_skeleton_name(s1, j), o1[k], o2[k]);
    }
    int nf = mb_clip_frame_count(c1);
    cr_assert_eq(mb_clip_frame_count(c2), nf, "%s: frame count", what);
    cr_assert(mb_clip_frame_time(c1) == mb_clip_frame_time(c2), "%s: frame time %.17g became %.17g",
              what, mb_clip_frame_time(c1), mb_clip_frame_time(c2));

    const float *r1 = mb_clip_rotations(c1), *r2 = mb_clip_rotations(c2);
    /* The read-back clip tracks exactly the joints with position channels. */
    int snt;
    const int *sj = mb_skeleton_translation_joints(s2, &snt);
    cr_assert_eq(mb_clip_translation_count(c2), snt, "%s: tracked joints", what);
    cr_assert(snt == 0 || memcmp(mb_clip_translation_joints(c2), sj, (size_t)snt * sizeof(int)) == 0,
              "%s: tracked joints", what);
    double height = skeleton_height(s1);
    double fk_tol = tol.fk * height + tol.fk;
    float (*w1)[3] = malloc((size_t)n * sizeof *w1), (*w2)[3] = malloc((size_t)n * sizeof *w2);
    for (int f = 0; f < nf; ++f) {
        for (int j = 0; j < n; ++j) {
            size_t i = (size_t)f * (size_t)n + (size_t)j;
            double e = mb_quat_angle_between(&r1[4 * i], &r2[4 * i]);
            if (e > w->rot)
                w->rot = e;
            cr_assert(e <= tol.rot, "%s: frame %d joint %s rotates %.3g rad off (limit %.3g)",
                      what, f, mb_skeleton_name(s1, j), e, tol.rot);
            if (mb_skeleton_has_translation(s1, j))
                for (int k = 0; k < 3; ++k) {
                    double a = mb_clip_joint_translation(s1, c1, f, j)[k];
                    double b = mb_clip_joint_translation(s2, c2, f, j)[k];
                    double rel = fabs(a - b) / fmax(fabs(a), 1.0);
                    if (rel > w->trans)
                        w->trans = rel;
                    cr_assert(rel <= tol.trans,
                              "%s: frame %d joint %s translation %d: %.9g vs %.9g",
                              what, f, mb_skeleton_name(s1, j), k, a, b);
                }
        }
        world_positions(s1, c1, f, w1);
        world_positions(s2, c2, f, w2);
        for (int j = 0; j < n; ++j) {
            double d = sqrt((w1[j][0] - w2[j][0]) * (w1[j][0] - w2[j][0]) +
                            (w1[j][1] - w2[j][1]) * (w1[j][1] - w2[j][1]) +
                            (w1[j][2] - w2[j][2]) * (w1[j][2] - w2[j][2]));
            if (d > w->fk)
                w->fk = d;
            cr_assert(d <= fk_tol, "%s: frame %d joint %s world position %.3g off (limit %.3g)",
                      what, f, mb_skeleton_name(s1, j), d, fk_tol);
        }
    }
    free(w1);
    free(w2);
}

static void compare_channels_same(const char *what, const mb_skeleton *s1,
                                  const mb_skeleton *s2)
{
    int n = mb_skeleton_joint_count(s1);
    for (int j = 0; j < n; ++j) {
        const mb_channel *a, *b;
        int na = mb_skeleton_channels(s1, j, &a), nb = mb_skeleton_channels(s2, j, &b);
        cr_assert_eq(na, nb, "%s: channel count of %s", what, mb_skeleton_name(s1, j));
        for (int k = 0; k < na; ++k)
            cr_assert_eq(a[k], b[k], "%s: channel %d of %s", what, k, mb_skeleton_name(s1, j));
        cr_assert_eq(mb_skeleton_rot_order(s1, j), mb_skeleton_rot_order(s2, j),
                     "%s: order of %s", what, mb_skeleton_name(s1, j));
    }
}

/* All .bvh files of a shared folder (sorted, so the log reads the same every run). */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int list_bvh(const char *rel_dir, char **out, int max)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/%s", MB_SHARED_DIR, rel_dir);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "shared data folder missing: %s", dir);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".bvh") == 0 && n < max) {
            out[n] = malloc(strlen(rel_dir) + len + 2);
            sprintf(out[n], "%s/%s", rel_dir, e->d_name);
            ++n;
        }
    }
    closedir(d);
    qsort(out, (size_t)n, sizeof *out, cmp_str);
    return n;
}

/* ---------- round trips of the real files ---------- */

Test(bvh_write, round_trip_every_shared_file)
{
    char *files[256];
    int n = list_bvh("bvh", files, 128);
    n += list_bvh("bvh/derived", files + n, 128);
    /* 18 top-level and 13 derived files at the time of writing; fewer means data went
     * missing, which must not pass silently. */
    cr_assert(n >= 31, "only %d .bvh files found under %s/data/bvh", n, MB_SHARED_DIR);
    for (int i = 0; i < n; ++i) {
        mb_skeleton *s1, *s2;
        mb_clip *c1, *c2;
        char *text;
        size_t len;
        read_write_read(files[i], &s1, &c1, &text, &len, &s2, &c2);
        cr_assert_null(memchr(text, '\r', len), "%s: output must use LF only", files[i]);
        compare_channels_same(files[i], s1, s2);
        worst w = {0, 0, 0};
        compare_motion(files[i], s1, c1, s2, c2, default_tols, &w);
        fprintf(stderr, "round trip %-55s %5d frames: rot %.2e rad, trans %.2e rel, fk %.2e\n",
                files[i], mb_clip_frame_count(c1), w.rot, w.trans, w.fk);
        free_read_write_read(s1, c1, text, s2, c2);
        free(files[i]);
    }
}

/* Writing what was read back, again and again, does not drift: readers parse motion
 * values as float, so each generation moves rotations by float rounding, but the errors
 * must not pile up (five generations stay as close as one must). */
Test(bvh_write, generations_do_not_drift)
{
    const char *names[] = {"bvh/cmu_02_03_run.bvh", "bvh/bandai1_run_normal_001_sci.bvh",
                           "bvh/derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
        mb_skeleton *s0, *s;
        mb_clip *c0, *c;
        read_or_die(mb_shared_path(names[i]), 0, &s0, &c0);
        s = s0;
        c = c0;
        for (int g = 0; g < 5; ++g) {
            size_t len;
            char *t = write_or_die(s, c, NULL, &len, names[i]);
            mb_skeleton *sn;
            mb_clip *cn;
            read_text_or_die(t, len, names[i], &sn, &cn);
            free(t);
            if (s != s0) {
                mb_skeleton_destroy(s);
                mb_clip_destroy(c);
            }
            s = sn;
            c = cn;
        }
        worst w = {0, 0, 0};
        compare_channels_same(names[i], s0, s);
        compare_motion(names[i], s0, c0, s, c, default_tols, &w);
        fprintf(stderr, "5 generations %-55s rot %.2e rad, fk %.2e\n", names[i], w.rot, w.fk);
        mb_skeleton_destroy(s);
        mb_clip_destroy(c);
        mb_skeleton_destroy(s0);
        mb_clip_destroy(c0);
    }
}

/* The exact text for the hand-checkable arm: tabs, "End Site", compact numbers, no "-0",
 * and its exact 90 degree gimbal-lock frames written as 90s, not as rounding noise. */
Test(bvh_write, golden_text_tiny_arm)
{
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/derived/tiny_arm_handcheck.bvh"), 0, &s, &c);
    char *text = write_or_die(s, c, NULL, NULL, "tiny arm");
    const char *want =
        "HIERARCHY\n"
        "ROOT Shoulder\n"
        "{\n"
        "\tOFFSET 0 0 0\n"
        "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
        "\tJOINT Elbow\n"
        "\t{\n"
        "\t\tOFFSET 0 4 0\n"
        "\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
        "\t\tJOINT Wrist\n"
        "\t\t{\n"
        "\t\t\tOFFSET 0 4 0\n"
        "\t\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
        "\t\t\tEnd Site\n"
        "\t\t\t{\n"
        "\t\t\t\tOFFSET 0 2 0\n"
        "\t\t\t}\n"
        "\t\t}\n"
        "\t}\n"
        "}\n"
        "MOTION\n"
        "Frames: 3\n"
        "Frame Time: 0.5\n"
        "1 2 3 0 0 0 0 0 0 0 0 0\n"
        "0 0 0 90 0 0 0 90 0 0 0 90\n"
        "0 0 0 90 90 0 0 0 0 0 0 0\n";
    cr_assert_str_eq(text, want);
    free(text);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* Frame times print in their shortest exact form: ".0083333" -> "0.0083333", and the
 * 17-digit fairmotion value needs all 17 digits to come back as the same double. */
typedef struct header_case { /* strings in the case: Criterion copies the cases */
    char file[64], line[64];
} header_case;

ParameterizedTestParameters(bvh_write, header_numbers)
{
    static header_case cases[] = {
        {"bvh/cmu_02_03_run.bvh", "\nFrame Time: 0.0083333\n"},
        {"bvh/fairmotion_sinusoidal_xyz_noendsite.bvh", "\nFrame Time: 0.016666666666666666\n"},
        {"bvh/derived/zero_frames_cmu02.bvh", "\nFrames: 0\nFrame Time: 0.0083333\n"},
        {"bvh/cmu_02_03_run.bvh", "\n\t\t\tOFFSET 1.65674 -1.80282 0.62477\n"},
    };
    return cr_make_param_array(header_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(header_case *hc, bvh_write, header_numbers)
{
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path(hc->file), 0, &s, &c);
    char *text = write_or_die(s, c, NULL, NULL, hc->file);
    cr_assert_not_null(strstr(text, hc->line), "%s: '%s' not in the output", hc->file, hc->line);
    free(text);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* No value is written as "-0" (noise from atan2 of signed zeros). */
Test(bvh_write, no_negative_zero_tokens)
{
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/derived/wrapped_values_bandai1_run.bvh"), 0, &s, &c);
    char *text = write_or_die(s, c, NULL, NULL, "wrapped");
    const char *p = strstr(text, "MOTION");
    cr_assert_not_null(p);
    for (; *p; ++p)
        if (p[0] == '-' && p[1] == '0' && (p[-1] == ' ' || p[-1] == '\n') &&
            (p[2] == ' ' || p[2] == '\n' || p[2] == '\0'))
            cr_assert_fail("'-0' token in the motion data at offset %ld", (long)(p - text));
    free(text);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* ---------- rewrite_order ---------- */

/* The channel list the writer must produce: positions where they were, the three
 * rotation channels of the order where the first rotation channel was. */
static int expected_rewrite(const mb_channel *ch, int n, int order, mb_channel out[6])
{
    int m = 0, placed = 0;
    for (int k = 0; k < n; ++k) {
        if (ch[k] <= MB_CH_ZPOS)
            out[m++] = ch[k];
        else if (!placed) {
            for (int r = 0; r < 3; ++r)
                out[m++] = (mb_channel)(MB_CH_XROT + test_axes[order][r]);
            placed = 1;
        }
    }
    return m;
}

static void check_rewrite(const char *rel)
{
    mb_skeleton *s1;
    mb_clip *c1;
    read_or_die(mb_shared_path(rel), 0, &s1, &c1);
    for (int o = 0; o < 6; ++o) {
        mb_bvh_write_desc d;
        memset(&d, 0, sizeof d);
        d.rewrite_order = 1;
        d.order = (mb_euler_order)o;
        char what[300];
        snprintf(what, sizeof what, "%s rewritten to %s", rel, order_names[o]);
        size_t len;
        char *text = write_or_die(s1, c1, &d, &len, what);
        mb_skeleton *s2;
        mb_clip *c2;
        read_text_or_die(text, len, what, &s2, &c2);
        int changed = 0;
        for (int j = 0; j < mb_skeleton_joint_count(s1); ++j) {
            const mb_channel *a, *b;
            int na = mb_skeleton_channels(s1, j, &a), nb = mb_skeleton_channels(s2, j, &b);
            mb_channel want[6];
            int nw = expected_rewrite(a, na, o, want);
            cr_assert_eq(nb, nw, "%s: channel count of %s", what, mb_skeleton_name(s1, j));
            for (int k = 0; k < nw; ++k)
                cr_assert_eq(b[k], want[k], "%s: channel %d of %s is %s, want %s", what, k,
                             mb_skeleton_name(s1, j), mb_channel_name(b[k]),
                             mb_channel_name(want[k]));
            int has_rot = 0;
            for (int k = 0; k < na; ++k)
                has_rot |= a[k] >= MB_CH_XROT;
            if (has_rot) {
                cr_assert_eq((int)mb_skeleton_rot_order(s2, j), o, "%s: order of %s", what,
                             mb_skeleton_name(s1, j));
                changed |= mb_skeleton_rot_order(s1, j) != (mb_euler_order)o;
            }
        }
        worst w = {0, 0, 0};
        compare_motion(what, s1, c1, s2, c2, default_tols, &w);
        fprintf(stderr, "rewrite %-60s rot %.2e rad, fk %.2e%s\n", what, w.rot, w.fk,
                changed ? "" : " (same order as the file)");
        free(text);
        mb_skeleton_destroy(s2);
        mb_clip_destroy(c2);
    }
    mb_skeleton_destroy(s1);
    mb_clip_destroy(c1);
}

Test(bvh_write, rewrite_order_cmu_run) { check_rewrite("bvh/cmu_02_03_run.bvh"); }

Test(bvh_write, rewrite_order_mixed)
{
    check_rewrite("bvh/derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh");
}

/* ---------- synthetic clips ---------- */

/* Quaternion helpers written out here (x, y, z, w), independent of the library. */
static void qmul_d(const double p[4], const double q[4], double r[4])
{
    double t[4];
    t[0] = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
    t[1] = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
    t[2] = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
    t[3] = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
    memcpy(r, t, sizeof t);
}

/* R = R_axes[0](deg[0]) * ... for n angles (intrinsic, listed order), as floats. */
static void euler_quat_f(const int *axes, const double *deg, int n, float out[4])
{
    double q[4] = {0, 0, 0, 1};
    for (int k = 0; k < n; ++k) {
        double r[4] = {0, 0, 0, cos(0.5 * deg[k] * DEG)};
        r[axes[k]] = sin(0.5 * deg[k] * DEG);
        qmul_d(q, r, q);
    }
    for (int k = 0; k < 4; ++k)
        out[k] = (float)q[k];
}

static void set_rot_channels(mb_joint_desc *j, int order, int with_pos, int rot_first)
{
    int n = 0;
    if (with_pos && !rot_first)
        for (int k = 0; k < 3; ++k)
            j->channels[n++] = (mb_channel)(MB_CH_XPOS + k);
    for (int k = 0; k < 3; ++k)
        j->channels[n++] = (mb_channel)(MB_CH_XROT + test_axes[order][k]);
    if (with_pos && rot_first)
        for (int k = 0; k < 3; ++k)
            j->channels[n++] = (mb_channel)(MB_CH_XPOS + k);
    j->channel_count = n;
}

static void round_trip_synthetic(const char *what, const mb_skeleton *s, const mb_clip *c,
                                 const mb_bvh_write_desc *d, tols tol)
{
    size_t len;
    char *text = write_or_die(s, c, d, &len, what);
    mb_skeleton *s2;
    mb_clip *c2;
    read_text_or_die(text, len, what, &s2, &c2);
    if (!d || !d->rewrite_order)
        compare_channels_same(what, s, s2);
    worst w = {0, 0, 0};
    compare_motion(what, s, c, s2, c2, tol, &w);
    fprintf(stderr, "synthetic %-40s rot %.2e rad\n", what, w.rot);
    free(text);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(c2);
}

Test(bvh_write, gimbal_lock_all_orders)
{
    const double middles[] = {90.0, -90.0, 89.9999, -89.9999, 90.0 - 1e-6, -90.0 + 1e-7};
    const double outer0[] = {0.0, 30.0, -170.0, 179.9, 180.0};
    const double outer2[] = {0.0, 45.0, -120.0, 179.99};
    const int nm = 6, n0 = 5, n2 = 4, nf = nm * n0 * n2;
    for (int o = 0; o < 6; ++o) {
        /* Root with positions (rotations first on odd orders), two joints, an End Site. */
        mb_joint_desc jd[4];
        memset(jd, 0, sizeof jd);
        jd[0].name = "Root";
        jd[0].parent = -1;
        set_rot_channels(&jd[0], o, 1, o & 1);
        jd[1].name = "Upper";
        jd[1].parent = 0;
        jd[1].offset[1] = 10.0f;
        set_rot_channels(&jd[1], o, 0, 0);
        jd[2].name = "Lower";
        jd[2].parent = 1;
        jd[2].offset[0] = 3.0f;
        jd[2].offset[1] = 10.0f;
        set_rot_channels(&jd[2], o, 0, 0);
        jd[3].name = "Lower_End";
        jd[3].parent = 2;
        jd[3].end_site = 1;
        jd[3].offset[2] = 5.0f;
        mb_skeleton_desc sd = {jd, 4, {0}};
        mb_skeleton *s;
        cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);

        float *rot = calloc((size_t)nf * 4 * 4, sizeof(float));
        float *tr = calloc((size_t)nf * 4 * 3, sizeof(float));
        for (int f = 0; f < nf; ++f) {
            int im = f % nm, i0 = (f / nm) % n0, i2 = f / (nm * n0);
            double a[3] = {outer0[i0], middles[im], outer2[i2]};
            double b[3] = {outer2[i2], middles[(im + 1) % nm], -outer0[i0]};
            double id[3] = {0, 0, 0};
            euler_quat_f(test_axes[o], a, 3, &rot[4 * (4 * f + 0)]);
            euler_quat_f(test_axes[o], b, 3, &rot[4 * (4 * f + 1)]);
            euler_quat_f(test_axes[o], a, 3, &rot[4 * (4 * f + 2)]);
            euler_quat_f(test_axes[o], id, 3, &rot[4 * (4 * f + 3)]);
            for (int j = 0; j < 4; ++j)
                for (int k = 0; k < 3; ++k)
                    tr[3 * (4 * f + j) + k] = j == 0 ? (float)(f * 0.5 + k) : jd[j].offset[k];
        }
        mb_clip *c;
        cr_assert_eq(mb_test_clip_full(s, nf, 1.0 / 30.0, rot, tr, &c), MB_OK);
        char what[64];
        snprintf(what, sizeof what, "gimbal %s", order_names[o]);
        round_trip_synthetic(what, s, c, NULL, default_tols);
        /* And through a different order: lock in one order is no lock in another. */
        mb_bvh_write_desc d;
        memset(&d, 0, sizeof d);
        d.rewrite_order = 1;
        d.order = (mb_euler_order)((o + 3) % 6);
        snprintf(what, sizeof what, "gimbal %s as %s", order_names[o], order_names[(o + 3) % 6]);
        round_trip_synthetic(what, s, c, &d, default_tols);
        free(rot);
        free(tr);
        mb_skeleton_destroy(s);
        mb_clip_destroy(c);
    }
}

/* Joints with one or two rotation channels (the missing angles read as 0): rotations
 * they can express come back, including a two-channel joint at its own gimbal lock. */
Test(bvh_write, fewer_rotation_channels)
{
    mb_joint_desc jd[4];
    memset(jd, 0, sizeof jd);
    jd[0].name = "Hips";
    jd[0].parent = -1;
    jd[0].channel_count = 5; /* Xposition Zrotation Yposition Xrotation Zposition */
    jd[0].channels[0] = MB_CH_XPOS;
    jd[0].channels[1] = MB_CH_ZROT;
    jd[0].channels[2] = MB_CH_YPOS;
    jd[0].channels[3] = MB_CH_XROT;
    jd[0].channels[4] = MB_CH_ZPOS;
    jd[1].name = "Knee";
    jd[1].parent = 0;
    jd[1].offset[1] = -4.0f;
    jd[1].channel_count = 1;
    jd[1].channels[0] = MB_CH_YROT;
    jd[2].name = "Ankle";
    jd[2].parent = 1;
    jd[2].offset[1] = -4.0f;
    jd[2].channel_count = 2;
    jd[2].channels[0] = MB_CH_YROT;
    jd[2].channels[1] = MB_CH_ZROT;
    jd[3].name = "Ankle_End";
    jd[3].parent = 2;
    jd[3].end_site = 1;
    jd[3].offset[2] = 1.0f;
    mb_skeleton_desc sd = {jd, 4, {0}};
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);

    const double first[] = {0, 30, -150, 179.9, 180};
    const double second[] = {0, 45, 90, -90, 89.9999, -89.9999, 135, -170};
    enum { nf = 5 * 8 };
    float rot[nf * 4 * 4], tr[nf * 4 * 3];
    const int zx[2] = {2, 0}, y1[1] = {1}, yz[2] = {1, 2};
    for (int f = 0; f < nf; ++f) {
        double a[2] = {first[f % 5], second[f / 5]};
        double t1[1] = {first[f % 5] + second[f / 5]};
        euler_quat_f(zx, a, 2, &rot[4 * (4 * f + 0)]);
        euler_quat_f(y1, t1, 1, &rot[4 * (4 * f + 1)]);
        double b[2] = {second[f / 5], first[f % 5]};
        euler_quat_f(yz, b, 2, &rot[4 * (4 * f + 2)]);
        double id[1] = {0};
        euler_quat_f(y1, id, 1, &rot[4 * (4 * f + 3)]);
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 3; ++k)
                tr[3 * (4 * f + j) + k] = j == 0 ? (float)(k - f * 0.25) : jd[j].offset[k];
    }
    mb_clip *c;
    cr_assert_eq(mb_test_clip_full(s, nf, 0.04, rot, tr, &c), MB_OK);
    round_trip_synthetic("1 and 2 rotation channels", s, c, NULL, default_tols);
    /* Rewritten to three channels: Hips keeps its positions at 0, 2 and then 6. */
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.rewrite_order = 1;
    d.order = MB_ORDER_YXZ;
    char *text = write_or_die(s, c, &d, NULL, "rewrite");
    cr_assert_not_null(strstr(text, "CHANNELS 6 Xposition Yrotation Xrotation Zrotation "
                                    "Yposition Zposition\n"),
                       "%.600s", text);
    cr_assert_not_null(strstr(text, "\t\tCHANNELS 3 Yrotation Xrotation Zrotation\n"));
    free(text);
    round_trip_synthetic("1 and 2 rotation channels as YXZ", s, c, &d, default_tols);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* Parses the motion lines of a written text into vals[frame][channel]. */
static int parse_motion(const char *text, int nch, double *vals, int max_frames)
{
    const char *p = strstr(text, "Frame Time:");
    cr_assert_not_null(p);
    p = strchr(p, '\n') + 1;
    int f = 0;
    while (*p && f < max_frames) {
        for (int k = 0; k < nch; ++k) {
            char *e;
            vals[f * nch + k] = strtod(p, &e);
            cr_assert(e != p, "bad number at '%.20s'", p);
            p = e;
        }
        cr_assert_eq(*p, '\n');
        ++p;
        ++f;
    }
    return f;
}

/* Rotations are written in the fewest digits that read back as the very float rotation the
 * clip holds: the re-read clip's rotations equal the first read's bit for bit (but for
 * angles moved for continuity, see below), and a file's own numbers come back as written
 * ("-21", not "-20.9999998"). */
Test(bvh_write, rotations_read_back_bit_for_bit_in_the_files_digits)
{
    char *files[256];
    int n = list_bvh("bvh", files, 128);
    long same_tok = 0, rot_tok = 0, changed = 0, floats = 0;
    for (int i = 0; i < n; ++i) {
        const char *base = strrchr(files[i], '/') + 1;
        mb_skeleton *s1, *s2;
        mb_clip *c1, *c2;
        char *text;
        size_t len;
        read_write_read(files[i], &s1, &c1, &text, &len, &s2, &c2);
        long nq = 4L * mb_clip_frame_count(c1) * mb_skeleton_joint_count(s1), diff = 0;
        const float *q1 = mb_clip_rotations(c1), *q2 = mb_clip_rotations(c2);
        for (long k = 0; k < nq; ++k)
            diff += q1[k] != q2[k];
        /* the rest: angles shifted by whole turns or to the other Tait-Bryan branch for
         * continuity (their float grid is coarser), and near-lock splits; the round trip
         * tests bound how far those move */
        cr_log_info("%s: %ld of %ld rotation floats changed", files[i], diff, nq);
        cr_assert_leq(diff * 50, nq, "%s: %ld of %ld rotation floats changed", files[i], diff, nq);
        if (strcmp(base, "cmu_02_01_walk.bvh") == 0)
            cr_assert_eq(diff, 0);
        changed += diff;
        floats += nq;
        /* the CMU walk's rotation values, token for token (it has no wrap-arounds) */
        if (strcmp(base, "cmu_02_01_walk.bvh") == 0) {
            size_t slen;
            char *src = mb_test_slurp(mb_shared_path(files[i]), &slen);
            int nch = mb_skeleton_channel_count(s1), nf = mb_clip_frame_count(c1);
            double *a = malloc(sizeof(double) * (size_t)nch * (size_t)nf);
            double *b = malloc(sizeof(double) * (size_t)nch * (size_t)nf);
            cr_assert_eq(parse_motion(src, nch, a, nf), nf);
            cr_assert_eq(parse_motion(text, nch, b, nf), nf);
            for (int f = 0; f < nf; ++f)
                for (int c = 6; c < nch; ++c) { /* past the root's positions */
                    ++rot_tok;
                    same_tok += a[(size_t)f * nch + c] == b[(size_t)f * nch + c];
                }
            free(a);
            free(b);
            free(src);
        }
        free_read_write_read(s1, c1, text, s2, c2);
        free(files[i]);
    }
    cr_log_info("cmu_02_01_walk: %ld of %ld rotation values written as in the file; all files: "
                "%ld of %ld rotation floats changed", same_tok, rot_tok, changed, floats);
    cr_assert_gt(rot_tok, 10000);
    cr_assert_eq(same_tok, rot_tok);
    cr_assert_leq(changed * 100, floats); /* the 9-digit writer changed 8% */
}

/* Consecutive frames keep their Euler angles close: whole turns are unwrapped and the
 * second Euler solution takes over where the middle angle passes 90 degrees. */
Test(bvh_write, continuous_angles)
{
    mb_joint_desc jd[2];
    memset(jd, 0, sizeof jd);
    jd[0].name = "Spinner";
    jd[0].parent = -1;
    set_rot_channels(&jd[0], 4 /* ZXY */, 0, 0);
    jd[1].name = "Tumbler";
    jd[1].parent = 0;
    jd[1].offset[1] = 1.0f;
    set_rot_channels(&jd[1], 4 /* ZXY */, 0, 0);
    mb_skeleton_desc sd = {jd, 2, {0}};
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
    enum { NF = 100 };
    float rot[NF * 2 * 4];
    for (int f = 0; f < NF; ++f) {
        double spin[3] = {0, 0, 10.0 * f}; /* Y about 10 degrees per frame: 990 at the end */
        /* X from 1 to 298 degrees, past both locks (never exactly on one) */
        double tumble[3] = {5, 3.0 * f + 1, -7};
        euler_quat_f(test_axes[4], spin, 3, &rot[4 * (2 * f)]);
        euler_quat_f(test_axes[4], tumble, 3, &rot[4 * (2 * f + 1)]);
    }
    mb_clip_desc cd = {2, NF, 0.1, rot, NULL, 0, NULL, {0}};
    mb_clip *c;
    cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
    char *text = write_or_die(s, c, NULL, NULL, "spin");
    static double v[NF * 6];
    cr_assert_eq(parse_motion(text, 6, v, NF), NF);
    int jumps = 0;
    for (int f = 0; f < NF; ++f) {
        cr_assert(fabs(v[6 * f + 0]) < 1e-3 && fabs(v[6 * f + 1]) < 1e-3,
                  "frame %d: spinner Z, X = %g, %g", f, v[6 * f], v[6 * f + 1]);
        /* 10 f plus whole turns, within the writer's +-720 degree bound. */
        double turns = (v[6 * f + 2] - 10.0 * f) / 360.0;
        cr_assert(fabs(turns - nearbyint(turns)) < 1e-6 && fabs(v[6 * f + 2]) <= 720.0,
                  "frame %d: spinner Y %.9g, want %g plus whole turns", f, v[6 * f + 2],
                  10.0 * f);
        if (f > 0 && fabs(v[6 * f + 2] - v[6 * (f - 1) + 2] - 10.0) > 1e-3)
            ++jumps;
        cr_assert(fabs(v[6 * f + 3] - 5) < 1e-3 && fabs(v[6 * f + 4] - (3.0 * f + 1)) < 1e-3 &&
                      fabs(v[6 * f + 5] + 7) < 1e-3,
                  "frame %d: tumbler %.9g %.9g %.9g, want 5 %g -7", f, v[6 * f + 3],
                  v[6 * f + 4], v[6 * f + 5], 3.0 * f + 1);
    }
    /* 990 degrees of spin: unwrapped up to 720, then one jump back (a principal-range
     * writer would jump twice, at 180 and 540). */
    cr_assert_eq(jumps, 1, "%d discontinuities in the spin", jumps);
    mb_skeleton *s2;
    mb_clip *c2;
    read_text_or_die(text, strlen(text), "spin", &s2, &c2);
    worst w = {0, 0, 0};
    compare_motion("spin", s, c, s2, c2, default_tols, &w);
    free(text);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(c);
    mb_clip_destroy(c2);
}

/* A middle angle of exactly +-90 degrees, stored as float quaternions, is written as the
 * lock it is: the first angle carries the twist, the third is 0, instead of a split of
 * the twist decided by float rounding. */
Test(bvh_write, exact_lock_written_plainly)
{
    enum { NF = 12 };
    for (int o = 0; o < 6; ++o) {
        mb_joint_desc jd[1];
        memset(jd, 0, sizeof jd);
        jd[0].name = "Locked";
        jd[0].parent = -1;
        set_rot_channels(&jd[0], o, 0, 0);
        mb_skeleton_desc sd = {jd, 1, {0}};
        mb_skeleton *s;
        cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
        float rot[NF * 4];
        double want[NF][3];
        for (int f = 0; f < NF; ++f) {
            /* The twist is a + c or a - c. Rounding to float keeps a lock quaternion exactly
             * on the lock (its equal components round alike), so one ulp is added to one
             * component, as other float arithmetic (blending, sampling) would: ~1e-7 off. */
            double a[3] = {-165.0 + 29.0 * f, f % 2 ? 90.0 : -90.0, 17.0 + 11.0 * f};
            euler_quat_f(test_axes[o], a, 3, &rot[4 * f]);
            float *q = &rot[4 * f + (f % 4)];
            *q = nextafterf(*q, 2.0f);
            memcpy(want[f], a, sizeof a);
        }
        mb_clip_desc cd = {1, NF, 0.1, rot, NULL, 0, NULL, {0}};
        mb_clip *c;
        cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
        char *text = write_or_die(s, c, NULL, NULL, "lock");
        double v[NF * 3];
        cr_assert_eq(parse_motion(text, 3, v, NF), NF);
        for (int f = 0; f < NF; ++f) {
            double t1 = (v[3 * f] - (want[f][0] + want[f][2])) / 360.0;
            double t2 = (v[3 * f] - (want[f][0] - want[f][2])) / 360.0;
            cr_assert((fabs(t1 - nearbyint(t1)) < 1e-5 || fabs(t2 - nearbyint(t2)) < 1e-5) &&
                          fabs(v[3 * f + 1] - want[f][1]) < 1e-4 && fabs(v[3 * f + 2]) < 1e-4,
                      "%s frame %d: wrote %.9g %.9g %.9g, want %g+-%g %g 0", order_names[o],
                      f, v[3 * f], v[3 * f + 1], v[3 * f + 2], want[f][0], want[f][2],
                      want[f][1]);
        }
        mb_skeleton *s2;
        mb_clip *c2;
        read_text_or_die(text, strlen(text), "lock", &s2, &c2);
        worst w = {0, 0, 0};
        compare_motion("lock", s, c, s2, c2, default_tols, &w);
        fprintf(stderr, "exact lock %s: rot %.2e rad\n", order_names[o], w.rot);
        mb_skeleton_destroy(s2);
        mb_clip_destroy(c2);
        free(text);
        mb_skeleton_destroy(s);
        mb_clip_destroy(c);
    }
}

/* Joints stored parents-first but not depth-first are written depth-first (BVH nests). */
Test(bvh_write, breadth_first_skeleton_written_depth_first)
{
    mb_joint_desc jd[5];
    memset(jd, 0, sizeof jd);
    const char *names[5] = {"R", "A", "B", "A1", "B1"};
    const int parents[5] = {-1, 0, 0, 1, 2};
    for (int j = 0; j < 5; ++j) {
        jd[j].name = names[j];
        jd[j].parent = parents[j];
        jd[j].offset[0] = (float)j / 3.0f; /* needs all 9 digits to come back exactly */
        jd[j].offset[2] = -1e-7f * (float)j;
        set_rot_channels(&jd[j], j % 6, j == 0, 0);
    }
    mb_skeleton_desc sd = {jd, 5, {0}};
    mb_skeleton *s;
    cr_assert_eq(mb_skeleton_create(&sd, &s, NULL), MB_OK);
    float rot[2 * 5 * 4];
    for (int f = 0; f < 2; ++f)
        for (int j = 0; j < 5; ++j) {
            double a[3] = {10.0 * j + f, -20.0 * f, 7.0 * j};
            euler_quat_f(test_axes[j % 6], a, 3, &rot[4 * (5 * f + j)]);
        }
    mb_clip_desc cd = {5, 2, 0.5, rot, NULL, 0, NULL, {0}};
    mb_clip *c;
    cr_assert_eq(mb_clip_create(&cd, &c, NULL), MB_OK);
    char *text = write_or_die(s, c, NULL, NULL, "bfs");
    mb_skeleton *s2;
    mb_clip *c2;
    read_text_or_die(text, strlen(text), "bfs", &s2, &c2);
    const char *want_order[5] = {"R", "A", "A1", "B", "B1"};
    for (int j = 0; j < 5; ++j) {
        cr_assert_str_eq(mb_skeleton_name(s2, j), want_order[j]);
        int src = mb_skeleton_find(s, want_order[j]);
        cr_assert_eq(mb_skeleton_rot_order(s2, j), mb_skeleton_rot_order(s, src));
        for (int k = 0; k < 3; ++k)
            cr_assert(mb_skeleton_offset(s2, j)[k] == mb_skeleton_offset(s, src)[k],
                      "offset %d of %s: %.9g became %.9g", k, want_order[j],
                      mb_skeleton_offset(s, src)[k], mb_skeleton_offset(s2, j)[k]);
        for (int f = 0; f < 2; ++f) {
            double e = mb_quat_angle_between(&mb_clip_rotations(c)[4 * (5 * f + src)],
                                             &mb_clip_rotations(c2)[4 * (5 * f + j)]);
            cr_assert(e < 1e-5, "joint %s frame %d off by %g rad", want_order[j], f, e);
        }
    }
    free(text);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(c);
    mb_clip_destroy(c2);
}

/* ---------- precision ---------- */

static int significant_digits(const char *tok, size_t n)
{
    int count = 0, leading = 1;
    for (size_t i = 0; i < n; ++i) {
        char ch = tok[i];
        if (ch == 'e' || ch == 'E')
            break;
        if (ch < '0' || ch > '9')
            continue;
        if (leading && ch == '0')
            continue;
        leading = 0;
        ++count;
    }
    return count;
}

Test(bvh_write, precision_limits_digits)
{
    mb_skeleton *s1;
    mb_clip *c1;
    read_or_die(mb_shared_path("bvh/cmu_02_03_run.bvh"), 0, &s1, &c1);
    const int precs[] = {4, 6, 12};
    /* Half a unit in the last digit, relative: 5e-4, 5e-6, 5e-11 (but positions are floats,
     * and float parsing stays the floor for rotations). */
    const tols limits[] = {{5e-3, 5e-4, 5e-4}, {5e-5, 5e-6, 5e-6}, {1e-5, 1e-7, 1e-4}};
    size_t prev_len = 0;
    for (int i = 0; i < 3; ++i) {
        mb_bvh_write_desc d;
        memset(&d, 0, sizeof d);
        d.precision = precs[i];
        size_t len;
        char *text = write_or_die(s1, c1, &d, &len, "precision");
        cr_assert(len > prev_len, "more digits must make a longer text");
        prev_len = len;
        const char *p = strstr(text, "Frame Time:");
        p = strchr(p, '\n') + 1;
        int max_digits = 0;
        while (*p) {
            size_t n = strcspn(p, " \n");
            int sd = significant_digits(p, n);
            if (sd > max_digits)
                max_digits = sd;
            p += n;
            if (*p)
                ++p;
        }
        cr_assert(max_digits <= precs[i], "precision %d: a value has %d digits", precs[i],
                  max_digits);
        cr_assert(max_digits == precs[i], "precision %d: no value uses all digits (max %d)",
                  precs[i], max_digits);
        mb_skeleton *s2;
        mb_clip *c2;
        read_text_or_die(text, len, "precision", &s2, &c2);
        worst w = {0, 0, 0};
        compare_motion("precision", s1, c1, s2, c2, limits[i], &w);
        fprintf(stderr, "precision %2d: %zu bytes, worst rotation %.2e rad\n", precs[i], len,
                w.rot);
        free(text);
        mb_skeleton_destroy(s2);
        mb_clip_destroy(c2);
    }
    mb_skeleton_destroy(s1);
    mb_clip_destroy(c1);
}

/* ---------- arguments and allocator ---------- */

/* drop_still_positions: position channels that hold the OFFSET in every frame (to float
 * noise: A's 2.0000001) go (not on a ROOT), the others stay, and the motion reads back the
 * same. */
Test(bvh_write, still_position_channels_dropped_on_request)
{
    const char *text = "HIERARCHY\nROOT R\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition "
                       "Zposition Zrotation Xrotation Yrotation\n\tJOINT A\n\t{\n\t\tOFFSET 1 2 3\n"
                       "\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       "\t\tJOINT B\n\t\t{\n\t\t\tOFFSET 0 1 0\n\t\t\tCHANNELS 6 Xposition "
                       "Yposition Zposition Zrotation Xrotation Yrotation\n\t\t\tEnd Site\n\t\t\t{\n"
                       "\t\t\t\tOFFSET 0 1 0\n\t\t\t}\n\t\t}\n\t}\n}\nMOTION\nFrames: 2\n"
                       "Frame Time: 0.1\n"
                       "0 0 0 0 0 0 1 2 3 10 0 0 0 1 0 0 0 0\n"
                       "0 0 0 0 0 0 1 2.0000001 3 20 0 0 0 1.5 0 0 0 0\n";
    mb_skeleton *s, *s2;
    mb_clip *c, *c2;
    read_text_or_die(text, strlen(text), "still", &s, &c);
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.drop_still_positions = 1;
    size_t len;
    char *out = write_or_die(s, c, &d, &len, "still");
    read_text_or_die(out, len, "still written", &s2, &c2);
    const mb_channel *ch;
    cr_assert_eq(mb_skeleton_channels(s2, 0, &ch), 6); /* the ROOT holds still too, and keeps them */
    cr_assert_eq(mb_skeleton_channels(s2, 1, &ch), 3);
    cr_assert_eq(ch[0], MB_CH_ZROT);
    cr_assert_eq(mb_skeleton_channels(s2, 2, &ch), 6); /* B moves in frame 1 */
    worst w = {0, 0, 0};
    compare_motion("still", s, c, s2, c2, default_tols, &w);
    cr_assert_leq(w.fk, 1e-6);
    free(out);
    /* without the request every channel stays */
    out = write_or_die(s, c, NULL, &len, "still");
    cr_assert_not_null(strstr(out, "OFFSET 1 2 3\n\t\tCHANNELS 6"));
    free(out);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(c);
    mb_clip_destroy(c2);
}

/* portable_offsets: a constant translation (A's (4,5,6), not its OFFSET 1 2 3) becomes the
 * OFFSET without channels; moving ones (the ROOT, B) keep their channels over OFFSET 0, so a
 * reader that adds the OFFSET to the channels (three.js) and one that replaces it (mblend)
 * read the same positions; a joint without position channels (C) keeps its OFFSET. */
Test(bvh_write, portable_offsets_read_the_same_added_or_replaced)
{
    const char *text = "HIERARCHY\nROOT R\n{\n\tOFFSET 5 6 7\n\tCHANNELS 6 Xposition Yposition "
                       "Zposition Zrotation Xrotation Yrotation\n\tJOINT A\n\t{\n\t\tOFFSET 1 2 3\n"
                       "\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                       "\t\tJOINT B\n\t\t{\n\t\t\tOFFSET 0 1 0\n\t\t\tCHANNELS 6 Xposition "
                       "Yposition Zposition Zrotation Xrotation Yrotation\n\t\t\tJOINT C\n\t\t\t{\n"
                       "\t\t\t\tOFFSET 0 0 1\n\t\t\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "\t\t\t\tEnd Site\n\t\t\t\t{\n\t\t\t\t\tOFFSET 0 1 0\n\t\t\t\t}\n\t\t\t}\n"
                       "\t\t}\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                       "5 6 7 0 0 0 4 5 6 10 0 0 0 1 0 0 0 0 0 0 5\n"
                       "5 7 7 0 0 0 4 5.0000001 6 20 0 0 0 1.5 0 0 0 0 0 0 7\n";
    mb_skeleton *s, *s2;
    mb_clip *c, *c2;
    read_text_or_die(text, strlen(text), "portable", &s, &c);
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.portable_offsets = 1;
    size_t len;
    char *out = write_or_die(s, c, &d, &len, "portable");
    cr_assert_not_null(strstr(out, "ROOT R\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6"), "%s", out);
    cr_assert_not_null(strstr(out, "JOINT A\n\t{\n\t\tOFFSET 4 5 6\n\t\tCHANNELS 3 Z"), "%s", out);
    cr_assert_not_null(strstr(out, "JOINT B\n\t\t{\n\t\t\tOFFSET 0 0 0\n\t\t\tCHANNELS 6"), "%s", out);
    cr_assert_not_null(strstr(out, "JOINT C\n\t\t\t{\n\t\t\t\tOFFSET 0 0 1\n\t\t\t\tCHANNELS 3"),
                       "%s", out);
    read_text_or_die(out, len, "portable written", &s2, &c2);
    /* read by replacing (the OFFSETs change, so compare_motion does not apply): every
     * joint's world position in every frame as before */
    cr_assert_eq(mb_clip_frame_count(c2), 2);
    float w1[6][3], w2[6][3];
    cr_assert_eq(mb_skeleton_joint_count(s2), 5);
    for (int f = 0; f < 2; ++f) {
        world_positions(s, c, f, w1);
        world_positions(s2, c2, f, w2);
        for (int j = 0; j < 5; ++j)
            for (int k = 0; k < 3; ++k)
                cr_assert(fabsf(w1[j][k] - w2[j][k]) <= 1e-5f, "frame %d joint %s: %g, was %g",
                          f, mb_skeleton_name(s2, j), w2[j][k], w1[j][k]);
    }
    /* adding: every joint with position channels has OFFSET 0, so offset + channel is the
     * channel, the position mblend read */
    for (int j = 0; j < mb_skeleton_joint_count(s2); ++j) {
        const mb_channel *ch;
        int n = mb_skeleton_channels(s2, j, &ch);
        for (int k = 0; k < n; ++k)
            if (ch[k] <= MB_CH_ZPOS)
                cr_assert_eq(mb_skeleton_offset(s2, j)[ch[k] - MB_CH_XPOS], 0.0f, "joint %s",
                             mb_skeleton_name(s2, j));
    }
    free(out);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(c2);
    /* a still ROOT keeps its channels (readers expect them there), over OFFSET 0 */
    char still[2048];
    snprintf(still, sizeof still, "%s", text);
    char *row2 = strstr(still, "\n5 7 7 ");
    cr_assert_not_null(row2);
    row2[3] = '6';
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    read_text_or_die(still, strlen(still), "portable still root", &s, &c);
    out = write_or_die(s, c, &d, &len, "portable still root");
    cr_assert_not_null(strstr(out, "ROOT R\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6"), "%s", out);
    cr_assert_not_null(strstr(out, "MOTION\nFrames: 2\nFrame Time: 0.1\n5 6 7 "), "%s", out);
    free(out);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

Test(bvh_write, invalid_arguments)
{
    mb_skeleton *s, *other;
    mb_clip *c, *oc;
    read_or_die(mb_shared_path("bvh/derived/tiny_arm_handcheck.bvh"), 0, &s, &c);
    read_or_die(mb_shared_path("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh"), 0, &other, &oc);
    char *text = (char *)1;
    size_t len = 99;
    mb_error err;
    cr_assert_eq(mb_bvh_write_mem(NULL, c, NULL, &text, &len, &err), MB_INVALID_ARG);
    cr_assert_null(text);
    cr_assert_eq(len, 0);
    cr_assert_eq(err.code, MB_INVALID_ARG);
    cr_assert(strlen(err.text) > 0);
    cr_assert_eq(mb_bvh_write_mem(s, NULL, NULL, &text, &len, &err), MB_INVALID_ARG);
    cr_assert_eq(mb_bvh_write_mem(s, c, NULL, NULL, &len, NULL), MB_INVALID_ARG);
    /* A clip of another joint count: */
    mb_skeleton *big;
    mb_clip *bigc;
    read_or_die(mb_shared_path("bvh/cmu_02_03_run.bvh"), 0, &big, &bigc);
    cr_assert_eq(mb_bvh_write_mem(big, c, NULL, &text, &len, &err), MB_MISMATCH);
    cr_assert_null(text);
    cr_assert_not_null(strstr(err.text, "joints"), "%s", err.text);
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.precision = -1;
    cr_assert_eq(mb_bvh_write_mem(s, c, &d, &text, &len, &err), MB_INVALID_ARG);
    d.precision = 18;
    cr_assert_eq(mb_bvh_write_mem(s, c, &d, &text, &len, &err), MB_INVALID_ARG);
    d.precision = 17;
    cr_assert_eq(mb_bvh_write_mem(s, c, &d, &text, &len, &err), MB_OK);
    free(text);
    d.precision = 0;
    d.rewrite_order = 1;
    d.order = (mb_euler_order)6;
    cr_assert_eq(mb_bvh_write_mem(s, c, &d, &text, &len, &err), MB_INVALID_ARG);
    d.rewrite_order = 0; /* the order is ignored when not rewriting */
    cr_assert_eq(mb_bvh_write_mem(s, c, &d, &text, &len, NULL), MB_OK);
    free(text);
    /* out_len is optional (the text is NUL-terminated). */
    cr_assert_eq(mb_bvh_write_mem(s, c, NULL, &text, NULL, NULL), MB_OK);
    free(text);
    /* Names that would not read back the same are refused, not silently changed. */
    mb_joint_desc jd[1];
    memset(jd, 0, sizeof jd);
    jd[0].name = "bad{name";
    jd[0].parent = -1;
    jd[0].channel_count = 1;
    jd[0].channels[0] = MB_CH_YROT;
    mb_skeleton_desc sd = {jd, 1, {0}};
    mb_skeleton *bad;
    cr_assert_eq(mb_skeleton_create(&sd, &bad, NULL), MB_OK);
    mb_clip_desc cd = {1, 1, 0.1, NULL, NULL, 0, NULL, {0}};
    mb_clip *one;
    cr_assert_eq(mb_clip_create(&cd, &one, NULL), MB_OK);
    cr_assert_eq(mb_bvh_write_mem(bad, one, NULL, &text, &len, &err), MB_INVALID_ARG);
    cr_assert_not_null(strstr(err.text, "bad{name"), "%s", err.text);
    mb_skeleton_destroy(bad);
    jd[0].name = "line\nbreak";
    cr_assert_eq(mb_skeleton_create(&sd, &bad, NULL), MB_OK);
    cr_assert_eq(mb_bvh_write_mem(bad, one, NULL, &text, &len, &err), MB_INVALID_ARG);
    mb_skeleton_destroy(bad);
    jd[0].name = "Bip01 L Thigh"; /* inner spaces are fine: the reader keeps them */
    cr_assert_eq(mb_skeleton_create(&sd, &bad, NULL), MB_OK);
    cr_assert_eq(mb_bvh_write_mem(bad, one, NULL, &text, &len, &err), MB_OK);
    mb_skeleton *back;
    mb_clip *backc;
    read_text_or_die(text, len, "spaces", &back, &backc);
    cr_assert_str_eq(mb_skeleton_name(back, 0), "Bip01 L Thigh");
    free(text);
    mb_skeleton_destroy(back);
    mb_clip_destroy(backc);
    mb_skeleton_destroy(bad);
    mb_clip_destroy(one);
    /* Without channels a BVH can only have 0 frames (the reader refuses more). */
    jd[0].name = "Static";
    jd[0].channel_count = 0;
    cr_assert_eq(mb_skeleton_create(&sd, &bad, NULL), MB_OK);
    cr_assert_eq(mb_clip_create(&cd, &one, NULL), MB_OK);
    cr_assert_eq(mb_bvh_write_mem(bad, one, NULL, &text, &len, &err), MB_INVALID_ARG);
    cr_assert_not_null(strstr(err.text, "no channels"), "%s", err.text);
    mb_clip_destroy(one);
    mb_clip_desc cd0 = {1, 0, 0.1, NULL, NULL, 0, NULL, {0}};
    cr_assert_eq(mb_clip_create(&cd0, &one, NULL), MB_OK);
    cr_assert_eq(mb_bvh_write_mem(bad, one, NULL, &text, &len, &err), MB_OK);
    read_text_or_die(text, len, "static", &back, &backc);
    cr_assert_eq(mb_clip_frame_count(backc), 0);
    free(text);
    mb_skeleton_destroy(back);
    mb_clip_destroy(backc);
    mb_skeleton_destroy(bad);
    mb_clip_destroy(one);
    /* Non-finite values cannot be written (a clip filled through the _mut accessors). */
    mb_clip *nanc;
    int nt;
    const int *tj = mb_skeleton_translation_joints(s, &nt);
    cr_assert_gt(nt, 0);
    cr_assert_eq(mb_clip_alloc(4, 1, 0.1, tj, nt, NULL, &nanc, NULL), MB_OK);
    memcpy(mb_clip_rotations_mut(nanc), mb_clip_rotations(c), 4 * 4 * sizeof(float));
    memcpy(mb_clip_translations_mut(nanc), mb_clip_translations(c), (size_t)nt * 3 * sizeof(float));
    mb_clip_translations_mut(nanc)[1] = NAN;
    cr_assert_eq(mb_bvh_write_mem(s, nanc, NULL, &text, &len, &err), MB_NUMERIC);
    cr_assert_null(text);
    mb_clip_destroy(nanc);

    mb_skeleton_destroy(s);
    mb_skeleton_destroy(other);
    mb_skeleton_destroy(big);
    mb_clip_destroy(c);
    mb_clip_destroy(oc);
    mb_clip_destroy(bigc);
}

typedef struct counting {
    long allocs, frees;
    size_t bytes;
} counting;

static void *count_alloc(size_t n, void *user)
{
    counting *k = user;
    k->allocs++;
    k->bytes += n;
    return malloc(n);
}

static void count_free(void *p, void *user)
{
    counting *k = user;
    k->frees++;
    free(p);
}

Test(bvh_write, allocator_hooks)
{
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/cmu_02_03_run.bvh"), 0, &s, &c);
    counting k = {0, 0, 0};
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = count_alloc;
    d.allocator.free = count_free;
    d.allocator.user = &k;
    char *text;
    size_t len;
    cr_assert_eq(mb_bvh_write_mem(s, c, &d, &text, &len, NULL), MB_OK);
    cr_assert(k.allocs > 0, "the allocator hook was not used");
    cr_assert_eq(k.allocs, k.frees + 1, "only the text may stay allocated (%ld allocs, %ld frees)",
                 k.allocs, k.frees);
    char *plain = write_or_die(s, c, NULL, NULL, "plain");
    cr_assert_str_eq(text, plain);
    d.allocator.free(text, d.allocator.user);
    cr_assert_eq(k.allocs, k.frees);
    /* Failure paths free everything too. */
    mb_clip *one;
    mb_clip_desc cd = {1, 1, 0.1, NULL, NULL, 0, NULL, {0}};
    cr_assert_eq(mb_clip_create(&cd, &one, NULL), MB_OK);
    cr_assert_eq(mb_bvh_write_mem(s, one, &d, &text, &len, NULL), MB_MISMATCH);
    cr_assert_eq(k.allocs, k.frees);
    free(plain);
    mb_clip_destroy(one);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* ---------- files ---------- */

static void make_tmpdir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/mb_bvh_write_XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

/* Names in dir other than those listed (NULL-terminated); returns how many, naming the
 * first in *stray. */
static int stray_entries(const char *dir, const char *const *expected, char *stray, size_t n)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int ok = 0;
        for (const char *const *x = expected; *x; ++x)
            ok |= !strcmp(*x, e->d_name);
        if (!ok && count++ == 0)
            snprintf(stray, n, "%s", e->d_name);
    }
    closedir(d);
    return count;
}

static void cleanup_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            cleanup_dir(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

Test(bvh_write_file, writes_a_file_that_reads_back)
{
    char dir[64], path[128], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.bvh", dir);
    mb_skeleton *s1, *s2;
    mb_clip *c1, *c2;
    read_or_die(mb_shared_path("bvh/cmu_09_02_run.bvh"), 0, &s1, &c1);
    mb_error err;
    cr_assert_eq(mb_bvh_write_file(path, s1, c1, NULL, &err), MB_OK, "%s", err.text);
    /* Same bytes as the memory version. */
    size_t flen, mlen;
    char *ftext = mb_test_slurp(path, &flen);
    cr_assert_not_null(ftext);
    char *mtext = write_or_die(s1, c1, NULL, &mlen, "memory");
    cr_assert(flen == mlen && memcmp(ftext, mtext, flen) == 0, "file and memory texts differ");
    read_or_die(path, 0, &s2, &c2);
    compare_channels_same("file", s1, s2);
    worst w = {0, 0, 0};
    compare_motion("file", s1, c1, s2, c2, default_tols, &w);
    /* A new file gets ordinary permissions (0666 & ~umask), not mkstemp's 0600. */
    mode_t um = umask(022);
    umask(um);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0666 & ~um, "mode %o", (unsigned)(st.st_mode & 0777));
    const char *expected[] = {"out.bvh", NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    /* Overwriting replaces the content and keeps the old file's permission bits. */
    cr_assert_eq(chmod(path, 0640), 0);
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.precision = 5;
    cr_assert_eq(mb_bvh_write_file(path, s1, c1, &d, &err), MB_OK, "%s", err.text);
    free(ftext);
    ftext = mb_test_slurp(path, &flen);
    cr_assert(flen < mlen, "the shorter precision-5 text should have replaced the file");
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0777, 0640, "mode %o", (unsigned)(st.st_mode & 0777));
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    free(ftext);
    free(mtext);
    mb_skeleton_destroy(s1);
    mb_skeleton_destroy(s2);
    mb_clip_destroy(c1);
    mb_clip_destroy(c2);
    cleanup_dir(dir);
}

Test(bvh_write_file, missing_directory_fails_and_creates_nothing)
{
    char dir[64], path[160], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/no_such_dir/out.bvh", dir);
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/derived/tiny_arm_handcheck.bvh"), 0, &s, &c);
    mb_error err;
    cr_assert_eq(mb_bvh_write_file(path, s, c, NULL, &err), MB_IO);
    cr_assert_eq(err.code, MB_IO);
    char want[200];
    snprintf(want, sizeof want, "cannot write '%s': ", path);
    cr_assert(strncmp(err.text, want, strlen(want)) == 0, "message: %s", err.text);
    cr_assert_not_null(strstr(err.text, "No such file or directory"), "message: %s", err.text);
    cr_assert_str_eq(err.source, path);
    const char *expected[] = {NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "created: %s", stray);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    cleanup_dir(dir);
}

Test(bvh_write_file, invalid_arguments_leave_old_file_intact)
{
    char dir[64], path[128], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/keep.bvh", dir);
    const char *old = "old content, not a BVH\n";
    write_text(path, old);
    mb_skeleton *s, *big;
    mb_clip *c, *bigc;
    read_or_die(mb_shared_path("bvh/derived/tiny_arm_handcheck.bvh"), 0, &s, &c);
    read_or_die(mb_shared_path("bvh/cmu_02_03_run.bvh"), 0, &big, &bigc);
    mb_error err;
    cr_assert_eq(mb_bvh_write_file(path, big, c, NULL, &err), MB_MISMATCH);
    cr_assert_eq(mb_bvh_write_file(path, NULL, c, NULL, &err), MB_INVALID_ARG);
    cr_assert_eq(mb_bvh_write_file(path, s, NULL, NULL, &err), MB_INVALID_ARG);
    cr_assert_eq(mb_bvh_write_file(NULL, s, c, NULL, &err), MB_INVALID_ARG);
    cr_assert_eq(mb_bvh_write_file("", s, c, NULL, &err), MB_INVALID_ARG);
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.precision = 40;
    cr_assert_eq(mb_bvh_write_file(path, s, c, &d, &err), MB_INVALID_ARG);
    char *now = mb_test_slurp(path, NULL);
    cr_assert_str_eq(now, old);
    free(now);
    const char *expected[] = {"keep.bvh", NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    mb_skeleton_destroy(s);
    mb_skeleton_destroy(big);
    mb_clip_destroy(c);
    mb_clip_destroy(bigc);
    cleanup_dir(dir);
}

/* A write that fails half-way (the file size limit cuts it off) leaves the old file as it
 * was and removes its temporary file. */
Test(bvh_write_file, failed_write_keeps_old_file)
{
    char dir[64], path[128], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/keep.bvh", dir);
    const char *old = "old content\n";
    write_text(path, old);
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/cmu_02_03_run.bvh"), 0, &s, &c);
    /* Criterion runs each test in its own process, so the limit dies with it. */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
    struct rlimit small = {4096, rl.rlim_max};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    mb_error err;
    mb_status st = mb_bvh_write_file(path, s, c, NULL, &err);
    setrlimit(RLIMIT_FSIZE, &rl);
    cr_assert_eq(st, MB_IO, "status %s", mb_status_str(st));
    cr_assert_not_null(strstr(err.text, "cannot write '"), "message: %s", err.text);
    cr_assert_not_null(strstr(err.text, "File too large"), "message: %s", err.text);
    char *now = mb_test_slurp(path, NULL);
    cr_assert_str_eq(now, old);
    free(now);
    const char *expected[] = {"keep.bvh", NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    cleanup_dir(dir);
}

/* The rename itself failing (the target is a directory) also cleans up. */
Test(bvh_write_file, failed_rename_cleans_up)
{
    char dir[64], path[128], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/target", dir);
    cr_assert_eq(mkdir(path, 0755), 0);
    char inner[160];
    snprintf(inner, sizeof inner, "%s/inside.txt", path);
    write_text(inner, "x");
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/derived/tiny_arm_handcheck.bvh"), 0, &s, &c);
    mb_error err;
    cr_assert_eq(mb_bvh_write_file(path, s, c, NULL, &err), MB_IO);
    cr_assert_not_null(strstr(err.text, "cannot write '"), "message: %s", err.text);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_assert(S_ISDIR(st.st_mode), "the directory was replaced");
    char *now = mb_test_slurp(inner, NULL);
    cr_assert_str_eq(now, "x");
    free(now);
    const char *expected[] = {"target", NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    cleanup_dir(dir);
}

/* A symbolic link stays a link: its target gets the new text (renaming over the link would
 * have replaced it with a regular file). */
Test(bvh_write_file, symbolic_link_kept_target_replaced)
{
    char dir[64], path[128], target[128], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(target, sizeof target, "%s/target.bvh", dir);
    snprintf(path, sizeof path, "%s/link.bvh", dir);
    write_text(target, "old\n");
    cr_assert_eq(symlink("target.bvh", path), 0); /* relative to the link's directory */
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/derived/tiny_arm_handcheck.bvh"), 0, &s, &c);
    mb_error err;
    cr_assert_eq(mb_bvh_write_file(path, s, c, NULL, &err), MB_OK, "%s", err.text);
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    size_t mlen, flen;
    char *mtext = write_or_die(s, c, NULL, &mlen, "memory");
    char *ftext = mb_test_slurp(target, &flen);
    cr_assert(flen == mlen && memcmp(ftext, mtext, flen) == 0, "the target has other text");
    const char *expected[] = {"link.bvh", "target.bvh", NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    free(ftext);
    free(mtext);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    cleanup_dir(dir);
}

/* A FIFO (as a device such as /dev/null) is written in place and stays what it is. */
Test(bvh_write_file, fifo_written_in_place)
{
    char dir[64], path[128], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/pipe.bvh", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    /* a reader (read-write open does not wait for a writer); the text fits the pipe */
    int fd = open(path, O_RDWR | O_NONBLOCK);
    cr_assert_geq(fd, 0);
    mb_skeleton *s;
    mb_clip *c;
    read_or_die(mb_shared_path("bvh/derived/tiny_arm_handcheck.bvh"), 0, &s, &c);
    mb_error err;
    cr_assert_eq(mb_bvh_write_file(path, s, c, NULL, &err), MB_OK, "%s", err.text);
    size_t mlen;
    char *mtext = write_or_die(s, c, NULL, &mlen, "memory");
    cr_assert_lt(mlen, 60000);
    char *got = malloc(mlen + 1);
    cr_assert_not_null(got);
    ssize_t n = read(fd, got, mlen + 1);
    close(fd);
    cr_assert(n == (ssize_t)mlen && memcmp(got, mtext, mlen) == 0, "read %zd of %zu bytes", n,
              mlen);
    struct stat st;
    cr_assert_eq(lstat(path, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "the FIFO was replaced");
    const char *expected[] = {"pipe.bvh", NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    free(got);
    free(mtext);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    cleanup_dir(dir);
}

/* The streamed form: nothing appears before commit, discard leaves the old file, commit puts
 * the text in place. */
Test(bvh_write_file, stream_commit_and_discard)
{
    char dir[64], path[128], stray[256];
    make_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/report.csv", dir);
    write_text(path, "old\n");
    mb_file_stream fs;
    mb_error err;
    cr_assert_eq(mb_file_stream_open(&fs, path, &err), MB_OK, "%s", err.text);
    fputs("a,b\n1,2\n", fs.f);
    fflush(fs.f);
    char *now = mb_test_slurp(path, NULL);
    cr_assert_str_eq(now, "old\n");
    free(now);
    mb_file_stream_discard(&fs);
    mb_file_stream_discard(&fs); /* twice: still nothing to do */
    now = mb_test_slurp(path, NULL);
    cr_assert_str_eq(now, "old\n");
    free(now);
    const char *expected[] = {"report.csv", NULL};
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    cr_assert_eq(mb_file_stream_open(&fs, path, &err), MB_OK, "%s", err.text);
    fputs("a,b\n1,2\n", fs.f);
    cr_assert_eq(mb_file_stream_commit(&fs, &err), MB_OK, "%s", err.text);
    mb_file_stream_discard(&fs); /* after commit: nothing to do */
    now = mb_test_slurp(path, NULL);
    cr_assert_str_eq(now, "a,b\n1,2\n");
    free(now);
    cr_assert_eq(stray_entries(dir, expected, stray, sizeof stray), 0, "left behind: %s", stray);
    cr_assert_eq(mb_file_stream_open(&fs, dir, &err), MB_IO); /* a directory */
    mb_file_stream_discard(&fs);
    cr_assert_eq(mb_file_stream_open(&fs, "", &err), MB_INVALID_ARG);
    /* a FIFO gets the output at commit only: a discarded stream sends nothing (a failed
     * command's report once reached the reader whole) */
    char fifo[160];
    snprintf(fifo, sizeof fifo, "%s/pipe", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    int fd = open(fifo, O_RDWR | O_NONBLOCK);
    cr_assert_geq(fd, 0);
    cr_assert_eq(mb_file_stream_open(&fs, fifo, &err), MB_OK, "%s", err.text);
    fputs("partial\n", fs.f);
    mb_file_stream_discard(&fs);
    char got[64];
    cr_assert_eq(read(fd, got, sizeof got), -1, "a discarded stream wrote to the FIFO");
    cr_assert_eq(mb_file_stream_open(&fs, fifo, &err), MB_OK, "%s", err.text);
    fputs("whole\n", fs.f);
    cr_assert_eq(mb_file_stream_commit(&fs, &err), MB_OK, "%s", err.text);
    cr_assert_eq(read(fd, got, sizeof got), 6);
    cr_assert(memcmp(got, "whole\n", 6) == 0);
    /* /proc/self/fd/N names the pipe through a link readlink cannot follow (pipe:[N]) */
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    cr_assert_eq(mb_file_write_atomic(self, "via proc\n", 9, &err), MB_OK, "%s", err.text);
    cr_assert_eq(read(fd, got, sizeof got), 9);
    close(fd);
    cleanup_dir(dir);
}

/* ---------- several ROOTs ---------- */

/* A multi-ROOT file comes back as the same ROOT blocks (the group node the reader adds is
 * not written), with the same motion, and writing what was read back gives the same text. */
Test(bvh_write, several_roots_round_trip)
{
    const char *src = "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n"
                      "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
                      "\tJOINT Spine\n\t{\n\t\tOFFSET 0 5 0\n\t\tCHANNELS 3 Zrotation Yrotation "
                      "Xrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 3 0\n\t\t}\n\t}\n}\n"
                      "ROOT Prop\n{\n\tOFFSET 10 0 0\n\tCHANNELS 6 Xposition Yposition "
                      "Zposition Xrotation Yrotation Zrotation\n\tEnd Site\n\t{\n\t\tOFFSET 0 0 "
                      "2\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.0333333\n"
                      "0 90 0 0 0 0 10 0 0 1 2 3 0 90 0\n0.5 90 0 5 0 0 12 0 0 1 2 3 0 0 90\n";
    mb_skeleton *s1, *s2, *s3;
    mb_clip *c1, *c2, *c3;
    read_text_or_die(src, strlen(src), "source", &s1, &c1);
    size_t n1, n2;
    char *t1 = write_or_die(s1, c1, NULL, &n1, "multi-root");
    /* the hierarchy part is the source's, tabs and all */
    const char *motion = strstr(src, "MOTION");
    cr_assert_eq(strncmp(t1, src, (size_t)(motion - src)), 0, "hierarchy differs:\n%s", t1);
    cr_expect_null(strstr(t1, "ROOTS"), "the group node was written:\n%s", t1);
    /* round values in plain notation ("90", not "9e+01": not every reader takes exponents) */
    cr_expect_null(strstr(t1, "e+"), "%s", t1);
    cr_expect_not_null(strstr(t1, "\n0 90 0 0 0 0 "), "%s", t1);
    read_text_or_die(t1, n1, "multi-root", &s2, &c2);
    cr_assert(mb_skeleton_same_topology(s1, s2, NULL));
    cr_expect(mb_skeleton_is_roots_group(s2, 0));
    worst w = {0};
    compare_motion("multi-root", s1, c1, s2, c2, default_tols, &w);
    char *t2 = write_or_die(s2, c2, NULL, &n2, "multi-root again");
    cr_expect_str_eq(t2, t1);
    /* a group whose only child is an End Site has no ROOT to write */
    mb_joint_desc jd[2] = {{"ROOTS", -1, {0, 0, 0}, 0, 0, {0}, 1},
                           {"ROOTS_End", 0, {0, 1, 0}, 1, 0, {0}, 0}};
    mb_skeleton_desc sd = {jd, 2, {0}};
    cr_assert_eq(mb_skeleton_create(&sd, &s3, NULL), MB_OK);
    cr_assert_eq(mb_clip_alloc(2, 0, 0.1, NULL, 0, NULL, &c3, NULL), MB_OK);
    char *t3 = NULL;
    size_t n3 = 0;
    mb_error err;
    cr_expect_eq(mb_bvh_write_mem(s3, c3, NULL, &t3, &n3, &err), MB_INVALID_ARG);
    cr_expect_null(t3);
    /* the group is node 0 only, without channels or offset */
    jd[1] = (mb_joint_desc){"B", 0, {0, 0, 0}, 0, 0, {0}, 1};
    mb_skeleton *bad = NULL;
    mb_error se;
    cr_expect_eq(mb_skeleton_create(&sd, &bad, &se), MB_INVALID_ARG);
    cr_expect(strstr(se.text, "joint 1 'B': a roots group must be joint 0"), "%s", se.text);
    jd[1].roots_group = 0;
    jd[0].offset[1] = 1.0f;
    cr_expect_eq(mb_skeleton_create(&sd, &bad, &se), MB_INVALID_ARG);
    cr_expect(strstr(se.text, "roots group"), "%s", se.text);
    cr_expect_null(bad);
    free(t1);
    free(t2);
    mb_skeleton_destroy(s1);
    mb_skeleton_destroy(s2);
    mb_skeleton_destroy(s3);
    mb_clip_destroy(c1);
    mb_clip_destroy(c2);
    mb_clip_destroy(c3);
}

/* Numbers in plain notation where %g would use an exponent and the plain form is at most
 * two characters longer; the same decimal value either way (offsets are written as read). */
Test(bvh_write, plain_notation_for_round_and_small_values)
{
    const char *src = "HIERARCHY\nROOT A\n{\nOFFSET 90 1500 1e-5\nCHANNELS 1 Zrotation\n"
                      "JOINT B\n{\nOFFSET -4.5e-05 0.00015 3e14\nCHANNELS 1 Zrotation\n"
                      "End Site\n{\nOFFSET 1e-30 1e7 0.1\n}\n}\n}\nMOTION\nFrames: 1\n"
                      "Frame Time: 0.5\n0 0\n";
    mb_skeleton *s;
    mb_clip *c;
    read_text_or_die(src, strlen(src), "source", &s, &c);
    char *t = write_or_die(s, c, NULL, NULL, "plain");
    cr_expect_not_null(strstr(t, "OFFSET 90 1500 0.00001\n"), "%s", t);
    cr_expect_not_null(strstr(t, "OFFSET -0.000045 0.00015 3e+14\n"), "%s", t);
    cr_expect_not_null(strstr(t, "OFFSET 1e-30 1e+07 0.1\n"), "%s", t);
    free(t);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}
