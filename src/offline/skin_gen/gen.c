/* Generated skins: a capsule around every bone of a skeleton, with weights that blend into
 * the neighbouring joints near each end, so BVH clips (which carry no mesh) can be skinned.
 *
 * mb_skin_generate runs in named steps: read the desc (gen_params), pose the bind skeleton
 * (bind_world), find the bones that keep their length over the clip (mb_skin_rigid_bones),
 * measure the skeleton (skeleton_extent, joints_below), then per bone its frame
 * (bone_frame), vertices (capsule_vertices) and triangles (capsule_triangles), and last the
 * mesh itself (make_mesh). */
#include <math.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "offline/io/mesh_internal.h"
#include "mblend/offline/skin_gen.h"

#define PI_ 3.14159265358979323846

/* Smooth weight handed to the neighbouring joint: 0.5 at the joint (x = 0), 0 at x >= 1. */
static double handoff(double x)
{
    if (x >= 1.0)
        return 0.0;
    if (x <= 0.0)
        return 0.5;
    double s = x * x * (3.0 - 2.0 * x);
    return 0.5 * (1.0 - s);
}

static void normalize3(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (n > 0.0)
        for (int k = 0; k < 3; ++k)
            v[k] /= n;
}

static void cross(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static double norm3f(const float v[3])
{
    return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

/* ---------- the bones a clip keeps rigid ---------- */

mb_status mb_skin_rigid_bones(const mb_skeleton *s, const mb_clip *c, const mb_pose *bind,
                              unsigned char *out, mb_error *err)
{
    mb_error_clear_(err);
    if (!s || !out)
        return mb_error_set_(err, MB_INVALID_ARG, "rigid bones", "no %s given", !s ? "skeleton" : "output");
    int nj = mb_skeleton_joint_count(s);
    if ((c && mb_clip_joint_count(c) != nj) || (bind && (!bind->joints || bind->count != nj)))
        return mb_error_set_(err, MB_INVALID_ARG, "rigid bones", "the %s does not have the "
                             "skeleton's %d joints", c && mb_clip_joint_count(c) != nj ? "clip"
                             : "bind pose", nj);
    const int *parents = mb_skeleton_parents(s);
    int nf = c ? mb_clip_frame_count(c) : 0;
    for (int j = 0; j < nj; ++j) {
        out[j] = parents[j] >= 0;
        /* mblend transforms carry no scale, so the bone from j's parent to j is exactly as
         * long as j's local translation */
        double bl = norm3f(bind ? bind->joints[j].pos : mb_skeleton_offset(s, j));
        double lo = bl, hi = bl;
        if (!out[j] || mb_clip_translation_slot(c, j) < 0)
            continue; /* untracked: the offset in every frame */
        for (int f = 0; f < nf; ++f) {
            const float *t = mb_clip_joint_translation(s, c, f, j);
            double l = t ? norm3f(t) : NAN;
            if (!isfinite(l))
                return mb_error_set_(err, MB_INVALID_ARG, "rigid bones", "frame %d: joint '%.64s' "
                                     "has a non-finite translation", f, mb_skeleton_name(s, j));
            lo = l < lo ? l : lo;
            hi = l > hi ? l : hi;
        }
        out[j] = hi - lo <= MB_SKIN_GEN_STRETCH * hi;
    }
    return MB_OK;
}

/* ---------- steps of mb_skin_generate ---------- */

/* The desc's values with its defaults filled in, and the capsule layout they give. */
typedef struct gen_params {
    int sides, rings;
    int caps;       /* cap rings per end, pole excluded, plus one */
    int ring_count; /* rings of `sides` vertices per capsule: 2 (caps - 1) + rings + 1 */
    double radius_frac, blend;
    double extent, min_r, max_r;
} gen_params;

static mb_status read_desc(const mb_skin_gen_desc *d, gen_params *gp)
{
    if (!(d->radius >= 0.0f) || !(d->min_radius >= 0.0f) || !(d->max_radius >= 0.0f) ||
        !(d->blend >= 0.0f) || d->blend > 0.5f || !isfinite(d->radius) ||
        !isfinite(d->min_radius) || !isfinite(d->max_radius) || d->sides < 0 || d->rings < 0 ||
        (d->sides && d->sides < 3) || d->sides > 64 || (d->rings && d->rings < 2) || d->rings > 64)
        return MB_INVALID_ARG;
    memset(gp, 0, sizeof *gp);
    gp->sides = d->sides ? d->sides : 12;
    gp->rings = d->rings ? d->rings : 8;
    gp->caps = gp->sides / 4 > 2 ? gp->sides / 4 : 2;
    gp->ring_count = 2 * (gp->caps - 1) + gp->rings + 1;
    gp->radius_frac = d->radius > 0.0f ? d->radius : 0.16;
    gp->blend = d->blend > 0.0f ? d->blend : 0.3;
    return MB_OK;
}

/* The bind pose (d->bind or the rest pose) into bind, and its world matrices. */
static mb_status bind_world(const mb_skeleton *s, const mb_skin_gen_desc *d, mb_xform *bind,
                            float (*world)[16])
{
    int nj = mb_skeleton_joint_count(s);
    mb_pose pose = {bind, nj};
    mb_status st;
    if (d->bind) {
        if (!d->bind->joints || d->bind->count != nj)
            return MB_INVALID_ARG;
        memcpy(bind, d->bind->joints, (size_t)nj * sizeof *bind);
    } else if ((st = mb_skeleton_rest_pose(s, pose)) != MB_OK) {
        return st;
    }
    return mb_fk(s, &pose, world, nj);
}

/* The bind pose's bounding-box diagonal over the joints a rigid bone holds (a static root
 * whose only bone stretches, such as Bandai-Namco's joint_Root, is left out; every joint
 * when no bone is rigid), and the radius limits it gives. Fails on non-finite positions. */
static mb_status skeleton_extent(const float (*world)[16], const int *parents, int nj,
                                 const unsigned char *rigid, const mb_skin_gen_desc *d,
                                 gen_params *gp)
{
    int any = 0;
    for (int j = 0; j < nj; ++j)
        any |= rigid[j];
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int j = 0; j < nj; ++j) {
        int held = !any || rigid[j];
        for (int k = j + 1; k < nj && !held; ++k)
            held = parents[k] == j && rigid[k];
        for (int c = 0; c < 3; ++c) {
            double x = world[j][12 + c];
            if (!isfinite(x))
                return MB_INVALID_ARG;
            if (held) {
                lo[c] = x < lo[c] ? x : lo[c];
                hi[c] = x > hi[c] ? x : hi[c];
            }
        }
    }
    gp->extent = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                      (hi[2] - lo[2]) * (hi[2] - lo[2]));
    gp->min_r = d->min_radius > 0.0f ? d->min_radius : 0.015 * gp->extent;
    gp->max_r = d->max_radius > 0.0f ? d->max_radius : 0.06 * gp->extent;
    if (gp->max_r < gp->min_r)
        gp->max_r = gp->min_r;
    return gp->extent > 0.0 ? MB_OK : MB_INVALID_ARG;
}

