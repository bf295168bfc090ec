/* The BVH reader's values kernels by ISA (bvh_read_internal.h) and the portable one:
 * whitespace masks 8 bytes per step in a 64-bit word (SWAR), numbers through the inline
 * SWAR parser of number_internal.h. */
#include "offline/io/bvh_read_internal.h"

#include <stdint.h>
#include <string.h>

#include "offline/io/number_internal.h"

#ifdef MB_NUM_SWAR_
/* Bit i set when p[i] (i < 64) is ' ' or 9..13 (tab, LF, VT, FF, CR). Per byte of a word:
 * a zero test of c ^ ' ', and the range 9..13 as two subtractions from c | 0x80 (no borrow
 * crosses bytes) on bytes below 0x80; the high bits then gather into 8 bits by one
 * multiply (byte i's bit lands on bit 56 + i). */
static inline uint64_t ws64_swar(const char *p)
{
    const uint64_t hi = 0x8080808080808080u, lo7 = 0x7f7f7f7f7f7f7f7fu;
    uint64_t m = 0;
    for (int w = 0; w < 8; ++w) {
        uint64_t v;
        memcpy(&v, p + 8 * w, 8);
        uint64_t x = v ^ 0x2020202020202020u;
        uint64_t is_sp = ~(((x & lo7) + lo7) | x) & hi;
        uint64_t ge9 = ((v | hi) - 0x0909090909090909u) & hi;
        uint64_t ge14 = ((v | hi) - 0x0e0e0e0e0e0e0e0eu) & hi;
        uint64_t ws = is_sp | (ge9 & ~ge14 & ~v & hi);
        m |= (((ws >> 7) * 0x0102040810204080u) >> 56) << (8 * w);
    }
    return m;
}
#define MB_SCAN_WS64_ ws64_swar
#endif

#define MB_SCAN_NAME_ mb_bvh_values_generic_
static int mb_bvh_values_generic_(mb_bvh_tokens_ *tk, const char *begin, const char **at,
                                  const char *end, float *out, int n);
#include "offline/io/bvh_read_scan.inc"

static const mb_bvh_values_fn_ values_kernels[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = mb_bvh_values_generic_,
#ifdef MB_BVH_HAVE_AVX2_
    [MB_ISA_AVX2_] = mb_bvh_values_avx2_,
#endif
#ifdef MB_BVH_HAVE_AVX512_
    [MB_ISA_AVX512_] = mb_bvh_values_avx512_,
#endif
};
#ifdef MB_BVH_HAVE_AVX2_
#define BUILT_AVX2_ MB_ISA_BIT_(MB_ISA_AVX2_)
#else
#define BUILT_AVX2_ 0u
#endif
#ifdef MB_BVH_HAVE_AVX512_
#define BUILT_AVX512_ MB_ISA_BIT_(MB_ISA_AVX512_)
#else
#define BUILT_AVX512_ 0u
#endif

#define BUILT_ (MB_ISA_BIT_(MB_ISA_GENERIC_) | BUILT_AVX2_ | BUILT_AVX512_)

mb_bvh_values_fn_ mb_bvh_values_kernel_(mb_isa_ isa)
{
    return values_kernels[mb_isa_select_(isa, BUILT_)];
}
