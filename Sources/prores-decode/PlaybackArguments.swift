import GPUKit
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `--effect SPEC` (repeatable) and `--realtime [--rate FPS]`: what the
/// decode command runs on the converted frames, and how it presents them.
struct PlaybackArguments {
    static let section = OptionSection(
        heading: "EFFECT AND PLAYBACK OPTIONS",
        options: [
            OptionSpec(
                "--effect", value: "SPEC", repeatable: true,
                help: "a GPU pass on every converted frame (needs --vulkan; repeat for a chain, applied in order; "
                    + "nothing clamps HDR):",
                details: [
                    ("sepia[:AMOUNT]", "towards a sepia tone of the same luminance (0..1, default 1)"),
                    ("exposure:STOPS", "multiply by 2^STOPS (-20..20)"),
                    ("saturation:S", "0 grey, 1 unchanged, up to 10"),
                    (
                        "chroma-key:color=R,G,B[,tolerance=T][,softness=S]",
                        "alpha from the distance to the key in the clip's Cb/Cr plane; key in the clip's own R'G'B' 0..1 "
                            + "(0,1,0 for a pure green screen); T 0.1 and S 0.1 by default"
                    ),
                    (
                        "lut:FILE.cube[,shaper=pq|linear]",
                        "3D LUT, tetrahedral; pq (default): the LUT maps PQ-encoded P3 (1.0 = the reference white), "
                            + "linear: linear values; input outside the LUT's domain is clamped to it"
                    ),
                ]),
            OptionSpec(
                "--realtime",
                help: "present frames on a steady clock at the media's frame rate, as a display link does: the summary "
                    + "(and the last --timing line) reports presented, late and dropped frames and the pacing jitter; "
                    + "outputs still get every frame"),
            OptionSpec(
                "--rate", value: "FPS", range: .real(lower: 1, upper: 1000, lowerExcluded: false),
                help: "the clock's rate instead (25, 29.97 or 30000/1001; needs --realtime)"),
        ])

    let effectSpecs: [String]
    let realtime: Bool
    /// `--rate` as given.
    let rate: FrameRate?

    init(_ parsed: ParsedArguments) throws {
        effectSpecs = parsed.strings("--effect")
        realtime = parsed.flag("--realtime")
        if let text = parsed.string("--rate"), let problem = FrameRate.problem(parsing: text) {
            throw UsageError("invalid value '\(text)' for --rate: \(problem)")
        }
        rate = try parsed.value(
            "--rate", expected: "frames per second from 1 to 1000 (25, 29.97 or 30000/1001)", FrameRate.init(parsing:))
    }

    func validate(vulkan: Bool) throws {
        if !effectSpecs.isEmpty && !vulkan { throw UsageError("--effect needs --vulkan (effects run on the GPU)") }
        if rate != nil && !realtime { throw UsageError("--rate needs --realtime") }
    }

    /// The effects in the order given. Reads LUT files, so a bad .cube fails
    /// before any output is opened.
    func effects(referenceWhite: Double) throws -> [Effect] {
        try effectSpecs.map { try EffectParser.parse($0, referenceWhite: referenceWhite) }
    }

    /// The files `--effect lut:FILE.cube[,shaper=...]` reads.
    var lutPaths: [String] {
        effectSpecs.filter { $0.hasPrefix("lut:") }.map { spec in
            let path = spec.dropFirst(4)
            if let comma = path.lastIndex(of: ","), path[path.index(after: comma)...].hasPrefix("shaper=") {
                return String(path[..<comma])
            }
            return String(path)
        }
    }

    /// The pacing rate: `--rate`, else the input's own frame rate; nil without `--realtime`.
    func pacingRate(for format: FormatDescription) throws -> FrameRate? {
        guard realtime else { return nil }
        if let rate { return rate }
        guard let media = format.frameRate,
            let rate = FrameRate(numerator: media.numerator, denominator: media.denominator)
        else {
            let stated =
                format.frameRate.map { "states \($0.numerator)/\($0.denominator) fps" } ?? "states no frame rate"
            throw UsageError("--realtime: the input \(stated); give --rate FPS (1 to 1000)")
        }
        return rate
    }
}
