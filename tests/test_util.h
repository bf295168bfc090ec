/* Shared helpers for the test executables. */
#ifndef MB_TEST_UTIL_H
#define MB_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>

/* Path of a file under ../shared/data; aborts the test with a clear message when the
 * shared data folder is absent (the real-data tests must not silently skip). */
static inline const char *mb_shared_path(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/data/%s", MB_SHARED_DIR, rel);
    FILE *f = fopen(buf, "rb");
    if (!f)
        cr_assert_fail("shared data file missing: %s (the real-data tests need ../shared/data)", buf);
    fclose(f);
    return buf;
}

#endif
