/* Clip sampling at a time: slerp rotations, lerp translations between two frames. */
#include <math.h>
#include <string.h>

#include "runtime/anim/clip_internal.h"

/* Short-arc slerp of unit quaternions in double, the textbook formula: for frames far
 * apart, where the series below does not hold. */
static void slerp_far(const float *a, const float *b_in, double t, float *out)
{
    double b[4], d = 0.0;
    for (int k = 0; k < 4; ++k)
        d += (double)a[k] * b_in[k];
    double sg = d < 0.0 ? -1.0 : 1.0;
    d *= sg;
    if (d > 1.0)
        d = 1.0;
    for (int k = 0; k < 4; ++k)
        b[k] = sg * b_in[k];
    double th = acos(d), s = sin(th), wa, wb;
    if (s < 1e-12) {
        wa = 1.0 - t;
        wb = t;
    } else {
        wa = sin((1.0 - t) * th) / s;
        wb = sin(t * th) / s;
    }
    double r[4], n = 0.0;
    for (int k = 0; k < 4; ++k) {
        r[k] = wa * a[k] + wb * b[k];
        n += r[k] * r[k];
    }
    double inv = 1.0 / sqrt(n);
    for (int k = 0; k < 4; ++k)
        out[k] = (float)(r[k] * inv);
}

/* Series slerp weights for one interpolation parameter t, shared by every joint:
 * sin(k th) / sin(th) = k (1 + c1 th^2 + c2 th^4) with c1 = (1 - k^2) / 6 and
 * c2 = (1 - k^2)(7 - 3 k^2) / 360, k = 1 - t for the first frame and t for the second. */
typedef struct series_w {
    float ka, a1, a2, kb, b1, b2;
} series_w;

static series_w series_weights(double t)
{
    double ka = 1.0 - t, kb = t, ea = 1.0 - ka * ka, eb = 1.0 - kb * kb;
    series_w w = {(float)ka, (float)(ea / 6.0), (float)(ea * (7.0 - 3.0 * ka * ka) / 360.0),
                  (float)kb, (float)(eb / 6.0), (float)(eb * (7.0 - 3.0 * kb * kb) / 360.0)};
    return w;
}

/* Consecutive mocap frames are close: with theta = acos|a.b| below 0.1 (rotations under
 * 11 degrees apart), theta^2 = 2x + x^2/3 + 8x^3/45 (x = 1 - |a.b|) and the series
 * weights hold to 1e-9, so no libm call is needed; the result is renormalised in float.
 * Returns 0 (nothing written) when the frames are farther apart. */
static int slerp_near(const float *a, const float *b, const series_w *w, float *out)
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sg = d < 0.0f ? -1.0f : 1.0f;
    float x = 1.0f - sg * d;
    if (!(x < 0.005f))
        return 0;
    float th2 = x * (2.0f + x * (1.0f / 3.0f + x * (8.0f / 45.0f)));
    float wa = w->ka * (1.0f + th2 * (w->a1 + th2 * w->a2));
    float wb = sg * w->kb * (1.0f + th2 * (w->b1 + th2 * w->b2));
    float r[4], n = 0.0f;
    for (int k = 0; k < 4; ++k) {
        r[k] = wa * a[k] + wb * b[k];
        n += r[k] * r[k];
    }
    float inv = 1.0f / sqrtf(n);
    for (int k = 0; k < 4; ++k)
        out[k] = r[k] * inv;
    return 1;
}

/* The pose a of the way from frame f0 to frame f1 (a = 0: exactly frame f0). */
static void pose_between(const mb_skeleton *s, const mb_clip *c, int f0, int f1, double a,
                         mb_pose out)
{
    int nj = s->joint_count;
    const float *r0 = mb_clip_rotations(c) + 4 * (size_t)f0 * nj;
    const float *r1 = mb_clip_rotations(c) + 4 * (size_t)f1 * nj;
    series_w w = series_weights(a);
    float fa = (float)a;
    for (int j = 0; j < nj; ++j) {
        mb_xform *o = &out.joints[j];
        if (a == 0.0)
            memcpy(o->rot, r0 + 4 * j, sizeof o->rot);
        else if (!slerp_near(r0 + 4 * j, r1 + 4 * j, &w, o->rot))
            slerp_far(r0 + 4 * j, r1 + 4 * j, a, o->rot);
        const float *p0 = mb_clip_pos_(s, c, f0, j), *p1 = mb_clip_pos_(s, c, f1, j);
        if (p0 == p1) /* an untracked joint's offset, or one frame: copied bit for bit */
            memcpy(o->pos, p0, sizeof o->pos);
        else
            for (int k = 0; k < 3; ++k)
                o->pos[k] = p0[k] + fa * (p1[k] - p0[k]);
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
        /* wrap the time, exactly (fmod), before dividing: t / ft can overflow for a finite
         * t, and far from 0 its rounding would pick an arbitrary frame */
        double period = ft * nf;
        x = isfinite(period) ? fmod(t, period) / ft : fmod(x, (double)nf);
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
