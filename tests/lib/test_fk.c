/* Forward kinematics against independent answers:
 * - every row of ../shared/data/bvh/expected_fk.csv (world positions from a scipy oracle);
 * - the six single-order re-expressions and the mixed-order file of cmu_02_03 frames 0-39
 *   (same motion, different Euler orders and channel layouts);
 * - tiny_arm_handcheck.bvh, whose positions were computed by hand (SOURCES.md).
 *
 * Tolerance for the oracle rows: |ours - oracle| <= 1e-4 * height + 1e-4 (Euclidean, in the
 * file's units), where height is the diagonal of the axis-aligned bounding box of all world
 * positions (End Sites included) of the skeleton's rest pose (identity rotations, OFFSETs as
 * translations). The rest pose exists for every file (also 0-frame ones) and, unlike frame
 * 0, does not depend on where the root has walked to. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mblend/offline/bvh.h"
#include "mblend/offline/clip_build.h"
#include "runtime/anim/fk_internal.h"
#include "test_util.h"

/* The FK kernel the file-based checks run: MB_ISA_AUTO_ means the public mb_fk. */
static mb_isa_ fk_isa = MB_ISA_AUTO_;

static mb_status run_fk(const mb_skeleton *s, const mb_pose *p, float (*w)[16], int n)
{
    return fk_isa == MB_ISA_AUTO_ ? mb_fk(s, p, w, n) : mb_fk_isa_(s, p, w, n, fk_isa);
}

typedef struct loaded {
    mb_skeleton *s;
    mb_clip *c;
    int n;
    mb_xform *pose;
    float (*world)[16];
    double height;
} loaded;

/* Full path of a shared BVH named in the CSV: bvh/<name>, else bvh/derived/<name>. */
static int find_bvh(const char *name, char *out, size_t n)
{
    const char *subs[] = {"", "derived/"};
    for (int i = 0; i < 2; ++i) {
        snprintf(out, n, "%s/data/bvh/%s%s", MB_SHARED_DIR, subs[i], name);
        FILE *f = fopen(out, "rb");
        if (f) {
            fclose(f);
            return 1;
        }
    }
    return 0;
}

