/* Mapping a clip onto another skeleton by joint name. */
#include <string.h>

#include "offline/anim/clip_build_internal.h"
#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "offline/io/mesh_internal.h"

/* Whether target joint j takes the clip's translation rather than its own: matched and
 * either on top (root motion), or animated in the clip (its translation is a track: a
 * glTF hip below a static root node bobs), or all translations asked for. */
static int takes_clip_translation(const mb_clip_map_desc *d, const int *parents,
                                  const int *from_of, const unsigned char *moves, int j)
{
    int k = from_of[j];
    int top = k >= 0 && (parents[j] < 0 || from_of[parents[j]] < 0);
    return k >= 0 && (top || moves[k] || d->all_translations);
}

/* moves[k] (one per source joint): joint k's translation track changes over the clip
 * (assimp gives every animated node of a glTF a track, constant where only its rotation
 * is keyed). */
static void find_moving_joints(const mb_clip_map_desc *d, unsigned char *moves)
{
    memset(moves, 0, (size_t)mb_skeleton_joint_count(d->from));
    for (int t = 0; t < mb_clip_translation_count(d->clip); ++t) {
        int k = mb_clip_translation_joints(d->clip)[t];
        const float *p0 = mb_clip_joint_translation(d->from, d->clip, 0, k);
        for (int f = 1; f < mb_clip_frame_count(d->clip) && !moves[k]; ++f)
            moves[k] = memcmp(mb_clip_joint_translation(d->from, d->clip, f, k), p0, 3 * sizeof *p0) != 0;
    }
}

/* from_of[j]: the source joint of target joint j by name, -1 none; *matched counts the
 * matched joints; returns the unmatched ones that are not End Sites. */
static int match_joints(const mb_clip_map_desc *d, int *from_of, int *matched)
{
    int unmatched = 0;
    *matched = 0;
    for (int j = 0; j < mb_skeleton_joint_count(d->to); ++j) {
        from_of[j] = mb_skeleton_find(d->from, mb_skeleton_name(d->to, j));
        if (from_of[j] >= 0)
            ++*matched;
        else if (!mb_skeleton_is_end_site(d->to, j))
            ++unmatched;
    }
    return unmatched;
}

mb_status mb_clip_map(const mb_clip_map_desc *d, mb_clip **out, int *out_from, int *out_unmatched,
                      mb_error *err)
{
    mb_error_clear_(err);
    if (!out || !d || !d->from || !d->clip || !d->to) {
        if (out)
            *out = NULL;
        return mb_error_set_(err, MB_INVALID_ARG, "clip map", "no %s given",
                             !out ? "output" : !d ? "desc" : !d->from ? "source skeleton"
                             : !d->clip ? "clip" : "target skeleton");
    }
    *out = NULL;
    int nf = mb_skeleton_joint_count(d->from), nt = mb_skeleton_joint_count(d->to);
    if (mb_clip_joint_count(d->clip) != nf)
        return mb_error_set_(err, MB_INVALID_ARG, "clip map", "the clip has %d joints, its "
                             "skeleton %d", mb_clip_joint_count(d->clip), nf);
    int frames = mb_clip_frame_count(d->clip);
    const mb_allocator *al = &d->allocator;
    int *from_of = mb_alloc_(al, (size_t)nt * sizeof *from_of);
    int *tracked = mb_alloc_(al, (size_t)nt * sizeof *tracked);
    mb_xform *bind = mb_alloc_(al, (size_t)nt * sizeof *bind);
    mb_xform *src = mb_alloc_(al, (size_t)nf * sizeof *src);
    unsigned char *moves = mb_alloc_(al, (size_t)nf);
    mb_status st = MB_NOMEM;
    const char *why = "out of memory";
    mb_clip *c = NULL;
    if (!from_of || !tracked || !bind || !src || !moves)
        goto done;
    find_moving_joints(d, moves);
    int matched, unmatched = match_joints(d, from_of, &matched);
    if (out_from)
        memcpy(out_from, from_of, (size_t)nt * sizeof *from_of);
    if (out_unmatched)
        *out_unmatched = unmatched;
    if (matched == 0) {
        st = MB_MISMATCH;
        why = "no joint of the target skeleton has a name in the clip's skeleton";
        goto done;
    }
    if (d->to_bind) {
        memcpy(bind, d->to_bind, (size_t)nt * sizeof *bind);
    } else {
        mb_pose bp = {bind, nt};
        why = "cannot make the target's rest pose";
        if ((st = mb_skeleton_rest_pose(d->to, bp)) != MB_OK)
            goto done;
    }
    /* A matched joint that keeps its own translation keeps its offset: the node's rest
     * translation, in which the target's own animations are written (a bind pose derived
     * from inverse bind matrices may sit in another frame: COLLADA2GLTF assets). Only an
     * unmatched joint holds its bind pose. Only joints whose translation can differ from
     * the offset are tracked (an untracked joint is at its offset), and only those with
     * position channels (the others keep the offset anyway: mb_clip_joint_translation). */
    const int *parents = mb_skeleton_parents(d->to);
    int ntr = 0;
    for (int j = 0; j < nt; ++j)
        if (mb_skeleton_has_translation(d->to, j) &&
            (takes_clip_translation(d, parents, from_of, moves, j) ||
             (from_of[j] < 0 &&
              memcmp(bind[j].pos, mb_skeleton_offset(d->to, j), sizeof bind[j].pos) != 0)))
            tracked[ntr++] = j;
    why = "cannot allocate the mapped clip";
    st = mb_clip_alloc(nt, frames, mb_clip_frame_time(d->clip), tracked, ntr, al, &c, NULL);
    if (st != MB_OK)
        goto done;
    why = "cannot read a frame of the clip";
    float *rot = mb_clip_rotations_mut(c), *tr = mb_clip_translations_mut(c);
    mb_pose sp = {src, nf};
    for (int f = 0; f < frames; ++f) {
        if ((st = mb_clip_frame_pose(d->from, d->clip, f, sp)) != MB_OK)
            goto done;
        for (int j = 0; j < nt; ++j) {
            float *q = &rot[((size_t)f * (size_t)nt + (size_t)j) * 4];
            int k = from_of[j];
            const mb_xform *x = k >= 0 ? &src[k] : &bind[j];
            memcpy(q, x->rot, sizeof x->rot);
        }
        for (int t = 0; t < ntr; ++t) {
            int j = tracked[t];
            memcpy(&tr[((size_t)f * (size_t)ntr + (size_t)t) * 3],
                   takes_clip_translation(d, parents, from_of, moves, j) ? src[from_of[j]].pos
                                                                         : bind[j].pos,
                   3 * sizeof(float));
        }
    }
    mb_clip_make_continuous_(rot, nt, frames);
    *out = c;
    c = NULL;
    st = MB_OK;
done:
    if (st != MB_OK)
        mb_error_set_(err, st, "clip map", "%s (%s)", why, mb_status_str(st));
    mb_clip_destroy(c);
    mb_free_(al, from_of);
    mb_free_(al, tracked);
    mb_free_(al, bind);
    mb_free_(al, src);
    mb_free_(al, moves);
    return st;
}
