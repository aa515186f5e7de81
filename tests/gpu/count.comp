#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t counter32; /* one uint every invocation adds 1 to */
    uint64_t counter64; /* one uint64 every invocation adds i to */
    uint64_t hist;      /* 16 ints: atomic min/max/or over i */
    uint n;
} args;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= args.n)
        return;
    uvas_atomic_add_u32(args.counter32, 1u);
    uvas_atomic_add_u64(args.counter64, uint64_t(i));
    uvas_atomic_max_i32(args.hist, int(i));
    uvas_atomic_min_i32(args.hist + 4ul, -int(i));
    uvas_atomic_or_u32(args.hist + 8ul, 1u << (i & 31u));
    uvas_atomic_compare_swap_u32(args.hist + 12ul + 4ul * (i & 3u), 0u, i + 1u);
}
