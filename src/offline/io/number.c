/* Decimal number parsing: an exact fast path plus a strtof/strtod fallback. */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offline/io/number_internal.h"

const double mb_num_pow10_[48] = {1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15,
                                  1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9,  1e-8,  1e-7,
                                  1e-6,  1e-5,  1e-4,  1e-3,  1e-2,  1e-1,  1e0,   1e1,
                                  1e2,   1e3,   1e4,   1e5,   1e6,   1e7,   1e8,   1e9,
                                  1e10,  1e11,  1e12,  1e13,  1e14,  1e15,  1e16,  1e17,
                                  1e18,  1e19,  1e20,  1e21,  1e22,  1.0,   1.0,   1.0};

/* Powers of ten exactly representable in double (10^22 is the last). */
static const double pow10_exact[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

typedef struct scan_ {
    const char *end_of_number;
    int negative;
    uint64_t mantissa;  /* first 19 significant digits */
    int digits;         /* significant digits seen (may exceed 19) */
    long exp10;         /* decimal exponent applied to mantissa */
} scan_;

static int is_digit(char c) { return (unsigned)(c - '0') < 10u; }

/* Scans the grammar; returns 0 when no number starts at p. */
static int scan_number(const char *p, const char *end, scan_ *s)
{
    const char *q = p;
    s->negative = 0;
    s->mantissa = 0;
    s->digits = 0;
    s->exp10 = 0;
    if (q < end && (*q == '+' || *q == '-')) {
        s->negative = (*q == '-');
        ++q;
    }
    int any = 0;
    while (q < end && *q == '0') { /* leading zeros are not significant */
        ++q;
        any = 1;
    }
    while (q < end && is_digit(*q)) {
        if (s->digits < 19)
            s->mantissa = s->mantissa * 10u + (uint64_t)(*q - '0');
        else
            ++s->exp10;
        ++s->digits;
        ++q;
        any = 1;
    }
    if (q < end && *q == '.') {
        ++q;
        if (s->digits == 0)
            while (q < end && *q == '0') {
                --s->exp10;
                ++q;
                any = 1;
            }
        while (q < end && is_digit(*q)) {
            if (s->digits < 19) {
                s->mantissa = s->mantissa * 10u + (uint64_t)(*q - '0');
                --s->exp10;
            }
            ++s->digits;
            ++q;
            any = 1;
        }
    }
    if (!any)
        return 0;
    if (q < end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        int eneg = 0;
        if (e < end && (*e == '+' || *e == '-')) {
            eneg = (*e == '-');
            ++e;
        }
        if (e < end && is_digit(*e)) {
            long ev = 0;
            while (e < end && is_digit(*e)) {
                if (ev < 100000)
                    ev = ev * 10 + (*e - '0');
                ++e;
            }
            s->exp10 += eneg ? -ev : ev;
            q = e;
        }
        /* "1e" without digits: the number ends before the 'e' (caller sees 'e' glued). */
    }
    s->end_of_number = q;
    return 1;
}

static int starts_nonfinite_word(const char *p, const char *end)
{
    if (p < end && (*p == '+' || *p == '-'))
        ++p;
    if (end - p >= 3) {
        char a = (char)(p[0] | 0x20), b = (char)(p[1] | 0x20), c = (char)(p[2] | 0x20);
        if ((a == 'n' && b == 'a' && c == 'n') || (a == 'i' && b == 'n' && c == 'f'))
            return 1;
    }
    return 0;
}

/* Copies [p, q) into a NUL-terminated buffer for the libc fallback, writing the current
 * locale's decimal point for '.', so strtof/strtod read the number the same way in any
 * LC_NUMERIC (a program running under, say, de_DE would otherwise stop at the '.'). */
static int copy_token(const char *p, const char *q, char buf[MB_NUM_MAX_TOKEN + 16])
{
    size_t n = (size_t)(q - p);
    if (n > MB_NUM_MAX_TOKEN)
        return 0;
    const char *dp = localeconv()->decimal_point;
    size_t dn = dp ? strlen(dp) : 0;
    if (dn == 0 || dn > 8 || (dn == 1 && dp[0] == '.')) {
        memcpy(buf, p, n);
        buf[n] = '\0';
        return 1;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        if (p[i] == '.') { /* at most one '.' in the grammar */
            memcpy(buf + k, dp, dn);
            k += dn;
        } else {
            buf[k++] = p[i];
        }
    }
    buf[k] = '\0';
    return 1;
}

mb_num_result mb_parse_float_(const char *p, const char *end, float *out, const char **next)
{
    /* The usual motion-data spellings without the grammar walk below (same answers). */
    const char *q = mb_parse_float_swar_(p, end, out);
    if (q) {
        *next = q;
        return MB_NUM_OK;
    }
    scan_ s;
    if (!scan_number(p, end, &s))
        return starts_nonfinite_word(p, end) ? MB_NUM_NONFINITE : MB_NUM_SYNTAX;
    *next = s.end_of_number;
    if (s.mantissa == 0) {
        *out = s.negative ? -0.0f : 0.0f;
        return MB_NUM_OK;
    }
    /* Exact without libc when the digits fit (see mb_num_exact_float_ for why). */
    if (s.digits <= 19 && s.mantissa < (UINT64_C(1) << 53) && s.exp10 >= -22 && s.exp10 <= 22 &&
        mb_num_exact_float_(s.mantissa, (int)s.exp10, s.negative, out))
        return MB_NUM_OK;
    char buf[MB_NUM_MAX_TOKEN + 16];
    if (!copy_token(p, s.end_of_number, buf))
        return MB_NUM_TOO_LONG;
    float f = strtof(buf, NULL);
    if (isinf(f) || isnan(f)) /* the grammar has no nan/inf words: only overflow gets here */
        return MB_NUM_RANGE;
    *out = f;
    return MB_NUM_OK;
}

mb_num_result mb_parse_double_(const char *p, const char *end, double *out, const char **next)
{
    scan_ s;
    if (!scan_number(p, end, &s))
        return starts_nonfinite_word(p, end) ? MB_NUM_NONFINITE : MB_NUM_SYNTAX;
    *next = s.end_of_number;
    if (s.mantissa == 0) {
        *out = s.negative ? -0.0 : 0.0;
        return MB_NUM_OK;
    }
    /* Exact without libc (and so without the locale's decimal point) in the usual case. */
    if (s.digits <= 19 && s.mantissa < (UINT64_C(1) << 53) && s.exp10 >= -22 && s.exp10 <= 22) {
        double d = (double)s.mantissa;
        d = s.exp10 < 0 ? d / pow10_exact[-s.exp10] : d * pow10_exact[s.exp10];
        *out = s.negative ? -d : d;
        return MB_NUM_OK;
    }
    char buf[MB_NUM_MAX_TOKEN + 16];
    if (!copy_token(p, s.end_of_number, buf))
        return MB_NUM_TOO_LONG;
    double d = strtod(buf, NULL);
    if (!isfinite(d))
        return MB_NUM_RANGE;
    *out = d;
    return MB_NUM_OK;
}
