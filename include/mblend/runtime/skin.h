/* mblend/runtime/skin.h: the skinning palette, linear-blend (LBS) and dual-quaternion (DQS)
 * skinning: the per-frame jobs on caller-owned buffers (the mesh object that fills them is
 * offline/mesh.h; generated skins are offline/skin_gen.h).
 *
 * The per-frame path is: local pose -> mb_fk -> world matrices -> mb_skin_palette_run ->
 * palette -> (DQS: mb_skin_dq_palette) -> mb_skin_run -> skinned positions and normals.
 * Every step works on caller-owned buffers, validates first and never allocates.
 *
 * A palette entry is the matrix that takes a vertex from bind space (the space the mesh was
 * modelled in) to world space through one joint: palette = world(joint) * inverse_bind.
 * In the bind pose every palette entry is the identity and the mesh comes out unchanged. */
#ifndef MBLEND_RUNTIME_SKIN_H
#define MBLEND_RUNTIME_SKIN_H

#include <stdint.h>

#include "anim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MB_SKIN_MAX_INFLUENCES 4 /* per vertex in the skinning job */
#define MB_SKIN_MAX_PALETTE 65536 /* entries addressable by uint16_t indices */

/* ---------- palette ---------- */

typedef struct mb_skin_palette_desc {
    const float (*world)[16];        /* world matrices from mb_fk, world_count entries */
    int world_count;
    const float (*inverse_bind)[16]; /* one per palette entry (bind space -> joint space) */
    const int *joints;               /* the world matrix of each palette entry, 0 <= joints[i]
                                        < world_count; NULL: entry i uses world[i] */
    int count;                       /* palette entries, 1..MB_SKIN_MAX_PALETTE */
    float (*out)[16];                /* count entries; may not alias world or inverse_bind */
    int out_count;                   /* >= count */
} mb_skin_palette_desc;

/* out[i] = world[joints[i]] * inverse_bind[i] (column-major, computed in float).
 * MB_INVALID_ARG for NULL views, count out of range or a joint index outside world;
 * MB_TOO_SMALL when out_count < count. */
MB_API mb_status mb_skin_palette_run(const mb_skin_palette_desc *d);

/* Dual quaternions for DQS, one per palette matrix: 8 floats, the real part (a unit
 * rotation quaternion x, y, z, w) then the dual part (x, y, z, w), with
 * dual = 0.5 * (t, 0) * real. DQS represents rigid transforms only: the rotation is that of
 * each matrix's 3x3 with its columns normalised (exact for a rotation times any scale along
 * its own axes; a shear is approximated), the translation the matrix's; scale is dropped
 * (skin scaled joints with LBS). Computed in double. out may not alias palette.
 * MB_INVALID_ARG for NULL arrays, count out of 1..MB_SKIN_MAX_PALETTE or non-finite
 * matrices. */
MB_API mb_status mb_skin_dq_palette(const float (*palette)[16], int count, float (*out)[8]);

/* ---------- the skinning job ---------- */

typedef enum mb_skin_method {
    MB_SKIN_LBS = 0, /* linear blend: sum w_i P_i applied to the vertex (default). Fast;
                        volume collapses at twisted joints (the candy-wrapper effect) */
    MB_SKIN_DQS      /* dual-quaternion blend: sum w_i dq_i, each sign-fixed against the
                        vertex's first influence (q and -q are the same rotation), then
                        normalised: rigid at every vertex, keeps volume under twist */
} mb_skin_method;

/* How joint indices and weights are stored, [vertex][influences] each. */
typedef enum mb_skin_format {
    MB_SKIN_U16_FLOAT = 0, /* uint16_t indices, float weights (default) */
    MB_SKIN_U8_UNORM16     /* uint8_t indices, uint16_t weights read as w / 65535 */
} mb_skin_format;

typedef struct mb_skin_desc {
    mb_skin_method method;
    const float (*palette)[16];    /* LBS: skinning matrices (mb_skin_palette_run) */
    const float (*dq_palette)[8];  /* DQS: dual quaternions (mb_skin_dq_palette) */
    int palette_count;             /* entries in the palette used, 1..MB_SKIN_MAX_PALETTE */

    int vertex_count;              /* >= 0 */
    int influences;                /* 1..MB_SKIN_MAX_INFLUENCES per vertex */
    mb_skin_format format;
    const void *joint_indices;     /* [vertex][influences] uint16_t or uint8_t */
    const void *joint_weights;     /* [vertex][influences] float or uint16_t; finite, >= 0.
                                      Normalised per vertex by the job (the sum need not be
                                      1); a vertex whose weights sum to 0 follows its first
                                      index rigidly */

    /* Strides are in bytes between consecutive vertices (0: 3 floats, tightly packed), so
     * interleaved vertex buffers work; each must be a multiple of 4 and >= 12. */
    const float *positions;        /* bind space */
    int positions_stride;
    const float *normals;          /* optional; NULL: no normals */
    int normals_stride;
    float *out_positions;          /* may be exactly positions (same stride): in place */
    int out_positions_stride;
    float *out_normals;            /* required when normals is set; may be exactly normals.
                                      LBS normals go through the blended 3x3 and are not
                                      renormalised (as in most engines); DQS normals are
                                      rotated (unit in, unit out) */
    int out_normals_stride;

    /* Non-zero: skip the check that every joint index is < palette_count (a pre-pass over
     * the indices). Only for indices already validated, e.g. an mb_mesh's (mb_mesh_create
     * checks them once); an out-of-range index then reads outside the palette. */
    int trusted_indices;
} mb_skin_desc;

/* Skins vertex_count vertices. Validates everything before writing: MB_INVALID_ARG for NULL
 * required views, influences or palette_count out of range, an unknown method or format,
 * bad strides, normals without out_normals, a joint index >= palette_count (unless
 * trusted_indices). Never allocates. Vertices are independent: callers may split a mesh
 * into ranges and skin them on several threads.
 * Speed (any layout works): LBS runs fastest with a 64-byte-aligned palette (one cache
 * line per matrix, as aligned_alloc(64, ...) gives; 10-20% slower otherwise on AVX-512)
 * and packed 12-byte positions and normals (strides 0 or 12). */
MB_API mb_status mb_skin_run(const mb_skin_desc *d);

#ifdef __cplusplus
}
#endif
#endif
