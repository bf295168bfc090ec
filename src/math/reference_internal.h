/* Double-precision core of the reference quaternion, shared with the blend layer. */
#ifndef MB_REFERENCE_INTERNAL_H
#define MB_REFERENCE_INTERNAL_H

#include "mblend/math.h"

/* Top eigenvector of the symmetric 4x4 m (column-major), canonical sign; relative gap. */
mb_status mb_quat_reference_d_(const double m[16], double out[4], double *out_gap);
/* Makes the first non-zero of w, x, y, z positive. */
void mb_quat_canonical_sign_(double q[4]);

#endif
