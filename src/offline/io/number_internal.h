/* Fast decimal-to-float parsing for the BVH reader (and its benchmark).
 * Written by hand because libc's strtof is locale-dependent, needs a NUL-terminated
 * buffer and runs at about 1/3 of the speed the reader needs. */
#ifndef MB_NUMBER_INTERNAL_H
#define MB_NUMBER_INTERNAL_H

typedef enum mb_num_result {
    MB_NUM_OK,
    MB_NUM_SYNTAX,   /* not a number at all */
    MB_NUM_NONFINITE,/* nan / inf spelled out */
    MB_NUM_RANGE,    /* a finite decimal beyond the float (or double) range, e.g. 1e39 */
    MB_NUM_TOO_LONG  /* needs the libc fallback and has more than MB_NUM_MAX_TOKEN bytes */
} mb_num_result;

#define MB_NUM_MAX_TOKEN 400

/* Parses one number starting at p (before end): [+-](digits[.digits]|.digits)([eE][+-]digits).
 * On success *out holds the value correctly rounded to float, the same float as strtof
 * gives for the same text (an exact fast path, mb_num_exact_float_, for up to 19
 * significant digits and decimal exponents within +-22; strtof for the rest), and *next
 * points just past it; the caller checks what follows (whitespace or end).
 * Stops at the first character that cannot continue the number. */
mb_num_result mb_parse_float_(const char *p, const char *end, float *out, const char **next);

/* Same grammar, full double precision (through strtod), for header values that are
 * written back verbatim (the frame time). */
mb_num_result mb_parse_double_(const char *p, const char *end, double *out, const char **next);

/* ---------- inline fast path for the motion loop ---------- */

#include <stdint.h>
#include <string.h>

/* 10^e for e in -22..22 (index e + 22): exact for e >= 0, the nearest double for e < 0;
 * three 1.0 pad it to six vectors of eight (the AVX-512 kernel loads it whole). */
extern const double mb_num_pow10_[48];

/* The exact conversion shared by every fast path: m * 10^e10 rounded to the nearest float
 * (ties to even, as strtof), for m < 2^53 and -22 <= e10 <= 22; the sign is applied by
 * flipping the sign bit (so "-0" gives -0.0). Returns 0, nothing written, in the rare case
 * it cannot decide (the caller then takes strtof).
 *
 * Why it is exact. (double)m is exact (m < 2^53), and 10^e10 is exact for e10 >= 0 or
 * within 2^-53 (relative) of 10^e10 for e10 < 0; d is the one correctly rounded product,
 * so |d - x| <= (2^-53 + 2^-53 + 2^-106) |x| < 2^-51.9 |x| for the exact x = m 10^e10,
 * which is at most 4.3 units in the last place of d (ulps of a double, in d's binade or the
 * one below). Rounding to float is monotonic and constant between two consecutive float
 * midpoints (a midpoint is a 25-bit number, exact in double: in d's binade its low 29
 * mantissa bits are 1 followed by 28 zeros; the nearest midpoints of a neighbouring binade
 * are 2^27 ulps away). So when d's low 29 bits are more than 8 from that pattern, no
 * midpoint lies between x and d (or on either), and (float)d == the correctly rounded x.
 * Otherwise (a chance of about 2^-25 for arbitrary digits; true midpoints such as
 * 16777217 land here) the answer is 0. The range keeps d a normal float: 1e-22 <= x <
 * 2^53 * 1e22 < FLT_MAX, so there is no overflow and no subnormal to round differently. */
