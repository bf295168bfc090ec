/* Opening a clip from a user's name for it: "walk.bvh", "Fox.glb#Walk" (mblend/offline/source.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error_internal.h"
#include "mblend/offline/bvh.h"
#include "mblend/offline/source.h"

struct mb_source {
    char file[MB_SOURCE_FILE_MAX + 1];
    char anim[MB_SOURCE_ANIM_MAX + 1];
    mb_skeleton *own_s; /* a BVH file: its skeleton and clip */
    mb_clip *own_c;
    mb_scene *scene;    /* a scene: owns what s and c point to */
    const mb_skeleton *s;
    const mb_clip *c;
};

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (m > n)
        return 0;
    for (size_t i = 0; i < m; ++i)
        if (tolower((unsigned char)s[n - m + i]) != tolower((unsigned char)suffix[i]))
            return 0;
    return 1;
}

int mb_source_is_bvh(const char *path)
{
    struct stat st;
    if (!path)
        return 0;
    /* assimp picks its importer by the name too, so a .bvh name always means BVH */
    if (ends_with_ci(path, ".bvh"))
        return 1;
    if (stat(path, &st) != 0)
        return 0; /* the scene reader says what is missing */
    if (!S_ISREG(st.st_mode))
        return 1; /* a pipe cannot be sniffed and read again: BVH, as always */
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char head[64];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    size_t i = n >= 3 && memcmp(head, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < n && isspace((unsigned char)head[i]))
        ++i;
    static const char key[] = "HIERARCHY";
    size_t k = 0;
    while (k + 1 < sizeof key && i + k < n && toupper((unsigned char)head[i + k]) == key[k])
        ++k;
    return k + 1 == sizeof key;
}

static int is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The '#' that splits spec, or NULL: see mb_source_split. */
static const char *split_point(const char *spec, char *file, size_t file_size)
{
    if (is_regular(spec))
        return NULL;
    for (const char *h = strchr(spec, '#'); h; h = strchr(h + 1, '#')) {
        size_t fl = (size_t)(h - spec);
        if (fl == 0 || fl >= file_size)
            continue;
        memcpy(file, spec, fl);
        file[fl] = '\0';
        if (is_regular(file))
            return h;
    }
    /* None does: the last '#' without a '/' after it, so the error names the file. */
    const char *h = strrchr(spec, '#');
    return h && !strchr(h + 1, '/') ? h : NULL;
}

mb_status mb_source_split(const char *spec, char *file, size_t file_size, char *anim,
                          size_t anim_size, mb_error *err)
{
    mb_error_clear_(err);
    if (!spec || !file || !anim || file_size == 0 || anim_size == 0)
        return mb_error_set_(err, MB_INVALID_ARG, spec, "no clip named (NULL spec or buffer)");
    anim[0] = '\0';
    const char *hash = split_point(spec, file, file_size);
    size_t len = strlen(spec);
    if (!hash) {
        if (len == 0)
            return mb_error_set_(err, MB_INVALID_ARG, spec, "empty file name");
        if (len >= file_size)
            return mb_error_set_(err, MB_INVALID_ARG, spec, "path too long (%zu bytes, at most "
                                 "%zu)", len, file_size - 1);
        memcpy(file, spec, len + 1);
        return MB_OK;
    }
    if (hash == spec)
        return mb_error_set_(err, MB_INVALID_ARG, spec, "no file before '#' (FILE#Animation)");
    if (hash[1] == '\0')
        return mb_error_set_(err, MB_INVALID_ARG, spec, "empty animation name after '#' "
                             "(FILE#Animation; leave out '#' for the first animation)");
    if ((size_t)(hash - spec) >= file_size || strlen(hash + 1) >= anim_size)
        return mb_error_set_(err, MB_INVALID_ARG, spec, "path or animation name too long");
    memcpy(file, spec, (size_t)(hash - spec));
    file[hash - spec] = '\0';
    strcpy(anim, hash + 1);
    return MB_OK;
}

/* Reads path once in a child process: 0 when that child read it or refused it cleanly, 1
 * with a description of how it died otherwise. assimp (Debian's 5.2.5) trusts what it
 * parses; the library checks a glTF's structure before assimp sees it (gltf_check.c), but
 * not the other formats assimp reads (an X or Collada file nested tens of thousands of
 * levels deep overflows its recursive import), and the check cannot know every assimp
 * defect. About 50 ms for CesiumMan.glb. */
static int probe_crashes(const char *path, char *why, size_t why_size)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return 0; /* no probe: the read runs unguarded */
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2); /* the child's verdict is its status, not its messages */
        mb_scene *s = NULL;
        mb_error e;
        _exit(mb_scene_read_file(path, NULL, &s, &e) == MB_OK ? 0 : 3);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3))
        return 0;
    if (WIFSIGNALED(status))
        snprintf(why, why_size, "signal %d", WTERMSIG(status));
    else
        snprintf(why, why_size, "exit status %d", WEXITSTATUS(status));
    return 1;
}

