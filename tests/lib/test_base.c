/* The base layer: status strings, error formatting, allocator hooks, atomic file output
 * (mb_file_write_atomic and mb_file_stream_*). Expected strings are written out here from
 * base.h's contract, not taken from the library's table. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "mblend/mblend.h"
#include "test_util.h"

/* ---------------------------------------------------------------- status strings */

typedef struct status_case {
    int code; /* an mb_status, or a value outside the enum */
    char text[24]; /* in the case itself: Criterion copies the cases into each test's process */
} status_case;

ParameterizedTestParameters(base, status_str)
{
    static status_case cases[] = {
        {MB_OK, "ok"},
        {MB_INVALID_ARG, "invalid argument"},
        {MB_TOO_SMALL, "buffer too small"},
        {MB_NOMEM, "out of memory"},
        {MB_IO, "input/output error"},
        {MB_PARSE, "parse error"},
        {MB_LIMIT, "limit exceeded"},
        {MB_MISMATCH, "mismatch"},
        {MB_NUMERIC, "numeric error"},
        {MB_STATUS_COUNT_, "unknown status"},
        {-1, "unknown status"},
        {1000, "unknown status"},
    };
    return cr_make_param_array(status_case, cases, sizeof cases / sizeof cases[0]);
}

ParameterizedTest(status_case *c, base, status_str)
{
    const char *s = mb_status_str((mb_status)c->code);
    cr_assert_not_null(s, "status %d", c->code);
    cr_assert_str_eq(s, c->text, "status %d", c->code);
}

/* Every status in the enum has its own string: the cases above cover them all. */
Test(base, status_cases_cover_the_enum)
{
    cr_assert_eq(MB_STATUS_COUNT_, 9, "a new status needs its case in base/status_str");
}

/* ---------------------------------------------------------------- error formatting */

static mb_error error_of(mb_status code, int line, int column, const char *source,
                         const char *text)
{
    mb_error e;
    memset(&e, 0, sizeof e);
    e.code = code;
    e.line = line;
    e.column = column;
    snprintf(e.source, sizeof e.source, "%s", source);
    snprintf(e.text, sizeof e.text, "%s", text);
    return e;
}

Test(base, error_format_with_and_without_position)
{
    char buf[600];
    mb_error e = error_of(MB_PARSE, 12, 7, "walk.bvh", "expected a number");
    cr_assert_eq(mb_error_format(&e, buf, sizeof buf), buf);
    cr_assert_str_eq(buf, "walk.bvh:12:7: expected a number");
    e = error_of(MB_IO, 0, 0, "walk.bvh", "cannot open");
    cr_assert_str_eq(mb_error_format(&e, buf, sizeof buf), "walk.bvh: cannot open");
    /* no source: a memory read; no text: the status says what */
    e = error_of(MB_NOMEM, 0, 0, "", "");
    cr_assert_str_eq(mb_error_format(&e, buf, sizeof buf), "<memory>: out of memory");
    e = error_of(MB_PARSE, 1, 1, "", "");
    cr_assert_str_eq(mb_error_format(&e, buf, sizeof buf), "<memory>:1:1: parse error");
    /* a full source and a full text both fit a buffer of their sum */
    memset(e.source, 's', sizeof e.source - 1);
    memset(e.text, 't', sizeof e.text - 1);
    e.line = 0;
    mb_error_format(&e, buf, sizeof buf);
    cr_assert_eq(strlen(buf), (sizeof e.source - 1) + 2 + (sizeof e.text - 1));
    cr_assert_eq(buf[sizeof e.source - 1], ':');
}

/* Small buffers: truncated, always NUL-terminated, nothing written past size. */
Test(base, error_format_truncates_into_small_buffers)
{
    mb_error e = error_of(MB_PARSE, 12, 7, "walk.bvh", "expected a number");
    const char *full = "walk.bvh:12:7: expected a number";
    for (size_t size = 1; size <= strlen(full) + 1; ++size) {
        char buf[64];
        memset(buf, '#', sizeof buf);
        cr_assert_eq(mb_error_format(&e, buf, size), buf);
        cr_assert_eq(buf[size - 1], '\0', "size %zu: not terminated", size);
        cr_assert_eq(strncmp(buf, full, size - 1), 0, "size %zu: '%s'", size, buf);
        for (size_t k = size; k < sizeof buf; ++k)
            cr_assert_eq(buf[k], '#', "size %zu: byte %zu written", size, k);
    }
    /* size 0 writes nothing; a NULL error gives the empty string */
    char buf[8] = "#######";
    cr_assert_eq(mb_error_format(&e, buf, 0), buf);
    cr_assert_str_eq(buf, "#######");
    cr_assert_str_eq(mb_error_format(NULL, buf, sizeof buf), "");
}

