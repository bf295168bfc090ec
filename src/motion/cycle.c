/* Gait cycle detection from left-foot touchdowns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error_internal.h"
#include "mblend/motion.h"
#include "motion/motion_internal.h"

mb_status mb_motion_find_cycle(const mb_skeleton *s, const mb_clip *c, const mb_motion_info *info,
                               int foot, const char *source, mb_frame_range *out, mb_error *err)
{
    if (!s || !c || !info || !out || (foot != 0 && foot != 1))
        return MB_INVALID_ARG;
    int nf = mb_clip_frame_count(c);
    mb_status checked = mb_motion_info_check_(info, s, c, source, err);
    if (checked != MB_OK)
        return checked;
    if (nf < 2)
        return mb_error_set_(err, MB_MISMATCH, source ? source : "<clip>",
                             "%d frame%s: a cycle needs two touchdowns of a foot", nf, nf == 1 ? "" : "s");
    if (info->left_foot < 0 || info->right_foot < 0) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->code = MB_MISMATCH;
            snprintf(err->source, sizeof err->source, "%s", source ? source : "<clip>");
            snprintf(err->text, sizeof err->text,
                     "cannot find the feet (no joint named like LeftFoot/RightFoot and fewer "
                     "than two End Sites): name the feet or give the cycle's frames");
        }
        return MB_MISMATCH;
    }
    unsigned char *contact = malloc(nf > 0 ? (size_t)nf : 1u);
    int *downs = malloc((nf > 0 ? (size_t)nf : 1u) * sizeof *downs);
    if (!contact || !downs) {
        free(contact);
        free(downs);
        return MB_NOMEM;
    }
    mb_status st = foot == 0 ? mb_motion_contacts(s, c, info, contact, NULL)
                             : mb_motion_contacts(s, c, info, NULL, contact);
    int n = 0;
    if (st == MB_OK) {
        /* A touchdown: a contact held for 0.05 s after 0.08 s in the air (flickers at
         * the threshold are noise, not steps). */
        double ft = mb_clip_frame_time(c);
        int hold = (int)(0.05 / ft + 0.5), air = (int)(0.08 / ft + 0.5);
        hold = hold < 2 ? 2 : hold;
        air = air < 2 ? 2 : air;
        /* Near the start of the take the flight may be cut short by the first frame:
         * two airborne frames there are enough. */
        for (int f = info->first_frame + 2; f + hold <= nf; ++f) {
            int ok = 1;
            for (int k = 0; k < hold && ok; ++k)
                ok = contact[f + k];
            for (int k = 1; k <= air && ok && f - k >= info->first_frame; ++k)
                ok = !contact[f - k];
            if (ok)
                downs[n++] = f;
        }
    }
    free(contact);
    if (st != MB_OK) {
        free(downs);
        return st;
    }
    if (n < 2) {
        free(downs);
        if (err) {
            memset(err, 0, sizeof *err);
            err->code = MB_MISMATCH;
            snprintf(err->source, sizeof err->source, "%s", source ? source : "<clip>");
            snprintf(err->text, sizeof err->text,
                     "no full gait cycle: the %s foot '%s' touches down %d time%s; give the "
                     "cycle's frames or name other feet",
                     foot == 0 ? "left" : "right",
                     mb_skeleton_name(s, foot == 0 ? info->left_foot : info->right_foot), n,
                     n == 1 ? "" : "s");
        }
        return MB_MISMATCH;
    }
    /* Of the complete cycles of typical length (within 25% of the median: a missed
     * touchdown makes a double-length one), the one nearest the middle: the ends of a
     * take often hold starts and stops. */
    int *len = malloc((size_t)n * sizeof *len);
    if (!len) {
        free(downs);
        return MB_NOMEM;
    }
    for (int k = 0; k + 1 < n; ++k)
        len[k] = downs[k + 1] - downs[k];
    for (int a = 1; a < n - 1; ++a) /* insertion sort: a handful of cycles */
        for (int b = a; b > 0 && len[b - 1] > len[b]; --b) {
            int t = len[b];
            len[b] = len[b - 1];
            len[b - 1] = t;
        }
    double median = len[(n - 1) / 2];
    free(len);
    int best = 0;
    double mid = 0.5 * nf, bestd = 1e300;
    for (int k = 0; k + 1 < n; ++k) {
        double l = downs[k + 1] - downs[k];
        if (l < 0.75 * median || l > 1.25 * median)
            continue;
        double centre = 0.5 * (downs[k] + downs[k + 1]);
        double dist = centre > mid ? centre - mid : mid - centre;
        if (dist < bestd) {
            bestd = dist;
            best = k;
        }
    }
    out->start = downs[best];
    out->end = downs[best + 1];
    free(downs);
    return MB_OK;
}
