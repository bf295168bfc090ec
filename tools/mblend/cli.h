/* The mblend command-line tool: exit codes, the subcommands (commands.def) and the messages
 * every subcommand prints. Subcommands are thin wrappers over the public API; the shared
 * pieces are by purpose: cli_args.h (options, number parsers), cli_load.h (inputs),
 * cli_output.h (output checks and writers), cli_pose.h (poses). */
#ifndef CLI_H
#define CLI_H

#include <stdio.h>

#include "mblend/mblend.h"

/* Exit codes, the same for every subcommand. */
enum {
    CLI_EXIT_OK = 0,    /* success (also --help) */
    CLI_EXIT_USAGE = 1, /* bad command line: unknown option, missing or malformed argument */
    CLI_EXIT_INPUT = 2  /* bad input: unreadable or malformed file, out-of-range request, I/O error */
};

/* Every subcommand: argv[0] is the subcommand's name; returns an CLI_EXIT_* code. */
#define CLI_COMMAND(name, summary)                                                       \
    int cmd_##name(int argc, char **argv);                                               \
    void cmd_##name##_usage(FILE *out);
#include "commands.def"
#undef CLI_COMMAND

/* ---------- messages ---------- */

/* Prints "cmd: message" and a hint to use --help on stderr; returns CLI_EXIT_USAGE. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_usage_error(const char *cmd, const char *fmt, ...);

/* Prints "cmd: message" on stderr and returns CLI_EXIT_INPUT (errors without a position). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_input_error(const char *cmd, const char *fmt, ...);

/* Prints an mb_error as "file:line:col: message" (mb_error_format) on stderr. */
void cli_print_error(const mb_error *e);
/* Prints a loader warning as "file:line:col: warning: message" on stderr. */
void cli_print_warning(const mb_error *w);

#endif
