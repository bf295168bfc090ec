/* Private helpers shared by the mesh, scene and export files of the io layer. */
#ifndef MB_MESH_INTERNAL_H
#define MB_MESH_INTERNAL_H

#include <stddef.h>

#include "mblend/offline/clip_map.h"
#include "mblend/offline/export.h"
#include "mblend/offline/file.h"
#include "mblend/offline/mesh.h"
#include "mblend/offline/scene.h"

#include "base/error_internal.h"


/* Column-major 4x4 inverse (computed in double); returns 0 when singular (a pivot below
 * 1e-12 of the largest entry) or not finite. */
int mb_mesh_invert4d_(const double m[16], double out[16]);
int mb_mesh_invert4_(const float m[16], float out[16]);

/* The column-major matrix T(x->pos) R(x->rot) (rotation normalised). */
void mb_mesh_matrix_from_xform_(const mb_xform *x, double m[16]);

/* Binary glTF (GLB) container: magic "glTF", version 2, chunk types "JSON" and "BIN". */
#define MB_GLB_MAGIC 0x46546C67u
#define MB_GLB_CHUNK_JSON 0x4E4F534Au
#define MB_GLB_CHUNK_BIN 0x004E4942u

/* Packs a GLB: the header, the JSON chunk (padded with spaces to 4 bytes) and, when
 * bin_len > 0, the BIN chunk (padded with zeros). With out NULL only measures. Returns the
 * size, 0 when it would not fit the format's 32-bit length. */
size_t mb_glb_pack_(const char *json, size_t json_len, const void *bin, size_t bin_len,
                    unsigned char *out);

/* A rewritten copy of an asset for assimp to read from memory (hint: its format). */
typedef struct mb_gltf_patch {
    void *data; /* malloc'd; NULL when the file is read as it is */
    size_t len;
    const char *hint;
    /* the name of the node mblend's glTF writer marked as a multi-ROOT BVH's group
     * ("extras": {"mblend": "roots group"}); "" when none */
    char roots_group[MB_MAX_NAME + 1];
} mb_gltf_patch;

/* Checks a glTF 2.0 asset (a .glb or a JSON .gltf) before assimp reads it: JSON syntax
 * (line and column; any text led by '{' is refused when cJSON refuses it, and a \u0000
 * escape always), the GLB container, and every index and byte range assimp follows
 * (buffers, views, accessors and their sparse parts, nodes as a tree no deeper than the
 * skeleton limit, scenes of distinct roots, meshes with valid primitive modes, skins,
 * animations). MB_OK for anything else that is not glTF 2 (assimp's alone); MB_PARSE, MB_LIMIT or MB_NOMEM with err filled
 * otherwise. From memory (data, len) or from the file at path, whose directory resolves
 * relative buffer URIs. When the asset has a skin without inverseBindMatrices (valid
 * glTF: identity matrices; assimp 5.2.5 crashes on it), *patch receives a copy with those
 * matrices written in, for assimp to read instead (the caller frees patch->data). */
mb_status mb_gltf_check_(const void *data, size_t len, const char *path, const char *source,
                         mb_error *err, mb_gltf_patch *patch);

#endif
