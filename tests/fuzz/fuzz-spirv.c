/*
 * uvas_spirv_check (gpu/spirv.c): the checks a SPIR-V module passes before
 * any driver sees it, on whatever bytes a user hands uvas_kernel_load.
 * The first input byte picks the entry point's name ("main", "", a long
 * one); the rest is the module, also tried with a valid header in front
 * (so the instruction walk gets past the magic). It must return UVAS_OK
 * or UVAS_ERR_INVAL with a message, read nothing past the input (ASan),
 * and accept a module only if it has a GLCompute entry point of that name.
 */
#include <string.h>

#include "fuzz.h"
#include "gpu/spirv.h"
#include "uvas.h"
#include "uvas/status.h"

static void check(const uint8_t *code, size_t bytes, const char *entry)
{
    struct uvas_spirv_info info;
    int rc = uvas_spirv_check(code, bytes, entry, &info);
    FZ_CHECK(rc == UVAS_OK || rc == UVAS_ERR_INVAL, "status %d", rc);
    FZ_CHECK(rc == UVAS_OK || uvas_last_error()[0], "an error without a message");
    FZ_CHECK(rc != UVAS_OK || (entry && entry[0]), "accepted with entry '%s'",
             entry ? entry : "(null)");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const char *const entries[] = {"main", "", "a_rather_long_entry_point_name", NULL};
    const char *entry = entries[data[0] % 4];
    data++;
    size--;
    /* As given (misaligned inputs copied: a module is words). */
    uint32_t *w = malloc(size + 20 + 4);
    if (!w)
        return 0;
    memcpy(w, data, size);
    check((const uint8_t *)w, size, entry);
    /* Behind a valid header: magic, version 1.5, generator, bound, schema. */
    const uint32_t hdr[5] = {0x07230203u, 0x00010500u, 0, 64, 0};
    memcpy(w, hdr, sizeof hdr);
    memcpy(w + 5, data, size);
    check((const uint8_t *)w, 20 + size, entry);
    free(w);
    return 0;
}