/* ---------------------------------------------------------------- allocator hooks */

/* Counts allocations and frees through the hooks; fails the allocation numbered fail_at
 * (0-based; -1: never). Blocks carry their size in front so frees can be checked. */
typedef struct counting {
    long allocs, frees, live;
    long fail_at;
} counting;

static void *count_alloc(size_t size, void *user)
{
    counting *c = user;
    if (c->fail_at >= 0 && c->allocs == c->fail_at) {
        ++c->allocs;
        return NULL;
    }
    ++c->allocs;
    void *p = malloc(size ? size : 1);
    if (p)
        ++c->live;
    return p;
}

static void count_free(void *p, void *user)
{
    counting *c = user;
    if (!p)
        return;
    ++c->frees;
    --c->live;
    free(p);
}

static mb_allocator counting_allocator(counting *c, long fail_at)
{
    memset(c, 0, sizeof *c);
    c->fail_at = fail_at;
    return (mb_allocator){count_alloc, count_free, c};
}

static const char k_bvh[] = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n"
                            " CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                            " JOINT Knee\n {\n  OFFSET 0 -1 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n"
                            "  End Site\n  {\n   OFFSET 0 -1 0\n  }\n }\n}\n"
                            "MOTION\nFrames: 2\nFrame Time: 0.5\n"
                            "0 1 0 0 0 0 10 0 0\n0 1 1 0 0 0 20 0 0\n";

/* mb_clip_alloc, mb_clip_create and the BVH reader take every block from the hooks and give
 * every one back. */
Test(base, allocator_hooks_see_every_block)
{
    counting c;
    mb_allocator a = counting_allocator(&c, -1);
    const int tj[1] = {0};
    mb_clip *clip = NULL;
    cr_assert_eq(mb_clip_alloc(3, 4, 0.1, tj, 1, &a, &clip, NULL), MB_OK);
    cr_assert_gt(c.allocs, 0, "mb_clip_alloc did not use the allocator");
    mb_clip_destroy(clip);
    cr_assert_eq(c.live, 0, "mb_clip_alloc: %ld blocks not freed", c.live);
    cr_assert_eq(c.frees, c.allocs);

    float rot[2][4] = {{0, 0, 0, 1}, {0, 0, 0, 1}};
    mb_clip_desc d;
    memset(&d, 0, sizeof d);
    d.joint_count = 1;
    d.frame_count = 2;
    d.frame_time = 0.5;
    d.rotations = &rot[0][0];
    d.allocator = counting_allocator(&c, -1);
    cr_assert_eq(mb_clip_create(&d, &clip, NULL), MB_OK);
    cr_assert_gt(c.allocs, 0, "mb_clip_create did not use the allocator");
    mb_clip_destroy(clip);
    cr_assert_eq(c.live, 0, "mb_clip_create: %ld blocks not freed", c.live);

    mb_bvh_read_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.allocator = counting_allocator(&c, -1);
    mb_skeleton *s = NULL;
    mb_error e;
    cr_assert_eq(mb_bvh_read_mem(k_bvh, strlen(k_bvh), "k.bvh", &rd, &s, &clip, &e), MB_OK, "%s",
                 e.text);
    cr_assert_gt(c.allocs, 1, "the reader did not use the allocator");
    mb_clip_destroy(clip);
    mb_skeleton_destroy(s);
    cr_assert_eq(c.live, 0, "the BVH reader: %ld blocks not freed", c.live);
}

/* An allocator that fails at the k-th request, for every k the loaders make: MB_NOMEM,
 * nothing handed out, every block taken given back. */
Test(base, failing_allocator_gives_nomem_and_leaks_nothing)
{
    counting c;
    mb_allocator a = counting_allocator(&c, -1);
    const int tj[1] = {0};
    mb_clip *clip = NULL;
    cr_assert_eq(mb_clip_alloc(3, 4, 0.1, tj, 1, &a, &clip, NULL), MB_OK);
    mb_clip_destroy(clip);
    long n = c.allocs;
    for (long k = 0; k < n; ++k) {
        a = counting_allocator(&c, k);
        clip = (mb_clip *)&c;
        cr_assert_eq(mb_clip_alloc(3, 4, 0.1, tj, 1, &a, &clip, NULL), MB_NOMEM, "failing request %ld", k);
        cr_assert_null(clip, "failing request %ld: a clip handed out", k);
        cr_assert_eq(c.live, 0, "failing request %ld: %ld blocks leaked", k, c.live);
    }

    mb_bvh_read_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.allocator = counting_allocator(&c, -1);
    mb_skeleton *s = NULL;
    mb_error e;
    cr_assert_eq(mb_bvh_read_mem(k_bvh, strlen(k_bvh), "k.bvh", &rd, &s, &clip, &e), MB_OK);
    mb_clip_destroy(clip);
    mb_skeleton_destroy(s);
    n = c.allocs;
    for (long k = 0; k < n; ++k) {
        rd.allocator = counting_allocator(&c, k);
        s = NULL;
        clip = NULL;
        cr_assert_eq(mb_bvh_read_mem(k_bvh, strlen(k_bvh), "k.bvh", &rd, &s, &clip, &e), MB_NOMEM,
                     "failing request %ld of %ld", k, n);
        cr_assert(!s && !clip, "failing request %ld: an output handed out", k);
        cr_assert_eq(c.live, 0, "failing request %ld: %ld blocks leaked", k, c.live);
    }
}

/* ---------------------------------------------------------------- atomic file output */

static void make_dir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/mb_test_base_XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
}

