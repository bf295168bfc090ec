/* Scenes through assimp's C API: the node hierarchy as a skeleton, every mesh merged into
 * one skinned mb_mesh, every animation sampled into a clip. Without MB_WITH_ASSIMP only the
 * scene object and its accessors exist, and the readers say the build lacks assimp. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "offline/anim/clip_build_internal.h"
#include "base/alloc_internal.h"
#include "math/quat_internal.h"
#include "offline/io/mesh_internal.h"

struct mb_scene {
    mb_allocator allocator;
    mb_skeleton *skeleton;
    mb_mesh *mesh;
    int clip_count;
    mb_clip **clips;
    char (*clip_names)[MB_MAX_NAME + 1];
    mb_scene_info info;
    /* the mesh's look; its arrays and the image bytes are owned here */
    mb_mesh_look look;
    float *texcoords;
    int *triangle_materials;
    mb_material *materials;
    mb_image *images;
    unsigned char **image_bytes;
};

void mb_scene_destroy(mb_scene *s)
{
    if (!s)
        return;
    mb_allocator a = s->allocator;
    mb_skeleton_destroy(s->skeleton);
    mb_mesh_destroy(s->mesh);
    for (int i = 0; s->clips && i < s->clip_count; ++i)
        mb_clip_destroy(s->clips[i]);
    mb_free_(&a, s->clips);
    mb_free_(&a, s->clip_names);
    for (int i = 0; s->image_bytes && i < s->look.image_count; ++i)
        mb_free_(&a, s->image_bytes[i]);
    mb_free_(&a, s->image_bytes);
    mb_free_(&a, s->images);
    mb_free_(&a, s->materials);
    mb_free_(&a, s->texcoords);
    mb_free_(&a, s->triangle_materials);
    mb_free_(&a, s);
}

const mb_skeleton *mb_scene_skeleton(const mb_scene *s) { return s ? s->skeleton : NULL; }
const mb_mesh *mb_scene_mesh(const mb_scene *s) { return s ? s->mesh : NULL; }
const mb_mesh_look *mb_scene_look(const mb_scene *s)
{
    return s && s->mesh && s->materials ? &s->look : NULL;
}
int mb_scene_clip_count(const mb_scene *s) { return s ? s->clip_count : 0; }
const mb_clip *mb_scene_clip(const mb_scene *s, int i)
{
    return s && i >= 0 && i < s->clip_count ? s->clips[i] : NULL;
}
const char *mb_scene_clip_name(const mb_scene *s, int i)
{
    return s && i >= 0 && i < s->clip_count ? s->clip_names[i] : NULL;
}
int mb_scene_find_clip(const mb_scene *s, const char *name)
{
    if (!s || !name)
        return -1;
    for (int i = 0; i < s->clip_count; ++i)
        if (strcmp(s->clip_names[i], name) == 0)
            return i;
    return -1;
}
mb_scene_info mb_scene_get_info(const mb_scene *s)
{
    mb_scene_info none;
    memset(&none, 0, sizeof none);
    return s ? s->info : none;
}

#ifndef MB_WITH_ASSIMP

int mb_scene_supported(void) { return 0; }

mb_status mb_scene_read_mem(const void *data, size_t len, const char *source,
                            const mb_scene_read_desc *d, mb_scene **out, mb_error *err)
{
    (void)data;
    (void)len;
    (void)d;
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    return mb_error_set_(err, MB_IO, source,
                          "mblend was built without assimp (MB_WITH_ASSIMP=OFF): cannot read "
                          "meshes or glTF/FBX clips");
}

mb_status mb_scene_read_file(const char *path, const mb_scene_read_desc *d, mb_scene **out,
                             mb_error *err)
{
    mb_error_clear_(err);
    return mb_scene_read_mem(NULL, 0, path, d, out, err);
}

#else /* MB_WITH_ASSIMP */

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

int mb_scene_supported(void) { return 1; }

#define SCALE_TOL 1e-3

typedef struct loader {
    const struct aiScene *sc;
    const mb_allocator *al;
    const char *source;
    mb_error *err;
    double rate;                    /* requested sample rate, 0: auto */
    int nn;
    const struct aiNode **nodes;    /* parents-first (pre-order) */
    int *parent;
    double (*world)[16];            /* bind world matrices (full, scale included) */
    /* Each node's accumulated uniform scale (the product of its own and its ancestors'
     * static uniform scales). mblend transforms carry no scale, but a uniform one folds
     * away: S(s) T(t) R = T(s t) R S(s), so a node's translation is scaled by its parent's
     * sigma, and a skin joint's inverse bind matrix by its own (then W' S(sigma) IBM is
     * the true palette entry, W' the world without scales). A Blender or Mixamo armature
     * at scale 0.01 skinned 100 times too large before. */
    double *sigma;
    mb_xform *bind;
    char (*names)[MB_MAX_NAME + 1];
    unsigned char *scaled;
    mb_joint_desc *jd; /* the skeleton's joints, created once the clips are read (finish_skeleton) */
    const char *roots_group; /* the node marked as a multi-ROOT group (mb_gltf_patch), or "" */
    mb_scene *scene;
    const char *path; /* the scene's file (external textures are read beside it), or NULL */
} loader;

static void *zalloc(const loader *L, size_t n)
{
    void *p = mb_alloc_(L->al, n ? n : 1);
    if (p)
        memset(p, 0, n ? n : 1);
    return p;
}

/* The accumulated uniform scale above node i (its parent's sigma; 1 for a root): the
 * factor of its translation (see loader.sigma). */
static double sigma_above(const loader *L, int i)
{
    return L->parent[i] >= 0 ? L->sigma[L->parent[i]] : 1.0;
}

/* m (column-major) := S(sigma) m: an inverse bind matrix of node scale sigma (see
 * loader.sigma). */
static void fold_scale(float m[16], double sigma)
{
    for (int c = 0; c < 16; ++c)
        if (c % 4 < 3)
            m[c] = (float)(m[c] * sigma);
}

/* Control characters (a name is printed and written into BVH files, which refuse them)
 * become '_'. */
static void printable(char *s)
{
    for (; *s; ++s)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '_';
}

static int count_nodes(const struct aiNode *n, int limit)
{
    int c = 1;
    for (unsigned i = 0; i < n->mNumChildren && c <= limit; ++i)
        c += count_nodes(n->mChildren[i], limit - c);
    return c;
}

static void collect(loader *L, const struct aiNode *n, int parent)
{
    int me = L->nn++;
    L->nodes[me] = n;
    L->parent[me] = parent;
    for (unsigned i = 0; i < n->mNumChildren; ++i)
        collect(L, n->mChildren[i], me);
}

/* aiMatrix4x4 is row-major (a4, b4, c4 the translation); ours column-major. */
static void to_colmajor(const struct aiMatrix4x4 *m, double o[16])
{
    const ai_real r[4][4] = {{m->a1, m->a2, m->a3, m->a4},
                             {m->b1, m->b2, m->b3, m->b4},
                             {m->c1, m->c2, m->c3, m->c4},
                             {m->d1, m->d2, m->d3, m->d4}};
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            o[col * 4 + row] = r[row][col];
}

static void mul4(const double a[16], const double b[16], double o[16])
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            double s = 0.0;
            for (int k = 0; k < 4; ++k)
                s += a[k * 4 + r] * b[c * 4 + k];
            o[c * 4 + r] = s;
        }
}

static int find_node(const loader *L, const struct aiString *name)
{
    for (int i = 0; i < L->nn; ++i)
        if (L->nodes[i]->mName.length == name->length &&
            memcmp(L->nodes[i]->mName.data, name->data, name->length) == 0)
            return i;
    return -1;
}

static int finite_quat(const struct aiQuaternion *q)
{
    return isfinite(q->x) && isfinite(q->y) && isfinite(q->z) && isfinite(q->w) &&
           (double)q->x * q->x + (double)q->y * q->y + (double)q->z * q->z + (double)q->w * q->w > 1e-12;
}

/* ---------- skeleton ---------- */

