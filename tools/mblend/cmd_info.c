/* mblend info FILE: a summary of a BVH file. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_pose.h"
#include "render.h"

void cmd_info_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend info [--lenient] [--no-table] FILE[#Animation]\n"
            "\n"
            "Summarise a BVH file: joint count (real joints and End Sites separately), the\n"
            "channel layout and Euler rotation order of every joint (and whether all joints\n"
            "share one order), frames, frame time, fps, duration, file size, the skeleton's\n"
            "up axis (the axis along which the body extends most over the frames), whether\n"
            "frame 0 is an added T-pose, the body height, the feet, and the travel and speed\n"
            "of the moving root (the first joint whose translation changes).\n"
            "Lengths are in the file's units (BVH: often cm or inches).\n"
            "\n"
            "A glTF, FBX or other file read through assimp (FILE or FILE#Animation) gets its\n"
            "node count, mesh (vertices, triangles, skin joints, influences), every animation\n"
            "(frames, rate, key span) and the same motion summary for the chosen animation\n"
            "(default: the first), with the format's +Y up. A file is read as BVH when its name\n"
            "ends in .bvh or its text starts with HIERARCHY.\n"
            "\n"
            "options:\n"
            "  --lenient    accept a Frames line that disagrees with the data (warning on stderr)\n"
            "  --no-table   omit the per-joint table\n"
            "  -h, --help   show this help\n");
}

enum { OPT_NO_TABLE = 1 };

/* "pos XYZ rot ZXY": consecutive channels of one kind grouped. */
static void channel_summary(const mb_skeleton *s, int j, char *buf, size_t size)
{
    const mb_channel *ch;
    int n = mb_skeleton_channels(s, j, &ch);
    size_t len = 0;
    buf[0] = '\0';
    if (n == 0) {
        snprintf(buf, size, "%s", mb_skeleton_is_end_site(s, j) ? "(End Site)" : "-");
        return;
    }
    int prev_kind = -1;
    for (int k = 0; k < n && len + 6 < size; ++k) {
        int kind = ch[k] >= MB_CH_XROT;
        char axis = (char)('X' + (kind ? (int)ch[k] - (int)MB_CH_XROT : (int)ch[k]));
        if (kind != prev_kind)
            len += (size_t)snprintf(buf + len, size - len, "%s%s ", len ? " " : "",
                                    kind ? "rot" : "pos");
        buf[len++] = axis;
        buf[len] = '\0';
        prev_kind = kind;
    }
}

static int has_rotation(const mb_skeleton *s, int j)
{
    const mb_channel *ch;
    int n = mb_skeleton_channels(s, j, &ch);
    for (int k = 0; k < n; ++k)
        if (ch[k] >= MB_CH_XROT)
            return 1;
    return 0;
}

/* Up axis, moving root, feet, height and speed come from the library's motion analysis,
 * so info reports exactly what blend and transition will use. */
