/* The mblend command-line tool: exit codes, the subcommands (commands.def) and the messages
 * every subcommand prints. Subcommands are thin wrappers over the public API; the shared
 * pieces are by purpose: cli_args.h (options, number parsers), cli_load.h (inputs),
 * cli_output.h (output checks and writers), cli_pose.h (poses). */
#ifndef MB_CLI_H
#define MB_CLI_H

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

/* ---------- messages ---------- */

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

/* Prints an mb_error as "file:line:col: message" (mb_error_format) on stderr. */
void mb_cli_print_error(const mb_error *e);
/* Prints a loader warning as "file:line:col: warning: message" on stderr. */
void mb_cli_print_warning(const mb_error *w);

#endif