static mb_status build_skeleton(loader *L)
{
    const struct aiNode *root = L->sc->mRootNode;
    if (!root)
        return mb_error_set_(L->err, MB_PARSE, L->source, "the file has no node hierarchy");
    int total = count_nodes(root, MB_MAX_JOINTS);
    if (total > MB_MAX_JOINTS)
        return mb_error_set_(L->err, MB_LIMIT, L->source,
                              "more than %d nodes (the skeleton limit)", MB_MAX_JOINTS);
    size_t n = (size_t)total;
    L->nodes = zalloc(L, n * sizeof *L->nodes);
    L->parent = zalloc(L, n * sizeof *L->parent);
    L->world = zalloc(L, n * sizeof *L->world);
    L->bind = zalloc(L, n * sizeof *L->bind);
    L->names = zalloc(L, n * sizeof *L->names);
    L->scaled = zalloc(L, n);
    L->sigma = zalloc(L, n * sizeof *L->sigma);
    mb_joint_desc *jd = L->jd = zalloc(L, n * sizeof *jd);
    if (!L->nodes || !L->parent || !L->world || !L->bind || !L->names || !L->scaled || !L->sigma || !jd)
        return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    L->nn = 0;
    collect(L, root, -1);
    mb_status st = MB_OK;
    for (int i = 0; i < L->nn; ++i) {
        const struct aiNode *nd = L->nodes[i];
        double local[16];
        to_colmajor(&nd->mTransformation, local);
        for (int k = 0; k < 16; ++k)
            if (!isfinite(local[k])) {
                st = mb_error_set_(L->err, MB_PARSE, L->source,
                                    "node '%s' has a non-finite transform", nd->mName.data);
                goto out;
            }
        if (L->parent[i] >= 0)
            mul4(L->world[L->parent[i]], local, L->world[i]);
        else
            memcpy(L->world[i], local, sizeof local);
        struct aiVector3D s, p;
        struct aiQuaternion q;
        aiDecomposeMatrix(&nd->mTransformation, &s, &q, &p);
        /* a uniform positive scale folds away (see sigma); any other is dropped */
        double su = s.x;
        int uniform = s.x > 0.0 && fabs(s.y - s.x) <= 1e-6 * s.x && fabs(s.z - s.x) <= 1e-6 * s.x;
        if (!uniform) {
            su = 1.0;
            if (fabs(s.x - 1.0) > SCALE_TOL || fabs(s.y - 1.0) > SCALE_TOL || fabs(s.z - 1.0) > SCALE_TOL)
                L->scaled[i] = 1;
        }
        double sp = sigma_above(L, i);
        L->sigma[i] = sp * su;
        p.x = (ai_real)(p.x * sp);
        p.y = (ai_real)(p.y * sp);
        p.z = (ai_real)(p.z * sp);
        mb_xform *x = &L->bind[i];
        if (finite_quat(&q)) {
            x->rot[0] = (float)q.x;
            x->rot[1] = (float)q.y;
            x->rot[2] = (float)q.z;
            x->rot[3] = (float)q.w;
        } else {
            x->rot[3] = 1.0f;
        }
        x->pos[0] = (float)p.x;
        x->pos[1] = (float)p.y;
        x->pos[2] = (float)p.z;

        /* A unique name of at most MB_MAX_NAME bytes. */
        char *nm = L->names[i];
        if (nd->mName.length == 0)
            snprintf(nm, MB_MAX_NAME + 1, "node%d", i);
        else
            snprintf(nm, MB_MAX_NAME + 1, "%.*s", (int)(nd->mName.length > MB_MAX_NAME ? MB_MAX_NAME : nd->mName.length),
                     nd->mName.data);
        printable(nm);
        for (int k = 2;; ++k) {
            int dup = 0;
            for (int o = 0; o < i && !dup; ++o)
                dup = strcmp(L->names[o], nm) == 0;
            if (!dup)
                break;
            char suffix[16];
            int sl = snprintf(suffix, sizeof suffix, "#%d", k);
            size_t base = nd->mName.length == 0 ? strlen(nm) : nd->mName.length;
            if (base > (size_t)(MB_MAX_NAME - sl))
                base = (size_t)(MB_MAX_NAME - sl);
            if (nd->mName.length == 0)
                snprintf(nm, MB_MAX_NAME + 1, "node%d%s", i, suffix);
            else
                snprintf(nm, MB_MAX_NAME + 1, "%.*s%s", (int)base, nd->mName.data, suffix);
            printable(nm);
        }
        jd[i].name = nm;
        jd[i].parent = L->parent[i];
        memcpy(jd[i].offset, x->pos, sizeof x->pos);
        /* channels and End Sites are settled once the clips are read (finish_skeleton) */
    }
out:
    return st;
}

/* ---------- mesh ---------- */

typedef struct mesh_build {
    int nv, nt, inf, ne, ne_cap;
    float *pos, *nrm, *w;
    int *jt, *count;
    uint32_t *tri;
    int *skin_joints;
    float (*ibm)[16];
    float *uv;   /* [vertex][2], glTF's v-down convention */
    int *tmat;   /* [triangle] assimp material index */
    int any_uv;  /* some merged mesh had texture coordinates */
} mesh_build;

static int is_triangle_mesh(const struct aiMesh *m)
{
    return m->mNumVertices > 0 && m->mVertices && (m->mPrimitiveTypes & aiPrimitiveType_TRIANGLE);
}

static int add_entry(mesh_build *b, int node, const float ibm[16])
{
    for (int e = 0; e < b->ne; ++e)
        if (b->skin_joints[e] == node && memcmp(b->ibm[e], ibm, 16 * sizeof(float)) == 0)
            return e;
    if (b->ne == b->ne_cap)
        return -1;
    b->skin_joints[b->ne] = node;
    memcpy(b->ibm[b->ne], ibm, 16 * sizeof(float));
    return b->ne++;
}

/* Appends (entry, weight) to vertex v's list; a full list keeps the largest. */
static void add_influence(mesh_build *b, int v, int entry, float weight)
{
    int *jt = &b->jt[(size_t)v * (size_t)b->inf];
    float *w = &b->w[(size_t)v * (size_t)b->inf];
    int *c = &b->count[v];
    if (*c < b->inf) {
        jt[*c] = entry;
        w[*c] = weight;
        ++*c;
        return;
    }
    int lo = 0;
    for (int k = 1; k < b->inf; ++k)
        if (w[k] < w[lo])
            lo = k;
    if (weight > w[lo]) {
        jt[lo] = entry;
        w[lo] = weight;
    }
}

static void xform_point(const double m[16], const struct aiVector3D *p, double wgt, float out[3])
{
    for (int r = 0; r < 3; ++r)
        out[r] = (float)(m[r] * p->x + m[4 + r] * p->y + m[8 + r] * p->z + wgt * m[12 + r]);
}

/* The mesh in slot k of node nd when it makes an instance, marked in used; NULL when it
 * does not: not a triangle mesh, or a skinned mesh already taken (a skinned mesh is one
 * instance, its node ignored, as glTF says; a rigid mesh is one per node that holds it).
 * The counting pass and the filling pass of build_mesh both walk the instances with it. */
static const struct aiMesh *instance_mesh(const struct aiScene *sc, const struct aiNode *nd,
                                          unsigned k, unsigned char *used)
{
    unsigned mi = nd->mMeshes[k];
    if (mi >= sc->mNumMeshes || !is_triangle_mesh(sc->mMeshes[mi]))
        return NULL;
    const struct aiMesh *m = sc->mMeshes[mi];
    if (m->mNumBones > 0 && used[mi])
        return NULL;
    used[mi] = 1;
    return m;
}

/* Whether the 3x3 part of m (column-major) is a rotation times a uniform scale: its
 * columns orthogonal and of one length, to 1e-4 relative (float offsets). */
static int similarity3(const double m[16])
{
    double g[3][3], s2 = 0.0;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            g[i][j] = m[4 * i] * m[4 * j] + m[4 * i + 1] * m[4 * j + 1] + m[4 * i + 2] * m[4 * j + 2];
            s2 += i == j ? g[i][j] / 3.0 : 0.0;
        }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (!(fabs(g[i][j] - (i == j ? s2 : 0.0)) <= 1e-4 * s2))
                return 0;
    return s2 > 0.0;
}

/* A skinned mesh modelled in its node's space: assimp's FBX bone offsets are
 * inverse(bone bind world) * mesh node world, so with a mesh node scaled non-uniformly (the
 * FBX sample's Cube, 121 x 100 x 100) no bone's inverse bind is rigid, no rigid bind pose
 * can make the palette the identity, and the mesh's positions are not its bind-pose shape
 * (the mb_mesh contract). When the offsets of m are not all rotations times a uniform scale
 * but become so once the mesh node's world (node, the node holding m) is taken out, that
 * world is returned in M (and its inverse): the caller moves the vertices into bind space
 * (M v, normals by M^-T) and uses offset * M^-1 as inverse binds, the same skinning in
 * every pose. Returns 0 (nothing to move) otherwise. */
