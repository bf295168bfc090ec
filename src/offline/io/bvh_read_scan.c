/* The BVH reader's values kernels by ISA (bvh_read_internal.h) and the portable one. */
#include "offline/io/bvh_read_internal.h"

#include <stdint.h>
#include <string.h>

#include "offline/io/number_internal.h"


/* The portable kernel: one value after another, as the scalar loop of the reader, without
 * the token window (measured: a portable 64-byte mask in a 64-bit word and the window cost
 * more than they saved, 452 against 575 MB/s for the reader). Where the next value starts
 * comes from one 16-byte whitespace mask (SSE2, the x86-64 baseline) rather than from the
 * end of the parse, so the parse of one value and the search for the next overlap. Stops
 * 32 bytes before end (the SWAR parser's read-ahead) and at anything but a number ending
 * at whitespace; *at is then after the last value read, with only whitespace up to the
 * next token. */
static int mb_bvh_values_generic_(mb_bvh_tokens_ *tk, const char *begin, const char **at,
                                  const char *end, float *out, int n)
{
    (void)tk;
    (void)begin;
    const char *p = *at;
    int c = 0;
    for (; c < n; ++c) {
        const char *s = p;
        while (s < end && mb_bvh_is_space_(*s))
            ++s;
        if (end - s < 32)
            break;
#ifdef MB_BVH_SPACE_MASK16_
        unsigned sm = mb_bvh_space_mask16_(s);
        unsigned starts = ~sm & (sm << 1) & 0xffffu;
        if (starts && mb_parse_float_swar_(s, end, &out[c]) == s + __builtin_ctz(sm)) {
            p = s + __builtin_ctz(starts);
            continue;
        }
#endif
        const char *q = mb_parse_float_swar_(s, end, &out[c]);
        if (!q && mb_parse_float_(s, end, &out[c], &q) != MB_NUM_OK)
            break;
        if (q == end || !mb_bvh_is_space_(*q))
            break;
        p = q;
    }
    *at = p;
    return c;
}

static const mb_bvh_values_fn_ values_kernels[MB_ISA_COUNT_] = {
    [MB_ISA_GENERIC_] = mb_bvh_values_generic_,
#ifdef MB_BVH_HAVE_AVX2_
    [MB_ISA_AVX2_] = mb_bvh_values_avx2_,
#endif
#ifdef MB_BVH_HAVE_AVX512_
    [MB_ISA_AVX512_] = mb_bvh_values_avx512_,
#endif
};
#define BUILT_ MB_ISA_BUILT_(values_kernels)

mb_bvh_values_fn_ mb_bvh_values_kernel_(mb_isa_ isa)
{
    return values_kernels[mb_isa_select_(isa, BUILT_)];
}
