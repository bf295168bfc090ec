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

/* What the steps of one analysis share: the clip, its world positions (pos[frame][joint][3],
 * from forward kinematics), the first motion frame and the actor the feet belong to. */
typedef struct analysis {
    const mb_skeleton *s;
    const mb_clip *c;
    int nj, nf, f0;
    const int *parents;
    const unsigned char *actor; /* NULL: every joint */
    const float *pos;
} analysis;

static const float *world_pos(const analysis *a, int f, int j)
{
    return &a->pos[3 * ((size_t)f * (size_t)a->nj + (size_t)j)];
}

/* The first joint whose translation moves (only tracked joints can; the list is ascending,
 * so the first found is the first joint); when none moves, the skeleton's root (for a
 * multi-ROOT file the first ROOT, not the group node that holds them). */
static int moving_root(const mb_skeleton *s, const mb_clip *c)
{
    int nf = mb_clip_frame_count(c);
    const int *tracked = mb_clip_translation_joints(c);
    for (int t = 0; t < mb_clip_translation_count(c); ++t) {
        int j = tracked[t];
        const float *p0 = mb_clip_joint_translation(s, c, 0, j);
        for (int f = 1; f < nf; ++f) {
            const float *p = mb_clip_joint_translation(s, c, f, j);
            if (p[0] != p0[0] || p[1] != p0[1] || p[2] != p0[2])
                return j;
        }
    }
    return mb_skeleton_is_roots_group(s, 0) && mb_skeleton_joint_count(s) > 1 ? 1 : 0;
}

/* Feet from the names the caller gave, else found by name (-1 when not found). */
static mb_status named_feet(const analysis *a, const mb_analyze_desc *d, const char *source,
                            int feet[2], mb_error *err)
{
    const char *given[2] = {d ? d->left_foot : NULL, d ? d->right_foot : NULL};
    for (int side = 0; side < 2; ++side) {
        feet[side] = given[side] ? mb_skeleton_find(a->s, given[side])
                                 : find_foot_by_name(a->s, side == 0, a->actor);
        if (given[side] && feet[side] < 0)
            return mb_error_set_(err, MB_INVALID_ARG, source, "no joint named '%.120s' for the "
                                 "%s foot", given[side], side == 0 ? "left" : "right");
    }
    if (given[0] && given[1] && feet[0] == feet[1]) /* quietly detecting others would
                                                       ignore the request */
        return mb_error_set_(err, MB_INVALID_ARG, source, "the left and right foot are the "
                             "same joint '%.120s'", mb_skeleton_name(a->s, feet[0]));
    return MB_OK;
}

/* The summed extent of the body along each axis over the motion frames. Only the root's
 * subtree counts: a static dummy parent left at the origin while the body travels would
 * otherwise stretch the extent along the travel direction. */
