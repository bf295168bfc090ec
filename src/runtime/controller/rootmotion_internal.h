/* Private root-motion helpers of the motion layer, shared by the clip blend, the
 * transitions and the controller: double-precision rotations, the heading (twist about
 * the up axis), root paths and their integration in heading frames.
 *
 * A root path sample is (x, y, z, heading): the root's world position and its heading
 * (radians, unwrapped so consecutive samples never jump by 2 pi). A step between two
 * samples is expressed in the heading frame of the first: the horizontal displacement
 * rotated by -heading, and the heading change. Integrating blended steps is how blends
 * and transitions travel without sliding, teleporting or turning on the spot. */
#ifndef MB_ROOTMOTION_INTERNAL_H
#define MB_ROOTMOTION_INTERNAL_H

#include <math.h>
#include <string.h>

#include "math/quat_internal.h"
#include "mblend/runtime/anim.h"

#define MB_RM_PI 3.14159265358979323846

/* The rotation by angle (radians) about the up axis (0, 1, 2 = X, Y, Z). */
static inline void mb_rm_yaw_quat(int up, double angle, double q[4])
{
    q[0] = q[1] = q[2] = 0.0;
    q[up] = sin(0.5 * angle);
    q[3] = cos(0.5 * angle);
}

/* Heading: the twist of a world rotation about the up axis (swing-twist split). */
static inline double mb_rm_heading(int up, const double q[4]) { return 2.0 * atan2(q[up], q[3]); }

/* Facing heading from the hip joints' world positions: the direction (left - right) x up
 * on the ground, as the yaw angle that turns the axis after up ((up + 1) % 3: +Z for Y
 * up) onto it. Unlike the root's twist, it does not depend on how the root joint's axes
 * are set up nor on the pelvis leaning (a root rolled 90 degrees at rest, as in the
 * Bandai files, turns lean into twist). */
static inline double mb_rm_facing(int up, const double left[3], const double right[3])
{
    int u = (up + 1) % 3, v = (up + 2) % 3;
    double d[3] = {left[0] - right[0], left[1] - right[1], left[2] - right[2]};
    /* f = d x e_up: f_u = d_v, f_v = -d_u (cyclic u, v, up) */
    return atan2(-d[u], d[v]);
}

/* The yaw angle of a rotation known to be about the up axis only (e.g. the difference of
 * two poses that differ by a heading): robust, unlike the twist of a general rotation. */
static inline double mb_rm_yaw_of(int up, const double q[4]) { return 2.0 * atan2(q[up], q[3]); }

/* a wrapped into [-pi, pi]. */
static inline double mb_rm_wrap(double a)
{
    while (a > MB_RM_PI)
        a -= 2 * MB_RM_PI;
    while (a < -MB_RM_PI)
        a += 2 * MB_RM_PI;
    return a;
}

/* World rotation and position of joint j from a local pose, walking only j's ancestors
 * (cheap for a root, which has few). */
static inline void mb_rm_chain_world(const int *parents, const mb_pose *p, int j, double q[4],
                                     double pos[3])
{
    int chain[MB_MAX_JOINTS], n = 0;
    for (int k = j; k >= 0; k = parents[k])
        chain[n++] = k;
    q[0] = q[1] = q[2] = 0.0;
    q[3] = 1.0;
    pos[0] = pos[1] = pos[2] = 0.0;
    for (int i = n - 1; i >= 0; --i) {
        const mb_xform *x = &p->joints[chain[i]];
        double t[3] = {x->pos[0], x->pos[1], x->pos[2]}, r[3];
        mb_qrotate_d_(q, t, r);
        for (int k = 0; k < 3; ++k)
            pos[k] += r[k];
        double lq[4] = {x->rot[0], x->rot[1], x->rot[2], x->rot[3]}, nq[4];
        mb_qmul_d_(q, lq, nq);
        memcpy(q, nq, sizeof nq);
    }
}

/* The heading of a pose: the facing from the hips (hip[0] >= 0, mb_motion_hips_), else the
 * twist of the root's world rotation root_q; the same definition in every layer, so that
 * blends, transitions and the controller do not depend on how the root's axes are set up
 * (a Z-up copy of a Y-up take blends to the same motion). */
