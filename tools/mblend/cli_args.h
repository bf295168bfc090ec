/* Option parsing for the subcommands, and the parsers of option values. */
#ifndef MB_CLI_ARGS_H
#define MB_CLI_ARGS_H

#include "cli.h"

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

/* Whether s ends with suffix, ignoring ASCII case (".PNG" matches ".png"). */
int mb_cli_ends_with_ci(const char *s, const char *suffix);

#endif
