/* mblend convert IN -o OUT: read a clip (BVH, or a glTF/FBX animation) and write it as BVH
 * or binary glTF. */
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_output.h"

void cmd_convert_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend convert IN -o OUT.bvh|OUT.glb [--order ORDER] [--precision N] [--lenient]\n"
            "\n"
            "Read the BVH file IN and write it to OUT, keeping the hierarchy, joint names,\n"
            "End Sites, channel lists, Euler orders, frames and frame time. OUT is written to\n"
            "a temporary file beside it and renamed over it, so a failure leaves any existing\n"
            "OUT untouched. IN and OUT may be the same file.\n"
            "IN may also be a glTF/GLB or FBX animation (file.glb#Walk picks one; default the\n"
            "first), written as BVH; OUT.glb writes a binary glTF instead (skeleton, the\n"
            "file's own skinned mesh with its materials, textures and texture coordinates or\n"
            "a generated capsule skin, and the clip), as blend and transition do. A clip\n"
            "whose last frame runs on into its first gets its first frame again as a last\n"
            "key, so glTF players loop it without a jump. BVH written from a glTF/FBX clip\n"
            "has every position channel over OFFSET 0 (still joints: the OFFSET alone), so\n"
            "readers that add OFFSET to the channels (three.js) read the same motion.\n"
            "Rotations are kept exactly (to single precision) but their Euler angles are\n"
            "derived again, each frame's triple the one nearest the previous frame's, so a\n"
            "file whose angles jump (e.g. 170 -> -170) comes back continuous (170 -> 190):\n"
            "the same motion, not always the same numbers. Angles are written in the fewest\n"
            "digits that read back as the same rotation, so an unchanged triple keeps the\n"
            "file's own numbers (-21, -11.9008).\n"
            "\n"
            "options:\n"
            "  -o, --output OUT   the file to write (required)\n"
            "  --order ORDER      rewrite every joint's rotation channels in ORDER (one of\n"
            "                     XYZ XZY YXZ YZX ZXY ZYX, any case); the motion is unchanged\n"
            "  --precision N      significant digits for the values, 1..17 (default 9, which\n"
            "                     round-trips 32-bit floats exactly; mblend holds values in\n"
            "                     single precision, so more digits add no information)\n"
            "  --lenient          accept a Frames line that disagrees with the data (warning\n"
            "                     on stderr); OUT gets the frames actually read\n"
            "  -h, --help         show this help\n");
}

enum { OPT_ORDER = 1, OPT_PRECISION };

int cmd_convert(int argc, char **argv)
{
    static const cli_opt opts[] = {CLI_OPTION_OUTPUT,
                                      {"order", 0, 1, OPT_ORDER},
                                      {"precision", 0, 1, OPT_PRECISION},
                                      CLI_OPTION_LENIENT,
                                      {NULL, 0, 0, 0}};
    const char *cmd = "mblend convert";
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    const char *in = NULL, *out = NULL;
    int lenient = 0, id;
    mb_bvh_write_desc wd;
    memset(&wd, 0, sizeof wd);
    while ((id = cli_next(&a, opts)) != CLI_END) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cmd_convert_usage(stdout); return CLI_EXIT_OK;
        case CLI_OPT_LENIENT: lenient = 1; break;
        case CLI_OPT_OUTPUT:
            if (cli_take_output(cmd, a.arg, &out) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            break;
        case OPT_ORDER: {
            mb_euler_order o;
            if (mb_euler_order_parse(a.arg, &o) != MB_OK)
                return cli_usage_error(
                    cmd, "bad --order '%s' (use one of XYZ XZY YXZ YZX ZXY ZYX)", a.arg);
            /* rewrite_order is documented both as a flag and as "order + 1"; order + 1 is
             * non-zero and names the order either way. */
            wd.rewrite_order = (int)o + 1;
            wd.order = o;
            break;
        }
        case OPT_PRECISION: {
            long p;
            if (!cli_parse_long(a.arg, &p) || p < 1 || p > 17)
                return cli_usage_error(cmd, "--precision needs a whole number from 1 to 17, "
                                       "got '%s'", a.arg);
            wd.precision = (int)p;
            break;
        }
        case CLI_OPERAND:
            if (in)
                return cli_usage_error(cmd, "unexpected argument '%s' (one input file; the "
                                       "output goes after -o)", a.arg);
            in = a.arg;
            break;
        default: break;
        }
    }
    if (!in)
        return cli_usage_error(cmd, "missing input file");
    if (!out)
        return cli_usage_error(cmd, "missing -o OUT");

    int glb = cli_ends_with_ci(out, ".glb");
    if (cli_ends_with_ci(out, ".gltf"))
        return cli_usage_error(cmd, "-o '%s': glTF is written as binary .glb only", out);
    if (glb && (wd.rewrite_order || wd.precision))
        return cli_usage_error(cmd, "--order and --precision shape BVH text; %s is a binary "
                               "glTF", out);
    cli_clip src;
    int rc = cli_clip_open(cmd, in, lenient, &src);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (glb) {
        rc = cli_write_glb(cmd, out, &src, src.c, "convert", src.up_axis, 0.0f);
    } else {
        mb_error err;
        memset(&err, 0, sizeof err);
        const mb_bvh_write_desc from_src = cli_bvh_desc(&src);
        wd.drop_still_positions = from_src.drop_still_positions;
        wd.portable_offsets = from_src.portable_offsets;
        mb_status st = mb_bvh_write_file(out, src.s, src.c, &wd, &err);
        if (st != MB_OK) {
            if (err.code == MB_OK) {
                err.code = st;
                snprintf(err.source, sizeof err.source, "%s", out);
            }
            cli_print_error(&err);
            rc = CLI_EXIT_INPUT;
        }
    }
    cli_clip_close(&src);
    return rc;
}