/* The entries of dir (without . and ..), sorted names joined by ','. */
static void entries(const char *dir, char *out, size_t size)
{
    struct dirent **list;
    int n = scandir(dir, &list, NULL, alphasort);
    cr_assert_geq(n, 0, "scandir %s", dir);
    out[0] = '\0';
    for (int i = 0; i < n; ++i) {
        if (strcmp(list[i]->d_name, ".") && strcmp(list[i]->d_name, "..")) {
            if (out[0])
                strncat(out, ",", size - strlen(out) - 1);
            strncat(out, list[i]->d_name, size - strlen(out) - 1);
        }
        free(list[i]);
    }
    free(list);
}

static void remove_dir(const char *dir)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

static void expect_file(const char *path, const char *text)
{
    size_t n;
    char *now = mb_test_slurp(path, &n);
    cr_assert_eq(n, strlen(text), "%s: %zu bytes", path, n);
    cr_assert_str_eq(now, text, "%s", path);
    free(now);
}

Test(base, write_atomic_writes_and_replaces)
{
    char dir[64], path[128], ls[256];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/out.txt", dir);
    mb_error e;
    cr_assert_eq(mb_file_write_atomic(path, "first\n", 6, &e), MB_OK, "%s", e.text);
    expect_file(path, "first\n");
    cr_assert_eq(mb_file_write_atomic(path, "second\0x", 8, &e), MB_OK, "%s", e.text);
    size_t n;
    char *now = mb_test_slurp(path, &n);
    cr_assert(n == 8 && memcmp(now, "second\0x", 8) == 0, "the bytes, NUL included");
    free(now);
    entries(dir, ls, sizeof ls);
    cr_assert_str_eq(ls, "out.txt", "no temporary file left");
    cr_assert_eq(mb_file_write_atomic("", "x", 1, &e), MB_INVALID_ARG);
    remove_dir(dir);
}

/* A write cut off half-way (the file size limit) keeps the old file and its folder clean. */
Test(base, failed_write_leaves_the_old_file)
{
    char dir[64], path[128], ls[256];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/keep.txt", dir);
    write_text(path, "old\n");
    size_t big = 64 * 1024;
    char *data = malloc(big);
    cr_assert_not_null(data);
    memset(data, 'n', big);
    signal(SIGXFSZ, SIG_IGN); /* Criterion runs each test in its own process */
    struct rlimit rl, small;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &rl), 0);
    small = (struct rlimit){4096, rl.rlim_max};
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    mb_error e;
    mb_status st = mb_file_write_atomic(path, data, big, &e);
    setrlimit(RLIMIT_FSIZE, &rl);
    cr_assert_eq(st, MB_IO, "status %s", mb_status_str(st));
    cr_assert_not_null(strstr(e.text, "cannot write '"), "message: %s", e.text);
    expect_file(path, "old\n");
    entries(dir, ls, sizeof ls);
    cr_assert_str_eq(ls, "keep.txt", "left behind: %s", ls);
    /* a missing folder: MB_IO, nothing created */
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no/such.txt", dir);
    cr_assert_eq(mb_file_write_atomic(missing, "x", 1, &e), MB_IO);
    entries(dir, ls, sizeof ls);
    cr_assert_str_eq(ls, "keep.txt");
    free(data);
    remove_dir(dir);
}

