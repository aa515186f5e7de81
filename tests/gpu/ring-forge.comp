#version 460
#extension GL_GOOGLE_include_directive : require
#include "shmem.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t out_;
    uint mode;
} args;

/* What a buggy kernel may do to the library's words it can reach
 * (test-gpu-ring-forge): mode 1 takes a request ticket and never posts
 * it. Every mode then stores 7 at out. */
void main()
{
    if (gl_GlobalInvocationID.x != 0u)
        return;
    if (args.mode == 1u)
        atomicAdd(shmem_ring_hdr_().head, 1u);
    uvas_store_u32(args.out_, 7u);
}
