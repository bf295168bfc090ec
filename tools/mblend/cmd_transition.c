/* mblend transition A.bvh B.bvh --at SECONDS|auto --duration SECONDS -o OUT.bvh:
 * one continuous clip from A to B (mb_transition_build), with an optional CSV report. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"

void mb_cmd_transition_usage(FILE *out)
{
    fprintf(out,
            "usage: mblend transition A B --at SECONDS|auto --duration SECONDS -o OUT.bvh|OUT.glb [options]\n"
            "\n"
            "Write one continuous clip: A up to the transition, the transition, then the rest\n"
            "of B. B is rotated about the up axis and moved so its root continues A's path and\n"
            "heading (no jump, no turn on the spot), and resampled to A's frame time. The\n"
            "output starts at A's first motion frame (the T-pose frame 0 of cgspeed CMU files\n"
            "is skipped). A and B must share joint names and parents; offsets come from A.\n"
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
            "                         cycle in each clip: left- or right-foot touchdowns)\n"
            "  --search FROM:TO       seconds of A searched by --at auto\n"
            "  --window SECONDS       compared window for the search (default: the duration,\n"
            "                         at least 0.1 s)\n"
            "  --report FILE          CSV per output frame: weights, clip times, root position\n"
            "                         and speed, foot heights and horizontal speeds, then\n"
            "                         '# summary' lines with the quality metrics (root step,\n"
            "                         angular speed and foot skate ratios against the inputs)\n"
            "  --up x|y|z             the up axis (default: detected for BVH, y for glTF/FBX)\n"
            "  --lenient              accept Frames lines that disagree with the data\n"
            "  -h, --help             show this help\n"
            "\n"
            "example: mblend transition run.bvh walk.bvh --at auto --duration 0.4 --sync -o run2walk.bvh\n");
}

enum {
    OPT_OUTPUT = 1,
    OPT_AT,
    OPT_DURATION,
    OPT_BSTART,
    OPT_MODE,
    OPT_CURVE,
    OPT_SYNC,
    OPT_SEARCH,
    OPT_WINDOW,
    OPT_REPORT,
    OPT_UP,
    OPT_LENIENT,
    OPT_SCALE
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
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(out), up = info->up_axis;
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
        mb_cli_csv_field(f, q->angular_joint >= 0 ? mb_skeleton_name(s, q->angular_joint) : "-");
        fprintf(f, ",out_rad_s,%.6g,in_rad_s,%.6g\n", q->angular_out, q->angular_in);
        fprintf(f, "# summary,foot_skate_ratio,%.4f,out,%.6g,in,%.6g,contact_frames_out,%d,contact_frames_in,%d\n",
                q->skate_ratio, q->skate_out, q->skate_in, q->skate_frames_out, q->skate_frames_in);
    }
    free(pose);
    free(w);
    free(prev);
    return !ferror(f);
}

int mb_cmd_transition(int argc, char **argv)
{
    static const mb_cli_opt opts[] = {
        {"output", 'o', 1, OPT_OUTPUT}, {"at", 0, 1, OPT_AT},         {"duration", 0, 1, OPT_DURATION},
        {"b-start", 0, 1, OPT_BSTART},  {"mode", 0, 1, OPT_MODE},     {"curve", 0, 1, OPT_CURVE},
        {"sync", 0, 0, OPT_SYNC},       {"search", 0, 1, OPT_SEARCH}, {"window", 0, 1, OPT_WINDOW},
        {"report", 0, 1, OPT_REPORT},   {"up", 0, 1, OPT_UP},         {"lenient", 0, 0, OPT_LENIENT},
        {"scale", 0, 1, OPT_SCALE},     {NULL, 0, 0, 0}};
    const char *cmd = "mblend transition";
    mb_cli_args a;
    mb_cli_args_init(&a, cmd, argc, argv);
    const char *outp = NULL, *report = NULL, *paths[2] = {NULL, NULL};
    int curve_given = 0, npaths = 0, at_auto = -1, b_auto = 1, b_phase = 0, sync = 0, up = 0, lenient = 0, have_search = 0, id, rc = MB_EXIT_OK;
    double at = 0.0, duration = -1.0, b_start = 0.0, s_from = 0.0, s_to = 0.0, window = 0.0;
    float scale = 0.0f; /* 0: the writer's default, 1 */
    mb_transition_mode mode = MB_TRANSITION_CROSSFADE;
    mb_fade_curve curve = MB_CURVE_SMOOTHSTEP;
    mb_cli_clip src[2];
    memset(src, 0, sizeof src);
    const mb_skeleton *sk[2] = {NULL, NULL};
    const mb_clip *cl[2] = {NULL, NULL};
    mb_clip *result = NULL;
    /* --report: complete before the output is written, into place after it (so a failure
     * leaves neither changed); every exit discards it unless committed */
    mb_file_stream rs = {0};
    frame_log lg;
    memset(&lg, 0, sizeof lg);
