/* A copy of a checked glTF asset that Debian's assimp 5.2.5 can read: every skin without
 * inverseBindMatrices (identity matrices by the glTF spec, which assimp dereferences
 * unchecked) gets identity matrices of its own, STEP and CUBICSPLINE samplers become
 * LINEAR ones with keys that follow them (assimp plays every sampler as linear), and
 * relative URIs are made absolute, as assimp resolves them against the working directory
 * once it reads from memory. */
#ifdef MB_WITH_ASSIMP

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offline/io/gltf_internal.h"

/* Written by hand: cJSON has no base64 encoder and no other dependency needs one. */
static char *base64(const unsigned char *p, size_t n, const char *prefix)
{
    static const char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t pl = strlen(prefix);
    char *out = malloc(pl + (n + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    memcpy(out, prefix, pl);
    char *o = out + pl;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *o++ = k[v >> 18 & 63];
        *o++ = k[v >> 12 & 63];
        *o++ = i + 1 < n ? k[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? k[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

/* The array root[key], created when absent; NULL when it cannot be. */
static cJSON *array_of(cJSON *root, const char *key)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(root, key);
    return a ? a : cJSON_AddArrayToObject(root, key);
}

/* Appends obj to root[key]; returns its index, or -1 (obj freed) when it cannot. */
static int append(cJSON *root, const char *key, cJSON *obj)
{
    cJSON *a = array_of(root, key);
    if (!obj || !a || !cJSON_AddItemToArray(a, obj)) {
        cJSON_Delete(obj);
        return -1;
    }
    return cJSON_GetArraySize(a) - 1;
}

/* Where the identity matrices go: a GLB's BIN chunk when buffers[0] is it (or there is no
 * buffer at all, so a new uri-less buffers[0] and BIN chunk are made: assimp takes
 * buffers[0] of a GLB for the BIN chunk whatever its uri), else a data URI buffer each. */
typedef struct {
    int in_bin;
    unsigned char *bin;
    size_t len;
} bin_out;

/* Appends count elements of type (SCALAR, VEC3, VEC4, MAT4: nc floats each) as a new
 * accessor over a new bufferView (in the BIN chunk, or a data URI buffer of its own);
 * returns the accessor's index, or -1. */
static int add_floats(cJSON *root, bin_out *bo, const float *data, int count, int nc,
                      const char *type)
{
    size_t bytes = (size_t)count * (size_t)nc * sizeof(float);
    /* glTF is little-endian, as every platform this library builds on. */
    int b = 0, ok = 1;
    size_t offset = 0;
    if (bo->in_bin) {
        offset = (bo->len + 3) & ~(size_t)3;
        unsigned char *grown = realloc(bo->bin, offset + bytes);
        if (!grown)
            return -1;
        memset(grown + bo->len, 0, offset - bo->len);
        memcpy(grown + offset, data, bytes);
        bo->bin = grown;
        bo->len = offset + bytes;
        cJSON *bufs = array_of(root, "buffers");
        cJSON *b0 = bufs ? cJSON_GetArrayItem(bufs, 0) : NULL;
        if (bufs && !b0 && append(root, "buffers", cJSON_CreateObject()) == 0)
            b0 = cJSON_GetArrayItem(bufs, 0);
        cJSON *len = b0 ? cJSON_CreateNumber((double)bo->len) : NULL;
        ok = len && (cJSON_GetObjectItemCaseSensitive(b0, "byteLength")
                         ? cJSON_ReplaceItemInObjectCaseSensitive(b0, "byteLength", len)
                         : cJSON_AddItemToObject(b0, "byteLength", len));
        if (!ok)
            cJSON_Delete(len);
    } else {
        char *uri = base64((const unsigned char *)data, bytes, "data:application/octet-stream;base64,");
        cJSON *buf = uri ? cJSON_CreateObject() : NULL;
        ok = buf && cJSON_AddNumberToObject(buf, "byteLength", (double)bytes) &&
             cJSON_AddStringToObject(buf, "uri", uri);
        free(uri);
        b = ok ? append(root, "buffers", buf) : (cJSON_Delete(buf), -1);
    }
    cJSON *view = ok && b >= 0 ? cJSON_CreateObject() : NULL;
    ok = view && cJSON_AddNumberToObject(view, "buffer", b) &&
         cJSON_AddNumberToObject(view, "byteOffset", (double)offset) &&
         cJSON_AddNumberToObject(view, "byteLength", (double)bytes);
    int v = ok ? append(root, "bufferViews", view) : (cJSON_Delete(view), -1);
    cJSON *acc = v >= 0 ? cJSON_CreateObject() : NULL;
    ok = acc && cJSON_AddNumberToObject(acc, "bufferView", v) &&
         cJSON_AddNumberToObject(acc, "componentType", 5126) &&
         cJSON_AddNumberToObject(acc, "count", count) && cJSON_AddStringToObject(acc, "type", type);
    return ok ? append(root, "accessors", acc) : (cJSON_Delete(acc), -1);
}

static int add_identity_binds(cJSON *root, cJSON *skin, bin_out *bo)
{
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(skin, "joints"));
    float *m = calloc((size_t)n * 16, sizeof(float));
    if (!m)
        return 0;
    for (int j = 0; j < n; ++j)
        m[16 * j] = m[16 * j + 5] = m[16 * j + 10] = m[16 * j + 15] = 1.0f;
    int a = add_floats(root, bo, m, n, 16, "MAT4");
    free(m);
    return a >= 0 && cJSON_AddNumberToObject(skin, "inverseBindMatrices", a) != NULL;
}

/* A STEP or CUBICSPLINE sampler becomes the LINEAR one with the keys the caller worked
 * out (assimp 5.2 plays every sampler as linear, and drops cubic tangents). */
static int relinearise(cJSON *root, const mb_gltf_resampled_ *r, bin_out *bo)
{
    int in = add_floats(root, bo, r->times, r->n, 1, "SCALAR");
    int out = in >= 0 ? add_floats(root, bo, r->values, r->n, r->nc, r->nc == 4 ? "VEC4" : "VEC3") : -1;
    cJSON *a = out >= 0 ? cJSON_CreateNumber(in) : NULL, *b = a ? cJSON_CreateNumber(out) : NULL;
    cJSON *l = b ? cJSON_CreateString("LINEAR") : NULL;
    if (!l) {
        cJSON_Delete(a);
        cJSON_Delete(b);
        return 0;
    }
    cJSON_ReplaceItemInObjectCaseSensitive(r->sampler, "input", a);
    cJSON_ReplaceItemInObjectCaseSensitive(r->sampler, "output", b);
    if (cJSON_GetObjectItemCaseSensitive(r->sampler, "interpolation"))
        cJSON_ReplaceItemInObjectCaseSensitive(r->sampler, "interpolation", l);
    else
        cJSON_AddItemToObject(r->sampler, "interpolation", l);
    return 1;
}

/* A relative file URI of buffers[] or images[] becomes dir/uri. */
static int absolute_uris(cJSON *root, const char *key, const char *dir)
{
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, key)) {
        cJSON *u = cJSON_GetObjectItemCaseSensitive(e, "uri");
        /* a scheme ("data:", "http:") is a ':' before any '/' */
        const char *colon = cJSON_IsString(u) ? strchr(u->valuestring, ':') : NULL;
        const char *slash = cJSON_IsString(u) ? strchr(u->valuestring, '/') : NULL;
        if (!cJSON_IsString(u) || u->valuestring[0] == '/' || (colon && (!slash || colon < slash)))
            continue;
        size_t n = strlen(dir) + strlen(u->valuestring) + 2;
        char *p = malloc(n);
        if (!p)
            return 0;
        snprintf(p, n, "%s/%s", dir, u->valuestring);
        cJSON *s = cJSON_CreateString(p);
        free(p);
        if (!s || !cJSON_ReplaceItemInObjectCaseSensitive(e, "uri", s)) {
            cJSON_Delete(s);
            return 0;
        }
    }
    return 1;
}

cJSON *mb_gltf_scene_roots_(const cJSON *root)
{
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(root, "scene");
    cJSON *scene = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "scenes"),
                                      cJSON_IsNumber(sc) ? (int)sc->valuedouble : 0);
    return cJSON_GetObjectItemCaseSensitive(scene, "nodes");
}

