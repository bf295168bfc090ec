/* Forward kinematics: world(i) = world(parent) * T(pos) * R(rot), parents first. The job
 * validates, picks a kernel (fk_internal.h: local matrices for many joints at once, then
 * the parent products in order) and runs it; this file also holds the portable kernel. */
#include "runtime/anim/fk_internal.h"
#include "runtime/anim/skeleton_internal.h"

/* ---------- the portable kernel ---------- */

#define LANES_ 8

/* Pass 1 for joints [b, b + LANES_): structure of arrays, plain loops a compiler
 * vectorises for whatever SIMD the build targets; same operations as mb_fk_local_. */
static void locals_block(const mb_xform *x, float (*out)[16])
{
    float qx[LANES_], qy[LANES_], qz[LANES_], qw[LANES_], m[9][LANES_];
    for (int l = 0; l < LANES_; ++l) {
        qx[l] = x[l].rot[0];
        qy[l] = x[l].rot[1];
        qz[l] = x[l].rot[2];
        qw[l] = x[l].rot[3];
    }
    for (int l = 0; l < LANES_; ++l) {
        float d = ((qx[l] * qx[l] + qy[l] * qy[l]) + qz[l] * qz[l]) + qw[l] * qw[l];
        float s = d > 0.0f ? 2.0f / d : 0.0f;
        float xs = qx[l] * s, ys = qy[l] * s, zs = qz[l] * s;
        float xx = qx[l] * xs, yy = qy[l] * ys, zz = qz[l] * zs;
        float xy = qx[l] * ys, xz = qx[l] * zs, yz = qy[l] * zs;
        float wx = qw[l] * xs, wy = qw[l] * ys, wz = qw[l] * zs;
        m[0][l] = 1.0f - (yy + zz);
        m[1][l] = xy + wz;
        m[2][l] = xz - wy;
        m[3][l] = xy - wz;
        m[4][l] = 1.0f - (xx + zz);
        m[5][l] = yz + wx;
        m[6][l] = xz + wy;
        m[7][l] = yz - wx;
        m[8][l] = 1.0f - (xx + yy);
    }
    for (int l = 0; l < LANES_; ++l) {
        float *o = out[l];
        for (int c = 0; c < 3; ++c) {
            o[4 * c] = m[3 * c][l];
            o[4 * c + 1] = m[3 * c + 1][l];
            o[4 * c + 2] = m[3 * c + 2][l];
            o[4 * c + 3] = 0.0f;
        }
        o[12] = x[l].pos[0];
        o[13] = x[l].pos[1];
        o[14] = x[l].pos[2];
        o[15] = 1.0f;
    }
}

/* w = p * w for an affine w (bottom row 0 0 0 1), all four rows of the result computed. */
static void parent_mul(const float *p, float *w)
{
    float r[16];
    for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 4; ++k)
            r[4 * c + k] = p[k] * w[4 * c] + p[4 + k] * w[4 * c + 1] + p[8 + k] * w[4 * c + 2];
    for (int k = 0; k < 4; ++k)
        r[12 + k] += p[12 + k];
    for (int e = 0; e < 16; ++e)
        w[e] = r[e];
}

void mb_fk_kernel_generic_(const int *parents, const mb_xform *local, int n, float (*out)[16])
{
    for (int b = 0; b < n; b += MB_FK_CHUNK_) {
        int e = n - b < MB_FK_CHUNK_ ? n : b + MB_FK_CHUNK_;
        int i = b;
        for (; i + LANES_ <= e; i += LANES_)
            locals_block(local + i, out + i);
        for (; i < e; ++i)
            mb_fk_local_(&local[i], out[i]);
        for (i = b; i < e; ++i)
            if (parents[i] >= 0)
                parent_mul(out[parents[i]], out[i]);
    }
}

/* ---------- the job ---------- */

static const mb_fk_kernel_fn_ kernels[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = mb_fk_kernel_generic_,
#ifdef MB_FK_HAVE_AVX2_
    [MB_ISA_AVX2_] = mb_fk_kernel_avx2_,
#endif
#ifdef MB_FK_HAVE_AVX512_
    [MB_ISA_AVX512_] = mb_fk_kernel_avx512_,
#endif
};
#define BUILT_ MB_ISA_BUILT_(kernels)

mb_fk_kernel_fn_ mb_fk_kernel_(mb_isa_ isa)
{
    return kernels[mb_isa_select_(isa, BUILT_)];
}

mb_status mb_fk_isa_(const mb_skeleton *s, const mb_pose *local, float (*out_world)[16],
                     int out_count, mb_isa_ isa)
{
    mb_fk_kernel_fn_ kernel = mb_fk_kernel_(isa);
    if (!kernel || !s || !local || !local->joints || !out_world)
        return MB_INVALID_ARG;
    int n = s->joint_count;
    if (local->count < n || out_count < n)
        return MB_TOO_SMALL;
    kernel(s->parents, local->joints, n, out_world);
    return MB_OK;
}

mb_status mb_fk(const mb_skeleton *s, const mb_pose *local, float (*out_world)[16],
                int out_count)
{
    return mb_fk_isa_(s, local, out_world, out_count, MB_ISA_AUTO_);
}
