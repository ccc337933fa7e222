import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline


/// `prores-decode info INPUT`: the format description,
/// each colour tag with where it came from.
enum InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info", operands: "INPUT", summary: "the format and where each colour tag came from",
        sections: [OptionSection(heading: "OPTIONS", options: [
            .input,
            OptionSpec("--json", help: "print one JSON object instead of text"),
            OptionSpec("--track", value: "N", help: "stream index of the ProRes track (default: the first)"),
            .verbose("also show FFmpeg's own diagnostics"),
        ])],
        about: "Prints the format description of INPUT (a file, a URL, or - for stdin) on stdout: profile and FourCC, size, "
            + "frame rate, frame count, bit depth, chroma, alpha, field order, native format, and each colour tag with its "
            + "source (bitstream, container or fallback).")

    struct Arguments: CommandArguments {
        let input: String
        let json: Bool
        let track: Int?
        let verbose: Bool

        init(_ parsed: ParsedArguments) throws {
            input = try parsed.input()
            json = parsed.flag("--json")
            track = try parsed.integer("--track", in: 0...Int(Int32.max))
            verbose = parsed.flag("--verbose")
        }
    }

    static func run(_ arguments: Arguments) throws -> ExitCode {
        FFmpegLog.configure(verbose: arguments.verbose)
        let format = try openSampleSource(arguments.input, track: arguments.track).format
        if arguments.json {
            Console.standardOutput(json(format, path: arguments.input) + "\n")
        } else {
            Console.standardOutput(text(format, path: arguments.input))
        }
        return .success
    }

    static func json(_ f: FormatDescription, path: String) -> String {
        let tag = ColorTags.json
        let rate = f.frameRate.map { JSON.string("\($0.numerator)/\($0.denominator)") } ?? "null"
        return JSON.object([
            ("path", JSON.string(path)),
            ("container", JSON.string(f.containerName)),
            ("track", "\(f.trackIndex)"),
            ("fourcc", f.profile.map { JSON.string($0.fourCC) } ?? "null"),
            ("profile", JSON.string(f.profileName)),
            ("width", "\(f.width)"),
            ("height", "\(f.height)"),
            ("frame_rate", rate),
            ("frame_count", f.frameCount.map(String.init) ?? "null"),
            ("bit_depth", "\(f.bitDepth)"),
            ("chroma", JSON.string(f.chroma.rawValue)),
            ("alpha", f.hasAlpha ? "true" : "false"),
            ("alpha_bits", "\(f.alpha.bits)"),
            ("field_order", JSON.string(f.fieldOrder.rawValue)),
            ("native_format", JSON.string(f.nativeFormat.name)),
            ("native_packed_layout", JSON.string(f.nativePackedLayout.rawValue)),
            ("creator", JSON.string(f.creator)),
            ("color", JSON.object([
                ("primaries", tag(f.colorTags.primaries)),
                ("transfer", tag(f.colorTags.transfer)),
                ("matrix", tag(f.colorTags.matrix)),
                ("range", f.colorTags.rangeJSON),
            ])),
            ("notes", JSON.array(f.notes.map(JSON.string))),
        ])
    }

    static func text(_ f: FormatDescription, path: String) -> String {
        func tag(_ t: Tagged<ColorCode>) -> String { "\(t.value.displayName) (\(t.source.rawValue))" }
        let rate = f.frameRate.map { "\($0.numerator)/\($0.denominator) (\(JSON.number(Double($0.numerator) / Double($0.denominator), digits: 3)) fps)" } ?? "unknown"
        var lines = [
            "file:         \(path)",
            "container:    \(f.containerName), track \(f.trackIndex)",
            "profile:      \(f.profileName)\(f.profile.map { " [\($0.fourCC)]" } ?? "")",
            "size:         \(f.width)x\(f.height)",
            "frame rate:   \(rate)",
            "frames:       \(f.frameCount.map(String.init) ?? "unknown")",
            "chroma:       \(f.chroma.rawValue), \(f.bitDepth)-bit decode",
            "alpha:        \(f.hasAlpha ? "\(f.alpha.bits)-bit in the bitstream" : "none")",
            "scan:         \(f.fieldOrder.rawValue)",
            "native:       \(f.nativeFormat.name) (packed: \(f.nativePackedLayout.rawValue))",
            "creator:      \(f.creator)",
            "primaries:    \(tag(f.colorTags.primaries))",
            "transfer:     \(tag(f.colorTags.transfer))",
            "matrix:       \(tag(f.colorTags.matrix))",
            "range:        \(f.colorTags.range.value.rawValue) (\(f.colorTags.range.source.rawValue))",
        ]
        lines += f.notes.map { "note:         \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }
}
