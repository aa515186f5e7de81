/*
 * The fault service and the process's events (fault/service.c), on a
 * userfaultfd and a region of this test's own, with a handler of its own:
 * each case makes the moment it is about happen on purpose.
 *
 * drain: the one service thread is held in a fault; a thread's munmap in
 * the region waits for its event to be read; another thread's ioctl meets
 * EAGAIN and reads it (the service's EAGAIN hook). Handling the event
 * there ran the handler on that thread, and the handler's own munmap then
 * waited for a reader that nobody was: the service thread was held, the
 * spare reader asleep. Now the event is queued, the ioctl goes through,
 * and the service thread handles both events, in order, once let go.
 *
 * stop: the service is stopped while its thread is in a handler that
 * unmaps (after uvas_fault_mm_begin, as a CPU view's mapping does). The
 * spare reader used to stop with the service threads, and the handler's
 * munmap then waited for ever, and the stop in its join.
 *
 * Each case runs in a child with a deadline: a hang is a failure.
 */
#include <errno.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../check.h"
#include "fault/service.h"
#include "uvas/os.h"
#include "uvas/status.h"
#include "uvas/uffd.h"

#define PAGE 4096
#define PAGES 16
enum { P_FAULT = 0, P_X = 4, P_Y = 8, P_ZERO = 12 };

static struct uvas_uffd u;
static char *region;
static atomic_int in_fault, let_go, stopping;
static atomic_int nslots, nevents; /* a slot taken; an event written (published) */
static uintptr_t event_at[8];
static pid_t event_tid[8];
static pid_t ioctl_tid;

static char *page(int i)
{
    return region + (size_t)i * PAGE;
}

static void setup(void)
{
    char note[256] = "";
    int rc = uvas_uffd_open(&u, note, sizeof note);
    if (rc == UVAS_ERR_PERM)
        SKIP("no userfaultfd for this user: %s", note);
    CHECK_OK(rc);
    if (!u.has_unmap)
        SKIP("this kernel reports no munmap events (UFFD_FEATURE_EVENT_UNMAP)");
    region = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(region != MAP_FAILED, "mmap: %s", strerror(errno));
    struct uffdio_register reg = {.range = {.start = (uintptr_t)region, .len = PAGES * PAGE},
                                  .mode = UFFDIO_REGISTER_MODE_MISSING};
    CHECK(ioctl(u.fd, UFFDIO_REGISTER, &reg) == 0, "UFFDIO_REGISTER: %s", strerror(errno));
    u.has_zeropage = true;
}

/* The thread's wait in a system call: /proc/self/task/<tid>/syscall
 * starts with the call's number while the thread is blocked in it. */
static void wait_in_syscall(pid_t tid, long nr)
{
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    for (;;) {
        FILE *f = fopen(path, "r");
        CHECK(f, "open %s: %s", path, strerror(errno));
        long got = -1;
        if (fgets(buf, sizeof buf, f))
            sscanf(buf, "%ld", &got);
        fclose(f);
        if (got == nr)
            return;
        usleep(1000);
    }
}

static void on_fault(uintptr_t addr, unsigned flags, uint32_t tid)
{
    (void)flags, (void)tid;
    /* Only in the stop case: in the drain case the spare reader must stay
     * asleep, as it is while no service thread is in such work. */
    bool mm = atomic_load(&stopping);
    if (mm)
        uvas_fault_mm_begin();
    atomic_store(&in_fault, 1);
    while (!atomic_load(&let_go))
        usleep(1000);
    if (mm) {
        /* The stop has been asked: give the spare reader the moment it
         * took to leave before, then raise an event only it can read. */
        usleep(200 * 1000);
        CHECK(munmap(page(P_Y), PAGE) == 0, "munmap in the handler: %s", strerror(errno));
    }
    struct uffdio_zeropage z = {.range = {.start = addr & ~(uintptr_t)(PAGE - 1), .len = PAGE}};
    CHECK(ioctl(u.fd, UFFDIO_ZEROPAGE, &z) == 0, "UFFDIO_ZEROPAGE: %s", strerror(errno));
    if (mm)
        uvas_fault_mm_end();
}

static void on_unmapped(uintptr_t start, uintptr_t end)
{
    (void)end;
    int i = atomic_fetch_add(&nslots, 1);
    CHECK(i < 8, "more events than the test raised");
    event_at[i] = start;
    event_tid[i] = (pid_t)syscall(SYS_gettid);
    atomic_fetch_add(&nevents, 1);
    /* The first event's handling unmaps another page, and so waits for
     * a reader of its own event. */
    if (start == (uintptr_t)page(P_X))
        CHECK(munmap(page(P_Y), PAGE) == 0, "munmap in the handler: %s", strerror(errno));
}

