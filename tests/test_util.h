/* Shared helpers for the test executables. */
#ifndef MB_TEST_UTIL_H
#define MB_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "mblend/anim.h"

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
    mb_status st = mb_clip_create(&cd, out);
    free(tr);
    return st;
}

#endif
