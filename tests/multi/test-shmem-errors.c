/*
 * Bad input to the OpenSHMEM layer gets an error, not a crash, when
 * UVAS_SHMEM_ERRORS=return: each case leaves shmemx_last_error() nonzero
 * (a negative UVAS_ERR_*) and shmemx_last_error_string() naming the call
 * and the problem, changes nothing at the target, and afterwards normal
 * operations still work. Run under mpirun with 2 or more PEs.
 */
#include <shmem.h>

#include <stdio.h>
#include <string.h>

#include "tests/check.h"
#include "tests/multi/pes.h"

static int me, npes, right, left;
static int ncases;

/* The last error is set and its message contains every one of the words. */
static void expect_error(const char *what, const char *w1, const char *w2)
{
    int st = shmemx_last_error();
    const char *msg = shmemx_last_error_string();
    CHECK(st < 0, "%s: shmemx_last_error() is %d, expected a negative UVAS_ERR_* (message "
          "'%s')", what, st, msg ? msg : "(null)");
    CHECK(msg && *msg, "%s: shmemx_last_error_string() is empty", what);
    CHECK(!w1 || strstr(msg, w1), "%s: message '%s' does not name '%s'", what, msg, w1);
    CHECK(!w2 || strstr(msg, w2), "%s: message '%s' does not mention '%s'", what, msg, w2);
    shmemx_clear_error();
    CHECK_EQ(shmemx_last_error(), 0, "shmemx_clear_error clears the status");
    CHECK(shmemx_last_error_string() && !*shmemx_last_error_string(),
          "shmemx_clear_error clears the message");
    ncases++;
}

/* A collective where PE 1 passed memory that is not symmetric: PE 1 says
 * so, and every other PE fails for PE 1's part (team PE 1) rather than use
 * what PE 1 never wrote. */
static void expect_pe1_failed(int rst, const char *what, const char *call)
{
    CHECK(rst != 0, "%s returned 0 on PE %d", what, me);
    expect_error(what, call, me == 1 ? "symmetric" : "team PE 1");
}

static void expect_no_error(const char *what)
{
    int st = shmemx_last_error();
    CHECK(st == 0, "%s: unexpected error %d: %s", what, st, shmemx_last_error_string());
}

