/* The immutable skeleton: one allocation holding every per-joint array (built by
 * src/offline/anim/skeleton_build.c): its read accessors, rest pose and destroy. */
#include <stdint.h>
#include <string.h>

#include "runtime/anim/skeleton_internal.h"
#include "base/alloc_internal.h"

static const char *const channel_names[6] = {"Xposition", "Yposition", "Zposition",
                                             "Xrotation", "Yrotation", "Zrotation"};

const char *mb_channel_name(mb_channel c)
{
    if ((unsigned)c >= 6u)
        return NULL;
    return channel_names[c];
}

void mb_skeleton_destroy(mb_skeleton *s)
{
    if (!s)
        return;
    mb_allocator a = s->allocator;
    mb_free_(&a, s);
}

int mb_skeleton_joint_count(const mb_skeleton *s) { return s ? s->joint_count : 0; }
int mb_skeleton_channel_count(const mb_skeleton *s) { return s ? s->channel_count : 0; }
const int *mb_skeleton_parents(const mb_skeleton *s) { return s ? s->parents : NULL; }

static int valid_joint(const mb_skeleton *s, int j) { return s && j >= 0 && j < s->joint_count; }

const char *mb_skeleton_name(const mb_skeleton *s, int j)
{
    return valid_joint(s, j) ? s->names[j] : NULL;
}

const float *mb_skeleton_offset(const mb_skeleton *s, int j)
{
    return valid_joint(s, j) ? &s->offsets[3 * j] : NULL;
}

int mb_skeleton_is_end_site(const mb_skeleton *s, int j)
{
    return valid_joint(s, j) ? s->info[j].end_site : 0;
}

int mb_skeleton_is_roots_group(const mb_skeleton *s, int j)
{
    return valid_joint(s, j) ? s->info[j].roots_group : 0;
}

int mb_skeleton_channels(const mb_skeleton *s, int j, const mb_channel **out)
{
    if (!valid_joint(s, j)) {
        if (out)
            *out = NULL;
        return 0;
    }
    if (out)
        *out = &s->channels[6 * j];
    return s->info[j].channel_count;
}

mb_euler_order mb_skeleton_rot_order(const mb_skeleton *s, int j)
{
    return valid_joint(s, j) ? (mb_euler_order)s->info[j].order : MB_ORDER_XYZ;
}

int mb_skeleton_has_translation(const mb_skeleton *s, int j)
{
    return valid_joint(s, j) ? s->info[j].has_translation : 0;
}

const int *mb_skeleton_translation_joints(const mb_skeleton *s, int *out_count)
{
    if (out_count)
        *out_count = s ? s->translation_count : 0;
    return s ? s->translation_joints : NULL;
}

int mb_skeleton_find(const mb_skeleton *s, const char *name)
{
    if (!s || !name)
        return -1;
    for (int i = 0; i < s->joint_count; ++i)
        if (strcmp(s->names[i], name) == 0)
            return i;
    return -1;
}

int mb_skeleton_same_topology(const mb_skeleton *a, const mb_skeleton *b, int *first_diff)
{
    if (!a || !b) {
        if (first_diff)
            *first_diff = 0;
        return 0;
    }
    int n = a->joint_count < b->joint_count ? a->joint_count : b->joint_count;
    for (int i = 0; i < n; ++i)
        if (a->parents[i] != b->parents[i] || strcmp(a->names[i], b->names[i]) != 0) {
            if (first_diff)
                *first_diff = i;
            return 0;
        }
    if (a->joint_count != b->joint_count) {
        if (first_diff)
            *first_diff = n;
        return 0;
    }
    if (first_diff)
        *first_diff = -1;
    return 1;
}

mb_status mb_skeleton_rest_pose(const mb_skeleton *s, mb_pose out)
{
    if (!s || !out.joints)
        return MB_INVALID_ARG;
    if (out.count < s->joint_count)
        return MB_TOO_SMALL;
    for (int i = 0; i < s->joint_count; ++i) {
        mb_xform *x = &out.joints[i];
        x->rot[0] = x->rot[1] = x->rot[2] = 0.0f;
        x->rot[3] = 1.0f;
        memcpy(x->pos, &s->offsets[3 * i], sizeof x->pos);
    }
    return MB_OK;
}
