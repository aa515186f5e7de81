/*
 * Every RMA path of the dispatch, taken and verified: each PE puts to and
 * gets from its right neighbour with the target (and the local source)
 * host-resident, device-resident and untouched, and checks that the
 * per-path counters moved, the data arrived intact and nothing migrated
 * because of a peer's access. Run under mpirun with 2 or 4 PEs; with
 * UVAS_TRANSPORT=ucx every remote operation must go through UCX instead.
 */
#include <stdbool.h>

#include "tests/check.h"
#include "transport/pe/pe.h"
#include "uvas/inject.h"

#define BLK ((size_t)2 << 20)

static struct uvas_pe_stats before;

static void mark(void)
{
    CHECK_OK(uvas_pe_stats_get(&before));
}

/* The path counter moved by at least one op since mark(). */
static void expect_path(int path, const char *what)
{
    struct uvas_pe_stats now;
    CHECK_OK(uvas_pe_stats_get(&now));
    CHECK(now.ops[path] > before.ops[path], "%s: expected the %s path (ops %llu -> %llu)",
          what, uvas_pe_path_name(path), (unsigned long long)before.ops[path],
          (unsigned long long)now.ops[path]);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + 1u) | 1u;
}

static void expect_data(const unsigned char *p, size_t n, unsigned seed, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char want = (unsigned char)(seed * 131u + i * 7u + 1u) | 1u;
        if (p[i] != want)
            FAIL("%s: byte %zu is %#x, expected %#x", what, i, p[i], want);
    }
}

