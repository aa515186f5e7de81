/*
 * Setup and queries (identity, version, accessibility), and symmetric
 * memory: the heap calls, their hints, alignment, and the shmemx heap and
 * residence extension.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"

/* ---- setup and queries ------------------------------------------------------ */

static void check_identity(void)
{
    OK(me >= 0 && me < npes, "shmem_my_pe %d out of [0, %d)", me, npes);
    OK_EQ(_my_pe(), me, "_my_pe");
    OK_EQ(_num_pes(), npes, "_num_pes");
    OK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me, "shmem_team_my_pe(WORLD)");
    OK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes, "shmem_team_n_pes(WORLD)");

    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    OK_EQ(major, 1, "shmem_info_get_version major");
    OK_EQ(minor, 5, "shmem_info_get_version minor");
    OK_EQ(SHMEM_MAJOR_VERSION, 1, "SHMEM_MAJOR_VERSION");
    OK_EQ(SHMEM_MINOR_VERSION, 5, "SHMEM_MINOR_VERSION");
    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    OK(memchr(name, '\0', sizeof name) != NULL, "shmem_info_get_name: not terminated");
    OK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "shmem_info_get_name gave '%s', expected '%s'",
       name, SHMEM_VENDOR_STRING);

    /* Every PE number is taken exactly once, and every PE agrees on n. */
    int *seen = shmem_calloc((size_t)npes + 1, sizeof(int));
    OK(seen != NULL, "shmem_calloc for the identity table");
    shmem_int_atomic_inc(&seen[me], 0);
    shmem_int_atomic_add(&seen[npes], npes, 0);
    shmem_barrier_all();
    int copy[1024];
    CHECK(npes < 1024, "too many PEs for this test (%d)", npes);
    shmem_int_get(copy, seen, (size_t)npes + 1, 0);
    for (int k = 0; k < npes; k++)
        OK_EQ(copy[k], 1, "PE number taken exactly once");
    OK_EQ(copy[npes], npes * npes, "every PE reports the same shmem_n_pes");
    shmem_free(seen);

    for (int k = 0; k < npes; k++)
        OK_EQ(shmem_pe_accessible(k), 1, "shmem_pe_accessible(k) for a PE of the job");
    OK_EQ(shmem_pe_accessible(-1), 0, "shmem_pe_accessible(-1)");
    OK_EQ(shmem_pe_accessible(npes), 0, "shmem_pe_accessible(n_pes)");
}

/* ---- symmetric memory ------------------------------------------------------------ */

/* The same address on every PE: gathered on PE 0 and compared. */
static void expect_symmetric(const void *p, const char *what)
{
    uint64_t *addrs = shmem_calloc((size_t)npes, sizeof(uint64_t));
    CHECK(addrs, "shmem_calloc for the address table");
    shmem_uint64_p(&addrs[me], (uint64_t)(uintptr_t)p, 0);
    shmem_barrier_all();
    if (me == 0)
        for (int k = 0; k < npes; k++)
            OK(addrs[k] == (uint64_t)(uintptr_t)p, "%s: PE %d got %#llx, PE 0 %p", what, k,
               (unsigned long long)addrs[k], p);
    shmem_free(addrs);
}

