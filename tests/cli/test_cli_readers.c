/* Files mblend writes, read by other readers. three.js's BVHLoader (Debian's libjs-three,
 * run by node: tests/js/three_bvh_positions.js) ADDS a joint's OFFSET to its position
 * channels where mblend, assimp and Blender replace it; a BVH written from a glTF must place
 * every joint in three.js where `mblend positions` places it in the source. These tests
 * fail, never skip, when node or three.js is missing: scripts/setup.sh installs both.
 * The .glb files are read here with cJSON, not through mblend's reader: what a glTF player
 * sees (the loop's keys, materials, images, TEXCOORD_0). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"
#include "test_cli_util.h"
#include "test_util.h"

#define THREE_DIR "/usr/share/javascript/three"
#define THREE_SCRIPT MB_PROJECT_DIR "/tests/js/three_bvh_positions.js"

/* node on PATH (Debian's nodejs installs node and nodejs), into buf; fails the test when
 * there is none. */
static const char *find_node(char *buf, size_t size)
{
    const char *path = getenv("PATH");
    static const char *const names[] = {"node", "nodejs"};
    for (int n = 0; n < 2; ++n) {
        const char *p = path ? path : "/usr/bin";
        while (*p) {
            size_t len = strcspn(p, ":");
            snprintf(buf, size, "%.*s/%s", (int)len, p, names[n]);
            if (len > 0 && access(buf, X_OK) == 0)
                return buf;
            p += len + (p[len] == ':');
        }
    }
    cr_assert_fail("node is not installed: scripts/setup.sh installs Debian's nodejs and "
                   "libjs-three for this test");
    return NULL;
}

/* One CSV of world positions (frame,joint_index,joint_name,x,y,z). */
typedef struct positions {
    int n;
    int frame[20000];
    char name[20000][64];
    double p[20000][3];
} positions;

static positions *read_positions(const char *path)
{
    positions *ps = calloc(1, sizeof *ps);
    cr_assert_not_null(ps);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char line[512];
    cr_assert_not_null(fgets(line, sizeof line, f), "%s is empty", path);
    cr_assert(strncmp(line, "frame,joint_index,joint_name,x,y,z", 34) == 0, "%s: header %s", path,
              line);
    while (fgets(line, sizeof line, f)) {
        cr_assert_lt(ps->n, 20000, "%s: too many rows for the test", path);
        int j, i = ps->n;
        cr_assert_eq(sscanf(line, "%d,%d,%63[^,],%lf,%lf,%lf", &ps->frame[i], &j, ps->name[i],
                            &ps->p[i][0], &ps->p[i][1], &ps->p[i][2]), 6,
                     "%s: bad row %s", path, line);
        ps->n++;
    }
    fclose(f);
    return ps;
}

/* Every row of want that is not an End Site (named <parent>_End) has a row of got with the
 * same frame and name, within tol; returns the largest distance. */
static double compare_positions(const positions *want, const positions *got, double tol,
                                const char *what)
{
    double worst = 0.0;
    int matched = 0;
    for (int i = 0; i < want->n; ++i) {
        size_t len = strlen(want->name[i]);
        if (len > 4 && strcmp(want->name[i] + len - 4, "_End") == 0)
            continue;
        int k = 0;
        while (k < got->n && (got->frame[k] != want->frame[i] || strcmp(got->name[k], want->name[i])))
            ++k;
        cr_assert_lt(k, got->n, "%s: joint %s of frame %d is missing", what, want->name[i],
                     want->frame[i]);
        double d = sqrt(pow(got->p[k][0] - want->p[i][0], 2) + pow(got->p[k][1] - want->p[i][1], 2) +
                        pow(got->p[k][2] - want->p[i][2], 2));
        cr_assert(d <= tol, "%s: joint %s of frame %d is %g off (%g %g %g, want %g %g %g)", what,
                  want->name[i], want->frame[i], d, got->p[k][0], got->p[k][1], got->p[k][2],
                  want->p[i][0], want->p[i][1], want->p[i][2]);
        worst = fmax(worst, d);
        ++matched;
    }
    cr_assert_gt(matched, 0, "%s: nothing compared", what);
    return worst;
}

