// CUDA Unified Memory beside uvas, on the same GPU in the same run: the
// figures users compare against (cudaMallocManaged). Built on the device
// machine by scripts/device-run.sh with nvcc; not part of the product.
// Prints the same quantities as `uvas-bench migrate` and `first-touch`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "um-common.h"

static double now_ns()
{
    return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
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
    std::vector<double> ft, pd, ph, cf, gf, ud, wp;
    for (int r = 0; r < reps; r++) {
        char *p;
        CK(cudaMallocManaged(&p, len));
        double t0 = now_ns();
        for (size_t i = 0; i < len; i += 4096)
            p[i] = 1;
        double write_ns = now_ns() - t0;
        ft.push_back(write_ns / (len / 4096));
        // prefetch to the GPU and back
        t0 = now_ns();
        CK(prefetch(p, len, true, dev, s));
        CK(cudaStreamSynchronize(s));
        pd.push_back(len / (now_ns() - t0));
        // written, then moved: the first touch and the prefetch end to end
        wp.push_back(len / (write_ns + now_ns() - t0));
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
        // memory never touched, prefetched to the GPU (its pages made there)
        CK(cudaMallocManaged(&p, len));
        t0 = now_ns();
        CK(prefetch(p, len, true, dev, s));
        CK(cudaStreamSynchronize(s));
        ud.push_back(len / (now_ns() - t0));
        CK(cudaFree(p));
    }
    // The practical PCIe limit of the machine: cudaMemcpy from and to
    // pinned host memory, the same bytes.
    std::vector<double> h2d, d2h;
    {
        char *h, *d;
        CK(cudaMallocHost(&h, len));
        CK(cudaMalloc(&d, len));
        memset(h, 1, len);
        for (int r = 0; r < reps + 1; r++) {
            double t0 = now_ns();
            CK(cudaMemcpy(d, h, len, cudaMemcpyHostToDevice));
            double t1 = now_ns();
            CK(cudaMemcpy(h, d, len, cudaMemcpyDeviceToHost));
            double t2 = now_ns();
            if (r) { // the first is a warm-up
                h2d.push_back(len / (t1 - t0));
                d2h.push_back(len / (t2 - t1));
            }
        }
        CK(cudaFree(d));
        CK(cudaFreeHost(h));
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
    printf("  written, then prefetched to GPU:     %8.2f GB/s end to end\n", median(wp));
    printf("  prefetch of untouched memory to GPU: %8.2f GB/s\n", median(ud));
    printf("  GPU touching CPU-resident pages:     %8.2f GB/s\n", median(gf));
    printf("  CPU touching GPU-resident pages:     %8.2f GB/s\n", median(cf));
    printf("  cudaMemRangeGetAttribute:            %8.1f ns/call\n", qns);
    printf("  cudaMemcpy pinned, to GPU / to CPU:  %8.2f / %.2f GB/s\n", median(h2d), median(d2h));
    // For the performance guard (scripts/perf-check.py).
    printf("metric cuda.first_touch_ns %.6g\n", median(ft));
    printf("metric cuda.prefetch_to_gpu_gbs %.6g\n", median(pd));
    printf("metric cuda.prefetch_to_cpu_gbs %.6g\n", median(ph));
    printf("metric cuda.write_then_prefetch_gbs %.6g\n", median(wp));
    printf("metric cuda.prefetch_untouched_to_gpu_gbs %.6g\n", median(ud));
    printf("metric cuda.gpu_touch_gbs %.6g\n", median(gf));
    printf("metric cuda.cpu_touch_gbs %.6g\n", median(cf));
    printf("metric cuda.query_ns %.6g\n", qns);
    printf("metric cuda.pinned_h2d_gbs %.6g\n", median(h2d));
    printf("metric cuda.pinned_d2h_gbs %.6g\n", median(d2h));
    return 0;
}
