/* Building clips (mblend/offline/clip_build.h): mb_clip_alloc and mb_clip_create check
 * their arguments and lay a clip out in one allocation (src/runtime/anim/clip_internal.h);
 * the loaders' helpers (clip_build_internal.h). */
#include <math.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "mblend/offline/clip_build.h"
#include "offline/anim/clip_build_internal.h"

#define CLIP_SRC "clip"

/* Tracked joints: count in 0..joint_count, strictly ascending (hence unique), in range.
 * joint_count must already be valid. */
static mb_status check_tracked(int joint_count, const int *joints, int count, mb_error *err)
{
    if (count < 0 || count > joint_count || (count > 0 && !joints))
        return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "%d translation joints%s (0..%d)", count,
                             count > 0 && !joints ? " without their list" : "", joint_count);
    for (int k = 0; k < count; ++k)
        if (joints[k] < 0 || joints[k] >= joint_count || (k > 0 && joints[k] <= joints[k - 1]))
            return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC,
                                 "translation joint %d is %d: the list must be strictly ascending "
                                 "and within 0..%d", k, joints[k], joint_count - 1);
    return MB_OK;
}

static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

/* Layout: header, slot map [joint], tracked list [T], rotations, translations. The index
 * arrays come before the tracks so that mb_clip_truncate_ only has to move the
 * translations. */
mb_status mb_clip_alloc(int joint_count, int frame_count, double frame_time,
                        const int *translation_joints, int translation_count,
                        const mb_allocator *a, mb_clip **out, mb_error *err)
{
    mb_error_clear_(err);
    if (!out)
        return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "no output given");
    *out = NULL;
    if (joint_count < 1 || frame_count < 0 || !(frame_time > 0.0) || !isfinite(frame_time))
        return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "%d joints, %d frames of %g s (needs 1 "
                             "or more joints, 0 or more frames, a positive frame time)",
                             joint_count, frame_count, frame_time);
    if (joint_count > MB_MAX_JOINTS || frame_count > MB_MAX_FRAMES)
        return mb_error_set_(err, MB_LIMIT, CLIP_SRC, "%d joints, %d frames (limits %d, %d)",
                             joint_count, frame_count, MB_MAX_JOINTS, MB_MAX_FRAMES);
    mb_status st = check_tracked(joint_count, translation_joints, translation_count, err);
    if (st != MB_OK)
        return st;
    /* Every factor is bounded above, so these products cannot overflow 64 bits. */
    unsigned long long per_frame = (unsigned long long)joint_count * 16u +
                                   (unsigned long long)translation_count * 12u;
    unsigned long long track_bytes = per_frame * (unsigned long long)frame_count;
    if (track_bytes > MB_MAX_TRACK_BYTES)
        return mb_error_set_(err, MB_LIMIT, CLIP_SRC, "%llu bytes of tracks (limit %llu)",
                             track_bytes, (unsigned long long)MB_MAX_TRACK_BYTES);
    size_t nj = (size_t)joint_count, nt = (size_t)translation_count;
    size_t head = align16(sizeof(mb_clip));
    size_t off_rot = align16(head + (nj + nt) * sizeof(int));
    size_t rot_bytes = nj * (size_t)frame_count * 4u * sizeof(float);
    size_t total = off_rot + (size_t)track_bytes;
    char *mem = mb_alloc_(a, total);
    if (!mem)
        return mb_error_set_(err, MB_NOMEM, CLIP_SRC, "out of memory for %zu bytes", total);
    mb_clip *c = (mb_clip *)mem;
    memset(c, 0, sizeof *c);
    if (a)
        c->allocator = *a;
    c->joint_count = joint_count;
    c->frame_count = frame_count;
    c->frame_time = frame_time;
    c->translation_count = translation_count;
    int *slot = (int *)(mem + head), *tracked = slot + nj;
    for (int j = 0; j < joint_count; ++j)
        slot[j] = -1;
    for (int k = 0; k < translation_count; ++k) {
        tracked[k] = translation_joints[k];
        slot[translation_joints[k]] = k;
    }
    c->slot = slot;
    c->tracked = translation_count > 0 ? tracked : NULL;
    c->rotations = (float *)(mem + off_rot);
    c->translations = translation_count > 0 ? (float *)(mem + off_rot + rot_bytes) : NULL;
    *out = c;
    return MB_OK;
}

/* The values of a desc whose counts are in range: every value finite, every quaternion
 * non-zero (its norm in double: any finite non-zero float quaternion has one, 1e-7 and
 * 1e20 long ones included). Checked before allocating. */
