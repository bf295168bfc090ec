/* mblend transition A.bvh B.bvh --at SECONDS|auto --duration SECONDS -o OUT.bvh:
 * one continuous clip from A to B (mb_transition_build), with an optional CSV report. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_load.h"
#include "cli_output.h"
#include "cli_pose.h"

void cmd_transition_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend transition A B --at SECONDS|auto --duration SECONDS -o OUT.bvh|OUT.glb [options]\n"
            "\n"
            "Write one continuous clip: A up to the transition, the transition, then the rest\n"
            "of B. B is rotated about the up axis and moved so its root continues A's path and\n"
            "heading (no jump, no turn on the spot), and resampled to A's frame time. The\n"
            "output starts at A's first motion frame (the T-pose frame 0 of cgspeed CMU files\n"
            "is skipped). Offsets come from A. B, when its skeleton (joint names and\n"
            "parents) differs from A's, is first retargeted onto A's; with --to FILE, A and B\n"
            "are retargeted onto FILE's skeleton when theirs differs (mblend retarget: joint\n"
            "roles, rest poses aligned, root scaled).\n"
            "A and B are BVH files or animations of glTF/FBX/... files (file.glb#Walk;\n"
            "default: the first animation).\n"
            "\n"
            "options:\n"
            "  -o, --output OUT       the file to write (temporary file + rename): OUT.bvh, or\n"
            "                         OUT.glb (skeleton, A's mesh or a generated capsule skin,\n"
            "                         and the clip as an animation)\n"
            "  --scale S              .glb only: scale the scene by S (e.g. 0.01 for BVH\n"
            "                         clips in cm, as glTF viewers expect metres); default 1\n"
            "  --at SECONDS|auto      time in A (file time, frame 0 = 0 s) of the last frame\n"
            "                         before the transition. auto: the best transition point\n"
            "                         (the frame pair whose windows of joint positions match\n"
            "                         best after a 2D alignment, Kovar & Gleicher 2002),\n"
            "                         searched in --search (default: from a third into A\n"
            "                         to the last frame that leaves room for the transition)\n"
            "  --duration SECONDS     length of the transition (> 0)\n"
            "  --b-start WHERE        where B starts: auto (default): the best match for the\n"
            "                         chosen A frame; phase: at A's gait phase (left- or\n"
            "                         right-foot touchdown cycles, nearest the match;\n"
            "                         implies --sync);\n"
            "                         or SECONDS into B (file time)\n"
            "  --mode M               crossfade (default): log/exp blend with a weight ramp;\n"
            "                         inertialize: B plays at once and the offset from A's\n"
            "                         pose decays to zero within the duration\n"
            "  --curve C              smoothstep (default) or linear weight ramp\n"
            "  --sync                 phase sync: during the transition both clips advance in\n"
            "                         normalised time of their gait cycles, the cycle\n"
            "                         duration interpolated with the weights (needs a gait\n"
            "                         cycle in each clip: left- or right-foot touchdowns;\n"
            "                         feet by name, else by their roles foot_l, foot_r)\n"
            "  --search FROM:TO       seconds of A searched by --at auto\n"
            "  --window SECONDS       compared window for the search (default: the duration,\n"
            "                         at least 0.1 s)\n"
            "  --report FILE          CSV per output frame: weights, clip times, root position\n"
            "                         and speed, foot heights and horizontal speeds, then\n"
            "                         '# summary' lines with the quality metrics (root step,\n"
            "                         angular speed and foot skate ratios against the inputs)\n"
            "  --up x|y|z             the up axis (default: detected for BVH, y for glTF/FBX)\n"
            "  --to FILE              retarget A and B onto FILE's skeleton (a BVH file or a\n"
            "                         glTF/FBX character; may be A or B; default: A's)\n"
            "  --lenient              accept Frames lines that disagree with the data\n"
            "  -h, --help             show this help\n"
            "\n"
            "example: mblend transition run.bvh walk.bvh --at auto --duration 0.4 --sync -o run2walk.bvh\n");
}

enum {
    OPT_AT = 1,
    OPT_DURATION,
    OPT_BSTART,
    OPT_MODE,
    OPT_CURVE,
    OPT_SYNC,
    OPT_SEARCH,
    OPT_WINDOW,
    OPT_TO
};



/* Per-frame data collected during the build. */
typedef struct frame_log {
    float *weight_b, *offset;
    double *time_a, *time_b;
    int n, cap;
} frame_log;

