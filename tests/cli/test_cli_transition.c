/* mblend transition (and a blend of two-actor files), run as a separate process: the
 * sequence and report it writes, usage and input errors, a second actor carried along with
 * the first's root motion (transitions themselves: tests/lib/test_transition.c). */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "mblend/mblend.h"
#include "test_actors.h"
#include "test_cli_util.h"
#include "test_util.h"

Test(cli_transition, writes_sequence_and_report)
{
    need_cli();
    char dir[] = "/tmp/mb_test_transition_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char outp[128], rep[128], log[128], a[4096], b[4096];
    snprintf(outp, sizeof outp, "%s/out.bvh", dir);
    snprintf(rep, sizeof rep, "%s/r.csv", dir);
    snprintf(log, sizeof log, "%s/stdout", dir);
    snprintf(a, sizeof a, "%s", mb_shared_path("bvh/cmu_02_03_run.bvh"));
    snprintf(b, sizeof b, "%s", mb_shared_path("bvh/cmu_02_01_walk.bvh"));
    cr_assert_eq(RUN_TO(log, "transition", a, b, "--at", "auto", "--duration", "0.4", "--sync", "--report", rep, "-o", outp), 0);
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(outp, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    int nf = mb_clip_frame_count(c);
    cr_assert_gt(nf, 150);
    char *r = mb_test_slurp(rep, NULL);
    cr_assert(strncmp(r, "frame,time,weight_a,weight_b,", 29) == 0);
    cr_assert(strstr(r, "# summary,root_step_ratio,"));
    cr_assert(strstr(r, "# summary,angular_speed_ratio,"));
    cr_assert(strstr(r, "# summary,foot_skate_ratio,"));
    int lines = 0;
    for (char *p = r; *p; ++p)
        lines += *p == '\n';
    cr_assert_eq(lines, 1 + nf + 4, "header, one line per frame, four summary lines");
    /* weights go from all A to all B */
    cr_assert(strstr(r, "\n0,0.000000,1.000000,0.000000,"));
    free(r);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    /* usage errors exit 1, input errors 2 */
    cr_assert_eq(RUN_TO(log, "transition", a, b, "--duration", "0.4", "-o", outp), 1);
    cr_assert_eq(RUN_TO(log, "transition", a, b, "--at", "auto", "--duration", "0", "-o", outp), 1);
    cr_assert_eq(RUN_TO(log, "transition", a, b, "--at", "auto", "--duration", "0.4", "--mode", "pop", "-o", outp), 1);
    cr_assert_eq(RUN_TO(log, "transition", a, "/nonexistent.bvh", "--at", "auto", "--duration", "0.4", "-o", outp), 2);
    cr_assert_eq(RUN_TO(log, "transition", a, b, "--at", "1.4", "--duration", "0.4", "-o", outp), 2);
    cr_assert_eq(RUN_TO(log, "transition", a, b, "--at", "0.5", "--b-start", "1.0", "--duration", "0.3", "--mode",
                     "inertialize", "-o", outp),
                 0);
    cr_assert_eq(RUN_TO(log, "transition", "--help"), 0);
    char *h = mb_test_slurp(log, NULL);
    cr_assert(strncmp(h, "usage: mblend transition", 24) == 0);
    free(h);
    remove(outp);
    remove(rep);
    remove(log);
    rmdir(dir);
}

/* The second actor must move with the first's root motion: a transition and a blend put it
 * where it stands relative to the first actor in the source, never in the clips' raw
 * coordinates (where it jumped by tens of units as A's time met B's, or sat between the
 * inputs' far-apart places in a blend). */
Test(cli_transition, second_actor_moves_with_the_root)
{
    need_cli();
    char *src = mb_test_slurp(mb_shared_path("bvh/cmu_02_01_walk.bvh"), NULL);
    size_t n, n2;
    char *two = two_actor_text(src, 0.0, 0, &n), *moved = two_actor_text(src, 500.0, 0, &n2);
    char dir[] = "/tmp/mb_test_actors_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char in[128], in_moved[128], outp[128], log[128];
    snprintf(in, sizeof in, "%s/two.bvh", dir);
    snprintf(in_moved, sizeof in_moved, "%s/moved.bvh", dir);
    snprintf(outp, sizeof outp, "%s/out.bvh", dir);
    snprintf(log, sizeof log, "%s/stdout", dir);
    mb_test_write(in, two, n);
    mb_test_write(in_moved, moved, n2);
    cr_assert_eq(RUN_TO(log, "transition", in, in, "--at", "1.5", "--b-start", "0.3", "--duration",
                        "0.3", "-o", outp),
                 0);
    mb_skeleton *s;
    mb_clip *c;
    mb_error e;
    cr_assert_eq(mb_bvh_read_file(outp, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    int ja = mb_skeleton_find(s, "A_Hips"), jb = mb_skeleton_find(s, "B_Hips");
    cr_assert(ja > 0 && jb > 0 && mb_skeleton_is_roots_group(s, 0));
    float *pos = positions(s, c);
    double step_a = 0, step_b = 0;
    for (int k = 1; k < nf; ++k) {
        double da = dist(P3(pos, nj, k, ja), P3(pos, nj, k - 1, ja), -1);
        double db = dist(P3(pos, nj, k, jb), P3(pos, nj, k - 1, jb), -1);
        step_a = da > step_a ? da : step_a;
        step_b = db > step_b ? db : step_b;
    }
    cr_expect_lt(step_b, 10.0 * step_a, "B's root jumps by %g per frame (A's at most %g)", step_b,
                 step_a);
    /* before the transition (at 1.5 s, frame 180) and after it (it ends by frame 230): as
     * far apart as in the source */
    for (int k = 0; k < nf; k = k == 150 ? nf - 80 : k + 1)
        cr_expect(fabs(dist(P3(pos, nj, k, ja), P3(pos, nj, k, jb), -1) - 200.0) < 0.05,
                  "frame %d of %d: the actors are %g apart", k, nf,
                  dist(P3(pos, nj, k, ja), P3(pos, nj, k, jb), -1));
    free(pos);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    /* a blend of the file with a later stretch of a copy 500 units away: the second actor
     * is blended in the first's heading frame, so it stays about 200 away (the stretches'
     * headings differ a little, which shortens the blended offset by up to 0.25) */
    char in1[160], in2[160];
    snprintf(in1, sizeof in1, "%s@0:150", in);
    snprintf(in2, sizeof in2, "%s@120:270", in_moved);
    cr_assert_eq(RUN_TO(log, "blend", in1, in2, "--cycle", "none", "-o", outp), 0);
    cr_assert_eq(mb_bvh_read_file(outp, NULL, &s, &c, &e), MB_OK, "%s", e.text);
    nj = mb_skeleton_joint_count(s);
    nf = mb_clip_frame_count(c);
    pos = positions(s, c);
    for (int k = 0; k < nf; ++k)
        cr_expect(fabs(dist(P3(pos, nj, k, ja), P3(pos, nj, k, jb), -1) - 200.0) < 0.5,
                  "blend frame %d: the actors are %g apart", k,
                  dist(P3(pos, nj, k, ja), P3(pos, nj, k, jb), -1));
    free(pos);
    free(two);
    free(moved);
    free(src);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    remove(in);
    remove(in_moved);
    remove(outp);
    remove(log);
    rmdir(dir);
}
