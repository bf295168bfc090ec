/* The generated clips data/bvh/walk.bvh and run.bvh (tools/gen): skeleton, speeds, gait
 * cycles, foot contacts, arm swing, and that the generator reproduces them byte for byte.
 *
 * Measurements are made on world positions from the library's FK, in cm, Y up, the
 * character travelling along +Z. A foot's contact point is its ball (the ToeBase joint):
 * it is "in stance" in a frame when its height is within 2 cm of its lowest height in the
 * clip; the contact onsets (first frame of each stance run) give the steps and cycles. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/offline/bvh.h"
#include "test_cli_util.h"
#include "test_util.h"

#define DATA_DIR MB_PROJECT_DIR "/data/bvh"
#define GEN MB_BINARY_DIR "/tools/gen/mblend_gen"
#define MAX_ONSETS 64

typedef struct clip_fk {
    mb_skeleton *s;
    mb_clip *c;
    int nj, nf;
    double dt;
    float (*w)[16]; /* [frame][joint] world matrices */
} clip_fk;

static clip_fk load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DATA_DIR, name);
    clip_fk k;
    memset(&k, 0, sizeof k);
    mb_error err;
    mb_status st = mb_bvh_read_file(path, NULL, &k.s, &k.c, &err);
    char msg[600];
    cr_assert_eq(st, MB_OK, "%s (generate with: mblend_gen data/bvh)",
                 mb_error_format(&err, msg, sizeof msg));
    k.nj = mb_skeleton_joint_count(k.s);
    k.nf = mb_clip_frame_count(k.c);
    k.dt = mb_clip_frame_time(k.c);
    k.w = malloc((size_t)k.nj * (size_t)k.nf * sizeof *k.w);
    mb_xform *pose = malloc((size_t)k.nj * sizeof *pose);
    cr_assert(k.w && pose);
    for (int f = 0; f < k.nf; ++f) {
        mb_pose p = {pose, k.nj};
        cr_assert_eq(mb_clip_frame_pose(k.s, k.c, f, p), MB_OK);
        cr_assert_eq(mb_fk(k.s, &p, k.w + (size_t)f * (size_t)k.nj, k.nj), MB_OK);
    }
    free(pose);
    return k;
}

static void unload(clip_fk *k)
{
    free(k->w);
    mb_clip_destroy(k->c);
    mb_skeleton_destroy(k->s);
}

static double P(const clip_fk *k, int f, int j, int axis)
{
    return k->w[(size_t)f * (size_t)k->nj + (size_t)j][12 + axis];
}

static int joint(const clip_fk *k, const char *name)
{
    int j = mb_skeleton_find(k->s, name);
    cr_assert_geq(j, 0, "no joint %s", name);
    return j;
}

static double mean_speed(const clip_fk *k)
{
    return (P(k, k->nf - 1, 0, 2) - P(k, 0, 0, 2)) / ((k->nf - 1) * k->dt);
}

/* Stance flags and onsets of a foot's ball; returns the onset count. The first frame is
 * not an onset (the stance may have begun before the clip). */
static int stance(const clip_fk *k, int j, int *in_stance, int *onsets)
{
    double lo = INFINITY;
    for (int f = 0; f < k->nf; ++f)
        lo = fmin(lo, P(k, f, j, 1));
    int n = 0;
    for (int f = 0; f < k->nf; ++f) {
        in_stance[f] = P(k, f, j, 1) < lo + 2.0;
        if (f > 0 && in_stance[f] && !in_stance[f - 1] && n < MAX_ONSETS)
            onsets[n++] = f;
    }
    return n;
}

static double pearson(const double *a, const double *b, int n)
{
    double ma = 0, mb = 0;
    for (int i = 0; i < n; ++i) {
        ma += a[i];
        mb += b[i];
    }
    ma /= n;
    mb /= n;
    double sab = 0, saa = 0, sbb = 0;
    for (int i = 0; i < n; ++i) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / sqrt(saa * sbb);
}

/* ---------------------------------------------------------------- skeleton */

