/* Views, framing and drawing of frames into cells (a contact sheet or an animation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "render.h"

static void cross(const float a[3], const float b[3], float o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static float dot(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

void render_view_axes(const cli_src *s, render_view v, float right[3], float up[3], float toward[3])
{
    float u[3] = {0, 0, 0}, f[3], r[3];
    u[mb_axis_index(s->up)] = 1;
    memcpy(f, s->forward, sizeof f);
    cross(f, u, r); /* the character's right */
    switch (v) {
    case RENDER_VIEW_SIDE: /* from the character's right: it faces screen right */
        memcpy(right, f, sizeof f);
        memcpy(up, u, sizeof u);
        memcpy(toward, r, sizeof r);
        break;
    case RENDER_VIEW_TOP: /* from above: it faces screen up */
        memcpy(right, r, sizeof r);
        memcpy(up, f, sizeof f);
        memcpy(toward, u, sizeof u);
        break;
    default: /* front: it faces the viewer, its right on screen left */
        for (int k = 0; k < 3; ++k)
            right[k] = -r[k];
        memcpy(up, u, sizeof u);
        memcpy(toward, f, sizeof f);
        break;
    }
}

/* Which side a joint is on from its name: 1 left, 2 right, 0 neither. Knows the usual
 * spellings: LeftUpLeg, left_arm, arm_joint_L, leg_L_2, LThigh, lfemur (CMU), b_LeftLeg01. */
static int side_of(const char *name)
{
    char low[160];
    size_t n = 0;
    for (; name[n] && n + 1 < sizeof low; ++n)
        low[n] = (char)(name[n] >= 'A' && name[n] <= 'Z' ? name[n] - 'A' + 'a' : name[n]);
    low[n] = '\0';
    if (strstr(low, "left"))
        return 1;
    if (strstr(low, "right"))
        return 2;
    for (int s = 1; s <= 2; ++s) {
        char c = s == 1 ? 'l' : 'r', C = s == 1 ? 'L' : 'R';
        for (size_t i = 0; i < n; ++i) {
            int sep_before = i == 0 || low[i - 1] == '_' || low[i - 1] == '.' || low[i - 1] == ' ';
            int sep_after = i + 1 == n || low[i + 1] == '_' || low[i + 1] == '.' || low[i + 1] == ' ';
            if (low[i] == c && sep_before && sep_after && i > 0)
                return s; /* arm_joint_L, leg_L_2 */
        }
        if (name[0] == C && name[1] >= 'A' && name[1] <= 'Z')
            return s; /* LThigh, RHipJoint */
        static const char *const cmu[] = {"femur", "tibia", "foot", "toes", "hipjoint",
                                           "clavicle", "humerus", "radius", "wrist", "hand",
                                           "fingers", "thumb"};
        if (low[0] == c)
            for (size_t k = 0; k < sizeof cmu / sizeof cmu[0]; ++k)
                if (strcmp(low + 1, cmu[k]) == 0)
                    return s;
    }
    return 0;
}

typedef struct frame_box {
    float x0, x1, y0, y1;
} frame_box;

/* The joints drawn (and framed) with the skeleton: those a bone that keeps its length over
 * the clip holds (s->rigid), so a static root whose one bone stretches to the moving hips
 * (Bandai-Namco's joint_Root) neither draws a line across the walk nor widens the frame;
 * every joint when no bone keeps its length. */
static void joints_shown(const cli_src *s, unsigned char *shown)
{
    int nj = mb_skeleton_joint_count(s->skel), any = 0;
    const int *parents = mb_skeleton_parents(s->skel);
    memset(shown, 0, (size_t)nj);
    for (int j = 0; j < nj; ++j)
        if (s->rigid[j]) {
            shown[j] = shown[parents[j]] = 1;
            any = 1;
        }
    if (!any)
        memset(shown, 1, (size_t)nj);
}

