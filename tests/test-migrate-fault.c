/*
 * Accesses to device-resident blocks bring them back to the host,
 * transparently and with their data (device tier needed):
 *  - a CPU read of a byte of a device-resident block returns the byte it
 *    held before the migration; the block then reports UVAS_RES_HOST, and
 *    stats.faults_device and stats.migrations[HOST] have grown;
 *  - a CPU write into a device-resident block lands, and the rest of the
 *    block keeps its data;
 *  - reading everything back (memcmp over all blocks) gives the old data
 *    and leaves every block on the host;
 *  - the kernel: write(2) from device-resident memory into a pipe sends
 *    the right bytes (an unaligned span over several device blocks);
 *    read(2) from a pipe into device-resident memory stores the bytes and
 *    keeps the rest of the blocks; both calls complete in full.
 * Multi-threaded only through the pipe's reader/writer thread.
 */
#include <pthread.h>

#include "check.h"

#define NBLK 8

static size_t bs;
static uint64_t rng = 0xfa017ull;

static void compare(const unsigned char *got, const unsigned char *want, size_t n,
                    const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            FAIL("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
}

/* ---- the pipe's other end ------------------------------------------------- */

struct xfer {
    int fd;
    unsigned char *buf;
    size_t n;
    int rc;
};

static void *drain(void *arg)
{
    struct xfer *x = arg;
    x->rc = tu_read_all(x->fd, x->buf, x->n);
    return NULL;
}

static void *feed(void *arg)
{
    struct xfer *x = arg;
    x->rc = tu_write_all(x->fd, x->buf, x->n);
    return NULL;
}

static void cpu_access(void)
{
    size_t len = NBLK * bs;
    unsigned char *a = uvas_aligned_alloc(bs, len, 0);
    CHECK(a != NULL, "uvas_aligned_alloc");
    unsigned char *shadow = malloc(len);
    CHECK(shadow != NULL, "malloc");
    tu_fill_random(&rng, shadow, len);
    memcpy(a, shadow, len);
    CHECK_OK(uvas_migrate(a, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(a, len, UVAS_RES_DEVICE, "after uvas_migrate to the device");

    /* A read. */
    struct uvas_stats s0 = tu_stats();
    size_t i = 3 * bs + 4321;
    unsigned char v = tu_read_byte(a + i);
    CHECK(v == shadow[i], "CPU read of a device-resident byte: 0x%02x, expected 0x%02x", v,
          shadow[i]);
    CHECK_EQ(tu_residence(a + i), UVAS_RES_HOST, "residence of the block after a CPU read");
    struct uvas_stats s1 = tu_stats();
    CHECK(s1.faults_device > s0.faults_device, "faults_device did not grow on a CPU read "
          "of a device-resident block (%llu)", (unsigned long long)s1.faults_device);
    CHECK(s1.migrations[UVAS_RES_HOST] > s0.migrations[UVAS_RES_HOST],
          "migrations[HOST] did not grow when a CPU read brought a block back (%llu)",
          (unsigned long long)s1.migrations[UVAS_RES_HOST]);
    compare(a + 3 * bs, shadow + 3 * bs, bs, "the block brought back by a read");

    /* A write (the first access to the block is the store). */
    size_t w = 5 * bs + 77;
    CHECK_EQ(tu_residence(a + w), UVAS_RES_DEVICE, "block 5 before the write");
    tu_write_byte(a + w, (unsigned char)(shadow[w] ^ 0xff));
    shadow[w] ^= 0xff;
    CHECK_EQ(tu_residence(a + w), UVAS_RES_HOST, "residence of the block after a CPU write");
    struct uvas_stats s2 = tu_stats();
    CHECK(s2.faults_device > s1.faults_device, "faults_device did not grow on a CPU write "
          "to a device-resident block");
    CHECK(s2.migrations[UVAS_RES_HOST] > s1.migrations[UVAS_RES_HOST],
          "migrations[HOST] did not grow when a CPU write brought a block back");
    compare(a + 5 * bs, shadow + 5 * bs, bs, "the block brought back by a write");

    /* A wide write: memset over the end of block 6 and the start of 7. */
    memset(a + 7 * bs - 100, 0x11, 200);
    memset(shadow + 7 * bs - 100, 0x11, 200);

    /* Everything: reading all of it brings every block back. */
    compare(a, shadow, len, "all data read back by the CPU from the device");
    tu_settle_blocks(a, len, UVAS_RES_HOST, "after the CPU read everything");

    /* Round two: back to the device after writes, read again. */
    tu_fill_random(&rng, shadow, len);
    memcpy(a, shadow, len);
    CHECK_OK(uvas_migrate(a, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(a, len, UVAS_RES_DEVICE, "second migrate to the device");
    compare(a, shadow, len, "second round read back by the CPU");
    tu_settle_blocks(a, len, UVAS_RES_HOST, "after the second read-back");
    free(shadow);
    CHECK_OK(uvas_try_free(a));
}

static void kernel_access(void)
{
    size_t len = NBLK * bs;
    unsigned char *a = uvas_aligned_alloc(bs, len, 0);
    CHECK(a != NULL, "uvas_aligned_alloc");
    unsigned char *shadow = malloc(len);
    unsigned char *buf = malloc(len);
    CHECK(shadow && buf, "malloc");
    tu_fill_random(&rng, shadow, len);
    memcpy(a, shadow, len);
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe: %s", strerror(errno));

    /* write(2) from device-resident memory: [bs + 100, 4bs + 100), four
     * device blocks, more than a pipe holds (a thread drains it). */
    size_t off = bs + 100, n = 3 * bs;
    CHECK_OK(uvas_migrate(a, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(a + off, n, UVAS_RES_DEVICE, "write(2) source before the call");
    struct uvas_stats s0 = tu_stats();
    struct xfer x = {fds[0], buf, n, -1};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, drain, &x) == 0, "pthread_create");
    CHECK(tu_write_all(fds[1], a + off, n) == 0,
          "write(2) from device-resident memory failed: %s", strerror(errno));
    pthread_join(th, NULL);
    CHECK(x.rc == 0, "reading the pipe failed");
    compare(buf, shadow + off, n, "bytes write(2) sent from device-resident memory");
    tu_settle_blocks(a + off, n, UVAS_RES_HOST, "write(2) source after the call");
    struct uvas_stats s1 = tu_stats();
    CHECK(s1.faults_device > s0.faults_device,
          "faults_device did not grow on a kernel read of device-resident memory");
    compare(a, shadow, len, "the allocation after write(2)");

    /* read(2) into device-resident memory: [2bs - 5000, 6bs - 3) from a
     * pipe fed by a thread. */
    CHECK_OK(uvas_migrate(a, len, UVAS_LOC_DEVICE, 0));
    tu_expect_blocks(a, len, UVAS_RES_DEVICE, "read(2) target before the call");
    off = 2 * bs - 5000;
    n = 4 * bs + 4997;
    tu_fill_random(&rng, buf, n);
    x = (struct xfer){fds[1], buf, n, -1};
    CHECK(pthread_create(&th, NULL, feed, &x) == 0, "pthread_create");
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fds[0], a + off + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        CHECK(r > 0, "read(2) into device-resident memory returned %zd (%s) after %zu of "
              "%zu bytes", r, r < 0 ? strerror(errno) : "EOF", got, n);
        got += (size_t)r;
    }
    pthread_join(th, NULL);
    CHECK(x.rc == 0, "writing the pipe failed");
    memcpy(shadow + off, buf, n);
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(a + off, n, &ri));
    CHECK(ri.blocks[UVAS_RES_DEVICE] == 0, "%zu blocks the kernel stored into are still "
          "reported on the device", ri.blocks[UVAS_RES_DEVICE]);
    compare(a, shadow, len, "the allocation after read(2) into it");
    tu_settle_blocks(a, len, UVAS_RES_HOST, "after reading everything");

    close(fds[0]);
    close(fds[1]);
    free(buf);
    free(shadow);
    CHECK_OK(uvas_try_free(a));
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    bs = d.block_size;
    cpu_access();
    kernel_access();
    CHECK_OK(uvas_finalize());
    printf("migrate-fault: CPU and kernel accesses to device blocks OK\n");
    return 0;
}
