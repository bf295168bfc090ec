/* The immutable skinned mesh: vertices, triangles, 4 influences per vertex, the skin's
 * joints and inverse binds, and the skeleton's bind pose, in one allocation. */
#include <math.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "offline/io/mesh_internal.h"

struct mb_mesh {
    mb_allocator allocator;
    mb_mesh_info info;
    float *positions;     /* [v][3] */
    float *normals;       /* [v][3] */
    uint32_t *triangles;  /* [t][3] */
    uint16_t *joints;     /* [v][4] */
    float *weights;       /* [v][4] */
    int *skin_joints;     /* [entry] */
    float *inverse_bind;  /* [entry][16] */
    mb_xform *bind_pose;  /* [skeleton joint] */
};

static size_t align16(size_t n) { return (n + 15u) & ~(size_t)15u; }

#define MESH_SRC "mesh"

/* The arrays and counts of d. */
static mb_status validate_counts(const mb_mesh_desc *d, mb_error *err)
{
    if (!d->positions || !d->joints || !d->weights || !d->skin_joints || !d->inverse_bind)
        return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "no %s given",
                             !d->positions ? "positions" : !d->joints ? "joints" : !d->weights ? "weights"
                             : !d->skin_joints ? "skin joints" : "inverse binds");
    if (d->vertex_count < 1 || d->triangle_count < 0 || d->influences < 1 ||
        d->skin_joint_count < 1 || d->skeleton_joint_count < 1)
        return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "counts: %d vertices, %d triangles, %d "
                             "influences, %d skin joints, %d skeleton joints (each 1 or more, "
                             "triangles 0 or more)", d->vertex_count, d->triangle_count, d->influences,
                             d->skin_joint_count, d->skeleton_joint_count);
    if (d->vertex_count > MB_MESH_MAX_VERTICES || d->triangle_count > MB_MESH_MAX_TRIANGLES ||
        d->influences > MB_MESH_MAX_INPUT_INFLUENCES || d->skin_joint_count > 65536 ||
        d->skeleton_joint_count > MB_MAX_JOINTS)
        return mb_error_set_(err, MB_LIMIT, MESH_SRC, "counts past the limits: %d vertices, %d "
                             "triangles, %d influences, %d skin joints, %d skeleton joints",
                             d->vertex_count, d->triangle_count, d->influences, d->skin_joint_count,
                             d->skeleton_joint_count);
    if (d->triangle_count > 0 && !d->triangles)
        return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "%d triangles without their indices",
                             d->triangle_count);
    return MB_OK;
}

/* Every vertex's influences: finite, non-negative weights that sum to more than 0, on
 * skin joints in range. */
static mb_status validate_weights(const mb_mesh_desc *d, mb_error *err)
{
    size_t nv = (size_t)d->vertex_count, ni = (size_t)d->influences;
    for (size_t v = 0; v < nv; ++v) {
        double sum = 0.0;
        for (size_t k = 0; k < ni; ++k) {
            float w = d->weights[v * ni + k];
            if (!isfinite(w) || w < 0.0f)
                return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "vertex %zu: weight %g (finite "
                                     "and >= 0)", v, (double)w);
            int j = d->joints[v * ni + k];
            if (w > 0.0f && (j < 0 || j >= d->skin_joint_count))
                return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "vertex %zu: skin joint %d "
                                     "outside 0..%d", v, j, d->skin_joint_count - 1);
            sum += w;
        }
        if (!(sum > 0.0))
            return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "vertex %zu: its weights sum to 0", v);
    }
    return MB_OK;
}

