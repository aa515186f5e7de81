/*
 * A kernel that pins a lease on another PE's block and never lets go (an
 * add without its release: a kernel set on harm, or a broken one). Before,
 * every later end of that lease during a run waited its bound (5 s) for
 * the pin and warned, however well the later kernels behaved, each time
 * the owner moved the block. Now the run's end finds the pin left behind
 * (no kernel is inside an entry then), says so once, and later ends wait
 * only for the kernels after it. Under mpirun -np 2 (alone it skips): PE
 * 0's kernels use PE 1's box; PE 1 moves the box to and fro while PE 0's
 * later runs hold the lease, until one of them has had it taken back
 * (kernel_peer_revokes). PE 0 counts its warnings (its stderr to a file).
 */
#include <fcntl.h>
#include <pthread.h>
#include <shmem.h>
#include <unistd.h>

#include "check.h"

struct args {
    uint64_t box, out;
    uint32_t phase, pad;
};

#define GROUPS 8192 /* phase 1: a run of 512 Ki invocations */

static uvas_kernel_t *k;
static struct args A;
static uint32_t *box;
static int stop_moving; /* symmetric: PE 0 sets PE 1's */

static void launch(uint32_t phase)
{
    A.phase = phase;
    CHECK_OK(uvas_kernel_launch(k, (uint32_t[3]){phase ? GROUPS : 1, 1, 1}, &A, sizeof A, 0));
}

/* PE 1: the owner moves its box to and fro, taking back PE 0's lease. */
static void *mover(void *arg)
{
    (void)arg;
    for (unsigned n = 0; !__atomic_load_n(&stop_moving, __ATOMIC_ACQUIRE); n++) {
        int rc = uvas_migrate(box, 4096, n % 2 ? UVAS_LOC_DEVICE : UVAS_LOC_HOST, 0);
        CHECK(rc == UVAS_OK || rc == UVAS_ERR_NOMEM, "moving the box: %s", uvas_last_error());
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    return NULL;
}

/* Lines of the file at path holding what. */
static int count_lines(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "%s: %s", path, strerror(errno));
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, what) != NULL;
    fclose(f);
    return n;
}

int main(void)
{
    tu_watchdog(100);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    tu_tsan_base();
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    if (np != 2) {
        shmem_finalize();
        SKIP("needs 2 PEs (mpirun -np 2): a kernel of PE 0 leases PE 1's memory");
    }
    if (!shmemx_device_present()) {
        shmem_finalize();
        SKIP("no device tier here: there is no device memory to lend");
    }
    k = tu_kernel("lease-stuck");
    box = shmem_malloc(4096);
    uint32_t *out = uvas_malloc(4 * (GROUPS * 64 + 1));
    CHECK(box && out, "allocations: %s", uvas_last_error());
    memset(box, 0, 4096);
    memset(out, 0, 4 * (GROUPS * 64 + 1));
    CHECK_OK(uvas_migrate(box, 4096, UVAS_LOC_DEVICE, 0));
    A = (struct args){(uintptr_t)box, (uintptr_t)out, 0, 0};
    char log[64];
    snprintf(log, sizeof log, "/tmp/uvas-lease-stuck.%d", (int)getpid());
    int saved = -1;
    if (me == 0) { /* the warnings to a file, to be counted */
        fflush(stderr);
        saved = dup(2);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        CHECK(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2, "%s: %s", log, strerror(errno));
        close(fd);
    }
    shmem_barrier_all();

    if (me == 0) {
        launch(0);
        CHECK_EQ(((volatile uint32_t *)out)[0], 1, "phase 0 pinned its launch's lease on PE "
                 "1's box (else the launch was not lent the block: nothing is tested)");
    }
    shmem_barrier_all();
    pthread_t th;
    if (me == 1)
        CHECK(pthread_create(&th, NULL, mover, NULL) == 0, "pthread_create");
    uint64_t revokes = 0;
    int runs = 0;
    if (me == 0) {
        /* Runs holding the lease until the owner took it back during one. */
        uint64_t r0 = tu_stats().kernel_peer_revokes;
        double t0 = tu_now_s();
        for (; revokes == 0 && tu_now_s() - t0 < 60; runs++) {
            launch(1);
            revokes = tu_stats().kernel_peer_revokes - r0;
        }
        shmem_int_atomic_set(&stop_moving, 1, 1);
    }
    if (me == 1)
        pthread_join(th, NULL);
    shmem_barrier_all();
    if (me == 0) {
        fflush(stderr);
        dup2(saved, 2); /* what it said, said again where the test's output goes */
        close(saved);
        FILE *f = fopen(log, "r");
        for (int c; f && (c = fgetc(f)) != EOF;)
            fputc(c, stderr);
        if (f)
            fclose(f);
        int left = count_lines(log, "did not let go"), held = count_lines(log, "has held");
        unlink(log);
        CHECK(revokes > 0, "in %d runs, PE 1 never took the lease back while one ran: nothing "
              "is tested", runs);
        CHECK(left == 1, "the pin left behind by phase 0 was reported %d times at its run's "
              "end (once wanted)", left);
        CHECK(held == 0, "a later end of the lease waited its bound for the pin left behind "
              "(%d times), %llu leases taken back in %d runs", held,
              (unsigned long long)revokes, runs);
        printf("test-gpu-lease-stuck: a pin left behind reported at its run's end; %llu leases "
               "taken back during %d later runs without waiting for it: ok\n",
               (unsigned long long)revokes, runs);
    }
    shmem_finalize();
    return 0;
}
