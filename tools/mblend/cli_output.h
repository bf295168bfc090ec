/* Output checks and the writers the commands share. */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include "cli_load.h"

/* 1 when paths a and b name the same file: the same inode where both exist, the same
 * canonical directory and name where neither does. */
int cli_same_file(const char *a, const char *b);

/* A --report destination must not be a directory, the output (outp, may be NULL) or one of
 * the n input files: a usage error (printed; returns CLI_EXIT_USAGE), else CLI_EXIT_OK. Checked
 * before anything is written, so a report that cannot go into place fails before the output
 * does. */
int cli_check_report(const char *cmd, const char *report, const char *outp,
                     const char *const *inputs, int n);

/* The output must not be one of the n input files (NULL entries are skipped): a usage
 * error (printed; CLI_EXIT_USAGE), else CLI_EXIT_OK. (convert, a re-export, may rewrite its
 * input in place; the commands that make something new may not.) */
int cli_check_output(const char *cmd, const char *outp, const char *const *inputs, int n);

/* The BVH writer's settings for output on src's skeleton: a glTF/FBX scene's nodes all have
 * position channels, so joints the clip holds still are written with rotations only, their
 * translation as the OFFSET, and moving ones over OFFSET 0 (portable_offsets: three.js,
 * which adds OFFSET to the channels, reads the same motion). A BVH source keeps its own
 * OFFSETs and channels. */
mb_bvh_write_desc cli_bvh_desc(const cli_clip *src);

/* OUT.glb: skeleton, mesh and clip (named name) as one binary glTF. The mesh is src's own (a
 * scene with a mesh); a BVH skeleton gets a generated capsule skin and is turned from its
 * up axis (1..3: X, Y, Z, as the caller's analysis found it; 0: analyse clip here) to
 * glTF's +Y. */
int cli_write_glb(const char *cmd, const char *outp, const cli_clip *src,
                  const mb_clip *clip, const char *name, mb_axis up_axis, float scale);
/* As cli_write_glb; cyclic non-zero: clip is a cyclic blend (one period, its last frame
 * running on into its first). The loop's closing key follows the library's rule,
 * mb_gltf_loop_kind (cli_write_glb: the clip's own loop, as preparation detects it). */
int cli_write_glb_loop(const char *cmd, const char *outp, const cli_clip *src,
                       const mb_clip *clip, const char *name, mb_axis up_axis, float scale,
                       int cyclic);

/* Writes s as one CSV field (RFC 4180): as it is, or in double quotes with its quotes
 * doubled when it holds a comma, a quote or a line break (BVH joint names may). */
void cli_csv_field(FILE *f, const char *s);

#endif
