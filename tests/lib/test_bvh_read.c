/* BVH reader: every real file in ../shared/data/bvh loads with the counts SOURCES.md gives,
 * twins parse to identical tracks, the header defects behave as documented, syntax
 * variants parse, Bandai position channels replace offsets, and every allocation goes
 * through the caller's allocator. */
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "offline/io/bvh_read_internal.h"
#include "offline/io/number_internal.h"
#include "mblend/offline/bvh.h"
#include "test_util.h"

/* ---------- helpers ---------- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s", path);
    cr_assert(fseek(f, 0, SEEK_END) == 0);
    long n = ftell(f);
    cr_assert(n >= 0);
    cr_assert(fseek(f, 0, SEEK_SET) == 0);
    char *buf = malloc((size_t)n + 1);
    cr_assert(buf != NULL);
    cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n, "short read of %s", path);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Path of bvh/<rel> in the shared folder (fails loudly when the folder is absent). */
static const char *bvh_path(const char *rel, char *buf, size_t n)
{
    char r[512];
    snprintf(r, sizeof r, "bvh/%s", rel);
    snprintf(buf, n, "%s", mb_shared_path(r));
    return buf;
}

static void load_rel(const char *rel, int lenient, mb_error *warning, mb_skeleton **s,
                     mb_clip **c)
{
    char path[4096];
    bvh_path(rel, path, sizeof path);
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = lenient;
    d.warning = warning;
    mb_error err;
    mb_status st = mb_bvh_read_file(path, &d, s, c, &err);
    char msg[600];
    cr_assert_eq(st, MB_OK, "%s: %s", rel, mb_error_format(&err, msg, sizeof msg));
    cr_assert(*s != NULL && *c != NULL);
}

static mb_status load_text(const char *text, int lenient, mb_skeleton **s, mb_clip **c,
                           mb_error *err)
{
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = lenient;
    return mb_bvh_read_mem(text, strlen(text), "mem.bvh", &d, s, c, err);
}

static void load_text_ok(const char *text, mb_skeleton **s, mb_clip **c)
{
    mb_error err;
    mb_status st = load_text(text, 0, s, c, &err);
    char msg[600];
    cr_assert_eq(st, MB_OK, "%s", mb_error_format(&err, msg, sizeof msg));
}

static int end_site_count(const mb_skeleton *s)
{
    int n = 0;
    for (int j = 0; j < mb_skeleton_joint_count(s); ++j)
        n += mb_skeleton_is_end_site(s, j) != 0;
    return n;
}

/* Index of channel 0 of joint j in a motion row. */
static int channel_start(const mb_skeleton *s, int joint)
{
    int k = 0;
    for (int j = 0; j < joint; ++j)
        k += mb_skeleton_channels(s, j, NULL);
    return k;
}

/* Unit quaternions (1e-6), End Sites identity, consecutive frames with dot >= 0. */
static void check_tracks(const char *name, const mb_skeleton *s, const mb_clip *c)
{
    int nj = mb_clip_joint_count(c), nf = mb_clip_frame_count(c);
    const float *r = mb_clip_rotations(c);
    int bad_unit = 0, bad_sign = 0, bad_end = 0;
    for (int f = 0; f < nf; ++f)
        for (int j = 0; j < nj; ++j) {
            const float *q = r + 4 * ((size_t)f * (size_t)nj + (size_t)j);
            double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                            (double)q[3] * q[3]);
            if (fabs(n - 1.0) > 1e-6)
                bad_unit++;
            if (f > 0) {
                const float *p = q - 4 * nj;
                double dot = (double)q[0] * p[0] + (double)q[1] * p[1] + (double)q[2] * p[2] +
                             (double)q[3] * p[3];
                if (dot < 0.0)
                    bad_sign++;
            }
            if (mb_skeleton_is_end_site(s, j) &&
                !(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 1.0f))
                bad_end++;
        }
    cr_expect_eq(bad_unit, 0, "%s: %d rotations not unit length within 1e-6", name, bad_unit);
    cr_expect_eq(bad_sign, 0, "%s: %d sign flips between consecutive frames", name, bad_sign);
    cr_expect_eq(bad_end, 0, "%s: %d End Site rotations not identity", name, bad_end);
    const float *t = mb_clip_translations(c);
    int bad_t = 0, nt = mb_clip_translation_count(c);
    for (size_t i = 0; t && i < 3u * (size_t)nf * (size_t)nt; ++i)
        bad_t += !isfinite(t[i]);
    cr_expect_eq(bad_t, 0, "%s: %d non-finite translations", name, bad_t);
    /* Exactly the joints with position channels are tracked, in ascending order. */
    int snt;
    const int *sj = mb_skeleton_translation_joints(s, &snt);
    cr_expect_eq(nt, snt, "%s: %d tracked joints, %d with position channels", name, nt, snt);
    for (int k = 0; k < nt && k < snt; ++k)
        cr_expect_eq(mb_clip_translation_joints(c)[k], sj[k], "%s: tracked joint %d", name, k);
}

/* Same skeleton (names, parents, offsets, channels) and bit-identical tracks. */
static void expect_identical(const char *a_name, const mb_skeleton *sa, const mb_clip *ca,
                             const char *b_name, const mb_skeleton *sb, const mb_clip *cb,
                             int frames)
{
    int first = 0;
    cr_assert(mb_skeleton_same_topology(sa, sb, &first), "%s vs %s: topology differs at %d",
              a_name, b_name, first);
    int nj = mb_skeleton_joint_count(sa);
    for (int j = 0; j < nj; ++j) {
        cr_expect(memcmp(mb_skeleton_offset(sa, j), mb_skeleton_offset(sb, j),
                         3 * sizeof(float)) == 0,
                  "%s vs %s: offset of %s differs", a_name, b_name, mb_skeleton_name(sa, j));
        const mb_channel *cha, *chb;
        int na = mb_skeleton_channels(sa, j, &cha), nb = mb_skeleton_channels(sb, j, &chb);
        cr_expect(na == nb && memcmp(cha, chb, (size_t)na * sizeof *cha) == 0,
                  "%s vs %s: channels of %s differ", a_name, b_name, mb_skeleton_name(sa, j));
    }
    cr_assert_geq(mb_clip_frame_count(ca), frames);
    cr_assert_geq(mb_clip_frame_count(cb), frames);
    cr_expect_eq(mb_clip_frame_time(ca), mb_clip_frame_time(cb));
    size_t nr = (size_t)frames * (size_t)nj;
    cr_expect(memcmp(mb_clip_rotations(ca), mb_clip_rotations(cb), 4 * nr * sizeof(float)) == 0,
              "%s vs %s: rotations differ", a_name, b_name);
    const float *ta = mb_clip_translations(ca), *tb = mb_clip_translations(cb);
    int nt = mb_clip_translation_count(ca);
    cr_expect((ta == NULL) == (tb == NULL));
    cr_assert_eq(nt, mb_clip_translation_count(cb), "%s vs %s: tracked joint counts differ",
                 a_name, b_name);
    if (nt > 0)
        cr_expect(memcmp(mb_clip_translation_joints(ca), mb_clip_translation_joints(cb),
                         (size_t)nt * sizeof(int)) == 0,
                  "%s vs %s: tracked joints differ", a_name, b_name);
    if (ta && tb)
        cr_expect(memcmp(ta, tb, 3 * (size_t)frames * (size_t)nt * sizeof(float)) == 0,
                  "%s vs %s: translations differ", a_name, b_name);
}

/* ---------- every real file, with the counts of SOURCES.md ---------- */

typedef struct expected_file {
    const char *rel;        /* under bvh/ */
    int joints;             /* ROOT + JOINT */
    int end_sites;
    int channels;
    int frames;             /* -1: fails strictly (frames_header_*) */
    const char *frame_time; /* as written in the file */
    const char *orders;     /* Euler orders used by joints with rotation channels */
} expected_file;

static const expected_file files[] = {
    {"animdraw_fair1_dab_zup.bvh", 27, 7, 84, 339, "0.0333333", "XYZ,YXZ"},
    {"bandai1_run_normal_001_sci.bvh", 22, 5, 132, 24, "0.0333333", "ZXY"},
    {"bandai2_run_normal_001.bvh", 22, 5, 132, 68, "0.0333333", "ZXY"},
    {"bandai2_run_normal_002.bvh", 22, 5, 132, 70, "0.0333333", "ZXY"},
    {"bandai2_walk_normal_001.bvh", 22, 5, 132, 273, "0.0333333", "ZXY"},
    {"bandai2_walk_normal_002.bvh", 22, 5, 132, 265, "0.0333333", "ZXY"},
    {"cmu_02_01_walk.bvh", 31, 7, 96, 344, ".0083333", "ZYX"},
    {"cmu_02_02_walk.bvh", 31, 7, 96, 299, ".0083333", "ZYX"},
    {"cmu_02_03_run.bvh", 31, 7, 96, 174, ".0083333", "ZYX"},
    {"cmu_08_01_walk.bvh", 31, 7, 96, 278, ".0083333", "ZYX"},
    {"cmu_09_01_run.bvh", 31, 7, 96, 149, ".0083333", "ZYX"},
    {"cmu_09_02_run.bvh", 31, 7, 96, 131, ".0083333", "ZYX"},
    {"cmu_09_12_walk_navigate_long.bvh", 31, 7, 96, 1919, ".0083333", "ZYX"},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 31, 7, 96, 994, ".0083333", "ZXY,ZYX"},
    {"cmu_like_rest_1frame.bvh", 31, 7, 96, 1, "0.041667", "ZYX"},
    {"crlf_cmu_08_01_walk.bvh", 31, 7, 96, 278, ".0083333", "ZYX"},
    {"fairmotion_sinusoidal_xyz_noendsite.bvh", 4, 0, 15, 120, "0.016666666666666666", "XYZ"},
    {"pymo_walk_rootoffset_xyz.bvh", 23, 7, 72, 1064, "0.008333", "XYZ"},
    {"derived/bom_crlf_bandai1_run.bvh", 22, 5, 132, 24, "0.0333333", "ZXY"},
    {"derived/frames_header_173_data_174_cmu_02_03.bvh", 31, 7, 96, -1, ".0083333", "ZYX"},
    {"derived/frames_header_174_data_100_cmu_02_03.bvh", 31, 7, 96, -1, ".0083333", "ZYX"},
    {"derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh", 31, 7, 96, 40, "0.0083333",
     "XYZ,XZY,YXZ,YZX,ZXY,ZYX"},
    {"derived/order_XYZ_cmu_02_03_first40.bvh", 31, 7, 96, 40, "0.0083333", "XYZ"},
    {"derived/order_XZY_cmu_02_03_first40.bvh", 31, 7, 96, 40, "0.0083333", "XZY"},
    {"derived/order_YXZ_cmu_02_03_first40.bvh", 31, 7, 96, 40, "0.0083333", "YXZ"},
    {"derived/order_YZX_cmu_02_03_first40.bvh", 31, 7, 96, 40, "0.0083333", "YZX"},
    {"derived/order_ZXY_cmu_02_03_first40.bvh", 31, 7, 96, 40, "0.0083333", "ZXY"},
    {"derived/order_ZYX_cmu_02_03_first40.bvh", 31, 7, 96, 40, "0.0083333", "ZYX"},
    {"derived/tiny_arm_handcheck.bvh", 3, 1, 12, 3, "0.5", "ZXY"},
    {"derived/wrapped_values_bandai1_run.bvh", 22, 5, 132, 24, "0.0333333", "ZXY"},
    {"derived/zero_frames_cmu02.bvh", 31, 7, 96, 0, ".0083333", "ZYX"},
};
#define FILE_COUNT ((int)(sizeof files / sizeof files[0]))

