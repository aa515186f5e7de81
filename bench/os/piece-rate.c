/*
 * How long the kernel takes to map (UFFDIO_CONTINUE) and unmap
 * (MADV_DONTNEED) the 512 pages of ONE 2 MiB page table of a memory file,
 * whole on one thread, in four pieces on one thread, or in pieces on two
 * or four threads that are already awake (spinning on a flag, so no
 * wake-up is timed): can a lone block's pieces (docs/migration.md) be
 * mapped or unmapped side by side, or does the page table's lock make
 * them take turns? Then, on one thread: unmapping a page table another
 * thread mapped while the others spin or sleep (as the fault service's
 * threads sleep between jobs), in one call or two; and pages the CPU has
 * written (dirty, in its TLB, as a migration to the device finds them)
 * unmapped against write-protected (UFFDIO_WRITEPROTECT, which keeps the
 * pages mapped and readable). Plain Linux: userfaultfd in minor mode (and write-protect
 * mode where the kernel has it for shmem) over a shared memfd mapping,
 * its pages kept in the file by a second mapping.
 * usage: piece-rate [chunks [first-cpu]]   (median microseconds per 2 MiB
 * chunk; the threads on first-cpu and the CPUs after it)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHUNK ((size_t)2 << 20)
#define MAX_THREADS 16
#define MAX_CHUNKS 256

static char *view; /* registered with userfaultfd: what is mapped and unmapped */
static int uffd, ncpu, cpu0, wp;
static size_t nchunks = 64;

/* One timed operation: nth threads, each doing pieces/nth pieces of the
 * chunk; or, where `only` is set, that thread does the whole chunk. */
static struct {
    _Atomic long go; /* generation: a worker starts when it changes */
    _Atomic int done;
    int nth, pieces, op, only;
    size_t chunk;
    _Atomic int sleepy; /* workers wait for work asleep (a condition variable) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} job = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET((cpu0 + cpu) % ncpu, &s);
    pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

enum { UNMAP, MAP, PROTECT, UNPROTECT };

static void piece(size_t chunk, int i, int pieces, int op)
{
    size_t len = CHUNK / (size_t)pieces;
    char *p = view + chunk * CHUNK + (size_t)i * len;
    if (op == PROTECT || op == UNPROTECT) {
        struct uffdio_writeprotect w = {.range = {.start = (unsigned long)p, .len = len},
                                        .mode = op == PROTECT ? UFFDIO_WRITEPROTECT_MODE_WP : 0};
        if (ioctl(uffd, UFFDIO_WRITEPROTECT, &w) != 0) {
            perror("UFFDIO_WRITEPROTECT");
            exit(1);
        }
    } else if (op == MAP) {
        /* EAGAIN: the page table changed under the call (the kernel frees
         * empty ones); what it mapped stays, the rest is asked again. */
        for (;;) {
            struct uffdio_continue c = {.range = {.start = (unsigned long)p, .len = len}};
            if (ioctl(uffd, UFFDIO_CONTINUE, &c) == 0)
                break;
            if (errno != EAGAIN) {
                perror("UFFDIO_CONTINUE");
                exit(1);
            }
            if (c.mapped > 0) {
                p += c.mapped;
                len -= (size_t)c.mapped;
            }
        }
    } else if (madvise(p, len, MADV_DONTNEED) != 0) {
        perror("madvise");
        exit(1);
    }
}

/* Thread id's share of the job's pieces: id, id + nth, ... */
static void share(int id)
{
    for (int i = id; i < job.pieces; i += job.nth)
        piece(job.chunk, i, job.pieces, job.op);
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    pin(id);
    long seen = 0;
    for (;;) {
        long g;
        if (job.sleepy) {
            pthread_mutex_lock(&job.mu);
            while ((g = atomic_load_explicit(&job.go, memory_order_acquire)) == seen)
                pthread_cond_wait(&job.cv, &job.mu);
            pthread_mutex_unlock(&job.mu);
        } else {
            while ((g = atomic_load_explicit(&job.go, memory_order_acquire)) == seen)
                ;
        }
        seen = g;
        if (g < 0)
            return NULL;
        if (job.only == id)
            piece(job.chunk, 0, 1, job.op);
        else if (!job.only && id < job.nth)
            share(id);
        atomic_fetch_add_explicit(&job.done, 1, memory_order_acq_rel);
    }
}

