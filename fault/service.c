/*
 * Fault service threads: the reader of the userfaultfd, which never
 * decides (as UMap's). Each thread is pinned to one CPU of the process and
 * sleeps in poll(2) on the shared userfaultfd; the one on the faulting
 * core wins the race for the message because that core has just gone
 * idle (fault/cpuset.c). Each message goes to the handler installed at
 * start (migrate/fault_handler.c decides what it means). Idle threads
 * also help fill large blocks (fault/fill.c).
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
#include <time.h>
#include <unistd.h>

#include "fault/cpuset.h"
#include "fault/fill.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"
#include "uvas/uffd.h"

#define MSG_BATCH 32

struct uvas_fault_service {
    int uffd;
    int stopfd;      /* the service threads stop */
    int sparestopfd; /* the spare stops: only once they have, as they may wait on it */
    struct uvas_fill fill;
    /* Messages read by a thread that could not serve them then (it was
     * reading to let an event through, see drain()): the service threads
     * serve them when qfd is readable. Faults in any order; events (the
     * process's munmap and mremap) in the order read, one at a time (evmu
     * held while one is handled). */
    pthread_mutex_t qmu;
    struct uffd_msg *q;
    size_t qlen, qcap;
    struct uffd_msg *ev;
    size_t evhead, evlen, evcap;
    pthread_mutex_t evmu;
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

static void mm_begin(void);
static void mm_end(void);
static struct uvas_fault_handler handler; /* installed at start */

/* An event other than a page fault: the process's munmap or mremap. */
static void handle_event(const struct uffd_msg *m)
{
    switch (m->event) {
    case UFFD_EVENT_UNMAP:
        handler.unmapped((uintptr_t)m->arg.remove.start, (uintptr_t)m->arg.remove.end);
        break;
    case UFFD_EVENT_REMAP:
        handler.moved((uintptr_t)m->arg.remap.from, (uintptr_t)m->arg.remap.to,
                      (size_t)m->arg.remap.len);
        break;
    default:
        break;
    }
}

static void serve(const struct uffd_msg *m)
{
    uint64_t k = m->arg.pagefault.flags;
    unsigned flags = (k & UFFD_PAGEFAULT_FLAG_WRITE ? UVAS_FAULT_WRITE : 0) |
                     (k & UFFD_PAGEFAULT_FLAG_WP ? UVAS_FAULT_PROTECT : 0);
    handler.fault((uintptr_t)m->arg.pagefault.address, flags, m->arg.pagefault.feat.ptid);
}
_Thread_local bool uvas_on_fault_thread;
static struct uvas_fault_service *_Atomic svc; /* the running service */
static struct uvas_fault_service *running;     /* the one started (start/stop) */
static void tell_queued(struct uvas_fault_service *s)
{
    uint64_t one = 1;
    if (write(s->qfd, &one, sizeof one) < 0) {
        /* the counter is saturated: readers are already told */
    }
}

static void defer(struct uvas_fault_service *s, const struct uffd_msg *m)
{
    pthread_mutex_lock(&s->qmu);
    if (s->qlen == s->qcap) {
        size_t cap = s->qcap ? 2 * s->qcap : 64;
        struct uffd_msg *q = realloc(s->q, cap * sizeof *q);
        if (!q) { /* cannot happen in practice; serve it here rather than lose it */
            pthread_mutex_unlock(&s->qmu);
            serve(m);
            return;
        }
        s->q = q;
        s->qcap = cap;
    }
    s->q[s->qlen++] = *m;
    pthread_mutex_unlock(&s->qmu);
    tell_queued(s);
}

/* Queue an event behind those read before it. False if there is no room
 * (the caller then handles it itself). */
static bool defer_event(struct uvas_fault_service *s, const struct uffd_msg *m)
{
    pthread_mutex_lock(&s->qmu);
    if (s->evhead == s->evlen)
        s->evhead = s->evlen = 0;
    if (s->evlen == s->evcap && s->evhead) {
        memmove(s->ev, s->ev + s->evhead, (s->evlen - s->evhead) * sizeof *s->ev);
        s->evlen -= s->evhead;
        s->evhead = 0;
    }
    if (s->evlen == s->evcap) {
        size_t cap = s->evcap ? 2 * s->evcap : 16;
        struct uffd_msg *q = realloc(s->ev, cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&s->qmu);
            return false;
        }
        s->ev = q;
        s->evcap = cap;
    }
    s->ev[s->evlen++] = *m;
    pthread_mutex_unlock(&s->qmu);
    return true;
}

