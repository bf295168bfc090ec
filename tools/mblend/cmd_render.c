/* mblend render IN -o OUT.png|OUT.gif|OUT.ppm: a contact sheet (or an animation) of frames,
 * drawn by a small software rasterizer. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "render.h"

void cmd_render_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend render IN -o OUT.png|OUT.gif|OUT.ppm [--frames A:B:STEP]\n"
            "                     [--view front|side|top] [--size WxH] [options]\n"
            "\n"
            "Draw frames of a clip: the skinned mesh shaded (or the skeleton's bones), one\n"
            "frame per cell, with a small software rasterizer.\n"
            "\n"
            "IN is a BVH file (for example a blend result) or a glTF/GLB, FBX, Collada or\n"
            "DirectX .x file read through assimp (file.glb#Walk picks an animation; default:\n"
            "the first). BVH files carry no mesh: a capsule skin is generated from the\n"
            "skeleton.\n"
            "\n"
            "OUT.png   a contact sheet of the frames (libpng)\n"
            "OUT.gif   an animation, one frame per image, looping (giflib)\n"
            "OUT.ppm   the contact sheet as binary PPM (P6)\n"
            "\n"
            "options:\n"
            "  -o, --output OUT     the image to write (temporary file + rename)\n"
            "  --frames A:B:STEP    frames A, A+STEP, ... below B (each part optional; 'N' alone\n"
            "                       is frame N). Default: 8 frames spread over the clip for a\n"
            "                       sheet, every frame (at most 30 per second) for a GIF\n"
            "  --view V             front (default: the character faces you), side (it faces\n"
            "                       right) or top\n"
            "  --size WxH           pixels per frame (default 240x320)\n"
            "  --columns N          frames per row of the sheet (default: up to 8)\n"
            "  --skeleton           draw the bones only (no mesh)\n"
            "  --bones              draw the bones over the mesh\n"
            "  --mesh MESH          skin onto MESH's mesh, the clip mapped by joint name\n"
            "  --auto-mesh          use a generated capsule skin even when IN has a mesh\n"
            "  --method lbs|dqs     skinning method (default lbs)\n"
            "  --up x|y|z           the up axis (default: detected for BVH, y for glTF)\n"
            "  --no-labels          no frame numbers in the cells\n"
            "  --lenient            accept a BVH Frames line that disagrees with the data\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples:\n"
            "  mblend render out/jog.bvh -o jog.png --view side\n"
            "  mblend render Fox.glb#Run --frames 0:24:3 -o fox.png --view side\n"
            "  mblend render data/bvh/walk.bvh -o walk.gif --size 200x260\n");
}

enum {
    OPT_VIEW = 1,
    OPT_SIZE,
    OPT_COLUMNS,
    OPT_SKELETON,
    OPT_BONES,
    OPT_MESH,
    OPT_AUTO,
    OPT_NOLABELS
};


/* What the command line asks for. */
typedef struct render_args {
    const char *in, *outp, *frames_text;
    cli_src_opts so;
    render_opts ro;
    mb_axis up;    /* --up; MB_AXIS_DETECT: the source's */
    int gif, ppm;  /* the output format (else PNG) */
    int help;      /* --help was given (and printed) */
} render_args;

/* --size WxH into ro; returns an CLI_EXIT_* code. */
static int parse_size(const char *cmd, const char *arg, render_opts *ro)
{
    long w, h;
    char buf[64];
    const char *x = strchr(arg, 'x');
    if (!x || (size_t)(x - arg) >= sizeof buf)
        return cli_usage_error(cmd, "--size needs WxH (e.g. 240x320), got '%s'", arg);
    snprintf(buf, sizeof buf, "%.*s", (int)(x - arg), arg);
    if (!cli_parse_long(buf, &w) || !cli_parse_long(x + 1, &h) || w < 16 || h < 16 ||
        w > 4096 || h > 4096)
        return cli_usage_error(cmd, "--size needs WxH with 16 <= W, H <= 4096, got '%s'", arg);
    ro->cell_w = (int)w;
    ro->cell_h = (int)h;
    return CLI_EXIT_OK;
}

