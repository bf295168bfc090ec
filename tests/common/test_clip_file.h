/* Shared by the test executables that load real clips and analyse them (motion, match,
 * transition): a BVH file of ../shared/data/bvh with its mb_motion_analyze summary. */
#ifndef MB_TEST_CLIP_FILE_H
#define MB_TEST_CLIP_FILE_H

#include "mblend/mblend.h"
#include "test_util.h"

typedef struct mb_test_clip {
    mb_skeleton *s;
    mb_clip *c;
    mb_motion_info info;
} mb_test_clip;

/* Loads bvh/<rel> and analyses it (default analysis); the test fails on any error. */
static inline mb_test_clip mb_test_clip_load(const char *rel)
{
    mb_test_clip f;
    mb_error e;
    char path[512];
    snprintf(path, sizeof path, "bvh/%s", rel);
    cr_assert_eq(mb_bvh_read_file(mb_shared_path(path), NULL, &f.s, &f.c, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_motion_analyze(f.s, f.c, NULL, rel, &f.info, &e), MB_OK, "%s", e.text);
    return f;
}

static inline void mb_test_clip_unload(mb_test_clip *f)
{
    mb_clip_destroy(f->c);
    mb_skeleton_destroy(f->s);
}

/* A and B prepared as one character (mb_clips_prepare: B on A's up axis), named na and nb;
 * the test fails on any error. Destroy both with mb_prepared_clip_destroy. */
static inline void mb_test_prepare_pair(const mb_test_clip *a, const char *na, const mb_test_clip *b,
                                        const char *nb, mb_prepared_clip *out[2])
{
    mb_prepare_desc pd[2] = {{0}, {0}};
    pd[0].skeleton = a->s;
    pd[0].clip = a->c;
    pd[0].source = na;
    pd[1].skeleton = b->s;
    pd[1].clip = b->c;
    pd[1].source = nb;
    mb_error e;
    cr_assert_eq(mb_clips_prepare(pd, 2, out, &e), MB_OK, "%s", e.text);
}

#endif
