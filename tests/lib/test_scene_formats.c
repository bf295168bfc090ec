/* DirectX .X and FBX scenes through assimp, tested as the glTF samples are (test_mesh.c):
 * - BCN_Epileptic.X (a human in 3 meshes on one skeleton, a jump), Testwuson.X (three
 *   animations) and animation_with_skeleton.fbx (6 influences per vertex, scaled nodes)
 *   load with the counts the aiScene itself has (vertices, triangles, bones, influences,
 *   animations and their durations);
 * - skinning: mblend's LBS matches (1) a double-precision skinning computed here from the
 *   scene's own inverse binds, weights and joint matrices forward-kinematised here, and
 *   (2) a double-precision skinning of the aiScene (node keys interpolated here, bone
 *   offsets, the 4 largest weights renormalised, as mblend documents), at several times
 *   of every clip; the bind pose reproduces the mesh;
 * (the CLI on the same files: tests/cli/test_cli_scene_formats.c).
 * Built with MB_WITH_ASSIMP=ON (MB_TEST_WITH_ASSIMP) the scene reader must be there: the
 * tests fail rather than skip; without it they skip, saying so, and a test checks that
 * reading these files says the build lacks assimp. Files come from
 * ../shared/data/mesh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "test_skin_pose.h"
#include "test_util.h"

#if defined(__has_include)
#if __has_include(<assimp/cimport.h>)
#define HAVE_ASSIMP_HEADERS 1
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif
#endif

#ifdef HAVE_ASSIMP_HEADERS
/* Weak, as in test_mesh.c: the test links either way; the reference needs assimp linked
 * here (tests/CMakeLists.txt does when MB_WITH_ASSIMP is on). */
#pragma weak aiImportFile
#pragma weak aiReleaseImport
#pragma weak aiDecomposeMatrix
#endif

#include "test_scene_cases.h"

/* ---------- reading ---------- */

Test(scene_formats, without_assimp_reading_says_so_with_it_reads)
{
    for (int i = 0; i < N_CASES; ++i) {
        mb_scene *s = (mb_scene *)1;
        mb_error err;
        mb_status st = mb_scene_read_file(mb_shared_path(k_cases[i].rel), NULL, &s, &err);
#if MB_TEST_WITH_ASSIMP
        cr_assert_eq(st, MB_OK, "%s: %s", k_cases[i].rel, err.text);
        cr_assert_not_null(s);
#else
        if (mb_scene_supported()) {
            cr_assert_eq(st, MB_OK, "%s: %s", k_cases[i].rel, err.text);
        } else {
            cr_assert_eq(st, MB_IO);
            cr_assert_null(s);
            cr_assert(strstr(err.text, "without assimp"), "%s", err.text);
        }
#endif
        mb_scene_destroy(s);
    }
}

Test(scene_formats, counts_match_the_files)
{
    for (int i = 0; i < N_CASES; ++i) {
        const format_case *fc = &k_cases[i];
        mb_scene *s = load(fc->rel);
        const mb_mesh *m = mb_scene_mesh(s);
        cr_assert_not_null(m, "%s", fc->rel);
        mb_scene_info si = mb_scene_get_info(s);
        mb_mesh_info mi = mb_mesh_get_info(m);
        cr_log_info("%s: %d meshes, %d vertices, %d triangles, %d palette, influences %d (cut %d), "
                    "scaled %d, unweighted %d", fc->rel, si.meshes, mi.vertex_count,
                    mi.triangle_count, mi.skin_joint_count, si.max_influences, si.cut_vertices,
                    si.scaled_nodes, si.unweighted_vertices);
        cr_assert_eq(si.meshes, fc->meshes, "%s", fc->rel);
        cr_assert_eq(si.skinned_meshes, fc->meshes, "%s", fc->rel);
        cr_assert_eq(mi.vertex_count, fc->vertices, "%s", fc->rel);
        cr_assert_eq(mi.triangle_count, fc->triangles, "%s", fc->rel);
        cr_assert_eq(mi.skin_joint_count, fc->skin_joints, "%s", fc->rel);
        cr_assert_eq(si.max_influences, fc->max_influences, "%s", fc->rel);
        cr_assert_eq(si.cut_vertices > 0, fc->max_influences > 4, "%s", fc->rel);
        cr_assert_eq(si.scaled_nodes, fc->scaled_nodes, "%s", fc->rel);
        cr_assert_eq(si.unweighted_vertices, 0, "%s", fc->rel);
        cr_assert_eq(mb_scene_clip_count(s), fc->clips, "%s", fc->rel);
        for (int c = 0; c < fc->clips; ++c) {
            cr_assert_str_eq(mb_scene_clip_name(s, c), fc->clip_names[c]);
            cr_assert_eq(mb_clip_frame_count(mb_scene_clip(s, c)), fc->clip_frames[c], "%s#%s",
                         fc->rel, fc->clip_names[c]);
        }
        /* weights: sum 1, sorted largest first, at most 4 */
        const float *w = mb_mesh_joint_weights(m);
        for (int v = 0; v < mi.vertex_count; ++v) {
            double sum = w[4 * v] + w[4 * v + 1] + w[4 * v + 2] + w[4 * v + 3];
            cr_assert(fabs(sum - 1.0) < 1e-5, "%s vertex %d: weights sum to %g", fc->rel, v, sum);
        }
        mb_scene_destroy(s);
    }
}

