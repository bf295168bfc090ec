/* Mirroring a clip left to right (offline/mirror.h). All geometry in double; the clip's
 * floats are read once and written once.
 *
 * M is the reflection across the plane (normal n through point o); joint k takes the
 * motion of its pair j. With R the world rotations of a reference pose whose left and
 * right mirror each other (a T-pose or bind pose) across its own plane M_ref (through its
 * left-right axis; M itself unless the plane comes from the clip), k's world rotation is
 *     W'_k = M (W_j R_j^-1) M_ref R_k Y_k = [M (W_j R_j^-1) M] [M M_ref] R_k Y_k:
 * the pair's rotation away from its reference, reflected (M Q M is a rotation: for
 * q = (v, w) it is (2 (n.v) n - v, w)), applied to k's reference turned about up by
 * M M_ref. Y_k corrects a reference whose sides are not exact mirrors: the rotation
 * taking k's child bones (reference local translations) onto R_k^-1 M_ref R_j times the
 * pair's child bones, so that the bones of k point where j's reflected bones point. In
 * world terms Z_k = R_k Y_k R_k^-1 takes k's reference bones onto M_ref times j's; the
 * same rule for j gives Z_j = M_ref Z_k^-1 M_ref (a rotation defined by directions alone
 * commutes with the reflection), which makes mirroring twice the identity. A tracked
 * joint also gets the reflected world position of its pair, o + M (P_j - o). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "math/quat_internal.h"
#include "mblend/offline/clip_build.h"
#include "mblend/offline/mirror.h"
#include "mblend/offline/motion.h"

typedef struct mirror_ {
    const mb_skeleton *s;
    const mb_clip *c;
    int n;
    const int *parent;
    int *other;              /* the pair of each joint */
    mb_xform *ref;           /* the reference pose (local) */
    double (*rq)[4];         /* its world rotations R */
    double (*corr)[4];       /* R_k Y_k */
    unsigned char *moving;   /* the clip's translation replaces the offset */
    double nrm[3], o[3];     /* the plane */
    double nref[3];          /* the normal of the reference pose's own sagittal plane */
    mb_xform *local;         /* scratch: one frame of the input */
    double (*wq)[4], (*wp)[3], (*mq)[4], (*mp)[3]; /* input and mirrored world poses */
} mirror_;

/* ---------- small vector helpers ---------- */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }

static void scale3(double a[3], double s)
{
    a[0] *= s, a[1] *= s, a[2] *= s;
}

/* out = M v: v - 2 (n.v) n. */
static void reflect(const double n[3], const double v[3], double out[3])
{
    double d = 2 * dot3(n, v);
    for (int i = 0; i < 3; ++i)
        out[i] = v[i] - d * n[i];
}

/* The rotation M R M of the rotation q: (2 (n.v) n - v, w). */
static void reflect_rotation(const double n[3], const double q[4], double out[4])
{
    double d = 2 * dot3(n, q);
    for (int i = 0; i < 3; ++i)
        out[i] = d * n[i] - q[i];
    out[3] = q[3];
}

static void offset_d(const mb_skeleton *s, int j, double out[3])
{
    const float *o = mb_skeleton_offset(s, j);
    out[0] = o[0], out[1] = o[1], out[2] = o[2];
}

/* ---------- the rest-pose correction C_k ---------- */

/* The rotation taking direction a onto direction b along the shortest arc. */
static void shortest_arc(const double a[3], const double b[3], double q[4])
{
    double an[3] = {a[0], a[1], a[2]}, bn[3] = {b[0], b[1], b[2]};
    scale3(an, 1 / norm3(an));
    scale3(bn, 1 / norm3(bn));
    cross3(an, bn, q);
    q[3] = 1 + dot3(an, bn);
    if (q[3] < 1e-12) { /* opposite: half a turn about any axis perpendicular to a */
        double e[3] = {fabs(an[0]) < 0.6 ? 1 : 0, fabs(an[0]) < 0.6 ? 0 : 1, 0};
        cross3(an, e, q);
        q[3] = 0;
    }
    double len = sqrt(mb_qdot_d_(q, q));
    for (int i = 0; i < 4; ++i)
        q[i] /= len;
}