static mb_status check_values(const mb_clip_desc *d, mb_error *err)
{
    mb_status st = check_tracked(d->joint_count, d->translation_joints, d->translation_count, err);
    if (st != MB_OK)
        return st;
    size_t nr = (size_t)d->joint_count * (size_t)d->frame_count;
    for (size_t i = 0; d->rotations && i < nr; ++i) {
        const float *q = &d->rotations[4 * i];
        double n2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                    (double)q[3] * q[3];
        if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]) || !isfinite(q[3]) ||
            !(n2 > 0.0))
            return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "frame %zu, joint %zu: the rotation "
                                 "is %s", i / (size_t)d->joint_count, i % (size_t)d->joint_count,
                                 n2 > 0.0 ? "not finite" : "zero or not finite");
    }
    size_t nt = 3 * (size_t)d->translation_count * (size_t)d->frame_count;
    for (size_t i = 0; i < nt; ++i)
        if (!isfinite(d->translations[i]))
            return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "frame %zu: a translation is not "
                                 "finite", i / (3 * (size_t)d->translation_count));
    return MB_OK;
}

mb_status mb_clip_create(const mb_clip_desc *d, mb_clip **out, mb_error *err)
{
    mb_error_clear_(err);
    if (!out)
        return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "no output given");
    *out = NULL;
    if (!d)
        return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "no desc given");
    /* The translation array and its count go together (mb_clip_alloc checks the rest). */
    if (d->translation_count == 0 ? d->translations != NULL
                                  : (d->frame_count > 0 && !d->translations))
        return mb_error_set_(err, MB_INVALID_ARG, CLIP_SRC, "%s", d->translation_count == 0
                             ? "translations given without translation_count"
                             : "translation_count without the translations");
    if (d->joint_count > 0 && d->joint_count <= MB_MAX_JOINTS && d->frame_count > 0 &&
        d->frame_count <= MB_MAX_FRAMES) {
        mb_status st = check_values(d, err);
        if (st != MB_OK)
            return st;
    }
    mb_clip *c;
    mb_status st = mb_clip_alloc(d->joint_count, d->frame_count, d->frame_time,
                                 d->translation_joints, d->translation_count, &d->allocator, &c, err);
    if (st != MB_OK)
        return st;
    int nj = d->joint_count;
    for (int f = 0; f < d->frame_count; ++f)
        for (int j = 0; j < nj; ++j) {
            size_t i = (size_t)f * (size_t)nj + (size_t)j;
            float *q = &c->rotations[4 * i];
            if (!d->rotations) {
                q[0] = q[1] = q[2] = 0.0f;
                q[3] = 1.0f;
                continue;
            }
            const float *s = &d->rotations[4 * i];
            float n2 = s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3];
            if (isfinite(n2) && n2 > 1e-30f) {
                float n = sqrtf(n2);
                for (int k = 0; k < 4; ++k)
                    q[k] = s[k] / n;
            } else { /* too long or too short for float's square: in double */
                double nd = sqrt((double)s[0] * s[0] + (double)s[1] * s[1] + (double)s[2] * s[2] +
                                 (double)s[3] * s[3]);
                for (int k = 0; k < 4; ++k)
                    q[k] = (float)(s[k] / nd);
            }
        }
    mb_clip_make_continuous_(c->rotations, nj, d->frame_count);
    if (c->translations && d->frame_count > 0)
        memcpy(c->translations, d->translations,
               3 * (size_t)d->translation_count * (size_t)d->frame_count * sizeof(float));
    *out = c;
    return MB_OK;
}

void mb_clip_make_continuous_(float *rot, int joint_count, int frame_count)
{
    size_t stride = 4u * (size_t)joint_count;
    for (int f = 1; f < frame_count; ++f) {
        float *cur = rot + (size_t)f * stride;
        const float *prev = cur - stride;
        for (int j = 0; j < joint_count; ++j) {
            float *q = cur + 4 * j;
            const float *p = prev + 4 * j;
            if (q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0.0f)
                for (int k = 0; k < 4; ++k)
                    q[k] = -q[k];
        }
    }
}

void mb_clip_truncate_(mb_clip *c, int frame_count)
{
    if (c && frame_count >= 0 && frame_count < c->frame_count) {
        /* Translations follow the rotations; move them down to the new end. */
        float *t = c->translations;
        if (t) {
            c->translations = c->rotations + 4 * (size_t)c->joint_count * (size_t)frame_count;
            memmove(c->translations, t,
                    3 * (size_t)c->translation_count * (size_t)frame_count * sizeof(float));
        }
        c->frame_count = frame_count;
    }
}

float *mb_clip_rotations_mut(mb_clip *c) { return c ? c->rotations : NULL; }
float *mb_clip_translations_mut(mb_clip *c) { return c ? c->translations : NULL; }
