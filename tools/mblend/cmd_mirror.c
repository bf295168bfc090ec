/* mblend mirror IN -o OUT [--map MAP]: the clip with left and right swapped (mb_clip_mirror). */
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_output.h"

void cmd_mirror_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend mirror IN -o OUT.bvh|OUT.glb [--map MAP] [--up x|y|z]\n"
            "                     [--plane-from-clip] [--lenient]\n"
            "\n"
            "Mirror the clip IN left to right: every joint takes the motion of its other-side\n"
            "joint (by role, see 'mblend roles'; joints without a role by their Left/Right,\n"
            "L/R names, such as fingers), reflected across the character's sagittal plane.\n"
            "Rotations are mirrored relative to a reference pose: the rest pose (BVH), the\n"
            "skin's bind pose (glTF/FBX with a mesh), or the first motion frame when that pose\n"
            "does not stand upright. The plane holds the up axis and is perpendicular to the\n"
            "reference's left-right axis (with --plane-from-clip: the first motion frame's),\n"
            "through the hips at the first motion frame. Root motion is mirrored: a left turn\n"
            "becomes a right turn. Each joint's rotation is corrected for a reference whose\n"
            "left and right offsets are not exact mirrors, so bones point where the reflected\n"
            "bones point; mirroring twice gives IN back.\n"
            "IN may be a BVH file or a glTF/FBX animation (file.glb#Walk). OUT.bvh is written\n"
            "on IN's skeleton; OUT.glb as a binary glTF (the file's own mesh or a generated\n"
            "capsule skin). OUT is written to a temporary file and renamed, so a failure\n"
            "leaves any existing OUT untouched; nothing is written for a bad input.\n"
            "Prints the plane and the number of joint pairs.\n"
            "\n"
            "options:\n"
            "  -o, --output OUT    the file to write (required; not IN)\n"
            "  --map MAP           a role map fixing or completing the roles (docs/retarget.md)\n"
            "  --up x|y|z          the up axis (default: detected; glTF is +Y)\n"
            "  --plane-from-clip   take the left-right axis from the first motion frame\n"
            "  --lenient           accept a Frames line that disagrees with the data\n"
            "  -h, --help          show this help\n"
            "The skeleton needs the hips, both upper legs and the other side of every sided\n"
            "role it has; the message names the missing roles (exit status 2).\n");
}

enum { OPT_MAP = 1, OPT_PLANE };

typedef struct mirror_args {
    const char *in, *out, *map;
    mb_axis up;
    int lenient, plane_from_clip, help;
} mirror_args;

static int take_operand(const char *cmd, const char *arg, mirror_args *o)
{
    if (o->in)
        return cli_usage_error(cmd, "unexpected argument '%s' (one input file; the output "
                               "goes after -o)", arg);
    o->in = arg;
    return CLI_EXIT_OK;
}

