/* The mblend command-line tool, run as a separate process (fork/exec of the built binary):
 * exit codes, messages, and its numbers against independent answers (the hand-computed
 * tiny_arm_handcheck.bvh values of SOURCES.md and the scipy oracle's expected_fk.csv). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "test_cli_util.h"
#include "test_util.h"

/* ---------------------------------------------------------------- helpers */

/* Writes prefix then the bytes of src into dst. */
static void copy_with_prefix(const char *src, const char *dst, const char *prefix)
{
    size_t n;
    char *text = mb_test_slurp(src, &n);
    cr_assert_not_null(text, "cannot read %s", src);
    FILE *f = fopen(dst, "wb");
    cr_assert_not_null(f, "cannot write %s", dst);
    fputs(prefix, f);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    free(text);
}

#define RUN(...) mb_test_run_cli((const char *const[]){__VA_ARGS__, NULL})

static const char *bvh(const char *rel)
{
    static char buf[8][4096];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s", mb_shared_path(rel));
    return b;
}

static int matches(const char *text, const char *pattern)
{
    regex_t re;
    cr_assert_eq(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0, "bad regex %s", pattern);
    int ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

/* One row of "frame,joint_index,joint_name,x,y,z". */
typedef struct row {
    int frame, joint;
    char name[128];
    double p[3];
} row;

/* Parses positions CSV output; checks the header. Returns the row count. */
static int parse_csv(const char *text, row **rows)
{
    const char *header = "frame,joint_index,joint_name,x,y,z\n";
    cr_assert(strncmp(text, header, strlen(header)) == 0, "CSV header missing: %.60s", text);
    const char *p = text + strlen(header);
    int cap = 256, n = 0;
    *rows = malloc((size_t)cap * sizeof **rows);
    while (*p) {
        if (n == cap) {
            cap *= 2;
            *rows = realloc(*rows, (size_t)cap * sizeof **rows);
            cr_assert_not_null(*rows);
        }
        row *r = &(*rows)[n];
        int used = 0;
        int got = sscanf(p, "%d,%d,%127[^,],%lf,%lf,%lf%n", &r->frame, &r->joint, r->name,
                         &r->p[0], &r->p[1], &r->p[2], &used);
        cr_assert_eq(got, 6, "malformed CSV line: %.80s", p);
        p += used;
        cr_assert_eq(*p, '\n', "CSV line not terminated: %.80s", p);
        ++p;
        ++n;
    }
    return n;
}

static void assert_same_positions(const char *a_path, const char *b_path, double tol)
{
    mb_test_run a = RUN("positions", a_path);
    mb_test_run b = RUN("positions", b_path);
    cr_assert_eq(a.code, 0, "%s", a.err);
    cr_assert_eq(b.code, 0, "%s", b.err);
    row *ra, *rb;
    int na = parse_csv(a.out, &ra), nb = parse_csv(b.out, &rb);
    cr_assert_eq(na, nb);
    cr_assert_gt(na, 0);
    for (int i = 0; i < na; ++i) {
        cr_assert_eq(ra[i].frame, rb[i].frame);
        cr_assert_str_eq(ra[i].name, rb[i].name);
        for (int k = 0; k < 3; ++k)
            cr_assert(fabs(ra[i].p[k] - rb[i].p[k]) <= tol * (1.0 + fabs(ra[i].p[k])),
                      "frame %d %s axis %d: %.7g vs %.7g", ra[i].frame, ra[i].name, k,
                      ra[i].p[k], rb[i].p[k]);
    }
    free(ra);
    free(rb);
    mb_test_run_free(&a);
    mb_test_run_free(&b);
}

/* ---------------------------------------------------------------- info */

Test(cli_info, cmu_counts_joints_end_sites_and_y_up)
{
    mb_test_run r = RUN("info", bvh("bvh/cmu_02_01_walk.bvh"));
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "31 joints") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "7 End Sites") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "Y-up") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "Z-up") == NULL);
    cr_assert(matches(r.out, "frames: +344,"), "%s", r.out);
    cr_assert(matches(r.out, "rotation order: ZYX \\(all 31 joints"), "%s", r.out);
    cr_assert(matches(r.out, "120 fps"), "%s", r.out);
    /* The table: root with position then rotation channels; an End Site row. */
    cr_assert(matches(r.out, "^ +0 +Hips +- +pos XYZ rot ZYX$"), "%s", r.out);
    cr_assert(matches(r.out, "^ +6 +LeftToeBase_End +LeftToeBase +\\(End Site\\)$"), "%s", r.out);
    cr_assert_str_eq(r.err, "");
    mb_test_run_free(&r);
}

Test(cli_info, zup_and_mixed_orders)
{
    mb_test_run r = RUN("info", "--no-table", bvh("bvh/animdraw_fair1_dab_zup.bvh"));
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "Z-up") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, "Y-up") == NULL, "%s", r.out);
    cr_assert(strstr(r.out, "27 joints + 7 End Sites") != NULL, "%s", r.out);
    cr_assert(matches(r.out, "rotation order: mixed: XYZ \\(25 joints\\), YXZ \\(2 joints\\)"),
              "%s", r.out);
    cr_assert(strstr(r.out, "index") == NULL, "--no-table still printed the table");
    mb_test_run_free(&r);
}

Test(cli_info, placeholder_root_bandai_is_y_up_and_travels)
{
    /* joint_Root never moves; Hips carries the motion: travel must come from Hips. */
    mb_test_run r = RUN("info", "--no-table", bvh("bvh/bandai2_walk_normal_001.bvh"));
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "Y-up") != NULL, "%s", r.out);
    cr_assert(matches(r.out, "root travel: +Hips .*net [0-9]{3,}"), "%s", r.out);
    mb_test_run_free(&r);
}

Test(cli_info, zero_frames)
{
    mb_test_run r = RUN("info", bvh("bvh/derived/zero_frames_cmu02.bvh"));
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(matches(r.out, "frames: +0,"), "%s", r.out);
    cr_assert(strstr(r.out, "Y-up") != NULL, "%s", r.out);
    mb_test_run_free(&r);
}

/* glTF through assimp. Expected numbers come from Fox.glb's own JSON (read independently):
 * 1728 non-indexed vertices = 576 triangles, a skin of 24 joints, animations Survey, Walk
 * and Run whose last keys are at 3.4166667, 0.7083333 and 1.1583333 s. */
