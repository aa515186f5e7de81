/* The program's holds (uvas_gpu_hold, uvas_gpu_hold_range): blocks kept
 * where their translations say for the user's own pipelines, and the
 * bytes they keep from a free (kernel.h). */
#include "gpu/kernel.h"

#include <pthread.h>
#include <stdlib.h>

#include "gpu/context.h"
#include "uvas/atomics.h"
#include "uvas/span.h"
#include "uvas/status.h"

/* Which holds are in uvas_gpu.holds, for uvas_gpu_holds (taken under
 * uvas_gpu.mu or alone, never around another lock). */
static pthread_mutex_t holds_mu = PTHREAD_MUTEX_INITIALIZER;
/* How many are: every uvas_free asks (uvas_gpu_holds), and a program
 * that holds nothing takes no lock for it. */
static _Atomic size_t nholds;

/* h's set asked for: hold it, publish it and keep it. Status; on
 * failure h is freed. */
static int hold_keep(struct uvas_gpu_hold *h, int rc, struct uvas_gpu_hold **out)
{
    if (!rc)
        rc = uvas_hold_all(&h->set, &uvas_gpu.xlat);
    if (!rc) { /* for the user's own pipelines: out now */
        pthread_mutex_lock(&uvas_gpu.xlat.run);
        uvas_hold_publish(&h->set, &uvas_gpu.xlat);
        uvas_list_add(&uvas_gpu.counted, &h->counted);
        pthread_mutex_unlock(&uvas_gpu.xlat.run);
    }
    if (rc) {
        uvas_hold_free(&h->set);
        free(h->bytes);
        free(h);
        return rc;
    }
    pthread_mutex_lock(&uvas_gpu.mu);
    pthread_mutex_lock(&holds_mu);
    uvas_list_add(&uvas_gpu.holds, &h->link);
    atomic_fetch_add_explicit(&nholds, 1, RLX);
    pthread_mutex_unlock(&holds_mu);
    pthread_mutex_unlock(&uvas_gpu.mu);
    *out = h;
    return UVAS_OK;
}

/* A new hold, the context up. Status. */
static int hold_new(struct uvas_gpu_hold **h, const char *fn)
{
    pthread_mutex_lock(&uvas_gpu.mu);
    int rc = uvas_gpu_context_up();
    pthread_mutex_unlock(&uvas_gpu.mu);
    if (rc)
        return rc;
    if (!(*h = calloc(1, sizeof **h)))
        return uvas_fail(UVAS_ERR_NOMEM, "%s: out of memory", fn);
    return UVAS_OK;
}

int uvas_gpu_hold_ptrs(const void *const *ptrs, size_t n, struct uvas_gpu_hold **out)
{
    if (!out || (n && !ptrs))
        return uvas_fail(UVAS_ERR_INVAL, "uvas_gpu_hold: %s is NULL", out ? "ptrs" : "out");
    *out = NULL;
    struct uvas_gpu_hold *h;
    int rc = hold_new(&h, "uvas_gpu_hold");
    if (rc)
        return rc;
    if (n && !(h->bytes = calloc(n, sizeof *h->bytes)))
        rc = uvas_fail(UVAS_ERR_NOMEM, "uvas_gpu_hold: out of memory for %zu pointers", n);
    for (size_t i = 0; i < n && !rc; i++) {
        char *base;
        size_t size;
        if (!uvas_hold_want_alloc(&h->set, ptrs[i], &rc) ||
            !uvas_span_alloc(ptrs[i], &base, &size))
            rc = rc ? rc : uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_gpu_hold: ptrs[%zu] = %p is in "
                                     "no live uvas allocation", i, ptrs[i]);
        else
            h->bytes[h->nbytes++] = (struct held_bytes){(uintptr_t)base,
                                                        (uintptr_t)base + (size ? size : 1)};
    }
    return hold_keep(h, rc, out);
}

int uvas_gpu_hold_span(const void *ptr, size_t len, struct uvas_gpu_hold **out)
{
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_gpu_hold_range: out is NULL");
    *out = NULL;
    if (!len)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_gpu_hold_range: len is 0");
    struct uvas_gpu_hold *h;
    int rc = hold_new(&h, "uvas_gpu_hold_range");
    if (rc)
        return rc;
    if (!uvas_hold_want_range(&h->set, ptr, len, &rc))
        rc = rc ? rc : uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_gpu_hold_range: [%p, +%zu) is not "
                                 "inside one live uvas allocation", ptr, len);
    else if (!(h->bytes = malloc(sizeof *h->bytes)))
        rc = uvas_fail(UVAS_ERR_NOMEM, "uvas_gpu_hold_range: out of memory");
    else
        h->bytes[h->nbytes++] = (struct held_bytes){(uintptr_t)ptr, (uintptr_t)ptr + len};
    return hold_keep(h, rc, out);
}

bool uvas_gpu_holds(const void *p, size_t n)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    bool any = false;
    /* A hold made as this runs may be missed, as under the lock: the
     * free and the hold race either way. */
    if (!atomic_load_explicit(&nholds, RLX))
        return false;
    pthread_mutex_lock(&holds_mu);
    for (struct uvas_link *l = uvas_gpu.holds.next; l != &uvas_gpu.holds && !any; l = l->next) {
        const struct uvas_gpu_hold *h = uvas_list_entry(l, struct uvas_gpu_hold, link);
        for (size_t i = 0; i < h->nbytes && !any; i++)
            any = h->bytes[i].lo < hi && lo < h->bytes[i].hi;
    }
    pthread_mutex_unlock(&holds_mu);
    return any;
}

/* uvas_gpu.mu held. */
static void hold_down(struct uvas_gpu_hold *h)
{
    pthread_mutex_lock(&holds_mu);
    uvas_list_del(&h->link);
    atomic_fetch_sub_explicit(&nholds, 1, RLX);
    pthread_mutex_unlock(&holds_mu);
    pthread_mutex_lock(&uvas_gpu.xlat.run);
    uvas_hold_release(&h->set, &uvas_gpu.xlat);
    uvas_list_del(&h->counted);
    pthread_mutex_unlock(&uvas_gpu.xlat.run);
    uvas_hold_free(&h->set);
    free(h->bytes);
    h->bytes = NULL;
    h->nbytes = 0;
}

void uvas_gpu_release_hold(struct uvas_gpu_hold *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&uvas_gpu.mu);
    if (uvas_list_linked(&h->link)) /* not already let go by uvas_finalize */
        hold_down(h);
    pthread_mutex_unlock(&uvas_gpu.mu);
    free(h);
}

/* uvas_gpu.mu held. */
void uvas_gpu_holds_down(void)
{
    while (!uvas_list_empty(&uvas_gpu.holds))
        hold_down(uvas_list_entry(uvas_gpu.holds.next, struct uvas_gpu_hold, link));
}
