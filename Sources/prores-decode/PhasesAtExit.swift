import HostSupport
import ProResCore
import ProResPipeline

/// `--phases`: the phase report (`PhaseReport`), written once the process
/// has torn down, just before it exits, so that the teardown is in it.
/// Only the main thread touches it: `start` before the decode, `tearingDown`
/// after its summary, `write` last thing in main.
enum PhasesAtExit {
    nonisolated(unsafe) private static var file: OutputFile?
    /// When the summary was out: the teardown runs from there to exit.
    nonisolated(unsafe) private static var teardownStart: UInt64?
    /// Work the process exits without waiting for.
    nonisolated(unsafe) private static var unfinished: [String] = []

    /// Keeps every span from now on; the time since main's first statement
    /// is the command line's (settings, arguments, output safety).
    static func start(_ file: OutputFile) {
        Trace.keepSpans()
        Trace.record("command line read", from: ProcessClock.start, to: monotonicNanoseconds())
        self.file = file
    }

    static func tearingDown() { teardownStart = monotonicNanoseconds() }

    /// `work` is still running on a thread of its own, and the process exits without waiting for it.
    static func leftRunning(_ work: String) { unfinished.append(work) }

    /// Writes the report of a run that got as far as its summary; a run
    /// that failed writes none (its outputs are removed, as every output is).
    static func write() {
        guard let file, let teardownStart else { return }
        let end = monotonicNanoseconds()
        Trace.record("teardown", from: teardownStart, to: end)
        let report = PhaseReport(spans: Trace.keptSpans(), start: ProcessClock.start, end: end, leftRunning: unfinished)
        do {
            try file.write(report.json + "\n")
            try file.commit()
        } catch {
            Console.warning("--phases: \(ErrorWords.render(error))")
        }
    }
}