Test(cli_info, gltf_scene_mesh_animations_and_convention_up)
{
    if (!mb_scene_supported())
        return;
    char spec[4200];
    snprintf(spec, sizeof spec, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    mb_test_run r = RUN("info", spec);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(matches(r.out, "576 triangles"), "%s", r.out);
    cr_assert(matches(r.out, "24 skin joints"), "%s", r.out);
    cr_assert(matches(r.out, "animations: +3$"), "%s", r.out);
    cr_assert(matches(r.out, "^    Survey .* keys over 3.41667 s$"), "%s", r.out);
    cr_assert(matches(r.out, "^  \\* Walk .* keys over 0.708333 s$"), "%s", r.out);
    cr_assert(matches(r.out, "^    Run .* keys over 1.15833 s$"), "%s", r.out);
    /* glTF is +Y up by definition; the feet-to-root guess would pick the fox's length */
    cr_assert(matches(r.out, "up axis: +Y-up \\(the format's convention\\)"), "%s", r.out);
    cr_assert(matches(r.out, "^ +[0-9]+ +b_Hip_01 +b_Root_00 *$"), "%s", r.out);
    mb_test_run_free(&r);

    snprintf(spec, sizeof spec, "%s#Fly", mb_shared_path("mesh/Fox.glb"));
    r = RUN("info", spec);
    cr_assert_eq(r.code, 2);
    cr_assert(matches(r.err, "no animation named 'Fly'; it has: 'Survey', 'Walk', 'Run'"), "%s",
              r.err);
    mb_test_run_free(&r);
}

/* The format comes from the content when the name does not say .bvh: a BVH file called
 * .txt is read as BVH, a file that is neither BVH nor a scene is an input error. */
Test(cli_info, bvh_recognised_by_content_and_junk_rejected)
{
    const char *d = mb_test_scratch("cli");
    char txt[4096], junk[4096];
    snprintf(txt, sizeof txt, "%s/walk.txt", d);
    snprintf(junk, sizeof junk, "%s/junk.glb", d);
    /* a BOM and a blank line before HIERARCHY */
    copy_with_prefix(MB_PROJECT_DIR "/data/bvh/walk.bvh", txt, "\xEF\xBB\xBF \r\n");
    FILE *f = fopen(junk, "wb");
    cr_assert_not_null(f);
    fputs("glTF\x02\x00\x00\x00 not really", f);
    fclose(f);

    mb_test_run r = RUN("info", "--no-table", txt);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(matches(r.out, "22 joints \\+ 5 End Sites"), "%s", r.out);
    mb_test_run_free(&r);
    r = RUN("info", junk);
    cr_assert_eq(r.code, 2, "junk gave %d: %s", r.code, r.out);
    cr_assert(strstr(r.err, "junk.glb") != NULL, "%s", r.err);
    cr_assert_str_eq(r.out, "");
    mb_test_run_free(&r);
}

/* ---------------------------------------------------------------- positions */

Test(cli_positions, tiny_arm_matches_hand_computed_values)
{
    mb_test_run r = RUN("positions", bvh("bvh/derived/tiny_arm_handcheck.bvh"));
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    row *rows;
    int n = parse_csv(r.out, &rows);
    cr_assert_eq(n, 12, "3 frames x 4 nodes expected, got %d rows", n);
    static const char *names[4] = {"Shoulder", "Elbow", "Wrist", "Wrist_End"};
    /* SOURCES.md: f0 (1,2,3) (1,6,3) (1,10,3) (1,12,3); f1 (0,0,0) (-4,0,0) (-4,0,4)
     * (-4,0,6); f2 root Z90 then X90: elbow (0,0,4), wrist (0,0,8), end (0,0,10). */
    static const double want[3][4][3] = {
        {{1, 2, 3}, {1, 6, 3}, {1, 10, 3}, {1, 12, 3}},
        {{0, 0, 0}, {-4, 0, 0}, {-4, 0, 4}, {-4, 0, 6}},
        {{0, 0, 0}, {0, 0, 4}, {0, 0, 8}, {0, 0, 10}},
    };
    for (int i = 0; i < n; ++i) {
        int f = i / 4, j = i % 4;
        cr_assert_eq(rows[i].frame, f);
        cr_assert_eq(rows[i].joint, j);
        cr_assert_str_eq(rows[i].name, names[j]);
        for (int k = 0; k < 3; ++k)
            cr_assert(fabs(rows[i].p[k] - want[f][j][k]) < 1e-4, "frame %d %s axis %d: %.7g, want %g",
                      f, names[j], k, rows[i].p[k], want[f][j][k]);
    }
    free(rows);
    mb_test_run_free(&r);
}

/* Compares `positions --frame N` of a file with every oracle row of that frame. */
static void check_oracle(const char *file, int frame)
{
    FILE *f = fopen(mb_shared_path("bvh/expected_fk.csv"), "r");
    cr_assert_not_null(f);
    char line[512];
    row want[256];
    int nw = 0;
    while (fgets(line, sizeof line, f)) {
        char name[256];
        row w;
        if (line[0] == '#' || strncmp(line, "file,", 5) == 0)
            continue;
        if (sscanf(line, "%255[^,],%d,%d,%127[^,],%lf,%lf,%lf", name, &w.frame, &w.joint, w.name,
                   &w.p[0], &w.p[1], &w.p[2]) != 7)
            continue;
        if (strcmp(name, file) == 0 && w.frame == frame && nw < 256)
            want[nw++] = w;
    }
    fclose(f);
    cr_assert_gt(nw, 0, "no oracle rows for %s frame %d", file, frame);

    char rel[512], fr[32];
    snprintf(rel, sizeof rel, "bvh/%s%s", strncmp(file, "order_", 6) == 0 ? "derived/" : "", file);
    snprintf(fr, sizeof fr, "%d", frame);
    mb_test_run r = RUN("positions", "--frame", fr, bvh(rel));
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    row *got;
    int ng = parse_csv(r.out, &got);
    cr_assert_eq(ng, nw, "%s frame %d: %d rows, oracle has %d", file, frame, ng, nw);
    /* 1e-4 relative to the figure's size in this frame (bounding-box diagonal), plus 1e-4. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < nw; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], want[i].p[k]);
            hi[k] = fmax(hi[k], want[i].p[k]);
        }
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double tol = 1e-4 * diag + 1e-4;
    for (int i = 0; i < nw; ++i) {
        cr_assert_eq(got[i].frame, frame);
        cr_assert_eq(got[i].joint, want[i].joint);
        cr_assert_str_eq(got[i].name, want[i].name);
        double d2 = 0;
        for (int k = 0; k < 3; ++k)
            d2 += (got[i].p[k] - want[i].p[k]) * (got[i].p[k] - want[i].p[k]);
        cr_assert(sqrt(d2) <= tol, "%s frame %d %s: (%g %g %g) vs oracle (%g %g %g), tol %g", file,
                  frame, want[i].name, got[i].p[0], got[i].p[1], got[i].p[2], want[i].p[0],
                  want[i].p[1], want[i].p[2], tol);
    }
    free(got);
    mb_test_run_free(&r);
}

Test(cli_positions, matches_oracle_rows)
{
    check_oracle("cmu_02_01_walk.bvh", 172);
    check_oracle("animdraw_fair1_dab_zup.bvh", 169);
    check_oracle("bandai2_run_normal_001.bvh", 34);
    check_oracle("cmu_131_01_mixedorder_mixedeol.bvh", 993);
    check_oracle("pymo_walk_rootoffset_xyz.bvh", 532);
    check_oracle("order_MIXED_rootrotfirst_cmu_02_03_first40.bvh", 20);
    check_oracle("fairmotion_sinusoidal_xyz_noendsite.bvh", 119);
}

/* A joint name with a comma or a quote (the reader takes any non-space bytes) is one CSV
 * field: quoted, its quotes doubled; the blend report does the same. */
Test(cli_positions, names_with_commas_and_quotes_are_quoted)
{
    const char *dir = mb_test_scratch("cli");
    char path[512], out[512], rep[512];
    snprintf(path, sizeof path, "%s/comma.bvh", dir);
    snprintf(out, sizeof out, "%s/comma_out.bvh", dir);
    snprintf(rep, sizeof rep, "%s/comma.csv", dir);
    write_text(path, "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
                     "  CHANNELS 3 Xposition Yposition Zposition\n"
                     "  JOINT Spine,Upper\"x\n  {\n    OFFSET 0 1 0\n"
                     "    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                     "    End Site\n    {\n      OFFSET 0 1 0\n    }\n  }\n}\n"
                     "MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 0 0\n");
    mb_test_run r = RUN("positions", path);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "\n0,1,\"Spine,Upper\"\"x\",0,1,0\n") != NULL, "%s", r.out);
    mb_test_run_free(&r);
    char pose[520];
    snprintf(pose, sizeof pose, "%s@0", path);
    r = RUN("blend", pose, pose, "-w", "1,1", "--report", rep, "-o", out);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    mb_test_run_free(&r);
    char *csv = mb_test_slurp(rep, NULL);
    cr_assert_not_null(csv);
    cr_assert(strstr(csv, ",1,\"Spine,Upper\"\"x\",") != NULL, "%s", csv);
    free(csv);
    remove(path);
    remove(out);
    remove(rep);
    rmdir(dir);
}

