import ProResCheck
import ProResCore
import ProResOptions
import ProResPipeline

/// Decoding's table: every option of `prores-decode INPUT`, its help, and the
/// prose of the main help that follows the options.
extension DecodeCommand {
    /// Decoding's own options, and the shared ones in decoding's words.
    enum Options {
        static let format = Option<OutputSelection>(
            names: ["--format"], value: layouts.joined(separator: "|"), expected: Choices.words(layouts),
            short: "output layout (default: the profile's native)",
            long: "output layout (default: the profile's native packed layout, v216 for 4:2:2 and y416 for 4:4:4)",
            convert: OutputSelection.init(name:))
        static let output = Option<String>(
            "-o", "--output", value: "PATH|-", short: "write the frames (.y4m .nut .mov, else raw)",
            long: "write the frames: .y4m, .nut and .mov hold the native planar frames with their size, rate and "
                + "aspect ratio (--format native is their default; .mov as v210, 4:2:2 only); "
                + "any other name gets raw frames, concatenated")
        static let container = Option<OutputContainer>(
            "--container", short: "wrap -o's frames in this container",
            long: "wrap -o's frames in this container whatever its name says")
        static let audio = Option<AudioHandling>(
            "--audio", short: "the input's sound in -o: copy (default) or none",
            long: "the input's sound in -o: copy (default) carries its PCM tracks into .nut and .mov, cut to the "
                + "frames written, and names on stderr each track it cannot carry; none drops them on purpose")
        static let frameMD5 = Option<String>(
            "--framemd5", value: "PATH|-", short: "write FFmpeg's framemd5",
            long: "write FFmpeg's framemd5 (as `ffmpeg -f framemd5 -fflags +bitexact`): md5 per frame of the native "
                + "planar bytes --format native writes, ffmpeg's own lines; with --format v216|y416, of that layout "
                + "(named in a #layout: header line)")
        static let frameHash = Option<String>(
            "--framehash", value: "PATH|-", short: "the same with BLAKE3-256",
            long: "the same with BLAKE3-256 (b3sum's hash of the frame's bytes; by default check's golden v2 hash), "
                + "computed on the device when the GPU decoder decodes")
        static let timing = Option<String>(
            "--timing", value: "PATH|-", short: "write per-frame timing as JSON lines")
        static let phases = Option<String>(
            "--phases", value: "PATH|-", short: "write where the process's time went (JSON)",
            long: "write where the process's time went, as JSON, when it exits: each phase from main() to exit "
                + "(Vulkan instance and device, pipelines, container open, first sample read, first upload, first "
                + "decode, first conversion, output, teardown), every millisecond counted once")
        static let json = SharedOptions.json.explained(
            "print the end-of-run summary as JSON (stdout, or stderr when stdout carries data)",
            short: "print the end-of-run summary as JSON")
        static let assumePrimaries = assumed(
            .primaries, "--assume-primaries", short: "primaries of a source that states none",
            long: "primaries of a source that states none (FFmpeg's names: "
                + "bt709, bt2020, smpte170m, bt470bg, …): the conversion uses it and -o writes it; without it the "
                + "conversion assumes by picture size and the outputs leave it unspecified")
        static let assumeTransfer = assumed(
            .transfer, "--assume-transfer", short: "the same for the transfer",
            long: "the same for the transfer (bt709, smpte2084, arib-std-b67, …)")
        static let assumeMatrix = assumed(
            .matrix, "--assume-matrix", short: "the same for the matrix",
            long: "the same for the matrix (bt709, bt2020nc, smpte170m, …)")
        static let verbose = SharedOptions.verbose.explained(
            "also show FFmpeg's own diagnostics and which decoder ran")

        static let noHardware = Flag("--no-hardware", short: "our CPU decoder (= --decoder cpu)")
        static let noCPUStart = Flag(
            "--no-cpu-start", short: "with --decoder auto, wait for the GPU's device",
            long: "with --decoder auto, wait for the GPU's device before the first frame (default: our CPU "
                + "decoder decodes the first frames while the device starts, ~0.2 s on a discrete GPU, then the GPU "
                + "decoder takes over; the same bits either way; never with --vulkan or --realtime, which need "
                + "the device first; --decoder gpu always waits)")

        static let vulkan = Flag(
            "--vulkan", short: "also convert every frame on the GPU (RGBA16F)",
            long: "also convert every frame on the GPU to RGBA16F extended linear Display P3 (D65), straight alpha")
        static let referenceWhite = SharedOptions.referenceWhite.explained(
            "nits that map to 1.0 for PQ and HLG (default 203; needs --vulkan)")
        static let save = Option<String>(
            "--save", value: "DIR", short: "write converted frames as DIR/frame-NNNNNN.exr",
            long: "write converted frames as DIR/frame-NNNNNN.exr (implies --vulkan)")
        static let saveFormat = Option<FrameSaver.Format>(
            "--save-format", short: "EXR (linear) or PNG (preview) (needs --save)",
            long: "EXR: half-float linear P3; PNG: 16-bit sRGB-encoded P3 preview with highlights rolled off "
                + "(needs --save)")
        static let validate = SharedOptions.validate.explained(
            "enable the Khronos validation layer (with --vulkan or the GPU decoder)")

        static let realtime = Flag(
            "--realtime", short: "present frames on a steady clock",
            long: "present frames on a steady clock at the media's frame rate, as a display link does: the summary "
                + "(and the last --timing line) reports presented, late and dropped frames and the pacing jitter; "
                + "outputs still get every frame")

        /// `--format`'s choices: Apple's packed layouts, then the decoder's own.
        private static let layouts = PackedLayout.allCases.map(\.rawValue) + ["native"]

        /// `--assume-*`: an H.273 code by FFmpeg's name for it.
        private static func assumed(_ kind: ColorCode.Kind, _ name: String, short: String, long: String) -> Option<Int>
        {
            Option<Int>(
                names: [name], value: "NAME", expected: "one of FFmpeg's \(kind) names (as info prints them)",
                short: short, long: long
            ) { ColorCodeNames.code(kind, named: $0) }
        }
    }

    /// `--audio`: what `-o` does with the input's sound.
    enum AudioHandling: String, CaseIterable {
        case copy
        case drop = "none"
    }
    static let spec = CommandSpec(
        name: nil, operands: "INPUT", summary: "decode a file, a URL or - (stdin)",
        sections: [
            OptionSection(
                heading: "DECODE OPTIONS",
                options: [
                    SharedOptions.input, Options.format, Options.output, Options.container, Options.audio,
                    Options.frameMD5, Options.frameHash, Options.timing, Options.phases, Options.json,
                    Options.assumePrimaries, Options.assumeTransfer, Options.assumeMatrix, SharedOptions.start,
                    SharedOptions.frames, SharedOptions.threads, SharedOptions.track, SharedOptions.overwrite,
                    SharedOptions.noOverwrite, SharedOptions.quiet, Options.verbose,
                ]),
            OptionSection(
                heading: "DECODER OPTIONS",
                options: [SharedOptions.decoder, SharedOptions.requireHardware, Options.noHardware, Options.noCPUStart]
            ),
            OptionSection(
                heading: "GPU OPTIONS",
                options: [
                    Options.vulkan, SharedOptions.device, Options.referenceWhite, Options.save, Options.saveFormat,
                    Options.validate,
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
