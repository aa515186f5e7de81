/* Storage of the block table. */
#include "uvas/block.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "uvas/status.h"

int uvas_block_table_create(size_t nblocks, struct uvas_block **out)
{
    size_t bytes = nblocks * sizeof(struct uvas_block);
    /* A 64 GiB range at 4 KiB blocks needs 16M entries: reserve, commit on
     * touch, so a large range costs only the entries that are used. */
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the block table (%zu bytes): %s",
                         bytes, strerror(errno));
    *out = p;
    return UVAS_OK;
}

void uvas_block_table_destroy(struct uvas_block *bt, size_t nblocks)
{
    if (bt)
        munmap(bt, nblocks * sizeof(struct uvas_block));
}