/* Far from the origin, 7 significant digits lost up to 0.05 units: every float digit is
 * printed (100000.125 and 0.00048828125 are exact floats), and no "-0". */
Test(cli_positions, far_from_the_origin_prints_the_float_exactly)
{
    const char *dir = mb_test_scratch("cli");
    char path[512];
    snprintf(path, sizeof path, "%s/far.bvh", dir);
    write_text(path, "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
                     "  CHANNELS 3 Xposition Yposition Zposition\n"
                     "  End Site\n  {\n    OFFSET 0 0 0.00048828125\n  }\n}\n"
                     "MOTION\nFrames: 2\nFrame Time: 0.1\n100000.125 -0.0 2500.9875\n"
                     "100000.125 -0.0 2501\n");
    mb_test_run r = RUN("positions", path);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "0,0,Hips,100000.125,") != NULL, "%s", r.out);
    cr_assert(strstr(r.out, ",2500.98755\n") != NULL, "%s", r.out); /* float(2500.9875) */
    cr_assert(strstr(r.out, "0,1,Hips_End,100000.125,") != NULL, "%s", r.out);
    mb_test_run_free(&r);
    r = RUN("info", path);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "root travel:    Hips (100000, 0, 2500.99)") != NULL, "%s", r.out);
    mb_test_run_free(&r);
    remove(path);
    rmdir(dir);
}

Test(cli_positions, frame_ranges_are_half_open)
{
    const char *tiny = bvh("bvh/derived/tiny_arm_handcheck.bvh");
    mb_test_run r = RUN("positions", "--frames", "1:3", tiny);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    row *rows;
    int n = parse_csv(r.out, &rows);
    cr_assert_eq(n, 8);
    cr_assert_eq(rows[0].frame, 1);
    cr_assert_eq(rows[7].frame, 2);
    free(rows);
    mb_test_run_free(&r);

    r = RUN("positions", "--frames=2:", tiny);
    cr_assert_eq(r.code, 0);
    cr_assert_eq(parse_csv(r.out, &rows), 4);
    cr_assert_eq(rows[0].frame, 2);
    free(rows);
    mb_test_run_free(&r);

    r = RUN("positions", "--frames", ":1", tiny);
    cr_assert_eq(r.code, 0);
    cr_assert_eq(parse_csv(r.out, &rows), 4);
    cr_assert_eq(rows[3].frame, 0);
    free(rows);
    mb_test_run_free(&r);

    r = RUN("positions", "--frame", "2", tiny);
    cr_assert_eq(r.code, 0);
    cr_assert_eq(parse_csv(r.out, &rows), 4);
    cr_assert_eq(rows[0].frame, 2);
    free(rows);
    mb_test_run_free(&r);
}

Test(cli_positions, out_of_range_frames_exit_2)
{
    const char *tiny = bvh("bvh/derived/tiny_arm_handcheck.bvh");
    const char *bad[][2] = {{"--frame", "3"}, {"--frame", "-1"}, {"--frames", "0:4"},
                            {"--frames", "2:2"}, {"--frames", "5:"}, {"--frames", "-1:2"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        mb_test_run r = RUN("positions", bad[i][0], bad[i][1], tiny);
        cr_assert_eq(r.code, 2, "%s %s: exit %d", bad[i][0], bad[i][1], r.code);
        cr_assert_str_eq(r.out, "", "%s %s printed data", bad[i][0], bad[i][1]);
        cr_assert(strstr(r.err, "range") != NULL, "%s %s: %s", bad[i][0], bad[i][1], r.err);
        mb_test_run_free(&r);
    }
    /* Malformed (not out of range): usage errors. */
    const char *malformed[][2] = {{"--frame", "x"}, {"--frames", "3"}, {"--frames", "1:2:3"},
                                  {"--frame", "1.5"}};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; ++i) {
        mb_test_run r = RUN("positions", malformed[i][0], malformed[i][1], tiny);
        cr_assert_eq(r.code, 1, "%s %s: exit %d", malformed[i][0], malformed[i][1], r.code);
        mb_test_run_free(&r);
    }
}

/* ---------------------------------------------------------------- convert */

Test(cli_convert, round_trip_keeps_positions_and_layout)
{
    const char *dir = mb_test_scratch("cli");
    char out[512];
    snprintf(out, sizeof out, "%s/mixed.bvh", dir);
    const char *in = bvh("bvh/derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh");
    mb_test_run r = RUN("convert", in, "-o", out);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert_str_eq(r.out, "");
    mb_test_run_free(&r);
    assert_same_positions(in, out, 1e-4);
    /* The root still lists its rotations first. */
    char *text = mb_test_slurp(out, NULL);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "CHANNELS 6 Xrotation Yrotation Zrotation Xposition Yposition Zposition"),
              "root channel order lost");
    free(text);
    remove(out);
    rmdir(dir);
}

Test(cli_convert, order_option_rewrites_channels_not_motion)
{
    const char *dir = mb_test_scratch("cli");
    char out[512];
    snprintf(out, sizeof out, "%s/zxy.bvh", dir);
    const char *in = bvh("bvh/derived/order_ZYX_cmu_02_03_first40.bvh");
    mb_test_run r = RUN("convert", "--order", "zxy", "--precision", "9", in, "--output", out);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    mb_test_run_free(&r);
    char *text = mb_test_slurp(out, NULL);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "Zrotation Yrotation Xrotation") == NULL, "ZYX channels remain");
    int n3 = 0;
    for (const char *p = text; (p = strstr(p, "CHANNELS 3 ")) != NULL; p += 11) {
        cr_assert(strncmp(p, "CHANNELS 3 Zrotation Xrotation Yrotation", 40) == 0, "%.50s", p);
        ++n3;
    }
    cr_assert_eq(n3, 30);
    cr_assert(strstr(text, "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation"));
    free(text);
    assert_same_positions(in, out, 1e-4);
    r = RUN("info", "--no-table", out);
    cr_assert(strstr(r.out, "rotation order: ZXY (all 31 joints"), "%s", r.out);
    mb_test_run_free(&r);
    remove(out);
    rmdir(dir);
}

Test(cli_convert, bad_input_leaves_existing_output_alone)
{
    const char *dir = mb_test_scratch("cli");
    char bad[512], out[512];
    snprintf(bad, sizeof bad, "%s/bad.bvh", dir);
    snprintf(out, sizeof out, "%s/out.bvh", dir);
    write_text(bad, "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 zero\n}\n");
    write_text(out, "precious\n");
    mb_test_run r = RUN("convert", bad, "-o", out);
    cr_assert_eq(r.code, 2, "exit %d", r.code);
    char pattern[600];
    snprintf(pattern, sizeof pattern, "^%s:4:[0-9]+: ", bad);
    cr_assert(matches(r.err, pattern), "stderr: %s", r.err);
    mb_test_run_free(&r);
    char *text = mb_test_slurp(out, NULL);
    cr_assert_str_eq(text, "precious\n");
    free(text);
    /* A good input into a directory that does not exist: an output error, exit 2. */
    char nowhere[600];
    snprintf(nowhere, sizeof nowhere, "%s/missing/dir/out.bvh", dir);
    r = RUN("convert", bvh("bvh/derived/tiny_arm_handcheck.bvh"), "-o", nowhere);
    cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
    cr_assert_neq(r.err[0], '\0');
    mb_test_run_free(&r);
    /* Nothing but the two files: no temporaries left behind. */
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *e;
    int others = 0;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, "bad.bvh") == 0 || strcmp(e->d_name, "out.bvh") == 0)
            continue;
        cr_log_error("unexpected file %s", e->d_name);
        ++others;
    }
    closedir(d);
    cr_assert_eq(others, 0);
    remove(bad);
    remove(out);
    rmdir(dir);
}

