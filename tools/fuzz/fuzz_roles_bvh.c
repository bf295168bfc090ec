/* libFuzzer target for roles, mirroring and retargeting on any BVH the reader accepts
 * (leniently, the CLI's default): mb_roles_find gives self-consistent roles that pair
 * symmetrically; mb_clip_mirror and mb_retarget (the input onto a small humanoid and the
 * humanoid onto the input) end in a documented refusal with its message or a clip with the
 * right frames and unit rotations (finite when the input's numbers are moderate). Bounded
 * work: clips of at most 20000 joint-frames. */
#include <stdint.h>

#include "fuzz_roles_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Offsets and translations below 1e6: the arithmetic cannot overflow float. */
static int moderate(const mb_skeleton *s, const mb_clip *c)
{
    int n = mb_skeleton_joint_count(s);
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 3; ++k)
            if (!(fabsf(mb_skeleton_offset(s, j)[k]) < 1e6f))
                return 0;
    const float *t = mb_clip_translations(c);
    size_t nt = 3 * (size_t)mb_clip_frame_count(c) * (size_t)mb_clip_translation_count(c);
    for (size_t i = 0; t && i < nt; ++i)
        if (!(fabsf(t[i]) < 1e6f))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mb_skeleton *hs;
    static mb_clip *hc;
    static mb_roles hr;
    if (!hs) {
        fz_humanoid_load(&hs, &hc);
        mb_error e;
        CHECK(mb_roles_find(hs, NULL, &hr, &e) == MB_OK);
    }
    mb_bvh_read_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.lenient = 1;
    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    mb_error e;
    if (mb_bvh_read_mem((const char *)data, size, "fuzz.bvh", &rd, &s, &c, &e) != MB_OK)
        return 0;
    int n = mb_skeleton_joint_count(s), frames = mb_clip_frame_count(c);
    if ((long)n * (frames + 1) <= 20000) {
        mb_roles r;
        mb_status st = mb_roles_find(s, NULL, &r, &e);
        CHECK(st == MB_OK);
        fz_check_roles(s, &r);
        int finite = moderate(s, c);
        if (frames > 0) {
            fz_mirror(s, c, &r, finite);
            fz_retarget(s, c, &r, hs, hc, &hr, finite);
        }
        fz_retarget(hs, hc, &hr, s, frames > 0 ? c : NULL, &r, finite);
        mb_roles_free(&r);
    }
    mb_skeleton_destroy(s);
    mb_clip_destroy(c);
    return 0;
}