static void on_moved(uintptr_t from, uintptr_t to, size_t len)
{
    (void)from, (void)to, (void)len;
}

static const struct uvas_fault_handler handler = {on_fault, on_unmapped, on_moved};

static void *toucher(void *arg)
{
    (void)arg;
    return (void *)(uintptr_t)(*(volatile char *)page(P_FAULT) == 0);
}

static atomic_int unmapper_tid;
static void *unmapper(void *arg)
{
    (void)arg;
    atomic_store(&unmapper_tid, (int)syscall(SYS_gettid));
    return (void *)(uintptr_t)(munmap(page(P_X), PAGE) == 0);
}

static void *zeroer(void *arg)
{
    (void)arg;
    ioctl_tid = (pid_t)syscall(SYS_gettid);
    return (void *)(uintptr_t)(uvas_uffd_zero(&u, page(P_ZERO), PAGE) == UVAS_OK);
}

static int case_drain(void *arg)
{
    (void)arg;
    setup();
    CHECK_OK(uvas_fault_service_start(u.fd, 1, &handler));
    pthread_t t, m, z;
    CHECK(pthread_create(&t, NULL, toucher, NULL) == 0, "pthread_create");
    while (!atomic_load(&in_fault))
        usleep(1000);
    /* The service thread is held. The munmap waits for its event's read. */
    CHECK(pthread_create(&m, NULL, unmapper, NULL) == 0, "pthread_create");
    while (!atomic_load(&unmapper_tid))
        usleep(1000);
    wait_in_syscall(atomic_load(&unmapper_tid), SYS_munmap);
    /* This ioctl meets EAGAIN and reads the event itself. */
    CHECK(pthread_create(&z, NULL, zeroer, NULL) == 0, "pthread_create");
    void *ok;
    pthread_join(z, &ok);
    CHECK(ok, "the zero fill failed: %s", uvas_last_error());
    pthread_join(m, &ok);
    CHECK(ok, "munmap: %s", strerror(errno));
    CHECK(atomic_load(&nevents) == 0,
          "an event was handled on the thread that read it to get its ioctl through");
    atomic_store(&let_go, 1);
    pthread_join(t, &ok);
    CHECK(ok, "the faulting read saw a byte other than 0");
    while (atomic_load(&nevents) < 2)
        usleep(1000);
    CHECK(event_at[0] == (uintptr_t)page(P_X) && event_at[1] == (uintptr_t)page(P_Y),
          "events handled out of order: %#lx then %#lx", (unsigned long)event_at[0],
          (unsigned long)event_at[1]);
    CHECK(event_tid[0] != ioctl_tid && event_tid[1] != ioctl_tid,
          "an event was handled on the thread whose ioctl read it");
    uvas_fault_service_stop();
    printf("drain: the ioctl went through, both events handled in order on the service\n");
    return TU_EXIT_PASS;
}

static void *stopper(void *arg)
{
    (void)arg;
    uvas_fault_service_stop();
    return NULL;
}

static int case_stop(void *arg)
{
    (void)arg;
    setup();
    CHECK_OK(uvas_fault_service_start(u.fd, 1, &handler));
    atomic_store(&stopping, 1);
    pthread_t t, s;
    CHECK(pthread_create(&t, NULL, toucher, NULL) == 0, "pthread_create");
    while (!atomic_load(&in_fault))
        usleep(1000);
    CHECK(pthread_create(&s, NULL, stopper, NULL) == 0, "pthread_create");
    atomic_store(&let_go, 1);
    pthread_join(s, NULL);
    void *ok;
    pthread_join(t, &ok);
    CHECK(ok, "the faulting read saw a byte other than 0");
    printf("stop: the handler's munmap was read while the service stopped\n");
    return TU_EXIT_PASS;
}

int main(void)
{
    int rc = tu_run_child(case_drain, NULL, 30);
    if (rc == 128 + 14)
        FAIL("drain: hung (the event read by the ioctl's thread was handled there)");
    if (rc != TU_EXIT_PASS)
        return rc;
    rc = tu_run_child(case_stop, NULL, 30);
    if (rc == 128 + 14)
        FAIL("stop: hung (the spare reader left before the service thread's munmap was read)");
    return rc;
}
