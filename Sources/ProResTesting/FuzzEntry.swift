import Foundation
import Glibc
import ProResCore
import ProResFFmpeg
import ProResGPU
import ProResPipeline

/// One untrusted input through every parser of ours that faces one: the
/// frame header, the input sniffing, the elementary-stream reader or the
/// libavformat reader, the decode session, the packer and a hashing sink:
/// what `prores-decode INPUT` runs (`DecodeRun`'s pipeline). The libFuzzer target
/// (`Sources/prores-decode-fuzz`) calls it for each input and the
/// regression tests (`FuzzRegressionTests`) replay `Fixtures/fuzz/` through
/// it, so both exercise exactly the same code.
///
/// The input reaches the readers through the same `openSampleSource` the CLI
/// uses: as a memory-backed file (`memfd_create`, else an unlinked temporary
/// file) named `/proc/self/fd/N`, or, for one input length in four, as
/// standard input (`-`, a pipe: the readers' streaming paths). The output
/// layout (native, y416, v216) also follows the length, so the fuzzer reaches
/// every combination by growing or shrinking an input.
///
/// Broken invariants of our own code are collected as `violations`, never
/// trapped on here: the fuzz target turns them into a crash, a test into a
/// failure. A failure that FFmpeg reports cleanly (an error, a failed frame)
/// is an expected outcome, not a violation.
public enum FuzzEntry {
    /// Larger inputs are ignored: they add time, not coverage.
    public static let maximumInputSize = 1 << 20

    public struct Outcome: CustomStringConvertible {
        /// `ProResFrameHeader(_:)` on the input's own first bytes.
        public var header: Result<ProResFrameHeader, Error>
        public enum Input: Sendable { case file, standardInput }
        /// How the readers got the input: a file, or a pipe as standard input
        /// (`prores-decode -`), chosen from the input's length.
        public var input: Input?
        /// Why `openSampleSource` refused the input, if it did.
        public var openError: Error?
        /// The reader that took the input ("prores elementary stream", "mov,mp4,…").
        public var containerName: String?
        /// The output layout the run used (chosen from the input's length).
        public var output: OutputSelection?
        /// What came out of the decode session, or why reading or decoding threw.
        public var report: Decoded?
        public var runError: Error?
        /// Each frame's status, in output order.
        public var statuses: [FrameStatus] = []
        /// Broken invariants, in words; empty when everything held.
        public var violations: [String] = []
        /// Set when the input was larger than `maximumInputSize`.
        public var skipped = false

        public var description: String {
            var parts: [String] = []
            switch header {
            case .success(let h):
                parts.append("header \(h.width)x\(h.height) \(h.chroma.rawValue) alpha \(h.alpha.bits)")
            case .failure(let e): parts.append("header error: \(e)")
            }
            if let openError { parts.append("open error: \(openError)") }
            if let input { parts.append(input == .file ? "from a file" : "from stdin") }
            if let containerName { parts.append("reader: \(containerName)") }
            if let report {
                let failed = report.statuses.filter { if case .failed = $0 { return true } else { return false } }.count
                let damaged = report.statuses.filter { if case .damaged = $0 { return true } else { return false } }
                    .count
                parts.append("frames \(report.statuses.count) (failed \(failed), damaged \(damaged))")
                if let first = report.statuses.compactMap(\.reason).first { parts.append("first problem: \(first)") }
                if let shortfall = report.shortfall { parts.append("shortfall: \(shortfall)") }
            }
            if let runError { parts.append("run error: \(runError)") }
            if !violations.isEmpty { parts.append("VIOLATIONS: " + violations.joined(separator: " | ")) }
            return parts.joined(separator: "; ")
        }
    }

    /// `input` nil chooses by the input's length, as the fuzz target does.
    public static func run(_ bytes: [UInt8], input: Outcome.Input? = nil) -> Outcome {
        bytes.withUnsafeBytes { run($0, input: input) }
    }

