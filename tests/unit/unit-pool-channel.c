/*
 * A device pool's channel from a hostile exporter: a process that speaks
 * the greeting and then sends records that are not what uvas sends. The
 * importer refuses each with a message and never blocks:
 *  - a large record's block list (PD_REC_IN_FD) that is a pipe, not a
 *    file (a read of it would wait for ever), or a file not sealed (one
 *    on a FUSE or NFS mount could make the read wait too);
 *  - a sealed list file shorter than the record says;
 *  - a record that says its list comes in a file but sends none;
 *  - a record of more blocks than any importer takes, or than this
 *    range holds (a giant allocation per packet);
 *  - an inline record whose length is not its blocks';
 *  - a record of zero blocks;
 *  - a message with two descriptors (both closed: no descriptor leaks
 *    from any of these);
 *  - a slab whose descriptor is shorter than the greeting's slabs (and
 *    the offset where their memory starts) say: the driver would read,
 *    and the CPU view of its last block fault, past its end.
 * After each, the channel still works: the next record is read.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "../check.h"
#include "queue/pool_dev.h"
#include "uvas_queue.h"

static int chan[2];
static uvas_pool_t *pool;
static uint64_t next_id;

/* A memfd of len bytes, sealed as an exporter's list is. */
static int sealed_memfd(size_t len)
{
    int fd = memfd_create("sealed-list", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)len) == 0 &&
              fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) == 0,
          "sealed memfd: %s", strerror(errno));
    return fd;
}

/* Send a record head (with fd, if >= 0) and then try to import it. */
static void refused(struct pd_rec_head h, const void *tail, size_t tail_len, int fd,
                    const char *word, const char *what)
{
    h.magic = PD_REC_MAGIC;
    h.id = ++next_id;
    char buf[sizeof h + 64];
    memcpy(buf, &h, sizeof h);
    if (tail_len)
        memcpy(buf + sizeof h, tail, tail_len);
    if (fd >= 0)
        tu_send_fd(chan[0], fd, buf, sizeof h + tail_len);
    else
        CHECK(send(chan[0], buf, sizeof h + tail_len, 0) == (ssize_t)(sizeof h + tail_len),
              "send: %s", strerror(errno));
    struct uvas_pool_ptr_data d = {{.magic = UVAS_POOL_DEV_MAGIC, .offset = h.id,
                                    .size = h.size, .pid = (int32_t)getpid(), .tier = 7}};
    void *p = (void *)1;
    tu_expect_refused(uvas_pool_import_pointer(pool, &d, &p), UVAS_ERR_INVAL, word, what);
}