#define USAGE(...) do { rc = mb_cli_usage_error(cmd, __VA_ARGS__); goto out; } while (0)
#define INPUT_ERR(...) do { rc = mb_cli_input_error(cmd, __VA_ARGS__); goto out; } while (0)
    while ((id = mb_cli_next(&a, opts)) != MB_CLI_END) {
        switch (id) {
        case MB_CLI_BAD: rc = MB_EXIT_USAGE; goto out;
        case MB_OPT_HELP: mb_cmd_transition_usage(stdout); goto out;
        case OPT_OUTPUT: outp = a.arg; break;
        case OPT_REPORT: report = a.arg; break;
        case OPT_SYNC: sync = 1; break;
        case OPT_LENIENT: lenient = 1; break;
        case OPT_SCALE:
            if (!mb_cli_parse_scale(a.arg, &scale))
                USAGE("--scale needs a number from 1e-6 to 1e6, got '%s'", a.arg);
            break;
        case OPT_AT:
            if (strcmp(a.arg, "auto") == 0)
                at_auto = 1;
            else if (mb_cli_parse_nonneg(a.arg, &at))
                at_auto = 0;
            else
                USAGE("bad --at '%s' (seconds >= 0 or auto)", a.arg);
            break;
        case OPT_BSTART:
            b_phase = strcmp(a.arg, "phase") == 0;
            if (strcmp(a.arg, "auto") == 0 || b_phase)
                b_auto = 1;
            else if (mb_cli_parse_nonneg(a.arg, &b_start))
                b_auto = 0;
            else
                USAGE("bad --b-start '%s' (auto, phase or seconds >= 0)", a.arg);
            break;
        case OPT_DURATION:
            if (!mb_cli_parse_nonneg(a.arg, &duration) || !(duration > 0.0))
                USAGE("bad --duration '%s' (seconds > 0)", a.arg);
            break;
        case OPT_WINDOW:
            if (!mb_cli_parse_nonneg(a.arg, &window) || !(window > 0.0))
                USAGE("bad --window '%s' (seconds > 0)", a.arg);
            break;
        case OPT_SEARCH:
            if (!mb_cli_parse_span(a.arg, &s_from, &s_to) || !(s_to > s_from))
                USAGE("bad --search '%s' (FROM:TO in seconds, FROM < TO)", a.arg);
            have_search = 1;
            break;
        case OPT_MODE:
            if (strcmp(a.arg, "crossfade") == 0)
                mode = MB_TRANSITION_CROSSFADE;
            else if (strcmp(a.arg, "inertialize") == 0)
                mode = MB_TRANSITION_INERTIALIZE;
            else
                USAGE("bad --mode '%s' (crossfade or inertialize)", a.arg);
            break;
        case OPT_CURVE:
            curve_given = 1;
            if (strcmp(a.arg, "smoothstep") == 0)
                curve = MB_CURVE_SMOOTHSTEP;
            else if (strcmp(a.arg, "linear") == 0)
                curve = MB_CURVE_LINEAR;
            else
                USAGE("bad --curve '%s' (smoothstep or linear)", a.arg);
            break;
        case OPT_UP:
            if (!mb_cli_parse_up(a.arg, &up))
                USAGE("bad --up '%s' (x, y or z)", a.arg);
            break;
        case MB_CLI_OPERAND:
            if (npaths == 2)
                USAGE("too many inputs: give A.bvh and B.bvh");
            paths[npaths++] = a.arg;
            break;
        default: break;
        }
    }
    if (npaths != 2)
        USAGE("need two inputs, A.bvh and B.bvh");
    if (!outp)
        USAGE("missing -o OUT.bvh (or OUT.glb)");
    if (!mb_cli_ends_with_ci(outp, ".bvh") && !mb_cli_ends_with_ci(outp, ".glb"))
        USAGE("the output must end in .bvh or .glb, got '%s'", outp);
    if (scale > 0.0f && !mb_cli_ends_with_ci(outp, ".glb"))
        USAGE("--scale applies to .glb output only");
    if (at_auto < 0)
        USAGE("missing --at SECONDS|auto");
    if (duration < 0.0)
        USAGE("missing --duration SECONDS");
    if (have_search && !at_auto)
        USAGE("--search limits where --at auto looks: it does nothing with --at SECONDS");
    if (window > 0.0 && !at_auto && !b_auto)
        USAGE("--window is the pose-matching window: it does nothing when --at and --b-start are "
              "both given in seconds");
    if (curve_given && mode == MB_TRANSITION_INERTIALIZE)
        USAGE("--curve shapes a cross-fade; --mode inertialize has its own decay");

    for (int i = 0; i < 2; ++i) {
        if ((rc = mb_cli_clip_open(cmd, paths[i], lenient, &src[i])) != MB_EXIT_OK)
            goto out;
        sk[i] = src[i].s;
        cl[i] = src[i].c;
    }
    if ((rc = mb_cli_same_skeleton(cmd, paths[0], sk[0], paths[1], sk[1])) != MB_EXIT_OK)
        goto out;
    {
        const char *files[2] = {src[0].file, src[1].file};
        if ((rc = mb_cli_check_report(cmd, report, outp, files, 2)) != MB_EXIT_OK ||
            (rc = mb_cli_check_output(cmd, outp, files, 2)) != MB_EXIT_OK)
            goto out;
    }
    mb_motion_info info[2];
    mb_error e;
    memset(&e, 0, sizeof e);
    for (int i = 0; i < 2; ++i) {
        if (mb_clip_frame_count(cl[i]) < 2)
            INPUT_ERR("%s has fewer than 2 frames", paths[i]);
        mb_analyze_desc ad = {0};
        ad.up_axis = i == 0 ? (up ? up : src[0].up_axis) : info[0].up_axis + 1;
        if (mb_motion_analyze(sk[i], cl[i], &ad, paths[i], &info[i], &e) != MB_OK) {
            mb_cli_print_error(&e);
            rc = MB_EXIT_INPUT;
            goto out;
        }
    }
    double fta = mb_clip_frame_time(cl[0]), ftb = mb_clip_frame_time(cl[1]);
    int nfa = mb_clip_frame_count(cl[0]), nfb = mb_clip_frame_count(cl[1]);
    /* Times given in seconds must lie in their clips (checked here, before they become frame
     * numbers), and each clip must hold the transition; the library checks the same with
     * the sync rates, these messages name the option. */
    double end_a = (nfa - 1) * fta, end_b = (nfb - 1) * ftb;
    double len_b = end_b - info[1].first_frame * ftb, dur_tol = 1e-9 + 1e-6 * duration;
    double start_a = info[0].first_frame * fta, start_b = info[1].first_frame * ftb;
    if (!at_auto && (at > end_a + 0.5 * fta || at < start_a - 0.5 * fta))
        INPUT_ERR("%s: --at %g s is outside the motion (%.4g s to %.4g s%s)", paths[0], at,
                  start_a, end_a, start_a > 0.0 ? "; frame 0 is a T-pose" : "");
    /* what A has left after --at, taken at its nearest frame */
    double left_a = end_a - floor(at / fta + 0.5) * fta;
    if (!at_auto && duration > left_a + dur_tol)
        INPUT_ERR("%s ends %.3g s after --at %g s; the %.3g s transition needs it to go on", paths[0],
                  left_a, at, duration);
    if (!b_auto && (b_start > end_b + 0.5 * ftb || b_start < start_b - 0.5 * ftb))
        INPUT_ERR("%s: --b-start %g s is outside the motion (%.4g s to %.4g s%s)", paths[1],
                  b_start, start_b, end_b, start_b > 0.0 ? "; frame 0 is a T-pose" : "");
    if (len_b + dur_tol < duration)
        INPUT_ERR("%s has %.3g s of motion: too short for a %.3g s transition", paths[1], len_b, duration);

    /* Transition points. */
    int ka = (int)floor(at / fta + 0.5), kb = -1;
    double cost = -1.0;
    if (at_auto || b_auto) {
        mb_match_desc md = {0};
        md.skeleton_a = sk[0];
        md.skeleton_b = sk[1];
        md.a = cl[0];
        md.b = cl[1];
        md.info_a = &info[0];
        md.info_b = &info[1];
        md.window = window > 0.0 ? window : (duration > 0.1 ? duration : 0.1);
        /* a transition point given in seconds is compared over what A has left after it */
        if (!at_auto && window <= 0.0 && md.window > left_a)
            md.window = duration;
        if (at_auto) {
            if (have_search) {
                md.a_from = s_from;
                md.a_to = s_to;
            } else {
                /* From a third into A's motion (so the output shows A) to the last frame
                 * that leaves room for the transition (sync may play A up to 1.5x faster). */
                double t0 = info[0].first_frame * fta, t1 = (nfa - 1) * fta;
                double hi = t1 - (sync || b_phase ? 1.5 : 1.0) * duration;
                double lo = t0 + (t1 - t0) / 3.0;
                if (hi < lo)
                    lo = t0;
                if (hi < lo)
                    INPUT_ERR("%s lasts %.3g s: too short for a %.3g s transition", paths[0], t1 - t0, duration);
                md.a_from = lo;
                md.a_to = hi;
            }
        } else {
            md.a_from = ka * fta - 0.25 * fta;
            md.a_to = ka * fta + 0.25 * fta;
            if (md.a_from < 0.0)
                md.a_from = 0.0;
        }
        if (!b_auto) { /* b is given: the search only picks a (or scores the pair) */
            md.b_from = b_start > 0.25 * ftb ? b_start - 0.25 * ftb : 0.0;
            md.b_to = b_start + 0.25 * ftb;
        }
        mb_match_pair best;
        int found = 0;
        if (mb_match_find(&md, &best, 1, &found, NULL, &e) != MB_OK) {
            mb_cli_print_error(&e);
            rc = MB_EXIT_INPUT;
            goto out;
        }
        if (!found)
            INPUT_ERR("no transition point found");
        if (at_auto)
            ka = best.a;
        if (b_auto) {
            kb = best.b;
            b_start = kb * ftb;
        }
        cost = best.cost;
    }
    if (kb < 0)
        kb = (int)floor(b_start / ftb + 0.5);

    if (report && mb_file_stream_open(&rs, report, &e) != MB_OK) {
        mb_cli_print_error(&e);
        rc = MB_EXIT_INPUT;
        goto out;
    }
    mb_transition_build_desc bd = {0};
    bd.skeleton = sk[0];
    bd.a = cl[0];
    bd.b = cl[1];
    bd.source_a = paths[0];
    bd.source_b = paths[1];
    bd.info_a = &info[0];
    bd.info_b = &info[1];
    bd.at = ka * fta;
    bd.b_start = b_start;
    bd.transition.duration = (float)duration;
    bd.transition.mode = mode;
    bd.transition.curve = curve;
    bd.transition.sync = sync || b_phase;
    bd.transition.sync_keep_start = !b_phase;
    bd.up_axis = info[0].up_axis + 1;
    bd.report = log_frame;
    bd.report_user = &lg;
    mb_transition_result res;
    if (mb_transition_build(&bd, &result, &res, &e) != MB_OK) {
        mb_cli_print_error(&e);
        if (e.code == MB_MISMATCH && (sync || b_phase))
            fprintf(stderr, "%s: hint: --sync and --b-start phase need foot touchdowns in both "
                    "clips (in-place clips that do not loop have none): leave them out\n", cmd);
        rc = MB_EXIT_INPUT;
        goto out;
    }
    mb_transition_quality q;
    mb_transition_measure_desc qd = {0};
    qd.skeleton = sk[0];
    qd.a = cl[0];
    qd.b = cl[1];
    qd.out = result;
    qd.info_a = &info[0];
    qd.info_b = &info[1];
    qd.result = &res;
    qd.at = bd.at;
    qd.duration = duration;
    int qok = mb_transition_measure(&qd, &q) == MB_OK;
    if (rs.f) {
        int ok = write_report(rs.f, sk[0], result, &info[0], &lg, &res, &q, qok, ka,
                              (int)floor(res.b_start / ftb + 0.5), cost);
        if (!ok || fflush(rs.f) != 0 || ferror(rs.f))
            INPUT_ERR("cannot write report '%s': %s", report, strerror(errno));
    }
    const mb_bvh_write_desc wd = mb_cli_bvh_desc(&src[0]);
    if (mb_cli_ends_with_ci(outp, ".glb")) {
        if ((rc = mb_cli_write_glb(cmd, outp, &src[0], result, "transition", bd.up_axis, scale)) !=
            MB_EXIT_OK)
            goto out;
    } else if (mb_bvh_write_file(outp, sk[0], result, &wd, &e) != MB_OK) {
        mb_cli_print_error(&e);
        rc = MB_EXIT_INPUT;
        goto out;
    }
    if (rs.f && mb_file_stream_commit(&rs, &e) != MB_OK) {
        mb_cli_print_error(&e);
        INPUT_ERR("wrote %s, but not the report", outp);
    }
    char cost_text[48] = "";
    if (cost >= 0.0) /* a match ran */
        snprintf(cost_text, sizeof cost_text, ", match cost %.4g", cost);
    fprintf(stderr, "%s: A frame %d (%.3f s) -> B %.3f s (frame %d)%s%s; %d frames, transition %d:%d\n",
            cmd, ka, ka * fta, res.b_start, (int)floor(res.b_start / ftb + 0.5), sync || b_phase ? " in phase" : "",
            cost_text, res.frames, res.transition_start, res.transition_end);
    if (qok)
        fprintf(stderr, "%s: quality: root step ratio %.3f, angular speed ratio %.3f (%s), foot skate ratio %.3f\n",
                cmd, q.root_step_ratio, q.angular_ratio,
                q.angular_joint >= 0 ? mb_skeleton_name(sk[0], q.angular_joint) : "-", q.skate_ratio);

out:
    mb_file_stream_discard(&rs);
    free(lg.weight_b);
    free(lg.offset);
    free(lg.time_a);
    free(lg.time_b);
    mb_clip_destroy(result);
    for (int i = 0; i < 2; ++i)
        mb_cli_clip_close(&src[i]);
    return rc;
#undef USAGE
#undef INPUT_ERR
}
