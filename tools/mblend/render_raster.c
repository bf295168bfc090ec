/* A small software rasterizer: depth-tested Gouraud triangles, round-capped lines, a tiny
 * bitmap font, and a box-filter resolve for supersampling. Plain C, no dependencies, so the
 * tests compile it directly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

int render_canvas_init(render_canvas *c, int w, int h)
{
    memset(c, 0, sizeof *c);
    if (w < 1 || h < 1 || w > 16384 || h > 16384)
        return -1;
    c->w = w;
    c->h = h;
    c->rgb = malloc((size_t)w * (size_t)h * 3 * sizeof(float));
    c->depth = malloc((size_t)w * (size_t)h * sizeof(float));
    if (!c->rgb || !c->depth) {
        render_canvas_free(c);
        return -1;
    }
    return 0;
}

void render_canvas_free(render_canvas *c)
{
    free(c->rgb);
    free(c->depth);
    memset(c, 0, sizeof *c);
}

void render_canvas_clear(render_canvas *c, const float top[3], const float bottom[3])
{
    for (int y = 0; y < c->h; ++y) {
        float t = c->h > 1 ? (float)y / (float)(c->h - 1) : 0.0f;
        float col[3];
        for (int k = 0; k < 3; ++k)
            col[k] = top[k] + t * (bottom[k] - top[k]);
        for (int x = 0; x < c->w; ++x) {
            size_t i = (size_t)y * (size_t)c->w + (size_t)x;
            memcpy(&c->rgb[3 * i], col, sizeof col);
            c->depth[i] = -INFINITY;
        }
    }
}

static float edge(const float a[3], const float b[3], float px, float py)
{
    return (b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0]);
}

void render_canvas_triangle(render_canvas *c, const float a[3], const float b[3], const float d[3],
                        const float ca[3], const float cb[3], const float cd[3])
{
    float area = edge(a, b, d[0], d[1]);
    if (!(fabsf(area) > 1e-12f) || !isfinite(area))
        return;
    float minx = fminf(a[0], fminf(b[0], d[0])), maxx = fmaxf(a[0], fmaxf(b[0], d[0]));
    float miny = fminf(a[1], fminf(b[1], d[1])), maxy = fmaxf(a[1], fmaxf(b[1], d[1]));
    int x0 = (int)floorf(minx), x1 = (int)ceilf(maxx), y0 = (int)floorf(miny), y1 = (int)ceilf(maxy);
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > c->w - 1 ? c->w - 1 : x1;
    y1 = y1 > c->h - 1 ? c->h - 1 : y1;
    float inv = 1.0f / area;
    for (int y = y0; y <= y1; ++y) {
        float py = (float)y + 0.5f;
        for (int x = x0; x <= x1; ++x) {
            float px = (float)x + 0.5f;
            /* barycentric weights; the sign of area makes both windings work */
            float wa = edge(b, d, px, py) * inv, wb = edge(d, a, px, py) * inv;
            float wd = 1.0f - wa - wb;
            if (wa < 0.0f || wb < 0.0f || wd < 0.0f)
                continue;
            float z = wa * a[2] + wb * b[2] + wd * d[2];
            size_t i = (size_t)y * (size_t)c->w + (size_t)x;
            if (z <= c->depth[i])
                continue;
            c->depth[i] = z;
            for (int k = 0; k < 3; ++k)
                c->rgb[3 * i + (size_t)k] = wa * ca[k] + wb * cb[k] + wd * cd[k];
        }
    }
}

void render_canvas_line(render_canvas *c, const float a[3], const float b[3], float width,
                    const float color[3], float bias)
{
    float r = 0.5f * width;
    int x0 = (int)floorf(fminf(a[0], b[0]) - r), x1 = (int)ceilf(fmaxf(a[0], b[0]) + r);
    int y0 = (int)floorf(fminf(a[1], b[1]) - r), y1 = (int)ceilf(fmaxf(a[1], b[1]) + r);
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 > c->w - 1 ? c->w - 1 : x1;
    y1 = y1 > c->h - 1 ? c->h - 1 : y1;
    float dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            float px = (float)x + 0.5f - a[0], py = (float)y + 0.5f - a[1];
            float t = len2 > 0.0f ? (px * dx + py * dy) / len2 : 0.0f;
            t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
            float ex = px - t * dx, ey = py - t * dy;
            if (ex * ex + ey * ey > r * r)
                continue;
            float z = a[2] + t * (b[2] - a[2]) + bias;
            size_t i = (size_t)y * (size_t)c->w + (size_t)x;
            if (z <= c->depth[i])
                continue;
            c->depth[i] = z;
            memcpy(&c->rgb[3 * i], color, 3 * sizeof(float));
        }
}

