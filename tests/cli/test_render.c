/* The software rasterizer of "mblend render" (compiled in directly: it is plain C), and the
 * skin and render subcommands run as processes: the images are read back (PPM pixels, PNG
 * and GIF structure) and the skinned files re-read (OBJ text, glTF through the library). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "../../tools/mblend/render_raster.c"
#include "test_cli_util.h"
#include "test_util.h"

/* ---------- the rasterizer ---------- */

static long count_pixels(const render_canvas *c, const float col[3])
{
    long n = 0;
    for (int i = 0; i < c->w * c->h; ++i)
        if (fabsf(c->rgb[3 * i] - col[0]) < 1e-4f && fabsf(c->rgb[3 * i + 1] - col[1]) < 1e-4f &&
            fabsf(c->rgb[3 * i + 2] - col[2]) < 1e-4f)
            ++n;
    return n;
}

static const float k_white[3] = {1, 1, 1}, k_red[3] = {1, 0, 0}, k_blue[3] = {0, 0, 1};

Test(raster, triangle_covers_its_area_in_both_windings)
{
    render_canvas c;
    cr_assert_eq(render_canvas_init(&c, 200, 200), 0);
    for (int wind = 0; wind < 2; ++wind) {
        render_canvas_clear(&c, k_white, k_white);
        float a[3] = {10, 10, 0}, b[3] = {110, 10, 0}, d[3] = {10, 110, 0};
        if (wind)
            render_canvas_triangle(&c, a, d, b, k_red, k_red, k_red);
        else
            render_canvas_triangle(&c, a, b, d, k_red, k_red, k_red);
        long n = count_pixels(&c, k_red);
        cr_assert(labs(n - 5000) <= 110, "winding %d: %ld pixels for an area of 5000", wind, n);
    }
    /* degenerate and off-canvas triangles draw nothing and do not crash */
    render_canvas_clear(&c, k_white, k_white);
    float p[3] = {5, 5, 0}, q[3] = {50, 50, 0}, r[3] = {95, 95, 0};
    render_canvas_triangle(&c, p, q, r, k_red, k_red, k_red);
    float o1[3] = {-500, -500, 0}, o2[3] = {-400, -500, 0}, o3[3] = {-500, -400, 0};
    render_canvas_triangle(&c, o1, o2, o3, k_red, k_red, k_red);
    float n1[3] = {NAN, 0, 0};
    render_canvas_triangle(&c, n1, o2, o3, k_red, k_red, k_red);
    cr_assert_eq(count_pixels(&c, k_red), 0);
    render_canvas_free(&c);
}

Test(raster, depth_test_keeps_the_nearer_surface)
{
    render_canvas c;
    cr_assert_eq(render_canvas_init(&c, 64, 64), 0);
    float a[3] = {0, 0, 1}, b[3] = {64, 0, 1}, d[3] = {0, 64, 1}, e[3] = {64, 64, 1};
    float a2[3] = {0, 0, 2}, b2[3] = {64, 0, 2}, d2[3] = {0, 64, 2}, e2[3] = {64, 64, 2};
    for (int order = 0; order < 2; ++order) {
        render_canvas_clear(&c, k_white, k_white);
        for (int k = 0; k < 2; ++k) {
            int near = (k == order);
            if (near) {
                render_canvas_triangle(&c, a2, b2, e2, k_blue, k_blue, k_blue);
                render_canvas_triangle(&c, a2, e2, d2, k_blue, k_blue, k_blue);
            } else {
                render_canvas_triangle(&c, a, b, e, k_red, k_red, k_red);
                render_canvas_triangle(&c, a, e, d, k_red, k_red, k_red);
            }
        }
        cr_assert_eq(count_pixels(&c, k_blue), 64 * 64, "order %d", order);
    }
    render_canvas_free(&c);
}

Test(raster, colours_interpolate_and_resolve_averages)
{
    render_canvas c;
    cr_assert_eq(render_canvas_init(&c, 100, 100), 0);
    render_canvas_clear(&c, k_white, k_white);
    float a[3] = {0, 0, 0}, b[3] = {100, 0, 0}, d[3] = {0, 100, 0};
    float black[3] = {0, 0, 0};
    render_canvas_triangle(&c, a, b, d, black, k_white, black);
    /* x grows left to right with the red channel */
    float left = c.rgb[3 * (10 * 100 + 2)], right = c.rgb[3 * (10 * 100 + 80)];
    cr_assert(left < 0.05f && right > 0.78f && right < 0.82f, "%g %g", left, right);
    /* a 2x box filter of a checkerboard is mid grey */
    render_canvas_clear(&c, black, black);
    for (int y = 0; y < 100; ++y)
        for (int x = 0; x < 100; ++x)
            if ((x + y) % 2)
                memcpy(&c.rgb[3 * (y * 100 + x)], k_white, sizeof k_white);
    unsigned char out[50 * 50 * 3];
    render_canvas_resolve(&c, 2, out, 50, 0, 0);
    for (int i = 0; i < 50 * 50 * 3; ++i)
        cr_assert(out[i] == 128 || out[i] == 127, "%d", out[i]);
    render_canvas_free(&c);
}

Test(raster, lines_and_text)
{
    render_canvas c;
    cr_assert_eq(render_canvas_init(&c, 200, 100), 0);
    render_canvas_clear(&c, k_white, k_white);
    float a[3] = {20, 50, 0}, b[3] = {180, 50, 0};
    render_canvas_line(&c, a, b, 6, k_red, 0);
    long n = count_pixels(&c, k_red);
    /* 160 x 6 plus two half discs of radius 3 */
    cr_assert(labs(n - (160 * 6 + 28)) < 40, "%ld", n);
    /* a line behind a nearer surface is hidden unless biased toward the viewer */
    render_canvas_clear(&c, k_white, k_white);
    float t0[3] = {0, 0, 5}, t1[3] = {200, 0, 5}, t2[3] = {0, 200, 5}, t3[3] = {200, 200, 5};
    render_canvas_triangle(&c, t0, t1, t3, k_blue, k_blue, k_blue);
    render_canvas_triangle(&c, t0, t3, t2, k_blue, k_blue, k_blue);
    render_canvas_line(&c, a, b, 4, k_red, 0);
    cr_assert_eq(count_pixels(&c, k_red), 0);
    render_canvas_line(&c, a, b, 4, k_red, 1e30f);
    cr_assert_gt(count_pixels(&c, k_red), 600);
    render_canvas_clear(&c, k_white, k_white);
    render_canvas_text(&c, 2, 2, 2, "10", k_red);
    /* '1' has 8 lit cells, '0' 12; each cell is 2x2 */
    cr_assert_eq(count_pixels(&c, k_red), (8 + 12) * 4);
    render_canvas_text(&c, -10, -10, 1, "8~", k_red); /* clipped, unknown glyph skipped */
    render_canvas_free(&c);
    cr_assert_neq(render_canvas_init(&c, 0, 10), 0);
}

/* ---------- the commands ---------- */

typedef struct run_out {
    int code;
    char err[8192];
} run_out;

static run_out run(const char *const *args)
{
    mb_test_run t = mb_test_run_cli(args);
    run_out r;
    r.code = t.code;
    snprintf(r.err, sizeof r.err, "%s", t.err);
    mb_test_run_free(&t);
    return r;
}
#define RUN(...) run((const char *const[]){__VA_ARGS__, NULL})

