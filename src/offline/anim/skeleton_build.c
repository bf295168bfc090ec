/* mb_skeleton_create (mblend/offline/clip_build.h): checks a skeleton desc and lays the
 * skeleton out in one allocation (the layout is src/runtime/anim/skeleton_internal.h). */
#include <stdint.h>
#include <string.h>

#include "base/alloc_internal.h"
#include "base/error_internal.h"
#include "math/euler_internal.h"
#include "mblend/offline/clip_build.h"
#include "runtime/anim/skeleton_internal.h"

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

/* Euler order implied by a channel list: listed rotation axes, then missing ones in XYZ
 * order (a joint with only "Zrotation" is ZXY, which equals Rz for zero X and Y). */
static mb_euler_order order_of(const mb_channel *ch, int n)
{
    int axes[3], na = 0, seen[3] = {0, 0, 0};
    for (int k = 0; k < n; ++k)
        if (ch[k] >= MB_CH_XROT) {
            int a = (int)ch[k] - (int)MB_CH_XROT;
            axes[na++] = a;
            seen[a] = 1;
        }
    for (int a = 0; a < 3 && na < 3; ++a)
        if (!seen[a])
            axes[na++] = a;
    return mb_euler_order_from_axes_(axes[0], axes[1], axes[2]);
}

/* The validated joints of d into skeleton s (arrays laid out, counts zero): parents,
 * offsets, names (copied to np), channels and per-joint info; tjoints receives the joints
 * with translation channels. */
static void copy_joints(mb_skeleton *s, const mb_skeleton_desc *d, char *np, int *tjoints)
{
    for (int i = 0; i < d->joint_count; ++i) {
        const mb_joint_desc *j = &d->joints[i];
        s->parents[i] = j->parent;
        memcpy(&s->offsets[3 * i], j->offset, sizeof j->offset);
        size_t len = strlen(j->name);
        memcpy(np, j->name, len + 1);
        s->names[i] = np;
        np += len + 1;
        mb_joint_info_ *inf = &s->info[i];
        inf->end_site = (uint8_t)(j->end_site != 0);
        inf->roots_group = (uint8_t)(j->roots_group != 0);
        inf->channel_count = (uint8_t)j->channel_count;
        inf->channel_start = s->channel_count;
        for (int k = 0; k < j->channel_count; ++k) {
            s->channels[6 * i + k] = j->channels[k];
            if (j->channels[k] <= MB_CH_ZPOS)
                inf->has_translation = 1;
            else
                inf->rot_channels++;
        }
        if (inf->has_translation)
            tjoints[s->translation_count++] = i;
        inf->order = (uint8_t)order_of(j->channels, j->channel_count);
        s->channel_count += j->channel_count;
        if (inf->end_site)
            s->end_site_count++;
    }
}

#define SKEL_SRC "skeleton"

/* Joint i of d: a name, parents-first, channels and offsets that make sense. */
static mb_status check_joint(const mb_skeleton_desc *d, int i, mb_error *err)
{
    const mb_joint_desc *j = &d->joints[i];
    if (!j->name)
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "joint %d has no name", i);
    size_t len = strlen(j->name);
    if (len == 0 || len > MB_MAX_NAME)
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "joint %d: a name of %zu bytes (1..%d)",
                             i, len, MB_MAX_NAME);
    if (i == 0 ? j->parent != -1 : (j->parent < 0 || j->parent >= i))
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC,
                             "joint %d '%.64s': parent %d (joints are parents-first: the first "
                             "has parent -1, every other a parent before it)", i, j->name, j->parent);
    if (j->channel_count < 0 || j->channel_count > 6)
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "joint '%.64s': %d channels (0..6)",
                             j->name, j->channel_count);
    if (j->end_site && j->channel_count != 0)
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "End Site '%.64s' has channels", j->name);
    if (j->roots_group && (i != 0 || j->end_site || j->channel_count != 0 || j->offset[0] != 0.0f ||
                           j->offset[1] != 0.0f || j->offset[2] != 0.0f))
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC,
                             "joint %d '%.64s': a roots group must be joint 0, without channels "
                             "or offset", i, j->name);
    unsigned mask = 0;
    for (int k = 0; k < j->channel_count; ++k) {
        unsigned c = (unsigned)j->channels[k];
        if (c >= 6u || (mask & (1u << c)))
            return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "joint '%.64s': channel %d (%d) is %s",
                                 j->name, k, (int)c, c >= 6u ? "not an mb_channel" : "repeated");
        mask |= 1u << c;
    }
    for (int k = 0; k < 3; ++k)
        if (!isfinite(j->offset[k]))
            return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "joint '%.64s': non-finite offset",
                                 j->name);
    return MB_OK;
}

mb_status mb_skeleton_create(const mb_skeleton_desc *d, mb_skeleton **out, mb_error *err)
{
    mb_error_clear_(err);
    if (!out)
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "no output given");
    *out = NULL;
    if (!d || !d->joints)
        return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "no %s given", d ? "joints" : "desc");
    if (d->joint_count < 1 || d->joint_count > MB_MAX_JOINTS)
        return mb_error_set_(err, d->joint_count < 1 ? MB_INVALID_ARG : MB_LIMIT, SKEL_SRC,
                             "%d joints (1..%d)", d->joint_count, MB_MAX_JOINTS);
    int n = d->joint_count;
    size_t names_bytes = 0;
    for (int i = 0; i < n; ++i) {
        mb_status st = check_joint(d, i, err);
        if (st != MB_OK)
            return st;
        names_bytes += strlen(d->joints[i].name) + 1;
    }
    /* Duplicate names among real joints (End Site names are derived, so they follow). */
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < i; ++k)
            if (strcmp(d->joints[i].name, d->joints[k].name) == 0)
                return mb_error_set_(err, MB_INVALID_ARG, SKEL_SRC, "joints %d and %d are both named "
                                     "'%.64s'", k, i, d->joints[i].name);

    size_t un = (size_t)n;
    size_t off_parents = align8(sizeof(mb_skeleton));
    size_t off_offsets = align8(off_parents + un * sizeof(int));
    size_t off_names = align8(off_offsets + un * 3 * sizeof(float));
    size_t off_nameptr = align8(off_names + names_bytes);
    size_t off_channels = align8(off_nameptr + un * sizeof(const char *));
    size_t off_flags = align8(off_channels + un * 6 * sizeof(mb_channel));
    size_t off_tjoints = align8(off_flags + un * sizeof(mb_joint_info_));
    size_t total = off_tjoints + un * sizeof(int);

    char *mem = mb_alloc_(&d->allocator, total);
    if (!mem)
        return mb_error_set_(err, MB_NOMEM, SKEL_SRC, "out of memory for %d joints", n);
    memset(mem, 0, total);
    mb_skeleton *s = (mb_skeleton *)mem;
    s->allocator = d->allocator;
    s->joint_count = n;
    s->parents = (int *)(mem + off_parents);
    s->offsets = (float *)(mem + off_offsets);
    s->names = (const char **)(mem + off_nameptr);
    s->channels = (mb_channel *)(mem + off_channels);
    s->info = (mb_joint_info_ *)(mem + off_flags);
    int *tjoints = (int *)(mem + off_tjoints);
    copy_joints(s, d, mem + off_names, tjoints);
    s->translation_joints = s->translation_count > 0 ? tjoints : NULL;
    *out = s;
    return MB_OK;
}