/* One option (id, with a.arg) into o; returns an CLI_EXIT_* code. */
static int take_option(const char *cmd, int id, const char *arg, render_args *o)
{
    render_opts *ro = &o->ro;
    switch (id) {
    case CLI_OPT_OUTPUT: return cli_take_output(cmd, arg, &o->outp);
    case CLI_OPT_FRAMES: o->frames_text = arg; break;
    case OPT_VIEW: {
        static const char *const views[] = {"front", "side", "top", NULL};
        static const render_view view_of[] = {RENDER_VIEW_FRONT, RENDER_VIEW_SIDE, RENDER_VIEW_TOP};
        int which = 0, rc = cli_take_choice(cmd, "--view", arg, views, &which);
        if (rc == CLI_EXIT_OK)
            ro->view = view_of[which];
        return rc;
    }
    case OPT_SIZE: return parse_size(cmd, arg, ro);
    case OPT_COLUMNS: {
        long c;
        if (!cli_parse_long(arg, &c) || c < 1 || c > 1000)
            return cli_usage_error(cmd, "--columns needs a number 1..1000, got '%s'", arg);
        ro->columns = (int)c;
        break;
    }
    case OPT_SKELETON: ro->skeleton = 1; ro->mesh = 0; o->so.no_mesh = 1; break;
    case OPT_BONES: ro->skeleton = 1; break;
    case OPT_MESH: o->so.mesh_path = arg; break;
    case OPT_AUTO: o->so.auto_mesh = 1; break;
    case CLI_OPT_LENIENT: o->so.lenient = 1; break;
    case OPT_NOLABELS: ro->labels = 0; break;
    case CLI_OPT_METHOD: return cli_take_skin_method(cmd, arg, &ro->method);
    case CLI_OPT_UP: {
        int rc = cli_take_up(cmd, arg, &o->up);
        return rc;
    }
    case CLI_OPERAND:
        if (o->in)
            return cli_usage_error(cmd, "unexpected argument '%s' (one IN only)", arg);
        o->in = arg;
        break;
    default: break;
    }
    return CLI_EXIT_OK;
}

/* Parses and checks the command line; returns an CLI_EXIT_* code (CLI_EXIT_OK with help set
 * when --help was printed). */
