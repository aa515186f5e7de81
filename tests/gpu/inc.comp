#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t x;
    uint n;
    uint by;
} args;

/* x[i] += by over n uints */
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < args.n)
        uvas_store_u32(args.x + 4ul * i, uvas_load_u32(args.x + 4ul * i) + args.by);
}
