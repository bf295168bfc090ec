/* mblend positions FILE: world joint positions as CSV. */
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_output.h"
#include "cli_pose.h"

void cmd_positions_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend positions [--frame N | --frames A:B] [--lenient] FILE\n"
            "\n"
            "Print the world position of every node (End Sites included, named <parent>_End)\n"
            "as CSV on stdout:\n"
            "  frame,joint_index,joint_name,x,y,z\n"
            "Frames are counted from 0 (the first line of motion data). Positions come from\n"
            "forward kinematics (rotation channels intrinsic in listed order, position\n"
            "channels replace the OFFSET), in the file's units. FILE may also be a glTF/GLB\n"
            "or FBX animation (file.glb#Walk; default the first), sampled at its keys' rate.\n"
            "\n"
            "options:\n"
            "  --frame N      only frame N (0 <= N < frames)\n"
            "  --frames A:B   frames A, A+1, ..., B-1 (Python slice convention: A inclusive,\n"
            "                 B exclusive; A defaults to 0, B to the frame count, so '10:'\n"
            "                 is frame 10 to the end and ':5' the first five frames)\n"
            "  --lenient      accept a Frames line that disagrees with the data (warning on\n"
            "                 stderr)\n"
            "  -h, --help     show this help\n"
            "Default: all frames. A range outside 0..frames exits with status 2.\n");
}

enum { OPT_FRAME = 1 };

/* Parses "A:B", "A:", ":B" or ":"; a missing bound is -1. Returns 1 on success. */
static int parse_range(const char *s, long *a, long *b)
{
    const char *colon = strchr(s, ':');
    if (!colon || strchr(colon + 1, ':'))
        return 0;
    char left[64];
    size_t n = (size_t)(colon - s);
    if (n >= sizeof left)
        return 0;
    memcpy(left, s, n);
    left[n] = '\0';
    *a = *b = -1; /* -1: not given (A: from 0, B: to the end) */
    if (n > 0 && !cli_parse_long(left, a))
        return 0;
    if (colon[1] != '\0' && !cli_parse_long(colon + 1, b))
        return 0;
    /* a bound written negative is refused, not taken for "not given" */
    if ((n > 0 && *a < 0) || (colon[1] != '\0' && *b < 0))
        return -1;
    return 1;
}

/* What the command line asks for. */
typedef struct positions_args {
    const char *path, *range_text;
    long first, last; /* requested [first, last), -1: open */
    int lenient;
    int have_range;   /* 0: all frames, 1: --frame, 2: --frames */
    int help;         /* --help was given (and printed) */
} positions_args;

/* One of --frame N and --frames A:B into o; returns an CLI_EXIT_* code. */
static int take_range(const char *cmd, int id, const char *arg, positions_args *o)
{
    if (o->have_range)
        return cli_usage_error(cmd, "give one of --frame and --frames, once");
    o->range_text = arg;
    if (id == OPT_FRAME) {
        if (!cli_parse_long(arg, &o->first))
            return cli_usage_error(cmd, "--frame needs a whole number, got '%s'", arg);
        if (o->first < 0)
            return cli_input_error(cmd, "frame %ld is out of range (frames count from 0)",
                                   o->first);
        o->last = o->first + 1;
        o->have_range = 1;
        return CLI_EXIT_OK;
    }
    switch (parse_range(arg, &o->first, &o->last)) {
    case 0: return cli_usage_error(cmd, "--frames needs A:B (e.g. 0:10), got '%s'", arg);
    case -1: return cli_input_error(cmd, "frame range '%s' has a negative bound", arg);
    default: break;
    }
    o->have_range = 2;
    return CLI_EXIT_OK;
}

/* Parses the command line; returns an CLI_EXIT_* code (CLI_EXIT_OK with help set when --help
 * was printed). */
