#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t i32s, i64s, u64s, f64s; /* n of each: each doubled, f64 plus 0.5 */
    uint n;
} args;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    if (i >= args.n)
        return;
    uvas_store_i32(args.i32s + 4ul * i, 2 * uvas_load_i32(args.i32s + 4ul * i));
    uvas_store_i64(args.i64s + 8ul * i, 2l * uvas_load_i64(args.i64s + 8ul * i));
    uvas_store_u64(args.u64s + 8ul * i, 2ul * uvas_load_u64(args.u64s + 8ul * i));
    uvas_store_f64(args.f64s + 8ul * i, 2.0lf * uvas_load_f64(args.f64s + 8ul * i) + 0.5lf);
}