static double rest_height(const mb_skeleton *s, mb_xform *pose, float (*world)[16], int n)
{
    mb_pose p = {pose, n};
    cr_assert_eq(mb_skeleton_rest_pose(s, p), MB_OK);
    cr_assert_eq(mb_fk(s, &p, world, n), MB_OK);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 3; ++k) {
            double v = world[j][12 + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    double d2 = 0.0;
    for (int k = 0; k < 3; ++k)
        d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return sqrt(d2);
}

static void load_path(const char *path, loaded *L)
{
    mb_error err;
    char msg[600];
    memset(L, 0, sizeof *L);
    mb_status st = mb_bvh_read_file(path, NULL, &L->s, &L->c, &err);
    cr_assert_eq(st, MB_OK, "%s", mb_error_format(&err, msg, sizeof msg));
    L->n = mb_skeleton_joint_count(L->s);
    L->pose = malloc((size_t)L->n * sizeof *L->pose);
    L->world = malloc((size_t)L->n * sizeof *L->world);
    cr_assert(L->pose && L->world);
    L->height = rest_height(L->s, L->pose, L->world, L->n);
}

static void load_rel(const char *rel, loaded *L)
{
    char r[512];
    snprintf(r, sizeof r, "bvh/%s", rel);
    load_path(mb_shared_path(r), L);
}

static void unload(loaded *L)
{
    mb_skeleton_destroy(L->s);
    mb_clip_destroy(L->c);
    free(L->pose);
    free(L->world);
    memset(L, 0, sizeof *L);
}

/* World matrices of one frame into L->world. */
static void fk_frame(loaded *L, int frame)
{
    mb_pose p = {L->pose, L->n};
    cr_assert_eq(mb_clip_frame_pose(L->s, L->c, frame, p), MB_OK, "frame %d", frame);
    cr_assert_eq(run_fk(L->s, &p, L->world, L->n), MB_OK);
}

/* ---------- the oracle CSV ---------- */

/* Splits a CSV line in place into at most max fields; returns the count. */
static int split_csv(char *line, char **fields, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        fields[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return n;
}

static void oracle_csv(void)
{
    const char *csv = mb_shared_path("bvh/expected_fk.csv");
    FILE *f = fopen(csv, "r");
    cr_assert(f != NULL);
    char line[1024];
    long data_rows = 0, checked = 0, failed = 0;
    int saw_header = 0;
    char cur_file[256] = "";
    int cur_frame = -1, have = 0;
    loaded L;
    memset(&L, 0, sizeof L);
    double worst_rel = 0.0;
    char worst[512] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (!saw_header) {
            cr_assert_str_eq(line, "file,frame,joint_index,joint_name,x,y,z",
                             "unexpected CSV header");
            saw_header = 1;
            continue;
        }
        data_rows++;
        char *fld[8];
        int nf = split_csv(line, fld, 8);
        cr_expect_eq(nf, 7, "CSV row %ld has %d fields", data_rows, nf);
        if (nf != 7)
            continue;
        if (strcmp(fld[0], cur_file) != 0) {
            if (have)
                unload(&L);
            have = 0;
            /* A file name longer than the buffer cannot name a shared file: fail, not cut. */
            cr_assert_lt(strlen(fld[0]), sizeof cur_file, "file name too long in CSV row %ld", data_rows);
            memcpy(cur_file, fld[0], strlen(fld[0]) + 1);
            cur_frame = -1;
            char path[4096];
            int found = find_bvh(cur_file, path, sizeof path);
            cr_expect(found, "%s (named in expected_fk.csv) not found in bvh/ or bvh/derived/",
                      cur_file);
            if (!found)
                continue;
            load_path(path, &L);
            have = 1;
        }
        if (!have)
            continue;
        int frame = atoi(fld[1]), joint = atoi(fld[2]);
        if (frame < 0 || frame >= mb_clip_frame_count(L.c) || joint < 0 || joint >= L.n) {
            cr_expect_fail("%s: frame %d joint %d out of range (%d frames, %d joints)", cur_file,
                           frame, joint, mb_clip_frame_count(L.c), L.n);
            continue;
        }
        if (frame != cur_frame) {
            fk_frame(&L, frame);
            cur_frame = frame;
        }
        cr_expect_str_eq(mb_skeleton_name(L.s, joint), fld[3], "%s joint %d", cur_file, joint);
        double want[3] = {strtod(fld[4], NULL), strtod(fld[5], NULL), strtod(fld[6], NULL)};
        double d2 = 0.0;
        for (int k = 0; k < 3; ++k) {
            double e = (double)L.world[joint][12 + k] - want[k];
            d2 += e * e;
        }
        double dist = sqrt(d2), tol = 1e-4 * L.height + 1e-4;
        if (dist > tol) {
            failed++;
            cr_expect_fail("%s frame %d %s: (%.6f %.6f %.6f), oracle (%.6f %.6f %.6f), "
                           "distance %.3g > %.3g",
                           cur_file, frame, fld[3], L.world[joint][12], L.world[joint][13],
                           L.world[joint][14], want[0], want[1], want[2], dist, tol);
        }
        if (dist / L.height > worst_rel) {
            worst_rel = dist / L.height;
            snprintf(worst, sizeof worst, "%s frame %d %s", cur_file, frame, fld[3]);
        }
        checked++;
    }
    fclose(f);
    if (have)
        unload(&L);
    cr_log_info("expected_fk.csv: %ld rows checked, %ld failed; worst %.3g x height at %s",
                checked, failed, worst_rel, worst);
    cr_assert(saw_header, "no header in expected_fk.csv");
    cr_expect_gt(data_rows, 2000, "only %ld data rows in expected_fk.csv", data_rows);
    cr_expect_eq(checked, data_rows, "checked %ld of %ld CSV rows (none may be skipped)",
                 checked, data_rows);
}

Test(fk, matches_oracle_csv)
{
    oracle_csv();
}

/* Every kernel this CPU runs against the same oracle rows. */
Test(fk_kernels, every_kernel_matches_oracle_csv)
{
    int ran = 0;
    for (int i = MB_ISA_GENERIC_; i < MB_ISA_COUNT_; ++i) {
        if (!mb_fk_kernel_((mb_isa_)i))
            continue;
        cr_log_info("kernel %s", mb_isa_name_((mb_isa_)i));
        fk_isa = (mb_isa_)i;
        oracle_csv();
        ++ran;
    }
    fk_isa = MB_ISA_AUTO_;
    cr_assert_geq(ran, 1);
}

/* ---------- Euler orders: same motion, different channel layouts ---------- */

#define ORDER_FILES 7
#define ORDER_FRAMES 40

Test(fk, all_orders_agree_with_source)
{
    const char *rels[ORDER_FILES] = {
        "derived/order_XYZ_cmu_02_03_first40.bvh", "derived/order_XZY_cmu_02_03_first40.bvh",
        "derived/order_YXZ_cmu_02_03_first40.bvh", "derived/order_YZX_cmu_02_03_first40.bvh",
        "derived/order_ZXY_cmu_02_03_first40.bvh", "derived/order_ZYX_cmu_02_03_first40.bvh",
        "derived/order_MIXED_rootrotfirst_cmu_02_03_first40.bvh"};
    loaded ref;
    load_rel("cmu_02_03_run.bvh", &ref);
    cr_assert_geq(mb_clip_frame_count(ref.c), ORDER_FRAMES);
    int n = ref.n;
    /* World matrices [file][frame][joint][16]; file ORDER_FILES is the source. */
    size_t per_file = (size_t)ORDER_FRAMES * (size_t)n * 16u;
    float *all = malloc((ORDER_FILES + 1) * per_file * sizeof(float));
    cr_assert(all);
    for (int fr = 0; fr < ORDER_FRAMES; ++fr) {
        fk_frame(&ref, fr);
        memcpy(all + ORDER_FILES * per_file + (size_t)fr * n * 16u, ref.world,
               (size_t)n * sizeof *ref.world);
    }
    for (int i = 0; i < ORDER_FILES; ++i) {
        loaded L;
        load_rel(rels[i], &L);
        int first = 0;
        cr_assert(mb_skeleton_same_topology(L.s, ref.s, &first), "%s: topology differs at %d",
                  rels[i], first);
        cr_assert_eq(mb_clip_frame_count(L.c), ORDER_FRAMES);
        for (int fr = 0; fr < ORDER_FRAMES; ++fr) {
            fk_frame(&L, fr);
            memcpy(all + (size_t)i * per_file + (size_t)fr * n * 16u, L.world,
                   (size_t)n * sizeof *L.world);
        }
        unload(&L);
    }
    /* Every pair (each file against the source and against each other). */
    double tol_pos = 1e-4 * ref.height, tol_rot = 1e-4, worst_pos = 0.0, worst_rot = 0.0;
    for (int a = 0; a <= ORDER_FILES; ++a)
        for (int b = a + 1; b <= ORDER_FILES; ++b) {
            int bad = 0;
            for (size_t k = 0; k < (size_t)ORDER_FRAMES * (size_t)n; ++k) {
                const float *ma = all + (size_t)a * per_file + 16u * k;
                const float *mb = all + (size_t)b * per_file + 16u * k;
                double d2 = 0.0, dr = 0.0;
                for (int e = 0; e < 3; ++e)
                    d2 += ((double)ma[12 + e] - mb[12 + e]) * ((double)ma[12 + e] - mb[12 + e]);
                for (int c = 0; c < 3; ++c)
                    for (int r = 0; r < 3; ++r) {
                        double d = fabs((double)ma[4 * c + r] - mb[4 * c + r]);
                        dr = d > dr ? d : dr;
                    }
                double dp = sqrt(d2);
                worst_pos = dp > worst_pos ? dp : worst_pos;
                worst_rot = dr > worst_rot ? dr : worst_rot;
                if (dp > tol_pos || dr > tol_rot) {
                    if (bad++ < 3)
                        cr_expect_fail("%s vs %s: frame %zu joint %s: position off by %.3g "
                                       "(tol %.3g), rotation entry off by %.3g",
                                       a < ORDER_FILES ? rels[a] : "cmu_02_03_run.bvh",
                                       b < ORDER_FILES ? rels[b] : "cmu_02_03_run.bvh",
                                       k / (size_t)n, mb_skeleton_name(ref.s, (int)(k % (size_t)n)),
                                       dp, tol_pos, dr);
                }
            }
            cr_expect_eq(bad, 0, "%d mismatching joints between file %d and %d", bad, a, b);
        }
    cr_log_info("orders: worst position difference %.3g (%.3g x height), worst rotation entry "
                "%.3g",
                worst_pos, worst_pos / ref.height, worst_rot);
    free(all);
    unload(&ref);
}

/* ---------- hand-computed ---------- */

Test(fk, tiny_arm_hand_computed)
{
    static const struct {
        int frame;
        const char *joint;
        float x, y, z;
    } want[] = {
        {0, "Shoulder", 1, 2, 3},  {0, "Elbow", 1, 6, 3},     {0, "Wrist", 1, 10, 3},
        {0, "Wrist_End", 1, 12, 3}, {1, "Shoulder", 0, 0, 0},  {1, "Elbow", -4, 0, 0},
        {1, "Wrist", -4, 0, 4},    {1, "Wrist_End", -4, 0, 6}, {2, "Shoulder", 0, 0, 0},
        {2, "Elbow", 0, 0, 4},     {2, "Wrist", 0, 0, 8},      {2, "Wrist_End", 0, 0, 10},
    };
    loaded L;
    load_rel("derived/tiny_arm_handcheck.bvh", &L);
    cr_assert_eq(L.n, 4);
    cr_assert_eq(mb_clip_frame_count(L.c), 3);
    int frame = -1;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        if (want[i].frame != frame) {
            frame = want[i].frame;
            fk_frame(&L, frame);
        }
        int j = mb_skeleton_find(L.s, want[i].joint);
        cr_assert(j >= 0, "%s missing", want[i].joint);
        const float *p = &L.world[j][12];
        cr_expect(fabsf(p[0] - want[i].x) < 1e-5f && fabsf(p[1] - want[i].y) < 1e-5f &&
                      fabsf(p[2] - want[i].z) < 1e-5f,
                  "frame %d %s: (%g %g %g), hand-computed (%g %g %g)", frame, want[i].joint,
                  p[0], p[1], p[2], want[i].x, want[i].y, want[i].z);
    }
    unload(&L);
}

