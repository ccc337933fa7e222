import Foundation
import XCTest

@testable import TestSupport

/// Every media file of Fixtures/hostile/ and Fixtures/bad/ gets one verdict from both
/// decoders: the same exit status, the same damaged and failed frames, the
/// same hashes of the frames they deliver (concealed ones included), and the
/// same `check` status and frame list.
final class HostileVerdictTests: XCTestCase {
    static let decoders = ["cpu", "gpu"]

    /// Paths under Fixtures/: the forged headers and tables, and the damaged and foreign files.
    static var corpus: [String] {
        ["hostile", "bad"].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: Repo.fixture(folder))) ?? [])
                .filter { ["mov", "mxf", "mkv", "mp4", "prores", "bin"].contains(($0 as NSString).pathExtension) }
                .sorted().map { folder + "/" + $0 }
        }
    }

    private struct Outcome: Equatable {
        let status: Int32
        /// The frames named by the error lines (`frame N …`, `frames N–M …`).
        let badFrames: [String]
        /// `index hash` of each delivered frame.
        let hashes: [String]
    }

    private func decode(_ name: String, _ decoder: String) throws -> Outcome {
        let result = try runTool(
            [Repo.fixture(name), "--decoder", decoder, "--format", "native", "--framehash", "-", "--quiet"],
            timeout: 120)
        XCTAssertFalse(result.timedOut, "\(name) on \(decoder): hung")
        XCTAssertEqual(result.reason, .exit, "\(name) on \(decoder): killed by a signal; stderr:\n\(result.stderr)")
        let hashes = result.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            .map { "\($0[1]) \($0[5])" }
        let badFrames = Hostile.errorLines(result).compactMap { line -> String? in
            guard let range = line.range(of: #"frames? [0-9]+(–[0-9]+)?"#, options: .regularExpression) else {
                return nil
            }
            return String(line[range])
        }
        return Outcome(status: result.status, badFrames: badFrames, hashes: hashes)
    }

    func testBothDecodersDecodeEveryHostileFileAlike() throws {
        XCTAssertGreaterThanOrEqual(Self.corpus.count, 28, "the corpus: \(Self.corpus)")
        for name in Self.corpus {
            let (cpu, gpu) = (try decode(name, "cpu"), try decode(name, "gpu"))
            XCTAssertEqual(cpu, gpu, "\(name): the CPU and GPU decoders disagree")
        }
    }

    func testCheckGivesEveryHostileFileOneVerdict() throws {
        let dir = try makeTemporaryDirectory(self)
        var verdicts: [[String]] = []
        for decoder in Self.decoders {
            let report = dir.appendingPathComponent("\(decoder).json")
            let result = try runTool(
                ["check"] + Self.corpus.map(Repo.fixture) + ["--decoder", decoder, "--report", report.path],
                timeout: 300)
            XCTAssertEqual(result.reason, .exit, "\(decoder): \(result.stderr)")
            verdicts.append(
                try CheckFixtures.files(try Data(contentsOf: report)).map { file in
                    let frames = (file["errors"] as? [[String: Any]] ?? []).map { "\($0["frame"] ?? "-")" }
                    return
                        "\((file["path"] as? String ?? "").split(separator: "/").suffix(2).joined(separator: "/")) \(file["status"] ?? "?") \(frames)"
                } + ["exit \(result.status)"])
        }
        XCTAssertEqual(verdicts[0].count, Self.corpus.count + 1)
        XCTAssertEqual(verdicts[0], verdicts[1], "the CPU and GPU decoders' verdicts differ")
    }
}
