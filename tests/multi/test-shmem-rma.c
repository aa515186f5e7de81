/*
 * RMA as a program sees it: bulk, typed, strided, non-blocking and
 * generic puts and gets, and puts with signal, every value checked.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"

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
/* Every size to 80 bytes at every offset in a word, each into its own
 * slot with zeroed bytes around it: puts to 64 bytes move as a head and a
 * tail copy of fixed size (transport/pe/dispatch.c), overlapping between. */
static unsigned char small_pat(int pe, size_t n, size_t off, size_t i)
{
    return (unsigned char)(pe * 31 + (int)(n * 7 + off * 3 + i) + 1);
}

static void check_small_sizes(void)
{
    enum { SPAN = 96, OFFS = 8, MAXN = 80 };
    unsigned char *t = shmem_malloc((size_t)SPAN * OFFS * MAXN);
    OK(t != NULL, "shmem_malloc for the small sizes");
    memset(t, 0, (size_t)SPAN * OFFS * MAXN);
    shmem_barrier_all();
    unsigned char src[MAXN];
    for (size_t n = 1; n <= MAXN; n++)
        for (size_t off = 0; off < OFFS; off++) {
            for (size_t i = 0; i < n; i++)
                src[i] = small_pat(me, n, off, i);
            shmem_putmem(t + ((n - 1) * OFFS + off) * SPAN + 8 + off, src, n, right);
        }
    shmem_barrier_all();
    for (size_t n = 1; n <= MAXN; n++)
        for (size_t off = 0; off < OFFS; off++) {
            const unsigned char *slot = t + ((n - 1) * OFFS + off) * SPAN;
            for (size_t i = 0; i < SPAN; i++) {
                bool in = i >= 8 + off && i < 8 + off + n;
                unsigned char want = in ? small_pat(left, n, off, i - 8 - off) : 0;
                OK(slot[i] == want, "a %zu-byte put at offset %zu: byte %zd is %#x, expected %#x",
                   n, off, (ssize_t)i - 8 - (ssize_t)off, slot[i], want);
            }
        }
    shmem_barrier_all();
    shmem_free(t);
}

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

int main(void)
{
    int level = suite_start();
    check_bulk_rma();
    check_small_sizes();
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
    suite_end("test-shmem-rma", level);
    return 0;
}
