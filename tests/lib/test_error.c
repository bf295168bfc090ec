/* The error contract (base.h): the one internal setter keeps the first error, records the
 * source and position; every public function that takes an mb_error clears it on entry, so
 * a stale error from an earlier call never survives into (or masks) the next one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "base/error_internal.h"
#include "mblend/runtime/anim.h"
#include "mblend/offline/bvh.h"
#include "mblend/offline/clip_build.h"
#include "mblend/offline/file.h"

static mb_error stale(void)
{
    mb_error e;
    memset(&e, 0, sizeof e);
    mb_error_set_at_(&e, MB_LIMIT, "old.bvh", 7, 3, "an old failure");
    return e;
}

Test(error, the_first_error_set_is_the_one_reported)
{
    mb_error e;
    mb_error_clear_(&e);
    cr_assert_eq(mb_error_set_(&e, MB_PARSE, "a.bvh", "first %d", 1), MB_PARSE);
    cr_assert_eq(mb_error_set_(&e, MB_NOMEM, "b.bvh", "second"), MB_NOMEM, "the status is returned");
    cr_assert_eq(mb_error_set_at_(&e, MB_IO, "c.bvh", 2, 5, "third"), MB_IO);
    cr_assert_eq(e.code, MB_PARSE);
    cr_assert_str_eq(e.source, "a.bvh");
    cr_assert_str_eq(e.text, "first 1");
    cr_assert_eq(e.line, 0);
    cr_assert_eq(e.column, 0);
}

Test(error, set_at_records_the_position_and_clear_resets_everything)
{
    mb_error e = stale();
    cr_assert_eq(e.code, MB_LIMIT);
    cr_assert_eq(e.line, 7);
    cr_assert_eq(e.column, 3);
    char buf[128];
    cr_assert_str_eq(mb_error_format(&e, buf, sizeof buf), "old.bvh:7:3: an old failure");
    mb_error_clear_(&e);
    cr_assert_eq(e.code, MB_OK);
    cr_assert_eq(e.line, 0);
    cr_assert_str_eq(e.source, "");
    cr_assert_str_eq(e.text, "");
    mb_error_clear_(NULL);
    cr_assert_eq(mb_error_set_(NULL, MB_IO, NULL, "nowhere"), MB_IO, "a NULL error is allowed");
    mb_error_set_(&e, MB_IO, NULL, "x");
    cr_assert_str_eq(e.source, "<memory>");
}

/* A public function clears a stale error on success, and reports its own failure, not the
 * stale one (which first-error-wins would otherwise keep). */
Test(error, a_public_function_clears_the_error_on_entry)
{
    static const char ok[] = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
                             " End Site\n {\n  OFFSET 0 1 0\n }\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0\n";
    static const char bad[] = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0\n";
    mb_skeleton *s = NULL;
    mb_clip *c = NULL;
    mb_error e = stale();
    cr_assert_eq(mb_bvh_read_mem(ok, sizeof ok - 1, "ok.bvh", NULL, &s, &c, &e), MB_OK);
    cr_assert_eq(e.code, MB_OK, "cleared on success: %s", e.text);
    cr_assert_str_eq(e.text, "");
    mb_clip_destroy(c);
    mb_skeleton_destroy(s);
    e = stale();
    cr_assert_eq(mb_bvh_read_mem(bad, sizeof bad - 1, "bad.bvh", NULL, &s, &c, &e), MB_PARSE);
    cr_assert_eq(e.code, MB_PARSE);
    cr_assert_str_eq(e.source, "bad.bvh");
    cr_assert_eq(e.line, 4, "%s", e.text);
}

/* mb_file_resolve_links says why it fails (it returned -1 with errno only). */
Test(error, resolving_links_says_why)
{
    char dir[] = "/tmp/mb_test_links_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char a[128], b[128], out[256];
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    cr_assert_eq(symlink("b", a), 0);
    cr_assert_eq(symlink("a", b), 0);
    mb_error e = stale();
    cr_assert_eq(mb_file_resolve_links(a, out, sizeof out, &e), MB_LIMIT);
    cr_assert_eq(e.code, MB_LIMIT);
    cr_assert_str_eq(e.source, a);
    cr_assert(strstr(e.text, "symbolic links") && strstr(e.text, a), "%s", e.text);
    cr_assert_eq(errno, ELOOP, "errno is kept for callers that print it");
    e = stale();
    cr_assert_eq(mb_file_resolve_links(a, out, 4, &e), MB_LIMIT, "longer than out_size");
    cr_assert(strstr(e.text, a), "%s", e.text);
    e = stale();
    cr_assert_eq(mb_file_resolve_links(NULL, out, sizeof out, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "symbolic links"), "%s", e.text);
    /* a plain missing name resolves to itself, and clears the error */
    e = stale();
    snprintf(b, sizeof b, "%s/new", dir);
    cr_assert_eq(mb_file_resolve_links(b, out, sizeof out, &e), MB_OK);
    cr_assert_str_eq(out, b);
    cr_assert_eq(e.code, MB_OK);
    unlink(a);
    snprintf(b, sizeof b, "%s/b", dir);
    unlink(b);
    rmdir(dir);
}

/* mb_skeleton_create says which joint is wrong (it returned a bare status). */
Test(error, creating_a_skeleton_says_why)
{
    mb_joint_desc j[3] = {{"Hips", -1, {0, 0, 0}, 0, 0, {0}, 0},
                          {"Spine", 0, {0, 1, 0}, 0, 0, {0}, 0},
                          {"Spine", 1, {0, 1, 0}, 0, 0, {0}, 0}};
    mb_skeleton_desc d = {j, 3, {0}};
    mb_skeleton *s = NULL;
    mb_error e = stale();
    cr_assert_eq(mb_skeleton_create(&d, &s, &e), MB_INVALID_ARG);
    cr_assert_str_eq(e.source, "skeleton");
    cr_assert_str_eq(e.text, "joints 1 and 2 are both named 'Spine'");
    j[2].name = "Head";
    j[2].parent = 2;
    cr_assert_eq(mb_skeleton_create(&d, &s, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "joint 2 'Head': parent 2"), "%s", e.text);
    d.joint_count = 0;
    cr_assert_eq(mb_skeleton_create(&d, &s, &e), MB_INVALID_ARG);
    cr_assert(strstr(e.text, "0 joints"), "%s", e.text);
    j[2].parent = 1;
    d.joint_count = 3;
    cr_assert_eq(mb_skeleton_create(&d, &s, &e), MB_OK);
    cr_assert_eq(e.code, MB_OK);
    mb_skeleton_destroy(s);
}
