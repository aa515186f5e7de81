#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t table; /* n pointers, read from memory: the arguments do not name them */
    uint n;
    uint value;
} args;

/* *table[i] = value + i (uvas-bench kernel: what a fault costs) */
void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i < args.n)
        uvas_store_u32(uvas_load_u64(args.table + 8ul * i), args.value + i);
}