/* Reads a binary PPM; returns the pixels (w * h * 3). */
static unsigned char *read_ppm(const char *path, int *w, int *h)
{
    size_t len;
    unsigned char *b = (unsigned char *)mb_test_slurp(path, &len);
    int off = 0, maxv = 0;
    cr_assert_eq(sscanf((char *)b, "P6 %d %d %d%n", w, h, &maxv, &off), 3);
    cr_assert_eq(maxv, 255);
    off += 1;
    cr_assert_eq(len, (size_t)off + (size_t)*w * (size_t)*h * 3);
    unsigned char *px = malloc((size_t)*w * (size_t)*h * 3);
    memcpy(px, b + off, (size_t)*w * (size_t)*h * 3);
    free(b);
    return px;
}

/* Body pixels: the shaded mesh colour is clearly warm (red > green > blue). */
static int is_body(const unsigned char *p) { return p[0] > p[1] + 20 && p[1] > p[2] + 10; }
static int is_bone(const unsigned char *p) { return p[2] > p[0] + 40 && p[2] < 140; }

Test(cli_render, bvh_sheet_shows_the_character_in_every_cell)
{
    const char *d = mb_test_scratch("render");
    char out[128];
    snprintf(out, sizeof out, "%s/walk.ppm", d);
    run_out r = RUN("render", MB_PROJECT_DIR "/data/bvh/walk.bvh", "-o", out, "--size", "120x160",
                    "--frames", "0:80:10");
    cr_assert_eq(r.code, 0, "%s", r.err);
    int w, h;
    unsigned char *px = read_ppm(out, &w, &h);
    cr_assert_eq(w, 8 * 120);
    cr_assert_eq(h, 160);
    for (int cell = 0; cell < 8; ++cell) {
        long body = 0;
        int x0 = 1 << 30, x1 = -1, y0 = 1 << 30, y1 = -1;
        for (int y = 0; y < h; ++y)
            for (int x = cell * 120; x < (cell + 1) * 120; ++x)
                if (is_body(&px[3 * (y * w + x)])) {
                    ++body;
                    x0 = x < x0 ? x : x0;
                    x1 = x > x1 ? x : x1;
                    y0 = y < y0 ? y : y0;
                    y1 = y > y1 ? y : y1;
                }
        /* a standing figure: tall, narrower than high, well inside the cell */
        cr_assert_gt(body, 800, "cell %d: %ld body pixels", cell, body);
        cr_assert_gt(y1 - y0, 100, "cell %d is %d pixels high", cell, y1 - y0);
        cr_assert_lt(x1 - x0, y1 - y0);
        cr_assert(x0 > cell * 120 && x1 < (cell + 1) * 120 - 1);
    }
    free(px);
    /* --skeleton draws bones, no body */
    r = RUN("render", MB_PROJECT_DIR "/data/bvh/walk.bvh", "-o", out, "--size", "100x120",
            "--frames", "3", "--skeleton", "--view", "side");
    cr_assert_eq(r.code, 0, "%s", r.err);
    px = read_ppm(out, &w, &h);
    cr_assert_eq(w, 100);
    long bones = 0, body = 0;
    for (int i = 0; i < w * h; ++i) {
        bones += is_bone(&px[3 * i]);
        body += is_body(&px[3 * i]);
    }
    cr_assert_gt(bones, 200);
    cr_assert_eq(body, 0);
    free(px);
    mb_test_remove_dir(d);
}

Test(cli_render, gltf_views_differ_and_png_is_well_formed)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    char side[128], front[128], png[128];
    snprintf(side, sizeof side, "%s/side.ppm", d);
    snprintf(front, sizeof front, "%s/front.ppm", d);
    snprintf(png, sizeof png, "%s/fox.png", d);
    char fox[4200];
    snprintf(fox, sizeof fox, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    run_out r = RUN("render", fox, "-o", side, "--view", "side", "--frames", "0", "--size", "200x200");
    cr_assert_eq(r.code, 0, "%s", r.err);
    r = RUN("render", fox, "-o", front, "--view", "front", "--frames", "0", "--size", "200x200");
    cr_assert_eq(r.code, 0, "%s", r.err);
    int w, h;
    unsigned char *a = read_ppm(side, &w, &h), *b = read_ppm(front, &w, &h);
    /* a fox is long from the side and narrow from the front */
    int extent[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        unsigned char *px = k ? b : a;
        int x0 = w, x1 = -1;
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (is_body(&px[3 * (y * w + x)])) {
                    x0 = x < x0 ? x : x0;
                    x1 = x > x1 ? x : x1;
                }
        extent[k] = x1 - x0;
    }
    cr_log_info("fox width: side %d px, front %d px", extent[0], extent[1]);
    cr_assert_gt(extent[0], 2 * extent[1]);
    free(a);
    free(b);
    r = RUN("render", fox, "-o", png, "--frames", "0:18:6", "--size", "160x120");
    cr_assert_eq(r.code, 0, "%s", r.err);
    size_t len;
    unsigned char *p = (unsigned char *)mb_test_slurp(png, &len);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cr_assert_eq(memcmp(p, sig, 8), 0);
    cr_assert_eq(memcmp(p + 12, "IHDR", 4), 0);
    unsigned pw = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
    unsigned ph = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
    cr_assert_eq(pw, 3 * 160u);
    cr_assert_eq(ph, 120u);
    cr_assert_eq(p[24], 8);                          /* bit depth */
    cr_assert_eq(p[25], 2);                          /* RGB */
    cr_assert_eq(memcmp(p + len - 8, "IEND", 4), 0); /* complete */
    free(p);
    mb_test_remove_dir(d);
}

/* Counts the images of a GIF by walking its blocks. */
static int gif_frames(const unsigned char *g, size_t len, int *w, int *h, int *delay)
{
    cr_assert_eq(memcmp(g, "GIF89a", 6), 0);
    *w = g[6] | g[7] << 8;
    *h = g[8] | g[9] << 8;
    size_t i = 13;
    if (g[10] & 0x80)
        i += 3u * (2u << (g[10] & 7));
    int frames = 0;
    while (i < len) {
        if (g[i] == 0x3b)
            return frames;
        if (g[i] == 0x21) { /* extension: label, then sub-blocks */
            if (g[i + 1] == 0xf9)
                *delay = g[i + 4] | g[i + 5] << 8;
            i += 2;
        } else if (g[i] == 0x2c) { /* image: descriptor, optional table, LZW size, sub-blocks */
            ++frames;
            unsigned char flags = g[i + 9];
            i += 10;
            if (flags & 0x80)
                i += 3u * (2u << (flags & 7));
            i += 1;
        } else {
            cr_assert_fail("bad GIF block 0x%02x at %zu", g[i], i);
        }
        while (i < len && g[i] != 0)
            i += g[i] + 1u;
        ++i;
    }
    cr_assert_fail("GIF without trailer");
    return -1;
}

