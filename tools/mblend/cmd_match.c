/* mblend match A.bvh B.bvh: the best transition points from A to B (mb_match_find). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_pose.h"

void cmd_match_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend match A B [options]\n"
            "\n"
            "A and B are BVH files or glTF/FBX animations (file.glb#Walk; default the first).\n"
            "Find the frame pairs (a, b) where a transition from A to B fits best: the windows\n"
            "of joint positions from a and from b are compared after the best rotation about\n"
            "the up axis and horizontal translation (Kovar & Gleicher, Motion Graphs, 2002),\n"
            "for all pairs at once (BLAS). Prints CSV, best first: rank, frames and times, the\n"
            "cost (root-mean-square distance of the aligned joints, file units) and the\n"
            "alignment that carries B onto A (rotation in degrees, horizontal translation).\n"
            "Reported pairs are local minima at least --separation frames apart. The T-pose\n"
            "frame 0 of cgspeed CMU files is skipped.\n"
            "\n"
            "options:\n"
            "  -k, --count N          pairs to print (default 5)\n"
            "  --window SECONDS       compared motion after each frame (default 0.25)\n"
            "  --samples N            poses per window (default 8; 1 compares single poses)\n"
            "  --a-range FROM:TO      seconds of A to search (default: all)\n"
            "  --b-range FROM:TO      seconds of B to search (default: all)\n"
            "  --separation N         frames between reported pairs (default: 0.1 s of A)\n"
            "  --double               dgemm instead of sgemm\n"
            "  --stats                print timings (total, BLAS share) on stderr\n"
            "  --up x|y|z             the up axis (default: detected for BVH, y for glTF/FBX)\n"
            "  --lenient              accept Frames lines that disagree with the data\n"
            "  -h, --help             show this help\n"
            "\n"
            "example: mblend match run.bvh walk.bvh -k 3 --window 0.4\n");
}

enum { OPT_COUNT = 1, OPT_WINDOW, OPT_SAMPLES, OPT_ARANGE, OPT_BRANGE, OPT_SEP, OPT_DOUBLE, OPT_STATS };



/* Opens A and B (one skeleton) and analyses both, B on A's up axis. */
static int open_pair(const char *cmd, const char *const paths[2], mb_axis up, int lenient,
                     cli_clip src[2], mb_motion_info info[2])
{
    int rc;
    for (int i = 0; i < 2; ++i)
        if ((rc = cli_clip_open(cmd, paths[i], lenient, &src[i])) != CLI_EXIT_OK)
            return rc;
    if ((rc = cli_same_skeleton(cmd, paths[0], src[0].s, paths[1], src[1].s)) != CLI_EXIT_OK)
        return rc;
    for (int i = 0; i < 2; ++i)
        if (mb_clip_frame_count(src[i].c) < 2)
            return cli_input_error(cmd, "%s has fewer than 2 frames", paths[i]);
    mb_error e;
    return cli_prepare_pair(paths, src, up, info, &e);
}

/* The count best pairs from A to B, printed as CSV (and the timings with want_stats). */
static int search_and_print(const char *cmd, mb_match_desc *md, const cli_clip src[2], long count,
                            int want_stats)
{
    md->prepared_a = src[0].prep; /* skeletons, clips and analyses */
    md->prepared_b = src[1].prep;
    mb_match_pair *pairs = malloc((size_t)count * sizeof *pairs);
    if (!pairs)
        return cli_input_error(cmd, "out of memory");
    int found = 0;
    mb_match_stats st;
    mb_error e;
    if (mb_match_find(md, pairs, (int)count, &found, &st, &e) != MB_OK) {
        cli_print_error(&e);
        free(pairs);
        return CLI_EXIT_INPUT;
    }
    double fta = mb_clip_frame_time(src[0].c), ftb = mb_clip_frame_time(src[1].c);
    printf("rank,a_frame,a_time,b_frame,b_time,cost,theta_deg,dx,dz\n");
    for (int i = 0; i < found; ++i)
        printf("%d,%d,%.6f,%d,%.6f,%.6g,%.4f,%.6g,%.6g\n", i + 1, pairs[i].a, pairs[i].a * fta, pairs[i].b,
               pairs[i].b * ftb, (double)pairs[i].cost, pairs[i].theta * 57.29577951308232, (double)pairs[i].dx,
               (double)pairs[i].dz);
    free(pairs);
    if (want_stats)
        fprintf(stderr, "%s: %.0f pairs of %d points, %.3f s, %.1f%% in %s\n", cmd, st.pairs, st.points,
                st.total_seconds, st.total_seconds > 0 ? 100.0 * st.blas_seconds / st.total_seconds : 0.0,
                md->use_double ? "dgemm" : "sgemm");
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_input_error(cmd, "cannot write the output");
    return CLI_EXIT_OK;
}

