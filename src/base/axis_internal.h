/* Checking an mb_axis taken from a caller's desc. */
#ifndef MB_AXIS_INTERNAL_H
#define MB_AXIS_INTERNAL_H

#include "mblend/base.h"

/* 1 for MB_AXIS_DETECT, X, Y, Z; 0 for any other value a caller may have stored. */
static inline int mb_axis_valid_(mb_axis a) { return (unsigned)a <= (unsigned)MB_AXIS_Z; }

#endif
