/* Motion sources for "mblend skin" and "mblend render": a BVH clip (with a generated skin or
 * a mesh mapped by joint name) or a glTF/FBX/... scene with its own mesh and animations. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_pose.h"
#include "render.h"



void cli_src_close(cli_src *s)
{
    free(s->rigid);
    mb_mesh_destroy(s->gen_mesh);
    mb_clip_destroy(s->mapped);
    mb_scene_destroy(s->mesh_scene);
    cli_clip_close(&s->in);
    /* path survives: error messages after a close still name the file */
    char path[sizeof s->path];
    memcpy(path, s->path, sizeof path);
    memset(s, 0, sizeof *s);
    memcpy(s->path, path, sizeof path);
}

/* The joint below the common ancestor of a and b on a's side: a hip when a and b are feet. */
static int branch_of(const int *parents, int a, int b)
{
    for (int x = a; x >= 0; x = parents[x]) {
        /* is parents[x] an ancestor of b (or b itself)? */
        int p = parents[x];
        if (p < 0)
            return x;
        for (int y = b; y >= 0; y = parents[y])
            if (y == p)
                return x;
    }
    return a;
}

/* forward = up x right, right the mean of right hip minus left hip over the clip (pose and
 * world are scratch for the skeleton). Returns whether that gives a direction. */
static int forward_from_hips(const cli_src *s, const mb_motion_info *info, mb_xform *pose,
                             float (*world)[16], float f[3])
{
    const int *parents = mb_skeleton_parents(s->skel);
    int u = mb_axis_index(s->up);
    int frames = mb_clip_frame_count(s->clip), a = (u + 1) % 3, b = (u + 2) % 3;
    int lh = branch_of(parents, info->left_foot, info->right_foot);
    int rh = branch_of(parents, info->right_foot, info->left_foot);
    double r[3] = {0, 0, 0};
    int step = frames > 64 ? frames / 64 : 1;
    for (int fr = 0; fr < frames; fr += step) {
        if (cli_frame_world(s->skel, s->clip, fr, pose, world) != MB_OK)
            break;
        /* a hip at the branch point itself (zero offset) says nothing: walk down the leg
         * until the two sides are apart */
        int l = info->left_foot, rr = info->right_foot;
        int lj = lh, rj = rh;
        for (int guard = 0; guard < 8; ++guard) {
            float d = 0;
            for (int k = 0; k < 3; ++k)
                if (k != u)
                    d += (world[rj][12 + k] - world[lj][12 + k]) * (world[rj][12 + k] - world[lj][12 + k]);
            if (d > 1e-8f)
                break;
            /* one joint further toward each foot */
            int nl = l, nr = rr;
            while (parents[nl] != lj && parents[nl] >= 0)
                nl = parents[nl];
            while (parents[nr] != rj && parents[nr] >= 0)
                nr = parents[nr];
            if (nl == lj || nr == rj)
                break;
            lj = nl;
            rj = nr;
        }
        for (int k = 0; k < 3; ++k)
            r[k] += world[rj][12 + k] - world[lj][12 + k];
    }
    r[mb_axis_index(s->up)] = 0;
    f[a] = (float)-r[b]; /* forward = up x right */
    f[b] = (float)r[a];
    return sqrtf(f[a] * f[a] + f[b] * f[b]) > 1e-6f;
}

/* The facing direction: the character's right is the mean of right hip minus left hip (the
 * joints where the legs branch off, found from the feet) over the clip, and forward = up x
 * right; without feet, the travel of the moving root; else +Z (+X when Z is up). info is
 * the clip's analysis (NULL when it failed). */
