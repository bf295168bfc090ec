/* The batched Euler sin/cos kernel compiled for AVX2 whatever the build flags (a target
 * pragma), called only after a run-time CPU check (euler.c). AVX2 without FMA: four lanes
 * of the same multiplies and adds, each rounded as in the baseline build, so the reader's
 * quaternions do not depend on the machine. */
#include "math/euler_internal.h"

#ifdef MB_EULER_HAVE_AVX2_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif

#define MB_EULER_SINCOS_EXTERN_ 1
#define MB_EULER_SINCOS_NAME_ mb_euler_sincos_half_deg_avx2_
#define MB_EULER_COMPOSE_NAME_ mb_euler_compose_avx2_
#include "math/euler_sincos.inc"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int mb_euler_avx2_unused_; /* ISO C forbids an empty translation unit */
#endif
