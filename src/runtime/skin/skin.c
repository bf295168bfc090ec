/* The skinning palette, dual-quaternion conversion, and the skinning job (validation,
 * kernel choice, the portable kernel). */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "math/quat_internal.h"
#include "runtime/skin/skin_internal.h"

mb_status mb_skin_palette_run(const mb_skin_palette_desc *d)
{
    if (!d || !d->world || !d->inverse_bind || !d->out)
        return MB_INVALID_ARG;
    if (d->count < 1 || d->count > MB_SKIN_MAX_PALETTE || d->world_count < 1)
        return MB_INVALID_ARG;
    if (d->out_count < d->count)
        return MB_TOO_SMALL;
    if (d->joints) {
        for (int i = 0; i < d->count; ++i)
            if (d->joints[i] < 0 || d->joints[i] >= d->world_count)
                return MB_INVALID_ARG;
    } else if (d->world_count < d->count) {
        return MB_INVALID_ARG;
    }
    for (int i = 0; i < d->count; ++i) {
        int j = d->joints ? d->joints[i] : i;
        /* cglm wants aligned types; public buffers are plain floats, so copy in and out. */
        mat4 w, ib, p;
        memcpy(w, d->world[j], sizeof w);
        memcpy(ib, d->inverse_bind[i], sizeof ib);
        glm_mul(w, ib, p);
        memcpy(d->out[i], p, sizeof p);
    }
    return MB_OK;
}

mb_status mb_skin_dq_palette(const float (*palette)[16], int count, float (*out)[8])
{
    if (!palette || !out || count < 1 || count > MB_SKIN_MAX_PALETTE)
        return MB_INVALID_ARG;
    for (int i = 0; i < count; ++i)
        for (int k = 0; k < 16; ++k)
            if (!isfinite(palette[i][k]))
                return MB_INVALID_ARG;
    for (int i = 0; i < count; ++i) {
        const float *m = palette[i];
        double md[16], q[4];
        for (int k = 0; k < 16; ++k)
            md[k] = m[k];
        mb_quat_from_mat4_d_(md, q);
        /* dual = 0.5 * (t, 0) * q */
        double t[3] = {m[12], m[13], m[14]};
        double dw = -(t[0] * q[0] + t[1] * q[1] + t[2] * q[2]);
        double dx = q[3] * t[0] + (t[1] * q[2] - t[2] * q[1]);
        double dy = q[3] * t[1] + (t[2] * q[0] - t[0] * q[2]);
        double dz = q[3] * t[2] + (t[0] * q[1] - t[1] * q[0]);
        float *o = out[i];
        o[0] = (float)q[0];
        o[1] = (float)q[1];
        o[2] = (float)q[2];
        o[3] = (float)q[3];
        o[4] = (float)(0.5 * dx);
        o[5] = (float)(0.5 * dy);
        o[6] = (float)(0.5 * dz);
        o[7] = (float)(0.5 * dw);
    }
    return MB_OK;
}

/* ---------- the portable kernel ----------
 * Specialised (through inlining with constant arguments) for the influence count, the
 * format and the presence of normals, so the inner loops unroll; accumulations run over
 * whole contiguous rows (16 matrix floats, 8 dual-quaternion floats) so compilers
 * vectorise them with whatever SIMD the build targets. */

#if defined(__GNUC__)
#define INLINE_ static inline __attribute__((always_inline))
#else
#define INLINE_ static inline
#endif

INLINE_ const float *at(const float *base, int stride, int v)
{
    return (const float *)((const char *)base + (size_t)v * (size_t)stride);
}
INLINE_ float *at_mut(float *base, int stride, int v)
{
    return (float *)((char *)base + (size_t)v * (size_t)stride);
}

