/* Mapping a clip onto another skeleton by joint name. */
#include <string.h>

#include "anim/skeleton_internal.h"
#include "base/alloc_internal.h"
#include "io/mesh_internal.h"

mb_status mb_clip_map(const mb_clip_map_desc *d, mb_clip **out, int *out_from, int *out_unmatched)
{
    if (!out)
        return MB_INVALID_ARG;
    *out = NULL;
    if (!d || !d->from || !d->clip || !d->to)
        return MB_INVALID_ARG;
    int nf = mb_skeleton_joint_count(d->from), nt = mb_skeleton_joint_count(d->to);
    if (mb_clip_joint_count(d->clip) != nf)
        return MB_INVALID_ARG;
    int frames = mb_clip_frame_count(d->clip);
    const mb_allocator *al = &d->allocator;
    int *from_of = mb_alloc_(al, (size_t)nt * sizeof *from_of);
    mb_xform *bind = mb_alloc_(al, (size_t)nt * sizeof *bind);
    mb_xform *src = mb_alloc_(al, (size_t)nf * sizeof *src);
    mb_status st = MB_NOMEM;
    mb_clip *c = NULL;
    if (!from_of || !bind || !src)
        goto done;
    int matched = 0, unmatched = 0;
    for (int j = 0; j < nt; ++j) {
        from_of[j] = mb_skeleton_find(d->from, mb_skeleton_name(d->to, j));
        if (from_of[j] >= 0)
            ++matched;
        else if (!mb_skeleton_is_end_site(d->to, j))
            ++unmatched;
    }
    if (out_from)
        memcpy(out_from, from_of, (size_t)nt * sizeof *from_of);
    if (out_unmatched)
        *out_unmatched = unmatched;
    if (matched == 0) {
        st = MB_MISMATCH;
        goto done;
    }
    if (d->to_bind) {
        memcpy(bind, d->to_bind, (size_t)nt * sizeof *bind);
    } else {
        mb_pose bp = {bind, nt};
        if ((st = mb_skeleton_rest_pose(d->to, bp)) != MB_OK)
            goto done;
    }
    st = mb_clip_alloc(nt, frames, mb_clip_frame_time(d->clip), 1, al, &c);
    if (st != MB_OK)
        goto done;
    const int *parents = mb_skeleton_parents(d->to);
    float *rot = mb_clip_rotations_mut(c), *tr = mb_clip_translations_mut(c);
    mb_pose sp = {src, nf};
    for (int f = 0; f < frames; ++f) {
        if ((st = mb_clip_frame_pose(d->from, d->clip, f, sp)) != MB_OK)
            goto done;
        for (int j = 0; j < nt; ++j) {
            float *q = &rot[((size_t)f * (size_t)nt + (size_t)j) * 4];
            float *p = &tr[((size_t)f * (size_t)nt + (size_t)j) * 3];
            int k = from_of[j];
            const mb_xform *x = k >= 0 ? &src[k] : &bind[j];
            memcpy(q, x->rot, sizeof x->rot);
            int top = k >= 0 && (parents[j] < 0 || from_of[parents[j]] < 0);
            memcpy(p, (k >= 0 && (top || d->all_translations)) ? src[k].pos : bind[j].pos,
                   3 * sizeof(float));
        }
    }
    mb_clip_make_continuous_(rot, nt, frames);
    *out = c;
    c = NULL;
    st = MB_OK;
done:
    mb_clip_destroy(c);
    mb_free_(al, from_of);
    mb_free_(al, bind);
    mb_free_(al, src);
    return st;
}
