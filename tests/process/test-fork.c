/*
 * fork() in a process that uses uvas (docs/fault-path.md, "Process
 * events"). The range, its alias and the gate table are MADV_DONTFORK: the
 * child has no mapping there, so it cannot read or corrupt the parent's
 * heap. A child's access to a range address gets SIGSEGV (caught by a
 * handler, or killing it), whatever the block's residence in the parent
 * (untouched, host, device). The child may use its own memory and exit or
 * exec; calling uvas_* in the child is unsupported (documented) and not
 * tested. Forks while other parent threads take first touches and migrate
 * blocks (a little stress) leave the parent's data intact, and the parent
 * keeps working afterwards: allocation, first touch, migration.
 */
#include <stdatomic.h>

#include "process/common.h"

#define MIB ((size_t)1 << 20)

static unsigned char *host_buf, *dev_buf, *untouched;
static size_t buf_len = 4 * MIB;
static int have_device;
static atomic_int stop;
static atomic_long toucher_rounds, migrator_rounds;

/* Child: its own memory works, the range is not there. */
static int child_main(void *arg)
{
    (void)arg;
    pe_catch_faults();
    unsigned char *own = malloc(1 << 20);
    if (!own)
        return 2;
    memset(own, 0x5a, 1 << 20);
    if (own[12345] != 0x5a)
        return 3;
    unsigned char v = 0x77;
    if (pe_try_access(host_buf, 0, &v) != SIGSEGV)
        return 4; /* a read of a host-resident parent block */
    if (pe_try_access(host_buf + 100, 1, &v) != SIGSEGV)
        return 5; /* a write */
    if (have_device && pe_try_access(dev_buf, 1, &v) != SIGSEGV)
        return 6; /* a device-resident parent block */
    if (pe_try_access(untouched, 1, &v) != SIGSEGV)
        return 7; /* an untouched one: no first touch in the child */
    free(own);
    return 0;
}

/* Child without a handler: the access kills it, nothing else happens. */
static int child_dies(void *arg)
{
    unsigned char *p = arg;
    signal(SIGSEGV, SIG_DFL); /* no handler at all (not even a sanitizer's) */
    *(volatile unsigned char *)p = 0xee;
    return 9;
}

static pid_t fork_child(int (*fn)(void *), void *arg)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        alarm(20);
        _exit(fn(arg));
    }
    return pid;
}

static int wait_child(pid_t pid)
{
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 255;
}

/* Parent thread: first touches of fresh allocations, checked. */
static void *toucher(void *arg)
{
    (void)arg;
    for (unsigned r = 0; !atomic_load(&stop); r++) {
        size_t n = 256 << 10;
        unsigned char *p = uvas_malloc(n);
        CHECK(p != NULL, "uvas_malloc: %s", uvas_last_error());
        CHECK(tu_find_not(p, n, 0) < 0, "a fresh allocation is not zero");
        pe_pattern(p, n, r);
        CHECK(pe_check_pattern(p, n, r) < 0, "toucher data changed");
        uvas_free(p);
        atomic_fetch_add(&toucher_rounds, 1);
    }
    return NULL;
}

/* Parent thread: a buffer moved to the device and back, checked. */
static void *migrator(void *arg)
{
    unsigned char *p = arg;
    while (!atomic_load(&stop)) {
        CHECK_OK(uvas_migrate(p, MIB, UVAS_LOC_DEVICE, 0));
        CHECK(pe_check_pattern(p, MIB, 42) < 0, "migrated data changed");
        atomic_fetch_add(&migrator_rounds, 1);
    }
    return NULL;
}

