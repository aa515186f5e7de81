/*
 * Reductions large enough that the members split the vector (each combines
 * its share from every member's source, the others read it from its dest):
 * every member ends with the bits of the sum taken in member order, on the
 * world, in place, on a strided team (one member, with two PEs), as a
 * classic active set, in pieces larger than the library's scratch, at the
 * sizes around the split, and from and into device-heap memory.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"

/* Sizes around the library's split (64 KiB), and one whose shares are
 * several scratch pieces (512 KiB) and do not divide evenly. */
static const size_t sizes[] = {8191, 8192, 8193, 3 * 65536 + 17};
#define NSIZES (sizeof sizes / sizeof *sizes)
#define NMAX (3 * 65536 + 17)

/* Member p's element i: ones and 1e16s (whose spacing is 2), so that the
 * sum's bits depend on the order of the additions: 1 + 1 + 1e16 is
 * 1e16 + 2, 1e16 + 1 + 1 is 1e16. */
static double dval(int p, size_t i)
{
    return ((size_t)p + i) % 3 == 2 ? 1e16 : 1.0 + (double)(i % 5);
}

static long lval(int p, size_t i)
{
    return (long)((i * 31 + (size_t)p * 1000003) % 65521) - 30000;
}

/* The sum over the members listed (world PEs first..first+(n-1)*stride),
 * in member order, as the library must add them; backwards if asked. */
static double dsum(size_t i, int first, int stride, int n, bool backwards)
{
    double s = 0;
    for (int k = 0; k < n; k++) {
        int m = backwards ? n - 1 - k : k;
        double v = dval(first + m * stride, i);
        s = k ? s + v : v;
    }
    return s;
}

static void check_doubles(const double *got, size_t cnt, int first, int stride, int n,
                          const char *what)
{
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < cnt; i++)
        if (memcmp(&got[i], &(double){dsum(i, first, stride, n, false)}, sizeof(double))) {
            if (!bad++)
                first_bad = i;
        }
    OK(bad == 0, "%s, %zu elements: %zu differ from the member-order sum, the first at %zu "
       "(%.17g, expected %.17g)", what, cnt, bad, first_bad, got[first_bad],
       dsum(first_bad, first, stride, n, false));
}

