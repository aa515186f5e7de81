/*
 * A CPU sweep over device-resident blocks, then a query: every block the
 * sweep wrote must read "host". The sweep's first fault brings its block
 * back alone and the next ones come in one pipelined migration (the
 * readahead); the thread woken for the first of those runs on into the
 * others as soon as their pages are mapped, which can be before the
 * migration has ended them. A query must not answer "device" for memory
 * the CPU has just written in place (found as a rare failure of
 * test-hints on a loaded CI machine). Spinning threads beside the sweep
 * make the migration thread lose the CPU between the mapping and the end.
 * Without the fix it failed about once in 800 sweeps on a 2-core machine.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"

static atomic_int stop;

static void *spin(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        ; /* a CPU hog: the scheduler preempts the others for it */
    return NULL;
}

int main(void)
{
    tu_deadline(120);
    struct uvas_range_desc d = tu_init_device("256M", "2M");
    const size_t nb = 6, len = nb * d.block_size;
    unsigned char *p = uvas_malloc(len);
    CHECK(p != NULL, "uvas_malloc: %s", uvas_last_error());
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, spin, NULL) == 0, "pthread_create");
    /* Bounded by sweeps and by time (a sanitizer's build sweeps slower). */
    double t0 = tu_now_s();
    unsigned r;
    for (r = 1; r <= 500 && (r <= 20 || tu_now_s() - t0 < 20); r++) {
        CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0));
        memset(p, (int)r, len);
        for (size_t b = 0; b < nb; b++) {
            int res = tu_residence(p + b * d.block_size);
            CHECK(res == UVAS_RES_HOST, "round %u: block %zu of %zu reads %s after the CPU "
                  "wrote all of it", r, b, nb, uvas_residence_name(res));
        }
        CHECK(tu_find_not(p, len, (unsigned char)r) < 0, "round %u: data", r);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    printf("test-touch-query: %u sweeps over device-resident blocks, each block host after "
           "the CPU wrote it\n", r - 1);
    return 0;
}
