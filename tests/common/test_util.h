/* Shared helpers for the test executables. */
#ifndef MB_TEST_UTIL_H
#define MB_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "mblend/mblend.h"

#ifndef MB_TEST_WITH_ASSIMP
#error "MB_TEST_WITH_ASSIMP (1 or 0) comes from tests/CMakeLists.txt"
#endif

/* The tests' random numbers: xorshift64 on a state each test file seeds itself (so a
 * file's random cases stay the same whatever the others do). */
static inline uint64_t mb_test_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Uniform in [0, 1), from the top 53 bits. */
static inline double mb_test_unit(uint64_t *state)
{
    return (double)(mb_test_xorshift(state) >> 11) / 9007199254740992.0;
}

/* The rotation matrix of unit quaternion q (x, y, z, w), r[row][column], in double: the
 * tests' own reference, independent of the library's conversion. */
static inline void mb_test_quat_rot3(const double q[4], double r[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0][0] = 1 - 2 * (y * y + z * z);
    r[0][1] = 2 * (x * y - z * w);
    r[0][2] = 2 * (x * z + y * w);
    r[1][0] = 2 * (x * y + z * w);
    r[1][1] = 1 - 2 * (x * x + z * z);
    r[1][2] = 2 * (y * z - x * w);
    r[2][0] = 2 * (x * z - y * w);
    r[2][1] = 2 * (y * z + x * w);
    r[2][2] = 1 - 2 * (x * x + y * y);
}

/* For tests that read scenes: skips when the library was built without assimp, but fails
 * when the build was configured with MB_WITH_ASSIMP=ON, so those tests never skip silently
 * in a build that promised them. */
static inline void mb_test_need_assimp(void)
{
    if (mb_scene_supported())
        return;
    cr_assert(!MB_TEST_WITH_ASSIMP, "configured with MB_WITH_ASSIMP=ON, yet mb_scene_supported() says no");
    cr_skip_test("mblend was built without assimp (MB_WITH_ASSIMP=OFF)");
}

/* Creates or replaces path with text (a test's input or a file a command must leave alone). */
static inline void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

/* The whole file at path, NUL-terminated (also past binary content), its length in *len
 * (len may be NULL); read in chunks, so pipes and FIFOs work too. The test fails when the
 * file cannot be read. The caller frees the buffer. The one file reader of the tests. */
static inline char *mb_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot read %s", path);
    size_t cap = 4096, n = 0, r;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
    }
    cr_assert(!ferror(f), "error reading %s", path);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Creates or replaces path with the n bytes at data. */
static inline void mb_test_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n, "cannot write %s", path);
    cr_assert_eq(fclose(f), 0, "cannot write %s", path);
}

/* Path of a file under ../shared/data; aborts the test with a clear message when the
 * shared data folder is absent (the real-data tests must not silently skip). */
static inline const char *mb_shared_path(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/data/%s", MB_SHARED_DIR, rel);
    FILE *f = fopen(buf, "rb");
    if (!f)
        cr_assert_fail("shared data file missing: %s (the real-data tests need ../shared/data)", buf);
    fclose(f);
    return buf;
}

/* A clip of skeleton s from full [frame][joint][3] translations, the layout tests find
 * simplest to write: only the skeleton's joints with position channels are kept (the
 * clip's tracked joints); every other joint's translation is its offset in the clip, as
 * it always was when sampled or written. Rotations as in mb_clip_desc. */
static inline mb_status mb_test_clip_full(const mb_skeleton *s, int frames, double frame_time,
                                          const float *rot, const float *tr_full, mb_clip **out)
{
    int nj = mb_skeleton_joint_count(s), nt;
    const int *tj = mb_skeleton_translation_joints(s, &nt);
    float *tr = malloc(((size_t)frames * (size_t)nt * 3 + 1) * sizeof *tr);
    cr_assert_not_null(tr);
    for (int f = 0; f < frames; ++f)
        for (int k = 0; k < nt; ++k)
            memcpy(&tr[3 * ((size_t)f * nt + k)], &tr_full[3 * ((size_t)f * nj + tj[k])],
                   3 * sizeof *tr);
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = nj;
    cd.frame_count = frames;
    cd.frame_time = frame_time;
    cd.rotations = rot;
    cd.translation_joints = tj;
    cd.translation_count = nt;
    cd.translations = nt > 0 ? tr : NULL;
    mb_status st = mb_clip_create(&cd, out, NULL);
    free(tr);
    return st;
}

#endif
