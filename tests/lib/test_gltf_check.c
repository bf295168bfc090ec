/* The glTF pre-check before assimp (src/offline/io/gltf_check.c), on a small skinned glTF built
 * here byte by byte (JSON written by hand, binary chunk packed below), then broken one
 * property at a time. The crashes it guards against were seen with Debian's assimp 5.2.5:
 * a skin without inverseBindMatrices (SEGV), a sparse accessor past its accessor (heap
 * overflow under ASan), a node chain 20,000 deep (stack overflow). Each case here ran into
 * one of them, or was read silently, before the check; a skin without inverse bind
 * matrices, valid glTF, now reads with identity matrices from a patched copy. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "test_util.h"

static void need_assimp(void) { mb_test_need_assimp(); }

/* ---------- the asset ---------- */

/* Binary layout (offsets in bytes): positions 0 (3 x vec3), joints 36 (3 x u8vec4),
 * weights 48 (3 x vec4), indices 96 (3 x u16 + pad), inverse binds 104 (2 x mat4),
 * key times 232 (2 floats), key rotations 240 (2 x vec4), sparse index 272 (u16 + pad),
 * sparse value 276 (vec3). */
enum { BIN_LEN = 288 };

static void put_f(unsigned char *b, size_t off, const float *v, size_t n)
{
    memcpy(b + off, v, n * sizeof(float)); /* the test hosts are little-endian, as glTF */
}

static void make_bin(unsigned char *b, float t0, float t1, uint16_t sparse_index)
{
    memset(b, 0, BIN_LEN);
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    put_f(b, 0, pos, 9);
    const unsigned char joints[12] = {0, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    memcpy(b + 36, joints, 12);
    const float w[12] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0};
    put_f(b, 48, w, 12);
    const uint16_t idx[3] = {0, 1, 2};
    memcpy(b + 96, idx, 6);
    /* Hip at the origin, Knee 1 up: inverse binds are identity and a -1 y translation. */
    float ibm[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                     1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};
    put_f(b, 104, ibm, 32);
    const float times[2] = {t0, t1};
    put_f(b, 232, times, 2);
    const float rots[8] = {0, 0, 0, 1, 0, 0, 0.70710678f, 0.70710678f};
    put_f(b, 240, rots, 8);
    memcpy(b + 272, &sparse_index, 2);
    const float sv[3] = {2, 3, 4};
    put_f(b, 276, sv, 3);
}

/* The JSON, with places to change: the skin's extra properties, accessor 0's extra
 * properties (a sparse part), and the nodes array. */
static char *make_json(const char *skin_ibm, const char *acc0_extra, const char *nodes)
{
    static const char *fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\n"
        "\"nodes\":%s,\n"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,"
        "\"WEIGHTS_0\":2},\"indices\":3}]}],\n"
        "\"skins\":[{\"joints\":[2,3]%s}],\n"
        "\"animations\":[{\"name\":\"Bend\",\"samplers\":[{\"input\":5,\"output\":6}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"rotation\"}}]}],\n"
        "\"accessors\":[\n"
        "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
        "\"min\":[0,0,0],\"max\":[1,1,0]%s},\n"
        "{\"bufferView\":1,\"componentType\":5121,\"count\":3,\"type\":\"VEC4\"},\n"
        "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},\n"
        "{\"bufferView\":3,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"},\n"
        "{\"bufferView\":4,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},\n"
        "{\"bufferView\":5,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},\n"
        "{\"bufferView\":6,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"}],\n"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},"
        "{\"buffer\":0,\"byteOffset\":36,\"byteLength\":12},"
        "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48},"
        "{\"buffer\":0,\"byteOffset\":96,\"byteLength\":6},"
        "{\"buffer\":0,\"byteOffset\":104,\"byteLength\":128},"
        "{\"buffer\":0,\"byteOffset\":232,\"byteLength\":8},"
        "{\"buffer\":0,\"byteOffset\":240,\"byteLength\":32},"
        "{\"buffer\":0,\"byteOffset\":272,\"byteLength\":2},"
        "{\"buffer\":0,\"byteOffset\":276,\"byteLength\":12}],\n"
        "\"buffers\":[{\"byteLength\":288}]}";
    int n = snprintf(NULL, 0, fmt, nodes, skin_ibm, acc0_extra);
    char *s = malloc((size_t)n + 1);
    cr_assert_not_null(s);
    snprintf(s, (size_t)n + 1, fmt, nodes, skin_ibm, acc0_extra);
    return s;
}

