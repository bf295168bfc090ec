/* Many characters (controller.h: mb_controller_update_range, the controller pool): every
 * split of a batch over ranges and threads gives each character the bits that updating it
 * alone gives; failures are reported by the lowest index; bad arguments change nothing;
 * the pool runs in the caller's floating-point environment and allocates only when made.
 * Real CMU clips from ../shared. */
#include <fenv.h>
#include <math.h>

#include "mblend/mblend.h"
#include "test_clip_file.h"
#include "test_util.h"

/* walk (0), run (1), a blend space of both on speed (2), and a second one placed the other
 * way round (3: run at the low end), so a cross-fade between 2 and 3 plays four clips. */
typedef struct fixture {
    mb_test_clip walk, run;
    mb_state_set *set;
    int nj;
} fixture;

static fixture make_fixture(void)
{
    fixture fx;
    fx.walk = mb_test_clip_load("cmu_02_01_walk.bvh");
    fx.run = mb_test_clip_load("cmu_02_03_run.bvh");
    fx.nj = mb_skeleton_joint_count(fx.walk.s);
    static mb_state_clip one[2], loco[2], back[2];
    memset(one, 0, sizeof one);
    one[0].clip = fx.walk.c;
    one[1].clip = fx.run.c;
    loco[0] = one[0];
    loco[0].param = fx.walk.info.speed;
    loco[1] = one[1];
    loco[1].param = fx.run.info.speed;
    back[0] = one[1];
    back[0].param = 0.0f;
    back[1] = one[0];
    back[1].param = 1.0f;
    static mb_state_desc sd[4];
    memset(sd, 0, sizeof sd);
    sd[0] = (mb_state_desc){"walk", &one[0], 1, 1, 0.0f};
    sd[1] = (mb_state_desc){"run", &one[1], 1, 1, 0.0f};
    sd[2] = (mb_state_desc){"locomotion", loco, 2, 1, fx.walk.info.speed};
    sd[3] = (mb_state_desc){"backwards", back, 2, 1, 0.5f};
    mb_state_set_desc d = {0};
    d.skeleton = fx.walk.s;
    d.states = sd;
    d.state_count = 4;
    mb_error e;
    cr_assert_eq(mb_state_set_create(&d, &fx.set, &e), MB_OK, "%s: %s", e.source, e.text);
    return fx;
}

static void free_fixture(fixture *fx)
{
    mb_state_set_destroy(fx->set);
    mb_test_clip_unload(&fx->walk);
    mb_test_clip_unload(&fx->run);
}

/* A crowd: n controllers with their output poses (one block of n x nj), root motions and
 * statuses, as a batch. */
typedef struct crowd {
    int n, nj;
    mb_controller **c;
    mb_xform *joints;
    mb_pose *poses;
    mb_root_motion *rm;
    mb_status *st;
    mb_controller_batch b;
} crowd;

static crowd make_crowd(const fixture *fx, int n)
{
    crowd w;
    w.n = n;
    w.nj = fx->nj;
    w.c = calloc((size_t)n, sizeof *w.c);
    w.joints = calloc((size_t)n * w.nj, sizeof *w.joints);
    w.poses = calloc((size_t)n, sizeof *w.poses);
    w.rm = calloc((size_t)n, sizeof *w.rm);
    w.st = calloc((size_t)n, sizeof *w.st);
    for (int i = 0; i < n; ++i) {
        mb_controller_desc cd = {0};
        cd.states = fx->set;
        cd.initial_state = i % 4;
        cd.initial_phase = (float)((i * 0.618) - floor(i * 0.618));
        cr_assert_eq(mb_controller_create(&cd, &w.c[i], NULL), MB_OK);
        w.poses[i].joints = w.joints + (size_t)i * w.nj;
        w.poses[i].count = w.nj;
    }
    memset(&w.b, 0, sizeof w.b);
    w.b.controllers = w.c;
    w.b.poses = w.poses;
    w.b.deltas = w.rm;
    w.b.statuses = w.st;
    w.b.count = n;
    return w;
}

