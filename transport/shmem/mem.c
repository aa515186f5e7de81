/*
 * Symmetric memory and the multi-heap extension. Allocation is collective:
 * every PE makes the same calls in the same order, so uvas's symmetric
 * allocator returns the same address on every PE, and the closing barrier
 * means no PE puts into a peer's block before the peer has it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"
#include "uvas/status.h"

#define HEAP_HINTS (SHMEM_MALLOC_HOST_HEAP | SHMEM_MALLOC_DEVICE_HEAP)
#define KNOWN_HINTS (HEAP_HINTS | SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE)

/* shmemx_residence passes uvas's residence numbers through. */
_Static_assert((int)SHMEMX_RES_UNPOPULATED == (int)UVAS_RES_UNPOPULATED &&
               (int)SHMEMX_RES_HOST == (int)UVAS_RES_HOST &&
               (int)SHMEMX_RES_DEVICE == (int)UVAS_RES_DEVICE, "residence numbers");
_Static_assert((int)SHMEMX_HEAP_UNIFIED == (int)UVAS_HEAP_UNIFIED &&
               (int)SHMEMX_HEAP_HOST == (int)UVAS_HEAP_HOST &&
               (int)SHMEMX_HEAP_DEVICE == (int)UVAS_HEAP_DEVICE, "heap numbers");

static unsigned uvas_hint(int heap)
{
    return heap == SHMEMX_HEAP_HOST ? UVAS_HINT_HOST :
           heap == SHMEMX_HEAP_DEVICE ? UVAS_HINT_DEVICE : 0;
}

/* ---- collective allocation ------------------------------------------------ */

static int status_of_errno(int err)
{
    return err == ENOMEM ? UVAS_ERR_NOMEM : err == ENODEV ? UVAS_ERR_NO_DEVICE :
           UVAS_ERR_INVAL;
}

/* An allocation that failed. Out of memory is an outcome OpenSHMEM 1.5
 * defines (9.3: a null pointer; realloc keeps the object), so it returns
 * in either error mode, shmemx_last_error saying why; anything else (a
 * device heap without a device under UVAS_DEVICE_STRICT) is reported. */
static void alloc_failed(const char *call, int err)
{
    int st = status_of_errno(err);
    if (st == UVAS_ERR_NOMEM)
        uvas_shmem_decline(call, st, "%s", uvas_last_error());
    else
        uvas_shmem_report(call, st);
}

static void barrier(const char *call)
{
    int st = uvas_pe_barrier_all();
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
}

/* Zero without touching from the CPU: a CPU write to device-heap memory
 * would pull its blocks back to the host. */
static int zero_fill(void *p, size_t size, int heap)
{
    if (heap != SHMEMX_HEAP_DEVICE) {
        memset(p, 0, size);
        return UVAS_OK;
    }
    static const char zeros[64 * 1024];
    for (size_t off = 0; off < size; off += sizeof zeros) {
        size_t n = size - off < sizeof zeros ? size - off : sizeof zeros;
        int st = uvas_pe_put((char *)p + off, zeros, n, uvas_pe_me(), false);
        if (st != UVAS_OK)
            return st;
    }
    return UVAS_OK;
}

/*
 * heap < 0: the arguments were bad (already reported). Every PE reaches the
 * barrier even when its allocation failed, so that UVAS_SHMEM_ERRORS=return
 * does not leave the others waiting.
 */
static void *alloc_sym(const char *call, size_t align, size_t size, int heap, bool zero)
{
    void *p = NULL;
    if (heap >= 0) {
        if (zero && heap == SHMEMX_HEAP_UNIFIED)
            p = uvas_calloc(1, size); /* knows which blocks already read zero */
        else if (align)
            p = uvas_aligned_alloc(align, size, uvas_hint(heap));
        else
            p = uvas_malloc_hint(size, uvas_hint(heap));
        if (!p) {
            alloc_failed(call, errno);
        } else if (zero && heap != SHMEMX_HEAP_UNIFIED) {
            int st = zero_fill(p, size, heap);
            if (st != UVAS_OK) {
                uvas_shmem_report(call, st);
                uvas_try_free(p);
                p = NULL;
            }
        }
    }
    uvas_shmem_agree_post(UVAS_AGREE_ALLOC, size, p);
    barrier(call);
    if (uvas_shmem_agree_check(call) != UVAS_OK && p) {
        uvas_try_free(p); /* return mode: the heaps are out of step; the object is not */
        p = NULL;
    }
    return p;
}

