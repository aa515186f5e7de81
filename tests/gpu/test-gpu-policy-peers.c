/*
 * The peers policy (migrate/policy_peers.c) moving a block of PE 0 by the
 * accesses other PEs make, under mpirun -np 2:
 *   1  PE 1's kernels put into PE 0's host-resident box, launch after
 *      launch (tests/gpu/shmem-direct.comp phase 0; host blocks are lent
 *      up front): PE 0's tick sees its kernels' accesses and moves the
 *      box's block to the device; a host block nobody reaches stays;
 *   2  PE 1's CPU puts into the box, now on the device: PE 0's tick sees
 *      a CPU's accesses and brings the block back to the host; a device
 *      block nobody reaches stays;
 *   3  nothing was lost: the kernels' words, the CPU's last put.
 * PE 0's own CPU does not touch the box until the end (a fault would
 * move it on its own).
 */
#include <shmem.h>
#include <unistd.h>

#include "check.h"
#include "uvas_policy.h"

#define N 1024 /* words of the box, invocations of a launch */

struct args {
    uint64_t box, gsrc, counter, out;
    uint32_t n, phase, rounds, pad;
};

static int stop; /* symmetric: PE 0 tells PE 1 a part is over */

static int residence(const void *p)
{
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    return info.residence;
}

/* PE 0: wait (10 s at most) for p's block to be at res, then stop PE 1. */
static void await(const void *p, int res, const char *what)
{
    double t0 = tu_now_s();
    while (residence(p) != res && tu_now_s() - t0 < 10)
        usleep(1000);
    CHECK(residence(p) == res, "%s: the block is still %s after 10 s", what,
          res == UVAS_RES_DEVICE ? "on the host" : "on the device");
    printf("PE 0: %s, %.0f ms\n", what, (tu_now_s() - t0) * 1e3);
    shmem_int_atomic_set(&stop, 1, 1);
    shmem_quiet();
}

int main(void)
{
    tu_watchdog(110);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    tu_setenv("UVAS_LEASE_HOST_AFTER", "0"); /* host blocks lent up front */
    tu_setenv("UVAS_POLICY", "peers:tick_ms=5,min=2,sample=none");
    tu_tsan_base();
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (np != 2) {
        shmem_finalize();
        SKIP("runs with 2 PEs exactly (mpirun -np 2): PE 1 reaches PE 0's memory, PE 0 watches");
    }
    if (!shmemx_device_present()) {
        shmem_finalize();
        SKIP("no device tier here: there is nowhere to move a block to");
    }
    uvas_kernel_t *k = tu_kernel("shmem-direct");
    struct uvas_range_desc rd = tu_range();
    size_t bs = rd.block_size;
    uint32_t *box = shmem_align(bs, bs);  /* a block of its own */
    char *quiet_host = shmem_align(bs, bs), *quiet_dev = shmem_align(bs, bs);
    uint32_t *gsrc = shmem_malloc(N * 4);
    uint64_t *counter = shmem_malloc(64);
    uint32_t *out = uvas_malloc(2 * N * 4);
    CHECK(box && quiet_host && quiet_dev && gsrc && counter && out, "allocations: %s",
          uvas_last_error());
    memset(box, 0, N * 4);
    memset(quiet_host, 1, bs);
    memset(quiet_dev, 2, bs);
    memset(out, 0, 2 * N * 4);
    *counter = 0;
    for (uint32_t i = 0; i < N; i++)
        gsrc[i] = (uint32_t)me * 100000u + i;
    CHECK_OK(uvas_migrate(quiet_dev, bs, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(box, N * 4, UVAS_RES_HOST, "the box, written by the CPU");
    shmem_barrier_all();

    /* 1: PE 1's kernels put into PE 0's box until PE 0 saw it move. */
    if (me == 1) {
        struct args a = {(uintptr_t)box, (uintptr_t)gsrc, (uintptr_t)counter, (uintptr_t)out,
                         N, 0, 1, 0};
        unsigned launches = 0;
        while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
            int rc = uvas_kernel_launch(k, (uint32_t[3]){N / 64, 1, 1}, &a, sizeof a, 0);
            CHECK(rc == UVAS_OK, "PE 1's launch: %s", uvas_last_error());
            launches++;
        }
        printf("PE 1: %u launches put into PE 0's box\n", launches);
    } else {
        await(box, UVAS_RES_DEVICE, "PE 1's kernels took the box to the device");
        size_t bi = (size_t)((char *)box - (char *)rd.base) / bs;
        CHECK(uvas_policy_peer_kernel_accesses(bi, 1) >= 2, "PE 1's kernels' accesses: %u",
              uvas_policy_peer_kernel_accesses(bi, 1));
        CHECK(residence(quiet_host) == UVAS_RES_HOST, "a host block nobody reached moved");
    }
    shmem_barrier_all();
    __atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
    shmem_barrier_all();

    /* 2: PE 1's CPU puts into the box, now on the device. */
    uint32_t last = 0;
    if (me == 1) {
        while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
            last++;
            shmem_putmem(box, &last, sizeof last, 0);
            shmem_quiet();
            usleep(100);
        }
        last = 0xfeedu;
        shmem_putmem(box, &last, sizeof last, 0);
        shmem_quiet();
    } else {
        await(box, UVAS_RES_HOST, "PE 1's CPU brought the box back to the host");
        CHECK(residence(quiet_dev) == UVAS_RES_DEVICE, "a device block nobody reached moved");
    }
    shmem_barrier_all();

    /* 3: nothing lost. */
    if (me == 0) {
        CHECK(box[0] == 0xfeedu, "the box's first word is %#x, PE 1's last put %#x", box[0],
              0xfeedu);
        for (uint32_t i = 1; i < N; i++)
            CHECK(box[i] == 100000u + i, "box[%u] = %u, PE 1's kernels put %u", i, box[i],
                  100000u + i);
        printf("PE 0: the box moved by its peer's kernels and then its CPU, nothing lost\n");
    }
    shmem_barrier_all();
    uvas_kernel_free(k);
    uvas_free(out);
    shmem_free(counter);
    shmem_free(gsrc);
    shmem_free(quiet_dev);
    shmem_free(quiet_host);
    shmem_free(box);
    shmem_finalize();
    return 0;
}
