/* Binary glTF 2.0 (.glb) export: skeleton nodes, a skinned mesh and one animation. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/axis_internal.h"
#include "offline/io/mesh_internal.h"

typedef struct buf {
    char *p;
    size_t len, cap;
    int failed;
} buf;

static void reserve(buf *b, size_t more)
{
    if (b->failed || b->cap - b->len >= more)
        return;
    size_t ncap = b->cap ? b->cap : 4096;
    while (ncap - b->len < more) {
        if (ncap > ((size_t)-1) / 2) {
            b->failed = 1;
            return;
        }
        ncap *= 2;
    }
    char *np = realloc(b->p, ncap);
    if (!np) {
        b->failed = 1;
        return;
    }
    b->p = np;
    b->cap = ncap;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void jp(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    reserve(b, (size_t)n + 1);
    if (b->failed)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void jstr(buf *b, const char *s)
{
    jp(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; ++c) {
        if (*c == '"' || *c == '\\')
            jp(b, "\\%c", *c);
        else if (*c < 0x20)
            jp(b, "\\u%04x", *c);
        else
            jp(b, "%c", *c);
    }
    jp(b, "\"");
}

static void bytes(buf *b, const void *data, size_t n)
{
    reserve(b, n);
    if (b->failed)
        return;
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

typedef struct ctx {
    buf bin, views, accessors;
    int nviews, naccessors;
} ctx;

/* Appends data as a new buffer view (4-byte aligned); returns its index. target: 0 none. */
static int add_view(ctx *c, const void *data, size_t n, int target)
{
    while (c->bin.len % 4)
        bytes(&c->bin, "\0", 1);
    size_t off = c->bin.len;
    bytes(&c->bin, data, n);
    jp(&c->views, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", c->nviews ? "," : "",
       off, n);
    if (target)
        jp(&c->views, ",\"target\":%d", target);
    jp(&c->views, "}");
    return c->nviews++;
}

enum { CT_USHORT = 5123, CT_UINT = 5125, CT_FLOAT = 5126 };

/* An accessor over a whole view; comps floats for min/max (NULL: none). */
static int add_accessor(ctx *c, int view, int ctype, size_t count, const char *type, int comps,
                        const float *minv, const float *maxv)
{
    jp(&c->accessors, "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%zu,\"type\":\"%s\"",
       c->naccessors ? "," : "", view, ctype, count, type);
    if (minv && maxv) {
        jp(&c->accessors, ",\"min\":[");
        for (int k = 0; k < comps; ++k)
            jp(&c->accessors, "%s%.9g", k ? "," : "", (double)minv[k]);
        jp(&c->accessors, "],\"max\":[");
        for (int k = 0; k < comps; ++k)
            jp(&c->accessors, "%s%.9g", k ? "," : "", (double)maxv[k]);
        jp(&c->accessors, "]");
    }
    jp(&c->accessors, "}");
    return c->naccessors++;
}

static void minmax(const float *v, size_t count, int comps, float *lo, float *hi)
{
    for (int k = 0; k < comps; ++k) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t i = 0; i < count; ++i)
        for (int k = 0; k < comps; ++k) {
            float x = v[i * (size_t)comps + (size_t)k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
}


static int finite_pose(const mb_xform *x, int n)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 4; ++k)
            if (!isfinite(x[i].rot[k]) || (k < 3 && !isfinite(x[i].pos[k])))
                return 0;
    return 1;
}

/* Whether joint j's rotation (kind 0) or translation (kind 1) leaves its rest value in
 * any of the frames. */
static int track_moves(const mb_xform *poses, const mb_xform *rest, int nj, int frames, int j,
                       int kind)
{
    for (int f = 0; f < frames; ++f) {
        const mb_xform *x = &poses[(size_t)f * (size_t)nj + (size_t)j];
        if (kind) {
            for (int k = 0; k < 3; ++k)
                if (fabsf(x->pos[k] - rest[j].pos[k]) > 1e-7f * (1.0f + fabsf(rest[j].pos[k])))
                    return 1;
        } else {
            double dot = 0;
            for (int k = 0; k < 4; ++k)
                dot += (double)x->rot[k] * rest[j].rot[k];
            if (fabs(dot) < 1.0 - 1e-9)
                return 1;
        }
    }
    return 0;
}

/* The root node's rotation that turns the skeleton's up axis to glTF's +Y, by up_axis
 * (checked; DETECT is taken as +Y): -90 degrees about X for +Z (y' = z, z' = -y), +90 degrees about Z for +X
 * (y' = x), none for +Y. */
