#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* fill.comp through a span (uvas.glsl's uvas_span): uvas-bench queue -S. */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t x;
    uint n;
    uint v;
} args;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvas_span sx = uvas_span_none();
    for (uint i = gl_GlobalInvocationID.x; i < args.n; i += stride)
        uvas_store_u32_in(sx, args.x + 4ul * i, args.v);
}