static mb_status validate(const mb_mesh_desc *d, mb_error *err)
{
    mb_status st = validate_counts(d, err);
    if (st != MB_OK)
        return st;
    size_t nv = (size_t)d->vertex_count;
    for (size_t i = 0; i < 3 * nv; ++i)
        if (!isfinite(d->positions[i]) || (d->normals && !isfinite(d->normals[i])))
            return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "vertex %zu: a non-finite %s", i / 3,
                                 isfinite(d->positions[i]) ? "normal" : "position");
    for (size_t i = 0; i < 3 * (size_t)d->triangle_count; ++i)
        if (d->triangles[i] >= (uint32_t)d->vertex_count)
            return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "triangle %zu: vertex %u outside "
                                 "0..%d", i / 3, (unsigned)d->triangles[i], d->vertex_count - 1);
    if ((st = validate_weights(d, err)) != MB_OK)
        return st;
    for (int i = 0; i < d->skin_joint_count; ++i) {
        if (d->skin_joints[i] < 0 || d->skin_joints[i] >= d->skeleton_joint_count)
            return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "skin joint %d is skeleton joint %d, "
                                 "outside 0..%d", i, d->skin_joints[i], d->skeleton_joint_count - 1);
        float inv[16];
        if (!mb_mesh_invert4_(d->inverse_bind[i], inv))
            return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "skin joint %d: the inverse bind "
                                 "matrix is singular", i);
    }
    for (int i = 0; d->bind_pose && i < d->skeleton_joint_count; ++i) {
        const mb_xform *x = &d->bind_pose[i];
        float n2 = x->rot[0] * x->rot[0] + x->rot[1] * x->rot[1] + x->rot[2] * x->rot[2] +
                   x->rot[3] * x->rot[3];
        if (!isfinite(n2) || !(n2 > 1e-12f) || !isfinite(x->pos[0]) || !isfinite(x->pos[1]) ||
            !isfinite(x->pos[2]))
            return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "bind pose of joint %d: a zero or "
                                 "non-finite rotation or a non-finite position", i);
    }
    return MB_OK;
}

/* Keeps the 4 largest influences of each vertex (duplicated joints summed first),
 * largest first, renormalised. */
static void reduce_influences(const mb_mesh_desc *d, mb_mesh *m)
{
    size_t ni = (size_t)d->influences;
    for (size_t v = 0; v < (size_t)d->vertex_count; ++v) {
        int idx[MB_MESH_MAX_INPUT_INFLUENCES] = {0};
        double w[MB_MESH_MAX_INPUT_INFLUENCES];
        int n = 0;
        for (size_t k = 0; k < ni; ++k) {
            float wk = d->weights[v * ni + k];
            if (!(wk > 0.0f))
                continue;
            int j = d->joints[v * ni + k], found = 0;
            for (int e = 0; e < n; ++e)
                if (idx[e] == j) {
                    w[e] += wk;
                    found = 1;
                }
            if (!found) {
                idx[n] = j;
                w[n++] = wk;
            }
        }
        /* insertion sort, descending weight; ties keep input order */
        for (int a = 1; a < n; ++a) {
            int ij = idx[a];
            double wj = w[a];
            int b = a - 1;
            while (b >= 0 && w[b] < wj) {
                idx[b + 1] = idx[b];
                w[b + 1] = w[b];
                --b;
            }
            idx[b + 1] = ij;
            w[b + 1] = wj;
        }
        if (n > m->info.max_influences)
            m->info.max_influences = n;
        if (n > MB_MESH_INFLUENCES) {
            m->info.cut_vertices++;
            n = MB_MESH_INFLUENCES;
        }
        double sum = 0.0;
        for (int e = 0; e < n; ++e)
            sum += w[e];
        for (int e = 0; e < MB_MESH_INFLUENCES; ++e) {
            m->joints[v * 4 + (size_t)e] = (uint16_t)(e < n ? idx[e] : idx[0]);
            m->weights[v * 4 + (size_t)e] = e < n ? (float)(w[e] / sum) : 0.0f;
        }
    }
}

