/* The skinning kernel for AVX-512 (F + VL + DQ + BW), compiled with a target pragma
 * whatever the build flags and only called after a run-time CPU check (skin.c).
 *
 * LBS, 16 vertices per block, four groups of four:
 *   weights: the block's raw weights are normalised together (in-lane sums, one division
 *     for 16 vertices; a zero sum makes the first weight 1) into a small stack buffer, its
 *     indices widened to byte offsets into the palette beside them;
 *   blend: a palette matrix is one 16-float register, so each influence is one load and
 *     one FMA with the weight broadcast from the buffer;
 *   transform: the four blended matrices of a group are transposed by 128-bit lanes into
 *     column registers (C0 = column 0 of the four vertices, ...), and four positions
 *     (x y z per lane) are spread in-lane, so p' = C0 x + C1 y + C2 z + C3 is three FMAs
 *     for four vertices, the normal's two FMAs and a multiply;
 *   loads and stores: packed 12-byte vertices are read with one expanding load and written
 *     with one compress and two stores per group (nothing past a vertex's 12 bytes is
 *     touched); other strides go one vertex at a time;
 *   prefetch: every stream PREFETCH_ vertices ahead (the outputs for writing), which is what
 *     brings it near the memory floor on meshes that do not fit in cache.
 * The last vertex_count % 16 vertices and DQS run the AVX2 kernel (this CPU has AVX2). */
#include "runtime/skin/skin_internal.h"

#ifdef MB_SKIN_HAVE_AVX512_

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512dq,avx512bw,avx2,fma")
#endif

#include <immintrin.h>

#define INLINE static inline __attribute__((always_inline))

INLINE const float *at(const float *base, int stride, int v)
{
    return (const float *)((const char *)base + (size_t)v * (size_t)stride);
}
INLINE float *at_mut(float *base, int stride, int v)
{
    return (float *)((char *)base + (size_t)v * (size_t)stride);
}

/* The normalised weights and palette byte offsets of 16 vertices, 4 slots each (slots past
 * the influence count: weight 0, offset 0). */
typedef struct block_ {
    _Alignas(64) float w[64]; /* 64-byte aligned: its 512-bit stores must not split lines
                                 (unaligned, the kernel ran 20% slower in some processes) */
    _Alignas(64) int32_t off[64];
} block_;

/* Four vertices' raw weights (one vertex per 128-bit lane) -> normalised: each lane divided
 * by its sum; a lane summing to 0 becomes (1 0 0 0). inv holds 1 / sum per vertex of the
 * block (element 4l + g for group g, lane l). */
INLINE __m512 normalise4(__m512 w, __m512 inv, int g)
{
    const __m512 first = _mm512_setr_ps(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0);
    __m512 s = _mm512_add_ps(w, _mm512_permute_ps(w, _MM_SHUFFLE(2, 3, 0, 1)));
    s = _mm512_add_ps(s, _mm512_permute_ps(s, _MM_SHUFFLE(1, 0, 3, 2)));
    __mmask16 zero = _mm512_cmp_ps_mask(s, _mm512_setzero_ps(), _CMP_LE_OQ);
    __m512 ig = _mm512_permutexvar_ps(_mm512_add_epi32(_mm512_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12),
                                                       _mm512_set1_epi32(g)),
                                      inv);
    return _mm512_mask_mov_ps(_mm512_mul_ps(w, ig), zero, first);
}

