#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require

/* The same triad over plain buffer device addresses: the reference that
 * uvas's translation is measured against (uvas-bench kernel). */
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F { float v; };
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
    for (uint i = base; i < args.n; i += stride) {
        uint64_t o = 4ul * i;
        F(args.c + o).v = F(args.a + o).v + args.s * F(args.b + o).v;
    }
}
