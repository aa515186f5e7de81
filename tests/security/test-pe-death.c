/*
 * Helper of test-pe-death.sh: PE 1 is killed (SIGKILL) in the middle of
 * work that involves PE 0's memory or PE 1's, and the job must end,
 * promptly and with a message, without PE 0 corrupting its own memory.
 * Run under mpirun with 2 PEs; argv[1] names the case:
 *
 *   put             PE 0 streams large shmem_putmem (8 MiB, four blocks)
 *                   into PE 1's memory; PE 1 is killed after a delay, so
 *                   the kill lands while PE 0 is writing into it.
 *   migrate-remote  PE 1 moves a block array host<->device in a loop
 *                   (uvas_migrate) while PE 0 puts into it; PE 1 is killed
 *                   (most likely in the middle of a migration: PE 0 prints
 *                   the state of PE 1's gates it then sees).
 *   migrate-local   PE 0 moves its own block array host<->device in a loop
 *                   while PE 1 puts whole blocks into it in a tight loop
 *                   (a put holds the target block's pin for most of its
 *                   time); PE 1 is killed, often holding a pin, and PE 0's
 *                   next migration of that block waits for a pin nobody
 *                   will drop. PE 0 prints whether a pin was left.
 *   team-sync       as put, but PE 0 ends in shmem_team_sync of a team
 *                   split from the world (its own counters, not the
 *                   world's barrier): it waited for ever for the dead PE
 *                   (found by review).
 *
 * PE 1 prints "KILL <CLOCK_REALTIME seconds>" just before it raises
 * SIGKILL, so the script can time the end of the job from the kill.
 *
 * PE 0 watches PE 1's pid (kill(pid, 0)). If PE 0 is still running once
 * PE 1 is gone (the launcher did not end the job: mpirun with
 * orte_enable_recovery), it goes on with its work a little (the case's
 * accesses to the dead PE, its own migrations), checks its own memory
 * (private data, and in migrate-local the part of every migrating block
 * PE 1 never wrote) and prints "PE 0: own memory intact", then calls
 * shmem_barrier_all, which must end the job with uvas's message (the dead
 * PE is noticed by the barrier, or by a migration waiting for its pin).
 * Anything printed after that is a line with "NOT-ENDED".
 */
#include <shmem.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "tests/check.h"
#include "transport/pe/job.h"
#include "uvas/gate.h"
#include "uvas/internal.h"

#define NB 4          /* blocks in the array */
#define PRIV (1 << 20) /* PE 0's private bytes, checked after the death */
#define SENT (64 << 10) /* migrate-local: PE 0's sentinel at the start of each block */

static size_t blk;
static unsigned char *arr;   /* NB blocks, symmetric */
static unsigned char *priv;  /* PRIV bytes, symmetric, nobody else writes */
static atomic_int stop;
static atomic_ulong migs, mig_errs;
static unsigned mig_pause_us; /* between migrations: lets peers pin open gates */

