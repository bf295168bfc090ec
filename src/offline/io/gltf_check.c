/* A structural check of glTF 2.0 assets (binary .glb or JSON .gltf) before assimp reads
 * them. Debian's assimp 5.2.5 trusts the file: a skin without inverseBindMatrices (which
 * glTF allows) dereferences NULL, a sparse accessor whose count exceeds its accessor reads
 * and writes past the heap block, and a node chain tens of thousands deep overflows the
 * stack before mblend could see the tree. This pass reads the JSON with cJSON (whose
 * parser stops at 1000 levels of nesting) and checks every index and byte range assimp
 * follows, so such files end in an MB_PARSE naming the JSON path instead of a crash.
 * Other formats are left to assimp untouched; so is JSON that parses but is not glTF 2
 * (assimp's glTF 1 reader takes it or refuses it), while JSON cJSON refuses is refused
 * here whatever the file's name, since assimp picks its glTF readers by content. */
#ifdef MB_WITH_ASSIMP

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mblend/runtime/anim.h"

#include "offline/io/gltf_internal.h"

/* A JSON text larger than this is refused (MB_LIMIT): a scene's JSON is kilobytes to a few
 * tens of megabytes; embedded base64 buffers make it larger, up to what assimp takes from
 * memory. */
#define GLTF_MAX_JSON ((size_t)UINT_MAX)

typedef struct {
    const unsigned char *mem; /* the whole input when read from memory */
    size_t mem_len;
    FILE *f;                  /* else the open file */
    const char *dir;          /* directory relative URIs start from; NULL from memory */
    const char *source;
    mb_error *err;
    int glb;
    unsigned long long bin_off, bin_len; /* the GLB's BIN chunk (bin_len 0: none) */
    int has_bin;
    cJSON *root;
    int nbuffers, nviews, naccessors, nnodes;
    double *buffer_len;       /* declared byteLength of each buffer */
    const cJSON **view, **acc; /* the bufferViews and accessors by index (cJSON's own
                                  lookup by index walks the list) */
    int skins_without_binds;
    /* A scene root that only carries a skinned mesh (mesh and skin, no children, no other
     * use), beside one other root without a mesh: the patch moves the mesh onto that root
     * (a skinned mesh ignores its node's transform), so assimp sees one root and does not
     * wrap the two in a "ROOT" node of its own (mblend's glb writer and Blender's exporter
     * both make such scenes); -1: none. */
    int fold_mesh_node, fold_onto;
    int *parent;               /* each node's parent, -1 for a root (after check_nodes) */
    int marked_group;          /* the node marked as a multi-ROOT group, -1: none */
} gcheck;

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads len bytes at off of the input (memory or file); 0 when they are not all there. */
static int input_read(const gcheck *g, unsigned long long off, size_t len, void *out)
{
    if (g->mem) {
        if (off > g->mem_len || len > g->mem_len - off)
            return 0;
        memcpy(out, g->mem + off, len);
        return 1;
    }
    if (off > (unsigned long long)LONG_MAX || fseek(g->f, (long)off, SEEK_SET) != 0)
        return 0;
    return fread(out, 1, len, g->f) == len;
}


static int array_size(const cJSON *root, const char *key)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0;
}

/* An optional index property: -1 when absent, the index when valid, -2 after an error. */
static long long opt_index(const gcheck *g, const cJSON *obj, const char *key, int n,
                           const char *what, const char *path, mb_status *st)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v)
        return -1;
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    if (!(d >= 0.0) || d != floor(d) || d >= (double)n) {
        *st = mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s%s%s is not one of the %d %s", path, *path ? "." : "", key, n, what);
        return -2;
    }
    return (long long)d;
}

/* A required non-negative integer (or the default when absent and dflt >= 0). */
static int get_count(const gcheck *g, const cJSON *obj, const char *key, double dflt,
                     double max, const char *path, double *out, mb_status *st)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v && dflt >= 0.0) {
        *out = dflt;
        return 1;
    }
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    if (!(d >= 0.0) || d != floor(d) || d > max) {
        *st = v ? mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.%s is not an integer from 0 to %.0f", path, key, max)
                : mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s has no %s", path, key);
        return 0;
    }
    *out = d;
    return 1;
}

static int component_size(int type)
{
    switch (type) {
    case 5120: case 5121: return 1; /* byte, unsigned byte */
    case 5122: case 5123: return 2; /* short, unsigned short */
    case 5125: case 5126: return 4; /* unsigned int, float */
    default: return 0;
    }
}

