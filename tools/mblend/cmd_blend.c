/* mblend blend IN... --weights W,... -o OUT: blend poses or whole clips. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_output.h"
#include "cli_pose.h"

void cmd_blend_usage(FILE *out)
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
            "Inputs of another skeleton (joint names and parents) than the first input's, or\n"
            "than --to FILE's, are first retargeted onto it (mblend retarget: joint roles,\n"
            "rest poses aligned, root scaled by leg length); offsets come from the first.\n"
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
            "                       else the joints with the roles foot_l and foot_r, else\n"
            "                       the two lowest End Sites)\n"
            "  --up x|y|z           the up axis (default: detected for BVH, y for glTF/FBX)\n"
            "  --method M           logexp (default), nlerp (what most engines do) or karcher\n"
            "                       (iterated geodesic mean)\n"
            "  --exact              solve every reference with LAPACKE (default: fast solver\n"
            "                       with LAPACKE where the eigen-gap is small)\n"
            "  --report FILE        CSV per output frame and joint: weights, eigen-gap, largest\n"
            "                       tangent angle; with --compare also the angle between the\n"
            "                       methods\n"
            "  --compare            add nlerp and karcher angles (degrees) to the report\n"
            "  --to FILE            retarget inputs of other skeletons onto FILE's skeleton (a\n"
            "                       BVH file or a glTF/FBX character; may be one of the inputs;\n"
            "                       default: the first input's)\n"
            "  --lenient            accept Frames lines that disagree with the data\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples: mblend blend data/bvh/walk.bvh data/bvh/run.bvh -w 0.5,0.5 -o jog.bvh\n"
            "          mblend blend Fox.glb#Walk Fox.glb#Run -o trot.glb\n");
}

enum {
    OPT_WEIGHTS = 1,
    OPT_CYCLE,
    OPT_RANGE,
    OPT_FEET,
    OPT_COMPARE,
    OPT_TO
};

typedef struct input {
    char path[1024]; /* as given, without @...: names the input in messages */
    int kind; /* 0 whole clip, 1 pose @N, 2 range @A:B */
    long a, b;
    cli_clip src;  /* the loaded file (owns what s and c point to) */
    const mb_skeleton *s;
    const mb_clip *c;
    mb_prepared_clip *prep; /* clips: what the library decided about the input */
    mb_frame_range range;   /* the given range (@A:B or --range); end 0: none */
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
 * and items; a usage error (printed; CLI_EXIT_USAGE) when it is too long or has another
 * count than the n inputs. what names an item ("value", "item"). */
