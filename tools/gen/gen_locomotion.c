/* mblend_gen: procedural walk and run clips on one humanoid skeleton.
 *
 *   mblend_gen [--stats] OUTDIR      writes OUTDIR/walk.bvh and OUTDIR/run.bvh
 *
 * Everything is a fixed function of time (no random numbers), so the output is the same
 * on every run. Y is up, lengths are centimetres, the character faces and travels along +Z,
 * its left side is +X. 30 frames per second; each clip holds exactly 4 gait cycles, so it
 * loops (frame N would be frame 0 moved forward by 4 strides).
 *
 * How the legs move: each foot's ball (the ToeBase joint, the point that stays on the
 * ground longest) follows a planned path. Contact: the foot lands flat at a point fixed by
 * where the hips will be, stays flat, then the heel lifts (the foot pivots about the fixed
 * ball, toes stay flat on the ground) until toe-off. Swing: the ball first rises almost
 * straight up, travels forward on an arc to the next landing point and comes down almost
 * straight, with the foot flattening on the way. The ankle target follows from the ball and
 * the foot's pitch; the hip and knee come from analytic two-bone IK with the knee pointing
 * forward. The heel lifts earlier than planned when the hips get too far ahead for the leg
 * to reach (a smooth maximum), so the ball never slides; early in the swing the ball lifts
 * higher where the leg could not reach it otherwise.
 * Upper body: the pelvis bobs (walk: high at mid-stance, run: low at mid-stance), sways
 * over the stance foot, yaws with the swinging leg and drops on the swing side; the spine
 * counter-rotates so the shoulders turn against the pelvis; the neck and head hold the
 * gaze level and forward; the arms swing opposite to the legs with the elbows bending more
 * on the forward swing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mblend/mblend.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)
#define FPS 30.0
#define CYCLES 4

/* ---------------------------------------------------------------- small double math */

typedef struct v3 { double x, y, z; } v3;
typedef struct qd { double x, y, z, w; } qd; /* unit quaternion, x y z w */

