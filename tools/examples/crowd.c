/* A crowd: thousands of characters updated every frame by a pool of threads
 * (mblend/runtime/controller.h: mb_controller_batch, mb_controller_pool_update).
 *
 *   mblend_example_crowd [--characters N] [--frames N] [--threads N] [walk.bvh run.bvh]
 *   (defaults: 5000 characters, 300 frames at 60 Hz, 2 threads, the project's data/bvh clips)
 *
 * Load time (allocates): the walk and the run are read and given 64 joints (finger chains
 * under the hands, as a game skeleton has), and each gets a "carrying" variant with the
 * arms held forward: four clips. Two states, each a 1D blend space on speed: "free"
 * (walk, run) and "carry" (walk and run carrying). One state set, shared by every
 * character; one controller per character; one pool of threads.
 *
 * Every frame (allocates nothing): the "AI" sets each character's speed and, every two
 * seconds (staggered over the crowd), asks for a two-second in-phase cross-fade to the
 * other state, so every character is always in a cross-fade between the two blend spaces
 * (four clips sampled and blended). One mb_controller_pool_update updates them all; the
 * game then moves each character by its root motion.
 *
 * Output: "# " lines (setup, summary), then "frame,ms,speed" rows (wall time of the update
 * of all characters, their mean speed), then "# frame ms: median ... min ... max ..." and
 * "# checksum <hex>": a hash of the last frame's poses and of every character's position,
 * the same for any thread count (the pool's results do not depend on it). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mblend/mblend.h>

#ifndef MB_EXAMPLE_DATA_DIR
#define MB_EXAMPLE_DATA_DIR "data/bvh"
#endif

#define JOINTS 64
#define HZ 60

static int die(const char *what, const mb_error *e)
{
    char buf[600];
    fprintf(stderr, "crowd: %s: %s\n", what, e ? mb_error_format(e, buf, sizeof buf) : "failed");
    return 1;
}

/* ---------------------------------------------------------------- load time */

/* The clip's skeleton with finger chains appended under the hands up to JOINTS nodes:
 * finger k of 5, segment s, alternating hands. Names: <hand>F<k>_<s>. */
