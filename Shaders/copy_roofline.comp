#version 450
// The device-memory ceiling the conversion is judged against: a plain copy
// with 16-byte loads and stores, as a compute shader (vkCmdCopyBuffer may run
// on a copy engine with a lower ceiling than the shader cores see).
// @interface

void main() {
    uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x;
    if (i < pc.count) dst.d[i] = src.s[i];
}
