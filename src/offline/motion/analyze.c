/* Motion analysis: up axis, moving root, feet, the cgspeed T-pose frame, foot contacts. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "mblend/math.h"
#include "mblend/offline/motion.h"
#include "offline/motion/motion_internal.h"
#include "runtime/controller/rootmotion_internal.h"

mb_status mb_motion_positions_(const mb_skeleton *s, const mb_clip *c, float *out)
{
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    mb_xform *local = malloc((size_t)nj * sizeof *local);
    float(*world)[16] = malloc((size_t)nj * sizeof *world);
    if (!local || !world) {
        free(local);
        free(world);
        return MB_NOMEM;
    }
    mb_pose p = {local, nj};
    mb_status st = MB_OK;
    for (int f = 0; f < nf && st == MB_OK; ++f) {
        st = mb_clip_frame_pose(s, c, f, p);
        if (st == MB_OK)
            st = mb_fk(s, &p, world, nj);
        for (int j = 0; j < nj && st == MB_OK; ++j)
            memcpy(&out[3 * ((size_t)f * nj + j)], &world[j][12], 3 * sizeof(float));
    }
    free(local);
    free(world);
    return st;
}


/* Largest joint rotation change between two frames (radians). */
static double frame_distance(const mb_clip *c, int f0, int f1)
{
    int nj = mb_clip_joint_count(c);
    const float *r = mb_clip_rotations(c);
    double mx = 0.0;
    for (int j = 0; j < nj; ++j) {
        double a = mb_quat_angle_between(r + 4 * ((size_t)f0 * nj + j), r + 4 * ((size_t)f1 * nj + j));
        if (a > mx)
            mx = a;
    }
    return mx;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Frame 0 of the cgspeed CMU conversions is a T-pose glued before the capture: the jump
 * from frame 0 to 1 dwarfs the motion's own frame-to-frame change. */
static int detect_tpose_frame(const mb_clip *c)
{
    int nf = mb_clip_frame_count(c);
    if (nf < 4)
        return 0;
    int n = nf - 2 < 200 ? nf - 2 : 200;
    double *d = malloc((size_t)n * sizeof *d);
    if (!d)
        return 0;
    for (int f = 0; f < n; ++f)
        d[f] = frame_distance(c, f + 1, f + 2);
    qsort(d, (size_t)n, sizeof *d, cmp_double);
    double median = d[n / 2];
    free(d);
    double jump = frame_distance(c, 0, 1);
    if (!(jump > 0.1745)) /* > 10 degrees */
        return 0;
    if (jump > 10.0 * median) /* 10x the usual step */
        return 1;
    /* At a low frame rate (a take resampled to 30 fps) the usual step grows to a tenth of
     * the jump; a glued T-pose is still far from every motion frame: 76 to 106 degrees at
     * the worst joint in the CMU takes, against at most 23 for real first frames (the
     * shared real files, Bandai's included) */
    double nearest = jump;
    for (int f = 2; f < nf && f <= 400 && nearest > 0.7854; ++f) {
        double x = frame_distance(c, 0, f);
        nearest = x < nearest ? x : nearest;
    }
    return nearest > 0.7854 && nearest > 3.0 * median; /* 45 degrees */
}

/* Joint name normalised for matching: lower case, separators removed. */
static void normalise(const char *in, char *out, size_t n)
{
    size_t k = 0;
    for (; *in && k + 1 < n; ++in)
        if (*in != '_' && *in != ' ' && *in != '-' && *in != '.' && *in != ':')
            out[k++] = (char)tolower((unsigned char)*in);
    out[k] = '\0';
}

/* Score of a joint name as a foot on one side (0: not a foot). "LeftFoot", "Foot_L",
 * "lfoot", "LeftAnkle", "l_ankle" all match; toes do not. */
static int foot_score(const char *name, int left)
{
    char n[160];
    normalise(name, n, sizeof n);
    if (strstr(n, "toe") || strstr(n, "end"))
        return 0;
    int part = strstr(n, "foot") ? 2 : (strstr(n, "ankle") ? 1 : 0);
    if (!part)
        return 0;
    size_t len = strlen(n);
    const char *word = left ? "left" : "right";
    char letter = left ? 'l' : 'r';
    int side = strstr(n, word) != NULL || n[0] == letter || n[len - 1] == letter;
    return side ? part : 0;
}

/* The axis of the largest of three non-negative magnitudes (Y, then Z, on ties). */
static mb_axis dominant_axis(double x, double y, double z)
{
    return y >= x && y >= z ? MB_AXIS_Y : (z >= x ? MB_AXIS_Z : MB_AXIS_X);
}

/* mark[j] = 1 for joint top and the joints below it, 0 for the others (parents-first). */
static void mark_subtree(const int *parents, int nj, int top, unsigned char *mark)
{
    memset(mark, 0, (size_t)nj);
    mark[top] = 1;
    for (int j = top + 1; j < nj; ++j)
        mark[j] = parents[j] >= 0 && mark[parents[j]];
}

static int find_foot_by_name(const mb_skeleton *s, int left, const unsigned char *actor)
{
    int best = -1, best_score = 0;
    for (int j = 0; j < mb_skeleton_joint_count(s); ++j) {
        if (mb_skeleton_is_end_site(s, j) || (actor && !actor[j]))
            continue;
        int sc = foot_score(mb_skeleton_name(s, j), left);
        if (sc > best_score) {
            best_score = sc;
            best = j;
        }
    }
    return best;
}

/* The analysis, written into out as it goes (mb_motion_analyze gives it a local). */
static mb_status analyze_into(const mb_skeleton *s, const mb_clip *c, const mb_analyze_desc *d,
                              const char *source, mb_motion_info *out, mb_error *err)
{
    if (!s || !c || !out || mb_clip_joint_count(c) != mb_skeleton_joint_count(s)) {
        mb_error_set_(err, MB_INVALID_ARG, source ? source : "<clip>", "%s", "invalid arguments to motion analysis");
        return MB_INVALID_ARG;
    }
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    if (nf < 1) {
        mb_error_set_(err, MB_INVALID_ARG, source ? source : "<clip>", "%s", "motion analysis needs at least 1 frame");
        return MB_INVALID_ARG;
    }
    memset(out, 0, sizeof *out);
    out->left_foot = out->right_foot = -1;
    out->first_frame = detect_tpose_frame(c);

    /* Root: the first joint whose translation moves. Only tracked joints can (the list is
     * ascending, so the first found is the first joint). */
    const int *tracked = mb_clip_translation_joints(c);
    /* none moves: the skeleton's root (for a multi-ROOT file, the first ROOT, not the
     * group node that holds them) */
    out->root = mb_skeleton_is_roots_group(s, 0) && mb_skeleton_joint_count(s) > 1 ? 1 : 0;
    for (int t = 0; t < mb_clip_translation_count(c); ++t) {
        int j = tracked[t];
        const float *p0 = mb_clip_joint_translation(s, c, 0, j);
        int moves = 0;
        for (int f = 1; f < nf && !moves; ++f) {
            const float *p = mb_clip_joint_translation(s, c, f, j);
            for (int k = 0; k < 3; ++k)
                if (p[k] != p0[k])
                    moves = 1;
        }
        if (moves) {
            out->root = j;
            break;
        }
    }

    const int *parents = mb_skeleton_parents(s);
    /* In a multi-ROOT file the other ROOTs are other actors or props: the feet are looked
     * for under the ROOT that holds the root only (NULL: every joint). */
    unsigned char actor_buf[MB_MAX_JOINTS], *actor = NULL;
    if (mb_skeleton_is_roots_group(s, 0) && out->root > 0) {
        actor = actor_buf;
        mark_subtree(parents, nj, mb_rm_actor_top(parents, out->root), actor);
    }
    float *pos = malloc((size_t)nf * nj * 3 * sizeof *pos);
    if (!pos) {
        mb_error_set_(err, MB_NOMEM, source ? source : "<clip>", "%s", "out of memory");
        return MB_NOMEM;
    }
    mb_status st = mb_motion_positions_(s, c, pos);
    if (st != MB_OK) {
        free(pos);
        mb_error_set_(err, st, source ? source : "<clip>", "forward kinematics failed");
        return st;
    }
    /* Feet: given names, else by name, else the two lowest End Sites split by side. */
    const char *given[2] = {d ? d->left_foot : NULL, d ? d->right_foot : NULL};
    int feet[2];
    for (int side = 0; side < 2; ++side) {
        if (given[side]) {
            feet[side] = mb_skeleton_find(s, given[side]);
            if (feet[side] < 0) {
                char msg[256];
                snprintf(msg, sizeof msg, "no joint named '%.120s' for the %s foot", given[side],
                         side == 0 ? "left" : "right");
                free(pos);
                mb_error_set_(err, MB_INVALID_ARG, source ? source : "<clip>", "%s", msg);
                return MB_INVALID_ARG;
            }
        } else {
            feet[side] = find_foot_by_name(s, side == 0, actor);
        }
    }
    if (given[0] && given[1] && feet[0] == feet[1]) {
        /* one joint cannot be both feet; quietly detecting others would ignore the request */
        free(pos);
        mb_error_set_(err, MB_INVALID_ARG, source ? source : "<clip>",
                      "the left and right foot are the same joint '%.120s'", mb_skeleton_name(s, feet[0]));
        return MB_INVALID_ARG;
    }
    /* Up axis: from the named feet (below), else the axis of largest mean extent (limbs
     * hang or stand along it in locomotion; the T-pose frame is skipped). */
    double ext[3] = {0, 0, 0};
    int f0 = out->first_frame;
    /* Only the root's subtree: a static dummy parent left at the origin while the body
     * travels would otherwise stretch the extent along the travel direction. */
    unsigned char *in_body = malloc((size_t)nj);
    if (!in_body) {
        free(pos);
        mb_error_set_(err, MB_NOMEM, source ? source : "<clip>", "%s", "out of memory");
        return MB_NOMEM;
    }
    mark_subtree(parents, nj, out->root, in_body);
    for (int f = f0; f < nf; ++f)
        for (int k = 0; k < 3; ++k) {
            float lo = INFINITY, hi = -INFINITY;
            for (int j = 0; j < nj; ++j) {
                if (!in_body[j])
                    continue;
                float v = pos[3 * ((size_t)f * nj + j) + k];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            ext[k] += hi - lo;
        }
    free(in_body);
    mb_axis axis = dominant_axis(ext[0], ext[1], ext[2]);
    if (feet[0] >= 0 && feet[1] >= 0 && feet[0] != feet[1]) {
        /* Named feet settle it even for a T-pose (arm span ~ height): the root stands
         * above the feet in any upright pose. */
        double v[3] = {0, 0, 0};
        for (int f = f0; f < nf; ++f)
            for (int k = 0; k < 3; ++k)
                v[k] += pos[3 * ((size_t)f * nj + out->root) + k] -
                        0.5 * (pos[3 * ((size_t)f * nj + feet[0]) + k] +
                               pos[3 * ((size_t)f * nj + feet[1]) + k]);
        axis = dominant_axis(fabs(v[0]), fabs(v[1]), fabs(v[2]));
    }
    if (d && d->up_axis >= MB_AXIS_X && d->up_axis <= MB_AXIS_Z)
        axis = d->up_axis;
    out->up_axis = axis;
    int up = mb_axis_index(axis);
    out->height = (float)(ext[up] / (nf - f0));

    /* Mean horizontal root speed. */
    double travel = 0.0;
    for (int f = f0 + 1; f < nf; ++f) {
        const float *a = &pos[3 * ((size_t)(f - 1) * nj + out->root)];
        const float *b = &pos[3 * ((size_t)f * nj + out->root)];
        double h2 = 0.0;
        for (int k = 0; k < 3; ++k)
            if (k != up)
                h2 += (double)(b[k] - a[k]) * (b[k] - a[k]);
        travel += sqrt(h2);
    }
    out->speed = nf - 1 - f0 > 0 ? (float)(travel / ((nf - 1 - f0) * mb_clip_frame_time(c))) : 0.0f;

    if (feet[0] < 0 || feet[1] < 0 || feet[0] == feet[1]) {
        /* Lowest two End Sites by mean height, below the root (a skeleton whose only End
         * Sites are a leg's and the head's has one foot, not two); left is on the
         * +(up x forward) side. */
        int lo1 = -1, lo2 = -1;
        double h1 = INFINITY, h2 = INFINITY, hroot = 0.0;
        for (int f = f0; f < nf; ++f)
            hroot += pos[3 * ((size_t)f * nj + out->root) + up];
        for (int j = 0; j < nj; ++j) {
            if (!mb_skeleton_is_end_site(s, j) || (actor && !actor[j]))
                continue;
            double h = 0.0;
            for (int f = f0; f < nf; ++f)
                h += pos[3 * ((size_t)f * nj + j) + up];
            if (!(h < hroot))
                continue;
            if (h < h1) {
                lo2 = lo1;
                h2 = h1;
                lo1 = j;
                h1 = h;
            } else if (h < h2) {
                lo2 = j;
                h2 = h;
            }
        }
        if (lo1 < 0 || lo2 < 0) {
            /* No feet to be had (e.g. a chain without End Sites): the rest of the analysis
             * stands; contacts and cycles report the missing feet. */
            free(pos);
            return MB_OK;
        }
        /* Side: lateral axis = up x forward, forward = the root's travel direction. */
        const float *pa = &pos[3 * ((size_t)f0 * nj + out->root)];
        const float *pb = &pos[3 * ((size_t)(nf - 1) * nj + out->root)];
        double fw[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        fw[up] = 0.0;
        if (fw[0] * fw[0] + fw[1] * fw[1] + fw[2] * fw[2] < 1e-12) {
            fw[0] = fw[1] = fw[2] = 0.0;
            fw[(up + 2) % 3] = 1.0; /* in place: the axis after up, e.g. +Z for Y-up */
        }
        double u[3] = {0, 0, 0};
        u[up] = 1.0;
        double lat[3] = {u[1] * fw[2] - u[2] * fw[1], u[2] * fw[0] - u[0] * fw[2],
                         u[0] * fw[1] - u[1] * fw[0]};
        double side1 = 0.0;
        for (int f = f0; f < nf; ++f)
            for (int k = 0; k < 3; ++k)
                side1 += lat[k] * (pos[3 * ((size_t)f * nj + lo1) + k] -
                                   pos[3 * ((size_t)f * nj + lo2) + k]);
        feet[0] = side1 > 0 ? lo1 : lo2;
        feet[1] = side1 > 0 ? lo2 : lo1;
    }
    out->left_foot = feet[0];
    out->right_foot = feet[1];
    float g = INFINITY;
    for (int f = f0; f < nf; ++f)
        for (int side = 0; side < 2; ++side) {
            float h = pos[3 * ((size_t)f * nj + feet[side]) + up];
            g = h < g ? h : g;
        }
    out->ground = g;
    free(pos);
    return MB_OK;
}

mb_status mb_motion_analyze(const mb_skeleton *s, const mb_clip *c, const mb_analyze_desc *d,
                            const char *source, mb_motion_info *out, mb_error *err)
{
    mb_error_clear_(err);
    /* out is written only on success (a foot name that does not exist is found late) */
    mb_motion_info res;
    mb_status st = analyze_into(s, c, d, source, out ? &res : NULL, err);
    if (st == MB_OK)
        *out = res;
    return st;
}

mb_status mb_motion_info_check_(const mb_motion_info *i, const mb_skeleton *s, const mb_clip *c,
                                const char *source, mb_error *err)
{
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    if (i->up_axis >= MB_AXIS_X && i->up_axis <= MB_AXIS_Z && i->root >= 0 && i->root < nj &&
        i->left_foot >= -1 && i->left_foot < nj && i->right_foot >= -1 && i->right_foot < nj &&
        i->first_frame >= 0 && (i->first_frame < nf || nf == 0) && isfinite(i->height) &&
        i->height >= 0.0f && isfinite(i->speed))
        return MB_OK;
    return mb_error_set_(err, MB_INVALID_ARG, source ? source : "<clip>",
                         "the motion info given does not fit its clip (an axis, joint or frame "
                         "out of range)");
}

/* The hip joint of a leg: on the chain from the root down to the foot, the first joint
 * that sits away from the root (CMU files put a zero-length LHipJoint first). -1 when the
 * foot is unknown or not under the root. */
static int hip_joint(const mb_skeleton *sk, int root, int foot, float height)
{
    if (foot < 0)
        return -1;
    const int *par = mb_skeleton_parents(sk);
    int chain[MB_MAX_JOINTS], n = 0;
    for (int k = foot; k >= 0 && k != root; k = par[k])
        chain[n++] = k;
    if (n == 0 || par[chain[n - 1]] != root)
        return -1;
    double min_len = 0.01 * (height > 0.0f ? height : 1.0f);
    for (int i = n - 1; i >= 0; --i) {
        const float *o = mb_skeleton_offset(sk, chain[i]);
        if (sqrt((double)o[0] * o[0] + (double)o[1] * o[1] + (double)o[2] * o[2]) > min_len)
            return chain[i];
    }
    return -1;
}

void mb_motion_hips_(const mb_skeleton *s, int root, const mb_motion_info *info, int hip[2])
{
    hip[0] = hip_joint(s, root, info->left_foot, info->height);
    hip[1] = hip_joint(s, root, info->right_foot, info->height);
    if (hip[0] < 0 || hip[1] < 0 || hip[0] == hip[1])
        hip[0] = hip[1] = -1;
}

mb_status mb_motion_contacts(const mb_skeleton *s, const mb_clip *c, const mb_motion_info *info,
                             unsigned char *out_left, unsigned char *out_right, mb_error *err)
{
    mb_error_clear_(err);
    if (!s || !c || !info)
        return mb_error_set_(err, MB_INVALID_ARG, "contacts", "no %s given",
                             !s ? "skeleton" : !c ? "clip" : "motion info");
    if (mb_motion_info_check_(info, s, c, "contacts", err) != MB_OK)
        return MB_INVALID_ARG;
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    if (nf < 2)
        return mb_error_set_(err, MB_INVALID_ARG, "contacts", "%d frame%s: contacts need 2 or more",
                             nf, nf == 1 ? "" : "s");
    if (info->left_foot < 0 || info->right_foot < 0)
        return mb_error_set_(err, MB_MISMATCH, "contacts", "the feet are unknown");
    float *pos = malloc((size_t)nf * nj * 3 * sizeof *pos);
    if (!pos)
        return mb_error_set_(err, MB_NOMEM, "contacts", "out of memory for %d frames", nf);
    mb_status st = mb_motion_positions_(s, c, pos);
    if (st != MB_OK) {
        free(pos);
        return mb_error_set_(err, st, "contacts", "cannot pose the clip: %s", mb_status_str(st));
    }
    int up = mb_axis_index(info->up_axis);
    double ft = mb_clip_frame_time(c);
    /* Planted: within 6% of the body height of the lowest point this foot reaches, and
     * slower horizontally than the root's mean speed (a swinging foot moves about twice
     * as fast as the body). Thresholds are relative, so units and gait do not matter. */
    for (int side = 0; side < 2; ++side) {
        unsigned char *out = side == 0 ? out_left : out_right;
        if (!out)
            continue;
        int j = side == 0 ? info->left_foot : info->right_foot;
        float lo = INFINITY;
        for (int f = info->first_frame; f < nf; ++f) {
            float h = pos[3 * ((size_t)f * nj + j) + up];
            lo = h < lo ? h : lo;
        }
        double hmax = lo + 0.06 * info->height;
        for (int f = 0; f < nf; ++f) {
            /* the speed over the step into f; at the first motion frame the step out of it
             * (the step in comes from the T-pose frame and is no motion) */
            int first = f <= info->first_frame;
            int a = first ? f : f - 1, b = first ? (f + 1 < nf ? f + 1 : f) : f;
            const float *pa = &pos[3 * ((size_t)a * nj + j)], *pb = &pos[3 * ((size_t)b * nj + j)];
            double v2 = 0.0;
            for (int k = 0; k < 3; ++k)
                if (k != up)
                    v2 += (double)(pb[k] - pa[k]) * (pb[k] - pa[k]);
            double v = sqrt(v2) / ft;
            double h = pos[3 * ((size_t)f * nj + j) + up];
            double vmax = 0.6 * info->speed + 0.05 * info->height; /* per second */
            out[f] = f >= info->first_frame && h <= hmax && v <= vmax;
        }
    }
    free(pos);
    return MB_OK;
}
