/* File helpers for the mesh exporters and the scene loader: errors, atomic writes, whole-file
 * reads, the GLB container, a 4x4 inverse. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "offline/io/mesh_internal.h"
#include "math/quat_internal.h"


static void put_u32le(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

size_t mb_glb_pack_(const char *json, size_t json_len, const void *bin, size_t bin_len,
                    unsigned char *out)
{
    size_t jp = (json_len + 3) & ~(size_t)3, bp = (bin_len + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jp + (bin_len ? 8 + bp : 0);
    if (jp < json_len || total > 0xffffffffu)
        return 0;
    if (!out)
        return total;
    put_u32le(out, MB_GLB_MAGIC);
    put_u32le(out + 4, 2u);
    put_u32le(out + 8, (uint32_t)total);
    put_u32le(out + 12, (uint32_t)jp);
    put_u32le(out + 16, MB_GLB_CHUNK_JSON);
    memcpy(out + 20, json, json_len);
    memset(out + 20 + json_len, ' ', jp - json_len);
    if (bin_len) {
        unsigned char *c = out + 20 + jp;
        put_u32le(c, (uint32_t)bp);
        put_u32le(c + 4, MB_GLB_CHUNK_BIN);
        memcpy(c + 8, bin, bin_len);
        memset(c + 8 + bin_len, 0, bp - bin_len);
    }
    return total;
}

int mb_mesh_invert4d_(const double m[16], double out[16])
{
    /* Gauss-Jordan with partial pivoting on the rows of [M | I]. */
    double a[4][8];
    double scale = 0.0;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            a[r][c] = m[c * 4 + r];
            a[r][4 + c] = r == c;
            if (fabs(a[r][c]) > scale)
                scale = fabs(a[r][c]);
        }
    if (!(scale > 0.0) || !isfinite(scale))
        return 0;
    for (int c = 0; c < 4; ++c) {
        int piv = c;
        for (int r = c + 1; r < 4; ++r)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-12 * scale)
            return 0;
        if (piv != c)
            for (int k = 0; k < 8; ++k) {
                double t = a[c][k];
                a[c][k] = a[piv][k];
                a[piv][k] = t;
            }
        double inv = 1.0 / a[c][c];
        for (int k = 0; k < 8; ++k)
            a[c][k] *= inv;
        for (int r = 0; r < 4; ++r) {
            if (r == c)
                continue;
            double f = a[r][c];
            if (f != 0.0)
                for (int k = 0; k < 8; ++k)
                    a[r][k] -= f * a[c][k];
        }
    }
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            out[c * 4 + r] = a[r][4 + c];
    return 1;
}

int mb_mesh_invert4_(const float m[16], float out[16])
{
    double md[16], od[16];
    for (int k = 0; k < 16; ++k)
        md[k] = m[k];
    if (!mb_mesh_invert4d_(md, od))
        return 0;
    for (int k = 0; k < 16; ++k)
        out[k] = (float)od[k];
    return 1;
}

void mb_mesh_matrix_from_xform_(const mb_xform *x, double m[16])
{
    double q[4] = {x->rot[0], x->rot[1], x->rot[2], x->rot[3]}, r[3][3];
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k)
        q[k] = n > 0.0 ? q[k] / n : (k == 3);
    mb_quat_to_mat3_d_(q, r); /* row-major */
    for (int col = 0; col < 4; ++col)
        for (int row = 0; row < 4; ++row)
            m[col * 4 + row] = col < 3 ? (row < 3 ? r[row][col] : 0.0)
                                       : (row < 3 ? (double)x->pos[row] : 1.0);
}
