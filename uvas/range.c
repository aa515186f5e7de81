/*
 * One MAP_SHARED mapping of a memfd covers the whole range. Shared (not
 * anonymous) memory because the host tier must later be mappable by the
 * other PEs of the node (the fd travels over a Unix socket), and because a
 * page's contents then have an identity outside this mapping: punching a
 * hole frees it and unmaps it in every process at once.
 */
#include "uvas/range.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/memfd.h> /* MFD_HUGE_2MB */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uvas.h"
#include "uvas/config.h"
#include "uvas/inject.h"
#include "uvas/os.h"
#include "uvas/status.h"

static int open_memfd(bool huge, int *out)
{
    /* Huge: a 2 MiB page is mapped, filled and punched as one, so a block
     * moves with a page-table entry per 2 MiB instead of 512. */
    int fd = memfd_create(UVAS_HOST_TIER_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING |
                                                   (huge ? MFD_HUGETLB | MFD_HUGE_2MB : 0));
    if (fd < 0)
        return uvas_fail(UVAS_ERR_SYS, "memfd_create for the host tier%s failed: %s%s",
                         huge ? " in 2 MiB huge pages" : "", strerror(errno),
                         huge ? " (does the kernel have hugetlbfs? unset UVAS_HUGE_PAGES)" : "");
    long nfree = huge ? uvas_os_huge_pages_free() : 1;
    if (nfree == 0) {
        close(fd);
        return uvas_fail(UVAS_ERR_NOMEM, "UVAS_HUGE_PAGES=1, but the system has no free 2 MiB "
                         "huge page: reserve them first (as root: echo N > "
                         "/proc/sys/vm/nr_hugepages, N pages of 2 MiB for the host memory "
                         "the job will touch)");
    }
    *out = fd;
    return UVAS_OK;
}

int uvas_range_map(uintptr_t base, size_t size, bool huge, int *memfd, char **out)
{
    long page = sysconf(_SC_PAGESIZE);
    if (page != (long)UVAS_PAGE)
        return uvas_fail(UVAS_ERR_SYS, "this system's base page is %ld bytes; uvas is built "
                         "for %zu-byte pages (uvas/os.h)", page, UVAS_PAGE);
    int fd = -1, rc = open_memfd(huge, &fd);
    if (rc)
        return rc;
    /* Sparse: the size costs nothing until pages are written. Then fixed:
     * the descriptor goes to the PEs of the node and to importers, and one
     * that shrank it would turn our accesses into SIGBUS. */
    if (uvas_inject_fail_errno(UVAS_INJ_MEMFD, ENOSPC) || ftruncate(fd, (off_t)size) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
        int e = errno;
        close(fd);
        return uvas_fail(UVAS_ERR_SYS, "cannot size and seal the host tier memfd (%zu bytes): %s",
                         size, strerror(e));
    }
    int flags = MAP_SHARED | MAP_NORESERVE;
    void *want = NULL;
    if (base != UVAS_BASE_ANY) {
        flags |= MAP_FIXED_NOREPLACE;
        want = (void *)base;
    } else {
        /* Blocks are found by shifting the offset from base, and 2 MiB
         * blocks want 2 MiB-aligned pages: reserve room, keep an aligned
         * window. */
        size_t align = (size_t)2 << 20;
        char *r = mmap(NULL, size + align, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (r == MAP_FAILED) {
            int e = errno;
            close(fd);
            return uvas_fail(UVAS_ERR_NOMEM, "cannot reserve %zu bytes of address space: "
                             "%s (a smaller UVAS_SIZE may fit)", size, strerror(e));
        }
        want = (void *)(((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1));
        flags |= MAP_FIXED; /* over our own reservation */
        if ((char *)want > r)
            munmap(r, (size_t)((char *)want - r));
        char *end = (char *)want + size;
        if (end < r + size + align)
            munmap(end, (size_t)(r + size + align - end));
    }
    char *p = uvas_inject_fail_errno(UVAS_INJ_MMAP, ENOMEM)
                  ? MAP_FAILED : mmap(want, size, PROT_READ | PROT_WRITE, flags, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        if (base == UVAS_BASE_ANY)
            munmap(want, size);
        if (e == EEXIST)
            return uvas_fail(UVAS_ERR_ADDR_IN_USE,
                             "the range [%#lx, %#lx) overlaps an existing mapping: choose "
                             "another base with UVAS_BASE (or UVAS_BASE=any for a "
                             "single process)", (unsigned long)base,
                             (unsigned long)(base + size));
        /* Near the top of the address space the stack and the vDSO sit in
         * the way: that is the base's fault, not the size's. */
        bool high = base != UVAS_BASE_ANY && base + size > (UVAS_USER_ADDR_END / 4) * 3;
        return uvas_fail(e == ENOMEM ? UVAS_ERR_NOMEM : UVAS_ERR_SYS,
                         "cannot map the %zu-byte range at %#lx: %s (%s)", size,
                         (unsigned long)base, strerror(e),
                         high ? "the range reaches the top of the address space, where the "
                                "stack lives: give a lower UVAS_BASE, e.g. 0x200000000000"
                              : "a smaller UVAS_SIZE may fit");
    }
    /* Kernels before 4.17 treat MAP_FIXED_NOREPLACE as a hint. */
    if (want && p != want) {
        munmap(p, size);
        close(fd);
        return uvas_fail(UVAS_ERR_ADDR_IN_USE, "the kernel placed the range at %p instead "
                         "of %p: choose another base with UVAS_BASE", (void *)p, want);
    }
    /* A child must not share (and silently corrupt) the parent's heap. */
    madvise(p, size, MADV_DONTFORK);
    /* Unmapping a page that is young in this mapping marks it accessed,
     * and the second time moves it to the active LRU list under the LRU
     * lock: a range's second migration to the device unmapped at half the
     * pace of the others (docs/migration.md). uvas places these pages, not
     * the kernel's LRU aging: no recency from this mapping (VM_RAND_READ;
     * shmem has no readahead for it to change). */
    madvise(p, size, MADV_RANDOM);
    *memfd = fd;
    *out = p;
    return UVAS_OK;
}

void uvas_range_unmap(char *base, size_t size, int memfd)
{
    if (base)
        munmap(base, size);
    if (memfd >= 0)
        close(memfd);
}