static int type_components(const char *t)
{
    static const struct { const char *name; int n; } k[] = {
        {"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
    for (size_t i = 0; t && i < sizeof k / sizeof k[0]; ++i)
        if (strcmp(t, k[i].name) == 0)
            return k[i].n;
    return 0;
}

/* Bytes a base64 text decodes to (padding and line breaks excluded). */
static double base64_len(const char *s)
{
    double n = 0.0;
    for (; *s && *s != '='; ++s)
        n += (*s != '\n' && *s != '\r' && *s != ' ');
    return floor(n * 3.0 / 4.0);
}

/* The bytes each buffer really holds: the GLB's BIN chunk, a base64 data URI, or a file
 * beside the asset; -1 when it cannot be told here (a relative file read from memory, a
 * URI that is not a plain path). Only declared lengths larger than that are errors. */
static double buffer_available(const gcheck *g, int i, const cJSON *b)
{
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
    if (!uri)
        return g->glb && i == 0 && g->has_bin ? (double)g->bin_len : -1.0;
    if (!cJSON_IsString(uri))
        return -1.0;
    const char *u = uri->valuestring;
    if (strncmp(u, "data:", 5) == 0) {
        const char *comma = strchr(u, ',');
        if (!comma || !strstr(u, ";base64,") || strstr(u, ";base64,") + 7 != comma)
            return -1.0;
        return base64_len(comma + 1);
    }
    if (!g->dir || strchr(u, '%') || strchr(u, ':'))
        return -1.0;
    char path[4096];
    int n = u[0] == '/' ? snprintf(path, sizeof path, "%s", u)
                        : snprintf(path, sizeof path, "%s/%s", g->dir, u);
    struct stat sb;
    if (n < 0 || (size_t)n >= sizeof path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return -1.0;
    return (double)sb.st_size;
}

static mb_status check_buffers(gcheck *g)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(g->root, "buffers");
    b = b ? b->child : NULL;
    mb_status st = MB_OK;
    char path[64];
    for (int i = 0; i < g->nbuffers; ++i, b = b->next) {
        snprintf(path, sizeof path, "buffers[%d]", i);
        if (!get_count(g, b, "byteLength", -1.0, 9.0e15, path, &g->buffer_len[i], &st))
            return st;
        double have = buffer_available(g, i, b);
        /* A buffer without uri is the GLB's BIN chunk, or one an extension supplies (an
         * EXT_meshopt_compression fallback): its bytes are not the file's to check. */
        if (!cJSON_GetObjectItemCaseSensitive(b, "uri") && g->buffer_len[i] > 0.0 &&
            !(g->glb && i == 0 && g->has_bin) && !cJSON_GetObjectItemCaseSensitive(b, "extensions"))
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s has no uri and is not the GLB's BIN chunk (%s)", path,
                        !g->glb ? "a .gltf file has none" : i ? "only buffers[0] can be"
                                                               : "the GLB has none");
        if (have >= 0.0 && g->buffer_len[i] > have)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s declares %.0f bytes but holds %.0f", path, g->buffer_len[i], have);
    }
    return MB_OK;
}

/* bufferView v's byte length (already checked against its buffer). */
static double view_length(const gcheck *g, int v)
{
    return cJSON_GetObjectItemCaseSensitive(g->view[v], "byteLength")->valuedouble;
}

static mb_status check_views(const gcheck *g)
{
    mb_status st = MB_OK;
    char path[64];
    for (int i = 0; i < g->nviews; ++i) {
        const cJSON *bv = g->view[i];
        snprintf(path, sizeof path, "bufferViews[%d]", i);
        long long b = opt_index(g, bv, "buffer", g->nbuffers, "buffers", path, &st);
        if (b == -2)
            return st;
        if (b < 0)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s has no buffer", path);
        double off, len, stride;
        if (!get_count(g, bv, "byteOffset", 0.0, 9.0e15, path, &off, &st) ||
            !get_count(g, bv, "byteLength", -1.0, 9.0e15, path, &len, &st) ||
            !get_count(g, bv, "byteStride", 0.0, 252.0, path, &stride, &st))
            return st;
        if (off + len > g->buffer_len[b])
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: bytes %.0f to %.0f are past buffer %lld's %.0f", path, off,
                        off + len, b, g->buffer_len[b]);
    }
    return MB_OK;
}

/* Reads len bytes at off of bufferView v when its buffer is the GLB's BIN chunk (the only
 * buffer whose bytes this pass reads); 0 otherwise. */
static int view_read(const gcheck *g, int v, double off, size_t len, void *out)
{
    const cJSON *bv = g->view[v];
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(bv, "buffer");
    const cJSON *bo = cJSON_GetObjectItemCaseSensitive(bv, "byteOffset");
    if (!g->glb || !g->has_bin || b->valuedouble != 0.0 ||
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g->root, "buffers"), 0), "uri"))
        return 0;
    double start = (bo ? bo->valuedouble : 0.0) + off;
    return input_read(g, g->bin_off + (unsigned long long)start, len, out);
}

/* The sparse part of accessor `path`: counts and byte ranges; its indices must name
 * elements of the accessor (assimp writes the values there unchecked), read where the
 * bytes are at hand (a GLB's BIN chunk). */
static mb_status check_sparse(const gcheck *g, const cJSON *sp, double count, double elem,
                              const char *path)
{
    mb_status st = MB_OK;
    char p[96];
    double n;
    snprintf(p, sizeof p, "%s.sparse", path);
    if (!get_count(g, sp, "count", -1.0, count, p, &n, &st))
        return st;
    const cJSON *ind = cJSON_GetObjectItemCaseSensitive(sp, "indices");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(sp, "values");
    if (!cJSON_IsObject(ind) || !cJSON_IsObject(val))
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s needs indices and values", p);
    snprintf(p, sizeof p, "%s.sparse.indices", path);
    long long iv = opt_index(g, ind, "bufferView", g->nviews, "bufferViews", p, &st);
    double ioff, ict;
    if (iv == -2 || !get_count(g, ind, "byteOffset", 0.0, 9.0e15, p, &ioff, &st) ||
        !get_count(g, ind, "componentType", -1.0, 1e9, p, &ict, &st))
        return st;
    if (iv < 0)
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s has no bufferView", p);
    int isz = ict == 5121 ? 1 : ict == 5123 ? 2 : ict == 5125 ? 4 : 0;
    if (!isz)
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.componentType %.0f is not an unsigned integer type", p, ict);
    if (ioff + n * isz > view_length(g, (int)iv))
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: %.0f indices from byte %.0f run past bufferView %lld", p, n, ioff, iv);
    /* Every index below the accessor's count (read in blocks, where the bytes are here). */
    unsigned char blk[4096];
    for (double k = 0.0; k < n;) {
        size_t m = (size_t)fmin(n - k, (double)(sizeof blk / (size_t)isz));
        if (!view_read(g, (int)iv, ioff + k * isz, m * (size_t)isz, blk))
            break;
        for (size_t e = 0; e < m; ++e) {
            const unsigned char *q = blk + e * (size_t)isz;
            double idx = isz == 1 ? q[0] : isz == 2 ? (double)(q[0] | q[1] << 8) : (double)rd32(q);
            if (idx >= count)
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: index %.0f (entry %.0f) is past the accessor's %.0f elements",
                            p, idx, k + (double)e, count);
        }
        k += (double)m;
    }
    snprintf(p, sizeof p, "%s.sparse.values", path);
    long long vv = opt_index(g, val, "bufferView", g->nviews, "bufferViews", p, &st);
    double voff;
    if (vv == -2 || !get_count(g, val, "byteOffset", 0.0, 9.0e15, p, &voff, &st))
        return st;
    if (vv < 0)
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s has no bufferView", p);
    if (voff + n * elem > view_length(g, (int)vv))
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: %.0f values from byte %.0f run past bufferView %lld", p, n, voff, vv);
    return MB_OK;
}