static const char *k_nodes =
    "[{\"name\":\"Root\",\"children\":[1,2]},{\"name\":\"Body\",\"mesh\":0,\"skin\":0},"
    "{\"name\":\"Hip\",\"children\":[3]},{\"name\":\"Knee\",\"translation\":[0,1,0]}]";
static const char *k_ibm = ",\"inverseBindMatrices\":4";

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A GLB: header, JSON chunk (padded with spaces), BIN chunk (none when bin is NULL). */
static unsigned char *make_glb(const char *json, const unsigned char *bin, size_t *len)
{
    size_t jl = strlen(json), jp = (jl + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jp + (bin ? 8 + BIN_LEN : 0);
    unsigned char *g = malloc(total);
    cr_assert_not_null(g);
    put32(g, 0x46546C67u);
    put32(g + 4, 2);
    put32(g + 8, (uint32_t)total);
    put32(g + 12, (uint32_t)jp);
    put32(g + 16, 0x4E4F534Au);
    memcpy(g + 20, json, jl);
    memset(g + 20 + jl, ' ', jp - jl);
    if (bin) {
        put32(g + 20 + jp, BIN_LEN);
        put32(g + 24 + jp, 0x004E4942u);
        memcpy(g + 28 + jp, bin, BIN_LEN);
    }
    *len = total;
    return g;
}

/* Reads the asset built from these parts; returns the status, the message in msg. */
static mb_status read_parts(const char *skin, const char *acc0, const char *nodes, float t0,
                            float t1, uint16_t sparse_index, mb_scene **out, char *msg,
                            size_t msg_len)
{
    unsigned char bin[BIN_LEN];
    make_bin(bin, t0, t1, sparse_index);
    char *json = make_json(skin, acc0, nodes);
    size_t len;
    unsigned char *glb = make_glb(json, bin, &len);
    mb_error err;
    mb_scene *s = NULL;
    mb_status st = mb_scene_read_mem(glb, len, "built.glb", NULL, &s, &err);
    if (msg)
        snprintf(msg, msg_len, "%s", st == MB_OK ? "" : err.text);
    if (st != MB_OK)
        cr_assert_null(s);
    if (out)
        *out = s;
    else
        mb_scene_destroy(s);
    free(glb);
    free(json);
    return st;
}

static void expect_error(mb_status want, const char *needle, const char *skin, const char *acc0,
                         const char *nodes, float t0, float t1, uint16_t sparse_index)
{
    char msg[300];
    mb_status st = read_parts(skin, acc0, nodes, t0, t1, sparse_index, NULL, msg, sizeof msg);
    cr_assert_eq(st, want, "status %d (want %d): %s", (int)st, (int)want, msg);
    cr_assert(strstr(msg, needle), "message '%s' lacks '%s'", msg, needle);
}

/* A glTF 2 JSON text with `depth` nested arrays in it (the caller frees it). */
static char *deep_json(size_t depth)
{
    char *deep = malloc(2 * depth + 64);
    cr_assert_not_null(deep);
    int k = sprintf(deep, "{\"asset\":{\"version\":\"2.0\"},\"x\":");
    memset(deep + k, '[', depth);
    memset(deep + k + depth, ']', depth);
    strcpy(deep + k + 2 * depth, "}");
    return deep;
}

/* ---------- tests ---------- */

Test(gltf_check, the_built_asset_loads_and_its_sparse_part_applies)
{
    need_assimp();
    /* Without the sparse part, then with one that moves vertex 1 to (2, 3, 4). */
    mb_scene *s = NULL;
    char msg[300];
    cr_assert_eq(read_parts(k_ibm, "", k_nodes, 0.0f, 1.0f, 1, &s, msg, sizeof msg), MB_OK, "%s", msg);
    const mb_skeleton *sk = mb_scene_skeleton(s);
    cr_assert_geq(mb_skeleton_joint_count(sk), 4);
    cr_assert_geq(mb_skeleton_find(sk, "Knee"), 0);
    cr_assert_eq(mb_scene_clip_count(s), 1);
    cr_assert_eq(mb_mesh_vertex_count(mb_scene_mesh(s)), 3);
    mb_scene_destroy(s);
    const char *sparse = ",\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":7,"
                         "\"componentType\":5123},\"values\":{\"bufferView\":8}}";
    cr_assert_eq(read_parts(k_ibm, sparse, k_nodes, 0.0f, 1.0f, 1, &s, msg, sizeof msg), MB_OK, "%s", msg);
    const mb_mesh *m = mb_scene_mesh(s);
    int found = 0;
    for (int v = 0; v < mb_mesh_vertex_count(m); ++v) {
        const float *p = mb_mesh_positions(m) + 3 * v;
        found += p[0] == 2.0f && p[1] == 3.0f && p[2] == 4.0f;
    }
    cr_assert_eq(found, 1, "the sparse value (2, 3, 4) replaced one vertex");
    mb_scene_destroy(s);
}

/* Every inverse bind matrix of the scene's skin is the identity. */
static void expect_identity_binds(const mb_scene *s)
{
    const mb_mesh *m = mb_scene_mesh(s);
    cr_assert_not_null(m);
    int n = mb_mesh_skin_joint_count(m);
    cr_assert_eq(n, 2);
    for (int e = 0; e < n; ++e)
        for (int k = 0; k < 16; ++k)
            cr_assert_eq(mb_mesh_inverse_binds(m)[16 * e + k], k % 5 == 0 ? 1.0f : 0.0f,
                         "entry %d element %d", e, k);
}

Test(gltf_check, skin_without_inverse_bind_matrices_reads_as_identity)
{
    need_assimp();
    /* From memory (a GLB rebuilt with the matrices in a new data-URI buffer). */
    mb_scene *s = NULL;
    char msg[300];
    cr_assert_eq(read_parts("", "", k_nodes, 0, 1, 1, &s, msg, sizeof msg), MB_OK, "%s", msg);
    expect_identity_binds(s);
    mb_scene_destroy(s);
    /* From files: the GLB, and a .gltf whose buffer is a file beside it (the copy assimp
     * reads from memory names it by its absolute path). */
    char dir[] = "/tmp/mb_gltf_check_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char glb_path[128], gltf_path[128], bin_path[128];
    snprintf(glb_path, sizeof glb_path, "%s/asset.glb", dir);
    snprintf(gltf_path, sizeof gltf_path, "%s/asset.gltf", dir);
    snprintf(bin_path, sizeof bin_path, "%s/asset.bin", dir);
    unsigned char bin[BIN_LEN];
    make_bin(bin, 0, 1, 1);
    char *json = make_json("", "", k_nodes);
    size_t len;
    unsigned char *glb = make_glb(json, bin, &len);
    FILE *f = fopen(glb_path, "wb");
    cr_assert(f && fwrite(glb, 1, len, f) == len && fclose(f) == 0);
    f = fopen(bin_path, "wb");
    cr_assert(f && fwrite(bin, 1, BIN_LEN, f) == BIN_LEN && fclose(f) == 0);
    char *at = strstr(json, "\"buffers\":[{\"byteLength\":288}]");
    cr_assert_not_null(at);
    f = fopen(gltf_path, "wb");
    cr_assert_not_null(f);
    fprintf(f, "%.*s\"buffers\":[{\"byteLength\":288,\"uri\":\"asset.bin\"}]}", (int)(at - json), json);
    cr_assert_eq(fclose(f), 0);
    /* The same .gltf led by 40 spaces (the check once looked at the first 20 bytes only,
     * and assimp crashed on the unpatched skin), and one whose buffer's relative path
     * holds a ':' after a '/' (RFC 3986: not a scheme; made absolute for the patched copy like any relative path). */
    char ws_path[128], colon_path[128], colon_dir[128], colon_bin[160];
    snprintf(ws_path, sizeof ws_path, "%s/spaced.gltf", dir);
    snprintf(colon_path, sizeof colon_path, "%s/colon.gltf", dir);
    snprintf(colon_dir, sizeof colon_dir, "%s/sub", dir);
    snprintf(colon_bin, sizeof colon_bin, "%s/a:b.bin", colon_dir);
    cr_assert_eq(mkdir(colon_dir, 0700), 0);
    f = fopen(ws_path, "wb");
    cr_assert_not_null(f);
    fprintf(f, "%40s%.*s\"buffers\":[{\"byteLength\":288,\"uri\":\"asset.bin\"}]}", "",
            (int)(at - json), json);
    cr_assert_eq(fclose(f), 0);
    f = fopen(colon_path, "wb");
    cr_assert_not_null(f);
    fprintf(f, "%.*s\"buffers\":[{\"byteLength\":288,\"uri\":\"sub/a:b.bin\"}]}", (int)(at - json), json);
    cr_assert_eq(fclose(f), 0);
    f = fopen(colon_bin, "wb");
    cr_assert(f && fwrite(bin, 1, BIN_LEN, f) == BIN_LEN && fclose(f) == 0);
    const char *paths[] = {glb_path, gltf_path, ws_path, colon_path};
    for (int i = 0; i < 4; ++i) {
        mb_error err;
        cr_assert_eq(mb_scene_read_file(paths[i], NULL, &s, &err), MB_OK, "%s: %s", paths[i], err.text);
        expect_identity_binds(s);
        cr_assert_eq(mb_scene_clip_count(s), 1);
        mb_scene_destroy(s);
    }
    /* A skin with no joints (found by fuzzing: the patch gave it 0 matrices, an accessor
     * of count 0 that the check itself refuses). */
    char *nojoints = make_json("", "", k_nodes);
    char *jt = strstr(nojoints, "\"joints\":[2,3]");
    cr_assert_not_null(jt);
    memcpy(jt, "\"joints\":[   ]", 14);
    mb_error e2;
    size_t l2;
    unsigned char *g2 = make_glb(nojoints, bin, &l2);
    cr_assert_eq(mb_scene_read_mem(g2, l2, "nojoints.glb", NULL, &s, &e2), MB_PARSE);
    cr_assert(strstr(e2.text, "skins[0].joints is empty"), "%s", e2.text);
    free(g2);
    free(nojoints);
    /* Bind matrices of the wrong type: assimp would read past them. */
    expect_error(MB_PARSE, "skins[0].inverseBindMatrices: accessors[5]",
                 ",\"inverseBindMatrices\":5", "", k_nodes, 0, 1, 1);
    /* A GLB with no buffer at all (a skeleton): the matrices go into a new BIN chunk, as
     * assimp takes a GLB's buffers[0] for it. */
    const char *skel = "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],"
                       "\"nodes\":[{\"name\":\"Hip\",\"children\":[1]},{\"name\":\"Knee\"}],"
                       "\"skins\":[{\"joints\":[0,1]}]}";
    unsigned char *sg = make_glb(skel, NULL, &len);
    mb_error e3;
    cr_assert_eq(mb_scene_read_mem(sg, len, "skeleton.glb", NULL, &s, &e3), MB_OK, "%s", e3.text);
    cr_assert_geq(mb_skeleton_find(mb_scene_skeleton(s), "Knee"), 0);
    mb_scene_destroy(s);
    free(sg);
    remove(ws_path);
    remove(colon_path);
    remove(colon_bin);
    remove(colon_dir);
    remove(glb_path);
    remove(gltf_path);
    remove(bin_path);
    remove(dir);
    free(glb);
    free(json);
}

Test(gltf_check, control_characters_in_names_become_underscores)
{
    need_assimp();
    /* They reached the terminal raw (escape sequences in `mblend info`) and made the BVH
     * writer refuse the skeleton. */
    const char *nodes =
        "[{\"name\":\"Root\",\"children\":[1,2]},{\"name\":\"Body\",\"mesh\":0,\"skin\":0},"
        "{\"name\":\"H\\u001b[31mip\\n\",\"children\":[3]},{\"name\":\"Knee\",\"translation\":[0,1,0]}]";
    mb_scene *s = NULL;
    char msg[300];
    cr_assert_eq(read_parts(k_ibm, "", nodes, 0, 1, 1, &s, msg, sizeof msg), MB_OK, "%s", msg);
    const mb_skeleton *sk = mb_scene_skeleton(s);
    cr_assert_geq(mb_skeleton_find(sk, "H_[31mip_"), 0);
    char *text = NULL;
    size_t len = 0;
    mb_error err;
    cr_assert_eq(mb_bvh_write_mem(sk, mb_scene_clip(s, 0), NULL, &text, &len, &err), MB_OK, "%s", err.text);
    free(text);
    mb_scene_destroy(s);
}

Test(gltf_check, sparse_parts_past_their_accessor_are_errors)
{
    need_assimp();
    const char *huge = ",\"sparse\":{\"count\":1000000000,\"indices\":{\"bufferView\":7,"
                       "\"componentType\":5123},\"values\":{\"bufferView\":8}}";
    expect_error(MB_PARSE, "accessors[0].sparse.count", k_ibm, huge, k_nodes, 0, 1, 1);
    /* An index naming element 7 of a 3-element accessor (read from the BIN chunk). */
    const char *one = ",\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":7,"
                      "\"componentType\":5123},\"values\":{\"bufferView\":8}}";
    expect_error(MB_PARSE, "index 7 (entry 0) is past the accessor's 3 elements", k_ibm, one,
                 k_nodes, 0, 1, 7);
    /* Two 2-byte indices in a 2-byte view. */
    const char *two = ",\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":7,"
                      "\"componentType\":5123},\"values\":{\"bufferView\":8}}";
    expect_error(MB_PARSE, "accessors[0].sparse.indices", k_ibm, two, k_nodes, 0, 1, 1);
}

Test(gltf_check, node_graphs_that_are_not_trees_are_errors)
{
    need_assimp();
    expect_error(MB_PARSE, "nodes[3] is a child of nodes[1] and nodes[2]", k_ibm, "",
                 "[{\"name\":\"Root\",\"children\":[1,2]},{\"name\":\"Body\",\"mesh\":0,"
                 "\"skin\":0,\"children\":[3]},{\"name\":\"Hip\",\"children\":[3]},{\"name\":\"Knee\"}]",
                 0, 1, 1);
    expect_error(MB_PARSE, "is its own ancestor", k_ibm, "",
                 "[{\"name\":\"Root\",\"children\":[1]},{\"name\":\"Body\",\"mesh\":0,\"skin\":0},"
                 "{\"name\":\"Hip\",\"children\":[3]},{\"name\":\"Knee\",\"children\":[2]}]",
                 0, 1, 1);
    expect_error(MB_PARSE, "nodes[2].children[0] is not one of the 4 nodes", k_ibm, "",
                 "[{\"name\":\"Root\",\"children\":[1,2]},{\"name\":\"Body\",\"mesh\":0,\"skin\":0},"
                 "{\"name\":\"Hip\",\"children\":[4]},{\"name\":\"Knee\"}]",
                 0, 1, 1);
}

Test(gltf_check, a_node_chain_deeper_than_the_skeleton_limit_is_refused_before_assimp)
{
    need_assimp();
    /* The asset's four nodes, then a chain of 20,000 under Knee (assimp 5.2.5 recursed
     * through it until the stack ran out). */
    enum { CHAIN = 20000 };
    size_t cap = 256 + (size_t)CHAIN * 48;
    char *nodes = malloc(cap);
    cr_assert_not_null(nodes);
    size_t n = (size_t)snprintf(nodes, cap,
                                "[{\"name\":\"Root\",\"children\":[1,2]},{\"name\":\"Body\","
                                "\"mesh\":0,\"skin\":0},{\"name\":\"Hip\",\"children\":[3]},"
                                "{\"name\":\"Knee\",\"children\":[4]}");
    for (int i = 0; i < CHAIN; ++i)
        n += (size_t)(i + 1 < CHAIN ? snprintf(nodes + n, cap - n, ",{\"children\":[%d]}", 5 + i)
                                    : snprintf(nodes + n, cap - n, ",{}]"));
    expect_error(MB_LIMIT, "levels deep (the skeleton limit is 4096 nodes)", k_ibm, "", nodes, 0, 1, 1);
    free(nodes);
}

/* Reads the built asset with one substring of its JSON replaced; *out (nullable) receives
 * the scene, which the caller destroys. */
static mb_status read_edited_scene(const char *from, const char *to, char *msg, size_t msg_len,
                                   mb_scene **out)
{
    unsigned char bin[BIN_LEN];
    make_bin(bin, 0, 1, 1);
    char *json = make_json(k_ibm, "", k_nodes);
    char *at = strstr(json, from);
    cr_assert_not_null(at, "no %s", from);
    size_t n = strlen(json) - strlen(from) + strlen(to) + 1;
    char *ed = malloc(n);
    cr_assert_not_null(ed);
    snprintf(ed, n, "%.*s%s%s", (int)(at - json), json, to, at + strlen(from));
    size_t len;
    unsigned char *glb = make_glb(ed, bin, &len);
    mb_error err;
    mb_scene *s = NULL;
    mb_status st = mb_scene_read_mem(glb, len, "edited.glb", NULL, &s, &err);
    snprintf(msg, msg_len, "%s", st == MB_OK ? "" : err.text);
    if (out)
        *out = s;
    else
        mb_scene_destroy(s);
    free(glb);
    free(ed);
    free(json);
    return st;
}

static mb_status read_edited(const char *from, const char *to, char *msg, size_t msg_len)
{
    return read_edited_scene(from, to, msg, msg_len, NULL);
}

Test(gltf_check, primitive_modes_and_scene_roots_are_checked)
{
    need_assimp();
    char msg[300];
    /* A triangle fan of 2 indices: assimp read past its faces (heap overflow under ASan,
     * silent in a release build); a strip or fan of 1 asks assimp for 2^64 bytes. */
    cr_assert_eq(read_edited("\"indices\":3}", "\"indices\":5,\"mode\":6}", msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, "mode 6 needs at least 3 indices, the accessor has 2"), "%s", msg);
    cr_assert_eq(read_edited("\"indices\":3}", "\"indices\":3,\"mode\":7}", msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, ".mode is not an integer from 0 to 6"), "%s", msg);
    cr_assert_eq(read_edited("\"indices\":3}", "\"indices\":3,\"mode\":6}", msg, sizeof msg), MB_OK, "%s", msg);
    /* A scene lists root nodes, each once (assimp copies a subtree per entry: a root
     * listed thousands of times asked for gigabytes). */
    cr_assert_eq(read_edited("\"nodes\":[0]}", "\"nodes\":[0,0]}", msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, "scenes[0].nodes lists nodes[0] twice"), "%s", msg);
    cr_assert_eq(read_edited("\"nodes\":[0]}", "\"nodes\":[2]}", msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, "which is a child of nodes[0]"), "%s", msg);
}

/* Accessors assimp reads into garbage without a word: a stride shorter than the element,
 * joint indices as floats, weights as plain integers; and an interpolation glTF does not
 * have. The asset's valid STEP is read. */
Test(gltf_check, strides_skin_attribute_types_and_interpolations_are_checked)
{
    need_assimp();
    char msg[300];
    cr_assert_eq(read_edited("\"byteOffset\":0,\"byteLength\":36}", "\"byteOffset\":0,\"byteLength\":36,\"byteStride\":4}",
                             msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, "byteStride 4 is shorter than its 12-byte elements"), "%s", msg);
    cr_assert_eq(read_edited("{\"bufferView\":1,\"componentType\":5121,", "{\"bufferView\":2,\"componentType\":5126,",
                             msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, "attributes.JOINTS_0 must be VEC4 unsigned bytes or shorts"), "%s", msg);
    cr_assert_eq(read_edited("{\"bufferView\":2,\"componentType\":5126,", "{\"bufferView\":1,\"componentType\":5121,",
                             msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, "attributes.WEIGHTS_0 must be VEC4 floats or normalised"), "%s", msg);
    cr_assert_eq(read_edited("\"output\":6}", "\"output\":6,\"interpolation\":\"QUADRATIC\"}", msg, sizeof msg),
                 MB_PARSE);
    cr_assert(strstr(msg, "samplers[0].interpolation is not LINEAR, STEP or CUBICSPLINE"), "%s", msg);
    cr_assert_eq(read_edited("\"output\":6}", "\"output\":6,\"interpolation\":\"STEP\"}", msg, sizeof msg),
                 MB_OK, "%s", msg);
    /* a triangle index past the positions (assimp dropped the triangle silently) */
    cr_assert_eq(read_edited("\"count\":3,\"type\":\"VEC3\"", "\"count\":2,\"type\":\"VEC3\"", msg, sizeof msg),
                 MB_PARSE);
    cr_assert(strstr(msg, "primitives[0]: index 2 is 2, past the 2 vertices"), "%s", msg);
    /* a negative POSITION index with indices present (the index check read accessors[-1]
     * and crashed before the attributes were validated) */
    cr_assert_eq(read_edited("\"POSITION\":0", "\"POSITION\":-1", msg, sizeof msg), MB_PARSE);
    cr_assert(strstr(msg, "attributes.POSITION is not one of the"), "%s", msg);
    /* a static uniform scale on an animated node is folded, not reported as dropped
     * (assimp gives the node scale keys holding it); a keyed change would be */
    mb_scene *sc = NULL;
    cr_assert_eq(read_edited_scene("{\"name\":\"Knee\",", "{\"name\":\"Knee\",\"scale\":[2,2,2],", msg,
                                   sizeof msg, &sc), MB_OK, "%s", msg);
    cr_assert_eq(mb_scene_get_info(sc).scaled_nodes, 0);
    mb_scene_destroy(sc);
    cr_assert_eq(read_edited_scene("{\"name\":\"Knee\",", "{\"name\":\"Knee\",\"scale\":[2,1,2],", msg,
                                   sizeof msg, &sc), MB_OK, "%s", msg);
    cr_assert_eq(mb_scene_get_info(sc).scaled_nodes, 1);
    mb_scene_destroy(sc);
}

/* The Knee's rotation angle at t seconds of the built asset's one clip, with its sampler's
 * interpolation set to interp. */
static double knee_angle(const char *interp, double t)
{
    unsigned char bin[BIN_LEN];
    make_bin(bin, 0, 1, 1);
    char *json = make_json(k_ibm, "", k_nodes);
    char to[96];
    snprintf(to, sizeof to, "\"output\":6,\"interpolation\":\"%s\"}", interp);
    char *at = strstr(json, "\"output\":6}");
    cr_assert_not_null(at);
    size_t n = strlen(json) + strlen(to) + 1;
    char *ed = malloc(n);
    cr_assert_not_null(ed);
    snprintf(ed, n, "%.*s%s%s", (int)(at - json), json, to, at + strlen("\"output\":6}"));
    size_t len;
    unsigned char *glb = make_glb(ed, bin, &len);
    mb_error err;
    mb_scene *s = NULL;
    cr_assert_eq(mb_scene_read_mem(glb, len, "interp.glb", NULL, &s, &err), MB_OK, "%s", err.text);
    const mb_skeleton *sk = mb_scene_skeleton(s);
    int nj = mb_skeleton_joint_count(sk), knee = mb_skeleton_find(sk, "Knee");
    mb_xform *x = calloc((size_t)nj, sizeof *x);
    cr_assert_not_null(x);
    mb_pose p = {x, nj};
    cr_assert_eq(mb_clip_sample(sk, mb_scene_clip(s, 0), t, MB_WRAP_CLAMP, p), MB_OK);
    double w = fabs(x[knee].rot[3]) > 1.0 ? 1.0 : fabs(x[knee].rot[3]);
    free(x);
    mb_scene_destroy(s);
    free(glb);
    free(ed);
    free(json);
    return 2.0 * acos(w);
}

/* A STEP sampler holds each key until the next (assimp 5.2 plays every sampler as linear:
 * the pre-check hands it linear keys that hold): the knee's quarter turn at 1 s is not
 * begun at 0.5 s, as it is halfway with LINEAR. */
Test(gltf_check, step_samplers_hold_their_keys)
{
    need_assimp();
    const double quarter = 1.5707963;
    cr_assert(fabs(knee_angle("LINEAR", 0.5) - 0.5 * quarter) < 1e-3, "%g", knee_angle("LINEAR", 0.5));
    cr_assert(knee_angle("STEP", 0.5) < 1e-3, "%g", knee_angle("STEP", 0.5));
    cr_assert(knee_angle("STEP", 0.98) < 1e-3, "%g", knee_angle("STEP", 0.98));
    cr_assert(fabs(knee_angle("STEP", 1.0) - quarter) < 1e-3, "%g", knee_angle("STEP", 1.0));
}

Test(gltf_check, json_texts_assimp_would_parse_differently_are_refused)
{
    need_assimp();
    mb_scene *s = NULL;
    mb_error err;
    /* Nested past cJSON's limit under any name (assimp reads glTF by content and its
     * parser recursed into a stack overflow), and a \u0000 in a key (cJSON ends the key
     * there, assimp's parser does not: "asset\u0000" hid the real version). */
    char *deep = deep_json(200000);
    cr_assert_eq(mb_scene_read_mem(deep, strlen(deep), "deep.json", NULL, &s, &err), MB_PARSE);
    cr_assert(strstr(err.text, "nested deeper"), "%s", err.text);
    cr_assert_eq(mb_scene_read_mem(deep, strlen(deep), NULL, NULL, &s, &err), MB_PARSE);
    free(deep);
    const char *nul = "{\"asset\\u0000\":{\"version\":\"1.0\"},\"asset\":{\"version\":\"2.0\"}}";
    cr_assert_eq(mb_scene_read_mem(nul, strlen(nul), "nul.gltf", NULL, &s, &err), MB_PARSE);
    cr_assert(strstr(err.text, "\\u0000"), "%s", err.text);
}

Test(gltf_check, key_times_below_zero_or_out_of_order_are_errors)
{
    need_assimp();
    char msg[300];
    /* assimp takes them; the clip builder refuses them (it once collapsed the clip). */
    cr_assert_neq(read_parts(k_ibm, "", k_nodes, 1.0f, 0.5f, 1, NULL, msg, sizeof msg), MB_OK);
    cr_assert_neq(read_parts(k_ibm, "", k_nodes, -1.0f, 0.5f, 1, NULL, msg, sizeof msg), MB_OK);
    cr_assert(strstr(msg, "key"), "%s", msg);
}

Test(gltf_check, the_container_and_the_json_are_checked)
{
    need_assimp();
    unsigned char bin[BIN_LEN];
    make_bin(bin, 0, 1, 1);
    char *json = make_json(k_ibm, "", k_nodes);
    size_t len;
    unsigned char *glb = make_glb(json, bin, &len);
    mb_error err;
    mb_scene *s = (mb_scene *)1;
    /* Truncated: the header's length is more than the bytes given. */
    cr_assert_eq(mb_scene_read_mem(glb, len - 16, "cut.glb", NULL, &s, &err), MB_PARSE);
    cr_assert_null(s);
    cr_assert(strstr(err.text, "the GLB header declares"), "%s", err.text);
    /* A buffer that declares more bytes than the BIN chunk holds. */
    char *big = make_json(k_ibm, "", k_nodes);
    char *at = strstr(big, "\"byteLength\":288");
    memcpy(at, "\"byteLength\":289", 16);
    free(glb);
    glb = make_glb(big, bin, &len);
    cr_assert_eq(mb_scene_read_mem(glb, len, "big.glb", NULL, &s, &err), MB_PARSE);
    cr_assert(strstr(err.text, "buffers[0] declares 289 bytes but holds 288"), "%s", err.text);
    /* A .gltf JSON text with a syntax error: its line and column. */
    const char *bad = "{\"asset\":{\"version\":\"2.0\"},\n  \"nodes\":[{\"name\" \"a\"}]}";
    cr_assert_eq(mb_scene_read_mem(bad, strlen(bad), "bad.gltf", NULL, &s, &err), MB_PARSE);
    cr_assert(strstr(err.text, "malformed JSON"), "%s", err.text);
    cr_assert_eq(err.line, 2);
    cr_assert_eq(err.column, 20, "column %d (the \"a\" where ':' belongs)", err.column);
    /* Nested beyond cJSON's limit (assimp's own parser recurses too). */
    char *deep = deep_json(3000);
    cr_assert_eq(mb_scene_read_mem(deep, strlen(deep), "deep.gltf", NULL, &s, &err), MB_PARSE);
    cr_assert(strstr(err.text, "nested deeper"), "%s", err.text);
    /* JSON that is not glTF by name or content is left to assimp (which cannot read it). */
    const char *other = "{\"hello\": 1}";
    cr_assert_eq(mb_scene_read_mem(other, strlen(other), "x.json", NULL, &s, &err), MB_PARSE);
    cr_assert(strstr(err.text, "assimp"), "%s", err.text);
    free(deep);
    free(big);
    free(glb);
    free(json);
}
