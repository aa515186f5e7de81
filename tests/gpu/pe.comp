#version 460
#extension GL_GOOGLE_include_directive : require
#include "shmem.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t out_;
    uint n;
} args;

/* out[i] = (my PE, number of PEs) for every invocation i < n */
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < args.n) {
        uvas_store_u32(args.out_ + 8ul * i, uint(shmem_my_pe()));
        uvas_store_u32(args.out_ + 8ul * i + 4ul, uint(shmem_n_pes()));
    }
}