static void free_crowd(crowd *w)
{
    for (int i = 0; i < w->n; ++i)
        mb_controller_destroy(w->c[i]);
    free(w->c);
    free(w->joints);
    free(w->poses);
    free(w->rm);
    free(w->st);
}

/* The script: before frame k, character i gets its own requests and parameters (the same
 * in every run), so the characters are in different states, fades and phases. */
static void script_step(const crowd *w, int k)
{
    for (int i = 0; i < w->n; ++i) {
        unsigned r = (unsigned)(i * 7919 + k * 104729) * 2654435761u;
        r ^= r >> 15;
        if (r % 13 == 0) {
            mb_transition_desc t = {0};
            t.duration = 0.05f + (float)((r >> 8) % 40) / 100.0f;
            t.mode = (r >> 4) % 3 == 0 ? MB_TRANSITION_INERTIALIZE : MB_TRANSITION_CROSSFADE;
            t.sync = (r >> 6) & 1;
            cr_assert_eq(mb_controller_request(w->c[i], (int)((r >> 20) % 4), &t), MB_OK);
        }
        if ((r >> 12) % 7 == 0)
            cr_assert_eq(mb_controller_set_param(w->c[i], 2 + (int)((r >> 3) & 1), (float)((r >> 5) % 500)), MB_OK);
    }
}

static float frame_dt(int k) { return (float)(1.0 / 60 + (k % 5) * 0.003); }

/* The reference: each character updated alone with mb_controller_update, in order, in
 * rounding mode `round` (the script's requests in the default one). Fills frames x (n x nj)
 * poses and frames x n root motions. */
static void run_reference_in(const fixture *fx, int n, int frames, int round, mb_xform *poses, mb_root_motion *rm)
{
    crowd w = make_crowd(fx, n);
    for (int k = 0; k < frames; ++k) {
        script_step(&w, k);
        float dt = frame_dt(k);
        cr_assert_eq(fesetround(round), 0);
        mb_status st = MB_OK;
        for (int i = 0; i < n && st == MB_OK; ++i)
            st = mb_controller_update(w.c[i], dt, w.poses[i], &w.rm[i]);
        fesetround(FE_TONEAREST);
        cr_assert_eq(st, MB_OK);
        memcpy(poses + (size_t)k * n * w.nj, w.joints, sizeof *w.joints * (size_t)n * w.nj);
        memcpy(rm + (size_t)k * n, w.rm, sizeof *w.rm * (size_t)n);
    }
    free_crowd(&w);
}

static void run_reference(const fixture *fx, int n, int frames, mb_xform *poses, mb_root_motion *rm)
{
    run_reference_in(fx, n, frames, FE_TONEAREST, poses, rm);
}

/* How a run splits each frame: threads > 0 uses a pool of that many threads; else the
 * batch is cut into ranges of varying lengths (from `seed`) updated in a shuffled order. */
typedef struct split {
    int threads;
    unsigned seed;
} split;

static mb_status update_split(const crowd *w, mb_controller_pool *pool, unsigned seed, int k)
{
    if (pool)
        return mb_controller_pool_update(pool, &w->b);
    int cuts[64], nc = 0, at = 0;
    unsigned r = seed * 2246822519u + (unsigned)k * 3266489917u;
    while (at < w->n && nc < 63) {
        cuts[nc++] = at;
        r = r * 1103515245u + 12345u;
        at += 1 + (int)((r >> 16) % 23);
    }
    cuts[nc] = w->n;
    /* the ranges in reverse order: order must not matter either */
    for (int q = nc - 1; q >= 0; --q) {
        mb_status st = mb_controller_update_range(&w->b, cuts[q], cuts[q + 1] - cuts[q]);
        if (st != MB_OK)
            return st;
    }
    return MB_OK;
}

