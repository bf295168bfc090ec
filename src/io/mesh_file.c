/* File helpers for the mesh exporters and the scene loader: errors, atomic writes, whole-file
 * reads, a 4x4 inverse. */
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

#include "io/mesh_internal.h"

mb_status mb_mesh_error_(mb_error *err, mb_status code, const char *source, const char *fmt, ...)
{
    if (!err)
        return code;
    memset(err, 0, sizeof *err);
    err->code = code;
    snprintf(err->source, sizeof err->source, "%s", source ? source : "<memory>");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return code;
}

/* "<path>.tmp.<pid>.<random>", created with O_EXCL and the usual 0666 & ~umask mode. */
static int open_temp(const char *path, char *tmp, size_t tmp_size)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^
                 (uint64_t)(uintptr_t)tmp;
    for (int attempt = 0; attempt < 64; ++attempt) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int n = snprintf(tmp, tmp_size, "%s.tmp.%ld.%06x", path, (long)getpid(),
                         (unsigned)(x & 0xffffffu));
        if (n < 0 || (size_t)n >= tmp_size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

mb_status mb_mesh_write_atomic_(const char *path, const void *data, size_t len, mb_error *err)
{
    if (!path || !*path)
        return mb_mesh_error_(err, MB_INVALID_ARG, path, "no output path given");
    size_t tmp_size = strlen(path) + 64;
    char *tmp = malloc(tmp_size);
    if (!tmp)
        return mb_mesh_error_(err, MB_NOMEM, path, "out of memory");
    const char *step = "cannot create a temporary file beside it";
    int fd = open_temp(path, tmp, tmp_size), created = fd >= 0, saved;
    if (fd < 0)
        goto fail;
    struct stat old;
    if (stat(path, &old) == 0 && S_ISREG(old.st_mode))
        (void)fchmod(fd, old.st_mode & 07777); /* a replaced file keeps its permissions */
    step = "write failed";
    for (const char *p = data; len > 0;) {
        ssize_t w = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            goto fail;
        p += w;
        len -= (size_t)w;
    }
    step = "fsync failed";
    if (fsync(fd) != 0)
        goto fail;
    step = "close failed";
    int rc = close(fd);
    fd = -1;
    if (rc != 0)
        goto fail;
    step = "cannot replace it with the temporary file";
    if (rename(tmp, path) != 0)
        goto fail;
    free(tmp);
    return MB_OK;
fail:
    saved = errno;
    if (fd >= 0)
        close(fd);
    if (created)
        unlink(tmp);
    free(tmp);
    return mb_mesh_error_(err, MB_IO, path, "cannot write '%s': %s (%s)", path, strerror(saved),
                          step);
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

void mb_mesh_quat_from_matrix_(const double m[16], double q[4])
{
    /* Columns normalised, so a uniform scale drops out; then Shepperd's method (the
     * largest of w, x, y, z picks the numerically stable formula). c[col][row]. */
    double c[3][3];
    for (int col = 0; col < 3; ++col) {
        double len = sqrt(m[col * 4] * m[col * 4] + m[col * 4 + 1] * m[col * 4 + 1] +
                          m[col * 4 + 2] * m[col * 4 + 2]);
        if (!(len > 1e-30))
            len = 1.0;
        for (int r = 0; r < 3; ++r)
            c[col][r] = m[col * 4 + r] / len;
    }
    double r00 = c[0][0], r11 = c[1][1], r22 = c[2][2], tr = r00 + r11 + r22;
    if (tr > 0.0) {
        double s = sqrt(tr + 1.0) * 2.0;
        q[3] = 0.25 * s;
        q[0] = (c[1][2] - c[2][1]) / s;
        q[1] = (c[2][0] - c[0][2]) / s;
        q[2] = (c[0][1] - c[1][0]) / s;
    } else if (r00 > r11 && r00 > r22) {
        double s = sqrt(1.0 + r00 - r11 - r22) * 2.0;
        q[3] = (c[1][2] - c[2][1]) / s;
        q[0] = 0.25 * s;
        q[1] = (c[1][0] + c[0][1]) / s;
        q[2] = (c[2][0] + c[0][2]) / s;
    } else if (r11 > r22) {
        double s = sqrt(1.0 + r11 - r00 - r22) * 2.0;
        q[3] = (c[2][0] - c[0][2]) / s;
        q[0] = (c[1][0] + c[0][1]) / s;
        q[1] = 0.25 * s;
        q[2] = (c[2][1] + c[1][2]) / s;
    } else {
        double s = sqrt(1.0 + r22 - r00 - r11) * 2.0;
        q[3] = (c[0][1] - c[1][0]) / s;
        q[0] = (c[2][0] + c[0][2]) / s;
        q[1] = (c[2][1] + c[1][2]) / s;
        q[2] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k)
        q[k] /= n;
}