/* The documented rest-pose height for one familiar skeleton (a sanity check of the
 * tolerance's scale): the CMU rest pose spans tens of units, not thousands or fractions. */
Test(fk, rest_height_has_a_sane_scale)
{
    loaded L;
    load_rel("cmu_02_03_run.bvh", &L);
    cr_expect(L.height > 10.0 && L.height < 200.0, "height %g", L.height);
    unload(&L);
}

/* ---------- the kernels against an independent double-precision FK ---------- */

/* A random tree of n joints (parent: the previous joint or, one time in three, any earlier
 * one), offsets in [-1, 1]. */
static mb_skeleton *random_tree(int n, uint64_t *rng)
{
    mb_joint_desc *j = calloc((size_t)n, sizeof *j);
    char (*names)[16] = calloc((size_t)n, sizeof *names);
    cr_assert(j && names);
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        j[i].name = names[i];
        j[i].parent = i == 0 ? -1
                      : mb_test_unit(rng) < 0.67 ? i - 1
                                                  : (int)(mb_test_unit(rng) * i);
        for (int k = 0; k < 3; ++k)
            j[i].offset[k] = (float)(mb_test_unit(rng) * 2 - 1);
    }
    mb_skeleton_desc d = {j, n, {0}};
    mb_skeleton *s = NULL;
    cr_assert_eq(mb_skeleton_create(&d, &s, NULL), MB_OK);
    free(j);
    free(names);
    return s;
}

