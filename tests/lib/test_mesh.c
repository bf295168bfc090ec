/* Meshes, skeletons and clips through assimp, checked against the assimp data itself:
 * - skinning Fox and CesiumMan with their own clips at several times matches a
 *   straightforward double-precision skinning of the aiScene (node TRS keys interpolated
 *   here, full weights, world(bone) * offset) within 1e-4 of the mesh size;
 * - the bind pose reproduces the mesh; RiggedSimple twisted 150 degrees collapses under LBS
 *   and keeps its cross-section under DQS;
 * - FBX (ASCII) and Collada written by assimp's exporter from the glTF samples pass the same
 *   reference check and play the glTF's clip;
 * - clip mapping by joint name, OBJ export, and binary glTF export read back through assimp.
 * The files come from ../shared/data/mesh (never copied into the project). */
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
#include <assimp/cexport.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif
#endif

#ifdef HAVE_ASSIMP_HEADERS
/* libmblend links assimp only when built with MB_WITH_ASSIMP (and a static libmblend brings
 * it along); weak references let this test link either way. Without assimp the scene
 * tests skip, saying so; with a shared libmblend the reference needs assimp linked here. */
#pragma weak aiImportFile
#pragma weak aiReleaseImport
#pragma weak aiDecomposeMatrix
#pragma weak aiExportScene
#pragma weak aiGetErrorString
#endif

#define PI 3.14159265358979323846

static void need_assimp(void) { mb_test_need_assimp(); }

static char *tmp_path(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/mb_test_mesh_%ld_%s", MB_BINARY_DIR, (long)getpid(), name);
    return buf;
}

static mb_scene *load_path(const char *path)
{
    need_assimp();
    mb_scene *s = NULL;
    mb_error err;
    char msg[600];
    mb_status st = mb_scene_read_file(path, NULL, &s, &err);
    cr_assert_eq(st, MB_OK, "%s", mb_error_format(&err, msg, sizeof msg));
    return s;
}

static mb_scene *load(const char *rel) { return load_path(mb_shared_path(rel)); }

/* Skins mesh m with the clip sampled at t (NULL clip: the mesh's bind pose). */
static void skin_at(const mb_skeleton *sk, const mb_mesh *m, const mb_clip *c, double t,
                    mb_skin_method method, float *outp, float *outn)
{
    int nj = mb_skeleton_joint_count(sk);
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    cr_assert_not_null(pose);
    if (c)
        cr_assert_eq(mb_clip_sample(sk, c, t, MB_WRAP_CLAMP, (mb_pose){pose, nj}), MB_OK);
    else
        memcpy(pose, mb_mesh_bind_pose(m), (size_t)nj * sizeof *pose);
    mb_test_skin_pose(sk, m, pose, method, outp, outn);
    free(pose);
}

