/* Shared by fuzz_role_map.c and fuzz_roles_bvh.c: a small humanoid BVH (CMU-style names,
 * T-pose, two frames) and the checks of roles, mirroring and retargeting that every input
 * must pass. A broken invariant aborts (libFuzzer reports a crash). */
#ifndef MB_FUZZ_ROLES_COMMON_H
#define MB_FUZZ_ROLES_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mblend/offline/bvh.h"
#include "mblend/offline/mirror.h"
#include "mblend/offline/retarget.h"
#include "mblend/offline/roles.h"

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "fuzz_roles: invariant failed at line %d: %s\n", __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

#define FZ_LIMB(S, sx)                                                                \
    "  JOINT " S "UpLeg\n  {\n    OFFSET " sx " -1 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "    JOINT " S "Leg\n    {\n      OFFSET 0 -4 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "      JOINT " S "Foot\n      {\n        OFFSET 0 -4 0\n        CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "        JOINT " S "ToeBase\n        {\n          OFFSET 0 -1 1\n          CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "          End Site\n          {\n            OFFSET 0 0 1\n          }\n        }\n      }\n    }\n  }\n"
#define FZ_ARM(S, sx, sx2)                                                                     \
    "        JOINT " S "Shoulder\n        {\n          OFFSET " sx " 1 0\n          CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "          JOINT " S "Arm\n          {\n            OFFSET " sx " 0 0\n            CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "            JOINT " S "ForeArm\n            {\n              OFFSET " sx2 " 0 0\n              CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "              JOINT " S "Hand\n              {\n                OFFSET " sx2 " 0 0\n                CHANNELS 3 Zrotation Xrotation Yrotation\n" \
    "                End Site\n                {\n                  OFFSET " sx " 0 0\n                }\n              }\n            }\n          }\n        }\n"