static void find_forward(cli_src *s, const mb_motion_info *info)
{
    float f[3] = {0, 0, 0};
    int nj = mb_skeleton_joint_count(s->skel), frames = mb_clip_frame_count(s->clip);
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    float(*world)[16] = malloc((size_t)nj * sizeof *world);
    int found = 0;
    if (pose && world && frames > 0 && info && info->left_foot >= 0 && info->right_foot >= 0 &&
        info->left_foot != info->right_foot)
        found = forward_from_hips(s, info, pose, world, f);
    if (!found && pose && world && frames > 1 &&
        cli_frame_world(s->skel, s->clip, 0, pose, world) == MB_OK) {
        int r = s->root;
        float p0[3] = {world[r][12], world[r][13], world[r][14]};
        if (cli_frame_world(s->skel, s->clip, frames - 1, pose, world) == MB_OK) {
            for (int k = 0; k < 3; ++k)
                f[k] = world[r][12 + k] - p0[k];
            f[mb_axis_index(s->up)] = 0;
            found = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) > 1e-3f;
        }
    }
    if (!found) {
        memset(f, 0, sizeof f);
        f[s->up == MB_AXIS_Z ? 0 : 2] = 1;
    }
    float n = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int k = 0; k < 3; ++k)
        s->forward[k] = f[k] / n;
    free(pose);
    free(world);
}

/* A BVH file: its skeleton and clip, the up axis detected. Returns an CLI_EXIT_* code. */
static int use_bvh(const char *cmd, cli_src *s)
{
    const char *path = s->path;
    if (mb_clip_frame_count(s->clip) < 1)
        return cli_input_error(cmd, "%s: the file has no frames", path);
    s->from_bvh = 1;
    mb_motion_info info;
    s->up = MB_AXIS_Y;
    if (mb_motion_analyze(s->skel, s->clip, NULL, path, &info, NULL) == MB_OK)
        s->up = info.up_axis;
    return CLI_EXIT_OK;
}

/* A still mesh: one frame of its bind pose (every node of a scene skeleton has position
 * channels, so every translation is tracked), into s->mapped. */
static mb_status still_clip(cli_src *s, const mb_mesh *m)
{
    int nj = mb_skeleton_joint_count(s->skel), nt;
    const int *tracked = mb_skeleton_translation_joints(s->skel, &nt);
    const mb_xform *bind = mb_mesh_bind_pose(m);
    float *rot = malloc((size_t)nj * 4 * sizeof(float)), *tr = malloc(((size_t)nt * 3 + 1) * sizeof(float));
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = nj;
    cd.frame_count = 1;
    cd.frame_time = 1.0 / 30.0;
    cd.rotations = rot;
    cd.translation_joints = tracked;
    cd.translation_count = nt;
    cd.translations = nt > 0 ? tr : NULL;
    mb_status st = MB_NOMEM;
    if (rot && tr) {
        for (int j = 0; j < nj; ++j)
            memcpy(&rot[4 * j], bind[j].rot, 4 * sizeof(float));
        for (int t = 0; t < nt; ++t)
            memcpy(&tr[3 * t], bind[tracked[t]].pos, 3 * sizeof(float));
        st = mb_clip_create(&cd, &s->mapped, NULL);
    }
    free(rot);
    free(tr);
    return st;
}

/* A glTF/FBX/... scene: its skeleton, mesh and the animation the loader picked (a still
 * mesh without animations plays its bind pose). */
static int use_scene(const char *cmd, cli_src *s)
{
    const char *path = s->path;
    s->up = MB_AXIS_Y; /* glTF is +Y up */
    for (int i = 0; i < mb_scene_clip_count(s->scene); ++i)
        if (mb_scene_clip(s->scene, i) == s->clip)
            s->clip_name = mb_scene_clip_name(s->scene, i);
    if (!s->clip && mb_scene_mesh(s->scene)) {
        mb_status st = still_clip(s, mb_scene_mesh(s->scene));
        if (st != MB_OK)
            return cli_input_error(cmd, "%s: %s", path, mb_status_str(st));
        s->clip = s->mapped;
        s->clip_name = "bind";
    } else if (!s->clip) {
        return cli_input_error(cmd, "%s: the file has neither animations nor a mesh", path);
    }
    s->mesh = mb_scene_mesh(s->scene);
    return CLI_EXIT_OK;
}

/* --mesh: the clip mapped onto mesh_path's skeleton by joint name; the joints left
 * unmatched are listed on stderr. */
