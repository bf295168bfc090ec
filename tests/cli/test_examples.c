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
