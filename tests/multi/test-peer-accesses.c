/*
 * Other PEs' RMA, counted per initiating PE for the policies
 * (uvas_policy_peer_accesses, the view's peer_accesses and peer_top):
 *  - every PE p > 0 makes 10p puts, p gets and p fetch-adds of 8 bytes on
 *    block A of PE 0's array, and one 16-byte put across the boundary of
 *    A and B: PE 0 counts 12p + 1 on A and 1 on B for PE p, none for
 *    itself, and the view sums them and names the last PE as the top one;
 *    none of them is a kernel's (tests/gpu/test-gpu-shmem-direct.c counts
 *    those);
 *  - the same puts to A once PE 0 moved it to the device (the direct path
 *    into device memory, or a message PE 0 serves) count too;
 *  - uvas-stat's "accesses" answer shows them on A's line;
 *  - with UVAS_TRANSPORT=ucx and UVAS_UCX_RMA_MIN, puts of that size by
 *    ucp RMA count as the network's (uvas_policy_network_accesses);
 *  - a block freed and allocated again counts from zero, its generation
 *    one more;
 *  - with UVAS_PEER_COUNTS=0 (and a policy that does not ask for them)
 *    nothing is counted (the peer-accesses-off run).
 * It sets UVAS_PEER_COUNTS=1 unless the run says 0.
 * Through the node's windows the initiator counts; with UVAS_TRANSPORT=ucx
 * these small calls are messages PE 0 serves and counts: both exact here
 * (one thread a PE).
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "migrate/policy.h"
#include "uvas/config.h"
#include "tests/check.h"
#include "tests/multi/pes.h"
#include "uvas_policy.h"

static struct uvas_range_desc range;

static size_t block_of(const void *p)
{
    return (size_t)((const char *)p - (const char *)range.base) / range.block_size;
}

/* The line of this process's "accesses" answer (the uvas-stat endpoint)
 * for block bi, into line. */
static void stat_line(size_t bi, char *line, size_t len)
{
    struct sockaddr_un ep;
    socklen_t epl;
    CHECK(tu_stat_endpoint(getpid(), getuid(), &ep, &epl), "no stat endpoint of this process");
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&ep, epl) == 0, "connect: %s",
          strerror(errno));
    CHECK(send(fd, "accesses", 8, MSG_NOSIGNAL) == 8, "send: %s", strerror(errno));
    shutdown(fd, SHUT_WR);
    FILE *f = fdopen(fd, "r");
    CHECK(f != NULL, "fdopen");
    char want[64], buf[512];
    snprintf(want, sizeof want, "block %zu ", bi);
    line[0] = 0;
    while (fgets(buf, sizeof buf, f))
        if (!strncmp(buf, want, strlen(want)))
            snprintf(line, len, "%s", buf);
    fclose(f);
    CHECK(line[0], "no line for block %zu in the accesses answer", bi);
}

/* PE p's rounds_per_pe * p puts to A, then a barrier. */
static void access_from_peers(char *arr, int me, int rounds_per_pe)
{
    if (me > 0) {
        long v = me;
        for (int i = 0; i < rounds_per_pe * me; i++)
            shmem_putmem(arr + 64 + 8 * (size_t)me, &v, sizeof v, 0);
        shmem_quiet();
    }
    shmem_barrier_all();
}

/* With UVAS_TRANSPORT=ucx and UVAS_UCX_RMA_MIN set, puts and gets of that
 * size go by ucp RMA on A (host-resident): PE p's p puts and one get count
 * as the network's, together, and in the view's sum; not as PE p's. */
