/*
 * The multi-heap mockup (shared/seeds/000: "Mockup shmem-multi-heaps"),
 * as a program: a host-heap and a device-heap object from
 * shmem_malloc_with_hints, a plain shmem_malloc whose heap
 * SHMEM_SYMMETRIC_HEAP_DEFAULT chooses, something useful done with all
 * three from the CPU, then free and finalize. On top of the mockup it
 * asks the shmemx query API which heap each came from and where each
 * lives, prints that on PE 0, and checks it:
 *
 *   argv[1]   SHMEM_SYMMETRIC_HEAP_DEFAULT   plain shmem_malloc
 *   unset     unset or empty                 unified heap; placed on the
 *                                            host by first touch
 *   HOST      HOST                           host heap, host memory
 *   DEVICE    DEVICE                         device heap, device memory
 *                                            (host memory without a device)
 *
 * argv[1] is what meson set, so a variable lost on its way to the PEs
 * fails the test instead of passing it for the wrong reason.
 */
#include <shmem.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tests/check.h"

static const char *heap_name(int h)
{
    return h == SHMEMX_HEAP_UNIFIED ? "unified" : h == SHMEMX_HEAP_HOST ? "host" :
           h == SHMEMX_HEAP_DEVICE ? "device" : "?";
}

static const char *res_name(int r)
{
    return r == SHMEMX_RES_UNPOPULATED ? "untouched" : r == SHMEMX_RES_HOST ? "host memory" :
           r == SHMEMX_RES_DEVICE ? "device memory" : "?";
}

int main(int argc, char *argv[])
{
    if (argc != 2 || (strcmp(argv[1], "unset") && strcmp(argv[1], "HOST") &&
                      strcmp(argv[1], "DEVICE"))) {
        fprintf(stderr, "usage: %s unset|HOST|DEVICE (the SHMEM_SYMMETRIC_HEAP_DEFAULT "
                "the job runs with)\n", argv[0]);
        return 1;
    }
    const char *setting = argv[1];
    const char *env = getenv("SHMEM_SYMMETRIC_HEAP_DEFAULT");
    if (!strcmp(setting, "unset"))
        CHECK(!env || !*env, "SHMEM_SYMMETRIC_HEAP_DEFAULT is '%s', expected unset", env);
    else
        CHECK(env && !strcasecmp(env, setting), "SHMEM_SYMMETRIC_HEAP_DEFAULT is '%s', "
              "expected '%s' (not passed to the PEs?)", env ? env : "(unset)", setting);

    /* ---- the mockup ---- */
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    long *cpubuf = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_HOST_HEAP);
    long *gpubuf = shmem_malloc_with_hints(sizeof(long), SHMEM_MALLOC_DEVICE_HEAP);
    /* backward compatible call pattern: the default heap */
    long *buf = shmem_malloc(sizeof(long));
    CHECK(cpubuf && gpubuf && buf, "allocations: %p %p %p", (void *)cpubuf, (void *)gpubuf,
          (void *)buf);

    /* Something useful, CPU-initiated, with every allocation pattern: the
     * host-heap object by loads and stores and atomics, the other two
     * through RMA only (a CPU store would bring a device-resident block
     * back to the host, as for managed memory). */
    *cpubuf = me;
    shmem_barrier_all();
    shmem_long_atomic_add(cpubuf, 1000, right);
    shmem_long_p(gpubuf, 100 + me, right);
    shmem_long_p(buf, 200 + me, right);
    shmem_barrier_all();
    CHECK_EQ(*cpubuf, me + 1000, "host-heap object: own store + the left PE's atomic add");
    CHECK_EQ(shmem_long_g(gpubuf, me), 100 + left, "device-heap object: the left PE's put");
    CHECK_EQ(shmem_long_g(buf, me), 200 + left, "plain object: the left PE's put");
    CHECK_EQ(shmem_long_g(gpubuf, right), 100 + me, "device-heap object at the right PE");
    CHECK_EQ(shmem_long_g(buf, right), 200 + me, "plain object at the right PE");

    /* ---- the query API ---- */
    int dev = shmemx_device_present();
    int def = shmemx_default_heap();
    int want_def = !strcmp(setting, "HOST") ? SHMEMX_HEAP_HOST :
                   !strcmp(setting, "DEVICE") ? SHMEMX_HEAP_DEVICE : SHMEMX_HEAP_UNIFIED;
    CHECK(dev == 0 || dev == 1, "shmemx_device_present: %d", dev);
    CHECK_EQ(def, want_def, "shmemx_default_heap");

    int h_cpu = shmemx_heap_of(cpubuf), h_gpu = shmemx_heap_of(gpubuf),
        h_buf = shmemx_heap_of(buf);
    int r_cpu = shmemx_residence(cpubuf, me), r_gpu = shmemx_residence(gpubuf, me),
        r_buf = shmemx_residence(buf, me);
    CHECK_EQ(h_cpu, SHMEMX_HEAP_HOST, "heap of the HOST_HEAP object");
    if (dev)
        CHECK_EQ(h_gpu, SHMEMX_HEAP_DEVICE, "heap of the DEVICE_HEAP object");
    else
        CHECK(h_gpu == SHMEMX_HEAP_DEVICE || h_gpu == SHMEMX_HEAP_HOST,
              "heap of the DEVICE_HEAP object without a device: %d", h_gpu);
    CHECK_EQ(h_buf, def, "heap of plain shmem_malloc is the default heap");
    int dev_res = dev ? SHMEMX_RES_DEVICE : SHMEMX_RES_HOST;
    CHECK_EQ(r_cpu, SHMEMX_RES_HOST, "residence of the HOST_HEAP object");
    CHECK_EQ(r_gpu, dev_res, "residence of the DEVICE_HEAP object");
    CHECK_EQ(r_buf, want_def == SHMEMX_HEAP_DEVICE ? dev_res : SHMEMX_RES_HOST,
             "residence of the touched plain shmem_malloc object");
    /* The same at the neighbour, asked from here. */
    CHECK_EQ(shmemx_residence(cpubuf, right), r_cpu, "HOST_HEAP object at the right PE");
    CHECK_EQ(shmemx_residence(gpubuf, right), r_gpu, "DEVICE_HEAP object at the right PE");
    CHECK_EQ(shmemx_residence(buf, right), r_buf, "plain object at the right PE");
    shmem_barrier_all();

    if (me == 0) {
        printf("SHMEM_SYMMETRIC_HEAP_DEFAULT=%s; device tier: %s; %d PEs\n",
               env && *env ? env : "(unset)", dev ? "yes" : "no", npes);
        printf("  cpubuf = shmem_malloc_with_hints(HOST_HEAP):   %s heap, in %s\n",
               heap_name(h_cpu), res_name(r_cpu));
        printf("  gpubuf = shmem_malloc_with_hints(DEVICE_HEAP): %s heap, in %s\n",
               heap_name(h_gpu), res_name(r_gpu));
        printf("  buf    = shmem_malloc:                         %s heap, in %s "
               "(plain shmem_malloc goes to the %s heap by default)\n",
               heap_name(h_buf), res_name(r_buf), heap_name(def));
    }

    shmem_free(cpubuf);
    shmem_free(gpubuf);
    shmem_free(buf);

    shmem_finalize();
    return 0;
}
