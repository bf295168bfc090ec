/* Opening the commands' inputs: the one loader over mb_source_open, and what is checked on
 * what it opened. */
#include "cli_load.h"

#include <stdio.h>
#include <string.h>

/* Reports a failed open: a malformed spec is a usage error ("cmd: spec: why", exit 1); a file
 * the library could not read is reported as the library formats it ("file[:line:col]: why",
 * exit 2), the same for BVH and scene files and for every command. */
static int open_failed(const char *cmd, mb_status st, const mb_error *e)
{
    char buf[600];
    if (st == MB_INVALID_ARG)
        return cli_usage_error(cmd, "%s", mb_error_format(e, buf, sizeof buf));
    cli_print_error(e);
    return CLI_EXIT_INPUT;
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

int cli_load_scene(const char *cmd, const char *path, mb_scene **out)
{
    mb_source_desc d = {0, 1, NULL}; /* probe: a file assimp crashes on is bad input */
    mb_error err;
    mb_status st = mb_source_read_scene(path, &d, out, &err);
    if (st != MB_OK)
        return open_failed(cmd, st, &err);
    print_scene_warnings(cmd, path, *out);
    return CLI_EXIT_OK;
}

/* spec names a scene file without animations (mb_source_open said MB_MISMATCH): opens it as
 * a still scene, c = NULL. Returns 0 when it is not one (the caller reports its error). */
static int open_still(const char *cmd, const char *spec, cli_clip *out)
{
    mb_error err;
    mb_source_desc d = {0, 1, NULL};
    if (mb_source_split(spec, out->file, sizeof out->file, out->anim, sizeof out->anim, &err) !=
            MB_OK || out->anim[0] || mb_source_read_scene(out->file, &d, &out->own_scene, &err) != MB_OK)
        return 0;
    if (mb_scene_clip_count(out->own_scene) > 0) { /* cannot happen: the error stands */
        mb_scene_destroy(out->own_scene);
        out->own_scene = NULL;
        return 0;
    }
    out->scene = out->own_scene;
    out->s = mb_scene_skeleton(out->scene);
    out->up_axis = MB_AXIS_Y;
    print_scene_warnings(cmd, out->file, out->scene);
    return 1;
}

int cli_clip_open(const char *cmd, const char *spec, int lenient, cli_clip *out)
{
    return cli_input_open(cmd, spec, lenient, 0, out);
}

int cli_input_open(const char *cmd, const char *spec, int lenient, int still_ok,
                   cli_clip *out)
{
    memset(out, 0, sizeof *out);
    mb_error err, warning;
    mb_source_desc d = {lenient, 1, &warning};
    mb_status st = mb_source_open(spec, &d, &out->source, &err);
    if (st == MB_MISMATCH && still_ok && open_still(cmd, spec, out))
        return CLI_EXIT_OK;
    if (st != MB_OK) {
        memset(out, 0, sizeof *out);
        return open_failed(cmd, st, &err);
    }
    if (warning.code != MB_OK && warning.text[0])
        cli_print_warning(&warning);
    snprintf(out->file, sizeof out->file, "%s", mb_source_file(out->source));
    snprintf(out->anim, sizeof out->anim, "%s", mb_source_anim(out->source));
    out->scene = (mb_scene *)mb_source_scene(out->source);
    out->s = mb_source_skeleton(out->source);
    out->c = mb_source_clip(out->source);
    out->up_axis = mb_source_up_axis(out->source);
    if (out->scene)
        print_scene_warnings(cmd, out->file, out->scene);
    return CLI_EXIT_OK;
}

void cli_clip_close(cli_clip *c)
{
    mb_prepared_clip_destroy(c->prep);
    mb_clip_destroy(c->own_clip);
    c->own_clip = NULL;
    mb_source_destroy(c->source);
    mb_scene_destroy(c->own_scene);
    c->prep = NULL;
    c->source = NULL;
    c->own_scene = NULL;
    c->scene = NULL;
    c->s = NULL;
    c->c = NULL;
}

int cli_same_skeleton(const char *cmd, const char *name_a, const mb_skeleton *a,
                      const char *name_b, const mb_skeleton *b)
{
    int diff;
    if (mb_skeleton_same_topology(a, b, &diff))
        return CLI_EXIT_OK;
    int na = mb_skeleton_joint_count(a), nb = mb_skeleton_joint_count(b);
    if (diff >= na || diff >= nb) {
        /* one is the other plus joints: name the first of those */
        const mb_skeleton *longer = na > nb ? a : b;
        int first = na < nb ? na : nb;
        return cli_input_error(cmd, "%s has %d joints and End Sites, %s has %d: they must "
                               "share a skeleton (the first without a counterpart: '%s', "
                               "joint %d of %s)", name_b, nb, name_a, na,
                               mb_skeleton_name(longer, first), first, na > nb ? name_a : name_b);
    }
    return cli_input_error(cmd, "%s and %s differ at joint %d: '%s' (parent %d) vs '%s' "
                           "(parent %d)", name_a, name_b, diff, mb_skeleton_name(a, diff),
                           mb_skeleton_parents(a)[diff], mb_skeleton_name(b, diff),
                           mb_skeleton_parents(b)[diff]);
}

int cli_roles(const char *cmd, const mb_skeleton *s, const char *map, mb_roles *out)
{
    (void)cmd;
    mb_error err;
    mb_role_map *m = NULL;
    memset(out, 0, sizeof *out);
    if (map && mb_role_map_read(map, &m, &err) != MB_OK) {
        cli_print_error(&err);
        return CLI_EXIT_INPUT;
    }
    mb_status st = mb_roles_find(s, m, out, &err);
    mb_role_map_destroy(m);
    if (st != MB_OK) {
        cli_print_error(&err);
        return CLI_EXIT_INPUT;
    }
    return CLI_EXIT_OK;
}

const mb_xform *cli_bind_pose(const cli_clip *c)
{
    const mb_mesh *m = c->scene ? mb_scene_mesh(c->scene) : NULL;
    if (!m || mb_mesh_skeleton_joint_count(m) != mb_skeleton_joint_count(c->s))
        return NULL;
    return mb_mesh_bind_pose(m);
}

int cli_retarget_onto(const char *cmd, cli_clip *in, const char *map_in, const cli_clip *to,
                      const char *map_to, int foot_ik, FILE *report)
{
    mb_roles ri, rt;
    int rc = cli_roles(cmd, in->s, map_in, &ri);
    if (rc != CLI_EXIT_OK)
        return rc;
    if ((rc = cli_roles(cmd, to->s, map_to, &rt)) != CLI_EXIT_OK) {
        mb_roles_free(&ri);
        return rc;
    }
    mb_retarget_desc d;
    memset(&d, 0, sizeof d);
    d.from = (mb_retarget_side){in->s, &ri, cli_bind_pose(in), in->up_axis, in->file};
    d.clip = in->c;
    d.to = (mb_retarget_side){to->s, &rt, cli_bind_pose(to), to->up_axis, to->file};
    d.to_clip = to->c;
    d.feet = foot_ik ? MB_RETARGET_FEET_IK : MB_RETARGET_FEET_FK;
    mb_retarget_report rep;
    mb_clip *out = NULL;
    mb_error err;
    mb_status st = mb_retarget(&d, &out, &rep, &err);
    if (st != MB_OK) {
        cli_print_error(&err);
        rc = CLI_EXIT_INPUT;
    } else {
        if (report) {
            char text[8192];
            mb_retarget_report_format(&rep, in->s, to->s, text, sizeof text);
            fprintf(report, "%s -> %s:\n%s", in->file, to->file, text);
        }
        mb_prepared_clip_destroy(in->prep);
        in->prep = NULL;
        mb_clip_destroy(in->own_clip);
        in->own_clip = out;
        in->c = out;
        in->s = to->s;
        in->scene = to->scene;
        in->up_axis = to->up_axis;
    }
    mb_roles_free(&ri);
    mb_roles_free(&rt);
    return rc;
}

/* The one line cli_retarget_inputs prints: the inputs retargeted (those that own their
 * clip now) and onto which file's skeleton. */
static void say_retargeted(const char *cmd, cli_clip *const *ins, int n, const char *onto,
                           int first)
{
    fprintf(stderr, "%s:", cmd);
    const char *sep = " ";
    for (int i = 0; i < n; ++i)
        if (ins[i]->own_clip) {
            fprintf(stderr, "%s%s", sep, ins[i]->file);
            sep = ", ";
        }
    fprintf(stderr, " retargeted onto the skeleton of %s%s\n", onto,
            first ? " (the first input's; --to FILE picks another)" : "");
}

int cli_retarget_inputs(const char *cmd, cli_clip *const *ins, int n, const char *to_spec,
                        int lenient, cli_clip *target)
{
    int rc = to_spec ? cli_input_open(cmd, to_spec, lenient, 1, target) : CLI_EXIT_OK;
    const cli_clip *onto = to_spec ? target : ins[0];
    int any = 0;
    for (int i = 0; i < n && rc == CLI_EXIT_OK; ++i) {
        if (ins[i] == onto || mb_skeleton_same_topology(ins[i]->s, onto->s, NULL))
            continue;
        any = 1;
        if ((rc = cli_retarget_onto(cmd, ins[i], NULL, onto, NULL, 1, NULL)) != CLI_EXIT_OK)
            fprintf(stderr, "%s: cannot retarget %s onto the skeleton of %s%s\n", cmd,
                    ins[i]->file, onto->file,
                    to_spec ? "" : " (the first input's: inputs of other skeletons are "
                                   "retargeted onto it, or onto --to FILE's)");
    }
    if (rc == CLI_EXIT_OK && any)
        say_retargeted(cmd, ins, n, onto->file, !to_spec);
    return rc;
}