/* The points drawn for a frame, projected: mesh vertices and/or the joints shown. */
static void frame_bounds(const render_skinner *k, const cli_src *s, const render_opts *o,
                         const unsigned char *shown, const float R[3], const float U[3],
                         frame_box *b)
{
    b->x0 = b->y0 = INFINITY;
    b->x1 = b->y1 = -INFINITY;
    int nv = o->mesh && s->mesh ? k->nv : 0;
    for (int v = 0; v < nv; ++v) {
        float x = dot(&k->pos[3 * v], R), y = dot(&k->pos[3 * v], U);
        b->x0 = fminf(b->x0, x);
        b->x1 = fmaxf(b->x1, x);
        b->y0 = fminf(b->y0, y);
        b->y1 = fmaxf(b->y1, y);
    }
    if (o->skeleton || nv == 0)
        for (int j = 0; j < k->nj; ++j) {
            if (!shown[j])
                continue;
            float x = dot(&k->world[j][12], R), y = dot(&k->world[j][12], U);
            b->x0 = fminf(b->x0, x);
            b->x1 = fmaxf(b->x1, x);
            b->y0 = fminf(b->y0, y);
            b->y1 = fmaxf(b->y1, y);
        }
}

/* What drawing the frames of one render needs: the source, the options, the skinned frame
 * in hand (k), the canvas and the view. */
typedef struct render_ctx {
    const cli_src *s;
    const render_opts *o;
    render_skinner k;
    render_canvas cv;
    int f;                   /* supersampling factor */
    float R[3], U[3], T[3];  /* screen right, up, toward the viewer */
    float L[3];              /* the light */
    unsigned char *shown;    /* joints_shown */
    float scale;             /* world units to canvas pixels, for every frame */
    float label;             /* pixels kept for the frame number (unscaled) */
    float gy0, gy1;          /* the lowest and highest point of all frames, up the screen */
    float *sv, *col;         /* per vertex: screen position and depth, colour */
    unsigned char *vside;    /* per vertex: 1 on the character's left */
} render_ctx;

/* Screen position of a world point in the cell: centred on cx, cy (world units). */
typedef struct cell_map {
    float ox, oy, cx, cy, scale;
} cell_map;

static float map_x(const cell_map *m, float x) { return m->ox + (x - m->cx) * m->scale; }
static float map_y(const cell_map *m, float y) { return m->oy - (y - m->cy) * m->scale; }

/* Pass 1: every frame's box, and from them one scale for all frames (the widest frame
 * and the whole vertical range fit the cell). Returns 0, or prints why not. */
static int frame_all(const char *cmd, render_ctx *r, long first, long step, long n,
                     frame_box *boxes)
{
    float maxw = 0, maxh = 0;
    r->gy0 = INFINITY;
    r->gy1 = -INFINITY;
    for (long i = 0; i < n; ++i) {
        mb_status st = render_skinner_frame(&r->k, r->s, (int)(first + i * step), r->o->method);
        if (st != MB_OK)
            return cli_input_error(cmd, "frame %ld: %s", first + i * step, mb_status_str(st));
        frame_box *b = &boxes[i];
        frame_bounds(&r->k, r->s, r->o, r->shown, r->R, r->U, b);
        maxw = fmaxf(maxw, b->x1 - b->x0);
        maxh = fmaxf(maxh, b->y1 - b->y0);
        r->gy0 = fminf(r->gy0, b->y0);
        r->gy1 = fmaxf(r->gy1, b->y1);
    }
    float height = r->o->view == RENDER_VIEW_TOP ? maxh : r->gy1 - r->gy0;
    int cw = r->o->cell_w, ch = r->o->cell_h;
    r->label = r->o->labels ? 12.0f : 0.0f;
    r->scale = fminf(0.88f * (float)cw / fmaxf(maxw, 1e-6f), (0.88f * (float)ch - r->label) / fmaxf(height, 1e-6f));
    if (!isfinite(r->scale) || r->scale <= 0.0f)
        return cli_input_error(cmd, "nothing to draw (the frames have no extent)");
    r->scale *= (float)r->f;
    return 0;
}

/* The light (from the upper left, in front), the vertex buffers and each vertex's side:
 * that of its heaviest joint. Returns 0, or -1 out of memory. */
static int prepare_shading(render_ctx *r)
{
    for (int c = 0; c < 3; ++c)
        r->L[c] = 0.75f * r->T[c] + 0.55f * r->U[c] - 0.35f * r->R[c];
    float ln = sqrtf(dot(r->L, r->L));
    for (int c = 0; c < 3; ++c)
        r->L[c] /= ln;
    int nv = r->k.nv;
    if (!nv)
        return 0;
    r->sv = malloc((size_t)nv * 3 * sizeof(float));
    r->col = malloc((size_t)nv * 3 * sizeof(float));
    r->vside = malloc((size_t)nv);
    if (!r->sv || !r->col || !r->vside)
        return -1;
    const cli_src *s = r->s;
    int nj = mb_skeleton_joint_count(s->skel);
    unsigned char *jside = malloc((size_t)nj);
    const int *sj = mb_mesh_skin_joints(s->mesh);
    const uint16_t *ji = mb_mesh_joint_indices(s->mesh);
    for (int j = 0; jside && j < nj; ++j)
        jside[j] = (unsigned char)side_of(mb_skeleton_name(s->skel, j));
    for (int v = 0; v < nv; ++v)
        r->vside[v] = jside ? jside[sj[ji[4 * v]]] : 0;
    free(jside);
    return 0;
}

