/* Atomic file output (temporary file + rename), shared by the BVH, OBJ and glTF writers. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error_internal.h"

#define MB_TMP_PATH_MAX 4160

static int open_temp(const char *path, char *tmp, size_t tmp_size)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)ts.tv_sec ^
                 (uint64_t)(uintptr_t)tmp;
    for (int attempt = 0; attempt < 64; ++attempt) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int n = snprintf(tmp, tmp_size, "%s.tmp.%ld.%06x", path, (long)getpid(),
                         (unsigned)(x & 0xffffffu));
        if (n < 0 || (size_t)n >= tmp_size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* Flushes the rename's directory entry; best effort (some file systems refuse fsync on
 * directories, and the data itself is already on disk). */
static void sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[MB_TMP_PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)(slash - path) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        return;
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

mb_status mb_file_write_atomic(const char *path, const void *data, size_t len, mb_error *err)
{
    if (!path || !*path)
        return mb_error_set_(err, MB_INVALID_ARG, path, "no output path given");
    char tmp[MB_TMP_PATH_MAX];
    const char *step = "cannot create a temporary file beside it";
    int fd = open_temp(path, tmp, sizeof tmp), created = fd >= 0, saved;
    if (fd < 0)
        goto fail;
    struct stat old;
    if (stat(path, &old) == 0 && S_ISREG(old.st_mode))
        (void)fchmod(fd, old.st_mode & 07777); /* as an editor's save does */
    step = "write failed";
    for (const char *p = data; len > 0;) {
        ssize_t w = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            goto fail;
        }
        p += w;
        len -= (size_t)w;
    }
    step = "fsync failed";
    if (fsync(fd) != 0)
        goto fail;
    step = "close failed";
    int rc = close(fd);
    fd = -1;
    if (rc != 0)
        goto fail;
    step = "cannot replace it with the temporary file";
    if (rename(tmp, path) != 0)
        goto fail;
    sync_parent_dir(path);
    return MB_OK;
fail:
    saved = errno;
    if (fd >= 0)
        close(fd);
    if (created)
        unlink(tmp);
    return mb_error_set_(err, MB_IO, path, "cannot write '%s': %s (%s)", path, strerror(saved),
                         step);
}