static mb_status log_frame(void *user, const mb_transition_frame *f)
{
    frame_log *l = user;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 512;
        float *w = realloc(l->weight_b, (size_t)cap * sizeof *w);
        if (!w)
            return MB_NOMEM;
        l->weight_b = w;
        float *o = realloc(l->offset, (size_t)cap * sizeof *o);
        if (!o)
            return MB_NOMEM;
        l->offset = o;
        double *ta = realloc(l->time_a, (size_t)cap * sizeof *ta);
        if (!ta)
            return MB_NOMEM;
        l->time_a = ta;
        double *tb = realloc(l->time_b, (size_t)cap * sizeof *tb);
        if (!tb)
            return MB_NOMEM;
        l->time_b = tb;
        l->cap = cap;
    }
    l->weight_b[l->n] = f->weight_b;
    l->offset[l->n] = f->offset_angle;
    l->time_a[l->n] = f->time_a;
    l->time_b[l->n] = f->time_b;
    ++l->n;
    return MB_OK;
}

static int write_report(FILE *f, const mb_skeleton *s, const mb_clip *out, const mb_motion_info *info,
                        const frame_log *lg, const mb_transition_result *res, const mb_transition_quality *q,
                        int qok, int ka, int kb, double cost)
{
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(out), up = mb_axis_index(info->up_axis);
    double ft = mb_clip_frame_time(out);
    mb_xform *pose = malloc((size_t)nj * sizeof *pose);
    float(*w)[16] = malloc((size_t)nj * sizeof *w);
    float *prev = malloc(9 * sizeof *prev);
    if (!pose || !w || !prev) {
        free(pose);
        free(w);
        free(prev);
        return 0;
    }
    int js[3] = {info->root, info->left_foot, info->right_foot};
    fprintf(f, "frame,time,weight_a,weight_b,time_a,time_b,phase_part,root_x,root_y,root_z,root_speed,"
               "left_foot_height,right_foot_height,left_foot_hspeed,right_foot_hspeed,offset_deg\n");
    for (int k = 0; k < nf; ++k) {
        mb_pose p = {pose, nj};
        if (mb_clip_frame_pose(s, out, k, p) != MB_OK || mb_fk(s, &p, w, nj) != MB_OK)
            break;
        float cur[9];
        for (int i = 0; i < 3; ++i)
            for (int c = 0; c < 3; ++c)
                cur[3 * i + c] = js[i] >= 0 ? w[js[i]][12 + c] : 0.0f;
        double sp[3] = {0, 0, 0};
        if (k > 0)
            for (int i = 0; i < 3; ++i) {
                double s2 = 0.0;
                for (int c = 0; c < 3; ++c)
                    if (i == 0 || c != up)
                        s2 += (double)(cur[3 * i + c] - prev[3 * i + c]) * (cur[3 * i + c] - prev[3 * i + c]);
                sp[i] = sqrt(s2) / ft;
            }
        const char *part = k <= res->transition_start ? "A" : (k < res->transition_end ? "transition" : "B");
        double wb = k < lg->n ? lg->weight_b[k] : 1.0;
        fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", k, k * ft,
                1.0 - wb, wb, k < lg->n ? lg->time_a[k] : -1.0, k < lg->n ? lg->time_b[k] : -1.0, part, cur[0],
                cur[1], cur[2], sp[0], cur[3 + up], cur[6 + up], sp[1], sp[2],
                k < lg->n ? lg->offset[k] * 57.29577951308232 : 0.0);
        memcpy(prev, cur, sizeof cur);
    }
    char cost_text[32] = ""; /* empty: both points were given, no match ran */
    if (cost >= 0.0)
        snprintf(cost_text, sizeof cost_text, "%.6g", cost);
    fprintf(f, "# summary,a_frame,%d,b_frame,%d,match_cost,%s,b_start_s,%.6f,transition_frames,%d:%d\n", ka, kb,
            cost_text, res->b_start, res->transition_start, res->transition_end);
    if (qok) {
        fprintf(f, "# summary,root_step_ratio,%.4f,root_step_out,%.6g,root_step_in,%.6g\n", q->root_step_ratio,
                q->root_step_out, q->root_step_in);
        fprintf(f, "# summary,angular_speed_ratio,%.4f,joint,", q->angular_ratio);
        cli_csv_field(f, q->angular_joint >= 0 ? mb_skeleton_name(s, q->angular_joint) : "-");
        fprintf(f, ",out_rad_s,%.6g,in_rad_s,%.6g\n", q->angular_out, q->angular_in);
        fprintf(f, "# summary,foot_skate_ratio,%.4f,out,%.6g,in,%.6g,contact_frames_out,%d,contact_frames_in,%d\n",
                q->skate_ratio, q->skate_out, q->skate_in, q->skate_frames_out, q->skate_frames_in);
    }
    free(pose);
    free(w);
    free(prev);
    return !ferror(f);
}

