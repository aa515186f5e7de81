/*
 * The system seam's memory calls that the ground shares: tables sized for
 * the whole range and committed only where touched, memfd-backed tables
 * shared with peers, and mappings of the host tier. errno stays here.
 */
#include "uvas/os.h"

#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
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
    int f = memfd_create(name, MFD_CLOEXEC | (sealable ? MFD_ALLOW_SEALING : 0));
    if (f < 0)
        return uvas_fail(UVAS_ERR_SYS, "memfd_create for the %s failed: %s", name,
                         strerror(errno));
    if (ftruncate(f, (off_t)bytes) < 0) {
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
