// What the CUDA Unified Memory references (um-bench.cu, um-exp.cu) share.
#ifndef UVAS_BENCH_UM_COMMON_H
#define UVAS_BENCH_UM_COMMON_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                       \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

// CUDA 13 takes a cudaMemLocation (and flags); older toolkits a device id.
static inline cudaMemLocation um_where(bool gpu, int dev)
{
    cudaMemLocation loc = {};
    loc.type = gpu ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = gpu ? dev : 0;
    return loc;
}

static inline cudaError_t prefetch(void *p, size_t len, bool gpu, int dev, cudaStream_t s)
{
#if CUDART_VERSION >= 13000
    return cudaMemPrefetchAsync(p, len, um_where(gpu, dev), 0, s);
#else
    return cudaMemPrefetchAsync(p, len, gpu ? dev : cudaCpuDeviceId, s);
#endif
}

static inline cudaError_t advise(void *p, size_t len, cudaMemoryAdvise a, bool gpu, int dev)
{
#if CUDART_VERSION >= 13000
    return cudaMemAdvise(p, len, a, um_where(gpu, dev));
#else
    return cudaMemAdvise(p, len, a, gpu ? dev : cudaCpuDeviceId);
#endif
}

#endif
