import Foundation
import HostSupport
import ProResBench
import ProResCore
import ProResOptions
import ProResPipeline

/// `prores-decode plot TIMING.jsonl -o FILE.svg`: a `--timing` log drawn as
/// one SVG chart (`TimingPlot`), written atomically.
enum PlotCommand: Command {
    static let spec = CommandSpec(
        name: "plot", operands: "TIMING.jsonl", summary: "draw a --timing log as an SVG chart",
        sections: [
            OptionSection(
                heading: "OPTIONS",
                options: [Options.output, Options.title, SharedOptions.overwrite, SharedOptions.noOverwrite])
        ],
        about:
            "Reads a log written by --timing (- reads stdin) and draws each frame's stages stacked (demux, decode, pack, "
            + "output, then the GPU stages when there are any), its latency as a line, the latency's p50, p95 and p99 as dashed "
            + "lines, and damaged, failed and, with --realtime, late and dropped frames marked under the frame axis.")

    enum Options {
        static let output = Option<String>(
            "-o", "--output", value: "FILE.svg|-", short: "where the SVG goes (required)",
            long: "where the SVG goes (required; - for stdout)")
        static let title = Option<String>(
            "--title", value: "TEXT", short: "the chart's title",
            long: "the chart's title (default: the log's file name)")
    }

    struct Arguments: CommandArguments {
        let log: String
        let output: String
        let title: String?
        let overwrite: Bool
        let noOverwrite: Bool

        init(_ parsed: ParsedArguments) throws {
            log = try parsed.single("a --timing log to plot")
            guard let output = try parsed[Options.output] else {
                throw UsageError("plot needs -o FILE.svg (or -o - for stdout)")
            }
            self.output = output
            title = try parsed[Options.title]
            overwrite = parsed[SharedOptions.overwrite]
            noOverwrite = parsed[SharedOptions.noOverwrite]
        }

        func validate() throws {
            if overwrite && noOverwrite {
                throw UsageError("-y/--overwrite and -n/--no-overwrite contradict each other")
            }
            if output.isEmpty { throw UsageError("-o needs a file name") }
        }

        func files() -> CommandFiles {
            var files = CommandFiles()
            files.input("the log", log)
            files.output("-o", output)
            return files
        }
    }

    static func run(_ arguments: Arguments) throws -> ExitCode {
        let name = arguments.log == "-" ? "stdin" : arguments.log
        // Read before the output exists: a log that is refused leaves nothing behind.
        let bytes: [UInt8]
        do throws(AuxiliaryInput.Refusal) { bytes = try TimingLog.input.read(arguments.log) } catch {
            throw ProResDecodeError.inputUnreadable(path: name, reason: error.text)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let log = try TimingLog(parsing: text, path: name)
        let title = arguments.title ?? "Timing: " + (name as NSString).lastPathComponent
        let out = try OutputFile(path: arguments.output, overwrite: arguments.overwrite)
        try out.write(TimingPlot.svg(log, title: title))
        try out.commit()
        return .success
    }
}
