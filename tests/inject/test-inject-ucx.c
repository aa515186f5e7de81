/*
 * UVAS_INJECT=ucx:N: an active-message send (ucp_am_send_nbx) fails.
 * Under mpirun with 2 PEs and UVAS_SHMEM_ERRORS=return. A put to a peer's
 * untouched block is an active message to its owner (with
 * UVAS_TRANSPORT=ucx every put is):
 *  - PE 0 puts pattern A into `a` at PE 1 (works);
 *  - with ucx:1 armed, PE 0's put into `b` at PE 1 fails:
 *    shmemx_last_error() is negative and its message names shmem_putmem
 *    and UCX; nothing arrived at PE 1 (b unpopulated there, a intact);
 *  - the next put into `b` works, and so do later puts, gets and atomics;
 *    PE 1 sees exactly the data of the puts that succeeded;
 *  - PE 0's uvas_stats.injected[ucx] is 1, PE 1's 0.
 */
#include <shmem.h>

#include "inject-util.h"

#define LEN 256

static void expect_no_error(const char *what)
{
    int st = shmemx_last_error();
    CHECK(st == 0, "%s: unexpected error %d: %s", what, st, shmemx_last_error_string());
}

int main(void)
{
    tu_deadline(100);
    tu_setenv("UVAS_SHMEM_ERRORS", "return");
    unsetenv("UVAS_INJECT");
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes != 2) {
        shmem_finalize();
        SKIP("needs 2 PEs: run under mpirun -np 2 (got %d)", npes);
    }
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size;
    /* Whole blocks of their own, untouched at both PEs. */
    unsigned char *a = shmem_align(bs, bs), *b = shmem_align(bs, bs);
    CHECK(a && b, "shmem_align");
    unsigned char src[LEN];
    shmem_barrier_all();

    if (me == 0) {
        ti_fill(src, LEN, 21);
        shmem_putmem(a, src, LEN, 1);
        shmem_quiet();
        expect_no_error("put into a");
        ti_arm("ucx:1");
        ti_fill(src, LEN, 22);
        shmem_putmem(b, src, LEN, 1);
        int st = shmemx_last_error();
        const char *m = shmemx_last_error_string();
        CHECK(st < 0, "the put with its active message failing reported %d ('%s')", st, m);
        CHECK(strstr(m, "shmem_putmem") && strstr(m, "UCX"), "message '%s' does not name "
              "shmem_putmem and UCX", m);
        printf("  PE 0: injected put: %d: %s\n", st, m);
        shmemx_clear_error();
        shmem_quiet(); /* nothing outstanding: must not hang */
        expect_no_error("quiet after the failed put");
        CHECK_EQ(tu_stats().injected[UVAS_INJ_UCX], 1, "PE 0 injected[ucx]");
    }
    shmem_barrier_all();
    if (me == 1) {
        CHECK(tu_residence(b) == UVAS_RES_UNPOPULATED, "the failed put reached PE 1: b is %s",
              uvas_residence_name(tu_residence(b)));
        ti_verify(a, LEN, 21, bs, "PE 1: a after PE 0's failed put into b");
        CHECK_EQ(tu_stats().injected[UVAS_INJ_UCX], 0, "PE 1 injected[ucx]");
    }
    shmem_barrier_all();

    /* Later operations work. */
    if (me == 0) {
        ti_fill(src, LEN, 23);
        shmem_putmem(b, src, LEN, 1);
        expect_no_error("the put after the injected failure");
        shmem_putmem(b + LEN, src, LEN, 1);
        long one = shmem_long_atomic_fetch_add((long *)(a + 2 * LEN), 5, 1);
        CHECK_EQ(one, 0, "fetch_add's old value");
        unsigned char back[LEN];
        shmem_quiet();
        shmem_getmem(back, b, LEN, 1);
        expect_no_error("later puts, atomics and gets");
        for (size_t i = 0; i < LEN; i++)
            CHECK(back[i] == ti_pat(i, 23), "get from b at PE 1: byte %zu", i);
    }
    shmem_barrier_all();
    if (me == 1) {
        ti_verify(a, LEN, 21, bs, "PE 1: a at the end");
        ti_verify(b, LEN, 23, bs, "PE 1: b at the end");
        ti_verify(b + LEN, LEN, 23, bs, "PE 1: b's second put");
        CHECK_EQ(*(long *)(a + 2 * LEN), 5, "PE 1: the atomic's target");
    }
    shmem_barrier_all();
    shmem_free(a);
    shmem_free(b);
    shmem_finalize();
    if (me == 0)
        printf("ucx: a failed active message fails the put; later operations work\n");
    return 0;
}
