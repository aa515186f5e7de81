/*
 * The main job for now: allocate without hints, touch part of it, and show
 * where every block lives and what the controller did.
 */
#include <stdio.h>
#include <string.h>

#include "uvas.h"

int main(void)
{
    if (uvas_init(NULL)) {
        fprintf(stderr, "uvas-demo: %s\n", uvas_last_error());
        return 1;
    }
    struct uvas_range_desc d;
    uvas_range(&d);
    printf("uvas range %p + %zu GiB, block %zu KiB, policy %s\nfault path: %s\n", d.base,
           d.size >> 30, d.block_size >> 10, d.policy, d.fault_note);
    printf("device tier: %s\n", d.device_note);
    if (d.device_pci[0])
        printf("device at PCI %s, NUMA node %d, local cores %s\n", d.device_pci,
               d.device_numa_node, d.device_cpuset[0] ? d.device_cpuset : "?");
    printf("\n");

    size_t len = 64 * d.block_size;
    char *a = uvas_malloc(len);                         /* no hints: policy decides */
    double *b = uvas_malloc_hint(1000 * sizeof *b, UVAS_HINT_HOST);
    if (!a || !b) {
        fprintf(stderr, "uvas-demo: %s\n", uvas_last_error());
        return 1;
    }
    for (size_t i = 0; i < len / 4; i += 4096) /* the first quarter, page by page */
        a[i] = (char)i;
    a[len / 2] = 1;                             /* one block in the middle */
    for (int i = 0; i < 1000; i++)
        b[i] = i * 0.5;

    struct uvas_ptr_info info;
    uvas_query(a + len / 2, &info);
    printf("a + len/2 lives in %s (block %p, allocation %p, %zu bytes)\n",
           uvas_residence_name(info.residence), info.block_base, info.alloc_base,
           info.alloc_size);
    uvas_query(a + len - 1, &info);
    printf("a + len-1 is %s\n\n", uvas_residence_name(info.residence));

    printf("residency of a (%zu blocks; . unpopulated, H host, D device):\n",
           len / d.block_size);
    uvas_residency_print(stdout, a, len);
    if (d.device_present) {
        /* The second half to the GPU, then the CPU reads one block back. */
        if (uvas_migrate(a + len / 2, len / 2, UVAS_LOC_DEVICE, 0))
            fprintf(stderr, "uvas-demo: %s\n", uvas_last_error());
        printf("after uvas_migrate(a + len/2, len/2, UVAS_LOC_DEVICE):\n");
        uvas_residency_print(stdout, a, len);
        volatile char c = a[len - 1];
        (void)c;
        printf("after the CPU read a[len-1]:\n");
        uvas_residency_print(stdout, a, len);
    }
    printf("\n");
    uvas_stats_print(stdout);
    uvas_free(a);
    uvas_free(b);
    return uvas_finalize() ? 1 : 0;
}