int cmd_match(int argc, char **argv)
{
    static const cli_opt opts[] = {
        {"count", 'k', 1, OPT_COUNT},     {"window", 0, 1, OPT_WINDOW}, {"samples", 0, 1, OPT_SAMPLES},
        {"a-range", 0, 1, OPT_ARANGE},    {"b-range", 0, 1, OPT_BRANGE}, {"separation", 0, 1, OPT_SEP},
        {"double", 0, 0, OPT_DOUBLE},     {"stats", 0, 0, OPT_STATS},   CLI_OPTION_UP,
        CLI_OPTION_LENIENT,               {NULL, 0, 0, 0}};
    const char *cmd = "mblend match";
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    const char *paths[2] = {NULL, NULL};
    mb_axis up = MB_AXIS_DETECT;
    int npaths = 0, lenient = 0, want_stats = 0, id, rc = CLI_EXIT_OK;
    long count = 5, samples = 0, sep = 0;
    mb_match_desc md = {0};
    cli_clip src[2];
    memset(src, 0, sizeof src);
#define USAGE(...) do { rc = cli_usage_error(cmd, __VA_ARGS__); goto out; } while (0)
    while ((id = cli_next(&a, opts)) != CLI_END) {
        switch (id) {
        case CLI_BAD: rc = CLI_EXIT_USAGE; goto out;
        case CLI_OPT_HELP: cmd_match_usage(stdout); goto out;
        case OPT_COUNT:
            if (!cli_parse_long(a.arg, &count) || count < 1 || count > 100000)
                USAGE("bad --count '%s' (1 to 100000)", a.arg);
            break;
        case OPT_SAMPLES:
            if (!cli_parse_long(a.arg, &samples) || samples < 1 || samples > 256)
                USAGE("bad --samples '%s' (1 to 256)", a.arg);
            md.window_samples = (int)samples;
            break;
        case OPT_SEP:
            if (!cli_parse_long(a.arg, &sep) || sep < 1 || sep > 1000000)
                USAGE("bad --separation '%s' (frames >= 1)", a.arg);
            md.min_separation = (int)sep;
            break;
        case OPT_WINDOW:
            if (!cli_parse_nonneg(a.arg, &md.window) || !(md.window > 0.0))
                USAGE("bad --window '%s' (seconds > 0)", a.arg);
            break;
        case OPT_ARANGE:
            if (!cli_parse_span(a.arg, &md.a_from, &md.a_to) || !(md.a_to > md.a_from))
                USAGE("bad --a-range '%s' (FROM:TO seconds, FROM < TO)", a.arg);
            break;
        case OPT_BRANGE:
            if (!cli_parse_span(a.arg, &md.b_from, &md.b_to) || !(md.b_to > md.b_from))
                USAGE("bad --b-range '%s' (FROM:TO seconds, FROM < TO)", a.arg);
            break;
        case OPT_DOUBLE: md.use_double = 1; break;
        case OPT_STATS: want_stats = 1; break;
        case CLI_OPT_LENIENT: lenient = 1; break;
        case CLI_OPT_UP:
            if ((rc = cli_take_up(cmd, a.arg, &up)) != CLI_EXIT_OK)
                goto out;
            break;
        case CLI_OPERAND:
            if (npaths == 2)
                USAGE("too many inputs: give A and B");
            paths[npaths++] = a.arg;
            break;
        default: break;
        }
    }
    if (npaths != 2)
        USAGE("need two inputs, A and B");
    mb_motion_info info[2];
    if ((rc = open_pair(cmd, paths, up, lenient, src, info)) != CLI_EXIT_OK)
        goto out;
    rc = search_and_print(cmd, &md, src, count, want_stats);

out:
    for (int i = 0; i < 2; ++i)
        cli_clip_close(&src[i]);
    return rc;
#undef USAGE
}