/* World matrices in double for n joints with parents par (-1: a root): rotation of q / |q|
 * (identity for q = 0), row-major 3x4. */
static void fk_double_parents(const int *par, int n, const mb_xform *pose, double (*m)[3][4])
{
    for (int i = 0; i < n; ++i) {
        const float *r = pose[i].rot;
        double q[4] = {r[0], r[1], r[2], r[3]}, n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        double rot[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, l[3][4];
        if (n2 > 0) {
            for (int k = 0; k < 4; ++k)
                q[k] /= sqrt(n2);
            mb_test_quat_rot3(q, rot);
        }
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b)
                l[a][b] = rot[a][b];
            l[a][3] = pose[i].pos[a];
        }
        int p = par[i];
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 4; ++b)
                m[i][a][b] = p < 0 ? l[a][b]
                                   : m[p][a][0] * l[0][b] + m[p][a][1] * l[1][b] +
                                         m[p][a][2] * l[2][b] + (b == 3 ? m[p][a][3] : 0.0);
    }
}

static void fk_double(const mb_skeleton *s, const mb_xform *pose, double (*m)[3][4])
{
    fk_double_parents(mb_skeleton_parents(s), mb_skeleton_joint_count(s), pose, m);
}

/* Sizes around the lane counts (8, 16) and past a chunk (MB_FK_CHUNK_: parents in an
 * earlier chunk); quaternions unit, scaled (0.5 .. 2: FK uses q / |q|), and one zero
 * (the identity). Checks every entry of every world matrix, the last row included. */