/* The skinned mesh of the frame in hand, shaded; the left side in a cooler colour, so the
 * gait reads at a glance. */
static void draw_mesh(render_ctx *r, const cell_map *m)
{
    const float body[3] = {RENDER_BODY}, left_c[3] = {RENDER_LEFT};
    const float *R = r->R, *U = r->U, *T = r->T, *L = r->L;
    for (int v = 0; v < r->k.nv; ++v) {
        const float *p = &r->k.pos[3 * v], *nr = &r->k.nrm[3 * v];
        r->sv[3 * v] = map_x(m, dot(p, R));
        r->sv[3 * v + 1] = map_y(m, dot(p, U));
        r->sv[3 * v + 2] = dot(p, T) * m->scale;
        float nl = sqrtf(dot(nr, nr)), nt = dot(nr, T);
        float d = nl > 0.0f ? dot(nr, L) / nl * (nt < 0.0f ? -1.0f : 1.0f) : 0.0f;
        float in = 0.34f + 0.66f * (d > 0.0f ? d : 0.0f);
        const float *base = r->vside[v] == 1 ? left_c : body;
        for (int c = 0; c < 3; ++c)
            r->col[3 * v + c] = base[c] * in;
    }
    const uint32_t *tri = mb_mesh_triangles(r->s->mesh);
    const float *sv = r->sv, *col = r->col;
    for (int t = 0; t < mb_mesh_triangle_count(r->s->mesh); ++t) {
        uint32_t a = tri[3 * t], bb = tri[3 * t + 1], c = tri[3 * t + 2];
        render_canvas_triangle(&r->cv, &sv[3 * a], &sv[3 * bb], &sv[3 * c], &col[3 * a], &col[3 * bb],
                           &col[3 * c]);
    }
}

/* The bones (those that keep their length) and joints (those shown) of the frame in
 * hand; over the mesh when there is one. */
static void draw_skeleton(render_ctx *r, const cell_map *m, int over_mesh)
{
    const float bone[3] = {0.10f, 0.16f, 0.38f};
    const cli_src *s = r->s;
    const render_skinner *k = &r->k;
    const float *R = r->R, *U = r->U, *T = r->T;
    const int *parents = mb_skeleton_parents(s->skel);
    float width = (over_mesh ? 1.5f : 2.5f) * (float)r->f;
    float bias = over_mesh ? 1e30f : 0.0f;
    for (int j = 1; j < k->nj; ++j) {
        if (!s->rigid[j])
            continue; /* a bone that stretches over the clip */
        const float *p = &k->world[j][12], *q = &k->world[parents[j]][12];
        float a[3] = {map_x(m, dot(p, R)), map_y(m, dot(p, U)), dot(p, T) * m->scale};
        float e[3] = {map_x(m, dot(q, R)), map_y(m, dot(q, U)), dot(q, T) * m->scale};
        render_canvas_line(&r->cv, a, e, width, bone, bias);
    }
    for (int j = 0; j < k->nj; ++j) {
        if (mb_skeleton_is_end_site(s->skel, j) || !r->shown[j])
            continue;
        const float *p = &k->world[j][12];
        float a[3] = {map_x(m, dot(p, R)), map_y(m, dot(p, U)), dot(p, T) * m->scale + 1.0f};
        render_canvas_line(&r->cv, a, a, width * 1.9f, bone, bias);
    }
}

/* Pass 2 for one frame: skinned, drawn into the canvas with the ground line and the frame
 * number. Framing: centred horizontally on its own box; vertically on all frames' range
 * (so the ground stays put), or on its own box seen from the top. */
