/* libFuzzer target for the glTF pre-check (src/offline/io/gltf_check.c): every input is checked
 * as a .glb and as a .gltf (the names pick no path in the check itself; the JSON error
 * rule does). The check must end in one of its documented statuses with a message, and
 * ASan/UBSan must stay quiet; a patched copy (identity inverse binds) must pass the check
 * as it is. assimp is not called: this fuzzes mblend's own parser of
 * the container and the JSON structure. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offline/io/mesh_internal.h"

static void check_one(const uint8_t *data, size_t size, const char *name)
{
    mb_error err;
    memset(&err, 0x5A, sizeof err); /* the check must write every field it reports */
    mb_gltf_patch patch;
    mb_status st = mb_gltf_check_(data, size, NULL, name, &err, &patch);
    if (st == MB_OK) {
        /* A patched copy must pass the check again, unpatched. */
        if (patch.data) {
            mb_gltf_patch again;
            if (mb_gltf_check_(patch.data, patch.len, NULL, name, &err, &again) != MB_OK || again.data)
                abort();
            free(patch.data);
        }
        return;
    }
    if (st != MB_PARSE && st != MB_LIMIT && st != MB_NOMEM)
        abort();
    if (err.code != st || memchr(err.text, '\0', sizeof err.text) == NULL || err.text[0] == '\0')
        abort();
    if (strncmp(err.text, "glTF: ", 6) != 0 && st != MB_NOMEM)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    check_one(data, size, "fuzz.glb");
    check_one(data, size, "fuzz.gltf");
    return 0;
}
