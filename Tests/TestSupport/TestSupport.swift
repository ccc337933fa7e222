import Foundation
import ProResCore
import ProResFFmpeg
import XCTest

/// Paths into the package, independent of the current directory.
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Fixtures")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }
    static func reference(_ name: String) -> String {
        fixtures.appendingPathComponent("ref").appendingPathComponent(name).path
    }

    /// The `prores-decode` built alongside the tests. On Linux the "bundle"
    /// is the build directory itself; on Darwin it is the .xctest beside it.
    static let executable: URL = {
        let bundle = Bundle(for: Marker.self).bundleURL
        let candidates = [
            bundle.appendingPathComponent("prores-decode"),
            bundle.deletingLastPathComponent().appendingPathComponent("prores-decode"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    private final class Marker {}
}

/// The outcome of one run of the executable, including how it ended.
struct ToolResult {
    let status: Int32
    let reason: Process.TerminationReason
    let stdout: Data
    let stderr: String
    let timedOut: Bool
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Where a run's stdout goes: read back, a full device (`> /dev/full`), or
/// a pipe whose reader has gone (`| head -c0`: writes fail with EPIPE).
enum ToolStdout {
    case captured, deviceFull, closedPipe
}

/// Runs `prores-decode` with optional stdin bytes, both pipes drained
/// concurrently, and a time limit after which the child is killed and the
/// test fails (a hang is a failure); reports whether it exited or died from a signal.
/// `stdinPath` opens a path as stdin instead (`< DIR` in a shell).
func runTool(
    _ arguments: [String], stdin: Data? = nil, stdinPath: String? = nil, environment: [String: String] = [:],
    in directory: URL? = nil, stdout target: ToolStdout = .captured,
    timeout: TimeInterval = 60, executable: URL = Repo.executable,
    file: StaticString = #filePath, line: UInt = #line
) throws -> ToolResult {
    let process = Process()
    process.executableURL = executable
    process.arguments = withoutDefaultPolicy(arguments, executable: executable)
    if let directory { process.currentDirectoryURL = directory }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    switch target {
    case .captured, .closedPipe: process.standardOutput = out
    case .deviceFull: process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
    }
    process.standardError = err
    let stdinFD = stdinPath.map { open($0, O_RDONLY | O_CLOEXEC) }
    defer { if let stdinFD, stdinFD >= 0 { close(stdinFD) } }
    if let stdinFD, stdinFD < 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    process.standardInput =
        stdinFD.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) }
        ?? (stdin == nil ? FileHandle.nullDevice : input)
    try process.run()
    // Closed before the child can write: its first write to stdout meets no reader.
    if target == .closedPipe { try out.fileHandleForReading.close() }
    if let stdin {
        DispatchQueue.global().async {
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
    }
    let outData = ToolPipeBytes()
    let errData = ToolPipeBytes()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        if target == .captured { outData.data = out.fileHandleForReading.readDataToEndOfFile() }
        group.leave()
    }
    group.enter()
    DispatchQueue.global().async {
        errData.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    let timedOut = process.isRunning
    if timedOut {
        kill(process.processIdentifier, SIGKILL)
        XCTFail(
            "\(executable.lastPathComponent) \(arguments) did not finish within \(timeout) s", file: file, line: line)
    }
    process.waitUntilExit()
    group.wait()
    return ToolResult(
        status: process.terminationStatus, reason: process.terminationReason, stdout: outData.data,
        stderr: String(decoding: errData.data, as: UTF8.self), timedOut: timedOut)
}

/// `check` without the default policy, unless the test names a policy: the
/// fixtures are test patterns whose chroma leaves the video range, which
/// the default policy warns of, and most tests of `check` are about other
/// things. Tests of the policies pass `--policy default` or a file.
func withoutDefaultPolicy(_ arguments: [String], executable: URL) -> [String] {
    guard executable == Repo.executable, arguments.first == "check", !arguments.contains("--policy"),
        !arguments.contains("--help"), !arguments.contains("-h")
    else { return arguments }
    return ["check", "--policy", "none"] + arguments.dropFirst()
}

/// Another program (bash, man, make, an installed copy of the tool), run as `runTool` runs ours.
func runProgram(
    _ path: String, _ arguments: [String], environment: [String: String] = [:], in directory: URL? = nil,
    timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line
) throws -> ToolResult {
    try runTool(
        arguments, environment: environment, in: directory, timeout: timeout, executable: URL(fileURLWithPath: path),
        file: file, line: line)
}

/// Starts the tool (with `--quiet`, for the commands that take it), sends
/// `signal` `delay` seconds later; nil when it finished first.
func runInterrupted(
    _ arguments: [String], after delay: Double, signal: Int32, in directory: URL? = nil, quiet: Bool = true
)
    throws -> (status: Int32, reason: Process.TerminationReason, stderr: String)?
{
    let process = Process()
    process.executableURL = Repo.executable
    process.arguments = withoutDefaultPolicy(arguments, executable: Repo.executable) + (quiet ? ["--quiet"] : [])
    if let directory { process.currentDirectoryURL = directory }
    let err = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = err
    try process.run()
    let errData = ToolPipeBytes()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    // The delay counts from the moment the tool can hear the signal (its
    // first statement installs the handlers): before that, the loader is
    // still mapping the binary, and on a busy CI machine that alone can
    // take 0.1 s.
    let launched = Date()
    while process.isRunning && !catchesSignal(signal, pid: process.processIdentifier)
        && Date().timeIntervalSince(launched) < 10
    {
        usleep(1_000)
    }
    usleep(UInt32(delay * 1_000_000))
    guard process.isRunning else {
        process.waitUntilExit()
        group.wait()
        return nil
    }
    kill(process.processIdentifier, signal)
    let sent = Date()
    while process.isRunning && Date().timeIntervalSince(sent) < 10 { usleep(10_000) }
    let stillRunning = process.isRunning
    XCTAssertFalse(stillRunning, "no exit within 10 s of the signal")
    if stillRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    group.wait()
    return (process.terminationStatus, process.terminationReason, String(decoding: errData.data, as: UTF8.self))
}

/// Whether the kernel says `pid` catches `signal` (the SigCgt mask of
/// /proc/PID/status). Not SigIgn: a shell starts background jobs with
/// SIGINT ignored, long before the tool's handlers exist.
func catchesSignal(_ signal: Int32, pid: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
    let bit = UInt64(1) << UInt64(signal - 1)
    for line in status.split(separator: "\n") where line.hasPrefix("SigCgt:") {
        if let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16), mask & bit != 0 { return true }
    }
    return false
}

/// A value behind a lock, changed in place from several threads at once
/// (`concurrentPerform`, worker threads) and read after they joined.
final class Guarded<T>: @unchecked Sendable {
    // @unchecked: `stored` is touched only under `lock`.
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func mutate(_ change: (inout T) -> Void) { lock.withLock { change(&stored) } }
}

/// What a pipe-draining thread read; handed over through `DispatchGroup.wait()`.
final class ToolPipeBytes: @unchecked Sendable {
    var data = Data()
}

/// A fresh empty directory, removed when the test ends.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("prores-decode-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Every sample of a fixture, with its stream's format.
func fixtureSamples(_ clip: String) throws -> (FormatDescription, [CompressedSample]) {
    let source = try openSampleSource(Repo.fixture(clip))
    var samples: [CompressedSample] = []
    while let sample = try source.nextSample() { samples.append(sample) }
    return (source.format, samples)
}

/// md5 column of ffmpeg's `-f framemd5` output (the independent reference).
func ffmpegFrameMD5s(_ clip: String) throws -> [String] {
    try String(contentsOfFile: Repo.reference("\(clip).framemd5"), encoding: .utf8)
        .split(separator: "\n").filter { !$0.hasPrefix("#") }
        .map { String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces)) }
}

