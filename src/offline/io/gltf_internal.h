/* The glTF pre-check's private half: the copy it builds for assimp (src/offline/io/gltf_patch.c). */
#ifndef MB_GLTF_INTERNAL_H
#define MB_GLTF_INTERNAL_H

#include <cJSON.h>
#include <stddef.h>

#include "offline/io/mesh_internal.h"

/* A sampler to play as LINEAR with these keys: n times and n values of nc floats (3 or 4),
 * worked out from its STEP or CUBICSPLINE keys (gltf_check.c). */
typedef struct mb_gltf_resampled_ {
    cJSON *sampler;
    float *times, *values;
    int n, nc;
} mb_gltf_resampled_;

/* The root node indices of root's default scene ("scene", else scenes[0]): its "nodes"
 * array, or NULL. */
cJSON *mb_gltf_scene_roots_(const cJSON *root);

/* Moves the mesh and skin of scene root node `from` onto scene root node `onto` and drops
 * `from` from the default scene's roots (see gcheck.fold_mesh_node in gltf_check.c). */
void mb_gltf_fold_mesh_node_(cJSON *root, int from, int onto);

/* Fills *out with root written out again (as a GLB holding bin when glb is set, else as
 * JSON text), after giving every skin without inverseBindMatrices identity matrices,
 * pointing each of the nrs samplers of rs at its new keys, and making relative buffer and
 * image URIs start from dir (NULL: left as they are). Takes bin (malloc'd, or NULL), which
 * it may grow and always frees. Returns 0 when memory runs out (*out empty). */
int mb_gltf_patch_(cJSON *root, unsigned char *bin, size_t bin_len, int glb,
                   const char *dir, const mb_gltf_resampled_ *rs, int nrs, mb_gltf_patch *out);

#endif
