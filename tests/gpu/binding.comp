#version 460
/* A kernel that binds a resource of its own (set 0, binding 1): refused,
 * uvas kernels reach memory only through uvas addresses. */
layout(local_size_x = 1) in;
layout(set = 0, binding = 1) buffer B { uint v[]; } b;
void main() { b.v[0] = 1u; }
