import GPUKit
import HostSupport
import ProResCheck
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResOptions
import ProResPipeline

/// `prores-decode info INPUT...`: the format description,
/// each colour tag with where it came from.
enum InfoCommand: Command {
    static let spec = CommandSpec(
        name: "info", operands: "INPUT...", summary: "the format and where each colour tag came from",
        sections: [
            OptionSection(
                heading: "OPTIONS",
                options: [SharedOptions.input, Options.json, SharedOptions.track, Options.verbose])
        ],
        about:
            "Prints the format description of each INPUT (a file, a URL, or - for stdin) on stdout: profile and FourCC, size, "
            + "sample aspect ratio, frame rate, time base, frame count, duration, time code, bit depth, chroma, alpha, field order, "
            + "native format, each colour tag with its source (bitstream, container or fallback), HDR mastering metadata, and "
            + "each audio track (codec, sample rate, bit depth, channels and their layout, duration and its difference "
            + "from the video's, language). "
            + "With --json one input prints one object and several print an array of them, in the order given; "
            + "an input that cannot be read is reported on stderr, the others are still printed, and the exit status is that error's."
    )

    enum Options {
        static let json = SharedOptions.json.explained(
            "print JSON (docs/schema/stream-description.schema.json): an object, or an array of them for several inputs",
            short: "print JSON: an object per input")
        static let verbose = SharedOptions.verbose.explained("also show FFmpeg's own diagnostics")
    }

    struct Arguments: CommandArguments {
        let inputs: [String]
        let json: Bool
        let track: Int?
        let verbose: Bool

        init(_ parsed: ParsedArguments) throws {
            // `-i INPUT` (ffmpeg's spelling) names exactly one input.
            inputs =
                parsed.positionals.count > 1 && !parsed.gives(SharedOptions.input)
                ? try parsed.operands("input file") : [try parsed.input(SharedOptions.input)]
            if inputs.filter({ $0 == "-" }).count > 1 {
                throw UsageError("'-' given twice: stdin can be read only once")
            }
            json = parsed[Options.json]
            track = try parsed[SharedOptions.track]
            verbose = parsed[Options.verbose]
        }

        func files() -> CommandFiles {
            var files = CommandFiles()
            for input in inputs { files.input("the input", input) }
            return files
        }
    }

    static func run(_ arguments: Arguments) throws -> ExitCode {
        FFmpegLog.configure(verbose: arguments.verbose)
        let many = arguments.inputs.count > 1
        var described: [String] = []
        var failure: Error?
        for input in arguments.inputs {
            let format: FormatDescription
            let changes: [String]
            do {
                let source = try openSampleSource(input, track: arguments.track)
                format = source.format
                // Frame headers spread over the stream: a description that changes mid-clip is a note.
                changes = input == "-" ? [] : DescribedSource.changeNotes(DescribedSource.sample(source))
            } catch {
                // One unreadable input must not hide what the others are.
                guard many else { throw error }
                Console.error(ErrorWords.render(error))
                failure = failure ?? error
                continue
            }
            // Outside the catch: stdout that cannot be written ends the command (exit 6).
            if arguments.json {
                var description = StreamDescription(format, path: URLCredentials.shown(input))
                description.notes += changes
                described.append(description.json)
            } else {
                try Console.standardOutput(
                    (many && !described.isEmpty ? "\n" : "")
                        + text(format, path: URLCredentials.shown(input), notes: changes))
                described.append(input)
            }
        }
        if arguments.json {
            try Console.standardOutput((many ? "[" + described.joined(separator: ",\n") + "]" : described[0]) + "\n")
        }
        return failure.map(ExitCode.init) ?? .success
    }

    static func text(_ f: FormatDescription, path: String, notes: [String] = []) -> String {
        func tag(_ t: Tagged<ColorCode>) -> String { ColorTags.words(t) }
        let rate =
            f.frameRate.map {
                "\($0.numerator)/\($0.denominator) (\(JSON.number(Double($0.numerator) / Double($0.denominator), digits: 3)) fps)"
            } ?? "unknown"
        var lines = [
            "file:         \(TerminalText.escaped(path))",
            "container:    \(f.containerName), track \(f.trackIndex)",
            "profile:      \(f.profileName)\(f.profile.map { " [\($0.fourCC)]" } ?? "")",
            "size:         \(f.width)x\(f.height)",
            "display:      \(f.displayWords)",
            "frame rate:   \(rate)",
            "frames:       \(f.frameCount.map(String.init) ?? "unknown")",
            "duration:     \(f.durationWords ?? "unknown")",
            "timecode:     \(f.timecodeWords ?? "none")",
            "time base:    \(f.timeBase.numerator)/\(f.timeBase.denominator)",
            "chroma:       \(f.chroma.rawValue), \(f.bitDepth)-bit decode",
            "alpha:        \(f.hasAlpha ? "\(f.alpha.bits)-bit in the bitstream" : "none")",
            "field order:  \(f.fieldOrder.rawValue)",
            "native:       \(f.nativeFormat.name) (packed: \(f.nativePackedLayout.rawValue))",
            "creator:      \(f.creator)",
            "primaries:    \(tag(f.colorTags.primaries))",
            "transfer:     \(tag(f.colorTags.transfer))",
            "matrix:       \(tag(f.colorTags.matrix))",
            "range:        \(f.colorTags.range.value.rawValue) (\(f.colorTags.range.source.rawValue))",
            "mastering:    \(f.masteringWords ?? "none")",
            "light level:  \(f.contentLightWords ?? "none")",
        ]
        lines += audioLines(f)
        lines += (f.notes + notes).map { "note:         \($0)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "audio 1:      pcm_s24le, 48000 Hz, ..." for each sound track, by its stream index; "audio: none".
    static func audioLines(_ f: FormatDescription) -> [String] {
        if f.audioTracks.isEmpty { return ["audio:        none"] }
        return f.audioTracks.map { track in
            let label = "audio \(track.index):"
            return label.padding(toLength: max(14, label.count + 1), withPad: " ", startingAt: 0)
                + track.words(videoSeconds: f.videoSeconds)
        }
    }
}
