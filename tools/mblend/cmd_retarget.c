/* mblend retarget SRC --to TARGET -o OUT: SRC's motion on TARGET's skeleton (mb_retarget). */
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_output.h"

void cmd_retarget_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend retarget SRC --to TARGET -o OUT.bvh|OUT.glb [options]\n"
            "\n"
            "Play SRC's motion on TARGET's skeleton: another joint naming, other proportions,\n"
            "another rest pose (a T-pose source drives an A-pose target) or other bone axes.\n"
            "Joints are matched by their humanoid roles (hips, spine, chest, neck, head,\n"
            "shoulders, upper arms, forearms, hands, upper legs, lower legs, feet, toes), found\n"
            "from their names and the skeleton's shape (mblend roles FILE shows them; a role map\n"
            "file completes them, see docs/retarget.md).\n"
            "\n"
            "Each bone's rest direction is read from both skeletons' reference poses (a glTF or\n"
            "FBX character's bind pose, a BVH's rest pose), so every mapped bone points where\n"
            "SRC's bone points, relative to the body, and carries SRC's twist about itself.\n"
            "Every bone keeps TARGET's length; joints without a role keep TARGET's reference\n"
            "pose; the root travels SRC's path scaled by the ratio of leg lengths, and the feet\n"
            "follow SRC's reach from the hips (two-bone IK), so they plant and lift on SRC's\n"
            "frames. The mapping is printed on stdout.\n"
            "\n"
            "SRC is a BVH file or an animation of a glTF/FBX/... file (file.glb#Walk; default\n"
            "the first). TARGET is a BVH file or a glTF/FBX/... file (its skeleton and mesh; it\n"
            "needs no animation).\n"
            "\n"
            "options:\n"
            "  --to TARGET        the skeleton to play SRC on (required)\n"
            "  -o, --output OUT   the file to write (temporary file + rename): OUT.bvh, or\n"
            "                     OUT.glb (TARGET's skeleton and mesh, or a generated capsule\n"
            "                     skin, and the motion as an animation)\n"
            "  --map-src MAP      a role map file for SRC's skeleton (completes or overrides\n"
            "                     the roles found from names)\n"
            "  --map-to MAP       a role map file for TARGET's skeleton\n"
            "  --up x|y|z         SRC's up axis (default: detected for BVH, y for glTF/FBX)\n"
            "  --no-foot-ik       legs follow SRC's bone directions only (no IK)\n"
            "  --scale S          .glb only: scale the scene by S (default 1)\n"
            "  --lenient          accept Frames lines that disagree with the data\n"
            "  -h, --help         show this help\n"
            "\n"
            "example: mblend retarget cmu_02_01_walk.bvh --to CesiumMan.glb -o cesium_walk.glb\n");
}

enum { OPT_TO = 1, OPT_MAP_SRC, OPT_MAP_TO, OPT_NO_IK };

typedef struct retarget_args {
    const char *in, *to, *outp, *map_src, *map_to;
    mb_axis up;
    float scale;
    int lenient, no_ik;
} retarget_args;

static const char *const cmd = "mblend retarget";

/* Parses the command line into o; -1 for --help (printed). */
static int parse_args(int argc, char **argv, retarget_args *o)
{
    static const cli_opt opts[] = {CLI_OPTION_OUTPUT,
                                   {"to", 0, 1, OPT_TO},
                                   {"map-src", 0, 1, OPT_MAP_SRC},
                                   {"map-to", 0, 1, OPT_MAP_TO},
                                   {"no-foot-ik", 0, 0, OPT_NO_IK},
                                   CLI_OPTION_UP,
                                   CLI_OPTION_SCALE,
                                   CLI_OPTION_LENIENT,
                                   {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    int id;
    while ((id = cli_next(&a, opts)) != CLI_END) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cmd_retarget_usage(stdout); return -1;
        case CLI_OPT_LENIENT: o->lenient = 1; break;
        case CLI_OPT_OUTPUT:
            if (cli_take_output(cmd, a.arg, &o->outp) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case CLI_OPT_UP:
            if (cli_take_up(cmd, a.arg, &o->up) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case CLI_OPT_SCALE:
            if (cli_take_scale(cmd, a.arg, &o->scale) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_TO: o->to = a.arg; break;
        case OPT_MAP_SRC: o->map_src = a.arg; break;
        case OPT_MAP_TO: o->map_to = a.arg; break;
        case OPT_NO_IK: o->no_ik = 1; break;
        case CLI_OPERAND:
            if (o->in)
                return cli_usage_error(cmd, "unexpected argument '%s' (one input; the target "
                                       "goes after --to, the output after -o)", a.arg);
            o->in = a.arg;
            break;
        default: break;
        }
    }
    if (!o->in)
        return cli_usage_error(cmd, "missing input SRC");
    if (!o->to || !o->to[0])
        return cli_usage_error(cmd, "missing --to TARGET (the skeleton to play SRC on)");
    return CLI_EXIT_OK;
}

/* Writes the retargeted clip of in (now on to's skeleton) as BVH or binary glTF. */
static int write_out(const retarget_args *o, const cli_clip *in, int glb)
{
    if (glb)
        return cli_write_glb(cmd, o->outp, in, in->c, "retarget", in->up_axis, o->scale);
    mb_error err;
    mb_bvh_write_desc wd = cli_bvh_desc(in);
    /* a retargeted clip is a new clip, not a re-export: written so that readers that add the
     * OFFSET to position channels (three.js) and those that replace it agree */
    wd.portable_offsets = 1;
    if (mb_bvh_write_file(o->outp, in->s, in->c, &wd, &err) != MB_OK) {
        cli_print_error(&err);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

int cmd_retarget(int argc, char **argv)
{
    retarget_args o;
    memset(&o, 0, sizeof o);
    int rc = parse_args(argc, argv, &o);
    if (rc == -1)
        return CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK)
        return rc;
    static const char *const exts[] = {".bvh", ".glb", NULL};
    int glb;
    if ((rc = cli_take_output_kind(cmd, o.outp, exts, &glb)) != CLI_EXIT_OK ||
        (rc = cli_check_scale(cmd, o.scale, glb == 1)) != CLI_EXIT_OK)
        return rc;
    cli_clip in, to;
    memset(&to, 0, sizeof to);
    if ((rc = cli_clip_open(cmd, o.in, o.lenient, &in)) != CLI_EXIT_OK)
        return rc;
    if (o.up != MB_AXIS_DETECT)
        in.up_axis = o.up;
    /* the output must replace neither input nor a map file */
    const char *files[4] = {in.file, NULL, o.map_src, o.map_to};
    if ((rc = cli_input_open(cmd, o.to, o.lenient, 1, &to)) == CLI_EXIT_OK) {
        files[1] = to.file;
        rc = cli_check_output(cmd, o.outp, files, 4);
    }
    if (rc == CLI_EXIT_OK)
        rc = cli_retarget_onto(cmd, &in, o.map_src, &to, o.map_to, !o.no_ik, stdout);
    if (rc == CLI_EXIT_OK && (rc = write_out(&o, &in, glb == 1)) == CLI_EXIT_OK)
        fprintf(stderr, "%s: wrote %s: %d frame%s, %.3f s\n", cmd, o.outp,
                mb_clip_frame_count(in.c), mb_clip_frame_count(in.c) == 1 ? "" : "s",
                mb_clip_duration(in.c));
    cli_clip_close(&in);
    cli_clip_close(&to);
    return rc;
}
