/*
 * CPU faults on device-resident blocks read ahead in a sequential sweep
 * and only then: a lone touch brings back its block alone; a sweep brings
 * back the blocks ahead of it in pipelined runs (fewer device faults than
 * blocks when the sweep is quick, never more), its data intact; and a
 * readahead never crosses into the next allocation.
 */
#include "check.h"

#define NB 32

int main(void)
{
    tu_deadline(60);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    size_t bs = d.block_size;
    unsigned char *a = uvas_malloc(NB * bs), *b = uvas_malloc(NB * bs);
    CHECK(a && b, "uvas_malloc");
    CHECK(b == a + NB * bs, "the two allocations are not adjacent (%p, %p)", (void *)a,
          (void *)b);
    for (size_t i = 0; i < NB * bs; i++)
        a[i] = (unsigned char)(i * 13 + 1), b[i] = (unsigned char)(i * 7 + 5);
    CHECK_OK(uvas_migrate(a, NB * bs, UVAS_LOC_DEVICE, 0));
    CHECK_OK(uvas_migrate(b, NB * bs, UVAS_LOC_DEVICE, 0));

    /* A lone touch: its block alone. */
    CHECK_EQ(a[8 * bs + 3], (unsigned char)((8 * bs + 3) * 13 + 1), "data of the lone touch");
    CHECK_EQ(tu_residence(a + 8 * bs), UVAS_RES_HOST, "the touched block");
    CHECK_EQ(tu_residence(a + 7 * bs), UVAS_RES_DEVICE, "the block before a lone touch");
    CHECK_EQ(tu_residence(a + 9 * bs), UVAS_RES_DEVICE, "the block after a lone touch");
    CHECK_OK(uvas_migrate(a, NB * bs, UVAS_LOC_DEVICE, 0));

    /* A sweep of a: every block comes back, with its data, in at most NB
     * faults; b stays on the device. */
    struct uvas_stats s0 = tu_stats();
    for (size_t i = 0; i < NB * bs; i += 4096)
        CHECK(a[i] == (unsigned char)(i * 13 + 1), "sweep: byte %zu", i);
    /* The last readahead run may still be publishing (check.h). */
    tu_settle_blocks(a, NB * bs, UVAS_RES_HOST, "a after the sweep");
    struct uvas_stats s1 = tu_stats();
    tu_expect_blocks(b, NB * bs, UVAS_RES_DEVICE, "b, the next allocation, after a's sweep");
    uint64_t faults = s1.faults_device - s0.faults_device;
    CHECK(faults >= 1 && faults <= NB, "%llu device faults for %d blocks",
          (unsigned long long)faults, NB);
    printf("sweep of %d device blocks: %llu CPU faults brought them back\n", NB,
           (unsigned long long)faults);
    for (size_t i = 0; i < NB * bs; i++)
        CHECK(b[i] == (unsigned char)(i * 7 + 5), "b byte %zu", i);
    uvas_free(a);
    uvas_free(b);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