Test(cli_render, gif_animation_has_one_image_per_frame)
{
    const char *d = mb_test_scratch("render");
    char gif[128];
    snprintf(gif, sizeof gif, "%s/walk.gif", d);
    run_out r = RUN("render", MB_PROJECT_DIR "/data/bvh/walk.bvh", "-o", gif, "--frames", "0:12:2",
                    "--size", "64x96");
    cr_assert_eq(r.code, 0, "%s", r.err);
    size_t len;
    unsigned char *g = (unsigned char *)mb_test_slurp(gif, &len);
    int w, h, delay = -1;
    cr_assert_eq(gif_frames(g, len, &w, &h, &delay), 6);
    cr_assert_eq(w, 64);
    cr_assert_eq(h, 96);
    /* walk.bvh runs at 1/30 s a frame; every 2nd frame: 6.7 hundredths */
    cr_assert_eq(delay, 7);
    free(g);
    mb_test_remove_dir(d);
}

Test(cli_render, usage_and_input_errors)
{
    const char *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh";
    cr_assert_eq(RUN("render", walk).code, 1);
    cr_assert_eq(RUN("render", walk, "-o", "/tmp/x.jpg").code, 1);
    cr_assert_eq(RUN("render", walk, "-o", "/tmp/x.png", "--view", "back").code, 1);
    cr_assert_eq(RUN("render", walk, "-o", "/tmp/x.png", "--size", "10x10").code, 1);
    run_out r = RUN("render", walk, "-o", "/tmp/x.png", "--frames", "5:2");
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "--frames"), "%s", r.err);
    r = RUN("render", "/nonexistent.bvh", "-o", "/tmp/x.png");
    cr_assert_eq(r.code, 2);
    r = RUN("render", walk, "-o", "/nonexistent/dir/x.png", "--frames", "0");
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "cannot write"), "%s", r.err);
    r = RUN("render", "--help");
    cr_assert_eq(r.code, 0);
    if (mb_scene_supported()) {
        char spec[4200];
        snprintf(spec, sizeof spec, "%s#Fly", mb_shared_path("mesh/Fox.glb"));
        r = RUN("render", spec, "-o", "/tmp/x.png");
        cr_assert_eq(r.code, 2);
        cr_assert(strstr(r.err, "'Walk'") && strstr(r.err, "'Run'"), "lists the clips: %s", r.err);
    }
}

/* ---------- mblend skin ---------- */

static int count_prefix(const char *path, const char *prefix)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[256];
    int n = 0;
    size_t k = strlen(prefix);
    while (fgets(line, sizeof line, f))
        n += strncmp(line, prefix, k) == 0;
    fclose(f);
    return n;
}

Test(cli_skin, obj_sequence_one_file_per_frame)
{
    const char *d = mb_test_scratch("render");
    char out[128], f0[128], f4[128], one[128];
    snprintf(out, sizeof out, "%s/walk.obj", d);
    snprintf(f0, sizeof f0, "%s/walk_0000.obj", d);
    snprintf(f4, sizeof f4, "%s/walk_0004.obj", d);
    run_out r = RUN("skin", MB_PROJECT_DIR "/data/bvh/walk.bvh", "--frames", "0:6:2", "--method",
                    "dqs", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    int v0 = count_prefix(f0, "v "), v4 = count_prefix(f4, "v ");
    cr_assert_gt(v0, 1000);
    cr_assert_eq(v0, v4);
    cr_assert_eq(count_prefix(f0, "vn "), v0);
    cr_assert_gt(count_prefix(f0, "f "), v0);
    cr_assert_eq(access(out, F_OK), -1, "several frames: no un-numbered file");
    /* one frame: the name as given */
    snprintf(one, sizeof one, "%s/one.obj", d);
    r = RUN("skin", MB_PROJECT_DIR "/data/bvh/walk.bvh", "--frames", "7", "-o", one);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert_eq(count_prefix(one, "v "), v0);
    mb_test_remove_dir(d);
}

/* --frames: a step past the range takes its first frame (a huge step once overflowed the
 * frame count: a division by zero in render, garbage in skin's message); text that is not
 * A:B:STEP is a usage error, a range outside the clip an input error. */
Test(cli_render, frames_step_past_the_range_and_malformed_frames)
{
    const char *d = mb_test_scratch("render"), *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh";
    char png[128], obj[128];
    snprintf(png, sizeof png, "%s/r.png", d);
    snprintf(obj, sizeof obj, "%s/s.obj", d);
    run_out r = RUN("render", walk, "-o", png, "--frames", "0:132:9223372036854775807");
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "sheet of 1 frame"), "%s", r.err);
    /* the default sheet spans the clip: 8 frames, step ceil(132 / 8) = 17, frames 0 to 119
     * (the message gives the first and last frames drawn) */
    r = RUN("render", walk, "-o", png);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "sheet of 8 frames (0..119 step 17)"), "%s", r.err);
    /* an empty --frames is a mistake, not "every frame"; a --scale that would make the
     * glTF unreadable (singular bind matrices) is refused */
    r = RUN("skin", walk, "-o", obj, "--frames", "");
    cr_assert_eq(r.code, 1, "%s", r.err);
    r = RUN("skin", walk, "--scale", "1e-30", "-o", "never.glb");
    cr_assert_eq(r.code, 1, "%s", r.err);
    cr_assert(strstr(r.err, "--scale needs a number from 1e-6 to 1e6"), "%s", r.err);
    r = RUN("skin", walk, "-o", obj, "--frames", "3:132:9223372036854775807");
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "wrote 1 OBJ file (") && strstr(r.err, "/s.obj)"), "%s", r.err);
    const char *cmds[] = {"render", "skin"}, *outs[] = {png, obj};
    for (int c = 0; c < 2; ++c) {
        r = RUN(cmds[c], walk, "-o", outs[c], "--frames", "abc");
        cr_assert_eq(r.code, 1, "%s: %s", cmds[c], r.err);
        r = RUN(cmds[c], walk, "-o", outs[c], "--frames", "0:5:0");
        cr_assert_eq(r.code, 1, "%s: %s", cmds[c], r.err);
        r = RUN(cmds[c], walk, "-o", outs[c], "--frames", "130:140");
        cr_assert_eq(r.code, 2, "%s: %s", cmds[c], r.err);
        r = RUN(cmds[c], walk, "-o", outs[c], "--frames", "9223372036854775807"); /* N + 1 overflowed */
        cr_assert_eq(r.code, 2, "%s: %s", cmds[c], r.err);
    }
    mb_test_remove_dir(d);
}

/* A sequence that cannot be written whole leaves the files that were there as they were
 * and none of its own (the first fix removed files it had replaced). */
static void assert_file_text(const char *path, const char *want)
{
    size_t n;
    unsigned char *b = (unsigned char *)mb_test_slurp(path, &n);
    cr_assert(n == strlen(want) && memcmp(b, want, n) == 0, "%s was changed", path);
    free(b);
}

/* How many entries of folder d have part in their name. */
static int count_entries_containing(const char *d, const char *part)
{
    DIR *dir = opendir(d);
    struct dirent *e;
    int n = 0;
    while (dir && (e = readdir(dir)))
        n += strstr(e->d_name, part) != NULL;
    if (dir)
        closedir(dir);
    return n;
}

