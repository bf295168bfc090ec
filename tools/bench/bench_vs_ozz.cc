/* bench_vs_ozz: mblend's per-frame jobs next to ozz-animation 0.16.0's, in one process, on the
 * same data, timed adjacent and alternating (README.md, "How we compare with ozz-animation").
 * Built only with -DMB_OZZ_DIR=<an ozz-animation 0.16.0 source tree> (tools/bench/ozz.cmake).
 *
 * Rows (each: ozz and mblend, ns per joint or per vertex, the ratio mblend / ozz):
 *   sample    ozz SamplingJob vs mb_clip_sample; 10 s clips keyed at 30 Hz (301 keys per
 *             joint, the root's translation tracked); sequential 60 Hz playback, and random
 *             seek with ozz built without iframes and with 1 s iframes;
 *   blend     ozz BlendingJob vs mb_blend_run (log/exp, the default; MB_BLEND_NLERP), 2 and
 *             4 layers, inputs within 30 and 90 degrees of a per-joint centre (bench_blend's
 *             clustered and spread sets), random signs, random positive weights, 8 frames
 *             cycled;
 *   fk        ozz LocalToModelJob vs mb_fk;
 *   skin      ozz SkinningJob vs mb_skin_run (LBS: uint16 indices + float weights, indices
 *             checked and trusted; uint8 indices + unorm16 weights), 1M vertices, 4
 *             influences, positions + normals, a palette of 64 matrices;
 * on random tree skeletons of 64 and 256 joints. Each library gets the data in its own
 * layout (ozz: SoA blocks of 4 joints, quantised animation keys, 3 weights per vertex;
 * mblend: AoS poses, float keys, 4 weights per vertex), joints in the same depth-first order
 * (the joint map between the two is kept general and checked). Every row is checked before
 * it is timed (the "check" column): sampling, nlerp blend, FK and skinning against ozz's
 * outputs, the log/exp blend against a double-precision reference computed here (ozz
 * blends by nlerp, which differs by design: up to 0.08 rad on the 90-degree sets).
 *
 * Timing: thread CPU time; per row, R runs, each an ozz batch and an mblend batch of the
 * same number of calls (about --ms milliseconds for the slower side), adjacent, the order
 * alternating run by run. Printed: the medians over the runs and, for the ratio, the median
 * of the per-run ratios and their range (min-max). Speed is printed, never asserted; the
 * exit status is 1 when a check fails or a job reports an error.
 *
 * Adding an mblend variant: a prepared blend job is one more entry of blend_variants (a
 * lambda blending one frame of a pose set, built per set so it can prepare once); another
 * skin format or method one more entry of skin_variants. Kernels picked inside mblend's
 * jobs need nothing here (MB_ISA=... in the environment caps the choice). A new job pair is
 * a Row: two lambdas that run n calls and a check; the harness does the rest.
 *
 * Options: --runs N (default 9), --ms N (batch length, default 20), --vertices N (default
 *          1000000), --only SUBSTR (rows whose name contains it), --seed N,
 *          --quick (3 runs, 5 ms batches, 100k vertices: a smoke run). */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <lapacke.h>

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/geometry/runtime/skinning_job.h"

#include "bench_util.h"
#include "mblend/offline/clip_build.h"
#include "mblend/runtime/anim.h"
#include "mblend/runtime/blend.h"
#include "mblend/runtime/skin.h"

namespace {

namespace oa = ozz::animation;
namespace om = ozz::math;

constexpr int kFrames = 8;            /* blend / FK inputs cycled, as in an animation loop */
constexpr int kMaxLayers = 4;
constexpr double kClipSeconds = 10.0;
constexpr int kClipHz = 30;
constexpr int kClipKeys = 301;        /* 0 .. 10 s inclusive */
constexpr int kPalette = 64;
constexpr double kPi = 3.14159265358979323846;

uint64_t g_rng = 0x9E3779B97F4A7C15ull;
double urand() { return bench_urand(&g_rng); }

int g_failures = 0; /* jobs that returned an error inside timed loops */

/* ---------- quaternions in double (x, y, z, w) ---------- */

struct Qd {
    double x, y, z, w;
};

Qd qmul(const Qd &p, const Qd &q)
{
    return {p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
            p.w * q.y - p.x * q.z + p.y * q.w + p.z * q.x,
            p.w * q.z + p.x * q.y - p.y * q.x + p.z * q.w,
            p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z};
}

Qd qconj(const Qd &q) { return {-q.x, -q.y, -q.z, q.w}; }
double qdot(const Qd &a, const Qd &b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
Qd qload(const float *f) { return {f[0], f[1], f[2], f[3]}; }

/* The rotation by |v| * 2 about v: exp of the pure quaternion v. */
Qd qexp(const double v[3])
{
    double a = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    double s = a > 1e-12 ? std::sin(a) / a : 1.0;
    return {v[0] * s, v[1] * s, v[2] * s, std::cos(a)};
}

/* The inverse of qexp for a unit q with w >= 0 (half angles). */
void qlog(const Qd &q, double out[3])
{
    double n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    double s = n > 1e-12 ? std::atan2(n, q.w) / n : 1.0;
    out[0] = q.x * s;
    out[1] = q.y * s;
    out[2] = q.z * s;
}

/* The angle (radians) between the rotations a and b, whatever their lengths and signs. */
double rot_angle(const float *a, const float *b)
{
    Qd p = qload(a), q = qload(b);
    double c = std::fabs(qdot(p, q)) / std::sqrt(qdot(p, p) * qdot(q, q));
    return 2 * std::acos(std::min(1.0, c));
}

Qd random_unit()
{
    double u1 = urand(), u2 = urand() * 2 * kPi, u3 = urand() * 2 * kPi;
    double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    return {a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3)};
}

/* A rotation by an angle uniform in [0, max_angle] about a uniform random axis (the sets
 * of bench_blend.c). */
Qd random_within(double max_angle)
{
    double ax[3], n;
    do {
        for (double &c : ax)
            c = 2 * urand() - 1;
        n = std::sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    } while (n < 1e-3 || n > 1);
    double h = 0.5 * max_angle * urand(), s = std::sin(h) / n;
    return {ax[0] * s, ax[1] * s, ax[2] * s, std::cos(h)};
}

/* ---------- ozz SoA access ---------- */

float soa_lane(om::SimdFloat4 v, int lane)
{
    float f[4];
    om::StorePtrU(v, f);
    return f[lane];
}

void soa_set(om::SimdFloat4 *v, int lane, float value)
{
    float f[4];
    om::StorePtrU(*v, f);
    f[lane] = value;
    *v = om::simd_float4::LoadPtrU(f);
}

/* Writes x into joint o of an ozz SoA pose (scale 1). */
void soa_put(om::SoaTransform *soa, int o, const mb_xform &x)
{
    om::SoaTransform &b = soa[o / 4];
    int l = o % 4;
    soa_set(&b.rotation.x, l, x.rot[0]);
    soa_set(&b.rotation.y, l, x.rot[1]);
    soa_set(&b.rotation.z, l, x.rot[2]);
    soa_set(&b.rotation.w, l, x.rot[3]);
    soa_set(&b.translation.x, l, x.pos[0]);
    soa_set(&b.translation.y, l, x.pos[1]);
    soa_set(&b.translation.z, l, x.pos[2]);
    soa_set(&b.scale.x, l, 1.f);
    soa_set(&b.scale.y, l, 1.f);
    soa_set(&b.scale.z, l, 1.f);
}

mb_xform soa_get(const om::SoaTransform *soa, int o)
{
    const om::SoaTransform &b = soa[o / 4];
    int l = o % 4;
    return {{soa_lane(b.rotation.x, l), soa_lane(b.rotation.y, l), soa_lane(b.rotation.z, l),
             soa_lane(b.rotation.w, l)},
            {soa_lane(b.translation.x, l), soa_lane(b.translation.y, l),
             soa_lane(b.translation.z, l)}};
}

std::vector<om::SoaTransform> soa_identity(int joints)
{
    return std::vector<om::SoaTransform>((size_t)(joints + 3) / 4, om::SoaTransform::identity());
}

/* ---------- checks ---------- */

/* The largest difference a check saw, against its tolerance. */
struct Check {
    double rot = 0;   /* radians */
    double pos = 0;   /* translation or vertex units, relative to max(1, |value|) */
    double rot_tol = 0, pos_tol = 0;
    bool ok() const { return rot <= rot_tol && pos <= pos_tol; }
    void pose(const mb_xform &a, const mb_xform &b)
    {
        rot = std::max(rot, rot_angle(a.rot, b.rot));
        for (int c = 0; c < 3; ++c)
            pos = std::max(pos, std::fabs(a.pos[c] - b.pos[c]) /
                                    std::max(1.0, (double)std::fabs(b.pos[c])));
    }
    void vec(const float *a, const float *b, int n)
    {
        for (int c = 0; c < n; ++c)
            pos = std::max(pos, std::fabs(a[c] - b[c]) / std::max(1.0, (double)std::fabs(b[c])));
    }
};

} // namespace