static void network_rma(char *arr, size_t a, int me, int n, bool on)
{
    const char *t = getenv("UVAS_TRANSPORT"), *m = getenv("UVAS_UCX_RMA_MIN");
    size_t len = 0;
    if (m && uvas_parse_size(m, &len))
        len = 0;
    if (!t || strcmp(t, "ucx") || !len || 1024 + len > range.block_size) {
        if (me == 0)
            printf("PE 0: no ucp RMA in this run (UVAS_TRANSPORT=ucx and UVAS_UCX_RMA_MIN "
                   "of at most %zu bytes needed); network counts not tried\n",
                   range.block_size - 1024);
        CHECK(me != 0 || uvas_policy_network_accesses(a) == 0, "network accesses of A "
              "without ucp RMA: %u", uvas_policy_network_accesses(a));
        return;
    }
    uint32_t before[64] = {0};
    if (me == 0)
        for (int p = 0; p < n && p < 64; p++)
            before[p] = uvas_policy_peer_accesses(a, p);
    shmem_barrier_all();
    if (me > 0) {
        char *src = malloc(len);
        CHECK(src != NULL, "malloc");
        memset(src, me, len);
        for (int i = 0; i < me; i++)
            shmem_putmem(arr + 1024, src, len, 0);
        shmem_getmem(src, arr + 1024, len, 0); /* its count lands by the quiet */
        shmem_quiet();
        free(src);
    }
    shmem_barrier_all();
    if (me == 0) {
        uint32_t want = on ? (uint32_t)(n * (n - 1) / 2 + n - 1) : 0, sum = 0;
        CHECK(uvas_policy_network_accesses(a) == want, "%zu-byte puts and gets by ucp RMA "
              "on A: %u "
              "counted over the network, expected %u", len, uvas_policy_network_accesses(a),
              want);
        for (int p = 0; p < n && p < 64; p++) {
            uint32_t got = uvas_policy_peer_accesses(a, p);
            CHECK(got == before[p], "PE %d's own count of A moved by %u with ucp RMA", p,
                  got - before[p]);
            sum += got;
        }
        struct uvas_block_view v;
        uvas_policy_view(a, &v);
        CHECK(v.peer_accesses == sum + want, "the view of A sums %u, the PEs and the network "
              "%u", v.peer_accesses, sum + want);
        if (on) {
            char line[512], net[64];
            stat_line(a, line, sizeof line);
            snprintf(net, sizeof net, "; over the network %u)", want);
            CHECK(strstr(line, net) != NULL, "uvas-stat's line for A: %s(wanted %s)", line,
                  net);
        }
        printf("PE 0: %u ucp RMA puts and gets of %zu bytes on A counted over the network\n",
               want, len);
    }
    shmem_barrier_all();
}