/* The command line, parsed, and what the command works on. */
typedef struct trans_args {
    const char *outp, *report, *paths[2];
    const char *to; /* --to: the skeleton A and B are retargeted onto */
    int curve_given, npaths, at_auto, b_auto, b_phase, sync, lenient, have_search;
    mb_axis up; /* --up; MB_AXIS_DETECT: A's */
    double at, duration, b_start, s_from, s_to, window;
    float scale; /* 0: the writer's default, 1 */
    mb_transition_mode mode;
    mb_fade_curve curve;
} trans_args;

typedef struct trans_inputs {
    cli_clip src[2];
    cli_clip target; /* --to's file: A and B borrow its skeleton */
    const mb_skeleton *sk[2];
    const mb_clip *cl[2];
    mb_motion_info info[2];
    double fta, ftb;
    int nfa, nfb;
} trans_inputs;

static const char *const cmd = "mblend transition";

/* One option's value into o; CLI_EXIT_OK or a usage error (printed). */
static int take_option(int id, const char *arg, trans_args *o)
{
    switch (id) {
    case CLI_OPT_OUTPUT: return cli_take_output(cmd, arg, &o->outp);
    case CLI_OPT_REPORT: o->report = arg; break;
    case OPT_SYNC: o->sync = 1; break;
    case OPT_TO: o->to = arg; break;
    case CLI_OPT_LENIENT: o->lenient = 1; break;
    case CLI_OPT_SCALE: return cli_take_scale(cmd, arg, &o->scale);
    case OPT_AT:
        if (strcmp(arg, "auto") == 0)
            o->at_auto = 1;
        else if (cli_parse_nonneg(arg, &o->at))
            o->at_auto = 0;
        else
            return cli_usage_error(cmd, "bad --at '%s' (seconds >= 0 or auto)", arg);
        break;
    case OPT_BSTART:
        o->b_phase = strcmp(arg, "phase") == 0;
        if (strcmp(arg, "auto") == 0 || o->b_phase)
            o->b_auto = 1;
        else if (cli_parse_nonneg(arg, &o->b_start))
            o->b_auto = 0;
        else
            return cli_usage_error(cmd, "bad --b-start '%s' (auto, phase or seconds >= 0)", arg);
        break;
    case OPT_DURATION:
        if (!cli_parse_nonneg(arg, &o->duration) || !(o->duration > 0.0))
            return cli_usage_error(cmd, "bad --duration '%s' (seconds > 0)", arg);
        break;
    case OPT_WINDOW:
        if (!cli_parse_nonneg(arg, &o->window) || !(o->window > 0.0))
            return cli_usage_error(cmd, "bad --window '%s' (seconds > 0)", arg);
        break;
    case OPT_SEARCH:
        if (!cli_parse_span(arg, &o->s_from, &o->s_to) || !(o->s_to > o->s_from))
            return cli_usage_error(cmd, "bad --search '%s' (FROM:TO in seconds, FROM < TO)", arg);
        o->have_search = 1;
        break;
    case OPT_MODE: {
        static const char *const modes[] = {"crossfade", "inertialize", NULL};
        int which = 0, rc = cli_take_choice(cmd, "--mode", arg, modes, &which);
        o->mode = which == 0 ? MB_TRANSITION_CROSSFADE : MB_TRANSITION_INERTIALIZE;
        return rc;
    }
    case OPT_CURVE: {
        static const char *const curves[] = {"smoothstep", "linear", NULL};
        int which = 0, rc = cli_take_choice(cmd, "--curve", arg, curves, &which);
        o->curve_given = 1;
        o->curve = which == 0 ? MB_CURVE_SMOOTHSTEP : MB_CURVE_LINEAR;
        return rc;
    }
    case CLI_OPT_UP: return cli_take_up(cmd, arg, &o->up);
    case CLI_OPERAND:
        if (o->npaths == 2)
            return cli_usage_error(cmd, "too many inputs: give A.bvh and B.bvh");
        o->paths[o->npaths++] = arg;
        break;
    default: break;
    }
    return CLI_EXIT_OK;
}