static void draw_frame(render_ctx *r, long frame, const frame_box *b)
{
    const float sky[3] = {0.97f, 0.97f, 0.99f}, floor_c[3] = {0.84f, 0.86f, 0.90f};
    const float ground[3] = {0.55f, 0.57f, 0.62f}, text[3] = {0.35f, 0.36f, 0.42f};
    const render_opts *o = r->o;
    int f = r->f, cw = o->cell_w, ch = o->cell_h, top_view = o->view == RENDER_VIEW_TOP;
    render_skinner_frame(&r->k, r->s, (int)frame, o->method);
    cell_map m;
    m.cx = 0.5f * (b->x0 + b->x1);
    m.cy = top_view ? 0.5f * (b->y0 + b->y1) : 0.5f * (r->gy0 + r->gy1);
    m.ox = 0.5f * (float)(cw * f);
    m.oy = 0.5f * (float)(ch * f) - 0.5f * r->label * (float)f;
    m.scale = r->scale;
    render_canvas_clear(&r->cv, sky, floor_c);
    if (!top_view) {
        float gl = map_y(&m, r->gy0);
        float a[3] = {0, gl, -1e30f}, e[3] = {(float)(cw * f), gl, -1e30f};
        render_canvas_line(&r->cv, a, e, 1.5f * (float)f, ground, 0);
    }
    int with_mesh = o->mesh && r->s->mesh;
    if (with_mesh)
        draw_mesh(r, &m);
    if (o->skeleton || !with_mesh)
        draw_skeleton(r, &m, with_mesh);
    if (o->labels) {
        char lab[32];
        snprintf(lab, sizeof lab, "%ld", frame);
        render_canvas_text(&r->cv, 4 * f, (ch - 9) * f, f, lab, text);
    }
}

int render_frames(const char *cmd, const cli_src *s, const render_opts *o, long first,
                  long end, long step, int sheet, unsigned char **out_rgb, int *out_w,
                  int *out_h, int *out_count)
{
    long n = (end - first + step - 1) / step;
    render_ctx r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.o = o;
    r.f = o->ssaa < 1 ? 1 : (o->ssaa > 4 ? 4 : o->ssaa);
    int f = r.f, cw = o->cell_w, ch = o->cell_h;
    int cols = sheet ? (o->columns > 0 ? o->columns : (int)(n < 8 ? n : 8)) : 1;
    if (cols > n)
        cols = (int)n;
    long rows = sheet ? (n + cols - 1) / cols : 1;
    long W = (long)cols * cw, H = rows * ch;
    if (W * H * (sheet ? 1 : n) > 400l * 1000 * 1000 || (long)cw * f > 16384 || (long)ch * f > 16384)
        return cli_input_error(cmd, "the image would be too large (%ld frames of %dx%d)", n, cw, ch);
    size_t img_bytes = (size_t)W * (size_t)H * 3 * (size_t)(sheet ? 1 : n);
    unsigned char *img = malloc(img_bytes);
    frame_box *boxes = malloc((size_t)n * sizeof *boxes);
    r.shown = malloc((size_t)mb_skeleton_joint_count(s->skel));
    int rc = 1;
    if (render_skinner_init(&r.k, s) != 0 || !img || !boxes || !r.shown ||
        render_canvas_init(&r.cv, cw * f, ch * f) != 0) {
        cli_input_error(cmd, "out of memory");
        goto done;
    }
    joints_shown(s, r.shown);
    memset(img, 255, img_bytes);
    render_view_axes(s, o->view, r.R, r.U, r.T);
    if (frame_all(cmd, &r, first, step, n, boxes) != 0)
        goto done;
    if (prepare_shading(&r) != 0) {
        cli_input_error(cmd, "out of memory");
        goto done;
    }
    for (long i = 0; i < n; ++i) {
        draw_frame(&r, first + i * step, &boxes[i]);
        int x0 = sheet ? (int)(i % cols) * cw : 0, y0 = sheet ? (int)(i / cols) * ch : 0;
        unsigned char *dst = sheet ? img : img + (size_t)i * (size_t)cw * (size_t)ch * 3;
        render_canvas_resolve(&r.cv, f, dst, sheet ? (int)W : cw, x0, y0);
    }
    *out_rgb = img;
    img = NULL;
    *out_w = (int)(sheet ? W : cw);
    *out_h = (int)(sheet ? H : ch);
    *out_count = sheet ? 1 : (int)n;
    rc = 0;
done:
    free(img);
    free(boxes);
    free(r.shown);
    free(r.sv);
    free(r.col);
    free(r.vside);
    render_canvas_free(&r.cv);
    render_skinner_free(&r.k);
    return rc;
}
