import ProResOptions

/// Decoding's table: every option of `prores-decode INPUT`, its help, and the
/// prose of the main help that follows the options.
extension DecodeCommand {
    static let spec = CommandSpec(
        name: nil, operands: "INPUT", summary: "decode a file, a URL or - (stdin)",
        sections: [
            OptionSection(
                heading: "DECODE OPTIONS",
                options: [
                    .input,
                    OptionSpec(
                        "--format", value: "y416|v216|native",
                        help:
                            "output layout (default: the profile's native packed layout, v216 for 4:2:2 and y416 for 4:4:4)"
                    ),
                    OptionSpec(
                        "-o", "--output", value: "PATH|-",
                        help:
                            "write the frames: .y4m, .nut and .mov hold the native planar frames with their size, rate and "
                            + "aspect ratio (--format native is their default; .mov as v210, 4:2:2 only); "
                            + "any other name gets raw frames, concatenated"),
                    OptionSpec(
                        "--container", value: "raw|y4m|nut|mov",
                        help: "wrap -o's frames in this container whatever its name says"),
                    OptionSpec(
                        "--audio", value: "copy|none",
                        help:
                            "the input's sound in -o: copy (default) carries its PCM tracks into .nut and .mov, cut to the "
                            + "frames written, and names on stderr each track it cannot carry; none drops them on purpose"
                    ),
                    OptionSpec(
                        "--framemd5", value: "PATH|-",
                        help:
                            "write FFmpeg's framemd5 (as `ffmpeg -f framemd5 -fflags +bitexact`): md5 per frame of the native "
                            + "planar bytes --format native writes, ffmpeg's own lines; with --format v216|y416, of that layout "
                            + "(named in a #layout: header line)"),
                    OptionSpec(
                        "--framehash", value: "PATH|-",
                        help:
                            "the same with BLAKE3-256 (b3sum's hash of the frame's bytes; by default check's golden v2 hash), "
                            + "computed on the device when the GPU decoder decodes"),
                    OptionSpec("--timing", value: "PATH|-", help: "write per-frame timing as JSON lines"),
                    OptionSpec(
                        "--phases", value: "PATH|-",
                        help:
                            "write where the process's time went, as JSON, when it exits: each phase from main() to exit "
                            + "(Vulkan instance and device, pipelines, container open, first sample read, first upload, first "
                            + "decode, first conversion, output, teardown), every millisecond counted once"),
                    OptionSpec(
                        "--json",
                        help: "print the end-of-run summary as JSON (stdout, or stderr when stdout carries data)"),
                    OptionSpec(
                        "--assume-primaries", value: "NAME",
                        help: "primaries of a source that states none (FFmpeg's names: "
                            + "bt709, bt2020, smpte170m, bt470bg, …): the conversion uses it and -o writes it; without it the "
                            + "conversion assumes by picture size and the outputs leave it unspecified"),
                    OptionSpec(
                        "--assume-transfer", value: "NAME",
                        help: "the same for the transfer (bt709, smpte2084, arib-std-b67, …)"),
                    OptionSpec(
                        "--assume-matrix", value: "NAME",
                        help: "the same for the matrix (bt709, bt2020nc, smpte170m, …)"),
                    OptionSpec(
                        "--start", value: "POSITION",
                        help: "first frame to decode (exact: ProRes is intra-only): a frame number, seconds "
                            + "(12.5s, 00:00:12.5) or the source's time code (10:00:01:00; ';' for drop-frame)"),
                    OptionSpec(
                        "--frames", value: "LENGTH",
                        help: "decode at most LENGTH: a number of frames, or seconds (2s, 00:00:02)"),
                    OptionSpec(
                        "--threads", value: "N", range: .integer(1...256),
                        help: "CPU decoder threads, ours or FFmpeg's (default: one per core)"),
                    OptionSpec(
                        "--track", value: "N", range: .integer(0...Int(Int32.max)),
                        help: "stream index of the ProRes track (default: the first)"),
                    .overwrite,
                    .noOverwrite,
                    .quiet,
                    .verbose("also show FFmpeg's own diagnostics and which decoder ran"),
                ]),
            OptionSection(
                heading: "DECODER OPTIONS",
                options: [
                    OptionSpec(
                        "--decoder", value: "cpu|ffmpeg|gpu|auto",
                        help:
                            "cpu: our CPU decoder; ffmpeg: FFmpeg's; gpu: our Vulkan compute ProRes decoder, on any Vulkan "
                            + "device (ours are bit-exact with FFmpeg); auto (default): gpu on a hardware GPU, else cpu"
                    ),
                    OptionSpec("--require-hardware", help: "the GPU decoder on a hardware GPU, or exit 13"),
                    OptionSpec("--no-hardware", help: "our CPU decoder (= --decoder cpu)"),
                    OptionSpec(
                        "--no-cpu-start",
                        help: "with --decoder auto, wait for the GPU's device before the first frame (default: our CPU "
                            + "decoder decodes the first frames while the device starts, ~0.2 s on a discrete GPU, then the GPU "
                            + "decoder takes over; the same bits either way; never with --vulkan or --realtime, which need "
                            + "the device first; --decoder gpu always waits)"),
                ]),
            OptionSection(
                heading: "GPU OPTIONS",
                options: [
                    OptionSpec(
                        "--vulkan",
                        help:
                            "also convert every frame on the GPU to RGBA16F extended linear Display P3 (D65), straight alpha"
                    ),
                    .device,
                    OptionSpec(
                        "--reference-white", value: "NITS", range: .real(lower: 1, upper: 10000, lowerExcluded: false),
                        help: "nits that map to 1.0 for PQ and HLG (default 203; needs --vulkan)"),
                    OptionSpec(
                        "--save", value: "DIR",
                        help: "write converted frames as DIR/frame-NNNNNN.exr (implies --vulkan)"),
                    OptionSpec(
                        "--save-format", value: "exr|png",
                        help:
                            "EXR: half-float linear P3; PNG: 16-bit sRGB-encoded P3 preview with highlights rolled off "
                            + "(needs --save)"),
                    OptionSpec(
                        "--validate", help: "enable the Khronos validation layer (with --vulkan or the GPU decoder)"),
                ]),
            PlaybackArguments.section,
        ],
        epilogue: """
            With no -o/--framemd5/--framehash the frames are decoded and discarded (a benchmark run);
            without --format either, the CPU decoder's frames are not packed (nothing reads them).
            Outputs appear only when complete: they are written under a temporary name
            and renamed; an aborted run leaves nothing behind.

            LAYOUTS (16-bit little-endian samples, rows tightly packed)
              y416    A Y' Cb Cr per pixel; Y'CbCr MSB-aligned (v << (16 - depth)),
                      alpha widened by bit replication (opaque = 65535); FFmpeg: ayuv64le
              v216    Cb Y'0 Cr Y'1 per pixel pair, MSB-aligned; FFmpeg has no
                      pixel format for it (the closest is native)
              native  the decoder's planar format (e.g. yuv422p10le), planes Y Cb Cr [A],
                      LSB-aligned: identical to `ffmpeg -f rawvideo`
            """)

    /// Decoding is what the tool does without a command, so its help is the main help.
    static var helpText: String { MainHelp.text }
    static var briefHelpText: String { MainHelp.briefText }
}