Test(base, directory_is_refused)
{
    char dir[64], sub[128], inner[160], ls[256];
    make_dir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    snprintf(inner, sizeof inner, "%s/inside.txt", sub);
    write_text(inner, "x");
    mb_error e;
    cr_assert_eq(mb_file_write_atomic(sub, "new", 3, &e), MB_IO);
    cr_assert_not_null(strstr(e.text, "cannot write '"), "message: %s", e.text);
    mb_file_stream fs;
    cr_assert_eq(mb_file_stream_open(&fs, sub, &e), MB_IO);
    mb_file_stream_discard(&fs); /* accepts a stream that failed to open */
    struct stat st;
    cr_assert_eq(stat(sub, &st), 0);
    cr_assert(S_ISDIR(st.st_mode), "the directory was replaced");
    expect_file(inner, "x");
    entries(dir, ls, sizeof ls);
    cr_assert_str_eq(ls, "sub", "left behind: %s", ls);
    remove_dir(dir);
}

/* A symbolic link stays a link (relative, as links often are); its target gets the text. */
Test(base, symbolic_link_kept_and_target_replaced)
{
    char dir[64], target[128], link[128], ls[256], back[128];
    make_dir(dir, sizeof dir);
    snprintf(target, sizeof target, "%s/target.txt", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    write_text(target, "old\n");
    cr_assert_eq(symlink("target.txt", link), 0);
    mb_error e;
    cr_assert_eq(mb_file_write_atomic(link, "new\n", 4, &e), MB_OK, "%s", e.text);
    struct stat st;
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
    ssize_t n = readlink(link, back, sizeof back - 1);
    cr_assert_eq(n, 10);
    back[n] = '\0';
    cr_assert_str_eq(back, "target.txt");
    expect_file(target, "new\n");
    /* the same through a stream */
    mb_file_stream fs;
    cr_assert_eq(mb_file_stream_open(&fs, link, &e), MB_OK, "%s", e.text);
    fputs("streamed\n", fs.f);
    cr_assert_eq(mb_file_stream_commit(&fs, &e), MB_OK, "%s", e.text);
    cr_assert_eq(lstat(link, &st), 0);
    cr_assert(S_ISLNK(st.st_mode), "the stream replaced the link");
    expect_file(target, "streamed\n");
    entries(dir, ls, sizeof ls);
    cr_assert_str_eq(ls, "link.txt,target.txt", "left behind: %s", ls);
    remove_dir(dir);
}

Test(base, stream_commit_writes_and_discard_leaves_the_old_file)
{
    char dir[64], path[128], ls[256];
    make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/report.csv", dir);
    mb_error e;
    mb_file_stream fs;
    cr_assert_eq(mb_file_stream_open(&fs, path, &e), MB_OK, "%s", e.text);
    fprintf(fs.f, "a,b\n");
    fprintf(fs.f, "%d,%d\n", 1, 2);
    cr_assert_eq(mb_file_stream_commit(&fs, &e), MB_OK, "%s", e.text);
    expect_file(path, "a,b\n1,2\n");
    /* discard: the old text stays and the temporary file goes */
    cr_assert_eq(mb_file_stream_open(&fs, path, &e), MB_OK, "%s", e.text);
    fprintf(fs.f, "half a report");
    fflush(fs.f);
    entries(dir, ls, sizeof ls);
    cr_assert_neq(strcmp(ls, "report.csv"), 0, "the stream writes to a temporary file beside it");
    mb_file_stream_discard(&fs);
    expect_file(path, "a,b\n1,2\n");
    entries(dir, ls, sizeof ls);
    cr_assert_str_eq(ls, "report.csv", "left behind: %s", ls);
    /* a stream to a new path that is discarded creates nothing */
    char fresh[160];
    snprintf(fresh, sizeof fresh, "%s/new.csv", dir);
    cr_assert_eq(mb_file_stream_open(&fs, fresh, &e), MB_OK, "%s", e.text);
    fputs("x", fs.f);
    mb_file_stream_discard(&fs);
    entries(dir, ls, sizeof ls);
    cr_assert_str_eq(ls, "report.csv", "left behind: %s", ls);
    remove_dir(dir);
}