static void check_split(const fixture *fx, int n, int frames, split sp, const mb_xform *want_poses,
                        const mb_root_motion *want_rm)
{
    crowd w = make_crowd(fx, n);
    mb_controller_pool *pool = NULL;
    if (sp.threads > 0) {
        mb_controller_pool_desc pd = {0};
        pd.threads = sp.threads;
        cr_assert_eq(mb_controller_pool_create(&pd, &pool, NULL), MB_OK);
        cr_assert_eq(mb_controller_pool_threads(pool), sp.threads);
    }
    size_t per = (size_t)n * w.nj;
    for (int k = 0; k < frames; ++k) {
        script_step(&w, k);
        w.b.dt = frame_dt(k);
        cr_assert_eq(update_split(&w, pool, sp.seed, k), MB_OK);
        for (int i = 0; i < n; ++i)
            cr_assert_eq(w.st[i], MB_OK);
        int i = 0;
        while (i < n && memcmp(w.joints + (size_t)i * w.nj, want_poses + k * per + (size_t)i * w.nj,
                               sizeof *w.joints * w.nj) == 0)
            ++i;
        cr_assert_eq(i, n, "threads %d split %u frame %d: character %d's pose differs from updating it alone",
                     sp.threads, sp.seed, k, i);
        cr_assert(memcmp(w.rm, want_rm + (size_t)k * n, sizeof *w.rm * n) == 0,
                  "threads %d split %u frame %d: root motion differs", sp.threads, sp.seed, k);
    }
    mb_controller_pool_destroy(pool);
    free_crowd(&w);
}

Test(crowd, every_split_gives_each_character_its_own_bits)
{
    fixture fx = make_fixture();
    int n = 157, frames = 40; /* 157: ten chunks of 16 and a partial one */
    mb_xform *poses = malloc(sizeof *poses * (size_t)frames * n * fx.nj);
    mb_root_motion *rm = malloc(sizeof *rm * (size_t)frames * n);
    run_reference(&fx, n, frames, poses, rm);
    /* the script is not trivial: characters differ, and some are mid-transition */
    cr_assert(memcmp(poses, poses + fx.nj, sizeof *poses * fx.nj) != 0);
    split splits[] = {{0, 1}, {0, 2}, {1, 0}, {2, 0}, {3, 0}, {4, 0}};
    for (size_t s = 0; s < sizeof splits / sizeof splits[0]; ++s)
        check_split(&fx, n, frames, splits[s], poses, rm);
    free(poses);
    free(rm);
    free_fixture(&fx);
}

/* A batch with two bad characters: both report their own status, the call returns the
 * lower index's, and everyone else is updated as if alone. */
Test(crowd, failures_are_reported_by_the_lowest_index)
{
    fixture fx = make_fixture();
    int n = 600, bad_short = 21, bad_null = 590; /* 38 chunks: every thread takes some */
    mb_xform *want = malloc(sizeof *want * (size_t)n * fx.nj);
    mb_root_motion *want_rm = malloc(sizeof *want_rm * (size_t)n);
    run_reference(&fx, n, 1, want, want_rm);
    for (int threads = 0; threads <= 3; ++threads) {
        crowd w = make_crowd(&fx, n);
        script_step(&w, 0);
        w.b.dt = frame_dt(0);
        mb_controller *held = w.c[bad_null];
        w.c[bad_null] = NULL;
        w.poses[bad_short].count = fx.nj - 1;
        mb_controller_pool *pool = NULL;
        mb_status st;
        if (threads > 0) {
            mb_controller_pool_desc pd = {0};
            pd.threads = threads;
            cr_assert_eq(mb_controller_pool_create(&pd, &pool, NULL), MB_OK);
            st = mb_controller_pool_update(pool, &w.b);
        } else {
            st = mb_controller_update_range(&w.b, 0, n);
        }
        cr_assert_eq(st, MB_TOO_SMALL, "threads %d: the first failure is the short pose (got %s)", threads,
                     mb_status_str(st));
        cr_assert_eq(w.st[bad_short], MB_TOO_SMALL);
        cr_assert_eq(w.st[bad_null], MB_INVALID_ARG);
        for (int i = 0; i < n; ++i) {
            if (i == bad_short || i == bad_null)
                continue;
            cr_assert_eq(w.st[i], MB_OK);
            cr_assert(memcmp(w.poses[i].joints, want + (size_t)i * fx.nj, sizeof *want * fx.nj) == 0,
                      "threads %d: character %d", threads, i);
        }
        /* a range holding only the later failure reports it */
        if (threads == 0)
            cr_assert_eq(mb_controller_update_range(&w.b, 50, 550), MB_INVALID_ARG);
        /* whichever thread reports last, the lowest index wins (frames later too) */
        for (int k = 0; threads > 0 && k < 40; ++k)
            cr_assert_eq(mb_controller_pool_update(pool, &w.b), MB_TOO_SMALL, "threads %d, frame %d", threads, k + 1);
        mb_controller_pool_destroy(pool);
        w.c[bad_null] = held;
        free_crowd(&w);
    }
    free(want);
    free(want_rm);
    free_fixture(&fx);
}