static v3 v3_make(double x, double y, double z) { v3 r = {x, y, z}; return r; }
static v3 v3_add(v3 a, v3 b) { return v3_make(a.x + b.x, a.y + b.y, a.z + b.z); }
static v3 v3_sub(v3 a, v3 b) { return v3_make(a.x - b.x, a.y - b.y, a.z - b.z); }
static v3 v3_scale(v3 a, double s) { return v3_make(a.x * s, a.y * s, a.z * s); }
static double v3_dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double v3_len(v3 a) { return sqrt(v3_dot(a, a)); }
static v3 v3_norm(v3 a) { return v3_scale(a, 1.0 / v3_len(a)); }
static v3 v3_cross(v3 a, v3 b)
{
    return v3_make(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static qd q_ident(void) { qd q = {0, 0, 0, 1}; return q; }
static qd q_mul(qd a, qd b)
{
    qd r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
static qd q_conj(qd q) { qd r = {-q.x, -q.y, -q.z, q.w}; return r; }
static qd q_axis(v3 axis, double angle)
{
    double s = sin(0.5 * angle);
    qd q = {axis.x * s, axis.y * s, axis.z * s, cos(0.5 * angle)};
    return q;
}
static qd q_x(double a) { return q_axis(v3_make(1, 0, 0), a); }
static qd q_y(double a) { return q_axis(v3_make(0, 1, 0), a); }
static qd q_z(double a) { return q_axis(v3_make(0, 0, 1), a); }
/* Heading first, then pitch, then roll: R = Ry(yaw) Rx(pitch) Rz(roll). */
static qd q_ypr(double yaw, double pitch, double roll)
{
    return q_mul(q_y(yaw), q_mul(q_x(pitch), q_z(roll)));
}
static v3 q_rot(qd q, v3 v)
{
    v3 u = v3_make(q.x, q.y, q.z);
    v3 t = v3_scale(v3_cross(u, v), 2.0);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}
/* The rotation whose matrix has columns cx, cy, cz (orthonormal, right-handed). */
static qd q_from_basis(v3 cx, v3 cy, v3 cz)
{
    double m00 = cx.x, m10 = cx.y, m20 = cx.z;
    double m01 = cy.x, m11 = cy.y, m21 = cy.z;
    double m02 = cz.x, m12 = cz.y, m22 = cz.z;
    double tr = m00 + m11 + m22;
    qd q;
    if (tr > 0) {
        double s = 2.0 * sqrt(tr + 1.0);
        q.w = 0.25 * s;
        q.x = (m21 - m12) / s;
        q.y = (m02 - m20) / s;
        q.z = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = 2.0 * sqrt(1.0 + m00 - m11 - m22);
        q.w = (m21 - m12) / s;
        q.x = 0.25 * s;
        q.y = (m01 + m10) / s;
        q.z = (m02 + m20) / s;
    } else if (m11 > m22) {
        double s = 2.0 * sqrt(1.0 + m11 - m00 - m22);
        q.w = (m02 - m20) / s;
        q.x = (m01 + m10) / s;
        q.y = 0.25 * s;
        q.z = (m12 + m21) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + m22 - m00 - m11);
        q.w = (m10 - m01) / s;
        q.x = (m02 + m20) / s;
        q.y = (m12 + m21) / s;
        q.z = 0.25 * s;
    }
    double n = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    q.x /= n, q.y /= n, q.z /= n, q.w /= n;
    return q;
}

static double clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }
static double smoothstep(double x) { x = clamp01(x); return x * x * (3 - 2 * x); }
static double smootherstep(double x) { x = clamp01(x); return x * x * x * (x * (6 * x - 15) + 10); }
/* A C1 soft max(0, x): exactly 0 below -eps, exactly x above eps, a parabola between. */
static double soft_pos(double x, double eps)
{
    if (x <= -eps)
        return 0.0;
    if (x >= eps)
        return x;
    return (x + eps) * (x + eps) / (4.0 * eps);
}
/* A C1 soft max(a, b) that equals max(a, b) exactly when they differ by more than eps. */
static double smax(double a, double b, double eps) { return a + soft_pos(b - a, eps); }
static double frac(double x) { return x - floor(x); }

/* ---------------------------------------------------------------- the skeleton */

enum {
    J_HIPS, J_LUPLEG, J_LLEG, J_LFOOT, J_LTOE, J_LTOE_END,
    J_RUPLEG, J_RLEG, J_RFOOT, J_RTOE, J_RTOE_END,
    J_SPINE, J_SPINE1, J_SPINE2, J_NECK, J_HEAD, J_HEAD_END,
    J_LSHOULDER, J_LARM, J_LFOREARM, J_LHAND, J_LHAND_END,
    J_RSHOULDER, J_RARM, J_RFOREARM, J_RHAND, J_RHAND_END,
    J_COUNT
};

/* Rest pose: a T-pose standing on the ground (y = 0 under the feet), facing +Z. Joints in
 * depth-first order, as a BVH file lists them. */
static const struct {
    const char *name;
    int parent;
    double off[3];
    int end_site;
} bones[J_COUNT] = {
    {"Hips", -1, {0, 95, 0}, 0},
    {"LeftUpLeg", J_HIPS, {9, -3, 0}, 0},
    {"LeftLeg", J_LUPLEG, {0, -42, 0}, 0},
    {"LeftFoot", J_LLEG, {0, -42, 0}, 0},
    {"LeftToeBase", J_LFOOT, {0, -7, 13}, 0},
    {"LeftToeBase_End", J_LTOE, {0, 0, 6}, 1},
    {"RightUpLeg", J_HIPS, {-9, -3, 0}, 0},
    {"RightLeg", J_RUPLEG, {0, -42, 0}, 0},
    {"RightFoot", J_RLEG, {0, -42, 0}, 0},
    {"RightToeBase", J_RFOOT, {0, -7, 13}, 0},
    {"RightToeBase_End", J_RTOE, {0, 0, 6}, 1},
    {"Spine", J_HIPS, {0, 10, 0}, 0},
    {"Spine1", J_SPINE, {0, 12, 0}, 0},
    {"Spine2", J_SPINE1, {0, 12, 0}, 0},
    {"Neck", J_SPINE2, {0, 14, 0}, 0},
    {"Head", J_NECK, {0, 10, 0}, 0},
    {"Head_End", J_HEAD, {0, 17, 0}, 1},
    {"LeftShoulder", J_SPINE2, {3, 12, 0}, 0},
    {"LeftArm", J_LSHOULDER, {14, 0, 0}, 0},
    {"LeftForeArm", J_LARM, {28, 0, 0}, 0},
    {"LeftHand", J_LFOREARM, {26, 0, 0}, 0},
    {"LeftHand_End", J_LHAND, {18, 0, 0}, 1},
    {"RightShoulder", J_SPINE2, {-3, 12, 0}, 0},
    {"RightArm", J_RSHOULDER, {-14, 0, 0}, 0},
    {"RightForeArm", J_RARM, {-28, 0, 0}, 0},
    {"RightHand", J_RFOREARM, {-26, 0, 0}, 0},
    {"RightHand_End", J_RHAND, {-18, 0, 0}, 1},
};

#define THIGH 42.0
#define SHIN 42.0
#define BALL_Y 1.0 /* height of the ball (ToeBase) above the ground with the foot flat */

static v3 bone_off(int j) { return v3_make(bones[j].off[0], bones[j].off[1], bones[j].off[2]); }

static mb_status make_skeleton(mb_skeleton **out)
{
    mb_joint_desc jd[J_COUNT];
    memset(jd, 0, sizeof jd);
    for (int j = 0; j < J_COUNT; ++j) {
        jd[j].name = bones[j].name;
        jd[j].parent = bones[j].parent;
        for (int k = 0; k < 3; ++k)
            jd[j].offset[k] = (float)bones[j].off[k];
        jd[j].end_site = bones[j].end_site;
        if (bones[j].end_site)
            continue;
        int n = 0;
        if (j == J_HIPS) {
            jd[j].channels[n++] = MB_CH_XPOS;
            jd[j].channels[n++] = MB_CH_YPOS;
            jd[j].channels[n++] = MB_CH_ZPOS;
        }
        jd[j].channels[n++] = MB_CH_ZROT;
        jd[j].channels[n++] = MB_CH_XROT;
        jd[j].channels[n++] = MB_CH_YROT;
        jd[j].channel_count = n;
    }
    mb_skeleton_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.joints = jd;
    sd.joint_count = J_COUNT;
    return mb_skeleton_create(&sd, out, NULL);
}

/* ---------------------------------------------------------------- gaits */

typedef struct gait {
    const char *name;
    double speed;        /* cm/s, mean forward speed of the root */
    double period;       /* s, one gait cycle (two steps) */
    double duty;         /* fraction of the cycle a foot's ball is on the ground */
    double flat_end;     /* fraction of the cycle at which the heel starts to lift */
    double land_ahead;   /* cm, ankle ahead of the root when the foot lands */
    double heel_lift;    /* rad, planned foot pitch at toe-off */
    double swing_height; /* cm, ball lift at mid swing */
    double step_width;   /* cm, lateral distance of a foot's ball from the midline */
    double toe_out;      /* rad */
    double hip_height;   /* cm, mean root height */
    double bob;          /* cm; > 0: highest at mid-stance (walk), < 0: lowest there (run) */
    double surge;        /* cm, forward speed fluctuation of the root (twice per cycle) */
    double sway;         /* cm, lateral root shift over the stance foot */
    double lean;         /* rad, forward pelvis tilt */
    double spine_lean;   /* rad, extra forward lean spread over the spine */
    double pelvis_yaw;   /* rad, amplitude */
    double pelvis_roll;  /* rad, amplitude */
    double counter;      /* shoulder yaw against the pelvis, as a fraction of the pelvis yaw */
    double arm_swing;    /* rad, shoulder flexion amplitude */
    double arm_hang;     /* rad, arm abduction from the T-pose down toward the body */
    double elbow_base;   /* rad */
    double elbow_swing;  /* rad, extra bend at the forward extreme */
} gait;

static const gait WALK = {
    .name = "walk", .speed = 140.0, .period = 1.1, .duty = 0.56, .flat_end = 0.30,
    .land_ahead = 24.0, .heel_lift = 40 * DEG, .swing_height = 8.0, .step_width = 10.0,
    .toe_out = 5 * DEG, .hip_height = 91.0, .bob = 2.5, .surge = 0.6, .sway = 2.5,
    .lean = 3 * DEG, .spine_lean = -1 * DEG, .pelvis_yaw = 5 * DEG, .pelvis_roll = 3 * DEG,
    .counter = 0.8, .arm_swing = 18 * DEG, .arm_hang = 78 * DEG, .elbow_base = 12 * DEG,
    .elbow_swing = 18 * DEG,
};

static const gait RUN = {
    .name = "run", .speed = 350.0, .period = 0.7, .duty = 0.32, .flat_end = 0.14,
    .land_ahead = 22.0, .heel_lift = 45 * DEG, .swing_height = 18.0, .step_width = 6.0,
    .toe_out = 3 * DEG, .hip_height = 89.0, .bob = -2.5, .surge = 1.0, .sway = 1.5,
    .lean = 7 * DEG, .spine_lean = 3 * DEG, .pelvis_yaw = 7 * DEG, .pelvis_roll = 3 * DEG,
    .counter = 1.0, .arm_swing = 28 * DEG, .arm_hang = 80 * DEG, .elbow_base = 75 * DEG,
    .elbow_swing = 10 * DEG,
};

/* Left-leg phase in [0, 1): 0 = left foot lands. The right leg runs half a cycle behind. */
static double phase(const gait *g, double t) { return frac(t / g->period); }

static v3 root_pos(const gait *g, double t)
{
    double u = t / g->period; /* not wrapped: z keeps growing */
    double mid = 0.5 * g->duty; /* middle of the left contact */
    double z = g->speed * t + g->surge * sin(4 * PI * (u - mid));
    double x = g->sway * sin(2 * PI * (u - mid + 0.25));
    double y = g->hip_height + g->bob * cos(4 * PI * (u - mid));
    return v3_make(x, y, z);
}

static qd pelvis_rot(const gait *g, double t)
{
    double u = phase(g, t), mid = 0.5 * g->duty;
    double yaw = -g->pelvis_yaw * cos(2 * PI * u); /* left hip forward as the left foot lands */
    double roll = g->pelvis_roll * sin(2 * PI * (u - mid + 0.25)); /* swing side drops */
    double pitch = g->lean + 0.25 * g->pelvis_roll * cos(4 * PI * (u - mid));
    return q_ypr(yaw, pitch, roll);
}

static v3 hip_joint(const gait *g, double t, int side) /* side 0 left, 1 right */
{
    int j = side ? J_RUPLEG : J_LUPLEG;
    return v3_add(root_pos(g, t), q_rot(pelvis_rot(g, t), bone_off(j)));
}

/* Foot orientation in the world for a pitch (positive: heel up, toes down). */
static qd foot_rot(const gait *g, int side, double pitch)
{
    return q_mul(q_y(side ? -g->toe_out : g->toe_out), q_x(pitch));
}

/* Ankle position for a ball position and foot pitch. */
static v3 ankle_from_ball(const gait *g, int side, v3 ball, double pitch)
{
    return v3_sub(ball, q_rot(foot_rot(g, side, pitch), bone_off(J_LTOE)));
}

#define REACH 0.995 /* fraction of the straight leg the IK may use */
#define MAX_PITCH (68 * DEG) /* steepest foot (heel up) the reach guard uses */

/* The foot pitch (heel lift) at which the hip at time t can just reach the ankle with
 * the ball at ball. Signed: a negative value (down to -30 deg, toes up) is slack, so the
 * result is continuous in t and a soft maximum with the planned pitch stays smooth. */
static double needed_pitch(const gait *g, double t, int side, v3 ball)
{
    v3 hip = hip_joint(g, t, side);
    double maxd = REACH * (THIGH + SHIN);
    /* Over this range the ankle comes monotonically closer to the hips as the heel rises. */
    double lo = -30 * DEG, hi = MAX_PITCH;
    if (v3_len(v3_sub(ankle_from_ball(g, side, ball, lo), hip)) <= maxd)
        return lo;
    for (int i = 0; i < 60; ++i) {
        double mid = 0.5 * (lo + hi);
        if (v3_len(v3_sub(ankle_from_ball(g, side, ball, mid), hip)) <= maxd)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* The ball height change (signed, -20..60 cm) at which the hip can just reach the ankle
 * with the foot at MAX_PITCH; negative values are slack. */
static double needed_lift(const gait *g, double t, int side, v3 ball)
{
    v3 hip = hip_joint(g, t, side);
    double maxd = REACH * (THIGH + SHIN);
    double lo = -20.0, hi = 60.0;
    v3 lowest = v3_add(ball, v3_make(0, lo, 0));
    if (v3_len(v3_sub(ankle_from_ball(g, side, lowest, MAX_PITCH), hip)) <= maxd)
        return lo;
    for (int i = 0; i < 60; ++i) {
        double mid = 0.5 * (lo + hi);
        v3 b = v3_add(ball, v3_make(0, mid, 0));
        if (v3_len(v3_sub(ankle_from_ball(g, side, b, MAX_PITCH), hip)) <= maxd)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Landing point of step k of one leg: the ball's ground position. */
static v3 landing(const gait *g, int side, double k)
{
    double t_land = (k + 0.5 * side) * g->period;
    double sign = side ? -1.0 : 1.0;
    v3 r = root_pos(g, t_land);
    v3 ball_rel = q_rot(foot_rot(g, side, 0.0), bone_off(J_LTOE));
    return v3_make(sign * g->step_width, BALL_Y, r.z + g->land_ahead + ball_rel.z);
}

/* Foot pitch while the ball is on the ground, u in [0, duty]: planned heel lift after
 * flat_end, raised smoothly where the leg could not reach otherwise. */
static double contact_pitch(const gait *g, double t, int side, v3 ball, double u)
{
    double plan = 0.0;
    if (u > g->flat_end)
        plan = g->heel_lift * smoothstep((u - g->flat_end) / (g->duty - g->flat_end));
    double need = needed_pitch(g, t, side, ball);
    return smax(plan, need, 4 * DEG);
}

typedef struct foot_state {
    v3 ball;
    double pitch; /* foot, rad, heel up */
    double toe;   /* ToeBase flex, rad, keeps the toes flat while the heel is up */
    int contact;
} foot_state;

static foot_state foot_at(const gait *g, double t, int side)
{
    double p = t / g->period - 0.5 * side;
    double k = floor(p), u = p - k;
    foot_state fs;
    v3 b0 = landing(g, side, k);
    if (u < g->duty) {
        fs.ball = b0;
        fs.pitch = contact_pitch(g, t, side, b0, u);
        fs.toe = -fs.pitch;
        fs.contact = 1;
        return fs;
    }
    /* Swing: from this step's ball position to the next landing. */
    double w = (u - g->duty) / (1.0 - g->duty);
    double t_off = (k + 0.5 * side + g->duty) * g->period;
    double p_off = contact_pitch(g, t_off, side, b0, g->duty);
    v3 b1 = landing(g, side, k + 1);
    const double a = 0.03; /* lift-off and set-down are nearly vertical */
    double s = smootherstep((w - a) / (1.0 - 2.0 * a));
    double lift = g->swing_height * sqrt(sin(PI * w));
    fs.ball = v3_add(v3_add(b0, v3_scale(v3_sub(b1, b0), s)), v3_make(0, lift, 0));
    /* Early in the swing the hips run away from the foot: where even the steepest foot
     * could not be reached, the ball lifts further (as a flexing knee would lift it). */
    double need_lift = needed_lift(g, t, side, fs.ball);
    fs.ball.y += soft_pos(need_lift, 1.0);
    fs.pitch = smax(p_off * (1.0 - smoothstep(w / 0.7)), needed_pitch(g, t, side, fs.ball),
                    4 * DEG);
    fs.toe = -p_off * (1.0 - smoothstep(w / 0.3));
    fs.contact = 0;
    return fs;
}

/* ---------------------------------------------------------------- one frame */

typedef struct diag {
    double max_reach;    /* largest hip-ankle distance / straight leg length */
    double max_miss;     /* cm, largest ankle target the IK could not reach */
    double min_knee;     /* rad, smallest knee flexion during contact */
} diag;

/* Two-bone IK: hip at h, ankle target a, knee bending toward pole. Writes the world
 * rotations of thigh and shin (rest direction -Y, knee hinge about the bones' X). */
static void leg_ik(v3 h, v3 a, v3 pole, qd *thigh, qd *shin, diag *dg, int contact)
{
    v3 d = v3_sub(a, h);
    double dist = v3_len(d);
    double maxd = (THIGH + SHIN) * 0.99999;
    if (dist / (THIGH + SHIN) > dg->max_reach)
        dg->max_reach = dist / (THIGH + SHIN);
    if (dist > maxd) {
        if (dist - maxd > dg->max_miss)
            dg->max_miss = dist - maxd;
        dist = maxd;
    }
    v3 u = v3_norm(d);
    v3 w = v3_norm(v3_sub(pole, v3_scale(u, v3_dot(pole, u))));
    double ca = (THIGH * THIGH + dist * dist - SHIN * SHIN) / (2 * THIGH * dist);
    double sa = sqrt(fmax(0.0, 1.0 - ca * ca));
    v3 knee = v3_add(h, v3_scale(v3_add(v3_scale(u, ca), v3_scale(w, sa)), THIGH));
    v3 ankle = v3_add(h, v3_scale(u, dist));
    v3 n = v3_norm(v3_cross(v3_scale(u, -1.0), w)); /* hinge axis: the bones' local X */
    v3 b1 = v3_norm(v3_sub(knee, h)), b2 = v3_norm(v3_sub(ankle, knee));
    v3 y1 = v3_scale(b1, -1.0), y2 = v3_scale(b2, -1.0);
    *thigh = q_from_basis(n, y1, v3_cross(n, y1));
    *shin = q_from_basis(n, y2, v3_cross(n, y2));
    double flex = acos(fmax(-1.0, fmin(1.0, v3_dot(b1, b2))));
    if (contact && flex < dg->min_knee)
        dg->min_knee = flex;
}

/* Local rotations (and the root translation) of every joint at time t. */
static void pose_at(const gait *g, double t, qd local[J_COUNT], v3 *root, diag *dg)
{
    for (int j = 0; j < J_COUNT; ++j)
        local[j] = q_ident();
    double u = phase(g, t);
    *root = root_pos(g, t);
    qd pelvis = pelvis_rot(g, t);
    local[J_HIPS] = pelvis;

    /* Legs. */
    for (int side = 0; side < 2; ++side) {
        int up = side ? J_RUPLEG : J_LUPLEG;
        foot_state fs = foot_at(g, t, side);
        qd fw = foot_rot(g, side, fs.pitch);
        v3 ankle = ankle_from_ball(g, side, fs.ball, fs.pitch);
        v3 hip = hip_joint(g, t, side);
        double yaw_pole = (side ? -g->toe_out : g->toe_out) - 0.5 * g->pelvis_yaw * cos(2 * PI * u);
        v3 pole = q_rot(q_y(yaw_pole), v3_make(0, 0, 1));
        qd thigh, shin;
        leg_ik(hip, ankle, pole, &thigh, &shin, dg, fs.contact);
        local[up] = q_mul(q_conj(pelvis), thigh);
        local[up + 1] = q_mul(q_conj(thigh), shin);
        local[up + 2] = q_mul(q_conj(shin), fw);
        local[up + 3] = q_x(fs.toe);
    }

    /* Spine: the shoulders turn against the pelvis; the upper body stays upright. */
    double mid = 0.5 * g->duty;
    double yaw = -g->pelvis_yaw * cos(2 * PI * u);
    double roll = g->pelvis_roll * sin(2 * PI * (u - mid + 0.25));
    double spine_yaw = -(1.0 + g->counter) * yaw / 3.0;
    for (int j = J_SPINE; j <= J_SPINE2; ++j)
        local[j] = q_ypr(spine_yaw, g->spine_lean / 3.0, -roll / 3.0);
    /* Neck and head bring the gaze back to straight ahead and level. */
    double total_pitch = g->lean + g->spine_lean;
    double head_yaw = g->counter * yaw / 2.0;
    local[J_NECK] = q_ypr(head_yaw, -0.5 * total_pitch, 0.0);
    local[J_HEAD] = q_ypr(head_yaw, -0.5 * total_pitch + 0.01 * sin(4 * PI * u), 0.0);

    /* Arms, relative to the chest: hang down from the T-pose, swing opposite to the legs
     * (left arm forward while the left leg is back), elbows bend more going forward. */
    for (int side = 0; side < 2; ++side) {
        double sign = side ? -1.0 : 1.0;
        int arm = side ? J_RARM : J_LARM;
        double swing = g->arm_swing * cos(2 * PI * (u - 0.04) + (side ? PI : 0.0));
        /* swing > 0: hand behind the body (rotation about +X takes -Y toward -Z). */
        double forward = 0.5 * (1.0 - swing / g->arm_swing); /* 0 back .. 1 front */
        double flex = g->elbow_base + g->elbow_swing * forward;
        qd hang = q_z(-sign * g->arm_hang);
        local[arm] = q_mul(q_x(swing), hang);
        local[arm + 1] = q_mul(q_conj(hang), q_mul(q_x(-flex), hang));
        local[arm + 2] = q_mul(q_conj(hang), q_mul(q_x(-0.15 - 0.1 * forward), hang));
        local[side ? J_RSHOULDER : J_LSHOULDER] = q_y(sign * 0.3 * yaw);
    }
}

/* ---------------------------------------------------------------- clip, stats, output */

/* The clip on skeleton s: rotations of every joint, translations of the joints with
 * position channels (the hips, carrying the root path). */
static mb_status make_clip(const gait *g, const mb_skeleton *s, mb_clip **out, diag *dg)
{
    int frames = (int)lround(CYCLES * g->period * FPS);
    size_t n = (size_t)frames * J_COUNT;
    int nt;
    const int *tracked = mb_skeleton_translation_joints(s, &nt);
    float *rot = malloc(n * 4 * sizeof *rot);
    float *tr = malloc(((size_t)frames * (size_t)nt * 3 + 1) * sizeof *tr);
    if (!rot || !tr) {
        free(rot);
        free(tr);
        return MB_NOMEM;
    }
    dg->max_reach = 0;
    dg->max_miss = 0;
    dg->min_knee = PI;
    for (int f = 0; f < frames; ++f) {
        qd local[J_COUNT];
        v3 root;
        pose_at(g, f / FPS, local, &root, dg);
        for (int j = 0; j < J_COUNT; ++j) {
            float *q = &rot[4 * ((size_t)f * J_COUNT + (size_t)j)];
            q[0] = (float)local[j].x;
            q[1] = (float)local[j].y;
            q[2] = (float)local[j].z;
            q[3] = (float)local[j].w;
        }
        for (int t = 0; t < nt; ++t) {
            int j = tracked[t];
            float *p = &tr[3 * ((size_t)f * (size_t)nt + (size_t)t)];
            v3 pos = j == J_HIPS ? root : bone_off(j);
            p[0] = (float)pos.x;
            p[1] = (float)pos.y;
            p[2] = (float)pos.z;
        }
    }
    mb_clip_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.joint_count = J_COUNT;
    cd.frame_count = frames;
    cd.frame_time = 1.0 / FPS;
    cd.rotations = rot;
    cd.translation_joints = tracked;
    cd.translation_count = nt;
    cd.translations = nt > 0 ? tr : NULL;
    mb_status st = mb_clip_create(&cd, out, NULL);
    free(rot);
    free(tr);
    return st;
}

/* Measures the written file the way tests/cli/test_gen.c does (FK through the library). */
static int print_stats(const char *path, const gait *g, const diag *dg)
{
    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    mb_error err;
    if (mb_bvh_read_file(path, NULL, &s, &c, &err) != MB_OK) {
        char buf[600];
        fprintf(stderr, "%s\n", mb_error_format(&err, buf, sizeof buf));
        return 1;
    }
    int nf = mb_clip_frame_count(c), nj = mb_skeleton_joint_count(s);
    double dt = mb_clip_frame_time(c);
    mb_xform pose[J_COUNT];
    float(*w)[16] = malloc((size_t)nf * J_COUNT * sizeof *w);
    if (!w || nj != J_COUNT) {
        free(w);
        mb_clip_destroy(c);
        mb_skeleton_destroy(s);
        return 1;
    }
    for (int f = 0; f < nf; ++f) {
        mb_pose p = {pose, J_COUNT};
        mb_clip_frame_pose(s, c, f, p);
        mb_fk(s, &p, w + (size_t)f * J_COUNT, J_COUNT);
    }
#define P(f, j, k) ((double)w[(size_t)(f) * J_COUNT + (size_t)(j)][12 + (k)])
    double speed = (P(nf - 1, 0, 2) - P(0, 0, 2)) / ((nf - 1) * dt);
    printf("%s: %d frames at %g fps (%.3f s), %d cycles of %.3f s; mean root speed %.1f cm/s\n",
           g->name, nf, 1.0 / dt, nf * dt, CYCLES, g->period, speed);
    printf("  IK: max hip-ankle distance %.3f of the straight leg, unreachable by %.3f cm, "
           "min knee flexion in contact %.1f deg\n",
           dg->max_reach, dg->max_miss, dg->min_knee / DEG);
    static const int feet[2][2] = {{J_LTOE, J_LFOOT}, {J_RTOE, J_RFOOT}};
    static const char *names[2][2] = {{"LeftToeBase", "LeftFoot"}, {"RightToeBase", "RightFoot"}};
    for (int side = 0; side < 2; ++side)
        for (int which = 0; which < 2; ++which) {
            int j = feet[side][which];
            double ymin = 1e9;
            for (int f = 0; f < nf; ++f)
                ymin = fmin(ymin, P(f, j, 1));
            double vmax = 0.0;
            int nstance = 0, onsets = 0, prev = 0;
            for (int f = 1; f + 1 < nf; ++f) {
                int st = P(f, j, 1) < ymin + 2.0;
                if (st && !prev)
                    ++onsets;
                prev = st;
                if (!st)
                    continue;
                ++nstance;
                double dx = P(f + 1, j, 0) - P(f - 1, j, 0), dz = P(f + 1, j, 2) - P(f - 1, j, 2);
                vmax = fmax(vmax, sqrt(dx * dx + dz * dz) / (2 * dt));
            }
            printf("  %-12s min height %.2f cm; %d of %d frames within 2 cm of it (%d contacts); "
                   "max horizontal speed there %.2f cm/s = %.1f%% of the root speed\n",
                   names[side][which], ymin, nstance, nf - 2, onsets, vmax, 100.0 * vmax / speed);
        }
#undef P
    free(w);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    return 0;
}

static int write_gait(const char *dir, const gait *g, const mb_skeleton *s, int stats)
{
    diag dg;
    mb_clip *c = NULL;
    mb_status st = make_clip(g, s, &c, &dg);
    if (st != MB_OK) {
        fprintf(stderr, "mblend_gen: cannot build the %s clip: %s\n", g->name, mb_status_str(st));
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bvh", dir, g->name);
    mb_bvh_write_desc wd;
    memset(&wd, 0, sizeof wd);
    wd.precision = 6; /* 1e-4 degree / 1e-3 cm: far below what anything here can see */
    mb_error err;
    memset(&err, 0, sizeof err);
    st = mb_bvh_write_file(path, s, c, &wd, &err);
    mb_clip_destroy(c);
    if (st != MB_OK) {
        char buf[600];
        fprintf(stderr, "%s\n", mb_error_format(&err, buf, sizeof buf));
        return 1;
    }
    if (dg.max_miss > 0.01)
        fprintf(stderr, "mblend_gen: warning: %s: a foot target was out of reach by %.3f cm\n",
                g->name, dg.max_miss);
    return stats ? print_stats(path, g, &dg) : 0;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mblend_gen [--stats] OUTDIR\n"
            "\n"
            "Writes OUTDIR/walk.bvh (1.4 m/s, 1.1 s cycle) and OUTDIR/run.bvh (3.5 m/s, 0.7 s\n"
            "cycle): one 22-joint humanoid (Y up, cm, facing and moving along +Z), 4 gait\n"
            "cycles each at 30 fps. The output is deterministic. --stats prints speeds and\n"
            "foot-contact measurements of the written files.\n");
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int stats = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--stats") == 0) {
            stats = 1;
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "mblend_gen: unexpected argument '%s'\n", argv[i]);
            usage(stderr);
            return 1;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        usage(stderr);
        return 1;
    }
    mb_skeleton *s = NULL;
    mb_status st = make_skeleton(&s);
    if (st != MB_OK) {
        fprintf(stderr, "mblend_gen: cannot build the skeleton: %s\n", mb_status_str(st));
        return 2;
    }
    int rc = write_gait(dir, &WALK, s, stats) || write_gait(dir, &RUN, s, stats) ? 2 : 0;
    mb_skeleton_destroy(s);
    return rc;
}
