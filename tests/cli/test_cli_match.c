/* mblend match, run as a separate process: the best pairs it prints, glTF inputs, usage
 * and input errors (the search itself is tested in tests/lib/test_match.c). */
#include <stdio.h>
#include <unistd.h>

#include "mblend/mblend.h"
#include "test_cli_util.h"
#include "test_util.h"


Test(cli_match, prints_the_best_pairs)
{
    need_cli();
    char dir[] = "/tmp/mb_test_match_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char log[128], a[4096], b[4096];
    snprintf(log, sizeof log, "%s/stdout", dir);
    snprintf(a, sizeof a, "%s", mb_shared_path("bvh/cmu_02_03_run.bvh"));
    snprintf(b, sizeof b, "%s", mb_shared_path("bvh/cmu_02_01_walk.bvh"));
    cr_assert_eq(RUN_TO(log, "match", a, b, "-k", "3", "--window", "0.3", "--stats"), 0);
    FILE *f = fopen(log, "r");
    char line[512];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, "rank,a_frame,a_time,b_frame,b_time,cost,theta_deg,dx,dz\n");
    double prev = 0.0;
    for (int k = 1; k <= 3; ++k) {
        cr_assert_not_null(fgets(line, sizeof line, f), "row %d missing", k);
        int rank, fa, fb;
        double ta, tb, cost;
        cr_assert_eq(sscanf(line, "%d,%d,%lf,%d,%lf,%lf", &rank, &fa, &ta, &fb, &tb, &cost), 6, "%s", line);
        cr_assert_eq(rank, k);
        cr_assert(fa >= 1 && fb >= 1, "the T-pose frame 0 is skipped");
        cr_assert_geq(cost, prev);
        prev = cost;
    }
    cr_assert_null(fgets(line, sizeof line, f));
    fclose(f);
    /* glTF animations, as the other commands take them (match once read only BVH and
     * called a .glb#Walk spec a missing file) */
    if (mb_scene_supported()) {
        char fa[4200], fb[4200];
        snprintf(fa, sizeof fa, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
        snprintf(fb, sizeof fb, "%s#Run", mb_shared_path("mesh/Fox.glb"));
        cr_assert_eq(RUN_TO(log, "match", fa, fb, "-k", "1"), 0);
        f = fopen(log, "r");
        cr_assert_not_null(fgets(line, sizeof line, f));
        cr_assert_str_eq(line, "rank,a_frame,a_time,b_frame,b_time,cost,theta_deg,dx,dz\n");
        cr_assert_not_null(fgets(line, sizeof line, f));
        fclose(f);
    }
    cr_assert_eq(RUN_TO(log, "match", a), 1);
    cr_assert_eq(RUN_TO(log, "match", a, b, "-k", "0"), 1);
    cr_assert_eq(RUN_TO(log, "match", a, b, "--a-range", "2:1"), 1);
    cr_assert_eq(RUN_TO(log, "match", a, "/nonexistent.bvh"), 2);
    cr_assert_eq(RUN_TO(log, "match", a, mb_shared_path("bvh/bandai2_walk_normal_001.bvh")), 2);
    cr_assert_eq(RUN_TO(log, "match", a, b, "--window", "9"), 2);
    remove(log);
    rmdir(dir);
}
