/* mblend/offline/mesh.h: skinned meshes; loading meshes, skeletons and clips through assimp
 * (glTF/GLB, FBX, Collada, DirectX .x, ...); mapping clips between skeletons by joint name;
 * exporting skinned frames as OBJ and skeleton + mesh + animation as binary glTF.
 *
 * Loading needs the library built with MB_WITH_ASSIMP (the default when assimp is found);
 * mb_scene_supported() says whether it was. Everything else works without assimp.
 *
 * Spaces: a mesh's positions are in bind space; palette entry i (skin.h) maps bind space to
 * world space through skeleton node skin_joints[i]: world(node) * inverse_bind[i]. For glTF
 * this is the file's own convention (the mesh node's transform is not applied to skinned
 * vertices). Lengths are in the file's units; glTF is +Y up, metres by convention. */
#ifndef MBLEND_MESH_H
#define MBLEND_MESH_H

#include <stdint.h>

#include "../runtime/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MB_MESH_MAX_VERTICES (1 << 24)      /* per mesh */
#define MB_MESH_MAX_TRIANGLES (1 << 25)
#define MB_MESH_MAX_INPUT_INFLUENCES 64     /* per vertex in mb_mesh_desc */
#define MB_MESH_INFLUENCES 4                /* stored per vertex (the 4 largest) */

typedef struct mb_mesh mb_mesh;

typedef struct mb_mesh_desc {
    int vertex_count;               /* 1..MB_MESH_MAX_VERTICES */
    const float *positions;         /* [vertex][3], bind space, finite */
    const float *normals;           /* [vertex][3]; NULL: area-weighted from the triangles */
    int triangle_count;             /* 0..MB_MESH_MAX_TRIANGLES */
    const uint32_t *triangles;      /* [triangle][3] vertex indices, counter-clockwise front */

    int influences;                 /* 1..MB_MESH_MAX_INPUT_INFLUENCES per vertex */
    const int *joints;              /* [vertex][influences] palette entries, < skin_joint_count
                                       (any value where the weight is 0) */
    const float *weights;           /* [vertex][influences], finite, >= 0; a vertex needs a
                                       positive sum. The 4 largest are kept, renormalised */

    int skin_joint_count;           /* palette entries, 1..65536 */
    const int *skin_joints;         /* skeleton node of each entry, < skeleton_joint_count */
    const float (*inverse_bind)[16];/* per entry, column-major, invertible */

    int skeleton_joint_count;       /* joints of the skeleton the mesh is skinned to */
    const mb_xform *bind_pose;      /* that skeleton's local bind pose (skeleton_joint_count
                                       entries); NULL: identity rotations and zero
                                       translations are stored (give it when known) */
    mb_allocator allocator;         /* zero: malloc/free */
} mb_mesh_desc;

/* Builds a mesh (one allocation, copies everything): keeps each vertex's 4 largest
 * influences, renormalised (how many vertices had more: mb_mesh_info), checks every index.
 * Fails (err says which vertex, joint or count and why; source "mesh") with
 * MB_INVALID_ARG for a bad desc (out-of-range indices, non-finite values, negative weights,
 * a vertex whose weights sum to 0, a singular inverse bind), MB_LIMIT past the limits,
 * MB_NOMEM. */
MB_API mb_status mb_mesh_create(const mb_mesh_desc *d, mb_mesh **out, mb_error *err);
MB_API void mb_mesh_destroy(mb_mesh *m); /* NULL is a no-op */

typedef struct mb_mesh_info {
    int vertex_count;
    int triangle_count;
    int skin_joint_count;
    int skeleton_joint_count;
    int cut_vertices;       /* vertices that had more than 4 non-zero influences */
    int max_influences;     /* most non-zero influences on one vertex before the cut */
    float size;             /* bind-pose bounding-box diagonal (the tolerance scale) */
} mb_mesh_info;

MB_API mb_mesh_info mb_mesh_get_info(const mb_mesh *m);
MB_API int mb_mesh_vertex_count(const mb_mesh *m);
MB_API int mb_mesh_triangle_count(const mb_mesh *m);
MB_API int mb_mesh_skin_joint_count(const mb_mesh *m);
MB_API const float *mb_mesh_positions(const mb_mesh *m);      /* [vertex][3] bind space */
MB_API const float *mb_mesh_normals(const mb_mesh *m);        /* [vertex][3] unit */
MB_API const uint32_t *mb_mesh_triangles(const mb_mesh *m);   /* [triangle][3] */
MB_API const uint16_t *mb_mesh_joint_indices(const mb_mesh *m); /* [vertex][4] */
MB_API const float *mb_mesh_joint_weights(const mb_mesh *m);  /* [vertex][4], sum 1,
                                                                 largest first */