static mb_status check_accessors(const gcheck *g)
{
    mb_status st = MB_OK;
    char path[64];
    for (int i = 0; i < g->naccessors; ++i) {
        const cJSON *a = g->acc[i];
        snprintf(path, sizeof path, "accessors[%d]", i);
        double ct, count, off;
        if (!get_count(g, a, "componentType", -1.0, 1e9, path, &ct, &st) ||
            !get_count(g, a, "count", -1.0, (double)INT_MAX, path, &count, &st) ||
            !get_count(g, a, "byteOffset", 0.0, 9.0e15, path, &off, &st))
            return st;
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type");
        int csz = component_size((int)ct);
        int nc = type_components(cJSON_IsString(type) ? type->valuestring : NULL);
        if (!csz)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.componentType %.0f is not a glTF component type", path, ct);
        if (!nc)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.type is not SCALAR, VEC2-4 or MAT2-4", path);
        if (count < 1.0)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.count is 0", path);
        double elem = (double)csz * nc;
        long long v = opt_index(g, a, "bufferView", g->nviews, "bufferViews", path, &st);
        if (v == -2)
            return st;
        if (v >= 0) {
            const cJSON *s = cJSON_GetObjectItemCaseSensitive(g->view[v], "byteStride");
            double stride = s && s->valuedouble > 0.0 ? s->valuedouble : elem;
            /* a stride shorter than an element overlaps the elements: assimp reads them
             * anyway, into a garbage mesh */
            if (stride < elem)
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: bufferView %lld's byteStride %.0f is shorter than its %.0f-byte "
                            "elements", path, v, stride, elem);
            double end = off + stride * (count - 1.0) + elem;
            if (end > view_length(g, (int)v))
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: %.0f elements of %.0f bytes from byte %.0f run past bufferView "
                            "%lld's %.0f bytes", path, count, elem, off, v, view_length(g, (int)v));
        }
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(a, "sparse");
        if (sp && (st = check_sparse(g, sp, count, elem, path)) != MB_OK)
            return st;
    }
    return MB_OK;
}

/* Every index in the array obj[key] names one of n things. */
static mb_status check_index_array(const gcheck *g, const cJSON *obj, const char *key, int n,
                                   const char *what, const char *path, int required)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!arr)
        return required ? mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s has no %s", path, key) : MB_OK;
    if (!cJSON_IsArray(arr))
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.%s is not an array", path, key);
    int k = 0;
    for (const cJSON *e = arr->child; e; e = e->next, ++k) {
        double d = cJSON_IsNumber(e) ? e->valuedouble : -1.0;
        if (!(d >= 0.0) || d != floor(d) || d >= (double)n)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.%s[%d] is not one of the %d %s", path, key, k, n, what);
    }
    return MB_OK;
}

/* The node graph: children in range, one parent each, no cycle, no chain deeper than the
 * skeleton limit (assimp walks the tree recursively). Depths are found in O(nodes) with an
 * explicit stack. */
static mb_status check_nodes(gcheck *g)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(g->root, "nodes");
    int n = g->nnodes;
    if (n == 0)
        return MB_OK;
    int *parent = malloc(sizeof(int) * (size_t)n * 3 + sizeof(int));
    if (!parent)
        return mb_error_set_(g->err, MB_NOMEM, g->source, "out of memory");
    int *depth = parent + n, *stack = depth + n;
    mb_status st = MB_OK;
    char path[64];
    for (int i = 0; i < n; ++i)
        parent[i] = -1, depth[i] = -1;
    int nmesh = array_size(g->root, "meshes"), nskin = array_size(g->root, "skins");
    int i = 0;
    for (const cJSON *nd = nodes->child; nd && st == MB_OK; nd = nd->next, ++i) {
        snprintf(path, sizeof path, "nodes[%d]", i);
        if (!cJSON_IsObject(nd)) {
            st = mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s is not an object", path);
            break;
        }
        const cJSON *ex = cJSON_GetObjectItemCaseSensitive(nd, "extras");
        const cJSON *mark = cJSON_IsObject(ex) ? cJSON_GetObjectItemCaseSensitive(ex, "mblend") : NULL;
        if (cJSON_IsString(mark) && strcmp(mark->valuestring, "roots group") == 0)
            g->marked_group = i;
        if ((st = check_index_array(g, nd, "children", n, "nodes", path, 0)) != MB_OK ||
            opt_index(g, nd, "mesh", nmesh, "meshes", path, &st) == -2 ||
            opt_index(g, nd, "skin", nskin, "skins", path, &st) == -2)
            break;
        const cJSON *ch = cJSON_GetObjectItemCaseSensitive(nd, "children");
        for (const cJSON *c = ch ? ch->child : NULL; c; c = c->next) {
            int k = (int)c->valuedouble;
            if (k == i || parent[k] >= 0) {
                st = k == i ? mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s is its own child", path)
                            : mb_error_set_(g->err, MB_PARSE, g->source, "glTF: nodes[%d] is a child of nodes[%d] and nodes[%d]", k, parent[k], i);
                break;
            }
            parent[k] = i;
        }
    }
    for (int s = 0; s < n && st == MB_OK; ++s) {
        int top = 0, k = s;
        while (k >= 0 && depth[k] < 0) {
            if (depth[k] == -2) {
                st = mb_error_set_(g->err, MB_PARSE, g->source, "glTF: nodes[%d] is its own ancestor (a cycle of children)", k);
                break;
            }
            depth[k] = -2; /* on the stack */
            stack[top++] = k;
            k = parent[k];
        }
        int d = k >= 0 ? depth[k] : -1;
        while (st == MB_OK && top > 0) {
            int m = stack[--top];
            depth[m] = ++d;
            if (d >= MB_MAX_JOINTS) {
                st = mb_error_set_(g->err, MB_LIMIT, g->source,
                                   "glTF: nodes[%d] is %d levels deep (the skeleton limit is %d nodes)",
                                   m, d, MB_MAX_JOINTS);
            }
        }
    }
    g->parent = parent; /* freed by run() */
    return st;
}

/* count elements of elem bytes of accessor acc, where its bytes are at hand (a GLB's BIN
 * chunk; no sparse part), into out; 0 otherwise. */