/// Per-frame BLAKE3-256 of `clip`'s native planar frames as the `ffmpeg`
/// CLI decodes them (`-f rawvideo`), hashed by `b3sum`: golden v2's
/// reference, from two tools that are not ours.
func ffmpegFrameBLAKE3s(_ clip: String) throws -> [String] {
    let raw = try FrameTools.runProcess(
        "/usr/bin/ffmpeg", ["-v", "error", "-i", Repo.fixture(clip), "-f", "rawvideo", "-"])
    return try B3Sum.hexes(FrameTools.split(raw, clip: clip))
}

/// Per-frame md5s from the independent python packer (`index md5` lines).
func packedReferenceMD5s(_ clip: String, layout: String) throws -> [String] {
    try String(contentsOfFile: Repo.reference("\(clip).\(layout).md5"), encoding: .utf8)
        .split(separator: "\n").map { String($0.split(separator: " ")[1]) }
}

/// The md5 column of our own `--framemd5` output.
func md5Column(_ framemd5: String) -> [String] {
    framemd5.split(separator: "\n").filter { !$0.hasPrefix("#") }
        .map { String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces)) }
}

/// An EXR's G, B, R, A planes (`gbrapf32le`, the decoder's own format: no
/// swscale clamping) read back by the ffmpeg CLI: an independent reader.
func exrPlanes(_ path: String) throws -> (g: [Float], b: [Float], r: [Float], a: [Float]) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    process.arguments = ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "gbrapf32le", "-"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "ffmpeg could not read \(path)")
    XCTAssertEqual(data.count % 16, 0, "\(path): not four whole float planes")
    let floats = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    let n = floats.count / 4
    return (Array(floats[0..<n]), Array(floats[n..<2 * n]), Array(floats[2 * n..<3 * n]), Array(floats[3 * n..<4 * n]))
}

/// stderr is exactly one line, `prores-decode: error: ...`, naming the problem.
func assertSingleError(
    _ result: ToolResult, mentions: [String], _ what: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
    XCTAssertEqual(
        lines.count, 1, "\(what): expected exactly one stderr line, got:\n\(result.stderr)", file: file, line: line)
    guard let message = lines.first else { return }
    XCTAssertTrue(
        message.hasPrefix("prores-decode: error: "), "\(what): not an error line: \(message)", file: file, line: line)
    for needle in mentions {
        XCTAssertTrue(
            message.contains(needle), "\(what): the error should mention '\(needle)': \(message)", file: file,
            line: line)
    }
}
