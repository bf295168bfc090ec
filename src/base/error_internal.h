/* Filling an mb_error: one implementation for every layer. */
#ifndef MB_ERROR_INTERNAL_H
#define MB_ERROR_INTERNAL_H

#include "mblend/base.h"

/* Sets *err (when err is not NULL) to code, source (NULL: "<memory>"), no position, and
 * the printf-formatted text; returns code so callers can `return mb_error_set_(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
mb_status mb_error_set_(mb_error *err, mb_status code, const char *source, const char *fmt, ...);

#endif
