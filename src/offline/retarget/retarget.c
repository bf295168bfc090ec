/* Retargeting: the motion of one skeleton on another, joined by joint roles. The method is
 * stated in include/mblend/offline/retarget.h and docs/retarget.md; all of it runs in
 * double precision. Names: _s the source, _t the target; W world rotations, A rest
 * alignments (target world -> target world), M the source world -> target world turn. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/axis_internal.h"
#include "base/error_internal.h"
#include "math/quat_internal.h"
#include "mblend/offline/clip_build.h"
#include "mblend/offline/motion.h"
#include "mblend/offline/retarget.h"

static const mb_role required_roles[MB_RETARGET_REQUIRED_COUNT] = {
    MB_ROLE_HIPS,        MB_ROLE_CHEST,       MB_ROLE_UPPER_LEG_L, MB_ROLE_UPPER_LEG_R,
    MB_ROLE_LOWER_LEG_L, MB_ROLE_LOWER_LEG_R, MB_ROLE_FOOT_L,      MB_ROLE_FOOT_R,
    MB_ROLE_UPPER_ARM_L, MB_ROLE_UPPER_ARM_R, MB_ROLE_FOREARM_L,   MB_ROLE_FOREARM_R};

const mb_role *mb_retarget_required_roles(void) { return required_roles; }

/* ---------- small double-precision vector helpers ---------- */

static void v_sub(const double a[3], const double b[3], double out[3])
{
    for (int k = 0; k < 3; ++k)
        out[k] = a[k] - b[k];
}