/* Joints (End Sites excluded) at or below each joint, at least 1 at joint 0. */
static void joints_below(const mb_skeleton *s, int *below)
{
    int nj = mb_skeleton_joint_count(s);
    const int *parents = mb_skeleton_parents(s);
    for (int j = 0; j < nj; ++j)
        below[j] = mb_skeleton_is_end_site(s, j) ? 0 : 1;
    for (int j = nj - 1; j > 0; --j)
        below[parents[j]] += below[j];
    if (below[0] < 1)
        below[0] = 1;
}

/* One capsule: the bone from A along unit u, length L, radius r, with a perpendicular
 * basis e1 x e2 = u; the palette entries of its driver (self) and of the joints its ends
 * hand weight to (prev at A, next at B; -1: none). */
typedef struct gen_bone {
    double A[3], u[3], e1[3], e2[3], L, r;
    int self, prev, next;
} gen_bone;

/* The geometry of the bone p -> j in the bind pose; 0 when it is too short to skin. */
static int bone_frame(const float (*world)[16], int p, int j, double extent, gen_bone *b)
{
    for (int c = 0; c < 3; ++c) {
        b->A[c] = world[p][12 + c];
        b->u[c] = world[j][12 + c] - b->A[c];
    }
    b->L = sqrt(b->u[0] * b->u[0] + b->u[1] * b->u[1] + b->u[2] * b->u[2]);
    if (!(b->L > 1e-6 * extent))
        return 0;
    normalize3(b->u);
    double helper[3] = {0, 0, 0}, *u = b->u;
    int ax = fabs(u[0]) < fabs(u[1]) ? (fabs(u[0]) < fabs(u[2]) ? 0 : 2)
                                     : (fabs(u[1]) < fabs(u[2]) ? 1 : 2);
    helper[ax] = 1.0;
    cross(helper, u, b->e1);
    normalize3(b->e1);
    cross(u, b->e1, b->e2);
    return 1;
}

/* The mesh arrays being filled, bone after bone. */
typedef struct gen_ctx {
    float *pos, *nrm, *w;
    int *jt;
    uint32_t *tri;
    int nv, nt;
} gen_ctx;