Test(cli_skin, failed_sequence_leaves_existing_files_alone)
{
    const char *d = mb_test_scratch("render");
    char out[128], f0[128], f1[128], blocker[128];
    snprintf(out, sizeof out, "%s/s.obj", d);
    snprintf(f0, sizeof f0, "%s/s_0000.obj", d);
    snprintf(f1, sizeof f1, "%s/s_0001.obj", d);
    write_text(f0, "keep\n");
    const char *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh";
    /* frame 3's name is a directory: refused before anything is written */
    snprintf(blocker, sizeof blocker, "%s/s_0003.obj", d);
    cr_assert_eq(mkdir(blocker, 0700), 0);
    run_out r = RUN("skin", walk, "--frames", "0:5", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "s_0003.obj' exists and is not a regular file"), "%s", r.err);
    assert_file_text(f0, "keep\n");
    cr_assert_eq(access(f1, F_OK), -1, "frame 1's file was written");
    cr_assert_eq(rmdir(blocker), 0);
    /* frame 2 cannot be staged (its name links into a missing folder): the run fails part
     * way, after frames 0 and 1 were staged, and nothing changes */
    snprintf(blocker, sizeof blocker, "%s/s_0002.obj", d);
    cr_assert_eq(symlink("missing/s.obj", blocker), 0);
    r = RUN("skin", walk, "--frames", "0:5", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "frame 2 ('"), "%s", r.err);
    assert_file_text(f0, "keep\n");
    cr_assert_eq(access(f1, F_OK), -1, "frame 1's file was left behind");
    cr_assert_eq(count_entries_containing(d, ".partial"), 0, "a staging file was left behind");
    cr_assert_eq(unlink(blocker), 0);
    /* a user's file named like a staging file is never taken (staging names are unique) */
    char user[160];
    snprintf(user, sizeof user, "%s/s_0000.obj.partial", d);
    write_text(user, "mine\n");
    /* and with nothing in the way the set replaces the old file */
    r = RUN("skin", walk, "--frames", "0:5", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(count_prefix(f0, "v ") > 1000);
    assert_file_text(user, "mine\n");
    cr_assert_eq(unlink(user), 0);
    cr_assert_eq(count_entries_containing(d, ".partial"), 0);
    mb_test_remove_dir(d);
}

/* skin of frames 0 and 1 to out, whose two frame names land in the file victim (written
 * "old" first): refused, victim unchanged. */
static void refused_as_one_file(const char *clip, const char *out, const char *victim)
{
    write_text(victim, "old\n");
    run_out r = RUN("skin", clip, "--frames", "0:2", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert(strstr(r.err, "frames 0 and 1 would both be written to"), "%s", r.err);
    assert_file_text(victim, "old\n");
}

/* A frame's name that is a symbolic link keeps the link and its target gets the frame, as
 * every mblend writer treats a link (the sequence renamed its staged frames over the link);
 * a link into a missing folder fails the run before anything is replaced. */
Test(cli_skin, sequence_frames_follow_symbolic_links)
{
    const char *d = mb_test_scratch("render");
    char out[128], f0[128], f1[128], sub[128], target[160];
    snprintf(out, sizeof out, "%s/s.obj", d);
    snprintf(f0, sizeof f0, "%s/s_0000.obj", d);
    snprintf(f1, sizeof f1, "%s/s_0001.obj", d);
    snprintf(sub, sizeof sub, "%s/real", d);
    snprintf(target, sizeof target, "%s/t.obj", sub);
    cr_assert_eq(mkdir(sub, 0700), 0);
    write_text(target, "old\n");
    cr_assert_eq(symlink("real/t.obj", f1), 0); /* relative to the link's folder */
    const char *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh";
    run_out r = RUN("skin", walk, "--frames", "0:2", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    struct stat st;
    cr_assert_eq(lstat(f1, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced");
    cr_assert(count_prefix(target, "v ") > 1000, "the target did not get frame 1");
    cr_assert(count_prefix(f0, "v ") > 1000);
    cr_assert(strstr(r.err, "s_0000.obj ... ") && strstr(r.err, "s_0001.obj)"), "%s", r.err);
    /* a link into a folder that does not exist: nothing changes */
    cr_assert_eq(unlink(f1), 0);
    cr_assert_eq(symlink("missing/t.obj", f1), 0);
    cr_assert_eq(unlink(f0), 0);
    r = RUN("skin", walk, "--frames", "0:2", "-o", out);
    cr_assert_eq(r.code, 2, "%s", r.err);
    cr_assert_eq(access(f0, F_OK), -1, "frame 0 was written by a failed run");
    cr_assert_eq(lstat(f1, &st), 0);
    cr_assert(S_ISLNK(st.st_mode));
    cr_assert(count_prefix(target, "v ") > 1000);
    /* two frame names linking to one file: refused before anything is written (the second
     * rename failed after the first had replaced the file) */
    cr_assert_eq(unlink(f1), 0);
    cr_assert_eq(symlink("real/t.obj", f0), 0);
    cr_assert_eq(symlink("real/t.obj", f1), 0);
    refused_as_one_file(walk, out, target);
    /* the same file spelled another way: frame 0 links to frame 1's name through ".." */
    cr_assert_eq(unlink(f0), 0);
    cr_assert_eq(unlink(f1), 0);
    cr_assert_eq(symlink("real/../s_0001.obj", f0), 0);
    refused_as_one_file(walk, out, f1);
    mb_test_remove_dir(d);
}

/* A signal while skin writes its frames (Ctrl-C, a kill): the run stops after the frame in
 * hand and removes every staged frame, as a failed run does, then dies of the signal (it
 * left thousands of OUT_NNNNNN.obj.partial files). */
Test(cli_skin, interrupted_run_leaves_no_staged_frames)
{
    const char *d = mb_test_scratch("render");
    char longb[128], out[128];
    snprintf(longb, sizeof longb, "%s/long.bvh", d);
    snprintf(out, sizeof out, "%s/f.obj", d);
    /* the shipped walk, its 132 frames played over and over for 20000 frames */
    size_t len;
    char *text = mb_test_slurp(MB_PROJECT_DIR "/data/bvh/walk.bvh", &len);
    char *frames = strstr(text, "Frames:"), *ftime = strstr(text, "Frame Time:");
    cr_assert(frames && ftime);
    char *data = strchr(ftime, '\n') + 1;
    FILE *f = fopen(longb, "w");
    cr_assert_not_null(f);
    fprintf(f, "%.*sFrames: 20000\n%.*s", (int)(frames - text), text, (int)(data - ftime), ftime);
    char *lines[200];
    int nl = 0;
    for (char *p = data; *p && nl < 200; p = strchr(p, '\n') + 1) {
        lines[nl++] = p;
        if (!strchr(p, '\n'))
            break;
    }
    cr_assert_gt(nl, 100);
    for (int k = 0; k < 20000; ++k) {
        char *l = lines[k % nl], *e = strchr(l, '\n');
        fprintf(f, "%.*s\n", (int)(e ? e - l : (long)strlen(l)), l);
    }
    fclose(f);
    free(text);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY); /* the child's stderr, not an output of mblend */
        if (nul >= 0)
            dup2(nul, 2);
        execl(CLI, "mblend", "skin", longb, "-o", out, (char *)NULL);
        _exit(127);
    }
    /* wait for the first staged frame, then interrupt */
    int seen = 0;
    for (int t = 0; t < 2000 && !seen; ++t) {
        seen = count_entries_containing(d, ".partial") > 0;
        if (!seen)
            nanosleep(&(struct timespec){0, 10000000L}, NULL);
    }
    cr_assert(seen, "no staged frame in 20 s");
    kill(pid, SIGTERM);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "status %#x", status);
    DIR *dir = opendir(d);
    struct dirent *e;
    int left = 0;
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, "long.bvh") != 0) {
            cr_log_error("left behind: %s", e->d_name);
            ++left;
        }
    closedir(dir);
    cr_assert_eq(left, 0);
    mb_test_remove_dir(d);
}

