#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* data[tid] = tid * 2 (the seed's myKernel, over a uvas pointer). */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t data;
    uint n;
} args;

void main()
{
    uint tid = gl_GlobalInvocationID.x;
    if (tid < args.n)
        uvas_store_u32(args.data + 4ul * tid, tid * 2);
}
