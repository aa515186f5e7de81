// cudaMallocAsync beside uvas's queue-ordered allocation (uvas-bench queue),
// on the same GPU in the same run: for each size, iterations of
// cudaMallocAsync, a kernel writing every element, cudaFreeAsync on one
// stream, then one synchronize; time per iteration and the pool's reserved
// memory at the end (default pool, release threshold 0). Built on the
// device machine by scripts/device-run.sh queue; not part of the product.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "um-common.h"

__global__ void fill(unsigned *x, size_t n, unsigned v)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = v;
}

static double now_us()
{
    return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
               .count() / 1e3;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 1000;
    size_t max_mib = argc > 2 ? strtoull(argv[2], 0, 0) : 64;
    size_t max_groups = argc > 3 ? strtoull(argv[3], 0, 0) : 1024; // uvas-bench queue -g
    if (max_groups < 1 || max_groups > 65535)
        max_groups = 1024;
    CK(cudaSetDevice(0));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaMemPool_t pool;
    CK(cudaDeviceGetDefaultMemPool(&pool, 0));
    void *w;
    CK(cudaMalloc(&w, 4096)); // warm-up: context and module
    fill<<<4, 256, 0, s>>>((unsigned *)w, 1024, 0);
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(w));
    // and the loop itself, untimed (the pool's first use), as uvas-bench queue does
    for (int i = 0; i < 100; i++) {
        void *p;
        CK(cudaMallocAsync(&p, 4096, s));
        fill<<<4, 256, 0, s>>>((unsigned *)p, 1024, (unsigned)i);
        CK(cudaFreeAsync(p, s));
    }
    CK(cudaStreamSynchronize(s));
    printf("cuda queue: %d iterations per size of cudaMallocAsync, a kernel writing every "
           "element, cudaFreeAsync (at most %zu blocks of 256)\n", iters, max_groups);
    const size_t sizes[] = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20};
    for (size_t size : sizes) {
        if (size > max_mib << 20)
            break;
        size_t n = size / 4, g = (n + 255) / 256;
        if (g > max_groups)
            g = max_groups;
        double t0 = now_us();
        for (int i = 0; i < iters; i++) {
            void *p;
            CK(cudaMallocAsync(&p, size, s));
            fill<<<(unsigned)g, 256, 0, s>>>((unsigned *)p, n, (unsigned)i);
            CK(cudaFreeAsync(p, s));
        }
        CK(cudaStreamSynchronize(s));
        double us = (now_us() - t0) / iters;
        unsigned long long reserved = 0; // the attribute is a cuuint64_t (64 bits)
        CK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
        printf("  %8zuK %12.2f us/iter  reserved %llu KiB\n", size >> 10, us,
               (unsigned long long)(reserved >> 10));
        printf("metric cuda_queue.%zuK.async_us %g\n", size >> 10, us);
        printf("metric cuda_queue.%zuK.reserved_kib %llu\n", size >> 10,
               (unsigned long long)(reserved >> 10));
    }
    return 0;
}
