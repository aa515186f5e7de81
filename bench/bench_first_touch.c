/*
 * First touch: write one byte in each 4 KiB page of a fresh uvas
 * allocation and of a fresh anonymous mmap, alternating the two within
 * each repetition so both see the same machine state. Reports the per-page
 * cost of each and their ratio (median over repetitions).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "uvas.h"

static double touch_ns_per_page(volatile char *p, size_t pages)
{
    uint64_t t0 = bench_now_ns();
    for (size_t i = 0; i < pages; i++)
        p[i * 4096] = 1;
    return (double)(bench_now_ns() - t0) / (double)pages;
}

int bench_first_touch(int argc, char **argv)
{
    size_t pages = 16384; /* 64 MiB */
    int reps = 9;
    size_t block = 0;
    int opt;
    optind = 1;
    while ((opt = getopt(argc, argv, "p:r:b:")) != -1) {
        switch (opt) {
        case 'p': pages = strtoull(optarg, NULL, 0); break;
        case 'r': reps = atoi(optarg); break;
        case 'b': block = strtoull(optarg, NULL, 0); break;
        default: return 2;
        }
    }
    if (pages == 0 || reps < 1 || reps > 1000) {
        fprintf(stderr, "first-touch: need -p >= 1 and 1 <= -r <= 1000\n");
        return 2;
    }
    struct uvas_options o = {.block_size = block};
    int rc = uvas_init(&o);
    if (rc) {
        fprintf(stderr, "first-touch: uvas_init: %s\n", uvas_last_error());
        return 1;
    }
    struct uvas_range_desc d;
    uvas_range(&d);
    printf("first-touch: %zu pages x %d reps, block %zu KiB, fault mode %s, %u fault threads\n",
           pages, reps, d.block_size >> 10, d.fault_mode == UVAS_FAULT_UFFD ? "uffd" : "eager",
           d.fault_threads);
    double *u = calloc((size_t)reps, sizeof *u), *k = calloc((size_t)reps, sizeof *k);
    double *ratio = calloc((size_t)reps, sizeof *ratio);
    size_t len = pages * 4096;
    for (int r = 0; r < reps; r++) {
        char *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char *p = uvas_malloc(len);
        if (a == MAP_FAILED || !p) {
            fprintf(stderr, "first-touch: allocation failed: %s\n",
                    p ? strerror(errno) : uvas_last_error());
            return 1;
        }
        /* Alternate which goes first, so neither always finds a warmer machine. */
        if (r % 2) {
            u[r] = touch_ns_per_page(p, pages);
            k[r] = touch_ns_per_page(a, pages);
        } else {
            k[r] = touch_ns_per_page(a, pages);
            u[r] = touch_ns_per_page(p, pages);
        }
        ratio[r] = u[r] / k[r];
        munmap(a, len);
        uvas_free(p);
    }
    double um = bench_median(u, reps), km = bench_median(k, reps);
    double rm = bench_median(ratio, reps);
    struct uvas_stats st;
    uvas_stats_get(&st);
    printf("  kernel demand paging: %8.0f ns/page (median)\n", km);
    printf("  uvas first touch:     %8.0f ns/page (median), %llu faults, %.1f us/fault avg\n",
           um, (unsigned long long)st.faults,
           st.faults ? (double)st.fault_ns_total / (double)st.faults / 1000.0 : 0.0);
    free(u);
    free(k);
    free(ratio);
    uvas_finalize();
    bench_metric("first_touch.kernel_ns%s", km, "");
    bench_metric("first_touch.uvas_ns%s", um, "");
    bench_metric("first_touch.uvas_over_kernel%s", rm, "");
    printf("first-touch ratio uvas/kernel: %.2f\n", rm);
    return 0;
}