/* Four influences per vertex: 16 vertices' weights and indices straight from vectors. */
INLINE void block4(const mb_skin_desc *d, int v, int u8, block_ *b)
{
    __m512 w[4];
    for (int g = 0; g < 4; ++g) {
        if (u8) {
            const uint16_t *jw = (const uint16_t *)d->joint_weights + (size_t)(v + 4 * g) * 4u;
            w[g] = _mm512_cvtepi32_ps(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)jw)));
        } else {
            w[g] = _mm512_loadu_ps((const float *)d->joint_weights + (size_t)(v + 4 * g) * 4u);
        }
    }
    /* the sums of the 16 vertices in one register (element 4l + g: vertex 4g + l) */
    __m512 s[4];
    for (int g = 0; g < 4; ++g) {
        __m512 t = _mm512_add_ps(w[g], _mm512_permute_ps(w[g], _MM_SHUFFLE(2, 3, 0, 1)));
        s[g] = _mm512_add_ps(t, _mm512_permute_ps(t, _MM_SHUFFLE(1, 0, 3, 2)));
    }
    __m512 all = _mm512_mask_mov_ps(s[0], 0x2222, s[1]);
    all = _mm512_mask_mov_ps(all, 0x4444, s[2]);
    all = _mm512_mask_mov_ps(all, 0x8888, s[3]);
    __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.0f), all);
    for (int g = 0; g < 4; ++g)
        _mm512_storeu_ps(b->w + 16 * g, normalise4(w[g], inv, g));
    for (int h = 0; h < 4; ++h) {
        __m512i ix;
        if (u8)
            ix = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(const void *)((const uint8_t *)d->joint_indices + (size_t)(v + 4 * h) * 4u)));
        else
            ix = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)((const uint16_t *)d->joint_indices + (size_t)(v + 4 * h) * 4u)));
        _mm512_storeu_si512(b->off + 16 * h, _mm512_slli_epi32(ix, 6)); /* 64 bytes a matrix */
    }
}

/* Fewer influences: one vertex at a time through the shared loader. */
INLINE void block_n(const mb_skin_desc *d, int v, int n, int u8, block_ *b)
{
    for (int j = 0; j < 16; ++j) {
        int idx[4] = {0, 0, 0, 0};
        float w[4] = {0, 0, 0, 0};
        float inv = mb_skin_load_raw_(d, v + j, n, u8, idx, w);
        for (int k = 0; k < 4; ++k) {
            b->w[4 * j + k] = k < n ? w[k] * inv : 0.0f;
            b->off[4 * j + k] = k < n ? idx[k] * 64 : 0;
        }
    }
}

/* A palette matrix: one 512-bit load when the palette is 64-byte aligned, else two
 * 256-bit halves (an unaligned 512-bit load splits a cache line every time; see
 * README_skin.md). */
INLINE __m512 load_matrix(const char *p, int aligned)
{
    if (aligned)
        return _mm512_load_ps(p);
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps((const float *)(const void *)p)),
                              _mm256_loadu_ps((const float *)(const void *)(p + 32)), 1);
}

/* The blended matrix of vertex j of the block. */
INLINE __m512 blend(const char *pal, const block_ *b, int j, int n, int aligned)
{
    __m512 m = _mm512_mul_ps(_mm512_set1_ps(b->w[4 * j]), load_matrix(pal + b->off[4 * j], aligned));
    for (int k = 1; k < n; ++k)
        m = _mm512_fmadd_ps(_mm512_set1_ps(b->w[4 * j + k]), load_matrix(pal + b->off[4 * j + k], aligned), m);
    return m;
}

/* Four vec3 (x y z 0 per lane). */
INLINE __m512 load4(const float *p, int stride)
{
    if (stride == 12)
        return _mm512_maskz_expandloadu_ps(0x7777, p);
    __m512 r = _mm512_castps128_ps512(_mm_maskz_loadu_ps(0x7, p));
    r = _mm512_insertf32x4(r, _mm_maskz_loadu_ps(0x7, at(p, stride, 1)), 1);
    r = _mm512_insertf32x4(r, _mm_maskz_loadu_ps(0x7, at(p, stride, 2)), 2);
    return _mm512_insertf32x4(r, _mm_maskz_loadu_ps(0x7, at(p, stride, 3)), 3);
}

