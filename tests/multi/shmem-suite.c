/* The shared start and helpers of the OpenSHMEM API tests (shmem-suite.h). */
#include "shmem-suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/multi/pes.h"

int me, npes, right, left;
int dev_present;
unsigned long nchecks;

unsigned char pat(int pe, size_t i, int salt)
{
    return (unsigned char)((pe * 151 + salt * 29 + i * 7 + (i >> 11)) | 1);
}

void fill_pat(unsigned char *p, size_t n, int pe, int salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pat(pe, i, salt);
}

void expect_pat(const unsigned char *p, size_t n, int pe, int salt, const char *what)
{
    nchecks++;
    for (size_t i = 0; i < n; i++)
        if (p[i] != pat(pe, i, salt))
            FAIL("PE %d: %s: byte %zu is %#x, expected %#x (pattern of PE %d)", me, what, i,
                 p[i], pat(pe, i, salt), pe);
}

int suite_start(void)
{
    if (getenv("UVAS_TEST_SINGLE"))
        SKIP("single-PE run requested");
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    int odd = rank && (atoi(rank) % 2 == 1);
    int provided = -1, q = -2;
    if (odd) {
        shmem_init();
        shmem_query_thread(&q);
        CHECK(q >= SHMEM_THREAD_SINGLE && q <= SHMEM_THREAD_MULTIPLE,
              "shmem_query_thread after shmem_init: %d", q);
    } else {
        int st = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        CHECK(st == 0, "shmem_init_thread returned %d", st);
        CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE,
              "provided %d", provided);
        shmem_query_thread(&q);
        CHECK_EQ(q, provided, "shmem_query_thread after shmem_init_thread");
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    tu_need_pes(2);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    dev_present = shmemx_device_present();
    CHECK(dev_present == 0 || dev_present == 1, "shmemx_device_present: %d", dev_present);
    int defheap = shmemx_default_heap();
    const char *hv = getenv("SHMEM_SYMMETRIC_HEAP_DEFAULT");
    int want_heap = !hv || !*hv ? SHMEMX_HEAP_UNIFIED :
                    !strcasecmp(hv, "host") ? SHMEMX_HEAP_HOST : SHMEMX_HEAP_DEVICE;
    CHECK_EQ(defheap, want_heap, "shmemx_default_heap");
    return q;
}

void suite_end(const char *name, int thread_level)
{
    shmem_barrier_all();
    shmem_finalize();
    if (me == 0)
        printf("%s: %d PEs, %lu checks on PE 0 passed (thread level %d, device %s, transport "
               "%s)\n", name, npes, nchecks, thread_level, dev_present ? "yes" : "no",
               getenv("UVAS_TRANSPORT") ? getenv("UVAS_TRANSPORT") : "default");
}
