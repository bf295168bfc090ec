/* Files mblend writes, read by other readers. three.js's BVHLoader (Debian's libjs-three,
 * run by node: tests/js/three_bvh_positions.js) ADDS a joint's OFFSET to its position
 * channels where mblend, assimp and Blender replace it; a BVH written from a glTF must place
 * every joint in three.js where `mblend positions` places it in the source. These tests
 * fail, never skip, when node or three.js is missing: scripts/setup.sh installs both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "test_cli_util.h"
#include "test_util.h"

#define THREE_DIR "/usr/share/javascript/three"
#define THREE_SCRIPT MB_PROJECT_DIR "/tests/js/three_bvh_positions.js"

/* node on PATH (Debian's nodejs installs node and nodejs), into buf; fails the test when
 * there is none. */
static const char *find_node(char *buf, size_t size)
{
    const char *path = getenv("PATH");
    static const char *const names[] = {"node", "nodejs"};
    for (int n = 0; n < 2; ++n) {
        const char *p = path ? path : "/usr/bin";
        while (*p) {
            size_t len = strcspn(p, ":");
            snprintf(buf, size, "%.*s/%s", (int)len, p, names[n]);
            if (len > 0 && access(buf, X_OK) == 0)
                return buf;
            p += len + (p[len] == ':');
        }
    }
    cr_assert_fail("node is not installed: scripts/setup.sh installs Debian's nodejs and "
                   "libjs-three for this test");
    return NULL;
}

/* One CSV of world positions (frame,joint_index,joint_name,x,y,z). */
typedef struct positions {
    int n;
    int frame[20000];
    char name[20000][64];
    double p[20000][3];
} positions;

static positions *read_positions(const char *path)
{
    positions *ps = calloc(1, sizeof *ps);
    cr_assert_not_null(ps);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char line[512];
    cr_assert_not_null(fgets(line, sizeof line, f), "%s is empty", path);
    cr_assert(strncmp(line, "frame,joint_index,joint_name,x,y,z", 34) == 0, "%s: header %s", path,
              line);
    while (fgets(line, sizeof line, f)) {
        cr_assert_lt(ps->n, 20000, "%s: too many rows for the test", path);
        int j, i = ps->n;
        cr_assert_eq(sscanf(line, "%d,%d,%63[^,],%lf,%lf,%lf", &ps->frame[i], &j, ps->name[i],
                            &ps->p[i][0], &ps->p[i][1], &ps->p[i][2]), 6,
                     "%s: bad row %s", path, line);
        ps->n++;
    }
    fclose(f);
    return ps;
}

/* Every row of want that is not an End Site (named <parent>_End) has a row of got with the
 * same frame and name, within tol; returns the largest distance. */
static double compare_positions(const positions *want, const positions *got, double tol,
                                const char *what)
{
    double worst = 0.0;
    int matched = 0;
    for (int i = 0; i < want->n; ++i) {
        size_t len = strlen(want->name[i]);
        if (len > 4 && strcmp(want->name[i] + len - 4, "_End") == 0)
            continue;
        int k = 0;
        while (k < got->n && (got->frame[k] != want->frame[i] || strcmp(got->name[k], want->name[i])))
            ++k;
        cr_assert_lt(k, got->n, "%s: joint %s of frame %d is missing", what, want->name[i],
                     want->frame[i]);
        double d = sqrt(pow(got->p[k][0] - want->p[i][0], 2) + pow(got->p[k][1] - want->p[i][1], 2) +
                        pow(got->p[k][2] - want->p[i][2], 2));
        cr_assert(d <= tol, "%s: joint %s of frame %d is %g off (%g %g %g, want %g %g %g)", what,
                  want->name[i], want->frame[i], d, got->p[k][0], got->p[k][1], got->p[k][2],
                  want->p[i][0], want->p[i][1], want->p[i][2]);
        worst = fmax(worst, d);
        ++matched;
    }
    cr_assert_gt(matched, 0, "%s: nothing compared", what);
    return worst;
}

/* The largest coordinate magnitude: the scale of the tolerance. */
static double extent(const positions *ps)
{
    double e = 0.0;
    for (int i = 0; i < ps->n; ++i)
        for (int k = 0; k < 3; ++k)
            e = fmax(e, fabs(ps->p[i][k]));
    return e;
}

/* spec (a glTF animation) -> BVH; three.js's positions of that BVH, and mblend's of both the
 * BVH and spec, agree to 1e-5 of the body's extent (float text; the old BVH was 43 units off
 * on Fox in three.js, its OFFSET added to absolute hip positions). */
static void check_three_reads_as_mblend(const char *spec, const char *tag)
{
    need_cli();
    char node[4096];
    find_node(node, sizeof node);
    cr_assert(access(THREE_DIR "/three.js", R_OK) == 0 &&
                  access(THREE_DIR "/examples/js/loaders/BVHLoader.js", R_OK) == 0,
              "three.js is not installed in " THREE_DIR ": scripts/setup.sh installs libjs-three");
    const char *d = mb_test_scratch(tag);
    char bvh[4200], three_csv[4200], src_csv[4200], back_csv[4200];
    snprintf(bvh, sizeof bvh, "%s/out.bvh", d);
    snprintf(three_csv, sizeof three_csv, "%s/three.csv", d);
    snprintf(src_csv, sizeof src_csv, "%s/src.csv", d);
    snprintf(back_csv, sizeof back_csv, "%s/back.csv", d);
    cr_assert_eq(RUN_TO(NULL, "convert", spec, "-o", bvh), 0);
    cr_assert_eq(RUN_TO(src_csv, "positions", spec), 0);
    cr_assert_eq(RUN_TO(back_csv, "positions", bvh), 0);
    char err_path[4200];
    snprintf(err_path, sizeof err_path, "%s/node.err", d);
    int code = mb_test_exec(node, (const char *const[]){THREE_SCRIPT, bvh, THREE_DIR, NULL},
                            three_csv, err_path);
    char *err = mb_test_slurp(err_path, NULL);
    cr_assert_eq(code, 0, "three.js could not read %s: %s", bvh, err ? err : "");
    free(err);
    positions *src = read_positions(src_csv), *three = read_positions(three_csv),
              *back = read_positions(back_csv);
    double tol = 1e-5 * extent(src);
    double w3 = compare_positions(src, three, tol, "three.js");
    double wb = compare_positions(src, back, tol, "mblend reading the BVH");
    cr_log_info("%s: three.js within %g, mblend within %g (tolerance %g)", spec, w3, wb, tol);
    free(src);
    free(three);
    free(back);
    mb_test_remove_dir(d);
}

Test(cli_readers, three_js_reads_fox_walk_bvh_as_mblend)
{
    mb_test_need_assimp();
    char spec[4200];
    snprintf(spec, sizeof spec, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    check_three_reads_as_mblend(spec, "three_fox");
}

Test(cli_readers, three_js_reads_cesium_man_bvh_as_mblend)
{
    mb_test_need_assimp();
    check_three_reads_as_mblend(mb_shared_path("mesh/CesiumMan.glb"), "three_cesium");
}
