/* The skeleton's layout, shared by the anim and io layers. */
#ifndef MB_SKELETON_INTERNAL_H
#define MB_SKELETON_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "mblend/runtime/anim.h"

typedef struct mb_joint_info_ {
    uint8_t end_site;
    uint8_t roots_group;    /* node 0 only: holds the ROOTs of a multi-ROOT BVH */
    uint8_t channel_count;
    uint8_t rot_channels;
    uint8_t has_translation;
    uint8_t order;          /* mb_euler_order */
    int channel_start;      /* index of the first channel in a motion row */
} mb_joint_info_;

struct mb_skeleton {
    mb_allocator allocator;
    int joint_count;
    int channel_count;
    int end_site_count;
    int *parents;
    float *offsets;         /* [joint][3] */
    const char **names;
    mb_channel *channels;   /* [joint][6], first channel_count used */
    mb_joint_info_ *info;
    int translation_count;  /* joints with position channels */
    int *translation_joints;/* [translation_count], ascending; NULL when none */
};

#endif
