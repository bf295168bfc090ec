/* A game loop driving one character with the runtime controller (mblend/runtime/controller.h).
 *
 *   mblend_example_game_loop [walk.bvh run.bvh]      (default: the project's data/bvh clips)
 *
 * Two states: "idle" and "locomotion", a 1D blend space of the walk and the run on speed
 * (each clip placed at its own mean speed). The "AI" below wants a speed each frame: stand,
 * walk, run, back to walk, stop. It switches states with requests (an in-phase cross-fade
 * to start moving, an inertialization to stop) and steers the blend with set_param. Each
 * frame the controller returns the pose in place and the root motion of the step, which
 * the game applies to the character's world transform (position on the ground, heading).
 *
 * The shipped clips have no idle motion, so "idle" is the walk's double-support pose held
 * still: good enough to show the transitions. Use your own idle clip in a real game. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mblend/mblend.h>

#ifndef MB_EXAMPLE_DATA_DIR
#define MB_EXAMPLE_DATA_DIR "data/bvh"
#endif

static int die(const char *what, const mb_error *e)
{
    char buf[600];
    fprintf(stderr, "%s: %s\n", what, e ? mb_error_format(e, buf, sizeof buf) : "failed");
    return 1;
}

/* A standing clip: the walk's frame where both feet are lowest, held for one second. */
static mb_clip *make_idle(const mb_skeleton *s, const mb_clip *walk, const mb_motion_info *info)
{
    int n = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(walk);
    mb_xform *p = malloc(sizeof *p * n);
    float(*w)[16] = malloc(sizeof *w * n);
    int best = info->first_frame;
    float best_h = INFINITY;
    for (int f = info->first_frame; f < nf; ++f) {
        mb_pose pose = {p, n};
        mb_clip_frame_pose(s, walk, f, pose);
        mb_fk(s, &pose, w, n);
        int up = mb_axis_index(info->up_axis);
        float h = fmaxf(w[info->left_foot][12 + up], w[info->right_foot][12 + up]);
        if (h < best_h) {
            best_h = h;
            best = f;
        }
    }
    int frames = (int)(1.0 / mb_clip_frame_time(walk)) + 1;
    /* Translations are stored for the walk's tracked joints only (nt of them). */
    int nt = mb_clip_translation_count(walk);
    float *rot = malloc(sizeof(float) * 4 * (size_t)n * frames), *tr = malloc(sizeof(float) * (3 * (size_t)nt * frames + 1));
    for (int f = 0; f < frames; ++f) {
        memcpy(rot + 4 * (size_t)f * n, mb_clip_rotations(walk) + 4 * (size_t)best * n, sizeof(float) * 4 * n);
        if (nt > 0)
            memcpy(tr + 3 * (size_t)f * nt, mb_clip_translations(walk) + 3 * (size_t)best * nt, sizeof(float) * 3 * nt);
    }
    mb_clip_desc d = {0};
    d.joint_count = n;
    d.frame_count = frames;
    d.frame_time = mb_clip_frame_time(walk);
    d.rotations = rot;
    d.translation_joints = mb_clip_translation_joints(walk);
    d.translation_count = nt;
    d.translations = nt > 0 ? tr : NULL;
    mb_clip *idle = NULL;
    mb_clip_create(&d, &idle, NULL);
    free(p);
    free(w);
    free(rot);
    free(tr);
    return idle;
}

/* What the AI wants at time t (seconds): a speed in the clips' units per second. */
static float wanted_speed(double t, float walk, float run)
{
    if (t < 1.5)
        return 0.0f;            /* stand */
    if (t < 4.0)
        return walk;            /* walk */
    if (t < 5.0)
        return walk + (float)(t - 4.0) * (run - walk); /* speed up */
    if (t < 7.5)
        return run;             /* run */
    if (t < 8.5)
        return run - (float)(t - 7.5) * (run - walk); /* slow down */
    if (t < 10.5)
        return walk;            /* walk again */
    return 0.0f;                /* stop */
}

