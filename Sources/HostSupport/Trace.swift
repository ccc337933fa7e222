import Foundation
import Glibc

/// Spans of named work on every thread, for finding what a whole run waits
/// on (the reader, the parse or submit thread, the GPU, a sink): per-frame
/// stage times say how long each stage took, not which one the others
/// waited for. Off unless the command line names a file
/// (`PRORES_DECODE_TRACE`, passed to `keepSpans(forFile:)`); then every
/// span is kept in memory and `document()` (written by the CLI before it exits)
/// holds them in the Chrome trace-event format, which chrome://tracing and
/// Perfetto show as a timeline and `scripts/trace-summary.py` sums up.
/// Off, a span costs one load of a constant.
public enum Trace {
    private struct Span {
        let name: StaticString
        let thread: UInt64
        let start: UInt64
        let end: UInt64
    }

    /// Where the trace goes; nil: no trace file. Set by `keepSpans(forFile:)`.
    public static var path: String? { file }
    /// Spans are kept: for the trace file, or for `keptSpans()` (a phase report).
    public static var isEnabled: Bool { keeping || file != nil }
    /// Set by `keepSpans()`, once, before any other thread records.
    nonisolated(unsafe) private static var keeping = false
    /// Set by `keepSpans(forFile:)`, once, before any other thread records.
    nonisolated(unsafe) private static var file: String?

    /// Keeps every span from now on, for a trace file at `path` (written
    /// by the caller from `document()`); nil keeps nothing. Call it first,
    /// before starting the threads that record spans.
    public static func keepSpans(forFile path: String?) { file = path }

    /// Keeps every span from now on, without a trace file (`keptSpans()` reads
    /// them). Call it before starting the threads that record spans.
    public static func keepSpans() { keeping = true }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var spans: [Span] = []
    /// Each thread's name, as it was when the thread first recorded a span.
    nonisolated(unsafe) private static var threadNames: [UInt64: String] = [:]

    /// The start of a span (0 when tracing is off).
    @inline(__always)
    public static func begin() -> UInt64 { isEnabled ? monotonicNanoseconds() : 0 }

    /// Ends the span that `begin()` started on this thread.
    @inline(__always)
    public static func end(_ name: StaticString, since start: UInt64) {
        guard isEnabled else { return }
        record(name, start: start, end: monotonicNanoseconds())
    }

    /// `body`, as one span.
    @inline(__always)
    public static func span<T>(_ name: StaticString, _ body: () throws -> T) rethrows -> T {
        guard isEnabled else { return try body() }
        let start = monotonicNanoseconds()
        defer { record(name, start: start, end: monotonicNanoseconds()) }
        return try body()
    }

    /// A span timed by the caller (work whose start was known before
    /// spans were kept, or that began on another thread).
    public static func record(_ name: StaticString, from start: UInt64, to end: UInt64) {
        guard isEnabled else { return }
        record(name, start: start, end: end)
    }

    /// One span as kept: its name, thread and monotonic start and end (ns).
    public struct Recorded: Sendable, Equatable {
        public let name: String
        public let thread: UInt64
        public let start: UInt64
        public let end: UInt64

        public init(name: String, thread: UInt64, start: UInt64, end: UInt64) {
            self.name = name
            self.thread = thread
            self.start = start
            self.end = end
        }
    }

    /// Every span kept so far, in the order they ended.
    public static func keptSpans() -> [Recorded] {
        lock.lock()
        let taken = spans
        lock.unlock()
        return taken.map { Recorded(name: "\($0.name)", thread: $0.thread, start: $0.start, end: $0.end) }
    }

    private static func record(_ name: StaticString, start: UInt64, end: UInt64) {
        let thread = UInt64(pthread_self())
        let span = Span(name: name, thread: thread, start: start, end: end)
        lock.lock()
        spans.append(span)
        let named = threadNames[thread] != nil
        lock.unlock()
        guard !named else { return }
        // Foundation's name for the thread, else the kernel's (threads
        // Foundation did not start: the main thread, the global queue's).
        let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "thread"
        let name =
            Thread.current.name.flatMap { $0.isEmpty ? nil : $0 }
            ?? comm.trimmingCharacters(in: .whitespacesAndNewlines)
        lock.lock()
        threadNames[thread] = name
        lock.unlock()
    }

    /// The spans so far in the Chrome trace-event format, times in µs from
    /// process start (`ProcessClock.start`); nil when tracing is off. The
    /// CLI writes it to `path` like any other output.
    public static func document() -> String? {
        guard path != nil else { return nil }
        lock.lock()
        let taken = spans
        let names = threadNames
        lock.unlock()
        var text = "{\"traceEvents\":[\n"
        for (thread, name) in names.sorted(by: { $0.key < $1.key }) {
            text +=
                "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":\(thread),\"args\":{\"name\":\(JSON.string(name))}},\n"
        }
        for (i, span) in taken.enumerated() {
            let start = Double(Int64(bitPattern: span.start &- ProcessClock.start)) / 1000
            let duration = Double(span.end &- span.start) / 1000
            text +=
                "{\"name\":\"\(span.name)\",\"ph\":\"X\",\"pid\":1,\"tid\":\(span.thread),"
                + "\"ts\":\(JSON.number(start, digits: 1)),\"dur\":\(JSON.number(duration, digits: 1))}"
            text += i + 1 < taken.count ? ",\n" : "\n"
        }
        return text + "]}\n"
    }
}
