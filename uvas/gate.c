/* The gate table and the owner's half of the protocol (uvas/gate.h). */
#include "uvas/gate.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "uvas/internal.h"
#include "uvas/status.h"

void (*uvas_gate_stuck_hook)(size_t block, double seconds);
static _Atomic uint64_t waits;

int uvas_gate_table_create(size_t nblocks, int *fd, _Atomic uint64_t **out)
{
    size_t bytes = (nblocks * sizeof(uint64_t) + 4095) & ~(size_t)4095;
    int f = memfd_create("uvas-gates", MFD_CLOEXEC);
    if (f < 0)
        return uvas_fail(UVAS_ERR_SYS, "memfd_create for the gate table failed: %s",
                         strerror(errno));
    if (ftruncate(f, (off_t)bytes) < 0) {
        int e = errno;
        close(f);
        return uvas_fail(UVAS_ERR_SYS, "cannot size the gate table to %zu bytes: %s", bytes,
                         strerror(e));
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, f, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(f);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the gate table: %s", strerror(e));
    }
    madvise(p, bytes, MADV_DONTFORK);
    *fd = f;
    *out = p;
    return UVAS_OK;
}

void uvas_gate_table_destroy(_Atomic uint64_t *g, size_t nblocks, int fd)
{
    if (g)
        munmap((void *)g, (nblocks * sizeof(uint64_t) + 4095) & ~(size_t)4095);
    if (fd >= 0)
        close(fd);
}

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

void uvas_gate_close(struct uvas_block *b)
{
    if (!uvas_g.gates)
        return;
    _Atomic uint64_t *g = &uvas_g.gates[b - uvas_g.bt];
    uint64_t w = atomic_fetch_or_explicit(g, UVAS_GATE_CLOSED, memory_order_seq_cst);
    if (!(w & UVAS_GATE_PINS))
        return;
    atomic_fetch_add_explicit(&waits, 1, memory_order_relaxed);
    /* A pin covers one bounded access (a store, a copy): spin briefly,
     * then yield, and past seconds ask whether the pinning peer is alive. */
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    double next_report = 5.0;
    for (unsigned i = 0; atomic_load_explicit(g, memory_order_acquire) & UVAS_GATE_PINS; i++) {
        if (i < 64)
            continue;
        sched_yield();
        if ((i & 1023) == 0 && since(&t0) > next_report) {
            if (uvas_gate_stuck_hook)
                uvas_gate_stuck_hook((size_t)(b - uvas_g.bt), since(&t0));
            next_report *= 2;
        }
    }
}

void uvas_gate_open(struct uvas_block *b, uint32_t s)
{
    if (!uvas_g.gates)
        return;
    _Atomic uint64_t *g = &uvas_g.gates[b - uvas_g.bt];
    uint64_t res = (uint64_t)uvas_blk_res(s);
    uint64_t pub = res << UVAS_GATE_RES_SHIFT;
    if (res == UVAS_RES_DEVICE && b->dev_slot &&
        !uvas_devtier_is_dedicated(&uvas_g.devtier, b->dev_slot) &&
        !atomic_load_explicit(&b->dup, memory_order_relaxed))
        pub |= UVAS_GATE_DIRECT | ((uint64_t)b->dev_slot << UVAS_GATE_SLOT_SHIFT);
    if (s & UVAS_BLK_BUSY) /* published while held: keep peers out */
        pub |= UVAS_GATE_CLOSED;
    uint64_t w = atomic_load_explicit(g, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(g, &w, (w & UVAS_GATE_PINS) | pub,
                                                  memory_order_release, memory_order_relaxed))
        ;
}

uint64_t uvas_gate_waits(void)
{
    return atomic_load_explicit(&waits, memory_order_relaxed);
}
