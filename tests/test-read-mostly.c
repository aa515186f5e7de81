/*
 * Read-mostly advice: a block moved to the device keeps a read-only copy
 * on the host. CPU reads then take no fault and see the data; a CPU write
 * (or the kernel writing, read(2)) drops the device copy and lands on the
 * host; migrating back or unsetting the advice collapses the duplicate
 * without copying. Writers racing such migrations lose nothing.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "check.h"

#define NB 4

static size_t bs;

static void check_dup(const char *p, int res, int dup, const char *what)
{
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    CHECK(info.residence == res && info.duplicated == dup, "%s: residence %s duplicated %d, "
          "expected %s %d", what, uvas_residence_name(info.residence), info.duplicated,
          uvas_residence_name(res), dup);
}

static unsigned char *area;
static atomic_int stop;

static void *writer(void *arg)
{
    uint64_t *w = arg, v = 0;
    while (!atomic_load(&stop)) {
        CHECK(*w == v, "writer: counter holds %llu, last stored %llu", (unsigned long long)*w,
              (unsigned long long)v);
        *w = ++v;
    }
    return (void *)(uintptr_t)v;
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    bs = d.block_size;
    area = uvas_malloc(NB * bs);
    CHECK(area != NULL, "uvas_malloc");
    for (size_t i = 0; i < NB * bs; i++)
        area[i] = (unsigned char)(i * 7 + 3);

    CHECK_OK(uvas_advise(area, NB * bs, UVAS_ADVISE_READ_MOSTLY, 0));
    CHECK_OK(uvas_migrate(area, NB * bs, UVAS_LOC_DEVICE, 0));
    for (int b = 0; b < NB; b++)
        check_dup((char *)area + b * bs, UVAS_RES_DEVICE, 1, "after the move");

    /* Reads: no fault, right data, still duplicated. */
    struct uvas_stats s0 = tu_stats();
    for (size_t i = 0; i < NB * bs; i++)
        CHECK(area[i] == (unsigned char)(i * 7 + 3), "read of byte %zu", i);
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.faults, s0.faults, "faults taken by reads of duplicated blocks");
    check_dup((char *)area, UVAS_RES_DEVICE, 1, "after reads");

    /* A write to block 1 collapses it to the host, and only it. */
    area[bs + 5] = 0xee;
    check_dup((char *)area + bs, UVAS_RES_HOST, 0, "written block");
    check_dup((char *)area, UVAS_RES_DEVICE, 1, "block 0 after block 1 was written");
    struct uvas_stats s2 = tu_stats();
    CHECK(s2.faults_device > s1.faults_device, "the write counts as a CPU fault on a device "
          "block");
    CHECK_EQ(s2.migrations[UVAS_RES_HOST], s1.migrations[UVAS_RES_HOST],
             "a collapse copies nothing");

    /* The kernel writing into a duplicated block (read(2)) works too. */
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    CHECK(write(fds[1], "kernel", 6) == 6, "write to pipe");
    CHECK(read(fds[0], area + 2 * bs + 10, 6) == 6, "read(2) into a duplicated block: %s",
          strerror(errno));
    CHECK(memcmp(area + 2 * bs + 10, "kernel", 6) == 0, "read(2) data");
    check_dup((char *)area + 2 * bs, UVAS_RES_HOST, 0, "block written by read(2)");
    close(fds[0]);
    close(fds[1]);

    /* Migrating back and unsetting the advice collapse without copies. */
    CHECK_OK(uvas_migrate(area, bs, UVAS_LOC_HOST, 0));
    check_dup((char *)area, UVAS_RES_HOST, 0, "block 0 migrated back");
    CHECK_OK(uvas_migrate(area + 3 * bs, bs, UVAS_LOC_DEVICE, 0)); /* already there */
    check_dup((char *)area + 3 * bs, UVAS_RES_DEVICE, 1, "block 3 before the unset");
    CHECK_OK(uvas_advise(area, NB * bs, UVAS_ADVISE_UNSET_READ_MOSTLY, 0));
    check_dup((char *)area + 3 * bs, UVAS_RES_HOST, 0, "block 3 after the unset");
    struct uvas_stats s3 = tu_stats();
    CHECK_EQ(s3.migrations[UVAS_RES_HOST], s1.migrations[UVAS_RES_HOST],
             "collapses copy nothing");
    for (size_t i = 0; i < NB * bs; i++) {
        unsigned char want = (unsigned char)(i * 7 + 3);
        if (i == bs + 5)
            want = 0xee;
        else if (i >= 2 * bs + 10 && i < 2 * bs + 16)
            want = (unsigned char)"kernel"[i - 2 * bs - 10];
        CHECK(area[i] == want, "byte %zu after the collapses", i);
    }
    /* Without the advice a move unmaps the host copy again. */
    CHECK_OK(uvas_migrate(area, NB * bs, UVAS_LOC_DEVICE, 0));
    check_dup((char *)area, UVAS_RES_DEVICE, 0, "moved without the advice");

    /* Writers racing read-mostly moves: nothing lost. */
    CHECK_OK(uvas_migrate(area, NB * bs, UVAS_LOC_HOST, 0));
    CHECK_OK(uvas_advise(area, NB * bs, UVAS_ADVISE_READ_MOSTLY, 0));
    memset(area, 0, NB * bs);
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        CHECK(pthread_create(&th[t], NULL, writer, area + (size_t)t * (2 * bs) + 64 * t) == 0,
              "pthread_create");
    for (int r = 0; r < 600; r++)
        CHECK_OK(uvas_migrate(area, NB * bs, r % 3 == 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE, 0));
    atomic_store(&stop, 1);
    for (int t = 0; t < 2; t++) {
        void *r;
        pthread_join(th[t], &r);
        uint64_t *w = (uint64_t *)(area + (size_t)t * (2 * bs) + 64 * t);
        CHECK(*w == (uint64_t)(uintptr_t)r, "writer %d: counter %llu after the run, last "
              "stored %llu", t, (unsigned long long)*w, (unsigned long long)(uintptr_t)r);
    }
    uvas_free(area);
    CHECK_OK(uvas_finalize());
    return 0;
}
