/* Private helpers of the Euler code. */
#ifndef MB_EULER_INTERNAL_H
#define MB_EULER_INTERNAL_H

#include "mblend/math.h"

/* The order whose axes are (a0, a1, a2), each 0..2 and distinct; XYZ otherwise. */
mb_euler_order mb_euler_order_from_axes_(int a0, int a1, int a2);

#endif
