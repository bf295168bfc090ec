/* The BVH reader's values kernel for AVX-512 (bvh_read_internal.h), compiled with a target
 * pragma whatever the build flags and called only after the run-time check of the
 * dispatch: the whitespace mask of 64 bytes from two compares straight into a mask
 * register, numbers of up to 16 bytes parsed with SSE4.1 as in the AVX2 kernel. */
#include "offline/io/bvh_read_internal.h"

#ifdef MB_BVH_HAVE_AVX512_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,popcnt"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx2,popcnt")
#endif

#include <immintrin.h>
#include <stdint.h>

#include "offline/io/number_internal.h"

/* Bit i set when p[i] (i < 64) is ' ' or 9..13: equal to ' ', or c - 9 <= 4 unsigned. */
static inline uint64_t ws64_avx512(const char *p)
{
    __m512i v = _mm512_loadu_si512((const void *)p);
    __mmask64 sp = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(' '));
    __mmask64 ctl = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(9)),
                                           _mm512_set1_epi8(4));
    return (uint64_t)(sp | ctl);
}

/* The powers of ten of mb_num_pow10_ (10^-22 .. 10^22, index e10 + 22) in six registers,
 * picked by three two-register permutes. */
typedef struct pow_tab_ {
    __m512d t[6];
} pow_tab_;

static inline pow_tab_ pow_tab_load(void)
{
    pow_tab_ pt;
    for (int i = 0; i < 6; ++i)
        pt.t[i] = _mm512_loadu_pd(mb_num_pow10_ + 8 * i);
    return pt;
}

static inline __m512d pow_tab_get(const pow_tab_ *pt, __m512i idx)
{
    __m512d p = _mm512_permutex2var_pd(pt->t[0], idx, pt->t[1]);
    p = _mm512_mask_mov_pd(p, _mm512_cmpge_epu64_mask(idx, _mm512_set1_epi64(16)),
                           _mm512_permutex2var_pd(pt->t[2], idx, pt->t[3]));
    return _mm512_mask_mov_pd(p, _mm512_cmpge_epu64_mask(idx, _mm512_set1_epi64(32)),
                              _mm512_permutex2var_pd(pt->t[4], idx, pt->t[5]));
}

/* Per 128-bit lane of w (digit values 0..9 per byte): in 32-bit element j the 4-digit
 * value of bytes 4j..4j+3. */
static inline __m512i digits4(__m512i w)
{
    __m512i t = _mm512_maddubs_epi16(w, _mm512_set1_epi16(0x010a)); /* bytes 10, 1 */
    return _mm512_madd_epi16(t, _mm512_set1_epi32(0x00010064));     /* words 100, 1 */
}

/* 1 in the qwords 2l (l < 4) whose lane l holds a set byte of the byte mask k. */
static inline __mmask8 lanes_of(__mmask64 k)
{
    __mmask8 q = _mm512_test_epi64_mask(_mm512_movm_epi8(k), _mm512_set1_epi8(-1));
    return (__mmask8)((q | (q >> 1)) & 0x55);
}

/* Four numbers [base + st[l], base + en[l]) (l < 4), each of 1..16 bytes readable from
 * its end - 16, into out[0..3]: one token per 128-bit lane, right-aligned, in the steps of
 * the SSE parser (bvh_read_scan.inc, parse16) done for the four at once, the checks as
 * 64-bit masks (16 bits per lane). Takes [+-]digits[.digits] (a digit somewhere) and, the
 * way exporters print exponents, [+-]digits.digits[eE][+-]d{1,4} with the exponent in the
 * last four bytes. All or nothing: returns 0, nothing written, when any of the four is not
 * one of these, has a mantissa of 2^53 or more, a decimal exponent beyond +-22, or falls
 * in the undecided window; the caller then parses them one by one. The conversion is
 * mb_num_exact_float_'s on four doubles (the same product, power table and window), so
 * the bits are mb_parse_float_'s. */