static const expected_file *find_expected(const char *rel)
{
    for (int i = 0; i < FILE_COUNT; ++i)
        if (strcmp(files[i].rel, rel) == 0)
            return &files[i];
    return NULL;
}

static void check_counts(const expected_file *e, const mb_skeleton *s, const mb_clip *c,
                         int frames)
{
    int es = end_site_count(s);
    cr_expect_eq(mb_skeleton_joint_count(s) - es, e->joints, "%s: %d joints, expected %d",
                 e->rel, mb_skeleton_joint_count(s) - es, e->joints);
    cr_expect_eq(es, e->end_sites, "%s: %d End Sites, expected %d", e->rel, es, e->end_sites);
    cr_expect_eq(mb_skeleton_channel_count(s), e->channels, "%s: %d channels, expected %d",
                 e->rel, mb_skeleton_channel_count(s), e->channels);
    cr_expect_eq(mb_clip_frame_count(c), frames, "%s: %d frames, expected %d", e->rel,
                 mb_clip_frame_count(c), frames);
    cr_expect_eq(mb_clip_joint_count(c), mb_skeleton_joint_count(s));
    double ft = strtod(e->frame_time, NULL);
    cr_expect_eq(mb_clip_frame_time(c), ft, "%s: frame time %.17g, expected %s", e->rel,
                 mb_clip_frame_time(c), e->frame_time);
    /* Euler orders: every joint with rotations uses a listed order; each listed one occurs. */
    int used[6] = {0};
    for (int j = 0; j < mb_skeleton_joint_count(s); ++j) {
        const mb_channel *ch;
        int n = mb_skeleton_channels(s, j, &ch), rot = 0;
        for (int k = 0; k < n; ++k)
            rot += ch[k] >= MB_CH_XROT;
        if (rot == 0)
            continue;
        mb_euler_order o = mb_skeleton_rot_order(s, j);
        const char *on = mb_euler_order_name(o);
        cr_expect(strstr(e->orders, on) != NULL, "%s: joint %s uses %s, expected one of %s",
                  e->rel, mb_skeleton_name(s, j), on, e->orders);
        used[o] = 1;
    }
    for (int o = 0; o < 6; ++o)
        if (strstr(e->orders, mb_euler_order_name((mb_euler_order)o)))
            cr_expect(used[o], "%s: no joint uses %s", e->rel,
                      mb_euler_order_name((mb_euler_order)o));
}

/* Lists *.bvh in bvh/<sub> (sub "" or "derived/") as "<sub><name>". */
static int list_bvh(const char *sub, char names[][128], int max)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/bvh/%s", MB_SHARED_DIR, sub);
    DIR *dp = opendir(dir);
    cr_assert(dp != NULL, "shared data folder missing: %s (the real-data tests need it)", dir);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".bvh") != 0)
            continue;
        cr_assert(n < max);
        int w = snprintf(names[n++], 128, "%s%s", sub, de->d_name);
        cr_assert(w < 128, "file name too long for the test: %s%s", sub, de->d_name);
    }
    closedir(dp);
    return n;
}

Test(bvh_read, every_shared_file_loads_with_documented_counts)
{
    static char names[128][128];
    int n = list_bvh("", names, 128);
    n += list_bvh("derived/", names + n, 128 - n);
    int loaded = 0, seen[FILE_COUNT] = {0};
    for (int i = 0; i < n; ++i) {
        const expected_file *e = find_expected(names[i]);
        cr_expect(e != NULL, "%s is not in the table of SOURCES.md counts; add it", names[i]);
        if (!e)
            continue;
        seen[e - files] = 1;
        if (e->frames < 0)
            continue; /* frames_header_*: their own test */
        mb_skeleton *s = NULL;
        mb_clip *c = NULL;
        mb_error warning;
        load_rel(names[i], 0, &warning, &s, &c);
        cr_expect_eq(warning.code, MB_OK, "%s: unexpected warning %s", names[i], warning.text);
        check_counts(e, s, c, e->frames);
        check_tracks(names[i], s, c);
        mb_skeleton_destroy(s);
        mb_clip_destroy(c);
        loaded++;
    }
    for (int i = 0; i < FILE_COUNT; ++i)
        cr_expect(seen[i], "%s listed in the table but not found in the shared folder",
                  files[i].rel);
    cr_expect_eq(loaded, FILE_COUNT - 2, "loaded %d files", loaded);
}

/* ---------- Frames header defects ---------- */

/* 1-based line number of the line holding "Frame Time". */
static int frame_time_line(const char *text)
{
    const char *p = strstr(text, "Frame Time");
    cr_assert(p != NULL);
    int line = 1;
    for (const char *q = text; q < p; ++q)
        line += *q == '\n';
    return line;
}

/* Pointer to the start of 1-based line `line` and its length without the line break. */
static const char *line_at(const char *text, int line, size_t *len)
{
    const char *p = text;
    for (int l = 1; l < line; ++l) {
        p = strchr(p, '\n');
        cr_assert(p != NULL);
        ++p;
    }
    const char *e = strchr(p, '\n');
    *len = e ? (size_t)(e - p) : strlen(p);
    if (*len > 0 && p[*len - 1] == '\r')
        --*len;
    return p;
}

static void check_frames_header(const char *rel, int declared, int present, int want_line,
                                int want_col, const char *want_text)
{
    char path[4096];
    bvh_path(rel, path, sizeof path);
    size_t len;
    char *text = read_all(path, &len);
    mb_skeleton *s = (mb_skeleton *)(uintptr_t)1;
    mb_clip *c = (mb_clip *)(uintptr_t)1;
    mb_error err;
    mb_status st = mb_bvh_read_mem(text, len, rel, NULL, &s, &c, &err);
    cr_expect_eq(st, MB_PARSE, "%s: strict read returned %s", rel, mb_status_str(st));
    cr_expect(s == NULL && c == NULL);
    cr_expect_eq(err.line, want_line, "%s: line %d, expected %d (%s)", rel, err.line, want_line,
                 err.text);
    cr_expect_eq(err.column, want_col, "%s: column %d, expected %d", rel, err.column, want_col);
    cr_expect_str_eq(err.text, want_text);

    /* Lenient: loads the frames present (up to the declared count) with a warning. */
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = 1;
    mb_error warning;
    d.warning = &warning;
    st = mb_bvh_read_mem(text, len, rel, &d, &s, &c, &err);
    cr_assert_eq(st, MB_OK, "%s lenient: %s", rel, err.text);
    cr_expect_eq(mb_clip_frame_count(c), present < declared ? present : declared);
    cr_expect_eq(warning.code, MB_MISMATCH, "%s: warning code %d", rel, (int)warning.code);
    cr_expect_eq(warning.line, want_line);
    cr_expect_eq(warning.column, want_col);
    cr_expect_str_eq(warning.source, rel);
    cr_expect(warning.text[0] != '\0');
    check_tracks(rel, s, c);

    /* The frames read are the source's first frames, bit for bit. */
    mb_skeleton *s0;
    mb_clip *c0;
    load_rel("cmu_02_03_run.bvh", 0, NULL, &s0, &c0);
    expect_identical(rel, s, c, "cmu_02_03_run.bvh", s0, c0, mb_clip_frame_count(c));
    mb_skeleton_destroy(s0);
    mb_clip_destroy(c0);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    free(text);
}

Test(bvh_read, frames_header_173_data_174)
{
    char path[4096];
    size_t len;
    char *text = read_all(bvh_path("derived/frames_header_173_data_174_cmu_02_03.bvh", path,
                                   sizeof path),
                          &len);
    int ft = frame_time_line(text);
    free(text);
    /* The extra 174th data line starts right after 173 frames. */
    char want[256];
    snprintf(want, sizeof want,
             "data continues after the 173 frames declared by the Frames line (line %d); fix "
             "the count or load leniently",
             ft - 1);
    check_frames_header("derived/frames_header_173_data_174_cmu_02_03.bvh", 173, 174,
                        ft + 174, 1, want);
}

Test(bvh_read, frames_header_174_data_100)
{
    char path[4096];
    size_t len;
    char *text = read_all(bvh_path("derived/frames_header_174_data_100_cmu_02_03.bvh", path,
                                   sizeof path),
                          &len);
    int ft = frame_time_line(text);
    size_t last_len;
    line_at(text, ft + 100, &last_len); /* the last data line: the file ends after it */
    free(text);
    char want[256];
    snprintf(want, sizeof want, "file ends after 100 frames, but the Frames line (line %d) says 174",
             ft - 1);
    check_frames_header("derived/frames_header_174_data_100_cmu_02_03.bvh", 174, 100, ft + 100,
                        (int)last_len + 1, want);
}

/* ---------- twins: same data in different clothes ---------- */

Test(bvh_read, crlf_twin_is_bit_identical)
{
    mb_skeleton *sa, *sb;
    mb_clip *ca, *cb;
    load_rel("cmu_08_01_walk.bvh", 0, NULL, &sa, &ca);
    load_rel("crlf_cmu_08_01_walk.bvh", 0, NULL, &sb, &cb);
    cr_assert_eq(mb_clip_frame_count(ca), mb_clip_frame_count(cb));
    expect_identical("cmu_08_01_walk", sa, ca, "crlf_cmu_08_01_walk", sb, cb,
                     mb_clip_frame_count(ca));
    mb_skeleton_destroy(sa);
    mb_skeleton_destroy(sb);
    mb_clip_destroy(ca);
    mb_clip_destroy(cb);
}

Test(bvh_read, wrapped_and_bom_crlf_match_source)
{
    mb_skeleton *s0;
    mb_clip *c0;
    load_rel("bandai1_run_normal_001_sci.bvh", 0, NULL, &s0, &c0);
    const char *twins[] = {"derived/wrapped_values_bandai1_run.bvh",
                           "derived/bom_crlf_bandai1_run.bvh"};
    for (int i = 0; i < 2; ++i) {
        mb_skeleton *s;
        mb_clip *c;
        load_rel(twins[i], 0, NULL, &s, &c);
        cr_expect_eq(mb_clip_frame_count(c), mb_clip_frame_count(c0));
        expect_identical("bandai1_run_normal_001_sci", s0, c0, twins[i], s, c,
                         mb_clip_frame_count(c0));
        mb_skeleton_destroy(s);
        mb_clip_destroy(c);
    }
    mb_skeleton_destroy(s0);
    mb_clip_destroy(c0);
}

