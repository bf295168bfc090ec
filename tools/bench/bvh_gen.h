/* Deterministic in-memory BVH text for the reader benchmarks (no files, no data sets).
 *
 * A 60-joint humanoid (spine, neck, head, arms with roll joints and five 3-joint fingers,
 * legs with toes; 13 End Sites, so 73 nodes), root with 6 channels, the others with 3
 * rotation channels in mixed Euler orders (all six appear). Values are smooth per channel
 * like captured motion and printed like real exporters: mostly "%.4f", some "%.6f", some
 * scientific ("%.6e"), a few explicit '+' signs, "-0.0000" for tiny negatives. */
#ifndef MB_BENCH_BVH_GEN_H
#define MB_BENCH_BVH_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_text {
    char *text;          /* NUL-terminated (the strtod baseline needs it); len excludes it */
    size_t len;
    size_t motion_off;   /* first byte after the "Frame Time:" line: the motion values */
    int frames;
    int joints;          /* joints with channels (60) */
    int nodes;           /* joints + End Sites (the clip's joint count) */
    int channels;        /* values per frame */
    long long values;    /* frames * channels */
} bench_text;

/* One step of the fixed 64-bit LCG (Knuth's MMIX constants); returns the high 32 bits. */
uint32_t bench_lcg(uint64_t *state);

/* Generates the text. frames > 0: exactly that many frames; otherwise as many frames as
 * fit in target_bytes (at least one). Returns 0 on success, -1 when out of memory. */
int bench_gen(uint64_t seed, size_t target_bytes, int frames, bench_text *out);
void bench_text_free(bench_text *t);

/* One random decimal string into o (at least 96 bytes, NUL-terminated; returns its
 * length): 1..20 significant digits, value exponent -45..+38, plain, scientific,
 * integer-mantissa, leading- and trailing-point spellings, random signs. */
size_t bench_random_decimal(uint64_t *st, char *o);

#endif
