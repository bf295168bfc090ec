/* Option parsing, messages and loading shared by the subcommands. */
#include "cli_common.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

void mb_cli_args_init(mb_cli_args *a, const char *cmd, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->next = 1;
    a->cmd = cmd;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int bad(const mb_cli_args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", a->cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", a->cmd);
    va_end(ap);
    return MB_CLI_BAD;
}

int mb_cli_next(mb_cli_args *a, const mb_cli_opt *opts)
{
    static const mb_cli_opt help = {"help", 'h', 0, MB_OPT_HELP};
    a->arg = NULL;
    a->opt = NULL;
    if (a->next >= a->argc)
        return MB_CLI_END;
    char *s = a->argv[a->next++];
    if (a->options_done || s[0] != '-' || s[1] == '\0') { /* "-" is an operand */
        a->arg = s;
        return MB_CLI_OPERAND;
    }
    a->opt = s;
    if (strcmp(s, "--") == 0) {
        a->options_done = 1;
        return mb_cli_next(a, opts);
    }
    const mb_cli_opt *found = NULL;
    const char *inline_arg = NULL;
    if (s[1] == '-') {
        const char *name = s + 2;
        const char *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        if (n == 4 && strncmp(name, "help", 4) == 0)
            found = &help;
        for (const mb_cli_opt *o = opts; !found && o && o->long_name; ++o)
            if (strlen(o->long_name) == n && strncmp(o->long_name, name, n) == 0)
                found = o;
        if (!found)
            return bad(a, "unknown option '%s'", s);
        if (eq) {
            if (!found->has_arg)
                return bad(a, "option '%s' takes no argument", s);
            inline_arg = eq + 1;
        }
    } else {
        char c = s[1];
        if (c == 'h')
            found = &help;
        for (const mb_cli_opt *o = opts; !found && o && o->long_name; ++o)
            if (o->short_name && o->short_name == c)
                found = o;
        if (!found)
            return bad(a, "unknown option '%s'", s);
        if (s[2] != '\0') {
            if (!found->has_arg)
                return bad(a, "unknown option '%s' (short options do not combine)", s);
            inline_arg = s + 2;
        }
    }
    if (found->has_arg) {
        if (inline_arg) {
            a->arg = inline_arg;
        } else {
            if (a->next >= a->argc)
                return bad(a, "option '%s' needs an argument", s);
            a->arg = a->argv[a->next++];
        }
    }
    return found->id;
}

static void vmessage(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int mb_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help'.\n", cmd);
    return MB_EXIT_USAGE;
}

int mb_cli_input_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    return MB_EXIT_INPUT;
}

int mb_cli_parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return 0;
    const char *p = s;
    if (*p == '+' || *p == '-')
        ++p;
    if (*p < '0' || *p > '9')
        return 0;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

int mb_cli_parse_nonneg(const char *s, double *out)
{
    /* decimal only: strtod would also take leading blanks, hexadecimal and "infinity" */
    if (!s || !*s || strspn(s, "0123456789.eE+-") != strlen(s))
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < 0.0)
        return 0;
    *out = v;
    return 1;
}

int mb_cli_parse_scale(const char *s, float *out)
{
    double v;
    /* below 1e-6 a bone shrinks to float noise and its inverse bind matrix is singular: the
     * file would not read back */
    if (!mb_cli_parse_nonneg(s, &v) || !(v >= 1e-6) || v > 1e6)
        return 0;
    *out = (float)v;
    return 1;
}

int mb_cli_parse_span(const char *s, double *from, double *to)
{
    const char *colon = strchr(s, ':');
    char buf[64];
    if (!colon || (size_t)(colon - s) >= sizeof buf)
        return 0;
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    return mb_cli_parse_nonneg(buf, from) && mb_cli_parse_nonneg(colon + 1, to);
}

/* The directory part of path ("." when it has none) into dir, and its last component. 0 when
 * dir is too small. */
static int split_dir(const char *path, char *dir, size_t size, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    size_t dl = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
    if (dl >= size)
        return 0;
    memcpy(dir, !slash ? "." : path, dl);
    dir[dl] = '\0';
    return 1;
}