/* ---------- skinning against double-precision references ---------- */

static void mul4d(const double a[16], const double b[16], double o[16])
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            double s = 0;
            for (int k = 0; k < 4; ++k)
                s += a[k * 4 + r] * b[c * 4 + k];
            o[c * 4 + r] = s;
        }
}

/* Column-major rigid transform of a local pose entry, in double. */
static void xform_matrix(const mb_xform *x, double m[16])
{
    double q[4] = {x->rot[0], x->rot[1], x->rot[2], x->rot[3]}, r[3][3];
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k)
        q[k] /= n;
    mb_test_quat_rot3(q, r);
    memset(m, 0, 16 * sizeof *m);
    for (int row = 0; row < 3; ++row)
        for (int c = 0; c < 3; ++c)
            m[c * 4 + row] = r[row][c];
    m[12] = x->pos[0];
    m[13] = x->pos[1];
    m[14] = x->pos[2];
    m[15] = 1;
}

/* Reference 1: the scene's own data skinned in double. World matrices by forward
 * kinematics here (parents first), palette = world * inverse bind, LBS with the mesh's
 * weights renormalised. out: [vertex][3]. */
static void scene_reference(const mb_skeleton *sk, const mb_mesh *m, const mb_xform *local,
                            double *out)
{
    int nj = mb_skeleton_joint_count(sk), np = mb_mesh_skin_joint_count(m), nv = mb_mesh_vertex_count(m);
    const int *parents = mb_skeleton_parents(sk), *sj = mb_mesh_skin_joints(m);
    double(*world)[16] = malloc((size_t)nj * sizeof *world);
    double(*pal)[16] = malloc((size_t)np * sizeof *pal);
    cr_assert(world && pal);
    for (int j = 0; j < nj; ++j) {
        double l[16];
        xform_matrix(&local[j], l);
        if (parents[j] >= 0)
            mul4d(world[parents[j]], l, world[j]);
        else
            memcpy(world[j], l, sizeof l);
    }
    const float *ibf = mb_mesh_inverse_binds(m);
    for (int e = 0; e < np; ++e) {
        double ib[16];
        for (int k = 0; k < 16; ++k)
            ib[k] = ibf[16 * e + k];
        mul4d(world[sj[e]], ib, pal[e]);
    }
    const float *pos = mb_mesh_positions(m), *w = mb_mesh_joint_weights(m);
    const uint16_t *ji = mb_mesh_joint_indices(m);
    for (int v = 0; v < nv; ++v) {
        double sum = 0, acc[3] = {0, 0, 0};
        const float *p = &pos[3 * v];
        for (int k = 0; k < 4; ++k) {
            const double *P = pal[ji[4 * v + k]];
            double wk = w[4 * v + k];
            sum += wk;
            for (int c = 0; c < 3; ++c)
                acc[c] += wk * (P[c] * p[0] + P[4 + c] * p[1] + P[8 + c] * p[2] + P[12 + c]);
        }
        for (int c = 0; c < 3; ++c)
            out[3 * v + c] = acc[c] / sum;
    }
    free(world);
    free(pal);
}

#ifdef HAVE_ASSIMP_HEADERS

/* Reference 2: the aiScene skinned in double, independently of mblend's reader. */

static void ai_to_col(const struct aiMatrix4x4 *a, double m[16])
{
    const ai_real r[16] = {a->a1, a->a2, a->a3, a->a4, a->b1, a->b2, a->b3, a->b4,
                           a->c1, a->c2, a->c3, a->c4, a->d1, a->d2, a->d3, a->d4};
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            m[col * 4 + row] = r[row * 4 + col];
}