int main(void)
{
    tu_watchdog(80);
    struct uvas_range_desc d = tu_init_range("1G", "64K");
    have_device = d.device_present;
    host_buf = uvas_malloc(buf_len);
    untouched = uvas_malloc(buf_len);
    CHECK(host_buf && untouched, "uvas_malloc: %s", uvas_last_error());
    pe_pattern(host_buf, buf_len, 1);
    if (have_device) {
        dev_buf = uvas_malloc(buf_len);
        CHECK(dev_buf != NULL, "uvas_malloc: %s", uvas_last_error());
        pe_pattern(dev_buf, buf_len, 2);
        CHECK_OK(uvas_migrate(dev_buf, buf_len, UVAS_LOC_DEVICE, 0));
        tu_expect_blocks(dev_buf, buf_len, UVAS_RES_DEVICE, "before fork");
    } else {
        printf("no device tier (%s): host blocks only\n", d.device_note);
    }

    /* 1. A quiet fork: the child sees SIGSEGV on every range address. */
    CHECK_EQ(wait_child(fork_child(child_main, NULL)), 0, "child status");
    CHECK_EQ(wait_child(fork_child(child_dies, host_buf)), 128 + SIGSEGV,
             "a child touching the range without a handler dies of SIGSEGV");
    CHECK(pe_check_pattern(host_buf, buf_len, 1) < 0, "host data after fork");
    CHECK_EQ(tu_residence(untouched), UVAS_RES_UNPOPULATED, "the child touched nothing");
    if (have_device) {
        tu_expect_blocks(dev_buf, buf_len, UVAS_RES_DEVICE, "after fork");
        CHECK(pe_check_pattern(dev_buf, buf_len, 2) < 0, "device data after fork");
    }

    /* 2. Forks while parent threads fault and migrate. */
    unsigned char *mig = NULL;
    pthread_t th[2];
    int nth = 0;
    pthread_create(&th[nth++], NULL, toucher, NULL);
    if (have_device) {
        mig = uvas_malloc(MIB);
        CHECK(mig != NULL, "uvas_malloc");
        pe_pattern(mig, MIB, 42);
        pthread_create(&th[nth++], NULL, migrator, mig);
    }
    for (int i = 0; i < 40; i++) {
        pid_t pid = fork_child(i % 2 ? child_main : child_dies, host_buf + (size_t)i * 4096);
        int st = wait_child(pid);
        if (i % 2)
            CHECK_EQ(st, 0, "child status during stress");
        else
            CHECK_EQ(st, 128 + SIGSEGV, "child touching the range during stress");
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < nth; i++)
        pthread_join(th[i], NULL);
    printf("40 forks while %ld first-touch rounds and %ld migrations ran\n",
           atomic_load(&toucher_rounds), atomic_load(&migrator_rounds));

    /* 3. The parent's data is intact and uvas keeps working. */
    CHECK(pe_check_pattern(host_buf, buf_len, 1) < 0, "host data after the forks");
    CHECK(tu_find_not(untouched, buf_len, 0) < 0, "untouched memory reads zero");
    if (have_device) {
        CHECK(pe_check_pattern(dev_buf, buf_len, 2) < 0, "device data after the forks");
        CHECK_OK(uvas_migrate(host_buf, buf_len, UVAS_LOC_DEVICE, 0));
        tu_expect_blocks(host_buf, buf_len, UVAS_RES_DEVICE, "migrated after the forks");
        CHECK(pe_check_pattern(host_buf, buf_len, 1) < 0, "data after migrating");
        CHECK(pe_check_pattern(mig, MIB, 42) < 0, "migrator data");
    }
    unsigned char *p = uvas_malloc(MIB);
    CHECK(p != NULL, "uvas_malloc after the forks: %s", uvas_last_error());
    memset(p, 0x3c, MIB);
    CHECK(tu_residence(p) != UVAS_RES_UNPOPULATED, "a touched block is placed");
    CHECK(tu_find_not(p, MIB, 0x3c) < 0, "new allocation");
    uvas_free(p);
    uvas_free(host_buf);
    uvas_free(untouched);
    if (have_device) {
        uvas_free(dev_buf);
        uvas_free(mig);
    }
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
