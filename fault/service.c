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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fault/cpuset.h"
#include "fault/fill.h"
#include "migrate/cpuview.h"
#include "migrate/migrate.h"
#include "migrate/policy.h"
#include "migrate/state.h"
#include "uvas/internal.h"
#include "uvas/status.h"
#include "uvas/tier.h"
#include "uvas/uffd.h"

#define MSG_BATCH 32

struct uvas_fault_service {
    int uffd;
    int stopfd;
    struct uvas_fill fill;
    /* Fault messages read by a thread that could not serve them then (it
     * was reading to let an event through, see drain()): the service
     * threads serve them when qfd is readable. */
    pthread_mutex_t qmu;
    struct uffd_msg *q;
    size_t qlen, qcap;
    int qfd;
    /* The spare reader: reads the userfaultfd while a service thread is
     * in work that may wait for an event to be read (mm_ops > 0). */
    _Atomic int mm_ops;
    int kickfd;
    pthread_t spare;
    bool spare_started;
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

static bool in_range(uintptr_t a);
static void mm_begin(void);
static void mm_end(void);

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
    int res = uvas_policy_place(&uvas_mg.policy, bi, UVAS_AGENT_CPU);
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
    bool holes = false;
    uvas_uffd_continue(&uvas_g.uffd, a, uvas_g.block_size, &holes);
    if (holes) /* the user punched it: an import of the old pages is stale */
        atomic_store_explicit(&b->refilled, 1, memory_order_relaxed);
    uvas_blk_unbusy(b, seen);
    uvas_uffd_wake(&uvas_g.uffd, a, uvas_g.block_size);
}

void uvas_fault_serve(uintptr_t addr, uint64_t flags, uint32_t tid)
{
    struct uvas_counters *c = &uvas_g.ctr;
    atomic_fetch_add_explicit(&c->faults, 1, memory_order_relaxed);
    if (!in_range(addr)) {
        /* A mapping the user's mremap moved out of the range, before its
         * event was read: it is being removed; the access is refused. */
        atomic_fetch_add_explicit(&c->faults_stray, 1, memory_order_relaxed);
        uvas_warn("fault at %#lx outside the range (memory moved out of it by mremap); "
                  "sending SIGSEGV to thread %u", (unsigned long)addr, tid);
        if (tid)
            syscall(SYS_tgkill, getpid(), (pid_t)tid, SIGSEGV);
        uvas_uffd_wake(&uvas_g.uffd, (void *)(addr & ~(uintptr_t)4095), 4096);
        return;
    }
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
        mm_begin();
        uvas_migrate_defer_wake = bi; /* give_up signals before it wakes */
        if (!uvas_migrate_cpu_map(bi, flags & UFFD_PAGEFAULT_FLAG_WRITE) &&
            uvas_migrate_blocks(bi, uvas_migrate_fault_window(bi), UVAS_RES_HOST, 0) !=
                UVAS_OK &&
            uvas_blk_res(atomic_load_explicit(&uvas_g.bt[bi].state, memory_order_acquire)) !=
                UVAS_RES_HOST) /* a failure past bi is the readahead's, not this fault's */
            give_up(bi, addr, tid);
        uvas_migrate_defer_wake = SIZE_MAX;
        mm_end();
        break;
    }
}

_Thread_local bool uvas_on_fault_thread;

/* ---- process events: the user's munmap and mremap in the range ---------- */

static struct uvas_fault_service *_Atomic svc; /* the running service */
static struct uvas_fault_service *running;     /* the one started (start/stop) */

static bool in_range(uintptr_t a)
{
    return a >= (uintptr_t)uvas_g.base && a - (uintptr_t)uvas_g.base < uvas_g.size;
}

