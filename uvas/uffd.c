/* userfaultfd setup and the resolving ioctls. */
#include "uvas/uffd.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uvas.h"
#include "uvas/config.h"
#include "uvas/inject.h"
#include "uvas/os.h"
#include "uvas/status.h"

/* Called when a resolving ioctl meets EAGAIN: the kernel refuses them
 * while a non-cooperative event (an unmap, a remap) waits to be read, so
 * a thread that retries must help read it, or the service threads, all
 * retrying, would spin for ever (fault/service.c). */
static void (*eagain_hook)(void);

void uvas_uffd_set_eagain_hook(void (*fn)(void))
{
    eagain_hook = fn;
}

static void on_eagain(void)
{
    void (*fn)(void) = eagain_hook;
    if (fn)
        fn();
}

/* An injected failure of a userfaultfd ioctl (UVAS_INJECT=uffd:...):
 * the real failure's errno. */
static bool injected(int err)
{
    if (!uvas_inject_fail(UVAS_INJ_UFFD))
        return false;
    errno = err;
    return true;
}

#define ADMIN_FIX                                                                   \
    "fix (as root, once): 'chgrp uvas /dev/userfaultfd && chmod 660 "                \
    "/dev/userfaultfd' and add the users to group uvas, or 'sysctl "                  \
    "vm.unprivileged_userfaultfd=1'"

static int open_raw(char *note, size_t notelen)
{
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0)
        return fd;
    int sys_err = errno;
    if (sys_err == ENOSYS) {
        snprintf(note, notelen, "this kernel has no userfaultfd (ENOSYS)");
        return -1;
    }
    int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
    if (dev >= 0) {
        fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
        int e = errno;
        close(dev);
        if (fd >= 0)
            return fd;
        snprintf(note, notelen, "/dev/userfaultfd refused a descriptor (%s); %s",
                 strerror(e), ADMIN_FIX);
        return -1;
    }
    snprintf(note, notelen,
             "userfaultfd needs CAP_SYS_PTRACE (syscall: %s) or access to /dev/userfaultfd "
             "(%s); %s", strerror(sys_err), strerror(errno), ADMIN_FIX);
    return -1;
}

int uvas_uffd_open(struct uvas_uffd *u, char *note, size_t notelen)
{
    u->fd = -1;
    /* Probe the supported features on a throwaway descriptor: the API
     * handshake can be made only once per descriptor. */
    int probe = open_raw(note, notelen);
    if (probe < 0)
        return UVAS_ERR_PERM;
    struct uffdio_api api = {.api = UFFD_API, .features = 0};
    if (ioctl(probe, UFFDIO_API, &api) < 0) {
        snprintf(note, notelen, "UFFDIO_API failed: %s", strerror(errno));
        close(probe);
        return UVAS_ERR_SYS;
    }
    close(probe);
    uint64_t have = api.features;
    if (!(have & UFFD_FEATURE_MISSING_SHMEM)) {
        snprintf(note, notelen, "this kernel's userfaultfd cannot serve shmem "
                 "(features %#llx lack MISSING_SHMEM)", (unsigned long long)have);
        return UVAS_ERR_SYS;
    }
    /* EVENT_REMAP: a registered mapping keeps its registration when
     * mremap moves it (migrate/cpuview.c swaps mappings that way); the
     * service is told of the move. EVENT_UNMAP: the service is told of
     * munmaps inside the range, and maps the user's holes again
     * (docs/fault-path.md, "Process events"). */
    uint64_t want = UFFD_FEATURE_MISSING_SHMEM | UFFD_FEATURE_THREAD_ID |
                    UFFD_FEATURE_MINOR_SHMEM | UFFD_FEATURE_WP_HUGETLBFS_SHMEM |
                    UFFD_FEATURE_MISSING_HUGETLBFS | UFFD_FEATURE_MINOR_HUGETLBFS |
                    UFFD_FEATURE_EVENT_REMAP | UFFD_FEATURE_EVENT_UNMAP;
    int fd = open_raw(note, notelen);
    if (fd < 0)
        return UVAS_ERR_PERM;
    api = (struct uffdio_api){.api = UFFD_API, .features = want & have};
    if (injected(EINVAL) || ioctl(fd, UFFDIO_API, &api) < 0) {
        snprintf(note, notelen, "UFFDIO_API(features %#llx) failed: %s",
                 (unsigned long long)(want & have), strerror(errno));
        close(fd);
        return UVAS_ERR_SYS;
    }
    u->fd = fd;
    u->features = api.features;
    u->has_remap = api.features & UFFD_FEATURE_EVENT_REMAP;
    u->has_unmap = api.features & UFFD_FEATURE_EVENT_UNMAP;
    snprintf(note, notelen, "userfaultfd (features %#llx)", (unsigned long long)have);
    return UVAS_OK;
}

