enum HelpText {
    static let main = """
    prores-decode: decode Apple ProRes into Apple's y416/v216 layouts

    USAGE
      prores-decode INPUT [options]          decode (INPUT: file, URL, or - for stdin)
      prores-decode info INPUT [--json] [--track N]
      prores-decode devices [--json]        list Vulkan devices
      prores-decode roofline [--device N|NAME] [--json]
                                            GPU bandwidth ceilings and the conversion against them
      prores-decode --help | --version

    DECODE OPTIONS
      --format y416|v216|native   output layout (default: the profile's native packed
                                  layout, v216 for 4:2:2 and y416 for 4:4:4)
      -o, --output PATH|-         write raw frames, concatenated
      --framemd5 PATH|-           write one line per frame: index, pts, size, md5
      --timing PATH|-             write per-frame timing as JSON lines
      --json                      print the end-of-run summary as JSON (stdout, or
                                  stderr when stdout carries data)
      --start N                   first frame to decode (exact: ProRes is intra-only)
      --frames N                  decode at most N frames
      --threads N                 FFmpeg decoder threads (default: one per core)
      --track N                   stream index of the ProRes track (default: the first)
      --overwrite                 replace existing output files
      --quiet                     no progress line, warnings or summary on stderr
      --verbose                   also show FFmpeg's own diagnostics

    GPU OPTIONS
      --vulkan                    also convert every frame on the GPU to RGBA16F
                                  extended linear Display P3 (D65), straight alpha
      --device N|NAME             Vulkan device (default: a discrete GPU, else an
                                  integrated one, else Mesa lavapipe)
      --reference-white NITS      nits that map to 1.0 for PQ and HLG (default 203)
      --save DIR                  write converted frames as DIR/frame-NNNNNN.exr
                                  (implies --vulkan)
      --save-format exr|png       EXR: half-float linear P3; PNG: 16-bit sRGB-encoded
                                  P3 preview with highlights rolled off
      --validate                  enable the Khronos validation layer

    With no -o/--framemd5 the frames are decoded and discarded (a benchmark run).
    Outputs appear only when complete: they are written under a temporary name
    and renamed; an aborted run leaves nothing behind.

    LAYOUTS (16-bit little-endian samples, rows tightly packed)
      y416    A Y' Cb Cr per pixel; Y'CbCr MSB-aligned (v << (16 - depth)),
              alpha widened by bit replication (opaque = 65535)
      v216    Cb Y'0 Cr Y'1 per pixel pair, MSB-aligned
      native  the decoder's planar format (e.g. yuv422p10le), planes Y Cb Cr [A],
              LSB-aligned: identical to `ffmpeg -f rawvideo`

    EXIT CODES
    """

    static var exitCodes: String {
        ExitCode.allCases.map { "  \(String($0.rawValue).padding(toLength: 4, withPad: " ", startingAt: 0)) \($0.meaning)" }
            .joined(separator: "\n")
    }
}