Test(fk_kernels, every_kernel_matches_double_fk)
{
    static const int sizes[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 64, 255, 256, 257, 600};
    uint64_t rng = 0xF00DF00Dull;
    int ran[MB_ISA_COUNT_] = {0};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        int n = sizes[si];
        mb_skeleton *s = random_tree(n, &rng);
        mb_xform *pose = calloc((size_t)n, sizeof *pose);
        float(*w)[16] = malloc((size_t)n * sizeof *w);
        double(*m)[3][4] = malloc((size_t)n * sizeof *m);
        cr_assert(pose && w && m);
        for (int i = 0; i < n; ++i) {
            double q[4], len = 0, scale = i % 3 == 0 ? 1.0 : 0.5 + 1.5 * mb_test_unit(&rng);
            for (int k = 0; k < 4; ++k) {
                q[k] = mb_test_unit(&rng) * 2 - 1;
                len += q[k] * q[k];
            }
            for (int k = 0; k < 4; ++k)
                pose[i].rot[k] = i == n / 2 && n > 4 ? 0.0f : (float)(q[k] / sqrt(len) * scale);
            memcpy(pose[i].pos, mb_skeleton_offset(s, i), sizeof pose[i].pos);
        }
        fk_double(s, pose, m);
        mb_pose p = {pose, n};
        for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
            if (!mb_fk_kernel_((mb_isa_)isa)) {
                cr_assert_eq(mb_fk_isa_(s, &p, w, n, (mb_isa_)isa), MB_INVALID_ARG);
                continue;
            }
            memset(w, 0xFF, (size_t)n * sizeof *w); /* NaN: every entry must be written */
            cr_assert_eq(mb_fk_isa_(s, &p, w, n, (mb_isa_)isa), MB_OK);
            ++ran[isa];
            double worst = 0;
            for (int i = 0; i < n; ++i) {
                for (int a = 0; a < 3; ++a)
                    for (int b = 0; b < 4; ++b) {
                        /* column-major float[16]: entry (row a, column b) at 4b + a */
                        double e = fabs(w[i][4 * b + a] - m[i][a][b]);
                        worst = e > worst || e != e ? e : worst;
                    }
                cr_assert(w[i][3] == 0.0f && w[i][7] == 0.0f && w[i][11] == 0.0f &&
                              w[i][15] == 1.0f,
                          "%s n %d joint %d: last row (%g %g %g %g)", mb_isa_name_((mb_isa_)isa),
                          n, i, w[i][3], w[i][7], w[i][11], w[i][15]);
            }
            if (n == 600)
                cr_log_info("%s n %d: worst %.3g", mb_isa_name_((mb_isa_)isa), n, worst);
            /* chains of unit-scale rotations and offsets: positions stay within a few
             * units, float rounding compounds along the chain (depth up to ~n) */
            cr_assert(worst < 2e-6 * (1 + n / 64), "%s n %d: worst %g", mb_isa_name_((mb_isa_)isa),
                      n, worst);
        }
        /* the public function is one of the kernels */
        float(*w2)[16] = malloc((size_t)n * sizeof *w2);
        cr_assert(w2);
        cr_assert_eq(mb_fk(s, &p, w2, n), MB_OK);
        cr_assert_eq(mb_fk_isa_(s, &p, w, n, MB_ISA_AUTO_), MB_OK);
        cr_assert(memcmp(w, w2, (size_t)n * sizeof *w) == 0);
        free(w2);
        free(pose);
        free(w);
        free(m);
        mb_skeleton_destroy(s);
    }
    cr_assert_gt(ran[MB_ISA_GENERIC_], 0); /* test_cpu checks which kernels exist */
}

/* The largest entry difference between float world matrices w and double ones m (NaN:
 * infinite), failing on a last row other than (0 0 0 1). */
static double fk_worst(const float (*w)[16], const double (*m)[3][4], int n)
{
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 4; ++b) {
                double e = fabs(w[i][4 * b + a] - m[i][a][b]);
                worst = e > worst || e != e ? (e != e ? INFINITY : e) : worst;
            }
        cr_assert(w[i][3] == 0.0f && w[i][7] == 0.0f && w[i][11] == 0.0f && w[i][15] == 1.0f,
                  "joint %d: last row (%g %g %g %g)", i, w[i][3], w[i][7], w[i][11], w[i][15]);
    }
    return worst;
}

