/* Image files: PNG through libpng, animated GIF through giflib, binary PPM; all built in
 * memory and written through a temporary file renamed over the target. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gif_lib.h>
#include <png.h>

#include "cli.h"
#include "render.h"

/* ---------- a growing memory buffer ---------- */

typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
    int failed;
} membuf;

static void mem_put(membuf *m, const void *data, size_t n)
{
    if (m->failed)
        return;
    if (m->cap - m->len < n) {
        size_t cap = m->cap ? m->cap : 1 << 16;
        while (cap - m->len < n)
            cap *= 2;
        unsigned char *np = realloc(m->p, cap);
        if (!np) {
            m->failed = 1;
            return;
        }
        m->p = np;
        m->cap = cap;
    }
    memcpy(m->p + m->len, data, n);
    m->len += n;
}

static int finish(const char *cmd, const char *path, membuf *m)
{
    if (m->failed) {
        free(m->p);
        return cli_input_error(cmd, "%s: out of memory", path);
    }
    mb_error err;
    mb_status st = mb_file_write_atomic(path, m->p, m->len, &err);
    free(m->p);
    if (st != MB_OK) {
        cli_print_error(&err);
        return CLI_EXIT_INPUT;
    }
    return 0;
}

/* ---------- PNG ---------- */

static void png_mem_write(png_structp png, png_bytep data, png_size_t n)
{
    mem_put(png_get_io_ptr(png), data, n);
}
static void png_mem_flush(png_structp png) { (void)png; }

typedef struct png_err {
    jmp_buf jump;
    char text[200];
} png_err;

static void png_on_error(png_structp png, png_const_charp msg)
{
    png_err *e = png_get_error_ptr(png);
    snprintf(e->text, sizeof e->text, "%s", msg);
    longjmp(e->jump, 1);
}
static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

int render_write_png(const char *cmd, const char *path, const unsigned char *rgb, int w, int h)
{
    /* Everything libpng's longjmp may come back to lives on the heap (a local changed after
     * setjmp would be indeterminate there). */
    membuf *m = calloc(1, sizeof *m);
    png_err *e = calloc(1, sizeof *e);
    png_structp png = NULL;
    png_infop info = NULL;
    if (!m || !e || !(png = png_create_write_struct(PNG_LIBPNG_VER_STRING, e, png_on_error,
                                                    png_on_warning)) ||
        !(info = png_create_info_struct(png))) {
        png_destroy_write_struct(&png, &info);
        free(m);
        free(e);
        return cli_input_error(cmd, "%s: out of memory", path);
    }
    if (setjmp(e->jump)) {
        png_destroy_write_struct(&png, &info);
        int rc = cli_input_error(cmd, "%s: libpng: %s", path, e->text);
        free(m->p);
        free(m);
        free(e);
        return rc;
    }
    png_set_write_fn(png, m, png_mem_write, png_mem_flush);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_text t;
    memset(&t, 0, sizeof t);
    t.compression = PNG_TEXT_COMPRESSION_NONE;
    t.key = (png_charp) "Software";
    t.text = (png_charp) "mblend render";
    png_set_text(png, info, &t, 1);
    png_write_info(png, info);
    for (int y = 0; y < h; ++y)
        png_write_row(png, (png_const_bytep)(rgb + (size_t)y * (size_t)w * 3));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    membuf done = *m;
    free(m);
    free(e);
    return finish(cmd, path, &done);
}

/* ---------- PPM ---------- */

int render_write_ppm(const char *cmd, const char *path, const unsigned char *rgb, int w, int h)
{
    membuf m = {NULL, 0, 0, 0};
    char hdr[64];
    int n = snprintf(hdr, sizeof hdr, "P6\n%d %d\n255\n", w, h);
    mem_put(&m, hdr, (size_t)n);
    mem_put(&m, rgb, (size_t)w * (size_t)h * 3);
    return finish(cmd, path, &m);
}

/* ---------- GIF ---------- */

/* One 256-colour palette for every frame: shading ramps of the two mesh colours (64 and 48
 * levels), 64 greys (background, floor, text) and a 4x5x4 colour cube for the rest (bones,
 * blended edges); pixels map to their nearest entry through a 15-bit cache. */
