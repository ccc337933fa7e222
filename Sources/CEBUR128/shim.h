// libebur128 behind one thin shim, imported by ProResCheck alone: EBU R 128
// loudness (integrated, range), true peak and sample peak of each sound
// track `check` measures.
#ifndef PRORES_DECODE_CEBUR128_SHIM_H
#define PRORES_DECODE_CEBUR128_SHIM_H

#include <ebur128.h>

/// Everything `check` reads of a track: integrated loudness, loudness
/// range, true peak and sample peak.
static inline int pd_ebur128_mode(void) {
    return EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_TRUE_PEAK | EBUR128_MODE_SAMPLE_PEAK;
}

#endif
