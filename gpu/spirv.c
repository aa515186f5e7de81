/* SPIR-V checks before the driver (spirv.h). Opcodes and enumerants are
 * the SPIR-V specification's (1.0-1.6). */
#include "gpu/spirv.h"

#include <stdbool.h>
#include <string.h>

#include "uvas.h"
#include "uvas/status.h"

#define SPV_MAGIC 0x07230203u
#define OP_ENTRY_POINT 15
#define OP_EXECUTION_MODE 16
#define OP_DECORATE 71
#define MODEL_GLCOMPUTE 5
#define MODE_LOCAL_SIZE 17
#define DECORATION_BINDING 33
#define DECORATION_DESCRIPTOR_SET 34

/* The literal string at words [w, end) fits and ends with a NUL. */
static const char *literal(const uint32_t *w, size_t nwords, char *buf, size_t n)
{
    size_t max = nwords * 4 < n ? nwords * 4 : n - 1;
    memcpy(buf, w, max);
    buf[max] = 0;
    return memchr(w, 0, nwords * 4) ? buf : NULL;
}

int uvas_spirv_check(const void *code, size_t bytes, const char *entry,
                     struct uvas_spirv_info *info)
{
    memset(info, 0, sizeof *info);
    if (!entry || !entry[0])
        return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: no entry point named (the "
                         "compute shader's function, usually \"main\")");
    if (!code || bytes < 20 || bytes % 4)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: %zu bytes are not a SPIR-V module "
                         "(a header of 5 words, then whole words)", bytes);
    const uint32_t *w = code;
    size_t n = bytes / 4;
    if (w[0] != SPV_MAGIC)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: not SPIR-V (magic %#x, expected "
                         "%#x; compile the shader with glslc or glslangValidator -V)", w[0],
                         SPV_MAGIC);
    if (w[1] > 0x00010600u || w[1] < 0x00010000u)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: SPIR-V version %u.%u is not one "
                         "Vulkan takes (1.0 to 1.6)", (w[1] >> 16) & 0xff, (w[1] >> 8) & 0xff);
    uint32_t entry_id = 0;
    bool found = false, other_model = false;
    for (size_t i = 5; i < n;) {
        uint32_t words = w[i] >> 16, op = w[i] & 0xffff;
        if (words == 0 || i + words > n)
            return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: the SPIR-V instruction at word "
                             "%zu runs past the module's %zu words (truncated or corrupt)", i, n);
        char name[256];
        if (op == OP_ENTRY_POINT && words >= 4) {
            const char *s = literal(&w[i + 3], words - 3, name, sizeof name);
            if (!s)
                return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: an OpEntryPoint name at "
                                 "word %zu is not terminated", i);
            if (entry && !strcmp(s, entry)) {
                if (w[i + 1] == MODEL_GLCOMPUTE) {
                    found = true;
                    entry_id = w[i + 2];
                } else {
                    other_model = true;
                }
            }
        } else if (op == OP_EXECUTION_MODE && words >= 6 && found && w[i + 1] == entry_id &&
                   w[i + 2] == MODE_LOCAL_SIZE) {
            memcpy(info->local_size, &w[i + 3], sizeof info->local_size);
        } else if (op == OP_DECORATE && words >= 4 &&
                   (w[i + 2] == DECORATION_DESCRIPTOR_SET || w[i + 2] == DECORATION_BINDING) &&
                   w[i + 3] != 0) {
            return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: the module declares a resource "
                             "at %s %u; uvas kernels reach memory through uvas addresses "
                             "(include \"uvas.glsl\"), and set 0, binding 0 is uvas's "
                             "translation table: pass buffers as uvas pointers in the "
                             "arguments", w[i + 2] == DECORATION_BINDING ? "binding" : "set",
                             w[i + 3]);
        }
        i += words;
    }
    if (!found)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: no compute entry point named '%s'%s",
                         entry ? entry : "(null)",
                         other_model ? " (there is one, but not for GLCompute)" : "");
    return UVAS_OK;
}