static int parse_args(const char *cmd, int argc, char **argv, positions_args *o)
{
    static const cli_opt opts[] = {{"frame", 0, 1, OPT_FRAME},
                                      CLI_OPTION_FRAMES,
                                      CLI_OPTION_LENIENT,
                                      {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    memset(o, 0, sizeof *o);
    o->first = o->last = -1;
    int id, rc = CLI_EXIT_OK;
    while (rc == CLI_EXIT_OK && (id = cli_next(&a, opts)) != CLI_END) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cmd_positions_usage(stdout); o->help = 1; return CLI_EXIT_OK;
        case CLI_OPT_LENIENT: o->lenient = 1; break;
        case OPT_FRAME:
        case CLI_OPT_FRAMES: rc = take_range(cmd, id, a.arg, o); break;
        case CLI_OPERAND:
            if (o->path)
                return cli_usage_error(cmd, "unexpected argument '%s' (one FILE only)", a.arg);
            o->path = a.arg;
            break;
        default: break;
        }
    }
    if (rc == CLI_EXIT_OK && !o->path)
        return cli_usage_error(cmd, "missing FILE");
    return rc;
}

/* The requested frames against the clip's: open bounds filled in; an CLI_EXIT_* code. */
static int check_range(const char *cmd, positions_args *o, long frames)
{
    const char *path = o->path;
    if (o->first < 0)
        o->first = 0;
    if (o->last < 0)
        o->last = frames;
    if (o->have_range == 1 && o->first >= frames) {
        if (frames == 0)
            return cli_input_error(cmd, "%s: frame %ld is out of range (the file has no "
                                   "frames)", path, o->first);
        return cli_input_error(cmd, "%s: frame %ld is out of range (the file has %ld frame%s, "
                               "numbered 0 to %ld)",
                               path, o->first, frames, frames == 1 ? "" : "s", frames - 1);
    }
    if (o->have_range == 2 && (o->last > frames || o->first >= o->last))
        return cli_input_error(cmd, "%s: frame range '%s' = [%ld, %ld) is %s (the file has %ld "
                               "frames; A:B means A <= frame < B)",
                               path, o->range_text, o->first, o->last,
                               o->first >= o->last ? "empty" : "out of range", frames);
    return CLI_EXIT_OK;
}

/* The CSV of frames [first, last) of src on stdout; an CLI_EXIT_* code. */
static int print_positions(const char *cmd, const char *path, const cli_clip *src, long first,
                           long last)
{
    const mb_skeleton *s = src->s;
    int n = mb_skeleton_joint_count(s), rc = CLI_EXIT_OK;
    mb_xform *pose = malloc((size_t)n * sizeof *pose);
    float(*world)[16] = malloc((size_t)n * sizeof *world);
    if (!pose || !world) {
        rc = cli_input_error(cmd, "out of memory");
    } else {
        printf("frame,joint_index,joint_name,x,y,z\n");
        for (long f = first; f < last; ++f) {
            mb_status st = cli_frame_world(s, src->c, (int)f, pose, world);
            if (st != MB_OK) {
                rc = cli_input_error(cmd, "%s: frame %ld: %s", path, f, mb_status_str(st));
                break;
            }
            for (int j = 0; j < n; ++j) {
                /* 9 digits: the float exactly (7 lost up to 0.05 at 1e5 units from the origin) */
                printf("%ld,%d,", f, j);
                cli_csv_field(stdout, mb_skeleton_name(s, j));
                printf(",%.9g,%.9g,%.9g\n", (double)world[j][12], (double)world[j][13],
                       (double)world[j][14]);
            }
        }
    }
    free(pose);
    free(world);
    return rc;
}

int cmd_positions(int argc, char **argv)
{
    const char *cmd = "mblend positions";
    positions_args o;
    int rc = parse_args(cmd, argc, argv, &o);
    if (rc != CLI_EXIT_OK || o.help)
        return rc;
    /* a BVH file, or a glTF/FBX animation (file.glb#Walk) */
    cli_clip src;
    if ((rc = cli_clip_open(cmd, o.path, o.lenient, &src)) != CLI_EXIT_OK)
        return rc;
    rc = check_range(cmd, &o, mb_clip_frame_count(src.c));
    if (rc == CLI_EXIT_OK)
        rc = print_positions(cmd, o.path, &src, o.first, o.last);
    cli_clip_close(&src);
    return rc;
}