static int mesh_bind_space(const loader *L, const struct aiMesh *m, int node, double M[16],
                           double Minv[16])
{
    int raw_ok = 1, moved_ok = 1;
    memcpy(M, L->world[node], 16 * sizeof *M);
    if (m->mNumBones == 0 || !mb_mesh_invert4d_(M, Minv))
        return 0;
    for (unsigned bi = 0; bi < m->mNumBones; ++bi) {
        double off[16], moved[16];
        to_colmajor(&m->mBones[bi]->mOffsetMatrix, off);
        mul4(off, Minv, moved);
        raw_ok &= similarity3(off);
        moved_ok &= similarity3(moved);
    }
    return !raw_ok && moved_ok;
}

/* What the counting pass of build_mesh finds over the instances (see instance_mesh). */
typedef struct mesh_totals {
    long long nv, nt, bones, instances;
    int inf; /* the most positive weights on one vertex (at least 1) */
} mesh_totals;

/* The most positive weights on one vertex of skinned mesh m, raised into *inf. 0 when out
 * of memory. */
static int max_vertex_weights(loader *L, const struct aiMesh *m, int *inf)
{
    int *cnt = zalloc(L, m->mNumVertices * sizeof(int));
    if (!cnt)
        return 0;
    for (unsigned bi = 0; bi < m->mNumBones; ++bi)
        for (unsigned wi = 0; wi < m->mBones[bi]->mNumWeights; ++wi) {
            unsigned v = m->mBones[bi]->mWeights[wi].mVertexId;
            if (v < m->mNumVertices && m->mBones[bi]->mWeights[wi].mWeight > 0.0f &&
                ++cnt[v] > *inf)
                *inf = cnt[v];
        }
    mb_free_(L->al, cnt);
    return 1;
}

/* The counting pass: vertices, triangles, bones and instances of every mesh instance
 * (marked in used). 0 when out of memory. */
static int count_instances(loader *L, unsigned char *used, mesh_totals *t)
{
    memset(t, 0, sizeof *t);
    t->inf = 1;
    for (int i = 0; i < L->nn; ++i) {
        const struct aiNode *nd = L->nodes[i];
        for (unsigned k = 0; k < nd->mNumMeshes; ++k) {
            const struct aiMesh *m = instance_mesh(L->sc, nd, k, used);
            if (!m)
                continue;
            ++t->instances;
            t->nv += m->mNumVertices;
            for (unsigned f = 0; f < m->mNumFaces; ++f)
                t->nt += m->mFaces[f].mNumIndices == 3;
            t->bones += m->mNumBones;
            if (m->mNumBones > 0 && !max_vertex_weights(L, m, &t->inf))
                return 0;
        }
    }
    return 1;
}

/* The build's arrays, sized by the counting pass (zeroed); 0 when out of memory (what was
 * allocated is freed by mesh_build_free). */
static int mesh_build_alloc(loader *L, const mesh_totals *t, mesh_build *b)
{
    int inf = t->inf > MB_MESH_MAX_INPUT_INFLUENCES ? MB_MESH_MAX_INPUT_INFLUENCES : t->inf;
    long long nv = t->nv, nt = t->nt;
    b->inf = inf;
    b->ne_cap = (int)(t->bones + t->instances);
    if (b->ne_cap > 65536)
        b->ne_cap = 65536;
    b->pos = zalloc(L, (size_t)nv * 3 * sizeof(float));
    b->nrm = zalloc(L, (size_t)nv * 3 * sizeof(float));
    b->w = zalloc(L, (size_t)nv * (size_t)inf * sizeof(float));
    b->jt = zalloc(L, (size_t)nv * (size_t)inf * sizeof(int));
    b->count = zalloc(L, (size_t)nv * sizeof(int));
    b->tri = zalloc(L, (size_t)nt * 3 * sizeof(uint32_t));
    b->skin_joints = zalloc(L, (size_t)b->ne_cap * sizeof(int));
    b->ibm = zalloc(L, (size_t)b->ne_cap * sizeof *b->ibm);
    b->uv = zalloc(L, (size_t)nv * 2 * sizeof(float));
    b->tmat = zalloc(L, (size_t)nt * sizeof(int));
    return b->pos && b->nrm && b->w && b->jt && b->count && b->tri && b->skin_joints && b->ibm &&
           b->uv && b->tmat;
}

static void mesh_build_free(loader *L, mesh_build *b)
{
    mb_free_(L->al, b->pos);
    mb_free_(L->al, b->nrm);
    mb_free_(L->al, b->w);
    mb_free_(L->al, b->jt);
    mb_free_(L->al, b->count);
    mb_free_(L->al, b->tri);
    mb_free_(L->al, b->skin_joints);
    mb_free_(L->al, b->ibm);
    mb_free_(L->al, b->uv);
    mb_free_(L->al, b->tmat);
}

/* Skinned mesh m's bones as palette entries (inverse bind, scale folded, see sigma) and
 * their positive weights as influences of its vertices, numbered from base. Minv (nullable):
 * the inverse of the transform that moved the mesh into bind space (mesh_bind_space). */
static mb_status add_bones(loader *L, mesh_build *b, const struct aiMesh *m, int base,
                           const double *Minv)
{
    for (unsigned bi = 0; bi < m->mNumBones; ++bi) {
        const struct aiBone *bone = m->mBones[bi];
        int node = find_node(L, &bone->mName);
        if (node < 0)
            return mb_error_set_(L->err, MB_PARSE, L->source,
                                  "bone '%s' of mesh '%s' names no node", bone->mName.data,
                                  m->mName.data);
        double ib[16], ibm[16];
        float ibf[16];
        to_colmajor(&bone->mOffsetMatrix, ib);
        if (Minv) /* the mesh moved into bind space: see mesh_bind_space */
            mul4(ib, Minv, ibm);
        else
            memcpy(ibm, ib, sizeof ib);
        for (int c = 0; c < 16; ++c)
            ibf[c] = (float)ibm[c];
        fold_scale(ibf, L->sigma[node]);
        int e = add_entry(b, node, ibf);
        if (e < 0)
            return mb_error_set_(L->err, MB_LIMIT, L->source, "more than 65536 bones");
        for (unsigned wi = 0; wi < bone->mNumWeights; ++wi) {
            const struct aiVertexWeight *vw = &bone->mWeights[wi];
            if (vw->mVertexId >= m->mNumVertices || !isfinite(vw->mWeight) || vw->mWeight < 0.0f)
                return mb_error_set_(L->err, MB_PARSE, L->source,
                                      "bone '%s' of mesh '%s' has a bad weight (vertex %u, "
                                      "weight %g)",
                                      bone->mName.data, m->mName.data, vw->mVertexId,
                                      (double)vw->mWeight);
            if (vw->mWeight > 0.0f)
                add_influence(b, base + (int)vw->mVertexId, e, vw->mWeight);
        }
    }
    return MB_OK;
}

/* Mesh m's vertices (of node i, numbered from base): a weighted vertex as it is, in bind
 * space (moved there by M when M is not NULL, see mesh_bind_space); a rigid one (a rigid mesh, or a skinned mesh's unweighted vertex) carried by its
 * node's bind world (inverse iwb), which becomes a palette entry of its own. */
static mb_status add_vertices(loader *L, mesh_build *b, int i, const struct aiMesh *m, int base,
                              const float iwb[16], const double *M, const double *Minv)
{
    int rigid_entry = -1;
    const struct aiVector3D *uv = m->mTextureCoords[0];
    b->any_uv |= uv != NULL;
    for (unsigned v = 0; v < m->mNumVertices; ++v) {
        int gv = base + (int)v;
        float *p = &b->pos[3 * (size_t)gv], *n = &b->nrm[3 * (size_t)gv];
        if (uv) { /* assimp flips v on import (origin bottom-left); glTF's is top-left */
            b->uv[2 * (size_t)gv] = (float)uv[v].x;
            b->uv[2 * (size_t)gv + 1] = (float)(1.0 - (double)uv[v].y);
        }
        struct aiVector3D zero = {0, 0, 0};
        const struct aiVector3D *nv3 = m->mNormals ? &m->mNormals[v] : &zero;
        if (m->mNumBones > 0 && b->count[gv] > 0 && M) {
            /* into bind space: M v, the normal by M^-T (renormalised) */
            xform_point(M, &m->mVertices[v], 1.0, p);
            double nn = 0.0;
            for (int r = 0; r < 3; ++r) {
                n[r] = (float)(Minv[4 * r] * nv3->x + Minv[4 * r + 1] * nv3->y + Minv[4 * r + 2] * nv3->z);
                nn += (double)n[r] * n[r];
            }
            for (int r = 0; nn > 0.0 && r < 3; ++r)
                n[r] = (float)(n[r] / sqrt(nn));
            continue;
        }
        if (m->mNumBones > 0 && b->count[gv] > 0) {
            p[0] = (float)m->mVertices[v].x;
            p[1] = (float)m->mVertices[v].y;
            p[2] = (float)m->mVertices[v].z;
            n[0] = (float)nv3->x;
            n[1] = (float)nv3->y;
            n[2] = (float)nv3->z;
            continue;
        }
        /* rigid: bind-space position = node bind world * local position */
        if (m->mNumBones > 0)
            L->scene->info.unweighted_vertices++;
        if (rigid_entry < 0 && (rigid_entry = add_entry(b, i, iwb)) < 0)
            return mb_error_set_(L->err, MB_LIMIT, L->source, "more than 65536 bones");
        xform_point(L->world[i], &m->mVertices[v], 1.0, p);
        xform_point(L->world[i], nv3, 0.0, n);
        add_influence(b, gv, rigid_entry, 1.0f);
    }
    return MB_OK;
}