/* [a, a+len) clipped to the range, page-aligned; false if empty. */
static bool clip(uintptr_t *a, size_t *len)
{
    uintptr_t b = (uintptr_t)uvas_g.base, e = b + uvas_g.size;
    uintptr_t s = *a & ~(uintptr_t)4095, t = (*a + *len + 4095) & ~(uintptr_t)4095;
    if (s < b)
        s = b;
    if (t > e)
        t = e;
    if (s >= t)
        return false;
    *a = s;
    *len = t - s;
    return true;
}

/* Put the memfd mapping back over a hole [a, a+len) that a reservation of
 * ours now holds (not registered: replacing it raises no event). Until it
 * is registered it stays PROT_NONE: an access racing the refill gets
 * SIGSEGV, as it would in the hole, never a page userfaultfd did not see. */
static int map_back(uintptr_t a, size_t len)
{
    off_t off = (off_t)(a - (uintptr_t)uvas_g.base);
    if (mmap((void *)a, len, PROT_NONE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, uvas_g.memfd,
             off) == MAP_FAILED)
        return -errno;
    madvise((void *)a, len, MADV_DONTFORK); /* as the range (uvas/range.c) */
    int e = uvas_uffd_reregister(&uvas_g.uffd, (void *)a, len);
    if (e)
        return e;
    if (mprotect((void *)a, len, PROT_READ | PROT_WRITE) < 0)
        return -errno;
    uvas_uffd_wake(&uvas_g.uffd, (void *)a, len);
    return 0;
}

/* Map the holes in [a, a+len) again; parts mapped meanwhile (uvas's own
 * swaps of CPU views replace mappings in one step and never leave a hole)
 * are left alone. Pages refilled are added to *done. */
