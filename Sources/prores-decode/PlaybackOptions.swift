import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline


/// `--effect SPEC` (repeatable) and `--realtime [--rate FPS]`: what the
/// decode command runs on the converted frames, and how it presents them.
enum PlaybackOptions {
    static let options: [OptionSpec] = [.repeated("--effect"), .flag("--realtime"), .value("--rate")]

    /// The effects in the order given. Reads LUT files, so a bad .cube fails
    /// before any output is opened.
    static func effects(_ parsed: ParsedArguments, vulkan: Bool, referenceWhite: Double) throws -> [Effect] {
        let specs = parsed.strings("--effect")
        if !specs.isEmpty && !vulkan { throw UsageError("--effect needs --vulkan (effects run on the GPU)") }
        return try specs.map { try EffectParser.parse($0, referenceWhite: referenceWhite) }
    }

    /// `--rate` as given; checked before the input is opened.
    static func rate(_ parsed: ParsedArguments) throws -> FrameRate? {
        guard let text = parsed.string("--rate") else { return nil }
        guard parsed.flag("--realtime") else { throw UsageError("--rate needs --realtime") }
        guard let rate = FrameRate(parsing: text) else {
            throw UsageError("invalid value '\(text)' for --rate: expected frames per second from 1 to 1000 (25, 29.97 or 30000/1001)")
        }
        return rate
    }

    /// The pacing rate: `--rate`, else the input's own frame rate; nil without `--realtime`.
    static func realtime(_ parsed: ParsedArguments, rate: FrameRate?, format: FormatDescription) throws -> FrameRate? {
        guard parsed.flag("--realtime") else { return nil }
        if let rate { return rate }
        guard let media = format.frameRate, let rate = FrameRate(numerator: media.numerator, denominator: media.denominator) else {
            let stated = format.frameRate.map { "states \($0.numerator)/\($0.denominator) fps" } ?? "states no frame rate"
            throw UsageError("--realtime: the input \(stated); give --rate FPS (1 to 1000)")
        }
        return rate
    }
}