static const double *up_turn(mb_axis up_axis)
{
#define H_ 0.70710678118654752
    static const double up_rot[4][4] = {{0, 0, 0, 1}, {0, 0, H_, H_}, {0, 0, 0, 1}, {-H_, 0, 0, H_}}; /* DETECT, X, Y, Z */
#undef H_
    return up_rot[up_axis];
}

/* A look must describe the mesh (its vertex and triangle counts), index its own materials
 * and images, and hold finite texture coordinates, valid factors and PNG/JPEG images. */
static mb_status check_look(const mb_mesh_look *l, const mb_mesh *m, mb_error *err)
{
    if (!m || l->vertex_count != mb_mesh_vertex_count(m) ||
        l->triangle_count != mb_mesh_triangle_count(m))
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "the look is not the mesh's (%d "
                             "vertices, %d triangles; the mesh: %d, %d)", l->vertex_count,
                             l->triangle_count, m ? mb_mesh_vertex_count(m) : 0,
                             m ? mb_mesh_triangle_count(m) : 0);
    if (l->material_count < 1 || !l->materials || (l->triangle_count > 0 && !l->triangle_materials) ||
        l->image_count < 0 || (l->image_count > 0 && !l->images))
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "the look has no materials, or NULL arrays");
    for (int t = 0; t < l->triangle_count; ++t)
        if (l->triangle_materials[t] < 0 || l->triangle_materials[t] >= l->material_count)
            return mb_error_set_(err, MB_INVALID_ARG, "glTF", "triangle %d has material %d of %d",
                                 t, l->triangle_materials[t], l->material_count);
    for (size_t i = 0; l->texcoords && i < 2 * (size_t)l->vertex_count; ++i)
        if (!isfinite(l->texcoords[i]))
            return mb_error_set_(err, MB_NUMERIC, "glTF", "texture coordinate %zu is not finite", i / 2);
    for (int k = 0; k < l->material_count; ++k) {
        const mb_material *mt = &l->materials[k];
        int ok = mt->base_color_image >= -1 && mt->base_color_image < l->image_count &&
                 mt->metallic >= 0.0f && mt->metallic <= 1.0f && mt->roughness >= 0.0f &&
                 mt->roughness <= 1.0f && memchr(mt->name, '\0', sizeof mt->name);
        for (int c = 0; c < 4; ++c)
            ok &= mt->base_color[c] >= 0.0f && mt->base_color[c] <= 1.0f;
        if (!ok)
            return mb_error_set_(err, MB_INVALID_ARG, "glTF", "material %d has a bad factor, "
                                 "image index or name", k);
    }
    for (int i = 0; i < l->image_count; ++i) {
        const char *mt = l->images[i].mime_type;
        if (!l->images[i].data || l->images[i].size == 0 || !mt ||
            (strcmp(mt, "image/png") != 0 && strcmp(mt, "image/jpeg") != 0))
            return mb_error_set_(err, MB_INVALID_ARG, "glTF", "image %d is empty or not PNG/JPEG", i);
    }
    return MB_OK;
}

/* The arguments mb_gltf_write_mem checks before it allocates anything. */
static mb_status check_desc(const mb_gltf_write_desc *d, mb_error *err)
{
    const mb_skeleton *s = d->skeleton;
    const mb_mesh *m = d->mesh;
    int nj = mb_skeleton_joint_count(s);
    if (m && mb_mesh_skeleton_joint_count(m) != nj)
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "the mesh is skinned to %d joints, "
                              "the skeleton has %d", mb_mesh_skeleton_joint_count(m), nj);
    if (d->clip && mb_clip_joint_count(d->clip) != nj)
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "the clip has %d joints, the "
                              "skeleton %d", mb_clip_joint_count(d->clip), nj);
    if (!(d->scale >= 0.0f) || !isfinite(d->scale))
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "bad scale %g", (double)d->scale);
    if (!mb_axis_valid_(d->up_axis))
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "bad up axis %d", (int)d->up_axis);
    if ((unsigned)d->loop > (unsigned)MB_LOOP_RUNS_ON)
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "bad loop kind %d", (int)d->loop);
    if (d->look) {
        mb_status st = check_look(d->look, m, err);
        if (st != MB_OK)
            return st;
    }
    if (m) {
        const int *sj = mb_mesh_skin_joints(m);
        int ns = mb_mesh_skin_joint_count(m);
        for (int a = 0; a < ns; ++a)
            for (int b = a + 1; b < ns; ++b)
                if (sj[a] == sj[b])
                    return mb_error_set_(err, MB_INVALID_ARG, "glTF",
                                          "palette entries %d and %d are both on joint '%s' "
                                          "(glTF skins list each joint once)",
                                          a, b, mb_skeleton_name(s, sj[a]));
    }
    return MB_OK;
}