void *shmem_malloc(size_t size)
{
    if (size == 0)
        return NULL;
    return alloc_sym("shmem_malloc", 0, size, uvas_shmem_default_heap("shmem_malloc"), false);
}

void *shmem_calloc(size_t count, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(count, size, &total)) {
        uvas_shmem_decline("shmem_calloc", UVAS_ERR_NOMEM, "%zu * %zu bytes overflows size_t",
                           count, size);
        barrier("shmem_calloc");
        return NULL;
    }
    if (total == 0)
        return NULL;
    return alloc_sym("shmem_calloc", 0, total, uvas_shmem_default_heap("shmem_calloc"), true);
}

void *shmem_align(size_t alignment, size_t size)
{
    if (size == 0)
        return NULL;
    int heap = uvas_shmem_default_heap("shmem_align");
    if (heap >= 0 && (alignment == 0 || (alignment & (alignment - 1)))) {
        uvas_shmem_fail("shmem_align", UVAS_ERR_INVAL, "alignment %zu is not a power of "
                        "two", alignment);
        heap = -1;
    }
    return alloc_sym("shmem_align", alignment, size, heap, false);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    static const char call[] = "shmem_malloc_with_hints";
    if (size == 0)
        return NULL;
    int heap;
    /* Hints are advice an implementation may ignore (OpenSHMEM 1.5,
     * 9.3.2): bits uvas does not know are ignored, as another
     * implementation's would be here. uvas_malloc_hint stays strict. */
    hints &= KNOWN_HINTS;
    if ((hints & HEAP_HINTS) == HEAP_HINTS) {
        /* Contradicting advice (programs pass ~0L as "invalid hints" and
         * expect a plain allocation): neither is taken. */
        heap = uvas_shmem_default_heap(call);
    } else if (hints & SHMEM_MALLOC_HOST_HEAP) {
        heap = SHMEMX_HEAP_HOST;
    } else if (hints & SHMEM_MALLOC_DEVICE_HEAP) {
        heap = SHMEMX_HEAP_DEVICE;
    } else {
        /* ATOMICS_REMOTE and SIGNAL_REMOTE need no special memory here:
         * every path performs AMOs atomically. */
        heap = uvas_shmem_default_heap(call);
    }
    return alloc_sym(call, 0, size, heap, false);
}

void *shmem_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return shmem_malloc(size);
    if (size == 0) {
        shmem_free(ptr);
        return NULL;
    }
    /* The PEs agree on the request before any moves its object: a
     * realloc cannot be undone (a shrink drops the tail; a move frees the
     * old place), so one that disagrees fails everywhere as realloc(3)
     * fails, each object where it was. The barrier is the one that keeps
     * a PE from moving its object while a peer still accesses the old. */
    uvas_shmem_agree_post(UVAS_AGREE_REALLOC, size, ptr);
    barrier("shmem_realloc");
    if (uvas_shmem_agree_check("shmem_realloc") != UVAS_OK)
        return NULL;
    void *q = uvas_realloc(ptr, size);
    if (!q)
        alloc_failed("shmem_realloc", errno);
    /* And on the outcome: a PE out of memory where the others were not
     * leaves the heaps out of step, which this reports (and, by default,
     * ends the job on). */
    uvas_shmem_agree_post(UVAS_AGREE_REALLOC, size, q);
    barrier("shmem_realloc");
    uvas_shmem_agree_check("shmem_realloc");
    return q;
}

void shmem_free(void *ptr)
{
    if (!ptr)
        return;
    /* Peers may still be putting into this PE's copy until they arrive. */
    uvas_shmem_agree_post(UVAS_AGREE_FREE, 0, ptr);
    barrier("shmem_free");
    if (uvas_shmem_agree_check("shmem_free") != UVAS_OK)
        return; /* return mode: not freeing what the others may not */
    int st = uvas_try_free(ptr);
    if (st != UVAS_OK)
        uvas_shmem_report("shmem_free", st);
}

