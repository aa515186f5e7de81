/*
 * The OpenSHMEM 1.5 API as a program sees it: only <shmem.h> (and the test
 * helpers), every call's result checked exactly on every PE. Setup and
 * queries, symmetric memory and the heap hints, RMA (bulk, typed, strided,
 * non-blocking, with signal), atomics (alone and under contention),
 * ordering and point-to-point synchronisation, the world-team collectives
 * and one classic active-set form, shmem_ptr and the accessibility
 * queries, and the shmemx heap/residence extension.
 *
 * Runs on any number of PEs >= 2 (skips on 1). Even PEs start with
 * shmem_init_thread(SHMEM_THREAD_MULTIPLE), odd ones with shmem_init, so
 * both entry points are exercised in one job.
 */
#include <shmem.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tests/check.h"

static int me, npes, right, left;
static int dev_present;
static unsigned long nchecks;

/* CHECK, counted. */
#define OK(cond, ...)                                                          \
    do {                                                                       \
        nchecks++;                                                             \
        CHECK(cond, __VA_ARGS__);                                              \
    } while (0)
#define OK_EQ(a, b, what)                                                      \
    do {                                                                       \
        nchecks++;                                                             \
        CHECK_EQ(a, b, what);                                                  \
    } while (0)

/* A small value that identifies (pe, i) and fits every type, char included. */
#define VAL(T, pe, i) ((T)((((pe) * 37 + (i) * 5 + 7) & 0x7f)))

static unsigned char pat(int pe, size_t i, int salt)
{
    return (unsigned char)((pe * 151 + salt * 29 + i * 7 + (i >> 11)) | 1);
}

static void fill_pat(unsigned char *p, size_t n, int pe, int salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pat(pe, i, salt);
}

static void expect_pat(const unsigned char *p, size_t n, int pe, int salt, const char *what)
{
    nchecks++;
    for (size_t i = 0; i < n; i++)
        if (p[i] != pat(pe, i, salt))
            FAIL("PE %d: %s: byte %zu is %#x, expected %#x (pattern of PE %d)", me, what, i,
                 p[i], pat(pe, i, salt), pe);
}

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

/* ---- RMA --------------------------------------------------------------------------- */

static void check_bulk_rma(void)
{
    /* putmem / getmem of 3 MiB across block boundaries, and small ones. */
    size_t n = (size_t)3 << 20;
    static unsigned char src[(size_t)3 << 20], dst[(size_t)3 << 20];
    unsigned char *s = shmem_malloc(n + 4096);
    OK(s != NULL, "shmem_malloc for putmem");
    fill_pat(src, n, me, 4);
    shmem_putmem(s + 4096, src, n, right);
    shmem_barrier_all();
    expect_pat(s + 4096, n, left, 4, "shmem_putmem of 3 MiB from the left neighbour");
    shmem_getmem(dst, s + 4096, n, right);
    expect_pat(dst, n, me, 4, "shmem_getmem of 3 MiB from the right neighbour");
    /* small, unaligned, to every PE (self included) */
    unsigned char small[37];
    fill_pat(small, sizeof small, me, 5);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        shmem_putmem(s + 1 + 40 * (size_t)me, small, sizeof small, k);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        expect_pat(s + 1 + 40 * (size_t)k, sizeof small, k, 5, "small putmem from every PE");
    unsigned char g[37];
    for (int k = 0; k < npes; k++) {
        shmem_getmem(g, s + 1 + 40 * (size_t)me, sizeof g, k);
        expect_pat(g, sizeof g, me, 5, "small getmem from every PE");
    }
    /* putmem_nbi / getmem_nbi + quiet */
    shmem_barrier_all();
    fill_pat(src, n, me, 6);
    shmem_putmem_nbi(s + 4096, src, n, right);
    shmem_quiet();
    shmem_barrier_all();
    expect_pat(s + 4096, n, left, 6, "shmem_putmem_nbi + quiet");
    memset(dst, 0, n);
    shmem_getmem_nbi(dst, s + 4096, n, right);
    shmem_quiet();
    expect_pat(dst, n, me, 6, "shmem_getmem_nbi + quiet");
    /* sized forms */
    uint32_t w32[8], b32[8];
    uint64_t w64[8], b64[8];
    for (int i = 0; i < 8; i++) {
        w32[i] = 0x10000u * (unsigned)me + (unsigned)i;
        w64[i] = 0x100000000ull * (unsigned)me + (unsigned)i;
    }
    shmem_barrier_all();
    shmem_put32(s, w32, 8, right);
    shmem_put64(s + 64, w64, 8, right);
    shmem_barrier_all();
    shmem_get32(b32, s, 8, me);
    shmem_get64(b64, s + 64, 8, me);
    for (int i = 0; i < 8; i++) {
        OK_EQ(b32[i], 0x10000u * (unsigned)left + (unsigned)i, "shmem_put32/get32");
        OK_EQ(b64[i], 0x100000000ull * (unsigned)left + (unsigned)i, "shmem_put64/get64");
    }
    shmem_free(s);
}