/* Everything one export builds; zeroed, then filled step by step by mb_gltf_write_mem. */
typedef struct writer {
    const mb_gltf_write_desc *d;
    const mb_skeleton *s;
    const mb_mesh *m; /* NULL: no mesh */
    int nj, frames;
    int keys;        /* keys per track: frames, plus the closing key of a loop */
    mb_xform *rest;  /* nj local rest transforms: the nodes' TRS */
    mb_xform *poses; /* frames * nj, frame-major; NULL without frames */
    ctx c;           /* the binary chunk with its views and accessors */
    /* the mesh's accessors (POSITION, NORMAL, JOINTS_0, WEIGHTS_0), indices, inverse binds */
    int mesh_acc[4], index_acc, ibm_acc;
    /* with a look: TEXCOORD_0 (-1: none), each material's index accessor (-1: no
     * triangles) and each image's buffer view */
    int uv_acc, *material_acc, *image_view;
    int *material_out; /* each material's index in the file, -1: unused (not written) */
    /* the animation: its time accessor (-1 until written), samplers and channels */
    int time_acc, anim_channels, root_animated;
    buf samplers, channels;
    buf json;
} writer;

/* The rest pose (the desc's, the mesh's bind pose or the skeleton's rest pose) and every
 * frame of the clip, checked finite. MB_NOMEM without an error message (the caller sets
 * it). */
static mb_status load_poses(writer *w, mb_error *err)
{
    const int nj = w->nj;
    w->rest = malloc((size_t)nj * sizeof *w->rest);
    if (!w->rest)
        return MB_NOMEM;
    if (w->d->rest) {
        memcpy(w->rest, w->d->rest, (size_t)nj * sizeof *w->rest);
    } else if (w->m) {
        memcpy(w->rest, mb_mesh_bind_pose(w->m), (size_t)nj * sizeof *w->rest);
    } else {
        mb_pose rp = {w->rest, nj};
        mb_skeleton_rest_pose(w->s, rp);
    }
    if (!finite_pose(w->rest, nj))
        return mb_error_set_(err, MB_NUMERIC, "glTF", "the rest pose is not finite");
    if (w->frames <= 0)
        return MB_OK;
    w->poses = malloc((size_t)w->frames * (size_t)nj * sizeof *w->poses);
    if (!w->poses)
        return MB_NOMEM;
    for (int f = 0; f < w->frames; ++f) {
        mb_pose fp = {&w->poses[(size_t)f * (size_t)nj], nj};
        mb_status st = mb_clip_frame_pose(w->s, w->d->clip, f, fp);
        if (st != MB_OK)
            return mb_error_set_(err, st, "glTF", "frame %d: %s", f, mb_status_str(st));
        if (!finite_pose(fp.joints, nj))
            return mb_error_set_(err, MB_NUMERIC, "glTF", "frame %d is not finite", f);
    }
    return MB_OK;
}

/* The look's binary data: TEXCOORD_0, one index accessor per material that has triangles,
 * the images' bytes. 0 when out of memory. */
