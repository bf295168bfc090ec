/* Shared pieces of the mblend command-line tool: exit codes, option parsing, loading a BVH
 * file with error reporting. Subcommands are thin wrappers over the public API. */
#ifndef MB_CLI_COMMON_H
#define MB_CLI_COMMON_H

#include <stdio.h>

#include "mblend/mblend.h"

/* Exit codes, the same for every subcommand. */
enum {
    MB_EXIT_OK = 0,    /* success (also --help) */
    MB_EXIT_USAGE = 1, /* bad command line: unknown option, missing or malformed argument */
    MB_EXIT_INPUT = 2  /* bad input: unreadable or malformed file, out-of-range request, I/O error */
};

/* Every subcommand: argv[0] is the subcommand's name; returns an MB_EXIT_* code. */
#define MB_CLI_COMMAND(name, summary)                                                       \
    int mb_cmd_##name(int argc, char **argv);                                               \
    void mb_cmd_##name##_usage(FILE *out);
#include "commands.def"
#undef MB_CLI_COMMAND

/* ---------- option parsing ----------
 * Options and operands may be mixed; "--" ends the options. Long options take their
 * argument as "--name value" or "--name=value", short ones as "-o value" or "-ovalue".
 * "-h" / "--help" are recognised by every subcommand (id MB_OPT_HELP). */

#define MB_OPT_HELP 1000

typedef struct mb_cli_opt {
    const char *long_name; /* without "--"; NULL ends the table */
    char short_name;       /* 0: none */
    int has_arg;
    int id;                /* > 0, returned by mb_cli_next */
} mb_cli_opt;

typedef struct mb_cli_args {
    int argc;
    char **argv;
    int next;          /* index of the next argv element */
    int options_done;  /* after "--" */
    const char *cmd;   /* "mblend info": for messages */
    const char *arg;   /* the operand or the option's argument after mb_cli_next */
    const char *opt;   /* the option as written, for messages */
} mb_cli_args;

enum { MB_CLI_OPERAND = 0, MB_CLI_END = -1, MB_CLI_BAD = -2 };

/* argv[0] is the subcommand name; cmd is used in messages ("mblend info"). */
void mb_cli_args_init(mb_cli_args *a, const char *cmd, int argc, char **argv);
/* The next option id, MB_CLI_OPERAND (a->arg is the operand), MB_CLI_END, or MB_CLI_BAD
 * (the message is already printed; exit with MB_EXIT_USAGE). */
int mb_cli_next(mb_cli_args *a, const mb_cli_opt *opts);

/* Prints "cmd: message" and a hint to use --help on stderr; returns MB_EXIT_USAGE. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int mb_cli_usage_error(const char *cmd, const char *fmt, ...);

/* Prints "cmd: message" on stderr and returns MB_EXIT_INPUT (errors without a position). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int mb_cli_input_error(const char *cmd, const char *fmt, ...);

/* Strict decimal integer parse (optional sign, digits, nothing else, fits in long).
 * Returns 1 on success. */
int mb_cli_parse_long(const char *s, long *out);

/* Strict non-negative finite decimal (strtod grammar, nothing after it). Returns 1 on
 * success. */
int mb_cli_parse_nonneg(const char *s, double *out);

/* A --scale value for glTF output: a decimal in [1e-6, 1e6]. Returns 1 on success. */
int mb_cli_parse_scale(const char *s, float *out);

/* "FROM:TO", both mb_cli_parse_nonneg; the caller checks their order. Returns 1 on
 * success. */
int mb_cli_parse_span(const char *s, double *from, double *to);

/* 1 when paths a and b name the same file: the same inode where both exist, the same
 * canonical directory and name where neither does. */
int mb_cli_same_file(const char *a, const char *b);

/* A --report destination must not be a directory, the output (outp, may be NULL) or one of
 * the n input files: a usage error (printed; returns MB_EXIT_USAGE), else MB_EXIT_OK. Checked
 * before anything is written, so a report that cannot go into place fails before the output
 * does. */
int mb_cli_check_report(const char *cmd, const char *report, const char *outp,
                        const char *const *inputs, int n);

/* The output must not be one of the n input files (NULL entries are skipped): a usage
 * error (printed; MB_EXIT_USAGE), else MB_EXIT_OK. (convert, a re-export, may rewrite its
 * input in place; the commands that make something new may not.) */
int mb_cli_check_output(const char *cmd, const char *outp, const char *const *inputs, int n);

/* "x", "y" or "z" (any case) as an up-axis option value. Returns 1 on success. */
int mb_cli_parse_up(const char *s, mb_axis *out);

/* Whether s ends with suffix, ignoring ASCII case (".PNG" matches ".png"). */
int mb_cli_ends_with_ci(const char *s, const char *suffix);

/* ---------- loading and errors ---------- */

