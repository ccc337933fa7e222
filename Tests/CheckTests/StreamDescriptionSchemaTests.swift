import Foundation
import XCTest

@testable import ProResCore
@testable import TestSupport

/// `info --json`, the check report's "format" and `bench --json`'s "format"
/// share one shape, StreamDescription. These tests hold the outputs against
/// docs/schema/stream-description.schema.json with an independent validator
/// (python3-jsonschema from Debian, in the Makefile's TEST_PACKAGES).
final class StreamDescriptionSchemaTests: XCTestCase {
    static let schema = Repo.root.appendingPathComponent("docs/schema/stream-description.schema.json").path

    /// Every clip in Fixtures/, in one `info --json` run (several inputs: an array).
    func testInfoOfEveryFixtureMatchesTheSchema() throws {
        let clips = try FileManager.default.contentsOfDirectory(atPath: Repo.fixtures.path)
            .filter { name in [".mov", ".mxf", ".prores"].contains { name.hasSuffix($0) } }.sorted()
        XCTAssertGreaterThan(clips.count, 10, "Fixtures/ looks empty")
        let result = try runTool(["info", "--json"] + clips.map(Repo.fixture))
        XCTAssertEqual(result.status, 0, result.stderr)
        let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        XCTAssertEqual(
            items.map { ($0["path"] as? String).map { URL(fileURLWithPath: $0).lastPathComponent } }, clips,
            "one object per input, in the order given")
        try assertValid(result.stdout, what: "info --json of every fixture")
        for item in items { XCTAssertEqual(item["schema"] as? String, StreamDescription.schemaVersion) }
    }

    /// One input prints one object (not an array), and it reads back as a
    /// StreamDescription that writes the same text again.
    func testInfoJSONRoundTripsThroughCodable() throws {
        let result = try runTool(["info", "--json", Repo.fixture("pq.mov")])
        XCTAssertEqual(result.status, 0, result.stderr)
        let description = try JSONDecoder().decode(StreamDescription.self, from: result.stdout)
        XCTAssertEqual(description.json + "\n", result.stdoutText)
        XCTAssertEqual(description.profile, "hq")
        XCTAssertEqual(description.profileName, "ProRes 422 HQ")
        XCTAssertEqual(description.color.transfer.value, "smpte2084")
        XCTAssertEqual(description.sampleAspectRatio, "1:1", "no pasp: square")
        XCTAssertNil(description.masteringDisplay)
    }

    /// The facts the ffmpeg CLI wrote: sample aspect ratio, time code, time
    /// base and duration.
    func testInfoReportsAspectTimecodeAndDuration() throws {
        let clip = try makeTaggedClip(in: makeTemporaryDirectory(self), sar: "4/3", rate: "25", timecode: "01:02:03:04")
        let result = try runTool(["info", "--json", clip])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertValid(result.stdout, what: "info --json of a tagged clip")
        let description = try JSONDecoder().decode(StreamDescription.self, from: result.stdout)
        XCTAssertEqual(description.sampleAspectRatio, "4:3")
        XCTAssertEqual(description.timecode, "01:02:03:04")
        XCTAssertEqual(description.frameCount, 4)
        XCTAssertEqual(description.durationSeconds, 0.16)
        XCTAssertTrue(description.timeBase.hasPrefix("1/"), description.timeBase)
    }

    /// Sound tracks (no fixture carries any): written, valid and read back.
    func testAudioTracksMatchTheSchema() throws {
        let clip = try AudioTestMedia.movFivePointOneAndStereo(makeTemporaryDirectory(self))
        let result = try runTool(["info", "--json", clip])
        XCTAssertEqual(result.status, 0, result.stderr)
        try assertValid(result.stdout, what: "info --json of a clip with 5.1 and stereo")
        let description = try JSONDecoder().decode(StreamDescription.self, from: result.stdout)
        XCTAssertEqual(description.json + "\n", result.stdoutText)
        XCTAssertEqual(description.audioTracks.map(\.channelLayout), ["5.1", "stereo"])
    }

    /// HDR side data (no fixture carries it): written, valid and read back.
    func testMasteringMetadataMatchesTheSchema() throws {
        var description = try JSONDecoder().decode(
            StreamDescription.self, from: runTool(["info", "--json", Repo.fixture("pq.mov")]).stdout)
        description.masteringDisplay = MasteringDisplay(
            red: .init(x: 0.708, y: 0.292), green: .init(x: 0.17, y: 0.797), blue: .init(x: 0.131, y: 0.046),
            whitePoint: .init(x: 0.3127, y: 0.329), minLuminance: 0.0001, maxLuminance: 1000)
        description.contentLightLevel = ContentLightLevel(maxCLL: 1000, maxFALL: 400)
        try assertValid(Data(description.json.utf8), what: "a description with HDR metadata")
        XCTAssertEqual(try JSONDecoder().decode(StreamDescription.self, from: Data(description.json.utf8)), description)
    }

    /// Every "format" in a check report of good and bad files is a stream description.
    func testCheckReportFormatsMatchTheSchema() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let result = try runTool(["check", dir.path, "--report", "-"])
        let formats = try CheckFixtures.files(result.stdout).compactMap { $0["format"] as? [String: Any] }
        XCTAssertGreaterThanOrEqual(formats.count, 5, "the good files have a format")
        try assertValid(try JSONSerialization.data(withJSONObject: formats), what: "the check report's formats")
    }

    /// `bench --json` carries the same description per input.
    func testBenchFormatMatchesTheSchema() throws {
        let result = try runTool(
            ["bench", "--json", "--frames", "2", "--decoders", "cpu", Repo.fixture("hq.mov")], timeout: 120)
        // The CPU decoder runs everywhere: a bench that fails is a failure, not a skip.
        XCTAssertEqual(result.status, 0, result.stderr)
        let reports = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
        let formats = reports.compactMap { $0["format"] as? [String: Any] }
        XCTAssertEqual(reports.count, 1)
        XCTAssertEqual(formats.count, reports.count)
        try assertValid(try JSONSerialization.data(withJSONObject: formats), what: "bench --json formats")
    }

    /// Validates `json` (one object or an array of them) with python3-jsonschema.
    private func assertValid(_ json: Data, what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            data = json.load(sys.stdin)
            items = data if isinstance(data, list) else [data]
            validator = jsonschema.Draft202012Validator(schema)
            errors = [f"item {i}: {e.json_path}: {e.message}" for i, item in enumerate(items) for e in validator.iter_errors(item)]
            print("\\n".join(errors)); print(f"{len(items)} checked")
            sys.exit(1 if errors or not items else 0)
            """
        // Debian's interpreter: python3-jsonschema installs there, not into other Pythons on PATH.
        let run = try runExternal(["/usr/bin/python3", "-c", script, Self.schema], stdin: json)
        XCTAssertEqual(
            run.status, 0, "\(what) does not match the schema:\n\(run.text)\(run.stderr)", file: file, line: line)
    }
}
