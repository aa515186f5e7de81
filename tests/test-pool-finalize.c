/*
 * Pools outlive uvas_finalize empty: the memory they cached or lent went
 * with the range. After a new uvas_init, the default pool and a pool made
 * before the finalize hand out fresh memory, never an address of the old
 * range that the new one has meanwhile given to someone else; their usage
 * starts from zero; a pointer of the old range is no pool's to free. And
 * between the finalize and the next init, queue-ordered allocation fails
 * with UVAS_ERR_NOT_INIT, not with a stale pointer.
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "uvas_queue.h"

#define SZ (64 * 1024)

int main(void)
{
    tu_init_range("256M", "64K");
    uvas_queue_t *q;
    CHECK_OK(uvas_queue_create(&q));
    struct uvas_pool_props props = {UVAS_POOL_HOST, SIZE_MAX, UVAS_POOL_REUSE_ALL};
    uvas_pool_t *pool;
    CHECK_OK(uvas_pool_create(&props, &pool));
    /* Each pool caches one block: freed on q, kept (threshold SIZE_MAX for
     * pool; the default pool's cache holds it until a sync). */
    char *a = uvas_malloc_async(SZ, q);
    char *b = uvas_malloc_from_pool_async(SZ, pool, q);
    CHECK(a && b, "uvas_malloc_async: %s", uvas_last_error());
    CHECK_OK(uvas_free_async(a, q));
    CHECK_OK(uvas_free_async(b, q));
    /* No sync (it would give the default pool's block back): the queue
     * lives on through the finalize, as a program's long-lived one does. */
    struct uvas_pool_usage u;
    CHECK_OK(uvas_pool_get_usage(pool, &u));
    CHECK_EQ(u.reserved, SZ, "the pool's cache before the finalize");
    CHECK_OK(uvas_finalize());

    /* No range: nothing to hand out. */
    uvas_queue_t *q0;
    if (uvas_queue_create(&q0) == UVAS_OK) {
        errno = 0;
        void *x = uvas_malloc_async(SZ, q0);
        CHECK(x == NULL, "uvas_malloc_async after uvas_finalize returned %p", x);
        x = uvas_malloc_from_pool_async(SZ, pool, q0);
        CHECK(x == NULL, "uvas_malloc_from_pool_async after uvas_finalize returned %p", x);
        CHECK_OK(uvas_queue_destroy(q0));
    }

    tu_init_range("256M", "64K");
    /* The new range's allocations may take the old addresses. */
    char *plain[8];
    for (int i = 0; i < 8; i++) {
        plain[i] = uvas_malloc(SZ);
        CHECK(plain[i] != NULL, "uvas_malloc: %s", uvas_last_error());
        memset(plain[i], 0x11 * (i + 1), SZ);
    }
    char *c = uvas_malloc_async(SZ, q);
    char *d = uvas_malloc_from_pool_async(SZ, pool, q);
    CHECK(c && d, "uvas_malloc_async after a new uvas_init: %s", uvas_last_error());
    for (int i = 0; i < 8; i++)
        CHECK(c != plain[i] && d != plain[i], "a pool handed out %p, the old range's cached "
              "block, which the new range gave to uvas_malloc", c == plain[i] ? c : d);
    memset(c, 0xee, SZ);
    memset(d, 0xdd, SZ);
    for (int i = 0; i < 8; i++)
        for (size_t k = 0; k < SZ; k += 4096)
            CHECK_EQ((unsigned char)plain[i][k], 0x11 * (i + 1),
                     "a uvas_malloc block after writing the pools' blocks");
    CHECK_OK(uvas_pool_get_usage(pool, &u));
    CHECK_EQ(u.reserved, SZ, "the pool's reservation after a finalize: the new block only");
    CHECK_EQ(u.used, SZ, "the pool's use after a finalize");
    /* The old pointers are nobody's now. */
    int rc = uvas_free_async(a, q);
    CHECK(rc != UVAS_OK || a == c || a == d, "uvas_free_async of the old range's %p", (void *)a);
    CHECK_OK(uvas_free_async(c, q));
    CHECK_OK(uvas_free_async(d, q));
    CHECK_OK(uvas_queue_sync(q));
    CHECK_OK(uvas_queue_destroy(q));
    CHECK_OK(uvas_pool_destroy(pool));
    for (int i = 0; i < 8; i++)
        uvas_free(plain[i]);
    CHECK_OK(uvas_finalize());
    printf("pool-finalize: the pools came through a finalize empty and handed out fresh "
           "memory\n");
    return 0;
}