static int read_elements(const gcheck *g, const cJSON *acc, int elem, int count, void *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(acc, "bufferView");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(acc, "byteOffset");
    if (!cJSON_IsNumber(v) || cJSON_GetObjectItemCaseSensitive(acc, "sparse"))
        return 0;
    const cJSON *sv = cJSON_GetObjectItemCaseSensitive(g->view[(int)v->valuedouble], "byteStride");
    double stride = sv && sv->valuedouble > 0.0 ? sv->valuedouble : elem;
    double base = off ? off->valuedouble : 0.0;
    if (stride == elem)
        return view_read(g, (int)v->valuedouble, base, (size_t)count * (size_t)elem, out);
    for (int i = 0; i < count; ++i)
        if (!view_read(g, (int)v->valuedouble, base + stride * i, (size_t)elem,
                       (unsigned char *)out + (size_t)i * (size_t)elem))
            return 0;
    return 1;
}

/* Every index of a primitive names one of its vertices, where the indices are at hand (a
 * GLB's BIN chunk, no sparse part): assimp drops a triangle with an index past the
 * positions without a word. */
static mb_status check_index_values(const gcheck *g, long long indices, const cJSON *pos,
                                    const char *path)
{
    /* the attributes are validated after this (check_uses): a bad index is left to that */
    if (indices < 0 || !cJSON_IsNumber(pos) || !(pos->valuedouble >= 0.0) ||
        pos->valuedouble != floor(pos->valuedouble) || pos->valuedouble >= g->naccessors)
        return MB_OK;
    const cJSON *acc = g->acc[indices];
    int ct = (int)cJSON_GetObjectItemCaseSensitive(acc, "componentType")->valuedouble;
    int size = ct == 5121 ? 1 : ct == 5123 ? 2 : ct == 5125 ? 4 : 0;
    /* glTF index views have no stride: one that has is left as it was before this check */
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(acc, "bufferView");
    const cJSON *sv = cJSON_IsNumber(v)
                          ? cJSON_GetObjectItemCaseSensitive(g->view[(int)v->valuedouble], "byteStride")
                          : NULL;
    if (!size || (sv && sv->valuedouble > 0.0 && sv->valuedouble != size))
        return MB_OK;
    double count = cJSON_GetObjectItemCaseSensitive(acc, "count")->valuedouble;
    double verts = cJSON_GetObjectItemCaseSensitive(g->acc[(int)pos->valuedouble], "count")->valuedouble;
    unsigned char *b = malloc((size_t)count * (size_t)size);
    if (!b)
        return mb_error_set_(g->err, MB_NOMEM, g->source, "out of memory");
    mb_status st = MB_OK;
    if (read_elements(g, acc, size, (int)count, b))
        for (size_t i = 0; i < (size_t)count && st == MB_OK; ++i) {
            const unsigned char *e = b + i * (size_t)size;
            double x = size == 1 ? e[0] : size == 2 ? (double)(e[0] | e[1] << 8) : (double)rd32(e);
            if (x >= verts)
                st = mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: index %zu is %.0f, past the %.0f vertices", path, i, x, verts);
        }
    free(b);
    return st;
}

/* A primitive's mode (0 points ... 6 triangle fan) and enough elements for one of its
 * shapes: assimp 5.2 counts strips and fans as count - 2 in an unsigned type and reads
 * past a loop of one index. The elements are the indices, else the POSITION accessor. */
static mb_status check_mode(const gcheck *g, const cJSON *prim, long long indices,
                            const char *path)
{
    double mode;
    mb_status st = MB_OK;
    if (!get_count(g, prim, "mode", 4.0, 6.0, path, &mode, &st))
        return st;
    const cJSON *pos = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(prim, "attributes"), "POSITION");
    long long acc = indices >= 0 ? indices : cJSON_IsNumber(pos) ? (long long)pos->valuedouble : -1;
    if (acc < 0 || acc >= g->naccessors)
        return MB_OK; /* no positions: assimp refuses the mesh itself */
    double need = mode == 0.0 ? 1.0 : mode <= 3.0 ? 2.0 : 3.0;
    double count = cJSON_GetObjectItemCaseSensitive(g->acc[acc], "count")->valuedouble;
    if (count < need)
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s: mode %.0f needs at least %.0f %s, the accessor has %.0f", path, mode,
                    need, indices >= 0 ? "indices" : "vertices", count);
    return check_index_values(g, indices, pos, path);
}

/* The skinning attributes' accessor types (glTF 2.0, meshes): JOINTS_n VEC4 of unsigned
 * bytes or shorts, WEIGHTS_n VEC4 of floats or normalised unsigned bytes or shorts,
 * POSITION VEC3 of floats. Others are read as they come. */
static mb_status check_attribute(const gcheck *g, const char *name, const cJSON *acc,
                                 const char *path)
{
    if (!name)
        return MB_OK;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(acc, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";
    int ct = (int)cJSON_GetObjectItemCaseSensitive(acc, "componentType")->valuedouble;
    int norm = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(acc, "normalized"));
    if (strncmp(name, "JOINTS_", 7) == 0 && (strcmp(t, "VEC4") != 0 || (ct != 5121 && ct != 5123)))
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.attributes.%s must be VEC4 unsigned bytes or shorts", path, name);
    if (strncmp(name, "WEIGHTS_", 8) == 0 &&
        (strcmp(t, "VEC4") != 0 || !(ct == 5126 || ((ct == 5121 || ct == 5123) && norm))))
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.attributes.%s must be VEC4 floats or normalised unsigned bytes or "
                    "shorts", path, name);
    if (strcmp(name, "POSITION") == 0 && (strcmp(t, "VEC3") != 0 || ct != 5126))
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.attributes.POSITION must be VEC3 floats", path);
    return MB_OK;
}

/* The scenes: their node lists index nodes, each a root node listed once (assimp copies
 * the subtree of every entry, so one root listed thousands of times asks for gigabytes);
 * and "scene" indexes them. */
static mb_status check_scene_uses(gcheck *g)
{
    mb_status st = MB_OK;
    char path[96];
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g->root, "scenes")) {
        snprintf(path, sizeof path, "scenes[%d]", i++);
        if ((st = check_index_array(g, it, "nodes", g->nnodes, "nodes", path, 0)) != MB_OK)
            return st;
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(it, "nodes"), *e;
        cJSON_ArrayForEach(e, a) {
            int k = (int)e->valuedouble;
            if (g->parent[k] >= 0)
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.nodes lists nodes[%d], which is a child of nodes[%d]: a "
                            "scene lists root nodes", path, k, g->parent[k]);
            if (g->parent[k] == -2)
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.nodes lists nodes[%d] twice", path, k);
            g->parent[k] = -2;
        }
        cJSON_ArrayForEach(e, a)
            g->parent[(int)e->valuedouble] = -1;
    }
    if (opt_index(g, g->root, "scene", array_size(g->root, "scenes"), "scenes", "", &st) == -2)
        return st;
    return MB_OK;
}