Test(cli_skin, gltf_clip_to_glb_and_bvh_onto_a_foreign_mesh)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    char out[128], spec[4200];
    snprintf(out, sizeof out, "%s/fox.glb", d);
    snprintf(spec, sizeof spec, "%s#Run", mb_shared_path("mesh/Fox.glb"));
    run_out r = RUN("skin", spec, "--frames", "0:40:4", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_scene *s;
    mb_error err;
    cr_assert_eq(mb_scene_read_file(out, NULL, &s, &err), MB_OK);
    cr_assert_eq(mb_scene_clip_count(s), 1);
    cr_assert_str_eq(mb_scene_clip_name(s, 0), "Run");
    cr_assert_eq(mb_clip_frame_count(mb_scene_clip(s, 0)), 10);
    cr_assert_float_eq(mb_clip_frame_time(mb_scene_clip(s, 0)), 4.0 / 120.0, 1e-6);
    cr_assert_eq(mb_mesh_triangle_count(mb_scene_mesh(s)), 576);
    mb_scene_destroy(s);
    /* the BVH's joint names match nothing on the fox: an input error that says so */
    r = RUN("skin", MB_PROJECT_DIR "/data/bvh/walk.bvh", "--mesh", mb_shared_path("mesh/Fox.glb"),
            "-o", out);
    cr_assert_eq(r.code, 2);
    cr_assert(strstr(r.err, "joint name"), "%s", r.err);
    /* Fox's own Walk onto the fox mesh through --mesh: every joint matches */
    snprintf(spec, sizeof spec, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    char obj[128];
    snprintf(obj, sizeof obj, "%s/fw.obj", d);
    r = RUN("skin", spec, "--mesh", mb_shared_path("mesh/Fox.glb"), "--frames", "3", "-o", obj);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert_null(strstr(r.err, "keep their bind pose"), "%s", r.err);
    /* usage errors */
    cr_assert_eq(RUN("skin", spec, "-o", "x.stl").code, 1);
    cr_assert_eq(RUN("skin", spec).code, 1);
    cr_assert_eq(RUN("skin", spec, "--method", "xyz", "-o", obj).code, 1);
    cr_assert_eq(RUN("skin", spec, "--scale", "2", "-o", obj).code, 1);
    cr_assert_eq(RUN("skin", MB_PROJECT_DIR "/data/bvh/walk.bvh#x", "-o", obj).code, 1);
    mb_test_remove_dir(d);
}

/* Rotation angle between unit quaternions a (double) and b (float), from the chord
 * |a - b| = 2 sin(angle / 4) (acos of a dot near 1 resolves no better than 3e-4 rad in float). */
static double quat_angle(const double a[4], const float b[4])
{
    double dot = 0, c2 = 0;
    for (int c = 0; c < 4; ++c)
        dot += a[c] * b[c];
    for (int c = 0; c < 4; ++c) {
        double d = a[c] - (dot < 0 ? -1.0 : 1.0) * b[c];
        c2 += d * d;
    }
    return 4.0 * asin(fmin(1.0, 0.5 * sqrt(c2)));
}

/* The joint of rs named like joint j of ss when j lies below joint top of ss, else -1. */
static int same_joint_below(const mb_skeleton *ss, const mb_skeleton *rs, int j, int top)
{
    for (int p = mb_skeleton_parents(ss)[j]; p >= 0; p = mb_skeleton_parents(ss)[p])
        if (p == top)
            return mb_skeleton_find(rs, mb_skeleton_name(ss, j));
    return -1;
}

/* Two-input log/exp blend with weights (1/2, 1/2) is slerp(a, b, 1/2): the normalised sum of
 * a and b (short arc), computed here in double. */
static void half_way(const float a[4], const float b[4], double out[4])
{
    double s = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double sign = s < 0 ? -1.0 : 1.0, n = 0;
    for (int k = 0; k < 4; ++k) {
        out[k] = a[k] + sign * b[k];
        n += out[k] * out[k];
    }
    for (int k = 0; k < 4; ++k)
        out[k] /= sqrt(n);
}

/* A cyclic blend written to glTF repeats its first frame as its last key (glTF players
 * loop over the key span): every joint's local rotation and translation in the last frame
 * read back is frame 0's. */
static void assert_closing_key(const mb_skeleton *s, const mb_clip *c)
{
    int nj = mb_skeleton_joint_count(s), nf = mb_clip_frame_count(c);
    mb_xform *a = calloc((size_t)nj, sizeof *a), *b = calloc((size_t)nj, sizeof *b);
    cr_assert_eq(mb_clip_frame_pose(s, c, 0, (mb_pose){a, nj}), MB_OK);
    cr_assert_eq(mb_clip_frame_pose(s, c, nf - 1, (mb_pose){b, nj}), MB_OK);
    for (int j = 0; j < nj; ++j) {
        double q[4] = {a[j].rot[0], a[j].rot[1], a[j].rot[2], a[j].rot[3]};
        cr_assert(quat_angle(q, b[j].rot) < 1e-5, "joint %s: the last key is not frame 0",
                  mb_skeleton_name(s, j));
        for (int k = 0; k < 3; ++k)
            cr_assert(fabsf(a[j].pos[k] - b[j].pos[k]) <= 1e-5f * (1.0f + fabsf(a[j].pos[k])),
                      "joint %s: the last key is not frame 0", mb_skeleton_name(s, j));
    }
    free(a);
    free(b);
}

/* glTF clips go through `mblend blend` like BVH ones: Fox's Walk and Run (in-place loops, so
 * the whole loops are the cycles) into a binary glTF with the fox's mesh. Checked against
 * independent numbers: the output lasts (T_walk + T_run) / 2 (one frame of rounding), and its
 * first frame (phase 0) is, for every joint below the hips, slerp(walk[0], run[0], 1/2). */
Test(cli_blend, gltf_walk_and_run_into_glb_and_bvh)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    char out[128], bvh[128], walk[4200], runs[4200];
    snprintf(out, sizeof out, "%s/trot.glb", d);
    snprintf(bvh, sizeof bvh, "%s/trot.bvh", d);
    snprintf(walk, sizeof walk, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    snprintf(runs, sizeof runs, "%s#Run", mb_shared_path("mesh/Fox.glb"));
    run_out r = RUN("blend", walk, runs, "-w", "1,1", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "the whole loop") != NULL, "%s", r.err);

    mb_scene *src, *res;
    mb_error err;
    cr_assert_eq(mb_scene_read_file(mb_shared_path("mesh/Fox.glb"), NULL, &src, &err), MB_OK);
    cr_assert_eq(mb_scene_read_file(out, NULL, &res, &err), MB_OK);
    cr_assert_eq(mb_scene_clip_count(res), 1);
    cr_assert_eq(mb_mesh_triangle_count(mb_scene_mesh(res)), 576);
    const mb_clip *cw = mb_scene_clip(src, mb_scene_find_clip(src, "Walk"));
    const mb_clip *cr = mb_scene_clip(src, mb_scene_find_clip(src, "Run"));
    const mb_clip *ct = mb_scene_clip(res, 0);
    double tw = (mb_clip_frame_count(cw) - 1) * mb_clip_frame_time(cw);
    double tr = (mb_clip_frame_count(cr) - 1) * mb_clip_frame_time(cr);
    /* the glTF closes the loop: one key more than the blend's frames, frame 0 again */
    int frames = mb_clip_frame_count(ct) - 1;
    assert_closing_key(mb_scene_skeleton(res), ct);
    double tt = frames * mb_clip_frame_time(ct);
    cr_assert(fabs(tt - 0.5 * (tw + tr)) <= mb_clip_frame_time(ct) + 1e-9, "%g s vs %g s", tt,
              0.5 * (tw + tr));

    const mb_skeleton *ss = mb_scene_skeleton(src), *rs = mb_scene_skeleton(res);
    int hips = mb_skeleton_find(ss, "b_Hip_01");
    cr_assert_geq(hips, 0);
    int ns = mb_skeleton_joint_count(ss), nr = mb_skeleton_joint_count(rs), checked = 0;
    mb_xform *pw = calloc((size_t)ns, sizeof *pw), *pr = calloc((size_t)ns, sizeof *pr);
    mb_xform *pt = calloc((size_t)nr, sizeof *pt);
    cr_assert_eq(mb_clip_frame_pose(ss, cw, 0, (mb_pose){pw, ns}), MB_OK);
    cr_assert_eq(mb_clip_frame_pose(ss, cr, 0, (mb_pose){pr, ns}), MB_OK);
    cr_assert_eq(mb_clip_frame_pose(rs, ct, 0, (mb_pose){pt, nr}), MB_OK);
    double worst = 0;
    for (int j = hips + 1; j < ns; ++j) {
        int k = same_joint_below(ss, rs, j, hips);
        if (k < 0)
            continue;
        double want[4];
        half_way(pw[j].rot, pr[j].rot, want);
        double ang = quat_angle(want, pt[k].rot);
        worst = fmax(worst, ang);
        ++checked;
    }
    cr_assert_geq(checked, 20);
    cr_assert(worst < 1e-5, "phase-0 joints off slerp(walk, run, 1/2) by %g rad", worst);
    free(pw);
    free(pr);
    free(pt);
    mb_scene_destroy(src);
    mb_scene_destroy(res);

    /* BVH output of the same blend: the fox's skeleton as a BVH file */
    r = RUN("blend", walk, runs, "-w", "1,1", "-o", bvh);
    cr_assert_eq(r.code, 0, "%s", r.err);
    mb_skeleton *bs;
    mb_clip *bc;
    cr_assert_eq(mb_bvh_read_file(bvh, NULL, &bs, &bc, &err), MB_OK, "%s", err.text);
    cr_assert_eq(mb_skeleton_find(bs, "b_LeftFoot02_018") >= 0, 1);
    cr_assert_eq(mb_clip_frame_count(bc), frames);
    mb_skeleton_destroy(bs);
    mb_clip_destroy(bc);
    mb_test_remove_dir(d);
}