int main(void)
{
    tu_deadline(30);
    struct uvas_range_desc rd = tu_init_device("64M", "64K");
    struct pd_hello hello = {.magic = PD_HELLO_MAGIC, .tag = 7, .pid = (int32_t)getpid()};
    CHECK(uvas_shared_describe(&hello.dev), "uvas_shared_describe");
    CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan) == 0, "socketpair: %s",
          strerror(errno));
    CHECK(send(chan[0], &hello, sizeof hello, 0) == (ssize_t)sizeof hello, "send: %s",
          strerror(errno));
    CHECK_OK(uvas_pool_import(chan[1], &pool));
    const size_t bs = rd.block_size;

    /* Leaks are looked for by name, not by count: the library's threads
     * (and a GPU driver's) open descriptors of their own meanwhile. */
    int pipe_fd[2];
    CHECK(pipe(pipe_fd) == 0, "pipe: %s", strerror(errno));
    struct stat pst;
    CHECK(fstat(pipe_fd[0], &pst) == 0, "fstat: %s", strerror(errno));
    char pipe_name[48];
    snprintf(pipe_name, sizeof pipe_name, "pipe:[%llu]", (unsigned long long)pst.st_ino);
    refused((struct pd_rec_head){.size = 300 * bs, .nblocks = 300, .flags = PD_REC_IN_FD}, NULL,
            0, pipe_fd[0], "not a sealed memory file", "a block list that is a pipe");
    close(pipe_fd[0]);
    close(pipe_fd[1]);

    const size_t list = 300 * sizeof(struct pd_rec_blk);
    int mfd = memfd_create("unsealed-list", MFD_CLOEXEC);
    CHECK(mfd >= 0 && ftruncate(mfd, (off_t)list) == 0, "memfd: %s", strerror(errno));
    refused((struct pd_rec_head){.size = 300 * bs, .nblocks = 300, .flags = PD_REC_IN_FD}, NULL,
            0, mfd, "not a sealed memory file", "a block list anyone may still change");
    close(mfd);

    mfd = sealed_memfd(list - sizeof(struct pd_rec_blk));
    refused((struct pd_rec_head){.size = 300 * bs, .nblocks = 300, .flags = PD_REC_IN_FD}, NULL,
            0, mfd, "not a file of its", "a sealed block list a block short");
    close(mfd);

    refused((struct pd_rec_head){.size = 300 * bs, .nblocks = 300, .flags = PD_REC_IN_FD}, NULL,
            0, -1, "list missing", "a record whose list never came");
    refused((struct pd_rec_head){.size = bs, .nblocks = PD_REC_MAX + 1u, .flags = PD_REC_IN_FD},
            NULL, 0, -1, "this range holds", "a record of more blocks than any importer takes");
    refused((struct pd_rec_head){.size = bs, .nblocks = (uint32_t)(rd.size / bs) + 1,
                                 .flags = PD_REC_IN_FD},
            NULL, 0, -1, "this range holds", "a record of more blocks than this range has");
    struct pd_rec_blk two[2] = {{0, 0, 0}, {0, 0, bs}};
    refused((struct pd_rec_head){.size = bs, .nblocks = 3}, two, sizeof two, -1,
            "not one of its exporter's", "an inline record short of its blocks");
    refused((struct pd_rec_head){.size = bs, .nblocks = 0}, NULL, 0, -1,
            "not one of its exporter's", "a record of no blocks");

    /* Two descriptors on one message: both closed, the message refused. */
    int a = memfd_create("extra-a", MFD_CLOEXEC), b = memfd_create("extra-b", MFD_CLOEXEC);
    CHECK(a >= 0 && b >= 0, "memfd: %s", strerror(errno));
    struct pd_slab_msg sm = {PD_SLAB_MAGIC, 3};
    tu_send_fds(chan[0], (int[2]){a, b}, 2, &sm, sizeof sm);
    close(a);
    close(b);
    struct uvas_pool_ptr_data d = {{.magic = UVAS_POOL_DEV_MAGIC, .offset = ++next_id,
                                    .size = bs, .pid = (int32_t)getpid(), .tier = 7}};
    void *ptr;
    tu_expect_refused(uvas_pool_import_pointer(pool, &d, &ptr), UVAS_ERR_INVAL,
                      "carries 2 descriptors", "a message with two descriptors");
    const char *sent[] = {pipe_name, "memfd:unsealed-list", "memfd:sealed-list", "memfd:extra-a",
                          "memfd:extra-b"};
    for (size_t i = 0; i < sizeof sent / sizeof sent[0]; i++)
        CHECK(tu_fds_to(sent[i]) == 0, "a descriptor of %s is still open after the hostile "
              "messages (a leak in the importer)", sent[i]);

    /* A slab whose descriptor is shorter than the greeting's slabs: taken,
     * the importer's CPU view of its blocks past the file's end would
     * SIGBUS (and the device's import reads past it). */
    int shortfd = memfd_create("short-slab", MFD_CLOEXEC);
    CHECK(shortfd >= 0 && ftruncate(shortfd, (off_t)hello.dev.slab_bytes) == 0, "memfd: %s",
          strerror(errno));
    struct pd_slab_msg ss = {PD_SLAB_MAGIC, 9};
    tu_send_fd(chan[0], shortfd, &ss, sizeof ss);
    close(shortfd);
    struct pd_rec_blk on9 = {9, 0, hello.dev.slab_bytes - bs}; /* the last block: past the end */
    refused((struct pd_rec_head){.size = bs, .nblocks = 1, .head_off = 0}, &on9, sizeof on9, -1,
            "holds", "a slab's descriptor shorter than the greeting's slabs and where they start");
    CHECK(tu_fds_to("memfd:short-slab") == 0, "the short slab's descriptor is still open after "
          "its refusal (a leak in the importer)");

    /* Still read after all that: a well-formed record naming a slab that
     * was never sent is refused for that, not for the channel. */
    refused((struct pd_rec_head){.size = bs, .nblocks = 1}, two, sizeof two[0], -1,
            "did not send", "a record of a slab never sent");

    CHECK_OK(uvas_pool_destroy(pool));
    close(chan[0]);
    CHECK_OK(uvas_finalize());
    printf("unit-pool-channel: a hostile exporter's records refused, the channel read on: ok\n");
    return 0;
}
