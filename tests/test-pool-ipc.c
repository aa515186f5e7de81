/*
 * A pool shared with another process of the node (uvas_pool_export and
 * friends, over uvas_ipc_*): the exporter makes a host pool, allocations
 * in it hold data, and it sends the pool's descriptor (SCM_RIGHTS) and the
 * allocations' records to a process forked before uvas started, which
 * imports them without uvas_init, reads the exporter's data and writes its
 * own, which the exporter then reads through its pointers. Refused, each
 * with its reason: a unified pool's export, a pointer of no pool or of a
 * pool not exported, a descriptor that is not a uvas host tier or belongs
 * to another user, a record that is not one or names bytes past the
 * descriptor's end, allocation from an imported pool, uvas_free_async of
 * an imported pointer, uvas_ipc_export of memory that may migrate or of
 * the middle of an allocation.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check.h"
#include "uvas_queue.h"

#define BIG ((size_t)3 << 20) /* spans blocks */
#define SMALL 100

static unsigned char pat(int who, size_t i)
{
    return (unsigned char)(who * 101 + (int)(i % 251) + 1);
}

struct records {
    struct uvas_pool_ptr_data big, small;
};

/* The importer: no uvas_init; everything through the descriptor. */
static int importer(int sock)
{
    struct records r;
    int fd = tu_recv_fd(sock, &r, sizeof r);

    /* Descriptors that are not a uvas host tier of this user. */
    uvas_pool_t *bad;
    int other = memfd_create("not-uvas", MFD_CLOEXEC);
    CHECK(other >= 0 && ftruncate(other, 1 << 20) == 0, "memfd: %s", strerror(errno));
    tu_expect_refused(uvas_pool_import(other, &bad), UVAS_ERR_PERM, "not a uvas host tier",
                      "a memfd of another name");
    close(other);
    int foreign = memfd_create("uvas-host-tier", MFD_CLOEXEC);
    CHECK(foreign >= 0, "memfd: %s", strerror(errno));
    if (geteuid() == 0 && fchown(foreign, 4242, 4242) == 0)
        tu_expect_refused(uvas_pool_import(foreign, &bad), UVAS_ERR_PERM, "belongs to user 4242",
                          "a host tier of another user");
    else
        printf("  (not root: the other user's descriptor is not tried)\n");
    close(foreign);
    /* A memfd of this user with the host tier's name but no seals: its
     * maker can shrink it under the importer's mappings (SIGBUS at the
     * first access: it was accepted). */
    int unsealed = memfd_create("uvas-host-tier", MFD_CLOEXEC);
    CHECK(unsealed >= 0 && ftruncate(unsealed, 1 << 20) == 0, "memfd: %s", strerror(errno));
    tu_expect_refused(uvas_pool_import(unsealed, &bad), UVAS_ERR_PERM, "sealed",
                      "an unsealed memfd named as a host tier");
    struct stat ust;
    CHECK(fstat(unsealed, &ust) == 0, "fstat");
    uint64_t uid_ = (uint64_t)ust.st_ino ^ ((uint64_t)ust.st_dev << 32);
    struct uvas_ipc_handle uh = {.magic = UVAS_IPC_MAGIC, .offset = 0, .size = 4096,
                                 .pid = (int32_t)getpid(),
                                 .tier = (uint32_t)(uid_ ^ (uid_ >> 32))};
    void *up = NULL;
    tu_expect_refused(uvas_ipc_open(unsealed, &uh, &up), UVAS_ERR_PERM, "sealed",
                      "uvas_ipc_open of an unsealed memfd named as a host tier");
    close(unsealed);

    uvas_pool_t *pool;
    CHECK_OK(uvas_pool_import(fd, &pool));
    close(fd); /* the pool keeps its own */
    void *big, *small;
    CHECK_OK(uvas_pool_import_pointer(pool, &r.big, &big));
    CHECK_OK(uvas_pool_import_pointer(pool, &r.small, &small));
    for (size_t i = 0; i < BIG; i++)
        CHECK(((unsigned char *)big)[i] == pat(1, i), "big[%zu] = %#x, the exporter wrote %#x",
              i, ((unsigned char *)big)[i], pat(1, i));
    for (size_t i = 0; i < SMALL; i++)
        CHECK(((unsigned char *)small)[i] == pat(3, i), "small[%zu] = %#x", i,
              ((unsigned char *)small)[i]);
    for (size_t i = 0; i < BIG; i++)
        ((unsigned char *)big)[i] = pat(2, i);
    for (size_t i = 0; i < SMALL; i++)
        ((unsigned char *)small)[i] = pat(4, i);

    struct uvas_pool_ptr_data forged = r.small;
    forged.h.magic ^= 1;
    void *x;
    tu_expect_refused(uvas_pool_import_pointer(pool, &forged, &x), UVAS_ERR_INVAL, "not a handle",
                      "a record that is not one");
    forged = r.small;
    forged.h.offset = (uint64_t)1 << 62;
    tu_expect_refused(uvas_pool_import_pointer(pool, &forged, &x), UVAS_ERR_INVAL, "outside",
                      "a record past the descriptor's end");
    forged = r.small;
    forged.h.tier ^= 1;
    tu_expect_refused(uvas_pool_import_pointer(pool, &forged, &x), UVAS_ERR_INVAL,
                      "another host tier", "a record of another exporter's descriptor");
    forged = r.small;
    forged.h.size = UINT64_MAX - 4096;
    tu_expect_refused(uvas_pool_import_pointer(pool, &forged, &x), UVAS_ERR_INVAL, "outside",
                      "a record whose size wraps");
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    errno = 0;
    CHECK(uvas_malloc_from_pool_async(64, pool, q) == NULL && errno == EINVAL &&
              strstr(uvas_last_error(), "imported"),
          "allocation from an imported pool: errno %d, '%s'", errno, uvas_last_error());
    printf("  allocation from an imported pool: %s\n", uvas_last_error());
    tu_expect_refused(uvas_free_async(small, q), UVAS_ERR_INVAL, "the exporter frees it",
                      "uvas_free_async of an imported pointer");
    CHECK_OK(uvas_queue_destroy(q));
    CHECK_OK(uvas_pool_destroy(pool));
    fflush(stdout);
    char done = 1;
    CHECK(write(sock, &done, 1) == 1, "write: %s", strerror(errno));
    return 0;
}