static void build_palette(GifColorType pal[256])
{
    const float body[3] = {RENDER_BODY}, left[3] = {RENDER_LEFT};
    int i = 0;
    for (int k = 0; k < 64; ++k, ++i) {
        float t = 0.30f + 0.70f * (float)k / 63.0f;
        pal[i].Red = (GifByteType)(body[0] * t * 255.0f + 0.5f);
        pal[i].Green = (GifByteType)(body[1] * t * 255.0f + 0.5f);
        pal[i].Blue = (GifByteType)(body[2] * t * 255.0f + 0.5f);
    }
    for (int k = 0; k < 48; ++k, ++i) {
        float t = 0.30f + 0.70f * (float)k / 47.0f;
        pal[i].Red = (GifByteType)(left[0] * t * 255.0f + 0.5f);
        pal[i].Green = (GifByteType)(left[1] * t * 255.0f + 0.5f);
        pal[i].Blue = (GifByteType)(left[2] * t * 255.0f + 0.5f);
    }
    for (int k = 0; k < 64; ++k, ++i) {
        /* denser toward the light background */
        float t = 1.0f - (1.0f - (float)k / 63.0f) * (1.0f - (float)k / 63.0f);
        GifByteType g = (GifByteType)(255.0f * t + 0.5f);
        pal[i].Red = pal[i].Green = g;
        pal[i].Blue = (GifByteType)(g + (255 - g) / 8);
    }
    for (int r = 0; r < 4; ++r)
        for (int g = 0; g < 5; ++g)
            for (int b = 0; b < 4; ++b, ++i) {
                pal[i].Red = (GifByteType)(r * 255 / 3);
                pal[i].Green = (GifByteType)(g * 255 / 4);
                pal[i].Blue = (GifByteType)(b * 255 / 3);
            }
}

static int nearest(const GifColorType pal[256], int r, int g, int b)
{
    int best = 0;
    long bd = -1;
    for (int i = 0; i < 256; ++i) {
        long dr = r - pal[i].Red, dg = g - pal[i].Green, db = b - pal[i].Blue;
        long d = 3 * dr * dr + 4 * dg * dg + 2 * db * db;
        if (bd < 0 || d < bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

static int gif_mem_write(GifFileType *gif, const GifByteType *data, int n)
{
    membuf *m = gif->UserData;
    mem_put(m, data, (size_t)n);
    return m->failed ? 0 : n;
}

int render_write_gif(const char *cmd, const char *path, const unsigned char *rgb, int w, int h,
                     int count, int delay_cs)
{
    if (w > 65535 || h > 65535)
        return cli_input_error(cmd, "%s: a GIF is at most 65535 pixels wide and high", path);
    membuf m = {NULL, 0, 0, 0};
    int err = 0;
    GifFileType *gif = EGifOpen(&m, gif_mem_write, &err);
    if (!gif)
        return cli_input_error(cmd, "%s: giflib: %s", path, GifErrorString(err));
    GifColorType pal[256];
    build_palette(pal);
    ColorMapObject *cmap = GifMakeMapObject(256, pal);
    int16_t *cache = malloc(32768 * sizeof *cache);
    GifPixelType *line = malloc((size_t)w);
    const char *step = "out of memory";
    if (!cmap || !cache || !line)
        goto fail;
    for (int i = 0; i < 32768; ++i)
        cache[i] = -1;
    step = "cannot write the header";
    EGifSetGifVersion(gif, true);
    if (EGifPutScreenDesc(gif, w, h, 8, 0, cmap) == GIF_ERROR)
        goto fail;
    /* loop forever (the NETSCAPE2.0 application extension) */
    static const unsigned char loop[3] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0") == GIF_ERROR ||
        EGifPutExtensionBlock(gif, 3, loop) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
        goto fail;
    step = "cannot write a frame";
    for (int f = 0; f < count; ++f) {
        GraphicsControlBlock gcb;
        memset(&gcb, 0, sizeof gcb);
        gcb.DisposalMode = DISPOSE_DO_NOT;
        gcb.DelayTime = delay_cs;
        gcb.TransparentColor = NO_TRANSPARENT_COLOR;
        GifByteType ext[4];
        size_t len = EGifGCBToExtension(&gcb, ext);
        if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)len, ext) == GIF_ERROR)
            goto fail;
        if (EGifPutImageDesc(gif, 0, 0, w, h, false, NULL) == GIF_ERROR)
            goto fail;
        const unsigned char *frame = rgb + (size_t)f * (size_t)w * (size_t)h * 3;
        for (int y = 0; y < h; ++y) {
            for (int x = 0; x < w; ++x) {
                const unsigned char *p = &frame[3 * ((size_t)y * (size_t)w + (size_t)x)];
                int key = (p[0] >> 3) << 10 | (p[1] >> 3) << 5 | (p[2] >> 3);
                if (cache[key] < 0)
                    cache[key] = (int16_t)nearest(pal, (p[0] & ~7) | 4, (p[1] & ~7) | 4, (p[2] & ~7) | 4);
                line[x] = (GifPixelType)cache[key];
            }
            if (EGifPutLine(gif, line, w) == GIF_ERROR)
                goto fail;
        }
    }
    GifFreeMapObject(cmap);
    free(cache);
    free(line);
    if (EGifCloseFile(gif, &err) == GIF_ERROR) {
        free(m.p);
        return cli_input_error(cmd, "%s: giflib: %s", path, GifErrorString(err));
    }
    return finish(cmd, path, &m);
fail:
    GifFreeMapObject(cmap);
    free(cache);
    free(line);
    EGifCloseFile(gif, &err);
    free(m.p);
    return cli_input_error(cmd, "%s: giflib: %s", path, step);
}