int mb_cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb)
        return 0;
    /* neither exists yet: the same name in the same directory */
    char da[4096], db[4096];
    const char *na, *nb;
    if (!split_dir(a, da, sizeof da, &na) || !split_dir(b, db, sizeof db, &nb))
        return strcmp(a, b) == 0;
    if (strcmp(na, nb) != 0)
        return 0;
    if (stat(da, &sa) != 0 || stat(db, &sb) != 0)
        return strcmp(a, b) == 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int mb_cli_check_output(const char *cmd, const char *outp, const char *const *inputs, int n)
{
    for (int i = 0; outp && i < n; ++i)
        if (inputs[i] && mb_cli_same_file(outp, inputs[i]))
            return mb_cli_usage_error(
                cmd, "-o '%s' is the input '%s': the result would replace it%s; write it "
                "elsewhere", outp, inputs[i],
                mb_cli_ends_with_ci(inputs[i], ".glb") || mb_cli_ends_with_ci(inputs[i], ".gltf")
                    ? " (a glTF file with all its animations)" : "");
    return MB_EXIT_OK;
}

int mb_cli_check_report(const char *cmd, const char *report, const char *outp,
                        const char *const *inputs, int n)
{
    struct stat st;
    if (!report)
        return MB_EXIT_OK;
    if (stat(report, &st) == 0 && S_ISDIR(st.st_mode))
        return mb_cli_usage_error(cmd, "--report '%s' is a directory", report);
    if (outp && mb_cli_same_file(report, outp))
        return mb_cli_usage_error(cmd, "--report and -o name the same file '%s'", report);
    for (int i = 0; i < n; ++i)
        if (mb_cli_same_file(report, inputs[i]))
            return mb_cli_usage_error(cmd, "--report '%s' is the input '%s': it would be overwritten",
                                      report, inputs[i]);
    return MB_EXIT_OK;
}

int mb_cli_parse_up(const char *s, mb_axis *out)
{
    static const mb_axis axes[3] = {MB_AXIS_X, MB_AXIS_Y, MB_AXIS_Z};
    if (strlen(s) != 1 || !strchr("xyzXYZ", s[0]))
        return 0;
    *out = axes[(s[0] | 0x20) - 'x'];
    return 1;
}

int mb_cli_ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (k > n)
        return 0;
    for (size_t i = 0; i < k; ++i)
        if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)suffix[i]))
            return 0;
    return 1;
}

void mb_cli_print_error(const mb_error *e)
{
    char buf[600];
    fprintf(stderr, "%s\n", mb_error_format(e, buf, sizeof buf));
}

void mb_cli_print_warning(const mb_error *w)
{
    const char *src = w->source[0] ? w->source : "<memory>";
    if (w->line > 0)
        fprintf(stderr, "%s:%d:%d: warning: %s\n", src, w->line, w->column, w->text);
    else
        fprintf(stderr, "%s: warning: %s\n", src, w->text);
}

int mb_cli_load_bvh(const char *path, int lenient, mb_skeleton **out_skel, mb_clip **out_clip)
{
    mb_error err, warning;
    memset(&err, 0, sizeof err);
    memset(&warning, 0, sizeof warning);
    mb_bvh_read_desc d;
    memset(&d, 0, sizeof d);
    d.lenient = lenient;
    d.warning = &warning;
    mb_status st = mb_bvh_read_file(path, &d, out_skel, out_clip, &err);
    if (st != MB_OK) {
        if (err.code == MB_OK) { /* defensive: a loader that failed without saying why */
            err.code = st;
            snprintf(err.source, sizeof err.source, "%s", path);
        }
        mb_cli_print_error(&err);
        return MB_EXIT_INPUT;
    }
    if (warning.code != MB_OK && warning.text[0])
        mb_cli_print_warning(&warning);
    return MB_EXIT_OK;
}

int mb_cli_is_bvh(const char *path)
{
    return mb_source_is_bvh(path);
}

/* Prints an error of the library's loaders: with its position as file:line:col, without one
 * after the command's name, as the CLI's own input errors are. */