Test(gen, one_humanoid_skeleton)
{
    clip_fk w = load("walk.bvh"), r = load("run.bvh");
    int diff = -2;
    cr_assert(mb_skeleton_same_topology(w.s, r.s, &diff), "topologies differ at joint %d", diff);
    int real = 0;
    for (int j = 0; j < w.nj; ++j)
        real += !mb_skeleton_is_end_site(w.s, j);
    cr_assert(real >= 20 && real <= 30, "%d joints", real);
    /* Root: Hips with Xposition Yposition Zposition Zrotation Xrotation Yrotation. */
    cr_assert_str_eq(mb_skeleton_name(w.s, 0), "Hips");
    const mb_channel *ch;
    cr_assert_eq(mb_skeleton_channels(w.s, 0, &ch), 6);
    static const mb_channel want[6] = {MB_CH_XPOS, MB_CH_YPOS, MB_CH_ZPOS,
                                       MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
    for (int i = 0; i < 6; ++i)
        cr_assert_eq(ch[i], want[i]);
    const char *names[] = {"Spine", "Neck", "Head", "LeftShoulder", "LeftArm", "LeftForeArm",
                           "LeftHand", "RightHand", "LeftUpLeg", "LeftLeg", "LeftFoot",
                           "LeftToeBase", "RightToeBase"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        joint(&w, names[i]);
    /* Rest pose: about 170 cm tall, standing on y = 0, Y up. */
    mb_xform pose[64];
    float world[64][16];
    cr_assert_leq(w.nj, 64);
    mb_pose p = {pose, w.nj};
    mb_skeleton_rest_pose(w.s, p);
    mb_fk(w.s, &p, world, w.nj);
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < w.nj; ++j) {
        lo = fmin(lo, world[j][13]);
        hi = fmax(hi, world[j][13]);
    }
    cr_assert(hi - lo > 160 && hi - lo < 180, "rest height %g", hi - lo);
    cr_assert(fabs(lo) < 3.0, "rest pose feet at y = %g", lo);
    cr_assert_float_eq(w.dt, r.dt, 1e-9);
    unload(&w);
    unload(&r);
}

/* ---------------------------------------------------------------- motion */

typedef struct expect {
    const char *file;
    double speed_lo, speed_hi; /* cm/s */
    double cycle;              /* s */
} expect;

static void check_gait(expect e)
{
    clip_fk k = load(e.file);
    int nf = k.nf;

    /* The root moves forward (+Z) every frame, at the expected mean speed. */
    for (int f = 1; f < nf; ++f)
        cr_assert_gt(P(&k, f, 0, 2), P(&k, f - 1, 0, 2), "%s: root not advancing at frame %d",
                     e.file, f);
    double v = mean_speed(&k);
    cr_assert(v >= e.speed_lo && v <= e.speed_hi, "%s: mean speed %g cm/s", e.file, v);
    /* Sideways drift stays small. */
    cr_assert_lt(fabs(P(&k, nf - 1, 0, 0) - P(&k, 0, 0, 0)), 5.0);

    /* Feet: ball within 2 cm of its lowest => nearly still (< 10 % of the root speed). */
    int *st[2], on[2][MAX_ONSETS], non[2];
    const char *ball[2] = {"LeftToeBase", "RightToeBase"};
    for (int s = 0; s < 2; ++s) {
        int j = joint(&k, ball[s]);
        st[s] = malloc((size_t)nf * sizeof(int));
        non[s] = stance(&k, j, st[s], on[s]);
        double lo = INFINITY;
        for (int f = 0; f < nf; ++f)
            lo = fmin(lo, P(&k, f, j, 1));
        cr_assert(lo > -0.5 && lo < 3.0, "%s: %s lowest at %g cm, not on the ground", e.file,
                  ball[s], lo);
        for (int f = 1; f + 1 < nf; ++f) {
            if (!st[s][f])
                continue;
            double dx = P(&k, f + 1, j, 0) - P(&k, f - 1, j, 0);
            double dz = P(&k, f + 1, j, 2) - P(&k, f - 1, j, 2);
            double speed = sqrt(dx * dx + dz * dz) / (2 * k.dt);
            cr_assert_lt(speed, 0.1 * v, "%s: %s slides at %g cm/s in stance (frame %d)", e.file,
                         ball[s], speed, f);
        }
        /* Several cycles, each about the expected length. */
        cr_assert_geq(non[s], 3, "%s: %s has %d contacts", e.file, ball[s], non[s]);
        double cycle = (on[s][non[s] - 1] - on[s][0]) * k.dt / (non[s] - 1);
        cr_assert(fabs(cycle - e.cycle) < 0.1 * e.cycle, "%s: cycle %g s", e.file, cycle);
        /* Stance is a minority of the frames for running, a good part for walking. */
    }

    /* Left and right contacts alternate. */
    int i = 0, j = 0, last = -1, merged = 0;
    while (i < non[0] || j < non[1]) {
        int side = (j >= non[1] || (i < non[0] && on[0][i] < on[1][j])) ? 0 : 1;
        cr_assert_neq(side, last, "%s: two %s contacts in a row (frame %d)", e.file,
                      side ? "right" : "left", side ? on[1][j] : on[0][i]);
        last = side;
        if (side)
            ++j;
        else
            ++i;
        ++merged;
    }
    cr_assert_geq(merged, 6);

    /* Arms swing opposite to the legs: hand vs same-side foot, forward offsets from the root. */
    const char *hand[2] = {"LeftHand", "RightHand"}, *foot[2] = {"LeftFoot", "RightFoot"};
    double *a = malloc((size_t)nf * sizeof *a), *b = malloc((size_t)nf * sizeof *b);
    for (int s = 0; s < 2; ++s) {
        int jh = joint(&k, hand[s]), jf = joint(&k, foot[s]);
        for (int f = 0; f < nf; ++f) {
            a[f] = P(&k, f, jh, 2) - P(&k, f, 0, 2);
            b[f] = P(&k, f, jf, 2) - P(&k, f, 0, 2);
        }
        double r = pearson(a, b, nf);
        cr_assert_lt(r, -0.5, "%s: %s vs %s correlation %g", e.file, hand[s], foot[s], r);
    }
    free(a);
    free(b);
    free(st[0]);
    free(st[1]);
    unload(&k);
}

Test(gen, walk) { check_gait((expect){"walk.bvh", 120, 160, 1.1}); }
Test(gen, run) { check_gait((expect){"run.bvh", 300, 400, 0.7}); }

Test(gen, pelvis_bobs_and_torso_counter_rotates)
{
    clip_fk k = load("walk.bvh");
    /* Hips height varies by a few cm. */
    double lo = INFINITY, hi = -INFINITY;
    for (int f = 0; f < k.nf; ++f) {
        lo = fmin(lo, P(&k, f, 0, 1));
        hi = fmax(hi, P(&k, f, 0, 1));
    }
    cr_assert(hi - lo > 1.5 && hi - lo < 10, "pelvis bob %g cm", hi - lo);
    /* Shoulder line vs hip line yaw: opposite signs (correlation of their Z extents < 0). */
    int ls = joint(&k, "LeftArm"), rs = joint(&k, "RightArm");
    int lh = joint(&k, "LeftUpLeg"), rh = joint(&k, "RightUpLeg");
    double *a = malloc((size_t)k.nf * sizeof *a), *b = malloc((size_t)k.nf * sizeof *b);
    for (int f = 0; f < k.nf; ++f) {
        a[f] = P(&k, f, ls, 2) - P(&k, f, rs, 2);
        b[f] = P(&k, f, lh, 2) - P(&k, f, rh, 2);
    }
    double r = pearson(a, b, k.nf);
    cr_assert_lt(r, -0.5, "shoulder vs pelvis rotation correlation %g", r);
    free(a);
    free(b);
    unload(&k);
}

/* ---------------------------------------------------------------- determinism */

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

Test(gen, regenerating_gives_identical_files)
{
    char dir[] = "/tmp/mb_test_gen_XXXXXX";
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    int code = mb_test_exec(GEN, (const char *const[]){dir, NULL}, NULL, NULL);
    cr_assert_eq(code, 0, "%s failed (status %d)", GEN, code);
    const char *files[] = {"walk.bvh", "run.bvh"};
    for (int i = 0; i < 2; ++i) {
        char fresh[256], committed[1024];
        snprintf(fresh, sizeof fresh, "%s/%s", dir, files[i]);
        snprintf(committed, sizeof committed, "%s/%s", DATA_DIR, files[i]);
        cr_assert(same_file(fresh, committed),
                  "%s differs from the committed %s: regenerate with mblend_gen %s", fresh,
                  committed, DATA_DIR);
        remove(fresh);
    }
    rmdir(dir);
}
