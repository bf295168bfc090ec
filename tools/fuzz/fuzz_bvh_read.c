/* libFuzzer target for the BVH reader.
 *
 * Reads the input strictly and leniently. On failure: both outputs NULL, the error
 * struct consistent with the status. On success: the skeleton and clip agree, every
 * stored rotation is a unit quaternion, tracks are sign-continuous, and the first and last
 * frames go through mb_clip_frame_pose + mb_fk to finite world matrices (when the offsets
 * and translations are small enough that their sums cannot overflow float), and a small
 * clip written back as BVH reads back as the same joints, frames and rotations. Any broken
 * invariant aborts, which libFuzzer reports as a crash. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mblend/offline/bvh.h"

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "fuzz_bvh_read: invariant failed at line %d: %s\n", __LINE__, \
                    #cond);                                                              \
            abort();                                                                     \
        }                                                                                \
    } while (0)

static int has_nul(const char *s, size_t n) { return memchr(s, '\0', n) != NULL; }

static void check_error(const mb_error *e, mb_status st)
{
    CHECK(e->code == st);
    CHECK(has_nul(e->text, sizeof e->text));
    CHECK(has_nul(e->source, sizeof e->source));
    CHECK(e->text[0] != '\0');
    CHECK(strcmp(e->source, "fuzz.bvh") == 0);
    CHECK(e->line >= 0 && e->column >= 0);
    CHECK((e->line == 0) == (e->column == 0));
    char buf[600];
    mb_error_format(e, buf, sizeof buf);
}

static void check_pose_and_fk(const mb_skeleton *s, const mb_clip *c, int frame,
                              mb_xform *pose, float (*world)[16], int finite_expected)
{
    int n = mb_skeleton_joint_count(s);
    mb_pose p = {pose, n};
    CHECK(mb_clip_frame_pose(s, c, frame, p) == MB_OK);
    for (int j = 0; j < n; ++j) {
        const float *q = pose[j].rot;
        double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                    (double)q[3] * q[3];
        CHECK(fabs(n2 - 1.0) < 1e-5);
        for (int k = 0; k < 3; ++k)
            CHECK(isfinite(pose[j].pos[k]));
    }
    CHECK(mb_fk(s, &p, world, n) == MB_OK);
    if (finite_expected)
        for (int j = 0; j < n; ++j)
            for (int k = 0; k < 16; ++k)
                CHECK(isfinite(world[j][k]));
}

static void check_loaded(const mb_skeleton *s, const mb_clip *c)
{
    int n = mb_skeleton_joint_count(s);
    CHECK(n >= 1 && n <= MB_MAX_JOINTS);
    CHECK(mb_clip_joint_count(c) == n);
    int frames = mb_clip_frame_count(c);
    CHECK(frames >= 0 && frames <= MB_MAX_FRAMES);
    double ft = mb_clip_frame_time(c);
    CHECK(ft > 0.0 && isfinite(ft));
    const int *parents = mb_skeleton_parents(s);
    int channels = 0;
    double max_abs = 0.0;
    for (int j = 0; j < n; ++j) {
        CHECK(j == 0 ? parents[j] == -1 : (parents[j] >= 0 && parents[j] < j));
        const char *name = mb_skeleton_name(s, j);
        CHECK(name && name[0] && strlen(name) <= MB_MAX_NAME);
        CHECK(mb_skeleton_find(s, name) == j);
        const mb_channel *ch;
        int nc = mb_skeleton_channels(s, j, &ch);
        CHECK(nc >= 0 && nc <= 6);
        CHECK(!mb_skeleton_is_end_site(s, j) || nc == 0);
        channels += nc;
        const float *off = mb_skeleton_offset(s, j);
        for (int k = 0; k < 3; ++k) {
            CHECK(isfinite(off[k]));
            if (fabs(off[k]) > max_abs)
                max_abs = fabs(off[k]);
        }
    }
    CHECK(channels == mb_skeleton_channel_count(s));
    if (frames == 0)
        return;

    /* Whole tracks: unit, sign-continuous, finite translations. Bounded work per input. */
    const float *rot = mb_clip_rotations(c);
    const float *tr = mb_clip_translations(c);
    size_t total = (size_t)frames * (size_t)n;
    size_t check = total < 200000 ? total : 200000;
    for (size_t i = 0; i < check; ++i) {
        const float *q = rot + 4 * i;
        double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                    (double)q[3] * q[3];
        CHECK(fabs(n2 - 1.0) < 1e-5);
        if (i >= (size_t)n) {
            const float *p = q - 4 * n;
            CHECK(q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] >= 0.0f);
        }
        if (mb_skeleton_is_end_site(s, (int)(i % (size_t)n)))
            CHECK(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && q[3] == 1.0f);
    }
    /* Translations: exactly the joints with position channels are tracked. */
    int nt = mb_clip_translation_count(c), snt;
    const int *tj = mb_clip_translation_joints(c), *sj = mb_skeleton_translation_joints(s, &snt);
    CHECK(nt == snt && (nt == 0) == (tr == NULL));
    for (int k = 0; k < nt; ++k)
        CHECK(tj[k] == sj[k] && mb_clip_translation_slot(c, tj[k]) == k);
    if (tr)
        for (size_t i = 0; i < 3 * (size_t)frames * (size_t)nt; ++i) {
            CHECK(isfinite(tr[i]));
            if (fabs(tr[i]) > max_abs)
                max_abs = fabs(tr[i]);
        }
    /* A chain of n translations of at most max_abs stays below n * max_abs. */
    int finite_expected = max_abs * (double)n < 1e37;

    mb_xform *pose = malloc((size_t)n * sizeof *pose);
    float(*world)[16] = malloc((size_t)n * sizeof *world);
    CHECK(pose && world);
    check_pose_and_fk(s, c, 0, pose, world, finite_expected);
    check_pose_and_fk(s, c, frames - 1, pose, world, finite_expected);
    free(pose);
    free(world);
}

