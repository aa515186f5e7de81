/*
 * Residency query cost: uvas_query on pointers drawn at random from many
 * live allocations of mixed sizes (slab and whole-block), half of them
 * touched, so the lookups miss caches as real callers' do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "uvas.h"

#define NALLOC 4096

int bench_query(int argc, char **argv)
{
    size_t n = 4000000;
    int opt;
    optind = 1;
    while ((opt = getopt(argc, argv, "n:")) != -1) {
        if (opt == 'n')
            n = strtoull(optarg, NULL, 0);
        else
            return 2;
    }
    if (uvas_init(NULL)) {
        fprintf(stderr, "query: uvas_init: %s\n", uvas_last_error());
        return 1;
    }
    static char *ptr[NALLOC];
    static size_t len[NALLOC];
    unsigned seed = 12345;
    for (int i = 0; i < NALLOC; i++) {
        len[i] = (i % 4 == 0) ? 65536 + (size_t)(rand_r(&seed) % (1 << 20))
                              : 16 + (size_t)(rand_r(&seed) % 2048);
        ptr[i] = uvas_malloc(len[i]);
        if (!ptr[i]) {
            fprintf(stderr, "query: uvas_malloc: %s\n", uvas_last_error());
            return 1;
        }
        if (i % 2)
            ptr[i][0] = 1;
    }
    /* Pointers precomputed so the loop times the query alone. */
    const void **q = malloc(n * sizeof *q);
    for (size_t i = 0; i < n; i++) {
        int a = rand_r(&seed) % NALLOC;
        q[i] = ptr[a] + (size_t)rand_r(&seed) % len[a];
    }
    struct uvas_ptr_info info;
    size_t res[UVAS_RES_COUNT] = {0};
    double runs[5];
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = bench_now_ns();
        for (size_t i = 0; i < n; i++) {
            if (uvas_query(q[i], &info)) {
                fprintf(stderr, "query: %s\n", uvas_last_error());
                return 1;
            }
            res[info.residence]++;
        }
        runs[r] = (double)(bench_now_ns() - t0) / (double)n;
    }
    printf("query: %zu lookups x 5 over %d allocations: %zu unpopulated, %zu host answers\n", n,
           NALLOC, res[UVAS_RES_UNPOPULATED], res[UVAS_RES_HOST]);
    /* The reference in the same run: the kernel's own "is this page
     * resident" question, mincore(2) of one page, on the same pointers. */
    size_t nk = n < 200000 ? n : 200000;
    double kruns[5];
    unsigned char vec;
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = bench_now_ns();
        for (size_t i = 0; i < nk; i++)
            mincore((void *)((uintptr_t)q[i] & ~(uintptr_t)4095), 1, &vec);
        kruns[r] = (double)(bench_now_ns() - t0) / (double)nk;
    }
    double qns = bench_median(runs, 5), kns = bench_median(kruns, 5);
    printf("  mincore(2) of one page, same pointers: %.1f ns/call\n", kns);
    bench_metric("query.uvas_ns%s", qns, "");
    bench_metric("query.mincore_ns%s", kns, "");
    free(q);
    for (int i = 0; i < NALLOC; i++)
        uvas_free(ptr[i]);
    uvas_finalize();
    printf("query ns/op: %.1f\n", qns);
    return 0;
}