/* Key index and fraction at time t (ticks) among n keys of the given stride, clamped. */
static void key_at(const double *times, size_t stride, unsigned n, double t, unsigned *i, double *u)
{
#define KT(k) (*(const double *)((const char *)times + (size_t)(k) * stride))
    *i = 0;
    *u = 0;
    if (n == 1 || t <= KT(0))
        return;
    if (t >= KT(n - 1)) {
        *i = n - 1;
        return;
    }
    while (KT(*i + 1) <= t)
        ++*i;
    *u = (t - KT(*i)) / (KT(*i + 1) - KT(*i));
#undef KT
}

static void slerp_d(const double a[4], const double b0[4], double u, double out[4])
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]}, d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        d = -d;
        for (int k = 0; k < 4; ++k)
            b[k] = -b[k];
    }
    double ka = 1 - u, kb = u;
    if (d < 0.9999999) {
        double th = acos(d);
        ka = sin((1 - u) * th) / sin(th);
        kb = sin(u * th) / sin(th);
    }
    double n = 0;
    for (int k = 0; k < 4; ++k) {
        out[k] = ka * a[k] + kb * b[k];
        n += out[k] * out[k];
    }
    for (int k = 0; k < 4; ++k)
        out[k] /= sqrt(n);
}

static void lerp_key(const struct aiVectorKey *keys, unsigned n, double t, double out[3])
{
    unsigned i;
    double u;
    key_at(&keys[0].mTime, sizeof keys[0], n, t, &i, &u);
    const struct aiVector3D *a = &keys[i].mValue, *b = &keys[u > 0 ? i + 1 : i].mValue;
    out[0] = a->x + u * (b->x - a->x);
    out[1] = a->y + u * (b->y - a->y);
    out[2] = a->z + u * (b->z - a->z);
}

/* A node's local matrix at time t (ticks): its channel's keys (translation, rotation,
 * scale) where it has one, else its static transform. */
static void ai_local(const struct aiAnimation *an, const struct aiNode *n, double t, double m[16])
{
    ai_to_col(&n->mTransformation, m);
    for (unsigned c = 0; an && c < an->mNumChannels; ++c) {
        const struct aiNodeAnim *ch = an->mChannels[c];
        if (strcmp(ch->mNodeName.data, n->mName.data) != 0)
            continue;
        struct aiVector3D s0, p0;
        struct aiQuaternion q0;
        aiDecomposeMatrix(&n->mTransformation, &s0, &q0, &p0);
        double T[3] = {p0.x, p0.y, p0.z}, Q[4] = {q0.x, q0.y, q0.z, q0.w}, S[3] = {s0.x, s0.y, s0.z};
        if (ch->mNumPositionKeys)
            lerp_key(ch->mPositionKeys, ch->mNumPositionKeys, t, T);
        if (ch->mNumScalingKeys)
            lerp_key(ch->mScalingKeys, ch->mNumScalingKeys, t, S);
        if (ch->mNumRotationKeys) {
            unsigned i;
            double u;
            key_at(&ch->mRotationKeys[0].mTime, sizeof ch->mRotationKeys[0], ch->mNumRotationKeys, t, &i, &u);
            const struct aiQuaternion *a = &ch->mRotationKeys[i].mValue;
            const struct aiQuaternion *b = &ch->mRotationKeys[u > 0 ? i + 1 : i].mValue;
            double qa[4] = {a->x, a->y, a->z, a->w}, qb[4] = {b->x, b->y, b->z, b->w};
            slerp_d(qa, qb, u, Q);
        }
        double r[3][3];
        mb_test_quat_rot3(Q, r);
        memset(m, 0, 16 * sizeof *m);
        for (int row = 0; row < 3; ++row)
            for (int col = 0; col < 3; ++col)
                m[col * 4 + row] = r[row][col] * S[col];
        m[12] = T[0];
        m[13] = T[1];
        m[14] = T[2];
        m[15] = 1;
        return;
    }
}

/* World matrices of every node, pre-order (mblend's node order), at time t (ticks). */
typedef struct ai_nodes {
    int n;
    const struct aiNode *node[512];
    double world[512][16];
} ai_nodes;

static void ai_walk(ai_nodes *a, const struct aiAnimation *an, const struct aiNode *n,
                    const double *parent, double t)
{
    cr_assert_lt(a->n, 512);
    int me = a->n++;
    double l[16];
    ai_local(an, n, t, l);
    a->node[me] = n;
    if (parent)
        mul4d(parent, l, a->world[me]);
    else
        memcpy(a->world[me], l, sizeof l);
    for (unsigned c = 0; c < n->mNumChildren; ++c)
        ai_walk(a, an, n->mChildren[c], a->world[me], t);
}