/* ---------- skeletons and clips, built for both libraries ---------- */

namespace {

/* One random tree skeleton and its 10 s clip, as an mblend skeleton and clip and as an ozz
 * Skeleton and two Animations. mblend's joints are in depth-first order (parents first);
 * ozz's SkeletonBuilder orders joints its own way, so perm maps ozz joint o to mblend joint
 * perm[o] (found by name) and inv the other way. */
struct Rig {
    int n = 0;
    std::vector<int> parent;
    std::vector<std::vector<int>> kids;
    std::vector<mb_xform> rest; /* offsets, identity rotations */
    mb_skeleton *skel = nullptr;
    mb_clip *clip = nullptr;
    ozz::unique_ptr<oa::Skeleton> oskel;
    ozz::unique_ptr<oa::Animation> oanim[2]; /* [0] without iframes, [1] iframes every 1 s */
    std::vector<int> perm, inv;
    Rig() = default;
    Rig(const Rig &) = delete;
    Rig &operator=(const Rig &) = delete;
    ~Rig()
    {
        mb_clip_destroy(clip);
        mb_skeleton_destroy(skel);
    }
};

[[noreturn]] void die(const char *what, const mb_error *err)
{
    char buf[600];
    std::fprintf(stderr, "bench_vs_ozz: %s%s%s\n", what, err ? ": " : "",
                 err ? mb_error_format(err, buf, sizeof buf) : "");
    std::exit(2);
}

std::string joint_name(int j)
{
    char b[32];
    std::snprintf(b, sizeof b, "j%03d", j);
    return b;
}

/* A random tree: mostly chains (a joint continues its predecessor's chain 70% of the time),
 * renumbered depth-first; bones 5-30 cm long, the root 1 m up. */
void make_tree(Rig &r, int n)
{
    std::vector<int> raw((size_t)n, -1);
    for (int i = 1; i < n; ++i)
        raw[(size_t)i] = urand() < 0.7 ? i - 1 : (int)(urand() * i);
    std::vector<std::vector<int>> kids((size_t)n);
    for (int i = 1; i < n; ++i)
        kids[(size_t)raw[(size_t)i]].push_back(i);
    std::vector<int> order, stack{0}, renum((size_t)n);
    while (!stack.empty()) {
        int j = stack.back();
        stack.pop_back();
        order.push_back(j);
        for (auto it = kids[(size_t)j].rbegin(); it != kids[(size_t)j].rend(); ++it)
            stack.push_back(*it);
    }
    for (int k = 0; k < n; ++k)
        renum[(size_t)order[(size_t)k]] = k;
    r.n = n;
    r.parent.assign((size_t)n, -1);
    r.kids.assign((size_t)n, {});
    for (int k = 1; k < n; ++k) {
        r.parent[(size_t)k] = renum[(size_t)raw[(size_t)order[(size_t)k]]];
        r.kids[(size_t)r.parent[(size_t)k]].push_back(k);
    }
    r.rest.assign((size_t)n, mb_xform{{0, 0, 0, 1}, {0, 1, 0}});
    for (int k = 1; k < n; ++k) {
        Qd d = random_unit();
        double len = 0.05 + 0.25 * urand(), s = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
        for (int c = 0; c < 3; ++c)
            r.rest[(size_t)k].pos[c] = (float)(len * (&d.x)[c] / s);
    }
}

void build_mb_skeleton(Rig &r)
{
    std::vector<std::string> names((size_t)r.n);
    std::vector<mb_joint_desc> d((size_t)r.n);
    for (int j = 0; j < r.n; ++j) {
        mb_joint_desc &jd = d[(size_t)j];
        names[(size_t)j] = joint_name(j);
        jd = mb_joint_desc{};
        jd.name = names[(size_t)j].c_str();
        jd.parent = r.parent[(size_t)j];
        std::memcpy(jd.offset, r.rest[(size_t)j].pos, sizeof jd.offset);
        const mb_channel root[6] = {MB_CH_XPOS, MB_CH_YPOS, MB_CH_ZPOS,
                                    MB_CH_ZROT, MB_CH_XROT, MB_CH_YROT};
        jd.channel_count = j == 0 ? 6 : 3;
        std::memcpy(jd.channels, j == 0 ? root : root + 3,
                    sizeof(mb_channel) * (size_t)jd.channel_count);
    }
    mb_skeleton_desc sd{d.data(), r.n, {}};
    mb_error err;
    if (mb_skeleton_create(&sd, &r.skel, &err) != MB_OK)
        die("mb_skeleton_create", &err);
}

void add_raw_joint(const Rig &r, int j, oa::offline::RawSkeleton::Joint *out)
{
    out->name = joint_name(j).c_str();
    const float *p = r.rest[(size_t)j].pos;
    out->transform.translation = om::Float3(p[0], p[1], p[2]);
    out->transform.rotation = om::Quaternion::identity();
    out->transform.scale = om::Float3::one();
    out->children.resize(r.kids[(size_t)j].size());
    for (size_t k = 0; k < r.kids[(size_t)j].size(); ++k)
        add_raw_joint(r, r.kids[(size_t)j][k], &out->children[k]);
}

/* The ozz skeleton of the same tree, and the joint maps between the two orders (checked:
 * the parents must agree). */
void build_ozz_skeleton(Rig &r)
{
    oa::offline::RawSkeleton raw;
    raw.roots.resize(1);
    add_raw_joint(r, 0, &raw.roots[0]);
    r.oskel = oa::offline::SkeletonBuilder()(raw);
    if (!r.oskel || r.oskel->num_joints() != r.n)
        die("ozz SkeletonBuilder failed", nullptr);
    std::map<std::string, int> by_name;
    for (int j = 0; j < r.n; ++j)
        by_name[joint_name(j)] = j;
    r.perm.assign((size_t)r.n, -1);
    r.inv.assign((size_t)r.n, -1);
    for (int o = 0; o < r.n; ++o) {
        int j = by_name.at(r.oskel->joint_names()[(size_t)o]);
        r.perm[(size_t)o] = j;
        r.inv[(size_t)j] = o;
    }
    for (int o = 0; o < r.n; ++o) {
        int op = r.oskel->joint_parents()[(size_t)o];
        int want = r.parent[(size_t)r.perm[(size_t)o]];
        if ((op < 0 ? -1 : r.perm[(size_t)op]) != want)
            die("ozz and mblend skeletons disagree on a parent", nullptr);
    }
}

/* 10 s at 30 Hz: every joint turns smoothly (two sines per axis about a random rest
 * orientation, up to about 1 rad); the root also moves (its translation is tracked). */
void build_mb_clip(Rig &r)
{
    std::vector<float> rot((size_t)kClipKeys * (size_t)r.n * 4), tr((size_t)kClipKeys * 3);
    for (int j = 0; j < r.n; ++j) {
        Qd base = random_within(kPi / 3);
        double amp[3][2], fr[3][2], ph[3][2];
        for (int c = 0; c < 3; ++c)
            for (int h = 0; h < 2; ++h) {
                amp[c][h] = 0.5 * urand();
                fr[c][h] = 0.2 + 1.3 * urand();
                ph[c][h] = 2 * kPi * urand();
            }
        for (int f = 0; f < kClipKeys; ++f) {
            double t = (double)f / kClipHz, v[3];
            for (int c = 0; c < 3; ++c)
                v[c] = 0.5 * (amp[c][0] * std::sin(2 * kPi * fr[c][0] * t + ph[c][0]) +
                              amp[c][1] * std::sin(2 * kPi * fr[c][1] * t + ph[c][1]));
            Qd q = qmul(base, qexp(v));
            float *o = &rot[((size_t)f * (size_t)r.n + (size_t)j) * 4];
            o[0] = (float)q.x, o[1] = (float)q.y, o[2] = (float)q.z, o[3] = (float)q.w;
        }
    }
    for (int f = 0; f < kClipKeys; ++f) {
        double t = (double)f / kClipHz;
        tr[(size_t)f * 3 + 0] = (float)(0.5 * std::sin(0.7 * t));
        tr[(size_t)f * 3 + 1] = (float)(1.0 + 0.1 * std::sin(2.1 * t));
        tr[(size_t)f * 3 + 2] = (float)(-1.0 + 0.2 * t);
    }
    const int tracked[1] = {0};
    mb_clip_desc cd{r.n, kClipKeys, 1.0 / kClipHz, rot.data(), tracked, 1, tr.data(), {}};
    mb_error err;
    if (mb_clip_create(&cd, &r.clip, &err) != MB_OK)
        die("mb_clip_create", &err);
}

/* The same keys for ozz (read back from the mblend clip, so both start from identical
 * floats): every rotation key, the root's translation keys, one constant key for the other
 * translations and for scales. ozz quantises keys when it builds the animation. */
ozz::unique_ptr<oa::Animation> build_ozz_animation(const Rig &r, float iframe_interval)
{
    oa::offline::RawAnimation raw;
    raw.duration = (float)kClipSeconds;
    raw.tracks.resize((size_t)r.n);
    const float *rot = mb_clip_rotations(r.clip), *tr = mb_clip_translations(r.clip);
    for (int o = 0; o < r.n; ++o) {
        int j = r.perm[(size_t)o];
        oa::offline::RawAnimation::JointTrack &tk = raw.tracks[(size_t)o];
        for (int f = 0; f < kClipKeys; ++f) {
            const float *q = &rot[((size_t)f * (size_t)r.n + (size_t)j) * 4];
            float t = (float)f / (float)kClipHz;
            tk.rotations.push_back({t, om::Quaternion(q[0], q[1], q[2], q[3])});
            if (j == 0)
                tk.translations.push_back({t, om::Float3(tr[(size_t)f * 3], tr[(size_t)f * 3 + 1],
                                                         tr[(size_t)f * 3 + 2])});
        }
        if (j != 0) {
            const float *p = r.rest[(size_t)j].pos;
            tk.translations.push_back({0.f, om::Float3(p[0], p[1], p[2])});
        }
        tk.scales.push_back({0.f, om::Float3::one()});
    }
    oa::offline::AnimationBuilder builder;
    builder.iframe_interval = iframe_interval;
    ozz::unique_ptr<oa::Animation> a = builder(raw);
    if (!a)
        die("ozz AnimationBuilder failed", nullptr);
    return a;
}

std::unique_ptr<Rig> make_rig(int joints)
{
    std::unique_ptr<Rig> r(new Rig);
    make_tree(*r, joints);
    build_mb_skeleton(*r);
    build_ozz_skeleton(*r);
    build_mb_clip(*r);
    r->oanim[0] = build_ozz_animation(*r, 0.f);
    r->oanim[1] = build_ozz_animation(*r, 1.f);
    return r;
}

/* K input poses for kFrames frames, per joint within max_angle of a per-joint centre, random
 * signs, translations near the rest offsets (the root anywhere in a 2 m box), weights
 * 0.2 + U(0, 1) normalised per frame. Both layouts hold the same floats. */
struct PoseSet {
    int n = 0, k = 0;
    std::vector<mb_xform> aos[kFrames][kMaxLayers];
    std::vector<om::SoaTransform> soa[kFrames][kMaxLayers];
    mb_pose pose[kFrames][kMaxLayers];
    float w[kFrames][kMaxLayers];
};

std::shared_ptr<PoseSet> make_poses(const Rig &r, int k, double max_angle)
{
    auto s = std::make_shared<PoseSet>();
    s->n = r.n;
    s->k = k;
    std::vector<Qd> centre((size_t)r.n);
    for (Qd &c : centre)
        c = random_unit();
    for (int f = 0; f < kFrames; ++f) {
        double wsum = 0;
        for (int i = 0; i < k; ++i)
            wsum += s->w[f][i] = (float)(0.2 + urand());
        for (int i = 0; i < k; ++i) {
            s->w[f][i] = (float)(s->w[f][i] / wsum);
            s->aos[f][i].resize((size_t)r.n);
            s->soa[f][i] = soa_identity(r.n);
            s->pose[f][i] = mb_pose{s->aos[f][i].data(), r.n};
            for (int j = 0; j < r.n; ++j) {
                Qd q = qmul(centre[(size_t)j], random_within(max_angle));
                double sg = urand() < 0.5 ? -1.0 : 1.0;
                mb_xform &x = s->aos[f][i][(size_t)j];
                x.rot[0] = (float)(sg * q.x), x.rot[1] = (float)(sg * q.y);
                x.rot[2] = (float)(sg * q.z), x.rot[3] = (float)(sg * q.w);
                for (int c = 0; c < 3; ++c)
                    x.pos[c] = r.rest[(size_t)j].pos[c] +
                               (float)((j == 0 ? 1.0 : 0.02) * (2 * urand() - 1));
                soa_put(s->soa[f][i].data(), r.inv[(size_t)j], x);
            }
        }
    }
    return s;
}

} // namespace