/* Prints an mb_error as "file:line:col: message" (mb_error_format) on stderr. */
void mb_cli_print_error(const mb_error *e);
/* Prints a loader warning as "file:line:col: warning: message" on stderr. */
void mb_cli_print_warning(const mb_error *w);

/* Reads a BVH file; errors and (with lenient) warnings go to stderr. Returns MB_EXIT_OK or
 * MB_EXIT_INPUT. out_clip may be NULL. */
int mb_cli_load_bvh(const char *path, int lenient, mb_skeleton **out_skel, mb_clip **out_clip);

/* Whether a file is read as BVH: its name ends in .bvh, or its text starts with HIERARCHY
 * (after an optional UTF-8 byte order mark and white space, any case); a pipe or device is
 * too (it cannot be sniffed and read again). Everything else goes to assimp. */
int mb_cli_is_bvh(const char *path);

/* Splits "FILE#Animation" into file and anim ("" when there is no '#'). No split when spec
 * names a regular file as it stands. Else the first '#' whose left part is an existing
 * regular file splits it (the name may then hold '#' and '/': "fox.glb#Run#2"); when none
 * is, the last '#' does unless a '/' follows it (a directory name). An empty file or
 * animation name is a usage error (printed; returns MB_EXIT_USAGE), as is a part too long
 * for its buffer. */
int mb_cli_split_spec(const char *cmd, const char *spec, char *file, size_t file_size,
                      char *anim, size_t anim_size);

/* Reads a glTF/FBX/... scene through assimp (an error when the build has none); errors, and
 * warnings about cut influences and dropped scales, go to stderr prefixed with cmd. Returns
 * MB_EXIT_OK or MB_EXIT_INPUT. */
int mb_cli_load_scene(const char *cmd, const char *path, mb_scene **out);

/* A clip from the command line: "file.bvh", or "file.glb#Anim" (any assimp format; default
 * the first animation; '#' splits only when no file has the whole name). */
typedef struct mb_cli_clip {
    char file[1024];
    char anim[256];          /* "" = the first animation */
    mb_source *source;       /* owns everything below */
    mb_scene *scene;         /* a scene file's scene (NULL for BVH) */
    const mb_skeleton *s;
    const mb_clip *c;
    mb_axis up_axis;         /* DETECT (BVH); Y, the convention of glTF and assimp */
} mb_cli_clip;

/* Opens spec; errors go to stderr (prefixed with cmd where they are not file:line:col).
 * Returns MB_EXIT_OK, MB_EXIT_USAGE or MB_EXIT_INPUT; on failure *out holds nothing. */
int mb_cli_clip_open(const char *cmd, const char *spec, int lenient, mb_cli_clip *out);
void mb_cli_clip_close(mb_cli_clip *c);

/* Whether b has a's skeleton (joint names and parents; offsets may differ). Otherwise prints
 * the first difference (joint counts, or the joint with its names and parents on both
 * sides) and returns MB_EXIT_INPUT. name_a and name_b name the inputs in the message. */
int mb_cli_same_skeleton(const char *cmd, const char *name_a, const mb_skeleton *a,
                         const char *name_b, const mb_skeleton *b);

/* The BVH writer's settings for output on src's skeleton: a glTF/FBX scene's nodes all have
 * position channels, so joints the clip holds still are written with rotations only. */
mb_bvh_write_desc mb_cli_bvh_desc(const mb_cli_clip *src);

/* OUT.glb: skeleton, mesh and clip (named name) as one binary glTF. The mesh is src's own (a
 * scene with a mesh); a BVH skeleton gets a generated capsule skin and is turned from its
 * up axis (as the caller's analysis found it; MB_AXIS_DETECT: analyse clip here) to
 * glTF's +Y. */
int mb_cli_write_glb(const char *cmd, const char *outp, const mb_cli_clip *src,
                     const mb_clip *clip, const char *name, mb_axis up_axis, float scale);

/* Writes s as one CSV field (RFC 4180): as it is, or in double quotes with its quotes
 * doubled when it holds a comma, a quote or a line break (BVH joint names may). */
void mb_cli_csv_field(FILE *f, const char *s);

/* ---------- poses ---------- */

/* World matrices of one frame (frame < 0: the rest pose) into world (joint_count entries),
 * using pose (joint_count entries) as scratch. Returns the library status. */
mb_status mb_cli_frame_world(const mb_skeleton *s, const mb_clip *c, int frame, mb_xform *pose,
                             float (*world)[16]);
/* A and B of a transition or match search, prepared by the library (B on A's up axis; up
 * given by --up, else (MB_AXIS_DETECT) the loader's); their analyses into info. Errors are printed:
 * MB_EXIT_OK or MB_EXIT_INPUT. */
int mb_cli_prepare_pair(const char *const paths[2], const mb_cli_clip src[2], mb_axis up,
                        mb_motion_info info[2], mb_error *e);

#endif