/* The orthonormal frame of direction a and the half-plane of b (rows e[0..2]). */
static void frame_of(const double a[3], const double b[3], double e[3][3])
{
    memcpy(e[0], a, sizeof e[0]);
    scale3(e[0], 1 / norm3(e[0]));
    cross3(a, b, e[1]);
    scale3(e[1], 1 / norm3(e[1]));
    cross3(e[0], e[1], e[2]);
}

/* The rotation taking direction a1 onto t1 and the half-plane of a2 onto that of t2. */
static void two_vector_rotation(const double a1[3], const double a2[3], const double t1[3],
                                const double t2[3], double q[4])
{
    double e[3][3], f[3][3], m[16] = {0};
    frame_of(a1, a2, e);
    frame_of(t1, t2, f);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            for (int i = 0; i < 3; ++i)
                m[c * 4 + r] += f[i][r] * e[i][c];
    m[15] = 1;
    mb_quat_from_mat4_d_(m, q);
}

/* |unit(a) x unit(b)|: the sine of the angle between a and b. */
static double sine_between(const double a[3], const double b[3])
{
    double c[3];
    cross3(a, b, c);
    return norm3(c) / (norm3(a) * norm3(b));
}

typedef struct bone_pair_ {
    double a[3], b[3]; /* k's child bone (reference local translation), the pair's child's */
    double t[3];       /* where a must point: R_k^-1 M_ref R_j b */
    int key;           /* min(child, pair): a tie-break both sides agree on */
} bone_pair_;

static void xform_pos(const mb_xform *x, double out[3])
{
    out[0] = x->pos[0], out[1] = x->pos[1], out[2] = x->pos[2];
}

/* k's children whose pairs are children of k's pair, with bones longer than eps. Tracked
 * children are left out: their positions are reflected directly, whatever k's rotation. */
static int bone_pairs(const mirror_ *m, int k, double eps, bone_pair_ *out, int cap)
{
    int count = 0, j = m->other[k];
    for (int c = k + 1; c < m->n && count < cap; ++c) {
        int cp = m->other[c];
        if (m->parent[c] != k || m->parent[cp] != j || m->moving[c] || m->moving[cp])
            continue;
        bone_pair_ *p = &out[count];
        double w[3], back[4] = {-m->rq[k][0], -m->rq[k][1], -m->rq[k][2], m->rq[k][3]};
        xform_pos(&m->ref[c], p->a);
        xform_pos(&m->ref[cp], p->b);
        mb_qrotate_d_(m->rq[j], p->b, w);
        reflect(m->nref, w, w);
        mb_qrotate_d_(back, w, p->t);
        p->key = c < cp ? c : cp;
        if (norm3(p->a) > eps && norm3(p->b) > eps)
            ++count;
    }
    return count;
}

/* Whether pair x beats pair y for the first bone: longer (both sides together), then the
 * smaller key. Symmetric in the two sides, as Z_j = M Z_k^-1 M needs. */
static int longer(const bone_pair_ *x, const bone_pair_ *y)
{
    double lx = norm3(x->a) + norm3(x->b), ly = norm3(y->a) + norm3(y->b);
    return lx != ly ? lx > ly : x->key < y->key;
}

/* Y_k: the rotation taking k's reference child bones onto the pair's, reflected (exact
 * for the longest, and in the plane of the bone most across it when there is one). */
static void correction(const mirror_ *m, int k, double eps, double q[4])
{
    bone_pair_ p[32];
    int n = bone_pairs(m, k, eps, p, 32), first = -1, second = -1;
    double best = 0;
    q[0] = q[1] = q[2] = 0, q[3] = 1;
    for (int i = 0; i < n; ++i)
        if (first < 0 || longer(&p[i], &p[first]))
            first = i;
    if (first < 0)
        return; /* a leaf: nothing to align */
    for (int i = 0; i < n; ++i) { /* the bone most across the first, on both sides */
        double sa = sine_between(p[i].a, p[first].a), sb = sine_between(p[i].b, p[first].b);
        double score = (norm3(p[i].a) + norm3(p[i].b)) * (sa + sb);
        if (i != first && sa > 0.1 && sb > 0.1 && score > best)
            best = score, second = i;
    }
    if (second < 0)
        shortest_arc(p[first].a, p[first].t, q);
    else
        two_vector_rotation(p[first].a, p[second].a, p[first].t, p[second].t, q);
}

/* ---------- poses ---------- */