int main(int argc, char **argv)
{
    const char *walk_path = argc > 2 ? argv[1] : MB_EXAMPLE_DATA_DIR "/walk.bvh";
    const char *run_path = argc > 2 ? argv[2] : MB_EXAMPLE_DATA_DIR "/run.bvh";
    mb_skeleton *skel, *skel_run;
    mb_clip *walk, *run;
    mb_error err;
    if (mb_bvh_read_file(walk_path, NULL, &skel, &walk, &err) != MB_OK)
        return die("walk", &err);
    if (mb_bvh_read_file(run_path, NULL, &skel_run, &run, &err) != MB_OK)
        return die("run", &err);
    mb_motion_info wi, ri;
    if (mb_motion_analyze(skel, walk, NULL, walk_path, &wi, &err) != MB_OK ||
        mb_motion_analyze(skel, run, NULL, run_path, &ri, &err) != MB_OK)
        return die("analysis", &err);
    mb_clip *idle = make_idle(skel, walk, &wi);
    if (!idle)
        return die("idle clip", NULL);

    /* The states, built once (this part allocates and may be shared by many characters). */
    mb_state_clip idle_clip = {0}, loco[2];
    memset(loco, 0, sizeof loco);
    idle_clip.clip = idle;
    idle_clip.range.start = 0;
    idle_clip.range.end = mb_clip_frame_count(idle) - 1; /* a still "cycle" */
    loco[0].clip = walk;          /* range end 0: the gait cycle is detected */
    loco[0].param = wi.speed;
    loco[0].info = &wi;
    loco[1].clip = run;
    loco[1].param = ri.speed;
    loco[1].info = &ri;
    mb_state_desc states[2] = {{"idle", &idle_clip, 1, 1, 0.0f}, {"locomotion", loco, 2, 1, wi.speed}};
    mb_state_set_desc sd = {0};
    sd.skeleton = skel;
    sd.states = states;
    sd.state_count = 2;
    mb_state_set *set;
    if (mb_state_set_create(&sd, &set, &err) != MB_OK)
        return die("states", &err);
    mb_controller_desc cd = {0};
    cd.states = set;
    cd.initial_state = 0;
    mb_controller *ctl;
    if (mb_controller_create(&cd, &ctl, NULL) != MB_OK)
        return die("controller", NULL);

    /* The game loop: 60 Hz, the character's world transform kept by the game. */
    int n = mb_skeleton_joint_count(skel), up = mb_axis_index(mb_state_set_up_axis(set));
    /* Horizontal axes (u, v, up) right-handed: u is the heading-0 direction ("forward",
     * +Z for Y up) and a positive heading turns u towards v (+X for Y up). */
    int u = (up + 1) % 3, v = (up + 2) % 3;
    mb_xform *pose = malloc(sizeof *pose * n);
    double pos[3] = {0, 0, 0}, heading = 0.0, dt = 1.0 / 60.0;
    int moving = 0;
    printf("# walk %.0f, run %.0f units/s; cycles %.2f s and %.2f s\n", wi.speed, ri.speed,
           mb_state_set_cycle_duration(set, 1, wi.speed), mb_state_set_cycle_duration(set, 1, ri.speed));
    printf("time,state,w_idle,w_loco,param,phase,speed,step_fwd,step_side,turn_deg,world_fwd,world_side,"
           "heading_deg\n");
    for (int frame = 0; frame <= 12 * 60; ++frame) {
        double t = frame * dt;
        float want = wanted_speed(t, wi.speed, ri.speed);
        /* The AI's decisions: start moving in phase, stop by inertialization. */
        if (want > 0.0f && !moving) {
            mb_transition_desc go = {0};
            go.duration = 0.4f;
            go.sync = 1;
            mb_controller_request(ctl, 1, &go);
            moving = 1;
        } else if (want == 0.0f && moving) {
            mb_transition_desc stop = {0};
            stop.duration = 0.5f;
            stop.mode = MB_TRANSITION_INERTIALIZE;
            mb_controller_request(ctl, 0, &stop);
            moving = 0;
        }
        if (want > 0.0f)
            mb_controller_set_param(ctl, 1, want);

        mb_root_motion rm;
        mb_pose p = {pose, n};
        if (mb_controller_update(ctl, frame == 0 ? 0.0f : (float)dt, p, &rm) != MB_OK)
            return die("update", NULL);
        /* Move the character: the step is in its own frame, turned by its heading. */
        double c = cos(heading), s = sin(heading);
        pos[u] += c * rm.translation[u] - s * rm.translation[v];
        pos[v] += s * rm.translation[u] + c * rm.translation[v];
        heading += rm.heading;
        /* (render: the pose with the root moved by pos and turned by heading) */

        if (frame % 15 == 0) {
            mb_controller_status st;
            float w[2];
            mb_controller_get_status(ctl, &st);
            mb_controller_state_weights(ctl, w, 2);
            double step = hypot(rm.translation[u], rm.translation[v]);
            printf("%.2f,%s%s,%.2f,%.2f,%.0f,%.2f,%.1f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f\n", t,
                   st.state == 0 ? "idle" : "locomotion", st.transitioning ? "*" : "", w[0], w[1], want,
                   st.phase, frame == 0 ? 0.0 : step / dt, rm.translation[u], rm.translation[v],
                   rm.heading * 57.29578, pos[u], pos[v], heading * 57.29578);
        }
    }
    free(pose);
    mb_controller_destroy(ctl);
    mb_state_set_destroy(set);
    mb_clip_destroy(idle);
    mb_clip_destroy(walk);
    mb_clip_destroy(run);
    mb_skeleton_destroy(skel);
    mb_skeleton_destroy(skel_run);
    return 0;
}
