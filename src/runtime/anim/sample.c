/* Clip sampling at a time: slerp rotations, lerp translations between two frames. The
 * rotations go through a kernel (sample_internal.h): the portable one here, AVX2 and AVX-512
 * ones where the CPU has them. */
#include <math.h>
#include <string.h>

#include "runtime/anim/clip_internal.h"
#include "runtime/anim/sample_internal.h"

/* out = (wa a + wb b) / |wa a + wb b|: the last step of both slerps. */
static inline void weighted_unit(const float *a, const float *b, float wa, float wb, float *out)
{
    float r[4], n = 0.0f;
    for (int k = 0; k < 4; ++k) {
        r[k] = wa * a[k] + wb * b[k];
        n += r[k] * r[k];
    }
    float inv = 1.0f / sqrtf(n);
    for (int k = 0; k < 4; ++k)
        out[k] = r[k] * inv;
}

/* Short-arc slerp in float for frames any distance apart, where the series below does not
 * hold (sample_internal.h gives the method and the bound). */
static void slerp_wide(const float *a, const float *b, float ka, float kb, float *out)
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sg = d < 0.0f ? -1.0f : 1.0f, m = 0.0f, p = 0.0f;
    for (int k = 0; k < 4; ++k) {
        float dm = sg * b[k] - a[k], dp = sg * b[k] + a[k];
        m += dm * dm;
        p += dp * dp;
    }
    float z = sqrtf(m / p);                        /* tan(theta / 2), in [0, 1] */
    float u = z / (1.0f + sqrtf(1.0f + z * z));    /* tan(theta / 4), in [0, 0.4143] */
    float u2 = u * u, at = MB_SLERP_ATAN_C_[MB_SLERP_ATAN_N_ - 1];
    for (int i = MB_SLERP_ATAN_N_ - 2; i >= 0; --i)
        at = MB_SLERP_ATAN_C_[i] + u2 * at;
    float th = 4.0f * (u * at);
    float ya = (ka * th) * (ka * th), yb = (kb * th) * (kb * th);
    float sa = MB_SLERP_SINC_C_[MB_SLERP_SINC_N_ - 1], sb = sa;
    for (int i = MB_SLERP_SINC_N_ - 2; i >= 0; --i) {
        sa = MB_SLERP_SINC_C_[i] + ya * sa;
        sb = MB_SLERP_SINC_C_[i] + yb * sb;
    }
    /* sin(k th) / th = k sinc(k th): the common 1 / sin(th) goes with the normalisation */
    float wa = ka * sa, wb = sg * kb * sb;
    weighted_unit(a, b, wa, wb, out);
}

/* Consecutive mocap frames are close: with theta = acos|a.b| below 0.1 (rotations under
 * 11 degrees apart), theta^2 = 2x + x^2/3 + 8x^3/45 (x = 1 - |a.b|) and the series
 * weights hold to 1e-9, so no libm call is needed; the result is renormalised in float.
 * Returns 0 (nothing written) when the frames are farther apart. */
static int slerp_near(const float *a, const float *b, const mb_series_w_ *w, float *out)
{
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float sg = d < 0.0f ? -1.0f : 1.0f;
    float x = 1.0f - sg * d;
    if (!(x < 0.005f))
        return 0;
    float th2 = x * (2.0f + x * (1.0f / 3.0f + x * (8.0f / 45.0f)));
    float wa = w->ka * (1.0f + th2 * (w->a1 + th2 * w->a2));
    float wb = sg * w->kb * (1.0f + th2 * (w->b1 + th2 * w->b2));
    weighted_unit(a, b, wa, wb, out);
    return 1;
}

const float MB_SLERP_ATAN_C_[MB_SLERP_ATAN_N_] = {1.0f,         -1.0f / 3.0f, 1.0f / 5.0f,
                                                  -1.0f / 7.0f,  1.0f / 9.0f,  -1.0f / 11.0f,
                                                  1.0f / 13.0f, -1.0f / 15.0f, 1.0f / 17.0f};
const float MB_SLERP_SINC_C_[MB_SLERP_SINC_N_] = {
    1.0f, -1.0f / 6.0f, 1.0f / 120.0f, -1.0f / 5040.0f, 1.0f / 362880.0f, -1.0f / 39916800.0f,
    1.0f / 6227020800.0f};

