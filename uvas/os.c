/*
 * The system seam's memory calls that the ground's tables share: sized for
 * the whole range, committed only where touched. errno stays here.
 */
#include "uvas/os.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

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
