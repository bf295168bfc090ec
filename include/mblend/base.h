/* mblend/base.h: the base types every layer uses: status codes, the error contract, the up
 * axis, allocator hooks, transforms and pose views. No I/O (atomic file output is
 * offline/file.h), no objects. See docs/architecture.md for the layers.
 *
 * Conventions (fixed for the whole library):
 * - Angles are radians everywhere in the API. BVH files store degrees; the BVH reader and
 *   writer convert at the boundary.
 * - Lengths are in the units of the source file (BVH: whatever the file uses, often cm or
 *   inches); mblend never rescales silently.
 * - Quaternions are float[4] stored x, y, z, w, unit length. q and -q are the same rotation.
 * - Matrices are float[16], column-major (OpenGL/cglm layout): element (row r, col c) is
 *   m[c * 4 + r]; the translation is m[12], m[13], m[14].
 * - Right-handed coordinates. The up axis is whatever the source uses (BVH: usually +Y,
 *   sometimes +Z); tools that need it detect it or take it as a parameter. It is always an
 *   mb_axis (below): MB_AXIS_X, _Y, _Z name the positive direction of that axis as up;
 *   MB_AXIS_DETECT (0, so a zeroed desc detects) is accepted only where a desc asks for an
 *   axis, never returned: every output (mb_motion_info.up_axis, mb_state_set_up_axis) is
 *   X, Y or Z. mb_axis_index gives the component index (0, 1, 2) for indexing a float[3].
 * - A local transform maps child space to parent space: p_parent = pos + rot * p_child.
 *   world(child) = world(parent) * T(pos) * R(rot).
 * - Joints are stored parents-first: parent[i] < i, the root has parent -1.
 * - Every fallible function returns mb_status; errors follow one contract (mb_error below).
 *   Outputs come last in argument lists, before the mb_error.
 */
#ifndef MBLEND_BASE_H
#define MBLEND_BASE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MB_BUILDING_LIBRARY) && defined(__GNUC__)
#define MB_API __attribute__((visibility("default")))
#else
#define MB_API
#endif

/* An axis, for the up axis everywhere in the API (see the conventions above). */
typedef enum mb_axis {
    MB_AXIS_DETECT = 0, /* in descs only: detect from the motion (or take it from the format) */
    MB_AXIS_X = 1,
    MB_AXIS_Y = 2,
    MB_AXIS_Z = 3
} mb_axis;

/* The component index of a (MB_AXIS_X, _Y, _Z: 0, 1, 2), e.g. pos[mb_axis_index(up)];
 * a must not be MB_AXIS_DETECT. */
static inline int mb_axis_index(mb_axis a) { return (int)a - (int)MB_AXIS_X; }

/* One table for the status codes and their strings (X-macro). */
#define MB_STATUS_TABLE(X)                                                        \
    X(MB_OK, "ok")                                                                \
    X(MB_INVALID_ARG, "invalid argument")                                         \
    X(MB_TOO_SMALL, "buffer too small")                                           \
    X(MB_NOMEM, "out of memory")                                                  \
    X(MB_IO, "input/output error")                                                \
    X(MB_PARSE, "parse error")                                                    \
    X(MB_LIMIT, "limit exceeded")                                                 \
    X(MB_MISMATCH, "mismatch")                                                    \
    X(MB_NUMERIC, "numeric error")

typedef enum mb_status {
#define MB_STATUS_ENUM_(name, str) name,
    MB_STATUS_TABLE(MB_STATUS_ENUM_)
#undef MB_STATUS_ENUM_
    MB_STATUS_COUNT_
} mb_status;

/* A static string for s; never NULL ("unknown status" for values outside the enum). */
MB_API const char *mb_status_str(mb_status s);

/* Where and why something failed. Caller-owned.
 *
 * The error contract (the whole library, like jansson's json_error_t):
 * - Every fallible offline function takes a nullable mb_error * as its last argument
 *   (NULL: status only): readers and writers, mb_file_*, mb_skeleton_create,
 *   mb_clip_create, mb_clip_alloc, mb_mesh_create, mb_clip_map, mb_skin_generate,
 *   mb_skin_rigid_bones, mb_motion_analyze, mb_motion_contacts, mb_motion_find_cycle,
 *   preparation (mb_clip_prepare, ...), mb_clip_blend,
 *   mb_blend_rotations_run, mb_transition_build / _plan_find / _measure, mb_match_find,
 *   mb_state_set_create, mb_controller_create, mb_source_*.
 * - It clears the error on entry (code MB_OK, empty source and text), so one mb_error can
 *   be reused from call to call and holds nothing after a success.
 * - The first error set during the call is the one reported: a deeper, more precise
 *   reason is never overwritten by a caller's more generic one.
 * - code is the status the function returns; source names the file, the name given to a
 *   memory loader or the object ("skeleton", "clip", "state set", "match", ...); line and
 *   column are 1-based (column counts bytes, a tab is one column), 0 when the error has
 *   no position (e.g. a file that cannot be opened). text never repeats the position.
 * - Status only, by design: the per-frame runtime jobs (mb_blend_run, mb_skin_run,
 *   mb_skin_palette_run, mb_skin_dq_palette, mb_fk, mb_clip_sample, mb_clip_frame_pose,
 *   mb_skeleton_rest_pose, mb_quat_reference, mb_controller_update and the controller's
 *   other per-frame calls) allocate nothing and format no strings in the hot path; they
 *   fail only on arguments a caller can check, documented with each. The name parsers
 *   (mb_blend_method_parse, mb_euler_order_parse) fail only on an unknown name, and
 *   mb_skin_desc_from_mesh (filling views, no allocation) only on NULLs. */
typedef struct mb_error {
    mb_status code;
    int line, column;
    char source[256]; /* file name, name given to a memory loader, or the object */
    char text[256];   /* message a person can act on, without the position prefix */
} mb_error;

/* Formats "source:line:col: text" (or "source: text" without a position) into buf,
 * always NUL-terminated when size > 0. Returns buf. */
MB_API char *mb_error_format(const mb_error *e, char *buf, size_t size);

/* Allocator hooks; a zeroed struct means malloc/free. alloc must return memory aligned
 * for any type (like malloc). */
typedef struct mb_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} mb_allocator;

/* A local joint transform: rotation (unit quaternion x,y,z,w) and translation. */
typedef struct mb_xform {
    float rot[4];
    float pos[3];
} mb_xform;

/* A caller-owned view of count local transforms, one per skeleton joint. */
typedef struct mb_pose {
    mb_xform *joints;
    int count;
} mb_pose;

#ifdef __cplusplus
}
#endif
#endif