/* Every mesh primitive's indices, mode and attribute accessors. */
static mb_status check_mesh_uses(gcheck *g)
{
    mb_status st = MB_OK;
    char path[96];
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g->root, "meshes")) {
        int p = 0;
        const cJSON *prim;
        cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(it, "primitives")) {
            snprintf(path, sizeof path, "meshes[%d].primitives[%d]", i, p++);
            long long ind = opt_index(g, prim, "indices", g->naccessors, "accessors", path, &st);
            if (ind == -2)
                return st;
            if ((st = check_mode(g, prim, ind, path)) != MB_OK)
                return st;
            const cJSON *attr;
            cJSON_ArrayForEach(attr, cJSON_GetObjectItemCaseSensitive(prim, "attributes")) {
                double d = cJSON_IsNumber(attr) ? attr->valuedouble : -1.0;
                if (!(d >= 0.0) || d != floor(d) || d >= g->naccessors)
                    return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.attributes.%s is not one of the %d accessors", path,
                                attr->string ? attr->string : "?", g->naccessors);
                if ((st = check_attribute(g, attr->string, g->acc[(int)d], path)) != MB_OK)
                    return st;
            }
        }
        ++i;
    }
    return MB_OK;
}

/* Every skin's joints (nodes, at least one) and inverse bind matrices (float MAT4, one per
 * joint; optional in glTF (identity), but assimp 5.2 dereferences it unchecked: counted
 * here, the asset is patched for it in gltf_patch.c). */
static mb_status check_skin_uses(gcheck *g)
{
    mb_status st = MB_OK;
    char path[96];
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g->root, "skins")) {
        snprintf(path, sizeof path, "skins[%d]", i++);
        if ((st = check_index_array(g, it, "joints", g->nnodes, "nodes", path, 1)) != MB_OK)
            return st;
        if (array_size(it, "joints") < 1)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.joints is empty", path);
        long long ibm = opt_index(g, it, "inverseBindMatrices", g->naccessors, "accessors", path, &st);
        if (ibm == -2)
            return st;
        if (ibm < 0) {
            ++g->skins_without_binds;
            continue;
        }
        const cJSON *acc = g->acc[ibm];
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(acc, "type");
        double count = cJSON_GetObjectItemCaseSensitive(acc, "count")->valuedouble;
        int joints = array_size(it, "joints");
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "MAT4") != 0 ||
            cJSON_GetObjectItemCaseSensitive(acc, "componentType")->valuedouble != 5126.0 ||
            count < joints)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.inverseBindMatrices: accessors[%lld] is not %d float MAT4",
                        path, ibm, joints);
    }
    return MB_OK;
}

/* Every animation's samplers (input and output accessors, a known interpolation) and
 * channels (a sampler, a target node). */
static mb_status check_animation_uses(gcheck *g)
{
    mb_status st = MB_OK;
    char path[96];
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g->root, "animations")) {
        int ns = array_size(it, "samplers"), k = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(it, "samplers")) {
            snprintf(path, sizeof path, "animations[%d].samplers[%d]", i, k++);
            if (opt_index(g, e, "input", g->naccessors, "accessors", path, &st) < 0 ||
                opt_index(g, e, "output", g->naccessors, "accessors", path, &st) < 0)
                return st != MB_OK ? st : mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s needs an input and an output", path);
            const cJSON *ip = cJSON_GetObjectItemCaseSensitive(e, "interpolation");
            if (ip && (!cJSON_IsString(ip) || (strcmp(ip->valuestring, "LINEAR") != 0 &&
                                                strcmp(ip->valuestring, "STEP") != 0 &&
                                                strcmp(ip->valuestring, "CUBICSPLINE") != 0)))
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s.interpolation is not LINEAR, STEP or CUBICSPLINE", path);
        }
        k = 0;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(it, "channels")) {
            snprintf(path, sizeof path, "animations[%d].channels[%d]", i, k++);
            if (opt_index(g, e, "sampler", ns, "samplers", path, &st) < 0)
                return st != MB_OK ? st : mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s has no sampler", path);
            snprintf(path, sizeof path, "animations[%d].channels[%d].target", i, k - 1);
            if (opt_index(g, cJSON_GetObjectItemCaseSensitive(e, "target"), "node", g->nnodes,
                          "nodes", path, &st) == -2)
                return st;
        }
        ++i;
    }
    return MB_OK;
}

/* The references between the top-level arrays: scenes, meshes, skins, animations, in that
 * order (the first error found is the one reported). */
static mb_status check_uses(gcheck *g)
{
    mb_status st;
    if ((st = check_scene_uses(g)) != MB_OK || (st = check_mesh_uses(g)) != MB_OK ||
        (st = check_skin_uses(g)) != MB_OK || (st = check_animation_uses(g)) != MB_OK)
        return st;
    return MB_OK;
}

/* Each top-level property this pass walks is an array of objects when present. */
static mb_status check_top(gcheck *g)
{
    static const char *const keys[] = {"buffers", "bufferViews", "accessors", "nodes",
                                       "scenes", "meshes", "skins", "animations"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(g->root, keys[k]);
        if (!a)
            continue;
        if (!cJSON_IsArray(a))
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s is not an array", keys[k]);
        int i = 0;
        for (const cJSON *e = a->child; e; e = e->next, ++i)
            if (!cJSON_IsObject(e))
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s[%d] is not an object", keys[k], i);
    }
    g->nbuffers = array_size(g->root, "buffers");
    g->nviews = array_size(g->root, "bufferViews");
    g->naccessors = array_size(g->root, "accessors");
    g->nnodes = array_size(g->root, "nodes");
    g->buffer_len = calloc((size_t)g->nbuffers + 1, sizeof *g->buffer_len);
    g->view = malloc(sizeof *g->view * ((size_t)g->nviews + (size_t)g->naccessors + 1));
    if (!g->buffer_len || !g->view)
        return mb_error_set_(g->err, MB_NOMEM, g->source, "out of memory");
    g->acc = g->view + g->nviews;
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(g->root, "bufferViews"))
        g->view[i++] = e;
    i = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(g->root, "accessors"))
        g->acc[i++] = e;
    mb_status st;
    if ((st = check_buffers(g)) != MB_OK || (st = check_views(g)) != MB_OK ||
        (st = check_accessors(g)) != MB_OK || (st = check_nodes(g)) != MB_OK)
        return st;
    return check_uses(g);
}

