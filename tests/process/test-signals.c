/*
 * Signals arriving during fault service (docs/fault-path.md, "Process
 * events"). A thread parked in a userfault (a first touch, or a block
 * being migrated) that gets a signal runs its handler and then retries
 * the access: the kernel restarts the fault. Handlers that touch range
 * memory themselves (a block that may be in a migration, and untouched
 * blocks: a nested first touch) are served too. Checked: nothing hangs
 * (a watchdog thread), every counter a writer stored is there, and the
 * handlers' own writes landed.
 *  1. SIGALRM from a 20 kHz timer during a first-touch storm, the
 *     handler touching a fresh untouched block each time.
 *  2. SIGUSR1 sent at a high rate to writer threads that store counters
 *     into blocks migrated back and forth (device tier) or first-touched
 *     (host only); the handler reads and writes range memory.
 */
#include <stdatomic.h>

#include "process/common.h"

#define NW 2
#define HANDLER_BLOCKS 4096

static size_t bs;
static int dev;
static unsigned char *hblocks;         /* untouched blocks for the handlers */
static atomic_uint hnext;              /* next handler block */
static atomic_long hsig;               /* handler runs */
static unsigned char *ublocks;         /* untouched blocks for SIGUSR1 handlers */
static atomic_uint unext;
static unsigned char *shared;          /* blocks the writers and handlers use */
static atomic_int stop;
static volatile long *counters;        /* one counter per writer, in the range */

static void on_alarm(int sig)
{
    (void)sig;
    int e = errno;
    unsigned i = atomic_fetch_add_explicit(&hnext, 1, memory_order_relaxed);
    if (i < HANDLER_BLOCKS) {
        volatile unsigned char *b = hblocks + (size_t)i * bs;
        if (b[17] != 0) /* a nested first touch */
            abort();
        b[17] = (unsigned char)(i | 1);
    }
    atomic_fetch_add_explicit(&hsig, 1, memory_order_relaxed);
    errno = e;
}

static void on_usr1(int sig)
{
    (void)sig;
    int e = errno;
    /* range memory that may be in a migration right now */
    volatile long *slot = (volatile long *)(shared + bs) + (atomic_load(&hsig) & 63);
    long x = *slot;
    *slot = x + 1;
    unsigned i = atomic_fetch_add_explicit(&unext, 1, memory_order_relaxed);
    if (i < HANDLER_BLOCKS / 2) { /* and an untouched block */
        volatile unsigned char *b = ublocks + (size_t)i * bs;
        if (b[33] != 0)
            abort();
        b[33] = (unsigned char)(i | 1);
    }
    atomic_fetch_add_explicit(&hsig, 1, memory_order_relaxed);
    errno = e;
}

/* A first-touch storm: every page of many blocks, one byte each. */
static void *toucher(void *arg)
{
    unsigned char *p = arg;
    for (size_t off = 0; off < 512 * bs; off += 4096)
        p[off] = (unsigned char)(off >> 12 | 1);
    for (size_t off = 0; off < 512 * bs; off += 4096)
        if (p[off] != (unsigned char)(off >> 12 | 1))
            FAIL("storm byte at %zu", off);
    return NULL;
}

static void *writer(void *arg)
{
    long w = (long)arg;
    volatile long *c = (volatile long *)(shared + (size_t)w * 4 * bs);
    for (long i = 1; !atomic_load(&stop); i++) {
        *c = i;
        if (*c != i)
            FAIL("writer %ld: stored %ld, read %ld", w, i, *c);
        counters[w] = i;
    }
    return NULL;
}

static void *migrator(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        CHECK_OK(uvas_migrate(shared, 16 * bs, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_migrate(shared, 16 * bs, UVAS_LOC_HOST, 0));
    }
    return NULL;
}

