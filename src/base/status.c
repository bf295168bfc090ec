/* Status strings and error formatting. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/error_internal.h"
#include "mblend/base.h"

const char *mb_status_str(mb_status s)
{
    static const char *const names[] = {
#define MB_STATUS_STR_(name, str) str,
        MB_STATUS_TABLE(MB_STATUS_STR_)
#undef MB_STATUS_STR_
    };
    if ((int)s < 0 || (int)s >= (int)MB_STATUS_COUNT_)
        return "unknown status";
    return names[s];
}

char *mb_error_format(const mb_error *e, char *buf, size_t size)
{
    if (!buf || size == 0)
        return buf;
    if (!e) {
        buf[0] = '\0';
        return buf;
    }
    const char *src = e->source[0] ? e->source : "<memory>";
    const char *text = e->text[0] ? e->text : mb_status_str(e->code);
    if (e->line > 0)
        snprintf(buf, size, "%s:%d:%d: %s", src, e->line, e->column, text);
    else
        snprintf(buf, size, "%s: %s", src, text);
    return buf;
}

void mb_error_clear_(mb_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

/* The one place an error is written: first error wins. */
static mb_status set_va(mb_error *err, mb_status code, const char *source, int line, int column,
                        const char *fmt, va_list ap)
{
    if (!err || err->code != MB_OK)
        return code;
    memset(err, 0, sizeof *err);
    err->code = code;
    err->line = line;
    err->column = column;
    snprintf(err->source, sizeof err->source, "%s", source ? source : "<memory>");
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    return code;
}

mb_status mb_error_set_(mb_error *err, mb_status code, const char *source, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_va(err, code, source, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

mb_status mb_error_set_at_(mb_error *err, mb_status code, const char *source, int line,
                           int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_va(err, code, source, line, column, fmt, ap);
    va_end(ap);
    return code;
}