int main(void)
{
    int level = suite_start();
    double *dsrc = shmem_malloc(NMAX * sizeof(double));
    double *ddst = shmem_malloc(NMAX * sizeof(double));
    long *lbuf = shmem_malloc(NMAX * sizeof(long));
    double *devsrc = shmem_malloc_with_hints(NMAX * sizeof(double), SHMEM_MALLOC_DEVICE_HEAP);
    double *devdst = shmem_malloc_with_hints(NMAX * sizeof(double), SHMEM_MALLOC_DEVICE_HEAP);
    OK(dsrc && ddst && lbuf && devsrc && devdst, "allocations");
    for (size_t i = 0; i < NMAX; i++)
        dsrc[i] = dval(me, i);

    /* The test can tell orders apart: with these values the sum backwards
     * differs from the sum forwards somewhere. */
    if (npes > 2) {
        bool differs = false;
        for (size_t i = 0; i < 1000 && !differs; i++)
            differs = dsum(i, 0, 1, npes, false) != dsum(i, 0, 1, npes, true);
        OK(differs, "the values make the order of additions visible");
    }

    for (size_t s = 0; s < NSIZES; s++) {
        size_t cnt = sizes[s];
        memset(ddst, 0xff, NMAX * sizeof(double));
        shmem_barrier_all();
        OK_EQ(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, cnt), 0,
              "shmem_double_sum_reduce");
        check_doubles(ddst, cnt, 0, 1, npes, "a world double sum");
        for (size_t i = cnt; i < cnt + 8 && i < NMAX; i++)
            OK(ddst[i] != ddst[i], "a reduction of %zu elements wrote element %zu", cnt, i);
    }

    /* In place, long integers. */
    size_t cnt = sizes[NSIZES - 1];
    for (size_t i = 0; i < cnt; i++)
        lbuf[i] = lval(me, i);
    shmem_barrier_all();
    OK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, lbuf, lbuf, cnt), 0, "in-place long sum");
    size_t lbad = 0;
    for (size_t i = 0; i < cnt; i++) {
        long want = 0;
        for (int p = 0; p < npes; p++)
            want += lval(p, i);
        lbad += lbuf[i] != want;
    }
    OK(lbad == 0, "in-place long sum of %zu elements: %zu wrong", cnt, lbad);

    /* Max over doubles, then the even PEs' team (one member with two PEs). */
    shmem_barrier_all();
    OK_EQ(shmem_double_max_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, cnt), 0, "double max");
    size_t mbad = 0;
    for (size_t i = 0; i < cnt; i++) {
        double want = dval(0, i);
        for (int p = 1; p < npes; p++)
            want = dval(p, i) > want ? dval(p, i) : want;
        mbad += ddst[i] != want;
    }
    OK(mbad == 0, "double max of %zu elements: %zu wrong", cnt, mbad);

    shmem_team_t evens;
    int nev = (npes + 1) / 2;
    OK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, nev, NULL, 0, &evens), 0,
          "the even PEs' team");
    if (me % 2 == 0) {
        memset(ddst, 0, cnt * sizeof(double));
        OK_EQ(shmem_double_sum_reduce(evens, ddst, dsrc, cnt), 0, "the even PEs' sum");
        check_doubles(ddst, cnt, 0, 2, nev, "the even PEs' double sum");
        shmem_team_destroy(evens);
    } else {
        OK(evens == SHMEM_TEAM_INVALID, "an odd PE is outside the even PEs' team");
    }

    /* A classic active set: PEs 1..n-1, pSync and pWrk. */
    static long psync[SHMEM_REDUCE_SYNC_SIZE];
    static double pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++)
        psync[k] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    if (me >= 1) {
        for (int round = 0; round < 2; round++) {
            memset(ddst, 0, cnt * sizeof(double));
            shmem_double_sum_to_all(ddst, dsrc, (int)cnt, 1, 0, npes - 1, pwrk, psync);
            check_doubles(ddst, cnt, 1, 1, npes - 1, "shmem_double_sum_to_all on PEs 1..n-1");
        }
        for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++)
            OK_EQ(psync[k], SHMEM_SYNC_VALUE, "pSync back to SHMEM_SYNC_VALUE");
    }

    /* From and into the device heap, put there and read back with puts
     * and gets so that the CPU does not bring the blocks to the host:
     * where there is a device tier, the shares are read and written on
     * the device. */
    static double tmp[NMAX];
    for (size_t i = 0; i < cnt; i++)
        tmp[i] = dval(me, i);
    shmem_putmem(devsrc, tmp, cnt * sizeof(double), me);
    shmem_quiet();
    shmem_barrier_all();
    for (int round = 0; round < 2; round++) {
        if (dev_present) {
            OK_EQ(shmemx_residence(devsrc, me), SHMEMX_RES_DEVICE, "the device heap's source");
            OK_EQ(shmemx_residence(devdst, me), SHMEMX_RES_DEVICE, "the device heap's dest");
        }
        OK_EQ(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, devdst, devsrc, cnt), 0,
              "a sum from and into the device heap");
        memset(tmp, 0, sizeof tmp);
        shmem_getmem(tmp, devdst, cnt * sizeof(double), me);
        check_doubles(tmp, cnt, 0, 1, npes, "a device-heap double sum");
    }

    shmem_barrier_all();
    shmem_free(devdst);
    shmem_free(devsrc);
    shmem_free(lbuf);
    shmem_free(ddst);
    shmem_free(dsrc);
    suite_end("test-shmem-reduce", level);
    return 0;
}
