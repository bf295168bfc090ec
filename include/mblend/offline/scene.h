/* mblend/offline/scene.h: loading meshes, skeletons and clips through assimp (glTF/GLB,
 * FBX, Collada, DirectX .x, ...).
 *
 * Loading needs the library built with MB_WITH_ASSIMP (the default when assimp is found);
 * mb_scene_supported() says whether it was. */
#ifndef MBLEND_OFFLINE_SCENE_H
#define MBLEND_OFFLINE_SCENE_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether this build can read scenes (built with MB_WITH_ASSIMP). */
MB_API int mb_scene_supported(void);

typedef struct mb_scene mb_scene;

typedef struct mb_scene_read_desc {
    /* Frames per second of the loaded clips. 0: the coarsest grid that holds every key of
     * a clip (its smallest key gap divided by 1..16; exporters key at a fixed rate, though
     * some skip frames), so the clip reproduces the keyed motion exactly; else 60. */
    double sample_rate;
    mb_allocator allocator;  /* zero: malloc/free */
} mb_scene_read_desc;

typedef struct mb_scene_info {
    int meshes;              /* meshes merged into the scene's one mb_mesh */
    int skinned_meshes;      /* of those, with bones (the others follow their node rigidly) */
    int cut_vertices;        /* vertices that had more than 4 influences (kept the 4
                                largest, renormalised) */
    int max_influences;
    int unweighted_vertices; /* vertices of skinned meshes without any weight: they follow
                                the mesh's node rigidly */
    int scaled_nodes;        /* nodes with a scale mblend cannot carry (non-uniform, negative,
                                or keyed) that differs from 1 by more than 1e-3: dropped.
                                A static uniform scale is folded into the offsets below the
                                node and the skin's inverse bind matrices, so the mesh and
                                skeleton keep their size */
    int resampled_clips;     /* clips whose keys were not on one grid (sampled at the rate) */
} mb_scene_info;

/* Reads a scene from memory with assimp. source names it in messages and its extension
 * ("fox.glb") tells assimp the format (it also sniffs the content). The skeleton is the
 * whole node hierarchy (parents-first; every node has 6 channels, so any node can carry
 * a translation track; a glTF scene of two roots, one of which only carries the skinned
 * mesh, reads as the other root's tree: a skinned mesh ignores its node's transform, and
 * assimp would wrap the two in a "ROOT" node); all meshes are merged into one mb_mesh (NULL when the file has no
 * mesh); every animation becomes a clip, sampled into quaternion tracks and translation
 * tracks for exactly the nodes with position keys (nodes without a channel hold their
 * bind transform, which is their skeleton offset; rotations slerped, positions lerped
 * between keys, clamped before the first and after the last key; a glTF STEP sampler holds
 * each key until the next, a CUBICSPLINE one follows its Hermite curve, sampled 8 times
 * per key interval, when its keys are floats in a .glb's binary chunk). Unnamed nodes are called
 * "node<i>", repeated names get "#<k>" appended, unnamed clips "clip<i>"; control
 * characters in node and clip names become '_'.
 * MB_INVALID_ARG for NULL data or outputs; MB_PARSE when assimp cannot read it (its
 * message in err); MB_LIMIT past the skeleton or mesh limits; MB_NOMEM; MB_IO when the
 * build has no assimp. On failure *out is NULL. A glTF 2.0 asset (.glb or .gltf) is checked
 * before assimp reads it: its JSON (cJSON; a JSON text of any name is, as assimp reads
 * glTF by content), the GLB container, every index and byte range assimp follows,
 * primitive modes and scene roots, so a broken or hostile glTF is an MB_PARSE (MB_LIMIT for a node
 * tree deeper than MB_MAX_JOINTS) naming the JSON path; a skin without
 * inverseBindMatrices (valid glTF: identity matrices; Debian's assimp 5.2.5 crashes on
 * it) is read from a copy with the identity matrices written in. Other formats are parsed by assimp unguarded (an X or Collada file nested
 * tens of thousands deep overflows its stack), so read untrusted non-glTF files in a
 * process you can lose (the mblend tool lets a child process read each scene first).
 * Scene reads must not run on two threads at once: assimp's C API keeps its last error in
 * a global, as cJSON does its parse error. */
MB_API mb_status mb_scene_read_mem(const void *data, size_t len, const char *source,
                                   const mb_scene_read_desc *d, mb_scene **out, mb_error *err);
/* As mb_scene_read_mem from a file (MB_IO when it cannot be read). */
MB_API mb_status mb_scene_read_file(const char *path, const mb_scene_read_desc *d,
                                    mb_scene **out, mb_error *err);
MB_API void mb_scene_destroy(mb_scene *s); /* NULL is a no-op */

/* The scene owns everything these return; they live until mb_scene_destroy. */
MB_API const mb_skeleton *mb_scene_skeleton(const mb_scene *s);
MB_API const mb_mesh *mb_scene_mesh(const mb_scene *s);     /* NULL when the file has none */
/* The mesh's materials, base colour images and texture coordinates (mesh.h; NULL when the
 * file has no mesh). Every material assimp reports is kept with its base colour factor,
 * metallic and roughness factors, two-sidedness, and its base colour (else diffuse)
 * texture when that is a PNG or JPEG file: embedded (a .glb's images, "*N") or a file
 * beside a scene read with mb_scene_read_file. The first UV channel of each merged mesh
 * becomes texcoords, flipped back to glTF's v-down convention (assimp flips glTF's on
 * import); a merged mesh without one gets (0, 0); texcoords is NULL when none has one. */
MB_API const mb_mesh_look *mb_scene_look(const mb_scene *s);
MB_API int mb_scene_clip_count(const mb_scene *s);
MB_API const mb_clip *mb_scene_clip(const mb_scene *s, int i);
MB_API const char *mb_scene_clip_name(const mb_scene *s, int i);
/* Index of the clip with that exact name, or -1. */
MB_API int mb_scene_find_clip(const mb_scene *s, const char *name);
MB_API mb_scene_info mb_scene_get_info(const mb_scene *s);

#ifdef __cplusplus
}
#endif
#endif
