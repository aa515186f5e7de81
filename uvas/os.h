/*
 * The system seam (os.c, and uffd.c for userfaultfd): the base page, which
 * userfaultfd resolves and every mapping is cut in, and the memory calls
 * the ground's tables share. uvas runs on 4 KiB base pages (x86-64,
 * arm64 with 4K pages); uvas_init refuses another size rather than
 * mis-cut ranges (range.c).
 */
#ifndef UVAS_OS_H
#define UVAS_OS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define UVAS_PAGE ((size_t)4096)

/* Nanoseconds on the monotonic clock: deadlines, waits, timings. */
static inline uint64_t uvas_os_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uintptr_t uvas_page_down(uintptr_t a)
{
    return a & ~(uintptr_t)(UVAS_PAGE - 1);
}

static inline uintptr_t uvas_page_up(uintptr_t a)
{
    return (a + UVAS_PAGE - 1) & ~(uintptr_t)(UVAS_PAGE - 1);
}

/* Anonymous memory committed on first touch (NORESERVE): a table sized
 * for the whole range costs only the entries used. Status; the message
 * names `what`. */
int uvas_os_table(size_t bytes, const char *what, void **out);
void uvas_os_table_free(void *p, size_t bytes);
/* Give the pages of [p, p+bytes) back; they read zero after. */
void uvas_os_discard(void *p, size_t bytes);

/* A memfd of bytes named name, mapped shared and writable here (and not
 * inherited by a child): tables peers map too. Status. */
int uvas_os_shared_table(const char *name, size_t bytes, bool sealable, int *fd, void **out);
/* A memfd named name holding a copy of data's len bytes, sealed against
 * any change: bytes handed to another process by descriptor. Status. */
int uvas_os_sealed_copy(const char *name, const void *data, size_t len, int *fd);
/* Every later mapping of fd (a peer's) read-only, for good. Status. */
int uvas_os_seal_for_others(int fd, const char *name);
void uvas_os_shared_table_free(void *p, size_t bytes, int fd);
/* All of fd mapped shared and writable, not inherited by a child; NULL if
 * it cannot be (the caller does without). */
void *uvas_os_map_file(int fd, size_t bytes);
/* The file at path mapped read-only and private (*out, *bytes; unmap with
 * uvas_os_unmap). Status, without a message: a caller that can do without
 * the file says nothing. */
int uvas_os_map_path(const char *path, const void **out, size_t *bytes);
void uvas_os_unmap(void *p, size_t bytes);
/* Free the host tier's pages [off, off+len): every mapping of them reads
 * zero (and faults again) after. Status. */
int uvas_os_punch(int fd, size_t off, size_t len);
/* Give [off, off+len) of fd pages now (the host tier's memory for a block
 * about to come back), so that a full tier fails here and not as a
 * SIGBUS later. Status. */
int uvas_os_allocate(int fd, size_t off, size_t len);
/* 2 MiB huge pages the system holds free for anyone: -1 when it cannot say. */
long uvas_os_huge_pages_free(void);
/* The file's size in bytes, or 0 if it cannot be read. */
size_t uvas_os_fd_size(int fd);
/* A new open file description of the file behind fd, read-write and
 * close-on-exec, with a file offset of its own (a descriptor passed
 * between processes shares one); -1 where the file cannot be opened
 * again (not a memfd or a file of a path). */
int uvas_os_reopen(int fd);

/* How a mapping is made (uvas_os_map, uvas_os_reserve). */
enum {
    UVAS_OS_NONE = 0,           /* no access: a reservation, or not yet */
    UVAS_OS_READ = 1 << 0,
    UVAS_OS_RW = 1 << 1,
    UVAS_OS_FIXED = 1 << 2,     /* over what is at `at` now, which is ours */
    UVAS_OS_NOREPLACE = 1 << 3, /* at `at` exactly, and only if nothing is there */
    UVAS_OS_NOFORK = 1 << 4,    /* not inherited by a child */
    UVAS_OS_NORESERVE = 1 << 5, /* pages committed on first touch */
    UVAS_OS_POPULATE = 1 << 6,  /* page tables filled now */
};
/* [off, off+bytes) of fd mapped shared, anywhere (at NULL) or at `at` as
 * how says. Status; the message names the call and the system's reason
 * (a caller adds what it was mapping). */
