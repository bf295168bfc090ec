/* Private pieces of the skin layer: the kernels behind mb_skin_run. */
#ifndef MB_SKIN_INTERNAL_H
#define MB_SKIN_INTERNAL_H

#include "mblend/skin.h"

/* A kernel skins vertices [begin, end) of a validated desc. The portable kernel handles
 * every case; the AVX2 + FMA one (x86-64, chosen at run time) too. */
typedef void (*mb_skin_kernel_fn_)(const mb_skin_desc *d, int begin, int end);

void mb_skin_kernel_generic_(const mb_skin_desc *d, int begin, int end);

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define MB_SKIN_HAVE_AVX2_ 1
void mb_skin_kernel_avx2_(const mb_skin_desc *d, int begin, int end);
#endif

/* Which kernel mb_skin_run uses: 0 automatic (default), 1 generic, 2 AVX2 (falls back
 * to generic when the CPU lacks it). For tests and benchmarks; not thread-safe to change
 * while another thread skins. Returns the kernel that will run (1 or 2). */
int mb_skin_force_kernel_(int which);

#endif
