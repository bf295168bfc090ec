/* mblend/offline/export.h: exporting skinned frames as OBJ and skeleton + mesh + animation
 * as binary glTF (the BVH writer is offline/bvh.h). Every writer goes through the atomic
 * file output of offline/file.h. */
#ifndef MBLEND_OFFLINE_EXPORT_H
#define MBLEND_OFFLINE_EXPORT_H

#include "mesh.h"
#include "prepare.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes one skinned frame as Wavefront OBJ text: positions [vertex][3] (e.g. from
 * mb_skin_run), normals [vertex][3] or NULL, the mesh's triangles (1-based, v//vn). Written
 * to a temporary file beside path and renamed over it. MB_INVALID_ARG for NULLs, MB_IO
 * (the failing step in err). */
MB_API mb_status mb_obj_write_file(const char *path, const mb_mesh *m, const float *positions,
                                   const float *normals, mb_error *err);

typedef struct mb_gltf_write_desc {
    const mb_skeleton *skeleton;     /* every joint becomes a node (End Sites too) */
    const mb_mesh *mesh;             /* skinned to skeleton; NULL: skeleton and clip only */
    /* How mesh looks (materials, images, TEXCOORD_0; its vertex and triangle counts are
     * mesh's), e.g. mb_scene_look of the scene the mesh came from; NULL: one flat
     * material */
    const mb_mesh_look *look;
    const mb_clip *clip;             /* optional animation, on skeleton */
    const char *clip_name;           /* NULL: "clip" */
    /* Local rest transforms of the nodes; NULL: the mesh's bind pose, else the rest pose */
    const mb_xform *rest;
    float scale;                     /* applied to the whole scene by a root node; 0: 1
                                        (e.g. 0.01 for a BVH in cm viewed in metres) */
    mb_axis up_axis;                 /* the skeleton's up axis (DETECT is taken as Y,
                                        glTF's own); X or Z (a Z-up BVH) is turned to
                                        +Y by the same root node */
    /* How the clip loops (mb_gltf_loop_kind decides): MB_LOOP_RUNS_ON (its last frame runs
     * on into its first) gets one more key, frame 0's pose again one frame time after the
     * last frame, because glTF players loop over the key span and would otherwise jump
     * from the last frame straight to the first. MB_LOOP_NONE (zero) and MB_LOOP_REPEATS
     * (the last frame already is the first) write the frames as they are. A root that
     * travels over the loop is carried back to its start over that last key interval: a
     * glTF player has no root motion, so it returns there at the wrap either way. */
    mb_loop_kind loop;
    mb_allocator allocator;          /* for the output buffer */
} mb_gltf_write_desc;

/* The one rule for mb_gltf_write_desc.loop, for every writer of glTF (the CLI, Python):
 * a cyclic result (cyclic non-zero: a clip blend of cycles, mb_clip_blend_desc.cyclic,
 * whose frame count is one period by construction) runs on, MB_LOOP_RUNS_ON; any other
 * clip (converted, transition, retargeted, mirrored) loops as its preparation finds
 * (mb_clip_prepare's in-place loop detection, mb_prepared_info.loop; MB_LOOP_NONE for
 * fewer than 3 frames). MB_INVALID_ARG for NULLs or a clip not on s, MB_NOMEM; *out is
 * MB_LOOP_NONE on failure. */
MB_API mb_status mb_gltf_loop_kind(const mb_skeleton *s, const mb_clip *c, int cyclic,
                                   mb_loop_kind *out, mb_error *err);

/* Binary glTF 2.0 (.glb): one scene; the nodes of the skeleton with their rest TRS; the
 * mesh (POSITION, NORMAL, JOINTS_0 as unsigned short, WEIGHTS_0, uint32 indices) and its
 * skin (joints and inverse bind matrices); the clip as one animation with a rotation and
 * a translation channel per animated node (linear, one key per frame, and the closing key
 * of a loop, see loop). *out (freed with
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