int uvas_os_map(int fd, size_t off, size_t bytes, unsigned how, void *at, void **out);
/* Address space of bytes reserved, with no access and no memory. Status. */
int uvas_os_reserve(size_t bytes, unsigned how, void *at, void **out);
/* Move the mapping at from to `to` (which it replaces), as one step: no
 * moment without a mapping there. Status. */
int uvas_os_move(void *from, size_t bytes, void *to);
int uvas_os_protect(void *p, size_t bytes, unsigned how);
/* Not inherited by a child (a fork must not share and corrupt it). */
void uvas_os_nofork(void *p, size_t bytes);
/* Private pages of [p, p+bytes) dropped, shared ones unmapped: the next
 * access faults. Status (uvas_os_discard, for memory that may stay). */
int uvas_os_zap(void *p, size_t bytes);
/* Is every page of [p, p+bytes) mapped (no hole)? */
bool uvas_os_all_mapped(void *p, size_t bytes);
/* One byte per page of [p, p+bytes): bit 0 set where the page is in memory
 * (mincore(2)). Status. */
int uvas_os_resident(void *p, size_t bytes, unsigned char *vec);
/* Copy bytes between this process and process pid (same node) without
 * its help: cross-memory attach (process_vm_readv/writev), which needs
 * ptrace permission over it. UVAS_ERR_PERM when that is refused (Yama,
 * containers), UVAS_ERR_SYS otherwise; a partial copy is an error. */
void uvas_os_close(int fd);
/* A new close-on-exec descriptor of fd. Status. */
int uvas_os_dup(int fd, int *out);
/* (os_fd.c) Descriptors open in this thread's table; -1 if /proc cannot
 * say. */
int uvas_os_fd_count(void);
/* Mark fd close-on-exec (a descriptor a third party made without it). */
void uvas_os_cloexec(int fd);
/* A descriptor that make(arg) returns (-1: it failed), made in a thread
 * with a descriptor table of its own and handed here close-on-exec from
 * its birth, so no fork or posix_spawn of another thread copies it.
 * *others: the descriptors make left in that table besides it (-1:
 * unknown), which the thread's end closes: a maker that keeps files of its
 * own it opened in the call must not be made apart. Status; *fd -1 where
 * make failed. */
int uvas_os_fd_apart(int (*make)(void *arg), void *arg, int *fd, int *others);
/* Is fd a memfd named `name` that this user owns? Status (UVAS_ERR_PERM
 * with a message that says what it is instead); *size: its size, *page:
 * its page (2 MiB for a memfd of huge pages), the unit a mapping of it
 * takes. */
int uvas_os_own_memfd(int fd, const char *name, size_t *size, size_t *page);
/* A 32-bit tag of the file fd refers to (its inode), the same through
 * every descriptor of it; 0 if fd cannot be asked. */
uint32_t uvas_os_file_tag(int fd);
int uvas_os_pid(void);
/* Is there a process pid (ours or another user's)? */
bool uvas_os_pid_alive(int pid);

/* Asymmetric fences (membarrier(2), global expedited). This process asks
 * once to take part: true when it does, so every running thread of it will
 * execute a full memory barrier whenever any process calls
 * uvas_os_heavy_fence; false where the kernel lacks it or forbids it (a
 * seccomp filter, gVisor). */
bool uvas_os_heavy_fence_join(void);
/* A full memory barrier on every running thread of every process that
 * joined, before this returns (where the expedited command fails, the
 * kernel's slow global one, which waits for every CPU). */
void uvas_os_heavy_fence(void);

/* The per-core second-level cache in bytes; 0 if the system does not say. */
size_t uvas_os_l2_bytes(void);
/* The CPU the calling thread runs on now; -1 if the system does not say. */
int uvas_os_cpu(void);
/* Is this an Intel x86 processor (copy_nt.c: where streaming stores pay)? */
bool uvas_os_cpu_intel(void);

int uvas_os_peer_read(int pid, void *local, uintptr_t remote, size_t bytes);
int uvas_os_peer_write(int pid, const void *local, uintptr_t remote, size_t bytes);
/* What maps [p, p+bytes) now (from /proc/self/maps), into buf, for error
 * messages: a failed move is a kernel's or driver's view of our layout. */
const char *uvas_os_layout(const void *p, size_t bytes, char *buf, size_t n);

#endif