static int split_per_input(const char *cmd, const char *opt, const char *what, const char *text,
                           char *buf, size_t size, char **items, int n)
{
    if (strlen(text) >= size)
        return cli_usage_error(cmd, "%s too long", opt);
    strcpy(buf, text);
    int k = split_list(buf, items, MB_BLEND_MAX_LAYERS + 1);
    if (k != n)
        return cli_usage_error(cmd, "%s has %d %s%s for %d input%s", opt, k, what,
                               k == 1 ? "" : "s", n, n == 1 ? "" : "s");
    return CLI_EXIT_OK;
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
        cli_csv_field(r->f, mb_skeleton_name(r->s, j));
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

/* ---------- main ---------- */

/* The command line, parsed. */
typedef struct blend_args {
    const char *outp, *weights, *ranges, *feet, *report;
    const char *to; /* --to: the skeleton every input is retargeted onto */
    cli_clip target; /* its file, open while the inputs borrow its skeleton */
    int cycle_auto, exact, compare, lenient, glb, poses;
    mb_axis up; /* --up; MB_AXIS_DETECT: the inputs' */
    float scale; /* 0: the writer's default, 1 */
    mb_blend_method method;
    char range_buf[4096], *range_items[MB_BLEND_MAX_LAYERS + 1]; /* --range, split */
    char feet_buf[512], *feet_lr[3];                              /* --feet, split */
} blend_args;

static const char *const cmd = "mblend blend";

/* Last input first: the others may borrow the first input's skeleton (retargeted onto it). */
static void free_inputs(input *in, int n)
{
    for (int i = n - 1; i >= 0; --i) {
        mb_prepared_clip_destroy(in[i].prep);
        cli_clip_close(&in[i].src);
    }
    free(in);
}

/* IN: file, file@N (a pose) or file@A:B; a file really called "x@3.bvh" is taken whole. */
static int parse_operand(const char *arg, input *it)
{
    struct stat whole;
    const char *at = stat(arg, &whole) == 0 && S_ISREG(whole.st_mode) ? NULL : strrchr(arg, '@');
    size_t plen = at ? (size_t)(at - arg) : strlen(arg);
    if (plen == 0 || plen >= sizeof it->path)
        return cli_usage_error(cmd, "bad input '%s'", arg);
    memcpy(it->path, arg, plen);
    it->path[plen] = '\0';
    if (!at)
        return CLI_EXIT_OK;
    const char *spec = at + 1, *colon = strchr(spec, ':');
    char buf[64];
    if (!colon) {
        if (!cli_parse_long(spec, &it->a) || it->a < 0)
            return cli_usage_error(cmd, "bad frame in '%s' (file.bvh@N, N >= 0)", arg);
        it->kind = 1;
        return CLI_EXIT_OK;
    }
    size_t l1 = (size_t)(colon - spec);
    if (l1 == 0 || l1 >= sizeof buf)
        return cli_usage_error(cmd, "bad range in '%s' (file.bvh@A:B)", arg);
    memcpy(buf, spec, l1);
    buf[l1] = '\0';
    if (!cli_parse_long(buf, &it->a) || !cli_parse_long(colon + 1, &it->b) || it->a < 0 ||
        it->b <= it->a)
        return cli_usage_error(cmd, "bad range in '%s' (file.bvh@A:B with 0 <= A < B)", arg);
    it->kind = 2;
    return CLI_EXIT_OK;
}

/* One option's value into o; CLI_EXIT_OK or a usage error (printed). */
static int take_option(int id, const char *arg, blend_args *o)
{
    switch (id) {
    case CLI_OPT_OUTPUT: return cli_take_output(cmd, arg, &o->outp);
    case OPT_WEIGHTS: o->weights = arg; break;
    case OPT_RANGE: o->ranges = arg; break;
    case OPT_FEET: o->feet = arg; break;
    case OPT_TO: o->to = arg; break;
    case CLI_OPT_REPORT: o->report = arg; break;
    case CLI_OPT_EXACT: o->exact = 1; break;
    case OPT_COMPARE: o->compare = 1; break;
    case CLI_OPT_LENIENT: o->lenient = 1; break;
    case CLI_OPT_SCALE: return cli_take_scale(cmd, arg, &o->scale);
    case OPT_CYCLE: {
        static const char *const cycles[] = {"auto", "none", NULL};
        int which = 0, rc = cli_take_choice(cmd, "--cycle", arg, cycles, &which);
        o->cycle_auto = which == 0; /* auto: 1, none: 0 */
        return rc;
    }
    case CLI_OPT_UP: return cli_take_up(cmd, arg, &o->up);
    case CLI_OPT_METHOD: {
        static const char *const methods[] = {"logexp", "nlerp", "karcher", NULL};
        if (mb_blend_method_parse(arg, &o->method) != MB_OK)
            return cli_bad_choice(cmd, "--method", arg, methods);
        break;
    }
    default: break;
    }
    return CLI_EXIT_OK;
}

/* argv into o and the inputs; CLI_EXIT_OK, CLI_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, blend_args *o, input *in, int *n)
{
    static const cli_opt opts[] = {
        CLI_OPTION_OUTPUT,           {"weights", 'w', 1, OPT_WEIGHTS},
        {"cycle", 0, 1, OPT_CYCLE},  {"range", 0, 1, OPT_RANGE},
        {"feet", 0, 1, OPT_FEET},    CLI_OPTION_UP,
        CLI_OPTION_METHOD,           CLI_OPTION_EXACT,
        CLI_OPTION_REPORT,           {"compare", 0, 0, OPT_COMPARE},
        CLI_OPTION_LENIENT,          CLI_OPTION_SCALE,
        {"to", 0, 1, OPT_TO},        {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    int id, rc;
    while ((id = cli_next(&a, opts)) != CLI_END) {
        if (id == CLI_BAD)
            return CLI_EXIT_USAGE;
        if (id == CLI_OPT_HELP) {
            cmd_blend_usage(stdout);
            return -1;
        }
        if (id == CLI_OPERAND) {
            if (*n == MB_BLEND_MAX_LAYERS)
                return cli_usage_error(cmd, "at most %d inputs", MB_BLEND_MAX_LAYERS);
            rc = parse_operand(a.arg, &in[(*n)++]);
        } else {
            rc = take_option(id, a.arg, o);
        }
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}

/* Options that do not go together, before anything is read. */
static int check_options(blend_args *o, const input *in, int n)
{
    if (n == 0)
        return cli_usage_error(cmd, "no input files");
    static const char *const exts[] = {".bvh", ".glb", NULL}; /* glb = 1 */
    int rc = cli_take_output_kind(cmd, o->outp, exts, &o->glb);
    if (rc != CLI_EXIT_OK || (rc = cli_check_scale(cmd, o->scale, o->glb)) != CLI_EXIT_OK)
        return rc;
    o->poses = 0;
    for (int i = 0; i < n; ++i)
        o->poses += in[i].kind == 1;
    if (o->poses && o->poses != n)
        return cli_usage_error(cmd, "mix of poses (file@N) and clips: give all inputs as poses "
                                       "or all as clips");
    if (o->poses && (o->ranges || o->feet || o->cycle_auto >= 0))
        return cli_usage_error(cmd, "--range, --cycle and --feet apply to clips; these inputs "
                                       "are poses (file@N)");
    if (o->compare && !o->report)
        return cli_usage_error(cmd, "--compare adds the methods' angles to the report: give "
                                       "--report FILE too");
    return CLI_EXIT_OK;
}

/* --weights into in[].weight (each a float, their float sum positive and finite). */
static int parse_weights(const blend_args *o, input *in, int n)
{
    if (!o->weights) {
        for (int i = 0; i < n; ++i)
            in[i].weight = 1.0f;
        return CLI_EXIT_OK;
    }
    char buf[4096], *items[MB_BLEND_MAX_LAYERS + 1];
    int rc = split_per_input(cmd, "--weights", "value", o->weights, buf, sizeof buf, items, n);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* the library takes float weights: each must fit one, and their float sum must be
     * positive and finite (1e-50 is 0 in float) */
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) {
        double w;
        if (!cli_parse_nonneg(items[i], &w)) {
            /* a positive decimal below double's range: strtod's underflow */
            errno = 0;
            double tiny = strspn(items[i], "0123456789.eE+-") == strlen(items[i])
                              ? strtod(items[i], NULL) : -1.0;
            if (errno == ERANGE && tiny >= 0.0 && tiny < 1.0)
                return cli_usage_error(cmd, "weight '%s' is too small for a float (below %g): "
                                       "give 0, or scale all the weights up", items[i], FLT_MIN);
            return cli_usage_error(cmd, "bad weight '%s' (a finite decimal number >= 0)", items[i]);
        }
        if (w > FLT_MAX)
            return cli_usage_error(cmd, "weight '%s' is too large (at most %g)", items[i], FLT_MAX);
        in[i].weight = (float)w;
        sum += in[i].weight;
    }
    if (!(sum > 0.0f))
        return cli_usage_error(cmd, "the weights sum to zero (in single precision)");
    if (!isfinite(sum))
        return cli_usage_error(cmd, "the weights' sum overflows single precision: scale them down");
    return CLI_EXIT_OK;
}

