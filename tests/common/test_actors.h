/* Shared by the transition tests of the library and the CLI: world positions of a clip,
 * and a two-actor BVH text built from a one-actor file. */
#ifndef MB_TEST_ACTORS_H
#define MB_TEST_ACTORS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "mblend/mblend.h"

/* World positions [frame][joint][3] of a whole clip, by FK through the public API. */
static inline float *positions(const mb_skeleton *s, const mb_clip *c)
{
    int n = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    float *out = malloc(sizeof(float) * 3 * (size_t)n * nf);
    mb_xform *x = malloc(sizeof *x * n);
    float(*w)[16] = malloc(sizeof *w * n);
    for (int f = 0; f < nf; ++f) {
        mb_pose p = {x, n};
        cr_assert_eq(mb_clip_frame_pose(s, c, f, p), MB_OK);
        cr_assert_eq(mb_fk(s, &p, w, n), MB_OK);
        for (int j = 0; j < n; ++j)
            memcpy(&out[3 * ((size_t)f * n + j)], &w[j][12], 3 * sizeof(float));
    }
    free(x);
    free(w);
    return out;
}

#define P3(pos, n, f, j) (&(pos)[3 * ((size_t)(f) * (n) + (j))])

static inline double dist(const float *a, const float *b, int skip_axis)
{
    double s = 0.0;
    for (int k = 0; k < 3; ++k)
        if (k != skip_axis)
            s += ((double)a[k] - b[k]) * ((double)a[k] - b[k]);
    return sqrt(s);
}

/* Appends text, with "ROOT "/"JOINT " names prefixed, to *o. */
static inline size_t put_prefixed(char *o, size_t at, const char *from, const char *to, const char *pre)
{
    for (const char *p = from; p < to;) {
        if (strncmp(p, "ROOT ", 5) == 0 || strncmp(p, "JOINT ", 6) == 0) {
            size_t k = p[0] == 'R' ? 5 : 6;
            memcpy(o + at, p, k);
            at += k;
            p += k;
            at += (size_t)sprintf(o + at, "%s", pre);
        } else {
            o[at++] = *p++;
        }
    }
    return at;
}

/* Two actors in one multi-ROOT file, as BVH text: the CMU walk as A (or, a_still, A holding
 * the walk's first frame), and the same walk 200 units to the side as B, both moved by shift
 * along X. */
static inline char *two_actor_text(const char *src, double shift, int a_still, size_t *out_len)
{
    const char *root = strstr(src, "ROOT "), *motion = strstr(src, "MOTION");
    const char *rows = strstr(src, "Frame Time:");
    cr_assert(root && motion && rows);
    rows = strchr(rows, '\n') + 1;
    size_t cap = 4 * strlen(src) + 4096, n = 0;
    char *two = malloc(cap);
    cr_assert_not_null(two);
    n += (size_t)sprintf(two, "HIERARCHY\n");
    n = put_prefixed(two, n, root, motion, "A_");
    n = put_prefixed(two, n, root, motion, "B_");
    int frames = 0;
    size_t body_cap = 3 * strlen(src), bn = 0;
    char *body = malloc(body_cap);
    cr_assert_not_null(body);
    const char *first = NULL;
    size_t first_len = 0;
    for (const char *cur = rows; *cur;) {
        const char *eol = strchr(cur, '\n');
        size_t len = eol ? (size_t)(eol - cur) : strlen(cur);
        while (len > 0 && (cur[len - 1] == '\r' || cur[len - 1] == ' '))
            --len;
        if (len > 0) {
            if (!first) {
                first = cur;
                first_len = len;
            }
            const char *ra = a_still ? first : cur;
            size_t la = a_still ? first_len : len;
            char *end;
            double x = strtod(ra, &end); /* the root's Xposition */
            size_t rest = la - (size_t)(end - ra);
            cr_assert_lt(bn + la + len + 64, body_cap);
            bn += (size_t)sprintf(body + bn, "%.5f", x + shift);
            memcpy(body + bn, end, rest);
            bn += rest;
            x = strtod(cur, &end);
            rest = len - (size_t)(end - cur);
            bn += (size_t)sprintf(body + bn, " %.5f", x + shift + 200.0);
            memcpy(body + bn, end, rest);
            bn += rest;
            body[bn++] = '\n';
            ++frames;
        }
        if (!eol)
            break;
        cur = eol + 1;
    }
    n += (size_t)sprintf(two + n, "MOTION\nFrames: %d\nFrame Time: .0083333\n", frames);
    cr_assert_lt(n + bn + 1, cap);
    memcpy(two + n, body, bn);
    n += bn;
    free(body);
    *out_len = n;
    return two;
}

#endif
