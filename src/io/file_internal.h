/* Writing output files safely: one implementation for every exporter. */
#ifndef MB_FILE_INTERNAL_H
#define MB_FILE_INTERNAL_H

#include <stddef.h>

#include "mblend/base.h"

/* Writes len bytes to a new temporary file beside path ("<path>.tmp.<pid>.<random>",
 * created exclusively with the usual 0666 & ~umask mode, not mkstemp's 0600), fsyncs it,
 * renames it over path and fsyncs the folder, so a failure never leaves a partial or
 * clobbered file; a replaced file keeps its permission bits. MB_IO with the failing step
 * in err ("cannot write 'path': reason (step)"), MB_INVALID_ARG for an empty path. */
mb_status mb_file_write_atomic_(const char *path, const void *data, size_t len, mb_error *err);

#endif