/* Mesh m's triangles (other faces skipped), their indices offset by base. */
static mb_status add_faces(loader *L, mesh_build *b, const struct aiMesh *m, int base)
{
    for (unsigned f = 0; f < m->mNumFaces; ++f) {
        const struct aiFace *fc = &m->mFaces[f];
        if (fc->mNumIndices != 3)
            continue;
        for (int c = 0; c < 3; ++c) {
            if (fc->mIndices[c] >= m->mNumVertices)
                return mb_error_set_(L->err, MB_PARSE, L->source,
                                      "mesh '%s' face %u has a vertex index out of range",
                                      m->mName.data, f);
            b->tri[3 * (size_t)b->nt + (size_t)c] = (uint32_t)base + fc->mIndices[c];
        }
        b->tmat[b->nt] = (int)m->mMaterialIndex;
        b->nt++;
    }
    return MB_OK;
}

/* One instance: mesh m held by node i, appended to the build. */
static mb_status add_instance(loader *L, mesh_build *b, int i, const struct aiMesh *m)
{
    mb_scene_info *info = &L->scene->info;
    info->meshes++;
    /* The node's bind world carries rigid meshes and unweighted vertices. */
    float wb[16], iwb[16];
    for (int c = 0; c < 16; ++c)
        wb[c] = (float)L->world[i][c];
    if (!mb_mesh_invert4_(wb, iwb))
        return mb_error_set_(L->err, MB_PARSE, L->source,
                              "node '%s' of mesh '%s' has a singular transform",
                              L->nodes[i]->mName.data, m->mName.data);
    fold_scale(iwb, L->sigma[i]); /* as for the bones */
    double M[16], Minv[16];
    int moved = mesh_bind_space(L, m, i, M, Minv);
    mb_status st;
    if (m->mNumBones > 0) {
        info->skinned_meshes++;
        if ((st = add_bones(L, b, m, b->nv, moved ? Minv : NULL)) != MB_OK)
            return st;
    }
    if ((st = add_vertices(L, b, i, m, b->nv, iwb, moved ? M : NULL, moved ? Minv : NULL)) != MB_OK ||
        (st = add_faces(L, b, m, b->nv)) != MB_OK)
        return st;
    b->nv += (int)m->mNumVertices;
    return MB_OK;
}

/* The filling pass over the instances (used cleared first), then the finite check. */
static mb_status fill_instances(loader *L, mesh_build *b, unsigned char *used, int *have_normals)
{
    const struct aiScene *sc = L->sc;
    memset(used, 0, sc->mNumMeshes ? sc->mNumMeshes : 1);
    *have_normals = 1;
    for (int i = 0; i < L->nn; ++i) {
        const struct aiNode *nd = L->nodes[i];
        for (unsigned k = 0; k < nd->mNumMeshes; ++k) {
            const struct aiMesh *m = instance_mesh(sc, nd, k, used);
            if (!m)
                continue;
            if (!m->mNormals)
                *have_normals = 0;
            mb_status st = add_instance(L, b, i, m);
            if (st != MB_OK)
                return st;
        }
    }
    for (int v = 0; v < b->nv; ++v)
        for (int c = 0; c < 3; ++c)
            if (!isfinite(b->pos[3 * (size_t)v + (size_t)c]) || !isfinite(b->nrm[3 * (size_t)v + (size_t)c]))
                return mb_error_set_(L->err, MB_PARSE, L->source, "vertex %d is not finite", v);
    return MB_OK;
}

/* The mesh's bind pose: the pose in which every palette entry is the identity. A skin
 * joint's bind world is the inverse of its (first) inverse bind matrix; other nodes
 * follow their parent with their own transform. Exporters (COLLADA2GLTF among them)
 * often leave the nodes' rest transforms away from the bind pose, so it is derived
 * here rather than taken from the nodes. mesh_bind receives L->nn local transforms. */
static mb_status derive_bind_pose(loader *L, const mesh_build *b, mb_xform *mesh_bind)
{
    double(*wbind)[16] = zalloc(L, (size_t)L->nn * sizeof *wbind);
    if (!wbind)
        return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    mb_status st = MB_OK;
    for (int i = 0; i < L->nn && st == MB_OK; ++i) {
        int e = 0;
        while (e < b->ne && b->skin_joints[e] != i)
            ++e;
        int p = L->parent[i];
        double local[16];
        if (e < b->ne) {
            double ib[16], ip[16];
            for (int c = 0; c < 16; ++c)
                ib[c] = b->ibm[e][c];
            if (!mb_mesh_invert4d_(ib, wbind[i]) || (p >= 0 && !mb_mesh_invert4d_(wbind[p], ip))) {
                st = mb_error_set_(L->err, MB_PARSE, L->source, "a bone's offset matrix is singular");
                break;
            }
            if (p >= 0)
                mul4(ip, wbind[i], local);
            else
                memcpy(local, wbind[i], sizeof local);
        } else {
            /* the node's rest transform, scale folded away (see sigma) */
            mb_mesh_matrix_from_xform_(&L->bind[i], local);
            if (p >= 0)
                mul4(wbind[p], local, wbind[i]);
            else
                memcpy(wbind[i], local, sizeof local);
        }
        double q[4];
        mb_quat_from_mat4_d_(local, q);
        for (int c = 0; c < 4; ++c)
            mesh_bind[i].rot[c] = (float)q[c];
        for (int c = 0; c < 3; ++c)
            mesh_bind[i].pos[c] = (float)local[12 + c];
    }
    mb_free_(L->al, wbind);
    return st;
}

/* The scene's mb_mesh from the finished build. */
static mb_status create_mesh(loader *L, const mesh_build *b, int have_normals,
                             const mb_xform *mesh_bind)
{
    mb_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertex_count = b->nv;
    md.positions = b->pos;
    md.normals = have_normals ? b->nrm : NULL;
    md.triangle_count = b->nt;
    md.triangles = b->tri;
    md.influences = b->inf;
    md.joints = b->jt;
    md.weights = b->w;
    md.skin_joint_count = b->ne;
    md.skin_joints = b->skin_joints;
    md.inverse_bind = (const float(*)[16])b->ibm;
    md.skeleton_joint_count = L->nn;
    md.bind_pose = mesh_bind;
    md.allocator = *L->al;
    mb_error why;
    mb_status st = mb_mesh_create(&md, &L->scene->mesh, &why);
    if (st != MB_OK)
        return mb_error_set_(L->err, st, L->source, "cannot build the mesh: %s", why.text);
    mb_mesh_info mi = mb_mesh_get_info(L->scene->mesh);
    L->scene->info.cut_vertices = mi.cut_vertices;
    L->scene->info.max_influences = mi.max_influences;
    return MB_OK;
}

/* ---------- look: materials, images, texture coordinates ---------- */

/* The MIME type of encoded image bytes glTF can carry (PNG, JPEG), or NULL. */
static const char *image_mime(const unsigned char *p, size_t n)
{
    if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return "image/png";
    if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
        return "image/jpeg";
    return NULL;
}

#define MB_IMAGE_MAX_BYTES (256u << 20) /* an external texture file read beside the scene */

/* The bytes of texture path (a material's): "*N" or an embedded texture's file name, or a
 * file beside L->path. A malloc'ed copy in L's allocator (*n bytes), NULL when there is
 * none or it cannot be read (the material then has no image: a look is not worth failing
 * the scene for). */