static mb_skeleton *extend_skeleton(const mb_skeleton *s, mb_error *err)
{
    int n = mb_skeleton_joint_count(s);
    int hand[2] = {mb_skeleton_find(s, "LeftHand"), mb_skeleton_find(s, "RightHand")};
    if (n > JOINTS || hand[0] < 0 || hand[1] < 0)
        return NULL;
    mb_joint_desc j[JOINTS];
    static char names[JOINTS][48];
    memset(j, 0, sizeof j);
    for (int i = 0; i < n; ++i) {
        const mb_channel *ch;
        j[i].name = mb_skeleton_name(s, i);
        j[i].parent = mb_skeleton_parents(s)[i];
        memcpy(j[i].offset, mb_skeleton_offset(s, i), sizeof j[i].offset);
        j[i].end_site = mb_skeleton_is_end_site(s, i);
        j[i].channel_count = mb_skeleton_channels(s, i, &ch);
        memcpy(j[i].channels, ch, sizeof(mb_channel) * (size_t)j[i].channel_count);
    }
    for (int i = n, k = 0; i < JOINTS; ++i, ++k) {
        int h = k % 2, finger = (k / 2) % 5, seg = k / 10;
        snprintf(names[i], sizeof names[i], "%sF%d_%d", h ? "RightHand" : "LeftHand", finger, seg);
        j[i].name = names[i];
        j[i].parent = seg == 0 ? hand[h] : i - 10;
        float side = h ? -1.0f : 1.0f; /* the left arm points along +X in the rest pose */
        j[i].offset[0] = side * (seg == 0 ? 8.0f : 3.0f);
        j[i].offset[2] = seg == 0 ? 2.0f * (float)(finger - 2) : 0.0f;
        j[i].channel_count = 3;
        mb_channel rot[3] = {MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
        memcpy(j[i].channels, rot, sizeof rot);
    }
    mb_skeleton_desc d = {0};
    d.joints = j;
    d.joint_count = JOINTS;
    mb_skeleton *out = NULL;
    mb_skeleton_create(&d, &out, err);
    return out;
}

static void quat_mul(const float a[4], const float b[4], float out[4])
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* The clip on the extended skeleton: fingers slightly curled and still; carry: the upper
 * arms turned forward by 70 degrees about the up axis (Y), so the arms reach ahead. */
static mb_clip *extend_clip(const mb_skeleton *ext, const mb_clip *c, int carry, mb_error *err)
{
    int n = mb_clip_joint_count(c), nf = mb_clip_frame_count(c);
    int arm[2] = {mb_skeleton_find(ext, "LeftArm"), mb_skeleton_find(ext, "RightArm")};
    float *rot = malloc(sizeof(float) * 4 * JOINTS * (size_t)nf);
    if (!rot || arm[0] < 0 || arm[1] < 0) {
        free(rot);
        return NULL;
    }
    const float *src = mb_clip_rotations(c);
    const float curl = 0.15f; /* half of 0.3 rad about Z */
    for (int f = 0; f < nf; ++f) {
        float *q = rot + 4 * (size_t)f * JOINTS;
        memcpy(q, src + 4 * (size_t)f * n, sizeof(float) * 4 * (size_t)n);
        for (int i = n; i < JOINTS; ++i) {
            float s = ((i - n) % 2) ? 1.0f : -1.0f;
            float fq[4] = {0.0f, 0.0f, s * sinf(curl), cosf(curl)};
            memcpy(q + 4 * i, fq, sizeof fq);
        }
        for (int h = 0; carry && h < 2; ++h) {
            float a = (h ? 1.0f : -1.0f) * 0.61f; /* half of 70 degrees */
            float off[4] = {0.0f, sinf(a), 0.0f, cosf(a)}, r[4];
            quat_mul(off, q + 4 * arm[h], r);
            memcpy(q + 4 * arm[h], r, sizeof r);
        }
    }
    mb_clip_desc d = {0};
    d.joint_count = JOINTS;
    d.frame_count = nf;
    d.frame_time = mb_clip_frame_time(c);
    d.rotations = rot;
    d.translation_joints = mb_clip_translation_joints(c);
    d.translation_count = mb_clip_translation_count(c);
    d.translations = d.translation_count > 0 ? mb_clip_translations(c) : NULL;
    mb_clip *out = NULL;
    mb_clip_create(&d, &out, err);
    free(rot);
    return out;
}

typedef struct assets {
    mb_skeleton *file_skel[2], *skel;
    mb_clip *file_clip[2], *clips[4]; /* walk, run, walk carrying, run carrying */
    mb_motion_info info[2];
    mb_state_set *set;
} assets;

static int load_assets(const char *walk_path, const char *run_path, assets *a, mb_error *err)
{
    const char *path[2] = {walk_path, run_path};
    memset(a, 0, sizeof *a);
    for (int k = 0; k < 2; ++k)
        if (mb_bvh_read_file(path[k], NULL, &a->file_skel[k], &a->file_clip[k], err) != MB_OK ||
            mb_motion_analyze(a->file_skel[k], a->file_clip[k], NULL, path[k], &a->info[k], err) != MB_OK)
            return 0;
    a->skel = extend_skeleton(a->file_skel[0], err);
    if (!a->skel)
        return 0;
    for (int k = 0; k < 4; ++k)
        if (!(a->clips[k] = extend_clip(a->skel, a->file_clip[k % 2], k >= 2, err)))
            return 0;
    mb_state_clip sc[4];
    memset(sc, 0, sizeof sc);
    for (int k = 0; k < 4; ++k) {
        sc[k].clip = a->clips[k]; /* range end 0: the gait cycle is detected */
        sc[k].param = a->info[k % 2].speed;
    }
    mb_state_desc states[2] = {{"free", &sc[0], 2, 1, a->info[0].speed}, {"carry", &sc[2], 2, 1, a->info[0].speed}};
    mb_state_set_desc sd = {0};
    sd.skeleton = a->skel;
    sd.states = states;
    sd.state_count = 2;
    return mb_state_set_create(&sd, &a->set, err) == MB_OK;
}

static void free_assets(assets *a)
{
    mb_state_set_destroy(a->set);
    for (int k = 0; k < 4; ++k)
        mb_clip_destroy(a->clips[k]);
    for (int k = 0; k < 2; ++k) {
        mb_clip_destroy(a->file_clip[k]);
        mb_skeleton_destroy(a->file_skel[k]);
    }
    mb_skeleton_destroy(a->skel);
}

/* ---------------------------------------------------------------- the crowd */

typedef struct crowd {
    int n;
    mb_controller **ctl;
    mb_xform *joints;     /* n x JOINTS local poses, in place */
    mb_pose *poses;
    mb_root_motion *rm;
    mb_status *status;
    double (*pos)[3];     /* world position on the ground */
    double *heading;
    int *state;           /* the state each character is heading to */
    mb_controller_batch batch;
} crowd;

static int make_crowd(const assets *a, int n, crowd *c)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->ctl = calloc((size_t)n, sizeof *c->ctl);
    c->joints = calloc((size_t)n * JOINTS, sizeof *c->joints);
    c->poses = calloc((size_t)n, sizeof *c->poses);
    c->rm = calloc((size_t)n, sizeof *c->rm);
    c->status = calloc((size_t)n, sizeof *c->status);
    c->pos = calloc((size_t)n, sizeof *c->pos);
    c->heading = calloc((size_t)n, sizeof *c->heading);
    c->state = calloc((size_t)n, sizeof *c->state);
    if (!c->ctl || !c->joints || !c->poses || !c->rm || !c->status || !c->pos || !c->heading || !c->state)
        return 0;
    for (int i = 0; i < n; ++i) {
        mb_controller_desc cd = {0};
        cd.states = a->set;
        cd.initial_state = i % 2;
        cd.initial_phase = (float)(i * 0.618 - floor(i * 0.618));
        if (mb_controller_create(&cd, &c->ctl[i], NULL) != MB_OK)
            return 0;
        c->state[i] = i % 2;
        c->poses[i].joints = c->joints + (size_t)i * JOINTS;
        c->poses[i].count = JOINTS;
        c->pos[i][0] = 150.0 * (i % 100); /* a grid, all facing +Z */
        c->pos[i][2] = 150.0 * (i / 100);
    }
    c->batch.controllers = c->ctl;
    c->batch.poses = c->poses;
    c->batch.deltas = c->rm;
    c->batch.statuses = c->status;
    c->batch.count = n;
    return 1;
}

