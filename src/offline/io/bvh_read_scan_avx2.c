/* The BVH reader's values kernel for AVX2 (bvh_read_internal.h), compiled with a target
 * pragma whatever the build flags and called only after the run-time check of the
 * dispatch: whitespace masks from two 32-byte compares, numbers of up to 16 bytes parsed
 * with SSE4.1 (part of every AVX2 CPU). */
#include "offline/io/bvh_read_internal.h"

#ifdef MB_BVH_HAVE_AVX2_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,popcnt"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,popcnt")
#endif

#include <immintrin.h>

/* Bit i set when p[i] (i < 64) is ' ' or 9..13: equal to ' ', or c - 9 <= 4 unsigned. */
static inline uint64_t ws64_avx2(const char *p)
{
    uint64_t m = 0;
    for (int h = 0; h < 2; ++h) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * h));
        __m256i t = _mm256_sub_epi8(v, _mm256_set1_epi8(9));
        __m256i ctl = _mm256_cmpeq_epi8(_mm256_min_epu8(t, _mm256_set1_epi8(4)), t);
        __m256i sp = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(' '));
        m |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(ctl, sp)) << (32 * h);
    }
    return m;
}

#define MB_SCAN_WS64_ ws64_avx2
#define MB_SCAN_NAME_ mb_bvh_values_avx2_
#include "offline/io/bvh_read_scan.inc"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int mb_bvh_scan_avx2_unused_; /* ISO C forbids an empty translation unit */
#endif
