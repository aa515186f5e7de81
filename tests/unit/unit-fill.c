/*
 * The fill's asking (fault/fill.c): a job of n chunks asks n service
 * threads in turn, each through its own eventfd, never one pinned to the
 * asker's CPU (it could not run before the asker is done); whatever no
 * helper claims, the asker runs. Four fake service threads, two said to
 * be pinned to this thread's CPU: which descriptors a job writes is
 * checked exactly, then the same jobs with real helpers that poll their
 * descriptors. The operation is an unmapping of a memory file's pages
 * (what a migration does before its copy), read back from
 * /proc/self/pagemap's present bit.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../check.h"
#include "fault/fill.h"

#define THREADS 4
#define CHUNK ((size_t)2 << 20)
#define LEN (8 * CHUNK)
#define PAGE 4096

static struct uvas_fill f;
static char *area;
static atomic_bool stop;

/* Pages of [p, p + len) mapped now: present, or a swap-type entry (bit
 * 62), which is what the kernel leaves in the page table while it moves a
 * page (compaction): under stress-ng a page just written read as not
 * present once. The fill's unmapping leaves no entry at all. */
static size_t present(const char *p, size_t len)
{
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0, "open /proc/self/pagemap: %s", strerror(errno));
    size_t n = 0;
    for (size_t off = 0; off < len; off += PAGE) {
        uint64_t e = 0;
        off_t at = (off_t)(((uintptr_t)p + off) / PAGE * sizeof e);
        CHECK(pread(fd, &e, sizeof e, at) == (ssize_t)sizeof e, "pagemap read");
        n += ((e >> 63) | (e >> 62)) & 1;
    }
    close(fd);
    return n;
}

/* Every page mapped (touched again while the kernel took one away: a
 * reclaim or a move between the touch and the check). */
static void map_all(void)
{
    size_t n = 0;
    for (int tries = 0; tries < 100 && n != LEN / PAGE; tries++) {
        for (size_t off = 0; off < LEN; off += PAGE)
            area[off] = 1;
        n = present(area, LEN);
    }
    CHECK(n == LEN / PAGE, "the area is not mapped whole: %zu of %zu pages", n, LEN / PAGE);
}

/* What thread i was asked since the last call: 0 or the count of asks. */
static uint64_t asked(unsigned i)
{
    uint64_t v = 0;
    if (read(f.evfd[i], &v, sizeof v) < 0) {
        CHECK(errno == EAGAIN, "read of eventfd %u: %s", i, strerror(errno));
        return 0;
    }
    return v;
}

static void *helper(void *arg)
{
    unsigned i = (unsigned)(uintptr_t)arg;
    struct pollfd p = {.fd = f.evfd[i], .events = POLLIN};
    while (!atomic_load(&stop)) {
        if (poll(&p, 1, 10) > 0)
            uvas_fill_help(&f, i);
    }
    return NULL;
}

int main(void)
{
    /* Stay on one CPU: the fill reads it to skip the threads pinned there. */
    int me = sched_getcpu();
    CHECK(me >= 0, "sched_getcpu: %s", strerror(errno));
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(me, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity: %s", strerror(errno));
    int other = me + 1; /* a CPU that is not this one; nothing runs there */
    int cpus[THREADS] = {me, other, me, other};
    CHECK_OK(uvas_fill_init(&f, THREADS, cpus, THREADS));
    CHECK(f.helpers == THREADS - 1, "helpers %u, expected %u", f.helpers, THREADS - 1);

    int fd = memfd_create("unit-fill", MFD_CLOEXEC);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)LEN) == 0, "memfd: %s", strerror(errno));
    area = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(area != MAP_FAILED, "mmap: %s", strerror(errno));

    /* Nobody helps: the asker unmaps every chunk. 8 chunks ask
     * min(8, 3 helpers) threads from the first in turn: 0 and 2 are on
     * this CPU, so only 1 and 3 are asked, once each. */
    map_all();
    CHECK_OK(uvas_fill_run(&f, UVAS_FILL_UNMAP, (uintptr_t)area, LEN, CHUNK, (uintptr_t)area));
    CHECK(present(area, LEN) == 0, "%zu pages still mapped", present(area, LEN));
    uint64_t a0 = asked(0), a1 = asked(1), a2 = asked(2), a3 = asked(3);
    CHECK(a0 == 0 && a2 == 0, "a thread pinned to the asker's CPU was asked (%llu, %llu)",
          (unsigned long long)a0, (unsigned long long)a2);
    CHECK(a1 == 1 && a3 == 1, "threads 1 and 3 asked %llu and %llu times, expected once each",
          (unsigned long long)a1, (unsigned long long)a3);

    /* Two chunks ask two, the turn going on from where it stopped (3):
     * 3, then 0 skipped, then 1. */
    map_all();
    CHECK_OK(uvas_fill_run(&f, UVAS_FILL_UNMAP, (uintptr_t)area, 2 * CHUNK, CHUNK,
                           (uintptr_t)area + CHUNK));
    CHECK(present(area, 2 * CHUNK) == 0 && present(area + 2 * CHUNK, LEN - 2 * CHUNK) ==
                                               (LEN - 2 * CHUNK) / PAGE,
          "a two-chunk job unmapped other than its own chunks");
    a0 = asked(0), a1 = asked(1), a2 = asked(2), a3 = asked(3);
    CHECK(a0 == 0 && a2 == 0 && a1 == 1 && a3 == 1,
          "two chunks asked %llu/%llu/%llu/%llu, expected 0/1/0/1", (unsigned long long)a0,
          (unsigned long long)a1, (unsigned long long)a2, (unsigned long long)a3);

    /* One chunk is not shared: nobody is asked. */
    map_all();
    CHECK_OK(uvas_fill_run(&f, UVAS_FILL_UNMAP, (uintptr_t)area, CHUNK, CHUNK, (uintptr_t)area));
    CHECK(present(area, CHUNK) == 0, "a one-chunk job left pages mapped");
    for (unsigned i = 0; i < THREADS; i++)
        CHECK(asked(i) == 0, "a one-chunk job asked thread %u", i);

    /* Real helpers on every descriptor: jobs end with every chunk done
     * whoever took it. */
    pthread_t th[THREADS];
    for (unsigned i = 0; i < THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, helper, (void *)(uintptr_t)i) == 0, "pthread_create");
    for (int round = 0; round < 50; round++) {
        map_all();
        CHECK_OK(uvas_fill_run(&f, UVAS_FILL_UNMAP, (uintptr_t)area, LEN, CHUNK,
                               (uintptr_t)area + (size_t)(round % 8) * CHUNK));
        CHECK(present(area, LEN) == 0, "round %d: %zu pages still mapped", round,
              present(area, LEN));
    }
    atomic_store(&stop, true);
    for (unsigned i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    uvas_fill_fini(&f);
    munmap(area, LEN);
    close(fd);
    printf("fill: asks skip the asker's CPU, and 50 jobs with helpers unmapped every page\n");
    return 0;
}
