/*
 * What uvas checks in a SPIR-V module before a driver sees it: drivers
 * are not required to survive malformed modules, and a kernel that binds
 * resources of its own would not fit the pipeline layout every uvas
 * kernel shares (set 0, binding 0: the translation table; the arguments
 * as push constants).
 */
#ifndef UVAS_GPU_SPIRV_H
#define UVAS_GPU_SPIRV_H

#include <stddef.h>
#include <stdint.h>

struct uvas_spirv_info {
    uint32_t local_size[3]; /* from OpExecutionMode LocalSize, else 0 */
};

/* Status (UVAS_ERR_INVAL, a message a user can act on): the module is
 * well formed as far as its header and instruction stream go, has a
 * GLCompute entry point named entry, and binds nothing but set 0,
 * binding 0. */
int uvas_spirv_check(const void *code, size_t bytes, const char *entry,
                     struct uvas_spirv_info *info);

#endif
