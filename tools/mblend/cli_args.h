/* Option parsing for the subcommands, and the parsers of option values. */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include "cli.h"

/* ---------- option parsing ----------
 * Options and operands may be mixed; "--" ends the options. Long options take their
 * argument as "--name value" or "--name=value", short ones as "-o value" or "-ovalue".
 * "-h" / "--help" are recognised by every subcommand (id CLI_OPT_HELP). */

/* Ids of the options several commands share (a command's own ids count from 1). */
enum {
    CLI_OPT_HELP = 1000, /* -h, --help: every command, without a table entry */
    CLI_OPT_LENIENT,     /* --lenient: a BVH Frames line that disagrees is a warning */
    CLI_OPT_OUTPUT,      /* -o, --output FILE */
    CLI_OPT_SCALE,       /* --scale S (glTF output) */
    CLI_OPT_UP,          /* --up x|y|z */
    CLI_OPT_REPORT,      /* --report FILE.json */
    CLI_OPT_FRAMES,      /* --frames (A:B:STEP in skin and render; A:B in positions) */
    CLI_OPT_METHOD,      /* --method NAME (the names differ: blend and skinning methods) */
    CLI_OPT_EXACT        /* --exact */
};

typedef struct cli_opt {
    const char *long_name; /* without "--"; NULL ends the table */
    char short_name;       /* 0: none */
    int has_arg;
    int id;                /* > 0, returned by cli_next */
} cli_opt;

typedef struct cli_args {
    int argc;
    char **argv;
    int next;          /* index of the next argv element */
    int options_done;  /* after "--" */
    const char *cmd;   /* "mblend info": for messages */
    const char *arg;   /* the operand or the option's argument after cli_next */
    const char *opt;   /* the option as written, for messages */
} cli_args;

enum { CLI_OPERAND = 0, CLI_END = -1, CLI_BAD = -2 };

/* The shared options' table entries: one spelling everywhere. */
#define CLI_OPTION_LENIENT {"lenient", 0, 0, CLI_OPT_LENIENT}
#define CLI_OPTION_OUTPUT {"output", 'o', 1, CLI_OPT_OUTPUT}
#define CLI_OPTION_SCALE {"scale", 0, 1, CLI_OPT_SCALE}
#define CLI_OPTION_UP {"up", 0, 1, CLI_OPT_UP}
#define CLI_OPTION_REPORT {"report", 0, 1, CLI_OPT_REPORT}
#define CLI_OPTION_FRAMES {"frames", 0, 1, CLI_OPT_FRAMES}
#define CLI_OPTION_METHOD {"method", 0, 1, CLI_OPT_METHOD}
#define CLI_OPTION_EXACT {"exact", 0, 0, CLI_OPT_EXACT}

/* argv[0] is the subcommand name; cmd is used in messages ("mblend info"). */
void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv);
/* The next option id, CLI_OPERAND (a->arg is the operand), CLI_END, or CLI_BAD
 * (the message is already printed; exit with CLI_EXIT_USAGE). */
int cli_next(cli_args *a, const cli_opt *opts);

/* Strict decimal integer parse (optional sign, digits, nothing else, fits in long).
 * Returns 1 on success. */
int cli_parse_long(const char *s, long *out);

/* Strict non-negative finite decimal (strtod grammar, nothing after it). Returns 1 on
 * success. */
int cli_parse_nonneg(const char *s, double *out);

/* A --scale value for glTF output: a decimal in [1e-6, 1e6]. Returns 1 on success. */
int cli_parse_scale(const char *s, float *out);

/* "FROM:TO", both cli_parse_nonneg; the caller checks their order. Returns 1 on
 * success. */
int cli_parse_span(const char *s, double *from, double *to);

/* "x", "y" or "z" (any case) as an up-axis option value: 1, 2, 3 (the library's
 * up_axis convention, 0 meaning detect). Returns 1 on success. */
int cli_parse_up(const char *s, mb_axis *out);

/* ---------- the shared options' values: one parser and one message each ----------
 * Each returns CLI_EXIT_OK, or prints a usage error and returns CLI_EXIT_USAGE. */

/* -o/--output: a non-empty name, given once. */
int cli_take_output(const char *cmd, const char *arg, const char **outp);
/* --scale: cli_parse_scale. */
int cli_take_scale(const char *cmd, const char *arg, float *scale);
/* --scale given (scale > 0) for an output that is not glTF. */
int cli_check_scale(const char *cmd, float scale, int glb);
/* --up: cli_parse_up. */
int cli_take_up(const char *cmd, const char *arg, mb_axis *up);
/* --method of skinning (skin, render): lbs or dqs. */
int cli_take_skin_method(const char *cmd, const char *arg, mb_skin_method *out);
/* opt (e.g. "--method") is one of names (NULL-terminated): its index into *out. */
int cli_take_choice(const char *cmd, const char *opt, const char *arg,
                    const char *const *names, int *out);
/* The message of a value that is not one of names: "bad --method 'x' (lbs or dqs)". */
int cli_bad_choice(const char *cmd, const char *opt, const char *arg,
                   const char *const *names);
/* The output's required extension: missing -o, or an output not ending in one of exts
 * (NULL-terminated, e.g. ".bvh", ".glb"; any case). *kind is the index of the one it ends
 * in. */
int cli_take_output_kind(const char *cmd, const char *outp, const char *const *exts,
                         int *kind);

/* "A:B:STEP" (each part optional: A = 0, B = frames, STEP = 1; half-open) into first, end,
 * step. Returns 1 on success, 0 when text is not of that form (a usage error), -1 when the
 * range is empty or outside the frames. */
int cli_parse_frames(const char *text, long frames, long *first, long *end, long *step);
/* --frames A:B:STEP of a clip of frames frames (name names it): cli_parse_frames, with
 * one message; CLI_EXIT_OK, CLI_EXIT_USAGE (malformed) or CLI_EXIT_INPUT (outside the clip). */
int cli_take_frames(const char *cmd, const char *text, long frames, const char *name,
                    long *first, long *end, long *step);

/* Whether s ends with suffix, ignoring ASCII case (".PNG" matches ".png"). */
int cli_ends_with_ci(const char *s, const char *suffix);

#endif