/* Parses the JSON text; a syntax error is reported at its line and column (counted in the
 * JSON chunk for a GLB). */
static mb_status parse_json(gcheck *g, const char *json, size_t len)
{
    const char *end = NULL;
    g->root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (g->root && cJSON_IsObject(g->root))
        return MB_OK;
    if (g->root)
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: the JSON is not an object");
    size_t at = end && end >= json && end <= json + len ? (size_t)(end - json) : 0;
    /* The position, and whether cJSON stopped there because of its nesting limit. */
    int line = 1, col = 1, depth = 0, in_str = 0;
    for (size_t i = 0; i < at; ++i) {
        char c = json[i];
        if (in_str)
            in_str = c == '\\' ? (++i, ++col, 1) : c != '"';
        else if (c == '"')
            in_str = 1;
        else
            depth += (c == '[' || c == '{') - (c == ']' || c == '}');
        if (c == '\n')
            ++line, col = 1;
        else
            ++col;
    }
    const char *what = depth >= CJSON_NESTING_LIMIT ? "JSON nested deeper than the parser's limit"
                       : at >= len                  ? "unexpected end of the JSON"
                                                    : "malformed JSON";
    if (g->glb)
        return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: %s in the GLB's JSON chunk at line %d, column %d", what, line, col);
    return mb_error_set_at_(g->err, MB_PARSE, g->source, line, col, "glTF: %s", what);
}

/* Returns 1 when the JSON names a glTF 2.x asset. */
static int is_gltf2(const cJSON *root)
{
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(root, "asset");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(asset, "version");
    return cJSON_IsString(v) && v->valuestring[0] == '2';
}

/* The first byte after the JSON whitespace that starts at `from` (-1 when there is none):
 * the parsers skip any amount of it. */
static int first_text_byte(const gcheck *g, unsigned long long total, unsigned long long from)
{
    unsigned char blk[4096];
    for (unsigned long long at = from; at < total;) {
        size_t n = total - at < sizeof blk ? (size_t)(total - at) : sizeof blk;
        if (!input_read(g, at, n, blk))
            return -1;
        for (size_t i = 0; i < n; ++i)
            if (blk[i] != ' ' && blk[i] != '\t' && blk[i] != '\r' && blk[i] != '\n')
                return blk[i];
        at += n;
    }
    return -1;
}

/* Whether a JSON string holds the escape \u0000: cJSON ends a key there, assimp's parser
 * does not, so "asset\u0000" would be a different key to each. */
static int nul_escape(const char *s, size_t n)
{
    int in_str = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!in_str) {
            in_str = s[i] == '"';
        } else if (s[i] == '"') {
            in_str = 0;
        } else if (s[i] == '\\' && i + 1 < n) {
            if (s[i + 1] == 'u' && i + 5 < n && memcmp(s + i + 2, "0000", 4) == 0)
                return 1;
            ++i;
        }
    }
    return 0;
}

/* Sets fold_mesh_node and fold_onto (see gcheck) when the default scene has exactly two
 * roots, one a childless node with a mesh and a skin that no skin lists as a joint and no
 * animation targets, the other a node without a mesh, skin or camera. */
static void find_mesh_root(gcheck *g)
{
    g->fold_mesh_node = g->fold_onto = -1;
    const cJSON *roots = mb_gltf_scene_roots_(g->root);
    if (cJSON_GetArraySize(roots) != 2)
        return;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(g->root, "nodes");
    int r[2] = {(int)cJSON_GetArrayItem(roots, 0)->valuedouble, (int)cJSON_GetArrayItem(roots, 1)->valuedouble};
    for (int k = 0; k < 2; ++k) {
        const cJSON *m = cJSON_GetArrayItem(nodes, r[k]), *o = cJSON_GetArrayItem(nodes, r[1 - k]);
        if (!cJSON_GetObjectItemCaseSensitive(m, "mesh") || !cJSON_GetObjectItemCaseSensitive(m, "skin") ||
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "children")) > 0 ||
            cJSON_GetObjectItemCaseSensitive(o, "mesh") || cJSON_GetObjectItemCaseSensitive(o, "skin") ||
            cJSON_GetObjectItemCaseSensitive(o, "camera"))
            continue;
        int used = 0;
        const cJSON *it, *e;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g->root, "skins"))
            cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(it, "joints"))
                used |= (int)e->valuedouble == r[k];
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(g->root, "animations"))
            cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(it, "channels")) {
                const cJSON *n = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "target"), "node");
                used |= cJSON_IsNumber(n) && (int)n->valuedouble == r[k];
            }
        if (!used) {
            g->fold_mesh_node = r[k];
            g->fold_onto = r[1 - k];
            return;
        }
    }
}

/* The marked group's name into patch->roots_group, when the node is what assimp makes the
 * scene's root: the default scene's only root (called after make_patch, which has folded a
 * mesh-only second root away: mblend's writer puts a moving clip's mesh beside the group).
 * The loader matches the name on that root only, so a mark elsewhere cannot make another
 * node a group. */
static void group_name(const gcheck *g, mb_gltf_patch *patch)
{
    const cJSON *roots = mb_gltf_scene_roots_(g->root);
    int k = g->marked_group;
    if (k < 0 || cJSON_GetArraySize(roots) != 1 || (int)cJSON_GetArrayItem(roots, 0)->valuedouble != k)
        return;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g->root, "nodes"), k), "name");
    if (cJSON_IsString(name) && strlen(name->valuestring) <= MB_MAX_NAME)
        snprintf(patch->roots_group, sizeof patch->roots_group, "%s", name->valuestring);
}

/* ---------- STEP and CUBICSPLINE samplers ---------- */