Test(cli_convert, overwrites_existing_output)
{
    const char *dir = mb_test_scratch("cli");
    char out[512];
    snprintf(out, sizeof out, "%s/out.bvh", dir);
    write_text(out, "old\n");
    const char *in = bvh("bvh/derived/tiny_arm_handcheck.bvh");
    mb_test_run r = RUN("convert", in, "-o", out);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    mb_test_run_free(&r);
    assert_same_positions(in, out, 1e-5);
    remove(out);
    rmdir(dir);
}

/* ---------------------------------------------------------------- errors and usage */

Test(cli_errors, bad_input_exits_2_with_position)
{
    const char *dir = mb_test_scratch("cli");
    char bad[512];
    snprintf(bad, sizeof bad, "%s/short.bvh", dir);
    write_text(bad, "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Xrotation Yrotation Zrotation\n"
                    "\tEnd Site\n\t{\n\t\tOFFSET 0 1 0\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n"
                    "1 2 3\n4 5\n");
    const char *cmds[] = {"info", "positions"};
    for (int i = 0; i < 2; ++i) {
        mb_test_run r = RUN(cmds[i], bad);
        cr_assert_eq(r.code, 2, "%s: exit %d", cmds[i], r.code);
        char pattern[600];
        snprintf(pattern, sizeof pattern, "^%s:[0-9]+:[0-9]+: .+", bad);
        cr_assert(matches(r.err, pattern), "%s stderr: %s", cmds[i], r.err);
        cr_assert_str_eq(r.out, "");
        mb_test_run_free(&r);
    }
    remove(bad);
    rmdir(dir);

    /* A real defective file: Frames says 174, the data holds 100 frames. */
    const char *trunc = bvh("bvh/derived/frames_header_174_data_100_cmu_02_03.bvh");
    mb_test_run r = RUN("info", trunc);
    cr_assert_eq(r.code, 2);
    char pattern[1200];
    snprintf(pattern, sizeof pattern, "^%s:[0-9]+:[0-9]+: ", trunc);
    cr_assert(matches(r.err, pattern), "stderr: %s", r.err);
    mb_test_run_free(&r);
    /* Leniently it loads, with a positioned warning. */
    r = RUN("info", "--lenient", "--no-table", trunc);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    snprintf(pattern, sizeof pattern, "^%s:[0-9]+:[0-9]+: warning: ", trunc);
    cr_assert(matches(r.err, pattern), "stderr: %s", r.err);
    cr_assert(matches(r.out, "frames: +100,"), "%s", r.out);
    mb_test_run_free(&r);
}

Test(cli_errors, unreadable_file_exits_2)
{
    mb_test_run r = RUN("info", "/nonexistent/nowhere.bvh");
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "/nonexistent/nowhere.bvh: ") == r.err, "stderr: %s", r.err);
    mb_test_run_free(&r);
}

Test(cli_errors, usage_errors_exit_1)
{
    const char *tiny = bvh("bvh/derived/tiny_arm_handcheck.bvh");
    const char *const cases[][6] = {
        {"info", "--bogus", tiny, NULL},
        {"info", NULL},
        {"info", tiny, tiny, NULL},
        {"positions", "-x", tiny, NULL},
        {"positions", tiny, "--frame", NULL},
        {"convert", tiny, NULL},
        {"convert", tiny, "-o", NULL},
        {"convert", tiny, "-o", "/tmp/x.bvh", "--order"},
        {"convert", "--order", "QQQ", tiny, NULL},
        {"convert", "--order", "XYZW", tiny, NULL},
        {"convert", "--precision", "0", tiny, NULL},
        {"convert", "--lenient=1", tiny, NULL},
        {"frobnicate", NULL},
        {"--bogus", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        mb_test_run r = mb_test_run_cli(cases[i]);
        cr_assert_eq(r.code, 1, "case %zu (%s %s): exit %d, stderr %s", i, cases[i][0],
                     cases[i][1] ? cases[i][1] : "", r.code, r.err);
        cr_assert_neq(r.err[0], '\0', "case %zu: no message", i);
        mb_test_run_free(&r);
    }
    /* No arguments at all: usage on stderr, nothing on stdout. */
    mb_test_run r = mb_test_run_cli((const char *const[]){NULL});
    cr_assert_eq(r.code, 1);
    cr_assert_str_eq(r.out, "");
    cr_assert(strstr(r.err, "usage:") != NULL);
    mb_test_run_free(&r);
}

Test(cli_errors, help_everywhere)
{
    const char *top[] = {"--help", "-h", "help"};
    for (int i = 0; i < 3; ++i) {
        mb_test_run r = RUN(top[i]);
        cr_assert_eq(r.code, 0);
        cr_assert(strstr(r.out, "usage: mblend") != NULL);
        cr_assert_str_eq(r.err, "");
        mb_test_run_free(&r);
    }
    /* Every command the top-level help lists (later subcommands included). */
    mb_test_run h = RUN("--help");
    const char *p = strstr(h.out, "Commands:\n");
    cr_assert_not_null(p);
    p += strlen("Commands:\n");
    int count = 0;
    char name[64];
    while (sscanf(p, "  %63s", name) == 1 && strncmp(p, "  ", 2) == 0) {
        const char *flags[] = {"--help", "-h"};
        for (int k = 0; k < 2; ++k) {
            mb_test_run r = RUN(name, flags[k]);
            cr_assert_eq(r.code, 0, "%s %s: exit %d", name, flags[k], r.code);
            cr_assert(strstr(r.out, "usage: mblend ") != NULL, "%s %s: %s", name, flags[k], r.out);
            cr_assert_str_eq(r.err, "");
            mb_test_run_free(&r);
        }
        ++count;
        p = strchr(p, '\n');
        cr_assert_not_null(p);
        ++p;
    }
    cr_assert_geq(count, 3);
    mb_test_run_free(&h);
    /* --help wins even after other arguments. */
    mb_test_run r = RUN("convert", "in.bvh", "--help");
    cr_assert_eq(r.code, 0);
    mb_test_run_free(&r);
}

/* convert to OUT.glb writes a binary glTF (it once wrote BVH text under the .glb name and
 * exited 0), whose joints sit where the BVH's do; a glTF animation converts to BVH, and
 * positions reads glTF too. */
Test(cli_convert, glb_out_and_gltf_in)
{
    if (!mb_scene_supported())
        return;
    const char *d = mb_test_scratch("cli"), *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh";
    char glb[4096], back[4096], spec[4200];
    snprintf(glb, sizeof glb, "%s/walk.glb", d);
    snprintf(back, sizeof back, "%s/walk_back.bvh", d);
    mb_test_run r = RUN("convert", walk, "-o", glb);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    size_t n;
    char *bytes = mb_test_slurp(glb, &n);
    cr_assert(bytes && n > 12 && memcmp(bytes, "glTF", 4) == 0, "not a binary glTF");
    free(bytes);
    r = RUN("positions", "--frame", "7", walk);
    cr_assert_eq(r.code, 0, "%s", r.err);
    char *hips = strstr(r.out, "\n7,0,Hips,");
    cr_assert_not_null(hips, "%s", r.out);
    double want[3], got[3];
    cr_assert_eq(sscanf(hips, "\n7,0,Hips,%lf,%lf,%lf", &want[0], &want[1], &want[2]), 3);
    mb_test_run_free(&r);
    snprintf(spec, sizeof spec, "%s#convert", glb);
    r = RUN("positions", "--frame", "7", spec);
    cr_assert_eq(r.code, 0, "%s", r.err);
    hips = strstr(r.out, ",Hips,");
    cr_assert_not_null(hips, "%s", r.out);
    cr_assert_eq(sscanf(hips, ",Hips,%lf,%lf,%lf", &got[0], &got[1], &got[2]), 3);
    for (int k = 0; k < 3; ++k)
        cr_assert(fabs(got[k] - want[k]) < 1e-3, "Hips %d: %g in the glb, %g in the BVH", k, got[k],
                  want[k]);
    mb_test_run_free(&r);
    r = RUN("convert", spec, "-o", back);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    /* a clip that never leaves the rest pose still carries its animation (it read back
     * with none: "has no animation") */
    char rest_glb[4200];
    snprintf(rest_glb, sizeof rest_glb, "%s/rest.glb", d);
    r = RUN("convert", mb_shared_path("bvh/cmu_like_rest_1frame.bvh"), "-o", rest_glb);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("convert", rest_glb, "-o", back);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("convert", walk, "--order", "XYZ", "-o", glb);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "--order and --precision shape BVH text"), "%s", r.err);
    mb_test_run_free(&r);
}

