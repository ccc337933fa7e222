// libshaderc (GLSL → SPIR-V at run time) behind one thin shim.
#ifndef PRORES_DECODE_CSHADERC_SHIM_H
#define PRORES_DECODE_CSHADERC_SHIM_H
#include <shaderc/shaderc.h>
#endif