#define RMA_TEST(NAME, T)                                                                 \
    static void rma_##NAME(void)                                                          \
    {                                                                                     \
        enum { N = 16 };                                                                  \
        T *a = shmem_malloc(N * sizeof(T));                                               \
        T *b = shmem_malloc((size_t)npes * sizeof(T));                                    \
        T *c = shmem_calloc(2 * N, sizeof(T));                                            \
        T *d = shmem_malloc(N * sizeof(T));                                               \
        OK(a && b && c && d, #NAME ": allocations");                                      \
        T src[N], src2[N], dst[3 * N];                                                    \
        for (int i = 0; i < N; i++) {                                                     \
            src[i] = VAL(T, me, i);                                                       \
            src2[i] = VAL(T, me, i + N);                                                  \
        }                                                                                 \
        /* put / get */                                                                   \
        shmem_##NAME##_put(a, src, N, right);                                             \
        shmem_barrier_all();                                                              \
        for (int i = 0; i < N; i++)                                                       \
            OK(a[i] == VAL(T, left, i), "shmem_" #NAME "_put: [%d] = %g, expected %g", i, \
               (double)a[i], (double)VAL(T, left, i));                                    \
        memset(dst, 0, sizeof dst);                                                       \
        shmem_##NAME##_get(dst, a, N, right);                                             \
        for (int i = 0; i < N; i++)                                                       \
            OK(dst[i] == VAL(T, me, i), "shmem_" #NAME "_get: [%d] = %g, expected %g", i, \
               (double)dst[i], (double)VAL(T, me, i));                                    \
        /* p / g, to and from every PE */                                                 \
        for (int j = 0; j < npes; j++)                                                    \
            shmem_##NAME##_p(&b[me], VAL(T, me, j), j);                                   \
        shmem_barrier_all();                                                              \
        for (int k = 0; k < npes; k++)                                                    \
            OK(b[k] == VAL(T, k, me), "shmem_" #NAME "_p from PE %d: %g, expected %g", k, \
               (double)b[k], (double)VAL(T, k, me));                                      \
        for (int j = 0; j < npes; j++) {                                                  \
            T v = shmem_##NAME##_g(&b[me], j);                                            \
            OK(v == VAL(T, me, j), "shmem_" #NAME "_g from PE %d: %g, expected %g", j,    \
               (double)v, (double)VAL(T, me, j));                                         \
        }                                                                                 \
        /* iput: c[2i] = src[3i], i < 5, at the right neighbour */                        \
        shmem_##NAME##_iput(c, src, 2, 3, 5, right);                                      \
        shmem_barrier_all();                                                              \
        for (int i = 0; i < 2 * N; i++) {                                                 \
            T want = (i % 2 == 0 && i / 2 < 5) ? VAL(T, left, 3 * (i / 2)) : (T)0;        \
            OK(c[i] == want, "shmem_" #NAME "_iput: [%d] = %g, expected %g", i,           \
               (double)c[i], (double)want);                                               \
        }                                                                                 \
        /* iget: dst[3i] = c[2i] of the right neighbour, i < 5 */                         \
        memset(dst, 0, sizeof dst);                                                       \
        shmem_##NAME##_iget(dst, c, 3, 2, 5, right);                                      \
        for (int i = 0; i < 3 * N; i++) {                                                 \
            T want = (i % 3 == 0 && i / 3 < 5) ? VAL(T, me, 3 * (i / 3)) : (T)0;            \
            OK(dst[i] == want, "shmem_" #NAME "_iget: [%d] = %g, expected %g", i,         \
               (double)dst[i], (double)want);                                             \
        }                                                                                 \
        /* put_nbi / get_nbi + quiet */                                                   \
        shmem_##NAME##_put_nbi(d, src2, N, right);                                        \
        shmem_quiet();                                                                    \
        shmem_barrier_all();                                                              \
        for (int i = 0; i < N; i++)                                                       \
            OK(d[i] == VAL(T, left, i + N), "shmem_" #NAME "_put_nbi: [%d] = %g", i,      \
               (double)d[i]);                                                             \
        memset(dst, 0, sizeof dst);                                                       \
        shmem_##NAME##_get_nbi(dst, d, N, right);                                         \
        shmem_quiet();                                                                    \
        for (int i = 0; i < N; i++)                                                       \
            OK(dst[i] == VAL(T, me, i + N), "shmem_" #NAME "_get_nbi: [%d] = %g", i,      \
               (double)dst[i]);                                                           \
        shmem_free(d);                                                                    \
        shmem_free(c);                                                                    \
        shmem_free(b);                                                                    \
        shmem_free(a);                                                                    \
    }

RMA_TEST(int, int)
RMA_TEST(long, long)
RMA_TEST(double, double)
RMA_TEST(int64, int64_t)
RMA_TEST(uint32, uint32_t)
RMA_TEST(char, char)
RMA_TEST(float, float)
RMA_TEST(size, size_t)

/* The C11 generic RMA names. */
static void check_generic_rma(void)
{
    long *l = shmem_calloc(8, sizeof(long));
    double *x = shmem_calloc(8, sizeof(double));
    OK(l && x, "allocations");
    long ls[4] = {me + 1L, me + 2L, me + 3L, me + 4L};
    double xs[4] = {me + 0.5, me + 1.25, -me - 0.75, 1e300};
    shmem_put(l, ls, 4, right);
    shmem_put_nbi(x, xs, 4, right);
    shmem_p(&l[5], 77L * me, right);
    shmem_p(&x[5], 0.125 * me, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        OK_EQ(l[i], left + 1L + i, "generic shmem_put (long)");
    OK(x[0] == left + 0.5 && x[1] == left + 1.25 && x[2] == -left - 0.75 && x[3] == 1e300,
       "generic shmem_put_nbi (double): %g %g %g %g", x[0], x[1], x[2], x[3]);
    OK_EQ(l[5], 77L * left, "generic shmem_p (long)");
    OK(x[5] == 0.125 * left, "generic shmem_p (double): %g", x[5]);
    long lg[4];
    double xg[4];
    shmem_get(lg, l, 4, right);
    shmem_get_nbi(xg, x, 4, right);
    shmem_quiet();
    for (int i = 0; i < 4; i++) {
        OK_EQ(lg[i], ls[i], "generic shmem_get (long)");
        OK(xg[i] == xs[i], "generic shmem_get_nbi (double) [%d]: %g", i, xg[i]);
    }
    OK_EQ(shmem_g(&l[5], right), 77L * me, "generic shmem_g (long)");
    OK(shmem_g(&x[5], right) == 0.125 * me, "generic shmem_g (double)");
    long li[8] = {0};
    shmem_barrier_all();
    shmem_iput(l, ls, 2, 1, 4, right); /* l[0,2,4,6] = ls[0..3] */
    shmem_barrier_all();
    shmem_iget(li, l, 1, 2, 4, me);
    for (int i = 0; i < 4; i++)
        OK_EQ(li[i], left + 1L + i, "generic shmem_iput/iget");
    shmem_free(x);
    shmem_free(l);
}

/* put with signal: SET (ordered after the data) and ADD (from every PE). */
static void check_signal(void)
{
    enum { SN = 100000, K = 32 };
    uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
    unsigned char *sd = shmem_malloc(SN);
    long *ad = shmem_calloc((size_t)npes * K, sizeof(long));
    int *id = shmem_calloc(K, sizeof(int));
    OK(sig && sd && ad && id, "allocations");
    static unsigned char src[SN];
    fill_pat(src, SN, me, 7);

    /* SET */
    shmem_putmem_signal(sd, src, SN, &sig[0], (uint64_t)me + 1, SHMEM_SIGNAL_SET, right);
    uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, (uint64_t)left + 1);
    OK_EQ(got, left + 1, "shmem_signal_wait_until returns the satisfying value");
    expect_pat(sd, SN, left, 7, "data of shmem_putmem_signal(SET) once the signal is seen");
    OK_EQ(shmem_signal_fetch(&sig[0]), left + 1, "shmem_signal_fetch after SET");

    /* ADD from every PE (PE 0 included) into PE 0's signal. */
    long ls[K];
    for (int i = 0; i < K; i++)
        ls[i] = me * 1000L + i;
    shmem_long_put_signal(&ad[me * K], ls, K, &sig[1], (uint64_t)me + 1, SHMEM_SIGNAL_ADD, 0);
    if (me == 0) {
        uint64_t total = (uint64_t)npes * (npes + 1) / 2;
        got = shmem_signal_wait_until(&sig[1], SHMEM_CMP_GE, total);
        OK_EQ(got, total, "signal after ADD from every PE");
        for (int k = 0; k < npes; k++)
            for (int i = 0; i < K; i++)
                OK_EQ(ad[k * K + i], k * 1000L + i, "data of shmem_long_put_signal(ADD)");
        OK_EQ(shmem_signal_fetch(&sig[1]), total, "shmem_signal_fetch after ADD");
    }

    /* nbi form, and the generic one */
    int is[K];
    for (int i = 0; i < K; i++)
        is[i] = -me * 100 - i;
    shmem_int_put_signal_nbi(id, is, K, &sig[2], 0xabc0 + (uint64_t)me, SHMEM_SIGNAL_SET, right);
    shmem_quiet();
    got = shmem_signal_wait_until(&sig[2], SHMEM_CMP_NE, 0);
    OK_EQ(got, 0xabc0 + (uint64_t)left, "shmem_int_put_signal_nbi signal");
    for (int i = 0; i < K; i++)
        OK_EQ(id[i], -left * 100 - i, "shmem_int_put_signal_nbi data");
    shmem_barrier_all();
    shmem_put_signal(id, is, K, &sig[3], 5, SHMEM_SIGNAL_ADD, right);
    shmem_putmem_signal_nbi(sd, src, 1000, &sig[3], 6, SHMEM_SIGNAL_ADD, right);
    got = shmem_signal_wait_until(&sig[3], SHMEM_CMP_EQ, 11);
    OK_EQ(got, 11, "two ADDs");
    expect_pat(sd, 1000, left, 7, "shmem_putmem_signal_nbi data");
    shmem_quiet();
    shmem_barrier_all();
    shmem_free(id);
    shmem_free(ad);
    shmem_free(sd);
    shmem_free(sig);
}

/* ---- atomics ------------------------------------------------------------------------ */

/* Each PE operates on its right neighbour's x alone (exactly one PE does),
 * then the owner checks the final value with a plain load. */
#define AMO_TEST(NAME, T)                                                                 \
    static void amo_##NAME(void)                                                          \
    {                                                                                     \
        T *x = shmem_calloc(1, sizeof(T));                                                \
        OK(x != NULL, "allocation");                                                      \
        shmem_##NAME##_atomic_set(x, (T)10, right);                                       \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)10, #NAME " set/fetch");           \
        OK(shmem_##NAME##_atomic_swap(x, (T)20, right) == (T)10, #NAME " swap");          \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)20, #NAME " after swap");          \
        OK(shmem_##NAME##_atomic_compare_swap(x, (T)99, (T)30, right) == (T)20,           \
           #NAME " failing compare_swap");                                                \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)20, #NAME " unchanged");           \
        OK(shmem_##NAME##_atomic_compare_swap(x, (T)20, (T)30, right) == (T)20,           \
           #NAME " compare_swap");                                                        \
        shmem_##NAME##_atomic_add(x, (T)5, right);                                        \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)35, #NAME " add");                 \
        OK(shmem_##NAME##_atomic_fetch_add(x, (T)7, right) == (T)35, #NAME " fetch_add"); \
        shmem_##NAME##_atomic_inc(x, right);                                              \
        OK(shmem_##NAME##_atomic_fetch_inc(x, right) == (T)43, #NAME " inc/fetch_inc");   \
        T f = 0;                                                                          \
        shmem_##NAME##_atomic_fetch_add_nbi(&f, x, (T)6, right);                          \
        shmem_quiet();                                                                    \
        OK(f == (T)44, #NAME " fetch_add_nbi fetched %g", (double)f);                     \
        OK(shmem_##NAME##_g(x, right) == (T)50, #NAME " final value via g");              \
        shmem_barrier_all();                                                              \
        OK(*x == (T)50, #NAME ": owner sees %g, expected 50", (double)*x);                \
        shmem_free(x);                                                                    \
    }

#define AMO_BIT_TEST(NAME, T)                                                             \
    static void amo_bit_##NAME(void)                                                      \
    {                                                                                     \
        T *x = shmem_calloc(1, sizeof(T));                                                \
        OK(x != NULL, "allocation");                                                      \
        shmem_##NAME##_atomic_set(x, (T)0xF0F0, right);                                   \
        shmem_##NAME##_atomic_and(x, (T)0xFF00, right);                                   \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)0xF000, #NAME " and");             \
        OK(shmem_##NAME##_atomic_fetch_and(x, (T)0x3000, right) == (T)0xF000,             \
           #NAME " fetch_and");                                                           \
        shmem_##NAME##_atomic_or(x, (T)0x000F, right);                                    \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)0x300F, #NAME " and+or");          \
        OK(shmem_##NAME##_atomic_fetch_or(x, (T)0x0100, right) == (T)0x300F,              \
           #NAME " fetch_or");                                                            \
        shmem_##NAME##_atomic_xor(x, (T)0x0011, right);                                   \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)0x311E, #NAME " xor");             \
        OK(shmem_##NAME##_atomic_fetch_xor(x, (T)0xFFFF, right) == (T)0x311E,             \
           #NAME " fetch_xor");                                                           \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)0xCEE1, #NAME " after fetch_xor"); \
        /* the top bit of the type (shifted unsigned: no UB) */                           \
        T top = (T)((uint64_t)1 << (sizeof(T) * 8 - 1));                                  \
        shmem_##NAME##_atomic_or(x, top, right);                                          \
        OK(shmem_##NAME##_atomic_fetch_xor(x, (T)1, right) == (T)(top | (T)0xCEE1),       \
           #NAME " top bit");                                                             \
        T f = 0;                                                                          \
        shmem_##NAME##_atomic_fetch_and_nbi(&f, x, (T)~top, right);                       \
        shmem_quiet();                                                                    \
        OK(f == (T)(top | (T)0xCEE0), #NAME " fetch_and_nbi");                            \
        shmem_barrier_all();                                                              \
        OK(*x == (T)0xCEE0, #NAME ": owner sees %#llx, expected 0xcee0",                  \
           (unsigned long long)*x);                                                       \
        shmem_free(x);                                                                    \
    }

#define AMO_EXT_TEST(NAME, T)                                                             \
    static void amo_ext_##NAME(void)                                                      \
    {                                                                                     \
        T *x = shmem_calloc(1, sizeof(T));                                                \
        OK(x != NULL, "allocation");                                                      \
        shmem_##NAME##_atomic_set(x, (T)1.5, right);                                      \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)1.5, #NAME " set/fetch");          \
        OK(shmem_##NAME##_atomic_swap(x, (T)-2.25, right) == (T)1.5, #NAME " swap");      \
        OK(shmem_##NAME##_atomic_fetch(x, right) == (T)-2.25, #NAME " after swap");       \
        T f = 0;                                                                          \
        shmem_##NAME##_atomic_swap_nbi(&f, x, (T)(me + 0.5), right);                      \
        shmem_quiet();                                                                    \
        OK(f == (T)-2.25, #NAME " swap_nbi fetched %g", (double)f);                       \
        shmem_barrier_all();                                                              \
        OK(*x == (T)(left + 0.5), #NAME ": owner sees %g", (double)*x);                   \
        shmem_free(x);                                                                    \
    }

AMO_TEST(int, int)
AMO_TEST(long, long)
AMO_TEST(uint64, uint64_t)
AMO_TEST(int32, int32_t)
AMO_TEST(uint32, uint32_t)
AMO_TEST(size, size_t)
AMO_TEST(ptrdiff, ptrdiff_t)
AMO_BIT_TEST(uint64, uint64_t)
AMO_BIT_TEST(int32, int32_t)
AMO_BIT_TEST(uint32, uint32_t)
AMO_BIT_TEST(int64, int64_t)
AMO_BIT_TEST(ulong, unsigned long)
AMO_EXT_TEST(float, float)
AMO_EXT_TEST(double, double)

static void check_amo_generic(void)
{
    long *l = shmem_calloc(1, sizeof(long));
    double *x = shmem_calloc(1, sizeof(double));
    uint64_t *u = shmem_calloc(1, sizeof(uint64_t));
    OK(l && x && u, "allocations");
    shmem_atomic_set(l, 100L, right);
    OK_EQ(shmem_atomic_fetch_add(l, 5L, right), 100, "generic fetch_add");
    shmem_atomic_add(l, 1L, right);
    shmem_atomic_inc(l, right);
    OK_EQ(shmem_atomic_fetch_inc(l, right), 107, "generic fetch_inc");
    OK_EQ(shmem_atomic_compare_swap(l, 108L, 1L, right), 108, "generic compare_swap");
    OK_EQ(shmem_atomic_swap(l, 2L, right), 1, "generic swap");
    OK_EQ(shmem_atomic_fetch(l, right), 2, "generic fetch");
    shmem_atomic_set(x, 3.75, right);
    OK(shmem_atomic_swap(x, 4.5, right) == 3.75, "generic swap (double)");
    OK(shmem_atomic_fetch(x, right) == 4.5, "generic fetch (double)");
    shmem_atomic_set(u, (uint64_t)0xff, right);
    shmem_atomic_and(u, (uint64_t)0x0f, right);
    shmem_atomic_or(u, (uint64_t)0x100, right);
    shmem_atomic_xor(u, (uint64_t)0x1, right);
    OK_EQ(shmem_atomic_fetch_xor(u, (uint64_t)0, right), 0x10e, "generic and/or/xor");
    OK_EQ(shmem_atomic_fetch_or(u, (uint64_t)1, right), 0x10e, "generic fetch_or");
    OK_EQ(shmem_atomic_fetch_and(u, (uint64_t)0xf, right), 0x10f, "generic fetch_and");
    shmem_barrier_all();
    OK_EQ(*l, 2, "owner's long");
    OK(*x == 4.5, "owner's double");
    OK_EQ(*u, 0xf, "owner's uint64");
    shmem_free(u);
    shmem_free(x);
    shmem_free(l);
}

/* Every PE adds N times to counters on PE 0: the totals are exact, and the
 * values fetched form exactly the permutation 0..npes*N-1. */
static void check_contention(void)
{
    enum { N = 1000 };
    long *ctr = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
    int32_t *ictr = shmem_calloc(1, sizeof(int32_t));
    uint64_t *dctr = shmem_malloc_with_hints(sizeof(uint64_t), SHMEM_MALLOC_DEVICE_HEAP);
    long *fetched = shmem_calloc((size_t)npes * N, sizeof(long));
    OK(ctr && ictr && dctr && fetched, "allocations");
    *ctr = 0;
    shmem_uint64_atomic_set(dctr, 0, me); /* RMA: keeps it on the device */
    shmem_barrier_all();
    static long mine[N];
    for (int i = 0; i < N; i++) {
        mine[i] = shmem_long_atomic_fetch_add(ctr, 1, 0);
        shmem_int32_atomic_inc(ictr, 0);
        if (i % 2 == 0)
            shmem_uint64_atomic_add(dctr, 3, 0);
    }
    for (int i = 1; i < N; i++)
        OK(mine[i] > mine[i - 1], "fetch_add results increase on one PE: [%d] %ld after %ld",
           i, mine[i], mine[i - 1]);
    shmem_long_put(&fetched[(size_t)me * N], mine, N, 0);
    shmem_barrier_all();
    long total = (long)npes * N;
    OK_EQ(shmem_long_atomic_fetch(ctr, 0), total, "contended fetch_add total");
    OK_EQ(shmem_int32_atomic_fetch(ictr, 0), total, "contended inc total");
    OK_EQ(shmem_uint64_atomic_fetch(dctr, 0), (uint64_t)npes * (N / 2) * 3,
          "contended add total on a device-heap counter");
    if (me == 0) {
        OK_EQ(*ctr, total, "PE 0's own load of the counter");
        static unsigned char hit[1 << 16];
        CHECK((size_t)total <= sizeof hit, "too many PEs");
        memset(hit, 0, sizeof hit);
        for (long i = 0; i < total; i++) {
            long v = fetched[i];
            OK(v >= 0 && v < total && !hit[v], "fetched value %ld (entry %ld) is out of range "
               "or repeated", v, i);
            hit[v] = 1;
        }
        /* (No residence check here: atomics meet on the CPU, so an atomic
         * on a device-resident block brings it back by design.) */
    }
    shmem_barrier_all();
    shmem_free(fetched);
    shmem_free(dctr);
    shmem_free(ictr);
    shmem_free(ctr);
}

/* ---- ordering and point-to-point synchronisation ------------------------------------ */

static void check_ordering(void)
{
    enum { FN = 256 * 1024 };
    int *flag = shmem_calloc(8, sizeof(int));
    long *lflag = shmem_calloc(2, sizeof(long));
    unsigned char *fd = shmem_malloc(FN);
    long *table = shmem_calloc((size_t)npes, sizeof(long));
    OK(flag && lflag && fd && table, "allocations");
    static unsigned char src[FN];

    /* fence: the data is there before the flag that follows it. */
    fill_pat(src, FN, me, 8);
    shmem_putmem(fd, src, FN, right);
    shmem_fence();
    shmem_int_p(&flag[0], 1, right);
    shmem_int_wait_until(&flag[0], SHMEM_CMP_EQ, 1);
    expect_pat(fd, FN, left, 8, "data put before shmem_fence and a flag");
    shmem_barrier_all();

    /* quiet: non-blocking data completed before the flag. */
    fill_pat(src, FN, me, 9);
    shmem_putmem_nbi(fd, src, FN, right);
    shmem_quiet();
    shmem_int_atomic_set(&flag[1], 7, right);
    shmem_wait_until(&flag[1], SHMEM_CMP_GT, 5); /* generic */
    OK_EQ(flag[1], 7, "flag after generic wait_until GT");
    expect_pat(fd, FN, left, 9, "data put with _nbi before shmem_quiet and a flag");

    /* test: false before anyone sets the flag, true after. */
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_NE, 0), 0, "shmem_int_test before the put");
    OK_EQ(shmem_test(&flag[2], SHMEM_CMP_EQ, 0), 1, "generic shmem_test before the put");
    shmem_barrier_all();
    shmem_int_p(&flag[2], 3, right);
    unsigned long polls = 0;
    while (!shmem_test(&flag[2], SHMEM_CMP_GE, 3))
        polls++;
    OK_EQ(flag[2], 3, "flag after shmem_test succeeded");
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_LE, 3), 1, "shmem_int_test LE");
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_LT, 3), 0, "shmem_int_test LT");
    OK_EQ(shmem_int_test(&flag[2], SHMEM_CMP_GT, 3), 0, "shmem_int_test GT");

    /* wait_until LT / LE / NE / GE on long, typed and generic. */
    lflag[0] = 100;
    lflag[1] = -5;
    shmem_barrier_all();
    shmem_long_atomic_set(&lflag[0], 2, right);
    shmem_long_wait_until(&lflag[0], SHMEM_CMP_LT, 5);
    OK_EQ(lflag[0], 2, "shmem_long_wait_until LT");
    shmem_long_wait_until(&lflag[0], SHMEM_CMP_LE, 2);
    shmem_long_p(&lflag[1], 9, right);
    shmem_wait_until(&lflag[1], SHMEM_CMP_NE, -5L);
    OK_EQ(lflag[1], 9, "generic wait_until NE");
    shmem_long_wait_until(&lflag[1], SHMEM_CMP_GE, 9);
    OK_EQ(shmem_long_test(&lflag[1], SHMEM_CMP_EQ, 9), 1, "shmem_long_test EQ");

    /* barrier_all: every PE's put to every PE is complete after it. */
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        shmem_long_p(&table[me], 1000L * me + k, k);
    shmem_barrier_all();
    for (int k = 0; k < npes; k++)
        OK_EQ(table[k], 1000L * k + me, "shmem_barrier_all completes puts");

    shmem_barrier_all(); /* everyone has checked before the table is rewritten */
    /* sync_all: after quiet, the other PEs' updates are visible. */
    for (int k = 0; k < npes; k++)
        shmem_long_p(&table[me], -1000L * me - k, k);
    shmem_quiet();
    shmem_sync_all();
    for (int k = 0; k < npes; k++)
        OK_EQ(table[k], -1000L * k - me, "shmem_quiet + shmem_sync_all");
    OK_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0, "shmem_team_sync(WORLD)");
    static long psync[SHMEM_BARRIER_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier(0, 0, npes, psync);

    shmem_free(table);
    shmem_free(fd);
    shmem_free(lflag);
    shmem_free(flag);
}

/* ---- collectives ------------------------------------------------------------------- */

static void check_collectives(void)
{
    enum { B = 8, F = 4, R = 5, A = 3 };
    size_t ctotal = (size_t)npes * (npes + 1) / 2;
    long *bsrc = shmem_malloc(B * sizeof(long));
    long *bdst = shmem_malloc(B * sizeof(long));
    long *csrc = shmem_malloc((size_t)npes * sizeof(long));
    long *cdst = shmem_malloc(ctotal * sizeof(long));
    int *fsrc = shmem_malloc(F * sizeof(int));
    int *fdst = shmem_malloc((size_t)npes * F * sizeof(int));
    long *asrc = shmem_malloc((size_t)npes * A * sizeof(long));
    long *adst = shmem_malloc((size_t)npes * A * sizeof(long));
    int *iasrc = shmem_malloc((size_t)npes * sizeof(int));
    int *iadst = shmem_malloc((size_t)npes * sizeof(int));
    OK(bsrc && bdst && csrc && cdst && fsrc && fdst && asrc && adst && iasrc && iadst,
       "allocations");

    /* broadcast from the first and the last PE (the root's dest too). */
    int roots[2] = {0, npes - 1};
    for (int r = 0; r < 2; r++) {
        int root = roots[r];
        for (int i = 0; i < B; i++) {
            bsrc[i] = 100L * me + i;
            bdst[i] = -1;
        }
        shmem_barrier_all();
        OK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, B, root), 0,
              "shmem_long_broadcast returns 0");
        for (int i = 0; i < B; i++)
            OK_EQ(bdst[i], 100L * root + i, "shmem_long_broadcast");
    }
    memset(bdst, 0, B * sizeof(long));
    shmem_barrier_all();
    OK_EQ(shmem_broadcastmem(SHMEM_TEAM_WORLD, bdst, bsrc, 3 * sizeof(long), npes - 1), 0,
          "shmem_broadcastmem");
    for (int i = 0; i < 3; i++)
        OK_EQ(bdst[i], 100L * (npes - 1) + i, "shmem_broadcastmem data");
    OK_EQ(bdst[3], 0, "shmem_broadcastmem wrote only nelems bytes");
    OK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, B, 0), 0, "generic shmem_broadcast");
    for (int i = 0; i < B; i++)
        OK_EQ(bdst[i], (long)i, "generic shmem_broadcast data");

    /* classic broadcast64 on the world active set: the root's dest stays. */
    static long psync[SHMEM_BCAST_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < B; i++) {
        bsrc[i] = 0x1000L * (me + 1) + i;
        bdst[i] = -7;
    }
    shmem_barrier_all();
    int croot = npes > 2 ? 1 : 0;
    shmem_broadcast64(bdst, bsrc, 4, croot, 0, 0, npes, psync);
    for (int i = 0; i < B; i++) {
        long want = (me != croot && i < 4) ? 0x1000L * (croot + 1) + i : -7;
        OK_EQ(bdst[i], want, "shmem_broadcast64 (classic)");
    }
    shmem_barrier_all();

    /* collect: PE k contributes k + 1 elements, concatenated in PE order. */
    for (int i = 0; i <= me; i++)
        csrc[i] = 1000L * me + i;
    for (size_t i = 0; i < ctotal; i++)
        cdst[i] = -1;
    shmem_barrier_all();
    OK_EQ(shmem_long_collect(SHMEM_TEAM_WORLD, cdst, csrc, (size_t)me + 1), 0,
          "shmem_long_collect");
    size_t at = 0;
    for (int k = 0; k < npes; k++)
        for (int i = 0; i <= k; i++)
            OK_EQ(cdst[at++], 1000L * k + i, "shmem_long_collect data");
    /* collect where some PEs give nothing */
    for (size_t i = 0; i < ctotal; i++)
        cdst[i] = -1;
    shmem_barrier_all();
    OK_EQ(shmem_collect(SHMEM_TEAM_WORLD, cdst, csrc, (size_t)(me % 2)), 0,
          "generic shmem_collect");
    at = 0;
    for (int k = 0; k < npes; k++)
        if (k % 2)
            OK_EQ(cdst[at++], 1000L * k, "shmem_collect with empty contributions");
    OK_EQ(cdst[at], -1, "shmem_collect wrote past its total");

    /* fcollect */
    for (int i = 0; i < F; i++)
        fsrc[i] = 10 * me + i;
    shmem_barrier_all();
    OK_EQ(shmem_int_fcollect(SHMEM_TEAM_WORLD, fdst, fsrc, F), 0, "shmem_int_fcollect");
    for (int k = 0; k < npes; k++)
        for (int i = 0; i < F; i++)
            OK_EQ(fdst[k * F + i], 10 * k + i, "shmem_int_fcollect data");
    memset(fdst, 0, (size_t)npes * F * sizeof(int));
    shmem_barrier_all();
    OK_EQ(shmem_fcollectmem(SHMEM_TEAM_WORLD, fdst, fsrc, sizeof(int)), 0, "fcollectmem");
    for (int k = 0; k < npes; k++)
        OK_EQ(fdst[k], 10 * k, "shmem_fcollectmem data");

    /* alltoall: block j of PE k's source lands as block k of PE j's dest. */
    for (int j = 0; j < npes; j++)
        for (int i = 0; i < A; i++)
            asrc[j * A + i] = 10000L * me + 100L * j + i;
    for (int j = 0; j < npes; j++)
        iasrc[j] = me * 64 + j;
    shmem_barrier_all();
    OK_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, adst, asrc, A), 0, "shmem_long_alltoall");
    for (int k = 0; k < npes; k++)
        for (int i = 0; i < A; i++)
            OK_EQ(adst[k * A + i], 10000L * k + 100L * me + i, "shmem_long_alltoall data");
    OK_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, iadst, iasrc, 1), 0, "generic shmem_alltoall");
    for (int k = 0; k < npes; k++)
        OK_EQ(iadst[k], k * 64 + me, "generic shmem_alltoall data");

    /* reductions */
    int *is = shmem_malloc(R * sizeof(int)), *id = shmem_malloc(R * sizeof(int));
    long *ls = shmem_malloc(R * sizeof(long)), *ld = shmem_malloc(R * sizeof(long));
    double *ds = shmem_malloc(R * sizeof(double)), *dd = shmem_malloc(R * sizeof(double));
    int32_t *bs = shmem_malloc(R * sizeof(int32_t)), *bd = shmem_malloc(R * sizeof(int32_t));
    uint64_t *us = shmem_malloc(R * sizeof(uint64_t)), *ud = shmem_malloc(R * sizeof(uint64_t));
    OK(is && id && ls && ld && ds && dd && bs && bd && us && ud, "reduction allocations");
    /* the values each PE k gives for element i */
#define RV(k, i) ((((k) * 7 + (i) * 3) % 11) - 4)
#define PV(k, i) (((k) + (i)) % 3 + 1)
    long wsum[R], wmin[R], wmax[R], wprod[R];
    double dsum[R], dmin[R], dmax[R], dprod[R];
    for (int i = 0; i < R; i++) {
        wsum[i] = 0;
        wprod[i] = 1;
        wmin[i] = wmax[i] = RV(0, i);
        dsum[i] = 0;
        dprod[i] = 1;
        dmin[i] = dmax[i] = RV(0, i) + 0.5;
        for (int k = 0; k < npes; k++) {
            wsum[i] += RV(k, i);
            wprod[i] *= PV(k, i);
            if (RV(k, i) < wmin[i])
                wmin[i] = RV(k, i);
            if (RV(k, i) > wmax[i])
                wmax[i] = RV(k, i);
            dsum[i] += RV(k, i) + 0.5;
            dprod[i] *= PV(k, i) * 0.5;
            if (RV(k, i) + 0.5 < dmin[i])
                dmin[i] = RV(k, i) + 0.5;
            if (RV(k, i) + 0.5 > dmax[i])
                dmax[i] = RV(k, i) + 0.5;
        }
    }
#define SETV(expr)                                                                        \
    for (int i = 0; i < R; i++) {                                                         \
        is[i] = (int)(expr);                                                              \
        ls[i] = (long)(expr);                                                             \
        ds[i] = (double)(expr) + 0.5;                                                     \
    }                                                                                     \
    shmem_barrier_all()
    SETV(RV(me, i));
    OK_EQ(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int sum");
    OK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "long sum");
    OK_EQ(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "double sum");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wsum[i], "shmem_int_sum_reduce");
        OK_EQ(ld[i], wsum[i], "shmem_long_sum_reduce");
        OK(dd[i] == dsum[i], "shmem_double_sum_reduce [%d]: %g, expected %g", i, dd[i], dsum[i]);
    }
    OK_EQ(shmem_int_min_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int min");
    OK_EQ(shmem_long_min_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "long min");
    OK_EQ(shmem_double_min_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "double min");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wmin[i], "shmem_int_min_reduce");
        OK_EQ(ld[i], wmin[i], "shmem_long_min_reduce");
        OK(dd[i] == dmin[i], "shmem_double_min_reduce [%d]: %g, expected %g", i, dd[i], dmin[i]);
    }
    OK_EQ(shmem_int_max_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int max");
    OK_EQ(shmem_long_max_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "long max");
    OK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "generic double max");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wmax[i], "shmem_int_max_reduce");
        OK_EQ(ld[i], wmax[i], "shmem_long_max_reduce");
        OK(dd[i] == dmax[i], "shmem_max_reduce(double) [%d]: %g, expected %g", i, dd[i], dmax[i]);
    }
    for (int i = 0; i < R; i++) {
        is[i] = PV(me, i);
        ls[i] = PV(me, i);
        ds[i] = PV(me, i) * 0.5;
    }
    shmem_barrier_all();
    OK_EQ(shmem_int_prod_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int prod");
    OK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "generic long prod");
    OK_EQ(shmem_double_prod_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "double prod");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wprod[i], "shmem_int_prod_reduce");
        OK_EQ(ld[i], wprod[i], "shmem_prod_reduce(long)");
        OK(dd[i] == dprod[i], "shmem_double_prod_reduce [%d]: %g, expected %g", i, dd[i],
           dprod[i]);
    }
    /* bitwise: bit k set by PE k, bit 20 by all, bit 21 by PE 0 only */
    int32_t band = -1, bor = 0, bxor = 0;
    uint64_t uand = ~0ull, uor = 0, uxor = 0;
    for (int k = 0; k < npes; k++) {
        int32_t v = (int32_t)((1u << (k % 20)) | (1u << 20) | (k == 0 ? 1u << 21 : 0));
        uint64_t u = (1ull << (k % 60)) | (1ull << 63) | ((uint64_t)k << 32);
        band &= v;
        bor |= v;
        bxor ^= v;
        uand &= u;
        uor |= u;
        uxor ^= u;
    }
    for (int i = 0; i < R; i++) {
        bs[i] = (int32_t)((1u << (me % 20)) | (1u << 20) | (me == 0 ? 1u << 21 : 0));
        us[i] = (1ull << (me % 60)) | (1ull << 63) | ((uint64_t)me << 32);
    }
    shmem_barrier_all();
    OK_EQ(shmem_int32_and_reduce(SHMEM_TEAM_WORLD, bd, bs, R), 0, "int32 and");
    for (int i = 0; i < R; i++)
        OK_EQ(bd[i], band, "shmem_int32_and_reduce");
    OK_EQ(shmem_int32_or_reduce(SHMEM_TEAM_WORLD, bd, bs, R), 0, "int32 or");
    for (int i = 0; i < R; i++)
        OK_EQ(bd[i], bor, "shmem_int32_or_reduce");
    OK_EQ(shmem_int32_xor_reduce(SHMEM_TEAM_WORLD, bd, bs, R), 0, "int32 xor");
    for (int i = 0; i < R; i++)
        OK_EQ(bd[i], bxor, "shmem_int32_xor_reduce");
    OK_EQ(shmem_uint64_and_reduce(SHMEM_TEAM_WORLD, ud, us, R), 0, "uint64 and");
    for (int i = 0; i < R; i++)
        OK(ud[i] == uand, "shmem_uint64_and_reduce: %#llx, expected %#llx",
           (unsigned long long)ud[i], (unsigned long long)uand);
    OK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, ud, us, R), 0, "generic uint64 or");
    for (int i = 0; i < R; i++)
        OK(ud[i] == uor, "shmem_or_reduce(uint64): %#llx, expected %#llx",
           (unsigned long long)ud[i], (unsigned long long)uor);
    OK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, ud, us, R), 0, "generic uint64 xor");
    for (int i = 0; i < R; i++)
        OK(ud[i] == uxor, "shmem_xor_reduce(uint64): %#llx, expected %#llx",
           (unsigned long long)ud[i], (unsigned long long)uxor);
    /* in place */
    for (int i = 0; i < R; i++)
        ls[i] = RV(me, i);
    shmem_barrier_all();
    OK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ls, ls, R), 0, "in-place long sum");
    for (int i = 0; i < R; i++)
        OK_EQ(ls[i], wsum[i], "in-place shmem_long_sum_reduce");
    /* the classic form */
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + R], rsync[SHMEM_REDUCE_SYNC_SIZE];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        rsync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < R; i++)
        ls[i] = RV(me, i);
    shmem_barrier_all();
    shmem_long_sum_to_all(ld, ls, R, 0, 0, npes, pwrk, rsync);
    for (int i = 0; i < R; i++)
        OK_EQ(ld[i], wsum[i], "shmem_long_sum_to_all (classic)");