mb_series_w_ mb_series_weights_(double t)
{
    double ka = 1.0 - t, kb = t, ea = 1.0 - ka * ka, eb = 1.0 - kb * kb;
    mb_series_w_ w = {(float)ka, (float)(ea / 6.0), (float)(ea * (7.0 - 3.0 * ka * ka) / 360.0),
                      (float)kb, (float)(eb / 6.0), (float)(eb * (7.0 - 3.0 * kb * kb) / 360.0)};
    return w;
}

void mb_sample_rot_generic_(const float *r0, const float *r1, int n, double a, mb_xform *out)
{
    mb_series_w_ w = mb_series_weights_(a);
    for (int j = 0; j < n; ++j)
        if (!slerp_near(r0 + 4 * j, r1 + 4 * j, &w, out[j].rot))
            slerp_wide(r0 + 4 * j, r1 + 4 * j, w.ka, w.kb, out[j].rot);
}

/* ---------- the kernels by ISA (cpu_internal.h's scheme) ---------- */

static const mb_sample_rot_fn_ kernels[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = mb_sample_rot_generic_,
#ifdef MB_SAMPLE_HAVE_AVX2_
    [MB_ISA_AVX2_] = mb_sample_rot_avx2_,
#endif
#ifdef MB_SAMPLE_HAVE_AVX512_
    [MB_ISA_AVX512_] = mb_sample_rot_avx512_,
#endif
};
#define BUILT_ MB_ISA_BUILT_(kernels)

mb_sample_rot_fn_ mb_sample_rot_kernel_(mb_isa_ isa)
{
    return kernels[mb_isa_select_(isa, BUILT_)];
}

/* The pose a of the way from frame f0 to frame f1 (a = 0: exactly frame f0). */
static void pose_between(const mb_skeleton *s, const mb_clip *c, int f0, int f1, double a,
                         mb_pose out, mb_sample_rot_fn_ rot)
{
    int nj = s->joint_count;
    const float *r0 = mb_clip_rotations(c) + 4 * (size_t)f0 * nj;
    const float *r1 = mb_clip_rotations(c) + 4 * (size_t)f1 * nj;
    if (a == 0.0)
        for (int j = 0; j < nj; ++j)
            memcpy(out.joints[j].rot, r0 + 4 * j, sizeof out.joints[j].rot);
    else
        rot(r0, r1, nj, a, out.joints);
    float fa = (float)a;
    for (int j = 0; j < nj; ++j) {
        mb_xform *o = &out.joints[j];
        const float *p0 = mb_clip_pos_(s, c, f0, j), *p1 = mb_clip_pos_(s, c, f1, j);
        if (p0 == p1) /* an untracked joint's offset, or one frame: copied bit for bit */
            memcpy(o->pos, p0, sizeof o->pos);
        else
            for (int k = 0; k < 3; ++k)
                o->pos[k] = p0[k] + fa * (p1[k] - p0[k]);
    }
}

mb_status mb_clip_sample_isa_(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap,
                              mb_pose out, mb_isa_ isa)
{
    mb_sample_rot_fn_ rot = mb_sample_rot_kernel_(isa);
    if (!rot || !s || !c || !out.joints || !isfinite(t))
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
    pose_between(s, c, f0, f1, a, out, rot);
    return MB_OK;
}

mb_status mb_clip_sample(const mb_skeleton *s, const mb_clip *c, double t, mb_wrap wrap,
                         mb_pose out)
{
    return mb_clip_sample_isa_(s, c, t, wrap, out, MB_ISA_AUTO_);
}

mb_status mb_clip_frame_pose(const mb_skeleton *s, const mb_clip *c, int frame, mb_pose out)
{
    if (!s || !c || !out.joints || mb_clip_joint_count(c) != s->joint_count)
        return MB_INVALID_ARG;
    if (frame < 0 || frame >= mb_clip_frame_count(c))
        return MB_INVALID_ARG;
    if (out.count < s->joint_count)
        return MB_TOO_SMALL;
    pose_between(s, c, frame, frame, 0.0, out, mb_sample_rot_generic_);
    return MB_OK;
}