/* Start the workers on the job as set. */
static void post(void)
{
    atomic_store(&job.done, 0);
    pthread_mutex_lock(&job.mu);
    atomic_fetch_add_explicit(&job.go, 1, memory_order_release);
    pthread_cond_broadcast(&job.cv); /* sleepers, also when they go back to spinning */
    pthread_mutex_unlock(&job.mu);
}

static void await(int helpers)
{
    while (atomic_load_explicit(&job.done, memory_order_acquire) < helpers)
        ;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median microseconds the caller takes to unmap a chunk that another
 * thread mapped, the other threads asleep or spinning meanwhile: as a
 * migration to the device unmaps what the fault service's threads mapped
 * on the way back. */
static double unmap_remote(int helpers, int sleepy, int pieces)
{
    static double t[MAX_CHUNKS];
    for (size_t c = 0; c < nchunks; c++) {
        piece(c, 0, 1, UNMAP);
        if (helpers > 0) {
            job.sleepy = sleepy;
            job.nth = 0;
            job.only = 1 + (int)(c % (size_t)helpers);
            job.chunk = c;
            job.op = MAP;
            post();
            await(helpers);
            job.only = 0;
        } else {
            piece(c, 0, 1, MAP);
        }
        if (sleepy) /* let them fall asleep */
            usleep(200);
        double s = now_us();
        for (int i = 0; i < pieces; i++)
            piece(c, i, pieces, UNMAP);
        t[c] = now_us() - s;
        piece(c, 0, 1, MAP);
    }
    if (helpers > 0) { /* nothing to do: the sleepers back to spinning */
        job.sleepy = 0;
        post();
        await(helpers);
    }
    qsort(t, nchunks, sizeof t[0], cmp);
    return t[nchunks / 2];
}

/* Median microseconds per chunk of op on every chunk with nth threads
 * (the caller is thread 0) and pieces per chunk; dirty: the caller writes
 * every page first. */
static double timed(int nth, int pieces, int op, int helpers, int dirty)
{
    static double t[MAX_CHUNKS];
    for (size_t c = 0; c < nchunks; c++) {
        /* Bring the chunk to the state op starts from, untimed. */
        piece(c, 0, 1, UNMAP);
        if (op != MAP)
            piece(c, 0, 1, MAP);
        if (dirty)
            memset(view + c * CHUNK, 2, CHUNK);
        job.nth = nth;
        job.pieces = pieces;
        job.op = op;
        job.chunk = c;
        double s = now_us();
        post();
        share(0);
        await(helpers);
        t[c] = now_us() - s;
        if (op == PROTECT)
            piece(c, 0, 1, UNPROTECT);
    }
    qsort(t, nchunks, sizeof t[0], cmp);
    return t[nchunks / 2];
}

int main(int argc, char **argv)
{
    if (argc > 1)
        nchunks = (size_t)atoi(argv[1]);
    if (nchunks < 1 || nchunks > MAX_CHUNKS) {
        fprintf(stderr, "piece-rate: chunks must be 1..%d\n", MAX_CHUNKS);
        return 1;
    }
    ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (argc > 2)
        cpu0 = atoi(argv[2]);
    size_t len = nchunks * CHUNK;
    int fd = memfd_create("piece-rate", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
        perror("memfd");
        return 1;
    }
    /* A 2 MiB-aligned view, so each chunk is exactly one page table. */
    char *raw = mmap(NULL, len + CHUNK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *alias = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (raw == MAP_FAILED || alias == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    view = (char *)(((unsigned long)raw + CHUNK - 1) & ~(CHUNK - 1));
    if (mmap(view, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        perror("mmap view");
        return 1;
    }
    memset(alias, 1, len);
    /* Write-protect mode too where the kernel offers it over shmem. */
    for (wp = 1; wp >= 0; wp--) {
        uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
        struct uffdio_api api = {
            .api = UFFD_API,
            .features = UFFD_FEATURE_MINOR_SHMEM | (wp ? UFFD_FEATURE_WP_HUGETLBFS_SHMEM : 0)};
        struct uffdio_register reg = {
            .range = {.start = (unsigned long)view, .len = len},
            .mode = UFFDIO_REGISTER_MODE_MINOR | (wp ? UFFDIO_REGISTER_MODE_WP : 0)};
        if (uffd >= 0 && ioctl(uffd, UFFDIO_API, &api) == 0 &&
            ioctl(uffd, UFFDIO_REGISTER, &reg) == 0)
            break;
        if (uffd >= 0)
            close(uffd);
    }
    if (wp < 0) {
        fprintf(stderr, "piece-rate: userfaultfd in minor mode over shmem unavailable: %s\n",
                strerror(errno));
        return 77;
    }
    madvise(view, len, MADV_DONTNEED);

    pin(0);
    int nthreads = ncpu < MAX_THREADS ? ncpu : MAX_THREADS;
    pthread_t t[MAX_THREADS];
    for (long i = 1; i < nthreads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);

    printf("piece-rate: one 2 MiB page table of 4 KiB memory-file pages, %zu chunks, %d CPUs, "
           "median us per chunk (helpers awake), from CPU %d\n", nchunks, ncpu, cpu0);
    printf("%-22s %10s %10s\n", "how", "map", "unmap");
    static const struct { int nth, pieces; const char *name; } ways[] = {
        {1, 1, "1 thread, whole"}, {1, 4, "1 thread, 4 pieces"},
        {2, 2, "2 threads, halves"}, {2, 4, "2 threads, 4 pieces"},
        {4, 4, "4 threads, 4 pieces"},
    };
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        if (ways[w].nth > nthreads)
            continue;
        double m = timed(ways[w].nth, ways[w].pieces, MAP, nthreads - 1, 0);
        double u = timed(ways[w].nth, ways[w].pieces, UNMAP, nthreads - 1, 0);
        printf("%-22s %10.1f %10.1f\n", ways[w].name, m, u);
        printf("metric piece.t%d.p%d.map_us %.2f\nmetric piece.t%d.p%d.unmap_us %.2f\n",
               ways[w].nth, ways[w].pieces, m, ways[w].nth, ways[w].pieces, u);
    }
    /* A call that covers a whole page table may free it (Linux 6.14's
     * reclaim of empty page tables on MADV_DONTNEED), and freeing page
     * tables flushes the TLBs of idle CPUs too; two calls of half a table
     * never free it. */
    for (int calls = 1; calls <= 2; calls++) {
        double r[3] = {unmap_remote(nthreads - 1, 0, calls), unmap_remote(nthreads - 1, 1, calls),
                       unmap_remote(0, 0, calls)};
        printf("%s: %.1f us (helpers spinning), %.1f us (asleep), %.1f us (mapped by the "
               "unmapping thread)\n",
               calls == 1 ? "unmapping what another thread mapped, one thread, whole"
                          : "the same in two calls of half a page table",
               r[0], r[1], r[2]);
        printf("metric piece.remote.c%d.spinning_us %.2f\nmetric piece.remote.c%d.asleep_us "
               "%.2f\nmetric piece.remote.c%d.own_us %.2f\n",
               calls, r[0], calls, r[1], calls, r[2]);
    }
    double du = timed(1, 1, UNMAP, nthreads - 1, 1);
    printf("pages written first, one thread, whole: unmap %.1f us\n", du);
    printf("metric piece.dirty.unmap_us %.2f\n", du);
    if (wp) {
        double dp = timed(1, 1, PROTECT, nthreads - 1, 1);
        printf("pages written first, one thread, whole: write-protect %.1f us\n", dp);
        printf("metric piece.dirty.protect_us %.2f\n", dp);
    } else {
        printf("write-protect: the kernel has no userfaultfd write-protection over shmem\n");
    }
    atomic_store(&job.go, -1);
    for (int i = 1; i < nthreads; i++)
        pthread_join(t[i], NULL);
    return 0;
}
