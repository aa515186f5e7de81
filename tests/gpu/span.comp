#version 460
#extension GL_GOOGLE_include_directive : require
#include "uvas.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Args {
    uint64_t a, b, c;
    float s;
    uint n;
} args;

/* c = a + s * b over n floats, a grid-stride loop with a span per array
 * (a few workgroups: each invocation walks every block). */
void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uvas_span sa = uvas_span_none(), sb = uvas_span_none(), sc = uvas_span_none();
    for (uint i = gl_GlobalInvocationID.x; i < args.n; i += stride)
        uvas_store_f32_in(sc, args.c + 4ul * i,
                          uvas_load_f32_in(sa, args.a + 4ul * i) +
                              args.s * uvas_load_f32_in(sb, args.b + 4ul * i));
}