/* The largest coordinate magnitude: the scale of the tolerance. */
static double extent(const positions *ps)
{
    double e = 0.0;
    for (int i = 0; i < ps->n; ++i)
        for (int k = 0; k < 3; ++k)
            e = fmax(e, fabs(ps->p[i][k]));
    return e;
}

/* spec (a glTF animation) -> BVH; three.js's positions of that BVH, and mblend's of both the
 * BVH and spec, agree to 1e-5 of the body's extent (float text; the old BVH was 43 units off
 * on Fox in three.js, its OFFSET added to absolute hip positions). */
static void check_three_reads_as_mblend(const char *spec, const char *tag)
{
    need_cli();
    char node[4096];
    find_node(node, sizeof node);
    cr_assert(access(THREE_DIR "/three.js", R_OK) == 0 &&
                  access(THREE_DIR "/examples/js/loaders/BVHLoader.js", R_OK) == 0,
              "three.js is not installed in " THREE_DIR ": scripts/setup.sh installs libjs-three");
    const char *d = mb_test_scratch(tag);
    char bvh[4200], three_csv[4200], src_csv[4200], back_csv[4200];
    snprintf(bvh, sizeof bvh, "%s/out.bvh", d);
    snprintf(three_csv, sizeof three_csv, "%s/three.csv", d);
    snprintf(src_csv, sizeof src_csv, "%s/src.csv", d);
    snprintf(back_csv, sizeof back_csv, "%s/back.csv", d);
    cr_assert_eq(RUN_TO(NULL, "convert", spec, "-o", bvh), 0);
    cr_assert_eq(RUN_TO(src_csv, "positions", spec), 0);
    cr_assert_eq(RUN_TO(back_csv, "positions", bvh), 0);
    char err_path[4200];
    snprintf(err_path, sizeof err_path, "%s/node.err", d);
    int code = mb_test_exec(node, (const char *const[]){THREE_SCRIPT, bvh, THREE_DIR, NULL},
                            three_csv, err_path);
    char *err = mb_test_slurp(err_path, NULL);
    cr_assert_eq(code, 0, "three.js could not read %s: %s", bvh, err ? err : "");
    free(err);
    positions *src = read_positions(src_csv), *three = read_positions(three_csv),
              *back = read_positions(back_csv);
    double tol = 1e-5 * extent(src);
    double w3 = compare_positions(src, three, tol, "three.js");
    double wb = compare_positions(src, back, tol, "mblend reading the BVH");
    cr_log_info("%s: three.js within %g, mblend within %g (tolerance %g)", spec, w3, wb, tol);
    free(src);
    free(three);
    free(back);
    mb_test_remove_dir(d);
}