Test(bvh_read, zero_frames_loads_empty_clip)
{
    mb_skeleton *s;
    mb_clip *c;
    load_rel("derived/zero_frames_cmu02.bvh", 0, NULL, &s, &c);
    cr_expect_eq(mb_clip_frame_count(c), 0);
    cr_expect_eq(mb_clip_duration(c), 0.0);
    cr_expect_eq(mb_skeleton_joint_count(s), 38);
    mb_xform x[38];
    mb_pose p = {x, 38};
    cr_expect_eq(mb_clip_frame_pose(s, c, 0, p), MB_INVALID_ARG);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* ---------- semantics ---------- */

/* Bandai files repeat the offsets in the position channels: the channels replace the
 * OFFSET (assimp's semantics), so a joint's translation equals the channel values. */
Test(bvh_read, bandai_position_channels_replace_offsets)
{
    const char *rel = "bandai2_walk_normal_001.bvh";
    mb_skeleton *s;
    mb_clip *c;
    load_rel(rel, 0, NULL, &s, &c);
    char path[4096];
    size_t len;
    char *text = read_all(bvh_path(rel, path, sizeof path), &len);
    /* Frame 0 values: the tokens after the Frame Time value. */
    char *p = strstr(text, "Frame Time:");
    cr_assert(p);
    p += strlen("Frame Time:");
    strtod(p, &p);
    int nch = mb_skeleton_channel_count(s);
    double *row = malloc((size_t)nch * sizeof *row);
    for (int k = 0; k < nch; ++k) {
        char *e;
        row[k] = strtod(p, &e);
        cr_assert(e != p, "value %d of frame 0 not parsed", k);
        p = e;
    }
    const char *joints[] = {"Hips", "Spine", "Head", "Foot_L"};
    mb_xform x[64];
    int nj = mb_skeleton_joint_count(s);
    cr_assert(nj <= 64);
    cr_assert_eq(mb_clip_frame_pose(s, c, 0, (mb_pose){x, nj}), MB_OK);
    for (int i = 0; i < 4; ++i) {
        int j = mb_skeleton_find(s, joints[i]);
        cr_assert(j >= 0, "joint %s missing", joints[i]);
        const mb_channel *ch;
        int n = mb_skeleton_channels(s, j, &ch);
        cr_assert_eq(n, 6);
        cr_assert(mb_skeleton_has_translation(s, j));
        int k0 = channel_start(s, j);
        const float *off = mb_skeleton_offset(s, j);
        for (int k = 0; k < 3; ++k) {
            cr_assert_eq(ch[k], (mb_channel)(MB_CH_XPOS + k));
            float v = (float)row[k0 + k];
            cr_expect_eq(x[j].pos[k], v, "%s pos[%d] = %.9g, channel value %.9g (offset %.9g)",
                         joints[i], k, x[j].pos[k], v, off[k]);
            int slot = mb_clip_translation_slot(c, j);
            cr_assert(slot >= 0, "%s is not tracked", joints[i]);
            const float *t = mb_clip_translations(c) + 3 * slot;
            cr_expect_eq(t[k], v);
        }
    }
    /* Hips: OFFSET y 93.3139, channel y 93.1488; ADD semantics would give ~186. */
    int hips = mb_skeleton_find(s, "Hips");
    cr_expect(fabsf(x[hips].pos[1] - 93.1488f) < 1e-4f, "Hips y %.6g", x[hips].pos[1]);
    free(row);
    free(text);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* ---------- syntax variants, built in memory ---------- */

/* The stored translation of a tracked joint (the test fails if it is not tracked). */
static const float *pos_of(const mb_clip *c, int frame, int joint)
{
    int k = mb_clip_translation_slot(c, joint);
    cr_assert(k >= 0, "joint %d has no translation track", joint);
    return mb_clip_translations(c) +
           3 * ((size_t)frame * (size_t)mb_clip_translation_count(c) + (size_t)k);
}

Test(bvh_read, keywords_any_case_tabs_and_cr_only)
{
    const char *text = "hierarchy\rRoOt\tHips\r{\r\toffset\t1 2 3\r\tchannels 6 xposition "
                       "YPOSITION Zposition zrotation XROTATION Yrotation\r\tend\tsite\r\t{\r"
                       "\t\tOfFsEt 0 1 0\r\t}\r}\rMotion\rFRAMES:\t2\rframe TIME:\t0.5\r"
                       "1 2 3 90 0 0\r4 5 6 0 0 0\r";
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(text, &s, &c);
    cr_expect_eq(mb_skeleton_joint_count(s), 2);
    cr_expect_str_eq(mb_skeleton_name(s, 0), "Hips");
    cr_expect_str_eq(mb_skeleton_name(s, 1), "Hips_End");
    cr_expect_eq(mb_skeleton_rot_order(s, 0), MB_ORDER_ZXY);
    cr_expect_eq(mb_clip_frame_count(c), 2);
    cr_expect_eq(mb_clip_frame_time(c), 0.5);
    cr_expect_eq(pos_of(c, 1, 0)[2], 6.0f);
    /* Frame 0: 90 degrees about Z: q = (0, 0, sin 45, cos 45). */
    const float *q = mb_clip_rotations(c);
    cr_expect(fabsf(q[2] - 0.70710678f) < 1e-6f && fabsf(q[3] - 0.70710678f) < 1e-6f);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);

    /* CRLF and mixed line endings: the same numbers. Lines are counted per ending. */
    const char *mixed = "HIERARCHY\r\nROOT Hips\n{\r\tOFFSET 0 0 0\r\n\tCHANNELS 1 Xposition\n"
                        "}\r\nMOTION\rFrames: 2\r\nFrame Time: 1\n7\r\nx\n";
    mb_error err;
    cr_expect_eq(load_text(mixed, 0, &s, &c, &err), MB_PARSE);
    cr_expect_eq(err.line, 11, "line %d", err.line);
    cr_expect_eq(err.column, 1);
}

Test(bvh_read, names_glued_to_braces)
{
    const char *text = "HIERARCHY\nROOT Hips{OFFSET 0 0 0 CHANNELS 3 Zrotation Yrotation "
                       "Xrotation\nJOINT Spine{OFFSET 0 2 0 CHANNELS 3 Zrotation Yrotation "
                       "Xrotation\nEnd Site{OFFSET 0 1 0}}}\nMOTION\nFrames: 1\nFrame Time: 0.1\n"
                       "0 0 0 0 0 0\n";
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(text, &s, &c);
    cr_expect_eq(mb_skeleton_joint_count(s), 3);
    cr_expect_str_eq(mb_skeleton_name(s, 0), "Hips");
    cr_expect_str_eq(mb_skeleton_name(s, 1), "Spine");
    cr_expect_str_eq(mb_skeleton_name(s, 2), "Spine_End");
    cr_expect_eq(mb_skeleton_parents(s)[2], 1);
    cr_expect_eq(mb_skeleton_offset(s, 1)[1], 2.0f);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

Test(bvh_read, number_forms)
{
    /* .5, 5., -0, 1e-40 (subnormal), +3, 1E2, 2.5e+1, leading zeros, many digits. */
    const char *text = "HIERARCHY\nROOT Hips\n{\n  OFFSET .5 5. -0\n"
                       "  CHANNELS 3 Xposition Yposition Zposition\n"
                       "  JOINT Spine\n  {\n    OFFSET 1e-40 +3 1E2\n"
                       "    CHANNELS 3 Xposition Yposition Zposition\n"
                       "    End Site\n    {\n      OFFSET 2.5e+1 -.25 007\n    }\n  }\n}\n"
                       "MOTION\nFrames: 1\nFrame Time: .04\n"
                       ".5 5. -0 1e-40 +3 0.333333333333333333333333\n";
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(text, &s, &c);
    const float *o0 = mb_skeleton_offset(s, 0), *o1 = mb_skeleton_offset(s, 1),
                *o2 = mb_skeleton_offset(s, 2);
    cr_expect_eq(o0[0], 0.5f);
    cr_expect_eq(o0[1], 5.0f);
    cr_expect(o0[2] == 0.0f && signbit(o0[2]), "-0 keeps its sign");
    cr_expect_eq(o1[0], strtof("1e-40", NULL));
    cr_expect(o1[0] > 0.0f && o1[0] < 1.2e-38f, "1e-40 is a subnormal float");
    cr_expect_eq(o1[1], 3.0f);
    cr_expect_eq(o1[2], 100.0f);
    cr_expect_eq(o2[0], 25.0f);
    cr_expect_eq(o2[1], -0.25f);
    cr_expect_eq(o2[2], 7.0f);
    cr_expect_eq(mb_clip_frame_time(c), 0.04);
    const float *p0 = pos_of(c, 0, 0), *p1 = pos_of(c, 0, 1);
    cr_expect_eq(p0[0], 0.5f);
    cr_expect_eq(p0[1], 5.0f);
    cr_expect(p0[2] == 0.0f && signbit(p0[2]));
    cr_expect_eq(p1[0], strtof("1e-40", NULL));
    cr_expect_eq(p1[1], 3.0f);
    cr_expect_eq(p1[2], strtof("0.333333333333333333333333", NULL));
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

Test(bvh_read, joint_names_with_spaces_are_kept)
{
    const char *text = "HIERARCHY\nROOT Bip01\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition "
                       "Yposition Zposition Zrotation Xrotation Yrotation\n"
                       "\tJOINT Bip01 L Thigh\n\t{\n\t\tOFFSET 0 -1 0\n"
                       "\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "\t\tJOINT Bip01 L Calf \t\n\t\t{\n\t\t\tOFFSET 0 -4 0\n"
                       "\t\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n\t\t\tEnd Site\n\t\t\t{\n"
                       "\t\t\t\tOFFSET 0 -4 0\n\t\t\t}\n\t\t}\n\t}\n}\nMOTION\nFrames: 1\n"
                       "Frame Time: 0.0333333\n0 0 0 0 0 0 0 0 0 0 0 0\n";
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(text, &s, &c);
    cr_expect_eq(mb_skeleton_find(s, "Bip01 L Thigh"), 1);
    cr_expect_eq(mb_skeleton_find(s, "Bip01 L Calf"), 2, "trailing blanks are trimmed");
    cr_expect_str_eq(mb_skeleton_name(s, 3), "Bip01 L Calf_End");
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

Test(bvh_read, values_wrap_across_lines_and_frames_share_lines)
{
    const char *text = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xposition Zrotation\n"
                       "End Site\n{\nOFFSET 1 0 0\n}\n}\nMOTION\nFrames: 3\nFrame Time: 1\n"
                       "1\n0 2 0\n\n\n   3\t0\n";
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(text, &s, &c);
    cr_expect_eq(mb_clip_frame_count(c), 3);
    for (int f = 0; f < 3; ++f)
        cr_expect_eq(pos_of(c, f, 0)[0], (float)(f + 1));
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

Test(bvh_read, lenient_without_mismatch_leaves_warning_ok)
{
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = 1;
    mb_error warning;
    memset(&warning, 0x55, sizeof warning);
    d.warning = &warning;
    mb_skeleton *s;
    mb_clip *c;
    char path[4096];
    mb_error err;
    mb_status st = mb_bvh_read_file(bvh_path("derived/tiny_arm_handcheck.bvh", path, sizeof path),
                                    &d, &s, &c, &err);
    cr_assert_eq(st, MB_OK);
    cr_expect_eq(warning.code, MB_OK);
    cr_expect_eq(warning.line, 0);
    cr_expect_str_eq(warning.text, "");
    cr_expect_eq(mb_clip_frame_count(c), 3);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

Test(bvh_read, lenient_excess_and_short_data)
{
    const char *head = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xposition Zrotation\n"
                       "End Site\n{\nOFFSET 1 0 0\n}\n}\nMOTION\n";
    char text[512];
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = 1;
    mb_error warning, err;
    d.warning = &warning;
    mb_skeleton *s;
    mb_clip *c;
    /* More data than declared: the declared 2 frames load. */
    snprintf(text, sizeof text, "%sFrames: 2\nFrame Time: 1\n1 0\n2 0\n3 0\n", head);
    cr_assert_eq(mb_bvh_read_mem(text, strlen(text), "x.bvh", &d, &s, &c, &err), MB_OK);
    cr_expect_eq(mb_clip_frame_count(c), 2);
    cr_expect_eq(warning.code, MB_MISMATCH);
    cr_expect_eq(warning.line, 16);
    cr_expect_eq(warning.column, 1);
    cr_expect_str_eq(warning.text,
                     "data continues after the 2 frames the Frames line (line 12) declares; "
                     "ignored");
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    /* Fewer: the complete frames load, a partial last frame is dropped. */
    snprintf(text, sizeof text, "%sFrames: 5\nFrame Time: 1\n1 0\n2 0\n3\n", head);
    cr_assert_eq(mb_bvh_read_mem(text, strlen(text), "x.bvh", &d, &s, &c, &err), MB_OK);
    cr_expect_eq(mb_clip_frame_count(c), 2);
    cr_expect_eq(pos_of(c, 1, 0)[0], 2.0f);
    cr_expect_eq(warning.code, MB_MISMATCH);
    cr_expect_eq(warning.line, 16);
    cr_expect_eq(warning.column, 2);
    cr_expect_str_eq(warning.text, "file holds 2 complete frames, its Frames line (line 12) says "
                                   "5; loaded the frames present");
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* A skeleton without channels: only "Frames: 0" is consistent (strictly); leniently the
 * count is reported and 0 frames load. Regression: 40000000 declared frames of a
 * channel-less skeleton used to allocate gigabytes from a 100-byte file. */
Test(bvh_read, no_channels)
{
    const char *ok = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\nFrames: 0\n"
                     "Frame Time: 1\n";
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(ok, &s, &c);
    cr_expect_eq(mb_clip_frame_count(c), 0);
    cr_expect_eq(mb_skeleton_channel_count(s), 0);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    const char *bad = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 0\n}\nMOTION\n"
                      "Frames: 40000000\nFrame Time: 1\n";
    mb_error err;
    cr_expect_eq(load_text(bad, 0, &s, &c, &err), MB_PARSE);
    cr_expect_eq(err.line, 8);
    cr_expect_eq(err.column, 9);
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = 1;
    mb_error warning;
    d.warning = &warning;
    cr_assert_eq(mb_bvh_read_mem(bad, strlen(bad), "x", &d, &s, &c, &err), MB_OK);
    cr_expect_eq(mb_clip_frame_count(c), 0);
    cr_expect_eq(warning.code, MB_MISMATCH);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* Regression: the "data continues" warning passed an int to a %s conversion ("(null)" in
 * the text, undefined behaviour). */
Test(bvh_read, warning_text_is_well_formed)
{
    char path[4096];
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = 1;
    mb_error warning, err;
    d.warning = &warning;
    mb_skeleton *s;
    mb_clip *c;
    cr_assert_eq(mb_bvh_read_file(bvh_path("derived/frames_header_173_data_174_cmu_02_03.bvh",
                                            path, sizeof path),
                                   &d, &s, &c, &err),
                 MB_OK);
    cr_expect(strstr(warning.text, "(null)") == NULL, "%s", warning.text);
    cr_expect(strstr(warning.text, "173 frames") != NULL, "%s", warning.text);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* Regression: numbers that need the libc fallback (more than 19 digits, or exponents past
 * 1e22, like fairmotion's "Frame Time: 0.016666666666666666") were read with the process's
 * LC_NUMERIC: under de_DE strtod stopped at the '.' and the frame time became 0. */
static int set_comma_locale(void)
{
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    for (int i = 0; i < 4; ++i)
        if (setlocale(LC_NUMERIC, names[i]))
            return 1;
    /* Not installed: compile one into the build tree once (glibc reads LOCPATH). */
    setenv("LOCPATH", MB_BINARY_DIR "/test_locale", 1);
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8"))
        return 1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s/test_locale' && localedef -i de_DE -f UTF-8 "
             "'%s/test_locale/de_DE.UTF-8' >/dev/null 2>&1",
             MB_BINARY_DIR, MB_BINARY_DIR);
    (void)system(cmd); /* localedef exits non-zero on mere warnings; setlocale decides */
    return setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
}

Test(bvh_read, numbers_ignore_the_locale)
{
    if (!set_comma_locale())
        cr_skip_test("no comma-decimal locale available and localedef failed");
    cr_assert_eq(strtod("0.5", NULL), 0.0, "the test locale does not use a decimal comma");
    const char *text = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 2 Xposition Yposition\n}\n"
                       "MOTION\nFrames: 1\nFrame Time: 0.016666666666666666\n"
                       "0.333333333333333333333333 2.5e-30\n";
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(text, &s, &c);
    setlocale(LC_NUMERIC, "C");
    cr_expect_eq(mb_clip_frame_time(c), strtod("0.016666666666666666", NULL));
    cr_expect_eq(mb_clip_translations(c)[0], strtof("0.333333333333333333333333", NULL));
    cr_expect_eq(mb_clip_translations(c)[1], strtof("2.5e-30", NULL));
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* The hand-written number parser against strtof/strtod on random decimal texts: the same
 * float (its documented contract: correctly rounded, 0 ulp), and it consumes the whole
 * text; both with the text's end right after the number and with 40 bytes of padding
 * after it (then the inline SWAR path reads ahead and answers first). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) { return mb_test_xorshift(&rng_state); }

static int ulp_distance(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = INT32_MIN - ia;
    if (ib < 0)
        ib = INT32_MIN - ib;
    int64_t d = (int64_t)ia - (int64_t)ib;
    return (int)(d < 0 ? -d : d);
}

Test(bvh_read, number_parser_matches_libc)
{
    char buf[96];
    int worst = 0;
    for (int i = 0; i < 200000; ++i) {
        size_t n = 0;
        uint64_t r = rng();
        if (r & 1)
            buf[n++] = (r & 2) ? '-' : '+';
        int int_digits = (int)((r >> 2) % 12), frac_digits = (int)((r >> 6) % 24);
        if (int_digits == 0 && frac_digits == 0)
            int_digits = 1;
        for (int k = 0; k < int_digits; ++k)
            buf[n++] = (char)('0' + rng() % 10);
        if (frac_digits > 0 || (r >> 11) % 4 == 0) {
            buf[n++] = '.';
            for (int k = 0; k < frac_digits; ++k)
                buf[n++] = (char)('0' + rng() % 10);
        }
        if ((r >> 13) % 3 == 0)
            n += (size_t)sprintf(buf + n, "e%d", (int)(rng() % 90) - 50);
        buf[n] = '\0';
        float f = 0.0f;
        const char *next = NULL;
        mb_num_result res = mb_parse_float_(buf, buf + n, &f, &next);
        float want = strtof(buf, NULL);
        if (isinf(want)) {
            cr_expect_eq(res, MB_NUM_RANGE, "%s: %d", buf, (int)res);
            continue;
        }
        cr_assert_eq(res, MB_NUM_OK, "%s: %d", buf, (int)res);
        cr_assert_eq(next, buf + n, "%s: stopped early", buf);
        int d = ulp_distance(f, want);
        worst = d > worst ? d : worst;
        cr_assert_eq(d, 0, "%s: %.9g vs strtof %.9g (%d ulp)", buf, f, want, d);
        memset(buf + n, ' ', 40);
        res = mb_parse_float_(buf, buf + n + 40, &f, &next);
        cr_assert(res == MB_NUM_OK && next == buf + n && ulp_distance(f, want) == 0,
                  "%.*s padded: %.9g vs strtof %.9g", (int)n, buf, f, want);
        buf[n] = '\0';
        double dv = 0.0;
        res = mb_parse_double_(buf, buf + n, &dv, &next);
        cr_assert_eq(res, MB_NUM_OK, "%s", buf);
        cr_assert_eq(dv, strtod(buf, NULL), "%s: double %.17g vs strtod", buf, dv);
    }
    cr_log_info("number parser: worst %d ulp against strtof", worst);
}

/* mb_parse_float_ on texts where a fast path could go wrong, each against strtof on the
 * same text (0 ulp, the status, the end): long mantissas, many digits, exponents at the
 * float limits, subnormals, signed zeros and '+', the spellings exporters print, and
 * decimals on or next to a float rounding midpoint (where one product cannot decide and
 * the parser must hand over to strtof). Each with and without padding after it. */
static void expect_like_strtof(const char *text)
{
    char buf[512];
    size_t n = strlen(text);
    cr_assert_lt(n + 48, sizeof buf);
    memcpy(buf, text, n + 1);
    float want = strtof(buf, NULL);
    for (int pad = 0; pad < 2; ++pad) {
        if (pad)
            memset(buf + n, ' ', 40);
        float f = 0.0f;
        const char *next = NULL;
        mb_num_result res = mb_parse_float_(buf, buf + n + (pad ? 40 : 0), &f, &next);
        if (isinf(want)) {
            cr_assert_eq(res, MB_NUM_RANGE, "%s: %d", text, (int)res);
            continue;
        }
        cr_assert_eq(res, MB_NUM_OK, "%s (pad %d): status %d", text, pad, (int)res);
        cr_assert_eq(next, buf + n, "%s (pad %d): ends at %d", text, pad, (int)(next - buf));
        cr_assert(memcmp(&f, &want, 4) == 0, "%s (pad %d): %a, strtof %a", text, pad, (double)f,
                  (double)want);
    }
}

Test(bvh_read, number_parser_edges_match_libc)
{
    static const char *const fixed[] = {
        /* long mantissas and many digits */
        "0.1000000000000000055511151231257827", "3.14159265358979323846264338327950288",
        "123456789012345678901234567890", "0.000000000000000000000000000000000000001",
        "99999999999999999999", "9007199254740993", "9007199254740992.5",
        "18446744073709551615", "18446744073709551616", "1234567890123456789",
        "12345678.5", "1234567.891", "0.0000000000000000000000000000000000000000000014",
        /* exponents near the float limits, subnormals */
        "3.4028234e38", "3.40282346e38", "3.4028235e38", "3.40282356e38", "3.4028236e38",
        "340282356779733661637539395458142568447", "1.17549435e-38", "1.1754942e-38",
        "1.4e-45", "1.401298464e-45", "7.006492321624085e-46", "7.1e-46", "6.9e-46",
        "1e-45", "2e-45", "1e-38", "1e38", "1e39", "-1e39", "1e-46", "1e-50", "1e-400",
        "1e+22", "1e22", "1e23", "1e-22", "1e-23", "9.999999e-23", "4.7e-39",
        /* signs, zeros, short spellings */
        "-0", "+0", "-0.0000", "+0.0", "-.0", "0e-99999", "+3", "-3", "1.", ".5", "-.5", "+.5",
        "5.", "1e5", "1E5", "1e+5", "1e-5", "1.5E+3", "+1.5e-3", "007", "-007.50", "0.",
        /* what exporters print */
        "-0.000001", "0.333333", "-179.999999", "359.9999", "1.234567e+01", "-9.876543e-05",
        "+2.500000e+00", "1.000000e-10", "6.103516e-05", "-1.192093e-07", "123.456789",
        "-1234.5678", "0.0001", "-99999.9999", "1e-7", "2.71828182845904523536",
        /* float midpoints: 2^24 + 1 and neighbours (ties to even), and a hair off them */
        "16777217", "16777219", "16777217.0", "1.6777217e7", "16777217.000001",
        "16777216.999999", "16777217.000000001", "16777222.999999999", "60092.564453125",
        "774381.90625", "0.428719624876976", "6.70913290977478", "57.3592357635498", "33554434", "33554438", "33554435.9999999", "0.5000000298023224",
        "1.00000005960464477539062", "1.000000059604644775390625",
        "1.000000059604644775390626", "1.000000059604644775390624", "8388609.5", "8388608.5"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i)
        expect_like_strtof(fixed[i]);
    /* every float midpoint between 2^24 and 2^26 is an integer of 8 digits: random ones,
     * exactly and written a hair above and below, and random floats in the printf forms */
    uint64_t st = 0x51AB5EEDull;
    for (int i = 0; i < 20000; ++i) {
        char b[64];
        uint64_t r = mb_test_xorshift(&st);
        long mid = (long)(16777216 + 2 * (r % 8388608) + 1);
        if (r >> 62 == 0)
            mid = 2 * mid; /* 2^25..2^26: midpoints 2 mod 4 */
        snprintf(b, sizeof b, "%ld", mid);
        expect_like_strtof(b);
        snprintf(b, sizeof b, "%ld.%s", mid - (long)((r >> 40) & 1), (r >> 40) & 1 ? "999999" : "000001");
        expect_like_strtof(b);
        uint32_t u = (uint32_t)(r >> 16);
        float f;
        memcpy(&f, &u, 4);
        if (!isfinite(f))
            continue;
        static const char *const forms[] = {"%.4f", "%.6f", "%.6e", "%+.6e", "%.9g", "%g", "%.17g"};
        snprintf(b, sizeof b, forms[r % 7], (double)f);
        expect_like_strtof(b);
    }
}

/* ---------- the values kernels of the motion section ---------- */

/* A random number token in one of the spellings the kernels tell apart, into b; returns
 * its length. */
static size_t random_token(uint64_t *st, char *b)
{
    uint64_t r = mb_test_xorshift(st);
    double v = (mb_test_unit(st) - 0.5) * pow(10.0, (double)(int)(r % 9) - 4.0);
    switch ((r >> 8) % 16) {
    case 0: return (size_t)sprintf(b, "%.6e", v);
    case 1: return (size_t)sprintf(b, "%+.6E", v);
    case 2: return (size_t)sprintf(b, "%.15f", v);          /* 17+ bytes: not the 16-byte path */
    case 3: return (size_t)sprintf(b, "%.13f", v);          /* often exactly 16 bytes */
    case 4: return (size_t)sprintf(b, "%d.", (int)((r >> 20) % 1000));
    case 5: return (size_t)sprintf(b, ".%d", (int)((r >> 20) % 100000));
    case 6: return (size_t)sprintf(b, "%de%d", (int)((r >> 20) % 100), (int)((r >> 30) % 30) - 15);
    case 7: return (size_t)sprintf(b, "%s", (r >> 20) & 1 ? "-0" : "-0.0000");
    case 8: return (size_t)sprintf(b, "+%d", (int)((r >> 20) % 1000));
    case 9: return (size_t)sprintf(b, "%.1e", v * 1e30);    /* beyond +-22: strtof */
    case 10: return (size_t)sprintf(b, "%d", (int)((r >> 20) % 2000000000u) - 1000000000);
    case 11: return (size_t)sprintf(b, "%.20f", v);         /* mantissa beyond 2^53 */
    default: return (size_t)sprintf(b, "%.4f", v);
    }
}

/* Whitespace the reader accepts between values: spaces, tabs, LF, CRLF, lone CR, VT, FF. */
static size_t random_space(uint64_t *st, char *b)
{
    static const char *const seps[] = {" ", " ", " ", "  ", "\t", " \t ", "\n", "\r\n", "\r",
                                        "\n\n", "\v", "\f", "                                   "};
    const char *s = seps[mb_test_xorshift(st) % (sizeof seps / sizeof seps[0])];
    size_t n = strlen(s);
    memcpy(b, s, n);
    return n;
}

/* Runs a values kernel over text[from, len) as the reader does (rows of nch values; where
 * the kernel stops, one value through mb_parse_float_ and whitespace skipped, then the
 * kernel again), into vals; returns the values read (stops at a bad token). */
static long run_kernel(mb_bvh_values_fn_ fn, const char *text, size_t from, size_t len,
                       int nch, float *vals, long cap)
{
    static uint32_t idx[2 * MB_BVH_TOK_CAP_];
    mb_bvh_tokens_ tk = {NULL, idx, idx + MB_BVH_TOK_CAP_, 0, 0};
    const char *p = text + from, *end = text + len;
    long n = 0;
    while (n < cap) {
        int want = cap - n < nch ? (int)(cap - n) : nch;
        int c = fn(&tk, text, &p, end, vals + n, want);
        n += c;
        if (c == want)
            continue;
        tk.count = tk.next = 0;
        while (p < end && strchr(" \t\n\r\v\f", *p))
            ++p;
        const char *q;
        if (p == end || mb_parse_float_(p, end, &vals[n], &q) != MB_NUM_OK ||
            (q < end && !strchr(" \t\n\r\v\f", *q)))
            break;
        p = q;
        ++n;
    }
    return n;
}

Test(bvh_read, values_kernels_match_the_parser_token_for_token)
{
    enum { TOKENS = 60000 };
    size_t cap = (size_t)TOKENS * 72 + 64;
    char *text = malloc(cap);
    float *want = malloc(TOKENS * sizeof(float)), *got = malloc((TOKENS + 64) * sizeof(float));
    cr_assert(text && want && got);
    uint64_t st = 0xC0FFEEull;
    size_t len = 0;
    memcpy(text, "MOTION-HEADER-PAD-BYTES\n", 24); /* kernels may read 16 bytes back */
    len = 24;
    for (int i = 0; i < TOKENS; ++i) {
        len += random_token(&st, text + len);
        if (i + 1 < TOKENS) /* the text ends right after the last digit */
            len += random_space(&st, text + len);
    }
    text[len] = '\0';
    for (int i = 0, k = 0; i < TOKENS; ++i) { /* the expected values, token by token */
        const char *p = text + 24 + (size_t)k, *q;
        while (strchr(" \t\n\r\v\f", *p))
            ++p;
        cr_assert_eq(mb_parse_float_(p, text + len, &want[i], &q), MB_NUM_OK);
        cr_assert(memcmp(&want[i], &(float){strtof(p, NULL)}, 4) == 0, "token %d", i);
        k = (int)(q - text - 24);
    }
    int ran = 0;
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        mb_bvh_values_fn_ fn = mb_bvh_values_kernel_((mb_isa_)isa);
        if (!fn)
            continue;
        ++ran;
        for (int nch = 1; nch <= 183; nch += 61) { /* rows of 1, 62, 123 and 184 values */
            long n = run_kernel(fn, text, 24, len, nch, got, TOKENS);
            cr_assert_eq(n, TOKENS, "%s, rows of %d: %ld values", mb_isa_name_((mb_isa_)isa), nch, n);
            for (long i = 0; i < n; ++i)
                cr_assert(memcmp(&got[i], &want[i], 4) == 0, "%s: value %ld %a, want %a",
                          mb_isa_name_((mb_isa_)isa), i, (double)got[i], (double)want[i]);
        }
    }
    cr_assert_geq(ran, 1);
    cr_assert_eq(mb_bvh_values_kernel_(MB_ISA_AUTO_) != NULL, 1);
    free(text);
    free(want);
    free(got);
}

/* Tokens that are not numbers stop every kernel just before them, whatever their place in
 * the 64-byte blocks: the kernel has read exactly the values before, and *at is the end
 * of the last one (the scalar loop then makes the message). */
Test(bvh_read, values_kernels_stop_before_a_bad_token)
{
    static const char *const bad[] = {"1.5x", "--1", "1e", "1.2.3", "nan", "1e+", ".", "-",
                                      "1,5", "0x10", "1e5.5", "+-2", "5-", "1..", "e5", "1.e"};
    enum { N = 400 };
    char text[N * 12 + 64];
    float got[N + 8];
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b)
        for (int shift = 0; shift < 70; ++shift) {
            size_t len = (size_t)sprintf(text, "HEADER-PADDING-16\n");
            for (int s = 0; s < shift; ++s)
                text[len++] = ' ';
            int at = 200 + shift % 7;
            const char *bad_at = NULL;
            for (int i = 0; i < N; ++i) {
                if (i == at) {
                    bad_at = text + len;
                    len += (size_t)sprintf(text + len, "%s ", bad[b]);
                } else {
                    len += (size_t)sprintf(text + len, "%d.%04d ", i, (i * 37) % 10000);
                }
            }
            for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
                mb_bvh_values_fn_ fn = mb_bvh_values_kernel_((mb_isa_)isa);
                if (!fn)
                    continue;
                static uint32_t idx[2 * MB_BVH_TOK_CAP_];
                mb_bvh_tokens_ tk = {NULL, idx, idx + MB_BVH_TOK_CAP_, 0, 0};
                const char *p = text + 18 + shift;
                int n = fn(&tk, text, &p, text + len, got, N);
                cr_assert_eq(n, at, "%s, '%s' at shift %d: read %d", mb_isa_name_((mb_isa_)isa),
                             bad[b], shift, n);
                /* after the last value read, only whitespace up to the bad token */
                cr_assert(p >= bad_at - 1 && p <= bad_at, "%s, '%s': stopped at %d, bad at %d",
                          mb_isa_name_((mb_isa_)isa), bad[b], (int)(p - text), (int)(bad_at - text));
                for (int i = 0; i < n; ++i) {
                    char want[32];
                    sprintf(want, "%d.%04d", i, (i * 37) % 10000);
                    cr_assert_eq(got[i], strtof(want, NULL));
                }
            }
        }
}

/* Every kernel takes every whitespace byte the reader takes (space, tab, LF, VT, FF, CR):
 * plain numbers separated by each in turn are read in one call, none left to the scalar
 * loop (which would hide a kernel that misses one: the values would still be right). */
Test(bvh_read, values_kernels_take_every_whitespace)
{
    static const char ws[] = " \t\n\v\f\r";
    enum { N = 600 };
    char text[N * 12 + 512];
    size_t len = (size_t)sprintf(text, "HEADER-PADDING-16\n");
    for (int i = 0; i < N; ++i)
        len += (size_t)sprintf(text + len, "%d.%02d%c", i, i % 100, ws[i % 6]);
    memset(text + len, ' ', 300); /* the kernels leave the last 96 + 64 bytes alone */
    len += 300;
    float got[N];
    for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
        mb_bvh_values_fn_ fn = mb_bvh_values_kernel_((mb_isa_)isa);
        if (!fn)
            continue;
        static uint32_t idx[2 * MB_BVH_TOK_CAP_];
        mb_bvh_tokens_ tk = {NULL, idx, idx + MB_BVH_TOK_CAP_, 0, 0};
        const char *p = text + 18;
        int n = fn(&tk, text, &p, text + len, got, N);
        cr_assert_eq(n, N, "%s read %d of %d", mb_isa_name_((mb_isa_)isa), n, N);
        for (int i = 0; i < N; ++i) {
            char want[16];
            snprintf(want, sizeof want, "%d.%02d", i, i % 100);
            cr_assert_eq(got[i], strtof(want, NULL), "%s: value %d", mb_isa_name_((mb_isa_)isa), i);
        }
    }
}

/* ---------- the reader on large texts (where the kernels run) ---------- */

/* BIG_JOINTS joints in a chain, each with three position channels (translations are the
 * parsed floats, bit for bit; 21 values a row, so the kernels' groups of four run), and
 * `frames` frames of random tokens and separators; the text's end is given by how.
 * Records the line and column of each value (1-based, as the reader counts: LF, CRLF and
 * a lone CR each end a line) and its float (strtof). */
typedef struct big_text {
    char *s;
    size_t len;
    int *line, *col;
    float *val;
} big_text;

enum { BIG_END_NEWLINE, BIG_END_DIGIT, BIG_END_CRLF };
enum { BIG_JOINTS = 7, BIG_CH = 3 * BIG_JOINTS };

static void big_text_make(big_text *bt, int frames, int line_ends, int how, uint64_t seed)
{
    int nv = BIG_CH * frames;
    bt->s = malloc((size_t)nv * 72 + 4096);
    bt->line = malloc((size_t)nv * sizeof(int));
    bt->col = malloc((size_t)nv * sizeof(int));
    bt->val = malloc((size_t)nv * sizeof(float));
    cr_assert(bt->s && bt->line && bt->col && bt->val);
    const char *nl = line_ends ? "\r\n" : "\n";
    size_t n = (size_t)sprintf(bt->s, "HIERARCHY%s", nl);
    int line = 2;
    for (int j = 0; j < BIG_JOINTS; ++j) {
        n += (size_t)sprintf(bt->s + n,
                             "%s J%d%s{%s\tOFFSET 0 1 0%s\tCHANNELS 3 Xposition Yposition "
                             "Zposition%s",
                             j ? "JOINT" : "ROOT", j, nl, nl, nl, nl);
        line += 4;
    }
    n += (size_t)sprintf(bt->s + n, "End Site%s{%s\tOFFSET 0 1 0%s}%s", nl, nl, nl, nl);
    line += 4;
    for (int j = 0; j < BIG_JOINTS; ++j, ++line)
        n += (size_t)sprintf(bt->s + n, "}%s", nl);
    n += (size_t)sprintf(bt->s + n, "MOTION%sFrames: %d%sFrame Time: 0.0333333%s", nl, frames,
                         nl, nl);
    line += 3;
    size_t line_start = n;
    uint64_t st = seed;
    for (int i = 0; i < nv; ++i) {
        bt->line[i] = line;
        bt->col[i] = (int)(n - line_start) + 1;
        size_t tl = random_token(&st, bt->s + n);
        char tmp[80];
        memcpy(tmp, bt->s + n, tl);
        tmp[tl] = '\0';
        bt->val[i] = strtof(tmp, NULL);
        n += tl;
        if (i + 1 == nv)
            break;
        size_t sp = (i % BIG_CH == BIG_CH - 1) ? (size_t)sprintf(bt->s + n, "%s", nl)
                                               : random_space(&st, bt->s + n);
        for (size_t k = n; k < n + sp; ++k) { /* count the lines as the reader does */
            char c = bt->s[k];
            if (c == '\n' || (c == '\r' && !(k + 1 < n + sp && bt->s[k + 1] == '\n'))) {
                ++line;
                line_start = k + 1;
            }
        }
        n += sp;
    }
    if (how == BIG_END_NEWLINE)
        n += (size_t)sprintf(bt->s + n, "\n");
    else if (how == BIG_END_CRLF)
        n += (size_t)sprintf(bt->s + n, "\r\n");
    bt->s[n] = '\0';
    bt->len = n;
}

static void big_text_free(big_text *bt)
{
    free(bt->s);
    free(bt->line);
    free(bt->col);
    free(bt->val);
}

Test(bvh_read, large_texts_read_every_value_bit_for_bit)
{
    for (int how = 0; how < 3; ++how)
        for (int crlf = 0; crlf < 2; ++crlf) {
            big_text bt;
            int frames = 500 + 7 * how + crlf; /* ~110 KB: many 4 KB windows */
            big_text_make(&bt, frames, crlf, how, 0xB16 + (uint64_t)(2 * how + crlf));
            mb_skeleton *s;
            mb_clip *c;
            mb_error err;
            char msg[600];
            /* an exact-size copy without a NUL: ASan sees any read past the end */
            char *exact = malloc(bt.len);
            cr_assert_not_null(exact);
            memcpy(exact, bt.s, bt.len);
            mb_status st = mb_bvh_read_mem(exact, bt.len, "big.bvh", NULL, &s, &c, &err);
            free(exact);
            cr_assert_eq(st, MB_OK, "end %d crlf %d: %s", how, crlf, mb_error_format(&err, msg, sizeof msg));
            cr_assert_eq(mb_clip_frame_count(c), frames);
            cr_assert_eq(mb_clip_translation_count(c), BIG_JOINTS);
            const float *tr = mb_clip_translations(c);
            for (int i = 0; i < BIG_CH * frames; ++i)
                cr_assert(memcmp(&tr[i], &bt.val[i], 4) == 0, "end %d crlf %d: value %d %a, want %a",
                          how, crlf, i, (double)tr[i], (double)bt.val[i]);
            mb_skeleton_destroy(s);
            mb_clip_destroy(c);
            big_text_free(&bt);
        }
}

/* A bad value deep in a large text, shifted through every place in a 64-byte block (and
 * across the kernels' 4 KB windows): the message names its line, column, channel and
 * frame exactly as for a small text. A text cut inside a frame ends in the usual "file
 * ends" error at the end of the last value. */
Test(bvh_read, large_texts_report_bad_values_where_they_are)
{
    big_text bt;
    int frames = 400;
    big_text_make(&bt, frames, 0, BIG_END_NEWLINE, 0xBAD);
    char *t = malloc(bt.len + 128);
    cr_assert_not_null(t);
    for (int shift = 0; shift < 70; ++shift) {
        int v = BIG_CH * 300 + 5 * shift; /* frame 300 and on, every channel position */
        size_t ls = 0; /* find value v from its line and column */
        for (int ln = 1; ln < bt.line[v]; ++ln) {
            ls += strcspn(bt.s + ls, "\r\n");
            ls += (bt.s[ls] == '\r' && bt.s[ls + 1] == '\n') ? 2 : 1;
        }
        const char *tok = bt.s + ls + bt.col[v] - 1;
        size_t at = (size_t)(tok - bt.s), tl = strcspn(tok, " \t\r\n\v\f");
        /* the token becomes "<token>x": glued garbage */
        memcpy(t, bt.s, at + tl);
        t[at + tl] = 'x';
        memcpy(t + at + tl + 1, bt.s + at + tl, bt.len - at - tl + 1);
        mb_skeleton *s;
        mb_clip *c;
        mb_error err;
        cr_assert_eq(mb_bvh_read_mem(t, bt.len + 1, "big.bvh", NULL, &s, &c, &err), MB_PARSE);
        char want[200];
        static const char *const axis[3] = {"Xposition", "Yposition", "Zposition"};
        snprintf(want, sizeof want,
                 "malformed number '%.*sx' for J%d %s in frame %d (values must be separated by "
                 "whitespace)",
                 (int)tl, tok, v % BIG_CH / 3, axis[v % 3], v / BIG_CH);
        cr_assert_eq(err.line, bt.line[v], "shift %d: line %d, want %d", shift, err.line, bt.line[v]);
        cr_assert_eq(err.column, bt.col[v], "shift %d: column %d, want %d", shift, err.column, bt.col[v]);
        cr_assert_str_eq(err.text, want);
    }
    /* cut inside the last frame, after its first value: "file ends", at that value's end */
    size_t cut = 0;
    int last = BIG_CH * (frames - 1);
    for (int ln = 1; ln < bt.line[last]; ++ln) {
        cut += strcspn(bt.s + cut, "\r\n");
        cut += (bt.s[cut] == '\r' && bt.s[cut + 1] == '\n') ? 2 : 1;
    }
    cut += (size_t)bt.col[last] - 1;
    size_t tl = strcspn(bt.s + cut, " \t\r\n\v\f");
    mb_skeleton *s;
    mb_clip *c;
    mb_error err;
    cr_assert_eq(mb_bvh_read_mem(bt.s, cut + tl + 1, "big.bvh", NULL, &s, &c, &err), MB_PARSE);
    char want[200];
    snprintf(want, sizeof want, "expected %d channel values in frame %d, found 1 (file ends)",
             BIG_CH, frames - 1);
    cr_assert_str_eq(err.text, want);
    cr_assert_eq(err.line, bt.line[last]);
    cr_assert_eq(err.column, bt.col[last] + (int)tl);
    free(t);
    big_text_free(&bt);
}

/* ---------- API edges ---------- */

Test(bvh_read, invalid_arguments_and_io)
{
    mb_skeleton *s = (mb_skeleton *)(uintptr_t)1;
    mb_clip *c = (mb_clip *)(uintptr_t)1;
    mb_error err;
    cr_expect_eq(mb_bvh_read_mem(NULL, 10, "x", NULL, &s, &c, &err), MB_INVALID_ARG);
    cr_expect(s == NULL && c == NULL);
    cr_expect_eq(err.code, MB_INVALID_ARG);
    cr_expect_eq(mb_bvh_read_mem("HIERARCHY", 9, "x", NULL, NULL, &c, &err), MB_INVALID_ARG);
    cr_expect_eq(mb_bvh_read_mem(NULL, 0, "x", NULL, &s, &c, &err), MB_PARSE, "empty text");
    s = (mb_skeleton *)(uintptr_t)1;
    cr_expect_eq(mb_bvh_read_file(MB_BINARY_DIR "/no/such/file.bvh", NULL, &s, &c, &err), MB_IO);
    cr_expect(s == NULL && c == NULL);
    cr_expect_eq(err.line, 0);
    cr_expect(strstr(err.text, "cannot read file") != NULL, "%s", err.text);
    cr_expect_eq(mb_bvh_read_file(NULL, NULL, &s, &c, &err), MB_INVALID_ARG);
    /* Regression: a directory used to be reported as "file larger than the 8 GiB limit"
     * (ftell of a directory stream) with MB_LIMIT. */
    cr_expect_eq(mb_bvh_read_file(MB_BINARY_DIR, NULL, &s, &c, &err), MB_IO);
    cr_expect(s == NULL && c == NULL);
    cr_expect_str_eq(err.text, "cannot read file: it is a directory");
    /* A character device without a size: read in chunks (here: empty). */
    cr_expect_eq(mb_bvh_read_file("/dev/null", NULL, &s, &c, &err), MB_PARSE);
    cr_expect_str_eq(err.text, "empty file: expected HIERARCHY");
}

Test(bvh_read, skeleton_only_still_validates_motion)
{
    const char *good = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xposition\n}\nMOTION\n"
                       "Frames: 1\nFrame Time: 1\n5\n";
    const char *bad = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xposition\n}\nMOTION\n"
                      "Frames: 1\nFrame Time: 1\nfive\n";
    mb_skeleton *s;
    mb_error err;
    cr_expect_eq(mb_bvh_read_mem(good, strlen(good), "x", NULL, &s, NULL, &err), MB_OK);
    cr_expect_eq(mb_skeleton_joint_count(s), 1);
    mb_skeleton_destroy(s);
    cr_expect_eq(mb_bvh_read_mem(bad, strlen(bad), "x", NULL, &s, NULL, &err), MB_PARSE);
    cr_expect(s == NULL);
}

Test(bvh_read, file_and_memory_reads_agree)
{
    char path[4096];
    bvh_path("cmu_like_rest_1frame.bvh", path, sizeof path);
    size_t len;
    char *text = read_all(path, &len);
    mb_skeleton *sa, *sb;
    mb_clip *ca, *cb;
    mb_error err;
    cr_assert_eq(mb_bvh_read_mem(text, len, "rest", NULL, &sa, &ca, &err), MB_OK);
    cr_assert_eq(mb_bvh_read_file(path, NULL, &sb, &cb, &err), MB_OK);
    expect_identical("mem", sa, ca, "file", sb, cb, 1);
    mb_skeleton_destroy(sa);
    mb_skeleton_destroy(sb);
    mb_clip_destroy(ca);
    mb_clip_destroy(cb);
    free(text);
}

/* ---------- allocator ---------- */

#define MAX_BLOCKS 64

typedef struct tracking {
    size_t allocs, frees, live_bytes;
    void *blocks[MAX_BLOCKS];
    int fail_at; /* allocation index that returns NULL, -1: never */
} tracking;

static void *track_alloc(size_t n, void *user)
{
    tracking *t = user;
    size_t idx = t->allocs++;
    if (t->fail_at >= 0 && idx == (size_t)t->fail_at)
        return NULL;
    unsigned char *p = malloc(n + 16);
    cr_assert(p != NULL);
    memcpy(p, &n, sizeof n);
    t->live_bytes += n;
    for (int i = 0; i < MAX_BLOCKS; ++i)
        if (!t->blocks[i]) {
            t->blocks[i] = p + 16;
            return p + 16;
        }
    cr_assert_fail("more than %d live blocks", MAX_BLOCKS);
    return NULL;
}

static void track_free(void *ptr, void *user)
{
    tracking *t = user;
    int found = 0;
    for (int i = 0; i < MAX_BLOCKS; ++i)
        if (t->blocks[i] == ptr) {
            t->blocks[i] = NULL;
            found = 1;
        }
    cr_assert(found, "free of a pointer the allocator did not hand out");
    t->frees++;
    unsigned char *p = (unsigned char *)ptr - 16;
    size_t n;
    memcpy(&n, p, sizeof n);
    t->live_bytes -= n;
    free(p);
}

static int is_block(const tracking *t, const void *p)
{
    for (int i = 0; i < MAX_BLOCKS; ++i)
        if (t->blocks[i] == p)
            return 1;
    return 0;
}

Test(bvh_read, custom_allocator_used_for_everything)
{
    char path[4096];
    bvh_path("bandai1_run_normal_001_sci.bvh", path, sizeof path);
    for (int from_file = 0; from_file < 2; ++from_file) {
        tracking t;
        memset(&t, 0, sizeof t);
        t.fail_at = -1;
        mb_bvh_read_desc d;
        memset(&d, 0, sizeof d);
        d.allocator.alloc = track_alloc;
        d.allocator.free = track_free;
        d.allocator.user = &t;
        mb_skeleton *s;
        mb_clip *c;
        mb_error err;
        size_t len = 0;
        char *text = from_file ? NULL : read_all(path, &len);
        mb_status st = from_file ? mb_bvh_read_file(path, &d, &s, &c, &err)
                                 : mb_bvh_read_mem(text, len, "x", &d, &s, &c, &err);
        cr_assert_eq(st, MB_OK, "%s", err.text);
        cr_expect_geq(t.allocs, 2u);
        /* Only the two results stay alive, and they are our blocks. */
        cr_expect_eq(t.allocs - t.frees, 2u, "%zu allocs, %zu frees", t.allocs, t.frees);
        cr_expect(is_block(&t, s), "skeleton not from the custom allocator");
        cr_expect(is_block(&t, c), "clip not from the custom allocator");
        mb_skeleton_destroy(s);
        mb_clip_destroy(c);
        cr_expect_eq(t.allocs, t.frees);
        cr_expect_eq(t.live_bytes, 0u);
        free(text);
    }
}

/* Every allocation failing in turn: MB_NOMEM, nothing leaked, outputs NULL. */
Test(bvh_read, allocation_failures_are_clean)
{
    char path[4096];
    bvh_path("derived/tiny_arm_handcheck.bvh", path, sizeof path);
    tracking t;
    memset(&t, 0, sizeof t);
    t.fail_at = -1;
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.allocator.alloc = track_alloc;
    d.allocator.free = track_free;
    d.allocator.user = &t;
    mb_skeleton *s;
    mb_clip *c;
    mb_error err;
    cr_assert_eq(mb_bvh_read_file(path, &d, &s, &c, &err), MB_OK);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    size_t total = t.allocs;
    cr_assert_geq(total, 3u);
    for (size_t k = 0; k < total; ++k) {
        memset(&t, 0, sizeof t);
        t.fail_at = (int)k;
        s = (mb_skeleton *)(uintptr_t)1;
        c = (mb_clip *)(uintptr_t)1;
        mb_status st = mb_bvh_read_file(path, &d, &s, &c, &err);
        cr_expect_eq(st, MB_NOMEM, "allocation %zu failing: %s (%s)", k, mb_status_str(st),
                     err.text);
        cr_expect_eq(err.code, MB_NOMEM);
        cr_expect(s == NULL && c == NULL);
        cr_expect_eq(t.allocs - 1, t.frees, "allocation %zu failing: leak", k);
        cr_expect_eq(t.live_bytes, 0u);
    }
}

/* A real joint may be named the way End Sites are ("LeftHand_End" occurs in real files);
 * the real name wins, whichever comes first, and the End Site gets a unique suffix. */
Test(bvh_read, end_site_name_clash_with_a_real_joint)
{
    static const char *const texts[2] = {
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
        " JOINT LeftHand\n {\n  OFFSET 0 1 0\n  CHANNELS 1 Zrotation\n  End Site\n  {\n"
        "   OFFSET 0 1 0\n  }\n }\n JOINT LeftHand_End\n {\n  OFFSET 1 0 0\n"
        "  CHANNELS 1 Zrotation\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 0\n",
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
        " JOINT LeftHand_End\n {\n  OFFSET 1 0 0\n  CHANNELS 1 Zrotation\n }\n"
        " JOINT LeftHand\n {\n  OFFSET 0 1 0\n  CHANNELS 1 Zrotation\n  End Site\n  {\n"
        "   OFFSET 0 1 0\n  }\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 0\n"};
    for (int i = 0; i < 2; ++i) {
        mb_skeleton *s;
        mb_clip *c;
        mb_error e;
        cr_assert_eq(mb_bvh_read_mem(texts[i], strlen(texts[i]), "clash", NULL, &s, &c, &e), MB_OK,
                     "case %d: %s", i, e.text);
        int real = mb_skeleton_find(s, "LeftHand_End");
        cr_assert_geq(real, 0);
        cr_assert_not(mb_skeleton_is_end_site(s, real), "case %d: the real joint lost its name", i);
        int site = mb_skeleton_find(s, "LeftHand_End_2");
        cr_assert_geq(site, 0, "case %d", i);
        cr_assert(mb_skeleton_is_end_site(s, site));
        cr_assert_str_eq(mb_skeleton_name(s, mb_skeleton_parents(s)[site]), "LeftHand");
        mb_clip_destroy(c);
        mb_skeleton_destroy(s);
    }
}

/* Some exporters glue the header values to their labels ("Frames:2", "Frame Time:0.5") or
 * put a space before the colon; all spellings give the same clip. */
typedef struct header_spelling {
    char text[48]; /* in the case: Criterion copies the cases into each test's process */
} header_spelling;

ParameterizedTestParameters(bvh_read, frames_and_frame_time_labels_in_every_spelling)
{
    static header_spelling headers[] = {{"Frames: 2\nFrame Time: 0.5\n"},
                                        {"Frames:2\nFrame Time:0.5\n"},
                                        {"frames:\t2\nFRAME TIME:0.5\n"},
                                        {"Frames : 2\nFrame Time : 0.5\n"}};
    return cr_make_param_array(header_spelling, headers, sizeof headers / sizeof headers[0]);
}

ParameterizedTest(header_spelling *h, bvh_read, frames_and_frame_time_labels_in_every_spelling)
{
    char text[512];
    snprintf(text, sizeof text,
             "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Xposition Yposition "
             "Zrotation\n}\nMOTION\n%s1 2 90\n3 4 0\n",
             h->text);
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(text, &s, &c);
    cr_expect_eq(mb_clip_frame_count(c), 2, "%s", h->text);
    cr_expect_eq(mb_clip_frame_time(c), 0.5, "%s", h->text);
    const float *t0 = mb_clip_joint_translation(s, c, 0, 0),
                *t1 = mb_clip_joint_translation(s, c, 1, 0);
    cr_expect(t0[0] == 1.0f && t0[1] == 2.0f && t1[0] == 3.0f && t1[1] == 4.0f, "%s", h->text);
    /* frame 0: 90 degrees about Z */
    const float *q = mb_clip_rotations(c);
    cr_expect(fabsf(q[2] - 0.70710678f) < 1e-6f && fabsf(q[3] - 0.70710678f) < 1e-6f);
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* Two ROOTs (a body and a prop, as some exporters write one per actor): node 0 of the
 * skeleton becomes a group that holds them, the motion rows map onto both, and world
 * positions match the independent oracle (../shared/tools/bvh_oracle.py on this text,
 * which reads several ROOTs as it reads one). */
static const char *const multi_root_text =
    "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
    "\tJOINT Spine\n\t{\n\t\tOFFSET 0 5 0\n\t\tCHANNELS 3 Zrotation Yrotation Xrotation\n"
    "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 3 0\n\t\t}\n\t}\n}\n"
    "ROOT Prop\n{\n\tOFFSET 10 0 0\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation\n"
    "\tEnd Site\n\t{\n\t\tOFFSET 0 0 2\n\t}\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.0333333\n"
    "0 90 0 0 0 0 10 0 0 1 2 3 0 90 0\n0.5 90 0 5 0 0 12 0 0 1 2 3 0 0 90\n";

Test(bvh_read, several_roots_under_a_group_node)
{
    mb_skeleton *s;
    mb_clip *c;
    load_text_ok(multi_root_text, &s, &c);
    cr_assert_eq(mb_skeleton_joint_count(s), 6);
    cr_expect_str_eq(mb_skeleton_name(s, 0), "ROOTS");
    cr_expect(mb_skeleton_is_roots_group(s, 0));
    cr_expect(!mb_skeleton_is_roots_group(s, 1));
    cr_expect_eq(mb_skeleton_channel_count(s), 15);
    const int want_parent[6] = {-1, 0, 1, 2, 0, 4};
    const char *want_name[6] = {"ROOTS", "Hips", "Spine", "Spine_End", "Prop", "Prop_End"};
    for (int j = 0; j < 6; ++j) {
        cr_expect_eq(mb_skeleton_parents(s)[j], want_parent[j], "joint %d", j);
        cr_expect_str_eq(mb_skeleton_name(s, j), want_name[j]);
    }
    /* oracle world positions, frames 0 and 1 (the group adds nothing) */
    const double want[2][6][3] = {
        {{0, 0, 0}, {0, 90, 0}, {0, 95, 0}, {-0.52094, 97.95442, 0}, {1, 2, 3}, {3, 2, 3}},
        {{0, 0, 0}, {0.5, 90, 0}, {0.06422, 94.98097, 0}, {-0.81289, 97.84989, 0}, {1, 2, 3},
         {1, 2, 5}}};
    mb_xform x[6];
    mb_pose p = {x, 6};
    float w[6][16];
    for (int f = 0; f < 2; ++f) {
        cr_assert_eq(mb_clip_frame_pose(s, c, f, p), MB_OK);
        cr_assert_eq(mb_fk(s, &p, w, 6), MB_OK);
        for (int j = 0; j < 6; ++j)
            for (int k = 0; k < 3; ++k)
                cr_expect(fabs(w[j][12 + k] - want[f][j][k]) < 2e-4, "frame %d %s[%d]: %g, want %g",
                          f, want_name[j], k, (double)w[j][12 + k], want[f][j][k]);
    }
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* Two one-joint ROOTs with these names, each with an End Site. */
static void load_two_roots(const char *first, const char *second, mb_skeleton **s, mb_clip **c)
{
    char text[512];
    snprintf(text, sizeof text,
             "HIERARCHY\nROOT %s\n{\nOFFSET 0 0 0\nCHANNELS 1 Zrotation\nEnd Site\n{\n"
             "OFFSET 1 0 0\n}\n}\nROOT %s\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\nEnd Site\n{\n"
             "OFFSET 0 1 0\n}\n}\nMOTION\nFrames: 1\nFrame Time: 0.5\n10 20\n",
             first, second);
    load_text_ok(text, s, c);
}

/* The group takes the first free name of ROOTS, ROOTS_2, ...; a second ROOT named like an
 * End Site of the first renames the End Site, as a JOINT of that name does. */
Test(bvh_read, roots_group_and_end_site_names_stay_unique)
{
    mb_skeleton *s;
    mb_clip *c;
    load_two_roots("ROOTS", "ROOTS_2", &s, &c);
    cr_expect_str_eq(mb_skeleton_name(s, 0), "ROOTS_3");
    cr_expect(mb_skeleton_is_roots_group(s, 0));
    cr_expect_str_eq(mb_skeleton_name(s, 1), "ROOTS");
    cr_expect_str_eq(mb_skeleton_name(s, 3), "ROOTS_2");
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    load_two_roots("Hips", "Hips_End", &s, &c);
    cr_expect_str_eq(mb_skeleton_name(s, 2), "Hips_End_2");
    cr_expect_str_eq(mb_skeleton_name(s, 3), "Hips_End");
    cr_expect_str_eq(mb_skeleton_name(s, 4), "Hips_End_End");
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
}

/* The group node counts against MB_MAX_JOINTS: 4096 nodes under two ROOTs are one too
 * many, refused at the second ROOT before anything is built. */
Test(bvh_read, roots_group_counts_against_the_joint_limit)
{
    size_t cap = 64u * MB_MAX_JOINTS + 256;
    char *text = malloc(cap);
    cr_assert_not_null(text);
    size_t n = (size_t)snprintf(text, cap, "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\n");
    for (int j = 0; j < MB_MAX_JOINTS - 3; ++j)
        n += (size_t)snprintf(text + n, cap - n, "JOINT J%d\n{\nOFFSET 0 0 0\n}\n", j);
    n += (size_t)snprintf(text + n, cap - n, "}\nROOT B\n{\nOFFSET 0 0 0\nEnd Site\n{\n"
                                             "OFFSET 0 1 0\n}\n}\nMOTION\nFrames: 0\n"
                                             "Frame Time: 1\n");
    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    mb_error err;
    cr_assert_eq(load_text(text, 0, &s, &c, &err), MB_LIMIT);
    cr_expect_null(s);
    cr_expect_null(c);
    char msg[600];
    mb_error_format(&err, msg, sizeof msg);
    cr_expect(strstr(msg, "plus the node that groups the ROOTs") != NULL, "%s", msg);
    cr_expect(strstr(msg, "MB_MAX_JOINTS") != NULL, "%s", msg);
    free(text);
}


/* ---------- rotation values against the scipy oracle ---------- */

/* Local rotations (x, y, z, w) of joints whose Euler channels come in every order, from
 * ../shared/tools/bvh_oracle.py (scipy: intrinsic rotations in the listed channel order,
 * R.from_euler(order, angles, degrees=True)). Produced by running, from the repository
 * root, `/usr/bin/python3 gen.py` with gen.py:
 *
 *   import sys
 *   sys.path.insert(0, '../shared/tools')
 *   import bvh_oracle as o
 *   files = ['cmu_131_01_mixedorder_mixedeol.bvh', 'fairmotion_sinusoidal_xyz_noendsite.bvh',
 *            'pymo_walk_rootoffset_xyz.bvh', 'animdraw_fair1_dab_zup.bvh'] + \
 *           ['derived/order_%s_cmu_02_03_first40.bvh' % k for k in ('XZY', 'YXZ', 'YZX', 'ZXY', 'MIXED_rootrotfirst')]
 *   for f in files:
 *       joints, ft, motion = o.load_bvh('../shared/data/bvh/' + f)
 *       for frame in (0, motion.shape[0] // 2):
 *           rows, orders = 0, set()
 *           for j in joints:
 *               rc = [(c[0].upper(), motion[frame][j['chan_start'] + k]) for k, c in enumerate(j['channels'])
 *                     if c.lower().endswith('rotation')]
 *               order = ''.join(a for a, _ in rc)
 *               big = sum(abs(v) > 3.0 for _, v in rc)
 *               if big < (1 if 'fairmotion' in f else 2) or (rows >= 3 and order in orders):
 *                   continue
 *               q = o.local_rotation(j, motion[frame]).as_quat()
 *               print('    {"%s", %d, "%s", "%s", {%.9f, %.9f, %.9f, %.9f}},' % (f, frame, j['name'], order, *q))
 *               rows += 1
 *               orders.add(order)
 *               if rows >= 4:
 *                   break
 *
 * (per file and frame: up to 4 joints with at least two angles over 3 degrees, the fourth
 * only of an order not yet taken; frames counted from 0, the first line of motion data.
 * The order_* files hold one take in six channel orders, so their rows agree.) */
typedef struct oracle_rot { /* strings in the case: Criterion copies the cases */
    char file[64];
    int frame;
    char joint[16];
    char order[4]; /* the joint's channel order, for messages */
    double q[4];
} oracle_rot;

static const oracle_rot k_oracle_rots[] = {
    {"cmu_131_01_mixedorder_mixedeol.bvh", 0, "Hips", "ZYX", {0.095040142, 0.080754081, -0.054573924, 0.990690586}},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 0, "LeftHip", "ZYX", {-0.261590012, 0.003581513, -0.052736883, 0.963730595}},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 0, "LeftKnee", "ZYX", {0.383786158, 0.139686576, 0.000000277, 0.912795621}},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 0, "LeftShoulder", "ZXY", {0.125603866, -0.578861071, 0.040546744, 0.804673531}},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 497, "Hips", "ZYX", {0.034765497, -0.047282538, -0.028513204, 0.997869089}},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 497, "LeftHip", "ZYX", {-0.002089241, 0.103543135, -0.171689377, 0.979692407}},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 497, "LeftKnee", "ZYX", {0.319327153, 0.116225800, 0.000000009, 0.940490155}},
    {"cmu_131_01_mixedorder_mixedeol.bvh", 497, "LeftShoulder", "ZXY", {0.238622677, -0.285939478, -0.046331295, 0.926904118}},
    {"fairmotion_sinusoidal_xyz_noendsite.bvh", 0, "child2", "XYZ", {-0.707106781, 0.000000000, 0.000000000, 0.707106781}},
    {"fairmotion_sinusoidal_xyz_noendsite.bvh", 60, "child2", "XYZ", {-0.500000000, 0.000000000, 0.000000000, 0.866025404}},
    {"pymo_walk_rootoffset_xyz.bvh", 0, "LeftArm", "XYZ", {0.027361460, -0.090625453, -0.639060941, 0.763308255}},
    {"pymo_walk_rootoffset_xyz.bvh", 0, "LeftForeArm", "XYZ", {0.199791167, -0.133707446, 0.027531774, 0.970282335}},
    {"pymo_walk_rootoffset_xyz.bvh", 0, "LeftHand", "XYZ", {0.002213132, 0.075907231, -0.029057143, 0.996688957}},
    {"pymo_walk_rootoffset_xyz.bvh", 532, "Hips", "XYZ", {-0.073348015, -0.470510225, 0.026058326, 0.878954584}},
    {"pymo_walk_rootoffset_xyz.bvh", 532, "Spine", "XYZ", {0.053638347, -0.037499435, -0.039006934, 0.997093365}},
    {"pymo_walk_rootoffset_xyz.bvh", 532, "Head", "XYZ", {-0.064181537, -0.366920848, -0.025287958, 0.927690865}},
    {"animdraw_fair1_dab_zup.bvh", 0, "Hips", "XYZ", {0.002967453, 0.056784779, 0.981406720, 0.183323574}},
    {"animdraw_fair1_dab_zup.bvh", 0, "Spine2", "XYZ", {0.010683682, 0.028599274, 0.092772239, 0.995219198}},
    {"animdraw_fair1_dab_zup.bvh", 0, "Neck", "XYZ", {-0.057476082, 0.026228569, -0.105636440, 0.992395841}},
    {"animdraw_fair1_dab_zup.bvh", 169, "Hips", "XYZ", {0.030036929, 0.061035938, 0.997588733, 0.013752000}},
    {"animdraw_fair1_dab_zup.bvh", 169, "Spine2", "XYZ", {0.039991083, 0.030994442, 0.076085323, 0.995816791}},
    {"animdraw_fair1_dab_zup.bvh", 169, "Neck", "XYZ", {-0.091180177, 0.054903385, -0.061172402, 0.992436260}},
    {"derived/order_XZY_cmu_02_03_first40.bvh", 20, "Hips", "XZY", {0.025607894, -0.066403116, -0.045035859, 0.996447005}},
    {"derived/order_XZY_cmu_02_03_first40.bvh", 20, "LeftUpLeg", "XZY", {-0.180075967, 0.046668932, -0.100769423, 0.977363894}},
    {"derived/order_XZY_cmu_02_03_first40.bvh", 20, "LeftLeg", "XZY", {0.744789183, 0.271080657, 0.000000078, 0.609757616}},
    {"derived/order_YXZ_cmu_02_03_first40.bvh", 20, "Hips", "YXZ", {0.025607894, -0.066403110, -0.045035863, 0.996447005}},
    {"derived/order_YXZ_cmu_02_03_first40.bvh", 20, "LeftUpLeg", "YXZ", {-0.180075966, 0.046668928, -0.100769425, 0.977363894}},
    {"derived/order_YXZ_cmu_02_03_first40.bvh", 20, "LeftLeg", "YXZ", {0.744789182, 0.271080653, 0.000000076, 0.609757620}},
    {"derived/order_YZX_cmu_02_03_first40.bvh", 20, "Hips", "YZX", {0.025607889, -0.066403112, -0.045035860, 0.996447005}},
    {"derived/order_YZX_cmu_02_03_first40.bvh", 20, "LeftUpLeg", "YZX", {-0.180075961, 0.046668929, -0.100769424, 0.977363895}},
    {"derived/order_YZX_cmu_02_03_first40.bvh", 20, "LeftLeg", "YZX", {0.744789185, 0.271080650, 0.000000075, 0.609757616}},
    {"derived/order_ZXY_cmu_02_03_first40.bvh", 20, "Hips", "ZXY", {0.025607890, -0.066403117, -0.045035864, 0.996447005}},
    {"derived/order_ZXY_cmu_02_03_first40.bvh", 20, "LeftUpLeg", "ZXY", {-0.180075967, 0.046668926, -0.100769421, 0.977363894}},
    {"derived/order_ZXY_cmu_02_03_first40.bvh", 20, "LeftLeg", "ZXY", {0.744789183, 0.271080657, 0.000000079, 0.609757616}},
    {"derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh", 20, "Hips", "XYZ", {0.025607896, -0.066403112, -0.045035859, 0.996447005}},
    {"derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh", 20, "LeftUpLeg", "YXZ", {-0.180075966, 0.046668928, -0.100769425, 0.977363894}},
    {"derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh", 20, "LeftLeg", "YZX", {0.744789185, 0.271080650, 0.000000075, 0.609757616}},
    {"derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh", 20, "LeftToeBase", "ZYX", {-0.165189043, -0.060123477, -0.000000251, 0.984427624}},
};