static void print_load_error(const char *cmd, const mb_error *e)
{
    if (e->line > 0)
        mb_cli_print_error(e);
    else {
        char buf[600];
        fprintf(stderr, "%s: %s\n", cmd, mb_error_format(e, buf, sizeof buf));
    }
}

int mb_cli_split_spec(const char *cmd, const char *spec, char *file, size_t file_size,
                      char *anim, size_t anim_size)
{
    mb_error err;
    if (mb_source_split(spec, file, file_size, anim, anim_size, &err) == MB_OK)
        return MB_EXIT_OK;
    char buf[600];
    return mb_cli_usage_error(cmd, "%s", mb_error_format(&err, buf, sizeof buf));
}

/* Warnings about what a scene reader had to change: cut influences, dropped scales. */
static void print_scene_warnings(const char *cmd, const char *path, const mb_scene *sc)
{
    mb_scene_info si = mb_scene_get_info(sc);
    if (si.cut_vertices > 0)
        fprintf(stderr, "%s: %s: %d vertices had more than 4 influences (up to %d): kept the 4 "
                "largest, renormalised\n", cmd, path, si.cut_vertices, si.max_influences);
    if (si.scaled_nodes > 0)
        fprintf(stderr, "%s: %s: warning: %d nodes carry a scale mblend cannot carry "
                "(non-uniform, negative or keyed), which it drops\n", cmd, path, si.scaled_nodes);
    if (si.unweighted_vertices > 0) /* e.g. NaN, negative or zero weights, which assimp drops */
        fprintf(stderr, "%s: %s: warning: %d vertices of skinned meshes have no usable weight: "
                "they follow their node rigidly\n", cmd, path, si.unweighted_vertices);
}

int mb_cli_load_scene(const char *cmd, const char *path, mb_scene **out)
{
    mb_source_desc d = {0, 1, NULL}; /* probe: a file assimp crashes on is bad input */
    mb_error err;
    if (mb_source_read_scene(path, &d, out, &err) != MB_OK) {
        print_load_error(cmd, &err);
        return MB_EXIT_INPUT;
    }
    print_scene_warnings(cmd, path, *out);
    return MB_EXIT_OK;
}

int mb_cli_clip_open(const char *cmd, const char *spec, int lenient, mb_cli_clip *out)
{
    memset(out, 0, sizeof *out);
    mb_error err, warning;
    mb_source_desc d = {lenient, 1, &warning};
    mb_status st = mb_source_open(spec, &d, &out->source, &err);
    if (st != MB_OK) {
        print_load_error(cmd, &err);
        return st == MB_INVALID_ARG ? MB_EXIT_USAGE : MB_EXIT_INPUT;
    }
    if (warning.code != MB_OK && warning.text[0])
        mb_cli_print_warning(&warning);
    snprintf(out->file, sizeof out->file, "%s", mb_source_file(out->source));
    snprintf(out->anim, sizeof out->anim, "%s", mb_source_anim(out->source));
    out->scene = (mb_scene *)mb_source_scene(out->source);
    out->s = mb_source_skeleton(out->source);
    out->c = mb_source_clip(out->source);
    out->up_axis = mb_source_up_axis(out->source);
    if (out->scene)
        print_scene_warnings(cmd, out->file, out->scene);
    return MB_EXIT_OK;
}

void mb_cli_clip_close(mb_cli_clip *c)
{
    mb_source_destroy(c->source);
    c->source = NULL;
    c->scene = NULL;
    c->s = NULL;
    c->c = NULL;
}

int mb_cli_same_skeleton(const char *cmd, const char *name_a, const mb_skeleton *a,
                         const char *name_b, const mb_skeleton *b)
{
    int diff;
    if (mb_skeleton_same_topology(a, b, &diff))
        return MB_EXIT_OK;
    int na = mb_skeleton_joint_count(a), nb = mb_skeleton_joint_count(b);
    if (diff >= na || diff >= nb) {
        /* one is the other plus joints: name the first of those */
        const mb_skeleton *longer = na > nb ? a : b;
        int first = na < nb ? na : nb;
        return mb_cli_input_error(cmd, "%s has %d joints and End Sites, %s has %d: they must "
                                  "share a skeleton (the first without a counterpart: '%s', "
                                  "joint %d of %s)", name_b, nb, name_a, na,
                                  mb_skeleton_name(longer, first), first, na > nb ? name_a : name_b);
    }
    return mb_cli_input_error(cmd, "%s and %s differ at joint %d: '%s' (parent %d) vs '%s' "
                              "(parent %d)", name_a, name_b, diff, mb_skeleton_name(a, diff),
                              mb_skeleton_parents(a)[diff], mb_skeleton_name(b, diff),
                              mb_skeleton_parents(b)[diff]);
}

