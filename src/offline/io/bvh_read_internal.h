/* Private pieces of the BVH reader: the motion section's token scan and value kernels
 * (bvh_read_scan*.c), chosen through the dispatch of src/base/cpu_internal.h. */
#ifndef MB_BVH_READ_INTERNAL_H
#define MB_BVH_READ_INTERNAL_H

#include <stdint.h>

#include "base/cpu_internal.h"

/* The reader's whitespace: ' ' and 9..13 (tab, LF, VT, FF, CR). */
static inline int mb_bvh_is_space_(char c) { return c == ' ' || (unsigned char)(c - 9) < 5u; }

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#define MB_BVH_SPACE_MASK16_ 1
/* Bit i set when byte i of the 16 at p is whitespace for mb_bvh_is_space_ (the range 9..13
 * tested as a signed comparison on bytes offset by 0x80). */
static inline unsigned mb_bvh_space_mask16_(const char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i sp = _mm_cmpeq_epi8(v, _mm_set1_epi8(' '));
    __m128i t = _mm_xor_si128(_mm_sub_epi8(v, _mm_set1_epi8(9)), _mm_set1_epi8((char)0x80));
    __m128i ctl = _mm_cmplt_epi8(t, _mm_set1_epi8((char)(0x80 + 5)));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(sp, ctl));
}
#endif

/* Bytes of text one refill of the token window covers, and the window's capacity: a chunk
 * holds at most one token per two bytes; the slack takes the unconditional writes of the
 * index loops (up to 16 past the last real entry). */
#define MB_BVH_SCAN_CHUNK_ 4096
#define MB_BVH_TOK_CAP_ (MB_BVH_SCAN_CHUNK_ / 2 + 80)

/* A window of whitespace-separated tokens of the motion section: token k spans
 * [base + start[k], base + end[k]), end[k] being its first whitespace byte (whitespace as
 * mb_bvh_is_space_: ' ', '\t', '\n', '\v', '\f', '\r'). next is the first token not
 * consumed; count the tokens found (only whole ones: a token cut by the chunk's end is
 * left for the next refill). count = next = 0: empty, refilled on the next call. */
typedef struct mb_bvh_tokens_ {
    const char *base;
    uint32_t *start, *end; /* [MB_BVH_TOK_CAP_] each, owned by the caller */
    int count, next;
} mb_bvh_tokens_;

/* A values kernel: reads up to n values of the motion section into out (each after
 * optional whitespace) and returns how many it read; *at ends after the last one read,
 * with only whitespace between it and the next token. The AVX2 and AVX-512 kernels take
 * the tokens from tk's window (refilled from *at while it lasts); the portable one reads
 * one after another and leaves tk alone. A kernel stops early, at no cost to correctness,
 * wherever the caller's scalar loop must decide: a token that is not a plain number (the
 * scalar loop makes the message), the last bytes of the text (32 for the portable kernel,
 * 96 to 160 for the others), a token longer than a chunk. The caller then empties the window (count = next = 0) and reads the rest
 * of the row from *at with its scalar loop. begin: the first byte of the text (kernels
 * read up to 16 bytes before a token's end, never before begin); end: one past the last
 * byte. Values are mb_parse_float_'s, bit for bit. */
typedef int (*mb_bvh_values_fn_)(mb_bvh_tokens_ *tk, const char *begin, const char **at,
                                 const char *end, float *out, int n);

/* The kernel for isa (cpu_internal.h's scheme): generic (the scalar loop's way, a 16-byte
 * SSE2 whitespace mask where the build has SSE2), AVX2 (the token window from 32-byte
 * compares, numbers of up to 16 bytes parsed with SSE4.1) and AVX-512 (the window from
 * 64-byte compares into a mask register, four numbers per 512-bit register); NULL for an
 * ISA without one here (SSE2) or that the CPU lacks; MB_ISA_AUTO_: the best, never NULL. */
mb_bvh_values_fn_ mb_bvh_values_kernel_(mb_isa_ isa);

/* x86-64 only: the kernels move 64-bit masks and lanes to general registers. */
#if defined(MB_CPU_BUILD_AVX2_) && defined(__x86_64__)
#define MB_BVH_HAVE_AVX2_ 1
int mb_bvh_values_avx2_(mb_bvh_tokens_ *tk, const char *begin, const char **at,
                        const char *end, float *out, int n);
#endif
#if defined(MB_CPU_BUILD_AVX512_) && defined(__x86_64__)
#define MB_BVH_HAVE_AVX512_ 1
int mb_bvh_values_avx512_(mb_bvh_tokens_ *tk, const char *begin, const char **at,
                          const char *end, float *out, int n);
#endif

#endif
