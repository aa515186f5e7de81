/*
 * The pinner's queue names block indices: blocks staged to the device,
 * freed before the pinner reaches them (a thread migrating another block
 * keeps it waiting) and reused by memory born on the device (no host
 * pages) must not get host pages allocated and imported for them (on a
 * driver that pins, memory nobody can swap). Before the fix: 16 of 16
 * device-born blocks had a kept import. Skips, saying so, where the
 * allocator did not hand the same blocks back.
 */
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "migrate/import_cache.h"
#include "uvas/internal.h"

static atomic_bool stop;
static unsigned char *busy_p;
static size_t busy_len;

static void *keep_migrating(void *a)
{
    (void)a;
    while (!atomic_load(&stop)) { /* the pinner waits while migrations run */
        uvas_migrate(busy_p, busy_len, UVAS_LOC_DEVICE, 0);
        uvas_migrate(busy_p, busy_len, UVAS_LOC_HOST, 0);
    }
    return NULL;
}

static long long memfd_bytes(void)
{
    struct stat st;
    CHECK(fstat(uvas_g.memfd, &st) == 0, "fstat");
    return (long long)st.st_blocks * 512;
}

int main(void)
{
    tu_deadline(60);
    tu_setenv("TU_SET_UVAS_STAGE_FIRST", "1");
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    size_t bs = d.block_size, n = 16, len = n * bs;
    busy_len = bs;
    busy_p = uvas_malloc(busy_len);
    memset(busy_p, 1, busy_len);
    unsigned char *p = uvas_malloc(len);
    CHECK(p, "malloc");
    memset(p, 7, len);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, keep_migrating, NULL) == 0, "pthread_create");
    usleep(1000);
    CHECK_OK(uvas_migrate(p, len, UVAS_LOC_DEVICE, 0)); /* staged: queued for the pinner */
    CHECK_OK(uvas_try_free(p));
    unsigned char *q = uvas_malloc_hint(len, UVAS_HINT_DEVICE); /* born on the device */
    CHECK(q, "malloc_hint");
    if (q != p)
        SKIP("the allocator did not reuse the blocks");
    tu_expect_blocks(q, len, UVAS_RES_DEVICE, "device-born");
    long long before = memfd_bytes();
    atomic_store(&stop, true);
    pthread_join(t, NULL);
    for (int i = 0; i < 2000 && tu_stats().pin_pending; i++)
        usleep(1000);
    long long after = memfd_bytes();
    printf("memfd bytes before %lld after %lld (pin_pending %llu)\n", before, after,
           (unsigned long long)tu_stats().pin_pending);
    size_t imp = 0;
    for (size_t i = 0; i < n; i++) imp += uvas_import_cache_has(uvas_block_index(q) + i);
    printf("device-born blocks with a kept host import: %zu of %zu\n", imp, n);
    CHECK(imp == 0, "the pinner imported host pages of %zu device-born blocks", imp);
    CHECK(after - before < (long long)len, "the pinner gave %lld bytes of host pages to blocks "
          "born on the device", after - before);
    CHECK_OK(uvas_finalize());
    return 0;
}