/* Appends a capsule's vertices: pole A, cap rings, body rings, cap rings, pole B. */
static void capsule_vertices(gen_ctx *g, const gen_params *gp, const gen_bone *b)
{
    int sides = gp->sides, caps = gp->caps, rings = gp->rings, ring_count = gp->ring_count;
    double L = b->L, r = b->r;
    for (int ri = -1; ri <= ring_count; ++ri) {
        double a, rho, na, nr;
        if (ri == -1 || ri == ring_count) {
            a = ri < 0 ? -r : L + r;
            rho = 0.0;
            na = ri < 0 ? -1.0 : 1.0;
            nr = 0.0;
        } else if (ri < caps - 1) {
            double th = (PI_ / 2.0) * (double)(ri + 1) / (double)caps;
            a = -r * cos(th);
            rho = r * sin(th);
            na = -cos(th);
            nr = sin(th);
        } else if (ri <= caps - 1 + rings) {
            a = L * (double)(ri - (caps - 1)) / (double)rings;
            rho = r;
            na = 0.0;
            nr = 1.0;
        } else {
            int k = ring_count - ri; /* 1 .. caps-1 from pole B */
            double th = (PI_ / 2.0) * (double)k / (double)caps;
            a = L + r * cos(th);
            rho = r * sin(th);
            na = cos(th);
            nr = sin(th);
        }
        double sp = a / L;
        sp = sp < 0.0 ? 0.0 : (sp > 1.0 ? 1.0 : sp);
        double wp = b->prev >= 0 ? handoff(sp / gp->blend) : 0.0;
        double wn = b->next >= 0 ? handoff((1.0 - sp) / gp->blend) : 0.0;
        double ws = 1.0 - wp - wn;
        int count = (ri == -1 || ri == ring_count) ? 1 : sides;
        for (int m = 0; m < count; ++m) {
            double phi = 2.0 * PI_ * (double)m / (double)sides;
            double cp = cos(phi), sn = sin(phi);
            size_t v = (size_t)g->nv++;
            for (int c = 0; c < 3; ++c) {
                double radial = cp * b->e1[c] + sn * b->e2[c];
                g->pos[3 * v + (size_t)c] = (float)(b->A[c] + a * b->u[c] + rho * radial);
                g->nrm[3 * v + (size_t)c] = (float)(na * b->u[c] + nr * radial);
            }
            g->jt[3 * v] = b->self;
            g->w[3 * v] = (float)ws;
            g->jt[3 * v + 1] = b->prev >= 0 ? b->prev : b->self;
            g->w[3 * v + 1] = (float)wp;
            g->jt[3 * v + 2] = b->next >= 0 ? b->next : b->self;
            g->w[3 * v + 2] = (float)wn;
        }
    }
}

/* Appends the triangles of the capsule whose first vertex is base, counter-clockwise seen
 * from outside. */
static void capsule_triangles(gen_ctx *g, const gen_params *gp, uint32_t base)
{
    int sides = gp->sides, ring_count = gp->ring_count;
#define RV(ri, m) (base + 1u + (uint32_t)(ri) * (uint32_t)sides + (uint32_t)((m) % sides))
    uint32_t pole_a = base, pole_b = base + 1u + (uint32_t)ring_count * (uint32_t)sides;
    for (int m = 0; m < sides; ++m) {
        uint32_t *t = &g->tri[3 * (size_t)g->nt++];
        t[0] = pole_a;
        t[1] = RV(0, m + 1);
        t[2] = RV(0, m);
    }
    for (int ri = 0; ri + 1 < ring_count; ++ri)
        for (int m = 0; m < sides; ++m) {
            uint32_t *t = &g->tri[3 * (size_t)g->nt++];
            t[0] = RV(ri, m);
            t[1] = RV(ri, m + 1);
            t[2] = RV(ri + 1, m + 1);
            t = &g->tri[3 * (size_t)g->nt++];
            t[0] = RV(ri, m);
            t[1] = RV(ri + 1, m + 1);
            t[2] = RV(ri + 1, m);
        }
    for (int m = 0; m < sides; ++m) {
        uint32_t *t = &g->tri[3 * (size_t)g->nt++];
        t[0] = RV(ring_count - 1, m);
        t[1] = RV(ring_count - 1, m + 1);
        t[2] = pole_b;
    }
#undef RV
}

