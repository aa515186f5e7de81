/*
 * A device pool shared with another process (uvas_pool_export and friends
 * on a UVAS_POOL_DEVICE pool, docs/queues.md). Two processes of one user,
 * each with uvas_init on the same device; only kernels touch the shared
 * memory (the CPU cannot map device memory in place on every driver):
 *  - the exporter's kernel adds 1 to an allocation spanning blocks and a
 *    small one, it exports the pool and both pointers; the importer's
 *    pointers are device-resident uvas pointers, its kernel sees the
 *    exporter's data and adds 10, and the exporter's kernel then sees the
 *    importer's writes (one memory, not copies);
 *  - where device memory maps in place (lavapipe), the importer's CPU
 *    reads the same bytes through its pointer;
 *  - neither side can move a shared block (uvas_migrate says why), and
 *    memory advised read-mostly (a host copy beside the device one) is
 *    not exported;
 *  - refused, each with its reason: a socket that is not a uvas pool's
 *    channel, a record of another pool, one not sent to this importer,
 *    one that is not a record, allocating from an imported pool, and
 *    uvas_free_async or uvas_free of an imported pointer;
 *  - the importer's uvas_pool_destroy leaves the exporter's data intact;
 *  - an allocation of 1100 blocks, over two of the exporter's slabs and
 *    past the importer's first chunk of foreign slots, is shared whole
 *    (every block: kernels add to and read every 4093rd element and the
 *    last, since a full grid over 18M elements takes minutes under ASan);
 *  - a slab whose descriptor cannot arrive (the importer at its limit of
 *    open descriptors) is asked for again, and a second export of the
 *    pointer brings it;
 *  - a pool imported before the importer's uvas_finalize refuses imports
 *    after it (its memory went with the range), and is destroyed.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "uvas_queue.h"

#define N (3u * 16384u + 100u) /* uints: past three 64 KiB blocks */
#define S 40u                  /* uints: a small allocation, in a slab */
#define H (1100u * 16384u)     /* uints: 1100 blocks, over two 64 MiB slabs and past
                                  the importer's first 1024 foreign slots */

struct records {
    struct uvas_pool_ptr_data big, small, huge;
};

struct inc_args {
    uint64_t x;
    uint32_t n, by;
};

struct copy_args {
    uint64_t dst, src;
    uint32_t n;
};

struct stride_args {
    uint64_t y, x;
    uint32_t n, ys, xs, by;
};

static uvas_kernel_t *inc, *cp, *stride;

/* Launches of at most the grid the device takes (65535 groups of 64). */
#define CHUNK (65535u * 64u)

static void add(uint32_t *x, uint32_t n, uint32_t by)
{
    for (uint32_t o = 0; o < n; o += CHUNK) {
        struct inc_args a = {(uintptr_t)(x + o), n - o < CHUNK ? n - o : CHUNK, by};
        CHECK_OK(tu_launch(inc, a.n, &a, sizeof a));
    }
}

static void copy(uint32_t *dst, const uint32_t *src, uint32_t n)
{
    for (uint32_t o = 0; o < n; o += CHUNK) {
        struct copy_args a = {(uintptr_t)(dst + o), (uintptr_t)(src + o),
                              n - o < CHUNK ? n - o : CHUNK};
        CHECK_OK(tu_launch(cp, a.n, &a, sizeof a));
    }
}

/* What the kernels see at x, read into ordinary memory by a kernel. */
static void expect_seen(const uint32_t *x, uint32_t n, uint32_t plus, const char *who)
{
    uint32_t *out = uvas_malloc(n * 4);
    CHECK(out != NULL, "uvas_malloc: %s", uvas_last_error());
    copy(out, x, n);
    for (uint32_t i = 0; i < n; i++)
        CHECK(out[i] == i + plus, "%s: element %u is %u, expected %u", who, i, out[i], i + plus);
    uvas_free(out);
}

/* The sample of a large allocation that add_sampled and expect_sampled
   touch: every STEP-th element (each 64 KiB block holds several) and the
   last. */