/* Lanes' x y z to four vertices; 12 bytes each. */
INLINE void store4(float *p, int stride, __m512 v)
{
    if (stride == 12) {
        /* a 256-bit and a 128-bit store: one 512-bit masked store measured 20% slower on
         * the whole job (1M vertices) */
        __m512 c = _mm512_maskz_compress_ps(0x7777, v);
        _mm256_storeu_ps(p, _mm512_castps512_ps256(c));
        _mm_storeu_ps(p + 8, _mm512_extractf32x4_ps(c, 2));
        return;
    }
    _mm_mask_storeu_ps(p, 0x7, _mm512_castps512_ps128(v));
    _mm_mask_storeu_ps(at_mut(p, stride, 1), 0x7, _mm512_extractf32x4_ps(v, 1));
    _mm_mask_storeu_ps(at_mut(p, stride, 2), 0x7, _mm512_extractf32x4_ps(v, 2));
    _mm_mask_storeu_ps(at_mut(p, stride, 3), 0x7, _mm512_extractf32x4_ps(v, 3));
}

/* Vertices v .. v+3 (group j0 .. j0+3 of the block): their skinned positions (x y z 0 per
 * lane) in *op and normals in *on. */
INLINE void group4(const mb_skin_desc *d, const block_ *b, int v, int j0, int n, int normals,
                   int aligned, __m512 *op, __m512 *on)
{
    const char *pal = (const char *)&d->palette[0][0];
    __m512 ma = blend(pal, b, j0, n, aligned), mb = blend(pal, b, j0 + 1, n, aligned);
    __m512 mc = blend(pal, b, j0 + 2, n, aligned), md = blend(pal, b, j0 + 3, n, aligned);
    /* by 128-bit lanes: c[i] = column i of the four vertices */
    __m512 t0 = _mm512_shuffle_f32x4(ma, mb, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 t1 = _mm512_shuffle_f32x4(ma, mb, _MM_SHUFFLE(3, 2, 3, 2));
    __m512 t2 = _mm512_shuffle_f32x4(mc, md, _MM_SHUFFLE(1, 0, 1, 0));
    __m512 t3 = _mm512_shuffle_f32x4(mc, md, _MM_SHUFFLE(3, 2, 3, 2));
    __m512 c0 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(2, 0, 2, 0));
    __m512 c1 = _mm512_shuffle_f32x4(t0, t2, _MM_SHUFFLE(3, 1, 3, 1));
    __m512 c2 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(2, 0, 2, 0));
    __m512 c3 = _mm512_shuffle_f32x4(t1, t3, _MM_SHUFFLE(3, 1, 3, 1));
    __m512 p = load4(at(d->positions, d->positions_stride, v), d->positions_stride);
    __m512 o = _mm512_fmadd_ps(c2, _mm512_permute_ps(p, 0xAA), c3);
    o = _mm512_fmadd_ps(c1, _mm512_permute_ps(p, 0x55), o);
    o = _mm512_fmadd_ps(c0, _mm512_permute_ps(p, 0x00), o);
    if (normals) {
        __m512 q = load4(at(d->normals, d->normals_stride, v), d->normals_stride);
        __m512 r = _mm512_mul_ps(c2, _mm512_permute_ps(q, 0xAA));
        r = _mm512_fmadd_ps(c1, _mm512_permute_ps(q, 0x55), r);
        *on = _mm512_fmadd_ps(c0, _mm512_permute_ps(q, 0x00), r);
    }
    *op = o;
}

/* ---------- non-temporal output streams ----------
 * A mesh whose outputs are larger than the caches is written with non-temporal stores of
 * whole 64-byte lines: the lines are not read before being written (the read for
 * ownership a normal store costs), which is a quarter of the bytes the job moves with
 * positions and normals. A packed (stride 12) output at any 4-byte alignment: each block
 * of 16 vertices is 48 floats, packed into three registers, shifted by the stream's
 * misalignment m (floats past a line) with the previous block's last m floats; the first
 * and last partial lines go through masked normal stores, nothing outside the range is
 * written. */
typedef struct stream_ {
    float *line;  /* the 64-byte aligned address of the next full line (after the first) */
    __m512i idx;  /* element i: i + 16 - m (vpermt2ps: previous block's tail, then this) */
    __m512 carry; /* the previous block's 16 floats (its last m are not written yet) */
    int m, first;
} stream_;

