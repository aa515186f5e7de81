#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t x;
    uint n;
    uint rounds;
} args;

/* x[i] += 1, rounds times, each round a load and a store: a kernel that
 * runs long enough for another thread to migrate memory beside it. */
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= args.n)
        return;
    for (uint r = 0; r < args.rounds; r++)
        uvas_store_u32(args.x + 4ul * i, uvas_load_u32(args.x + 4ul * i) + 1u);
}