static int parse_args(const char *cmd, int argc, char **argv, render_args *o)
{
    static const cli_opt opts[] = {CLI_OPTION_OUTPUT,
                                      CLI_OPTION_FRAMES,
                                      {"view", 0, 1, OPT_VIEW},
                                      {"size", 0, 1, OPT_SIZE},
                                      {"columns", 0, 1, OPT_COLUMNS},
                                      {"skeleton", 0, 0, OPT_SKELETON},
                                      {"bones", 0, 0, OPT_BONES},
                                      {"mesh", 0, 1, OPT_MESH},
                                      {"auto-mesh", 0, 0, OPT_AUTO},
                                      CLI_OPTION_METHOD,
                                      CLI_OPTION_UP,
                                      {"no-labels", 0, 0, OPT_NOLABELS},
                                      CLI_OPTION_LENIENT,
                                      {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    memset(o, 0, sizeof *o);
    o->ro.cell_w = 240;
    o->ro.cell_h = 320;
    o->ro.mesh = 1;
    o->ro.labels = 1;
    o->ro.ssaa = 3;
    o->up = MB_AXIS_DETECT;
    int id, rc;
    while ((id = cli_next(&a, opts)) != CLI_END) {
        if (id == CLI_BAD)
            return CLI_EXIT_USAGE;
        if (id == CLI_OPT_HELP) {
            cmd_render_usage(stdout);
            o->help = 1;
            return CLI_EXIT_OK;
        }
        if ((rc = take_option(cmd, id, a.arg, o)) != CLI_EXIT_OK)
            return rc;
    }
    if (!o->in)
        return cli_usage_error(cmd, "missing IN");
    static const char *const exts[] = {".png", ".gif", ".ppm", NULL};
    int kind;
    if ((rc = cli_take_output_kind(cmd, o->outp, exts, &kind)) != CLI_EXIT_OK)
        return rc;
    o->gif = kind == 1;
    o->ppm = kind == 2;
    if (o->so.no_mesh && (o->so.mesh_path || o->so.auto_mesh))
        return cli_usage_error(cmd, "--skeleton draws no mesh: drop --mesh / --auto-mesh");
    if (o->so.mesh_path && o->so.auto_mesh)
        return cli_usage_error(cmd, "give one of --mesh and --auto-mesh");
    return CLI_EXIT_OK;
}

/* --up: a new up axis, keeping the facing direction's part perpendicular to it. */
static void set_up(cli_src *s, mb_axis axis)
{
    int up = mb_axis_index(axis);
    s->up = axis;
    s->forward[up] = 0.0f;
    float n = sqrtf(s->forward[0] * s->forward[0] + s->forward[1] * s->forward[1] + s->forward[2] * s->forward[2]);
    if (n < 1e-6f) {
        memset(s->forward, 0, sizeof s->forward);
        s->forward[(up + 1) % 3] = 1.0f;
    } else {
        for (int k = 0; k < 3; ++k)
            s->forward[k] /= n;
    }
}

/* The frames drawn: --frames, else every frame at most 30 per second for a GIF, at most 8
 * spread over the clip for a sheet. Returns an CLI_EXIT_* code. */
static int choose_frames(const char *cmd, const render_args *o, const cli_src *s, long *first,
                         long *end, long *step)
{
    long frames = mb_clip_frame_count(s->clip);
    double dt = mb_clip_frame_time(s->clip);
    *first = 0;
    *end = frames;
    *step = 1;
    if (o->frames_text) {
        int rc = cli_take_frames(cmd, o->frames_text, frames, o->in, first, end, step);
        if (rc != CLI_EXIT_OK)
            return rc;
    } else if (o->gif) {
        *step = (long)ceil(1.0 / (30.0 * dt) - 1e-9);
        *step = *step < 1 ? 1 : *step;
    } else if (frames > 8) {
        *step = (frames + 7) / 8; /* at most 8 frames, from the first to near the last */
    }
    return CLI_EXIT_OK;
}

int cmd_render(int argc, char **argv)
{
    const char *cmd = "mblend render";
    render_args o;
    int rc = parse_args(cmd, argc, argv, &o);
    if (rc != CLI_EXIT_OK || o.help)
        return rc;
    cli_src s;
    if ((rc = cli_src_open(cmd, o.in, &o.so, &s)) != CLI_EXIT_OK)
        return rc;
    if (o.up != MB_AXIS_DETECT && o.up != s.up)
        set_up(&s, o.up);
    long first, end, step;
    if ((rc = choose_frames(cmd, &o, &s, &first, &end, &step)) != CLI_EXIT_OK)
        goto out;
    unsigned char *rgb = NULL;
    int w = 0, h = 0, count = 0;
    if (render_frames(cmd, &s, &o.ro, first, end, step, !o.gif, &rgb, &w, &h, &count) != 0) {
        rc = CLI_EXIT_INPUT;
        goto out;
    }
    if (o.gif) {
        /* GIF delays are 16-bit hundredths of a second */
        double cs = floor(100.0 * mb_clip_frame_time(s.clip) * (double)step + 0.5);
        int delay = cs < 2.0 ? 2 : cs > 65535.0 ? 65535 : (int)cs;
        rc = render_write_gif(cmd, o.outp, rgb, w, h, count, delay);
    } else if (o.ppm) {
        rc = render_write_ppm(cmd, o.outp, rgb, w, h);
    } else {
        rc = render_write_png(cmd, o.outp, rgb, w, h);
    }
    free(rgb);
    long drawn = (end - first + step - 1) / step; /* frames first, first + step, ... < end */
    if (rc == 0)
        fprintf(stderr, "%s: wrote %s: %dx%d, %s of %ld frame%s (%ld..%ld step %ld) of %s\n", cmd,
                o.outp, w, h, o.gif ? "animation" : "sheet", drawn, drawn == 1 ? "" : "s", first,
                first + (drawn - 1) * step, step, o.in);
    else
        rc = CLI_EXIT_INPUT;
out:
    cli_src_close(&s);
    return rc;
}
