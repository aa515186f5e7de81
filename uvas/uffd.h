/* userfaultfd: obtaining it (with the privilege rules of the kernel),
 * registering the range, and resolving faults on it. */
#ifndef UVAS_UFFD_H
#define UVAS_UFFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Local names for features newer than Debian 12's 6.1 UAPI headers. */
#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1ull << 13)
#endif
#ifndef UFFD_FEATURE_POISON
#define UFFD_FEATURE_POISON (1ull << 14)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1ull << 15)
#endif
#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1ull << 16)
#endif

struct uvas_uffd {
    int fd;
    uint64_t features; /* negotiated */
    bool has_zeropage; /* UFFDIO_ZEROPAGE allowed on the range */
    bool has_minor;    /* registered for minor faults (UFFDIO_CONTINUE) */
    bool has_wp;       /* registered for write-protect faults */
    uint64_t reg_mode; /* UFFDIO_REGISTER_MODE_* the range was registered with */
    bool has_remap;    /* registrations move with mremap (EVENT_REMAP) */
    bool has_unmap;    /* munmaps in the range are reported (EVENT_UNMAP) */
    /* The range's backing (uvas_uffd_register): a memfd of huge pages
     * (hugetlbfs) is filled and mapped a huge page at a time, and zero
     * pages come from the memfd (fallocate), not UFFDIO_ZEROPAGE, which
     * hugetlbfs lacks. */
    bool huge;
    size_t page;       /* the unit of mapping: 4 KiB, or 2 MiB when huge */
    int memfd;
    uintptr_t base;    /* the range's address of memfd offset 0 */
};

/*
 * Open a userfaultfd able to serve kernel-mode faults too (guarantee 4):
 * the userfaultfd syscall, else /dev/userfaultfd. If neither is allowed,
 * returns UVAS_ERR_PERM and writes to note what is missing and the
 * one-line admin fix. User-mode-only descriptors are never used: they
 * leave read(2) into an untouched block failing with EFAULT.
 */
int uvas_uffd_open(struct uvas_uffd *u, char *note, size_t notelen);
/* Register the range [addr, addr+len), a mapping of memfd from offset 0
 * in huge pages or not. */
int uvas_uffd_register(struct uvas_uffd *u, void *addr, size_t len, int memfd, bool huge);
void uvas_uffd_close(struct uvas_uffd *u);
/* Register a part of the range mapped anew (same modes as the range). */
int uvas_uffd_reregister(const struct uvas_uffd *u, void *addr, size_t len);
/* Drop the registration of [addr, addr+len). */
int uvas_uffd_unregister(const struct uvas_uffd *u, void *addr, size_t len);

/* Each call below returns a status (UVAS_OK, or UVAS_ERR_NOMEM / _SYS with
 * the thread's message): errno stays inside uffd.c. */

/* fn runs when a resolving ioctl meets EAGAIN (an event waits to be
 * read), before the ioctl is retried. */
void uvas_uffd_set_eagain_hook(void (*fn)(void));

/* Map zero pages over [addr, addr+len), skipping pages that exist (and
 * pages with no registered mapping: holes left by the user's munmap). The
 * threads parked there stay parked: the caller wakes them once the block's
 * new state is published, so nobody runs on a block that queries still
 * call unpopulated. */
int uvas_uffd_zero(const struct uvas_uffd *u, void *addr, size_t len);
/* Wake threads parked on [addr, addr+len) so they retry their access. */
int uvas_uffd_wake(const struct uvas_uffd *u, void *addr, size_t len);

/* Write-protect [addr, addr+len), or lift the protection (no wake). */
int uvas_uffd_protect(const struct uvas_uffd *u, void *addr, size_t len, bool on);

/* Map the pages the memfd holds for [addr, addr+len) (minor faults),
 * skipping pages already mapped and mapping zero pages where the memfd
 * has none; no wake. *holes (if not NULL) is set when such zero pages were
 * mapped: the memfd had lost pages (a punch). */
int uvas_uffd_continue(const struct uvas_uffd *u, void *addr, size_t len, bool *holes);



#endif