/* World rotations and positions (double) of a local pose. */
static void world_pose(const mirror_ *m, const mb_xform *local, double (*wq)[4], double (*wp)[3])
{
    for (int j = 0; j < m->n; ++j) {
        double lq[4] = {local[j].rot[0], local[j].rot[1], local[j].rot[2], local[j].rot[3]};
        double lt[3] = {local[j].pos[0], local[j].pos[1], local[j].pos[2]};
        int p = m->parent[j];
        if (p < 0) {
            memcpy(wq[j], lq, sizeof lq);
            memcpy(wp[j], lt, sizeof lt);
            continue;
        }
        double r[3];
        mb_qmul_d_(wq[p], lq, wq[j]);
        mb_qrotate_d_(wq[p], lt, r);
        for (int i = 0; i < 3; ++i)
            wp[j][i] = wp[p][i] + r[i];
    }
}

/* Mirrors frame f into rot (joint_count * 4) and the translations of every joint (tr,
 * joint_count * 3: the local translation each joint gets). */
static mb_status mirror_frame(mirror_ *m, int f, float *rot, double (*tr)[3])
{
    mb_pose in = {m->local, m->n};
    mb_status st = mb_clip_frame_pose(m->s, m->c, f, in);
    if (st != MB_OK)
        return st;
    world_pose(m, m->local, m->wq, m->wp);
    for (int k = 0; k < m->n; ++k) {
        int j = m->other[k], p = m->parent[k];
        static const double id[4] = {0, 0, 0, 1}, zero[3] = {0, 0, 0};
        const double *pq = p < 0 ? id : m->mq[p], *pp = p < 0 ? zero : m->mp[p];
        double lq[4] = {0, 0, 0, 1}, rj[4], d[3];
        if (mb_skeleton_is_end_site(m->s, k)) {
            memcpy(m->mq[k], pq, sizeof lq); /* End Sites keep the identity */
        } else {
            double away[4], rinv[4] = {-m->rq[j][0], -m->rq[j][1], -m->rq[j][2], m->rq[j][3]};
            mb_qmul_d_(m->wq[j], rinv, away);
            reflect_rotation(m->nrm, away, rj);
            mb_qmul_d_(rj, m->corr[k], m->mq[k]);
            mb_qconjmul_d_(pq, m->mq[k], lq);
        }
        if (m->moving[k]) { /* the pair's reflected world position, exactly */
            for (int i = 0; i < 3; ++i)
                d[i] = m->wp[j][i] - m->o[i];
            reflect(m->nrm, d, d);
            for (int i = 0; i < 3; ++i)
                d[i] += m->o[i] - pp[i];
            double back[4] = {-pq[0], -pq[1], -pq[2], pq[3]};
            mb_qrotate_d_(back, d, tr[k]);
        } else {
            offset_d(m->s, k, tr[k]);
        }
        double r[3];
        mb_qrotate_d_(pq, tr[k], r);
        for (int i = 0; i < 3; ++i)
            m->mp[k][i] = pp[i] + r[i];
        double len = sqrt(mb_qdot_d_(lq, lq));
        for (int i = 0; i < 4; ++i)
            rot[(size_t)k * 4 + (size_t)i] = (float)(lq[i] / len);
    }
    return MB_OK;
}

/* ---------- the plane ---------- */

/* Sum over the pairs of limb roots (shoulders, upper arms, upper legs: the hands and feet
 * swing with the motion) of left minus right world position, perpendicular to up (index
 * ui); returns the share of its length that is horizontal (0 when there is none). */
static double lateral(const mb_roles *r, const double (*wp)[3], int ui, double out[3])
{
    static const mb_role roots[3] = {MB_ROLE_SHOULDER_L, MB_ROLE_UPPER_ARM_L, MB_ROLE_UPPER_LEG_L};
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < 3; ++k) {
        int role = roots[k];
        int l = r->joint[role], rr = r->joint[role + 1];
        for (int i = 0; l >= 0 && rr >= 0 && i < 3; ++i)
            out[i] += wp[l][i] - wp[rr][i];
    }
    double full = norm3(out);
    out[ui] = 0;
    double h = norm3(out);
    if (full <= 0 || h <= 1e-9 * full)
        return 0;
    scale3(out, 1 / h);
    return h / full;
}

/* Whether a pose stands: each leg's lowest role is below its upper leg by at least half
 * their distance along the up axis (index ui). A BVH rest pose does; the rest pose of a
 * glTF skeleton (identity rotations, not its bind pose) or of Bandai's rotated joint frames
 * need not. */