static inline double mb_rm_pose_heading(int up, const int *parents, const mb_pose *p,
                                        const int hip[2], const double root_q[4])
{
    if (hip[0] < 0)
        return mb_rm_heading(up, root_q);
    double lq[4], lp[3], rq[4], rp[3];
    mb_rm_chain_world(parents, p, hip[0], lq, lp);
    mb_rm_chain_world(parents, p, hip[1], rq, rp);
    return mb_rm_facing(up, lp, rp);
}

/* The step from root sample a to root sample b (x, y, z, heading each), in a's heading
 * frame: out_local = yaw(-a.heading) * horizontal(b - a) (the up component is 0) and
 * *out_dpsi = b.heading - a.heading. */
static inline void mb_rm_local_step(int up, const double a[4], const double b[4],
                                    double out_local[3], double *out_dpsi)
{
    double dv[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, yq[4];
    dv[up] = 0.0;
    mb_rm_yaw_quat(up, -a[3], yq);
    mb_qrotate_d_(yq, dv, out_local);
    out_local[up] = 0.0;
    *out_dpsi = b[3] - a[3];
}

/* Integrates one step given in the heading frame: P += yaw(psi) * step (horizontal
 * components only; P's up component is left alone), then psi += dpsi. */
static inline void mb_rm_integrate(int up, double P[3], double *psi, const double step[3],
                                   double dpsi)
{
    double yq[4], wv[3];
    mb_rm_yaw_quat(up, *psi, yq);
    mb_qrotate_d_(yq, step, wv);
    for (int c = 0; c < 3; ++c)
        if (c != up)
            P[c] += wv[c];
    *psi += dpsi;
}

/* Converts a root world transform (wq, wp) back to the root's local transform under its
 * ancestors, whose world transform is (pq, pp): local = parent_world^-1 * world. */
static inline void mb_rm_world_to_local(const double pq[4], const double pp[3], const double wq[4],
                                        const double wp[3], float out_rot[4], float out_pos[3])
{
    double pinv[4] = {-pq[0], -pq[1], -pq[2], pq[3]}, lq[4], dv[3], lp[3];
    mb_qmul_d_(pinv, wq, lq);
    for (int c = 0; c < 3; ++c)
        dv[c] = wp[c] - pp[c];
    mb_qrotate_d_(pinv, dv, lp);
    for (int c = 0; c < 4; ++c)
        out_rot[c] = (float)lq[c];
    for (int c = 0; c < 3; ++c)
        out_pos[c] = (float)lp[c];
}

/* In a multi-ROOT skeleton (node 0 a roots group, see mb_joint_desc): the ROOT, a child of
 * the group, that holds joint j. */
static inline int mb_rm_actor_top(const int *parents, int j)
{
    while (j > 0 && parents[j] > 0)
        j = parents[j];
    return j;
}

/* The ROOTs of a multi-ROOT skeleton other than the one that holds joint root: other actors
 * and props. They must move with the root when a pose is put in place (from = the root's
 * world position, to = 0) or placed back in the world (from = 0, to = the path position),
 * or they slide and jump where clips are blended or joined. Applies
 * X -> r (X - from) + to, horizontal components of from and to only, to each one's
 * transform (their parent, the group, is the identity, so local is world). Nothing for
 * other skeletons. */
static inline void mb_rm_map_other_roots(const mb_skeleton *s, int root, mb_xform *pose, int up,
                                         const double r[4], const double from[3],
                                         const double to[3])
{
    if (!mb_skeleton_is_roots_group(s, 0))
        return;
    double f[3] = {from[0], from[1], from[2]}, rf[3], t[3];
    f[up] = 0.0;
    mb_qrotate_d_(r, f, rf);
    for (int c = 0; c < 3; ++c)
        t[c] = (c == up ? 0.0 : to[c]) - rf[c];
    const int *parents = mb_skeleton_parents(s);
    int top = mb_rm_actor_top(parents, root);
    for (int j = 1; j < mb_skeleton_joint_count(s); ++j) {
        if (parents[j] != 0 || j == top)
            continue;
        mb_xform *x = &pose[j];
        double q[4] = {x->rot[0], x->rot[1], x->rot[2], x->rot[3]}, nq[4];
        double p[3] = {x->pos[0], x->pos[1], x->pos[2]}, np[3];
        mb_qmul_d_(r, q, nq);
        mb_qrotate_d_(r, p, np);
        for (int c = 0; c < 4; ++c)
            x->rot[c] = (float)nq[c];
        for (int c = 0; c < 3; ++c)
            x->pos[c] = (float)(np[c] + t[c]);
    }
}

#endif
