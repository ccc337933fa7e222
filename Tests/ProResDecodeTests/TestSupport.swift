import CFFmpeg
import Foundation
@testable import ProResCore
@testable import ProResFFmpeg
@testable import GPUKit
@testable import ProResGPU
@testable import ProResPipeline
@testable import ProResTesting
import XCTest

/// Paths into the package, independent of the current directory.
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Fixtures")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }
    static func reference(_ name: String) -> String { fixtures.appendingPathComponent("ref").appendingPathComponent(name).path }

    /// The `prores-decode` built alongside the tests. On Linux the "bundle"
    /// is the build directory itself; on Darwin it is the .xctest beside it.
    static let executable: URL = {
        let bundle = Bundle(for: Marker.self).bundleURL
        let candidates = [bundle.appendingPathComponent("prores-decode"),
                          bundle.deletingLastPathComponent().appendingPathComponent("prores-decode")]
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

/// Runs `prores-decode` with optional stdin bytes, both pipes drained
/// concurrently, and a time limit after which the child is killed and the
/// test fails (a hang is a failure); reports whether it exited or died from a signal.
/// `stdinPath` opens a path as stdin instead (`< DIR` in a shell).
func runTool(_ arguments: [String], stdin: Data? = nil, stdinPath: String? = nil, environment: [String: String] = [:],
             in directory: URL? = nil, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) throws -> ToolResult {
    let process = Process()
    process.executableURL = Repo.executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdinFD = stdinPath.map { open($0, O_RDONLY | O_CLOEXEC) }
    defer { if let stdinFD, stdinFD >= 0 { close(stdinFD) } }
    if let stdinFD, stdinFD < 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    process.standardInput = stdinFD.map { FileHandle(fileDescriptor: $0, closeOnDealloc: false) }
        ?? (stdin == nil ? FileHandle.nullDevice : input)
    try process.run()
    if let stdin {
        DispatchQueue.global().async {
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
    }
    let outData = ToolPipeBytes(), errData = ToolPipeBytes()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { outData.data = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    let timedOut = process.isRunning
    if timedOut {
        kill(process.processIdentifier, SIGKILL)
        XCTFail("prores-decode \(arguments) did not finish within \(timeout) s", file: file, line: line)
    }
    process.waitUntilExit()
    group.wait()
    return ToolResult(status: process.terminationStatus, reason: process.terminationReason, stdout: outData.data,
                      stderr: String(decoding: errData.data, as: UTF8.self), timedOut: timedOut)
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
    let raw = try CheckGPUDecoderTests.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Repo.fixture(clip), "-f", "rawvideo", "-"])
    return try B3Sum.hexes(CheckGPUDecoderTests.split(raw, clip: clip))
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
func assertSingleError(_ result: ToolResult, mentions: [String], _ what: String,
                       file: StaticString = #filePath, line: UInt = #line) {
    let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: true)
    XCTAssertEqual(lines.count, 1, "\(what): expected exactly one stderr line, got:\n\(result.stderr)", file: file, line: line)
    guard let message = lines.first else { return }
    XCTAssertTrue(message.hasPrefix("prores-decode: error: "), "\(what): not an error line: \(message)", file: file, line: line)
    for needle in mentions {
        XCTAssertTrue(message.contains(needle), "\(what): the error should mention '\(needle)': \(message)", file: file, line: line)
    }
}