mb_bvh_write_desc mb_cli_bvh_desc(const mb_cli_clip *src)
{
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.drop_still_positions = src->scene != NULL;
    return d;
}

int mb_cli_write_glb(const char *cmd, const char *outp, const mb_cli_clip *src,
                     const mb_clip *clip, const char *name, mb_axis up_axis, float scale)
{
    const mb_mesh *mesh = src->scene ? mb_scene_mesh(src->scene) : NULL;
    mb_mesh *gen = NULL;
    if (!mesh) {
        /* with the clip: a bone that stretches over it (a static root above the moving
         * hips) gets no capsule */
        mb_skin_gen_desc gen_desc;
        memset(&gen_desc, 0, sizeof gen_desc);
        gen_desc.clip = clip;
        mb_status st = mb_skin_generate(src->s, &gen_desc, &gen, NULL);
        if (st != MB_OK)
            return mb_cli_input_error(cmd, "cannot generate a skin for %s: %s", src->file,
                                      mb_status_str(st));
        mesh = gen;
    }
    mb_gltf_write_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = src->s;
    gd.mesh = mesh;
    gd.clip = clip;
    gd.clip_name = name;
    gd.scale = scale;
    gd.up_axis = src->up_axis != MB_AXIS_DETECT ? src->up_axis : up_axis;
    if (gd.up_axis == MB_AXIS_DETECT) { /* a BVH nobody analysed (poses): its up axis from the motion */
        mb_motion_info mi;
        gd.up_axis = mb_clip_frame_count(clip) >= 1 &&
                             mb_motion_analyze(src->s, clip, NULL, src->file, &mi, NULL) == MB_OK
                         ? mi.up_axis
                         : MB_AXIS_Y;
    }
    mb_error e;
    mb_status st = mb_gltf_write_file(outp, &gd, &e);
    mb_mesh_destroy(gen);
    if (st != MB_OK) {
        mb_cli_print_error(&e);
        return MB_EXIT_INPUT;
    }
    return MB_EXIT_OK;
}

void mb_cli_csv_field(FILE *f, const char *s)
{
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

mb_status mb_cli_frame_world(const mb_skeleton *s, const mb_clip *c, int frame, mb_xform *pose,
                             float (*world)[16])
{
    int n = mb_skeleton_joint_count(s);
    mb_pose p = {pose, n};
    mb_status st = frame < 0 ? mb_skeleton_rest_pose(s, p) : mb_clip_frame_pose(s, c, frame, p);
    if (st != MB_OK)
        return st;
    return mb_fk(s, &p, world, n);
}

int mb_cli_prepare_pair(const char *const paths[2], const mb_cli_clip src[2], mb_axis up,
                        mb_motion_info info[2], mb_error *e)
{
    mb_prepare_desc d[2];
    memset(d, 0, sizeof d);
    for (int i = 0; i < 2; ++i) {
        d[i].skeleton = src[i].s;
        d[i].clip = src[i].c;
        d[i].source = paths[i];
    }
    d[0].up_axis = up != MB_AXIS_DETECT ? up : src[0].up_axis;
    mb_prepared_clip *p[2];
    if (mb_clips_prepare(d, 2, p, e) != MB_OK) {
        mb_cli_print_error(e);
        return MB_EXIT_INPUT;
    }
    for (int i = 0; i < 2; ++i) {
        info[i] = mb_prepared_clip_info(p[i])->motion;
        mb_prepared_clip_destroy(p[i]);
    }
    return MB_EXIT_OK;
}