/* --range's syntax and count (checked before loading: seconds need the clip's frame time,
 * so the values are read in apply_ranges) and --feet. */
static int parse_ranges_and_feet(blend_args *o, int n)
{
    if (o->ranges) {
        int rc = split_per_input(cmd, "--range", "item", o->ranges, o->range_buf,
                                 sizeof o->range_buf, o->range_items, n);
        if (rc != CLI_EXIT_OK)
            return rc;
        for (int i = 0; i < n; ++i) {
            mb_frame_range r;
            if (strcmp(o->range_items[i], "-") != 0 && !parse_range(o->range_items[i], 0.0, &r))
                return cli_usage_error(cmd, "bad range '%s' (A:B frames or A s:B s seconds, A < B)",
                                       o->range_items[i]);
        }
    }
    if (o->feet) {
        if (strlen(o->feet) >= sizeof o->feet_buf)
            return cli_usage_error(cmd, "--feet too long");
        strcpy(o->feet_buf, o->feet);
        if (split_list(o->feet_buf, o->feet_lr, 3) != 2 || !o->feet_lr[0][0] || !o->feet_lr[1][0])
            return cli_usage_error(cmd, "--feet needs two joint names, LEFT,RIGHT");
        if (strcmp(o->feet_lr[0], o->feet_lr[1]) == 0)
            return cli_usage_error(cmd, "--feet names '%s' for both feet", o->feet_lr[0]);
    }
    return CLI_EXIT_OK;
}

