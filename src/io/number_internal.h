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
 * On success *out holds the value (within 1 ulp of strtof on the same text) and *next
 * points just past it; the caller checks what follows (whitespace or end).
 * Stops at the first character that cannot continue the number. */
mb_num_result mb_parse_float_(const char *p, const char *end, float *out, const char **next);

/* Same grammar, full double precision (through strtod), for header values that are
 * written back verbatim (the frame time). */
mb_num_result mb_parse_double_(const char *p, const char *end, double *out, const char **next);

#endif