static int write_look_data(writer *w)
{
    const mb_mesh_look *look = w->d->look;
    ctx *c = &w->c;
    size_t nv = (size_t)look->vertex_count, nt = (size_t)look->triangle_count;
    if (look->texcoords) {
        int v = add_view(c, look->texcoords, nv * 8, 34962);
        w->uv_acc = add_accessor(c, v, CT_FLOAT, nv, "VEC2", 0, NULL, NULL);
    }
    w->material_acc = malloc((size_t)look->material_count * sizeof(int));
    w->material_out = malloc((size_t)look->material_count * sizeof(int));
    w->image_view = malloc(((size_t)look->image_count + 1) * sizeof(int));
    uint32_t *idx = malloc(nt * 12 + 12);
    int ok = w->material_acc && w->material_out && w->image_view && idx, used = 0;
    const uint32_t *tri = mb_mesh_triangles(w->m);
    for (int m = 0; ok && m < look->material_count; ++m) {
        size_t k = 0;
        for (size_t t = 0; t < nt; ++t)
            if (look->triangle_materials[t] == m) {
                memcpy(&idx[3 * k], &tri[3 * t], 12);
                ++k;
            }
        w->material_acc[m] = -1;
        /* materials no triangle uses are left out (assimp adds a default one); without
         * triangles the first is kept for the points */
        w->material_out[m] = k > 0 || (nt == 0 && m == 0) ? used++ : -1;
        if (k > 0) {
            int v = add_view(c, idx, k * 12, 34963);
            w->material_acc[m] = add_accessor(c, v, CT_UINT, k * 3, "SCALAR", 0, NULL, NULL);
        }
    }
    /* only the images a written material shows; image_view -1: left out */
    for (int i = 0; ok && i < look->image_count; ++i)
        w->image_view[i] = -1;
    for (int m = 0; ok && m < look->material_count; ++m) {
        int i = look->materials[m].base_color_image;
        if (w->material_out[m] >= 0 && i >= 0 && w->image_view[i] < 0)
            w->image_view[i] = add_view(c, look->images[i].data, look->images[i].size, 0);
    }
    free(idx);
    return ok;
}

/* The materials of the look, with a texture and sampler per material that has an image,
 * and the images (in buffer views). */
static void json_look(writer *w)
{
    buf *json = &w->json;
    const mb_mesh_look *look = w->d->look;
    int ntex = 0;
    jp(json, ",\"materials\":[");
    for (int m = 0; m < look->material_count; ++m) {
        const mb_material *mt = &look->materials[m];
        if (w->material_out[m] < 0)
            continue;
        jp(json, "%s{\"name\":", w->material_out[m] ? "," : "");
        jstr(json, mt->name);
        jp(json, ",\"pbrMetallicRoughness\":{\"baseColorFactor\":[%.9g,%.9g,%.9g,%.9g]",
           (double)mt->base_color[0], (double)mt->base_color[1], (double)mt->base_color[2],
           (double)mt->base_color[3]);
        if (mt->base_color_image >= 0)
            jp(json, ",\"baseColorTexture\":{\"index\":%d}", ntex++);
        jp(json, ",\"metallicFactor\":%.9g,\"roughnessFactor\":%.9g}%s}", (double)mt->metallic,
           (double)mt->roughness, mt->double_sided ? ",\"doubleSided\":true" : "");
    }
    jp(json, "]");
    if (ntex == 0)
        return;
    jp(json, ",\"textures\":[");
    for (int m = 0, k = 0; m < look->material_count; ++m)
        if (w->material_out[m] >= 0 && look->materials[m].base_color_image >= 0) {
            /* images are written in the order of their views, which follow the materials */
            int src = 0, img = look->materials[m].base_color_image;
            for (int i = 0; i < look->image_count; ++i)
                src += w->image_view[i] >= 0 && w->image_view[i] < w->image_view[img];
            jp(json, "%s{\"sampler\":%d,\"source\":%d}", k ? "," : "", k, src);
            ++k;
        }
    jp(json, "],\"samplers\":[");
    for (int m = 0, k = 0; m < look->material_count; ++m)
        if (w->material_out[m] >= 0 && look->materials[m].base_color_image >= 0) {
            jp(json, "%s{\"magFilter\":9729,\"minFilter\":9987,\"wrapS\":%d,\"wrapT\":%d}",
               k++ ? "," : "", look->materials[m].wrap_s, look->materials[m].wrap_t);
        }
    jp(json, "],\"images\":[");
    for (int v = 0, k = 0; v < w->c.nviews; ++v) /* by view, as the textures count them */
        for (int i = 0; i < look->image_count; ++i)
            if (w->image_view[i] == v)
                jp(json, "%s{\"bufferView\":%d,\"mimeType\":\"%s\"}", k++ ? "," : "", v,
                   look->images[i].mime_type);
    jp(json, "]");
}

/* The mesh's binary data and accessors: positions (with min/max, which glTF requires),
 * unit normals, joint indices, weights, triangles and inverse bind matrices. 0 when out of
 * memory. */
