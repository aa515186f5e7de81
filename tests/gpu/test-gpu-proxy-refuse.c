/*
 * The kernels' proxy refuses an atomic it cannot make atomic
 * (transport/pe/kernel_proxy.c): a kernel's atomic on this PE's word goes
 * to the host only when the kernel does not hold the word's block; if a
 * kernel holds it on the device by the time the host serves the request,
 * a host atomic there would race the kernels' device atomics on it, so
 * the request is refused, saying why, and the word is left alone. A kernel
 * makes that happen only by a fault racing its own call, so the requests
 * are built here and handed to the proxy as the launching thread does,
 * with the block held by uvas_gpu_hold on the device.
 *
 * Also: the same atomic is served once the hold is gone, a put with
 * signal whose signal word is held is refused after its data landed, and
 * a host-resident held block is no reason to refuse.
 */
#include <shmem.h>
#include <string.h>

#include "check.h"
#include "gpu/ring.h"
#include "transport/pe/kernel_proxy.h"
#include "transport/pe/pe.h"
#include "uvas/internal.h"
#include "uvas/status.h"
#include "uvas_gpu.h"

static int serve(struct uvas_ring_req *r)
{
    uvas_clear_error();
    return uvas_pe_serve_kernel(r);
}

static struct uvas_ring_req amo_add(uint64_t *at, uint64_t v)
{
    return (struct uvas_ring_req){.op = UVAS_RING_AMO, .pe = shmem_my_pe(), .size = 8,
                                  .addr = (uintptr_t)at, .value = v, .amo = UVAS_AMO_ADD};
}

int main(void)
{
    tu_deadline(60);
    shmem_init();
    size_t bs = uvas_g.block_size;
    uint64_t *w = shmem_malloc(2 * bs);
    CHECK(w != NULL, "shmem_malloc");
    memset(w, 0, 2 * bs);
    uint64_t *sig = w + bs / 8; /* the next block */

    /* Not held: the host makes the atomic. */
    struct uvas_ring_req r = amo_add(w, 5);
    CHECK_OK(serve(&r));
    CHECK_EQ(w[0], 5, "the served add");

    /* Held on the device: refused, the word untouched. */
    int rc = uvas_migrate(w, 2 * bs, UVAS_LOC_DEVICE, 0);
    if (rc == UVAS_ERR_NO_DEVICE)
        SKIP("no device tier here: %s", uvas_last_error());
    CHECK_OK(rc);
    uvas_gpu_hold_t *h;
    rc = uvas_gpu_hold_range(w, 2 * bs, &h);
    if (rc == UVAS_ERR_NO_DEVICE)
        SKIP("no device runs kernels here: %s", uvas_last_error());
    CHECK_OK(rc);
    uint32_t st = atomic_load(&uvas_g.bt[uvas_block_index(w)].state);
    if (uvas_blk_res(st) != UVAS_RES_DEVICE)
        SKIP("the held block is not device-resident on this device (residence %d)",
             uvas_blk_res(st));
    r = amo_add(w, 7);
    rc = serve(&r);
    CHECK_EQ(rc, UVAS_ERR_INVAL, "an atomic on a word a kernel holds on the device");
    CHECK(strstr(uvas_last_error(), "a kernel holds on the device") &&
              strstr(uvas_last_error(), "a shmem atomic in a kernel"),
          "the refusal names the call and says why: %s", uvas_last_error());

    /* A put with signal: the data lands, the held signal is refused. */
    uint64_t *dst = shmem_malloc(64);
    CHECK(dst != NULL, "shmem_malloc");
    memset(dst, 0, 64);
    struct uvas_ring_req ps = {.op = UVAS_RING_PUT_SIGNAL, .pe = shmem_my_pe(), .size = 8,
                               .addr = (uintptr_t)dst, .sig = (uintptr_t)sig, .value = 1,
                               .amo = 1 /* SHMEM_SIGNAL_ADD */};
    uint64_t pay = 0x1122334455667788ull;
    memcpy(ps.payload, &pay, 8);
    rc = serve(&ps);
    CHECK_EQ(rc, UVAS_ERR_INVAL, "a signal on a word a kernel holds on the device");
    uvas_gpu_release(h);
    CHECK_EQ(dst[0], pay, "the data of the refused put with signal");
    CHECK_EQ(w[0], 5, "the refused add changed the word");
    CHECK_EQ(sig[0], 0, "the refused signal changed its word");

    /* Hold gone: the same request is served. */
    r = amo_add(w, 7);
    CHECK_OK(serve(&r));
    CHECK_EQ(w[0], 12, "the add served after the hold");

    /* Held at the host: the host's atomic is the only kind there. */
    CHECK_OK(uvas_migrate(w, bs, UVAS_LOC_HOST, 0));
    CHECK_OK(uvas_gpu_hold_range(w, 8, &h));
    st = atomic_load(&uvas_g.bt[uvas_block_index(w)].state);
    if (uvas_blk_res(st) == UVAS_RES_HOST) {
        r = amo_add(w, 1);
        CHECK_OK(serve(&r));
    }
    uvas_gpu_release(h);
    CHECK(w[0] == 13 || uvas_blk_res(st) != UVAS_RES_HOST, "the add on a host-held word");

    shmem_free(dst);
    shmem_free(w);
    shmem_finalize();
    printf("gpu-proxy-refuse: atomics and signals on words a kernel holds on the device "
           "refused, served once the hold is gone\n");
    return 0;
}