static int standing(const mb_roles *r, const double (*wp)[3], int ui)
{
    for (int side = 0; side < 2; ++side) {
        int top = r->joint[MB_ROLE_UPPER_LEG_L + side], low = -1;
        for (int role = MB_ROLE_LOWER_LEG_L + side; role < MB_ROLE_COUNT; role += 2)
            low = r->joint[role] >= 0 ? r->joint[role] : low;
        if (low < 0)
            return 0;
        double d[3] = {wp[top][0] - wp[low][0], wp[top][1] - wp[low][1], wp[top][2] - wp[low][2]};
        if (!(d[ui] >= 0.5 * norm3(d)))
            return 0;
    }
    return 1;
}

/* m->ref: the given reference pose, normalised; MB_INVALID_ARG for a non-finite or zero
 * rotation or a non-finite translation. */
static mb_status copy_reference(mirror_ *m, const mb_xform *ref, const char *src, mb_error *err)
{
    for (int j = 0; j < m->n; ++j) {
        const float *q = ref[j].rot, *t = ref[j].pos;
        double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                          (double)q[3] * q[3]);
        if (!isfinite(len) || len < 1e-6 || !isfinite(t[0]) || !isfinite(t[1]) || !isfinite(t[2]))
            return mb_error_set_(err, MB_INVALID_ARG, src, "the reference pose of joint %d "
                                 "(%s) is not a finite rotation and translation", j,
                                 mb_skeleton_name(m->s, j));
        m->ref[j] = ref[j];
        for (int i = 0; i < 4; ++i)
            m->ref[j].rot[i] = (float)(q[i] / len);
    }
    return MB_OK;
}

/* The reference's left-right axis turned by the hips' rotation from the reference to the
 * first motion frame (m->wq), made horizontal, into m->nrm; returns the share of it that
 * is horizontal. Unlike the limb roots' positions, this axis of the mirrored clip is the
 * same plane's normal, so mirroring twice across the clip's plane is the identity. */
static double hips_axis(mirror_ *m, const mb_roles *r, int ui)
{
    int h = r->joint[MB_ROLE_HIPS];
    double rinv[4] = {-m->rq[h][0], -m->rq[h][1], -m->rq[h][2], m->rq[h][3]}, turn[4];
    mb_qmul_d_(m->wq[h], rinv, turn);
    mb_qrotate_d_(turn, m->nref, m->nrm);
    double full = norm3(m->nrm);
    m->nrm[ui] = 0;
    double len = norm3(m->nrm);
    if (len <= 1e-9 * full)
        return 0;
    scale3(m->nrm, 1 / len);
    return len / full;
}

/* The reference pose (m->ref, its world rotations m->rq, its sagittal normal m->nref)
 * and the plane (m->nrm, m->o): see mb_mirror_desc. */
static mb_status find_plane(mirror_ *m, const mb_mirror_desc *d, const mb_roles *r,
                            const mb_motion_info *info, mb_mirror_plane *plane, mb_error *err)
{
    int ui = mb_axis_index(info->up_axis), n = m->n;
    const char *src = mb_name_(d->source, "clip");
    const double(*wp)[3] = (const double(*)[3])m->wp;
    memset(plane, 0, sizeof *plane);
    mb_status st = MB_OK;
    if (d->reference)
        st = copy_reference(m, d->reference, src, err);
    else
        mb_skeleton_rest_pose(m->s, (mb_pose){m->ref, n});
    if (st != MB_OK)
        return st;
    world_pose(m, m->ref, m->rq, m->wp);
    double share = standing(r, wp, ui) ? lateral(r, wp, ui, m->nref) : 0;
    if ((st = mb_clip_frame_pose(m->s, m->c, info->first_frame, (mb_pose){m->local, n})) != MB_OK)
        return mb_error_set_(err, st, src, "cannot pose frame %d", info->first_frame);
    world_pose(m, m->local, m->wq, m->wp);
    double first = lateral(r, wp, ui, m->nrm); /* the first motion frame's left-right axis */
    if (share < 0.5) { /* the reference does not stand upright with left and right side by
                          side: the first motion frame is the reference */
        memcpy(m->ref, m->local, (size_t)n * sizeof *m->ref);
        memcpy(m->rq, m->wq, (size_t)n * sizeof *m->rq);
        memcpy(m->nref, m->nrm, sizeof m->nref);
        plane->reference_from_clip = 1;
        share = first;
    }
    if (d->plane_from_clip && !plane->reference_from_clip)
        first = hips_axis(m, r, ui);
    if (d->plane_from_clip || plane->reference_from_clip) {
        plane->from_clip = 1;
        share = first;
    } else {
        memcpy(m->nrm, m->nref, sizeof m->nrm);
    }
    if (share < 0.1)
        return mb_error_set_(err, MB_MISMATCH, src, "no left-right axis: the left and right "
                             "joints are not side by side across the up axis in the reference "
                             "pose or frame %d", info->first_frame);
    memcpy(m->o, m->wp[r->joint[MB_ROLE_HIPS]], sizeof m->o);
    memcpy(plane->normal, m->nrm, sizeof plane->normal);
    memcpy(plane->point, m->o, sizeof plane->point);
    plane->first_frame = info->first_frame;
    plane->up_axis = info->up_axis;
    return MB_OK;
}

