/* Shared by the .X/FBX tests of the library and the CLI: the three files of
 * ../shared/data/mesh with the counts SOURCES.md and the aiScene give, and their loader. */
#ifndef MB_TEST_SCENE_CASES_H
#define MB_TEST_SCENE_CASES_H

#include <math.h>
#include <stdio.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "test_util.h"

static inline void need_assimp(void)
{
#if MB_TEST_WITH_ASSIMP
    cr_assert(mb_scene_supported(), "built with MB_WITH_ASSIMP=ON, yet libmblend reads no scenes");
#else
    if (!mb_scene_supported())
        cr_skip_test("mblend was built without assimp (MB_WITH_ASSIMP=OFF): .X/FBX tests skipped");
#endif
}

static inline mb_scene *load(const char *rel)
{
    need_assimp();
    mb_scene *s = NULL;
    mb_error err;
    char msg[600];
    mb_status st = mb_scene_read_file(mb_shared_path(rel), NULL, &s, &err);
    cr_assert_eq(st, MB_OK, "%s", mb_error_format(&err, msg, sizeof msg));
    return s;
}

/* The three files, what SOURCES.md and the aiScene say of them. */
typedef struct format_case {
    const char *rel;
    int meshes, vertices, triangles, skin_joints, max_influences, scaled_nodes;
    int clips;
    const char *clip_names[3];
    int clip_frames[3];
} format_case;

static const format_case k_cases[] = {
    {"mesh/BCN_Epileptic.X", 3, 3014, 5126, 54, 3, 0, 1, {"Epileptisch"}, {100}},
    {"mesh/Testwuson.X", 1, 3205, 3732, 37, 4, 0, 3, {"Wuson_Run", "Wuson_Walk", "Wuson_Bind"}, {30, 109, 1}},
    {"mesh/animation_with_skeleton.fbx", 1, 2464, 2112, 14, 6, 3, 1, {"Armature|ArmatureAction"}, {21}},
};
#define N_CASES (int)(sizeof k_cases / sizeof k_cases[0])

static inline double dist3d(const float *a, const double *b)
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

#endif