    public static func run(_ bytes: UnsafeRawBufferPointer, input: Outcome.Input? = nil) -> Outcome {
        var outcome = Outcome(header: Result { try ProResFrameHeader(bytes) })
        guard bytes.count <= maximumInputSize else {
            outcome.skipped = true
            return outcome
        }
        outcome.violations += checkHeader(outcome.header, bytes)
        outcome.violations += checkSliceTable(bytes, geometry: nil)
        guard !bytes.isEmpty else { return outcome }  // openLocalFile refuses empty files by design
        outcome.input = input ?? (bytes.count % 4 == 3 ? .standardInput : .file)
        if outcome.input == .standardInput {
            let ran = withStandardInput(bytes) { exercise("-", bytes, &outcome) }
            if ran { return outcome }
            outcome.input = .file  // no pipe could hold the input: read it as a file instead
        }
        guard let file = MemoryFile(bytes) else {
            outcome.violations.append("harness: cannot create a memory-backed file (errno \(errno))")
            return outcome
        }
        defer { file.close() }
        exercise(file.path, bytes, &outcome)
        return outcome
    }

    /// Opens `path` as the CLI does, reads and decodes every sample, checks
    /// the seek on a second reader (files only).
    private static func exercise(_ path: String, _ bytes: UnsafeRawBufferPointer, _ outcome: inout Outcome) {
        let source: SampleSource
        do {
            source = try openSampleSource(path)
        } catch {
            outcome.openError = error
            switch error as? ProResDecodeError {
            case .inputUnreadable?, .notProRes?, .truncatedRecording?: break
            default:
                outcome.violations.append("openSampleSource threw an unexpected error: \(String(reflecting: error))")
            }
            if "\(error)".isEmpty { outcome.violations.append("openSampleSource threw an empty message") }
            return
        }
        let format = source.format
        outcome.containerName = format.containerName
        outcome.violations += checkFormat(format)

        let isElementary = ElementaryStreamReader.looksLikeElementaryStream(Array(bytes.prefix(8)))
        if isElementary != (format.containerName == "prores elementary stream") {
            outcome.violations.append(
                "sniffing: input \(isElementary ? "is" : "is not") an elementary stream, reader is '\(format.containerName)'"
            )
        }

        let checked = CheckedSource(source, inputSize: bytes.count, elementary: isElementary)
        let sink = HashingSink()
        let output: OutputSelection = [.native, .packed(.y416), .packed(.v216)][bytes.count % 3]
        outcome.output = output
        do {
            let report = try decodeAll(checked, output: output, sink: sink)
            outcome.report = report
            outcome.statuses = report.statuses
            if report.statuses.count != checked.samples {
                outcome.violations.append(
                    "\(checked.samples) samples went in, \(report.statuses.count) frames came out")
            }
            if report.indices != checked.indices {
                outcome.violations.append(
                    "frames came out as \(report.indices.prefix(20)), samples went in as \(checked.indices.prefix(20))")
            }
            let written = report.statuses.filter { if case .failed = $0 { return false } else { return true } }.count
            if sink.indices.count != written {
                outcome.violations.append("the sink saw \(sink.indices.count) frames, \(written) were decoded")
            }
            for (index, status) in zip(report.indices, report.statuses) where status.reason?.isEmpty == true {
                outcome.violations.append("frame \(index) is bad without a reason")
            }
            if isElementary, let count = format.frameCount, count != checked.samples {
                outcome.violations.append(
                    "the elementary stream announced \(count) frames, \(checked.samples) were read")
            }
        } catch {
            outcome.runError = error
            switch error as? ProResDecodeError {
            // A picture format that changes mid-stream is refused (exit 7).
            case .inputUnreadable?, .decoderUnavailable?: break
            default: outcome.violations.append("decoding threw an unexpected error: \(String(reflecting: error))")
            }
        }
        outcome.violations += checked.violations + sink.violations

        // Exact seeking: a fresh reader positioned on the last frame it announced.
        if path != "-", let count = format.frameCount, count > 1, let again = try? openSampleSource(path) {
            let target = count - 1
            do {
                try again.seek(toFrame: target)
                if let sample = try again.nextSample(), isElementary, sample.index != target {
                    outcome.violations.append(
                        "seek to frame \(target) of an elementary stream yielded frame \(sample.index)")
                }
            } catch let error as ProResDecodeError {
                if case .badRequest = error {
                    outcome.violations.append("seek to frame \(target) of \(count) refused: \(error)")
                }
            } catch {
                outcome.violations.append("seek threw an unexpected error: \(String(reflecting: error))")
            }
        }
    }

