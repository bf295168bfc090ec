/* mblend/offline/mesh.h: skinned meshes (the mesh object: validated, immutable, one
 * allocation) and the bridge to the skinning job (mb_skin_desc_from_mesh). Meshes come
 * from scenes (offline/scene.h) or are generated (offline/skin_gen.h); they are written by
 * offline/export.h.
 *
 * Spaces: a mesh's positions are in bind space; palette entry i (runtime/skin.h) maps bind
 * space to world space through skeleton node skin_joints[i]: world(node) * inverse_bind[i].
 * For glTF this is the file's own convention (the mesh node's transform is not applied to
 * skinned vertices). Lengths are in the file's units; glTF is +Y up, metres by convention. */
#ifndef MBLEND_OFFLINE_MESH_H
#define MBLEND_OFFLINE_MESH_H

#include <stdint.h>
#include "../runtime/anim.h"
#include "../runtime/skin.h"

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

/* How a mesh looks: its materials, their base colour images and the texture coordinates,
 * as a scene read them (mb_scene_look) and the glTF writer writes them. Plain data; whoever
 * made it owns every array. Coordinates follow glTF: u to the right, v down from the
 * image's top-left corner. */
typedef struct mb_image {
    const unsigned char *data; /* the encoded file (PNG or JPEG), as stored in the source */
    size_t size;
    const char *mime_type;     /* "image/png" or "image/jpeg" */
} mb_image;

typedef struct mb_material {
    char name[MB_MAX_NAME + 1];
    float base_color[4];       /* linear RGBA factor */
    float metallic, roughness; /* 0..1 */
    int base_color_image;      /* index into the images, -1: none */
    int wrap_s, wrap_t;        /* glTF sampler wrap modes: 10497 repeat, 33071 clamp to
                                  edge, 33648 mirrored repeat */
    int double_sided;
} mb_material;

typedef struct mb_mesh_look {
    int vertex_count;              /* the mesh's */
    const float *texcoords;        /* [vertex][2]; NULL: the mesh has none */
    int triangle_count;            /* the mesh's */
    const int *triangle_materials; /* [triangle]: index into materials */
    int material_count;            /* >= 1 */
    const mb_material *materials;
    int image_count;
    const mb_image *images;
} mb_mesh_look;

/* Fills the vertex views of d from a mesh (4 influences, uint16_t indices, float weights,
 * positions and normals, indices trusted); the caller sets method, palette, dq_palette,
 * palette_count (mb_mesh_skin_joint_count) and the outputs. MB_INVALID_ARG for NULLs. */
MB_API mb_status mb_skin_desc_from_mesh(const mb_mesh *m, mb_skin_desc *d);

#ifdef __cplusplus
}
#endif
#endif
