/* mblend positions FILE: world joint positions as CSV. */
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_output.h"
#include "cli_pose.h"

void mb_cmd_positions_usage(FILE *out)
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

enum { OPT_FRAME = 1, OPT_FRAMES, OPT_LENIENT };

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
    if (n > 0 && !mb_cli_parse_long(left, a))
        return 0;
    if (colon[1] != '\0' && !mb_cli_parse_long(colon + 1, b))
        return 0;
    /* a bound written negative is refused, not taken for "not given" */
    if ((n > 0 && *a < 0) || (colon[1] != '\0' && *b < 0))
        return -1;
    return 1;
}

int mb_cmd_positions(int argc, char **argv)
{
    static const mb_cli_opt opts[] = {{"frame", 0, 1, OPT_FRAME},
                                      {"frames", 0, 1, OPT_FRAMES},
                                      {"lenient", 0, 0, OPT_LENIENT},
                                      {NULL, 0, 0, 0}};
    const char *cmd = "mblend positions";
    mb_cli_args a;
    mb_cli_args_init(&a, cmd, argc, argv);
    const char *path = NULL, *range_text = NULL;
    long first = -1, last = -1; /* requested [first, last), -1: open */
    int lenient = 0, have_range = 0, id;
    while ((id = mb_cli_next(&a, opts)) != MB_CLI_END) {
        switch (id) {
        case MB_CLI_BAD: return MB_EXIT_USAGE;
        case MB_OPT_HELP: mb_cmd_positions_usage(stdout); return MB_EXIT_OK;
        case OPT_LENIENT: lenient = 1; break;
        case OPT_FRAME:
            if (have_range)
                return mb_cli_usage_error(cmd, "give one of --frame and --frames, once");
            if (!mb_cli_parse_long(a.arg, &first))
                return mb_cli_usage_error(cmd, "--frame needs a whole number, got '%s'", a.arg);
            if (first < 0)
                return mb_cli_input_error(cmd, "frame %ld is out of range (frames count from 0)",
                                          first);
            last = first + 1;
            have_range = 1;
            range_text = a.arg;
            break;
        case OPT_FRAMES:
            if (have_range)
                return mb_cli_usage_error(cmd, "give one of --frame and --frames, once");
            switch (parse_range(a.arg, &first, &last)) {
            case 0: return mb_cli_usage_error(cmd, "--frames needs A:B (e.g. 0:10), got '%s'", a.arg);
            case -1: return mb_cli_input_error(cmd, "frame range '%s' has a negative bound", a.arg);
            default: break;
            }
            have_range = 2;
            range_text = a.arg;
            break;
        case MB_CLI_OPERAND:
            if (path)
                return mb_cli_usage_error(cmd, "unexpected argument '%s' (one FILE only)", a.arg);
            path = a.arg;
            break;
        default: break;
        }
    }
    if (!path)
        return mb_cli_usage_error(cmd, "missing FILE");

    /* a BVH file, or a glTF/FBX animation (file.glb#Walk) */
    mb_cli_clip src;
    int rc = mb_cli_clip_open(cmd, path, lenient, &src);
    if (rc != MB_EXIT_OK)
        return rc;
    const mb_skeleton *s = src.s;
    const mb_clip *c = src.c;
    long frames = mb_clip_frame_count(c);
    if (first < 0)
        first = 0;
    if (last < 0)
        last = frames;
    if (have_range == 1 && first >= frames) {
        if (frames == 0)
            rc = mb_cli_input_error(cmd, "%s: frame %ld is out of range (the file has no frames)",
                                    path, first);
        else
            rc = mb_cli_input_error(cmd, "%s: frame %ld is out of range (the file has %ld frame%s, "
                                    "numbered 0 to %ld)",
                                    path, first, frames, frames == 1 ? "" : "s", frames - 1);
        goto out;
    }
    if (have_range == 2 && (last > frames || first >= last)) {
        rc = mb_cli_input_error(cmd, "%s: frame range '%s' = [%ld, %ld) is %s (the file has %ld "
                                "frames; A:B means A <= frame < B)",
                                path, range_text, first, last,
                                first >= last ? "empty" : "out of range", frames);
        goto out;
    }

    int n = mb_skeleton_joint_count(s);
    mb_xform *pose = malloc((size_t)n * sizeof *pose);
    float(*world)[16] = malloc((size_t)n * sizeof *world);
    if (!pose || !world) {
        rc = mb_cli_input_error(cmd, "out of memory");
    } else {
        printf("frame,joint_index,joint_name,x,y,z\n");
        for (long f = first; f < last; ++f) {
            mb_status st = mb_cli_frame_world(s, c, (int)f, pose, world);
            if (st != MB_OK) {
                rc = mb_cli_input_error(cmd, "%s: frame %ld: %s", path, f, mb_status_str(st));
                break;
            }
            for (int j = 0; j < n; ++j) {
                /* 9 digits: the float exactly (7 lost up to 0.05 at 1e5 units from the origin) */
                printf("%ld,%d,", f, j);
                mb_cli_csv_field(stdout, mb_skeleton_name(s, j));
                printf(",%.9g,%.9g,%.9g\n", (double)world[j][12], (double)world[j][13],
                       (double)world[j][14]);
            }
        }
    }
    free(pose);
    free(world);
out:
    mb_cli_clip_close(&src);
    return rc;
}