int main(void)
{
    int provided;
    if (getenv("UVAS_TEST_SINGLE"))
        SKIP("single-PE run requested");
    CHECK_OK(uvas_pe_init(UVAS_PE_THREAD_MULTIPLE, &provided));
    int me = uvas_pe_me(), n = uvas_pe_count();
    if (n < 2) {
        uvas_pe_finalize();
        SKIP("needs at least 2 PEs: run under mpirun -np 2");
    }
    const char *tr = getenv("UVAS_TRANSPORT");
    bool ucx_only = tr && !strcmp(tr, "ucx");
    struct uvas_range_desc rd;
    CHECK_OK(uvas_range(&rd));
    bool dev = rd.device_present;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* Symmetric objects, the same sequence on every PE. */
    unsigned char *host = uvas_malloc_hint(2 * BLK, UVAS_HINT_HOST);
    unsigned char *gpu = uvas_malloc_hint(2 * BLK, UVAS_HINT_DEVICE);
    unsigned char *cold = uvas_malloc(BLK);  /* never touched by its owner */
    unsigned char *cold2 = uvas_malloc(BLK);
    uint64_t *ctr = uvas_malloc_hint(64, UVAS_HINT_HOST);
    CHECK(host && gpu && cold && cold2 && ctr, "allocation");
    memset(host, 0, 2 * BLK);
    memset(ctr, 0, 64);
    if (dev)
        CHECK_OK(uvas_migrate(gpu, 2 * BLK, UVAS_LOC_DEVICE, 0));
    CHECK_OK(uvas_pe_barrier_all());

    static unsigned char src[BLK], back[BLK];
    size_t big = 256 * 1024, small = 512;

    /* CPU -> CPU: stack source, host target, across a block boundary. */
    mark();
    fill(src, big, 1);
    CHECK_OK(uvas_pe_put(host + BLK - big / 2, src, big, right, false));
    CHECK_OK(uvas_pe_quiet());
    CHECK_OK(uvas_pe_get(back, host + BLK - big / 2, big, right, false));
    expect_data(back, big, 1, "cpu-cpu put/get");
    expect_path(ucx_only ? UVAS_PATH_UCX_RMA : UVAS_PATH_CPU_CPU, "host target");

    if (dev) {
        /* CPU -> GPU: host source into the peer's device memory. */
        mark();
        fill(src, big, 2);
        CHECK_OK(uvas_pe_put(gpu + 4096, src, big, right, false));
        CHECK_OK(uvas_pe_get(back, gpu + 4096, big, right, false));
        expect_data(back, big, 2, "cpu-gpu put/get");
        expect_path(ucx_only ? UVAS_PATH_AM : UVAS_PATH_CPU_GPU, "device target");
        /* small: through a mapping of the device memory where one exists */
        mark();
        fill(src, small, 3);
        CHECK_OK(uvas_pe_put(gpu + 100, src, small, right, false));
        CHECK_OK(uvas_pe_get(back, gpu + 100, small, right, false));
        expect_data(back, small, 3, "small device put/get");

        /* GPU -> CPU: our device-resident block is the source. */
        fill(src, big, 4);
        CHECK_OK(uvas_pe_put(gpu + BLK, src, big, me, false)); /* into our own device block */
        mark();
        CHECK_OK(uvas_pe_put(host + 8192, gpu + BLK, big, right, false));
        CHECK_OK(uvas_pe_get(back, host + 8192, big, right, false));
        expect_data(back, big, 4, "gpu-cpu put");
        if (!ucx_only)
            expect_path(UVAS_PATH_GPU_CPU, "device source, host target");

        /* GPU -> GPU. */
        mark();
        CHECK_OK(uvas_pe_put(gpu + 2 * 4096 + big, gpu + BLK, big, right, false));
        CHECK_OK(uvas_pe_get(back, gpu + 2 * 4096 + big, big, right, false));
        expect_data(back, big, 4, "gpu-gpu put");
        if (!ucx_only)
            expect_path(UVAS_PATH_GPU_GPU, "device source, device target");
        CHECK_OK(uvas_pe_quiet());
    }

    /* Untouched at the owner: an active message, placed by its policy. */
    mark();
    fill(src, small, 5);
    CHECK_OK(uvas_pe_put(cold + 64, src, small, right, false));
    CHECK_OK(uvas_pe_quiet());
    expect_path(UVAS_PATH_AM, "untouched target");
    CHECK(uvas_pe_residence(cold, right) != UVAS_RES_UNPOPULATED,
          "the owner placed the block it received a put for");
    /* A get of an untouched block reads zeros and leaves it untouched. */
    CHECK_OK(uvas_pe_get(back, cold2, small, right, false));
    for (size_t i = 0; i < small; i++)
        CHECK(back[i] == 0, "untouched memory reads as zero");

    /* Atomics: host target (direct), device target (owner). */
    uint64_t old;
    CHECK_OK(uvas_pe_amo(UVAS_AMO_ADD, &ctr[0], 8, 5, 0, &old, right));
    CHECK_OK(uvas_pe_amo(UVAS_AMO_CSWAP, &ctr[1], 8, 9, 0, &old, right));
    CHECK_EQ(old, 0, "compare-swap old value");
    CHECK_OK(uvas_pe_amo(UVAS_AMO_ADD, (uint32_t *)&ctr[2], 4, 0xffffffffu, 0, NULL, right));
    CHECK_OK(uvas_pe_barrier_all());
    CHECK_EQ(ctr[0], 5, "fetch-add from the left neighbour");
    CHECK_EQ(ctr[1], 9, "compare-swap from the left neighbour");
    CHECK_EQ(*(uint32_t *)&ctr[2], 0xffffffffu, "32-bit add wraps at 32 bits");
    CHECK_EQ(((uint32_t *)&ctr[2])[1], 0, "32-bit add leaves the next word alone");

    /* The data the left neighbour put is here, and our device blocks
     * stayed on the device through the peer's accesses. */
    expect_data(host + BLK - big / 2, big, 1, "received cpu-cpu put");
    if (dev) {
        int r = uvas_pe_residence(gpu, me);
        CHECK_EQ(r, UVAS_RES_DEVICE, "device block still device-resident after peer puts");
        CHECK_OK(uvas_pe_get(back, gpu + 4096, big, me, false));
        expect_data(back, big, 2, "received cpu-gpu put (read on the device side)");
        expect_data(host + 8192, big, 4, "received gpu-cpu put");
    }
    expect_data(cold + 64, small, 5, "received put into an untouched block");
    (void)left;

    /* A put its target refuses (over UCX an active message: the owner's
     * copy into its device memory fails) is the quiet's error, not a
     * success. Every PE's copies fail while armed; the barriers keep the
     * window to these puts. */
    if (dev && ucx_only) {
        CHECK_OK(uvas_pe_barrier_all());
        CHECK_OK(uvas_inject_configure("dma:1+", 1));
        CHECK_OK(uvas_pe_barrier_all());
        fill(src, big, 6);
        int rc = uvas_pe_put(gpu + 4096, src, big, right, false);
        if (rc == UVAS_OK)
            rc = uvas_pe_quiet();
        CHECK(rc != UVAS_OK, "a put whose target's copy failed: the quiet returned success");
        CHECK(strstr(uvas_last_error(), "refused"), "the quiet's error: '%s'",
              uvas_last_error());
        CHECK_OK(uvas_pe_quiet()); /* said once */
        CHECK_OK(uvas_pe_barrier_all());
        CHECK_OK(uvas_inject_configure("", 1));
        CHECK_OK(uvas_pe_barrier_all());
        if (me == 0)
            printf("a refused put: %s\n", "reported by the quiet");
    }

    /* Bad input: a status, not a crash. */
    int stackvar;
    CHECK(uvas_pe_check("test", &stackvar, sizeof stackvar, right) == UVAS_ERR_NOT_OWNED,
          "a non-symmetric address is refused");
    CHECK(uvas_pe_check("test", host, 8, n) == UVAS_ERR_INVAL, "a PE out of range is refused");
    CHECK(uvas_pe_amo(UVAS_AMO_ADD, host + 1, 8, 1, 0, NULL, right) == UVAS_ERR_INVAL,
          "a misaligned atomic is refused");

    CHECK_OK(uvas_pe_finalize());
    if (me == 0)
        printf("pe-paths: %d PEs, device %s, transport %s: ok\n", n, dev ? "yes" : "no",
               ucx_only ? "ucx" : "auto");
    return 0;
}