INLINE void stream_init(stream_ *st, float *p)
{
    st->m = (int)((uintptr_t)p / 4u % 16u);
    st->line = p - st->m;
    st->idx = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                               _mm512_set1_epi32(16 - st->m));
    st->carry = _mm512_setzero_ps();
    st->first = 1;
}

/* The 48 floats of four groups' x y z (lanes) as three registers of packed vertices. */
INLINE void pack48(const __m512 o[4], __m512 z[3])
{
    z[0] = _mm512_permutex2var_ps(o[0], _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20), o[1]);
    z[1] = _mm512_permutex2var_ps(o[1], _mm512_setr_epi32(5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25), o[2]);
    z[2] = _mm512_permutex2var_ps(o[2], _mm512_setr_epi32(10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25, 26, 28, 29, 30), o[3]);
}

INLINE void stream_block(stream_ *st, const __m512 o[4])
{
    __m512 z[3];
    pack48(o, z);
    if (st->m == 0) {
        _mm512_stream_ps(st->line, z[0]);
        _mm512_stream_ps(st->line + 16, z[1]);
        _mm512_stream_ps(st->line + 32, z[2]);
    } else {
        __m512 a = _mm512_permutex2var_ps(st->carry, st->idx, z[0]);
        if (st->first) /* the range starts m floats into this line */
            _mm512_mask_storeu_ps(st->line, (__mmask16)(0xFFFFu << st->m), a);
        else
            _mm512_stream_ps(st->line, a);
        _mm512_stream_ps(st->line + 16, _mm512_permutex2var_ps(z[0], st->idx, z[1]));
        _mm512_stream_ps(st->line + 32, _mm512_permutex2var_ps(z[1], st->idx, z[2]));
        st->carry = z[2];
    }
    st->first = 0;
    st->line += 48;
}

/* The last block's last m floats, the start of a line the range ends in. */
INLINE void stream_end(stream_ *st)
{
    if (st->m && !st->first)
        _mm512_mask_storeu_ps(st->line, (__mmask16)((1u << st->m) - 1u),
                              _mm512_permutex2var_ps(st->carry, st->idx, st->carry));
}

/* Software prefetch PREFETCH_ vertices ahead: every input stream for reading, both outputs
 * for writing. Measured on 1M vertices (DRAM): without it this kernel ran at 5.0 ns per
 * vertex (positions + normals) against the AVX2 kernel's 3.7; reads ahead alone gave 3.4,
 * with the outputs 3.0 (128 to 1024 vertices ahead did the same; see README_skin.md). */
#define PREFETCH_ 256

INLINE void prefetch_read(const void *p, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += 64)
        _mm_prefetch((const char *)p + o, _MM_HINT_T0);
}
INLINE void prefetch_write(void *p, size_t bytes)
{
    for (size_t o = 0; o < bytes; o += 64)
        __builtin_prefetch((char *)p + o, 1, 3);
}

/* The 16 vertices from a on. */
INLINE void prefetch16(const mb_skin_desc *d, int a, int n, int u8, int normals)
{
    size_t wb = u8 ? 2u : 4u, ib = u8 ? 1u : 2u;
    prefetch_read(at(d->positions, d->positions_stride, a), (size_t)d->positions_stride * 16u);
    prefetch_read((const char *)d->joint_weights + (size_t)a * (size_t)n * wb, (size_t)n * 16u * wb);
    prefetch_read((const char *)d->joint_indices + (size_t)a * (size_t)n * ib, (size_t)n * 16u * ib);
    prefetch_write(at_mut(d->out_positions, d->out_positions_stride, a),
                   (size_t)d->out_positions_stride * 16u);
    if (normals) {
        prefetch_read(at(d->normals, d->normals_stride, a), (size_t)d->normals_stride * 16u);
        prefetch_write(at_mut(d->out_normals, d->out_normals_stride, a),
                       (size_t)d->out_normals_stride * 16u);
    }
}

/* 1 when vertices [begin, end) are written through streams: packed outputs larger than
 * mb_skin_stream_min_bytes_ together. */