void *shmalloc(size_t size)
{
    return shmem_malloc(size);
}

void *shmemalign(size_t alignment, size_t size)
{
    return shmem_align(alignment, size);
}

void *shrealloc(void *ptr, size_t size)
{
    return shmem_realloc(ptr, size);
}

void shfree(void *ptr)
{
    shmem_free(ptr);
}

/* ---- addressing ----------------------------------------------------------- */

static void *ptr_at(const char *call, const void *dest, int pe)
{
    int st = uvas_pe_check(call, dest, 1, pe);
    if (st != UVAS_OK) {
        uvas_shmem_report(call, st);
        return NULL;
    }
    if (pe == uvas_pe_me())
        return (void *)dest;
    /* Only memory that never moves: host-heap allocations (a store through
     * a pointer into a block that later migrated would be lost). Heaps are
     * symmetric, so our own allocation at dest has the peer's hints. */
    struct uvas_ptr_info info;
    if (uvas_query(dest, &info) != UVAS_OK || !(info.alloc_hints & UVAS_HINT_HOST))
        return NULL;
    return uvas_pe_ptr(dest, pe);
}

void *shmem_ptr(const void *dest, int pe)
{
    return ptr_at("shmem_ptr", dest, pe);
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    int world = shmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
    if (world < 0) {
        uvas_shmem_fail("shmem_team_ptr", UVAS_ERR_INVAL, "PE %d is not a member of "
                        "team %p", pe, (void *)team);
        return NULL;
    }
    return ptr_at("shmem_team_ptr", dest, world);
}

int shmem_addr_accessible(const void *addr, int pe)
{
    return uvas_pe_check("shmem_addr_accessible", addr, 1, pe) == UVAS_OK;
}

/* ---- heap and residence queries ------------------------------------------- */

int shmemx_heap_of(const void *ptr)
{
    struct uvas_ptr_info info;
    int st = uvas_query(ptr, &info);
    if (st != UVAS_OK) {
        uvas_shmem_report("shmemx_heap_of", st);
        return -1;
    }
    if (info.alloc_hints & UVAS_HINT_HOST)
        return SHMEMX_HEAP_HOST;
    if (info.alloc_hints & UVAS_HINT_DEVICE)
        return SHMEMX_HEAP_DEVICE;
    return SHMEMX_HEAP_UNIFIED;
}

int shmemx_residence(const void *ptr, int pe)
{
    int st = uvas_pe_check("shmemx_residence", ptr, 1, pe);
    int res = st == UVAS_OK ? uvas_pe_residence(ptr, pe) : st;
    if (res < 0) {
        uvas_shmem_report("shmemx_residence", res);
        return -1;
    }
    return res; /* SHMEMX_RES_* are numbered as enum uvas_residence */
}

int shmemx_team_residence(shmem_team_t team, const void *ptr, int pe)
{
    static const char call[] = "shmemx_team_residence";
    struct uvas_shmem_team *t = uvas_shmem_team_of(call, team);
    if (!t)
        return -1;
    if (pe < 0 || pe >= t->size) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "PE %d is not in the team (its PEs are 0..%d)",
                        pe, t->size - 1);
        return -1;
    }
    return shmemx_residence(ptr, uvas_shmem_team_pe(t, pe));
}

int shmemx_ctx_residence(shmem_ctx_t ctx, const void *ptr, int pe)
{
    shmem_team_t team;
    if (shmem_ctx_get_team(ctx, &team) != 0)
        return -1;
    return shmemx_team_residence(team, ptr, pe);
}

int shmemx_default_heap(void)
{
    return uvas_shmem_default_heap("shmemx_default_heap");
}

int shmemx_device_present(void)
{
    struct uvas_range_desc d;
    int st = uvas_range(&d);
    if (st == UVAS_ERR_NOT_INIT)
        return -1;
    if (st != UVAS_OK) {
        uvas_shmem_report("shmemx_device_present", st);
        return -1;
    }
    return d.device_present ? 1 : 0;
}
