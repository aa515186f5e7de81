/*
 * The system seam's memory calls that the ground shares: tables sized for
 * the whole range and committed only where touched, memfd-backed tables
 * shared with peers, mappings of the host tier, of device memory and of
 * peers' windows, and the probes that read the layout. Every mapping call
 * above the ground comes through here; errno stays here.
 */
#include "uvas/os.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uvas.h"
#include "uvas/status.h"

int uvas_os_table(size_t bytes, const char *what, void **out)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot reserve %zu bytes for %s: %s (a smaller "
                         "UVAS_SIZE, or a larger UVAS_BLOCK_SIZE, needs less)", bytes, what,
                         strerror(errno));
    *out = p;
    return UVAS_OK;
}

void uvas_os_table_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

void uvas_os_discard(void *p, size_t bytes)
{
    if (bytes)
        madvise(p, bytes, MADV_DONTNEED);
}

int uvas_os_shared_table(const char *name, size_t bytes, bool sealable, int *fd, void **out)
{
    int f = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (f < 0)
        return uvas_fail(UVAS_ERR_SYS, "memfd_create for the %s failed: %s", name,
                         strerror(errno));
    /* Its size is fixed before anyone else holds it: a peer that shrank it
     * would make our next access a SIGBUS. A table not sealed further
     * later (sealable) is closed to new seals too. */
    if (ftruncate(f, (off_t)bytes) < 0 ||
        fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | (sealable ? 0 : F_SEAL_SEAL)) < 0) {
        int e = errno;
        close(f);
        return uvas_fail(UVAS_ERR_SYS, "cannot size the %s to %zu bytes: %s", name, bytes,
                         strerror(e));
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, f, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(f);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the %s: %s", name, strerror(e));
    }
    madvise(p, bytes, MADV_DONTFORK); /* a child must not share it */
    *fd = f;
    *out = p;
    return UVAS_OK;
}

int uvas_os_sealed_copy(const char *name, const void *data, size_t len, int *fd)
{
    int f = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (f < 0)
        return uvas_fail(UVAS_ERR_SYS, "memfd_create for the %s failed: %s", name,
                         strerror(errno));
    const char *p = data;
    for (size_t done = 0; done < len;) {
        ssize_t w = pwrite(f, p + done, len - done, (off_t)done);
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(f);
            return uvas_fail(UVAS_ERR_SYS, "writing the %s (%zu bytes): %s", name, len,
                             strerror(e));
        }
        done += (size_t)w;
    }
    /* Its reader takes what was written, and nothing changes it after. */
    if (fcntl(f, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
        int e = errno;
        close(f);
        return uvas_fail(UVAS_ERR_SYS, "cannot seal the %s: %s", name, strerror(e));
    }
    *fd = f;
    return UVAS_OK;
}

int uvas_os_seal_for_others(int fd, const char *name)
{
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE |
                                   F_SEAL_SEAL) < 0)
        return uvas_fail(UVAS_ERR_SYS, "cannot seal the %s read-only for peers "
                         "(F_SEAL_FUTURE_WRITE needs Linux 5.1): %s", name, strerror(errno));
    return UVAS_OK;
}

void uvas_os_shared_table_free(void *p, size_t bytes, int fd)
{
    if (p)
        munmap(p, bytes);
    if (fd >= 0)
        close(fd);
}

void *uvas_os_map_file(int fd, size_t bytes)
{
    void *a = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (a == MAP_FAILED)
        return NULL;
    madvise(a, bytes, MADV_DONTFORK);
    return a;
}

int uvas_os_map_path(const char *path, const void **out, size_t *bytes)
{
    *out = NULL;
    *bytes = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return UVAS_ERR_SYS;
    struct stat st;
    void *a = MAP_FAILED;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        a = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (a == MAP_FAILED)
        return UVAS_ERR_SYS;
    *out = a;
    *bytes = (size_t)st.st_size;
    return UVAS_OK;
}

void uvas_os_unmap(void *p, size_t bytes)
{
    if (p)
        munmap(p, bytes);
}

int uvas_os_punch(int fd, size_t off, size_t len)
{
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) < 0)
        return uvas_fail(UVAS_ERR_SYS, "cannot punch [%zu, +%zu) of the host tier: %s", off,
                         len, strerror(errno));
    return UVAS_OK;
}

int uvas_os_allocate(int fd, size_t off, size_t len)
{
    if (fallocate(fd, 0, (off_t)off, (off_t)len) < 0)
        return uvas_fail(errno == ENOSPC ? UVAS_ERR_NOMEM : UVAS_ERR_SYS,
                         "fallocate of %zu bytes: %s", len, strerror(errno));
    return UVAS_OK;
}

long uvas_os_huge_pages_free(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return -1;
    char line[128];
    long n = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
            break;
    fclose(f);
    return n;
}

int uvas_os_reopen(int fd)
{
    char path[48];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return open(path, O_RDWR | O_CLOEXEC);
}

size_t uvas_os_fd_size(int fd)
{
    struct stat st;
    return fstat(fd, &st) < 0 || st.st_size < 0 ? 0 : (size_t)st.st_size;
}

