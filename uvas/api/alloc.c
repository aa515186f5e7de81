/*
 * The public allocation calls: each may start uvas (the first allocation
 * does, as malloc needs no init) and counts itself in so that
 * uvas_finalize waits for it; the allocator proper is the ground's
 * (uvas/alloc.c).
 */
#include <errno.h>
#include <stddef.h>

#include "uvas/alloc.h"
#include "uvas/api/init.h"
#include "uvas/internal.h"
#include "uvas/status.h"

/* Started if needed, then counted in; false (errno ENOMEM) otherwise. */
static bool enter(const char *fn)
{
    uvas_clear_error();
    if (uvas_ensure_init() != UVAS_OK || uvas_api_enter(fn) != UVAS_OK) {
        errno = ENOMEM;
        return false;
    }
    return true;
}

static void *alloc(size_t size, size_t align, unsigned hints, const char *fn)
{
    if (!enter(fn))
        return NULL;
    void *p = uvas_alloc_entered(size, align, hints, fn);
    uvas_api_leave();
    return p;
}

void *uvas_malloc(size_t size)
{
    return alloc(size, 16, 0, "uvas_malloc");
}

void *uvas_malloc_hint(size_t size, unsigned hints)
{
    return alloc(size, 16, hints, "uvas_malloc_hint");
}

void *uvas_aligned_alloc(size_t align, size_t size, unsigned hints)
{
    if (align == 0 || (align & (align - 1))) {
        uvas_clear_error();
        uvas_fail(UVAS_ERR_INVAL, "uvas_aligned_alloc: alignment %zu is not a power of two",
                  align);
        errno = EINVAL;
        return NULL;
    }
    return alloc(size, align < 16 ? 16 : align, hints, "uvas_aligned_alloc");
}

void *uvas_calloc(size_t nmemb, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(nmemb, size, &total)) {
        uvas_clear_error();
        uvas_fail(UVAS_ERR_NOMEM, "uvas_calloc: %zu * %zu bytes overflows", nmemb, size);
        errno = ENOMEM;
        return NULL;
    }
    /* Counted in until the clearing is done (uvas_finalize waits for it). */
    if (!enter("uvas_calloc"))
        return NULL;
    void *p = uvas_calloc_entered(total);
    uvas_api_leave();
    return p;
}

void *uvas_realloc(void *p, size_t size)
{
    if (!p)
        return uvas_malloc(size);
    if (uvas_api_enter("uvas_realloc")) {
        uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_realloc(%p): uvas is not initialised", p);
        errno = EINVAL;
        return NULL;
    }
    void *q = uvas_realloc_entered(p, size);
    uvas_api_leave();
    return q;
}
