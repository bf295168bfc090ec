/* mblend/offline/file.h: atomic file output (every mblend writer goes through it).
 * Offline: the per-frame runtime writes no files. */
#ifndef MBLEND_OFFLINE_FILE_H
#define MBLEND_OFFLINE_FILE_H

#include <stdio.h>

#include "../base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes len bytes to path safely: to a new temporary file beside it (created exclusively,
 * mode 0666 & ~umask), fsynced, renamed over path, folder fsynced; a replaced file keeps its
 * permission bits. A symbolic link is followed (the link stays; its target is replaced the
 * same way), and an existing device, FIFO or socket (/dev/null, a named pipe,
 * /proc/self/fd/1) is written in place, since renaming over it would replace the node;
 * opening a FIFO waits for its reader, as the shell's > does. A failure never leaves a partial or
 * clobbered regular file. MB_IO with the step that failed in err ("cannot write 'path':
 * reason (step)"; a directory is refused), MB_INVALID_ARG for an empty path. Every mblend
 * writer goes through it. */
MB_API mb_status mb_file_write_atomic(const char *path, const void *data, size_t len,
                                      mb_error *err);

/* The same for output produced piece by piece (a CSV report): open, write to f with stdio,
 * then commit (flush, fsync, rename into place) or discard (the temporary file is removed;
 * path is untouched). A device, FIFO or socket gets the output at commit only (it is held in
 * memory until then), so a discarded stream sends nothing. Open and commit fail as mb_file_write_atomic does (a failed commit
 * discards); discard never fails and accepts a stream that failed to open. Fields ending in
 * '_' are private. */
#define MB_FILE_PATH_MAX 4160
typedef struct mb_file_stream {
    FILE *f;                      /* write here between open and commit */
    char shown_[MB_FILE_PATH_MAX]; /* the path as given (for messages) */
    char dest_[MB_FILE_PATH_MAX];  /* after symbolic links */
    char tmp_[MB_FILE_PATH_MAX];   /* the temporary file ('\0': none) */
    int direct_;                  /* a device, FIFO or socket: written in place at commit */
    int fd_;                      /* its descriptor */
    char *mem_;                   /* and the output held until then */
    size_t memlen_;
} mb_file_stream;
MB_API mb_status mb_file_stream_open(mb_file_stream *s, const char *path, mb_error *err);
MB_API mb_status mb_file_stream_commit(mb_file_stream *s, mb_error *err);
MB_API void mb_file_stream_discard(mb_file_stream *s);

/* The entry a write to path lands in, as mb_file_write_atomic finds it: path followed through
 * symbolic links (a relative link is relative to its own folder; at most 40 links), up to
 * the first entry that is not a link (a missing one: where it is named). For callers that
 * stage several files and rename them into place together, so that a link is kept and its
 * target replaced. An entry lstat cannot see ends the walk there. Fails (err says which path
 * and why; errno is left set as well, for callers that print strerror) with MB_INVALID_ARG
 * for NULLs or size 0 (EINVAL), MB_LIMIT for more than 40 links or a path longer than
 * out_size (ELOOP, ENAMETOOLONG), MB_IO for what readlink reports. */
MB_API mb_status mb_file_resolve_links(const char *path, char *out, size_t out_size,
                                       mb_error *err);

#ifdef __cplusplus
}
#endif
#endif
