/* mblend/offline/bvh.h: BVH reader and writer.
 *
 * Semantics (see DESIGN.md): rotation channels are intrinsic in the order listed (the
 * order may differ per joint, the root may list rotations first); position channels
 * replace the joint's OFFSET; End Sites are kept as nodes named "<parent>_End"; keywords
 * match case-insensitively; any whitespace and line ending; values may wrap across lines;
 * a UTF-8 BOM is skipped. Angles in the file are degrees, in memory radians. */
#ifndef MBLEND_OFFLINE_BVH_H
#define MBLEND_OFFLINE_BVH_H

#include "../runtime/anim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MB_BVH_MAX_FILE_BYTES (8ull * 1024ull * 1024ull * 1024ull) /* mb_bvh_read_file */

typedef struct mb_bvh_read_desc {
    /* Non-zero: a file whose data holds fewer or more frames than its "Frames:" line
     * loads the complete frames actually present (up to the declared count) and reports
     * the mismatch through *warning instead of failing. */
    int lenient;
    mb_allocator allocator;    /* zero: malloc/free */
    mb_error *warning;         /* optional output: first warning (code MB_OK when none) */
} mb_bvh_read_desc;

/* Reads BVH text from memory (len bytes, need not be NUL-terminated). source names the
 * text in messages (may be NULL: "<memory>"). d may be NULL (defaults). A hierarchy
 * without any channel must declare "Frames: 0" (lenient: 0 frames and a warning). An
 * error at the end of the text points just past its last content. On success
 * *out_skel and *out_clip own new objects; on failure both are NULL and err (nullable)
 * says where and why: MB_PARSE (syntax, bad numbers, NaN/Inf, count mismatches),
 * MB_LIMIT (more joints, channels or frames than the limits in runtime/anim.h, checked before
 * allocating), MB_NOMEM, MB_INVALID_ARG (a NULL out_skel, or NULL text with len > 0;
 * NULL with len 0 is the empty text: MB_PARSE). out_clip may be NULL when only the
 * skeleton is wanted (the motion is still validated). */
MB_API mb_status mb_bvh_read_mem(const char *text, size_t len, const char *source,
                                 const mb_bvh_read_desc *d, mb_skeleton **out_skel,
                                 mb_clip **out_clip, mb_error *err);

/* Reads a file (up to MB_BVH_MAX_FILE_BYTES; pipes and devices are read in chunks) and
 * calls mb_bvh_read_mem. MB_IO when the file cannot be read or is a directory, MB_LIMIT
 * past the size limit. */
MB_API mb_status mb_bvh_read_file(const char *path, const mb_bvh_read_desc *d,
                                  mb_skeleton **out_skel, mb_clip **out_clip, mb_error *err);

typedef struct mb_bvh_write_desc {
    /* Non-zero: write every joint's rotation channels in `order` (three channels, in place
     * of its own rotation channels); the motion is unchanged. Zero keeps each joint's own
     * channel list. */
    int rewrite_order;
    mb_euler_order order;
    int precision;             /* significant digits for values; 0: 9 (float round trip) */
    /* Non-zero: a joint that is not a ROOT and whose translation is its OFFSET in every frame
     * (to within 1e-6 of the offset's size: the float noise blending and resampling leave)
     * is written without its position channels. For skeletons whose channel lists say
     * nothing, such as glTF/FBX scenes, where every node has 6. */
    int drop_still_positions;
    /* Non-zero: write positions so that readers that ADD a joint's OFFSET to its position
     * channels (three.js's BVHLoader) and readers that REPLACE it (mblend, assimp, Blender)
     * read the same motion. A joint other than a ROOT whose position channels hold one
     * value in every frame (float noise as above) is written without them, that value as
     * its OFFSET; a ROOT (which readers expect to have position channels) and a joint
     * whose translation moves keep their channels (absolute values) and get OFFSET 0 on
     * the axes they list. For clips that come from another format or
     * were made here (retargeted, blended from glTF), where the OFFSET is just the rest
     * translation; a BVH re-exported as BVH leaves this 0 and keeps its OFFSETs. Implies
     * drop_still_positions. */
    int portable_offsets;
    mb_allocator allocator;
} mb_bvh_write_desc;

/* Writes skeleton + clip as BVH text into a new buffer (*out_text, *out_len, NUL
 * terminated, freed with the desc's allocator or free()). Keeps hierarchy, names, End
 * Sites, channel lists and orders, frame count and frame time (shortest text that reads
 * back to the same double). Offsets are written as the shortest text that reads back to
 * the same float; motion values with at most `precision` significant digits (positions:
 * the shortest text that reads back to the same float where that is shorter, so the
 * default 9 is exact; rotations: the fewest decimals, or else significant digits, up to
 * `precision` (at most 9), whose triple the reader turns back into the very same float
 * rotation, so a file's own numbers come back as written; `precision` digits where none
 * does, as for angles moved by whole turns for continuity), rotations decomposed per joint
 * in its channel order (exact at gimbal lock too) and kept continuous from frame to frame
 * (within +-720 degrees). A skeleton stored parents-first but not depth-first is written
 * depth-first, as BVH requires. Fails with MB_MISMATCH when the clip's joint count is
 * not the skeleton's, MB_NUMERIC for non-finite values, MB_INVALID_ARG for names that
 * would not read back (braces, control characters, edge spaces, over 123 bytes), End
 * Sites with children or as the root, or frames on a skeleton without channels. */
MB_API mb_status mb_bvh_write_mem(const mb_skeleton *s, const mb_clip *c,
                                  const mb_bvh_write_desc *d, char **out_text,
                                  size_t *out_len, mb_error *err);

/* As mb_bvh_write_mem, to a file: written to a temporary file beside path (created
 * exclusively, data and folder fsynced) and renamed over it, so a failure never leaves a
 * partial or clobbered file; a replaced file keeps its permission bits. MB_IO on I/O
 * errors, with the step that failed in err. */
MB_API mb_status mb_bvh_write_file(const char *path, const mb_skeleton *s, const mb_clip *c,
                                   const mb_bvh_write_desc *d, mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