/* 3x5 glyphs, one row per 3 bits (MSB left), rows top to bottom. */
static const struct {
    char ch;
    unsigned char rows[5];
} k_font[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 7, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 1, 1, 1}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'-', {0, 0, 7, 0, 0}}, {'.', {0, 0, 0, 0, 2}},
    {':', {0, 2, 0, 2, 0}}, {' ', {0, 0, 0, 0, 0}}, {'a', {7, 5, 7, 5, 5}}, {'b', {6, 5, 6, 5, 6}},
    {'c', {7, 4, 4, 4, 7}}, {'d', {6, 5, 5, 5, 6}}, {'e', {7, 4, 6, 4, 7}}, {'f', {7, 4, 6, 4, 4}},
    {'g', {7, 4, 5, 5, 7}}, {'h', {5, 5, 7, 5, 5}}, {'i', {7, 2, 2, 2, 7}}, {'j', {1, 1, 1, 5, 7}},
    {'k', {5, 5, 6, 5, 5}}, {'l', {4, 4, 4, 4, 7}}, {'m', {5, 7, 7, 5, 5}}, {'n', {6, 5, 5, 5, 5}},
    {'o', {7, 5, 5, 5, 7}}, {'p', {7, 5, 7, 4, 4}}, {'q', {7, 5, 5, 7, 1}}, {'r', {6, 5, 6, 5, 5}},
    {'s', {7, 4, 7, 1, 7}}, {'t', {7, 2, 2, 2, 2}}, {'u', {5, 5, 5, 5, 7}}, {'v', {5, 5, 5, 5, 2}},
    {'w', {5, 5, 7, 7, 5}}, {'x', {5, 5, 2, 5, 5}}, {'y', {5, 5, 2, 2, 2}}, {'z', {7, 1, 2, 4, 7}},
};

void render_canvas_text(render_canvas *c, int x, int y, int s, const char *text, const float color[3])
{
    for (const char *p = text; *p; ++p, x += 4 * s) {
        char ch = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        const unsigned char *rows = NULL;
        for (size_t g = 0; g < sizeof k_font / sizeof k_font[0]; ++g)
            if (k_font[g].ch == ch)
                rows = k_font[g].rows;
        if (!rows)
            continue;
        for (int r = 0; r < 5; ++r)
            for (int col = 0; col < 3; ++col) {
                if (!(rows[r] & (4 >> col)))
                    continue;
                for (int yy = y + r * s; yy < y + (r + 1) * s; ++yy)
                    for (int xx = x + col * s; xx < x + (col + 1) * s; ++xx) {
                        if (xx < 0 || yy < 0 || xx >= c->w || yy >= c->h)
                            continue;
                        memcpy(&c->rgb[3 * ((size_t)yy * (size_t)c->w + (size_t)xx)], color,
                               3 * sizeof(float));
                    }
            }
    }
}

void render_canvas_resolve(const render_canvas *c, int f, unsigned char *dst, int dst_w, int x0, int y0)
{
    int w = c->w / f, h = c->h / f;
    float norm = 1.0f / (float)(f * f);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            float s[3] = {0, 0, 0};
            for (int yy = 0; yy < f; ++yy)
                for (int xx = 0; xx < f; ++xx) {
                    const float *p = &c->rgb[3 * ((size_t)(y * f + yy) * (size_t)c->w + (size_t)(x * f + xx))];
                    s[0] += p[0];
                    s[1] += p[1];
                    s[2] += p[2];
                }
            unsigned char *o = &dst[3 * ((size_t)(y0 + y) * (size_t)dst_w + (size_t)(x0 + x))];
            for (int k = 0; k < 3; ++k) {
                float v = s[k] * norm;
                v = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
                /* gamma 2.2 would be truer; the shading is already tuned in display space */
                o[k] = (unsigned char)(v * 255.0f + 0.5f);
            }
        }
}