static int write_mesh_data(writer *w)
{
    const mb_mesh *m = w->m;
    ctx *c = &w->c;
    size_t nv = (size_t)mb_mesh_vertex_count(m), nt = (size_t)mb_mesh_triangle_count(m);
    float lo[3], hi[3];
    const float *p = mb_mesh_positions(m);
    minmax(p, nv, 3, lo, hi);
    int v = add_view(c, p, nv * 12, 34962);
    w->mesh_acc[0] = add_accessor(c, v, CT_FLOAT, nv, "VEC3", 3, lo, hi);
    float *tmp = malloc(nv * 4 * sizeof(float) + 64);
    if (!tmp)
        return 0;
    const float *n = mb_mesh_normals(m);
    for (size_t i = 0; i < nv; ++i) {
        double len = sqrt((double)n[3 * i] * n[3 * i] + (double)n[3 * i + 1] * n[3 * i + 1] +
                          (double)n[3 * i + 2] * n[3 * i + 2]);
        for (int k = 0; k < 3; ++k) /* glTF normals must be unit: a vertex without faces gets +z */
            tmp[3 * i + (size_t)k] = len > 0.5 ? (float)(n[3 * i + (size_t)k] / len) : (k == 2 ? 1.0f : 0.0f);
    }
    v = add_view(c, tmp, nv * 12, 34962);
    w->mesh_acc[1] = add_accessor(c, v, CT_FLOAT, nv, "VEC3", 0, NULL, NULL);
    /* zero-weight slots point at joint 0, as the spec recommends */
    uint16_t *j16 = (uint16_t *)tmp;
    const uint16_t *ji = mb_mesh_joint_indices(m);
    const float *jw = mb_mesh_joint_weights(m);
    for (size_t i = 0; i < 4 * nv; ++i)
        j16[i] = jw[i] > 0.0f ? ji[i] : 0;
    v = add_view(c, j16, nv * 8, 34962);
    w->mesh_acc[2] = add_accessor(c, v, CT_USHORT, nv, "VEC4", 0, NULL, NULL);
    free(tmp); /* add_view copied it */
    v = add_view(c, jw, nv * 16, 34962);
    w->mesh_acc[3] = add_accessor(c, v, CT_FLOAT, nv, "VEC4", 0, NULL, NULL);
    if (w->d->look) {
        if (!write_look_data(w))
            return 0;
    } else if (nt > 0) {
        v = add_view(c, mb_mesh_triangles(m), nt * 12, 34963);
        w->index_acc = add_accessor(c, v, CT_UINT, nt * 3, "SCALAR", 0, NULL, NULL);
    }
    size_t ns = (size_t)mb_mesh_skin_joint_count(m);
    v = add_view(c, mb_mesh_inverse_binds(m), ns * 64, 0);
    w->ibm_acc = add_accessor(c, v, CT_FLOAT, ns, "MAT4", 0, NULL, NULL);
    return 1;
}

/* q, or -q (the same rotation) when that is nearer prev: players that slerp without
 * taking the short way would turn the long way round over the closing key otherwise. */
static void closing_hemisphere(float q[4], const float prev[4])
{
    double dot = 0;
    for (int k = 0; k < 4; ++k)
        dot += (double)q[k] * prev[k];
    for (int k = 0; dot < 0 && k < 4; ++k)
        q[k] = -q[k];
}

/* The animation's binary data: one time accessor, then a rotation and a translation track
 * per joint that moves, each with its sampler and channel. Out of memory leaves time_acc
 * at -1 (the caller fails on that). */
static void write_animation_data(writer *w)
{
    const int nj = w->nj, frames = w->frames;
    const mb_xform *poses = w->poses, *rest = w->rest;
    const int keys = w->keys; /* key k is frame k % frames: the closing key is frame 0 */
    float *t = malloc((size_t)keys * 4 * sizeof(float));
    if (!t)
        return;
    double dt = mb_clip_frame_time(w->d->clip);
    for (int f = 0; f < keys; ++f)
        t[f] = (float)(f * dt);
    float lo = 0.0f, hi = t[keys - 1];
    int v = add_view(&w->c, t, (size_t)keys * 4, 0);
    w->time_acc = add_accessor(&w->c, v, CT_FLOAT, (size_t)keys, "SCALAR", 1, &lo, &hi);
    /* a clip that never leaves the rest pose still gets an animation, the root's
     * rotation held (it is no motion: root_animated stays 0), so that it reads back
     * with its frames */
    int any = 0;
    for (int j = 0; j < nj && !any; ++j)
        any = track_moves(poses, rest, nj, frames, j, 0) || track_moves(poses, rest, nj, frames, j, 1);
    for (int j = 0; j < nj; ++j) {
        for (int kind = 0; kind < 2; ++kind) { /* 0 rotation, 1 translation */
            int comps = kind ? 3 : 4, moves = track_moves(poses, rest, nj, frames, j, kind);
            if (!moves && (any || j != 0 || kind != 0))
                continue;
            w->root_animated |= j == 0 && moves;
            for (int f = 0; f < keys; ++f) {
                const mb_xform *x = &poses[(size_t)(f % frames) * (size_t)nj + (size_t)j];
                float *key = &t[(size_t)f * (size_t)comps];
                memcpy(key, kind ? x->pos : x->rot, (size_t)comps * sizeof(float));
                if (f == frames && !kind) /* the closing key on the previous key's side */
                    closing_hemisphere(key, key - 4);
            }
            v = add_view(&w->c, t, (size_t)keys * (size_t)comps * 4, 0);
            int a = add_accessor(&w->c, v, CT_FLOAT, (size_t)keys, kind ? "VEC3" : "VEC4", 0,
                                 NULL, NULL);
            jp(&w->samplers, "%s{\"input\":%d,\"output\":%d,\"interpolation\":\"LINEAR\"}",
               w->anim_channels ? "," : "", w->time_acc, a);
            jp(&w->channels, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}",
               w->anim_channels ? "," : "", w->anim_channels, j, kind ? "translation" : "rotation");
            ++w->anim_channels;
        }
    }
    free(t);
}