/* The AVX-512 kernel stores a matrix differently by the output's address modulo 64 (0, 32:
 * one 512-bit store; 16, 48: three stores that cross no cache line) and skips the product
 * for roots: every kernel, at every 16-byte (and one 4-byte) offset from a cache line, on
 * forests (roots anywhere in a 16-joint block: mb_skeleton has one root, the kernels
 * take any parents[i] < 0) against the double FK; nothing written past the n matrices. */
Test(fk_kernels, every_kernel_at_every_output_alignment)
{
    static const int sizes[] = {5, 16, 37, 64, 256};
    static const int offsets[] = {0, 4, 16, 32, 48}; /* bytes past a 64-byte boundary */
    uint64_t rng = 0xA11A11ull;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        int n = sizes[si];
        int *par = malloc((size_t)n * sizeof *par);
        mb_xform *pose = calloc((size_t)n, sizeof *pose);
        double(*m)[3][4] = malloc((size_t)n * sizeof *m);
        float *buf = aligned_alloc(64, (size_t)(n + 2) * 16 * sizeof(float));
        cr_assert(par && pose && m && buf);
        for (int i = 0; i < n; ++i) {
            double q[4], len = 0;
            par[i] = i == 0 || mb_test_unit(&rng) < 0.1 ? -1
                     : mb_test_unit(&rng) < 0.67      ? i - 1
                                                      : (int)(mb_test_unit(&rng) * i);
            for (int k = 0; k < 4; ++k) {
                q[k] = mb_test_unit(&rng) * 2 - 1;
                len += q[k] * q[k];
            }
            for (int k = 0; k < 4; ++k)
                pose[i].rot[k] = (float)(q[k] / sqrt(len));
            for (int k = 0; k < 3; ++k)
                pose[i].pos[k] = (float)(mb_test_unit(&rng) * 2 - 1);
        }
        fk_double_parents(par, n, pose, m);
        for (int isa = MB_ISA_GENERIC_; isa < MB_ISA_COUNT_; ++isa) {
            mb_fk_kernel_fn_ kernel = mb_fk_kernel_((mb_isa_)isa);
            if (!kernel)
                continue;
            for (size_t oi = 0; oi < sizeof offsets / sizeof offsets[0]; ++oi) {
                float(*w)[16] = (float(*)[16])(void *)(buf + offsets[oi] / 4);
                memset(buf, 0xFF, (size_t)(n + 2) * 16 * sizeof(float));
                kernel(par, pose, n, w);
                double worst = fk_worst((const float(*)[16])w, (const double(*)[3][4])m, n);
                cr_assert(worst < 2e-6 * (1 + n / 64), "%s n %d offset %d: worst %g",
                          mb_isa_name_((mb_isa_)isa), n, offsets[oi], worst);
                const unsigned char *tail = (const unsigned char *)(w + n);
                for (size_t b = 0; b < (size_t)(16 * sizeof(float)); ++b)
                    cr_assert_eq(tail[b], 0xFF, "%s n %d offset %d: wrote past the output",
                                 mb_isa_name_((mb_isa_)isa), n, offsets[oi]);
            }
        }
        free(buf);
        free(m);
        free(pose);
        free(par);
    }
}

/* Short views and missing arguments fail before anything is written. */
Test(fk, rejects_bad_views)
{
    uint64_t rng = 7;
    mb_skeleton *s = random_tree(5, &rng);
    mb_xform pose[5];
    float w[5][16];
    mb_pose p = {pose, 5};
    cr_assert_eq(mb_skeleton_rest_pose(s, p), MB_OK);
    memset(w, 0, sizeof w);
    cr_assert_eq(mb_fk(s, &p, w, 4), MB_TOO_SMALL);
    mb_pose shortp = {pose, 4};
    cr_assert_eq(mb_fk(s, &shortp, w, 5), MB_TOO_SMALL);
    cr_assert_eq(mb_fk(NULL, &p, w, 5), MB_INVALID_ARG);
    cr_assert_eq(mb_fk(s, NULL, w, 5), MB_INVALID_ARG);
    cr_assert_eq(mb_fk(s, &p, NULL, 5), MB_INVALID_ARG);
    for (int i = 0; i < 5; ++i)
        for (int k = 0; k < 16; ++k)
            cr_assert_eq(w[i][k], 0.0f);
    cr_assert_eq(mb_fk_isa_(s, &p, w, 5, MB_ISA_SSE2_), MB_INVALID_ARG); /* no SSE2 kernel */
    cr_assert_eq(mb_fk_isa_(s, &p, w, 5, MB_ISA_COUNT_), MB_INVALID_ARG);
    mb_skeleton_destroy(s);
}