static void compute_normals(mb_mesh *m)
{
    size_t nv = (size_t)m->info.vertex_count;
    /* Accumulated in double when the scratch can be had, else in the float output. */
    double *acc = mb_alloc_(&m->allocator, 3 * nv * sizeof *acc);
    if (acc)
        memset(acc, 0, 3 * nv * sizeof *acc);
    memset(m->normals, 0, 3 * nv * sizeof(float));
    for (size_t t = 0; t < (size_t)m->info.triangle_count; ++t) {
        const uint32_t *tri = &m->triangles[3 * t];
        const float *a = &m->positions[3 * (size_t)tri[0]];
        const float *b = &m->positions[3 * (size_t)tri[1]];
        const float *c = &m->positions[3 * (size_t)tri[2]];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        /* the cross product's length is twice the area: area weighting for free */
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; ++k)
            for (int c3 = 0; c3 < 3; ++c3) {
                if (acc)
                    acc[3 * (size_t)tri[k] + (size_t)c3] += n[c3];
                else
                    m->normals[3 * (size_t)tri[k] + (size_t)c3] += (float)n[c3];
            }
    }
    for (size_t v = 0; v < nv; ++v) {
        double n[3];
        for (int c = 0; c < 3; ++c)
            n[c] = acc ? acc[3 * v + (size_t)c] : m->normals[3 * v + (size_t)c];
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int c = 0; c < 3; ++c)
            m->normals[3 * v + (size_t)c] = len > 0.0 ? (float)(n[c] / len) : 0.0f;
    }
    mb_free_(&m->allocator, acc);
}

mb_status mb_mesh_create(const mb_mesh_desc *d, mb_mesh **out, mb_error *err)
{
    mb_error_clear_(err);
    if (!out)
        return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "no output given");
    *out = NULL;
    if (!d)
        return mb_error_set_(err, MB_INVALID_ARG, MESH_SRC, "no desc given");
    mb_status st = validate(d, err);
    if (st != MB_OK)
        return st;
    size_t nv = (size_t)d->vertex_count, nt = (size_t)d->triangle_count;
    size_t ns = (size_t)d->skin_joint_count, nj = (size_t)d->skeleton_joint_count;
    size_t off_pos = align16(sizeof(mb_mesh));
    size_t off_nrm = off_pos + align16(nv * 3 * sizeof(float));
    size_t off_tri = off_nrm + align16(nv * 3 * sizeof(float));
    size_t off_w = off_tri + align16(nt * 3 * sizeof(uint32_t));
    size_t off_j = off_w + align16(nv * 4 * sizeof(float));
    size_t off_sj = off_j + align16(nv * 4 * sizeof(uint16_t));
    size_t off_ib = off_sj + align16(ns * sizeof(int));
    size_t off_bp = off_ib + align16(ns * 16 * sizeof(float));
    size_t total = off_bp + align16(nj * sizeof(mb_xform));
    char *mem = mb_alloc_(&d->allocator, total);
    if (!mem)
        return mb_error_set_(err, MB_NOMEM, MESH_SRC, "out of memory for %zu vertices", nv);
    mb_mesh *m = (mb_mesh *)mem;
    memset(m, 0, sizeof *m);
    m->allocator = d->allocator;
    m->positions = (float *)(mem + off_pos);
    m->normals = (float *)(mem + off_nrm);
    m->triangles = (uint32_t *)(mem + off_tri);
    m->weights = (float *)(mem + off_w);
    m->joints = (uint16_t *)(mem + off_j);
    m->skin_joints = (int *)(mem + off_sj);
    m->inverse_bind = (float *)(mem + off_ib);
    m->bind_pose = (mb_xform *)(mem + off_bp);
    m->info.vertex_count = d->vertex_count;
    m->info.triangle_count = d->triangle_count;
    m->info.skin_joint_count = d->skin_joint_count;
    m->info.skeleton_joint_count = d->skeleton_joint_count;

    memcpy(m->positions, d->positions, nv * 3 * sizeof(float));
    if (nt)
        memcpy(m->triangles, d->triangles, nt * 3 * sizeof(uint32_t));
    memcpy(m->skin_joints, d->skin_joints, ns * sizeof(int));
    memcpy(m->inverse_bind, d->inverse_bind, ns * 16 * sizeof(float));
    for (size_t i = 0; i < nj; ++i) {
        mb_xform *x = &m->bind_pose[i];
        if (d->bind_pose) {
            *x = d->bind_pose[i];
            float n = sqrtf(x->rot[0] * x->rot[0] + x->rot[1] * x->rot[1] +
                            x->rot[2] * x->rot[2] + x->rot[3] * x->rot[3]);
            for (int k = 0; k < 4; ++k)
                x->rot[k] /= n;
        } else {
            memset(x, 0, sizeof *x);
            x->rot[3] = 1.0f;
        }
    }
    reduce_influences(d, m);
    if (d->normals) {
        for (size_t v = 0; v < nv; ++v) {
            const float *n = &d->normals[3 * v];
            float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int c = 0; c < 3; ++c)
                m->normals[3 * v + (size_t)c] = len > 0.0f ? n[c] / len : 0.0f;
        }
    } else {
        compute_normals(m);
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < nv; ++v)
        for (int c = 0; c < 3; ++c) {
            float x = m->positions[3 * v + (size_t)c];
            lo[c] = x < lo[c] ? x : lo[c];
            hi[c] = x > hi[c] ? x : hi[c];
        }
    m->info.size = sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                         (hi[2] - lo[2]) * (hi[2] - lo[2]));
    *out = m;
    return MB_OK;
}