/* Every input on one skeleton: --to's, else the first input's (cli_retarget_inputs). */
static int retarget_inputs(blend_args *o, input *in, int n)
{
    cli_clip *ins[MB_BLEND_MAX_LAYERS];
    for (int i = 0; i < n; ++i)
        ins[i] = &in[i].src;
    int rc = cli_retarget_inputs(cmd, ins, n, o->to, o->lenient, &o->target);
    for (int i = 0; i < n; ++i) {
        in[i].s = in[i].src.s;
        in[i].c = in[i].src.c;
    }
    return rc;
}

/* Opens every input and checks frames, skeletons, the report and the output paths. */
static int load_inputs(blend_args *o, input *in, int n)
{
    int rc;
    for (int i = 0; i < n; ++i) {
        if ((rc = cli_clip_open(cmd, in[i].path, o->lenient, &in[i].src)) != CLI_EXIT_OK)
            return rc;
        in[i].s = in[i].src.s;
        in[i].c = in[i].src.c;
        int nf = mb_clip_frame_count(in[i].c);
        if (in[i].kind == 1 && in[i].a >= nf)
            return cli_input_error(cmd, "%s has %d frames; frame %ld does not exist", in[i].path,
                                   nf, in[i].a);
        if (in[i].kind == 2) {
            if (in[i].b > nf)
                return cli_input_error(cmd, "%s has %d frames; range %ld:%ld does not fit",
                                       in[i].path, nf, in[i].a, in[i].b);
            in[i].range = (mb_frame_range){(int)in[i].a, (int)in[i].b};
            in[i].has_range = 1;
        }
    }
    if ((rc = retarget_inputs(o, in, n)) != CLI_EXIT_OK)
        return rc;
    const char *files[MB_BLEND_MAX_LAYERS + 1];
    for (int i = 0; i < n; ++i)
        files[i] = in[i].src.file;
    files[n] = o->to ? o->target.file : NULL; /* the output must not replace --to's file */
    if ((rc = cli_check_report(cmd, o->report, o->outp, files, n)) != CLI_EXIT_OK)
        return rc;
    return cli_check_output(cmd, o->outp, files, n + 1);
}

/* --range values (they override @A:B; '-' leaves the input to --cycle). */
static int apply_ranges(const blend_args *o, input *in, int n)
{
    for (int i = 0; o->ranges && i < n; ++i) {
        const char *item = o->range_items[i];
        if (strcmp(item, "-") == 0)
            continue;
        int nf = mb_clip_frame_count(in[i].c);
        double ft = mb_clip_frame_time(in[i].c);
        int pr = parse_range(item, ft, &in[i].range);
        if (pr == -2)
            return cli_input_error(cmd, "%s has %d frames; range '%s' does not fit", in[i].path,
                                   nf, item);
        if (pr <= 0)
            return cli_input_error(cmd, "range '%s' covers no frame of %s: in its frames (%g s "
                                   "each) B does not come after A", item, in[i].path, ft);
        if (in[i].range.end > nf)
            return cli_input_error(cmd, "%s has %d frames; range %d:%d does not fit", in[i].path,
                                   nf, in[i].range.start, in[i].range.end);
        in[i].has_range = 1;
    }
    return CLI_EXIT_OK;
}

/* The library's preparation of every clip input (analysis, loop kind; the feet by the
 * CLI's one rule, cli_prepare_clips). */
