/* The batched Euler sin/cos kernel compiled for AVX-512 (F, VL, DQ, BW) whatever the build
 * flags (a target pragma), called only after a run-time CPU check (euler.c): eight lanes
 * of the same multiplies and adds as the portable kernel. The target leaves FMA out and
 * the build compiles ISO C (no floating-point contraction), so every lane rounds as the
 * scalar code and the reader's quaternions do not depend on the machine. */
#include "math/euler_internal.h"

#ifdef MB_EULER_HAVE_AVX512_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw"))), apply_to = function)
#pragma STDC FP_CONTRACT OFF
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw")
#endif

#define MB_EULER_SINCOS_EXTERN_ 1
#define MB_EULER_SINCOS_NAME_ mb_euler_sincos_half_deg_avx512_
#define MB_EULER_COMPOSE_NAME_ mb_euler_compose_avx512_
#include "math/euler_sincos.inc"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int mb_euler_avx512_unused_; /* ISO C forbids an empty translation unit */
#endif
