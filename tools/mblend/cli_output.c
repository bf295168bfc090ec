/* Output checks (the output and the report must not replace an input) and writers shared by
 * the commands: binary glTF with a mesh, BVH settings, CSV fields. */
#include "cli_output.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_args.h"

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

int cli_same_file(const char *a, const char *b)
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

int cli_check_output(const char *cmd, const char *outp, const char *const *inputs, int n)
{
    for (int i = 0; outp && i < n; ++i)
        if (inputs[i] && cli_same_file(outp, inputs[i]))
            return cli_usage_error(
                cmd, "-o '%s' is the input '%s': the result would replace it%s; write it "
                "elsewhere", outp, inputs[i],
                cli_ends_with_ci(inputs[i], ".glb") || cli_ends_with_ci(inputs[i], ".gltf")
                    ? " (a glTF file with all its animations)" : "");
    return CLI_EXIT_OK;
}

int cli_check_report(const char *cmd, const char *report, const char *outp,
                     const char *const *inputs, int n)
{
    struct stat st;
    if (!report)
        return CLI_EXIT_OK;
    if (stat(report, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_usage_error(cmd, "--report '%s' is a directory", report);
    if (outp && cli_same_file(report, outp))
        return cli_usage_error(cmd, "--report and -o name the same file '%s'", report);
    for (int i = 0; i < n; ++i)
        if (cli_same_file(report, inputs[i]))
            return cli_usage_error(cmd, "--report '%s' is the input '%s': it would be overwritten",
                                   report, inputs[i]);
    return CLI_EXIT_OK;
}

mb_bvh_write_desc cli_bvh_desc(const cli_clip *src)
{
    mb_bvh_write_desc d;
    memset(&d, 0, sizeof d);
    d.drop_still_positions = src->scene != NULL;
    d.portable_offsets = src->scene != NULL;
    return d;
}

int cli_write_glb(const char *cmd, const char *outp, const cli_clip *src,
                  const mb_clip *clip, const char *name, mb_axis up_axis, float scale)
{
    return cli_write_glb_loop(cmd, outp, src, clip, name, up_axis, scale, 0);
}

int cli_write_glb_loop(const char *cmd, const char *outp, const cli_clip *src,
                       const mb_clip *clip, const char *name, mb_axis up_axis, float scale,
                       int cyclic)
{
    mb_error e;
    mb_loop_kind loop;
    if (mb_gltf_loop_kind(src->s, clip, cyclic, &loop, &e) != MB_OK) {
        cli_print_error(&e);
        return CLI_EXIT_INPUT;
    }
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
            return cli_input_error(cmd, "cannot generate a skin for %s: %s", src->file,
                                   mb_status_str(st));
        mesh = gen;
    }
    mb_gltf_write_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.skeleton = src->s;
    gd.mesh = mesh;
    gd.look = gen ? NULL : mb_scene_look(src->scene); /* the scene's materials and UVs */
    gd.clip = clip;
    gd.clip_name = name;
    gd.scale = scale;
    gd.loop = loop;
    gd.up_axis = src->up_axis != MB_AXIS_DETECT ? src->up_axis : up_axis;
    if (gd.up_axis == MB_AXIS_DETECT) { /* a BVH nobody analysed (poses): its up axis from the motion */
        mb_motion_info mi;
        gd.up_axis = mb_clip_frame_count(clip) >= 1 &&
                             mb_motion_analyze(src->s, clip, NULL, src->file, &mi, NULL) == MB_OK
                         ? mi.up_axis
                         : MB_AXIS_Y;
    }
    mb_status st = mb_gltf_write_file(outp, &gd, &e);
    mb_mesh_destroy(gen);
    if (st != MB_OK) {
        cli_print_error(&e);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

void cli_csv_field(FILE *f, const char *s)
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