/* Bad batches and ranges: MB_INVALID_ARG and nothing updated (outputs and controllers). */
Test(crowd, rejects_bad_batches_and_changes_nothing)
{
    fixture fx = make_fixture();
    int n = 40;
    crowd w = make_crowd(&fx, n);
    w.b.dt = 1.0f / 60;
    mb_controller_pool_desc pd = {0};
    pd.threads = 2;
    mb_controller_pool *pool = NULL;
    cr_assert_eq(mb_controller_pool_create(&pd, &pool, NULL), MB_OK);
    for (size_t i = 0; i < (size_t)n * fx.nj; ++i)
        w.joints[i].pos[0] = 12345.0f;
    for (int i = 0; i < n; ++i)
        w.st[i] = MB_NUMERIC;
    mb_controller_batch b = w.b;
    cr_assert_eq(mb_controller_update_range(NULL, 0, 1), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_pool_update(pool, NULL), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_pool_update(NULL, &b), MB_INVALID_ARG);
    int ranges[][2] = {{-1, 2}, {0, -1}, {0, n + 1}, {n, 1}, {n + 1, 0}, {1, n}, {2, 2147483647}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; ++r)
        cr_assert_eq(mb_controller_update_range(&b, ranges[r][0], ranges[r][1]), MB_INVALID_ARG, "range %d, %d",
                     ranges[r][0], ranges[r][1]);
    float dts[] = {-1e-6f, NAN, INFINITY, 3601.0f};
    for (int which = 0; which < 7; ++which) {
        b = w.b;
        if (which < 4)
            b.dt = dts[which];
        else if (which == 4)
            b.controllers = NULL;
        else if (which == 5)
            b.poses = NULL;
        else
            b.count = -1;
        cr_assert_eq(mb_controller_update_range(&b, 0, which == 6 ? 0 : n), MB_INVALID_ARG, "case %d", which);
        cr_assert_eq(mb_controller_pool_update(pool, &b), MB_INVALID_ARG, "case %d", which);
    }
    for (size_t i = 0; i < (size_t)n * fx.nj; ++i)
        cr_assert_eq(w.joints[i].pos[0], 12345.0f, "an output was written");
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(w.st[i], MB_NUMERIC, "a status was written");
        mb_controller_status s;
        cr_assert_eq(mb_controller_get_status(w.c[i], &s), MB_OK);
        cr_assert_eq(s.tracks, 1);
        cr_assert_float_eq(s.phase, (i * 0.618) - floor(i * 0.618), 1e-6, "character %d moved", i);
    }
    /* empty ranges and batches are fine */
    cr_assert_eq(mb_controller_update_range(&w.b, n, 0), MB_OK);
    b = w.b;
    b.count = 0;
    cr_assert_eq(mb_controller_pool_update(pool, &b), MB_OK);
    mb_controller_pool_destroy(pool);

    mb_error e;
    mb_controller_pool *p = (mb_controller_pool *)&e; /* must be cleared */
    int bad_threads[] = {0, -1, MB_CONTROLLER_POOL_MAX_THREADS + 1};
    for (int i = 0; i < 3; ++i) {
        pd.threads = bad_threads[i];
        cr_assert_eq(mb_controller_pool_create(&pd, &p, &e), MB_INVALID_ARG);
        cr_assert_null(p);
        cr_assert_str_eq(e.source, "controller pool");
        cr_assert(strstr(e.text, "threads") != NULL, "%s", e.text);
    }
    cr_assert_eq(mb_controller_pool_create(NULL, &p, &e), MB_INVALID_ARG);
    pd.threads = 2;
    cr_assert_eq(mb_controller_pool_create(&pd, NULL, &e), MB_INVALID_ARG);
    cr_assert_eq(mb_controller_pool_threads(NULL), 0);
    mb_controller_pool_destroy(NULL);
    free_crowd(&w);
    free_fixture(&fx);
}

