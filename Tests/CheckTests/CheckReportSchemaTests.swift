import Foundation
import XCTest

@testable import TestSupport

/// `check --report`, `merge --report` and a resumed report, held against
/// docs/schema/check-report.schema.json by an independent validator
/// (python3-jsonschema from Debian, as StreamDescriptionSchemaTests).
final class CheckReportSchemaTests: XCTestCase {
    static let schema = Repo.root.appendingPathComponent("docs/schema/check-report.schema.json").path

    func testEveryKindOfReportMatchesTheSchema() throws {
        let dir = try CheckFixtures.mixedDirectory(self)
        let out = try makeTemporaryDirectory(self)
        let golden = out.appendingPathComponent("g.golden").path
        let whole = out.appendingPathComponent("whole.json").path
        XCTAssertEqual(
            try runTool(["check", dir.path, "--expect", "profile=hq", "--report", whole, "--write-golden", golden])
                .status, 10)
        try assertValid(whole, what: "a check report")

        let againstGolden = out.appendingPathComponent("golden.json").path
        XCTAssertEqual(try runTool(["check", dir.path, "--golden", golden, "--report", againstGolden]).status, 10)
        try assertValid(againstGolden, what: "a report with golden results")

        var shards: [String] = []
        for index in 1...2 {
            let report = out.appendingPathComponent("s\(index).json").path
            _ = try runTool(["check", dir.path, "--expect", "profile=hq", "--shard", "\(index)/2", "--report", report])
            shards.append(report)
        }
        let merged = out.appendingPathComponent("merged.json").path
        XCTAssertEqual(try runTool(["merge"] + shards + ["--report", merged]).status, 10)
        try assertValid(merged, what: "a merged report")

        let resumed = out.appendingPathComponent("resumed.json").path
        let result = try runTool(["check", dir.path, "--expect", "profile=hq", "--resume", whole, "--report", resumed])
        XCTAssertTrue(result.stderr.contains("(carried)"), result.stderr)
        try assertValid(resumed, what: "a resumed report")

        // The schema holds status words to their facts too: a failing line marked pass does not match.
        let text = try String(contentsOfFile: whole, encoding: .utf8)
        let failing = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("\"status\":\"fail\"") })
        let edited = out.appendingPathComponent("edited.json").path
        try text.replacingOccurrences(
            of: String(failing),
            with: failing.replacingOccurrences(of: "\"status\":\"fail\"", with: "\"status\":\"pass\"")
        )
        .write(toFile: edited, atomically: true, encoding: .utf8)
        XCTAssertNotEqual(try validate(edited).status, 0, "an edited status word matches the schema")
    }

    private func validate(_ path: String) throws -> (status: Int32, text: String) {
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            report = json.load(open(sys.argv[2]))
            errors = [f"{e.json_path}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(report)]
            print("\\n".join(errors))
            sys.exit(1 if errors else 0)
            """
        // Debian's interpreter: python3-jsonschema installs there, not into other Pythons on PATH.
        let run = try runExternal(["/usr/bin/python3", "-c", script, Self.schema, path])
        return (run.status, run.text + run.stderr)
    }

    private func assertValid(_ path: String, what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (status, text) = try validate(path)
        XCTAssertEqual(status, 0, "\(what) does not match the schema:\n\(text)", file: file, line: line)
    }
}