/* The JSON of joint j's node: name, rest TRS, children, and on the root the mesh (when it
 * hangs there) and the roots-group mark. */
static void json_joint_node(writer *w, int j, int mesh_node)
{
    buf *json = &w->json;
    const mb_xform *rest = w->rest;
    const int *parents = mb_skeleton_parents(w->s);
    jp(json, "%s{\"name\":", j ? "," : "");
    jstr(json, mb_skeleton_name(w->s, j));
    jp(json, ",\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,%.9g,%.9g,%.9g]",
       (double)rest[j].pos[0], (double)rest[j].pos[1], (double)rest[j].pos[2],
       (double)rest[j].rot[0], (double)rest[j].rot[1], (double)rest[j].rot[2],
       (double)rest[j].rot[3]);
    int first = 1;
    for (int k = j + 1; k < w->nj; ++k)
        if (parents[k] == j) {
            jp(json, "%s%d", first ? ",\"children\":[" : ",", k);
            first = 0;
        }
    if (!first)
        jp(json, "]");
    if (j == 0 && mesh_node == 0)
        jp(json, ",\"mesh\":0,\"skin\":0");
    /* glTF has no multi-ROOT group: marked, so that mblend reads it back as one
     * (mesh_read.c, finish_skeleton) and a user's joint named like it stays a joint */
    if (j == 0 && mb_skeleton_is_roots_group(w->s, 0))
        jp(json, ",\"extras\":{\"mblend\":\"roots group\"}");
    jp(json, "}");
}

/* The JSON from its start through the scene and the node list: the joints, then the scale
 * (and up-axis turn) node and the mesh's own node where there are. */
static void json_scene_and_nodes(writer *w)
{
    const mb_xform *rest = w->rest;
    buf *json = &w->json;
    float scale = w->d->scale > 0.0f ? w->d->scale : 1.0f;
    const double *turn = up_turn(w->d->up_axis);
    int turned = turn[3] != 1.0;
    const int nj = w->nj;
    /* The skinned mesh hangs on the skeleton's root node when that node neither moves nor
     * is offset (a skinned mesh ignores its node's transform, and validators warn where
     * the node has one), so the scene has one root and reading the file back gives the
     * skeleton written: a separate mesh node makes a second scene root, which assimp wraps
     * in a new "ROOT" node, so each round trip grew the skeleton by two nodes. Otherwise
     * (a BVH's moving root, a scale node) the mesh keeps a root node of its own. */
    int scale_node = scale != 1.0f || turned ? nj : -1;
    int root_still = !w->root_animated && fabsf(rest[0].pos[0]) + fabsf(rest[0].pos[1]) +
                                                  fabsf(rest[0].pos[2]) == 0.0f &&
                     fabsf(rest[0].rot[3]) == 1.0f;
    int mesh_node = !w->m ? -1 : scale_node < 0 && root_still ? 0 : nj + (scale_node >= 0);
    jp(json, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"mblend\"},\"scene\":0,");
    jp(json, "\"scenes\":[{\"nodes\":[%d", scale_node >= 0 ? scale_node : 0);
    if (mesh_node > 0)
        jp(json, ",%d", mesh_node);
    jp(json, "]}],\"nodes\":[");
    for (int j = 0; j < nj; ++j)
        json_joint_node(w, j, mesh_node);
    if (scale_node >= 0) {
        jp(json, ",{\"name\":\"mblend_scale\",\"scale\":[%.9g,%.9g,%.9g]", (double)scale,
           (double)scale, (double)scale);
        if (turned)
            jp(json, ",\"rotation\":[%.17g,%.17g,%.17g,%.17g]", turn[0], turn[1], turn[2], turn[3]);
        jp(json, ",\"children\":[0]}");
    }
    if (mesh_node > 0)
        jp(json, ",{\"name\":\"mesh\",\"mesh\":0,\"skin\":0}");
    jp(json, "]");
}