/* `mblend transition` takes glTF animations too and writes .glb: Fox Run -> Walk at 0.5 s.
 * Up to the transition the output plays A unchanged: every joint below the hips of output
 * frames 0..59 equals Run's frame (same 120 fps grid). */
/* A glTF file mblend wrote blends again with the file it came from: the skinned mesh sits on
 * the still root node, or, when the root moves (a BVH's hips), on a scene root of its own
 * that the reader folds onto the skeleton's root, so reading the output back gives the same
 * skeleton (a second scene root made assimp add a "ROOT" node, two more nodes per round
 * trip, and the glb no longer blended with its source). */
Test(cli_blend, a_written_glb_blends_with_its_source)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    const char *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh", *runc = MB_PROJECT_DIR "/data/bvh/run.bvh";
    char glb[128], out[128];
    snprintf(glb, sizeof glb, "%s/walk_moving_root.glb", d);
    snprintf(out, sizeof out, "%s/mix.bvh", d);
    cr_assert_eq(RUN("convert", walk, "-o", glb).code, 0);
    mb_scene *s;
    mb_error err;
    cr_assert_eq(mb_scene_read_file(glb, NULL, &s, &err), MB_OK, "%s", err.text);
    mb_skeleton *bs;
    mb_clip *bc;
    cr_assert_eq(mb_bvh_read_file(walk, NULL, &bs, &bc, &err), MB_OK, "%s", err.text);
    int diff = -1;
    cr_assert(mb_skeleton_same_topology(bs, mb_scene_skeleton(s), &diff), "differ at %d", diff);
    mb_scene_destroy(s);
    mb_skeleton_destroy(bs);
    mb_clip_destroy(bc);
    run_out r = RUN("blend", glb, runc, "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
}

/* --scale on blend and transition glb outputs: a scale node above the skeleton, which
 * mblend's reader folds into the offsets (a uniform scale; it used to drop it, so the file
 * read back at full size), only for .glb, only a positive decimal. */
Test(cli_blend, scale_applies_to_glb_outputs)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    const char *walk = MB_PROJECT_DIR "/data/bvh/walk.bvh", *runc = MB_PROJECT_DIR "/data/bvh/run.bvh";
    char plain[128], scaled[128], trans[128], bvh[128];
    snprintf(plain, sizeof plain, "%s/jog.glb", d);
    snprintf(scaled, sizeof scaled, "%s/jog_m.glb", d);
    snprintf(trans, sizeof trans, "%s/rw_m.glb", d);
    snprintf(bvh, sizeof bvh, "%s/jog.bvh", d);
    cr_assert_eq(RUN("blend", walk, runc, "-o", plain).code, 0);
    run_out r = RUN("blend", walk, runc, "--scale", "0.01", "-o", scaled);
    cr_assert_eq(r.code, 0, "%s", r.err);
    r = RUN("transition", runc, walk, "--at", "1.5", "--duration", "0.5", "--scale", "0.01", "-o", trans);
    cr_assert_eq(r.code, 0, "%s", r.err);
    const char *files[] = {plain, scaled, trans};
    double hips[2][3];
    for (int i = 0; i < 3; ++i) {
        mb_scene *s;
        mb_error err;
        cr_assert_eq(mb_scene_read_file(files[i], NULL, &s, &err), MB_OK, "%s", err.text);
        cr_assert_eq(mb_scene_get_info(s).scaled_nodes, 0, "%s", files[i]);
        if (i < 2) { /* the blend's hips at frame 0, full size and scaled */
            const mb_skeleton *sk = mb_scene_skeleton(s);
            int nj = mb_skeleton_joint_count(sk), h = mb_skeleton_find(sk, "Hips");
            mb_xform *x = calloc((size_t)nj, sizeof *x);
            float(*w)[16] = calloc((size_t)nj, sizeof *w);
            cr_assert(x && w && h >= 0);
            mb_pose p = {x, nj};
            cr_assert_eq(mb_clip_frame_pose(sk, mb_scene_clip(s, 0), 0, p), MB_OK);
            cr_assert_eq(mb_fk(sk, &p, w, nj), MB_OK);
            for (int k = 0; k < 3; ++k)
                hips[i][k] = w[h][12 + k];
            free(x);
            free(w);
        }
        mb_scene_destroy(s);
    }
    for (int k = 0; k < 3; ++k)
        cr_assert(fabs(hips[1][k] - 0.01 * hips[0][k]) < 1e-4 * (1.0 + fabs(hips[0][k])),
                  "hips %d: %g scaled, %g full size", k, hips[1][k], hips[0][k]);
    /* and its own mesh skins at that size (the inverse bind matrices carry the scale: the
     * mesh came out 100 times its skeleton's size) */
    char oa[160], ob[160];
    snprintf(oa, sizeof oa, "%s/plain.obj", d);
    snprintf(ob, sizeof ob, "%s/scaled.obj", d);
    cr_assert_eq(RUN("skin", plain, "--frames", "0", "-o", oa).code, 0);
    cr_assert_eq(RUN("skin", scaled, "--frames", "0", "-o", ob).code, 0);
    FILE *fa = fopen(oa, "r"), *fb = fopen(ob, "r");
    cr_assert(fa && fb);
    char la[256], lb[256];
    int nv = 0;
    double worst = 0.0;
    while (fgets(la, sizeof la, fa) && fgets(lb, sizeof lb, fb)) {
        double a[3], b[3];
        if (sscanf(la, "v %lf %lf %lf", &a[0], &a[1], &a[2]) != 3)
            continue;
        cr_assert_eq(sscanf(lb, "v %lf %lf %lf", &b[0], &b[1], &b[2]), 3);
        for (int k = 0; k < 3; ++k)
            worst = fmax(worst, fabs(b[k] - 0.01 * a[k]));
        ++nv;
    }
    fclose(fa);
    fclose(fb);
    cr_assert_gt(nv, 1000);
    cr_assert(worst < 1e-4, "the scaled mesh is %g from 0.01 x the full-size one", worst);
    cr_assert_eq(RUN("blend", walk, runc, "--scale", "0.01", "-o", bvh).code, 1);
    cr_assert_eq(RUN("transition", runc, walk, "--at", "1.5", "--duration", "0.5", "--scale", "2",
                     "-o", bvh).code, 1);
    cr_assert_eq(RUN("blend", walk, runc, "--scale", "0", "-o", scaled).code, 1);
    cr_assert_eq(RUN("blend", walk, runc, "--scale", "0x1p-3", "-o", scaled).code, 1);
    cr_assert_eq(access(bvh, F_OK), -1, "a refused command wrote %s", bvh);
    mb_test_remove_dir(d);
}

