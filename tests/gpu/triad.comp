#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t a, b, c;
    float s;
    uint n;
} args;

/* c = a + s * b over n floats */
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < args.n)
        uvas_store_f32(args.c + 4ul * i,
                       uvas_load_f32(args.a + 4ul * i) + args.s * uvas_load_f32(args.b + 4ul * i));
}
