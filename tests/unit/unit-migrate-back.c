/*
 * The way back copies from the device. While a block lives on the device
 * the memfd keeps its old pages (the shadow), so nothing in the public API
 * can tell a real device-to-host copy from a re-map of the shadow. This
 * test scribbles over the shadow through the memfd and checks that both an
 * explicit migration and a CPU fault bring back the device's bytes.
 */
#include <unistd.h>

#include "../check.h"
#include "uvas/internal.h"

int main(void)
{
    tu_deadline(30);
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    size_t bs = d.block_size, len = 4 * bs;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc");
    for (size_t i = 0; i < len; i++)
        p[i] = (unsigned char)(i * 13 + 1);
    unsigned char *junk = malloc(len);
    memset(junk, 0xa5, len);
    off_t off = (off_t)((char *)p - (char *)d.base);

    for (int way = 0; way < 2; way++) {
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        CHECK(pwrite(uvas_g.memfd, junk, len, off) == (ssize_t)len, "scribble the shadow: %s",
              strerror(errno));
        if (way == 0)
            CHECK_OK(uvas_migrate(p, len, UVAS_LOC_HOST, 0));
        for (size_t i = 0; i < len; i++) /* way 1: the CPU faults them back */
            CHECK(p[i] == (unsigned char)(i * 13 + 1), "%s: byte %zu is 0x%02x, the shadow's, "
                  "not the device's", way ? "CPU fault" : "uvas_migrate", i, p[i]);
        CHECK_EQ(tu_residence(p), UVAS_RES_HOST, "back on the host");
    }
    free(junk);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}