Test(cli_readers, three_js_reads_fox_walk_bvh_as_mblend)
{
    mb_test_need_assimp();
    char spec[4200];
    snprintf(spec, sizeof spec, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    check_three_reads_as_mblend(spec, "three_fox");
}

Test(cli_readers, three_js_reads_cesium_man_bvh_as_mblend)
{
    mb_test_need_assimp();
    check_three_reads_as_mblend(mb_shared_path("mesh/CesiumMan.glb"), "three_cesium");
}

/* ---------- glTF as a player reads it ---------- */

/* A .glb's JSON (parsed) and binary chunk (borrowed from bytes). */
typedef struct glb {
    unsigned char *bytes;
    cJSON *json;
    const unsigned char *bin;
    size_t bin_len;
} glb;

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static glb glb_read(const char *path)
{
    glb g = {0};
    size_t n;
    g.bytes = (unsigned char *)mb_test_slurp(path, &n);
    cr_assert_not_null(g.bytes, "cannot read %s", path);
    cr_assert(n >= 20 && memcmp(g.bytes, "glTF", 4) == 0 && le32(g.bytes + 8) == n, "%s: no glb", path);
    uint32_t jl = le32(g.bytes + 12);
    cr_assert(20 + (size_t)jl <= n && memcmp(g.bytes + 16, "JSON", 4) == 0, "%s: JSON chunk", path);
    g.json = cJSON_ParseWithLength((const char *)g.bytes + 20, jl);
    cr_assert_not_null(g.json, "%s: bad JSON", path);
    if (20 + (size_t)jl + 8 <= n) {
        g.bin_len = le32(g.bytes + 20 + jl);
        g.bin = g.bytes + 28 + jl;
        cr_assert(28 + (size_t)jl + g.bin_len <= n, "%s: BIN chunk", path);
    }
    return g;
}

static void glb_free(glb *g)
{
    cJSON_Delete(g->json);
    free(g->bytes);
}

static const cJSON *at(const cJSON *o, const char *key, int i)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    const cJSON *e = i < 0 ? a : cJSON_GetArrayItem(a, i);
    cr_assert_not_null(e, "no %s[%d]", key, i);
    return e;
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* Bytes of buffer view v (of buffer 0, the BIN chunk), its length in *len. */
static const unsigned char *view_bytes(const glb *g, int v, size_t *len)
{
    const cJSON *bv = at(g->json, "bufferViews", v);
    size_t off = (size_t)num(bv, "byteOffset");
    *len = (size_t)num(bv, "byteLength");
    cr_assert_eq(num(bv, "buffer"), 0);
    cr_assert(off + *len <= g->bin_len, "view %d outside the BIN chunk", v);
    return g->bin + off;
}

/* Accessor a as floats (a float accessor, tightly packed), count * comps values, malloc'ed. */
static float *accessor_floats(const glb *g, int a, int *count, int *comps)
{
    const cJSON *acc = at(g->json, "accessors", a);
    cr_assert_eq(num(acc, "componentType"), 5126, "accessor %d is not float", a);
    const char *type = at(acc, "type", -1)->valuestring;
    *comps = !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC2") ? 2 : !strcmp(type, "VEC3") ? 3 : 4;
    *count = num(acc, "count");
    size_t len;
    const unsigned char *p = view_bytes(g, num(acc, "bufferView"), &len);
    size_t need = (size_t)*count * (size_t)*comps * 4, off = (size_t)num(acc, "byteOffset");
    cr_assert(off + need <= len, "accessor %d outside its view", a);
    float *out = malloc(need + 4);
    cr_assert_not_null(out);
    memcpy(out, p + off, need);
    return out;
}

/* Angle between unit quaternions (either sign), degrees; well conditioned near 0. */
static double quat_deg(const float *a, const float *b)
{
    double dot = 0, dm = 0, dp = 0;
    for (int k = 0; k < 4; ++k) {
        dot += (double)a[k] * b[k];
        dm += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
        dp += ((double)a[k] + b[k]) * ((double)a[k] + b[k]);
    }
    double chord = sqrt(dot >= 0 ? dm : dp); /* |a -+ b| = 2 sin(angle / 4) */
    return 4.0 * asin(fmin(1.0, chord / 2.0)) * 180.0 / 3.14159265358979323846;
}

/* glTF players loop over the key span. The trot (a blend of Fox's Walk and Run cycles, one
 * period of 22 frames) was written with 22 keys, and its last key was 11.9 degrees from
 * the first (the right leg): a jump at every loop. Now the key that closes the loop is
 * written: 23 keys over exactly 22 frame times, the last key within 1 degree of the first
 * for every joint. */
Test(cli_readers, blended_cycle_closes_its_loop_in_gltf)
{
    need_cli();
    mb_test_need_assimp();
    const char *d = mb_test_scratch("trot_seam");
    char walk[4200], run[4200], out[4200];
    snprintf(walk, sizeof walk, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    snprintf(run, sizeof run, "%s#Run", mb_shared_path("mesh/Fox.glb"));
    snprintf(out, sizeof out, "%s/trot.glb", d);
    cr_assert_eq(RUN_TO(NULL, "blend", walk, run, "-o", out), 0);
    glb g = glb_read(out);
    const cJSON *anim = at(g.json, "animations", 0);
    const cJSON *chans = at(anim, "channels", -1);
    int rotations = 0;
    double seam = 0.0, last_step = 0.0;
    for (int c = 0; c < cJSON_GetArraySize(chans); ++c) {
        const cJSON *ch = cJSON_GetArrayItem(chans, c);
        if (strcmp(at(at(ch, "target", -1), "path", -1)->valuestring, "rotation") != 0)
            continue;
        const cJSON *smp = at(anim, "samplers", num(ch, "sampler"));
        int nt, ct, nq, cq;
        float *t = accessor_floats(&g, num(smp, "input"), &nt, &ct);
        float *q = accessor_floats(&g, num(smp, "output"), &nq, &cq);
        cr_assert(nt == 23 && nq == 23 && cq == 4, "%d times, %d keys", nt, nq);
        /* one period: 22 frames at Fox's 24 fps */
        cr_assert(fabs(t[22] - 22.0 / 24.0) < 1e-5, "key span %g s", (double)t[22]);
        seam = fmax(seam, quat_deg(&q[4 * 22], &q[0]));
        last_step = fmax(last_step, quat_deg(&q[4 * 21], &q[0]));
        ++rotations;
        free(t);
        free(q);
    }
    cr_assert_gt(rotations, 10);
    cr_assert_lt(seam, 1.0, "the loop jumps %g degrees at its seam", seam);
    /* the closing key continues the motion: the last frame is a step from the first, as
     * any other frame is from the next (the old seam, 11.9 degrees on the right leg) */
    cr_assert(last_step > 5.0 && last_step < 20.0, "last frame to first: %g degrees", last_step);
    cr_log_info("trot seam %g degrees (last frame to first %g)", seam, last_step);
    mb_scene *back; /* and mblend's own reader and glTF check take it */
    mb_error e;
    cr_assert_eq(mb_scene_read_file(out, NULL, &back, &e), MB_OK, "%s", e.text);
    mb_scene_destroy(back);
    glb_free(&g);
    mb_test_remove_dir(d);
}

/* The (POSITION, TEXCOORD_0) pairs of mesh 0's first primitive, malloc'ed [n][5]. */
static float *vertex_uvs(const glb *g, int *n)
{
    const cJSON *attr = at(at(at(at(g->json, "meshes", 0), "primitives", 0), "attributes", -1), "POSITION", -1);
    int np, cp, nu, cu;
    float *p = accessor_floats(g, attr->valueint, &np, &cp);
    attr = cJSON_GetObjectItemCaseSensitive(
        at(at(at(g->json, "meshes", 0), "primitives", 0), "attributes", -1), "TEXCOORD_0");
    cr_assert_not_null(attr, "no TEXCOORD_0");
    float *u = accessor_floats(g, attr->valueint, &nu, &cu);
    cr_assert(np == nu && cp == 3 && cu == 2, "%d positions, %d texcoords", np, nu);
    float *out = malloc((size_t)np * 5 * sizeof(float));
    cr_assert_not_null(out);
    for (int i = 0; i < np; ++i) {
        memcpy(&out[5 * i], &p[3 * i], 12);
        memcpy(&out[5 * i + 3], &u[2 * i], 8);
    }
    free(p);
    free(u);
    *n = np;
    return out;
}

/* Whether pair a (position, uv) is among the n pairs of set: the same uv to 1e-6 and the
 * same position to ptol. */
static int has_vertex(const float *set, int n, const float *a, double ptol)
{
    for (int i = 0; i < n; ++i) {
        const float *b = &set[5 * i];
        if (fabsf(a[3] - b[3]) <= 1e-6f && fabsf(a[4] - b[4]) <= 1e-6f &&
            fabs((double)a[0] - b[0]) <= ptol && fabs((double)a[1] - b[1]) <= ptol &&
            fabs((double)a[2] - b[2]) <= ptol)
            return 1;
    }
    return 0;
}

/* A glTF character converted to glTF keeps its look: the written file has a material with
 * a baseColorTexture whose image is the source's (the same bytes), and every vertex's
 * TEXCOORD_0 is the source's for the vertex at that position (both ways: assimp may merge
 * identical vertices; it flips v on import, which the writer undoes). Before, the output had
 * one flat material and no TEXCOORD_0. */
static void check_look_kept(const char *file, const char *tag)
{
    need_cli();
    mb_test_need_assimp();
    const char *d = mb_test_scratch(tag);
    char out[4200];
    snprintf(out, sizeof out, "%s/out.glb", d);
    cr_assert_eq(RUN_TO(NULL, "convert", mb_shared_path(file), "-o", out), 0);
    glb src = glb_read(mb_shared_path(file)), got = glb_read(out);
    int prim_mat = num(at(at(got.json, "meshes", 0), "primitives", 0), "material");
    const cJSON *pbr = at(at(got.json, "materials", prim_mat), "pbrMetallicRoughness", -1);
    int tex = at(at(pbr, "baseColorTexture", -1), "index", -1)->valueint;
    const cJSON *img = at(got.json, "images", num(at(got.json, "textures", tex), "source"));
    const cJSON *src_img = at(src.json, "images", 0);
    size_t la, lb;
    const unsigned char *a = view_bytes(&got, num(img, "bufferView"), &la);
    const unsigned char *b = view_bytes(&src, num(src_img, "bufferView"), &lb);
    cr_assert(la == lb && memcmp(a, b, la) == 0, "the image is not the source's (%zu, %zu bytes)", la, lb);
    cr_assert_str_eq(at(img, "mimeType", -1)->valuestring, at(src_img, "mimeType", -1)->valuestring);
    int ns, ng;
    float *vs = vertex_uvs(&src, &ns), *vg = vertex_uvs(&got, &ng);
    double size = 0;
    for (int i = 0; i < 3 * ns; ++i)
        size = fmax(size, fabs(vs[5 * (i / 3) + i % 3]));
    double ptol = 1e-5 * size;
    for (int i = 0; i < ng; ++i)
        cr_assert(has_vertex(vs, ns, &vg[5 * i], ptol), "%s: written vertex %d (uv %g %g) is no "
                  "source vertex", file, i, vg[5 * i + 3], vg[5 * i + 4]);
    for (int i = 0; i < ns; ++i)
        cr_assert(has_vertex(vg, ng, &vs[5 * i], ptol), "%s: source vertex %d (uv %g %g) is not "
                  "written", file, i, vs[5 * i + 3], vs[5 * i + 4]);
    cr_log_info("%s: %d source vertices, %d written, %zu image bytes", file, ns, ng, la);
    /* mblend's reader (its glTF check first, gltf_check.c) takes the file back, look and all */
    mb_scene *back;
    mb_error e;
    cr_assert_eq(mb_scene_read_file(out, NULL, &back, &e), MB_OK, "%s", e.text);
    const mb_mesh_look *bl = mb_scene_look(back);
    cr_assert(bl && bl->texcoords && bl->image_count == 1 && bl->images[0].size == la,
              "%s read back without its look", out);
    mb_scene_destroy(back);
    free(vs);
    free(vg);
    glb_free(&src);
    glb_free(&got);
    mb_test_remove_dir(d);
}

Test(cli_readers, fox_keeps_its_texture_and_uvs) { check_look_kept("mesh/Fox.glb", "look_fox"); }
Test(cli_readers, cesium_man_keeps_its_texture_and_uvs)
{
    check_look_kept("mesh/CesiumMan.glb", "look_cesium");
}