/* 21 joints with channels: Hips (6), then 20 x 3 rotations; the motion is made at load. */
static const char fz_humanoid[] =
    "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n"
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    FZ_LIMB("Left", "1") FZ_LIMB("Right", "-1")
    "  JOINT Spine\n  {\n    OFFSET 0 2 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "    JOINT Spine1\n    {\n      OFFSET 0 2 0\n      CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "      JOINT Neck\n      {\n        OFFSET 0 2 0\n        CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "        JOINT Head\n        {\n          OFFSET 0 1 0\n          CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "          End Site\n          {\n            OFFSET 0 1 0\n          }\n        }\n"
    "      }\n" FZ_ARM("Left", "1", "2") FZ_ARM("Right", "-1", "-2")
    "    }\n  }\n}\n"
    "";

static void fz_humanoid_load(mb_skeleton **s, mb_clip **c)
{
    enum { FRAMES = 3, VALUES = 66 };
    static char text[sizeof fz_humanoid + 64 + FRAMES * VALUES * 8];
    int len = snprintf(text, sizeof text, "%sMOTION\nFrames: %d\nFrame Time: 0.033333\n",
                       fz_humanoid, FRAMES);
    for (int f = 0; f < FRAMES; ++f) {
        len += snprintf(text + len, sizeof text - (size_t)len, "0 9 %d", f);
        for (int i = 3; i < VALUES; ++i) /* small rotations in degrees, -15..15 */
            len += snprintf(text + len, sizeof text - (size_t)len, " %d",
                            ((i * 7 + f * 3) % 11 - 5) * 3);
        len += snprintf(text + len, sizeof text - (size_t)len, "\n");
    }
    mb_error e;
    mb_status st = mb_bvh_read_mem(text, (size_t)len, "humanoid.bvh", NULL, s, c, &e);
    if (st != MB_OK)
        fprintf(stderr, "fuzz_roles: the built-in humanoid does not read: %s line %d\n", e.text,
                e.line);
    CHECK(st == MB_OK);
}

static int fz_has_nul(const char *s, size_t n) { return memchr(s, '\0', n) != NULL; }

/* A failure: err agrees with the status and says something. */
static void fz_check_error(const mb_error *e, mb_status st)
{
    CHECK(st != MB_OK && e->code == st);
    CHECK(fz_has_nul(e->text, sizeof e->text) && e->text[0] != '\0');
    CHECK(fz_has_nul(e->source, sizeof e->source));
}

/* roles found on s are self-consistent and pair symmetrically. */
static void fz_check_roles(const mb_skeleton *s, const mb_roles *r)
{
    int n = mb_skeleton_joint_count(s);
    CHECK(r->joint_count == n && r->of_joint && r->how);
    for (int j = 0; j < n; ++j) {
        CHECK(r->of_joint[j] < MB_ROLE_COUNT);
        CHECK(r->how[j] <= MB_ROLE_FROM_MAP);
    }
    for (int k = 0; k < MB_ROLE_COUNT; ++k) {
        int j = r->joint[k];
        CHECK(j >= -1 && j < n);
        if (k == MB_ROLE_NONE)
            CHECK(j == -1);
        else if (j >= 0)
            CHECK(r->of_joint[j] == k);
    }
    int *other = malloc((size_t)n * sizeof *other);
    CHECK(other);
    mb_error e;
    CHECK(mb_roles_mirror_joints(s, r, other, &e) == MB_OK);
    for (int j = 0; j < n; ++j) {
        CHECK(other[j] >= 0 && other[j] < n);
        CHECK(other[other[j]] == j);
    }
    free(other);
}

/* A clip made by mirror or retarget: frames as asked, unit rotations; finite when in_finite. */
static void fz_check_out_clip(const mb_skeleton *s, const mb_clip *c, int frames)
{
    int n = mb_skeleton_joint_count(s);
    CHECK(mb_clip_joint_count(c) == n && mb_clip_frame_count(c) == frames);
    const float *q = mb_clip_rotations(c);
    for (size_t i = 0; i < (size_t)frames * (size_t)n; ++i) {
        const float *p = q + 4 * i;
        double n2 = (double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2] +
                    (double)p[3] * p[3];
        CHECK(isfinite(n2) && fabs(n2 - 1.0) < 1e-4);
    }
    const float *t = mb_clip_translations(c);
    size_t nt = 3 * (size_t)frames * (size_t)mb_clip_translation_count(c);
    for (size_t i = 0; t && i < nt; ++i)
        CHECK(isfinite(t[i]));
}

/* Mirrors (s, c) with roles r; a refusal must be documented. */
static void fz_mirror(const mb_skeleton *s, const mb_clip *c, const mb_roles *r, int finite)
{
    for (int from_clip = 0; from_clip < 2; ++from_clip) {
        mb_mirror_desc d;
        memset(&d, 0, sizeof d);
        d.skeleton = s;
        d.clip = c;
        d.roles = r;
        d.plane_from_clip = from_clip;
        d.source = "fuzz";
        mb_clip *out = (mb_clip *)1;
        mb_error e;
        mb_mirror_plane plane;
        mb_status st = mb_clip_mirror(&d, &out, &plane, &e);
        if (st != MB_OK) {
            CHECK(out == NULL);
            fz_check_error(&e, st);
            continue;
        }
        CHECK(out != NULL);
        for (int k = 0; k < 3; ++k)
            CHECK(isfinite(plane.normal[k]));
        if (finite)
            fz_check_out_clip(s, out, mb_clip_frame_count(c));
        mb_clip_destroy(out);
    }
}

/* Retargets (fs, fc, fr) onto (ts, tr); to_clip detects the target's up axis. */
static void fz_retarget(const mb_skeleton *fs, const mb_clip *fc, const mb_roles *fr,
                        const mb_skeleton *ts, const mb_clip *tc, const mb_roles *tr, int finite)
{
    for (int feet = 0; feet < 2; ++feet) {
        mb_retarget_desc d;
        memset(&d, 0, sizeof d);
        d.from.skeleton = fs;
        d.from.roles = fr;
        d.clip = fc;
        d.to.skeleton = ts;
        d.to.roles = tr;
        d.to_clip = tc;
        d.feet = (mb_retarget_feet)feet;
        mb_clip *out = (mb_clip *)1;
        mb_retarget_report rep;
        mb_error e;
        mb_status st = mb_retarget(&d, &out, &rep, &e);
        if (st != MB_OK) {
            CHECK(out == NULL);
            fz_check_error(&e, st);
            return;
        }
        CHECK(out != NULL);
        CHECK(isfinite(rep.scale));
        char buf[4096];
        int len = mb_retarget_report_format(&rep, fs, ts, buf, sizeof buf);
        CHECK(len >= 0);
        if (finite)
            fz_check_out_clip(ts, out, mb_clip_frame_count(fc));
        mb_clip_destroy(out);
    }
}

#endif