void mb_mesh_destroy(mb_mesh *m)
{
    if (!m)
        return;
    mb_allocator a = m->allocator;
    mb_free_(&a, m);
}

mb_mesh_info mb_mesh_get_info(const mb_mesh *m)
{
    mb_mesh_info none;
    memset(&none, 0, sizeof none);
    return m ? m->info : none;
}
int mb_mesh_vertex_count(const mb_mesh *m) { return m ? m->info.vertex_count : 0; }
int mb_mesh_triangle_count(const mb_mesh *m) { return m ? m->info.triangle_count : 0; }
int mb_mesh_skin_joint_count(const mb_mesh *m) { return m ? m->info.skin_joint_count : 0; }
int mb_mesh_skeleton_joint_count(const mb_mesh *m) { return m ? m->info.skeleton_joint_count : 0; }
const float *mb_mesh_positions(const mb_mesh *m) { return m ? m->positions : NULL; }
const float *mb_mesh_normals(const mb_mesh *m) { return m ? m->normals : NULL; }
const uint32_t *mb_mesh_triangles(const mb_mesh *m) { return m ? m->triangles : NULL; }
const uint16_t *mb_mesh_joint_indices(const mb_mesh *m) { return m ? m->joints : NULL; }
const float *mb_mesh_joint_weights(const mb_mesh *m) { return m ? m->weights : NULL; }
const int *mb_mesh_skin_joints(const mb_mesh *m) { return m ? m->skin_joints : NULL; }
const float *mb_mesh_inverse_binds(const mb_mesh *m) { return m ? m->inverse_bind : NULL; }
const mb_xform *mb_mesh_bind_pose(const mb_mesh *m) { return m ? m->bind_pose : NULL; }

/* The bridge from the mesh object to the runtime skinning job (offline/mesh.h). */
mb_status mb_skin_desc_from_mesh(const mb_mesh *m, mb_skin_desc *d)
{
    if (!m || !d)
        return MB_INVALID_ARG;
    d->vertex_count = mb_mesh_vertex_count(m);
    d->influences = MB_MESH_INFLUENCES;
    d->format = MB_SKIN_U16_FLOAT;
    d->joint_indices = mb_mesh_joint_indices(m);
    d->joint_weights = mb_mesh_joint_weights(m);
    d->positions = mb_mesh_positions(m);
    d->positions_stride = 0;
    d->normals = mb_mesh_normals(m);
    d->normals_stride = 0;
    d->trusted_indices = 1;
    return MB_OK;
}
