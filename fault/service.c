/*
 * Fault service threads. Each is pinned to one CPU of the process and
 * sleeps in poll(2) on the shared userfaultfd; the one on the faulting
 * core wins the race for the message because that core has just gone
 * idle (fault/cpuset.c). A fault populates the whole block through the
 * tier the placement policy picks, in one ioctl.
 *
 * Races: two threads may fault on one block at once. The first handler to
 * set BUSY on the block resolves it; a second message for the block is
 * dropped, because whoever clears BUSY wakes every thread parked in the
 * block after publishing its state (and a thread that parks after its
 * page is mapped does not sleep: the kernel re-checks the PTE). Pages are
 * mapped without waking, so no thread runs on a block before queries and
 * the allocator see its new residence.
 */
#include "fault/service.h"

#include <errno.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fault/cpuset.h"
#include "fault/fill.h"
#include "fault/uffd.h"
#include "migrate/migrate.h"
#include "migrate/policy.h"
#include "uvas/internal.h"
#include "uvas/status.h"
#include "uvas/tier.h"

#define MSG_BATCH 32

struct uvas_fault_service {
    int uffd;
    int stopfd;
    struct uvas_fill fill;
    unsigned n;
    struct worker {
        struct uvas_fault_service *s;
        pthread_t th;
        int cpu;
    } w[];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Out of memory or a failed copy: as the kernel does when shmem cannot
 * grow, the faulting thread gets SIGBUS rather than retrying forever. */
static void give_up(size_t bi, uintptr_t addr, uint32_t tid)
{
    uvas_warn("fault at %#lx: %s; sending SIGBUS to thread %u", (unsigned long)addr,
              uvas_last_error(), tid);
    if (tid)
        syscall(SYS_tgkill, getpid(), (pid_t)tid, SIGBUS);
    uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* The first touch of a block: the policy places it. */
static void first_touch(size_t bi, uintptr_t addr, uint32_t tid)
{
    struct uvas_counters *c = &uvas_g.ctr;
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t seen;
    if (!uvas_blk_try_busy(b, UVAS_RES_UNPOPULATED, &seen)) {
        atomic_fetch_add_explicit(&c->faults_spurious, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_CPU], 1, memory_order_relaxed);
    if (atomic_load_explicit(&b->owner, memory_order_acquire) == 0)
        atomic_fetch_add_explicit(&c->faults_stray, 1, memory_order_relaxed);
    int res = uvas_policy_place(&uvas_g.policy, bi, UVAS_AGENT_CPU);
    const struct uvas_tier_ops *t = uvas_tier_of(res);
    int rc = t ? t->populate(bi, addr) : UVAS_ERR_NO_DEVICE;
    if (rc != UVAS_OK && res == UVAS_RES_DEVICE) { /* a touch never fails for want of room */
        res = UVAS_RES_HOST;
        t = &uvas_tier_host;
        rc = t->populate(bi, addr);
    }
    if (rc != UVAS_OK) {
        uvas_blk_publish(b, seen, UVAS_RES_UNPOPULATED);
        give_up(bi, addr, tid);
        return;
    }
    uvas_blk_publish(b, seen, res);
    uvas_stats_block_in(res, 1);
    uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* A host block whose pages are in the memfd but not mapped here (after an
 * eviction, access sampling, or a write through another mapping): map the
 * whole block. Holding BUSY keeps a migration from unmapping it under us. */
static void map_host(size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t seen;
    if (!uvas_blk_try_busy(b, UVAS_RES_HOST, &seen)) {
        atomic_fetch_add_explicit(&uvas_g.ctr.faults_spurious, 1, memory_order_relaxed);
        return;
    }
    char *a = uvas_block_addr(bi);
    atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_CPU], 1, memory_order_relaxed); /* sampled */
    uvas_uffd_continue(&uvas_g.uffd, a, uvas_g.block_size);
    uvas_blk_unbusy(b, seen);
    uvas_uffd_wake(&uvas_g.uffd, a, uvas_g.block_size);
}

void uvas_fault_serve(uintptr_t addr, uint64_t flags, uint32_t tid)
{
    struct uvas_counters *c = &uvas_g.ctr;
    atomic_fetch_add_explicit(&c->faults, 1, memory_order_relaxed);
    size_t bi = uvas_block_index((void *)addr);
    uint32_t s = atomic_load_explicit(&uvas_g.bt[bi].state, memory_order_acquire);
    if (s & UVAS_BLK_BUSY) { /* whoever holds it wakes the block when done */
        atomic_fetch_add_explicit(&c->faults_spurious, 1, memory_order_relaxed);
        return;
    }
    if (flags & UFFD_PAGEFAULT_FLAG_WP) { /* a write to a read-only host copy */
        atomic_fetch_add_explicit(&c->faults_device, 1, memory_order_relaxed);
        uvas_migrate_write_fault(bi);
        return;
    }
    /* Missing and minor faults are told apart by the block's state. */
    switch (uvas_blk_res(s)) {
    case UVAS_RES_UNPOPULATED:
        first_touch(bi, addr, tid);
        break;
    case UVAS_RES_HOST:
        map_host(bi);
        break;
    case UVAS_RES_DEVICE:
        /* The CPU wants a device-resident block: the policy says whether
         * it comes back or is mapped where it is. */
        atomic_fetch_add_explicit(&c->faults_device, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&uvas_g.bt[bi].acc[UVAS_AGENT_CPU], 1, memory_order_relaxed);
        if (!uvas_migrate_cpu_map(bi, flags & UFFD_PAGEFAULT_FLAG_WRITE) &&
            uvas_migrate_blocks(bi, 1, UVAS_RES_HOST, 0) != UVAS_OK)
            give_up(bi, addr, tid);
        break;
    }
}

_Thread_local bool uvas_on_fault_thread;

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uvas_on_fault_thread = true;
    struct uvas_fault_service *s = w->s;
    struct uffd_msg msg[MSG_BATCH];
    struct pollfd pfd[3] = {{.fd = s->uffd, .events = POLLIN},
                            {.fd = s->stopfd, .events = POLLIN},
                            {.fd = s->fill.evfd, .events = POLLIN}};