static double dist3f(const float *a, const double *b)
{
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

/* ---------- loading ---------- */

Test(scene, fox_has_its_skeleton_mesh_and_clips)
{
    mb_scene *s = load("mesh/Fox.glb");
    const mb_skeleton *sk = mb_scene_skeleton(s);
    const mb_mesh *m = mb_scene_mesh(s);
    cr_assert_not_null(m);
    mb_scene_info si = mb_scene_get_info(s);
    mb_mesh_info mi = mb_mesh_get_info(m);
    cr_log_info("Fox: %d nodes, %d vertices, %d triangles, %d palette entries, max influences %d, "
                "cut %d, clips %d", mb_skeleton_joint_count(sk), mi.vertex_count, mi.triangle_count,
                mi.skin_joint_count, si.max_influences, si.cut_vertices, mb_scene_clip_count(s));
    cr_assert_eq(mi.triangle_count, 576);
    cr_assert_eq(mi.skin_joint_count, 24);
    cr_assert_eq(si.meshes, 1);
    cr_assert_eq(si.skinned_meshes, 1);
    cr_assert_eq(si.scaled_nodes, 0);
    cr_assert_eq(si.resampled_clips, 0);
    cr_assert_geq(mb_skeleton_find(sk, "b_Hip_01"), 0);
    cr_assert_eq(mb_scene_clip_count(s), 3);
    const char *names[3] = {"Survey", "Walk", "Run"};
    double durations[3] = {3.41667, 0.708333, 1.15833};
    for (int i = 0; i < 3; ++i) {
        int k = mb_scene_find_clip(s, names[i]);
        cr_assert_geq(k, 0, "clip %s", names[i]);
        const mb_clip *c = mb_scene_clip(s, k);
        double span = (mb_clip_frame_count(c) - 1) * mb_clip_frame_time(c);
        cr_assert(fabs(span - durations[i]) < 1e-4, "%s spans %g s", names[i], span);
        /* keyed at 24 fps; Run skips from 0.667 s to 0.867 s (20.8 frames), so its keys lie
         * on a 120 fps grid only */
        double rate = i == 2 ? 120.0 : 24.0;
        cr_assert(fabs(mb_clip_frame_time(c) - 1.0 / rate) < 1e-6, "%s: keys at %g fps, got %g",
                  names[i], rate, 1.0 / mb_clip_frame_time(c));
        cr_assert_eq(mb_clip_joint_count(c), mb_skeleton_joint_count(sk));
    }
    cr_assert_eq(mb_scene_find_clip(s, "Fly"), -1);
    cr_assert_null(mb_scene_clip(s, 3));
    cr_assert_null(mb_scene_clip_name(s, -1));
    mb_scene_destroy(s);
    mb_scene_destroy(NULL);
}

Test(scene, bad_input_is_reported)
{
    need_assimp();
    mb_scene *s = (mb_scene *)1;
    mb_error err;
    char msg[600];
    const char junk[] = "this is not a mesh file at all";
    cr_assert_eq(mb_scene_read_mem(junk, sizeof junk, "junk.glb", NULL, &s, &err), MB_PARSE);
    cr_assert_null(s);
    cr_log_info("%s", mb_error_format(&err, msg, sizeof msg));
    cr_assert_str_eq(err.source, "junk.glb");
    cr_assert_eq(mb_scene_read_file("/nonexistent/x.glb", NULL, &s, &err), MB_IO);
    cr_assert_eq(mb_scene_read_file("/tmp", NULL, &s, &err), MB_IO);
    cr_assert_eq(mb_scene_read_mem(NULL, 3, "x", NULL, &s, &err), MB_INVALID_ARG);
    mb_scene_read_desc d = {-1.0, {0}};
    cr_assert_eq(mb_scene_read_file(mb_shared_path("mesh/Fox.glb"), &d, &s, &err), MB_INVALID_ARG);
    /* memory and file readers agree */
    FILE *f = fopen(mb_shared_path("mesh/RiggedSimple.glb"), "rb");
    cr_assert_not_null(f);
    char *buf = malloc(1 << 20);
    size_t n = fread(buf, 1, 1 << 20, f);
    fclose(f);
    cr_assert_eq(mb_scene_read_mem(buf, n, "RiggedSimple.glb", NULL, &s, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
    cr_assert_eq(mb_mesh_vertex_count(mb_scene_mesh(s)), 160);
    cr_assert_eq(mb_scene_clip_count(s), 1);
    cr_assert_str_eq(mb_scene_clip_name(s, 0), "clip0");
    mb_scene_destroy(s);
    /* a sample rate resamples every clip */
    mb_scene_read_desc r30 = {30.0, {0}};
    cr_assert_eq(mb_scene_read_mem(buf, n, "RiggedSimple.glb", &r30, &s, &err), MB_OK);
    cr_assert_float_eq(mb_clip_frame_time(mb_scene_clip(s, 0)), 1.0 / 30.0, 1e-9);
    mb_scene_destroy(s);
    free(buf);
}

/* ---------- bind pose ---------- */

static void bind_pose_case(const char *rel)
{
    mb_scene *s = load(rel);
    const mb_skeleton *sk = mb_scene_skeleton(s);
    const mb_mesh *m = mb_scene_mesh(s);
    int nv = mb_mesh_vertex_count(m);
    float *op = malloc((size_t)nv * 3 * sizeof(float));
    double size = mb_mesh_get_info(m).size;
    for (int meth = 0; meth < 2; ++meth) {
        skin_at(sk, m, NULL, 0, (mb_skin_method)meth, op, NULL);
        double worst = 0;
        for (int v = 0; v < nv; ++v) {
            const float *p = &mb_mesh_positions(m)[3 * v];
            double q[3] = {p[0], p[1], p[2]};
            worst = fmax(worst, dist3f(&op[3 * v], q));
        }
        cr_log_info("%s bind pose %s: worst %.3g (size %.4g)", rel, meth ? "DQS" : "LBS", worst,
                    size);
        cr_assert(worst <= 1e-5 * size, "%s %s: bind pose off by %g (size %g)", rel,
                  meth ? "dqs" : "lbs", worst, size);
    }
    free(op);
    mb_scene_destroy(s);
}

Test(scene, bind_pose_reproduces_fox) { bind_pose_case("mesh/Fox.glb"); }
Test(scene, bind_pose_reproduces_cesium_man) { bind_pose_case("mesh/CesiumMan.glb"); }
Test(scene, bind_pose_reproduces_rigged_simple) { bind_pose_case("mesh/RiggedSimple.glb"); }

/* ---------- cross-check against a double-precision skinning of the aiScene ---------- */

#ifdef HAVE_ASSIMP_HEADERS

static void quat_slerp(const double a[4], const double b0[4], double u, double out[4])
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0) {
        dot = -dot;
        for (int k = 0; k < 4; ++k)
            b[k] = -b[k];
    }
    double ka = 1 - u, kb = u;
    if (dot < 0.9999999) {
        double th = acos(dot);
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

/* Index and fraction of time t among n keys (clamped at the ends). */
static void key_at(const double *times, size_t stride, unsigned n, double t, unsigned *i, double *u)
{
#define KT(k) (*(const double *)((const char *)times + (size_t)(k) * stride))
    if (n == 1 || t <= KT(0)) {
        *i = 0;
        *u = 0;
        return;
    }
    if (t >= KT(n - 1)) {
        *i = n - 1;
        *u = 0;
        return;
    }
    unsigned k = 0;
    while (KT(k + 1) <= t)
        ++k;
    *i = k;
    *u = (t - KT(k)) / (KT(k + 1) - KT(k));
#undef KT
}

/* column-major TRS in double */
static void trs(const double t[3], const double q[4], const double s[3], double m[16])
{
    double r[3][3];
    mb_test_quat_rot3(q, r);
    memset(m, 0, 16 * sizeof *m);
    for (int rr = 0; rr < 3; ++rr)
        for (int c = 0; c < 3; ++c)
            m[c * 4 + rr] = r[rr][c] * s[c];
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

static void ai_to_col(const struct aiMatrix4x4 *a, double m[16])
{
    const ai_real r[16] = {a->a1, a->a2, a->a3, a->a4, a->b1, a->b2, a->b3, a->b4,
                           a->c1, a->c2, a->c3, a->c4, a->d1, a->d2, a->d3, a->d4};
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 4; ++col)
            m[col * 4 + row] = r[row * 4 + col];
}

static void mul(const double a[16], const double b[16], double o[16])
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            double s = 0;
            for (int k = 0; k < 4; ++k)
                s += a[k * 4 + r] * b[c * 4 + k];
            o[c * 4 + r] = s;
        }
}

typedef struct ref_ctx {
    const struct aiScene *sc;
    const struct aiAnimation *an;
    double t_ticks;
} ref_ctx;

/* World matrix of the node named name (first match, depth first), in double. */
static int ref_world(const ref_ctx *r, const struct aiNode *n, const double parent[16],
                     const struct aiString *name, double out[16])
{
    double local[16], w[16];
    ai_to_col(&n->mTransformation, local);
    for (unsigned c = 0; r->an && c < r->an->mNumChannels; ++c) {
        const struct aiNodeAnim *ch = r->an->mChannels[c];
        if (strcmp(ch->mNodeName.data, n->mName.data) != 0)
            continue;
        struct aiVector3D s0, p0;
        struct aiQuaternion q0;
        aiDecomposeMatrix(&n->mTransformation, &s0, &q0, &p0);
        double T[3] = {p0.x, p0.y, p0.z}, Q[4] = {q0.x, q0.y, q0.z, q0.w}, S[3] = {s0.x, s0.y, s0.z};
        unsigned i;
        double u;
        if (ch->mNumPositionKeys) {
            key_at(&ch->mPositionKeys[0].mTime, sizeof ch->mPositionKeys[0], ch->mNumPositionKeys,
                   r->t_ticks, &i, &u);
            const struct aiVector3D *a = &ch->mPositionKeys[i].mValue;
            const struct aiVector3D *b = &ch->mPositionKeys[u > 0 ? i + 1 : i].mValue;
            T[0] = a->x + u * (b->x - a->x);
            T[1] = a->y + u * (b->y - a->y);
            T[2] = a->z + u * (b->z - a->z);
        }
        if (ch->mNumRotationKeys) {
            key_at(&ch->mRotationKeys[0].mTime, sizeof ch->mRotationKeys[0], ch->mNumRotationKeys,
                   r->t_ticks, &i, &u);
            const struct aiQuaternion *a = &ch->mRotationKeys[i].mValue;
            const struct aiQuaternion *b = &ch->mRotationKeys[u > 0 ? i + 1 : i].mValue;
            double qa[4] = {a->x, a->y, a->z, a->w}, qb[4] = {b->x, b->y, b->z, b->w};
            quat_slerp(qa, qb, u, Q);
        }
        if (ch->mNumScalingKeys) {
            key_at(&ch->mScalingKeys[0].mTime, sizeof ch->mScalingKeys[0], ch->mNumScalingKeys,
                   r->t_ticks, &i, &u);
            const struct aiVector3D *a = &ch->mScalingKeys[i].mValue;
            const struct aiVector3D *b = &ch->mScalingKeys[u > 0 ? i + 1 : i].mValue;
            S[0] = a->x + u * (b->x - a->x);
            S[1] = a->y + u * (b->y - a->y);
            S[2] = a->z + u * (b->z - a->z);
        }
        trs(T, Q, S, local);
        break;
    }
    if (parent)
        mul(parent, local, w);
    else
        memcpy(w, local, sizeof w);
    if (n->mName.length == name->length && memcmp(n->mName.data, name->data, name->length) == 0) {
        memcpy(out, w, sizeof w);
        return 1;
    }
    for (unsigned c = 0; c < n->mNumChildren; ++c)
        if (ref_world(r, n->mChildren[c], w, name, out))
            return 1;
    return 0;
}

/* rel names the file in messages; path is where it is. */
static void cross_check_path(const char *path, const char *rel, const char *clip_name)
{
    mb_scene *s = load_path(path);
    const mb_skeleton *sk = mb_scene_skeleton(s);
    const mb_mesh *m = mb_scene_mesh(s);
    int ci = clip_name ? mb_scene_find_clip(s, clip_name) : 0;
    cr_assert_geq(ci, 0);
    const mb_clip *clip = mb_scene_clip(s, ci);
    cr_assert(aiImportFile != NULL && aiReleaseImport != NULL && aiDecomposeMatrix != NULL,
              "assimp is not linked into test_mesh (a shared libmblend does not bring it): link "
              "PkgConfig::ASSIMP to the test for the reference skinning");
    /* the same post-processing as mblend, so vertex i is vertex i */
    const struct aiScene *sc = aiImportFile(path,
                                            aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                                aiProcess_GenSmoothNormals | aiProcess_SortByPType |
                                                aiProcess_ValidateDataStructure);
    cr_assert_not_null(sc);
    cr_assert_eq(sc->mNumMeshes, 1u);
    const struct aiMesh *am = sc->mMeshes[0];
    int nv = (int)am->mNumVertices;
    cr_assert_eq(mb_mesh_vertex_count(m), nv);
    const struct aiAnimation *an = NULL;
    for (unsigned a = 0; a < sc->mNumAnimations; ++a)
        if (!clip_name || strcmp(sc->mAnimations[a]->mName.data, clip_name) == 0) {
            an = sc->mAnimations[a];
            break;
        }
    cr_assert_not_null(an);
    double tps = an->mTicksPerSecond > 0 ? an->mTicksPerSecond : 25.0;
    double dur = an->mDuration / tps;
    double size = mb_mesh_get_info(m).size;
    float *op = malloc((size_t)nv * 3 * sizeof(float));
    double *ref = malloc((size_t)nv * 3 * sizeof(double));
    double times[6] = {0.0, 0.123 * dur, 0.25 * dur, 0.5 * dur + 0.01, 0.777 * dur, dur};
    double worst_all = 0;
    for (int ti = 0; ti < 6; ++ti) {
        ref_ctx r = {sc, an, times[ti] * tps};
        memset(ref, 0, (size_t)nv * 3 * sizeof(double));
        for (unsigned b = 0; b < am->mNumBones; ++b) {
            const struct aiBone *bone = am->mBones[b];
            double w[16], off[16], pal[16];
            cr_assert(ref_world(&r, sc->mRootNode, NULL, &bone->mName, w));
            ai_to_col(&bone->mOffsetMatrix, off);
            mul(w, off, pal);
            for (unsigned k = 0; k < bone->mNumWeights; ++k) {
                unsigned v = bone->mWeights[k].mVertexId;
                double wt = bone->mWeights[k].mWeight;
                const struct aiVector3D *p = &am->mVertices[v];
                for (int c = 0; c < 3; ++c)
                    ref[3 * v + c] += wt * (pal[c] * p->x + pal[4 + c] * p->y + pal[8 + c] * p->z + pal[12 + c]);
            }
        }
        for (int meth = 0; meth < 2; ++meth) {
            skin_at(sk, m, clip, times[ti], (mb_skin_method)meth, op, NULL);
            if (meth == 1)
                continue; /* DQS is a different method: compared with LBS below */
            double worst = 0;
            for (int v = 0; v < nv; ++v)
                worst = fmax(worst, dist3f(&op[3 * v], &ref[3 * v]));
            worst_all = fmax(worst_all, worst);
            cr_assert(worst <= 1e-4 * size, "%s %s t=%.4f: LBS off the reference by %g (size %g)",
                      rel, an->mName.data, times[ti], worst, size);
        }
    }
    cr_log_info("cross-check %s %s: worst |mblend LBS - double reference| = %.3g = %.3g of the "
                "mesh size %.4g over 6 times", rel, clip_name ? clip_name : "(first)", worst_all,
                worst_all / size, size);
    printf("cross-check %s %s: worst %.3g = %.3g x size (%.4g)\n", rel,
           clip_name ? clip_name : "(first)", worst_all, worst_all / size, size);
    free(op);
    free(ref);
    aiReleaseImport(sc);
    mb_scene_destroy(s);
}

static void cross_check(const char *rel, const char *clip_name)
{
    cross_check_path(mb_shared_path(rel), rel, clip_name);
}

Test(crosscheck, fox_walk) { cross_check("mesh/Fox.glb", "Walk"); }
Test(crosscheck, fox_run) { cross_check("mesh/Fox.glb", "Run"); }
Test(crosscheck, fox_survey) { cross_check("mesh/Fox.glb", "Survey"); }
Test(crosscheck, cesium_man_walk) { cross_check("mesh/CesiumMan.glb", NULL); }
Test(crosscheck, rigged_simple) { cross_check("mesh/RiggedSimple.glb", NULL); }

/* FBX and Collada: ../shared has no such files, so assimp's own exporter writes the glTF
 * samples as ASCII FBX and as Collada (its binary FBX export is unreadable by its own
 * importer, "block offset is out of range"; its Collada export fails on Fox.glb, so Collada
 * uses RiggedSimple). The exported file then goes through assimp's FBX or Collada importer
 * (Euler curves, FBX node properties, Collada's controllers) and mblend like any such file,
 * and must
 * 1. match the double-precision reference skinning of its own aiScene (as the glTF files);
 * 2. play the glTF's clip: skinned at every key of the glTF clip, the vertices agree with
 *    the glTF's within 1e-5 of the mesh size. The exporters write key times in milliseconds
 *    as if they were seconds (Fox's Walk lasts 708 s instead of 0.708 s), so the export is
 *    sampled at the glTF time scaled by the ratio of the two key spans. */
static void export_round_trip(const char *rel, const char *format, const char *ext,
                              const char *clip_name)
{
    need_assimp();
    cr_assert(aiExportScene != NULL, "assimp's exporter is not linked into test_mesh");
    const char *src = mb_shared_path(rel);
    const struct aiScene *sc = aiImportFile(src, 0);
    cr_assert_not_null(sc);
    char out[512], label[256];
    snprintf(out, sizeof out, "%s", tmp_path(ext));
    snprintf(label, sizeof label, "%s as %s", rel, format);
    cr_assert_eq(aiExportScene(sc, format, out, 0), aiReturn_SUCCESS, "%s", aiGetErrorString());
    aiReleaseImport(sc);

    cross_check_path(out, label, clip_name);

    mb_scene *a = load_path(src), *b = load_path(out);
    unlink(out);
    const mb_mesh *ma = mb_scene_mesh(a), *mbm = mb_scene_mesh(b);
    int nv = mb_mesh_vertex_count(ma);
    cr_assert_eq(mb_mesh_vertex_count(mbm), nv);
    /* every node of the glTF's skeleton is in the export's (which may hold more: the glTF
     * reader folds a scene root that only carries the skinned mesh, see gltf_check.c, and
     * the exporter writes assimp's own scene with it) */
    for (int j = 0; j < mb_skeleton_joint_count(mb_scene_skeleton(a)); ++j)
        cr_assert_geq(mb_skeleton_find(mb_scene_skeleton(b), mb_skeleton_name(mb_scene_skeleton(a), j)), 0,
                      "%s: no node '%s'", label, mb_skeleton_name(mb_scene_skeleton(a), j));
    int cai = clip_name ? mb_scene_find_clip(a, clip_name) : 0;
    int cbi = clip_name ? mb_scene_find_clip(b, clip_name) : 0;
    cr_assert(cai >= 0 && cbi >= 0 && cbi < mb_scene_clip_count(b));
    const mb_clip *ca = mb_scene_clip(a, cai), *cb = mb_scene_clip(b, cbi);
    double span_a = (mb_clip_frame_count(ca) - 1) * mb_clip_frame_time(ca);
    double span_b = (mb_clip_frame_count(cb) - 1) * mb_clip_frame_time(cb);
    double scale = span_b / span_a, size = mb_mesh_get_info(ma).size, worst = 0;
    float *pa = malloc((size_t)nv * 3 * sizeof(float));
    float *pb = malloc((size_t)nv * 3 * sizeof(float));
    double *pad = malloc((size_t)nv * 3 * sizeof(double));
    for (int k = 0; k < mb_clip_frame_count(ca); ++k) {
        double t = k * mb_clip_frame_time(ca);
        skin_at(mb_scene_skeleton(a), ma, ca, t, MB_SKIN_LBS, pa, NULL);
        skin_at(mb_scene_skeleton(b), mbm, cb, t * scale, MB_SKIN_LBS, pb, NULL);
        for (int i = 0; i < 3 * nv; ++i)
            pad[i] = pa[i];
        for (int v = 0; v < nv; ++v)
            worst = fmax(worst, dist3f(&pb[3 * v], &pad[3 * v]));
    }
    printf("%s vs the original at its %d keys: worst %.3g = %.3g x size\n", label,
           mb_clip_frame_count(ca), worst, worst / size);
    cr_assert(worst <= 1e-5 * size, "%s off the original by %g (size %g)", label, worst, size);
    free(pa);
    free(pb);
    free(pad);
    mb_scene_destroy(a);
    mb_scene_destroy(b);
}

Test(crosscheck, fox_walk_through_ascii_fbx) { export_round_trip("mesh/Fox.glb", "fbxa", "fox.fbx", "Walk"); }
Test(crosscheck, rigged_simple_through_collada)
{
    export_round_trip("mesh/RiggedSimple.glb", "collada", "rigged.dae", NULL);
}

#endif /* HAVE_ASSIMP_HEADERS */

/* ---------- RiggedSimple twisted: the candy wrapper on the real cylinder ---------- */

Test(scene, rigged_simple_twist_lbs_collapses_dqs_keeps_area)
{
    mb_scene *s = load("mesh/RiggedSimple.glb");
    const mb_skeleton *sk = mb_scene_skeleton(s);
    const mb_mesh *m = mb_scene_mesh(s);
    int nj = mb_skeleton_joint_count(sk), nv = mb_mesh_vertex_count(m);
    int b0 = mb_skeleton_find(sk, "Bone"), b1 = mb_skeleton_find(sk, "Bone.001");
    cr_assert(b0 >= 0 && b1 >= 0);
    /* the cylinder's axis in bind space: from Bone's bind position to Bone.001's */
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    float(*world)[16] = malloc((size_t)nj * sizeof *world);
    memcpy(pose, mb_mesh_bind_pose(m), (size_t)nj * sizeof *pose);
    mb_pose pp = {pose, nj};
    cr_assert_eq(mb_fk(sk, &pp, world, nj), MB_OK);
    double axis[3], len = 0, origin[3];
    for (int c = 0; c < 3; ++c) {
        origin[c] = world[b0][12 + c];
        axis[c] = world[b1][12 + c] - world[b0][12 + c];
        len += axis[c] * axis[c];
    }
    len = sqrt(len);
    for (int c = 0; c < 3; ++c)
        axis[c] /= len;
    /* twist Bone.001 by 150 degrees about that axis, expressed in its local frame (its bind
     * world rotation maps local to world: local axis = R^T axis) */
    double la[3];
    for (int r = 0; r < 3; ++r)
        la[r] = world[b1][r * 4] * axis[0] + world[b1][r * 4 + 1] * axis[1] + world[b1][r * 4 + 2] * axis[2];
    double h = 0.5 * 150.0 * PI / 180.0;
    float tw[4] = {(float)(la[0] * sin(h)), (float)(la[1] * sin(h)), (float)(la[2] * sin(h)), (float)cos(h)};
    const float *q = pose[b1].rot;
    float nq[4] = {q[3] * tw[0] + q[0] * tw[3] + q[1] * tw[2] - q[2] * tw[1],
                   q[3] * tw[1] - q[0] * tw[2] + q[1] * tw[3] + q[2] * tw[0],
                   q[3] * tw[2] + q[0] * tw[1] - q[1] * tw[0] + q[2] * tw[3],
                   q[3] * tw[3] - q[0] * tw[0] - q[1] * tw[1] - q[2] * tw[2]};
    memcpy(pose[b1].rot, nq, sizeof nq);

    /* rings: vertices grouped by their coordinate along the axis (caps' centres excluded) */
    const float *bp = mb_mesh_positions(m);
    double *ax = malloc((size_t)nv * sizeof(double)), *ang = malloc((size_t)nv * sizeof(double));
    double rmax = 0, e1[3], e2[3];
    {
        double hlp[3] = {1, 0, 0};
        if (fabs(axis[0]) > 0.9) {
            hlp[0] = 0;
            hlp[1] = 1;
        }
        double d = hlp[0] * axis[0] + hlp[1] * axis[1] + hlp[2] * axis[2], n = 0;
        for (int c = 0; c < 3; ++c) {
            e1[c] = hlp[c] - d * axis[c];
            n += e1[c] * e1[c];
        }
        for (int c = 0; c < 3; ++c)
            e1[c] /= sqrt(n);
        e2[0] = axis[1] * e1[2] - axis[2] * e1[1];
        e2[1] = axis[2] * e1[0] - axis[0] * e1[2];
        e2[2] = axis[0] * e1[1] - axis[1] * e1[0];
    }
    double *rad = malloc((size_t)nv * sizeof(double));
    for (int v = 0; v < nv; ++v) {
        double d[3], a = 0, x = 0, y = 0;
        for (int c = 0; c < 3; ++c) {
            d[c] = bp[3 * v + c] - origin[c];
            a += d[c] * axis[c];
            x += d[c] * e1[c];
            y += d[c] * e2[c];
        }
        ax[v] = a;
        ang[v] = atan2(y, x);
        rad[v] = sqrt(x * x + y * y);
        rmax = fmax(rmax, rad[v]);
    }
    float *lp = malloc((size_t)nv * 3 * sizeof(float)), *dp = malloc((size_t)nv * 3 * sizeof(float));
    /* skin with the twisted pose: a one-frame clip is overkill, so skin_at's bind-pose path
     * is reused by swapping the pose in through a temporary clip */
    float *rot = malloc((size_t)nj * 4 * sizeof(float)), *tr = malloc((size_t)nj * 3 * sizeof(float));
    for (int j = 0; j < nj; ++j) {
        memcpy(&rot[4 * j], pose[j].rot, 4 * sizeof(float));
        memcpy(&tr[3 * j], pose[j].pos, 3 * sizeof(float));
    }
    mb_clip *clip;
    cr_assert_eq(mb_test_clip_full(sk, 1, 1.0, rot, tr, &clip), MB_OK);
    skin_at(sk, m, clip, 0, MB_SKIN_LBS, lp, NULL);
    skin_at(sk, m, clip, 0, MB_SKIN_DQS, dp, NULL);
    /* for each distinct axial level with a full ring, the ratio of polygon areas */
    double lbs_min = INFINITY, dqs_min = INFINITY, dqs_max = 0;
    int rings = 0;
    int *ring = malloc((size_t)nv * sizeof(int));
    unsigned char *done = calloc((size_t)nv, 1);
    for (int v0 = 0; v0 < nv; ++v0) {
        if (done[v0] || rad[v0] < 0.5 * rmax)
            continue;
        int n = 0;
        for (int v = 0; v < nv; ++v)
            if (!done[v] && rad[v] >= 0.5 * rmax && fabs(ax[v] - ax[v0]) < 1e-3 * len) {
                ring[n++] = v;
                done[v] = 1;
            }
        if (n < 6)
            continue;
        /* order by angle in the bind pose */
        for (int a = 1; a < n; ++a)
            for (int b = a; b > 0 && ang[ring[b]] < ang[ring[b - 1]]; --b) {
                int t = ring[b];
                ring[b] = ring[b - 1];
                ring[b - 1] = t;
            }
        double area[3];
        const float *src[3] = {bp, lp, dp};
        for (int k = 0; k < 3; ++k) {
            double A[3] = {0, 0, 0};
            for (int i = 0; i < n; ++i) {
                const float *p = &src[k][3 * ring[i]], *p2 = &src[k][3 * ring[(i + 1) % n]];
                A[0] += (double)p[1] * p2[2] - (double)p[2] * p2[1];
                A[1] += (double)p[2] * p2[0] - (double)p[0] * p2[2];
                A[2] += (double)p[0] * p2[1] - (double)p[1] * p2[0];
            }
            area[k] = 0.5 * sqrt(A[0] * A[0] + A[1] * A[1] + A[2] * A[2]);
        }
        ++rings;
        lbs_min = fmin(lbs_min, area[1] / area[0]);
        dqs_min = fmin(dqs_min, area[2] / area[0]);
        dqs_max = fmax(dqs_max, area[2] / area[0]);
    }
    cr_log_info("RiggedSimple, Bone.001 twisted 150 degrees: %d rings; cross-section area / bind: "
                "LBS min %.4f, DQS %.4f..%.4f", rings, lbs_min, dqs_min, dqs_max);
    printf("RiggedSimple twist 150 deg: %d rings, area ratio LBS min %.4f, DQS %.4f..%.4f\n", rings,
           lbs_min, dqs_min, dqs_max);
    cr_assert_geq(rings, 5);
    cr_assert(lbs_min < 0.5, "LBS should collapse the cross-section: %g", lbs_min);
    cr_assert(dqs_min > 0.95 && dqs_max < 1.05, "DQS keeps the area within 5%%: %g..%g", dqs_min,
              dqs_max);
    free(ring);
    free(done);
    free(rot);
    free(tr);
    mb_clip_destroy(clip);
    free(lp);
    free(dp);
    free(ax);
    free(ang);
    free(rad);
    free(pose);
    free(world);
    mb_scene_destroy(s);
}

/* ---------- clip mapping by joint name ---------- */

Test(map, fox_walk_onto_a_renamed_and_pruned_fox)
{
    mb_scene *s = load("mesh/Fox.glb");
    const mb_skeleton *fox = mb_scene_skeleton(s);
    const mb_clip *walk = mb_scene_clip(s, mb_scene_find_clip(s, "Walk"));
    int nj = mb_skeleton_joint_count(fox);
    /* the same hierarchy with the tail renamed: those joints are unmatched */
    mb_joint_desc *jd = calloc((size_t)nj, sizeof *jd);
    char (*names)[128] = calloc((size_t)nj, sizeof *names);
    int renamed = 0;
    for (int j = 0; j < nj; ++j) {
        const char *n = mb_skeleton_name(fox, j);
        if (strstr(n, "Tail")) {
            snprintf(names[j], sizeof names[j], "other_%s", n);
            ++renamed;
        } else {
            snprintf(names[j], sizeof names[j], "%s", n);
        }
        jd[j].name = names[j];
        jd[j].parent = mb_skeleton_parents(fox)[j];
        /* longer bones than the fox's: the mapped clip must keep these proportions */
        for (int k = 0; k < 3; ++k)
            jd[j].offset[k] = 1.5f * mb_skeleton_offset(fox, j)[k];
        const mb_channel *ch;
        jd[j].channel_count = mb_skeleton_channels(fox, j, &ch);
        memcpy(jd[j].channels, ch, (size_t)jd[j].channel_count * sizeof *ch);
    }
    mb_skeleton_desc sd = {jd, nj, {0}};
    mb_skeleton *other;
    cr_assert_eq(mb_skeleton_create(&sd, &other, NULL), MB_OK);
    const mb_xform *bind = mb_mesh_bind_pose(mb_scene_mesh(s));
    mb_clip_map_desc md;
    memset(&md, 0, sizeof md);
    md.from = fox;
    md.clip = walk;
    md.to = other;
    md.to_bind = bind;
    md.all_translations = 1;
    mb_clip *mapped;
    int *from = malloc((size_t)nj * sizeof *from), unmatched = -1;
    cr_assert_eq(mb_clip_map(&md, &mapped, from, &unmatched, NULL), MB_OK);
    cr_assert_eq(unmatched, renamed);
    cr_assert_eq(renamed, 3);
    cr_assert_eq(mb_clip_frame_count(mapped), mb_clip_frame_count(walk));
    for (int f = 0; f < mb_clip_frame_count(walk); ++f)
        for (int j = 0; j < nj; ++j) {
            const float *a = &mb_clip_rotations(walk)[((size_t)f * nj + j) * 4];
            const float *b = &mb_clip_rotations(mapped)[((size_t)f * nj + j) * 4];
            const float *want = from[j] >= 0 ? a : bind[j].rot;
            double dot = 0;
            for (int k = 0; k < 4; ++k)
                dot += (double)want[k] * b[k];
            cr_assert(fabs(dot) > 1 - 1e-6, "frame %d joint %d", f, j);
            if (from[j] < 0)
                continue;
            const float *ta = mb_clip_joint_translation(fox, walk, f, j);
            const float *tb = mb_clip_joint_translation(other, mapped, f, j);
            for (int k = 0; k < 3; ++k)
                cr_assert_float_eq(ta[k], tb[k], 1e-6);
        }
    mb_clip_destroy(mapped);
    /* default: the top matched joint and the joints the clip moves (the hip, below a static
     * root node: its bob) take the clip's translation; the other matched joints keep their
     * offsets, the nodes' rest translations (not the bind pose from the inverse bind
     * matrices, which once left the mapped fox 9 units from the fox itself) */
    md.all_translations = 0;
    cr_assert_eq(mb_clip_map(&md, &mapped, NULL, NULL, NULL), MB_OK);
    int hip = mb_skeleton_find(other, "b_Hip_01"), still = -1;
    for (int f = 0; f < mb_clip_frame_count(walk); ++f) {
        const float *ta = mb_clip_joint_translation(fox, walk, f, hip);
        const float *tb = mb_clip_joint_translation(other, mapped, f, hip);
        for (int k = 0; k < 3; ++k)
            cr_assert_float_eq(ta[k], tb[k], 1e-6, "the hip's bob, frame %d", f);
    }
    /* a joint whose track holds still (assimp gives every animated glTF node a track,
     * constant where only the rotation is keyed): it keeps the target's offset */
    for (int t = 0, j = 0; j < nj && still < 0; ++j) {
        int tracked = 0, moves = 0;
        for (t = 0; t < mb_clip_translation_count(walk); ++t)
            tracked |= mb_clip_translation_joints(walk)[t] == j;
        for (int f = 1; tracked && f < mb_clip_frame_count(walk); ++f)
            moves |= memcmp(mb_clip_joint_translation(fox, walk, f, j),
                            mb_clip_joint_translation(fox, walk, 0, j), 3 * sizeof(float)) != 0;
        if (tracked && !moves && from[j] >= 0 && mb_skeleton_parents(other)[j] >= 0 &&
            from[mb_skeleton_parents(other)[j]] >= 0)
            still = j;
    }
    cr_assert_geq(still, 0);
    const float *ts = mb_clip_joint_translation(other, mapped, 5, still);
    for (int k = 0; k < 3; ++k)
        cr_assert_float_eq(ts[k], mb_skeleton_offset(other, still)[k], 1e-6,
                           "%s keeps its offset", mb_skeleton_name(other, still));
    mb_clip_destroy(mapped);
    /* onto the fox itself: the fox's own walk, joint for joint (so `skin --mesh` with the
     * clip's own file skins as the file does) */
    md.to = fox;
    cr_assert_eq(mb_clip_map(&md, &mapped, NULL, NULL, NULL), MB_OK);
    for (int f = 0; f < mb_clip_frame_count(walk); ++f)
        for (int j = 0; j < nj; ++j) {
            const float *ta = mb_clip_joint_translation(fox, walk, f, j);
            const float *tb = mb_clip_joint_translation(fox, mapped, f, j);
            for (int k = 0; k < 3; ++k)
                cr_assert_float_eq(ta[k], tb[k], 1e-6, "frame %d joint %d", f, j);
        }
    mb_clip_destroy(mapped);
    md.to = other;
    /* nothing in common */
    mb_joint_desc lone = {"nobody", -1, {0, 0, 0}, 0, 0, {0}, 0};
    mb_skeleton_desc ld = {&lone, 1, {0}};
    mb_skeleton *ls;
    cr_assert_eq(mb_skeleton_create(&ld, &ls, NULL), MB_OK);
    md.to = ls;
    md.to_bind = NULL;
    mb_error e;
    cr_assert_eq(mb_clip_map(&md, &mapped, NULL, &unmatched, &e), MB_MISMATCH);
    cr_assert_eq(e.code, MB_MISMATCH);
    cr_assert(strstr(e.text, "no joint of the target skeleton has a name"), "%s", e.text);
    cr_assert_eq(unmatched, 1);
    md.to = other;
    md.from = ls;
    cr_assert_eq(mb_clip_map(&md, &mapped, NULL, NULL, &e), MB_INVALID_ARG); /* clip not on from */
    cr_assert(strstr(e.text, "the clip has") && strstr(e.text, "its skeleton 1"), "%s", e.text);
    cr_assert_eq(mb_clip_map(NULL, &mapped, NULL, NULL, &e), MB_INVALID_ARG);
    cr_assert_str_eq(e.text, "no desc given");
    mb_skeleton_destroy(ls);
    free(from);
    free(jd);
    free(names);
    mb_skeleton_destroy(other);
    mb_scene_destroy(s);
}

/* ---------- export ---------- */

Test(export, obj_frame_reads_back)
{
    mb_scene *s = load("mesh/CesiumMan.glb");
    const mb_mesh *m = mb_scene_mesh(s);
    int nv = mb_mesh_vertex_count(m), nt = mb_mesh_triangle_count(m);
    float *p = malloc((size_t)nv * 3 * sizeof(float)), *n = malloc((size_t)nv * 3 * sizeof(float));
    skin_at(mb_scene_skeleton(s), m, mb_scene_clip(s, 0), 0.5, MB_SKIN_DQS, p, n);
    const char *path = tmp_path("frame.obj");
    mb_error err;
    char msg[600];
    cr_assert_eq(mb_obj_write_file(path, m, p, n, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[256];
    int v = 0, vn = 0, faces = 0;
    double worst = 0;
    while (fgets(line, sizeof line, f)) {
        double x, y, z;
        unsigned a, a2, b, b2, c, c2;
        if (sscanf(line, "v %lf %lf %lf", &x, &y, &z) == 3) {
            double q[3] = {x, y, z};
            worst = fmax(worst, dist3f(&p[3 * v], q));
            ++v;
        } else if (sscanf(line, "vn %lf %lf %lf", &x, &y, &z) == 3) {
            ++vn;
        } else if (sscanf(line, "f %u//%u %u//%u %u//%u", &a, &a2, &b, &b2, &c, &c2) == 6) {
            cr_assert(a == a2 && a >= 1 && (int)a <= nv && (int)c <= nv && (int)b <= nv);
            ++faces;
        }
    }
    fclose(f);
    cr_assert_eq(v, nv);
    cr_assert_eq(vn, nv);
    cr_assert_eq(faces, nt);
    cr_assert(worst < 1e-6 * mb_mesh_get_info(m).size);
    unlink(path);
    /* failures leave nothing behind */
    cr_assert_eq(mb_obj_write_file("/nonexistent/dir/x.obj", m, p, n, &err), MB_IO);
    cr_log_info("%s", mb_error_format(&err, msg, sizeof msg));
    p[7] = NAN;
    cr_assert_eq(mb_obj_write_file(path, m, p, NULL, &err), MB_NUMERIC);
    cr_assert_eq(access(path, F_OK), -1);
    cr_assert_eq(mb_obj_write_file(path, NULL, p, NULL, &err), MB_INVALID_ARG);
    free(p);
    free(n);
    mb_scene_destroy(s);
}

/* Writes a scene's skeleton, mesh and clip as .glb, reads it back through assimp, and
 * compares the skinned vertices at several times. */
static void gltf_round_trip(const mb_skeleton *sk, const mb_mesh *m, const mb_clip *clip,
                            const char *name)
{
    mb_gltf_write_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = sk;
    gd.mesh = m;
    gd.clip = clip;
    gd.clip_name = name;
    void *data;
    size_t len;
    mb_error err;
    char msg[600];
    cr_assert_eq(mb_gltf_write_mem(&gd, &data, &len, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
    cr_assert_eq(memcmp(data, "glTF", 4), 0);
    mb_scene *back;
    cr_assert_eq(mb_scene_read_mem(data, len, "roundtrip.glb", NULL, &back, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
    const mb_mesh *bm = mb_scene_mesh(back);
    cr_assert_not_null(bm);
    int nv = mb_mesh_vertex_count(m), nb = mb_mesh_vertex_count(bm);
    cr_assert_leq(nb, nv);
    cr_assert_eq(mb_mesh_triangle_count(bm), mb_mesh_triangle_count(m));
    /* assimp joins vertices that only differed in what glTF export drops (texture
     * coordinates): match every vertex to the re-read one at the same bind position */
    int *match = malloc((size_t)nv * sizeof *match);
    const float *pa = mb_mesh_positions(m), *pb = mb_mesh_positions(bm);
    for (int v = 0; v < nv; ++v) {
        match[v] = -1;
        for (int u = 0; u < nb && match[v] < 0; ++u)
            if (pa[3 * v] == pb[3 * u] && pa[3 * v + 1] == pb[3 * u + 1] && pa[3 * v + 2] == pb[3 * u + 2])
                match[v] = u;
        cr_assert_geq(match[v], 0, "vertex %d has no counterpart", v);
    }
    cr_assert_eq(mb_scene_clip_count(back), 1);
    cr_assert_str_eq(mb_scene_clip_name(back, 0), name);
    const mb_clip *bc = mb_scene_clip(back, 0);
    float *a = malloc((size_t)nv * 3 * sizeof(float)), *b = malloc((size_t)nb * 3 * sizeof(float));
    double size = mb_mesh_get_info(m).size, span = (mb_clip_frame_count(clip) - 1) * mb_clip_frame_time(clip);
    double worst = 0;
    for (int i = 0; i <= 4; ++i) {
        double t = span * i / 4.0 + (i == 2 ? 0.013 : 0.0);
        skin_at(sk, m, clip, t, MB_SKIN_LBS, a, NULL);
        skin_at(mb_scene_skeleton(back), bm, bc, t, MB_SKIN_LBS, b, NULL);
        for (int v = 0; v < nv; ++v) {
            double q[3] = {a[3 * v], a[3 * v + 1], a[3 * v + 2]};
            worst = fmax(worst, dist3f(&b[3 * match[v]], q));
        }
    }
    cr_log_info("glTF round trip %s: %d -> %d vertices, worst %.3g (size %.4g), %zu bytes", name,
                nv, nb, worst, size, len);
    free(match);
    cr_assert(worst <= 1e-5 * size, "%s: %g", name, worst);
    free(a);
    free(b);
    free(data);
    mb_scene_destroy(back);
}

Test(export, gltf_round_trip_fox_walk)
{
    mb_scene *s = load("mesh/Fox.glb");
    gltf_round_trip(mb_scene_skeleton(s), mb_scene_mesh(s),
                    mb_scene_clip(s, mb_scene_find_clip(s, "Walk")), "Walk");
    mb_scene_destroy(s);
}

Test(export, gltf_round_trip_bvh_with_generated_skin)
{
    need_assimp();
    mb_skeleton *sk;
    mb_clip *c;
    mb_error err;
    cr_assert_eq(mb_bvh_read_file(MB_PROJECT_DIR "/data/bvh/walk.bvh", NULL, &sk, &c, &err), MB_OK);
    mb_mesh *m;
    cr_assert_eq(mb_skin_generate(sk, NULL, &m, NULL), MB_OK);
    gltf_round_trip(sk, m, c, "walk");
    /* to a file, with a scale node; and bad descs */
    mb_gltf_write_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = sk;
    gd.mesh = m;
    gd.clip = c;
    gd.scale = 0.01f;
    const char *path = tmp_path("walk.glb");
    cr_assert_eq(mb_gltf_write_file(path, &gd, &err), MB_OK);
    mb_scene *back;
    cr_assert_eq(mb_scene_read_file(path, NULL, &back, &err), MB_OK);
    cr_assert_geq(mb_skeleton_find(mb_scene_skeleton(back), "mblend_scale"), 0);
    mb_scene_destroy(back);
    unlink(path);
    gd.scale = -1;
    cr_assert_eq(mb_gltf_write_file(path, &gd, &err), MB_INVALID_ARG);
    gd.scale = 0;
    mb_clip *other;
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = mb_skeleton_joint_count(sk) + 1;
    cd.frame_count = 2;
    cd.frame_time = 0.1;
    cr_assert_eq(mb_clip_create(&cd, &other, NULL), MB_OK);
    gd.clip = other; /* not on the skeleton */
    cr_assert_eq(mb_gltf_write_file(path, &gd, &err), MB_INVALID_ARG);
    mb_clip_destroy(other);
    gd.clip = NULL;
    gd.mesh = NULL; /* skeleton alone */
    void *data;
    size_t len;
    cr_assert_eq(mb_gltf_write_mem(&gd, &data, &len, &err), MB_OK);
    free(data);
    cr_assert_eq(access(path, F_OK), -1);
    mb_mesh_destroy(m);
    mb_clip_destroy(c);
    mb_skeleton_destroy(sk);
}

/* glTF has no End Sites and no channel lists: a BVH clip written as .glb reads back with
 * its End Sites and multi-ROOT group (they were 6-channel JOINTs and a ROOT), every other
 * node with 6 channels (any node may carry a translation), and written as BVH again
 * (dropping the position channels the clip holds still) it has its source's layout and the
 * same world positions in every frame. */
static void end_sites_round_trip(const char *path, int same_channels)
{
    mb_skeleton *sk, *s3;
    mb_clip *c, *c3;
    mb_error err;
    char msg[600];
    cr_assert_eq(mb_bvh_read_file(path, NULL, &sk, &c, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
    mb_gltf_write_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = sk;
    gd.clip = c;
    void *data;
    size_t len;
    cr_assert_eq(mb_gltf_write_mem(&gd, &data, &len, &err), MB_OK);
    mb_scene *back;
    cr_assert_eq(mb_scene_read_mem(data, len, "end_sites.glb", NULL, &back, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
    const mb_skeleton *bs = mb_scene_skeleton(back);
    const mb_clip *bc = mb_scene_clip(back, 0);
    mb_bvh_write_desc wd;
    memset(&wd, 0, sizeof wd);
    wd.drop_still_positions = 1;
    char *text;
    size_t tlen;
    cr_assert_eq(mb_bvh_write_mem(bs, bc, &wd, &text, &tlen, &err), MB_OK);
    cr_assert_eq(mb_bvh_read_mem(text, tlen, "again.bvh", NULL, &s3, &c3, &err), MB_OK, "%s",
                 mb_error_format(&err, msg, sizeof msg));
    int nj = mb_skeleton_joint_count(sk), ends = 0;
    cr_assert_eq(mb_skeleton_joint_count(bs), nj);
    cr_assert_eq(mb_skeleton_joint_count(s3), nj);
    for (int j = 0; j < nj; ++j) {
        const char *name = mb_skeleton_name(sk, j);
        const mb_channel *ch;
        int end = mb_skeleton_is_end_site(sk, j), group = mb_skeleton_is_roots_group(sk, j);
        ends += end;
        cr_assert_str_eq(mb_skeleton_name(bs, j), name);
        cr_assert_eq(mb_skeleton_parents(bs)[j], mb_skeleton_parents(sk)[j]);
        cr_assert_eq(mb_skeleton_is_end_site(bs, j), end, "%s", name);
        cr_assert_eq(mb_skeleton_is_roots_group(bs, j), group, "%s", name);
        cr_assert_eq(mb_skeleton_channels(bs, j, &ch), end || group ? 0 : 6, "%s", name);
        cr_assert_str_eq(mb_skeleton_name(s3, j), name);
        cr_assert_eq(mb_skeleton_is_end_site(s3, j), end, "%s", name);
        cr_assert_eq(mb_skeleton_is_roots_group(s3, j), group, "%s", name);
        /* a joint the source did not translate is not translated in the BVH (ROOTs are) */
        int top = mb_skeleton_parents(sk)[j] < 0 || mb_skeleton_is_roots_group(sk, mb_skeleton_parents(sk)[j]);
        if (!top && !mb_skeleton_has_translation(sk, j))
            cr_assert(!mb_skeleton_has_translation(s3, j), "%s", name);
        if (same_channels)
            cr_assert_eq(mb_skeleton_channels(s3, j, &ch), mb_skeleton_channels(sk, j, &ch), "%s",
                         name);
    }
    int frames = mb_clip_frame_count(c);
    cr_assert_eq(mb_clip_frame_count(bc), frames);
    cr_assert_eq(mb_clip_frame_count(c3), frames);
    mb_xform *la = malloc((size_t)nj * sizeof *la), *lb = malloc((size_t)nj * sizeof *lb);
    float(*wa)[16] = malloc((size_t)nj * sizeof *wa), (*wb)[16] = malloc((size_t)nj * sizeof *wb);
    double worst = 0.0, reach = 0.0;
    for (int f = 0; f < frames; f += frames > 20 ? 7 : 1) {
        mb_pose pa = {la, nj}, pb = {lb, nj};
        cr_assert_eq(mb_clip_frame_pose(sk, c, f, pa), MB_OK);
        cr_assert_eq(mb_fk(sk, &pa, wa, nj), MB_OK);
        for (int v = 0; v < 2; ++v) { /* the scene, then the BVH written from it */
            cr_assert_eq(mb_clip_frame_pose(v ? s3 : bs, v ? c3 : bc, f, pb), MB_OK);
            cr_assert_eq(mb_fk(v ? s3 : bs, &pb, wb, nj), MB_OK);
            for (int j = 0; j < nj; ++j)
                for (int k = 12; k < 15; ++k) {
                    worst = fmax(worst, fabs((double)wa[j][k] - wb[j][k]));
                    reach = fmax(reach, fabs(wa[j][k]));
                }
        }
    }
    /* float forward kinematics over world coordinates up to `reach` from the origin (Bandai
     * walks 5 m): differences of a few float ulps of reach, far below any lost translation */
    cr_log_info("%s through glb: %d End Sites, worst position difference %.3g (reach %.4g)", path,
                ends, worst, reach);
    cr_assert_leq(worst, 2e-6 * reach);
    free(la);
    free(lb);
    free(wa);
    free(wb);
    free(data);
    free(text);
    mb_scene_destroy(back);
    mb_clip_destroy(c);
    mb_skeleton_destroy(sk);
    mb_clip_destroy(c3);
    mb_skeleton_destroy(s3);
}

/* The multi-ROOT group is the scene root mblend's writer marked, at rest: a mark on another
 * node, or on a root with a transform, makes no group (the review's hand-made files). */
Test(export, gltf_roots_group_only_from_the_marked_scene_root)
{
    need_assimp();
    static const char *const cases[4] = {
        /* marked root at rest: a group */
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
        "{\"name\":\"G\",\"children\":[1,2],\"extras\":{\"mblend\":\"roots group\"}},"
        "{\"name\":\"A\"},{\"name\":\"B\",\"translation\":[1,0,0]}]}",
        /* the mark on a child: no group */
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
        "{\"name\":\"G\",\"children\":[1,2]},"
        "{\"name\":\"A\",\"extras\":{\"mblend\":\"roots group\"}},{\"name\":\"B\"}]}",
        /* a child named like the marked root... is itself marked, the root not: no group */
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
        "{\"name\":\"G\",\"children\":[1,2]},"
        "{\"name\":\"G\",\"extras\":{\"mblend\":\"roots group\"}},{\"name\":\"B\"}]}",
        /* marked root with a rotation: no group */
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":["
        "{\"name\":\"G\",\"children\":[1,2],\"rotation\":[0,0.70710678,0,0.70710678],"
        "\"extras\":{\"mblend\":\"roots group\"}},{\"name\":\"A\"},{\"name\":\"B\"}]}"};
    for (int c = 0; c < 4; ++c) {
        mb_scene *sc;
        mb_error err;
        char msg[600];
        cr_assert_eq(mb_scene_read_mem(cases[c], strlen(cases[c]), "group.gltf", NULL, &sc, &err),
                     MB_OK, "case %d: %s", c, mb_error_format(&err, msg, sizeof msg));
        const mb_skeleton *sk = mb_scene_skeleton(sc);
        cr_assert_eq(mb_skeleton_joint_count(sk), 3, "case %d", c);
        cr_assert_eq(mb_skeleton_is_roots_group(sk, 0), c == 0, "case %d", c);
        mb_scene_destroy(sc);
    }
}

Test(export, gltf_round_trip_keeps_end_sites_and_channels)
{
    need_assimp();
    end_sites_round_trip(MB_PROJECT_DIR "/data/bvh/walk.bvh", 1);
    end_sites_round_trip(mb_shared_path("bvh/cmu_02_01_walk.bvh"), 1);
    /* Bandai: every joint has 6 channels, most holding the offset (those lose theirs in
     * the BVH written back; a few move by 5e-6 and keep them) */
    end_sites_round_trip(mb_shared_path("bvh/bandai2_walk_normal_001.bvh"), 0);
    /* a leaf JOINT without an End Site stays a joint (it is not named <parent>_End) */
    end_sites_round_trip(mb_shared_path("bvh/fairmotion_sinusoidal_xyz_noendsite.bvh"), 0);
    /* two ROOTs: the group node above them reads back as the group (named ROOTS, or ROOTS_2
     * when a ROOT has that name), so the BVH written back has the two ROOTs again; one ROOT
     * named ROOTS (v = 2) stays a ROOT */
    const char *second[3] = {"A", "ROOTS", "ROOTS"};
    for (int v = 0; v < 3; ++v) {
        const char *path = tmp_path("two_roots.bvh");
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        fprintf(f, "HIERARCHY\n");
        for (int r = 0; r < (v == 2 ? 1 : 2); ++r)
            fprintf(f, "ROOT %s\n{\n\tOFFSET %d 0 0\n\tCHANNELS 6 Xposition Yposition Zposition "
                       "Zrotation Xrotation Yrotation\n\tJOINT %s1\n\t{\n\t\tOFFSET 0 1 0\n"
                       "\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n\t\tEnd Site\n\t\t{\n"
                       "\t\t\tOFFSET 0 1 0\n\t\t}\n\t}\n}\n",
                    r ? "B" : second[v], 5 * r, r ? "B" : "A");
        fprintf(f, "MOTION\nFrames: 3\nFrame Time: 0.1\n");
        for (int fr = 0; fr < 3; ++fr)
            if (v == 2)
                fprintf(f, "%d 0 0 0 %d 0 %d 0 0\n", fr, 10 * fr, 10 + 10 * fr);
            else
                fprintf(f, "%d 0 0 0 %d 0 %d 0 0 %d 0 0 0 %d 0 %d 0 0\n", fr, 10 * fr, 10 + 10 * fr,
                        5 + fr, 10 * fr, 20 + 10 * fr);
        fclose(f);
        end_sites_round_trip(path, 1);
        unlink(path);
    }
    /* a joint with two End Sites (read as A1_End and A1_End2): both come back as End Sites */
    {
        const char *p2 = tmp_path("two_end_sites.bvh");
        FILE *f2 = fopen(p2, "w");
        cr_assert_not_null(f2);
        fprintf(f2, "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition "
                    "Zposition Zrotation Xrotation Yrotation\n\tJOINT A1\n\t{\n\t\tOFFSET 0 1 0\n"
                    "\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n\t\tEnd Site\n\t\t{\n"
                    "\t\t\tOFFSET 0 1 0\n\t\t}\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 1 0 0\n"
                    "\t\t}\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0 0 0 0 0 0 0\n"
                    "1 0 0 10 0 0 20 0 0\n");
        fclose(f2);
        end_sites_round_trip(p2, 1);
        unlink(p2);
    }
    /* a ROOT named ROOTS with three children, at rest (the review's case): a joint, as the
     * writer marks only its own groups */
    FILE *src = fopen(mb_shared_path("bvh/cmu_like_rest_1frame.bvh"), "rb");
    cr_assert_not_null(src);
    char *text = calloc(1, 1 << 16);
    size_t len = fread(text, 1, (1 << 16) - 1, src);
    fclose(src);
    cr_assert(len > 0 && len < (1 << 16) - 1);
    char *root = strstr(text, "ROOT Hips");
    cr_assert_not_null(root);
    const char *path = tmp_path("roots_named.bvh");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%.*sROOT ROOTS%s", (int)(root - text), text, root + strlen("ROOT Hips"));
    fclose(f);
    free(text);
    end_sites_round_trip(path, 1);
    unlink(path);
}

/* ---------- glTF clips through the blender ---------- */

/* Largest rotation difference (radians), over the joints below `root` (which the blend's
 * root handling leaves as blended) and every output frame k, between the cyclic 50/50
 * blend `out` of a and b (cycles of ta and tb seconds from time 0) and mb_blend_run of a
 * at phase k / frames and b at phase k / frames computed here (b_at_a_time: b sampled at
 * a's time instead, the out-of-phase pair, to show the measure tells them apart). */
static double cyclic_blend_phase_error(const mb_skeleton *sk, int root, const mb_clip *a, double ta,
                                       const mb_clip *b, double tb, const mb_clip *out, int b_at_a_time)
{
    int nj = mb_skeleton_joint_count(sk), frames = mb_clip_frame_count(out);
    const int *parents = mb_skeleton_parents(sk);
    mb_xform *pa = malloc(sizeof *pa * nj), *pb = malloc(sizeof *pb * nj), *want = malloc(sizeof *want * nj),
             *got = malloc(sizeof *got * nj);
    cr_assert(pa && pb && want && got);
    double worst = 0.0;
    for (int k = 0; k < frames; ++k) {
        double ph = (double)k / frames;
        mb_pose A = {pa, nj}, B = {pb, nj}, W = {want, nj}, G = {got, nj};
        cr_assert_eq(mb_clip_sample(sk, a, ph * ta, MB_WRAP_LOOP, A), MB_OK);
        cr_assert_eq(mb_clip_sample(sk, b, ph * (b_at_a_time ? ta : tb), MB_WRAP_LOOP, B), MB_OK);
        mb_blend_layer l[2] = {{&A, 0.5f, NULL}, {&B, 0.5f, NULL}};
        mb_blend_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.layers = l;
        bd.layer_count = 2;
        bd.out = W;
        cr_assert_eq(mb_blend_run(&bd), MB_OK);
        cr_assert_eq(mb_clip_frame_pose(sk, out, k, G), MB_OK);
        for (int j = 0; j < nj; ++j) {
            int below = 0;
            for (int p = parents[j]; p >= 0 && !below; p = parents[p])
                below = p == root;
            if (below)
                worst = fmax(worst, mb_quat_angle_between(got[j].rot, want[j].rot));
        }
    }
    free(pa);
    free(pb);
    free(want);
    free(got);
    return worst;
}

Test(blend, fox_walk_and_run_blend_in_phase_and_skin)
{
    mb_scene *s = load("mesh/Fox.glb");
    const mb_skeleton *sk = mb_scene_skeleton(s);
    const mb_clip *walk = mb_scene_clip(s, mb_scene_find_clip(s, "Walk"));
    const mb_clip *run = mb_scene_clip(s, mb_scene_find_clip(s, "Run"));
    /* each glTF clip is one loop: its last key repeats its first, so the cycle is
     * [0, frames - 1) */
    mb_clip_input in[2];
    memset(in, 0, sizeof in);
    in[0].skeleton = sk;
    in[0].clip = walk;
    in[0].source = "Fox.glb#Walk";
    in[0].range.start = 0;
    in[0].range.end = mb_clip_frame_count(walk) - 1;
    in[0].weight = 0.5f;
    in[1] = in[0];
    in[1].clip = run;
    in[1].source = "Fox.glb#Run";
    in[1].range.end = mb_clip_frame_count(run) - 1;
    mb_clip_blend_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.inputs = in;
    bd.input_count = 2;
    bd.cyclic = 1;
    bd.up_axis = MB_AXIS_Y; /* glTF is +Y up */
    bd.frame_time = 1.0 / 30.0;
    mb_clip *trot = NULL;
    mb_error err;
    char msg[600];
    cr_assert_eq(mb_clip_blend(&bd, &trot, &err), MB_OK, "%s", mb_error_format(&err, msg, sizeof msg));
    double tw = (mb_clip_frame_count(walk) - 1) * mb_clip_frame_time(walk);
    double tr = (mb_clip_frame_count(run) - 1) * mb_clip_frame_time(run);
    double dur = mb_clip_frame_count(trot) * mb_clip_frame_time(trot);
    cr_log_info("Fox Walk (%.3f s) + Run (%.3f s), 50/50: %d frames, %.3f s", tw, tr,
                mb_clip_frame_count(trot), dur);
    cr_assert(fabs(dur - 0.5 * (tw + tr)) < 1.5 / 30.0, "%g s", dur);
    /* in phase: frame k holds Walk and Run each at phase k / frames, blended */
    mb_analyze_desc ad = {0};
    ad.up_axis = MB_AXIS_Y;
    mb_motion_info wi;
    cr_assert_eq(mb_motion_analyze(sk, walk, &ad, "Fox.glb#Walk", &wi, &err), MB_OK, "%s", err.text);
    double e_phase = cyclic_blend_phase_error(sk, wi.root, walk, tw, run, tr, trot, 0);
    double e_time = cyclic_blend_phase_error(sk, wi.root, walk, tw, run, tr, trot, 1);
    cr_log_info("joints below the root: %g rad from the in-phase blend, %g from the same-time blend", e_phase,
                e_time);
    cr_assert_lt(e_phase, 2e-5, "the blend is not Walk and Run at equal phases (%g rad off)", e_phase);
    cr_assert_gt(e_time, 0.05, "Walk and Run at equal times must differ from equal phases (%g rad)", e_time);
    /* every frame skins to finite vertices near the fox's size */
    const mb_mesh *m = mb_scene_mesh(s);
    int nv = mb_mesh_vertex_count(m);
    float *p = malloc((size_t)nv * 3 * sizeof(float));
    double size = mb_mesh_get_info(m).size;
    for (int f = 0; f < mb_clip_frame_count(trot); ++f) {
        skin_at(sk, m, trot, f * mb_clip_frame_time(trot), MB_SKIN_DQS, p, NULL);
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int v = 0; v < nv; ++v)
            for (int c = 0; c < 3; ++c) {
                cr_assert(isfinite(p[3 * v + c]));
                lo[c] = fmin(lo[c], p[3 * v + c]);
                hi[c] = fmax(hi[c], p[3 * v + c]);
            }
        double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                           (hi[2] - lo[2]) * (hi[2] - lo[2]));
        cr_assert(diag > 0.7 * size && diag < 1.3 * size, "frame %d: extent %g vs %g", f, diag, size);
    }
    free(p);
    mb_clip_destroy(trot);
    mb_scene_destroy(s);
}

/* ---------- the build's assimp switch ---------- */

/* The scene tests skip when the library reads no scenes; in a build configured with
 * MB_WITH_ASSIMP=ON that would hide 30-odd tests, so the library's answer must match the
 * build's switch (MB_TEST_WITH_ASSIMP, from tests/CMakeLists.txt) both ways. */
Test(scene, assimp_support_matches_the_build_switch)
{
    cr_assert_eq(mb_scene_supported() != 0, MB_TEST_WITH_ASSIMP != 0,
                 "mb_scene_supported() is %d in a build configured with MB_WITH_ASSIMP=%s", mb_scene_supported(),
                 MB_TEST_WITH_ASSIMP ? "ON" : "OFF");
}

/* ---------- look: materials, images, texture coordinates ---------- */

/* Whether the n bytes at needle occur in hay (memmem is a GNU extension). */
static int contains(const char *hay, size_t hn, const unsigned char *needle, size_t n)
{
    for (size_t i = 0; n > 0 && i + n <= hn; ++i)
        if (memcmp(hay + i, needle, n) == 0)
            return 1;
    return 0;
}

/* Fox's look: one material used by every triangle, named as in the file, metallic 0 and
 * roughness 0.58 (the file's factors), its base colour image the PNG embedded in the file
 * (the same bytes, found in the .glb), texture coordinates inside the texture. */
Test(look, fox_material_image_and_uvs)
{
    mb_scene *s = load("mesh/Fox.glb");
    const mb_mesh_look *l = mb_scene_look(s);
    cr_assert_not_null(l);
    const mb_mesh *m = mb_scene_mesh(s);
    cr_assert_eq(l->vertex_count, mb_mesh_vertex_count(m));
    cr_assert_eq(l->triangle_count, mb_mesh_triangle_count(m));
    int mat = l->triangle_materials[0];
    for (int t = 0; t < l->triangle_count; ++t)
        cr_assert_eq(l->triangle_materials[t], mat);
    const mb_material *mt = &l->materials[mat];
    cr_assert_str_eq(mt->name, "fox_material");
    cr_assert_float_eq(mt->metallic, 0.0f, 1e-6);
    cr_assert_float_eq(mt->roughness, 0.58f, 1e-6);
    cr_assert(mt->base_color_image >= 0 && mt->base_color_image < l->image_count);
    const mb_image *img = &l->images[mt->base_color_image];
    cr_assert_str_eq(img->mime_type, "image/png");
    size_t n;
    char *file = mb_test_slurp(mb_shared_path("mesh/Fox.glb"), &n);
    cr_assert(img->size > 1000 && contains(file, n, img->data, img->size),
              "the image (%zu bytes) is not the file's own", img->size);
    free(file);
    cr_assert_not_null(l->texcoords);
    for (int i = 0; i < 2 * l->vertex_count; ++i)
        cr_assert(l->texcoords[i] >= 0.0f && l->texcoords[i] <= 1.0f, "uv %d: %g", i / 2,
                  (double)l->texcoords[i]);
    mb_scene_destroy(s);
}

/* RiggedSimple has no texture: its material's base colour factor is the file's
 * (0.27963539958, 0.64, 0.2109439075, 1), no image, no texture coordinates. */
Test(look, rigged_simple_base_colour_without_texture)
{
    mb_scene *s = load("mesh/RiggedSimple.glb");
    const mb_mesh_look *l = mb_scene_look(s);
    cr_assert_not_null(l);
    cr_assert_null(l->texcoords);
    cr_assert_eq(l->image_count, 0);
    const mb_material *mt = &l->materials[l->triangle_materials[0]];
    cr_assert_str_eq(mt->name, "Material_001-effect");
    const float want[4] = {0.27963539958f, 0.64f, 0.2109439075f, 1.0f};
    for (int k = 0; k < 4; ++k)
        cr_assert_float_eq(mt->base_color[k], want[k], 1e-6);
    cr_assert_eq(mt->base_color_image, -1);
    mb_scene_destroy(s);
}

/* A look that does not describe the mesh, or indexes past its materials or images, is an
 * MB_INVALID_ARG and nothing is written. */
Test(look, bad_look_is_refused)
{
    mb_scene *s = load("mesh/Fox.glb");
    mb_mesh_look l = *mb_scene_look(s);
    mb_gltf_write_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = mb_scene_skeleton(s);
    d.mesh = mb_scene_mesh(s);
    d.look = &l;
    void *out = (void *)1;
    size_t len = 7;
    mb_error err;
    cr_assert_eq(mb_gltf_write_mem(&d, &out, &len, &err), MB_OK, "%s", err.text);
    free(out);
    l.vertex_count--;
    cr_assert_eq(mb_gltf_write_mem(&d, &out, &len, &err), MB_INVALID_ARG);
    cr_assert(out == NULL && len == 0);
    cr_assert_not_null(strstr(err.text, "not the mesh's"), "%s", err.text);
    l.vertex_count++;
    int *tm = malloc((size_t)l.triangle_count * sizeof *tm);
    memcpy(tm, l.triangle_materials, (size_t)l.triangle_count * sizeof *tm);
    tm[5] = l.material_count;
    l.triangle_materials = tm;
    cr_assert_eq(mb_gltf_write_mem(&d, &out, &len, &err), MB_INVALID_ARG);
    cr_assert_not_null(strstr(err.text, "triangle 5"), "%s", err.text);
    tm[5] = 0;
    mb_material mats[8];
    cr_assert_leq(l.material_count, 8);
    memcpy(mats, l.materials, (size_t)l.material_count * sizeof *mats);
    mats[0].base_color_image = l.image_count;
    l.materials = mats;
    cr_assert_eq(mb_gltf_write_mem(&d, &out, &len, &err), MB_INVALID_ARG);
    mats[0].base_color_image = -1;
    mb_image img = l.images[0];
    img.mime_type = "image/gif";
    l.images = &img;
    cr_assert_eq(mb_gltf_write_mem(&d, &out, &len, &err), MB_INVALID_ARG);
    cr_assert_not_null(strstr(err.text, "PNG/JPEG"), "%s", err.text);
    free(tm);
    mb_scene_destroy(s);
}

/* The loop rule for glTF output: a cyclic blend runs on; Fox's Walk repeats its first frame
 * as its last (its file has the end key); CesiumMan's last frame runs on into its first; a
 * CMU walk travels and does not loop; NULLs and a clip of another skeleton are refused. */
Test(look, gltf_loop_kind_rule)
{
    mb_scene *fox = load("mesh/Fox.glb"), *man = load("mesh/CesiumMan.glb");
    const mb_skeleton *fs = mb_scene_skeleton(fox);
    const mb_clip *walk = mb_scene_clip(fox, mb_scene_find_clip(fox, "Walk"));
    mb_loop_kind k = (mb_loop_kind)7;
    mb_error err;
    cr_assert_eq(mb_gltf_loop_kind(fs, walk, 1, &k, &err), MB_OK);
    cr_assert_eq(k, MB_LOOP_RUNS_ON);
    cr_assert_eq(mb_gltf_loop_kind(fs, walk, 0, &k, &err), MB_OK, "%s", err.text);
    cr_assert_eq(k, MB_LOOP_REPEATS);
    cr_assert_eq(mb_gltf_loop_kind(mb_scene_skeleton(man), mb_scene_clip(man, 0), 0, &k, &err), MB_OK);
    cr_assert_eq(k, MB_LOOP_RUNS_ON);
    mb_skeleton *cs;
    mb_clip *cc;
    cr_assert_eq(mb_bvh_read_file(mb_shared_path("bvh/cmu_02_01_walk.bvh"), NULL, &cs, &cc, &err), MB_OK);
    cr_assert_eq(mb_gltf_loop_kind(cs, cc, 0, &k, &err), MB_OK);
    cr_assert_eq(k, MB_LOOP_NONE);
    cr_assert_eq(mb_gltf_loop_kind(cs, walk, 0, &k, &err), MB_INVALID_ARG);
    cr_assert_eq(k, MB_LOOP_NONE);
    cr_assert_eq(mb_gltf_loop_kind(NULL, cc, 0, &k, &err), MB_INVALID_ARG);
    cr_assert_eq(mb_gltf_loop_kind(cs, cc, 0, NULL, &err), MB_INVALID_ARG);
    mb_skeleton_destroy(cs);
    mb_clip_destroy(cc);
    mb_scene_destroy(fox);
    mb_scene_destroy(man);
}
