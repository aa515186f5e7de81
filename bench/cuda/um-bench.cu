// CUDA Unified Memory beside uvas, on the same GPU in the same run: the
// figures users compare against (cudaMallocManaged). Built on the device
// machine by scripts/device-run.sh with nvcc; not part of the product.
// Prints the same quantities as `uvas-bench migrate` and `first-touch`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                       \
    do {                                                                            \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

static double now_ns()
{
    return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// CUDA 13 takes a cudaMemLocation and flags; older toolkits a device id.
static cudaError_t prefetch(void *p, size_t len, bool gpu, int dev, cudaStream_t s)
{
#if CUDART_VERSION >= 13000
    cudaMemLocation loc = {};
    loc.type = gpu ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = gpu ? dev : 0;
    return cudaMemPrefetchAsync(p, len, loc, 0, s);
#else
    return cudaMemPrefetchAsync(p, len, gpu ? dev : cudaCpuDeviceId, s);
#endif
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

__global__ void touch(char *p, size_t n, size_t stride)
{
    size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * stride;
    if (i < n)
        p[i] += 1;
}

int main(int argc, char **argv)
{
    size_t len = (argc > 1 ? strtoull(argv[1], 0, 0) : 256) << 20;
    int reps = 5, dev = 0;
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    printf("cuda-um: %s, %zu MiB, %d reps, medians\n", prop.name, len >> 20, reps);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    std::vector<double> ft, pd, ph, cf, gf;
    for (int r = 0; r < reps; r++) {
        char *p;
        CK(cudaMallocManaged(&p, len));
        double t0 = now_ns();
        for (size_t i = 0; i < len; i += 4096)
            p[i] = 1;
        ft.push_back((now_ns() - t0) / (len / 4096));
        // prefetch to the GPU and back
        t0 = now_ns();
        CK(prefetch(p, len, true, dev, s));
        CK(cudaStreamSynchronize(s));
        pd.push_back(len / (now_ns() - t0));
        t0 = now_ns();
        CK(prefetch(p, len, false, dev, s));
        CK(cudaStreamSynchronize(s));
        ph.push_back(len / (now_ns() - t0));
        // fault-driven: GPU touching CPU-resident pages, then CPU touching GPU-resident ones
        t0 = now_ns();
        touch<<<(unsigned)((len / 4096 + 255) / 256), 256, 0, s>>>(p, len, 4096);
        CK(cudaStreamSynchronize(s));
        gf.push_back(len / (now_ns() - t0));
        t0 = now_ns();
        for (size_t i = 0; i < len; i += 4096)
            ((volatile char *)p)[i]++;
        cf.push_back(len / (now_ns() - t0));
        CK(cudaFree(p));
    }
    char *p;
    CK(cudaMallocManaged(&p, len));
    int loc;
    const int nq = 1000000;
    double t0 = now_ns();
    for (int i = 0; i < nq; i++)
        CK(cudaMemRangeGetAttribute(&loc, sizeof loc, cudaMemRangeAttributeLastPrefetchLocation,
                                    p + (size_t)(i * 7919u) % len, 1));
    double qns = (now_ns() - t0) / nq;
    CK(cudaFree(p));
    printf("  CPU first touch:                     %8.0f ns/page\n", median(ft));
    printf("  prefetch to GPU:                     %8.2f GB/s\n", median(pd));
    printf("  prefetch to CPU:                     %8.2f GB/s\n", median(ph));
    printf("  GPU touching CPU-resident pages:     %8.2f GB/s\n", median(gf));
    printf("  CPU touching GPU-resident pages:     %8.2f GB/s\n", median(cf));
    printf("  cudaMemRangeGetAttribute:            %8.1f ns/call\n", qns);
    return 0;
}