#define ORACLE_ROT_COUNT (sizeof k_oracle_rots / sizeof k_oracle_rots[0])

ParameterizedTestParameters(bvh_read, rotations_match_the_oracle_in_every_euler_order)
{
    return cr_make_param_array(oracle_rot, (void *)k_oracle_rots, ORACLE_ROT_COUNT);
}

/* One row of the table: the joint's rotation at the frame, read, against the oracle's. */
ParameterizedTest(oracle_rot *o, bvh_read, rotations_match_the_oracle_in_every_euler_order)
{
    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    load_rel(o->file, 0, NULL, &s, &c);
    mb_xform *pose = malloc(sizeof *pose * (size_t)mb_skeleton_joint_count(s));
    cr_assert_not_null(pose);
    int j = mb_skeleton_find(s, o->joint);
    cr_assert_geq(j, 0, "%s: no joint %s", o->file, o->joint);
    mb_pose p = {pose, mb_skeleton_joint_count(s)};
    cr_assert_eq(mb_clip_frame_pose(s, c, o->frame, p), MB_OK);
    const float *q = pose[j].rot;
    double dp = 0.0, dm = 0.0; /* q and -q are the same rotation */
    for (int k = 0; k < 4; ++k) {
        dp = fmax(dp, fabs(q[k] - o->q[k]));
        dm = fmax(dm, fabs(q[k] + o->q[k]));
    }
    cr_assert_lt(fmin(dp, dm), 3e-6,
                 "%s frame %d %s (%s): (%.7f %.7f %.7f %.7f), oracle (%.7f %.7f %.7f %.7f)", o->file, o->frame,
                 o->joint, o->order, q[0], q[1], q[2], q[3], o->q[0], o->q[1], o->q[2], o->q[3]);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    free(pose);
}

Test(bvh_read, oracle_rotations_cover_the_six_euler_orders)
{
    int orders_seen = 0;
    for (size_t i = 0; i < ORACLE_ROT_COUNT; ++i) {
        const char *order = k_oracle_rots[i].order;
        orders_seen |= 1 << (3 * (order[0] - 'X') + (order[1] - 'X')); /* one bit per order */
    }
    cr_assert_eq(__builtin_popcount((unsigned)orders_seen), 6, "the table covers the six Euler orders");
}