/* ---------- rows: one ozz job and one mblend job on the same data ---------- */

namespace {

using Batch = std::function<void(long calls)>;

struct Row {
    std::string name;
    const char *unit;           /* "joint" or "vertex" */
    double units;               /* per call */
    Batch ozz, mb;
    std::function<Check()> check; /* run once before timing */
};

template <class T> ozz::span<T> span_of(std::vector<T> &v) { return {v.data(), v.size()}; }
template <class T> ozz::span<const T> cspan_of(const std::vector<T> &v)
{
    return {v.data(), v.size()};
}

/* ----- sampling ----- */

struct SampleState {
    const Rig *r;
    const oa::Animation *anim;
    std::unique_ptr<oa::SamplingJob::Context> ctx;
    std::vector<double> times;
    std::vector<om::SoaTransform> out_o;
    std::vector<mb_xform> out_m;
    size_t next_o = 0, next_m = 0; /* each side walks the same time sequence */
};

bool ozz_sample(SampleState &s, double t)
{
    oa::SamplingJob job;
    job.animation = s.anim;
    job.context = s.ctx.get();
    job.ratio = (float)(t / kClipSeconds);
    job.output = span_of(s.out_o);
    return job.Run();
}

mb_status mb_sample(SampleState &s, double t)
{
    return mb_clip_sample(s.r->skel, s.r->clip, t, MB_WRAP_CLAMP,
                          mb_pose{s.out_m.data(), s.r->n});
}

/* Both along the row's time sequence from a fresh ozz context: every joint of every call
 * agrees within the keys' quantisation (ozz stores rotations in 3 x 16 bits and
 * translations as half floats) and the nlerp (ozz) vs slerp (mblend) between keys 1/30 s
 * apart. */
Check check_sample(SampleState &s)
{
    Check c;
    c.rot_tol = 2e-3;
    c.pos_tol = 2e-3;
    s.ctx->Invalidate();
    size_t calls = std::min<size_t>(s.times.size(), 1200);
    for (size_t i = 0; i < calls; ++i) {
        if (!ozz_sample(s, s.times[i]) || mb_sample(s, s.times[i]) != MB_OK)
            ++g_failures;
        for (int o = 0; o < s.r->n; ++o)
            c.pose(s.out_m[(size_t)s.r->perm[(size_t)o]], soa_get(s.out_o.data(), o));
    }
    s.ctx->Invalidate();
    return c;
}

void add_sample_row(std::vector<Row> &rows, const Rig &r, const char *what, int anim,
                    std::vector<double> times)
{
    auto s = std::make_shared<SampleState>();
    s->r = &r;
    s->anim = r.oanim[anim].get();
    s->ctx.reset(new oa::SamplingJob::Context(r.n));
    s->times = std::move(times);
    s->out_o = soa_identity(r.n);
    s->out_m.resize((size_t)r.n);
    Row row;
    row.name = std::string("sample ") + what + " J=" + std::to_string(r.n);
    row.unit = "joint";
    row.units = r.n;
    row.ozz = [s](long calls) {
        for (long i = 0; i < calls; ++i)
            if (!ozz_sample(*s, s->times[s->next_o++ % s->times.size()]))
                ++g_failures;
    };
    row.mb = [s](long calls) {
        for (long i = 0; i < calls; ++i)
            if (mb_sample(*s, s->times[s->next_m++ % s->times.size()]) != MB_OK)
                ++g_failures;
    };
    row.check = [s] { return check_sample(*s); };
    rows.push_back(std::move(row));
}

void add_sample_rows(std::vector<Row> &rows, const Rig &r)
{
    std::vector<double> seq, seek;
    for (int i = 0; i < 60 * (int)kClipSeconds; ++i)
        seq.push_back(i / 60.0);
    for (int i = 0; i < 4096; ++i)
        seek.push_back(kClipSeconds * urand());
    add_sample_row(rows, r, "sequential 60 Hz", 0, seq);
    add_sample_row(rows, r, "random seek, ozz without iframes", 0, seek);
    add_sample_row(rows, r, "random seek, ozz iframes every 1 s", 1, seek);
}

/* ----- blending ----- */

bool ozz_blend(const Rig &r, const PoseSet &s, int f, std::vector<om::SoaTransform> &out)
{
    oa::BlendingJob::Layer layers[kMaxLayers];
    for (int i = 0; i < s.k; ++i) {
        layers[i].weight = s.w[f][i];
        layers[i].transform = cspan_of(s.soa[f][i]);
    }
    oa::BlendingJob job;
    job.layers = ozz::span<const oa::BlendingJob::Layer>(layers, (size_t)s.k);
    job.rest_pose = r.oskel->joint_rest_poses();
    job.output = span_of(out);
    return job.Run();
}

mb_status mb_blend(const PoseSet &s, int f, mb_blend_method method, std::vector<mb_xform> &out)
{
    mb_blend_layer layers[kMaxLayers];
    for (int i = 0; i < s.k; ++i)
        layers[i] = mb_blend_layer{&s.pose[f][i], s.w[f][i], nullptr};
    mb_blend_desc d{};
    d.layers = layers;
    d.layer_count = s.k;
    d.method = method;
    d.out = mb_pose{out.data(), s.n};
    return mb_blend_run(&d);
}

/* The log/exp blend of joint j in double: Markley's reference (the top eigenvector of
 * sum w_i q_i q_i^T, from LAPACKE), the weighted mean of the short-arc logs about it, exp. */
mb_xform ref_logexp(const PoseSet &s, int f, int j)
{
    double m[16] = {0}, ev[4];
    Qd q[kMaxLayers];
    for (int i = 0; i < s.k; ++i) {
        q[i] = qload(s.aos[f][i][(size_t)j].rot);
        double n = std::sqrt(qdot(q[i], q[i]));
        const double *qc = &q[i].x;
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
                m[a * 4 + b] += s.w[f][i] * qc[a] * qc[b] / (n * n);
    }
    if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', 4, m, 4, ev) != 0)
        die("LAPACKE_dsyev failed", nullptr);
    Qd ref{m[12], m[13], m[14], m[15]};
    double v[3] = {0, 0, 0}, wsum = 0;
    mb_xform out{{0, 0, 0, 1}, {0, 0, 0}};
    for (int i = 0; i < s.k; ++i) {
        double l[3], sg = qdot(ref, q[i]) < 0 ? -1 : 1;
        Qd qi{sg * q[i].x, sg * q[i].y, sg * q[i].z, sg * q[i].w};
        qlog(qmul(qconj(ref), qi), l);
        wsum += s.w[f][i];
        for (int c = 0; c < 3; ++c) {
            v[c] += s.w[f][i] * l[c];
            out.pos[c] += (float)(s.w[f][i] * (double)s.aos[f][i][(size_t)j].pos[c]);
        }
    }
    for (int c = 0; c < 3; ++c) {
        v[c] /= wsum;
        out.pos[c] = (float)(out.pos[c] / wsum);
    }
    Qd b = qmul(ref, qexp(v));
    out.rot[0] = (float)b.x, out.rot[1] = (float)b.y, out.rot[2] = (float)b.z;
    out.rot[3] = (float)b.w;
    return out;
}

/* An mblend blend variant: what it runs for one frame of a pose set, and what it must agree
 * with (ozz's BlendingJob for nlerp, the double log/exp reference otherwise). */
using BlendFn = std::function<mb_status(const PoseSet &s, int frame, std::vector<mb_xform> &out)>;
struct BlendVariant {
    const char *label;
    bool same_as_ozz;
    BlendFn run;
};

/* The variants timed against ozz's BlendingJob on each set. Built per set, so a variant
 * that prepares something once per layer set (a prepared blend job) can do it here and
 * capture it in its lambda. */
/* The prepared blend job (mb_blend_job): one job per frame of the set, initialised once
 * for an output buffer (again only when the caller passes another one), run per call. */
BlendFn mb_blend_job_fn(mb_blend_method method)
{
    struct Cache {
        const mb_xform *out = nullptr;
        std::vector<mb_blend_job> jobs;
    };
    auto cache = std::make_shared<Cache>();
    return [cache, method](const PoseSet &s, int f, std::vector<mb_xform> &out) {
        if (cache->out != out.data()) {
            cache->jobs.assign(kFrames, mb_blend_job{});
            for (int g = 0; g < kFrames; ++g) {
                mb_blend_layer layers[kMaxLayers];
                for (int i = 0; i < s.k; ++i)
                    layers[i] = mb_blend_layer{&s.pose[g][i], s.w[g][i], nullptr};
                mb_blend_desc d{};
                d.layers = layers;
                d.layer_count = s.k;
                d.method = method;
                d.out = mb_pose{out.data(), s.n};
                mb_status st = mb_blend_job_init(&d, &cache->jobs[(size_t)g]);
                if (st != MB_OK)
                    return st;
            }
            cache->out = out.data();
        }
        return mb_blend_job_run(&cache->jobs[(size_t)f], nullptr);
    };
}

std::vector<BlendVariant> blend_variants(const std::shared_ptr<const PoseSet> &)
{
    return {
        {"log/exp", false,
         [](const PoseSet &s, int f, std::vector<mb_xform> &out) {
             return mb_blend(s, f, MB_BLEND_LOGEXP, out);
         }},
        {"log/exp job", false, mb_blend_job_fn(MB_BLEND_LOGEXP)},
        {"nlerp", true,
         [](const PoseSet &s, int f, std::vector<mb_xform> &out) {
             return mb_blend(s, f, MB_BLEND_NLERP, out);
         }},
        {"nlerp job", true, mb_blend_job_fn(MB_BLEND_NLERP)},
    };
}

/* Over every frame and joint: the variant against ozz's output (same method: equal up to
 * float rounding) or against the double log/exp reference. */
Check check_blend(const Rig &r, const PoseSet &s, const BlendVariant &v)
{
    Check c;
    c.rot_tol = 2e-3;
    c.pos_tol = 1e-5;
    std::vector<om::SoaTransform> out_o = soa_identity(r.n);
    std::vector<mb_xform> out_m((size_t)r.n);
    for (int f = 0; f < kFrames; ++f) {
        if (!ozz_blend(r, s, f, out_o) || v.run(s, f, out_m) != MB_OK)
            ++g_failures;
        for (int o = 0; o < r.n; ++o) {
            int j = r.perm[(size_t)o];
            c.pose(out_m[(size_t)j],
                   v.same_as_ozz ? soa_get(out_o.data(), o) : ref_logexp(s, f, j));
        }
    }
    return c;
}

/* One row per blend variant against ozz's BlendingJob on a set of K inputs within degrees
 * of a per-joint centre. */
void add_blend_rows(std::vector<Row> &rows, const Rig &r, int k, int degrees)
{
    std::shared_ptr<const PoseSet> s = make_poses(r, k, degrees * kPi / 180);
    for (const BlendVariant &v : blend_variants(s)) {
        auto out_o = std::make_shared<std::vector<om::SoaTransform>>(soa_identity(r.n));
        auto out_m = std::make_shared<std::vector<mb_xform>>((size_t)r.n);
        const Rig *rp = &r;
        Row row;
        row.name = "blend K=" + std::to_string(k) + " " + std::to_string(degrees) + " deg " +
                   v.label + " J=" + std::to_string(r.n);
        row.unit = "joint";
        row.units = r.n;
        row.ozz = [rp, s, out_o](long calls) {
            for (long i = 0; i < calls; ++i)
                if (!ozz_blend(*rp, *s, (int)(i % kFrames), *out_o))
                    ++g_failures;
        };
        BlendFn run = v.run;
        row.mb = [s, out_m, run](long calls) {
            for (long i = 0; i < calls; ++i)
                if (run(*s, (int)(i % kFrames), *out_m) != MB_OK)
                    ++g_failures;
        };
        row.check = [rp, s, v] { return check_blend(*rp, *s, v); };
        rows.push_back(std::move(row));
    }
}

/* ----- local to model (FK) ----- */

struct FkState {
    const Rig *r;
    std::shared_ptr<PoseSet> s;
    std::vector<om::Float4x4> models;
    std::vector<float> world; /* [joint][16] */
};

bool ozz_fk(FkState &st, int f)
{
    oa::LocalToModelJob job;
    job.skeleton = st.r->oskel.get();
    job.input = cspan_of(st.s->soa[f][0]);
    job.output = span_of(st.models);
    return job.Run();
}

mb_status mb_fk_run(FkState &st, int f)
{
    return mb_fk(st.r->skel, &st.s->pose[f][0], reinterpret_cast<float(*)[16]>(st.world.data()),
                 st.r->n);
}

Check check_fk(FkState &st)
{
    Check c;
    c.pos_tol = 1e-5;
    for (int f = 0; f < kFrames; ++f) {
        if (!ozz_fk(st, f) || mb_fk_run(st, f) != MB_OK)
            ++g_failures;
        for (int o = 0; o < st.r->n; ++o) {
            float m[16];
            for (int col = 0; col < 4; ++col)
                om::StorePtrU(st.models[(size_t)o].cols[col], m + 4 * col);
            c.vec(&st.world[(size_t)st.r->perm[(size_t)o] * 16], m, 16);
        }
    }
    return c;
}

void add_fk_row(std::vector<Row> &rows, const Rig &r)
{
    auto st = std::make_shared<FkState>();
    st->r = &r;
    st->s = make_poses(r, 1, kPi);
    st->models.resize((size_t)r.n);
    st->world.resize((size_t)r.n * 16);
    Row row;
    row.name = "local-to-model / mb_fk J=" + std::to_string(r.n);
    row.unit = "joint";
    row.units = r.n;
    row.ozz = [st](long calls) {
        for (long i = 0; i < calls; ++i)
            if (!ozz_fk(*st, (int)(i % kFrames)))
                ++g_failures;
    };
    row.mb = [st](long calls) {
        for (long i = 0; i < calls; ++i)
            if (mb_fk_run(*st, (int)(i % kFrames)) != MB_OK)
                ++g_failures;
    };
    row.check = [st] { return check_fk(*st); };
    rows.push_back(std::move(row));
}

} // namespace