void mb_gltf_fold_mesh_node_(cJSON *root, int from, int onto)
{
    cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    cJSON *f = cJSON_GetArrayItem(nodes, from), *o = cJSON_GetArrayItem(nodes, onto);
    cJSON_AddItemToObject(o, "mesh", cJSON_DetachItemFromObjectCaseSensitive(f, "mesh"));
    cJSON_AddItemToObject(o, "skin", cJSON_DetachItemFromObjectCaseSensitive(f, "skin"));
    cJSON *roots = mb_gltf_scene_roots_(root);
    for (int i = cJSON_GetArraySize(roots) - 1; i >= 0; --i)
        if ((int)cJSON_GetArrayItem(roots, i)->valuedouble == from)
            cJSON_DeleteItemFromArray(roots, i);
}

int mb_gltf_patch_(cJSON *root, unsigned char *bin, size_t bin_len, int glb,
                   const char *dir, const mb_gltf_resampled_ *rs, int nrs, mb_gltf_patch *out)
{
    memset(out, 0, sizeof *out);
    const cJSON *bufs = cJSON_GetObjectItemCaseSensitive(root, "buffers");
    /* The BIN chunk is grown in place when the matrices go into it. */
    bin_out bo = {0, bin, bin ? bin_len : 0};
    bo.in_bin = glb && (bin ? !cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(bufs, 0), "uri")
                            : cJSON_GetArraySize(bufs) == 0);
    int ok = 1;
    cJSON *skin;
    cJSON_ArrayForEach(skin, cJSON_GetObjectItemCaseSensitive(root, "skins"))
        if (ok && !cJSON_GetObjectItemCaseSensitive(skin, "inverseBindMatrices"))
            ok = add_identity_binds(root, skin, &bo);
    for (int i = 0; ok && i < nrs; ++i)
        ok = relinearise(root, &rs[i], &bo);
    if (ok && dir)
        ok = absolute_uris(root, "buffers", dir) && absolute_uris(root, "images", dir);
    char *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    if (!json) {
        free(bo.bin);
        return 0;
    }
    size_t jl = strlen(json);
    if (!glb) {
        free(bo.bin);
        out->data = json;
        out->len = jl;
        out->hint = "gltf";
        return 1;
    }
    /* The GLB again: the new JSON chunk, the BIN chunk as it was or grown. */
    size_t total = mb_glb_pack_(json, jl, bo.bin, bo.len, NULL);
    unsigned char *g = total ? malloc(total) : NULL;
    if (g)
        mb_glb_pack_(json, jl, bo.bin, bo.len, g);
    free(json);
    free(bo.bin);
    if (!g)
        return 0;
    out->data = g;
    out->len = total;
    out->hint = "glb";
    return 1;
}

#endif /* MB_WITH_ASSIMP */
