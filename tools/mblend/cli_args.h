/* Option parsing for the subcommands, and the parsers of option values. */
#ifndef MB_CLI_ARGS_H
#define MB_CLI_ARGS_H

#include "cli.h"

/* ---------- option parsing ----------
 * Options and operands may be mixed; "--" ends the options. Long options take their
 * argument as "--name value" or "--name=value", short ones as "-o value" or "-ovalue".
 * "-h" / "--help" are recognised by every subcommand (id MB_OPT_HELP). */

/* Ids of the options several commands share (a command's own ids count from 1). */
enum {
    MB_OPT_HELP = 1000, /* -h, --help: every command, without a table entry */
    MB_OPT_LENIENT,     /* --lenient: a BVH Frames line that disagrees is a warning */
    MB_OPT_OUTPUT,      /* -o, --output FILE */
    MB_OPT_SCALE,       /* --scale S (glTF output) */
    MB_OPT_UP,          /* --up x|y|z */
    MB_OPT_REPORT,      /* --report FILE.json */
    MB_OPT_FRAMES,      /* --frames (A:B:STEP in skin and render; A:B in positions) */
    MB_OPT_METHOD,      /* --method NAME (the names differ: blend and skinning methods) */
    MB_OPT_EXACT        /* --exact */
};

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

/* The shared options' table entries: one spelling everywhere. */
#define MB_CLI_OPT_LENIENT {"lenient", 0, 0, MB_OPT_LENIENT}
#define MB_CLI_OPT_OUTPUT {"output", 'o', 1, MB_OPT_OUTPUT}
#define MB_CLI_OPT_SCALE {"scale", 0, 1, MB_OPT_SCALE}
#define MB_CLI_OPT_UP {"up", 0, 1, MB_OPT_UP}
#define MB_CLI_OPT_REPORT {"report", 0, 1, MB_OPT_REPORT}
#define MB_CLI_OPT_FRAMES {"frames", 0, 1, MB_OPT_FRAMES}
#define MB_CLI_OPT_METHOD {"method", 0, 1, MB_OPT_METHOD}
#define MB_CLI_OPT_EXACT {"exact", 0, 0, MB_OPT_EXACT}

/* argv[0] is the subcommand name; cmd is used in messages ("mblend info"). */
void mb_cli_args_init(mb_cli_args *a, const char *cmd, int argc, char **argv);
/* The next option id, MB_CLI_OPERAND (a->arg is the operand), MB_CLI_END, or MB_CLI_BAD
 * (the message is already printed; exit with MB_EXIT_USAGE). */
int mb_cli_next(mb_cli_args *a, const mb_cli_opt *opts);

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

/* "x", "y" or "z" (any case) as an up-axis option value: 1, 2, 3 (the library's
 * up_axis convention, 0 meaning detect). Returns 1 on success. */
int mb_cli_parse_up(const char *s, int *out);

/* ---------- the shared options' values: one parser and one message each ----------
 * Each returns MB_EXIT_OK, or prints a usage error and returns MB_EXIT_USAGE. */

/* -o/--output: a non-empty name, given once. */
int mb_cli_take_output(const char *cmd, const char *arg, const char **outp);
/* --scale: mb_cli_parse_scale. */
int mb_cli_take_scale(const char *cmd, const char *arg, float *scale);
/* --scale given (scale > 0) for an output that is not glTF. */
int mb_cli_check_scale(const char *cmd, float scale, int glb);
/* --up: mb_cli_parse_up (1..3). */
int mb_cli_take_up(const char *cmd, const char *arg, int *up);
/* --method of skinning (skin, render): lbs or dqs. */
int mb_cli_take_skin_method(const char *cmd, const char *arg, mb_skin_method *out);
/* opt (e.g. "--method") is one of names (NULL-terminated): its index into *out. */
int mb_cli_take_choice(const char *cmd, const char *opt, const char *arg,
                       const char *const *names, int *out);
/* The message of a value that is not one of names: "bad --method 'x' (lbs or dqs)". */
int mb_cli_bad_choice(const char *cmd, const char *opt, const char *arg,
                      const char *const *names);
/* The output's required extension: missing -o, or an output not ending in one of exts
 * (NULL-terminated, e.g. ".bvh", ".glb"; any case). *kind is the index of the one it ends
 * in. */
int mb_cli_take_output_kind(const char *cmd, const char *outp, const char *const *exts,
                            int *kind);

/* "A:B:STEP" (each part optional: A = 0, B = frames, STEP = 1; half-open) into first, end,
 * step. Returns 1 on success, 0 when text is not of that form (a usage error), -1 when the
 * range is empty or outside the frames. */
int mb_cli_parse_frames(const char *text, long frames, long *first, long *end, long *step);
/* --frames A:B:STEP of a clip of frames frames (name names it): mb_cli_parse_frames, with
 * one message; MB_EXIT_OK, MB_EXIT_USAGE (malformed) or MB_EXIT_INPUT (outside the clip). */
int mb_cli_take_frames(const char *cmd, const char *text, long frames, const char *name,
                       long *first, long *end, long *step);

/* Whether s ends with suffix, ignoring ASCII case (".PNG" matches ".png"). */
int mb_cli_ends_with_ci(const char *s, const char *suffix);

#endif
