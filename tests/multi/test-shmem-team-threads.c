/*
 * Teams made and used by two threads of each PE at once (SHMEM_THREAD_
 * MULTIPLE: collectives on different teams may run concurrently). Round
 * after round, thread A splits the world while thread B splits a team of
 * the same PEs (`twin`); the two new teams have every PE in common, so they
 * must get different sync slots (a shared slot's counters let one team's
 * barrier pass on the other's arrivals). Then each thread checks its
 * team's barrier (every member's put seen after it, none of the next
 * round's before the second), collect (members' counts differ per
 * team, so a count word shared between teams gathers the wrong blocks)
 * and a reduction large enough to be split among the members (both
 * threads in the library's scratch buffers and their teams' words at
 * once), and both destroy their teams at once (the team registry changes
 * under two threads).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "shmem.h"
#include "transport/shmem/internal.h"

#define ROUNDS 12
#define SYNCS 10
#define MAXPE 16

static int me, npes;
static shmem_team_t twin;
static pthread_barrier_t start;
static long seen[2][MAXPE];       /* symmetric: member j's round marker, per thread */
static long csrc[2][4 * MAXPE], cdst[2][4 * MAXPE * MAXPE];
static shmem_team_t made[2];
#define RN 12000 /* longs: 94 KiB, over the size from which a reduction is split */
static long rsrc[2][RN], rdst[2][RN];

static void sync_check(int w, shmem_team_t t)
{
    for (long i = 1; i <= SYNCS; i++) {
        for (int j = 0; j < npes; j++)
            shmem_long_p(&seen[w][me], i, shmem_team_translate_pe(t, j, SHMEM_TEAM_WORLD));
        shmem_quiet();
        CHECK(shmem_team_sync(t) == 0, "shmem_team_sync");
        for (int j = 0; j < npes; j++) {
            long v = __atomic_load_n(&seen[w][j], __ATOMIC_ACQUIRE);
            CHECK(v == i, "thread %c: after sync %ld of its team, member %d's put read %ld: the "
                  "barrier passed before every member arrived", 'A' + w, i, j, v);
        }
        CHECK(shmem_team_sync(t) == 0, "shmem_team_sync");
    }
}

/* Thread w's members put (w + 1) * (rank + 1) elements each. */
static void collect_check(int w, shmem_team_t t)
{
    int r = shmem_team_my_pe(t);
    size_t mine = (size_t)(w + 1) * (size_t)(r + 1);
    for (size_t i = 0; i < mine; i++)
        csrc[w][i] = 1000L * r + (long)i;
    memset(cdst[w], 0xff, sizeof cdst[w]);
    CHECK(shmem_long_collect(t, cdst[w], csrc[w], mine) == 0, "shmem_long_collect");
    size_t at = 0;
    for (int k = 0; k < npes; k++) {
        size_t n = (size_t)(w + 1) * (size_t)(k + 1);
        for (size_t i = 0; i < n; i++, at++)
            CHECK(cdst[w][at] == 1000L * k + (long)i, "thread %c: collect's element %zu "
                  "(member %d's %zu) is %ld: the counts of another team's collect were read",
                  'A' + w, at, k, i, cdst[w][at]);
    }
}

/* Thread w's team sums member r's (w + 1) * (i + r) over its members. */
static void reduce_check(int w, shmem_team_t t, int round)
{
    int r = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    for (long i = 0; i < RN; i++)
        rsrc[w][i] = (w + 1) * (i + r) + round;
    CHECK(shmem_long_sum_reduce(t, rdst[w], rsrc[w], RN) == 0, "shmem_long_sum_reduce");
    for (long i = 0; i < RN; i++) {
        long want = (w + 1) * (n * i + (long)n * (n - 1) / 2) + (long)n * round;
        CHECK(rdst[w][i] == want, "thread %c, round %d: the sum's element %ld is %ld, "
              "expected %ld", 'A' + w, round, i, rdst[w][i], want);
    }
}

static void *worker(void *arg)
{
    int w = (int)(intptr_t)arg;
    shmem_team_t parent = w == 0 ? SHMEM_TEAM_WORLD : twin;
    for (int round = 0; round < ROUNDS; round++) {
        pthread_barrier_wait(&start);
        CHECK(shmem_team_split_strided(parent, 0, 1, npes, NULL, 0, &made[w]) == 0,
              "thread %c: split, round %d", 'A' + w, round);
        pthread_barrier_wait(&start);
        if (w == 0) { /* both teams exist here: their slots */
            struct uvas_shmem_team *a = uvas_shmem_team_find(made[0]),
                                   *b = uvas_shmem_team_find(made[1]),
                                   *d = uvas_shmem_team_find(twin);
            CHECK(a && b && d, "the teams made are found");
            CHECK(a->slot != b->slot && a->slot != d->slot && b->slot != d->slot,
                  "round %d: teams with common members share a sync slot (%d, %d; twin %d)",
                  round, a->slot, b->slot, d->slot);
        }
        pthread_barrier_wait(&start);
        sync_check(w, made[w]);
        collect_check(w, made[w]);
        pthread_barrier_wait(&start); /* the two reductions at once */
        for (int k = 0; k < 3; k++)
            reduce_check(w, made[w], round * 3 + k);
        shmem_team_destroy(made[w]);
    }
    return NULL;
}

int main(void)
{
    tu_deadline(100);
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes < 2 || npes > MAXPE) {
        shmem_finalize();
        SKIP("needs 2 to %d PEs, has %d: run under mpirun -np 2", MAXPE, npes);
    }
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &twin) == 0,
          "split the world's copy");
    CHECK(pthread_barrier_init(&start, NULL, 2) == 0, "pthread_barrier_init");
    pthread_t th[2];
    for (int w = 0; w < 2; w++)
        CHECK(pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w) == 0, "pthread_create");
    for (int w = 0; w < 2; w++)
        pthread_join(th[w], NULL);
    shmem_team_destroy(twin);
    shmem_barrier_all();
    if (me == 0)
        printf("test-shmem-team-threads: %d rounds of two threads splitting, syncing, "
               "collecting, reducing and destroying teams of the same PEs at once: ok\n", ROUNDS);
    shmem_finalize();
    return 0;
}