/* ---------- skinning ---------- */

namespace {

/* V vertices in [-1, 1]^3 with unit normals, 4 influences on random palette entries with
 * random weights summing to 1 (mblend reads all 4; ozz reads the first 3 and restores the
 * last), a palette of rigid transforms (random rotation, translation in [-1, 1]^3). */
struct SkinState {
    int v = 0;
    std::vector<float> pos, nrm, w4, w3, outp_o, outn_o, outp_m, outn_m;
    std::vector<uint16_t> idx, w16; /* w16: the weights as unorm16 (mblend's compact format) */
    std::vector<uint8_t> idx8;
    std::vector<float> palette; /* [kPalette][16], column-major */
    std::vector<om::Float4x4> opalette;
};

std::shared_ptr<SkinState> make_skin(int vertices)
{
    auto s = std::make_shared<SkinState>();
    size_t v = (size_t)vertices;
    s->v = vertices;
    s->pos.resize(v * 3), s->nrm.resize(v * 3), s->w4.resize(v * 4), s->w3.resize(v * 3);
    s->idx.resize(v * 4), s->idx8.resize(v * 4), s->w16.resize(v * 4);
    for (std::vector<float> *o : {&s->outp_o, &s->outn_o, &s->outp_m, &s->outn_m})
        o->assign(v * 3, 0.f); /* pages faulted in before timing */
    for (size_t i = 0; i < v; ++i) {
        Qd d = random_unit();
        double n = std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z), w[4], sum = 0;
        for (int c = 0; c < 3; ++c) {
            s->pos[i * 3 + (size_t)c] = (float)(2 * urand() - 1);
            s->nrm[i * 3 + (size_t)c] = (float)((&d.x)[c] / n);
        }
        for (double &x : w)
            sum += x = 0.05 + urand();
        float acc = 0;
        for (int k = 0; k < 4; ++k) {
            float wk = k < 3 ? (float)(w[k] / sum) : 1.f - acc; /* sums to 1 in float */
            acc += wk;
            s->w4[i * 4 + (size_t)k] = wk;
            if (k < 3)
                s->w3[i * 3 + (size_t)k] = wk;
            s->idx[i * 4 + (size_t)k] = (uint16_t)(urand() * kPalette);
            s->idx8[i * 4 + (size_t)k] = (uint8_t)s->idx[i * 4 + (size_t)k];
            s->w16[i * 4 + (size_t)k] = (uint16_t)std::lround(wk * 65535.0);
        }
    }
    s->palette.resize(kPalette * 16);
    s->opalette.resize(kPalette);
    for (int p = 0; p < kPalette; ++p) {
        Qd q = random_unit();
        double m[16] = {1 - 2 * (q.y * q.y + q.z * q.z), 2 * (q.x * q.y + q.z * q.w),
                        2 * (q.x * q.z - q.y * q.w), 0, 2 * (q.x * q.y - q.z * q.w),
                        1 - 2 * (q.x * q.x + q.z * q.z), 2 * (q.y * q.z + q.x * q.w), 0,
                        2 * (q.x * q.z + q.y * q.w), 2 * (q.y * q.z - q.x * q.w),
                        1 - 2 * (q.x * q.x + q.y * q.y), 0, 2 * urand() - 1, 2 * urand() - 1,
                        2 * urand() - 1, 1};
        float *o = &s->palette[(size_t)p * 16];
        for (int e = 0; e < 16; ++e)
            o[e] = (float)m[e];
        for (int col = 0; col < 4; ++col)
            s->opalette[(size_t)p].cols[col] = om::simd_float4::LoadPtrU(o + 4 * col);
    }
    return s;
}