static unsigned char *texture_bytes(loader *L, const char *path, size_t *n)
{
    const struct aiScene *sc = L->sc;
    const struct aiTexture *t = NULL;
    if (path[0] == '*') {
        char *end;
        long i = strtol(path + 1, &end, 10);
        if (*end == '\0' && i >= 0 && (unsigned long)i < sc->mNumTextures)
            t = sc->mTextures[i];
    }
    for (unsigned i = 0; !t && i < sc->mNumTextures; ++i)
        if (sc->mTextures[i]->mFilename.length > 0 && strcmp(sc->mTextures[i]->mFilename.data, path) == 0)
            t = sc->mTextures[i];
    if (t) { /* mHeight 0: pcData holds mWidth bytes of an encoded file */
        if (t->mHeight != 0 || !t->pcData || t->mWidth == 0)
            return NULL;
        unsigned char *p = mb_alloc_(L->al, t->mWidth);
        if (p) {
            memcpy(p, t->pcData, t->mWidth);
            *n = t->mWidth;
        }
        return p;
    }
    if (!L->path || path[0] == '/' || strstr(path, "..") || strchr(path, ':'))
        return NULL; /* only files beside the scene (or below it) */
    const char *slash = strrchr(L->path, '/');
    char full[4096];
    int len = snprintf(full, sizeof full, "%.*s%s", slash ? (int)(slash - L->path + 1) : 0, L->path, path);
    FILE *f = len > 0 && (size_t)len < sizeof full ? fopen(full, "rb") : NULL;
    unsigned char *p = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && size <= (long)MB_IMAGE_MAX_BYTES &&
        fseek(f, 0, SEEK_SET) == 0 && (p = mb_alloc_(L->al, (size_t)size)) != NULL &&
        fread(p, 1, (size_t)size, f) != (size_t)size) {
        mb_free_(L->al, p);
        p = NULL;
    }
    if (f)
        fclose(f);
    if (p)
        *n = (size_t)size;
    return p;
}

/* glTF's sampler wrap mode for assimp's */
static int gltf_wrap(enum aiTextureMapMode m)
{
    return m == aiTextureMapMode_Clamp ? 33071 : m == aiTextureMapMode_Mirror ? 33648 : 10497;
}

/* Material i of the scene into S->materials[i]; its base colour texture (else diffuse)
 * becomes image S->look.image_count when it is a PNG or JPEG. 0 when out of memory. */
static int read_material(loader *L, unsigned i)
{
    mb_scene *S = L->scene;
    const struct aiMaterial *am = L->sc->mMaterials[i];
    mb_material *m = &S->materials[i];
    struct aiString str;
    struct aiColor4D c = {1, 1, 1, 1};
    if (aiGetMaterialString(am, AI_MATKEY_NAME, &str) == aiReturn_SUCCESS)
        snprintf(m->name, sizeof m->name, "%.*s", MB_MAX_NAME, str.data);
    printable(m->name);
    if (aiGetMaterialColor(am, AI_MATKEY_BASE_COLOR, &c) != aiReturn_SUCCESS &&
        aiGetMaterialColor(am, AI_MATKEY_COLOR_DIFFUSE, &c) != aiReturn_SUCCESS)
        c = (struct aiColor4D){1, 1, 1, 1};
    float rgba[4] = {c.r, c.g, c.b, c.a};
    for (int k = 0; k < 4; ++k) /* glTF factors are 0..1 */
        m->base_color[k] = isfinite(rgba[k]) ? fminf(fmaxf(rgba[k], 0.0f), 1.0f) : 1.0f;
    ai_real f = 0;
    m->metallic = aiGetMaterialFloatArray(am, AI_MATKEY_METALLIC_FACTOR, &f, NULL) == aiReturn_SUCCESS && isfinite(f) ? fminf(fmaxf((float)f, 0.0f), 1.0f) : 0.0f;
    m->roughness = aiGetMaterialFloatArray(am, AI_MATKEY_ROUGHNESS_FACTOR, &f, NULL) == aiReturn_SUCCESS && isfinite(f) ? fminf(fmaxf((float)f, 0.0f), 1.0f) : 1.0f;
    int two = 0;
    m->double_sided = aiGetMaterialIntegerArray(am, AI_MATKEY_TWOSIDED, &two, NULL) == aiReturn_SUCCESS && two;
    m->base_color_image = -1;
    m->wrap_s = m->wrap_t = 10497;
    enum aiTextureMapMode mode[3] = {aiTextureMapMode_Wrap, aiTextureMapMode_Wrap, aiTextureMapMode_Wrap};
    if (aiGetMaterialTexture(am, aiTextureType_BASE_COLOR, 0, &str, NULL, NULL, NULL, NULL, mode, NULL) != aiReturn_SUCCESS &&
        aiGetMaterialTexture(am, aiTextureType_DIFFUSE, 0, &str, NULL, NULL, NULL, NULL, mode, NULL) != aiReturn_SUCCESS)
        return 1;
    size_t n = 0;
    unsigned char *bytes = texture_bytes(L, str.data, &n);
    const char *mime = bytes ? image_mime(bytes, n) : NULL;
    if (!mime) {
        mb_free_(L->al, bytes);
        return 1;
    }
    /* the same bytes (one image used by several materials) are kept once */
    int k = 0;
    while (k < S->look.image_count && !(S->images[k].size == n && memcmp(S->images[k].data, bytes, n) == 0))
        ++k;
    if (k < S->look.image_count) {
        mb_free_(L->al, bytes);
    } else {
        S->image_bytes[k] = bytes;
        S->images[k] = (mb_image){bytes, n, mime};
        S->look.image_count++;
    }
    m->base_color_image = k;
    m->wrap_s = gltf_wrap(mode[0]);
    m->wrap_t = gltf_wrap(mode[1]);
    return 1;
}

/* The scene's look (mb_scene_look) from the finished build: texture coordinates,
 * triangle materials (a material index assimp left out of range becomes 0) and every
 * material of the scene. */
static mb_status build_look(loader *L, const mesh_build *b)
{
    mb_scene *S = L->scene;
    const struct aiScene *sc = L->sc;
    unsigned nm = sc->mNumMaterials ? sc->mNumMaterials : 1;
    S->materials = zalloc(L, nm * sizeof *S->materials);
    S->images = zalloc(L, nm * sizeof *S->images);
    S->image_bytes = zalloc(L, nm * sizeof *S->image_bytes);
    S->triangle_materials = zalloc(L, (size_t)b->nt * sizeof(int));
    S->texcoords = b->any_uv ? zalloc(L, (size_t)b->nv * 2 * sizeof(float)) : NULL;
    if (!S->materials || !S->images || !S->image_bytes || !S->triangle_materials ||
        (b->any_uv && !S->texcoords))
        return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    if (S->texcoords)
        memcpy(S->texcoords, b->uv, (size_t)b->nv * 2 * sizeof(float));
    for (int t = 0; t < b->nt; ++t)
        S->triangle_materials[t] = b->tmat[t] >= 0 && (unsigned)b->tmat[t] < nm ? b->tmat[t] : 0;
    if (sc->mNumMaterials == 0) { /* a default grey */
        S->materials[0] = (mb_material){"default", {0.8f, 0.8f, 0.8f, 1}, 0, 1, -1, 10497, 10497, 0};
    }
    for (unsigned i = 0; i < sc->mNumMaterials; ++i)
        if (!read_material(L, i))
            return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    S->look.vertex_count = b->nv;
    S->look.texcoords = S->texcoords;
    S->look.triangle_count = b->nt;
    S->look.triangle_materials = S->triangle_materials;
    S->look.material_count = (int)nm;
    S->look.materials = S->materials;
    S->look.images = S->images;
    return MB_OK;
}

/* Every mesh instance of the scene as one mb_mesh on the node skeleton: count, allocate,
 * fill, derive the bind pose, create. No mesh instance: no mesh, MB_OK. */
static mb_status build_mesh(loader *L)
{
    const struct aiScene *sc = L->sc;
    /* instances, see instance_mesh */
    unsigned char *used = zalloc(L, sc->mNumMeshes ? sc->mNumMeshes : 1);
    if (!used)
        return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    mesh_totals t;
    mesh_build b;
    memset(&b, 0, sizeof b);
    mb_xform *mesh_bind = NULL;
    int have_normals = 1;
    mb_status st = MB_OK;
    if (!count_instances(L, used, &t)) {
        st = mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    } else if (t.instances == 0) {
        /* no mesh: skeleton and clips only */
    } else if (t.nv > MB_MESH_MAX_VERTICES || t.nt > MB_MESH_MAX_TRIANGLES) {
        st = mb_error_set_(L->err, MB_LIMIT, L->source,
                            "%lld vertices and %lld triangles are past the mesh limits (%d, %d)",
                            t.nv, t.nt, MB_MESH_MAX_VERTICES, MB_MESH_MAX_TRIANGLES);
    } else if (!mesh_build_alloc(L, &t, &b)) {
        st = mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    } else if ((st = fill_instances(L, &b, used, &have_normals)) == MB_OK) {
        mesh_bind = zalloc(L, (size_t)L->nn * sizeof *mesh_bind);
        if (!mesh_bind)
            st = mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
        else if ((st = derive_bind_pose(L, &b, mesh_bind)) == MB_OK &&
                 (st = create_mesh(L, &b, have_normals, mesh_bind)) == MB_OK)
            st = build_look(L, &b);
    }
    mb_free_(L->al, mesh_bind);
    mb_free_(L->al, used);
    mesh_build_free(L, &b);
    return st;
}

