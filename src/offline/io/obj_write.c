/* One skinned frame as Wavefront OBJ text. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offline/io/mesh_internal.h"

typedef struct text {
    char *p;
    size_t len, cap;
    int failed;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    if (t->cap - t->len < 128) {
        size_t ncap = t->cap ? t->cap * 2 : 1 << 16;
        char *np = realloc(t->p, ncap);
        if (!np) {
            t->failed = 1;
            return;
        }
        t->p = np;
        t->cap = ncap;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->cap - t->len)
        t->failed = 1;
    else
        t->len += (size_t)n;
}

mb_status mb_obj_write_file(const char *path, const mb_mesh *m, const float *positions,
                            const float *normals, mb_error *err)
{
    mb_error_clear_(err);
    if (!path || !*path || !m || !positions)
        return mb_error_set_(err, MB_INVALID_ARG, path, "invalid argument (NULL path, mesh or "
                              "positions)");
    int nv = mb_mesh_vertex_count(m), nt = mb_mesh_triangle_count(m);
    for (size_t i = 0; i < 3 * (size_t)nv; ++i)
        if (!isfinite(positions[i]) || (normals && !isfinite(normals[i])))
            return mb_error_set_(err, MB_NUMERIC, path, "vertex %zu is not finite", i / 3);
    text t = {NULL, 0, 0, 0};
    put(&t, "# mblend skinned frame: %d vertices, %d triangles\n", nv, nt);
    for (int v = 0; v < nv; ++v)
        put(&t, "v %.7g %.7g %.7g\n", (double)positions[3 * v], (double)positions[3 * v + 1],
            (double)positions[3 * v + 2]);
    for (int v = 0; normals && v < nv; ++v)
        put(&t, "vn %.6g %.6g %.6g\n", (double)normals[3 * v], (double)normals[3 * v + 1],
            (double)normals[3 * v + 2]);
    const uint32_t *tri = mb_mesh_triangles(m);
    for (int i = 0; i < nt; ++i) {
        unsigned long a = tri[3 * i] + 1ul, b = tri[3 * i + 1] + 1ul, c = tri[3 * i + 2] + 1ul;
        if (normals)
            put(&t, "f %lu//%lu %lu//%lu %lu//%lu\n", a, a, b, b, c, c);
        else
            put(&t, "f %lu %lu %lu\n", a, b, c);
    }
    if (t.failed) {
        free(t.p);
        return mb_error_set_(err, MB_NOMEM, path, "out of memory");
    }
    mb_status st = mb_file_write_atomic(path, t.p, t.len, err);
    free(t.p);
    return st;
}