#define CUBIC_STEPS_ 8           /* linear keys per cubic interval */
#define RESAMPLED_MAX_ 4000000   /* keys per sampler beyond which it is left to assimp */

/* count elements of nc floats of accessor acc, when they are floats whose bytes are at
 * hand (read_elements); 0 otherwise. */
static int read_floats(const gcheck *g, const cJSON *acc, int nc, int count, float *out)
{
    return cJSON_GetObjectItemCaseSensitive(acc, "componentType")->valuedouble == 5126.0 &&
           read_elements(g, acc, 4 * nc, count, out);
}

/* The linear keys that follow a STEP or CUBICSPLINE sampler: STEP holds each value until a
 * ten-thousandth of the gap before the next key; CUBICSPLINE samples the Hermite curve of
 * each interval CUBIC_STEPS_ times (rotations normalised, as the glTF spec asks). Returns
 * 1 with *r filled, 0 when the sampler is left as it is (LINEAR, keys this pass cannot
 * read, or too many), -1 when memory runs out. */
static int resample(const gcheck *g, cJSON *sampler, mb_gltf_resampled_ *r)
{
    const cJSON *ip = cJSON_GetObjectItemCaseSensitive(sampler, "interpolation");
    int step = cJSON_IsString(ip) && strcmp(ip->valuestring, "STEP") == 0;
    int cubic = cJSON_IsString(ip) && strcmp(ip->valuestring, "CUBICSPLINE") == 0;
    if (!step && !cubic)
        return 0;
    const cJSON *in = g->acc[(int)cJSON_GetObjectItemCaseSensitive(sampler, "input")->valuedouble];
    const cJSON *out = g->acc[(int)cJSON_GetObjectItemCaseSensitive(sampler, "output")->valuedouble];
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(in, "type");
    const cJSON *ot = cJSON_GetObjectItemCaseSensitive(out, "type");
    int nc = cJSON_IsString(ot) ? type_components(ot->valuestring) : 0;
    int n = (int)cJSON_GetObjectItemCaseSensitive(in, "count")->valuedouble;
    int nout = (int)cJSON_GetObjectItemCaseSensitive(out, "count")->valuedouble;
    if (!cJSON_IsString(it) || strcmp(it->valuestring, "SCALAR") != 0 || (nc != 3 && nc != 4) ||
        nout != (cubic ? 3 : 1) * n || n < 1 || (double)(n - 1) * CUBIC_STEPS_ + 1 > RESAMPLED_MAX_)
        return 0;
    float *t = malloc((size_t)n * sizeof *t), *v = malloc((size_t)nout * nc * sizeof *v);
    int m = cubic ? (n - 1) * CUBIC_STEPS_ + 1 : 2 * n - 1;
    r->times = malloc((size_t)m * sizeof *r->times);
    r->values = malloc((size_t)m * nc * sizeof *r->values);
    if (!t || !v || !r->times || !r->values) {
        free(t);
        free(v);
        free(r->times);
        free(r->values);
        return -1;
    }
    int ok = read_floats(g, in, 1, n, t) && read_floats(g, out, nc, nout, v);
    int k = 0;
    for (int i = 0; ok && i < n; ++i) {
        if (step) {
            /* hold the previous value until just before this key */
            float th = i > 0 ? t[i] - 1e-4f * (t[i] - t[i - 1]) : 0.0f;
            if (i > 0 && th > t[i - 1] && th < t[i]) {
                r->times[k] = th;
                memcpy(&r->values[(size_t)k * nc], &v[(size_t)(i - 1) * nc], (size_t)nc * sizeof *v);
                ++k;
            }
            r->times[k] = t[i];
            memcpy(&r->values[(size_t)k * nc], &v[(size_t)i * nc], (size_t)nc * sizeof *v);
            ++k;
            continue;
        }
        /* cubic: output element 3i is key i's in-tangent, 3i + 1 its value, 3i + 2 its
         * out-tangent */
        int last = i == n - 1;
        for (int q = 0; q < (last ? 1 : CUBIC_STEPS_); ++q) {
            double s = (double)q / CUBIC_STEPS_, d = last ? 0.0 : (double)t[i + 1] - t[i];
            double h00 = (2 * s - 3) * s * s + 1, h10 = ((s - 2) * s + 1) * s;
            double h01 = (3 - 2 * s) * s * s, h11 = (s - 1) * s * s, len2 = 0.0;
            float *o = &r->values[(size_t)k * nc];
            for (int c = 0; c < nc; ++c) {
                double x = v[(size_t)(3 * i + 1) * nc + c];
                if (!last)
                    x = h00 * x + h10 * d * v[(size_t)(3 * i + 2) * nc + c] +
                        h01 * v[(size_t)(3 * i + 4) * nc + c] + h11 * d * v[(size_t)(3 * i + 3) * nc + c];
                o[c] = (float)x;
                len2 += x * x;
            }
            if (nc == 4 && len2 > 0.0)
                for (int c = 0; c < 4; ++c)
                    o[c] = (float)(o[c] / sqrt(len2));
            r->times[k++] = (float)(t[i] + s * d);
        }
    }
    free(t);
    free(v);
    if (!ok) {
        free(r->times);
        free(r->values);
        return 0;
    }
    r->sampler = sampler;
    r->n = k;
    r->nc = nc;
    return 1;
}

/* Every STEP and CUBICSPLINE sampler the patch should turn LINEAR, into *out (malloc'd). */
static mb_status collect_resampled(const gcheck *g, mb_gltf_resampled_ **out, int *count)
{
    *out = NULL;
    *count = 0;
    int cap = 0;
    const cJSON *an;
    cJSON_ArrayForEach(an, cJSON_GetObjectItemCaseSensitive(g->root, "animations")) {
        cJSON *sm;
        cJSON_ArrayForEach(sm, cJSON_GetObjectItemCaseSensitive(an, "samplers")) {
            mb_gltf_resampled_ r;
            memset(&r, 0, sizeof r);
            int got = resample(g, sm, &r);
            if (got == 0)
                continue;
            if (got > 0 && *count == cap) {
                cap = cap ? 2 * cap : 8;
                mb_gltf_resampled_ *grown = realloc(*out, (size_t)cap * sizeof **out);
                if (!grown) {
                    free(r.times);
                    free(r.values);
                    got = -1;
                } else {
                    *out = grown;
                }
            }
            if (got < 0)
                return mb_error_set_(g->err, MB_NOMEM, g->source, "out of memory");
            (*out)[(*count)++] = r;
        }
    }
    return MB_OK;
}

