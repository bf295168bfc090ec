/* Option parsing and the number parsers behind option values. */
#include "cli_args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_args_init(cli_args *a, const char *cmd, int argc, char **argv)
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
static int bad(const cli_args *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", a->cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", a->cmd);
    va_end(ap);
    return CLI_BAD;
}

int cli_next(cli_args *a, const cli_opt *opts)
{
    static const cli_opt help = {"help", 'h', 0, CLI_OPT_HELP};
    a->arg = NULL;
    a->opt = NULL;
    if (a->next >= a->argc)
        return CLI_END;
    char *s = a->argv[a->next++];
    if (a->options_done || s[0] != '-' || s[1] == '\0') { /* "-" is an operand */
        a->arg = s;
        return CLI_OPERAND;
    }
    a->opt = s;
    if (strcmp(s, "--") == 0) {
        a->options_done = 1;
        return cli_next(a, opts);
    }
    const cli_opt *found = NULL;
    const char *inline_arg = NULL;
    if (s[1] == '-') {
        const char *name = s + 2;
        const char *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        if (n == 4 && strncmp(name, "help", 4) == 0)
            found = &help;
        for (const cli_opt *o = opts; !found && o && o->long_name; ++o)
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
        for (const cli_opt *o = opts; !found && o && o->long_name; ++o)
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

int cli_parse_long(const char *s, long *out)
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

int cli_parse_nonneg(const char *s, double *out)
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

int cli_parse_scale(const char *s, float *out)
{
    double v;
    /* below 1e-6 a bone shrinks to float noise and its inverse bind matrix is singular: the
     * file would not read back */
    if (!cli_parse_nonneg(s, &v) || !(v >= 1e-6) || v > 1e6)
        return 0;
    *out = (float)v;
    return 1;
}

int cli_parse_span(const char *s, double *from, double *to)
{
    const char *colon = strchr(s, ':');
    char buf[64];
    if (!colon || (size_t)(colon - s) >= sizeof buf)
        return 0;
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    return cli_parse_nonneg(buf, from) && cli_parse_nonneg(colon + 1, to);
}

int cli_parse_up(const char *s, mb_axis *out)
{
    static const mb_axis axes[3] = {MB_AXIS_X, MB_AXIS_Y, MB_AXIS_Z};
    if (strlen(s) != 1 || !strchr("xyzXYZ", s[0]))
        return 0;
    *out = axes[(s[0] | 0x20) - 'x'];
    return 1;
}

int cli_ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    if (k > n)
        return 0;
    for (size_t i = 0; i < k; ++i)
        if (tolower((unsigned char)s[n - k + i]) != tolower((unsigned char)suffix[i]))
            return 0;
    return 1;
}

int cli_parse_frames(const char *text, long frames, long *first, long *end, long *step)
{
    long v[3] = {0, frames, 1};
    int given[3] = {0, 0, 0};
    const char *p = text;
    if (!*text) /* an empty option is a mistake, not "every frame" */
        return 0;
    for (int k = 0; k < 3; ++k) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        char buf[32];
        if (n >= sizeof buf)
            return 0;
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (n > 0) {
            if (!cli_parse_long(buf, &v[k]))
                return 0;
            given[k] = 1;
        }
        if (!colon) {
            if (k == 0 && given[0]) /* "N": just frame N (past the clip: refused below) */
                v[1] = v[0] < frames ? v[0] + 1 : frames + 1;
            break;
        }
        if (k == 2)
            return 0;
        p = colon + 1;
    }
    if (v[2] < 1)
        return 0;
    if (v[0] < 0 || v[1] > frames || v[0] >= v[1])
        return -1;
    *first = v[0];
    *end = v[1];
    /* a step past the range takes its first frame only (and keeps the count's arithmetic,
     * end - first + step - 1, from overflowing) */
    *step = v[2] < v[1] - v[0] ? v[2] : v[1] - v[0];
    return 1;
}

int cli_take_frames(const char *cmd, const char *text, long frames, const char *name,
                    long *first, long *end, long *step)
{
    int pf = cli_parse_frames(text, frames, first, end, step);
    if (pf > 0)
        return CLI_EXIT_OK;
    return (pf == 0 ? cli_usage_error : cli_input_error)(
        cmd, "--frames '%s' is not a non-empty range A:B:STEP of the %ld frames of %s "
        "(0 <= A < B <= %ld, STEP >= 1)", text, frames, name, frames);
}

int cli_take_output(const char *cmd, const char *arg, const char **outp)
{
    if (*outp)
        return cli_usage_error(cmd, "-o/--output given twice");
    if (!*arg)
        return cli_usage_error(cmd, "-o/--output needs a file name");
    *outp = arg;
    return CLI_EXIT_OK;
}

int cli_take_scale(const char *cmd, const char *arg, float *scale)
{
    if (!cli_parse_scale(arg, scale))
        return cli_usage_error(cmd, "--scale needs a number from 1e-6 to 1e6, got '%s'", arg);
    return CLI_EXIT_OK;
}

int cli_check_scale(const char *cmd, float scale, int glb)
{
    if (scale > 0.0f && !glb)
        return cli_usage_error(cmd, "--scale applies to .glb output only");
    return CLI_EXIT_OK;
}

int cli_take_up(const char *cmd, const char *arg, mb_axis *up)
{
    if (!cli_parse_up(arg, up))
        return cli_usage_error(cmd, "bad --up '%s' (x, y or z)", arg);
    return CLI_EXIT_OK;
}

/* "a, b or c" into buf. */
static const char *list_names(const char *const *names, const char *last_sep, char *buf,
                              size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && at < size; ++i)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", i == 0 ? "" : names[i + 1] ? ", " : last_sep,
                               names[i]);
    return buf;
}

int cli_bad_choice(const char *cmd, const char *opt, const char *arg,
                   const char *const *names)
{
    char list[200];
    return cli_usage_error(cmd, "bad %s '%s' (%s)", opt, arg,
                           list_names(names, " or ", list, sizeof list));
}

int cli_take_choice(const char *cmd, const char *opt, const char *arg,
                    const char *const *names, int *out)
{
    for (int i = 0; names[i]; ++i)
        if (strcmp(arg, names[i]) == 0) {
            *out = i;
            return CLI_EXIT_OK;
        }
    return cli_bad_choice(cmd, opt, arg, names);
}

int cli_take_output_kind(const char *cmd, const char *outp, const char *const *exts,
                         int *kind)
{
    char list[200];
    if (!outp) {
        char alt[200];
        size_t at = 0;
        for (int i = 0; exts[i] && at < sizeof alt; ++i)
            at += (size_t)snprintf(alt + at, sizeof alt - at, "%sOUT%s",
                                   i == 0 ? "" : exts[i + 1] ? ", " : " or ", exts[i]);
        return cli_usage_error(cmd, "missing -o %s", alt);
    }
    for (int i = 0; exts[i]; ++i)
        if (cli_ends_with_ci(outp, exts[i])) {
            *kind = i;
            return CLI_EXIT_OK;
        }
    return cli_usage_error(cmd, "the output must end in %s, got '%s'",
                           list_names(exts, " or ", list, sizeof list), outp);
}

int cli_take_skin_method(const char *cmd, const char *arg, mb_skin_method *out)
{
    static const char *const names[] = {"lbs", "dqs", NULL};
    static const mb_skin_method methods[] = {MB_SKIN_LBS, MB_SKIN_DQS};
    int which = 0, rc = cli_take_choice(cmd, "--method", arg, names, &which);
    if (rc == CLI_EXIT_OK)
        *out = methods[which];
    return rc;
}