    for (;;) {
        if (poll(pfd, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            uvas_warn("fault service: poll failed: %s", strerror(errno));
            return NULL;
        }
        if (pfd[1].revents)
            return NULL;
        if (pfd[2].revents)
            uvas_fill_help(&s->fill);
        if (!(pfd[0].revents & POLLIN))
            continue;
        ssize_t got = read(s->uffd, msg, sizeof msg);
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue; /* another handler took the message */
            uvas_warn("fault service: read of the userfaultfd failed: %s", strerror(errno));
            return NULL;
        }
        for (size_t i = 0; i < (size_t)got / sizeof msg[0]; i++) {
            if (msg[i].event != UFFD_EVENT_PAGEFAULT)
                continue;
            uint64_t t0 = now_ns();
            uvas_fault_serve((uintptr_t)msg[i].arg.pagefault.address,
                             msg[i].arg.pagefault.flags, msg[i].arg.pagefault.feat.ptid);
            uvas_stats_fault_time(now_ns() - t0);
        }
    }
}

int uvas_fault_service_start(int uffd, unsigned want, struct uvas_fault_service **out)
{
    int cpus[UVAS_MAX_FAULT_THREADS];
    unsigned ncpu = uvas_fault_cpus(cpus, UVAS_MAX_FAULT_THREADS);
    unsigned n = want ? want : ncpu;
    struct uvas_fault_service *s = calloc(1, sizeof *s + n * sizeof s->w[0]);
    if (!s)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the fault service");
    s->uffd = uffd;
    s->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int e = s->stopfd < 0 ? -errno : uvas_fill_init(&s->fill, n - 1);
    if (e) {
        if (s->stopfd >= 0)
            close(s->stopfd);
        free(s);
        return uvas_fail(UVAS_ERR_SYS, "eventfd for the fault service failed: %s",
                         strerror(-e));
    }
    /* Service threads take no signals: the application's handlers must
     * run on its own threads, and a signal must not interrupt a fault. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = UVAS_OK;
    for (unsigned i = 0; i < n; i++) {
        s->w[i].s = s;
        s->w[i].cpu = cpus[i % ncpu];
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 << 10);
        if (s->w[i].cpu >= 0) {
            cpu_set_t cs;
            CPU_ZERO(&cs);
            CPU_SET(s->w[i].cpu, &cs);
            pthread_attr_setaffinity_np(&attr, sizeof cs, &cs);
        }
        int e = pthread_create(&s->w[i].th, &attr, worker_main, &s->w[i]);
        pthread_attr_destroy(&attr);
        if (e) {
            rc = uvas_fail(UVAS_ERR_SYS, "cannot start fault service thread %u: %s", i,
                           strerror(e));
            break;
        }
        s->n = i + 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        uvas_fault_service_stop(s);
        return rc;
    }
    *out = s;
    return UVAS_OK;
}

int uvas_fault_zero_block(struct uvas_fault_service *s, uintptr_t addr, size_t len,
                          uintptr_t hot)
{
    return uvas_fill_run(s ? &s->fill : NULL, UVAS_FILL_ZERO, addr, len, UVAS_FILL_ZERO_CHUNK,
                         hot);
}

/* A page table's worth (2 MiB) per thread, or a block if larger. */
static int per_table(struct uvas_fault_service *s, enum uvas_fill_op op, uintptr_t addr,
                     size_t len)
{
    size_t chunk = uvas_g.block_size > ((size_t)2 << 20) ? uvas_g.block_size : (size_t)2 << 20;
    return uvas_fill_run(s ? &s->fill : NULL, op, addr, len, chunk, addr);
}

int uvas_fault_map_blocks(struct uvas_fault_service *s, uintptr_t addr, size_t len)
{
    return per_table(s, UVAS_FILL_CONTINUE, addr, len);
}

int uvas_fault_unmap_blocks(struct uvas_fault_service *s, uintptr_t addr, size_t len)
{
    return per_table(s, UVAS_FILL_UNMAP, addr, len);
}

unsigned uvas_fault_service_threads(const struct uvas_fault_service *s)
{
    return s ? s->n : 0;
}

void uvas_fault_service_stop(struct uvas_fault_service *s)
{
    if (!s)
        return;
    uint64_t one = 1;
    if (write(s->stopfd, &one, sizeof one) < 0)
        uvas_warn("fault service: cannot signal stop: %s", strerror(errno));
    for (unsigned i = 0; i < s->n; i++)
        pthread_join(s->w[i].th, NULL);
    close(s->stopfd);
    uvas_fill_fini(&s->fill);
    free(s);
}
