#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* fill.comp through uvas.glsl's uvas_array: uvas-bench queue -A. */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t x;
    uint n;
    uint v;
} args;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvas_array x = uvas_array_at(args.x);
    for (uint i = gl_GlobalInvocationID.x; i < args.n; i += stride)
        uvas_array_store_u32(x, 4ul * i, args.v);
}
