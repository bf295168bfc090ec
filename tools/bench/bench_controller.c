/* Controller update cost (reported, not asserted).
 *
 *   bench_controller [--joints N] [--characters N] [--reps N] [--fps N]
 *
 * Data: a generated skeleton of N joints (default 64: a root with position channels and
 * four chains) and four generated looping clips (sinusoidal joint motion, the root
 * travelling forward at different speeds and rates). Two states, each a 1D blend space
 * of two clips at a parameter between them, so a running cross-fade samples four clips
 * and blends four layers every update. The clips are keyed at --fps (default 30) frames per
 * second, the same motion at any rate: at 30, the two fast clips turn some joints by up to
 * 18 degrees from one frame to the next, beyond the 11.5 degrees under which
 * mb_clip_sample interpolates without libm (sample.c: slerp_near); at 60, none do.
 *
 * 1. One controller in a cross-fade that stays at half way (linear, 1e6 s, in phase): ns
 *    per update and per joint, and the share of that time spent outside mb_clip_sample and
 *    mb_blend_run (root fix-up in place, root motion, weights, phase, history copy). The
 *    share is measured inside the same updates: the two library functions are wrapped at
 *    link time (-Wl,--wrap) with thread CPU timers, whose own cost (two clock reads per
 *    call, about 5 calls per update) is reported and taken off. For comparison, the same
 *    calls made directly (4 x mb_clip_sample + one 4-layer mb_blend_run). The time inside
 *    mb_clip_sample is also reported alone (the rest of it is mb_blend_run's).
 * 2. The same for a single state (2 clips) and for a running inertialization.
 * 3. --characters controllers (default 5,000; the target of issue 18: <= 16.6 ms on 2
 *    threads) sharing one state set, each at its own phase, all in a cross-fade, then all
 *    in one blend space: one frame is one mb_controller_pool_update of them all, by a pool
 *    of 1 thread and one of 2 threads in alternated frames (2 x --reps + 1 of each). Wall
 *    time (what a frame budget means), median and [min, max]; the ratio of the medians
 *    and the median of the frame-by-frame ratios; the process CPU time of the 2-thread
 *    frames (on a loaded machine, the wall time of 2 threads is bounded by whether the
 *    other core is free; CPU time / 2 is what 2 free cores would take).
 * Timing in 1 and 2: thread CPU time, median of --reps runs (default 15).
 * --only crowd: only --reps frames of the cross-fading crowd on one thread, untimed, for
 * valgrind --tool=callgrind --toggle-collect=profile_frames (README_controller.md). */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "mblend/mblend.h"