#define STEP 4093u

static void strided(uint32_t *y, uint32_t ys, const uint32_t *x, uint32_t xs, uint32_t n,
                    uint32_t by)
{
    struct stride_args a = {(uintptr_t)y, (uintptr_t)x, n, ys, xs, by};
    CHECK_OK(tu_launch(stride, n, &a, sizeof a));
}

static void add_sampled(uint32_t *x, uint32_t n, uint32_t by)
{
    strided(x, STEP, x, STEP, (n + STEP - 1) / STEP, by);
    strided(x + n - 1, 1, x + n - 1, 1, 1, by);
}

/* Every sampled element of x[0, n) the kernels see is v. */
static void expect_sampled(const uint32_t *x, uint32_t n, uint32_t v, const char *who)
{
    uint32_t m = (n + STEP - 1) / STEP;
    uint32_t *out = uvas_malloc(((size_t)m + 1) * 4);
    CHECK(out != NULL, "uvas_malloc: %s", uvas_last_error());
    strided(out, 1, x, STEP, m, 0);
    strided(out + m, 1, x + n - 1, 1, 1, 0);
    for (uint32_t i = 0; i <= m; i++)
        CHECK(out[i] == v, "%s: element %u is %u, expected %u", who,
              i < m ? i * STEP : n - 1, out[i], v);
    uvas_free(out);
}

static void start(void)
{
    tu_init_device("256M", "64K");
    inc = tu_kernel("inc");
    cp = tu_kernel("copy");
    stride = tu_kernel("stride");
}