/* ---------------------------------------------------------------- blend */

/* Oracle case 0 of blend_cases.csv through the command line: a pose blend written as a
 * one-frame BVH must hold the oracle's blended rotations (within 1e-5 rad, the writer's
 * Euler round trip included). */
Test(cli_blend, pose_blend_matches_the_scipy_oracle)
{
    const char *dir = mb_test_scratch("cli");
    char out[512], a[4200], b[4200];
    snprintf(out, sizeof out, "%s/pose.bvh", dir);
    snprintf(a, sizeof a, "%s@100", bvh("bvh/cmu_02_01_walk.bvh"));
    snprintf(b, sizeof b, "%s@60", bvh("bvh/cmu_02_03_run.bvh"));
    mb_test_run r = RUN("blend", a, b, "--weights", "0.3,0.7", "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    mb_test_run_free(&r);
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_clip_frame_count(c), 1);
    FILE *f = fopen(mb_shared_path("oracle/blend_cases.csv"), "r");
    cr_assert_not_null(f);
    char line[4096];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        int cs, ji;
        char inputs[2048], name[128];
        float m[4], q[4];
        if (sscanf(line, "%d,%2047[^,],%d,%127[^,],%f,%f,%f,%f,%f,%f,%f,%f", &cs, inputs, &ji, name,
                   &m[0], &m[1], &m[2], &m[3], &q[0], &q[1], &q[2], &q[3]) != 12 || cs != 0)
            continue;
        cr_assert_str_eq(inputs, "cmu_02_01_walk.bvh@100:0.3;cmu_02_03_run.bvh@60:0.7");
        const float *got = mb_clip_rotations(c) + 4 * ji;
        double err = mb_quat_angle_between(got, q);
        cr_assert(err < 1e-5, "joint %d %s: %g rad from the oracle", ji, name, err);
        ++rows;
    }
    fclose(f);
    cr_assert_eq(rows, 31, "oracle rows for case 0: %d", rows);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    remove(out);
    rmdir(dir);
}

Test(cli_blend, walk_and_run_make_a_jog_cycle_with_report)
{
    const char *dir = mb_test_scratch("cli");
    char out[512], rep[512], walk[1024], run[1024];
    snprintf(out, sizeof out, "%s/jog.bvh", dir);
    snprintf(rep, sizeof rep, "%s/jog.csv", dir);
    snprintf(walk, sizeof walk, "%s/data/bvh/walk.bvh", MB_PROJECT_DIR);
    snprintf(run, sizeof run, "%s/data/bvh/run.bvh", MB_PROJECT_DIR);
    mb_test_run r = RUN("blend", walk, run, "-w", "0.5,0.5", "--report", rep, "--compare", "-o", out);
    cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
    cr_assert(strstr(r.err, "cycle frames"), "%s", r.err);
    mb_test_run_free(&r);
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(out, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    /* walk cycle 1.1 s and run cycle 0.7 s at 30 fps: the jog cycle lasts 0.9 s */
    cr_assert_eq(mb_clip_frame_count(c), 27);
    mb_motion_info mi;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "jog", &mi, &e), MB_OK);
    /* distance per cycle: 1.1 s * 140 + 0.7 s * 350 over 1.8 s = 222 cm/s */
    cr_assert(mi.speed > 200 && mi.speed < 245, "jog speed %g cm/s", mi.speed);
    int joints = 0;
    for (int j = 0; j < mb_skeleton_joint_count(s); ++j)
        joints += !mb_skeleton_is_end_site(s, j);
    char *text = mb_test_slurp(rep, NULL);
    cr_assert_not_null(text);
    cr_assert(strncmp(text, "frame,phase,joint_index,joint_name,weights,eigen_gap,"
                            "max_tangent_angle_deg,angle_to_nlerp_deg,angle_to_karcher_deg\n",
                      strlen("frame,phase,joint_index,joint_name,weights,eigen_gap,")) == 0);
    int lines = 0;
    for (char *p = text; *p; ++p)
        lines += *p == '\n';
    cr_assert_eq(lines, 1 + 27 * joints, "report lines %d", lines);
    free(text);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    remove(out);
    remove(rep);
    rmdir(dir);
}

Test(cli_blend, errors)
{
    const char *dir = mb_test_scratch("cli");
    char out[512];
    snprintf(out, sizeof out, "%s/out.bvh", dir);
    write_text(out, "precious\n");
    const char *walk = bvh("bvh/cmu_02_01_walk.bvh");
    const char *noroles = bvh("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh");
    /* usage: weight count, bad weight, pose/clip mix, bad method */
    mb_test_run r = RUN("blend", walk, walk, "-w", "1", "-o", out);
    cr_assert_eq(r.code, 1, "exit %d", r.code);
    mb_test_run_free(&r);
    r = RUN("blend", walk, walk, "-w", "1,-2", "-o", out);
    cr_assert_eq(r.code, 1);
    mb_test_run_free(&r);
    char pose[4200];
    snprintf(pose, sizeof pose, "%s@3", walk);
    r = RUN("blend", walk, pose, "-o", out);
    cr_assert_eq(r.code, 1);
    mb_test_run_free(&r);
    r = RUN("blend", walk, "--method", "slerp", "-o", out);
    cr_assert_eq(r.code, 1);
    mb_test_run_free(&r);
    /* input: a second skeleton that cannot be retargeted onto the first input's (no
     * humanoid joint names: every missing role named), frame out of range, a clip without
     * a full cycle (inputs of other skeletons that can be retargeted blend:
     * tests/cli/test_cli_retarget.c) */
    r = RUN("blend", walk, noroles, "-o", out);
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "no joint for the roles hips, chest, upper_leg_l") &&
              strstr(r.err, "forearm_r") && strstr(r.err, "cannot retarget"), "%s", r.err);
    mb_test_run_free(&r);
    snprintf(pose, sizeof pose, "%s@100000", walk);
    r = RUN("blend", pose, pose, "-o", out);
    cr_assert_eq(r.code, 2);
    mb_test_run_free(&r);
    r = RUN("blend", bvh("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh"), "-o", out); /* no feet */
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "--range"), "%s", r.err);
    mb_test_run_free(&r);
    char *text = mb_test_slurp(out, NULL);
    cr_assert_str_eq(text, "precious\n", "a failed blend touched the output");
    free(text);
    remove(out);
    rmdir(dir);
}

