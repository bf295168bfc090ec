/* Private pieces of the skin layer: the kernels behind mb_skin_run. */
#ifndef MB_SKIN_INTERNAL_H
#define MB_SKIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/cpu_internal.h"
#include "mblend/runtime/skin.h"

/* A kernel skins vertices [begin, end) of a validated desc. The portable kernel handles
 * every case; the AVX2 + FMA and AVX-512 ones (x86-64, chosen at run time) too. */
typedef void (*mb_skin_kernel_fn_)(const mb_skin_desc *d, int begin, int end);

void mb_skin_kernel_generic_(const mb_skin_desc *d, int begin, int end);

#ifdef MB_CPU_BUILD_AVX2_
#define MB_SKIN_HAVE_AVX2_ 1
void mb_skin_kernel_avx2_(const mb_skin_desc *d, int begin, int end);
#endif
#ifdef MB_CPU_BUILD_AVX512_
/* LBS on 16-vertex blocks; DQS and the last vertex_count % 16 vertices through the AVX2
 * kernel. */
#define MB_SKIN_HAVE_AVX512_ 1
void mb_skin_kernel_avx512_(const mb_skin_desc *d, int begin, int end);
#endif

/* The AVX-512 LBS kernel writes packed outputs with non-temporal stores (no read for
 * ownership; the lines leave the caches) when the range's outputs total at least this
 * many bytes: meshes larger than the caches. A variable so that tests can run the path on
 * small meshes; the default is MB_SKIN_STREAM_MIN_BYTES_. */
#define MB_SKIN_STREAM_MIN_BYTES_ ((size_t)8 << 20)
extern size_t mb_skin_stream_min_bytes_;

/* The kernel for an ISA (cpu_internal.h's scheme): the portable one for MB_ISA_GENERIC_,
 * the AVX2 + FMA one for MB_ISA_AVX2_ and the AVX-512 one for MB_ISA_AVX512_ where built
 * and the CPU has them; NULL otherwise (there is no SSE2 kernel). MB_ISA_AUTO_: the best of them the CPU runs, never NULL. */
mb_skin_kernel_fn_ mb_skin_kernel_(mb_isa_ isa);

/* mb_skin_run with the kernel of isa (MB_ISA_AUTO_ = what mb_skin_run uses); an ISA
 * without a kernel here gives MB_INVALID_ARG. For tests and benchmarks. */
mb_status mb_skin_run_isa_(const mb_skin_desc *desc, mb_isa_ isa);

#if defined(__GNUC__)
#define MB_SKIN_INLINE_ static inline __attribute__((always_inline))
#else
#define MB_SKIN_INLINE_ static inline
#endif

/* The scale for n raw weights summing to sum: 1 / sum; a zero sum makes the first weight 1
 * and the others 0 (the vertex follows its first joint), scale 1. */
MB_SKIN_INLINE_ float mb_skin_weight_scale_(float w[4], int n, float sum)
{
    if (sum > 0.0f)
        return 1.0f / sum;
    w[0] = 1.0f;
    for (int k = 1; k < n; ++k)
        w[k] = 0.0f;
    return 1.0f;
}

/* Indices and raw weights of vertex v (n influences, either format); returns their scale
 * (mb_skin_weight_scale_). Every kernel reads its influences through this (the AVX2 one
 * widens four unorm16 weights at once, then scales them here as well). */
MB_SKIN_INLINE_ float mb_skin_load_raw_(const mb_skin_desc *d, int v, int n, int u8, int idx[4],
                                        float w[4])
{
    float sum = 0.0f;
    for (int k = 0; k < n; ++k) {
        size_t i = (size_t)v * (size_t)n + (size_t)k;
        if (u8) {
            idx[k] = ((const uint8_t *)d->joint_indices)[i];
            w[k] = (float)((const uint16_t *)d->joint_weights)[i];
        } else {
            idx[k] = ((const uint16_t *)d->joint_indices)[i];
            w[k] = ((const float *)d->joint_weights)[i];
        }
        sum += w[k];
    }
    return mb_skin_weight_scale_(w, n, sum);
}

/* Defines entry(d, begin, end), dispatching on method, index format, influence count and
 * normals to lbs_fn / dqs_fn(d, begin, end, influences, u8, normals) called with constant
 * arguments, so each always-inline kernel is compiled once per combination. One macro
 * serves every kernel file (portable, AVX2). */
#define MB_SKIN_CASES_(fn, U8)                                                              \
    switch (d->influences) {                                                                \
    case 1: d->normals ? fn(d, begin, end, 1, U8, 1) : fn(d, begin, end, 1, U8, 0); break;  \
    case 2: d->normals ? fn(d, begin, end, 2, U8, 1) : fn(d, begin, end, 2, U8, 0); break;  \
    case 3: d->normals ? fn(d, begin, end, 3, U8, 1) : fn(d, begin, end, 3, U8, 0); break;  \
    default: d->normals ? fn(d, begin, end, 4, U8, 1) : fn(d, begin, end, 4, U8, 0); break; \
    }
#define MB_SKIN_DEFINE_ENTRY_(entry, lbs_fn, dqs_fn)                                        \
    static void entry##lbs_u8(const mb_skin_desc *d, int begin, int end)                   \
    {                                                                                      \
        MB_SKIN_CASES_(lbs_fn, 1)                                                          \
    }                                                                                      \
    static void entry##lbs_u16(const mb_skin_desc *d, int begin, int end)                  \
    {                                                                                      \
        MB_SKIN_CASES_(lbs_fn, 0)                                                          \
    }                                                                                      \
    static void entry##dqs_u8(const mb_skin_desc *d, int begin, int end)                   \
    {                                                                                      \
        MB_SKIN_CASES_(dqs_fn, 1)                                                          \
    }                                                                                      \
    static void entry##dqs_u16(const mb_skin_desc *d, int begin, int end)                  \
    {                                                                                      \
        MB_SKIN_CASES_(dqs_fn, 0)                                                          \
    }                                                                                      \
    void entry(const mb_skin_desc *d, int begin, int end)                                  \
    {                                                                                      \
        int u8 = d->format == MB_SKIN_U8_UNORM16;                                          \
        if (d->method == MB_SKIN_DQS)                                                      \
            (u8 ? entry##dqs_u8 : entry##dqs_u16)(d, begin, end);                          \
        else                                                                               \
            (u8 ? entry##lbs_u8 : entry##lbs_u16)(d, begin, end);                          \
    }

#endif