static void print_motion(const char *path, const mb_skeleton *s, const mb_clip *c,
                         mb_axis up_axis)
{
    mb_analyze_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.up_axis = up_axis;
    int n = mb_skeleton_joint_count(s);
    int frames = mb_clip_frame_count(c);
    double dt = mb_clip_frame_time(c);
    static const char axis_name[3] = {'X', 'Y', 'Z'};
    mb_motion_info mi;
    mb_error e;
    /* Without frames, analyse the rest pose (a one-frame clip of identity rotations). */
    mb_clip *rest = NULL;
    if (frames < 1) {
        mb_clip_desc cd = {0};
        cd.joint_count = n;
        cd.frame_count = 1;
        cd.frame_time = dt;
        if (mb_clip_create(&cd, &rest, NULL) != MB_OK)
            rest = NULL;
    }
    const mb_clip *ac = rest ? rest : c;
    if (mb_clip_frame_count(ac) < 1) {
        printf("up axis:        unknown (no pose to analyse)\n");
    } else if (mb_motion_analyze(s, ac, &ad, path, &mi, &e) != MB_OK) {
        printf("up axis:        unknown (%s)\n", e.text);
    } else {
        printf("up axis:        %c-up (%s%s)\n", axis_name[mb_axis_index(mi.up_axis)],
               up_axis != MB_AXIS_DETECT ? "the format's convention"
               : mi.left_foot >= 0 ? "from the feet to the root" : "the body's largest extent",
               rest ? ", rest pose" : "");
        if (mi.first_frame)
            printf("frame 0:        a T-pose added before the motion (cgspeed CMU style); left "
                   "out of the analysis\n");
        printf("height:         %.6g (mean extent of the body along %c)\n", (double)mi.height,
               axis_name[mb_axis_index(mi.up_axis)]);
        if (mi.left_foot >= 0)
            printf("feet:           %s, %s (ground at %.6g)\n", mb_skeleton_name(s, mi.left_foot),
                   mb_skeleton_name(s, mi.right_foot), (double)mi.ground);
        else
            printf("feet:           not found (no joints named like feet, fewer than two End Sites below the root)\n");
        mb_xform *pose = malloc((size_t)n * sizeof *pose);
        float(*world)[16] = malloc((size_t)n * sizeof *world);
        double ends[2][3];
        int ok = pose && world;
        for (int k = 0; ok && k < 2; ++k) {
            ok = cli_frame_world(s, ac, k == 0 ? mi.first_frame : mb_clip_frame_count(ac) - 1,
                                 pose, world) == MB_OK;
            for (int a3 = 0; ok && a3 < 3; ++a3)
                ends[k][a3] = world[mi.root][12 + a3] + 0.0; /* + 0.0: no "-0" printed */
        }
        free(pose);
        free(world);
        if (ok) {
            double h2 = 0.0;
            for (int k = 0; k < 3; ++k)
                if (k != mb_axis_index(mi.up_axis))
                    h2 += (ends[1][k] - ends[0][k]) * (ends[1][k] - ends[0][k]);
            printf("root travel:    %s (%.6g, %.6g, %.6g) -> (%.6g, %.6g, %.6g); horizontal: "
                   "net %.6g, average speed %.6g per s\n",
                   mb_skeleton_name(s, mi.root), ends[0][0], ends[0][1], ends[0][2], ends[1][0],
                   ends[1][1], ends[1][2], sqrt(h2), (double)mi.speed);
        }
    }

    mb_clip_destroy(rest);
}