static const double *ai_world_of(const ai_nodes *a, const struct aiString *name)
{
    for (int i = 0; i < a->n; ++i)
        if (strcmp(a->node[i]->mName.data, name->data) == 0)
            return a->world[i];
    cr_assert_fail("no node named %s", name->data);
    return NULL;
}

/* The aiScene's meshes skinned at time t (ticks), concatenated in mblend's order (nodes
 * pre-order, each node's meshes in turn); per vertex the 4 largest weights, renormalised. */
static void ai_reference(const struct aiScene *sc, const struct aiAnimation *an, double t,
                         double *out, int nv_total)
{
    ai_nodes *a = malloc(sizeof *a);
    cr_assert_not_null(a);
    a->n = 0;
    ai_walk(a, an, sc->mRootNode, NULL, t);
    int base = 0;
    for (int i = 0; i < a->n; ++i)
        for (unsigned k = 0; k < a->node[i]->mNumMeshes; ++k) {
            const struct aiMesh *am = sc->mMeshes[a->node[i]->mMeshes[k]];
            int nv = (int)am->mNumVertices;
            cr_assert_leq(base + nv, nv_total);
            cr_assert_gt(am->mNumBones, 0u, "every mesh of these files is skinned");
            /* per vertex its (bone, weight) pairs, the largest 4 kept */
            int(*bone)[8] = calloc((size_t)nv, sizeof *bone);
            float(*wt)[8] = calloc((size_t)nv, sizeof *wt);
            int *cnt = calloc((size_t)nv, sizeof *cnt);
            cr_assert(bone && wt && cnt);
            for (unsigned b = 0; b < am->mNumBones; ++b)
                for (unsigned q = 0; q < am->mBones[b]->mNumWeights; ++q) {
                    const struct aiVertexWeight *vw = &am->mBones[b]->mWeights[q];
                    int v = (int)vw->mVertexId;
                    cr_assert_lt(cnt[v], 8);
                    bone[v][cnt[v]] = (int)b;
                    wt[v][cnt[v]++] = vw->mWeight;
                }
            for (int v = 0; v < nv; ++v) {
                for (int x = 0; x < cnt[v]; ++x) /* selection sort, largest first */
                    for (int y = x + 1; y < cnt[v]; ++y)
                        if (wt[v][y] > wt[v][x]) {
                            float tw = wt[v][x];
                            int tb = bone[v][x];
                            wt[v][x] = wt[v][y];
                            bone[v][x] = bone[v][y];
                            wt[v][y] = tw;
                            bone[v][y] = tb;
                        }
                int keep = cnt[v] < 4 ? cnt[v] : 4;
                double sum = 0, acc[3] = {0, 0, 0};
                const struct aiVector3D *p = &am->mVertices[v];
                for (int x = 0; x < keep; ++x) {
                    const struct aiBone *bn = am->mBones[bone[v][x]];
                    double off[16], P[16];
                    ai_to_col(&bn->mOffsetMatrix, off);
                    mul4d(ai_world_of(a, &bn->mName), off, P);
                    sum += wt[v][x];
                    for (int c = 0; c < 3; ++c)
                        acc[c] += wt[v][x] * (P[c] * p->x + P[4 + c] * p->y + P[8 + c] * p->z + P[12 + c]);
                }
                cr_assert_gt(sum, 0.0);
                for (int c = 0; c < 3; ++c)
                    out[3 * (base + v) + c] = acc[c] / sum;
            }
            free(bone);
            free(wt);
            free(cnt);
            base += nv;
        }
    cr_assert_eq(base, nv_total);
    free(a);
}

#endif /* HAVE_ASSIMP_HEADERS */

/* Every clip of a file at 6 times: mblend's LBS against reference 1 (within 1e-5 of the
 * mesh size) and reference 2 (within 1e-4: assimp's own floats); the bind pose
 * reproduces the mesh under LBS and DQS. */