static int use_streams(const mb_skin_desc *d, int begin, int end, int normals)
{
    size_t bytes = (size_t)(end - begin) * 12u * (normals ? 2u : 1u);
    if (bytes < mb_skin_stream_min_bytes_ || d->out_positions_stride != 12)
        return 0;
    if ((uintptr_t)d->out_positions % 4u != 0)
        return 0;
    return !normals || (d->out_normals_stride == 12 && (uintptr_t)d->out_normals % 4u == 0);
}

INLINE void lbs16(const mb_skin_desc *d, int begin, int end, int n, int u8, int normals,
                  int aligned)
{
    block_ b;
    stream_ sp = {0}, sn = {0}; /* initialised for the compiler: set by stream_init when used */
    int streams = use_streams(d, begin, end, normals);
    if (streams) {
        stream_init(&sp, at_mut(d->out_positions, 12, begin));
        if (normals)
            stream_init(&sn, at_mut(d->out_normals, 12, begin));
    }
    for (int v = begin; v < end; v += 16) {
        if (v + PREFETCH_ + 16 <= end)
            prefetch16(d, v + PREFETCH_, n, u8, normals);
        if (n == 4)
            block4(d, v, u8, &b);
        else
            block_n(d, v, n, u8, &b);
        /* read the buffer back from memory (broadcast loads, scalar loads): left to itself
         * GCC 12 keeps it in registers and extracts every weight and offset with shuffles */
        __asm__ volatile("" ::: "memory");
        __m512 op[4], on[4];
        for (int g = 0; g < 4; ++g) {
            group4(d, &b, v + 4 * g, 4 * g, n, normals, aligned, &op[g], &on[g]);
            if (streams)
                continue;
            int w = v + 4 * g;
            if (normals)
                store4(at_mut(d->out_normals, d->out_normals_stride, w), d->out_normals_stride, on[g]);
            store4(at_mut(d->out_positions, d->out_positions_stride, w), d->out_positions_stride, op[g]);
        }
        if (streams) {
            stream_block(&sp, op);
            if (normals)
                stream_block(&sn, on);
        }
    }
    if (streams) {
        stream_end(&sp);
        if (normals)
            stream_end(&sn);
        _mm_sfence(); /* non-temporal stores are weakly ordered: done before we return */
    }
}

#define CASE_(n)                                                                           \
    case n:                                                                                \
        if (u8)                                                                            \
            d->normals ? lbs16(d, begin, end, n, 1, 1, AL) : lbs16(d, begin, end, n, 1, 0, AL); \
        else                                                                               \
            d->normals ? lbs16(d, begin, end, n, 0, 1, AL) : lbs16(d, begin, end, n, 0, 0, AL); \
        break;

/* LBS on [begin, end), end - begin a multiple of 16; AL: the palette is 64-byte aligned. */
#define AL 1
static void lbs_blocks_aligned(const mb_skin_desc *d, int begin, int end)
{
    int u8 = d->format == MB_SKIN_U8_UNORM16;
    switch (d->influences) {
    CASE_(1)
    CASE_(2)
    CASE_(3)
    default:
    CASE_(4)
    }
}
#undef AL
#define AL 0
static void lbs_blocks_unaligned(const mb_skin_desc *d, int begin, int end)
{
    int u8 = d->format == MB_SKIN_U8_UNORM16;
    switch (d->influences) {
    CASE_(1)
    CASE_(2)
    CASE_(3)
    default:
    CASE_(4)
    }
}
#undef AL
#undef CASE_

void mb_skin_kernel_avx512_(const mb_skin_desc *d, int begin, int end)
{
    int mid = d->method == MB_SKIN_LBS ? begin + (end - begin) / 16 * 16 : begin;
    if (mid > begin)
        ((uintptr_t)d->palette % 64u == 0 ? lbs_blocks_aligned : lbs_blocks_unaligned)(d, begin, mid);
    if (mid < end)
        mb_skin_kernel_avx2_(d, mid, end);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else
/* No AVX-512 kernel on this target (ISO C wants a declaration in every file). */
typedef int mb_skin_kernel_avx512_unused_;
#endif