static int prepare_inputs(const blend_args *o, input *in, int n, mb_error *e)
{
    mb_prepare_desc pd[MB_BLEND_MAX_LAYERS];
    memset(pd, 0, sizeof pd);
    for (int i = 0; i < n; ++i) {
        if (mb_clip_frame_count(in[i].c) == 0)
            return cli_input_error(cmd, "%s has no frames: nothing to blend", in[i].path);
        if (mb_clip_frame_count(in[i].c) < 2)
            return cli_input_error(cmd, "%s has 1 frame: give it as a pose (file@0)", in[i].path);
        pd[i].skeleton = in[i].s;
        pd[i].clip = in[i].c;
        pd[i].source = in[i].path;
        pd[i].up_axis = o->up != MB_AXIS_DETECT ? o->up : in[i].src.up_axis;
        pd[i].left_foot = o->feet_lr[0];
        pd[i].right_foot = o->feet_lr[1];
        pd[i].range = in[i].has_range ? in[i].range : (mb_frame_range){0, 0};
    }
    mb_prepared_clip *p[MB_BLEND_MAX_LAYERS];
    if (cli_prepare_clips(pd, n, 0, p, e) != MB_OK) {
        cli_print_error(e);
        return CLI_EXIT_INPUT;
    }
    for (int i = 0; i < n; ++i)
        in[i].prep = p[i];
    return CLI_EXIT_OK;
}

/* The library's selection of every input's frames, with its warnings and, for cycles,
 * one line per input saying which frames. */
static int select_frames(int cyclic, input *in, int n, mb_error *e)
{
    mb_prepared_clip *p[MB_BLEND_MAX_LAYERS];
    for (int i = 0; i < n; ++i)
        p[i] = in[i].prep;
    mb_status st = mb_prepared_select_cycles(p, n, cyclic ? MB_CYCLE_AUTO : MB_CYCLE_NONE, e);
    if (st == MB_INVALID_ARG) /* a given cycle that leaves none */
        return cli_input_error(cmd, "%s %s", e->source, e->text);
    if (st != MB_OK) {
        cli_print_error(e);
        if (st == MB_MISMATCH)
            fprintf(stderr, "%s: the right foot gives no full cycle in every input either\n"
                    "%s: hint: --range A:B per input, --feet L,R, or --cycle none to stretch "
                    "whole clips\n", cmd, cmd);
        return CLI_EXIT_INPUT;
    }
    for (int i = 0; i < n; ++i) {
        const mb_prepared_info *pi = mb_prepared_clip_info(p[i]);
        for (int w = 0; w < pi->warning_count; ++w)
            fprintf(stderr, "%s: %s: %s\n", cmd, in[i].path, pi->warnings[w]);
    }
    for (int i = 0; i < n && cyclic; ++i) {
        const mb_prepared_info *pi = mb_prepared_clip_info(p[i]);
        mb_selection how = pi->selection;
        fprintf(stderr, "%s: %s: cycle frames %d:%d (%.3f s)%s%s\n", cmd, in[i].path,
                pi->range.start, pi->range.end, pi->range_seconds,
                how == MB_SELECT_WHOLE_LOOP ? ", the whole loop"
                : how == MB_SELECT_GIVEN    ? ", given"
                : how == MB_SELECT_RIGHT_FOOT ? ", right-foot touchdowns" : "",
                pi->range_clamped ? " (ending on the clip's last frame)" : "");
    }
    return CLI_EXIT_OK;
}

/* One blended pose as a one-frame clip on in[0]'s skeleton (tracking its joints with
 * position channels). */
static mb_status pose_clip(const input *in, const mb_xform *pose, mb_clip **out)
{
    int nj = mb_skeleton_joint_count(in[0].s), nt;
    const int *tracked = mb_skeleton_translation_joints(in[0].s, &nt);
    float *rot = malloc((size_t)nj * 4 * sizeof *rot), *tr = malloc(((size_t)nt * 3 + 1) * sizeof *tr);
    mb_status st = MB_NOMEM;
    if (rot && tr) {
        for (int j = 0; j < nj; ++j)
            memcpy(rot + 4 * j, pose[j].rot, 16);
        for (int t = 0; t < nt; ++t)
            memcpy(tr + 3 * t, pose[tracked[t]].pos, 12);
        mb_clip_desc cd = {0};
        cd.joint_count = nj;
        cd.frame_count = 1;
        cd.frame_time = mb_clip_frame_time(in[0].c);
        cd.rotations = rot;
        cd.translation_joints = tracked;
        cd.translation_count = nt;
        cd.translations = nt > 0 ? tr : NULL;
        st = mb_clip_create(&cd, out, NULL);
    }
    free(rot);
    free(tr);
    return st;
}