static void check_memory(void)
{
    OK(shmem_malloc(0) == NULL, "shmem_malloc(0) is NULL");

    /* malloc: usable, symmetric, reachable remotely. */
    size_t n = 1000;
    unsigned char *m = shmem_malloc(n);
    OK(m != NULL, "shmem_malloc(%zu)", n);
    expect_symmetric(m, "shmem_malloc");
    fill_pat(m, n, me, 1);
    shmem_barrier_all();
    unsigned char back[1000];
    shmem_getmem(back, m, n, right);
    expect_pat(back, n, right, 1, "shmem_malloc'd memory read from the right neighbour");
    shmem_free(m);
    shmem_free(NULL); /* does nothing */

    /* calloc: zeroed, even where an earlier allocation left bytes behind. */
    size_t cn = 3000;
    long *dirty = shmem_malloc(cn * sizeof(long));
    OK(dirty != NULL, "shmem_malloc before calloc");
    memset(dirty, 0x5a, cn * sizeof(long));
    shmem_free(dirty);
    long *z = shmem_calloc(cn, sizeof(long));
    OK(z != NULL, "shmem_calloc(%zu, %zu)", cn, sizeof(long));
    expect_symmetric(z, "shmem_calloc");
    for (size_t i = 0; i < cn; i++)
        if (z[i] != 0)
            FAIL("shmem_calloc: element %zu is %#lx, expected 0", i, (unsigned long)z[i]);
    nchecks++;
    /* ... and remotely too. */
    long rz[64];
    memset(rz, 0x11, sizeof rz);
    shmem_long_get(rz, z + cn - 64, 64, right);
    for (int i = 0; i < 64; i++)
        OK_EQ(rz[i], 0, "shmem_calloc'd memory read remotely");
    shmem_free(z);
    /* A larger calloc (several blocks). */
    size_t big = (size_t)5 << 20;
    unsigned char *bz = shmem_calloc(1, big);
    OK(bz != NULL, "shmem_calloc of 5 MiB");
    OK_EQ(tu_find_not(bz, big, 0), -1, "shmem_calloc of 5 MiB reads zero");
    shmem_free(bz);

    /* align: power-of-two alignments, small and large. */
    size_t aligns[] = {8, 64, 4096, 65536, (size_t)1 << 21};
    for (size_t k = 0; k < sizeof aligns / sizeof *aligns; k++) {
        void *a = shmem_align(aligns[k], 100);
        OK(a != NULL, "shmem_align(%zu, 100)", aligns[k]);
        OK((uintptr_t)a % aligns[k] == 0, "shmem_align(%zu): %p is not aligned", aligns[k], a);
        expect_symmetric(a, "shmem_align");
        memset(a, 1, 100);
        shmem_free(a);
    }
    void *sa = shmemalign(256, 10);
    OK(sa != NULL && (uintptr_t)sa % 256 == 0, "shmemalign(256): %p", sa);
    shfree(sa);

    /* realloc: grow (content kept, new size usable remotely), shrink. */
    int *r = shmem_malloc(100 * sizeof(int));
    OK(r != NULL, "shmem_malloc before realloc");
    for (int i = 0; i < 100; i++)
        r[i] = me * 1000 + i;
    size_t grown = 300000; /* > one 2 MiB block of ints */
    r = shmem_realloc(r, grown * sizeof(int));
    OK(r != NULL, "shmem_realloc to %zu ints", grown);
    expect_symmetric(r, "shmem_realloc (grow)");
    for (int i = 0; i < 100; i++)
        OK_EQ(r[i], me * 1000 + i, "shmem_realloc kept the content");
    shmem_int_p(&r[grown - 1], 424242 + me, right);
    shmem_barrier_all();
    OK_EQ(r[grown - 1], 424242 + left, "a put into the grown part of a reallocated object");
    r = shmem_realloc(r, 50 * sizeof(int));
    OK(r != NULL, "shmem_realloc to 50 ints");
    expect_symmetric(r, "shmem_realloc (shrink)");
    for (int i = 0; i < 50; i++)
        OK_EQ(r[i], me * 1000 + i, "shmem_realloc (shrink) kept the content");
    OK(shmem_realloc(r, 0) == NULL, "shmem_realloc(ptr, 0) frees and gives NULL");
    int *r2 = shmem_realloc(NULL, 16 * sizeof(int));
    OK(r2 != NULL, "shmem_realloc(NULL, n) allocates");
    shmem_free(r2);

    /* Hints. */
    OK(shmem_malloc_with_hints(0, SHMEM_MALLOC_HOST_HEAP) == NULL,
       "shmem_malloc_with_hints(0) is NULL");
    int defheap = shmemx_default_heap();

    /* Host heap: reports the host heap and lives in CPU memory once touched,
     * as seen here and from the neighbour. */
    size_t hsz = (size_t)3 << 20;
    unsigned char *h = shmem_malloc_with_hints(hsz, SHMEM_MALLOC_HOST_HEAP);
    OK(h != NULL, "shmem_malloc_with_hints(HOST_HEAP)");
    expect_symmetric(h, "host heap");
    OK_EQ(shmemx_heap_of(h), SHMEMX_HEAP_HOST, "shmemx_heap_of(host-heap object)");
    OK_EQ(shmemx_heap_of(h + hsz - 1), SHMEMX_HEAP_HOST, "shmemx_heap_of(its last byte)");
    fill_pat(h, hsz, me, 2);
    shmem_barrier_all();
    OK_EQ(shmemx_residence(h, me), SHMEMX_RES_HOST, "host-heap object after touch, here");
    OK_EQ(shmemx_residence(h + hsz - 1, me), SHMEMX_RES_HOST, "its last block, here");
    OK_EQ(shmemx_residence(h, right), SHMEMX_RES_HOST, "host-heap object at the neighbour");
    static unsigned char hb[(size_t)3 << 20];
    shmem_getmem(hb, h, hsz, right);
    expect_pat(hb, hsz, right, 2, "host-heap object read from the neighbour");
    shmem_free(h);

    /* Device heap: GPU memory when the job has a device, CPU memory
     * otherwise. Written and read only through RMA, so that no CPU access
     * here pulls it back. */
    size_t dsz = (size_t)2 << 20;
    unsigned char *d = shmem_malloc_with_hints(dsz, SHMEM_MALLOC_DEVICE_HEAP);
    OK(d != NULL, "shmem_malloc_with_hints(DEVICE_HEAP)");
    expect_symmetric(d, "device heap");
    int dh = shmemx_heap_of(d);
    if (dev_present)
        OK_EQ(dh, SHMEMX_HEAP_DEVICE, "shmemx_heap_of(device-heap object) with a device");
    else
        OK(dh == SHMEMX_HEAP_DEVICE || dh == SHMEMX_HEAP_HOST,
           "shmemx_heap_of(device-heap object) without a device: %d", dh);
    static unsigned char db[(size_t)2 << 20], dsrc[(size_t)2 << 20];
    fill_pat(dsrc, dsz, me, 3);
    shmem_putmem(d, dsrc, dsz, right);
    shmem_barrier_all();
    int want_res = dev_present ? SHMEMX_RES_DEVICE : SHMEMX_RES_HOST;
    OK_EQ(shmemx_residence(d, me), want_res, "device-heap object after a put, here");
    OK_EQ(shmemx_residence(d, right), want_res, "device-heap object at the neighbour");
    shmem_getmem(db, d, dsz, me);
    expect_pat(db, dsz, left, 3, "device-heap object (own copy, put by the left neighbour)");
    shmem_getmem(db, d, dsz, right);
    expect_pat(db, dsz, me, 3, "device-heap object at the neighbour");
    OK_EQ(shmemx_residence(d, me), want_res, "device-heap object after reads");
    shmem_free(d);

    /* ATOMICS_REMOTE: an ordinary object of the default heap. */
    long *ar = shmem_malloc_with_hints(16 * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    OK(ar != NULL, "shmem_malloc_with_hints(ATOMICS_REMOTE)");
    expect_symmetric(ar, "ATOMICS_REMOTE");
    OK_EQ(shmemx_heap_of(ar), defheap, "shmemx_heap_of(ATOMICS_REMOTE object)");
    ar[3] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(&ar[3], me + 1, 0);
    shmem_barrier_all();
    if (me == 0)
        OK_EQ(ar[3], (long)npes * (npes + 1) / 2, "atomics on an ATOMICS_REMOTE object");
    shmem_free(ar);
    long *sr = shmem_malloc_with_hints(8, SHMEM_MALLOC_SIGNAL_REMOTE);
    OK(sr != NULL, "shmem_malloc_with_hints(SIGNAL_REMOTE)");
    shmem_free(sr);

    /* Plain shmem_malloc: the default heap, and (once touched) residence
     * that matches it. */
    size_t psz = (size_t)4 << 20;
    unsigned char *p = shmem_malloc(psz);
    OK(p != NULL, "shmem_malloc of 4 MiB");
    OK_EQ(shmemx_heap_of(p), defheap, "shmemx_heap_of(plain shmem_malloc)");
    struct uvas_range_desc rd = tu_range();
    if (defheap == SHMEMX_HEAP_UNIFIED && rd.fault_mode == UVAS_FAULT_UFFD) {
        OK_EQ(shmemx_residence(p + (2 << 20), me), SHMEMX_RES_UNPOPULATED,
              "an untouched unified-heap block, here");
        OK_EQ(shmemx_residence(p + (2 << 20), right), SHMEMX_RES_UNPOPULATED,
              "an untouched unified-heap block at the neighbour");
    }
    shmem_barrier_all(); /* the neighbour has looked before we touch */
    /* Touched through RMA: a CPU store would bring a device-resident block
     * back to the host (by design, as for managed memory). */
    static unsigned char ptouch[(size_t)4 << 20];
    memset(ptouch, 0x33, psz);
    shmem_putmem(p, ptouch, psz, me);
    shmem_barrier_all();
    int pres = shmemx_residence(p, me);
    if (defheap == SHMEMX_HEAP_DEVICE && dev_present)
        OK_EQ(pres, SHMEMX_RES_DEVICE, "touched plain allocation (default heap DEVICE)");
    else if (defheap != SHMEMX_HEAP_UNIFIED || !getenv("UVAS_POLICY"))
        OK_EQ(pres, SHMEMX_RES_HOST, "touched plain allocation (first-touch on the CPU)");
    else
        OK(pres != SHMEMX_RES_UNPOPULATED, "touched plain allocation is populated");
    OK_EQ(shmemx_residence(p, right), pres, "the neighbour's touched copy");
    shmem_free(p);
}

int main(void)
{
    int level = suite_start();
    check_identity();
    check_memory();
    suite_end("test-shmem-setup", level);
    return 0;
}
