/*
 * Atomics: every typed and generic form alone, the bitwise and extended
 * ones, and fetch-add under contention from every PE.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"

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
    /* The deprecated generic names (1.4) on an unsigned type, as programs
     * use them: the same operations as the shmem_atomic_ names. */
    unsigned long long *ull = shmem_calloc(1, sizeof *ull);
    OK(ull != NULL, "allocation");
    shmem_set(ull, 10ull, right);
    OK_EQ(shmem_fadd(ull, 5ull, right), 10, "deprecated generic fadd (unsigned long long)");
    shmem_add(ull, 1ull, right);
    shmem_inc(ull, right);
    OK_EQ(shmem_finc(ull, right), 17, "deprecated generic finc");
    OK_EQ(shmem_cswap(ull, 18ull, 40ull, right), 18, "deprecated generic cswap");
    OK_EQ(shmem_swap(ull, 41ull, right), 40, "deprecated generic swap");
    OK_EQ(shmem_fetch(ull, right), 41, "deprecated generic fetch");
    shmem_barrier_all();
    OK_EQ(*ull, 41, "owner's unsigned long long");
    shmem_free(ull);
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

int main(void)
{
    int level = suite_start();
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
    suite_end("test-shmem-amo", level);
    return 0;
}
