import Foundation
import XCTest

@testable import TestSupport

/// Every decode session is made by `DecodeSessionFactory` (ProResPipeline),
/// from the decoder `DecoderSelection` resolved: a session made anywhere
/// else decides the decoder a second time, past the plan's fallbacks and
/// names. Checked in the sources, as `LayeringTests` checks the imports.
final class SessionFactoryTests: XCTestCase {
    /// The one file that makes sessions.
    static let factory = "ProResPipeline/DecodeSessionFactory.swift"
    /// A lane makes the streams it carries; the factory asks the lanes for one.
    static let laneStreams = ("ProResGPU/GPUDecodeLane.swift", "GPUDecodeStream")

    /// A session type's initialiser, by any of its names, or a lane's stream.
    static let construction = try! NSRegularExpression(
        pattern: #"\b((FFmpeg|CPU|GPU)?DecodeSession|HandoverSession|GPUDecodeStream)\s*\(|\.stream\(\s*format:"#)

    /// "target/file:line: code" for each session made outside the factory.
    static func constructions(in sources: URL = LayeringTests.sources) throws -> [String] {
        var found: [String] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) where !target.hasPrefix("C") {
            let root = sources.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let path = "\(target)/\(file)"
                guard path != factory else { continue }
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    let range = NSRange(code.startIndex..., in: code)
                    guard let match = construction.firstMatch(in: code, range: range) else { continue }
                    let made = Range(match.range(at: 1), in: code).map { String(code[$0]) }
                    if path == laneStreams.0 && made == laneStreams.1 { continue }
                    found.append("\(path):\(number + 1): \(code)")
                }
            }
        }
        return found.sorted()
    }

    func testSessionsAreMadeByTheFactoryAlone() throws {
        let found = try Self.constructions()
        XCTAssertEqual(found, [], "sessions are made by \(Self.factory):\n" + found.joined(separator: "\n"))
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: LayeringTests.sources.appendingPathComponent(Self.factory).path))
    }

    /// The scan must see each way of making a session, in a copy of the layout.
    func testAConstructionIsSeen() throws {
        let root = try makeTemporaryDirectory(self)
        let bench = root.appendingPathComponent("ProResBench")
        try FileManager.default.createDirectory(at: bench, withIntermediateDirectories: true)
        try """
        // CPUDecodeSession(format: format) in a comment is no session
        let a = try FFmpegDecodeSession(format: format, outputHandler: handler)
        let b = CPUDecodeSession (format: format, threads: 2, outputHandler: handler)
        let c = try GPUDecodeSession(format: format, device: device, configuration: .init(), outputHandler: h)
        let d = try lanes.stream(format: format, configuration: c, outputHandler: h, outputIdleHandler: nil)
        let e = try HandoverSession(first: first, successor: next, outputHandler: h, outputIdleHandler: nil)
        let f = GPUDecodeStream(lane: lane)
        let g = try DecodeSession(format: format, outputHandler: handler)
        let h = try DecodeSessionFactory.cpu(format: format)
        """.write(to: bench.appendingPathComponent("Probe.swift"), atomically: true, encoding: .utf8)
        let found = try Self.constructions(in: root)
        XCTAssertEqual(found.map { $0.split(separator: ":")[1] }, ["2", "3", "4", "5", "6", "7", "8"])
    }
}