/* What the writer makes of a loaded clip reads back: the same joints (names, parents, End
 * Sites), frames and rotations to float rounding, with and without drop_still_positions. A
 * write may refuse (a name that would not read back, a non-finite value), never crash.
 * Bounded work: small clips only. */
static void check_round_trip(const mb_skeleton *s, const mb_clip *c)
{
    int n = mb_skeleton_joint_count(s), frames = mb_clip_frame_count(c);
    if ((long)n * (frames + 1) > 20000)
        return;
    for (int drop = 0; drop < 2; ++drop) {
        mb_bvh_write_desc wd;
        memset(&wd, 0, sizeof wd);
        wd.drop_still_positions = drop;
        char *text = NULL;
        size_t len = 0;
        mb_error err;
        mb_status st = mb_bvh_write_mem(s, c, &wd, &text, &len, &err);
        if (st != MB_OK) {
            CHECK(text == NULL);
            CHECK(st == MB_INVALID_ARG || st == MB_NUMERIC || st == MB_NOMEM);
            continue;
        }
        mb_skeleton *s2 = NULL;
        mb_clip *c2 = NULL;
        st = mb_bvh_read_mem(text, len, "written.bvh", NULL, &s2, &c2, &err);
        if (st != MB_OK)
            fprintf(stderr, "fuzz_bvh_read: the written text does not read back: %s\n%.2000s\n",
                    err.text, text);
        CHECK(st == MB_OK);
        CHECK(mb_skeleton_joint_count(s2) == n && mb_clip_frame_count(c2) == frames);
        for (int j = 0; j < n; ++j) {
            CHECK(strcmp(mb_skeleton_name(s2, j), mb_skeleton_name(s, j)) == 0);
            CHECK(mb_skeleton_parents(s2)[j] == mb_skeleton_parents(s)[j]);
            CHECK(mb_skeleton_is_end_site(s2, j) == mb_skeleton_is_end_site(s, j));
        }
        const float *q1 = mb_clip_rotations(c), *q2 = mb_clip_rotations(c2);
        for (size_t i = 0; i < (size_t)frames * (size_t)n; ++i) {
            const float *a = q1 + 4 * i, *b = q2 + 4 * i;
            double dot = 0.0, na = 0.0, nb = 0.0;
            for (int k = 0; k < 4; ++k) {
                dot += (double)a[k] * b[k];
                na += (double)a[k] * a[k];
                nb += (double)b[k] * b[k];
            }
            CHECK(dot * dot >= (1.0 - 2e-9) * na * nb); /* under 9e-5 rad apart */
        }
        free(text);
        mb_skeleton_destroy(s2);
        mb_clip_destroy(c2);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int strict_frames = -1;
    mb_status strict_status = MB_OK;
    for (int lenient = 0; lenient < 2; ++lenient) {
        mb_bvh_read_desc d;
        memset(&d, 0, sizeof d);
        d.lenient = lenient;
        mb_error warning, err;
        d.warning = &warning;
        mb_skeleton *s = NULL;
        mb_clip *c = NULL;
        mb_status st = mb_bvh_read_mem((const char *)data, size, "fuzz.bvh", &d, &s, &c, &err);
        if (!lenient)
            strict_status = st;
        if (st != MB_OK) {
            CHECK(s == NULL && c == NULL);
            check_error(&err, st);
            CHECK(st == MB_PARSE || st == MB_LIMIT || st == MB_NOMEM);
            /* A strict success must stay a success when lenient. */
            CHECK(!(lenient && strict_frames >= 0));
            continue;
        }
        CHECK(s != NULL && c != NULL);
        CHECK(warning.code == MB_OK || warning.code == MB_MISMATCH);
        if (!lenient) {
            CHECK(warning.code == MB_OK); /* strict mode fails instead of warning */
            strict_frames = mb_clip_frame_count(c);
        } else if (strict_frames >= 0) {
            CHECK(mb_clip_frame_count(c) == strict_frames);
            CHECK(warning.code == MB_OK);
        }
        if (warning.code != MB_OK) {
            CHECK(warning.text[0] != '\0' && has_nul(warning.text, sizeof warning.text));
            CHECK(warning.line >= 1);
        }
        check_loaded(s, c);
        if (lenient)
            check_round_trip(s, c);
        mb_skeleton_destroy(s);
        mb_clip_destroy(c);
    }
    /* Skeleton only, no error struct: the same verdict as the strict read. */
    mb_skeleton *s = NULL;
    mb_status st = mb_bvh_read_mem((const char *)data, size, NULL, NULL, &s, NULL, NULL);
    CHECK(st == strict_status);
    CHECK((st == MB_OK) == (s != NULL));
    mb_skeleton_destroy(s);
    return 0;
}
