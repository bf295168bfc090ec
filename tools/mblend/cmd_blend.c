/* mblend blend IN... --weights W,... -o OUT: blend poses or whole clips. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"

void mb_cmd_blend_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend blend IN... --weights W1,W2,... -o OUT.bvh|OUT.glb [options]\n"
            "\n"
            "Blend BVH clips (or single poses) on one skeleton with the log/exp method: per\n"
            "joint, a reference rotation from the top eigenvector of sum w q q^T, the inputs\n"
            "mapped to its tangent space, averaged with the weights and mapped back.\n"
            "\n"
            "IN is one of\n"
            "  file.bvh        the whole clip (with --cycle auto: one gait cycle of it)\n"
            "  file.bvh@N      frame N, a pose (frames count from 0, the first motion line);\n"
            "                  with pose inputs OUT is a one-frame BVH of the blended pose\n"
            "  file.bvh@A:B    frames A to B-1 (half-open, as in mblend positions)\n"
            "  file.glb#Walk   an animation of a glTF, FBX or other file read through assimp\n"
            "                  (default: the first); @N and @A:B apply as above\n"
            "All inputs must share joint names and parents; offsets come from the first.\n"
            "\n"
            "Clips are blended in normalised time: every output frame samples every input at\n"
            "the same phase, and the output lasts sum w_i T_i. Root motion is blended as each\n"
            "input's per-frame displacement and turn in its own heading frame, then\n"
            "integrated, so the result travels at the blended speed without sliding.\n"
            "\n"
            "options:\n"
            "  -o, --output OUT     the file to write (temporary file + rename): OUT.bvh, or\n"
            "                       OUT.glb (skeleton, the first input's mesh or a generated\n"
            "                       capsule skin, and the blend as an animation)\n"
            "  --scale S            .glb only: scale the scene by S (e.g. 0.01 for BVH\n"
            "                       clips in cm, as glTF viewers expect metres); default 1\n"
            "  -w, --weights LIST   one non-negative weight per input, comma-separated;\n"
            "                       normalised to sum 1 (default: equal weights)\n"
            "  --cycle auto|none    auto (default for clips): find one gait cycle per input,\n"
            "                       from a left-foot touchdown to the next (the right foot for\n"
            "                       every input when a clip is too short), skipping the T-pose\n"
            "                       frame 0 of cgspeed CMU files; in-place loops (the last frame\n"
            "                       repeats the first, as glTF animations do) without touchdowns\n"
            "                       are whole cycles; the output loops.\n"
            "                       none: stretch the given ranges (or whole clips) onto each\n"
            "                       other, both ends included\n"
            "  --range LIST         the cycle or range of each input, comma-separated, one per\n"
            "                       input: A:B in frames (half-open) or A s:B s in seconds,\n"
            "                       e.g. 12:145,0.5s:1.2s; '-' keeps auto for that input\n"
            "  --feet L,R           foot joint names for cycle detection (default: by name,\n"
            "                       else the two lowest End Sites)\n"
            "  --up x|y|z           the up axis (default: detected for BVH, y for glTF/FBX)\n"
            "  --method M           logexp (default), nlerp (what most engines do) or karcher\n"
            "                       (iterated geodesic mean)\n"
            "  --exact              solve every reference with LAPACKE (default: fast solver\n"
            "                       with LAPACKE where the eigen-gap is small)\n"
            "  --report FILE        CSV per output frame and joint: weights, eigen-gap, largest\n"
            "                       tangent angle; with --compare also the angle between the\n"
            "                       methods\n"
            "  --compare            add nlerp and karcher angles (degrees) to the report\n"
            "  --lenient            accept Frames lines that disagree with the data\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples: mblend blend data/bvh/walk.bvh data/bvh/run.bvh -w 0.5,0.5 -o jog.bvh\n"
            "          mblend blend Fox.glb#Walk Fox.glb#Run -o trot.glb\n");
}

enum {
    OPT_OUTPUT = 1,
    OPT_WEIGHTS,
    OPT_CYCLE,
    OPT_RANGE,
    OPT_FEET,
    OPT_UP,
    OPT_METHOD,
    OPT_EXACT,
    OPT_REPORT,
    OPT_COMPARE,
    OPT_LENIENT,
    OPT_SCALE
};

typedef struct input {
    char path[1024]; /* as given, without @...: names the input in messages */
    int kind; /* 0 whole clip, 1 pose @N, 2 range @A:B */
    long a, b;
    mb_cli_clip src;  /* the loaded file (owns what s and c point to) */
    const mb_skeleton *s;
    const mb_clip *c;
    mb_motion_info info;
    mb_frame_range range;
    int has_range;
    float weight;
} input;

