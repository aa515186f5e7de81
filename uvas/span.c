/* The range arguments of the API (span.h). */
#include "uvas/span.h"

#include <stdatomic.h>
#include <stdint.h>

#include "uvas/internal.h"
#include "uvas/status.h"

_Atomic uint64_t uvas_spans_epoch = 1;
__thread struct uvas_span_memo uvas_span_memo __attribute__((tls_model("initial-exec")));

int uvas_span_check(const void *ptr, size_t len, const char *fn, struct uvas_ptr_info *info)
{
    if (!atomic_load(&uvas_g.ready))
        return uvas_fail(UVAS_ERR_NOT_INIT, "%s: call uvas_init first", fn);
    if (len == 0)
        return uvas_fail(UVAS_ERR_INVAL, "%s(%p, 0): len 0 covers nothing", fn, ptr);
    if (uvas_query(ptr, info) != UVAS_OK)
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is in no live uvas allocation",
                         fn, ptr);
    size_t off = (size_t)((uintptr_t)ptr - (uintptr_t)info->alloc_base);
    if (len > info->alloc_size - off)
        return uvas_fail(UVAS_ERR_INVAL, "%s(%p, %zu): the range runs %zu bytes past the end "
                         "of its allocation (%p, %zu bytes); a range must lie inside one live "
                         "allocation", fn, ptr, len, len - (info->alloc_size - off),
                         info->alloc_base, info->alloc_size);
    return UVAS_OK;
}