int main(void)
{
    tu_deadline(60);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0, "socketpair: %s",
          strerror(errno));
    pid_t child = fork();
    CHECK(child >= 0, "fork: %s", strerror(errno));
    if (child == 0) {
        close(sv[0]);
        _exit(importer(sv[1]));
    }
    close(sv[1]);

    CHECK_OK(uvas_init(NULL));
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    struct uvas_pool_props unified = {UVAS_POOL_UNIFIED, 0, UVAS_POOL_REUSE_ALL};
    struct uvas_pool_props host = {UVAS_POOL_HOST, 0, UVAS_POOL_REUSE_ALL};
    uvas_pool_t *up, *hp, *quiet;
    CHECK_OK(uvas_pool_create(&unified, &up));
    CHECK_OK(uvas_pool_create(&host, &hp));
    CHECK_OK(uvas_pool_create(&host, &quiet));
    int fd = -1;
    tu_expect_refused(uvas_pool_export(up, &fd), UVAS_ERR_INVAL, "UVAS_POOL_HOST",
                      "a unified pool");

    unsigned char *big = uvas_malloc_from_pool_async(BIG, hp, q);
    unsigned char *small = uvas_malloc_from_pool_async(SMALL, hp, q);
    unsigned char *unexported = uvas_malloc_from_pool_async(SMALL, quiet, q);
    CHECK(big && small && unexported, "uvas_malloc_from_pool_async: %s", uvas_last_error());
    CHECK_OK(uvas_queue_sync(q));
    for (size_t i = 0; i < BIG; i++)
        big[i] = pat(1, i);
    for (size_t i = 0; i < SMALL; i++)
        small[i] = pat(3, i);

    struct records r;
    void *plain = uvas_malloc(4096);
    tu_expect_refused(uvas_pool_export_pointer(plain, &r.big), UVAS_ERR_INVAL,
                      "not a live allocation of a pool", "a pointer of uvas_malloc");
    tu_expect_refused(uvas_pool_export_pointer(unexported, &r.big), UVAS_ERR_INVAL, "not exported",
                      "a pointer of a pool not exported");
    struct uvas_ipc_handle h;
    tu_expect_refused(uvas_ipc_export(plain, &h, NULL), UVAS_ERR_INVAL, "UVAS_HINT_HOST",
                      "uvas_ipc_export of memory that may migrate");
    tu_expect_refused(uvas_ipc_export(big + 4096, &h, NULL), UVAS_ERR_INVAL, "not the start",
                      "uvas_ipc_export of an allocation's middle");

    CHECK_OK(uvas_pool_export(hp, &fd));
    CHECK_OK(uvas_pool_export_pointer(big, &r.big));
    CHECK_OK(uvas_pool_export_pointer(small, &r.small));
    tu_send_fd(sv[0], fd, &r, sizeof r);
    close(fd);
    char done;
    CHECK(read(sv[0], &done, 1) == 1, "the importer ended early");
    int st;
    CHECK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "the importer failed (status %#x)", st);

    /* What the importer wrote is here, and an exported pool keeps its
     * memory through a trim. */
    for (size_t i = 0; i < BIG; i++)
        CHECK(big[i] == pat(2, i), "big[%zu] = %#x, the importer wrote %#x", i, big[i],
              pat(2, i));
    for (size_t i = 0; i < SMALL; i++)
        CHECK(small[i] == pat(4, i), "small[%zu] = %#x", i, small[i]);
    CHECK_OK(uvas_free_async(small, q));
    CHECK_OK(uvas_queue_sync(q));
    struct uvas_pool_usage u0, u1;
    CHECK_OK(uvas_pool_get_usage(hp, &u0));
    CHECK_OK(uvas_pool_trim_to(hp, 0));
    CHECK_OK(uvas_pool_get_usage(hp, &u1));
    CHECK(u1.reserved == u0.reserved, "an exported pool gave back memory (%zu -> %zu)",
          u0.reserved, u1.reserved);
    CHECK_OK(uvas_free_async(big, q));
    CHECK_OK(uvas_free_async(unexported, q));
    CHECK_OK(uvas_queue_sync(q));
    CHECK_OK(uvas_pool_destroy(hp));
    CHECK_OK(uvas_pool_destroy(quiet));
    CHECK_OK(uvas_pool_destroy(up));

    /* A pool exported empty makes a block of its own, used by no queue:
     * an allocation may take it on any queue, and the pool's destruction
     * frees it (both read that block's queue, which crashed when NULL). */
    for (int round = 0; round < 2; round++) {
        uvas_pool_t *ep;
        const struct uvas_pool_props eprops = {UVAS_POOL_HOST, 0,
                                               UVAS_POOL_REUSE_OPPORTUNISTIC};
        CHECK_OK(uvas_pool_create(&eprops, &ep));
        int efd;
        CHECK_OK(uvas_pool_export(ep, &efd));
        /* The descriptor's size is sealed: whoever holds it cannot shrink
         * the exporter's memory under its mappings. */
        CHECK(ftruncate(efd, 0) < 0 && errno == EPERM, "the host tier could be shrunk "
              "through an exported descriptor");
        close(efd);
        if (round == 0) {
            char *e = uvas_malloc_from_pool_async(200, ep, q);
            CHECK(e, "an allocation from a pool exported empty: %s", uvas_last_error());
            memset(e, 1, 200);
            CHECK_OK(uvas_free_async(e, q));
            CHECK_OK(uvas_queue_sync(q));
        }
        CHECK_OK(uvas_pool_destroy(ep));
    }
    uvas_free(plain);
    CHECK_OK(uvas_queue_destroy(q));
    CHECK_OK(uvas_finalize());
    printf("test-pool-ipc: passed\n");
    return 0;
}
