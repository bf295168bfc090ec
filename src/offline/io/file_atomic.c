/* Atomic file output (temporary file + rename), shared by the BVH, OBJ and glTF writers and
 * the CLI's streamed reports. The rename replaces a directory entry, so the path is first
 * followed through symbolic links (the link stays and its target gets the new content, as an
 * editor's save does), and a device, FIFO or socket (`-o /dev/null`, a pipe to another
 * program) is written in place: renaming over it would put a regular file where the device
 * node was. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error_internal.h"
#include "mblend/offline/file.h"

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

/* Follows path through symbolic links (at most 40, as the kernel does) to the entry the data
 * must land in; a relative link is relative to its own directory (see offline/file.h). */
mb_status mb_file_resolve_links(const char *path, char *out, size_t out_size, mb_error *err)
{
    mb_error_clear_(err);
    mb_status code = MB_LIMIT;
    int e = ENAMETOOLONG;
    if (!path || !out || out_size == 0) {
        code = MB_INVALID_ARG;
        e = EINVAL;
        goto fail;
    }
    if ((size_t)snprintf(out, out_size, "%s", path) >= out_size)
        goto fail;
    for (int hops = 0;; ++hops) {
        struct stat st;
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
            return MB_OK; /* a missing entry is created where it is named */
        if (hops == 40) {
            e = ELOOP;
            goto fail;
        }
        char link[MB_FILE_PATH_MAX], next[MB_FILE_PATH_MAX];
        ssize_t n = readlink(out, link, sizeof link - 1);
        if (n < 0) {
            code = MB_IO;
            e = errno;
            goto fail;
        }
        link[n] = '\0';
        const char *slash = strrchr(out, '/');
        int m = link[0] == '/' || !slash
                    ? snprintf(next, sizeof next, "%s", link)
                    : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - out), out, link);
        if (m < 0 || (size_t)m >= sizeof next || (size_t)m >= out_size)
            goto fail;
        memcpy(out, next, (size_t)m + 1);
    }
fail:
    mb_error_set_(err, code, path, "cannot follow the symbolic links of '%s': %s",
                  path ? path : "(null)", strerror(e));
    errno = e; /* also for callers that print strerror(errno) */
    return code;
}

/* Flushes the rename's directory entry; best effort (some file systems refuse fsync on
 * directories, and the data itself is already on disk). */
static void sync_parent_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[MB_FILE_PATH_MAX];
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

/* Writes all of data to fd; returns 0, or -1 with errno set. */
static int write_all(int fd, const void *data, size_t len)
{
    for (const char *p = data; len > 0;) {
        ssize_t w = write(fd, p, len > (1u << 30) ? (1u << 30) : len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static mb_status stream_fail(mb_file_stream *s, const char *step, mb_error *err)
{
    int saved = errno;
    mb_file_stream_discard(s);
    return mb_error_set_(err, MB_IO, s->shown_, "cannot write '%s': %s (%s)", s->shown_,
                         strerror(saved), step);
}

mb_status mb_file_stream_open(mb_file_stream *s, const char *path, mb_error *err)
{
    mb_error_clear_(err);
    if (!s)
        return mb_error_set_(err, MB_INVALID_ARG, path, "no stream given");
    memset(s, 0, sizeof *s);
    if (!path || !*path)
        return mb_error_set_(err, MB_INVALID_ARG, path, "no output path given");
    if ((size_t)snprintf(s->shown_, sizeof s->shown_, "%s", path) >= sizeof s->shown_) {
        errno = ENAMETOOLONG;
        return stream_fail(s, "path too long", err);
    }
    s->fd_ = -1;
    /* stat follows every link, /proc/self/fd's too, which mb_file_resolve_links cannot read */
    struct stat old;
    int exists = stat(path, &old) == 0, fd;
    if (exists && S_ISDIR(old.st_mode)) {
        errno = EISDIR;
        return stream_fail(s, "a directory is not replaced", err);
    }
    s->direct_ = exists && !S_ISREG(old.st_mode);
    if (s->direct_) {
        /* opened now (errors early; a FIFO waits for its reader, as the shell's > does),
         * written only at commit: the output is held in memory until then, so a discarded
         * stream sends nothing */
        if ((s->fd_ = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)) < 0)
            return stream_fail(s, "cannot open it", err);
        if (!(s->f = open_memstream(&s->mem_, &s->memlen_)))
            return stream_fail(s, "cannot hold the output in memory", err);
        return MB_OK;
    }
    /* stream_fail says why, from errno, with the step */
    if (mb_file_resolve_links(path, s->dest_, sizeof s->dest_, NULL) != MB_OK)
        return stream_fail(s, "cannot follow its symbolic link", err);
    fd = open_temp(s->dest_, s->tmp_, sizeof s->tmp_);
    if (fd < 0) {
        s->tmp_[0] = '\0';
        return stream_fail(s, "cannot create a temporary file beside it", err);
    }
    if (exists)
        (void)fchmod(fd, old.st_mode & 07777); /* as an editor's save does */
    if (!(s->f = fdopen(fd, "w"))) {
        int saved = errno;
        close(fd);
        errno = saved;
        return stream_fail(s, "cannot open a stream on it", err);
    }
    return MB_OK;
}

mb_status mb_file_stream_commit(mb_file_stream *s, mb_error *err)
{
    mb_error_clear_(err);
    if (!s || !s->f)
        return mb_error_set_(err, MB_INVALID_ARG, s ? s->shown_ : NULL, "no open stream");
    if (ferror(s->f)) {
        errno = EIO;
        return stream_fail(s, "write failed", err);
    }
    if (fflush(s->f) != 0)
        return stream_fail(s, "write failed", err);
    if (!s->direct_ && fsync(fileno(s->f)) != 0)
        return stream_fail(s, "fsync failed", err);
    int rc = fclose(s->f);
    s->f = NULL;
    if (rc != 0)
        return stream_fail(s, "close failed", err);
    if (s->direct_) {
        rc = write_all(s->fd_, s->mem_, s->memlen_);
        if (rc != 0)
            return stream_fail(s, "write failed", err);
        rc = close(s->fd_);
        s->fd_ = -1;
        free(s->mem_);
        s->mem_ = NULL;
        if (rc != 0)
            return stream_fail(s, "close failed", err);
    } else {
        if (rename(s->tmp_, s->dest_) != 0)
            return stream_fail(s, "cannot replace it with the temporary file", err);
        s->tmp_[0] = '\0';
        sync_parent_dir(s->dest_);
    }
    return MB_OK;
}

void mb_file_stream_discard(mb_file_stream *s)
{
    if (!s)
        return;
    int saved = errno;
    if (s->f)
        fclose(s->f);
    s->f = NULL;
    if (s->direct_) {
        free(s->mem_); /* nothing was sent */
        s->mem_ = NULL;
        if (s->fd_ >= 0)
            close(s->fd_);
        s->fd_ = -1;
    }
    if (!s->direct_ && s->tmp_[0])
        unlink(s->tmp_);
    s->tmp_[0] = '\0';
    errno = saved;
}

mb_status mb_file_write_atomic(const char *path, const void *data, size_t len, mb_error *err)
{
    mb_error_clear_(err);
    mb_file_stream s;
    mb_status st = mb_file_stream_open(&s, path, err);
    if (st != MB_OK)
        return st;
    if (len > 0 && fwrite(data, 1, len, s.f) != len) {
        if (errno == 0)
            errno = EIO;
        return stream_fail(&s, "write failed", err);
    }
    return mb_file_stream_commit(&s, err);
}