static int map_onto_mesh(const char *cmd, const char *spec, const char *mesh_path, cli_src *s)
{
    int rc = cli_load_scene(cmd, mesh_path, &s->mesh_scene);
    if (rc != CLI_EXIT_OK)
        return rc;
    const mb_mesh *m = mb_scene_mesh(s->mesh_scene);
    if (!m)
        return cli_input_error(cmd, "%s: the file has no mesh", mesh_path);
    const mb_skeleton *to = mb_scene_skeleton(s->mesh_scene);
    mb_clip_map_desc md;
    memset(&md, 0, sizeof md);
    md.from = s->skel;
    md.clip = s->clip;
    md.to = to;
    md.to_bind = mb_mesh_bind_pose(m);
    int nt = mb_skeleton_joint_count(to), unmatched = 0;
    int *from = malloc((size_t)nt * sizeof *from);
    mb_clip *mapped = NULL;
    mb_status st = from ? mb_clip_map(&md, &mapped, from, &unmatched, NULL) : MB_NOMEM;
    if (st != MB_OK) {
        free(from);
        if (st == MB_MISMATCH)
            return cli_input_error(cmd, "%s: no joint of %s has a name in %s (the clip "
                                   "is mapped by joint name)", spec, mesh_path, spec);
        return cli_input_error(cmd, "%s: %s", mesh_path, mb_status_str(st));
    }
    if (unmatched > 0) {
        fprintf(stderr, "%s: %d of %d joints of %s have no joint of the same name in %s and "
                "keep their bind pose:", cmd, unmatched, nt, mesh_path, spec);
        int shown = 0;
        for (int j = 0; j < nt && shown < 12; ++j)
            if (from[j] < 0 && !mb_skeleton_is_end_site(to, j)) {
                fprintf(stderr, "%s %s", shown ? "," : "", mb_skeleton_name(to, j));
                ++shown;
            }
        fprintf(stderr, "%s\n", unmatched > shown ? ", ..." : "");
    }
    free(from);
    mb_clip_destroy(s->mapped);
    s->mapped = mapped;
    s->skel = to;
    s->clip = mapped;
    s->mesh = m;
    s->up = MB_AXIS_Y;
    return CLI_EXIT_OK;
}

/* What the renderer and the generated skin need from the clip's analysis: the moving root,
 * the bones that keep their length, the facing direction. Returns an CLI_EXIT_* code. */
static int analyse(const char *cmd, cli_src *s)
{
    mb_motion_info info;
    mb_analyze_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.up_axis = s->up;
    int analysed = mb_motion_analyze(s->skel, s->clip, &ad, "", &info, NULL) == MB_OK;
    s->root = analysed ? info.root : 0;
    s->rigid = malloc((size_t)mb_skeleton_joint_count(s->skel));
    mb_status st = s->rigid ? mb_skin_rigid_bones(s->skel, s->clip, NULL, s->rigid, NULL) : MB_NOMEM;
    if (st != MB_OK)
        return cli_input_error(cmd, "%s: %s", s->path, mb_status_str(st));
    find_forward(s, analysed ? &info : NULL);
    return CLI_EXIT_OK;
}

int cli_src_open(const char *cmd, const char *spec, const cli_src_opts *o, cli_src *s)
{
    cli_clip in;
    int rc = cli_input_open(cmd, spec, o->lenient, 1, &in);
    if (rc != CLI_EXIT_OK) {
        memset(s, 0, sizeof *s);
        return rc;
    }
    return cli_src_open_input(cmd, spec, o, &in, s);
}

