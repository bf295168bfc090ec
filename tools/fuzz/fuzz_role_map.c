/* libFuzzer target for the role map reader (mb_role_map_read, through its stream entry
 * point on fmemopen). Every input: a failure has its error set (file, line, column) and no
 * map; a map that reads is applied to a small humanoid (mb_roles_find): it may be refused
 * (a joint the skeleton lacks) or give self-consistent roles that pair symmetrically, and
 * mirroring and retargeting with those roles (whatever the map claims: hips on a hand) end
 * in a documented refusal or a clip of unit rotations. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "fuzz_roles_common.h"
#include "offline/retarget/roles_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mb_skeleton *hs;
    static mb_clip *hc;
    static mb_roles hr;
    if (!hs) {
        fz_humanoid_load(&hs, &hc);
        mb_error e;
        CHECK(mb_roles_find(hs, NULL, &hr, &e) == MB_OK);
    }
    if (size == 0)
        return 0; /* fmemopen refuses a 0-byte buffer */
    FILE *f = fmemopen((void *)data, size, "rb");
    CHECK(f);
    mb_role_map *map = (mb_role_map *)1;
    mb_error e;
    mb_status st = mb_role_map_read_stream_(f, "fuzz.map", &map, &e);
    fclose(f);
    if (st != MB_OK) {
        CHECK(map == (mb_role_map *)1 || map == NULL);
        fz_check_error(&e, st);
        CHECK(st == MB_PARSE || st == MB_LIMIT || st == MB_NOMEM || st == MB_IO);
        CHECK(strcmp(e.source, "fuzz.map") == 0);
        CHECK(e.line >= 1);
        return 0;
    }
    mb_roles r;
    st = mb_roles_find(hs, map, &r, &e);
    if (st != MB_OK) {
        fz_check_error(&e, st);
        CHECK(st == MB_INVALID_ARG);
    } else {
        fz_check_roles(hs, &r);
        fz_mirror(hs, hc, &r, 1);
        fz_retarget(hs, hc, &r, hs, hc, &hr, 1);
        fz_retarget(hs, hc, &hr, hs, hc, &r, 1);
        mb_roles_free(&r);
    }
    mb_role_map_destroy(map);
    return 0;
}