Test(cli_blend, gltf_output_blends_again_with_its_source)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    char fox[4096], walk[4200], out1[128], out2[128];
    snprintf(fox, sizeof fox, "%s", mb_shared_path("mesh/Fox.glb"));
    snprintf(walk, sizeof walk, "%s#Walk", fox);
    char run_spec[4200];
    snprintf(run_spec, sizeof run_spec, "%s#Run", fox);
    snprintf(out1, sizeof out1, "%s/trot.glb", d);
    snprintf(out2, sizeof out2, "%s/again.glb", d);
    run_out r = RUN("blend", walk, run_spec, "-o", out1);
    cr_assert_eq(r.code, 0, "%s", r.err);
    r = RUN("blend", out1, walk, "-o", out2);
    cr_assert_eq(r.code, 0, "the output did not blend with its source: %s", r.err);
    mb_scene *a = NULL, *b = NULL;
    mb_error e;
    cr_assert_eq(mb_scene_read_file(fox, NULL, &a, &e), MB_OK, "%s", e.text);
    cr_assert_eq(mb_scene_read_file(out2, NULL, &b, &e), MB_OK, "%s", e.text);
    int diff;
    cr_assert(mb_skeleton_same_topology(mb_scene_skeleton(a), mb_scene_skeleton(b), &diff),
              "the skeleton changed at joint %d", diff);
    mb_scene_destroy(a);
    mb_scene_destroy(b);
    mb_test_remove_dir(d);
}

/* assimp crashes on an X file whose frames nest 50,000 deep (its parser recurses): the
 * tool reports it as an input error instead of dying with the signal. (glTF files are
 * checked by the library before assimp: test_gltf_check.c.) */
Test(cli_render, importer_crash_is_an_input_error)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    char path[128];
    snprintf(path, sizeof path, "%s/deep.x", d);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    enum { DEPTH = 50000 };
    fputs("xof 0303txt 0032\n", f);
    for (int i = 0; i < DEPTH; ++i)
        fprintf(f, "Frame f%d {\n", i);
    for (int i = 0; i < DEPTH; ++i)
        fputs("}\n", f);
    cr_assert_eq(fclose(f), 0);
    run_out r = RUN("info", path);
    /* an assimp that reads (or refuses) it is fine too; dying with a signal (-1 here) is not */
    cr_assert(r.code == 2 && (strstr(r.err, "importer (assimp) crashed on this file") ||
                              strstr(r.err, "assimp cannot read it")),
              "exit %d: %s", r.code, r.err);
    mb_test_remove_dir(d);
}

Test(cli_transition, gltf_run_to_walk_into_glb)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    char out[128], a[4200], b[4200];
    snprintf(out, sizeof out, "%s/fox_rw.glb", d);
    snprintf(a, sizeof a, "%s#Run", mb_shared_path("mesh/Fox.glb"));
    snprintf(b, sizeof b, "%s#Walk", mb_shared_path("mesh/Fox.glb"));
    run_out r = RUN("transition", a, b, "--at", "0.5", "--duration", "0.3", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "A frame 60 (0.500 s)") != NULL, "%s", r.err);
    mb_scene *src, *res;
    mb_error err;
    cr_assert_eq(mb_scene_read_file(mb_shared_path("mesh/Fox.glb"), NULL, &src, &err), MB_OK);
    cr_assert_eq(mb_scene_read_file(out, NULL, &res, &err), MB_OK);
    cr_assert_eq(mb_scene_clip_count(res), 1);
    cr_assert_str_eq(mb_scene_clip_name(res, 0), "transition");
    cr_assert_eq(mb_mesh_triangle_count(mb_scene_mesh(res)), 576);
    const mb_skeleton *ss = mb_scene_skeleton(src), *rs = mb_scene_skeleton(res);
    const mb_clip *run = mb_scene_clip(src, mb_scene_find_clip(src, "Run"));
    const mb_clip *ct = mb_scene_clip(res, 0);
    cr_assert_float_eq(mb_clip_frame_time(ct), mb_clip_frame_time(run), 1e-9);
    int hips = mb_skeleton_find(ss, "b_Hip_01");
    int ns = mb_skeleton_joint_count(ss), nr = mb_skeleton_joint_count(rs);
    mb_xform *pa = calloc((size_t)ns, sizeof *pa), *pt = calloc((size_t)nr, sizeof *pt);
    double worst = 0;
    for (int f = 0; f < 60; ++f) {
        cr_assert_eq(mb_clip_frame_pose(ss, run, f, (mb_pose){pa, ns}), MB_OK);
        cr_assert_eq(mb_clip_frame_pose(rs, ct, f, (mb_pose){pt, nr}), MB_OK);
        for (int j = hips + 1; j < ns; ++j) {
            int k = same_joint_below(ss, rs, j, hips);
            if (k < 0)
                continue;
            double q[4] = {pa[j].rot[0], pa[j].rot[1], pa[j].rot[2], pa[j].rot[3]};
            worst = fmax(worst, quat_angle(q, pt[k].rot));
        }
    }
    cr_assert(worst < 1e-5, "A's part of the transition is off Run by %g rad", worst);
    free(pa);
    free(pt);
    mb_scene_destroy(src);
    mb_scene_destroy(res);
    mb_test_remove_dir(d);
}