bool ozz_skin(SkinState &s)
{
    ozz::geometry::SkinningJob job;
    job.vertex_count = s.v;
    job.influences_count = 4;
    job.joint_matrices = cspan_of(s.opalette);
    job.joint_indices = cspan_of(s.idx);
    job.joint_indices_stride = 4 * sizeof(uint16_t);
    job.joint_weights = cspan_of(s.w3);
    job.joint_weights_stride = 3 * sizeof(float);
    job.in_positions = cspan_of(s.pos);
    job.in_positions_stride = 3 * sizeof(float);
    job.in_normals = cspan_of(s.nrm);
    job.in_normals_stride = 3 * sizeof(float);
    job.out_positions = span_of(s.outp_o);
    job.out_positions_stride = 3 * sizeof(float);
    job.out_normals = span_of(s.outn_o);
    job.out_normals_stride = 3 * sizeof(float);
    return job.Run();
}

/* mblend LBS, positions + normals, in one of its index/weight formats. */
mb_status mb_skin_lbs(SkinState &s, mb_skin_format format, int trusted)
{
    mb_skin_desc d{};
    d.method = MB_SKIN_LBS;
    d.palette = reinterpret_cast<const float(*)[16]>(s.palette.data());
    d.palette_count = kPalette;
    d.vertex_count = s.v;
    d.influences = 4;
    d.format = format;
    bool u8 = format == MB_SKIN_U8_UNORM16;
    d.joint_indices = u8 ? (const void *)s.idx8.data() : (const void *)s.idx.data();
    d.joint_weights = u8 ? (const void *)s.w16.data() : (const void *)s.w4.data();
    d.positions = s.pos.data();
    d.normals = s.nrm.data();
    d.out_positions = s.outp_m.data();
    d.out_normals = s.outn_m.data();
    d.trusted_indices = trusted;
    return mb_skin_run(&d);
}

