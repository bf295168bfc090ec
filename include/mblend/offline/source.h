/* mblend/offline/source.h: opening a clip named the way users name one ("walk.bvh", "Fox.glb#Walk").
 *
 * Offline: opening reads and allocates. One loader serves the CLI, the Python package and any
 * program that takes clip names from a user, so they all accept the same names and report the
 * same errors. Thread safety: an mb_source is immutable after mb_source_open; distinct sources
 * may be opened from distinct threads (with probe off; see below). */
#ifndef MBLEND_OFFLINE_SOURCE_H
#define MBLEND_OFFLINE_SOURCE_H

#include "../runtime/anim.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest file part and animation part of a spec (bytes, without the terminating NUL). */
#define MB_SOURCE_FILE_MAX 1023
#define MB_SOURCE_ANIM_MAX 255

typedef struct mb_source mb_source;

typedef struct mb_source_desc {
    /* BVH: a Frames line that disagrees with the data is a warning, not an error, and the
     * frames present are loaded. */
    int lenient;
    /* Non-zero: a glTF/FBX/X/... file is first read in a child process (POSIX fork), so a
     * file the importer (assimp) crashes on is reported as MB_PARSE instead of ending the
     * calling process; about one extra read. The CLI and the Python package set it. Do not
     * set it in a process whose other threads may hold locks the importer takes (malloc's
     * are safe on glibc). */
    int probe;
    /* Optional: receives the first warning (code MB_OK when there is none). */
    mb_error *warning;
} mb_source_desc;

/* Opens spec: a BVH file ("walk.bvh"; also any file whose text starts with HIERARCHY, and a
 * pipe or device), or an animation of a scene file read through assimp ("Fox.glb#Walk";
 * "Fox.glb" alone is its first animation). A '#' splits the spec only when no regular file
 * has the whole name; the first '#' whose left part is a regular file splits it, so an
 * animation name may hold '#' or '/' itself. d may be NULL (all zero).
 * Failures (err, nullable, is cleared first and says why; source = the file):
 * MB_INVALID_ARG for a malformed spec (empty file or animation part, a part too long, '#'
 * after a BVH file); the BVH reader's and scene reader's errors as they report them (MB_IO,
 * MB_PARSE, MB_LIMIT, MB_NOMEM, ...); MB_IO when the build has no assimp and the file is not
 * BVH; MB_PARSE when the probe saw the importer crash; MB_MISMATCH when the scene has no
 * animation of that name (the message lists the ones it has). *out is set only on success. */
MB_API mb_status mb_source_open(const char *spec, const mb_source_desc *d, mb_source **out,
                                mb_error *err);
MB_API void mb_source_destroy(mb_source *s); /* NULL is a no-op */

/* What was opened; valid while s lives. */
MB_API const mb_skeleton *mb_source_skeleton(const mb_source *s);
MB_API const mb_clip *mb_source_clip(const mb_source *s);
/* The scene for a scene file (its mesh, its other animations), NULL for BVH. */
MB_API const mb_scene *mb_source_scene(const mb_source *s);
MB_API const char *mb_source_file(const mb_source *s);  /* the file part of the spec */
MB_API const char *mb_source_anim(const mb_source *s);  /* the animation part, "" if none */
/* The up axis the source's format fixes: MB_AXIS_DETECT for BVH (unknown: analyse the
 * motion), MB_AXIS_Y for glTF and assimp. */
MB_API mb_axis mb_source_up_axis(const mb_source *s);

/* Reads a whole scene file (glTF/FBX/X/... through assimp) with the checks of mb_source_open:
 * MB_IO without assimp, MB_PARSE when d->probe is set and the importer crashed in the child,
 * else what mb_scene_read_file reports. d may be NULL. For callers that need the scene itself
 * (its mesh), not one of its animations. */
MB_API mb_status mb_source_read_scene(const char *path, const mb_source_desc *d, mb_scene **out,
                                      mb_error *err);

/* Whether path is read as BVH: its name ends in .bvh (any case), or its text starts with
 * HIERARCHY (after an optional UTF-8 byte order mark and white space, any case), or it is
 * not a regular file (a pipe cannot be sniffed and read again). */
MB_API int mb_source_is_bvh(const char *path);

/* Splits spec into file and animation parts by the rule of mb_source_open (anim "" when
 * there is no '#'). MB_INVALID_ARG (err, nullable) for the malformed specs listed there. */
MB_API mb_status mb_source_split(const char *spec, char *file, size_t file_size, char *anim,
                                 size_t anim_size, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif
