/* mblend/runtime/skin.h: the skinning palette, linear-blend (LBS) and dual-quaternion (DQS) skinning,
 * and generated skin meshes for skeletons that come without one (BVH).
 *
 * The per-frame path is: local pose -> mb_fk -> world matrices -> mb_skin_palette_run ->
 * palette -> (DQS: mb_skin_dq_palette) -> mb_skin_run -> skinned positions and normals.
 * Every step works on caller-owned buffers, validates first and never allocates.
 *
 * A palette entry is the matrix that takes a vertex from bind space (the space the mesh was
 * modelled in) to world space through one joint: palette = world(joint) * inverse_bind.
 * In the bind pose every palette entry is the identity and the mesh comes out unchanged. */
#ifndef MBLEND_SKIN_H
#define MBLEND_SKIN_H

#include <stdint.h>

#include "anim.h"
#include "../offline/mesh.h"

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
 * into ranges and skin them on several threads. */
MB_API mb_status mb_skin_run(const mb_skin_desc *d);

/* Fills the vertex views of d from a mesh (4 influences, uint16_t indices, float weights,
 * positions and normals, indices trusted); the caller sets method, palette, dq_palette,
 * palette_count (mb_mesh_skin_joint_count) and the outputs. MB_INVALID_ARG for NULLs. */
MB_API mb_status mb_skin_desc_from_mesh(const mb_mesh *m, mb_skin_desc *d);

/* ---------- generated skins ---------- */

typedef struct mb_skin_gen_desc {
    /* Tube radius as a fraction of the bone length; 0: 0.16. A bone is made at least
     * max_radius * sqrt(share) thick, share being the fraction of the skeleton's joints at
     * or below its end (so the spine is thicker than a finger); then the radius is clamped
     * to [min_radius, max_radius]. */
    float radius;
    float min_radius;          /* skeleton units; 0: 1.5% of the skeleton's extent */
    float max_radius;          /* skeleton units; 0: 6% of the skeleton's extent */
    int sides;                 /* vertices around a tube, 3..64; 0: 12 */
    int rings;                 /* rings along a bone between the caps, 2..64; 0: 8 */
    /* Fraction of a bone's length, at each end, over which its weights blend into the
     * neighbouring joint (0.5 at the joint itself), 0 < blend <= 0.5; 0: 0.3. */
    float blend;
    const mb_pose *bind;       /* pose the mesh is built around; NULL: the rest pose */
    /* The clip the skin will play (optional, on this skeleton). A bone whose length
     * changes over it (mb_skin_rigid_bones) gets no capsule and hands no weight across:
     * a capsule is rigid, so one from a static root (Bandai-Namco's joint_Root, a glTF
     * Armature node) to the moving hips would stretch over the whole walk. NULL: every
     * bone keeps its length. */
    const mb_clip *clip;
    mb_allocator allocator;    /* for the mesh */
} mb_skin_gen_desc;

/* A bone stretches when its length over a clip varies by more than this fraction of its
 * longest (1%: mocap noise and rounding stay far below; a root's travel far above). */
#define MB_SKIN_GEN_STRETCH 0.01

/* Which bones keep their length: out[j] (mb_skeleton_joint_count bytes) is 1 when the
 * bone from j's parent to j keeps it, within MB_SKIN_GEN_STRETCH, over the pose bind
 * (NULL: the rest pose) and every frame of c (NULL: the bind pose only, so every bone);
 * 0 for a bone that stretches and for a joint without a parent. A bone is as long as its
 * child's local translation (transforms carry no scale). Fails (err says why, source
 * "rigid bones") with MB_INVALID_ARG for NULL s or out, a clip or bind pose of another
 * joint count, non-finite translations. */
MB_API mb_status mb_skin_rigid_bones(const mb_skeleton *s, const mb_clip *c, const mb_pose *bind,
                                     unsigned char *out, mb_error *err);

/* Builds a skin for a skeleton: a capsule (a tube with round caps) around every bone, a
 * bone being the segment from a joint to each of its children (End Sites included), sized
 * from the bone length. A bone moves with its start joint; near either end its weights
 * blend smoothly into the joint that drives the neighbouring bone, so the surface bends
 * instead of tearing at joints. Zero-length bones are skipped, and so are bones that
 * stretch over d->clip (see there). The extent is the bind pose's bounding-box diagonal
 * over the joints a kept bone holds (a static root whose one bone stretches is left out). The mesh's skin joints are
 * the skeleton joints that drive a bone, its inverse binds the inverted bind world
 * matrices, its bind pose d->bind (or the rest pose). d may be NULL (defaults). Fails
 * (err says why, source "generated skin", or the step's own: "rigid bones", "mesh") with
 * MB_INVALID_ARG for a bad desc (a clip or bind pose of another joint count included) or
 * a skeleton without any bone to skin, MB_LIMIT past the mesh limits, MB_NOMEM. */
MB_API mb_status mb_skin_generate(const mb_skeleton *s, const mb_skin_gen_desc *d, mb_mesh **out,
                                  mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
