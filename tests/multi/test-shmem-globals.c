/*
 * Global and static variables are symmetric objects (OpenSHMEM 1.5, 3.0):
 * puts, gets, atomics, put-with-signal, waits, collectives and locks work
 * on them, from and into the heap too; shmem_addr_accessible says so, and
 * shmemx_residence says host; shmem_ptr gives the own PE's address and
 * NULL for a peer's (no load/store path to another process's data). A
 * range that runs past the program's data is refused, naming it.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"
#include "transport/pe/pe.h"

#include <stdlib.h>

#define N 1000

int g_int[N];                 /* bss */
long g_long = 7;              /* data */
static double s_dbl[16];
static uint64_t s_sig;
static long s_lock;
static long s_counter;
static short s_flag;
static int s_bcast[64];

static void check_rma(void)
{
    for (int i = 0; i < N; i++)
        g_int[i] = -1;
    shmem_barrier_all();
    int src[N];
    for (int i = 0; i < N; i++)
        src[i] = me * 100000 + i;
    shmem_int_put(g_int, src, N, right);          /* global <- stack */
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        OK_EQ(g_int[i], left * 100000 + i, "g_int[i] after the left PE's put");
    int back[N];
    shmem_int_get(back, g_int, N, right);          /* stack <- global */
    for (int i = 0; i < N; i++)
        OK_EQ(back[i], me * 100000 + i, "a get of the right PE's g_int");
    OK_EQ(shmem_int_g(&g_int[3], left), left * 0 + (left + npes - 1) % npes * 100000 + 3,
          "shmem_int_g of the left PE's g_int[3]");
    /* heap <-> global, both ways */
    int *heap = shmem_malloc(N * sizeof(int));
    OK(heap != NULL, "shmem_malloc");
    shmem_int_get(heap, g_int, N, left);
    for (int i = 0; i < N; i++)
        OK_EQ(heap[i], (left + npes - 1) % npes * 100000 + i, "heap <- the left PE's g_int");
    shmem_barrier_all();
    for (int i = 0; i < 16; i++)
        s_dbl[i] = 0;
    shmem_barrier_all();
    double d[16];
    for (int i = 0; i < 16; i++)
        d[i] = me + i / 4.0;
    shmem_double_put_nbi(s_dbl, d, 16, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 16; i++)
        OK(s_dbl[i] == left + i / 4.0, "s_dbl[%d] = %g after a non-blocking put", i, s_dbl[i]);
    shmem_barrier_all();
    shmem_free(heap);
}

