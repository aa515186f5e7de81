/*
 * globals-bench: what reaching a peer's global variable costs, by each
 * mechanism that could carry it on one node, in one run (issue 16 asks the
 * mechanism be chosen by measurement):
 *   - uvas's active message (the owner checks the segment offset and
 *     copies): shmem_long_p / shmem_long_g / shmem_putmem to a global;
 *   - cross-memory attach (process_vm_writev / process_vm_readv to the
 *     peer's address of the same variable), which needs ptrace permission
 *     over the peer (refused under Yama ptrace_scope >= 1 between sibling
 *     PEs, and in containers without CAP_SYS_PTRACE): reported, not
 *     assumed;
 *   - beside them, the same operations on the host heap, whose peers'
 *     windows are mapped (a store), as the floor any mechanism would aim at.
 * PE 0 measures against PE 1; median of batches, microseconds per call.
 * The active-message rows run with UVAS_SEG_CMA=0 (set here), so that they
 * measure the message whatever the dispatch would choose; puts at 8 B to
 * 4 KiB give the size from which UVAS_SEG_CMA_PUT_MIN sends puts by
 * cross-memory attach.
 * usage: mpirun -np 2 globals-bench [-n ITERS]
 */

#include <errno.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static long g_word;
static char g_buf[65536];
static uintptr_t peer_addr[2]; /* the peer's &g_word, &g_buf */
static long peer_pid;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define BATCHES 9
typedef void (*op_fn)(int iters);
static double measure(op_fn f, int iters)
{
    double t[BATCHES];
    f(iters / 10); /* warm */
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_us();
        f(iters);
        t[b] = (now_us() - t0) / iters;
    }
    qsort(t, BATCHES, sizeof t[0], cmp);
    return t[BATCHES / 2];
}

static long *heap_word;
static char *heap_buf;
static char local[65536];

static void am_p(int n) { for (int i = 0; i < n; i++) shmem_long_p(&g_word, i, 1); shmem_quiet(); }
static void am_g(int n) { long s = 0; for (int i = 0; i < n; i++) s += shmem_long_g(&g_word, 1); (void)s; }
static void am_put4k(int n) { for (int i = 0; i < n; i++) shmem_putmem(g_buf, local, 4096, 1); shmem_quiet(); }
static size_t put_len;
static void am_putn(int n) { for (int i = 0; i < n; i++) shmem_putmem(g_buf, local, put_len, 1); shmem_quiet(); }
static void heap_p(int n) { for (int i = 0; i < n; i++) shmem_long_p(heap_word, i, 1); shmem_quiet(); }
static void heap_g(int n) { long s = 0; for (int i = 0; i < n; i++) s += shmem_long_g(heap_word, 1); (void)s; }
static void heap_put4k(int n) { for (int i = 0; i < n; i++) shmem_putmem(heap_buf, local, 4096, 1); shmem_quiet(); }

static int cma_ok = 1;
static void cma_write(size_t len, uintptr_t at, int n)
{
    for (int i = 0; i < n && cma_ok; i++) {
        struct iovec l = {local, len}, r = {(void *)at, len};
        if (process_vm_writev((pid_t)peer_pid, &l, 1, &r, 1, 0) != (ssize_t)len)
            cma_ok = 0;
    }
}
static void cma_p(int n) { cma_write(sizeof(long), peer_addr[0], n); }
static void cma_put4k(int n) { cma_write(4096, peer_addr[1], n); }
static void cma_putn(int n) { cma_write(put_len, peer_addr[1], n); }
static void cma_g(int n)
{
    for (int i = 0; i < n && cma_ok; i++) {
        long v;
        struct iovec l = {&v, sizeof v}, r = {(void *)peer_addr[0], sizeof v};
        if (process_vm_readv((pid_t)peer_pid, &l, 1, &r, 1, 0) != sizeof v)
            cma_ok = 0;
    }
}

int main(int argc, char **argv)
{
    int iters = 20000;
    if (argc > 2 && !strcmp(argv[1], "-n"))
        iters = atoi(argv[2]);
    setenv("UVAS_SEG_CMA", "0", 1);
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        fprintf(stderr, "globals-bench: run with mpirun -np 2\n");
        return 2;
    }
    heap_word = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_HOST_HEAP);
    heap_buf = shmem_malloc_with_hints(65536, SHMEM_MALLOC_HOST_HEAP);
    if (me == 1) { /* tell PE 0 where its globals are and who it is */
        uintptr_t a[2] = {(uintptr_t)&g_word, (uintptr_t)g_buf};
        shmem_putmem(peer_addr, a, sizeof a, 0);
        shmem_long_p(&peer_pid, (long)getpid(), 0);
    }
    shmem_barrier_all();
    if (me == 0) {
        double r[3][3] = {{measure(heap_p, iters), measure(heap_g, iters),
                           measure(heap_put4k, iters / 4)},
                          {measure(am_p, iters), measure(am_g, iters),
                           measure(am_put4k, iters / 4)},
                          {0, 0, 0}};
        cma_write(sizeof(long), peer_addr[0], 1);
        int cma_errno = cma_ok ? 0 : errno;
        if (cma_ok) {
            r[2][0] = measure(cma_p, iters);
            r[2][1] = measure(cma_g, iters);
            r[2][2] = measure(cma_put4k, iters / 4);
        }
        printf("globals-bench: microseconds per call, PE 0 -> PE 1 on one node (median of %d)\n",
               BATCHES);
        printf("  %-34s %10s %10s %10s\n", "mechanism", "p 8 B", "g 8 B", "put 4 KiB");
        const char *names[3] = {"host heap (mapped window, a store)",
                                "global: active message (uvas)",
                                "global: cross-memory attach"};
        for (int i = 0; i < 3; i++) {
            if (i == 2 && !cma_ok) {
                printf("  %-34s refused: %s (ptrace permission over the peer)\n", names[i],
                       strerror(cma_errno));
                continue;
            }
            printf("  %-34s %10.3f %10.3f %10.3f\n", names[i], r[i][0], r[i][1], r[i][2]);
        }
        if (cma_ok) {
            printf("  puts by size (us): %8s %10s %10s\n", "bytes", "message", "cma");
            static const size_t lens[] = {8, 64, 256, 512, 1024, 2048, 4096};
            for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
                put_len = lens[j];
                double am = measure(am_putn, iters / 4), cm = measure(cma_putn, iters / 4);
                printf("                     %8zu %10.3f %10.3f\n", put_len, am, cm);
                printf("metric globals.put%zu.am_us %g\nmetric globals.put%zu.cma_us %g\n",
                       put_len, am, put_len, cm);
            }
        }
        printf("metric globals.am_p_us %g\nmetric globals.am_g_us %g\nmetric globals.am_put4k_us %g\n",
               r[1][0], r[1][1], r[1][2]);
        if (cma_ok)
            printf("metric globals.cma_p_us %g\nmetric globals.cma_g_us %g\n"
                   "metric globals.cma_put4k_us %g\n", r[2][0], r[2][1], r[2][2]);
        printf("metric globals.heap_p_us %g\n", r[0][0]);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
