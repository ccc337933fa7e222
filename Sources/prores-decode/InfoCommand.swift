import ProResCore
import ProResFFmpeg
import GPUKit
import ProResGPU
import ProResPipeline


/// `prores-decode info INPUT [--json] [--track N]`: the format description,
/// each colour tag with where it came from.
enum InfoCommand {
    static let options: [OptionSpec] = [.flag("--json"), .value("--track"), .flag("--verbose"), .flag("--help", "-h")]

    static func run(_ arguments: [String]) throws -> ExitCode {
        let parsed = try ParsedArguments(arguments, accepting: options)
        if parsed.flag("--help") {
            Console.write("usage: prores-decode info INPUT [--json] [--track N]\n")
            return .success
        }
        let input = try parsed.single("input file")
        FFmpegLog.configure(verbose: parsed.flag("--verbose"))
        let source = try openSampleSource(input, track: try parsed.integer("--track", in: 0...Int(Int32.max)))
        let format = source.format
        if parsed.flag("--json") {
            Console.standardOutput(json(format, path: input) + "\n")
        } else {
            Console.standardOutput(text(format, path: input))
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
