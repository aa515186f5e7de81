#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* x[i] = v over n uints (uvas-bench queue: the kernel of an
 * alloc/launch/free loop touches every element it was given). */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t x;
    uint n;
    uint v;
} args;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < args.n; i += stride)
        uvas_store_u32(args.x + 4ul * i, args.v);
}