int main(void)
{
    if (getenv("UVAS_TEST_SINGLE"))
        SKIP("single-PE run requested");
    tu_setenv("UVAS_SHMEM_ERRORS", "return");
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    tu_need_pes(2);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    shmemx_clear_error();
    expect_no_error("after shmem_init");

    long *sym = shmem_calloc(64, sizeof(long));
    CHECK(sym != NULL, "shmem_calloc");
    long src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    long stack_buf[8] = {0};

    /* ---- non-symmetric addresses ---- */
    shmem_putmem(stack_buf, src, sizeof src, right);
    expect_error("putmem to a stack address", "shmem_putmem", "symmetric");
    for (int i = 0; i < 8; i++)
        CHECK_EQ(stack_buf[i], 0, "the local stack buffer is untouched");
    shmem_getmem(src, stack_buf, sizeof src, right);
    expect_error("getmem from a stack address", "shmem_getmem", "symmetric");
    CHECK_EQ(src[0], 1, "getmem from a bad source left the destination alone");
    shmem_long_put(stack_buf, src, 8, right);
    expect_error("shmem_long_put to a stack address", "shmem_long_put", "symmetric");
    shmem_putmem_nbi(stack_buf, src, sizeof src, right);
    expect_error("putmem_nbi to a stack address", "shmem_putmem_nbi", "symmetric");
    CHECK_EQ(shmem_long_atomic_fetch_add(stack_buf, 1, right), 0,
             "a failed fetch_add returns 0");
    expect_error("atomic on a stack address", "shmem_long_atomic_fetch_add", "symmetric");
    CHECK(shmem_ptr(stack_buf, right) == NULL, "shmem_ptr(stack) is NULL");
    expect_error("shmem_ptr of a stack address", "shmem_ptr", "symmetric");
    CHECK_EQ(shmemx_heap_of(stack_buf), -1, "shmemx_heap_of(stack)");
    expect_error("shmemx_heap_of of a stack address", "shmemx_heap_of", NULL);

    /* A global is symmetric, but not a range that runs past the program's
     * data (the owner would check the offset too: segment.c). */
    static long gl[4];
    shmemx_clear_error();
    shmem_putmem(gl, src, (size_t)64 << 30, right);
    expect_error("putmem from a global past the program's data", "shmem_putmem",
                 "not symmetric");
    shmem_getmem(src, gl + 2, (size_t)1 << 40, right);
    expect_error("getmem from a global past the program's data", "shmem_getmem",
                 "not symmetric");
    CHECK_EQ(src[0], 1, "a refused get from a global left the destination alone");
    /* Nor one that runs past its variable into the next (each global is
     * held to its own bounds, as a heap object is), nor libc's stdout,
     * which the dynamic linker copied into the program's data. */
    for (int i = 0; i < 4; i++)
        gl[i] = 1000 + i;
    shmem_barrier_all();
    long five[5] = {-1, -1, -1, -1, -1};
    shmem_putmem(gl, five, sizeof five, right);
    expect_error("putmem past the end of a global", "shmem_putmem", "runs past the end");
    shmem_putmem(&gl[3], five, 2 * sizeof(long), right);
    expect_error("putmem from a global's last word on", "shmem_putmem", "runs past the end");
    shmem_putmem(&stdout, five, sizeof stdout, right);
    expect_error("putmem to stdout", "shmem_putmem", "not symmetric");
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK_EQ(gl[i], 1000 + i, "a global a refused put would have overwritten");
    fflush(stdout);

    /* A free of a global, the same on every PE, is refused as not a heap
     * object, not as a disagreement between PEs (their offsets from the
     * range differed: found by review). */
    shmemx_clear_error();
    shmem_free(gl);
    expect_error("shmem_free of a global", "shmem_free", "outside the uvas range");
    /* A freed symmetric object (whole blocks) is no longer symmetric. */
    long *gone = shmem_malloc((size_t)4 << 20);
    CHECK(gone != NULL, "shmem_malloc");
    shmem_free(gone);
    shmemx_clear_error();
    shmem_putmem(gone, src, sizeof src, right);
    expect_error("putmem into a freed object", "shmem_putmem", "live symmetric allocation");
    /* A freed small object shares its slab block with live ones. */
    char *keep = shmem_malloc(4096), *small = shmem_malloc(4096);
    CHECK(keep && small, "shmem_malloc");
    shmem_free(small);
    shmemx_clear_error();
    shmem_putmem(small, src, sizeof src, right);
    expect_error("putmem into a freed small object", "shmem_putmem", "live symmetric allocation");
    shmemx_clear_error();
    shmem_putmem(keep + 4096 - 8, src, 16, right);
    expect_error("putmem past the end of a small object", "shmem_putmem",
                 "live symmetric allocation");
    shmem_free(keep);
    /* Each thread remembers the bounds of the object it last reached
     * (uvas/span.h): a free or a shrink must forget them. */
    char *once = shmem_malloc(4096);
    CHECK(once != NULL, "shmem_malloc");
    shmem_putmem(once, src, sizeof src, right);
    expect_no_error("putmem into a live small object");
    shmem_free(once);
    shmemx_clear_error();
    shmem_putmem(once, src, sizeof src, right);
    expect_error("putmem into a small object freed after a put into it", "shmem_putmem",
                 "live symmetric allocation");
    char *shrunk = shmem_malloc((size_t)4 << 20);
    CHECK(shrunk != NULL, "shmem_malloc");
    shmem_putmem(shrunk + ((size_t)3 << 20), src, sizeof src, right);
    expect_no_error("putmem into a live large object");
    char *kept = shmem_realloc(shrunk, 8192);
    CHECK(kept != NULL, "shmem_realloc");
    shmemx_clear_error();
    shmem_putmem(kept + 8192 - 8, src, 16, right);
    expect_error("putmem past the end of an object shrunk after a put into it", "shmem_putmem",
                 "live symmetric allocation");
    shmemx_clear_error();
    shmem_putmem(shrunk + ((size_t)3 << 20), src, sizeof src, right);
    expect_error("putmem where a shrunk object no longer reaches", "shmem_putmem",
                 "live symmetric allocation");
    shmem_free(kept);
    /* Two large objects side by side: an access from the end of one into
     * the next is past the end of its object, though every block it
     * touches is live (the check used to look at the blocks only). */
    size_t big = (size_t)4 << 20;
    char *first = shmem_malloc(big), *second = shmem_malloc(big);
    CHECK(first && second, "shmem_malloc");
    if (second == first + big) {
        shmemx_clear_error();
        shmem_putmem(first + big - 8, src, 16, right);
        expect_error("putmem from the end of one object into the next", "shmem_putmem",
                     "live symmetric allocation");
        shmemx_clear_error();
        shmem_getmem(src, first + big - 8, 16, right);
        expect_error("getmem across two objects", "shmem_getmem", "live symmetric allocation");
    } else {
        printf("note: the two objects are not adjacent (%p, %p): no cross-object case\n",
               (void *)first, (void *)second);
    }
    shmem_free(second);
    shmem_free(first);

    /* ---- PEs out of range ---- */
    shmem_barrier_all();
    int bad_pes[2] = {npes, -1};
    for (int b = 0; b < 2; b++) {
        int pe = bad_pes[b];
        char what[64];
        snprintf(what, sizeof what, "PE %d", pe);
        shmem_putmem(sym, src, sizeof src, pe);
        expect_error(what, "shmem_putmem", "out of range");
        shmem_getmem(stack_buf, sym, sizeof src, pe);
        expect_error(what, "shmem_getmem", "out of range");
        shmem_long_p(&sym[1], 99, pe);
        expect_error(what, "shmem_long_p", "out of range");
        (void)shmem_long_g(&sym[1], pe);
        expect_error(what, "shmem_long_g", "out of range");
        shmem_long_atomic_add(&sym[2], 1, pe);
        expect_error(what, "shmem_long_atomic_add", "out of range");
        (void)shmem_int_atomic_fetch_inc((int *)&sym[3], pe);
        expect_error(what, "shmem_int_atomic_fetch_inc", "out of range");
        shmem_putmem_signal(sym, src, 8, (uint64_t *)&sym[4], 1, SHMEM_SIGNAL_SET, pe);
        expect_error(what, "shmem_putmem_signal", "out of range");
        CHECK(shmemx_residence(sym, pe) == -1, "shmemx_residence at PE %d", pe);
        expect_error(what, "shmemx_residence", "out of range");
    }
    shmem_barrier_all();
    for (int i = 0; i < 64; i++)
        CHECK_EQ(sym[i], 0, "no bad call changed the symmetric object");

    /* A misaligned signal word is refused before the data goes (the data
     * landed, then the signal failed: found by review). */
    {
        static uint64_t sigs[4];
        static long dat[4];
        long v = 77;
        int to = (me + 1) % npes;
        shmem_barrier_all();
        shmem_putmem_signal(&dat[1], &v, sizeof v, (uint64_t *)((char *)&sigs[1] + 4), 1,
                            SHMEM_SIGNAL_SET, to);
        expect_error("a misaligned signal word", "shmem_putmem_signal", "aligned");
        shmem_barrier_all();
        CHECK_EQ(dat[1], 0, "the data of a put-with-signal refused for its signal word");
    }

    /* ---- hints (collective: every PE makes the same call) ---- */
    /* Bits uvas does not know are advice it may ignore (another
     * implementation's hints): the allocation is made, usable. */
    long *unk = shmem_malloc_with_hints(4096, 1L << 40);
    CHECK(unk != NULL, "shmem_malloc_with_hints(an unknown hint) failed: %s",
          uvas_last_error());
    shmem_long_p(unk, me, (me + 1) % npes);
    shmem_barrier_all();
    CHECK_EQ(*unk, (me + npes - 1) % npes, "a put into memory allocated with an unknown hint");
    shmem_free(unk);
    /* Contradicting heap hints (programs pass ~0L as invalid hints): the
     * default heap, as with no hint. */
    long *both = shmem_malloc_with_hints(4096, ~0L);
    CHECK(both != NULL, "shmem_malloc_with_hints(~0L) failed: %s", uvas_last_error());
    CHECK_EQ(shmemx_heap_of(both), shmemx_default_heap(), "~0L hints: the default heap");
    shmem_free(both);
    void *p = shmem_align(48, 100);
    CHECK(p == NULL, "shmem_align(48) returned %p", p);
    expect_error("alignment not a power of two", "shmem_align", "power of two");

    /* ---- misaligned atomics (remote and local) ---- */
    long *a = shmem_calloc(8, sizeof(long));
    CHECK(a != NULL, "shmem_calloc");
    long *mis = (long *)((char *)a + 4);
    shmem_long_atomic_add(mis, 1, right);
    expect_error("misaligned remote atomic add", "shmem_long_atomic_add", "aligned");
    CHECK_EQ(shmem_long_atomic_fetch_add((long *)((char *)a + 1), 1, right), 0,
             "a failed fetch_add returns 0");
    expect_error("misaligned remote fetch_add", "shmem_long_atomic_fetch_add", "aligned");
    (void)shmem_int_atomic_swap((int *)((char *)a + 2), 5, me);
    expect_error("misaligned local swap", "shmem_int_atomic_swap", "aligned");
    (void)shmem_long_atomic_compare_swap(mis, 0, 9, right);
    expect_error("misaligned compare_swap", "shmem_long_atomic_compare_swap", "aligned");
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        CHECK_EQ(a[i], 0, "misaligned atomics changed nothing");

    /* ---- bad comparison, bad team, bad active set ---- */
    int *iv = shmem_calloc(1, sizeof(int));
    CHECK(iv != NULL, "shmem_calloc");
    CHECK_EQ(shmem_int_test(iv, 99, 0), 0, "shmem_int_test with an unknown comparison");
    expect_error("unknown comparison", "shmem_int_test", NULL);
    CHECK(shmem_long_broadcast(SHMEM_TEAM_INVALID, a, sym, 1, 0) != 0,
          "broadcast on SHMEM_TEAM_INVALID returns nonzero");
    expect_error("SHMEM_TEAM_INVALID", "shmem_long_broadcast", "SHMEM_TEAM_INVALID");
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, a, sym, 1, npes) != 0,
          "broadcast from root n_pes returns nonzero");
    expect_error("root out of range", "shmem_long_broadcast", NULL);
    static long psync[SHMEM_BCAST_SYNC_SIZE];
    shmem_broadcast64(a, sym, 1, 0, 1, 0, npes + 1, psync);
    expect_error("an active set past the job's PEs", "shmem_broadcast64", "active set");
    shmem_broadcast64(a, sym, 1, 0, me, 0, 1, NULL); /* this PE alone, no pSync */
    expect_error("no pSync", "shmem_broadcast64", "pSync");

    /* ---- collectives checked against their destination's allocation ---- */
    char *bbig = shmem_malloc(4096), *bsmall = shmem_malloc(16), *bguard = shmem_malloc(16);
    CHECK(bbig && bsmall && bguard, "shmem_malloc");
    memset(bbig, 7, 4096);
    memset(bsmall, 0, 16);
    memset(bguard, 0x55, 16);
    shmem_barrier_all();
    shmemx_clear_error();
    CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, bsmall, bbig, 4096, 0) != 0,
          "a broadcast of 4 KiB into 16 bytes returns nonzero");
    expect_error("broadcast past its destination", "shmem_broadcastmem",
                 "live symmetric allocation");
    /* nelems * n_pes wraps to 0: the destination's span must not. */
    CHECK(shmem_alltoallsmem(SHMEM_TEAM_WORLD, bsmall, bbig, (ptrdiff_t)1 << 20, 1,
                             (size_t)1 << 63) != 0,
          "an alltoalls whose element count overflows returns nonzero");
    expect_error("alltoalls of 2^63 elements a PE", "shmem_alltoallsmem", "overflow");
    shmem_barrier_all();
    for (int i = 0; i < 16; i++) {
        CHECK_EQ(bsmall[i], 0, "a refused collective left its destination alone");
        CHECK_EQ(bguard[i], 0x55, "a refused collective wrote nothing past its destination");
    }
    /* A collect where one PE's count overflows: the others must not read
     * the count that PE published for an earlier collect and gather its
     * stale block as if nothing were wrong. */
    long *cdst = shmem_calloc((size_t)npes, sizeof(long));
    long *csrc = shmem_malloc(sizeof(long));
    CHECK(cdst && csrc, "shmem_malloc");
    *csrc = 1000 + me;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_collect(SHMEM_TEAM_WORLD, cdst, csrc, 1), 0, "a collect");
    for (int i = 0; i < npes; i++)
        CHECK_EQ(cdst[i], 1000 + i, "a collect's block");
    shmemx_clear_error();
    int cst = shmem_long_collect(SHMEM_TEAM_WORLD, cdst, csrc, me == 0 ? SIZE_MAX / 2 : 1);
    CHECK(cst != 0, "a collect whose PE 0 count overflows returned 0 on PE %d", me);
    expect_error("a collect with PE 0's count overflowing", "shmem_long_collect", NULL);
    shmem_barrier_all();
    shmem_free(csrc);
    shmem_free(cdst);

    /* A reduction large enough that the PEs split it, where PE 1's dest
     * is not symmetric: PE 1 refuses it, and the others must not read the
     * share PE 1 never wrote (the previous reduction's) as if it were
     * this one's. */
    enum { RN = 1 << 15 };
    long *rsrc = shmem_malloc(RN * sizeof(long)), *rdst = shmem_malloc(RN * sizeof(long));
    long *rprivate = malloc(RN * sizeof(long)); /* a static would be symmetric */
    CHECK(rsrc && rdst && rprivate, "shmem_malloc");
    for (int i = 0; i < RN; i++)
        rsrc[i] = i + me;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, rdst, rsrc, RN), 0, "a large sum");
    for (int i = 0; i < RN; i++)
        rsrc[i] = 2 * i + me;
    shmem_barrier_all();
    shmemx_clear_error();
    expect_pe1_failed(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, me == 1 ? rprivate : rdst, rsrc,
                                            RN),
                      "a sum whose PE 1 dest is not symmetric", "shmem_long_sum_reduce");
    /* The same, small enough to be staged (one barrier): PE 1 marks its
     * part failed, the others must not combine what its last call left. */
    shmem_barrier_all();
    shmemx_clear_error();
    CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, rdst, rsrc, 4), 0, "a small sum");
    expect_pe1_failed(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, me == 1 ? rprivate : rdst, rsrc, 4),
                      "a small sum whose PE 1 dest is not symmetric", "shmem_long_sum_reduce");
    /* A small broadcast whose root's source is not symmetric. */
    shmem_barrier_all();
    expect_pe1_failed(shmem_long_broadcast(SHMEM_TEAM_WORLD, rdst, me == 1 ? rprivate : rsrc, 4, 1),
                      "a broadcast from PE 1's private source", "shmem_long_broadcast");
    shmem_barrier_all();
    free(rprivate);
    shmem_free(rdst);
    shmem_free(rsrc);

    /* Symmetric allocations that disagree (PE 1 asks for another size):
     * every PE undoes the call and says so, not only the PEs next to the
     * difference (with four PEs, PEs 3 and 0 compare equal calls), and
     * the heaps stay in step. */
    shmem_barrier_all();
    shmemx_clear_error();
    void *odd = shmem_malloc(me == 1 ? 200 : 100);
    CHECK(odd == NULL, "PE %d kept an allocation the PEs disagreed on", me);
    expect_error("symmetric calls that disagree", "shmem_malloc", "disagree");
    long *even = shmem_malloc(8 * sizeof(long));
    CHECK(even != NULL, "an allocation after the disagreement");
    shmem_long_p(even, 77 + me, right);
    shmem_barrier_all();
    CHECK_EQ(even[0], 77 + left, "a put into the allocation after the disagreement");
    shmem_free(even);

    /* A shmem_realloc that disagrees (PE 1 asks for another size): every
     * PE fails it as realloc(3) fails, its object where it was with its
     * bytes, and the heaps stay in step (before, each PE kept what its
     * own realloc had made: PE 1's object grew where the others' did not,
     * and the next allocation came at another offset on PE 1). */
    long *held = shmem_malloc(1024 * sizeof(long));
    CHECK(held != NULL, "shmem_malloc before the disagreeing realloc");
    for (int i = 0; i < 1024; i++)
        held[i] = me * 10000 + i;
    shmem_barrier_all();
    shmemx_clear_error();
    long *moved = shmem_realloc(held, (me == 1 ? 1 << 20 : 1 << 19) * sizeof(long));
    CHECK(moved == NULL, "PE %d kept a realloc the PEs disagreed on", me);
    expect_error("a shmem_realloc that disagrees", "shmem_realloc", "disagree");
    for (int i = 0; i < 1024; i++)
        CHECK_EQ(held[i], me * 10000 + i, "the object of a failed realloc keeps its bytes");
    long *after = shmem_malloc(1 << 22);
    CHECK(after != NULL, "an allocation after the disagreeing realloc");
    long mine_at = (long)((char *)after - (char *)held), left_at = -1;
    static long at_of_left; /* a global: a symmetric object */
    shmem_long_p(&at_of_left, mine_at, right);
    shmem_barrier_all();
    left_at = at_of_left;
    CHECK_EQ(left_at, mine_at, "the next allocation's place, against the left PE's");
    shmem_long_p(after, 88 + me, right);
    shmem_long_p(held, 99 + me, right);
    shmem_barrier_all();
    CHECK_EQ(after[0], 88 + left, "a put into the allocation after the disagreeing realloc");
    CHECK_EQ(held[0], 99 + left, "a put into the object of the failed realloc");
    shmem_free(after);
    shmem_free(held);

    /* A team of PE 0 alone numbers one PE: its context reaches no other,
     * though the team starts at 0 with stride 1 like the world. */
    shmem_team_t solo = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &solo);
    if (me == 0) {
        shmem_ctx_t sctx;
        CHECK(solo != SHMEM_TEAM_INVALID, "PE 0 is in the team of PE 0");
        CHECK_EQ(shmem_team_create_ctx(solo, 0, &sctx), 0, "a context of the team of PE 0");
        shmemx_clear_error();
        shmem_ctx_putmem(sctx, bguard, bbig, 16, 1);
        expect_error("a put to team PE 1 in a team of one", "shmem_ctx_putmem",
                     "not in the context's team");
        shmem_ctx_destroy(sctx);
    }
    shmem_barrier_all();
    for (int i = 0; i < 16; i++)
        CHECK_EQ(bguard[i], 0x55, "a put outside the context's team changed nothing");
    if (solo != SHMEM_TEAM_INVALID)
        shmem_team_destroy(solo);
    shmem_free(bguard);
    shmem_free(bsmall);
    shmem_free(bbig);

    /* ---- a lock written outside the lock routines ---- */
    /* A program that stores into the lock word while it holds the lock
     * (the lock lives in PE 0's copy) leaves a state no lock routine
     * makes: the next call on it says so instead of waiting for ever. So
     * does clearing a lock nobody holds, and a lock that was not zero
     * before its first use. */
    long *lk = shmem_calloc(1, sizeof(long));
    CHECK(lk != NULL, "shmem_calloc of a lock");
    shmem_barrier_all();
    if (me == 0) {
        shmem_clear_lock(lk);
        expect_error("clearing a lock nobody holds", "shmem_clear_lock", "nobody holds");
        CHECK_EQ(*lk, 0, "a refused clear leaves the lock as it was");
        shmem_set_lock(lk);
        expect_no_error("setting a fresh lock");
        *lk = 1; /* the program's store into the lock word */
        shmem_clear_lock(lk);
        expect_error("clearing a lock written over", "shmem_clear_lock", "lock routines");
        CHECK_EQ(shmem_test_lock(lk), 1, "shmem_test_lock of a written-over lock");
        expect_error("testing a lock written over", "shmem_test_lock", "lock routines");
    }
    shmem_barrier_all();
    if (me == npes - 1) {
        shmem_set_lock(lk);
        expect_error("setting a lock written over", "shmem_set_lock", "lock routines");
    }
    shmem_barrier_all();
    if (me == 0) {
        *lk = 0; /* reset, as before a first use */
        shmem_set_lock(lk);
        expect_no_error("setting a lock reset to zero");
        shmem_clear_lock(lk);
        expect_no_error("clearing it");
    }
    shmem_barrier_all();
    shmem_free(lk);

    /* ---- normal operation afterwards ---- */
    shmemx_clear_error();
    shmem_barrier_all();
    long v[8];
    for (int i = 0; i < 8; i++)
        v[i] = 100L * me + i;
    shmem_long_put(sym, v, 8, right);
    shmem_barrier_all();
    for (int i = 0; i < 8; i++)
        CHECK_EQ(sym[i], 100L * left + i, "a put after the errors");
    long got[8];
    shmem_long_get(got, sym, 8, right);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(got[i], 100L * me + i, "a get after the errors");
    shmem_long_atomic_add(&a[0], 1, 0);
    shmem_barrier_all();
    CHECK_EQ(shmem_long_atomic_fetch(&a[0], 0), npes, "atomics after the errors");
    long *fresh = shmem_malloc_with_hints(1024, SHMEM_MALLOC_HOST_HEAP);
    CHECK(fresh != NULL, "an allocation after the errors");
    CHECK_EQ(shmemx_heap_of(fresh), SHMEMX_HEAP_HOST, "its heap");
    fresh[0] = me;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_g(fresh, right), right, "shmem_long_g after the errors");
    long bsrc = 4242 + me, *bdst = shmem_malloc(sizeof(long));
    long *bs = shmem_malloc(sizeof(long));
    CHECK(bdst && bs, "allocations");
    *bs = bsrc;
    shmem_barrier_all();
    CHECK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bs, 1, npes - 1), 0, "broadcast");
    CHECK_EQ(*bdst, 4242 + npes - 1, "a broadcast after the errors");
    expect_no_error("the normal operations");
    shmem_free(bs);
    shmem_free(bdst);
    shmem_free(fresh);
    shmem_free(iv);
    shmem_free(a);
    shmem_free(sym);
    expect_no_error("frees");
    shmem_finalize();
    if (me == 0)
        printf("test-shmem-errors: %d PEs, %d bad calls each reported and survived\n", npes,
               ncases);
    return 0;
}
