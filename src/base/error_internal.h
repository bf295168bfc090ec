/* Filling an mb_error: one implementation for every layer (the contract is in base.h).
 * A public function that takes an mb_error calls mb_error_clear_ on entry; after that the
 * first mb_error_set_ / mb_error_set_at_ wins and later ones do nothing, so a caller's
 * reason is never overwritten by a more generic one further up the stack. */
#ifndef MB_ERROR_INTERNAL_H
#define MB_ERROR_INTERNAL_H

#include "mblend/base.h"

/* name, or dflt when name is NULL: the source of a message about an optional name. */
static inline const char *mb_name_(const char *name, const char *dflt) { return name ? name : dflt; }

/* Clears *err (code MB_OK, no source, position or text); err may be NULL. */
void mb_error_clear_(mb_error *err);

/* When err is not NULL and holds no error yet (code MB_OK): sets it to code, source
 * (NULL: "<memory>"), no position, and the printf-formatted text. Returns code either way,
 * so callers can `return mb_error_set_(...)`. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
mb_status mb_error_set_(mb_error *err, mb_status code, const char *source, const char *fmt, ...);

/* The same with a 1-based line and column (a parser's position). */
#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
mb_status mb_error_set_at_(mb_error *err, mb_status code, const char *source, int line,
                           int column, const char *fmt, ...);

#endif