int cli_src_open_input(const char *cmd, const char *spec, const cli_src_opts *o, cli_clip *in,
                       cli_src *s)
{
    memset(s, 0, sizeof *s);
    s->in = *in;
    memset(in, 0, sizeof *in);
    snprintf(s->path, sizeof s->path, "%s", s->in.file);
    s->scene = s->in.scene;
    s->skel = s->in.s;
    s->clip = s->in.c;
    int rc = s->scene ? use_scene(cmd, s) : use_bvh(cmd, s);
    if (rc == CLI_EXIT_OK && !s->clip_name) {
        const char *base = strrchr(s->path, '/');
        s->clip_name = base ? base + 1 : spec;
    }
    /* The mesh: --mesh maps the clip onto another file's skeleton by joint name. */
    if (rc == CLI_EXIT_OK && o->mesh_path && !o->no_mesh) {
        rc = map_onto_mesh(cmd, spec, o->mesh_path, s);
    } else if (rc == CLI_EXIT_OK && o->no_mesh) {
        s->mesh = NULL;
    } else if (rc == CLI_EXIT_OK && (o->auto_mesh || !s->mesh)) {
        /* the clip goes along: a bone that stretches over it (a static root above the
         * moving hips) gets no capsule */
        mb_skin_gen_desc gd;
        memset(&gd, 0, sizeof gd);
        gd.clip = s->clip;
        mb_status st = mb_skin_generate(s->skel, &gd, &s->gen_mesh, NULL);
        if (st != MB_OK)
            rc = cli_input_error(cmd, "%s: cannot generate a skin: %s", spec, mb_status_str(st));
        s->mesh = s->gen_mesh;
    }
    if (rc == CLI_EXIT_OK)
        rc = analyse(cmd, s);
    if (rc != CLI_EXIT_OK)
        cli_src_close(s);
    return rc;
}

int render_skinner_init(render_skinner *k, const cli_src *s)
{
    memset(k, 0, sizeof *k);
    k->nj = mb_skeleton_joint_count(s->skel);
    k->pose = malloc((size_t)k->nj * sizeof *k->pose);
    k->world = malloc((size_t)k->nj * sizeof *k->world);
    if (!k->pose || !k->world)
        return -1;
    if (s->mesh) {
        k->np = mb_mesh_skin_joint_count(s->mesh);
        k->nv = mb_mesh_vertex_count(s->mesh);
        k->pal = malloc((size_t)k->np * sizeof *k->pal);
        k->dq = malloc((size_t)k->np * sizeof *k->dq);
        k->pos = malloc((size_t)k->nv * 3 * sizeof(float));
        k->nrm = malloc((size_t)k->nv * 3 * sizeof(float));
        if (!k->pal || !k->dq || !k->pos || !k->nrm)
            return -1;
    }
    return 0;
}

void render_skinner_free(render_skinner *k)
{
    free(k->pose);
    free(k->world);
    free(k->pal);
    free(k->dq);
    free(k->pos);
    free(k->nrm);
    memset(k, 0, sizeof *k);
}

mb_status render_skinner_frame(render_skinner *k, const cli_src *s, int frame, mb_skin_method method)
{
    mb_status st = cli_frame_world(s->skel, s->clip, frame, k->pose, k->world);
    if (st != MB_OK || !s->mesh)
        return st;
    mb_skin_palette_desc pd;
    memset(&pd, 0, sizeof pd);
    pd.world = (const float(*)[16])k->world;
    pd.world_count = k->nj;
    pd.inverse_bind = (const float(*)[16])mb_mesh_inverse_binds(s->mesh);
    pd.joints = mb_mesh_skin_joints(s->mesh);
    pd.count = k->np;
    pd.out = k->pal;
    pd.out_count = k->np;
    if ((st = mb_skin_palette_run(&pd)) != MB_OK)
        return st;
    if (method == MB_SKIN_DQS && (st = mb_skin_dq_palette((const float(*)[16])k->pal, k->np, k->dq)) != MB_OK)
        return st;
    mb_skin_desc d;
    memset(&d, 0, sizeof d);
    mb_skin_desc_from_mesh(s->mesh, &d);
    d.method = method;
    d.palette = (const float(*)[16])k->pal;
    d.dq_palette = (const float(*)[8])k->dq;
    d.palette_count = k->np;
    d.out_positions = k->pos;
    d.out_normals = k->nrm;
    return mb_skin_run(&d);
}