static void skinning_case(const char *rel)
{
    mb_scene *s = load(rel);
    const mb_skeleton *sk = mb_scene_skeleton(s);
    const mb_mesh *m = mb_scene_mesh(s);
    int nj = mb_skeleton_joint_count(sk), nv = mb_mesh_vertex_count(m);
    double size = mb_mesh_get_info(m).size;
    float *op = malloc((size_t)nv * 3 * sizeof(float));
    double *ref = malloc((size_t)nv * 3 * sizeof(double));
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    cr_assert(op && ref && pose);
    for (int meth = 0; meth < 2; ++meth) {
        mb_test_skin_pose(sk, m, mb_mesh_bind_pose(m), (mb_skin_method)meth, op, NULL);
        for (int v = 0; v < nv; ++v) {
            const float *p = &mb_mesh_positions(m)[3 * v];
            double q[3] = {p[0], p[1], p[2]};
            cr_assert(dist3d(&op[3 * v], q) <= 1e-5 * size, "%s bind pose %s: vertex %d", rel,
                      meth ? "DQS" : "LBS", v);
        }
    }
#ifdef HAVE_ASSIMP_HEADERS
    cr_assert(aiImportFile && aiReleaseImport && aiDecomposeMatrix,
              "assimp is not linked into test_scene_formats (tests/CMakeLists.txt links it)");
    /* the post-processing mblend asks for, so vertex i is vertex i */
    const struct aiScene *sc = aiImportFile(mb_shared_path(rel),
                                            aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                                aiProcess_GenSmoothNormals | aiProcess_SortByPType |
                                                aiProcess_ValidateDataStructure);
    cr_assert_not_null(sc);
    cr_assert_eq((int)sc->mNumAnimations, mb_scene_clip_count(s));
#endif
    for (int c = 0; c < mb_scene_clip_count(s); ++c) {
        const mb_clip *clip = mb_scene_clip(s, c);
        double dur = (mb_clip_frame_count(clip) - 1) * mb_clip_frame_time(clip);
        double times[6] = {0.0, 0.123 * dur, 0.25 * dur, 0.5 * dur + 0.01, 0.777 * dur, dur};
        double worst1 = 0, worst2 = 0, reach = size; /* reach: the largest coordinate */
#ifdef HAVE_ASSIMP_HEADERS
        const struct aiAnimation *an = sc->mAnimations[c];
        cr_assert_str_eq(an->mName.data, mb_scene_clip_name(s, c));
        double tps = an->mTicksPerSecond > 0 ? an->mTicksPerSecond : 25.0;
        cr_assert(fabs(an->mDuration / tps - dur) < 1e-6 * (dur + 1), "%s: %g s, assimp %g s",
                  mb_scene_clip_name(s, c), dur, an->mDuration / tps);
#endif
        for (int ti = 0; ti < 6; ++ti) {
            double t = times[ti] > dur ? dur : times[ti];
            cr_assert_eq(mb_clip_sample(sk, clip, t, MB_WRAP_CLAMP, (mb_pose){pose, nj}), MB_OK);
            mb_test_skin_pose(sk, m, pose, MB_SKIN_LBS, op, NULL);
            scene_reference(sk, m, pose, ref);
            for (int v = 0; v < nv; ++v) {
                worst1 = fmax(worst1, dist3d(&op[3 * v], &ref[3 * v]));
                for (int k = 0; k < 3; ++k)
                    reach = fmax(reach, fabs(ref[3 * v + k]));
            }
#ifdef HAVE_ASSIMP_HEADERS
            ai_reference(sc, an, t * tps, ref, nv);
            for (int v = 0; v < nv; ++v)
                worst2 = fmax(worst2, dist3d(&op[3 * v], &ref[3 * v]));
#endif
        }
        /* float rounding grows with the coordinates, not the mesh size (the FBX mesh sits
         * thousands of units from the origin) */
        printf("%s#%s: worst |LBS - scene reference| %.3g, |LBS - aiScene reference| %.3g "
               "(mesh size %.4g, coordinates up to %.4g)\n", rel, mb_scene_clip_name(s, c), worst1,
               worst2, size, reach);
        cr_assert(worst1 <= 1e-6 * reach, "%s#%s: off the scene reference by %g (coordinates "
                  "up to %g)", rel, mb_scene_clip_name(s, c), worst1, reach);
        cr_assert(worst2 <= 1e-5 * reach, "%s#%s: off the aiScene reference by %g (coordinates "
                  "up to %g)", rel, mb_scene_clip_name(s, c), worst2, reach);
    }
#ifdef HAVE_ASSIMP_HEADERS
    aiReleaseImport(sc);
#endif
    free(op);
    free(ref);
    free(pose);
    mb_scene_destroy(s);
}

Test(scene_formats, bcn_epileptic_x_skins_like_the_references) { skinning_case(k_cases[0].rel); }
Test(scene_formats, testwuson_x_skins_like_the_references) { skinning_case(k_cases[1].rel); }
Test(scene_formats, animation_with_skeleton_fbx_skins_like_the_references) { skinning_case(k_cases[2].rel); }