static inline int mb_num_exact_float_(uint64_t m, int e10, int negative, float *out)
{
    double d = (double)m * mb_num_pow10_[e10 + 22];
    uint64_t db;
    memcpy(&db, &d, 8);
    if ((db & 0x1fffffffu) - (0x10000000u - 8u) <= 16u)
        return 0;
    float f = (float)d;
    uint32_t fb;
    memcpy(&fb, &f, 4);
    /* The sign by flipping the sign bit: signs are random in motion data, and a branch on
     * them was mispredicted about every other value. */
    fb ^= (uint32_t)(negative != 0) << 31;
    memcpy(out, &fb, 4);
    return 1;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Leading ASCII digits among the 8 bytes at p (8: all eight), and their values (0..9 per
 * byte, first digit in the low byte) in *dv; bytes after the first non-digit are junk. */
static inline int mb_digit_run_(const char *p, uint64_t *dv)
{
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t x = v - 0x3030303030303030u;
    uint64_t nd = (x | (x + 0x7676767676767676u)) & 0x8080808080808080u;
    *dv = x;
    return nd ? __builtin_ctzll(nd) >> 3 : 8;
}

/* Value of the first n (1..8) digits of a mb_digit_run_ result (3 multiplies, no loop). */
static inline uint64_t mb_digits_value_(uint64_t x, int n)
{
    x <<= 8 * (8 - n); /* drops the junk; the vacated low bytes act as leading zeros */
    x = (x * 10u + (x >> 8)) & 0x00ff00ff00ff00ffu;
    x = (x * 100u + (x >> 16)) & 0x0000ffff0000ffffu;
    return (x * 10000u + (x >> 32)) & 0xffffffffu;
}
#define MB_NUM_SWAR_ 1
#endif

/* The inline fast path for the way mocap exporters print numbers: [+-], up to 7 digits,
 * optional '.' and up to 7 digits, optional e[+-]d{1,3}, when 32 bytes are readable at p.
 * Returns the end of the number with *out set, or NULL (nothing written) for anything
 * else, which then goes to mb_parse_float_: the grammar and the errors stay the same, and
 * values are correctly rounded (mb_num_exact_float_). Returning the end pointer, rather
 * than storing it through an out parameter, lets a caller's loop keep it in a register. */
static inline const char *mb_parse_float_swar_(const char *p, const char *end, float *out)
{
#ifdef MB_NUM_SWAR_
    static const uint32_t p10u[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
    if (end - p < 32)
        return NULL;
    const char *s = p + (*p == '-' || *p == '+');
    uint64_t x, m = 0;
    int n1 = mb_digit_run_(s, &x), n2 = 0;
    if (n1 == 8)
        return NULL;
    if (n1)
        m = mb_digits_value_(x, n1);
    s += n1;
    if (*s == '.') {
        n2 = mb_digit_run_(++s, &x);
        if (n2 == 8)
            return NULL;
        if (n2) {
            m = m * p10u[n2] + mb_digits_value_(x, n2);
            s += n2;
        }
    }
    if (n1 + n2 == 0)
        return NULL;
    int e10 = -n2;
    if ((*s | 0x20) == 'e') { /* "1e" / "1e+" without digits: the number ends before 'e' */
        const char *e = s + 1 + (s[1] == '-' || s[1] == '+');
        int ne = mb_digit_run_(e, &x);
        if (ne > 3)
            return NULL;
        if (ne) {
            int ev = (int)mb_digits_value_(x, ne);
            e10 += s[1] == '-' ? -ev : ev;
            s = e + ne;
        }
    }
    if (e10 < -22 || e10 > 22 || !mb_num_exact_float_(m, e10, *p == '-', out))
        return NULL;
    return s;
#else
    (void)p;
    (void)end;
    (void)out;
    return NULL;
#endif
}

/* mb_parse_float_ with the inline fast path in front (same contract as mb_parse_float_). */
#define MB_HAVE_PARSE_FLOAT_FAST_ 1 /* lets tools/bench check it too */
static inline mb_num_result mb_parse_float_fast_(const char *p, const char *end, float *out,
                                                 const char **next)
{
    const char *s = mb_parse_float_swar_(p, end, out);
    if (!s)
        return mb_parse_float_(p, end, out, next);
    *next = s;
    return MB_NUM_OK;
}

#endif