static mb_skeleton *make_skeleton(int nj)
{
    mb_joint_desc *j = calloc((size_t)nj, sizeof *j);
    char (*names)[32] = calloc((size_t)nj, sizeof *names);
    for (int i = 0; i < nj; ++i) {
        snprintf(names[i], sizeof names[i], "j%d", i);
        j[i].name = names[i];
        if (i == 0) {
            j[i].parent = -1;
            j[i].channel_count = 6;
            mb_channel ch[6] = {MB_CH_XPOS, MB_CH_YPOS, MB_CH_ZPOS, MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
            memcpy(j[i].channels, ch, sizeof ch);
            j[i].offset[1] = 90.0f;
        } else {
            /* four chains hanging off the root */
            int chain = (i - 1) % 4;
            j[i].parent = i <= 4 ? 0 : i - 4;
            j[i].offset[0] = chain == 0 ? 10.0f : (chain == 1 ? -10.0f : 0.0f);
            j[i].offset[1] = chain < 2 ? -8.0f : 8.0f;
            j[i].channel_count = 3;
            mb_channel ch[3] = {MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
            memcpy(j[i].channels, ch, sizeof ch);
        }
    }
    mb_skeleton_desc d = {0};
    d.joints = j;
    d.joint_count = nj;
    mb_skeleton *s = NULL;
    if (mb_skeleton_create(&d, &s, NULL) != MB_OK)
        s = NULL;
    free(j);
    free(names);
    return s;
}

/* A looping clip: frame nf - 1 continues frame 0 (period nf - 1 frames). Only the root
 * (joint 0, the one joint with position channels) has a translation track. */
static mb_clip *make_clip(int nj, int nf, double ft, double speed, double amp, double seed)
{
    static const int root_only[1] = {0};
    float *rot = malloc(sizeof(float) * 4 * (size_t)nj * nf), *tr = malloc(sizeof(float) * 3 * (size_t)nf);
    int period = nf - 1;
    for (int f = 0; f < nf; ++f)
        for (int j = 0; j < nj; ++j) {
            double ph = 2.0 * 3.14159265358979 * f / period + 0.37 * j + seed;
            double ax[3] = {sin(0.7 * j + seed), cos(1.3 * j), 0.5};
            double n = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
            double ang = amp * sin(ph) + 0.1 * j / nj;
            float *q = rot + 4 * ((size_t)f * nj + j);
            for (int k = 0; k < 3; ++k)
                q[k] = (float)(ax[k] / n * sin(0.5 * ang));
            q[3] = (float)cos(0.5 * ang);
            if (j == 0) {
                float *t = tr + 3 * (size_t)f;
                t[0] = 0.0f;
                t[1] = (float)(90.0 + 3.0 * sin(2.0 * ph));
                t[2] = (float)(speed * f * ft);
            }
        }
    mb_clip_desc d = {0};
    d.joint_count = nj;
    d.frame_count = nf;
    d.frame_time = ft;
    d.rotations = rot;
    d.translation_joints = root_only;
    d.translation_count = 1;
    d.translations = tr;
    mb_clip *c = NULL;
    if (mb_clip_create(&d, &c, NULL) != MB_OK)
        c = NULL;
    free(rot);
    free(tr);
    return c;
}

typedef struct setup {
    mb_skeleton *s;
    mb_clip *clips[4];
    mb_state_set *set;
    int nj;
} setup;

static int make_setup(setup *su, int nj, int fps)
{
    su->nj = nj;
    su->s = make_skeleton(nj);
    if (!su->s)
        return 0;
    double ft = 1.0 / fps;
    int frames[4] = {34, 30, 22, 20};           /* at 30 fps: cycles 1.1, 0.97, 0.7, 0.63 s */
    for (int i = 0; i < 4; ++i)
        frames[i] = (int)lround((frames[i] - 1) * fps / 30.0) + 1;
    double speed[4] = {140, 170, 330, 360};
    for (int i = 0; i < 4; ++i) {
        su->clips[i] = make_clip(nj, frames[i], ft, speed[i], 0.4 + 0.2 * i, 0.3 * i);
        if (!su->clips[i])
            return 0;
    }
    static mb_state_clip sc[4];
    for (int i = 0; i < 4; ++i) {
        memset(&sc[i], 0, sizeof sc[i]);
        sc[i].clip = su->clips[i];
        sc[i].range.start = 0;
        sc[i].range.end = frames[i] - 1;
        sc[i].param = (float)speed[i];
    }
    mb_state_desc sd[2] = {{"slow", &sc[0], 2, 1, 155.0f}, {"fast", &sc[2], 2, 1, 345.0f}};
    mb_state_set_desc d = {0};
    d.skeleton = su->s;
    d.states = sd;
    d.state_count = 2;
    d.up_axis = MB_AXIS_Y;
    mb_error e;
    if (mb_state_set_create(&d, &su->set, &e) != MB_OK) {
        fprintf(stderr, "state set: %s\n", e.text);
        return 0;
    }
    return 1;
}

#ifdef MB_BENCH_WRAP
/* Link-time wrappers: time spent in sampling and blending while `wrap_on` is set. */
mb_status __real_mb_clip_sample(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap, mb_pose out);
mb_status __real_mb_blend_run(const mb_blend_desc *d);
mb_status __wrap_mb_clip_sample(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap, mb_pose out);
mb_status __wrap_mb_blend_run(const mb_blend_desc *d);
static int wrap_on;
static double wrap_seconds, wrap_sample_seconds;
static long wrap_calls, wrap_sample_calls;

mb_status __wrap_mb_clip_sample(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap, mb_pose out)
{
    if (!wrap_on)
        return __real_mb_clip_sample(s, c, t, wrap, out);
    double t0 = bench_cpu_now();
    mb_status st = __real_mb_clip_sample(s, c, t, wrap, out);
    double dt = bench_cpu_now() - t0;
    wrap_seconds += dt;
    wrap_sample_seconds += dt;
    ++wrap_calls;
    ++wrap_sample_calls;
    return st;
}

mb_status __wrap_mb_blend_run(const mb_blend_desc *d)
{
    if (!wrap_on)
        return __real_mb_blend_run(d);
    double t0 = bench_cpu_now();
    mb_status st = __real_mb_blend_run(d);
    wrap_seconds += bench_cpu_now() - t0;
    ++wrap_calls;
    return st;
}
#endif

/* Median thread-CPU seconds per call of fn over reps runs of `iters` calls. */
typedef void (*work_fn)(void *ctx, int iter);
static double time_per_call(work_fn fn, void *ctx, int iters, int reps)
{
    double t[64];
    reps = reps > 64 ? 64 : reps;
    for (int i = 0; i < iters / 4 + 1; ++i) /* warm up */
        fn(ctx, i);
    for (int r = 0; r < reps; ++r) {
        double t0 = bench_cpu_now();
        for (int i = 0; i < iters; ++i)
            fn(ctx, i);
        t[r] = (bench_cpu_now() - t0) / iters;
    }
    return bench_median(t, reps);
}

/* ---- the controller ---- */
typedef struct ctl_ctx {
    mb_controller *c;
    mb_pose out;
    float dt;
} ctl_ctx;

static void ctl_work(void *p, int iter)
{
    (void)iter;
    ctl_ctx *x = p;
    mb_root_motion rm;
    mb_controller_update(x->c, x->dt, x->out, &rm);
}

/* ---- the same sampling and blending, done directly ---- */
typedef struct raw_ctx {
    const setup *su;
    int nclips;
    const mb_clip *clip[4];
    double t[4], rate[4];
    float w[4];
    mb_pose poses[4], out;
    mb_blend_layer layers[4];
} raw_ctx;

static void raw_work(void *p, int iter)
{
    raw_ctx *x = p;
    for (int i = 0; i < x->nclips; ++i) {
        double t = fmod(x->t[i] + iter * x->rate[i], mb_clip_duration(x->clip[i]));
        mb_clip_sample(x->su->s, x->clip[i], t, MB_WRAP_CLAMP, x->poses[i]);
    }
    if (x->nclips > 1) {
        mb_blend_desc d;
        memset(&d, 0, sizeof d);
        d.layers = x->layers;
        d.layer_count = x->nclips;
        d.out = x->out;
        mb_blend_run(&d);
    } else {
        memcpy(x->out.joints, x->poses[0].joints, sizeof(mb_xform) * (size_t)x->out.count);
    }
}

static mb_controller *make_ctl(const setup *su, int mode, float phase)
{
    mb_controller_desc cd = {0};
    cd.states = su->set;
    cd.initial_phase = phase;
    mb_controller *c = NULL;
    if (mb_controller_create(&cd, &c, NULL) != MB_OK)
        return NULL;
    mb_xform *tmp = malloc(sizeof *tmp * (size_t)su->nj);
    mb_pose p = {tmp, su->nj};
    mb_controller_update(c, 0.0f, p, NULL);
    mb_controller_update(c, 1.0f / 60, p, NULL);
    if (mode > 0) {
        mb_transition_desc t = {0};
        t.duration = 1e6f; /* keeps the transition running */
        t.sync = 1;
        t.mode = mode == 2 ? MB_TRANSITION_INERTIALIZE : MB_TRANSITION_CROSSFADE;
        t.curve = MB_CURVE_LINEAR;
        mb_controller_request(c, 1, &t);
        /* jump to the middle of the fade: both states weigh 0.5, for the rest of the run */
        mb_controller_update(c, mode == 1 ? 5e5f : 1.0f / 60, p, NULL);
    }
    free(tmp);
    return c;
}

/* ---- many characters, 1 vs 2 threads ---- */
static double process_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_spread(const char *what, const double *v, int n)
{
    double lo = v[0], hi = v[0];
    for (int i = 1; i < n; ++i) {
        lo = v[i] < lo ? v[i] : lo;
        hi = v[i] > hi ? v[i] : hi;
    }
    printf("  %-10s %7.2f [%6.2f, %6.2f]", what, bench_median(v, n) * 1e3, lo * 1e3, hi * 1e3);
}

/* Half of a batch on one thread (mb_controller_update_range, as a game's job system would
 * call it), timed by that thread's CPU clock. */
typedef struct half_job {
    const mb_controller_batch *b;
    int first, count;
    double cpu;
    mb_status st;
} half_job;

static void *half_run(void *arg)
{
    half_job *h = arg;
    double t0 = bench_cpu_now();
    h->st = mb_controller_update_range(h->b, h->first, h->count);
    h->cpu = bench_cpu_now() - t0;
    return NULL;
}

/* One frame split in two halves, the second on a new thread; returns the larger of the two
 * threads' CPU times: the frame's time on two cores that nothing else uses. */
static double halves_frame(const mb_controller_batch *b)
{
    half_job h[2] = {{b, 0, b->count / 2, 0.0, MB_OK}, {b, b->count / 2, b->count - b->count / 2, 0.0, MB_OK}};
    pthread_t th;
    if (pthread_create(&th, NULL, half_run, &h[1]) != 0)
        return -1.0;
    half_run(&h[0]);
    pthread_join(th, NULL);
    if (h[0].st != MB_OK || h[1].st != MB_OK)
        return -1.0;
    return h[0].cpu > h[1].cpu ? h[0].cpu : h[1].cpu;
}

/* n characters in `mode` (make_ctl), updated by a 1-thread and a 2-thread pool in
 * alternated frames, then in two halves on two threads of the caller's; prints the medians
 * and spreads. 0 on a setup failure. */
static int crowd_bench(const setup *su, int n, int mode, int frames, const char *label)
{
    frames = frames > 64 ? 64 : frames;
    mb_controller **c = malloc(sizeof *c * (size_t)n);
    mb_pose *poses = malloc(sizeof *poses * (size_t)n);
    mb_xform *joints = malloc(sizeof *joints * (size_t)n * su->nj);
    mb_root_motion *rm = malloc(sizeof *rm * (size_t)n);
    for (int i = 0; i < n; ++i) {
        c[i] = make_ctl(su, mode, (float)((i * 0.618) - floor(i * 0.618)));
        if (!c[i])
            return 0;
        poses[i].joints = joints + (size_t)i * su->nj;
        poses[i].count = su->nj;
    }
    mb_controller_batch b = {0};
    b.controllers = c;
    b.poses = poses;
    b.deltas = rm;
    b.count = n;
    b.dt = 1.0f / 60;
    mb_controller_pool *pool[2] = {NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        mb_controller_pool_desc pd = {0};
        pd.threads = k + 1;
        if (mb_controller_pool_create(&pd, &pool[k], NULL) != MB_OK)
            return 0;
        mb_controller_pool_update(pool[k], &b); /* warm up */
    }
    double t[2][64], cpu[2][64], ratio[64];
    for (int f = 0; f < frames; ++f)
        for (int k = 0; k < 2; ++k) {
            double c0 = process_cpu_now(), t0 = bench_now();
            if (mb_controller_pool_update(pool[k], &b) != MB_OK)
                return 0;
            t[k][f] = bench_now() - t0;
            cpu[k][f] = process_cpu_now() - c0;
            if (k == 1)
                ratio[f] = t[0][f] / t[1][f];
        }
    double crit[64];
    for (int f = 0; f < frames; ++f)
        if ((crit[f] = halves_frame(&b)) < 0.0)
            return 0;
    printf("%s\n", label);
    print_spread("1 thread", t[0], frames);
    print_spread("2 threads", t[1], frames);
    printf("  ratio %.2fx (median of pairs %.2fx)\n", bench_median(t[0], frames) / bench_median(t[1], frames),
           bench_median(ratio, frames));
    print_spread("cpu 1", cpu[0], frames);
    printf(" (%.0f ns/character)", bench_median(cpu[0], frames) * 1e9 / n);
    print_spread("cpu 2", cpu[1], frames);
    printf("\n");
    print_spread("halves", crit, frames);
    printf("  cpu 1 / halves %.2fx\n", bench_median(cpu[0], frames) / bench_median(crit, frames));
    for (int k = 0; k < 2; ++k)
        mb_controller_pool_destroy(pool[k]);
    for (int i = 0; i < n; ++i)
        mb_controller_destroy(c[i]);
    free(c);
    free(poses);
    free(joints);
    free(rm);
    return 1;
}

/* --only crowd: reps frames of n characters in a cross-fade on this thread and nothing
 * else, for callgrind (--toggle-collect=profile_frames counts the frames alone). */
__attribute__((noinline)) static int profile_frames(const mb_controller_batch *b, int frames)
{
    for (int f = 0; f < frames; ++f)
        if (mb_controller_update_range(b, 0, b->count) != MB_OK)
            return 0;
    return 1;
}

static int profile_crowd(const setup *su, int n, int frames)
{
    mb_controller **c = malloc(sizeof *c * (size_t)n);
    mb_pose *poses = malloc(sizeof *poses * (size_t)n);
    mb_xform *joints = malloc(sizeof *joints * (size_t)n * su->nj);
    for (int i = 0; i < n; ++i) {
        if (!(c[i] = make_ctl(su, 1, (float)((i * 0.618) - floor(i * 0.618)))))
            return 1;
        poses[i].joints = joints + (size_t)i * su->nj;
        poses[i].count = su->nj;
    }
    mb_controller_batch b = {0};
    b.controllers = c;
    b.poses = poses;
    b.count = n;
    b.dt = 1.0f / 60;
    int ok = profile_frames(&b, frames);
    printf("%d frames of %d characters: %s\n", frames, n, ok ? "ok" : "failed");
    for (int i = 0; i < n; ++i)
        mb_controller_destroy(c[i]);
    free(c);
    free(poses);
    free(joints);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int nj = 64, ncrowd = 5000, reps = 15, fps = 30, only_crowd = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--only") == 0)
            only_crowd = strcmp(argv[i + 1], "crowd") == 0 ? 1 : -1;
        else if (strcmp(argv[i], "--joints") == 0)
            nj = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--characters") == 0)
            ncrowd = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--fps") == 0)
            fps = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[i + 1]);
    }
    if (nj < 8 || nj > 4096 || ncrowd < 1 || reps < 1 || fps < 10 || fps > 240 || fps % 10 || only_crowd < 0) {
        fprintf(stderr, "usage: bench_controller [--joints N>=8] [--characters N] [--reps N] [--fps 10..240, "
                        "a multiple of 10] [--only crowd]\n");
        return 1;
    }
    setup su;
    if (!make_setup(&su, nj, fps)) {
        fprintf(stderr, "setup failed\n");
        return 1;
    }
    if (only_crowd)
        return profile_crowd(&su, ncrowd, reps);
    char load[128];
    bench_loadavg(load, sizeof load);
    printf("bench_controller: %d joints, 4 generated looping clips keyed at %d fps, 2 blend-space states; load %s\n", nj,
           fps, load);
    mb_xform *out = malloc(sizeof *out * (size_t)nj);
    mb_xform *pb = malloc(sizeof *pb * (size_t)nj * 4);
    int iters = 2000;

    /* The direct work: 4 clips (cross-fade) or 2 (one state), blended. */
    raw_ctx raw;
    memset(&raw, 0, sizeof raw);
    raw.su = &su;
    for (int i = 0; i < 4; ++i) {
        raw.clip[i] = su.clips[i];
        raw.t[i] = 0.1 * i;
        raw.rate[i] = 1.0 / 60.0;
        raw.w[i] = 0.25f;
        raw.poses[i].joints = pb + (size_t)i * nj;
        raw.poses[i].count = nj;
        raw.layers[i].pose = &raw.poses[i];
        raw.layers[i].weight = raw.w[i];
    }
    raw.out.joints = out;
    raw.out.count = nj;
    raw.nclips = 4;
    double t_raw4 = time_per_call(raw_work, &raw, iters, reps);
    raw.nclips = 2;
    double t_raw2 = time_per_call(raw_work, &raw, iters, reps);

    const char *names[3] = {"cross-fade, 2 blend spaces (4 clips)", "one blend space (2 clips)",
                            "inertialization, 1 blend space (2 clips + offsets)"};
    int modes[3] = {1, 0, 2};
    double base[3] = {t_raw4, t_raw2, t_raw2};
#ifdef MB_BENCH_WRAP
    /* cost of one timed call's two clock reads */
    double c0 = bench_cpu_now();
    for (int i = 0; i < 100000; ++i)
        (void)bench_cpu_now();
    double clock_cost = (bench_cpu_now() - c0) / 100000.0;
#endif
    printf("\n%-50s %10s %10s %10s %10s %10s %10s %10s\n", "controller update", "ns/update", "ns/joint", "timed ns",
           "in s+b ns", "sample ns", "own share", "direct ns");
    for (int m = 0; m < 3; ++m) {
        ctl_ctx cx;
        cx.c = make_ctl(&su, modes[m], 0.1f);
        cx.out.joints = out;
        cx.out.count = nj;
        cx.dt = 1.0f / 60.0f;
        if (!cx.c)
            return 1;
        mb_controller_status st;
        mb_controller_get_status(cx.c, &st);
        double t = time_per_call(ctl_work, &cx, iters, reps), inside = -1.0, tinst = -1.0, in_sample = -1.0;
#ifdef MB_BENCH_WRAP
        /* instrumented: the same updates, timing the calls inside */
        double tw[64], in[64], ins[64];
        int rr = reps > 64 ? 64 : reps;
        for (int r = 0; r < rr; ++r) {
            wrap_seconds = wrap_sample_seconds = 0.0;
            wrap_calls = wrap_sample_calls = 0;
            wrap_on = 1;
            double t0 = bench_cpu_now();
            for (int i = 0; i < iters; ++i)
                ctl_work(&cx, i);
            double tot = bench_cpu_now() - t0;
            wrap_on = 0;
            /* each timed call adds two clock reads; half falls inside, half outside */
            double overhead = wrap_calls * 2.0 * clock_cost;
            tw[r] = (tot - overhead) / iters;
            in[r] = (wrap_seconds - 0.5 * overhead) / iters;
            ins[r] = (wrap_sample_seconds - wrap_sample_calls * clock_cost) / iters;
        }
        tinst = bench_median(tw, rr);
        inside = bench_median(in, rr);
        in_sample = bench_median(ins, rr);
        double share = 100.0 * (tinst - inside) / tinst;
#else
        double share = 100.0 * (t - base[m]) / t;
#endif
        printf("%-50s %10.0f %10.1f %10.0f %10.0f %10.0f %9.1f%% %10.0f   (tracks %d%s)\n", names[m], t * 1e9,
               t * 1e9 / nj, tinst * 1e9, inside * 1e9, in_sample * 1e9, share, base[m] * 1e9, st.tracks,
               st.transitioning ? ", transitioning" : "");
        mb_controller_destroy(cx.c);
    }
    printf("(timed = the update with the calls inside timed, less the timers' cost; in s+b = time inside\n"
           " mb_clip_sample and mb_blend_run during those updates, sample = of which in mb_clip_sample (the\n"
           " rest of in s+b is mb_blend_run); own share = (timed - in s+b) / timed;\n"
           " direct = the same number of sample and blend calls made directly at other times, for scale;\n"
           " the inertialization's offsets count as the controller's own work)\n");

    /* Many characters sharing one state set, each at its own phase: 1 vs 2 threads. */
    printf("\n%d characters x %d joints, one frame = mb_controller_pool_update of all; wall ms per frame,\n"
           "median [min, max] of %d frames, 1 and 2 threads alternated frame by frame:\n",
           ncrowd, nj, reps * 2 + 1);
    if (!crowd_bench(&su, ncrowd, 1, reps * 2 + 1, "all in a cross-fade (4 clips, 2 blend spaces)") ||
        !crowd_bench(&su, ncrowd, 0, reps * 2 + 1, "one blend space each (2 clips)"))
        return 1;
    printf("(cpu 1, cpu 2 = the process's CPU time during the 1-thread and the 2-thread frames, all threads;\n"
           " halves = the frame split in two halves by mb_controller_update_range on two threads, the larger\n"
           " of their two thread CPU times: the frame's time on 2 cores nothing else uses. Wall times above\n"
           " those mean other processes had the cores.)\n");
    free(out);
    free(pb);
    mb_state_set_destroy(su.set);
    for (int i = 0; i < 4; ++i)
        mb_clip_destroy(su.clips[i]);
    mb_skeleton_destroy(su.s);
    return 0;
}
