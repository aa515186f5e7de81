#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t dst, src;
    uint n;
} args;

/* dst[i] = src[i] over n uints */
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < args.n)
        uvas_store_u32(args.dst + 4ul * i, uvas_load_u32(args.src + 4ul * i));
}