static void free_crowd(crowd *c)
{
    for (int i = 0; c->ctl && i < c->n; ++i)
        mb_controller_destroy(c->ctl[i]);
    free(c->ctl);
    free(c->joints);
    free(c->poses);
    free(c->rm);
    free(c->status);
    free(c->pos);
    free(c->heading);
    free(c->state);
}

/* The AI's decisions before frame f: a speed between the walk's and the run's that drifts
 * per character, and every two seconds (staggered) a cross-fade to the other state. */
static void think(crowd *c, const assets *a, int f)
{
    float walk = a->info[0].speed, run = a->info[1].speed;
    mb_transition_desc fade = {0};
    fade.duration = 2.0f;
    fade.sync = 1;
    for (int i = 0; i < c->n; ++i) {
        float x = 0.5f + 0.5f * sinf(0.02f * (float)f + 0.37f * (float)i);
        for (int s = 0; s < 2; ++s)
            mb_controller_set_param(c->ctl[i], s, walk + x * (run - walk));
        if ((f + 7 * i) % (2 * HZ) == 0) {
            c->state[i] ^= 1;
            mb_controller_request(c->ctl[i], c->state[i], &fade);
        }
    }
}

/* The game moves each character by its root motion, turned by its heading (Y up: forward
 * is +Z, a positive heading turns +Z towards +X). */