int uvas_uffd_register(struct uvas_uffd *u, void *addr, size_t len, int memfd, bool huge)
{
    u->huge = huge;
    u->page = huge ? UVAS_HUGE_PAGE : UVAS_PAGE;
    u->memfd = memfd;
    u->base = (uintptr_t)addr;
    if (huge && !(u->features & UFFD_FEATURE_MISSING_HUGETLBFS))
        return uvas_fail(UVAS_ERR_SYS, "UVAS_HUGE_PAGES=1, but this kernel's userfaultfd "
                         "cannot serve huge pages (no MISSING_HUGETLBFS): unset "
                         "UVAS_HUGE_PAGES");
    /* Missing faults place untouched blocks. Minor faults catch accesses
     * to blocks whose pages stay in the memfd but are unmapped here: while
     * they are copied out, and while the data lives on the device. Without
     * them (kernels before 5.14) blocks cannot migrate and the device
     * tier stays off. */
    struct uffdio_register reg = {
        .range = {.start = (uintptr_t)addr, .len = len},
        .mode = UFFDIO_REGISTER_MODE_MISSING,
    };
    if (u->features & (huge ? UFFD_FEATURE_MINOR_HUGETLBFS : UFFD_FEATURE_MINOR_SHMEM))
        reg.mode |= UFFDIO_REGISTER_MODE_MINOR;
    /* Write-protect faults let read-mostly blocks keep a read-only host
     * copy while they live on the device. */
    if (u->features & UFFD_FEATURE_WP_HUGETLBFS_SHMEM)
        reg.mode |= UFFDIO_REGISTER_MODE_WP;
    if (injected(ENOMEM) || ioctl(u->fd, UFFDIO_REGISTER, &reg) < 0)
        return uvas_fail(UVAS_ERR_SYS, "UFFDIO_REGISTER of the range failed: %s",
                         strerror(errno));
    u->reg_mode = reg.mode;
    u->has_zeropage = reg.ioctls & (1ull << _UFFDIO_ZEROPAGE);
    u->has_minor = reg.ioctls & (1ull << _UFFDIO_CONTINUE);
    u->has_wp = reg.ioctls & (1ull << _UFFDIO_WRITEPROTECT);
    if (!(reg.ioctls & (1ull << _UFFDIO_COPY)))
        return uvas_fail(UVAS_ERR_SYS, "userfaultfd offers no UFFDIO_COPY on the range");
    return UVAS_OK;
}

/* errno stays in this file: a failed call leaves as a status, with a
 * message naming the operation and the range. */
static int status_of(int e, const char *what, const void *addr, size_t len)
{
    if (!e)
        return UVAS_OK;
    return uvas_fail(e == -ENOMEM ? UVAS_ERR_NOMEM : UVAS_ERR_SYS,
                     "userfaultfd %s of [%p, +%zu): %s", what, addr, len, strerror(-e));
}

int uvas_uffd_reregister(const struct uvas_uffd *u, void *addr, size_t len)
{
    struct uffdio_register reg = {
        .range = {.start = (uintptr_t)addr, .len = len},
        .mode = u->reg_mode,
    };
    int e = injected(ENOMEM) || ioctl(u->fd, UFFDIO_REGISTER, &reg) < 0 ? -errno : 0;
    return status_of(e, "registration", addr, len);
}

int uvas_uffd_unregister(const struct uvas_uffd *u, void *addr, size_t len)
{
    struct uffdio_range r = {.start = (uintptr_t)addr, .len = len};
    int e = injected(ENOMEM) || ioctl(u->fd, UFFDIO_UNREGISTER, &r) < 0 ? -errno : 0;
    return status_of(e, "unregistration", addr, len);
}

void uvas_uffd_close(struct uvas_uffd *u)
{
    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
}

static int zero_by_copy(const struct uvas_uffd *u, uintptr_t a, size_t len)
{
    static const char zeros[UVAS_PAGE] __attribute__((aligned(UVAS_PAGE)));
    for (size_t off = 0; off < len;) {
        struct uffdio_copy c = {.dst = a + off, .src = (uintptr_t)zeros, .len = sizeof zeros,
                                .mode = UFFDIO_COPY_MODE_DONTWAKE};
        if (injected(ENOMEM) || ioctl(u->fd, UFFDIO_COPY, &c) < 0) {
            if (errno == EAGAIN) {
                on_eagain();
                continue;
            }
            /* EEXIST: a page is there; ENOENT: no registered mapping at
             * this page (a hole the user's munmap left, refilled later). */
            if (errno != EEXIST && errno != ENOENT)
                return -errno;
        }
        off += sizeof zeros;
    }
    return 0;
}

/*
 * A resolving ioctl covers one VMA. The user's mprotect (or munmap) of
 * part of a block splits the range's mapping, and the ioctl over the
 * whole block then fails with ENOENT having done nothing: split the
 * request in halves until each part lies in one mapping. Pages with no
 * registered mapping (a hole) are skipped: nobody can access them, and
 * they fault again once the hole is mapped again.
 */
/* Half of len, in whole pages of the range (huge pages split no further). */
static size_t half_of(const struct uvas_uffd *u, size_t len)
{
    return len / 2 & ~(u->page - 1);
}