    /// What one decode produced.
    public struct Decoded {
        public var indices: [Int] = []
        public var statuses: [FrameStatus] = []
        public var shortfall: String?
    }

    /// The CLI's pipeline (`DecodeRun`) on the CPU decoder with one thread,
    /// so runs are repeatable: every sample through the session, each
    /// picture packed as `output` asks and read by the sink.
    private static func decodeAll(_ source: SampleSource, output: OutputSelection, sink: HashingSink) throws -> Decoded
    {
        let run = try DecodeRun(
            source: source, options: .init(output: output, threads: 1, decoder: .init(choice: .cpu)), sinks: [sink])
        let report: DecodeRun.Report
        do {
            report = try run.run()
        } catch ProResDecodeError.badRequest(.noFrames) {
            return Decoded(shortfall: source.shortfall)  // nothing to decode is an outcome, not an error
        }
        return Decoded(
            indices: report.frames.map(\.index), statuses: report.frames.map(\.status), shortfall: report.shortfall)
    }

    // MARK: - Invariants

    private static func checkHeader(_ result: Result<ProResFrameHeader, Error>, _ bytes: UnsafeRawBufferPointer)
        -> [String]
    {
        switch result {
        case .failure(let error):
            guard let error = error as? BitstreamError else {
                return ["ProResFrameHeader threw a \(type(of: error)), not a BitstreamError: \(error)"]
            }
            return error.message.isEmpty ? ["ProResFrameHeader threw an empty message"] : []
        case .success(let h):
            var broken: [String] = []
            let stated =
                bytes.count >= 4 ? Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3]) : -1
            if h.frameSize != stated { broken.append("header frameSize \(h.frameSize), bytes state \(stated)") }
            if !(20...bytes.count - 8).contains(h.headerSize) {
                broken.append("header size \(h.headerSize) accepted for a \(bytes.count)-byte input")
            }
            if h.pictureOffset > bytes.count {
                broken.append("picture offset \(h.pictureOffset) past the \(bytes.count)-byte input")
            }
            if h.version > 1 { broken.append("version \(h.version) accepted") }
            let limit = ProResFrameHeader.maximumDimension
            if !(1...limit).contains(h.width) || !(1...limit).contains(h.height) {
                broken.append("size \(h.width)x\(h.height) accepted")
            }
            for matrix in [h.lumaQuantMatrix, h.chromaQuantMatrix] where matrix != nil && matrix!.count != 64 {
                broken.append("a quantisation matrix of \(matrix!.count) entries")
            }
            let matrixBytes = 64 * ((h.lumaQuantMatrix == nil ? 0 : 1) + (h.chromaQuantMatrix == nil ? 0 : 1))
            if 28 + matrixBytes > bytes.count {
                broken.append("quantisation matrices read past the \(bytes.count)-byte input")
            }
            return broken
        }
    }

    private static func checkFormat(_ format: FormatDescription) -> [String] {
        var broken: [String] = []
        let limit = ProResFrameHeader.maximumDimension
        if !(1...limit).contains(format.width) || !(1...limit).contains(format.height) {
            broken.append("format \(format.width)x\(format.height)")
        }
        if let count = format.frameCount, count < 0 { broken.append("negative frame count \(count)") }
        if format.nativeFormat.chroma != format.chroma || format.nativeFormat.hasAlpha != format.hasAlpha {
            broken.append("native format \(format.nativeFormat) for \(format.chroma.rawValue) alpha \(format.hasAlpha)")
        }
        return broken
    }

    // MARK: - Harness pieces

    /// Forwards a source and checks every sample it yields.
    /// The GPU decoder's CPU-side parser on one frame: whatever it accepts
    /// must stay inside the frame and tile the picture, since the shaders
    /// trust its offsets and sizes. `geometry` nil takes the frame header's.
    static func checkSliceTable(_ bytes: UnsafeRawBufferPointer, geometry: SliceTable.Geometry?) -> [String] {
        guard let header = try? ProResFrameHeader(bytes) else { return [] }
        let table: SliceTable
        do {
            table = try SliceTable(
                frame: bytes,
                geometry: geometry ?? .init(width: header.width, height: header.height, chroma: header.chroma))
        } catch {
            return "\(error)".isEmpty ? ["SliceTable threw an empty message"] : []
        }
        var violations: [String] = []
        let interlaced = header.fieldOrder != .progressive
        let mbWidth = (header.width + 15) >> 4
        let mbRows = interlaced ? (header.height + 31) >> 5 : (header.height + 15) >> 4
        var coefficients = 0
        var covered: [Int: Int] = [:]  // macroblocks per (field parity, row)
        for i in 0..<table.sliceCount {
            let w = Array(table.slices[i * SliceTable.sliceWords..<(i + 1) * SliceTable.sliceWords])
            let start = Int(w[0])
            let headerSize = Int(w[1] & 0xFF)
            let log2 = Int(w[1] >> 20 & 3)
            let valid = w[1] >> 24 & 1 == 1
            let sizes = [Int(w[2] & 0xFFFF), Int(w[2] >> 16), Int(w[3] & 0xFFFF), Int(w[3] >> 16)]
            let mbX = Int(w[4] & 0xFFFF)
            let mbY = Int(w[4] >> 16)
            let parity = Int(w[5] >> 8 & 1)
            if start + 6 > bytes.count {
                violations.append("slice \(i) starts at \(start) of a \(bytes.count)-byte frame")
            }
            if valid && start + headerSize + sizes.reduce(0, +) > bytes.count {
                violations.append(
                    "slice \(i) runs to \(start + headerSize + sizes.reduce(0, +)) of a \(bytes.count)-byte frame")
            }
            if mbX + (1 << log2) > mbWidth || mbY >= mbRows {
                violations.append("slice \(i) covers macroblocks outside the picture")
            }
            if Int(w[6]) != coefficients {
                violations.append("slice \(i)'s coefficients start at \(w[6]), not \(coefficients)")
            }
            coefficients += SliceTable.coefficientsPerMacroblock(header.chroma, alpha: header.alpha != .none) << log2
            covered[parity << 16 | mbY, default: 0] += 1 << log2
        }
        if covered.values.contains(where: { $0 != mbWidth }) {
            violations.append("the slices do not tile every macroblock row once")
        }
        if table.coefficientCount != coefficients {
            violations.append("coefficient count \(table.coefficientCount), slices need \(coefficients)")
        }
        return violations
    }

    private final class CheckedSource: SampleSource {
        let base: SampleSource
        let inputSize: Int
        let elementary: Bool
        private(set) var samples = 0
        private(set) var indices: [Int] = []
        private(set) var violations: [String] = []
        private var bytesSeen = 0

        init(_ base: SampleSource, inputSize: Int, elementary: Bool) {
            self.base = base
            self.inputSize = inputSize
            self.elementary = elementary
        }

        var format: FormatDescription { base.format }
        var shortfall: String? { base.shortfall }
        func seek(toFrame index: Int) throws { try base.seek(toFrame: index) }

        func nextSample() throws -> CompressedSample? {
            guard let sample = try base.nextSample() else { return nil }
            if elementary {
                if sample.index != samples {
                    violations.append("elementary-stream sample \(samples) is numbered \(sample.index)")
                }
                if sample.bytes.isEmpty { violations.append("elementary-stream sample \(sample.index) is empty") }
                bytesSeen += sample.bytes.count
                if bytesSeen > inputSize {
                    violations.append("elementary-stream samples hold \(bytesSeen) bytes of a \(inputSize)-byte input")
                }
            }
            if sample.index < 0 { violations.append("sample numbered \(sample.index)") }
            let format = base.format
            violations += FuzzEntry.checkSliceTable(
                sample.bytes, geometry: .init(width: format.width, height: format.height, chroma: format.chroma))
            samples += 1
            indices.append(sample.index)
            return sample
        }
    }

    /// Reads every visible byte it is given, in Swift (so AddressSanitizer
    /// sees every read, whichever sink a real run would use).
    private final class HashingSink: FrameSink, @unchecked Sendable {
        private(set) var indices: [Int] = []
        private(set) var violations: [String] = []
        private(set) var checksum: UInt64 = 0

        func consume(index: Int, pts: Int64?, spans: [UnsafeRawBufferPointer]) throws {
            indices.append(index)
            if spans.reduce(0, { $0 + $1.count }) == 0 {
                violations.append("frame \(index) reached the sink with no bytes")
            }
            for span in spans {
                let words = span.count / 8
                for i in 0..<words {
                    checksum = (checksum &* 31) &+ span.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)
                }
                for byte in span[(8 * words)...] { checksum = (checksum &* 31) &+ UInt64(byte) }
            }
        }

        func finish() throws {}
        func abort() {}
    }

    private static let standardInputLock = NSLock()

    /// Runs `body` with the input as the process's standard input: a pipe
    /// that holds all of it, then end of file. False when no pipe is large
    /// enough (the kernel's pipe-max-size).
    private static func withStandardInput(_ bytes: UnsafeRawBufferPointer, _ body: () -> Void) -> Bool {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ (a _GNU_SOURCE constant)
        if bytes.count > 1 << 16, fcntl(ends[1], setPipeSize, Int32(bytes.count)) < bytes.count {
            Glibc.close(ends[0])
            Glibc.close(ends[1])
            return false
        }
        var written = 0
        while written < bytes.count {
            let n = write(ends[1], bytes.baseAddress! + written, bytes.count - written)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            written += n
        }
        Glibc.close(ends[1])
        standardInputLock.lock()
        defer { standardInputLock.unlock() }
        let saved = dup(STDIN_FILENO)
        dup2(ends[0], STDIN_FILENO)
        Glibc.close(ends[0])
        defer {
            dup2(saved, STDIN_FILENO)
            Glibc.close(saved)
        }
        body()
        return true
    }

    /// The input as a file that lives in memory only.
    private struct MemoryFile {
        let fd: Int32
        var path: String { "/proc/self/fd/\(fd)" }

        init?(_ bytes: UnsafeRawBufferPointer) {
            var fd: Int32 = -1
            if let create = Self.memfdCreate { fd = create("prores-decode-fuzz", 1 /* MFD_CLOEXEC */) }
            if fd < 0 {
                var template = Array((NSTemporaryDirectory() + "/prores-decode-fuzz-XXXXXX").utf8CString)
                fd = mkstemp(&template)
                if fd >= 0 { unlink(template) }
            }
            guard fd >= 0 else { return nil }
            var written = 0
            while written < bytes.count {
                let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else {
                    Glibc.close(fd)
                    return nil
                }
                written += n
            }
            self.fd = fd
        }

        func close() { Glibc.close(fd) }

        /// Glibc's module map hides `memfd_create` (a _GNU_SOURCE declaration).
        private static let memfdCreate: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32)? = {
            guard let symbol = dlsym(nil, "memfd_create") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32).self)
        }()
    }
}
