/* mblend roles FILE [--map MAP]: the humanoid role of every joint and how it was found. */
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"

void cmd_roles_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend roles [--map MAP] [--lenient] FILE[#Animation]\n"
            "\n"
            "Print the humanoid role of every joint of FILE's skeleton (hips, spine, chest,\n"
            "neck, head, shoulder_l, upper_arm_l, forearm_l, hand_l, upper_leg_l,\n"
            "lower_leg_l, foot_l, toes_l and their _r), as retargeting and mirroring use\n"
            "them, and how each was found:\n"
            "  name      the joint's name (CMU, Bandai-Namco, Mixamo, Rokoko, LAFAN1, Biped,\n"
            "            glTF conventions; prefixes such as \"mixamorig:\" ignored)\n"
            "  topology  the skeleton's shape (the chest is where the neck and both arms meet,\n"
            "            the spine lies between it and the hips, a chain of like-named joints\n"
            "            such as Leg01, Leg02 takes the limb's roles in order, gaps in a limb\n"
            "            are filled from the tree)\n"
            "  map       the role map given with --map\n"
            "Then the roles no joint has. End Sites are not listed (they have no role).\n"
            "FILE may be a BVH file or a glTF/FBX/... scene (file.glb or file.glb#Walk).\n"
            "\n"
            "The map file fixes or completes what names give: one 'ROLE JOINT NAME' per\n"
            "line ('none JOINT' takes a joint's role away), '#' starts a comment line; see\n"
            "docs/retarget.md. Example:\n"
            "  # my rig\n"
            "  hips        pelvis_ctrl\n"
            "  upper_arm_l Bip01 L UpperArm\n"
            "\n"
            "options:\n"
            "  --map MAP    a role map file\n"
            "  --lenient    accept a Frames line that disagrees with the data (warning on\n"
            "               stderr)\n"
            "  -h, --help   show this help\n"
            "Exit status 0 (also with missing roles), 1 for a bad command line, 2 for a file\n"
            "that cannot be read or a map that does not fit the skeleton.\n");
}

enum { OPT_MAP = 1 };

typedef struct roles_args {
    const char *path, *map;
    int lenient, help;
} roles_args;

static int parse_args(const char *cmd, int argc, char **argv, roles_args *o)
{
    static const cli_opt opts[] = {{"map", 0, 1, OPT_MAP}, CLI_OPTION_LENIENT, {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    memset(o, 0, sizeof *o);
    for (int id; (id = cli_next(&a, opts)) != CLI_END;) {
        switch (id) {
        case CLI_BAD: return CLI_EXIT_USAGE;
        case CLI_OPT_HELP: cmd_roles_usage(stdout); o->help = 1; return CLI_EXIT_OK;
        case CLI_OPT_LENIENT: o->lenient = 1; break;
        case OPT_MAP:
            if (o->map)
                return cli_usage_error(cmd, "--map given twice");
            o->map = a.arg;
            break;
        case CLI_OPERAND:
            if (o->path)
                return cli_usage_error(cmd, "unexpected argument '%s' (one FILE only)", a.arg);
            o->path = a.arg;
            break;
        default: break;
        }
    }
    if (!o->path)
        return cli_usage_error(cmd, "no FILE given");
    return CLI_EXIT_OK;
}

static const char *how_name(int how)
{
    return how == MB_ROLE_FROM_MAP ? "map" : how == MB_ROLE_FROM_TOPOLOGY ? "topology" : "name";
}

static void print_roles(const char *file, const mb_skeleton *s, const mb_roles *r)
{
    int n = mb_skeleton_joint_count(s), ends = 0;
    for (int j = 0; j < n; ++j)
        ends += mb_skeleton_is_end_site(s, j) != 0;
    printf("%s: %d joints (and %d End Sites)\n\n", file, n - ends, ends);
    printf("index  %-28s %-12s %s\n", "joint", "role", "found by");
    for (int j = 0; j < n; ++j) {
        if (mb_skeleton_is_end_site(s, j))
            continue;
        int role = r->of_joint[j];
        printf("%5d  %-28s %-12s %s\n", j, mb_skeleton_name(s, j),
               role ? mb_role_name((mb_role)role) : "-", role ? how_name(r->how[j]) : "");
    }
    int missing = 0;
    printf("\nmissing roles:");
    for (int role = MB_ROLE_HIPS; role < MB_ROLE_COUNT; ++role)
        if (r->joint[role] < 0)
            printf("%s %s", missing++ ? "," : "", mb_role_name((mb_role)role));
    printf("%s\n", missing ? "" : " none");
}

int cmd_roles(int argc, char **argv)
{
    const char *cmd = "mblend roles";
    roles_args o;
    int rc = parse_args(cmd, argc, argv, &o);
    if (rc != CLI_EXIT_OK || o.help)
        return rc;
    cli_clip in;
    rc = cli_input_open(cmd, o.path, o.lenient, 1, &in);
    if (rc != CLI_EXIT_OK)
        return rc;
    mb_roles roles;
    rc = cli_roles(cmd, in.s, o.map, &roles);
    if (rc == CLI_EXIT_OK) {
        print_roles(o.path, in.s, &roles);
        mb_roles_free(&roles);
    }
    cli_clip_close(&in);
    return rc;
}