int main(void)
{
    tu_deadline(100);
    const char *env = getenv("UVAS_PEER_COUNTS");
    bool on = !env || strcmp(env, "0");
    setenv("UVAS_PEER_COUNTS", on ? "1" : "0", 1);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    tu_need_pes(2);
    CHECK_OK(uvas_range(&range));
    size_t bs = range.block_size;
    char *arr = shmem_align(bs, 2 * bs);
    CHECK(arr != NULL, "shmem_align");
    memset(arr, 0, 2 * bs);
    shmem_barrier_all();

    if (me > 0) {
        long v = me, got;
        for (int i = 0; i < 10 * me; i++)
            shmem_putmem(arr + 8 * (size_t)me, &v, sizeof v, 0);
        for (int i = 0; i < me; i++)
            shmem_getmem(&got, arr + 8 * (size_t)me, sizeof got, 0);
        for (int i = 0; i < me; i++)
            (void)shmem_long_atomic_fetch_add((long *)(void *)(arr + 8 * (size_t)(n + me)), 1, 0);
        char across[16] = {0};
        shmem_putmem(arr + bs - 8, across, sizeof across, 0);
        shmem_quiet();
    }
    shmem_barrier_all();
    size_t a = block_of(arr), b = a + 1;
    if (me == 0) {
        uint32_t sum = 0;
        for (int p = 0; p < n; p++) {
            uint32_t want_a = p && on ? 12u * (uint32_t)p + 1 : 0, want_b = p && on ? 1 : 0;
            uint32_t got_a = uvas_policy_peer_accesses(a, p);
            uint32_t got_b = uvas_policy_peer_accesses(b, p);
            CHECK(got_a == want_a, "PE %d's accesses of block A: %u, expected %u", p, got_a,
                  want_a);
            CHECK(got_b == want_b, "PE %d's accesses of block B: %u, expected %u", p, got_b,
                  want_b);
            sum += got_a;
        }
        struct uvas_block_view v;
        uvas_policy_view(a, &v);
        CHECK(v.peer_accesses == sum, "the view of A sums %u, the PEs %u", v.peer_accesses,
              sum);
        CHECK(v.peer_top == (on ? n - 1 : -1), "the view names PE %d as the top one, "
              "expected %d", v.peer_top, on ? n - 1 : -1);
        CHECK(uvas_policy_peer_accesses(a, n) == 0 && uvas_policy_peer_accesses(a, -1) == 0,
              "a PE out of range counts nothing");
        /* The CPUs made them all: none is the kernels'. */
        CHECK(v.peer_kernel_accesses == 0, "the view of A counts %u by kernels, none ran",
              v.peer_kernel_accesses);
        for (int p = 0; p < n; p++)
            CHECK(uvas_policy_peer_kernel_accesses(a, p) == 0,
                  "PE %d's kernels' accesses of A: %u, none ran", p,
                  uvas_policy_peer_kernel_accesses(a, p));
        if (on) {
            char line[512], want[64];
            stat_line(a, line, sizeof line);
            snprintf(want, sizeof want, "(kernels 0; most: PE %d, %u)", n - 1,
                     12u * (unsigned)(n - 1) + 1);
            CHECK(strstr(line, want) != NULL, "uvas-stat's line for A: %s(wanted %s)", line,
                  want);
        }
        const long *w = (const long *)(void *)arr;
        for (int p = 1; p < n; p++)
            CHECK(w[p] == p && w[n + p] == p, "PE %d's put and adds left %ld and %ld", p, w[p],
                  w[n + p]);
    }
    shmem_barrier_all();
    network_rma(arr, a, me, n, on);

    /* Block A on the device: the same puts count, by whichever path. */
    bool device = shmemx_device_present();
    uint32_t was[64] = {0};
    if (device && me == 0) {
        CHECK_OK(uvas_migrate(arr, bs, UVAS_LOC_DEVICE, 0));
        for (int p = 0; p < n && p < 64; p++)
            was[p] = uvas_policy_peer_accesses(a, p);
    }
    shmem_barrier_all();
    if (device) {
        access_from_peers(arr, me, 3);
        if (me == 0)
            for (int p = 1; p < n && p < 64; p++) {
                uint32_t got = uvas_policy_peer_accesses(a, p) - was[p];
                uint32_t want = on ? 3u * (uint32_t)p : 0;
                CHECK(got == want, "PE %d's puts to A on the device: %u counted, expected %u", p,
                      got, want);
            }
        shmem_barrier_all();
    }

    /* Freed: its blocks count from zero, and so does a new allocation;
     * their generation moves on (the policies' per-block memory of A is
     * stale from now on). */
    struct uvas_block_view before[2];
    for (size_t k = 0; k < 2; k++)
        uvas_policy_view(a + k, &before[k]);
    shmem_free(arr);
    char *again = shmem_align(bs, 2 * bs);
    CHECK(again != NULL, "shmem_align");
    for (size_t k = 0; k < 2; k++) {
        struct uvas_block_view after;
        uvas_policy_view(a + k, &after);
        CHECK(after.generation == before[k].generation + 1,
              "block %zu's generation %u after its allocation's free, was %u", a + k,
              after.generation, before[k].generation);
    }
    if (me == 0) {
        size_t a2 = block_of(again);
        for (int p = 0; p < n; p++)
            for (size_t k = 0; k < 2; k++) {
                CHECK(uvas_policy_peer_accesses(a + k, p) == 0,
                      "PE %d's count of freed block %zu: %u", p, a + k,
                      uvas_policy_peer_accesses(a + k, p));
                CHECK(uvas_policy_peer_accesses(a2 + k, p) == 0,
                      "PE %d's count of fresh block %zu: %u", p, a2 + k,
                      uvas_policy_peer_accesses(a2 + k, p));
            }
    }
    shmem_barrier_all();
    shmem_free(again);
    if (me == 0)
        printf("PE 0: accesses of %d peers %s (host%s)\n", n - 1,
               on ? "counted per PE, forgotten at free" : "not counted, as asked",
               device ? " and device" : "");
    shmem_finalize();
    return 0;
}
