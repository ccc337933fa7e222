import Foundation
import XCTest

@testable import ProResTesting
@testable import TestSupport

/// Every fuzz entry over its seeds, as `make fuzz` starts from them: the
/// fixtures and the damage corpus through `FuzzEntry` (decode), each
/// template's own table through `TableFuzzEntry` (tables), the argument
/// vectors of Fixtures/fuzz/options/ through `OptionFuzzEntry` (options),
/// and whatever the fuzzer saved for the latter two (Fixtures/fuzz/tables/,
/// Fixtures/fuzz/options/). No crash and no broken invariant.
final class FuzzSeedReplayTests: XCTestCase {
    private func files(_ directory: String) throws -> [URL] {
        let url = Repo.fixtures.appendingPathComponent(directory)
        return try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: [.isRegularFileKey])
            .filter { !$0.lastPathComponent.hasPrefix(".") && $0.pathExtension != "md" && $0.pathExtension != "cube" }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
            .sorted { $0.path < $1.path }
    }

    func testDecodeEntryOverTheFixturesAndTheDamageCorpus() throws {
        var replayed = 0
        for directory in ["", "bad", "hostile"] {
            for file in try files(directory)
            where ["mov", "mxf", "prores", "mkv", "mp4", "bin", ""].contains(file.pathExtension) {
                let bytes = try [UInt8](Data(contentsOf: file))
                guard bytes.count <= FuzzEntry.maximumInputSize else { continue }
                let outcome = FuzzEntry.run(bytes, input: .file)
                XCTAssertEqual(outcome.violations, [], "\(directory)/\(file.lastPathComponent): \(outcome)")
                replayed += 1
            }
        }
        XCTAssertGreaterThan(replayed, 40)
    }

    func testTablesEntryOverItsSeedsAndFindings() throws {
        let templates = try TableFuzzEntry.templates(fixtures: Repo.fixtures.path)
        // The seeds rebuild the clean clips: all five frames decode.
        for seed in TableFuzzEntry.seeds(templates) {
            let outcome = try XCTUnwrap(seed.withUnsafeBytes { TableFuzzEntry.run($0, templates: templates) })
            XCTAssertEqual(outcome.violations, [], "\(outcome)")
            XCTAssertEqual(outcome.statuses, Array(repeating: .ok, count: 5), "seed \(seed[0]): \(outcome)")
        }
        for file in try files("fuzz/tables") {
            let bytes = try [UInt8](Data(contentsOf: file))
            let outcome = bytes.withUnsafeBytes { TableFuzzEntry.run($0, templates: templates) }
            XCTAssertEqual(
                outcome?.violations ?? [], [], "fuzz/tables/\(file.lastPathComponent): \(String(describing: outcome))")
        }
    }

    func testOptionsEntryOverItsSeeds() throws {
        let seeds = try files("fuzz/options")
        XCTAssertGreaterThanOrEqual(seeds.count, 6)
        for file in seeds {
            let bytes = try [UInt8](Data(contentsOf: file))
            XCTAssertEqual(
                bytes.withUnsafeBytes { OptionFuzzEntry.run($0) }, [], "fuzz/options/\(file.lastPathComponent)")
        }
    }

    /// The harness notices what it is there to notice.
    func testOptionsEntryChecksTheRateArithmetic() {
        XCTAssertEqual(OptionFuzzEntry.checkRate("30000/1001"), [])
        XCTAssertEqual(OptionFuzzEntry.checkRate("900719925474099200/36028797018963968"), [], "exactly 25")
        XCTAssertEqual(OptionFuzzEntry.checkRate("0/0"), [], "refused, with a reason")
    }
}