/* Scratch and output arrays of one mb_skin_generate call, freed together. */
typedef struct gen_bufs {
    mb_xform *bind;
    float (*world)[16];
    int *entry;        /* palette entry of each joint, -1: none yet */
    int *skin_joints;  /* joint of each palette entry */
    float (*ibm)[16];
    int *below;
    unsigned char *rigid;
    int ns;            /* palette entries so far */
    gen_ctx g;
} gen_bufs;

static void free_bufs(const mb_allocator *al, gen_bufs *b)
{
    mb_free_(al, b->bind);
    mb_free_(al, b->world);
    mb_free_(al, b->entry);
    mb_free_(al, b->skin_joints);
    mb_free_(al, b->ibm);
    mb_free_(al, b->below);
    mb_free_(al, b->rigid);
    mb_free_(al, b->g.pos);
    mb_free_(al, b->g.nrm);
    mb_free_(al, b->g.w);
    mb_free_(al, b->g.jt);
    mb_free_(al, b->g.tri);
}

/* The palette entry of joint j, given one on first use (palette in order of use). */
static int entry_of(gen_bufs *b, int j)
{
    if (b->entry[j] < 0) {
        b->skin_joints[b->ns] = j;
        b->entry[j] = b->ns++;
    }
    return b->entry[j];
}

/* Whether the bone parent(j) -> j gets a capsule. */
static int skinned_bone(const gen_bufs *b, const int *parents, int j, double extent)
{
    gen_bone tmp;
    return b->rigid[j] && bone_frame((const float(*)[16])b->world, parents[j], j, extent, &tmp);
}

/* Counts the capsules and allocates the mesh arrays for them (MB_LIMIT past the mesh
 * limits, MB_INVALID_ARG for none). */
static mb_status alloc_capsules(const mb_allocator *al, const mb_skeleton *s, const gen_params *gp,
                                gen_bufs *b)
{
    int nj = mb_skeleton_joint_count(s), bones = 0;
    const int *parents = mb_skeleton_parents(s);
    for (int j = 1; j < nj; ++j)
        bones += skinned_bone(b, parents, j, gp->extent);
    if (bones == 0)
        return MB_INVALID_ARG;
    /* each capsule: 2 poles + ring_count rings of `sides` */
    size_t vpb = 2 + (size_t)gp->ring_count * (size_t)gp->sides;
    size_t tpb = 2 * (size_t)gp->sides + 2 * (size_t)(gp->ring_count - 1) * (size_t)gp->sides;
    size_t nv = vpb * (size_t)bones, nt = tpb * (size_t)bones;
    if (nv > MB_MESH_MAX_VERTICES || nt > MB_MESH_MAX_TRIANGLES)
        return MB_LIMIT;
    b->g.pos = mb_alloc_(al, nv * 3 * sizeof(float));
    b->g.nrm = mb_alloc_(al, nv * 3 * sizeof(float));
    b->g.w = mb_alloc_(al, nv * 3 * sizeof(float));
    b->g.jt = mb_alloc_(al, nv * 3 * sizeof(int));
    b->g.tri = mb_alloc_(al, nt * 3 * sizeof(uint32_t));
    return b->g.pos && b->g.nrm && b->g.w && b->g.jt && b->g.tri ? MB_OK : MB_NOMEM;
}

/* The capsule of every skinned bone, in joint order. */
static void build_capsules(const mb_skeleton *s, const gen_params *gp, gen_bufs *b)
{
    int nj = mb_skeleton_joint_count(s);
    const int *parents = mb_skeleton_parents(s);
    for (int j = 0; j < nj; ++j)
        b->entry[j] = -1;
    b->ns = 0;
    for (int j = 1; j < nj; ++j) {
        int p = parents[j];
        gen_bone bone;
        if (!b->rigid[j] || !bone_frame((const float(*)[16])b->world, p, j, gp->extent, &bone))
            continue;
        /* From the bone length; bones carrying much of the body (the spine) at least as
         * thick as the share of joints beyond them suggests, so a torso is not a wire. */
        double r = gp->radius_frac * bone.L;
        double share = (double)b->below[j] / (double)b->below[0];
        r = fmax(r, gp->max_r * sqrt(share));
        bone.r = r < gp->min_r ? gp->min_r : (r > gp->max_r ? gp->max_r : r);
        /* The driver p, and the joints the ends hand off to: p's parent at A when the bone
         * into p keeps its length (a stretching one, from a static root to the moving
         * hips, would pull A toward the root), and j at B when j itself drives a bone (has
         * children). */
        bone.self = entry_of(b, p);
        bone.prev = parents[p] >= 0 && b->rigid[p] ? entry_of(b, parents[p]) : -1;
        int has_child = 0;
        for (int k = j + 1; k < nj && !has_child; ++k)
            has_child = parents[k] == j;
        bone.next = has_child ? entry_of(b, j) : -1;
        uint32_t base = (uint32_t)b->g.nv;
        capsule_vertices(&b->g, gp, &bone);
        capsule_triangles(&b->g, gp, base);
    }
}

