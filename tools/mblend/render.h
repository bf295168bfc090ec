/* The pieces behind "mblend skin" and "mblend render": opening a motion source (BVH, a blend
 * result, or a glTF/FBX file with "#clip"), skinning its frames, a small software rasterizer,
 * and image writers (PNG through libpng, animated GIF through giflib, binary PPM). */
#ifndef CLI_RENDER_H
#define CLI_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "cli_load.h"
#include "mblend/mblend.h"

/* ---------- motion sources (render_source.c) ---------- */

typedef struct cli_src_opts {
    const char *mesh_path;   /* --mesh: a glTF/FBX/... whose mesh the clip is mapped onto */
    int auto_mesh;           /* --auto-mesh: a generated capsule skin (BVH has no mesh) */
    int no_mesh;             /* skeleton only (render --skeleton) */
    int lenient;             /* BVH Frames line */
} cli_src_opts;

typedef struct cli_src {
    cli_clip in;          /* the input, opened by the one loader (owned) */
    const mb_scene *scene;   /* in's scene (NULL for BVH) */
    mb_scene *mesh_scene;    /* owned pieces (any may be NULL) */
    mb_clip *mapped;
    mb_mesh *gen_mesh;
    const mb_skeleton *skel; /* the skeleton the clip plays on */
    const mb_clip *clip;
    const mb_mesh *mesh;     /* NULL: none */
    const char *clip_name;   /* glTF animation name, or the file's base name */
    mb_axis up;              /* the up axis (MB_AXIS_X, _Y or _Z) */
    float forward[3];        /* the way the character faces (unit, perpendicular to up) */
    int root;                /* the clip's moving root (mb_motion_info.root; 0 when the
                                analysis fails) */
    unsigned char *rigid;    /* owned: per joint, whether its bone keeps its length over
                                the clip (mb_skin_rigid_bones); the renderer draws and
                                frames those bones only, as the generated skin skins them */
    int from_bvh;
    char path[4096];         /* the file (spec without "#Clip") */
} cli_src;

/* Opens "file.bvh", "file.glb" or "file.glb#Clip" (default: the first animation). Errors are
 * printed with cmd as prefix; returns an CLI_EXIT_* code. */
int cli_src_open(const char *cmd, const char *spec, const cli_src_opts *o, cli_src *out);
/* cli_src_open for an input already opened with cli_input_open (still_ok), which s takes
 * over (in is left empty, also on failure). */
int cli_src_open_input(const char *cmd, const char *spec, const cli_src_opts *o, cli_clip *in,
                       cli_src *out);
void cli_src_close(cli_src *s);

/* Per-frame skinning buffers for a source. */
typedef struct render_skinner {
    int nj, np, nv;
    mb_xform *pose;
    float (*world)[16];
    float (*pal)[16];
    float (*dq)[8];
    float *pos, *nrm;        /* nv * 3 each (NULL without a mesh) */
} render_skinner;

int render_skinner_init(render_skinner *k, const cli_src *s);
void render_skinner_free(render_skinner *k);
/* Pose, world matrices and (with a mesh) skinned positions and normals of one clip frame. */
mb_status render_skinner_frame(render_skinner *k, const cli_src *s, int frame, mb_skin_method method);

/* ---------- the rasterizer (render_raster.c; no dependency beyond libc) ----------
 * Its names keep the mb_ prefix: tests/test_render.c includes render_raster.c and calls
 * them, so they are renamed together with that test. */

/* A float RGB canvas with a depth buffer; depth grows toward the viewer. */
typedef struct render_canvas {
    int w, h;
    float *rgb;   /* w * h * 3, 0..1 */
    float *depth; /* w * h */
} render_canvas;

int render_canvas_init(render_canvas *c, int w, int h);
void render_canvas_free(render_canvas *c);
/* Fills with a vertical gradient from top to bottom colour and clears the depth. */
void render_canvas_clear(render_canvas *c, const float top[3], const float bottom[3]);
/* A triangle with per-vertex colours, depth tested; vertices are (x, y, depth) in pixels
 * (y down), pixel centres at +0.5. Both windings are drawn. */
void render_canvas_triangle(render_canvas *c, const float a[3], const float b[3], const float d[3],
                        const float ca[3], const float cb[3], const float cd[3]);
/* A line of the given width (pixels) with round ends, depth tested with a bias toward the
 * viewer so lines on a surface stay visible when bias > 0. */
void render_canvas_line(render_canvas *c, const float a[3], const float b[3], float width,
                    const float color[3], float bias);
/* Digits, '-', '.', ':' and letters a-z in a 3x5 pixel font scaled by s, top-left at x, y. */
void render_canvas_text(render_canvas *c, int x, int y, int s, const char *text, const float color[3]);
/* Box-filters the canvas down by factor f (1: copy) into dst (8-bit RGB, dst_w wide) at
 * (x0, y0). */
void render_canvas_resolve(const render_canvas *c, int f, unsigned char *dst, int dst_w, int x0, int y0);

/* ---------- views and frames (render_view.c) ---------- */

/* The mesh's base colours (RGB 0..1), shaded by intensity 0.34..1; the GIF palette is built
 * around them. */
#define RENDER_BODY 0.86f, 0.56f, 0.32f
#define RENDER_LEFT 0.50f, 0.62f, 0.84f

typedef enum render_view { RENDER_VIEW_FRONT, RENDER_VIEW_SIDE, RENDER_VIEW_TOP } render_view;

/* Screen axes for a view: right, up and toward-the-viewer unit vectors. */
void render_view_axes(const cli_src *s, render_view v, float right[3], float up[3], float toward[3]);

typedef struct render_opts {
    render_view view;
    int cell_w, cell_h;      /* pixels per frame */
    int columns;             /* contact sheet columns (0: automatic) */
    int skeleton;            /* draw the skeleton lines (over the mesh when there is one) */
    int mesh;                /* draw the skinned mesh */
    int labels;              /* frame numbers in the cells */
    mb_skin_method method;
    int ssaa;                /* supersampling factor, 1..4 */
} render_opts;

/* Renders frames first, first + step, ... < end of a source, each into its own cell of an
 * 8-bit RGB image: a contact sheet (sheet = 1: cols x rows cells) or a sequence of
 * cell-sized frames (sheet = 0; *out_count images of cell_w x cell_h, back to back).
 * Framing: one scale for all frames; each frame centred horizontally, the vertical position
 * shared so the ground stays put. Returns 0 on success, prints why not otherwise. */
int render_frames(const char *cmd, const cli_src *s, const render_opts *o, long first,
                  long end, long step, int sheet, unsigned char **out_rgb, int *out_w,
                  int *out_h, int *out_count);

/* ---------- image files (render_image.c) ---------- */

/* Each writes to a temporary file beside path and renames it over path; on failure prints
 * "cmd: path: why" and returns non-zero. */
int render_write_png(const char *cmd, const char *path, const unsigned char *rgb, int w, int h);
int render_write_ppm(const char *cmd, const char *path, const unsigned char *rgb, int w, int h);
/* count frames of w x h, each shown delay_cs hundredths of a second, looping forever. */
int render_write_gif(const char *cmd, const char *path, const unsigned char *rgb, int w, int h,
                     int count, int delay_cs);

#endif