INLINE_ void lbs_g(const mb_skin_desc *d, int begin, int end, int n, int u8, int normals)
{
    const float *pal = &d->palette[0][0];
    for (int v = begin; v < end; ++v) {
        int idx[4];
        float w[4], m[16];
        float inv = mb_skin_load_raw_(d, v, n, u8, idx, w);
        const float *p0 = pal + (size_t)idx[0] * 16;
        for (int c = 0; c < 16; ++c)
            m[c] = w[0] * p0[c];
        for (int k = 1; k < n; ++k) {
            const float *pk = pal + (size_t)idx[k] * 16;
            for (int c = 0; c < 16; ++c)
                m[c] += w[k] * pk[c];
        }
        const float *pi = at(d->positions, d->positions_stride, v);
        float x = pi[0], y = pi[1], z = pi[2], o[3];
        for (int r = 0; r < 3; ++r)
            o[r] = (m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r]) * inv;
        if (normals) {
            const float *ni = at(d->normals, d->normals_stride, v);
            float nx = ni[0], ny = ni[1], nz = ni[2];
            float *no = at_mut(d->out_normals, d->out_normals_stride, v);
            for (int r = 0; r < 3; ++r)
                no[r] = (m[r] * nx + m[4 + r] * ny + m[8 + r] * nz) * inv;
        }
        float *po = at_mut(d->out_positions, d->out_positions_stride, v);
        po[0] = o[0];
        po[1] = o[1];
        po[2] = o[2];
    }
}

/* The blend b = sum w_i dq_i (each on dq_0's side) is applied without normalising it:
 * with s2 = |b.real|^2, p' = p + (2 / s2) (r x (r x p + rw p) + rw e - ew r + r x e). */
INLINE_ void dqs_g(const mb_skin_desc *d, int begin, int end, int n, int u8, int normals)
{
    const float *dq = &d->dq_palette[0][0];
    for (int v = begin; v < end; ++v) {
        int idx[4];
        float w[4], b[8];
        (void)mb_skin_load_raw_(d, v, n, u8, idx, w); /* the scale drops out */
        const float *q0 = dq + (size_t)idx[0] * 8;
        for (int c = 0; c < 8; ++c)
            b[c] = w[0] * q0[c];
        for (int k = 1; k < n; ++k) {
            const float *q = dq + (size_t)idx[k] * 8;
            /* q and -q are the same rotation: blend every influence on q0's side. The sign
             * of the dot product is copied onto the weight without a branch (it is a coin
             * toss across vertices, so a branch would mispredict half the time). */
            float dot = q0[0] * q[0] + q0[1] * q[1] + q0[2] * q[2] + q0[3] * q[3], wk;
            uint32_t wb, db;
            memcpy(&wb, &w[k], sizeof wb);
            memcpy(&db, &dot, sizeof db);
            wb ^= db & 0x80000000u;
            memcpy(&wk, &wb, sizeof wk);
            for (int c = 0; c < 8; ++c)
                b[c] += wk * q[c];
        }
        float rx = b[0], ry = b[1], rz = b[2], rw = b[3], ex = b[4], ey = b[5], ez = b[6], ew = b[7];
        float k2 = 2.0f / (rx * rx + ry * ry + rz * rz + rw * rw);
        float tx = rw * ex - ew * rx + (ry * ez - rz * ey);
        float ty = rw * ey - ew * ry + (rz * ex - rx * ez);
        float tz = rw * ez - ew * rz + (rx * ey - ry * ex);
        const float *pi = at(d->positions, d->positions_stride, v);
        float px = pi[0], py = pi[1], pz = pi[2];
        float ux = ry * pz - rz * py + rw * px, uy = rz * px - rx * pz + rw * py,
              uz = rx * py - ry * px + rw * pz;
        float ox = px + k2 * (ry * uz - rz * uy + tx);
        float oy = py + k2 * (rz * ux - rx * uz + ty);
        float oz = pz + k2 * (rx * uy - ry * ux + tz);
        if (normals) {
            const float *ni = at(d->normals, d->normals_stride, v);
            float nx = ni[0], ny = ni[1], nz = ni[2];
            float vx = ry * nz - rz * ny + rw * nx, vy = rz * nx - rx * nz + rw * ny,
                  vz = rx * ny - ry * nx + rw * nz;
            float *no = at_mut(d->out_normals, d->out_normals_stride, v);
            no[0] = nx + k2 * (ry * vz - rz * vy);
            no[1] = ny + k2 * (rz * vx - rx * vz);
            no[2] = nz + k2 * (rx * vy - ry * vx);
        }
        float *po = at_mut(d->out_positions, d->out_positions_stride, v);
        po[0] = ox;
        po[1] = oy;
        po[2] = oz;
    }
}

