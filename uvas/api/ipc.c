/*
 * Host memory for another process of the node (uvas.h, "sharing host
 * memory"): the exporter hands out its host tier's descriptor and a handle
 * naming one allocation kept in CPU memory; the importer checks that the
 * descriptor is a uvas host tier of its own user and maps the allocation.
 * Host-heap memory never migrates, so the pages both map stay the data.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "uvas.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/range.h"
#include "uvas/status.h"

int uvas_ipc_export(const void *ptr, struct uvas_ipc_handle *h, int *fd)
{
    uvas_clear_error();
    if (!h)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_export: the handle is NULL");
    int rc = uvas_api_enter("uvas_ipc_export");
    if (rc)
        return rc;
    struct uvas_ptr_info info;
    if (uvas_query(ptr, &info) != UVAS_OK) {
        rc = uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_ipc_export(%p): not in a live uvas "
                       "allocation", ptr);
    } else if (info.alloc_base != ptr) {
        rc = uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_export(%p): not the start of its allocation "
                       "(%p, %zu bytes)", ptr, info.alloc_base, info.alloc_size);
    } else if (!(info.alloc_hints & UVAS_HINT_HOST)) {
        rc = uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_export(%p): the allocation may migrate to the "
                       "device; only memory allocated with UVAS_HINT_HOST (a UVAS_POOL_HOST "
                       "pool's) stays where another process can map it", ptr);
    } else {
        /* Untouched blocks placed now: the importer's first touch would
         * otherwise make pages the exporter's fault path does not know. A
         * touch fills its whole block; an atomic add of 0 changes no byte,
         * whatever another thread stores meanwhile. */
        uintptr_t a = (uintptr_t)ptr, end = a + info.alloc_size;
        for (; a < end; a = (a | (uvas_g.block_size - 1)) + 1)
            atomic_fetch_add_explicit((_Atomic unsigned char *)a, 0, memory_order_relaxed);
    }
    if (rc == UVAS_OK && fd)
        rc = uvas_os_dup(uvas_g.memfd, fd);
    if (rc == UVAS_OK)
        *h = (struct uvas_ipc_handle){.magic = UVAS_IPC_MAGIC,
                                      .offset = (uint64_t)((const char *)ptr - uvas_g.base),
                                      .size = info.alloc_size,
                                      .pid = uvas_os_pid(),
                                      .tier = uvas_os_file_tag(uvas_g.memfd)};
    uvas_api_leave();
    return rc;
}

/* What uvas_ipc_open mapped, so that uvas_ipc_close unmaps exactly that
 * (never what a handle, the other process's bytes, would name). */
struct mapping {
    struct mapping *next;
    void *ptr;      /* what the caller got */
    void *map;
    size_t len;
    uint64_t offset, size; /* of the handle it was opened for */
};
static struct mapping *maps;
static pthread_mutex_t maps_mu = PTHREAD_MUTEX_INITIALIZER;

/* The stretch of the descriptor that holds h's allocation, in whole pages
 * of the descriptor (2 MiB where the host tier is of huge pages). */
static void stretch(const struct uvas_ipc_handle *h, size_t page, size_t *off, size_t *len)
{
    *off = (size_t)h->offset & ~(page - 1);
    *len = ((size_t)(h->offset + h->size) - *off + page - 1) & ~(page - 1);
}

int uvas_ipc_open(int fd, const struct uvas_ipc_handle *h, void **ptr)
{
    uvas_clear_error();
    if (!h || !ptr)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_open: the handle or ptr is NULL");
    *ptr = NULL;
    if (h->magic != UVAS_IPC_MAGIC)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_open: not a handle from uvas_ipc_export "
                         "(magic %#llx)", (unsigned long long)h->magic);
    size_t fsize, page;
    int rc = uvas_os_own_memfd(fd, UVAS_HOST_TIER_NAME, &fsize, &page);
    if (rc)
        return uvas_fail(rc, "uvas_ipc_open: %s", uvas_last_error());
    if (h->tier != uvas_os_file_tag(fd))
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_open: the handle was exported from another "
                         "host tier than this descriptor's (another process's, or one from "
                         "before its exporter's uvas_finalize)");
    if (h->size == 0 || h->offset > fsize || h->size > fsize - h->offset)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_open: the handle names [%#llx, +%llu), "
                         "outside the exporter's host tier (%zu bytes)",
                         (unsigned long long)h->offset, (unsigned long long)h->size, fsize);
    struct mapping *m = calloc(1, sizeof *m);
    if (!m)
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_ipc_open: out of memory");
    size_t off;
    stretch(h, page, &off, &m->len);
    /* Not inherited by a child, as the range is not (uvas/range.c). */
    rc = uvas_os_map(fd, off, m->len, UVAS_OS_RW | UVAS_OS_NOFORK, NULL, &m->map);
    if (rc) {
        free(m);
        return uvas_fail(rc, "uvas_ipc_open: %s", uvas_last_error());
    }
    m->ptr = (char *)m->map + (h->offset - off);
    m->offset = h->offset;
    m->size = h->size;
    pthread_mutex_lock(&maps_mu);
    m->next = maps;
    maps = m;
    pthread_mutex_unlock(&maps_mu);
    *ptr = m->ptr;
    return UVAS_OK;
}

int uvas_ipc_keep(int fd, int *kept)
{
    uvas_clear_error();
    if (!kept)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_keep: kept is NULL");
    size_t fsize, page;
    int rc = uvas_os_own_memfd(fd, UVAS_HOST_TIER_NAME, &fsize, &page);
    if (rc == UVAS_OK)
        rc = uvas_os_dup(fd, kept);
    return rc;
}

void uvas_ipc_drop(int fd)
{
    uvas_os_close(fd);
}

int uvas_ipc_close(void *ptr, const struct uvas_ipc_handle *h)
{
    uvas_clear_error();
    if (!ptr || !h || h->magic != UVAS_IPC_MAGIC)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_close: no mapping of a uvas_ipc_export "
                         "handle given");
    pthread_mutex_lock(&maps_mu);
    struct mapping **pp = &maps;
    while (*pp && !((*pp)->ptr == ptr && (*pp)->offset == h->offset && (*pp)->size == h->size))
        pp = &(*pp)->next;
    struct mapping *m = *pp;
    if (m)
        *pp = m->next;
    pthread_mutex_unlock(&maps_mu);
    if (!m)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_ipc_close(%p): not a mapping uvas_ipc_open made "
                         "for this handle (or closed already)", ptr);
    uvas_os_unmap(m->map, m->len);
    free(m);
    return UVAS_OK;
}