#undef SETV
#undef RV
#undef PV
    shmem_free(ud);
    shmem_free(us);
    shmem_free(bd);
    shmem_free(bs);
    shmem_free(dd);
    shmem_free(ds);
    shmem_free(ld);
    shmem_free(ls);
    shmem_free(id);
    shmem_free(is);
    shmem_free(iadst);
    shmem_free(iasrc);
    shmem_free(adst);
    shmem_free(asrc);
    shmem_free(fdst);
    shmem_free(fsrc);
    shmem_free(cdst);
    shmem_free(csrc);
    shmem_free(bdst);
    shmem_free(bsrc);
}

/* ---- addressing -------------------------------------------------------------------- */

static void check_addressing(void)
{
    const char *tr = getenv("UVAS_TRANSPORT");
    int ucx_only = tr && strcmp(tr, "ucx") == 0;
    long *h = shmem_malloc_with_hints(4096, SHMEM_MALLOC_HOST_HEAP);
    long *cold = shmem_malloc_with_hints((size_t)2 << 20, SHMEM_MALLOC_HOST_HEAP);
    OK(h && cold, "allocations");
    long stack_var = 5;

    OK_EQ(shmem_addr_accessible(h, right), 1, "shmem_addr_accessible(symmetric, right)");
    OK_EQ(shmem_addr_accessible(h + 100, me), 1, "shmem_addr_accessible(symmetric, me)");
    OK_EQ(shmem_addr_accessible(&stack_var, right), 0, "shmem_addr_accessible(stack)");
    OK_EQ(shmem_addr_accessible(&stack_var, me), 0, "shmem_addr_accessible(stack, me)");
    OK_EQ(shmem_addr_accessible(h, npes), 0, "shmem_addr_accessible(PE n_pes)");
    OK((long *)shmem_ptr(h, me) == h, "shmem_ptr(x, my_pe) is x");

    /* The owner touches it; the neighbour stores through shmem_ptr. */
    for (int i = 0; i < 512; i++)
        h[i] = -1;
    h[0] = me;
    shmem_barrier_all();
    long *rp = shmem_ptr(h, right);
    long *rc = shmem_ptr(cold, right);
    if (!ucx_only) {
        OK(rp != NULL, "shmem_ptr to a local peer's host-heap object is NULL");
        OK(rc != NULL, "shmem_ptr to a local peer's untouched host-heap object is NULL");
    }
    if (rp) {
        OK_EQ(rp[0], right, "a load through shmem_ptr reads the peer's value");
        rp[1] = 5000 + me;
    }
    if (rc)
        rc[1000] = 7000 + me; /* never touched by its owner before */
    shmem_barrier_all();
    if (rp)
        OK_EQ(h[1], 5000 + left, "a store through the left neighbour's shmem_ptr");
    if (rc)
        OK_EQ(cold[1000], 7000 + left, "a store through shmem_ptr into an untouched object");
    if (rp) {
        OK_EQ(shmem_team_ptr(SHMEM_TEAM_WORLD, h, right) == (void *)rp, 1,
              "shmem_team_ptr(WORLD) equals shmem_ptr");
    }
    shmem_barrier_all();
    shmem_free(cold);
    shmem_free(h);
}

