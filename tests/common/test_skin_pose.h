/* Shared by the skinning and mesh tests: a mesh skinned at a local pose through the public
 * jobs (forward kinematics, palette, dual-quaternion palette, skin). */
#ifndef MB_TEST_SKIN_POSE_H
#define MB_TEST_SKIN_POSE_H

#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

#include "mblend/mblend.h"

/* Skins mesh m for the local pose of skeleton s; out arrays are [vertex][3], outn may be
 * NULL (positions only). The test fails on any error. */
static inline void mb_test_skin_pose(const mb_skeleton *s, const mb_mesh *m,
                                     const mb_xform *local, mb_skin_method method, float *outp,
                                     float *outn)
{
    int nj = mb_skeleton_joint_count(s), np = mb_mesh_skin_joint_count(m);
    float(*world)[16] = malloc((size_t)nj * sizeof *world);
    float(*pal)[16] = malloc((size_t)np * sizeof *pal);
    float(*dq)[8] = malloc((size_t)np * sizeof *dq);
    cr_assert(world && pal && dq);
    mb_pose pose = {(mb_xform *)local, nj};
    cr_assert_eq(mb_fk(s, &pose, world, nj), MB_OK);
    mb_skin_palette_desc pd = {(const float(*)[16])world, nj,
                               (const float(*)[16])mb_mesh_inverse_binds(m), mb_mesh_skin_joints(m),
                               np, pal, np};
    cr_assert_eq(mb_skin_palette_run(&pd), MB_OK);
    cr_assert_eq(mb_skin_dq_palette((const float(*)[16])pal, np, dq), MB_OK);
    mb_skin_desc d;
    memset(&d, 0, sizeof d);
    cr_assert_eq(mb_skin_desc_from_mesh(m, &d), MB_OK);
    d.method = method;
    d.palette = (const float(*)[16])pal;
    d.dq_palette = (const float(*)[8])dq;
    d.palette_count = np;
    d.out_positions = outp;
    d.out_normals = outn;
    if (!outn)
        d.normals = NULL;
    cr_assert_eq(mb_skin_run(&d), MB_OK);
    free(world);
    free(pal);
    free(dq);
}

#endif