/* An mblend skinning variant and how close it must come to ozz's output (tol: float
 * rounding for the same weights; unorm16 weights, each within 7.6e-6 of the float ones, move
 * a vertex by up to about 1e-4). */
using SkinFn = std::function<mb_status(SkinState &s)>;
struct SkinVariant {
    const char *label;
    double tol;
    SkinFn run;
};

/* The variants timed against ozz's SkinningJob (uint16 indices, float weights). Another
 * format or kernel is one more entry. */
std::vector<SkinVariant> skin_variants()
{
    return {
        {"u16+float, indices checked", 1e-5,
         [](SkinState &s) { return mb_skin_lbs(s, MB_SKIN_U16_FLOAT, 0); }},
        {"u16+float, indices trusted", 1e-5,
         [](SkinState &s) { return mb_skin_lbs(s, MB_SKIN_U16_FLOAT, 1); }},
        {"u8+unorm16, indices trusted", 2e-4,
         [](SkinState &s) { return mb_skin_lbs(s, MB_SKIN_U8_UNORM16, 1); }},
    };
}

Check check_skin(SkinState &s, const SkinVariant &v)
{
    Check c;
    c.pos_tol = v.tol;
    if (!ozz_skin(s) || v.run(s) != MB_OK)
        ++g_failures;
    c.vec(s.outp_m.data(), s.outp_o.data(), 3 * s.v);
    c.vec(s.outn_m.data(), s.outn_o.data(), 3 * s.v);
    return c;
}

