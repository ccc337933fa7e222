#version 450
// The device-memory ceiling the conversion is judged against: a plain copy
// with 16-byte loads and stores, as a compute shader (vkCmdCopyBuffer may run
// on a copy engine with a lower ceiling than the shader cores see).
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Source { uvec4 s[]; } src;
layout(std430, binding = 1) writeonly buffer Destination { uvec4 d[]; } dst;
layout(push_constant, std430) uniform Parameters { uint count; } pc;

void main() {
    uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (i < pc.count) dst.d[i] = src.s[i];
}
