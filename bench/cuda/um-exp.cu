// uvas-exp's workloads (tools/workloads.c, the same code) with CUDA kernels
// on cudaMallocManaged memory as the GPU's part: what CUDA Unified Memory
// does with them, to put beside uvas's policies in the same run
// (scripts/exp-vs-cuda.sh). Three ways a CUDA user would write it:
//   default     cudaMallocManaged, nothing else (faults and migrations)
//   prefetch    each kernel's range prefetched to the GPU before it, and
//               back to the CPU after it (the CPU works on it next)
//   accessed-by preferred location the CPU, accessed by the GPU: kernels
//               read and write CPU memory over the bus, nothing moves
// Built on the device machine with nvcc; not part of the product.
// Prints one line per workload and mode: median time and the checksum,
// which must equal uvas-exp's for the same workload, size and seed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

extern "C" {
#include "../../tools/rng.h"
#include "../../tools/workloads.h"
}

#include "um-common.h"

enum mode { DEFAULT, PREFETCH, ACCESSED_BY, NMODES };
static const char *mode_name[NMODES] = {"default", "prefetch", "accessed-by"};

struct gpu {
    int dev;
    enum mode m;
    cudaStream_t s;
    unsigned *sum;  // device memory
};

// tools/kernels/touch.comp's twin: the 32-bit words covering the range,
// edge bytes masked; a write stores value in the range's bytes only.
__global__ void touch(unsigned *w, unsigned nwords, unsigned head, unsigned tail, unsigned value,
                      int write, unsigned *sum)
{
    __shared__ unsigned partial;
    if (threadIdx.x == 0)
        partial = 0;
    __syncthreads();
    unsigned acc = 0, stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += stride) {
        unsigned m = 0xffffffffu;
        if (i == 0)
            m &= head;
        if (i == nwords - 1)
            m &= tail;
        if (!write)
            acc += w[i] & m;
        else if (m == 0xffffffffu)
            w[i] = value;
        else
            for (int b = 0; b < 4; b++)
                if (m & (0xffu << (8 * b)))
                    ((unsigned char *)&w[i])[b] = (unsigned char)value;
    }
    if (!write) {
        atomicAdd(&partial, acc);
        __syncthreads();
        if (threadIdx.x == 0 && partial)
            atomicAdd(sum, partial);
    }
}

static int gpu_touch(void *arg, void *p, size_t len, int write, unsigned char value,
                     uint32_t *sum, char *err, size_t errlen)
{
    gpu *g = (gpu *)arg;
    *sum = 0;
    if (!len)
        return 0;
    uintptr_t a = (uintptr_t)p, first = a & ~(uintptr_t)3, end = a + len;
    unsigned nwords = (unsigned)((end - first + 3) / 4);
    unsigned lead = (unsigned)(a - first), trail = (unsigned)(end & 3);
    unsigned head = 0xffffffffu << (8 * lead);
    unsigned tail = trail ? 0xffffffffu >> (8 * (4 - trail)) : 0xffffffffu;
    if (g->m == PREFETCH)
        CK(prefetch(p, len, true, g->dev, g->s));
    CK(cudaMemsetAsync(g->sum, 0, 4, g->s));
    unsigned groups = std::min((nwords + 255) / 256, 4096u);
    touch<<<groups, 256, 0, g->s>>>((unsigned *)first, nwords, head, tail, 0x01010101u * value,
                                     write, g->sum);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && g->m == PREFETCH)
        e = prefetch(p, len, false, g->dev, g->s);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(sum, g->sum, 4, cudaMemcpyDeviceToHost, g->s);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(g->s);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "CUDA: %s", cudaGetErrorString(e));
        return -1;
    }
    if (write)
        *sum = 0;
    return 0;
}

static void no_phase(void *) {}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int main(int argc, char **argv)
{
    size_t mib = 256, block = 2u << 20;
    int reps = 3;
    uint64_t seed = 1;
    std::string list = "stream,random,stencil,hotset,pingpong";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-m"))
            mib = strtoull(argv[i + 1], 0, 0);
        else if (!strcmp(argv[i], "-r"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-s"))
            seed = strtoull(argv[i + 1], 0, 0);
        else if (!strcmp(argv[i], "-w"))
            list = argv[i + 1];
        else {
            fprintf(stderr, "usage: um-exp [-m MiB] [-r reps] [-s seed] [-w a,b,...]\n");
            return 2;
        }
    }
    gpu g = {};
    CK(cudaSetDevice(g.dev));
    CK(cudaStreamCreate(&g.s));
    CK(cudaMalloc(&g.sum, 4));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, g.dev));
    printf("um-exp: %s, working set %zu MiB, %d reps, seed %llu, medians\n", prop.name, mib,
           reps, (unsigned long long)seed);
    size_t ws = mib << 20;
    for (size_t at = 0; at < list.size();) {
        size_t comma = list.find(',', at);
        std::string name = list.substr(at, comma == std::string::npos ? std::string::npos
                                                                      : comma - at);
        at = comma == std::string::npos ? list.size() : comma + 1;
        const struct workload *wl = workload_find(name.c_str());
        if (!wl || !strcmp(name.c_str(), "trace")) {
            fprintf(stderr, "um-exp: no workload '%s'\n", name.c_str());
            return 2;
        }
        size_t len = wl->buffer_bytes(ws, block, NULL);
        for (int m = 0; m < NMODES; m++) {
            std::vector<double> t;
            unsigned long long sum = 0;
            for (int r = 0; r < reps; r++) {
                unsigned char *buf;
                CK(cudaMallocManaged(&buf, len));
                if (m == ACCESSED_BY) {
                    CK(advise(buf, len, cudaMemAdviseSetPreferredLocation, false, g.dev));
                    CK(advise(buf, len, cudaMemAdviseSetAccessedBy, true, g.dev));
                }
                char err[512] = "";
                g.m = (enum mode)m;
                wl_ctx c = {};
                c.buf = buf;
                c.len = len;
                c.block_size = block;
                c.ws = ws;
                c.seed = rng_seed_for(seed, wl->name);
                c.gpu = gpu_touch;
                c.gpu_arg = &g;
                c.gpu_sums = 1;
                c.err = err;
                c.errlen = sizeof err;
                c.phase = no_phase;
                double t0 = now_s();
                if (wl->run(&c)) {
                    fprintf(stderr, "um-exp: %s, %s: %s\n", wl->name, mode_name[m], err);
                    return 1;
                }
                t.push_back(now_s() - t0);
                sum = wl_checksum(&c);
                CK(cudaFree(buf));
            }
            std::sort(t.begin(), t.end());
            printf("um-exp %s %s time_s %.6f checksum 0x%016llx\n", wl->name, mode_name[m],
                   t[t.size() / 2], sum);
        }
    }
    return 0;
}