void add_skin_rows(std::vector<Row> &rows, int vertices)
{
    std::shared_ptr<SkinState> s = make_skin(vertices);
    for (const SkinVariant &v : skin_variants()) {
        Row row;
        row.name = std::string("skin LBS pos+nrm, 4 infl, ") + v.label +
                   " V=" + std::to_string(vertices);
        row.unit = "vertex";
        row.units = vertices;
        row.ozz = [s](long calls) {
            for (long i = 0; i < calls; ++i)
                if (!ozz_skin(*s))
                    ++g_failures;
        };
        SkinFn run = v.run;
        row.mb = [s, run](long calls) {
            for (long i = 0; i < calls; ++i)
                if (run(*s) != MB_OK)
                    ++g_failures;
        };
        row.check = [s, v] { return check_skin(*s, v); };
        rows.push_back(std::move(row));
    }
}

/* ---------- the harness ---------- */

struct Opts {
    int runs = 9;
    double ms = 20;
    int vertices = 1000000;
    const char *only = nullptr;
    uint64_t seed = 0;
};

double time_batch(const Batch &b, long calls)
{
    double t0 = bench_cpu_now();
    b(calls);
    return bench_cpu_now() - t0;
}

/* Calls per batch so that the slower side takes about ms milliseconds. */
long calibrate(const Row &row, double ms)
{
    row.ozz(1);
    row.mb(1);
    long calls = 1;
    for (;;) {
        double t = std::max(time_batch(row.ozz, calls), time_batch(row.mb, calls));
        if (t >= 0.25e-3 * ms || calls >= (1L << 30))
            return std::max(1L, (long)std::ceil((double)calls * 1e-3 * ms / std::max(t, 1e-9)));
        calls *= 4;
    }
}

