#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* triad.comp through uvas.glsl's uvas_array: an access within the run
 * its array's base starts adds the base's delta and reads no entry
 * (uvas-bench kernel's "arrays" row). */
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
    uvas_array a = uvas_array_at(args.a), b = uvas_array_at(args.b), c = uvas_array_at(args.c);
    for (uint i = base; i < args.n; i += stride) {
        uint64_t o = 4ul * i;
        uvas_array_store_f32(c, o, uvas_array_load_f32(a, o) + args.s * uvas_array_load_f32(b, o));
    }
}