static int split_enoent(const struct uvas_uffd *u, uintptr_t a, size_t len,
                        int (*op)(const struct uvas_uffd *, uintptr_t, size_t))
{
    if (len <= u->page)
        return 0;
    size_t half = half_of(u, len);
    int e = op(u, a, half);
    int e2 = op(u, a + half, len - half);
    return e ? e : e2;
}

static int zero_range(const struct uvas_uffd *u, uintptr_t a, size_t len)
{
    uintptr_t end = a + len;
    while (a < end) {
        struct uffdio_zeropage z = {.range = {.start = a, .len = end - a},
                                    .mode = UFFDIO_ZEROPAGE_MODE_DONTWAKE};
        if (!injected(ENOMEM) && ioctl(u->fd, UFFDIO_ZEROPAGE, &z) == 0)
            break;
        int e = errno;
        if (z.zeropage > 0)
            a += (uintptr_t)z.zeropage;
        if (e == EEXIST)
            a += UVAS_PAGE; /* a page is already there (another agent filled it) */
        else if (e == EAGAIN)
            on_eagain();
        else if (e == ENOENT)
            return split_enoent(u, a, end - a, zero_range);
        else
            return -e;
    }
    return 0;
}

static int continue_range(const struct uvas_uffd *u, uintptr_t a, size_t len, bool *holes);

/* Huge pages: the memfd's own zeroed pages (fallocate keeps the pages it
 * holds already), then mapped as a minor fault maps them. */
static int zero_huge(const struct uvas_uffd *u, uintptr_t a, size_t len)
{
    if (injected(ENOMEM) || fallocate(u->memfd, 0, (off_t)(a - u->base), (off_t)len) < 0)
        return errno == ENOSPC ? -ENOMEM : -errno;
    bool holes = false;
    return continue_range(u, a, len, &holes);
}

int uvas_uffd_zero(const struct uvas_uffd *u, void *addr, size_t len)
{
    int e = u->huge           ? zero_huge(u, (uintptr_t)addr, len)
            : u->has_zeropage ? zero_range(u, (uintptr_t)addr, len)
                              : zero_by_copy(u, (uintptr_t)addr, len);
    if (e == -ENOMEM && u->huge)
        return uvas_fail(UVAS_ERR_NOMEM, "no free 2 MiB huge page for [%p, +%zu) of the host "
                         "tier (UVAS_HUGE_PAGES=1): reserve more (/proc/sys/vm/nr_hugepages)",
                         addr, len);
    return status_of(e, "zero fill", addr, len);
}

int uvas_uffd_wake(const struct uvas_uffd *u, void *addr, size_t len)
{
    struct uffdio_range r = {.start = (uintptr_t)addr, .len = len};
    /* not injected: parked threads would hang */
    return status_of(ioctl(u->fd, UFFDIO_WAKE, &r) < 0 ? -errno : 0, "wake", addr, len);
}

static int continue_range(const struct uvas_uffd *u, uintptr_t a, size_t len, bool *holes)
{
    uintptr_t end = a + len;
    while (a < end) {
        struct uffdio_continue c = {.range = {.start = a, .len = end - a},
                                    .mode = UFFDIO_CONTINUE_MODE_DONTWAKE};
        if (!injected(ENOMEM) && ioctl(u->fd, UFFDIO_CONTINUE, &c) == 0)
            break;
        int e = errno;
        if (c.mapped > 0)
            a += (uintptr_t)c.mapped;
        if (e == EEXIST) {
            a += u->page; /* already mapped */
        } else if (e == EFAULT) {
            /* The memfd has no page here: a zero page, as a first touch. */
            int z = u->huge ? zero_huge(u, a, u->page) : zero_range(u, a, UVAS_PAGE);
            if (z)
                return z;
            *holes = true;
            a += u->page;
        } else if (e == EAGAIN) {
            on_eagain();
        } else if (e == ENOENT) {
            if (end - a <= u->page)
                return 0; /* a hole in the mapping: nobody can reach it */
            size_t half = half_of(u, end - a);
            int e1 = continue_range(u, a, half, holes);
            int e2 = continue_range(u, a + half, end - a - half, holes);
            return e1 ? e1 : e2;
        } else {
            return -e;
        }
    }
    return 0;
}

int uvas_uffd_continue(const struct uvas_uffd *u, void *addr, size_t len, bool *holes)
{
    bool h = false;
    int e = continue_range(u, (uintptr_t)addr, len, &h);
    if (holes)
        *holes = h;
    return status_of(e, "mapping (continue)", addr, len);
}

int uvas_uffd_protect(const struct uvas_uffd *u, void *addr, size_t len, bool on)
{
    struct uffdio_writeprotect w = {
        .range = {.start = (uintptr_t)addr, .len = len},
        /* The kernel refuses DONTWAKE together with WP. */
        .mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : UFFDIO_WRITEPROTECT_MODE_DONTWAKE,
    };
    while (injected(ENOMEM) || ioctl(u->fd, UFFDIO_WRITEPROTECT, &w) < 0) {
        if (errno != EAGAIN)
            return status_of(-errno, on ? "write protection" : "unprotection", addr, len);
        on_eagain();
    }
    return UVAS_OK;
}
