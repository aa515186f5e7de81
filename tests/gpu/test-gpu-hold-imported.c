/*
 * Memory imported from another process's device pool and held on the
 * device (uvas_gpu_hold, as a kernel's launch holds its arguments):
 *
 * - a kernel's put or get to it through the ring: the host reaches such
 *   a block only through the CPU's mapping, which waits for the holds to
 *   end, and the launching thread serving the request waited for itself
 *   for ever. Refused now, saying why (transport/pe/kernel_proxy.c); the
 *   requests are built here and handed to the proxy as the launching
 *   thread does;
 * - uvas_pool_destroy of the imported pool: it freed the imports with the
 *   allocator's lock held, waiting for the hold for ever, and every other
 *   thread's allocation with it. Refused now, naming uvas_gpu_release;
 *   after the release it destroys.
 *
 * The parent exports a device pool's allocation; the child imports it.
 * Found by review (Nov 29, twenty-third session).
 */
#include <shmem.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "check.h"
#include "gpu/ring.h"
#include "transport/pe/kernel_proxy.h"
#include "uvas/status.h"
#include "uvas_gpu.h"
#include "uvas_queue.h"

static int serve(struct uvas_ring_req *r)
{
    uvas_clear_error();
    return uvas_pe_serve_kernel(r);
}

static int importer(int sock)
{
    tu_deadline(60);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    shmem_init();
    struct uvas_pool_ptr_data r;
    int fd = tu_recv_fd(sock, &r, sizeof r);
    CHECK(fd >= 0, "no pool descriptor from the exporter");
    uvas_pool_t *pool;
    CHECK_OK(uvas_pool_import(fd, &pool));
    close(fd);
    uint64_t *x;
    CHECK_OK(uvas_pool_import_pointer(pool, &r, (void **)&x));
    uvas_gpu_hold_t *h;
    int rc = uvas_gpu_hold(&(const void *){x}, 1, &h);
    if (rc == UVAS_ERR_NO_DEVICE)
        SKIP("no device runs kernels here: %s", uvas_last_error());
    CHECK_OK(rc);

    struct uvas_ring_req put = {.op = UVAS_RING_PUT, .pe = shmem_my_pe(), .size = 8,
                                .addr = (uintptr_t)x};
    uint64_t pay = 0x0102030405060708ull;
    memcpy(put.payload, &pay, 8);
    double t0 = tu_now_s();
    rc = serve(&put);
    CHECK_EQ(rc, UVAS_ERR_INVAL, "a kernel's put to its own held imported memory");
    CHECK(strstr(uvas_last_error(), "shmem_putmem in a kernel") &&
              strstr(uvas_last_error(), "holds on the device"),
          "the refusal names the call and says why: %s", uvas_last_error());
    struct uvas_ring_req get = {.op = UVAS_RING_GET, .pe = shmem_my_pe(), .size = 8,
                                .addr = (uintptr_t)x};
    CHECK_EQ(serve(&get), UVAS_ERR_INVAL, "a kernel's get from its own held imported memory");
    CHECK(tu_now_s() - t0 < 10, "the refusals took %.1f s", tu_now_s() - t0);

    tu_expect_refused(uvas_pool_destroy(pool), UVAS_ERR_INVAL, "uvas_gpu_release",
                      "destroying an imported pool whose memory is held");
    void *other = uvas_malloc(64); /* the allocator goes on */
    CHECK(other != NULL, "uvas_malloc beside the refused destroy");
    uvas_free(other);
    uvas_gpu_release(h);
    /* The exporter's data through the import, read by a kernel: the CPU
     * does not reach another process's device memory on every driver
     * (NVIDIA's is not mapped in place; uvas_queue_copy is the CPU's). */
    uint64_t *got = uvas_malloc(16);
    CHECK(got != NULL, "uvas_malloc");
    struct {
        uint64_t dst, src;
        uint32_t n;
    } ca = {(uintptr_t)got, (uintptr_t)x, 4};
    CHECK_OK(tu_launch(tu_kernel("copy"), 4, &ca, sizeof ca));
    CHECK_EQ(got[1], 0x5a5a5a5a5a5a5a5aull, "the exporter's data through the import");
    uvas_free(got);
    CHECK_OK(uvas_pool_destroy(pool));
    shmem_finalize();
    return 0;
}

int main(void)
{
    tu_deadline(90);
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
    fflush(stdout);
    pid_t child = fork();
    CHECK(child >= 0, "fork");
    if (child == 0) {
        close(sv[0]);
        _exit(importer(sv[1]));
    }
    close(sv[1]);
    tu_init_device("256M", "64K");
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    struct uvas_pool_props props = {UVAS_POOL_DEVICE, 0, UVAS_POOL_REUSE_ALL};
    uvas_pool_t *pool;
    int rc = uvas_pool_create(&props, &pool);
    int st;
    if (rc == UVAS_ERR_NO_DEVICE) {
        close(sv[0]);
        waitpid(child, &st, 0);
        SKIP("no device tier: %s", uvas_last_error());
    }
    CHECK_OK(rc);
    uint64_t *big = uvas_malloc_from_pool_async(256 * 1024, pool, q);
    CHECK(big != NULL, "uvas_malloc_from_pool_async");
    CHECK_OK(uvas_queue_sync(q));
    static uint64_t fill[256 * 1024 / 8];
    for (size_t i = 0; i < 256 * 1024 / 8; i++)
        fill[i] = 0x5a5a5a5a5a5a5a5aull;
    CHECK_OK(uvas_queue_copy(q, big, fill, sizeof fill)); /* not the CPU: see the importer */
    CHECK_OK(uvas_queue_sync(q));
    int fd;
    CHECK_OK(uvas_pool_export(pool, &fd));
    struct uvas_pool_ptr_data r;
    CHECK_OK(uvas_pool_export_pointer(big, &r));
    tu_send_fd(sv[0], fd, &r, sizeof r);
    close(fd);
    CHECK(waitpid(child, &st, 0) == child, "waitpid");
    close(sv[0]);
    if (WIFEXITED(st) && WEXITSTATUS(st) == TU_EXIT_SKIP)
        SKIP("the importer skipped");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the importer ended with status %#x", st);
    uvas_free_async(big, q);
    CHECK_OK(uvas_queue_sync(q));
    CHECK_OK(uvas_pool_destroy(pool));
    uvas_queue_destroy(q);
    CHECK_OK(uvas_finalize());
    printf("gpu-hold-imported: puts, gets and the pool's destroy refused while held\n");
    return 0;
}