static int prot_of(unsigned how)
{
    return how & UVAS_OS_RW ? PROT_READ | PROT_WRITE : how & UVAS_OS_READ ? PROT_READ : PROT_NONE;
}

static int flags_of(unsigned how, void *at)
{
    int f = 0;
    if (at && (how & UVAS_OS_FIXED))
        f |= MAP_FIXED;
    else if (at && (how & UVAS_OS_NOREPLACE))
        f |= MAP_FIXED_NOREPLACE;
    if (how & UVAS_OS_NORESERVE)
        f |= MAP_NORESERVE;
    if (how & UVAS_OS_POPULATE)
        f |= MAP_POPULATE;
    return f;
}

static int mapped(void *p, size_t bytes, unsigned how, void *at, void **out)
{
    if (p == MAP_FAILED)
        return uvas_fail(errno == ENOMEM ? UVAS_ERR_NOMEM
                         : errno == EEXIST ? UVAS_ERR_ADDR_IN_USE : UVAS_ERR_SYS,
                         "mmap of %zu bytes%s: %s", bytes, at ? " at a fixed address" : "",
                         strerror(errno));
    /* Kernels before 4.17 take MAP_FIXED_NOREPLACE as a hint. */
    if (at && (how & UVAS_OS_NOREPLACE) && p != at) {
        munmap(p, bytes);
        return uvas_fail(UVAS_ERR_ADDR_IN_USE, "mmap of %zu bytes at %p: placed at %p "
                         "instead", bytes, at, p);
    }
    if (how & UVAS_OS_NOFORK)
        madvise(p, bytes, MADV_DONTFORK);
    *out = p;
    return UVAS_OK;
}

int uvas_os_map(int fd, size_t off, size_t bytes, unsigned how, void *at, void **out)
{
    void *p = mmap(at, bytes, prot_of(how), MAP_SHARED | flags_of(how, at), fd, (off_t)off);
    return mapped(p, bytes, how, at, out);
}

int uvas_os_reserve(size_t bytes, unsigned how, void *at, void **out)
{
    void *p = mmap(at, bytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | flags_of(how, at), -1, 0);
    return mapped(p, bytes, how, at, out);
}

/* mremap(MREMAP_FIXED) as the system call. UCX's memory hooks (libucm,
 * loaded with the transport) patch libc's mremap with a four-argument
 * override that drops the new address, so the libc call would move the
 * mapping somewhere else. */
int uvas_os_move(void *from, size_t bytes, void *to)
{
    if (syscall(SYS_mremap, from, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, to) == -1)
        return uvas_fail(UVAS_ERR_SYS, "mremap of %zu bytes from %p to %p: %s", bytes, from,
                         to, strerror(errno));
    return UVAS_OK;
}

int uvas_os_protect(void *p, size_t bytes, unsigned how)
{
    if (mprotect(p, bytes, prot_of(how)) < 0)
        return uvas_fail(UVAS_ERR_SYS, "mprotect of %zu bytes at %p: %s", bytes, p,
                         strerror(errno));
    return UVAS_OK;
}

void uvas_os_nofork(void *p, size_t bytes)
{
    madvise(p, bytes, MADV_DONTFORK);
}

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24 /* Linux 5.18 */
#endif

int uvas_os_zap(void *p, size_t bytes)
{
    if (madvise(p, bytes, MADV_DONTNEED) == 0)
        return UVAS_OK;
    int e = errno;
    /* Pages the user locked (mlock): Linux refuses MADV_DONTNEED on them,
     * and a block "moved" with its pages still mapped loses what the CPU
     * writes there after. MADV_DONTNEED_LOCKED unmaps them all the same
     * (the memfd keeps them). */
    if (e == EINVAL && madvise(p, bytes, MADV_DONTNEED_LOCKED) == 0)
        return UVAS_OK;
    return uvas_fail(UVAS_ERR_SYS, "cannot unmap [%p, +%zu) (madvise MADV_DONTNEED): %s%s", p,
                     bytes, strerror(e),
                     e == EINVAL ? "; if the pages are locked (mlock), this kernel lacks "
                                   "MADV_DONTNEED_LOCKED (Linux 5.18): munlock them first"
                                 : "");
}

/* msync fails with ENOMEM where a page is not mapped: the cheapest probe
 * that reads no page and takes no fault. */
bool uvas_os_all_mapped(void *p, size_t bytes)
{
    return msync(p, bytes, MS_ASYNC) == 0;
}

int uvas_os_resident(void *p, size_t bytes, unsigned char *vec)
{
    if (mincore(p, bytes, vec) < 0)
        return uvas_fail(UVAS_ERR_SYS, "mincore of %zu bytes at %p: %s", bytes, p,
                         strerror(errno));
    return UVAS_OK;
}

void uvas_os_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

int uvas_os_dup(int fd, int *out)
{
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (d < 0)
        return uvas_fail(UVAS_ERR_SYS, "cannot duplicate descriptor %d: %s", fd, strerror(errno));
    *out = d;
    return UVAS_OK;
}

