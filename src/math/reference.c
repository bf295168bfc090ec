/* The reference quaternion of a weighted set: top eigenvector of M = sum w q q^T.
 * The only file that calls LAPACKE (DESIGN.md, convention 9): column-major dsyev through
 * the _work driver with a stack workspace, so nothing allocates. */
#include <math.h>

#include <lapacke.h>

#include "mblend/math.h"
#include "math/reference_internal.h"

void mb_quat_canonical_sign_(double q[4])
{
    /* Fix the eigenvector's arbitrary sign deterministically: first non-zero component
     * scanning w, x, y, z must be positive. */
    const int order[4] = {3, 0, 1, 2};
    for (int k = 0; k < 4; ++k) {
        double c = q[order[k]];
        if (c != 0.0) {
            if (c < 0.0)
                for (int i = 0; i < 4; ++i)
                    q[i] = -q[i];
            return;
        }
    }
}

mb_status mb_quat_reference_d_(const double m_in[16], double out[4], double *out_gap)
{
    double a[16], wv[4], work[64];
    for (int i = 0; i < 16; ++i) {
        if (!isfinite(m_in[i]))
            return MB_NUMERIC;
        a[i] = m_in[i];
    }
    lapack_int info =
        LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', 4, a, 4, wv, work, (lapack_int)64);
    if (info != 0)
        return MB_NUMERIC;
    /* Eigenvalues ascend; the last column is the top eigenvector. */
    for (int i = 0; i < 4; ++i)
        out[i] = a[12 + i];
    double n = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    if (!(n > 0.0) || !isfinite(n))
        return MB_NUMERIC;
    for (int i = 0; i < 4; ++i)
        out[i] /= n;
    mb_quat_canonical_sign_(out);
    if (out_gap) {
        double l1 = wv[3], l2 = wv[2];
        *out_gap = l1 > 0.0 ? (l1 - l2) / l1 : 0.0;
        if (*out_gap < 0.0)
            *out_gap = 0.0;
    }
    return MB_OK;
}

mb_status mb_quat_reference(const float (*q)[4], const float *w, int n, float out[4],
                            float *out_gap)
{
    if (!q || !w || !out || n < 1)
        return MB_INVALID_ARG;
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
        if (!isfinite(w[i]) || w[i] < 0.0f)
            return MB_INVALID_ARG;
        total += w[i];
    }
    if (!(total > 0.0))
        return MB_INVALID_ARG;
    double m[16] = {0};
    for (int i = 0; i < n; ++i) {
        double qi[4], nn = 0.0;
        for (int k = 0; k < 4; ++k) {
            qi[k] = q[i][k];
            nn += qi[k] * qi[k];
        }
        if (!isfinite(nn) || !(nn > 0.0))
            return MB_NUMERIC;
        double s = (w[i] / total) / nn; /* normalises q_i and the weights */
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r)
                m[c * 4 + r] += s * qi[r] * qi[c];
    }
    double r[4], gap = 0.0;
    mb_status st = mb_quat_reference_d_(m, r, &gap);
    if (st != MB_OK)
        return st;
    for (int k = 0; k < 4; ++k)
        out[k] = (float)r[k];
    if (out_gap)
        *out_gap = (float)gap;
    return MB_OK;
}
