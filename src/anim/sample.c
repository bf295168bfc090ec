/* Clip sampling at a time: slerp rotations, lerp translations between two frames. */
#include <math.h>
#include <string.h>

#include "anim/skeleton_internal.h"

/* Short-arc slerp of unit quaternions in double; nlerp where they nearly coincide (the
 * sin(theta) division would lose precision there and nlerp is exact to 1e-12). */
static void slerp(const float *a, const float *b_in, double t, float *out)
{
    double b[4], d = 0.0;
    for (int k = 0; k < 4; ++k)
        d += (double)a[k] * b_in[k];
    double sg = d < 0.0 ? -1.0 : 1.0;
    d *= sg;
    for (int k = 0; k < 4; ++k)
        b[k] = sg * b_in[k];
    double wa, wb;
    if (d > 0.9999) {
        wa = 1.0 - t;
        wb = t;
    } else {
        double th = acos(d), s = sin(th);
        wa = sin((1.0 - t) * th) / s;
        wb = sin(t * th) / s;
    }
    double r[4], n = 0.0;
    for (int k = 0; k < 4; ++k) {
        r[k] = wa * a[k] + wb * b[k];
        n += r[k] * r[k];
    }
    n = sqrt(n);
    for (int k = 0; k < 4; ++k)
        out[k] = (float)(r[k] / n);
}

/* The pose a of the way from frame f0 to frame f1 (a = 0: exactly frame f0). */
static void pose_between(const mb_skeleton *s, const mb_clip *c, int f0, int f1, double a,
                         mb_pose out)
{
    int nj = s->joint_count;
    const float *r0 = mb_clip_rotations(c) + 4 * (size_t)f0 * nj;
    const float *r1 = mb_clip_rotations(c) + 4 * (size_t)f1 * nj;
    const float *tr = mb_clip_translations(c);
    for (int j = 0; j < nj; ++j) {
        mb_xform *o = &out.joints[j];
        if (a == 0.0)
            memcpy(o->rot, r0 + 4 * j, sizeof o->rot);
        else
            slerp(r0 + 4 * j, r1 + 4 * j, a, o->rot);
        if (tr && s->info[j].has_translation) {
            const float *p0 = tr + 3 * ((size_t)f0 * nj + j), *p1 = tr + 3 * ((size_t)f1 * nj + j);
            for (int k = 0; k < 3; ++k)
                o->pos[k] = (float)((1.0 - a) * p0[k] + a * p1[k]);
        } else {
            memcpy(o->pos, &s->offsets[3 * j], sizeof o->pos);
        }
    }
}

mb_status mb_clip_sample(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap,
                         mb_pose out)
{
    if (!s || !c || !out.joints || !isfinite(t))
        return MB_INVALID_ARG;
    int nf = mb_clip_frame_count(c), nj = mb_clip_joint_count(c);
    if (nf < 1 || nj != s->joint_count || (unsigned)wrap > (unsigned)MB_WRAP_LOOP)
        return MB_INVALID_ARG;
    if (out.count < nj)
        return MB_TOO_SMALL;
    double ft = mb_clip_frame_time(c);
    double x = t / ft; /* position in frames */
    int f0, f1;
    double a;
    if (wrap == MB_WRAP_LOOP) {
        x = fmod(x, (double)nf);
        if (x < 0.0)
            x += nf;
        f0 = (int)x;
        if (f0 >= nf) /* fmod rounding can land exactly on nf */
            f0 = nf - 1;
        a = x - f0;
        f1 = f0 + 1 == nf ? 0 : f0 + 1;
    } else {
        if (x <= 0.0) {
            f0 = f1 = 0;
            a = 0.0;
        } else if (x >= nf - 1) {
            f0 = f1 = nf - 1;
            a = 0.0;
        } else {
            f0 = (int)x;
            f1 = f0 + 1;
            a = x - f0;
        }
    }
    pose_between(s, c, f0, f1, a, out);
    return MB_OK;
}

mb_status mb_clip_frame_pose(const mb_skeleton *s, const mb_clip *c, int frame, mb_pose out)
{
    if (!s || !c || !out.joints || mb_clip_joint_count(c) != s->joint_count)
        return MB_INVALID_ARG;
    if (frame < 0 || frame >= mb_clip_frame_count(c))
        return MB_INVALID_ARG;
    if (out.count < s->joint_count)
        return MB_TOO_SMALL;
    pose_between(s, c, frame, frame, 0.0, out);
    return MB_OK;
}