static double v_len(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static double v_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void v_cross(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Normalises v in place; 0 when it has no length to normalise. */
static int v_unit(double v[3])
{
    double n = v_len(v);
    if (!(n > 1e-12))
        return 0;
    for (int k = 0; k < 3; ++k)
        v[k] /= n;
    return 1;
}

static void q_conj(const double q[4], double out[4])
{
    out[0] = -q[0];
    out[1] = -q[1];
    out[2] = -q[2];
    out[3] = q[3];
}

/* The shortest-arc rotation that turns unit a onto unit b. Opposite vectors turn by pi
 * about an axis perpendicular to a (the one nearest to perp when given, else any). */
static void q_arc(const double a[3], const double b[3], double out[4])
{
    double c[3], d = v_dot(a, b);
    v_cross(a, b, c);
    if (d < -1.0 + 1e-12) {
        double axis[3] = {1, 0, 0};
        if (fabs(a[0]) > 0.9)
            axis[0] = 0, axis[1] = 1;
        double t[3];
        v_cross(a, axis, t);
        v_unit(t);
        out[0] = t[0], out[1] = t[1], out[2] = t[2], out[3] = 0.0;
        return;
    }
    double s = sqrt(2.0 * (1.0 + d));
    out[0] = c[0] / s, out[1] = c[1] / s, out[2] = c[2] / s, out[3] = 0.5 * s;
}

/* Slerp from a to b (unit) by t, on the short arc. */
static void q_slerp(const double a[4], const double b[4], double t, double out[4])
{
    double rel[4], v[3], r[4];
    mb_qconjmul_d_(a, b, rel);
    mb_quat_log_d_(rel, v);
    for (int k = 0; k < 3; ++k)
        v[k] *= t;
    mb_quat_exp_d_(v, r);
    mb_qmul_d_(a, r, out);
}

/* The rotation whose columns are the frame (left, up, left x up) of two directions: up
 * exactly, left made perpendicular to it. 0 when they do not span a plane. */
static int q_frame(const double up_in[3], const double left_in[3], double out[4])
{
    double up[3] = {up_in[0], up_in[1], up_in[2]}, left[3], fwd[3];
    if (!v_unit(up))
        return 0;
    double d = v_dot(left_in, up);
    for (int k = 0; k < 3; ++k)
        left[k] = left_in[k] - d * up[k];
    if (!v_unit(left))
        return 0;
    v_cross(left, up, fwd);
    const double m[16] = {left[0], left[1], left[2], 0, up[0], up[1], up[2], 0,
                          fwd[0],  fwd[1],  fwd[2],  0, 0,     0,     0,     1};
    mb_quat_from_mat4_d_(m, out);
    return 1;
}

/* ---------- forward kinematics of a local pose, in double ---------- */

typedef struct world_pose {
    double (*rot)[4];
    double (*pos)[3];
} world_pose;

static void fk_d(const mb_skeleton *s, const mb_xform *local, world_pose *w)
{
    const int *parent = mb_skeleton_parents(s);
    int nj = mb_skeleton_joint_count(s);
    for (int j = 0; j < nj; ++j) {
        double r[4], t[3];
        for (int k = 0; k < 4; ++k)
            r[k] = local[j].rot[k];
        double n = sqrt(mb_qdot_d_(r, r));
        for (int k = 0; k < 4; ++k)
            r[k] = n > 0.0 ? r[k] / n : (k == 3);
        for (int k = 0; k < 3; ++k)
            t[k] = local[j].pos[k];
        int p = parent[j];
        if (p < 0) {
            memcpy(w->rot[j], r, sizeof r);
            memcpy(w->pos[j], t, sizeof t);
            continue;
        }
        double rt[3];
        mb_qrotate_d_(w->rot[p], t, rt);
        mb_qmul_d_(w->rot[p], r, w->rot[j]);
        for (int k = 0; k < 3; ++k)
            w->pos[j][k] = w->pos[p][k] + rt[k];
    }
}

/* ---------- one side: reference pose, world reference, bone directions ---------- */

typedef struct side {
    const mb_skeleton *s;
    const mb_roles *roles;
    const char *name;
    int nj;
    mb_xform *ref;          /* local reference pose */
    world_pose w0;          /* its world pose */
    int spine[64];          /* the SPINE joints, hips to chest */
    int spine_count;
    double leg;             /* upper + lower leg, mean of both sides */
    double side_leg[2];     /* upper + lower leg, left and right */
    mb_axis up;
} side;

static void side_free(side *sd)
{
    free(sd->ref);
    free(sd->w0.rot);
    free(sd->w0.pos);
    memset(sd, 0, sizeof *sd);
}

static mb_status side_init(const mb_retarget_side *in, const char *dflt, side *sd, mb_error *err)
{
    memset(sd, 0, sizeof *sd);
    sd->s = in->skeleton;
    sd->roles = in->roles;
    sd->name = mb_name_(in->source, dflt);
    sd->up = in->up_axis;
    if (!sd->s || !sd->roles)
        return mb_error_set_(err, MB_INVALID_ARG, sd->name, "no skeleton or no roles");
    sd->nj = mb_skeleton_joint_count(sd->s);
    if (sd->roles->joint_count != sd->nj || !sd->roles->of_joint)
        return mb_error_set_(err, MB_INVALID_ARG, sd->name, "roles of %d joints for a skeleton "
                             "of %d", sd->roles->joint_count, sd->nj);
    if (!mb_axis_valid_(sd->up))
        return mb_error_set_(err, MB_INVALID_ARG, sd->name, "up axis %d is not an mb_axis",
                             (int)sd->up);
    size_t n = (size_t)sd->nj;
    sd->ref = malloc(n * sizeof *sd->ref);
    sd->w0.rot = malloc(n * sizeof *sd->w0.rot);
    sd->w0.pos = malloc(n * sizeof *sd->w0.pos);
    if (!sd->ref || !sd->w0.rot || !sd->w0.pos)
        return mb_error_set_(err, MB_NOMEM, sd->name, "out of memory");
    if (in->reference)
        memcpy(sd->ref, in->reference, n * sizeof *sd->ref);
    else
        mb_skeleton_rest_pose(sd->s, (mb_pose){sd->ref, sd->nj});
    for (int j = 0; j < sd->nj; ++j)
        for (int k = 0; k < 7; ++k) {
            float v = k < 4 ? sd->ref[j].rot[k] : sd->ref[j].pos[k - 4];
            if (!isfinite(v))
                return mb_error_set_(err, MB_INVALID_ARG, sd->name, "reference pose of joint "
                                     "%d is not finite", j);
        }
    fk_d(sd->s, sd->ref, &sd->w0);
    for (int j = 0; j < sd->nj; ++j)
        if (sd->roles->of_joint[j] == MB_ROLE_SPINE && sd->spine_count < 64)
            sd->spine[sd->spine_count++] = j;
    return MB_OK;
}

static const double *wpos(const side *sd, mb_role r) { return sd->w0.pos[sd->roles->joint[r]]; }

/* Upper + lower leg in the reference pose, each side and the mean of both. */
static double leg_length(side *sd)
{
    double d[3];
    for (int lr = 0; lr < 2; ++lr) {
        v_sub(wpos(sd, MB_ROLE_LOWER_LEG_L + lr), wpos(sd, MB_ROLE_UPPER_LEG_L + lr), d);
        sd->side_leg[lr] = v_len(d);
        v_sub(wpos(sd, MB_ROLE_FOOT_L + lr), wpos(sd, MB_ROLE_LOWER_LEG_L + lr), d);
        sd->side_leg[lr] += v_len(d);
    }
    return 0.5 * (sd->side_leg[0] + sd->side_leg[1]);
}

/* The role whose joint a role's bone points to (NONE: the joint's children). */
static mb_role child_role(const side *sd, mb_role r)
{
    static const mb_role next[MB_ROLE_COUNT] = {
        [MB_ROLE_NECK] = MB_ROLE_HEAD,          [MB_ROLE_SHOULDER_L] = MB_ROLE_UPPER_ARM_L,
        [MB_ROLE_SHOULDER_R] = MB_ROLE_UPPER_ARM_R, [MB_ROLE_UPPER_ARM_L] = MB_ROLE_FOREARM_L,
        [MB_ROLE_UPPER_ARM_R] = MB_ROLE_FOREARM_R, [MB_ROLE_FOREARM_L] = MB_ROLE_HAND_L,
        [MB_ROLE_FOREARM_R] = MB_ROLE_HAND_R,   [MB_ROLE_UPPER_LEG_L] = MB_ROLE_LOWER_LEG_L,
        [MB_ROLE_UPPER_LEG_R] = MB_ROLE_LOWER_LEG_R, [MB_ROLE_LOWER_LEG_L] = MB_ROLE_FOOT_L,
        [MB_ROLE_LOWER_LEG_R] = MB_ROLE_FOOT_R, [MB_ROLE_FOOT_L] = MB_ROLE_TOES_L,
        [MB_ROLE_FOOT_R] = MB_ROLE_TOES_R};
    mb_role c = next[r];
    return c != MB_ROLE_NONE && sd->roles->joint[c] >= 0 ? c : MB_ROLE_NONE;
}

/* The reference-pose world direction of joint j's bone (role r): to its child role's
 * joint, for a spine joint to the next spine joint or the chest, else to the mean of its
 * children. 0 when the bone has no length (a hand without fingers, a zero End Site). */
static int bone_dir(const side *sd, int j, mb_role r, double out[3])
{
    int to = -1;
    if (r == MB_ROLE_SPINE) {
        to = sd->roles->joint[MB_ROLE_CHEST];
        for (int k = 0; k + 1 < sd->spine_count; ++k)
            if (sd->spine[k] == j)
                to = sd->spine[k + 1];
    } else if (child_role(sd, r) != MB_ROLE_NONE) {
        to = sd->roles->joint[child_role(sd, r)];
    }
    if (to >= 0) {
        v_sub(sd->w0.pos[to], sd->w0.pos[j], out);
    } else {
        const int *parent = mb_skeleton_parents(sd->s);
        double sum[3] = {0, 0, 0};
        int n = 0;
        for (int c = j + 1; c < sd->nj; ++c)
            if (parent[c] == j) {
                for (int k = 0; k < 3; ++k)
                    sum[k] += sd->w0.pos[c][k] - sd->w0.pos[j][k];
                ++n;
            }
        for (int k = 0; k < 3 && n > 0; ++k)
            out[k] = sum[k] / n;
        if (n == 0)
            return 0;
    }
    /* a bone shorter than 1e-4 of the legs points nowhere in particular */
    return v_len(out) > 1e-4 * sd->leg && v_unit(out);
}

/* The rest frame of the hips (up to the chest, left from the right upper leg) or the chest
 * (up to the neck, else the head, else the hips' up; left from the right upper arm). */
static int rest_frame(const side *sd, mb_role r, double out[4])
{
    double up[3], left[3];
    if (r == MB_ROLE_HIPS) {
        v_sub(wpos(sd, MB_ROLE_CHEST), wpos(sd, MB_ROLE_HIPS), up);
        v_sub(wpos(sd, MB_ROLE_UPPER_LEG_L), wpos(sd, MB_ROLE_UPPER_LEG_R), left);
    } else {
        mb_role top = sd->roles->joint[MB_ROLE_NECK] >= 0   ? MB_ROLE_NECK
                      : sd->roles->joint[MB_ROLE_HEAD] >= 0 ? MB_ROLE_HEAD
                                                            : MB_ROLE_NONE;
        if (top != MB_ROLE_NONE)
            v_sub(wpos(sd, top), wpos(sd, MB_ROLE_CHEST), up);
        if (top == MB_ROLE_NONE || v_len(up) < 1e-4 * sd->leg)
            v_sub(wpos(sd, MB_ROLE_CHEST), wpos(sd, MB_ROLE_HIPS), up);
        v_sub(wpos(sd, MB_ROLE_UPPER_ARM_L), wpos(sd, MB_ROLE_UPPER_ARM_R), left);
    }
    return q_frame(up, left, out);
}

/* ---------- the plan: what drives each target joint ---------- */

typedef struct plan {
    side src, tgt;
    double m[4];            /* source world -> target world */
    double fh0[4], fc0[4];  /* the source's rest frames of the hips and chest, mapped by M */
    double th0[4], tc0[4];  /* the target's */
    double scale;
    int nj;                 /* target joints */
    int *drv;               /* source joint driving each target joint, -1 */
    unsigned char *how;     /* mb_retarget_how */
    double (*a)[4];         /* rest alignment per target joint (unmapped: the parent's) */
    /* mapped: Ws0^-1 M^-1 A Wt0; spine blend: slerp(th0, tc0, t)^-1 Wt0 */
    double (*q)[4];
    double *blend_t;        /* spine blend: the hips -> chest fraction */
    int mover;              /* the joint carrying the root translation, -1 */
    int foot_ik;            /* the ankles go where the source's are (scaled) */
    mb_retarget_report rep;
} plan;

static void plan_free(plan *p)
{
    side_free(&p->src);
    side_free(&p->tgt);
    free(p->drv);
    free(p->how);
    free(p->a);
    free(p->q);
    free(p->blend_t);
}

/* The source joint that drives target joint j of role r (-1: none), and how. Spine joints
 * map one to one when both chains have as many joints. */
static int driver(const plan *p, int j, mb_role r, mb_retarget_how *how)
{
    *how = MB_RETARGET_UNMAPPED;
    if (r == MB_ROLE_NONE || mb_skeleton_is_end_site(p->tgt.s, j))
        return -1;
    if (r == MB_ROLE_SPINE) {
        int k = 0;
        while (p->tgt.spine[k] != j)
            ++k;
        if (p->src.spine_count == p->tgt.spine_count) {
            *how = MB_RETARGET_DIRECTION;
            return p->src.spine[k];
        }
        *how = MB_RETARGET_SPINE_BLEND;
        return p->src.roles->joint[MB_ROLE_HIPS];
    }
    int s = p->src.roles->joint[r];
    if (s >= 0)
        *how = r == MB_ROLE_HIPS || r == MB_ROLE_CHEST ? MB_RETARGET_FRAME : MB_RETARGET_DIRECTION;
    return s;
}

/* Rest alignment of target joint j (its A) from its parent's: frames for the hips and the
 * chest, the shortest arc between the two rest directions for the others. */
static mb_status align_joint(plan *p, int j, mb_role r, mb_error *err)
{
    mb_retarget_how how = p->how[j];
    int s = p->drv[j];
    double at[4], as[4], tmp[4];
    if (how == MB_RETARGET_FRAME) {
        if (!rest_frame(&p->tgt, r, at) || !rest_frame(&p->src, r, as))
            return mb_error_set_(err, MB_MISMATCH, !rest_frame(&p->tgt, r, at) ? p->tgt.name
                                 : p->src.name, "the %s has no rest frame (its up and left "
                                 "directions are parallel or of length 0)", mb_role_name(r));
        mb_qmul_d_(p->m, as, tmp);
        double atc[4];
        q_conj(at, atc);
        mb_qmul_d_(tmp, atc, p->a[j]);
        return MB_OK;
    }
    double dt[3], ds[3];
    int has_t = bone_dir(&p->tgt, j, r, dt), has_s;
    if (how == MB_RETARGET_SPINE_BLEND) {
        v_sub(wpos(&p->src, MB_ROLE_CHEST), wpos(&p->src, MB_ROLE_HIPS), ds);
        has_s = v_unit(ds);
    } else {
        has_s = bone_dir(&p->src, s, r, ds);
    }
    if (!has_t || !has_s) {
        if (how == MB_RETARGET_DIRECTION)
            p->how[j] = MB_RETARGET_FOLLOW;
        return MB_OK; /* keeps the parent's A */
    }
    double adt[3], mds[3], arc[4];
    mb_qrotate_d_(p->a[j], dt, adt);
    mb_qrotate_d_(p->m, ds, mds);
    q_arc(adt, mds, arc);
    if (r != MB_ROLE_NONE && r != MB_ROLE_SPINE && p->tgt.roles->joint[r] == j)
        p->rep.role[r].rest_angle = acos(fmax(-1.0, fmin(1.0, v_dot(adt, mds)))) * 57.29577951308232;
    memcpy(tmp, p->a[j], sizeof tmp);
    mb_qmul_d_(arc, tmp, p->a[j]);
    return MB_OK;
}

/* The per-joint constants of the per-frame rule (see q in plan). */
static void joint_constant(plan *p, int j)
{
    double awt[4], t1[4], t2[4], mc[4], s0c[4];
    mb_qmul_d_(p->a[j], p->tgt.w0.rot[j], awt);
    if (p->how[j] == MB_RETARGET_SPINE_BLEND) {
        int k = 0;
        while (p->tgt.spine[k] != j)
            ++k;
        p->blend_t[j] = (k + 1.0) / (p->tgt.spine_count + 1.0);
        double f0[4], f0c[4];
        q_slerp(p->th0, p->tc0, p->blend_t[j], f0);
        q_conj(f0, f0c);
        mb_qmul_d_(f0c, p->tgt.w0.rot[j], p->q[j]);
        return;
    }
    q_conj(p->m, mc);
    q_conj(p->src.w0.rot[p->drv[j]], s0c);
    mb_qmul_d_(mc, awt, t1);
    mb_qmul_d_(s0c, t1, t2);
    memcpy(p->q[j], t2, sizeof t2);
}

/* Drivers, alignments and constants of every target joint, parents first. */
static mb_status plan_joints(plan *p, mb_error *err)
{
    const int *parent = mb_skeleton_parents(p->tgt.s);
    for (int j = 0; j < p->nj; ++j) {
        mb_role r = (mb_role)p->tgt.roles->of_joint[j];
        mb_retarget_how how;
        p->drv[j] = driver(p, j, r, &how);
        p->how[j] = (unsigned char)how;
        if (parent[j] >= 0)
            memcpy(p->a[j], p->a[parent[j]], sizeof p->a[j]);
        else
            p->a[j][0] = p->a[j][1] = p->a[j][2] = 0.0, p->a[j][3] = 1.0;
        if (how == MB_RETARGET_UNMAPPED)
            continue;
        mb_status st = align_joint(p, j, r, err);
        if (st != MB_OK)
            return st;
        joint_constant(p, j);
        p->rep.mapped_joints++;
        if (r != MB_ROLE_SPINE || p->tgt.roles->joint[MB_ROLE_SPINE] == j) {
            p->rep.role[r].target_joint = j;
            p->rep.role[r].source_joint = p->src.roles->joint[r];
            p->rep.role[r].how = (mb_retarget_how)p->how[j];
        }
    }
    for (int j = 0; j < p->nj; ++j)
        if (p->how[j] == MB_RETARGET_UNMAPPED && !mb_skeleton_is_end_site(p->tgt.s, j))
            p->rep.unmapped_joints++;
    return MB_OK;
}

/* The hips, else the nearest ancestor with position channels; -1 when none has them. */
static int find_mover(const mb_skeleton *s, int hips)
{
    const int *parent = mb_skeleton_parents(s);
    for (int j = hips; j >= 0; j = parent[j])
        if (mb_skeleton_has_translation(s, j))
            return j;
    return -1;
}

/* The up axes: given, or analysed (the source from its clip, the target from to_clip). */
static mb_status resolve_up(side *sd, const mb_clip *c, mb_error *err)
{
    if (sd->up != MB_AXIS_DETECT)
        return MB_OK;
    if (!c)
        return mb_error_set_(err, MB_INVALID_ARG, sd->name, "the up axis is left to detect, "
                             "but there is no clip to detect it from (give the axis)");
    mb_analyze_desc ad = {0};
    ad.up_axis = MB_AXIS_DETECT;
    ad.left_foot = mb_skeleton_name(sd->s, sd->roles->joint[MB_ROLE_FOOT_L]);
    ad.right_foot = mb_skeleton_name(sd->s, sd->roles->joint[MB_ROLE_FOOT_R]);
    mb_motion_info info;
    mb_status st = mb_motion_analyze(sd->s, c, &ad, sd->name, &info, err);
    if (st == MB_OK)
        sd->up = info.up_axis;
    return st;
}

static mb_status plan_alloc(plan *p, mb_error *err)
{
    size_t n = (size_t)p->nj;
    p->drv = malloc(n * sizeof *p->drv);
    p->how = calloc(n, 1);
    p->a = malloc(n * sizeof *p->a);
    p->q = malloc(n * sizeof *p->q);
    p->blend_t = calloc(n, sizeof *p->blend_t);
    if (!p->drv || !p->how || !p->a || !p->q || !p->blend_t)
        return mb_error_set_(err, MB_NOMEM, p->tgt.name, "out of memory");
    return MB_OK;
}

/* Everything decided before the first frame. */
static mb_status plan_build(const mb_retarget_desc *d, plan *p, mb_error *err)
{
    mb_status st;
    if ((st = side_init(&d->from, "source", &p->src, err)) != MB_OK ||
        (st = side_init(&d->to, "target", &p->tgt, err)) != MB_OK)
        return st;
    if (mb_clip_joint_count(d->clip) != p->src.nj || mb_clip_frame_count(d->clip) < 1)
        return mb_error_set_(err, MB_INVALID_ARG, p->src.name, "the clip has %d joints and %d "
                             "frames for a skeleton of %d joints", mb_clip_joint_count(d->clip),
                             mb_clip_frame_count(d->clip), p->src.nj);
    if (d->to_clip && mb_clip_joint_count(d->to_clip) != p->tgt.nj)
        return mb_error_set_(err, MB_INVALID_ARG, p->tgt.name, "to_clip does not fit the "
                             "target skeleton");
    if ((st = mb_roles_require(p->src.roles, required_roles, MB_RETARGET_REQUIRED_COUNT,
                               p->src.name, err)) != MB_OK ||
        (st = mb_roles_require(p->tgt.roles, required_roles, MB_RETARGET_REQUIRED_COUNT,
                               p->tgt.name, err)) != MB_OK)
        return st;
    p->src.leg = leg_length(&p->src);
    p->tgt.leg = leg_length(&p->tgt);
    if (!(p->src.side_leg[0] > 0.0) || !(p->src.side_leg[1] > 0.0) ||
        !(p->tgt.side_leg[0] > 0.0) || !(p->tgt.side_leg[1] > 0.0))
        return mb_error_set_(err, MB_MISMATCH, p->src.side_leg[0] > 0.0 &&
                             p->src.side_leg[1] > 0.0 ? p->tgt.name : p->src.name,
                             "a leg has no length in the reference pose");
    if ((st = resolve_up(&p->src, d->clip, err)) != MB_OK ||
        (st = resolve_up(&p->tgt, d->to_clip, err)) != MB_OK)
        return st;
    double us[3] = {0, 0, 0}, ut[3] = {0, 0, 0};
    us[mb_axis_index(p->src.up)] = 1.0;
    ut[mb_axis_index(p->tgt.up)] = 1.0;
    q_arc(us, ut, p->m);
    p->nj = p->tgt.nj;
    p->scale = p->tgt.leg / p->src.leg;
    double fh[4], fc[4];
    if (!rest_frame(&p->src, MB_ROLE_HIPS, fh) || !rest_frame(&p->src, MB_ROLE_CHEST, fc) ||
        !rest_frame(&p->tgt, MB_ROLE_HIPS, p->th0) || !rest_frame(&p->tgt, MB_ROLE_CHEST, p->tc0))
        return mb_error_set_(err, MB_MISMATCH, !rest_frame(&p->src, MB_ROLE_HIPS, fh) ||
                             !rest_frame(&p->src, MB_ROLE_CHEST, fc) ? p->src.name : p->tgt.name,
                             "the hips or the chest have no rest frame (their up and left "
                             "directions are parallel or of length 0)");
    mb_qmul_d_(p->m, fh, p->fh0);
    mb_qmul_d_(p->m, fc, p->fc0);
    for (int r = 0; r < MB_ROLE_COUNT; ++r)
        p->rep.role[r] = (mb_retarget_role_report){p->tgt.roles->joint[r],
                                                   p->src.roles->joint[r],
                                                   MB_RETARGET_UNMAPPED, 0.0};
    if ((st = plan_alloc(p, err)) != MB_OK || (st = plan_joints(p, err)) != MB_OK)
        return st;
    p->mover = find_mover(p->tgt.s, p->tgt.roles->joint[MB_ROLE_HIPS]);
    p->foot_ik = d->feet == MB_RETARGET_FEET_IK;
    p->rep.target_spines = p->tgt.spine_count;
    p->rep.source_spines = p->src.spine_count;
    p->rep.scale = p->scale;
    p->rep.source_leg = p->src.leg;
    p->rep.target_leg = p->tgt.leg;
    p->rep.source_up = p->src.up;
    p->rep.target_up = p->tgt.up;
    p->rep.root_joint = p->mover;
    return MB_OK;
}

/* ---------- per frame ---------- */

typedef struct frame_buf {
    mb_xform *src_local;
    world_pose ws, wt;
    double (*lrot)[4];      /* target local rotations */
    double (*lpos)[3];      /* target local translations */
} frame_buf;

/* World change of source joint s since its reference, seen in the target's world. */
static void source_delta(const plan *p, const frame_buf *b, int s, double out[4])
{
    double t1[4], t2[4], mc[4], s0c[4];
    q_conj(p->m, mc);
    q_conj(p->src.w0.rot[s], s0c);
    mb_qmul_d_(b->ws.rot[s], s0c, t1);
    mb_qmul_d_(t1, mc, t2);
    mb_qmul_d_(p->m, t2, out);
}

/* Target world rotations and local transforms of one frame (root translation aside). */
static void target_rotations(const plan *p, frame_buf *b)
{
    const int *parent = mb_skeleton_parents(p->tgt.s);
    /* the body frames of the source's hips and chest now (their rest frames carried along):
     * comparable whatever each joint's axes, so a spine joint can take a share of each */
    double dh[4], dc[4], eh[4], ec[4];
    source_delta(p, b, p->src.roles->joint[MB_ROLE_HIPS], dh);
    source_delta(p, b, p->src.roles->joint[MB_ROLE_CHEST], dc);
    mb_qmul_d_(dh, p->fh0, eh);
    mb_qmul_d_(dc, p->fc0, ec);
    for (int j = 0; j < p->nj; ++j) {
        int pj = parent[j];
        double *w = b->wt.rot[j], tmp[4];
        const mb_xform *ref = &p->tgt.ref[j];
        if (p->how[j] == MB_RETARGET_UNMAPPED) {
            double lr[4] = {ref->rot[0], ref->rot[1], ref->rot[2], ref->rot[3]};
            double n = sqrt(mb_qdot_d_(lr, lr));
            for (int k = 0; k < 4; ++k)
                lr[k] = n > 0.0 ? lr[k] / n : (k == 3);
            if (mb_skeleton_is_end_site(p->tgt.s, j))
                lr[0] = lr[1] = lr[2] = 0.0, lr[3] = 1.0;
            if (pj >= 0)
                mb_qmul_d_(b->wt.rot[pj], lr, w);
            else
                memcpy(w, lr, sizeof lr);
        } else if (p->how[j] == MB_RETARGET_SPINE_BLEND) {
            q_slerp(eh, ec, p->blend_t[j], tmp);
            mb_qmul_d_(tmp, p->q[j], w);
        } else {
            mb_qmul_d_(p->m, b->ws.rot[p->drv[j]], tmp);
            mb_qmul_d_(tmp, p->q[j], w);
        }
        if (pj >= 0)
            mb_qconjmul_d_(b->wt.rot[pj], w, b->lrot[j]);
        else
            memcpy(b->lrot[j], w, sizeof tmp);
        for (int k = 0; k < 3; ++k)
            b->lpos[j][k] = ref->pos[k];
    }
}

/* World positions of the target from its world rotations and local translations. */
static void target_positions(const plan *p, frame_buf *b)
{
    const int *parent = mb_skeleton_parents(p->tgt.s);
    for (int j = 0; j < p->nj; ++j) {
        int pj = parent[j];
        if (pj < 0) {
            memcpy(b->wt.pos[j], b->lpos[j], sizeof b->wt.pos[j]);
            continue;
        }
        double rt[3];
        mb_qrotate_d_(b->wt.rot[pj], b->lpos[j], rt);
        for (int k = 0; k < 3; ++k)
            b->wt.pos[j][k] = b->wt.pos[pj][k] + rt[k];
    }
}

/* The mover's translation moved so that the hips land on the source's hips, mapped by M
 * and scaled; then the world positions of the target. */
static void target_root(const plan *p, frame_buf *b)
{
    const int *parent = mb_skeleton_parents(p->tgt.s);
    target_positions(p, b);
    if (p->mover < 0)
        return;
    double want[3], miss[3], fix[3], pc[4] = {0, 0, 0, 1};
    mb_qrotate_d_(p->m, b->ws.pos[p->src.roles->joint[MB_ROLE_HIPS]], want);
    for (int k = 0; k < 3; ++k)
        want[k] *= p->scale;
    v_sub(want, b->wt.pos[p->tgt.roles->joint[MB_ROLE_HIPS]], miss);
    /* the hips move rigidly with the mover's translation, turned by the mover's parent */
    if (parent[p->mover] >= 0)
        q_conj(b->wt.rot[parent[p->mover]], pc);
    mb_qrotate_d_(pc, miss, fix);
    for (int k = 0; k < 3; ++k)
        b->lpos[p->mover][k] += fix[k];
    target_positions(p, b);
}

/* Two-bone IK of one leg: the upper and lower leg turned (shortest arcs) so that the ankle
 * reaches `want`, the knee staying in the plane it bends in (the source's motion chose it).
 * A straight leg (no plane) or a target out of reach keeps what it has on that frame but
 * for the reach: the leg stretches toward it as far as it can. */
static void leg_ik(const plan *p, frame_buf *b, int lr, const double want[3])
{
    int uj = p->tgt.roles->joint[MB_ROLE_UPPER_LEG_L + lr];
    int kj = p->tgt.roles->joint[MB_ROLE_LOWER_LEG_L + lr];
    int aj = p->tgt.roles->joint[MB_ROLE_FOOT_L + lr];
    const double *h = b->wt.pos[uj], *k = b->wt.pos[kj], *a = b->wt.pos[aj];
    double hk[3], ka[3], ha[3], ht[3], pole[3];
    v_sub(k, h, hk);
    v_sub(a, k, ka);
    v_sub(a, h, ha);
    v_sub(want, h, ht);
    double l1 = v_len(hk), l2 = v_len(ka), d = v_len(ht);
    if (!(l1 > 0.0) || !(l2 > 0.0) || !v_unit(ha) || !v_unit(ht))
        return;
    double along = v_dot(hk, ha);
    for (int i = 0; i < 3; ++i)
        pole[i] = hk[i] - along * ha[i];
    double pt = v_dot(pole, ht);
    for (int i = 0; i < 3; ++i)
        pole[i] -= pt * ht[i];
    if (!(v_len(pole) > 1e-6 * l1) || !v_unit(pole))
        return;
    d = fmin(fmax(d, fabs(l1 - l2) * 1.0001), (l1 + l2) * 0.9999);
    double x = (l1 * l1 - l2 * l2 + d * d) / (2.0 * d), y = sqrt(fmax(0.0, l1 * l1 - x * x));
    double k2[3], hk2[3], ka2[3], ka_turned[3], r1[4], r2[4], tmp[4];
    for (int i = 0; i < 3; ++i) {
        k2[i] = h[i] + x * ht[i] + y * pole[i];
        hk2[i] = k2[i] - h[i];
        ka2[i] = h[i] + d * ht[i] - k2[i];
    }
    v_unit(hk);
    v_unit(hk2);
    q_arc(hk, hk2, r1);
    mb_qrotate_d_(r1, ka, ka_turned);
    v_unit(ka_turned);
    v_unit(ka2);
    q_arc(ka_turned, ka2, r2);
    memcpy(tmp, b->wt.rot[uj], sizeof tmp);
    mb_qmul_d_(r1, tmp, b->wt.rot[uj]);
    mb_qmul_d_(r1, b->wt.rot[kj], tmp);
    mb_qmul_d_(r2, tmp, b->wt.rot[kj]);
}

/* Both ankles at the source's reach from the hip socket, mapped by M and scaled by that
 * side's leg ratio (so a straight leg stays straight); then the local rotations again
 * (unmapped joints keep their reference local rotation). */
static void feet_ik(const plan *p, frame_buf *b)
{
    const int *parent = mb_skeleton_parents(p->tgt.s);
    for (int lr = 0; lr < 2; ++lr) {
        double reach[3], want[3];
        v_sub(b->ws.pos[p->src.roles->joint[MB_ROLE_FOOT_L + lr]],
              b->ws.pos[p->src.roles->joint[MB_ROLE_UPPER_LEG_L + lr]], reach);
        mb_qrotate_d_(p->m, reach, want);
        const double *hip = b->wt.pos[p->tgt.roles->joint[MB_ROLE_UPPER_LEG_L + lr]];
        double k = p->tgt.side_leg[lr] / p->src.side_leg[lr];
        for (int i = 0; i < 3; ++i)
            want[i] = hip[i] + want[i] * k;
        leg_ik(p, b, lr, want);
    }
    for (int j = 0; j < p->nj; ++j) {
        int pj = parent[j];
        if (pj < 0)
            continue;
        if (p->how[j] == MB_RETARGET_UNMAPPED)
            mb_qmul_d_(b->wt.rot[pj], b->lrot[j], b->wt.rot[j]);
        else
            mb_qconjmul_d_(b->wt.rot[pj], b->wt.rot[j], b->lrot[j]);
    }
}

static void frame_buf_free(frame_buf *b)
{
    free(b->src_local);
    free(b->ws.rot);
    free(b->ws.pos);
    free(b->wt.rot);
    free(b->wt.pos);
    free(b->lrot);
    free(b->lpos);
}

static int frame_buf_alloc(frame_buf *b, size_t ns, size_t nt)
{
    b->src_local = malloc(ns * sizeof *b->src_local);
    b->ws.rot = malloc(ns * sizeof *b->ws.rot);
    b->ws.pos = malloc(ns * sizeof *b->ws.pos);
    b->wt.rot = malloc(nt * sizeof *b->wt.rot);
    b->wt.pos = malloc(nt * sizeof *b->wt.pos);
    b->lrot = malloc(nt * sizeof *b->lrot);
    b->lpos = malloc(nt * sizeof *b->lpos);
    return b->src_local && b->ws.rot && b->ws.pos && b->wt.rot && b->wt.pos && b->lrot &&
           b->lpos;
}

/* Every frame into rot ([frame][joint][4]) and tr ([frame][tracked][3]). */
static mb_status run_frames(const plan *p, const mb_clip *c, float *rot, float *tr,
                            const int *tracked, int nt, mb_error *err)
{
    frame_buf b;
    memset(&b, 0, sizeof b);
    mb_status st = MB_OK;
    if (!frame_buf_alloc(&b, (size_t)p->src.nj, (size_t)p->nj))
        st = mb_error_set_(err, MB_NOMEM, p->tgt.name, "out of memory");
    int nf = mb_clip_frame_count(c);
    for (int f = 0; f < nf && st == MB_OK; ++f) {
        st = mb_clip_frame_pose(p->src.s, c, f, (mb_pose){b.src_local, p->src.nj});
        if (st != MB_OK) {
            mb_error_set_(err, st, p->src.name, "cannot read frame %d", f);
            break;
        }
        fk_d(p->src.s, b.src_local, &b.ws);
        target_rotations(p, &b);
        target_root(p, &b);
        if (p->foot_ik && p->mover >= 0)
            feet_ik(p, &b);
        for (int j = 0; j < p->nj; ++j)
            for (int k = 0; k < 4; ++k)
                rot[((size_t)f * (size_t)p->nj + (size_t)j) * 4 + (size_t)k] = (float)b.lrot[j][k];
        for (int t = 0; t < nt; ++t)
            for (int k = 0; k < 3; ++k)
                tr[((size_t)f * (size_t)nt + (size_t)t) * 3 + (size_t)k] =
                    (float)b.lpos[tracked[t]][k];
    }
    frame_buf_free(&b);
    return st;
}

mb_status mb_retarget(const mb_retarget_desc *d, mb_clip **out, mb_retarget_report *report,
                      mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    if (!d || !out || !d->clip)
        return mb_error_set_(err, MB_INVALID_ARG, "retarget", "NULL desc, clip or output");
    plan p;
    memset(&p, 0, sizeof p);
    mb_status st = plan_build(d, &p, err);
    float *rot = NULL, *tr = NULL;
    int nt = 0;
    const int *tracked = NULL;
    if (st == MB_OK) {
        tracked = mb_skeleton_translation_joints(p.tgt.s, &nt);
        size_t nf = (size_t)mb_clip_frame_count(d->clip);
        rot = malloc(nf * (size_t)p.nj * 4 * sizeof *rot);
        tr = malloc((nf * (size_t)nt * 3 + 1) * sizeof *tr);
        if (!rot || !tr)
            st = mb_error_set_(err, MB_NOMEM, p.tgt.name, "out of memory");
    }
    if (st == MB_OK)
        st = run_frames(&p, d->clip, rot, tr, tracked, nt, err);
    if (st == MB_OK) {
        mb_clip_desc cd = {0};
        cd.joint_count = p.nj;
        cd.frame_count = mb_clip_frame_count(d->clip);
        cd.frame_time = mb_clip_frame_time(d->clip);
        cd.rotations = rot;
        cd.translation_joints = nt > 0 ? tracked : NULL;
        cd.translation_count = nt;
        cd.translations = nt > 0 ? tr : NULL;
        cd.allocator = d->allocator;
        st = mb_clip_create(&cd, out, err);
    }
    if (st == MB_OK && report)
        *report = p.rep;
    free(rot);
    free(tr);
    plan_free(&p);
    return st;
}

/* ---------- the report as text ---------- */

static const char *how_name(mb_retarget_how h)
{
    static const char *names[] = {"unmapped (reference pose kept)", "frame (up and left)",
                                  "direction", "follows its parent (no bone direction)",
                                  "spine blend (hips to chest)"};
    return (unsigned)h < 5 ? names[h] : "?";
}

int mb_retarget_report_format(const mb_retarget_report *r, const mb_skeleton *from,
                              const mb_skeleton *to, char *buf, size_t size)
{
    size_t used = 0;
    int total = 0;
#define REPORT_PUT(...)                                                                        \
    do {                                                                                       \
        int n_ = snprintf(buf ? buf + used : NULL, buf && used < size ? size - used : 0,       \
                          __VA_ARGS__);                                                        \
        if (n_ > 0) {                                                                          \
            total += n_;                                                                       \
            used = used + (size_t)n_ < size ? used + (size_t)n_ : size;                        \
        }                                                                                      \
    } while (0)
    if (!r || !from || !to)
        return 0;
    for (int k = 1; k < MB_ROLE_COUNT; ++k) {
        const mb_retarget_role_report *e = &r->role[k];
        if (e->target_joint < 0 && e->source_joint < 0)
            continue;
        REPORT_PUT("%-12s %s -> %s: %s", mb_role_name((mb_role)k),
                   e->source_joint >= 0 ? mb_skeleton_name(from, e->source_joint) : "(none)",
                   e->target_joint >= 0 ? mb_skeleton_name(to, e->target_joint) : "(none)",
                   e->target_joint >= 0 ? how_name(e->how) : "not in the target");
        if (e->how == MB_RETARGET_DIRECTION)
            REPORT_PUT(", rest poses %.1f deg apart", e->rest_angle);
        REPORT_PUT("\n");
    }
    REPORT_PUT("spine: %d source joint%s, %d target joint%s; %d target joints mapped, %d "
               "keep%s their reference pose\n", r->source_spines, r->source_spines == 1 ? "" : "s",
               r->target_spines, r->target_spines == 1 ? "" : "s", r->mapped_joints,
               r->unmapped_joints, r->unmapped_joints == 1 ? "s" : "");
    REPORT_PUT("legs: %g -> %g, root motion scaled by %g; up %c -> %c; root motion on %s\n",
               r->source_leg, r->target_leg, r->scale, "?XYZ"[r->source_up],
               "?XYZ"[r->target_up],
               r->root_joint >= 0 ? mb_skeleton_name(to, r->root_joint) : "(none: dropped)");
#undef REPORT_PUT
    if (buf && size > 0 && used >= size)
        buf[size - 1] = '\0';
    return total;
}