/* A glTF loop whose last key runs on into its first (CesiumMan: no repeated end key, no
 * feet named like feet) is one whole cycle of frame_count frames; blending the clip with
 * itself must give the clip back: every output frame k equals input frame k below the
 * moving root (< 1e-5 rad), and the output has the same number of frames. */
Test(cli_blend, gltf_loop_without_end_key_blended_with_itself_is_itself)
{
    mb_test_need_assimp();
    const char *d = mb_test_scratch("render");
    char out[128];
    snprintf(out, sizeof out, "%s/cesium.glb", d);
    const char *in = mb_shared_path("mesh/CesiumMan.glb");
    run_out r = RUN("blend", in, in, "-w", "1,3", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    cr_assert(strstr(r.err, "runs on into its first") != NULL, "%s", r.err);
    mb_scene *src, *res;
    mb_error err;
    cr_assert_eq(mb_scene_read_file(in, NULL, &src, &err), MB_OK);
    cr_assert_eq(mb_scene_read_file(out, NULL, &res, &err), MB_OK);
    const mb_skeleton *ss = mb_scene_skeleton(src), *rs = mb_scene_skeleton(res);
    const mb_clip *ci = mb_scene_clip(src, 0), *co = mb_scene_clip(res, 0);
    /* the same frames, and the key that closes the loop (frame 0 again) */
    cr_assert_eq(mb_clip_frame_count(co), mb_clip_frame_count(ci) + 1);
    assert_closing_key(mb_scene_skeleton(res), co);
    int top = mb_skeleton_find(ss, "Skeleton_torso_joint_1");
    cr_assert_geq(top, 0);
    int ns = mb_skeleton_joint_count(ss), nr = mb_skeleton_joint_count(rs), checked = 0;
    mb_xform *pa = calloc((size_t)ns, sizeof *pa), *pt = calloc((size_t)nr, sizeof *pt);
    double worst = 0;
    for (int f = 0; f < mb_clip_frame_count(ci); ++f) {
        cr_assert_eq(mb_clip_frame_pose(ss, ci, f, (mb_pose){pa, ns}), MB_OK);
        cr_assert_eq(mb_clip_frame_pose(rs, co, f, (mb_pose){pt, nr}), MB_OK);
        for (int j = top + 1; j < ns; ++j) {
            int k = same_joint_below(ss, rs, j, top);
            if (k < 0)
                continue;
            double q[4] = {pa[j].rot[0], pa[j].rot[1], pa[j].rot[2], pa[j].rot[3]};
            worst = fmax(worst, quat_angle(q, pt[k].rot));
            ++checked;
        }
    }
    cr_assert_gt(checked, 100);
    cr_assert(worst < 1e-5, "the blend of CesiumMan with itself is off by %g rad", worst);
    free(pa);
    free(pt);
    mb_scene_destroy(src);
    mb_scene_destroy(res);
    mb_test_remove_dir(d);
}

/* ---------- a static root above the hips (Bandai-Namco's joint_Root) ---------- */

/* Bounding-box diagonal of the vertices of an OBJ file. */
static double obj_extent(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s not written", path);
    char line[256];
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    long n = 0;
    while (fgets(line, sizeof line, f)) {
        double p[3];
        if (strncmp(line, "v ", 2) != 0 || sscanf(line + 2, "%lf %lf %lf", &p[0], &p[1], &p[2]) != 3)
            continue;
        ++n;
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], p[k]);
            hi[k] = fmax(hi[k], p[k]);
        }
    }
    fclose(f);
    cr_assert_gt(n, 1000, "%s: %ld vertices", path, n);
    return sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* joint_Root stays at the origin while the Hips walk 10 m: the generated skin has no
 * capsule between them (it stretched over the whole walk: 571 cm for a 133 cm body), so
 * every skinned frame is the size of the body; the skeleton view neither draws that bone
 * nor frames the origin (a side view of the old one was wider than high). */
Test(cli_skin, static_root_above_the_hips_stays_out_of_the_skin)
{
    const char *bandai = mb_shared_path("bvh/bandai2_walk_normal_001.bvh");
    mb_skeleton *s;
    mb_clip *c;
    mb_error err;
    cr_assert_eq(mb_bvh_read_file(bandai, NULL, &s, &c, &err), MB_OK);
    mb_motion_info info;
    cr_assert_eq(mb_motion_analyze(s, c, NULL, "bandai", &info, NULL), MB_OK);
    int frames = mb_clip_frame_count(c);
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    const char *d = mb_test_scratch("render");
    char out[128], name[160];
    snprintf(out, sizeof out, "%s/b.obj", d);
    run_out r = RUN("skin", bandai, "--auto-mesh", "--frames", "0::3", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    double worst = 0;
    for (int f = 0; f < frames; f += 3) {
        snprintf(name, sizeof name, "%s/b_%04d.obj", d, f);
        double e = obj_extent(name);
        worst = fmax(worst, e);
        cr_assert(e <= 1.5 * info.height, "frame %d spans %g, the body is %g high", f, e, info.height);
    }
    cr_log_info("bandai skin --auto-mesh: at most %.4g across, body height %.4g", worst, info.height);
    /* the skin that convert (and blend, transition) generate for a .glb output too */
    if (mb_scene_supported()) {
        char glb[128];
        snprintf(glb, sizeof glb, "%s/b.glb", d);
        r = RUN("convert", bandai, "-o", glb);
        cr_assert_eq(r.code, 0, "%s", r.err);
        snprintf(out, sizeof out, "%s/g.obj", d);
        r = RUN("skin", glb, "--frames", "0::30", "-o", out);
        cr_assert_eq(r.code, 0, "%s", r.err);
        for (int f = 0; f < frames; f += 30) {
            snprintf(name, sizeof name, "%s/g_%04d.obj", d, f);
            double e = obj_extent(name);
            cr_assert(e <= 1.5 * info.height, "glb frame %d spans %g, the body is %g high", f, e,
                      info.height);
        }
    }
    snprintf(out, sizeof out, "%s/b.ppm", d);
    r = RUN("render", bandai, "--skeleton", "--view", "side", "--size", "120x160", "--frames",
            "0::40", "-o", out);
    cr_assert_eq(r.code, 0, "%s", r.err);
    int w, h;
    unsigned char *px = read_ppm(out, &w, &h);
    int cells = w / 120;
    cr_assert_eq(cells, (frames + 39) / 40);
    for (int cell = 0; cell < cells; ++cell) {
        int x0 = 1 << 30, x1 = -1, y0 = 1 << 30, y1 = -1;
        for (int y = 0; y < h - 12; ++y) /* above the frame number */
            for (int x = cell * 120; x < (cell + 1) * 120; ++x)
                if (is_bone(&px[3 * (y * w + x)])) {
                    x0 = x < x0 ? x : x0;
                    x1 = x > x1 ? x : x1;
                    y0 = y < y0 ? y : y0;
                    y1 = y > y1 ? y : y1;
                }
        cr_assert_gt(y1 - y0, 100, "cell %d: the skeleton is %d pixels high", cell, y1 - y0);
        cr_assert_lt(x1 - x0, y1 - y0, "cell %d: the skeleton is %d wide, %d high", cell, x1 - x0, y1 - y0);
    }
    free(px);
    mb_test_remove_dir(d);
}
