#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* c = a + s*b over uvas addresses (uvas-bench kernel; its raw twin is
 * triad-raw.comp). Each invocation does four elements, as a
 * bandwidth-bound kernel would. */
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t a, b, c;
    float s;
    uint n;
} args;

void main()
{
    uint base = gl_GlobalInvocationID.x;
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = base; i < args.n; i += stride) {
        uint64_t o = 4ul * i;
        uvas_store_f32(args.c + o, uvas_load_f32(args.a + o) + args.s * uvas_load_f32(args.b + o));
    }
}