static inline int group4_avx512(const char *base, const uint32_t *st, const uint32_t *en,
                                const pow_tab_ *pt, float *out)
{
    __m128i n4 = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(const void *)en),
                               _mm_loadu_si128((const __m128i *)(const void *)st));
    if (_mm_movemask_epi8(_mm_cmpgt_epi32(n4, _mm_set1_epi32(16))))
        return 0;
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)(base + en[0] - 16)));
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(base + en[1] - 16)), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(base + en[2] - 16)), 2);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)(const void *)(base + en[3] - 16)), 3);
    /* every byte of lane l: n_l; a byte i of a lane is in the token when i + n >= 16 */
    __m512i nb = _mm512_permutexvar_epi32(
        _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3), _mm512_castsi128_si512(n4));
    nb = _mm512_shuffle_epi8(nb, _mm512_setzero_si512());
    const __m512i iota = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    uint64_t tok = _mm512_cmpgt_epi8_mask(_mm512_add_epi8(iota, nb), _mm512_set1_epi8(15));
    __m512i d = _mm512_sub_epi8(v, _mm512_set1_epi8('0'));
    uint64_t md = _mm512_mask_cmple_epu8_mask(tok, d, _mm512_set1_epi8(9));
    __mmask64 kdot = _mm512_mask_cmpeq_epi8_mask(tok, v, _mm512_set1_epi8('.'));
    __mmask64 ke = _mm512_mask_cmpeq_epi8_mask(tok, _mm512_or_si512(v, _mm512_set1_epi8(0x20)),
                                               _mm512_set1_epi8('e'));
    uint64_t mdot = kdot, me = ke;
    uint64_t first = tok & ~((tok << 1) & 0xfffefffefffefffeu); /* each token's first byte */
    uint64_t esign = (me << 1) & 0xfffefffefffefffeu;           /* the byte after an 'e' */
    __mmask64 kminus = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('-'));
    uint64_t msigns = (kminus | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('+'))) & (first | esign);
    /* every byte a digit, the '.', an 'e' or a sign where one may stand; the last byte a
     * digit or a '.' after a digit; a digit or a '.' after a digit before an 'e' */
    const uint64_t last = 0x8000800080008000u;
    int bad = (md | mdot | me | msigns) != tok || ((md | (mdot & (md << 1))) & last) != last ||
              ((((md << 1) & 0xfffefffefffefffeu) |
                ((mdot << 1) & (md << 2) & 0xfffcfffcfffcfffcu)) & me) != me;
    /* Per-lane masks in 64-bit arithmetic (the vector unit is the busier one): L: bit 0 of
     * each lane holding a '.' (or an 'e'); x - L then only clears a lane's lowest set bit
     * and sets the bits below it, without a borrow into the next lane. */
    const uint64_t lo15 = 0x7fff7fff7fff7fffu;
    uint64_t ldot = ((((mdot & lo15) + lo15) | mdot) & last) >> 15;
    uint64_t le = ((((me & lo15) + lo15) | me) & last) >> 15;
    uint64_t below_dot = mdot - ldot, below_e = me - le;
    uint64_t before = mdot | below_dot;                /* bytes at or before the '.' */
    uint64_t kexp = ~below_e & (le * 0xffffu);         /* bytes at or after the 'e' */
    /* a second '.' or 'e'; a '.' at or after the 'e'; an 'e' without a '.'; exponent
     * digits before byte 12 */
    bad |= (mdot & below_dot) != 0 || (me & below_e) != 0 || (mdot & kexp) != 0 ||
           (le & ~ldot) != 0 ||
           (md & kexp & 0x0fff0fff0fff0fffu) != 0;
    if (bad)
        return 0;
    /* the integer digits move up one byte over the '.'; the exponent's bytes count as
     * zeros, which the power below takes back (they lie after the '.') */
    __m512i dz = _mm512_maskz_mov_epi8(md & ~kexp, d);
    __m512i t = digits4(_mm512_mask_blend_epi8(before, dz, _mm512_bslli_epi128(dz, 1)));
    t = _mm512_packus_epi32(t, t);
    t = _mm512_madd_epi16(t, _mm512_set1_epi32(0x00012710)); /* words 10000, 1 */
    /* qword 2l: m of lane l = first 8 digits * 1e8 + last 8 */
    __m512i m = _mm512_add_epi64(_mm512_mul_epu32(t, _mm512_set1_epi64(100000000)),
                                 _mm512_srli_epi64(t, 32));
    /* the exponent: the 4-digit group of bytes 12..15 of the exponent digits, signed */
    __m512i ex = _mm512_shuffle_epi32(digits4(_mm512_maskz_mov_epi8(md & kexp, d)), _MM_PERM_DDDD);
    ex = _mm512_and_si512(ex, _mm512_set1_epi64(0xffffffff));
    ex = _mm512_mask_sub_epi64(ex, lanes_of(kminus & esign), _mm512_setzero_si512(), ex);
    /* c bytes at or before the '.' leave 16 - c after it, the digits of the fraction and
     * the exponent's bytes (c = 0: no '.', and c = 16: a final '.', leave none): the
     * decimal exponent is ex - (16 - c) % 16, at index 22 + that of the table */
    __m512i cnt = _mm512_sad_epu8(_mm512_maskz_set1_epi8(before, 1), _mm512_setzero_si512());
    cnt = _mm512_add_epi64(cnt, _mm512_bsrli_epi128(cnt, 8));
    __m512i frac = _mm512_and_si512(_mm512_sub_epi64(_mm512_set1_epi64(16), cnt), _mm512_set1_epi64(15));
    __m512i idx = _mm512_sub_epi64(_mm512_add_epi64(ex, _mm512_set1_epi64(22)), frac);
    __mmask8 range = _mm512_cmpgt_epu64_mask(idx, _mm512_set1_epi64(44));
    __mmask8 big = _mm512_cmpge_epu64_mask(m, _mm512_set1_epi64((int64_t)1 << 53));
    __m512d dv = _mm512_mul_pd(_mm512_cvtepu64_pd(m), pow_tab_get(pt, idx));
    __m512i lowb = _mm512_sub_epi64(_mm512_and_si512(_mm512_castpd_si512(dv), _mm512_set1_epi64(0x1fffffff)),
                                    _mm512_set1_epi64(0x10000000 - 8));
    __mmask8 undecided = _mm512_cmple_epu64_mask(lowb, _mm512_set1_epi64(16));
    if ((range | big | undecided) & 0x55)
        return 0;
    dv = _mm512_mask_xor_pd(dv, lanes_of(kminus & first), dv, _mm512_set1_pd(-0.0));
    __m256 f = _mm512_cvtpd_ps(dv);
    f = _mm256_permutevar8x32_ps(f, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    _mm_storeu_ps(out, _mm256_castps256_ps128(f));
    return 1;
}

