/* The commands' inputs: one loader for "walk.bvh", "Fox.glb#Walk", ... (mb_source_open). */
#ifndef CLI_LOAD_H
#define CLI_LOAD_H

#include "cli.h"

/* Reads a whole glTF/FBX/... scene through assimp (an error when the build has none), for
 * its mesh (--mesh); errors go to stderr as for cli_input_open, warnings about cut
 * influences and dropped scales prefixed with cmd. Returns CLI_EXIT_OK or CLI_EXIT_INPUT. */
int cli_load_scene(const char *cmd, const char *path, mb_scene **out);

/* A clip from the command line: "file.bvh", or "file.glb#Anim" (any assimp format; default
 * the first animation; '#' splits only when no file has the whole name). */
typedef struct cli_clip {
    char file[1024];
    char anim[256];          /* "" = the first animation */
    mb_source *source;       /* owns everything below (or own_scene does) */
    mb_scene *own_scene;     /* a still scene (see cli_input_open) */
    mb_scene *scene;         /* a scene file's scene (NULL for BVH) */
    const mb_skeleton *s;
    const mb_clip *c;        /* NULL for a still scene only */
    mb_axis up_axis;         /* DETECT (BVH); Y, the convention of glTF and assimp */
    mb_prepared_clip *prep;  /* the library's preparation, once a command asks for it */
    mb_clip *own_clip;       /* a retargeted clip (cli_retarget_onto): c points to it */
} cli_clip;

/* The one input loader of every command: opens spec through mb_source_open (with the
 * assimp crash probe). A malformed spec is a usage error ("cmd: message", a --help hint;
 * CLI_EXIT_USAGE); a file that cannot be read is reported as the library formats it
 * ("file[:line:col]: message"; CLI_EXIT_INPUT); loader warnings go to stderr. With still_ok,
 * a scene file without animations, named without '#', opens too, with c = NULL (render,
 * skin and info show its bind pose). On failure *out holds nothing. */
int cli_input_open(const char *cmd, const char *spec, int lenient, int still_ok,
                   cli_clip *out);
/* cli_input_open without still scenes: every input has a clip. */
int cli_clip_open(const char *cmd, const char *spec, int lenient, cli_clip *out);
void cli_clip_close(cli_clip *c);

/* Whether b has a's skeleton (joint names and parents; offsets may differ). Otherwise prints
 * the first difference (joint counts, or the joint with its names and parents on both
 * sides) and returns CLI_EXIT_INPUT. name_a and name_b name the inputs in the message. */
int cli_same_skeleton(const char *cmd, const char *name_a, const mb_skeleton *a,
                      const char *name_b, const mb_skeleton *b);

/* The roles of a skeleton: found by name and topology, completed by the role map file map
 * (nullable). Errors are printed (CLI_EXIT_INPUT); on success free *out with mb_roles_free. */
int cli_roles(const char *cmd, const mb_skeleton *s, const char *map, mb_roles *out);

/* Retargets in's clip onto to's skeleton (mb_retarget): in then shows to's skeleton, scene
 * (its mesh) and up axis, and owns the new clip; its file name stays its own. to must
 * outlive in. The reference poses are the scenes' bind poses (a skinned mesh), else the
 * skeletons' rest poses. maps (nullable) complete the roles found by name. report (nullable)
 * receives the mapping as text. Errors (missing roles named) are printed: CLI_EXIT_INPUT. */
int cli_retarget_onto(const char *cmd, cli_clip *in, const char *map_in, const cli_clip *to,
                      const char *map_to, int foot_ik, FILE *report);

/* The one skeleton of blend's and transition's inputs: --to's (to_spec: a BVH file, or a
 * glTF/FBX/... file that needs no animation, opened into *target) when given, else the
 * first input's (ins[0]; *target stays empty). Every input whose skeleton differs from it
 * (by names and parents) is retargeted onto it (cli_retarget_onto, roles by name and
 * topology, foot IK), and one line on stderr names them and the file whose skeleton they
 * now have. The inputs then borrow that skeleton: close *target, or ins[0], after the
 * others. Returns CLI_EXIT_OK or the error's code (printed: missing roles are named). */
int cli_retarget_inputs(const char *cmd, cli_clip *const *ins, int n, const char *to_spec,
                        int lenient, cli_clip *target);

/* The local bind pose of a scene's skinned mesh when it fits the skeleton, else NULL. */
const mb_xform *cli_bind_pose(const cli_clip *c);

#endif
