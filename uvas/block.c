/* Storage of the block table. */
#include "uvas/block.h"


#include "uvas/os.h"
#include "uvas/status.h"

int uvas_block_table_create(size_t nblocks, struct uvas_block **out)
{
    size_t bytes = nblocks * sizeof(struct uvas_block);
    /* A 64 GiB range at 4 KiB blocks needs 16M entries: reserve, commit on
     * touch, so a large range costs only the entries that are used. */
    void *p;
    int rc = uvas_os_table(bytes, "the block table", &p);
    if (rc == UVAS_OK)
        *out = p;
    return rc;
}

void uvas_block_table_destroy(struct uvas_block *bt, size_t nblocks)
{
    uvas_os_table_free(bt, nblocks * sizeof(struct uvas_block));
}
