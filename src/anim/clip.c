/* The immutable clip: frame-major rotation and translation tracks in one allocation. */
#include <math.h>
#include <string.h>

#include "anim/skeleton_internal.h"
#include "base/alloc_internal.h"

struct mb_clip {
    mb_allocator allocator;
    int joint_count;
    int frame_count;
    double frame_time;
    float *rotations;    /* [frame][joint][4] */
    float *translations; /* [frame][joint][3] or NULL */
};

mb_status mb_clip_alloc(int joint_count, int frame_count, double frame_time,
                        int with_translations, const mb_allocator *a, mb_clip **out)
{
    if (!out)
        return MB_INVALID_ARG;
    *out = NULL;
    if (joint_count < 1 || frame_count < 0 || !(frame_time > 0.0) || !isfinite(frame_time))
        return MB_INVALID_ARG;
    if (joint_count > MB_MAX_JOINTS || frame_count > MB_MAX_FRAMES)
        return MB_LIMIT;
    /* Both factors are bounded above, so this product cannot overflow 64 bits. */
    unsigned long long per_frame = (unsigned long long)joint_count * (with_translations ? 28u : 16u);
    unsigned long long track_bytes = per_frame * (unsigned long long)frame_count;
    if (track_bytes > MB_MAX_TRACK_BYTES)
        return MB_LIMIT;
    size_t head = (sizeof(mb_clip) + 15u) & ~(size_t)15u;
    size_t rot_bytes = (size_t)joint_count * (size_t)frame_count * 4u * sizeof(float);
    size_t total = head + (size_t)track_bytes;
    char *mem = mb_alloc_(a, total);
    if (!mem)
        return MB_NOMEM;
    mb_clip *c = (mb_clip *)mem;
    memset(c, 0, sizeof *c);
    if (a)
        c->allocator = *a;
    c->joint_count = joint_count;
    c->frame_count = frame_count;
    c->frame_time = frame_time;
    c->rotations = (float *)(mem + head);
    c->translations = with_translations ? (float *)(mem + head + rot_bytes) : NULL;
    *out = c;
    return MB_OK;
}

mb_status mb_clip_create(const mb_clip_desc *d, mb_clip **out)
{
    if (!out)
        return MB_INVALID_ARG;
    *out = NULL;
    if (!d)
        return MB_INVALID_ARG;
    size_t nr = (size_t)(d->joint_count > 0 ? d->joint_count : 0) *
                (size_t)(d->frame_count > 0 ? d->frame_count : 0);
    if (d->joint_count > 0 && d->joint_count <= MB_MAX_JOINTS && d->frame_count > 0 &&
        d->frame_count <= MB_MAX_FRAMES) {
        /* Validate before allocating: every value finite, every quaternion non-zero. */
        for (size_t i = 0; d->rotations && i < nr; ++i) {
            const float *q = &d->rotations[4 * i];
            float n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            if (!isfinite(n2) || !(n2 > 1e-12f))
                return MB_INVALID_ARG;
        }
        for (size_t i = 0; d->translations && i < 3 * nr; ++i)
            if (!isfinite(d->translations[i]))
                return MB_INVALID_ARG;
    }
    mb_clip *c;
    mb_status st = mb_clip_alloc(d->joint_count, d->frame_count, d->frame_time,
                                 d->translations != NULL, &d->allocator, &c);
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
            float n = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
            for (int k = 0; k < 4; ++k)
                q[k] = s[k] / n;
        }
    mb_clip_make_continuous_(c->rotations, nj, d->frame_count);
    if (d->translations)
        memcpy(c->translations, d->translations, 3 * nr * sizeof(float));
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
            memmove(c->translations, t, 3 * (size_t)c->joint_count * (size_t)frame_count * sizeof(float));
        }
        c->frame_count = frame_count;
    }
}

void mb_clip_destroy(mb_clip *c)
{
    if (!c)
        return;
    mb_allocator a = c->allocator;
    mb_free_(&a, c);
}

int mb_clip_joint_count(const mb_clip *c) { return c ? c->joint_count : 0; }
int mb_clip_frame_count(const mb_clip *c) { return c ? c->frame_count : 0; }
double mb_clip_frame_time(const mb_clip *c) { return c ? c->frame_time : 0.0; }
double mb_clip_duration(const mb_clip *c) { return c ? c->frame_count * c->frame_time : 0.0; }
const float *mb_clip_rotations(const mb_clip *c) { return c ? c->rotations : NULL; }
const float *mb_clip_translations(const mb_clip *c) { return c ? c->translations : NULL; }
float *mb_clip_rotations_mut(mb_clip *c) { return c ? c->rotations : NULL; }
float *mb_clip_translations_mut(mb_clip *c) { return c ? c->translations : NULL; }