/* ---------- setup ---------- */

/* The hips, both upper legs, and the other side of every sided role present. */
static mb_status require_roles(const mb_roles *r, const char *source, mb_error *err)
{
    mb_role need[MB_ROLE_COUNT + 3];
    int n = 0;
    need[n++] = MB_ROLE_HIPS;
    need[n++] = MB_ROLE_UPPER_LEG_L;
    need[n++] = MB_ROLE_UPPER_LEG_R;
    for (int role = MB_ROLE_SHOULDER_L; role < MB_ROLE_COUNT; ++role)
        if (r->joint[role] >= 0 && role != MB_ROLE_UPPER_LEG_L && role != MB_ROLE_UPPER_LEG_R)
            need[n++] = mb_role_mirror((mb_role)role);
    return mb_roles_require(r, need, n, source, err);
}

static void mirror_free(mirror_ *m)
{
    free(m->other);
    free(m->ref);
    free(m->rq);
    free(m->corr);
    free(m->moving);
    free(m->local);
    free(m->wq);
    free(m->wp);
    free(m->mq);
    free(m->mp);
}

static mb_status mirror_init(mirror_ *m, const mb_mirror_desc *d, const mb_roles *r, mb_error *err)
{
    memset(m, 0, sizeof *m);
    m->s = d->skeleton;
    m->c = d->clip;
    m->n = mb_skeleton_joint_count(d->skeleton);
    m->parent = mb_skeleton_parents(d->skeleton);
    size_t n = (size_t)m->n;
    m->other = malloc(n * sizeof *m->other);
    m->ref = malloc(n * sizeof *m->ref);
    m->rq = malloc(n * sizeof *m->rq);
    m->corr = malloc(n * sizeof *m->corr);
    m->moving = malloc(n);
    m->local = malloc(n * sizeof *m->local);
    m->wq = malloc(n * sizeof *m->wq);
    m->wp = malloc(n * sizeof *m->wp);
    m->mq = malloc(n * sizeof *m->mq);
    m->mp = malloc(n * sizeof *m->mp);
    if (!m->other || !m->ref || !m->rq || !m->corr || !m->moving || !m->local || !m->wq ||
        !m->wp || !m->mq || !m->mp)
        return mb_error_set_(err, MB_NOMEM, "mirror", "out of memory");
    for (int j = 0; j < m->n; ++j)
        m->moving[j] = mb_clip_translation_slot(d->clip, j) >= 0 &&
                       mb_skeleton_has_translation(d->skeleton, j);
    return mb_roles_mirror_joints(d->skeleton, r, m->other, err);
}

/* corr[k] = M M_ref R_k Y_k, once the plane and the reference are known. */
static void find_corrections(mirror_ *m)
{
    double longest = 0, t[3], y[4];
    for (int j = 0; j < m->n; ++j) {
        xform_pos(&m->ref[j], t);
        longest = fmax(longest, norm3(t));
    }
    /* M M_ref, the rotation taking the reference's mirror onto the plane's: for unit
     * normals n1, n2 the quaternion n1 n2 = (n1 x n2, -n1.n2) */
    double q12[4], ry[4];
    cross3(m->nrm, m->nref, q12);
    q12[3] = -dot3(m->nrm, m->nref);
    for (int k = 0; k < m->n; ++k) {
        correction(m, k, 1e-6 * longest, y);
        mb_qmul_d_(m->rq[k], y, ry);
        mb_qmul_d_(q12, ry, m->corr[k]);
    }
}

