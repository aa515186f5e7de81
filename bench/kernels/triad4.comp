#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

/* triad.comp with vec4 accesses: four elements per translation (n a
 * multiple of 4). Its raw twin is triad4-raw.comp. */
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
    for (uint i = base; i < args.n / 4; i += stride) {
        uint64_t o = 16ul * i;
        uvas_store_vec4(args.c + o, uvas_load_vec4(args.a + o) + args.s * uvas_load_vec4(args.b + o));
    }
}
