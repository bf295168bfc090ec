/* Gait cycle detection from foot touchdowns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "mblend/offline/motion.h"
#include "offline/motion/motion_internal.h"

/* Cycles kept: within this share of the median cycle length (a missed touchdown makes a
 * double-length one). */
#define MB_CYCLE_LENGTH_TOLERANCE 0.25

/* The touchdown frames of one foot's contacts into downs; returns their count. */
static int find_touchdowns(const unsigned char *contact, int nf, int first, double ft, int *downs)
{
    int hold = (int)(MB_TOUCHDOWN_HOLD / ft + 0.5), air = (int)(MB_TOUCHDOWN_AIR / ft + 0.5);
    hold = hold < 2 ? 2 : hold;
    air = air < 2 ? 2 : air;
    int n = 0;
    /* Near the start of the take the flight may be cut short by the first frame: two
     * airborne frames there are enough. */
    for (int f = first + 2; f + hold <= nf; ++f) {
        int ok = 1;
        for (int k = 0; k < hold && ok; ++k)
            ok = contact[f + k];
        for (int k = 1; k <= air && ok && f - k >= first; ++k)
            ok = !contact[f - k];
        if (ok)
            downs[n++] = f;
    }
    return n;
}

/* Of the complete cycles of typical length (near the median), the index of the one
 * nearest the middle of the clip: the ends of a take often hold starts and stops. n >= 2;
 * len has n - 1 entries of scratch. */
static int middle_cycle(const int *downs, int n, int nf, int *len)
{
    for (int k = 0; k + 1 < n; ++k)
        len[k] = downs[k + 1] - downs[k];
    for (int a = 1; a < n - 1; ++a) /* insertion sort: a handful of cycles */
        for (int b = a; b > 0 && len[b - 1] > len[b]; --b) {
            int t = len[b];
            len[b] = len[b - 1];
            len[b - 1] = t;
        }
    double median = len[(n - 1) / 2];
    int best = 0;
    double mid = 0.5 * nf, bestd = 1e300;
    for (int k = 0; k + 1 < n; ++k) {
        double l = downs[k + 1] - downs[k];
        if (l < (1.0 - MB_CYCLE_LENGTH_TOLERANCE) * median || l > (1.0 + MB_CYCLE_LENGTH_TOLERANCE) * median)
            continue;
        double centre = 0.5 * (downs[k] + downs[k + 1]);
        double dist = centre > mid ? centre - mid : mid - centre;
        if (dist < bestd) {
            bestd = dist;
            best = k;
        }
    }
    return best;
}

mb_status mb_motion_find_cycle(const mb_skeleton *s, const mb_clip *c, const mb_motion_info *info,
                               int foot, const char *source, mb_frame_range *out, mb_error *err)
{
    mb_error_clear_(err);
    const char *src = source ? source : "<clip>";
    if (!s || !c || !info || !out || (foot != 0 && foot != 1))
        return mb_error_set_(err, MB_INVALID_ARG, src,
                             "finding a cycle needs a skeleton, a clip, its analysis and foot 0 or 1");
    int nf = mb_clip_frame_count(c);
    mb_status st = mb_motion_info_check_(info, s, c, source, err);
    if (st != MB_OK)
        return st;
    if (nf < 2)
        return mb_error_set_(err, MB_MISMATCH, src, "%d frame%s: a cycle needs two touchdowns of a foot",
                             nf, nf == 1 ? "" : "s");
    if (info->left_foot < 0 || info->right_foot < 0)
        return mb_error_set_(err, MB_MISMATCH, src,
                             "cannot find the feet (no joint named like LeftFoot/RightFoot and fewer "
                             "than two End Sites): name the feet or give the cycle's frames");
    unsigned char *contact = malloc((size_t)nf);
    if (!contact)
        return mb_error_set_(err, MB_NOMEM, src, "cannot find the foot contacts: %s",
                             mb_status_str(MB_NOMEM));
    st = foot == 0 ? mb_motion_contacts(s, c, info, contact, NULL, NULL)
                   : mb_motion_contacts(s, c, info, NULL, contact, NULL);
    if (st != MB_OK)
        mb_error_set_(err, st, src, "cannot find the foot contacts: %s", mb_status_str(st));
    else
        st = mb_cycle_from_contacts_(s, c, info, foot, contact, src, out, err);
    free(contact);
    return st;
}

mb_status mb_cycle_from_contacts_(const mb_skeleton *s, const mb_clip *c,
                                  const mb_motion_info *info, int foot,
                                  const unsigned char *contact, const char *src,
                                  mb_frame_range *out, mb_error *err)
{
    int nf = mb_clip_frame_count(c);
    int *downs = malloc((size_t)nf * sizeof *downs), *len = malloc((size_t)nf * sizeof *len);
    int n = 0;
    mb_status st = MB_OK;
    if (!downs || !len)
        st = mb_error_set_(err, MB_NOMEM, src, "cannot find the foot contacts: %s",
                           mb_status_str(MB_NOMEM));
    else
        n = find_touchdowns(contact, nf, info->first_frame, mb_clip_frame_time(c), downs);
    if (st == MB_OK && n < 2)
        st = mb_error_set_(err, MB_MISMATCH, src,
                           "no full gait cycle: the %s foot '%s' touches down %d time%s; give the "
                           "cycle's frames or name other feet",
                           foot == 0 ? "left" : "right",
                           mb_skeleton_name(s, foot == 0 ? info->left_foot : info->right_foot), n,
                           n == 1 ? "" : "s");
    if (st == MB_OK) {
        int best = middle_cycle(downs, n, nf, len);
        out->start = downs[best];
        out->end = downs[best + 1];
    }
    free(downs);
    free(len);
    return st;
}