static mb_status open_bvh(mb_source *src, const char *spec, const mb_source_desc *d,
                          mb_error *err)
{
    if (src->anim[0])
        return mb_error_set_(err, MB_INVALID_ARG, spec, "a BVH file holds one clip ('#' picks "
                             "an animation of a glTF or FBX file)");
    mb_bvh_read_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.lenient = d->lenient;
    rd.warning = d->warning;
    mb_status st = mb_bvh_read_file(src->file, &rd, &src->own_s, &src->own_c, err);
    if (st != MB_OK) /* a reader's own reason wins; else say why here */
        mb_error_set_(err, st, src->file, "cannot read the BVH file: %s", mb_status_str(st));
    src->s = src->own_s;
    src->c = src->own_c;
    return st;
}

/* "it has: 'Survey', 'Walk', 'Run'" (or "it has none") into buf. */
static void list_clips(const mb_scene *sc, char *buf, size_t size)
{
    int count = mb_scene_clip_count(sc);
    size_t at = (size_t)snprintf(buf, size, "it has%s", count ? ":" : " none");
    for (int i = 0; i < count && at < size; ++i)
        at += (size_t)snprintf(buf + at, size - at, "%s '%s'", i ? "," : "",
                               mb_scene_clip_name(sc, i));
}

mb_status mb_source_read_scene(const char *path, const mb_source_desc *d, mb_scene **out,
                               mb_error *err)
{
    mb_error_clear_(err);
    if (!path || !out)
        return mb_error_set_(err, MB_INVALID_ARG, path, "no file or no output handle (NULL)");
    *out = NULL;
    if (!mb_scene_supported())
        return mb_error_set_(err, MB_IO, path, "this mblend was built without assimp "
                             "(MB_WITH_ASSIMP=OFF) and reads BVH only");
    char why[64];
    if (d && d->probe && probe_crashes(path, why, sizeof why))
        return mb_error_set_(err, MB_PARSE, path, "the glTF/FBX importer (assimp) crashed "
                             "on this file (%s): it is malformed, or valid in a way assimp "
                             "mishandles", why);
    return mb_scene_read_file(path, NULL, out, err);
}

static mb_status open_scene(mb_source *src, const mb_source_desc *d, mb_error *err)
{
    mb_status st = mb_source_read_scene(src->file, d, &src->scene, err);
    if (st != MB_OK)
        return st;
    int count = mb_scene_clip_count(src->scene);
    int ci = src->anim[0] ? mb_scene_find_clip(src->scene, src->anim) : 0;
    if (ci < 0 || count == 0) {
        char list[200];
        list_clips(src->scene, list, sizeof list);
        return mb_error_set_(err, MB_MISMATCH, src->file, "has no animation%s%s%s; %s",
                             src->anim[0] ? " named '" : "", src->anim,
                             src->anim[0] ? "'" : "", list);
    }
    src->s = mb_scene_skeleton(src->scene);
    src->c = mb_scene_clip(src->scene, ci);
    return MB_OK;
}

mb_status mb_source_open(const char *spec, const mb_source_desc *d, mb_source **out,
                         mb_error *err)
{
    static const mb_source_desc zero;
    mb_error_clear_(err);
    if (d && d->warning)
        memset(d->warning, 0, sizeof *d->warning);
    if (!out)
        return mb_error_set_(err, MB_INVALID_ARG, spec, "no output handle (NULL out)");
    *out = NULL;
    mb_source *src = calloc(1, sizeof *src);
    if (!src)
        return mb_error_set_(err, MB_NOMEM, spec, "out of memory");
    mb_status st = mb_source_split(spec, src->file, sizeof src->file, src->anim,
                                   sizeof src->anim, err);
    if (st == MB_OK)
        st = mb_source_is_bvh(src->file) ? open_bvh(src, spec, d ? d : &zero, err)
                                         : open_scene(src, d ? d : &zero, err);
    if (st != MB_OK) {
        mb_source_destroy(src);
        return st;
    }
    *out = src;
    return MB_OK;
}

void mb_source_destroy(mb_source *s)
{
    if (!s)
        return;
    mb_clip_destroy(s->own_c);
    mb_skeleton_destroy(s->own_s);
    mb_scene_destroy(s->scene);
    free(s);
}

const mb_skeleton *mb_source_skeleton(const mb_source *s) { return s ? s->s : NULL; }
const mb_clip *mb_source_clip(const mb_source *s) { return s ? s->c : NULL; }
const mb_scene *mb_source_scene(const mb_source *s) { return s ? s->scene : NULL; }
const char *mb_source_file(const mb_source *s) { return s ? s->file : NULL; }
const char *mb_source_anim(const mb_source *s) { return s ? s->anim : NULL; }
mb_axis mb_source_up_axis(const mb_source *s) { return s && s->scene ? MB_AXIS_Y : MB_AXIS_DETECT; }