static mb_status body_extent(const analysis *a, int root, double ext[3])
{
    unsigned char *in_body = malloc((size_t)a->nj);
    if (!in_body)
        return MB_NOMEM;
    mark_subtree(a->parents, a->nj, root, in_body);
    ext[0] = ext[1] = ext[2] = 0.0;
    for (int f = a->f0; f < a->nf; ++f)
        for (int k = 0; k < 3; ++k) {
            float lo = INFINITY, hi = -INFINITY;
            for (int j = 0; j < a->nj; ++j) {
                if (!in_body[j])
                    continue;
                float v = world_pos(a, f, j)[k];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            ext[k] += hi - lo;
        }
    free(in_body);
    return MB_OK;
}

/* Up: given, else from named feet (the root stands above the feet in any upright pose, a
 * T-pose included, whose arm span rivals its height), else the axis of largest mean extent
 * (limbs hang or stand along it in locomotion). */
static mb_axis up_axis_of(const analysis *a, const mb_analyze_desc *d, int root,
                          const int feet[2], const double ext[3])
{
    if (d && d->up_axis >= MB_AXIS_X && d->up_axis <= MB_AXIS_Z)
        return d->up_axis;
    if (feet[0] < 0 || feet[1] < 0 || feet[0] == feet[1])
        return dominant_axis(ext[0], ext[1], ext[2]);
    double v[3] = {0, 0, 0};
    for (int f = a->f0; f < a->nf; ++f)
        for (int k = 0; k < 3; ++k)
            v[k] += world_pos(a, f, root)[k] -
                    0.5 * (world_pos(a, f, feet[0])[k] + world_pos(a, f, feet[1])[k]);
    return dominant_axis(fabs(v[0]), fabs(v[1]), fabs(v[2]));
}

/* Mean horizontal root speed, file units per second (0 for one motion frame). */
static float root_speed(const analysis *a, int root, int up)
{
    double travel = 0.0;
    for (int f = a->f0 + 1; f < a->nf; ++f) {
        const float *p = world_pos(a, f - 1, root), *q = world_pos(a, f, root);
        double h2 = 0.0;
        for (int k = 0; k < 3; ++k)
            if (k != up)
                h2 += (double)(q[k] - p[k]) * (q[k] - p[k]);
        travel += sqrt(h2);
    }
    int steps = a->nf - 1 - a->f0;
    return steps > 0 ? (float)(travel / (steps * mb_clip_frame_time(a->c))) : 0.0f;
}

/* The two lowest End Sites by mean height below the root (a skeleton whose only End Sites
 * are a leg's and the head's has one foot, not two), left on the +(up x forward) side with
 * forward the root's travel (in place: the axis after up, e.g. +Z for Y-up). Returns 0 when
 * there are no two such End Sites. */
static int lowest_end_site_feet(const analysis *a, int root, int up, int feet[2])
{
    int lo1 = -1, lo2 = -1;
    double h1 = INFINITY, h2 = INFINITY, hroot = 0.0;
    for (int f = a->f0; f < a->nf; ++f)
        hroot += world_pos(a, f, root)[up];
    for (int j = 0; j < a->nj; ++j) {
        if (!mb_skeleton_is_end_site(a->s, j) || (a->actor && !a->actor[j]))
            continue;
        double h = 0.0;
        for (int f = a->f0; f < a->nf; ++f)
            h += world_pos(a, f, j)[up];
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
    if (lo1 < 0 || lo2 < 0)
        return 0;
    const float *pa = world_pos(a, a->f0, root), *pb = world_pos(a, a->nf - 1, root);
    double fw[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    fw[up] = 0.0;
    if (fw[0] * fw[0] + fw[1] * fw[1] + fw[2] * fw[2] < 1e-12) {
        fw[0] = fw[1] = fw[2] = 0.0;
        fw[(up + 2) % 3] = 1.0;
    }
    double u[3] = {0, 0, 0};
    u[up] = 1.0;
    double lat[3] = {u[1] * fw[2] - u[2] * fw[1], u[2] * fw[0] - u[0] * fw[2],
                     u[0] * fw[1] - u[1] * fw[0]};
    double side1 = 0.0;
    for (int f = a->f0; f < a->nf; ++f)
        for (int k = 0; k < 3; ++k)
            side1 += lat[k] * (world_pos(a, f, lo1)[k] - world_pos(a, f, lo2)[k]);
    feet[0] = side1 > 0 ? lo1 : lo2;
    feet[1] = side1 > 0 ? lo2 : lo1;
    return 1;
}

/* The lowest height either foot reaches along up. */
static float ground_of(const analysis *a, const int feet[2], int up)
{
    float g = INFINITY;
    for (int f = a->f0; f < a->nf; ++f)
        for (int side = 0; side < 2; ++side) {
            float h = world_pos(a, f, feet[side])[up];
            g = h < g ? h : g;
        }
    return g;
}

/* The analysis's steps over the world positions, into out (first_frame and root set). */
static mb_status analyze_positions(const analysis *a, const mb_analyze_desc *d,
                                   const char *source, mb_motion_info *out, mb_error *err)
{
    int feet[2];
    double ext[3];
    mb_status st = named_feet(a, d, source, feet, err);
    if (st != MB_OK)
        return st;
    if (body_extent(a, out->root, ext) != MB_OK)
        return mb_error_set_(err, MB_NOMEM, source, "%s", "out of memory");
    out->up_axis = up_axis_of(a, d, out->root, feet, ext);
    int up = mb_axis_index(out->up_axis);
    out->height = (float)(ext[up] / (a->nf - a->f0));
    out->speed = root_speed(a, out->root, up);
    if ((feet[0] < 0 || feet[1] < 0 || feet[0] == feet[1]) &&
        !lowest_end_site_feet(a, out->root, up, feet))
        return MB_OK; /* no feet to be had (e.g. a chain without End Sites): the rest of the
                         analysis stands; contacts and cycles report the missing feet */
    out->left_foot = feet[0];
    out->right_foot = feet[1];
    out->ground = ground_of(a, feet, up);
    return MB_OK;
}

/* The analysis, written into out as it goes (mb_motion_analyze gives it a local). */
static mb_status analyze_into(const mb_skeleton *s, const mb_clip *c, const mb_analyze_desc *d,
                              const char *source, mb_motion_info *out, mb_error *err)
{
    source = source ? source : "<clip>";
    if (!s || !c || !out || mb_clip_joint_count(c) != mb_skeleton_joint_count(s))
        return mb_error_set_(err, MB_INVALID_ARG, source, "%s",
                             "invalid arguments to motion analysis");
    analysis a = {s, c, mb_skeleton_joint_count(s), mb_clip_frame_count(c), 0,
                  mb_skeleton_parents(s), NULL, NULL};
    if (a.nf < 1)
        return mb_error_set_(err, MB_INVALID_ARG, source, "%s",
                             "motion analysis needs at least 1 frame");
    memset(out, 0, sizeof *out);
    out->left_foot = out->right_foot = -1;
    out->first_frame = a.f0 = detect_tpose_frame(c);
    out->root = moving_root(s, c);
    /* In a multi-ROOT file the other ROOTs are other actors or props: the feet are looked
     * for under the ROOT that holds the root only. */
    unsigned char actor_buf[MB_MAX_JOINTS];
    if (mb_skeleton_is_roots_group(s, 0) && out->root > 0) {
        mark_subtree(a.parents, a.nj, mb_rm_actor_top(a.parents, out->root), actor_buf);
        a.actor = actor_buf;
    }
    float *pos = malloc((size_t)a.nf * (size_t)a.nj * 3 * sizeof *pos);
    if (!pos)
        return mb_error_set_(err, MB_NOMEM, source, "%s", "out of memory");
    mb_status st = mb_motion_positions_(s, c, pos);
    a.pos = pos;
    if (st != MB_OK)
        mb_error_set_(err, st, source, "forward kinematics failed");
    else
        st = analyze_positions(&a, d, source, out, err);
    free(pos);
    return st;
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
    /* Planted: within MB_CONTACT_HEIGHT (6%) of the body height of the lowest point this foot reaches, and
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
        double hmax = lo + MB_CONTACT_HEIGHT * info->height;
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