static int parse_args(const char *cmd, int argc, char **argv, mirror_args *o)
{
    static const cli_opt opts[] = {CLI_OPTION_OUTPUT, {"map", 0, 1, OPT_MAP}, CLI_OPTION_UP,
                                   {"plane-from-clip", 0, 0, OPT_PLANE}, CLI_OPTION_LENIENT,
                                   {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    memset(o, 0, sizeof *o);
    int rc = CLI_EXIT_OK;
    for (int id; rc == CLI_EXIT_OK && (id = cli_next(&a, opts)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cmd_mirror_usage(stdout); o->help = 1; return CLI_EXIT_OK;
        case CLI_OPT_LENIENT: o->lenient = 1; break;
        case CLI_OPT_OUTPUT: rc = cli_take_output(cmd, a.arg, &o->out); break;
        case CLI_OPT_UP: rc = cli_take_up(cmd, a.arg, &o->up); break;
        case OPT_PLANE: o->plane_from_clip = 1; break;
        case OPT_MAP:
            if (o->map)
                return cli_usage_error(cmd, "--map given twice");
            o->map = a.arg;
            break;
        case CLI_OPERAND: rc = take_operand(cmd, a.arg, o); break;
        default: break;
        }
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!o->in)
        return cli_usage_error(cmd, "missing input file");
    if (!o->out)
        return cli_usage_error(cmd, "missing -o OUT");
    if (cli_ends_with_ci(o->out, ".gltf"))
        return cli_usage_error(cmd, "-o '%s': glTF is written as binary .glb only", o->out);
    /* the map too: the output (temporary file + rename) would replace it */
    const char *files[2] = {o->in, o->map};
    return cli_check_output(cmd, o->out, files, 2);
}

/* Mirrors src into *out with the roles of o->map (nullable); prints the plane. */
static int mirror(const mirror_args *o, const cli_clip *src, mb_clip **out)
{
    mb_error err;
    mb_roles roles;
    int rc = cli_roles("mblend mirror", src->s, o->map, &roles);
    if (rc != CLI_EXIT_OK)
        return rc;
    mb_mirror_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = src->s;
    d.clip = src->c;
    d.roles = &roles;
    d.up_axis = o->up ? o->up : src->up_axis;
    d.plane_from_clip = o->plane_from_clip;
    d.source = o->in;
    d.reference = cli_bind_pose(src); /* a skin's bind pose: its rest pose */
    mb_mirror_plane plane;
    mb_status st = mb_clip_mirror(&d, out, &plane, &err);
    int pairs = 0, n = mb_skeleton_joint_count(src->s);
    int *other = st == MB_OK ? malloc(sizeof *other * (size_t)n) : NULL;
    if (other && mb_roles_mirror_joints(src->s, &roles, other, NULL) == MB_OK)
        for (int j = 0; j < n; ++j)
            pairs += other[j] > j;
    free(other);
    mb_roles_free(&roles);
    if (st != MB_OK) {
        cli_print_error(&err);
        return CLI_EXIT_INPUT;
    }
    const char *ref = plane.reference_from_clip ? "the first motion frame"
                      : d.reference ? "the bind pose" : "the rest pose";
    printf("mirrored %s across the plane through (%g, %g, %g) with normal (%g, %g, %g) (the "
           "left-right axis of %s), relative to %s; %d joint pairs swapped\n",
           o->in, plane.point[0], plane.point[1], plane.point[2], plane.normal[0],
           plane.normal[1], plane.normal[2], plane.from_clip ? "the first motion frame" : ref,
           ref, pairs);
    return CLI_EXIT_OK;
}

int cmd_mirror(int argc, char **argv)
{
    const char *cmd = "mblend mirror";
    mirror_args o;
    int rc = parse_args(cmd, argc, argv, &o);
    if (rc != CLI_EXIT_OK || o.help)
        return rc;
    mb_error err;
    cli_clip src;
    rc = cli_clip_open(cmd, o.in, o.lenient, &src);
    int opened = rc == CLI_EXIT_OK;
    mb_clip *mirrored = NULL;
    if (rc == CLI_EXIT_OK) {
        /* again with the file itself: "Fox.glb#Walk" -o Fox.glb would replace the glTF */
        const char *files[1] = {src.file};
        rc = cli_check_output(cmd, o.out, files, 1);
    }
    if (rc == CLI_EXIT_OK)
        rc = mirror(&o, &src, &mirrored);
    if (rc == CLI_EXIT_OK && cli_ends_with_ci(o.out, ".glb")) {
        rc = cli_write_glb(cmd, o.out, &src, mirrored, "mirror", o.up ? o.up : src.up_axis, 0.0f);
    } else if (rc == CLI_EXIT_OK) {
        mb_bvh_write_desc wd = cli_bvh_desc(&src);
        if (mb_bvh_write_file(o.out, src.s, mirrored, &wd, &err) != MB_OK) {
            cli_print_error(&err);
            rc = CLI_EXIT_INPUT;
        }
    }
    mb_clip_destroy(mirrored);
    if (opened)
        cli_clip_close(&src);
    return rc;
}
