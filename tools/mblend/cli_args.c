/* Option parsing and the number parsers behind option values. */
#include "cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void mb_cli_args_init(mb_cli_args *a, const char *cmd, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->argc = argc;
    a->argv = argv;
    a->next = 1;
    a->cmd = cmd;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int bad(const mb_cli_args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", a->cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", a->cmd);
    va_end(ap);
    return MB_CLI_BAD;
}

int mb_cli_next(mb_cli_args *a, const mb_cli_opt *opts)
{
    static const mb_cli_opt help = {"help", 'h', 0, MB_OPT_HELP};
    a->arg = NULL;
    a->opt = NULL;
    if (a->next >= a->argc)
        return MB_CLI_END;
    char *s = a->argv[a->next++];
    if (a->options_done || s[0] != '-' || s[1] == '\0') { /* "-" is an operand */
        a->arg = s;
        return MB_CLI_OPERAND;
    }
    a->opt = s;
    if (strcmp(s, "--") == 0) {
        a->options_done = 1;
        return mb_cli_next(a, opts);
    }
    const mb_cli_opt *found = NULL;
    const char *inline_arg = NULL;
    if (s[1] == '-') {
        const char *name = s + 2;
        const char *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        if (n == 4 && strncmp(name, "help", 4) == 0)
            found = &help;
        for (const mb_cli_opt *o = opts; !found && o && o->long_name; ++o)
            if (strlen(o->long_name) == n && strncmp(o->long_name, name, n) == 0)
                found = o;
        if (!found)
            return bad(a, "unknown option '%s'", s);
        if (eq) {
            if (!found->has_arg)
                return bad(a, "option '%s' takes no argument", s);
            inline_arg = eq + 1;
        }
    } else {
        char c = s[1];
        if (c == 'h')
            found = &help;
        for (const mb_cli_opt *o = opts; !found && o && o->long_name; ++o)
            if (o->short_name && o->short_name == c)
                found = o;
        if (!found)
            return bad(a, "unknown option '%s'", s);
        if (s[2] != '\0') {
            if (!found->has_arg)
                return bad(a, "unknown option '%s' (short options do not combine)", s);
            inline_arg = s + 2;
        }
    }
    if (found->has_arg) {
        if (inline_arg) {
            a->arg = inline_arg;
        } else {
            if (a->next >= a->argc)
                return bad(a, "option '%s' needs an argument", s);
            a->arg = a->argv[a->next++];
        }
    }
    return found->id;
}

int mb_cli_parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return 0;
    const char *p = s;
    if (*p == '+' || *p == '-')
        ++p;
    if (*p < '0' || *p > '9')
        return 0;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

int mb_cli_parse_nonneg(const char *s, double *out)
{
    /* decimal only: strtod would also take leading blanks, hexadecimal and "infinity" */
    if (!s || !*s || strspn(s, "0123456789.eE+-") != strlen(s))
        return 0;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < 0.0)
        return 0;
    *out = v;
    return 1;
}

int mb_cli_parse_scale(const char *s, float *out)
{
    double v;
    /* below 1e-6 a bone shrinks to float noise and its inverse bind matrix is singular: the
     * file would not read back */
    if (!mb_cli_parse_nonneg(s, &v) || !(v >= 1e-6) || v > 1e6)
        return 0;
    *out = (float)v;
    return 1;
}

int mb_cli_parse_span(const char *s, double *from, double *to)
{
    const char *colon = strchr(s, ':');
    char buf[64];
    if (!colon || (size_t)(colon - s) >= sizeof buf)
        return 0;
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    return mb_cli_parse_nonneg(buf, from) && mb_cli_parse_nonneg(colon + 1, to);
}

int mb_cli_parse_up(const char *s, int *out)
{
    if (strlen(s) != 1 || !strchr("xyzXYZ", s[0]))
        return 0;
    *out = 1 + (s[0] | 0x20) - 'x';
    return 1;
}

int mb_cli_ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (k > n)
        return 0;
    for (size_t i = 0; i < k; ++i)
        if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)suffix[i]))
            return 0;
    return 1;
}