static void move(crowd *c)
{
    for (int i = 0; i < c->n; ++i) {
        const mb_root_motion *r = &c->rm[i];
        double co = cos(c->heading[i]), si = sin(c->heading[i]);
        c->pos[i][2] += co * r->translation[2] - si * r->translation[0];
        c->pos[i][0] += si * r->translation[2] + co * r->translation[0];
        c->heading[i] += r->heading;
    }
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs the frames; prints a row per frame and the summary. Returns the exit code. */
static int run(crowd *c, const assets *a, mb_controller_pool *pool, int frames)
{
    double *ms = malloc(sizeof *ms * (size_t)frames);
    if (!ms)
        return die("memory", NULL);
    printf("frame,ms,speed\n");
    for (int f = 0; f < frames; ++f) {
        think(c, a, f);
        c->batch.dt = f == 0 ? 0.0f : 1.0f / HZ;
        double t0 = now();
        mb_status st = mb_controller_pool_update(pool, &c->batch);
        ms[f] = (now() - t0) * 1e3;
        if (st != MB_OK) {
            int i = 0;
            while (i < c->n && c->status[i] == MB_OK)
                ++i;
            fprintf(stderr, "crowd: frame %d: character %d: %s\n", f, i, mb_status_str(st));
            free(ms);
            return 1;
        }
        move(c);
        double speed = 0.0;
        for (int i = 0; i < c->n; ++i)
            speed += hypot(c->rm[i].translation[0], c->rm[i].translation[2]);
        printf("%d,%.3f,%.1f\n", f, ms[f], f == 0 ? 0.0 : speed / c->n * HZ);
    }
    qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
    printf("# frame ms: median %.2f min %.2f max %.2f (%d characters, %d threads)\n", ms[frames / 2], ms[0],
           ms[frames - 1], c->n, mb_controller_pool_threads(pool));
    uint64_t h = fnv1a(1469598103934665603u, c->joints, sizeof *c->joints * (size_t)c->n * JOINTS);
    h = fnv1a(h, c->pos, sizeof *c->pos * (size_t)c->n);
    printf("# checksum %016llx\n", (unsigned long long)h);
    free(ms);
    return 0;
}

int main(int argc, char **argv)
{
    int n = 5000, frames = 300, threads = 2, files = 0;
    const char *path[2] = {MB_EXAMPLE_DATA_DIR "/walk.bvh", MB_EXAMPLE_DATA_DIR "/run.bvh"};
    for (int i = 1; i < argc; ++i) {
        if (i + 1 < argc && strcmp(argv[i], "--characters") == 0)
            n = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--frames") == 0)
            frames = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--threads") == 0)
            threads = atoi(argv[++i]);
        else if (argv[i][0] != '-' && files < 2)
            path[files++] = argv[i];
        else
            files = -1;
    }
    if (n < 1 || n > 1000000 || frames < 1 || threads < 1 || files == -1 || files == 1) {
        fprintf(stderr, "usage: mblend_example_crowd [--characters N] [--frames N] [--threads N] "
                        "[walk.bvh run.bvh]\n");
        return 2;
    }
    mb_error err;
    assets a;
    if (!load_assets(path[0], path[1], &a, &err)) {
        free_assets(&a);
        return die("loading the clips", &err);
    }
    mb_controller_pool_desc pd = {0};
    pd.threads = threads;
    mb_controller_pool *pool = NULL;
    crowd c;
    int ok = mb_controller_pool_create(&pd, &pool, &err) == MB_OK;
    int rc = !ok ? die("pool", &err) : !make_crowd(&a, n, &c) ? die("characters", NULL) : -1;
    if (rc < 0) {
        printf("# %d characters x %d joints, cross-fading between two blend spaces of 2 clips each "
               "(walk %.0f, run %.0f units/s); %d threads; %d frames at %d Hz\n",
               n, JOINTS, a.info[0].speed, a.info[1].speed, threads, frames, HZ);
        rc = run(&c, &a, pool, frames);
    }
    if (ok)
        free_crowd(&c);
    mb_controller_pool_destroy(pool);
    free_assets(&a);
    return rc;
}
