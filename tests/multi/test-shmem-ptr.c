/*
 * shmem_ptr hands out direct pointers only into memory that never moves
 * (before: a pointer into a block the owner then migrated took stores that
 * were silently lost):
 *  - into a host-heap allocation (SHMEM_MALLOC_HOST_HEAP) of a peer on the
 *    node: a pointer; the owner cannot move that memory (uvas_migrate to
 *    the device is refused), and stores through the pointer made around
 *    the owner's attempts are all there;
 *  - into the unified or the device heap: NULL (use shmem_put);
 *  - at the calling PE itself: the address given, whatever the heap.
 * Over UVAS_TRANSPORT=ucx there are no windows: NULL for peers throughout.
 */
#include <shmem.h>

#include <stdbool.h>
#include <stdlib.h>

#include "tests/check.h"
#include "tests/multi/pes.h"

#define N 4096

int main(void)
{
    tu_deadline(60);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    tu_need_pes(2);
    int peer = (me + 1) % n;
    long *host = shmem_malloc_with_hints(N * sizeof(long), SHMEM_MALLOC_HOST_HEAP);
    long *any = shmem_malloc(N * sizeof(long));
    long *dev = shmem_malloc_with_hints(N * sizeof(long), SHMEM_MALLOC_DEVICE_HEAP);
    CHECK(host && any && dev, "shmem_malloc");
    for (int i = 0; i < N; i++)
        host[i] = -1, any[i] = -1;
    shmem_barrier_all();

    CHECK(shmem_ptr(any, me) == any && shmem_ptr(dev, me) == dev, "shmem_ptr at myself");
    CHECK(shmem_ptr(any, peer) == NULL, "shmem_ptr into the peer's unified heap is not NULL");
    CHECK(shmem_ptr(dev, peer) == NULL, "shmem_ptr into the peer's device heap is not NULL");
    long *hp = shmem_ptr(host, peer);
    struct uvas_range_desc d;
    CHECK_OK(uvas_range(&d));
    bool windows = getenv("UVAS_TRANSPORT") == NULL || strcmp(getenv("UVAS_TRANSPORT"), "ucx");
    if (!windows) {
        CHECK(hp == NULL, "shmem_ptr over UCX only is not NULL");
    } else {
        CHECK(hp != NULL, "shmem_ptr into the peer's host heap is NULL");
        /* Stores through the pointer while the owner tries to move it. */
        for (int i = 0; i < N / 2; i++)
            hp[i] = (long)me * 1000000 + i;
        if (d.device_present)
            CHECK_STATUS(uvas_migrate(host, N * sizeof(long), UVAS_LOC_DEVICE, 0),
                         UVAS_ERR_INVAL);
        CHECK_EQ(shmemx_residence(host, me), SHMEMX_RES_HOST, "host heap residence");
        for (int i = N / 2; i < N; i++)
            hp[i] = (long)me * 1000000 + i;
    }
    shmem_barrier_all();
    int from = (me + n - 1) % n;
    if (windows)
        for (int i = 0; i < N; i++)
            CHECK(host[i] == (long)from * 1000000 + i, "word %d stored through shmem_ptr holds "
                  "%ld", i, host[i]);
    shmem_barrier_all();
    shmem_free(host);
    shmem_free(any);
    shmem_free(dev);
    if (me == 0)
        printf("shmem_ptr: host heap %s, unified and device heaps NULL\n",
               windows ? "reached directly, every store kept" : "NULL (UCX only)");
    shmem_finalize();
    return 0;
}