static double now_mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now_real(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned char pat(size_t i, unsigned salt)
{
    return (unsigned char)((i * 131 + (i >> 9) + salt * 7) | 1);
}

static void *migrator(void *arg)
{
    (void)arg;
    for (unsigned long i = 0; !atomic_load(&stop); i++) {
        const void *p = arr;
        size_t n = (size_t)NB * blk;
        if (i % 3 == 2) {
            p = arr + (i / 3 % NB) * blk;
            n = blk;
        }
        int st = uvas_migrate(p, n, i % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE, 0);
        atomic_fetch_add(&migs, 1);
        if (st)
            atomic_fetch_add(&mig_errs, 1);
        if (mig_pause_us)
            usleep(mig_pause_us);
    }
    return NULL;
}

/* PE 1's end: a random delay, the time stamp, SIGKILL. */
static void *killer(void *arg)
{
    double delay = *(double *)arg;
    usleep((useconds_t)(delay * 1e6));
    printf("KILL %.6f (PE 1, pid %d, after %.2f s)\n", now_real(), (int)getpid(), delay);
    fflush(stdout);
    raise(SIGKILL);
    return NULL;
}

static bool pe1_gone(pid_t pid)
{
    return kill(pid, 0) < 0 && errno == ESRCH;
}

static void check_own(const char *mode)
{
    long bad = -1;
    for (size_t i = 0; i < PRIV && bad < 0; i++)
        if (priv[i] != pat(i, 3))
            bad = (long)i;
    if (bad >= 0) {
        printf("PE 0: CORRUPT: private byte %ld is %#x, expected %#x\n", bad, priv[bad],
               pat((size_t)bad, 3));
        fflush(stdout);
        _exit(1);
    }
    if (!strcmp(mode, "migrate-local")) {
        for (int b = 0; b < NB; b++)
            for (size_t i = 0; i < SENT; i++)
                if (arr[(size_t)b * blk + i] != pat(i, (unsigned)b)) {
                    printf("PE 0: CORRUPT: sentinel byte %zu of block %d is %#x, expected "
                           "%#x\n", i, b, arr[(size_t)b * blk + i], pat(i, (unsigned)b));
                    fflush(stdout);
                    _exit(1);
                }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s put|migrate-remote|migrate-local [kill-delay-s]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    double delay = argc > 2 ? atof(argv[2]) : 1.0;
    unsetenv("UVAS_SHMEM_ERRORS");
    unsetenv("SHMEM_SYMMETRIC_HEAP_DEFAULT"); /* unified heap: blocks may move */
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n != 2) {
        printf("SKIP: needs exactly 2 PEs\n");
        shmem_finalize();
        return 77;
    }
    bool migrating = strcmp(mode, "put") != 0 && strcmp(mode, "team-sync") != 0;
    if (migrating && shmemx_device_present() != 1) {
        printf("SKIP: no device tier: nothing to migrate\n");
        shmem_finalize();
        return 77;
    }
    bool team_case = !strcmp(mode, "team-sync");
    if (strcmp(mode, "put") && strcmp(mode, "migrate-remote") && strcmp(mode, "migrate-local") &&
        !team_case) {
        fprintf(stderr, "unknown case %s\n", mode);
        shmem_global_exit(2);
    }
    blk = tu_range().block_size;
    arr = shmem_malloc((size_t)NB * blk);
    priv = shmem_malloc(PRIV);
    CHECK(arr && priv, "shmem_malloc");
    CHECK((uintptr_t)arr % blk == 0, "the array is not block-aligned");
    for (size_t i = 0; i < PRIV; i++)
        priv[i] = pat(i, 3);
    for (int b = 0; b < NB; b++)
        for (size_t i = 0; i < blk; i++)
            arr[(size_t)b * blk + i] = pat(i, (unsigned)b);
    /* a local source for PE 0's (or PE 1's) puts */
    size_t srclen = (size_t)NB * blk;
    unsigned char *src = malloc(srclen);
    CHECK(src != NULL, "malloc");
    for (size_t i = 0; i < srclen; i++)
        src[i] = pat(i, 9);
    shmem_team_t team = SHMEM_TEAM_INVALID;
    if (team_case)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 2, NULL, 0, &team) == 0 &&
                  team != SHMEM_TEAM_INVALID,
              "shmem_team_split_strided");
    pid_t pid1 = uvas_job.peers[1].pid;
    printf("PE %d of %d: started (%s, blocks of %zu KiB, PE 1 pid %d)\n", me, n, mode,
           blk >> 10, (int)pid1);
    fflush(stdout);
    shmem_barrier_all();

    pthread_t mth, kth;
    bool mig_here = (me == 1 && !strcmp(mode, "migrate-remote")) ||
                    (me == 0 && !strcmp(mode, "migrate-local"));
    /* migrate-local: PE 1's puts should find PE 0's gates open (and pin
     * them) most of the time, so its death often leaves a pin behind. */
    mig_pause_us = !strcmp(mode, "migrate-local") ? 3000 : 0;
    if (mig_here)
        CHECK(pthread_create(&mth, NULL, migrator, NULL) == 0, "pthread_create");

    if (me == 1) {
        CHECK(pthread_create(&kth, NULL, killer, &delay) == 0, "pthread_create");
        if (!strcmp(mode, "migrate-local")) {
            /* Whole blocks past PE 0's sentinel, as fast as it goes. */
            for (unsigned long k = 0;; k++) {
                int b = (int)(k % NB);
                shmem_putmem(arr + (size_t)b * blk + SENT, src, blk - SENT, 0);
            }
        }
        for (;;) /* the migrator (migrate-remote) or nothing (put) works */
            pause();
    }

    /* PE 0 */
    unsigned long puts = 0, after = 0;
    double t_gone = 0;
    bool gone = false;
    if (!strcmp(mode, "migrate-local")) {
        while (!pe1_gone(pid1))
            usleep(1000);
    } else {
        /* Stream puts into PE 1 until it is gone, then 200 ms more. */
        for (;;) {
            shmem_putmem(arr, src, srclen, 1);
            puts++;
            if (!gone && pe1_gone(pid1)) {
                gone = true;
                t_gone = now_mono();
            }
            if (gone) {
                after++;
                if (now_mono() - t_gone > 0.2)
                    break;
            }
        }
    }
    double t_dead = now_real();
    printf("PE 0: PE 1 died (seen at %.6f); %lu puts before, %lu after\n", t_dead,
           puts - after, after);
    /* What PE 0 sees of the dead PE's gates and of its own. */
    for (int b = 0; b < NB; b++) {
        size_t bi = uvas_block_index(arr + (size_t)b * blk);
        const _Atomic uint64_t *g1 = uvas_job.peers[1].gates; /* NULL over UCX */
        uint64_t wr = g1 ? atomic_load(&g1[bi]) : 0;
        uint64_t wl = atomic_load(&uvas_g.gates[bi]);
        uint64_t pl = uvas_gate_pins_held(bi);
        printf("  block %d: PE 1's gate %s; PE 0's gate %s, %llu pins\n", b,
               !g1 ? "(no window)" : wr & UVAS_GATE_CLOSED ? "CLOSED (in a transition)" : "open",
               wl & UVAS_GATE_CLOSED ? "CLOSED" : "open", (unsigned long long)pl);
        if (!strcmp(mode, "migrate-local") && pl)
            printf("PIN-LEFT: PE 1 died holding a pin on PE 0's block %d\n", b);
    }
    fflush(stdout);
    check_own("put"); /* the private bytes: not migrating, checked now */
    printf("PE 0: private memory intact\n");
    fflush(stdout);
    if (mig_here) {
        /* Our own migrations go on a while (one of them may wait for the
         * dead PE's pin: uvas must end the job then). */
        unsigned long m0 = atomic_load(&migs);
        usleep(1000 * 1000);
        atomic_store(&stop, 1);
        pthread_join(mth, NULL);
        printf("PE 0: %lu migrations after the death (%lu failed in all)\n",
               atomic_load(&migs) - m0, atomic_load(&mig_errs));
    }
    check_own(mode);
    printf("PE 0: own memory intact\n");
    fflush(stdout);
    if (team_case) {
        shmem_team_sync(team);
        printf("NOT-ENDED: PE 0 passed a team's sync with PE 1 dead\n");
        fflush(stdout);
    }
    shmem_barrier_all();
    printf("NOT-ENDED: PE 0 passed a barrier with PE 1 dead\n");
    fflush(stdout);
    shmem_finalize();
    return 0;
}