int uvas_os_own_memfd(int fd, const char *name, size_t *size, size_t *page)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return uvas_fail(errno == EBADF ? UVAS_ERR_INVAL : UVAS_ERR_SYS,
                         "descriptor %d: %s", fd, strerror(errno));
    if (st.st_uid != geteuid())
        return uvas_fail(UVAS_ERR_PERM, "descriptor %d belongs to user %u, not to this "
                         "process's user %u", fd, (unsigned)st.st_uid, (unsigned)geteuid());
    char path[64], link[256], want[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n < 0)
        return uvas_fail(UVAS_ERR_SYS, "cannot tell what descriptor %d is (%s): %s", fd, path,
                         strerror(errno));
    link[n] = 0;
    snprintf(want, sizeof want, "/memfd:%s (deleted)", name);
    if (!S_ISREG(st.st_mode) || strcmp(link, want))
        return uvas_fail(UVAS_ERR_PERM, "descriptor %d is '%s', not a uvas host tier ('%s')",
                         fd, link, want);
    /* A host tier's size is sealed (uvas/range.c): one that can shrink
     * could turn the importer's accesses into SIGBUS, whoever named it so. */
    int seals = fcntl(fd, F_GET_SEALS);
    const int need = F_SEAL_SHRINK | F_SEAL_GROW;
    if (seals < 0 || (seals & need) != need)
        return uvas_fail(UVAS_ERR_PERM, "descriptor %d is named as a uvas host tier but its "
                         "size is not sealed (seals %#x): not one uvas made", fd,
                         seals < 0 ? 0 : seals);
    *size = (size_t)st.st_size;
    /* hugetlbfs gives its huge page as the preferred I/O size; a mapping
     * must start and end on one. */
    *page = st.st_blksize > (blksize_t)UVAS_PAGE && !(st.st_blksize & (st.st_blksize - 1))
                ? (size_t)st.st_blksize
                : UVAS_PAGE;
    return UVAS_OK;
}

uint32_t uvas_os_file_tag(int fd)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return 0;
    uint64_t id = (uint64_t)st.st_ino ^ ((uint64_t)st.st_dev << 32);
    return (uint32_t)(id ^ (id >> 32));
}

int uvas_os_pid(void)
{
    return (int)getpid();
}

bool uvas_os_pid_alive(int pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

size_t uvas_os_l2_bytes(void)
{
    long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return v > 0 ? (size_t)v : 0;
}

int uvas_os_cpu(void)
{
    return sched_getcpu();
}

bool uvas_os_cpu_intel(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    return __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547 && d == 0x49656e69 &&
           c == 0x6c65746e; /* "GenuineIntel" */
#else
    return false;
#endif
}

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

bool uvas_os_heavy_fence_join(void)
{
    long have = membarrier(MEMBARRIER_CMD_QUERY);
    return have > 0 && (have & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
           (have & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
           membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}

void uvas_os_heavy_fence(void)
{
    if (membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0)
        membarrier(MEMBARRIER_CMD_GLOBAL);
}

static int peer_copy(int pid, void *local, uintptr_t remote, size_t bytes, bool write)
{
    struct iovec l = {local, bytes}, r = {(void *)remote, bytes};
    ssize_t got = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                        : process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (got == (ssize_t)bytes)
        return UVAS_OK;
    int e = got < 0 ? errno : EFAULT;
    return uvas_fail(e == EPERM || e == ENOSYS ? UVAS_ERR_PERM : UVAS_ERR_SYS,
                     "process_vm_%sv of %zu bytes %s pid %d at %#lx: %s",
                     write ? "write" : "read", bytes, write ? "to" : "from", pid,
                     (unsigned long)remote, got < 0 ? strerror(e) : "a partial copy");
}

int uvas_os_peer_read(int pid, void *local, uintptr_t remote, size_t bytes)
{
    return peer_copy(pid, local, remote, bytes, false);
}

int uvas_os_peer_write(int pid, const void *local, uintptr_t remote, size_t bytes)
{
    return peer_copy(pid, (void *)local, remote, bytes, true);
}

const char *uvas_os_layout(const void *a, size_t len, char *buf, size_t n)
{
    FILE *f = fopen("/proc/self/maps", "re");
    size_t o = 0;
    buf[0] = 0;
    if (!f)
        return buf;
    char line[256];
    uintptr_t lo = (uintptr_t)a, hi = lo + len;
    while (fgets(line, sizeof line, f) && o + 2 < n) {
        unsigned long s, e;
        char perms[8] = "", name[160] = "";
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %159s", &s, &e, perms, name) < 3 ||
            e <= lo || s >= hi)
            continue;
        int k = snprintf(buf + o, n - o, "%s%lx-%lx %s %s", o ? "; " : "", s, e, perms,
                         name[0] ? name : "[anon]");
        if (k < 0)
            break;
        o += (size_t)k < n - o ? (size_t)k : n - o - 1;
    }
    fclose(f);
    if (!o)
        snprintf(buf, n, "nothing mapped");
    return buf;
}