/* The mesh of the capsules: inverse binds from the bind world matrices. */
static mb_status make_mesh(const mb_allocator *al, int nj, gen_bufs *b, mb_mesh **out,
                           mb_error *err)
{
    for (int e = 0; e < b->ns; ++e)
        if (!mb_mesh_invert4_(b->world[b->skin_joints[e]], b->ibm[e]))
            return mb_error_set_(err, MB_INVALID_ARG, "generated skin", "the bind world matrix "
                                 "of skin joint %d is singular", b->skin_joints[e]);
    mb_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertex_count = b->g.nv;
    md.positions = b->g.pos;
    md.normals = b->g.nrm;
    md.triangle_count = b->g.nt;
    md.triangles = b->g.tri;
    md.influences = 3;
    md.joints = b->g.jt;
    md.weights = b->g.w;
    md.skin_joint_count = b->ns;
    md.skin_joints = b->skin_joints;
    md.inverse_bind = (const float(*)[16])b->ibm;
    md.skeleton_joint_count = nj;
    md.bind_pose = b->bind;
    md.allocator = *al;
    return mb_mesh_create(&md, out, err);
}

mb_status mb_skin_generate(const mb_skeleton *s, const mb_skin_gen_desc *desc, mb_mesh **out,
                           mb_error *err)
{
    mb_error_clear_(err);
    if (!out || !s) {
        if (out)
            *out = NULL;
        return mb_error_set_(err, MB_INVALID_ARG, "generated skin", "no %s given", !out ? "output" : "skeleton");
    }
    *out = NULL;
    mb_skin_gen_desc d;
    memset(&d, 0, sizeof d);
    if (desc)
        d = *desc;
    gen_params gp;
    mb_status st = read_desc(&d, &gp);
    if (st != MB_OK)
        return mb_error_set_(err, st, "generated skin", "bad desc: radius %g, min %g, max %g (finite, "
                             ">= 0), blend %g (0..0.5), sides %d (0 or 3..64), rings %d (0 or 2..64)",
                             (double)d.radius, (double)d.min_radius, (double)d.max_radius,
                             (double)d.blend, d.sides, d.rings);
    const mb_allocator *al = &d.allocator;
    int nj = mb_skeleton_joint_count(s);
    gen_bufs b;
    memset(&b, 0, sizeof b);
    b.bind = mb_alloc_(al, (size_t)nj * sizeof *b.bind);
    b.world = mb_alloc_(al, (size_t)nj * sizeof *b.world);
    b.entry = mb_alloc_(al, (size_t)nj * sizeof *b.entry);
    b.skin_joints = mb_alloc_(al, (size_t)nj * sizeof *b.skin_joints);
    b.ibm = mb_alloc_(al, (size_t)nj * sizeof *b.ibm);
    b.below = mb_alloc_(al, (size_t)nj * sizeof *b.below);
    b.rigid = mb_alloc_(al, (size_t)nj);
    const char *why = "out of memory";
    if (!b.bind || !b.world || !b.entry || !b.skin_joints || !b.ibm || !b.below || !b.rigid)
        st = MB_NOMEM;
    if (st == MB_OK && (st = bind_world(s, &d, b.bind, b.world)) != MB_OK)
        why = "the bind pose does not fit the skeleton";
    if (st == MB_OK) {
        mb_pose bp = {b.bind, nj};
        st = mb_skin_rigid_bones(s, d.clip, &bp, b.rigid, err);
    }
    if (st == MB_OK && (st = skeleton_extent((const float(*)[16])b.world, mb_skeleton_parents(s), nj,
                                             b.rigid, &d, &gp)) != MB_OK)
        why = "the bind pose has non-finite positions or no extent (no bone of non-zero length)";
    if (st == MB_OK && (st = alloc_capsules(al, s, &gp, &b)) != MB_OK)
        why = st == MB_INVALID_ARG ? "no bone to skin" : st == MB_LIMIT ? "the capsules exceed the "
              "mesh limits" : "out of memory";
    if (st == MB_OK) {
        joints_below(s, b.below);
        build_capsules(s, &gp, &b);
        st = make_mesh(al, nj, &b, out, err);
    }
    free_bufs(al, &b);
    if (st != MB_OK) /* a step's own reason (rigid bones, the mesh) wins */
        mb_error_set_(err, st, "generated skin", "%s", why);
    return st;
}
