/*
 * The descriptor the transport layer gets for a device-resident block
 * names the memory that holds it: mapped at the offset given (where the
 * driver's descriptor maps, as lavapipe's does), it shows the block's data,
 * and data written there is what the block holds when it comes back.
 */
#include <sys/mman.h>

#include "../check.h"
#include "uvas/internal.h"

int main(void)
{
    tu_deadline(30);
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    size_t bs = d.block_size;
    unsigned char *p = uvas_malloc(2 * bs);
    CHECK(p != NULL, "uvas_malloc");
    for (size_t i = 0; i < 2 * bs; i++)
        p[i] = (unsigned char)(i * 3 + 7);
    CHECK_OK(uvas_migrate(p, 2 * bs, UVAS_LOC_DEVICE, 0));
    struct uvas_block *b = &uvas_g.bt[uvas_block_index(p + bs)];
    int fd;
    uint64_t mem_off, map_off;
    CHECK_OK(uvas_devtier_export(&uvas_g.devtier, b->dev_slot, &fd, &mem_off, &map_off));
    CHECK(fd >= 0 && mem_off % bs == 0, "fd %d, memory offset %llu", fd,
          (unsigned long long)mem_off);
    if (map_off == UINT64_MAX) {
        close(fd);
        SKIP("this driver's descriptors do not map (%s): a peer imports them instead",
             d.device_name);
    }
    unsigned char *m = mmap(NULL, bs, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map_off);
    CHECK(m != MAP_FAILED, "mmap of the exported descriptor: %s", strerror(errno));
    for (size_t i = 0; i < bs; i++)
        CHECK(m[i] == (unsigned char)((bs + i) * 3 + 7), "byte %zu through the descriptor", i);
    memset(m + 10, 0x5c, 20); /* as a peer's put would */
    munmap(m, bs);
    close(fd);
    CHECK(p[bs + 10] == 0x5c && p[bs + 29] == 0x5c && p[bs + 30] == (unsigned char)((bs + 30) * 3 + 7),
          "the block came back with the peer's bytes");
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}
