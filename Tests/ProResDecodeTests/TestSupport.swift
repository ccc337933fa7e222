import Foundation
import XCTest

/// Paths into the package, independent of the current directory.
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = root.appendingPathComponent("Fixtures")
    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }
    static func reference(_ name: String) -> String { fixtures.appendingPathComponent("ref").appendingPathComponent(name).path }

    /// The `prores-decode` built alongside the test bundle.
    static let executable: URL = {
        let bundle = Bundle(for: Marker.self).bundleURL
        return bundle.deletingLastPathComponent().appendingPathComponent("prores-decode")
    }()

    private final class Marker {}
}

/// The outcome of running the CLI as a child process.
struct ProcessResult {
    let status: Int32
    let stdout: Data
    let stderr: String
    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `prores-decode` with `arguments`, optional stdin bytes, and a time
/// limit (a hang is a failure, not a stuck test run).
func runCLI(_ arguments: [String], stdin: Data? = nil, in directory: URL? = nil,
            timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
    let process = Process()
    process.executableURL = Repo.executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
        DispatchQueue.global().async {
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
    }
    // Drain both pipes concurrently so a chatty child never blocks.
    var outData = Data(), errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async { outData = out.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    group.enter()
    DispatchQueue.global().async { errData = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
        process.terminate()
        XCTFail("prores-decode \(arguments) did not finish within \(timeout) s", file: file, line: line)
    }
    process.waitUntilExit()
    group.wait()
    return ProcessResult(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
}

/// A fresh empty directory, removed when the test ends.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("prores-decode-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// md5 column of ffmpeg's `-f framemd5` output (the independent reference).
func ffmpegFrameMD5s(_ clip: String) throws -> [String] {
    try String(contentsOfFile: Repo.reference("\(clip).framemd5"), encoding: .utf8)
        .split(separator: "\n").filter { !$0.hasPrefix("#") }
        .map { String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces)) }
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