/* ---------- clips ---------- */

/* Key index i with key[i] <= t < key[i+1] and the fraction u; clamped at both ends. */
#define FIND_KEY(keys, n, t, i, u)                                                          \
    do {                                                                                    \
        if ((t) <= (keys)[0].mTime || (n) == 1) {                                           \
            i = 0;                                                                          \
            u = 0.0;                                                                        \
        } else if ((t) >= (keys)[(n)-1].mTime) {                                            \
            i = (n)-1;                                                                      \
            u = 0.0;                                                                        \
        } else {                                                                            \
            unsigned lo_ = 0, hi_ = (n)-1;                                                  \
            while (hi_ - lo_ > 1) {                                                         \
                unsigned mid_ = (lo_ + hi_) / 2;                                            \
                if ((keys)[mid_].mTime <= (t))                                              \
                    lo_ = mid_;                                                             \
                else                                                                        \
                    hi_ = mid_;                                                             \
            }                                                                               \
            i = lo_;                                                                        \
            double span_ = (keys)[hi_].mTime - (keys)[lo_].mTime;                           \
            u = span_ > 0.0 ? ((t) - (keys)[lo_].mTime) / span_ : 0.0;                      \
            /* a sample on a key takes the key exactly */                                   \
            if (u < 1e-6)                                                                   \
                u = 0.0;                                                                    \
            else if (u > 1.0 - 1e-6) {                                                      \
                i = hi_;                                                                    \
                u = 0.0;                                                                    \
            }                                                                               \
        }                                                                                   \
    } while (0)

static void sample_rot(const struct aiNodeAnim *ch, double t, float out[4])
{
    unsigned i;
    double u;
    FIND_KEY(ch->mRotationKeys, ch->mNumRotationKeys, t, i, u);
    const struct aiQuaternion *a = &ch->mRotationKeys[i].mValue;
    double qa[4] = {a->x, a->y, a->z, a->w}, q[4];
    if (u == 0.0) {
        memcpy(q, qa, sizeof q);
    } else {
        const struct aiQuaternion *bq = &ch->mRotationKeys[i + 1].mValue;
        double qb[4] = {bq->x, bq->y, bq->z, bq->w};
        double dot = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
        if (dot < 0.0) {
            dot = -dot;
            for (int k = 0; k < 4; ++k)
                qb[k] = -qb[k];
        }
        double ka, kb;
        if (dot > 0.9999995) {
            ka = 1.0 - u;
            kb = u;
        } else {
            double th = acos(dot > 1.0 ? 1.0 : dot), s = sin(th);
            ka = sin((1.0 - u) * th) / s;
            kb = sin(u * th) / s;
        }
        for (int k = 0; k < 4; ++k)
            q[k] = ka * qa[k] + kb * qb[k];
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k)
        out[k] = (float)(q[k] / n);
}

static void sample_pos(const struct aiNodeAnim *ch, double t, float out[3])
{
    unsigned i;
    double u;
    FIND_KEY(ch->mPositionKeys, ch->mNumPositionKeys, t, i, u);
    const struct aiVector3D *a = &ch->mPositionKeys[i].mValue;
    if (u == 0.0) {
        out[0] = (float)a->x;
        out[1] = (float)a->y;
        out[2] = (float)a->z;
        return;
    }
    const struct aiVector3D *b = &ch->mPositionKeys[i + 1].mValue;
    out[0] = (float)(a->x + u * (b->x - a->x));
    out[1] = (float)(a->y + u * (b->y - a->y));
    out[2] = (float)(a->z + u * (b->z - a->z));
}

/* The key grid of an animation in ticks: *grid > 0 when every key time is a multiple of it. */
static void key_grid(const struct aiAnimation *an, double *grid, double *last)
{
    double min_gap = INFINITY, end = 0.0;
    for (unsigned c = 0; c < an->mNumChannels; ++c) {
        const struct aiNodeAnim *ch = an->mChannels[c];
        for (unsigned k = 0; k < ch->mNumRotationKeys; ++k) {
            double t = ch->mRotationKeys[k].mTime;
            end = t > end ? t : end;
            if (k > 0 && t - ch->mRotationKeys[k - 1].mTime > 0.0)
                min_gap = fmin(min_gap, t - ch->mRotationKeys[k - 1].mTime);
        }
        for (unsigned k = 0; k < ch->mNumPositionKeys; ++k) {
            double t = ch->mPositionKeys[k].mTime;
            end = t > end ? t : end;
            if (k > 0 && t - ch->mPositionKeys[k - 1].mTime > 0.0)
                min_gap = fmin(min_gap, t - ch->mPositionKeys[k - 1].mTime);
        }
    }
    *last = end;
    *grid = 0.0;
    if (!(end > 0.0) || !isfinite(min_gap))
        return;
    /* The smallest gap divided by 1..16: the first that holds every key. Sampling a slerp
     * (or lerp) segment more finely and interpolating again traces the same curve, so the
     * clip reproduces the keyed motion exactly at any time. */
    for (int div = 1; div <= 16; ++div) {
        double steps = floor(end / (min_gap / div) + 0.5);
        if (steps < 1.0 || steps > 1e6)
            return;
        double g = end / steps;
        int ok = 1;
        for (unsigned c = 0; c < an->mNumChannels && ok; ++c) {
            const struct aiNodeAnim *ch = an->mChannels[c];
            for (unsigned k = 0; k < ch->mNumRotationKeys && ok; ++k) {
                double x = ch->mRotationKeys[k].mTime / g;
                ok = fabs(x - floor(x + 0.5)) <= 1e-3;
            }
            for (unsigned k = 0; k < ch->mNumPositionKeys && ok; ++k) {
                double x = ch->mPositionKeys[k].mTime / g;
                ok = fabs(x - floor(x + 0.5)) <= 1e-3;
            }
        }
        if (ok) {
            *grid = g;
            return;
        }
    }
}

/* Animation a's channels by node (chan[node]: its channel index, -1 none; the first
 * channel of a node wins), their keys checked: times finite, >= 0 and in order (glTF
 * requires increasing inputs; out of order they collapsed the clip to one frame), values
 * finite; a node whose scale keys leave its static scale is marked in L->scaled. */
static mb_status map_channels(loader *L, const struct aiAnimation *an, unsigned a, int *chan)
{
    for (int i = 0; i < L->nn; ++i)
        chan[i] = -1;
    for (unsigned c = 0; c < an->mNumChannels; ++c) {
        const struct aiNodeAnim *ch = an->mChannels[c];
        int node = find_node(L, &ch->mNodeName);
        if (node < 0 || chan[node] >= 0)
            continue;
        chan[node] = (int)c;
        for (unsigned k = 0; k < ch->mNumRotationKeys; ++k)
            if (!finite_quat(&ch->mRotationKeys[k].mValue) || !isfinite(ch->mRotationKeys[k].mTime) ||
                ch->mRotationKeys[k].mTime < 0.0 ||
                (k > 0 && ch->mRotationKeys[k].mTime < ch->mRotationKeys[k - 1].mTime))
                return mb_error_set_(L->err, MB_PARSE, L->source,
                                      "animation %u, node '%s': bad rotation key %u (a non-finite value, or a "
                                      "time below 0 or before the previous key's)", a,
                                      ch->mNodeName.data, k);
        for (unsigned k = 0; k < ch->mNumPositionKeys; ++k) {
            const struct aiVector3D *v = &ch->mPositionKeys[k].mValue;
            if (!isfinite(v->x) || !isfinite(v->y) || !isfinite(v->z) ||
                !isfinite(ch->mPositionKeys[k].mTime) || ch->mPositionKeys[k].mTime < 0.0 ||
                (k > 0 && ch->mPositionKeys[k].mTime < ch->mPositionKeys[k - 1].mTime))
                return mb_error_set_(L->err, MB_PARSE, L->source,
                                      "animation %u, node '%s': bad position key %u (a non-finite value, or a "
                                      "time below 0 or before the previous key's)", a,
                                      ch->mNodeName.data, k);
        }
        /* keys away from the node's static scale (folded when uniform, see sigma; assimp
         * gives every animated node a key holding it) cannot be carried */
        double own = L->sigma[node] / sigma_above(L, node);
        double tol = SCALE_TOL * (own > 1.0 ? own : 1.0);
        for (unsigned k = 0; k < ch->mNumScalingKeys; ++k) {
            const struct aiVector3D *v = &ch->mScalingKeys[k].mValue;
            if (fabs(v->x - own) > tol || fabs(v->y - own) > tol || fabs(v->z - own) > tol)
                L->scaled[node] = 1;
        }
    }
    return MB_OK;
}