static void free_resampled(mb_gltf_resampled_ *rs, int n)
{
    for (int i = 0; i < n; ++i) {
        free(rs[i].times);
        free(rs[i].values);
    }
    free(rs);
}

/* The copy assimp reads when a skin has no inverse bind matrices or a sampler is STEP or
 * CUBICSPLINE (rs: their linear keys). */
static mb_status make_patch(gcheck *g, const mb_gltf_resampled_ *rs, int nrs, mb_gltf_patch *patch)
{
    if (g->fold_mesh_node >= 0)
        mb_gltf_fold_mesh_node_(g->root, g->fold_mesh_node, g->fold_onto);
    unsigned char *bin = NULL;
    if (g->glb && g->has_bin) {
        bin = malloc(g->bin_len ? (size_t)g->bin_len : 1);
        if (bin && !input_read(g, g->bin_off, (size_t)g->bin_len, bin)) {
            free(bin);
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: cannot read the GLB's BIN chunk");
        }
    }
    int ok = (bin || !(g->glb && g->has_bin)) &&
             mb_gltf_patch_(g->root, bin, (size_t)g->bin_len, g->glb, g->dir, rs, nrs, patch); /* frees bin */
    return ok ? MB_OK : mb_error_set_(g->err, MB_NOMEM, g->source, "out of memory");
}

static mb_status run(gcheck *g, mb_gltf_patch *patch)
{
    unsigned char head[20];
    unsigned long long total = g->mem ? g->mem_len : 0;
    if (!g->mem) {
        struct stat sb;
        if (fstat(fileno(g->f), &sb) != 0 || !S_ISREG(sb.st_mode))
            return MB_OK; /* assimp reports what it cannot read */
        total = (unsigned long long)sb.st_size;
    }
    size_t got = total < sizeof head ? (size_t)total : sizeof head;
    if (!input_read(g, 0, got, head))
        return MB_OK;
    char *json = NULL;
    size_t json_len = 0;
    if (got >= 12 && rd32(head) == MB_GLB_MAGIC) {
        if (rd32(head + 4) != 2)
            return MB_OK; /* glTF 1 binary or unknown: assimp's */
        g->glb = 1;
        unsigned long long declared = rd32(head + 8);
        if (declared > total || declared < 20)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: the GLB header declares %llu bytes; the file has %llu", declared, total);
        unsigned long long jl = got >= 20 ? rd32(head + 12) : 0;
        if (got < 20 || rd32(head + 16) != MB_GLB_CHUNK_JSON || jl > declared - 20)
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: the GLB's first chunk is not a JSON chunk within the file");
        unsigned long long next = 20 + ((jl + 3) & ~3ull);
        unsigned char ch[8];
        if (next + 8 <= declared && input_read(g, next, 8, ch) && rd32(ch + 4) == MB_GLB_CHUNK_BIN) {
            g->bin_off = next + 8;
            g->bin_len = rd32(ch);
            g->has_bin = 1;
            if (g->bin_len > declared - g->bin_off)
                return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: the GLB's BIN chunk declares %llu bytes past the file's end", g->bin_len);
        }
        json_len = (size_t)jl;
        json = malloc(json_len + 1);
        if (!json)
            return mb_error_set_(g->err, MB_NOMEM, g->source, "out of memory");
        if (!input_read(g, 20, json_len, json)) {
            free(json);
            return mb_error_set_(g->err, MB_PARSE, g->source, "glTF: cannot read the GLB's JSON chunk");
        }
    } else {
        if (first_text_byte(g, total, got >= 3 && head[0] == 0xEF && head[1] == 0xBB &&
                                          head[2] == 0xBF ? 3 : 0) != '{')
            return MB_OK; /* not JSON: another format, assimp's */
        if (total > GLTF_MAX_JSON)
            return mb_error_set_(g->err, MB_LIMIT, g->source,
                                 "glTF: a JSON text over %zu bytes", GLTF_MAX_JSON);
        json_len = (size_t)total;
        json = malloc(json_len + 1);
        if (!json)
            return mb_error_set_(g->err, MB_NOMEM, g->source, "out of memory");
        if (!input_read(g, 0, json_len, json)) {
            free(json);
            return MB_OK;
        }
    }
    json[json_len] = '\0';
    /* Any JSON text goes to assimp's glTF readers (it reads glTF by content, whatever the
     * name), whose parser recurses without a limit: one cJSON refuses is refused here. */
    mb_status st = nul_escape(json, json_len)
                       ? mb_error_set_(g->err, MB_PARSE, g->source, "glTF: a JSON string holds \\u0000, which JSON readers disagree on")
                       : parse_json(g, json, json_len);
    free(json);
    if (st == MB_OK && is_gltf2(g->root)) {
        st = check_top(g);
        mb_gltf_resampled_ *rs = NULL;
        int nrs = 0;
        if (st == MB_OK)
            st = collect_resampled(g, &rs, &nrs);
        if (st == MB_OK)
            find_mesh_root(g);
        if (st == MB_OK && (g->skins_without_binds > 0 || nrs > 0 || g->fold_mesh_node >= 0))
            st = make_patch(g, rs, nrs, patch);
        free_resampled(rs, nrs);
        if (st == MB_OK)
            group_name(g, patch);
    }
    cJSON_Delete(g->root);
    free(g->buffer_len);
    free(g->view);
    free(g->parent);
    return st;
}

mb_status mb_gltf_check_(const void *data, size_t len, const char *path, const char *source,
                         mb_error *err, mb_gltf_patch *patch)
{
    memset(patch, 0, sizeof *patch);
    gcheck g;
    memset(&g, 0, sizeof g);
    g.marked_group = -1;
    g.source = source;
    g.err = err;
    char dir[4096];
    if (data) {
        g.mem = data;
        g.mem_len = len;
        return run(&g, patch);
    }
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    g.dir = dir;
    g.f = fopen(path, "rb");
    if (!g.f)
        return MB_OK; /* the caller reports what cannot be opened */
    mb_status st = run(&g, patch);
    fclose(g.f);
    return st;
}

#endif /* MB_WITH_ASSIMP */
