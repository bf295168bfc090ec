/* mblend info FILE: a summary of a BVH file. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"

void mb_cmd_info_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend info [--lenient] [--no-table] FILE\n"
            "\n"
            "Summarise a BVH file: joint count (real joints and End Sites separately), the\n"
            "channel layout and Euler rotation order of every joint (and whether all joints\n"
            "share one order), frames, frame time, fps, duration, file size, the skeleton's\n"
            "height (first frame and rest pose) and up axis (Y-up or Z-up, guessed from the\n"
            "first frame: the direction from the root to the top of the joint named Head, or\n"
            "the axis of largest extent without one), and the root's horizontal travel.\n"
            "Lengths are in the file's units (BVH: often cm or inches).\n"
            "\n"
            "options:\n"
            "  --lenient    accept a Frames line that disagrees with the data (warning on stderr)\n"
            "  --no-table   omit the per-joint table\n"
            "  -h, --help   show this help\n");
}

enum { OPT_LENIENT = 1, OPT_NO_TABLE };

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

static int name_is_head(const char *name, int exact)
{
    char low[MB_MAX_NAME + 1];
    size_t n = strlen(name);
    if (n > MB_MAX_NAME)
        n = MB_MAX_NAME;
    for (size_t i = 0; i < n; ++i)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[n] = '\0';
    return exact ? strcmp(low, "head") == 0 : strstr(low, "head") != NULL;
}

/* The node marking the top of the head: the first End Site below a joint named "head"
 * (exact name preferred over a name containing "head"), else that joint; -1 if none. */
static int find_head_top(const mb_skeleton *s)
{
    int n = mb_skeleton_joint_count(s);
    const int *parent = mb_skeleton_parents(s);
    int head = -1;
    for (int pass = 0; pass < 2 && head < 0; ++pass)
        for (int j = 0; j < n && head < 0; ++j)
            if (!mb_skeleton_is_end_site(s, j) && name_is_head(mb_skeleton_name(s, j), pass == 0))
                head = j;
    if (head < 0)
        return -1;
    for (int j = head + 1; j < n; ++j)
        if (parent[j] == head && mb_skeleton_is_end_site(s, j))
            return j;
    return head;
}

/* The joint that moves the body: the root, or, when the root is a bare placeholder with a
 * single child that carries its own position channels (e.g. Bandai-Namco's joint_Root ->
 * Hips), that child, repeatedly. Root travel and the up direction are measured from it. */
static int find_body_root(const mb_skeleton *s)
{
    int n = mb_skeleton_joint_count(s);
    const int *parent = mb_skeleton_parents(s);
    int j = 0;
    for (;;) {
        int child = -1, count = 0;
        for (int k = j + 1; k < n; ++k)
            if (parent[k] == j) {
                child = k;
                ++count;
            }
        if (count != 1 || mb_skeleton_is_end_site(s, child) ||
            !mb_skeleton_has_translation(s, child))
            return j;
        j = child;
    }
}

