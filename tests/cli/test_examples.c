/* The shipped examples, run as built programs (they come with MB_BUILD_TOOLS). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "test_util.h"

#define EXAMPLE MB_BINARY_DIR "/tools/examples/mblend_example_game_loop"

/* The game-loop example runs on the shipped clips: it stands, walks, runs at the run's
 * speed, walks again and stops, moving forward all along. */
Test(controller, game_loop_example_runs)
{
    if (access(EXAMPLE, X_OK) != 0) /* the tools are optional (MB_BUILD_TOOLS) */
        cr_skip_test("%s not built (MB_BUILD_TOOLS=OFF?)", EXAMPLE);
    FILE *f = popen(EXAMPLE " 2>/dev/null", "r");
    cr_assert_not_null(f);
    char line[512];
    int rows = 0, saw_idle = 0, saw_loco = 0;
    double speed_at_6 = -1.0, speed_at_3 = -1.0, last_x = 0.0, last_z = 0.0, run_speed = 0.0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            double w, r;
            if (sscanf(line, "# walk %lf, run %lf", &w, &r) == 2)
                run_speed = r;
            continue;
        }
        double t, wi, wl, param, phase, speed, sx, sz, turn, x, z, hd;
        char state[32];
        if (sscanf(line, "%lf,%31[^,],%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &t, state, &wi, &wl, &param,
                   &phase, &speed, &sx, &sz, &turn, &x, &z, &hd) != 13)
            continue;
        ++rows;
        saw_idle |= strncmp(state, "idle", 4) == 0;
        saw_loco |= strncmp(state, "locomotion", 10) == 0;
        cr_assert_float_eq(wi + wl, 1.0, 0.011, "weights at %g", t);
        if (fabs(t - 3.0) < 1e-6)
            speed_at_3 = speed;
        if (fabs(t - 6.0) < 1e-6)
            speed_at_6 = speed;
        last_x = x;
        last_z = z;
    }
    int st = pclose(f);
    cr_assert_eq(st, 0, "the example failed (built?)");
    cr_assert_gt(rows, 40);
    cr_assert(saw_idle && saw_loco);
    cr_assert(speed_at_6 > 1.8 * speed_at_3, "runs faster than it walks: %g vs %g", speed_at_6, speed_at_3);
    cr_assert_float_eq(speed_at_6, run_speed, 0.15 * run_speed);
    cr_assert_gt(hypot(last_x, last_z), 1000.0, "the character travelled");
}

#define CROWD MB_BINARY_DIR "/tools/examples/mblend_example_crowd"

/* Runs the crowd example briefly; returns its checksum line's value and checks the rows. */
static unsigned long long run_crowd(int threads, int characters, int frames)
{
    char cmd[600], line[512];
    snprintf(cmd, sizeof cmd, CROWD " --characters %d --frames %d --threads %d 2>&1", characters, frames, threads);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    int rows = 0, summary = 0;
    unsigned long long sum = 0;
    int have_sum = 0;
    double median = -1.0, speed_sum = 0.0;
    while (fgets(line, sizeof line, f)) {
        int frame;
        double ms, speed;
        if (sscanf(line, "%d,%lf,%lf", &frame, &ms, &speed) == 3) {
            cr_assert_eq(frame, rows, "rows in order: %s", line);
            cr_assert(ms >= 0.0 && ms < 60000.0, "%s", line);
            if (frame > 0)
                speed_sum += speed;
            ++rows;
        } else if (sscanf(line, "# frame ms: median %lf", &median) == 1) {
            summary = 1;
        } else if (sscanf(line, "# checksum %llx", &sum) == 1) {
            have_sum = 1;
        }
    }
    cr_assert_eq(pclose(f), 0, "the crowd example failed (threads %d)", threads);
    cr_assert_eq(rows, frames);
    cr_assert(summary && median >= 0.0 && have_sum, "summary and checksum printed");
    /* the crowd moves at speeds between the walk's (140 cm/s) and the run's (350) */
    double mean = speed_sum / (frames - 1);
    cr_assert(mean > 140.0 && mean < 350.0, "mean speed %g", mean);
    return sum;
}

/* The crowd example runs (a few hundred characters, briefly), its characters move, and its
 * result does not depend on the thread count. */
Test(controller, crowd_example_runs_and_threads_change_nothing)
{
    if (access(CROWD, X_OK) != 0)
        cr_skip_test("%s not built (MB_BUILD_TOOLS=OFF?)", CROWD);
    unsigned long long one = run_crowd(1, 300, 30), two = run_crowd(2, 300, 30), three = run_crowd(3, 300, 30);
    cr_assert_eq(one, two, "1 vs 2 threads: %016llx vs %016llx", one, two);
    cr_assert_eq(one, three);
    cr_assert_neq(run_crowd(2, 301, 30), one, "the checksum depends on the crowd");
}
