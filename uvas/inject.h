/*
 * Fault injection: make chosen calls fail, to exercise the error paths.
 *
 * Off by default and free when off: each site is
 *     if (uvas_inject_fail(UVAS_INJ_X)) { ...the real failure's path... }
 * placed where the real call's failure is handled, and costs one relaxed
 * load of a global and a predictable branch while nothing is armed.
 *
 * Armed by UVAS_INJECT="site:spec[,site:spec...]", read by uvas_init:
 *   site  device-alloc | export | map | dma | uffd | mmap | memfd | ucx
 *   spec  N        fail the Nth call only (counting from 1)
 *         N+       fail the Nth call and every one after it
 *         every:K  fail every Kth call (K, 2K, 3K, ...)
 *         rate:P   fail each call with probability P (0 < P <= 1), from a
 *                  deterministic generator seeded by UVAS_INJECT_SEED
 *                  (default 1): the same calls fail in every run
 * Counting (calls and failures per site) goes on across uvas_finalize and
 * uvas_init while UVAS_INJECT and UVAS_INJECT_SEED stay the same, so a
 * retry after an injected failure of uvas_init itself gets past an `N`
 * spec; a changed value starts afresh. uvas_stats.injected[site] reports
 * the failures injected.
 */
#ifndef UVAS_INJECT_H
#define UVAS_INJECT_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum uvas_inject_site {
    UVAS_INJ_DEVICE_ALLOC, /* vkAllocateMemory of device slabs and dedicated blocks */
    UVAS_INJ_EXPORT,       /* vkGetMemoryFdKHR of device memory */
    UVAS_INJ_MAP,          /* mapping memory across: device memory for the CPU
                              (cpuview), host pages imported for the copy engine */
    UVAS_INJ_DMA,          /* vkQueueSubmit of a copy batch or of a kernel run's chunk */
    UVAS_INJ_UFFD,         /* userfaultfd ioctls (fault/) */
    UVAS_INJ_MMAP,         /* mmap of the range */
    UVAS_INJ_MEMFD,        /* growth of the host tier's memfd (ftruncate, fallocate) */
    UVAS_INJ_UCX,          /* UCX active-message sends */
    UVAS_INJ_COUNT
};

/* True while any site is armed. */
extern _Atomic bool uvas_inject_on;

/* Should this call of site s fail? Counts the call, and the failure. */
bool uvas_inject_hit(enum uvas_inject_site s);

static inline bool uvas_inject_fail(enum uvas_inject_site s)
{
    return __builtin_expect(atomic_load_explicit(&uvas_inject_on, memory_order_relaxed), 0) &&
           uvas_inject_hit(s);
}

/* The same for a libc call that reports through errno: sets errno to err
 * when it fails the call, so the real path's message reads right. */
static inline bool uvas_inject_fail_errno(enum uvas_inject_site s, int err)
{
    if (!uvas_inject_fail(s))
        return false;
    errno = err;
    return true;
}

/*
 * Arm the sites a spec names (the UVAS_INJECT syntax), disarming the rest;
 * NULL or "" disarms every site. Resets the counts. seed: for rate:P.
 * UVAS_ERR_ENV with a message naming the bad part if malformed (nothing
 * changes then).
 */
int uvas_inject_configure(const char *spec, uint64_t seed);
/* uvas_init's part: UVAS_INJECT and UVAS_INJECT_SEED, applied if they
 * changed since last time. Status as above. */
int uvas_inject_from_env(void);
/* Failures injected at site s so far. */
uint64_t uvas_inject_count(enum uvas_inject_site s);
/* Calls of site s seen while injection was armed. */
uint64_t uvas_inject_calls(enum uvas_inject_site s);
/* "device-alloc", ... */
const char *uvas_inject_site_name(enum uvas_inject_site s);

#endif