/* Pose inputs: a plain blend job, written as a one-frame clip. */
static int blend_poses(const blend_args *o, const input *in, int n, report_ctx *rctx,
                       mb_clip **result)
{
    int nj = mb_skeleton_joint_count(in[0].s);
    mb_blend_layer layers[MB_BLEND_MAX_LAYERS];
    mb_pose p[MB_BLEND_MAX_LAYERS];
    mb_xform *outp_j = rctx->scratch + (size_t)(2 * nj);
    for (int i = 0; i < n; ++i) {
        p[i].joints = calloc((size_t)nj, sizeof(mb_xform));
        p[i].count = nj;
        if (!p[i].joints || mb_clip_frame_pose(in[i].s, in[i].c, (int)in[i].a, p[i]) != MB_OK) {
            for (int k = 0; k <= i; ++k)
                free(p[k].joints);
            return cli_input_error(cmd, "cannot read frame %ld of %s", in[i].a, in[i].path);
        }
        layers[i] = (mb_blend_layer){&p[i], in[i].weight, NULL};
    }
    float *gaps = calloc((size_t)nj, sizeof *gaps), *angles = calloc((size_t)nj, sizeof *angles);
    mb_blend_diag diag = {gaps, angles, nj, 0};
    mb_blend_desc d = {0};
    d.layers = layers;
    d.layer_count = n;
    d.method = o->method;
    d.solver = o->exact ? MB_EIGEN_LAPACKE : MB_EIGEN_AUTO;
    d.out.joints = outp_j;
    d.out.count = nj;
    d.diag = &diag;
    mb_status st = gaps && angles ? mb_blend_run(&d) : MB_NOMEM;
    if (st == MB_OK && rctx->f)
        st = report_frame(rctx, 0, 0.0, layers, n, &d.out, &diag);
    if (st == MB_OK)
        st = pose_clip(in, outp_j, result);
    if (st == MB_OK && diag.low_gap_joints)
        fprintf(stderr, "%s: note: %d joint%s with an eigen-gap below %g (ill-defined "
                "reference; see --report)\n", cmd, diag.low_gap_joints,
                diag.low_gap_joints == 1 ? "" : "s", (double)MB_BLEND_GAP_THRESHOLD);
    for (int i = 0; i < n; ++i)
        free(p[i].joints);
    free(gaps);
    free(angles);
    if (st != MB_OK)
        return cli_input_error(cmd, "blend failed: %s", mb_status_str(st));
    return CLI_EXIT_OK;
}

