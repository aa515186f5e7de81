#version 460
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require

/* fill.comp over a plain buffer device address, no uvas: what NVIDIA's
 * Vulkan takes for the queue benchmark's kernel itself (vk-fill). */
layout(buffer_reference, std430, buffer_reference_align = 4) buffer U { uint v; };
layout(local_size_x = 256) in;
layout(push_constant) uniform Args {
    uint64_t x;
    uint n;
    uint v;
} args;

void main()
{
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < args.n; i += stride)
        U(args.x + 4ul * i).v = args.v;
}
