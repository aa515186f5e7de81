/*
 * The public kernel calls (include/uvas_gpu.h): each may start uvas, as an
 * allocation may, and counts itself in so that uvas_finalize waits for it;
 * the work is gpu/'s.
 */
#include "gpu/kernel.h"
#include "uvas/api/init.h"
#include "uvas/internal.h"
#include "uvas/status.h"

static int enter(const char *fn)
{
    uvas_clear_error();
    int rc = uvas_ensure_init();
    return rc ? rc : uvas_api_enter(fn);
}

int uvas_kernel_load(const void *spirv, size_t bytes, const char *entry, uvas_kernel_t **out)
{
    int rc = enter("uvas_kernel_load");
    if (rc)
        return rc;
    rc = uvas_gpu_kernel_load(spirv, bytes, entry, out);
    uvas_api_leave();
    return rc;
}

int uvas_kernel_launch(uvas_kernel_t *k, const uint32_t groups[3], const void *args,
                       size_t args_size, unsigned flags)
{
    int rc = enter("uvas_kernel_launch");
    if (rc)
        return rc;
    rc = uvas_gpu_kernel_launch(k, groups, args, args_size, flags);
    uvas_api_leave();
    return rc;
}

int uvas_kernel_launch_batch(const struct uvas_launch *l, size_t n)
{
    int rc = enter("uvas_kernel_launch_batch");
    if (rc)
        return rc;
    rc = uvas_gpu_kernel_launch_batch(l, n, "uvas_kernel_launch_batch");
    uvas_api_leave();
    return rc;
}

int uvas_kernel_stats(uvas_kernel_t *k, struct uvas_kernel_stat *out, size_t max, size_t *n)
{
    int rc = enter("uvas_kernel_stats");
    if (rc)
        return rc;
    rc = uvas_gpu_kernel_stats(k, out, max, n);
    uvas_api_leave();
    return rc;
}

/* Not counted in: a kernel outlives uvas_finalize (which tears down its
 * device objects) and is still the user's to free. */
void uvas_kernel_free(uvas_kernel_t *k)
{
    uvas_gpu_kernel_free(k);
}

int uvas_gpu_info(struct uvas_gpu_info *out)
{
    int rc = enter("uvas_gpu_info");
    if (rc)
        return rc;
    rc = uvas_gpu_get_info(out);
    uvas_api_leave();
    return rc;
}

int uvas_gpu_hold(const void *const *ptrs, size_t n, uvas_gpu_hold_t **out)
{
    int rc = enter("uvas_gpu_hold");
    if (rc)
        return rc;
    rc = uvas_gpu_hold_ptrs(ptrs, n, out);
    uvas_api_leave();
    return rc;
}

int uvas_gpu_hold_range(const void *ptr, size_t len, uvas_gpu_hold_t **out)
{
    int rc = enter("uvas_gpu_hold_range");
    if (rc)
        return rc;
    rc = uvas_gpu_hold_span(ptr, len, out);
    uvas_api_leave();
    return rc;
}

void uvas_gpu_release(uvas_gpu_hold_t *h)
{
    uvas_gpu_release_hold(h);
}
