/* Generated skins: a capsule around every bone of a skeleton, with weights that blend into
 * the neighbouring joints near each end, so BVH clips (which carry no mesh) can be skinned. */
#include <math.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "io/mesh_internal.h"
#include "skin/skin_internal.h"

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

typedef struct gen_ctx {
    const mb_allocator *a;
    float *pos, *nrm, *w;
    int *jt;
    uint32_t *tri;
    int nv, nt;
} gen_ctx;

mb_status mb_skin_generate(const mb_skeleton *s, const mb_skin_gen_desc *desc, mb_mesh **out)
{
    if (!out)
        return MB_INVALID_ARG;
    *out = NULL;
    if (!s)
        return MB_INVALID_ARG;
    mb_skin_gen_desc d;
    memset(&d, 0, sizeof d);
    if (desc)
        d = *desc;
    if (!(d.radius >= 0.0f) || !(d.min_radius >= 0.0f) || !(d.max_radius >= 0.0f) ||
        !(d.blend >= 0.0f) || d.blend > 0.5f || !isfinite(d.radius) || !isfinite(d.min_radius) ||
        !isfinite(d.max_radius) || d.sides < 0 || d.rings < 0 || (d.sides && d.sides < 3) ||
        d.sides > 64 || (d.rings && d.rings < 2) || d.rings > 64)
        return MB_INVALID_ARG;
    int sides = d.sides ? d.sides : 12, rings = d.rings ? d.rings : 8;
    double radius_frac = d.radius > 0.0f ? d.radius : 0.16, blend = d.blend > 0.0f ? d.blend : 0.3;
    const mb_allocator *al = &d.allocator;

    int nj = mb_skeleton_joint_count(s);
    const int *parents = mb_skeleton_parents(s);
    mb_xform *bind = mb_alloc_(al, (size_t)nj * sizeof *bind);
    float(*world)[16] = mb_alloc_(al, (size_t)nj * sizeof *world);
    int *entry = mb_alloc_(al, (size_t)nj * sizeof *entry);
    int *skin_joints = mb_alloc_(al, (size_t)nj * sizeof *skin_joints);
    float(*ibm)[16] = mb_alloc_(al, (size_t)nj * sizeof *ibm);
    int *below = NULL;
    gen_ctx g;
    memset(&g, 0, sizeof g);
    mb_status st = MB_NOMEM;
    if (!bind || !world || !entry || !skin_joints || !ibm)
        goto done;
    st = MB_INVALID_ARG;
    mb_pose pose = {bind, nj};
    if (d.bind) {
        if (!d.bind->joints || d.bind->count != nj)
            goto done;
        memcpy(bind, d.bind->joints, (size_t)nj * sizeof *bind);
    } else if ((st = mb_skeleton_rest_pose(s, pose)) != MB_OK) {
        goto done;
    }
    if ((st = mb_fk(s, &pose, world, nj)) != MB_OK)
        goto done;
    st = MB_INVALID_ARG;

    /* The skeleton's extent sizes the radius limits and the zero-length test. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int j = 0; j < nj; ++j)
        for (int c = 0; c < 3; ++c) {
            double x = world[j][12 + c];
            if (!isfinite(x))
                goto done;
            lo[c] = x < lo[c] ? x : lo[c];
            hi[c] = x > hi[c] ? x : hi[c];
        }
    double extent = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                         (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double min_r = d.min_radius > 0.0f ? d.min_radius : 0.015 * extent;
    double max_r = d.max_radius > 0.0f ? d.max_radius : 0.06 * extent;
    if (max_r < min_r)
        max_r = min_r;

    /* Count bones; a bone is (parent -> joint) with a length above a tiny fraction of the
     * extent. Each capsule: 2 poles + (2 (caps - 1) + rings + 1) rings of `sides`. */
    int caps = sides / 4 > 2 ? sides / 4 : 2;
    int ring_count = 2 * (caps - 1) + rings + 1;
    int bones = 0;
    for (int j = 1; j < nj; ++j) {
        double dx = world[j][12] - world[parents[j]][12], dy = world[j][13] - world[parents[j]][13],
               dz = world[j][14] - world[parents[j]][14];
        if (sqrt(dx * dx + dy * dy + dz * dz) > 1e-6 * extent)
            ++bones;
    }
    if (bones == 0 || !(extent > 0.0))
        goto done;
    size_t vpb = 2 + (size_t)ring_count * (size_t)sides;
    size_t tpb = 2 * (size_t)sides + 2 * (size_t)(ring_count - 1) * (size_t)sides;
    size_t nv = vpb * (size_t)bones, nt = tpb * (size_t)bones;
    if (nv > MB_MESH_MAX_VERTICES || nt > MB_MESH_MAX_TRIANGLES) {
        st = MB_LIMIT;
        goto done;
    }
    st = MB_NOMEM;
    g.pos = mb_alloc_(al, nv * 3 * sizeof(float));
    g.nrm = mb_alloc_(al, nv * 3 * sizeof(float));
    g.w = mb_alloc_(al, nv * 3 * sizeof(float));
    g.jt = mb_alloc_(al, nv * 3 * sizeof(int));
    g.tri = mb_alloc_(al, nt * 3 * sizeof(uint32_t));
    if (!g.pos || !g.nrm || !g.w || !g.jt || !g.tri)
        goto done;

    /* Joints (End Sites excluded) at or below each joint. */
    below = mb_alloc_(al, (size_t)nj * sizeof *below);
    if (!below)
        goto done;
    for (int j = 0; j < nj; ++j)
        below[j] = mb_skeleton_is_end_site(s, j) ? 0 : 1;
    for (int j = nj - 1; j > 0; --j)
        below[parents[j]] += below[j];
    if (below[0] < 1)
        below[0] = 1;

    /* Palette entries in joint order, only for joints that get weight. */
    for (int j = 0; j < nj; ++j)
        entry[j] = -1;
    int ns = 0;
#define ENTRY(j) (entry[j] >= 0 ? entry[j] : (skin_joints[ns] = (j), entry[j] = ns++))

    for (int j = 1; j < nj; ++j) {
        int p = parents[j];
        double A[3], B[3], u[3];
        for (int c = 0; c < 3; ++c) {
            A[c] = world[p][12 + c];
            B[c] = world[j][12 + c];
            u[c] = B[c] - A[c];
        }
        double L = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        if (!(L > 1e-6 * extent))
            continue;
        normalize3(u);
        /* From the bone length; bones carrying much of the body (the spine) at least as
         * thick as the share of joints beyond them suggests, so a torso is not a wire. */
        double r = radius_frac * L;
        double share = (double)below[j] / (double)below[0];
        r = fmax(r, max_r * sqrt(share));
        r = r < min_r ? min_r : (r > max_r ? max_r : r);
        /* Perpendicular basis with e1 x e2 = u. */
        double helper[3] = {0, 0, 0}, e1[3], e2[3];
        int ax = fabs(u[0]) < fabs(u[1]) ? (fabs(u[0]) < fabs(u[2]) ? 0 : 2)
                                         : (fabs(u[1]) < fabs(u[2]) ? 1 : 2);
        helper[ax] = 1.0;
        cross(helper, u, e1);
        normalize3(e1);
        cross(u, e1, e2);

        /* The driver p, and the joints the ends hand off to: p's parent at A (if any) and
         * j at B when j itself drives a bone (has children). */
        int self = ENTRY(p);
        int prev = parents[p] >= 0 ? ENTRY(parents[p]) : -1;
        int has_child = 0;
        for (int k = j + 1; k < nj && !has_child; ++k)
            has_child = parents[k] == j;
        int next = has_child ? ENTRY(j) : -1;

        uint32_t base = (uint32_t)g.nv;
        /* Profile: pole A, cap rings, body rings, cap rings, pole B. */
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
            double wp = prev >= 0 ? handoff(sp / blend) : 0.0;
            double wn = next >= 0 ? handoff((1.0 - sp) / blend) : 0.0;
            double ws = 1.0 - wp - wn;
            int count = (ri == -1 || ri == ring_count) ? 1 : sides;
            for (int m = 0; m < count; ++m) {
                double phi = 2.0 * PI_ * (double)m / (double)sides;
                double cp = cos(phi), sn = sin(phi);
                size_t v = (size_t)g.nv++;
                for (int c = 0; c < 3; ++c) {
                    double radial = cp * e1[c] + sn * e2[c];
                    g.pos[3 * v + (size_t)c] = (float)(A[c] + a * u[c] + rho * radial);
                    g.nrm[3 * v + (size_t)c] = (float)(na * u[c] + nr * radial);
                }
                g.jt[3 * v] = self;
                g.w[3 * v] = (float)ws;
                g.jt[3 * v + 1] = prev >= 0 ? prev : self;
                g.w[3 * v + 1] = (float)wp;
                g.jt[3 * v + 2] = next >= 0 ? next : self;
                g.w[3 * v + 2] = (float)wn;
            }
        }
        /* Triangles, counter-clockwise seen from outside. Ring ri's first vertex. */
#define RV(ri, m) (base + 1u + (uint32_t)(ri) * (uint32_t)sides + (uint32_t)((m) % sides))
        uint32_t pole_a = base, pole_b = base + 1u + (uint32_t)ring_count * (uint32_t)sides;
        for (int m = 0; m < sides; ++m) {
            uint32_t *t = &g.tri[3 * (size_t)g.nt++];
            t[0] = pole_a;
            t[1] = RV(0, m + 1);
            t[2] = RV(0, m);
        }
        for (int ri = 0; ri + 1 < ring_count; ++ri)
            for (int m = 0; m < sides; ++m) {
                uint32_t *t = &g.tri[3 * (size_t)g.nt++];
                t[0] = RV(ri, m);
                t[1] = RV(ri, m + 1);
                t[2] = RV(ri + 1, m + 1);
                t = &g.tri[3 * (size_t)g.nt++];
                t[0] = RV(ri, m);
                t[1] = RV(ri + 1, m + 1);
                t[2] = RV(ri + 1, m);
            }
        for (int m = 0; m < sides; ++m) {
            uint32_t *t = &g.tri[3 * (size_t)g.nt++];
            t[0] = RV(ring_count - 1, m);
            t[1] = RV(ring_count - 1, m + 1);
            t[2] = pole_b;
        }
#undef RV
    }
#undef ENTRY
    for (int e = 0; e < ns; ++e)
        if (!mb_mesh_invert4_(world[skin_joints[e]], ibm[e])) {
            st = MB_INVALID_ARG;
            goto done;
        }
    mb_mesh_desc md;
    memset(&md, 0, sizeof md);
    md.vertex_count = g.nv;
    md.positions = g.pos;
    md.normals = g.nrm;
    md.triangle_count = g.nt;
    md.triangles = g.tri;
    md.influences = 3;
    md.joints = g.jt;
    md.weights = g.w;
    md.skin_joint_count = ns;
    md.skin_joints = skin_joints;
    md.inverse_bind = (const float(*)[16])ibm;
    md.skeleton_joint_count = nj;
    md.bind_pose = bind;
    md.allocator = *al;
    st = mb_mesh_create(&md, out);
done:
    mb_free_(al, below);
    mb_free_(al, bind);
    mb_free_(al, world);
    mb_free_(al, entry);
    mb_free_(al, skin_joints);
    mb_free_(al, ibm);
    mb_free_(al, g.pos);
    mb_free_(al, g.nrm);
    mb_free_(al, g.w);
    mb_free_(al, g.jt);
    mb_free_(al, g.tri);
    return st;
}