/* "12:145" in frames or "0.5s:1.2s" in seconds into a half-open frame range. frame_time 0:
 * the syntax only, before the clip (and so the length of a frame) is known: A < B is checked
 * where both ends have the same unit. */
static int parse_range(const char *text, double frame_time, mb_frame_range *out)
{
    const char *colon = strchr(text, ':');
    if (!colon)
        return 0;
    double v[2];
    int in_secs[2];
    const char *parts[2] = {text, colon + 1};
    size_t lens[2] = {(size_t)(colon - text), strlen(colon + 1)};
    for (int k = 0; k < 2; ++k) {
        char buf[64];
        if (lens[k] == 0 || lens[k] >= sizeof buf)
            return 0;
        memcpy(buf, parts[k], lens[k]);
        buf[lens[k]] = '\0';
        int secs = buf[lens[k] - 1] == 's';
        if (secs)
            buf[lens[k] - 1] = '\0';
        if (strspn(buf, "0123456789.eE+-") != strlen(buf)) /* decimal only */
            return 0;
        char *end;
        errno = 0;
        double x = strtod(buf, &end);
        if (end == buf || *end || errno || !isfinite(x) || x < 0)
            return 0;
        if (!secs && x != floor(x))
            return 0;
        in_secs[k] = secs;
        v[k] = secs && frame_time > 0.0 ? floor(x / frame_time + 0.5) : x;
    }
    if (frame_time <= 0.0) {
        if (in_secs[0] != in_secs[1])
            return 1;
        if (!in_secs[0] && (v[0] > 2e9 || v[1] > 2e9))
            return 0;
        return v[1] > v[0];
    }
    if (v[0] > 2e9 || v[1] > 2e9)
        return -2; /* past any clip */
    out->start = (int)v[0];
    out->end = (int)v[1];
    return out->end > out->start ? 1 : -1;
}