std::string fmt_check(const Check &c)
{
    char b[128];
    if (c.rot_tol > 0)
        std::snprintf(b, sizeof b, "%s: %.1e rad, %.1e (tol %.0e, %.0e)", c.ok() ? "ok" : "FAIL",
                      c.rot, c.pos, c.rot_tol, c.pos_tol);
    else
        std::snprintf(b, sizeof b, "%s: %.1e (tol %.0e)", c.ok() ? "ok" : "FAIL", c.pos,
                      c.pos_tol);
    return b;
}

/* Checks the row, then times R runs of one ozz batch and one mblend batch, adjacent, the
 * order alternating; prints a Markdown table row. Returns whether the check passed. */
bool run_row(const Row &row, const Opts &o)
{
    Check c = row.check();
    long calls = calibrate(row, o.ms);
    std::vector<double> t_o, t_m, ratio;
    for (int r = 0; r < o.runs; ++r) {
        double a, b;
        if (r % 2 == 0) {
            a = time_batch(row.ozz, calls);
            b = time_batch(row.mb, calls);
        } else {
            b = time_batch(row.mb, calls);
            a = time_batch(row.ozz, calls);
        }
        double per = 1e9 / ((double)calls * row.units);
        t_o.push_back(a * per);
        t_m.push_back(b * per);
        ratio.push_back(b / a);
    }
    int n = (int)ratio.size();
    std::printf("| %s | %.2f | %.2f | **%.2fx** | %.2f-%.2f | %s |\n", row.name.c_str(),
                bench_median(t_o.data(), n), bench_median(t_m.data(), n),
                bench_median(ratio.data(), n), *std::min_element(ratio.begin(), ratio.end()),
                *std::max_element(ratio.begin(), ratio.end()), fmt_check(c).c_str());
    std::fflush(stdout);
    return c.ok();
}

void usage(const char *argv0)
{
    std::fprintf(stderr,
                 "usage: %s [--runs N] [--ms N] [--vertices N] [--only SUBSTR] [--seed N] "
                 "[--quick]\n",
                 argv0);
    std::exit(2);
}

Opts parse_args(int argc, char **argv)
{
    Opts o;
    for (int a = 1; a < argc; ++a) {
        std::string s = argv[a];
        bool has = a + 1 < argc;
        if (s == "--runs" && has)
            o.runs = std::max(1, std::min(64, std::atoi(argv[++a])));
        else if (s == "--ms" && has)
            o.ms = std::max(0.1, std::atof(argv[++a]));
        else if (s == "--vertices" && has)
            o.vertices = std::max(1, std::atoi(argv[++a]));
        else if (s == "--only" && has)
            o.only = argv[++a];
        else if (s == "--seed" && has)
            o.seed = std::strtoull(argv[++a], nullptr, 0);
        else if (s == "--quick")
            o.runs = 3, o.ms = 5, o.vertices = 100000;
        else
            usage(argv[0]);
    }
    return o;
}

void print_header(const Opts &o)
{
    char load[128], model[256] = "unknown";
    bench_loadavg(load, sizeof load);
    if (FILE *f = std::fopen("/proc/cpuinfo", "r")) {
        char line[512];
        while (std::fgets(line, sizeof line, f))
            if (std::strncmp(line, "model name", 10) == 0 && std::strchr(line, ':')) {
                std::snprintf(model, sizeof model, "%s", std::strchr(line, ':') + 2);
                model[std::strcspn(model, "\n")] = '\0';
                break;
            }
        std::fclose(f);
    }
    const char *isa = std::getenv("MB_ISA");
    std::printf("bench_vs_ozz: ozz-animation 0.16.0 vs mblend, one process, same data\n"
                "cpu: %s; MB_ISA=%s; load before: %s\n"
                "%d runs per row, batches of about %.0f ms, thread CPU time; ns per joint "
                "(per vertex for skin); ratio = mblend / ozz: median of the per-run ratios "
                "and their range\n\n"
                "| job | ozz ns | mblend ns | mblend / ozz | ratio range | check |\n"
                "|---|---|---|---|---|---|\n",
                model, isa ? isa : "(unset)", load, o.runs, o.ms);
}

} // namespace

int main(int argc, char **argv)
{
    Opts o = parse_args(argc, argv);
    if (o.seed)
        g_rng = o.seed;
    mb_blend_prepare(); /* the exact solver's one-time set-up, outside the timings */
    print_header(o);

    std::vector<std::unique_ptr<Rig>> rigs;
    std::vector<Row> rows;
    for (int joints : {64, 256}) {
        rigs.push_back(make_rig(joints));
        const Rig &r = *rigs.back();
        add_sample_rows(rows, r);
        for (int degrees : {30, 90})
            for (int k : {2, 4})
                add_blend_rows(rows, r, k, degrees);
        add_fk_row(rows, r);
    }
    add_skin_rows(rows, o.vertices);

    int bad = 0;
    for (const Row &row : rows)
        if (!o.only || row.name.find(o.only) != std::string::npos)
            bad += !run_row(row, o);
    char load[128];
    bench_loadavg(load, sizeof load);
    std::printf("\nload after: %s\n", load);
    if (bad || g_failures) {
        std::fprintf(stderr, "bench_vs_ozz: %d check(s) failed, %d job error(s)\n", bad,
                     g_failures);
        return 1;
    }
    return 0;
}
