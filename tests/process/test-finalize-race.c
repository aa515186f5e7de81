/*
 * uvas_finalize while other threads are in uvas calls and touching memory:
 * it waits for the calls in flight, returns, and every later call gets
 * UVAS_ERR_NOT_INIT (before: a segfault in the migration pipeline, or a
 * hang with finalize in the copy engine's teardown and a migration in its
 * wait). Threads migrate both ways, advise, allocate and free, make the
 * device write, and first-touch fresh memory; a toucher that reaches the
 * range after finalize unmapped it gets SIGSEGV, which it catches (the
 * program's own use after finalize). 20 cycles of init, race, finalize.
 */
#include <stdatomic.h>
#include <stdbool.h>

#include "process/common.h"
#include "uvas_policy.h"

#define LEN ((size_t)8 << 20)

static char *area;
static atomic_int stop;
static bool device;

struct worker {
    pthread_t th;
    int kind;
    int last;          /* the status that ended the loop */
    unsigned long ops; /* calls that succeeded */
};

static void *work(void *arg)
{
    struct worker *w = arg;
    for (unsigned i = 0; !atomic_load(&stop); i++) {
        int rc = UVAS_OK;
        switch (w->kind) {
        case 0:
            rc = uvas_migrate(area, LEN, i % 2 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE, 0);
            break;
        case 1:
            rc = uvas_advise(area, LEN, i % 2 ? UVAS_ADVISE_READ_MOSTLY
                                              : UVAS_ADVISE_UNSET_READ_MOSTLY, 0);
            break;
        case 2: { /* first touches of fresh memory, and frees */
            char *p = uvas_malloc((size_t)4 << 20);
            if (!p) {
                rc = strstr(uvas_last_error(), "finalized") ? UVAS_ERR_NOT_INIT
                                                            : UVAS_ERR_NOMEM;
                break;
            }
            unsigned char v = 1;
            if (pe_try_access((unsigned char *)p + (i % 4) * (1 << 20), 1, &v)) {
                rc = UVAS_ERR_NOT_INIT; /* the range went away under the touch */
                break;
            }
            rc = uvas_try_free(p);
            break;
        }
        case 3:
            rc = uvas_device_access(area, LEN / 2, (int)(i % 2), (unsigned char)i);
            break;
        case 4: { /* plain stores to memory that may migrate meanwhile */
            unsigned char v = (unsigned char)i;
            if (pe_try_access((unsigned char *)area + (i * 4096) % LEN, 1, &v))
                rc = UVAS_ERR_NOT_INIT;
            break;
        }
        }
        if (rc == UVAS_ERR_NOT_INIT || rc == UVAS_ERR_NOT_OWNED) {
            w->last = rc;
            return NULL;
        }
        CHECK(rc == UVAS_OK || rc == UVAS_ERR_NOMEM, "worker %d: status %d (%s): %s", w->kind,
              rc, uvas_strerror(rc), uvas_last_error());
        w->ops++;
    }
    return NULL;
}

int main(void)
{
    tu_watchdog(120);
    pe_catch_faults();
    unsigned long total[5] = {0};
    for (int cycle = 0; cycle < 20; cycle++) {
        struct uvas_range_desc d = tu_init_range("1G", "2M");
        device = d.device_present;
        area = uvas_malloc(LEN);
        CHECK(area != NULL, "uvas_malloc");
        memset(area, 5, LEN);
        atomic_store(&stop, 0);
        struct worker w[5];
        int nw = 0;
        for (int k = 0; k < 5; k++) {
            if (!device && (k == 0 || k == 3))
                continue;
            w[nw] = (struct worker){.kind = k};
            CHECK(pthread_create(&w[nw].th, NULL, work, &w[nw]) == 0, "pthread_create");
            nw++;
        }
        struct timespec t = {0, (10 + cycle * 3) * 1000000L};
        nanosleep(&t, NULL);
        CHECK_OK(uvas_finalize());
        /* Every call from now on is refused. */
        CHECK_STATUS(uvas_migrate(area, LEN, UVAS_LOC_HOST, 0), UVAS_ERR_NOT_INIT);
        CHECK_STATUS(uvas_advise(area, LEN, UVAS_ADVISE_READ_MOSTLY, 0), UVAS_ERR_NOT_INIT);
        CHECK_STATUS(uvas_migrate_wait(), UVAS_ERR_NOT_INIT);
        CHECK(uvas_malloc(100) == NULL && strstr(uvas_last_error(), "finalized"),
              "an allocation after uvas_finalize started uvas again");
        atomic_store(&stop, 1);
        for (int i = 0; i < nw; i++) {
            pthread_join(w[i].th, NULL);
            total[w[i].kind] += w[i].ops;
        }
    }
    printf("20 cycles: %lu migrations, %lu advice calls, %lu allocations touched, %lu device "
           "accesses, %lu stores before finalize; every call after it refused\n", total[0],
           total[1], total[2], total[3], total[4]);
    printf("ok\n");
    return 0;
}