/* Splits "a,b,c" in place; returns the count (at most max). */
static int split_list(char *s, char **items, int max)
{
    int n = 0;
    for (char *p = s; n < max;) {
        items[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* An option's per-input list ("a,b,c", one item per input) split into buf (size bytes)
 * and items; a usage error (printed; MB_EXIT_USAGE) when it is too long or has another
 * count than the n inputs. what names an item ("value", "item"). */
static int split_per_input(const char *cmd, const char *opt, const char *what, const char *text,
                           char *buf, size_t size, char **items, int n)
{
    if (strlen(text) >= size)
        return mb_cli_usage_error(cmd, "%s too long", opt);
    strcpy(buf, text);
    int k = split_list(buf, items, MB_BLEND_MAX_LAYERS + 1);
    if (k != n)
        return mb_cli_usage_error(cmd, "%s has %d %s%s for %d input%s", opt, k, what,
                                  k == 1 ? "" : "s", n, n == 1 ? "" : "s");
    return MB_EXIT_OK;
}

/* ---------- the report ---------- */

typedef struct report_ctx {
    FILE *f;
    const mb_skeleton *s;
    int compare;
    const input *in;
    int n;
    mb_xform *scratch;
} report_ctx;

static mb_status report_frame(void *user, int frame, double phase, const mb_blend_layer *layers,
                              int layer_count, const mb_pose *blended, const mb_blend_diag *diag)
{
    report_ctx *r = user;
    mb_xform *alt[2] = {NULL, NULL};
    if (r->compare) {
        for (int m = 0; m < 2; ++m) {
            alt[m] = r->scratch + (size_t)m * blended->count;
            mb_blend_desc d = {0};
            d.layers = layers;
            d.layer_count = layer_count;
            d.method = m == 0 ? MB_BLEND_NLERP : MB_BLEND_KARCHER;
            d.out.joints = alt[m];
            d.out.count = blended->count;
            mb_status st = mb_blend_run(&d);
            if (st != MB_OK)
                return st;
        }
    }
    /* the weights as the blend uses them, normalised (pose inputs arrive as given) */
    double total = 0.0;
    for (int i = 0; i < layer_count; ++i)
        total += layers[i].weight;
    for (int j = 0; j < blended->count; ++j) {
        if (mb_skeleton_is_end_site(r->s, j))
            continue;
        fprintf(r->f, "%d,%.6f,%d,", frame, phase, j);
        mb_cli_csv_field(r->f, mb_skeleton_name(r->s, j));
        fputc(',', r->f);
        for (int i = 0; i < layer_count; ++i)
            fprintf(r->f, "%s%.6g", i ? ";" : "", layers[i].weight / total);
        fprintf(r->f, ",%.6g,%.6g", (double)diag->eigen_gap[j],
                (double)diag->max_angle[j] * 57.29577951308232);
        if (r->compare)
            for (int m = 0; m < 2; ++m)
                fprintf(r->f, ",%.6g",
                        mb_quat_angle_between(blended->joints[j].rot, alt[m][j].rot) *
                            57.29577951308232);
        fputc('\n', r->f);
    }
    return ferror(r->f) ? MB_IO : MB_OK;
}

static void report_header(FILE *f, int compare)
{
    fprintf(f, "frame,phase,joint_index,joint_name,weights,eigen_gap,max_tangent_angle_deg%s\n",
            compare ? ",angle_to_nlerp_deg,angle_to_karcher_deg" : "");
}

/* How a clip loops: 1 when its last frame repeats its first (every rotation within 1
 * degree, every joint position within 1% of the body height), 2 when its last frame runs on
 * into its first (the step from the last frame to the first is no larger than 1.5 times the
 * clip's largest frame-to-frame step, for every joint), 0 when it does not loop. */
static int clip_loops(const mb_skeleton *s, const mb_clip *c, const mb_motion_info *info)
{
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    if (nf < 3)
        return 0;
    mb_xform *p = malloc(2 * (size_t)nj * sizeof *p);
    double *step = calloc(2 * (size_t)nj, sizeof *step); /* largest step: angle, distance */
    double h = info->height > 0 ? info->height : 1.0;
    int ok = p && step && mb_clip_frame_pose(s, c, 0, (mb_pose){p, nj}) == MB_OK;
    int repeats = 1, runs_on = 1;
    /* frames f - 1 (in p + nj) and f (in p), for f = 1 .. nf, frame nf being frame 0 again */
    for (int f = 1; ok && f <= nf; ++f) {
        memcpy(p + nj, p, (size_t)nj * sizeof *p);
        ok = mb_clip_frame_pose(s, c, f % nf, (mb_pose){p, nj}) == MB_OK;
        for (int j = 0; ok && j < nj; ++j) {
            const mb_xform *a = &p[nj + j], *b = &p[j];
            double dot = 0, d2 = 0;
            for (int k = 0; k < 4; ++k)
                dot += (double)a->rot[k] * b->rot[k];
            for (int k = 0; k < 3; ++k)
                d2 += ((double)a->pos[k] - b->pos[k]) * ((double)a->pos[k] - b->pos[k]);
            double ang = 2.0 * acos(fmin(1.0, fabs(dot))), dist = sqrt(d2);
            if (f < nf) {
                step[2 * j] = fmax(step[2 * j], ang);
                step[2 * j + 1] = fmax(step[2 * j + 1], dist);
                continue;
            }
            /* f == nf: the last frame against frame 0 */
            repeats &= ang <= 3.14159265358979 / 180.0 && dist <= 0.01 * h;
            runs_on &= ang <= 1.5 * step[2 * j] + 2e-3 && dist <= 1.5 * step[2 * j + 1] + 1e-3 * h;
        }
    }
    free(p);
    free(step);
    return !ok ? 0 : repeats ? 1 : runs_on ? 2 : 0;
}

/* ---------- main ---------- */

static void free_inputs(input *in, int n)
{
    for (int i = 0; i < n; ++i)
        mb_cli_clip_close(&in[i].src);
    free(in);
}

int mb_cmd_blend(int argc, char **argv)
{
    static const mb_cli_opt opts[] = {
        {"output", 'o', 1, OPT_OUTPUT}, {"weights", 'w', 1, OPT_WEIGHTS},
        {"cycle", 0, 1, OPT_CYCLE},     {"range", 0, 1, OPT_RANGE},
        {"feet", 0, 1, OPT_FEET},       {"up", 0, 1, OPT_UP},
        {"method", 0, 1, OPT_METHOD},   {"exact", 0, 0, OPT_EXACT},
        {"report", 0, 1, OPT_REPORT},   {"compare", 0, 0, OPT_COMPARE},
        {"lenient", 0, 0, OPT_LENIENT}, {"scale", 0, 1, OPT_SCALE},
        {NULL, 0, 0, 0}};
    const char *cmd = "mblend blend";
    mb_cli_args a;
    mb_cli_args_init(&a, cmd, argc, argv);
    const char *outp = NULL, *weights = NULL, *ranges = NULL, *feet = NULL, *report = NULL;
    int cycle_auto = -1, up = 0, exact = 0, compare = 0, lenient = 0, id;
    float scale = 0.0f; /* 0: the writer's default, 1 */
    char range_buf[4096], *range_items[MB_BLEND_MAX_LAYERS + 1]; /* --range, split */
    mb_blend_method method = MB_BLEND_LOGEXP;
    input *in = calloc(MB_BLEND_MAX_LAYERS, sizeof *in);
    if (!in)
        return mb_cli_input_error(cmd, "out of memory");
    int n = 0, rc = MB_EXIT_OK;
    /* --report streams to a temporary file that goes into place only once the output is
     * written, so a failure leaves neither; every exit discards it unless committed */
    mb_file_stream rs = {0};
#define USAGE(...) do { rc = mb_cli_usage_error(cmd, __VA_ARGS__); goto out; } while (0)
#define INPUT_ERR(...) do { rc = mb_cli_input_error(cmd, __VA_ARGS__); goto out; } while (0)
    while ((id = mb_cli_next(&a, opts)) != MB_CLI_END) {
        switch (id) {
        case MB_CLI_BAD: rc = MB_EXIT_USAGE; goto out;
        case MB_OPT_HELP: mb_cmd_blend_usage(stdout); goto out;
        case OPT_OUTPUT: outp = a.arg; break;
        case OPT_WEIGHTS: weights = a.arg; break;
        case OPT_RANGE: ranges = a.arg; break;
        case OPT_FEET: feet = a.arg; break;
        case OPT_REPORT: report = a.arg; break;
        case OPT_EXACT: exact = 1; break;
        case OPT_COMPARE: compare = 1; break;
        case OPT_LENIENT: lenient = 1; break;
        case OPT_SCALE:
            if (!mb_cli_parse_scale(a.arg, &scale))
                USAGE("--scale needs a number from 1e-6 to 1e6, got '%s'", a.arg);
            break;
        case OPT_CYCLE:
            if (strcmp(a.arg, "auto") == 0)
                cycle_auto = 1;
            else if (strcmp(a.arg, "none") == 0)
                cycle_auto = 0;
            else
                USAGE("bad --cycle '%s' (auto or none)", a.arg);
            break;
        case OPT_UP:
            if (!mb_cli_parse_up(a.arg, &up))
                USAGE("bad --up '%s' (x, y or z)", a.arg);
            break;
        case OPT_METHOD:
            if (mb_blend_method_parse(a.arg, &method) != MB_OK)
                USAGE("bad --method '%s' (logexp, nlerp or karcher)", a.arg);
            break;
        case MB_CLI_OPERAND: {
            if (n == MB_BLEND_MAX_LAYERS)
                USAGE("at most %d inputs", MB_BLEND_MAX_LAYERS);
            input *it = &in[n++];
            /* file@N, file@A:B; a file really called "x@3.bvh" is taken whole */
            struct stat whole;
            const char *at = stat(a.arg, &whole) == 0 && S_ISREG(whole.st_mode)
                                 ? NULL : strrchr(a.arg, '@');
            size_t plen = at ? (size_t)(at - a.arg) : strlen(a.arg);
            if (plen == 0 || plen >= sizeof it->path)
                USAGE("bad input '%s'", a.arg);
            memcpy(it->path, a.arg, plen);
            it->path[plen] = '\0';
            if (at) {
                const char *spec = at + 1, *colon = strchr(spec, ':');
                char buf[64];
                if (!colon) {
                    if (!mb_cli_parse_long(spec, &it->a) || it->a < 0)
                        USAGE("bad frame in '%s' (file.bvh@N, N >= 0)", a.arg);
                    it->kind = 1;
                } else {
                    size_t l1 = (size_t)(colon - spec);
                    if (l1 == 0 || l1 >= sizeof buf)
                        USAGE("bad range in '%s' (file.bvh@A:B)", a.arg);
                    memcpy(buf, spec, l1);
                    buf[l1] = '\0';
                    if (!mb_cli_parse_long(buf, &it->a) || !mb_cli_parse_long(colon + 1, &it->b) ||
                        it->a < 0 || it->b <= it->a)
                        USAGE("bad range in '%s' (file.bvh@A:B with 0 <= A < B)", a.arg);
                    it->kind = 2;
                }
            }
            break;
        }
        default: break;
        }
    }
    if (n == 0)
        USAGE("no input files");
    if (!outp)
        USAGE("missing -o OUT.bvh (or OUT.glb)");
    int glb = mb_cli_ends_with_ci(outp, ".glb");
    if (!glb && !mb_cli_ends_with_ci(outp, ".bvh"))
        USAGE("the output must end in .bvh or .glb, got '%s'", outp);
    if (scale > 0.0f && !glb)
        USAGE("--scale applies to .glb output only");
    int poses = 0;
    for (int i = 0; i < n; ++i)
        poses += in[i].kind == 1;
    if (poses && poses != n)
        USAGE("mix of poses (file@N) and clips: give all inputs as poses or all as clips");
    if (poses && (ranges || feet || cycle_auto >= 0))
        USAGE("--range, --cycle and --feet apply to clips; these inputs are poses (file@N)");
    if (compare && !report)
        USAGE("--compare adds the methods' angles to the report: give --report FILE too");

    /* Weights. */
    if (weights) {
        char buf[4096], *items[MB_BLEND_MAX_LAYERS + 1];
        if ((rc = split_per_input(cmd, "--weights", "value", weights, buf, sizeof buf, items, n)) !=
            MB_EXIT_OK)
            goto out;
        /* the library takes float weights: each must fit one, and their float sum must be
         * positive and finite (1e-50 is 0 in float) */
        float sum = 0.0f;
        for (int i = 0; i < n; ++i) {
            double w;
            if (!mb_cli_parse_nonneg(items[i], &w)) {
                /* a positive decimal below double's range: strtod's underflow */
                errno = 0;
                double tiny = strspn(items[i], "0123456789.eE+-") == strlen(items[i])
                                  ? strtod(items[i], NULL) : -1.0;
                if (errno == ERANGE && tiny >= 0.0 && tiny < 1.0)
                    USAGE("weight '%s' is too small for a float (below %g): give 0, or scale "
                          "all the weights up", items[i], FLT_MIN);
                USAGE("bad weight '%s' (a finite decimal number >= 0)", items[i]);
            }
            if (w > FLT_MAX)
                USAGE("weight '%s' is too large (at most %g)", items[i], FLT_MAX);
            in[i].weight = (float)w;
            sum += in[i].weight;
        }
        if (!(sum > 0.0f))
            USAGE("the weights sum to zero (in single precision)");
        if (!isfinite(sum))
            USAGE("the weights' sum overflows single precision: scale them down");
    } else {
        for (int i = 0; i < n; ++i)
            in[i].weight = 1.0f;
    }
    /* --range's syntax and count are checked before loading (seconds need the clip's frame
     * time, so the values are read below) */
    if (ranges) {
        if ((rc = split_per_input(cmd, "--range", "item", ranges, range_buf, sizeof range_buf,
                                  range_items, n)) != MB_EXIT_OK)
            goto out;
        for (int i = 0; i < n; ++i) {
            mb_frame_range r;
            if (strcmp(range_items[i], "-") != 0 && !parse_range(range_items[i], 0.0, &r))
                USAGE("bad range '%s' (A:B frames or A s:B s seconds, A < B)", range_items[i]);
        }
    }
    char feet_buf[512], *feet_lr[3] = {NULL, NULL, NULL};
    if (feet) {
        if (strlen(feet) >= sizeof feet_buf)
            USAGE("--feet too long");
        strcpy(feet_buf, feet);
        if (split_list(feet_buf, feet_lr, 3) != 2 || !feet_lr[0][0] || !feet_lr[1][0])
            USAGE("--feet needs two joint names, LEFT,RIGHT");
        if (strcmp(feet_lr[0], feet_lr[1]) == 0)
            USAGE("--feet names '%s' for both feet", feet_lr[0]);
    }

    /* Load and check every input. */
    for (int i = 0; i < n; ++i) {
        if ((rc = mb_cli_clip_open(cmd, in[i].path, lenient, &in[i].src)) != MB_EXIT_OK)
            goto out;
        in[i].s = in[i].src.s;
        in[i].c = in[i].src.c;
        int nf = mb_clip_frame_count(in[i].c);
        if (in[i].kind == 1 && in[i].a >= nf)
            INPUT_ERR("%s has %d frames; frame %ld does not exist", in[i].path, nf, in[i].a);
        if (in[i].kind == 2) {
            if (in[i].b > nf)
                INPUT_ERR("%s has %d frames; range %ld:%ld does not fit", in[i].path, nf, in[i].a, in[i].b);
            in[i].range = (mb_frame_range){(int)in[i].a, (int)in[i].b};
            in[i].has_range = 1;
        }
        if (i > 0 && (rc = mb_cli_same_skeleton(cmd, in[0].path, in[0].s, in[i].path, in[i].s)) !=
                         MB_EXIT_OK)
            goto out;
    }

    {
        const char *files[MB_BLEND_MAX_LAYERS];
        for (int i = 0; i < n; ++i)
            files[i] = in[i].src.file;
        if ((rc = mb_cli_check_report(cmd, report, outp, files, n)) != MB_EXIT_OK ||
            (rc = mb_cli_check_output(cmd, outp, files, n)) != MB_EXIT_OK)
            goto out;
    }
    int cyclic = cycle_auto != 0;
    mb_error e;
    memset(&e, 0, sizeof e);
    if (!poses) {
        /* Ranges from --range override @A:B; '-' or absence leaves detection to --cycle. */
        if (ranges) {
            for (int i = 0; i < n; ++i) {
                const char *item = range_items[i];
                if (strcmp(item, "-") == 0)
                    continue;
                int pr = parse_range(item, mb_clip_frame_time(in[i].c), &in[i].range);
                if (pr == -2)
                    INPUT_ERR("%s has %d frames; range '%s' does not fit", in[i].path,
                              mb_clip_frame_count(in[i].c), item);
                if (pr <= 0)
                    INPUT_ERR("range '%s' covers no frame of %s: in its frames (%g s each) B "
                              "does not come after A", item, in[i].path, mb_clip_frame_time(in[i].c));
                if (in[i].range.end > mb_clip_frame_count(in[i].c))
                    INPUT_ERR("%s has %d frames; range %d:%d does not fit", in[i].path,
                              mb_clip_frame_count(in[i].c), in[i].range.start, in[i].range.end);
                in[i].has_range = 1;
            }
        }
        for (int i = 0; i < n; ++i) {
            mb_analyze_desc ad = {0};
            ad.up_axis = up ? up : in[i].src.up_axis;
            ad.left_foot = feet_lr[0];
            ad.right_foot = feet_lr[1];
            if (mb_clip_frame_count(in[i].c) == 0)
                INPUT_ERR("%s has no frames: nothing to blend", in[i].path);
            if (mb_clip_frame_count(in[i].c) < 2)
                INPUT_ERR("%s has 1 frame: give it as a pose (file@0)", in[i].path);
            if (mb_motion_analyze(in[i].s, in[i].c, &ad, in[i].path, &in[i].info, &e) != MB_OK) {
                mb_cli_print_error(&e);
                rc = MB_EXIT_INPUT;
                goto out;
            }
        }
        /* --cycle none stretches the motion: a cgspeed T-pose frame 0 is not part of it
         * (as detection, transitions and matching skip it) */
        for (int i = 0; i < n && !cyclic; ++i)
            if (!in[i].has_range && in[i].info.first_frame > 0) {
                int nf = mb_clip_frame_count(in[i].c);
                in[i].range = (mb_frame_range){in[i].info.first_frame, nf};
                fprintf(stderr, "%s: %s: frame 0 is a T-pose, not motion: frames %d:%d are "
                        "blended\n", cmd, in[i].path, in[i].info.first_frame, nf);
            }
        if (cyclic) {
            /* Every detected cycle starts at the same foot: left for all, else right for all. */
            int foot_ok = -1;
            for (int foot = 0; foot < 2 && foot_ok < 0; ++foot) {
                int ok = 1;
                for (int i = 0; i < n && ok; ++i)
                    if (!in[i].has_range)
                        ok = mb_motion_find_cycle(in[i].s, in[i].c, &in[i].info, foot, in[i].path,
                                                  &in[i].range, foot == 0 ? &e : NULL) == MB_OK;
                if (ok)
                    foot_ok = foot;
            }
            /* In-place loops (typical of glTF/FBX animations: the root does not travel, so
             * no foot is ever planted) have no touchdowns; when every input without a given
             * range is such a loop, each whole loop is the cycle. */
            int loops = foot_ok < 0, kind[MB_BLEND_MAX_LAYERS] = {0};
            for (int i = 0; i < n && loops; ++i)
                loops = in[i].has_range || (kind[i] = clip_loops(in[i].s, in[i].c, &in[i].info));
            if (loops) {
                for (int i = 0; i < n; ++i)
                    if (!in[i].has_range) {
                        int nf = mb_clip_frame_count(in[i].c);
                        /* a repeated last frame closes the cycle; else frame nf is frame 0 */
                        in[i].range = (mb_frame_range){0, kind[i] == 1 ? nf - 1 : nf};
                        fprintf(stderr, "%s: %s: no foot touchdowns, but the clip loops (its last "
                                "frame %s its first): the whole clip is the cycle\n", cmd,
                                in[i].path, kind[i] == 1 ? "repeats" : "runs on into");
                        in[i].has_range = 2;
                    }
                foot_ok = 0;
            }
            if (foot_ok < 0) {
                mb_cli_print_error(&e);
                fprintf(stderr, "%s: the right foot gives no full cycle in every input either\n"
                        "%s: hint: --range A:B per input, --feet L,R, or --cycle none to stretch "
                        "whole clips\n", cmd, cmd);
                rc = MB_EXIT_INPUT;
                goto out;
            }
            for (int i = 0; i < n; ++i) {
                /* A cycle samples frame END (it continues START), so a given range that ends
                 * past the last frame (A:frames, as a half-open range may) ends on it. */
                int nf = mb_clip_frame_count(in[i].c), clamped = 0;
                if (in[i].has_range == 1 && in[i].range.end >= nf) {
                    if (nf - 1 <= in[i].range.start)
                        INPUT_ERR("%s has %d frames: range %d:%d leaves no cycle (a cycle A:B "
                                  "plays frames A to B, B being A's next phase, so B <= %d)",
                                  in[i].path, nf, in[i].range.start, in[i].range.end, nf - 1);
                    in[i].range.end = nf - 1;
                    clamped = 1;
                }
                fprintf(stderr, "%s: %s: cycle frames %d:%d (%.3f s)%s%s\n", cmd, in[i].path,
                        in[i].range.start, in[i].range.end,
                        (in[i].range.end - in[i].range.start) * mb_clip_frame_time(in[i].c),
                        in[i].has_range == 2 ? ", the whole loop"
                        : in[i].has_range ? ", given" : (foot_ok ? ", right-foot touchdowns" : ""),
                        clamped ? " (ending on the clip's last frame)" : "");
            }
        }
    }

    FILE *rf = NULL;
    if (report) {
        if (mb_file_stream_open(&rs, report, &e) != MB_OK) {
            mb_cli_print_error(&e);
            rc = MB_EXIT_INPUT;
            goto out;
        }
        rf = rs.f;
        report_header(rf, compare);
    }
    int nj = mb_skeleton_joint_count(in[0].s);
    mb_xform *scratch = calloc((size_t)(2 + n) * (size_t)nj, sizeof *scratch);
    mb_clip *result = NULL;
    if (!scratch)
        INPUT_ERR("out of memory");
    report_ctx rctx = {rf, in[0].s, compare, in, n, scratch};

    if (poses) {
        /* One pose per input: a plain blend job, written as a one-frame clip. */
        mb_blend_layer layers[MB_BLEND_MAX_LAYERS];
        mb_pose p[MB_BLEND_MAX_LAYERS];
        mb_xform *outp_j = scratch + (size_t)(2 * nj);
        for (int i = 0; i < n; ++i) {
            p[i].joints = calloc((size_t)nj, sizeof(mb_xform));
            p[i].count = nj;
            if (!p[i].joints || mb_clip_frame_pose(in[i].s, in[i].c, (int)in[i].a, p[i]) != MB_OK) {
                for (int k = 0; k <= i; ++k)
                    free(p[k].joints);
                free(scratch);
                INPUT_ERR("cannot read frame %ld of %s", in[i].a, in[i].path);
            }
            layers[i] = (mb_blend_layer){&p[i], in[i].weight, NULL};
        }
        float *gaps = calloc((size_t)nj, sizeof *gaps), *angles = calloc((size_t)nj, sizeof *angles);
        mb_blend_diag diag = {gaps, angles, nj, 0};
        mb_blend_desc d = {0};
        d.layers = layers;
        d.layer_count = n;
        d.method = method;
        d.solver = exact ? MB_EIGEN_LAPACKE : MB_EIGEN_AUTO;
        d.out.joints = outp_j;
        d.out.count = nj;
        d.diag = &diag;
        mb_status st = gaps && angles ? mb_blend_run(&d) : MB_NOMEM;
        if (st == MB_OK && rf)
            st = report_frame(&rctx, 0, 0.0, layers, n, &d.out, &diag);
        if (st == MB_OK) {
            /* Written on in[0].s: track its joints with position channels. */
            int nt;
            const int *tracked = mb_skeleton_translation_joints(in[0].s, &nt);
            float *rot = malloc((size_t)nj * 4 * sizeof *rot), *tr = malloc(((size_t)nt * 3 + 1) * sizeof *tr);
            if (rot && tr) {
                for (int j = 0; j < nj; ++j)
                    memcpy(rot + 4 * j, outp_j[j].rot, 16);
                for (int t = 0; t < nt; ++t)
                    memcpy(tr + 3 * t, outp_j[tracked[t]].pos, 12);
                mb_clip_desc cd = {0};
                cd.joint_count = nj;
                cd.frame_count = 1;
                cd.frame_time = mb_clip_frame_time(in[0].c);
                cd.rotations = rot;
                cd.translation_joints = tracked;
                cd.translation_count = nt;
                cd.translations = nt > 0 ? tr : NULL;
                st = mb_clip_create(&cd, &result);
            } else {
                st = MB_NOMEM;
            }
            free(rot);
            free(tr);
        }
        if (st == MB_OK && diag.low_gap_joints)
            fprintf(stderr, "%s: note: %d joint%s with an eigen-gap below 1e-3 (ill-defined "
                    "reference; see --report)\n", cmd, diag.low_gap_joints,
                    diag.low_gap_joints == 1 ? "" : "s");
        for (int i = 0; i < n; ++i)
            free(p[i].joints);
        free(gaps);
        free(angles);
        if (st != MB_OK) {
            free(scratch);
            INPUT_ERR("blend failed: %s", mb_status_str(st));
        }
    } else {
        mb_clip_input ci[MB_BLEND_MAX_LAYERS];
        for (int i = 0; i < n; ++i) {
            ci[i].skeleton = in[i].s;
            ci[i].clip = in[i].c;
            ci[i].source = in[i].path;
            ci[i].range = in[i].range;
            ci[i].weight = in[i].weight;
            ci[i].info = &in[i].info;
        }
        mb_clip_blend_desc bd = {0};
        bd.inputs = ci;
        bd.input_count = n;
        bd.cyclic = cyclic;
        bd.method = method;
        bd.solver = exact ? MB_EIGEN_LAPACKE : MB_EIGEN_AUTO;
        bd.up_axis = up ? up : in[0].src.up_axis;
        bd.report = rf ? report_frame : NULL;
        bd.report_user = &rctx;
        if (mb_clip_blend(&bd, &result, &e) != MB_OK) {
            mb_cli_print_error(&e);
            free(scratch);
            rc = MB_EXIT_INPUT;
            goto out;
        }
    }
    free(scratch);
    /* The report is complete; it goes into place only once the output is written. */
    if (rf && (fflush(rf) != 0 || ferror(rf))) {
        mb_clip_destroy(result);
        INPUT_ERR("cannot write report '%s': %s", report, strerror(errno));
    }
    const mb_bvh_write_desc wd = mb_cli_bvh_desc(&in[0].src);
    if (glb) {
        /* the axis the blend used (poses were not analysed: 0, found by the writer) */
        rc = mb_cli_write_glb(cmd, outp, &in[0].src, result, "blend",
                              up ? up : poses ? 0 : in[0].info.up_axis + 1, scale);
    } else if (mb_bvh_write_file(outp, in[0].s, result, &wd, &e) != MB_OK) {
        mb_cli_print_error(&e);
        rc = MB_EXIT_INPUT;
    }
    if (rc == MB_EXIT_OK && rf && mb_file_stream_commit(&rs, &e) != MB_OK) {
        mb_cli_print_error(&e);
        mb_clip_destroy(result);
        INPUT_ERR("wrote %s, but not the report", outp);
    }
    if (rc != MB_EXIT_OK) {
        mb_clip_destroy(result);
        goto out;
    }
    fprintf(stderr, "%s: wrote %s: %d frame%s, %.3f s\n", cmd, outp, mb_clip_frame_count(result),
            mb_clip_frame_count(result) == 1 ? "" : "s", mb_clip_duration(result));
    mb_clip_destroy(result);
out:
    mb_file_stream_discard(&rs);
    free_inputs(in, n);
    return rc;
#undef USAGE
#undef INPUT_ERR
}
