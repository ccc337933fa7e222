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
        options: [SharedOptions.effect, DecodeCommand.Options.realtime, SharedOptions.rate])

    let effectSpecs: [String]
    let realtime: Bool
    /// `--rate` as given.
    let rate: FrameRate?

    init(_ parsed: ParsedArguments) throws {
        effectSpecs = try parsed.every(SharedOptions.effect)
        realtime = parsed[DecodeCommand.Options.realtime]
        rate = try parsed[SharedOptions.rate]
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