/* How animation a is sampled: its keys' own grid when they have one and no rate is asked
 * (*grid > 0 ticks), else L->rate or 60 fps (counted as resampled when not asked). */
typedef struct clip_timing {
    double tps;  /* ticks per second */
    double grid; /* ticks between frames on the keys' grid; 0: resampled */
    double dt;   /* seconds per frame */
    long long frames;
} clip_timing;

static mb_status time_clip(loader *L, const struct aiAnimation *an, unsigned a, clip_timing *tm)
{
    tm->tps = an->mTicksPerSecond > 0.0 ? an->mTicksPerSecond : 25.0;
    double grid, last;
    key_grid(an, &grid, &last);
    tm->grid = L->rate == 0.0 && grid > 0.0 ? grid : 0.0;
    if (tm->grid > 0.0) {
        tm->dt = grid / tm->tps;
        tm->frames = (long long)floor(last / grid + 0.5) + 1;
    } else {
        double rate = L->rate > 0.0 ? L->rate : 60.0;
        if (!(L->rate > 0.0) && last > 0.0)
            L->scene->info.resampled_clips++;
        tm->dt = 1.0 / rate;
        tm->frames = (long long)ceil(last / tm->tps * rate - 1e-9) + 1;
    }
    if (tm->frames < 1)
        tm->frames = 1;
    if (tm->frames > MB_MAX_FRAMES)
        return mb_error_set_(L->err, MB_LIMIT, L->source, "animation %u: %lld frames (limit %d)",
                              a, tm->frames, MB_MAX_FRAMES);
    return MB_OK;
}

/* Every frame of the clip: each node's rotation (its bind rotation where it has no keys)
 * and the translations of the ntr tracked nodes, scaled by the scale above them (see
 * sigma); then the rotations made continuous. */
static void sample_clip(const loader *L, const struct aiAnimation *an, const int *chan,
                        const int *tracked, int ntr, const clip_timing *tm, mb_clip *clip)
{
    float *rot = mb_clip_rotations_mut(clip), *tr = mb_clip_translations_mut(clip);
    for (long long f = 0; f < tm->frames; ++f) {
        double t = (double)f * tm->dt * tm->tps; /* ticks */
        if (tm->grid > 0.0)
            t = (double)f * tm->grid;
        for (int i = 0; i < L->nn; ++i) {
            float *q = &rot[((size_t)f * (size_t)L->nn + (size_t)i) * 4];
            memcpy(q, L->bind[i].rot, 4 * sizeof(float));
            if (chan[i] >= 0 && an->mChannels[chan[i]]->mNumRotationKeys > 0)
                sample_rot(an->mChannels[chan[i]], t, q);
        }
        for (int k = 0; k < ntr; ++k) {
            float *o = &tr[((size_t)f * (size_t)ntr + (size_t)k) * 3];
            sample_pos(an->mChannels[chan[tracked[k]]], t, o);
            double sp = sigma_above(L, tracked[k]); /* see sigma */
            for (int c = 0; c < 3; ++c)
                o[c] = (float)(o[c] * sp);
        }
    }
    mb_clip_make_continuous_(rot, L->nn, (int)tm->frames);
}

/* Animation a as the scene's next clip (named after it, or "clip<a>"); chan and tracked
 * are L->nn ints of scratch each. */
static mb_status build_clip(loader *L, unsigned a, int *chan, int *tracked)
{
    const struct aiAnimation *an = L->sc->mAnimations[a];
    mb_scene *S = L->scene;
    clip_timing tm;
    mb_status st;
    if ((st = map_channels(L, an, a, chan)) != MB_OK || (st = time_clip(L, an, a, &tm)) != MB_OK)
        return st;
    /* Only nodes with position keys get a translation track: every other node holds
     * its bind translation, which is its skeleton offset. */
    int ntr = 0;
    for (int i = 0; i < L->nn; ++i)
        if (chan[i] >= 0 && an->mChannels[chan[i]]->mNumPositionKeys > 0)
            tracked[ntr++] = i;
    mb_clip *clip;
    st = mb_clip_alloc(L->nn, (int)tm.frames, tm.dt, tracked, ntr, L->al, &clip, NULL);
    if (st != MB_OK)
        return mb_error_set_(L->err, st, L->source, "animation %u: cannot allocate %lld frames: %s",
                              a, tm.frames, mb_status_str(st));
    S->clips[S->clip_count] = clip;
    if (an->mName.length > 0)
        snprintf(S->clip_names[S->clip_count], MB_MAX_NAME + 1, "%.*s",
                 (int)(an->mName.length > MB_MAX_NAME ? MB_MAX_NAME : an->mName.length),
                 an->mName.data);
    else
        snprintf(S->clip_names[S->clip_count], MB_MAX_NAME + 1, "clip%u", a);
    printable(S->clip_names[S->clip_count]);
    S->clip_count++;
    sample_clip(L, an, chan, tracked, ntr, &tm, clip);
    return MB_OK;
}

static mb_status build_clips(loader *L)
{
    const struct aiScene *sc = L->sc;
    mb_scene *S = L->scene;
    if (sc->mNumAnimations == 0)
        return MB_OK;
    S->clips = zalloc(L, sc->mNumAnimations * sizeof *S->clips);
    S->clip_names = zalloc(L, sc->mNumAnimations * sizeof *S->clip_names);
    int *chan = zalloc(L, (size_t)L->nn * 2 * sizeof *chan);
    int *tracked = chan ? chan + L->nn : NULL; /* nodes with position keys, ascending */
    if (!S->clips || !S->clip_names || !chan) {
        mb_free_(L->al, chan);
        return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    }
    mb_status st = MB_OK;
    for (unsigned a = 0; a < sc->mNumAnimations && st == MB_OK; ++a)
        st = build_clip(L, a, chan, tracked);
    mb_free_(L->al, chan);
    return st;
}

/* ---------- the skeleton, once the clips are known ---------- */

/* Whether a node's rotation is its rest rotation r (either sign): 1 - cos(angle / 2) below
 * 1e-11 (under 1e-5 rad), on the normalised dot product. With r the identity: whether q is. */
static int same_rotation(const float q[4], const float r[4])
{
    double dot = 0.0, qn = 0.0, rn = 0.0;
    for (int k = 0; k < 4; ++k) {
        dot += (double)q[k] * r[k];
        qn += (double)q[k] * q[k];
        rn += (double)r[k] * r[k];
    }
    return dot * dot >= (1.0 - 2e-11) * qn * rn;
}

/* Whether some clip moves node j: its rotation away from its bind rotation, or its
 * translation off its offset (mb_translation_at_rest_). Assimp gives every animated node
 * keys for all three of its properties, so a track that only holds the rest value is not
 * motion. */
static int node_moves(const loader *L, int j)
{
    const mb_scene *S = L->scene;
    const mb_xform *b = &L->bind[j];
    for (int c = 0; c < S->clip_count; ++c) {
        const mb_clip *clip = S->clips[c];
        int frames = mb_clip_frame_count(clip), slot = mb_clip_translation_slot(clip, j);
        int nt = mb_clip_translation_count(clip);
        const float *t = mb_clip_translations(clip), *r = mb_clip_rotations(clip);
        for (int f = 0; f < frames; ++f) {
            if (!same_rotation(&r[((size_t)f * (size_t)L->nn + (size_t)j) * 4], b->rot))
                return 1;
            if (slot >= 0 && !mb_translation_at_rest_(&t[((size_t)f * (size_t)nt + (size_t)slot) * 3], b->pos))
                return 1;
        }
    }
    return 0;
}

/* The skeleton. Every node gets 6 channels, so that any node can carry a translation (clip
 * mapping, blending and still meshes rely on it; a BVH writer drops the ones a clip holds
 * still, see mb_bvh_write_desc). glTF and FBX know no End Sites and no multi-ROOT groups,
 * so the two that mblend's own glTF writer exports are recognised and read back as such:
 * - an End Site: a leaf named "<parent>_End" (the name mblend gives End Sites; "_End2" ...
 *   for a joint's further ones), holding no
 *   mesh, carrying no vertex weight, resting at the identity and never moving (a leaf that
 *   carries anything, or another tool's leaf bone, stays a joint);
 * - the group above a multi-ROOT BVH's ROOTs: node 0 when the writer marked it (glTF node
 *   extras, see gltf_check.c; a name alone would take a user's ROOT named ROOTS), at the
 *   origin and the identity and never moving (a group is the identity, so a mesh or skin
 *   hung on it, as mblend's writer does, is unchanged).
 * So a BVH written as .glb and read back has its End Sites and ROOTs again. */