int mb_cmd_info(int argc, char **argv)
{
    static const mb_cli_opt opts[] = {{"lenient", 0, 0, OPT_LENIENT},
                                      {"no-table", 0, 0, OPT_NO_TABLE},
                                      {NULL, 0, 0, 0}};
    const char *cmd = "mblend info";
    mb_cli_args a;
    mb_cli_args_init(&a, cmd, argc, argv);
    const char *path = NULL;
    int lenient = 0, table = 1, id;
    while ((id = mb_cli_next(&a, opts)) != MB_CLI_END) {
        switch (id) {
        case MB_CLI_BAD: return MB_EXIT_USAGE;
        case MB_OPT_HELP: mb_cmd_info_usage(stdout); return MB_EXIT_OK;
        case OPT_LENIENT: lenient = 1; break;
        case OPT_NO_TABLE: table = 0; break;
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

    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    int rc = mb_cli_load_bvh(path, lenient, &s, &c);
    if (rc != MB_EXIT_OK)
        return rc;

    int n = mb_skeleton_joint_count(s);
    const int *parent = mb_skeleton_parents(s);
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
    struct stat sb;
    long long size = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;

    printf("file:           %s (%lld bytes)\n", path, size);
    printf("joints:         %d joints + %d End Sites (%d nodes), %d channels\n", n - end_sites,
           end_sites, n, mb_skeleton_channel_count(s));
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

    /* Up axis and height from the first frame (the rest pose when there are no frames). */
    mb_xform *pose = malloc((size_t)n * sizeof *pose);
    float(*world)[16] = malloc((size_t)n * sizeof *world);
    if (!pose || !world) {
        free(pose);
        free(world);
        mb_clip_destroy(c);
        mb_skeleton_destroy(s);
        return mb_cli_input_error(cmd, "out of memory");
    }
    int ref = frames > 0 ? 0 : -1;
    mb_status st = mb_cli_frame_world(s, c, ref, pose, world);
    if (st != MB_OK) {
        rc = mb_cli_input_error(cmd, "%s: forward kinematics failed: %s", path, mb_status_str(st));
        goto out;
    }
    const char *pose_name = ref < 0 ? "rest pose" : "frame 0";
    int top = find_head_top(s);
    int body = find_body_root(s);
    int up = 1, up_sign = 1;
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
        lo[k] = hi[k] = world[0][12 + k];
    for (int j = 0; j < n; ++j)
        for (int k = 0; k < 3; ++k) {
            double v = world[j][12 + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    static const char axis_name[3] = {'X', 'Y', 'Z'};
    if (top >= 0) {
        double v[3], len = 0.0;
        for (int k = 0; k < 3; ++k) {
            v[k] = world[top][12 + k] - world[body][12 + k];
            len += v[k] * v[k];
        }
        len = sqrt(len);
        up = 0;
        for (int k = 1; k < 3; ++k)
            if (fabs(v[k]) > fabs(v[up]))
                up = k;
        up_sign = v[up] < 0 ? -1 : 1;
        if (len > 0)
            for (int k = 0; k < 3; ++k)
                v[k] /= len;
        printf("up axis:        %c-up (%c%c; %s: %s -> %s points along (%+.2f, %+.2f, %+.2f))\n",
               axis_name[up], up_sign < 0 ? '-' : '+', axis_name[up], pose_name,
               mb_skeleton_name(s, body), mb_skeleton_name(s, top), v[0], v[1], v[2]);
    } else {
        up = 0;
        for (int k = 1; k < 3; ++k)
            if (hi[k] - lo[k] > hi[up] - lo[up])
                up = k;
        printf("up axis:        %c-up (guess: no joint named Head; the axis along which the "
               "skeleton extends most in the %s)\n",
               axis_name[up], pose_name);
    }
    printf("height:         %.6g (%s, lowest to highest node along %c)", hi[up] - lo[up],
           pose_name, axis_name[up]);
    if (ref >= 0 && mb_cli_frame_world(s, c, -1, pose, world) == MB_OK) {
        double rlo = world[0][12 + up], rhi = rlo;
        for (int j = 0; j < n; ++j) {
            rlo = fmin(rlo, world[j][12 + up]);
            rhi = fmax(rhi, world[j][12 + up]);
        }
        printf(", rest pose %.6g", rhi - rlo);
    }
    printf("\n");

    /* Travel of the body root (world position through FK). */
    if (frames > 0) {
        double start[3] = {0, 0, 0}, end[3] = {0, 0, 0}, path_len = 0.0, prev[3] = {0, 0, 0};
        for (int f = 0; f < frames; ++f) {
            if (mb_cli_frame_world(s, c, f, pose, world) != MB_OK)
                break;
            double cur[3] = {world[body][12], world[body][13], world[body][14]};
            if (f == 0)
                memcpy(start, cur, sizeof start);
            else {
                double d2 = 0.0;
                for (int k = 0; k < 3; ++k)
                    if (k != up)
                        d2 += (cur[k] - prev[k]) * (cur[k] - prev[k]);
                path_len += sqrt(d2);
            }
            memcpy(prev, cur, sizeof prev);
            memcpy(end, cur, sizeof end);
        }
        double h2 = 0.0;
        for (int k = 0; k < 3; ++k)
            if (k != up)
                h2 += (end[k] - start[k]) * (end[k] - start[k]);
        double span = (frames - 1) * dt;
        printf("root travel:    %s (%.6g, %.6g, %.6g) -> (%.6g, %.6g, %.6g); horizontal: net %.6g, "
               "path %.6g",
               mb_skeleton_name(s, body), start[0], start[1], start[2], end[0], end[1], end[2],
               sqrt(h2), path_len);
        if (span > 0)
            printf(", average speed %.6g per s", path_len / span);
        printf("\n");
    } else {
        printf("root travel:    none (no frames)\n");
    }

    if (table) {
        int w = 4;
        for (int j = 0; j < n; ++j) {
            int l = (int)strlen(mb_skeleton_name(s, j));
            w = l > w ? l : w;
        }
        printf("\n%5s  %-*s  %-*s  %s\n", "index", w, "name", w, "parent", "channels");
        for (int j = 0; j < n; ++j) {
            char ch[64];
            channel_summary(s, j, ch, sizeof ch);
            printf("%5d  %-*s  %-*s  %s\n", j, w, mb_skeleton_name(s, j), w,
                   parent[j] < 0 ? "-" : mb_skeleton_name(s, parent[j]), ch);
        }
    }
out:
    free(pose);
    free(world);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    return rc;
}