static void check_amo_sync(void)
{
    g_long = 0;
    shmem_barrier_all();
    for (int k = 0; k < 100; k++)
        shmem_long_atomic_add(&g_long, 1, 0);
    shmem_barrier_all();
    if (me == 0)
        OK_EQ(g_long, 100L * npes, "atomic adds into PE 0's g_long");
    OK_EQ(shmem_long_atomic_fetch(&g_long, 0), 100L * npes, "atomic fetch of PE 0's g_long");
    shmem_barrier_all();

    /* put-with-signal and a wait on a static */
    s_sig = 0;
    shmem_barrier_all();
    int v = 42 + me;
    shmem_putmem_signal(&g_int[0], &v, sizeof v, &s_sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(&s_sig, SHMEM_CMP_EQ, 1);
    OK_EQ(g_int[0], 42 + left, "the data of a put with signal into a global");
    /* a short flag, generic wait */
    s_flag = 0;
    shmem_barrier_all();
    shmem_short_p(&s_flag, (short)(me + 1), right);
    shmem_wait_until(&s_flag, SHMEM_CMP_NE, (short)0);
    OK_EQ(s_flag, left + 1, "a short flag waited on");
    shmem_barrier_all();

    /* a lock in a static, a counter in a static */
    s_counter = 0;
    shmem_barrier_all();
    for (int r = 0; r < 50; r++) {
        shmem_set_lock(&s_lock);
        long c = shmem_long_g(&s_counter, 0);
        shmem_long_p(&s_counter, c + 1, 0);
        shmem_clear_lock(&s_lock);
    }
    shmem_barrier_all();
    OK_EQ(shmem_long_g(&s_counter, 0), 50L * npes, "updates under a lock in a static");
}

static void check_coll_query(void)
{
    static int src[64]; /* a broadcast's source is symmetric too */
    for (int i = 0; i < 64; i++)
        src[i] = me == 1 ? 500 + i : -7;
    memset(s_bcast, 0, sizeof s_bcast);
    shmem_barrier_all();
    shmem_int_broadcast(SHMEM_TEAM_WORLD, s_bcast, src, 64, 1);
    for (int i = 0; i < 64; i++)
        OK_EQ(s_bcast[i], 500 + i, "a broadcast into a static array");
    shmem_barrier_all();
    OK(shmem_addr_accessible(&g_long, right), "shmem_addr_accessible(a global)");
    OK(shmem_addr_accessible(&s_dbl[15], left), "shmem_addr_accessible(a static)");
    OK_EQ(shmemx_residence(&g_int[7], right), SHMEMX_RES_HOST, "shmemx_residence(a global)");
    OK(shmem_ptr(&g_long, me) == &g_long, "shmem_ptr(a global, me)");
    OK(shmem_ptr(&g_long, right) == NULL, "shmem_ptr(a global, a peer)");
    int local = 0;
    OK(!shmem_addr_accessible(&local, right), "shmem_addr_accessible(the stack)");
    shmem_barrier_all();
}

/* Message puts in flight, then a get of the same word: the get sees the
 * last put (a get by cross-memory attach must not overtake them), and a
 * large put after small ones lands after them. With UVAS_SEG_CMA unset
 * and the kernel allowing it on one node, gets and large puts go by
 * cross-memory attach (counted as such); UVAS_SEG_CMA=0 keeps messages. */
static long s_word;
static char s_big[8192];

static void check_mechanism_order(void)
{
    struct uvas_pe_stats before, after;
    CHECK_OK(uvas_pe_stats_get(&before));
    for (int r = 0; r < 200; r++) {
        for (long i = 1; i <= 16; i++)
            shmem_long_p(&s_word, r * 100 + i + me * 1000000, right);
        OK_EQ(shmem_long_g(&s_word, right), r * 100 + 16 + me * 1000000,
              "a get after message puts sees the last");
    }
    char big[sizeof s_big];
    memset(big, 'a' + me % 26, sizeof big);
    shmem_char_p(&s_big[0], 'z', right);  /* small: a message */
    shmem_putmem(s_big, big, sizeof big, right); /* large: after it */
    shmem_quiet();
    shmem_barrier_all();
    OK(s_big[0] == 'a' + left % 26 && s_big[sizeof s_big - 1] == 'a' + left % 26,
       "the large put landed after the small one: %c", s_big[0]);
    char back[sizeof s_big];
    shmem_getmem(back, s_big, sizeof back, right);
    OK(back[0] == 'a' + me % 26, "got back what this PE put there");
    CHECK_OK(uvas_pe_stats_get(&after));
    const char *mode = getenv("UVAS_SEG_CMA");
    unsigned long cma = (unsigned long)(after.ops[UVAS_PATH_CMA] - before.ops[UVAS_PATH_CMA]);
    if (mode && !strcmp(mode, "0"))
        OK_EQ(cma, 0, "UVAS_SEG_CMA=0: no cross-memory attach");
    if (me == 0)
        printf("test-shmem-globals: %lu operations by cross-memory attach (%s)\n", cma,
               mode && !strcmp(mode, "0") ? "off" : "where the kernel allows it");
    shmem_barrier_all();
}

int main(void)
{
    int level = suite_start();
    check_rma();
    check_amo_sync();
    check_coll_query();
    check_mechanism_order();
    suite_end("test-shmem-globals", level);
    return 0;
}