int main(void)
{
    tu_watchdog(80);
    struct uvas_range_desc d = tu_init_range("2G", "64K");
    bs = d.block_size;
    dev = d.device_present;
    hblocks = uvas_aligned_alloc(bs, HANDLER_BLOCKS * bs, 0);
    shared = uvas_aligned_alloc(bs, 16 * bs, 0);
    counters = uvas_malloc(NW * sizeof(long));
    ublocks = uvas_aligned_alloc(bs, HANDLER_BLOCKS / 2 * bs, 0);
    CHECK(hblocks && shared && counters && ublocks, "uvas_aligned_alloc: %s", uvas_last_error());

    /* 1. SIGALRM at 20 kHz during a first-touch storm. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    timer_t tm;
    struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM};
    CHECK_EQ(timer_create(CLOCK_MONOTONIC, &sev, &tm), 0, "timer_create");
    struct itimerspec its = {.it_interval = {.tv_nsec = 50000}, .it_value = {.tv_nsec = 50000}};
    CHECK_EQ(timer_settime(tm, 0, &its, NULL), 0, "timer_settime");
    unsigned char *storm[2];
    pthread_t th[4];
    for (int i = 0; i < 2; i++) {
        storm[i] = uvas_aligned_alloc(bs, 512 * bs, 0);
        CHECK(storm[i] != NULL, "uvas_aligned_alloc");
        pthread_create(&th[i], NULL, toucher, storm[i]);
    }
    toucher(storm[0] + 0); /* main takes part too (same bytes) */
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    struct itimerspec off = {0};
    timer_settime(tm, 0, &off, NULL);
    timer_delete(tm);
    long n1 = atomic_load(&hsig);
    printf("storm: %ld SIGALRM handlers ran during first touches of %u blocks\n", n1,
           2 * 512);
    CHECK(n1 > 0, "no signal arrived");

    /* 2. SIGUSR1 to writers parked on migrating blocks. */
    for (long w = 0; w < NW; w++)
        pthread_create(&th[w], NULL, writer, (void *)w);
    pthread_t mt;
    if (dev)
        pthread_create(&mt, NULL, migrator, NULL);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long sent = 0;
    do {
        for (int w = 0; w < NW; w++, sent++)
            pthread_kill(th[w], SIGUSR1);
        struct timespec ns = {.tv_nsec = 20000};
        nanosleep(&ns, NULL);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 2000000000L &&
             atomic_load(&unext) < HANDLER_BLOCKS / 2);
    atomic_store(&stop, 1);
    for (int w = 0; w < NW; w++)
        pthread_join(th[w], NULL);
    if (dev)
        pthread_join(mt, NULL);
    printf("%ld SIGUSR1 sent to writers%s; %ld handler runs in all\n", sent,
           dev ? " while their blocks migrated" : "", atomic_load(&hsig));
    for (int w = 0; w < NW; w++) {
        long c = *(volatile long *)(shared + (size_t)w * 4 * bs);
        CHECK_EQ(c, counters[w], "a writer's last counter");
    }
    /* every handler write landed in its block */
    unsigned used = atomic_load(&hnext);
    if (used > HANDLER_BLOCKS)
        used = HANDLER_BLOCKS;
    for (unsigned i = 0; i < used; i++)
        CHECK_EQ(hblocks[(size_t)i * bs + 17], (unsigned char)(i | 1), "handler's byte");
    used = atomic_load(&unext);
    if (used > HANDLER_BLOCKS / 2)
        used = HANDLER_BLOCKS / 2;
    for (unsigned i = 0; i < used; i++)
        CHECK_EQ(ublocks[(size_t)i * bs + 33], (unsigned char)(i | 1), "SIGUSR1 handler's byte");
    CHECK(used > 0, "no SIGUSR1 handler ran");
    long sum = 0;
    for (int i = 0; i < 64; i++)
        sum += ((volatile long *)(shared + bs))[i];
    printf("handler increments in migrating memory: %ld\n", sum);
    uvas_free(hblocks);
    uvas_free(shared);
    uvas_free(ublocks);
    uvas_free((void *)counters);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