/* "_End", or "_End2", "_End3" ... (the BVH reader's names for a joint's further End Sites) */
static int end_site_suffix(const char *s)
{
    if (strncmp(s, "_End", 4) != 0)
        return 0;
    s += 4;
    if (!*s)
        return 1;
    if (*s < '2' || *s > '9') /* no "_End0", "_End1" or leading zeros */
        return 0;
    while (*s >= '0' && *s <= '9')
        ++s;
    return *s == '\0';
}

static mb_status finish_skeleton(loader *L)
{
    /* per node: how many children it has, and whether some vertex weighs on it */
    int *children = zalloc(L, (size_t)L->nn * sizeof *children);
    unsigned char *weighed = zalloc(L, (size_t)L->nn);
    if (!children || !weighed) {
        mb_free_(L->al, children);
        mb_free_(L->al, weighed);
        return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    }
    for (int i = 1; i < L->nn; ++i)
        children[L->parent[i]]++;
    const mb_mesh *m = L->scene->mesh;
    if (m) {
        const int *skin = mb_mesh_skin_joints(m);
        const uint16_t *ji = mb_mesh_joint_indices(m);
        const float *jw = mb_mesh_joint_weights(m);
        for (size_t k = 0; k < (size_t)mb_mesh_vertex_count(m) * 4; ++k)
            if (jw[k] > 0.0f)
                weighed[skin[ji[k]]] = 1;
    }
    static const mb_channel ch[6] = {MB_CH_XPOS, MB_CH_YPOS, MB_CH_ZPOS, MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
    static const float identity[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    for (int i = 0; i < L->nn; ++i) {
        mb_joint_desc *j = &L->jd[i];
        j->channel_count = 6;
        memcpy(j->channels, ch, sizeof ch);
        if (i == 0 || children[i] > 0 || weighed[i] ||
            L->nodes[i]->mNumMeshes > 0 || !same_rotation(L->bind[i].rot, identity))
            continue;
        const char *pn = L->jd[L->parent[i]].name;
        size_t pl = strlen(pn);
        if (strncmp(j->name, pn, pl) == 0 && end_site_suffix(j->name + pl) && !node_moves(L, i)) {
            j->end_site = 1;
            j->channel_count = 0;
        }
    }
    const mb_joint_desc *j0 = &L->jd[0];
    if (L->roots_group[0] && strcmp(L->nodes[0]->mName.data, L->roots_group) == 0 &&
        j0->offset[0] == 0.0f && j0->offset[1] == 0.0f && j0->offset[2] == 0.0f &&
        same_rotation(L->bind[0].rot, identity) && !node_moves(L, 0)) {
        L->jd[0].roots_group = 1;
        L->jd[0].channel_count = 0;
    }
    mb_free_(L->al, children);
    mb_free_(L->al, weighed);
    mb_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joints = L->jd;
    sd.joint_count = L->nn;
    sd.allocator = *L->al;
    mb_error why;
    mb_status st = mb_skeleton_create(&sd, &L->scene->skeleton, &why);
    if (st != MB_OK)
        mb_error_set_(L->err, st, L->source, "cannot build the skeleton: %s", why.text);
    return st;
}

static mb_status build_scene(loader *L, mb_scene **out)
{
    mb_scene *S = zalloc(L, sizeof *S);
    if (!S)
        return mb_error_set_(L->err, MB_NOMEM, L->source, "out of memory");
    S->allocator = *L->al;
    L->scene = S;
    mb_status st = build_skeleton(L);
    if (st == MB_OK)
        st = build_mesh(L);
    if (st == MB_OK)
        st = build_clips(L);
    if (st == MB_OK)
        st = finish_skeleton(L);
    for (int i = 0; i < L->nn; ++i)
        S->info.scaled_nodes += L->scaled ? L->scaled[i] : 0;
    mb_free_(L->al, L->nodes);
    mb_free_(L->al, L->parent);
    mb_free_(L->al, L->world);
    mb_free_(L->al, L->bind);
    mb_free_(L->al, L->names);
    mb_free_(L->al, L->scaled);
    mb_free_(L->al, L->sigma);
    mb_free_(L->al, L->jd);
    if (st != MB_OK) {
        mb_scene_destroy(S);
        return st;
    }
    *out = S;
    return MB_OK;
}

static const unsigned k_flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                aiProcess_GenSmoothNormals | aiProcess_SortByPType |
                                aiProcess_ValidateDataStructure;

static mb_status import(const void *data, size_t len, const char *path, const char *source,
                        const mb_scene_read_desc *d, mb_scene **out, mb_error *err)
{
    mb_error_clear_(err);
    if (!out)
        return mb_error_set_(err, MB_INVALID_ARG, source, "no output given");
    *out = NULL;
    mb_scene_read_desc defaults;
    memset(&defaults, 0, sizeof defaults);
    if (!d)
        d = &defaults;
    if (!(d->sample_rate >= 0.0) || !(d->sample_rate <= 10000.0))
        return mb_error_set_(err, MB_INVALID_ARG, source,
                              "sample rate %g is outside 0..10000 frames per second",
                              d->sample_rate);
    mb_gltf_patch patch;
    mb_status pre = mb_gltf_check_(data, len, path, source, err, &patch);
    if (pre != MB_OK)
        return pre;
    if (patch.len > UINT_MAX) { /* assimp's memory reader takes an unsigned length */
        free(patch.data);
        return mb_error_set_(err, MB_LIMIT, source, "glTF: the patched copy is larger than %u bytes",
                              UINT_MAX);
    }
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) {
        free(patch.data);
        return mb_error_set_(err, MB_NOMEM, source, "out of memory");
    }
    /* FBX pivots as separate "$AssimpFbx$" nodes would split joints in two. */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    const struct aiScene *sc;
    if (patch.data) {
        sc = aiImportFileFromMemoryWithProperties(patch.data, (unsigned)patch.len, k_flags,
                                                  patch.hint, props);
        free(patch.data);
    } else if (path) {
        sc = aiImportFileExWithProperties(path, k_flags, NULL, props);
    } else {
        const char *dot = source ? strrchr(source, '.') : NULL;
        const char *slash = source ? strrchr(source, '/') : NULL;
        const char *hint = dot && (!slash || dot > slash) ? dot + 1 : "";
        sc = aiImportFileFromMemoryWithProperties(data, (unsigned)len, k_flags, hint, props);
    }
    aiReleasePropertyStore(props);
    if (!sc) {
        const char *why = aiGetErrorString();
        return mb_error_set_(err, MB_PARSE, source, "assimp cannot read it: %s",
                              why && *why ? why : "unknown error");
    }
    loader L;
    memset(&L, 0, sizeof L);
    L.sc = sc;
    L.al = &d->allocator;
    L.source = source;
    L.err = err;
    L.rate = d->sample_rate;
    L.roots_group = patch.roots_group;
    L.path = path;
    mb_status st = build_scene(&L, out);
    aiReleaseImport(sc);
    return st;
}

mb_status mb_scene_read_mem(const void *data, size_t len, const char *source,
                            const mb_scene_read_desc *d, mb_scene **out, mb_error *err)
{
    mb_error_clear_(err);
    if (!data || len == 0) {
        if (out)
            *out = NULL;
        return mb_error_set_(err, MB_INVALID_ARG, source, "no data given");
    }
    if (len > UINT_MAX) {
        if (out)
            *out = NULL;
        return mb_error_set_(err, MB_LIMIT, source, "larger than %u bytes", UINT_MAX);
    }
    return import(data, len, NULL, source ? source : "<memory>", d, out, err);
}

mb_status mb_scene_read_file(const char *path, const mb_scene_read_desc *d, mb_scene **out,
                             mb_error *err)
{
    mb_error_clear_(err);
    /* Through assimp's own file system, so a .gltf finds its .bin and textures beside it. */
    if (!path || !*path) {
        if (out)
            *out = NULL;
        return mb_error_set_(err, MB_INVALID_ARG, path, "no path given");
    }
    struct stat sb;
    FILE *f = fopen(path, "rb");
    if (!f || fstat(fileno(f), &sb) != 0 || S_ISDIR(sb.st_mode)) {
        int e = f ? EISDIR : errno;
        if (f)
            fclose(f);
        if (out)
            *out = NULL;
        return mb_error_set_(err, MB_IO, path, "cannot open '%s': %s", path, strerror(e));
    }
    fclose(f);
    return import(NULL, 0, path, path, d, out, err);
}

#endif /* MB_WITH_ASSIMP */
