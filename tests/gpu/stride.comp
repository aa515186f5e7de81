#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t y, x;
    uint n, ys, xs, by;
} args;

/* y[i * ys] = x[i * xs] + by over n elements: touches a sample of a large
   allocation, one workgroup per 64 samples instead of per 64 elements. */
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < args.n)
        uvas_store_u32(args.y + 4ul * i * args.ys, uvas_load_u32(args.x + 4ul * i * args.xs) + args.by);
}