static int importer(int sock)
{
    start();
    struct records r;
    int fd = tu_recv_fd(sock, &r, sizeof r);
    int fd2 = tu_recv_fd(sock, &r, sizeof r); /* a second channel, the same records */

    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0, "socketpair: %s", strerror(errno));
    uvas_pool_t *bad;
    tu_expect_refused(uvas_pool_import(sv[0], &bad), UVAS_ERR_PERM, "not a uvas device pool",
                      "a socket that is not a pool's channel");
    close(sv[0]);
    close(sv[1]);

    uvas_pool_t *pool, *later;
    CHECK_OK(uvas_pool_import(fd, &pool));
    close(fd); /* the pool keeps its own */
    CHECK_OK(uvas_pool_import(fd2, &later));
    close(fd2);

    struct uvas_pool_ptr_data forged = r.small;
    forged.h.magic ^= 1;
    void *x;
    tu_expect_refused(uvas_pool_import_pointer(pool, &forged, &x), UVAS_ERR_INVAL, "not a handle",
                      "a record that is not one");
    forged = r.small;
    forged.h.tier ^= 2;
    tu_expect_refused(uvas_pool_import_pointer(pool, &forged, &x), UVAS_ERR_INVAL, "another pool",
                      "a record of another pool");
    forged = r.small;
    forged.h.offset += 1000;
    tu_expect_refused(uvas_pool_import_pointer(pool, &forged, &x), UVAS_ERR_INVAL, "was not sent",
                      "a record never sent here");

    uint32_t *big, *small;
    CHECK_OK(uvas_pool_import_pointer(pool, &r.big, (void **)&big));
    CHECK_OK(uvas_pool_import_pointer(pool, &r.small, (void **)&small));
    uint32_t *huge;
    CHECK_OK(uvas_pool_import_pointer(pool, &r.huge, (void **)&huge));
    expect_sampled(huge, H, 5, "importer, an allocation over two slabs");
    add_sampled(huge, H, 1);
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(big, &info));
    CHECK(info.residence == UVAS_RES_DEVICE, "the imported allocation is %s, not on the device",
          uvas_residence_name(info.residence));
    expect_seen(big, N, 1, "importer, the exporter's data");
    expect_seen(small, S, 2, "importer, the exporter's small allocation");
    add(big, N, 10);
    add(small, S, 10);
    expect_seen(big, N, 11, "importer, after its own kernel");

    struct uvas_range_desc d;
    CHECK_OK(uvas_range(&d));
    if (!strcmp(d.device_kind, "software")) { /* lavapipe: device memory maps in place */
        for (uint32_t i = 0; i < N; i++)
            CHECK(big[i] == i + 11, "the importer's CPU read big[%u] = %u, expected %u", i,
                  big[i], i + 11);
        printf("  the importer's CPU reads the shared memory in place\n");
    } else {
        printf("  (%s: the CPU does not map device memory in place; not read by it)\n",
               d.device_name);
    }

    tu_expect_refused(uvas_migrate(big, N * 4, UVAS_LOC_HOST, 0), UVAS_ERR_INVAL,
                      "shared with another process", "the importer moving a shared block");
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    tu_expect_refused(uvas_free_async(big, q), UVAS_ERR_INVAL, "the exporter frees it",
                      "uvas_free_async of an imported pointer");
    tu_expect_refused(uvas_try_free(big), UVAS_ERR_INVAL, "uvas_pool_destroy",
                      "uvas_free of an imported pointer (its blocks would go to the next "
                      "allocation while the pool still held them)");
    CHECK(uvas_malloc_from_pool_async(64, pool, q) == NULL &&
              strstr(uvas_last_error(), "imported"),
          "allocating from an imported pool: %s", uvas_last_error());
    CHECK_OK(uvas_queue_destroy(q));

    /* Through the second channel, with no descriptor free below the limit:
     * the slab's descriptor is dropped on the way in. */
    struct rlimit rl;
    CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0, "getrlimit: %s", strerror(errno));
    int lowest = dup(0);
    CHECK(lowest >= 0, "dup: %s", strerror(errno));
    close(lowest);
    struct rlimit tight = {(rlim_t)lowest, rl.rlim_max};
    CHECK(setrlimit(RLIMIT_NOFILE, &tight) == 0, "setrlimit: %s", strerror(errno));
    void *x3;
    int st = uvas_pool_import_pointer(later, &r.small, &x3);
    CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %s", strerror(errno));
    tu_expect_refused(st, UVAS_ERR_SYS, "did not arrive",
                      "a slab's descriptor that could not arrive");
    CHECK(write(sock, "r", 1) == 1, "write: %s", strerror(errno));
    struct uvas_pool_ptr_data again;
    CHECK(read(sock, &again, sizeof again) == (ssize_t)sizeof again, "read: %s",
          strerror(errno));
    uint32_t *small2;
    CHECK_OK(uvas_pool_import_pointer(later, &again, (void **)&small2));
    expect_seen(small2, S, 12, "importer, through the slab sent again");

    CHECK(write(sock, "d", 1) == 1, "write: %s", strerror(errno));
    char c;
    CHECK(read(sock, &c, 1) == 1, "read: %s", strerror(errno));
    CHECK_OK(uvas_pool_destroy(pool));
    CHECK(write(sock, "x", 1) == 1, "write: %s", strerror(errno));
    uvas_finalize();
    start();
    void *x2;
    tu_expect_refused(uvas_pool_import_pointer(later, &r.small, &x2), UVAS_ERR_NOT_INIT,
                      "uvas_finalize took", "an import through a pool of the range before");
    CHECK_OK(uvas_pool_destroy(later));
    uvas_finalize();
    return 0;
}