/* argv into o; CLI_EXIT_OK, CLI_EXIT_USAGE, or -1 after --help. */
static int parse_args(int argc, char **argv, trans_args *o)
{
    static const cli_opt opts[] = {
        CLI_OPTION_OUTPUT,             {"at", 0, 1, OPT_AT},         {"duration", 0, 1, OPT_DURATION},
        {"b-start", 0, 1, OPT_BSTART}, {"mode", 0, 1, OPT_MODE},     {"curve", 0, 1, OPT_CURVE},
        {"sync", 0, 0, OPT_SYNC},      {"search", 0, 1, OPT_SEARCH}, {"window", 0, 1, OPT_WINDOW},
        {"to", 0, 1, OPT_TO},
        CLI_OPTION_REPORT,             CLI_OPTION_UP,                CLI_OPTION_LENIENT,
        CLI_OPTION_SCALE,              {NULL, 0, 0, 0}};
    cli_args a;
    cli_args_init(&a, cmd, argc, argv);
    int id, rc;
    while ((id = cli_next(&a, opts)) != CLI_END) {
        if (id == CLI_BAD)
            return CLI_EXIT_USAGE;
        if (id == CLI_OPT_HELP) {
            cmd_transition_usage(stdout);
            return -1;
        }
        if ((rc = take_option(id, a.arg, o)) != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}

/* Options that do not go together, before anything is read. */
static int check_options(const trans_args *o)
{
    if (o->npaths != 2)
        return cli_usage_error(cmd, "need two inputs, A.bvh and B.bvh");
    static const char *const exts[] = {".bvh", ".glb", NULL};
    int glb, rc = cli_take_output_kind(cmd, o->outp, exts, &glb);
    if (rc != CLI_EXIT_OK || (rc = cli_check_scale(cmd, o->scale, glb == 1)) != CLI_EXIT_OK)
        return rc;
    if (o->at_auto < 0)
        return cli_usage_error(cmd, "missing --at SECONDS|auto");
    if (o->duration < 0.0)
        return cli_usage_error(cmd, "missing --duration SECONDS");
    if (o->have_search && !o->at_auto)
        return cli_usage_error(cmd, "--search limits where --at auto looks: it does nothing with "
                                       "--at SECONDS");
    if (o->window > 0.0 && !o->at_auto && !o->b_auto)
        return cli_usage_error(cmd, "--window is the pose-matching window: it does nothing when "
                                       "--at and --b-start are both given in seconds");
    if (o->curve_given && o->mode == MB_TRANSITION_INERTIALIZE)
        return cli_usage_error(cmd, "--curve shapes a cross-fade; --mode inertialize has its own decay");
    return CLI_EXIT_OK;
}

/* Opens A and B, checks them and the output paths, and analyses both (B on A's up axis). */
static int load_pair(const trans_args *o, trans_inputs *t, mb_error *e)
{
    int rc;
    for (int i = 0; i < 2; ++i) {
        if ((rc = cli_clip_open(cmd, o->paths[i], o->lenient, &t->src[i])) != CLI_EXIT_OK)
            return rc;
        t->sk[i] = t->src[i].s;
        t->cl[i] = t->src[i].c;
    }
    /* one skeleton: --to's, else A's (cli_retarget_inputs) */
    cli_clip *ins[2] = {&t->src[0], &t->src[1]};
    if ((rc = cli_retarget_inputs(cmd, ins, 2, o->to, o->lenient, &t->target)) != CLI_EXIT_OK)
        return rc;
    for (int i = 0; i < 2; ++i) {
        t->sk[i] = t->src[i].s;
        t->cl[i] = t->src[i].c;
    }
    /* the output must not replace an input or --to's file */
    const char *files[3] = {t->src[0].file, t->src[1].file, o->to ? t->target.file : NULL};
    if ((rc = cli_check_report(cmd, o->report, o->outp, files, 2)) != CLI_EXIT_OK ||
        (rc = cli_check_output(cmd, o->outp, files, 3)) != CLI_EXIT_OK)
        return rc;
    for (int i = 0; i < 2; ++i)
        if (mb_clip_frame_count(t->cl[i]) < 2)
            return cli_input_error(cmd, "%s has fewer than 2 frames", o->paths[i]);
    if ((rc = cli_prepare_pair(o->paths, t->src, o->up, t->info, e)) != CLI_EXIT_OK)
        return rc;
    t->fta = mb_clip_frame_time(t->cl[0]);
    t->ftb = mb_clip_frame_time(t->cl[1]);
    t->nfa = mb_clip_frame_count(t->cl[0]);
    t->nfb = mb_clip_frame_count(t->cl[1]);
    return CLI_EXIT_OK;
}

/* Times given in seconds must lie in their clips (checked here, before they become frame
 * numbers), and each clip must hold the transition; the library checks the same with
 * the sync rates, these messages name the option. */
static int check_times(const trans_args *o, const trans_inputs *t)
{
    double fta = t->fta, ftb = t->ftb, duration = o->duration, at = o->at, b_start = o->b_start;
    double end_a = (t->nfa - 1) * fta, end_b = (t->nfb - 1) * ftb;
    double len_b = end_b - t->info[1].first_frame * ftb, dur_tol = 1e-9 + 1e-6 * duration;
    double start_a = t->info[0].first_frame * fta, start_b = t->info[1].first_frame * ftb;
    if (!o->at_auto && (at > end_a + 0.5 * fta || at < start_a - 0.5 * fta))
        return cli_input_error(cmd, "%s: --at %g s is outside the motion (%.4g s to %.4g s%s)",
                               o->paths[0], at, start_a, end_a,
                               start_a > 0.0 ? "; frame 0 is a T-pose" : "");
    /* what A has left after --at, taken at its nearest frame */
    double left_a = end_a - floor(at / fta + 0.5) * fta;
    if (!o->at_auto && duration > left_a + dur_tol)
        return cli_input_error(cmd, "%s ends %.3g s after --at %g s; the %.3g s transition needs "
                               "it to go on", o->paths[0], left_a, at, duration);
    if (!o->b_auto && (b_start > end_b + 0.5 * ftb || b_start < start_b - 0.5 * ftb))
        return cli_input_error(cmd, "%s: --b-start %g s is outside the motion (%.4g s to %.4g s%s)",
                               o->paths[1], b_start, start_b, end_b,
                               start_b > 0.0 ? "; frame 0 is a T-pose" : "");
    if (len_b + dur_tol < duration)
        return cli_input_error(cmd, "%s has %.3g s of motion: too short for a %.3g s transition",
                               o->paths[1], len_b, duration);
    return CLI_EXIT_OK;
}

/* The transition points: given, or found by pose matching (the library's rule; *cost the
 * match cost, -1 when no match ran). */
static int find_points(const trans_args *o, const trans_inputs *t, int *ka, int *kb,
                       double *b_start, double *cost, mb_error *e)
{
    mb_transition_plan_desc pd = {0};
    pd.prepared_a = t->src[0].prep; /* clips, analyses and names */
    pd.prepared_b = t->src[1].prep;
    pd.at_auto = o->at_auto;
    pd.at = o->at;
    pd.b_auto = o->b_auto;
    pd.b_start = o->b_start;
    pd.duration = o->duration;
    pd.sync = o->sync || o->b_phase;
    if (o->have_search) {
        pd.search_from = o->s_from;
        pd.search_to = o->s_to;
    }
    pd.window = o->window;
    mb_transition_plan plan;
    if (mb_transition_plan_find(&pd, &plan, e) != MB_OK) {
        cli_print_error(e);
        return CLI_EXIT_INPUT;
    }
    *ka = plan.a_frame;
    *kb = plan.b_frame;
    *b_start = plan.b_start;
    *cost = plan.cost;
    return CLI_EXIT_OK;
}

/* The library's transition from A's frame ka to B at b_start, logged frame by frame. */
static int build_transition(const trans_args *o, const trans_inputs *t, int ka, double b_start,
                            frame_log *lg, mb_clip **result, mb_transition_result *res, mb_error *e)
{
    mb_transition_build_desc bd = {0};
    bd.skeleton = t->sk[0];
    bd.prepared_a = t->src[0].prep; /* clips, analyses and names */
    bd.prepared_b = t->src[1].prep;
    bd.at = ka * t->fta;
    bd.b_start = b_start;
    bd.transition.duration = (float)o->duration;
    bd.transition.mode = o->mode;
    bd.transition.curve = o->curve;
    bd.transition.sync = o->sync || o->b_phase;
    bd.transition.sync_keep_start = !o->b_phase;
    bd.up_axis = t->info[0].up_axis;
    bd.report = log_frame;
    bd.report_user = lg;
    if (mb_transition_build(&bd, result, res, e) != MB_OK) {
        cli_print_error(e);
        if (e->code == MB_MISMATCH && (o->sync || o->b_phase))
            fprintf(stderr, "%s: hint: --sync and --b-start phase need foot touchdowns in both "
                    "clips (in-place clips that do not loop have none): leave them out\n", cmd);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

/* The output file, then the report into place (complete before the output is written). */
static int write_outputs(const trans_args *o, const trans_inputs *t, const mb_clip *result,
                         mb_file_stream *rs, mb_error *e)
{
    int rc;
    const mb_bvh_write_desc wd = cli_bvh_desc(&t->src[0]);
    if (cli_ends_with_ci(o->outp, ".glb")) {
        if ((rc = cli_write_glb(cmd, o->outp, &t->src[0], result, "transition",
                                t->info[0].up_axis, o->scale)) != CLI_EXIT_OK)
            return rc;
    } else if (mb_bvh_write_file(o->outp, t->sk[0], result, &wd, e) != MB_OK) {
        cli_print_error(e);
        return CLI_EXIT_INPUT;
    }
    if (rs->f && mb_file_stream_commit(rs, e) != MB_OK) {
        cli_print_error(e);
        return cli_input_error(cmd, "wrote %s, but not the report", o->outp);
    }
    return CLI_EXIT_OK;
}

/* Builds, measures, reports, writes and summarises the transition. */
static int run_transition(const trans_args *o, const trans_inputs *t, mb_error *e)
{
    int ka = 0, kb = 0, rc;
    double b_start = 0.0, cost = -1.0;
    if ((rc = find_points(o, t, &ka, &kb, &b_start, &cost, e)) != CLI_EXIT_OK)
        return rc;
    /* --report: complete before the output is written, into place after it (so a failure
     * leaves neither changed); every exit discards it unless committed */
    mb_file_stream rs = {0};
    frame_log lg;
    memset(&lg, 0, sizeof lg);
    mb_clip *result = NULL;
    mb_transition_result res;
    if (o->report && mb_file_stream_open(&rs, o->report, e) != MB_OK) {
        cli_print_error(e);
        rc = CLI_EXIT_INPUT;
    } else {
        rc = build_transition(o, t, ka, b_start, &lg, &result, &res, e);
    }
    mb_transition_quality q;
    int qok = 0;
    if (rc == CLI_EXIT_OK) {
        mb_transition_measure_desc qd = {0};
        qd.skeleton = t->sk[0];
        qd.out = result;
        qd.prepared_a = t->src[0].prep;
        qd.prepared_b = t->src[1].prep;
        qd.result = &res;
        qd.at = ka * t->fta;
        qd.duration = o->duration;
        qok = mb_transition_measure(&qd, &q, NULL) == MB_OK;
    }
    if (rc == CLI_EXIT_OK && rs.f) {
        int ok = write_report(rs.f, t->sk[0], result, &t->info[0], &lg, &res, &q, qok, ka,
                              (int)floor(res.b_start / t->ftb + 0.5), cost);
        if (!ok || fflush(rs.f) != 0 || ferror(rs.f))
            rc = cli_input_error(cmd, "cannot write report '%s': %s", o->report, strerror(errno));
    }
    if (rc == CLI_EXIT_OK)
        rc = write_outputs(o, t, result, &rs, e);
    if (rc == CLI_EXIT_OK) {
        char cost_text[48] = "";
        if (cost >= 0.0) /* a match ran */
            snprintf(cost_text, sizeof cost_text, ", match cost %.4g", cost);
        fprintf(stderr, "%s: A frame %d (%.3f s) -> B %.3f s (frame %d)%s%s; %d frames, transition %d:%d\n",
                cmd, ka, ka * t->fta, res.b_start, (int)floor(res.b_start / t->ftb + 0.5),
                o->sync || o->b_phase ? " in phase" : "", cost_text, res.frames,
                res.transition_start, res.transition_end);
        if (qok)
            fprintf(stderr, "%s: quality: root step ratio %.3f, angular speed ratio %.3f (%s), foot "
                    "skate ratio %.3f\n", cmd, q.root_step_ratio, q.angular_ratio,
                    q.angular_joint >= 0 ? mb_skeleton_name(t->sk[0], q.angular_joint) : "-",
                    q.skate_ratio);
    }
    mb_file_stream_discard(&rs);
    free(lg.weight_b);
    free(lg.offset);
    free(lg.time_a);
    free(lg.time_b);
    mb_clip_destroy(result);
    return rc;
}

int cmd_transition(int argc, char **argv)
{
    trans_args o;
    memset(&o, 0, sizeof o);
    o.at_auto = -1;
    o.b_auto = 1;
    o.duration = -1.0;
    o.mode = MB_TRANSITION_CROSSFADE;
    o.curve = MB_CURVE_SMOOTHSTEP;
    trans_inputs t;
    memset(&t, 0, sizeof t);
    mb_error e;
    memset(&e, 0, sizeof e);
    int rc = parse_args(argc, argv, &o);
    if (rc == -1) /* --help */
        rc = CLI_EXIT_OK;
    else if (rc == CLI_EXIT_OK && (rc = check_options(&o)) == CLI_EXIT_OK &&
             (rc = load_pair(&o, &t, &e)) == CLI_EXIT_OK && (rc = check_times(&o, &t)) == CLI_EXIT_OK)
        rc = run_transition(&o, &t, &e);
    cli_clip_close(&t.src[1]); /* B first: it may borrow A's skeleton (retargeted onto it) */
    cli_clip_close(&t.src[0]);
    cli_clip_close(&t.target); /* after A and B, which borrowed its skeleton */
    return rc;
}