/* The pool's threads use the caller's rounding mode: under FE_UPWARD the pool gives what
 * updating each character alone under FE_UPWARD gives, which differs from round-to-nearest. */
Test(crowd, pool_threads_run_in_the_callers_floating_point_environment)
{
    fixture fx = make_fixture();
    int n = 800, frames = 3; /* 50 chunks a frame: the pool's threads take some */
    size_t per = (size_t)n * fx.nj;
    mb_xform *near = malloc(sizeof *near * per * frames), *up = malloc(sizeof *up * per * frames);
    mb_root_motion *rm = malloc(sizeof *rm * (size_t)n * frames);
    run_reference(&fx, n, frames, near, rm);
    run_reference_in(&fx, n, frames, FE_UPWARD, up, rm);
    cr_assert(memcmp(near, up, sizeof *up * per * frames) != 0, "the rounding mode should show");
    crowd w = make_crowd(&fx, n);
    mb_controller_pool_desc pd = {0};
    pd.threads = 3;
    mb_controller_pool *pool = NULL;
    cr_assert_eq(mb_controller_pool_create(&pd, &pool, NULL), MB_OK);
    for (int k = 0; k < frames; ++k) {
        script_step(&w, k);
        w.b.dt = frame_dt(k);
        fesetround(FE_UPWARD);
        mb_status st = mb_controller_pool_update(pool, &w.b);
        fesetround(FE_TONEAREST);
        cr_assert_eq(st, MB_OK);
        for (int i = 0; i < n; ++i)
            cr_assert(memcmp(w.poses[i].joints, up + k * per + (size_t)i * fx.nj, sizeof *up * fx.nj) == 0,
                      "frame %d character %d: not the FE_UPWARD bits", k, i);
    }
    mb_controller_pool_destroy(pool);
    free_crowd(&w);
    free(near);
    free(up);
    free(rm);
    free_fixture(&fx);
}

/* The pool allocates through the hooks when made (the pool and its thread list), never
 * during updates. */
static int alloc_calls, free_calls;
static void *count_alloc(size_t n, void *user)
{
    (void)user;
    ++alloc_calls;
    return malloc(n);
}
static void count_free(void *p, void *user)
{
    (void)user;
    ++free_calls;
    free(p);
}

Test(crowd, pool_allocates_only_when_made)
{
    fixture fx = make_fixture();
    crowd w = make_crowd(&fx, 50);
    w.b.dt = 1.0f / 60;
    mb_controller_pool_desc pd = {0};
    pd.threads = 3;
    pd.allocator.alloc = count_alloc;
    pd.allocator.free = count_free;
    mb_controller_pool *pool = NULL;
    alloc_calls = free_calls = 0;
    cr_assert_eq(mb_controller_pool_create(&pd, &pool, NULL), MB_OK);
    int made = alloc_calls;
    cr_assert(made >= 1 && made <= 2);
    for (int k = 0; k < 30; ++k)
        cr_assert_eq(mb_controller_pool_update(pool, &w.b), MB_OK);
    cr_assert_eq(alloc_calls, made);
    mb_controller_pool_destroy(pool);
    cr_assert_eq(free_calls, made);
    free_crowd(&w);
    free_fixture(&fx);
}
