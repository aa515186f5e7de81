/*
 * How fast the kernel unmaps 4 KiB pages of a memory file from a shared
 * mapping (madvise MADV_DONTNEED, the pages staying in the file): what a
 * migration to the device does to a block's host pages before its copy
 * (docs/migration.md). 256 MiB in 2 MiB chunks (a page table each), split
 * over 1..N threads pinned one per CPU; each round first maps every page
 * again (MADV_POPULATE_WRITE), either on the thread that will unmap it
 * ("same") or on the next thread's CPU ("other": as when the fault
 * service's threads mapped a block that a migration's threads unmap).
 * usage: unmap-rate [rounds]   (prints GB/s per mode and thread count)
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define LEN ((size_t)256 << 20)
#define CHUNK ((size_t)2 << 20)
#define MAX_THREADS 64

static char *base;
static int nth, ncpu;
static int other; /* map on the next thread's CPU */
static pthread_barrier_t bar;
static double t_start[MAX_THREADS], t_end[MAX_THREADS];

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu % ncpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* Chunks of thread id: id, id + nth, ... */
static void each_chunk(int id, int advice)
{
    for (size_t c = (size_t)id; c < LEN / CHUNK; c += (size_t)nth)
        if (madvise(base + c * CHUNK, CHUNK, advice) != 0) {
            perror("madvise");
            exit(1);
        }
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    /* Map the chunks of the thread before ours (other) or our own. */
    pin(id);
    each_chunk(other ? (id + nth - 1) % nth : id, MADV_POPULATE_WRITE);
    pthread_barrier_wait(&bar);
    t_start[id] = now_ns();
    each_chunk(id, MADV_DONTNEED);
    t_end[id] = now_ns();
    return NULL;
}

static double run(int threads, int mode)
{
    nth = threads;
    other = mode;
    pthread_barrier_init(&bar, NULL, (unsigned)nth);
    pthread_t t[MAX_THREADS];
    for (long i = 0; i < nth; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < nth; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    double s = t_start[0], e = t_end[0];
    for (int i = 1; i < nth; i++) {
        s = t_start[i] < s ? t_start[i] : s;
        e = t_end[i] > e ? t_end[i] : e;
    }
    return (double)LEN / (e - s);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    int fd = memfd_create("unmap-rate", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)LEN) != 0) {
        perror("memfd");
        return 1;
    }
    base = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    printf("unmap-rate: 256 MiB of 4 KiB memory-file pages, 2 MiB chunks, %d CPUs, GB/s "
           "(best of %d rounds)\n", ncpu, rounds);
    printf("%8s %10s %10s\n", "threads", "same", "other");
    for (int n = 1; n <= ncpu && n <= MAX_THREADS; n *= 2) {
        double best[2] = {0, 0};
        for (int r = 0; r < rounds; r++)
            for (int m = 0; m < 2; m++) {
                double g = run(n, m);
                best[m] = g > best[m] ? g : best[m];
            }
        printf("%8d %10.1f %10.1f\n", n, best[0], best[1]);
        printf("metric unmap.t%d.same_gbs %.2f\nmetric unmap.t%d.other_gbs %.2f\n", n, best[0],
               n, best[1]);
    }
    return 0;
}