/* One primitive over the mesh's attributes: triangles from index accessor acc (-1: none,
 * points), material mat. */
static void json_primitive(writer *w, int acc, int mat, int first)
{
    buf *json = &w->json;
    jp(json, "%s{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d,\"JOINTS_0\":%d,\"WEIGHTS_0\":%d",
       first ? "" : ",", w->mesh_acc[0], w->mesh_acc[1], w->mesh_acc[2], w->mesh_acc[3]);
    if (w->uv_acc >= 0)
        jp(json, ",\"TEXCOORD_0\":%d", w->uv_acc);
    jp(json, "}");
    if (acc >= 0)
        jp(json, ",\"indices\":%d", acc);
    jp(json, ",\"mode\":%d,\"material\":%d}", acc >= 0 ? 4 : 0, mat);
}

/* The JSON of the mesh, its materials (and textures) and its skin. */
static void json_mesh(writer *w)
{
    buf *json = &w->json;
    const mb_mesh_look *look = w->d->look;
    jp(json, ",\"meshes\":[{\"name\":\"mesh\",\"primitives\":[");
    if (!look) {
        json_primitive(w, w->index_acc, 0, 1);
        jp(json, "]}],\"materials\":[{\"name\":\"mblend\",\"pbrMetallicRoughness\":{"
           "\"baseColorFactor\":[0.8,0.55,0.35,1],\"metallicFactor\":0,\"roughnessFactor\":0.8}}]");
    } else {
        int first = 1;
        for (int m = 0; m < look->material_count; ++m)
            if (w->material_acc[m] >= 0) {
                json_primitive(w, w->material_acc[m], w->material_out[m], first);
                first = 0;
            }
        if (first) /* no triangles at all: the points, with the first material */
            json_primitive(w, -1, 0, 1);
        jp(json, "]}]");
        json_look(w);
    }
    jp(json, ",\"skins\":[{\"inverseBindMatrices\":%d,\"joints\":[", w->ibm_acc);
    const int *sj = mb_mesh_skin_joints(w->m);
    for (int e = 0; e < mb_mesh_skin_joint_count(w->m); ++e)
        jp(json, "%s%d", e ? "," : "", sj[e]);
    jp(json, "]}]");
}

/* The rest of the JSON: the animation, the views, accessors and buffer; the JSON and the
 * binary chunk are padded to 4 bytes. */
static void json_animation_and_buffers(writer *w)
{
    buf *json = &w->json;
    ctx *c = &w->c;
    if (w->anim_channels > 0 && !w->samplers.failed && !w->channels.failed) {
        jp(json, ",\"animations\":[{\"name\":");
        jstr(json, w->d->clip_name ? w->d->clip_name : "clip");
        jp(json, ",\"samplers\":[%.*s],\"channels\":[%.*s]}]", (int)w->samplers.len,
           w->samplers.p ? w->samplers.p : "", (int)w->channels.len,
           w->channels.p ? w->channels.p : "");
    }
    while (c->bin.len % 4)
        bytes(&c->bin, "\0", 1);
    if (c->bin.len > 0) /* a skeleton alone has no binary data (and declares no buffer) */
        jp(json, ",\"bufferViews\":[%.*s],\"accessors\":[%.*s],\"buffers\":[{\"byteLength\":%zu}]",
           (int)c->views.len, c->views.p ? c->views.p : "", (int)c->accessors.len,
           c->accessors.p ? c->accessors.p : "", c->bin.len);
    jp(json, "}");
    while (json->len % 4)
        jp(json, " ");
}