int main(void)
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
    if (npes < 2) {
        shmem_finalize();
        SKIP("needs at least 2 PEs: run under mpirun -np 2");
    }
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    dev_present = shmemx_device_present();
    CHECK(dev_present == 0 || dev_present == 1, "shmemx_device_present: %d", dev_present);
    int defheap = shmemx_default_heap();
    const char *hv = getenv("SHMEM_SYMMETRIC_HEAP_DEFAULT");
    int want_heap = !hv || !*hv ? SHMEMX_HEAP_UNIFIED :
                    !strcasecmp(hv, "host") ? SHMEMX_HEAP_HOST : SHMEMX_HEAP_DEVICE;
    CHECK_EQ(defheap, want_heap, "shmemx_default_heap");

    check_identity();
    check_memory();
    check_bulk_rma();
    rma_int();
    rma_long();
    rma_double();
    rma_int64();
    rma_uint32();
    rma_char();
    rma_float();
    rma_size();
    check_generic_rma();
    check_signal();
    amo_int();
    amo_long();
    amo_uint64();
    amo_int32();
    amo_uint32();
    amo_size();
    amo_ptrdiff();
    amo_bit_uint64();
    amo_bit_int32();
    amo_bit_uint32();
    amo_bit_int64();
    amo_bit_ulong();
    amo_ext_float();
    amo_ext_double();
    check_amo_generic();
    check_contention();
    check_ordering();
    check_collectives();
    check_addressing();

    shmem_barrier_all();
    shmem_finalize();
    if (me == 0)
        printf("test-shmem-api: %d PEs, %lu checks on PE 0 passed (thread level %d, device %s, "
               "default heap %d, transport %s)\n", npes, nchecks, q, dev_present ? "yes" : "no",
               defheap, getenv("UVAS_TRANSPORT") ? getenv("UVAS_TRANSPORT") : "default");
    return 0;
}