/* put_bits of bvh_read_scan.inc by compression: the positions off + 0..63 whose bits are
 * set in m, 16 at a time, packed to dst[n..] (writes up to 16 entries past the new n, in
 * the window's slack); no branch and no chain of bit clearing per token. */
static inline int put_bits_avx512(uint32_t *dst, int n, uint32_t off, uint64_t m)
{
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m512i base = _mm512_add_epi32(iota, _mm512_set1_epi32((int)off));
    for (int q = 0; q < 4; ++q) {
        __mmask16 k = (__mmask16)(m >> (16 * q));
        _mm512_storeu_si512((void *)(dst + n),
                            _mm512_maskz_compress_epi32(k, _mm512_add_epi32(base, _mm512_set1_epi32(16 * q))));
        n += __builtin_popcount((unsigned)k);
    }
    return n;
}

#define MB_SCAN_PUT_BITS_ put_bits_avx512
#define MB_SCAN_GROUP4_ group4_avx512
#define MB_SCAN_GROUP4_STATE_ pow_tab_
#define MB_SCAN_GROUP4_INIT_ pow_tab_load
#define MB_SCAN_WS64_ ws64_avx512
#define MB_SCAN_NAME_ mb_bvh_values_avx512_
#include "offline/io/bvh_read_scan.inc"

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
typedef int mb_bvh_scan_avx512_unused_; /* ISO C forbids an empty translation unit */
#endif