/* The .glb container around the finished JSON and binary chunk, in the desc's allocator. */
static mb_status pack_glb(writer *w, void **out, size_t *out_len, mb_error *err)
{
    size_t total = mb_glb_pack_(w->json.p, w->json.len, w->c.bin.p, w->c.bin.len, NULL);
    if (total == 0)
        return mb_error_set_(err, MB_LIMIT, "glTF", "the file would exceed 4 GiB");
    unsigned char *o = mb_alloc_(&w->d->allocator, total);
    if (!o)
        return MB_NOMEM;
    mb_glb_pack_(w->json.p, w->json.len, w->c.bin.p, w->c.bin.len, o);
    *out = o;
    *out_len = total;
    return MB_OK;
}

static void writer_free(writer *w)
{
    free(w->rest);
    free(w->poses);
    free(w->json.p);
    free(w->c.bin.p);
    free(w->c.views.p);
    free(w->c.accessors.p);
    free(w->samplers.p);
    free(w->channels.p);
    free(w->material_acc);
    free(w->material_out);
    free(w->image_view);
}

mb_status mb_gltf_write_mem(const mb_gltf_write_desc *d, void **out, size_t *out_len, mb_error *err)
{
    mb_error_clear_(err);
    if (!d || !out || !out_len || !d->skeleton)
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "invalid argument (NULL desc, "
                              "skeleton or output)");
    *out = NULL;
    *out_len = 0;
    mb_status st = check_desc(d, err);
    if (st != MB_OK)
        return st;

    writer w;
    memset(&w, 0, sizeof w);
    w.d = d;
    w.s = d->skeleton;
    w.m = d->mesh;
    w.nj = mb_skeleton_joint_count(w.s);
    w.frames = d->clip ? mb_clip_frame_count(d->clip) : 0;
    w.keys = w.frames + (d->loop == MB_LOOP_RUNS_ON && w.frames >= 2);
    w.index_acc = w.ibm_acc = w.time_acc = w.uv_acc = -1;
    for (int k = 0; k < 4; ++k)
        w.mesh_acc[k] = -1;
    st = load_poses(&w, err);
    if (st == MB_OK) {
        st = MB_NOMEM; /* until the file is packed */
        int ok = !w.m || write_mesh_data(&w);
        if (ok && w.frames > 0)
            write_animation_data(&w);
        if (ok) {
            json_scene_and_nodes(&w);
            if (w.m)
                json_mesh(&w);
            json_animation_and_buffers(&w);
            int failed = w.json.failed || w.c.bin.failed || w.c.views.failed ||
                         w.c.accessors.failed || w.samplers.failed || w.channels.failed ||
                         (w.frames > 0 && w.time_acc < 0);
            if (!failed)
                st = pack_glb(&w, out, out_len, err);
        }
    }
    if (st == MB_NOMEM)
        mb_error_set_(err, MB_NOMEM, "glTF", "out of memory");
    writer_free(&w);
    return st;
}

mb_status mb_gltf_write_file(const char *path, const mb_gltf_write_desc *d, mb_error *err)
{
    mb_error_clear_(err);
    if (!path || !*path)
        return mb_error_set_(err, MB_INVALID_ARG, path, "no output path given");
    void *data;
    size_t len;
    mb_status st = mb_gltf_write_mem(d, &data, &len, err);
    if (st != MB_OK) {
        if (err)
            snprintf(err->source, sizeof err->source, "%s", path);
        return st;
    }
    st = mb_file_write_atomic(path, data, len, err);
    mb_free_(&d->allocator, data);
    return st;
}

mb_status mb_gltf_loop_kind(const mb_skeleton *s, const mb_clip *c, int cyclic,
                            mb_loop_kind *out, mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = MB_LOOP_NONE;
    if (!s || !c || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "invalid argument (NULL skeleton, "
                              "clip or output)");
    if (mb_clip_joint_count(c) != mb_skeleton_joint_count(s))
        return mb_error_set_(err, MB_INVALID_ARG, "glTF", "the clip has %d joints, the "
                              "skeleton %d", mb_clip_joint_count(c), mb_skeleton_joint_count(s));
    if (cyclic) {
        *out = MB_LOOP_RUNS_ON;
        return MB_OK;
    }
    if (mb_clip_frame_count(c) < 3) /* no loop to detect (and preparation needs 2) */
        return MB_OK;
    mb_prepare_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.skeleton = s;
    pd.clip = c;
    pd.source = "glTF";
    mb_prepared_clip *p;
    mb_status st = mb_clip_prepare(&pd, &p, err);
    if (st != MB_OK)
        return st;
    *out = mb_prepared_clip_info(p)->loop;
    mb_prepared_clip_destroy(p);
    return MB_OK;
}