int main(void)
{
    tu_deadline(120);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %s", strerror(errno));
    pid_t child = fork();
    CHECK(child >= 0, "fork: %s", strerror(errno));
    if (child == 0) {
        close(sv[0]);
        int rc = importer(sv[1]);
        fflush(stdout);
        _exit(rc);
    }
    close(sv[1]);
    start();

    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    struct uvas_pool_props props = {UVAS_POOL_DEVICE, 0, UVAS_POOL_REUSE_ALL};
    uvas_pool_t *pool;
    CHECK_OK(uvas_pool_create(&props, &pool));
    uint32_t *big = uvas_malloc_from_pool_async(N * 4, pool, q);
    uint32_t *small = uvas_malloc_from_pool_async(S * 4, pool, q);
    CHECK(big && small, "uvas_malloc_from_pool_async: %s", uvas_last_error());
    static uint32_t init[N];
    for (uint32_t i = 0; i < N; i++)
        init[i] = i;
    CHECK_OK(uvas_queue_copy(q, big, init, N * 4));
    CHECK_OK(uvas_queue_copy(q, small, init, S * 4));
    CHECK_OK(uvas_queue_sync(q));
    add(big, N, 1);
    add(small, S, 2);
    uint32_t *huge = uvas_malloc_from_pool_async((size_t)H * 4, pool, q);
    CHECK(huge != NULL, "uvas_malloc_from_pool_async: %s", uvas_last_error());
    CHECK_OK(uvas_queue_sync(q));
    add_sampled(huge, H, 5); /* device pool memory starts zeroed */

    /* A read-mostly block keeps a host copy: it cannot stay put. */
    uint32_t *rm = uvas_malloc_from_pool_async(N * 4, pool, q);
    CHECK(rm != NULL, "uvas_malloc_from_pool_async: %s", uvas_last_error());
    CHECK_OK(uvas_queue_sync(q));
    CHECK_OK(uvas_advise(rm, N * 4, UVAS_ADVISE_READ_MOSTLY, 0));
    int fd, fd2;
    CHECK_OK(uvas_pool_export(pool, &fd));
    struct uvas_pool_ptr_data nope;
    tu_expect_refused(uvas_pool_export_pointer(rm, &nope), UVAS_ERR_INVAL, "read-mostly",
                      "exporting memory advised read-mostly");
    CHECK_OK(uvas_free_async(rm, q));
    CHECK_OK(uvas_pool_export(pool, &fd2));
    struct records r;
    CHECK_OK(uvas_pool_export_pointer(big, &r.big));
    CHECK_OK(uvas_pool_export_pointer(small, &r.small));
    CHECK_OK(uvas_pool_export_pointer(huge, &r.huge));
    tu_send_fd(sv[0], fd, &r, sizeof r);
    tu_send_fd(sv[0], fd2, &r, sizeof r);
    close(fd);
    close(fd2);

    char c;
    CHECK(read(sv[0], &c, 1) == 1 && c == 'r', "the importer ended early");
    struct uvas_pool_ptr_data again; /* its second channel asked for the slab again */
    CHECK_OK(uvas_pool_export_pointer(small, &again));
    CHECK(write(sv[0], &again, sizeof again) == (ssize_t)sizeof again, "write: %s",
          strerror(errno));
    CHECK(read(sv[0], &c, 1) == 1 && c == 'd', "the importer ended early");
    expect_seen(big, N, 11, "exporter, after the importer's kernel");
    expect_seen(small, S, 12, "exporter, the small allocation after the importer's kernel");
    expect_sampled(huge, H, 6, "exporter, the allocation over two slabs after the importer's kernel");
    tu_expect_refused(uvas_migrate(big, N * 4, UVAS_LOC_HOST, 0), UVAS_ERR_INVAL,
                      "shared with another process", "the exporter moving a shared block");
    CHECK(write(sv[0], "g", 1) == 1, "write: %s", strerror(errno));
    CHECK(read(sv[0], &c, 1) == 1, "the importer ended early");
    add(big, N, 1);
    expect_seen(big, N, 12, "exporter, after the importer destroyed its pool");

    int status;
    CHECK(waitpid(child, &status, 0) == child, "waitpid: %s", strerror(errno));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the importer failed (status %#x)",
          status);
    CHECK_OK(uvas_free_async(big, q));
    CHECK_OK(uvas_free_async(small, q));
    CHECK_OK(uvas_free_async(huge, q));
    CHECK_OK(uvas_queue_sync(q));
    CHECK_OK(uvas_pool_destroy(pool));
    CHECK_OK(uvas_queue_destroy(q));
    uvas_finalize();
    printf("PASS: a device pool shared between two processes\n");
    return 0;
}