/* ---------- the clip ---------- */

static mb_status mirror_clip(mirror_ *m, const mb_mirror_desc *d, mb_clip **out, mb_error *err)
{
    int frames = mb_clip_frame_count(d->clip), nt = mb_clip_translation_count(d->clip);
    const int *tj = mb_clip_translation_joints(d->clip);
    const float *tin = mb_clip_translations(d->clip);
    size_t per = (size_t)m->n * 4;
    float *rot = malloc((size_t)frames * per * sizeof *rot);
    float *tr = nt ? malloc((size_t)frames * (size_t)nt * 3 * sizeof *tr) : NULL;
    double(*t)[3] = malloc((size_t)m->n * sizeof *t);
    mb_status st = MB_NOMEM;
    if (!rot || (nt && !tr) || !t) {
        mb_error_set_(err, st, "mirror", "out of memory");
        goto done;
    }
    for (int f = 0; f < frames; ++f) {
        if ((st = mirror_frame(m, f, rot + (size_t)f * per, t)) != MB_OK) {
            mb_error_set_(err, st, mb_name_(d->source, "clip"), "cannot pose frame %d", f);
            goto done;
        }
        for (int i = 0; i < nt; ++i) { /* a track the skeleton ignores is copied as it is */
            size_t at = ((size_t)f * (size_t)nt + (size_t)i) * 3;
            for (int a = 0; a < 3; ++a)
                tr[at + (size_t)a] = m->moving[tj[i]] ? (float)t[tj[i]][a] : tin[at + (size_t)a];
        }
    }
    mb_clip_desc cd = {m->n, frames, mb_clip_frame_time(d->clip), rot, tj, nt, tr, d->allocator};
    st = mb_clip_create(&cd, out, err);
done:
    free(rot);
    free(tr);
    free(t);
    return st;
}

static mb_status check_desc(const mb_mirror_desc *d, mb_clip **out, mb_error *err)
{
    if (!d || !out || !d->skeleton || !d->clip)
        return mb_error_set_(err, MB_INVALID_ARG, "mirror", "no %s given",
                             !d ? "desc" : !out ? "output" : !d->skeleton ? "skeleton" : "clip");
    const char *src = mb_name_(d->source, "clip");
    int n = mb_skeleton_joint_count(d->skeleton);
    if (mb_clip_joint_count(d->clip) != n)
        return mb_error_set_(err, MB_INVALID_ARG, src, "the clip has %d joints, its skeleton %d",
                             mb_clip_joint_count(d->clip), n);
    if (mb_clip_frame_count(d->clip) < 1)
        return mb_error_set_(err, MB_INVALID_ARG, src, "the clip has no frames");
    if (d->roles && d->roles->joint_count != n)
        return mb_error_set_(err, MB_INVALID_ARG, src, "roles of %d joints for a skeleton of %d",
                             d->roles->joint_count, n);
    return MB_OK;
}

mb_status mb_clip_mirror(const mb_mirror_desc *d, mb_clip **out, mb_mirror_plane *out_plane,
                         mb_error *err)
{
    mb_error_clear_(err);
    if (out)
        *out = NULL;
    mb_status st = check_desc(d, out, err);
    if (st != MB_OK)
        return st;
    const char *src = mb_name_(d->source, "clip");
    mb_roles found = {0};
    const mb_roles *roles = d->roles;
    if (!roles && (st = mb_roles_find(d->skeleton, NULL, &found, err)) != MB_OK)
        return st;
    roles = roles ? roles : &found;
    mb_motion_info info;
    mb_analyze_desc ad = {d->up_axis, NULL, NULL};
    mirror_ m;
    mb_mirror_plane plane;
    memset(&m, 0, sizeof m);
    if ((st = require_roles(roles, src, err)) == MB_OK &&
        (st = mb_motion_analyze(d->skeleton, d->clip, &ad, src, &info, err)) == MB_OK &&
        (st = mirror_init(&m, d, roles, err)) == MB_OK &&
        (st = find_plane(&m, d, roles, &info, &plane, err)) == MB_OK) {
        find_corrections(&m);
        st = mirror_clip(&m, d, out, err);
    }
    mirror_free(&m);
    mb_roles_free(&found);
    if (st == MB_OK && out_plane)
        *out_plane = plane;
    return st;
}
