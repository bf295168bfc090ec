/* Messages shared by the subcommands: usage and input errors, library errors and warnings. */
#include "cli.h"

#include <stdarg.h>

static void vmessage(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help'.\n", cmd);
    return CLI_EXIT_USAGE;
}

int cli_input_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_INPUT;
}

void cli_print_error(const mb_error *e)
{
    char buf[600];
    fprintf(stderr, "%s\n", mb_error_format(e, buf, sizeof buf));
}

void cli_print_warning(const mb_error *w)
{
    const char *src = w->source[0] ? w->source : "<memory>";
    if (w->line > 0)
        fprintf(stderr, "%s:%d:%d: warning: %s\n", src, w->line, w->column, w->text);
    else
        fprintf(stderr, "%s: warning: %s\n", src, w->text);
}