static bool events_queued(struct uvas_fault_service *s)
{
    pthread_mutex_lock(&s->qmu);
    bool any = s->evhead < s->evlen;
    pthread_mutex_unlock(&s->qmu);
    return any;
}

/* Handle the queued events, oldest first, on a service thread. Handling
 * one may map or unmap inside the range and so wait for a new event to be
 * read: mm_begin wakes the spare reader for it. A thread that finds
 * another handling leaves the queue to it: that one looks again after
 * letting go, so nothing queued before is left behind. */
static void handle_events(struct uvas_fault_service *s)
{
    while (events_queued(s) && pthread_mutex_trylock(&s->evmu) == 0) {
        for (;;) {
            struct uffd_msg m;
            pthread_mutex_lock(&s->qmu);
            bool any = s->evhead < s->evlen;
            if (any)
                m = s->ev[s->evhead++];
            pthread_mutex_unlock(&s->qmu);
            if (!any)
                break;
            mm_begin();
            handle_event(&m);
            mm_end();
        }
        pthread_mutex_unlock(&s->evmu);
    }
}

static _Thread_local bool draining;

/* Read what the userfaultfd holds, so that a waiting event gets through,
 * and queue it all for the service threads. Called by threads retrying an
 * ioctl the kernel refused with EAGAIN (any thread, holding anything) and
 * by the spare reader. Reading is what lets the process's munmap or mremap
 * finish and the ioctl through; handling an event here instead could wait
 * for an event of its own with no reader awake, or on what the caller
 * holds. */
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
    bool events = false;
    for (ssize_t i = 0; i < got / (ssize_t)sizeof msg[0]; i++) {
        if (msg[i].event == UFFD_EVENT_PAGEFAULT)
            defer(s, &msg[i]);
        else if (defer_event(s, &msg[i]))
            events = true;
        else
            handle_event(&msg[i]); /* no memory to queue it: as before, here */
    }
    if (events)
        tell_queued(s);
    draining = false;
}

/* Handle the queued events, then serve the queued faults. */
static void serve_queued(struct uvas_fault_service *s)
{
    uint64_t v;
    if (read(s->qfd, &v, sizeof v) < 0 && errno != EAGAIN)
        return;
    handle_events(s);
    for (;;) {
        pthread_mutex_lock(&s->qmu);
        if (!s->qlen) {
            pthread_mutex_unlock(&s->qmu);
            return;
        }
        struct uffd_msg m = s->q[--s->qlen];
        pthread_mutex_unlock(&s->qmu);
        serve(&m);
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

void uvas_fault_mm_begin(void)
{
    mm_begin();
}

void uvas_fault_mm_end(void)
{
    mm_end();
}

static void *spare_main(void *arg)
{
    struct uvas_fault_service *s = arg;
    uvas_on_fault_thread = true;
    struct pollfd pk[2] = {{.fd = s->kickfd, .events = POLLIN},
                           {.fd = s->sparestopfd, .events = POLLIN}};
    struct pollfd pu[2] = {{.fd = s->uffd, .events = POLLIN},
                           {.fd = s->sparestopfd, .events = POLLIN}};
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
                            {.fd = s->fill.evfd[w - s->w], .events = POLLIN},
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
            uvas_fill_help(&s->fill, (unsigned)(w - s->w));
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
                /* Behind the events a drain queued before it. */
                if (defer_event(s, &msg[i])) {
                    handle_events(s);
                } else {
                    mm_begin(); /* putting a CPU view back raises an event */
                    handle_event(&msg[i]);
                    mm_end();
                }
                continue;
            }
            uint64_t t0 = uvas_os_now_ns();
            serve(&msg[i]);
            uvas_stats_fault_time(uvas_os_now_ns() - t0);
        }
    }
}

static void destroy(struct uvas_fault_service *s);

