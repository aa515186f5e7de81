#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t counter; /* a uint32 the CPU's threads add to as well */
    uint64_t wide;    /* a uint64 likewise */
    uint n;
    uint iters;
} args;

/* Each invocation adds 1 to both counters, iters times. */
void main()
{
    if (gl_GlobalInvocationID.x < args.n)
        for (uint k = 0u; k < args.iters; k++) {
            uvas_atomic_add_u32(args.counter, 1u);
            uvas_atomic_add_u64(args.wide, 1ul);
        }
}