static void refill(uintptr_t a, size_t len, size_t *done)
{
    if (!len || msync((void *)a, len, MS_ASYNC) == 0) /* all mapped */
        return;
    void *r = mmap((void *)a, len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (r == MAP_FAILED || r != (void *)a) {
        if (r != MAP_FAILED)
            munmap(r, len); /* a kernel that took NOREPLACE as a hint */
        if (len <= 4096)
            return;
        size_t half = (len / 2) & ~(size_t)4095;
        refill(a, half, done);
        refill(a + half, len - half, done);
        return;
    }
    int e = map_back(a, len);
    if (e) {
        uvas_warn("cannot map [%#lx, %#lx) of the range again after the user's munmap: %s; "
                  "accesses there get SIGSEGV", (unsigned long)a, (unsigned long)(a + len),
                  strerror(-e));
        return;
    }
    *done += len;
}

/* Blocks of [a, a+len) whose CPU view of device memory the user unmapped:
 * the view goes the normal way (migrate/cpuview.c puts the memfd mapping
 * back, registered); the next CPU access maps it again. A block in a
 * transition is left to it: every transition away from the device puts
 * the memfd mapping back first. */
static void drop_views(uintptr_t a, size_t len)
{
    size_t first = uvas_block_index((void *)a), last = uvas_block_index((void *)(a + len - 1));
    for (size_t bi = first; bi <= last; bi++) {
        struct uvas_block *b = &uvas_g.bt[bi];
        uint32_t seen;
        if (!atomic_load_explicit(&b->cpu_mapped, memory_order_relaxed) ||
            !uvas_blk_try_busy(b, UVAS_RES_DEVICE, &seen))
            continue;
        /* Only a view with a hole in it: the event may be the one uvas
         * raised itself mapping this view (MAP_FIXED over the range), read
         * after the view was in place and the block published. BUSY keeps
         * views from changing while we look. */
        if (!atomic_load_explicit(&b->cpu_mapped, memory_order_relaxed) ||
            msync(uvas_block_addr(bi), uvas_g.block_size, MS_ASYNC) == 0) {
            uvas_blk_unbusy(b, seen);
            uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
            continue;
        }
        if (uvas_cpuview_unmap(bi) != UVAS_OK)
            uvas_warn("block %zu: %s", bi, uvas_last_error());
        uvas_blk_unbusy(b, seen);
        uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
    }
}

static _Atomic unsigned long holes_refilled, moves_refused;

/* The user unmapped [a, a+len) (or moved it away): map it again. */
static void user_hole(uintptr_t a, size_t len, const char *what)
{
    if (!clip(&a, &len))
        return;
    drop_views(a, len);
    size_t done = 0;
    refill(a, len, &done);
    if (done && atomic_fetch_add(&holes_refilled, 1) < 8)
        uvas_warn("%s [%#lx, %#lx) of the uvas range: mapped again (the data lives in the "
                  "memfd and is kept)", what, (unsigned long)a, (unsigned long)(a + len));
}

/* Remove a mapping of ours that the user's mremap moved to [a, a+len):
 * its registration first, so the unmap raises no event (which this
 * thread would wait on). Threads parked in it are woken and get SIGSEGV. */
static void remove_moved(uintptr_t a, size_t len)
{
    mprotect((void *)a, len, PROT_NONE);
    uvas_uffd_unregister(&uvas_g.uffd, (void *)a, len);
    munmap((void *)a, len);
    uvas_uffd_wake(&uvas_g.uffd, (void *)a, len);
}

static void handle_event(const struct uffd_msg *m)
{
    switch (m->event) {
    case UFFD_EVENT_UNMAP:
        user_hole((uintptr_t)m->arg.remove.start,
                  (size_t)(m->arg.remove.end - m->arg.remove.start), "munmap of");
        break;
    case UFFD_EVENT_REMAP: {
        uintptr_t from = (uintptr_t)m->arg.remap.from, to = (uintptr_t)m->arg.remap.to;
        size_t len = (size_t)m->arg.remap.len;
        if (!in_range(from))
            break; /* uvas's own: a CPU view swapped back (migrate/cpuview.c) */
        /* The user moved range memory: refused. Its new place would show
         * the memfd's pages, stale for device-resident blocks. */
        remove_moved(to, len);
        if (atomic_fetch_add(&moves_refused, 1) < 8)
            uvas_warn("mremap of [%#lx, %#lx) of the uvas range to %#lx is not supported: the "
                      "moved mapping was removed, the range mapped again where it was",
                      (unsigned long)from, (unsigned long)(from + len), (unsigned long)to);
        user_hole(from, len, "mremap of");
        break;
    }
    default:
        break;
    }
}

/* Queue a fault message for the service threads. */
static void defer(struct uvas_fault_service *s, const struct uffd_msg *m)
{
    pthread_mutex_lock(&s->qmu);
    if (s->qlen == s->qcap) {
        size_t cap = s->qcap ? 2 * s->qcap : 64;
        struct uffd_msg *q = realloc(s->q, cap * sizeof *q);
        if (!q) { /* cannot happen in practice; serve it here rather than lose it */
            pthread_mutex_unlock(&s->qmu);
            uvas_fault_serve((uintptr_t)m->arg.pagefault.address, m->arg.pagefault.flags,
                             m->arg.pagefault.feat.ptid);
            return;
        }
        s->q = q;
        s->qcap = cap;
    }
    s->q[s->qlen++] = *m;
    pthread_mutex_unlock(&s->qmu);
    uint64_t one = 1;
    if (write(s->qfd, &one, sizeof one) < 0) {
        /* the counter is saturated: readers are already told */
    }
}

static _Thread_local bool draining;

/* Read what the userfaultfd holds, so that a waiting event gets through:
 * events are handled here, faults queued for the service threads. Called
 * by threads retrying an ioctl the kernel refused with EAGAIN, and by the
 * spare reader. */
static void drain(void)
{
    struct uvas_fault_service *s = atomic_load(&svc);
    if (!s || draining) {
        sched_yield();
        return;
    }
    draining = true;
    struct uffd_msg msg[MSG_BATCH];
    ssize_t got = read(s->uffd, msg, sizeof msg);
    if (got <= 0)
        sched_yield();
    for (ssize_t i = 0; i < got / (ssize_t)sizeof msg[0]; i++) {
        if (msg[i].event == UFFD_EVENT_PAGEFAULT)
            defer(s, &msg[i]);
        else
            handle_event(&msg[i]);
    }
    draining = false;
}

/* Serve the queued faults. */
static void serve_queued(struct uvas_fault_service *s)
{
    uint64_t v;
    if (read(s->qfd, &v, sizeof v) < 0 && errno != EAGAIN)
        return;
    for (;;) {
        pthread_mutex_lock(&s->qmu);
        if (!s->qlen) {
            pthread_mutex_unlock(&s->qmu);
            return;
        }
        struct uffd_msg m = s->q[--s->qlen];
        pthread_mutex_unlock(&s->qmu);
        uvas_fault_serve((uintptr_t)m.arg.pagefault.address, m.arg.pagefault.flags,
                         m.arg.pagefault.feat.ptid);
    }
}

/* Work that may wait for an event to be read (mapping or unmapping a CPU
 * view raises UNMAP and REMAP events, and the kernel holds the thread
 * until some reader takes them): the spare reader reads meanwhile, so
 * service threads all doing such work at once cannot wait on each other. */
static void mm_begin(void)
{
    struct uvas_fault_service *s = atomic_load(&svc);
    if (!s || !s->spare_started)
        return;
    if (atomic_fetch_add(&s->mm_ops, 1) == 0) {
        uint64_t one = 1;
        if (write(s->kickfd, &one, sizeof one) < 0) {
            /* saturated: the spare is awake */
        }
    }
}

static void mm_end(void)
{
    struct uvas_fault_service *s = atomic_load(&svc);
    if (s && s->spare_started)
        atomic_fetch_sub(&s->mm_ops, 1);
}

static void *spare_main(void *arg)
{
    struct uvas_fault_service *s = arg;
    uvas_on_fault_thread = true;
    struct pollfd pk[2] = {{.fd = s->kickfd, .events = POLLIN},
                           {.fd = s->stopfd, .events = POLLIN}};
    struct pollfd pu[2] = {{.fd = s->uffd, .events = POLLIN},
                           {.fd = s->stopfd, .events = POLLIN}};
    for (;;) {
        if (poll(pk, 2, -1) < 0 && errno != EINTR)
            return NULL;
        if (pk[1].revents)
            return NULL;
        uint64_t v;
        if (read(s->kickfd, &v, sizeof v) < 0 && errno != EAGAIN)
            return NULL;
        while (atomic_load(&s->mm_ops) > 0) {
            if (poll(pu, 2, 5) < 0 && errno != EINTR)
                return NULL;
            if (pu[1].revents)
                return NULL;
            if (pu[0].revents & POLLIN)
                drain();
        }
    }
}


static void *worker_main(void *arg)
{
    struct worker *w = arg;
    uvas_on_fault_thread = true;
    struct uvas_fault_service *s = w->s;
    struct uffd_msg msg[MSG_BATCH];
    struct pollfd pfd[4] = {{.fd = s->uffd, .events = POLLIN},
                            {.fd = s->stopfd, .events = POLLIN},
                            {.fd = s->fill.evfd, .events = POLLIN},
                            {.fd = s->qfd, .events = POLLIN}};

    for (;;) {
        if (poll(pfd, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            uvas_warn("fault service: poll failed: %s", strerror(errno));
            return NULL;
        }
        if (pfd[1].revents)
            return NULL;
        if (pfd[2].revents)
            uvas_fill_help(&s->fill);
        if (pfd[3].revents)
            serve_queued(s);
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
            if (msg[i].event != UFFD_EVENT_PAGEFAULT) {
                mm_begin(); /* putting a CPU view back raises an event */
                handle_event(&msg[i]);
                mm_end();
                continue;
            }
            uint64_t t0 = now_ns();
            uvas_fault_serve((uintptr_t)msg[i].arg.pagefault.address,
                             msg[i].arg.pagefault.flags, msg[i].arg.pagefault.feat.ptid);
            uvas_stats_fault_time(now_ns() - t0);
        }
    }
}

static void destroy(struct uvas_fault_service *s);

int uvas_fault_service_start(int uffd, unsigned want)
{
    int cpus[UVAS_MAX_FAULT_THREADS];
    unsigned ncpu = uvas_fault_cpus(cpus, UVAS_MAX_FAULT_THREADS);
    unsigned n = want ? want : ncpu;
    struct uvas_fault_service *s = calloc(1, sizeof *s + n * sizeof s->w[0]);
    if (!s)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the fault service");
    s->uffd = uffd;
    pthread_mutex_init(&s->qmu, NULL);
    s->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->qfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int e = s->stopfd < 0 || s->qfd < 0 || s->kickfd < 0 ? -errno
                                                         : uvas_fill_init(&s->fill, n - 1);
    if (e) {
        if (s->stopfd >= 0)
            close(s->stopfd);
        if (s->qfd >= 0)
            close(s->qfd);
        if (s->kickfd >= 0)
            close(s->kickfd);
        pthread_mutex_destroy(&s->qmu);
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
    if (rc == UVAS_OK) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 << 10);
        int e2 = pthread_create(&s->spare, &attr, spare_main, s);
        pthread_attr_destroy(&attr);
        if (e2)
            rc = uvas_fail(UVAS_ERR_SYS, "cannot start the fault service's spare reader: %s",
                           strerror(e2));
        else
            s->spare_started = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        destroy(s);
        return rc;
    }
    atomic_store(&svc, s);
    uvas_uffd_set_eagain_hook(drain);
    running = s;
    return UVAS_OK;
}