/* One row per node: index, name, parent and (BVH) the channel layout. */
static void print_table(const mb_skeleton *s, int channels)
{
    int n = mb_skeleton_joint_count(s);
    const int *parent = mb_skeleton_parents(s);

    int w = 4;
    for (int j = 0; j < n; ++j) {
        int l = (int)strlen(mb_skeleton_name(s, j));
        w = l > w ? l : w;
    }
    printf("\n%5s  %-*s  %-*s  %s\n", "index", w, "name", w, "parent", channels ? "channels" : "");
    for (int j = 0; j < n; ++j) {
        char ch[64] = "";
        if (channels)
            channel_summary(s, j, ch, sizeof ch);
        printf("%5d  %-*s  %-*s  %s\n", j, w, mb_skeleton_name(s, j), w,
               parent[j] < 0 ? "-" : mb_skeleton_name(s, parent[j]), ch);
    }
}

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* A glTF/FBX/... scene (through assimp): nodes, mesh, animations, then the same motion
 * summary as for BVH on the chosen animation (file.glb#Name, default the first). */
static int info_scene(const char *cmd, const char *spec, cli_clip *in, int table)
{
    cli_src src;
    cli_src_opts o;
    memset(&o, 0, sizeof o);
    int rc = cli_src_open_input(cmd, spec, &o, in, &src);
    if (rc != CLI_EXIT_OK)
        return rc;
    const char *path = src.path;
    const mb_skeleton *s = src.skel;
    printf("file:           %s (%lld bytes)\n", path, file_size(path));
    printf("nodes:          %d\n", mb_skeleton_joint_count(s));
    mb_scene_info si = mb_scene_get_info(src.scene);
    if (src.mesh) {
        mb_mesh_info mi = mb_mesh_get_info(src.mesh);
        printf("mesh:           %d vertices, %d triangles (%d meshes merged, %d skinned), %d skin "
               "joints, up to %d influences per vertex%s, size %.6g\n",
               mi.vertex_count, mi.triangle_count, si.meshes, si.skinned_meshes,
               mi.skin_joint_count, mi.max_influences,
               mi.cut_vertices ? " (cut to 4)" : "", (double)mi.size);
    } else {
        printf("mesh:           none\n");
    }
    if (si.scaled_nodes)
        printf("scaled nodes:   %d (mblend drops scale)\n", si.scaled_nodes);
    int clips = mb_scene_clip_count(src.scene);
    printf("animations:     %d%s\n", clips, clips ? "" : " (the bind pose is analysed)");
    for (int i = 0; i < clips; ++i) {
        const mb_clip *c = mb_scene_clip(src.scene, i);
        double dt = mb_clip_frame_time(c);
        printf("  %c %-24s %6d frames at %.6g fps, keys over %.6g s\n", c == src.clip ? '*' : ' ',
               mb_scene_clip_name(src.scene, i), mb_clip_frame_count(c), 1.0 / dt,
               (mb_clip_frame_count(c) - 1) * dt);
    }
    if (si.resampled_clips)
        printf("                (%d animations had keys off one grid: resampled)\n",
               si.resampled_clips);
    printf("analysed:       %s\n", src.clip_name);
    print_motion(path, s, src.clip, src.up);
    if (table)
        print_table(s, 0);
    cli_src_close(&src);
    return CLI_EXIT_OK;
}

/* The BVH part of info: file size, joints and End Sites (and the ROOTs' group), Euler
 * orders, frames and timing. */
static void print_bvh_layout(const char *path, const mb_skeleton *s, const mb_clip *c)
{
    int n = mb_skeleton_joint_count(s);
    int end_sites = 0, with_rot = 0;
    int order_count[6] = {0};
    for (int j = 0; j < n; ++j) {
        if (mb_skeleton_is_end_site(s, j))
            ++end_sites;
        else if (has_rotation(s, j)) {
            ++with_rot;
            order_count[mb_skeleton_rot_order(s, j)]++;
        }
    }
    int frames = mb_clip_frame_count(c);
    double dt = mb_clip_frame_time(c);
    printf("file:           %s (%lld bytes)\n", path, file_size(path));
    const int group = mb_skeleton_is_roots_group(s, 0);
    printf("joints:         %d joints + %d End Sites (%d nodes%s), %d channels\n",
           n - end_sites - group, end_sites, n, group ? " with the group" : "",
           mb_skeleton_channel_count(s));
    if (group) {
        /* a multi-ROOT file: node 0 only holds the ROOTs (re-export writes them, not it) */
        const int *par = mb_skeleton_parents(s);
        int roots = 0;
        for (int j = 1; j < n; ++j)
            roots += par[j] == 0;
        printf("roots:          %d ROOTs, under node 0 '%s' (not in the file: it holds them)\n",
               roots, mb_skeleton_name(s, 0));
    }
    int distinct = 0;
    for (int o = 0; o < 6; ++o)
        distinct += order_count[o] > 0;
    if (distinct == 0) {
        printf("rotation order: none (no rotation channels)\n");
    } else if (distinct == 1) {
        for (int o = 0; o < 6; ++o)
            if (order_count[o])
                printf("rotation order: %s (all %d joints with rotation channels)\n",
                       mb_euler_order_name((mb_euler_order)o), with_rot);
    } else {
        printf("rotation order: mixed:");
        const char *sep = " ";
        for (int o = 0; o < 6; ++o)
            if (order_count[o]) {
                printf("%s%s (%d joints)", sep, mb_euler_order_name((mb_euler_order)o),
                       order_count[o]);
                sep = ", ";
            }
        printf("\n");
    }
    printf("frames:         %d, frame time %.9g s (%.6g fps), duration %.6g s\n", frames, dt,
           1.0 / dt, mb_clip_duration(c));

}

int cmd_info(int argc, char **argv)
{
    static const cli_opt opts[] = {CLI_OPTION_LENIENT,
                                      {"no-table", 0, 0, OPT_NO_TABLE},
                                      {NULL, 0, 0, 0}};
    const char *cmd = "mblend info";
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    const char *path = NULL;
    int lenient = 0, table = 1, id;
    while ((id = cli_next(&a, opts)) != CLI_END) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cmd_info_usage(stdout); return CLI_EXIT_OK;
        case CLI_OPT_LENIENT: lenient = 1; break;
        case OPT_NO_TABLE: table = 0; break;
        case CLI_OPERAND:
            if (path)
                return cli_usage_error(cmd, "unexpected argument '%s' (one FILE only)", a.arg);
            path = a.arg;
            break;
        default: break;
        }
    }
    if (!path)
        return cli_usage_error(cmd, "missing FILE");
    cli_clip in;
    int rc = cli_input_open(cmd, path, lenient, 1, &in);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (in.scene)
        return info_scene(cmd, path, &in, table);
    const mb_skeleton *s = in.s;
    const mb_clip *c = in.c;
    path = in.file;
    print_bvh_layout(path, s, c);
    print_motion(path, s, c, MB_AXIS_DETECT);
    if (table)
        print_table(s, 1);
    cli_clip_close(&in);
    return rc;
}