MB_API const int *mb_mesh_skin_joints(const mb_mesh *m);      /* skeleton node per entry */
MB_API const float *mb_mesh_inverse_binds(const mb_mesh *m);  /* [entry][16] */
MB_API int mb_mesh_skeleton_joint_count(const mb_mesh *m);
MB_API const mb_xform *mb_mesh_bind_pose(const mb_mesh *m);   /* [skeleton joint] */

/* ---------- scenes through assimp ---------- */

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
MB_API int mb_scene_clip_count(const mb_scene *s);
MB_API const mb_clip *mb_scene_clip(const mb_scene *s, int i);
MB_API const char *mb_scene_clip_name(const mb_scene *s, int i);
/* Index of the clip with that exact name, or -1. */
MB_API int mb_scene_find_clip(const mb_scene *s, const char *name);
MB_API mb_scene_info mb_scene_get_info(const mb_scene *s);

/* ---------- mapping a clip onto another skeleton by joint name ---------- */

typedef struct mb_clip_map_desc {
    const mb_skeleton *from;
    const mb_clip *clip;             /* on from */
    const mb_skeleton *to;
    const mb_xform *to_bind;         /* to's local bind pose; NULL: to's rest pose */
    /* Zero: matched joints keep their offset (the target's proportions: its nodes' rest
     * translations), except the top matched joints (root motion) and joints whose
     * translation the clip animates (a track), which take the clip's translation.
     * Non-zero: every matched joint takes the clip's translation. Unmatched joints keep
     * their bind pose. */
    int all_translations;
    mb_allocator allocator;          /* for the new clip */
} mb_clip_map_desc;

/* A new clip on `to` (same frames and frame time): each joint of `to` whose name exists in
 * `from` takes that joint's local rotation track as is (the two rigs must share rest
 * orientations for the result to look right, as clips of one character do); an unmatched
 * joint keeps its bind pose. The new clip tracks the translations of the joints of `to`
 * that have position channels and whose translation can differ from their offset.
 * out_from (nullable, joint count of `to` entries) receives the source joint of each
 * target joint or -1; *out_unmatched (nullable) the number of unmatched joints (End
 * Sites excluded). Fails (err says why, source "clip map") with MB_INVALID_ARG for NULLs
 * or a clip not on `from`, MB_MISMATCH when no joint matches, MB_NOMEM. */
MB_API mb_status mb_clip_map(const mb_clip_map_desc *d, mb_clip **out, int *out_from,
                             int *out_unmatched, mb_error *err);

/* ---------- export ---------- */

/* Writes one skinned frame as Wavefront OBJ text: positions [vertex][3] (e.g. from
 * mb_skin_run), normals [vertex][3] or NULL, the mesh's triangles (1-based, v//vn). Written
 * to a temporary file beside path and renamed over it. MB_INVALID_ARG for NULLs, MB_IO
 * (the failing step in err). */
MB_API mb_status mb_obj_write_file(const char *path, const mb_mesh *m, const float *positions,
                                   const float *normals, mb_error *err);

typedef struct mb_gltf_write_desc {
    const mb_skeleton *skeleton;     /* every joint becomes a node (End Sites too) */
    const mb_mesh *mesh;             /* skinned to skeleton; NULL: skeleton and clip only */
    const mb_clip *clip;             /* optional animation, on skeleton */
    const char *clip_name;           /* NULL: "clip" */
    /* Local rest transforms of the nodes; NULL: the mesh's bind pose, else the rest pose */
    const mb_xform *rest;
    float scale;                     /* applied to the whole scene by a root node; 0: 1
                                        (e.g. 0.01 for a BVH in cm viewed in metres) */
    mb_axis up_axis;                 /* the skeleton's up axis (DETECT is taken as Y,
                                        glTF's own); X or Z (a Z-up BVH) is turned to
                                        +Y by the same root node */
    mb_allocator allocator;          /* for the output buffer */
} mb_gltf_write_desc;

/* Binary glTF 2.0 (.glb): one scene; the nodes of the skeleton with their rest TRS; the
 * mesh (POSITION, NORMAL, JOINTS_0 as unsigned short, WEIGHTS_0, uint32 indices) and its
 * skin (joints and inverse bind matrices); the clip as one animation with a rotation and
 * a translation channel per animated node (linear, one key per frame). *out (freed with
 * the desc's allocator or free()) holds *out_len bytes. MB_INVALID_ARG for NULLs or a
 * mesh/clip not on the skeleton, MB_NUMERIC for non-finite data, MB_NOMEM. */
MB_API mb_status mb_gltf_write_mem(const mb_gltf_write_desc *d, void **out, size_t *out_len,
                                   mb_error *err);
/* As mb_gltf_write_mem, to a temporary file beside path, renamed over it (MB_IO). */
MB_API mb_status mb_gltf_write_file(const char *path, const mb_gltf_write_desc *d,
                                    mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