int uvas_fault_service_start(int uffd, unsigned want, const struct uvas_fault_handler *h)
{
    handler = *h;
    int cpus[UVAS_MAX_FAULT_THREADS];
    unsigned ncpu = uvas_fault_cpus(cpus, UVAS_MAX_FAULT_THREADS);
    unsigned n = want ? want : ncpu;
    struct uvas_fault_service *s = calloc(1, sizeof *s + n * sizeof s->w[0]);
    if (!s)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the fault service");
    s->uffd = uffd;
    pthread_mutex_init(&s->qmu, NULL);
    pthread_mutex_init(&s->evmu, NULL);
    s->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->sparestopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->qfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    s->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int rc = s->stopfd < 0 || s->sparestopfd < 0 || s->qfd < 0 || s->kickfd < 0
                 ? uvas_fail(UVAS_ERR_SYS, "eventfd for the fault service failed: %s",
                             strerror(errno))
                 : uvas_fill_init(&s->fill, n, cpus, ncpu);
    if (rc) {
        int fds[] = {s->stopfd, s->sparestopfd, s->qfd, s->kickfd};
        for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        pthread_mutex_destroy(&s->qmu);
        pthread_mutex_destroy(&s->evmu);
        free(s);
        return rc;
    }
    /* Service threads take no signals: the application's handlers must
     * run on its own threads, and a signal must not interrupt a fault. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
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
    /* Huge pages are filled whole: a chunk is at least one. */
    size_t chunk = uvas_g.uffd.page > UVAS_FILL_ZERO_CHUNK ? uvas_g.uffd.page
                                                           : UVAS_FILL_ZERO_CHUNK;
    return uvas_fill_run(s ? &s->fill : NULL, UVAS_FILL_ZERO, addr, len, chunk,
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

/* A stage's 16 MiB in MiB chunks; a lone block's 2 MiB, or its pieces on
 * the way back, still over many threads. */
static size_t copy_chunk(size_t len)
{
    return len >= ((size_t)8 << 20) ? (size_t)1 << 20 : (size_t)64 << 10;
}

int uvas_fault_copy(void *dst, const void *src, size_t len)
{
    struct uvas_fault_service *s = running;
    return uvas_fill_copy(s ? &s->fill : NULL, dst, src, len, copy_chunk(len));
}

void uvas_fault_copy_start(struct uvas_fill_job *j, void *dst, const void *src, size_t len)
{
    struct uvas_fault_service *s = running;
    uvas_fill_copy_start(s ? &s->fill : NULL, j, dst, src, len, copy_chunk(len));
}

int uvas_fault_copy_finish(struct uvas_fill_job *j)
{
    struct uvas_fault_service *s = running;
    return uvas_fill_copy_finish(s ? &s->fill : NULL, j);
}

unsigned uvas_fault_service_threads(void)
{
    return running ? running->n : 0;
}

void uvas_fault_service_stop(void)
{
    /* Cleared only once its threads are joined: they read it (their
     * fills) until they end. */
    if (running)
        destroy(running);
    running = NULL;
}

static void destroy(struct uvas_fault_service *s)
{
    /* The service threads first, the spare reader after them: one of them
     * may be in work that waits for an event to be read (a CPU view mapped
     * as finalize runs), and only the spare reads it then. */
    uint64_t one = 1;
    if (write(s->stopfd, &one, sizeof one) < 0)
        uvas_warn("fault service: cannot signal stop: %s", strerror(errno));
    for (unsigned i = 0; i < s->n; i++)
        pthread_join(s->w[i].th, NULL);
    if (s->spare_started) {
        if (write(s->sparestopfd, &one, sizeof one) < 0)
            uvas_warn("fault service: cannot signal stop: %s", strerror(errno));
        pthread_join(s->spare, NULL);
    }
    uvas_uffd_set_eagain_hook(NULL);
    atomic_store(&svc, NULL);
    /* Faults queued and not served: their threads would stay parked.
     * Queued events need nothing more: reading them let their munmap or
     * mremap finish, and the range goes away. */
    const struct uvas_uffd u = {.fd = s->uffd};
    for (size_t i = 0; i < s->qlen; i++)
        uvas_uffd_wake(&u, (void *)uvas_page_down((uintptr_t)s->q[i].arg.pagefault.address),
                       UVAS_PAGE);
    free(s->q);
    free(s->ev);
    pthread_mutex_destroy(&s->qmu);
    pthread_mutex_destroy(&s->evmu);
    close(s->stopfd);
    close(s->sparestopfd);
    close(s->qfd);
    close(s->kickfd);
    uvas_fill_fini(&s->fill);
    free(s);
}