/* ---------------------------------------------------------------- input specs and outputs */

/* A BVH from a pipe (no .bvh name, cannot be sniffed and read again) still loads; empty
 * parts of FILE#Animation are usage errors; outputs other than .bvh/.glb are refused; a
 * report goes into place only with the output, with fopen's permissions. */
Test(cli_specs, pipes_empty_parts_output_names_and_reports)
{
    const char *d = mb_test_scratch("cli");
    const char *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh", *run = MB_PROJECT_DIR "/data/bvh/run.bvh";
    char fifo[4096], spec[4200], rep[4096], out[4096];
    snprintf(fifo, sizeof fifo, "%s/walk_pipe", d);
    cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
    pid_t writer = fork();
    cr_assert_geq(writer, 0);
    if (writer == 0) { /* feeds the pipe once the reader opens it */
        size_t n;
        char *text = mb_test_slurp(walk, &n);
        int fd = open(fifo, O_WRONLY);
        ssize_t w = text && fd >= 0 ? write(fd, text, n) : -1;
        _exit(w == (ssize_t)n ? 0 : 1);
    }
    mb_test_run r = RUN("info", "--no-table", fifo);
    int ws;
    waitpid(writer, &ws, 0);
    cr_assert_eq(r.code, 0, "stderr: %s", r.err);
    cr_assert(strstr(r.out, "22 joints + 5 End Sites") != NULL, "%s", r.out);
    mb_test_run_free(&r);

    snprintf(spec, sizeof spec, "%s#", walk);
    r = RUN("info", spec);
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, "empty animation name") != NULL, "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("blend", "#Walk", "#Walk", "-o", "x.bvh");
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, "no file before '#'") != NULL, "%s", r.err);
    mb_test_run_free(&r);

    snprintf(out, sizeof out, "%s/jog.gltf", d);
    r = RUN("blend", walk, run, "-o", out);
    cr_assert_eq(r.code, 1);
    cr_assert(strstr(r.err, "must end in .bvh or .glb") != NULL, "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("transition", walk, run, "--at", "1", "--duration", "0.5", "-o", out);
    cr_assert_eq(r.code, 1);
    mb_test_run_free(&r);
    cr_assert_neq(access(out, F_OK), 0, "a refused output was written");

    /* the output cannot be written: no report either */
    snprintf(rep, sizeof rep, "%s/jog.csv", d);
    snprintf(out, sizeof out, "%s/missing/jog.bvh", d);
    r = RUN("blend", walk, run, "--report", rep, "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    mb_test_run_free(&r);
    cr_assert_neq(access(rep, F_OK), 0, "the report of a failed blend was left behind");
    /* success: the report is there, readable as fopen would make it */
    snprintf(out, sizeof out, "%s/jog.bvh", d);
    r = RUN("blend", walk, run, "--report", rep, "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    struct stat st;
    cr_assert_eq(stat(rep, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    cr_assert_eq(st.st_mode & 0777, 0666 & ~mask, "report mode %o", (unsigned)(st.st_mode & 0777));
}

/* A file whose name holds '@' is taken whole when it exists; '@N' after it still picks a pose. */
Test(cli_specs, at_sign_in_a_file_name)
{
    const char *d = mb_test_scratch("cli");
    char named[4096], pose[4200], out[4096];
    snprintf(named, sizeof named, "%s/take@2.bvh", d);
    snprintf(pose, sizeof pose, "%s@3", named);
    snprintf(out, sizeof out, "%s/o.bvh", d);
    copy_with_prefix(MB_PROJECT_DIR "/data/bvh/walk.bvh", named, "");
    mb_test_run r = RUN("blend", named, MB_PROJECT_DIR "/data/bvh/run.bvh", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("blend", pose, MB_PROJECT_DIR "/data/bvh/run.bvh@4", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "1 frame") != NULL, "%s", r.err);
    mb_test_run_free(&r);
}

/* ---------------------------------------------------------------- guards */

#define WALK MB_PROJECT_DIR "/data/bvh/walk.bvh" /* 132 frames at 30 fps: 0 to 4.367 s */
#define RUNC MB_PROJECT_DIR "/data/bvh/run.bvh"  /* 84 frames */

static void assert_text(const char *path, const char *want, const char *what)
{
    char *text = mb_test_slurp(path, NULL);
    cr_assert_not_null(text, "%s: %s is gone", what, path);
    cr_assert_str_eq(text, want, "%s changed %s", what, path);
    free(text);
}

/* A --report that would replace the output, an input or a directory is refused before
 * anything is written; a report that cannot go into place leaves an existing output as it
 * was (blend and transition). */
Test(cli_guards, report_never_clobbers_output_or_inputs)
{
    const char *d = mb_test_scratch("cli");
    char out[4096], in[4096], sub[4096], same[4200];
    snprintf(out, sizeof out, "%s/keep.bvh", d);
    snprintf(in, sizeof in, "%s/walk.bvh", d);
    snprintf(sub, sizeof sub, "%s/repdir", d);
    snprintf(same, sizeof same, "%s/./keep.bvh", d);
    copy_with_prefix(WALK, in, "");
    cr_assert_eq(mkdir(sub, 0700), 0);
    write_text(out, "precious\n");
    char *walk_text = mb_test_slurp(in, NULL);
    struct {
        const char *report, *expect;
    } cases[] = {{out, "the same file"}, {same, "the same file"}, {in, "is the input"},
                 {sub, "is a directory"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        mb_test_run r = RUN("blend", in, RUNC, "--report", cases[c].report, "-o", out);
        cr_assert_eq(r.code, 1, "blend --report %s: exit %d: %s", cases[c].report, r.code, r.err);
        cr_assert(strstr(r.err, cases[c].expect), "%s", r.err);
        mb_test_run_free(&r);
        r = RUN("transition", in, RUNC, "--at", "auto", "--duration", "0.5", "--report",
                cases[c].report, "-o", out);
        cr_assert_eq(r.code, 1, "transition --report %s: exit %d: %s", cases[c].report, r.code, r.err);
        cr_assert(strstr(r.err, cases[c].expect), "%s", r.err);
        mb_test_run_free(&r);
        assert_text(out, "precious\n", "a refused run");
        assert_text(in, walk_text, "a refused run");
    }
    free(walk_text);
}

/* blend, transition and skin make something new: an output that names an input (which for
 * a glTF file holds every animation) is refused, the input unchanged. */
Test(cli_guards, output_never_replaces_an_input)
{
    const char *d = mb_test_scratch("cli");
    char in[4096], alias[4200];
    snprintf(in, sizeof in, "%s/walk.bvh", d);
    snprintf(alias, sizeof alias, "%s/../%s/walk.bvh", d, strrchr(d, '/') + 1);
    copy_with_prefix(WALK, in, "");
    char *before = mb_test_slurp(in, NULL);
    mb_test_run r = RUN("blend", in, RUNC, "-o", in);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "is the input"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("transition", RUNC, in, "--at", "auto", "--duration", "0.5", "-o", alias);
    cr_assert_eq(r.code, 1, "%s", r.err);
    mb_test_run_free(&r);
    assert_text(in, before, "a refused run");
    free(before);
    if (mb_scene_supported()) {
        char fox[4096], spec[4200];
        snprintf(fox, sizeof fox, "%s/fox.glb", d);
        copy_with_prefix(mb_shared_path("mesh/Fox.glb"), fox, "");
        size_t n0, n1;
        char *b0 = mb_test_slurp(fox, &n0);
        snprintf(spec, sizeof spec, "%s#Walk", fox);
        r = RUN("skin", spec, "--frames", "0:3", "-o", fox);
        cr_assert_eq(r.code, 1, "%s", r.err);
        cr_assert(strstr(r.err, "is the input"), "%s", r.err);
        mb_test_run_free(&r);
        r = RUN("blend", spec, spec, "-o", fox);
        cr_assert_eq(r.code, 1, "%s", r.err);
        mb_test_run_free(&r);
        char *b1 = mb_test_slurp(fox, &n1);
        cr_assert(n0 == n1 && memcmp(b0, b1, n0) == 0, "fox.glb was changed");
        free(b0);
        free(b1);
    }
}

/* Weights the library cannot take in float are usage errors named as such, before any
 * file is read; numbers are decimal only. */
typedef struct weight_case { /* strings in the case: Criterion copies the cases */
    char weights[16], expect[16];
} weight_case;

ParameterizedTestParameters(cli_guards, weights_out_of_float_range_and_non_decimal_numbers)
{
    static weight_case cases[] = {{"1e39,1", "too large"},  {"1e-50,1e-50", "sum to zero"},
                                  {"3e38,3e38", "overflows"}, {"0x1,1", "bad weight"},
                                  {" 1,1", "bad weight"},     {"infinity,1", "bad weight"}};
    return cr_make_param_array(weight_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(weight_case *wc, cli_guards, weights_out_of_float_range_and_non_decimal_numbers)
{
    mb_test_run r = RUN("blend", "/nonexistent/a.bvh", "/nonexistent/b.bvh", "-w", wc->weights, "-o",
                       "/tmp/never.bvh");
    cr_assert_eq(r.code, 1, "-w '%s': exit %d: %s", wc->weights, r.code, r.err);
    cr_assert(strstr(r.err, wc->expect), "-w '%s': %s", wc->weights, r.err);
    mb_test_run_free(&r);
    cr_assert_neq(access("/tmp/never.bvh", F_OK), 0);
}

Test(cli_guards, weights_too_small_and_numbers_not_decimal)
{
    /* a weight below double's range underflows: said so, not "bad weight" */
    mb_test_run r = RUN("blend", WALK, RUNC, "-w", "1e-320,1", "-o", "/tmp/never.bvh");
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "weight '1e-320' is too small for a float"), "%s", r.err);
    mb_test_run_free(&r);
    /* -o naming a BVH input: no word about glTF animations */
    r = RUN("blend", WALK, RUNC, "-o", WALK);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "the result would replace it; write it elsewhere"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("blend", WALK, RUNC, "--range", "0x10:0x30,-", "-o", "/tmp/never.bvh");
    cr_assert_eq(r.code, 1, "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("transition", WALK, RUNC, "--at", "0x1p1", "--duration", "0.5", "-o", "/tmp/never.bvh");
    cr_assert_eq(r.code, 1, "%s", r.err);
    mb_test_run_free(&r);
    cr_assert_neq(access("/tmp/never.bvh", F_OK), 0);
}

/* Options that would do nothing are refused rather than ignored. */
Test(cli_guards, options_that_would_be_ignored_are_refused)
{
    const char *d = mb_test_scratch("cli");
    char out[4096], rep[4096];
    snprintf(out, sizeof out, "%s/o.bvh", d);
    snprintf(rep, sizeof rep, "%s/r.csv", d);
    struct {
        const char *const *args;
        const char *expect;
    } cases[] = {
        {(const char *const[]){"blend", WALK, RUNC, "--compare", "-o", out, NULL}, "--report"},
        {(const char *const[]){"blend", WALK "@1", RUNC "@2", "--range", "0:5,0:7", "-o", out, NULL},
         "apply to clips"},
        {(const char *const[]){"blend", WALK "@1", RUNC "@2", "--cycle", "none", "-o", out, NULL},
         "apply to clips"},
        {(const char *const[]){"blend", WALK, RUNC, "--feet", "LeftFoot,LeftFoot", "-o", out, NULL},
         "both feet"},
        {(const char *const[]){"transition", WALK, RUNC, "--at", "auto", "--search", "0:0",
                               "--duration", "0.5", "-o", out, NULL},
         "FROM < TO"},
        {(const char *const[]){"transition", WALK, RUNC, "--at", "1", "--search", "0:2",
                               "--duration", "0.5", "-o", out, NULL},
         "--at auto"},
        {(const char *const[]){"transition", WALK, RUNC, "--at", "1", "--b-start", "1", "--window",
                               "0.3", "--duration", "0.5", "-o", out, NULL},
         "--window"},
        {(const char *const[]){"transition", WALK, RUNC, "--at", "auto", "--mode", "inertialize",
                               "--curve", "linear", "--duration", "0.5", "-o", out, NULL},
         "--curve"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        char err[4096];
        snprintf(err, sizeof err, "%s/err", d);
        int code = mb_test_exec_cli(cases[c].args, NULL, err);
        char *text = mb_test_slurp(err, NULL);
        cr_assert_eq(code, 1, "case %zu (%s): exit %d: %s", c, cases[c].args[0], code, text);
        cr_assert(strstr(text, cases[c].expect), "case %zu: %s", c, text);
        free(text);
    }
    cr_assert_neq(access(out, F_OK), 0, "a refused run wrote its output");
}

/* Times in seconds are checked against the clips before they become frame numbers (1e9 s
 * once overflowed an int), an exact fit of the transition is accepted (the float duration
 * once made 2.9 s longer than 2.9 s), and a clip too short for the transition is named. */
Test(cli_guards, transition_times_are_checked_in_seconds)
{
    const char *d = mb_test_scratch("cli");
    char out[4096];
    snprintf(out, sizeof out, "%s/t.bvh", d);
    mb_test_run r = RUN("transition", WALK, RUNC, "--at", "1e9", "--duration", "0.5", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--at 1e+09 s is outside the motion (0 s to 4.367 s)"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("transition", WALK, RUNC, "--at", "1", "--b-start", "1e12", "--duration", "0.5", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--b-start 1e+12 s is outside the motion"), "%s", r.err);
    mb_test_run_free(&r);
    /* 0 s in a cgspeed take is its T-pose frame, not motion: said so, not a failed match */
    r = RUN("transition", bvh("bvh/cmu_02_01_walk.bvh"), bvh("bvh/cmu_02_03_run.bvh"), "--at", "0",
            "--duration", "0.3", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "--at 0 s is outside the motion (0.008333 s to 2.858 s; frame 0 is a "
                            "T-pose)"), "%s", r.err);
    mb_test_run_free(&r);
    /* A at frame 44 (1.4667 s) plus 2.9 s ends exactly on its last frame, 4.3667 s */
    r = RUN("transition", WALK, WALK, "--at", "1.4666666667", "--b-start", "0", "--duration", "2.9",
            "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "A frame 44") && !strstr(r.err, "match cost"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("transition", WALK, WALK, "--at", "1.5", "--b-start", "0", "--duration", "2.9", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "needs it to go on"), "%s", r.err);
    mb_test_run_free(&r);
    /* an explicit A time near the end with B left to the search: the window shrinks to fit */
    r = RUN("transition", WALK, RUNC, "--at", "4.3", "--duration", "0.05", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    char b3[4096];
    snprintf(b3, sizeof b3, "%s/three.bvh", d);
    char *text = mb_test_slurp(RUNC, NULL);
    char *motion = strstr(text, "Frames:");
    cr_assert_not_null(motion);
    /* the run's header and its first three frames */
    char *p = strchr(motion, '\n') + 1;
    p = strchr(p, '\n') + 1; /* Frame Time */
    for (int f = 0; f < 3; ++f)
        p = strchr(p, '\n') + 1;
    FILE *f = fopen(b3, "wb");
    cr_assert_not_null(f);
    fwrite(text, 1, (size_t)(motion - text), f);
    fputs("Frames: 3\n", f);
    const char *ft = strchr(motion, '\n') + 1;
    fwrite(ft, 1, (size_t)(p - ft), f);
    fclose(f);
    free(text);
    r = RUN("transition", RUNC, b3, "--at", "auto", "--duration", "0.1", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "three.bvh has 0.0667 s of motion: too short for a 0.1 s transition"),
              "%s", r.err);
    mb_test_run_free(&r);
}

/* A cycle A:B plays frames A to B, so a given range may end at the frame count (half-open,
 * as @A:B is elsewhere) and then ends on the last frame; one that leaves no cycle says why. */
Test(cli_guards, cycle_range_ending_at_the_frame_count)
{
    const char *d = mb_test_scratch("cli");
    char out[4096];
    snprintf(out, sizeof out, "%s/c.bvh", d);
    mb_test_run r = RUN("blend", WALK "@0:132", RUNC, "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "cycle frames 0:131") && strstr(r.err, "ending on the clip's last frame"),
              "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("blend", WALK "@131:132", RUNC, "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "range 131:132 leaves no cycle"), "%s", r.err);
    mb_test_run_free(&r);
}

/* --range in seconds is converted with each clip's own frame time: a range inside one whole
 * second (1.6 s to 2.4 s: frames 48:72 of the 30 fps walk) is not a range whose ends round
 * to the same second; one shorter than a frame says so. */
Test(cli_guards, range_in_seconds_within_one_second)
{
    const char *d = mb_test_scratch("cli");
    char out[4096];
    snprintf(out, sizeof out, "%s/s.bvh", d);
    mb_test_run r = RUN("blend", WALK, RUNC, "--range", "1.6s:2.4s,0.5s:0.6s", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "cycle frames 48:72 (0.800 s), given"), "%s", r.err);
    cr_assert(strstr(r.err, "cycle frames 15:18 (0.100 s), given"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("blend", WALK, RUNC, "--range", "1.6s:1.61s,-", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "range '1.6s:1.61s' covers no frame of"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("blend", WALK, RUNC, "--range", "0.5s:1e10s,-", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "has 132 frames; range '0.5s:1e10s' does not fit"), "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("blend", WALK, RUNC, "--range", "2.4s:1.6s,-", "-o", out);
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "bad range '2.4s:1.6s'"), "%s", r.err);
    mb_test_run_free(&r);
}

/* --cycle none stretches the motion only: a cgspeed T-pose frame 0 is left out (it was
 * blended into the output's first frame, a 9.5-unit jump), as detection, transitions and
 * matching leave it out. */
Test(cli_guards, cycle_none_leaves_out_the_tpose_frame)
{
    const char *d = mb_test_scratch("cli");
    char out[4096];
    snprintf(out, sizeof out, "%s/none.bvh", d);
    mb_test_run r = RUN("blend", bvh("bvh/cmu_02_01_walk.bvh"), bvh("bvh/cmu_02_03_run.bvh"),
                       "--cycle", "none", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "cmu_02_01_walk.bvh: frame 0 is a T-pose, not motion: frames 1:344"),
              "%s", r.err);
    mb_test_run_free(&r);
    r = RUN("info", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert_null(strstr(r.out, "T-pose"), "%s", r.out);
    mb_test_run_free(&r);
}

/* Skeletons that differ only by trailing joints: match's message names the first extra
 * one; blend retargets the second input onto the first input's skeleton and says so in one
 * line. */
Test(cli_guards, skeleton_mismatch_names_the_extra_joint)
{
    const char *d = mb_test_scratch("cli");
    char cut[4096], out[4096];
    snprintf(cut, sizeof cut, "%s/noend.bvh", d);
    snprintf(out, sizeof out, "%s/o.bvh", d);
    /* walk.bvh without its last End Site (the right hand's, the file's last block) */
    char *text = mb_test_slurp(WALK, NULL);
    char *last = NULL;
    for (char *p = strstr(text, "End Site"); p; p = strstr(p + 1, "End Site"))
        last = p;
    cr_assert_not_null(last);
    char *close = strchr(strchr(last, '}') + 1, '\n') + 1; /* after the End Site's "}" line */
    FILE *f = fopen(cut, "wb");
    cr_assert_not_null(f);
    fwrite(text, 1, (size_t)(last - text), f);
    fputs(close, f);
    fclose(f);
    free(text);
    mb_test_run r = RUN("match", WALK, cut);
    cr_assert_eq(r.code, 2, "match: %s", r.err);
    cr_assert(strstr(r.err, "the first without a counterpart: 'RightHand_End', joint 26 of"),
              "match: %s", r.err);
    cr_assert(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "match: more than one line: %s",
              r.err);
    mb_test_run_free(&r);
    r = RUN("blend", WALK, cut, "-o", out);
    cr_assert_eq(r.code, 0, "blend: %s", r.err);
    char line[8400];
    snprintf(line, sizeof line, "mblend blend: %s retargeted onto the skeleton of %s (the first "
             "input's; --to FILE picks another)\n", cut, WALK);
    cr_assert(strstr(r.err, line), "blend: %s", r.err);
    mb_test_run_free(&r);
    /* the blend has walk.bvh's skeleton, End Site included */
    mb_skeleton *sw, *so;
    mb_clip *cw, *co;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(WALK, NULL, &sw, &cw, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_bvh_read_file(out, NULL, &so, &co, &e), MB_OK, "%s", e.text);
    cr_assert(mb_skeleton_same_topology(so, sw, NULL));
    cr_assert_str_eq(mb_skeleton_name(so, 26), "RightHand_End");
    mb_clip_destroy(cw);
    mb_clip_destroy(co);
    mb_skeleton_destroy(sw);
    mb_skeleton_destroy(so);
    remove(out);
}

/* A bound written negative is refused, not taken for "to the end". */
Test(cli_guards, positions_negative_end_is_refused)
{
    mb_test_run r = RUN("positions", WALK, "--frames", ":-1");
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "negative bound"), "%s", r.err);
    mb_test_run_free(&r);
}

/* A Z-up BVH exported to glTF is turned to glTF's +Y up by the root node (it lay on its back):
 * the glb's height along Y is the BVH's along Z, and its root travels as far. */
static double info_number(const char *text, const char *label)
{
    const char *p = strstr(text, label);
    cr_assert_not_null(p, "no '%s' in %s", label, text);
    return strtod(p + strlen(label), NULL);
}

Test(cli_guards, z_up_bvh_to_glb_stands_up)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("cli");
    char out[4096];
    snprintf(out, sizeof out, "%s/z.glb", d);
    const char *zup = bvh("bvh/animdraw_fair1_dab_zup.bvh");
    mb_test_run a = RUN("info", zup);
    cr_assert_eq(a.code, 0, "%s", a.err);
    cr_assert(strstr(a.out, "Z-up"), "%s", a.out);
    mb_test_run r = RUN("skin", zup, "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_test_run_free(&r);
    mb_test_run b = RUN("info", out);
    cr_assert_eq(b.code, 0, "%s", b.err);
    cr_assert(strstr(b.out, "Y-up"), "%s", b.out);
    double ha = info_number(a.out, "height:"), hb = info_number(b.out, "height:");
    double ta = info_number(a.out, "horizontal: net"), tb = info_number(b.out, "horizontal: net");
    cr_assert(fabs(ha - hb) < 1e-3 * ha, "height %g in the BVH, %g in the glb", ha, hb);
    cr_assert(fabs(ta - tb) < 1e-3 * ta + 1e-6, "travel %g in the BVH, %g in the glb", ta, tb);
    mb_test_run_free(&a);
    mb_test_run_free(&b);
}