MB_SKIN_DEFINE_ENTRY_(mb_skin_kernel_generic_, lbs_g, dqs_g)

/* ---------- the job ---------- */

size_t mb_skin_stream_min_bytes_ = MB_SKIN_STREAM_MIN_BYTES_;

/* The kernels by ISA (cpu_internal.h's scheme); no SSE2 one: AUTO falls to the portable
 * kernel there. */
static const mb_skin_kernel_fn_ kernels[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = mb_skin_kernel_generic_,
#ifdef MB_SKIN_HAVE_AVX2_
    [MB_ISA_AVX2_] = mb_skin_kernel_avx2_,
#endif
#ifdef MB_SKIN_HAVE_AVX512_
    [MB_ISA_AVX512_] = mb_skin_kernel_avx512_,
#endif
};
#define BUILT_ MB_ISA_BUILT_(kernels)

mb_skin_kernel_fn_ mb_skin_kernel_(mb_isa_ isa)
{
    return kernels[mb_isa_select_(isa, BUILT_)];
}

/* The largest index. Narrow types let the loops vectorise even with SSE2; kept out of line
 * because GCC 12 does not vectorise them once inlined into mb_skin_run. */
#if defined(__GNUC__)
#define NOINLINE_ __attribute__((noinline))
#else
#define NOINLINE_
#endif
NOINLINE_ static uint8_t max_u8(const uint8_t *ji, size_t n)
{
    uint8_t m = 0;
    for (size_t i = 0; i < n; ++i)
        m = ji[i] > m ? ji[i] : m;
    return m;
}
NOINLINE_ static uint16_t max_u16(const uint16_t *ji, size_t n)
{
    uint16_t m = 0;
    for (size_t i = 0; i < n; ++i)
        m = ji[i] > m ? ji[i] : m;
    return m;
}

static int stride_ok(int *stride)
{
    if (*stride == 0)
        *stride = 12;
    return *stride >= 12 && *stride % 4 == 0;
}

mb_status mb_skin_run_isa_(const mb_skin_desc *desc, mb_isa_ isa)
{
    mb_skin_kernel_fn_ kernel = mb_skin_kernel_(isa);
    if (!desc || !kernel)
        return MB_INVALID_ARG;
    mb_skin_desc d = *desc;
    if (d.vertex_count < 0 || d.influences < 1 || d.influences > MB_SKIN_MAX_INFLUENCES)
        return MB_INVALID_ARG;
    if (d.palette_count < 1 || d.palette_count > MB_SKIN_MAX_PALETTE)
        return MB_INVALID_ARG;
    if (d.method != MB_SKIN_LBS && d.method != MB_SKIN_DQS)
        return MB_INVALID_ARG;
    if (d.format != MB_SKIN_U16_FLOAT && d.format != MB_SKIN_U8_UNORM16)
        return MB_INVALID_ARG;
    if (d.method == MB_SKIN_LBS ? !d.palette : !d.dq_palette)
        return MB_INVALID_ARG;
    if (!d.joint_indices || !d.joint_weights || !d.positions || !d.out_positions)
        return MB_INVALID_ARG;
    if (!d.normals != !d.out_normals)
        return MB_INVALID_ARG;
    if (!stride_ok(&d.positions_stride) || !stride_ok(&d.out_positions_stride))
        return MB_INVALID_ARG;
    if (d.normals && (!stride_ok(&d.normals_stride) || !stride_ok(&d.out_normals_stride)))
        return MB_INVALID_ARG;
    if (!d.trusted_indices && d.vertex_count > 0) {
        size_t n = (size_t)d.vertex_count * (size_t)d.influences;
        unsigned max = d.format == MB_SKIN_U8_UNORM16 ? max_u8(d.joint_indices, n)
                                                      : max_u16(d.joint_indices, n);
        if (max >= (unsigned)d.palette_count)
            return MB_INVALID_ARG;
    }
    if (d.vertex_count > 0)
        kernel(&d, 0, d.vertex_count);
    return MB_OK;
}

mb_status mb_skin_run(const mb_skin_desc *desc)
{
    return mb_skin_run_isa_(desc, MB_ISA_AUTO_);
}