/* Clip inputs: the library's clip blend over the prepared clips. */
static int blend_clips(const blend_args *o, const input *in, int n, report_ctx *rctx,
                       mb_clip **result, mb_error *e)
{
    mb_clip_input ci[MB_BLEND_MAX_LAYERS];
    const mb_prepared_clip *prep[MB_BLEND_MAX_LAYERS];
    memset(ci, 0, sizeof ci);
    for (int i = 0; i < n; ++i) {
        prep[i] = in[i].prep;
        ci[i].weight = in[i].weight;
    }
    mb_clip_blend_desc bd = {0};
    bd.inputs = ci;
    bd.input_count = n;
    bd.cyclic = o->cycle_auto != 0;
    bd.method = o->method;
    bd.solver = o->exact ? MB_EIGEN_LAPACKE : MB_EIGEN_AUTO;
    bd.up_axis = o->up != MB_AXIS_DETECT ? o->up : in[0].src.up_axis;
    bd.report = rctx->f ? report_frame : NULL;
    bd.report_user = rctx;
    bd.prepared = prep;
    if (mb_clip_blend(&bd, result, e) != MB_OK) {
        cli_print_error(e);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

/* The blend into *result, its report streamed to rs (opened here when asked for). */
static int run_blend(const blend_args *o, const input *in, int n, mb_file_stream *rs,
                     mb_clip **result, mb_error *e)
{
    FILE *rf = NULL;
    if (o->report) {
        if (mb_file_stream_open(rs, o->report, e) != MB_OK) {
            cli_print_error(e);
            return CLI_EXIT_INPUT;
        }
        rf = rs->f;
        report_header(rf, o->compare);
    }
    int nj = mb_skeleton_joint_count(in[0].s);
    mb_xform *scratch = calloc((size_t)(2 + n) * (size_t)nj, sizeof *scratch);
    if (!scratch)
        return cli_input_error(cmd, "out of memory");
    report_ctx rctx = {rf, in[0].s, o->compare, in, n, scratch};
    int rc = o->poses ? blend_poses(o, in, n, &rctx, result) : blend_clips(o, in, n, &rctx, result, e);
    free(scratch);
    return rc;
}

/* Writes the output, then puts the report into place. */
static int write_result(const blend_args *o, const input *in, mb_file_stream *rs,
                        const mb_clip *result, mb_error *e)
{
    /* The report is complete; it goes into place only once the output is written. */
    if (rs->f && (fflush(rs->f) != 0 || ferror(rs->f)))
        return cli_input_error(cmd, "cannot write report '%s': %s", o->report, strerror(errno));
    int rc = CLI_EXIT_OK;
    const mb_bvh_write_desc wd = cli_bvh_desc(&in[0].src);
    if (o->glb) {
        /* the axis the blend used (poses were not analysed: 0, found by the writer) */
        mb_axis up = o->up != MB_AXIS_DETECT ? o->up
                 : o->poses ? MB_AXIS_DETECT : mb_prepared_clip_info(in[0].prep)->motion.up_axis;
        /* a blend of cycles is one period: glTF gets the key that closes the loop */
        rc = cli_write_glb_loop(cmd, o->outp, &in[0].src, result, "blend", up, o->scale,
                                o->cycle_auto != 0 && !o->poses);
    } else if (mb_bvh_write_file(o->outp, in[0].s, result, &wd, e) != MB_OK) {
        cli_print_error(e);
        rc = CLI_EXIT_INPUT;
    }
    if (rc == CLI_EXIT_OK && rs->f && mb_file_stream_commit(rs, e) != MB_OK) {
        cli_print_error(e);
        return cli_input_error(cmd, "wrote %s, but not the report", o->outp);
    }
    return rc;
}

int cmd_blend(int argc, char **argv)
{
    blend_args o;
    memset(&o, 0, sizeof o);
    o.cycle_auto = -1;
    o.method = MB_BLEND_LOGEXP;
    input *in = calloc(MB_BLEND_MAX_LAYERS, sizeof *in);
    if (!in)
        return cli_input_error(cmd, "out of memory");
    int n = 0;
    /* --report streams to a temporary file that goes into place only once the output is
     * written, so a failure leaves neither; every exit discards it unless committed */
    mb_file_stream rs = {0};
    mb_error e;
    memset(&e, 0, sizeof e);
    mb_clip *result = NULL;
    int rc = parse_args(argc, argv, &o, in, &n);
    if (rc == -1) /* --help */
        rc = CLI_EXIT_OK;
    else if (rc == CLI_EXIT_OK && (rc = check_options(&o, in, n)) == CLI_EXIT_OK &&
             (rc = parse_weights(&o, in, n)) == CLI_EXIT_OK &&
             (rc = parse_ranges_and_feet(&o, n)) == CLI_EXIT_OK &&
             (rc = load_inputs(&o, in, n)) == CLI_EXIT_OK) {
        if (!o.poses && (rc = apply_ranges(&o, in, n)) == CLI_EXIT_OK &&
            (rc = prepare_inputs(&o, in, n, &e)) == CLI_EXIT_OK)
            rc = select_frames(o.cycle_auto != 0, in, n, &e);
        if (rc == CLI_EXIT_OK)
            rc = run_blend(&o, in, n, &rs, &result, &e);
        if (rc == CLI_EXIT_OK)
            rc = write_result(&o, in, &rs, result, &e);
        if (rc == CLI_EXIT_OK)
            fprintf(stderr, "%s: wrote %s: %d frame%s, %.3f s\n", cmd, o.outp,
                    mb_clip_frame_count(result), mb_clip_frame_count(result) == 1 ? "" : "s",
                    mb_clip_duration(result));
    }
    mb_clip_destroy(result);
    mb_file_stream_discard(&rs);
    free_inputs(in, n);
    cli_clip_close(&o.target); /* after the inputs, which borrowed its skeleton */
    return rc;
}