int uvas_fault_zero_block(uintptr_t addr, size_t len, uintptr_t hot)
{
    struct uvas_fault_service *s = running;
    return uvas_fill_run(s ? &s->fill : NULL, UVAS_FILL_ZERO, addr, len, UVAS_FILL_ZERO_CHUNK,
                         hot);
}

/* A page table's worth (2 MiB) per thread, or a block if larger. */
static int per_table(enum uvas_fill_op op, uintptr_t addr, size_t len)
{
    struct uvas_fault_service *s = running;
    size_t chunk = uvas_g.block_size > ((size_t)2 << 20) ? uvas_g.block_size : (size_t)2 << 20;
    return uvas_fill_run(s ? &s->fill : NULL, op, addr, len, chunk, addr);
}

int uvas_fault_map_blocks(uintptr_t addr, size_t len)
{
    return per_table(UVAS_FILL_CONTINUE, addr, len);
}

int uvas_fault_unmap_blocks(uintptr_t addr, size_t len)
{
    return per_table(UVAS_FILL_UNMAP, addr, len);
}

unsigned uvas_fault_service_threads(void)
{
    return running ? running->n : 0;
}

void uvas_fault_service_stop(void)
{
    struct uvas_fault_service *s = running;
    running = NULL;
    if (s)
        destroy(s);
}

static void destroy(struct uvas_fault_service *s)
{
    uint64_t one = 1;
    if (write(s->stopfd, &one, sizeof one) < 0)
        uvas_warn("fault service: cannot signal stop: %s", strerror(errno));
    for (unsigned i = 0; i < s->n; i++)
        pthread_join(s->w[i].th, NULL);
    if (s->spare_started)
        pthread_join(s->spare, NULL);
    uvas_uffd_set_eagain_hook(NULL);
    atomic_store(&svc, NULL);
    /* Faults queued and not served: their threads would stay parked. */
    for (size_t i = 0; i < s->qlen; i++)
        uvas_uffd_wake(&uvas_g.uffd, (void *)(uintptr_t)(s->q[i].arg.pagefault.address &
                                                         ~(uint64_t)4095), 4096);
    free(s->q);
    pthread_mutex_destroy(&s->qmu);
    close(s->stopfd);
    close(s->qfd);
    close(s->kickfd);
    uvas_fill_fini(&s->fill);
    free(s);
}
